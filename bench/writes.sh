#!/usr/bin/env bash
# Writes against the hand-written baseline (bench/baseline: one prepared
# INSERT/UPDATE … RETURNING per request, autocommitted): create, PATCH and
# upsert, and a create with an Idempotency-Key, on SQLite and PostgreSQL.
# Each comparison runs in turn (service, baseline, baseline, service), and
# keyed creates against unkeyed ones the same way (keyed, create, create,
# keyed). Prints mean requests/s, the worse p99 of each side, the
# service's statements and transactions per request (from /metrics), and
# the two ratios in turn. The last lines per database, "events 1" and
# "events 2", compare creates (with their events) to creates with the event
# trigger dropped, run in turn.
#
#   bench/writes.sh                    # both databases, 10 s a run
#   DURATION=30s bench/writes.sh postgres
#
# Needs wrk (apt-get install wrk), sqlite3 and, for PostgreSQL, the local
# server and psql.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

DURATION=${DURATION:-10s}
dbs=("$@")
[ ${#dbs[@]} -gt 0 ] || dbs=(sqlite postgres)

need wrk
bench_setup
build ./cmd/records ./bench/cmd/baseline

# Request scripts: random ids among the seeded records for PATCH; for
# upsert, random ids among 20,000 that neither side has at its start (each
# side its own, s- and b-), so both do the same mix of creates and updates;
# a fresh Idempotency-Key for every keyed create.
cat >"$work/create.lua" <<'EOF'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"email":"new@example.com","firstName":"New","lastName":"Customer","phone":"+1 555 0100"}'
EOF
cat >"$work/keyed.lua" <<'EOF'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"email":"new@example.com","firstName":"New","lastName":"Customer","phone":"+1 555 0100"}'
local n = 0
-- Seeded, so that a run never sends the keys of an earlier one (which
-- would be replays, not creates).
math.randomseed(os.time())
local prefix = tostring(math.random(1, 1e9))
request = function()
  n = n + 1
  wrk.headers["Idempotency-Key"] = prefix .. "-" .. n
  return wrk.format()
end
EOF
cat >"$work/patch.lua" <<'EOF'
wrk.method = "PATCH"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"email":"changed@example.com","firstName":"Changed"}'
request = function()
  return wrk.format(nil, string.format(PREFIX .. "cust-%d", math.random(1, 1000)))
end
EOF
cat >"$work/upsert.lua" <<'EOF'
wrk.method = "PUT"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"sku":"SKU-1","price":"12.50","name":"Widget"}'
request = function()
  return wrk.format(nil, string.format(PREFIX .. "li-%d", math.random(1, 20000)))
end
EOF

counter() { metric 18083 "$1"; }

# run NAME SCRIPT URL PREFIX → "rps p99 requests"
run() {
  local out
  sed "s|PREFIX|\"$4\"|" "$work/$2.lua" >"$work/run.lua"
  "${client[@]}" wrk -t1 -c"$CONNS" -d"$DURATION" --latency -s "$work/run.lua" -H "Authorization: Bearer $token" "$3" >"$work/wrk.out"
  out=$(cat "$work/wrk.out")
  if grep -q Non-2xx <<<"$out"; then
    echo "$1: $(awk '/Non-2xx/ {print $5}' <<<"$out") answers were not 2xx" >&2
    # The service must answer every write; the baseline, written as simply as
    # a developer would, may lose a few to SQLite's lock.
    [[ $1 == baseline* ]] || exit 1
  fi
  awk '/Requests\/sec/ {rps=$2} $1=="99%" {p99=$2} /requests in/ {n=$1} END {print rps, p99, n}' <<<"$out"
}

