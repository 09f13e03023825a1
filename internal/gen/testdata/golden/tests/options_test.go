package server_test

// The golden test copies this file, with the service's harness, into the
// golden module, where Book is a test-only resource whose members carry
// every option of ent's fields the API honours (DESIGN §14). It runs there
// on SQLite and PostgreSQL: each option on each write route.

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"records/internal/dbtest"
)

// isbns makes each book's ISBN, so that books differ in their unique member.
var isbns atomic.Int64

// book is a valid Book body, with the members given replacing its own.
func book(id string, members ...string) string {
	m := map[string]string{"isbn": fmt.Sprintf(`"978%010d"`, isbns.Add(1)), "code": `"QA76.73"`}
	if id != "" {
		m["id"] = fmt.Sprintf("%q", id)
	}
	for i := 0; i+1 < len(members); i += 2 {
		m[members[i]] = members[i+1]
	}
	var parts []string
	for _, k := range []string{"id", "isbn", "code", "title", "status", "pages", "price", "note", "shelf_id"} {
		if v, ok := m[k]; ok && v != "-" {
			parts = append(parts, fmt.Sprintf("%q:%s", k, v))
		}
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// count is how many books the team has.
func (h *harness) books() int {
	h.t.Helper()
	return len(h.call("GET", "/v1/books?limit=1000", "").want(http.StatusOK).list("books"))
}

// A value that breaks a member's rule is refused on every route that
// writes it, naming the member, and nothing is written.
func TestSchemaOptionsRefuseBadValues(t *testing.T) {
	bad := []struct {
		member, value, says string
	}{
		{"isbn", `"978-0306406157"`, "must match the pattern ^[0-9]{13}$"},
		{"isbn", `null`, "is required"},
		{"code", `""`, "must be at least 1 character long"},
		{"code", `"ABCDEFGHIJKLM"`, "must be at most 12 characters long (it has 13)"},
		{"status", `"lost"`, `must be one of \"draft\", \"published\", \"withdrawn\"`},
		{"status", `null`, "is required"},
		{"pages", `0`, "must be at least 1"},
		{"pages", `10001`, "must be at most 10000"},
		{"price", `-0.5`, "must be at least 0"},
		{"note", `"x"`, "must be at least 2 characters long"},
	}
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/books", book("b-1")).want(http.StatusCreated)
		for _, b := range bad {
			routes := []struct{ method, path, body, member string }{
				{"POST", "/v1/books", book("", b.member, b.value), b.member},
				{"POST", "/v1/books", "[" + book("") + "," + book("", b.member, b.value) + "]", "[1]." + b.member},
				{"PATCH", "/v1/books/b-1", fmt.Sprintf(`{%q:%s}`, b.member, b.value), b.member},
				{"PUT", "/v1/catalogue/b-1", book("", b.member, b.value), b.member},
				{"PUT", "/v1/catalogue/b-new", book("", b.member, b.value), b.member},
				{"GET", "/v1/book", book("", b.member, b.value), b.member},
				{"PUT", "/v1/shelves/s-new", `{"books":[` + book("", b.member, b.value) + `]}`, "books[0]." + b.member},
			}
			for _, r := range routes {
				before := h.books()
				got := h.call(r.method, r.path, r.body)
				got.problem(http.StatusBadRequest, "invalid_request", r.member).mentions(b.says)
				if after := h.books(); after != before {
					t.Fatalf("%s %s with %s=%s wrote %d books", r.method, r.path, b.member, b.value, after-before)
				}
			}
		}
		// Every member at fault is named, not only the first.
		h.call("POST", "/v1/books", `{"isbn":"x","code":"","pages":0,"status":"lost"}`).
			problem(http.StatusBadRequest, "invalid_request", "isbn", "code", "pages", "status")
	})
}

