package gen

import (
	"strings"
	"testing"
)

func TestClientNames(t *testing.T) {
	for in, want := range map[string]string{"new_user_group": "NewUserGroup", "provided_id": "ProvidedID",
		"insert_return_line_items": "InsertReturnLineItems", "url": "URL", "case": "Case"} {
		if got := goField(in); got != want {
			t.Errorf("goField(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"email": "email", "firstName": "firstName", "image-1": `"image-1"`, "$x": "$x", "1a": `"1a"`} {
		if got := tsKey(in); got != want {
			t.Errorf("tsKey(%q) = %q, want %q", in, got, want)
		}
	}
	if got := tsAccess("r", "data"); got != "r.data" {
		t.Errorf("tsAccess: %s", got)
	}
	if got := tsAccess("r", "a-b"); got != `r["a-b"]` {
		t.Errorf("tsAccess: %s", got)
	}
}

// A resource or operation named as the client's own types or members is
// refused, naming both.
func TestClientNamesCollide(t *testing.T) {
	cm := &clientModel{Resources: []*clientResource{{Type: "Event", Plural: "events", Service: "Events"}}}
	err := cm.checkNames()
	if err == nil || !strings.Contains(err.Error(), "the client's own type and the record of events are both named Event") ||
		!strings.Contains(err.Error(), "the client's own service and the service of events are both named Events") {
		t.Fatalf("want both collisions named, got %v", err)
	}
}

// An envelope the clients cannot type is refused with what it is.
func TestClientEnvelopeMustBeAnObject(t *testing.T) {
	r := &resourceView{Name: "Shelf", Type: "Shelf", Plural: "shelves", Object: "shelf"}
	b := &envBuilder{model: &clientModel{}, byRes: map[*resourceView]*clientResource{r: newClientResource(r)}}
	op := &opView{Name: "Odd", Kind: "get", Resource: r, shape: &envNode{IsArray: true, Items: []*envNode{{Placeholder: "$record"}}}}
	if _, _, err := b.result(op, "OddResult"); err == nil || !strings.Contains(err.Error(), "not an array") {
		t.Fatalf("want the array refused, got %v", err)
	}
}
