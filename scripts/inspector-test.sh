#!/usr/bin/env bash
# The real-browser test of the inspector page, GET /inspector (issue 15, "How it is checked").
#
# Builds remvvm-server (debug) and Benchmarks/large-state-server (release: a debug build cannot
# encode a 10,000-item state 100 times a second, so its event hub, not the page, would fall
# behind), then runs scripts/browser-test/inspector_driver.py, which starts the servers itself on
# free ports of 127.0.0.1 (remvvm-server durable, with a read+dispatch, a read-only and a
# read+dispatch+manage token drawn for this run, so that it can stop it and start it again on the same port and data) and drives
# Debian's headless Chromium through Debian's chromedriver and selenium: the token dialog, a
# dispatch through the form (version, highlighted tree row, log entry), a payload that is not JSON
# caught before sending, a server problem shown, actions selected in the log (patch and state after
# them, kept by the page and replayed by the server), a view-model command when the server lists
# commands (a printed note when it lists none), the health figures, the reconnect after a server
# restart (Last-Event-ID, said on the page), keyboard and phone width, the read-only token without
# dispatch controls, the store picker (/inspector?store=…, scripts/browser-test/inspector_stores.py:
# list, filter, More, pick, dispatch into it, reload, an unknown id, a token without manage), and
# the 10,000-item state at 100 actions/s for 10 s: the version the page shows against the
# server's, main-thread long tasks and timer delay measured in the page.
#
#   scripts/inspector-test.sh
#   BROWSER_TEST_SCRATCH_PATH=.build scripts/inspector-test.sh   # what CI runs (reuses the build)
#
# The setup it shares with the other browser tests (Debian's chromium, chromium-driver and
# python3-venv when missing, selenium at the version in scripts/browser-test/requirements.txt in
# .build-venv-browser/, the build, the cleanup) is scripts/lib/browser.sh. Screenshots, the figures
# (inspector-results.json) and, on failure, the page's record go to build/inspector/
# (INSPECTOR_TEST_OUT to change); inspector-laptop.png there is the one docs/inspector.png was
# taken from. Every process it starts is stopped by its PID; every wait has a deadline and the run
# is bounded by `timeout`.
set -euo pipefail
cd "$(dirname "$0")/.."
BROWSER_TEST_PROCESSES="chrom remvvm-server large-state-ser"
. scripts/lib/browser.sh
browser_test_setup inspector

if ! REMVVM_BENCHMARKS=1 swift build -c release --product large-state-server --scratch-path "$SCRATCH" >"$WORK/build-large.log" 2>&1; then
    tail -40 "$WORK/build-large.log" >&2
    fail "the build of large-state-server failed"
fi
LARGE_BIN="$(REMVVM_BENCHMARKS=1 swift build -c release --scratch-path "$SCRATCH" --show-bin-path)/large-state-server"
echo "large-state-server built ($((SECONDS - started)) s)"

browser_test_out "${INSPECTOR_TEST_OUT:-$ROOT/build/inspector}"
INSPECTOR_TEST_WRITE_TOKEN=$(random_token) INSPECTOR_TEST_READ_TOKEN=$(random_token) INSPECTOR_TEST_MANAGE_TOKEN=$(random_token) \
    run_driver 300 "the inspector test" scripts/browser-test/inspector_driver.py \
    --server-bin "$BIN" --large-bin "$LARGE_BIN" --work "$WORK" --out "$OUT" --pids "$WORK/pids"
echo "PASS: the inspector page, live in a real browser: token, dispatch, tree, log, time travel, reconnect, read-only, store picker, 10,000 items at 100 actions/s ($((SECONDS - started)) s)"