// A create gives every required member no default fills; an update need not.
func TestSchemaOptionsRequired(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/books", `{"title":"Untitled"}`).problem(http.StatusBadRequest, "invalid_request", "isbn", "code")
		h.call("POST", "/v1/books", "["+book("")+`,{"isbn":"9780306406157"}]`).problem(http.StatusBadRequest, "invalid_request", "[1].code")
		h.call("GET", "/v1/book", `{"code":"X"}`).problem(http.StatusBadRequest, "invalid_request", "isbn")
		h.call("PUT", "/v1/catalogue/b-1", `{"code":"X"}`).problem(http.StatusBadRequest, "invalid_request", "isbn")
		h.call("PUT", "/v1/shelves/s-1", `{"books":[{"code":"X"}]}`).problem(http.StatusBadRequest, "invalid_request", "books[0].isbn")
		h.call("GET", "/v1/shelves/s-1", "").want(http.StatusNotFound)
		if n := h.books(); n != 0 {
			t.Fatalf("refused creates wrote %d books", n)
		}
		h.call("POST", "/v1/books", book("b-1")).want(http.StatusCreated)
		// An update leaves out what it does not change, required or not.
		h.call("PATCH", "/v1/books/b-1", `{"title":"Dune"}`).want(http.StatusOK)
		h.call("PUT", "/v1/catalogue/b-1", `{"title":"Dune Messiah"}`).want(http.StatusOK)
		if got := h.call("GET", "/v1/books/b-1", "").want(http.StatusOK).at("title"); got != "Dune Messiah" {
			t.Fatalf("title %v", got)
		}
		// Embedded books name their shelf by being embedded.
		h.call("PUT", "/v1/shelves/s-1", `{"books":[`+book("b-2")+`]}`).want(http.StatusCreated)
	})
}

// A create that leaves out a member with a default gets the default.
func TestSchemaOptionsDefault(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		if got := h.call("POST", "/v1/books", book("b-1")).want(http.StatusCreated).at("status"); got != "draft" {
			t.Fatalf("create: status %v, want the default draft", got)
		}
		if got := h.call("PUT", "/v1/catalogue/b-2", book("")).want(http.StatusCreated).at("status"); got != "draft" {
			t.Fatalf("upsert creating: status %v", got)
		}
		h.call("PATCH", "/v1/books/b-1", `{"status":"withdrawn"}`).want(http.StatusOK)
		// An update leaving it out keeps what the record has.
		if got := h.call("PUT", "/v1/catalogue/b-1", `{"title":"T"}`).want(http.StatusOK).at("status"); got != "withdrawn" {
			t.Fatalf("upsert updating: status %v", got)
		}
		if got := h.call("POST", "/v1/books/b-1/publish", "").want(http.StatusOK).at("published"); got != true {
			t.Fatalf("action: %v", got)
		}
		if got := h.call("GET", "/v1/books/b-1", "").want(http.StatusOK).at("status"); got != "published" {
			t.Fatalf("after the action: status %v", got)
		}
	})
}

// An immutable member is set on create, then fixed: the same value passes,
// another is refused, nothing written.
func TestSchemaOptionsImmutable(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/books", book("b-1")).want(http.StatusCreated)
		h.call("PATCH", "/v1/books/b-1", `{"code":"QA76.73","title":"Same code"}`).want(http.StatusOK)
		h.call("PUT", "/v1/catalogue/b-1", `{"code":"QA76.73"}`).want(http.StatusOK)
		for _, r := range []struct{ method, path string }{{"PATCH", "/v1/books/b-1"}, {"PUT", "/v1/catalogue/b-1"}} {
			h.call(r.method, r.path, `{"code":"QA99","title":"Other code"}`).
				problem(http.StatusBadRequest, "invalid_request", "code").mentions("set on create, then fixed")
		}
		got := h.call("GET", "/v1/books/b-1", "").want(http.StatusOK)
		if got.at("code") != "QA76.73" || got.at("title") != "Same code" || got.at("version").(interface{ String() string }).String() != "3" {
			t.Fatalf("a refused change wrote: %s", got.Body)
		}
		// With If-Match too, and on a record of another team: 404, not 400.
		h.call("PATCH", "/v1/books/b-1", `{"code":"QA99"}`, "If-Match", `"3"`).problem(http.StatusBadRequest, "invalid_request", "code")
		h.call("PATCH", "/v1/books/b-none", `{"code":"QA99"}`).want(http.StatusNotFound)
	})
}

