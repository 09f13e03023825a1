package server_test

import (
	"context"
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"

	"records/internal/auth"
	"records/internal/dbtest"
	"records/internal/policy"
	"records/internal/server"
)

// rolesPolicies are DESIGN §15's example and a few more, for the tests.
const rolesPolicies = `roles:
  agent:
    cases:
      read:   {filter: {resolver: "$auth.sub"}, members: [id, caseName, caseStatus, priority, resolver]}
      update: {filter: {resolver: "$auth.sub"}, members: [caseStatus, priority]}
      create: {presets: {resolver: "$auth.sub"}, check: {priority: {in: [low, normal]}}}
    customers:
      read: {}
  viewer:
    "*": {read: {}}
  clerk:
    customers:
      read:   {members: [id, firstName, lastName]}
      update: {members: [lastName]}
      delete: {filter: {firstName: {prefix: temp}}}
    cases:
      read: {filter: {submitter: "$auth.team"}}
`

// newRolesHarness serves the policies given (rolesPolicies when "").
func newRolesHarness(t *testing.T, dialect, policies string) *harness {
	t.Helper()
	if policies == "" {
		policies = rolesPolicies
	}
	return newPoliciesHarness(t, dialect, testConfig(), policies)
}

// newPoliciesHarness is a harness of cfg with the roles of policies.
func newPoliciesHarness(t *testing.T, dialect string, cfg server.Config, policies string) *harness {
	t.Helper()
	p, err := policy.Parse("test-policies.yaml", []byte(policies))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Policies = p
	return newHarness(t, dialect, cfg)
}

// roleToken makes a token of the default team with a role and subject.
func (h *harness) roleToken(role, subject string, scope auth.Scope) string {
	h.t.Helper()
	_, secret, err := auth.NewStore(h.db, 0).CreateWith(context.Background(), auth.NewToken{Name: role + "-" + subject, Scope: scope, Role: role, Subject: subject})
	if err != nil {
		h.t.Fatal(err)
	}
	return secret
}

// uncheckedAs calls as callAs does, without holding the answer against the
// document: a role's records lack the members it may not read, which the
// document (describing admin's answers) requires.
func (h *harness) uncheckedAs(token, method, path, body string, headers ...string) *response {
	h.t.Helper()
	h.unchecked = true
	defer func() { h.unchecked = false }()
	return h.callAs(token, method, path, body, headers...)
}

func ids(t interface{ Helper() }, list []any) []string {
	t.Helper()
	var out []string
	for _, r := range list {
		out = append(out, r.(map[string]any)["id"].(string))
	}
	sort.Strings(out)
	return out
}

// The role × operation × ownership matrix of DESIGN's agent example: an
// agent sees, counts, exports and changes only the cases it resolves, and
// only the members its policies name; everything else is answered as §15
// says.
func TestRoleMatrix(t *testing.T) {
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			t.Parallel()
			h := newRolesHarness(t, d, "")
			h.call("POST", "/v1/cases", `[{"id":"c-alice","caseName":"A","description":"secret","priority":"normal","resolver":"alice","submitter":"sam"},
				{"id":"c-alice2","caseName":"A2","priority":"low","resolver":"alice"},
				{"id":"c-bob","caseName":"B","priority":"normal","resolver":"bob"}]`).want(201)
			h.call("POST", "/v1/channel_threads", `{"id":"th-1","case_id":"c-alice"}`).want(201)
			alice := h.roleToken("agent", "alice", auth.Write)

			agentReads(t, h, alice)
			agentWrites(t, h, alice)
			agentElsewhere(t, h, alice)
			otherRoles(t, h, alice)
		})
	}
}

