package engine

import (
	"errors"
	"fmt"

	"records/internal/problem"
	"records/internal/wire"
)

// Errors generated decoders return for a member.
var (
	// ErrUnknownMember: the resource has no member of that name.
	ErrUnknownMember = errors.New("unknown member")
	// ErrReadOnly: the member is answered but never written by clients.
	ErrReadOnly = errors.New("is read-only")
)

// Input is a decoded body for one resource, generated per resource.
type Input[E any] interface {
	// Decode reads one member's raw JSON. It returns ErrUnknownMember for a
	// name the resource does not have, ErrReadOnly for one clients may not
	// write, and otherwise the problem with the value.
	Decode(name string, v []byte) error
	// SetID sets the record's id; GivenID tells it, if one was given.
	SetID(id string)
	GivenID() (string, bool)
	// Values sets the columns a write of the input sets: creating, every
	// member given, the defaults of those not given and the stamps the
	// server fills; updating, the members given (null clears) and the
	// update stamps not given.
	Values(w *Values, creating bool)
	// Missing appends to out the required members not given that no
	// default fills: a create must give them.
	Missing(out []string) []string
	// Fixed sets the columns of the immutable members given: an update
	// writes only if each keeps its value.
	Fixed(w *Values)
	// Parents are the parent records the input names.
	Parents() []ParentRef
	// Then are the records to create with this one (embedded children);
	// an error when the input gives them but it does not create.
	Then(creating bool) ([]Step, error)
}

// Parse adapts a wire converter to a Column's filter parser.
func Parse[T any](conv func([]byte) (T, error)) func([]byte) (any, error) {
	return func(v []byte) (any, error) { return conv(v) }
}

// Parent turns the check that a named parent exists into the error a
// client can act on: the member, and that no such parent exists (another
// team's record looks exactly like a missing one).
func Parent(exists bool, err error, member, object, id string) error {
	if err != nil {
		return err
	}
	if !exists {
		return problem.Member(member, "no %s has id %q", object, id)
	}
	return nil
}

// DecodeEmbedded decodes a member holding an array of child records, each
// with the child resource's input. Member paths in errors are relative:
// "[2].sku".
func DecodeEmbedded[E any](v []byte, child *Resource[E]) ([]Input[E], error) {
	if wire.Kind(v) != "an array" {
		return nil, fmt.Errorf("must be an array of %s objects", child.Object)
	}
	items, err := wire.ParseArray(v)
	if err != nil {
		return nil, fmt.Errorf("must be an array of %s objects", child.Object)
	}
	out := make([]Input[E], len(items))
	var errs []problem.MemberError
	given := map[string]int{} // each id given, by its element, as a bulk create checks
	for i, item := range items {
		at := fmt.Sprintf("[%d]", i)
		members, err := wire.ParseObject(item)
		if err != nil || wire.Kind(item) != "an object" {
			errs = append(errs, problem.MemberError{Member: at, Problem: "must be an object"})
			continue
		}
		in := child.NewInput()
		for _, m := range members {
			err := in.Decode(m.Name, m.Value)
			switch {
			case err == nil:
			case m.Name == "id":
				id, err := wire.ID(m.Value)
				if err != nil {
					errs = append(errs, problem.MemberError{Member: at + ".id", Problem: err.Error()})
				}
				in.SetID(id)
			default:
				errs = append(errs, memberErrors(err, at+"."+m.Name, m.Name, child.Members)...)
			}
		}
		if id, ok := in.GivenID(); ok {
			if j, dup := given[id]; dup {
				errs = append(errs, problem.MemberError{Member: at + ".id", Problem: fmt.Sprintf("repeats [%d].id", j)})
			}
			given[id] = i
		}
		out[i] = in
	}
	if len(errs) > 0 {
		return nil, &problem.Error{Code: problem.InvalidRequest, Members: errs}
	}
	return out, nil
}

// memberErrors says what is wrong with the member name, written at path,
// whose Decode failed with err: it is unknown (with the closest of valid
// when one is close), read-only, or its value is wrong; a value's own
// member errors (embedded records) go under path.
func memberErrors(err error, path, name string, valid []string) []problem.MemberError {
	switch {
	case errors.Is(err, ErrUnknownMember):
		return []problem.MemberError{unknownMember(path, name, valid, "member")}
	case errors.Is(err, ErrReadOnly):
		return []problem.MemberError{{Member: path, Problem: "is read-only"}}
	}
	var pe *problem.Error
	if errors.As(err, &pe) && len(pe.Members) > 0 {
		return problem.Prefix(pe, path).(*problem.Error).Members
	}
	return []problem.MemberError{{Member: path, Problem: err.Error()}}
}

// EmbeddedParent checks that a nested child names its new parent, if it
// names one at all, and makes it name it.
func EmbeddedParent(fk *wire.Field[string], parentID, member string) error {
	if fk.Set && !fk.Null && fk.V != parentID {
		return problem.Member(member, "must be the parent's id (%q) or absent", parentID)
	}
	fk.Put(parentID)
	return nil
}
