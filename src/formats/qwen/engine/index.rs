//! The rules of a session by the text a command must start with.
//!
//! A command rule (`Bash(git push *)`) matches only a command whose text,
//! as Qwen Code re-reads it, starts with the pattern's text before its
//! first `*` (without the blank before a ` *`); one anchored pass over a
//! command finds every such rule, and the others (no command pattern) are
//! always tried. The checks that decide a call per rule stay linear in the
//! number of rules. Exact: a rule left out could not have matched.

use super::policy::{List, Placed};
use crate::core::literal_index::{Entry, LiteralIndex};
use crate::formats::qwen::model::{Kind, Rule};

/// One list's rules, grouped by the tool each names.
#[derive(Debug, Default)]
struct ListIndex {
    /// Per rule tool (`run_shell_command`, `read_file`, `mcp__x__*`), its
    /// rules by their command pattern's literal start.
    by_tool: Vec<(String, LiteralIndex)>,
}

#[derive(Debug, Default)]
pub struct RuleIndex {
    len: usize,
    lists: [ListIndex; 3],
}

/// The list's place in `lists` (its declaration order).
fn slot(list: List) -> usize {
    list as usize
}

/// The text a command must start with for `pattern` to match it
/// (`command_matches_normalized`), or `None` when any command may.
pub fn head(pattern: &str) -> Option<&str> {
    let h = match pattern.find('*') {
        None => pattern,
        Some(star) => {
            let lit = &pattern[..star];
            lit.strip_suffix(' ').unwrap_or(lit)
        }
    };
    (!h.is_empty()).then_some(h)
}

/// The literal a rule needs in the call's command, if it is a command rule.
pub fn command_head(rule: &Rule) -> Option<&str> {
    if rule.invalid || rule.kind != Some(Kind::Command) {
        return None;
    }
    rule.specifier.as_deref().and_then(head)
}

impl RuleIndex {
    /// Indexes `rules` (invalid ones are left out: they never match).
    pub fn new(rules: &[Placed]) -> RuleIndex {
        let mut per: [Vec<(&str, Vec<Entry<'_>>)>; 3] = Default::default();
        for (i, r) in rules.iter().enumerate() {
            if r.rule.invalid {
                continue;
            }
            let groups = &mut per[slot(r.list)];
            let entry = (i, command_head(&r.rule).map(str::as_bytes));
            match groups.iter_mut().find(|(t, _)| *t == r.rule.tool) {
                Some((_, g)) => g.push(entry),
                None => groups.push((r.rule.tool.as_str(), vec![entry])),
            }
        }
        RuleIndex {
            len: rules.len(),
            lists: per.map(|groups| ListIndex {
                by_tool: groups
                    .into_iter()
                    .map(|(t, g)| (t.to_string(), LiteralIndex::new(g)))
                    .collect(),
            }),
        }
    }

    pub fn fits(&self, rules: &[Placed]) -> bool {
        self.len == rules.len()
    }

    /// The rules of `list` whose tool passes `tool_ok`: those without a
    /// command pattern, and those whose pattern's literal start begins one
    /// of `texts` (as written, not re-read), in policy order.
    pub fn starting<'t>(
        &self,
        list: List,
        tool_ok: &dyn Fn(&str) -> bool,
        texts: impl Iterator<Item = &'t str> + Clone,
    ) -> Vec<usize> {
        let mut out = Vec::new();
        for (t, ix) in &self.lists[slot(list)].by_tool {
            if tool_ok(t) {
                out.extend(ix.candidates(texts.clone().map(str::as_bytes)));
            }
        }
        out.sort_unstable();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_as_the_matcher_reads_patterns() {
        assert_eq!(head("git push"), Some("git push"));
        assert_eq!(head("git push *"), Some("git push"));
        assert_eq!(head("git push*"), Some("git push"));
        assert_eq!(head("git * main"), Some("git"));
        assert_eq!(head("*"), None);
        assert_eq!(head(" *"), None);
        // Each head is what every command the pattern matches starts with.
        for (p, cmd) in [
            ("git push *", "git push"),
            ("git push *", "git push -f"),
            ("ls*", "lsof"),
        ] {
            assert!(crate::formats::qwen::engine::matching::command_matches_normalized(p, cmd));
            assert!(cmd.starts_with(head(p).unwrap()));
        }
    }
}
