package db

import "slices"

// Prepared lists the texts of the statements prepared so far (with ?
// placeholders, as written), sorted: a test finds the statement a request
// ran, to EXPLAIN it.
func (db *DB) Prepared() []string {
	var out []string
	for _, c := range []*stmtCache{db.stmts, db.generated} {
		c.stmts.Range(func(k, _ any) bool {
			out = append(out, k.(string))
			return true
		})
	}
	slices.Sort(out)
	return slices.Compact(out)
}
