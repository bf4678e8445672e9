//! What a Bash deny rule does not block (CC018): the spellings of its
//! command a user expects it to cover (`rm -fr build` for `Bash(rm -rf
//! *)`, `git -C . push` for `Bash(git push:*)`; `model::spellings`), each
//! decided by the session's simulator — every settings file merged, the
//! mode in force. A spelling that Claude Code does not deny is a finding,
//! with what it does instead (allows it, and by which rule; asks).

use crate::core::decision::Decision;
use crate::core::diagnostic::{Diagnostic, Fix, TextEdit};
use crate::formats::claude::codes::Code;
use crate::formats::claude::engine::decide::Why;
use crate::formats::claude::engine::policy::Policy;
use crate::formats::claude::ide::simulation;
use crate::formats::claude::model::rules::{self, List, Reading};
use crate::formats::claude::model::spellings::{self, Spelling};
use crate::syntax::json::Node;
use serde_json::json;

/// A spelling and what the session does with it.
pub struct Through {
    pub spelling: Spelling,
    pub decision: Decision,
    /// Why, in the simulator's words.
    pub why: String,
}

/// The spellings of a deny rule's command that `policy` does not deny.
pub fn through(policy: &Policy, content: &str) -> Vec<Through> {
    let mut out: Vec<Through> = spellings::spellings(content)
        .into_iter()
        .filter_map(|s| {
            let o = policy.decide("Bash", &json!({ "command": s.command }));
            (o.decision != Decision::Deny).then(|| Through {
                why: match o.why {
                    Why::Rule(_) => simulation::reason(policy, &o.why),
                    _ => String::new(),
                },
                spelling: s,
                decision: o.decision,
            })
        })
        .collect();
    // What runs without asking first.
    out.sort_by_key(|t| t.decision != Decision::Allow);
    out
}

/// The indentation an item inserted after `item` gets: the text between
/// its line's start and it when that is blank, else a space.
fn separator(text: &str, item: &Node) -> String {
    let line_start = text[..item.range.start].rfind('\n').map_or(0, |i| i + 1);
    let indent = &text[line_start..item.range.start];
    if line_start > 0 && indent.chars().all(|c| c == ' ' || c == '\t') {
        format!(",\n{indent}")
    } else {
        ", ".into()
    }
}

/// CC018 for each Bash deny rule of this file whose command's other
/// spellings get through.
pub fn deny_spellings(text: &str, deny: &[Node], policy: &Policy, out: &mut Vec<Diagnostic>) {
    // A rule that spells an earlier rule's command otherwise (one a fix
    // added) is judged with that rule, not again on its own.
    let mut spelled_seen: Vec<String> = Vec::new();
    for item in deny {
        if let Some(rule) = item.value.as_str()
            && let Some(content) = rule.strip_prefix("Bash(").and_then(|r| r.strip_suffix(')'))
        {
            let own = spelled_seen.iter().any(|s| s == content);
            spelled_seen.extend(
                spellings::spellings(content)
                    .into_iter()
                    .map(|s| s.rule_content),
            );
            if own {
                continue;
            }
        }
        let Some(rule) = item.value.as_str() else {
            continue;
        };
        let Reading::Loaded(r, None) = rules::read(rule, List::Deny) else {
            continue;
        };
        let (Some(content), "Bash") = (r.content, r.tool) else {
            continue;
        };
        let found = through(policy, content);
        let Some(first) = found.first() else {
            continue;
        };
        let what = |t: &Through| match t.decision {
            Decision::Allow if t.why.is_empty() => "Claude Code runs it without asking".to_string(),
            Decision::Allow => format!("Claude Code allows it ({})", t.why),
            _ => "Claude Code asks instead of denying it".to_string(),
        };
        let mut message = format!(
            "`{}` is not denied by this rule — {}: it is the same command with {}, and rules match the command's text",
            first.spelling.command,
            what(first),
            first.spelling.kind.describe()
        );
        if found.len() > 1 {
            let rest: Vec<String> = found[1..]
                .iter()
                .take(4)
                .map(|t| {
                    format!(
                        "`{}` ({})",
                        t.spelling.command,
                        if t.decision == Decision::Allow {
                            "allowed"
                        } else {
                            "asks"
                        }
                    )
                })
                .collect();
            message.push_str(&format!("; also {}", rest.join(", ")));
        }
        let mut d = Diagnostic::new(Code::DenyBypass, item.range.clone(), message);
        // Add the missing spellings after the rule, in its own form.
        let sep = separator(text, item);
        let added: Vec<String> = found
            .iter()
            .map(|t| format!("Bash({})", t.spelling.rule_content))
            .collect();
        let insert: String = added
            .iter()
            .map(|r| format!("{sep}{}", serde_json::to_string(r).unwrap_or_default()))
            .collect();
        d = d.with_fix(Fix::Edit {
            title: if added.len() == 1 {
                format!("Also deny `{}`", added[0])
            } else {
                format!("Also deny the {} other spellings", added.len())
            },
            edits: vec![TextEdit::replace(item.range.end..item.range.end, insert)],
        });
        // Or deny the command whole, when it is one word with flags.
        let (base, _) = content
            .strip_suffix(":*")
            .or_else(|| content.strip_suffix(" *"))
            .map_or((content, ()), |b| (b, ()));
        let words: Vec<&str> = base.split(' ').collect();
        if words.len() > 1 && words[1..].iter().all(|w| w.starts_with('-')) {
            let whole = format!("Bash({}:*)", words[0]);
            d = d.with_fix(Fix::Edit {
                title: format!("Deny every `{}` command instead (`{whole}`)", words[0]),
                edits: vec![TextEdit::replace(
                    item.range.clone(),
                    serde_json::to_string(&whole).unwrap_or_default(),
                )],
            });
        }
        out.push(d);
    }
}
