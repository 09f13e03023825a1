// Package suggest finds the valid name a misspelt one was probably meant to
// be, for error messages of the API and of the generator alike.
package suggest

// Hint is what a message about the misspelt name adds: `; did you mean
// "x"?` with the closest choice (Closest), or "" when none is close.
func Hint(name string, choices []string) string {
	if hint := DidYouMean(name, choices); hint != "" {
		return "; " + hint
	}
	return ""
}

// Closest returns the choice nearest to name, when it is near enough to be a
// typo: within a third of name's length in edits, and at least 2. Case and
// underscores are ignored, so firstName and first_name are close.
func Closest(name string, choices []string) (string, bool) {
	limit := max(2, len(name)/3)
	best, bestDist := "", limit+1
	for _, c := range choices {
		if d := Distance(fold(name), fold(c)); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best, best != ""
}

// fold lowers ASCII letters and drops underscores.
func fold(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_':
			continue
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return string(b)
}

// Distance is the Levenshtein distance between a and b, in bytes.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
