package logging

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"reflect"
	"testing"
	"time"
)

// The handler writes what slog's own JSON handler writes, value for value.
func TestHandlerMatchesSlogJSON(t *testing.T) {
	log := func(l *slog.Logger) {
		l.Info("request", "request_id", "r-1", "route", "GET /v1/x", "status", 200, "latency_ms", 0.25, "team", int64(1))
		l.Warn("quote \" and \n newline", "ok", true, "u", uint64(7), "d", time.Second, "err", errors.New("boom"),
			"at", time.Date(2026, 11, 21, 10, 0, 0, 123, time.UTC), "any", map[string]int{"a": 1},
			slog.Group("g", "x", 1, slog.Group("h", "y", "z")), slog.Group("empty"))
		l.With("svc", "records").WithGroup("req").With("id", 9).Error("in a group", "k", "v")
		l.Debug("not written")
	}
	var ours, theirs bytes.Buffer
	log(JSON(&ours))
	log(slog.New(slog.NewJSONHandler(&theirs, nil)))
	o, s := decodeLines(t, ours.Bytes()), decodeLines(t, theirs.Bytes())
	if len(o) != len(s) {
		t.Fatalf("%d lines, slog writes %d:\n%s\n%s", len(o), len(s), ours.String(), theirs.String())
	}
	for i := range o {
		delete(o[i], "time")
		delete(s[i], "time")
		if !reflect.DeepEqual(o[i], s[i]) {
			t.Errorf("line %d:\n ours %v\nslog %v", i, o[i], s[i])
		}
	}
}

func decodeLines(t *testing.T, b []byte) []map[string]any {
	var out []map[string]any
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatalf("not JSON: %s (%v)", l, err)
		}
		out = append(out, m)
	}
	return out
}
