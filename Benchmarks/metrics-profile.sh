#!/usr/bin/env bash
# What measuring costs, from CPU samples instead of throughput: the share of the server's CPU
# samples spent in metrics code while wrk drives GET /state and POST /actions, metrics on, and the
# clock reads compared with the same run with metrics off (libmicrohttpd reads the clock too).
# Throughput ratios on a shared 2-core machine spread by several percent between runs; the share
# of samples inside one server process does not depend on what else runs beside it.
#
#   Benchmarks/metrics-profile.sh BIN [PORT] [SECONDS]      (called by scripts/bench.sh; needs perf)
#
# Metrics code = symbols of swift-prometheus, swift-metrics (CoreMetrics), HTTPMetrics,
# ServiceMetrics, ContinuousClock and swift-atomics, plus clock_gettime beyond the metrics-off run.
set -euo pipefail
BIN=$1 PORT=${2:-18205} SECONDS_PER_RUN=${3:-5}
cd "$(dirname "$0")/.."
command -v perf >/dev/null || { echo "metrics-profile: perf is not installed (apt-get install linux-perf)"; exit 0; }
WORK=$(mktemp -d)
[ -n "${KEEP_PROFILE:-}" ] && echo "profiles in $WORK" || trap 'rm -rf "$WORK"' EXIT

. Benchmarks/lib/fresh-server.sh

# profile ROUTE NAME ARGS...: one fresh server under wrk, sampled by perf; leaves $WORK/NAME.txt.
profile() {
    local route=$1 name=$2
    shift 2
    start_warm "$route" "$@"
    perf record -q -e cpu-clock -F 2999 -p "$FRESH_PID" -o "$WORK/$name.data" -- sleep "$SECONDS_PER_RUN" >/dev/null 2>&1 &
    local perf_pid=$!
    wrk -t2 -c64 -d"${SECONDS_PER_RUN}s" "${WRK_SCRIPT[@]}" "http://127.0.0.1:$PORT$route" >/dev/null
    wait "$perf_pid" || true
    stop_fresh
    perf report -i "$WORK/$name.data" --no-children --sort symbol --stdio 2>/dev/null >"$WORK/$name.txt"
}

# share FILE REGEX: the summed self-time percentage of the symbols matching REGEX.
share() {
    awk -v pattern="$2" '$1 ~ /%$/ && $0 ~ pattern { sub("%", "", $1); total += $1 } END { printf "%.2f", total }' "$1"
}

METRICS='Prometheus|CoreMetrics|HTTPMetrics|ServiceMetrics|ContinuousClock|7Atomics'
for route in /state /actions; do
    name=${route//\//}
    profile "$route" "$name-on"
    profile "$route" "$name-off" --metrics-enabled false
    code=$(share "$WORK/$name-on.txt" "$METRICS")
    clock_on=$(share "$WORK/$name-on.txt" "clock_gettime")
    clock_off=$(share "$WORK/$name-off.txt" "clock_gettime")
    awk -v r="$route" -v c="$code" -v on="$clock_on" -v off="$clock_off" 'BEGIN {
        extra = on - off; if (extra < 0) extra = 0
        printf "%-15s metrics code %.2f %% of server CPU samples, clock reads +%.2f %% (%.2f %% on, %.2f %% off): about %.1f %% in all (target <= 3 %%)\n", r, c, extra, on, off, c + extra
    }'
done
