#!/usr/bin/env bash
# Load test of full-text search (DESIGN §16): a one-word search answering
# 100 rows best match first against a plain list of 100, whether the word
# is common or rare. One team's RETURNS returns, seeded straight through
# SQL (bench/cmd/seed --search): widget in every description (1 match in
# 1, all in the last relevance tier), zanzibar in 1,000 of them, half of
# those in the rma too (two tiers). Each read runs RUNS times in turn
# (list, common, rare, rare, common, list, …), so the machine's load falls
# on all alike; prints each read's mean requests/s and worse p99, and the
# ratios list ÷ search, each run's too. Then the plans (EXPLAIN) of the
# searches' first statements (on SQLite as the service reads them: the
# tiers a set drives as their sort of rowids, widget's last tier as the
# walk checked against one FTS5 query over its first 500 records' rowids).
#
#   bench/search.sh                          # both databases, 100,000 returns
#   RETURNS=1000000 bench/search.sh postgres
#   KEEP=search_1m RETURNS=1000000 bench/search.sh postgres
#   KEEP=search_1m RECORDS=/tmp/main-records bench/search.sh postgres
#
# KEEP names a PostgreSQL schema to seed once and reuse: seeded (and kept)
# by the first run, only migrated by the next, never dropped (drop it with
# DROP SCHEMA … CASCADE). RECORDS serves another build's binary, so that two
# builds are measured in turn on the same data.
#
# Needs wrk (apt-get install wrk), sqlite3 and psql; for PostgreSQL, the
# local server.
set -euo pipefail
export PGOPTIONS=${PGOPTIONS:---client-min-messages=warning}
cd "$(dirname "$0")/.."
. bench/lib.sh

RETURNS=${RETURNS:-100000}
DURATION=${DURATION:-5s}
# CONNS: 32 connections, bench/lib.sh's, as every figure of this script so
# far was taken (a default of 16 here came after lib.sh's and never held).
RUNS=${RUNS:-4}
KEEP=${KEEP:-}
RECORDS=${RECORDS:-}
PORT=${PORT:-18381}
dbs=("$@")
[ ${#dbs[@]} -gt 0 ] || dbs=(sqlite postgres)
reads=(list "/v1/returns?limit=100" common "/v1/returns?q=widget&limit=100" rare "/v1/returns?q=zanzibar&limit=100")

need wrk psql sqlite3
bench_setup
build ./cmd/records ./bench/cmd/seed
[ -z "$RECORDS" ] || cp "$RECORDS" "$work/records"

# runs DB: every read RUNS times, in turn, its order reversed every other
# run; then a line a read, and the ratios.
runs() {
  declare -A sum p99 each
  local i k name path rps p
  for i in $(seq "$RUNS"); do
    local order=(0 2 4)
    (( i % 2 )) || order=(4 2 0)
    for k in "${order[@]}"; do
      name=${reads[k]} path=${reads[k + 1]}
      read -r rps p _ < <(wrk_run "http://127.0.0.1:$PORT$path" "$token")
      sum[$name]=$(echo "${sum[$name]:-0} + $rps" | bc -l)
      p99[$name]=$(worse "${p99[$name]:-0us}" "$p")
      each[$name]="${each[$name]:-} $rps"
    done
  done
  for k in 0 2 4; do
    name=${reads[k]}
    printf '%-9s %-7s %10.1f %10s   runs:%s\n' "$1" "$name" "$(echo "${sum[$name]} / $RUNS" | bc -l)" "${p99[$name]}" "${each[$name]}"
  done
  for name in common rare; do
    local list=(${each[list]}) search=(${each[$name]}) ratios=()
    for i in $(seq 0 $((RUNS - 1))); do ratios+=("$(printf '%.2f' "$(echo "${list[i]} / ${search[i]}" | bc -l)")"); done
    printf '%-9s list ÷ %-6s %.2f   runs: %s\n' "$1" "$name" "$(echo "${sum[list]} / ${sum[$name]}" | bc -l)" "${ratios[*]}"
  done
}

# plans DB: the plans of the statements a search's first page runs, a
# tier each (PostgreSQL: planned with the words, as the service has them
# planned; the plan of a tier the page never reaches is shown too).
plans() {
  local sel='SELECT "id" FROM "returns" WHERE "team_id" = 1 AND "deleted_at" IS NULL' word w tier
  echo "plans on $1, $RETURNS returns (load average $(cut -d' ' -f1-3 /proc/loadavg)):"
  for word in widget zanzibar; do
    if [ "$1" = postgres ]; then
      w="websearch_to_tsquery('english'::regconfig, '\"$word\"')"
      for tier in "records_search_a @@ $w" "records_search_b @@ $w AND NOT records_search_a @@ $w" "records_search @@ $w AND NOT records_search_b @@ $w"; do
        echo "  q=$word, $tier:"
        psql "$PG_URL" -qAt -c "SET search_path = $pg_schema" -c "EXPLAIN (ANALYZE, COSTS OFF, SUMMARY OFF) $sel AND $tier ORDER BY id DESC LIMIT 101" |
          grep -v 'Filter:\|Recheck\|Heap Blocks\|Rows Removed\|Sort Method\|Sort Key' | sed 's/^/    /'
      done
    else
      local r='"returns"."rowid"' last
      # fts_in CLASS: the returns whose documents of weight class CLASS
      # (none: of every member) match, a range of rowids of the one FTS5
      # table (spec.SearchClassRowid: A from 2^40, B from 2^41).
      fts_in() {
        local m="returns_search MATCH '\"$word\"'"
        case "${1:-}" in
          A) echo " IN (SELECT rowid - 1099511627776 FROM returns_search WHERE $m AND rowid >= 1099511627776 AND rowid < 2199023255552)" ;;
          B) echo " IN (SELECT rowid - 2199023255552 FROM returns_search WHERE $m AND rowid >= 2199023255552 AND rowid < 3298534883328)" ;;
          *) echo " IN (SELECT rowid FROM returns_search WHERE $m AND rowid < 1099511627776)" ;;
        esac
      }
      # Tiers a set drives sort their rowids alone (query.Phase.Narrow).
      local narrow='SELECT "rowid" AS "r" FROM "returns" NOT INDEXED WHERE "team_id" = 1 AND "deleted_at" IS NULL' s lo hi bound
      last="+$r$(fts_in) AND $r NOT$(fts_in B)"
      # A word in most returns reads the range of rowids of the walk's
      # first 500 records in one FTS5 query (query.Walk's window).
      if [ "$word" = widget ]; then
        IFS='|' read -r lo hi bound < <(sqlite3 "${url#sqlite:}" 'SELECT min("rowid"), max("rowid"), min("id") FROM (SELECT "rowid", "id" FROM "returns" WHERE "team_id" = 1 AND "deleted_at" IS NULL ORDER BY "id" DESC LIMIT 500)')
        last="+$r IN (SELECT rowid FROM returns_search WHERE returns_search MATCH '\"$word\"' AND rowid >= $lo AND rowid <= $hi) AND $r NOT$(fts_in B) AND \"id\" >= '$bound'"
      fi
      for tier in "$r$(fts_in A)" "$r$(fts_in B) AND $r NOT$(fts_in A)" "$last"; do
        echo "  q=$word, $tier:"
        s=$narrow
        [ "$tier" != "$last" ] || s=$sel
        sqlite3 "${url#sqlite:}" "EXPLAIN QUERY PLAN $s AND $tier ORDER BY id DESC LIMIT 101" | sed 's/^/    /'
      done
    fi
  done
}

