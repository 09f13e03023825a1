// Command ftsupkeep measures what SQLite's FTS5 search index costs a
// create, in process: single-row inserts of a return, each its own
// autocommitted statement as the service writes them (or --batch of them
// a transaction), into copies of a migrated database whose returns'
// search index is made as each variant says (variants: none, one table,
// three, FTS5 options, one table of rowid ranges, indexing deferred to
// batches). A variant named file:PATH is the database at PATH as its
// migrations left it (when they queue new records for the index, as the
// service's do since migration 0026, the queue is indexed as the service
// does it, every 100 inserts). The log is checkpointed every 100 inserts, as the
// service's checkpointer does every 30 ms. Variants run interleaved (in
// order, then in reverse, each round) on a fresh copy each; it prints the
// CPU time and the pages written per insert of each run, and each
// variant's median ÷ the first's.
//
//	ftsupkeep --template base.db --rows 3000 --rounds 3 none one three
//	ftsupkeep --template base.db none file:main.db file:branch.db
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"time"

	"records/internal/db"
)

// member is a searchable member of returns and its weight.
type member struct{ col, weight string }

var members = []member{{"description", "C"}, {"issue", "B"}, {"customer_email", "A"}, {"rma", "A"}, {"serial_number", "A"}}

// fts is the DDL of one FTS5 table over returns holding cols, with
// options, and its insert and delete statements for the triggers.
func fts(name string, cols []string, options string) (ddl, ins, del string) {
	list := `"` + strings.Join(cols, `", "`) + `"`
	row := func(r string) string { return r + `."` + strings.Join(cols, `", `+r+`."`) + `"` }
	if !strings.Contains(options, "tokenize=") {
		options = ", tokenize='porter unicode61 remove_diacritics 2'" + options
	}
	ddl = `CREATE VIRTUAL TABLE "` + name + `" USING fts5(` + list + `, content='returns'` + options + `)`
	ins = ` INSERT INTO "` + name + `"(rowid, ` + list + `) VALUES (NEW.rowid, ` + row("NEW") + `);`
	del = ` INSERT INTO "` + name + `"("` + name + `", rowid, ` + list + `) VALUES ('delete', OLD.rowid, ` + row("OLD") + `);`
	return
}

// class are the members of weight w or heavier (cumulative) or of w
// alone.
func class(w string, alone bool) []string {
	var out []string
	for _, m := range members {
		if m.weight == w || !alone && m.weight < w {
			out = append(out, m.col)
		}
	}
	return out
}

// index is the DDL of a variant: tables (name → columns), options and
// the config statements run after.
func index(tables [][2]any, options string, config ...string) []string {
	var ddl, ins []string
	var del []string
	for _, t := range tables {
		d, i, r := fts(t[0].(string), t[1].([]string), options)
		ddl, ins, del = append(ddl, d), append(ins, i), append(del, r)
		for _, c := range config {
			ddl = append(ddl, `INSERT INTO "`+t[0].(string)+`"("`+t[0].(string)+`", rank) VALUES `+c)
		}
	}
	if len(tables) == 0 {
		return nil
	}
	return append(ddl,
		`CREATE TRIGGER search_returns_insert AFTER INSERT ON returns BEGIN`+strings.Join(ins, "")+` END`,
		`CREATE TRIGGER search_returns_delete AFTER DELETE ON returns BEGIN`+strings.Join(del, "")+` END`)
}

func all() []string { return class("C", false) }

// ranges is one FTS5 table holding a document per weight class of each
// return: every member at the return's rowid, the class of weight A and
// heavier at rowid + 1<<40, B and heavier at rowid + 2<<40; content
// is the content option.
func ranges(content, options string, config ...string) []string {
	cols := all()
	list := `"` + strings.Join(cols, `", "`) + `"`
	ddl := []string{`CREATE VIRTUAL TABLE returns_search USING fts5(` + list + `, content=` + content + `, tokenize='porter unicode61 remove_diacritics 2'` + options + `)`}
	for _, c := range config {
		ddl = append(ddl, `INSERT INTO returns_search(returns_search, rank) VALUES `+c)
	}
	var ins, del strings.Builder
	for k, w := range []string{"C", "A", "B"} {
		in := class(w, false)
		vals := func(r string) string {
			var v []string
			for _, c := range cols {
				if slices.Contains(in, c) {
					v = append(v, r+`."`+c+`"`)
				} else {
					v = append(v, "NULL")
				}
			}
			return strings.Join(v, ", ")
		}
		off := fmt.Sprintf(" + %d", int64(k)<<40)
		ins.WriteString(` INSERT INTO returns_search(rowid, ` + list + `) VALUES (NEW.rowid` + off + `, ` + vals("NEW") + `);`)
		del.WriteString(` INSERT INTO returns_search(returns_search, rowid, ` + list + `) VALUES ('delete', OLD.rowid` + off + `, ` + vals("OLD") + `);`)
	}
	return append(ddl,
		`CREATE TRIGGER search_returns_insert AFTER INSERT ON returns BEGIN`+ins.String()+` END`,
		`CREATE TRIGGER search_returns_delete AFTER DELETE ON returns BEGIN`+del.String()+` END`)
}

