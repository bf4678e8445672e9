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
