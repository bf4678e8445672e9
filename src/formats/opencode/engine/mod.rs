//! OpenCode's decisions: the session's files merged into each agent's
//! ordered rule list (`policy`), a call decided over it (`decide`),
//! commands taken apart (`bash`), the wildcard language (`wildcard`).

pub mod bash;
pub mod decide;
pub mod policy;
pub mod wildcard;
