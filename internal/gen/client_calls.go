package gen

import (
	"encoding/json"
	"fmt"
	"records/internal/spec"
	"slices"
	"strings"
)

// envBuilder makes the clients' methods from the operations, and the types
// of their answers from the operations' envelopes.
type envBuilder struct {
	model *clientModel
	byRes map[*resourceView]*clientResource
	// seeded are the answers every resource shares the shape of, by
	// signature: its page of a list, and a delete's answer.
	seeded map[string]*clientStruct
	pages  map[*clientResource]*clientStruct
}

// genericNames are the methods of the generic routes, by kind.
var genericNames = map[spec.Kind]string{spec.List: "List", spec.Create: "Create", spec.Get: "Get", spec.Patch: "Patch", spec.Delete: "Delete",
	spec.Restore: "Restore", spec.Revert: "Revert"}

// seed makes the shared answers: <Type>Page per resource and Deleted.
func (b *envBuilder) seed(resources []*resourceView) {
	b.seeded = map[string]*clientStruct{}
	b.pages = map[*clientResource]*clientStruct{}
	for _, r := range resources {
		for _, s := range []struct {
			name, envelope string
			kind           spec.Kind
			doc            string
		}{
			{goName(r.Type) + "Page", "list", spec.List, "is a page of " + r.Plural + "."},
			{"Deleted", "deleted", spec.Delete, "answers a delete."},
		} {
			op := &opView{Kind: s.kind, Resource: r}
			shape, err := namedEnvelope(s.envelope, op)
			if err != nil {
				panic(err) // the named envelopes suit their kinds
			}
			w := &envWalk{res: b.byRes[r], op: op}
			if _, err := w.node(shape, s.name, s.doc, nil); err != nil {
				panic(err)
			}
			top := w.structs[0]
			if _, dup := b.seeded[top.signature()]; dup {
				continue
			}
			if err := w.finish(top); err != nil {
				panic(err)
			}
			b.seeded[top.signature()] = top
			if top.Page != nil {
				b.pages[b.byRes[r]] = top
			}
			b.model.Structs = append(b.model.Structs, top)
		}
	}
}

// result decides the type of an operation's answer, adding the types it
// needs; name is the type's name when the operation has one of its own.
func (b *envBuilder) result(op *opView, name string) (*clientStruct, string, error) {
	res := b.byRes[op.Resource]
	switch {
	case op.shape.Placeholder == "$record":
		return nil, res.Type, nil
	case !op.shape.IsObject:
		return nil, "", fmt.Errorf("the clients take an envelope that is $record or an object, not %s", op.shape.describe())
	}
	w := &envWalk{res: res, op: op}
	if _, err := w.node(op.shape, name, "is the answer of "+goName(op.Name)+".", nil); err != nil {
		return nil, "", err
	}
	if len(w.structs) == 1 {
		if s, ok := b.seeded[w.structs[0].signature()]; ok {
			return s, s.Name, nil
		}
	}
	if err := w.finish(w.structs[0]); err != nil {
		return nil, "", err
	}
	b.model.Structs = append(b.model.Structs, w.structs...)
	return w.structs[0], name, nil
}

