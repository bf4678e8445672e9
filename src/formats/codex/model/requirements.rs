//! The managed `requirements.toml` (`/etc/codex/requirements.toml`) as
//! Codex 0.169.0 applies it (observed): `allowed_approval_policies` and
//! `allowed_sandbox_modes` constrain the session — a configured value
//! outside the set falls back to the set's first value, with a warning —
//! and `[rules] prefix_rules` (decisions `prompt` or `forbidden` only)
//! join every session's rules and stay when a `.rules` file fails. A file
//! that does not parse, or an `allow` rule, refuses the session.

use super::config::Refusal;
use super::rules::{Decision, PrefixRule};
use std::ops::Range;
use toml_edit::Item;

/// Where Codex reads it on Linux.
pub const PATH: &str = "/etc/codex/requirements.toml";

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Requirements {
    pub allowed_approval_policies: Option<(Vec<String>, Range<usize>)>,
    pub allowed_sandbox_modes: Option<(Vec<String>, Range<usize>)>,
    pub rules: Vec<PrefixRule>,
    pub refusals: Vec<Refusal>,
    pub keys: Vec<(String, Range<usize>)>,
}

fn span(item: &Item) -> Range<usize> {
    item.span().unwrap_or(0..0)
}

fn strings(item: &Item) -> Option<Vec<String>> {
    let arr = item.as_array()?;
    arr.iter().map(|v| v.as_str().map(str::to_string)).collect()
}

fn refusal(key: &str, message: String, range: Range<usize>) -> Refusal {
    Refusal {
        key: key.into(),
        message,
        range,
        fix: None,
    }
}

pub fn read(text: &str) -> Requirements {
    let mut out = Requirements::default();
    let doc = match toml_edit::Document::parse(text) {
        Ok(d) => d,
        Err(e) => {
            let r = super::config::clamp(text, e.span().unwrap_or(0..0));
            let (s, t) = (r.start, r.end);
            let line = text[..s].matches('\n').count() + 1;
            let col = text[..s].rsplit('\n').next().unwrap_or("").chars().count() + 1;
            out.refusals.push(refusal(
                "",
                format!(
                    "failed to parse requirements layer: TOML parse error at line {line}, column {col}; {}",
                    e.message().trim()
                ),
                s..t,
            ));
            return out;
        }
    };
    let root = doc.as_table();
    for (k, item) in root.iter() {
        let key_range = root
            .get_key_value(k)
            .and_then(|(key, _)| key.span())
            .unwrap_or(0..0);
        out.keys.push((k.to_string(), key_range));
        match k {
            "allowed_approval_policies" => match strings(item) {
                Some(v) => {
                    for p in &v {
                        if !super::config::APPROVAL_VALUES.contains(&p.as_str()) {
                            out.refusals.push(refusal(
                                k,
                                format!("unknown variant `{p}` in allowed_approval_policies"),
                                span(item),
                            ));
                        }
                    }
                    out.allowed_approval_policies = Some((v, span(item)));
                }
                None => out.refusals.push(refusal(
                    k,
                    "allowed_approval_policies must be a list of strings".into(),
                    span(item),
                )),
            },
            "allowed_sandbox_modes" => match strings(item) {
                Some(v) => {
                    for m in &v {
                        if !super::config::SANDBOX_VALUES.contains(&m.as_str()) {
                            out.refusals.push(refusal(
                                k,
                                format!("unknown variant `{m}` in allowed_sandbox_modes"),
                                span(item),
                            ));
                        }
                    }
                    out.allowed_sandbox_modes = Some((v, span(item)));
                }
                None => out.refusals.push(refusal(
                    k,
                    "allowed_sandbox_modes must be a list of strings".into(),
                    span(item),
                )),
            },
            "rules" => read_rules(item, &mut out),
            _ => {}
        }
    }
    out
}

