package server_test

// Business rules in Go (DESIGN §14), as the golden module's package rules
// (testdata/golden/rules) registers them on Book: copied into the golden
// module with the harness, run there on SQLite and PostgreSQL.

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"records/internal/auth"
	"records/rules"
)

// A validation rule answers its problem on every write route, nothing written.
func TestRulesValidate(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/books", book("b-1")).want(http.StatusCreated)
		for _, r := range []struct{ method, path, body, member string }{
			{"POST", "/v1/books", book("", "title", `"Forbidden"`), "title"},
			{"POST", "/v1/books", "[" + book("") + "," + book("", "title", `"Forbidden"`) + "]", "[1].title"},
			{"PATCH", "/v1/books/b-1", `{"title":"Forbidden"}`, "title"},
			{"PUT", "/v1/catalogue/b-1", `{"title":"Forbidden"}`, "title"},
			{"PUT", "/v1/catalogue/b-9", book("", "title", `"Forbidden"`), "title"},
			{"GET", "/v1/book", book("", "title", `"Forbidden"`), "title"},
		} {
			before := h.books()
			h.call(r.method, r.path, r.body).problem(http.StatusBadRequest, "invalid_request", r.member).mentions("is not a title this library takes")
			if h.books() != before {
				t.Fatalf("%s %s: a refused write wrote", r.method, r.path)
			}
		}
		h.call("PATCH", "/v1/books/b-1", `{"status":"published","price":1500}`).
			problem(http.StatusUnprocessableEntity, "rule_failed", "price", "status").mentions("costs at most 1000")
	})
}

// A before-write rule runs in the write's transaction: it sets members and
// reads through it; its refusal writes nothing.
func TestRulesBeforeWrite(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		got := h.call("POST", "/v1/books", book("b-1", "code", `"QA1"`)).want(http.StatusCreated)
		if got.at("title") != "Untitled QA1" {
			t.Fatalf("the rule did not set the title: %s", got.Body)
		}
		h.call("PUT", "/v1/catalogue/b-2", book("", "code", `"QA1"`, "title", `"Given"`)).want(http.StatusCreated)
		h.call("POST", "/v1/books", book("b-3", "code", `"QA1"`)).
			problem(http.StatusUnprocessableEntity, "rule_failed", "code").mentions("two books at most")
		h.call("POST", "/v1/books", "["+book("b-4", "code", `"QA2"`)+","+book("b-5", "code", `"QA1"`)+"]").
			problem(http.StatusUnprocessableEntity, "rule_failed", "[1].code")
		if n := h.books(); n != 2 {
			t.Fatalf("refused creates wrote: %d books", n)
		}
		// An update does not create: the title stays as given.
		if got := h.call("PATCH", "/v1/books/b-2", `{"price":12}`).want(http.StatusOK); got.at("title") != "Given" {
			t.Fatalf("update: %s", got.Body)
		}
	})
}

// A rule that panics is a 500 with the request id, and nothing written.
func TestRulesPanic(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		got := h.call("POST", "/v1/books", book("b-1", "title", `"panic"`))
		got.problem(http.StatusInternalServerError, "internal")
		if id := got.Header.Get("X-Request-Id"); id == "" || !strings.Contains(string(got.Body), id) {
			t.Fatalf("want the request id in the answer: %s", got.Body)
		}
		if n := h.books(); n != 0 {
			t.Fatalf("a panicking rule's write wrote %d books", n)
		}
		h.call("POST", "/v1/books", book("b-2")).want(http.StatusCreated)
	})
}

// An after-commit rule receives each committed change's event, as the
// event log answers it, once the change is committed.
func TestRulesAfterCommit(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/books", book("ac-"+h.db.Dialect)).want(http.StatusCreated)
		h.call("PATCH", "/v1/books/ac-"+h.db.Dialect, `{"price":3}`).want(http.StatusOK)
		h.call("DELETE", "/v1/books/ac-"+h.db.Dialect, "").want(http.StatusOK)
		// Each change's event, once; in no order guaranteed across changes.
		want := []string{"books.created", "books.deleted", "books.updated"}
		deadline := time.Now().Add(10 * time.Second)
		for {
			var got []string
			rules.Seen.Lock()
			for _, e := range rules.Seen.Events {
				if e.RecordID == "ac-"+h.db.Dialect {
					got = append(got, e.Type)
					var body struct {
						ID   string `json:"id"`
						Type string `json:"type"`
					}
					if err := json.Unmarshal(e.JSON, &body); err != nil || body.ID != e.ID || body.Type != e.Type || !strings.HasPrefix(e.ID, "evt_") {
						t.Errorf("the event is not as the log answers it: %s", e.JSON)
					}
				}
			}
			rules.Seen.Unlock()
			slices.Sort(got)
			if strings.Join(got, " ") == strings.Join(want, " ") {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("after-commit saw %v, want %v", got, want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}

// The rules' own routes pass the service's guards and answer its problems.
func TestRulesRoutes(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.unchecked = true // the rules' routes are not in the document
		if got := h.call("GET", "/v1/books/b-1/label", "").want(http.StatusOK).at("label"); got != "B-1" {
			t.Fatalf("label %v", got)
		}
		h.callAs("", "GET", "/v1/books/b-1/label", "").problem(http.StatusUnauthorized, "unauthenticated")
		h.call("POST", "/v1/books/b-1/stamp", "").want(http.StatusOK)
		h.call("POST", "/v1/books/none/stamp", "").problem(http.StatusNotFound, "not_found")
		reader := h.newToken("reader", auth.Read, "")
		h.callAs(reader, "GET", "/v1/books/b-1/label", "").want(http.StatusOK)
		h.callAs(reader, "POST", "/v1/books/b-1/stamp", "").problem(http.StatusForbidden, "forbidden")
	})
}
