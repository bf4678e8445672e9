//! The findings on one Qwen Code settings file, each with the call the CLI
//! decides otherwise than the rule seems to say (checked by simulating it).

use super::codes::Code;
use super::engine::decide::{self, Verdict};
use super::engine::matching::{self, Anchors};
use super::engine::policy::{List, Policy, Scope};
use super::model::{self, Kind, Rule};
use crate::core::diagnostic::{Diagnostic, Fix};
use crate::core::pattern_algebra::{Inclusion, Pattern, included_in};
use serde_json::json;
use std::ops::Range;

/// The text of a rule's tool name as written (before `(`), trimmed.
fn tool_part(raw: &str) -> &str {
    let t = model::js_trim(raw);
    model::js_trim(t.split('(').next().unwrap_or(t))
}

fn did_you_mean(name: &str) -> Option<&'static str> {
    let lower = name.to_lowercase();
    model::ALIASES
        .iter()
        .map(|(a, _)| *a)
        .find(|a| a.to_lowercase() == lower)
        .or_else(|| {
            model::ALIASES
                .iter()
                .map(|(a, _)| *a)
                .filter(|a| a.len() > 3)
                .find(|a| {
                    a.to_lowercase().starts_with(&lower) || lower.starts_with(&a.to_lowercase())
                })
        })
}

/// A path a path rule names, for people: anchors dropped, globs filled in.
fn example_path(spec: &str) -> String {
    spec.trim_start_matches(['/', '~'])
        .trim_start_matches('/')
        .replace("**/", "")
        .replace("/**", "/f")
        .replace('*', "f")
}

/// A command a shell rule matches: its specifier with `*` filled in.
pub fn example_command(spec: &str) -> String {
    let s = spec.trim_end_matches(" *").trim_end_matches('*');
    let s = s.replace(" * ", " x ").replace('*', "x");
    if s.trim().is_empty() {
        "echo hi".into()
    } else {
        s.trim().to_string()
    }
}

/// What a rule of the list does to a call, as a verb.
fn verb(list: List) -> &'static str {
    match list {
        List::Allow => "allows",
        List::Ask => "asks for",
        List::Deny => "denies",
    }
}

fn shell(policy: &Policy, command: &str) -> Verdict {
    decide::verdict(policy, "run_shell_command", &json!({ "command": command }))
}

fn anchors(policy: &Policy) -> Anchors {
    Anchors {
        root: policy.root().to_path_buf(),
        cwd: policy.root().to_path_buf(),
        home: policy.env.home.clone(),
    }
}

/// Replaces the tool name inside a rule string (the quotes kept).
fn rename_fix(text: &str, range: &Range<usize>, from: &str, to: &str) -> Option<Fix> {
    let inner = text.get(range.clone())?;
    let at = inner.find(from)?;
    let start = range.start + at;
    Some(Fix::Edit {
        title: format!("Write `{to}`"),
        edits: vec![crate::core::diagnostic::TextEdit::replace(
            start..start + from.len(),
            to,
        )],
    })
}

