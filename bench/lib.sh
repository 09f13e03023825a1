# Helpers the bench scripts share (sourced, not run): the set-up each of
# them needs — tools checked, a scratch folder cleaned up on exit, the
# binaries built, a fresh database, the service migrated, started, waited
# for and seeded — and the reading of wrk's output.
#
# A script sources it after `cd` to the repository's root, then calls
# bench_setup. What it defines: client and server (the commands that pin
# wrk and the servers to a core each), work (the scratch folder), pids
# (what stop_all ends), url and schema (database), token and svc (serve).

PG_URL=${PG_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
CONNS=${CONNS:-32}

# need TOOL… exits, naming the tool, unless every one is installed.
need() {
  local t
  for t in "$@"; do
    command -v "$t" >/dev/null && continue
    case "$t" in
      wrk) echo "bench/$(basename "$0") needs wrk: apt-get install wrk" >&2 ;;
      *) echo "bench/$(basename "$0") needs $t" >&2 ;;
    esac
    exit 1
  done
}

# bench_setup makes the scratch folder and the exit trap, and pins: with
# two or more cores, wrk runs on the first and the servers on the second,
# so the two do not take turns on one core and a server's throughput is
# what one core of it serves. A script with more to undo on exit defines
# cleanup_more.
bench_setup() {
  client=() server=()
  if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
    client=(taskset -c 0) server=(taskset -c 1)
  fi
  work=$(mktemp -d)
  pids=()
  schema=
  trap cleanup EXIT
}

cleanup() {
  local rc=$?
  if [ "$rc" != 0 ] && [ -s "$work/serve.log" ]; then
    echo "the service's log ends:" >&2; tail -5 "$work/serve.log" >&2
  fi
  stop_all
  if declare -F cleanup_more >/dev/null; then cleanup_more; fi
  drop_database
  rm -rf "$work"
}

# stop_all ends every process in pids and waits for them.
stop_all() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  pids=()
}

# build PACKAGE… builds each command into $work, named as its folder, with
# the Makefile's build tags (TAGS).
TAGS=${TAGS:-nomsgpack}
build() {
  local pkg
  for pkg in "$@"; do go build -tags "$TAGS" -o "$work/$(basename "$pkg")" "$pkg"; done
}

# wait_http URL waits for URL to answer (up to 30 s).
wait_http() {
  local _i
  for _i in $(seq 300); do curl -s -o /dev/null "$1" && return 0; sleep 0.1; done
  echo "no answer at $1" >&2; exit 1
}

# database DB NAME sets url to a fresh database: for sqlite the file
# $work/NAME.db, for postgres the schema NAME_<pid> on PG_URL (in schema,
# dropped by drop_database and on exit).
database() {
  drop_database
  case "$1" in
    sqlite) url="sqlite:$work/$2.db" ;;
    postgres)
      schema="$2_$$"
      psql "$PG_URL" -qc "DROP SCHEMA IF EXISTS $schema CASCADE; CREATE SCHEMA $schema" >/dev/null 2>&1
      url="$PG_URL&search_path=$schema" ;;
    *) echo "unknown database $1" >&2; exit 1 ;;
  esac
}

drop_database() {
  [ -z "${schema:-}" ] || psql "$PG_URL" -qc "DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null 2>&1 || true
  schema=
}

# migrate migrates the database at url and makes an API token for it
# (token).
migrate() {
  "$work/records" migrate --database-url "$url" >/dev/null
  token=$("$work/records" token create --name "$(basename "$0" .sh)" --database-url "$url" | tail -1)
}

# serve PORT [FLAG…] starts the service on the database at url, pinned,
# with no rate limit, and waits for it; its pid is svc (and in pids), its
# log $work/serve.log.
serve() {
  local port=$1; shift
  "${server[@]}" "$work/records" serve --addr "127.0.0.1:$port" --database-url "$url" \
    --rate-limit 1e9 --rate-burst 1000000000 "$@" >/dev/null 2>>"$work/serve.log" &
  svc=$!; pids+=("$svc")
  wait_http "http://127.0.0.1:$port/healthz"
}

# serve_baseline PORT starts bench/baseline on the database at url, pinned,
# and waits for it.
serve_baseline() {
  "${server[@]}" "$work/baseline" --addr "127.0.0.1:$1" --database-url "$url" 2>/dev/null &
  pids+=($!)
  wait_http "http://127.0.0.1:$1/customers"
}

