# Sourced by the real-browser tests (scripts/browser-test.sh, scripts/inspector-test.sh,
# scripts/app-test.sh): the setup they share. A script goes to the repository's root, sources this
# file, calls browser_test_setup, starts what is its own, and runs its driver with run_driver:
#
#   . scripts/lib/browser.sh
#   browser_test_setup app                  # ROOT SCRATCH VENV WORK BIN, fail, the cleanup trap
#   browser_test_out "${APP_TEST_OUT:-$ROOT/build/app}"   # OUT, emptied of the last run's files
#   run_driver 240 "the app test" scripts/browser-test/app_driver.py --work "$WORK" …
#
# Every process a test starts is stopped by its PID: the driver's (DRIVER_PID), and every PID the
# driver wrote to $WORK/pids (chromedriver, the browser, servers it started) that is still the
# process it was (names in BROWSER_TEST_PROCESSES); a script with processes of its own defines
# browser_test_cleanup, which the trap calls first.

# stop PID NAME: SIGTERM, up to 5 s to exit, then SIGKILL; only if PID is still the process NAME
# (the browser's PIDs are read from a file and may be gone).
stop() {
    local pid=$1 name=$2
    [ -n "$pid" ] && [ -r "/proc/$pid/comm" ] || return 0
    case "$(cat "/proc/$pid/comm" 2>/dev/null)" in "$name"*) ;; *) return 0 ;; esac
    kill -TERM "$pid" 2>/dev/null || return 0
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
}

# install_selenium VENV: the virtualenv with selenium at the version the browser tests pin
# (scripts/browser-test/requirements.txt, its dependencies in constraints.txt).
install_selenium() {
    if [ ! -x "$1/bin/python" ]; then
        python3 -m venv "$1"
    fi
    "$1/bin/pip" install --quiet --disable-pip-version-check \
        -r scripts/browser-test/requirements.txt -c scripts/browser-test/constraints.txt
}

# random_token: 24 random bytes in hex, a token for one run.
random_token() { od -An -N24 -tx1 /dev/urandom | tr -d ' \n'; }

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# The process names (prefixes of /proc/PID/comm) the trap may stop from $WORK/pids.
BROWSER_TEST_PROCESSES=${BROWSER_TEST_PROCESSES:-"chrom remvvm-server"}
DRIVER_PID=""

browser_test_cleanup_trap() {
    local status=$?
    if declare -F browser_test_cleanup >/dev/null; then browser_test_cleanup; fi
    [ -n "$DRIVER_PID" ] && stop "$DRIVER_PID" timeout
    # What the driver could not stop itself: chromedriver, the browser, the servers it started.
    if [ -n "${WORK:-}" ] && [ -s "$WORK/pids" ]; then
        local pid name
        while read -r pid; do
            for name in $BROWSER_TEST_PROCESSES; do stop "$pid" "$name"; done
        done <"$WORK/pids"
    fi
    wait 2>/dev/null || true
    if [ -n "${WORK:-}" ]; then
        if [ "$status" -eq 0 ]; then rm -rf "$WORK"; else echo "logs: $WORK" >&2; fi
    fi
}

# browser_test_setup NAME, called in the repository's root (ROOT): with the servers' environment
# cleared of REMVVM_* (they run on their built-in defaults plus what the test gives them), installs
# chromium, chromium-driver and python3-venv (Debian) when missing and selenium into
# .build-venv-browser/ (VENV), makes WORK (/tmp/remvvm-NAME-test.XXXXXX, removed after a passing
# run), sets the cleanup trap, builds remvvm-server (debug) into BROWSER_TEST_SCRATCH_PATH
# (default .build-browser; SCRATCH) and sets BIN to it. Prints what it used.
browser_test_setup() {
    ROOT=$(pwd)
    SCRATCH=${BROWSER_TEST_SCRATCH_PATH:-.build-browser}
    VENV="$ROOT/.build-venv-browser"
    local name
    while IFS= read -r name; do unset "$name"; done < <(compgen -e | grep '^REMVVM_' || true)
    scripts/install-deps.sh python3 python3-venv curl chromium chromium-driver
    WORK=$(mktemp -d "/tmp/remvvm-$1-test.XXXXXX")
    trap browser_test_cleanup_trap EXIT
    . scripts/lib/server.sh
    started=$SECONDS
    install_selenium "$VENV"
    build_server "$SCRATCH"
    echo "built in $((SECONDS - started)) s; $(/usr/bin/chromium --version 2>/dev/null);" \
        "$(/usr/bin/chromedriver --version | cut -d' ' -f1-2); selenium $("$VENV/bin/python" -c 'import selenium; print(selenium.__version__)')"
}

# browser_test_out DIR: sets OUT to DIR, made if missing, without the last run's screenshots and
# records. build/ is not in .gitignore: a .gitignore of its own keeps DIR out of `git status`.
browser_test_out() {
    OUT=$1
    mkdir -p "$OUT"
    [ -e "$OUT/.gitignore" ] || echo '*' >"$OUT/.gitignore"
    rm -f "$OUT"/*.png "$OUT"/*.json
}

# run_driver SECONDS WHAT SCRIPT ARGS…: runs the Python driver SCRIPT in VENV, bounded by
# `timeout` to SECONDS, and fails naming WHAT when it fails or runs out of time.
run_driver() {
    local limit=$1 what=$2 status=0
    shift 2
    timeout --kill-after=10 "$limit" "$VENV/bin/python" "$@" &
    DRIVER_PID=$!
    wait "$DRIVER_PID" || status=$?
    DRIVER_PID=""
    if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
        fail "the browser run did not finish within $limit s"
    fi
    [ "$status" -eq 0 ] || fail "$what failed (screenshots and records: $OUT)"
}
