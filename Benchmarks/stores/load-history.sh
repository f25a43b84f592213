#!/usr/bin/env bash
# The first request to an unloaded store with a long history: does its load read only what it
# replays (its snapshot and the records after it) or its whole history? Fills the store s0 of a
# fresh durable server for SECONDS of `wrk -t2 -c64` POSTs (journalSync off, to fill fast), stops
# it (a clean stop writes s0's snapshot), then starts the server of each BIN in turn, ROUNDS
# times, and times the first `GET /stores/s0/state` (the load) and the second (loaded).
#
#   Benchmarks/stores/load-history.sh DATA_DIR SECONDS ROUNDS BIN...
#
# Each BIN holds remvvm-server (release). The first BIN fills DATA_DIR (emptied first). Prints
# the versions s0 holds, each first request, and per BIN the median. 127.0.0.1 only; every server
# is stopped by its PID.
set -euo pipefail
cd "$(dirname "$0")/../.."
DATA=$1
SECONDS_=$2
ROUNDS=$3
shift 3
BINS=("$@")
PORT=${PORT:-18243}
scripts/install-deps.sh wrk curl python3
rm -rf "$DATA" "$DATA.logs"
mkdir -p "$DATA" "$DATA.logs"
OUT=$DATA.logs
source Benchmarks/lib/background-servers.sh
start fill "$PORT" "${BINS[0]}/remvvm-server" --port "$PORT" --data-dir "$DATA" --log-level warning --journal-sync off
python3 Benchmarks/lib/put-stores.py "$PORT" 1
STORES=1 wrk -t2 -c64 -d"${SECONDS_}s" -s Benchmarks/wrk/post-action-stores.lua "http://127.0.0.1:$PORT" >/dev/null
versions=$(curl -sf -D - -o /dev/null "http://127.0.0.1:$PORT/stores/s0/state" | tr -d '\r' | awk -F'[":-]' '/^ETag:/ {print $3}')
stop "$SERVER_PID"
echo "store s0: $versions versions, a snapshot of the last written at the stop"
declare -A firsts
for round in $(seq 1 "$ROUNDS"); do
    for bin in "${BINS[@]}"; do
        start load "$PORT" "$bin/remvvm-server" --port "$PORT" --data-dir "$DATA" --log-level warning
        first=$(curl -sf -o /dev/null -w '%{time_total}' "http://127.0.0.1:$PORT/stores/s0/state")
        second=$(curl -sf -o /dev/null -w '%{time_total}' "http://127.0.0.1:$PORT/stores/s0/state")
        stop "$SERVER_PID"
        echo "round $round  $bin  first ${first}s  second ${second}s"
        firsts[$bin]="${firsts[$bin]:-} $first"
    done
done
for bin in "${BINS[@]}"; do
    python3 -c 'import statistics, sys; print(f"{sys.argv[1]}: median first request {statistics.median(map(float, sys.argv[2:])) * 1000:.1f} ms")' "$bin" ${firsts[$bin]}
done
