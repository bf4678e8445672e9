//! Strict validation exactly as the runtime's zod schema does it (spec §2.1,
//! §2.2, §3.3): any issue rejects the whole file.
//!
//! The runtime reports zod's issues, and zod collapses a failed union into
//! one "Invalid input" at the union's path. That text is kept word for word
//! ([`RuntimeIssue::message`]), and under it the precise [`Violation`]s — the
//! value or key that is actually wrong — which the diagnostics point at.

use super::versions::{self, KeyShape, KeySpec, Version};
use crate::syntax::js_order::js_entries;
use crate::syntax::{Member, Node, Value};
use std::ops::Range;

/// The longest reason the runtime accepts, in code points.
pub const MAX_REASON_CHARS: usize = 500;
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// One issue as the runtime words it, and what causes it.
#[derive(Debug, Clone, PartialEq)]
pub struct RuntimeIssue {
    /// `Unrecognized config key 'x'.` or `Invalid config value at 'p': m`.
    pub message: String,
    pub violations: Vec<Violation>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    pub kind: ViolationKind,
    /// Byte range: the key for key problems, the value otherwise.
    pub range: Range<usize>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ViolationKind {
    /// A top-level key the target does not accept.
    UnknownKey {
        key: String,
        known: Option<&'static KeySpec>,
    },
    /// An extra key in a deny object or a `shellTools` entry.
    ExtraKey {
        key: String,
        in_deny_object: bool,
    },
    /// A state string that is not exactly `allow`, `deny` or `ask`.
    InvalidState {
        found: String,
    },
    /// A surface or pattern value of the wrong JSON type.
    InvalidRuleValue {
        found: &'static str,
        pattern_level: bool,
    },
    ReasonNotString {
        found: &'static str,
    },
    ReasonTooLong {
        chars: usize,
    },
    /// `{ "action": "allow" }` or `"ask"`: only deny has an object form.
    ObjectFormForState {
        action: String,
    },
    /// A deny object whose `action` is missing or not `"deny"`.
    DenyObjectAction {
        found: Option<String>,
    },
    /// `"bash": { "action": "deny", "reason": … }` at the surface level.
    SurfaceLevelDenyObject,
    EmptyKey {
        what: &'static str,
    },
    /// A knob or structural value of the wrong type or range.
    BadValue {
        expected: String,
        zod_message: String,
    },
    /// `shellTools.x` without `commandArgument`.
    MissingMember {
        member: &'static str,
    },
    /// A `path_…` / `external_directory_…` surface other than the four
    /// directional ones (27.1 on).
    UnknownDirectionalSurface {
        key: String,
    },
}

#[derive(Debug, Clone)]
struct ZIssue {
    path: Vec<String>,
    message: String,
    aborting: bool,
    violations: Vec<Violation>,
}

impl ZIssue {
    fn new(message: impl Into<String>, aborting: bool, v: Violation) -> Self {
        ZIssue {
            path: Vec::new(),
            message: message.into(),
            aborting,
            violations: vec![v],
        }
    }
    fn unrecognized(key: &str, v: Violation) -> Self {
        ZIssue {
            path: vec![],
            message: format!("\u{0}unrecognized:{key}"),
            aborting: false,
            violations: vec![v],
        }
    }
    fn prefixed(mut self, seg: &str) -> Self {
        self.path.insert(0, seg.to_string());
        self
    }
}

fn render(issue: ZIssue) -> RuntimeIssue {
    let message = if let Some(key) = issue.message.strip_prefix("\u{0}unrecognized:") {
        format!("Unrecognized config key '{key}'.")
    } else {
        let path = if issue.path.is_empty() {
            "(root)".to_string()
        } else {
            issue.path.join(".")
        };
        format!("Invalid config value at '{path}': {}", issue.message)
    };
    RuntimeIssue {
        message,
        violations: issue.violations,
    }
}

/// Validates a whole config file for the target runtime version.
pub fn validate_config(root: &Node, target: Version) -> Vec<RuntimeIssue> {
    let issues = match &root.value {
        Value::Object(members) => strict_root(members, target),
        other => vec![type_issue(root, "object", other)],
    };
    issues.into_iter().map(render).collect()
}

fn received(v: &Value) -> &'static str {
    v.type_name()
}

