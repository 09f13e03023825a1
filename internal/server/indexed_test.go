package server_test

import (
	"math/rand"
	"strings"
	"testing"
)

// A text member the database indexes holds at most 1,000 bytes, on both
// databases: beyond, PostgreSQL's index could refuse the entry (it takes
// 2,704 bytes, and text of random letters does not compress), which was a
// 500. The bound is checked on every write, not only where it would fail.
func TestIndexedTextsAreBounded(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		rnd := rand.New(rand.NewSource(1))
		letters := func(n int) string {
			b := make([]byte, n)
			for i := range b {
				b[i] = byte('a' + rnd.Intn(26))
			}
			return string(b)
		}
		h.call("POST", "/v1/cases", `{"caseStatus":"`+letters(1000)+`"}`).want(201)
		h.call("POST", "/v1/cases", `{"caseStatus":"`+letters(3000)+`"}`).problem(400, "invalid_request", "caseStatus").mentions("1000 bytes")
		h.call("POST", "/v1/cases", `{"caseStatus":"`+strings.Repeat("é", 501)+`"}`).problem(400, "invalid_request", "caseStatus")
		h.call("POST", "/v1/users", `{"username":"`+letters(3000)+`"}`).problem(400, "invalid_request", "username")
		id := h.call("POST", "/v1/returns", `{"status":"open"}`).want(201).obj()["id"].(string)
		h.call("PATCH", "/v1/returns/"+id, `{"status":"`+letters(3000)+`"}`).problem(400, "invalid_request", "status")
		h.call("POST", "/v1/returns", `[{"status":"open"},{"status":"`+letters(3000)+`"}]`).problem(400, "invalid_request", "[1].status")
		// A text nothing indexes takes more.
		h.call("POST", "/v1/cases", `{"description":"`+letters(3000)+`"}`).want(201)
	})
}
