#!/usr/bin/env bash
# End-to-end check of the container image, with podman.
#
#   scripts/container-test.sh            # build the image from this checkout and test it
#
# 1. finds the base images the Dockerfile names, or makes local stand-ins when
#    they cannot be pulled (scripts/container-base-images.sh: no registry is
#    reachable here),
# 2. builds the Dockerfile (with stand-ins: passed as build arguments, and the
#    host's Swift toolchain and package mirror mounted into the build),
# 3. runs the image and checks: every shared library resolves, it runs as a
#    non-root user, /healthz answers, the image's HEALTHCHECK passes, a POSTed
#    action changes GET /state, GET /events streams the new state, and
#    `podman stop` (SIGTERM) ends it with exit code 0 in under 10 s; a new
#    container on the same volume has the same state;
# 4. runs two containers of the image as replicas of one shared log in a
#    throwaway PostgreSQL on the host (its unix socket mounted into them) and
#    checks that an action posted to one is applied by the other.
#    (scripts/compose-test.sh runs the compose file on a container network.)
#
# Prints PASS/FAIL per check and a summary; exits non-zero on any failure.
# Every container it starts is removed on exit.
#
# Environment:
#   IMAGE       tag to build/test   (default localhost/remvvm-server:latest)
#   PORT        host port to use    (default 18080; --network host is used)
#   SKIP_BUILD=1  test an existing IMAGE without building
#   LOG_DIR     where build/run logs go (default /tmp/remvvm-container-test)
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
IMAGE="${IMAGE:-localhost/remvvm-server:latest}"
PORT="${PORT:-18080}"
LOG_DIR="${LOG_DIR:-/tmp/remvvm-container-test}"
SKIP_BUILD="${SKIP_BUILD:-0}"
STOP_LIMIT_S=10
NAME="remvvm-container-test-$$"
VOLUME="remvvm-container-test-data-$$"
BASE="http://127.0.0.1:${PORT}"

# This machine: the default OCI runtime (crun) and default ulimits fail, so
# use runc and explicit ulimits; host networking keeps the checks simple.
# There is no systemd either, so podman cannot start healthcheck timers (it
# logs an error and goes on): the test runs the image's HEALTHCHECK by hand.
pm() { podman --runtime runc "$@"; }
RUN_OPTS=(--network host --ulimit nofile=1024:4096 --ulimit nproc=1024:4096)

mkdir -p "$LOG_DIR"
started_containers=()
bg_pids=()
t_start=$(date +%s)

cleanup() {
    local pid c
    for pid in "${bg_pids[@]}"; do kill "$pid" 2>/dev/null; done
    for c in "${started_containers[@]}"; do pm rm -f -t 0 "$c" >/dev/null 2>&1; done
    pm volume rm -f "$VOLUME" "$VOLUME-r1" "$VOLUME-r2" >/dev/null 2>&1
    [ -z "${PG_WORK:-}" ] || { stop_postgres "$PG_WORK/pg"; rm -rf "$PG_WORK"; }
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# shellcheck source=lib/checks.sh
. "$ROOT/scripts/lib/checks.sh"
log()  { printf '[container-test] %s\n' "$*"; }

summary() {
    local took=$(( $(date +%s) - t_start ))
    echo
    log "image: $IMAGE  ($(podman image inspect --format '{{.Size}}' "$IMAGE" 2>/dev/null \
        | awk '{printf "%.1f MB", $1/1000/1000}'))  logs: $LOG_DIR  time: ${took}s"
    for f in "${failures[@]}"; do log "failed: $f"; done
    checks_summary "container checks"
}

# Every build after a source change leaves the previous final image and the
# previous build-stage image (~0.9 GB together) behind, untagged. Remove those,
# and only those: untagged images whose last step is this Dockerfile's build
# or ENTRYPOINT step and that this build did not use (its layer cache stays).
prune_stale_images() {
    local used id last keep u
    used="$(grep -oE '^--> (Using cache )?[0-9a-f]{11,64}' "$LOG_DIR/build.log" | awk '{print $NF}')"
    for id in $(podman images -q --no-trunc --filter dangling=true 2>/dev/null | sed 's/^sha256://'); do
        keep=""
        for u in $used; do [[ "$id" == "$u"* ]] && keep=1 && break; done
        [ -z "$keep" ] || continue
        last="$(podman image inspect --format '{{range .History}}{{.CreatedBy}}{{"\n"}}{{end}}' "$id" 2>/dev/null \
            | grep -v '^$' | tail -n 1)"
        case "$last" in
            *'swift build -c release --package-path "$PACKAGE_PATH"'*|*'ENTRYPOINT ["/usr/local/bin/server"]'*)
                podman rmi "$id" >/dev/null 2>&1 || true ;;
        esac
    done
}

