#!/usr/bin/env bash
# A private PostgreSQL cluster for the tests and benchmarks: Debian's `postgresql` package
# (installed with apt-get when missing), a new cluster in a temporary directory, owned and
# run by an unprivileged user, listening on 127.0.0.1 only, on a free port, with
# scram-sha-256 password authentication.
#
#   scripts/postgres.sh start DIR   creates and starts the cluster in DIR (which must not
#                                   exist) and prints its URL,
#                                   postgres://latchkey:PASSWORD@127.0.0.1:PORT/latchkey
#   scripts/postgres.sh stop DIR    stops it (the directory is left for the caller to remove)
#   scripts/postgres.sh resume DIR  starts a stopped cluster again, on the same port
#   scripts/postgres.sh init DIR     only creates the cluster;
#   scripts/postgres.sh serve DIR    then runs it in the foreground (benchmarks count its CPU),
#   scripts/postgres.sh createdb DIR and this waits for it, creates the database, prints the URL
set -euo pipefail

command=${1:-}
dir=${2:-}
[ -n "$command" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop|resume|init|serve|createdb DIR" >&2; exit 64; }

find_bin() {
    local found
    found=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
    [ -n "$found" ] && [ -x "$found/initdb" ] && echo "$found"
}

# PostgreSQL refuses to run as root: a root caller runs it as the package's `postgres` user.
as_owner() {
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

start_cluster() {
    local bin=$1 dir=$2 port
    port=$(cat "$dir/port")
    # Enough connections for several server processes with their pools and the tests' own.
    # The daemon must not keep the caller's descriptors: a parent that waits for its child's
    # descriptors to close (Foundation's Process does) would otherwise wait for PostgreSQL.
    (
        for fd in /proc/$BASHPID/fd/*; do
            n=${fd##*/}
            [ "$n" -gt 2 ] 2>/dev/null && eval "exec $n>&-" 2>/dev/null
        done
        as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
            -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c max_connections=300 -c shared_buffers=128MB" start >/dev/null
    ) || { cat "$dir/server.log" >&2; exit 70; }
}

# Installs PostgreSQL when missing, creates the cluster in $dir, prints nothing.
init_cluster() {
    bin=$(find_bin || true)
    if [ -z "$bin" ]; then
        echo "==> installing postgresql" >&2
        SUDO=$([ "$(id -u)" -eq 0 ] && echo "" || echo "sudo")
        # Only the binaries are wanted: the package would otherwise create and start a
        # system cluster on port 5432 that outlives the tests.
        $SUDO mkdir -p /etc/postgresql-common
        grep -qs '^create_main_cluster' /etc/postgresql-common/createcluster.conf \
            || echo "create_main_cluster = false" | $SUDO tee -a /etc/postgresql-common/createcluster.conf >/dev/null
        $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null 2>&1 \
            || { $SUDO apt-get update -qq >/dev/null && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null; } \
            || { echo "could not install postgresql" >&2; exit 69; }
        bin=$(find_bin) || { echo "postgresql installed, but no initdb under /usr/lib/postgresql" >&2; exit 69; }
    fi
    [ ! -e "$dir" ] || { echo "$dir exists; give a new directory" >&2; exit 64; }
    mkdir -p "$dir"
    [ "$(id -u)" -ne 0 ] || chown postgres "$dir"
    chmod 700 "$dir"
    password=$(head -c 18 /dev/urandom | base64 | tr -d '+/=')
    printf '%s\n' "$password" > "$dir/password"
    [ "$(id -u)" -ne 0 ] || chown postgres "$dir/password"
    as_owner "$bin/initdb" -D "$dir/data" -U latchkey --pwfile="$dir/password" --auth=scram-sha-256 -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; exit 70; }
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' > "$dir/port"
}

# Waits for the cluster in $dir to take connections, creates the `latchkey` database, and
# prints the URL.
create_database() {
    local port password
    port=$(cat "$dir/port")
    password=$(cat "$dir/password")
    for _ in $(seq 1 300); do
        "$bin/pg_isready" -q -h 127.0.0.1 -p "$port" && break
        sleep 0.1
    done
    PGPASSWORD=$password "$bin/createdb" -h 127.0.0.1 -p "$port" -U latchkey latchkey
    echo "postgres://latchkey:$password@127.0.0.1:$port/latchkey"
}

case "$command" in
start)
    init_cluster
    start_cluster "$bin" "$dir"
    create_database
    ;;
init)
    init_cluster
    ;;
serve)
    # In the foreground, as a child of the caller, so that its CPU counts as the caller's.
    bin=$(find_bin) || { echo "postgresql is not installed" >&2; exit 69; }
    port=$(cat "$dir/port")
    if [ "$(id -u)" -eq 0 ]; then
        exec runuser -u postgres -- "$bin/postgres" -D "$dir/data" -c listen_addresses=127.0.0.1 -p "$port" -k "$dir" -c max_connections=300 -c shared_buffers=128MB
    fi
    exec "$bin/postgres" -D "$dir/data" -c listen_addresses=127.0.0.1 -p "$port" -k "$dir" -c max_connections=300 -c shared_buffers=128MB
    ;;
createdb)
    bin=$(find_bin) || { echo "postgresql is not installed" >&2; exit 69; }
    create_database
    ;;
resume)
    bin=$(find_bin) || { echo "postgresql is not installed" >&2; exit 69; }
    start_cluster "$bin" "$dir"
    ;;
stop)
    bin=$(find_bin) || exit 0
    [ -d "$dir/data" ] || exit 0
    as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
    ;;
*)
    echo "usage: $0 start|stop|resume|init|serve|createdb DIR" >&2; exit 64
    ;;
esac
