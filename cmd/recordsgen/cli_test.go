package main

import (
	"bytes"
	"strings"
	"testing"

	"records/internal/dbtest"
)

func TestCheckPassesOnTheRepository(t *testing.T) {
	dbtest.RequirePostgres(t) // check diffs the PostgreSQL migrations too
	t.Setenv("RECORDSGEN_DEV_POSTGRES_URL", dbtest.PostgresURL())
	var stdout, stderr bytes.Buffer
	if code := Do([]string{"check", "--root", "../.."}, &stdout, &stderr); code != 0 {
		t.Fatalf("recordsgen check exited %d:\n%s%s", code, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "up to date") {
		t.Fatalf("unexpected output: %q", stdout.String())
	}
	if strings.Contains(stderr.String(), "not checked") {
		t.Fatalf("check skipped something: %s", stderr.String())
	}
}

func TestUnknownCommandFails(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := Do([]string{"frobnicate"}, &stdout, &stderr); code == 0 {
		t.Fatal("an unknown command must exit non-zero")
	}
}
