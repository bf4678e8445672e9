//! Diagnostics for agent files (`.pi/agents/<name>.md`,
//! `<agentDir>/agents/<name>.md`): the runtime reads their frontmatter's
//! `permission:` block with a tolerant mini-YAML and silently drops every
//! entry it cannot use (spec §2.5, drift D41). Each dropped entry is
//! reported with the reason; the precedence analysis runs on what stays.

use crate::core::diagnostic::{Diagnostic, Fix, Related, TextEdit};
use crate::formats::pi::codes::Code;
use crate::formats::pi::model::State;
use crate::syntax::frontmatter::{
    YamlEntry, YamlValue, extract_frontmatter, parse_simple_yaml_map,
};
use std::ops::Range;

/// Offsets of the CRLF-folded text (what the runtime parses) back in the
/// original text.
pub struct CrlfMap {
    /// Original offsets of each removed `\r`.
    removed: Vec<usize>,
}

impl CrlfMap {
    pub fn new(text: &str) -> CrlfMap {
        CrlfMap {
            removed: text.match_indices("\r\n").map(|(i, _)| i).collect(),
        }
    }
    /// A start offset: a folded offset at a line's `\n` is after its `\r`.
    pub fn to_original(&self, folded: usize) -> usize {
        self.map(folded, false)
    }
    fn map(&self, folded: usize, end: bool) -> usize {
        // The k-th removed `\r` sat at folded position `r - k`.
        let n = self
            .removed
            .iter()
            .enumerate()
            .take_while(|&(k, &r)| if end { r - k < folded } else { r - k <= folded })
            .count();
        folded + n
    }
    /// A range: its end stays before a line's `\r`.
    pub fn range(&self, r: &Range<usize>) -> Range<usize> {
        self.map(r.start, false)..self.map(r.end, true)
    }
}

fn diag(code: Code, range: Range<usize>, message: String) -> Diagnostic {
    Diagnostic::new(code, range, message)
}

pub fn analyze_agent_text(text: &str) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let map = CrlfMap::new(text);
    let folded = text.replace("\r\n", "\n");
    if !folded.starts_with("---\n") {
        if folded.trim_start().starts_with("---") && folded.contains("\npermission:") {
            out.push(diag(
                Code::FrontmatterNotRead,
                0..text.len().min(3),
                "the runtime reads frontmatter only when the file starts with exactly `---` and a newline: this file contributes no permission rules".into(),
            ));
        }
        return out;
    }
    let Some((block, start)) = extract_frontmatter(text) else {
        out.push(diag(
            Code::FrontmatterNotRead,
            0..3,
            "the frontmatter has no closing `---` line: the runtime reads no permission rules from this file".into(),
        ));
        return out;
    };
    let shift = |r: &Range<usize>| map.range(&(r.start + start..r.end + start));
    let root = parse_simple_yaml_map(&block);
    let Some(perm) = root.iter().rev().find(|e| e.key == "permission") else {
        return out;
    };
    let entries = match &perm.value {
        YamlValue::Map(m) => m,
        YamlValue::Scalar(s) => {
            out.push(diag(
                Code::FrontmatterEntryDropped,
                shift(&perm.line_range),
                format!(
                    "dropped: `permission` must be a nested block of surfaces, not the text `{s}`"
                ),
            ));
            return out;
        }
    };
    for e in entries {
        match &e.value {
            YamlValue::Scalar(s) => {
                if State::parse(s).is_none() {
                    out.push(dropped_scalar(text, e, s, &shift, true));
                }
            }
            YamlValue::Map(patterns) => {
                let mut kept = 0;
                for p in patterns {
                    match &p.value {
                        YamlValue::Scalar(s) if State::parse(s).is_some() => kept += 1,
                        YamlValue::Scalar(s) => out.push(dropped_scalar(text, p, s, &shift, false)),
                        YamlValue::Map(m) => match deny_problem(m) {
                            None => kept += 1,
                            Some(why) => out.push(diag(
                                Code::FrontmatterEntryDropped,
                                shift(&p.key_range),
                                format!("dropped: `{}` {why}", p.key),
                            )),
                        },
                    }
                }
                if kept == 0 {
                    let mut d = diag(
                        Code::FrontmatterEntryDropped,
                        shift(&e.key_range),
                        format!(
                            "dropped: `{}` has no usable rule, and the runtime drops an empty map (lower scopes decide `{}` instead)",
                            e.key, e.key
                        ),
                    );
                    if patterns.is_empty() {
                        d.message = format!(
                            "dropped: an empty `{}` map is ignored in frontmatter (lower scopes decide `{}`)",
                            e.key, e.key
                        );
                    }
                    d.add_related(Related {
                        range: shift(&perm.key_range),
                        message: "the permission block".into(),
                    });
                    out.push(d);
                }
            }
        }
    }
    out
}

