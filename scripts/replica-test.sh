#!/usr/bin/env bash
# Replica crash test (issue 14): a throwaway PostgreSQL 15 (Debian's postgresql, fsync on) and three
# remvvm-server replicas on it (journal postgres), 8 clients posting to each replica with an
# Idempotency-Key per request (a request without a 200 is retried with the same key). Every cycle
# kills one replica with kill -9 at a random moment and starts it again on its data directory;
# every third cycle also restarts PostgreSQL (fast shutdown) mid-load. After each cycle:
# - every replica's /healthz says ok at the log's head, and their states are byte-identical;
# - every action is an increase, so counter == version on every replica (a replay of the log);
# - every version acknowledged with 200 is in the log, no two requests got the same version;
# - every key is in the log at most once, and every key acknowledged is in it (exactly once);
# - retention (snapshots every 500 versions, journalRetention 1,000) removed records while all this
#   went on, never one within the retention before the oldest snapshot a replica registered; the
#   answers of removed records count as in the log (they moved to remvvm_answers).
#
#   scripts/replica-test.sh                   # 6 cycles (what CI runs)
#   REPLICA_CYCLES=50 scripts/replica-test.sh
#
# Every process it starts is stopped by its PID; it uses 127.0.0.1 and a unix socket only.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh postgresql python3 curl
. scripts/lib/postgres.sh
fail() { echo "FAIL: $*" >&2; exit 1; }

CYCLES=${REPLICA_CYCLES:-6}
SECONDS_PER_CYCLE=${REPLICA_CYCLE_SECONDS:-4}
RETENTION=1000
WORK=$(mktemp -d /tmp/remvvm-replicas.XXXXXX)
chmod 755 "$WORK"
swift build --product remvvm-server 2>&1 | grep -E "error|warning:|complete" | tail -1
BIN="$(swift build --show-bin-path)/remvvm-server"
read -r -a PORTS <<<"$(python3 -c 'import socket
s=[socket.socket() for _ in range(4)]
[x.bind(("127.0.0.1",0)) for x in s]
print(" ".join(str(x.getsockname()[1]) for x in s))')"
PG_PORT=${PORTS[3]}

declare -a PIDS=("" "" "")
CLIENT_PIDS=()
cleanup() {
    local status=$?
    for pid in "${CLIENT_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null || true; done
    # Reaped here, where wait's report of "Killed" goes to /dev/null, rather than while
    # stop_postgres runs (bash would print it there).
    for pid in "${PIDS[@]}" "${CLIENT_PIDS[@]}"; do [ -n "$pid" ] && { wait "$pid" 2>/dev/null || true; }; done
    stop_postgres "$WORK/pg"
    wait 2>/dev/null || true
    # Kept, and named, only when the test failed: the replicas' logs and the cluster are ~100 MB.
    if [ "$status" -eq 0 ]; then rm -rf "$WORK"; else echo "logs and the PostgreSQL cluster: $WORK" >&2; fi
}
trap cleanup EXIT

start_postgres "$WORK/pg" "$PG_PORT"
psql_value() { as_postgres "$(pg_bin)/psql" -h "$WORK/pg" -p "$PG_PORT" -U postgres -d postgres -Atc "$1"; }

start_replica() {
    local index=$1 port=${PORTS[$1]}
    REMVVM_POSTGRES_URL="$PG_URL" "$BIN" --journal postgres --replica-name "r$index" --port "$port" \
        --data-dir "$WORK/r$index" --snapshot-every 500 --journal-retention "$RETENTION" --log-level notice \
        >>"$WORK/r$index.log" 2>&1 &
    PIDS[$index]=$!
}

# ready PORT: /healthz answers 200.
ready() { curl -fsS -o /dev/null --max-time 1 "http://127.0.0.1:$1/healthz" 2>/dev/null; }
health_version() { curl -fsS --max-time 2 "http://127.0.0.1:$1/healthz" | sed -n 's/.*"version":\([0-9]*\).*/\1/p'; }

await_ready() {
    local deadline=$((SECONDS + 60))
    for index in 0 1 2; do
        until ready "${PORTS[$index]}"; do
            kill -0 "${PIDS[$index]}" 2>/dev/null || { tail -20 "$WORK/r$index.log" >&2; fail "replica r$index exited"; }
            [ "$SECONDS" -lt "$deadline" ] || fail "replica r$index not ready within 60 s"
            sleep 0.1
        done
    done
}

for index in 0 1 2; do start_replica "$index"; done
await_ready
echo "PostgreSQL on $WORK/pg:$PG_PORT, replicas on ${PORTS[0]} ${PORTS[1]} ${PORTS[2]}"

