#!/usr/bin/env bash
# What one deployment can carry, for docs/deploying.md's "Capacity": builds the release
# server and the benchmark, then runs sign-ups, logins and refresh-token rotations against it,
# first on SQLite, then on a private PostgreSQL cluster (scripts/postgres.sh), whose CPU and
# write-ahead log it counts too.
#   scripts/capacity.sh [--users N] [--logins N] [--refreshes N] [--concurrency N] [--id-token ES256|RS256]
set -euo pipefail
cd "$(dirname "$0")/.."
echo "building release binaries…"
swift build -c release --product latchkey >/dev/null
swift build -c release --package-path Benchmarks --product ServerBenchmark >/dev/null
bench=Benchmarks/.build/release/ServerBenchmark
server="$(pwd)/.build/release/latchkey"

echo "== SQLite"
"$bench" capacity "$server" "$@"

work=$(mktemp -d)
chmod 755 "$work"   # the cluster runs as an unprivileged user, who must reach it
trap 'scripts/postgres.sh stop "$work/pg" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
url=$(scripts/postgres.sh start "$work/pg")
echo "== PostgreSQL"
"$bench" capacity "$server" --database "$url" --db-pid "$(head -n 1 "$work/pg/data/postmaster.pid")" "$@"
