#!/usr/bin/env bash
# Runs every test: builds the package and its tests, runs `swift test`, and prints the
# summary. Exits non-zero when anything fails.
set -uo pipefail
cd "$(dirname "$0")/.."

# StorageSQLite builds against the system SQLite (its headers come from libsqlite3-dev).
if [ ! -f /usr/include/sqlite3.h ]; then
    echo "==> installing libsqlite3-dev"
    if command -v apt-get >/dev/null; then
        SUDO=$([ "$(id -u)" -eq 0 ] && echo "" || echo "sudo")
        $SUDO apt-get update -qq && $SUDO apt-get install -y -qq libsqlite3-dev >/dev/null || { echo "could not install libsqlite3-dev"; exit 1; }
    else
        echo "SQLite headers are missing: install libsqlite3-dev (or your system's equivalent)"; exit 1
    fi
fi

# Imported Argon2 password hashes verify through libargon2, opened at run time (the
# runtime package only; nothing links against it).
if ! ldconfig -p 2>/dev/null | grep -q "libargon2.so.1"; then
    echo "==> installing libargon2-1"
    if command -v apt-get >/dev/null; then
        SUDO=$([ "$(id -u)" -eq 0 ] && echo "" || echo "sudo")
        $SUDO apt-get update -qq && $SUDO apt-get install -y -qq libargon2-1 >/dev/null || { echo "could not install libargon2-1"; exit 1; }
    else
        echo "libargon2 is missing: install it (the Argon2 import tests need it)"; exit 1
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
# Japanese and Chinese pages are audited as laid out (no sideways scrolling at 320 px), and
# their screenshots read, only with a font that has the glyphs (about 57 MB).
if [ "${LATCHKEY_SKIP_BROWSER_TESTS:-}" != "1" ] && command -v fc-list >/dev/null && [ -z "$(fc-list :lang=ja 2>/dev/null)" ] && command -v apt-get >/dev/null; then
    echo "==> installing fonts-noto-cjk for the Japanese and Chinese pages"
    SUDO=$([ "$(id -u)" -eq 0 ] && echo "" || echo "sudo")
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends fonts-noto-cjk >/dev/null \
        || echo "could not install fonts-noto-cjk; Japanese and Chinese pages are tested without their glyphs"
fi

# The README's nginx configuration is tested in front of a real server. Debian's nginx is
# unpacked into .build/tools rather than installed: installing it would start a system
# service on port 80. The tests run it as this user, on loopback ports, and stop it.
if [ -z "${LATCHKEY_NGINX:-}" ] && ! command -v nginx >/dev/null && [ ! -x .build/tools/nginx/usr/sbin/nginx ]; then
    echo "==> fetching nginx (about 1 MB) for the reverse-proxy test"
    mkdir -p .build/tools/nginx
    if command -v apt-get >/dev/null && (cd .build/tools && apt-get download -qq nginx >/dev/null 2>&1); then
        dpkg -x .build/tools/nginx_*.deb .build/tools/nginx && rm -f .build/tools/nginx_*.deb
    else
        echo "could not fetch nginx; the reverse-proxy test will report it as skipped"
    fi
fi
if [ -z "${LATCHKEY_NGINX:-}" ] && [ -x .build/tools/nginx/usr/sbin/nginx ]; then
    export LATCHKEY_NGINX="$PWD/.build/tools/nginx/usr/sbin/nginx"
fi

