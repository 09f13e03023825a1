package gen

import (
	"fmt"
	"slices"
	"strings"

	"records/internal/spec"
)

// The generated clients — Go (client_go.go) and TypeScript (client_ts.go) —
// are rendered from one view model, built here from the API's: every type,
// method and route is named and decided once, so the two clients agree with
// each other and with the routes the server registers.

// clientModel is the view model of both clients.
type clientModel struct {
	Resources []*clientResource
	// Calls are the route table's operations: methods of the client itself.
	Calls []*clientCall
	// Structs are the envelopes' types (and the pages and deletes they share).
	Structs []*clientStruct
	// Routes are every route of the OpenAPI document but the public ones,
	// each with the method that calls it.
	Routes []*clientRoute
	Codes  []clientCode
	// RecordImports are the Go imports of the records' file.
	RecordImports []string
	// GoModule is the Go client's module path: the repository's module
	// and the client's folder, e.g. "records/client".
	GoModule string
}

// clientResource is a resource: its record, write and expand types, and
// the service whose methods are its generic routes and its history.
type clientResource struct {
	Type      string // the record's type, e.g. "Return"
	Plural    string
	Service   string          // the client's member serving it: "Returns" (Go)
	TSService string          // "returns"
	Members   []*clientMember // a record as answered, in order
	Writes    []*clientMember // the members of <Type>Write
	Expands   []*clientMember // the related records under expand
	Calls     []*clientCall   // the generic routes it has, and its history
	Enums     []*clientEnum   // the types of its members with enum values
}

// clientEnum is the type of a member whose values the schema lists: a
// string type with a constant per value in Go, a union in TypeScript.
type clientEnum struct {
	Name   string // e.g. "BookStatus"
	Member string
	Values []clientEnumValue
}

type clientEnumValue struct {
	GoName string // e.g. "BookStatusDraft"
	Value  string
	JSON   string // the value as a string literal
}

// TSUnion is the enum's values as a TypeScript union.
func (e *clientEnum) TSUnion() string {
	parts := make([]string, len(e.Values))
	for i, v := range e.Values {
		parts[i] = v.JSON
	}
	return strings.Join(parts, " | ")
}

// clientMember is a member of a record, a write or an envelope.
type clientMember struct {
	JSON   string
	GoName string
	GoType string
	GoTag  string // the struct tag, e.g. `json:"order_id"`
	TSKey  string // the property, quoted when it must be, with ? when optional
	TSType string
	Doc    string
}

// clientStruct is an envelope's type, or a part of one.
type clientStruct struct {
	Name    string
	Doc     string
	Members []*clientMember
	// Record, when set, accesses the operation's record: Guard is the Go
	// condition under which there is none, Expr the record.
	Record *clientAccess
	// Page, when set, is the list the type is a page of.
	Page *clientIter
}

// clientAccess is how a method of a result reaches its record.
type clientAccess struct {
	Type  string // Go type of the record
	Guard string // Go condition under which the answer holds none; "" when it always does
	Expr  string // Go expression of the record, r being the result
}

// clientIter is what iterating a list's pages needs.
type clientIter struct {
	Elem      string // the record's type
	GoRecords string // Go expression of a page's records, r being the page
	GoNext    string // Go expression of its next cursor (*string)
	TSRecords string
	TSNext    string
}

// clientCall is one method of a client: the request it sends and the
// answer it decodes.
type clientCall struct {
	Name     string // Go method: "UpdateReturn", "Create", "GetPackingListOrCreate"
	TSName   string // TypeScript method; "" when only the Go client has it
	Resource *clientResource
	// OnService is true for a method of the resource's service (a generic
	// route), false for one of the client (an operation of the route table).
	OnService bool
	Summary   string   // the comment's first line, after the method's name
	Doc       []string // the comment's further lines
	Method    string   // HTTP method
	Path      string   // gin pattern of the route it sends to
	Alt       string   // the pattern sent to when the id is empty; "" when the id is required
	IDIn      string   // where the id goes: "path", "query", "body" or "" (none)
	IDName    string   // the member or query parameter of the id
	IDParam   string   // the parameter of the id, e.g. "id", "caseID"
	// Input is what the method takes besides the id: "record", "records",
	// "list", "read", "page", "version" (a revert's) or "".
	Input string
	// FixedQuery, when set, is the query string the call always sends
	// (a purge's permanent=true).
	FixedQuery *fixedQuery
	Result     string // the decoded answer's type
	// Unwrap, when set, is the member of the answer the method returns
	// (a bulk create answers {<plural>: [...]}, the method the records).
	Unwrap *clientMember
	Iter   *clientIter // for a list: its iterator
	// IterName and TSIterName name the iterator's method.
	IterName, TSIterName string
}

// clientRoute is one route of the document and the method calling it.
type clientRoute struct {
	Method     string
	Path       string // as the OpenAPI document writes it: {id}
	Call       string // e.g. "UpdateReturn", "Returns.Create"
	Sends      bool   // false for a spelling the client does not send to
	Deprecated bool
}

