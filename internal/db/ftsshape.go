package db

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"records/internal/spec"
)

// FTSShape is the shape of an FTS5 table's index, read from its structure
// record: the segments (b-trees) on each level, and whether a merge is under
// way. A lookup in the index opens every segment, so the segments are what a
// search by rowid costs (docs/performance.md).
type FTSShape struct {
	// Levels are the segments of each level, level 0 first.
	Levels []int
	// Pages are the leaf pages of each segment, level after level.
	Pages []int
	// Merging tells that some level's segments are being merged
	// (incrementally, by FTS5's automerge or a 'merge' command).
	Merging bool
}

// Segments is the segments on every level.
func (s FTSShape) Segments() int {
	n := 0
	for _, l := range s.Levels {
		n += l
	}
	return n
}

// ftsStructureV2 marks a structure record of the second format (tables
// with tombstones), after the 4-byte cookie.
var ftsStructureV2 = []byte{0xff, 0x00, 0x00, 0x01}

var errFTSStructure = errors.New("an FTS5 structure record cut short")

// decodeFTSStructure reads a structure record (rowid 10 of the table's
// _data, fts5StructureDecode in SQLite's fts5_index.c): a cookie, the
// number of levels and of segments, a write counter, then for each level
// the segments being merged and each segment's id and pages.
func decodeFTSStructure(rec []byte) (FTSShape, error) {
	if len(rec) < 4 {
		return FTSShape{}, errFTSStructure
	}
	r := varints{b: rec[4:]}
	v2 := bytes.HasPrefix(r.b, ftsStructureV2)
	if v2 {
		r.b = r.b[4:]
	}
	levels, _, _ := r.next(), r.next(), r.next()
	perSegment := 3 // id, first and last page
	if v2 {
		perSegment = 8 // and two origins, tombstone pages and entries, entries
	}
	var shape FTSShape
	for i := uint64(0); i < levels && !r.short; i++ {
		merging, segs := r.next(), r.next()
		shape.Merging = shape.Merging || merging > 0
		shape.Levels = append(shape.Levels, int(segs))
		for j := uint64(0); j < segs && !r.short; j++ {
			_, first, last := r.next(), r.next(), r.next()
			shape.Pages = append(shape.Pages, int(last-first+1))
			for k := 3; k < perSegment; k++ {
				r.next()
			}
		}
	}
	if r.short {
		return FTSShape{}, errFTSStructure
	}
	return shape, nil
}

// varints reads SQLite's varints (big-endian, 7 bits a byte, the ninth
// byte whole) one after the other.
type varints struct {
	b     []byte
	short bool
}

func (r *varints) next() uint64 {
	var v uint64
	for i := 0; i < 9; i++ {
		if len(r.b) == 0 {
			r.short = true
			return 0
		}
		c := r.b[0]
		r.b = r.b[1:]
		if i == 8 {
			return v<<8 | uint64(c)
		}
		v = v<<7 | uint64(c&0x7f)
		if c < 0x80 {
			return v
		}
	}
	return v
}

// ftsStructureRowid is the rowid of the structure record in _data.
const ftsStructureRowid = 10

// rowQuerier is a pool or one of its connections.
type rowQuerier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// ReadFTSShape reads the shape of an FTS5 table's index: one row of its
// _data, no write, no lock.
func ReadFTSShape(ctx context.Context, q rowQuerier, table string) (FTSShape, error) {
	shapes, err := readFTSShapes(ctx, q, []string{table})
	if err != nil {
		return FTSShape{}, err
	}
	return shapes[0], nil
}

// readFTSShapes reads the shapes of tables, in one statement; a table
// that has never held a word has no structure record, and no segment.
func readFTSShapes(ctx context.Context, q rowQuerier, tables []string) ([]FTSShape, error) {
	parts := make([]string, len(tables))
	for i, t := range tables {
		parts[i] = `SELECT ` + strconv.Itoa(i) + `, "block" FROM ` + spec.Ident(t+"_data") + ` WHERE "id" = ` + strconv.Itoa(ftsStructureRowid)
	}
	rows, err := q.QueryContext(ctx, strings.Join(parts, " UNION ALL "))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	shapes := make([]FTSShape, len(tables))
	for rows.Next() {
		var i int
		var rec []byte
		if err := rows.Scan(&i, &rec); err != nil {
			return nil, err
		}
		if shapes[i], err = decodeFTSStructure(rec); err != nil {
			return nil, fmt.Errorf("%s: %w", tables[i], err)
		}
	}
	return shapes, rows.Err()
}
