package gen

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The document the generator writes, and the baseline it is compared with:
// the document as it was before its schemas were last reshaped, kept to
// prove that a reshaping (naming schemas, sharing them, moving them into
// components) changed nothing any route accepts or answers.
const (
	documentFile = "../resources/openapi.json"
	baselineFile = "testdata/openapi-baseline.json.gz"
)

var updateBaseline = flag.Bool("openapi-baseline", false,
	"replace "+baselineFile+" with the current document, once a change of what routes accept is intended and reviewed")

// Every route accepts and answers exactly what it did in the baseline:
// the same parameters, bodies, members, types, formats, enums, patterns,
// bounds and required members, and the same statuses, headers and answers.
// Each operation of one document is compared with the same operation of
// the other with every $ref followed, so a schema moved into a component,
// or shared by several, compares equal to the one written out in place;
// descriptions and summaries are left out (they are prose, not
// constraints). Recursive schemas (a filter's and, or and not) compare
// equal when they unfold alike, however they are named or split. The
// comparison works on the JSON itself, not on a library's model of it, so
// no keyword a library does not model escapes it.
func TestOpenAPIAcceptsWhatTheBaselineDid(t *testing.T) {
	current, err := os.ReadFile(documentFile)
	if err != nil {
		t.Fatal(err)
	}
	if *updateBaseline {
		writeBaseline(t, current)
	}
	diffs, compared := compareDocuments(t, readBaseline(t), current)
	if len(diffs) > 0 {
		if len(diffs) > 40 {
			diffs = append(diffs[:40], fmt.Sprintf("… and %d more", len(diffs)-40))
		}
		t.Fatalf("the document differs from %s in what routes accept or answer (run with -openapi-baseline once the change is intended):\n%s",
			baselineFile, strings.Join(diffs, "\n"))
	}
	if compared < 120 {
		t.Fatalf("only %d operations compared", compared)
	}
}

// The comparison sees a constraint lost deep inside a shared component,
// an enum changed, a parameter dropped, a status added, and a header lost
// from a status that a range response (4XX) answers.
func TestOpenAPIComparisonCatchesDrift(t *testing.T) {
	current, err := os.ReadFile(documentFile)
	if err != nil {
		t.Fatal(err)
	}
	if diffs, _ := compareDocuments(t, current, current); len(diffs) > 0 {
		t.Fatalf("the document differs from itself: %v", diffs)
	}
	mutations := map[string]func(doc map[string]any){
		"a bound of Id": func(doc map[string]any) {
			delete(at(doc, "components", "schemas", "Id").(map[string]any), "maxLength")
		},
		"the codes of Problem": func(doc map[string]any) {
			code := at(doc, "components", "schemas", "Problem", "properties", "code").(map[string]any)
			code["enum"] = code["enum"].([]any)[1:]
		},
		"a parameter": func(doc map[string]any) {
			op := at(doc, "paths", "/v1/events", "get").(map[string]any)
			op["parameters"] = op["parameters"].([]any)[1:]
		},
		"a status": func(doc map[string]any) {
			responses := at(doc, "paths", "/healthz", "get", "responses").(map[string]any)
			responses["418"] = responses["200"]
		},
		"a header of a status a range answers": func(doc map[string]any) {
			delete(at(doc, "components", "responses", "ClientError", "headers").(map[string]any), "Retry-After")
		},
		"a filter nested in a filter": func(doc map[string]any) {
			and := at(doc, "components", "schemas", "ReturnFilter", "properties", "and").(map[string]any)
			and["items"] = map[string]any{"$ref": "#/components/schemas/ReturnFilterQuery"}
		},
	}
	for what, mutate := range mutations {
		var doc map[string]any
		if err := json.Unmarshal(current, &doc); err != nil {
			t.Fatal(err)
		}
		mutate(doc)
		b, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		if diffs, _ := compareDocuments(t, current, b); len(diffs) == 0 {
			t.Errorf("the comparison missed %s", what)
		}
	}
}

