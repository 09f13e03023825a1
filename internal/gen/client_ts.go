package gen

import (
	"fmt"
	"strings"
)

// The TypeScript client: runtime.ts (the transport, problems, lists, the
// event log and webhooks) and records.ts (the types, services and client),
// rendered from templates/client/*.ts.tmpl (client_render.go). fetch sends no body with GET,
// so its reads travel as query strings, and a get-or-create's create form,
// which needs a GET with a body, is the Go client's only.

// TSParams are the method's parameters.
func (c *clientCall) TSParams() string {
	return strings.Join(append(c.params(tsLang), "opts?: RequestOptions"), ", ")
}

// TSArgs pass the method's parameters on, from an iterator.
func (c *clientCall) TSArgs() string { return strings.Join(c.args("opts"), ", ") }

// TSReturn is what the method's promise answers.
func (c *clientCall) TSReturn() string {
	if c.Unwrap != nil {
		return c.Unwrap.TSType
	}
	return c.Result
}

// TSAsync makes the method async when it awaits its answer to unwrap it.
func (c *clientCall) TSAsync() string {
	if c.Unwrap != nil {
		return "async "
	}
	return ""
}

// TSSend is the expression sending the call and answering the result.
func (c *clientCall) TSSend() string {
	send := fmt.Sprintf("this.#t.send<%s>({ %s }, opts)", c.Result, strings.Join(c.callFields(tsLang), ", "))
	if c.Unwrap != nil {
		return "(await " + send + ")." + c.Unwrap.JSON
	}
	return send
}
