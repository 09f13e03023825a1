package publish

import (
	"context"
	"hash/fnv"
	"sync"
	"time"

	"records/internal/db"
)

// lease is the publisher's lock while held.
type lease struct {
	conn    *db.Conn // PostgreSQL: the connection holding the advisory lock, which the publisher reads and writes on
	key     int64
	unlock  func()
	checked time.Time
}

// processLocks are the publishers' locks on SQLite, by stream: one
// publisher per process.
var processLocks sync.Map // stream → *sync.Mutex

// lock takes the publisher's lock, or returns nil when another instance
// holds it.
func (p *Publisher) lock(ctx context.Context) (*lease, error) {
	if !p.db.Postgres() {
		v, _ := processLocks.LoadOrStore(p.cfg.Stream, &sync.Mutex{})
		mu := v.(*sync.Mutex)
		if !mu.TryLock() {
			return nil, nil
		}
		return &lease{unlock: mu.Unlock}, nil
	}
	h := fnv.New64a()
	h.Write([]byte("records:publish:" + p.cfg.Stream))
	key := int64(h.Sum64())
	conn, err := p.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	got := false
	if err := conn.SQL.QueryRowContext(ctx, `SELECT pg_try_advisory_lock($1)`, key).Scan(&got); err != nil || !got {
		conn.Close()
		return nil, db.Classify(ctx, err)
	}
	return &lease{conn: conn, key: key, checked: time.Now()}, nil
}

// leaseCheck is how often the lock's connection is checked to be alive.
const leaseCheck = time.Second

// held tells whether the lock is still held: on PostgreSQL, whether the
// connection holding it still answers (checked every leaseCheck).
func (l *lease) held(ctx context.Context) bool {
	if l.conn == nil || time.Since(l.checked) < leaseCheck {
		return true
	}
	cctx, cancel := context.WithTimeout(ctx, leaseCheck)
	defer cancel()
	if err := l.conn.SQL.PingContext(cctx); err != nil {
		return false
	}
	l.checked = time.Now()
	return true
}

// release gives the lock up.
func (l *lease) release() {
	if l.unlock != nil {
		l.unlock()
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, _ = l.conn.SQL.ExecContext(ctx, `SELECT pg_advisory_unlock($1)`, l.key)
	l.conn.Close()
}

// on is where the publisher runs its statements while it holds the lock:
// on PostgreSQL the lock's own connection, so that they never wait behind
// requests for a pooled one (see db.Conn); on SQLite the pool.
func (l *lease) on(pool *db.DB) database {
	if l.conn != nil {
		return l.conn
	}
	return pool
}
