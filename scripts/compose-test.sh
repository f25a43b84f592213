#!/usr/bin/env bash
# Runs the replica example of docs/replicas.md for real: deploy/compose.replicas.yaml (PostgreSQL 15 and three
# replicas) with podman-compose, on a container network with the file's own service names and ports.
#
#   scripts/container-test.sh && scripts/compose-test.sh
#
# Checks: the stack comes up and every replica answers /healthz on 127.0.0.1:8081-8083; actions
# posted to all three are applied by all three in one order (the same version and byte-identical
# GET /state); an action posted to one replica arrives on another's /events; after a restart of
# the PostgreSQL container writes succeed again and the replicas converge; `down` and `up` again
# keep the state (the named volumes) and the versions continue.
#
# Needs the server image, localhost/remvvm-server:latest (scripts/container-test.sh builds it;
# the compose file's `build:` is not used here because this machine's builds need extra flags).
# The docker.io/library/postgres:15 image is used when it is here or can be pulled; it cannot be
# pulled here, so a local stand-in (localhost/remvvm-standin/postgres:15, passed to the compose
# file as POSTGRES_IMAGE) is built from Debian's postgresql-15 with an entrypoint that honours the
# variables the file sets (POSTGRES_USER, POSTGRES_PASSWORD, POSTGRES_DB) and the data directory it
# mounts.
#
# Machine-specific, as in container-test.sh: podman's default OCI runtime (crun) and default
# ulimits fail here, so a containers.conf for this run selects runc and sets ulimits; without
# systemd podman runs no healthchecks, and podman 4.3 is too old for podman-compose to wait for
# `service_healthy`, so the replicas start at once and retry PostgreSQL by themselves (as they
# must anyway). Prints PASS/FAIL per check; exits non-zero on any failure; removes the stack, its
# volumes and its network on exit.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
COMPOSE_FILE="$ROOT/deploy/compose.replicas.yaml"
IMAGE="localhost/remvvm-server:latest"
OFFICIAL_POSTGRES_IMAGE="docker.io/library/postgres:15"
STANDIN_POSTGRES_IMAGE="localhost/remvvm-standin/postgres:15"
PROJECT="remvvm-compose-test"
LOG_DIR="${LOG_DIR:-/tmp/remvvm-compose-test}"
PORTS=(8081 8082 8083)
WORK="$(mktemp -d /tmp/remvvm-compose-test.XXXXXX)"
stream_pid=""

# shellcheck source=lib/checks.sh
source "$ROOT/scripts/lib/checks.sh"
log()  { printf '[compose-test] %s\n' "$*"; }
summary() { checks_summary "compose checks" "(logs: $LOG_DIR)"; }

[ "$(id -u)" = 0 ] || { echo "compose-test: run as root (rootful podman)" >&2; exit 2; }
"$ROOT/scripts/install-deps.sh" podman runc curl python3 python3-venv >/dev/null
mkdir -p "$LOG_DIR"

# podman-compose from PyPI, in a virtualenv kept between runs.
VENV="${COMPOSE_VENV:-/tmp/remvvm-podman-compose-venv}"
if [ ! -x "$VENV/bin/podman-compose" ]; then
    python3 -m venv "$VENV" && "$VENV/bin/pip" install -q "podman-compose>=1.6,<2" \
        || abort "podman-compose installs from PyPI"
fi

cat >"$WORK/containers.conf" <<'EOF'
[containers]
default_ulimits = ["nofile=1024:4096", "nproc=1024:4096"]

[engine]
runtime = "runc"
EOF
export CONTAINERS_CONF="$WORK/containers.conf"
compose() { "$VENV/bin/podman-compose" -p "$PROJECT" -f "$COMPOSE_FILE" "$@"; }

