//! One policy TOML file as Gemini CLI 0.61.0 loads it (`toml-loader`):
//! parsed, checked against the rule schema (one issue anywhere drops the
//! whole file, valid rules included), then each rule checked on its own
//! (an invalid or unsafe regex drops that rule; a misplaced
//! `commandPrefix` is reported and kept; a near-miss tool name warns).
//! Every value keeps its position for diagnostics and fixes.

use super::jsregex::{self, JsRegex, Refused};
use super::{Decision, Mode};
use std::ops::Range;
use toml_edit::{Item, Value};

/// A value and where it is written.
#[derive(Debug, Clone, PartialEq)]
pub struct At<T> {
    pub value: T,
    pub range: Range<usize>,
}

/// One `[[rule]]` that passed the schema.
#[derive(Debug, Clone)]
pub struct RuleSpec {
    /// 0-based, in file order.
    pub index: usize,
    /// From the header (or the inline table's `{`) to its last value.
    pub range: Range<usize>,
    pub tool_names: Vec<At<String>>,
    pub tool_is_list: bool,
    pub tool_range: Range<usize>,
    pub mcp_name: Option<At<String>>,
    pub subagent: Option<String>,
    pub args_pattern: Option<At<String>>,
    pub command_prefix: Option<Vec<At<String>>>,
    pub prefix_range: Option<Range<usize>>,
    /// `commandPrefix` is written as a list.
    pub prefix_list: bool,
    pub command_regex: Option<At<String>>,
    pub decision: At<Decision>,
    pub priority: At<i64>,
    pub modes: Option<Vec<Mode>>,
    pub interactive: Option<bool>,
    pub tool_annotations: Option<Vec<(String, serde_json::Value)>>,
    pub allow_redirection: Option<bool>,
    pub deny_message: Option<String>,
    pub name: Option<String>,
}

/// What the CLI says about a file or a rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProblemKind {
    /// "TOML parsing failed": the file is dropped.
    Syntax,
    /// "Schema validation failed": the file is dropped.
    Schema,
    /// "Invalid shell command syntax": reported, the rule kept.
    ShellSyntax,
    /// An empty tool name: the CLI stops at start.
    EmptyToolName,
    /// "Unrecognized tool name" (a warning).
    ToolName,
    /// The `__` MCP form (a warning; never matches).
    McpDoubleUnderscore,
    /// "Invalid regex pattern": that rule is dropped.
    RegexInvalid,
    /// "Unsafe regex pattern (potential ReDoS)": that rule is dropped.
    RegexUnsafe,
    /// A regex JavaScript runs but this checker cannot translate.
    RegexUnsupported,
}

#[derive(Debug, Clone)]
pub struct Problem {
    pub kind: ProblemKind,
    pub range: Range<usize>,
    /// The CLI's words (its message and details).
    pub message: String,
    pub rule: Option<usize>,
}

/// One expanded rule of a file: a tool name × a pattern, as the engine
/// holds it (before the tier is added to its priority).
#[derive(Debug, Clone)]
pub struct Expanded {
    pub rule: usize,
    pub tool_name: String,
    pub pattern: Option<JsRegex>,
    /// The pattern's source, kept when it could not be translated (the
    /// rule then answers "unknown" where it is reached).
    pub untranslated: Option<String>,
    /// Which `commandPrefix` entry this is (for hover and witnesses).
    pub prefix: Option<String>,
}

/// A policy file as loaded.
#[derive(Debug, Clone, Default)]
pub struct PolicyFile {
    /// The rules the CLI reads (none when the file is dropped).
    pub rules: Vec<RuleSpec>,
    /// The schema's every issue (`Field "rule.1.priority": …`), with the
    /// place it points at.
    pub issues: Vec<(String, String, Range<usize>)>,
    pub problems: Vec<Problem>,
    pub expanded: Vec<Expanded>,
    /// `[[safety_checker]]` entries (read, never simulated).
    pub checkers: usize,
    /// Parsed rules found before the file was dropped (for people).
    pub dropped_rules: usize,
}

impl PolicyFile {
    /// The file is dropped whole.
    pub fn dropped(&self) -> Option<&Problem> {
        self.problems
            .iter()
            .find(|p| matches!(p.kind, ProblemKind::Syntax | ProblemKind::Schema))
    }

    /// The CLI does not start.
    pub fn fatal(&self) -> Option<&Problem> {
        self.problems
            .iter()
            .find(|p| p.kind == ProblemKind::EmptyToolName)
    }
}

fn span_of(item: &Item) -> Range<usize> {
    item.span().unwrap_or(0..0)
}

fn value_span(v: &Value) -> Range<usize> {
    v.span().unwrap_or(0..0)
}

/// zod's name for a value's type.
fn js_type(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "string",
        Value::Integer(_) | Value::Float(_) => "number",
        Value::Boolean(_) => "boolean",
        Value::Datetime(_) => "date",
        Value::Array(_) => "array",
        Value::InlineTable(_) => "object",
    }
}

fn item_type(i: &Item) -> &'static str {
    match i {
        Item::Value(v) => js_type(v),
        Item::Table(_) => "object",
        Item::ArrayOfTables(_) => "array",
        Item::None => "undefined",
    }
}

/// A number as JavaScript holds it.
fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Integer(i) => Some(*i.value() as f64),
        Value::Float(f) => Some(*f.value()),
        _ => None,
    }
}

