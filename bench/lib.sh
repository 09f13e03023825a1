# Helpers the load scripts share (sourced, not run).

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
