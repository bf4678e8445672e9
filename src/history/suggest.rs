//! Rules from approvals: calls the user approved again and again, grouped
//! at word (or path segment) boundaries into the smallest rule that covers
//! them — `npm run test *` for fourteen approved `npm run test …` — never
//! one that matches a call the history denied. Each suggestion says how it
//! was found (counts, examples) and, when the format can place it, the
//! edit that inserts it where it takes effect; the edit is checked by
//! deciding the approved and the denied calls again with it.

use super::{Decision, PastCall};
use crate::core::pattern_algebra::Pattern;
use crate::formats::{CallRequest, Format};
use crate::history::Session;
use crate::workspace::Context;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

/// Distinct values kept per surface (approved and denied each).
const MAX_VALUES: usize = 100_000;

/// What the collector keeps for one surface of one format.
#[derive(Default)]
struct Surface {
    separator: char,
    /// Approved values and how often each was approved.
    approved: HashMap<String, u64>,
    /// A call of each approved value (to decide it again).
    calls: HashMap<String, CallRequest>,
    /// Values the history refused (a deny, or an ask the user refused).
    denied: HashSet<String>,
}

/// Approvals and refusals seen in a replay, by format and surface.
#[derive(Default)]
pub struct Collector {
    surfaces: BTreeMap<(&'static str, String), Surface>,
    formats: HashMap<&'static str, &'static dyn Format>,
}

/// A suggested rule.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Suggestion {
    pub format: &'static str,
    pub surface: String,
    /// The pattern (`npm run test *`).
    pub pattern: String,
    pub action: &'static str,
    /// The rule as written in the config (`"npm run test *": "allow"` under
    /// `permission.bash`).
    pub rule: String,
    /// Approvals the rule covers, and how many distinct calls.
    pub approvals: u64,
    pub distinct: usize,
    /// A few of the approved calls.
    pub examples: Vec<String>,
    /// Refused calls of the surface checked against it (none matches).
    pub denied_checked: usize,
}

impl Collector {
    /// Records one past call.
    pub fn add(&mut self, format: &'static dyn Format, call: &PastCall) {
        let req = CallRequest {
            tool: call.tool.clone(),
            input: call.input.clone(),
        };
        let Some((surface, value, separator)) = format.suggestion_value(&req) else {
            return;
        };
        self.formats.insert(format.id(), format);
        let s = self.surfaces.entry((format.id(), surface)).or_default();
        s.separator = separator;
        let refused = call.recorded == Decision::Deny || call.answer.is_some_and(|a| !a.approved());
        if refused {
            if s.denied.len() < MAX_VALUES {
                s.denied.insert(value);
            }
        } else if call.answer.is_some_and(|a| a.approved())
            && (s.approved.len() < MAX_VALUES || s.approved.contains_key(&value))
        {
            *s.approved.entry(value.clone()).or_default() += 1;
            s.calls.entry(value).or_insert(req);
        }
    }

