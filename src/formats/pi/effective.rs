//! The effective policy: the merged, ordered rule list the runtime
//! evaluates (last match wins), each rule with the scope and place it comes
//! from; the knobs in force; and what each scope file contributes or why it
//! contributes nothing (as JSON: `permission-lsp explain` renders it for a
//! terminal, the `permission-lsp.effectivePolicy` command returns it).
//! Also the views of the merged policy from one scope file: its rules in
//! merged order, the cross-scope findings, the scope part of hover.

use crate::contract::report::{EffectivePolicyReport, EffectiveRule, FileStatus, SCHEMA_VERSION};
use crate::formats::pi::engine::merge::Scope;
use crate::formats::pi::engine::policy::{LoadedPolicy, PolicyInputs, ScopeText};
use crate::formats::pi::engine::rules::{Layer, Rule, RuleOrigin};
use crate::formats::pi::ide::simulation::Locator;
use crate::formats::pi::model::agent::agent_permission;
use crate::formats::pi::model::{State, SurfaceValue};
use serde_json::{Value, json};

/// The accepted scopes below `doc` in merge order (`None` when `doc` is
/// not among the scopes that contribute a permission).
fn lower_scopes<'a>(loaded: &'a LoadedPolicy, doc: &str) -> Option<&'a [Scope]> {
    let me = loaded
        .scopes
        .iter()
        .position(|s| s.file.as_deref() == Some(doc))?;
    Some(&loaded.scopes[..me])
}

/// What a scope is called in messages.
fn scope_label(origin: RuleOrigin) -> &'static str {
    match origin {
        RuleOrigin::Global => "global config",
        RuleOrigin::Project => "project config",
        RuleOrigin::Agent => "global agent file",
        RuleOrigin::ProjectAgent => "project agent file",
        _ => "runtime",
    }
}

/// The config rules of the merged policy, in evaluation order.
fn config_rules(loaded: &LoadedPolicy) -> Vec<&Rule> {
    loaded
        .policy
        .rules
        .rules
        .iter()
        .filter(|r| r.layer == Layer::Config)
        .collect()
}

/// The universal default in force.
fn default_action(loaded: &LoadedPolicy) -> State {
    loaded
        .policy
        .rules
        .rules
        .iter()
        .find(|r| r.layer == Layer::Default)
        .map_or(State::Ask, |d| d.action)
}

fn file_status(
    scope: &str,
    s: &Option<ScopeText>,
    agent_file: bool,
    inputs: &PolicyInputs,
) -> FileStatus {
    let mut f = FileStatus {
        scope: scope.into(),
        path: None,
        present: false,
        accepted: None,
        permission: None,
        issues: None,
    };
    let Some(s) = s else { return f };
    f.path = Some(s.path.to_string());
    f.present = true;
    if agent_file {
        f.accepted = Some(true);
        f.permission = Some(agent_permission(&s.text).is_some());
        f.issues = Some(Vec::new());
    } else {
        let file = inputs.read(&s.text);
        f.accepted = Some(file.accepted());
        f.issues = Some(file.runtime_issues(&s.path));
    }
    f
}

