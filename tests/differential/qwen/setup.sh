#!/usr/bin/env bash
# Installs the real Qwen Code CLI 0.24.4 (`@qwen-code/qwen-code` from npm, one bundled package,
# ~145 MB) into DIR with the oracle scripts (driver.py speaks ACP to `qwen --acp`, mock_chat.py is
# the scripted model on loopback), for the Qwen Code differential test. Idempotent. Needs npm and
# the registry; running the oracle needs python3, `unshare -n` (root) and `ip`.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dir="${1:?usage: setup.sh DIR}"
mkdir -p "$dir"
cp "$here"/driver.py "$here"/mock_chat.py "$here"/mcp_stub.py "$here"/oracle.sh \
  "$here"/expect.py "$here"/summarize.py "$here"/package.json "$dir/"
rm -rf "$dir/stubs" && cp -r "$here/stubs" "$dir/stubs"
chmod +x "$dir/oracle.sh" "$dir"/stubs/*
cd "$dir"
if [ ! -f .installed ]; then
  npm install --no-audit --no-fund --loglevel=error
  v=$(HOME=$(mktemp -d) unshare -n node node_modules/@qwen-code/qwen-code/cli-entry.js --version)
  [ "$v" = "0.24.4" ] || { echo "expected Qwen Code 0.24.4, got $v" >&2; exit 1; }
  touch .installed
fi
echo "Qwen Code oracle ready in $dir"
