#!/usr/bin/env bash
# The real-browser test of the thin client, GET /app (issue 36; docs/navigation.md).
#
# Builds remvvm-server (debug), then runs scripts/browser-test/app_driver.py, which starts the
# server itself on a free port of 127.0.0.1 (durable, no tokens, so that it can stop it and start
# it again on the same port and data) and drives Debian's headless Chromium through Debian's
# chromedriver and selenium: push, pop, the browser's Back button, a tab switch, the login modal
# (dismissed by Back, and by itself on a successful login), a reload, a server restart (the lost
# connection said plainly, the same screen after), and two browsers: two sessions independent of
# each other when the server has store routes (PUT /stores/{id}), one shared store without them.
#
#   scripts/app-test.sh
#   BROWSER_TEST_SCRATCH_PATH=.build scripts/app-test.sh   # what scripts/test.sh runs (reuses the build)
#
# Installs chromium, chromium-driver and python3-venv (Debian) when missing, and selenium at the
# version in scripts/browser-test/requirements.txt into .build-venv-browser/, as
# scripts/inspector-test.sh does. Screenshots go to build/app/ (APP_TEST_OUT to change). Every
# process it starts is stopped by its PID; every wait has a deadline and the run is bounded by
# `timeout`.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

SCRATCH=${BROWSER_TEST_SCRATCH_PATH:-.build-browser}
OUT=${APP_TEST_OUT:-$ROOT/build/app}
VENV="$ROOT/.build-venv-browser"
RUN_LIMIT=240 # seconds for the browser run

# The server must run on its built-in defaults plus the settings the driver gives it.
while IFS= read -r name; do unset "$name"; done < <(compgen -e | grep '^REMVVM_' || true)

scripts/install-deps.sh python3 python3-venv curl chromium chromium-driver

WORK=$(mktemp -d /tmp/remvvm-app-test.XXXXXX)
. scripts/lib/server.sh
. scripts/lib/browser.sh
DRIVER_PID=""

cleanup() {
    local status=$?
    [ -n "$DRIVER_PID" ] && stop "$DRIVER_PID" timeout
    # What the driver could not stop itself: chromedriver, the browsers, the server.
    if [ -s "$WORK/pids" ]; then
        while read -r pid; do
            stop "$pid" chrom
            stop "$pid" remvvm-server
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
install_selenium "$VENV"
build_server "$SCRATCH"
echo "built in $((SECONDS - started)) s; $(/usr/bin/chromium --version 2>/dev/null)"

mkdir -p "$OUT"
# build/ is not in .gitignore: this keeps the screenshots out of `git status` (it ignores itself too).
[ -e "$OUT/.gitignore" ] || echo '*' >"$OUT/.gitignore"
rm -f "$OUT"/*.png "$OUT"/*.json
timeout --kill-after=10 "$RUN_LIMIT" "$VENV/bin/python" scripts/browser-test/app_driver.py \
    --server-bin "$BIN" --work "$WORK" --out "$OUT" --pids "$WORK/pids" &
DRIVER_PID=$!
status=0
wait "$DRIVER_PID" || status=$?
DRIVER_PID=""
if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    fail "the browser run did not finish within $RUN_LIMIT s"
fi
[ "$status" -eq 0 ] || fail "the app test failed (screenshots: $OUT)"
echo "PASS: the thin client at /app in a real browser: push, pop, Back, tabs, modal, reload, server restart, sessions ($((SECONDS - started)) s)"
