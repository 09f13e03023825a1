package server_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"

	"records/internal/auth"
)

// tierReturns are returns whose words sit in members of each weight:
// rma (A), issue (B), description (C). Their ids disagree with their
// tiers, so that an order by id alone would show.
var tierReturns = []string{
	`{"id":"t-1","rma":"gadget","status":"open"}`,
	`{"id":"t-2","issue":"gadget","status":"closed"}`,
	`{"id":"t-3","description":"gadget","status":"open"}`,
	`{"id":"t-4","rma":"gadget","description":"gadget gadget gadget","status":"closed"}`,
	`{"id":"t-5","description":"a gadget, gadget and gadget","status":"open"}`,
	`{"id":"t-6","issue":"a gadget","description":"gadget","status":"open"}`,
	`{"id":"t-7","description":"widget","status":"open"}`,
	`{"id":"t-9","description":"gadget","status":"closed"}`,
	`{"id":"m-1","rma":"teal sprocket teal","status":"open"}`,
	`{"id":"m-2","rma":"sprocket","issue":"teal","status":"open"}`,
	`{"id":"m-3","rma":"sprocket","description":"teal","status":"open"}`,
	`{"id":"m-4","description":"teal sprocket","status":"open"}`,
	`{"id":"m-5","issue":"sprocket teal","status":"open"}`,
	`{"id":"m-6","rma":"sprocket","description":"rusty","status":"open"}`,
}

// gadgetTiers is q=gadget best match first: tier 1 (rma), tier 2
// (issue), tier 3 (description alone), each by id descending — however
// often the word occurs.
var gadgetTiers = []string{"t-4", "t-1", "t-6", "t-2", "t-9", "t-5", "t-3"}

func seedTiers(h *harness) {
	for _, body := range tierReturns {
		h.call("POST", "/v1/returns", body).want(201)
	}
}

// Best match first is the relevance tiers, the same order on both
// databases: the tier of the lightest class of members the WHOLE query
// matches within (words, phrases and exclusions alike), then the id.
func TestSearchTiersOrderTheSameOnBothDatabases(t *testing.T) {
	cases := []struct{ query, want string }{
		{"q=gadget", strings.Join(gadgetTiers, ",")},
		{"q=gadget&order_by=-_rank", strings.Join(gadgetTiers, ",")},
		{"q=gadget&order_by=_rank", "t-3,t-5,t-9,t-2,t-6,t-1,t-4"},
		// Both words in the rma; one in the issue; one in the description.
		{"q=sprocket+teal", "m-1,m-5,m-2,m-4,m-3"},
		// A phrase within one member (PostgreSQL's phrases also span two
		// members one after the other, FTS5's never: none here).
		{"q=" + url.QueryEscape(`"sprocket teal"`), "m-1,m-5"},
		// m-6 is no match (rusty is in its description), though its rma
		// alone would be: a tier is a class of the matches.
		{"q=" + url.QueryEscape("sprocket -rusty"), "m-3,m-2,m-1,m-5,m-4"},
		{"q=" + url.QueryEscape("sprocket -teal"), "m-6"},
		{"q=" + url.QueryEscape("rusty or teal"), "m-1,m-5,m-2,m-6,m-4,m-3"},
		{"q=gadget&filter[status]=closed", "t-4,t-2,t-9"},
		{"q=gadget&filter[status]=open&order_by=_rank", "t-3,t-5,t-6,t-1"},
		{"q=gadget&limit=3&offset=2", "t-6,t-2,t-9"},
		{"q=gadget&limit=3&offset=3&order_by=_rank", "t-2,t-6,t-1"},
	}
	each(t, func(t *testing.T, h *harness) {
		seedTiers(h)
		for _, c := range cases {
			r := h.call("GET", "/v1/returns?"+c.query, "").want(200)
			if got := strings.Join(idsInOrder(r, "returns"), ","); got != c.want {
				t.Errorf("%s: got %s, want %s", c.query, got, c.want)
			}
		}
	})
}

// walkSearch reads a search page after page by cursor, calling between
// each page and the next, and answers the ids in the order read.
func walkSearch(h *harness, query string, between func(page int)) []string {
	return walkAs(func(path string) *response { return h.call("GET", path, "") }, query, between)
}

// walkAs is walkSearch with each page read by get.
func walkAs(get func(path string) *response, query string, between func(page int)) []string {
	var walked []string
	cursor := ""
	for page := 0; page < 50; page++ {
		path := "/v1/returns?" + query
		if cursor != "" {
			path += "&cursor=" + url.QueryEscape(cursor)
		}
		r := get(path).want(200)
		walked = append(walked, idsInOrder(r, "returns")...)
		next, _ := r.at("paging", "next_cursor").(string)
		if next == "" {
			break
		}
		cursor = next
		between(page)
	}
	return walked
}

