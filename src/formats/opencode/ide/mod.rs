//! What the editor and the CLI show for OpenCode configs: hover,
//! completion, symbols, and the simulation report.

pub mod completion;
pub mod hover;
pub mod simulation;
pub mod symbols;
