package engine

import (
	"fmt"
	"net/http"
	"slices"

	"records/internal/problem"
	"records/internal/spec"
	"records/internal/wire"
)

// request is a parsed request: the record's id (from the path or the body),
// a parent id for a delete by parent, and the record's members.
type request struct {
	id     string
	hasID  bool
	idFrom string // where the id was found, for messages
	by     string
	hasBy  bool
	record []namedMember
	// ifMatch conditions a write (patch, upsert, delete, action); ifNoneMatch a
	// read of one plain record.
	ifMatch, ifNoneMatch *precondition
	// permanent: a delete erases the record for good (?permanent=true)
	// instead of moving it to the trash.
	permanent bool
}

// preconditions reads the conditional headers the operation honours.
func (op *Op[E]) preconditions(r *http.Request, req *request) (err error) {
	switch op.Kind {
	case spec.Upsert:
		// If-None-Match: * makes the PUT create only (RFC 9110 §13.1.2).
		if req.ifMatch, err = parsePrecondition(r, "If-Match"); err != nil {
			return err
		}
		if req.ifNoneMatch, err = parsePrecondition(r, "If-None-Match"); err != nil || req.ifNoneMatch == nil {
			return err
		}
		switch {
		case !req.ifNoneMatch.any:
			return problem.Member("If-None-Match", "on a PUT takes * alone: create only if no record has the id")
		case req.ifMatch != nil:
			return problem.Member("If-None-Match", "and If-Match cannot both hold: one asks that the record exist, the other that it not")
		}
	case spec.Patch, spec.Delete, spec.Action, spec.Restore, spec.Revert:
		if req.ifMatch, err = parsePrecondition(r, "If-Match"); err != nil {
			return err
		}
		// If-None-Match conditions the write as RFC 9110 §13.1.2 says: it
		// is made only if the record is at none of the versions listed, so
		// with * never (a record that does not exist is a 404).
		none, err := parsePrecondition(r, "If-None-Match")
		switch {
		case err != nil || none == nil:
			return err
		case req.ifMatch != nil:
			return problem.Member("If-None-Match", "and If-Match cannot both be sent: send one")
		}
		none.exclude = true
		req.ifMatch = none
	case spec.Get, spec.GetOrCreate:
		if op.ETag {
			req.ifNoneMatch, err = parsePrecondition(r, "If-None-Match")
		}
	}
	return err
}

// namedMember is a record member with the name the client wrote (for
// errors) and the resource's name for it (after aliases).
type namedMember struct {
	written string
	name    string
	value   []byte
}

// parse sorts the body's members into the id, the parent of a delete by
// parent, and the record's members, applying aliases and dropping ignored
// members. Every problem found is reported at once.
func (op *Op[E]) parse(pathID string, members []wire.Member) (request, error) {
	var req request
	var errs []problem.MemberError
	if pathID != "" {
		if err := wire.CheckID(pathID); err != nil {
			if op.Kind == spec.Upsert {
				// It would be created: the id is what is wrong. (A
				// get-or-create with an id only reads.)
				return req, problem.Member("id", "%s", err.Error())
			}
			// No record could have it: there is no such record.
			return req, notFound(op.Res.Object, pathID)
		}
		req.id, req.hasID, req.idFrom = pathID, true, "the id in the path"
	}
	prefix := ""
	if op.Wrapper != "" {
		if inner, ok := findMember(members, op.Wrapper); ok {
			wrapped, err := wire.ParseObject(inner)
			if err != nil || wire.Kind(inner) != "an object" {
				return req, problem.Member(op.Wrapper, "must be an object holding the record's members")
			}
			for _, m := range members {
				if m.Name != op.Wrapper && !slices.Contains(op.IDMembers, m.Name) && !slices.Contains(op.Ignore, m.Name) {
					errs = append(errs, problem.MemberError{Member: m.Name, Problem: fmt.Sprintf("unknown member beside %q; the record's members go inside it", op.Wrapper)})
				}
			}
			for _, m := range members {
				if slices.Contains(op.IDMembers, m.Name) {
					errs = op.takeID(&req, m.Name, m.Value, errs)
				}
			}
			members, prefix = wrapped, op.Wrapper+"."
		}
	}
	var given map[string]string // members an alias may name: as the client named them
	for _, m := range members {
		name := m.Name
		if alias, ok := op.Aliases[name]; ok {
			name = alias
		}
		if op.aliased(name) {
			// A member and its alias both given: keeping either value
			// would silently drop the other.
			if first, twice := given[name]; twice {
				errs = append(errs, problem.MemberError{Member: prefix + m.Name,
					Problem: fmt.Sprintf("names the member %s, which %s names too: send one of them", name, first)})
				continue
			}
			if given == nil {
				given = map[string]string{}
			}
			given[name] = prefix + m.Name
		}
		switch {
		case slices.Contains(op.Ignore, name):
		case slices.Contains(op.IDMembers, name):
			errs = op.takeID(&req, prefix+m.Name, m.Value, errs)
		case op.By != "" && name == op.By:
			v, err := wire.ID(m.Value)
			if err != nil {
				errs = append(errs, problem.MemberError{Member: prefix + m.Name, Problem: err.Error()})
				continue
			}
			req.by, req.hasBy = v, true
		default:
			req.record = append(req.record, namedMember{written: prefix + m.Name, name: name, value: m.Value})
		}
	}
	if len(errs) > 0 {
		return req, problem.Members(errs)
	}
	return req, nil
}

