package engine

import (
	"fmt"
	"slices"
	"testing"
)

// A sample is kept until the process writes, and a full cache starts over.
func TestSampleCacheKeepsWhileNothingIsWritten(t *testing.T) {
	var c sampleCache
	if _, ok := c.get(0, "widget"); ok {
		t.Fatal("an empty cache answered")
	}
	c.put(4, "widget", []int64{100, 99})
	if got, ok := c.get(4, "widget"); !ok || !slices.Equal(got, []int64{100, 99}) {
		t.Errorf("kept: %v %v", got, ok)
	}
	if _, ok := c.get(5, "widget"); ok {
		t.Error("answered after a write")
	}
	c.put(5, "gadget", []int64{1})
	if _, ok := c.get(5, "widget"); ok {
		t.Error("kept a sample read before a write")
	}
	for i := range maxSamples {
		c.put(5, fmt.Sprint(i), nil)
	}
	if _, ok := c.get(5, "gadget"); ok || len(c.counts) > maxSamples {
		t.Errorf("a full cache kept %d", len(c.counts))
	}
}
