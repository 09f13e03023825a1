package engine

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"records/internal/policy"
	"records/internal/wire"
)

// An event keeps the record as its row was after the change: a JSON object
// of column values, made by the database (PostgreSQL's row_to_json, SQLite's
// json_object; package gen writes the triggers). An event is answered by
// scanning that image as a row of the table is scanned and encoding the
// record as every answer does, so an event's record is the record a read
// answered at that moment, member for member.

func (res *Resource[E]) plural() string { return res.Plural }

func (res *Resource[E]) table() string { return res.Table }

func (res *Resource[E]) object() string { return res.Object }

func (res *Resource[E]) members() []policy.Member {
	out := make([]policy.Member, len(res.Fields))
	for i, f := range res.Fields {
		out[i] = policy.Member{Name: f.Member, Type: f.Type}
	}
	return out
}

// AppendImage appends the record of an event's image as JSON.
func (res *Resource[E]) AppendImage(b []byte, image []byte) ([]byte, error) {
	e, err := res.scanImage(image)
	if err != nil {
		return b, err
	}
	return res.Encode(b, e), nil
}

// scanImage reads the record of an image. Every event answered (the log,
// the stream, webhooks, NATS) reads one, so the image is split by the
// service's own JSON reader (package wire), not encoding/json's map.
func (res *Resource[E]) scanImage(image []byte) (*E, error) {
	cols, err := wire.ParseObject(image)
	if err == nil && wire.Kind(image) != "an object" {
		err = errors.New("not an object")
	}
	if err != nil {
		return nil, fmt.Errorf("reading the image of a %s: %w", res.Object, err)
	}
	e, err := res.Scan(imageRow{cols: cols, names: res.Columns})
	if err != nil {
		return nil, fmt.Errorf("reading the image of a %s: %w", res.Object, err)
	}
	return e, nil
}

// imageRow is an image read as a row of the columns names.
type imageRow struct {
	cols  []wire.Member
	names []string
}

// Scan converts each column's JSON value to its destination, as
// database/sql converts a driver's values.
func (r imageRow) Scan(dest ...any) error {
	if len(dest) != len(r.names) {
		return fmt.Errorf("scanning an image: %d destinations for %d columns", len(dest), len(r.names))
	}
	for i, d := range dest {
		if err := scanImageValue(r.column(i), d); err != nil {
			return fmt.Errorf("column %s: %w", r.names[i], err)
		}
	}
	return nil
}

// column is the value of the column names[i], nil when the image lacks
// it; the image's members come in the columns' order, so it looks there
// first.
func (r imageRow) column(i int) []byte {
	name := r.names[i]
	if i < len(r.cols) && r.cols[i].Name == name {
		return r.cols[i].Value
	}
	for _, c := range r.cols {
		if c.Name == name {
			return c.Value
		}
	}
	return nil
}

// imageTimeLayouts are the ways a time arrives in an image: PostgreSQL's
// JSON (RFC 3339 with the session's offset, a date alone for a date), and
// the text SQLite keeps.
var imageTimeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02 15:04:05.999999999-07:00",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999",
	time.DateOnly,
}

func parseImageTime(s string) (time.Time, error) {
	for _, l := range imageTimeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a time", s)
}

func scanImageValue(raw []byte, dest any) error {
	raw = bytes.TrimSpace(raw)
	null := len(raw) == 0 || string(raw) == "null"
	var text string
	isString := len(raw) > 0 && raw[0] == '"'
	if isString {
		var err error
		if text, err = wire.Text(raw); err != nil {
			// Text refuses what the service never stores (\u0000, a lone
			// surrogate); a row written by hand may hold it: read it as
			// encoding/json does.
			if err := json.Unmarshal(raw, &text); err != nil {
				return err
			}
		}
	} else if !null {
		text = string(raw)
	}
	switch d := dest.(type) {
	case *string:
		*d = text
	case *sql.Null[string]:
		*d = sql.Null[string]{V: text, Valid: !null}
	case *int, *int64, *sql.Null[int64]:
		var n int64
		if !null {
			var err error
			if n, err = strconv.ParseInt(text, 10, 64); err != nil {
				return err
			}
		}
		switch d := d.(type) {
		case *int:
			*d = int(n)
		case *int64:
			*d = n
		case *sql.Null[int64]:
			*d = sql.Null[int64]{V: n, Valid: !null}
		}
	case *float64, *sql.Null[float64]:
		var f float64
		if !null {
			var err error
			if f, err = strconv.ParseFloat(text, 64); err != nil {
				return err
			}
		}
		switch d := d.(type) {
		case *float64:
			*d = f
		case *sql.Null[float64]:
			*d = sql.Null[float64]{V: f, Valid: !null}
		}
	case *bool, *sql.Null[bool]:
		// PostgreSQL's true and false; SQLite's 1 and 0.
		v := text == "true" || text == "1"
		switch d := d.(type) {
		case *bool:
			*d = v
		case *sql.Null[bool]:
			*d = sql.Null[bool]{V: v, Valid: !null}
		}
	case *time.Time, *sql.Null[time.Time]:
		var t time.Time
		if !null {
			var err error
			if t, err = parseImageTime(text); err != nil {
				return err
			}
		}
		switch d := d.(type) {
		case *time.Time:
			*d = t
		case *sql.Null[time.Time]:
			*d = sql.Null[time.Time]{V: t, Valid: !null}
		}
	case *[]byte:
		// A JSON column: the document itself.
		if null {
			*d = nil
		} else {
			*d = append([]byte(nil), raw...)
		}
	default:
		return fmt.Errorf("cannot scan an image into %T", dest)
	}
	return nil
}
