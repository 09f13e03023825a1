package edge

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"records/internal/logging"
)

// A panic in a handler is a 500 problem with the request id; the stack goes
// to the log, never to the client.
func TestPanicsBecome500(t *testing.T) {
	gin.SetMode(gin.ReleaseMode)
	var logs bytes.Buffer
	e := gin.New()
	e.Use(RequestID, AccessLog(logging.JSON(&logs), nil, 1), Recover)
	e.GET("/boom", func(*gin.Context) { panic("secret state: rk_do-not-show") })

	w := httptest.NewRecorder()
	e.ServeHTTP(w, httptest.NewRequest("GET", "/boom", nil))
	if w.Code != 500 || w.Header().Get("Content-Type") != "application/problem+json" {
		t.Fatalf("%d %s", w.Code, w.Header())
	}
	var p map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
		t.Fatal(err)
	}
	if p["code"] != "internal" || p["request_id"] != w.Header().Get("X-Request-Id") || p["request_id"] == "" {
		t.Fatalf("problem: %s", w.Body)
	}
	for _, leak := range []string{"rk_do-not-show", "goroutine", "panic", ".go:"} {
		if strings.Contains(w.Body.String(), leak) {
			t.Fatalf("the answer leaks %q: %s", leak, w.Body)
		}
	}
	if !strings.Contains(logs.String(), `"level":"ERROR"`) || !strings.Contains(logs.String(), "panic: secret state") || !strings.Contains(logs.String(), "goroutine") {
		t.Fatalf("the log must keep the panic and its stack: %s", logs.String())
	}
}

func TestClientRequestIDsAreKeptWhenSensible(t *testing.T) {
	e := gin.New()
	e.Use(RequestID)
	e.GET("/", func(c *gin.Context) {})
	for id, kept := range map[string]bool{"abc-123.X:y_z": true, "": false, "has space": false, strings.Repeat("a", 129): false} {
		req := httptest.NewRequest("GET", "/", nil)
		req.Header.Set("X-Request-Id", id)
		w := httptest.NewRecorder()
		e.ServeHTTP(w, req)
		got := w.Header().Get("X-Request-Id")
		if (got == id) != kept || got == "" {
			t.Errorf("X-Request-Id %q: answered %q", id, got)
		}
	}
	a, b := requestIDs.next(), requestIDs.next()
	if a == b {
		t.Fatal("request ids repeat")
	}
}
