#!/usr/bin/env bash
# Runs every test: builds the package and its tests, runs `swift test`, and prints the
# summary. Exits non-zero when anything fails.
set -uo pipefail
cd "$(dirname "$0")/.."

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
