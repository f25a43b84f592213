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
#    (a new store and its hubs; with a journal also its empty snapshot and journal read); p50/p99,
#    and the second GET (loaded) beside it.
# 3. fairness: POST p99 of a quiet store alone, then while wrk -t2 -c64 writes to another store,
#    then while another store has CROWD (default 10,000) event subscribers and gets 100
#    actions/s (Benchmarks/sse-fanout, its delivery latency and losses printed beside).
# With JOURNAL=1 every server runs on a fresh data directory (the SQLite journal, journalSync
# full) instead of in memory, and a fourth step measures what issue 35 targets: RELOADS stores
# (default 200) get RECORDS actions each (default 1,000, fewer than snapshotEvery: no snapshot
# but the start), the server is killed (kill -9: nothing is written at the stop) and started
# again, and the first GET of each store reads its snapshot and replays its records. A fifth
# step (Benchmarks/stores/spread-durable.sh) compares a durable POST spread over 1,000 stores
# with the same POST to one store, in interleaved rounds; a sixth times a graceful stop (SIGTERM
# to exit) with STOP_STORES (default 2,000) loaded stores, each with an action since its snapshot.
#
#   JOURNAL=1 scripts/stores-bench.sh
#
# Every server it starts is stopped by its PID.
set -euo pipefail
cd "$(dirname "$0")/.."
STORES=${STORES:-10000}
FIRSTS=${FIRSTS:-2000}
SECONDS_=${SECONDS_:-10}
PORT=${PORT:-18218}
JOURNAL=${JOURNAL:-0}
RELOADS=${RELOADS:-200}
RECORDS=${RECORDS:-1000}
STOP_STORES=${STOP_STORES:-2000}
CROWD=${CROWD:-10000}
WORK=$(mktemp -d /tmp/remvvm-stores-bench.XXXXXX)

scripts/install-deps.sh wrk python3
# BIN (or a build in .build-stores), SERVER_PID and stop_server [SIGNAL].
source Benchmarks/lib/release-server.sh
trap 'stop_server; rm -rf "$WORK"' EXIT

# start_server [keep]: in memory, or with JOURNAL=1 on a data directory (a fresh one unless keep).
start_server() {
    local storage=(--in-memory)
    if [ "$JOURNAL" = 1 ]; then
        [ "${1:-}" = keep ] || rm -rf "$WORK/data"
        storage=(--data-dir "$WORK/data")
    fi
    "$BIN/remvvm-server" --port "$PORT" "${storage[@]}" --log-level warning --max-stores 1000000 \
        --connection-limit $((CROWD + 1000)) &
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

echo "== 3b. fairness: a quiet store's POST beside $CROWD subscribers of another store at 100 actions/s (${SECONDS_} s)"
cc -O2 -o "$WORK/sse-fanout" Benchmarks/sse-fanout/sse-fanout.c -lm
start_server
curl -s -X PUT "http://127.0.0.1:$PORT/stores/crowd" >/dev/null
# Posting lasts past the quiet store's measurement; the subscribers connect first (the tool waits
# for each one's first event before it posts), so the measurement starts once they all stream.
"$WORK/sse-fanout" --port "$PORT" --subscribers "$CROWD" --rate 100 --duration "$((SECONDS_ + 4))" \
    --path /stores/crowd/events --post-path /stores/crowd/actions --server-pid "$SERVER_PID" \
    > "$WORK/crowd.txt" 2>&1 &
FANOUT_PID=$!
for _ in $(seq 1 600); do
    streams=$(curl -s "http://127.0.0.1:$PORT/metrics" | awk '/^remvvm_sse_subscribers\{stream="events"\}/ {print int($2)}')
    [ "${streams:-0}" -ge "$CROWD" ] && break
    kill -0 "$FANOUT_PID" 2>/dev/null || break
    sleep 0.1
done
echo "streams open: ${streams:-0}"
python3 Benchmarks/stores/stores-measure.py quiet "$PORT" "$SECONDS_"
wait "$FANOUT_PID" || { cat "$WORK/crowd.txt" >&2; exit 1; }
echo "the crowded store (sse-fanout):"; grep -E -i "connected|lost|latency|p99" "$WORK/crowd.txt" || cat "$WORK/crowd.txt"
stop_server

if [ "$JOURNAL" = 1 ]; then
    echo "== 4. first request after a restart: $RELOADS stores of $RECORDS journal records each"
    start_server
    python3 Benchmarks/stores/stores-measure.py fill "$PORT" "$RELOADS" "$RECORDS"
    stop_server KILL
    start_server keep
    python3 Benchmarks/stores/stores-measure.py reload "$PORT" "$RELOADS" "$RECORDS"
    echo "journal file: $(du -h "$WORK/data/"*.sqlite* 2>/dev/null | tr '\n' ' ')"
    stop_server
    echo "== 5. durable POST spread over 1,000 stores against one store (wrk -t2 -c64, 3 interleaved rounds of ${SECONDS_} s)"
    Benchmarks/stores/spread-durable.sh "$BIN" "$WORK/spread" "$PORT" 3 "$SECONDS_" 1000
    echo "== 6. graceful stop with $STOP_STORES loaded stores (one action each since its snapshot: each writes one at the stop)"
    start_server
    python3 Benchmarks/stores/stores-measure.py fill "$PORT" "$STOP_STORES" 1
    stop_started=$(date +%s%N)
    stop_server
    echo "SIGTERM to exit: $(( ($(date +%s%N) - stop_started) / 1000000 )) ms"
fi
