#!/usr/bin/env bash
# Running at scale, measured on throw-away PostgreSQL clusters of its own
# (initdb in a temporary folder, free ports; the shared server is not
# touched) and a NATS server of its own:
#
#   replicas  GET by id (random ids among 1,000 customers) served by the
#             primary alone, and by a service with a streaming replica
#             (--replica-url), whose reads then run on the replica;
#             in turn: primary, replica, replica, primary, per round.
#   publish   sustained creates without and with the NATS publisher
#             (--nats-url), in turn, per round; for each run with it, how
#             late its events reached JetStream (bench/cmd/natslag: the
#             time JetStream stored each, less its occurred_at) and how
#             long the publisher took to catch up once the load stopped.
#
#   bench/scale.sh                     # both, 3 rounds of 10 s runs
#   RUNS=5 DURATION=20s bench/scale.sh publish
#
# Needs wrk (apt-get install wrk), PostgreSQL's server programs
# (pg_config --bindir) and nats-server (apt-get install nats-server).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

DURATION=${DURATION:-10s}
RUNS=${RUNS:-3}
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(replicas publish)
need wrk pg_config
nats_server=$(command -v nats-server || echo /usr/sbin/nats-server)
[ -x "$nats_server" ] || { echo "bench/scale.sh needs nats-server" >&2; exit 1; }

pgbin=$(pg_config --bindir)
as_pg=()
[ "$(id -u)" = 0 ] && as_pg=(runuser -u postgres --)

bench_setup
[ "$(id -u)" = 0 ] && chown postgres "$work"
clusters=()
cleanup_more() {
  for c in "${clusters[@]}"; do "${as_pg[@]}" "$pgbin/pg_ctl" -D "$c" -m immediate stop >/dev/null 2>&1 || true; done
}
build ./cmd/records ./bench/cmd/natslag

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
pg_start() { # DIR PORT
  "${as_pg[@]}" "$pgbin/pg_ctl" -D "$1" -l "$1.log" -w \
    -o "-p $2 -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c max_connections=200" start >/dev/null
  clusters+=("$1")
}

# The primary, with a database "bench".
pport=$(free_port)
"${as_pg[@]}" "$pgbin/initdb" -D "$work/primary" -U postgres --auth=trust -E UTF8 --locale=C >/dev/null
pg_start "$work/primary" "$pport"
"${as_pg[@]}" "$pgbin/createdb" -h 127.0.0.1 -p "$pport" -U postgres bench
primary="postgres://postgres@127.0.0.1:$pport/bench?sslmode=disable"
url=$primary
migrate
psql_primary() { psql -h 127.0.0.1 -p "$pport" -U postgres -d bench -qAt "$@"; }

# run_wrk URL SCRIPT → "rps p99"
run_wrk() { local rps p99; read -r rps p99 _ < <(wrk_run "$1" "$token" -s "$2"); echo "$rps $p99"; }

# cpu_ticks PID: the CPU time a process has used, in clock ticks.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

