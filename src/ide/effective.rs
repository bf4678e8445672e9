//! The effective policy: the merged, ordered rule list the runtime
//! evaluates (last match wins), each rule with the scope and place it comes
//! from; the knobs in force; and what each scope file contributes or why it
//! contributes nothing. Shared by `permission-lsp explain` and the
//! `permission-lsp.effectivePolicy` command.

use crate::engine::policy::{LoadedPolicy, PolicyInputs, ScopeText};
use crate::engine::rules::Layer;
use crate::ide::simulation::locate;
use crate::model::pi::Version;
use crate::model::pi::agent::agent_permission;
use crate::model::pi::read::read_config;
use serde_json::{Value, json};
use std::sync::Arc;

/// The permission surfaces of every scope file below `doc` in merge order,
/// with the scope's file path (JSON files read strictly, agent files
/// tolerantly, as the runtime does).
fn lower_scopes(
    inputs: &PolicyInputs,
    doc: &str,
) -> Option<Vec<(Arc<str>, Vec<crate::model::pi::Surface>)>> {
    let order = [
        &inputs.global,
        &inputs.project,
        &inputs.global_agent,
        &inputs.project_agent,
    ];
    let me = order
        .iter()
        .position(|s| s.as_ref().is_some_and(|s| &*s.path == doc))?;
    let mut out = Vec::new();
    for (n, s) in order.iter().enumerate().take(me) {
        let Some(s) = s else { continue };
        let surfaces = if n < 2 {
            read_config(&s.text, Version::DEFAULT_TARGET)
                .config()
                .and_then(|c| c.permission)
        } else {
            agent_permission(&s.text)
        };
        out.push((s.path.clone(), surfaces.unwrap_or_default()));
    }
    Some(out)
}

fn file_status(scope: &str, s: &Option<ScopeText>, agent_file: bool) -> Value {
    match s {
        None => json!({ "scope": scope, "present": false }),
        Some(s) if agent_file => {
            let block = agent_permission(&s.text).is_some();
            json!({ "scope": scope, "path": &*s.path, "present": true, "accepted": true,
                    "permission": block, "issues": [] })
        }
        Some(s) => {
            let file = read_config(&s.text, Version::DEFAULT_TARGET);
            let issues = file.runtime_issues(&s.path);
            json!({ "scope": scope, "path": &*s.path, "present": true,
                    "accepted": file.accepted(), "issues": issues })
        }
    }
}

/// The effective policy as JSON (the stable shape of `explain --format json`).
pub fn effective_policy(
    inputs: &PolicyInputs,
    loaded: &LoadedPolicy,
    agent: Option<&str>,
) -> Value {
    let rules: Vec<Value> = loaded
        .policy
        .rules
        .rules
        .iter()
        .enumerate()
        .map(|(n, r)| {
            let at = r.source.as_ref().and_then(|s| locate(s, inputs));
            json!({
                "index": n,
                "surface": r.surface,
                "pattern": r.pattern,
                "action": r.action,
                "reason": r.reason,
                "layer": r.layer,
                "scope": r.origin.as_str(),
                "file": at.as_ref().map(|a| a.0.clone()),
                "line": at.as_ref().map(|a| a.1),
                "column": at.as_ref().map(|a| a.2),
            })
        })
        .collect();
    let default = loaded
        .policy
        .rules
        .rules
        .iter()
        .find(|r| r.layer == Layer::Default);
    json!({
        "agent": agent,
        "files": [
            file_status("global", &inputs.global, false),
            file_status("project", &inputs.project, false),
            file_status("agent", &inputs.global_agent, true),
            file_status("project-agent", &inputs.project_agent, true),
        ],
        "default": default.map(|d| json!({ "action": d.action, "scope": d.origin.as_str() })),
        "rules": rules,
        "knobs": {
            "yoloMode": loaded.policy.yolo,
            "shellTools": loaded.policy.shell_tools.iter().map(|t| &t.name).collect::<Vec<_>>(),
            "mcpServers": &loaded.policy.mcp_servers,
        },
        "issues": &loaded.issues,
        "permissiveBashWarning": loaded.permissive_bash_warning,
    })
}

