#!/usr/bin/env bash
# A/B of the request path: remvvm-server built at BASELINE (a commit, tag or branch) against this
# working tree, with the C libmicrohttpd hello server as the ceiling, in interleaved rounds on
# 127.0.0.1. Prints, per row, the median requests/s of each side over the rounds, the spread of the
# rounds, and the ratios (this tree / baseline, this tree / C ceiling).
#
#   scripts/ab.sh BASELINE                # 3 rounds of 5-second wrk -t2 -c64 runs
#   ROUNDS=5 DURATION=8 scripts/ab.sh BASELINE
#   BASELINE_BIN=DIR scripts/ab.sh LABEL  # a baseline already built in DIR (holds remvvm-server)
#   TREE_BIN=DIR ...                      # this tree already built in DIR (remvvm-server, mhd-hello)
#
# The C hello server is measured with GET and with the POST body (the ceiling of each: issue 33
# compares POST /actions with the hello server answering the same POST).
# Rows: GET /state, GET /viewmodels/counter and POST /actions {"type":"increase"} in memory; the
# same POST durable (the default journal, journalSync full, a fresh data directory per server);
# GET /state and POST /actions with a static token configured (and sent). The baseline is built
# in release mode from a git worktree of BASELINE (.build-ab-baseline-src) into
# .build-ab-baseline, this tree into .build-ab. Within a round the order of the three servers
# rotates, so neither side always runs first. Every server it starts is stopped by its PID.
set -euo pipefail
cd "$(dirname "$0")/.."
BASELINE=${1:?usage: scripts/ab.sh BASELINE_COMMIT}
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-5}
PORT=${PORT:-18208}
HELLO_PORT=${HELLO_PORT:-18209}
OUT=${OUT:-bench-results/ab}
TOKEN=bench-token-0123456789

