package engine

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"records/internal/wire"
)

// An event keeps the record as its row was after the change: a JSON object
// of column values, made by the database (PostgreSQL's row_to_json, SQLite's
// json_object; package gen writes the triggers). An event is answered by
// scanning that image as a row of the table is scanned and encoding the
// record as every answer does, so an event's record is the record a read
// answered at that moment, member for member.

// AppendImage appends the record of an event's image as JSON: spliced
// from the image when it may be (image_splice.go), else scanned and
// encoded.
func (res *Resource[E]) AppendImage(b []byte, image string) ([]byte, error) {
	if out, ok := res.splicing().splice(b, image); ok {
		return out, nil
	}
	e, err := res.scanImage([]byte(image))
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

// scanImageValue converts a column's JSON value to dest, a pointer to a
// column's Go type or to its sql.Null.
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
	if d, ok := dest.(*[]byte); ok {
		// A JSON column: the document itself.
		if null {
			*d = nil
		} else {
			*d = append([]byte(nil), raw...)
		}
		return nil
	}
	for _, scan := range imageScanners {
		if ok, err := scan(dest, text, null); ok {
			return err
		}
	}
	return fmt.Errorf("cannot scan an image into %T", dest)
}

// imageScanners store a column's text in each type a row holder has: they
// answer false for another type.
var imageScanners = []func(dest any, text string, null bool) (bool, error){
	scanInto[string](func(s string) (string, error) { return s, nil }),
	scanInto[int64](parseImageInt),
	scanInto[int](func(s string) (int, error) { n, err := parseImageInt(s); return int(n), err }),
	scanInto[float64](func(s string) (float64, error) { return strconv.ParseFloat(s, 64) }),
	// PostgreSQL's true and false; SQLite's 1 and 0.
	scanInto[bool](func(s string) (bool, error) { return s == "true" || s == "1", nil }),
	scanInto[time.Time](parseImageTime),
}

func parseImageInt(s string) (int64, error) { return strconv.ParseInt(s, 10, 64) }

// scanInto is the scanner of a *T or a *sql.Null[T]: the value parsed
// from the text, or T's zero (and for sql.Null not Valid) when null.
func scanInto[T any](parse func(string) (T, error)) func(dest any, text string, null bool) (bool, error) {
	return func(dest any, text string, null bool) (bool, error) {
		p, isValue := dest.(*T)
		n, isNull := dest.(*sql.Null[T])
		if !isValue && !isNull {
			return false, nil
		}
		var v T
		if !null {
			var err error
			if v, err = parse(text); err != nil {
				return true, err
			}
		}
		if isValue {
			*p = v
		} else {
			*n = sql.Null[T]{V: v, Valid: !null}
		}
		return true, nil
	}
}
