#!/usr/bin/env bash
# Replica benchmark (issue 14): a throwaway PostgreSQL 15 (Debian's postgresql; fsync and
# synchronous_commit on, unix socket) and three release-built replicas on it (journal postgres), all
# on this machine. Prints:
# 1. throughput: 64 wrk connections spread over the three replicas (22 + 21 + 21) posting
#    {"type":"increase"} — acknowledged actions/s in total (target >= 20,000), p99 per replica,
#    CPU per action of the replicas and of PostgreSQL, and the replicas' by kind of thread;
# 2. replica lag under that load: a probe (sse-fanout, 10 subscribers on replica 1) posts 20
#    actions/s to replica 0 while wrk runs; lag = from the POST's write on replica 0 to the event
#    read on replica 1 (an upper bound of "answer on one → event on the other"; target p99 <= 50 ms);
# 3. fan-out: 1,000 subscribers on each replica at 100 actions/s in total, each replica's
#    subscribers timing the actions posted to the next replica (lag again) — lost must be 0.
#
#   scripts/replica-bench.sh             # 10 s runs
#   DURATION=5 scripts/replica-bench.sh
#   KEYED=1 scripts/replica-bench.sh     # every POST of the load with an Idempotency-Key of its own
#   SERVER_BIN=<dir> scripts/replica-bench.sh   # remvvm-server from <dir> (another build, for A/B)
#   REPLICA_ARGS="--journal-retention 10000" scripts/replica-bench.sh   # more options for every replica
#   STORES=1000 scripts/replica-bench.sh # the load spread over 1,000 stores (autoCreateStores on);
#                                        # every store is created and loaded on every replica first
#   PORT_BASE=18300 scripts/replica-bench.sh   # the replicas on 18300-18302, PostgreSQL on 18303
#   THROUGHPUT_ONLY=1 scripts/replica-bench.sh  # phase 1 only (what Benchmarks/replica-ab.sh alternates)
#
# Results in bench-results/replica-*.txt. Every process is stopped by its PID; 127.0.0.1 only.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh postgresql wrk python3 curl
. scripts/lib/postgres.sh
fail() { echo "FAIL: $*" >&2; exit 1; }

DURATION=${DURATION:-10}
LOAD_SCRIPT=Benchmarks/wrk/post-action.lua
[ -n "${KEYED:-}" ] && LOAD_SCRIPT=Benchmarks/wrk/post-action-keyed.lua
# STORES=N: the POSTs spread over N stores (/stores/s<n>/actions, made by their first POST:
# autoCreateStores), issue 35's "three replicas, 1,000 stores" row.
if [ -n "${STORES:-}" ]; then
    LOAD_SCRIPT=Benchmarks/wrk/post-action-stores.lua
    export STORES
    REPLICA_ARGS="${REPLICA_ARGS:-} --auto-create-stores true --max-stores $((STORES + 10)) --max-loaded-stores $((STORES + 10))"
fi
OUT=bench-results
BUILD=.build-bench
mkdir -p "$OUT"
WORK=$(mktemp -d /tmp/remvvm-replica-bench.XXXXXX)
chmod 755 "$WORK"

if [ -n "${SERVER_BIN:-}" ]; then
    BIN=$SERVER_BIN
    echo "== remvvm-server from $BIN"
else
    echo "== building (release)"
    swift build -c release --scratch-path "$BUILD" --product remvvm-server 2>&1 | grep -E "error|warning:|complete" | tail -1
    BIN=$(swift build -c release --scratch-path "$BUILD" --show-bin-path)
fi
cc -O2 -o "$WORK/sse-fanout" Benchmarks/sse-fanout/sse-fanout.c -lm
if [ -n "${PORT_BASE:-}" ]; then
    PORTS=("$PORT_BASE" "$((PORT_BASE + 1))" "$((PORT_BASE + 2))" "$((PORT_BASE + 3))")
else
    read -r -a PORTS <<<"$(python3 -c 'import socket
s=[socket.socket() for _ in range(4)]
[x.bind(("127.0.0.1",0)) for x in s]
print(" ".join(str(x.getsockname()[1]) for x in s))')"
fi

PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    stop_postgres "$WORK/pg"
    wait 2>/dev/null || true
}
trap cleanup EXIT

# pg_stat_statements: which statements PostgreSQL's CPU goes to (printed after the throughput run).
start_postgres "$WORK/pg" "${PORTS[3]}" -c shared_preload_libraries=pg_stat_statements
psql_query() { as_postgres "$(pg_bin)/psql" -h "$WORK/pg" -p "${PORTS[3]}" -U postgres -X -q "$@"; }
psql_query -c "CREATE EXTENSION pg_stat_statements" >/dev/null
as_postgres "$(pg_bin)/psql" -h "$WORK/pg" -p "${PORTS[3]}" -U postgres -Atc "SHOW fsync; SHOW synchronous_commit" | tr '\n' ' ' \
    | sed 's/^/PostgreSQL fsync, synchronous_commit: /'; echo
for index in 0 1 2; do
    REMVVM_POSTGRES_URL="$PG_URL" "$BIN/remvvm-server" --journal postgres --replica-name "r$index" \
        --port "${PORTS[$index]}" --data-dir "$WORK/r$index" --log-level notice --connection-limit 20000 \
        ${REPLICA_ARGS:-} >"$WORK/r$index.log" 2>&1 &
    PIDS+=($!)
done
for index in 0 1 2; do
    deadline=$((SECONDS + 60))
    until curl -fsS -o /dev/null --max-time 1 "http://127.0.0.1:${PORTS[$index]}/healthz" 2>/dev/null; do
        [ "$SECONDS" -lt "$deadline" ] || fail "replica r$index not ready"
        sleep 0.1
    done
done
head_version() { psql_query -Atc "SELECT sum(version) FROM remvvm_head"; }  # every store's

