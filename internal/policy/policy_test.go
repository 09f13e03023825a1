package policy

import (
	"strings"
	"testing"

	"records/internal/spec"
)

// design is DESIGN §15's example.
const design = `roles:
  agent:
    cases:
      read:   {filter: {resolver: "$auth.sub"}, members: [id, caseName, caseStatus, priority, resolver]}
      update: {filter: {resolver: "$auth.sub"}, members: [caseStatus, priority]}
      create: {presets: {resolver: "$auth.sub"}, check: {priority: {in: [low, normal]}}}
    customers:
      read: {}
  viewer:
    "*": {read: {}}
`

var catalog = Catalog{
	"cases": {{"id", spec.String}, {"version", spec.Integer}, {"caseName", spec.String}, {"caseStatus", spec.String},
		{"priority", spec.String}, {"resolver", spec.String}, {"createdDate", spec.String}},
	"customers": {{"id", spec.String}, {"version", spec.Integer}, {"email", spec.String}, {"age", spec.Integer},
		{"vip", spec.Boolean}, {"properties", spec.Object}},
}

func TestDesignExample(t *testing.T) {
	p, err := Parse("policies.yaml", []byte(design))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Check(catalog); err != nil {
		t.Fatal(err)
	}
	agent := p.Roles["agent"]
	read, ok := agent.Rule("cases", Read)
	if !ok || read.Filter == nil || len(read.Members) != 5 {
		t.Fatalf("agent's read of cases: %+v", read)
	}
	text, missing := read.Filter.Fill(&Vars{Sub: `u"1`})
	if missing != "" || string(text) != `{"resolver":"u\"1"}` {
		t.Fatalf("filled: %s (missing %q)", text, missing)
	}
	if _, ok := agent.Rule("cases", Delete); ok {
		t.Fatal("agent may not delete cases")
	}
	if _, ok := agent.Rule("returns", Read); ok {
		t.Fatal("agent names no returns")
	}
	if got := p.Roles["viewer"].Can("returns"); len(got) != 1 || got[0] != Read {
		t.Fatalf("viewer on returns: %v", got)
	}
	create, _ := agent.Rule("cases", Create)
	if len(create.Presets) != 1 || create.Presets[0].Member != "resolver" || create.Check == nil {
		t.Fatalf("create: %+v", create)
	}
}

func TestClaimsFill(t *testing.T) {
	p, err := Parse("p.yaml", []byte(`roles:
  clerk:
    customers:
      read: {filter: {or: [{email: "$auth.claims.email"}, {age: {in: "$auth.claims.ages"}}]}}
`))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Check(catalog); err != nil {
		t.Fatal(err)
	}
	r, _ := p.Roles["clerk"].Rule("customers", Read)
	text, missing := r.Filter.Fill(&Vars{Claims: map[string][]byte{"email": []byte(`"a@b"`), "ages": []byte(`[1,2]`)}})
	if missing != "" || string(text) != `{"or":[{"email":"a@b"},{"age":{"in":[1,2]}}]}` {
		t.Fatalf("filled: %s (missing %q)", text, missing)
	}
	if _, missing := r.Filter.Fill(&Vars{}); missing != "$auth.claims.email" {
		t.Fatalf("a missing claim must be named: %q", missing)
	}
}

// Every mistake is reported with its file and line.
func TestMistakes(t *testing.T) {
	cases := []struct{ name, file, want string }{
		{"unknown resource", "roles:\n  r:\n    cazes:\n      read: {}\n", `p.yaml:3: role "r": no resource "cazes"; did you mean "cases"?`},
		{"unknown operation", "roles:\n  r:\n    cases:\n      reed: {}\n", `p.yaml:4: unknown operation "reed"; did you mean "read"?`},
		{"unknown member", "roles:\n  r:\n    cases:\n      read: {members: [id, caseNam]}\n", `p.yaml:4: cases read: no member "caseNam"; did you mean "caseName"?`},
		{"unknown filter member", "roles:\n  r:\n    cases:\n      read:\n        filter:\n          resolverr: \"$auth.sub\"\n", `p.yaml:6: filter.resolverr: no member "resolverr" to filter by; did you mean "resolver"?`},
		{"unknown operator", "roles:\n  r:\n    customers:\n      read:\n        filter:\n          age:\n            gtt: 3\n", `p.yaml:7: filter.age.gtt: unknown operator "gtt"`},
		{"operator of the wrong type", "roles:\n  r:\n    customers:\n      read:\n        filter: {vip: {gt: true}}\n", `p.yaml:5: filter.vip.gt: vip is a boolean`},
		{"bad value", "roles:\n  r:\n    customers:\n      read:\n        filter:\n          age: abc\n", `p.yaml:6: filter.age:`},
		{"unknown variable", "roles:\n  r:\n    cases:\n      read: {filter: {resolver: \"$auth.user\"}}\n", `p.yaml:4: unknown variable "$auth.user"`},
		{"key an operation does not take", "roles:\n  r:\n    cases:\n      delete: {members: [id]}\n", `p.yaml:4: delete takes no "members"; it takes filter`},
		{"bad preset", "roles:\n  r:\n    customers:\n      create: {presets: {age: old}}\n", `p.yaml:4: customers create: preset age:`},
		{"admin", "roles:\n  admin:\n    cases: {read: {}}\n", `p.yaml:2: admin is built in`},
		{"syntax", "roles:\n  r: [\n", `p.yaml:2: did not find expected node content`},
		{"star lacking a member", "roles:\n  r:\n    \"*\":\n      read: {members: [email]}\n", `p.yaml:4: "*" (cases) read: no member "email"`},
		{"not a mapping", "- a\n", `p.yaml:1: the file must be a mapping with the key roles`},
	}
	for _, c := range cases {
		p, err := Parse("p.yaml", []byte(c.file))
		if err == nil {
			err = p.Check(catalog)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v\nwant %s", c.name, err, c.want)
		}
	}
}

func TestEmptyFile(t *testing.T) {
	p, err := Parse("p.yaml", nil)
	if err != nil || len(p.Roles) != 0 {
		t.Fatalf("%v %v", p, err)
	}
}