/// A rule's table, whichever way it is written.
enum RuleTable<'a> {
    Table(&'a toml_edit::Table),
    Inline(&'a toml_edit::InlineTable),
}

impl RuleTable<'_> {
    fn get(&self, key: &str) -> Option<Item> {
        match self {
            RuleTable::Table(t) => t.get(key).cloned(),
            RuleTable::Inline(t) => t.get(key).cloned().map(Item::Value),
        }
    }

    fn range(&self) -> Range<usize> {
        let (start, ends): (usize, Vec<usize>) = match self {
            RuleTable::Table(t) => (
                t.span().map(|s| s.start).unwrap_or(0),
                t.iter()
                    .filter_map(|(_, i)| i.span().map(|s| s.end))
                    .collect(),
            ),
            RuleTable::Inline(t) => (
                t.span().map(|s| s.start).unwrap_or(0),
                t.span().map(|s| s.end).into_iter().collect(),
            ),
        };
        let end = ends.into_iter().max().unwrap_or(start).max(start);
        start..end
    }

    fn header(&self) -> Range<usize> {
        match self {
            RuleTable::Table(t) => t.span().unwrap_or(0..0),
            RuleTable::Inline(t) => {
                let s = t.span().unwrap_or(0..0);
                s.start..(s.start + 1).min(s.end)
            }
        }
    }
}

/// The schema's issues, in the order zod reports them.
struct Checker {
    issues: Vec<(String, String, Range<usize>)>,
}

impl Checker {
    fn issue(&mut self, path: String, message: String, range: Range<usize>) {
        self.issues.push((path, message, range));
    }
}

fn string_field(c: &mut Checker, t: &RuleTable, path: &str, key: &str, fallback: &Range<usize>) {
    if let Some(i) = t.get(key) {
        match i.as_value() {
            Some(Value::String(_)) => {}
            _ => c.issue(
                format!("{path}.{key}"),
                format!("Expected string, received {}", item_type(&i)),
                span_or(&i, fallback),
            ),
        }
    }
}

fn bool_field(c: &mut Checker, t: &RuleTable, path: &str, key: &str, fallback: &Range<usize>) {
    if let Some(i) = t.get(key)
        && !matches!(i.as_value(), Some(Value::Boolean(_)))
    {
        c.issue(
            format!("{path}.{key}"),
            format!("Expected boolean, received {}", item_type(&i)),
            span_or(&i, fallback),
        );
    }
}

fn span_or(i: &Item, fallback: &Range<usize>) -> Range<usize> {
    let s = span_of(i);
    if s.is_empty() { fallback.clone() } else { s }
}

/// `string | string[]`.
fn string_or_list(
    c: &mut Checker,
    t: &RuleTable,
    path: &str,
    key: &str,
    required: bool,
    fallback: &Range<usize>,
) {
    match t.get(key) {
        None if required => c.issue(format!("{path}.{key}"), "Required".into(), fallback.clone()),
        None => {}
        Some(i) => {
            let ok = match i.as_value() {
                Some(Value::String(_)) => true,
                Some(Value::Array(a)) => a.iter().all(|v| matches!(v, Value::String(_))),
                _ => false,
            };
            if !ok {
                c.issue(
                    format!("{path}.{key}"),
                    "Invalid input".into(),
                    span_or(&i, fallback),
                );
            }
        }
    }
}

const DECISIONS: &str = "'allow' | 'deny' | 'ask_user'";
const MODES: &str = "'default' | 'autoEdit' | 'yolo' | 'plan'";

fn check_rule(c: &mut Checker, t: &RuleTable, path: &str) {
    let head = t.header();
    string_or_list(c, t, path, "toolName", true, &head);
    string_field(c, t, path, "subagent", &head);
    string_field(c, t, path, "mcpName", &head);
    string_field(c, t, path, "argsPattern", &head);
    string_or_list(c, t, path, "commandPrefix", false, &head);
    string_field(c, t, path, "commandRegex", &head);
    match t.get("decision") {
        None => c.issue(format!("{path}.decision"), "Required".into(), head.clone()),
        Some(i) => match i.as_value() {
            Some(Value::String(s)) if Decision::parse(s.value()).is_some() => {}
            Some(Value::String(s)) => c.issue(
                format!("{path}.decision"),
                format!(
                    "Invalid enum value. Expected {DECISIONS}, received '{}'",
                    s.value()
                ),
                span_or(&i, &head),
            ),
            _ => c.issue(
                format!("{path}.decision"),
                format!("Expected {DECISIONS}, received {}", item_type(&i)),
                span_or(&i, &head),
            ),
        },
    }
    match t.get("priority") {
        None => c.issue(
            format!("{path}.priority"),
            "priority is required".into(),
            head.clone(),
        ),
        Some(i) => match i.as_value().and_then(number) {
            None => c.issue(
                format!("{path}.priority"),
                "priority must be a number".into(),
                span_or(&i, &head),
            ),
            Some(n) => {
                let r = span_or(&i, &head);
                if n.fract() != 0.0 || !n.is_finite() {
                    c.issue(
                        format!("{path}.priority"),
                        "priority must be an integer".into(),
                        r.clone(),
                    );
                }
                if n < 0.0 {
                    c.issue(
                        format!("{path}.priority"),
                        "priority must be >= 0".into(),
                        r.clone(),
                    );
                }
                if n > 999.0 {
                    c.issue(
                        format!("{path}.priority"),
                        "priority must be <= 999 to prevent tier overflow. Priorities >= 1000 would jump to the next tier.".into(),
                        r,
                    );
                }
            }
        },
    }
    if let Some(i) = t.get("modes") {
        match i.as_value() {
            Some(Value::Array(a)) => {
                for (k, v) in a.iter().enumerate() {
                    match v {
                        Value::String(s) if Mode::from_rule_name(s.value()).is_some() => {}
                        Value::String(s) => c.issue(
                            format!("{path}.modes.{k}"),
                            format!(
                                "Invalid enum value. Expected {MODES}, received '{}'",
                                s.value()
                            ),
                            value_span(v),
                        ),
                        _ => c.issue(
                            format!("{path}.modes.{k}"),
                            format!("Expected {MODES}, received {}", js_type(v)),
                            value_span(v),
                        ),
                    }
                }
            }
            _ => c.issue(
                format!("{path}.modes"),
                format!("Expected array, received {}", item_type(&i)),
                span_or(&i, &head),
            ),
        }
    }
    bool_field(c, t, path, "interactive", &head);
    if let Some(i) = t.get("toolAnnotations")
        && !(i.is_table() || i.is_inline_table())
    {
        c.issue(
            format!("{path}.toolAnnotations"),
            format!("Expected object, received {}", item_type(&i)),
            span_or(&i, &head),
        );
    }
    bool_field(c, t, path, "allowRedirection", &head);
    bool_field(c, t, path, "allow_redirection", &head);
    string_field(c, t, path, "denyMessage", &head);
    string_field(c, t, path, "deny_message", &head);
}