/// The findings about the file as a whole (`out`), and the rules to judge
/// one by one, in the file's lists' order — none when the file does not
/// read.
fn file_findings<'r>(
    policy: &Policy,
    file: Option<usize>,
    text: &str,
    read: &'r model::SettingsFile,
    out: &mut Vec<Diagnostic>,
) -> Option<Vec<(&'r model::Entry, List)>> {
    let scope = file.map(|i| policy.files[i].scope);
    if let Some((range, msg)) = &read.error {
        let what = match scope {
            Some(Scope::Project) => "Qwen Code silently replaces this project file with {\"$version\": 4} (keeping it as settings.json.corrupted): every rule in it is lost".to_string(),
            Some(s) => format!("Qwen Code stops at start: the {} settings file is not valid JSON", s.name()),
            None => "a broken user file stops Qwen Code; a broken project file is silently reset and its rules are lost".to_string(),
        };
        let end = range
            .end
            .max(range.start + 1)
            .min(text.len().max(range.start));
        out.push(Diagnostic::new(
            Code::SettingsUnreadable,
            range.start..end,
            format!("{msg}: {what}"),
        ));
        return None;
    }
    if let Some(i) = file {
        let f = &policy.files[i];
        if f.scope == Scope::Project && !f.applies && policy.untrusted {
            let end = text.find('\n').unwrap_or(text.len());
            out.push(Diagnostic::new(
                Code::ProjectNotTrusted,
                0..end,
                format!(
                    "folder trust is on and {} is not trusted (~/.qwen/trustedFolders.json): Qwen Code ignores this whole file, its denies included",
                    policy.env.cwd.display()
                ),
            ));
        }
    }
    if let Some(m) = &read.approval_mode
        && model::approval_mode(&m.text).is_none()
    {
        out.push(Diagnostic::new(
                Code::InvalidApprovalMode,
                m.range.clone(),
                format!("Qwen Code stops at start: \"Invalid approval mode: {}\" (plan, default, auto-edit, auto, yolo)", m.text),
            ));
    }
    for (key, range) in &read.v1_keys {
        let to = match key.as_str() {
            "allowedTools" => "tools.allowed",
            "excludeTools" => "tools.exclude",
            "coreTools" => "tools.core",
            "approvalMode" => "tools.approvalMode",
            _ => "security.folderTrust.enabled",
        };
        out.push(Diagnostic::new(
            Code::LegacyKey,
            range.clone(),
            format!(
                "`{key}` is a v1 key: Qwen Code migrates it to `{to}` on load and rewrites the file"
            ),
        ));
    }
    duplicates(policy, file, read, out);
    let lists: [(&[model::Entry], List); 5] = [
        (&read.allow, List::Allow),
        (&read.ask, List::Ask),
        (&read.deny, List::Deny),
        (read.tools_allowed.as_deref().unwrap_or(&[]), List::Allow),
        (&read.tools_exclude, List::Deny),
    ];
    Some(
        lists
            .into_iter()
            .flat_map(|(entries, list)| entries.iter().map(move |e| (e, list)))
            .filter(|(e, _)| !model::js_trim(&e.text).is_empty())
            .collect(),
    )
}

/// What the rules of one run say (each rule's findings at its own place).
struct Judge<'a> {
    policy: &'a Policy,
    denied: Denied,
    anchors: Anchors,
    text: &'a str,
    in_session: bool,
}

impl<'a> Judge<'a> {
    fn new(policy: &'a Policy, text: &'a str, file: Option<usize>) -> Judge<'a> {
        Judge {
            policy,
            denied: Denied::new(),
            anchors: anchors(policy),
            text,
            in_session: file.is_some(),
        }
    }

    fn run(&self, run: &[(&model::Entry, List)]) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        for &(e, list) in run {
            let rule = model::parse_rule(&e.text);
            rule_findings(
                self.policy,
                &self.denied,
                &self.anchors,
                self.text,
                &e.range,
                &rule,
                list,
                self.in_session,
                &mut out,
            );
        }
        out
    }
}

/// The findings on the file at `file` of the session (`None`: the text is
/// not one of the session's files and is judged alone).
pub fn findings(
    policy: &Policy,
    file: Option<usize>,
    text: &str,
    read: &model::SettingsFile,
    out: &mut Vec<Diagnostic>,
) {
    let Some(items) = file_findings(policy, file, text, read, out) else {
        return;
    };
    let judge = Judge::new(policy, text, file);
    // Each rule's findings are its own: large files are checked on every
    // core, in rule order.
    let mut found = crate::core::parallel::map_ordered(&items, |run| judge.run(run));
    // (Moved, not copied, when nothing came before: a copy of a few
    // hundred thousand findings held both at once.)
    if out.is_empty() {
        *out = found;
    } else {
        out.append(&mut found);
    }
}

/// [`findings`] with `levels` applied, handed to `sink` in document order a
/// batch at a time: the rules are judged in the order they are written, a
/// few batches ahead on every core, and their findings — one or more per
/// rule of a long list — are never all held.
pub fn findings_in_order(
    policy: &Policy,
    file: Option<usize>,
    text: &str,
    read: &model::SettingsFile,
    levels: &crate::core::levels::LintLevels,
    sink: &mut dyn FnMut(Vec<Diagnostic>),
) {
    let mut before = Vec::new();
    let Some(mut items) = file_findings(policy, file, text, read, &mut before) else {
        sink(levels.apply(before));
        return;
    };
    // (A rule's findings are at its place: in the order of places.)
    items.sort_by_key(|(e, _)| (e.range.start, e.range.end));
    let judge = Judge::new(policy, text, file);
    let mut order = crate::core::diagnostic::InOrder::new(before, Vec::new(), levels, sink);
    let runs: Vec<&[(&model::Entry, List)]> = items.chunks(RUN).collect();
    let threads = if items.len() >= crate::core::parallel::SEQUENTIAL_BELOW {
        crate::core::parallel::cores()
    } else {
        1
    };
    crate::core::parallel::for_each_ordered(
        &runs,
        threads,
        RUNS_AHEAD,
        |run| judge.run(run),
        |ds| order.batch(ds),
    );
    order.finish();
}