scripts/install-deps.sh wrk python3
mkdir -p "$OUT"
rm -rf "$OUT"/data-* "$OUT"/*.txt "$OUT"/*.log "$OUT"/*.rounds

if [ -n "${TREE_BIN:-}" ]; then
    BIN=$TREE_BIN
else
    echo "== building this tree (release, benchmarks enabled) in .build-ab"
    REMVVM_BENCHMARKS=1 swift build -c release --scratch-path .build-ab 2>&1 | grep -E "error|warning:|Build complete" | tail -3
    BIN=$(REMVVM_BENCHMARKS=1 swift build -c release --scratch-path .build-ab --show-bin-path)
fi
if [ -n "${BASELINE_BIN:-}" ]; then
    BASELINE_LABEL=$BASELINE
else
    echo "== building the baseline $BASELINE (release) in .build-ab-baseline"
    SRC=.build-ab-baseline-src
    git worktree remove --force "$SRC" 2>/dev/null || rm -rf "$SRC"
    git worktree add --detach -f "$SRC" "$BASELINE" >/dev/null
    (cd "$SRC" && swift build -c release --scratch-path ../.build-ab-baseline --product remvvm-server 2>&1 \
        | grep -E "error|complete" | tail -1)
    BASELINE_BIN=$(cd "$SRC" && swift build -c release --scratch-path ../.build-ab-baseline --show-bin-path)
    BASELINE_LABEL=$(git rev-parse --short "$BASELINE")
fi

source Benchmarks/lib/background-servers.sh

# rps NAME URL [wrk args...]: a 1 s warm-up, then the measured run; appends requests/s to
# $OUT/NAME.rounds and fails on any answer that is not 2xx.
rps() {
    local name=$1 url=$2
    shift 2
    wrk -t2 -c64 -d1s "$@" "$url" >/dev/null 2>&1 || true
    wrk -t2 -c64 -d"${DURATION}s" "$@" "$url" >"$OUT/wrk-$name.txt" 2>&1
    if grep -q "Non-2xx" "$OUT/wrk-$name.txt"; then
        echo "wrk $name: some answers were not 2xx:" >&2
        cat "$OUT/wrk-$name.txt" >&2
        exit 1
    fi
    awk '/^Requests\/sec:/ { printf "%.0f\n", $2 }' "$OUT/wrk-$name.txt" >>"$OUT/$name.rounds"
}

POST=(-s Benchmarks/wrk/post-action.lua)
AUTH=(-H "Authorization: Bearer $TOKEN")

# side SIDE BIN ROUND: every row against the remvvm-server in BIN (SIDE: base or tree).
side() {
    local side=$1 bin=$2 round=$3
    local url="http://127.0.0.1:$PORT"
    start "$side" $PORT "$bin/remvvm-server" --port $PORT --in-memory --log-level warning
    rps "$side-state" "$url/state"
    rps "$side-viewmodel" "$url/viewmodels/counter"
    rps "$side-post" "$url/actions" "${POST[@]}"
    stop "$SERVER_PID"
    start "$side-durable" $PORT "$bin/remvvm-server" --port $PORT --data-dir "$OUT/data-$side-$round" \
        --journal-sync full --log-level warning
    rps "$side-durable" "$url/actions" "${POST[@]}"
    stop "$SERVER_PID"
    rm -rf "$OUT/data-$side-$round"
    start "$side-token" $PORT env REMVVM_AUTH_TOKENS="$TOKEN=read+dispatch" "$bin/remvvm-server" --port $PORT \
        --in-memory --log-level warning
    rps "$side-token-state" "$url/state" "${AUTH[@]}"
    rps "$side-token-post" "$url/actions" "${AUTH[@]}" "${POST[@]}"
    stop "$SERVER_PID"
}

hello() {
    start hello $HELLO_PORT "$BIN/mhd-hello" $HELLO_PORT
    rps hello "http://127.0.0.1:$HELLO_PORT/"
    rps hello-post "http://127.0.0.1:$HELLO_PORT/" "${POST[@]}"
    stop "$SERVER_PID"
}

echo "== $ROUNDS interleaved rounds of wrk -t2 -c64 -d${DURATION}s: C hello, $BASELINE_LABEL, this tree"
for round in $(seq 1 "$ROUNDS"); do
    case $(( round % 3 )) in
    1) hello; side base "$BASELINE_BIN" "$round"; side tree "$BIN" "$round" ;;
    2) side tree "$BIN" "$round"; hello; side base "$BASELINE_BIN" "$round" ;;
    0) side base "$BASELINE_BIN" "$round"; side tree "$BIN" "$round"; hello ;;
    esac
    echo "   round $round done"
done

python3 - "$OUT" "$BASELINE_LABEL" "$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- Sources || echo +changes)" <<'PYTHON'
import statistics, sys
out, base_label, tree_label = sys.argv[1:4]
def rounds(name):
    with open(f"{out}/{name}.rounds") as f:
        return [int(line) for line in f if line.strip()]
def spread(values):
    m = statistics.median(values)
    return f"{min(values)}-{max(values)} ({100 * (max(values) - min(values)) / m:.0f}% of the median)"
hello = rounds("hello")
h = statistics.median(hello)
print(f"\nmedians of {len(hello)} rounds, requests/s (wrk -t2 -c64)")
print(f"  C libmicrohttpd hello {h:>9.0f}   rounds {spread(hello)}")
hello_post = rounds("hello-post")
hp = statistics.median(hello_post)
print(f"  the same, POST {{\"type\":\"increase\"}} {hp:>9.0f}   rounds {spread(hello_post)}")
print(f"  {'row':<28} {base_label:>10} {tree_label:>14}   tree/base  tree/C  base/C   rounds (tree)")
rows = [("GET /state", "state"), ("GET /viewmodels/counter", "viewmodel"), ("POST /actions", "post"),
        ("POST /actions durable", "durable"), ("GET /state static token", "token-state"),
        ("POST /actions static token", "token-post")]
medians = {}
for label, key in rows:
    b, t = rounds(f"base-{key}"), rounds(f"tree-{key}")
    mb, mt = statistics.median(b), statistics.median(t)
    medians[key] = (mb, mt)
    print(f"  {label:<28} {mb:>10.0f} {mt:>14.0f}   {mt / mb:>9.2f}  {mt / h:>6.2f}  {mb / h:>6.2f}   {spread(t)}")
for side, index in (("base", 0), ("tree", 1)):
    durable = medians["durable"][index] / medians["post"][index]
    token_state = medians["token-state"][index] / medians["state"][index]
    token_post = medians["token-post"][index] / medians["post"][index]
    post_ceiling = medians["post"][index] / hp
    print(f"  {side}: durable/in-memory POST {durable:.2f}; static token/open GET {token_state:.2f}, POST {token_post:.2f}; "
          f"POST /actions / the C hello's POST {post_ceiling:.2f}")
PYTHON
