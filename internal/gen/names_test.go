package gen

import (
	"slices"
	"testing"

	"records/internal/spec"
)

// The naming helpers the templates' view models use, case by case.
func TestNames(t *testing.T) {
	cases := []struct {
		fn      string
		f       func(string) string
		in, out string
	}{
		{"goName", goName, "Update Return", "UpdateReturn"},
		{"goName", goName, "packing_list_items", "PackingListItems"},
		{"goName", goName, "get_or_create", "GetOrCreate"},
		{"goName", goName, "List bill of materials line items", "ListBillOfMaterialsLineItems"},
		{"lowerFirst", lowerFirst, "ReturnRecord", "returnRecord"},
		{"lowerFirst", lowerFirst, "ID", "id"},
		{"lowerFirst", lowerFirst, "SSOID", "ssoid"},
		{"lowerFirst", lowerFirst, "URLPath", "urlPath"},
		{"lowerFirst", lowerFirst, "already", "already"},
		{"toSnake", toSnake, "PurchaseOrder", "purchase_order"},
		{"toSnake", toSnake, "Shelf", "shelf"},
		{"plural", plural, "warranty", "warranties"},
		{"plural", plural, "day", "days"},
		{"plural", plural, "box", "boxes"},
		{"plural", plural, "batch", "batches"},
		{"plural", plural, "status", "statuses"},
		{"goText", goText, `,"name":`, "`,\"name\":`"},
		{"goText", goText, "a`b", "\"a`b\""},
		{"goText", goText, "a\rb", `"a\rb"`},
	}
	for _, c := range cases {
		if got := c.f(c.in); got != c.out {
			t.Errorf("%s(%q) = %q, want %q", c.fn, c.in, got, c.out)
		}
	}
	if got := Plural(NewResource{Type: "LoyaltyTier"}); got != "loyalty_tiers" {
		t.Errorf("Plural(LoyaltyTier) = %q", got)
	}
	if got := Plural(NewResource{Type: "Person", Plural: "people"}); got != "people" {
		t.Errorf("Plural with a plural given = %q", got)
	}
	if got := keyText("id", true); got != "`{\"id\":`" {
		t.Errorf("keyText(id, first) = %s", got)
	}
	if got := keyText("firstName", false); got != "`,\"firstName\":`" {
		t.Errorf("keyText(firstName) = %s", got)
	}
	if got := kindList([]spec.Kind{spec.Create, spec.Patch}, " or "); got != "create or patch" {
		t.Errorf("kindList = %q", got)
	}
	if got := (&opView{Kind: spec.GetOrCreate}).KindConst(); got != "GetOrCreate" {
		t.Errorf("KindConst = %q", got)
	}
	if got := wrapWords("one two three four", 9); !slices.Equal(got, []string{"one two", "three", "four"}) {
		t.Errorf("wrapWords = %q", got)
	}
}

// A member's cursor value: a pointer dereferenced (nil when null), an int
// widened, anything else as it is.
func TestFieldValueOf(t *testing.T) {
	for _, c := range []struct {
		f    fieldView
		want string
	}{
		{fieldView{GoName: "Email", Pointer: true}, "engine.Val(e.Email)"},
		{fieldView{GoName: "TeamID", IntField: true}, "int64(e.TeamID)"},
		{fieldView{GoName: "ID"}, "e.ID"},
	} {
		if got := c.f.ValueOf("e"); got != c.want {
			t.Errorf("ValueOf(%s) = %q, want %q", c.f.GoName, got, c.want)
		}
	}
}