// deferred is the one table of ranges kept apart from the commits of
// creates: a trigger notes each new rowid in a queue, and every 100
// inserts one statement (catchUp) indexes the queued returns, so that
// FTS5 flushes one segment a batch, not one a create.
func deferred() []string {
	ddl := ranges("''", ", columnsize=0")
	ddl = ddl[:len(ddl)-2] // the queue's triggers instead
	return append(ddl, `CREATE TABLE search_queue (rid INTEGER PRIMARY KEY)`,
		`CREATE TRIGGER search_returns_insert AFTER INSERT ON returns BEGIN INSERT INTO search_queue(rid) VALUES (NEW.rowid); END`)
}

// catchUp indexes the queued returns (deferred) in one statement.
var catchUp = []string{
	`INSERT INTO returns_search(rowid, description, issue, customer_email, rma, serial_number)
SELECT rowid, description, issue, customer_email, rma, serial_number FROM returns WHERE rowid IN (SELECT rid FROM search_queue)
UNION ALL SELECT rowid + 1099511627776, NULL, NULL, customer_email, rma, serial_number FROM returns WHERE rowid IN (SELECT rid FROM search_queue)
UNION ALL SELECT rowid + 2199023255552, NULL, issue, customer_email, rma, serial_number FROM returns WHERE rowid IN (SELECT rid FROM search_queue)`,
	`DELETE FROM search_queue`,
}

// variants are the indexes measured, by name.
var variants = map[string][]string{
	"none":            nil,
	"one":             index([][2]any{{"returns_search", all()}}, ""),
	"three":           index([][2]any{{"returns_search", all()}, {"returns_search_a", class("A", false)}, {"returns_search_b", class("B", false)}}, ""),
	"one-cs0":         index([][2]any{{"returns_search", all()}}, ", columnsize=0"),
	"three-cs0":       index([][2]any{{"returns_search", all()}, {"returns_search_a", class("A", false)}, {"returns_search_b", class("B", false)}}, ", columnsize=0"),
	"split3":          index([][2]any{{"returns_search_a", class("A", true)}, {"returns_search_b", class("B", true)}, {"returns_search_c", class("C", true)}}, ""),
	"one-am0":         index([][2]any{{"returns_search", all()}}, "", "('automerge', 0)"),
	"one-am16":        index([][2]any{{"returns_search", all()}}, "", "('automerge', 16)"),
	"one-am2":         index([][2]any{{"returns_search", all()}}, "", "('automerge', 2)"),
	"one-cm64":        index([][2]any{{"returns_search", all()}}, "", "('crisismerge', 64)"),
	"one-um16":        index([][2]any{{"returns_search", all()}}, "", "('usermerge', 16)"),
	"one-pgsz":        index([][2]any{{"returns_search", all()}}, "", "('pgsz', 4000)"),
	"one-dcol":        index([][2]any{{"returns_search", all()}}, ", detail=column"),
	"one-u61":         index([][2]any{{"returns_search", all()}}, ", tokenize='unicode61 remove_diacritics 2'"),
	"one-u61nd":       index([][2]any{{"returns_search", all()}}, ", tokenize='unicode61 remove_diacritics 0'"),
	"one-ascii":       index([][2]any{{"returns_search", all()}}, ", tokenize='ascii'"),
	"one-pascii":      index([][2]any{{"returns_search", all()}}, ", tokenize='porter ascii'"),
	"ranges":          ranges("''", ""),
	"ranges-cs0":      ranges("''", ", columnsize=0"),
	"ranges-ext-cs0":  ranges("'returns'", ", columnsize=0"),
	"ranges-cs0-am0":  ranges("''", ", columnsize=0", "('automerge', 0)"),
	"ranges-cs0-am16": ranges("''", ", columnsize=0", "('automerge', 16)"),
	"ranges-cs0-am2":  ranges("''", ", columnsize=0", "('automerge', 2)"),
	"ranges-cs0-cm64": ranges("''", ", columnsize=0", "('automerge', 0)", "('crisismerge', 64)"),
	"deferred":        deferred(),
	"one-dnone":       index([][2]any{{"returns_search", all()}}, ", detail=none"),
	"three-am0":       index([][2]any{{"returns_search", all()}, {"returns_search_a", class("A", false)}, {"returns_search_b", class("B", false)}}, "", "('automerge', 0)"),
	"three-am16":      index([][2]any{{"returns_search", all()}, {"returns_search_a", class("A", false)}, {"returns_search_b", class("B", false)}}, "", "('automerge', 16)"),
}

