//! pi-permission-system's editor answers as plain data: hover, completion,
//! simulation results, sample calls from a command line.

pub mod completion;
pub mod hover;
pub mod rewrites;
pub mod sample_call;
pub mod simulation;
