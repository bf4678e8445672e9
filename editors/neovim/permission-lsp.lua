-- permission-lsp for Neovim 0.7+ (vim.lsp.start_client works on every version).
-- Attaches to JSON/JSONC, TOML and Starlark buffers (Codex's config.toml and
-- .codex/rules/*.rules, Gemini CLI's policies/*.toml); the server itself
-- decides which files are the agents' permission configs.
local M = {}

local function start()
  if M.client_id and vim.lsp.get_client_by_id(M.client_id) then
    return M.client_id
  end
  M.client_id = vim.lsp.start_client({
    name = 'permission-lsp',
    cmd = { vim.env.PERMISSION_LSP or 'permission-lsp', 'serve' },
    root_dir = vim.fn.getcwd(),
    init_options = { permissionLsp = { targetVersion = '20.7.3' } },
  })
  return M.client_id
end

-- Codex's rules files are Starlark.
if vim.filetype and vim.filetype.add then
  vim.filetype.add({ pattern = { ['.*/%.?codex/rules/.*%.rules'] = 'starlark' } })
end

vim.api.nvim_create_autocmd('FileType', {
  pattern = { 'json', 'jsonc', 'toml', 'starlark' },
  callback = function(args)
    local id = start()
    if id then
      vim.lsp.buf_attach_client(args.buf, id)
    end
  end,
})

return M