// calls are the methods calling an operation: the first calls its
// contract route; a bulk create, a get-or-create's create and a delete by
// parent have a method of their own.
func (b *envBuilder) calls(op *opView, routes []*routeView) ([]*clientCall, error) {
	cr := b.byRes[op.Resource]
	contract, alt := callRoutes(op, routes)
	c := &clientCall{Method: contract.Method, Path: contract.Path, Name: goName(op.Name), Resource: cr}
	resultName := c.Name + "Result"
	if op.Generic {
		c.Name, c.OnService, resultName = genericNames[op.Kind], true, ""
	}
	c.TSName = lowerFirst(c.Name)
	c.Summary = fmt.Sprintf("sends %s %s (%s).", c.Method, c.Path, op.Name)
	c.Doc = wrapWords(clientDescription(contract, alt), 90)
	s, result, err := b.result(op, resultName)
	if err != nil {
		return nil, err
	}
	c.Result = result
	c.placeID(op)
	c.Input = map[spec.Kind]string{spec.List: "list", spec.Get: "read", spec.GetOrCreate: "read",
		spec.Create: "record", spec.Patch: "record", spec.Upsert: "record", spec.Revert: "version"}[op.Kind]
	out := []*clientCall{c}
	switch {
	case op.Kind == spec.List:
		if alt != nil {
			c.Alt = alt.Path
		}
		if s == nil || s.Page == nil {
			return nil, fmt.Errorf("a list's answer must carry $records and $paging outside arrays")
		}
		c.Iter, c.IterName, c.TSIterName = s.Page, c.Name+"All", c.TSName+"All"
		if op.Generic {
			c.IterName, c.TSIterName = "All", "all"
		}
	case op.Kind == spec.Create && op.Generic:
		many := *c
		many.Name, many.TSName, many.Input, many.Result = "CreateMany", "createMany", "records", cr.Type+"Page"
		many.Summary = fmt.Sprintf("sends %s %s with an array: a bulk create.", c.Method, c.Path)
		many.Doc = []string{fmt.Sprintf("Creates 1 to %d records in one transaction, or none; faults name the element, e.g. [3].email.", spec.MaxBulk)}
		many.Unwrap = b.pages[cr].Members[0]
		out = append(out, &many)
	case op.Kind == spec.GetOrCreate && (c.IDIn == "query" || alt != nil):
		create := *c
		create.Name, create.TSName, create.IDIn, create.IDName, create.IDParam, create.Input = c.Name+"OrCreate", "", "", "", "", "record"
		if alt != nil {
			create.Path = alt.Path
		}
		create.Summary = fmt.Sprintf("sends %s %s with a body (%s).", create.Method, create.Path, op.Name)
		create.Doc = []string{"With an id in the record, answers that record (the record may hold nothing else); without one, creates it (201)."}
		out = append(out, &create)
	case op.Kind == spec.Delete && op.Generic:
		purge := *c
		purge.Name, purge.TSName, purge.FixedQuery = "Purge", "purge", purgeQuery
		purge.Summary = fmt.Sprintf("sends %s %s?permanent=true (%s, for good).", c.Method, c.Path, op.Name)
		purge.Doc = []string{"Erases the record and its children for good, from the trash or not (admin only)."}
		out = append(out, &purge)
	case op.Kind == spec.Delete && op.By != "":
		by := *c
		f := op.Resource.field(op.By)
		by.Name, by.TSName, by.IDIn, by.IDName, by.IDParam = c.Name+"By"+f.GoName, c.TSName+"By"+f.GoName, "body", op.By, lowerFirst(f.GoName)
		by.Summary = fmt.Sprintf("sends %s %s with %s (%s).", c.Method, c.Path, op.By, op.Name)
		by.Doc = []string{fmt.Sprintf("Deletes every %s of that parent.", strings.ReplaceAll(op.Resource.Object, "_", " "))}
		out = append(out, &by)
	}
	return out, nil
}

// callRoutes are an operation's contract route (its first not
// deprecated) and the route without an id that goes with it, if any.
func callRoutes(op *opView, routes []*routeView) (contract, alt *routeView) {
	for _, rt := range routes {
		switch {
		case rt.Op != op || rt.Deprecated:
		case contract == nil:
			contract = rt
		case alt == nil && rt.NoID:
			alt = rt
		}
	}
	return contract, alt
}

// placeID says where the call sends the record's id: in the path, the
// query (a read), the body, or nowhere (a list, a create).
func (c *clientCall) placeID(op *opView) {
	idMember := op.IDMembers[0]
	if slices.Contains(op.IDMembers, "id") {
		idMember = "id"
	}
	switch {
	case strings.Contains(c.Path, ":id"):
		c.IDIn, c.IDName = "path", "id"
	case op.Kind == spec.List || op.Kind == spec.Create:
	case op.Kind == spec.Get || op.Kind == spec.GetOrCreate:
		c.IDIn, c.IDName = "query", idMember
	default:
		c.IDIn, c.IDName = "body", idMember
	}
	if c.IDIn != "" {
		c.IDParam = "id"
	}
}

// envWalk turns one envelope into types.
type envWalk struct {
	res     *clientResource
	op      *opView
	structs []*clientStruct
	// paths to the placeholders the accessors need
	record, records, paging []envStep
	seenRecord              bool
}

// envStep is a step into an answer: a member, or an array's first item.
type envStep struct {
	member *clientMember // nil for an array's item
}

