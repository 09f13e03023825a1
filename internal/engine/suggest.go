package engine

import (
	"records/internal/problem"
	"records/internal/suggest"
)

// unknownMember is the error for a member the operation does not take, at
// path (the name, or the name under a wrapper), with the closest valid name
// when one is close enough to be a typo.
func unknownMember(path, name string, valid []string, what string) problem.MemberError {
	return problem.MemberError{Member: path, Problem: "unknown " + what + suggest.Hint(name, valid)}
}
