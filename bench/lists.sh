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
. bench/lib.sh

DURATION=${DURATION:-10s}
dbs=("$@")
[ ${#dbs[@]} -gt 0 ] || dbs=(postgres sqlite)

need wrk
bench_setup
build ./cmd/records ./bench/cmd/seed
base=http://127.0.0.1:18082/v1

# start_server starts the service afresh (its peak memory its own).
start_server() { stop_all; serve 18082; }
get() { curl -sf -H "Authorization: Bearer $token" "$@"; }
cursor_of() { get "$1" | sed -E 's/.*"next_cursor":"([^"]*)".*/\1/'; }

for db in "${dbs[@]}"; do
  case "$db" in
    postgres) n=${RETURNS:-1000000} ;;
    *) n=${RETURNS:-100000} ;;
  esac
  database "$db" lists
  migrate
  "$work/seed" --database-url "$url" --returns "$n" --with-items $(( n < 20000 ? n : 20000 ))
  start_server
  echo "== $db, $n returns"

  # A page of 100 at the end of the table: by cursor, against the first page.
  for order in id -created_date; do
    first="$base/returns?limit=100&order_by=$order"
    deep=$(cursor_of "$base/returns?limit=100&order_by=$order&offset=$((n - 200))")
    read -r _ f_p99 f_avg < <(CONNS=1 wrk_run "$first" "$token")
    read -r _ d_p99 d_avg < <(CONNS=1 wrk_run "$first&cursor=$deep" "$token")
    printf '  order_by=%-14s first page %8s (p99 %8s)   page %d by cursor %8s (p99 %8s)\n' "$order" "$f_avg" "$f_p99" $((n / 100 - 1)) "$d_avg" "$d_p99"
  done
  offset_ms=$( { /usr/bin/time -f %e curl -sf -o /dev/null -H "Authorization: Bearer $token" "$base/returns?limit=100&offset=$((n - 100))"; } 2>&1 )
  printf '  the same page by offset: %ss\n' "$offset_ms"

  # Throughput: plain list-100, filtered and ordered by a sortable member, expanded.
  read -r p_rps p_p99 _ < <(wrk_run "$base/returns?limit=100" "$token")
  read -r f_rps f_p99 _ < <(wrk_run "$base/returns?limit=100&filter%5Bstatus%5D%5Bin%5D=open,closed&order_by=created_date" "$token")
  read -r e_rps e_p99 _ < <(wrk_run "$base/returns?limit=100&expand=return_line_items" "$token")
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

  stop_all
  drop_database
done