    /// The suggestions: for each surface, the deepest word-boundary
    /// prefixes covering at least `min` approvals and no refused value.
    pub fn suggestions(&self, min: u64) -> Vec<(Suggestion, Vec<CallRequest>, Vec<String>)> {
        let mut out = Vec::new();
        for ((format_id, surface), s) in &self.surfaces {
            let format = self.formats[format_id];
            // Approvals under every prefix of whole words (or segments).
            let mut under: HashMap<String, (u64, Vec<&str>)> = HashMap::new();
            for (value, n) in &s.approved {
                let parts: Vec<&str> = value.split(s.separator).collect();
                for k in 1..=parts.len() {
                    let prefix = parts[..k].join(&s.separator.to_string());
                    let e = under.entry(prefix).or_default();
                    e.0 += n;
                    e.1.push(value);
                }
            }
            let mut prefixes: Vec<(&String, &(u64, Vec<&str>))> = under.iter().collect();
            // Deepest first: the smallest generalisation wins.
            prefixes.sort_by(|a, b| {
                let depth = |p: &str| p.split(s.separator).count();
                depth(b.0).cmp(&depth(a.0)).then_with(|| a.0.cmp(b.0))
            });
            // First the deepest prefixes shared by several approved calls
            // (`npm run test *`), then single calls approved again and
            // again that no such prefix covers (`make deploy`).
            let mut covered: HashSet<&str> = HashSet::new();
            let mut chosen: Vec<(String, Vec<&str>)> = Vec::new();
            for (prefix, (_, values)) in &prefixes {
                let fresh: Vec<&str> = values
                    .iter()
                    .copied()
                    .filter(|v| !covered.contains(v))
                    .collect();
                let count: u64 = fresh.iter().map(|v| s.approved[*v]).sum();
                if fresh.len() < 2 || count < min {
                    continue;
                }
                let pattern = if s.separator == ' ' {
                    format!("{prefix} *")
                } else {
                    format!("{prefix}{}*", s.separator)
                };
                let glob = Pattern::from_expanded(&pattern);
                if s.denied.iter().any(|d| glob.is_match(d)) {
                    continue;
                }
                covered.extend(fresh.iter().copied());
                chosen.push((pattern, fresh));
            }
            let mut singles: Vec<&str> = s
                .approved
                .iter()
                .filter(|(v, n)| **n >= min && !covered.contains(v.as_str()))
                .map(|(v, _)| v.as_str())
                .filter(|v| !s.denied.contains(*v))
                .collect();
            singles.sort();
            chosen.extend(singles.into_iter().map(|v| (v.to_string(), vec![v])));
            for (pattern, fresh) in chosen {
                let Some(rule) = format.suggested_rule(surface, &pattern, "allow") else {
                    continue;
                };
                let count: u64 = fresh.iter().map(|v| s.approved[*v]).sum();
                let mut examples: Vec<String> = fresh.iter().map(|v| v.to_string()).collect();
                examples.sort_by_key(|v| std::cmp::Reverse(s.approved[v.as_str()]));
                let calls: Vec<CallRequest> = fresh
                    .iter()
                    .filter_map(|v| s.calls.get(*v).cloned())
                    .collect();
                let denied: Vec<String> = s.denied.iter().take(10_000).cloned().collect();
                out.push((
                    Suggestion {
                        format: format_id,
                        surface: surface.clone(),
                        pattern,
                        action: "allow",
                        rule: rule.display,
                        approvals: count,
                        distinct: fresh.len(),
                        examples: examples.into_iter().take(3).collect(),
                        denied_checked: s.denied.len(),
                    },
                    calls,
                    denied,
                ));
            }
        }
        out.sort_by_key(|x| std::cmp::Reverse(x.0.approvals));
        out
    }
}

pub use crate::contract::history::RuleText;

