"""Neovim (headless, Debian's package) with the project's Neovim setup opens a
broken config and shows the diagnostics a user would see."""

import json
import os
import pathlib
import shutil
import subprocess

import pytest

from conftest import BIN, ROOT

NVIM = shutil.which("nvim")

SCRIPT = r"""
local out = vim.env.PL_OUT
vim.cmd('luafile ' .. vim.env.PL_SETUP)
vim.cmd('edit ' .. vim.env.PL_FILE)
vim.bo.filetype = 'json'
local ok = vim.wait(10000, function() return #vim.diagnostic.get(0) > 0 end, 50)
local result = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  table.insert(result, { lnum = d.lnum, col = d.col, severity = d.severity, code = d.code, message = d.message })
end
local f = io.open(out, 'w')
f:write(vim.fn.json_encode({ ok = ok, diagnostics = result }))
f:close()
vim.cmd('qa!')
"""


@pytest.mark.skipif(NVIM is None, reason="nvim is not installed")
def test_neovim_shows_the_diagnostics(tmp_path: pathlib.Path):
    cfg = tmp_path / ".pi" / "extensions" / "pi-permission-system" / "config.json"
    cfg.parent.mkdir(parents=True)
    cfg.write_text('{\n  "permission": {\n    "bash": { "git *": "allow", },\n    "read": "Allow"\n  }\n}\n')
    script = tmp_path / "probe.lua"
    script.write_text(SCRIPT)
    out = tmp_path / "out.json"
    env = dict(os.environ, PL_OUT=str(out), PL_SETUP=str(ROOT / "editors" / "neovim" / "permission-lsp.lua"),
               PL_FILE=str(cfg), PERMISSION_LSP=BIN, HOME=str(tmp_path))
    subprocess.run([NVIM, "--headless", "-u", "NONE", "-i", "NONE", "-c", f"luafile {script}"],
                   env=env, cwd=tmp_path, timeout=60, check=True, capture_output=True)
    result = json.loads(out.read_text())
    assert result["ok"], result
    diags = sorted(result["diagnostics"], key=lambda d: (d["lnum"], d["col"]))
    assert [(d["code"], d["lnum"], d["col"], d["severity"]) for d in diags] == [
        ("PL002", 2, 30, 1),
        ("PL101", 3, 12, 1),
    ], diags
    assert "up to 20.x it ignores the file" in diags[0]["message"]


# Opens a file with the setup, waits for its diagnostics, then (when asked)
# runs :PermissionSimulate with a call and the effective policy command, and
# writes what the user would see.
SCRIPT_ALL = r"""
local out = vim.env.PL_OUT
vim.cmd('luafile ' .. vim.env.PL_SETUP)
vim.cmd('edit ' .. vim.env.PL_FILE)
vim.bo.filetype = vim.env.PL_FT
local ok = vim.wait(10000, function() return #vim.diagnostic.get(0) > 0 end, 50)
local result = { ok = ok, diagnostics = {} }
for _, d in ipairs(vim.diagnostic.get(0)) do
  table.insert(result.diagnostics, { lnum = d.lnum, col = d.col, code = d.code })
end
local pl = _G.permission_lsp
if vim.env.PL_CALL and vim.env.PL_CALL ~= '' then
  local done = false
  vim.cmd('PermissionSimulate ' .. vim.env.PL_CALL)
  -- The command's answer, through the module's callback as well.
  pl.simulate(vim.env.PL_CALL, 0, function(r) result.simulation = r; done = true end)
  vim.wait(10000, function() return done end, 50)
  local shown = false
  pl.policy(0, function(r) shown = true end)
  vim.wait(10000, function() return shown end, 50)
  result.policy = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
end
local f = io.open(out, 'w')
f:write(vim.fn.json_encode(result))
f:close()
vim.cmd('qa!')
"""


def _run(tmp_path: pathlib.Path, file: pathlib.Path, ft: str, call: str = "") -> dict:
    script = tmp_path / "probe_all.lua"
    script.write_text(SCRIPT_ALL)
    out = tmp_path / "out.json"
    env = dict(os.environ, PL_OUT=str(out), PL_SETUP=str(ROOT / "editors" / "neovim" / "permission-lsp.lua"),
               PL_FILE=str(file), PL_FT=ft, PL_CALL=call, PERMISSION_LSP=BIN, HOME=str(tmp_path / "home"))
    (tmp_path / "home").mkdir(exist_ok=True)
    subprocess.run([NVIM, "--headless", "-u", "NONE", "-i", "NONE", "-c", f"luafile {script}"],
                   env=env, cwd=tmp_path, timeout=60, check=True, capture_output=True)
    return json.loads(out.read_text())


@pytest.mark.skipif(NVIM is None, reason="nvim is not installed")
def test_neovim_claude_code_settings(tmp_path: pathlib.Path):
    cfg = tmp_path / ".claude" / "settings.json"
    cfg.parent.mkdir(parents=True)
    cfg.write_text('{\n  "permissions": {\n    "allow": ["Bash(rm -rf *)"],\n    "deny": ["Bash(rm *)"]\n  }\n}\n')
    result = _run(tmp_path, cfg, "json", "rm -rf build")
    assert result["ok"], result
    assert "CC014" in [d["code"] for d in result["diagnostics"]], result
    assert result["simulation"]["decision"] == "deny", result
    assert "Rules in the order the runtime weighs them" in result["policy"], result


@pytest.mark.skipif(NVIM is None, reason="nvim is not installed")
def test_neovim_opencode_agent_file_answers_for_its_agent(tmp_path: pathlib.Path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "opencode.json").write_text('{"permission": {"bash": {"*": "allow"}}}\n')
    agent = tmp_path / ".opencode" / "agent" / "review.md"
    agent.parent.mkdir(parents=True)
    agent.write_text('---\ndescription: Reviews\npermission:\n  bash:\n    "git push *": deny\n'
                     '    "*": allow\n    "git log *": deny\n---\nReview.\n')
    result = _run(tmp_path, agent, "markdown", "git log -1")
    assert result["ok"], result
    assert "OC005" in [d["code"] for d in result["diagnostics"]], result
    # The agent's own rule decides (the project's build agent allows it).
    assert result["simulation"]["decision"] == "deny", result
    assert "agent: `review`" in result["policy"], result
