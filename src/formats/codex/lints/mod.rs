//! The findings of a Codex file, over the session it is part of: a rules
//! file that does not load (and what it takes down with it), rules that
//! never decide, patterns that miss what models send, an untrusted
//! project's files, and `config.toml` values Codex refuses or ignores.

use super::codes::Code;
use super::engine::decide::{Engine, Input, Outcome};
use super::engine::policy::Policy;
use super::model::config::ConfigFile;
use super::model::rules::{Decision, ErrorKind, PrefixRule, RulesFile, literal_range};
use crate::core::diagnostic::{Diagnostic, Fix, Related, TextEdit};
use std::collections::HashMap;
use std::ops::Range;

/// A decision Codex does not know, and the one it was meant to be.
pub fn meant_decision(raw: &str) -> Option<&'static str> {
    let lower = raw.trim().to_ascii_lowercase();
    match lower.as_str() {
        "allow" | "allowed" | "approve" | "ok" | "yes" => Some("allow"),
        "prompt" | "ask" | "confirm" | "auto_review" | "review" | "approval" => Some("prompt"),
        "forbidden" | "forbid" | "deny" | "denied" | "block" | "reject" | "never" => {
            Some("forbidden")
        }
        _ => super::model::closest(&lower, &["allow", "prompt", "forbidden"]),
    }
}

/// Findings of a `.rules` document that is file `doc` of the session.
pub fn rules_findings(
    policy: &Policy,
    doc: Option<usize>,
    read: bool,
    text: &str,
    file: &RulesFile,
    out: &mut Vec<Diagnostic>,
) {
    if let Some(e) = &file.error {
        let mut d = Diagnostic::new(
            Code::RulesFileNotLoaded,
            e.range.clone(),
            match &e.kind {
                ErrorKind::Bounds => format!(
                    "{}; permission-lsp cannot tell whether Codex loads this file (Codex sets no bound), so every rule of the session is uncertain",
                    e.message
                ),
                ErrorKind::ExamplesDidNotMatch(ex) => format!(
                    "Codex cannot load this file: the `match` example{} {} of this `prefix_rule` match{} none of its rules — Codex drops every custom rule of the session (\"Error parsing rules; custom rules not applied.\")",
                    if ex.len() == 1 { "" } else { "s" },
                    ex.iter()
                        .map(|e| format!("`{e}`"))
                        .collect::<Vec<_>>()
                        .join(", "),
                    if ex.len() == 1 { "es" } else { "" }
                ),
                ErrorKind::ExampleDidMatch(ex, prefix) => format!(
                    "Codex cannot load this file: the `not_match` example `{ex}` matches this `prefix_rule` (on `{}`) — Codex drops every custom rule of the session (\"Error parsing rules; custom rules not applied.\")",
                    prefix.join(" ")
                ),
                _ => format!(
                    "Codex cannot load this file: {} — Codex drops every custom rule of the session, this file's and every other's (\"Error parsing rules; custom rules not applied.\")",
                    e.message
                ),
            },
        );
        d.runtime_issue = Some(format!(
            "Error parsing rules; custom rules not applied. ({})",
            e.message
        ));
        if let ErrorKind::InvalidDecision(raw) = &e.kind
            && let Some(to) = meant_decision(raw)
            && text
                .get(e.range.clone())
                .is_some_and(|t| t.contains(raw.as_str()))
        {
            let lit = &text[e.range.clone()];
            let q = if lit.starts_with('\'') { '\'' } else { '"' };
            d = d.with_fix(Fix::Edit {
                title: format!("Use `{to}`"),
                edits: vec![TextEdit::replace(e.range.clone(), format!("{q}{to}{q}"))],
            });
        }
        let failing: Option<Vec<String>> = match &e.kind {
            ErrorKind::ExamplesDidNotMatch(v) => Some(v.clone()),
            ErrorKind::ExampleDidMatch(ex, _) => Some(vec![ex.clone()]),
            _ => None,
        };
        if let Some(exs) = failing {
            let mut edits = Vec::new();
            for ex in &exs {
                if let Some(r) = example_literal(text, &e.range, ex) {
                    edits.push(TextEdit::replace(r, String::new()));
                }
            }
            if edits.len() == exs.len() && !edits.is_empty() {
                d = d.with_fix(Fix::Edit {
                    title: format!(
                        "Remove the failing example{} (the rules stay as written)",
                        if exs.len() == 1 { "" } else { "s" }
                    ),
                    edits,
                });
            }
        }
        out.push(d);
        return;
    }
    if let Some((f, e)) = policy.drop_error()
        && Some(policy.dropped_by.unwrap_or(usize::MAX)) != doc
    {
        let start = file.calls.first().map(|c| c.start).unwrap_or(0);
        let end = text[start..]
            .find('\n')
            .map(|n| start + n)
            .unwrap_or(text.len());
        out.push(Diagnostic::new(
            Code::RulesDropped,
            start..end.max(start),
            format!(
                "none of this file's rules apply: {} does not load ({}), and Codex then drops every custom rule",
                crate::contract::tilde(&f.path, &policy.env.home),
                e.message
            ),
        ));
        return;
    }
    rule_findings(policy, doc, read, text, file, out);
}

