package envvar

import "testing"

func TestOr(t *testing.T) {
	const key = "RECORDS_ENVVAR_TEST"
	t.Setenv(key, "")
	if got := Or(key, "fallback"); got != "fallback" {
		t.Errorf("empty: Or = %q, want the fallback", got)
	}
	t.Setenv(key, "set")
	if got := Or(key, "fallback"); got != "set" {
		t.Errorf("set: Or = %q, want set", got)
	}
}
