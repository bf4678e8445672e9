//! Reading one config file exactly as the runtime does (spec §3): strip
//! comments, `JSON.parse`, validate strictly; any problem drops the file.

use super::config::PiConfig;
use super::validate::{RuntimeIssue, validate_config};
use super::versions::Version;
use crate::syntax::json::{ParseOutput, parse};
use crate::syntax::strip::{Stripped, strip_json_comments};

/// A config file as read by the runtime, plus what is needed to explain it.
#[derive(Debug, Clone)]
pub struct ConfigFile {
    /// The comments and where the text without them maps to the file; the
    /// text without them is not kept after the parse (it is empty).
    pub stripped: Stripped,
    pub parsed: ParseOutput,
    /// Validation issues of the (possibly recovered) tree. When the JSON is
    /// broken these describe the recovered tree; the runtime never gets that far.
    pub validation: Vec<RuntimeIssue>,
    accepted: bool,
    /// The runtime version the file was read as, and why that one.
    pub version: Version,
    pub assumed: crate::formats::pi::model::versions::Assumed,
}

impl ConfigFile {
    /// Whether the runtime uses this file at all.
    pub fn accepted(&self) -> bool {
        self.accepted
    }

    /// The config the runtime uses; `None` when it rejects the file.
    /// Built on demand: diagnostics do not need it.
    pub fn config(&self) -> Option<PiConfig> {
        match (&self.parsed.root, self.accepted) {
            (Some(root), true) => Some(PiConfig::from_validated(root)),
            _ => None,
        }
    }

    /// The issue texts the runtime reports for this file, in order
    /// (`path` is how the runtime names the file).
    pub fn runtime_issues(&self, path: &str) -> Vec<String> {
        if let Some(first) = self.parsed.errors.first() {
            let msg = first.runtime_message.clone().unwrap_or_default();
            return vec![format!("Failed to read config at '{path}': {msg}")];
        }
        self.validation.iter().map(|i| i.message.clone()).collect()
    }
}

pub fn read_config(text: &str, target: Version) -> ConfigFile {
    let profile = crate::core::profile::RuntimeProfile {
        format: crate::formats::pi::codes::FORMAT,
        version: target,
        auto: false,
    };
    read_config_as(text, profile, None)
}

/// Reads a config as the profile says: a pinned version, or `auto` (the
/// installed version, else the lowest version accepting every key of the
/// file, else the exact profile: `versions::resolve`). One parse either way.
pub fn read_config_as(
    text: &str,
    profile: crate::core::profile::RuntimeProfile,
    installed: Option<&(Version, String)>,
) -> ConfigFile {
    let mut stripped = strip_json_comments(text);
    let parsed = parse(&stripped);
    // Only the comments are read after the parse: the copy of the text
    // without them is not held through the analysis (a 10 MB file's).
    stripped.text = String::new();
    let root = parsed.root.as_ref().and_then(|r| r.value.as_object());
    let mut keys: Vec<&str> = root
        .map(|m| m.iter().map(|m| m.key.as_str()).collect())
        .unwrap_or_default();
    // The directional surfaces of 27.1 need that version too.
    if let Some(permission) = root
        .and_then(|m| m.iter().find(|m| m.key == "permission"))
        .and_then(|m| m.value.value.as_object())
    {
        for m in permission {
            if let Some(d) = crate::formats::pi::model::versions::DIRECTIONAL_KEYS
                .iter()
                .find(|d| d.strip_prefix("permission.") == Some(m.key.as_str()))
            {
                keys.push(d);
            }
        }
    }
    let (target, assumed) =
        crate::formats::pi::model::versions::resolve(profile, installed, keys.into_iter());
    let validation = parsed
        .root
        .as_ref()
        .map(|root| validate_config(root, target))
        .unwrap_or_default();
    let accepted = parsed.root.is_some() && parsed.errors.is_empty() && validation.is_empty();
    ConfigFile {
        stripped,
        parsed,
        validation,
        accepted,
        version: target,
        assumed,
    }
}