/// Rules judged as one run, and runs judged beyond the last one handed on.
const RUN: usize = 1024;
const RUNS_AHEAD: usize = 4;

#[allow(clippy::too_many_arguments)]
fn rule_findings(
    policy: &Policy,
    denied: &Denied,
    a: &Anchors,
    text: &str,
    range: &Range<usize>,
    rule: &Rule,
    list: List,
    in_session: bool,
    out: &mut Vec<Diagnostic>,
) {
    if rule.invalid {
        out.push(Diagnostic::new(
            Code::MalformedRule,
            range.clone(),
            format!(
                "`{}` has unbalanced parentheses: Qwen Code skips it (\"Ignoring malformed rule\")",
                rule.raw
            ),
        ));
        return;
    }
    let name = tool_part(&rule.raw);
    if !model::known_tool(name) {
        let mut d = Diagnostic::new(
            Code::UnknownTool,
            range.clone(),
            match did_you_mean(name) {
                Some(s) => format!(
                    "Qwen Code has no tool `{name}` (names are case-sensitive): this rule never matches; did you mean `{s}`?"
                ),
                None => format!("Qwen Code has no tool `{name}`: this rule never matches a call"),
            },
        );
        if let Some(s) = did_you_mean(name)
            && let Some(f) = rename_fix(text, range, name, s)
        {
            d = d.with_fix(f);
        }
        out.push(d);
        return;
    }
    let spec = rule.specifier.as_deref();
    match (rule.kind, spec) {
        (Some(Kind::Command), Some(s)) => {
            if s.contains(['"', '\'', '\\']) && !matching::command_matches(s, s) {
                out.push(Diagnostic::new(
                    Code::QuotedRule,
                    range.clone(),
                    format!("Qwen removes the quotes from the command before matching but not from the rule: `{}` never matches, not even the command `{s}`", rule.raw),
                ));
                return;
            }
            if !s.contains('*') {
                let wider = format!("{s} --force");
                out.push(Diagnostic::new(
                    Code::WordPrefix,
                    range.clone(),
                    format!("without `*` this rule is a word prefix in Qwen Code: it also {} `{wider}` (Claude Code reads it as exactly `{s}`)", verb(list)),
                ));
            }
            if list == List::Allow && in_session {
                substitution_bypass(policy, denied, s, range, out);
            }
        }
        (Some(Kind::Path), Some(s)) => {
            let relative =
                !(s.starts_with('/') || s.starts_with("~/") || s.starts_with("**") || s == "*");
            if relative && list != List::Allow {
                let below = matching::join(&a.cwd.join("sub"), s);
                if !matching::path_matches(s, &below, a, true) {
                    out.push(Diagnostic::new(
                        Code::RelativePathRule,
                        range.clone(),
                        format!("`{s}` is anchored to the working directory: `{}` {} `./{s}` but not `sub/{s}` (write `**/{s}` for every folder)", rule.raw, verb(list)),
                    ));
                }
            }
            if list == List::Deny
                && (rule.tool == "edit" || rule.tool == "write_file" || rule.tool == "read_file")
            {
                let example = if rule.tool == "read_file" {
                    format!("cat {}", example_path(s))
                } else {
                    format!("echo x > {}", example_path(s))
                };
                out.push(Diagnostic::new(
                    Code::WriteRuleForShell,
                    range.clone(),
                    format!(
                        "this rule also decides shell commands: `{example}` is checked against it"
                    ),
                ));
            }
        }
        (Some(Kind::Domain), Some(s)) => {
            let d = s.strip_prefix("domain:").unwrap_or(s).trim();
            if !d.is_empty() {
                out.push(Diagnostic::new(
                    Code::Subdomains,
                    range.clone(),
                    format!("this rule also {} `docs.{d}` and `curl https://docs.{d}` (every subdomain; Claude Code matches `{d}` only)", verb(list)),
                ));
            }
        }
        _ => {}
    }
    // A rule of a stronger list matches everything this one matches: the
    // same rule, a whole-tool rule, or (shell rules) a pattern whose
    // commands include this one's.
    if in_session
        && list != List::Deny
        && let Some((s, example)) = stronger_cover(policy, rule, list)
    {
        let example = example.map(|e| format!(", e.g. `{e}`")).unwrap_or_default();
        out.push(
                Diagnostic::new(
                    Code::RuleNeverDecides,
                    range.clone(),
                    format!(
                        "`{}` never decides: `{}` in {} ({} settings) matches every call it matches{example}, and deny > ask > allow",
                        rule.raw,
                        s.rule.raw,
                        s.key,
                        policy.files[s.file].scope.name()
                    ),
                )
                .with_fix(Fix::RemoveArrayItem {
                    title: format!("Remove `{}` (it never decides)", rule.raw),
                }),
            );
    }
}

