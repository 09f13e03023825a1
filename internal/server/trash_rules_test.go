package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"records/internal/auth"
	"records/internal/dbtest"
	"records/internal/engine"
	"records/internal/resources"
)

// heard are the events after-commit rules received, as "type id".
type heard struct {
	sync.Mutex
	events []string
}

func (h *heard) add(_ context.Context, e engine.Committed) {
	h.Lock()
	defer h.Unlock()
	h.events = append(h.events, e.Type+" "+e.RecordID)
}

// await waits until the rules heard want (in any order, each once), or
// fails the test.
func (h *heard) await(t *testing.T, want ...string) {
	t.Helper()
	slices.Sort(want)
	deadline := time.Now().Add(10 * time.Second)
	for {
		h.Lock()
		got := slices.Sorted(slices.Values(h.events))
		h.Unlock()
		if slices.Equal(got, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after-commit rules heard %v, want %v", got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// After-commit rules hear a restore and a purge as they hear a create, an
// update or a delete: the restore of the record asked for (not the rest of
// its batch), a permanent delete's purge, and each purge of the janitor —
// not the children a purge erases with their parent.
func TestAfterCommitHearsRestoreAndPurge(t *testing.T) {
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			s, database := trashServer(t, d)
			var h heard
			rules := resources.NewRules()
			rules.Customers.AfterCommit(h.add)
			rules.Warranties.AfterCommit(h.add)
			rules.WarrantyLineItems.AfterCommit(h.add)
			rules.Install(s.records)
			ctx := context.Background()
			_, token, err := auth.NewStore(database, 0).Create(ctx, "admin", auth.Write, "", 0)
			if err != nil {
				t.Fatal(err)
			}
			call := func(method, path, body string, want int) {
				t.Helper()
				req := httptest.NewRequest(method, path, strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+token)
				if body != "" {
					req.Header.Set("Content-Type", "application/json")
				}
				w := httptest.NewRecorder()
				s.Handler().ServeHTTP(w, req)
				if w.Code != want {
					t.Fatalf("%s %s: %d, want %d: %s", method, path, w.Code, want, w.Body)
				}
			}
			call("POST", "/v1/customers", `{"id":"c-1"}`, http.StatusCreated)
			call("DELETE", "/v1/customers/c-1", "", http.StatusOK)
			call("POST", "/v1/customers/c-1/restore", "", http.StatusOK)
			call("DELETE", "/v1/customers/c-1?permanent=true", "", http.StatusOK)
			h.await(t, "customers.created c-1", "customers.deleted c-1", "customers.restored c-1", "customers.purged c-1")
			// A parent and its child trashed as one batch, restored by the
			// child; a customer trashed alone; the janitor then purges.
			h.Lock()
			h.events = nil
			h.Unlock()
			call("POST", "/v1/warranties", `{"id":"w-1"}`, http.StatusCreated)
			call("POST", "/v1/warranty_line_items", `{"id":"l-1","warranty_id":"w-1"}`, http.StatusCreated)
			call("POST", "/v1/customers", `{"id":"c-2"}`, http.StatusCreated)
			call("DELETE", "/v1/warranties/w-1", "", http.StatusOK)
			call("POST", "/v1/warranty_line_items/l-1/restore", "", http.StatusOK)
			call("DELETE", "/v1/warranties/w-1", "", http.StatusOK)
			call("DELETE", "/v1/customers/c-2", "", http.StatusOK)
			s.EmptyTrash(ctx, time.Now().Add(2*time.Hour))
			h.await(t, "warranties.created w-1", "warranty_line_items.created l-1", "customers.created c-2",
				"warranties.deleted w-1", "warranty_line_items.restored l-1", "warranties.deleted w-1",
				"customers.deleted c-2", "warranties.purged w-1", "customers.purged c-2")
		})
	}
}