cleanup() {
    [ -z "$stream_pid" ] || kill "$stream_pid" 2>/dev/null
    compose down -v -t 5 >>"$LOG_DIR/down.log" 2>&1
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for port in "${PORTS[@]}"; do
    if curl -s --max-time 1 -o /dev/null "http://127.0.0.1:$port/" 2>/dev/null; then
        abort "port $port is free (the compose file publishes 8081-8083)"
    fi
done
podman image exists "$IMAGE" || abort "image $IMAGE exists (run scripts/container-test.sh first)"

# ------------------------------------------------------- postgres stand-in ---
# A stand-in an earlier version of this script built under the official name takes its own.
if podman image exists "$OFFICIAL_POSTGRES_IMAGE" \
        && podman image inspect --format '{{.Comment}}' "$OFFICIAL_POSTGRES_IMAGE" | grep -q 'local stand-in'; then
    podman image exists "$STANDIN_POSTGRES_IMAGE" || podman tag "$OFFICIAL_POSTGRES_IMAGE" "$STANDIN_POSTGRES_IMAGE"
    podman untag "$OFFICIAL_POSTGRES_IMAGE" "$OFFICIAL_POSTGRES_IMAGE"
fi
if podman image exists "$OFFICIAL_POSTGRES_IMAGE" || timeout 300 podman pull -q "$OFFICIAL_POSTGRES_IMAGE" >/dev/null 2>&1; then
    POSTGRES_IMAGE=$OFFICIAL_POSTGRES_IMAGE
else
    POSTGRES_IMAGE=$STANDIN_POSTGRES_IMAGE
fi
export POSTGRES_IMAGE
if ! podman image exists "$POSTGRES_IMAGE"; then
    base_images=$(bash "$ROOT/scripts/container-base-images.sh") || abort "base images (scripts/container-base-images.sh)"
    RUNTIME_IMAGE=$(sed -n 's/^RUNTIME_IMAGE=//p' <<<"$base_images")
    mkdir -p "$WORK/postgres"
    cat >"$WORK/postgres/Dockerfile" <<EOF
FROM $RUNTIME_IMAGE
RUN apt-get update && apt-get install -y --no-install-recommends postgresql-15 \
    && rm -rf /var/lib/apt/lists/*
ENV PATH=/usr/lib/postgresql/15/bin:\$PATH PGDATA=/var/lib/postgresql/data
COPY entrypoint.sh /usr/local/bin/docker-entrypoint.sh
EXPOSE 5432
STOPSIGNAL SIGINT
ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]
CMD ["postgres"]
EOF
    cat >"$WORK/postgres/entrypoint.sh" <<'EOF'
#!/bin/sh
# The part of the official image's entrypoint the compose file relies on: on first start, a
# cluster whose superuser is POSTGRES_USER (password POSTGRES_PASSWORD, scram over TCP) with a
# database POSTGRES_DB, listening on every interface; then postgres as the postgres user.
set -eu
: "${POSTGRES_USER:=postgres}" "${POSTGRES_DB:=$POSTGRES_USER}"
mkdir -p "$PGDATA" /var/run/postgresql
chown postgres:postgres "$PGDATA" /var/run/postgresql
chmod 700 "$PGDATA"
as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }
if [ ! -s "$PGDATA/PG_VERSION" ]; then
    printf '%s\n' "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}" >/tmp/pwfile
    chown postgres /tmp/pwfile
    as_postgres initdb --username="$POSTGRES_USER" --pwfile=/tmp/pwfile --auth-local=trust \
        --auth-host=scram-sha-256 >/dev/null
    rm -f /tmp/pwfile
    echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
    echo "listen_addresses = '*'" >>"$PGDATA/postgresql.auto.conf"
    if [ "$POSTGRES_DB" != postgres ]; then
        echo "CREATE DATABASE \"$POSTGRES_DB\"" | as_postgres postgres --single -D "$PGDATA" postgres >/dev/null
    fi
fi
exec setpriv --reuid=postgres --regid=postgres --init-groups "$@" -D "$PGDATA"
EOF
    chmod +x "$WORK/postgres/entrypoint.sh"
    if podman build --isolation chroot --network host --pull=never -t "$POSTGRES_IMAGE" "$WORK/postgres" \
            >"$LOG_DIR/postgres-build.log" 2>&1; then
        pass "a local stand-in for $POSTGRES_IMAGE builds from Debian's postgresql-15"
    else
        tail -n 30 "$LOG_DIR/postgres-build.log"
        abort "the PostgreSQL stand-in image builds (see $LOG_DIR/postgres-build.log)"
    fi
fi

# ------------------------------------------------------------------ helpers --
# Waits until every replica answers /healthz with 200 (up to $1 seconds).
wait_healthy() {
    local deadline=$(( $(date +%s) + $1 )) port
    for port in "${PORTS[@]}"; do
        until curl -fs --max-time 2 -o /dev/null "http://127.0.0.1:$port/healthz"; do
            [ "$(date +%s)" -lt "$deadline" ] || return 1
            sleep 0.5
        done
    done
}

# Posts one action to a replica; prints the version it was answered with.
post() {
    curl -fs --max-time 10 -H 'Content-Type: application/json' -d '{"type":"increase"}' \
        "http://127.0.0.1:$1/actions" | sed -n 's/.*"version":\([0-9]*\).*/\1/p'
}

