package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"records/client"
	"records/internal/resources"
	"records/internal/spec"
)

// TestEveryRouteHasAMethod walks the OpenAPI document's paths and methods:
// each but the public routes must be in client.Routes with a method the
// client has, and client.Routes must list nothing else, so that a route
// added to the server cannot be missed by the client.
func TestEveryRouteHasAMethod(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(resources.OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	public := map[string]bool{}
	for _, p := range spec.PublicRoutes {
		public[strings.ReplaceAll(p.Path, ":file", "{file}")] = true
	}
	var documented []string
	for path, item := range doc.Paths {
		for method := range item {
			if !public[path] && slices.Contains([]string{"get", "post", "put", "patch", "delete"}, method) {
				documented = append(documented, strings.ToUpper(method)+" "+path)
			}
		}
	}
	var listed []string
	methods := clientMethods()
	for _, rt := range client.Routes {
		listed = append(listed, rt.Method+" "+rt.Path)
		if !methods[rt.Call] {
			t.Errorf("client.Routes names %s for %s %s, which the client lacks", rt.Call, rt.Method, rt.Path)
		}
		if rt.Deprecated && rt.Sends {
			t.Errorf("the client sends to the deprecated %s %s", rt.Method, rt.Path)
		}
	}
	slices.Sort(documented)
	slices.Sort(listed)
	for _, r := range documented {
		if _, found := slices.BinarySearch(listed, r); !found {
			t.Errorf("the document's %s has no method in the client", r)
		}
	}
	for _, r := range listed {
		if _, found := slices.BinarySearch(documented, r); !found {
			t.Errorf("client.Routes lists %s, which the document does not", r)
		}
	}
	if len(listed) != len(slices.Compact(slices.Clone(listed))) {
		t.Errorf("client.Routes lists a route twice")
	}
}
