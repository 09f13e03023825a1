// Package engine is the operation engine of the generated HTTP API: one
// generic implementation per kind of operation (list, get, create, patch,
// upsert, get-or-create, action, delete — a file each), the reading of
// bodies and list parameters, and the reads the generated SQL serves.
//
// Generated code (package resources) describes each resource — how to decode
// its members, encode it, read and write it — and each operation of the
// route table; everything that differs between operations is data in an Op.
// Errors are returned to the edge (package edge), which renders them.
package engine

import (
	"context"
	"database/sql"
	"log/slog"
	"time"

	"github.com/gin-gonic/gin"

	"records/internal/db"
	"records/internal/policy"
	"records/internal/query"
	"records/internal/seal"
)

// Service is what every handler needs, filled in by the server.
type Service struct {
	// DB serves reads (a record by id, a page) and runs writes.
	DB *db.DB
	// MaxBody caps request bodies, in bytes.
	MaxBody int64
	// InterruptReads bounds plain reads by the request's deadline
	// (PostgreSQL); without it they run to their end (SQLite, see readContext).
	InterruptReads bool
	// Dialect is the database's, for the SQL that differs between them.
	Dialect query.Dialect
	// Cursors signs and reads the lists' cursors.
	Cursors *query.Cursors
	// RequestTimeout bounds each page an export reads and writes (an
	// export as a whole may take longer).
	RequestTimeout time.Duration
	// IdempotencyTTL is how long an Idempotency-Key's answer replays
	// (DefaultIdempotencyTTL when 0).
	IdempotencyTTL time.Duration
	// Sealer seals the kept answers that hold a secret (Answer.Secret).
	Sealer *seal.Sealer
	// Reads, when set, picks where the reads of records run (read
	// replicas); without it every read runs on DB.
	Reads ReadRouter

	// Events reads a committed change's event, for after-commit rules.
	Events CommittedEvents
	// Logger hears of what goes wrong apart from a request (an
	// after-commit rule's panic).
	Logger *slog.Logger

	// Probe decides when a search on SQLite looks a common word's matches
	// up record by record (query.DefaultProbe when unset).
	Probe query.Probe
	// samples keeps SQLite's samples of words while nothing is written.
	samples sampleCache

	// Policies are the roles' policies (DESIGN §15); nil: no role but
	// admin, which may do everything.
	Policies *policy.Policies

	resources map[string]Imager // by plural: what Describe was told
	rules     map[string]any    // by plural: a *Rules of the resource
	objects   map[string]string // plural by object name
	catalog   policy.Catalog
}

// Catalog is every resource Describe was told, with its members, for
// checking a policies file against them.
func (s *Service) Catalog() policy.Catalog { return s.catalog }

// Imager is a resource as its events need it.
type Imager interface {
	// AppendImage appends the record of an event's image (image.go).
	AppendImage(b []byte, image string) ([]byte, error)
}

// Described is a resource as Describe takes it: any *Resource.
type Described interface {
	Imager
	plural() string
	table() string
	object() string
	cascades() []Cascade
	stamps() *Values
	members() []policy.Member
	listing() *listing
	visible(ctx context.Context, r Reader, team int, id string) (bool, error)
	masked(readable []bool) Imager
	purged(ctx context.Context, s *Service, team int, id string)
}

// Describe tells s the resources its operations serve. The generated
// package's Describe calls it with every resource, before the services
// built on s (the event log, webhooks) read Resources.
func (s *Service) Describe(rs ...Described) {
	if s.resources == nil {
		s.resources, s.objects, s.catalog = map[string]Imager{}, map[string]string{}, policy.Catalog{}
	}
	for _, r := range rs {
		s.resources[r.plural()] = r
		s.objects[r.object()] = r.plural()
		s.catalog[r.plural()] = r.members()
	}
}

// Resources are the resources Describe was told, by plural.
func (s *Service) Resources() map[string]Imager { return s.resources }

// Reader runs the generated reads: SQL written with ? placeholders, each
// text prepared once and reused (package db rewrites the placeholders for
// PostgreSQL and types its errors). It is the database, or the
// transaction of a write, which reads what it has written.
type Reader interface {
	Each(ctx context.Context, max int, text string, args []any, scan func(*sql.Rows) error) error
	Postgres() bool
}

// ReadRouter picks where the read of a request runs: a read replica that
// holds what the caller must see, or DB (package replica). An error is the
// request's fault.
type ReadRouter interface {
	Reader(c *gin.Context) (Reader, error)
}

// writerKey holds, in a context, the write a request runs in whole (one
// with an Idempotency-Key): its statements join that transaction.
type writerKey struct{}

// readerKey holds, in a context, the Reader ReadRouter picked for a read.
type readerKey struct{}

// reader is what the request reads through: its write, if it runs in one,
// else where its read was sent (see routeRead).
func (s *Service) reader(ctx context.Context) Reader {
	if w, ok := ctx.Value(writerKey{}).(Writer); ok {
		return w
	}
	if s.Reads != nil {
		if r, ok := ctx.Value(readerKey{}).(Reader); ok {
			return r
		}
	}
	return s.DB
}

// routeRead sends the request's reads where Reads picks; nothing to do
// without Reads (the primary-only service pays nothing for it).
func (s *Service) routeRead(c *gin.Context) error {
	if s.Reads == nil {
		return nil
	}
	r, err := s.Reads.Reader(c)
	if err != nil {
		return err
	}
	c.Request = c.Request.WithContext(context.WithValue(c.Request.Context(), readerKey{}, r))
	return nil
}

// Result is what an operation hands its envelope to encode.
type Result[E any] struct {
	Record  *E
	Records []*E
	Paging  Paging
	ID      string // the id acted on (delete, action)
	Created bool
	Secret  string // a secret made by this request, answered once

	res  *Resource[E]
	view *view[E]
	// page holds the records' holders, released once rendered.
	page        PageScanner[E]
	notModified bool // If-None-Match matched: 304, no body
	// ifNoneMatch, when the answer's ETag is known only once it is
	// rendered (see Op.etag), is checked then.
	ifNoneMatch *precondition
	bulk        bool // a bulk create: {"<plural>": [records]}
}

// Paging describes a page of a list.
type Paging struct {
	Limit      int
	Offset     int
	HasMore    bool
	NextCursor string // "" on the last page
	// Counted pages carry the total the filter matches; Estimated says
	// it came from the planner's statistics.
	Counted   bool
	Total     int64
	Estimated bool
}
