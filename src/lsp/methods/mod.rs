//! One module per LSP method.

pub mod code_action;
pub mod code_lens;
pub mod completion;
pub mod did_change;
pub mod did_change_configuration;
pub mod did_change_watched_files;
pub mod did_close;
pub mod did_open;
pub mod did_save;
pub mod document_symbol;
pub mod execute_command;
pub mod hover;
pub mod initialize;