# ------------------------------------------------------------- prepare -----
[ "$(id -u)" = 0 ] || { echo "container-test: run as root (rootful podman)" >&2; exit 2; }
command -v curl >/dev/null || "$ROOT/scripts/install-deps.sh" curl
if curl -s --max-time 1 -o /dev/null "$BASE/" 2>/dev/null; then
    echo "container-test: port $PORT is already in use; set PORT=" >&2; exit 2
fi

if [ "$SKIP_BUILD" != 1 ]; then
    t0=$(date +%s)
    if base_images=$(bash "$ROOT/scripts/container-base-images.sh"); then
        pass "base images present ($(( $(date +%s) - t0 ))s): $(echo $base_images)"
    else
        abort "base images (scripts/container-base-images.sh)"
    fi
    build_args=()
    while IFS= read -r argument; do build_args+=(--build-arg "$argument"); done <<<"$base_images"

    volumes=()
    if grep -q '^BUILDER_IMAGE=localhost/remvvm-standin/' <<<"$base_images"; then
        # The stand-in's PATH points into the host's toolchain; its gitconfig maps github.com
        # to the host's package mirror.
        toolchain=$("$ROOT/scripts/swift-toolchain.sh") || abort "the host's Swift toolchain (scripts/swift-toolchain.sh)"
        volumes=(-v "$toolchain:$toolchain:ro")
        [ -d /opt/swift-packages ] && volumes+=(-v /opt/swift-packages:/opt/swift-packages:ro)
    fi

    t0=$(date +%s)
    log "podman build -t $IMAGE $ROOT  (log: $LOG_DIR/build.log)"
    if podman build --isolation chroot --network host --pull=never --format docker \
            "${build_args[@]}" "${volumes[@]}" -t "$IMAGE" -f "$ROOT/Dockerfile" "$ROOT" >"$LOG_DIR/build.log" 2>&1; then
        pass "image builds ($(( $(date +%s) - t0 ))s)"
        prune_stale_images
    else
        tail -n 40 "$LOG_DIR/build.log"
        abort "image builds (see $LOG_DIR/build.log)"
    fi
fi
podman image exists "$IMAGE" || abort "image $IMAGE exists"

# --------------------------------------------------- static image checks ---
ldd_out="$(pm run --rm "${RUN_OPTS[@]}" --entrypoint ldd "$IMAGE" \
    /usr/local/bin/server 2>"$LOG_DIR/ldd.err")"
printf '%s\n' "$ldd_out" >"$LOG_DIR/ldd.txt"
if [ -n "$ldd_out" ] && ! grep -q 'not found' <<<"$ldd_out" && ! grep -q 'libswiftCore' <<<"$ldd_out"; then
    pass "all shared libraries resolve, Swift stdlib static ($(grep -c '=>' <<<"$ldd_out") dynamic libs)"
else
    printf '%s\n' "$ldd_out"
    fail "shared libraries resolve (ldd /usr/local/bin/server)"
fi

image_user="$(podman image inspect --format '{{.Config.User}}' "$IMAGE")"
case "${image_user%%:*}" in
    ""|0|root) fail "image USER is non-root (Config.User='$image_user')" ;;
    *)         pass "image USER is non-root (Config.User=$image_user)" ;;
esac

