//! The runtime's wildcard matcher (spec §4.1), compiled once per pattern.
//!
//! `*` is any run of characters (newlines and `/` included), `?` exactly one
//! UTF-16 code unit, everything else literal; the match is anchored and a
//! trailing ` *` also matches the bare prefix (`git *` matches `git`). The
//! pattern is home-expanded first (`~/x`, `$HOME/x` — with Node's `path.join`
//! normalisation). JavaScript matches UTF-16 code units: the general case
//! runs a `regex::bytes` automaton over UTF-16LE (linear time); the common
//! shapes (`*`, a literal, `prefix*`, `prefix *`) never build an automaton.

use super::paths::expand_home;
use crate::core::pattern_algebra::Pattern;
use regex::bytes::{Regex, RegexBuilder};

/// Matching options the runtime applies on Windows path surfaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct MatchOptions {
    pub case_insensitive: bool,
    pub windows_separators: bool,
}

#[derive(Debug, Clone)]
enum Matcher {
    Any,
    Exact(String),
    /// `prefix*`.
    Prefix(String),
    /// `prefix *`: the bare prefix or `prefix ` followed by anything.
    Command(String),
    /// Compiled over UTF-16LE bytes.
    Utf16(Regex),
    /// A long pattern (or one whose automaton would be too large), matched
    /// by the pattern algebra's glob matcher in constant memory.
    Glob(Pattern),
}

/// A compiled wildcard pattern.
#[derive(Debug, Clone)]
pub struct Wildcard {
    pub source: String,
    matcher: Matcher,
    case_insensitive: bool,
}

/// Automata larger than this are not built (a pattern can be any length).
const REGEX_SIZE_LIMIT: usize = 4 * 1024 * 1024;
/// Patterns longer than this (in bytes) are never handed to the regex
/// parser, whose syntax tree takes about a kilobyte per character.
const MAX_REGEX_PATTERN: usize = 1024;

impl Wildcard {
    pub fn compile(pattern: &str, home: &str, opts: MatchOptions) -> Wildcard {
        let mut expanded = expand_home(pattern, home);
        if opts.windows_separators {
            expanded = expanded.replace('/', "\\");
        }
        if opts.case_insensitive {
            expanded = fold_case(&expanded);
        }
        let matcher = classify(&expanded);
        Wildcard {
            source: pattern.to_string(),
            matcher,
            case_insensitive: opts.case_insensitive,
        }
    }

    pub fn is_match(&self, value: &str) -> bool {
        if self.case_insensitive {
            return self.match_folded(&fold_case(value));
        }
        self.match_folded(value)
    }

    /// Matches a value already encoded as UTF-16LE (see [`Utf16Value`]).
    pub fn is_match_value(&self, value: &Utf16Value<'_>) -> bool {
        if self.case_insensitive {
            return self.is_match(value.text);
        }
        match &self.matcher {
            Matcher::Utf16(re) => re.is_match(value.utf16()),
            _ => self.match_folded(value.text),
        }
    }

    fn match_folded(&self, value: &str) -> bool {
        match &self.matcher {
            Matcher::Any => true,
            Matcher::Exact(s) => value == s,
            Matcher::Prefix(p) => value.starts_with(p.as_str()),
            Matcher::Command(p) => {
                value.len() >= p.len()
                    && value.starts_with(p.as_str())
                    && (value.len() == p.len() || value.as_bytes()[p.len()] == b' ')
            }
            Matcher::Utf16(re) => re.is_match(&utf16le(value)),
            Matcher::Glob(g) => g.is_match(value),
        }
    }

    /// The one string this pattern matches, when it has no wildcard.
    pub fn exact_literal(&self) -> Option<&str> {
        match (&self.matcher, self.case_insensitive) {
            (Matcher::Exact(s), false) => Some(s),
            _ => None,
        }
    }

    /// True when the pattern matches every value.
    pub fn matches_everything(&self) -> bool {
        matches!(self.matcher, Matcher::Any)
    }
}

