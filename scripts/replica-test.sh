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
# Besides the store default, the stores in REPLICA_STORES (default "s1 s2 s3"; created at start
# with PUT on r0) get one keyed client on each replica every cycle, at /stores/ID/actions; after
# each cycle every replica serves each of them at its head (loaded on demand), the states are
# identical and counter == head, and each store's acknowledged versions and keys are checked as
# default's are (versions per store: each store has its own).
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
read -r -a STORES <<<"${REPLICA_STORES-s1 s2 s3}"
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
# store_version ID PORT: the version of the store's state on that replica (its ETag "N-incarnation").
store_version() {
    curl -fsS --max-time 12 -D - -o /dev/null "http://127.0.0.1:$2/stores/$1/state" 2>/dev/null |
        sed -n 's/^[Ee][Tt][Aa][Gg]: *"\([0-9]*\)-.*/\1/p'
}

# converged NAME HEAD PATH VERSION...: within the cycle's deadline every replica is at HEAD
# (VERSION... PORT prints a replica's version), their states at PATH are identical, and the
# counter is HEAD (every action is an increase: the state is a replay of the log).
converged() {
    local name=$1 head=$2 path=$3 state0 counter
    shift 3
    for index in 0 1 2; do
        until [ "$("$@" "${PORTS[$index]}")" = "$head" ]; do
            [ "$SECONDS" -lt "$deadline" ] || fail "cycle $cycle: r$index did not reach the head $head of $name"
            sleep 0.1
        done
    done
    state0=$(curl -fsS "http://127.0.0.1:${PORTS[0]}$path")
    for index in 1 2; do
        [ "$(curl -fsS "http://127.0.0.1:${PORTS[$index]}$path")" = "$state0" ] || fail "cycle $cycle: r$index's state of $name differs from r0's"
    done
    counter=$(sed -n 's/.*"counter":\([-0-9]*\).*/\1/p' <<<"$state0")
    [ "$counter" = "$head" ] || fail "cycle $cycle: $name: counter $counter at version $head: not a replay of increases"
}

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
for store in "${STORES[@]}"; do
    [ "$(curl -sS -o /dev/null -w '%{http_code}' -X PUT "http://127.0.0.1:${PORTS[0]}/stores/$store")" = 201 ] ||
        fail "PUT /stores/$store on r0 did not create it"
done
echo "PostgreSQL on $WORK/pg:$PG_PORT, replicas on ${PORTS[0]} ${PORTS[1]} ${PORTS[2]}, stores default ${STORES[*]}"

total=0
for cycle in $(seq 1 "$CYCLES"); do
    CLIENT_PIDS=()
    for index in 0 1 2; do
        python3 scripts/crash-client.py "${PORTS[$index]}" 8 "$SECONDS_PER_CYCLE" "$WORK/c$cycle-$index.json" "c$cycle-r$index" &
        CLIENT_PIDS+=($!)
        for store in "${STORES[@]}"; do
            python3 scripts/crash-client.py "${PORTS[$index]}" 1 "$SECONDS_PER_CYCLE" \
                "$WORK/c$cycle-$store-$index.json" "c$cycle-$store-r$index" --stores "$store" &
            CLIENT_PIDS+=($!)
        done
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

    head=$(psql_value "SELECT version FROM remvvm_head WHERE store = 'default'")
    deadline=$((SECONDS + 60))
    converged default "$head" /state health_version
    heads="{\"default\": $head"
    store_heads=""
    for store in "${STORES[@]}"; do
        store_head=$(psql_value "SELECT version FROM remvvm_head WHERE store = '$store'")
        heads+=", \"$store\": $store_head"
        store_heads+="${store_heads:+, }$store $store_head"
        converged "store $store" "$store_head" "/stores/$store/state" store_version "$store"
    done
    heads+="}"

    # Acknowledged versions: distinct, in the log; keys: each at most once, every acknowledged one present.
    psql_value "SELECT idempotency_key FROM remvvm_log WHERE idempotency_key IS NOT NULL
                UNION ALL SELECT idempotency_key FROM remvvm_answers" >"$WORK/logged-keys"
    earliest=$(psql_value "SELECT coalesce(min(version), 0) FROM remvvm_log WHERE store = 'default'")
    oldest=$(psql_value "SELECT coalesce(min(snapshot_version), 0) FROM remvvm_replicas WHERE store = 'default'")
    if [ "$earliest" -gt 1 ] && [ $((earliest - 1)) -gt $((oldest - RETENTION)) ]; then
        fail "cycle $cycle: records through $((earliest - 1)) removed, but the oldest registered snapshot is $oldest (retention $RETENTION)"
    fi
    echo "cycle $cycle: log holds versions $earliest…$head; oldest registered snapshot $oldest"
    python3 - "$WORK" "$cycle" "$heads" <<'EOF' || exit 1
import json, sys, glob, os
work, cycle, heads = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
acknowledged, sent, unanswered = {store: [] for store in heads}, set(), set()
for path in glob.glob(f"{work}/c{cycle}-*.json"):
    # each client's {"acknowledged": {store: versions}, "keys": {store: keys}, "unanswered": [[store, key]]}
    data = json.load(open(path))
    for store, versions in data["acknowledged"].items():
        acknowledged[store] += versions
    sent |= {key for keys in data["keys"].values() for key in keys}
    unanswered |= {key for _, key in data["unanswered"]}
logged = [line for line in open(f"{work}/logged-keys").read().split("\n") if line]
ok = True
for store, versions in acknowledged.items():
    if len(set(versions)) != len(versions):
        print(f"FAIL: cycle {cycle}: two requests to store {store} were acknowledged with the same version"); ok = False
    if versions and max(versions) > heads[store]:
        print(f"FAIL: cycle {cycle}: version {max(versions)} of store {store} acknowledged beyond its head {heads[store]}"); ok = False
if len(set(logged)) != len(logged):
    print(f"FAIL: cycle {cycle}: a key is in the log twice"); ok = False
mine = {key for key in logged if key.startswith(f"c{cycle}-")}
missing = (sent - unanswered) - mine
if missing:
    print(f"FAIL: cycle {cycle}: {len(missing)} acknowledged keys are not in the log, e.g. {sorted(missing)[:3]}"); ok = False
counts = ", ".join(f"{store} at {heads[store]} ({len(versions)} acknowledged)" for store, versions in acknowledged.items())
print(f"cycle {cycle}: {counts}, {len(mine)} keys applied once, {len(unanswered)} unanswered when time ran out")
sys.exit(0 if ok else 1)
EOF
    total=$head
done
[ "$earliest" -gt 1 ] || fail "retention removed nothing: the test did not exercise it"
echo "PASS: $CYCLES cycles (kill -9 of a replica each, PostgreSQL restarted every third), $total actions appended to default ($((earliest - 1)) removed by retention) and ${store_heads:-none} to the other stores, replicas identical, every acknowledged version and key in the log exactly once"
