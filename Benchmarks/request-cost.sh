#!/usr/bin/env bash
# Instructions per request, counted by valgrind's callgrind: deterministic whatever else runs on the
# machine (wrk's requests per second are not, on a shared one). For each scenario a fresh server runs
# under callgrind; after WARMUP requests the counters are zeroed, COUNT requests are sent on one
# keep-alive connection (Benchmarks/request-cost/client.py), and the counters are dumped. Prints the
# instructions per request of the whole server process (every thread), and with DETAIL=1 the
# functions that cost the most (self and inclusive, demangled) for each scenario.
#
#   Benchmarks/request-cost.sh BIN [COUNT] [SCENARIO...]
#
# BIN holds request-cost-server and mhd-hello (a release build with REMVVM_BENCHMARKS=1):
# request-cost-server is remvvm-server's service with a synchronous main, which valgrind 3.19 can
# run (remvvm-server's asynchronous main faults it). Its debug information is stripped from a copy
# first: valgrind 3.19 cannot read Swift's DWARF 5 (function names come from the symbol table).
# Scenarios: hello (the C libmicrohttpd server, the ceiling), state, viewmodel, post, post-token,
# state-token, post-durable, state-no-metrics, post-no-metrics, post-payload (an action with a payload:
# the strict JSON check and the decoder; post's bare action skips both); default: all but the last three.
# post-durable-payload: that login with the journal (its payload encoded for the reduce check and the record).
# post-durable-store and post-durable-1000: the durable POST to /stores/s<n>/actions of one store,
# and spread over 1,000 stores in turn (each made and loaded in the warm-up): what a store touched
# per request costs in instructions (one client: every commit holds one record either way).
# post-store, state-store and viewmodel-store: POST /stores/s1/actions, GET /stores/s1/state and
# GET /stores/s1/viewmodels/counter in memory, beside post, state and viewmodel: what a store route
# costs over the root's. post-keyed: the in-memory POST with an Idempotency-Key of its own each
# time (the claim, and the answer kept); post-durable-keyed the same with the journal (the key
# looked up in it, the answer kept in the same commit). KEEP=DIR keeps the callgrind files in DIR.
# CLIENTS=N sends the COUNT requests over N connections at once (default 1): a durable server then
# commits several together and a spread path gives each its own part of the commit, which one
# connection never shows; valgrind runs one thread at a time, so the batches (and the figures) vary
# by about 1 % between runs. Stops every server it started by its PID.
set -euo pipefail
BIN=$1
COUNT=${2:-2000}
shift $(( $# >= 2 ? 2 : 1 ))
SCENARIOS=("$@")
[ ${#SCENARIOS[@]} -gt 0 ] || SCENARIOS=(hello state viewmodel post state-token post-token post-durable)
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "request-cost: valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
PORT=${PORT:-18207}
WARMUP=${WARMUP:-300}
WORK=${KEEP:-$(mktemp -d)}
mkdir -p "$WORK"
TOKEN=bench-token-0123456789
# start NAME PORT COMMAND...: the server in the background, its log in $OUT/NAME.log; stopped on exit.
OUT=$WORK
START_TIMEOUT=60  # a server under valgrind starts slowly
source Benchmarks/lib/background-servers.sh
trap 'cleanup; [ -n "${KEEP:-}" ] || rm -rf "$WORK"' EXIT

client() { python3 Benchmarks/request-cost/client.py "$PORT" "$@"; }

# measure NAME CLIENT_ARGS -- SERVER_COMMAND...: prints NAME and its instructions per request.
measure() {
    local name=$1
    shift
    local args=()
    while [ "$1" != "--" ]; do args+=("$1"); shift; done
    shift
    start "$name" "$PORT" env ${SERVER_ENV[@]+"${SERVER_ENV[@]}"} \
        valgrind --tool=callgrind ${CALLGRIND_OPTIONS:-} --instr-atstart=no --callgrind-out-file="$WORK/$name.out" "$@"
    CREATE_STORES=1 client "$WARMUP" "${args[@]}"
    callgrind_control -i on "$SERVER_PID" >/dev/null
    client "$COUNT" "${args[@]}"
    callgrind_control -d "$name" "$SERVER_PID" >/dev/null
    stop "$SERVER_PID"
    local dump
    dump=$(ls -t "$WORK/$name.out".*[0-9] 2>/dev/null | head -1)
    local total
    total=$(callgrind_annotate "$dump" 2>/dev/null | awk '/PROGRAM TOTALS/ && !done { gsub(",", "", $1); print $1; done = 1 }')
    printf "%-14s %10.0f instructions/request\n" "$name" "$(awk -v t="$total" -v n="$COUNT" 'BEGIN { print t / n }')"
    if [ -n "${DETAIL:-}" ]; then (
        set +o pipefail  # head closes the pipe early
        echo "  self:"
        callgrind_annotate --auto=no --threshold=90 "$dump" 2>/dev/null | awk '/^-+$/ { n++ } n >= 3 && NF' | head -45 \
            | swift demangle --simplified | cut -c1-200 | sed 's/^/    /'
        echo "  inclusive:"
        callgrind_annotate --auto=no --inclusive=yes --threshold=99 "$dump" 2>/dev/null | awk '/^-+$/ { n++ } n >= 3 && NF' | head -70 \
            | swift demangle --simplified | cut -c1-200 | sed 's/^/    /'
    ) fi
}

objcopy --strip-debug "$BIN/request-cost-server" "$WORK/request-cost-server"
server=("$WORK/request-cost-server" "$PORT")
for scenario in "${SCENARIOS[@]}"; do
    SERVER_ENV=()
    case $scenario in
    hello) measure hello GET / -- "$BIN/mhd-hello" "$PORT" ;;
    state) measure state GET /state -- "${server[@]}" ;;
    viewmodel) measure viewmodel GET /viewmodels/counter -- "${server[@]}" ;;
    post) measure post POST /actions '{"type":"increase"}' -- "${server[@]}" ;;
    post-keyed) measure post-keyed POST /actions '{"type":"increase"}' 'Idempotency-Key:key-{i}' -- "${server[@]}" ;;
    post-payload) measure post-payload POST /actions '{"type":"login","payload":{"firstName":"Ada","lastName":"Lovelace"}}' -- "${server[@]}" ;;
    post-no-metrics) measure post-no-metrics POST /actions '{"type":"increase"}' -- "${server[@]}" --no-metrics ;;
    state-no-metrics) measure state-no-metrics GET /state -- "${server[@]}" --no-metrics ;;
    state-token)
        SERVER_ENV=(REMVVM_AUTH_TOKENS="$TOKEN=read+dispatch")
        measure state-token GET /state "" "Authorization: Bearer $TOKEN" -- "${server[@]}" ;;
    post-token)
        SERVER_ENV=(REMVVM_AUTH_TOKENS="$TOKEN=read+dispatch")
        measure post-token POST /actions '{"type":"increase"}' "Authorization: Bearer $TOKEN" -- "${server[@]}" ;;
    post-store) STORES=1 measure post-store POST '/stores/s{n}/actions' '{"type":"increase"}' -- "${server[@]}" ;;
    state-store) STORES=1 measure state-store GET '/stores/s{n}/state' -- "${server[@]}" ;;
    viewmodel-store) STORES=1 measure viewmodel-store GET '/stores/s{n}/viewmodels/counter' -- "${server[@]}" ;;
    post-durable)
        rm -rf "$WORK/data"
        measure post-durable POST /actions '{"type":"increase"}' -- "${server[@]}" --data-dir "$WORK/data" ;;
    post-durable-payload)
        rm -rf "$WORK/data"
        measure post-durable-payload POST /actions '{"type":"login","payload":{"firstName":"Ada","lastName":"Lovelace"}}' -- "${server[@]}" --data-dir "$WORK/data" ;;
    post-durable-keyed)
        rm -rf "$WORK/data"
        measure post-durable-keyed POST /actions '{"type":"increase"}' 'Idempotency-Key:key-{i}' -- "${server[@]}" --data-dir "$WORK/data" ;;
    post-durable-store)
        rm -rf "$WORK/data"
        STORES=1 measure post-durable-store POST '/stores/s{n}/actions' '{"type":"increase"}' -- "${server[@]}" --data-dir "$WORK/data" ;;
    post-durable-1000)
        rm -rf "$WORK/data"
        STORES=1000 measure post-durable-1000 POST '/stores/s{n}/actions' '{"type":"increase"}' -- "${server[@]}" --data-dir "$WORK/data" ;;
    *) echo "request-cost: unknown scenario $scenario" >&2; exit 1 ;;
    esac
done