/// The effective policy of the scope files, as the shared typed report.
pub fn effective_policy(
    inputs: &PolicyInputs,
    loaded: &LoadedPolicy,
    agent: Option<&str>,
) -> EffectivePolicyReport {
    let locator = Locator::new(inputs);
    let rules = loaded
        .policy
        .rules
        .rules
        .iter()
        .enumerate()
        .map(|(n, r)| EffectiveRule {
            index: n,
            surface: r.surface.clone(),
            pattern: r.pattern.clone(),
            action: r.action.as_str().into(),
            reason: r.reason.clone(),
            layer: serde_json::to_value(r.layer).unwrap_or(Value::Null),
            scope: r.origin.as_str().into(),
            place: locator.place(r.source.as_ref()),
        })
        .collect();
    let default = loaded
        .policy
        .rules
        .rules
        .iter()
        .find(|r| r.layer == Layer::Default);
    let shell_tools: Vec<&String> = loaded.policy.shell_tools.iter().map(|t| &t.name).collect();
    let mut notes = vec![format!(
        "Knobs in force: yoloMode = {}; shellTools = {}; MCP servers (mcp.json) = {}",
        loaded.policy.yolo,
        json!(shell_tools),
        json!(&loaded.policy.mcp_servers)
    )];
    notes.push(format!(
        "Decisions of pi-permission-system {}: {}",
        inputs.version,
        crate::formats::pi::basis(inputs.version)
    ));
    if loaded.permissive_bash_warning {
        notes.push("Startup warning: `*: allow` without a bash policy — every unmatched bash command runs.".into());
    }
    let details = json!({
        "default": default.map(|d| json!({ "action": d.action, "scope": d.origin.as_str() })),
        "knobs": {
            "yoloMode": loaded.policy.yolo,
            "shellTools": shell_tools,
            "mcpServers": &loaded.policy.mcp_servers,
        },
        "issues": &loaded.issues,
        "permissiveBashWarning": loaded.permissive_bash_warning,
    });
    EffectivePolicyReport {
        schema_version: SCHEMA_VERSION,
        runtime: format!("pi-permission-system {}", inputs.version),
        agent: agent.map(String::from),
        files: vec![
            file_status("global", &inputs.global, false, inputs),
            file_status("project", &inputs.project, false, inputs),
            file_status("agent", &inputs.global_agent, true, inputs),
            file_status("project-agent", &inputs.project_agent, true, inputs),
        ],
        rules,
        precedence: "later scopes override earlier ones key by key; the last matching rule wins"
            .into(),
        notes,
        details: match details {
            Value::Object(m) => m,
            _ => Default::default(),
        },
    }
}

