//! Editor features as plain data (no protocol types): hover text, and later
//! code actions, completions and symbols.

pub mod code_actions;
pub mod completion;
pub mod effective;
pub mod hover;
pub mod locate;
pub mod sample_call;
pub mod simulation;
pub mod symbols;
