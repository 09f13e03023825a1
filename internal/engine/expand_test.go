package engine

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"records/internal/db"
	"records/internal/dbtest"
	"records/internal/spec"
	"records/internal/wire"
)

// kid is a child record of the tests below: an id and its parent's.
type kid struct{ ID, Parent string }

// kids is a resource of kids, in a table of their own.
var kids = &Resource[kid]{
	Scan: func(rows Row) (*kid, error) {
		k := new(kid)
		return k, rows.Scan(&k.ID, &k.Parent)
	},
	Encode: func(b []byte, k *kid) []byte { return wire.AppendString(b, k.ID) },
}

// readChildren groups the children a statement answers under their
// parents, keeps at most MaxChildren of each, and refuses children that do
// not come parent after parent, on both databases.
func TestReadChildren(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, database *db.DB) {
		ctx := context.Background()
		if _, err := database.Exec(ctx, `CREATE TABLE "kids" ("id" text PRIMARY KEY, "parent" text NOT NULL)`); err != nil {
			t.Fatal(err)
		}
		add := func(id, parent string) {
			if _, err := database.Exec(ctx, `INSERT INTO "kids" ("id", "parent") VALUES (?, ?)`, id, parent); err != nil {
				t.Fatal(err)
			}
		}
		// Ids that interleave the parents when ordered alone.
		add("1", "a")
		add("2", "b")
		add("3", "a")
		for i := range spec.MaxChildren + 1 {
			add(fmt.Sprintf("m-%04d", i), "m")
		}
		parents := []*kid{{ID: "a"}, {ID: "none"}, {ID: "b"}, {ID: "m"}}
		id := func(p *kid) string { return p.ID }
		parentOf := func(k *kid) *string { return &k.Parent }
		read := func(order string) (expansion, int, error) {
			return readChildren(ctx, database, kids, `SELECT "id", "parent" FROM "kids" ORDER BY `+order, nil, parents, id, parentOf)
		}

		x, n, err := read(`"parent", "id"`)
		if err != nil {
			t.Fatal(err)
		}
		defer x.release()
		if n != 3+spec.MaxChildren+1 {
			t.Errorf("read %d rows, want all %d", n, 3+spec.MaxChildren+1)
		}
		m := `["m-0000"`
		for i := 1; i < spec.MaxChildren; i++ {
			m += fmt.Sprintf(`,"m-%04d"`, i)
		}
		for i, want := range []string{`["1","3"]`, `[]`, `["2"]`, m + `]`} {
			if got := string(x.parts[i]); got != want {
				t.Errorf("%s's children: %.80s…, want %.80s…", parents[i].ID, got, want)
			}
		}

		if _, _, err := read(`"id"`); !errors.Is(err, errScattered) {
			t.Errorf("children not parent after parent: %v, want errScattered", err)
		}
	})
}
