#!/usr/bin/env bash
# Regenerates the Admin API's types and server protocol from Sources/AdminAPI/openapi.yaml
# with swift-openapi-generator's command plugin, into Sources/AdminAPI/GeneratedSources.
# The output is committed; run this after changing the document. The generator builds in
# a scratch folder of its own so that it does not disturb the main build.
set -euo pipefail
cd "$(dirname "$0")/.."
swift package --scratch-path .build-openapi --allow-writing-to-package-directory \
    generate-code-from-openapi --target AdminAPI
