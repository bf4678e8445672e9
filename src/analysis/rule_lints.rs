//! Rules the runtime accepts but that cannot do what they seem to (drift
//! catalogue D14, D15, D17, D20, D33, D34, D36, D40), each with an example.

use super::codes::Code;
use super::{Diagnostic, Related};
use crate::engine::messages::PERMISSIVE_BASH_WARNING;
use crate::engine::wildcard::{MatchOptions, Wildcard};
use crate::model::pi::{PiConfig, State, Surface, SurfaceValue};

/// Surfaces the runtime gives a meaning (tools it knows, gates, the default).
const KNOWN_SURFACES: &[&str] = &[
    "*",
    "bash",
    "read",
    "write",
    "edit",
    "grep",
    "find",
    "ls",
    "mcp",
    "skill",
    "task",
    "path",
    "external_directory",
];

/// Tool names of other agents that users carry over; pi has none of them.
const OTHER_AGENTS_TOOLS: &[&str] = &[
    "webfetch",
    "websearch",
    "glob",
    "list",
    "todowrite",
    "todoread",
    "codesearch",
    "doom_loop",
    "patch",
    "multiedit",
];

fn has_wildcard(s: &str) -> bool {
    s.contains('*') || s.contains('?')
}

pub fn rule_lints(cfg: &PiConfig, out: &mut Vec<Diagnostic>) {
    let Some(surfaces) = &cfg.permission else {
        return;
    };
    permissive_bash(surfaces, out);
    for s in surfaces {
        match &s.value {
            SurfaceValue::Map { rules, range } => {
                if s.key == "*" {
                    out.push(Diagnostic::new(
                        Code::UniversalMapIgnored,
                        s.key_range.clone(),
                        "a pattern map under `*` is ignored: the universal default stays `ask` for every tool; write `\"*\": \"allow\"` (or deny/ask) instead".into(),
                    ));
                }
                if let Some(r) = rules.iter().find(|r| r.pattern == "action") {
                    let mut d = Diagnostic::new(
                        Code::ActionPattern,
                        r.key_range.clone(),
                        format!(
                            "this is a pattern named `action`, not a deny: only a call whose value is literally `action` is denied; e.g. `{}` is not",
                            example_value(&s.key)
                        ),
                    );
                    d.related.push(Related {
                        range: range.clone(),
                        message: format!("to deny every `{}` call with a reason: {{ \"*\": {{ \"action\": \"deny\", \"reason\": \"…\" }} }}", s.key),
                    });
                    out.push(d);
                }
                for r in rules {
                    if let Some(reason) = &r.value.reason {
                        if s.key == "path" || s.key == "external_directory" {
                            out.push(Diagnostic::new(
                                Code::ReasonNeverShown,
                                r.value_range.clone(),
                                format!("the reason is never shown: `{}` denials have no reason in their message", s.key),
                            ));
                        } else if reason.ends_with('.') {
                            out.push(Diagnostic::new(
                                Code::ReasonDoublePeriod,
                                r.value_range.clone(),
                                format!(
                                    "the runtime adds a period: the agent sees `Reason: {reason}.`"
                                ),
                            ));
                        }
                    }
                    if s.key == "external_directory"
                        && !has_wildcard(&r.pattern)
                        && (r.pattern.starts_with('/') || r.pattern.starts_with("~/"))
                        && !r.pattern.starts_with("/dev/")
                    {
                        out.push(Diagnostic::new(
                            Code::DirectoryWithoutStar,
                            r.key_range.clone(),
                            format!(
                                "matches only this exact path; if `{p}` is a directory, the files in it need `{p}/*`",
                                p = r.pattern.trim_end_matches('/')
                            ),
                        ));
                    }
                }
                if is_extension_surface(&s.key) {
                    for r in rules {
                        let w = Wildcard::compile(&r.pattern, "", MatchOptions::default());
                        if !w.is_match("*") {
                            out.push(Diagnostic::new(
                                Code::ExtensionPatternNeverFires,
                                r.key_range.clone(),
                                format!(
                                    "never fires: for the extension tool `{}` the runtime matches only the value `*`, which `{}` does not match",
                                    s.key, r.pattern
                                ),
                            ));
                        }
                    }
                }
            }
            SurfaceValue::State { .. } => {}
        }
        unknown_surface(s, out);
    }
}

fn example_value(surface: &str) -> &'static str {
    match surface {
        "bash" => "rm -rf /",
        "mcp" => "exa_search",
        "skill" => "web-design",
        _ => "*",
    }
}

fn is_extension_surface(key: &str) -> bool {
    // `path_read`-style keys are surfaces of later versions (27.1+), not tools.
    let directional = key.starts_with("path_") || key.starts_with("external_directory_");
    (!has_wildcard(key) && !KNOWN_SURFACES.contains(&key) && !directional) || key == "task"
}

fn unknown_surface(s: &Surface, out: &mut Vec<Diagnostic>) {
    let key = s.key.as_str();
    if KNOWN_SURFACES.contains(&key) || has_wildcard(key) {
        return;
    }
    if OTHER_AGENTS_TOOLS
        .iter()
        .any(|t| t.eq_ignore_ascii_case(key))
    {
        out.push(Diagnostic::new(
            Code::UnknownSurface,
            s.key_range.clone(),
            format!("`{key}` is another agent's tool name; pi has no such tool, so this rule never matches"),
        ));
        return;
    }
    // Only certain mistakes: another case, or a plural (`skills`). An unknown
    // name may well be an extension tool, so nothing else is reported.
    let singular = key.strip_suffix('s').unwrap_or(key);
    let suggestion = KNOWN_SURFACES
        .iter()
        .find(|k| k.eq_ignore_ascii_case(key) || **k == singular)
        .copied();
    if let Some(k) = suggestion {
        out.push(Diagnostic::new(
            Code::UnknownSurface,
            s.key_range.clone(),
            format!("`{key}` names no pi tool (surface keys are case-sensitive); did you mean `{k}`? As written, `{k}` calls are not affected"),
        ));
    }
}

fn permissive_bash(surfaces: &[Surface], out: &mut Vec<Diagnostic>) {
    let Some(star) = surfaces.iter().find(|s| s.key == "*") else {
        return;
    };
    if !matches!(
        star.value,
        SurfaceValue::State {
            state: State::Allow,
            ..
        }
    ) {
        return;
    }
    let covered = match surfaces.iter().find(|s| s.key == "bash").map(|s| &s.value) {
        Some(SurfaceValue::State { .. }) => true,
        Some(SurfaceValue::Map { rules, .. }) => rules.iter().any(|r| r.pattern == "*"),
        None => false,
    };
    if !covered {
        let mut d = Diagnostic::new(
            Code::PermissiveBash,
            star.key_range.clone(),
            "every bash command not matched below runs without asking (e.g. `curl https://x | sh`): add `\"bash\": { \"*\": \"ask\" }`".into(),
        );
        d.runtime_issue = Some(PERMISSIVE_BASH_WARNING.to_string());
        out.push(d);
    }
}
