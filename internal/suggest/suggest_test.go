package suggest

import "testing"

func TestClosest(t *testing.T) {
	choices := []string{"firstName", "lastName", "email", "order_by", "limit"}
	for name, want := range map[string]string{
		"first_name": "firstName", "FirstName": "firstName", "emial": "email",
		"orderby": "order_by", "limti": "limit", "zzz": "", "phone_number": "",
	} {
		got, ok := Closest(name, choices)
		if got != want || ok != (want != "") {
			t.Errorf("Closest(%q) = %q %v, want %q", name, got, ok, want)
		}
	}
}

func TestDidYouMean(t *testing.T) {
	choices := []string{"firstName", "lastName"}
	if got := DidYouMean("first_name", choices); got != `did you mean "firstName"?` {
		t.Errorf("DidYouMean(first_name) = %q", got)
	}
	if got := DidYouMean("zzz", choices); got != "" {
		t.Errorf("DidYouMean(zzz) = %q, want none", got)
	}
}

func TestHint(t *testing.T) {
	if got := Hint("emial", []string{"email", "phone"}); got != `; did you mean "email"?` {
		t.Errorf("Hint: %q", got)
	}
	if got := Hint("zzz", []string{"email"}); got != "" {
		t.Errorf("Hint of nothing close: %q", got)
	}
}
