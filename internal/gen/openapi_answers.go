package gen

import (
	"encoding/json"
	"strings"
)

// slot is where an operation holds a part: a key of holder.
type slot struct {
	holder *obj
	key    string
}

// shareAlike moves each part that several operations hold alike into a
// component of its own, and refers to it from each: written once, it
// reads the same to a client. parts finds an operation's parts; name
// names a part after the schema its JSON holds ("" keeps it in place);
// kind is the components' member ("responses"). It runs once the schemas
// are named, so that a part's JSON names its schema.
func shareAlike(paths *obj, kind string, parts func(op *obj) []slot, name func(schema string, s slot) string) *obj {
	uses := map[string][]slot{}
	var order []string
	for _, p := range paths.keys {
		item := paths.vals[p].(*obj)
		for _, method := range item.keys {
			op, ok := item.vals[method].(*obj)
			if !ok {
				continue // the path's parameters
			}
			for _, s := range parts(op) {
				b, err := json.Marshal(s.holder.vals[s.key])
				if err != nil {
					panic(err)
				}
				key := string(b)
				if _, seen := uses[key]; !seen {
					order = append(order, key)
				}
				uses[key] = append(uses[key], s)
			}
		}
	}
	shared := newObj()
	for _, key := range order {
		first := uses[key][0]
		n := name(jsonSchemaName(key), first)
		if len(uses[key]) < 2 || n == "" || shared.vals[n] != nil {
			continue
		}
		shared.set(n, first.holder.vals[first.key])
		for _, s := range uses[key] {
			s.holder.set(s.key, newObj("$ref", "#/components/"+kind+"/"+n))
		}
	}
	return shared
}

// jsonSchemaName is the name of the schema a response's or a body's JSON
// content refers to; "" when it names none.
func jsonSchemaName(part string) string {
	var p struct {
		Content map[string]struct {
			Schema struct {
				Ref string `json:"$ref"`
			} `json:"schema"`
		} `json:"content"`
	}
	if json.Unmarshal([]byte(part), &p) != nil {
		return ""
	}
	name, _ := strings.CutPrefix(p.Content["application/json"].Schema.Ref, "#/components/schemas/")
	return name
}

// statusNames name a shared answer's status.
var statusNames = map[string]string{"200": "Ok", "201": "Created", "202": "Accepted"}

// shareAnswers shares the success answers several operations give alike
// (an aggregate's groups, a page of events, the record a generic write
// answers, a route's twin), each named after its schema and its status:
// ReturnOk, UpdateReturnCreated.
func shareAnswers(paths *obj) *obj {
	return shareAlike(paths, "responses", func(op *obj) []slot {
		responses, _ := op.vals["responses"].(*obj)
		if responses == nil {
			return nil
		}
		var out []slot
		for _, status := range responses.keys {
			if a, ok := responses.vals[status].(*obj); ok && strings.HasPrefix(status, "2") && a.vals["$ref"] == nil {
				out = append(out, slot{responses, status})
			}
		}
		return out
	}, func(schema string, s slot) string {
		if schema == "" || statusNames[s.key] == "" {
			return ""
		}
		return strings.TrimSuffix(schema, "Answer") + statusNames[s.key]
	})
}

// shareBodies shares the bodies several operations take alike (a page of
// events, a route's twin), each named after its schema: PageBody,
// UpdateReturnBody.
func shareBodies(paths *obj) *obj {
	return shareAlike(paths, "requestBodies", func(op *obj) []slot {
		if b, ok := op.vals["requestBody"].(*obj); ok && b.vals["$ref"] == nil {
			return []slot{{op, "requestBody"}}
		}
		return nil
	}, func(schema string, _ slot) string {
		if schema == "" {
			return ""
		}
		return strings.TrimSuffix(schema, "Request") + "Body"
	})
}
