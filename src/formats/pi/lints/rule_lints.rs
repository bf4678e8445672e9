//! Rules the runtime accepts but that cannot do what they seem to (drift
//! catalogue D14, D15, D17, D20, D33, D34, D36, D40), each with an example.

use super::rule_order::{
    Finding, OrderedRule, ScopeRules, analyze_rule_order_memo, has_wildcard, is_extension_surface,
};
use crate::core::diagnostic::{Diagnostic, Fix, Related};
use crate::formats::pi::codes::Code;
use crate::formats::pi::engine::messages::PERMISSIVE_BASH_WARNING;
use crate::formats::pi::engine::wildcard::{MatchOptions, Wildcard};
use crate::formats::pi::model::config::KNOWN_SURFACES;
use crate::formats::pi::model::{PiConfig, State, Surface, SurfaceValue};
use crate::text::LineIndex;

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

/// `merged_permissive`: the runtime's own permissive-bash check on the
/// merged global and project policy, when the other scope files are known
/// (a bash policy in another file covers this file's `"*": "allow"`).
pub fn rule_lints(cfg: &PiConfig, merged_permissive: Option<bool>, out: &mut Vec<Diagnostic>) {
    let Some(surfaces) = &cfg.permission else {
        return;
    };
    if merged_permissive != Some(false) {
        permissive_bash(surfaces, out);
    }
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
                    d.add_related(Related {
                        range: range.clone(),
                        message: format!("to deny every `{}` call with a reason: {{ \"*\": {{ \"action\": \"deny\", \"reason\": \"…\" }} }}", s.key).into(),
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

fn unknown_surface(s: &Surface, out: &mut Vec<Diagnostic>) {
    let key = s.key.as_str();
    if KNOWN_SURFACES.contains(&key) || key == "task" || has_wildcard(key) {
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
        out.push(
            Diagnostic::new(
                Code::UnknownSurface,
                s.key_range.clone(),
                format!("`{key}` names no pi tool (surface keys are case-sensitive); did you mean `{k}`? As written, `{k}` calls are not affected"),
            )
            .with_fix(Fix::RenameKey { to: k.to_string() }),
        );
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

/// The rules of one file in runtime order (the universal `*` is the
/// default, not a rule).
pub fn ordered_rules(surfaces: &[Surface]) -> Vec<OrderedRule> {
    let mut out = Vec::new();
    for s in surfaces.iter().filter(|s| s.key != "*") {
        match &s.value {
            SurfaceValue::State { state, range } => out.push(OrderedRule {
                surface: s.key.clone(),
                pattern: "*".into(),
                action: *state,
                reason: None,
                key_range: s.key_range.clone(),
                value_range: range.clone(),
                elsewhere: None,
                replaces_lower: false,
            }),
            SurfaceValue::Map { rules, .. } => out.extend(rules.iter().map(|r| OrderedRule {
                surface: s.key.clone(),
                pattern: r.pattern.clone(),
                action: r.value.action,
                reason: r.value.reason.clone(),
                key_range: r.key_range.clone(),
                value_range: r.value_range.clone(),
                elsewhere: None,
                replaces_lower: false,
            })),
        }
    }
    out
}

/// Diagnostics of the last-match-wins analysis (PL209–PL212).
pub fn rule_order_lints(
    cfg: &PiConfig,
    text: &str,
    home: &str,
    scopes: Option<&ScopeRules>,
    out: &mut Vec<Diagnostic>,
) {
    let Some(surfaces) = &cfg.permission else {
        return;
    };
    match scopes {
        Some(s) => rule_order_diagnostics(&s.rules, s.default, text, home, out),
        None => rule_order_diagnostics(
            &ordered_rules(surfaces),
            cfg.universal_default().unwrap_or(State::Ask),
            text,
            home,
            out,
        ),
    }
}

/// PL209–PL212 for an ordered rule list whose own rules (`elsewhere:
/// None`) have ranges in `text`.
pub fn rule_order_diagnostics(
    rules: &[OrderedRule],
    default: State,
    text: &str,
    home: &str,
    out: &mut Vec<Diagnostic>,
) {
    // Built only when a finding names a line.
    let lines = std::cell::OnceCell::new();
    let line = |r: &OrderedRule| {
        lines
            .get_or_init(|| LineIndex::new(text))
            .line_of(r.key_range.start)
            + 1
    };
    let name = |r: &OrderedRule| {
        let at = match &r.elsewhere {
            Some(file) => format!("in {file}"),
            None => format!("on line {}", line(r)),
        };
        format!("`{}` ({}, {at})", r.pattern, r.action)
    };
    // Each rule's description as a related place, made once per wording
    // (one catch-all is the related place of every rule it overrides).
    let described: std::cell::RefCell<
        rustc_hash::FxHashMap<(usize, &'static str), std::sync::Arc<str>>,
    > = Default::default();
    let related = |idx: &[usize], what: &'static str| -> Vec<Related> {
        // Sized for all (a collected filter starts at four places).
        let mut v = Vec::with_capacity(idx.len());
        v.extend(
            idx.iter()
                .filter(|&&j| rules[j].elsewhere.is_none())
                .map(|&j| Related {
                    range: rules[j].key_range.clone(),
                    message: described
                        .borrow_mut()
                        .entry((j, what))
                        .or_insert_with(|| {
                            format!("{what} `{}` ({})", rules[j].pattern, rules[j].action).into()
                        })
                        .clone(),
                }),
        );
        v
    };
    // "X comes later and matches every call <it> matches", or the later
    // rules together.
    let covered_by = |all_by: &[usize], single: usize, it: &str| {
        if all_by.len() <= 1 {
            format!(
                "{} comes later and matches every call {it} matches",
                name(&rules[single])
            )
        } else {
            let names: Vec<String> = all_by.iter().map(|&j| name(&rules[j])).collect();
            format!(
                "the later rules {} together match every call {it} matches",
                names.join(", ")
            )
        }
    };
    let findings = analyze_rule_order_memo(rules, default, home);
    out.reserve(findings.len());
    crate::core::last_match::each_owned(findings, |f| {
        let d = match f {
            Finding::Overridden {
                rule,
                decided_by,
                example,
                all_by,
            } => {
                let r = &rules[rule];
                let by = covered_by(&all_by, all_by[0], "this rule");
                let mut d = Diagnostic::new(
                    Code::OverriddenRule,
                    r.key_range.clone(),
                    format!(
                        "`{}` ({}) never takes effect: {by} — e.g. `{example}` is decided by `{}` → {}. {}",
                        r.pattern,
                        r.action,
                        rules[decided_by].pattern,
                        rules[decided_by].action,
                        if r.replaces_lower {
                            "The key keeps the position it has in a lower scope, so repeating it here cannot move it after the broader rule: change the lower scope, or narrow the broader rule"
                        } else {
                            "The last matching rule wins: place this rule after the broader one"
                        }
                    ),
                );
                d.related = related(&all_by, "overrides it:");
                // Moving helps only when every overriding rule is in this file.
                if let Some(last) = d.related.last()
                    && all_by.iter().all(|&j| rules[j].elsewhere.is_none())
                {
                    d.add_fix(Fix::MoveAfter {
                        after: last.range.clone(),
                        overriders: d.related.iter().map(|r| r.range.clone()).collect(),
                    });
                }
                d
            }
            Finding::Shadowed {
                rule,
                decided_by,
                example,
                all_by,
            } => {
                let r = &rules[rule];
                let marks_paths = r.surface == "path" && r.action != State::Allow;
                let tail = if marks_paths {
                    "it still marks matching bare words of bash commands as paths, so removing it can change bash decisions"
                } else {
                    "removing it changes no decision"
                };
                let by = covered_by(&all_by, decided_by, "it");
                let same = all_by
                    .iter()
                    .all(|&j| rules[j].action == r.action && rules[j].reason == r.reason);
                let how = if same { " the same way" } else { "" };
                let mut d = Diagnostic::new(
                    Code::ShadowedRule,
                    r.key_range.clone(),
                    format!(
                        "`{}` never decides anything: {by}{how} (e.g. `{example}` is decided by `{}` → {}); {tail}",
                        r.pattern, rules[decided_by].pattern, rules[decided_by].action
                    ),
                );
                d.related = related(&all_by, "decides instead:");
                if !marks_paths {
                    d.add_fix(Fix::RemoveMember);
                }
                d
            }
            Finding::Redundant {
                rule,
                instead,
                example,
            } => {
                let r = &rules[rule];
                let mut d = Diagnostic::new(
                    Code::RedundantRule,
                    r.key_range.clone(),
                    format!(
                        "removing `{}` changes no decision: every call it decides (e.g. `{example}`) the earlier {} decides the same way",
                        r.pattern,
                        name(&rules[instead])
                    ),
                );
                d.related = related(&[instead], "already decides it:");
                d.add_fix(Fix::RemoveMember);
                d
            }
            Finding::Unexamined { rule, count } => Diagnostic::new(
                Code::PrecedenceUnexamined,
                rules[rule].key_range.clone(),
                crate::core::last_match::unexamined_message(count),
            ),
            Finding::ToolHidden {
                tool,
                decided_by,
                unreachable,
            } => {
                let first = &rules[unreachable[0]];
                let (range, why) = match decided_by {
                    Some(j) if rules[j].elsewhere.is_none() => (
                        rules[j].key_range.clone(),
                        format!("this rule decides `{tool}` with the value `*` as deny"),
                    ),
                    Some(j) => (
                        first.key_range.clone(),
                        format!(
                            "{} decides `{tool}` with the value `*` as deny",
                            name(&rules[j])
                        ),
                    ),
                    None => (
                        first.key_range.clone(),
                        format!(
                            "the universal `*` is deny and no `{tool}` rule matches the value `*`"
                        ),
                    ),
                };
                let mut d = Diagnostic::new(
                    Code::ToolHidden,
                    range,
                    format!(
                        "`{tool}` is hidden from the agent: {why}, so the runtime removes the tool and {} is never reached; to keep `{tool}` available, make its catch-all `ask`",
                        name(first)
                    ),
                );
                d.related = related(&unreachable, "never reached:");
                if let Some(j) = decided_by
                    && rules[j].elsewhere.is_none()
                    && rules[j].pattern == "*"
                    && rules[j].action == State::Deny
                {
                    d.add_fix(Fix::SetValue {
                        title: "Make the catch-all ask (keeps the tool available)".into(),
                        value: "\"ask\"".into(),
                    });
                }
                d
            }
        };
        out.push(d);
    });
}
