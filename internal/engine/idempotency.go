package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"hash/fnv"
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"records/internal/auth"
	"records/internal/db"
	"records/internal/edge"
	"records/internal/problem"
	"records/internal/spec"
)

// DefaultIdempotencyTTL is how long a stored answer replays.
const DefaultIdempotencyTTL = 24 * time.Hour

// idempotencyKey reads the Idempotency-Key of a write (POST, PUT, PATCH,
// DELETE): 1–255 printable ASCII characters.
func IdempotencyKey(r *http.Request) (string, bool, error) {
	key := r.Header.Get("Idempotency-Key")
	if key == "" && len(r.Header.Values("Idempotency-Key")) == 0 {
		return "", false, nil
	}
	switch r.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
	default:
		return "", false, nil
	}
	if len(r.Header.Values("Idempotency-Key")) > 1 {
		return "", false, problem.Member("Idempotency-Key", "is given more than once")
	}
	ok := len(key) >= 1 && len(key) <= 255
	for i := 0; ok && i < len(key); i++ {
		ok = key[i] >= 0x20 && key[i] <= 0x7e
	}
	if !ok {
		return "", false, problem.Member("Idempotency-Key", "must be 1 to 255 printable ASCII characters")
	}
	return key, true, nil
}

// storedAnswer is the answer kept for a key: its body, or the row of the
// record it created (keyed.go).
type storedAnswer struct {
	fingerprint string
	status      int
	body        []byte
	etag        string
	image       []byte
}

// errReplay ends a keyed write's transaction without writing: the key's
// answer is stored already.
var errReplay = errors.New("replay the stored answer")

// Answer is a write's answer as an Idempotency-Key keeps it.
type Answer struct {
	Status int
	Body   []byte
	ETag   string
	// Secret: the body holds a secret shown once (a webhook's signing
	// secret, a supplier's token), which a replay must show again: it is
	// kept sealed, so that a copy of idempotency_keys does not hold it.
	Secret bool
}

// sealedMark starts a kept body that is sealed (no JSON starts with NUL).
const sealedMark = "\x00sealed:"

// keep is the body to keep for answer under the key id.
func (s *Service) keep(id string, answer *Answer) ([]byte, error) {
	if !answer.Secret {
		return answer.Body, nil
	}
	if s.Sealer == nil {
		return nil, errors.New("engine: an answer holding a secret, and no Sealer to keep it")
	}
	sealed, err := s.Sealer.Seal(id, answer.Body)
	return append([]byte(sealedMark), sealed...), err
}

// kept is the answer body kept under the key id, opened if sealed.
func (s *Service) kept(id string, body []byte) ([]byte, error) {
	sealed, ok := bytes.CutPrefix(body, []byte(sealedMark))
	if !ok {
		return body, nil
	}
	if s.Sealer == nil {
		return nil, errors.New("engine: a sealed answer, and no Sealer to open it")
	}
	return s.Sealer.Open(id, sealed)
}

// serveKeyed runs an operation's write sent with an Idempotency-Key. A
// create of one record first tries one statement (keyed.go).
func (op *Op[E]) serveKeyed(s *Service, c *gin.Context, key string, body []byte) {
	run := func(ctx context.Context) (*Answer, error) {
		c.Request = c.Request.WithContext(ctx)
		status, r, err := op.serve(s, c, body)
		if err != nil {
			return nil, err
		}
		return op.keptAnswer(status, r), nil
	}
	s.serveKeyed(c, key, body, keyedRun{
		run:    run,
		replay: op.replayImage,
		// One record that embeds nothing: one statement (keyed.go).
		oneStatement: op.Kind == spec.Create && op.Res.LoadEmbeds == nil && !isArray(body),
	})
}

// keyedRun is a keyed write: run, within the transaction that keeps its
// key, or first given the key to write it in one statement when
// oneStatement (keyed.go); replay, the answer of a stored record's row.
type keyedRun struct {
	run          func(ctx context.Context) (*Answer, error)
	replay       func(status int, image []byte) (*Answer, error)
	oneStatement bool
}