/// The merged rule list as seen from one scope file (`doc`, as a path in
/// `inputs`): its own rules carry their ranges, the others say where they
/// live. `None` when no rule comes from another file — then the file's
/// own order is the runtime's order and the per-file analysis is exact.
pub fn scope_rules(
    inputs: &PolicyInputs,
    loaded: &LoadedPolicy,
    doc: &str,
) -> Option<crate::formats::pi::lints::rule_order::ScopeRules> {
    use crate::formats::pi::lints::rule_order::{OrderedRule, ScopeRules};
    let config = config_rules(loaded);
    let foreign = |r: &Rule| r.source.as_ref().and_then(|s| s.file.as_deref()) != Some(doc);
    // Another scope decides the order too when it contributes rules, or
    // holds any of the document's keys (a key keeps the lower scope's
    // position, D19b).
    let lower = lower_scopes(loaded, doc).unwrap_or(&[]);
    if !inputs.has_other_than(doc) || (!config.iter().any(|r| foreign(r)) && lower.is_empty()) {
        return None;
    }
    // (surface, pattern) of every scope below the document's.
    let mut lower_keys: Vec<(&str, &str)> = Vec::new();
    for sf in lower.iter().flat_map(|s| &s.surfaces) {
        match &sf.value {
            SurfaceValue::State { .. } => lower_keys.push((&sf.key, "*")),
            SurfaceValue::Map { rules, .. } => {
                lower_keys.extend(rules.iter().map(|r| (sf.key.as_str(), r.pattern.as_str())))
            }
        }
    }
    let locator = Locator::new(inputs);
    let rules = config
        .iter()
        .map(|r| {
            let src = r.source.clone();
            let elsewhere = foreign(r).then(|| {
                let scope = scope_label(r.origin);
                match src.as_ref().and_then(|s| locator.locate(s)) {
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
                    && lower_keys
                        .iter()
                        .any(|(s, p)| *s == r.surface && *p == r.pattern),
                elsewhere,
            }
        })
        .collect();
    Some(ScopeRules {
        rules,
        default: default_action(loaded),
        permissive_bash: loaded.permissive_bash_warning,
    })
}

/// Findings that need the other scope files (drift D18, D37) for the
/// scope file `doc`: an empty map that replaces a lower scope's string
/// rule, and — when the runtime rejects this file — what the other scopes
/// then decide on their own.
pub fn cross_scope_diagnostics(
    inputs: &PolicyInputs,
    loaded: &LoadedPolicy,
    doc: &str,
) -> Vec<crate::core::diagnostic::Diagnostic> {
    use crate::core::diagnostic::Diagnostic;
    use crate::formats::pi::codes::Code;
    use crate::formats::pi::engine::gates::Call;
    let mut out = Vec::new();
    if !inputs.has_other_than(doc) {
        return out;
    }
    let rejected = loaded.rejected.iter().any(|r| &**r == doc);
    match loaded
        .scopes
        .iter()
        .position(|s| s.file.as_deref() == Some(doc))
    {
        // Agent files: empty maps are dropped there (PL302), not merged.
        Some(me)
            if matches!(
                loaded.scopes[me].origin,
                RuleOrigin::Global | RuleOrigin::Project
            ) =>
        {
            // D18: `"read": {}` over a lower scope's `"read": "ask"`.
            let empty_maps = loaded.scopes[me].surfaces.iter().filter(
                |s| matches!(&s.value, SurfaceValue::Map { rules, .. } if rules.is_empty()),
            );
            for s in empty_maps {
                for lower in &loaded.scopes[..me] {
                    let Some(ls) = lower.surfaces.iter().find(|x| x.key == s.key) else {
                        continue;
                    };
                    if let SurfaceValue::State { state, .. } = ls.value {
                        out.push(Diagnostic::new(
                            Code::EmptyMapErases,
                            s.key_range.clone(),
                            format!(
                                "this empty map replaces `\"{}\": \"{state}\"` of the {} ({}) — a map replaces a string — so no `{}` rules remain and the universal `*` ({}) decides every `{}` call; remove the key to keep `{state}`",
                                s.key,
                                scope_label(lower.origin),
                                lower.file.as_deref().unwrap_or(""),
                                s.key,
                                default_action(loaded),
                                s.key
                            ),
                        ));
                    }
                }
            }
        }
        Some(_) => {}
        None if rejected => {
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
                let sim = loaded
                    .policy
                    .simulate(&call, &crate::formats::pi::engine::paths::NoFs);
                let by = crate::formats::pi::ide::simulation::deciding_gate(&sim)
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
        None => {}
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
    let config = config_rules(loaded);
    let locator = Locator::new(inputs);
    let pos = config
        .iter()
        .position(|r| r.surface == surface && r.pattern == pattern);
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
                    .and_then(|s| locator.locate(s))
                    .map_or(String::new(), |(f, l, _)| format!(" ({f}:{l})"));
                md.push_str(&format!(
                    "\n\nNot in force: the {}{at} sets `{pattern}` → {} and replaces this value (later scopes override earlier ones key by key).",
                    scope_label(r.origin),
                    r.action
                ));
            }
        }
        None => md.push_str(
            "\n\nNot in the merged policy (the surface is replaced by another scope's value).",
        ),
    }
    // Which lower scope's value this one replaces.
    for lower in lower_scopes(loaded, doc)? {
        for sf in lower.surfaces.iter().filter(|x| x.key == surface) {
            let found = match &sf.value {
                SurfaceValue::State { state, .. } => (pattern == "*").then_some(*state),
                SurfaceValue::Map { rules, .. } => rules
                    .iter()
                    .find(|r| r.pattern == pattern)
                    .map(|r| r.value.action),
            };
            if let Some(state) = found {
                md.push_str(&format!(
                    "\n\nReplaces `{pattern}` → {state} of the {} — at that scope's position in the order.",
                    scope_label(lower.origin)
                ));
            }
        }
    }
    Some(md)
}
