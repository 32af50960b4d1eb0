#!/usr/bin/env bash
# Prepares a Python tool the tests run from PyPI, in a virtualenv of its own under
# .build/tools (ignored by git, rebuilt along with the build tree).
#
#   scripts/tool-venv.sh NAME MODULE PACKAGE...   creates .build/tools/NAME when missing
#                                                 (quick when it is there), with PACKAGE...
#                                                 installed, and prints the path of its
#                                                 python, and nothing else, on stdout
#
# MODULE is what must import for the venv to count as ready.
set -euo pipefail
cd "$(dirname "$0")/.."

name=${1:-}
module=${2:-}
[ -n "$name" ] && [ -n "$module" ] && [ $# -ge 3 ] || { echo "usage: $0 NAME MODULE PACKAGE..." >&2; exit 64; }
shift 2

venv=.build/tools/$name
python="$(pwd)/$venv/bin/python"

# The import check is what matters, not the directory's existence, since an interrupted
# earlier setup can leave a venv without the package.
ready() { [ -x "$python" ] && "$python" -c "import $module" 2>/dev/null; }

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

echo "==> creating $venv with $*" >&2
# A venv left half-made by an interrupted run may have a broken pip: start it afresh.
rm -rf "$venv"
python3 -m venv "$venv" >&2
"$python" -m pip install -q --disable-pip-version-check "$@" >&2
"$python" -c "import $module" >&2

echo "$python"
