#!/usr/bin/env bash
# What measuring costs: the same remvvm-server binary with metrics on (the default) and off
# (--metrics-enabled false), GET /state and POST /actions, in ROUNDS interleaved rounds of
# SECONDS-second wrk runs (each on a fresh server, after a 1-second warm-up). Prints, per route,
# the median requests/s of each side, the ratio of the medians and the median of the per-round
# ratios. Interleaved medians, not a best of three: on a shared 2-core machine single runs spread
# by ±20 %, far more than the 3 % this measures.
#
#   Benchmarks/metrics-ab.sh BIN [PORT] [ROUNDS] [SECONDS]     (called by scripts/bench.sh)
set -euo pipefail
BIN=$1 PORT=${2:-18204} ROUNDS=${3:-8} SECONDS_PER_RUN=${4:-3}
cd "$(dirname "$0")/.."

. Benchmarks/lib/fresh-server.sh

# rps ROUTE ARGS...: one fresh server, one warm-up, one measured run; prints requests/s.
rps() {
    local route=$1
    start_warm "$@"
    wrk -t2 -c64 -d"${SECONDS_PER_RUN}s" "${WRK_SCRIPT[@]}" "http://127.0.0.1:$PORT$route" | awk '/^Requests\/sec:/ { printf "%.0f\n", $2 }'
    stop_fresh
}

for route in /state /actions; do
    on=() off=()
    for _ in $(seq 1 "$ROUNDS"); do
        on+=("$(rps "$route")")
        off+=("$(rps "$route" --metrics-enabled false)")
    done
    python3 - "$route" "${on[*]}" "${off[*]}" <<'PYTHON'
import statistics, sys
route, on, off = sys.argv[1], [int(x) for x in sys.argv[2].split()], [int(x) for x in sys.argv[3].split()]
paired = statistics.median(a / b for a, b in zip(on, off))
print(f"{route} metrics on/off: median {statistics.median(on)} / {statistics.median(off)} = "
      f"{statistics.median(on) / statistics.median(off):.3f}, median of paired rounds {paired:.3f} "
      f"(on {' '.join(map(str, on))}; off {' '.join(map(str, off))})")
PYTHON
done
