# Sourced by the metrics benchmarks (metrics-ab.sh, metrics-profile.sh): one fresh in-memory
# remvvm-server ($BIN) on $PORT per measurement, warmed up with wrk.

# start_warm ROUTE ARGS...: starts the server with ARGS, waits until it listens, warms ROUTE up for
# 1 s; sets FRESH_PID, and WRK_SCRIPT to the wrk arguments ROUTE needs (POST /actions' body).
start_warm() {
    local route=$1
    shift
    "$BIN" --port "$PORT" --in-memory --log-level warning "$@" &
    FRESH_PID=$!
    for _ in $(seq 1 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
        sleep 0.05
    done
    WRK_SCRIPT=()
    [ "$route" = /actions ] && WRK_SCRIPT=(-s Benchmarks/wrk/post-action.lua)
    wrk -t2 -c64 -d1s "${WRK_SCRIPT[@]}" "http://127.0.0.1:$PORT$route" >/dev/null
}

# stop_fresh: stops the server start_warm started; fails if it did not stop cleanly.
stop_fresh() {
    kill "$FRESH_PID"
    wait "$FRESH_PID" || { echo "the server did not stop cleanly" >&2; exit 1; }
}
