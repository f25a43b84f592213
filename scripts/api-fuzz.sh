#!/usr/bin/env bash
# Fuzzes the HTTP API against its own OpenAPI document with schemathesis (issue 12, item 5).
#
# Builds remvvm-server from this checkout and runs it twice: in memory (--in-memory) and durable
# (a fresh temporary --data-dir, whose document also lists 503). Each time it starts the server
# on 127.0.0.1 on a free port (--port 0, the port read from its log), waits for /healthz, fetches
# GET /openapi.json, validates it as OpenAPI 3.1 with openapi-spec-validator, and runs
# schemathesis on it with every check on (--checks all), a bounded number of examples per
# operation and one worker. It fails on any 5xx, any answer that does not conform to the
# document (status, content type, headers, body schema, the events of GET /events), a valid
# request rejected, an invalid one accepted, or a validator error.
#
# "The state is only changed by valid actions": both runs on each server, the full one (--mode
# all: examples, coverage, fuzzing and stateful phases) and a negative one (--mode negative:
# bodies, headers, parameters and methods that violate the document), record every request and
# answer in a HAR file, in order (one worker). scripts/api-fuzz/account.py then checks that every
# POST /actions and every view-model command (POST /viewmodels/<name>/commands/<command>, one
# operation per command in the document), at the root and under /stores/{id}/, answered 200 (not
# an Idempotency-Key replay) was valid by the document (body, media type, headers), that each 200
# names its store's version before it plus its number of actions (one for each command of the
# example; a navigation action that changes nothing makes none), that every store's version moved
# by exactly all those actions over the run and the stores are those before plus those created
# (PUT 201) less those deleted (DELETE 204), and that each store's action log lists exactly those
# actions in that order. So nothing but accepted valid requests moved a store: no rejected
# request, no answer in between, nothing after. (Comparing GET /state
# around the negative run is not enough: schemathesis counts a request as negative also when only
# an undocumented extra header makes it so, and the server rightly accepts such a valid action.)
#
# Two checks are told what this API rightly answers (scripts/api-fuzz/hooks.py says more):
# positive_data_acceptance also expects 412 (If-Match names another version: the request is
# valid, its precondition is not met) and 422 (schemathesis reuses Idempotency-Keys with other
# bodies); hooks.py's own check then fails every 422 to a valid request but that one. The view
# model names of GET /viewmodels/{name} are drawn from GET /viewmodels most of the time, and
# GET /events (which never ends) is read up to its first event.
#
#   scripts/api-fuzz.sh                          # what CI runs
#   API_FUZZ_EXAMPLES=1000 scripts/api-fuzz.sh   # more examples per operation (default 100)
#   API_FUZZ_SEED=1234 scripts/api-fuzz.sh       # the same requests again (default: a new seed,
#                                                # printed at the start)
#
# Installs python3-venv (Debian), then schemathesis and openapi-spec-validator at the versions in
# scripts/api-fuzz/requirements.txt (their dependencies pinned in constraints.txt) into
# .build-venv/; builds in .build-fuzz/ (API_FUZZ_SCRATCH_PATH to change). Every server it starts
# is stopped by its PID; it uses 127.0.0.1 only; each schemathesis run is bounded by `timeout`.
# On failure the work directory with the logs, documents and HAR files is kept and named.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/server.sh
ROOT=$(pwd)

EXAMPLES=${API_FUZZ_EXAMPLES:-100}
SEED=${API_FUZZ_SEED:-$(( (RANDOM << 15) | RANDOM ))}
SCRATCH=${API_FUZZ_SCRATCH_PATH:-.build-fuzz}
VENV="$ROOT/.build-venv"
RUN_LIMIT=600 # seconds for one schemathesis run: a bound for a hang (a run takes 2-5 min on a loaded 2-core machine)

# The server must run on its built-in defaults plus the flags below, whatever the environment.
while IFS= read -r name; do unset "$name"; done < <(compgen -e | grep '^REMVVM_' || true)

scripts/install-deps.sh python3 python3-venv curl

WORK=$(mktemp -d /tmp/remvvm-api-fuzz.XXXXXX)
SERVER_PID=""
cleanup() {
    local status=$?
    if [ -n "$SERVER_PID" ]; then
        kill -TERM "$SERVER_PID" 2>/dev/null || true
        for _ in $(seq 1 50); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    if [ "$status" -eq 0 ]; then rm -rf "$WORK"; else echo "logs, documents and HAR files: $WORK" >&2; fi
}
trap cleanup EXIT

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# --- tools -------------------------------------------------------------------------------------
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
fi
"$VENV/bin/pip" install --quiet --disable-pip-version-check \
    -r scripts/api-fuzz/requirements.txt -c scripts/api-fuzz/constraints.txt
echo "schemathesis $("$VENV/bin/st" --version | sed 's/.*version //'), openapi-spec-validator $("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("openapi-spec-validator"))')"

# --- server ------------------------------------------------------------------------------------
build_server "$SCRATCH"
echo '{}' >"$WORK/config.json" # no config file settings: built-in defaults

PORT=""
BASE=""
# start_server LOG FLAG...: starts the server with FLAGs, waits until /healthz answers.
start_server() {
    local log=$1
    shift
    : >"$log" # exists before the server writes to it: it is read at once
    "$BIN" --host 127.0.0.1 --port 0 --config "$WORK/config.json" --metrics-enabled true \
        --log-level info "$@" >"$log" 2>&1 &
    SERVER_PID=$!
    await_server "$log" "$SERVER_PID"
    BASE="http://127.0.0.1:$PORT"
}

