//! Codex's decisions: which rules match an argv (`matching`), how a
//! `bash -lc` script is split (`split`), and a call decided over a
//! session's rules and approval policy (`decide`). The session itself —
//! its files, trust and merged policy — is `policy`.

pub mod decide;
pub mod matching;
pub mod policy;
pub mod split;