// A cursor walks the tiers in turn, a tier by id, in both directions:
// no record skipped or repeated, also with writes between the pages.
func TestSearchTiersWalkByCursor(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		seedTiers(h)
		for _, limit := range []string{"1", "2", "3"} {
			if got := walkSearch(h, "q=gadget&limit="+limit, func(int) {}); !slices.Equal(got, gadgetTiers) {
				t.Fatalf("limit %s: walked %v, want %v", limit, got, gadgetTiers)
			}
		}
		up := slices.Clone(gadgetTiers)
		slices.Reverse(up)
		if got := walkSearch(h, "q=gadget&order_by=_rank&limit=2", func(int) {}); !slices.Equal(got, up) {
			t.Fatalf("walked up %v, want %v", got, up)
		}
		// Between pages: a tier-1 record before the position and one
		// after it, a record not read yet deleted, the record the cursor
		// follows deleted, one added to tier 3 ahead, and an unrelated
		// record edited.
		writes := []func(){
			func() {
				h.call("POST", "/v1/returns", `{"id":"t-8","rma":"gadget","status":"open"}`).want(201)
				h.call("POST", "/v1/returns", `{"id":"t-0","rma":"gadget","status":"open"}`).want(201)
			},
			func() { h.call("DELETE", "/v1/returns/t-5", "").want(200) },
			func() {
				h.call("DELETE", "/v1/returns/t-9", "").want(200)
				h.call("POST", "/v1/returns", `{"id":"t-50","description":"gadget","status":"open"}`).want(201)
				h.call("PATCH", "/v1/returns/t-7", `{"status":"closed"}`).want(200)
			},
		}
		got := walkSearch(h, "q=gadget&limit=2", func(page int) {
			if page < len(writes) {
				writes[page]()
			}
		})
		want := []string{"t-4", "t-1", "t-0", "t-6", "t-2", "t-9", "t-50", "t-3"}
		if !slices.Equal(got, want) {
			t.Fatalf("walked with writes %v, want %v", got, want)
		}
	})
}

// tiersKeepToTheRole: a role's row filter and a list's filter hold in
// every tier (run by TestSearchAndTotalsKeepToTheRole).
func tiersKeepToTheRole(t *testing.T, h *harness) {
	seedTiers(h)
	opener := h.roleToken("opener", "ben", auth.Read)
	want := []string{"t-1", "t-6", "t-5", "t-3"}
	walked := walkAs(func(path string) *response { return h.uncheckedAs(opener, "GET", path, "") }, "q=gadget&limit=1", func(int) {})
	if !slices.Equal(walked, want) {
		t.Fatalf("the role walked %v, want %v", walked, want)
	}
	r := h.uncheckedAs(opener, "GET", "/v1/returns?q=gadget&filter[id][in]=t-3,t-4,t-6", "").want(200)
	if got := idsInOrder(r, "returns"); !slices.Equal(got, []string{"t-6", "t-3"}) {
		t.Fatalf("the role's filtered search: %v", got)
	}
}

// A cursor made when best match first was a score (its rank a number)
// is refused, naming cursor; so is an order of _rank with another key.
func TestSearchTiersRefuseAnOldCursor(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		seedTiers(h)
		r := h.call("GET", "/v1/returns?q=gadget&limit=1", "").want(200)
		cursor := r.at("paging", "next_cursor").(string)
		key, err := h.sync().DB.Key(context.Background(), "cursors", 32)
		if err != nil {
			t.Fatal(err)
		}
		payload, _, _ := strings.Cut(cursor, ".")
		raw, err := base64.RawURLEncoding.DecodeString(payload)
		if err != nil {
			t.Fatal(err)
		}
		var body map[string]any
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Fatal(err)
		}
		body["v"] = []any{0.6} // a ts_rank_cd score
		raw, _ = json.Marshal(body)
		mac := hmac.New(sha256.New, key)
		mac.Write(raw)
		old := base64.RawURLEncoding.EncodeToString(raw) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil)[:16])
		h.call("GET", "/v1/returns?q=gadget&limit=1&cursor="+url.QueryEscape(old), "").
			problem(400, "invalid_request", "cursor").mentions("start again from the first page")
		for _, order := range []string{"-_rank,status", "status,-_rank", "-_rank,id"} {
			h.call("GET", "/v1/returns?q=gadget&order_by="+url.QueryEscape(order), "").problem(400, "invalid_request", "order_by")
		}
		h.call("GET", "/v1/returns?q=gadget&order_by="+url.QueryEscape("-_rank,-id"), "").want(200)
	})
}
