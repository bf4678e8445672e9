//! Server settings, from `initializationOptions` or
//! `workspace/didChangeConfiguration`:
//!
//! ```json
//! { "permissionLsp": { "targetVersion": "20.7.3", "home": "/home/me", "agent": "dev",
//!                      "agentDir": "/home/me/.pi/agent", "lints": { "PL010": "off" } } }
//! ```
//! The `permissionLsp` wrapper is optional.

use crate::analysis::{AnalysisOptions, LintLevels};
use crate::core::profile::Version;
use serde_json::Value;

/// Applies a settings object; returns the problems found (unknown codes, bad versions).
pub fn apply(options: &mut AnalysisOptions, value: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let v = value.get("permissionLsp").unwrap_or(value);
    if let Some(t) = v.get("targetVersion").and_then(Value::as_str) {
        if t.trim() == "auto" {
            options.profile.auto = true;
        } else {
            match Version::parse(t) {
                Some(version) => {
                    options.profile.version = version;
                    options.profile.auto = false;
                }
                None => problems.push(format!(
                    "targetVersion: `{t}` is not a version like 20.7.3, or `auto`"
                )),
            }
        }
    }
    if let Some(h) = v.get("home").and_then(Value::as_str) {
        options.home = h.to_string();
    }
    if let Some(a) = v.get("agent") {
        options.agent = a.as_str().filter(|a| !a.is_empty()).map(String::from);
    }
    if let Some(d) = v.get("agentDir") {
        options.agent_dir = d.as_str().filter(|d| !d.is_empty()).map(String::from);
    }
    if let Some(lints) = v.get("lints").and_then(Value::as_object) {
        let mut levels = LintLevels::default();
        for (code, level) in lints {
            let level = level.as_str().unwrap_or("");
            if let Err(e) =
                levels.parse_assignment(&format!("{code}={level}"), &crate::analysis::code_by_name)
            {
                problems.push(format!("lints: {e}"));
            }
        }
        options.levels = levels;
    }
    // `auto`: the version installed where the runtime records it.
    options.installed = if options.profile.auto {
        crate::formats::by_id(options.profile.format).and_then(|f| f.installed_version(options))
    } else {
        None
    };
    problems
}

#[cfg(test)]
mod scope_settings_tests {
    use super::*;

    #[test]
    fn home_agent_and_agent_dir() {
        let mut o = AnalysisOptions::default();
        let problems = apply(
            &mut o,
            &serde_json::json!({"permissionLsp": {"home": "/h", "agent": "dev", "agentDir": "/h/agent"}}),
        );
        assert!(problems.is_empty());
        assert_eq!(
            (o.home.as_str(), o.agent.as_deref(), o.agent_dir.as_deref()),
            ("/h", Some("dev"), Some("/h/agent"))
        );
        apply(&mut o, &serde_json::json!({"agent": ""}));
        assert_eq!(o.agent, None, "an empty name clears the agent");
    }
}
