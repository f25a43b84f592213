#!/usr/bin/env bash
# Smoke test of Examples/TodoServer, a second domain served through ReMVVMServerCommand: builds it
# (its own package, depending on this one by path), starts it on a free port with a fresh data
# directory, dispatches an action, runs a view-model command, reads the state and the view model,
# checks that its middleware trims titles and refuses a blank one, stops it by PID (SIGTERM, exit
# 0), starts it again on the same directory and checks that the state and its version survived.
#
#   scripts/example-test.sh
#
# Every server it starts is stopped by its PID; it uses 127.0.0.1 only.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh curl

WORK=$(mktemp -d /tmp/remvvm-example.XXXXXX)
EXAMPLE=Examples/TodoServer
SERVER_PID=""
cleanup() {
    [ -n "$SERVER_PID" ] && kill -9 "$SERVER_PID" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
fail() {
    echo "FAIL: $*" >&2
    [ -f "$WORK/server.log" ] && tail -20 "$WORK/server.log" >&2
    exit 1
}
# shellcheck source=lib/server.sh
. scripts/lib/server.sh

started=$SECONDS
if ! swift build --package-path "$EXAMPLE" --product todo-server >"$WORK/build.log" 2>&1; then
    tail -40 "$WORK/build.log" >&2
    fail "the build of $EXAMPLE failed"
fi
if grep -q "warning:" "$WORK/build.log"; then
    grep -E "warning:" "$WORK/build.log" >&2
    fail "the build of $EXAMPLE has warnings"
fi
BIN="$(swift build --package-path "$EXAMPLE" --show-bin-path)/todo-server"
echo "built $BIN in $((SECONDS - started)) s"

# start: the server on a free port with the data directory, log in $WORK/server.log; sets PORT.
start() {
    : >"$WORK/server.log"
    "$BIN" --port 0 --data-dir "$WORK/data" >"$WORK/server.log" 2>&1 &
    SERVER_PID=$!
    await_server "$WORK/server.log" "$SERVER_PID"
}

# stop_server: SIGTERM to the server's PID; it must exit 0 within 10 s.
stop_server() {
    kill -TERM "$SERVER_PID"
    local deadline=$((SECONDS + 10)) status=0
    while kill -0 "$SERVER_PID" 2>/dev/null; do
        [ "$SECONDS" -lt "$deadline" ] || fail "the server did not stop within 10 s of SIGTERM"
        sleep 0.1
    done
    wait "$SERVER_PID" || status=$?
    SERVER_PID=""
    [ "$status" = 0 ] || fail "the server exited $status after SIGTERM, not 0"
}

# expect WHAT ACTUAL EXPECTED
expect() {
    [ "$2" = "$3" ] || fail "$1: expected $3, got $2"
    echo "ok: $1"
}

# post PATH BODY: prints the status and the body on one line.
post() {
    curl -sS -X POST -H 'Content-Type: application/json' --data "$2" \
        -w ' %{http_code}' "http://127.0.0.1:$PORT$1"
}
get() { curl -fsS "http://127.0.0.1:$PORT$1"; }
etag() { curl -fsS -D - -o /dev/null "http://127.0.0.1:$PORT$1" | tr -d '\r' | sed -n 's/^[Ee][Tt]ag: //p'; }

expect "--help names the example's executable and its config file" \
    "$("$BIN" serve --help | grep -c -e 'USAGE: todo-server serve' -e 'Config/todo-server.json')" 2

start
expect "an action (its title trimmed by the domain's middleware)" \
    "$(post /actions '{"type": "add", "payload": {"title": "  Buy milk "}}')" '{"version":1} 200'
expect "a view-model command" \
    "$(post /viewmodels/todos/commands/add '{"title": "Call Bob"}')" '{"version":2} 200'
expect "a second action" "$(post /actions '{"type": "complete", "payload": {"id": 1}}')" '{"version":3} 200'
for path in /actions /viewmodels/todos/commands/add; do
    body='{"title": "  "}'
    [ "$path" = /actions ] && body='{"type": "add", "payload": {"title": "  "}}'
    refused=$(post "$path" "$body")
    expect "a blank title is refused by the middleware ($path)" "${refused##* }" 422
    case "$refused" in *"the title is blank"*) ;; *) fail "the refusal does not give the reason: $refused" ;; esac
done
state=$(get /state)
expect "the state" "$state" \
    '{"items":[{"done":true,"id":1,"title":"Buy milk"},{"done":false,"id":2,"title":"Call Bob"}],"nextID":3}'
todos=$(get /viewmodels/todos)
expect "the view model" "$todos" '{"items":["[x] Buy milk","[ ] Call Bob"],"remaining":"1 of 2 left"}'
expect "the log lines carry the example's name" "$(grep -c ' todo-server: ' "$WORK/server.log" | tr -d ' ' | sed 's/^[1-9][0-9]*$/some/')" some
stop_server

start
expect "the state after a restart" "$(get /state)" "$state"
expect "the version after a restart" "$(etag /state)" '"3"'
expect "the view model after a restart" "$(get /viewmodels/todos)" "$todos"
expect "versions continue after a restart" "$(post /viewmodels/todos/commands/clear-completed '')" '{"version":4} 200'
stop_server

echo "example test passed in $((SECONDS - started)) s"
