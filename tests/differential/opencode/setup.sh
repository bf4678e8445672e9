#!/usr/bin/env bash
# Installs the real OpenCode CLI (opencode-linux-x64 1.18.33 from npm, a
# self-contained binary of ~180 MB) into DIR with the oracle scripts, for the
# OpenCode differential test. Idempotent. Needs npm and the registry;
# running the oracle needs Node.js, `unshare -n` (root) and `ip`.
# --ignore-scripts: the package's postinstall would run opencode with the
# real HOME.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dir="${1:?usage: setup.sh DIR}"
mkdir -p "$dir/scratch"
cp "$here"/env.sh "$here"/oc "$here"/inns.sh "$here"/oracle.sh "$here"/driver.mjs \
  "$here"/mock-provider.mjs "$here"/provider.json "$here"/package.json \
  "$here"/frontmatter.js "$dir/"
chmod +x "$dir/oc" "$dir/inns.sh" "$dir/oracle.sh"
cd "$dir"
# (Installed again when package.json gained a dependency.)
if [ ! -f .installed ] || [ ! -d node_modules/gray-matter ]; then
  npm install --no-audit --no-fund --ignore-scripts --loglevel=error
  chmod +x node_modules/opencode-linux-x64/bin/opencode
  test -x node_modules/opencode-linux-x64/bin/opencode
  touch .installed
fi
