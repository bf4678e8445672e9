//! The language server: in-process, over stdio with a real binary, under protocol abuse and load, and its code actions.
//!
//! One test binary per format or layer: each module is one of the former
//! test files, kept under `tests/` by its own name.

// Helpers several modules share, loaded once.
#[path = "common/mod.rs"]
mod common;

#[path = "code_actions.rs"]
mod code_actions;
#[path = "fix_safety.rs"]
mod fix_safety;
#[path = "load.rs"]
mod load;
#[path = "lsp_in_process.rs"]
mod lsp_in_process;
#[path = "lsp_protocol_abuse.rs"]
mod lsp_protocol_abuse;
#[path = "lsp_stdio.rs"]
mod lsp_stdio;
