// Command ftsshape shows what single-row writes leave of SQLite's FTS5
// search table of returns, and what that costs a search: it inserts
// returns one an autocommitted statement, as the service writes creates
// (widget in every description), and every --every rows prints the
// table's shape (segments a level, leaf pages a segment, from its structure
// record), the CPU time an insert took, and the CPU time of a page of
// q=widget's lookups (the newest 101 returns, each looked up in FTS5 by its
// rowid, as query.Probe reads a common word; mean of 20). With --merge it
// runs the service's merge pass (db.MergeFTS) every --merge-every rows, as
// the checkpointer runs one every 30 ms, and prints its CPU time a row;
// --config runs FTS5 configuration statements first. The service's
// checkpointer runs as in the service (db.Open starts it), merging by its
// own rule; --settle waits after the rows and prints the table again, the
// CPU time of the wait (the quiet merge's) as its merge time.
//
//	ftsshape --database-url sqlite:/tmp/shape.db --rows 100000 --every 5000
//	ftsshape --database-url sqlite:/tmp/merged.db --rows 100000 --every 5000 --merge
//	ftsshape --database-url sqlite:/tmp/pgsz.db --config "INSERT INTO returns_search(returns_search, rank) VALUES ('pgsz', 400)"
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"strings"
	"syscall"
	"time"

	"records/internal/db"
)

// lookups is a page of q=widget's last tier as query.Probe reads it,
// without the tiers before it.
const lookups = `SELECT count(*) FROM (SELECT "id" FROM "returns" r WHERE r."team_id" = 1 AND r."deleted_at" IS NULL
AND EXISTS (SELECT 1 FROM "returns_search" WHERE "returns_search"."rowid" = r."rowid" AND "returns_search" MATCH '"widget"')
ORDER BY "id" DESC LIMIT 101)`

func main() {
	url := flag.String("database-url", "sqlite:data/ftsshape.db", "sqlite:PATH (migrated here)")
	rows := flag.Int("rows", 10000, "returns to insert")
	every := flag.Int("every", 1000, "print every this many rows")
	merge := flag.Bool("merge", false, "run the service's FTS5 merge pass")
	mergeEvery := flag.Int("merge-every", 10, "rows between merge passes")
	config := flag.String("config", "", "statements to run first, ; between them")
	settle := flag.Duration("settle", 0, "after the rows, wait this long (the checkpointer merging) and print again")
	flag.Parse()
	ctx := context.Background()
	d, err := db.Open(ctx, db.Config{URL: *url})
	must(err)
	defer d.Close()
	_, err = d.Migrate(ctx)
	must(err)
	_, err = d.SQL.ExecContext(ctx, `INSERT OR IGNORE INTO "teams" ("id", "name", "created_at") VALUES (1, 'ftsshape', '2025-01-01')`)
	must(err)
	for _, st := range strings.Split(*config, ";") {
		if strings.TrimSpace(st) != "" {
			_, err := d.SQL.ExecContext(ctx, st)
			must(err)
		}
	}
	var from int
	must(d.SQL.QueryRowContext(ctx, `SELECT count(*) FROM "returns"`).Scan(&from))
	var merging time.Duration
	steps, start := 0, cpu()
	for i := from; i < from+*rows; i++ {
		must(d.Write(ctx, false, func(w *db.Writer) error {
			_, err := w.Exec(ctx, `INSERT INTO "returns" ("id", "team_id", "status", "created_date", "order_id", "customer_email", "description")
VALUES (?, 1, 'open', '2025-01-01T00:00:00Z', ?, ?, ?)`, fmt.Sprintf("ret-%07d", i), fmt.Sprintf("order-%d", i),
				fmt.Sprintf("customer%d@example.com", i%5000), fmt.Sprintf("Returned widget %d: the box arrived intact, customer changed their mind", i))
			return err
		}))
		if *merge && (i+1)%*mergeEvery == 0 {
			c := cpu()
			n, err := d.MergeFTS(ctx, false)
			must(err)
			steps, merging = steps+n, merging+cpu()-c
		}
		if (i+1)%*every == 0 {
			spent := cpu() - start
			report(ctx, d, i+1, (spent-merging)/time.Duration(*every), merging/time.Duration(*every), steps)
			merging, steps, start = 0, 0, cpu()
		}
	}
	if *settle > 0 {
		time.Sleep(*settle)
		report(ctx, d, from+*rows, 0, cpu()-start, 0)
	}
}

// report prints the table's shape and what a page of lookups costs.
func report(ctx context.Context, d *db.DB, rows int, insert, merge time.Duration, steps int) {
	shape, err := db.ReadFTSShape(ctx, d.SQL, "returns_search")
	must(err)
	var n int
	c := cpu()
	for k := 0; k < 20; k++ {
		must(d.SQL.QueryRowContext(ctx, lookups).Scan(&n))
	}
	levels := fmt.Sprint(shape.Levels)
	if len(shape.Levels) > 12 { // a merge of all puts its segment on the last level
		levels = fmt.Sprint(shape.Levels[:8]) + fmt.Sprintf("…level %d", len(shape.Levels)-1)
	}
	fmt.Printf("rows %7d  segments %3d  levels %s  pages %v  insert %v  merge %v (%d steps)  101 lookups %v\n",
		rows, shape.Segments(), levels, shape.Pages, insert.Round(time.Microsecond), merge.Round(time.Microsecond), steps,
		((cpu() - c) / 20).Round(10*time.Microsecond))
}

// cpu is the CPU time the process has spent, user and system.
func cpu() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		log.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func must(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