printf '%-9s %-14s %10s %10s %6s %9s %9s %6s %5s\n' database write service baseline ratio p99-svc p99-base stmts txs
for db in "${dbs[@]}"; do
  database "$db" writes
  migrate
  serve 18083
  serve_baseline 18093
  seed_customers 18083 1000 '{"id":"cust-{}","email":"c{}@example.com"}'

  for w in create keyed patch upsert; do
    case $w in
      create) s_url=http://127.0.0.1:18083/v1/customers; b_url=http://127.0.0.1:18093/customers; script=create; sp=; bp= ;;
      keyed) s_url=http://127.0.0.1:18083/v1/customers; b_url=; script=keyed ;;
      patch) s_url=http://127.0.0.1:18083; b_url=http://127.0.0.1:18093; script=patch; sp=/v1/customers/; bp=/customers/ ;;
      upsert) s_url=http://127.0.0.1:18083; b_url=http://127.0.0.1:18093; script=upsert; sp=/v1/return_line_items/s-; bp=/return_line_items/b- ;;
    esac
    st0=$(counter records_db_statements_total); tx0=$(counter records_db_transactions_total)
    read -r s_rps s_p99 s_n < <(run "service $w" "$script" "$s_url" "${sp:-}")
    st1=$(counter records_db_statements_total); tx1=$(counter records_db_transactions_total)
    stmts=$(echo "($st1 - $st0) / $s_n" | bc -l); txs=$(echo "($tx1 - $tx0) / $s_n" | bc -l)
    if [ -n "$b_url" ]; then
      # In turn — service, baseline, baseline, service — so that neither
      # side always writes to the smaller table or goes first.
      read -r b1 b1_p99 _ < <(run "baseline $w" "$script" "$b_url" "${bp:-}")
      read -r b2 b2_p99 _ < <(run "baseline $w" "$script" "$b_url" "${bp:-}")
      read -r s2 s2_p99 _ < <(run "service $w" "$script" "$s_url" "${sp:-}")
      r1=$(echo "$s_rps / $b1" | bc -l); r2=$(echo "$s2 / $b2" | bc -l)
      s_p99=$(worse "$s_p99" "$s2_p99"); b_p99=$(worse "$b1_p99" "$b2_p99")
      s_rps=$(echo "($s_rps + $s2) / 2" | bc -l); b_rps=$(echo "($b1 + $b2) / 2" | bc -l)
      printf '%-9s %-14s %10.2f %10.2f %6.2f %9s %9s %6.2f %5.2f   (in turn: %.2f, %.2f)\n' "$db" "$w" "$s_rps" "$b_rps" "$(echo "$s_rps / $b_rps" | bc -l)" "$s_p99" "$b_p99" "$stmts" "$txs" "$r1" "$r2"
    else
      # Keyed creates against unkeyed ones, in turn too: keyed, create,
      # create, keyed.
      read -r c1 _ _ < <(run "service create" create "$s_url" "")
      read -r c2 _ _ < <(run "service create" create "$s_url" "")
      read -r k2 k2_p99 _ < <(run "service keyed" keyed "$s_url" "")
      r1=$(echo "$s_rps / $c1" | bc -l); r2=$(echo "$k2 / $c2" | bc -l)
      s_p99=$(worse "$s_p99" "$k2_p99")
      s_rps=$(echo "($s_rps + $k2) / 2" | bc -l); c_rps=$(echo "($c1 + $c2) / 2" | bc -l)
      printf '%-9s %-14s %10.2f %10s %6.2f %9s %9s %6.2f %5.2f   (in turn: %.2f, %.2f)\n' "$db" "$w (key)" "$s_rps" "($(printf %.2f "$c_rps"))" "$(echo "$s_rps / $c_rps" | bc -l)" "$s_p99" "" "$stmts" "$txs" "$r1" "$r2"
    fi
  done

  # What events cost a write: creates with the customers table's event
  # trigger and without it (the events of every other write stay), twice in
  # turn — with, without, with, without, the trigger put back between — so
  # neither side always runs on the larger table.
  case "$db" in
    sqlite)
      sq() { sqlite3 -cmd '.timeout 10000' "$work/writes.db" "$1"; }
      trigger=$(sq "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'events_customers_insert'")
      drop() { sq 'DROP TRIGGER "events_customers_insert"'; }
      restore() { sq "$trigger"; } ;;
    postgres)
      pq() { psql "$PG_URL" -qAtc "SET search_path = $schema; $1"; }
      trigger=$(pq "SELECT pg_get_triggerdef(oid) FROM pg_trigger WHERE tgname = 'events_insert' AND tgrelid = 'customers'::regclass")
      drop() { pq 'DROP TRIGGER "events_insert" ON "customers"' >/dev/null; }
      restore() { pq "$trigger" >/dev/null; } ;;
  esac
  for turn in 1 2; do
    [ "$turn" = 1 ] || restore
    read -r e_rps _ _ < <(run "service create with events" create http://127.0.0.1:18083/v1/customers "")
    drop
    read -r n_rps n_p99 _ < <(run "service create without events" create http://127.0.0.1:18083/v1/customers "")
    printf '%-9s %-14s %10s %10s %6.2f %9s %9s\n' "$db" "events $turn" "$e_rps" "($n_rps)" "$(echo "$e_rps / $n_rps" | bc -l)" "" "$n_p99"
  done

  stop_all
  drop_database
done
