-- permission-lsp for Neovim 0.7+ (vim.lsp.start_client works on every version).
-- Attaches to every agent's permission files: JSON/JSONC (Claude Code's
-- .claude/settings*.json, OpenCode's opencode.json[c], pi-permission-system's
-- config.json, Qwen Code's and Gemini CLI's settings.json), markdown agent
-- files (OpenCode's .opencode/agent/*.md, pi's agents/*.md), TOML (Codex's
-- config.toml, Gemini CLI's policies/*.toml) and Starlark (Codex's
-- rules/*.rules); the server itself decides which files are whose configs.
--
-- Commands: :PermissionSimulate [CALL] (asks for the call when none is
-- given), :PermissionPolicy (the effective policy in a scratch buffer). The
-- server's code lenses (`:lua vim.lsp.codelens.run()`) run the same. Server
-- settings: set `permission_lsp.settings = { … }` (the `permissionLsp`
-- object of the README) before the first file opens.
local M = {}

local function start()
  if M.client_id and vim.lsp.get_client_by_id(M.client_id) then
    return M.client_id
  end
  M.client_id = vim.lsp.start_client({
    name = 'permission-lsp',
    cmd = { vim.env.PERMISSION_LSP or 'permission-lsp', 'serve' },
    root_dir = vim.fn.getcwd(),
    init_options = { permissionLsp = M.settings or {} },
  })
  return M.client_id
end

-- Codex's rules files are Starlark.
if vim.filetype and vim.filetype.add then
  vim.filetype.add({ pattern = { ['.*/%.?codex/rules/.*%.rules'] = 'starlark' } })
end

-- Markdown files that are agents' files: OpenCode's agent and mode folders,
-- pi's agents folders.
local function agent_file(path)
  return path:match('/%.?opencode/agents?/') ~= nil
    or path:match('/%.?opencode/modes?/') ~= nil
    or path:match('/%.pi/agents/') ~= nil
    or path:match('/%.pi/agent/agents/') ~= nil
end

vim.api.nvim_create_autocmd('FileType', {
  pattern = { 'json', 'jsonc', 'toml', 'starlark', 'markdown' },
  callback = function(args)
    local path = vim.api.nvim_buf_get_name(args.buf)
    if vim.bo[args.buf].filetype == 'markdown' and not agent_file(path) then
      return
    end
    local id = start()
    if id then
      vim.lsp.buf_attach_client(args.buf, id)
    end
  end,
})

-- The client of this buffer, and a server command run with it.
local function execute(bufnr, command, arguments, handler)
  local client = M.client_id and vim.lsp.get_client_by_id(M.client_id)
  if not client then
    vim.notify('permission-lsp: no server attached to this buffer', vim.log.levels.WARN)
    return
  end
  client.request('workspace/executeCommand', { command = command, arguments = { arguments } }, function(err, result)
    if err then
      vim.notify('permission-lsp: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    handler(result)
  end, bufnr)
end

-- A read-only scratch buffer in a split, holding `lines`.
local function show(title, lines)
  vim.cmd('botright new')
  local buf = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].modifiable = false
  pcall(vim.api.nvim_buf_set_name, buf, title)
end

-- The lines of the simulation report for `call`.
local function simulation_lines(call, r)
  local lines = { string.upper(r.decision or '?') .. '  ' .. call }
  if r.rule then
    local at = r.rule.file and (' (' .. r.rule.file .. ':' .. (r.rule.line or '?') .. ')') or ''
    table.insert(lines, '  decided by: ' .. (r.rule.surface or '') .. ' "' .. (r.rule.pattern or '') .. '"' .. at)
  end
  if r.reason then
    table.insert(lines, '  reason: ' .. r.reason)
  end
  if r.agent_message then
    table.insert(lines, '  agent sees: ' .. r.agent_message)
  end
  return lines
end

--- Simulates `call` (asked for when nil) against the unsaved buffer: the
--- decision is printed, and returned to `done` when given.
function M.simulate(call, bufnr, done)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if call == nil or call == '' then
    call = vim.fn.input('Tool call (a command line, `read PATH`, `mcp SERVER:TOOL`): ')
  end
  if call == nil or call == '' then
    return
  end
  execute(bufnr, 'permission-lsp.simulateCommandLine', { uri = vim.uri_from_bufnr(bufnr), commandLine = call }, function(r)
    local lines = simulation_lines(call, r or {})
    vim.api.nvim_echo({ { table.concat(lines, '\n') } }, true, {})
    if done then
      done(r)
    end
  end)
end

--- The effective policy of the buffer (every scope the runtime merges), in
--- a scratch buffer.
function M.policy(bufnr, done)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  execute(bufnr, 'permission-lsp.effectivePolicy', { uri = vim.uri_from_bufnr(bufnr) }, function(r)
    local text = (r and r.text) or vim.fn.json_encode(r)
    show('Effective policy', vim.split(text, '\n', { plain = true }))
    if done then
      done(r)
    end
  end)
end

vim.api.nvim_create_user_command('PermissionSimulate', function(o)
  M.simulate(o.args)
end, { nargs = '?', desc = 'permission-lsp: what the runtime decides for a tool call' })
vim.api.nvim_create_user_command('PermissionPolicy', function()
  M.policy()
end, { desc = 'permission-lsp: the effective policy (all scopes)' })

-- The code lenses: the Simulate lens needs a call, the policy a buffer to
-- show it in (the history lenses' answers are printed).
vim.lsp.commands['permission-lsp.simulateCommandLine'] = function(command, ctx)
  M.simulate(nil, ctx and ctx.bufnr)
end
vim.lsp.commands['permission-lsp.effectivePolicy'] = function(command, ctx)
  M.policy(ctx and ctx.bufnr)
end
for _, name in ipairs({ 'permission-lsp.replay', 'permission-lsp.diff' }) do
  vim.lsp.commands[name] = function(command, ctx)
    local args = command.arguments and command.arguments[1] or { uri = vim.uri_from_bufnr(ctx.bufnr) }
    execute(ctx.bufnr, command.command, args, function(r)
      show(name, vim.split(vim.inspect(r), '\n', { plain = true }))
    end)
  end
end

-- Reachable as `require('permission-lsp')` when on the runtimepath, and as
-- `_G.permission_lsp` when loaded with :luafile.
_G.permission_lsp = M
return M
