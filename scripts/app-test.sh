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
# The setup it shares with the other browser tests (Debian's chromium, chromium-driver and
# python3-venv when missing, selenium at the version in scripts/browser-test/requirements.txt in
# .build-venv-browser/, the build, the cleanup) is scripts/lib/browser.sh. Screenshots go to
# build/app/ (APP_TEST_OUT to change). Every process it starts is stopped by its PID; every wait
# has a deadline and the run is bounded by `timeout`.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/browser.sh
browser_test_setup app
browser_test_out "${APP_TEST_OUT:-$ROOT/build/app}"
run_driver 240 "the app test" scripts/browser-test/app_driver.py \
    --server-bin "$BIN" --work "$WORK" --out "$OUT" --pids "$WORK/pids"
echo "PASS: the thin client at /app in a real browser: push, pop, Back, tabs, modal, reload, server restart, sessions ($((SECONDS - started)) s)"