fn type_issue(node: &Node, expected: &str, v: &Value) -> ZIssue {
    let zod = format!(
        "Invalid input: expected {expected}, received {}",
        received(v)
    );
    ZIssue::new(
        zod.clone(),
        true,
        Violation {
            kind: ViolationKind::BadValue {
                expected: expected.to_string(),
                zod_message: zod,
            },
            range: node.range.clone(),
        },
    )
}

fn strict_root(members: &[Member], target: Version) -> Vec<ZIssue> {
    let entries = js_entries(members);
    let mut issues = Vec::new();
    for spec in versions::accepted_keys(target) {
        if let Some(e) = entries.iter().find(|e| e.first.key == spec.key) {
            for i in validate_shape(&e.member.value, spec.shape, target) {
                issues.push(i.prefixed(spec.key));
            }
        }
    }
    for e in &entries {
        let key = &e.first.key;
        if versions::accepted_keys(target).any(|s| s.key == key) {
            continue;
        }
        let v = Violation {
            kind: ViolationKind::UnknownKey {
                key: key.clone(),
                known: versions::key_spec(key),
            },
            range: e.member.key_range.clone(),
        };
        issues.push(ZIssue::unrecognized(key, v));
    }
    issues
}

fn validate_shape(node: &Node, shape: KeyShape, target: Version) -> Vec<ZIssue> {
    match shape {
        KeyShape::String => match &node.value {
            Value::String(_) => vec![],
            v => vec![type_issue(node, "string", v)],
        },
        KeyShape::Boolean => match &node.value {
            Value::Bool(_) => vec![],
            v => vec![type_issue(node, "boolean", v)],
        },
        KeyShape::PositiveInt => positive_int(node).into_iter().collect(),
        KeyShape::NonEmptyStrings => match &node.value {
            Value::Array(items) => items
                .iter()
                .enumerate()
                .filter_map(|(i, item)| non_empty_string(item).map(|z| z.prefixed(&i.to_string())))
                .collect(),
            v => vec![type_issue(node, "array", v)],
        },
        KeyShape::EnumStrings(allowed) => match &node.value {
            Value::Array(items) => items
                .iter()
                .enumerate()
                .filter_map(|(i, item)| match &item.value {
                    Value::String(s) if allowed.contains(&s.as_str()) => None,
                    _ => {
                        let options = allowed
                            .iter()
                            .map(|a| format!("\"{a}\""))
                            .collect::<Vec<_>>()
                            .join("|");
                        let zod = format!("Invalid option: expected one of {options}");
                        Some(
                            ZIssue::new(
                                zod.clone(),
                                true,
                                Violation {
                                    kind: ViolationKind::BadValue {
                                        expected: format!("one of {options}"),
                                        zod_message: zod,
                                    },
                                    range: item.range.clone(),
                                },
                            )
                            .prefixed(&i.to_string()),
                        )
                    }
                })
                .collect(),
            v => vec![type_issue(node, "array", v)],
        },
        KeyShape::StringMembers(names) => match &node.value {
            Value::Object(members) => {
                let entries = js_entries(members);
                let mut out = Vec::new();
                for name in names {
                    if let Some(e) = entries.iter().find(|e| e.first.key == *name)
                        && !matches!(e.member.value.value, Value::String(_))
                    {
                        out.push(
                            type_issue(&e.member.value, "string", &e.member.value.value)
                                .prefixed(name),
                        );
                    }
                }
                for e in &entries {
                    if !names.contains(&e.first.key.as_str()) {
                        out.push(ZIssue::unrecognized(
                            &e.first.key,
                            Violation {
                                kind: ViolationKind::ExtraKey {
                                    key: e.first.key.clone(),
                                    in_deny_object: false,
                                },
                                range: e.member.key_range.clone(),
                            },
                        ));
                    }
                }
                out
            }
            v => vec![type_issue(node, "object", v)],
        },
        KeyShape::Permission => permission(node, target),
        KeyShape::ShellTools => shell_tools(node),
        KeyShape::Opaque => vec![],
    }
}

