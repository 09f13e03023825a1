package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"records/internal/server"
)

// A time the server cannot run with stops the start, naming its flag: a
// timeout or lifetime of none, or a negative one; 0 where it means forever
// (the retentions) or nothing (the token cache) is taken.
func TestServeFlagsRefuseTimesItCannotRunWith(t *testing.T) {
	parse := func(args ...string) error {
		f := serveFlags{cfg: server.DefaultConfig()}
		cmd := &cobra.Command{Use: "serve"}
		f.register(cmd)
		if err := cmd.Flags().Parse(args); err != nil {
			t.Fatal(err)
		}
		_, err := f.config()
		return err
	}
	for _, args := range [][]string{
		{"--webhook-timeout", "0s"}, {"--webhook-timeout", "-1s"}, {"--request-timeout", "0s"},
		{"--header-timeout", "0s"}, {"--idempotency-ttl", "0s"}, {"--event-retention", "-1h"},
		{"--trash-retention", "-1s"}, {"--replica-max-lag", "0s"}, {"--token-cache", "-1s"}, {"--max-body", "0"},
	} {
		if err := parse(args...); err == nil || !strings.Contains(err.Error(), args[0]) {
			t.Errorf("%v: %v, want the flag named", args, err)
		}
	}
	for _, args := range [][]string{
		{}, {"--event-retention", "0s"}, {"--trash-retention", "0s"}, {"--token-cache", "0s"}, {"--shutdown-timeout", "0s"},
	} {
		if err := parse(args...); err != nil {
			t.Errorf("%v: %v", args, err)
		}
	}
}
