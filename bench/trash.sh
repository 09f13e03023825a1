#!/usr/bin/env bash
# Load test of the trash (DESIGN §17): live reads must not pay for it. Two
# services side by side, each on its own database, with the same N live
# returns:
#   none: N returns, none in the trash;
#   half: 2N returns, every other one (N) in the trash — half the table.
# Each read — list-100 (GET /v1/returns?limit=100) and GET by id — runs
# RUNS times on each, in turn (none, half, half, none, …) so that the
# machine's load falls on both alike; the script prints each run's ratio
# half/none in requests/s, their min–max and the mean. Then the plans
# (EXPLAIN) of both statements on the half table, to show the partial
# indexes at work.
#
#   bench/trash.sh                      # both databases, N=100000, 5 s a run, 4 runs
#   N=200000 RUNS=6 bench/trash.sh postgres
#
# Needs wrk (apt-get install wrk), sqlite3 and psql; for PostgreSQL, the
# local server.
set -euo pipefail
export PGOPTIONS=${PGOPTIONS:---client-min-messages=warning}
cd "$(dirname "$0")/.."
. bench/lib.sh

N=${N:-100000}
DURATION=${DURATION:-5s}
CONNS=${CONNS:-16}
RUNS=${RUNS:-4}
PORT=${PORT:-18281} # none's; half's is PORT+1
PG_URL=${PG_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
GET_ID=$(printf 'ret-%07d' $((N / 4 * 2))) # live on both: even, and below N
dbs=("$@")
[ ${#dbs[@]} -gt 0 ] || dbs=(sqlite postgres)

command -v wrk >/dev/null || { echo "bench/trash.sh needs wrk: apt-get install wrk" >&2; exit 1; }
client=() server=()
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
  client=(taskset -c 0) server=(taskset -c 1)
fi
work=$(mktemp -d)
pids=() schemas=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  for s in "${schemas[@]}"; do psql "$PG_URL" -qc "DROP SCHEMA IF EXISTS $s CASCADE" >/dev/null 2>&1 || true; done
  rm -rf "$work"
}
trap cleanup EXIT

build ./cmd/records ./bench/cmd/seed
wait_http() { for _ in $(seq 100); do curl -s -o /dev/null "$1" && return 0; sleep 0.1; done; echo "no answer at $1" >&2; exit 1; }

# rps URL TOKEN → requests/s
rps() {
  "${client[@]}" wrk -t1 -c2 -d1s -H "Authorization: Bearer $2" "$1" >/dev/null
  local out non2xx
  out=$("${client[@]}" wrk -t1 -c"$CONNS" -d"$DURATION" -H "Authorization: Bearer $2" "$1")
  non2xx=$(awk '/Non-2xx/ {print $5}' <<<"$out")
  [ -z "$non2xx" ] || { echo "$1: $non2xx answers were not 2xx" >&2; exit 1; }
  awk '/Requests\/sec/ {print $2}' <<<"$out"
}

# pairs DB READ PATH: half against none, RUNS times, alternating who goes first.
pairs() {
  local ratios=() a b sa=0 sb=0 lo hi
  for i in $(seq "$RUNS"); do
    if (( i % 2 )); then b=$(rps "http://127.0.0.1:$PORT$3" "$tok_none"); a=$(rps "http://127.0.0.1:$((PORT + 1))$3" "$tok_half")
    else a=$(rps "http://127.0.0.1:$((PORT + 1))$3" "$tok_half"); b=$(rps "http://127.0.0.1:$PORT$3" "$tok_none"); fi
    ratios+=("$(printf '%.3f' "$(echo "$a / $b" | bc -l)")")
    sa=$(echo "$sa + $a" | bc -l); sb=$(echo "$sb + $b" | bc -l)
  done
  lo=$(printf '%s\n' "${ratios[@]}" | sort -n | head -1); hi=$(printf '%s\n' "${ratios[@]}" | sort -n | tail -1)
  printf '%-9s %-9s %10.0f %10.0f %7.3f  %s–%s   runs: %s\n' "$1" "$2" "$(echo "$sb / $RUNS" | bc -l)" "$(echo "$sa / $RUNS" | bc -l)" \
    "$(echo "$sa / $sb" | bc -l)" "$lo" "$hi" "${ratios[*]}"
}

# prepare DB SIDE → the database URL of a migrated, seeded database; its
# token in $work/SIDE.token
prepare() {
  local url returns=$N trash=()
  [ "$2" = half ] && returns=$((2 * N)) trash=(--trash-odd)
  case "$1" in
    sqlite) url="sqlite:$work/$2.db" ;;
    postgres)
      local schema="trash_${2}_$$"
      schemas+=("$schema")
      psql "$PG_URL" -qc "DROP SCHEMA IF EXISTS $schema CASCADE; CREATE SCHEMA $schema" >/dev/null
      url="$PG_URL&search_path=$schema" ;;
  esac
  "$work/records" migrate --database-url "$url" >/dev/null
  "$work/records" token create --name load --database-url "$url" | tail -1 >"$work/$2.token" # makes the team too
  "$work/seed" --database-url "$url" --returns "$returns" --with-items 0 "${trash[@]}" 2>&1 | sed "s/^/  $1 $2: /" >&2
  [ "$1" = sqlite ] && sqlite3 "$work/$2.db" ANALYZE
  echo "$url"
}

