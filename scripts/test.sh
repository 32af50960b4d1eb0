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

# The hosted pages are tested in headless Chromium with virtual authenticators (Debian's
# package, run directly; no network access is needed by the tests themselves).
if [ "${LATCHKEY_SKIP_BROWSER_TESTS:-}" != "1" ] && [ -z "${LATCHKEY_CHROMIUM:-}" ] && [ ! -x /usr/lib/chromium/chromium ]; then
    echo "==> installing chromium (about 380 MB) for the browser tests"
    if command -v apt-get >/dev/null; then
        SUDO=$([ "$(id -u)" -eq 0 ] && echo "" || echo "sudo")
        $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium fonts-liberation >/dev/null \
            || { echo "could not install chromium; set LATCHKEY_SKIP_BROWSER_TESTS=1 to run without the browser tests"; exit 1; }
    else
        echo "Chromium is missing: install it, point LATCHKEY_CHROMIUM at it, or set LATCHKEY_SKIP_BROWSER_TESTS=1"; exit 1
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
