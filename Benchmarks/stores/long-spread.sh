#!/usr/bin/env bash
# A long durable POST run over many stores, where the journal's folds (docs/journal.md, "The log
# of recent records") happen tens of times into a growing `actions`: its latency percentiles, and
# the commits that took 25 ms or more (the folds: a fold runs before a commit's transaction and
# counts in its duration). Two builds, interleaved rounds, a fresh durable server per round.
#
#   Benchmarks/stores/long-spread.sh BASE_BIN TREE_BIN [ROUNDS] [SECONDS] [SPREAD]
#
# BASE_BIN and TREE_BIN hold remvvm-server (release). Each round: 1,000 stores made with PUT, then
# `wrk -t2 -c64 --latency` for SECONDS (default 30) with Benchmarks/wrk/post-action-stores.lua over
# SPREAD stores (default 1000; 1 is the one-store figure); ROUNDS (default 3) per build. Prints
# each round and the medians of requests/s, p50, p99, the server's CPU a request (its user and
# system time over wrk's run, from /proc) and the slow commits' count. BASE_ARGS and TREE_ARGS
# (optional) add server arguments to each side: one build against itself under two settings, e.g.
#   BASE_ARGS="--journal-fold-piece 1048576" Benchmarks/stores/long-spread.sh BIN BIN 5
# (whole folds against folds in pieces). 127.0.0.1 only (PORT, default 18241); data in a temporary
# directory; every server stopped by its PID.
set -euo pipefail
cd "$(dirname "$0")/../.."
BASE_BIN=${1:?usage: Benchmarks/stores/long-spread.sh BASE_BIN TREE_BIN [ROUNDS] [SECONDS] [SPREAD]}
TREE_BIN=${2:?usage: Benchmarks/stores/long-spread.sh BASE_BIN TREE_BIN [ROUNDS] [SECONDS] [SPREAD]}
ROUNDS=${3:-3}
SECONDS_=${4:-30}
SPREAD=${5:-1000}
PORT=${PORT:-18241}
scripts/install-deps.sh wrk python3 curl
OUT=$(mktemp -d /tmp/long-spread.XXXXXX)
source Benchmarks/lib/background-servers.sh
trap 'cleanup; rm -rf "$OUT"' EXIT

# cpu_ticks PID: the process's user + system CPU so far, in clock ticks.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# round SIDE BIN ARGS: one fresh server, one wrk run; appends "SIDE rps p50_ms p99_ms slow_commits
# cpu_us_per_request".
round() {
    local side=$1 bin=$2 args=$3 data="$OUT/data" before after
    rm -rf "$data"
    # shellcheck disable=SC2086  # ARGS are words
    start "$side" "$PORT" "$bin/remvvm-server" --port "$PORT" --data-dir "$data" --log-level warning \
        --max-stores 1100 --max-loaded-stores 1100 $args
    python3 Benchmarks/lib/put-stores.py "$PORT" 1000
    before=$(cpu_ticks "$SERVER_PID")
    STORES=$SPREAD wrk -t2 -c64 -d"${SECONDS_}s" --latency -s Benchmarks/wrk/post-action-stores.lua \
        "http://127.0.0.1:$PORT" > "$OUT/wrk.txt"
    after=$(cpu_ticks "$SERVER_PID")
    curl -fsS "http://127.0.0.1:$PORT/metrics" > "$OUT/metrics.txt"
    stop "$SERVER_PID"
    python3 - "$side" "$OUT/wrk.txt" "$OUT/metrics.txt" "$((after - before))" "$(getconf CLK_TCK)" "$SECONDS_" >> "$OUT/rounds.txt" <<'PYTHON'
import re, sys
side, wrk, metrics = sys.argv[1], open(sys.argv[2]).read(), open(sys.argv[3]).read()
ticks, hertz, seconds = int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6])
if re.search(r"Non-2xx|Socket errors", wrk):
    sys.exit(f"{side}: wrk saw errors:\n{wrk}")
def ms(text):  # wrk's "950.00us", "1.78ms", "1.02s"
    value, unit = re.fullmatch(r"([\d.]+)(us|ms|s)", text).groups()
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", wrk).group(1))
p50 = ms(re.search(r"^\s*50%\s+(\S+)", wrk, re.M).group(1))
p99 = ms(re.search(r"^\s*99%\s+(\S+)", wrk, re.M).group(1))
buckets = {float(le): int(n) for le, n in re.findall(r'remvvm_journal_commit_duration_seconds_bucket\{le="([\d.]+)"\} (\d+)', metrics)}
count = int(re.search(r"remvvm_journal_commit_duration_seconds_count (\d+)", metrics).group(1))
slow = count - buckets[0.025]
print(side, rps, p50, p99, slow, ticks / hertz * 1e6 / (rps * seconds))
PYTHON
    tail -n 1 "$OUT/rounds.txt" | awk '{printf "  %-5s %8.0f requests/s  p50 %6.2f ms  p99 %6.2f ms  commits of 25 ms or more %d  server CPU %5.1f µs/request\n", $1, $2, $3, $4, $5, $6}'
}

echo "long-spread: $ROUNDS rounds of ${SECONDS_} s over $SPREAD of 1,000 stores (base $BASE_BIN ${BASE_ARGS:-}, tree $TREE_BIN ${TREE_ARGS:-})"
for _ in $(seq "$ROUNDS"); do
    round base "$BASE_BIN" "${BASE_ARGS:-}"
    round tree "$TREE_BIN" "${TREE_ARGS:-}"
done
python3 - "$OUT/rounds.txt" <<'PYTHON'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    side, *values = line.split()
    rows.setdefault(side, []).append([float(v) for v in values])
print("medians:")
for side in ("base", "tree"):
    columns = list(zip(*rows[side]))
    rps, p50, p99, slow, cpu = (statistics.median(c) for c in columns)
    print(f"  {side:5} {rps:8.0f} requests/s  p50 {p50:6.2f} ms  p99 {p99:6.2f} ms  commits of 25 ms or more {slow:.0f}  server CPU {cpu:5.1f} µs/request")
PYTHON
