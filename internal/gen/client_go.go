package gen

import (
	"bytes"
	"fmt"
	"go/format"
	"path"
	"strings"
	"sync"
	"text/template"

	"records/templates"
)

// The Go client: a package of its own (client/ in this repository), every
// file of it rendered from templates/client/*.go.tmpl, the fixed runtime
// included, so the generator owns the whole folder.

// goClientFiles are the templates of the Go client and the files they render.
var goClientFiles = []struct{ file, tmpl string }{
	{"client.go", "client.go.tmpl"},
	{"problem.go", "problem.go.tmpl"},
	{"params.go", "params.go.tmpl"},
	{"events.go", "events.go.tmpl"},
	{"records.go", "records.go.tmpl"},
	{"operations.go", "operations.go.tmpl"},
	{"routes.go", "routes.go.tmpl"},
}

var (
	clientParseOnce sync.Once
	clientTmpl      *template.Template
	clientParseErr  error
)

// clientTemplates parses the clients' templates once.
func clientTemplates() (*template.Template, error) {
	clientParseOnce.Do(func() {
		clientTmpl, clientParseErr = template.New("client").ParseFS(templates.FS, "client/*.tmpl")
	})
	return clientTmpl, clientParseErr
}

// renderGoClient renders the Go client's package into dir.
func renderGoClient(dir string, cm *clientModel) (map[string][]byte, error) {
	t, err := clientTemplates()
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, f := range goClientFiles {
		var buf bytes.Buffer
		if err := t.ExecuteTemplate(&buf, f.tmpl, cm); err != nil {
			return nil, fmt.Errorf("rendering %s: %w", f.file, err)
		}
		src, err := format.Source(buf.Bytes())
		if err != nil {
			return nil, fmt.Errorf("formatting %s: %w\n%s", f.file, err, numbered(buf.Bytes()))
		}
		files[path.Join(dir, f.file)] = src
	}
	return files, nil
}

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

// goInputs are the Go parameter of each kind of input.
var goInputs = map[string]string{"list": "*ListParams", "read": "*ReadParams", "page": "*PageParams"}

// GoInput is the type of the method's parameters: a list's, a read's or a page's.
func (c *clientCall) GoInput() string { return goInputs[c.Input] }

// GoParams are the method's parameters.
func (c *clientCall) GoParams() string {
	params := []string{"ctx context.Context"}
	if c.IDParam != "" {
		params = append(params, c.IDParam+" string")
	}
	switch c.Input {
	case "record":
		params = append(params, "rec "+c.Resource.goWrite())
	case "records":
		params = append(params, "recs []"+c.Resource.goWrite())
	case "list", "read", "page":
		params = append(params, "p "+c.GoInput())
	}
	return strings.Join(append(params, "opts ...RequestOption"), ", ")
}

// GoArgs pass the method's parameters on, from an iterator.
func (c *clientCall) GoArgs() string {
	args := []string{"ctx"}
	if c.IDParam != "" {
		args = append(args, c.IDParam)
	}
	return strings.Join(append(args, "p", "opts..."), ", ")
}

// GoReturn is what the method returns besides its error.
func (c *clientCall) GoReturn() string {
	if c.Unwrap != nil {
		return c.Unwrap.GoType
	}
	return "*" + c.Result
}

// GoCall is the call the method makes, as a Go literal.
func (c *clientCall) GoCall() string {
	fields := []string{fmt.Sprintf("method: %q", c.Method), fmt.Sprintf("path: %q", c.Path)}
	if c.Alt != "" {
		fields = append(fields, fmt.Sprintf("alt: %q", c.Alt))
	}
	if c.IDIn != "" {
		fields = append(fields, "id: "+c.IDParam, "idIn: in"+goName(c.IDIn), fmt.Sprintf("idName: %q", c.IDName))
	}
	switch c.Input {
	case "record":
		fields = append(fields, "body: rec")
	case "records":
		fields = append(fields, "body: recs")
	case "list":
		fields = append(fields, "body: p.body()")
	case "read", "page":
		fields = append(fields, "query: p.query()")
	}
	return "call{" + strings.Join(fields, ", ") + "}"
}

// goWrite is the resource's write type in Go; in the TypeScript client it has the same name.
func (cr *clientResource) goWrite() string { return cr.Type + "Write" }
