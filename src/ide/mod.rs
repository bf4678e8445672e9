//! Editor features as plain data (no protocol types), format-neutral:
//! code actions from typed fixes, document symbols, cursor location.

pub mod block_edits;
pub mod code_actions;
pub mod items;
pub mod locate;
pub mod symbols;