/// The edits inserting `rule` into the config `text`: right after the
/// member or element whose span holds `after` (the rule the new one must
/// override), else after the last one. An object or list on the rule's
/// path that is not there is added with it (`"allow": [ … ]` into
/// `permissions`); an empty text becomes a file holding the rule alone.
/// `None` when the text is not JSON, or a key on the path holds something
/// else than an object.
pub fn insertion_edits(
    text: &str,
    rule: &RuleText,
    after: Option<usize>,
) -> Option<Vec<crate::ide::code_actions::TextEdit>> {
    use crate::syntax::Value;
    if text.trim().is_empty() {
        let member = nest(&rule.path, &rule.item)?;
        let value: serde_json::Value = serde_json::from_str(&format!("{{{member}}}")).ok()?;
        let mut whole = serde_json::to_string_pretty(&value).ok()?;
        whole.push('\n');
        return Some(vec![crate::ide::code_actions::replace(
            0..text.len(),
            whole,
        )]);
    }
    let stripped = crate::syntax::strip::strip_json_comments(text);
    let parsed = crate::syntax::json::parse(&stripped);
    let mut node = parsed.root.as_ref()?;
    for (depth, key) in rule.path.iter().enumerate() {
        let members = node.value.as_object()?;
        // The last of repeated keys is the one the runtimes read.
        match members.iter().rev().find(|m| &m.key == key) {
            Some(m) => node = &m.value,
            None => {
                if !parsed.errors.is_empty() {
                    // Never new structure in text read with recovery.
                    return None;
                }
                // The rest of the path goes in as one member here.
                let parent = RuleText {
                    path: rule.path[..depth].to_vec(),
                    item: nest(&rule.path[depth..], &rule.item)?,
                    display: rule.display.clone(),
                };
                return insertion_edits(text, &parent, None);
            }
        }
    }
    let spans: Vec<std::ops::Range<usize>> = match &node.value {
        Value::Object(members) => members
            .iter()
            .map(|m| m.key_range.start..m.value.range.end)
            .collect(),
        Value::Array(items) => items.iter().map(|i| i.range.clone()).collect(),
        _ => return None,
    };
    let Some(last) = spans.last() else {
        // An empty object or array: the rule becomes its only item.
        let inner = node.range.start + 1..node.range.end.saturating_sub(1);
        if !text.get(inner.clone())?.trim().is_empty() {
            return None;
        }
        return Some(vec![crate::ide::code_actions::replace(
            inner,
            format!(" {} ", rule.item),
        )]);
    };
    let anchor = after
        .and_then(|a| spans.iter().find(|s| s.start <= a && a < s.end))
        .unwrap_or(last);
    Some(crate::ide::code_actions::insert_after_span(
        text,
        anchor.clone(),
        &rule.item,
    ))
}

/// The member `"k1": { "k2": … [item] }` holding `item` under the keys
/// (its innermost container a list when `item` is a value, an object when
/// it is a member); `None` without keys.
fn nest(keys: &[String], item: &str) -> Option<String> {
    let (first, rest) = keys.split_first()?;
    let element = serde_json::from_str::<serde_json::Value>(item).is_ok();
    let mut value = if element {
        format!("[ {item} ]")
    } else {
        format!("{{ {item} }}")
    };
    for key in rest.iter().rev() {
        value = format!("{{ {}: {value} }}", serde_json::to_string(key).ok()?);
    }
    Some(format!("{}: {value}", serde_json::to_string(first).ok()?))
}

/// A suggestion placed in a file and checked.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Placed {
    #[serde(flatten)]
    pub suggestion: Suggestion,
    /// The file it goes in, and the 1-based line it is inserted after.
    pub file: Option<String>,
    pub after_line: Option<usize>,
    /// The 1-based line the rule is inserted into (a file on one line),
    /// when it does not get a line of its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub in_line: Option<usize>,
    /// The file's text with the rule inserted.
    #[serde(skip)]
    pub new_text: Option<String>,
    /// The edits that insert it, in the text read (an open buffer's, else
    /// the file's).
    #[serde(skip)]
    pub edits: Vec<crate::ide::code_actions::TextEdit>,
    /// The keys of the object or list the rule goes in
    /// (`permissions.allow`).
    pub list: String,
    /// Where the rule goes in its list matters (the format's rules are
    /// ordered: the last that matches decides); without order an allow
    /// takes effect wherever it is written, unless a deny or ask matches.
    pub ordered: bool,
    /// The file does not exist yet: applying creates it.
    pub creates: bool,
    /// Approved calls the rule now allows (of those rebuilt).
    pub allowed_now: usize,
    pub checked_calls: usize,
    /// Why the rule would not take effect where it is placed, if so.
    pub note: Option<String>,
}

/// The message of a finding the format makes on the file with the rule
/// (`new_text`) that it does not make on the file without it (`old_text`),
/// if any: why the rule would not take effect there.
fn finding_on_insert(
    file: &str,
    old_text: &str,
    new_text: &str,
    ctx: &Context<'_>,
) -> Option<String> {
    let kind = crate::formats::detect(file, new_text)?;
    let mut c = ctx.with(&Default::default());
    c.document = Some(PathBuf::from(file));
    let findings = |text: &str| {
        kind.format
            .analyse(kind.role, text, &c)
            .diagnostics
            .into_iter()
            .filter(|d| d.severity <= crate::core::diagnostic::Severity::Warning)
            .map(|d| (d.code, d.message))
            .collect::<Vec<_>>()
    };
    let before = if old_text.trim().is_empty() {
        Vec::new()
    } else {
        findings(old_text)
    };
    findings(new_text)
        .into_iter()
        .find(|f| !before.contains(f))
        .map(|(_, m)| m)
}

