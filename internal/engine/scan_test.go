package engine

import (
	"database/sql"
	"fmt"
	"testing"
)

// noted is a record with a nullable member.
type noted struct {
	ID   string
	Note *string
}

// scanned is a generated row holder's shape: a record, and a holder its
// nullable member points into.
type scanned struct {
	e    noted
	note sql.Null[string]
}

func (r *scanned) dest(d []any) []any { return append(d, &r.e.ID, &r.note) }

func (r *scanned) record() (*noted, error) {
	r.e.Note = Held(&r.note)
	return &r.e, nil
}

// countingRow is row i of a table whose odd rows have no note.
type countingRow int

func (r countingRow) Scan(dest ...any) error {
	*dest[0].(*string) = fmt.Sprint("r", int(r))
	n := dest[1].(*sql.Null[string])
	if r%2 == 0 {
		*n = sql.Null[string]{V: fmt.Sprint("note ", int(r)), Valid: true}
	} else {
		*n = sql.Null[string]{}
	}
	return nil
}

// A page's records, read into blocks of holders (pooled and not), stay
// each its own, however many rows come (more than the page was made for
// included), page after page through the pool; and so do those of Scan
// and Scanner.
func TestScanPageKeepsEveryRecord(t *testing.T) {
	check := func(t *testing.T, i int, e *noted) {
		t.Helper()
		if e.ID != fmt.Sprint("r", i) || (i%2 == 1) != (e.Note == nil) || (e.Note != nil && *e.Note != fmt.Sprint("note ", i)) {
			t.Fatalf("record %d: %+v", i, e)
		}
	}
	pages := ScanPage((*scanned).dest, (*scanned).record)
	for _, n := range []int{0, 1, 16, 101, 127, 128, 129, 300, 1000} {
		page := pages(n)
		var out []*noted
		for i := range n + 20 {
			e, err := page.Scan(countingRow(i))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, e)
		}
		for i, e := range out {
			check(t, i, e)
		}
		page.Release()
	}
	one := ScanNew((*scanned).dest, (*scanned).record)
	a, _ := one(countingRow(2))
	b, _ := one(countingRow(3))
	check(t, 2, a)
	check(t, 3, b)
	reuse := ScanReuse((*scanned).dest, (*scanned).record)()
	for i := range 3 {
		e, _ := reuse(countingRow(i))
		check(t, i, e)
	}
}
