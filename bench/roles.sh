#!/usr/bin/env bash
# Load test of identity and roles (DESIGN §15), on SQLite and PostgreSQL:
#   get:    GET by id with a JWT (of the identity provider bench/cmd/idp)
#           against the same with an API token — a JWT must cost what a
#           token costs (ratio ≥ 0.95);
#   list:   a list of 100 cases under the agent role's filter (resolver =
#           $auth.sub, schema/policies.yaml) against admin's unfiltered
#           list of 100 (ratio ≥ 0.8).
# Each pair runs RUNS times in turn (A, B, B, A, …); the script prints
# each run's ratio and the mean, so the spread shows.
#
#   bench/roles.sh                 # both databases, 5 s a run, 3 runs
#   DURATION=10s RUNS=5 bench/roles.sh sqlite
#
# Needs wrk (apt-get install wrk) and, for PostgreSQL, the local server.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

DURATION=${DURATION:-5s}
RUNS=${RUNS:-3}
PORT=${PORT:-18181}     # the service's; the identity provider's is PORT+18
dbs=("$@")
[ ${#dbs[@]} -gt 0 ] || dbs=(sqlite postgres)

need wrk
bench_setup
build ./cmd/records ./bench/cmd/idp

# rps URL TOKEN → requests/s
rps() { local r; read -r r _ < <(wrk_run "$1" "$2"); echo "$r"; }

# pairs DB NAME URL_A TOKEN_A URL_B TOKEN_B: A against B, RUNS times.
pairs() {
  local ratios=() a b sa=0 sb=0
  for i in $(seq "$RUNS"); do
    if (( i % 2 )); then a=$(rps "$3" "$4"); b=$(rps "$5" "$6"); else b=$(rps "$5" "$6"); a=$(rps "$3" "$4"); fi
    ratios+=("$(printf '%.3f' "$(echo "$a / $b" | bc -l)")")
    sa=$(echo "$sa + $a" | bc -l); sb=$(echo "$sb + $b" | bc -l)
  done
  printf '%-9s %-5s %10.0f %10.0f %7.3f   runs: %s\n' "$1" "$2" "$(echo "$sa / $RUNS" | bc -l)" "$(echo "$sb / $RUNS" | bc -l)" \
    "$(echo "$sa / $sb" | bc -l)" "${ratios[*]}"
}

"$work/idp" --addr 127.0.0.1:$((PORT + 18)) admin agent >"$work/jwts" 2>/dev/null &
pids+=($!)
wait_http http://127.0.0.1:$((PORT + 18))/jwks
admin_jwt=$(sed -n 1p "$work/jwts")
agent_jwt=$(sed -n 2p "$work/jwts")

printf '%-9s %-5s %10s %10s %7s\n' database pair A-rps B-rps A/B
echo "          get:  A = GET by id with a JWT, B = with an API token (admin both)"
echo "          list: A = 100 cases under the agent's filter, B = admin's 100 cases"
for db in "${dbs[@]}"; do
  database "$db" roles
  migrate
  serve "$PORT" --jwks-url http://127.0.0.1:$((PORT + 18))/jwks --jwt-audience records
  # 1,000 cases: 900 resolved by alice (the agent's subject), 100 by bob.
  for b in 0 1 2 3 4 5 6 7 8 9; do
    body=$(for i in $(seq 0 99); do n=$((b * 100 + i)); r=alice; [ $((n % 10)) = 9 ] && r=bob
      printf '{"id":"case-%d","caseName":"Case %d","description":"A customer writes about order %d","priority":"normal","caseStatus":"open","submitter":"s%d","resolver":"%s"}\n' "$n" "$n" "$n" "$n" "$r"
    done | paste -sd, -)
    curl -sf -o /dev/null -X POST http://127.0.0.1:$PORT/v1/cases -H "Authorization: Bearer $token" -H 'Content-Type: application/json' -d "[$body]"
  done
  pairs "$db" get "http://127.0.0.1:$PORT/v1/cases/case-500" "$admin_jwt" "http://127.0.0.1:$PORT/v1/cases/case-500" "$token"
  pairs "$db" list "http://127.0.0.1:$PORT/v1/cases?limit=100" "$agent_jwt" "http://127.0.0.1:$PORT/v1/cases?limit=100" "$token"
  kill "$svc" 2>/dev/null || true; wait "$svc" 2>/dev/null || true
  drop_database
done