/// The same, for a terminal.
pub fn render_human(v: &Value) -> String {
    let mut out = String::new();
    let agent = v["agent"]
        .as_str()
        .map_or("none".to_string(), |a| format!("`{a}`"));
    out.push_str(&format!("Effective policy (agent: {agent})\n\nFiles, in merge order (later scopes override earlier ones key by key):\n"));
    for f in v["files"].as_array().into_iter().flatten() {
        let scope = f["scope"].as_str().unwrap_or("");
        match (f["present"].as_bool(), f["path"].as_str()) {
            (Some(true), Some(path)) => {
                let state = if f["accepted"] == json!(false) {
                    "REJECTED by the runtime: contributes nothing"
                } else if f["permission"] == json!(false) {
                    "no permission block"
                } else {
                    "read"
                };
                out.push_str(&format!("  {scope:<14} {path}  ({state})\n"));
                for i in f["issues"].as_array().into_iter().flatten() {
                    out.push_str(&format!("      {}\n", i.as_str().unwrap_or("")));
                }
            }
            _ => out.push_str(&format!("  {scope:<14} (none)\n")),
        }
    }
    out.push_str("\nRules in evaluation order (the last matching rule wins):\n");
    for r in v["rules"].as_array().into_iter().flatten() {
        let place = match (r["file"].as_str(), r["line"].as_u64(), r["column"].as_u64()) {
            (Some(f), Some(l), Some(c)) => format!("{f}:{l}:{c}"),
            _ => String::new(),
        };
        let reason = r["reason"]
            .as_str()
            .map_or(String::new(), |s| format!(" “{s}”"));
        out.push_str(&format!(
            "  {:>4}  {:<10} {:<20} {:<5}{reason}  [{}] {place}\n",
            r["index"],
            r["surface"].as_str().unwrap_or(""),
            r["pattern"].as_str().unwrap_or(""),
            r["action"].as_str().unwrap_or(""),
            match r["layer"].as_str() {
                Some("config") => r["scope"].as_str().unwrap_or(""),
                other => other.unwrap_or(""),
            }
        ));
    }
    let k = &v["knobs"];
    out.push_str(&format!(
        "\nKnobs in force: yoloMode = {}; shellTools = {}; MCP servers (mcp.json) = {}\n",
        k["yoloMode"], k["shellTools"], k["mcpServers"]
    ));
    if v["permissiveBashWarning"] == json!(true) {
        out.push_str("Startup warning: `*: allow` without a bash policy — every unmatched bash command runs.\n");
    }
    out
}

/// The merged rule list as seen from one scope file (`doc`, as a path in
/// `inputs`): its own rules carry their ranges, the others say where they
/// live. `None` when no rule comes from another file — then the file's
/// own order is the runtime's order and the per-file analysis is exact.
pub fn scope_rules(
    inputs: &PolicyInputs,
    loaded: &LoadedPolicy,
    doc: &str,
) -> Option<crate::analysis::rule_order::ScopeRules> {
    use crate::analysis::rule_order::{OrderedRule, ScopeRules};
    let config: Vec<&crate::engine::rules::Rule> = loaded
        .policy
        .rules
        .rules
        .iter()
        .filter(|r| r.layer == Layer::Config)
        .collect();
    let foreign = |r: &crate::engine::rules::Rule| {
        r.source.as_ref().and_then(|s| s.file.as_deref()) != Some(doc)
    };
    // Another scope file decides the order too when it holds any of the
    // document's keys (the key keeps the lower scope's position, D19b)
    // or contributes rules of its own.
    let others = [
        &inputs.global,
        &inputs.project,
        &inputs.global_agent,
        &inputs.project_agent,
    ]
    .iter()
    .any(|s| s.as_ref().is_some_and(|s| &*s.path != doc));
    if !others
        || (!config.iter().any(|r| foreign(r))
            && lower_scopes(inputs, doc).is_none_or(|l| l.iter().all(|(_, s)| s.is_empty())))
    {
        return None;
    }
    // (surface, pattern) of every scope below the document's.
    let mut lower: Vec<(String, String)> = Vec::new();
    for (_, surfaces) in lower_scopes(inputs, doc).unwrap_or_default() {
        for sf in surfaces {
            match sf.value {
                crate::model::pi::SurfaceValue::State { .. } => {
                    lower.push((sf.key.clone(), "*".into()))
                }
                crate::model::pi::SurfaceValue::Map { rules, .. } => {
                    lower.extend(rules.into_iter().map(|r| (sf.key.clone(), r.pattern)))
                }
            }
        }
    }
    let rules = config
        .iter()
        .map(|r| {
            let src = r.source.clone();
            let elsewhere = foreign(r).then(|| {
                let scope = match r.origin.as_str() {
                    "global" => "global config",
                    "project" => "project config",
                    "agent" => "global agent file",
                    "project-agent" => "project agent file",
                    other => other,
                };
                match src.as_ref().and_then(|s| locate(s, inputs)) {
                    Some((file, line, _)) => format!("the {scope} {file}:{line}"),
                    None => format!("the {scope}"),
                }
            });
            let (key_range, value_range) = match (&elsewhere, &src) {
                (None, Some(s)) => (s.key_range.clone(), s.value_range.clone()),
                _ => (0..0, 0..0),
            };
            OrderedRule {
                surface: r.surface.clone(),
                pattern: r.pattern.clone(),
                action: r.action,
                reason: r.reason.clone(),
                key_range,
                value_range,
                replaces_lower: elsewhere.is_none()
                    && lower
                        .iter()
                        .any(|(s, p)| *s == r.surface && *p == r.pattern),
                elsewhere,
            }
        })
        .collect();
    let default = loaded
        .policy
        .rules
        .rules
        .iter()
        .find(|r| r.layer == Layer::Default)
        .map_or(crate::model::pi::State::Ask, |d| d.action);
    Some(ScopeRules { rules, default })
}