// ServeKeyed runs a write sent with an Idempotency-Key: run, whose
// statements join (through ctx; see Service.Write) one transaction in which
// ServeKeyed first takes the key (on PostgreSQL an advisory lock, so that
// a second request with the key while the first runs, on any instance, is
// told so: 409), replays the key's stored answer if it has one (the same
// request: Idempotent-Replayed; another: 422), or runs the write and
// stores its answer — so a crash can never keep the one without the other.
// Failed requests store nothing.
func (s *Service) ServeKeyed(c *gin.Context, key string, body []byte, run func(ctx context.Context) (*Answer, error)) {
	s.serveKeyed(c, key, body, keyedRun{run: run})
}

func (s *Service) serveKeyed(c *gin.Context, key string, body []byte, k keyedRun) {
	ctx := c.Request.Context()
	team, err := teamOf(ctx)
	if err != nil {
		edge.Fail(c, err)
		return
	}
	id := strconv.Itoa(team) + ":" + key
	fp := fingerprint(c.Request, body)
	if k.oneStatement {
		now, ttl := time.Now().UTC(), s.idempotencyTTL()
		one := &keyedCreate{lock: keyLock(id), id: id, fp: fp, now: now, expires: now.Add(ttl), since: now.Add(-ttl).UnixMicro()}
		answer, err := k.run(context.WithValue(ctx, keyedKey{}, one))
		c.Request = c.Request.WithContext(ctx)
		switch {
		case err == nil:
			WriteAnswer(c, answer, false)
			return
		case errors.Is(err, db.ErrConnectionLost):
			edge.Fail(c, err) // see createKeyed
			return
		}
	}
	var answer *Answer
	bounded, cancel := edge.Bounded(ctx)
	defer cancel()
	meta := eventMeta(ctx)
	later := &afterCommits{}
	bounded = context.WithValue(bounded, afterCommitsKey{}, later)
	err = s.DB.Write(bounded, true, func(w Writer) error {
		prior, err := takeKey(bounded, w, id, meta, s.idempotencyTTL())
		switch {
		case err != nil:
			return err
		case prior != nil && prior.fingerprint != fp:
			return problem.New(problem.KeyReused, "the Idempotency-Key %q was used with another request (caller, method, path or body)", key)
		case prior != nil && prior.image != nil && k.replay != nil:
			if answer, err = k.replay(prior.status, prior.image); err != nil {
				return err
			}
			return errReplay
		case prior != nil:
			body, err := s.kept(id, prior.body)
			if err != nil {
				return err
			}
			answer = &Answer{Status: prior.status, Body: body, ETag: prior.etag}
			return errReplay
		}
		defer func() { c.Request = c.Request.WithContext(ctx) }()
		if answer, err = k.run(context.WithValue(bounded, writerKey{}, w)); err != nil {
			return err
		}
		body, err := s.keep(id, answer)
		if err != nil {
			return err
		}
		now := time.Now().UTC()
		_, err = w.Exec(bounded, `INSERT INTO "idempotency_keys" ("id", "fingerprint", "status", "body", "etag", "created_at", "expires_at")
VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT ("id") DO UPDATE SET "fingerprint" = excluded."fingerprint", "status" = excluded."status",
"body" = excluded."body", "etag" = excluded."etag", "image" = NULL, "created_at" = excluded."created_at", "expires_at" = excluded."expires_at"`,
			id, fp, answer.Status, body, answer.ETag, now, now.Add(s.idempotencyTTL()))
		return err
	})
	replayed := errors.Is(err, errReplay)
	if err != nil && !replayed {
		edge.Fail(c, err)
		return
	}
	later.run()
	WriteAnswer(c, answer, replayed)
}