/// Why a nested pattern block is not a deny the runtime keeps.
fn deny_problem(m: &[YamlEntry]) -> Option<&'static str> {
    let action = m.iter().rev().find(|e| e.key == "action");
    match action.map(|a| &a.value) {
        None => Some("has no `action: deny`"),
        Some(YamlValue::Scalar(a)) if a == "deny" => {
            match m.iter().rev().find(|e| e.key == "reason").map(|r| &r.value) {
                Some(YamlValue::Map(_)) => Some("has a nested block as its reason"),
                _ => None,
            }
        }
        Some(_) => Some("is a block whose action is not `deny` (only deny has an object form)"),
    }
}

/// Why an entry was dropped, where a rewrite can keep it.
enum Dropped {
    FlowMap,
    InlineComment,
    StateCase,
    Other,
}

fn dropped_scalar(
    text: &str,
    e: &YamlEntry,
    s: &str,
    shift: &dyn Fn(&Range<usize>) -> Range<usize>,
    surface: bool,
) -> Diagnostic {
    let what = if surface { "surface" } else { "pattern" };
    let trimmed = s.trim();
    let mut why = Dropped::Other;
    let message = if trimmed.starts_with('{') || trimmed.starts_with('[') {
        why = Dropped::FlowMap;
        format!(
            "dropped: the runtime's frontmatter reader has no flow maps, so `{}` is the text `{s}`; write a nested block (quick fix)",
            e.key
        )
    } else if let Some((value, comment)) = s.split_once(" #")
        && State::parse(value.trim()).is_some()
    {
        why = Dropped::InlineComment;
        format!(
            "dropped: the runtime's frontmatter reader has no inline comments, so the value is `{s}`, not `{}`; put `#{comment}` on its own line (quick fix)",
            value.trim()
        )
    } else if let Some((rest, value)) = s.rsplit_once(": ")
        && State::parse(value.trim()).is_some()
    {
        format!(
            "dropped: the key is cut at its first `:` — the runtime reads the {what} `{}` with the text `{s}`; a {what} containing `:` cannot be written in frontmatter (`{}:{rest}`)",
            e.key, e.key
        )
    } else {
        why = Dropped::StateCase;
        format!(
            "dropped: `{s}` is not `allow`, `ask` or `deny` (nor a nested `action: deny` block)"
        )
    };
    let range = shift(&e.line_range);
    let fix = text
        .get(range.clone())
        .and_then(|line| rewrite(text, line, &range, why));
    let mut d = diag(Code::FrontmatterEntryDropped, range, message);
    d.fixes.extend(fix);
    d
}

