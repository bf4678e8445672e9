//! The set of commands a Bash rule matches, in a form where containment is
//! exact: one rule covers another when every command the second matches is
//! matched by the first (so a stronger list's rule makes it never decide,
//! and a broader allow makes it redundant). Built on the matching in
//! `decide.rs` (observed on the CLI): `p:*` and `p *` are `p` alone or
//! followed by a space; `p*` is anything starting with `p`.

use super::rules::Flaw;
use rustc_hash::FxHashMap;

/// The commands a Bash rule matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape<'a> {
    /// Every command (`Bash`, `Bash(*)`).
    Any,
    /// Exactly this command.
    Exact(&'a str),
    /// This command alone or followed by a space and anything.
    Prefix(&'a str),
    /// Anything starting with this text.
    Glued(&'a str),
    /// A wildcard elsewhere: the rule, and its text before the first `*`.
    Other(&'a str, &'a str),
    /// Nothing (a flaw makes it match no command).
    Never,
}

/// The shape of a Bash rule's content.
pub fn shape<'a>(content: Option<&'a str>, flaw: Option<&Flaw>) -> Shape<'a> {
    if matches!(flaw, Some(Flaw::SpacedToolName | Flaw::ColonStarInside)) {
        return Shape::Never;
    }
    let Some(c) = content else {
        return Shape::Any;
    };
    if c == "*" {
        return Shape::Any;
    }
    if let Some(p) = c.strip_suffix(":*")
        && !p.is_empty()
    {
        // A blank before `:*` stays in the prefix, and a command's text
        // never has one there: the rule matches nothing (Claude Code
        // 2.1.332's matching; `Bash(curl :*)`).
        if p.ends_with([' ', '\t']) {
            return Shape::Never;
        }
        return Shape::Prefix(p);
    }
    if !c.contains('*') {
        return Shape::Exact(c);
    }
    // A wildcard pattern is matched trimmed (`Bash(sudo :* )` is `sudo :`
    // followed by anything).
    let c = c.trim();
    let head = &c[..c.find('*').unwrap_or(c.len())];
    if let Some(p) = c.strip_suffix(" *")
        && !p.contains('*')
        && !p.is_empty()
    {
        return Shape::Prefix(p);
    }
    if let Some(p) = c.strip_suffix('*')
        && !p.contains('*')
        && !p.is_empty()
    {
        return Shape::Glued(p);
    }
    Shape::Other(c, head)
}

/// The command a Bash rule's content names exactly: the content without a
/// wildcard, or the `p` of a `p:*` prefix (its bare command). A deny or
/// ask rule of this kind decides that command before any deny wildcard or
/// prefix (observed: ask `Bash(npm run test)` over deny `Bash(npm:*)`
/// asks).
pub fn exact_literal(content: Option<&str>) -> Option<&str> {
    let c = content?;
    let literal = match c.strip_suffix(":*") {
        Some(p) if !p.is_empty() && !p.ends_with(' ') => p,
        _ => c,
    };
    (!literal.contains('*')).then_some(literal)
}

/// Does `b` match every command `a` matches?
pub fn covers(b: &Shape<'_>, a: &Shape<'_>) -> bool {
    let word_prefix =
        |p: &str, q: &str| p == q || (p.starts_with(q) && p[q.len()..].starts_with(' '));
    match (b, a) {
        (_, Shape::Never) => false,
        (Shape::Any, _) => true,
        (_, Shape::Any) => false,
        (b, Shape::Exact(c)) => matches(b, c),
        (Shape::Prefix(q), Shape::Prefix(p)) => word_prefix(p, q),
        (Shape::Prefix(q), Shape::Glued(p) | Shape::Other(_, p)) => {
            p.starts_with(q) && p[q.len()..].starts_with(' ')
        }
        (Shape::Glued(q), Shape::Prefix(p) | Shape::Glued(p) | Shape::Other(_, p)) => {
            p.starts_with(q)
        }
        (Shape::Other(x, _), Shape::Other(y, _)) => x == y,
        _ => false,
    }
}

/// Does the shape match one command?
pub fn matches(s: &Shape<'_>, cmd: &str) -> bool {
    match s {
        Shape::Any => true,
        Shape::Never => false,
        Shape::Exact(c) => *c == cmd,
        Shape::Prefix(p) => cmd == *p || (cmd.starts_with(p) && cmd[p.len()..].starts_with(' ')),
        Shape::Glued(p) => cmd.starts_with(p),
        Shape::Other(c, _) => wildcard(c, cmd),
    }
}

/// `*` matches any run of characters (spaces included).
fn wildcard(pat: &str, s: &str) -> bool {
    let parts: Vec<&str> = pat.split('*').collect();
    let Some((first, rest)) = parts.split_first() else {
        return pat == s;
    };
    let Some(mut tail) = s.strip_prefix(first) else {
        return false;
    };
    let Some((last, middle)) = rest.split_last() else {
        return tail.is_empty();
    };
    for m in middle {
        match tail.find(m) {
            Some(i) => tail = &tail[i + m.len()..],
            None => return false,
        }
    }
    tail.len() >= last.len() && tail.ends_with(last)
}