const insert = `INSERT INTO returns (id, team_id, status, rma, serial_number, customer_email, issue, description, created_date)
VALUES (?, 1, 'open', 'RMA-2026-0042', 'SN-7731-AX-0042', 'jane.doe@example.com',
'Widget arrived with a cracked housing and a loose hinge',
'The customer reports that the widget stopped working after two days; the housing is cracked near the hinge, the display flickers, and the charger gets warm. Replacement requested under warranty.',
'2026-11-28T00:00:00Z')`

const insertVaried = `INSERT INTO returns (id, team_id, status, rma, serial_number, customer_email, issue, description, created_date)
VALUES (?1, 1, 'open', 'RMA-2026-' || ?1, 'SN-' || ?1 || '-AX', 'customer' || ?1 || '@example.com',
'Widget ' || ?1 || ' arrived with a cracked housing and a loose hinge',
'The customer reports that the widget stopped working after two days; the housing is cracked near the hinge, the display flickers, and the charger gets warm. Replacement requested under warranty, order ' || ?1 || '.',
'2026-11-28T00:00:00Z')`

func main() {
	template := flag.String("template", "", "a migrated SQLite database to copy")
	rows := flag.Int("rows", 5000, "inserts a run")
	rounds := flag.Int("rounds", 3, "rounds (each runs the variants in order, then in reverse)")
	varied := flag.Bool("varied", false, "distinct words in each return (the numbers)")
	txn := flag.Int("batch", 1, "inserts a transaction")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the runs here")
	flag.Parse()
	if *profile != "" {
		f, err := os.Create(*profile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	names := flag.Args()
	for _, n := range names {
		if _, ok := variants[n]; !ok && !strings.HasPrefix(n, "file:") {
			log.Fatalf("no variant %q", n)
		}
	}
	dir, err := os.MkdirTemp("", "ftsupkeep")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	keep := os.Getenv("FTSUPKEEP_KEEP") // the last run's database is moved here
	text := insert
	if *varied {
		text = insertVaried
	}
	got := map[string][]float64{}
	for r := 0; r < *rounds; r++ {
		order := slices.Clone(names)
		rev := slices.Clone(names)
		slices.Reverse(rev)
		for _, n := range append(order, rev...) {
			from, ddl, keepIndex := *template, variants[n], false
			if f, ok := strings.CutPrefix(n, "file:"); ok {
				from, keepIndex = f, true
			}
			us, pages := run(from, filepath.Join(dir, "db"), ddl, keepIndex, text, *rows, *txn)
			got[n] = append(got[n], us)
			fmt.Printf("round %d %-12s %7.1f µs/insert %5.1f pages/insert\n", r+1, n, us, pages)
		}
	}
	if keep != "" {
		if err := os.Rename(filepath.Join(dir, "db"), keep); err != nil {
			log.Fatal(err)
		}
	}
	base := median(got[names[0]])
	fmt.Printf("\n%-12s %8s %8s %8s  %s\n", "variant", "median", "min", "max", names[0]+" ÷ it (median; min–max of runs)")
	for _, n := range names {
		v := got[n]
		lo, hi := base/slices.Max(v), base/slices.Min(v)
		fmt.Printf("%-12s %8.1f %8.1f %8.1f  %.2f (%.2f–%.2f)\n", n, median(v), slices.Min(v), slices.Max(v), base/median(v), lo, hi)
	}
}

func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// run copies template to path, makes the variant's index and returns
// the µs per insert of rows inserts.
func run(template, path string, ddl []string, keepIndex bool, text string, rows, batch int) (float64, float64) {
	for _, s := range []string{"", "-wal", "-shm"} {
		os.Remove(path + s)
	}
	copyFile(template, path)
	ctx := context.Background()
	conn, err := sql.Open("sqlite", "file:"+path+"?"+db.SQLitePragmas+"&_pragma=wal_autocheckpoint(0)")
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	conn.SetMaxOpenConns(1)
	setup := []string{
		`DROP TRIGGER IF EXISTS search_returns_insert`, `DROP TRIGGER IF EXISTS search_returns_delete`, `DROP TRIGGER IF EXISTS search_returns_update`,
		`DROP VIEW IF EXISTS returns_search_pending`, `DROP TABLE IF EXISTS returns_search_queue`,
		`DROP TABLE IF EXISTS returns_search`, `DROP TABLE IF EXISTS returns_search_a`, `DROP TABLE IF EXISTS returns_search_b`,
		`INSERT OR IGNORE INTO teams (id, name, created_at) VALUES (1, 'bench', '2026-11-28T00:00:00Z')`,
	}
	if keepIndex {
		setup = setup[len(setup)-1:]
	}
	for _, s := range append(setup, ddl...) {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			log.Fatalf("%s: %v", s, err)
		}
	}
	if _, err := conn.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		log.Fatal(err)
	}
	st, err := conn.PrepareContext(ctx, text)
	if err != nil {
		log.Fatal(err)
	}
	batches := catchUp
	if !slices.Contains(ddl, deferred()[len(deferred())-1]) {
		batches = queued(ctx, conn)
	}
	cpu0 := cpuTime()
	frames := 0
	for i := 0; i < rows; i += batch {
		if i%100 == 0 && i > 0 {
			if batches != nil {
				catch(ctx, conn, batches)
			}
			frames += checkpoint(ctx, conn)
		}
		if batch == 1 {
			if _, err := st.ExecContext(ctx, fmt.Sprintf("ret-%07d", i)); err != nil {
				log.Fatal(err)
			}
			continue
		}
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			log.Fatal(err)
		}
		for j := i; j < min(i+batch, rows); j++ {
			if _, err := tx.StmtContext(ctx, st).ExecContext(ctx, fmt.Sprintf("ret-%07d", j)); err != nil {
				log.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			log.Fatal(err)
		}
	}
	frames += checkpoint(ctx, conn)
	return float64((cpuTime() - cpu0).Microseconds()) / float64(rows), float64(frames) / float64(rows)
}

