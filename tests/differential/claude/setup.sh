#!/usr/bin/env bash
# Installs the real Claude Code CLI (@anthropic-ai/claude-code 2.1.332, a
# self-contained binary of ~400 MB) from npm into DIR with the oracle driver,
# for the Claude Code differential test. Idempotent. Needs npm and the npm
# registry; running the oracle needs `unshare -n` (root) and `ip`.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dir="${1:?usage: setup.sh DIR}"
mkdir -p "$dir"
cp -r "$here/oracle.py" "$here/mock_anthropic.py" "$here/mcp_stub.py" \
  "$here/run_oracle.sh" "$here/package.json" "$here/stubs" "$dir/"
chmod +x "$dir/run_oracle.sh" "$dir"/stubs/*
cd "$dir"
if [ ! -f .installed ]; then
  npm install --no-audit --no-fund --loglevel=error
  test -x node_modules/@anthropic-ai/claude-code-linux-x64/claude
  touch .installed
fi
