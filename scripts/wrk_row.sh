# Sourced by scripts/loadtest.sh and scripts/compare_bakerydemo.sh: one wrk measurement and one
# table row, so that our figures and bakerydemo's come from the same command and format.

wrk_header() {
  printf '%-8s %-14s %10s %10s %10s %11s  %s\n' workers page req/s p50 p99 "RSS/worker" errors
}

# wrk_row WORKERS LABEL URL SERVER_PID: CONNECTIONS connections for DURATION seconds. A 30 s
# client timeout: a slow answer counts in the latency, not as an error. Gzip accepted, as
# browsers do, unless ACCEPT_ENCODING says otherwise (identity: a client that takes no gzip).
# RSS: the mean of the server's workers (its child processes).
wrk_row() {
  local workers=$1 label=$2 url=$3 server=$4 out rss rps p50 p99 errors
  out=$(wrk -t 2 -c "$CONNECTIONS" -d "${DURATION}s" --timeout 30s --latency \
    -H "Accept-Encoding: ${ACCEPT_ENCODING:-gzip}" "$url")
  rss=$(ps -o rss= --ppid "$server" | awk '{s+=$1; n++} END {printf "%.0f", s/n/1024}')
  rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  p50=$(awk '$1=="50%" {print $2}' <<<"$out")
  p99=$(awk '$1=="99%" {print $2}' <<<"$out")
  errors=$(awk '/Non-2xx|Socket errors/ {print}' <<<"$out" | tr '\n' ' ')
  printf '%-8s %-14s %10s %10s %10s %8s MB  %s\n' "$workers" "$label" "$rps" "$p50" "$p99" \
    "$rss" "${errors:-0 errors}"
}
