#!/usr/bin/env bash
# Install the real MCP clients and servers the tests/clients suite drives, pinned by package-lock.json.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund
# npm may skip install scripts; Claude Code's postinstall puts its native binary in place.
node node_modules/@anthropic-ai/claude-code/install.cjs
# ESM imports resolve from the script's directory: let tests/clients see these packages.
ln -sfn ../../.ci/clients/node_modules ../../tests/clients/node_modules
