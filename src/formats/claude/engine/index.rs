//! The rules of a policy by what a call must have for them to match: Bash
//! rules by the text a command must start with, by their content, and the
//! rules that can name a whole tool.
//!
//! Every Bash rule's pattern (`git push:*`, `npm run test *`, `rm -rf*`,
//! `git * main`) matches only a command that starts with its text before
//! the first `*`, or, through `xargs`, whose text after `xargs ` does. One
//! anchored Aho-Corasick pass over a command finds every such rule, so a
//! decision tries those and the few rules without a literal start (`*`,
//! `* --force`) instead of every rule: the checks that decide a call per
//! rule (deny spellings, shadowing) stay linear in the number of rules.
//! Exact: a rule left out could not have matched.

use super::policy::Loaded;
use crate::core::literal_index::{Entry, LiteralIndex};
use crate::formats::claude::model::rules::List;
use crate::formats::claude::model::shape::{self, Shape};
use std::collections::HashMap;

/// The index of one list's rules.
#[derive(Debug, Default)]
struct ListIndex {
    /// Bash rules by the text a command must start with.
    starts: LiteralIndex,
    /// Bash rules by their exact literal (`shape::exact_literal`).
    exact: HashMap<String, Vec<usize>>,
    /// Bash rules by their content as written.
    by_content: HashMap<String, Vec<usize>>,
    /// Rules of any tool without a content (or `Bash(*)`): the only ones
    /// that can name a whole tool.
    content_free: Vec<usize>,
}

/// The rules of a policy's three lists.
#[derive(Debug, Default)]
pub struct BashIndex {
    /// How many rules the policy had (an index of other rules is not used).
    len: usize,
    lists: [ListIndex; 3],
}

/// The list's place in `lists` (its declaration order).
fn slot(list: List) -> usize {
    list as usize
}

/// The text before the first `*` a command must start with, or `None`
/// when the rule may match any command.
fn head(content: &str) -> Option<&str> {
    let h = match shape::shape(Some(content), None) {
        Shape::Any | Shape::Never => return None,
        Shape::Exact(c) => c,
        Shape::Prefix(p) | Shape::Glued(p) => p,
        Shape::Other(_, head) => head,
    };
    (!h.is_empty()).then_some(h)
}

impl BashIndex {
    pub fn new(rules: &[Loaded]) -> BashIndex {
        let mut lists: [ListIndex; 3] = Default::default();
        let mut starts: [Vec<Entry<'_>>; 3] = Default::default();
        for (i, r) in rules.iter().enumerate() {
            let s = slot(r.list);
            if r.content.is_none() || (r.tool == "Bash" && r.content.as_deref() == Some("*")) {
                lists[s].content_free.push(i);
            }
            if r.tool != "Bash" {
                continue;
            }
            let Some(c) = r.content.as_deref() else {
                continue;
            };
            let l = &mut lists[s];
            l.by_content.entry(c.to_string()).or_default().push(i);
            if let Some(lit) = shape::exact_literal(Some(c)) {
                l.exact.entry(lit.to_string()).or_default().push(i);
            }
            starts[s].push((i, head(c).map(str::as_bytes)));
        }
        for (l, starts) in lists.iter_mut().zip(starts) {
            l.starts = LiteralIndex::new(starts);
        }
        BashIndex {
            len: rules.len(),
            lists,
        }
    }

    /// Whether this index was built from `rules`.
    pub fn fits(&self, rules: &[Loaded]) -> bool {
        self.len == rules.len()
    }

    /// The Bash rules of `list` whose pattern may match one of `texts`
    /// (also through `xargs`), in policy order.
    pub fn candidates(&self, list: List, texts: &[String]) -> Vec<usize> {
        let starts = texts.iter().flat_map(|t| {
            std::iter::once(t.as_bytes()).chain(t.strip_prefix("xargs ").map(str::as_bytes))
        });
        self.lists[slot(list)].starts.candidates(starts)
    }

    /// The rules of `list` whose exact literal is one of `texts`, in
    /// policy order.
    pub fn exact(&self, list: List, texts: &[String]) -> Vec<usize> {
        let l = &self.lists[slot(list)];
        let mut out: Vec<usize> = texts
            .iter()
            .filter_map(|t| l.exact.get(t.as_str()))
            .flatten()
            .copied()
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

impl BashIndex {
    /// The Bash rules of `list` whose content is `content`, in policy order.
    pub fn with_content(&self, list: List, content: &str) -> &[usize] {
        self.lists[slot(list)]
            .by_content
            .get(content)
            .map_or(&[], Vec::as_slice)
    }

    /// The rules of `list` that can name a whole tool, in policy order.
    pub fn content_free(&self, list: List) -> &[usize] {
        &self.lists[slot(list)].content_free
    }
}
