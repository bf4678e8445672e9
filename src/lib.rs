//! permission-lsp: a language server and checker for the permission configs
//! of AI coding agents. See `ARCHITECTURE.md` for the layers.

pub mod analysis;
pub mod cli;
pub mod engine;
pub mod ide;
pub mod lsp;
pub mod model;
pub mod syntax;
pub mod text;
pub mod workspace;
