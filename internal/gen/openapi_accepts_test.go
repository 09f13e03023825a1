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
