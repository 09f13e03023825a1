package server_test

import (
	"strings"
	"testing"

	"records/internal/auth"
	"records/internal/db"
	"records/internal/server"
	"records/internal/servertest"
)

// harness is servertest's harness under the names this package's tests
// use: the logic lives there, shared with the tests of events and
// webhooks. The fields here are the ones tests set (some build a harness
// of their own, or serve another server): each call hands them over.
type harness struct {
	*servertest.Harness
	t         testing.TB
	db        *db.DB
	srv       *server.Server
	token     string // a write token of the default team
	logs      *servertest.Log
	header    map[string]string // sent with every request
	unchecked bool              // skips the contract check
}

// sync hands the fields tests set to the shared harness.
func (h *harness) sync() *servertest.Harness {
	if h.Harness == nil {
		h.Harness = &servertest.Harness{}
	}
	x := h.Harness
	x.T, x.DB, x.Srv, x.Token, x.Logs, x.Header, x.Unchecked = h.t, h.db, h.srv, h.token, h.logs, h.header, h.unchecked
	return x
}

func wrap(x *servertest.Harness) *harness {
	return &harness{Harness: x, t: x.T, db: x.DB, srv: x.Srv, token: x.Token, logs: x.Logs}
}

// testConfig is the server's configuration in tests (servertest.Config).
func testConfig() server.Config { return servertest.Config() }

// each runs fn on a fresh server per database, in parallel.
func each(t *testing.T, fn func(t *testing.T, h *harness)) {
	t.Helper()
	servertest.Each(t, func(t *testing.T, x *servertest.Harness) { fn(t, wrap(x)) })
}

// eachCollation is each, and once more under an ICU default collation
// (servertest.EachCollation).
func eachCollation(t *testing.T, fn func(t *testing.T, h *harness)) {
	t.Helper()
	servertest.EachCollation(t, func(t *testing.T, x *servertest.Harness) { fn(t, wrap(x)) })
}

func newHarness(t testing.TB, dialect string, cfg server.Config) *harness {
	t.Helper()
	return wrap(servertest.New(t, dialect, cfg))
}

// newToken issues a token and returns its secret.
func (h *harness) newToken(name string, scope auth.Scope, team string) string {
	h.t.Helper()
	return h.sync().NewToken(name, scope, team)
}

// response is servertest's answer under this package's names.
type response struct{ *servertest.Response }

func (h *harness) call(method, path, body string, headers ...string) *response {
	h.t.Helper()
	return h.callAs(h.token, method, path, body, headers...)
}

func (h *harness) callAs(token, method, path, body string, headers ...string) *response {
	h.t.Helper()
	return &response{h.sync().CallAs(token, method, path, body, headers...)}
}

func (r *response) want(status int) *response {
	r.T.Helper()
	r.Want(status)
	return r
}

func (r *response) at(path ...any) any { r.T.Helper(); return r.At(path...) }

func (r *response) obj(path ...any) map[string]any { r.T.Helper(); return r.Obj(path...) }

func (r *response) list(path ...any) []any { r.T.Helper(); return r.List(path...) }

func (r *response) problem(status int, code string, members ...string) *response {
	r.T.Helper()
	r.Problem(status, code, members...)
	return r
}

func (r *response) mentions(texts ...string) *response {
	r.T.Helper()
	r.Mentions(texts...)
	return r
}

func dig(t testing.TB, v any, path ...any) any { t.Helper(); return servertest.Dig(t, v, path...) }

// The shared helpers of servertest, under this package's names.
var (
	count       = servertest.Count
	startServer = servertest.Serve
	send        = servertest.Send
	gaugeValue  = servertest.GaugeValue
)

// secondServerWith is another instance on h's database, configured with cfg.
func secondServerWith(t testing.TB, h *harness, cfg server.Config) *server.Server {
	t.Helper()
	return servertest.SecondServer(t, h.sync(), cfg)
}

// jsonArray is a JSON array of n items, item(i) writing the i-th: a bulk
// body.
func jsonArray(n int, item func(i int) string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(item(i))
	}
	b.WriteByte(']')
	return b.String()
}