// node returns the Go and TypeScript types of n, adding the structs it needs.
// doc is the comment of a struct it makes, after its name.
func (w *envWalk) node(n *envNode, name, doc string, path []envStep) ([2]string, error) {
	switch {
	case n.IsObject:
		s := &clientStruct{Name: name, Doc: doc}
		w.structs = append(w.structs, s)
		for i, k := range n.Keys {
			m := newClientMember(k, goField(k), "", "", false, "")
			t, err := w.node(n.Values[i], name+m.GoName, fmt.Sprintf("is the member %s of %s.", k, name), append(slices.Clip(path), envStep{m}))
			if err != nil {
				return t, err
			}
			m.GoType, m.TSType = t[0], t[1]
			s.Members = append(s.Members, m)
		}
		return [2]string{name, name}, nil
	case n.IsArray && len(n.Items) == 1:
		t, err := w.node(n.Items[0], name+"Item", "is an item of "+name+".", append(slices.Clip(path), envStep{}))
		if strings.Contains(t[1], " ") {
			t[1] = "(" + t[1] + ")"
		}
		return [2]string{"[]" + t[0], t[1] + "[]"}, err
	case n.IsArray:
		return [2]string{"[]json.RawMessage", "unknown[]"}, nil
	case n.Placeholder != "":
		return w.placeholder(n.Placeholder, path)
	}
	var v any
	if err := json.Unmarshal([]byte(n.Literal), &v); err != nil {
		return [2]string{}, err
	}
	switch v := v.(type) {
	case string:
		return [2]string{"string", "string"}, nil
	case bool:
		return [2]string{"bool", "boolean"}, nil
	case float64:
		if v == float64(int64(v)) && !strings.ContainsAny(n.Literal, ".eE") {
			return [2]string{"int64", "number"}, nil
		}
		return [2]string{"float64", "number"}, nil
	}
	return [2]string{"json.RawMessage", "unknown"}, nil
}

func (w *envWalk) placeholder(p string, path []envStep) ([2]string, error) {
	base, member, _ := strings.Cut(p, ".")
	switch base {
	case "$record":
		if member != "" {
			for _, m := range w.res.Members {
				if m.JSON == member {
					return [2]string{m.GoType, m.TSType}, nil
				}
			}
			return [2]string{}, fmt.Errorf("no member %s", member)
		}
		if !w.seenRecord {
			w.record, w.seenRecord = path, true
		}
		return [2]string{w.res.Type, w.res.Type}, nil
	case "$records":
		w.records = path
		return [2]string{"[]" + w.res.Type, w.res.Type + "[]"}, nil
	case "$paging":
		w.paging = path
		return [2]string{"Paging", "Paging"}, nil
	case "$id":
		return [2]string{"string", "string"}, nil
	case "$created":
		return [2]string{"bool", "boolean"}, nil
	case "$secret":
		return [2]string{"*string", "string | null"}, nil
	}
	return [2]string{}, fmt.Errorf("placeholder %s has no type in the client", p)
}

// finish gives the answer's type its accessors: Record when it carries a
// record, Page when it is a list's.
func (w *envWalk) finish(top *clientStruct) error {
	if w.seenRecord {
		guard, expr := goPath(w.record)
		top.Record = &clientAccess{Type: w.res.Type, Guard: guard, Expr: "&" + expr}
	}
	if w.op.Kind != spec.List {
		return nil
	}
	guard, records := goPath(w.records)
	pguard, paging := goPath(w.paging)
	if guard != "" || pguard != "" || w.records == nil || w.paging == nil {
		return fmt.Errorf("a list's answer must carry $records and $paging outside arrays")
	}
	top.Page = &clientIter{Elem: w.res.Type, GoRecords: records, GoNext: paging + ".NextCursor",
		TSRecords: tsPath(w.records), TSNext: tsPath(w.paging) + ".next_cursor"}
	return nil
}

// goPath is the Go expression of a path from r, and the condition under
// which an array on the way is empty.
func goPath(path []envStep) (guard, expr string) {
	expr = "r"
	var guards []string
	for _, s := range path {
		if s.member == nil {
			guards = append(guards, "len("+expr+") == 0")
			expr += "[0]"
			continue
		}
		expr += "." + s.member.GoName
	}
	return strings.Join(guards, " || "), expr
}

// tsPath is the TypeScript expression of a path (outside arrays) from r.
func tsPath(path []envStep) string {
	expr := "r"
	for _, s := range path {
		expr = tsAccess(expr, s.member.JSON)
	}
	return expr
}

// describe names what kind of envelope n is, for messages.
func (n *envNode) describe() string {
	switch {
	case n.IsArray:
		return "an array"
	case n.Placeholder != "":
		return n.Placeholder
	}
	return "a literal"
}

// signature is the struct's shape, for finding answers alike.
func (s *clientStruct) signature() string {
	var b strings.Builder
	for _, m := range s.Members {
		fmt.Fprintf(&b, "%s %s %s;", m.JSON, m.GoType, m.TSType)
	}
	return b.String()
}

// wrapWords breaks text into lines of at most width characters.
func wrapWords(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// clientDescription says what a method's route does, for its comment.
func clientDescription(contract, alt *routeView) string {
	if contract.Op.Kind != spec.List {
		return operationDescription(contract)
	}
	d := "A page of records: p's filter (and, or and not may nest), order, limit, cursor or offset, count, fields and expand apply."
	if alt != nil {
		d += " Narrowed to the record of the id; with an empty id, " + alt.Path + " answers every record."
	}
	return d
}
