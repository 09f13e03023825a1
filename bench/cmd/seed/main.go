// Command seed fills a migrated database with many returns (and line items
// for the first of them) straight through SQL, for bench/lists.sh and
// bench/trash.sh: seeding a million records through the API would take
// longer than measuring. With --trash-odd it then moves every other return
// (the odd ones: statuses closed and refunded) to the trash. With --search
// (bench/search.sh) every return's description holds the word widget, and
// 1,000 of them the word zanzibar, half of those in the rma too.
//
//	seed --database-url postgres://… --returns 1000000 --with-items 20000
//	seed --database-url sqlite:… --returns 200000 --with-items 0 --trash-odd
//	seed --database-url sqlite:… --returns 100000 --with-items 0 --search
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"strings"
	"time"

	"records/internal/db"
)

func main() {
	url := flag.String("database-url", "sqlite:data/records.db", "sqlite:PATH or postgres://…")
	returns := flag.Int("returns", 100000, "returns to make")
	withItems := flag.Int("with-items", 20000, "the first this many returns get 5 line items each")
	trashOdd := flag.Bool("trash-odd", false, "move the odd returns (every other one) to the trash, then analyze")
	search := flag.Bool("search", false, "words to search: widget in every description, zanzibar in 1,000 (500 in the rma too)")
	flag.Parse()
	ctx := context.Background()
	database, err := db.Open(ctx, db.Config{URL: *url})
	if err != nil {
		log.Fatal(err)
	}
	defer database.Close()
	start := time.Now()
	statuses := []string{"open", "closed", "received", "refunded"}
	const batch = 500
	for from := 0; from < *returns; from += batch {
		var rows []string
		var args []any
		for i := from; i < min(from+batch, *returns); i++ {
			rows = append(rows, "(?, 1, ?, ?, ?, ?, ?, ?)")
			created := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute).Format(time.RFC3339)
			description, rma := searchWords(*search, i, *returns)
			args = append(args, fmt.Sprintf("ret-%07d", i), statuses[i%len(statuses)], created,
				fmt.Sprintf("order-%d", i), fmt.Sprintf("customer%d@example.com", i%5000), description, rma)
		}
		if _, err := database.Exec(ctx, `INSERT INTO returns (id, team_id, status, created_date, order_id, customer_email, description, rma) VALUES `+strings.Join(rows, ", "), args...); err != nil {
			log.Fatal(err)
		}
	}
	for from := 0; from < *withItems; from += batch / 5 {
		var rows []string
		var args []any
		for i := from; i < min(from+batch/5, *withItems); i++ {
			for j := 0; j < 5; j++ {
				rows = append(rows, "(?, 1, ?, ?, ?)")
				args = append(args, fmt.Sprintf("ret-%07d-%d", i, j), fmt.Sprintf("ret-%07d", i), fmt.Sprintf("sku-%d", j), "12.50")
			}
		}
		if _, err := database.Exec(ctx, `INSERT INTO return_line_items (id, team_id, return_id, sku, price) VALUES `+strings.Join(rows, ", "), args...); err != nil {
			log.Fatal(err)
		}
	}
	if *trashOdd {
		// One batch per return, as a delete of each would make.
		if _, err := database.Exec(ctx, `UPDATE "returns" SET "deleted_at" = ?, "deleted_by" = 'seed', "trash_batch" = "id" `+
			`WHERE "status" IN ('closed', 'refunded')`, time.Now().UnixMicro()); err != nil {
			log.Fatal(err)
		}
	}
	analyze := `ANALYZE`
	if *search && database.Dialect == "postgres" {
		// And the GIN indexes' pending lists merged, as autovacuum would
		// soon: a search reading them in a list is slower.
		analyze = `VACUUM ANALYZE "returns"`
	}
	if database.Dialect == "postgres" || *trashOdd {
		if _, err := database.Exec(ctx, analyze); err != nil {
			log.Fatal(err)
		}
	}
	log.Printf("seeded %d returns, %d with 5 line items, in %s", *returns, *withItems, time.Since(start).Round(time.Millisecond))
}

// searchWords are the description and rma of return i of n: none without
// --search; else widget in every description, zanzibar in one in n/1,000
// of them and in the rma of every other one of those.
func searchWords(search bool, i, n int) (description, rma any) {
	if !search {
		return nil, nil
	}
	description = fmt.Sprintf("Returned widget %d: the box arrived intact, customer changed their mind", i)
	every := max(n/1000, 1)
	if i%every != 0 {
		return description, nil
	}
	description = fmt.Sprintf("Returned widget %d from zanzibar: the box arrived intact", i)
	if i/every%2 == 0 {
		return description, fmt.Sprintf("RMA zanzibar %d", i)
	}
	return description, nil
}