fn positive_int(node: &Node) -> Option<ZIssue> {
    let bad = |zod: String, expected: &str| {
        ZIssue::new(
            zod.clone(),
            true,
            Violation {
                kind: ViolationKind::BadValue {
                    expected: expected.into(),
                    zod_message: zod,
                },
                range: node.range.clone(),
            },
        )
    };
    match &node.value {
        Value::Number(n) if n.is_finite() => {
            if n.fract() != 0.0 {
                Some(bad(
                    "Invalid input: expected int, received number".into(),
                    "an integer",
                ))
            } else if *n < 1.0 {
                Some(bad(
                    "Too small: expected number to be >=1".into(),
                    "an integer of at least 1",
                ))
            } else if *n > MAX_SAFE_INTEGER {
                Some(bad(
                    "Too big: expected int to be <=9007199254740991".into(),
                    "an integer of at most 9007199254740991",
                ))
            } else {
                None
            }
        }
        v => Some(type_issue(node, "number", v)),
    }
}

fn non_empty_string(node: &Node) -> Option<ZIssue> {
    match &node.value {
        Value::String(s) if s.is_empty() => {
            let zod = "Too small: expected string to have >=1 characters".to_string();
            Some(ZIssue::new(
                zod.clone(),
                false,
                Violation {
                    kind: ViolationKind::BadValue {
                        expected: "a non-empty string".into(),
                        zod_message: zod,
                    },
                    range: node.range.clone(),
                },
            ))
        }
        Value::String(_) => None,
        v => Some(type_issue(node, "string", v)),
    }
}

/// zod `record(string.min(1), value)`: `__proto__` is skipped, an empty key
/// fails ("Invalid key in record", aborting) and its value is not checked.
fn record(
    node: &Node,
    what: &'static str,
    mut value: impl FnMut(&Node) -> Vec<ZIssue>,
) -> Vec<ZIssue> {
    let Value::Object(members) = &node.value else {
        return vec![type_issue(node, "record", &node.value)];
    };
    let mut out = Vec::new();
    for e in js_entries(members) {
        let key = &e.first.key;
        if key == "__proto__" {
            continue;
        }
        if key.is_empty() {
            out.push(
                ZIssue::new(
                    "Invalid key in record",
                    true,
                    Violation {
                        kind: ViolationKind::EmptyKey { what },
                        range: e.member.key_range.clone(),
                    },
                )
                .prefixed(""),
            );
            continue;
        }
        for i in value(&e.member.value) {
            out.push(i.prefixed(key));
        }
    }
    out
}

/// The zod of 26.3.1 fails a union branch outright for an unrecognized key
/// (`{"action": "deny", "why": …}` → "Invalid input" at the surface), where
/// 20.7.3's reported the key. When the dependency changed between the two
/// is not known; the versions after 20.7.3 take 26.3.1's reading.
fn unrecognized_fails_union(target: Version) -> bool {
    target > Version(20, 7, 3)
}

fn permission(node: &Node, target: Version) -> Vec<ZIssue> {
    let mut issues = record(node, "surface", |n| surface_value(n, target));
    // 27.1's refinement: a `path_` or `external_directory_` key must be one
    // of the directional surfaces (documented; the wording is the
    // changelog's, not observed).
    if target >= versions::DIRECTIONAL_SINCE
        && let Value::Object(members) = &node.value
    {
        for e in js_entries(members) {
            let key = &e.first.key;
            let directional_shape =
                key.starts_with("path_") || key.starts_with("external_directory_");
            if directional_shape && !crate::formats::pi::engine::rules::is_directional_surface(key)
            {
                issues.push(
                    ZIssue::new(
                        format!("Unknown directional surface key '{key}'"),
                        false,
                        Violation {
                            kind: ViolationKind::UnknownDirectionalSurface { key: key.clone() },
                            range: e.member.key_range.clone(),
                        },
                    )
                    .prefixed(key),
                );
            }
        }
    }
    issues
}