total=0
for cycle in $(seq 1 "$CYCLES"); do
    CLIENT_PIDS=()
    for index in 0 1 2; do
        python3 scripts/crash-client.py "${PORTS[$index]}" 8 "$SECONDS_PER_CYCLE" "$WORK/c$cycle-$index.json" "c$cycle-r$index" &
        CLIENT_PIDS+=($!)
    done
    victim=$((RANDOM % 3))
    sleep "0.$((RANDOM % 9 + 1))"  # a random moment to kill at, not synchronization
    kill -9 "${PIDS[$victim]}"
    wait "${PIDS[$victim]}" 2>/dev/null || true
    if [ $((cycle % 3)) -eq 0 ]; then
        stop_postgres "$WORK/pg"
        sleep 0.5  # writes meet a PostgreSQL that is down for a while
        start_postgres "$WORK/pg" "$PG_PORT"
    fi
    start_replica "$victim"
    for pid in "${CLIENT_PIDS[@]}"; do wait "$pid"; done
    CLIENT_PIDS=()
    await_ready

    head=$(psql_value "SELECT version FROM remvvm_head")
    deadline=$((SECONDS + 60))
    for index in 0 1 2; do
        until [ "$(health_version "${PORTS[$index]}")" = "$head" ]; do
            [ "$SECONDS" -lt "$deadline" ] || fail "cycle $cycle: r$index did not reach the head $head"
            sleep 0.1
        done
    done
    state0=$(curl -fsS "http://127.0.0.1:${PORTS[0]}/state")
    for index in 1 2; do
        [ "$(curl -fsS "http://127.0.0.1:${PORTS[$index]}/state")" = "$state0" ] || fail "cycle $cycle: r$index's state differs from r0's"
    done
    counter=$(sed -n 's/.*"counter":\([-0-9]*\).*/\1/p' <<<"$state0")
    [ "$counter" = "$head" ] || fail "cycle $cycle: counter $counter at version $head: not a replay of increases"

    # Acknowledged versions: distinct, in the log; keys: each at most once, every acknowledged one present.
    psql_value "SELECT idempotency_key FROM remvvm_log WHERE idempotency_key IS NOT NULL
                UNION ALL SELECT idempotency_key FROM remvvm_answers" >"$WORK/logged-keys"
    earliest=$(psql_value "SELECT coalesce(min(version), 0) FROM remvvm_log")
    oldest=$(psql_value "SELECT coalesce(min(snapshot_version), 0) FROM remvvm_replicas")
    if [ "$earliest" -gt 1 ] && [ $((earliest - 1)) -gt $((oldest - RETENTION)) ]; then
        fail "cycle $cycle: records through $((earliest - 1)) removed, but the oldest registered snapshot is $oldest (retention $RETENTION)"
    fi
    echo "cycle $cycle: log holds versions $earliest…$head; oldest registered snapshot $oldest"
    python3 - "$WORK" "$cycle" "$head" <<'EOF' || exit 1
import json, sys, glob
work, cycle, head = sys.argv[1], sys.argv[2], int(sys.argv[3])
acknowledged, sent, unanswered = [], set(), set()
for path in glob.glob(f"{work}/c{cycle}-*.json"):
    data = json.load(open(path))
    acknowledged += data["acknowledged"]
    sent |= set(data["keys"])
    unanswered |= set(data["unanswered"])
logged = [line for line in open(f"{work}/logged-keys").read().split("\n") if line]
ok = True
if len(set(acknowledged)) != len(acknowledged):
    print(f"FAIL: cycle {cycle}: two requests were acknowledged with the same version"); ok = False
if acknowledged and max(acknowledged) > head:
    print(f"FAIL: cycle {cycle}: version {max(acknowledged)} acknowledged beyond the log's head {head}"); ok = False
if len(set(logged)) != len(logged):
    print(f"FAIL: cycle {cycle}: a key is in the log twice"); ok = False
mine = {key for key in logged if key.startswith(f"c{cycle}-")}
missing = (sent - unanswered) - mine
if missing:
    print(f"FAIL: cycle {cycle}: {len(missing)} acknowledged keys are not in the log, e.g. {sorted(missing)[:3]}"); ok = False
print(f"cycle {cycle}: head {head}, {len(acknowledged)} acknowledged, {len(mine)} keys applied once, {len(unanswered)} unanswered when time ran out")
sys.exit(0 if ok else 1)
EOF
    total=$head
done
[ "$earliest" -gt 1 ] || fail "retention removed nothing: the test did not exercise it"
echo "PASS: $CYCLES cycles (kill -9 of a replica each, PostgreSQL restarted every third), $total actions appended ($((earliest - 1)) removed by retention), replicas identical, every acknowledged version and key in the log exactly once"