# The image listens on all interfaces by default; the test itself overrides
# REMVVM_HOST to loopback because it runs with host networking.
image_env="$(podman image inspect --format '{{range .Config.Env}}{{println .}}{{end}}' "$IMAGE")"
if grep -qx 'REMVVM_HOST=0.0.0.0' <<<"$image_env"; then
    pass "image listens on 0.0.0.0 by default (REMVVM_HOST=0.0.0.0)"
else
    fail "image listens on 0.0.0.0 by default (no REMVVM_HOST=0.0.0.0 in Config.Env)"
fi

# ----------------------------------------------------------------- run -----
log "podman run $IMAGE on $BASE"
pm volume create "$VOLUME" >/dev/null
if ! pm run -d --name "$NAME" "${RUN_OPTS[@]}" -v "$VOLUME":/app/data \
        -e REMVVM_PORT="$PORT" -e REMVVM_HOST=127.0.0.1 "$IMAGE" >"$LOG_DIR/run.log" 2>&1; then
    cat "$LOG_DIR/run.log"
    abort "container starts"
fi
started_containers+=("$NAME")

ready=""
for _ in $(seq 1 60); do
    state="$(pm inspect --format '{{.State.Status}}' "$NAME" 2>/dev/null)"
    [ "$state" = running ] || break
    if body="$(curl -fsS --max-time 2 "$BASE/healthz" 2>/dev/null)"; then ready=1; break; fi
    sleep 0.5
done
if [ -n "$ready" ] && grep -Eq '"status"[[:space:]]*:[[:space:]]*"ok"' <<<"$body"; then
    pass "container starts and GET /healthz answers 200: $body"
else
    pm logs "$NAME" 2>&1 | tail -n 30
    abort "container starts and GET /healthz answers (state: ${state:-?})"
fi

uid="$(pm exec "$NAME" id -u 2>/dev/null)"
if [ -n "$uid" ] && [ "$uid" != 0 ]; then
    pass "server process runs as non-root (id -u = $uid)"
else
    fail "server process runs as non-root (id -u = '${uid}')"
fi

if [ -n "$(podman image inspect --format '{{if .Config.Healthcheck}}{{.Config.Healthcheck.Test}}{{end}}' "$IMAGE" 2>/dev/null)" ]; then
    if hc="$(pm healthcheck run "$NAME" 2>&1)"; then
        pass "image HEALTHCHECK passes (${hc:-healthy})"
    else
        fail "image HEALTHCHECK passes ($hc)"
    fi
else
    fail "image has a HEALTHCHECK (build with --format docker)"
fi

# SSE subscriber first, so it sees the initial state and then the change.
events="$LOG_DIR/events.txt"
: >"$events"
curl -sS -N --max-time 30 -H 'Accept: text/event-stream' "$BASE/events" >"$events" 2>"$LOG_DIR/events.err" &
bg_pids+=($!)
for _ in $(seq 1 50); do grep -q '^data:' "$events" && break; sleep 0.1; done

counter_is() { grep -Eq "\"counter\"[[:space:]]*:[[:space:]]*$1([^0-9]|\$)" <<<"$2"; }

state0="$(curl -sS --max-time 5 "$BASE/state" 2>&1)"
if counter_is 0 "$state0"; then
    pass "GET /state starts at counter 0: $state0"
else
    fail "GET /state starts at counter 0 (got: $state0)"
fi

post="$(curl -sS --max-time 5 -w '\n%{http_code}' -X POST -H 'Content-Type: application/json' \
    -d '{"type":"increase"}' "$BASE/actions" 2>&1)"
post_code="${post##*$'\n'}"
post_body="${post%$'\n'*}"
version="$(sed -nE 's/.*"version"[[:space:]]*:[[:space:]]*([0-9]+).*/\1/p' <<<"$post_body" | head -n1)"
if [ "$post_code" = 200 ] && [ -n "$version" ]; then
    pass "POST /actions {\"type\":\"increase\"} answers 200: $post_body"
else
    fail "POST /actions answers 200 with a version (got $post_code: $post_body)"
fi