fn check_checker(c: &mut Checker, t: &RuleTable, path: &str) {
    let head = t.header();
    string_or_list(c, t, path, "toolName", true, &head);
    string_field(c, t, path, "mcpName", &head);
    string_field(c, t, path, "argsPattern", &head);
    string_or_list(c, t, path, "commandPrefix", false, &head);
    string_field(c, t, path, "commandRegex", &head);
    if let Some(i) = t.get("priority") {
        match i.as_value().and_then(number) {
            Some(n) if n.fract() == 0.0 => {}
            Some(_) => c.issue(
                format!("{path}.priority"),
                "Expected integer, received float".into(),
                span_or(&i, &head),
            ),
            None => c.issue(
                format!("{path}.priority"),
                format!("Expected number, received {}", item_type(&i)),
                span_or(&i, &head),
            ),
        }
    }
    match t.get("checker") {
        None => c.issue(format!("{path}.checker"), "Required".into(), head.clone()),
        Some(i) => {
            let ty = match &i {
                Item::Table(tt) => tt.get("type").and_then(|x| x.as_str()).map(str::to_string),
                Item::Value(Value::InlineTable(tt)) => {
                    tt.get("type").and_then(|x| x.as_str()).map(str::to_string)
                }
                _ => {
                    c.issue(
                        format!("{path}.checker"),
                        format!("Expected object, received {}", item_type(&i)),
                        span_or(&i, &head),
                    );
                    return;
                }
            };
            if !matches!(ty.as_deref(), Some("in-process" | "external")) {
                c.issue(
                    format!("{path}.checker.type"),
                    "Invalid discriminator value. Expected 'in-process' | 'external'".into(),
                    span_or(&i, &head),
                );
            }
        }
    }
}

/// The entries of a top-level array key (`[[rule]]` or `rule = [...]`).
fn entries<'a>(
    c: &mut Checker,
    root: &'a toml_edit::Table,
    key: &str,
) -> Vec<Option<RuleTable<'a>>> {
    match root.get(key) {
        None => Vec::new(),
        Some(Item::ArrayOfTables(a)) => a.iter().map(|t| Some(RuleTable::Table(t))).collect(),
        Some(Item::Value(Value::Array(a))) => a
            .iter()
            .enumerate()
            .map(|(k, v)| match v {
                Value::InlineTable(t) => Some(RuleTable::Inline(t)),
                other => {
                    c.issue(
                        format!("{key}.{k}"),
                        format!("Expected object, received {}", js_type(other)),
                        value_span(other),
                    );
                    None
                }
            })
            .collect(),
        Some(i) => {
            let r = root
                .get_key_value(key)
                .and_then(|(k, _)| k.span())
                .unwrap_or_else(|| span_of(i));
            c.issue(
                key.to_string(),
                format!("Expected array, received {}", item_type(i)),
                r,
            );
            Vec::new()
        }
    }
}

