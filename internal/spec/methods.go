package spec

import "net/http"

// KnownMethod tells whether method is one of the HTTP methods the API
// answers. HTTP lets a method be any token, so whatever names a request's
// method in metrics or spans — where each new name would be a new series —
// names the others as one ("other").
func KnownMethod(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut,
		http.MethodPatch, http.MethodDelete, http.MethodOptions:
		return true
	}
	return false
}
