# Sourced by the real-browser tests (scripts/browser-test.sh, scripts/inspector-test.sh).

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
