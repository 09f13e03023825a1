package server_test

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
)

// A request with two Authorization headers is refused (401, with
// WWW-Authenticate), whichever of them holds a good token: reading one of
// them would be a guess a proxy before the server may not share.
func TestTwoAuthorizationHeadersAre401(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		for _, pair := range [][2]string{{"Bearer " + h.token, "Bearer rk_bogus"}, {"Bearer rk_bogus", "Bearer " + h.token}, {"Bearer " + h.token, "Bearer " + h.token}} {
			req := httptest.NewRequest("GET", "/v1/customers?limit=1", nil)
			req.Header.Add("Authorization", pair[0])
			req.Header.Add("Authorization", pair[1])
			w := httptest.NewRecorder()
			h.srv.Handler().ServeHTTP(w, req)
			var p map[string]any
			_ = json.Unmarshal(w.Body.Bytes(), &p)
			if w.Code != 401 || p["code"] != "unauthenticated" || w.Header().Get("WWW-Authenticate") == "" {
				t.Fatalf("two Authorization headers: %d %v %s", w.Code, w.Header(), w.Body)
			}
			if d, _ := p["detail"].(string); !strings.Contains(d, "only one Authorization header may be sent") {
				t.Fatalf("the detail does not say why: %s", w.Body)
			}
		}
		h.call("GET", "/v1/customers?limit=1", "").want(200) // one is fine
	})
}