// agentReads checks what the agent alice reads: lists, counts, cursors,
// exports, gets and histories of the cases it resolves only, and only the
// members its policies name.
func agentReads(t *testing.T, h *harness, alice string) {
	t.Helper()
	list := h.uncheckedAs(alice, "GET", "/v1/cases/list?count=exact", "").want(200)
	if got := ids(t, list.list("data", "case")); !slices.Equal(got, []string{"c-alice", "c-alice2"}) {
		t.Fatalf("agent's list: %v", got)
	}
	for _, r := range list.list("data", "case") {
		m := r.(map[string]any)
		if _, ok := m["description"]; ok {
			t.Fatalf("a member the role may not read is answered: %v", m)
		}
		if _, ok := m["version"]; !ok || m["caseName"] == nil {
			t.Fatalf("id, version and the readable members are answered: %v", m)
		}
	}
	generic := h.uncheckedAs(alice, "GET", "/v1/cases?count=exact&limit=1", "").want(200)
	if generic.at("paging", "total") != json.Number("2") {
		t.Fatalf("the count counts the role's records only: %s", generic.Body)
	}
	next := generic.at("paging", "next_cursor").(string)
	page2 := h.uncheckedAs(alice, "GET", "/v1/cases?limit=5&cursor="+next, "").want(200)
	if got := ids(t, page2.list("data", "case")); !slices.Equal(got, []string{"c-alice2"}) || page2.at("paging", "next_cursor") != nil {
		t.Fatalf("the cursor walks into a hidden row: %s", page2.Body)
	}
	export := h.uncheckedAs(alice, "GET", "/v1/cases", "", "Accept", "application/x-ndjson").want(200)
	if lines := strings.Split(strings.TrimSpace(string(export.Body)), "\n"); len(lines) != 2 || strings.Contains(string(export.Body), "c-bob") || strings.Contains(string(export.Body), "secret") {
		t.Fatalf("the export: %s", export.Body)
	}
	csv := h.uncheckedAs(alice, "GET", "/v1/cases", "", "Accept", "text/csv").want(200)
	if head, _, _ := strings.Cut(string(csv.Body), "\n"); strings.Contains(head, "description") || !strings.Contains(head, "resolver") {
		t.Fatalf("CSV columns: %q", head)
	}
	h.uncheckedAs(alice, "GET", "/v1/cases/c-alice", "").want(200)
	h.callAs(alice, "GET", "/v1/cases/c-bob", "").problem(404, "not_found")
	h.callAs(alice, "GET", "/v1/cases/c-alice/history", "").want(200).mentions("c-alice")
	if hist := h.uncheckedAs(alice, "GET", "/v1/cases/c-alice/history", "").want(200); strings.Contains(string(hist.Body), "secret") {
		t.Fatalf("a history answers a member the role may not read: %s", hist.Body)
	}
	h.callAs(alice, "GET", "/v1/cases/c-bob/history", "").problem(404, "not_found")
	// Members it may not read are unknown to fields, filter, order_by.
	h.callAs(alice, "GET", "/v1/cases?fields=description", "").problem(400, "invalid_request", "fields")
	h.callAs(alice, "GET", "/v1/cases?filter[description]=secret", "").problem(400, "invalid_request", "filter.description")
	h.callAs(alice, "GET", "/v1/cases?order_by=submitter", "").problem(400, "invalid_request", "order_by")
	// An edge to a resource the role may not read is unknown too.
	h.callAs(alice, "GET", "/v1/cases?expand=channel_threads", "").problem(400, "invalid_request", "expand")
}

// agentWrites checks what the agent alice writes: only the members its
// policies name, of the cases it resolves, under its checks and presets.
func agentWrites(t *testing.T, h *harness, alice string) {
	t.Helper()
	h.uncheckedAs(alice, "PATCH", "/v1/cases/c-alice", `{"caseStatus":"closed"}`).want(200)
	h.callAs(alice, "PATCH", "/v1/cases/c-alice", `{"description":"x"}`).problem(403, "permission_denied", "description")
	h.callAs(alice, "PATCH", "/v1/cases/c-bob", `{"caseStatus":"closed"}`).problem(404, "not_found")
	h.callAs(alice, "PATCH", "/v1/cases/c-bob", `{"caseStatus":"closed"}`, "If-Match", `"1"`).problem(412, "precondition_failed")
	// A write that would move the record out of the role's filter
	// is refused only by check; resolver is not writable here.
	h.callAs(alice, "PATCH", "/v1/cases/c-alice", `{"resolver":"bob"}`).problem(403, "permission_denied", "resolver")
	h.callAs(alice, "DELETE", "/v1/cases/c-alice", "").problem(403, "permission_denied")
	created := h.uncheckedAs(alice, "POST", "/v1/cases", `{"caseName":"new","priority":"low"}`).want(201)
	if r := created.obj("data", "update_cases", "returning", 0); r["resolver"] != "alice" {
		t.Fatalf("the preset: %s", created.Body)
	}
	h.callAs(alice, "POST", "/v1/cases", `{"caseName":"x","priority":"low","resolver":"bob"}`).problem(403, "permission_denied", "resolver")
	h.uncheckedAs(alice, "POST", "/v1/cases", `{"caseName":"x","priority":"low","resolver":"alice"}`).want(201)
	h.callAs(alice, "POST", "/v1/cases", `{"caseName":"urgent","priority":"high"}`).problem(403, "permission_denied", "priority")
	h.callAs(alice, "POST", "/v1/cases", `[{"caseName":"a","priority":"low"},{"caseName":"b","priority":"high"}]`).problem(403, "permission_denied", "[1].priority")
	// A bulk create is refused as one record is, naming the element: a
	// preset given another value (first, beside an element's 400).
	h.callAs(alice, "POST", "/v1/cases", `[{"caseName":"a","priority":"low"},{"caseName":"b","priority":"low","resolver":"bob"}]`).
		problem(403, "permission_denied", "[1].resolver")
	h.callAs(alice, "POST", "/v1/cases", `[{"caseName":"a","priority":"low","resolver":"bob"},{"nope":1}]`).problem(403, "permission_denied", "[0].resolver")
	if n := h.uncheckedAs(alice, "GET", "/v1/cases?count=exact", "").at("paging", "total"); n != json.Number("4") {
		t.Fatalf("a failed check wrote something: %v cases", n)
	}
	// Upsert of an existing record is an update under its filter;
	// of a new id, a create under its presets.
	h.uncheckedAs(alice, "PUT", "/v1/case", `{"id":"c-alice","caseStatus":"open"}`).want(200)
	h.callAs(alice, "PUT", "/v1/case", `{"id":"c-bob","caseStatus":"open"}`).problem(404, "not_found")
	h.uncheckedAs(alice, "PUT", "/v1/case", `{"id":"c-new","caseName":"n","priority":"normal"}`).want(201)
	h.call("GET", "/v1/cases/c-new", "").want(200).mentions(`"resolver":"alice"`)
}

