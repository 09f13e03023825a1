package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"records/internal/problem"
	"records/internal/spec"
)

// Business rules in Go (DESIGN §14): functions a developer registers per
// resource in package rules, which the generator never writes. They run on
// every write route of the resource: Validate before the database,
// BeforeWrite inside the write's transaction (it may read, write and set
// members), AfterCommit once the change is committed, with its event.

// Change is a write as a rule sees it. Body is the resource's decoded body
// (the generated <Type>Input): a member the client gave is Set; a
// BeforeWrite rule may Put members.
type Change[I any] struct {
	// Kind is the operation's: create, patch, upsert, action, delete…
	Kind spec.Kind
	// Creating tells whether the write makes the record. An upsert tells
	// it only to BeforeWrite, which runs once the record is read; to
	// Validate an upsert is not creating.
	Creating bool
	ID       string
	Team     int
	Body     I
}

// Committed is a committed change, as its rule's AfterCommit receives it.
type Committed struct {
	ID       string // the event's, evt_…
	Type     string // e.g. "cases.updated"
	RecordID string
	Team     int
	// JSON is the event exactly as the event log answers it.
	JSON []byte
}

// Tx is the write's transaction: a BeforeWrite rule reads and writes with
// it, and what it writes commits with the change or not at all.
type Tx = Writer

// Rules are one resource's business rules. The generated package makes
// them (resources.NewRules); package rules adds to them; the server
// installs them (Service.SetRules).
type Rules[E any, I Input[E]] struct {
	validate    []func(ctx context.Context, c *Change[I]) error
	beforeWrite []func(ctx context.Context, tx Tx, c *Change[I]) error
	afterCommit []func(ctx context.Context, e Committed)
}

// Validate adds a rule that checks a write before the database: a
// *problem.Error it returns is the answer (problem.Member for a 400
// naming a member); another error is a 422 rule_failed with its text.
func (r *Rules[E, I]) Validate(fn func(ctx context.Context, c *Change[I]) error) {
	r.validate = append(r.validate, fn)
}

// BeforeWrite adds a rule run inside the write's transaction, before the
// record is written: it may read and write through tx and set members of
// c.Body; an error is answered as Validate's, and nothing is written.
func (r *Rules[E, I]) BeforeWrite(fn func(ctx context.Context, tx Tx, c *Change[I]) error) {
	r.beforeWrite = append(r.beforeWrite, fn)
}

// AfterCommit adds a rule run once the change is committed, with its
// event, apart from the request (the answer does not wait for it). It
// cannot undo the change; what it does is its own (a panic is logged).
func (r *Rules[E, I]) AfterCommit(fn func(ctx context.Context, e Committed)) {
	r.afterCommit = append(r.afterCommit, fn)
}

// ruleRunner is a resource's rules as the engine runs them.
type ruleRunner[E any] interface {
	runValidate(ctx context.Context, c *change[E]) error
	runBeforeWrite(ctx context.Context, tx Tx, c *change[E]) error
	hasBeforeWrite() bool
	hasAfterCommit() bool
	runAfterCommit(ctx context.Context, e Committed)
}

// change is a Change before its body is typed.
type change[E any] struct {
	kind     spec.Kind
	creating bool
	id       string
	team     int
	in       Input[E]
}

func (r *Rules[E, I]) typed(c *change[E]) *Change[I] {
	body, _ := c.in.(I)
	return &Change[I]{Kind: c.kind, Creating: c.creating, ID: c.id, Team: c.team, Body: body}
}

func (r *Rules[E, I]) runValidate(ctx context.Context, c *change[E]) error {
	if len(r.validate) == 0 {
		return nil
	}
	tc := r.typed(c)
	for _, fn := range r.validate {
		if err := fn(ctx, tc); err != nil {
			return ruleError(err)
		}
	}
	return nil
}

func (r *Rules[E, I]) runBeforeWrite(ctx context.Context, tx Tx, c *change[E]) error {
	tc := r.typed(c)
	for _, fn := range r.beforeWrite {
		if err := fn(ctx, tx, tc); err != nil {
			return ruleError(err)
		}
	}
	return nil
}

func (r *Rules[E, I]) hasBeforeWrite() bool { return len(r.beforeWrite) > 0 }
func (r *Rules[E, I]) hasAfterCommit() bool { return len(r.afterCommit) > 0 }

func (r *Rules[E, I]) runAfterCommit(ctx context.Context, e Committed) {
	for _, fn := range r.afterCommit {
		fn(ctx, e)
	}
}

