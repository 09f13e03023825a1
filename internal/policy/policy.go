// Package policy reads and checks the roles' policies (DESIGN §15): which
// operations a role may run on which resources, the filter narrowing the
// records it sees and changes, the members it may read and write, the
// members the server presets on create and the check a written record
// must pass. The generator checks schema/policies.yaml against the schema
// with it, and the server the file of --policies at start; both report
// every mistake as file:line.
//
// Filters and checks are the list filter language (package query) with
// variables: a value "$auth.sub", "$auth.team", "$auth.role" or
// "$auth.claims.NAME" stands for the caller's. A filter is kept as a
// Template, JSON text with holes, which the caller's values fill in.
package policy

import (
	"slices"
	"strings"
)

// Op is an operation a role may be granted.
type Op string

// The operations. Read covers lists, gets, exports, counts, expand and
// history; update covers PATCH, PUT, upserts of existing records and
// actions.
const (
	Read    Op = "read"
	Create  Op = "create"
	Update  Op = "update"
	Delete  Op = "delete"
	Restore Op = "restore"
)

// Ops are the operations in the order answers list them.
var Ops = []Op{Read, Create, Update, Delete, Restore}

// Admin is the built-in role that may do everything.
const Admin = "admin"

// Every stands for every resource in a role's policies.
const Every = "*"

// Policies are the roles a file declares, by name.
type Policies struct {
	File  string
	Roles map[string]*Role
}

// Role is one role: per resource (or Every), per operation, its rule.
type Role struct {
	Name      string
	Line      int
	Resources map[string]map[Op]*Rule
	lines     map[string]int // where each resource is named
}

// Rule is what a role may do in one operation on one resource.
type Rule struct {
	Line int
	// Filter narrows the records the operation sees; nil: all of the
	// team's.
	Filter *Template
	// Members are the members the role may read (read) or write (create,
	// update); nil: every member.
	Members []string
	// Presets are set by the server on create.
	Presets []Preset
	// Check must hold for the record as written (create, update).
	Check *Template
}

// Preset is a member the server sets on create, and its value.
type Preset struct {
	Member string
	Value  *Template
	Line   int
}

// Has tells whether the policies declare the role (admin is not declared:
// it is built in).
func (p *Policies) Has(role string) bool {
	if p == nil {
		return false
	}
	_, ok := p.Roles[role]
	return ok
}

// Names are the declared roles, sorted.
func (p *Policies) Names() []string {
	if p == nil {
		return nil
	}
	out := make([]string, 0, len(p.Roles))
	for n := range p.Roles {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Rule is role's rule for op on the resource plural: the resource's own
// entry, else the role's "*" entry; false when the role lacks the
// operation (a resource named on its own takes nothing from "*").
func (r *Role) Rule(plural string, op Op) (*Rule, bool) {
	if r == nil {
		return nil, false
	}
	ops, ok := r.Resources[plural]
	if !ok {
		ops, ok = r.Resources[Every]
	}
	if !ok {
		return nil, false
	}
	rule, ok := ops[op]
	return rule, ok
}

// Can lists what the role may do on the resource plural, in Ops' order.
func (r *Role) Can(plural string) []Op {
	var out []Op
	for _, op := range Ops {
		if _, ok := r.Rule(plural, op); ok {
			out = append(out, op)
		}
	}
	return out
}

// Allows tells whether the rule lets member be read (read) or written
// (create, update). The engine adds id and version to what is readable.
func (r *Rule) Allows(member string) bool {
	return r.Members == nil || slices.Contains(r.Members, member)
}

// Vars are the caller's values the variables stand for.
type Vars struct {
	Sub, Team, Role string
	// Claims are the JWT's claims as JSON, by name (none for an API token).
	Claims map[string][]byte
}

// variables are the names a filter may use, but $auth.claims.NAME.
var variables = []string{"$auth.sub", "$auth.team", "$auth.role"}

const claimsPrefix = "$auth.claims."

// isVariable tells whether s is one of the variables.
func isVariable(s string) bool {
	if slices.Contains(variables, s) {
		return true
	}
	name, ok := strings.CutPrefix(s, claimsPrefix)
	return ok && name != "" && !strings.ContainsAny(name, " \t\n")
}

// Role is the role named name; nil when the policies do not declare it.
func (p *Policies) Role(name string) *Role {
	if p == nil {
		return nil
	}
	return p.Roles[name]
}