func readBaseline(t *testing.T) []byte {
	t.Helper()
	f, err := os.Open(baselineFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// writeBaseline keeps doc, compacted and compressed, as the baseline.
func writeBaseline(t *testing.T, doc []byte) {
	t.Helper()
	var compact, out bytes.Buffer
	if err := json.Compact(&compact, doc); err != nil {
		t.Fatal(err)
	}
	z, _ := gzip.NewWriterLevel(&out, gzip.BestCompression)
	z.Write(compact.Bytes())
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(baselineFile, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// compareDocuments lists where the operations of two documents differ,
// each as "METHOD path" and a JSON pointer into the operation, and counts
// the operations compared.
func compareDocuments(t *testing.T, before, after []byte) ([]string, int) {
	t.Helper()
	a, b := decodeDocument(t, before), decodeDocument(t, after)
	opsA, opsB := a.operations(), b.operations()
	c := &comparison{a: a, b: b, assumed: map[[2]uintptr]bool{}}
	for _, key := range sortedKeys(opsA) {
		if _, ok := opsB[key]; !ok {
			c.diffs = append(c.diffs, key+": gone")
			continue
		}
		c.op = key
		c.equal(opsA[key], b.coverByRanges(a, opsA[key], opsB[key]), "", "")
	}
	for _, key := range sortedKeys(opsB) {
		if _, ok := opsA[key]; !ok {
			c.diffs = append(c.diffs, key+": new")
		}
	}
	return c.diffs, len(opsA)
}

type document struct{ root map[string]any }

func decodeDocument(t *testing.T, b []byte) document {
	t.Helper()
	var root map[string]any
	if err := json.Unmarshal(b, &root); err != nil {
		t.Fatal(err)
	}
	return document{root}
}

// operations are the document's operations by "METHOD path", each with
// the path's parameters and the document's security when it has none of
// its own, its parameters in a stable order.
func (d document) operations() map[string]map[string]any {
	out := map[string]map[string]any{}
	paths, _ := d.root["paths"].(map[string]any)
	for path, item := range paths {
		item, _ := d.deref(item).(map[string]any)
		for method, op := range item {
			op, ok := op.(map[string]any)
			if !ok || method == "parameters" {
				continue
			}
			o := map[string]any{}
			for k, v := range op {
				o[k] = v
			}
			var params []any
			for _, p := range append(anyList(item["parameters"]), anyList(op["parameters"])...) {
				params = append(params, d.deref(p))
			}
			sortParameters(params)
			o["parameters"] = params
			// A body is optional unless required says otherwise: a
			// required of false is the same as none.
			if body, ok := d.deref(o["requestBody"]).(map[string]any); ok && body["required"] == false {
				b := map[string]any{}
				for k, v := range body {
					if k != "required" {
						b[k] = v
					}
				}
				o["requestBody"] = b
			}
			if _, ok := o["security"]; !ok {
				o["security"] = d.root["security"]
			}
			out[strings.ToUpper(method)+" "+path] = o
		}
	}
	return out
}

// deref follows n's $refs to what they name. Members beside a $ref
// (OpenAPI 3.1 allows them) that are not prose are kept, over what it
// names.
func (d document) deref(n any) any {
	for range 100 {
		m, ok := n.(map[string]any)
		if !ok {
			return n
		}
		ref, ok := m["$ref"].(string)
		if !ok {
			return n
		}
		target := d.pointer(ref)
		var extra map[string]any
		for k, v := range m {
			if k != "$ref" && !prose[k] {
				if extra == nil {
					extra = map[string]any{}
				}
				extra[k] = v
			}
		}
		if extra == nil {
			n = target
			continue
		}
		t, ok := target.(map[string]any)
		if !ok {
			return m
		}
		merged := map[string]any{}
		for k, v := range t {
			merged[k] = v
		}
		for k, v := range extra {
			merged[k] = v
		}
		n = merged
	}
	panic("a chain of 100 references")
}

// coverByRanges is op (of d) with the statuses of before's operation that
// op answers by a range (4XX for a 404 it does not name) written out: the
// range's response, with those of its headers the status's response had
// (a range's other headers are optional ones of its other statuses). A
// range that covers no status of before stays, and compares as new.
func (d document) coverByRanges(before document, was, op map[string]any) map[string]any {
	old, _ := was["responses"].(map[string]any)
	now, _ := op["responses"].(map[string]any)
	if old == nil || now == nil {
		return op
	}
	responses := map[string]any{}
	for k, v := range now {
		responses[k] = v
	}
	used := map[string]bool{}
	for status, answer := range old {
		if _, ok := now[status]; ok || len(status) != 3 {
			continue
		}
		rng := status[:1] + "XX"
		covering, ok := d.deref(now[rng]).(map[string]any)
		if !ok {
			continue
		}
		had, _ := before.deref(answer).(map[string]any)
		headers, _ := covering["headers"].(map[string]any)
		hadHeaders, _ := had["headers"].(map[string]any)
		kept := map[string]any{}
		for name := range hadHeaders {
			if h, ok := headers[name]; ok {
				kept[name] = h
			}
		}
		written := map[string]any{}
		for k, v := range covering {
			written[k] = v
		}
		written["headers"] = kept
		responses[status] = written
		used[rng] = true
	}
	for rng := range used {
		delete(responses, rng)
	}
	out := map[string]any{}
	for k, v := range op {
		out[k] = v
	}
	out["responses"] = responses
	return out
}

// flatten writes a schema that adds only required members to the one
// schema of its allOf ({"allOf": [ReturnSparse], "required": [...]}, and
// keywords equal to that schema's, as its type) as that schema with those
// members required too: what both accept is the same, for required
// interacts with no other keyword. Any other allOf stays as it is.
func (d document) flatten(n any) any {
	m, ok := n.(map[string]any)
	if !ok {
		return n
	}
	all, ok := m["allOf"].([]any)
	if !ok || len(all) != 1 {
		return n
	}
	inner, ok := d.flatten(d.deref(all[0])).(map[string]any)
	if !ok {
		return n
	}
	for k, v := range m {
		if k != "allOf" && k != "required" && !prose[k] && !reflect.DeepEqual(v, inner[k]) {
			return n
		}
	}
	out := map[string]any{}
	for k, v := range inner {
		out[k] = v
	}
	required := slices.Clone(anyList(m["required"]))
	for _, r := range anyList(inner["required"]) {
		if !slices.Contains(required, r) {
			required = append(required, r)
		}
	}
	if len(required) > 0 {
		out["required"] = required
	}
	return out
}

// pointer finds a local reference, "#/components/schemas/Id".
func (d document) pointer(ref string) any {
	if !strings.HasPrefix(ref, "#/") {
		panic("a reference outside the document: " + ref)
	}
	var node any = d.root
	for _, part := range strings.Split(ref[2:], "/") {
		part = strings.NewReplacer("~1", "/", "~0", "~").Replace(part)
		m, ok := node.(map[string]any)
		if !ok || m[part] == nil {
			panic("a reference to nothing: " + ref)
		}
		node = m[part]
	}
	return node
}

// prose are the members that describe rather than constrain.
var prose = map[string]bool{"description": true, "summary": true, "title": true, "example": true, "examples": true, "tags": true, "externalDocs": true}

// namesMaps are the members whose keys are names (of members, headers,
// media types, statuses), never keywords, so none is prose.
var namesMaps = map[string]bool{"properties": true, "patternProperties": true, "headers": true, "content": true, "responses": true, "schemas": true, "encoding": true, "$defs": true}

// comparison compares two documents' operations.
type comparison struct {
	a, b  document
	op    string
	diffs []string
	// assumed are the pairs of objects being compared, taken as equal
	// while they are: two recursive schemas are equal when no difference
	// turns up anywhere in their unfolding.
	assumed map[[2]uintptr]bool
}

// equal compares x (of the first document) with y (of the second), the
// values of a member named key, found at the JSON pointer at.
func (c *comparison) equal(x, y any, key, at string) {
	x, y = c.a.flatten(c.a.deref(x)), c.b.flatten(c.b.deref(y))
	mx, okx := x.(map[string]any)
	my, oky := y.(map[string]any)
	if okx && oky {
		pair := [2]uintptr{reflect.ValueOf(mx).Pointer(), reflect.ValueOf(my).Pointer()}
		if c.assumed[pair] {
			return
		}
		c.assumed[pair] = true
		names := namesMaps[key]
		for _, k := range sortedKeys(mx) {
			if prose[k] && !names {
				continue
			}
			if _, ok := my[k]; !ok {
				c.diffs = append(c.diffs, fmt.Sprintf("%s %s/%s: gone", c.op, at, k))
				continue
			}
			child := k
			if names {
				child = "" // a member named content is a schema
			}
			c.equal(mx[k], my[k], child, at+"/"+k)
		}
		for _, k := range sortedKeys(my) {
			if _, ok := mx[k]; !ok && (names || !prose[k]) {
				c.diffs = append(c.diffs, fmt.Sprintf("%s %s/%s: new", c.op, at, k))
			}
		}
		return
	}
	lx, okx := x.([]any)
	ly, oky := y.([]any)
	if okx && oky && len(lx) == len(ly) {
		for i := range lx {
			c.equal(lx[i], ly[i], "", at+"/"+strconv.Itoa(i))
		}
		return
	}
	if !reflect.DeepEqual(x, y) {
		c.diffs = append(c.diffs, fmt.Sprintf("%s %s: %.120s → %.120s", c.op, at, compactJSON(x), compactJSON(y)))
	}
}

// sortParameters orders parameters by where they go, then name: their
// order in the document means nothing.
func sortParameters(params []any) {
	key := func(p any) string {
		m, _ := p.(map[string]any)
		return fmt.Sprint(m["in"], " ", m["name"])
	}
	sort.SliceStable(params, func(i, j int) bool { return key(params[i]) < key(params[j]) })
}

func compactJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// at walks a decoded document by keys.
func at(doc map[string]any, keys ...string) any {
	var node any = doc
	for _, k := range keys {
		node = node.(map[string]any)[k]
	}
	return node
}

// maxDocument is what the document may weigh, minified: the docs page
// and every generator read it whole.
const maxDocument = 400_000

// The document, minified, stays under maxDocument bytes.
func TestOpenAPIDocumentIsSmall(t *testing.T) {
	doc, err := os.ReadFile(documentFile)
	if err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, doc); err != nil {
		t.Fatal(err)
	}
	if n := compact.Len(); n >= maxDocument {
		t.Fatalf("the document is %d bytes minified, over %d", n, maxDocument)
	} else {
		t.Logf("the document is %d bytes minified (%d indented)", n, len(doc))
	}
}