/// A command the shape matches, for messages.
pub fn example(s: &Shape<'_>) -> Option<String> {
    match s {
        Shape::Any => Some("ls".into()),
        Shape::Never => None,
        Shape::Exact(c) => Some(c.to_string()),
        Shape::Prefix(p) => Some(format!("{p} …")),
        Shape::Glued(p) => Some(format!("{p}…")),
        Shape::Other(c, _) => Some(c.replace('*', "…")),
    }
}

/// Rules by shape, to find one that covers a given shape without looking
/// at every rule (a settings file can hold tens of thousands).
#[derive(Default)]
pub struct Index<'a> {
    any: Vec<usize>,
    exact: FxHashMap<&'a str, Vec<usize>>,
    prefix: FxHashMap<&'a str, Vec<usize>>,
    glued: FxHashMap<&'a str, Vec<usize>>,
    other: Vec<(usize, Shape<'a>)>,
}

/// Rules with a wildcard in the middle are checked one by one up to this
/// many.
const MAX_OTHER: usize = 256;
/// Prefixes of a rule longer than this are not looked up char by char.
const MAX_GLUED_LOOKUP: usize = 512;

impl<'a> Index<'a> {
    pub fn insert(&mut self, i: usize, s: Shape<'a>) {
        match s {
            Shape::Any => self.any.push(i),
            Shape::Exact(c) => self.exact.entry(c).or_default().push(i),
            Shape::Prefix(p) => self.prefix.entry(p).or_default().push(i),
            Shape::Glued(p) => self.glued.entry(p).or_default().push(i),
            Shape::Other(..) => self.other.push((i, s)),
            Shape::Never => {}
        }
    }

    /// Every indexed rule covering `a` (candidates are checked exactly).
    pub fn covering(&self, a: &Shape<'_>) -> Vec<usize> {
        let mut out: Vec<usize> = self.any.clone();
        let lit = match a {
            Shape::Never => return Vec::new(),
            Shape::Any => return out,
            Shape::Exact(c) => *c,
            Shape::Prefix(p) | Shape::Glued(p) | Shape::Other(_, p) => *p,
        };
        if let Shape::Exact(c) = a
            && let Some(v) = self.exact.get(c)
        {
            out.extend(v);
        }
        let check = |i: &usize, b: Shape<'_>, out: &mut Vec<usize>| {
            if covers(&b, a) {
                out.push(*i);
            }
        };
        // Prefix rules: word prefixes of the literal.
        for (at, _) in lit
            .match_indices(' ')
            .chain(std::iter::once((lit.len(), "")))
        {
            let q = &lit[..at];
            if let Some(v) = self.prefix.get(q) {
                for i in v {
                    check(i, Shape::Prefix(q), &mut out);
                }
            }
        }
        // Glued rules: character prefixes of the literal.
        for (at, _) in lit.char_indices().skip(1).take(MAX_GLUED_LOOKUP) {
            if let Some(v) = self.glued.get(&lit[..at]) {
                for i in v {
                    check(i, Shape::Glued(&lit[..at]), &mut out);
                }
            }
        }
        if let Some(v) = self.glued.get(lit) {
            for i in v {
                check(i, Shape::Glued(lit), &mut out);
            }
        }
        for (i, b) in self.other.iter().take(MAX_OTHER) {
            check(i, *b, &mut out);
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(c: &str) -> Shape<'_> {
        shape(Some(c), None)
    }

    #[test]
    fn containment() {
        assert!(covers(&s("npm:*"), &s("npm run test:*")));
        assert!(covers(&s("npm *"), &s("npm run test:*")));
        assert!(covers(&s("npm run test:*"), &s("npm run test *")));
        assert!(covers(&s("npm run test*"), &s("npm run test:*")));
        assert!(!covers(&s("npm run test:*"), &s("npm run test*")));
        assert!(!covers(&s("npm run test:*"), &s("npm run testing:*")));
        assert!(covers(&s("npm run test:*"), &s("npm run test --watch")));
        assert!(covers(&s("*"), &s("anything:*")));
        assert!(covers(&s("git * main"), &s("git push origin main")));
        assert!(!covers(&s("git push"), &s("git push:*")));
        assert!(!covers(&s("npm run test:*"), &shape(None, None)));
    }

    #[test]
    fn the_index_finds_what_covers() {
        let rules = ["npm:*", "npm run*", "git push", "*", "git * main"];
        let mut idx = Index::default();
        for (i, r) in rules.iter().enumerate() {
            idx.insert(i, s(r));
        }
        assert_eq!(idx.covering(&s("npm run test:*")), [0, 1, 3]);
        assert_eq!(idx.covering(&s("git push origin main")), [3, 4]);
        assert_eq!(idx.covering(&s("git push")), [2, 3]);
    }
}