state1="$(curl -sS --max-time 5 "$BASE/state" 2>&1)"
if counter_is 1 "$state1"; then
    pass "GET /state shows the action (counter 0 -> 1): $state1"
else
    fail "GET /state shows the action (counter 0 -> 1) (got: $state1)"
fi

# An SSE block with `event: state`, `id: <version>` (the durable default; in memory: <version>-<instance>) and
# data with counter 1.
sse_has_new_state() {
    awk -v want="${version:-1}" '
        BEGIN { RS = ""; FS = "\n"; found = 0 }
        {
            gsub(/\r/, "")
            ev = ""; id = ""; data = ""
            for (i = 1; i <= NF; i++) {
                if ($i ~ /^event:/) { ev = $i; sub(/^event: ?/, "", ev) }
                else if ($i ~ /^id:/) { id = $i; sub(/^id: ?/, "", id); sub(/-[0-9a-f]+$/, "", id) }
                else if ($i ~ /^data:/) { d = $i; sub(/^data: ?/, "", d); data = data d }
            }
            if (ev == "state" && id == want && data ~ /"counter"[[:space:]]*:[[:space:]]*1([^0-9]|$)/) found = 1
        }
        END { exit found ? 0 : 1 }' "$events"
}
sse_ok=""
for _ in $(seq 1 50); do
    if sse_has_new_state; then sse_ok=1; break; fi
    sleep 0.1
done
kill "${bg_pids[@]}" 2>/dev/null; wait 2>/dev/null; bg_pids=()
if [ -n "$sse_ok" ]; then
    pass "GET /events streams it (event: state, id: ${version:-1}, counter 1)"
else
    echo "--- /events output:"; head -c 2000 "$events"; echo
    fail "GET /events streams the new state (event: state, id: ${version:-1})"
fi

# ---------------------------------------------------------------- stop -----
t0=$(date +%s%N)
pm stop -t "$STOP_LIMIT_S" "$NAME" >/dev/null 2>&1
stop_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
exit_code="$(pm inspect --format '{{.State.ExitCode}}' "$NAME" 2>/dev/null)"
pm logs "$NAME" >"$LOG_DIR/server.log" 2>&1
if [ "$exit_code" = 0 ] && [ "$stop_ms" -lt $((STOP_LIMIT_S * 1000)) ]; then
    pass "podman stop (SIGTERM) exits 0 in ${stop_ms} ms"
else
    tail -n 20 "$LOG_DIR/server.log"
    fail "podman stop (SIGTERM) exits 0 in < ${STOP_LIMIT_S} s (exit code ${exit_code:-?} after ${stop_ms} ms)"
fi

# ------------------------------------------------------ data survives -----
# The store lives in the named volume: a new container on it has the same state and version.
state_before="$(grep -o '"counter"[^,}]*' "$events" | tail -1)"
pm rm -f "$NAME" >/dev/null 2>&1
if pm run -d --name "$NAME-2" "${RUN_OPTS[@]}" -v "$VOLUME":/app/data \
        -e REMVVM_PORT="$PORT" -e REMVVM_HOST=127.0.0.1 "$IMAGE" >"$LOG_DIR/run2.log" 2>&1; then
    started_containers+=("$NAME-2")
    restored=""
    for _ in $(seq 1 60); do
        if restored="$(curl -fsS -D "$LOG_DIR/state2.head" --max-time 2 "$BASE/state" 2>/dev/null)"; then break; fi
        sleep 0.5
    done
    etag="$(grep -i '^etag:' "$LOG_DIR/state2.head" 2>/dev/null | tr -d '\r' | sed 's/^[^:]*: *//')"
    if counter_is 1 "$restored" && [ "$etag" = "\"${version:-1}\"" ]; then
        pass "a new container on the volume has the same state after podman rm (counter 1, ETag $etag)"
    else
        pm logs "$NAME-2" 2>&1 | tail -n 20
        fail "a new container on the volume has the same state (got: ${restored:-nothing}, ETag ${etag:-none}; before: $state_before)"
    fi
    pm stop -t "$STOP_LIMIT_S" "$NAME-2" >/dev/null 2>&1
