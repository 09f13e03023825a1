package engine

import (
	"bytes"
	"database/sql"
	"testing"

	"records/internal/spec"
	"records/internal/wire"
)

// splicedThing has a member of each type an image is spliced for, nullable
// or not.
type splicedThing struct {
	ID      string
	Version int64
	Name    *string
	Count   *int64
	Flag    bool
	Active  *bool
}

var splicedThings = &Resource[splicedThing]{
	Object:  "thing",
	Columns: []string{"id", "version", "name", "count", "flag", "active"},
	Fields: []Field[splicedThing]{
		{Member: "id", Column: "id", Type: spec.String, Append: func(b []byte, e *splicedThing) []byte { return wire.AppendString(b, e.ID) }},
		{Member: "version", Column: "version", Type: spec.Integer, Append: func(b []byte, e *splicedThing) []byte { return wire.AppendInt(b, e.Version) }},
		{Member: "fullName", Column: "name", Type: spec.String, Append: func(b []byte, e *splicedThing) []byte { return wire.AppendStringPtr(b, e.Name) }},
		{Member: "count", Column: "count", Type: spec.Integer, Append: func(b []byte, e *splicedThing) []byte { return wire.AppendInt64Ptr(b, e.Count) }},
		{Member: "flag", Column: "flag", Type: spec.Boolean, Append: func(b []byte, e *splicedThing) []byte { return wire.AppendBool(b, e.Flag) }},
		{Member: "active", Column: "active", Type: spec.Boolean, Append: func(b []byte, e *splicedThing) []byte { return wire.AppendBoolPtr(b, e.Active) }},
	},
	Encode: func(b []byte, e *splicedThing) []byte {
		b = append(append(b, `{"id":`...), wire.AppendString(nil, e.ID)...)
		b = wire.AppendInt(append(b, `,"version":`...), e.Version)
		b = wire.AppendStringPtr(append(b, `,"fullName":`...), e.Name)
		b = wire.AppendInt64Ptr(append(b, `,"count":`...), e.Count)
		b = wire.AppendBool(append(b, `,"flag":`...), e.Flag)
		b = wire.AppendBoolPtr(append(b, `,"active":`...), e.Active)
		return append(b, '}')
	},
	Scan: func(rows Row) (*splicedThing, error) {
		var e splicedThing
		var name sql.Null[string]
		var count sql.Null[int64]
		var active sql.Null[bool]
		if err := rows.Scan(&e.ID, &e.Version, &name, &count, &e.Flag, &active); err != nil {
			return nil, err
		}
		e.Name, e.Count, e.Active = Held(&name), Held(&count), Held(&active)
		return &e, nil
	},
}

// An image spliced answers the bytes its record scanned and encoded does;
// images that are not plain take the general way, and so answer the same.
func TestSplicedImagesAreEncodedImages(t *testing.T) {
	if len(splicedThings.splicing().fields) == 0 {
		t.Fatal("the resource's images are never spliced")
	}
	spliced := []string{
		// PostgreSQL's row_to_json, SQLite's json_object.
		`{"id":"a","team_id":1,"version":2,"name":"Ann é 😀","count":-5,"flag":true,"active":false,"created_at":"2026-11-25T21:22:06.123456+00:00"}`,
		`{"id":"a","team_id":1,"version":2,"name":"Ann","count":0,"flag":1,"active":0,"created_at":"2026-11-25 21:22:06.123"}`,
		`{"id":"a","version":1,"name":null,"count":null,"flag":false,"active":null}`,
		`{"id":null,"version":null,"name":null,"count":null,"flag":null,"active":null}`,
		`{"active":true,"flag":0,"count":12,"name":"x","version":3,"id":"b"}`,
		`{ "id" : "a" , "version" : 1 , "name" : "" , "count" : 1 , "flag" : 1 , "active" : 1 , "score" : -1.5e+3 } `,
	}
	general := []string{
		`{"id":"a\"b","version":1,"name":"x","count":1,"flag":1,"active":1}`,
		`{"id":"a","version":1,"name":"tab\there\\ \u00e9 \/","count":1,"flag":1,"active":1}`,
		`{"id":"a","version":1,"name":"line` + "\u2028" + `","count":1,"flag":1,"active":1}`,
		`{"id":"a","version":1,"name":"bad ` + "\xff" + `","count":1,"flag":1,"active":1}`,
		`{"id":"a","version":1,"name":5,"count":"7","flag":"1","active":1}`,
		`{"id":"a","version":007,"name":"x","count":-0,"flag":1,"active":1}`,
		`{"id":"a","version":1.0,"name":"x","count":1e3,"flag":2,"active":1}`,
		`{"id":"a","version":99999999999999999999,"name":"x","count":1,"flag":1,"active":1}`,
		`{"id":"a","version":1,"name":"x","count":1,"flag":1}`,
		`{"id":"a","version":1,"name":"x","name":"y","count":1,"flag":1,"active":1}`,
		`{"id":"a","version":1,"name":"x","count":1,"flag":1,"active":1,"doc":{"k":[1]}}`,
		`{"id":"a","version":1,"name":"x","count":1,"flag":1,"active":1,"n\u0061me":"z"}`,
		`{"id":"a","version":1,"name":"x","count":1,"flag":1,"active":1,"odd":1.}`,
		`{"id":"a","version":1,"name":"x","count":1,"flag":1,"active":1} trailing`,
		`{"id":"a","version":1,"name":"x","count":1,"flag":1,"active":1`,
		`["id","a"]`,
		` {"id":"a","version":1,"name":"x","count":1,"flag":1,"active":1}`,
		``,
	}
	s := splicedThings.splicing()
	for _, image := range append(spliced, general...) {
		got, ok := s.splice([]byte("prefix "), image)
		e, err := splicedThings.scanImage([]byte(image))
		if !ok {
			if !bytes.Equal(got, []byte("prefix ")) {
				t.Errorf("%s: not spliced, yet appended %q", image, got)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: spliced as %s, though the general way refuses it: %v", image, got, err)
			continue
		}
		if want := splicedThings.Encode([]byte("prefix "), e); !bytes.Equal(got, want) {
			t.Errorf("%s:\nspliced %s\nencoded %s", image, got, want)
		}
	}
	for _, image := range spliced {
		if _, ok := s.splice(nil, image); !ok {
			t.Errorf("%s: not spliced", image)
		}
	}
	for _, image := range general {
		if out, ok := s.splice(nil, image); ok {
			t.Errorf("%s: spliced as %s", image, out)
		}
	}
}

// A resource with a member of another type is never spliced.
func TestImagesOfOtherMembersAreNotSpliced(t *testing.T) {
	if len(imageCustomers.splicing().fields) != 0 {
		t.Fatal("a resource without fields is spliced")
	}
}

func BenchmarkSpliceImage(b *testing.B) {
	image := (`{"id":"a","team_id":1,"version":2,"name":"Ann Customer","count":-5,"flag":true,"active":false}`)
	s := splicedThings.splicing()
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := s.splice(buf[:0], image); !ok {
			b.Fatal("not spliced")
		}
	}
}
