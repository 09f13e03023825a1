// Package fold is how full-text search ignores accents on PostgreSQL: a
// fixed table from each Latin letter with diacritics to its base letter,
// and the combining marks, which it drops. The generator writes the table
// into the database's records_fold function and into records_search_vector,
// which folds the stored words of the search columns; the service folds a
// search's words by it (String), so the two sides fold alike; SQLite's
// FTS5 tokenizer (unicode61 with remove_diacritics 2) folds the same
// letters by its own table.
//
// The table is built from Unicode's canonical decompositions: a letter of
// Latin-1 Supplement, Latin Extended-A and -B or Latin Extended Additional
// that decomposes into an ASCII letter and combining marks folds to that
// letter. Letters without such a decomposition (ø, ß, æ, ł) stay as they
// are, as they do in SQLite's tokenizer.
package fold

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// ranges are the blocks of letters the table covers.
var ranges = [][2]rune{{0x00C0, 0x024F}, {0x1E00, 0x1EFF}}

// Marks are the combining diacritical marks, which folding drops (text in
// decomposed form: e followed by U+0301).
var marks = [2]rune{0x0300, 0x036F}

// Table answers translate's two strings: each rune of from becomes the
// rune of to at its position; the runes of from past the end of to (the
// combining marks) are dropped.
func Table() (from, to string) {
	var f, t strings.Builder
	for _, r := range letters() {
		f.WriteRune(r[0])
		t.WriteRune(r[1])
	}
	for r := marks[0]; r <= marks[1]; r++ {
		f.WriteRune(r)
	}
	return f.String(), t.String()
}

// letters are the pairs (letter, base) in code point order.
func letters() [][2]rune {
	var out [][2]rune
	for _, span := range ranges {
		for r := span[0]; r <= span[1]; r++ {
			if base, ok := baseOf(r); ok {
				out = append(out, [2]rune{r, base})
			}
		}
	}
	return out
}

// baseOf is the ASCII letter r decomposes to with combining marks.
func baseOf(r rune) (rune, bool) {
	d := []rune(norm.NFD.String(string(r)))
	if len(d) < 2 || d[0] > unicode.MaxASCII || !unicode.IsLetter(d[0]) {
		return 0, false
	}
	for _, m := range d[1:] {
		if !unicode.Is(unicode.Mn, m) {
			return 0, false
		}
	}
	return d[0], true
}

var folder = func() *strings.Replacer {
	var pairs []string
	for _, r := range letters() {
		pairs = append(pairs, string(r[0]), string(r[1]))
	}
	for r := marks[0]; r <= marks[1]; r++ {
		pairs = append(pairs, string(r), "")
	}
	return strings.NewReplacer(pairs...)
}()

// String folds s by the table, as records_fold does in the database.
func String(s string) string { return folder.Replace(s) }