// clientCode is a problem code.
type clientCode struct {
	GoName string // e.g. "CodeInvalidRequest"
	Code   string
	Status int
	Title  string
}

// clientFixed are the client's own types and services, named by the
// runtime templates; a resource or operation named alike is refused.
var clientFixed = []string{"Client", "Option", "RequestOption", "Response", "Problem", "MemberError",
	"Route", "Routes", "Paging", "CursorPaging", "ListParams", "ReadParams", "PageParams", "Filter", "Ops",
	"Optional", "Date", "Event", "EventPage", "EventData", "Actor", "EventParams", "EventStream",
	"Webhook", "WebhookCreated", "WebhookInput", "WebhookPatch", "WebhookPage", "WebhookDeleted",
	"Delivery", "DeliveryPage", "EventService", "WebhookService", "Aggregate", "AggregateParams", "AggregateGroup"}

// clientFixedMembers are the client's own members (its services).
var clientFixedMembers = []string{"Events", "Webhooks", "Me", "Aggregate"}

// clientFixedRoutes are the routes of the runtime's services
// (spec.ServiceRoutes); histories are per resource.
func clientFixedRoutes() []*clientRoute {
	var out []*clientRoute
	for _, rt := range spec.ServiceRoutes {
		out = append(out, &clientRoute{Method: rt.Method, Path: openAPIPath(rt.Path), Call: rt.Call, Sends: true})
	}
	return append(out, &clientRoute{Method: "GET", Path: spec.PathMe, Call: "Me", Sends: true})
}

// clientAggregateRoutes are the aggregate routes of the resources, which
// the client's Aggregate sends to (GET; the POST spellings it does not).
func clientAggregateRoutes(m *apiModel) []*clientRoute {
	var out []*clientRoute
	for _, r := range m.Resources {
		path := "/v1/" + r.Plural + "/aggregate"
		out = append(out, &clientRoute{Method: "GET", Path: path, Call: "Aggregate", Sends: true})
		if slices.Contains(spec.AggregatePosts, r.Plural) {
			out = append(out, &clientRoute{Method: "POST", Path: path, Call: "Aggregate"})
		}
	}
	return out
}

// buildClientModel makes the clients' view model from the API's.
func buildClientModel(m *apiModel) (*clientModel, error) {
	cm := &clientModel{}
	byRes := map[*resourceView]*clientResource{}
	for _, r := range m.Resources {
		cr := newClientResource(r)
		byRes[r] = cr
		cm.Resources = append(cm.Resources, cr)
	}
	b := &envBuilder{model: cm, byRes: byRes}
	b.seed(m.Resources)
	byOp := map[*opView][]*clientCall{}
	for _, op := range m.Ops {
		calls, err := b.calls(op, m.Routes)
		if err != nil {
			return nil, fmt.Errorf("client of %q: %w", op.Name, err)
		}
		byOp[op] = calls
		for _, c := range calls {
			if op.Generic {
				byRes[op.Resource].Calls = append(byRes[op.Resource].Calls, c)
			} else {
				cm.Calls = append(cm.Calls, c)
			}
		}
	}
	for _, rt := range m.Routes {
		calls := byOp[rt.Op]
		route := &clientRoute{Method: rt.Method, Path: openAPIPath(rt.Path), Call: calls[0].ref(), Deprecated: rt.Deprecated}
		for _, c := range calls {
			if !rt.Deprecated && (rt.Path == c.Path || rt.Path == c.Alt) {
				route.Call, route.Sends = c.ref(), true
				break
			}
		}
		cm.Routes = append(cm.Routes, route)
	}
	for _, cr := range cm.Resources {
		h := historyCall(cr)
		cr.Calls = append(cr.Calls, h)
		cm.Routes = append(cm.Routes, &clientRoute{Method: "GET", Path: openAPIPath(h.Path), Call: h.ref(), Sends: true})
	}
	cm.Routes = append(cm.Routes, clientFixedRoutes()...)
	cm.Routes = append(cm.Routes, clientAggregateRoutes(m)...)
	for _, c := range spec.Codes {
		cm.Codes = append(cm.Codes, clientCode{GoName: "Code" + goField(string(c.Code)), Code: string(c.Code), Status: c.Status, Title: c.Title})
	}
	cm.RecordImports = recordImports(cm)
	return cm, cm.checkNames()
}

