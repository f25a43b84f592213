#!/usr/bin/env bash
# Three replicas over one PostgreSQL, two builds alternating: each round runs the throughput phase
# of scripts/replica-bench.sh (64 wrk connections over three replicas, a fresh PostgreSQL and fresh
# replicas) once with BASE_BIN's remvvm-server and once with TREE_BIN's, and prints the round's
# acknowledged actions/s and CPU per action (the three replicas, PostgreSQL); at the end, the
# medians per build and the tree's over the base's. On a 2-core machine one round's figure moves by
# ±10 %: compare medians of several rounds (an even number: the order alternates), never one round.
#
#   Benchmarks/replica-ab.sh BASE_BIN TREE_BIN [ROUNDS]
#
# BASE_BIN and TREE_BIN are directories holding remvvm-server (release builds). ROUNDS (default
# 4). STORES (default 1000) and DURATION (default 5 s) as for scripts/replica-bench.sh; KEYED=1
# and REPLICA_ARGS pass through. Raw outputs in bench-results/replica-ab/. 127.0.0.1 only; every
# process is stopped by scripts/replica-bench.sh.
set -euo pipefail
BASE_BIN=${1:?usage: Benchmarks/replica-ab.sh BASE_BIN TREE_BIN [ROUNDS]}
TREE_BIN=${2:?usage: Benchmarks/replica-ab.sh BASE_BIN TREE_BIN [ROUNDS]}
ROUNDS=${3:-4}
cd "$(dirname "$0")/.."
OUT=bench-results/replica-ab
mkdir -p "$OUT"
rm -f "$OUT"/*.txt "$OUT"/rounds.tsv
export STORES=${STORES:-1000} DURATION=${DURATION:-5} THROUGHPUT_ONLY=1

for round in $(seq 1 "$ROUNDS"); do
    # base first in odd rounds, tree first in even ones: a machine whose speed drifts during the
    # run (it does, by 10–20 % over minutes) favours neither build.
    order="base tree"
    [ $((round % 2)) -eq 0 ] && order="tree base"
    for side in $order; do
        bin=$BASE_BIN
        [ "$side" = tree ] && bin=$TREE_BIN
        log="$OUT/round$round-$side.txt"
        SERVER_BIN=$bin scripts/replica-bench.sh >"$log" 2>&1 || { cat "$log" >&2; echo "FAIL: round $round ($side)" >&2; exit 1; }
        rps=$(sed -n 's/^acknowledged actions\/s (sum of the three): \([0-9]*\).*/\1/p' "$log")
        # "CPU during the run (…): 3 replicas 5.0 s (71 us/action), PostgreSQL 3.7 s (53 us/action), …"
        read -r replicas postgres < <(sed -n 's/.*3 replicas [0-9.]* s (\([0-9]*\) us\/action), PostgreSQL [0-9.]* s (\([0-9]*\) us\/action).*/\1 \2/p' "$log")
        printf '%s\t%s\t%s\t%s\t%s\n' "$round" "$side" "$rps" "$replicas" "$postgres" >>"$OUT/rounds.tsv"
        printf 'round %d %-4s %7s actions/s   CPU an action: replicas %3s us, PostgreSQL %3s us\n' "$round" "$side" "$rps" "$replicas" "$postgres"
    done
done

python3 - "$OUT/rounds.tsv" <<'PY'
import statistics, sys
rows = [line.split('\t') for line in open(sys.argv[1]).read().split('\n') if line]
def medians(side):
    picked = [r for r in rows if r[1] == side]
    return [statistics.median(float(r[i]) for r in picked) for i in (2, 3, 4)]
base, tree = medians('base'), medians('tree')
for name, m in (('base', base), ('tree', tree)):
    print(f"median {name}: {m[0]:,.0f} actions/s, CPU an action {m[1] + m[2]:.0f} us (replicas {m[1]:.0f}, PostgreSQL {m[2]:.0f})")
print(f"tree / base: actions/s {tree[0] / base[0]:.3f}, CPU an action {(tree[1] + tree[2]) / (base[1] + base[2]):.3f}")
PY
