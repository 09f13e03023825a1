package engine

import "sync"

// A resource's generated row holder H (the record, and holders for the
// columns its members are moved from: a nullable one's sql.Null, a JSON
// one's bytes) has two methods, which ScanNew, ScanReuse and ScanPage make
// the resource's Scan, Scanner and ScanPage of: dest appends where a row
// of Select is scanned in h to d, and record moves h's holders into h's
// record and answers it. Scan's destinations are needed only while a row
// is scanned, so they cost no allocation of their own: a slice from a pool
// for one record, one slice a page or a Scanner.

// scanArgs are Scan's destination slices for reads of one record.
var scanArgs = sync.Pool{New: func() any { return new([]any) }}

// scanRow scans one row into h, its destinations in args (reused).
func scanRow[H, E any](rows Row, h *H, args *[]any, dest func(*H, []any) []any, record func(*H) (*E, error)) (*E, error) {
	*args = dest(h, (*args)[:0])
	err := rows.Scan(*args...)
	clear(*args) // the slice outlives h: keep no pointer into it
	if err != nil {
		return nil, err
	}
	return record(h)
}

// ScanNew makes a resource's Scan: each row into a new holder.
func ScanNew[H, E any](dest func(*H, []any) []any, record func(*H) (*E, error)) func(Row) (*E, error) {
	return func(rows Row) (*E, error) {
		args := scanArgs.Get().(*[]any)
		defer scanArgs.Put(args)
		return scanRow(rows, new(H), args, dest, record)
	}
}

// ScanReuse makes a resource's Scanner: every row into the same holder.
func ScanReuse[H, E any](dest func(*H, []any) []any, record func(*H) (*E, error)) func() func(Row) (*E, error) {
	return func() func(Row) (*E, error) {
		h, args := new(H), new([]any)
		return func(rows Row) (*E, error) {
			var zero H
			*h = zero
			return scanRow(rows, h, args, dest, record)
		}
	}
}

// PageScanner reads the rows of a page into records (Scan) whose holders,
// in one block, go back to a pool once the page is answered (Release):
// a page of up to 127 records then costs no holder allocation once the
// pool is warm. Release is called once,
// when nothing holds a record of the page any more, or never (the block is
// then the collector's).
type PageScanner[E any] interface {
	Scan(rows Row) (*E, error)
	Release()
}

// release gives page's holders back to their pool, if it has any (nil:
// the resource scans without one).
func release[E any](page PageScanner[E]) {
	if page != nil {
		page.Release()
	}
}

// pooledRows are the rows of a pooled block: a page of 100 and the one
// more read to tell whether more follow.
const pooledRows = 128

// ScanPage makes a resource's ScanPage, for pages of n rows: the first
// pooledRows in a pooled block, those past it (larger pages) in blocks
// each twice the last (from 16) and none past the n-th row, so that a
// filter matching few rows of a large page allocates for few.
func ScanPage[H, E any](dest func(*H, []any) []any, record func(*H) (*E, error)) func(n int) PageScanner[E] {
	s := &pageScanning[H, E]{dest: dest, record: record}
	return func(n int) PageScanner[E] {
		p, _ := s.pages.Get().(*pageRows[H, E])
		if p == nil {
			p = &pageRows[H, E]{s: s, block: make([]H, pooledRows)}
		}
		p.left, p.size = max(n-len(p.block), 0), 8
		return p
	}
}

// pageScanning is a resource's scan, and its pool of pageRows.
type pageScanning[H, E any] struct {
	dest   func(*H, []any) []any
	record func(*H) (*E, error)
	pages  sync.Pool
}

// pageRows is one page's PageScanner.
type pageRows[H, E any] struct {
	s     *pageScanning[H, E]
	block []H // pooled
	used  int // rows of block in use
	more  []H // past block: the rest of the last block allocated
	left  int // rows the page may read past block and more
	size  int // rows of the last block allocated
	args  []any
}

// Scan implements PageScanner.
func (p *pageRows[H, E]) Scan(rows Row) (*E, error) {
	var h *H
	if p.used < len(p.block) {
		h = &p.block[p.used]
		p.used++
	} else {
		if len(p.more) == 0 {
			p.size = min(2*p.size, max(p.left, 1))
			p.more, p.left = make([]H, p.size), max(p.left-p.size, 0)
		}
		h = &p.more[0]
		p.more = p.more[1:]
	}
	return scanRow(rows, h, &p.args, p.s.dest, p.s.record)
}

// Release implements PageScanner.
func (p *pageRows[H, E]) Release() {
	clear(p.block[:p.used]) // keep no record's strings alive in the pool
	p.used, p.more = 0, nil
	p.s.pages.Put(p)
}