/// The example commands of the first shell deny rules whose example the
/// session denies, with the rule: computed once per file, when an allow
/// rule needs them.
type Denied = std::sync::OnceLock<Vec<(String, String)>>;

/// How many denied commands a substitution witness is built from.
const WITNESSES: usize = 3;

fn denied_examples(policy: &Policy) -> Vec<(String, String)> {
    policy
        .rules_of(List::Deny)
        .filter(|d| d.rule.kind == Some(Kind::Command))
        .filter_map(|d| {
            let inner = example_command(d.rule.specifier.as_deref()?);
            (shell(policy, &inner) == Verdict::Deny).then(|| (inner, d.rule.raw.clone()))
        })
        .take(WITNESSES)
        .collect()
}

fn substitution_bypass(
    policy: &Policy,
    denied: &Denied,
    allow: &str,
    range: &Range<usize>,
    out: &mut Vec<Diagnostic>,
) {
    let prefix = allow.trim_end_matches(" *").trim_end_matches('*').trim();
    let outer = if prefix.is_empty() { "echo" } else { prefix };
    // The first denied commands are enough to show the bypass; a witness
    // that runs is verified by deciding it with the whole session.
    for (inner, raw) in denied.get_or_init(|| denied_examples(policy)) {
        let witness = format!("{outer} $({inner})");
        if !matching::command_matches(allow, &witness) {
            continue;
        }
        if shell(policy, &witness) == Verdict::Allow {
            out.push(Diagnostic::new(
                Code::SubstitutionBypass,
                range.clone(),
                format!("`{witness}` runs: Qwen matches only the outer command, so `{inner}` (denied by `{raw}`) runs inside `$(…)`"),
            ));
            return;
        }
    }
}

/// A command pattern as the shared glob algebra reads it, when its
/// language is one the algebra has: Qwen's `?` is literal and a ` *`
/// inside the pattern is optional there, so such patterns are left out.
fn command_pattern(spec: &str) -> Option<Pattern> {
    if spec.contains('?') {
        return None;
    }
    if !spec.contains('*') {
        // The command itself, or it followed by a space and anything.
        return Some(Pattern::from_expanded(&format!("{spec} *")));
    }
    let body = spec.strip_suffix(" *").unwrap_or(spec);
    if body.contains(" *") {
        return None;
    }
    Some(Pattern::from_expanded(spec))
}

/// The first rule of a stronger list that matches every call `rule`
/// matches, with a call both match.
fn stronger_cover<'p>(
    policy: &'p Policy,
    rule: &Rule,
    list: List,
) -> Option<(&'p super::engine::policy::Placed, Option<String>)> {
    let stronger: &[List] = match list {
        List::Allow => &[List::Ask, List::Deny],
        _ => &[List::Deny],
    };
    // Only rules that can cover this one are looked at: those without a
    // command pattern, and command rules whose literal start begins this
    // rule's pattern (the same pattern) or its example command (a pattern
    // matching it).
    let pa = match (rule.kind, rule.specifier.as_deref()) {
        (Some(Kind::Command), Some(a)) => command_pattern(a),
        _ => None,
    };
    let example = pa.as_ref().map(Pattern::example);
    let texts: Vec<&str> = rule
        .specifier
        .as_deref()
        .into_iter()
        .chain(example.as_deref())
        .collect();
    let mut candidates: Vec<usize> = stronger
        .iter()
        .flat_map(|&l| {
            policy.starting(
                l,
                &|t| matching::tool_covers(t, &rule.tool),
                texts.iter().copied(),
            )
        })
        .collect();
    candidates.sort_unstable();
    for s in candidates
        .into_iter()
        .map(|i| &policy.rules[i])
        .filter(|r| !r.rule.invalid)
    {
        if !matching::tool_covers(&s.rule.tool, &rule.tool) {
            continue;
        }
        if s.rule.specifier.is_none() && s.rule.params.is_empty() {
            return Some((s, None));
        }
        if s.rule.params != rule.params {
            continue;
        }
        if s.rule.specifier == rule.specifier && s.rule.kind == rule.kind {
            let example = rule.specifier.as_deref().map(|x| match rule.kind {
                Some(Kind::Command) => example_command(x),
                Some(Kind::Path) => example_path(x),
                _ => x.to_string(),
            });
            return Some((s, example));
        }
        if s.rule.tool != rule.tool {
            continue;
        }
        if let (Some(Kind::Command), Some(Kind::Command), Some(a), Some(b)) = (
            rule.kind,
            s.rule.kind,
            rule.specifier.as_deref(),
            s.rule.specifier.as_deref(),
        ) && let (Some(pa), Some(pb)) = (command_pattern(a), command_pattern(b))
            && pb.is_match(&pa.example())
            && included_in(&pa, &pb) == Inclusion::Included
        {
            return Some((s, Some(pa.example())));
        }
    }
    None
}

