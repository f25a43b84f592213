#!/usr/bin/env bash
# Where a durable POST's CPU goes, one store against many: `perf record -g` of a fresh durable
# server (1,000 stores made with PUT) during `wrk -t2 -c64` on the store s0 alone, then over
# STORES stores (Benchmarks/wrk/post-action-stores.lua, the same Lua both times). Prints, per run,
# requests/s and the server's CPU per request split by thread (HTTP workers, journal-commit,
# others), then the share of the journal-commit thread's samples under the functions that matter
# for the spread (a function counted once per sample: inclusive).
#
#   Benchmarks/stores/spread-profile.sh BIN [PORT] [STORES] [SECONDS]
#
# BIN holds remvvm-server (release, with symbols). Defaults: port 18219, 1,000 stores, 5 seconds of
# recording (after a 2-second warm-up). perf.data files and their folded stacks stay in
# bench-results/spread-profile/. Needs perf, wrk, python3; 127.0.0.1 only; its servers are stopped
# by their PIDs.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${1:?usage: Benchmarks/stores/spread-profile.sh BIN [PORT] [STORES] [SECONDS]}
PORT=${2:-18219}
STORES=${3:-1000}
SECONDS_=${4:-5}
OUT=bench-results/spread-profile
command -v perf >/dev/null || { echo "spread-profile: perf is not installed (apt-get install linux-perf)" >&2; exit 1; }
scripts/install-deps.sh wrk python3
mkdir -p "$OUT"
source Benchmarks/lib/background-servers.sh

# profile LABEL N: a fresh server, N stores' worth of spread, perf record of the server.
profile() {
    local label=$1 spread=$2 data="$OUT/data-$1"
    rm -rf "$data"
    start "$label" "$PORT" "$BIN/remvvm-server" --port "$PORT" --data-dir "$data" --log-level warning \
        --max-stores $((STORES + 100)) --max-loaded-stores $((STORES + 100))
    python3 Benchmarks/lib/put-stores.py "$PORT" "$STORES"
    STORES=$spread wrk -t2 -c64 -d2s -s Benchmarks/wrk/post-action-stores.lua "http://127.0.0.1:$PORT" >/dev/null
    perf record -g -o "$OUT/$label.perf" -p "$SERVER_PID" -- sleep "$SECONDS_" >/dev/null 2>&1 &
    local perf_pid=$!
    STORES=$spread wrk -t2 -c64 -d$((SECONDS_ + 1))s -s Benchmarks/wrk/post-action-stores.lua "http://127.0.0.1:$PORT" \
        | awk '/^Requests\/sec:/ {print $2}' > "$OUT/$label.rps"
    wait "$perf_pid"
    stop "$SERVER_PID"
    rm -rf "$data"
    perf script -i "$OUT/$label.perf" 2>/dev/null > "$OUT/$label.stacks"
    python3 - "$OUT/$label.stacks" "$(cat "$OUT/$label.rps")" "$SECONDS_" "$label" <<'PYTHON'
import collections, re, sys
stacks, rps, seconds, label = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
watched = {
    "completing the parts (GroupCommitJournal.completeCommit)": "GroupCommitA0C08completeC",
    "  the gate's release (CommitGate.release)": "CommitGateC7release",
    "  event hub publish": "EventHubC5start6source",
    "  view-model hub publish": "ViewModelHubC5start6source",
    "  snapshot check (SnapshotWriter.writeIfDue)": "SnapshotWriterC10writeIfDue",
    "waiters (PendingResponse.complete)": "PendingResponseC8complete",
    "taking the batches (takeBatch)": "takeBatch3now",
    "SQLite transaction (SQLiteJournalStorage.write)": "SQLiteJournal0aB7StorageC5write",
    "fdatasync": "fdatasync",
    "fold of the log (foldLogIfDue)": "foldLogIfDue",
}
threads, commit, hits = collections.Counter(), 0, collections.Counter()
for sample in open(stacks).read().split("\n\n"):
    lines = [line.strip() for line in sample.strip().split("\n") if line.strip()]
    if len(lines) < 2:
        continue
    thread = "MHD-worker" if lines[0].startswith("MHD-worker") else "journal-commit" if lines[0].startswith("journal-commit") else "other"
    threads[thread] += 1
    if thread == "journal-commit":
        commit += 1
        frames = " ".join(lines[1:])
        for name, pattern in watched.items():
            if pattern in frames:
                hits[name] += 1
total = sum(threads.values())
# perf record's default rate for -p is 4,000 samples a second of CPU time.
cpu_us = total / 4000 * 1e6 / (rps * seconds)
print(f"{label}: {rps:.0f} requests/s, server CPU {cpu_us:.1f} µs per request")
for thread in ("MHD-worker", "journal-commit", "other"):
    print(f"  {thread:<15} {cpu_us * threads[thread] / max(1, total):5.1f} µs")
print("  journal-commit, share of its samples:")
for name in watched:
    print(f"    {name:<55} {100 * hits[name] / max(1, commit):5.1f} %")
PYTHON
}

profile one 1
profile spread "$STORES"
