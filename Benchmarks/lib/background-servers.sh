# Sourced by the benchmark scripts that start servers in the background (scripts/bench.sh,
# scripts/ab.sh, Benchmarks/request-cost.sh, large-state-deltas.sh, sse-fanout/ab.sh): every server
# they start is remembered by PID and stopped on exit. Logs go to $OUT/NAME.log (appended, so that
# interleaved rounds keep one log per build).

PIDS=()
cleanup() {
    for pid in ${PIDS[@]+"${PIDS[@]}"}; do
        kill -TERM "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
}
trap cleanup EXIT

# start NAME PORT COMMAND...: starts a server in the background and waits until it accepts (at
# most START_TIMEOUT seconds, default 10); sets SERVER_PID.
start() {
    local name=$1 port=$2
    shift 2
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
        echo "port $port is already in use; stop whatever listens there" >&2
        exit 1
    fi
    "$@" >>"$OUT/$name.log" 2>&1 &
    SERVER_PID=$!
    PIDS+=("$SERVER_PID")
    local deadline=$((SECONDS + ${START_TIMEOUT:-10}))
    while [ "$SECONDS" -le "$deadline" ]; do
        if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return 0; fi
        kill -0 "$SERVER_PID" 2>/dev/null || { cat "$OUT/$name.log" >&2; exit 1; }
        sleep 0.05
    done
    echo "$name did not start listening on port $port" >&2
    exit 1
}

# stop PID: SIGTERM, wait, and fail if the server did not exit cleanly (a crash on shutdown
# must not pass unnoticed).
stop() {
    kill -TERM "$1" 2>/dev/null || true
    local status=0
    wait "$1" 2>/dev/null || status=$?
    PIDS=("${PIDS[@]/$1}")
    if [ "$status" -ne 0 ]; then
        echo "server $1 exited with status $status on SIGTERM (see $OUT/*.log)" >&2
        exit 1
    fi
}
