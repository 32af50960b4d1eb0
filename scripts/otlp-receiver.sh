#!/usr/bin/env bash
# Prepares the Python environment that runs scripts/otlp-receiver.py, the OpenTelemetry
# collector the tests export traces, logs and metrics to: a virtualenv in
# .build/tools/otlp-venv with opentelemetry-proto (the OTLP protobuf classes) from PyPI.
#
#   scripts/otlp-receiver.sh setup   creates the venv when missing (quick when it is there)
#                                    and prints the path of its python, and nothing else,
#                                    on stdout
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${1:-}" = setup ] || { echo "usage: $0 setup" >&2; exit 64; }
exec scripts/tool-venv.sh otlp-venv opentelemetry.proto opentelemetry-proto
