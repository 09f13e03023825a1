#!/usr/bin/env bash
# Lists at scale: a page far down a million returns by cursor against the
# first page, a filtered list and an expanded list against a plain one, and
# an NDJSON export of every return with the server's peak memory.
#
#   bench/lists.sh                          # PostgreSQL 1,000,000 and SQLite 100,000 returns
#   RETURNS=200000 bench/lists.sh postgres
#
# Needs wrk (apt-get install wrk) and, for PostgreSQL, the local server.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-10s}
CONNS=${CONNS:-32}
PG_URL=${PG_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
dbs=("$@")
[ ${#dbs[@]} -gt 0 ] || dbs=(postgres sqlite)
command -v wrk >/dev/null || { echo "bench/lists.sh needs wrk: apt-get install wrk" >&2; exit 1; }

client=() server=()
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
  client=(taskset -c 0) server=(taskset -c 1)
fi
work=$(mktemp -d)
svc=
cleanup() { [ -n "$svc" ] && kill "$svc" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

go build -o "$work/records" ./cmd/records
go build -o "$work/seed" ./bench/cmd/seed
addr=127.0.0.1:18082
base=http://$addr/v1

start_server() {
  [ -n "$svc" ] && { kill "$svc" 2>/dev/null; wait "$svc" 2>/dev/null || true; }
  "${server[@]}" "$work/records" serve --addr $addr --database-url "$url" --rate-limit 1e9 --rate-burst 1000000000 \
    >/dev/null 2>"$work/serve.log" &
  svc=$!
  for _ in $(seq 100); do curl -s -o /dev/null http://$addr/healthz && return 0; sleep 0.1; done
  echo "the server did not start" >&2; exit 1
}
get() { curl -sf -H "Authorization: Bearer $token" "$@"; }
cursor_of() { get "$1" | sed -E 's/.*"next_cursor":"([^"]*)".*/\1/'; }
# wrk_run CONNS URL → "rps avg_ms p99_ms"
wrk_run() {
  "${client[@]}" wrk -t1 -c2 -d1s -H "Authorization: Bearer $token" "$2" >/dev/null
  local out
  out=$("${client[@]}" wrk -t1 -c"$1" -d"$DURATION" --latency -H "Authorization: Bearer $token" "$2")
  if grep -q Non-2xx <<<"$out"; then echo "not every answer was 2xx: $2" >&2; exit 1; fi
  awk '/Requests\/sec/ {rps=$2} /^ +Latency +[0-9]/ {avg=$2} $1=="99%" {p99=$2} END {print rps, avg, p99}' <<<"$out"
}
peak_mib() { awk '/VmHWM/ {printf "%.1f", $2/1024}' "/proc/$1/status"; }

for db in "${dbs[@]}"; do
  case "$db" in
    postgres)
      n=${RETURNS:-1000000}
      schema="lists_$$"
      psql "$PG_URL" -qc "DROP SCHEMA IF EXISTS $schema CASCADE; CREATE SCHEMA $schema" >/dev/null 2>&1
      url="$PG_URL&search_path=$schema" ;;
    sqlite) n=${RETURNS:-100000}; url="sqlite:$work/lists.db" ;;
    *) echo "unknown database $db" >&2; exit 1 ;;
  esac
  "$work/records" migrate --database-url "$url" >/dev/null
  token=$("$work/records" token create --name lists --database-url "$url" | tail -1)
  "$work/seed" --database-url "$url" --returns "$n" --with-items 20000
  start_server
  echo "== $db, $n returns"

  # A page of 100 at the end of the table: by cursor, against the first page.
  for order in id -created_date; do
    first="$base/returns?limit=100&order_by=$order"
    deep=$(cursor_of "$base/returns?limit=100&order_by=$order&offset=$((n - 200))")
    read -r _ f_avg f_p99 < <(wrk_run 1 "$first")
    read -r _ d_avg d_p99 < <(wrk_run 1 "$first&cursor=$deep")
    printf '  order_by=%-14s first page %8s (p99 %8s)   page %d by cursor %8s (p99 %8s)\n' "$order" "$f_avg" "$f_p99" $((n / 100 - 1)) "$d_avg" "$d_p99"
  done
  offset_ms=$( { /usr/bin/time -f %e curl -sf -o /dev/null -H "Authorization: Bearer $token" "$base/returns?limit=100&offset=$((n - 100))"; } 2>&1 )
  printf '  the same page by offset: %ss\n' "$offset_ms"

  # Throughput: plain list-100, filtered and ordered by a sortable member, expanded.
  read -r p_rps _ p_p99 < <(wrk_run "$CONNS" "$base/returns?limit=100")
  read -r f_rps _ f_p99 < <(wrk_run "$CONNS" "$base/returns?limit=100&filter%5Bstatus%5D%5Bin%5D=open,closed&order_by=created_date")
  read -r e_rps _ e_p99 < <(wrk_run "$CONNS" "$base/returns?limit=100&expand=return_line_items")
  printf '  list-100 %8s req/s (p99 %s)   filtered %8s (%.2fx, p99 %s)   expand 5 items %8s (%.2fx, p99 %s)\n' \
    "$p_rps" "$p_p99" "$f_rps" "$(echo "$f_rps / $p_rps" | bc -l)" "$f_p99" "$e_rps" "$(echo "$e_rps / $p_rps" | bc -l)" "$e_p99"

  # Export: every return as NDJSON, from a fresh server, and its peak memory
  # against an export of 10,000.
  start_server
  t0=$(date +%s.%N)
  lines=$(get -H 'Accept: application/x-ndjson' "$base/returns" | wc -l)
  t1=$(date +%s.%N)
  all_peak=$(peak_mib $svc)
  start_server
  small=$(get -H 'Accept: application/x-ndjson' "$base/returns?filter%5Bid%5D%5Blt%5D=ret-0010000" | wc -l)
  small_peak=$(peak_mib $svc)
  printf '  export %d records in %.1fs: %.0f records/s; peak RSS %s MiB (an export of %d: %s MiB)\n' \
    "$lines" "$(echo "$t1 - $t0" | bc -l)" "$(echo "$lines / ($t1 - $t0)" | bc -l)" "$all_peak" "$small" "$small_peak"

  kill "$svc" 2>/dev/null; wait "$svc" 2>/dev/null || true; svc=
  if [ "$db" = postgres ]; then psql "$PG_URL" -qc "DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null 2>&1; fi
done
