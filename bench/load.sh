#!/usr/bin/env bash
# Load test: the service against bench/baseline (net/http + database/sql with
# prepared statements), GET by id and a list of 100, on SQLite and
# PostgreSQL. Each pair is run in turn (service, baseline, baseline,
# service); prints mean requests/s, the worse p99 of each side, the
# service's peak memory (VmHWM) with its anonymous and file-backed parts
# at the end of the pair (RssAnon/RssFile), and the two ratios in turn.
#
#   bench/load.sh                 # both databases, 10 s a run
#   DURATION=30s CONNS=64 bench/load.sh sqlite
#   PORT=18281 bench/load.sh      # the service on 18281, the baseline on 18290
#
# Needs wrk (apt-get install wrk) and, for PostgreSQL, the local server.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

DURATION=${DURATION:-10s}
RECORDS=${RECORDS:-1000}
PORT=${PORT:-18081}
bport=$((PORT + 9))
dbs=("$@")
[ ${#dbs[@]} -gt 0 ] || dbs=(sqlite postgres)

need wrk
bench_setup
build ./cmd/records ./bench/cmd/baseline

# pair DB ROUTE SERVICE_URL BASELINE_URL runs the service, the baseline, the
# baseline again and the service again, so that neither always goes first,
# and prints each side's mean requests/s and its worse p99. The baseline gets
# the same request, Authorization header included (it ignores it): the
# header alone costs a server a few percent.
pair() {
  local s1 s1p b1 b1p b2 b2p s2 s2p
  read -r s1 s1p _ < <(wrk_run "$3" "$token")
  read -r b1 b1p _ < <(wrk_run "$4" "$token")
  read -r b2 b2p _ < <(wrk_run "$4" "$token")
  read -r s2 s2p _ < <(wrk_run "$3" "$token")
  local s b
  s=$(echo "($s1 + $s2) / 2" | bc -l)
  b=$(echo "($b1 + $b2) / 2" | bc -l)
  printf '%-9s %-7s %11.2f %12.2f %7.2f %11s %11s %9s %11s   (in turn: %.2f, %.2f)\n' "$1" "$2" "$s" "$b" "$(echo "$s / $b" | bc -l)" \
    "$(worse "$s1p" "$s2p")" "$(worse "$b1p" "$b2p")" "$(peak_mib $svc)" "$(rss_split $svc)" "$(echo "$s1 / $b1" | bc -l)" "$(echo "$s2 / $b2" | bc -l)"
}

printf '%-9s %-6s %12s %12s %7s %11s %11s %9s %11s\n' database route service baseline ratio p99-service p99-baseline peak-MiB anon/file
for db in "${dbs[@]}"; do
  database "$db" load
  migrate
  serve "$PORT"
  serve_baseline "$bport"
  seed_customers "$PORT" "$RECORDS"
  id="cust-$(( (RECORDS + 1) / 2 ))" # one in the middle

  pair "$db" get "http://127.0.0.1:$PORT/v1/customers/$id" "http://127.0.0.1:$bport/customers/$id"
  pair "$db" list100 "http://127.0.0.1:$PORT/v1/customers?limit=100" "http://127.0.0.1:$bport/customers?limit=100"

  stop_all
  drop_database
done
