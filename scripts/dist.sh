#!/usr/bin/env bash
# Builds every install artifact into target/dist/:
#   permission-lsp-<v>.tgz, permission-lsp-cli-linux-x64-<v>.tgz  npm: the launcher package and
#       the binary's platform package (optionalDependencies pick the platform's, as biome and
#       esbuild do; other platforms are one more package each)
#   permission_lsp-<v>-py3-none-manylinux_*_x86_64.whl           pip: the binary in a wheel (maturin)
#   permission-lsp-linux-x64-<v>.vsix                              VS Code: the extension with the server inside
#   bin/permission-lsp                                             the binary itself (stripped)
# `cargo install --path .` needs no artifact. Needs cargo, npm, python3 (maturin is installed into
# target/dist-venv from PyPI when missing). Tested by tests/e2e/test_install.py.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
VERSION=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
DIST=$ROOT/target/dist
rm -rf "$DIST"
mkdir -p "$DIST/bin"

echo "dist: release binary"
cargo build --release --locked --quiet
if command -v strip >/dev/null 2>&1; then
  strip -o "$DIST/bin/permission-lsp" target/release/permission-lsp
else
  cp target/release/permission-lsp "$DIST/bin/permission-lsp"
fi
chmod 755 "$DIST/bin/permission-lsp"

echo "dist: npm packages"
NPM=$DIST/npm
mkdir -p "$NPM/cli-linux-x64/bin" "$NPM/permission-lsp/bin"
cp "$DIST/bin/permission-lsp" "$NPM/cli-linux-x64/bin/permission-lsp"
cat > "$NPM/cli-linux-x64/package.json" <<JSON
{
  "name": "@permission-lsp/cli-linux-x64",
  "version": "$VERSION",
  "description": "The permission-lsp binary for Linux x64 (installed by the permission-lsp package).",
  "license": "MIT OR Apache-2.0",
  "repository": { "type": "git", "url": "https://github.com/permission-lsp/permission-lsp" },
  "os": ["linux"],
  "cpu": ["x64"],
  "files": ["bin/permission-lsp"],
  "preferUnplugged": true
}
JSON
cp scripts/npm/permission-lsp.js "$NPM/permission-lsp/bin/permission-lsp.js"
chmod 755 "$NPM/permission-lsp/bin/permission-lsp.js"
cp README.md "$NPM/permission-lsp/README.md"
cat > "$NPM/permission-lsp/package.json" <<JSON
{
  "name": "permission-lsp",
  "version": "$VERSION",
  "description": "Language server and checker for the permission configs of AI coding agents: Claude Code, OpenCode, Codex CLI, Gemini CLI, Qwen Code, pi-permission-system.",
  "license": "MIT OR Apache-2.0",
  "repository": { "type": "git", "url": "https://github.com/permission-lsp/permission-lsp" },
  "keywords": ["lsp", "linter", "claude-code", "opencode", "codex", "gemini-cli", "permissions"],
  "bin": { "permission-lsp": "bin/permission-lsp.js" },
  "files": ["bin/permission-lsp.js", "README.md"],
  "engines": { "node": ">=18" },
  "optionalDependencies": { "@permission-lsp/cli-linux-x64": "$VERSION" }
}
JSON
(cd "$NPM/cli-linux-x64" && npm pack --silent --pack-destination "$DIST" >/dev/null)
(cd "$NPM/permission-lsp" && npm pack --silent --pack-destination "$DIST" >/dev/null)

echo "dist: Python wheel (maturin)"
MATURIN=$(command -v maturin || true)
if [ -z "$MATURIN" ]; then
  python3 -m venv "$ROOT/target/dist-venv"
  "$ROOT/target/dist-venv/bin/pip" install -q "maturin>=1.5,<2"
  MATURIN=$ROOT/target/dist-venv/bin/maturin
fi
"$MATURIN" build --release --locked --quiet --out "$DIST" >/dev/null

echo "dist: VS Code extension with the server inside"
EXT=$DIST/vscode
mkdir -p "$EXT"
(cd editors/vscode && tar cf - --exclude=node_modules --exclude=out --exclude='*.vsix' .) | (cd "$EXT" && tar xf -)
mkdir -p "$EXT/server"
cp "$DIST/bin/permission-lsp" "$EXT/server/permission-lsp"
(cd "$EXT" && export PERMISSION_LSP_ROOT="$ROOT" && npm ci --no-audit --no-fund --loglevel=error >/dev/null \
  && npm run compile --silent >/dev/null \
  && npx --no-install vsce package --allow-missing-repository --target linux-x64 \
       -o "$DIST/permission-lsp-linux-x64-$VERSION.vsix" >/dev/null)
rm -rf "$EXT" "$NPM"

ls -la "$DIST"
