// Command baseline serves package baseline, the hand-written yardstick of
// bench/load.sh.
//
//	baseline --addr 127.0.0.1:8090 --database-url sqlite:data/records.db --team 1
package main

import (
	"flag"
	"log"
	"net/http"

	"records/bench/baseline"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8090", "listen address")
	url := flag.String("database-url", "sqlite:data/records.db", "sqlite:PATH or postgres://…")
	team := flag.Int("team", 1, "the team whose customers are served")
	flag.Parse()
	db, postgres, err := baseline.Open(*url)
	if err != nil {
		log.Fatal(err)
	}
	h, err := baseline.Handler(db, postgres, *team)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("baseline serving on http://%s", *addr)
	log.Fatal(http.ListenAndServe(*addr, h))
}