# The tests' PyPI tools, each in a virtualenv under .build/tools: setup VARIABLE SCRIPT WHAT
# exports what `scripts/SCRIPT setup` prints, unless VARIABLE is set already.
setup_tool() {
    local variable=$1 script=$2 what=$3 path
    [ -n "${!variable:-}" ] && return 0
    echo "==> setting up $what"
    if path=$(scripts/$script setup); then
        export "$variable=$path"
    else
        echo "could not set up $what"; exit 1
    fi
}
# Mail is tested against a real SMTP server: aiosmtpd, started by the tests on loopback ports
# with STARTTLS and AUTH on.
setup_tool LATCHKEY_SMTP_SINK_PYTHON smtp-sink.sh "the test SMTP server (aiosmtpd)"
# The Admin API is tested against its OpenAPI document with Schemathesis.
setup_tool LATCHKEY_SCHEMATHESIS schemathesis.sh "Schemathesis for the Admin API's conformance test"
# The OpenID Connect face is driven with authlib and auth0-python, libraries nobody here wrote.
setup_tool LATCHKEY_OIDC_PYTHON oidc-libraries.sh "the OpenID Connect libraries (authlib, auth0-python)"
# The Kratos face is driven with Ory's own generated SDKs.
setup_tool LATCHKEY_ORY_SDK_PYTHON ory-sdks.sh "Ory's SDKs (ory-kratos-client, ory-client)"
# Webhooks are received by a Python server that verifies them with the standardwebhooks
# package, an implementation independent of Latchkey's.
setup_tool LATCHKEY_WEBHOOK_RECEIVER_PYTHON webhook-receiver.sh "the test webhook receiver (standardwebhooks)"
# Telemetry is exported to a receiver decoding OTLP with OpenTelemetry's opentelemetry-proto.
setup_tool LATCHKEY_OTLP_RECEIVER_PYTHON otlp-receiver.sh "the test OpenTelemetry receiver (opentelemetry-proto)"
# Shared Signals events are received and verified with authlib, against the server's JWKS.
setup_tool LATCHKEY_SSF_RECEIVER_PYTHON ssf-receiver.sh "the test Shared Signals receiver (authlib)"
# Imported password hashes are made by reference implementations: PyPI's bcrypt and
# argon2-cffi, hashlib.
setup_tool LATCHKEY_HASHES_PYTHON password-hashes.sh "the reference password hashers (bcrypt, argon2-cffi)"

log=$(mktemp -t latchkey-test.XXXXXX)
pgdir=""
cleanup() {
    rm -f "$log"
    if [ -n "$pgdir" ]; then scripts/postgres.sh stop "$pgdir"; rm -rf "$pgdir"; fi
}
trap cleanup EXIT

# The PostgreSQL backend is tested against a real server: a private cluster in a temporary
# directory, on a free loopback port, stopped and removed when the tests end (Debian's
# postgresql package is installed first when missing). LATCHKEY_TEST_POSTGRES_URL, when
# set, names a server to use instead; LATCHKEY_SKIP_POSTGRES_TESTS=1 skips them.
if [ -z "${LATCHKEY_TEST_POSTGRES_URL:-}" ] && [ "${LATCHKEY_SKIP_POSTGRES_TESTS:-}" != "1" ]; then
    echo "==> starting PostgreSQL"
    pgdir=$(mktemp -u -t latchkey-postgres.XXXXXX)
    if url=$(scripts/postgres.sh start "$pgdir"); then
        export LATCHKEY_TEST_POSTGRES_URL="$url"
        echo "PostgreSQL on ${url##*@}"
    else
        echo "could not start PostgreSQL; set LATCHKEY_SKIP_POSTGRES_TESTS=1 to run without the PostgreSQL tests"
        exit 1
    fi
fi

echo "==> swift build --build-tests"
swift build --build-tests || exit 1

echo "==> swift test"
swift test 2>&1 | tee "$log"
status=${PIPESTATUS[0]}

echo
echo "==> summary"
grep -E "^(SKIPPED|KNOWN DIVERGENCE) " "$log" || true
grep -E "Test .* skipped" "$log" | sed -E 's/^[^A-Za-z]*Test /SKIPPED /' || true
grep -E "Test run with .* (passed|failed)" "$log" | tail -n 1
grep -E "Executed [1-9][0-9]* tests?" "$log" | tail -n 1 || true
if [ "$status" -ne 0 ]; then
    echo "FAILED (swift test exited with $status)"
    grep -E "✘ .* recorded an issue|error: " "$log" | head -n 40
    exit "$status"
fi
# The SDK's DocC catalog builds, and every symbol link in it resolves.
echo "==> swift package generate-documentation --target LatchkeyClient"
swift package generate-documentation --target LatchkeyClient --warnings-as-errors > "$log" 2>&1
docs=$?
tail -n 3 "$log"
if [ "$docs" -ne 0 ]; then
    echo "FAILED (the LatchkeyClient documentation has warnings or does not build)"
    grep -E "^(warning|error)" "$log" | head -n 20
fi
exit "$docs"