# Waits (up to $1 seconds) until the three replicas serve the same GET /state at version >= $2.
converged() {
    local deadline=$(( $(date +%s) + $1 )) want=$2 port
    while [ "$(date +%s)" -lt "$deadline" ]; do
        local same=1 first="" version
        for port in "${PORTS[@]}"; do
            curl -fs --max-time 2 -D "$WORK/head-$port" -o "$WORK/state-$port" "http://127.0.0.1:$port/state" || { same=""; break; }
            version="$(sed -n 's/^[Ee][Tt][Aa][Gg]: *"\([0-9]*\).*/\1/p' "$WORK/head-$port")"
            [ -n "$version" ] && [ "$version" -ge "$want" ] || { same=""; break; }
            if [ -z "$first" ]; then first=$port; elif ! cmp -s "$WORK/state-$first" "$WORK/state-$port"; then same=""; break; fi
        done
        [ -n "$same" ] && return 0
        sleep 0.2
    done
    return 1
}

# ---------------------------------------------------------------------- up ---
log "podman-compose up -d (log: $LOG_DIR/up.log)"
if compose up -d >"$LOG_DIR/up.log" 2>&1; then
    pass "podman-compose up -d starts PostgreSQL and three replicas"
else
    tail -n 30 "$LOG_DIR/up.log"
    abort "podman-compose up -d"
fi
if wait_healthy 180; then
    pass "every replica answers /healthz on 127.0.0.1:8081, :8082 and :8083"
else
    compose logs >"$LOG_DIR/logs.txt" 2>&1
    abort "replicas become ready (logs: $LOG_DIR/logs.txt)"
fi

# ----------------------------------------------- writes on all, one order ---
errors=0
newest=0
for round in $(seq 1 10); do
    for port in "${PORTS[@]}"; do
        version="$(post "$port")"
        if [ -z "$version" ]; then errors=$((errors + 1)); elif [ "$version" -gt "$newest" ]; then newest=$version; fi
    done
done
if [ "$errors" -eq 0 ] && converged 30 "$newest"; then
    pass "30 actions posted over the three replicas: all three at version $newest with byte-identical state"
else
    fail "actions on every replica converge ($errors failed posts; newest version ${newest})"
fi

# ----------------------------------------- an action on r1, an event on r3 ---
curl -sN --max-time 30 "http://127.0.0.1:${PORTS[2]}/events" >"$WORK/events" 2>/dev/null &
stream_pid=$!
until grep -q '^id: ' "$WORK/events" 2>/dev/null; do
    kill -0 "$stream_pid" 2>/dev/null || break
    sleep 0.1
done
version="$(post "${PORTS[0]}")"
deadline=$(( $(date +%s) + 10 ))
until [ -n "$version" ] && grep -qE "^id: ${version}([^0-9]|\$)" "$WORK/events"; do
    [ "$(date +%s)" -lt "$deadline" ] || break
    sleep 0.1
done
if [ -n "$version" ] && grep -qE "^id: ${version}([^0-9]|\$)" "$WORK/events"; then
    pass "version $version posted to r1 (:8081) arrives on r3's /events (:8083)"
else
    fail "an action posted to r1 arrives on r3's /events (version '${version}')"
fi
kill "$stream_pid" 2>/dev/null; wait "$stream_pid" 2>/dev/null; stream_pid=""

# ------------------------------------------------ PostgreSQL restarted ---
postgres_container="$(podman ps --filter "label=io.podman.compose.project=$PROJECT" \
    --filter "label=com.docker.compose.service=postgres" --format '{{.Names}}' | head -n 1)"
if [ -n "$postgres_container" ] && podman restart -t 5 "$postgres_container" >"$LOG_DIR/restart.log" 2>&1; then
    deadline=$(( $(date +%s) + 90 ))
    version=""
    until [ -n "$version" ] || [ "$(date +%s)" -ge "$deadline" ]; do
        version="$(post "${PORTS[1]}")"
        [ -n "$version" ] || sleep 0.5
    done
    if [ -n "$version" ] && converged 60 "$version"; then
        pass "after PostgreSQL's container restarts, writes succeed again (version $version) and the replicas converge"
    else
        fail "writes and convergence after a PostgreSQL restart (version '${version}')"
    fi
else
    fail "restart the PostgreSQL container ('$postgres_container', see $LOG_DIR/restart.log)"
fi
before="$(cat "$WORK/state-${PORTS[0]}" 2>/dev/null)"
before_version="${version:-0}"

# ----------------------------------------------------------- down, up ---
if compose down -t 10 >"$LOG_DIR/down-keep.log" 2>&1 && compose up -d >"$LOG_DIR/up-again.log" 2>&1 \
        && wait_healthy 180 && converged 60 "$before_version" \
        && [ "$(cat "$WORK/state-${PORTS[0]}")" = "$before" ]; then
    pass "down and up again: the three replicas come back with the same state at version $before_version"
else
    fail "the state survives down and up (the named volumes)"
fi
after="$(post "${PORTS[2]}")"
if [ -n "$after" ] && [ "$after" -eq $((before_version + 1)) ]; then
    pass "versions continue after the restart: the next action is version $after"
else
    fail "the next action after the restart is version $((before_version + 1)) (got '${after}')"
fi

summary
