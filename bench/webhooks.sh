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
. bench/lib.sh

RATE=${RATE:-500}
DURATION=${DURATION:-60s}
DOWN=${DOWN:-0}
need psql
bench_setup
server=() # as before: the load runs unpinned beside the service
build ./cmd/records ./bench/cmd/webhookload
database postgres webhooks
migrate
serve 18084 --webhook-allow-private
"$work/webhookload" --server http://127.0.0.1:18084 --token "$token" --rate "$RATE" --duration "$DURATION" --down "$DOWN"
