//! Diagnostics for one pi-permission-system config file.

use super::WHOLE_FILE_DROPPED;
use crate::contract::AnalysisOptions;
use crate::core::diagnostic::{Diagnostic, Fix, Related, TextEdit};
use crate::formats::pi::codes::Code;
use crate::formats::pi::model::read::ConfigFile;
use crate::formats::pi::model::validate::{MAX_REASON_CHARS, ViolationKind};
use crate::formats::pi::model::versions::{self, Availability, Version};
use crate::syntax::js_order::{is_array_index, js_entries};
use crate::syntax::strip::CommentKind;
use crate::syntax::{Member, Node, SyntaxErrorKind, Value};

impl From<ConfigAnalysis> for crate::contract::Analysis {
    fn from(a: ConfigAnalysis) -> Self {
        crate::contract::Analysis {
            accepted: a.file.accepted(),
            root: a.file.parsed.root,
            diagnostics: a.diagnostics,
            outline: Vec::new(),
        }
    }
}

/// Everything known about one config text.
#[derive(Debug, Clone)]
pub struct ConfigAnalysis {
    pub file: ConfigFile,
    pub diagnostics: Vec<Diagnostic>,
}

pub fn analyze_config_text(text: &str, options: &AnalysisOptions) -> ConfigAnalysis {
    analyze_config_in_scopes(text, options, None)
}

/// [`analyze_config_text`] for a file that is one of several scope files:
/// the precedence findings come from the merged rule list.
pub fn analyze_config_in_scopes(
    text: &str,
    options: &AnalysisOptions,
    scopes: Option<&super::rule_order::ScopeRules>,
) -> ConfigAnalysis {
    analyze_read_config(
        crate::formats::pi::model::read::read_config_as(
            text,
            options.profile,
            options.installed.as_ref(),
        ),
        text,
        options,
        scopes,
    )
}

/// [`analyze_config_in_scopes`] for a text already read (the scope merge
/// and the analysis share one parse).
pub fn analyze_read_config(
    file: ConfigFile,
    text: &str,
    options: &AnalysisOptions,
    scopes: Option<&super::rule_order::ScopeRules>,
) -> ConfigAnalysis {
    analyze_read_config_with(file, text, options, scopes, true)
}

/// [`analyze_read_config`]; without `tree`, the JSON tree is dropped as
/// soon as the lints that read it are done (before the precedence
/// analysis, whose findings are most of a large file's memory) and the
/// analysis has none: for a caller that reads only the findings.
pub fn analyze_read_config_with(
    mut file: ConfigFile,
    text: &str,
    options: &AnalysisOptions,
    scopes: Option<&super::rule_order::ScopeRules>,
    tree: bool,
) -> ConfigAnalysis {
    let mut out = Vec::new();
    syntax_diagnostics(&file, text, &mut out);
    if let Some(root) = &file.parsed.root {
        structure_diagnostics(root, &mut out);
    }
    validation_diagnostics(&file, text, file.version, &mut out);
    assumed_version(&file, &mut out);
    deprecated_knobs(&file, &mut out);
    directional_before_27_1(&file, &mut out);
    if let Some(cfg) = file.config() {
        super::rule_lints::rule_lints(&cfg, scopes.map(|s| s.permissive_bash), &mut out);
        // (Top-level knobs: their places are no rule's, so the order of the
        // lints does not change the sorted findings.)
        if let Some(root) = &file.parsed.root {
            super::pattern_lints::knob_lints(&cfg, root, &mut out);
        }
        if !tree {
            file.parsed.root = None;
        }
        super::rule_lints::rule_order_lints(&cfg, text, &options.home, scopes, &mut out);
        super::pattern_lints::pattern_lints(&cfg, &options.home, &mut out);
        // From 30.1 a tool stays visible while any of its rules does not
        // deny (documented, not verified): the catch-all no longer hides it.
        if file.version >= Version(30, 1, 0) {
            out.retain(|d| d.code != Code::ToolHidden);
        }
        // From 33.0 the last rule matching any of an MCP call's targets
        // decides (documented, not verified): a later `server` or
        // `server:tool` pattern is no longer shadowed by the catch-all.
        if file.version >= Version(33, 0, 0) {
            out.retain(|d| d.code != Code::McpCatchAllShadows);
        }
    }
    for (range, message) in crate::core::suppress::apply_suppressions(
        text,
        &file.stripped.comments,
        &mut out,
        &crate::formats::code_by_name,
    ) {
        out.push(Diagnostic::new(Code::IgnoreCommentCode, range, message));
    }
    let mut diagnostics = options.levels.apply(out);
    diagnostics.dedup_by(|a, b| a.code == b.code && a.range == b.range && a.message == b.message);
    ConfigAnalysis { file, diagnostics }
}

