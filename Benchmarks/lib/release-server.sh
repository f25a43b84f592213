# Sourced by scripts/stores-bench.sh and scripts/replica-stores-bench.sh: the release build they
# measure and the one server they run at a time.
#
# BIN: a release build already in that directory (holds remvvm-server); otherwise one is built in
# .build-stores. stop_server [SIGNAL]: stops $SERVER_PID (SIGTERM, or SIGNAL) and waits for it.
if [ -z "${BIN:-}" ]; then
    echo "== building (release) in .build-stores"
    swift build -c release --scratch-path .build-stores --product remvvm-server 2>&1 | grep -E "error|warning:|Build complete" | tail -3
    BIN=$(swift build -c release --scratch-path .build-stores --show-bin-path)
fi

SERVER_PID=
stop_server() {
    if [ -n "$SERVER_PID" ]; then
        kill "-${1:-TERM}" "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
        SERVER_PID=
    fi
}