// WriteAnswer answers a write: its ETag, if any, and whether it replays a
// kept answer (Idempotent-Replayed).
func WriteAnswer(c *gin.Context, answer *Answer, replayed bool) {
	h := c.Writer.Header()
	if replayed {
		h.Set("Idempotent-Replayed", "true")
	}
	if answer.ETag != "" {
		h.Set("ETag", answer.ETag)
	}
	edge.WriteJSON(c, answer.Status, func(b []byte) []byte { return append(b, answer.Body...) })
}

// keyLock is the advisory lock of key id on PostgreSQL.
func keyLock(id string) int64 {
	h := fnv.New64a()
	h.Write([]byte("idempotency:" + id))
	return int64(h.Sum64())
}

func (s *Service) idempotencyTTL() time.Duration {
	if s.IdempotencyTTL > 0 {
		return s.IdempotencyTTL
	}
	return DefaultIdempotencyTTL
}

// takeKey takes the key id for this transaction and returns its stored
// answer, if it has one that has not expired — on SQLite, kept in
// idempotency_keys or on the event of a one-statement create (keyed.go);
// the same statement sets the events' meta for the transaction (meta.go).
// On PostgreSQL the key is an advisory lock held to the transaction's end:
// another transaction holding it is a request with the key still running.
// SQLite runs one write at a time, so the key is always free.
func takeKey(ctx context.Context, w Writer, id, meta string, ttl time.Duration) (*storedAnswer, error) {
	var a storedAnswer
	var etag sql.NullString
	var fp sql.NullString
	var status sql.NullInt64
	now := time.Now().UTC()
	if w.Postgres() {
		// The lock first, in a statement of its own: a statement reads
		// what was committed when it began, so a lookup in the same
		// statement could miss the key of a request that committed, and
		// released the lock, just before.
		got := false
		_, err := w.Query(ctx, 1, `SELECT pg_try_advisory_xact_lock(?), set_config('records.meta', ?, true) IS NOT NULL`,
			[]any{keyLock(id), meta}, func(rows *sql.Rows) error {
				var set bool
				return rows.Scan(&got, &set)
			})
		if err != nil {
			return nil, err
		}
		if !got {
			return nil, &problem.Error{Code: problem.KeyInUse, RetryAfter: 1,
				Detail: "a request with this Idempotency-Key is still running; retry when it has finished"}
		}
	} else if err := setMeta(ctx, w, meta); err != nil {
		return nil, err
	}
	_, err := w.Query(ctx, 1, `SELECT "fingerprint", "status", "body", "etag", "image" FROM "idempotency_keys" WHERE "id" = ? AND "expires_at" > ?`,
		[]any{id, now}, func(rows *sql.Rows) error { return rows.Scan(&fp, &status, &a.body, &etag, &a.image) })
	if err == nil && !fp.Valid && !w.Postgres() {
		_, err = w.Query(ctx, 1, `SELECT "idempotency_fingerprint", "image"`+keyOnEvent+` ORDER BY "id" DESC LIMIT 1`,
			[]any{id, now.Add(-ttl).UnixMicro()}, func(rows *sql.Rows) error {
				status = sql.NullInt64{Int64: http.StatusCreated, Valid: true}
				return rows.Scan(&fp, &a.image)
			})
	}
	if err != nil {
		return nil, err
	}
	if !fp.Valid {
		return nil, nil
	}
	a.fingerprint, a.status, a.etag = fp.String, int(status.Int64), etag.String
	return &a, nil
}

// fingerprint identifies a request: its caller (the credential, and the
// role it acts in), its method, path and query, and body. A key's answer
// is replayed to its caller only: another caller of the team — another
// token, or the same subject in another role — sending the key is told it
// was used with another request, and sees nothing of the answer.
func fingerprint(r *http.Request, body []byte) string {
	h := sha256.New()
	if p, ok := auth.FromContext(r.Context()); ok {
		h.Write([]byte(p.TokenID + "\n" + p.Role + "\n"))
	}
	h.Write([]byte(r.Method + " " + r.URL.RequestURI() + "\n"))
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}
