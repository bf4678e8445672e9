#!/usr/bin/env bash
# Times vscode-json-languageservice on the benchmark configs (see BENCHMARKS.md),
# and, with PERMISSION_LSP_BIN=target/release/permission-lsp, `permission-lsp check`
# on the same files in the same run.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# The binary is run from a temporary folder: name it from here.
if [ -n "${PERMISSION_LSP_BIN:-}" ]; then
  PERMISSION_LSP_BIN="$(cd "$(dirname "$PERMISSION_LSP_BIN")" && pwd)/$(basename "$PERMISSION_LSP_BIN")"
  export PERMISSION_LSP_BIN
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$here/package.json" "$here/compare.mjs" "$work/"
cd "$work"
npm install --no-audit --no-fund --silent
# The runtime's own schema, from the published package.
tarball=$(npm pack --silent @gotgenes/pi-permission-system@20.7.3)
tar -xzf "$tarball" package/schemas/permissions.schema.json
node compare.mjs package/schemas/permissions.schema.json "$here/../data/small.json" "$here/../data/bash-10k.json" "$here/../data/gen-big-10k.json"
