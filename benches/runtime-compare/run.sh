#!/usr/bin/env bash
# Per-call cost of the real runtime (one process, the differential test's
# oracle) against `permission-lsp simulate --batch`, on the same calls.
# Usage: benches/runtime-compare/run.sh [ORACLE_DIR]   (from the repository root)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
oracle="${1:-$root/target/tmp/differential-oracle}"
bash "$root/tests/differential/setup.sh" "$oracle" >/dev/null
cargo build --release --quiet --manifest-path "$root/Cargo.toml"
bin="$root/target/release/permission-lsp"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
config="$root/benches/data/small.json"
mkdir -p "$work/agent/extensions/pi-permission-system"
cp "$config" "$work/agent/extensions/pi-permission-system/config.json"

calls() { # KIND N
  python3 - "$1" "$2" <<'PY'
import json, sys
kind, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    if kind == "non-bash":
        c = [{"tool": "skill", "input": {"name": f"skill-{i}"}}, {"tool": "mcp", "input": {"tool": "web_search_exa"}}, {"tool": "TaskCreate", "input": {}}][i % 3]
    elif kind == "bash":
        c = {"tool": "bash", "input": {"command": f"git log -{i % 9 + 1} && cargo test 2>&1 | tail -20"}}
    else:
        c = {"tool": "bash", "input": {"command": " && ".join(f"echo $(date) step{j} > /tmp/log{j}" for j in range(20))}}
    print(json.dumps(c))
PY
}

for kind in non-bash bash long-bash; do
  for n in 1 2001; do
    calls "$kind" "$n" > "$work/calls-$n.jsonl"
    python3 - "$config" "$work/calls-$n.jsonl" > "$work/case-$n.jsonl" <<'PY'
import json, sys
calls = [json.loads(l) for l in open(sys.argv[2])]
print(json.dumps({"id": 0, "global": open(sys.argv[1]).read(), "cwd": "/workspace/project", "mcpServerNames": ["exa", "github"], "calls": calls}))
PY
    s=$(date +%s.%N); HOME=/home/bench bash "$root/tests/differential/run.sh" "$oracle" "$work/case-$n.jsonl" > /dev/null; e=$(date +%s.%N)
    rt[$n]=$(echo "$e - $s" | bc)
    s=$(date +%s.%N); PI_CODING_AGENT_DIR="$work/agent" "$bin" simulate --cwd /workspace/project --home /home/bench --batch "$work/calls-$n.jsonl" --format json > /dev/null; e=$(date +%s.%N)
    pl[$n]=$(echo "$e - $s" | bc)
  done
  rt_call=$(echo "scale=6; (${rt[2001]} - ${rt[1]}) / 2000 * 1000" | bc)
  pl_call=$(echo "scale=6; (${pl[2001]} - ${pl[1]}) / 2000 * 1000" | bc)
  echo "$kind: runtime ${rt[1]} s to start, ${rt_call} ms/call; permission-lsp ${pl[1]} s cold, ${pl_call} ms/call; ratio $(echo "scale=1; $rt_call / $pl_call" | bc)x"
done
