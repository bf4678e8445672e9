"""The CI conventions a linter is reached through: the pre-commit hook
(`.pre-commit-hooks.yaml`, run by `pre-commit try-repo` on a sample
repository) and the GitHub Action (`action.yml`: its shell steps run in
order, as the runner would, on a sample repository; the SARIF upload step
needs GitHub and is only checked for its inputs)."""

import os
import pathlib
import re
import shutil
import subprocess

import pytest
import yaml

from conftest import BIN, ROOT

PRE_COMMIT = shutil.which("pre-commit") or str(pathlib.Path(os.sys.executable).parent / "pre-commit")


def git(repo: pathlib.Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                   env=dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
                            GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t"))


BROKEN = '{\n  "permissions": {\n    "deny": ["Bash(rm:*)"],\n  }\n}\n'
FIXED = '{\n  "permissions": {\n    "deny": ["Bash(rm:*)"]\n  }\n}\n'


def sample_repo(tmp_path: pathlib.Path, claude: str = BROKEN) -> pathlib.Path:
    """A repository with a Claude Code settings file (by default with a
    trailing comma: Claude Code drops the whole file, CC001, an error), an
    OpenCode config and a file that is no config."""
    repo = tmp_path / "sample"
    (repo / ".claude").mkdir(parents=True)
    (repo / ".claude" / "settings.json").write_text(claude)
    (repo / "opencode.json").write_text('{"permission": {"bash": {"*": "ask", "rm *": "deny"}}}\n')
    (repo / "README.md").write_text("not a config\n")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "init")
    return repo


def bin_dir(tmp_path: pathlib.Path) -> pathlib.Path:
    d = tmp_path / "bin"
    d.mkdir(exist_ok=True)
    link = d / "permission-lsp"
    if not link.exists():
        link.symlink_to(BIN)
    return d


@pytest.mark.skipif(not pathlib.Path(PRE_COMMIT).exists(), reason="pre-commit is not installed")
def test_the_pre_commit_hook_checks_the_configs_of_a_commit(tmp_path: pathlib.Path):
    repo = sample_repo(tmp_path)
    env = dict(os.environ, PATH=f"{bin_dir(tmp_path)}:{os.environ['PATH']}",
               PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"))
    run = lambda: subprocess.run([PRE_COMMIT, "try-repo", str(ROOT), "permission-lsp-system", "--all-files"],
                                 cwd=repo, env=env, capture_output=True, text=True, timeout=300)
    r = run()
    out = r.stdout + r.stderr
    assert r.returncode == 1, out
    assert "error[CC001]" in out and ".claude/settings.json" in out, out
    assert "README.md" not in out.split("Using config:")[-1].split("===")[-1], out
    # Fixed: the hook passes.
    (repo / ".claude" / "settings.json").write_text(FIXED)
    git(repo, "commit", "-qam", "fix")
    r = run()
    assert r.returncode == 0, r.stdout + r.stderr
    # Both hooks name the same files and command.
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert {h["id"] for h in hooks} == {"permission-lsp", "permission-lsp-system"}
    assert len({(h["entry"], h["files"]) for h in hooks}) == 1
    assert next(h for h in hooks if h["id"] == "permission-lsp")["language"] == "rust"


def substitute(text: str, inputs: dict, outputs: dict) -> str:
    text = re.sub(r"\$\{\{\s*inputs\.(\w+)\s*\}\}", lambda m: str(inputs.get(m.group(1), "")), text)
    return re.sub(r"\$\{\{\s*steps\.(\w+)\.outputs\.(\w+)\s*\}\}",
                  lambda m: outputs.get(m.group(2), ""), text)


def condition(expr: str, inputs: dict) -> bool:
    m = re.fullmatch(r"inputs\.(\w+)\s*(==|!=)\s*'([^']*)'", expr.strip())
    assert m, f"an if: the test cannot evaluate: {expr}"
    value = str(inputs.get(m.group(1), ""))
    return (value == m.group(3)) == (m.group(2) == "==")


def test_the_actions_steps_run_on_a_sample_repository(tmp_path: pathlib.Path):
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    repo = sample_repo(tmp_path, FIXED)
    # The change under review: OpenCode's `rm *` deny goes, everything is allowed.
    (repo / "opencode.json").write_text('{"permission": {"bash": {"*": "allow"}}}\n')
    git(repo, "commit", "-qam", "change")
    inputs = {k: v.get("default", "") for k, v in action["inputs"].items()}
    inputs.update(base="HEAD~1", binary=BIN, upload="false")
    github_path = tmp_path / "github_path"
    github_output = tmp_path / "github_output"
    github_path.write_text("")
    env = dict(os.environ, GITHUB_ACTION_PATH=str(ROOT), RUNNER_TEMP=str(tmp_path / "runner"),
               GITHUB_PATH=str(github_path), HOME=str(tmp_path / "home"))
    outputs: dict = {}
    ran = []
    statuses = {}
    for step in action["runs"]["steps"]:
        if "if" in step and not condition(step["if"], inputs):
            continue
        if "uses" in step:
            # Needs GitHub: only its inputs are checked.
            assert step["with"]["sarif_file"] == "${{ inputs.sarif }}"
            continue
        github_output.write_text("")
        step_env = dict(env, GITHUB_OUTPUT=str(github_output))
        extra = [p for p in github_path.read_text().splitlines() if p]
        if extra:
            step_env["PATH"] = ":".join(extra) + ":" + os.environ["PATH"]
        for k, v in (step.get("env") or {}).items():
            step_env[k] = substitute(str(v), inputs, outputs)
        r = subprocess.run(["bash", "-c", substitute(step["run"], inputs, outputs)], cwd=repo, env=step_env,
                           capture_output=True, text=True, timeout=300)
        for line in github_output.read_text().splitlines():
            k, _, v = line.partition("=")
            outputs[k] = v
        ran.append(step["name"])
        statuses[step["name"]] = (r.returncode, r.stdout + r.stderr)
    assert ran == ["Install permission-lsp", "Check the configs (SARIF)",
                   "What the change newly allows, asks or denies", "Fail on errors"], ran
    assert statuses["Install permission-lsp"][0] == 0, statuses
    sarif = (repo / inputs["sarif"]).read_text()
    assert '"version": "2.1.0"' in sarif or '"version":"2.1.0"' in sarif, sarif[:300]
    # No error in the files: the check passes, the gate too.
    assert outputs.get("status") == "0", statuses
    assert statuses["Fail on errors"][0] == 0, statuses
    # The removed deny shows as newly allowed, annotated for GitHub.
    code, out = statuses["What the change newly allows, asks or denies"]
    assert code == 0 and "::error" in out and "newly allowed" in out and "rm" in out, out