/// Like [`analyze_config_text`] for raw bytes: invalid UTF-8 is decoded the
/// way the runtime's `readFileSync(path, "utf8")` does (each bad sequence
/// becomes U+FFFD) and reported.
pub fn analyze_config_bytes(bytes: &[u8], options: &AnalysisOptions) -> (String, ConfigAnalysis) {
    let (text, invalid) = crate::contract::decode(bytes.to_vec());
    analyze_config_decoded(text, invalid, options)
}

/// [`analyze_config_bytes`] of bytes already decoded
/// ([`crate::contract::decode`]).
pub fn analyze_config_decoded(
    text: String,
    invalid: Option<usize>,
    options: &AnalysisOptions,
) -> (String, ConfigAnalysis) {
    match invalid {
        None => {
            let analysis = analyze_config_text(&text, options);
            (text, analysis)
        }
        Some(at) => {
            let mut analysis = analyze_config_text(&text, options);
            if let Some(severity) = options.levels.severity(Code::InvalidUtf8) {
                let mut d = Diagnostic::new(
                    Code::InvalidUtf8,
                    at..at + '\u{fffd}'.len_utf8(),
                    "this file is not valid UTF-8: the runtime reads each invalid byte sequence as U+FFFD".into(),
                );
                d.severity = severity;
                analysis.diagnostics.insert(0, d);
            }
            (text, analysis)
        }
    }
}

fn syntax_diagnostics(file: &ConfigFile, text: &str, out: &mut Vec<Diagnostic>) {
    for c in &file.stripped.comments {
        if c.kind == CommentKind::UnterminatedBlock {
            let dropped = &text[c.range.clone()];
            let lines = dropped.lines().count();
            out.push(Diagnostic::new(
                Code::UnterminatedComment,
                c.range.start..(c.range.start + 2).min(text.len()),
                format!(
                    "unterminated block comment: the runtime silently drops everything from here to the end of the file ({lines} line{})",
                    if lines == 1 { "" } else { "s" }
                ),
            ));
        }
    }
    for (i, e) in file.parsed.errors.iter().enumerate() {
        let code = match e.kind {
            SyntaxErrorKind::TrailingComma => Code::TrailingComma,
            SyntaxErrorKind::ByteOrderMark => Code::ByteOrderMark,
            SyntaxErrorKind::EmptyInput => Code::EmptyFile,
            _ => Code::InvalidJson,
        };
        let mut d = Diagnostic::new(
            code,
            e.range.clone(),
            format!("{}: {WHOLE_FILE_DROPPED}", e.message),
        );
        match e.kind {
            SyntaxErrorKind::TrailingComma if text.get(e.range.clone()) == Some(",") => {
                d.add_fix(Fix::Edit {
                    title: "Remove the trailing comma".into(),
                    edits: vec![TextEdit::replace(e.range.clone(), "")],
                })
            }
            SyntaxErrorKind::ByteOrderMark => d.add_fix(Fix::Edit {
                title: "Remove the byte order mark".into(),
                edits: vec![TextEdit::replace(0..3, "")],
            }),
            _ => {}
        }
        if i == 0 {
            d.runtime_issue = e
                .runtime_message
                .as_ref()
                .map(|m| format!("Failed to read config at '<path>': {m}"));
        }
        out.push(d);
    }
}