// queued is the batch of a database whose migrations queue new returns
// for the search index (the service's, internal/db/searchqueue.go), nil
// for one that indexes them in their commits.
func queued(ctx context.Context, conn *sql.DB) []string {
	var n int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name = 'returns_search_pending'`).Scan(&n); err != nil {
		log.Fatal(err)
	}
	if n == 0 {
		return nil
	}
	return []string{`INSERT INTO returns_search(rowid, description, issue, customer_email, rma, serial_number)
SELECT rowid, description, issue, customer_email, rma, serial_number FROM returns_search_pending ORDER BY 1`,
		`DELETE FROM returns_search_queue`}
}

// catch runs a batch's statements (catchUp, queued) in one transaction.
func catch(ctx context.Context, conn *sql.DB, batch []string) {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range batch {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			log.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		log.Fatal(err)
	}
}

// checkpoint copies the log into the database, as the service's
// checkpointer does every 30 ms, and returns the frames it held: the
// pages the writes since the last one wrote.
func checkpoint(ctx context.Context, conn *sql.DB) int {
	var busy, log_, copied int
	if err := conn.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &log_, &copied); err != nil {
		log.Fatal(err)
	}
	return log_
}

// cpuTime is the process's user and system time: what the inserts cost
// the machine's cores, whatever else runs beside them.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		log.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func copyFile(from, to string) {
	in, err := os.Open(from)
	if err != nil {
		log.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		log.Fatal(err)
	}
	if err := out.Close(); err != nil {
		log.Fatal(err)
	}
}
