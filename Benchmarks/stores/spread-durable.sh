#!/usr/bin/env bash
# Durable POST spread over many stores against the same POST to one store (issue 35's "group
# commit across stores" target: >= 0.9x), on one durable server (journalSync full) on 127.0.0.1.
#
#   Benchmarks/stores/spread-durable.sh BIN DATA_DIR [PORT] [ROUNDS] [SECONDS] [STORES]
#
# BIN holds remvvm-server (release). The server runs on a fresh DATA_DIR; STORES stores (default
# 1,000) are made with PUT; then ROUNDS (default 3) interleaved rounds of `wrk -t2 -c64` for
# SECONDS each (default 5), one to the store s0 alone and one spread over s0…s<STORES-1>
# (Benchmarks/wrk/post-action-stores.lua: both sides run the same Lua, so the ratio compares the
# server only). Prints each round, the medians and their ratio, and a last line
# `spread: one=<median> many=<median> ratio=<ratio>` for scripts. Stops its server by its PID.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=$1
DATA=$2
PORT=${3:-18219}
ROUNDS=${4:-3}
SECONDS_=${5:-5}
STORES=${6:-1000}
rm -rf "$DATA" "$DATA.logs"
mkdir -p "$DATA" "$DATA.logs"
# start NAME PORT COMMAND... and stop PID (SIGTERM, the server must exit 0); logs in $OUT.
OUT=$DATA.logs
source Benchmarks/lib/background-servers.sh
start spread-durable "$PORT" "$BIN/remvvm-server" --port "$PORT" --data-dir "$DATA" --log-level warning \
    --max-stores $((STORES + 10)) --max-loaded-stores $((STORES + 10))
SERVER=$SERVER_PID
python3 Benchmarks/lib/put-stores.py "$PORT" "$STORES"
# run N: one wrk run over N stores; prints requests/s, fails on any non-2xx answer.
run() {
    local out
    out=$(STORES=$1 wrk -t2 -c64 -d"${SECONDS_}s" -s Benchmarks/wrk/post-action-stores.lua "http://127.0.0.1:$PORT")
    if grep -q "Non-2xx" <<<"$out"; then echo "spread-durable: non-2xx answers over $1 store(s):" >&2; echo "$out" >&2; exit 1; fi
    awk '/^Requests\/sec:/ { printf "%.0f", $2 }' <<<"$out"
}
# Warm-up: every store loaded, the journal file grown.
STORES=$STORES wrk -t2 -c64 -d2s -s Benchmarks/wrk/post-action-stores.lua "http://127.0.0.1:$PORT" >/dev/null
ones=()
manys=()
for round in $(seq 1 "$ROUNDS"); do
    one=$(run 1)
    many=$(run "$STORES")
    ones+=("$one")
    manys+=("$many")
    echo "round $round: one store $one/s, $STORES stores $many/s ($(awk -v a="$many" -v b="$one" 'BEGIN { printf "%.2f", a / b }'))"
done
median() { printf "%s\n" "$@" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
one=$(median "${ones[@]}")
many=$(median "${manys[@]}")
echo "spread: one=$one many=$many ratio=$(awk -v a="$many" -v b="$one" 'BEGIN { printf "%.2f", a / b }')"
stop "$SERVER"
