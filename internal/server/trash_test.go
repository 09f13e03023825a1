package server_test

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"records/internal/auth"
	"records/internal/dbtest"
)

// trashedRead reads a record answered with trashed=include (the read of
// GET /v1/users/:id is a list).
func trashedRead(plural string, r *response) map[string]any {
	return read(plural, r).(map[string]any)
}

// eventTypes are the types of a record's history, oldest first.
func eventTypes(h *harness, plural, id string) []string {
	var out []string
	for _, e := range h.call("GET", "/v1/"+plural+"/"+id+"/history", "").want(200).list("events") {
		out = append(out, e.(map[string]any)["type"].(string))
	}
	return out
}

func TestTrashRestorePurgeEveryResource(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		for plural, resource := range plurals {
			base := "/v1/" + plural
			id := "trash-" + plural
			h.call("POST", base, `{"id":"`+id+`"}`).want(201)
			h.call("DELETE", base+"/"+id, "").want(200)
			// Answered as a missing one.
			if plural == "users" {
				if got := h.call("GET", base+"/"+id, "").want(200).list("users"); len(got) != 0 {
					t.Fatalf("%s: a trashed record is listed: %v", plural, got)
				}
			} else {
				h.call("GET", base+"/"+id, "").problem(404, "not_found")
			}
			h.call("PATCH", base+"/"+id, "{}").problem(404, "not_found")
			h.call("DELETE", base+"/"+id, "").problem(404, "not_found")
			for _, rec := range listed(plural, h.call("GET", base, "").want(200)) {
				if rec.(map[string]any)["id"] == id {
					t.Fatalf("%s: a trashed record is listed", plural)
				}
			}
			// Its id stays taken.
			h.call("POST", base, `{"id":"`+id+`"}`).problem(409, "conflict", "id")
			// The trash shows it, with when and by whom.
			rec := trashedRead(plural, h.call("GET", base+"/"+id+"?trashed=include", "").want(200))
			if rec["deleted_at"] == nil || fmt.Sprint(rec["version"]) != "2" {
				t.Fatalf("%s: the trashed record: %v", plural, rec)
			}
			only := listed(plural, h.call("GET", base+"?trashed=only", "").want(200))
			if len(only) != 1 || only[0].(map[string]any)["id"] != id || only[0].(map[string]any)["deleted_at"] == nil {
				t.Fatalf("%s: the trash lists %v", plural, only)
			}
			// Restore: the record at its next version, answered as before.
			r := h.call("POST", base+"/"+id+"/restore", "", "If-Match", `"1"`).problem(412, "precondition_failed")
			r = h.call("POST", base+"/"+id+"/restore", "", "If-Match", `"2"`).want(200)
			if etag := r.Header.Get("ETag"); fmt.Sprint(isRecord(t, resource, r.JSON)["version"]) != "3" || etag != `"3"` && !strings.HasPrefix(etag, `"3-`) {
				t.Fatalf("%s: restored: %s", plural, r.Body)
			}
			isRecord(t, resource, read(plural, h.call("GET", base+"/"+id, "").want(200)))
			h.call("POST", base+"/"+id+"/restore", "").problem(404, "not_found")
			// Purge, from the trash or not: gone for good.
			h.call("DELETE", base+"/"+id+"?permanent=maybe", "").problem(400, "invalid_request", "permanent")
			h.call("DELETE", base+"/"+id+"?permanent=true", "").want(200)
			h.call("POST", base+"/"+id+"/restore", "").problem(404, "not_found")
			if plural != "users" {
				h.call("GET", base+"/"+id+"?trashed=include", "").problem(404, "not_found")
			}
			want := []string{"created", "deleted", "restored", "purged"}
			got := eventTypes(h, plural, id)
			for i := range got {
				got[i] = strings.TrimPrefix(got[i], plural+".")
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s: history %v, want %v", plural, got, want)
			}
		}
	})
}

