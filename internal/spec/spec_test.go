package spec

import (
	"net/http"
	"testing"
)

func TestWhichKindsWrite(t *testing.T) {
	want := map[Kind]Writes{
		List: Never, Get: Never, GetOrCreate: WhenCreating,
		Create: Always, Patch: Always, Upsert: Always, Action: Always, Delete: Always,
	}
	if len(want) != len(Kinds) {
		t.Fatalf("the table covers %d kinds, there are %d", len(want), len(Kinds))
	}
	for _, k := range Kinds {
		if got := k.Writes(); got != want[k] {
			t.Errorf("%s.Writes() = %d, want %d", k, got, want[k])
		}
	}
	if names := KindNames(); len(names) != len(Kinds) || names[5] != "get_or_create" {
		t.Errorf("KindNames() = %v", names)
	}
}

func TestEveryCodeHasOneStatusAndATitle(t *testing.T) {
	seen := map[Code]bool{}
	for _, c := range Codes {
		if seen[c.Code] {
			t.Errorf("%s listed twice", c.Code)
		}
		seen[c.Code] = true
		if c.Title == "" || c.Description == "" || http.StatusText(c.Status) == "" {
			t.Errorf("%s: incomplete %+v", c.Code, c)
		}
		if c.Code.Status() != c.Status || c.Code.Title() != c.Title {
			t.Errorf("%s: lookups disagree with the table", c.Code)
		}
	}
	if Code("no_such_code").Status() != http.StatusInternalServerError {
		t.Error("an unknown code must be described as internal")
	}
	for i := 1; i < len(Codes); i++ {
		if Codes[i].Status < Codes[i-1].Status {
			t.Errorf("codes out of status order at %s", Codes[i].Code)
		}
	}
}

func TestPublicRoutesAreDistinct(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range PublicRoutes {
		if seen[r.Path] || seen[r.OperationID] {
			t.Errorf("%s repeats", r.Path)
		}
		seen[r.Path], seen[r.OperationID] = true, true
	}
	if DefaultLimit < 1 || DefaultLimit > MaxLimit {
		t.Error("the default limit must lie within the bounds")
	}
}

func TestIdent(t *testing.T) {
	for name, want := range map[string]string{
		"customers": `"customers"`,
		`a"b`:       `"a""b"`,
		`""`:        `""""""`,
		"":          `""`,
	} {
		if got := Ident(name); got != want {
			t.Errorf("Ident(%q) = %s, want %s", name, got, want)
		}
	}
}
