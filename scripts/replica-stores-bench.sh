#!/usr/bin/env bash
# Many stores on a replica (issue 35): memory while stores are loaded and unloaded, and how long a
# graceful stop with many loaded stores takes. A throwaway PostgreSQL (Debian's postgresql, fsync
# on) and a release remvvm-server replica of it (--journal postgres) on 127.0.0.1; prints figures,
# checks no target.
#
#   scripts/replica-stores-bench.sh                     # 10k/20k/30k touched with 2,000 loaded; stop with 2,000
#   TOUCHED="5000 10000" LOADED=500 STOPPING=1000 scripts/replica-stores-bench.sh
#   BIN=DIR scripts/replica-stores-bench.sh             # a release build already in DIR (holds remvvm-server)
#   TOUCHED= scripts/replica-stores-bench.sh            # the stops only
#
# 1. memory: --max-loaded-stores LOADED; one POST to each store t0, t1, … (created by it:
#    autoCreateStores on), RSS (VmRSS) after each number in TOUCHED. Once LOADED are loaded, each
#    new store unloads the least recently used one: RSS should stay flat.
# 2. replica stop: a fresh replica touches STOPPING stores (all loaded), then SIGTERM; the time from
#    the signal to the process's exit, and how many of those stores have this replica's snapshot
#    registered in the log afterwards (each store's last snapshot is written and registered).
# 3. journal stop: the same with the SQLite journal (--data-dir, no replica).
#
# Every process it starts is stopped by its PID.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh postgresql python3
. scripts/lib/postgres.sh
fail() { echo "FAIL: $*" >&2; exit 1; }

TOUCHED=${TOUCHED-10000 20000 30000}
LOADED=${LOADED:-2000}
STOPPING=${STOPPING:-2000}
PORT=${PORT:-18231}
PG_PORT=${PG_PORT:-18232}
WORK=$(mktemp -d /tmp/remvvm-replica-stores.XXXXXX)
chmod 755 "$WORK"

# BIN (or a build in .build-stores), SERVER_PID and stop_server [SIGNAL].
source Benchmarks/lib/release-server.sh
cleanup() {
    stop_server
    stop_postgres "$WORK/pg"
    rm -rf "$WORK"
}
trap cleanup EXIT

start_postgres "$WORK/pg" "$PG_PORT"
psql_value() { as_postgres "$(pg_bin)/psql" -h "$WORK/pg" -p "$PG_PORT" -U postgres -d postgres -Atc "$1"; }

# start_server NAME ARGS…: a server on its own data directory, waits until /healthz answers 200.
start_server() {
    local name=$1
    shift
    REMVVM_POSTGRES_URL="$PG_URL" "$BIN/remvvm-server" --port "$PORT" --data-dir "$WORK/$name" --log-level warning \
        --auto-create-stores true --max-stores 1000000 "$@" >>"$WORK/$name.log" 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 1 300); do
        curl -fsS -o /dev/null --max-time 1 "http://127.0.0.1:$PORT/healthz" 2>/dev/null && return 0
        kill -0 "$SERVER_PID" 2>/dev/null || { tail -20 "$WORK/$name.log" >&2; fail "$name exited"; }
        sleep 0.1
    done
    fail "$name did not answer /healthz"
}

# timed_stop: SIGTERM, waits for the exit (in this shell: the server is its child) and prints
# the seconds in between.
timed_stop() {
    local started ended
    started=$(date +%s.%N)
    kill -TERM "$SERVER_PID"
    wait "$SERVER_PID" 2>/dev/null || true
    ended=$(date +%s.%N)
    SERVER_PID=
    echo "SIGTERM to exit: $(python3 -c "print(f'{$ended - $started:.3f}')") s"
}

if [ -n "$TOUCHED" ]; then
    echo "== 1. replica memory: --max-loaded-stores $LOADED, one POST per store"
    start_server memory --journal postgres --replica-name memory --max-loaded-stores "$LOADED"
    done_count=0
    for count in $TOUCHED; do
        python3 Benchmarks/stores/stores-measure.py touch "$PORT" "$SERVER_PID" "$done_count" "$count"
        done_count=$count
    done
    echo "loaded: $(curl -fsS "http://127.0.0.1:$PORT/metrics" | grep -E '^remvvm_stores_loaded ' || echo '(no metrics)')"
    stop_server
fi

echo "== 2. replica stop with $STOPPING loaded stores"
start_server stopping --journal postgres --replica-name stopping --max-loaded-stores "$((STOPPING + 1))"
python3 Benchmarks/stores/stores-measure.py touch "$PORT" "$SERVER_PID" 0 "$STOPPING"
timed_stop
registered=$(psql_value "SELECT count(*) FROM remvvm_replicas WHERE name = 'stopping' AND store <> 'default' AND snapshot_version > 0")
echo "stores with this replica's snapshot registered after the stop: $registered of $STOPPING"

echo "== 3. journal (SQLite) stop with $STOPPING loaded stores"
start_server journal --max-loaded-stores "$((STOPPING + 1))"
python3 Benchmarks/stores/stores-measure.py touch "$PORT" "$SERVER_PID" 0 "$STOPPING"
timed_stop