/// The byte offset of a 1-based line and character column.
fn offset_of(text: &str, line: usize, column: usize) -> Option<usize> {
    let start = if line <= 1 {
        0
    } else {
        text.match_indices('\n').nth(line - 2).map(|(i, _)| i + 1)?
    };
    let rest = &text[start..];
    Some(
        start
            + rest
                .char_indices()
                .nth(column.saturating_sub(1))
                .map_or(rest.len(), |(i, _)| i),
    )
}

/// Places a suggestion in the file whose rule decides its calls now, and
/// checks it there.
pub fn place(
    format: &'static dyn Format,
    ctx: &Context<'_>,
    suggestion: Suggestion,
    approved: &[CallRequest],
    denied: &[String],
) -> Option<Placed> {
    let mut placed = Placed {
        suggestion,
        file: None,
        after_line: None,
        in_line: None,
        new_text: None,
        edits: Vec::new(),
        list: String::new(),
        ordered: format.diff_precedence() == crate::core::precedence::Precedence::LastMatchWins,
        creates: false,
        allowed_now: 0,
        checked_calls: approved.len(),
        note: None,
    };
    let before = super::replay::policy_for(ctx, format, &Session::default()).ok()?;
    // Nothing to suggest when the config allows these calls already.
    if approved
        .iter()
        .all(|c| before.simulate(c).decision == Decision::Allow.as_str())
    {
        return None;
    }
    let deciding = approved.iter().map(|c| before.simulate(c)).find_map(|r| {
        r.rule.and_then(|rule| {
            Some((
                rule.place.file?,
                rule.place.line?,
                rule.place.column.unwrap_or(1),
            ))
        })
    });
    let rule = format.suggested_rule(
        &placed.suggestion.surface,
        &placed.suggestion.pattern,
        "allow",
    )?;
    placed.list = rule.path.join(".");
    // Without rule order, the format's own file for new allow rules. With
    // order, the file whose rule decides the calls now (inserted right
    // after that rule); else, when the runtime's default decides them, the
    // project's file (at the end of its list).
    let preferred = (!placed.ordered)
        .then(|| format.suggestion_file(ctx))
        .flatten()
        .map(|p| (p.display().to_string(), None));
    let target = preferred.or_else(|| {
        deciding
            .filter(|(f, _, _)| Path::new(f).is_file())
            .map(|(f, l, c)| (f, Some((l, c))))
            .or_else(|| {
                let policy = format.effective_policy(ctx).ok()?;
                let files: Vec<_> = policy
                    .files
                    .iter()
                    .filter(|f| f.present && f.accepted != Some(false))
                    .collect();
                files
                    .iter()
                    .find(|f| f.scope == "project")
                    .or_else(|| files.first())
                    .and_then(|f| f.path.clone())
                    .map(|p| (p, None))
            })
    });
    let Some((file, place)) = target else {
        placed.note = Some("no config file to put it in: add the rule by hand".into());
        return Some(placed);
    };
    // The open buffer's text (the editor's unsaved one), else the file's;
    // a file not there yet is created holding the rule.
    let text = match (ctx.open)(Path::new(&file)) {
        Some(t) => t,
        None if !Path::new(&file).exists() => {
            placed.creates = true;
            String::new()
        }
        None => crate::workspace::read_text(Path::new(&file), 64 << 20)?,
    };
    let after = place.and_then(|(line, column)| offset_of(&text, line, column));
    let Some(edits) = insertion_edits(&text, &rule, after) else {
        placed.note = Some(format!(
            "`{}` is not an object or list in {file}: add the rule by hand",
            rule.path.join(".")
        ));
        placed.file = Some(file);
        return Some(placed);
    };
    let new_text = crate::ide::code_actions::apply(&text, &edits);
    placed.edits = edits;
    let path = PathBuf::from(&file);
    let lookup = |p: &Path| {
        if p == path {
            Some(new_text.clone())
        } else {
            (ctx.open)(p)
        }
    };
    let mut with = ctx.with(&Default::default());
    with.open = &lookup;
    let after = super::replay::policy_for(&with, format, &Session::default()).ok()?;
    placed.allowed_now = approved
        .iter()
        .filter(|c| after.simulate(c).decision == Decision::Allow.as_str())
        .count();
    // Never a rule that allows what the history refused.
    for v in denied {
        if let Some(call) = format.probe_call(&placed.suggestion.surface, v)
            && after.simulate(&call).decision == Decision::Allow.as_str()
            && before.simulate(&call).decision != Decision::Allow.as_str()
        {
            return None;
        }
    }
    if placed.allowed_now == 0 && !approved.is_empty() {
        // The format's own finding on the inserted rule says why it would
        // not take effect (an untrusted project's allow rules are ignored).
        if let Some(why) = finding_on_insert(&file, &text, &new_text, &with) {
            placed.note = Some(format!(
                "not added: {why} — the rule would not let these calls through in {file}"
            ));
            placed.edits.clear();
            return Some(placed);
        }
        // Nowhere it would take effect: a rule the runtime ranks above
        // every allow rule (a deny) still decides the approved calls.
        let r = after.simulate(&approved[0]);
        let by = r.rule.as_ref().map_or_else(
            || format!("the runtime still {}s them", r.decision),
            |d| {
                let at = match (&d.place.file, d.place.line) {
                    (Some(f), Some(l)) => format!(" ({f} line {l})"),
                    (Some(f), None) => format!(" ({f})"),
                    _ => String::new(),
                };
                format!("`{}` {} {}s them{at}", d.surface, d.pattern, r.decision)
            },
        );
        placed.note = Some(format!(
            "not added: no allow rule lets these calls through — {by}, and it wins over any allow rule; narrow or remove it to allow them"
        ));
        placed.edits.clear();
        return Some(placed);
    }
    if placed.allowed_now < approved.len() {
        placed.note = Some(format!(
            "placed in {file}, it allows {} of the {} approved calls: a rule the format ranks higher still decides the others",
            placed.allowed_now,
            approved.len()
        ));
    }
    // 1-based: the line the rule goes after when it gets a line of its
    // own, else the line it is inserted into.
    // (The edit with the rule's text; a comma may come before it.)
    let at = placed
        .edits
        .iter()
        .max_by_key(|e| e.new_text.len())
        .map_or(0, |e| e.range.start);
    let before = text[..at].matches('\n').count();
    if (at == 0 || text[..at].ends_with('\n')) && before > 0 {
        placed.after_line = Some(before);
    } else {
        placed.in_line = Some(before + 1);
    }
    placed.file = Some(file);
    placed.new_text = Some(new_text);
    Some(placed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{Answer, Session};
    use serde_json::json;

    fn rule(path: &[&str], item: &str) -> RuleText {
        RuleText {
            path: path.iter().map(|p| p.to_string()).collect(),
            item: item.into(),
            display: String::new(),
        }
    }

    fn insert(text: &str, r: &RuleText, after: Option<usize>) -> Option<String> {
        insertion_edits(text, r, after).map(|e| crate::ide::code_actions::apply(text, &e))
    }

    #[test]
    fn inserted_after_the_rule_to_override_keeping_the_layout() {
        let text = "{\n  // mine\n  \"permission\": {\n    \"bash\": {\n      \"*\": \"ask\",\n      \"rm *\": \"deny\"\n    }\n  }\n}\n";
        let r = rule(&["permission", "bash"], "\"npm *\": \"allow\"");
        let at = text.find("\"*\"").unwrap();
        assert_eq!(
            insert(text, &r, Some(at)).unwrap(),
            "{\n  // mine\n  \"permission\": {\n    \"bash\": {\n      \"*\": \"ask\",\n      \"npm *\": \"allow\",\n      \"rm *\": \"deny\"\n    }\n  }\n}\n"
        );
        // Without a place: after the last rule.
        assert_eq!(
            insert(text, &r, None).unwrap(),
            "{\n  // mine\n  \"permission\": {\n    \"bash\": {\n      \"*\": \"ask\",\n      \"rm *\": \"deny\",\n      \"npm *\": \"allow\"\n    }\n  }\n}\n"
        );
        // Arrays (Claude Code's lists) and empty ones.
        let cc = r#"{"permissions": {"allow": ["Bash(ls)"], "deny": []}}"#;
        assert_eq!(
            insert(
                cc,
                &rule(&["permissions", "allow"], "\"Bash(npm *)\""),
                None
            )
            .unwrap(),
            r#"{"permissions": {"allow": ["Bash(ls)", "Bash(npm *)"], "deny": []}}"#
        );
        assert_eq!(
            insert(cc, &rule(&["permissions", "deny"], "\"Bash(rm *)\""), None).unwrap(),
            r#"{"permissions": {"allow": ["Bash(ls)"], "deny": [ "Bash(rm *)" ]}}"#
        );
        // A list or object on the path that is not there comes with it.
        let allow = rule(&["permissions", "allow"], "\"Bash(npm *)\"");
        assert_eq!(
            insert(r#"{"model": "x"}"#, &allow, None).unwrap(),
            r#"{"model": "x", "permissions": { "allow": [ "Bash(npm *)" ] }}"#
        );
        assert_eq!(
            insert(r#"{"permissions": {"deny": []}}"#, &allow, None).unwrap(),
            r#"{"permissions": {"deny": [], "allow": [ "Bash(npm *)" ]}}"#
        );
        assert_eq!(
            insert("{}", &r, None).unwrap(),
            r#"{ "permission": { "bash": { "npm *": "allow" } } }"#
        );
        // An empty (or missing) file: the rule alone.
        assert_eq!(
            insert("", &allow, None).unwrap(),
            "{\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(npm *)\"\n    ]\n  }\n}\n"
        );
        // Nowhere to put it: no edit, never a reformatted file.
        assert!(insert(r#"{"permission": {"bash": "ask"}}"#, &r, None).is_none());
        assert!(insert(r#"{"permission": []}"#, &r, None).is_none());
        assert!(insert("{ not json", &r, None).is_none());
    }

    fn past(cmd: &str, recorded: Decision, answer: Option<Answer>) -> PastCall {
        PastCall {
            tool: "bash".into(),
            input: json!({ "command": cmd }),
            recorded,
            or: None,
            answer,
            session: Session::default(),
            line: 1,
            note: None,
            outcome: None,
            id: None,
        }
    }

    #[test]
    fn the_smallest_rule_at_a_word_boundary_and_never_over_a_refusal() {
        let pi = crate::formats::by_id("pi").unwrap();
        let mut c = Collector::default();
        let ok = Some(Answer::Approved);
        for cmd in [
            "npm run test",
            "npm run test -- --watch",
            "npm run test a.ts",
        ] {
            for _ in 0..3 {
                c.add(pi, &past(cmd, Decision::Ask, ok));
            }
        }
        c.add(pi, &past("npm run lint", Decision::Ask, ok));
        c.add(
            pi,
            &past("npm run build", Decision::Ask, Some(Answer::Denied)),
        );
        c.add(pi, &past("git push", Decision::Ask, ok));
        c.add(pi, &past("git push", Decision::Ask, ok));
        c.add(pi, &past("git push --force", Decision::Deny, None));
        let got: Vec<(String, u64, usize)> = c
            .suggestions(2)
            .into_iter()
            .map(|(s, _, _)| (s.pattern, s.approvals, s.distinct))
            .collect();
        assert_eq!(
            got,
            vec![
                ("npm run test *".to_string(), 9, 3),
                // `git push *` would match the refused `git push --force`.
                ("git push".to_string(), 2, 1),
            ]
        );
    }
}
