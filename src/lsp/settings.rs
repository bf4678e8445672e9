//! Server settings, from `initializationOptions` or
//! `workspace/didChangeConfiguration`:
//!
//! ```json
//! { "permissionLsp": { "targetVersion": "20.7.3", "home": "/home/me", "agent": "dev",
//!                      "agentDir": "/home/me/.pi/agent", "lints": { "PL010": "off" } } }
//! ```
//! The `permissionLsp` wrapper is optional. Each format's session options
//! are settings under its id, built from the format's declarations
//! ([`crate::contract::SessionOption`]): `"claude": { "permissionMode":
//! "plan", "allowedTools": ["Bash(git log:*)"] }`, `"pi": { "agentDir": … }`,
//! and `"<id>": { "env": { "NAME": "value" } }` for the environment variables
//! it reads; a declared setting may also stand at the top level
//! (`"agentDir"`).

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
    options.runtime_args = session_args(v, &mut problems);
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

/// The session options and environment of every format, as
/// `runtime_args`, from the settings its declarations name.
fn session_args(v: &Value, problems: &mut Vec<String>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for f in crate::formats::all() {
        let ns = v.get(f.id());
        for o in f.session_options() {
            let Some(value) = ns
                .and_then(|n| n.get(o.setting))
                .or_else(|| v.get(o.setting))
            else {
                continue;
            };
            if o.switch {
                match value {
                    Value::Bool(true) => out.push((o.arg.to_string(), "true".to_string())),
                    Value::Bool(false) | Value::Null => {}
                    _ => problems.push(format!("{}.{}: expected true or false", f.id(), o.setting)),
                }
                continue;
            }
            let values: Vec<&str> = match value {
                Value::String(s) => vec![s.as_str()],
                Value::Array(items) if o.repeatable => {
                    items.iter().filter_map(Value::as_str).collect()
                }
                Value::Null => Vec::new(),
                _ => {
                    problems.push(format!(
                        "{}.{}: expected {}",
                        f.id(),
                        o.setting,
                        if o.repeatable {
                            "a string or a list of strings"
                        } else {
                            "a string"
                        }
                    ));
                    continue;
                }
            };
            for x in values.into_iter().filter(|x| !x.is_empty()) {
                if !o.values.is_empty() && !o.values.contains(&x) {
                    problems.push(format!(
                        "{}.{}: `{x}` is not one of {}",
                        f.id(),
                        o.setting,
                        o.values.join(", ")
                    ));
                    continue;
                }
                out.push((o.arg.to_string(), x.to_string()));
            }
        }
        if let Some(env) = ns.and_then(|n| n.get("env")).and_then(Value::as_object) {
            for (k, x) in env {
                if let Some(x) = x.as_str() {
                    out.push((k.clone(), x.to_string()));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod scope_settings_tests {
    use super::*;

    #[test]
    fn the_readme_settings_apply_without_a_problem() {
        let readme = include_str!("../../README.md");
        let setup = readme.find("## Editor setup").unwrap();
        let at = setup + readme[setup..].find("{ \"permissionLsp\": {").unwrap();
        let end = at + readme[at..].find("\n```").unwrap();
        let v: serde_json::Value = serde_json::from_str(&readme[at..end]).unwrap();
        let mut o = AnalysisOptions::default();
        assert_eq!(apply(&mut o, &v), Vec::<String>::new(), "{v}");
        assert_eq!(o.agent.as_deref(), Some("dev"), "{v}");
    }

    #[test]
    fn home_agent_and_agent_dir() {
        let mut o = AnalysisOptions::default();
        let problems = apply(
            &mut o,
            &serde_json::json!({"permissionLsp": {"home": "/h", "agent": "dev", "agentDir": "/h/agent"}}),
        );
        assert!(problems.is_empty());
        assert_eq!(
            (
                o.home.as_str(),
                o.agent.as_deref(),
                o.runtime_arg("agent-dir")
            ),
            ("/h", Some("dev"), Some("/h/agent"))
        );
        apply(&mut o, &serde_json::json!({"agent": ""}));
        assert_eq!(o.agent, None, "an empty name clears the agent");
        // Under the format's own id too.
        apply(&mut o, &serde_json::json!({"pi": {"agentDir": "/h/other"}}));
        assert_eq!(o.runtime_arg("agent-dir"), Some("/h/other"));
    }

    /// Each format's declared session options are settings under its id,
    /// checked against their values; its environment is `env`.
    #[test]
    fn session_options_come_from_the_formats_declarations() {
        let mut o = AnalysisOptions::default();
        let problems = apply(
            &mut o,
            &serde_json::json!({"claude": {
                "permissionMode": "plan",
                "allowedTools": ["Bash(git log:*)", "Read"],
                "env": {"CLAUDE_CONFIG_DIR": "/cfg"}
            }}),
        );
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(o.runtime_arg("permission-mode"), Some("plan"));
        assert_eq!(
            o.runtime_args
                .iter()
                .filter(|(k, _)| k == "allowedTools")
                .count(),
            2
        );
        assert_eq!(o.runtime_arg("CLAUDE_CONFIG_DIR"), Some("/cfg"));
        let problems = apply(
            &mut o,
            &serde_json::json!({"claude": {"permissionMode": "yolo"}}),
        );
        assert!(
            problems[0].contains("`yolo` is not one of default, acceptEdits"),
            "{problems:?}"
        );
        assert_eq!(o.runtime_arg("permission-mode"), None);
    }
}
