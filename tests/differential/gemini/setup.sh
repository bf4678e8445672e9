#!/usr/bin/env bash
# Installs the real Gemini CLI 0.61.0 (`@google/gemini-cli` from npm, one bundled package,
# ~100 MB) into DIR with the oracle scripts (driver.py speaks ACP to `gemini --acp`,
# mock_gemini.py is the scripted model on loopback), for the Gemini CLI differential test.
# Idempotent. Needs npm and the registry; running the oracle needs python3, `unshare -n` (root)
# and `ip`.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dir="${1:?usage: setup.sh DIR}"
mkdir -p "$dir"
cp "$here"/driver.py "$here"/mock_gemini.py "$here"/mcp_stub.py "$here"/oracle.sh \
  "$here"/package.json "$dir/"
rm -rf "$dir/stubs" && cp -r "$here/stubs" "$dir/stubs"
chmod +x "$dir/oracle.sh" "$dir"/stubs/*
cd "$dir"
if [ ! -f .installed ]; then
  npm install --no-audit --no-fund --loglevel=error
  v=$(HOME=$(mktemp -d) unshare -n node node_modules/@google/gemini-cli/bundle/gemini.js --version)
  [ "$v" = "0.61.0" ] || { echo "expected Gemini CLI 0.61.0, got $v" >&2; exit 1; }
  touch .installed
fi
echo "Gemini CLI oracle ready in $dir"
