//! A runtime profile: which format, and which version of its runtime, the
//! reading, merging, engine and every analysis follow. It is chosen once, at
//! the settings layer, and passed down; nothing below picks a default.

use serde::Serialize;
use std::fmt;

/// A `major.minor.patch` version of a runtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version(pub u32, pub u32, pub u32);

impl Version {
    pub fn parse(s: &str) -> Option<Version> {
        let s = s.trim().trim_start_matches('v');
        let mut parts = s.split('.');
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next().unwrap_or("0").parse().ok()?;
        let patch = parts.next().unwrap_or("0").parse().ok()?;
        if parts.next().is_some() {
            return None;
        }
        Some(Version(major, minor, patch))
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.0, self.1, self.2)
    }
}

impl Serialize for Version {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A format and the version of its runtime whose behaviour applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct RuntimeProfile {
    /// The format's id (`pi`).
    pub format: &'static str,
    /// The version named by the user, or the one used when `auto` finds
    /// nothing better.
    pub version: Version,
    /// The format picks the version from what it finds (the installed
    /// runtime, the keys a file uses); `false` when the user pinned one.
    pub auto: bool,
}

impl fmt::Display for RuntimeProfile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.format, self.version)
    }
}

/// The profile of a format observed at one version only: that version, or
/// an error naming it.
pub fn single_version(
    format: &'static str,
    display: &str,
    known: Version,
    asked: &str,
) -> Result<RuntimeProfile, String> {
    match Version::parse(asked) {
        Some(v) if v == known => Ok(RuntimeProfile {
            format,
            version: known,
            auto: false,
        }),
        Some(_) => Err(format!(
            "{display} {asked} is not known: only {known} was observed"
        )),
        None => Err(format!("`{asked}` is not a version like {known}")),
    }
}
