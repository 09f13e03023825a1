package suggest

import "strconv"

// DidYouMean is the hint for a name that is not among choices: `did you
// mean "firstName"?` when one is close enough to be a typo, else "".
// Callers put it in their own sentence.
func DidYouMean(name string, choices []string) string {
	if best, ok := Closest(name, choices); ok {
		return "did you mean " + strconv.Quote(best) + "?"
	}
	return ""
}
