//! Codex's decisions: how a `bash -lc` script is split (`split`), and a
//! call decided over a session's rules and approval policy (`decide`;
//! which rules match an argv is the model's `matching`). The session itself —
//! its files, trust and merged policy — is `policy`.

pub mod decide;
pub mod policy;
pub mod split;