/// A value with its UTF-16LE encoding computed once, for matching against
/// many patterns.
pub struct Utf16Value<'a> {
    pub text: &'a str,
    encoded: std::cell::OnceCell<Vec<u8>>,
}

impl<'a> Utf16Value<'a> {
    pub fn new(text: &'a str) -> Self {
        Utf16Value {
            text,
            encoded: std::cell::OnceCell::new(),
        }
    }
    fn utf16(&self) -> &[u8] {
        self.encoded.get_or_init(|| utf16le(self.text))
    }
}

fn utf16le(s: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len() * 2);
    for u in s.encode_utf16() {
        out.extend_from_slice(&u.to_le_bytes());
    }
    out
}

/// The runtime folds case with the regex `i` flag; for paths on Windows the
/// values are lowercased too. Lowercasing both sides is the same for every
/// character whose upper and lower forms map one to one.
fn fold_case(s: &str) -> String {
    s.to_lowercase()
}

fn classify(p: &str) -> Matcher {
    if p == "*" {
        return Matcher::Any;
    }
    if !p.contains('?') {
        let stars = p.matches('*').count();
        if stars == 0 {
            return Matcher::Exact(p.to_string());
        }
        if stars == 1 && p.ends_with('*') {
            let prefix = &p[..p.len() - 1];
            if let Some(cmd) = prefix.strip_suffix(' ') {
                return Matcher::Command(cmd.to_string());
            }
            return Matcher::Prefix(prefix.to_string());
        }
    }
    if p.len() > MAX_REGEX_PATTERN {
        return Matcher::Glob(Pattern::from_expanded(p));
    }
    compile_utf16(p)
}

/// `^…$` over UTF-16LE bytes: a literal code unit is its two bytes, `?` is
/// any two bytes, `*` any number of two-byte units.
fn compile_utf16(p: &str) -> Matcher {
    const UNIT: &str = "(?:(?s-u:..))";
    let mut re = String::from("(?s-u)^");
    let parts: Vec<&str> = p.split('*').collect();
    let last = parts.len() - 1;
    for (i, part) in parts.iter().enumerate() {
        // The runtime turns a trailing " .*" into "( .*)?".
        let trailing_space_star =
            i + 1 == last && parts[last].is_empty() && part.ends_with(' ') && last > 0;
        let lit = if trailing_space_star {
            &part[..part.len() - 1]
        } else {
            part
        };
        for ch in lit.chars() {
            if ch == '?' {
                re.push_str(UNIT);
                continue;
            }
            let mut buf = [0u16; 2];
            for u in ch.encode_utf16(&mut buf) {
                for b in u.to_le_bytes() {
                    re.push_str(&format!("\\x{b:02x}"));
                }
            }
        }
        if i < last {
            // `**` is `*`: one loop is enough.
            if part.is_empty() && i > 0 {
                continue;
            }
            if trailing_space_star {
                re.push_str(&format!("(?:\\x20\\x00{UNIT}*)?"));
                break;
            }
            re.push_str(UNIT);
            re.push('*');
        }
    }
    re.push('$');
    match RegexBuilder::new(&re)
        .unicode(false)
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(REGEX_SIZE_LIMIT)
        .build()
    {
        Ok(r) => Matcher::Utf16(r),
        Err(_) => Matcher::Glob(Pattern::from_expanded(p)),
    }
}

/// pi's wildcard as a [`PatternLanguage`](crate::core::pattern_algebra::PatternLanguage):
/// `~/` and `$HOME/` expanded against `home`, then `*`, `?` and the
/// trailing ` *` as the algebra reads them.
pub struct WildcardLanguage<'a> {
    pub home: &'a str,
}

impl crate::core::pattern_algebra::PatternLanguage for WildcardLanguage<'_> {
    fn compile(&self, source: &str) -> crate::core::pattern_algebra::Pattern {
        crate::core::pattern_algebra::Pattern::from_expanded(&super::paths::expand_home(
            source, self.home,
        ))
    }
}

