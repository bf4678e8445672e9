//! How Qwen Code decides: the session's files and rules (`policy`), the
//! command-line readings (`shell`), the read-only classifier (`readonly`,
//! `sed_awk`), a command's file and network access (`ops`), rule matching
//! (`matching`) and the decision (`decide`).

pub mod decide;
pub mod index;
pub mod matching;
pub mod ops;
pub mod policy;
pub mod readonly;
pub mod sed_awk;
pub mod shell;