// agentElsewhere checks what the agent alice may do beyond cases: other
// resources, events and webhooks; and what /v1/me answers it.
func agentElsewhere(t *testing.T, h *harness, alice string) {
	t.Helper()
	h.uncheckedAs(alice, "GET", "/v1/customers", "").want(200)
	h.callAs(alice, "POST", "/v1/customers", `{"firstName":"x"}`).problem(403, "permission_denied").mentions("agent may not create customers")
	h.callAs(alice, "GET", "/v1/returns", "").problem(403, "permission_denied")
	h.callAs(alice, "GET", "/v1/events", "").problem(403, "permission_denied")
	h.callAs(alice, "GET", "/v1/webhooks", "").problem(403, "permission_denied")
	h.callAs(alice, "POST", "/v1/webhooks", `{"url":"https://example.com"}`).problem(403, "permission_denied")

	me := h.callAs(alice, "GET", "/v1/me", "").want(200)
	if me.at("role") != "agent" || me.at("subject") != "alice" || me.at("via") != "token" || me.at("team") != "default" {
		t.Fatalf("me: %s", me.Body)
	}
	if got := me.at("can", "cases"); !slices.Equal(anyStrings(got), []string{"read", "create", "update"}) {
		t.Fatalf("me.can.cases: %v", got)
	}
	if got := me.at("can", "returns"); len(anyStrings(got)) != 0 {
		t.Fatalf("me.can.returns: %v", got)
	}
	if got := h.callAs(h.token, "GET", "/v1/me", "").want(200).at("can", "returns"); len(anyStrings(got)) != 5 {
		t.Fatalf("admin's can: %v", got)
	}
}

// otherRoles checks a read-scoped token, a viewer, an undeclared role and
// Records-Role beside the agent alice.
func otherRoles(t *testing.T, h *harness, alice string) {
	t.Helper()
	reader := h.roleToken("agent", "alice", auth.Read)
	h.callAs(reader, "PATCH", "/v1/cases/c-alice", `{"caseStatus":"x"}`).problem(403, "forbidden")
	if got := h.callAs(reader, "GET", "/v1/me", "").want(200).at("can", "cases"); !slices.Equal(anyStrings(got), []string{"read"}) {
		t.Fatalf("a read scope's can: %v", got)
	}
	// A viewer reads everything and writes nothing.
	viewer := h.roleToken("viewer", "v", auth.Write)
	if got := ids(t, h.uncheckedAs(viewer, "GET", "/v1/cases", "").want(200).list("data", "case")); len(got) != 6 {
		t.Fatalf("viewer: %v", got)
	}
	h.callAs(viewer, "PATCH", "/v1/cases/c-bob", `{"caseStatus":"x"}`).problem(403, "permission_denied")
	// A role the policies do not declare may do nothing.
	ghost := h.roleToken("ghost", "g", auth.Write)
	h.callAs(ghost, "GET", "/v1/cases", "").problem(403, "permission_denied")
	// Records-Role picks a role the credential grants, and no other.
	h.callAs(alice, "GET", "/v1/me", "", "Records-Role", "viewer").problem(403, "permission_denied")
	h.callAs(alice, "GET", "/v1/me", "", "Records-Role", "agent").want(200)
}