# seeded DB: a fresh database, migrated and seeded; with KEEP, on
# PostgreSQL, the schema KEEP, seeded only when it holds no returns yet.
seeded() {
  if [ -n "$KEEP" ] && [ "$1" = postgres ]; then
    drop_database
    psql "$PG_URL" -qc "CREATE SCHEMA IF NOT EXISTS $KEEP" >/dev/null
    url="$PG_URL&search_path=$KEEP" pg_schema=$KEEP
    migrate
    [ "$(psql "$PG_URL" -qAt -c "SELECT EXISTS (SELECT 1 FROM $KEEP.returns)")" = f ] || return 0
  else
    database "$1" search
    pg_schema=$schema
    migrate
  fi
  "$work/seed" --database-url "$url" --returns "$RETURNS" --with-items 0 --search 2>&1 | sed "s/^/  $1: /" >&2
  [ "$1" = sqlite ] && sqlite3 "${url#sqlite:}" ANALYZE
  return 0
}

# settled waits (up to a minute) for the service to have merged the
# seeded FTS5 table, as it does a table its writes left in segments
# (internal/db, ftsmerge.go): until its structure record stays the same
# for 3 seconds. A build that does not merge waits 3 seconds.
settled() {
  local before now i same=0
  before=$(sqlite3 "${url#sqlite:}" "SELECT hex(block) FROM returns_search_data WHERE id = 10")
  for i in $(seq 60); do
    sleep 1
    now=$(sqlite3 "${url#sqlite:}" "SELECT hex(block) FROM returns_search_data WHERE id = 10")
    if [ "$now" = "$before" ]; then same=$((same + 1)); else same=0; fi
    [ "$same" -lt 3 ] || { echo "sqlite: the search table settled in ${i} s" >&2; return 0; }
    before=$now
  done
}

printf '%-9s %-7s %10s %10s\n' database read rps p99
for db in "${dbs[@]}"; do
  seeded "$db"
  serve "$PORT"
  [ "$db" = sqlite ] && settled
  echo "$db: load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
  runs "$db"
  stop_all
  plans "$db" >&2
  drop_database
done
