//! The config as the runtime holds it after reading and validating a file:
//! surfaces and patterns in JavaScript property order, knobs, shell tools —
//! each with its source range.

use crate::syntax::js_order::js_entries;
use crate::syntax::{Member, Node, Value};
use std::ops::Range;

/// pi's own tools (their visibility is decided by `evaluate(tool, "*")`).
pub const TOOLS: &[&str] = &["bash", "read", "write", "edit", "grep", "find", "ls", "mcp"];

/// Surface keys the runtime gives a meaning: the universal default, pi's
/// tools, `skill`, and the two path gates (`task` is an extension tool).
pub const KNOWN_SURFACES: &[&str] = &[
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
    "path",
    "external_directory",
];

/// A permission state: the shared decision type.
pub use crate::core::decision::Decision as State;

/// A pattern's value: a state, or a deny with an optional reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleValue {
    pub action: State,
    pub reason: Option<String>,
}

/// One `pattern: value` entry of a surface map.
#[derive(Debug, Clone, PartialEq)]
pub struct PatternRule {
    pub pattern: String,
    pub value: RuleValue,
    /// Where the key is (the first occurrence fixes the position).
    pub key_range: Range<usize>,
    /// Where the value in force is (the last occurrence).
    pub value_range: Range<usize>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum SurfaceValue {
    /// `"bash": "ask"` — one rule with pattern `*` at the key's position.
    State { state: State, range: Range<usize> },
    /// A pattern map, in runtime order (`__proto__` dropped).
    Map {
        rules: Vec<PatternRule>,
        range: Range<usize>,
    },
}

impl SurfaceValue {
    pub fn range(&self) -> Range<usize> {
        match self {
            SurfaceValue::State { range, .. } | SurfaceValue::Map { range, .. } => range.clone(),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Surface {
    pub key: String,
    pub key_range: Range<usize>,
    pub value: SurfaceValue,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellTool {
    pub name: String,
    pub command_argument: String,
    pub workdir_argument: Option<String>,
}

/// Runtime knobs as written in one file (`None` = not set).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Knobs {
    pub debug_log: Option<bool>,
    pub permission_review_log: Option<bool>,
    pub yolo_mode: Option<bool>,
    pub double_press_to_confirm: Option<bool>,
    pub tool_input_preview_max_length: Option<f64>,
    pub tool_text_summary_max_length: Option<f64>,
    pub pi_infrastructure_read_paths: Option<Vec<String>>,
}

/// One scope's config as the runtime holds it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PiConfig {
    /// `None` when the file has no `permission` key.
    pub permission: Option<Vec<Surface>>,
    pub knobs: Knobs,
    pub shell_tools: Option<Vec<ShellTool>>,
}

impl PiConfig {
    /// Builds the runtime view of a file that passed validation.
    pub fn from_validated(root: &Node) -> PiConfig {
        let mut cfg = PiConfig::default();
        let Some(members) = root.value.as_object() else {
            return cfg;
        };
        for e in js_entries(members) {
            let v = &e.member.value;
            match e.first.key.as_str() {
                "permission" => cfg.permission = v.value.as_object().map(surfaces_from_json),
                "debugLog" => cfg.knobs.debug_log = as_bool(v),
                "permissionReviewLog" => cfg.knobs.permission_review_log = as_bool(v),
                "yoloMode" => cfg.knobs.yolo_mode = as_bool(v),
                "doublePressToConfirm" => cfg.knobs.double_press_to_confirm = as_bool(v),
                "toolInputPreviewMaxLength" => cfg.knobs.tool_input_preview_max_length = as_num(v),
                "toolTextSummaryMaxLength" => cfg.knobs.tool_text_summary_max_length = as_num(v),
                "piInfrastructureReadPaths" => {
                    if let Value::Array(items) = &v.value {
                        cfg.knobs.pi_infrastructure_read_paths = Some(
                            items
                                .iter()
                                .filter_map(|i| i.value.as_str().map(str::to_string))
                                .collect(),
                        );
                    }
                }
                "shellTools" => {
                    if let Some(tools) = v.value.as_object() {
                        cfg.shell_tools = Some(
                            js_entries(tools)
                                .into_iter()
                                .filter(|t| t.first.key != "__proto__")
                                .filter_map(|t| {
                                    let obj = t.member.value.value.as_object()?;
                                    let get = |k: &str| {
                                        js_entries(obj)
                                            .into_iter()
                                            .find(|m| m.first.key == k)
                                            .and_then(|m| {
                                                m.member.value.value.as_str().map(str::to_string)
                                            })
                                    };
                                    Some(ShellTool {
                                        name: t.first.key.clone(),
                                        command_argument: get("commandArgument")?,
                                        workdir_argument: get("workdirArgument"),
                                    })
                                })
                                .collect(),
                        );
                    }
                }
                _ => {}
            }
        }
        cfg
    }

    /// `permission["*"]` when it is a state (the universal default).
    pub fn universal_default(&self) -> Option<State> {
        self.permission
            .as_ref()?
            .iter()
            .find_map(|s| match (&s.key[..], &s.value) {
                ("*", SurfaceValue::State { state, .. }) => Some(*state),
                _ => None,
            })
    }
}

fn as_bool(n: &Node) -> Option<bool> {
    match n.value {
        Value::Bool(b) => Some(b),
        _ => None,
    }
}

fn as_num(n: &Node) -> Option<f64> {
    match n.value {
        Value::Number(x) => Some(x),
        _ => None,
    }
}

/// The permission object of a validated file, in runtime order.
pub fn surfaces_from_json(members: &[Member]) -> Vec<Surface> {
    js_entries(members)
        .into_iter()
        .filter(|e| e.first.key != "__proto__")
        .filter_map(|e| {
            let v = &e.member.value;
            let value = match &v.value {
                Value::String(s) => SurfaceValue::State {
                    state: State::parse(s)?,
                    range: v.range.clone(),
                },
                Value::Object(patterns) => SurfaceValue::Map {
                    rules: js_entries(patterns)
                        .into_iter()
                        .filter(|p| p.first.key != "__proto__")
                        .filter_map(|p| {
                            Some(PatternRule {
                                pattern: p.first.key.clone(),
                                value: rule_value_from_json(&p.member.value)?,
                                key_range: p.first.key_range.clone(),
                                value_range: p.member.value.range.clone(),
                            })
                        })
                        .collect(),
                    range: v.range.clone(),
                },
                _ => return None,
            };
            Some(Surface {
                key: e.first.key.clone(),
                key_range: e.first.key_range.clone(),
                value,
            })
        })
        .collect()
}

fn rule_value_from_json(n: &Node) -> Option<RuleValue> {
    match &n.value {
        Value::String(s) => Some(RuleValue {
            action: State::parse(s)?,
            reason: None,
        }),
        Value::Object(m) => {
            let entries = js_entries(m);
            let action = entries.iter().find(|e| e.first.key == "action")?;
            if action.member.value.value.as_str() != Some("deny") {
                return None;
            }
            let reason = entries
                .iter()
                .find(|e| e.first.key == "reason")
                .and_then(|e| e.member.value.value.as_str().map(str::to_string));
            Some(RuleValue {
                action: State::Deny,
                reason,
            })
        }
        _ => None,
    }
}
