#!/usr/bin/env bash
# Where POST /actions spends the server's CPU, in memory and durable (journalSync full): one fresh
# server per mode under wrk -t2 -c64, sampled by perf. Prints, per mode, the requests per second
# under sampling (lower than without it: compare the shares, not this figure), the share of the
# server's CPU samples by thread and by library, and the share in the Swift runtime's
# generic-metadata lookups (unspecialized generic code across modules).
#
#   Benchmarks/post-profile.sh BIN [PORT] [SECONDS]      (needs perf and wrk; BIN: a release build)
#
# BIN holds remvvm-server. Stops every server it started by its PID.
set -euo pipefail
BIN=$1 PORT=${2:-18206} SECONDS_PER_RUN=${3:-5}
cd "$(dirname "$0")/.."
command -v perf >/dev/null || { echo "post-profile: perf is not installed (apt-get install linux-perf)"; exit 1; }
command -v wrk >/dev/null || { echo "post-profile: wrk is not installed (apt-get install wrk)"; exit 1; }
WORK=$(mktemp -d)
SERVER_PID=
cleanup() {
    [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
    [ -n "${KEEP_PROFILE:-}" ] && echo "profiles in $WORK" || rm -rf "$WORK"
}
trap cleanup EXIT
URL="http://127.0.0.1:$PORT/actions"
LUA=Benchmarks/wrk/post-action.lua

# share FILE REGEX: the summed percentage of the report lines whose key matches REGEX.
share() {
    awk -v pattern="$2" '$1 ~ /%$/ && $0 ~ pattern { sub("%", "", $1); total += $1 } END { printf "%.1f", total }' "$1"
}

# profile NAME ARGS...: a fresh server with ARGS, warmed up 2 s, then sampled for SECONDS_PER_RUN.
profile() {
    local name=$1
    shift
    "$BIN/remvvm-server" --port "$PORT" --log-level warning "$@" &
    SERVER_PID=$!
    for _ in $(seq 1 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
        sleep 0.05
    done
    wrk -t2 -c64 -d2s -s "$LUA" "$URL" >/dev/null
    perf record -q -g -e cpu-clock -F 2999 -p "$SERVER_PID" -o "$WORK/$name.data" -- sleep "$SECONDS_PER_RUN" >/dev/null 2>&1 &
    local perf_pid=$!
    wrk -t2 -c64 -d"${SECONDS_PER_RUN}s" -s "$LUA" "$URL" >"$WORK/$name.wrk"
    wait "$perf_pid" || true
    kill "$SERVER_PID"
    wait "$SERVER_PID" || { echo "the $name server did not stop cleanly" >&2; exit 1; }
    SERVER_PID=
    perf report -i "$WORK/$name.data" --no-children -g none --sort comm --stdio 2>/dev/null >"$WORK/$name.threads"
    perf report -i "$WORK/$name.data" --no-children -g none --sort dso --stdio 2>/dev/null >"$WORK/$name.libraries"
    perf report -i "$WORK/$name.data" --no-children -g none --sort symbol --stdio 2>/dev/null >"$WORK/$name.symbols"
    echo "$name: $(awk '/Requests\/sec/ { print $2 }' "$WORK/$name.wrk") requests/s under sampling"
    echo "  threads:   $(awk '$1 ~ /%$/ { printf "%s %s  ", $2, $1 }' "$WORK/$name.threads")"
    echo "  libraries: $(awk '$1 ~ /%$/ && NR < 40 { printf "%s %s  ", $2, $1 }' "$WORK/$name.libraries" | cut -c1-200)"
    echo "  generic-metadata lookups: $(share "$WORK/$name.symbols" 'GenericMetadata|getCache|MetadataCache|GenericCacheEntry|instantiate.*Metadata')% of samples"
}

profile in-memory --in-memory
profile durable --data-dir "$WORK/data" --journal-sync full
