#!/usr/bin/env bash
# The real-browser test of the inspector page, GET /inspector (issue 15, "How it is checked").
#
# Builds remvvm-server (debug) and Benchmarks/large-state-server (release: a debug build cannot
# encode a 10,000-item state 100 times a second, so its event hub, not the page, would fall
# behind), then runs scripts/browser-test/inspector_driver.py, which starts the servers itself on
# free ports of 127.0.0.1 (remvvm-server durable, with a read+dispatch and a read-only token drawn
# for this run, so that it can stop it and start it again on the same port and data) and drives
# Debian's headless Chromium through Debian's chromedriver and selenium: the token dialog, a
# dispatch through the form (version, highlighted tree row, log entry), a payload that is not JSON
# caught before sending, a server problem shown, actions selected in the log (patch and state after
# them, kept by the page and replayed by the server), a view-model command when the server lists
# commands (a printed note when it lists none), the health figures, the reconnect after a server
# restart (Last-Event-ID, said on the page), keyboard and phone width, the read-only token without
# dispatch controls, and the 10,000-item state at 100 actions/s for 10 s: the version the page
# shows against the server's, main-thread long tasks and timer delay measured in the page.
#
#   scripts/inspector-test.sh
#   BROWSER_TEST_SCRATCH_PATH=.build scripts/inspector-test.sh   # what CI runs (reuses the build)
#
# Installs chromium, chromium-driver and python3-venv (Debian) when missing, and selenium at the
# version in scripts/browser-test/requirements.txt (its dependencies pinned in constraints.txt)
# into .build-venv-browser/, as scripts/browser-test.sh does. Screenshots, the figures
# (inspector-results.json) and, on failure, the page's record go to build/inspector/
# (INSPECTOR_TEST_OUT to change); inspector-laptop.png there is the one docs/inspector.png was
# taken from. Every process it starts is stopped by its PID; every wait has a deadline and the run
# is bounded by `timeout`.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

SCRATCH=${BROWSER_TEST_SCRATCH_PATH:-.build-browser}
OUT=${INSPECTOR_TEST_OUT:-$ROOT/build/inspector}
VENV="$ROOT/.build-venv-browser"
RUN_LIMIT=300 # seconds for the browser run

# The servers must run on their built-in defaults plus the settings the driver gives them.
while IFS= read -r name; do unset "$name"; done < <(compgen -e | grep '^REMVVM_' || true)

scripts/install-deps.sh python3 python3-venv curl chromium chromium-driver

WORK=$(mktemp -d /tmp/remvvm-inspector-test.XXXXXX)
. scripts/lib/server.sh
. scripts/lib/browser.sh
DRIVER_PID=""

cleanup() {
    local status=$?
    [ -n "$DRIVER_PID" ] && stop "$DRIVER_PID" timeout
    # What the driver could not stop itself: chromedriver, the browser, the servers.
    if [ -s "$WORK/pids" ]; then
        while read -r pid; do
            stop "$pid" chrom
            stop "$pid" remvvm-server
            stop "$pid" large-state-ser
        done <"$WORK/pids"
    fi
    wait 2>/dev/null || true
    if [ "$status" -eq 0 ]; then rm -rf "$WORK"; else echo "logs: $WORK" >&2; fi
}
trap cleanup EXIT

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

started=$SECONDS

# --- tools -------------------------------------------------------------------------------------
install_selenium "$VENV"

# --- servers -----------------------------------------------------------------------------------
build_server "$SCRATCH"
SERVER_BIN=$BIN
if ! REMVVM_BENCHMARKS=1 swift build -c release --product large-state-server --scratch-path "$SCRATCH" >"$WORK/build-large.log" 2>&1; then
    tail -40 "$WORK/build-large.log" >&2
    fail "the build of large-state-server failed"
fi
LARGE_BIN="$(REMVVM_BENCHMARKS=1 swift build -c release --scratch-path "$SCRATCH" --show-bin-path)/large-state-server"
echo "built in $((SECONDS - started)) s; $(/usr/bin/chromium --version 2>/dev/null)"

# --- browser -----------------------------------------------------------------------------------
mkdir -p "$OUT"
# build/ is not in .gitignore: this keeps the artifacts out of `git status` (it ignores itself too).
[ -e "$OUT/.gitignore" ] || echo '*' >"$OUT/.gitignore"
rm -f "$OUT"/*.png "$OUT"/*.json
token() { od -An -N24 -tx1 /dev/urandom | tr -d ' \n'; }
INSPECTOR_TEST_WRITE_TOKEN=$(token) INSPECTOR_TEST_READ_TOKEN=$(token) \
    timeout --kill-after=10 "$RUN_LIMIT" "$VENV/bin/python" scripts/browser-test/inspector_driver.py \
    --server-bin "$SERVER_BIN" --large-bin "$LARGE_BIN" --work "$WORK" --out "$OUT" --pids "$WORK/pids" &
DRIVER_PID=$!
status=0
wait "$DRIVER_PID" || status=$?
DRIVER_PID=""
if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    fail "the browser run did not finish within $RUN_LIMIT s"
fi
[ "$status" -eq 0 ] || fail "the inspector test failed (screenshots and figures: $OUT)"
echo "PASS: the inspector page, live in a real browser: token, dispatch, tree, log, time travel, reconnect, read-only, 10,000 items at 100 actions/s ($((SECONDS - started)) s)"
