#!/usr/bin/env bash
# Appends to the shared PostgreSQL log (PostgresJournal) as fast as it goes, at 1 and 64 actions
# per transaction, then through PostgresGroupCommit with 1 and 64 submitters, against a throwaway
# PostgreSQL started here: a temporary directory, a unix socket only (no TCP), default durability
# (fsync on, synchronous_commit on). Stops it by PID on exit.
#
#   scripts/postgres-bench.sh                 # 10-second runs
#   DURATION=3 scripts/postgres-bench.sh      # shorter
#   CLIENTS="1 8" scripts/postgres-bench.sh   # client counts (default: 1 8)
#   STORES="1 1000" REPLICAS=3 SUBMITTERS=32 scripts/postgres-bench.sh stores
#                                             # only the many-stores mode: three replicas in one
#                                             # process (each its appender and follower) writing
#                                             # to random stores of 1 and of 1,000, every replica
#                                             # following every store; acknowledged actions/s and
#                                             # the lag of the other replicas
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh postgresql

MODE=${1:-all}
DURATION=${DURATION:-10}
STORES=${STORES:-1 1000}
REPLICAS=${REPLICAS:-3}
SUBMITTERS=${SUBMITTERS:-32}
CLIENTS=${CLIENTS:-1 8}
BUILD=.build-bench

echo "== building (release, benchmarks enabled)"
export REMVVM_BENCHMARKS=1
swift build -c release --scratch-path "$BUILD" --product postgres-log-bench 2>&1 | grep -E "error|warning:|complete" | tail -3
BIN=$(swift build -c release --scratch-path "$BUILD" --show-bin-path)

PGBIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
DIR=$(mktemp -d /tmp/remvvm-pgbench-XXXXXX)
RUN=()
if [ "$(id -u)" -eq 0 ]; then
    chown postgres: "$DIR"
    RUN=(runuser -u postgres --)
fi
PID=""
cleanup() {
    if [ -n "$PID" ]; then
        kill -INT "$PID" 2>/dev/null || true
        while kill -0 "$PID" 2>/dev/null; do sleep 0.1; done
    fi
    rm -rf "$DIR"
}
trap cleanup EXIT

"${RUN[@]}" "$PGBIN/initdb" -D "$DIR/data" -A trust -U postgres -E UTF8 --locale=C >"$DIR/initdb.log"
"${RUN[@]}" "$PGBIN/postgres" -D "$DIR/data" -k "$DIR" -p 5432 -c listen_addresses= -c max_connections=100 \
    >"$DIR/server.log" 2>&1 &
for _ in $(seq 300); do
    if "$PGBIN/pg_isready" -q -h "$DIR" -p 5432 -t 1; then break; fi
    sleep 0.1  # between readiness polls, 30 s at most
done
"$PGBIN/pg_isready" -q -h "$DIR" -p 5432 || { cat "$DIR/server.log"; exit 1; }
PID=$(head -1 "$DIR/data/postmaster.pid")
echo "== PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}') on $DIR/.s.PGSQL.5432 (pid $PID), fsync on"

CONNINFO="host=$DIR port=5432 user=postgres dbname=postgres"
if [ "$MODE" = stores ]; then
    for stores in $STORES; do
        "$BIN/postgres-log-bench" "$CONNINFO" "$DURATION" stores "$stores" "$REPLICAS" "$SUBMITTERS"
    done
    exit 0
fi
for per in 1 64; do
    for clients in $CLIENTS; do
        "$BIN/postgres-log-bench" "$CONNINFO" "$DURATION" "$per" "$clients"
    done
done
# Through PostgresGroupCommit: one-action requests from many threads, batched by the commit thread.
for submitters in 1 64; do
    "$BIN/postgres-log-bench" "$CONNINFO" "$DURATION" group-commit "$submitters"
done
# Many stores: three replicas writing to random stores, each following every store.
for stores in $STORES; do
    "$BIN/postgres-log-bench" "$CONNINFO" "$DURATION" stores "$stores" "$REPLICAS" "$SUBMITTERS"
done
