#!/usr/bin/env bash
# The real-browser test of CORS and access tokens (issue 12, "How it is checked").
#
# Builds remvvm-server from this checkout and starts it in memory on 127.0.0.1 (a free port) with
# two static tokens, one read+dispatch and one read-only (REMVVM_AUTH_TOKENS, random for each
# run), and --cors-allowed-origins naming one page origin. A small server in
# scripts/browser-test/driver.py serves scripts/browser-test/page.html on two more ports of
# 127.0.0.1: the listed origin and one that is not listed. Debian's headless Chromium, driven by
# Debian's chromedriver through selenium, loads the page from each origin. In plain JavaScript the
# page on the listed origin
#   (a) reads GET /events with EventSource, the token in ?access_token= and, on a second stream
#       with withCredentials, in the remvvmAuthorization cookie (which the driver set on the
#       server's origin, HttpOnly and SameSite=Strict: cookies belong to the host, not to the port,
#       so the page on another port of 127.0.0.1 is the same site and its credentialed requests
#       carry it);
#   (b) GETs /state (ETag readable) and POSTs an action with fetch, Authorization: Bearer and JSON
#       (a real preflight), then the same request with its Idempotency-Key again (exposed
#       Idempotent-Replayed: true);
#   (c) POSTs with the read-only token (403, WWW-Authenticate readable) and with none (401);
# and the page on the unlisted origin
#   (d) sees its POST and a simple GET rejected with TypeError and its EventSource fail.
# The driver waits for each page with WebDriverWait (bounded), asserts what it recorded (statuses,
# the versions both streams received after the POST, the readable headers), checks the server's
# side (its version, the preflights counted in GET /metrics), prints a summary ending in
# "browser-test: N passed, M failed" and exits non-zero on any failure.
#
#   scripts/browser-test.sh
#
# The setup it shares with the other browser tests is scripts/lib/browser.sh: Debian's chromium,
# chromium-driver and python3-venv when missing, selenium at the version in
# scripts/browser-test/requirements.txt (its dependencies pinned in constraints.txt) in
# .build-venv-browser/; nothing is downloaded besides those packages (the browser and the driver
# are /usr/bin/chromium and /usr/bin/chromedriver). Builds in .build-browser/
# (BROWSER_TEST_SCRATCH_PATH to change). Screenshots and what each page recorded go to
# build/browser/ (BROWSER_TEST_OUT to change). Every process it starts (the server, the page
# server, the driver, chromedriver and the browser) is stopped by its PID; it uses 127.0.0.1 only;
# every wait has a deadline and the whole browser run is bounded by `timeout`.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/browser.sh
SERVER_PID=""
PAGES_PID=""
# Called first by the cleanup trap: the two servers this script starts itself.
browser_test_cleanup() {
    [ -n "$PAGES_PID" ] && stop "$PAGES_PID" python
    [ -n "$SERVER_PID" ] && stop "$SERVER_PID" remvvm-server
    return 0
}
browser_test_setup browser
echo '{}' >"$WORK/config.json" # no config file settings: built-in defaults

# The two page origins first: the server's CORS list names one of them.
"$VENV/bin/python" scripts/browser-test/driver.py serve "$WORK/ports" >"$WORK/pages.log" 2>&1 &
PAGES_PID=$!
deadline=$((SECONDS + 20))
until [ -s "$WORK/ports" ]; do
    kill -0 "$PAGES_PID" 2>/dev/null || { cat "$WORK/pages.log" >&2; fail "the page server did not start"; }
    [ "$SECONDS" -lt "$deadline" ] || fail "the page server did not listen within 20 s"
    sleep 0.05
done
read -r LISTED_PORT UNLISTED_PORT <"$WORK/ports"
LISTED="http://127.0.0.1:$LISTED_PORT"
UNLISTED="http://127.0.0.1:$UNLISTED_PORT"

WRITE_TOKEN=$(random_token)
READ_TOKEN=$(random_token)
log="$WORK/server.log"
: >"$log" # exists before the server writes to it: it is read at once
REMVVM_AUTH_TOKENS="$WRITE_TOKEN=read+dispatch,$READ_TOKEN=read" \
    "$BIN" --host 127.0.0.1 --port 0 --in-memory --config "$WORK/config.json" --metrics-enabled true \
    --cors-allowed-origins "$LISTED" --log-level info >"$log" 2>&1 &
SERVER_PID=$!
await_server "$log" "$SERVER_PID"
SERVER="http://127.0.0.1:$PORT"
echo "server $SERVER (CORS: $LISTED), page origins: $LISTED (listed), $UNLISTED (not listed)"

browser_test_out "${BROWSER_TEST_OUT:-$ROOT/build/browser}"
BROWSER_TEST_WRITE_TOKEN=$WRITE_TOKEN BROWSER_TEST_READ_TOKEN=$READ_TOKEN \
    run_driver 180 "the browser test" scripts/browser-test/driver.py run \
    --server "$SERVER" --listed "$LISTED" --unlisted "$UNLISTED" --out "$OUT" --pids "$WORK/pids"

# The server must have stayed up and must stop cleanly.
kill -0 "$SERVER_PID" 2>/dev/null || fail "the server died during the run"
kill -TERM "$SERVER_PID"
wait "$SERVER_PID" || fail "the server did not stop cleanly (exit $?)"
SERVER_PID=""
echo "PASS: a real browser read events with access_token and the cookie, dispatched after a preflight, read 401/403 with WWW-Authenticate, and was refused from an unlisted origin ($((SECONDS - started)) s)"
