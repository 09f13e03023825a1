#!/usr/bin/env bash
# Webhook delivery on PostgreSQL: creates at RATE a second for DURATION,
# each event delivered to a local receiver; prints the time from an
# event's commit to its delivery (p50, p99). With DOWN (e.g. 10m), the
# receiver then answers 503 for that long while the writes go on, and the
# server's resident memory is sampled every 10 s.
#
#   bench/webhooks.sh                      # 500/s for 60 s
#   DOWN=10m bench/webhooks.sh
set -euo pipefail
cd "$(dirname "$0")/.."

RATE=${RATE:-500}
DURATION=${DURATION:-60s}
DOWN=${DOWN:-0}
PG_URL=${PG_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
work=$(mktemp -d)
schema="webhooks_$$"
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null || true; psql "$PG_URL" -qc "DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null 2>&1; rm -rf "$work"; }
trap cleanup EXIT

go build -o "$work/records" ./cmd/records
go build -o "$work/webhookload" ./bench/cmd/webhookload
psql "$PG_URL" -qc "CREATE SCHEMA $schema" >/dev/null
url="$PG_URL&search_path=$schema"
"$work/records" migrate --database-url "$url" >/dev/null
token=$("$work/records" token create --name webhooks --database-url "$url" | tail -1)
"$work/records" serve --addr 127.0.0.1:18084 --database-url "$url" --rate-limit 1e9 --rate-burst 1000000000 \
  --webhook-allow-private >/dev/null 2>"$work/serve.log" &
pid=$!
for _ in $(seq 100); do curl -s -o /dev/null http://127.0.0.1:18084/healthz && break; sleep 0.1; done
"$work/webhookload" --server http://127.0.0.1:18084 --token "$token" --rate "$RATE" --duration "$DURATION" --down "$DOWN"