/// Duplicate keys, integer-like keys and `__proto__` wherever they change
/// what the runtime sees.
fn structure_diagnostics(root: &Node, out: &mut Vec<Diagnostic>) {
    walk_objects(root, 0, &mut |members, depth| {
        duplicate_keys(members, out);
        // Order matters for surfaces (depth 1 under `permission`) and pattern maps.
        if depth >= 1 {
            index_keys(members, out);
            for m in members.iter().filter(|m| m.key == "__proto__") {
                out.push(Diagnostic::new(
                    Code::ProtoKey,
                    m.key_range.clone(),
                    "the runtime silently drops the key `__proto__`: this rule never exists".into(),
                ));
            }
        }
    });
}

/// Visits objects inside `permission` (depth 1 = the permission object) and
/// every object elsewhere at depth 0 for duplicate checks.
fn walk_objects(node: &Node, depth: usize, f: &mut dyn FnMut(&[Member], usize)) {
    match &node.value {
        Value::Object(members) => {
            f(members, depth);
            for m in members {
                let child_depth = if depth == 0 {
                    usize::from(m.key == "permission")
                } else {
                    depth + 1
                };
                walk_objects(&m.value, child_depth, f);
            }
        }
        Value::Array(items) => {
            for i in items {
                walk_objects(i, 0, f);
            }
        }
        _ => {}
    }
}

fn duplicate_keys(members: &[Member], out: &mut Vec<Diagnostic>) {
    if members.len() < 2 {
        return;
    }
    if !has_repeated_key(members) {
        return;
    }
    let entries = js_entries(members);
    let first: rustc_hash::FxHashMap<&str, usize> = entries
        .iter()
        .map(|e| (e.first.key.as_str(), e.source_index))
        .collect();
    let first_of = |key: &str| first.get(key).copied();
    for (i, m) in members.iter().enumerate() {
        match first_of(&m.key) {
            Some(j) if j == i => {}
            None => {}
            Some(j) => {
                let f = &members[j];
                let last = members.iter().rev().find(|x| x.key == m.key).unwrap_or(m);
                let mut d = Diagnostic::new(
                    Code::DuplicateKey,
                    m.key_range.clone(),
                    format!(
                        "duplicate key \"{}\": the runtime keeps the last value{} at the position of the first occurrence",
                        m.key,
                        short_value(&last.value)
                    ),
                );
                d.add_fix(Fix::RemoveDuplicate);
                d.add_related(Related {
                    range: f.key_range.clone(),
                    message: "first occurrence: its position is the one the runtime uses".into(),
                });
                out.push(d);
            }
        }
    }
}

fn has_repeated_key(members: &[Member]) -> bool {
    if members.len() <= 12 {
        return members
            .iter()
            .enumerate()
            .any(|(i, m)| members[..i].iter().any(|o| o.key == m.key));
    }
    let mut seen =
        rustc_hash::FxHashSet::with_capacity_and_hasher(members.len(), Default::default());
    !members.iter().all(|m| seen.insert(m.key.as_str()))
}

fn short_value(n: &Node) -> String {
    match &n.value {
        Value::String(s) if s.chars().count() <= 30 => format!(" (\"{s}\")"),
        _ => String::new(),
    }
}

