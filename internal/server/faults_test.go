package server_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"records/internal/auth"
	"records/internal/db"
	"records/internal/dbtest"
	"records/internal/server"
)

// PostgreSQL stopped and started again under write load, cleanly (fast)
// and as a crash (immediate): every write acknowledged is there afterwards,
// the outage is answered 503 and nothing else, /readyz follows the
// database, and writes succeed again within a second of its return.
func TestPostgresRestartUnderWriteLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL cluster of its own")
	}
	cluster := dbtest.NewCluster(t)
	url := cluster.URL("faults")
	database, err := db.Open(context.Background(), db.Config{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer database.Close()
	if _, err := database.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig()
	cfg.RequestTimeout = 5 * time.Second
	srv, err := server.New(cfg, database, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	_, token, err := auth.NewStore(database, 0).Create(context.Background(), "faults", auth.Write, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()

	load := startRestartLoad(t, ts, token)
	for _, mode := range []string{"fast", "immediate"} {
		time.Sleep(500 * time.Millisecond)
		cluster.Stop(mode)
		time.Sleep(300 * time.Millisecond)
		if s := readyz(t, ts); s != 503 {
			t.Errorf("%s stop: /readyz %d while the database is down", mode, s)
		}
		time.Sleep(700 * time.Millisecond)
		cluster.Start()
		back := time.Now()
		deadline := back.Add(10 * time.Second)
		for load.lastOK.Load() < back.UnixNano() && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if recovered := time.Unix(0, load.lastOK.Load()).Sub(back); recovered > time.Second {
			t.Errorf("%s stop: the first write succeeded %v after the database was back, want within 1s", mode, recovered)
		} else {
			t.Logf("%s stop: writes succeed again %v after the database is back", mode, recovered.Round(time.Millisecond))
		}
		if s := readyz(t, ts); s != 200 {
			t.Errorf("%s stop: /readyz %d once the database is back", mode, s)
		}
	}
	time.Sleep(300 * time.Millisecond)
	load.stop()
	have := customerIDs(t, url)
	var lost []string
	for _, id := range load.acked {
		if !have[id] {
			lost = append(lost, id)
		}
	}
	if len(lost) > 0 {
		t.Fatalf("%d acknowledged writes lost: %s", len(lost), strings.Join(lost[:min(10, len(lost))], ", "))
	}
	t.Logf("statuses %v; %d acknowledged writes, none lost", load.statuses, len(load.acked))
}

// restartLoad is 8 writers creating customers without pause, but for
// 20 ms after a 503; any answer but 201 and 503 is an error.
type restartLoad struct {
	mu       sync.Mutex
	acked    []string
	statuses map[int]int
	lastOK   atomic.Int64 // unix nanos of the latest 201
	n        atomic.Int64
	done     chan struct{}
	wg       sync.WaitGroup
}

func startRestartLoad(t *testing.T, ts *httptest.Server, token string) *restartLoad {
	l := &restartLoad{statuses: map[int]int{}, done: make(chan struct{})}
	for w := range 8 {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			for {
				select {
				case <-l.done:
					return
				default:
				}
				id := fmt.Sprintf("w%d-%d", w, l.n.Add(1))
				code, _, body := send(t, ts, token, "POST", "/v1/customers", `{"id":"`+id+`"}`)
				l.mu.Lock()
				l.statuses[code]++
				if code == 201 {
					l.acked = append(l.acked, id)
					l.lastOK.Store(time.Now().UnixNano())
				} else if code != 503 {
					t.Errorf("during a database outage: %d %s", code, body)
				}
				l.mu.Unlock()
				if code == 503 {
					time.Sleep(20 * time.Millisecond)
				}
			}
		}()
	}
	return l
}

// stop ends the load and waits for its writers.
func (l *restartLoad) stop() {
	close(l.done)
	l.wg.Wait()
}

// customerIDs is the set of customer ids the PostgreSQL database at url
// holds.
func customerIDs(t *testing.T, url string) map[string]bool {
	t.Helper()
	check, err := sql.Open("postgres", url)
	if err != nil {
		t.Fatal(err)
	}
	defer check.Close()
	have := map[string]bool{}
	rows, err := check.Query(`SELECT "id" FROM "customers"`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		rows.Scan(&id)
		have[id] = true
	}
	rows.Close()
	return have
}
