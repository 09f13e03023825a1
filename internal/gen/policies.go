package gen

import (
	"errors"
	"go/format"
	"io/fs"
	"os"
	"strconv"

	"records/internal/policy"
	"records/internal/spec"
)

// readPolicies reads the policies file (DESIGN §15) and checks it against
// the resources: an unknown resource, member or operator is a file:line
// error and nothing is written. A missing file declares no role.
func readPolicies(cfg Config, resources []*resourceView) (string, error) {
	if cfg.Policies == "" {
		return "", nil
	}
	data, err := os.ReadFile(cfg.path(cfg.Policies))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	p, err := policy.Parse(cfg.Policies, data)
	if err != nil {
		return "", err
	}
	if err := p.Check(policyCatalog(resources)); err != nil {
		return "", err
	}
	return string(data), nil
}

// policyCatalog is every resource's members, as the policies name them.
func policyCatalog(resources []*resourceView) policy.Catalog {
	cat := policy.Catalog{}
	for _, r := range resources {
		for _, f := range r.Fields {
			cat[r.Plural] = append(cat[r.Plural], policy.Member{Name: f.Member, Type: spec.Type(f.Kind)})
		}
	}
	return cat
}

// renderPolicies writes the checked policies file into the resources
// package, the policies the service enforces unless --policies names
// another file.
func renderPolicies(m *apiModel) ([]byte, error) {
	src := goHeader + `

package resources

// PoliciesFile is the file Policies was read from, for messages.
const PoliciesFile = ` + strconv.Quote(m.PoliciesFile) + `

// Policies is the roles' policies of the specification (DESIGN §15), as
// the generator read and checked them; empty when the file does not exist.
const Policies = ` + strconv.Quote(m.Policies) + "\n"
	return format.Source([]byte(src))
}
