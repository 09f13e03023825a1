package engine

import (
	"context"
	"strings"

	"records/internal/auth"
	"records/internal/edge"
	"records/internal/wire"
)

// Every change of a record writes its event in the database, by a trigger
// (package gen writes them). What the trigger cannot know — the request
// and the token behind the change — each write passes it as the setting
// records.meta: its single statements set it in their condition
// (metaCondition), and a write in a transaction sets it first (setMeta).
// On SQLite, package db answers set_config and current_setting.

// eventMeta is the request's id and the token that writes, as the JSON
// members an event answers them in.
func eventMeta(ctx context.Context) string {
	p, _ := auth.FromContext(ctx)
	b := make([]byte, 0, 128)
	b = append(b, `{"request_id":`...)
	b = appendOrNull(b, edge.RequestIDFrom(ctx))
	b = append(b, `,"actor":{"token_id":`...)
	b = appendOrNull(b, p.TokenID)
	b = append(b, `,"token_name":`...)
	b = appendOrNull(b, p.TokenName)
	return string(append(b, "}}"...))
}

func appendOrNull(b []byte, s string) []byte {
	if s == "" {
		return append(b, "null"...)
	}
	return wire.AppendString(b, s)
}

// metaCondition adds to a statement's WHERE clause the condition that sets
// meta for the triggers the statement fires: true, and evaluated before
// any row is written.
func metaCondition(b *strings.Builder, meta string, args []any) []any {
	b.WriteString(` AND set_config('records.meta', ?, true) IS NOT NULL`)
	return append(args, meta)
}

// setMeta sets meta for the rest of the transaction of w.
func setMeta(ctx context.Context, w Writer, meta string) error {
	_, err := w.Exec(ctx, `SELECT set_config('records.meta', ?, true)`, meta)
	return err
}
