//! The session (`policy`), the default tier (`defaults`), command lines
//! (`shell`), the shell heuristics (`heuristics`) and the decision.

pub mod decide;
pub mod defaults;
pub mod heuristics;
pub mod policy;
pub mod shell;
