# Sourced by the scripts that build remvvm-server and start it on --port 0. Both functions call
# `fail` (each script defines it) and write under $WORK.

# build_server SCRATCH: builds remvvm-server into the scratch path (log in $WORK/build.log) and
# sets BIN to the executable.
build_server() {
    if ! swift build --product remvvm-server --scratch-path "$1" >"$WORK/build.log" 2>&1; then
        tail -40 "$WORK/build.log" >&2
        fail "the build failed"
    fi
    tail -1 "$WORK/build.log"
    BIN="$(swift build --scratch-path "$1" --show-bin-path)/remvvm-server"
}

# await_server LOG PID waits (30 s at most) until the server logged its port and answers /healthz,
# then sets PORT.
await_server() {
    local log=$1 pid=$2 deadline=$((SECONDS + 30))
    PORT=""
    while :; do
        kill -0 "$pid" 2>/dev/null || { tail -20 "$log" >&2; fail "the server did not start"; }
        [ "$SECONDS" -lt "$deadline" ] || fail "the server did not answer /healthz within 30 s"
        [ -n "$PORT" ] || PORT=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9][0-9]*\).*|\1|p;T;q' "$log")
        if [ -n "$PORT" ] && curl -fsS -o /dev/null --max-time 1 "http://127.0.0.1:$PORT/healthz" 2>/dev/null; then
            return 0
        fi
        sleep 0.1
    done
}
