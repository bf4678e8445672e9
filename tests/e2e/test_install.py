"""Each install artifact (built by scripts/dist.sh into target/dist/, or
PERMISSION_LSP_DIST) installs into an empty prefix and runs `check` on a
Claude Code project: the npm packages (`npm i -g`, and `npx` in a project),
the Python wheel (`pip install` into an empty venv), the VS Code `.vsix` with
the server inside (its contents here; the extension itself runs in a real VS
Code in tests/e2e/vscode with `--bundled`), and `cargo install --path .`."""

import os
import pathlib
import shutil
import subprocess
import sys
import zipfile

import pytest

from conftest import ROOT

DIST = pathlib.Path(os.environ.get("PERMISSION_LSP_DIST", ROOT / "target" / "dist"))
needs_dist = pytest.mark.skipif(not DIST.is_dir(), reason="no target/dist: run scripts/dist.sh")


def one(pattern: str) -> pathlib.Path:
    found = sorted(DIST.glob(pattern))
    assert len(found) == 1, f"{pattern}: {found}"
    return found[0]


def claude_project(tmp_path: pathlib.Path) -> pathlib.Path:
    proj = tmp_path / "proj"
    (proj / ".claude").mkdir(parents=True)
    (proj / ".claude" / "settings.json").write_text(
        '{"permissions": {"allow": ["Bash(rm -rf *)"], "deny": ["Bash(rm *)"]}}\n')
    return proj


def checks_the_project(binary: list, tmp_path: pathlib.Path, cwd=None) -> None:
    proj = claude_project(tmp_path)
    r = subprocess.run([*binary, "check", str(proj / ".claude" / "settings.json")], cwd=cwd or proj,
                       capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, HOME=str(tmp_path)))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "warning[CC014]" in r.stdout, r.stdout + r.stderr


@needs_dist
@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")
def test_npm_global_install_and_npx(tmp_path: pathlib.Path):
    platform, main = one("permission-lsp-cli-linux-x64-*.tgz"), one("permission-lsp-[0-9]*.tgz")
    prefix = tmp_path / "npm-prefix"
    r = subprocess.run(["npm", "install", "-g", "--prefix", str(prefix), "--no-audit", "--no-fund",
                        str(platform), str(main)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    checks_the_project([str(prefix / "bin" / "permission-lsp")], tmp_path)
    # npx in a project that depends on it.
    app = tmp_path / "app"
    app.mkdir()
    (app / "package.json").write_text('{"name": "app", "version": "1.0.0", "private": true}\n')
    r = subprocess.run(["npm", "install", "--no-audit", "--no-fund", str(platform), str(main)], cwd=app,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    r = subprocess.run(["npx", "--no-install", "permission-lsp", "--version"], cwd=app,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.startswith("permission-lsp "), r.stdout + r.stderr
    # The exit status comes through (a usage error is 2).
    r = subprocess.run(["npx", "--no-install", "permission-lsp", "check", "--no-such-flag"], cwd=app,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, r.stdout + r.stderr


@needs_dist
def test_pip_install_of_the_wheel(tmp_path: pathlib.Path):
    wheel = one("permission_lsp-*.whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    r = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "--no-index", str(wheel)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    checks_the_project([str(venv / "bin" / "permission-lsp")], tmp_path)


@needs_dist
def test_the_vsix_carries_the_server(tmp_path: pathlib.Path):
    vsix = one("permission-lsp-linux-x64-*.vsix")
    with zipfile.ZipFile(vsix) as z:
        info = z.getinfo("extension/server/permission-lsp")
        z.extract(info, tmp_path)
        manifest = z.read("extension/package.json").decode()
    server = tmp_path / "extension" / "server" / "permission-lsp"
    server.chmod(0o755)
    checks_the_project([str(server)], tmp_path)
    assert '"main": "./out/src/extension.js"' in manifest


def test_cargo_install_into_an_empty_root(tmp_path: pathlib.Path):
    root = tmp_path / "cargo-root"
    env = dict(os.environ, CARGO_TARGET_DIR=str(ROOT / "target"))
    r = subprocess.run(["cargo", "install", "--locked", "--quiet", "--path", str(ROOT), "--root", str(root)],
                       env=env, capture_output=True, text=True, timeout=1800)
    assert r.returncode == 0, r.stdout + r.stderr
    checks_the_project([str(root / "bin" / "permission-lsp")], tmp_path)