fn read_rules(item: &Item, out: &mut Requirements) {
    let Some(t) = item.as_table_like() else {
        return;
    };
    let Some(list) = t.get("prefix_rules") else {
        return;
    };
    let entries: Vec<(Option<&dyn toml_edit::TableLike>, Range<usize>)> =
        if let Some(a) = list.as_array() {
            a.iter()
                .map(|v| {
                    (
                        v.as_inline_table().map(|t| t as &dyn toml_edit::TableLike),
                        v.span().unwrap_or(0..0),
                    )
                })
                .collect()
        } else if let Some(a) = list.as_array_of_tables() {
            a.iter()
                .map(|t| {
                    (
                        Some(t as &dyn toml_edit::TableLike),
                        t.span().unwrap_or(0..0),
                    )
                })
                .collect()
        } else {
            Vec::new()
        };
    for (index, (entry, range)) in entries.into_iter().enumerate() {
        let bad = |m: String| {
            refusal(
                "rules",
                format!("invalid rules in requirements: rules prefix_rule at index {index} {m}"),
                range.clone(),
            )
        };
        let Some(entry) = entry else {
            out.refusals.push(bad("is not a table".into()));
            continue;
        };
        let decision = match entry.get("decision").and_then(Item::as_str) {
            Some("prompt") | Some("prompt-user") => Decision::Prompt,
            Some("forbidden") => Decision::Forbidden,
            Some(other) => {
                out.refusals.push(bad(format!(
                    "has decision '{other}', which is not permitted in requirements.toml: Codex merges these rules with other config and uses the most restrictive result (use 'prompt', 'prompt-user', or 'forbidden')"
                )));
                continue;
            }
            None => {
                out.refusals.push(bad("has no decision".into()));
                continue;
            }
        };
        let mut tokens: Vec<Vec<String>> = Vec::new();
        let pattern = entry.get("pattern").and_then(Item::as_array);
        for tok in pattern.into_iter().flatten() {
            let Some(t) = tok.as_inline_table() else {
                tokens.clear();
                break;
            };
            if let Some(s) = t.get("token").and_then(|v| v.as_str()) {
                tokens.push(vec![s.to_string()]);
            } else if let Some(a) = t.get("any_of").and_then(|v| v.as_array()) {
                let alts: Option<Vec<String>> =
                    a.iter().map(|v| v.as_str().map(str::to_string)).collect();
                match alts {
                    Some(alts) if !alts.is_empty() => tokens.push(alts),
                    _ => {
                        tokens.clear();
                        break;
                    }
                }
            } else {
                tokens.clear();
                break;
            }
        }
        if tokens.is_empty() {
            out.refusals.push(bad(
                "has a pattern Codex cannot read (a list of { token } or { any_of })".into(),
            ));
            continue;
        }
        let justification = entry
            .get("justification")
            .and_then(Item::as_str)
            .map(str::to_string);
        for head in &tokens[0] {
            out.rules.push(PrefixRule {
                first: head.clone(),
                rest: tokens[1..].to_vec(),
                decision,
                justification: justification.clone(),
                call: range.clone(),
                call_index: index,
            });
        }
    }
}

/// The value Codex falls back to when `value` is not in `allowed`: the
/// set's first (observed).
pub fn constrain<'a>(value: &'a str, allowed: &'a [String]) -> Option<&'a str> {
    (!allowed.iter().any(|a| a == value)).then(|| allowed.first().map(String::as_str))?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constraints_and_rules() {
        let r = read(
            "allowed_approval_policies = [\"never\", \"on-request\"]\nallowed_sandbox_modes = [\"read-only\"]\n[rules]\nprefix_rules = [{ pattern = [{ token = \"git\" }, { any_of = [\"push\", \"fetch\"] }], decision = \"prompt\", justification = \"ask first\" }]\n",
        );
        assert!(r.refusals.is_empty(), "{:?}", r.refusals);
        assert_eq!(r.rules.len(), 1);
        assert_eq!(r.rules[0].display(), "git [push|fetch]");
        let allowed = &r.allowed_approval_policies.as_ref().unwrap().0;
        assert_eq!(constrain("on-request", allowed), None);
        assert_eq!(constrain("untrusted", allowed), Some("never"));
        let bad = read(
            "[rules]\nprefix_rules = [{ pattern = [{ token = \"git\" }], decision = \"allow\" }]\n",
        );
        assert!(bad.refusals[0].message.contains("has decision 'allow'"));
        assert!(
            !read("allowed_approval_policies = [\"never\"\n")
                .refusals
                .is_empty()
        );
    }
}
