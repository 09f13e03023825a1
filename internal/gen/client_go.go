package gen

import "strings"

// The Go client: a package of its own (client/ in this repository), every
// file of it rendered from templates/client/*.go.tmpl (client_render.go),
// the fixed runtime included, so the generator owns the whole folder. Here
// are the decisions its methods' templates print.

// GoRecv is the method's receiver: the Client, or the resource's service.
func (c *clientCall) GoRecv() string {
	if c.OnService {
		return "s *" + c.Resource.Type + "Service"
	}
	return "c *Client"
}

// GoSelf is the receiver.
func (c *clientCall) GoSelf() string { return strings.Fields(c.GoRecv())[0] }

// GoClient is the Client, seen from the receiver.
func (c *clientCall) GoClient() string {
	if c.OnService {
		return "s.c"
	}
	return "c"
}

// GoInput is the type of the method's parameters: a list's, a read's or a page's.
func (c *clientCall) GoInput() string { return clientInputs[c.Input].types[goLang] }

// GoParams are the method's parameters.
func (c *clientCall) GoParams() string {
	return strings.Join(append(append([]string{"ctx context.Context"}, c.params(goLang)...), "opts ...RequestOption"), ", ")
}

// GoArgs pass the method's parameters on, from an iterator.
func (c *clientCall) GoArgs() string {
	return strings.Join(append([]string{"ctx"}, c.args("opts...")...), ", ")
}

// GoReturn is what the method returns besides its error.
func (c *clientCall) GoReturn() string {
	if c.Unwrap != nil {
		return c.Unwrap.GoType
	}
	return "*" + c.Result
}

// GoCall is the call the method makes, as a Go literal.
func (c *clientCall) GoCall() string { return "call{" + strings.Join(c.callFields(goLang), ", ") + "}" }
