//! Claude Code's decisions: every settings file loaded as one policy
//! (`policy`), a call decided over it (`decide`), commands taken apart
//! (`bash`) and path rules matched (`paths`).

pub mod bash;
pub mod command_paths;
pub mod decide;
pub mod index;
pub mod paths;
pub mod policy;
pub mod read_only;
pub mod read_only_options;
pub mod skill;