/// A pi pattern in the algebra's form.
pub fn algebra_pattern(source: &str, home: &str) -> crate::core::pattern_algebra::Pattern {
    use crate::core::pattern_algebra::PatternLanguage;
    WildcardLanguage { home }.compile(source)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, v: &str) -> bool {
        Wildcard::compile(p, "/home/u", MatchOptions::default()).is_match(v)
    }

    /// The constant-memory matcher answers as the automaton does.
    #[test]
    fn glob_agrees_with_the_automaton() {
        let pats = [
            "git *",
            "a*b",
            "*",
            "**",
            "a**b",
            "src/**/*.ts",
            "rea?",
            "?",
            "??*",
            "* *",
            " *",
            "a *",
            "a **",
            "*a",
            "a*",
            "*a*b*",
            "x?y*z",
            "é*",
            "😀?",
            "a?*b *",
            "ab*ab",
            "*ab*ab",
            "aa*aa",
            "",
            "a b *",
        ];
        let vals = [
            "",
            "a",
            "b",
            "ab",
            "aab",
            "abab",
            "git",
            "git status",
            "gitk",
            "src/x/a.ts",
            "src/a.ts",
            "read",
            "a b",
            "a bc",
            "a ",
            "x1yz",
            "xyz",
            "éé",
            "😀",
            "😀x",
            "a\nb",
            "a b c",
            "aaaa",
            "aaa",
            "ab ab",
        ];
        for p in pats {
            let Matcher::Utf16(re) = compile_utf16(p) else {
                continue;
            };
            let seg = Pattern::from_expanded(p);
            for v in vals {
                assert_eq!(
                    seg.is_match(v),
                    re.is_match(&utf16le(v)),
                    "pattern {p:?} value {v:?}"
                );
            }
        }
    }

    #[test]
    fn long_patterns_match_in_bounded_memory() {
        let p = "a*".repeat(200_000);
        let w = Wildcard::compile(&p, "/h", MatchOptions::default());
        assert!(matches!(w.matcher, Matcher::Glob(_)));
        assert!(!w.is_match("aaa"));
        assert!(w.is_match(&"a".repeat(200_000)));
    }

    #[test]
    fn runtime_semantics() {
        assert!(m("git *", "git"));
        assert!(m("git *", "git status"));
        assert!(!m("git *", "gitk"));
        assert!(m("npm*", "npmx foo"));
        assert!(m("*", ""));
        assert!(m(" *", ""));
        assert!(m("* *", "anything"));
        assert!(m("src/**/*.ts", "src/x/a.ts"));
        assert!(!m("src/**/*.ts", "src/a.ts"));
        assert!(m("rea?", "read"));
        assert!(m("a*b", "a\nb"));
        assert!(!m("Git *", "git status"));
        assert!(m("~/bin/*", "/home/u/bin/x"));
        assert!(!m("~/bin/deploy *", "~/bin/deploy prod"));
        assert!(m("a.b", "a.b"));
        assert!(!m("a.b", "axb"));
        assert!(m("x?y *", "x-y"));
        assert!(m("x?y *", "x-y z"));
        assert!(!m("x?y *", "x-yz"));
        // `?` is one UTF-16 unit: an astral character needs two.
        assert!(!m("?", "😀"));
        assert!(m("??", "😀"));
        assert!(m("a*", "a😀"));
        assert!(m("(x)+[y]", "(x)+[y]"));
        assert!(m("\\*", "\\anything"));
    }

    #[test]
    fn windows_options_fold_case_and_separators() {
        let w = Wildcard::compile(
            "C:/Users/*",
            "C:\\home",
            MatchOptions {
                case_insensitive: true,
                windows_separators: true,
            },
        );
        assert!(w.is_match("c:\\users\\me"));
    }

    #[test]
    fn huge_patterns_do_not_hang() {
        let p = "?".repeat(10_000) + "*" + &"?*".repeat(2_000);
        let w = Wildcard::compile(&p, "/h", MatchOptions::default());
        let _ = w.is_match(&"x".repeat(20_000));
        let stars = "*".repeat(10_000);
        assert!(Wildcard::compile(&stars, "/h", MatchOptions::default()).is_match("abc"));
    }
}