/// zod union semantics: success if any branch has no issue; else, if exactly
/// one branch has only non-aborting issues, its issues; else one aborting
/// "Invalid input" whose violations come from the branch that fits the
/// value's JSON type.
///
/// The branch that fits the value's JSON type runs first; the other runs only
/// when it fails, so valid input never builds error texts.
fn union(
    preferred: impl FnOnce() -> Vec<ZIssue>,
    other: impl FnOnce() -> Vec<ZIssue>,
) -> Vec<ZIssue> {
    let first = preferred();
    if first.is_empty() {
        return first;
    }
    let second = other();
    if second.is_empty() {
        return second;
    }
    let branches = vec![first, second];
    let preferred = 0;
    let non_aborted: Vec<usize> = (0..branches.len())
        .filter(|&i| branches[i].iter().all(|z| !z.aborting))
        .collect();
    if non_aborted.len() == 1 {
        return branches.into_iter().nth(non_aborted[0]).unwrap_or_default();
    }
    let violations = branches
        .into_iter()
        .nth(preferred)
        .unwrap_or_default()
        .into_iter()
        .flat_map(|z| z.violations)
        .collect();
    vec![ZIssue {
        path: vec![],
        message: "Invalid input".into(),
        aborting: true,
        violations,
    }]
}

fn is_state(s: &str) -> bool {
    matches!(s, "allow" | "deny" | "ask")
}

fn state_branch(node: &Node, pattern_level: bool) -> Vec<ZIssue> {
    match &node.value {
        Value::String(s) if is_state(s) => vec![],
        Value::String(s) => vec![ZIssue::new(
            "Invalid option: expected one of \"allow\"|\"deny\"|\"ask\"",
            true,
            Violation {
                kind: ViolationKind::InvalidState { found: s.clone() },
                range: node.range.clone(),
            },
        )],
        v => vec![ZIssue::new(
            format!("Invalid input: expected string, received {}", received(v)),
            true,
            Violation {
                kind: ViolationKind::InvalidRuleValue {
                    found: received(v),
                    pattern_level,
                },
                range: node.range.clone(),
            },
        )],
    }
}

fn surface_value(node: &Node, target: Version) -> Vec<ZIssue> {
    let as_state = || state_branch(node, false);
    let as_map = || {
        if let Value::Object(members) = &node.value {
            let map = record(node, "pattern", |n| pattern_value(n, target));
            if !map.is_empty() && looks_like_surface_deny_object(members) {
                // Point at the whole object: it belongs one level down.
                map.into_iter()
                    .map(|mut z| {
                        z.violations = vec![Violation {
                            kind: ViolationKind::SurfaceLevelDenyObject,
                            range: node.range.clone(),
                        }];
                        z
                    })
                    .collect()
            } else {
                map
            }
        } else {
            vec![type_issue(node, "record", &node.value)]
        }
    };
    if matches!(node.value, Value::Object(_)) {
        union(as_map, as_state)
    } else {
        union(as_state, as_map)
    }
}

/// `{ "action": "deny", "reason": … }` written where a pattern map belongs.
fn looks_like_surface_deny_object(members: &[Member]) -> bool {
    members.iter().any(|m| m.key == "action")
        && members
            .iter()
            .all(|m| m.key == "action" || m.key == "reason")
        && members.iter().any(|m| m.key == "reason")
}

fn pattern_value(node: &Node, target: Version) -> Vec<ZIssue> {
    let as_state = || state_branch(node, true);
    let as_deny = || match &node.value {
        Value::Object(members) => deny_object(node, members, target),
        v => vec![type_issue(node, "object", v)],
    };
    if matches!(node.value, Value::Object(_)) {
        union(as_deny, as_state)
    } else {
        union(as_state, as_deny)
    }
}

