#!/usr/bin/env python3
"""The reliability budgets for every format: a 10 MB config checked in at most
2 s and 300 MB, and a long command line simulated.

    python3 benches/budgets.py target/release/permission-lsp [MB]

Writes each format's file where its runtime reads it in a fresh project
folder (a git repository, a home of its own), runs `check` on it — and
`simulate` of a 20,000-part command line under each runtime — with
`/usr/bin/time`, and prints one line per run: seconds, peak memory, the
exit status and, for `simulate`, whether the answer was complete. Deterministic inputs; nothing is read
outside the temporary folder.
"""
import json
import os
import subprocess
import sys
import tempfile

BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/release/permission-lsp")
MB = float(sys.argv[2]) if len(sys.argv) > 2 else 10.0
SIZE = int(MB * 1024 * 1024)


def claude(n):
    allow = [f"Bash(cmd{i} sub:*)" for i in range(n * 3 // 4)]
    deny = [f"Bash(cmd{i} sub --force)" for i in range(n // 4)]
    return ".claude/settings.json", json.dumps({"permissions": {"allow": allow, "deny": deny}}, indent=2)


def opencode(n):
    bash = {f"cmd{i} *": ("allow" if i % 2 else "deny") for i in range(n)}
    bash["*"] = "ask"
    return "opencode.json", json.dumps({"$schema": "https://opencode.ai/config.json", "permission": {"bash": bash}}, indent=2)


def opencode_agent(n):
    keys = [f'    "cmd{i} *": allow' for i in range(n)]
    return ".opencode/agents/big.md", "---\ndescription: big\npermission:\n  bash:\n" + "\n".join(keys) + '\n    "*": ask\n---\nBody.\n'


def pi(n):
    bash = {f"cmd{i} sub *": ("allow" if i % 2 else "deny") for i in range(n)}
    bash["*"] = "ask"
    return ".pi/extensions/pi-permission-system/config.json", json.dumps({"permission": {"*": "ask", "bash": bash}}, indent=2)


def codex(n):
    lines = [
        f'prefix_rule(pattern = ["cmd{i}", "sub"], decision = "{["allow", "prompt", "forbidden"][i % 3]}")'
        for i in range(n)
    ]
    return ".codex/rules/big.rules", "\n".join(lines) + "\n"


def gemini(n):
    rules = [
        f'[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "cmd{i}"\ndecision = "{["allow", "deny", "ask_user"][i % 3]}"\npriority = {100 + i % 800}\n'
        for i in range(n)
    ]
    return "home/.gemini/policies/big.toml", "\n".join(rules)


def qwen(n):
    allow = [f"Bash(cmd{i} *)" for i in range(n * 3 // 4)]
    deny = [f"Bash(cmd{i} --force)" for i in range(n // 4)]
    return ".qwen/settings.json", json.dumps({"permissions": {"allow": allow, "deny": deny}}, indent=2)


def sized(make, size):
    """The file of `make` closest to `size` bytes."""
    n = 1000
    for _ in range(3):
        _, text = make(n)
        n = max(1, int(n * size / len(text)))
    return make(n), n


FORMATS = [
    ("claude-code", claude),
    ("opencode", opencode),
    ("opencode", opencode_agent),
    ("pi", pi),
    # This checker evaluates no Codex rules file over 4 MiB (a bound of its
    # own, not Codex's): checked at that size.
    ("codex", codex),
    ("gemini", gemini),
    ("qwen", qwen),
]


def timed(args, cwd, env, keep_output=False):
    r = subprocess.run(
        ["/usr/bin/time", "-f", "%e %M"] + args,
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE if keep_output else subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    secs, kb = r.stderr.strip().splitlines()[-1].split()
    if keep_output:
        return float(secs), int(kb) // 1024, r.returncode, r.stdout
    return float(secs), int(kb) // 1024, r.returncode


def main():
    print(f"{'runtime':<12} {'file':<34} {'size':>8} {'rules':>8} {'command':<22} {'time':>7} {'peak':>7} exit")
    for runtime, make in FORMATS:
        with tempfile.TemporaryDirectory() as d:
            proj = os.path.join(d, "project")
            home = os.path.join(d, "home")
            os.makedirs(proj)
            os.makedirs(home)
            subprocess.run(["git", "init", "-q", proj], check=True)
            limit = 4 * 1024 * 1024 - 1024 if make is codex else SIZE
            (rel, text), n = sized(make, limit)
            path = os.path.join(d, rel) if rel.startswith("home/") else os.path.join(proj, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
            env = dict(os.environ, HOME=home, XDG_CONFIG_HOME=os.path.join(home, ".config"))
            for label, args in [
                ("check", [BIN, "check", path]),
                ("check --scopes", [BIN, "check", "--scopes", path]),
            ]:
                secs, mb, rc = timed(args, proj, env)
                print(f"{runtime:<12} {rel:<34} {len(text) / 1e6:>6.1f}MB {n:>8} {label:<22} {secs:>6.2f}s {mb:>5}MB {rc}")
    # A long command line, under each runtime's defaults.
    with tempfile.TemporaryDirectory() as d:
        proj = os.path.join(d, "project")
        os.makedirs(proj)
        subprocess.run(["git", "init", "-q", proj], check=True)
        env = dict(os.environ, HOME=d)
        for shape, line in [
            ("20,000 &&", " && ".join(["ls"] * 20000)),
            # (One argument is at most 128 KiB.)
            ("5,000 pipes", " | ".join(f"cat 'f {i}' \"g{i}\"" for i in range(5000))),
            # A pipeline with a syntax error after it: quadratic in the
            # bash grammar, refused by the reader (the answer incomplete).
            ("8,000 pipes, then )", "a|" * 8000 + "a )"),
            ("64 pipes, then )", "a|" * 64 + "a )"),
        ]:
            for runtime in ["claude-code", "opencode", "codex", "gemini", "qwen", "pi"]:
                secs, mb, rc, out = timed(
                    [BIN, "simulate", "--runtime", runtime, "--command", line, "--format", "json"],
                    proj,
                    env,
                    keep_output=True,
                )
                complete = "incomplete" if '"incomplete"' in out else "complete"
                print(f"{runtime:<12} {'(defaults)':<34} {len(line) / 1e6:>6.2f}MB {'':>8} {'simulate ' + shape:<22} {secs:>6.2f}s {mb:>5}MB {rc} {complete}")


if __name__ == "__main__":
    main()