/// The range of the string literal `ex` (an example) inside the call at
/// `call`, with one neighbouring comma and spaces.
fn example_literal(text: &str, call: &Range<usize>, ex: &str) -> Option<Range<usize>> {
    let lit = literal_range(text, call, ex)?;
    let (start, end) = (lit.start, lit.end);
    let trimmed = text[end..].trim_start_matches([' ', '\t']);
    if let Some(after) = trimmed.strip_prefix(',') {
        return Some(start..text.len() - after.trim_start_matches([' ', '\t']).len());
    }
    // The last item: take the comma before it.
    let before = text[..start].trim_end_matches([' ', '\t']);
    if let Some(b) = before.strip_suffix(',') {
        return Some(b.len()..end);
    }
    Some(start..end)
}

fn rule_findings(
    policy: &Policy,
    doc: Option<usize>,
    read: bool,
    text: &str,
    file: &RulesFile,
    out: &mut Vec<Diagnostic>,
) {
    // The session's rules: this document's in place of the file's.
    let mut all: Vec<(&PrefixRule, Option<usize>)> = Vec::new();
    let mut own_start = 0;
    let mut inserted = false;
    for l in &policy.rules {
        if Some(l.file) == doc {
            if !inserted {
                own_start = all.len();
                all.extend(file.rules.iter().map(|r| (r, doc)));
                inserted = true;
            }
            continue;
        }
        all.push((&l.rule, Some(l.file)));
    }
    if !inserted {
        own_start = all.len();
        all.extend(file.rules.iter().map(|r| (r, doc)));
    }
    let own = own_start..own_start + file.rules.len();
    let refs: Vec<&PrefixRule> = all.iter().map(|(r, _)| *r).collect();
    let engine = Engine::new(&refs, &policy.hosts, policy.approval);
    let cover_index = CoverIndex::new(&refs);
    let mut reported_calls = std::collections::HashSet::new();
    for i in own.clone() {
        let r = refs[i];
        // One finding per call site (a loop runs a call many times).
        let site = (r.call.start, r.first.clone(), r.rest.clone());
        if !reported_calls.insert(site) {
            continue;
        }
        let range = r.call.clone();
        if let Some((j, stricter)) = covering(&refs, &cover_index, i) {
            let other = refs[j];
            let witness = witness(r);
            let place = place(policy, &all, j, doc);
            let elsewhere = match &place {
                Place::Elsewhere(at) => at.clone(),
                Place::Here(..) => String::new(),
            };
            let mut d = Diagnostic::new(
                if stricter {
                    Code::RuleNeverDecides
                } else {
                    Code::RedundantRule
                },
                range.clone(),
                if stricter {
                    format!(
                        "this `{}` rule never decides: `{}` ({}){elsewhere} matches every command it matches and is stricter, e.g. `{witness}` is {}",
                        r.decision.as_str(),
                        other.display(),
                        other.decision.as_str(),
                        outcome_word(other.decision)
                    )
                } else {
                    format!(
                        "redundant: `{}` ({}){elsewhere} already decides every command this rule matches the same way",
                        other.display(),
                        other.decision.as_str()
                    )
                },
            );
            if let Place::Here(range, message) = place {
                d.add_related(Related {
                    range,
                    message: message.into(),
                });
            }
            out.push(d);
        }
        let shells = ["bash", "zsh", "sh"];
        let base = std::path::Path::new(&r.first)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("");
        let wrapper = shells.contains(&base)
            && r.rest
                .first()
                .is_some_and(|t| t.iter().any(|a| a == "-lc" || a == "-c"));
        for tok in std::iter::once(vec![r.first.clone()]).chain(r.rest.iter().cloned()) {
            if wrapper {
                break;
            }
            if let Some(t) = tok.iter().find(|t| t.trim().contains(char::is_whitespace)) {
                let words: Vec<&str> = t.split_whitespace().collect();
                let at = literal_range(text, &range, t).unwrap_or(range.clone());
                let mut d = Diagnostic::new(
                    Code::TokenWithSpace,
                    at.clone(),
                    format!(
                        "`{t}` is one token: it matches one argv word \"{t}\", never the words {} — write them as separate tokens",
                        words
                            .iter()
                            .map(|w| format!("`{w}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                );
                if tok.len() == 1 {
                    let lit = &text[at.clone()];
                    if lit.len() >= 2 && (lit.starts_with('"') || lit.starts_with('\'')) {
                        let q = &lit[..1];
                        let split = TextEdit::replace(
                            at,
                            words
                                .iter()
                                .map(|w| format!("{q}{w}{q}"))
                                .collect::<Vec<_>>()
                                .join(", "),
                        );
                        let fixed =
                            crate::ide::code_actions::apply(text, std::slice::from_ref(&split));
                        if read
                            && !super::model::rules::read(&fixed, &mut Default::default()).loaded()
                        {
                            // The rule's own `match` examples pass the
                            // words as one argument: meant as one token.
                            continue;
                        }
                        d = d.with_fix(Fix::Edit {
                            title: "Split into separate tokens".into(),
                            edits: vec![split],
                        });
                    }
                }
                out.push(d);
            }
        }
        let shells = ["bash", "zsh", "sh"];
        let base = std::path::Path::new(&r.first)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("");
        if shells.contains(&base)
            && r.rest
                .first()
                .is_some_and(|t| t.iter().any(|a| a == "-lc" || a == "-c"))
        {
            out.push(Diagnostic::new(
                Code::ShellWrapperRule,
                range.clone(),
                format!(
                    "this rule matches only the literal command line `{}…`; Codex runs every command as `/bin/bash -lc '<line>'` and matches the script's own commands, so write the inner command's words as the pattern",
                    r.display()
                ),
            ));
        }
        let spaced = std::iter::once(&r.first)
            .chain(r.rest.iter().flatten())
            .any(|w| w.is_empty() || w.contains(char::is_whitespace) || w.contains(['\'', '"']));
        // (A file Codex does not read: nothing of it applies anyway.)
        if read && r.decision > Decision::Allow && !shells.contains(&base) && !spaced {
            let plain = witness(r);
            let mut through = Vec::new();
            for variant in [
                format!("{plain} > /dev/null"),
                format!("FOO=1 {plain}"),
                format!("bash -c '{plain}'"),
                format!("env {plain}"),
            ] {
                let v = engine.decide(&Input::Line(variant.clone()));
                if matches!(v.outcome, Outcome::Allow { .. }) {
                    through.push(variant);
                }
            }
            if !through.is_empty() {
                out.push(Diagnostic::new(
                    Code::ShellBypass,
                    range.clone(),
                    format!(
                        "Codex does not apply this rule to {} — each runs ({} {})",
                        through
                            .iter()
                            .map(|t| format!("`{t}`"))
                            .collect::<Vec<_>>()
                            .join(", "),
                        "it splits only scripts of plain words and does not unwrap",
                        "nested shells or `env`"
                    ),
                ));
            }
        }
    }
}

fn outcome_word(d: Decision) -> &'static str {
    match d {
        Decision::Allow => "allowed",
        Decision::Prompt => "asked about",
        Decision::Forbidden => "forbidden",
    }
}

/// The shortest command a rule matches.
pub fn witness(r: &PrefixRule) -> String {
    std::iter::once(r.first.as_str())
        .chain(r.rest.iter().map(|t| t[0].as_str()))
        .map(|w| {
            if w.is_empty()
                || w.contains(|c: char| !(c.is_alphanumeric() || "-_./=:@%+,".contains(c)))
            {
                format!("'{}'", w.replace('\'', "'\\''"))
            } else {
                w.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The rules that may cover a rule, found by lookup: rule `b` covers `a`
/// only if `b`'s words at each of its positions include `a`'s first
/// alternative there, so `b` is filed under each path its alternatives
/// spell (up to `SPELLINGS` of them; a rule with more is always a
/// candidate) and `a` looks up the paths of its first alternatives. A
/// pass over every rule per rule was quadratic.
struct CoverIndex {
    by_path: HashMap<String, Vec<usize>>,
    always: Vec<usize>,
    len: usize,
}

const SPELLINGS: usize = 64;

fn path_key(first: &str, words: &[&str]) -> String {
    let mut k = String::from(first);
    for w in words {
        k.push('\0');
        k.push_str(w);
    }
    k
}

impl CoverIndex {
    fn new(rules: &[&PrefixRule]) -> CoverIndex {
        let mut by_path: HashMap<String, Vec<usize>> = HashMap::new();
        let mut always = Vec::new();
        for (j, b) in rules.iter().enumerate() {
            let spellings = b
                .rest
                .iter()
                .try_fold(1usize, |n, alts| n.checked_mul(alts.len().max(1)))
                .filter(|&n| n <= SPELLINGS);
            if spellings.is_none() || b.rest.iter().any(|alts| alts.is_empty()) {
                always.push(j);
                continue;
            }
            let mut paths: Vec<Vec<&str>> = vec![Vec::new()];
            for alts in &b.rest {
                paths = paths
                    .iter()
                    .flat_map(|p| {
                        alts.iter().map(move |w| {
                            let mut q = p.clone();
                            q.push(w.as_str());
                            q
                        })
                    })
                    .collect();
            }
            for p in paths {
                let list = by_path.entry(path_key(&b.first, &p)).or_default();
                if list.last() != Some(&j) {
                    list.push(j);
                }
            }
        }
        CoverIndex {
            by_path,
            always,
            len: rules.len(),
        }
    }

    /// The rules that may cover `a`, in rule order.
    fn candidates(&self, a: &PrefixRule) -> Vec<usize> {
        if a.rest.iter().any(|alts| alts.is_empty()) {
            // Any word covers none: every rule may.
            return (0..self.len).collect();
        }
        let mut out = self.always.clone();
        let mut words: Vec<&str> = Vec::new();
        for t in 0..=a.rest.len() {
            if let Some(list) = self.by_path.get(&path_key(&a.first, &words)) {
                out.extend_from_slice(list);
            }
            match a.rest.get(t).and_then(|alts| alts.first()) {
                Some(w) => words.push(w),
                None => break,
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// A rule of the session that matches every command rule `i` matches and
/// is stricter (`true`), or decides the same and comes earlier (`false`).
fn covering(rules: &[&PrefixRule], index: &CoverIndex, i: usize) -> Option<(usize, bool)> {
    let a = rules[i];
    let covers = |b: &PrefixRule| {
        b.first == a.first
            && b.rest.len() <= a.rest.len()
            && b.rest
                .iter()
                .zip(&a.rest)
                .all(|(bt, at)| at.iter().all(|w| bt.contains(w)))
    };
    let candidates = index.candidates(a);
    let stricter = candidates
        .iter()
        .map(|&j| (j, rules[j]))
        .filter(|(j, b)| *j != i && b.decision > a.decision && covers(b))
        .max_by_key(|(_, b)| b.decision)
        .map(|(j, _)| (j, true));
    stricter.or_else(|| {
        candidates
            .iter()
            .take_while(|&&j| j < i)
            .map(|&j| (j, rules[j]))
            .find(|(_, b)| b.decision == a.decision && covers(b))
            .map(|(j, _)| (j, false))
    })
}

/// Where rule `j` of the session is: a related place in this document, or
/// the other file and line, for the message.
enum Place {
    Here(Range<usize>, String),
    Elsewhere(String),
}

fn place(
    policy: &Policy,
    all: &[(&PrefixRule, Option<usize>)],
    j: usize,
    doc: Option<usize>,
) -> Place {
    let (r, file) = all[j];
    match file {
        Some(f) if Some(f) != doc => {
            let src = &policy.rules_files[f];
            let line = src.text[..r.call.start.min(src.text.len())]
                .matches('\n')
                .count()
                + 1;
            Place::Elsewhere(format!(
                " (in {}:{line})",
                crate::contract::tilde(&src.path, &policy.env.home)
            ))
        }
        _ => Place::Here(
            r.call.clone(),
            format!("`{}` ({})", r.display(), r.decision.as_str()),
        ),
    }
}

/// Findings of a `config.toml` document.
pub fn config_findings(
    policy: &Policy,
    is_project: bool,
    text: &str,
    file: &ConfigFile,
    out: &mut Vec<Diagnostic>,
) {
    let _ = text;
    for r in &file.refusals {
        let mut d = Diagnostic::new(
            Code::ConfigRefused,
            r.range.clone(),
            format!(
                "Codex refuses this configuration and no session starts: {}",
                r.message
            ),
        );
        d.runtime_issue = Some(r.message.clone());
        if let Some((title, value)) = &r.fix {
            d = d.with_fix(Fix::Edit {
                title: title.clone(),
                edits: vec![TextEdit::replace(r.range.clone(), value.clone())],
            });
        }
        out.push(d);
    }
    for k in &file.ignored {
        let mut d = Diagnostic::new(
            Code::IgnoredKey,
            k.range.clone(),
            match k.meant {
                Some(m) => format!(
                    "Codex ignores `{}` (\"Codex is ignoring … unrecognized configuration settings\"): did you mean `{m}`?",
                    k.key
                ),
                None => format!(
                    "Codex ignores `{}` (\"Codex is ignoring … unrecognized configuration settings\")",
                    k.key
                ),
            },
        );
        if let Some(m) = k.meant
            && !m.contains(' ')
            && !file.keys.iter().any(|(key, _)| key == m)
        {
            d = d.with_fix(Fix::Edit {
                title: format!("Rename to `{m}`"),
                edits: vec![TextEdit::replace(k.range.clone(), m)],
            });
        }
        out.push(d);
    }
    if is_project && !policy.project_read {
        let end = text.find('\n').unwrap_or(text.len());
        out.push(Diagnostic::new(
            Code::ProjectNotTrusted,
            0..end,
            untrusted_message(policy),
        ));
    }
}

/// Why an untrusted project's files are not read, and how to trust it.
pub fn untrusted_message(policy: &Policy) -> String {
    format!(
        "Codex does not read this file: the project {} is not trusted ({}), so its .codex/config.toml and .codex/rules/*.rules are disabled — add `[projects.\"{}\"] trust_level = \"trusted\"` to {}",
        crate::contract::tilde(&policy.env.root, &policy.env.home),
        match policy.trust {
            Some(false) => "trust_level = \"untrusted\"",
            _ => "no [projects] entry, and a read-only sandbox",
        },
        policy.env.root.display(),
        crate::contract::tilde(&policy.env.codex_home.join("config.toml"), &policy.env.home)
    )
}
