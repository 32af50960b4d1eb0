#!/usr/bin/env bash
# PgBouncer in transaction mode in front of a PostgreSQL database, for the tests and for
# trying a pooled deployment: Debian's `pgbouncer` package (installed with apt-get when
# missing), run by an unprivileged user, listening on 127.0.0.1 only, on a free port, with
# scram-sha-256 authentication and a small server pool, so that server connections are
# shared by many client connections.
#
#   scripts/pgbouncer.sh start DIR URL [POOL]  starts PgBouncer in DIR (which must not exist)
#                                              in front of the database at URL
#                                              (postgres://user:password@host:port/database)
#                                              with POOL server connections (default 4), and
#                                              prints its URL, with ?pooler=transaction
#   scripts/pgbouncer.sh stop DIR              stops it
set -euo pipefail

command=${1:-}
dir=${2:-}
[ -n "$command" ] && [ -n "$dir" ] || { echo "usage: $0 start DIR URL [POOL] | stop DIR" >&2; exit 64; }

# PgBouncer refuses to run as root: a root caller runs it as `nobody`.
as_owner() {
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u nobody -- "$@"
    else
        "$@"
    fi
}

case "$command" in
start)
    url=${3:-}
    pool=${4:-4}
    [[ "$url" =~ ^postgres(ql)?://([^:@/]+):([^@/]*)@([^:/]+):([0-9]+)/([^?]+) ]] \
        || { echo "URL must be postgres://user:password@host:port/database" >&2; exit 64; }
    user=${BASH_REMATCH[2]} password=${BASH_REMATCH[3]} host=${BASH_REMATCH[4]} port=${BASH_REMATCH[5]} database=${BASH_REMATCH[6]}
    if ! command -v pgbouncer >/dev/null && [ ! -x /usr/sbin/pgbouncer ]; then
        echo "==> installing pgbouncer" >&2
        SUDO=$([ "$(id -u)" -eq 0 ] && echo "" || echo "sudo")
        $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends pgbouncer >/dev/null 2>&1 \
            || { $SUDO apt-get update -qq >/dev/null && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends pgbouncer >/dev/null; } \
            || { echo "could not install pgbouncer" >&2; exit 69; }
        # The package's own service, where a service manager started one, is not wanted.
        $SUDO systemctl disable --now pgbouncer >/dev/null 2>&1 || true
    fi
    bouncer=$(command -v pgbouncer || echo /usr/sbin/pgbouncer)
    [ ! -e "$dir" ] || { echo "$dir already exists" >&2; exit 64; }
    mkdir -p "$dir"
    listen=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    printf '"%s" "%s"\n' "$user" "$password" >"$dir/userlist.txt"
    cat >"$dir/pgbouncer.ini" <<EOF
[databases]
$database = host=$host port=$port dbname=$database
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $listen
unix_socket_dir =
auth_type = scram-sha-256
auth_file = $dir/userlist.txt
pool_mode = transaction
default_pool_size = $pool
max_client_conn = 500
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
EOF
    chmod 0755 "$dir"
    chown -R nobody "$dir" 2>/dev/null || true
    # Daemonized (-d), without the caller's descriptors (see scripts/postgres.sh).
    (
        for fd in /proc/$BASHPID/fd/*; do
            n=${fd##*/}
            [ "$n" -gt 2 ] 2>/dev/null && eval "exec $n>&-" 2>/dev/null
        done
        as_owner "$bouncer" -d "$dir/pgbouncer.ini"
    ) || { cat "$dir/pgbouncer.log" >&2 2>/dev/null; exit 70; }
    for _ in $(seq 50); do
        (exec 3<>"/dev/tcp/127.0.0.1/$listen") 2>/dev/null && break
        sleep 0.1
    done
    echo "postgres://$user:$password@127.0.0.1:$listen/$database?sslmode=disable&pooler=transaction"
    ;;
stop)
    [ -f "$dir/pgbouncer.pid" ] || exit 0
    pid=$(cat "$dir/pgbouncer.pid")
    kill "$pid" 2>/dev/null || exit 0
    # A parent may have started it with signals blocked (Foundation's Process does), and it
    # keeps that mask; it holds nothing that must be written out, so it is killed after a wait.
    for _ in $(seq 10); do
        kill -0 "$pid" 2>/dev/null || exit 0
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
    ;;
*)
    echo "usage: $0 start DIR URL [POOL] | stop DIR" >&2
    exit 64
    ;;
esac