// ruleError is a rule's failure as answered: its problem, or a 422
// rule_failed saying what the rule said.
func ruleError(err error) error {
	var p *problem.Error
	if errors.As(err, &p) {
		return p
	}
	return &problem.Error{Code: spec.RuleFailed, Detail: err.Error()}
}

// RuleFailed is a rule's refusal naming the members it concerns: a 422
// rule_failed whose detail is the reason.
func RuleFailed(reason string, members ...string) error {
	p := &problem.Error{Code: spec.RuleFailed, Detail: reason}
	for _, m := range members {
		p.Members = append(p.Members, problem.MemberError{Member: m, Problem: reason})
	}
	return p
}

// CommittedEvents reads the event of a record's change — its action
// (created, updated, deleted, restored, purged) at a version — for
// AfterCommit (the event log, package events).
type CommittedEvents interface {
	Change(ctx context.Context, team int, plural, id, action string, version int64) (Committed, bool, error)
}

// SetRules installs a resource's rules (a *Rules of it) on the service.
func (s *Service) SetRules(plural string, rules any) {
	if s.rules == nil {
		s.rules = map[string]any{}
	}
	s.rules[plural] = rules
}

// rulesOf are the resource's rules, nil when it has none.
func rulesOf[E any](s *Service, res *Resource[E]) ruleRunner[E] {
	r, _ := s.rules[res.Plural].(ruleRunner[E])
	return r
}

// afterCommitTimeout bounds an after-commit rule's run.
const afterCommitTimeout = 30 * time.Second

// afterCommits are the after-commit rules of a request whose writes share
// one transaction (a keyed write's): they run once it commits.
type afterCommits struct{ fns []func() }

type afterCommitsKey struct{}

func (a *afterCommits) run() {
	for _, fn := range a.fns {
		fn()
	}
}

// committed runs the resource's after-commit rules with the event of the
// record's change: created or updated, told by rec's version (1 made it),
// or deleted (moved to the trash) when rec is nil.
func committed[E any](ctx context.Context, s *Service, res *Resource[E], team int, id string, rec *E) {
	action, version := "deleted", int64(0)
	if rec != nil {
		action, version = "updated", res.Version(rec)
		if version == 1 {
			action = "created"
		}
	}
	afterCommit(ctx, s, res, team, id, action, version)
}

// afterCommit runs the resource's after-commit rules with the event of the
// record's change — its action (created, updated, deleted, restored,
// purged) at version (of the record the change wrote; 0 for deleted and
// purged, whose events hold no record) — apart from the request: now, or
// once the request's transaction commits when its writes share one. Every
// route and the janitor run the rules here.
func afterCommit[E any](ctx context.Context, s *Service, res *Resource[E], team int, id, action string, version int64) {
	r := rulesOf(s, res)
	if r == nil || !r.hasAfterCommit() || s.Events == nil {
		return
	}
	ctx = context.WithoutCancel(ctx)
	run := func() { runCommitted(ctx, s, res, r, team, id, action, version) }
	if later, ok := ctx.Value(afterCommitsKey{}).(*afterCommits); ok {
		later.fns = append(later.fns, run)
		return
	}
	run()
}

// Purged runs the after-commit rules of the resource whose table is table
// for the purge of its record id, which the caller (the janitor) erased
// and committed.
func (s *Service) Purged(ctx context.Context, table string, team int, id string) {
	for _, r := range s.resources {
		if d, ok := r.(Described); ok && d.table() == table {
			d.purged(ctx, s, team, id)
			return
		}
	}
}

// purged runs the resource's after-commit rules for the purge of id.
func (res *Resource[E]) purged(ctx context.Context, s *Service, team int, id string) {
	afterCommit(ctx, s, res, team, id, "purged", 0)
}

func runCommitted[E any](ctx context.Context, s *Service, res *Resource[E], r ruleRunner[E], team int, id, action string, version int64) {
	go func() {
		ctx, cancel := context.WithTimeout(ctx, afterCommitTimeout)
		defer cancel()
		defer func() {
			if p := recover(); p != nil {
				s.logger().Error("an after-commit rule panicked", "resource", res.Plural, "id", id, "panic", fmt.Sprint(p))
			}
		}()
		e, ok, err := s.Events.Change(ctx, team, res.Plural, id, action, version)
		if err != nil || !ok {
			s.logger().Error("an after-commit rule cannot read its event", "resource", res.Plural, "id", id, "err", err)
			return
		}
		r.runAfterCommit(ctx, e)
	}()
}

func (s *Service) logger() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}
