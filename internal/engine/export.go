package engine

import (
	"bytes"
	"context"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"records/internal/edge"
	"records/internal/problem"
	"records/internal/query"
	"records/internal/wire"
)

// The media types a list can stream every record as.
const (
	NDJSON = "application/x-ndjson"
	CSV    = "text/csv"
)

// exportFormat is the export the Accept header prefers — NDJSON or CSV —
// or "" for the JSON page. The type of highest quality wins; JSON (and
// anything else) wins ties, so only an explicit preference streams.
func exportFormat(accept string) string {
	if accept == "" || !containsFold(accept, "/x-ndjson") && !containsFold(accept, "text/csv") {
		return ""
	}
	best, bestQ := "", -1.0
	for _, part := range strings.Split(accept, ",") {
		t, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		q := 1.0
		if v, ok := params["q"]; ok {
			if q, err = strconv.ParseFloat(v, 64); err != nil {
				continue
			}
		}
		format := ""
		if t == NDJSON || t == CSV {
			format = t
		}
		if q > bestQ || q == bestQ && format == "" {
			best, bestQ = format, q
		}
	}
	if bestQ <= 0 {
		return ""
	}
	return best
}

// containsFold tells whether s holds sub, ignoring the case of ASCII
// letters (media types are case-insensitive), without allocating.
func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

// exportPage is how many records an export reads per statement.
const exportPage = 1000

// export streams every record p's filter matches, in its order, as NDJSON
// or CSV, reading by keyset a page at a time so that memory stays flat
// however many there are. Each page gets the request timeout anew. A
// failure once the answer has begun cannot become a problem: an NDJSON
// stream then ends with a line {"error":{…}}, and either kind is cut off
// without its final chunk, so no client mistakes it for a whole file.
func (op *Op[E]) export(c *gin.Context, s *Service, format string, p *query.Page, team int, fields []string, v *view[E]) error {
	if p.Offset > 0 {
		return problem.Member(query.ParamOffset, "an export streams every record; start it with a cursor, not an offset")
	}
	p.Limit = exportPage
	defer v.release()
	// The page's holders go back to their pool once it is written and the
	// next page's position is taken from its last record (position copies
	// what it keeps), the last page's when the export ends.
	var page PageScanner[E]
	defer func() { release(page) }()
	// The first page is read before anything is answered, so a failure
	// there is an ordinary problem.
	records, tiers, page, more, err := op.exportPage(c.Request.Context(), s, p, team, v)
	if err != nil {
		return err
	}
	w := c.Writer
	h := w.Header()
	h.Set("Content-Type", format+"; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	if c.Request.Method == http.MethodHead {
		return nil // the export's headers, once its first page is read; no export
	}
	rc := http.NewResponseController(w)
	enc := newExportEncoder(format, op.Res, fields, v, trashOf(c.Request.Context()) != Live)
	buf := &bytes.Buffer{}
	if err := enc.header(buf); err != nil {
		return op.cut(c, enc, buf, err)
	}
	for {
		for i, e := range records {
			if err := enc.record(buf, i, e); err != nil {
				return op.cut(c, enc, buf, err)
			}
		}
		_ = rc.SetWriteDeadline(time.Now().Add(s.RequestTimeout))
		if _, err := w.Write(buf.Bytes()); err != nil {
			return op.cut(c, enc, nil, err)
		}
		buf.Reset()
		w.Flush()
		if !more {
			return nil
		}
		pos := op.Res.position(p.Keys, records[len(records)-1], tiers[len(records)-1])
		p.After = &pos
		release(page)
		if records, tiers, page, more, err = op.exportPage(c.Request.Context(), s, p, team, v); err != nil {
			return op.cut(c, enc, buf, err)
		}
	}
}

