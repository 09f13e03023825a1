package gen

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"

	"records/internal/migrate"
)

// Breaking lists what the generated files out would break, against the
// files committed under root: for clients, routes and resources gone and
// members gone or retyped (from the OpenAPI document); for data, columns and
// tables a new migration drops. Nothing when the change only adds.
func Breaking(cfg Config, out *Output) ([]string, error) {
	var found []string
	doc := path.Join(cfg.ResourcesDir, "openapi.json")
	old, err := os.ReadFile(cfg.path(doc))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	default:
		if next, ok := out.Files[doc]; ok {
			found, err = apiBreaks(old, next)
			if err != nil {
				return nil, err
			}
		}
	}
	for _, p := range slices.Sorted(maps.Keys(out.Files)) {
		if !strings.HasPrefix(p, cfg.MigrationsDir+"/") || !strings.HasSuffix(p, ".sql") {
			continue
		}
		if _, err := os.Stat(cfg.path(p)); err == nil {
			continue // committed already
		}
		if path.Base(path.Dir(p)) != migrate.Dirs[migrate.Postgres] && hasPostgresTwin(out, p) {
			continue // PostgreSQL's plan says plainly what is dropped
		}
		for _, d := range dataLoss(string(out.Files[p])) {
			found = append(found, fmt.Sprintf("data: %s (by the new migration %s)", d, p))
		}
	}
	return found, nil
}

// hasPostgresTwin tells whether the PostgreSQL migration of the same
// version as the migration p holds a plan (and not "No change").
func hasPostgresTwin(out *Output, p string) bool {
	twin := path.Join(path.Dir(path.Dir(p)), migrate.Dirs[migrate.Postgres], path.Base(p))
	b, ok := out.Files[twin]
	return ok && !strings.Contains(string(b), "No change for this database")
}

var (
	dropTable  = regexp.MustCompile("(?m)^DROP TABLE [`\"]([^`\"]+)[`\"]")
	dropColumn = regexp.MustCompile("(?m)^ALTER TABLE [`\"]([^`\"]+)[`\"] DROP COLUMN [`\"]([^`\"]+)[`\"]")
	// SQLite rebuilds a table to change it: the old one is dropped after
	// its rows are copied into new_<name>, which is not a loss.
	rebuilt = regexp.MustCompile("(?m)^ALTER TABLE [`\"]new_([^`\"]+)[`\"] RENAME TO")
)

// dataLoss lists the tables and columns a migration drops.
func dataLoss(sql string) []string {
	renamed := map[string]bool{}
	for _, m := range rebuilt.FindAllStringSubmatch(sql, -1) {
		renamed[m[1]] = true
	}
	var out []string
	for _, m := range dropTable.FindAllStringSubmatch(sql, -1) {
		if !renamed[m[1]] {
			out = append(out, "drops the table "+m[1]+" and every row in it")
		}
	}
	for _, m := range dropColumn.FindAllStringSubmatch(sql, -1) {
		if isSearchColumn(m[2]) {
			continue // generated from the record's members, made again from them
		}
		out = append(out, "drops the column "+m[1]+"."+m[2]+" and its values")
	}
	return out
}

type apiDoc struct {
	Paths      map[string]map[string]json.RawMessage `json:"paths"`
	Components struct {
		Schemas map[string]struct {
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
			AllOf      []struct {
				Ref string `json:"$ref"`
			} `json:"allOf"`
		} `json:"schemas"`
	} `json:"components"`
	// raw are the component schemas as written, for references.
	raw map[string]json.RawMessage
}

