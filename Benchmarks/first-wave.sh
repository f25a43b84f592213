#!/usr/bin/env bash
# Issue 33's "at least the first wave's level", measured: the server as it was at the end of the
# first wave (44f4e5c) against this tree and the C libmicrohttpd hello server, in the same
# interleaved rounds (Benchmarks/cpu-per-request.sh), for POST /actions, GET /state and
# GET /viewmodels/counter in memory. Prints each row's medians and ratios to the C server.
#
#   Benchmarks/first-wave.sh [ROUNDS] [ROW...]      # default: 5 rounds of post, state, viewmodel
#   TREE_BIN=DIR Benchmarks/first-wave.sh           # this tree already built in DIR
#
# The first wave's build keeps no journal and has no --in-memory flag: a wrapper that drops the flag
# and execs it (so that its PID is the server's) stands in for its remvvm-server. It is built in
# release mode from a git worktree (.build-first-wave-src) into .build-first-wave, this tree with
# the benchmarks enabled into .build-ab (as scripts/ab.sh does). 127.0.0.1 only; every server is
# stopped by its PID (cpu-per-request.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
FIRST_WAVE=44f4e5c
ROUNDS=${1:-5}
shift $(( $# > 0 ? 1 : 0 ))
ROWS=("$@")
[ ${#ROWS[@]} -gt 0 ] || ROWS=(post state viewmodel)

if [ -z "${TREE_BIN:-}" ]; then
    echo "== building this tree (release, benchmarks enabled) in .build-ab"
    REMVVM_BENCHMARKS=1 swift build -c release --scratch-path .build-ab 2>&1 | grep -E "error|warning:|Build complete" | tail -3
    TREE_BIN=$(REMVVM_BENCHMARKS=1 swift build -c release --scratch-path .build-ab --show-bin-path)
fi

SRC=.build-first-wave-src
FIRST_BIN=.build-first-wave/wrapped
if [ ! -x "$FIRST_BIN/remvvm-server.real" ]; then
    echo "== building the first wave ($FIRST_WAVE, release) in .build-first-wave"
    git worktree remove --force "$SRC" 2>/dev/null || rm -rf "$SRC"
    git worktree add --detach -f "$SRC" "$FIRST_WAVE" >/dev/null
    (cd "$SRC" && swift build -c release --scratch-path ../.build-first-wave --product remvvm-server 2>&1 \
        | grep -E "error|complete" | tail -1)
    mkdir -p "$FIRST_BIN"
    cp "$(cd "$SRC" && swift build -c release --scratch-path ../.build-first-wave --show-bin-path)/remvvm-server" \
        "$FIRST_BIN/remvvm-server.real"
    git worktree remove --force "$SRC"
fi
cat >"$FIRST_BIN/remvvm-server" <<'WRAPPER'
#!/usr/bin/env bash
# The first wave's server, which keeps everything in memory and knows no --in-memory flag.
arguments=()
for argument in "$@"; do [ "$argument" = --in-memory ] || arguments+=("$argument"); done
exec "$(dirname "$0")/remvvm-server.real" ${arguments[@]+"${arguments[@]}"}
WRAPPER
chmod +x "$FIRST_BIN/remvvm-server"

for row in "${ROWS[@]}"; do
    echo "== $row: base = the first wave ($FIRST_WAVE), tree = this tree"
    Benchmarks/cpu-per-request.sh "$FIRST_BIN" "$TREE_BIN" "$ROUNDS" "$row" | sed -n '/^medians/,$p'
done
