package client

import (
	"encoding/json"
	"iter"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// ListParams are what every list takes (docs/api.md, Lists). They travel as
// the request's JSON body, so filters may nest and, or and not.
type ListParams struct {
	// Filter maps members to exact values or to Ops, e.g.
	// Filter{"status": "open", "price": Ops{"gte": 10}, "or": []Filter{…}}.
	Filter Filter `json:"filter,omitempty"`
	// Q searches the resource's searchable members (words, "phrases",
	// -excluded, or); without OrderBy the best matches come first.
	Q string `json:"q,omitempty"`
	// OrderBy is one member or several separated by commas, each with -
	// for descending, e.g. "-created_date,status"; the id breaks ties.
	OrderBy        string `json:"order_by,omitempty"`
	OrderDirection string `json:"order_direction,omitempty"` // "asc" (default) or "desc"
	Limit          int    `json:"limit,omitempty"`           // 1 to 1000; 100 when 0
	Offset         int    `json:"offset,omitempty"`
	// Cursor is a page's Paging.NextCursor: the next page by keyset.
	Cursor string `json:"cursor,omitempty"`
	// Count is "exact" or "estimated": the answer's Paging.Total.
	Count  string   `json:"count,omitempty"`
	Fields []string `json:"fields,omitempty"` // only these members (and the id and version)
	Expand []string `json:"expand,omitempty"` // related records, under the member expand
	// Trashed is "only" (the records in the trash) or "include" (those and
	// the others); records in the trash answer DeletedAt and DeletedBy.
	Trashed string `json:"trashed,omitempty"`
}

// Filter maps members to exact values (nil matches null) or to Ops; the
// keys "and" and "or" take []Filter, "not" a Filter.
type Filter map[string]any

// Ops are a member's operators: eq, ne, gt, gte, lt, lte, in, nin
// (slices), contains, prefix (text) and is_null (bool).
type Ops map[string]any

// body is the parameters as a JSON body; none when there are none.
func (p *ListParams) body() any {
	if p == nil {
		return nil
	}
	return p
}

// after asks for the page after cursor (by keyset, so with no offset).
func (p *ListParams) after(cursor string) { p.Cursor, p.Offset = cursor, 0 }

// ReadParams shape a read of one record.
type ReadParams struct {
	Fields []string // only these members (and the id and version)
	Expand []string // related records, under the member expand
	// Trashed is "include" to read the record though it is in the trash.
	Trashed string
}

func (p *ReadParams) query() url.Values {
	q := url.Values{}
	if p != nil && len(p.Fields) > 0 {
		q.Set("fields", strings.Join(p.Fields, ","))
	}
	if p != nil && len(p.Expand) > 0 {
		q.Set("expand", strings.Join(p.Expand, ","))
	}
	if p != nil && p.Trashed != "" {
		q.Set("trashed", p.Trashed)
	}
	return q
}

// purgeQuery is the query string of a delete that erases for good.
func purgeQuery() url.Values { return url.Values{"permanent": {"true"}} }

// PageParams page the event log's lists: histories, webhooks, deliveries.
type PageParams struct {
	Limit  int    // 1 to 1000; 100 when 0
	Cursor string // a page's Paging.NextCursor
}

func (p *PageParams) query() url.Values {
	q := url.Values{}
	if p != nil && p.Limit > 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	if p != nil && p.Cursor != "" {
		q.Set("cursor", p.Cursor)
	}
	return q
}

func (p *PageParams) after(cursor string) { p.Cursor = cursor }

// Paging is a list's page: where it is, and the cursor of the next.
type Paging struct {
	Limit   int  `json:"limit"`
	Offset  int  `json:"offset"`
	HasMore bool `json:"has_more"`
	// NextCursor is nil on the last page.
	NextCursor *string `json:"next_cursor"`
	// Total is set when the request asked for a count.
	Total           *int64 `json:"total,omitempty"`
	TotalIsEstimate *bool  `json:"total_is_estimate,omitempty"`
}

// CursorPaging is a page of the event log's lists.
type CursorPaging struct {
	Limit      int     `json:"limit"`
	HasMore    bool    `json:"has_more"`
	NextCursor *string `json:"next_cursor"`
	// ResumeCursor is the position after the page's last item (the
	// request's own when the page is empty): keep it to ask later for what
	// comes after without reading the page again.
	ResumeCursor string `json:"resume_cursor"`
}

// Optional is a member of a write: absent (the zero Optional, left as it
// is), a value (Set) or null (Null, which clears it).
type Optional[T any] struct {
	value T
	set   bool
	null  bool
}

// Set is a member written with v.
func Set[T any](v T) Optional[T] { return Optional[T]{value: v, set: true} }

// Null is a member written null: cleared.
func Null[T any]() Optional[T] { return Optional[T]{set: true, null: true} }

// IsZero tells whether the member is absent, so that omitzero leaves it out.
func (o Optional[T]) IsZero() bool { return !o.set }

// Get is the member's value, and whether it is one (neither absent nor null).
func (o Optional[T]) Get() (T, bool) { return o.value, o.set && !o.null }

// MarshalJSON writes the value, or null.
func (o Optional[T]) MarshalJSON() ([]byte, error) {
	if o.null {
		return []byte("null"), nil
	}
	return json.Marshal(o.value)
}

// UnmarshalJSON reads a value, or null; an absent member stays absent.
func (o *Optional[T]) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*o = Null[T]()
		return nil
	}
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*o = Set(v)
	return nil
}

// Date is a calendar date, YYYY-MM-DD.
type Date string

// DateOf is the date of t, in t's location.
func DateOf(t time.Time) Date { return Date(t.Format(time.DateOnly)) }

// Time is the date's midnight in UTC.
func (d Date) Time() (time.Time, error) { return time.Parse(time.DateOnly, string(d)) }

// all iterates over the records of every page, from the one p asks for,
// following each page's next cursor until there is none; an error ends it.
// p itself is not changed.
func all[P any, PP interface {
	*P
	after(string)
}, R, T any](p *P, fetch func(*P) (*R, error), page func(*R) ([]T, *string)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var q P
		if p != nil {
			q = *p
		}
		for {
			r, err := fetch(&q)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			records, next := page(r)
			for _, rec := range records {
				if !yield(rec, nil) {
					return
				}
			}
			if next == nil || *next == "" || len(records) == 0 {
				return
			}
			PP(&q).after(*next)
		}
	}
}
