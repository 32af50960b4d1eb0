#!/usr/bin/env bash
# Prepares the Python environment that runs scripts/smtp-sink.py, the SMTP server the tests
# send mail to: a virtualenv in .build/tools/smtp-venv with aiosmtpd from PyPI.
#
#   scripts/smtp-sink.sh setup   creates the venv when missing (quick when it is there) and
#                                prints the path of its python, and nothing else, on stdout
#
# Then: "$python" scripts/smtp-sink.py --help
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${1:-}" = setup ] || { echo "usage: $0 setup" >&2; exit 64; }
exec scripts/tool-venv.sh smtp-venv aiosmtpd aiosmtpd
