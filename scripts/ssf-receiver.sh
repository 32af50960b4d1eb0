#!/usr/bin/env bash
# Prepares the Python environment that runs scripts/ssf-receiver.py, the Shared Signals
# Framework receiver the tests deliver to and poll with: a virtualenv in
# .build/tools/ssf-venv with the authlib package from PyPI (JWS and JWK).
#
#   scripts/ssf-receiver.sh setup   creates the venv when missing (quick when it is
#                                   there) and prints the path of its python, and
#                                   nothing else, on stdout
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${1:-}" = setup ] || { echo "usage: $0 setup" >&2; exit 64; }
exec scripts/tool-venv.sh ssf-venv authlib authlib
