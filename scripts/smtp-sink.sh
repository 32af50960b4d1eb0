#!/usr/bin/env bash
# Prepares the Python environment that runs scripts/smtp-sink.py, the SMTP server the tests
# send mail to: a virtualenv in .build/tools/smtp-venv with aiosmtpd from PyPI. The venv
# lives under .build so that it is ignored by git and rebuilt along with the build tree.
#
#   scripts/smtp-sink.sh setup   creates the venv when missing (quick when it is there) and
#                                prints the path of its python, and nothing else, on stdout
#
# Then: "$python" scripts/smtp-sink.py --help
set -euo pipefail
cd "$(dirname "$0")/.."

command=${1:-}
[ "$command" = setup ] || { echo "usage: $0 setup" >&2; exit 64; }

venv=.build/tools/smtp-venv
python="$(pwd)/$venv/bin/python"

# The import check is what matters, not the directory's existence, since an interrupted
# earlier setup can leave a venv without aiosmtpd.
ready() { [ -x "$python" ] && "$python" -c 'import aiosmtpd' 2>/dev/null; }

if ready; then
    echo "$python"
    exit 0
fi

# Tests running side by side may all call setup at once: one builds, the others wait
# for it and then find the venv ready.
mkdir -p "$(dirname "$venv")"
exec 9>"$venv.lock"
flock 9
if ready; then
    echo "$python"
    exit 0
fi

# Debian splits venv (and ensurepip) out of python3 itself.
if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
    echo "==> installing python3-venv" >&2
    SUDO=$([ "$(id -u)" -eq 0 ] && echo "" || echo "sudo")
    $SUDO apt-get install -y -qq python3-venv >&2 ||
        { $SUDO apt-get update -qq >&2 && $SUDO apt-get install -y -qq python3-venv >&2; }
fi

echo "==> creating $venv with aiosmtpd" >&2
# A venv left half-made by an interrupted run may have a broken pip: start it afresh.
rm -rf "$venv"
python3 -m venv "$venv" >&2
"$python" -m pip install -q --disable-pip-version-check aiosmtpd >&2
"$python" -c 'import aiosmtpd' >&2

echo "$python"