// Deletes run under the role's delete filter; members it may not read
// vanish from expansions of another resource too.
func TestRoleDeletesAndMembers(t *testing.T) {
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			t.Parallel()
			h := newRolesHarness(t, d, "")
			h.call("POST", "/v1/customers", `[{"id":"k-1","firstName":"temp1","lastName":"a","email":"a@x"},{"id":"k-2","firstName":"real","lastName":"b","email":"b@x"}]`).want(201)
			clerk := h.roleToken("clerk", "c", auth.Write)
			got := h.uncheckedAs(clerk, "GET", "/v1/customers", "").want(200)
			if strings.Contains(string(got.Body), "a@x") || !strings.Contains(string(got.Body), "temp1") {
				t.Fatalf("clerk's customers: %s", got.Body)
			}
			h.callAs(clerk, "PATCH", "/v1/customers/k-2", `{"email":"z@x"}`).problem(403, "permission_denied", "email")
			if r := h.uncheckedAs(clerk, "PATCH", "/v1/customers/k-2", `{"lastName":"c"}`).want(200); strings.Contains(string(r.Body), "b@x") {
				t.Fatalf("a write's answer holds a member the role may not read: %s", r.Body)
			}
			h.callAs(clerk, "DELETE", "/v1/customers/k-2", "").problem(404, "not_found")
			h.callAs(clerk, "DELETE", "/v1/customers/k-1", "").want(200)
			h.call("GET", "/v1/customers/k-2", "").want(200)
			// $auth.team is the team's name.
			h.call("POST", "/v1/cases", `[{"id":"t-1","submitter":"default"},{"id":"t-2","submitter":"other"}]`).want(201)
			if got := ids(t, h.uncheckedAs(clerk, "GET", "/v1/cases", "").want(200).list("data", "case")); !slices.Equal(got, []string{"t-1"}) {
				t.Fatalf("$auth.team: %v", got)
			}
		})
	}
}

// A policies file with a mistake stops the server's start, naming its
// file and line.
// A key's answer is replayed to its caller only: neither a role (whose
// filter hides the record and whose members hide the rest) nor another
// token of the team reads a stored answer by sending its key, on a single
// create (kept as a row) or any other write; its own caller still does.
func TestAKeyReplaysToItsCallerOnly(t *testing.T) {
	for _, d := range dbtest.Dialects {
		t.Run(dbtest.Name(d), func(t *testing.T) {
			t.Parallel()
			h := newRolesHarness(t, d, "")
			h.call("POST", "/v1/cases", `{"id":"c-bob","caseName":"B","description":"secret","priority":"normal","resolver":"bob"}`).want(201)
			patch := []string{"Idempotency-Key", "k-patch"}
			first := h.call("PATCH", "/v1/cases/c-bob", `{"caseStatus":"closed"}`, patch...).want(200)
			create := []string{"Idempotency-Key", "k-create"}
			h.call("POST", "/v1/cases", `{"caseName":"mine","description":"secret","priority":"low","resolver":"alice"}`, create...).want(201)

			alice := h.roleToken("agent", "alice", auth.Write)
			for _, r := range []*response{
				h.callAs(alice, "PATCH", "/v1/cases/c-bob", `{"caseStatus":"closed"}`, patch...),
				h.callAs(alice, "POST", "/v1/cases", `{"caseName":"mine","description":"secret","priority":"low","resolver":"alice"}`, create...),
			} {
				r.problem(422, "idempotency_key_reused")
				if strings.Contains(string(r.Body), "secret") || r.Header.Get("Idempotent-Replayed") != "" {
					t.Fatalf("another role reads a key's answer: %v %s", r.Header, r.Body)
				}
			}
			admin2 := h.newToken("second admin", auth.Write, "")
			h.callAs(admin2, "PATCH", "/v1/cases/c-bob", `{"caseStatus":"closed"}`, patch...).problem(422, "idempotency_key_reused")

			again := h.call("PATCH", "/v1/cases/c-bob", `{"caseStatus":"closed"}`, patch...).want(200)
			if again.Header.Get("Idempotent-Replayed") != "true" || string(again.Body) != string(first.Body) {
				t.Fatalf("the key's own caller: %v %s", again.Header, again.Body)
			}
			h.call("POST", "/v1/cases", `{"caseName":"mine","description":"secret","priority":"low","resolver":"alice"}`, create...).want(201)
			if n := h.call("GET", "/v1/cases?count=exact&filter[caseName]=mine", "").at("paging", "total"); n != json.Number("1") {
				t.Fatalf("a keyed create ran twice: %v", n)
			}
		})
	}
}

func TestBadPoliciesStopTheStart(t *testing.T) {
	cfg := testConfig()
	p, err := policy.Parse("bad.yaml", []byte("roles:\n  r:\n    cases:\n      read: {filter: {nobody: 1}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Policies = p
	_, err = server.New(cfg, dbtest.Open(t, dbtest.Dialects[0]), &strings.Builder{})
	if err == nil || !strings.Contains(err.Error(), "bad.yaml:4:") || !strings.Contains(err.Error(), "nobody") {
		t.Fatalf("want a file:line error, got %v", err)
	}
}

func anyStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
