package publish

import (
	"context"
	"testing"

	"records/internal/dbtest"
	"records/internal/events"
)

// The publisher's position moves forward only, and each move is a write
// in its turn: on SQLite under the process's write lock (so counted),
// never beside the writers queued for it.
func TestTheStoredPositionMovesForwardInItsTurn(t *testing.T) {
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			database := dbtest.Open(t, d)
			p := &Publisher{cfg: Config{Stream: "position"}, db: database, on: database}
			ctx := context.Background()
			for _, pos := range []events.Position{{TxID: 7, Seq: 3}, {TxID: 9, Seq: 5}, {TxID: 8, Seq: 4}} {
				start := database.Writes()
				if err := p.store(ctx, pos); err != nil {
					t.Fatal(err)
				}
				if !database.Postgres() && database.Writes() == start {
					t.Fatalf("storing %+v counted no write: not under the write lock", pos)
				}
			}
			got, err := p.stored(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if want := (events.Position{TxID: 9, Seq: 5}); got != want {
				t.Fatalf("stored %+v, want %+v (never moved back)", got, want)
			}
		})
	}
}