fn index_keys(members: &[Member], out: &mut Vec<Diagnostic>) {
    let mut seen_plain = false;
    let mut last_index: Option<u64> = None;
    for m in members {
        if is_array_index(&m.key) {
            let n: u64 = m.key.parse().unwrap_or(0);
            let moved = seen_plain || last_index.is_some_and(|l| n < l);
            if moved {
                out.push(Diagnostic::new(
                    Code::IndexKeyOrder,
                    m.key_range.clone(),
                    format!(
                        "the runtime enumerates integer-like keys first, ascending: \"{}\" is evaluated before the keys written above it, so they override it",
                        m.key
                    ),
                ));
            }
            last_index = Some(last_index.map_or(n, |l| l.max(n)));
        } else {
            seen_plain = true;
        }
    }
}

/// From 26.0 the tool-preview caps are accepted and no longer read; the
/// runtime warns at startup (observed on 26.3.1).
fn deprecated_knobs(file: &ConfigFile, out: &mut Vec<Diagnostic>) {
    if file.version < crate::formats::pi::engine::policy::PREVIEW_CAPS_IGNORED_SINCE {
        return;
    }
    let Some(members) = file.parsed.root.as_ref().and_then(|r| r.value.as_object()) else {
        return;
    };
    for m in members {
        if matches!(
            m.key.as_str(),
            "toolInputPreviewMaxLength" | "toolTextSummaryMaxLength"
        ) {
            out.push(Diagnostic::new(
                Code::DeprecatedKnob,
                m.key_range.clone(),
                format!(
                    "`{}` is ignored by pi-permission-system {} (deprecated in 26.0; the prompt is bounded by `promptMaxRows` and `promptFieldMaxWidth`), and the runtime warns about it at startup",
                    m.key, file.version
                ),
            ));
        }
    }
}

/// A directional surface for a version before 27.1: read as a tool of that
/// name, so its rules never apply.
fn directional_before_27_1(file: &ConfigFile, out: &mut Vec<Diagnostic>) {
    use crate::formats::pi::model::versions::DIRECTIONAL_SINCE;
    if file.version >= DIRECTIONAL_SINCE {
        return;
    }
    let Some(permission) = file
        .parsed
        .root
        .as_ref()
        .and_then(|r| r.value.as_object())
        .and_then(|m| m.iter().find(|m| m.key == "permission"))
        .and_then(|m| m.value.value.as_object())
    else {
        return;
    };
    for m in permission {
        if crate::formats::pi::engine::rules::is_directional_surface(&m.key) {
            out.push(Diagnostic::new(
                Code::UnknownSurface,
                m.key_range.clone(),
                format!(
                    "`{}` is a directional path surface only from pi-permission-system {DIRECTIONAL_SINCE}; {} reads it as a tool of that name, so these rules never apply (use `{}` for both directions, or target {DIRECTIONAL_SINCE} or later)",
                    m.key,
                    file.version,
                    if m.key.starts_with("path_") { "path" } else { "external_directory" }
                ),
            ));
        }
    }
}

/// Under `auto`, the version taken for the file when it is not the exact
/// profile's: which one, and why (an info at the key that needs it).
fn assumed_version(file: &ConfigFile, out: &mut Vec<Diagnostic>) {
    use crate::formats::pi::model::versions::{Assumed, DEFAULT_TARGET};
    let Assumed::NeededBy(key) = &file.assumed else {
        return;
    };
    let root = file.parsed.root.as_ref().and_then(|r| r.value.as_object());
    let member = match key.strip_prefix("permission.") {
        Some(surface) => root
            .and_then(|m| m.iter().find(|m| m.key == "permission"))
            .and_then(|m| m.value.value.as_object())
            .and_then(|m| m.iter().find(|m| m.key == surface)),
        None => root.and_then(|m| m.iter().find(|m| m.key == *key)),
    };
    let Some(member) = member else {
        return;
    };
    let range = member.key_range.clone();
    let why = if key.starts_with("permission.") {
        "is a directional path surface from 27.1 on (earlier versions read it as a tool of that name, whose rules never apply)".to_string()
    } else {
        format!("needs it (pi-permission-system {DEFAULT_TARGET} rejects the whole file)")
    };
    out.push(Diagnostic::new(
        Code::AssumedVersion,
        range,
        format!(
            "read as pi-permission-system {} (`auto`): `{key}` {why}, and it is the lowest version that accepts every key of this file; how its answers are known: {} — pin a version with --target-version or permissionLsp.targetVersion",
            file.version,
            crate::formats::pi::basis(file.version)
        ),
    ));
}

