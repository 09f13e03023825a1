package seal

import (
	"bytes"
	"errors"
	"testing"
)

func TestSealedValuesOpenOnlyForTheirRow(t *testing.T) {
	s, err := New(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := s.Seal("row-1", []byte("whsec_abc"))
	if err != nil || bytes.Contains(sealed, []byte("whsec_abc")) {
		t.Fatalf("sealed %q: %v", sealed, err)
	}
	if plain, err := s.Open("row-1", sealed); err != nil || string(plain) != "whsec_abc" {
		t.Fatalf("opened %q: %v", plain, err)
	}
	other, _ := New(bytes.Repeat([]byte{8}, 32))
	altered := append([]byte(nil), sealed...)
	altered[len(altered)-1] ^= 1
	for name, open := range map[string]func() ([]byte, error){
		"another row": func() ([]byte, error) { return s.Open("row-2", sealed) },
		"another key": func() ([]byte, error) { return other.Open("row-1", sealed) },
		"altered":     func() ([]byte, error) { return s.Open("row-1", altered) },
		"too short":   func() ([]byte, error) { return s.Open("row-1", sealed[:5]) },
	} {
		if _, err := open(); !errors.Is(err, ErrSealed) {
			t.Errorf("%s: %v, want ErrSealed", name, err)
		}
	}
	if again, _ := s.Seal("row-1", []byte("whsec_abc")); bytes.Equal(again, sealed) {
		t.Error("two seals of one value are alike: the nonce is not fresh")
	}
}
