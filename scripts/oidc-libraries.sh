#!/usr/bin/env bash
# Prepares the Python environment that runs scripts/oidc-libraries.py, which drives the
# OpenID Connect face with libraries nobody here wrote: a virtualenv in
# .build/tools/oidc-venv with authlib and auth0-python from PyPI, versions pinned.
#
#   scripts/oidc-libraries.sh setup   creates the venv when missing (quick when it is
#                                     there) and prints the path of its python, and
#                                     nothing else, on stdout
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${1:-}" = setup ] || { echo "usage: $0 setup" >&2; exit 64; }
exec scripts/tool-venv.sh oidc-venv "authlib, auth0" "authlib==1.9.6" "auth0-python==6.8.0" "requests>=2.31"
