#!/usr/bin/env bash
# Full states vs JSON Patch events at a large state: large-state-server (10,000 todo items, one
# toggled per action) with 100 subscribers of GET /events, then, against a fresh server, 100 of
# GET /events?delta=json-patch, each run posting toggles at the same rate (sse-fanout). Prints the
# state's size, the bytes per event each stream received and their ratio, and the delivery
# latencies; writes fanout-large.json, fanout-large-delta.json and large-state-deltas.json to OUT.
#
#   Benchmarks/large-state-deltas.sh BIN OUT [DURATION] [PORT] [SUBSCRIBERS] [RATE]
#
# BIN holds large-state-server (built with REMVVM_BENCHMARKS=1) and sse-fanout; scripts/bench.sh
# calls it in its "large state" part (defaults 10 s, port 18203, 100 subscribers, 20 actions/s).
# 127.0.0.1 only; every server it starts is stopped by its PID.
set -euo pipefail

BIN=$1
OUT=$2
DURATION=${3:-10}
PORT=${4:-18203}
SUBSCRIBERS=${5:-100}
RATE=${6:-20}
ACTION='{"type":"toggle","payload":{"id":4242}}'
mkdir -p "$OUT"

# start NAME PORT COMMAND... and stop PID (SIGTERM, the server must exit 0); every server is stopped on exit.
source "$(dirname "$0")/lib/background-servers.sh"

# run NAME PATH: one sse-fanout run against a fresh server.
run() {
    start "$1" "$PORT" "$BIN/large-state-server" "$PORT" 10000
    "$BIN/sse-fanout" --port "$PORT" --subscribers "$SUBSCRIBERS" --rate "$RATE" --duration "$DURATION" \
        --action "$ACTION" --path "$2" --server-pid "$SERVER_PID" --json "$OUT/$1.json" >"$OUT/$1.txt" 2>&1 \
        || { cat "$OUT/$1.txt" >&2; exit 1; }
    if [ "$1" = fanout-large ]; then
        state_bytes=$(curl -fsS "http://127.0.0.1:$PORT/state" | wc -c)
    fi
    stop "$SERVER_PID"
}

get() { grep -o "\"$2\": *[-0-9.enul]*" "$1" | head -1 | sed 's/.*: *//'; }

state_bytes=0
run fanout-large /events
run fanout-large-delta '/events?delta=json-patch'

full="$OUT/fanout-large.json"
delta="$OUT/fanout-large-delta.json"
full_bytes=$(get "$full" bytes_per_event)
delta_bytes=$(get "$delta" bytes_per_event)
percent=$(awk -v d="$delta_bytes" -v f="$full_bytes" 'BEGIN { if (f > 0) printf "%.3f", 100 * d / f; else print "null" }')
of_state=$(awk -v d="$delta_bytes" -v s="$state_bytes" 'BEGIN { if (s > 0) printf "%.3f", 100 * d / s; else print "null" }')
cat >"$OUT/large-state-deltas.json" <<JSON
{"state_bytes": $state_bytes, "full_bytes_per_event": $full_bytes, "patch_bytes_per_event": $delta_bytes,
 "patch_percent_of_full_event": $percent, "patch_percent_of_state": $of_state,
 "full_p50_ms": $(get "$full" p50_ms), "full_p99_ms": $(get "$full" p99_ms), "full_lost": $(get "$full" lost),
 "delta_p50_ms": $(get "$delta" p50_ms), "delta_p99_ms": $(get "$delta" p99_ms), "delta_lost": $(get "$delta" lost),
 "full_server_cpu_s": $(get "$full" server_cpu_run_s), "delta_server_cpu_s": $(get "$delta" server_cpu_run_s)}
JSON
echo "large state, $SUBSCRIBERS subscribers, $RATE toggles/s for $DURATION s: state $state_bytes bytes"
printf "  %-26s %12s %10s %10s %10s %14s\n" stream "bytes/event" "p50 ms" "p99 ms" lost "server CPU s"
for name in fanout-large fanout-large-delta; do
    j="$OUT/$name.json"
    printf "  %-26s %12s %10s %10s %10s %14s\n" "$( [ "$name" = fanout-large ] && echo "/events" || echo "/events?delta=json-patch")" \
        "$(get "$j" bytes_per_event)" "$(get "$j" p50_ms)" "$(get "$j" p99_ms)" "$(get "$j" lost)/$(get "$j" expected)" \
        "$(get "$j" server_cpu_run_s)"
done
echo "  patch events are $percent % of full-state events on the wire ($of_state % of the state; target <= 1 %)"