/// Findings that need the other scope files (drift D18, D37) for the
/// scope file `doc` with text `text`: an empty map that replaces a lower
/// scope's string rule, and — when the runtime rejects this file — what
/// the other scopes then decide on their own.
pub fn cross_scope_diagnostics(
    inputs: &PolicyInputs,
    loaded: &LoadedPolicy,
    doc: &str,
    text: &str,
) -> Vec<crate::analysis::Diagnostic> {
    use crate::analysis::{Code, Diagnostic};
    use crate::engine::gates::Call;
    use crate::model::pi::SurfaceValue;
    let mut out = Vec::new();
    let scopes = [
        ("global config", &inputs.global),
        ("project config", &inputs.project),
        ("global agent file", &inputs.global_agent),
        ("project agent file", &inputs.project_agent),
    ];
    let Some(me) = scopes
        .iter()
        .position(|(_, s)| s.as_ref().is_some_and(|s| &*s.path == doc))
    else {
        return out;
    };
    let others = scopes
        .iter()
        .enumerate()
        .any(|(i, (_, s))| i != me && s.is_some());
    if !others || me >= 2 {
        // Agent files: empty maps are dropped there (PL302), not merged.
        return out;
    }
    let file = read_config(text, Version::DEFAULT_TARGET);
    match file.config() {
        Some(cfg) => {
            // D18: `"read": {}` over a lower scope's `"read": "ask"`.
            for s in cfg.permission.iter().flatten() {
                let SurfaceValue::Map { rules, .. } = &s.value else {
                    continue;
                };
                if !rules.is_empty() {
                    continue;
                }
                for (label, lower) in &scopes[..me] {
                    let Some(lower) = lower else { continue };
                    let Some(lcfg) = read_config(&lower.text, Version::DEFAULT_TARGET).config()
                    else {
                        continue;
                    };
                    let Some(ls) = lcfg.permission.iter().flatten().find(|x| x.key == s.key) else {
                        continue;
                    };
                    if let SurfaceValue::State { state, .. } = ls.value {
                        let default = loaded
                            .policy
                            .rules
                            .rules
                            .iter()
                            .find(|r| r.layer == Layer::Default)
                            .map(|d| d.action);
                        out.push(Diagnostic::new(
                            Code::EmptyMapErases,
                            s.key_range.clone(),
                            format!(
                                "this empty map replaces `\"{}\": \"{state}\"` of the {label} ({}) — a map replaces a string — so no `{}` rules remain and the universal `*` ({}) decides every `{}` call; remove the key to keep `{state}`",
                                s.key,
                                lower.path,
                                s.key,
                                default.map_or("ask".to_string(), |d| d.to_string()),
                                s.key
                            ),
                        ));
                    }
                }
            }
        }
        None => {
            // D37: the file is dropped; say what the others decide.
            let samples = [
                (
                    "bash",
                    serde_json::json!({"command": "rm -rf /"}),
                    "`rm -rf /`",
                ),
                (
                    "read",
                    serde_json::json!({"path": ".env"}),
                    "reading `.env`",
                ),
            ];
            let mut parts = Vec::new();
            for (tool, input, label) in samples {
                let call = Call {
                    tool: tool.into(),
                    input,
                    agent: None,
                    cwd: "/".into(),
                };
                let sim = loaded.policy.simulate(&call, &crate::engine::paths::NoFs);
                let by = crate::ide::simulation::deciding_gate(&sim)
                    .and_then(|g| g.check.as_ref())
                    .and_then(|c| c.matched_pattern.clone())
                    .map_or("the default".to_string(), |p| format!("`{p}`"));
                parts.push(format!("{label} → {} (by {by})", sim.decision));
            }
            out.push(Diagnostic::new(
                Code::ScopeFileIgnored,
                0..0,
                format!(
                    "the runtime ignores this file, so the other scope files decide alone: {}",
                    parts.join(", ")
                ),
            ));
        }
    }
    out
}