/// An inline comment moved to its own line, a state's case fixed, or a
/// flow map `{ action: deny, reason: … }` written as the nested block the
/// runtime reads.
fn rewrite(text: &str, line: &str, range: &Range<usize>, why: Dropped) -> Option<Fix> {
    let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let indent: String = line
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    let body = &line[indent.len()..];
    let edit = |title: String, new_text: String| Fix::Edit {
        title,
        edits: vec![TextEdit::replace(range.clone(), new_text)],
    };
    match why {
        Dropped::InlineComment => {
            let at = body.find(" #")?;
            let (entry, comment) = (body[..at].trim_end(), body[at..].trim_start());
            Some(edit(
                "Move the comment to its own line".into(),
                format!("{indent}{comment}{newline}{indent}{entry}"),
            ))
        }
        Dropped::StateCase => {
            let (entry, value) = body.rsplit_once(": ")?;
            let lower = value.trim().to_ascii_lowercase();
            matches!(lower.as_str(), "allow" | "ask" | "deny").then(|| {
                edit(
                    format!("Change to {lower}"),
                    format!("{indent}{entry}: {lower}"),
                )
            })
        }
        Dropped::FlowMap => {
            let colon = body.find(": {").or_else(|| body.find(":{"))?;
            let key = &body[..colon];
            let inner = body[colon + 1..]
                .trim()
                .strip_prefix('{')?
                .strip_suffix('}')?;
            let unit = if indent.contains('\t') { "\t" } else { "  " };
            let mut out = format!("{indent}{key}:");
            for part in inner.split(',') {
                let (k, v) = part.split_once(':')?;
                let (k, v) = (k.trim(), v.trim());
                if k.is_empty() || v.is_empty() || v.contains(['{', '}', '[', ']']) {
                    return None;
                }
                out.push_str(&format!("{newline}{indent}{unit}{k}: {v}"));
            }
            Some(edit("Write as a nested block".into(), out))
        }
        Dropped::Other => None,
    }
}

/// Everything reported for an agent file: dropped entries, then the
/// precedence findings for the rules the runtime keeps — over the merged
/// rule list when other scopes contribute (`scopes`), else over the file
/// alone. Lint levels and suppression comments (`# permission-lsp-ignore`
/// is not read: YAML comments are the runtime's, so levels only) apply.
pub fn analyze_agent_in_scopes(
    text: &str,
    options: &crate::contract::AnalysisOptions,
    scopes: Option<&super::rule_order::ScopeRules>,
) -> Vec<Diagnostic> {
    use super::rule_lints::{ordered_rules, rule_order_diagnostics};
    let mut out = analyze_agent_text(text);
    let map = CrlfMap::new(text);
    let own = |mut rules: Vec<super::rule_order::OrderedRule>| {
        for r in rules.iter_mut().filter(|r| r.elsewhere.is_none()) {
            r.key_range = map.range(&r.key_range);
            r.value_range = map.range(&r.value_range);
        }
        rules
    };
    match scopes {
        Some(s) => rule_order_diagnostics(
            &own(s.rules.clone()),
            s.default,
            text,
            &options.home,
            &mut out,
        ),
        None => {
            if let Some(surfaces) = crate::formats::pi::model::agent::agent_permission(text) {
                rule_order_diagnostics(
                    &own(ordered_rules(&surfaces)),
                    State::Ask,
                    text,
                    &options.home,
                    &mut out,
                );
            }
        }
    }
    options.levels.apply(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_drift_case_d41() {
        let md = "---\nname: a\npermission:\n  mcp:\n    exa:*: allow\n  read: allow # reviewed\n  bash:\n    \"npm *\": { action: deny, reason: Use pnpm }\n    \"pip *\":\n      action: deny\n      reason: Use uv\n---\nbody\n";
        let d = analyze_agent_text(md);
        let msgs: Vec<&str> = d.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(d.len(), 4, "{msgs:#?}");
        assert!(msgs[0].contains("cut at its first `:`"));
        assert!(msgs[1].contains("has no usable rule"));
        assert!(msgs[2].contains("no inline comments"));
        assert!(msgs[3].contains("no flow maps"));
    }

    #[test]
    fn crlf_offsets_map_back() {
        let md = "---\r\npermission:\r\n  read: Allow\r\n---\r\n";
        let d = analyze_agent_text(md);
        assert_eq!(d.len(), 1);
        assert_eq!(&md[d[0].range.clone()], "  read: Allow");
        let unclosed = analyze_agent_text("---\npermission:\n  read: allow\n");
        assert_eq!(unclosed[0].code, Code::FrontmatterNotRead);
    }
}