func TestTrashCascadesWithChildren(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/warranties", `{"id":"w1"}`).want(201)
		for _, li := range []string{"l1", "l2"} {
			h.call("POST", "/v1/warranty_line_items", `{"id":"`+li+`","warranty_id":"w1"}`).want(201)
		}
		// A child trashed alone keeps its own batch.
		h.call("POST", "/v1/warranty_line_items", `{"id":"l3","warranty_id":"w1"}`).want(201)
		h.call("DELETE", "/v1/warranty_line_items/l3", "").want(200)

		h.call("DELETE", "/v1/warranties/w1", "").want(200)
		for _, li := range []string{"l1", "l2", "l3"} {
			h.call("GET", "/v1/warranty_line_items/"+li, "").problem(404, "not_found")
		}
		if n := len(h.call("GET", "/v1/warranty_line_items?trashed=only", "").want(200).list("warranty_line_items")); n != 3 {
			t.Fatalf("%d line items in the trash, want 3", n)
		}
		// No new child of a parent in the trash.
		h.call("POST", "/v1/warranty_line_items", `{"warranty_id":"w1"}`).problem(400, "invalid_request", "warranty_id")
		// A child alone cannot come back while its parent stays in the trash.
		h.call("POST", "/v1/warranty_line_items/l3/restore", "").problem(409, "conflict", "warranty_id")
		// Restoring a child of the batch brings back its parent and siblings.
		h.call("POST", "/v1/warranty_line_items/l1/restore", "").want(200)
		h.call("GET", "/v1/warranties/w1", "").want(200)
		h.call("GET", "/v1/warranty_line_items/l2", "").want(200)
		h.call("GET", "/v1/warranty_line_items/l3", "").problem(404, "not_found")
		items := h.call("GET", "/v1/warranties/w1?expand=warranty_line_items", "").want(200).list("expand", "warranty_line_items")
		if len(items) != 2 {
			t.Fatalf("expand answers %d line items, want the 2 not in the trash", len(items))
		}
		h.call("POST", "/v1/warranty_line_items/l3/restore", "").want(200)

		// A delete by parent (Delete Channel Thread by case_id) is one batch.
		h.call("POST", "/v1/cases", `{"id":"c1"}`).want(201)
		h.call("POST", "/v1/channel_threads", `{"id":"t1","case_id":"c1"}`).want(201)
		h.call("POST", "/v1/channel_threads", `{"id":"t2","case_id":"c1"}`).want(201)
		h.call("DELETE", "/v1/channel_thread", `{"case_id":"c1"}`).want(200)
		h.call("GET", "/v1/channel_threads/t2", "").problem(404, "not_found")
		h.call("POST", "/v1/channel_threads/t1/restore", "").want(200)
		h.call("GET", "/v1/channel_threads/t2", "").want(200)

		// A purge erases the children, in the trash or not.
		h.call("DELETE", "/v1/warranty_line_items/l3", "").want(200)
		h.call("DELETE", "/v1/warranties/w1?permanent=true", "").want(200)
		for _, li := range []string{"l1", "l2", "l3"} {
			h.call("GET", "/v1/warranty_line_items/"+li+"?trashed=include", "").problem(404, "not_found")
			if got := eventTypes(h, "warranty_line_items", li); got[len(got)-1] != "warranty_line_items.purged" {
				t.Fatalf("%s: history %v ends without its purge", li, got)
			}
		}
	})
}

func TestRestoreRefusesATakenUniqueValue(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/users", `{"id":"u1","username":"ann"}`).want(201)
		h.call("POST", "/v1/users", `{"id":"u2","username":"ann"}`).problem(409, "conflict", "username")
		h.call("DELETE", "/v1/users/u1", "").want(200)
		// The trashed record's username is free again.
		h.call("POST", "/v1/users", `{"id":"u2","username":"ann"}`).want(201)
		h.call("POST", "/v1/users/u1/restore", "").problem(409, "conflict", "username")
		// Nothing restored.
		if got := h.call("GET", "/v1/users?trashed=only", "").want(200).list("users"); len(got) != 1 {
			t.Fatalf("the trash holds %d users, want u1", len(got))
		}
		h.call("PATCH", "/v1/users/u2", `{"username":"bob"}`).want(200)
		r := h.call("POST", "/v1/users/u1/restore", "").want(200)
		if r.obj()["username"] != "ann" {
			t.Fatalf("restored %s", r.Body)
		}
	})
}

