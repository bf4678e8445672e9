#!/usr/bin/env bash
# Installs the pi-permission-system 26.3.1 oracle into DIR for its
# differential test: the project's reference runtime folder `pi-26.3.1` (the
# real upstream sources; not on the npm registry) copied there, its pinned
# dependencies installed from npm, and the batch driver `oracle.mts` added.
# Usage: setup.sh DIR [REFERENCE_DIR]   (default REFERENCE_DIR: $PI26_REFERENCE,
# else ../shared/reference-runtime/pi-26.3.1 next to the repository). Idempotent.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dir="${1:?usage: setup.sh DIR [REFERENCE_DIR]}"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
ref="${2:-${PI26_REFERENCE:-$here/../../../../shared/reference-runtime/pi-26.3.1}}"
if [ -f "$dir/.installed" ]; then
  cp "$here/oracle.mts" "$dir/"
  exit 0
fi
if [ ! -d "$ref/pkg/src" ]; then
  echo "the 26.3.1 reference runtime is not at $ref" >&2
  exit 1
fi
cp -r "$ref"/. "$dir"/
chmod -R u+w "$dir"
cd "$dir"
npm install --no-audit --no-fund --ignore-scripts --loglevel=error
cp "$here/oracle.mts" "$dir/"
touch .installed
