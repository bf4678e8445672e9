#!/usr/bin/env bash
# Installs the real Codex CLI 0.169.0 (`@openai/codex` from npm: the wrapper
# and the linux-x64 native binary, ~400 MB) into DIR with the oracle scripts,
# for the Codex differential test. Idempotent. Needs npm and the registry;
# running the oracle needs python3, `unshare -n` (root) and `ip`.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dir="${1:?usage: setup.sh DIR}"
mkdir -p "$dir"
cp "$here"/driver.py "$here"/mock_responses.py "$here"/oracle.sh "$here"/oracle-etc.sh \
  "$here"/check.sh "$here"/package.json "$dir/"
rm -rf "$dir/stubs" && cp -r "$here/stubs" "$dir/stubs"
chmod +x "$dir/oracle.sh" "$dir/oracle-etc.sh" "$dir/check.sh" "$dir"/stubs/*
cd "$dir"
if [ ! -f .installed ]; then
  npm install --no-audit --no-fund --loglevel=error
  v=$(unshare -n node_modules/.bin/codex --version)
  [ "$v" = "codex-cli 0.169.0" ] || { echo "expected codex-cli 0.169.0, got $v" >&2; exit 1; }
  touch .installed
fi