// A sensitive member is written and never answered: not in records, lists,
// exports, events, histories or webhooks; lists know no such member.
func TestSchemaOptionsSensitive(t *testing.T) {
	const secret = "shelved-behind-the-desk"
	each(t, func(t *testing.T, h *harness) {
		var answers [][]byte
		add := func(r *response) { answers = append(answers, r.Body) }
		add(h.call("POST", "/v1/books", book("b-1", "note", `"`+secret+`"`)).want(http.StatusCreated))
		add(h.call("PATCH", "/v1/books/b-1", `{"note":"`+secret+`-2"}`).want(http.StatusOK))
		add(h.call("PUT", "/v1/catalogue/b-1", `{"note":"`+secret+`-3"}`).want(http.StatusOK))
		add(h.call("GET", "/v1/books/b-1", "").want(http.StatusOK))
		add(h.call("GET", "/v1/books", "").want(http.StatusOK))
		h.unchecked = true // exports are outside the document's JSON
		add(h.call("GET", "/v1/books", "", "Accept", "application/x-ndjson").want(http.StatusOK))
		add(h.call("GET", "/v1/books", "", "Accept", "text/csv").want(http.StatusOK))
		h.unchecked = false
		add(h.call("GET", "/v1/books/b-1/history", "").want(http.StatusOK))
		add(h.call("GET", "/v1/events", "").want(http.StatusOK))
		for _, a := range answers {
			if strings.Contains(string(a), secret) || strings.Contains(string(a), `"note"`) {
				t.Fatalf("a sensitive member was answered: %s", a)
			}
		}
		var images int
		err := h.db.SQL.QueryRow(`SELECT COUNT(*) FROM "events" WHERE "image" LIKE '%` + secret + `%'`).Scan(&images)
		if err != nil || images != 0 {
			t.Fatalf("events keep the sensitive member in %d images (%v)", images, err)
		}
		var stored string
		if err := h.db.SQL.QueryRow(`SELECT "note" FROM "books" WHERE "id" = 'b-1'`).Scan(&stored); err != nil || stored != secret+"-3" {
			t.Fatalf("the sensitive member was not written: %q %v", stored, err)
		}
		h.call("GET", "/v1/books?filter[note]=x", "").problem(http.StatusBadRequest, "invalid_request", "filter.note")
		h.call("GET", "/v1/books?fields=note", "").problem(http.StatusBadRequest, "invalid_request", "fields")
		h.call("GET", "/v1/books?order_by=note", "").problem(http.StatusBadRequest, "invalid_request", "order_by")
	})
}

// A unique member's taken value is a conflict naming it.
func TestSchemaOptionsUnique(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/books", book("b-1", "isbn", `"9780306406157"`)).want(http.StatusCreated)
		h.call("POST", "/v1/books", book("b-2", "isbn", `"9780306406157"`)).problem(http.StatusConflict, "conflict", "isbn")
		h.call("PUT", "/v1/catalogue/b-3", book("", "isbn", `"9780306406157"`)).problem(http.StatusConflict, "conflict", "isbn")
		h.call("POST", "/v1/books", book("b-2", "isbn", `"9780306406158"`)).want(http.StatusCreated)
		h.call("PATCH", "/v1/books/b-2", `{"isbn":"9780306406157"}`).problem(http.StatusConflict, "conflict", "isbn")
	})
}

// Lengths count characters, not bytes.
func TestSchemaOptionsCountCharacters(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/books", book("b-1", "code", `"ÄÖÜäöüßéèêëïî"`)).problem(http.StatusBadRequest, "invalid_request", "code")
		h.call("POST", "/v1/books", book("b-1", "code", `"ÄÖÜäöüßéèêëï"`)).want(http.StatusCreated) // 12 characters, 24 bytes
	})
}

// Nor do webhooks deliver a sensitive member, nor the log write it.
func TestSchemaOptionsSensitiveDeliveries(t *testing.T) {
	const secret = "kept-in-the-back-office"
	cfg := testConfig()
	cfg.Webhooks.AllowPrivate = true
	cfg.Webhooks.Poll = 20 * time.Millisecond
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var bodies []string
			rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				mu.Lock()
				bodies = append(bodies, string(b))
				mu.Unlock()
			}))
			t.Cleanup(rcv.Close)
			h := newHarness(t, d, cfg)
			h.srv.Start()
			t.Cleanup(func() { h.srv.Close() })
			h.call("POST", "/v1/webhooks", `{"url":"`+rcv.URL+`","events":["books.created","books.updated"]}`).want(http.StatusCreated)
			h.call("POST", "/v1/books", book("b-1", "note", `"`+secret+`"`)).want(http.StatusCreated)
			h.call("PATCH", "/v1/books/b-1", `{"note":"`+secret+`"}`).want(http.StatusOK)
			deadline := time.Now().Add(30 * time.Second)
			for {
				mu.Lock()
				n, all := len(bodies), strings.Join(bodies, "\n")
				mu.Unlock()
				if strings.Contains(all, secret) || strings.Contains(all, `"note"`) {
					t.Fatalf("a delivery holds the sensitive member: %s", all)
				}
				if n >= 2 && strings.Contains(all, "books.updated") {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%d deliveries within 30 s: %s", n, all)
				}
				time.Sleep(50 * time.Millisecond)
			}
			if strings.Contains(h.logs.String(), secret) {
				t.Fatalf("the log holds the sensitive member")
			}
		})
	}
}