// aliased tells whether an alias of the operation names the member.
func (op *Op[E]) aliased(name string) bool {
	for _, to := range op.Aliases {
		if to == name {
			return true
		}
	}
	return false
}

// takeID records an id given by member, which must agree with any other.
func (op *Op[E]) takeID(req *request, member string, v []byte, errs []problem.MemberError) []problem.MemberError {
	id, err := wire.ID(v)
	switch {
	case err != nil:
		return append(errs, problem.MemberError{Member: member, Problem: err.Error()})
	case req.hasID && id != req.id:
		return append(errs, problem.MemberError{Member: member, Problem: fmt.Sprintf("must equal %s (%q)", req.idFrom, req.id)})
	}
	req.id, req.hasID, req.idFrom = id, true, member
	return errs
}

// input decodes the record's members into a new input, reporting every
// unknown, read-only or invalid member at once.
func (op *Op[E]) input(req *request) (Input[E], error) {
	in := op.Res.NewInput()
	var errs []problem.MemberError
	var valid []string
	for _, m := range req.record {
		if problem.Full(errs) {
			break
		}
		if err := in.Decode(m.name, m.value); err != nil {
			if valid == nil {
				valid = op.validNames()
			}
			errs = append(errs, memberErrors(err, m.written, m.name, valid)...)
		}
	}
	if len(errs) > 0 {
		return nil, problem.Members(errs)
	}
	if req.hasID {
		in.SetID(req.id)
	}
	return in, nil
}

// validNames are the names the operation's body may carry, for suggestions.
func (op *Op[E]) validNames() []string {
	names := append([]string(nil), op.Res.Members...)
	names = append(names, op.IDMembers...)
	for a := range op.Aliases {
		names = append(names, a)
	}
	return append(names, op.Ignore...)
}

// onlyID refuses record members on an operation that takes nothing but an id.
func (op *Op[E]) onlyID(req *request, why string) error {
	if len(req.record) == 0 {
		return nil
	}
	errs := make([]problem.MemberError, len(req.record))
	for i, m := range req.record {
		errs[i] = problem.MemberError{Member: m.written, Problem: why}
	}
	return problem.Members(errs)
}

// requireID fails when no id was given.
func (op *Op[E]) requireID(req *request) error {
	if req.hasID {
		return nil
	}
	member := "id"
	if len(op.IDMembers) > 0 {
		member = op.IDMembers[0]
	}
	return problem.Member(member, "is required")
}

func findMember(members []wire.Member, name string) ([]byte, bool) {
	for _, m := range members {
		if m.Name == name {
			return m.Value, true
		}
	}
	return nil, false
}

// withQuery adds the query parameters as members, each a JSON string (the
// converters accept numbers and booleans written as strings). The body
// wins. A parameter given twice is refused, as a member twice in a body is.
func withQuery(members []wire.Member, query map[string][]string) ([]wire.Member, error) {
	var errs []problem.MemberError
	for name, vs := range query {
		if len(vs) > 1 {
			errs = append(errs, problem.MemberError{Member: name, Problem: "is given more than once"})
			continue
		}
		if _, ok := findMember(members, name); ok {
			continue
		}
		members = append(members, wire.Member{Name: name, Value: wire.AppendString(nil, vs[0])})
	}
	if len(errs) > 0 {
		return nil, problem.Members(errs)
	}
	return members, nil
}