func newClientResource(r *resourceView) *clientResource {
	cr := &clientResource{Type: goName(r.Type), Plural: r.Plural, Service: goName(r.Plural), TSService: lowerFirst(goName(r.Plural))}
	for _, f := range r.Writable() {
		if f.Enum != nil {
			cr.Enums = append(cr.Enums, newClientEnum(cr.Type, f))
		}
	}
	for _, f := range r.Fields {
		cr.Members = append(cr.Members, answeredMember(cr.Type, f))
	}
	for _, e := range r.Embeds {
		child := goName(e.Child.Type)
		cr.Members = append(cr.Members, newClientMember(e.Member, e.GoName, "[]"+child, child+"[]", false, "Ordered by id."))
	}
	for _, m := range []*clientMember{
		newClientMember("deleted_at", "DeletedAt", "*time.Time", "string", true, "When the record went to the trash: only on records in the trash."),
		newClientMember("deleted_by", "DeletedBy", "*string", "string | null", true, "Who moved the record to the trash: only on records in the trash."),
	} {
		m.GoTag = fmt.Sprintf(`json:"%s,omitempty"`, m.JSON)
		cr.Members = append(cr.Members, m)
	}
	if len(r.Expands) > 0 {
		m := newClientMember("expand", "Expand", "*"+cr.Type+"Expand", cr.Type+"Expand", true,
			"Related records, present only when the request named them in expand.")
		m.GoTag = `json:"expand,omitempty"`
		cr.Members = append(cr.Members, m)
	}
	id := newClientMember("id", "ID", "string", "string | number", true, "The record's id; the server makes one when absent.")
	id.GoTag = `json:"id,omitempty"`
	cr.Writes = append(cr.Writes, id)
	for _, f := range r.Writable() {
		cr.Writes = append(cr.Writes, writeMember(cr.Type, f))
	}
	for _, e := range r.Embeds {
		child := goName(e.Child.Type)
		m := newClientMember(e.Member, e.GoName, "[]"+child+"Write", child+"Write[]", true, "Created with the record, in one transaction; only when creating.")
		m.GoTag = fmt.Sprintf(`json:"%s,omitempty"`, e.Member)
		cr.Writes = append(cr.Writes, m)
	}
	for _, e := range r.Expands {
		other := goName(e.Other.Type)
		m := newClientMember(e.Name, goName(e.Name), "*"+other, other+" | null", true, "The parent record; null when the record names none.")
		if e.Children {
			m = newClientMember(e.Name, goName(e.Name), "[]"+other, other+"[]", true, fmt.Sprintf("Ordered by id; at most %d.", spec.MaxChildren))
		}
		m.GoTag = fmt.Sprintf(`json:"%s,omitempty"`, e.Name)
		cr.Expands = append(cr.Expands, m)
	}
	return cr
}

// historyCall is a resource's history: its events, a page at a time.
func historyCall(cr *clientResource) *clientCall {
	path := "/v1/" + cr.Plural + "/:id/history"
	return &clientCall{Name: "History", TSName: "history", Resource: cr, OnService: true, Method: "GET", Path: path,
		IDIn: "path", IDName: "id", IDParam: "id", Input: "page", Result: "EventPage",
		Summary:  "sends GET " + path + ": the record's events, oldest first.",
		Doc:      []string{"Each is what the record looked like after a change, who made it (the token) and when."},
		Iter:     &clientIter{Elem: "Event", GoRecords: "r.Events", GoNext: "r.Paging.NextCursor", TSRecords: "r.events", TSNext: "r.paging.next_cursor"},
		IterName: "HistoryAll", TSIterName: "historyAll"}
}

// ref is how the Routes table names the method: "UpdateReturn", "Returns.Create".
func (c *clientCall) ref() string {
	if c.OnService {
		return c.Resource.Service + "." + c.Name
	}
	return c.Name
}

// recordImports are the packages the records' file uses.
func recordImports(cm *clientModel) []string {
	var out []string
	for _, cr := range cm.Resources {
		for _, m := range slices.Concat(cr.Members, cr.Writes) {
			if strings.Contains(m.GoType, "time.Time") {
				out = append(out, "time")
			}
		}
	}
	for _, s := range cm.Structs {
		for _, m := range s.Members {
			if strings.Contains(m.GoType, "json.RawMessage") {
				out = append(out, "encoding/json")
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// checkNames refuses a model in which two things would have one Go name:
// two types of the package, or two members of the Client.
func (cm *clientModel) checkNames() error {
	var errs []string
	namespace := func() func(name, what string) {
		seen := map[string]string{}
		return func(name, what string) {
			if prev, ok := seen[name]; ok {
				errs = append(errs, fmt.Sprintf("%s and %s are both named %s", prev, what, name))
				return
			}
			seen[name] = what
		}
	}
	typ, member := namespace(), namespace()
	for _, n := range clientFixed {
		typ(n, "the client's own type")
	}
	for _, n := range clientFixedMembers {
		member(n, "the client's own service")
	}
	for _, cr := range cm.Resources {
		typ(cr.Type, "the record of "+cr.Plural)
		typ(cr.Type+"Write", "the write of "+cr.Plural)
		typ(cr.Type+"Service", "the service of "+cr.Plural)
		if len(cr.Expands) > 0 {
			typ(cr.Type+"Expand", "the expand of "+cr.Plural)
		}
		member(cr.Service, "the service of "+cr.Plural)
	}
	for _, s := range cm.Structs {
		typ(s.Name, "an answer's type")
	}
	for _, c := range cm.Calls {
		member(c.Name, "the method sending "+c.Method+" "+c.Path)
		if c.Iter != nil {
			member(c.IterName, "the iterator over "+c.Method+" "+c.Path)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("the client's names collide:\n  %s", strings.Join(errs, "\n  "))
	}
	return nil
}
