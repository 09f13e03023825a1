package gen

import (
	"encoding/json"
	"strings"
	"testing"
)

// The catalog folds a schema built twice into one, under the name of the
// lowest rank; keeps two fixed names apart however alike; folds a
// resource's schemas only with its own; and leaves out what nothing uses.
func TestCatalogNamesAndFoldsSchemas(t *testing.T) {
	c := newCatalog()
	shelf, book := &resourceView{Type: "Shelf"}, &resourceView{Type: "Book"}
	object := func() *obj { return newObj("type", "object", "properties", newObj("id", ref("Id"))) }
	c.define("Id", newObj("type", "string"))
	c.defineFor(shelf, "ShelfExpanded", object())
	c.defineFor(book, "BookExpanded", object()) // alike, but another fixed name
	c.defineFor(shelf, "ShelfUnused", newObj("type", "integer"))
	asOp := c.name(schemaName{"StockShelfRecord", operationName, "Shelf"}, object())
	generic := c.name(schemaName{"ShelfDeleteRequest", resourceName, "Shelf"}, newObj("type", "boolean"))
	contract := c.name(schemaName{"ClearShelfRequest", operationName, "Shelf"}, newObj("type", "boolean"))
	bookDelete := c.name(schemaName{"BookDeleteRequest", resourceName, "Book"}, newObj("type", "boolean"))
	paths := newObj("a", asOp, "b", contract, "c", generic, "d", bookDelete, "e", ref("BookExpanded"))
	schemas, err := c.named(paths)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(paths)
	for _, want := range []string{`"a":{"$ref":"#/components/schemas/ShelfExpanded"}`, `"b":{"$ref":"#/components/schemas/ShelfDeleteRequest"}`,
		`"c":{"$ref":"#/components/schemas/ShelfDeleteRequest"}`, `"d":{"$ref":"#/components/schemas/BookDeleteRequest"}`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the references lack %s: %s", want, b)
		}
	}
	if got := strings.Join(schemas.keys, " "); got != "BookDeleteRequest BookExpanded Id ShelfDeleteRequest ShelfExpanded" {
		t.Errorf("schemas %s", got)
	}

	clash := newCatalog()
	x := clash.name(shared("TextInput"), newObj("type", "string"))
	y := clash.name(shared("TextInput"), newObj("type", "string", "maxLength", 3))
	if _, err := clash.named(newObj("x", x, "y", y)); err == nil || !strings.Contains(err.Error(), "two OpenAPI schemas named TextInput") {
		t.Errorf("one name for two schemas: %v", err)
	}
}
