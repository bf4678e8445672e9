//! permission-lsp: a language server and checker for the permission configs
//! of AI coding agents. See `ARCHITECTURE.md` for the layers.

pub mod analysis;
pub mod cli;
pub mod contract;
pub mod core;
pub mod formats;
pub mod fsio;
#[doc(hidden)]
pub mod fuzzing;
pub mod history;
pub mod ide;
pub mod lsp;
pub mod syntax;
pub mod text;
pub mod workspace;
