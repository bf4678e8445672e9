#!/usr/bin/env python3
"""Re-observes the conformance vectors on pi-permission-system 26.3.1.

Runs the reference runtime's own vector driver (`run.sh validate-vectors.mts`,
which replays tests/fixtures/conformance/pi-vectors.jsonl — facts of 20.7.3 —
against the 26.3.1 sources) and writes
tests/fixtures/conformance/pi-vectors-26.3.1.jsonl: every vector it ran, with
the expectation replaced by what 26.3.1 answered where the two differ. The
message vectors are left out: 26.3.1 removed that module (its texts are
checked by the drift cases and the 26.3.1 differential test).

Usage: record_vectors.py <set-up 26.3.1 reference runtime folder>
"""
import json
import pathlib
import re
import subprocess
import sys

root = pathlib.Path(__file__).resolve().parents[3]
runtime = pathlib.Path(sys.argv[1]).resolve()
src = root / "tests/fixtures/conformance/pi-vectors.jsonl"
dst = root / "tests/fixtures/conformance/pi-vectors-26.3.1.jsonl"

run = subprocess.run([str(runtime / "run.sh"), "validate-vectors.mts", str(src)],
                     capture_output=True, text=True, cwd=runtime)
report = run.stdout.split("\n")
summary = [l for l in report if re.match(r"\d+ passed, \d+ failed, \d+ skipped", l)]
if not summary:
    sys.exit(f"no summary from the vector driver:\n{run.stdout}\n{run.stderr}")
got = {}
for i, line in enumerate(report):
    m = re.match(r"FAIL #(\d+) ", line)
    if not m:
        continue
    detail = report[i + 1].strip()
    field, rest = detail.split(": expected ", 1)
    _, answer = rest.split(" got ", 1)
    got.setdefault(int(m.group(1)), {})[field] = json.loads(answer)

out = []
vectors = [l for l in src.read_text(encoding="utf-8").split("\n") if l.strip()]
for n, line in enumerate(vectors, start=1):
    v = json.loads(line)
    if v["level"] == "message":
        continue
    if n in got:
        v["expected"].update(got[n])
        v["observed26"] = "expectation as the 26.3.1 sources answered (differs from 20.7.3)"
    out.append(json.dumps(v, ensure_ascii=False))
dst.write_text("\n".join(out) + "\n", encoding="utf-8")
print(f"{summary[-1]}; {len(out)} vectors ({len(got)} changed) -> {dst.relative_to(root)}")
