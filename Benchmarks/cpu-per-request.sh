#!/usr/bin/env bash
# The server's CPU per request, two builds alternating: on a 2-core machine wrk takes about as much
# CPU as the server, so requests/s hide much of a change in the server's own cost; CPU time per
# request (perf stat's task-clock over the requests wrk counted) shows it. Prints each round and,
# per build, the medians of requests/s, CPU µs per request and context switches per request.
#
#   Benchmarks/cpu-per-request.sh BASE_BIN TREE_BIN [ROUNDS] [ROW]
#
# BASE_BIN and TREE_BIN hold remvvm-server (release builds, e.g. .build-ab-baseline/release and
# .build-ab/release as scripts/ab.sh makes them). ROW: post (default: POST /actions in memory),
# payload (the same POST of a login with a payload, through the JSON decoder), durable (POST
# /actions with the journal, journalSync full, a fresh data directory per server), state (GET
# /state in memory), viewmodel (GET /viewmodels/counter in memory), or spread (a durable server with 1,000 stores: the same -c64 POST to one
# store, then over all 1,000 in turn; the medians of both and their ratio, issue 35's spread),
# stores (in memory: GET /state, GET /stores/s1/state and POST /stores/s1/actions on one server:
# what a store route costs beside the root's), keyed (the durable POST on a fresh server without,
# then with an Idempotency-Key of its own per request, random as UUID version 4, then time-ordered as
# version 7: what the Swift client's keys cost), or token (GET /state in memory, each build without tokens and with a static token configured and
# sent: the token's cost, issue 33's "≤ 3 %").
# BASE_ENV and TREE_ENV (optional, e.g. TREE_ENV=LD_PRELOAD=/path/lib.so): environment variables
# for each side's servers, to compare one build under two environments (BASE_BIN = TREE_BIN).
# ROUNDS (default 5) rounds of 5-second wrk -t2 -c64 runs, the builds alternating, a fresh server
# per round and build. For post, durable, state and viewmodel each round also measures the C libmicrohttpd hello server
# (TREE_BIN/mhd-hello) answering the same request: its CPU per request is the ceiling the builds'
# are compared with (the ratios printed at the end). Needs wrk, perf, python3; 127.0.0.1 only; every server stopped by its PID.
set -euo pipefail
BASE_BIN=${1:?usage: Benchmarks/cpu-per-request.sh BASE_BIN TREE_BIN [ROUNDS] [ROW]}
TREE_BIN=${2:?usage: Benchmarks/cpu-per-request.sh BASE_BIN TREE_BIN [ROUNDS] [ROW]}
ROUNDS=${3:-5}
ROW=${4:-post}
cd "$(dirname "$0")/.."
PORT=${PORT:-18214}
OUT=${OUT:-bench-results/cpu-per-request}
command -v perf >/dev/null || { echo "cpu-per-request: perf is not installed (apt-get install linux-perf)" >&2; exit 1; }
scripts/install-deps.sh wrk python3
mkdir -p "$OUT"
rm -rf "$OUT"/data-* "$OUT"/*.log "$OUT"/rounds.tsv
source Benchmarks/lib/background-servers.sh
TOKEN=bench-token-0123456789

# measure LABEL URL [wrk args...]: a 1 s warm-up, then 5 s of wrk with perf stat on the server
# and on wrk beside it; appends "LABEL rps server_cpu_us cs wrk_cpu_us" to $OUT/rounds.tsv
# and prints it.
measure() {
    local label=$1 url=$2
    shift 2
    wrk -t2 -c64 -d1s "$@" "$url" >/dev/null 2>&1 || true
    wrk -t2 -c64 -d5s "$@" "$url" >"$OUT/wrk.out" &
    local wrk_pid=$!
    perf stat -e task-clock,context-switches -x, -o "$OUT/perf.txt" -p "$SERVER_PID" -- sleep 4.5 &
    local perf_pid=$!
    # wrk's own CPU over the same 4.5 s (attached by PID, like the server: run under `perf stat`,
    # wrk's durable spread rounds were answered non-2xx, for reasons not found).
    perf stat -e task-clock -x, -o "$OUT/wrk-perf.txt" -p "$wrk_pid" -- sleep 4.5 &
    local wrk_perf_pid=$!
    wait "$wrk_pid" "$perf_pid" "$wrk_perf_pid"
    local out
    out=$(cat "$OUT/wrk.out")
    if grep -q "Non-2xx" <<<"$out"; then echo "$label: some answers were not 2xx" >&2; echo "$out" >&2; exit 1; fi
    awk -v label="$label" -v rps="$(awk '/^Requests\/sec:/ {print $2}' <<<"$out")" \
        -v ms="$(awk -F, '/task-clock/ {print $1}' "$OUT/perf.txt")" \
        -v cs="$(awk -F, '/context-switches/ {print $1}' "$OUT/perf.txt")" \
        -v wrk_ms="$(awk -F, '/task-clock/ {print $1}' "$OUT/wrk-perf.txt")" \
        'BEGIN { printf "%s\t%.0f\t%.2f\t%.3f\t%.2f\n", label, rps, ms * 1000 / (rps * 4.5), cs / (rps * 4.5), wrk_ms * 1000 / (rps * 4.5) }' \
        | tee -a "$OUT/rounds.tsv"
}

LOGIN='{"type":"login","payload":{"firstName":"Ada","lastName":"Lovelace"}}'

# round SIDE BIN N: one fresh server of BIN, measured for ROW.
round() {
    local side=$1 bin=$2 n=$3 url="http://127.0.0.1:$PORT"
    # The side's environment (word-split on purpose: NAME=value pairs); `env` alone adds nothing.
    local environment=()
    case "$side" in
    base) read -r -a environment <<<"${BASE_ENV:-}" ;;
    tree) read -r -a environment <<<"${TREE_ENV:-}" ;;
    esac
    local server=(env "${environment[@]}" "$bin/remvvm-server" --port "$PORT" --log-level warning)
    case "$ROW" in
    post)
        start "$side" "$PORT" "${server[@]}" --in-memory
        measure "$side" "$url/actions" -s Benchmarks/wrk/post-action.lua ;;
    payload)
        start "$side" "$PORT" "${server[@]}" --in-memory
        ACTION=$LOGIN measure "$side" "$url/actions" -s Benchmarks/wrk/post-action.lua ;;
    durable)
        start "$side" "$PORT" "${server[@]}" --data-dir "$OUT/data-$side-$n" --journal-sync full
        measure "$side" "$url/actions" -s Benchmarks/wrk/post-action.lua ;;
    state)
        start "$side" "$PORT" "${server[@]}" --in-memory
        measure "$side" "$url/state" ;;
    viewmodel)
        start "$side" "$PORT" "${server[@]}" --in-memory
        measure "$side" "$url/viewmodels/counter" ;;
    spread)
        start "$side" "$PORT" "${server[@]}" --data-dir "$OUT/data-$side-$n" \
            --max-stores 1100 --max-loaded-stores 1100
        python3 Benchmarks/lib/put-stores.py "$PORT" 1000
        STORES=1 measure "$side-one" "$url" -s Benchmarks/wrk/post-action-stores.lua
        STORES=1000 measure "$side-1000" "$url" -s Benchmarks/wrk/post-action-stores.lua ;;
    stores)
        start "$side" "$PORT" "${server[@]}" --in-memory
        curl -fsS -o /dev/null -X PUT "$url/stores/s1"
        measure "$side-state" "$url/state"
        measure "$side-store-state" "$url/stores/s1/state"
        measure "$side-store-post" "$url/stores/s1/actions" -s Benchmarks/wrk/post-action.lua ;;
    keyed)
        start "$side-plain" "$PORT" "${server[@]}" --data-dir "$OUT/data-$side-$n" --journal-sync full
        measure "$side-plain" "$url/actions" -s Benchmarks/wrk/post-action.lua
        stop "$SERVER_PID"
        rm -rf "$OUT/data-$side-$n"
        start "$side-keyed" "$PORT" "${server[@]}" --data-dir "$OUT/data-$side-$n" --journal-sync full
        KEY_ORDER=random measure "$side-keyed" "$url/actions" -s Benchmarks/wrk/post-action-keyed.lua
        stop "$SERVER_PID"
        rm -rf "$OUT/data-$side-$n"
        start "$side-ordered" "$PORT" "${server[@]}" --data-dir "$OUT/data-$side-$n" --journal-sync full
        KEY_ORDER=time measure "$side-ordered" "$url/actions" -s Benchmarks/wrk/post-action-keyed.lua ;;
    token)
        start "$side-open" "$PORT" "${server[@]}" --in-memory
        measure "$side-open" "$url/state"
        stop "$SERVER_PID"
        start "$side-token" "$PORT" env REMVVM_AUTH_TOKENS="$TOKEN=read+dispatch" "${server[@]}" --in-memory
        measure "$side-token" "$url/state" -H "Authorization: Bearer $TOKEN" ;;
    hello)
        start hello "$PORT" "$bin/mhd-hello" "$PORT"
        if [ "$n" = post ] || [ "$n" = durable ]; then measure hello "$url/" -s Benchmarks/wrk/post-action.lua
        else measure hello "$url/"; fi ;;
    *)
        echo "unknown ROW $ROW (post, payload, durable, keyed, state, viewmodel, spread, stores or token)" >&2; exit 2 ;;
    esac
    stop "$SERVER_PID"
    rm -rf "$OUT/data-$side-$n"
}

printf "row %s, %s rounds, wrk -t2 -c64 -d5s\nlabel\trequests/s\tserver cpu µs/request\tcontext switches/request\twrk cpu µs/request\n" "$ROW" "$ROUNDS"
for n in $(seq 1 "$ROUNDS"); do
    if (( n % 2 )); then round base "$BASE_BIN" "$n"; round tree "$TREE_BIN" "$n"
    else round tree "$TREE_BIN" "$n"; round base "$BASE_BIN" "$n"; fi
    if [ "$ROW" = post ] || [ "$ROW" = durable ] || [ "$ROW" = state ] || [ "$ROW" = viewmodel ]; then ROW=hello round hello "$TREE_BIN" "$ROW"; fi
done

python3 - "$OUT/rounds.tsv" <<'PYTHON'
import collections, statistics, sys
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    label, rps, cpu, cs, wrk = line.split("\t")
    rows[label].append((float(rps), float(cpu), float(cs), float(wrk)))
print("\nmedians")
for label, values in rows.items():
    print(f"  {label:<16} {statistics.median(v[0] for v in values):>9.0f}/s  "
          f"{statistics.median(v[1] for v in values):6.2f} µs/request  "
          f"{statistics.median(v[2] for v in values):5.3f} context switches/request  "
          f"wrk {statistics.median(v[3] for v in values):6.2f} µs/request")
# On this kind of machine a round runs in one of two modes, fixed when the threads are placed: the
# server's threads rarely sleep (under 0.1 context switches a request) or sleep about every other
# request, and then each request costs ~40 % more CPU, for every build and the C server alike.
# Which rounds land in which mode is chance, so the medians above can differ by the mix alone;
# the rounds of each mode compared with their own kind are the like-for-like figure.
print("\nby mode (rounds under / over 0.1 context switches a request): rounds, median µs/request")
for label, values in rows.items():
    calm = [v[1] for v in values if v[2] < 0.1]
    busy = [v[1] for v in values if v[2] >= 0.1]
    def summary(cpus): return f"{len(cpus)}, {statistics.median(cpus):6.2f}" if cpus else "0,      -"
    print(f"  {label:<16} calm {summary(calm)}   switching {summary(busy)}")
if "hello" in rows:
    hello_rps = statistics.median(v[0] for v in rows["hello"])
    hello_cpu = statistics.median(v[1] for v in rows["hello"])
    hello_all = statistics.median(v[1] + v[3] for v in rows["hello"])
    for side in ("base", "tree"):
        rps = statistics.median(v[0] for v in rows[side])
        cpu = statistics.median(v[1] for v in rows[side])
        every = statistics.median(v[1] + v[3] for v in rows[side])
        # On two cores that wrk and the server keep busy, requests/s go as 1 / (server + wrk CPU
        # per request): the last ratio is what wrk's requests/s would show with nothing else running.
        print(f"  {side}: of the C hello server, requests/s {rps / hello_rps:.2f}, "
              f"its server CPU per request / ours {hello_cpu / cpu:.2f}, "
              f"server + wrk CPU per request {hello_all / every:.2f}")
for side in ("base", "tree"):
    if f"{side}-token" in rows:
        def med(label, i): return statistics.median(v[i] for v in rows[label])
        print(f"  {side}: with the token / without, requests/s {med(side + '-token', 0) / med(side + '-open', 0):.3f}, "
              f"CPU per request {med(side + '-token', 1) / med(side + '-open', 1):.3f}")
    if f"{side}-store-state" in rows:
        def med(label, i): return statistics.median(v[i] for v in rows[label])
        print(f"  {side}: GET /stores/s1/state / GET /state, requests/s {med(side + '-store-state', 0) / med(side + '-state', 0):.3f}, "
              f"CPU per request {med(side + '-store-state', 1) / med(side + '-state', 1):.3f}")
    if f"{side}-keyed" in rows:
        def med(label, i): return statistics.median(v[i] for v in rows[label])
        for keys in ("keyed", "ordered"):
            print(f"  {side}: with a {'random' if keys == 'keyed' else 'time-ordered'} key / without, "
                  f"requests/s {med(f'{side}-{keys}', 0) / med(side + '-plain', 0):.2f}, "
                  f"CPU per request {med(f'{side}-{keys}', 1) / med(side + '-plain', 1):.2f}")
    if f"{side}-one" in rows:
        one = statistics.median(v[0] for v in rows[f"{side}-one"])
        many = statistics.median(v[0] for v in rows[f"{side}-1000"])
        print(f"  {side}: 1,000 stores / one store, requests/s: {many / one:.2f}")
PYTHON
