#!/usr/bin/env python3
"""`check` over an organisation's checkout: many small project folders.

    python3 benches/org.py target/release/permission-lsp [FOLDERS]

Writes FOLDERS (default 1,000) project folders in a temporary directory,
each with one small config of one format in turn (Claude Code, OpenCode,
Codex rules, Qwen Code, Gemini CLI settings, pi), and times `check` over
the whole directory as one process: on every core, and pinned to one core
(the same binary; the difference is what the second core gives). Prints
the median and fastest of 10 runs, the start-up (the same command over an
empty folder) and the time per file after it. Nothing is read
outside the temporary directory (HOME points into it).
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/release/permission-lsp")
FOLDERS = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
RUNS = 10

CONFIGS = [
    (".claude/settings.json", json.dumps({"permissions": {
        "allow": ["Bash(git status)", "Bash(npm run test:*)", "Read(./src/**)"],
        "deny": ["Bash(rm -rf *)", "Read(./.env)"]}}, indent=2)),
    ("opencode.json", json.dumps({"$schema": "https://opencode.ai/config.json", "permission": {
        "bash": {"*": "ask", "git status": "allow", "rm *": "deny"}}}, indent=2)),
    (".codex/rules/default.rules",
     'prefix_rule(pattern = ["git", "status"], decision = "allow")\n'
     'prefix_rule(pattern = ["rm"], decision = "forbidden")\n'),
    (".qwen/settings.json", json.dumps({"permissions": {
        "allow": ["Bash(git status)"], "deny": ["Bash(rm *)"]}}, indent=2)),
    (".gemini/settings.json", json.dumps({"tools": {"exclude": ["run_shell_command(rm)"]}}, indent=2)),
    (".pi/extensions/pi-permission-system/config.json", json.dumps({"permission": {
        "*": "ask", "bash": {"git status": "allow", "rm *": "deny"}}}, indent=2)),
]


def timed(cmd, env, one_core):
    pin = (lambda: os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})) if one_core else None
    times = []
    for _ in range(RUNS):
        t = time.perf_counter()
        r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, preexec_fn=pin)
        times.append(time.perf_counter() - t)
        if r.returncode not in (0, 1):
            sys.exit(f"check exited {r.returncode}")
    return statistics.median(times), min(times)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        org = os.path.join(tmp, "org")
        for i in range(FOLDERS):
            path, text = CONFIGS[i % len(CONFIGS)]
            p = os.path.join(org, f"p{i:05d}", path)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as f:
                f.write(text)
        empty = os.path.join(tmp, "empty")
        os.makedirs(empty)
        env = {**os.environ, "HOME": os.path.join(tmp, "home"), "NO_COLOR": "1"}
        cmd = [BIN, "check", org]
        cores = len(os.sched_getaffinity(0))
        print(f"{FOLDERS} folders, {cores} cores")
        for label, one in [(f"every core ({cores})", False), ("one core", True)]:
            # Start-up: the same command over an empty folder.
            start, _ = timed([BIN, "check", empty], env, one)
            med, best = timed(cmd, env, one)
            print(f"{label:18} median {med * 1000:7.1f} ms  fastest {best * 1000:7.1f} ms"
                  f"  start-up {start * 1000:5.1f} ms"
                  f"  ({(med - start) / FOLDERS * 1000:.3f} ms per file after start-up)")


if __name__ == "__main__":
    main()