func TestRevertToEveryEarlierVersion(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/vendors", `{"id":"v1","vendorName":"v-1"}`).want(201)
		for i := 2; i <= 6; i++ { // changed five times: versions 2 to 6
			h.call("PATCH", "/v1/vendors/v1", fmt.Sprintf(`{"vendorName":"v-%d","vendorNotes":"s-%d"}`, i, i)).want(200)
		}
		version := 6
		for n := 1; n <= 5; n++ {
			r := h.call("POST", "/v1/vendors/v1/revert", fmt.Sprintf(`{"version":%d}`, n), "If-Match", fmt.Sprintf(`"%d"`, version)).want(200)
			version++
			got := r.obj()
			wantStatus := any(fmt.Sprintf("s-%d", n))
			if n == 1 {
				wantStatus = nil
			}
			if got["vendorName"] != fmt.Sprintf("v-%d", n) || got["vendorNotes"] != wantStatus || fmt.Sprint(got["version"]) != fmt.Sprint(version) {
				t.Fatalf("revert to %d: %s", n, r.Body)
			}
			events := h.call("GET", "/v1/vendors/v1/history?limit=1000", "").want(200).list("events")
			last := events[len(events)-1].(map[string]any)
			if last["type"] != "vendors.updated" || fmt.Sprint(last["reverted_from"]) != fmt.Sprint(n) {
				t.Fatalf("the revert's event: %v", last)
			}
		}
		h.call("POST", "/v1/vendors/v1/revert", `{"version":1}`, "If-Match", `"3"`).problem(412, "precondition_failed")
		h.call("POST", "/v1/vendors/v1/revert", `{"version":99}`).problem(409, "version_unavailable")
		h.call("POST", "/v1/vendors/v1/revert", `{"version":0}`).problem(400, "invalid_request", "version")
		h.call("POST", "/v1/vendors/v1/revert", `{}`).problem(400, "invalid_request", "version")
		h.call("POST", "/v1/vendors/v1/revert", `{"version":1,"vendorName":"x"}`).problem(400, "invalid_request", "vendorName")
		h.call("POST", "/v1/vendors/nope/revert", `{"version":1}`).problem(404, "not_found")
		// Once a version's event is gone (past the events' retention), that
		// version is unavailable.
		if _, err := h.db.SQL.Exec(`DELETE FROM "events" WHERE "record_id" = 'v1' AND "type" = 'vendors.created'`); err != nil {
			t.Fatal(err)
		}
		h.call("POST", "/v1/vendors/v1/revert", `{"version":1}`).problem(409, "version_unavailable")
		h.call("POST", "/v1/vendors/v1/revert", `{"version":2}`).want(200)
	})
}

// A revert names its parents as an update does: one in the trash (which
// the janitor would erase with the live child) or erased since is a 400
// naming the member, and nothing is written.
func TestRevertRefusesAParentGone(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/warranties", `[{"id":"w10"},{"id":"w11"},{"id":"w12"}]`).want(201)
		h.call("POST", "/v1/warranty_line_items", `[{"id":"wl10","warranty_id":"w10","sku":"kept"},{"id":"wl12","warranty_id":"w12"}]`).want(201)
		h.call("PATCH", "/v1/warranty_line_items/wl10", `{"warranty_id":"w11"}`).want(200)
		h.call("PATCH", "/v1/warranty_line_items/wl12", `{"warranty_id":"w11"}`).want(200)
		h.call("DELETE", "/v1/warranties/w10", "").want(200)
		h.call("DELETE", "/v1/warranties/w12?permanent=true", "").want(200)
		h.call("POST", "/v1/warranty_line_items/wl10/revert", `{"version":1}`).problem(400, "invalid_request", "warranty_id")
		h.call("POST", "/v1/warranty_line_items/wl12/revert", `{"version":1}`).problem(400, "invalid_request", "warranty_id")
		for _, id := range []string{"wl10", "wl12"} {
			h.call("GET", "/v1/warranty_line_items/"+id, "").want(200).mentions(`"version":2`, `"warranty_id":"w11"`)
		}
		// Back out of the trash, the parent may be named again.
		h.call("POST", "/v1/warranties/w10/restore", "").want(200)
		h.call("POST", "/v1/warranty_line_items/wl10/revert", `{"version":1}`).want(200).mentions(`"warranty_id":"w10"`)
	})
}