fn strings(i: &Item) -> Vec<At<String>> {
    match i.as_value() {
        Some(Value::String(s)) => vec![At {
            value: s.value().clone(),
            range: value_span(i.as_value().unwrap()),
        }],
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(|v| {
                v.as_str().map(|s| At {
                    value: s.to_string(),
                    range: value_span(v),
                })
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn one_string(t: &RuleTable, key: &str) -> Option<At<String>> {
    let i = t.get(key)?;
    let v = i.as_value()?;
    Some(At {
        value: v.as_str()?.to_string(),
        range: value_span(v),
    })
}

fn to_json(v: &Value) -> serde_json::Value {
    match v {
        Value::String(s) => serde_json::Value::String(s.value().clone()),
        Value::Integer(i) => serde_json::json!(*i.value()),
        Value::Float(f) => serde_json::json!(*f.value()),
        Value::Boolean(b) => serde_json::Value::Bool(*b.value()),
        Value::Datetime(d) => serde_json::Value::String(d.value().to_string()),
        Value::Array(a) => serde_json::Value::Array(a.iter().map(to_json).collect()),
        Value::InlineTable(t) => {
            serde_json::Value::Object(t.iter().map(|(k, v)| (k.to_string(), to_json(v))).collect())
        }
    }
}

fn spec(index: usize, t: &RuleTable) -> RuleSpec {
    let tool = t.get("toolName").unwrap_or(Item::None);
    let prefix = t.get("commandPrefix");
    let annotations = t.get("toolAnnotations").map(|i| match &i {
        Item::Table(tt) => tt
            .iter()
            .filter_map(|(k, v)| v.as_value().map(|v| (k.to_string(), to_json(v))))
            .collect(),
        Item::Value(Value::InlineTable(tt)) => tt
            .iter()
            .map(|(k, v)| (k.to_string(), to_json(v)))
            .collect(),
        _ => Vec::new(),
    });
    let decision_item = t.get("decision").unwrap_or(Item::None);
    let priority_item = t.get("priority").unwrap_or(Item::None);
    let b = |k: &str| {
        t.get(k)
            .and_then(|i| i.as_value().and_then(|v| v.as_bool()))
    };
    let s = |k: &str| one_string(t, k).map(|a| a.value);
    RuleSpec {
        index,
        range: t.range(),
        tool_is_list: tool.as_array().is_some(),
        tool_range: span_of(&tool),
        tool_names: strings(&tool),
        mcp_name: one_string(t, "mcpName"),
        subagent: s("subagent"),
        args_pattern: one_string(t, "argsPattern"),
        prefix_range: prefix.as_ref().map(span_of),
        command_prefix: prefix.as_ref().map(strings),
        prefix_list: prefix.as_ref().is_some_and(|p| p.as_array().is_some()),
        command_regex: one_string(t, "commandRegex"),
        decision: At {
            value: decision_item
                .as_str()
                .and_then(Decision::parse)
                .unwrap_or(Decision::Ask),
            range: span_of(&decision_item),
        },
        priority: At {
            value: priority_item.as_value().and_then(number).unwrap_or(0.0) as i64,
            range: span_of(&priority_item),
        },
        modes: t.get("modes").and_then(|i| {
            i.as_array().map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().and_then(Mode::from_rule_name))
                    .collect()
            })
        }),
        interactive: b("interactive"),
        tool_annotations: annotations,
        allow_redirection: b("allowRedirection").or_else(|| b("allow_redirection")),
        deny_message: s("denyMessage").or_else(|| s("deny_message")),
        name: s("name"),
    }
}

/// `buildArgsPatterns`: the regex sources a rule matches the arguments'
/// JSON with (one per `commandPrefix` entry, each with its prefix).
/// `None` is no pattern (an empty source is none too: the loader tests
/// it for truth).
pub fn args_patterns(rule: &RuleSpec) -> Vec<(Option<String>, Option<String>)> {
    if let Some(prefixes) = &rule.command_prefix {
        // A string prefix counts when it is not empty; a list always does
        // (an empty list yields no rule at all).
        if rule.prefix_list || prefixes.first().is_some_and(|p| !p.value.is_empty()) {
            return prefixes
                .iter()
                .map(|p| (Some(prefix_pattern(&p.value)), Some(p.value.clone())))
                .collect();
        }
    }
    if let Some(r) = rule.command_regex.as_ref().filter(|r| !r.value.is_empty()) {
        return vec![(Some(format!("\"command\":\"{}", r.value)), None)];
    }
    vec![(
        rule.args_pattern
            .as_ref()
            .map(|a| a.value.clone())
            .filter(|a| !a.is_empty()),
        None,
    )]
}

/// The regex source of one `commandPrefix`.
pub fn prefix_pattern(prefix: &str) -> String {
    JsRegex::command_prefix(prefix).source
}

fn validate_shell_syntax(rule: &RuleSpec) -> Option<String> {
    let n = rule.index + 1;
    if rule.command_prefix.is_some() || rule.command_regex.is_some() {
        let single_shell = !rule.tool_is_list
            && rule.tool_names.len() == 1
            && rule.tool_names[0].value == "run_shell_command";
        if !single_shell {
            let found = if rule.tool_is_list {
                serde_json::to_string(
                    &rule
                        .tool_names
                        .iter()
                        .map(|t| t.value.clone())
                        .collect::<Vec<_>>(),
                )
                .unwrap_or_default()
            } else {
                serde_json::to_string(
                    &rule
                        .tool_names
                        .first()
                        .map(|t| t.value.clone())
                        .unwrap_or_default(),
                )
                .unwrap_or_default()
            };
            return Some(format!(
                "Rule #{n}: commandPrefix and commandRegex can only be used with toolName = \"run_shell_command\"\n  Found: toolName = {found}\n  Fix: Set toolName = \"run_shell_command\" (not an array)"
            ));
        }
        if rule.args_pattern.is_some() {
            return Some(format!(
                "Rule #{n}: cannot use both commandPrefix/commandRegex and argsPattern\n  These fields are mutually exclusive\n  Fix: Use either commandPrefix/commandRegex OR argsPattern, not both"
            ));
        }
        if rule.command_prefix.is_some() && rule.command_regex.is_some() {
            return Some(format!(
                "Rule #{n}: cannot use both commandPrefix and commandRegex\n  These fields are mutually exclusive\n  Fix: Use either commandPrefix OR commandRegex, not both"
            ));
        }
    }
    None
}

/// What the CLI's TOML parser (TOML 0.5) refuses that `toml_edit` (TOML
/// 1.1) reads: a byte-order mark, arrays mixing types, newlines or a
/// trailing comma in an inline table, the `\e` and `\xHH` escapes.
fn beyond_toml_05(doc: &toml_edit::Document<&str>, text: &str) -> Option<(Range<usize>, String)> {
    if text.starts_with('\u{feff}') {
        return Some((0..3, "a byte-order mark is not read".into()));
    }
    let mut found = None;
    walk_table(doc.as_table(), text, &mut found);
    found
}

type Found = Option<(Range<usize>, String)>;

fn walk_table(t: &toml_edit::Table, text: &str, found: &mut Found) {
    for (_, item) in t.iter() {
        if found.is_some() {
            return;
        }
        walk_item(item, text, found);
    }
}

fn walk_item(item: &Item, text: &str, found: &mut Found) {
    match item {
        Item::Value(v) => walk_value(v, text, found),
        Item::Table(t) => walk_table(t, text, found),
        Item::ArrayOfTables(a) => {
            for t in a.iter() {
                walk_table(t, text, found);
            }
        }
        Item::None => {}
    }
}

fn kind_of(v: &Value) -> u8 {
    match v {
        Value::String(_) => 0,
        Value::Integer(_) => 1,
        Value::Float(_) => 2,
        Value::Boolean(_) => 3,
        Value::Datetime(_) => 4,
        Value::Array(_) => 5,
        Value::InlineTable(_) => 6,
    }
}

fn string_spans(v: &Value, out: &mut Vec<Range<usize>>) {
    match v {
        Value::String(_) => out.extend(v.span()),
        Value::Array(a) => a.iter().for_each(|x| string_spans(x, out)),
        Value::InlineTable(t) => t.iter().for_each(|(_, x)| string_spans(x, out)),
        _ => {}
    }
}

fn walk_value(v: &Value, text: &str, found: &mut Found) {
    if found.is_some() {
        return;
    }
    let span = v.span().unwrap_or(0..0);
    match v {
        Value::String(_) => {
            let raw = text.get(span.clone()).unwrap_or("");
            if raw.starts_with('"') {
                let b = raw.as_bytes();
                let mut i = 0;
                while i + 1 < b.len() {
                    if b[i] == b'\\' {
                        if b[i + 1] == b'e' || b[i + 1] == b'x' {
                            *found = Some((
                                span.start + i..span.start + i + 2,
                                format!("the escape `\\{}` is not TOML 0.5", b[i + 1] as char),
                            ));
                            return;
                        }
                        i += 2;
                    } else {
                        i += 1;
                    }
                }
            }
        }
        Value::Array(a) => {
            let mut kinds = a.iter().map(kind_of);
            if let Some(first) = kinds.next()
                && kinds.any(|k| k != first)
            {
                *found = Some((
                    span,
                    "an array mixes value types (TOML 0.5 arrays hold one type)".into(),
                ));
                return;
            }
            for x in a.iter() {
                walk_value(x, text, found);
            }
        }
        Value::InlineTable(t) => {
            let mut strings = Vec::new();
            string_spans(v, &mut strings);
            let raw = text.get(span.clone()).unwrap_or("");
            let newline = raw
                .char_indices()
                .any(|(i, c)| c == '\n' && !strings.iter().any(|r| r.contains(&(span.start + i))));
            if newline {
                *found = Some((span, "an inline table spans lines".into()));
                return;
            }
            let inner = raw.trim_end().strip_suffix('}').unwrap_or(raw).trim_end();
            let last_value_end = t.iter().filter_map(|(_, x)| x.span()).map(|r| r.end).max();
            if inner.ends_with(',') && last_value_end.is_some_and(|e| e <= span.start + inner.len())
            {
                *found = Some((span, "a trailing comma in an inline table".into()));
                return;
            }
            for (_, x) in t.iter() {
                walk_value(x, text, found);
            }
        }
        _ => {}
    }
}

/// Reads one policy file.
pub fn read(text: &str) -> PolicyFile {
    read_in_parts(text).unwrap_or_else(|| read_whole(text))
}

/// [`read`] of the file as one document.
fn read_whole(text: &str) -> PolicyFile {
    let mut out = PolicyFile::default();
    let doc = match toml_edit::Document::parse(text) {
        Ok(d) => d,
        Err(e) => {
            let r = e.span().unwrap_or(0..0);
            let r = r.start.min(text.len())..r.end.min(text.len());
            out.problems.push(Problem {
                kind: ProblemKind::Syntax,
                range: r,
                message: format!("TOML parsing failed: {}", e.message().trim()),
                rule: None,
            });
            return out;
        }
    };
    if let Some((range, why)) = beyond_toml_05(&doc, text) {
        out.problems.push(Problem {
            kind: ProblemKind::Syntax,
            range,
            message: format!("TOML parsing failed: {why}"),
            rule: None,
        });
        return out;
    }
    let root = doc.as_table();
    let mut c = Checker { issues: Vec::new() };
    let rules = entries(&mut c, root, "rule");
    for (k, t) in rules.iter().enumerate() {
        if let Some(t) = t {
            check_rule(&mut c, t, &format!("rule.{k}"));
        }
    }
    let checkers = entries(&mut c, root, "safety_checker");
    for (k, t) in checkers.iter().enumerate() {
        if let Some(t) = t {
            check_checker(&mut c, t, &format!("safety_checker.{k}"));
        }
    }
    out.checkers = checkers.len();
    let specs = if c.issues.is_empty() {
        rules
            .iter()
            .enumerate()
            .filter_map(|(k, t)| t.as_ref().map(|t| spec(k, t)))
            .collect()
    } else {
        Vec::new()
    };
    finish(out, c.issues, rules.len(), specs)
}

/// [`read`] one `[[…]]` table at a time: a large file of rules is never
/// held as one document (`toml_edit`'s document of a 10 MB policy file
/// takes about fifty times its size). The text is cut before every line
/// that begins with `[[`, and each part is parsed alone. Used only when
/// every part parses and passes [`beyond_toml_05`], the part before the
/// first cut defines neither `rule` nor `safety_checker`, and every other
/// part is exactly one element of one of them: the parts are then the
/// file's own expressions in order, and no part can change another's
/// meaning. A cut inside a string, an array or an inline table leaves the
/// part before it unterminated, which does not parse. Otherwise `None`:
/// the file is read whole (errors are always reported by that reading).
fn read_in_parts(text: &str) -> Option<PolicyFile> {
    if text.starts_with('\u{feff}') {
        return None;
    }
    // Schema issues: every rule's, then every checker's (zod's order).
    let (mut rule_issues, mut checker_issues) = (Vec::new(), Vec::new());
    let (mut rules, mut checkers) = (0usize, 0usize);
    let mut specs = Vec::new();
    let mut start = 0;
    for (k, end) in table_cuts(text)
        .chain(std::iter::once(text.len()))
        .enumerate()
    {
        let part = &text[start..end];
        let doc = toml_edit::Document::parse(part).ok()?;
        if beyond_toml_05(&doc, part).is_some() {
            return None;
        }
        let root = doc.as_table();
        if k == 0 {
            if root.contains_key("rule") || root.contains_key("safety_checker") {
                return None;
            }
        } else {
            let mut keys = root.iter();
            let (Some((key, Item::ArrayOfTables(a))), None) = (keys.next(), keys.next()) else {
                return None;
            };
            let (Some(t), 1) = (a.get(0), a.len()) else {
                return None;
            };
            let t = RuleTable::Table(t);
            let mut c = Checker { issues: Vec::new() };
            match key {
                "rule" => {
                    check_rule(&mut c, &t, &format!("rule.{rules}"));
                    if rule_issues.is_empty() && c.issues.is_empty() {
                        let mut s = spec(rules, &t);
                        s.shift(start);
                        specs.push(s);
                    }
                    rules += 1;
                    rule_issues.extend(shifted(c.issues, start));
                }
                "safety_checker" => {
                    check_checker(&mut c, &t, &format!("safety_checker.{checkers}"));
                    checkers += 1;
                    checker_issues.extend(shifted(c.issues, start));
                }
                _ => return None,
            }
        }
        start = end;
    }
    let out = PolicyFile {
        checkers,
        ..PolicyFile::default()
    };
    rule_issues.extend(checker_issues);
    Some(finish(out, rule_issues, rules, specs))
}

/// The start of every line that begins (after blanks) with `[[`.
fn table_cuts(text: &str) -> impl Iterator<Item = usize> + '_ {
    let b = text.as_bytes();
    std::iter::once(0)
        .chain(memchr::memchr_iter(b'\n', b).map(|i| i + 1))
        .filter(move |&at| {
            let rest = &b[at..];
            let blank = rest
                .iter()
                .take_while(|&&c| c == b' ' || c == b'\t')
                .count();
            rest[blank..].starts_with(b"[[")
        })
}

