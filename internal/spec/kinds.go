package spec

// Kind is the kind of an operation, as the route table names it.
type Kind string

// The kinds of operation.
const (
	List        Kind = "list"          // a page of records, optionally narrowed to the path's id
	Get         Kind = "get"           // one record by id
	Create      Kind = "create"        // a new record (201)
	Patch       Kind = "patch"         // merge into an existing record
	Upsert      Kind = "upsert"        // update the record with the id, or create it (201)
	GetOrCreate Kind = "get_or_create" // with an id, read; without, create
	Action      Kind = "action"        // set fixed members of an existing record
	Delete      Kind = "delete"        // delete by id, or every record of a parent
	// Restore and Revert are the generic routes of the trash and of
	// history (DESIGN §17); the route table names neither.
	Restore Kind = "restore" // take a record (and its batch) out of the trash
	Revert  Kind = "revert"  // write a record's members as they were at a version
)

// Kinds lists every kind, in the order messages list them.
var Kinds = []Kind{List, Get, Create, Patch, Upsert, GetOrCreate, Action, Delete}

// KindNames are the kinds as strings, for messages and the route table.
func KindNames() []string {
	out := make([]string, len(Kinds))
	for i, k := range Kinds {
		out[i] = string(k)
	}
	return out
}

// Writes is an operation's relation to write access.
type Writes int

// How an operation writes.
const (
	Never        Writes = iota // reads only
	Always                     // every call writes
	WhenCreating               // writes only when it creates (get-or-create without an id)
)

// Writes tells whether an operation of the kind writes: always, never, or
// only when it creates.
func (k Kind) Writes() Writes {
	switch k {
	case List, Get:
		return Never
	case GetOrCreate:
		return WhenCreating
	default:
		return Always
	}
}

// UpdateTakesBulk tells whether an upsert that creates when given no id
// (optionalID) takes, at method and route, its plural's bulk create: it
// does where it holds POST /v1/<plural>, the route of the plural's create
// (Update Case). The generator declares it there, and the engine serves it.
func UpdateTakesBulk(optionalID bool, method, route, plural string) bool {
	return optionalID && method == "POST" && route == "/v1/"+plural
}
