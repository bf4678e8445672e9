#!/usr/bin/env node
// The `permission-lsp` command of the npm package: runs the binary of the
// platform package npm installed beside it (optionalDependencies, one package
// per platform, as biome and esbuild ship), with the same arguments, stdio
// and exit status. PERMISSION_LSP_BINARY names another binary.
"use strict";
const { spawnSync } = require("node:child_process");
const { existsSync } = require("node:fs");
const path = require("node:path");

const PLATFORMS = { "linux-x64": "@permission-lsp/cli-linux-x64" };

function binary() {
  if (process.env.PERMISSION_LSP_BINARY) return process.env.PERMISSION_LSP_BINARY;
  const key = `${process.platform}-${process.arch}`;
  const pkg = PLATFORMS[key];
  if (!pkg) {
    console.error(`permission-lsp: no binary for ${key} in this package (platforms: ${Object.keys(PLATFORMS).join(", ")}); install it with \`cargo install permission-lsp\` and set PERMISSION_LSP_BINARY`);
    process.exit(2);
  }
  try {
    return require.resolve(`${pkg}/bin/permission-lsp`);
  } catch {
    // Installed side by side (both packages given to `npm install -g`).
    const sibling = path.join(__dirname, "..", "..", ...pkg.split("/"), "bin", "permission-lsp");
    if (existsSync(sibling)) return sibling;
    const nested = path.join(__dirname, "..", "node_modules", ...pkg.split("/"), "bin", "permission-lsp");
    if (existsSync(nested)) return nested;
  }
  console.error(`permission-lsp: the platform package ${pkg} is not installed (npm skipped the optional dependency?): reinstall, or set PERMISSION_LSP_BINARY`);
  process.exit(2);
}

const r = spawnSync(binary(), process.argv.slice(2), { stdio: "inherit" });
if (r.error) {
  console.error(`permission-lsp: ${r.error.message}`);
  process.exit(2);
}
if (r.signal) process.kill(process.pid, r.signal);
process.exit(r.status ?? 2);
