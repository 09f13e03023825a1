package engine

import (
	"context"
	"slices"
	"strconv"

	"records/internal/edge"
	"records/internal/query"
)

// view is how a request wants its records answered: some members only
// (fields), and related records (expand). A nil view answers every member
// and expands nothing, through the resource's own encoder.
type view[E any] struct {
	fields   []bool      // by index in Resource.Fields; nil: all
	expand   []int       // indexes in Resource.Edges
	expanded []expansion // per expanded edge: per record, its JSON
	// trash holds, by id, the marks of the records in the trash of a read
	// that asked for it (loadTrash): they answer deleted_at, deleted_by.
	trash map[string]trashMark
}

// newView makes the view of fields and expand (nil when both are empty
// and the request's role may read every member).
func newView[E any](ctx context.Context, res *Resource[E], fields, expand []string) *view[E] {
	var readable []bool
	if a := accessOf(ctx); a != nil {
		readable = a.view(res).readable
	}
	if fields == nil && len(expand) == 0 && readable == nil {
		return nil
	}
	v := &view[E]{fields: readable}
	if fields != nil {
		v.fields = make([]bool, len(res.Fields))
		for i, f := range res.Fields {
			// The id (and the version) are always answered; fields names
			// only members the role may read (listOf).
			v.fields[i] = f.Member == "id" || f.Member == "version" || slices.Contains(fields, f.Member)
		}
	}
	for i, e := range res.Edges {
		if slices.Contains(expand, e.Name) {
			v.expand = append(v.expand, i)
		}
	}
	return v
}

// load reads the expanded records of records, one query per edge.
func (v *view[E]) load(ctx context.Context, r Reader, res *Resource[E], team int, records []*E) error {
	if v == nil || len(records) == 0 {
		return nil
	}
	v.expanded = make([]expansion, 0, len(v.expand))
	for _, e := range v.expand {
		out, err := res.Edges[e].Load(ctx, r, team, records)
		if err != nil {
			v.release()
			return err
		}
		v.expanded = append(v.expanded, out)
	}
	return nil
}

// release returns the expanded records' buffers to the pool, once the
// answer holding them has been written.
func (v *view[E]) release() {
	if v == nil {
		return
	}
	for _, x := range v.expanded {
		x.release()
	}
	v.expanded = nil
}

// release returns what r's answer was rendered from to the pools, once it
// is rendered: the expanded records' buffers and the page's holders. Its
// records are not to be read after.
func (r *Result[E]) release() {
	r.view.release()
	if r.page != nil {
		r.page.Release()
		r.page, r.Records = nil, nil
	}
}

// release returns the expansion's buffer, if it has one, to the pool.
func (x expansion) release() {
	if x.buf != nil {
		edge.PutBuffer(x.buf)
	}
}

// appendRecord appends the i-th record of the request, e.
func (v *view[E]) appendRecord(b []byte, res *Resource[E], i int, e *E) []byte {
	if v == nil {
		return res.Encode(b, e)
	}
	l := res.listing()
	b = append(b, '{')
	n := 0
	for j, f := range res.Fields {
		if v.fields != nil && !v.fields[j] {
			continue
		}
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = append(b, l.fieldKeys[j]...)
		b = f.Append(b, e)
	}
	if len(v.expand) > 0 && v.expanded != nil {
		if n > 0 {
			b = append(b, ',')
		}
		b = append(b, `"expand":{`...)
		for k, edge := range v.expand {
			if k > 0 {
				b = append(b, ',')
			}
			b = append(b, l.edgeKeys[edge]...)
			b = append(b, v.expanded[k].parts[i]...)
		}
		b = append(b, '}')
	}
	if v.trash != nil {
		if m, ok := v.trash[res.ID(e)]; ok {
			b = appendTrash(b, m)
		}
	}
	return append(b, '}')
}

// AppendRecord appends the result's record as the request asked for it.
func (r *Result[E]) AppendRecord(b []byte) []byte { return r.view.appendRecord(b, r.res, 0, r.Record) }

// AppendRecords appends the result's records as a JSON array.
func (r *Result[E]) AppendRecords(b []byte) []byte {
	b = append(b, '[')
	for i, e := range r.Records {
		if i > 0 {
			b = append(b, ',')
		}
		b = r.view.appendRecord(b, r.res, i, e)
	}
	return append(b, ']')
}

// AppendPaging appends a list's paging object.
func (r *Result[E]) AppendPaging(b []byte) []byte {
	p := &r.Paging
	b = append(b, `{"limit":`...)
	b = strconv.AppendInt(b, int64(p.Limit), 10)
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, int64(p.Offset), 10)
	b = append(b, `,"has_more":`...)
	b = strconv.AppendBool(b, p.HasMore)
	b = append(b, `,"next_cursor":`...)
	if p.NextCursor == "" {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendQuote(b, p.NextCursor)
	}
	if p.Counted {
		b = append(b, `,"total":`...)
		b = strconv.AppendInt(b, p.Total, 10)
		b = append(b, `,"total_is_estimate":`...)
		b = strconv.AppendBool(b, p.Estimated)
	}
	return append(b, '}')
}

var _ = query.Exact
