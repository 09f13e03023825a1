// Package guard holds the checks a request passes before its operation
// runs: authentication by token, the per-token rate limit (with the brake
// on failed authentications per address), and the scope a write needs.
// Each is gin middleware that answers through edge.Fail and stops the chain.
package guard
