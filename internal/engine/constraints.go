package engine

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"records/internal/problem"
	"records/internal/wire"
)

// What the schema says of a member beyond its type (DESIGN §14), as the
// generated decoders check it: in the request, before the database, with
// no allocation unless a value is refused.

// ErrNull refuses null for a required member.
var ErrNull = errors.New("is required: it cannot be null")

// Text is what the schema says of a text member: required, its length in
// characters, the patterns it matches, the values it may take.
type Text struct {
	Required bool
	MinLen   int // 0: no least length
	MaxLen   int // 0: no greatest length
	Patterns []*regexp.Regexp
	Enum     []string
}

// Check checks the value of a decoded member; absent, it has nothing to check.
func (t *Text) Check(f *wire.Field[string]) error {
	switch {
	case !f.Set:
		return nil
	case f.Null:
		if t.Required {
			return ErrNull
		}
		return nil
	}
	v := f.V
	if t.Enum != nil {
		for _, e := range t.Enum {
			if v == e {
				return nil
			}
		}
		return &valueError{"must be one of " + quotedList(t.Enum)}
	}
	if t.MinLen > 0 || t.MaxLen > 0 {
		n := utf8.RuneCountInString(v)
		if n < t.MinLen {
			return &valueError{fmt.Sprintf("must be at least %d %s long (it has %d)", t.MinLen, characters(t.MinLen), n)}
		}
		if t.MaxLen > 0 && n > t.MaxLen {
			return &valueError{fmt.Sprintf("must be at most %d %s long (it has %d)", t.MaxLen, characters(t.MaxLen), n)}
		}
	}
	for _, re := range t.Patterns {
		if !re.MatchString(v) {
			return &valueError{"must match the pattern " + re.String()}
		}
	}
	return nil
}

func characters(n int) string {
	if n == 1 {
		return "character"
	}
	return "characters"
}

// quotedList writes values as "a", "b", "c".
func quotedList(values []string) string {
	var b strings.Builder
	for i, v := range values {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(v))
	}
	return b.String()
}

// Number is what the schema says of a number member: required, and its
// least and greatest values.
type Number[T int64 | float64] struct {
	Required       bool
	Min, Max       T
	HasMin, HasMax bool
}

// Check checks the value of a decoded member; absent, it has nothing to check.
func (r *Number[T]) Check(f *wire.Field[T]) error {
	switch {
	case !f.Set:
		return nil
	case f.Null:
		if r.Required {
			return ErrNull
		}
		return nil
	case r.HasMin && f.V < r.Min:
		return &valueError{"must be at least " + formatNumber(r.Min)}
	case r.HasMax && f.V > r.Max:
		return &valueError{"must be at most " + formatNumber(r.Max)}
	}
	return nil
}

func formatNumber[T int64 | float64](v T) string {
	switch n := any(v).(type) {
	case int64:
		return strconv.FormatInt(n, 10)
	case float64:
		return strconv.FormatFloat(n, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

// NotNull refuses null for a required member of another type.
func NotNull[T any](f *wire.Field[T]) error {
	if f.Set && f.Null {
		return ErrNull
	}
	return nil
}

// valueError is a refused value: what the value must be.
type valueError struct{ what string }

func (e *valueError) Error() string { return e.what }

// requireMembers refuses a create that leaves out a required member no
// default fills, naming each (under prefix, e.g. "[3]." for a bulk's element).
func requireMembers(in interface{ Missing([]string) []string }, prefix string) error {
	missing := in.Missing(nil)
	if len(missing) == 0 {
		return nil
	}
	errs := make([]problem.MemberError, len(missing))
	for i, m := range missing {
		errs[i] = problem.MemberError{Member: prefix + m, Problem: "is required"}
	}
	return problem.Members(errs)
}
