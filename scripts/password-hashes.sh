#!/usr/bin/env bash
# Prepares the Python environment that runs scripts/password-hashes.py, which the import
# tests use to hash passwords with reference implementations: a virtualenv in
# .build/tools/hashes-venv with the bcrypt and argon2-cffi packages from PyPI.
#
#   scripts/password-hashes.sh setup   creates the venv when missing (quick when it is
#                                      there) and prints the path of its python, and
#                                      nothing else, on stdout
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${1:-}" = setup ] || { echo "usage: $0 setup" >&2; exit 64; }
exec scripts/tool-venv.sh hashes-venv "bcrypt, argon2" bcrypt argon2-cffi
