#!/usr/bin/env bash
# The spec-edit loop, timed: `recordsgen dev` serves a copy of the repository
# (in a temporary folder; the work tree is never touched), then EDITS times
# a member is added to schema/customer.go and the time from the edit to the
# new member in the served OpenAPI document is measured. Prints each edit's
# time, the median and the worst.
#
#   bench/devloop.sh
#   EDITS=20 PORT=18500 bench/devloop.sh
#
# The generator writes each edit's PostgreSQL migration in a scratch schema
# (RECORDSGEN_DEV_POSTGRES_URL, default the local server). The first build of
# a copy may take a minute or two; the edits are timed after it.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

EDITS=${EDITS:-10}
PORT=${PORT:-18480}
PAUSE=${PAUSE:-2} # seconds between one edit served and the next edit

need curl
bench_setup

git ls-files -co --exclude-standard | tar -cf - -T - | tar -xf - -C "$work"
cd "$work"
go build -o bin/recordsgen ./cmd/recordsgen
doc="http://127.0.0.1:$PORT/v1/openapi.json"

bin/recordsgen dev -- --addr "127.0.0.1:$PORT" --database-url "sqlite:$work/data/dev.db" >dev.log 2>dev.err &
dev=$!
pids+=("$dev")
echo "waiting for the first build (dev.log: $work/dev.log)…"
for _ in $(seq 1 6000); do
  curl -sf "$doc" >/dev/null && break
  kill -0 "$dev" 2>/dev/null || { cat dev.log dev.err >&2; exit 1; }
  sleep 0.1
done
grep '^dev:' dev.log

now_ms() { date +%s%3N; }
run=$(date +%s)
times=()
for i in $(seq 1 "$EDITS"); do
  sleep "$PAUSE"
  member="bench_${run}_$i" # new each run: a repeated edit would be built from the cache
  start=$(now_ms)
  sed -i "s/text(\"activationDate\"),/text(\"activationDate\"),\n\t\ttext(\"$member\"),/" schema/customer.go
  until curl -sf "$doc" | grep -q "\"$member\""; do
    if [ $(( $(now_ms) - start )) -gt 300000 ]; then
      echo "edit $i: not served after 5 minutes" >&2; tail -20 dev.log >&2; exit 1
    fi
    sleep 0.05
  done
  ms=$(( $(now_ms) - start ))
  times+=("$ms")
  printf 'edit %2d: %5.1f s   %s\n' "$i" "$(echo "$ms / 1000" | bc -l)" "$(grep '^dev: regenerated' dev.log | tail -1 | sed 's/^dev: //')"
done

sorted=($(printf '%s\n' "${times[@]}" | sort -n))
n=${#sorted[@]}
median=$(( (sorted[(n - 1) / 2] + sorted[n / 2]) / 2 ))
printf 'edit to served, %d edits: median %.1f s, best %.1f s, worst %.1f s (load %s)\n' "$n" \
  "$(echo "$median / 1000" | bc -l)" "$(echo "${sorted[0]} / 1000" | bc -l)" \
  "$(echo "${sorted[n - 1]} / 1000" | bc -l)" "$(cut -d' ' -f1-3 /proc/loadavg)"