// A revert is a change of now: it writes the update stamps an update
// writes, not those of the version it goes back to; a restore too.
func TestRevertStampsItsTime(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/warranties", `{"id":"ws"}`).want(201)
		h.call("POST", "/v1/warranty_line_items", `{"id":"wls","warranty_id":"ws","sku":"a","updated_at":"2020-01-01T00:00:00Z"}`).want(201)
		h.call("PATCH", "/v1/warranty_line_items/wls", `{"sku":"b"}`).want(200)
		r := h.call("POST", "/v1/warranty_line_items/wls/revert", `{"version":1}`).want(200)
		if got := r.obj(); got["sku"] != "a" || strings.HasPrefix(fmt.Sprint(got["updated_at"]), "2020") {
			t.Fatalf("a revert's update stamp: %s", r.Body)
		}
		// So does a restore, of every record of its batch.
		h.call("POST", "/v1/warranty_line_items", `{"id":"wlr","warranty_id":"ws","updated_at":"2020-01-01T00:00:00Z"}`).want(201)
		h.call("DELETE", "/v1/warranties/ws", "").want(200)
		h.call("POST", "/v1/warranties/ws/restore", "").want(200)
		if got := h.call("GET", "/v1/warranty_line_items/wlr", "").want(200).obj(); strings.HasPrefix(fmt.Sprint(got["updated_at"]), "2020") {
			t.Fatalf("a restore's update stamp: %v", got)
		}
	})
}

// A record erased for good and made again with its id has only its own
// versions: a revert never brings back the erased record's members.
func TestRevertStopsAtAPurge(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("POST", "/v1/vendors", `{"id":"v2","vendorName":"erased"}`).want(201)
		h.call("PATCH", "/v1/vendors/v2", `{"vendorName":"erased too"}`).want(200)
		h.call("DELETE", "/v1/vendors/v2?permanent=true", "").want(200)
		h.call("POST", "/v1/vendors", `{"id":"v2","vendorName":"new"}`).want(201)
		h.call("POST", "/v1/vendors/v2/revert", `{"version":2}`).problem(409, "version_unavailable")
		r := h.call("POST", "/v1/vendors/v2/revert", `{"version":1}`).want(200)
		if got := r.obj(); got["vendorName"] != "new" || fmt.Sprint(got["version"]) != "2" {
			t.Fatalf("a revert across a purge: %s", r.Body)
		}
	})
}

