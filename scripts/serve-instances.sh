#!/usr/bin/env bash
# Several `latchkey serve` instances over one database, behind nginx as the load balancer:
# what a scale-out deployment looks like, on one machine, for trying it and for benchmarks.
#
#   scripts/serve-instances.sh --instances N --port PORT (--database postgres://… | --postgres) [--config FILE] [--binary PATH] [--nginx]
#
# --postgres runs a new private PostgreSQL cluster (scripts/postgres.sh) as a child of this
# script, so that a benchmark that measures this process tree counts the database's CPU too.
# On exit the script prints each part's CPU seconds (instances, PostgreSQL, nginx).
#
# The instances listen on free loopback ports; nginx listens on 127.0.0.1:PORT and spreads
# requests over them (round robin, keep-alive to each). One instance listens on PORT itself,
# unless --nginx puts nginx in front of it too (to measure what the proxy costs). Everything
# stops on SIGTERM or SIGINT. nginx is the system's, $LATCHKEY_NGINX, or the copy
# scripts/test.sh unpacks into .build/tools.
set -euo pipefail
cd "$(dirname "$0")/.."

instances=2 port=8080 database="" config="" binary=".build/release/latchkey" postgres=0 proxy=0
while [ $# -gt 0 ]; do
    case "$1" in
    --instances) instances=$2; shift 2 ;;
    --port) port=$2; shift 2 ;;
    --database) database=$2; shift 2 ;;
    --config) config=$2; shift 2 ;;
    --binary) binary=$2; shift 2 ;;
    --postgres) postgres=1; shift ;;
    --nginx) proxy=1; shift ;;
    *) echo "unknown argument $1" >&2; exit 64 ;;
    esac
done
[ "$instances" -gt 1 ] && proxy=1
[ -n "$database" ] || [ "$postgres" = 1 ] || { echo "--database postgres://… or --postgres is required: instances share one database" >&2; exit 64; }
[ -x "$binary" ] || { echo "$binary is missing: swift build -c release --product latchkey" >&2; exit 69; }
nginx=${LATCHKEY_NGINX:-$(command -v nginx || echo .build/tools/nginx/usr/sbin/nginx)}
[ "$proxy" = 0 ] || [ -x "$nginx" ] || { echo "nginx is missing: install it, set LATCHKEY_NGINX, or run scripts/test.sh once" >&2; exit 69; }

work=$(mktemp -d -t latchkey-instances.XXXXXX)
[ "$(id -u)" -ne 0 ] || chmod 755 "$work"
pids=() names=()
# CPU seconds (user + system) of a process and its descendants, from /proc.
tree_cpu() {
    python3 - "$1" <<'PY'
import os, sys
root = int(sys.argv[1]); tick = os.sysconf("SC_CLK_TCK"); children = {}; cpu = {}
for entry in os.listdir("/proc"):
    if not entry.isdigit(): continue
    try:
        fields = open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()
    except OSError:
        continue
    children.setdefault(int(fields[1]), []).append(int(entry)); cpu[int(entry)] = int(fields[11]) + int(fields[12])
total, todo = 0, [root]
while todo:
    pid = todo.pop(); total += cpu.get(pid, 0); todo += children.get(pid, [])
print(f"{total / tick:.2f}")
PY
}
stop() {
    trap - TERM INT EXIT
    report=""
    for index in "${!pids[@]}"; do report+="${names[$index]} $(tree_cpu "${pids[$index]}") s, "; done
    echo "CPU: ${report%, }"
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap stop TERM INT EXIT

if [ "$postgres" = 1 ]; then
    scripts/postgres.sh init "$work/postgres"
    scripts/postgres.sh serve "$work/postgres" >"$work/postgres.log" 2>&1 &
    pids+=($!) names+=(postgres)
    database=$(scripts/postgres.sh createdb "$work/postgres")
fi

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

upstreams="" ports=()
for index in $(seq 1 "$instances"); do
    instance_port=$([ "$proxy" = 0 ] && echo "$port" || free_port)
    arguments=(serve --host 127.0.0.1 --port "$instance_port" --database "$database" --public-url "http://localhost:$port")
    [ -n "$config" ] && arguments+=(--config "$config")
    "$binary" "${arguments[@]}" >"$work/instance-$index.log" 2>&1 &
    pids+=($!) names+=("instance-$index") ports+=("$instance_port")
    upstreams+="        server 127.0.0.1:$instance_port;"$'\n'
done

cat >"$work/nginx.conf" <<EOF
worker_processes 1;
pid $work/nginx.pid;
error_log $work/nginx-error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path $work/body;
    proxy_temp_path $work/proxy;
    fastcgi_temp_path $work/fastcgi;
    uwsgi_temp_path $work/uwsgi;
    scgi_temp_path $work/scgi;
    upstream latchkey {
$upstreams        keepalive 64;
    }
    server {
        listen 127.0.0.1:$port;
        location / {
            proxy_pass http://latchkey;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host \$host;
            proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
        }
    }
}
EOF

# Every instance must answer before nginx takes requests.
for index in $(seq 1 "$instances"); do
    up=0
    for _ in $(seq 1 300); do
        if (exec 3<>"/dev/tcp/127.0.0.1/${ports[$((index - 1))]}") 2>/dev/null; then up=1; break; fi
        kill -0 "${pids[-$((instances - index + 1))]}" 2>/dev/null || break
        sleep 0.1
    done
    [ "$up" = 1 ] || { echo "instance $index did not start:" >&2; cat "$work/instance-$index.log" >&2; exit 70; }
done
if [ "$proxy" = 1 ]; then
    "$nginx" -c "$work/nginx.conf" -p "$work" -g "daemon off;" &
    pids+=($!) names+=(nginx)
    echo "$instances instances behind http://127.0.0.1:$port (logs in $work)"
else
    echo "one instance at http://127.0.0.1:$port (log in $work)"
fi
wait -n "${pids[@]}" || true
echo "a process stopped; stopping the rest" >&2
