#!/usr/bin/env bash
# Prepares the Python environment that runs scripts/ory-sdks.py, which drives the Kratos
# face with Ory's own generated SDKs: a virtualenv in .build/tools/ory-venv with
# ory-kratos-client and ory-client from PyPI, versions pinned, and cryptography for the
# script's software passkeys.
#
#   scripts/ory-sdks.sh setup   creates the venv when missing (quick when it is there) and
#                               prints the path of its python, and nothing else, on stdout
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${1:-}" = setup ] || { echo "usage: $0 setup" >&2; exit 64; }
exec scripts/tool-venv.sh ory-venv "ory_kratos_client, ory_client, cryptography" "ory-kratos-client==25.4.0" "ory-client==1.22.87" "cryptography==50.0.2"