# plans DB URL: the plans of the two reads' statements on the half table
# (PostgreSQL: the generic plan of the prepared statement the service runs).
plans() {
  local list='SELECT "id", "version" FROM "returns" WHERE "team_id" = $1 AND "deleted_at" IS NULL ORDER BY "id" LIMIT $2'
  local get='SELECT "id", "version" FROM "returns" WHERE "id" = $1 AND "team_id" = $2 AND "deleted_at" IS NULL'
  echo "plans on $1, half table ($((2 * N)) returns, $N in the trash):"
  if [ "$1" = postgres ]; then
    psql "$PG_URL" -qAt -c "SET search_path = ${2##*search_path=}" -c "SET plan_cache_mode = force_generic_plan" \
      -c "PREPARE l(bigint, int) AS $list" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) EXECUTE l(1, 101)" \
      -c "PREPARE g(text, bigint) AS $get" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) EXECUTE g('$GET_ID', 1)" | sed 's/^/  /'
  else
    list=${list//\$1/1}; list=${list//\$2/101}
    get=${get//\$1/\'$GET_ID\'}; get=${get//\$2/1}
    sqlite3 "${2#sqlite:}" "EXPLAIN QUERY PLAN $list" "EXPLAIN QUERY PLAN $get" | sed 's/^/  /'
  fi
}

printf '%-9s %-9s %10s %10s %7s  %s\n' database read none-rps half-rps half/none 'min–max'
for db in "${dbs[@]}"; do
  case "$db" in sqlite | postgres) ;; *) echo "unknown database $db" >&2; exit 1 ;; esac
  url_none=$(prepare "$db" none)
  url_half=$(prepare "$db" half)
  tok_none=$(cat "$work/none.token") tok_half=$(cat "$work/half.token")
  for side in none half; do
    url=url_$side port=$PORT
    [ $side = half ] && port=$((PORT + 1))
    "${server[@]}" "$work/records" serve --addr 127.0.0.1:$port --database-url "${!url}" --rate-limit 1e9 --rate-burst 1000000000 \
      >/dev/null 2>"$work/serve-$db-$side.log" &
    pids+=($!)
    wait_http http://127.0.0.1:$port/healthz
  done
  pairs "$db" list-100 "/v1/returns?limit=100"
  pairs "$db" get "/v1/returns/$GET_ID"
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  pids=()
  plans "$db" "$url_half" >&2
done
