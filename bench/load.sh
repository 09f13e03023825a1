#!/usr/bin/env bash
# Load test: the service against bench/baseline (net/http + database/sql with
# prepared statements), GET by id and a list of 100, on SQLite and
# PostgreSQL. Each pair is run in turn (service, baseline, baseline,
# service); prints mean requests/s, the worse p99 of each side, the
# service's peak memory, and the two ratios in turn.
#
#   bench/load.sh                 # both databases, 10 s a run
#   DURATION=30s CONNS=64 bench/load.sh sqlite
#
# Needs wrk (apt-get install wrk) and, for PostgreSQL, the local server.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

DURATION=${DURATION:-10s}
CONNS=${CONNS:-32}
RECORDS=${RECORDS:-1000}
PG_URL=${PG_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
dbs=("$@")
[ ${#dbs[@]} -gt 0 ] || dbs=(sqlite postgres)

command -v wrk >/dev/null || { echo "bench/load.sh needs wrk: apt-get install wrk" >&2; exit 1; }

# With two or more cores, wrk runs on the first and the servers on the
# second, so the two do not take turns on one core and a server's
# throughput is what one core of it serves.
client=() server=()
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
  client=(taskset -c 0) server=(taskset -c 1)
fi
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

go build -o "$work/records" ./cmd/records
go build -o "$work/baseline" ./bench/cmd/baseline

wait_http() { for _ in $(seq 100); do curl -s -o /dev/null "$1" && return 0; sleep 0.1; done; echo "no answer at $1" >&2; exit 1; }

# run_wrk NAME URL [TOKEN] → "rps p99_ms"
run_wrk() {
  local out hdr=()
  [ -n "${3:-}" ] && hdr=(-H "Authorization: Bearer $3")
  "${client[@]}" wrk -t1 -c2 -d1s "${hdr[@]}" "$2" >/dev/null # warm up
  out=$("${client[@]}" wrk -t1 -c"$CONNS" -d"$DURATION" --latency "${hdr[@]}" "$2")
  local rps p99 non2xx
  rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  p99=$(awk '$1=="99%" {print $2}' <<<"$out")
  non2xx=$(awk '/Non-2xx/ {print $5}' <<<"$out")
  [ -z "$non2xx" ] || { echo "$1: $non2xx answers were not 2xx" >&2; exit 1; }
  echo "$rps $p99"
}

# pair DB ROUTE SERVICE_URL BASELINE_URL runs the service, the baseline, the
# baseline again and the service again, so that neither always goes first,
# and prints each side's mean requests/s and its worse p99. The baseline gets
# the same request, Authorization header included (it ignores it): the
# header alone costs a server a few percent.
pair() {
  local s1 s1p b1 b1p b2 b2p s2 s2p
  read -r s1 s1p < <(run_wrk "service $2" "$3" "$token")
  read -r b1 b1p < <(run_wrk "baseline $2" "$4" "$token")
  read -r b2 b2p < <(run_wrk "baseline $2" "$4" "$token")
  read -r s2 s2p < <(run_wrk "service $2" "$3" "$token")
  local s b
  s=$(echo "($s1 + $s2) / 2" | bc -l)
  b=$(echo "($b1 + $b2) / 2" | bc -l)
  printf '%-9s %-7s %11.2f %12.2f %7.2f %11s %11s %9s   (in turn: %.2f, %.2f)\n' "$1" "$2" "$s" "$b" "$(echo "$s / $b" | bc -l)" \
    "$(worse "$s1p" "$s2p")" "$(worse "$b1p" "$b2p")" "$(peak_mib $svc)" "$(echo "$s1 / $b1" | bc -l)" "$(echo "$s2 / $b2" | bc -l)"
}

# peak resident memory of a process, in MiB
peak_mib() { awk '/VmHWM/ {printf "%.1f", $2/1024}' "/proc/$1/status"; }

printf '%-9s %-6s %12s %12s %7s %11s %11s %9s\n' database route service baseline ratio p99-service p99-baseline peak-MiB
for db in "${dbs[@]}"; do
  case "$db" in
    sqlite) url="sqlite:$work/records.db" ;;
    postgres)
      schema="load_$$"
      psql "$PG_URL" -qc "DROP SCHEMA IF EXISTS $schema CASCADE; CREATE SCHEMA $schema" >/dev/null 2>&1
      url="$PG_URL&search_path=$schema" ;;
    *) echo "unknown database $db" >&2; exit 1 ;;
  esac
  "$work/records" migrate --database-url "$url" >/dev/null
  token=$("$work/records" token create --name load --database-url "$url" | tail -1)
  "${server[@]}" "$work/records" serve --addr 127.0.0.1:18081 --database-url "$url" --rate-limit 1e9 --rate-burst 1000000000 \
    >/dev/null 2>"$work/serve-$db.log" &
  svc=$!; pids+=("$svc")
  "${server[@]}" "$work/baseline" --addr 127.0.0.1:18090 --database-url "$url" 2>/dev/null &
  pids+=($!)
  wait_http http://127.0.0.1:18081/healthz
  wait_http http://127.0.0.1:18090/customers

  # Seed customers with every member set, through the API.
  seq "$RECORDS" | xargs -P 8 -I{} curl -s -o /dev/null -X POST http://127.0.0.1:18081/v1/customers \
    -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
    -d '{"id":"cust-{}","sso_id":"sso-{}","email":"customer{}@example.com","firstName":"First {}","lastName":"Last {}","phone":"+1 555 0100 {}","payment_customer_id":"pay_{}","timestamp":"2026-11-21T10:00:00Z","activationDate":"2026-01-01"}'
  id="cust-500"

  pair "$db" get "http://127.0.0.1:18081/v1/customers/$id" "http://127.0.0.1:18090/customers/$id"
  pair "$db" list100 "http://127.0.0.1:18081/v1/customers?limit=100" "http://127.0.0.1:18090/customers?limit=100"

  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  pids=()
  if [ "$db" = postgres ]; then psql "$PG_URL" -qc "DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null 2>&1; fi
done