// Restores of one batch racing, through one server or two on one
// database, restore it once: one answers 200, the others 404 (412 under
// If-Match), never a 200 that restored nothing or a deadlock's 503.
func TestRacingRestoresRestoreOnce(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		servers := racingServers(t, h)
		for round := 0; round < 6; round++ {
			w, item := fmt.Sprintf("rw-%d", round), fmt.Sprintf("rw-%d-a", round)
			h.call("POST", "/v1/warranties", `{"id":"`+w+`"}`).want(201)
			h.call("POST", "/v1/warranty_line_items", `[{"id":"`+item+`","warranty_id":"`+w+`"},{"warranty_id":"`+w+`"}]`).want(201)
			h.call("DELETE", "/v1/warranties/"+w, "").want(200)
			var mu sync.Mutex
			statuses := map[int]int{}
			race(4, func(i int) {
				path, headers := "/v1/warranties/"+w+"/restore", []string{}
				switch i % 4 {
				case 1:
					path = "/v1/warranty_line_items/" + item + "/restore"
				case 2:
					headers = []string{"If-Match", `"2"`}
				}
				code, _, b := send(t, servers[i%len(servers)], h.token, "POST", path, "", headers...)
				mu.Lock()
				defer mu.Unlock()
				statuses[code]++
				if code != 200 && code != 404 && code != 412 {
					t.Errorf("round %d, racer %d: %d %s", round, i, code, b)
				}
			})
			if statuses[200] != 1 {
				t.Fatalf("round %d: %v, want one 200", round, statuses)
			}
			if n := len(eventTypes(h, "warranties", w)); n != 3 {
				t.Fatalf("round %d: %d events of the warranty, want created, deleted, restored", round, n)
			}
		}
	})
}

// trashPolicies grant delete to a janitor role, delete and restore to a
// keeper (restore within a filter).
const trashPolicies = `roles:
  remover:
    customers:
      read: {}
      delete: {}
  keeper:
    customers:
      read: {}
      delete: {}
      restore: {filter: {firstName: {prefix: keep}}}
  editor:
    customers:
      read: {}
      update: {members: [lastName]}
`

func TestTrashByRole(t *testing.T) {
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			h := newRolesHarness(t, d, trashPolicies)
			remover := h.roleToken("remover", "r", auth.Write)
			keeper := h.roleToken("keeper", "k", auth.Write)
			for _, id := range []string{"keep-1", "other-1", "purge-1"} {
				h.call("POST", "/v1/customers", `{"id":"`+id+`","firstName":"`+id+`"}`).want(201)
			}
			// delete trashes; the trash and restores need restore.
			h.callAs(remover, "DELETE", "/v1/customers/keep-1", "").want(200)
			h.callAs(remover, "DELETE", "/v1/customers/other-1", "").want(200)
			h.callAs(remover, "GET", "/v1/customers?trashed=only", "").problem(403, "permission_denied")
			h.callAs(remover, "GET", "/v1/customers/keep-1?trashed=include", "").problem(403, "permission_denied")
			h.callAs(remover, "POST", "/v1/customers/keep-1/restore", "").problem(403, "permission_denied")
			// Only admin purges.
			h.callAs(remover, "DELETE", "/v1/customers/purge-1?permanent=true", "").problem(403, "permission_denied")
			h.callAs(keeper, "DELETE", "/v1/customers/purge-1?permanent=true", "").problem(403, "permission_denied")
			h.call("GET", "/v1/customers/purge-1", "").want(200)
			// restore's filter narrows what the keeper sees of the trash
			// and what it restores.
			if got := h.callAs(keeper, "GET", "/v1/customers?trashed=only", "").want(200).list("customers"); len(got) != 1 {
				t.Fatalf("the keeper sees %d records of the trash, want keep-1", len(got))
			}
			h.callAs(keeper, "POST", "/v1/customers/other-1/restore", "").problem(404, "not_found")
			h.callAs(keeper, "POST", "/v1/customers/keep-1/restore", "").want(200)
			h.call("POST", "/v1/customers/other-1/restore", "").want(200)
			h.call("DELETE", "/v1/customers/purge-1?permanent=true", "").want(200)
			// A role's revert writes back only the members it may write.
			editor := h.roleToken("editor", "e", auth.Write)
			h.call("PATCH", "/v1/customers/keep-1", `{"firstName":"keep-2","lastName":"Two"}`).want(200)
			h.callAs(remover, "POST", "/v1/customers/keep-1/revert", `{"version":1}`).problem(403, "permission_denied")
			r := h.callAs(editor, "POST", "/v1/customers/keep-1/revert", `{"version":1}`).want(200).obj()
			if r["firstName"] != "keep-2" || r["lastName"] != nil {
				t.Fatalf("the editor's revert wrote %v", r)
			}
		})
	}
}
