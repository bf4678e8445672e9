#!/usr/bin/env bash
# Neovim in tmux with the project's Neovim setup on a broken config, hover
# open, captured to docs/images/neovim.png. Needs nvim, tmux and Pillow.
# Usage: docs/screenshot/take.sh [python-with-pillow]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
py="${1:-python3}"
work="$(mktemp -d)"; trap 'tmux kill-session -t pl-shot 2>/dev/null || true; rm -rf "$work"' EXIT
cfg="$work/project/.pi/extensions/pi-permission-system/config.json"
mkdir -p "$(dirname "$cfg")"
cat > "$cfg" <<'JSON'
{
  "permission": {
    "*": "ask",
    "read": "Allow",
    "bash": {
      "git *": "allow",
      "npm *": { "action": "deny", "reason": "Use pnpm instead" },
      "rm -rf *": "deny",
    },
    "path": { "*.env": "deny" }
  }
}
JSON
cat > "$work/init.lua" <<LUA
vim.o.termguicolors = false
vim.o.number = true
vim.o.signcolumn = 'yes'
vim.env.PERMISSION_LSP = '$root/target/release/permission-lsp'
vim.cmd('luafile $root/editors/neovim/permission-lsp.lua')
LUA
tmux new-session -d -s pl-shot -x 120 -y 20 "cd $work/project && TERM=xterm-256color nvim -u $work/init.lua -i NONE $cfg"
sleep 2
tmux send-keys -t pl-shot ':set filetype=json' Enter
sleep 2
tmux send-keys -t pl-shot '10G' '6|' ':echo' Enter
sleep 1
tmux capture-pane -t pl-shot -p -e > "$work/diagnostics.ansi"
tmux send-keys -t pl-shot ':lua vim.lsp.buf.hover()' Enter
sleep 2
tmux capture-pane -t pl-shot -p -e > "$work/hover.ansi"
"$py" "$root/docs/screenshot/ansi_to_png.py" "$work/diagnostics.ansi" "$root/docs/images/neovim-diagnostics.png"
"$py" "$root/docs/screenshot/ansi_to_png.py" "$work/hover.ansi" "$root/docs/images/neovim-hover.png"
echo "wrote docs/images/neovim-diagnostics.png and neovim-hover.png"