# stop_server: SIGTERM, and the server must exit 0 (it was alive all along).
stop_server() {
    kill -0 "$SERVER_PID" 2>/dev/null || fail "the server died during the run"
    kill -TERM "$SERVER_PID"
    wait "$SERVER_PID" || fail "the server did not stop cleanly (exit $?)"
    SERVER_PID=""
}

# write_config: the schemathesis configuration for the running server.
write_config() {
    local names
    names=$(curl -fsS --max-time 5 "$BASE/viewmodels" | "$VENV/bin/python" -c 'import json, sys; print(json.dumps(json.load(sys.stdin)["viewModels"]))')
    cat >"$WORK/schemathesis.toml" <<EOF
color = false
workers = 1
request-timeout = 5
hooks = "$ROOT/scripts/api-fuzz/hooks.py"

[cache]
enabled = false

# No secrets here, and a reproduction needs the real Idempotency-Key.
[output.sanitization]
enabled = false

[generation]
database = "none"

# 412: If-Match names another version; 422: an Idempotency-Key reused with another body
# (hooks.py fails any other 422 to a valid request).
[checks.positive_data_acceptance]
expected-statuses = ["2XX", "3XX", 401, 403, 404, 409, 412, 422, 429]

# schemathesis's own list, and 414: a query too large for the connection's memory (hundreds of
# view-model names) is refused before routing (docs/http-api.md, "Query size").
[checks.negative_data_rejection]
expected-statuses = [400, 401, 403, 404, 405, 406, 409, 414, 415, 422, 428, 429, "5XX"]

# DELETE /stores/default is a valid request the server rightly refuses with the documented 405:
# the store default serves the root routes and always exists.
[[operations]]
include-path = "/stores/{store}"
include-method = "DELETE"

[operations.checks.positive_data_acceptance]
expected-statuses = ["2XX", "3XX", 401, 403, 404, 405, 409, 412, 422, 429]

EOF
    # GET /events and the view-model streams never end, at the root and under /stores/{store}:
    # read them up to their first event.
    local prefix
    for prefix in "" "/stores/{store}"; do
        cat >>"$WORK/schemathesis.toml" <<EOF

[[operations]]
include-path = "$prefix/events"
max-stream-events = 1
request-timeout = 2

[[operations]]
include-path = "$prefix/viewmodels/events"
max-stream-events = 1
request-timeout = 2
EOF
        [ "$names" != "[]" ] || continue
        cat >>"$WORK/schemathesis.toml" <<EOF

[[operations]]
include-path = "$prefix/viewmodels/{name}"
parameters = { "path.name" = { dictionary = "viewmodels", probability = 0.8 } }

[[operations]]
include-path = "$prefix/viewmodels/{name}/events"
parameters = { "path.name" = { dictionary = "viewmodels", probability = 0.8 } }
max-stream-events = 1
request-timeout = 2
EOF
    done
    if [ "$names" != "[]" ]; then
        cat >>"$WORK/schemathesis.toml" <<EOF

[dictionaries.viewmodels]
values = $names
EOF
    fi
}

# fuzz NAME MODE: one schemathesis run against the running server; prints its summary.
fuzz() {
    local name=$1 mode=$2 status=0
    (cd "$WORK" && timeout --kill-after=10 "$RUN_LIMIT" "$VENV/bin/st" --config-file "$WORK/schemathesis.toml" \
        run "$BASE/openapi.json" --checks all --mode "$mode" --max-examples "$EXAMPLES" --seed "$SEED" \
        --report har,ndjson --report-har-path "$WORK/$name.har" --report-ndjson-path "$WORK/$name.ndjson") \
        >"$WORK/$name.log" 2>&1 || status=$?
    if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
        tail -30 "$WORK/$name.log" >&2
        fail "$name: schemathesis did not finish within $RUN_LIMIT s"
    fi
    if [ "$status" -ne 0 ]; then
        awk '/^=+ (ERRORS|FAILURES) =+$/ { shown = 1 } shown' "$WORK/$name.log" >&2
        grep -q '= SUMMARY =' "$WORK/$name.log" || tail -40 "$WORK/$name.log" >&2
        fail "$name: schemathesis found failures (seed $SEED)"
    fi
    echo "--- $name: schemathesis summary"
    awk '/^=+ (WARNINGS|SUMMARY) =+$/ { shown = 1 } /^Reports:$|^  - [A-Z]+: / { next } shown' "$WORK/$name.log"
    "$VENV/bin/python" scripts/api-fuzz/checks.py "$WORK/$name.ndjson"
}

# fuzz_server NAME FLAG...: the whole check against one server.
fuzz_server() {
    local name=$1
    shift
    echo "=== $name server ($*)"
    start_server "$WORK/$name-server.log" "$@"
    curl -fsS --max-time 5 -o "$WORK/$name-openapi.json" "$BASE/openapi.json"
    "$VENV/bin/openapi-spec-validator" --schema 3.1 "$WORK/$name-openapi.json" \
        || fail "$name: GET /openapi.json is not a valid OpenAPI 3.1 document"
    write_config

    local mode
    for mode in all negative; do
        "$VENV/bin/python" scripts/api-fuzz/account.py snapshot "$BASE" >"$WORK/$name-$mode-before.json"
        fuzz "$name-$mode" "$mode"
        "$VENV/bin/python" scripts/api-fuzz/account.py check "$BASE" "$WORK/$name-openapi.json" \
            "$WORK/$name-$mode-before.json" "$WORK/$name-$mode.har"
    done
    stop_server
}

echo "seed $SEED, $EXAMPLES examples per operation and phase"
started=$SECONDS
fuzz_server in-memory --in-memory
fuzz_server durable --data-dir "$WORK/data"
echo "PASS: schemathesis found nothing on the in-memory and durable servers; the state changed only by accepted actions ($((SECONDS - started)) s, seed $SEED)"
