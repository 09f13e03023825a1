// Package rules holds the golden module's business rules: the golden test
// copies it over the repository's package rules, and its tests (in
// testdata/golden/tests) drive each kind of rule through the server.
package rules

import (
	"context"
	"database/sql"
	"net/http"
	"strings"
	"sync"

	"github.com/gin-gonic/gin"

	"records/internal/edge"
	"records/internal/engine"
	"records/internal/problem"
	"records/internal/resources"
)

// Seen are the events the after-commit rule received, in order.
var Seen struct {
	sync.Mutex
	Events []engine.Committed
}

// Register adds the golden rules of books.
func Register(r *resources.Rules, routes *engine.Routes) {
	r.Books.Validate(func(ctx context.Context, c *engine.Change[*resources.BookInput]) error {
		if c.Body.Title.Set && c.Body.Title.V == "Forbidden" {
			return problem.Member("title", "is not a title this library takes")
		}
		if c.Body.Title.Set && c.Body.Title.V == "panic" {
			panic("a rule panics")
		}
		if c.Body.Status.Set && c.Body.Status.V == "published" && c.Body.Price.Set && !c.Body.Price.Null && c.Body.Price.V > 1000 {
			return engine.RuleFailed("a published book costs at most 1000", "price", "status")
		}
		return nil
	})
	r.Books.BeforeWrite(func(ctx context.Context, tx engine.Tx, c *engine.Change[*resources.BookInput]) error {
		if c.Creating && !c.Body.Title.Set {
			c.Body.Title.Put("Untitled " + c.Body.Code.V)
		}
		if !c.Creating || !c.Body.Code.Set {
			return nil
		}
		var n int
		_, err := tx.Query(ctx, 1, `SELECT count(*) FROM "books" WHERE "team_id" = ? AND "code" = ?`, []any{c.Team, c.Body.Code.V},
			func(rows *sql.Rows) error { return rows.Scan(&n) })
		if err != nil {
			return err
		}
		if n >= 2 {
			return engine.RuleFailed("a code is given to two books at most", "code")
		}
		return nil
	})
	r.Books.AfterCommit(func(ctx context.Context, e engine.Committed) {
		Seen.Lock()
		defer Seen.Unlock()
		Seen.Events = append(Seen.Events, e)
	})
	routes.Read("GET", "/v1/books/:id/label", "Book label", func(c *gin.Context) {
		c.JSON(http.StatusOK, gin.H{"label": strings.ToUpper(c.Param("id"))})
	})
	routes.Write("POST", "/v1/books/:id/stamp", "Stamp book", func(c *gin.Context) {
		if c.Param("id") == "none" {
			edge.Fail(c, problem.New(problem.NotFound, "no book has id %q", c.Param("id")))
			return
		}
		c.JSON(http.StatusOK, gin.H{"stamped": c.Param("id")})
	})
}
