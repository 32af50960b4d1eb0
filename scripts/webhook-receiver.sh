#!/usr/bin/env bash
# Prepares the Python environment that runs scripts/webhook-receiver.py, the webhook
# receiver the tests deliver to: a virtualenv in .build/tools/webhook-venv with the
# standardwebhooks package from PyPI.
#
#   scripts/webhook-receiver.sh setup   creates the venv when missing (quick when it is
#                                       there) and prints the path of its python, and
#                                       nothing else, on stdout
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${1:-}" = setup ] || { echo "usage: $0 setup" >&2; exit 64; }
exec scripts/tool-venv.sh webhook-venv standardwebhooks standardwebhooks