# seed_customers PORT N [BODY] creates customers cust-1 … cust-N through the
# API, 8 at once; BODY ({} for the number) has every member set unless given.
seed_customers() {
  local body=${3:-'{"id":"cust-{}","sso_id":"sso-{}","email":"customer{}@example.com","firstName":"First {}","lastName":"Last {}","phone":"+1 555 0100 {}","payment_customer_id":"pay_{}","timestamp":"2026-11-21T10:00:00Z","activationDate":"2026-01-01"}'}
  seq "$2" | xargs -P 8 -I{} curl -s -o /dev/null -X POST "http://127.0.0.1:$1/v1/customers" \
    -H "Authorization: Bearer $token" -H 'Content-Type: application/json' -d "$body"
}

# wrk_run URL TOKEN [WRK_ARG…] → "rps p99 average": a second's warm-up,
# then CONNS connections for DURATION with TOKEN as the bearer; exits if
# any answer was not 2xx.
wrk_run() {
  local url=$1 tok=$2 out non2xx; shift 2
  "${client[@]}" wrk -t1 -c2 -d1s -H "Authorization: Bearer $tok" "$@" "$url" >/dev/null
  out=$("${client[@]}" wrk -t1 -c"$CONNS" -d"$DURATION" --latency -H "Authorization: Bearer $tok" "$@" "$url")
  non2xx=$(awk '/Non-2xx/ {print $5}' <<<"$out")
  [ -z "$non2xx" ] || { echo "$url: $non2xx answers were not 2xx" >&2; exit 1; }
  awk '/Requests\/sec/ {rps=$2} /^ +Latency +[0-9]/ {avg=$2} $1=="99%" {p99=$2} END {print rps, p99, avg}' <<<"$out"
}

# pg_cpu PID prints "backend ticks" for each PostgreSQL backend serving a
# connection of process PID (found by its client port): their CPU time
# (user + system, clock ticks), where the cost of what a statement does in
# the database shows — the search columns' trigger and indexes, say — and
# the process's own CPU time does not.
pg_cpu() {
  local port ports p
  port=$(sed -n 's|^[^/]*//[^/]*:\([0-9][0-9]*\)/.*|\1|p' <<<"$PG_URL") # PG_URL's, 5432 unless given
  ports=$(ss -tnpH state established "( dport = :${port:-5432} )" |
    awk -v me="pid=$1," 'index($0, me) {n = split($3, a, ":"); print a[n]}' | paste -sd, -)
  [ -n "$ports" ] || return 0
  for p in $(psql "$PG_URL" -Atc "SELECT pid FROM pg_stat_activity WHERE client_port IN ($ports)"); do
    [ -r "/proc/$p/stat" ] && echo "$p $(awk '{print $14 + $15}' "/proc/$p/stat")"
  done
  return 0
}

# pg_cpu_since BEFORE AFTER prints the ticks the backends spent between two
# pg_cpu listings (a backend new in AFTER from 0).
pg_cpu_since() { awk 'NR == FNR {t[$1] = $2; next} {d += $2 - t[$1]} END {print d + 0}' "$1" "$2"; }

# metric PORT NAME prints the value of one line of the service's /metrics.
metric() { curl -s "http://127.0.0.1:$1/metrics" | awk -v m="$2" '$1==m {print $2}'; }

# peak_mib PID prints a process's peak resident memory, in MiB.
peak_mib() { awk '/VmHWM/ {printf "%.1f", $2/1024}' "/proc/$1/status"; }

# rss_split PID prints a process's resident memory now as anonymous/file-
# backed MiB (RssAnon/RssFile): the heap and stacks, and the binary's pages.
rss_split() { awk '/RssAnon/ {a=$2} /RssFile/ {f=$2} END {printf "%.1f/%.1f", a/1024, f/1024}' "/proc/$1/status"; }

# worse prints the worse of two wrk latencies (e.g. 3.2ms, 1.1s), as written.
worse() {
  local a b
  a=$(to_ms "$1"); b=$(to_ms "$2")
  if (( $(echo "$a >= $b" | bc -l) )); then echo "$1"; else echo "$2"; fi
}

# to_ms prints a wrk latency in milliseconds.
to_ms() {
  case "$1" in
    *us) echo "${1%us} / 1000" | bc -l ;;
    *ms) echo "${1%ms}" ;;
    *s) echo "${1%s} * 1000" | bc -l ;;
    *) echo "$1" ;;
  esac
}
