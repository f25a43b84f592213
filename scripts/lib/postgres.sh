# Sourced by scripts that need a throwaway PostgreSQL (Debian's postgresql package, installed by
# scripts/install-deps.sh postgresql): a cluster in a fresh directory, listening on a unix socket
# only, run as the postgres user (initdb and postgres refuse root). Functions call `fail`.

# pg_bin: the directory of Debian's PostgreSQL binaries (the newest installed major version).
pg_bin() {
    ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1
}

# start_postgres DIR PORT [-c NAME=VALUE…]: creates a cluster in DIR (if missing) and starts it on a socket in DIR;
# sets PG_PID and PG_URL (a libpq connection string). fsync stays on: this is what replicas rely on.
start_postgres() {
    local dir=$1 port=$2 bin
    shift 2
    bin=$(pg_bin)
    [ -n "$bin" ] || fail "PostgreSQL is not installed (scripts/install-deps.sh postgresql)"
    mkdir -p "$dir"
    chown postgres "$dir" 2>/dev/null || true
    if [ ! -f "$dir/data/PG_VERSION" ]; then
        as_postgres "$bin/initdb" -D "$dir/data" -A trust -U postgres -E UTF8 --locale=C >"$dir/initdb.log" 2>&1 \
            || { tail -20 "$dir/initdb.log" >&2; fail "initdb failed"; }
    fi
    as_postgres "$bin/postgres" -D "$dir/data" -k "$dir" -p "$port" -c listen_addresses= \
        -c max_connections=300 "$@" >>"$dir/server.log" 2>&1 &
    PG_PID=$!
    local deadline=$((SECONDS + 30))
    until "$bin/pg_isready" -q -h "$dir" -p "$port" -t 1; do
        kill -0 "$PG_PID" 2>/dev/null || { tail -20 "$dir/server.log" >&2; fail "postgres did not start"; }
        [ "$SECONDS" -lt "$deadline" ] || fail "postgres did not accept connections within 30 s"
        sleep 0.1
    done
    # The postmaster's own PID (runuser forks it).
    PG_PID=$(head -1 "$dir/data/postmaster.pid")
    PG_URL="host=$dir port=$port user=postgres dbname=postgres connect_timeout=5"
}

# stop_postgres DIR: fast shutdown of the cluster started in DIR (SIGINT to its postmaster), waits.
stop_postgres() {
    local dir=$1 pid
    [ -f "$dir/data/postmaster.pid" ] || return 0
    pid=$(head -1 "$dir/data/postmaster.pid")
    kill -INT "$pid" 2>/dev/null || return 0
    local deadline=$((SECONDS + 30))
    while kill -0 "$pid" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.1; done
}

# as_postgres CMD…: runs CMD as the postgres user when root, as is otherwise.
as_postgres() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
