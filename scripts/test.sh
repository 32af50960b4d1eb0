#!/usr/bin/env bash
# Runs every test: builds the package and its tests, runs `swift test`, and prints the
# summary. Exits non-zero when anything fails.
set -uo pipefail
cd "$(dirname "$0")/.."

# GRDB builds against the system SQLite.
if [ ! -f /usr/include/sqlite3.h ]; then
    echo "==> installing libsqlite3-dev"
    if command -v apt-get >/dev/null; then
        SUDO=$([ "$(id -u)" -eq 0 ] && echo "" || echo "sudo")
        $SUDO apt-get update -qq && $SUDO apt-get install -y -qq libsqlite3-dev >/dev/null || { echo "could not install libsqlite3-dev"; exit 1; }
    else
        echo "SQLite headers are missing: install libsqlite3-dev (or your system's equivalent)"; exit 1
    fi
fi

log=$(mktemp -t latchkey-test.XXXXXX)
trap 'rm -f "$log"' EXIT

echo "==> swift build --build-tests"
swift build --build-tests || exit 1

echo "==> swift test"
swift test 2>&1 | tee "$log"
status=${PIPESTATUS[0]}

echo
echo "==> summary"
grep -E "^(SKIPPED|KNOWN DIVERGENCE) " "$log" || true
grep -E "Test run with .* (passed|failed)" "$log" | tail -n 1
grep -E "Executed [1-9][0-9]* tests?" "$log" | tail -n 1 || true
if [ "$status" -ne 0 ]; then
    echo "FAILED (swift test exited with $status)"
    grep -E "✘ .* recorded an issue|error: " "$log" | head -n 40
fi
exit "$status"