replicas() {
  local sport
  sport=$(free_port)
  "${as_pg[@]}" "$pgbin/pg_basebackup" -h 127.0.0.1 -p "$pport" -U postgres -D "$work/standby" -R -X stream --checkpoint=fast >/dev/null
  pg_start "$work/standby" "$sport"
  local replica="postgres://postgres@127.0.0.1:$sport/bench?sslmode=disable"
  serve 18201 --log-level error
  seed_customers 18201 1000
  serve 18202 --log-level error --replica-url "$replica"
  for _ in $(seq 100); do
    curl -s -D - -o /dev/null "http://127.0.0.1:18202/v1/customers/cust-1" -H "Authorization: Bearer $token" | grep -qi 'served-by: replica' && break
    sleep 0.1
  done
  cat >"$work/get.lua" <<'EOF'
math.randomseed(os.time())
request = function() return wrk.format(nil, "/v1/customers/cust-" .. math.random(1, 1000)) end
EOF
  printf '%-8s %14s %14s %7s %12s %12s %16s\n' round primary-rps replica-rps ratio p99-primary p99-replica "served by replica"
  for round in $(seq "$RUNS"); do
    local a1 a1p b1 b1p b2 b2p a2 a2p on_replica on_primary
    read -r a1 a1p < <(run_wrk http://127.0.0.1:18201/ "$work/get.lua")
    read -r b1 b1p < <(run_wrk http://127.0.0.1:18202/ "$work/get.lua")
    read -r b2 b2p < <(run_wrk http://127.0.0.1:18202/ "$work/get.lua")
    read -r a2 a2p < <(run_wrk http://127.0.0.1:18201/ "$work/get.lua")
    on_replica=$(metric 18202 'records_reads_total{served_by="replica"}')
    on_primary=$(metric 18202 'records_reads_total{served_by="primary"}')
    printf '%-8s %14.0f %14.0f %7.2f %12s %12s %15.1f%%\n' "$round" "$(echo "($a1 + $a2) / 2" | bc -l)" "$(echo "($b1 + $b2) / 2" | bc -l)" \
      "$(echo "($b1 + $b2) / ($a1 + $a2)" | bc -l)" "$(worse "$a1p" "$a2p")" "$(worse "$b1p" "$b2p")" \
      "$(echo "100 * ${on_replica:-0} / (${on_replica:-0} + ${on_primary:-0} + 0.000001)" | bc -l)"
  done
  stop_all
  "${as_pg[@]}" "$pgbin/pg_ctl" -D "$work/standby" -m fast stop >/dev/null
}

publish() {
  local nport
  nport=$(free_port)
  "$nats_server" -a 127.0.0.1 -p "$nport" -js -sd "$work/nats" >/dev/null 2>&1 &
  natspid=$!
  pids+=($natspid)
  for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$nport") 2>/dev/null && break; sleep 0.1; done
  local nats="nats://127.0.0.1:$nport"
  cat >"$work/create.lua" <<'EOF'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"email":"new@example.com","firstName":"New","lastName":"Customer","phone":"+1 555 0100"}'
EOF
  # one run: creates for DURATION, without (off) or with (on) the publisher
  run() {
    local svc rps p99
    if [ "$1" = on ]; then
      # The publisher starts at the log's head: it publishes this run's events only.
      psql_primary -c "INSERT INTO event_followers (id, txid, seq) SELECT 'nats:BENCH', txid, id FROM events ORDER BY txid DESC, id DESC LIMIT 1
        ON CONFLICT (id) DO UPDATE SET txid = excluded.txid, seq = excluded.seq"
      serve 18203 --log-level error --nats-url "$nats" --nats-stream BENCH
    else
      serve 18203 --log-level error
    fi
    svc=${pids[-1]}
    local start cpu0 ncpu0 cpu1 ncpu1
    start=$(date -u +%Y-%m-%dT%H:%M:%S.%NZ)
    cpu0=$(cpu_ticks "$svc"); ncpu0=$(cpu_ticks "$natspid")
    read -r rps p99 < <(run_wrk http://127.0.0.1:18203/v1/customers "$work/create.lua")
    cpu1=$(cpu_ticks "$svc"); ncpu1=$(cpu_ticks "$natspid")
    local lag="" catchup=""
    if [ "$1" = on ]; then
      local stopped=$SECONDS
      for _ in $(seq 600); do
        [ "$(metric 18203 records_nats_behind_seconds)" = 0 ] && break
        sleep 0.1
      done
      catchup=$((SECONDS - stopped))
      lag=$("$work/natslag" -url "$nats" -stream BENCH -since "$start")
    fi
    kill "$svc"; wait "$svc" 2>/dev/null || true
    local secs=${DURATION%s}
    echo "$rps|$p99|$lag|$catchup|$(echo "1000000 * ($cpu1 - $cpu0) / $(getconf CLK_TCK) / ($rps * ($secs + 1))" | bc -l)|$(echo "100 * ($ncpu1 - $ncpu0) / $(getconf CLK_TCK) / ($secs + 1)" | bc -l)"
  }
  printf '%-6s %-4s %10s %10s %14s %10s  %s\n' round pub creates/s p99 "server µs/req" "nats cpu" "publish lag (stored − occurred), catch-up after the load"
  for round in $(seq "$RUNS"); do
    for mode in off on on off; do
      IFS='|' read -r rps p99 lag catchup us ncpu < <(run "$mode")
      printf '%-6s %-4s %10.0f %10s %14.0f %9.1f%%  %s\n' "$round" "$mode" "$rps" "$p99" "$us" "$ncpu" "${lag:+$lag, caught up within ${catchup}s}"
    done
  done
}

for part in "${parts[@]}"; do
  echo "== $part"
  "$part"
done
