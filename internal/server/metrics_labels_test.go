package server_test

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The labels of the request metrics take a bounded set of values, whatever
// clients send: a method outside the ones the API answers is "other", and a
// path no route matches is "unmatched" — else each made-up name would be a
// new series, growing /metrics without bound (no token needed).
func TestMetricsLabelsAreBounded(t *testing.T) {
	each(t, func(t *testing.T, h *harness) {
		h.call("GET", "/v1/customers", "").want(200)
		for i := range 5 {
			h.callAs("", fmt.Sprintf("ZZ%dQ", i), "/v1/customers", "")
			h.callAs("", fmt.Sprintf("ZZ%dQ", i), fmt.Sprintf("/nowhere-%d/x", i), "")
			h.callAs("", "GET", fmt.Sprintf("/v1/nothing-%d", i), "")
		}
		page := string(h.callAs("", "GET", "/metrics", "").want(200).Body)
		label := func(name string) []string {
			var out []string
			for _, m := range regexp.MustCompile(`(?m)^records_http_request[a-z_]*\{[^}]*\b`+name+`="([^"]*)"`).FindAllStringSubmatch(page, -1) {
				if !slices.Contains(out, m[1]) {
					out = append(out, m[1])
				}
			}
			return out
		}
		methods := label("method")
		for _, m := range methods {
			if !slices.Contains([]string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "other"}, m) {
				t.Errorf("method label %q: want one of the API's methods or other", m)
			}
		}
		if !slices.Contains(methods, "other") {
			t.Errorf("made-up methods are not counted as other: %v", methods)
		}
		for _, r := range label("route") {
			if strings.Contains(r, "ZZ") || strings.Contains(r, "nowhere") || strings.Contains(r, "nothing") {
				t.Errorf("route label %q holds a client's path", r)
			}
		}
		if !strings.Contains(page, `route="unmatched"`) {
			t.Errorf("unmatched paths are not labelled unmatched")
		}
	})
}
