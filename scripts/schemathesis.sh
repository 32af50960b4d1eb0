#!/usr/bin/env bash
# Prepares Schemathesis (PyPI), which tests the Admin API against its OpenAPI document: a
# virtualenv in .build/tools/schemathesis-venv.
#
#   scripts/schemathesis.sh setup   creates the venv when missing (quick when it is there)
#                                   and prints the path of its schemathesis command, and
#                                   nothing else, on stdout
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${1:-}" = setup ] || { echo "usage: $0 setup" >&2; exit 64; }
python=$(scripts/tool-venv.sh schemathesis-venv schemathesis "schemathesis>=4.3,<5")
echo "$(dirname "$python")/schemathesis"
