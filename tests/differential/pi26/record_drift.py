#!/usr/bin/env python3
"""Re-observes the drift catalogue on pi-permission-system 26.3.1.

Runs every case of tests/fixtures/conformance/pi-drift-cases.jsonl (observed
on 20.7.3) through the 26.3.1 reference runtime's own driver (`run.sh
simulate.mts`, one process per case) and writes what it did to
tests/fixtures/conformance/pi-drift-cases-26.3.1.jsonl. Temporary file paths
in issue texts become `global.json` / `project.json`.

Usage: record_drift.py <set-up 26.3.1 reference runtime folder>
"""
import json
import pathlib
import re
import subprocess
import sys
import tempfile

root = pathlib.Path(__file__).resolve().parents[3]
runtime = pathlib.Path(sys.argv[1]).resolve()
src = root / "tests/fixtures/conformance/pi-drift-cases.jsonl"
dst = root / "tests/fixtures/conformance/pi-drift-cases-26.3.1.jsonl"
GATE_FIELDS = ["gate", "state", "matchedPattern", "origin", "source", "command",
               "commandContext", "executedUnit", "reason", "message", "noUiMessage"]


def scrub(text):
    return re.sub(r"'[^']*/(global|project)\.json'", r"'\1.json'", text)


out = []
for line in src.read_text(encoding="utf-8").split("\n"):
    if not line.strip():
        continue
    case = json.loads(line)
    spec = {k: v for k, v in case.items() if k not in ("observed", "id", "title", "source")}
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump(spec, f)
        f.flush()
        run = subprocess.run([str(runtime / "run.sh"), "simulate.mts", f.name],
                             capture_output=True, text=True, cwd=runtime, check=True)
    lines = [json.loads(l) for l in run.stdout.splitlines() if l.strip()]
    meta, calls = lines[0], [l for l in lines[1:] if l.get("kind") == "call"]
    observed = {
        "configIssues": [scrub(i) for i in meta.get("configIssues", [])],
        "policyIssues": [scrub(i) for i in meta.get("policyIssues", [])],
        "results": [],
    }
    for k in ("notifications", "activeToolsAfterAgentStart"):
        if k in meta:
            observed[k] = meta[k]
    for c in calls:
        r = {k: c[k] for k in ("tool", "input", "decision", "firstBlock") if k in c}
        r["gates"] = [{k: g[k] for k in GATE_FIELDS if k in g} for g in c.get("gates", [])]
        observed["results"].append(r)
    rec = {k: v for k, v in case.items() if k != "observed"}
    rec["observed"] = observed
    rec["source"] = ("observed by running the real upstream sources of "
                     "@gotgenes/pi-permission-system 26.3.1 (commit f63f97f4); "
                     "case from the 20.7.3 drift catalogue")
    out.append(json.dumps(rec, ensure_ascii=False))
dst.write_text("\n".join(out) + "\n", encoding="utf-8")
print(f"{len(out)} cases -> {dst.relative_to(root)}")