/// A place in a part, as a place in the file (`0..0`, "unknown", kept).
fn shift(r: &mut Range<usize>, by: usize) {
    if *r != (0..0) {
        *r = r.start + by..r.end + by;
    }
}

fn shifted(
    issues: Vec<(String, String, Range<usize>)>,
    by: usize,
) -> impl Iterator<Item = (String, String, Range<usize>)> {
    issues.into_iter().map(move |(p, m, mut r)| {
        shift(&mut r, by);
        (p, m, r)
    })
}

impl RuleSpec {
    /// Its places, read from a part that starts `by` bytes into the file.
    fn shift(&mut self, by: usize) {
        let at = |a: &mut At<String>| shift(&mut a.range, by);
        shift(&mut self.range, by);
        self.tool_names.iter_mut().for_each(at);
        shift(&mut self.tool_range, by);
        self.mcp_name.iter_mut().for_each(at);
        self.args_pattern.iter_mut().for_each(at);
        self.command_prefix.iter_mut().flatten().for_each(at);
        if let Some(r) = &mut self.prefix_range {
            shift(r, by);
        }
        self.command_regex.iter_mut().for_each(at);
        shift(&mut self.decision.range, by);
        shift(&mut self.priority.range, by);
    }
}

/// The file's problems and expanded rules, from its schema issues and
/// rules.
fn finish(
    mut out: PolicyFile,
    issues: Vec<(String, String, Range<usize>)>,
    rule_count: usize,
    specs: Vec<RuleSpec>,
) -> PolicyFile {
    if !issues.is_empty() {
        let details = issues
            .iter()
            .map(|(p, m, _)| format!("  - Field \"{p}\": {m}"))
            .collect::<Vec<_>>()
            .join("\n");
        out.problems.push(Problem {
            kind: ProblemKind::Schema,
            range: issues[0].2.clone(),
            message: format!("Schema validation failed: Invalid policy rule (rule #1):\n{details}"),
            rule: None,
        });
        out.dropped_rules = rule_count;
        out.issues = issues;
        return out;
    }
    for r in &specs {
        if let Some(m) = validate_shell_syntax(r) {
            out.problems.push(Problem {
                kind: ProblemKind::ShellSyntax,
                range: r
                    .prefix_range
                    .clone()
                    .or(r.command_regex.as_ref().map(|x| x.range.clone()))
                    .unwrap_or(r.range.clone()),
                message: format!("Invalid shell command syntax: {m}"),
                rule: Some(r.index),
            });
        }
    }
    for r in &specs {
        if let Some(e) = r.tool_names.iter().find(|t| t.value.is_empty()) {
            out.problems.push(Problem {
                kind: ProblemKind::EmptyToolName,
                range: e.range.clone(),
                message: format!(
                    "Invalid policy rule: toolName cannot be empty string: Rule #{} contains an empty toolName string. Use \"*\" to match all tools.",
                    r.index + 1
                ),
                rule: Some(r.index),
            });
            continue;
        }
        for t in &r.tool_names {
            if t.value.contains("__") {
                out.problems.push(Problem {
                    kind: ProblemKind::McpDoubleUnderscore,
                    range: t.range.clone(),
                    message: format!(
                        "Unrecognized tool name: Rule #{}: The \"__\" syntax for MCP tools is strictly deprecated. Please use the 'mcpName = \"...\"' property or the 'mcp_server_tool' format instead.",
                        r.index + 1
                    ),
                    rule: Some(r.index),
                });
            } else if !super::is_valid_tool_name(&t.value)
                && let Some(s) = super::suggestion(&t.value)
            {
                out.problems.push(Problem {
                    kind: ProblemKind::ToolName,
                    range: t.range.clone(),
                    message: format!(
                        "Unrecognized tool name: Rule #{}: Unrecognized tool name \"{}\". Did you mean \"{s}\"?",
                        r.index + 1,
                        t.value
                    ),
                    rule: Some(r.index),
                });
            }
        }
    }
    for r in &specs {
        for (pattern, prefix) in args_patterns(r) {
            for t in &r.tool_names {
                let tool_name = match &r.mcp_name {
                    Some(m) if !m.value.is_empty() => super::format_mcp(&m.value, Some(&t.value)),
                    _ => t.value.clone(),
                };
                let mut e = Expanded {
                    rule: r.index,
                    tool_name,
                    pattern: None,
                    untranslated: None,
                    prefix: prefix.clone(),
                };
                if let Some(src) = &pattern {
                    let where_ = r
                        .args_pattern
                        .as_ref()
                        .or(r.command_regex.as_ref())
                        .map(|a| a.range.clone())
                        .or(r.prefix_range.clone())
                        .unwrap_or(r.range.clone());
                    let compiled = match &prefix {
                        Some(pre) => Ok(JsRegex::command_prefix(pre)),
                        None => JsRegex::new(src),
                    };
                    match compiled {
                        Err(Refused::Invalid(m)) => {
                            out.problems.push(Problem {
                                kind: ProblemKind::RegexInvalid,
                                range: where_,
                                message: format!(
                                    "Invalid regex pattern: Pattern: {src}\nError: Invalid regular expression: /{src}/: {m}"
                                ),
                                rule: Some(r.index),
                            });
                            continue;
                        }
                        _ if !jsregex::is_safe(src) => {
                            out.problems.push(Problem {
                                kind: ProblemKind::RegexUnsafe,
                                range: where_,
                                message: format!(
                                    "Unsafe regex pattern (potential ReDoS): Pattern: {src}"
                                ),
                                rule: Some(r.index),
                            });
                            continue;
                        }
                        Err(Refused::Unsupported(m)) => {
                            out.problems.push(Problem {
                                kind: ProblemKind::RegexUnsupported,
                                range: where_,
                                message: m,
                                rule: Some(r.index),
                            });
                            e.untranslated = Some(src.clone());
                        }
                        Ok(re) => e.pattern = Some(re),
                    }
                }
                out.expanded.push(e);
            }
        }
    }
    out.rules = specs;
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_schema_error_drops_the_file() {
        let f = read(
            "[[rule]]\ntoolName = \"a\"\ndecision = \"allow\"\npriority = 1\n[[rule]]\ntoolName = \"b\"\ndecision = \"deny\"\npriority = 1000\n",
        );
        assert!(f.dropped().is_some());
        assert!(f.rules.is_empty());
        assert_eq!(f.issues[0].0, "rule.1.priority");
    }

    /// Both readings of `text`, which must agree (`None`: not cut).
    fn both(text: &str) -> Option<String> {
        let whole = format!("{:?}", read_whole(text));
        let parts = read_in_parts(text).map(|f| format!("{f:?}"));
        if let Some(p) = &parts {
            assert_eq!(p, &whole, "{text}");
        }
        parts
    }

    #[test]
    fn reading_in_parts_is_the_whole_reading() {
        let rule = |tool: &str, d: &str, p: i64| {
            format!("[[rule]]\ntoolName = \"{tool}\"\ndecision = \"{d}\"\npriority = {p}\n")
        };
        let two = rule("a", "allow", 1) + &rule("run_shell_command", "deny", 2);
        let checker = "[[safety_checker]]\ntoolName = \"a\"\npriority = 1\n[safety_checker.checker]\ntype = \"in-process\"\nname = \"allowed-path\"\n";
        // Cut, and equal.
        for text in [
            two.clone(),
            format!("# head\nx = 1\n[meta]\ny = 2\n{two}"),
            two.replace('\n', "\r\n"),
            two.replace("[[rule]]", "  [[ rule ]] # c"),
            format!("{two}[rule.toolAnnotations]\nreadOnlyHint = true\n"),
            format!("{two}{checker}{}", rule("b", "ask_user", 3)),
            // Schema issues in later parts: every part's, rules then checkers.
            format!(
                "{two}[[safety_checker]]\nx = 1\n{}[[rule]]\ntoolName = 3\n",
                rule("c", "maybe", 1)
            ),
            rule("run_shell_command", "allow", 5).replace(
                "decision",
                "commandPrefix = [\"git\", \"npm test\"]\ndecision",
            ),
            String::new(),
            "x = 1\n".into(),
        ] {
            assert!(both(&text).is_some(), "not cut: {text}");
        }
        // Read whole (and equal where it is cut after all).
        for text in [
            format!("\u{feff}{two}"),
            format!("rule = []\n{two}"),
            format!("rule.x = 1\n{two}"),
            format!("{two}[other]\nx = 1\n"),
            format!("{two}[[other]]\nx = 1\n"),
            format!("{two}[[rule.sub]]\nx = 1\n"),
            // A cut inside a multi-line string, an array, an inline table.
            format!("x = \"\"\"\n[[rule]]\ntoolName = \"a\"\n\"\"\"\n{two}"),
            format!("x = '''\n[[rule]]\n'''\n{two}"),
            format!("x = [\n[[1]],\n]\n{two}"),
            format!("{two}x = [\n  [[1], [2]]\n]\n"),
            format!("{two}x = {{ a = [\n[[1]]] }}\n"),
            // Errors: reported by the whole reading.
            format!("{two}[[rule]]\ntoolName = \n"),
            format!("{two}toolName = \"again\"\n"),
            format!("{two}x = \"\\e\"\n"),
            format!("{two}x = [1, \"a\"]\n"),
        ] {
            assert!(both(&text).is_none(), "cut: {text}");
        }
    }

    #[test]
    fn random_files_read_the_same_in_parts() {
        // Seeded compositions of whole lines: headers, keys, strings and
        // arrays spanning lines (with `[[` inside), comments, mistakes.
        const PIECES: &[&str] = &[
            "[[rule]]\n",
            "  [[rule]] # c\n",
            "[[safety_checker]]\n",
            "[rule.toolAnnotations]\n",
            "[[rule.sub]]\n",
            "[meta]\n",
            "[[other]]\n",
            "toolName = \"run_shell_command\"\n",
            "toolName = [\"a\", \"glob\"]\n",
            "toolName = 3\n",
            "commandPrefix = \"git\"\n",
            "commandRegex = \"^ls( |$)\"\n",
            "argsPattern = \"(\"\n",
            "decision = \"allow\"\n",
            "decision = \"deny\"\n",
            "priority = 10\n",
            "priority = 2000\n",
            "x = \"\"\"\n",
            "\"\"\"\n",
            "y = '''\n",
            "'''\n",
            "z = [\n",
            "[[1]],\n",
            "]\n",
            "w = { a = 1 }\n",
            "# [[rule]]\n",
            "\r\n",
            "\n",
            "rule = []\n",
            "decision = \"allow\"\n",
            "e = \"\\e\"\n",
            "m = [1, \"a\"]\n",
        ];
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let mut cut = 0;
        for _ in 0..3000 {
            let len = 1 + next(24);
            let text: String = (0..len).map(|_| PIECES[next(PIECES.len())]).collect();
            cut += usize::from(both(&text).is_some());
        }
        assert!(cut > 100, "only {cut} random files were read in parts");
    }

    #[test]
    fn every_corpus_policy_reads_the_same_in_parts() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/gemini/corpus");
        let mut cut = 0;
        for e in std::fs::read_dir(dir).unwrap() {
            let path = e.unwrap().path();
            if path.extension().is_some_and(|x| x == "toml") {
                let text = std::fs::read_to_string(&path).unwrap();
                cut += usize::from(both(&text).is_some());
            }
        }
        assert!(cut > 20, "only {cut} corpus files were read in parts");
    }

    #[test]
    fn prefixes_expand() {
        let f = read(
            "[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = [\"git\", \"npm test\"]\ndecision = \"allow\"\npriority = 1\n",
        );
        assert_eq!(f.expanded.len(), 2);
        let re = f.expanded[0].pattern.as_ref().unwrap();
        assert!(re.test("{\u{0}\"command\":\"git status\"\u{0}}").unwrap());
        assert!(!re.test("{\u{0}\"command\":\"gitx\"\u{0}}").unwrap());
    }
}