/// zod `strictObject({ action: literal("deny"), reason: string.max(500).optional() })`.
fn deny_object(node: &Node, members: &[Member], target: Version) -> Vec<ZIssue> {
    let entries = js_entries(members);
    let mut out = Vec::new();
    let action = entries.iter().find(|e| e.first.key == "action");
    match action.map(|e| &e.member.value) {
        Some(Node {
            value: Value::String(s),
            ..
        }) if s == "deny" => {}
        Some(v) => {
            let kind = match &v.value {
                Value::String(s) if s == "allow" || s == "ask" => {
                    ViolationKind::ObjectFormForState { action: s.clone() }
                }
                Value::String(s) => ViolationKind::DenyObjectAction {
                    found: Some(s.clone()),
                },
                other => ViolationKind::DenyObjectAction {
                    found: Some(other.type_name().to_string()),
                },
            };
            out.push(
                ZIssue::new(
                    "Invalid input: expected \"deny\"",
                    true,
                    Violation {
                        kind,
                        range: v.range.clone(),
                    },
                )
                .prefixed("action"),
            );
        }
        None => out.push(
            ZIssue::new(
                "Invalid input: expected \"deny\"",
                true,
                Violation {
                    kind: ViolationKind::DenyObjectAction { found: None },
                    range: node.range.clone(),
                },
            )
            .prefixed("action"),
        ),
    }
    if let Some(e) = entries.iter().find(|e| e.first.key == "reason") {
        let r = &e.member.value;
        match &r.value {
            Value::String(s) => {
                let chars = s.chars().count();
                if chars > MAX_REASON_CHARS {
                    out.push(
                        ZIssue::new(
                            "Too big: expected string to have <=500 characters",
                            false,
                            Violation {
                                kind: ViolationKind::ReasonTooLong { chars },
                                range: r.range.clone(),
                            },
                        )
                        .prefixed("reason"),
                    );
                }
            }
            other => out.push(
                ZIssue::new(
                    format!(
                        "Invalid input: expected string, received {}",
                        received(other)
                    ),
                    true,
                    Violation {
                        kind: ViolationKind::ReasonNotString {
                            found: other.type_name(),
                        },
                        range: r.range.clone(),
                    },
                )
                .prefixed("reason"),
            ),
        }
    }
    for e in &entries {
        if e.first.key != "action" && e.first.key != "reason" {
            let mut issue = ZIssue::unrecognized(
                &e.first.key,
                Violation {
                    kind: ViolationKind::ExtraKey {
                        key: e.first.key.clone(),
                        in_deny_object: true,
                    },
                    range: e.member.key_range.clone(),
                },
            );
            issue.aborting = unrecognized_fails_union(target);
            out.push(issue);
        }
    }
    out
}

fn shell_tools(node: &Node) -> Vec<ZIssue> {
    record(node, "tool name", |v| match &v.value {
        Value::Object(members) => {
            let entries = js_entries(members);
            let mut out = Vec::new();
            match entries.iter().find(|e| e.first.key == "commandArgument") {
                Some(e) => out.extend(
                    non_empty_string(&e.member.value).map(|z| z.prefixed("commandArgument")),
                ),
                None => {
                    let zod = "Invalid input: expected string, received undefined".to_string();
                    out.push(
                        ZIssue::new(
                            zod,
                            true,
                            Violation {
                                kind: ViolationKind::MissingMember {
                                    member: "commandArgument",
                                },
                                range: v.range.clone(),
                            },
                        )
                        .prefixed("commandArgument"),
                    );
                }
            }
            if let Some(e) = entries.iter().find(|e| e.first.key == "workdirArgument") {
                out.extend(
                    non_empty_string(&e.member.value).map(|z| z.prefixed("workdirArgument")),
                );
            }
            for e in &entries {
                if e.first.key != "commandArgument" && e.first.key != "workdirArgument" {
                    out.push(ZIssue::unrecognized(
                        &e.first.key,
                        Violation {
                            kind: ViolationKind::ExtraKey {
                                key: e.first.key.clone(),
                                in_deny_object: false,
                            },
                            range: e.member.key_range.clone(),
                        },
                    ));
                }
            }
            out
        }
        other => vec![type_issue(v, "object", other)],
    })
}
