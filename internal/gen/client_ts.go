package gen

import (
	"bytes"
	"fmt"
	"path"
	"strings"
)

// The TypeScript client: runtime.ts (the transport, problems, lists, the
// event log and webhooks) and records.ts (the types, services and client),
// rendered from templates/client/*.ts.tmpl. fetch sends no body with GET,
// so its reads travel as query strings, and a get-or-create's create form,
// which needs a GET with a body, is the Go client's only.

// tsClientFiles are the templates of the TypeScript client and the files they render.
var tsClientFiles = []struct{ file, tmpl string }{
	{"runtime.ts", "runtime.ts.tmpl"},
	{"records.ts", "records.ts.tmpl"},
}

// renderTSClient renders the TypeScript client's sources into dir.
func renderTSClient(dir string, cm *clientModel) (map[string][]byte, error) {
	t, err := clientTemplates()
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, f := range tsClientFiles {
		var buf bytes.Buffer
		if err := t.ExecuteTemplate(&buf, f.tmpl, cm); err != nil {
			return nil, fmt.Errorf("rendering %s: %w", f.file, err)
		}
		files[path.Join(dir, f.file)] = buf.Bytes()
	}
	return files, nil
}

// tsInputs are the TypeScript parameter of each kind of input, and the
// function making its query string.
var tsInputs = map[string][2]string{"list": {"ListParams", "listQuery"}, "read": {"ReadParams", "readQuery"}, "page": {"PageParams", "pageQuery"}}

// TSParams are the method's parameters.
func (c *clientCall) TSParams() string {
	var params []string
	if c.IDParam != "" {
		params = append(params, c.IDParam+": string")
	}
	switch c.Input {
	case "record":
		params = append(params, "rec: "+c.Resource.goWrite())
	case "records":
		params = append(params, "recs: "+c.Resource.goWrite()+"[]")
	case "list", "read", "page":
		params = append(params, "p?: "+tsInputs[c.Input][0])
	}
	return strings.Join(append(params, "opts?: RequestOptions"), ", ")
}

// TSArgs pass the method's parameters on, from an iterator.
func (c *clientCall) TSArgs() string {
	var args []string
	if c.IDParam != "" {
		args = append(args, c.IDParam)
	}
	return strings.Join(append(args, "p", "opts"), ", ")
}

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
	fields := []string{fmt.Sprintf("method: %q", c.Method), fmt.Sprintf("path: %q", c.Path)}
	if c.Alt != "" {
		fields = append(fields, fmt.Sprintf("alt: %q", c.Alt))
	}
	if c.IDIn != "" {
		fields = append(fields, "id: "+c.IDParam, fmt.Sprintf("idIn: %q", c.IDIn), fmt.Sprintf("idName: %q", c.IDName))
	}
	switch c.Input {
	case "record":
		fields = append(fields, "body: rec")
	case "records":
		fields = append(fields, "body: recs")
	case "list", "read", "page":
		fields = append(fields, "query: "+tsInputs[c.Input][1]+"(p)")
	}
	send := fmt.Sprintf("this.#t.send<%s>({ %s }, opts)", c.Result, strings.Join(fields, ", "))
	if c.Unwrap != nil {
		return "(await " + send + ")." + c.Unwrap.JSON
	}
	return send
}
