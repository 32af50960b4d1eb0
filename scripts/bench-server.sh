#!/usr/bin/env bash
# Builds the release server and the benchmark, then drives the server over loopback.
#   scripts/bench-server.sh [--concurrency N] [--signups N] [--logins N] [--pages N] [--seed N] [--passwords N]
set -euo pipefail
cd "$(dirname "$0")/.."
echo "building release binaries…"
swift build -c release --product latchkey >/dev/null
swift build -c release --package-path Benchmarks --product ServerBenchmark >/dev/null
exec Benchmarks/.build/release/ServerBenchmark "$(pwd)/.build/release/latchkey" "$@"
