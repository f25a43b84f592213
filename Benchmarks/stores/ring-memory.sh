#!/usr/bin/env bash
# What a durable server holds in memory for many busy stores: a fresh server on a fresh DATA_DIR,
# STORES stores made with PUT, then `wrk -t2 -c64` for SECONDS spreading POST /actions over them
# (Benchmarks/wrk/post-action-stores.lua). Prints the requests, the versions each store got on
# average and the server's RSS before and after the load. Most of the growth is the stores' resume
# rings (`replayRingBytes`, shared by all stores: docs/event-delivery.md, "One budget for every
# store's ring"); SERVER_ARGS adds settings (e.g. "--replay-ring-events 0" for none, or
# "--in-memory"), and KEYED=1 gives every request an Idempotency-Key of its own (the answers kept
# in memory without a journal: at most idempotencyMemoryLimit for all stores together).
#
#   Benchmarks/stores/ring-memory.sh BIN DATA_DIR [STORES] [SECONDS] [PORT]
#
# BIN holds remvvm-server (release). Defaults: 1,000 stores, 20 seconds, port 18222. 127.0.0.1
# only; the server is stopped by its PID (and must exit cleanly).
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${1:?usage: Benchmarks/stores/ring-memory.sh BIN DATA_DIR [STORES] [SECONDS] [PORT]}
DATA=${2:?usage: Benchmarks/stores/ring-memory.sh BIN DATA_DIR [STORES] [SECONDS] [PORT]}
STORES=${3:-1000}
SECONDS_=${4:-20}
PORT=${5:-18222}
scripts/install-deps.sh wrk python3
rm -rf "$DATA" "$DATA.logs"
mkdir -p "$DATA" "$DATA.logs"
OUT=$DATA.logs
source Benchmarks/lib/background-servers.sh
# shellcheck disable=SC2086 # SERVER_ARGS is a list of arguments
start ring-memory "$PORT" "$BIN/remvvm-server" --port "$PORT" --data-dir "$DATA" --log-level warning \
    --max-stores $((STORES + 10)) --max-loaded-stores $((STORES + 10)) ${SERVER_ARGS:-}
SERVER=$SERVER_PID
python3 Benchmarks/lib/put-stores.py "$PORT" "$STORES"
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$SERVER/status"; }
before=$(rss)
out=$(STORES=$STORES wrk -t2 -c64 -d"${SECONDS_}s" -s Benchmarks/wrk/post-action-stores.lua "http://127.0.0.1:$PORT")
if grep -q "Non-2xx" <<<"$out"; then echo "ring-memory: non-2xx answers:" >&2; echo "$out" >&2; exit 1; fi
after=$(rss)
requests=$(awk '/requests in/ { print $1 }' <<<"$out")
stop "$SERVER"
awk -v n="$STORES" -v r="$requests" -v a="$before" -v b="$after" 'BEGIN {
    printf "%d stores: %d requests (%.0f versions a store); RSS %.1f MB before, %.1f MB after (+%.1f MB)\n",
        n, r, r / n, a / 1024, b / 1024, (b - a) / 1024
}'