fn validation_diagnostics(
    file: &ConfigFile,
    text: &str,
    target: Version,
    out: &mut Vec<Diagnostic>,
) {
    let rejected_by_syntax = !file.parsed.errors.is_empty();
    for issue in &file.validation {
        for v in &issue.violations {
            let (code, what, fix) = describe(&v.kind, target);
            let message = if rejected_by_syntax {
                format!("{what}: the runtime would also reject this file for it")
            } else {
                format!("{what}: {WHOLE_FILE_DROPPED}")
            };
            let mut d = Diagnostic::new(code, v.range.clone(), message);
            d.runtime_issue = Some(issue.message.clone());
            if let Some(fix) = fix.and_then(|f| f.resolve(text, &v.range)) {
                d.add_fix(fix);
            }
            out.push(d);
        }
    }
}

/// A fix known when the violation is described, made concrete with the
/// violation's range and text.
enum FixIntent {
    Rename(&'static str),
    State(&'static str),
    ReasonToString,
    PlainState(String),
    UnderStar,
}

impl FixIntent {
    fn resolve(self, text: &str, range: &std::ops::Range<usize>) -> Option<Fix> {
        let span = text.get(range.clone())?;
        let quote = |s: &str| serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into());
        Some(match self {
            FixIntent::Rename(to) => Fix::Edit {
                title: format!("Rename to \"{to}\""),
                edits: vec![TextEdit::replace(range.clone(), quote(to))],
            },
            FixIntent::State(fixed) => {
                serde_json::from_str::<String>(span).ok()?;
                Fix::Edit {
                    title: format!("Change to \"{fixed}\""),
                    edits: vec![TextEdit::replace(range.clone(), quote(fixed))],
                }
            }
            FixIntent::ReasonToString => Fix::Edit {
                title: "Make the reason a string".into(),
                edits: vec![TextEdit::replace(
                    range.clone(),
                    quote(span.trim_matches('"')),
                )],
            },
            FixIntent::PlainState(action) => Fix::ReplaceEnclosingObject {
                title: format!("Write \"{action}\" as a plain string"),
                value: quote(&action),
            },
            FixIntent::UnderStar => Fix::Edit {
                title: "Move the deny object under the pattern \"*\"".into(),
                edits: vec![
                    TextEdit::replace(range.start..range.start, "{ \"*\": "),
                    TextEdit::replace(range.end..range.end, " }"),
                ],
            },
        })
    }
}

fn describe(kind: &ViolationKind, target: Version) -> (Code, String, Option<FixIntent>) {
    let none = |(c, m): (Code, String)| (c, m, None);
    match kind {
        ViolationKind::UnknownKey { key, known } => match known.map(|k| k.availability) {
            Some(Availability::Since(v)) => none((
                Code::ForeignKey,
                format!("`{key}` needs pi-permission-system ≥ {v} (the target is {target})"),
            )),
            Some(Availability::Fork(who)) => none((
                Code::ForeignKey,
                format!("`{key}` is read only by {who}, not by pi-permission-system {target}"),
            )),
            None => {
                let suggestion = did_you_mean(key, versions::accepted_keys(target).map(|k| k.key));
                let hint = suggestion
                    .map(|s| format!(" (did you mean `{s}`?)"))
                    .unwrap_or_default();
                (
                    Code::UnknownKey,
                    format!("unknown top-level key `{key}`{hint}"),
                    suggestion.map(FixIntent::Rename),
                )
            }
        },
        ViolationKind::ExtraKey { key, in_deny_object } => {
            if *in_deny_object {
                none((
                    Code::DenyObjectExtraKey,
                    format!("a deny object takes only `action` and `reason`, not `{key}`"),
                ))
            } else {
                none((Code::UnknownKey, format!("unknown key `{key}`")))
            }
        }
        ViolationKind::InvalidState { found } => {
            let fixed = ["allow", "deny", "ask"]
                .into_iter()
                .find(|s| s.eq_ignore_ascii_case(found.trim()));
            let hint = fixed
                .map(|s| format!(" (did you mean \"{s}\"? states are case-sensitive)"))
                .unwrap_or_default();
            (
                Code::InvalidState,
                format!("\"{found}\" is not a permission state; use \"allow\", \"deny\" or \"ask\"{hint}"),
                fixed.map(FixIntent::State),
            )
        }
        ViolationKind::InvalidRuleValue { found, pattern_level } => none((
            Code::InvalidRuleValue,
            if *pattern_level {
                format!("a pattern's value must be \"allow\", \"deny\", \"ask\" or {{ \"action\": \"deny\", \"reason\": … }}, not {found}")
            } else {
                format!("a surface's value must be \"allow\", \"deny\", \"ask\" or a map of patterns, not {found}")
            },
        )),
        ViolationKind::ReasonNotString { found } => (
            Code::ReasonNotString,
            format!("`reason` must be a string, not {found} (the docs say it is ignored; the runtime rejects the file)"),
            Some(FixIntent::ReasonToString),
        ),
        ViolationKind::ReasonTooLong { chars } => none((
            Code::ReasonTooLong,
            format!("this reason has {chars} characters; at most {MAX_REASON_CHARS} are allowed"),
        )),
        ViolationKind::ObjectFormForState { action } => (
            Code::ObjectFormForState,
            format!("only deny has an object form; write \"{action}\" as a plain string"),
            Some(FixIntent::PlainState(action.to_string())),
        ),
        ViolationKind::DenyObjectAction { found } => none((
            Code::DenyObjectAction,
            match found {
                None => "a deny object needs `\"action\": \"deny\"`".to_string(),
                Some(f) => format!("a deny object's `action` must be \"deny\", not {f}"),
            },
        )),
        ViolationKind::SurfaceLevelDenyObject => (
            Code::SurfaceDenyObject,
            "a deny object is only valid as a pattern's value; put it under a pattern, e.g. { \"*\": { \"action\": \"deny\", \"reason\": … } }".to_string(),
            Some(FixIntent::UnderStar),
        ),
        ViolationKind::EmptyKey { what } => none((Code::EmptyKey, format!("an empty {what} key is not allowed"))),
        ViolationKind::BadValue { expected, .. } => none((Code::InvalidValue, format!("expected {expected} here"))),
        ViolationKind::MissingMember { member } => none((
            Code::InvalidValue,
            format!("a shell tool needs `{member}` (the name of the input field holding the command)"),
        )),
        ViolationKind::UnknownDirectionalSurface { key } => {
            let suggestion = did_you_mean(
                key,
                [
                    "path_read",
                    "path_write",
                    "external_directory_read",
                    "external_directory_write",
                ]
                .into_iter(),
            );
            let hint = suggestion
                .map(|s| format!(" (did you mean `{s}`?)"))
                .unwrap_or_default();
            (
                Code::UnknownDirectionalSurface,
                format!(
                    "`{key}` is not a directional surface{hint}: from 27.1 a `path_` or `external_directory_` key must be `_read` or `_write` (documented, not verified)"
                ),
                suggestion.map(FixIntent::Rename),
            )
        }
    }
}

/// The closest candidate within a small edit distance.
pub fn did_you_mean<'a>(word: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let w = word.to_lowercase();
    candidates
        .map(|c| (crate::text::edit_distance(&w, &c.to_lowercase()), c))
        .filter(|(d, c)| *d <= (c.len() / 3).max(1))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}
