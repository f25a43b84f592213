#!/usr/bin/env bash
# Many stores (issue 35): memory per loaded store, the first request to a store, and fairness,
# against a release remvvm-server in memory on 127.0.0.1 (autoCreateStores off; stores are made
# with PUT). Prints figures; no target is checked here.
#
#   scripts/stores-bench.sh                 # 10,000 stores, 2,000 first requests, 10 s fairness
#   STORES=2000 FIRSTS=500 SECONDS_=5 scripts/stores-bench.sh
#   BIN=DIR scripts/stores-bench.sh         # a release build already in DIR (holds remvvm-server)
#
# 1. memory: RSS before, after PUT of STORES stores (created, not loaded) and after one POST to
#    each (loaded): bytes per unloaded and per loaded store, and the thread count (until the
#    hubs run on a shared pool, each loaded store has threads of its own).
# 2. first request: PUT then GET /stores/{id}/state, FIRSTS times: the GET loads the store
#    (in memory: a new store and its hubs; with a journal it would also read the snapshot and
#    replay: not measured here, the journal's per-store views are not wired yet); p50/p99, and
#    the second GET (loaded) beside it.
# 3. fairness: POST p99 of a quiet store alone, then while wrk -t2 -c64 writes to another store.
# Every server it starts is stopped by its PID.
set -euo pipefail
cd "$(dirname "$0")/.."
STORES=${STORES:-10000}
FIRSTS=${FIRSTS:-2000}
SECONDS_=${SECONDS_:-10}
PORT=${PORT:-18218}

scripts/install-deps.sh wrk python3
if [ -z "${BIN:-}" ]; then
    echo "== building (release) in .build-stores"
    swift build -c release --scratch-path .build-stores --product remvvm-server 2>&1 | grep -E "error|warning:|Build complete" | tail -3
    BIN=$(swift build -c release --scratch-path .build-stores --show-bin-path)
fi

SERVER_PID=
stop_server() {
    if [ -n "$SERVER_PID" ]; then
        kill "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
        SERVER_PID=
    fi
}
trap stop_server EXIT

start_server() {
    "$BIN/remvvm-server" --port "$PORT" --in-memory --log-level warning --max-stores 1000000 &
    SERVER_PID=$!
    for _ in $(seq 1 200); do
        (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && return 0
        sleep 0.05
    done
    echo "the server did not listen on $PORT" >&2
    exit 1
}

echo "== 1. memory: $STORES stores"
start_server
python3 Benchmarks/stores/stores-measure.py memory "$PORT" "$SERVER_PID" "$STORES"
stop_server

echo "== 2. first request to a store: $FIRSTS stores"
start_server
python3 Benchmarks/stores/stores-measure.py first "$PORT" "$FIRSTS"
stop_server

echo "== 3. fairness: a quiet store's POST, alone and beside 64 writers on another store (${SECONDS_} s each)"
start_server
curl -s -X PUT "http://127.0.0.1:$PORT/stores/busy" >/dev/null
python3 Benchmarks/stores/stores-measure.py quiet "$PORT" "$SECONDS_"
wrk -t2 -c64 -d"$((SECONDS_ + 2))s" -s Benchmarks/wrk/post-action.lua "http://127.0.0.1:$PORT/stores/busy/actions" > /tmp/stores-bench-wrk.$$ &
WRK_PID=$!
sleep 1
python3 Benchmarks/stores/stores-measure.py quiet "$PORT" "$SECONDS_"
wait "$WRK_PID"
echo "the busy store (wrk -t2 -c64):"; grep -E "Requests/sec|Latency|Non-2xx" /tmp/stores-bench-wrk.$$ || true
rm -f /tmp/stores-bench-wrk.$$
stop_server