// exportPage reads one page of an export, with what it embeds and expands,
// within the request timeout, and tells whether more follow. The page's
// scanner (nil: none) is the caller's to release once the page is
// written; on an error it is released here.
func (op *Op[E]) exportPage(ctx context.Context, s *Service, p *query.Page, team int, v *view[E]) ([]*E, []int, PageScanner[E], bool, error) {
	ctx, cancel := context.WithTimeout(ctx, s.RequestTimeout)
	defer cancel()
	v.release() // the page before, written already
	records, tiers, page, err := readPage(ctx, s.reader(ctx), op.Res, team, p)
	if err != nil {
		return nil, nil, nil, false, err
	}
	more := len(records) > p.Limit
	if more {
		records = records[:p.Limit]
	}
	err = loadEmbeds(ctx, s.reader(ctx), op.Res, team, records)
	if err == nil {
		err = v.load(ctx, s.reader(ctx), op.Res, team, records)
	}
	if err == nil {
		err = loadTrash(ctx, s.reader(ctx), op.Res, team, v, records)
	}
	if err != nil {
		release(page)
		return nil, nil, nil, false, err
	}
	return records, tiers, page, more, nil
}

// cut ends a failed export: it writes what explains the failure, if the
// format has a way to, and drops the connection before the body's end.
func (op *Op[E]) cut(c *gin.Context, enc *exportEncoder[E], buf *bytes.Buffer, err error) error {
	if c.Request.Context().Err() == context.Canceled { // the client hung up
		c.Set(edge.KeyProblem, &problem.Error{Code: problem.ClientClosed, Cause: err})
		c.Abort()
		return nil
	}
	p := edge.ToProblem(err)
	c.Set(edge.KeyProblem, p)
	if buf != nil {
		buf.Write(enc.failure(p, edge.RequestIDOf(c)))
		_, _ = c.Writer.Write(buf.Bytes())
		c.Writer.Flush()
	}
	if conn, _, herr := c.Writer.Hijack(); herr == nil {
		conn.Close()
		c.Abort()
		return nil
	}
	// No connection to drop (HTTP/2): net/http resets the stream.
	panic(http.ErrAbortHandler)
}

// exportEncoder writes records as NDJSON lines or CSV rows.
type exportEncoder[E any] struct {
	format string
	res    *Resource[E]
	v      *view[E]
	cols   []int // CSV: the columns, by index in res.Fields
	// trash: CSV has the columns deleted_at and deleted_by, filled on the
	// rows of trashed records (a read of ?trashed=only|include).
	trash   bool
	scratch []byte
	row     []byte // CSV: the row being written
}

func newExportEncoder[E any](format string, res *Resource[E], fields []string, v *view[E], trash bool) *exportEncoder[E] {
	enc := &exportEncoder[E]{format: format, res: res, v: v, trash: trash}
	if format == CSV {
		for i, f := range res.Fields {
			// Without fields, every member the view answers (a role's
			// view leaves out what it may not read).
			if fields == nil && (v == nil || v.fields == nil || v.fields[i]) || f.Member == "id" || f.Member == "version" {
				enc.cols = append(enc.cols, i)
			}
		}
		// With fields, the columns follow their order.
		for _, name := range fields {
			for i, f := range res.Fields {
				if f.Member == name && name != "id" && name != "version" {
					enc.cols = append(enc.cols, i)
				}
			}
		}
	}
	return enc
}

func (e *exportEncoder[E]) header(buf *bytes.Buffer) error {
	if e.format != CSV {
		return nil
	}
	b := e.scratch[:0]
	for k, i := range e.cols {
		b = appendCSVField(b, k > 0, []byte(e.res.Fields[i].Member))
	}
	if e.trash {
		b = appendCSVField(appendCSVField(b, len(e.cols) > 0, []byte("deleted_at")), true, []byte("deleted_by"))
	}
	if e.v != nil && len(e.v.expand) > 0 {
		b = appendCSVField(b, len(e.cols) > 0 || e.trash, []byte("expand"))
	}
	buf.Write(append(b, '\r', '\n'))
	e.scratch = b
	return nil
}

