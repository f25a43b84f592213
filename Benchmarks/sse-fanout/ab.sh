#!/usr/bin/env bash
# Interleaved A/B of event delivery (the publisher path: hub, fan-out, direct writes) between two
# remvvm-server builds, with the sse-fanout load tool of this folder, on 127.0.0.1 only:
#
#   Benchmarks/sse-fanout/ab.sh BASE_BIN TREE_BIN            # 3 rounds, 1,000 and 5,000 subscribers
#   ROUNDS=5 COUNTS="2000 10000" PATHS="/events /viewmodels/counter/events" Benchmarks/sse-fanout/ab.sh A B
#
# BASE_BIN and TREE_BIN are folders holding remvvm-server (e.g. the release builds scripts/ab.sh
# leaves in .build-ab-baseline/release and .build-ab/release). Per round, per subscriber count and
# per path, each side gets a fresh in-memory server and one sse-fanout run (RATE posts/s for
# DURATION s); the side that runs first alternates between rounds. Prints, per row, the medians
# over the rounds of the p50 and p99 latency, of the server's CPU seconds during the run and of
# the events lost (not there SETTLE s after the last post: on a loaded machine, late rather than
# lost), and fails if any run repeated or reordered an event. Every server it starts is stopped
# by PID.
set -euo pipefail
cd "$(dirname "$0")/../.."
BASE_BIN=${1:?usage: Benchmarks/sse-fanout/ab.sh BASE_BIN TREE_BIN}
TREE_BIN=${2:?usage: Benchmarks/sse-fanout/ab.sh BASE_BIN TREE_BIN}
ROUNDS=${ROUNDS:-3}
COUNTS=${COUNTS:-"1000 5000"}
PATHS=${PATHS:-"/events"}
RATE=${RATE:-10}
DURATION=${DURATION:-10}
SETTLE=${SETTLE:-5}
PORT=${PORT:-18231}
OUT=${OUT:-bench-results/sse-fanout-ab}

mkdir -p "$OUT"
rm -f "$OUT"/*.json "$OUT"/*.log
cc -O2 -o "$OUT/sse-fanout" Benchmarks/sse-fanout/sse-fanout.c -lm

source Benchmarks/lib/background-servers.sh

# run SIDE BIN COUNT PATH ROUND: one server, one load run, its JSON in $OUT.
run() {
    local side=$1 bin=$2 count=$3 path=$4 round=$5
    local name="$side-$count-$(echo "$path" | tr -c 'a-z0-9\n' '_')-$round"
    start "$side" "$PORT" "$bin/remvvm-server" --port "$PORT" --in-memory --connection-limit $((count + 256)) \
        --log-level warning
    "$OUT/sse-fanout" --port "$PORT" --subscribers "$count" --rate "$RATE" --duration "$DURATION" \
        --settle "$SETTLE" --path "$path" --server-pid "$SERVER_PID" --json "$OUT/$name.json" >"$OUT/$name.txt" 2>&1 \
        || { cat "$OUT/$name.txt" >&2; exit 1; }
    stop "$SERVER_PID"
}

echo "== $ROUNDS interleaved rounds: subscribers $COUNTS, paths $PATHS, $RATE posts/s for ${DURATION}s"
for round in $(seq 1 "$ROUNDS"); do
    for count in $COUNTS; do
        for path in $PATHS; do
            if [ $((round % 2)) -eq 1 ]; then
                run base "$BASE_BIN" "$count" "$path" "$round"; run tree "$TREE_BIN" "$count" "$path" "$round"
            else
                run tree "$TREE_BIN" "$count" "$path" "$round"; run base "$BASE_BIN" "$count" "$path" "$round"
            fi
        done
    done
done

python3 - "$OUT" <<'EOF'
import glob, json, os, statistics, sys
out = sys.argv[1]
rows = {}
for file in glob.glob(os.path.join(out, "*.json")):
    side, count, path, _ = os.path.basename(file)[:-5].split("-", 3)
    result = json.load(open(file))
    if result["duplicates"] or result["out_of_order"]:
        sys.exit(f"{file}: duplicates {result['duplicates']}, out of order {result['out_of_order']}")
    rows.setdefault((int(count), path), {}).setdefault(side, []).append(result)
def median(results, key):
    values = [r[key] for r in results if r[key] is not None]
    return statistics.median(values) if values else float("nan")
print(f"{'subscribers':>11} {'path':<28} {'p50 base':>9} {'p50 tree':>9} {'p99 base':>9} {'p99 tree':>9} {'cpu base':>9} {'cpu tree':>9} {'lost base':>9} {'lost tree':>9}")
for (count, path), sides in sorted(rows.items()):
    base, tree = sides.get("base", []), sides.get("tree", [])
    print(f"{count:>11} {path.replace('_', '/'):<28} {median(base, 'p50_ms'):>7.1f}ms {median(tree, 'p50_ms'):>7.1f}ms "
          f"{median(base, 'p99_ms'):>7.1f}ms {median(tree, 'p99_ms'):>7.1f}ms "
          f"{median(base, 'server_cpu_run_s'):>8.2f}s {median(tree, 'server_cpu_run_s'):>8.2f}s "
          f"{median(base, 'lost'):>9.0f} {median(tree, 'lost'):>9.0f}")
EOF