/// Rules of a list that an earlier rule of the same list already is (the
/// same tool, pattern and parameters): the earlier one in this file, or
/// in a file the session reads before it.
fn duplicates(
    policy: &Policy,
    file: Option<usize>,
    read: &model::SettingsFile,
    out: &mut Vec<Diagnostic>,
) {
    // Two rules are the same when tool, pattern, kind and parameters are
    // (an invalid rule is the same as none): compared by key, not pair by
    // pair.
    type Key<'r> = (
        &'r str,
        Option<&'r str>,
        Option<Kind>,
        &'r [(String, String)],
    );
    fn key(r: &Rule) -> Option<Key<'_>> {
        (!r.invalid).then_some((
            r.tool.as_str(),
            r.specifier.as_deref(),
            r.kind,
            r.params.as_slice(),
        ))
    }
    let lists: [(&[model::Entry], List); 3] = [
        (&read.allow, List::Allow),
        (&read.ask, List::Ask),
        (&read.deny, List::Deny),
    ];
    for (entries, list) in lists {
        // The first rule of each key in the files the session reads before.
        let mut earlier: rustc_hash::FxHashMap<Key<'_>, &super::engine::policy::Placed> =
            Default::default();
        for r in &policy.rules {
            if r.list == list
                && file.is_some_and(|f| r.file < f)
                && policy.files[r.file].applies
                && let Some(k) = key(&r.rule)
            {
                earlier.entry(k).or_insert(r);
            }
        }
        // Each rule's key hashed as it is read (the parsed rules of a long
        // list are not all held: they were most of a 10 MB file's memory);
        // the rules whose hash another shares are compared exactly.
        let mut before: rustc_hash::FxHashMap<usize, &super::engine::policy::Placed> =
            Default::default();
        let mut hashes: Vec<(u64, usize)> = Vec::with_capacity(entries.len());
        for (i, e) in entries.iter().enumerate() {
            if model::js_trim(&e.text).is_empty() {
                continue;
            }
            let rule = model::parse_rule(&e.text);
            let Some(k) = key(&rule) else {
                continue;
            };
            if let Some(b) = earlier.get(&k) {
                before.insert(i, *b);
            }
            hashes.push((
                std::hash::BuildHasher::hash_one(&rustc_hash::FxBuildHasher, k),
                i,
            ));
        }
        hashes.sort_unstable();
        // Repeated in this list: a rule whose key an earlier one has.
        let mut repeated = vec![false; entries.len()];
        for group in hashes.chunk_by(|a, b| a.0 == b.0).filter(|g| g.len() > 1) {
            // (In the list's order: the first of each key is not repeated.)
            let rules: Vec<Rule> = group
                .iter()
                .map(|&(_, i)| model::parse_rule(&entries[i].text))
                .collect();
            let mut seen: rustc_hash::FxHashSet<Key<'_>> = Default::default();
            for (rule, &(_, i)) in rules.iter().zip(group) {
                if key(rule).is_some_and(|k| !seen.insert(k)) {
                    repeated[i] = true;
                }
            }
        }
        for (i, e) in entries.iter().enumerate() {
            let here = repeated[i];
            let before = before.get(&i).copied();
            if here || before.is_some() {
                let rule = model::parse_rule(&e.text);
                let where_ = match before {
                    Some(b) if !here => {
                        format!("the {} settings", policy.files[b.file].scope.name())
                    }
                    _ => "this file".to_string(),
                };
                out.push(
                    Diagnostic::new(
                        Code::DuplicateRule,
                        e.range.clone(),
                        format!(
                            "`{}` is already in this list ({where_}): it changes no decision",
                            rule.raw
                        ),
                    )
                    .with_fix(Fix::RemoveArrayItem {
                        title: format!("Remove the repeated `{}`", rule.raw),
                    }),
                );
            }
        }
    }
}
