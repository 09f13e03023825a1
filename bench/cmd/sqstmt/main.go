// Command sqstmt times SQL statements on a SQLite file through the
// service's driver (with the service's Go mutexes): µs of CPU a run
// (process user + system time, so the machine's other load counts
// little), each statement prepared once on one connection and run N
// times after a first run. Statements are read from stdin, one a line:
// NAME|SQL, or NAME|SQL|ARGS with ARGS comma-separated (integers bound as
// integers). docs/performance.md (SQLite: where a search page's time went).
//
//	printf 'list|SELECT "id" FROM "returns" ORDER BY "id" LIMIT ?|101\n' |
//		go run ./bench/cmd/sqstmt -db /tmp/s.db -n 300 [-cache -16000] [-mmap 268435456]
package main

import (
	"bufio"
	"context"
	"database/sql"
	"flag"
	"fmt"
	"log"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	_ "modernc.org/sqlite"

	"records/internal/db"
	_ "records/internal/sqlitemutex"
)

func main() {
	path := flag.String("db", "", "SQLite file")
	n := flag.Int("n", 200, "runs a statement")
	cache := flag.Int("cache", 0, "PRAGMA cache_size (0: SQLite's default)")
	mmap := flag.Int("mmap", 0, "PRAGMA mmap_size (0: none)")
	flag.Parse()
	pool, err := sql.Open("sqlite", "file:"+*path+"?"+db.SQLitePragmas)
	if err != nil {
		log.Fatal(err)
	}
	pool.SetMaxOpenConns(1)
	for pragma, v := range map[string]int{"cache_size": *cache, "mmap_size": *mmap} {
		if v == 0 {
			continue
		}
		if _, err := pool.Exec(fmt.Sprintf("PRAGMA %s = %d", pragma, v)); err != nil {
			log.Fatal(err)
		}
	}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		name, text, ok := strings.Cut(sc.Text(), "|")
		if !ok {
			continue
		}
		var args []any
		if t, a, ok := strings.Cut(text, "|"); ok {
			text = t
			for _, f := range strings.Split(a, ",") {
				if i, err := strconv.ParseInt(f, 10, 64); err == nil {
					args = append(args, i)
				} else {
					args = append(args, f)
				}
			}
		}
		perRun, rows, err := timeStatement(pool, text, args, *n)
		if err != nil {
			log.Fatalf("%s: %v", name, err)
		}
		fmt.Printf("%-12s %8.0f us  %d rows\n", name, float64(perRun)/1e3, rows)
	}
}

// timeStatement runs text once, then n times, and answers the CPU time a
// run and the rows a run read.
func timeStatement(pool *sql.DB, text string, args []any, n int) (time.Duration, int, error) {
	ctx := context.Background()
	st, err := pool.PrepareContext(ctx, text)
	if err != nil {
		return 0, 0, err
	}
	defer st.Close()
	rows := 0
	run := func() error {
		r, err := st.QueryContext(ctx, args...)
		if err != nil {
			return err
		}
		defer r.Close()
		cols, _ := r.Columns()
		dest := make([]any, len(cols))
		for i := range dest {
			dest[i] = new(sql.RawBytes)
		}
		for rows = 0; r.Next(); rows++ {
			if err := r.Scan(dest...); err != nil {
				return err
			}
		}
		return r.Err()
	}
	if err := run(); err != nil {
		return 0, 0, err
	}
	start := cpu()
	for range n {
		if err := run(); err != nil {
			return 0, 0, err
		}
	}
	return (cpu() - start) / time.Duration(n), rows, nil
}

// cpu is the process's user + system time so far.
func cpu() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		log.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
