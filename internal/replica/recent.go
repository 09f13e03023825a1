package replica

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// recent remembers each API token's last write, for Sticky: the position
// its reads must see without the header.
type recent interface {
	// wrote notes that token's write committed before lsn.
	wrote(ctx context.Context, token string, lsn uint64)
	// need is the position token's reads must see: that of its last write
	// within Sticky, 0 when none. When it cannot tell, it answers the
	// most (every read to the primary).
	need(ctx context.Context, token string) uint64
	// sweep forgets what is older than Sticky (the poller calls it).
	sweep(now time.Time)
}

// memoryRecent keeps the last writes in process: one instance honours
// them.
type memoryRecent struct {
	sticky time.Duration
	writes sync.Map // token → *lastWrite
}

type lastWrite struct {
	mu    sync.Mutex
	lsn   uint64
	until time.Time
}

func newMemoryRecent(sticky time.Duration) *memoryRecent { return &memoryRecent{sticky: sticky} }

func (r *memoryRecent) wrote(_ context.Context, token string, lsn uint64) {
	v, _ := r.writes.LoadOrStore(token, &lastWrite{})
	w := v.(*lastWrite)
	w.mu.Lock()
	w.lsn = max(w.lsn, lsn)
	w.until = time.Now().Add(r.sticky)
	w.mu.Unlock()
}

func (r *memoryRecent) need(_ context.Context, token string) uint64 {
	v, ok := r.writes.Load(token)
	if !ok {
		return 0
	}
	w := v.(*lastWrite)
	w.mu.Lock()
	defer w.mu.Unlock()
	if time.Now().After(w.until) {
		return 0
	}
	return w.lsn
}

func (r *memoryRecent) sweep(now time.Time) {
	r.writes.Range(func(k, v any) bool {
		w := v.(*lastWrite)
		w.mu.Lock()
		old := now.After(w.until)
		w.mu.Unlock()
		if old {
			r.writes.CompareAndDelete(k, v)
		}
		return true
	})
}

// redisRecent keeps the last writes in Redis, for every instance using it:
// a key per token holding the position as 16 hexadecimal digits (which
// order as the numbers do), raised only, expiring after Sticky.
type redisRecent struct {
	rdb    *redis.Client
	sticky time.Duration
	log    *slog.Logger
	warned atomic.Int64
}

func newRedisRecent(rdb *redis.Client, sticky time.Duration, log *slog.Logger) *redisRecent {
	return &redisRecent{rdb: rdb, sticky: sticky, log: log}
}

// redisTimeout bounds a round trip to Redis.
const redisTimeout = 100 * time.Millisecond

// raise sets the key to the position unless it holds a later one, and
// renews its expiry.
var raise = redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if (not cur) or cur < ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
else
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 1`)

func redisKey(token string) string { return "records:last-write:" + token }

func (r *redisRecent) wrote(ctx context.Context, token string, lsn uint64) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), redisTimeout)
	defer cancel()
	err := raise.Run(ctx, r.rdb, []string{redisKey(token)}, fmt.Sprintf("%016x", lsn), r.sticky.Milliseconds()).Err()
	if err != nil {
		r.warn("replica: Redis unavailable; a write is remembered by no instance (its token reads from the primary while Redis fails)", err)
	}
}

func (r *redisRecent) need(ctx context.Context, token string) uint64 {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), redisTimeout)
	defer cancel()
	v, err := r.rdb.Get(ctx, redisKey(token)).Result()
	switch {
	case err == redis.Nil:
		return 0
	case err != nil:
		r.warn("replica: Redis unavailable; reads go to the primary", err)
		return ^uint64(0)
	}
	var lsn uint64
	if _, err := fmt.Sscanf(v, "%x", &lsn); err != nil {
		return ^uint64(0)
	}
	return lsn
}

func (r *redisRecent) sweep(time.Time) {} // Redis expires the keys

// warn logs a failure of Redis at most every 10 s.
func (r *redisRecent) warn(msg string, err error) {
	now := time.Now().UnixNano()
	if last := r.warned.Load(); now-last > int64(10*time.Second) && r.warned.CompareAndSwap(last, now) {
		r.log.Warn(msg, "error", err)
	}
}