# post_load SECONDS NAME: 64 connections over the three replicas; prints nothing, writes wrk files.
post_load() {
    local seconds=$1 name=$2 wrk_pids=() index connections
    for index in 0 1 2; do
        connections=$((index == 0 ? 22 : 21))
        KEY_PREFIX="$name-r$index" wrk -t1 -c"$connections" -d"${seconds}s" --latency -s "$LOAD_SCRIPT" \
            "http://127.0.0.1:${PORTS[$index]}/actions" >"$OUT/replica-$name-r$index.txt" 2>&1 &
        wrk_pids+=($!)
    done
    for pid in "${wrk_pids[@]}"; do wait "$pid"; done
    for index in 0 1 2; do
        if grep -q "Non-2xx" "$OUT/replica-$name-r$index.txt"; then
            cat "$OUT/replica-$name-r$index.txt" >&2
            fail "some answers of r$index were not 2xx"
        fi
    done
}
# cpu_seconds PID…: user + system CPU seconds of these processes so far.
cpu_seconds() {
    local ticks=0 pid
    for pid in "$@"; do
        [ -r "/proc/$pid/stat" ] && ticks=$((ticks + $(awk '{ print $14 + $15 }' "/proc/$pid/stat")))
    done
    awk -v t="$ticks" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", t / hz }'
}
# thread_cpu PID…: "kind ticks" lines — each kind of thread (its name: log-follower, log-append,
# MHD-worker, …) with its user + system CPU ticks so far, summed over these processes.
thread_cpu() {
    local pid task
    for pid in "$@"; do
        for task in /proc/"$pid"/task/*; do
            # A thread that ended meanwhile is skipped (and must not fail the pipeline).
            if [ -r "$task/stat" ]; then
                echo "$(tr ' ' _ <"$task/comm" 2>/dev/null) $(awk '{ print $14 + $15 }' "$task/stat" 2>/dev/null)"
            fi
        done
    done | awk '{ ticks[$1] += $2 } END { for (kind in ticks) print kind, ticks[kind] }' | sort
}
# This cluster's postmaster and its children only: other PostgreSQL servers on the machine (tests,
# other benchmarks) are not this run's.
postgres_pids() { echo "$PG_PID $(pgrep -P "$PG_PID" -d ' ' || true)"; }
# postgres_ticks: "pid ticks" of this cluster's processes so far.
postgres_ticks() {
    local pid
    for pid in $(postgres_pids); do
        [ -r "/proc/$pid/stat" ] && echo "$pid $(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null)"
    done | sort
}
# postgres_roles: "pid role" of this cluster's processes — a client connection named by the kind of
# statement it ran last (the appenders' remvvm_append, the followers' reads, the listeners' LISTEN),
# the others by their backend type.
postgres_roles() {
    psql_query -AtF ' ' -c "SELECT pid, CASE WHEN backend_type <> 'client backend' THEN replace(backend_type, ' ', '_')
        WHEN query ~* 'remvvm_append' THEN 'appends' WHEN query ~* '^\s*LISTEN' THEN 'listens'
        WHEN query ~* 'FROM remvvm_log' THEN 'reads' WHEN query ~* 'pg_stat' THEN 'this_script'
        ELSE 'other_client' END FROM pg_stat_activity" | sort
}
total_rps() { cat "$OUT"/replica-"$1"-r*.txt | awk '/^Requests\/sec:/ { sum += $2 } END { printf "%.0f", sum }'; }
p99s() { for index in 0 1 2; do awk '$1 == "99%" { printf "%s ", $2 }' "$OUT/replica-$1-r$index.txt"; done; }

# With STORES: every store created (a POST on r0) and loaded on every replica (a GET of its state
# on r1 and r2) before the warm-up, so the figures are those of 1,000 stores in use, not of their
# creation and first loads (which a 2 s warm-up did not cover: the first run measured mostly those).
if [ -n "${STORES:-}" ]; then
    echo "== creating $STORES stores (a POST each on r0) and loading them on r1 and r2"
    python3 - "$STORES" "${PORTS[0]}" "${PORTS[1]}" "${PORTS[2]}" <<'PY' || fail "the stores could not be created and loaded"
import http.client, sys, threading
stores, ports = int(sys.argv[1]), [int(p) for p in sys.argv[2:5]]
failures = []
def visit(port, method, part):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    for n in range(part, stores, 4):
        path = f"/stores/s{n}/" + ("actions" if method == "POST" else "state")
        body = '{"type":"increase"}' if method == "POST" else None
        connection.request(method, path, body=body, headers={"Content-Type": "application/json"})
        answer = connection.getresponse()
        answer.read()
        if answer.status >= 300:
            failures.append(f"{method} {path} on {port}: {answer.status}")
def run(jobs):
    threads = [threading.Thread(target=visit, args=job) for job in jobs]
    for thread in threads: thread.start()
    for thread in threads: thread.join()
run([(ports[0], "POST", part) for part in range(4)])
run([(port, "GET", part) for port in ports[1:] for part in range(4)])
if failures:
    print("\n".join(failures[:10]), file=sys.stderr)
    sys.exit(1)
PY
fi

echo "== throughput: wrk, 64 connections over 3 replicas${KEYED:+, every POST with an Idempotency-Key of its own}, ${DURATION}s (after a 2 s warm-up)"
post_load 2 warmup
before_version=$(head_version)
# shellcheck disable=SC2046
servers_before=$(cpu_seconds "${PIDS[@]}"); postgres_before=$(cpu_seconds $(postgres_pids))
threads_before=$(thread_cpu "${PIDS[@]}"); postgres_ticks_before=$(postgres_ticks)
psql_query -c "SELECT pg_stat_statements_reset()" >/dev/null
commits_before=$(psql_query -Atc "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")
post_load "$DURATION" throughput
commits_after=$(psql_query -Atc "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")
# shellcheck disable=SC2046
servers_after=$(cpu_seconds "${PIDS[@]}"); postgres_after=$(cpu_seconds $(postgres_pids))
threads_after=$(thread_cpu "${PIDS[@]}"); postgres_ticks_after=$(postgres_ticks)
after_version=$(head_version)
rps=$(total_rps throughput)
actions=$((after_version - before_version))
echo "acknowledged actions/s (sum of the three): $rps   p99 per replica: $(p99s throughput)  log grew by $actions versions"
awk -v s="$(awk -v a="$servers_after" -v b="$servers_before" 'BEGIN { print a - b }')" \
    -v p="$(awk -v a="$postgres_after" -v b="$postgres_before" 'BEGIN { print a - b }')" -v n="$actions" -v d="$DURATION" \
    'BEGIN { printf "CPU during the run (2 cores = %.0f core-s): 3 replicas %.1f s (%.0f us/action), PostgreSQL %.1f s (%.0f us/action), the rest (wrk, kernel, idle) %.1f s\n", 2 * d, s, s * 1e6 / n, p, p * 1e6 / n, 2 * d - s - p }'

# Where the replicas' CPU went, by kind of thread (each replica's follower applies every action).
echo "the 3 replicas' CPU by kind of thread, per action:"
join <(echo "$threads_before") <(echo "$threads_after") | awk -v n="$actions" -v hz="$(getconf CLK_TCK)" \
    '{ d = ($3 - $2) / hz; if (d > 0) printf "  %-16s %6.2f s %7.2f us/action\n", $1, d, d * 1e6 / n }' | sort -k4 -n -r
echo "PostgreSQL's CPU by process, per action (a client connection by the statement it ran last):"
join <(echo "$postgres_ticks_before") <(echo "$postgres_ticks_after") | join - <(postgres_roles) -a 1 \
    | awk -v n="$actions" -v hz="$(getconf CLK_TCK)" '{ role = NF > 3 ? $4 : "postmaster_or_gone"; d[role] += ($3 - $2) / hz; c[role]++ }
        END { for (r in d) if (d[r] > 0) printf "  %-22s %2d process(es) %6.2f s %7.2f us/action\n", r, c[r], d[r], d[r] * 1e6 / n }' | sort -k5 -n -r
echo "PostgreSQL: $((commits_after - commits_before)) transactions committed ($(awk -v n="$actions" -v c="$((commits_after - commits_before))" 'BEGIN { printf "%.1f", n / c }') versions per transaction, reads included); statements by total time:"
psql_query -c "SELECT calls, round(total_exec_time::numeric, 0) AS total_ms, round((total_exec_time / calls * 1000)::numeric, 0) AS us_per_call, rows, left(regexp_replace(query, '\s+', ' ', 'g'), 70) AS statement FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 8"
[ -n "${THROUGHPUT_ONLY:-}" ] && exit 0
echo "== replica lag under that load: probe posts 20/s to r0, 10 subscribers on r1"
post_load "$((DURATION + 4))" lag-load &
load_pid=$!
sleep 2  # let the load reach its steady state before probing
"$WORK/sse-fanout" --port "${PORTS[1]}" --post-port "${PORTS[0]}" --subscribers 10 --rate 20 --duration "$DURATION" \
    --threads 1 >"$OUT/replica-lag.txt" 2>&1 || { cat "$OUT/replica-lag.txt" >&2; fail "the lag probe failed"; }
wait "$load_pid"
grep -E "^(posted|expected|latency)" "$OUT/replica-lag.txt"

echo "== fan-out: 1,000 subscribers per replica, 100 actions/s in total (each replica times the next one's posts)"
fanout_pids=()
for index in 0 1 2; do
    "$WORK/sse-fanout" --port "${PORTS[$index]}" --post-port "${PORTS[$(((index + 1) % 3))]}" --subscribers 1000 \
        --rate 33.34 --duration "$DURATION" --server-pid "${PIDS[$index]}" --threads 1 \
        >"$OUT/replica-fanout-r$index.txt" 2>&1 &
    fanout_pids+=($!)
done
for index in 0 1 2; do
    wait "${fanout_pids[$index]}" || { cat "$OUT/replica-fanout-r$index.txt" >&2; fail "fan-out on r$index failed"; }
    echo "-- r$index (subscribers) <- r$(((index + 1) % 3)) (posts)"
    grep -E "^(connected|posted|expected|latency)" "$OUT/replica-fanout-r$index.txt"
done
