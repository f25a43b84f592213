#!/usr/bin/env bash
# Crash test of the durable store: start remvvm-server on a data directory, let 32 clients post
# for a few seconds, kill -9 it at a random moment, restart it on the same directory, and check
# that every version acknowledged with 200 survived: the restored version is at least the newest
# acknowledged one, the state equals a replay (every action is an increase: counter == version),
# and versions continue. Repeats for CRASH_CYCLES cycles (default 20; 200 on demand).
# Every other cycle the clients send an Idempotency-Key with each request and retry a request
# that got no 200 with the same key; after the restart the requests still unanswered are retried
# once more (scripts/crash-retry.py), and then every key must have been applied exactly once: the
# version is the version before the cycle plus the number of keys.
#
#   scripts/crash-test.sh                  # 20 cycles (what CI runs)
#   CRASH_CYCLES=200 scripts/crash-test.sh
#
# Every server it starts is stopped by its PID; it uses 127.0.0.1 only.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh python3 curl

CYCLES=${CRASH_CYCLES:-20}
PORT=${CRASH_PORT:-18290}
CLIENTS=32
WORK=$(mktemp -d /tmp/remvvm-crash.XXXXXX)
DATA="$WORK/data"
swift build --product remvvm-server 2>&1 | grep -E "error|warning:|complete" | tail -1
BIN="$(swift build --show-bin-path)/remvvm-server"

SERVER_PID=""
CLIENT_PID=""
cleanup() {
    [ -n "$CLIENT_PID" ] && kill "$CLIENT_PID" 2>/dev/null || true
    [ -n "$SERVER_PID" ] && kill -9 "$SERVER_PID" 2>/dev/null || true
    wait 2>/dev/null || true
}
trap cleanup EXIT

start_server() {
    "$BIN" --port "$PORT" --data-dir "$DATA" --log-level notice >>"$WORK/server.log" 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 1 200); do
        if curl -fsS -o /dev/null --max-time 1 "http://127.0.0.1:$PORT/healthz" 2>/dev/null; then return 0; fi
        kill -0 "$SERVER_PID" 2>/dev/null || { tail -20 "$WORK/server.log"; echo "FAIL: the server did not start" >&2; exit 1; }
        sleep 0.05
    done
    echo "FAIL: the server did not answer within 10 s" >&2
    exit 1
}

# state_version: the plain version in GET /state's ETag; state_counter: its counter.
state_version() { curl -fsS -D - -o /dev/null "http://127.0.0.1:$PORT/state" | tr -d '\r' | sed -n 's/^[Ee][Tt]ag: "\([0-9]*\)"$/\1/p'; }
state_counter() { curl -fsS "http://127.0.0.1:$PORT/state" | sed -n 's/.*"counter":\([-0-9]*\).*/\1/p'; }

start_server
total_acknowledged=0
total_keys=0
base=$(state_version)
for cycle in $(seq 1 "$CYCLES"); do
    keyed=$((cycle % 2 == 0))
    prefix=()
    [ "$keyed" = 1 ] && prefix=("cycle$cycle")
    python3 scripts/crash-client.py "$PORT" "$CLIENTS" 4 "$WORK/client-$cycle.json" "${prefix[@]}" &
    CLIENT_PID=$!
    # Kill at a random moment 0.3-2.3 s into the posting.
    sleep "$(awk -v r="$RANDOM" 'BEGIN { printf "%.2f", 0.3 + (r % 2000) / 1000 }')"
    kill -9 "$SERVER_PID"
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
    wait "$CLIENT_PID" || { echo "FAIL: the client failed" >&2; exit 1; }
    CLIENT_PID=""
    read -r acked newest < <(python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["acknowledged"]; print(len(a), max(a) if a else 0)' "$WORK/client-$cycle.json")
    total_acknowledged=$((total_acknowledged + acked))

    start_server
    version=$(state_version)
    counter=$(state_counter)
    if [ -z "$version" ] || [ "$version" -lt "$newest" ]; then
        echo "FAIL cycle $cycle: restored version ${version:-?} < newest acknowledged $newest" >&2
        tail -20 "$WORK/server.log" >&2
        exit 1
    fi
    if [ "$counter" != "$version" ]; then
        echo "FAIL cycle $cycle: state is not a replay of the journal (counter $counter, version $version)" >&2
        exit 1
    fi
    detail=""
    restored=$version
    if [ "$keyed" = 1 ]; then
        read -r replayed fresh < <(python3 scripts/crash-retry.py "$PORT" "$WORK/client-$cycle.json") \
            || { echo "FAIL cycle $cycle: a retry with its Idempotency-Key was not answered 200" >&2; exit 1; }
        keys=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["keys"]))' "$WORK/client-$cycle.json")
        version=$(state_version)
        if [ "$version" != "$((base + keys))" ]; then
            echo "FAIL cycle $cycle: $keys keyed requests moved the version from $base to $version, not to $((base + keys))" >&2
            exit 1
        fi
        total_keys=$((total_keys + keys))
        detail=", $keys keys each applied once ($replayed unanswered retries replayed, $fresh processed after the restart; version $version)"
    fi
    next=$(curl -fsS -X POST -H 'Content-Type: application/json' -d '{"type":"increase"}' "http://127.0.0.1:$PORT/actions" \
        | sed -n 's/.*"version":\([0-9]*\).*/\1/p')
    if [ "$next" != "$((version + 1))" ]; then
        echo "FAIL cycle $cycle: the next version is ${next:-?}, not $((version + 1))" >&2
        exit 1
    fi
    echo "cycle $cycle: $acked acknowledged (newest $newest), restored $restored, counter $counter$detail, next $next"
    base=$next
done
kill -TERM "$SERVER_PID"
wait "$SERVER_PID" || { echo "FAIL: the server did not stop cleanly" >&2; exit 1; }
SERVER_PID=""
echo "PASS: $CYCLES kill -9 cycles, $total_acknowledged actions acknowledged, none lost; $total_keys idempotency keys, each applied exactly once"
rm -rf "$WORK"