/// Hover text about scopes for the rule `surface`/`pattern` of the scope
/// file `doc`: whether its value is in force or a higher scope's replaces
/// it, which lower scope's value it replaces, and its place in the merged
/// order.
pub fn scope_hover(
    inputs: &PolicyInputs,
    loaded: &LoadedPolicy,
    doc: &str,
    surface: &str,
    pattern: &str,
) -> Option<String> {
    let config: Vec<&crate::engine::rules::Rule> = loaded
        .policy
        .rules
        .rules
        .iter()
        .filter(|r| r.layer == Layer::Config)
        .collect();
    let pos = config
        .iter()
        .position(|r| r.surface == surface && r.pattern == pattern);
    let label = |file: &str| -> String {
        let scope = [
            ("the global config", &inputs.global),
            ("the project config", &inputs.project),
            ("the global agent file", &inputs.global_agent),
            ("the project agent file", &inputs.project_agent),
        ]
        .iter()
        .find(|(_, s)| s.as_ref().is_some_and(|s| &*s.path == file))
        .map_or("another file", |(l, _)| l);
        scope.to_string()
    };
    let mut md = String::from("**Scopes**");
    match pos {
        Some(n) => {
            let r = config[n];
            let file = r
                .source
                .as_ref()
                .and_then(|s| s.file.as_deref())
                .unwrap_or("");
            if file == doc {
                md.push_str(&format!(
                    "\n\nIn force: rule {} of {} in the merged order of every scope.",
                    n + 1,
                    config.len()
                ));
            } else {
                let at = r
                    .source
                    .as_ref()
                    .and_then(|s| locate(s, inputs))
                    .map_or(String::new(), |(f, l, _)| format!(" ({f}:{l})"));
                md.push_str(&format!(
                    "\n\nNot in force: {}{at} sets `{pattern}` → {} and replaces this value (later scopes override earlier ones key by key).",
                    label(file),
                    r.action
                ));
            }
        }
        None => md.push_str(
            "\n\nNot in the merged policy (the surface is replaced by another scope's value).",
        ),
    }
    // Which lower scope's value this one replaces.
    for (path, surfaces) in lower_scopes(inputs, doc)? {
        for sf in surfaces.iter().filter(|x| x.key == surface) {
            let found = match &sf.value {
                crate::model::pi::SurfaceValue::State { state, .. } => {
                    (pattern == "*").then_some(*state)
                }
                crate::model::pi::SurfaceValue::Map { rules, .. } => rules
                    .iter()
                    .find(|r| r.pattern == pattern)
                    .map(|r| r.value.action),
            };
            if let Some(state) = found {
                md.push_str(&format!(
                    "\n\nReplaces `{pattern}` → {state} of {} — at that scope's position in the order.",
                    label(&path)
                ));
            }
        }
    }
    Some(md)
}