// record writes the i-th record of the current page.
func (e *exportEncoder[E]) record(buf *bytes.Buffer, i int, rec *E) error {
	if e.format != CSV {
		e.scratch = e.v.appendRecord(e.scratch[:0], e.res, i, rec)
		buf.Write(e.scratch)
		buf.WriteByte('\n')
		return nil
	}
	for k, j := range e.cols {
		e.scratch = e.res.Fields[j].Append(e.scratch[:0], rec)
		e.row = appendCell(e.row, k > 0, e.scratch)
	}
	if e.trash {
		e.row = e.appendTrashCells(e.row, rec)
	}
	if e.v != nil && len(e.v.expand) > 0 {
		e.scratch = append(e.scratch[:0], '{')
		for k, edge := range e.v.expand {
			if k > 0 {
				e.scratch = append(e.scratch, ',')
			}
			e.scratch = append(e.scratch, e.res.listing().edgeKeys[edge]...)
			e.scratch = append(e.scratch, e.v.expanded[k].parts[i]...)
		}
		e.row = appendCSVField(e.row, len(e.cols) > 0 || e.trash, append(e.scratch, '}'))
	}
	buf.Write(append(e.row, '\r', '\n'))
	e.row = e.row[:0]
	return nil
}

// appendTrashCells appends the deleted_at and deleted_by cells of rec:
// as its JSON answers them when it is in the trash, empty when it is live.
func (e *exportEncoder[E]) appendTrashCells(b []byte, rec *E) []byte {
	m, trashed := e.v.trash[e.res.ID(rec)]
	if !trashed {
		if len(e.cols) > 0 {
			b = append(b, ',')
		}
		return append(b, ',')
	}
	e.scratch = time.UnixMicro(m.at).UTC().AppendFormat(e.scratch[:0], time.RFC3339Nano)
	b = appendCSVField(b, len(e.cols) > 0, e.scratch)
	if !m.by.Valid {
		return append(b, ',')
	}
	return appendCSVField(b, true, []byte(m.by.String))
}

// appendCell appends a member's JSON value v as a CSV field: text as
// itself, null as nothing, numbers and booleans as written, objects and
// arrays as JSON.
func appendCell(b []byte, comma bool, v []byte) []byte {
	switch wire.Kind(v) {
	case "null":
		if comma {
			b = append(b, ',')
		}
		return b
	case "a string":
		s, _ := wire.Text(v)
		return appendCSVField(b, comma, []byte(s))
	}
	return appendCSVField(b, comma, v)
}

// appendCSVField appends one RFC 4180 field, after a comma unless it is the
// row's first. Text is written as itself — a line break inside it stays
// the bytes it is, CR, LF or both — and quoted when it holds a comma, a
// quote, CR or LF, begins or ends with a space, or is empty: an empty
// text ("") so differs from a null (nothing).
func appendCSVField(b []byte, comma bool, s []byte) []byte {
	if comma {
		b = append(b, ',')
	}
	quote := len(s) == 0 || s[0] == ' ' || s[0] == '\t' || s[len(s)-1] == ' ' || s[len(s)-1] == '\t' ||
		bytes.ContainsAny(s, ",\"\r\n")
	if !quote {
		return append(b, s...)
	}
	b = append(b, '"')
	for {
		i := bytes.IndexByte(s, '"')
		if i < 0 {
			break
		}
		b = append(b, s[:i+1]...)
		b = append(b, '"')
		s = s[i+1:]
	}
	b = append(b, s...)
	return append(b, '"')
}

// failure is what an export writes when it fails midway: an NDJSON line
// holding the problem; nothing for CSV, which has no place for it.
func (e *exportEncoder[E]) failure(p *problem.Error, requestID string) []byte {
	if e.format == CSV {
		return nil
	}
	b := append([]byte(`{"error":`), problem.Append(nil, p, requestID)...)
	return append(b, "}\n"...)
}
