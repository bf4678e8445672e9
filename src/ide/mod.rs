//! Editor features as plain data (no protocol types): hover text, and later
//! code actions, completions and symbols.

pub mod code_actions;
pub mod hover;
pub mod locate;
pub mod sample_call;
pub mod simulation;
