#!/usr/bin/env bash
# What the search index costs writes (DESIGN §16): sustained creates of
# returns with every searchable member filled, by this build ("search")
# and by the same build with no member marked searchable ("none": in a
# scratch clone, schema/fields.go's searchable marks nothing and the code
# is generated again), on a fresh database each, in turn per round
# (search, none, none, search). Prints each round's creates/s, p99 and
# search ÷ none, the service's CPU time a create (µs, each run), on
# PostgreSQL its backends' ("pg": the trigger parsing the members and the
# GIN inserts are there, not in the service), and none ÷ search of the
# two together; then the ratios over all runs.
#
#   bench/upkeep.sh                  # both databases, 3 rounds of 5 s runs
#   RUNS=5 DURATION=10s bench/upkeep.sh postgres
#
# Needs wrk (apt-get install wrk), psql and the local PostgreSQL (the
# generator writes PostgreSQL's migrations through it, and the postgres
# runs use a schema of their own on PG_URL).
set -euo pipefail
export PGOPTIONS=${PGOPTIONS:---client-min-messages=warning}
cd "$(dirname "$0")/.."
CONNS=${CONNS:-8}
. bench/lib.sh

DURATION=${DURATION:-5s}
RUNS=${RUNS:-3}
PORT=${PORT:-18391}
dbs=("$@")
[ ${#dbs[@]} -gt 0 ] || dbs=(sqlite postgres)
need wrk psql
# The backends serving the service are found by its connections (pg_cpu).
[[ " ${dbs[*]} " != *" postgres "* ]] || need ss

bench_setup
build ./cmd/records
mv "$work/records" "$work/records-search"

# The same build (its last commit) with nothing searchable: searchable's
# annotation dropped, every generated file written again.
git clone -q . "$work/none"
(
  cd "$work/none"
  grep -q 'd.Annotations = append(d.Annotations, annotation.Search(weight))' schema/fields.go ||
    { echo "bench/upkeep.sh: searchable in schema/fields.go is not as expected" >&2; exit 1; }
  sed -i -e '/func searchable(/,/^}/{s/^\td := f.Descriptor()$/\t_ = weight/;/annotation.Search(weight)/d}' schema/fields.go
  go run -tags "$TAGS" ./cmd/recordsgen generate --allow-breaking --migration-name no_search >"$work/generate.log" 2>&1 ||
    { cat "$work/generate.log" >&2; exit 1; }
  go build -tags "$TAGS" -o "$work/records-none" ./cmd/records
)

cat >"$work/create.lua" <<'EOF'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"rma":"RMA-2026-0042","serial_number":"SN-7731-AX-0042","customerEmail":"jane.doe@example.com",' ..
  '"issue":"Widget arrived with a cracked housing and a loose hinge",' ..
  '"description":"The customer reports that the widget stopped working after two days; the housing is cracked near the hinge, the display flickers, and the charger gets warm. Replacement requested under warranty."}'
EOF

# created prints the creates the service has answered.
created() {
  curl -s "http://127.0.0.1:$PORT/metrics" |
    awk '/^records_http_requests_total/ && /method="POST"/ && /status="201"/ {n += $2} END {print n + 0}'
}

# run DB BUILD → "rps p99 cpu pg": BUILD's creates on a fresh database,
# the CPU time of the service (user + system, all its threads: the
# checkpointer's and the search batches' too) per create, in µs — steadier
# than creates/s on a machine that does other work — and on PostgreSQL
# that of its backends from the start of the load (0 on SQLite).
run() {
  local before total ticks hz pg=0
  database "$1" "upkeep_$2"
  ln -sf "$work/records-$2" "$work/records"
  migrate 2>/dev/null
  serve "$PORT" --log-level error
  [ "$1" != postgres ] || pg_cpu "$svc" >"$work/pg0"
  before=$(created)
  read -r rps p99 _ <<<"$(wrk_run "http://127.0.0.1:$PORT/v1/returns" "$token" -s "$work/create.lua")"
  total=$(created)
  [ "$1" != postgres ] || { pg_cpu "$svc" >"$work/pg1"; pg=$(pg_cpu_since "$work/pg0" "$work/pg1"); }
  ticks=$(awk '{print $14 + $15}' "/proc/$svc/stat")
  hz=$(getconf CLK_TCK)
  echo "$rps $p99 $(echo "$ticks * 1000000 / $hz / $total" | bc -l) $(echo "$pg * 1000000 / $hz / ($total - $before)" | bc -l)"
  stop_all
  drop_database
  rm -f "$work/upkeep_$2.db"*
}

for db in "${dbs[@]}"; do
  echo "== $db: creates of a return with every searchable member filled, $CONNS connections, $DURATION a run"
  printf '%-6s %10s %10s %10s %10s %7s %10s %10s %10s %10s %7s\n' round search/s none/s "p99 search" "p99 none" ratio \
    "µs search" "µs none" "pg search" "pg none" "cpu"
  all_s=0 all_n=0 cpu_s=0 cpu_n=0
  for round in $(seq "$RUNS"); do
    read -r s1 s1p s1c s1g <<<"$(run "$db" search)"
    read -r n1 n1p n1c n1g <<<"$(run "$db" none)"
    read -r n2 n2p n2c n2g <<<"$(run "$db" none)"
    read -r s2 s2p s2c s2g <<<"$(run "$db" search)"
    all_s=$(echo "$all_s + $s1 + $s2" | bc -l); all_n=$(echo "$all_n + $n1 + $n2" | bc -l)
    # The CPU ratio: the service's and its backends' time a create.
    cpu_s=$(echo "$cpu_s + $s1c + $s2c + $s1g + $s2g" | bc -l); cpu_n=$(echo "$cpu_n + $n1c + $n2c + $n1g + $n2g" | bc -l)
    printf '%-6s %10.0f %10.0f %10s %10s %7.2f %10s %10s %10s %10s %7.2f\n' "$round" "$(echo "($s1 + $s2) / 2" | bc -l)" "$(echo "($n1 + $n2) / 2" | bc -l)" \
      "$(worse "$s1p" "$s2p")" "$(worse "$n1p" "$n2p")" "$(echo "($s1 + $s2) / ($n1 + $n2)" | bc -l)" \
      "$(printf '%.0f,%.0f' "$s1c" "$s2c")" "$(printf '%.0f,%.0f' "$n1c" "$n2c")" \
      "$(printf '%.0f,%.0f' "$s1g" "$s2g")" "$(printf '%.0f,%.0f' "$n1g" "$n2g")" \
      "$(echo "($n1c + $n2c + $n1g + $n2g) / ($s1c + $s2c + $s1g + $s2g)" | bc -l)"
  done
  printf 'all runs: search ÷ none = %.2f; CPU a create (service and backends), none ÷ search = %.2f\n' "$(echo "$all_s / $all_n" | bc -l)" "$(echo "$cpu_n / $cpu_s" | bc -l)"
  drop_database
done