// read reads a document, its component schemas as written too.
func (d *apiDoc) read(b []byte) error {
	if err := json.Unmarshal(b, d); err != nil {
		return err
	}
	var raw struct {
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	d.raw = raw.Components.Schemas
	return nil
}

// apiBreaks compares two OpenAPI documents as a client would feel it.
func apiBreaks(oldDoc, newDoc []byte) ([]string, error) {
	var a, b apiDoc
	if err := a.read(oldDoc); err != nil {
		return nil, fmt.Errorf("reading the committed OpenAPI document: %w", err)
	}
	if err := b.read(newDoc); err != nil {
		return nil, err
	}
	var out []string
	for _, p := range slices.Sorted(maps.Keys(a.Paths)) {
		for _, m := range slices.Sorted(maps.Keys(a.Paths[p])) {
			if m == "parameters" {
				continue
			}
			if _, ok := b.Paths[p][m]; !ok {
				out = append(out, fmt.Sprintf("clients: the route %s %s is gone", strings.ToUpper(m), p))
			}
		}
	}
	// A resource's schema is the one its record is answered in: a name
	// without a suffix of the document's other schemas.
	for _, name := range slices.Sorted(maps.Keys(a.Components.Schemas)) {
		if !isRecordSchema(name, a.Components.Schemas) {
			continue
		}
		_, ok := b.Components.Schemas[name]
		if !ok {
			out = append(out, "clients: the resource "+name+" is gone")
			continue
		}
		before, after := a.propertiesOf(name), b.propertiesOf(name)
		for _, m := range slices.Sorted(maps.Keys(before)) {
			nv, ok := after[m]
			switch {
			case !ok:
				out = append(out, fmt.Sprintf("clients: the member %s of %s is gone", m, name))
			case typeOf(nv) != typeOf(before[m]):
				out = append(out, fmt.Sprintf("clients: the member %s of %s changes type, from %s to %s", m, name, typeOf(before[m]), typeOf(nv)))
			}
		}
		out = append(out, tightenings(name, a, b)...)
	}
	return out, nil
}

// propertiesOf are the members of the schema name: its own, and those of
// the schemas its allOf names (a record's are written in its sparse form),
// each a reference followed to the schema it names.
func (d apiDoc) propertiesOf(name string) map[string]json.RawMessage {
	s := d.Components.Schemas[name]
	out := map[string]json.RawMessage{}
	for k, v := range s.Properties {
		out[k] = d.followRef(v)
	}
	for _, sub := range s.AllOf {
		if other, ok := strings.CutPrefix(sub.Ref, "#/components/schemas/"); ok && other != name {
			for k, v := range d.propertiesOf(other) {
				if _, ok := out[k]; !ok {
					out[k] = v
				}
			}
		}
	}
	return out
}

// followRef is the schema raw names when it is only a reference to one.
func (d apiDoc) followRef(raw json.RawMessage) json.RawMessage {
	var only map[string]any
	if json.Unmarshal(raw, &only) != nil || len(only) != 1 {
		return raw
	}
	r, _ := only["$ref"].(string)
	if named, ok := d.raw[strings.TrimPrefix(r, "#/components/schemas/")]; ok && strings.HasPrefix(r, "#/components/schemas/") {
		return named
	}
	return raw
}

// tightenings are what the resource's writes accept no more (DESIGN §14):
// a member a create must give that it need not before, an enum value
// removed, a greater least or smaller greatest length or value, a new
// pattern, a member that becomes immutable. Members new to the resource
// count too, but for being required only.
func tightenings(name string, a, b apiDoc) []string {
	var out []string
	before, after := a.Components.Schemas[name+"Members"], b.Components.Schemas[name+"Members"]
	required := a.Components.Schemas[name+"Create"].Required
	for _, m := range b.Components.Schemas[name+"Create"].Required {
		if !slices.Contains(required, m) {
			out = append(out, fmt.Sprintf("clients: the member %s of %s is required now: a create that leaves it out is refused", m, name))
		}
	}
	for _, m := range slices.Sorted(maps.Keys(before.Properties)) {
		raw, ok := after.Properties[m]
		if !ok {
			continue
		}
		was, is := a.rulesOf(before.Properties[m]), b.rulesOf(raw)
		say := func(format string, args ...any) {
			out = append(out, fmt.Sprintf("clients: the member %s of %s ", m, name)+fmt.Sprintf(format, args...))
		}
		if was.enum != nil {
			for _, v := range was.enum {
				if is.enum != nil && !slices.Contains(is.enum, v) {
					say("no longer takes %q", v)
				}
			}
		} else if is.enum != nil {
			say("takes only %s now", strings.Join(is.enum, ", "))
		}
		if tighter(was.minLength, is.minLength, true) {
			say("needs at least %v characters now", *is.minLength)
		}
		if tighter(was.maxLength, is.maxLength, false) {
			say("takes at most %v characters now", *is.maxLength)
		}
		if tighter(was.minimum, is.minimum, true) {
			say("needs at least %v now", *is.minimum)
		}
		if tighter(was.maximum, is.maximum, false) {
			say("takes at most %v now", *is.maximum)
		}
		for _, p := range is.patterns {
			if !slices.Contains(was.patterns, p) {
				say("must match %s now", p)
			}
		}
		if is.immutable && !was.immutable {
			say("is immutable now: an update may no longer change it")
		}
	}
	return out
}

// tighter tells whether the bound is tighter than before (a least one
// greater, a greatest one smaller, or one where there was none).
func tighter(before, after *float64, least bool) bool {
	switch {
	case after == nil:
		return false
	case before == nil:
		return true
	case least:
		return *after > *before
	}
	return *after < *before
}

// numberText matches the patterns of a number written as text (the
// alternative numeric members take), which are no member's rule.
var numberText = regexp.MustCompile(`^\^(\\s\*)?-\?`)

// memberRules are the keywords of a member's input schema that say which
// values it takes, gathered from the schema and its alternatives.
type memberRules struct {
	enum                 []string
	patterns             []string
	minLength, maxLength *float64
	minimum, maximum     *float64
	immutable            bool
}

func (d apiDoc) rulesOf(raw json.RawMessage) memberRules {
	var r memberRules
	seen := map[string]bool{}
	var walk func(raw json.RawMessage)
	walk = func(raw json.RawMessage) {
		var s struct {
			Ref         string            `json:"$ref"`
			Enum        []any             `json:"enum"`
			Pattern     string            `json:"pattern"`
			MinLength   *float64          `json:"minLength"`
			MaxLength   *float64          `json:"maxLength"`
			Minimum     *float64          `json:"minimum"`
			Maximum     *float64          `json:"maximum"`
			Description string            `json:"description"`
			OneOf       []json.RawMessage `json:"oneOf"`
			AllOf       []json.RawMessage `json:"allOf"`
		}
		if json.Unmarshal(raw, &s) != nil {
			return
		}
		if name, ok := strings.CutPrefix(s.Ref, "#/components/schemas/"); ok && !seen[name] {
			seen[name] = true
			walk(d.raw[name])
		}
		for _, v := range s.Enum {
			if str, ok := v.(string); ok && !slices.Contains([]string{"true", "false"}, str) {
				r.enum = append(r.enum, str)
			}
		}
		if s.Pattern != "" && !numberText.MatchString(s.Pattern) {
			r.patterns = append(r.patterns, s.Pattern)
		}
		pick := func(dst **float64, v *float64) {
			if v != nil && *dst == nil {
				*dst = v
			}
		}
		pick(&r.minLength, s.MinLength)
		pick(&r.maxLength, s.MaxLength)
		pick(&r.minimum, s.Minimum)
		pick(&r.maximum, s.Maximum)
		r.immutable = r.immutable || strings.Contains(s.Description, "Set on create, then fixed")
		for _, sub := range append(s.OneOf, s.AllOf...) {
			walk(sub)
		}
	}
	walk(raw)
	return r
}

// isRecordSchema tells whether name is a resource's record: it has a
// <name>Write twin.
func isRecordSchema[V any](name string, schemas map[string]V) bool {
	_, ok := schemas[name+"Write"]
	return ok
}

// typeOf is a member schema's type as a client's code sees it: its type
// and format, or what it refers to.
func typeOf(raw json.RawMessage) string {
	var s struct {
		Type   any    `json:"type"`
		Format string `json:"format"`
		Ref    string `json:"$ref"`
		Items  *struct {
			Type any    `json:"type"`
			Ref  string `json:"$ref"`
		} `json:"items"`
	}
	_ = json.Unmarshal(raw, &s)
	t := fmt.Sprint(s.Type)
	if s.Ref != "" {
		t = path.Base(s.Ref)
	}
	if s.Format != "" {
		t += " (" + s.Format + ")"
	}
	if s.Items != nil {
		t += " of " + fmt.Sprint(s.Items.Type) + path.Base(s.Items.Ref)
	}
	return strings.TrimSpace(t)
}