else
    cat "$LOG_DIR/run2.log"
    fail "a second container starts on the same volume"
fi

# ------------------------------------------------------------ replicas -----
# Two containers of the image following one shared log in PostgreSQL (journal postgres): the
# image holds libpq and takes its settings from the environment, as deploy/compose.replicas.yaml
# gives them. PostgreSQL runs on the host (Debian's package, scripts/lib/postgres.sh); its socket
# directory is mounted into the containers.
"$ROOT/scripts/install-deps.sh" postgresql >/dev/null
. "$ROOT/scripts/lib/postgres.sh"
PG_WORK=$(mktemp -d /tmp/remvvm-container-pg.XXXXXX)
chmod 755 "$PG_WORK"
pg_port=$((PORT + 2))
start_postgres "$PG_WORK/pg" "$pg_port"
replica_ports=($((PORT + 3)) $((PORT + 4)))
for index in 0 1; do
    name="r$((index + 1))"
    if ! pm run -d --name "$NAME-$name" "${RUN_OPTS[@]}" -v "$VOLUME-$name":/app/data -v "$PG_WORK/pg":/pgsocket \
            -e REMVVM_PORT="${replica_ports[$index]}" -e REMVVM_HOST=127.0.0.1 -e REMVVM_JOURNAL=postgres \
            -e REMVVM_POSTGRES_URL="host=/pgsocket port=$pg_port user=postgres dbname=postgres" \
            -e REMVVM_REPLICA_NAME="$name" "$IMAGE" >"$LOG_DIR/run-$name.log" 2>&1; then
        cat "$LOG_DIR/run-$name.log"
        fail "replica $name starts"
    fi
    started_containers+=("$NAME-$name")
done
replicas_ready=1
for index in 0 1; do
    health=""
    for _ in $(seq 1 60); do
        if health="$(curl -fsS --max-time 2 "http://127.0.0.1:${replica_ports[$index]}/healthz" 2>/dev/null)"; then break; fi
        sleep 0.5
    done
    if grep -q '"status":"ok"' <<<"$health" && grep -q "\"replica\":\"r$((index + 1))\"" <<<"$health"; then
        pass "replica r$((index + 1)) follows the shared log (/healthz: $health)"
    else
        replicas_ready=0
        pm logs "$NAME-r$((index + 1))" 2>&1 | tail -n 20
        fail "replica r$((index + 1)) follows the shared log (/healthz: ${health:-no answer})"
    fi
done
if [ "$replicas_ready" = 1 ]; then
    posted="$(curl -fsS --max-time 10 -H 'Content-Type: application/json' -d '{"type":"increase"}' \
        "http://127.0.0.1:${replica_ports[0]}/actions" 2>&1)"
    seen=""
    for _ in $(seq 1 40); do
        seen="$(curl -fsS --max-time 2 "http://127.0.0.1:${replica_ports[1]}/state" 2>/dev/null)"
        counter_is 1 "$seen" && break
        sleep 0.25
    done
    if grep -q '"version":1' <<<"$posted" && counter_is 1 "$seen"; then
        pass "an action posted to replica r1 ($posted) is applied by replica r2 (GET /state: $seen)"
    else
        fail "an action posted to replica r1 is applied by replica r2 (POST: ${posted:-nothing}; r2 state: ${seen:-nothing})"
    fi
    t0=$(date +%s%N)
    pm stop -t "$STOP_LIMIT_S" "$NAME-r2" >/dev/null 2>&1
    stop_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    exit_code="$(pm inspect --format '{{.State.ExitCode}}' "$NAME-r2" 2>/dev/null)"
    if [ "$exit_code" = 0 ] && [ "$stop_ms" -lt $((STOP_LIMIT_S * 1000)) ]; then
        pass "podman stop of replica r2 exits 0 in ${stop_ms} ms"
    else
        pm logs "$NAME-r2" 2>&1 | tail -n 20
        fail "podman stop of replica r2 exits 0 in < ${STOP_LIMIT_S} s (exit code ${exit_code:-?} after ${stop_ms} ms)"
    fi
fi

summary
