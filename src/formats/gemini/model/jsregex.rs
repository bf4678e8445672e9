//! JavaScript regexes (no flags, as Gemini CLI builds them with
//! `new RegExp(source)`), run by `fancy-regex` after translating what the
//! two dialects read differently: `\d`, `\w`, `\s` and `.` as JavaScript
//! defines them, identity escapes, a literal `{`, `[` inside a class,
//! the empty and the full class. What cannot be run the same way is
//! reported, never answered: a pattern JavaScript accepts but this
//! translation cannot (a variable-length lookbehind), a match that hits
//! the backtracking limit, `\b` over non-ASCII text, and subjects with
//! characters outside the BMP (JavaScript counts UTF-16 units).

use std::sync::OnceLock;

/// Why a source is not run as a JavaScript regex.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// `new RegExp` throws: the CLI drops the rule ("Invalid regex pattern").
    Invalid(String),
    /// JavaScript accepts it; this translation cannot run it the same way.
    Unsupported(String),
}

/// A translated regex.
#[derive(Debug, Clone)]
pub struct JsRegex {
    pub source: String,
    /// Shared by the copies a policy's rule list and its files hold.
    re: std::sync::Arc<Engine>,
    word_boundary: bool,
}

#[derive(Debug, Clone)]
enum Engine {
    Fancy(fancy_regex::Regex),
    /// The regex a `commandPrefix` becomes (`<literal>(?:[\s"]|\\")`),
    /// run as a substring search: the literal, then a JavaScript blank,
    /// a quote or an escaped quote.
    Prefix(memchr::memmem::Finder<'static>),
}

/// A match that cannot be answered exactly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unknown(pub String);

const JS_SPACE: &str = r"\t\n\x0B\x0C\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}";

fn class_escape(c: char) -> Option<String> {
    Some(match c {
        'd' => "0-9".into(),
        'w' => "A-Za-z0-9_".into(),
        's' => JS_SPACE.into(),
        'D' => "[^0-9]".into(),
        'W' => "[^A-Za-z0-9_]".into(),
        'S' => format!("[^{JS_SPACE}]"),
        _ => return None,
    })
}

fn lit(c: char) -> String {
    if c.is_ascii_alphanumeric() || c == '_' || c == ' ' {
        c.to_string()
    } else {
        format!("\\x{{{:X}}}", c as u32)
    }
}

fn hex(cs: &[char], i: usize, n: usize) -> Option<u32> {
    let s: String = cs.get(i..i + n)?.iter().collect();
    (s.len() == n && s.chars().all(|c| c.is_ascii_hexdigit()))
        .then(|| u32::from_str_radix(&s, 16).ok())
        .flatten()
}

/// One escape at `cs[i]` (after the `\`), outside or inside a class:
/// the Rust text and the characters read.
fn escape(
    cs: &[char],
    i: usize,
    in_class: bool,
    groups: usize,
) -> Result<(String, usize), Refused> {
    let Some(&c) = cs.get(i) else {
        return Err(Refused::Invalid("\\ at end of pattern".into()));
    };
    let one = |s: String| Ok((s, 1));
    match c {
        'd' | 'w' | 's' if in_class => one(class_escape(c).unwrap()),
        'D' | 'W' | 'S' if in_class => one(class_escape(c).unwrap()),
        'd' | 'w' | 's' => one(format!("[{}]", class_escape(c).unwrap())),
        'D' | 'W' | 'S' => one(class_escape(c).unwrap()),
        'b' if in_class => one(lit('\u{8}')),
        'b' | 'B' => one(format!("\\{c}")),
        'n' => one(r"\n".into()),
        'r' => one(r"\r".into()),
        't' => one(r"\t".into()),
        'v' => one(r"\x0B".into()),
        'f' => one(r"\x0C".into()),
        '0' if !cs.get(i + 1).is_some_and(|d| d.is_ascii_digit()) => one(r"\x00".into()),
        '1'..='9' if !in_class => {
            let digits: String = cs[i..].iter().take_while(|d| d.is_ascii_digit()).collect();
            let n: usize = digits.parse().unwrap_or(usize::MAX);
            if n <= groups {
                Ok((format!("\\{n}"), digits.len()))
            } else {
                Err(Refused::Unsupported(format!(
                    "`\\{digits}` (an octal escape in JavaScript)"
                )))
            }
        }
        '0'..='9' => Err(Refused::Unsupported(format!("`\\{c}` (an octal escape)"))),
        'x' => match hex(cs, i + 1, 2) {
            Some(v) => Ok((format!("\\x{{{v:X}}}"), 3)),
            None => one(lit('x')),
        },
        'u' => match hex(cs, i + 1, 4) {
            Some(v) if (0xD800..0xE000).contains(&v) => {
                Err(Refused::Unsupported("a surrogate escape `\\uD…`".into()))
            }
            Some(v) => Ok((format!("\\x{{{v:X}}}"), 5)),
            None => one(lit('u')),
        },
        'c' => match cs.get(i + 1) {
            Some(l) if l.is_ascii_alphabetic() => Ok((format!("\\x{{{:X}}}", (*l as u32) % 32), 2)),
            _ => Err(Refused::Unsupported("`\\c` without a letter".into())),
        },
        'k' => Err(Refused::Unsupported("`\\k` (a named backreference)".into())),
        // An identity escape: the character itself.
        _ => one(lit(c)),
    }
}

/// Translates a JavaScript source (no flags) to a `fancy-regex` source.
pub fn translate(src: &str) -> Result<(String, bool), Refused> {
    let cs: Vec<char> = src.chars().collect();
    let total_groups = count_groups(&cs);
    let mut out = String::new();
    let mut boundary = false;
    let mut i = 0;
    // Whether the last thing written can take a quantifier.
    let mut atom = false;
    let mut depth = 0usize;
    while i < cs.len() {
        let c = cs[i];
        match c {
            '\\' => {
                let (s, n) = escape(&cs, i + 1, false, total_groups)?;
                boundary |= s == r"\b" || s == r"\B";
                atom = !(s == r"\b" || s == r"\B");
                out.push_str(&s);
                i += 1 + n;
            }
            '.' => {
                out.push_str(r"[^\n\r\x{2028}\x{2029}]");
                atom = true;
                i += 1;
            }
            '[' => {
                let (s, n) = class(&cs, i)?;
                out.push_str(&s);
                atom = true;
                i += n;
            }
            '(' => {
                depth += 1;
                let rest: String = cs[i + 1..].iter().take(3).collect();
                if rest.starts_with("?:") || rest.starts_with("?=") || rest.starts_with("?!") {
                    out.push('(');
                    out.push_str(&rest[..2]);
                    i += 3;
                } else if rest.starts_with("?<=") || rest.starts_with("?<!") {
                    out.push('(');
                    out.push_str(&rest[..3]);
                    i += 4;
                } else if rest.starts_with("?<") {
                    let name: String = cs[i + 3..].iter().take_while(|&&x| x != '>').collect();
                    if name.is_empty()
                        || !name
                            .chars()
                            .all(|x| x.is_ascii_alphanumeric() || x == '_' || x == '$')
                        || name.starts_with(|x: char| x.is_ascii_digit())
                        || i + 3 + name.chars().count() >= cs.len()
                    {
                        return Err(Refused::Invalid("Invalid capture group name".into()));
                    }
                    if name.contains('$') {
                        return Err(Refused::Unsupported("a group name with `$`".into()));
                    }
                    out.push_str(&format!("(?P<{name}>"));
                    i += 4 + name.chars().count();
                } else if rest.starts_with('?') {
                    return Err(Refused::Invalid("Invalid group".into()));
                } else {
                    out.push('(');
                    i += 1;
                }
                atom = false;
            }
            ')' => {
                if depth == 0 {
                    return Err(Refused::Invalid("Unmatched ')'".into()));
                }
                depth -= 1;
                out.push(')');
                atom = true;
                i += 1;
            }
            '{' => {
                let tail: String = cs[i..].iter().take(24).collect();
                let q = quantifier_len(&tail);
                match q {
                    Some(n) if atom => {
                        let s: String = cs[i..i + n].iter().collect();
                        out.push_str(&s);
                        i += n;
                        if cs.get(i) == Some(&'?') {
                            out.push('?');
                            i += 1;
                        }
                        atom = false;
                    }
                    Some(_) => return Err(Refused::Invalid("Nothing to repeat".into())),
                    None => {
                        out.push_str(r"\{");
                        atom = true;
                        i += 1;
                    }
                }
            }
            '}' => {
                out.push_str(r"\}");
                atom = true;
                i += 1;
            }
            '*' | '+' | '?' => {
                if !atom {
                    return Err(Refused::Invalid("Nothing to repeat".into()));
                }
                out.push(c);
                i += 1;
                if cs.get(i) == Some(&'?') {
                    out.push('?');
                    i += 1;
                }
                atom = false;
            }
            '|' | '^' | '$' => {
                out.push(c);
                atom = c == '$' || c == '^';
                // JavaScript (without the `u` flag) lets `^` and `$` take a
                // quantifier only through lookarounds; keep it simple.
                if c != '|' {
                    atom = false;
                }
                i += 1;
            }
            ']' => {
                out.push_str(r"\]");
                atom = true;
                i += 1;
            }
            _ => {
                out.push_str(&lit(c));
                atom = true;
                i += 1;
            }
        }
    }
    if depth > 0 {
        return Err(Refused::Invalid("Unterminated group".into()));
    }
    Ok((out, boundary))
}

fn quantifier_len(t: &str) -> Option<usize> {
    static Q: OnceLock<regex::Regex> = OnceLock::new();
    let q = Q.get_or_init(|| regex::Regex::new(r"^\{[0-9]+(,[0-9]*)?\}").unwrap());
    q.find(t).map(|m| m.as_str().chars().count())
}

fn count_groups(cs: &[char]) -> usize {
    let mut n = 0;
    let mut i = 0;
    let mut in_class = false;
    while i < cs.len() {
        match cs[i] {
            '\\' => i += 1,
            '[' => in_class = true,
            ']' => in_class = false,
            '(' if !in_class
                && (cs.get(i + 1) != Some(&'?')
                    || (cs.get(i + 2) == Some(&'<')
                        && !matches!(cs.get(i + 3), Some('=' | '!')))) =>
            {
                n += 1;
            }
            _ => {}
        }
        i += 1;
    }
    n
}

/// A class at `cs[i] == '['`: the Rust text and the characters read.
fn class(cs: &[char], i: usize) -> Result<(String, usize), Refused> {
    let mut j = i + 1;
    let negated = cs.get(j) == Some(&'^');
    if negated {
        j += 1;
    }
    let mut items = String::new();
    let mut empty = true;
    loop {
        let Some(&c) = cs.get(j) else {
            return Err(Refused::Invalid("Unterminated character class".into()));
        };
        match c {
            ']' => {
                j += 1;
                break;
            }
            '\\' => {
                let (s, n) = escape(cs, j + 1, true, 0)?;
                items.push_str(&s);
                j += 1 + n;
            }
            '-' => {
                // A range only between two single characters.
                let prev_single = !items.is_empty();
                let next_ok = cs.get(j + 1).is_some_and(|&n| n != ']');
                if prev_single && next_ok && !items.ends_with(']') {
                    items.push('-');
                } else {
                    items.push_str(r"\-");
                }
                j += 1;
            }
            _ => {
                items.push_str(&lit(c));
                j += 1;
            }
        }
        empty = false;
    }
    let s = match (empty, negated) {
        (true, false) => "(?!)".to_string(),
        (true, true) => r"(?s:.)".to_string(),
        (false, false) => format!("[{items}]"),
        (false, true) => format!("[^{items}]"),
    };
    Ok((s, j - i))
}

/// The backtracking steps one match may take before it is answered as
/// unknown (JavaScript would keep going, possibly for ever).
const BACKTRACK_LIMIT: usize = 200_000;

type Cache = std::sync::Mutex<std::collections::HashMap<String, Result<JsRegex, Refused>>>;

/// Compiled regexes by source: a session is read again on every edit.
fn cache() -> &'static Cache {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

const CACHE_LIMIT: usize = 8192;

impl JsRegex {
    /// `new RegExp(src)`.
    pub fn new(src: &str) -> Result<JsRegex, Refused> {
        if let Some(hit) = cache().lock().ok().and_then(|c| c.get(src).cloned()) {
            return hit;
        }
        let made = Self::compile(src);
        if let Ok(mut c) = cache().lock() {
            if c.len() >= CACHE_LIMIT {
                c.clear();
            }
            c.insert(src.to_string(), made.clone());
        }
        made
    }

    fn compile(src: &str) -> Result<JsRegex, Refused> {
        let (t, word_boundary) = translate(src)?;
        let re = fancy_regex::RegexBuilder::new(&t)
            .backtrack_limit(BACKTRACK_LIMIT)
            .build()
            .map_err(|e| Refused::Unsupported(format!("not run by this checker: {e}")))?;
        Ok(JsRegex {
            source: src.to_string(),
            re: std::sync::Arc::new(Engine::Fancy(re)),
            word_boundary,
        })
    }

    /// The regex of one `commandPrefix` (its source as the CLI builds
    /// it), matched without a regex engine.
    pub fn command_prefix(prefix: &str) -> JsRegex {
        let encoded = serde_json::to_string(prefix).unwrap_or_default();
        let open = &encoded[..encoded.len() - 1];
        let literal = format!("\"command\":{open}");
        JsRegex {
            source: format!("{}(?:[\\s\"]|\\\\\")", escape_js(&literal)),
            re: std::sync::Arc::new(Engine::Prefix(
                memchr::memmem::Finder::new(literal.as_bytes()).into_owned(),
            )),
            word_boundary: false,
        }
    }

    /// The literal a `commandPrefix` regex needs in its subject (`None`
    /// for any other regex): a subject without it never matches.
    pub fn required_literal(&self) -> Option<&[u8]> {
        match &*self.re {
            Engine::Prefix(finder) => Some(finder.needle()),
            Engine::Fancy(_) => None,
        }
    }

    /// `regex.test(subject)`, or why it cannot be answered.
    pub fn test(&self, subject: &str) -> Result<bool, Unknown> {
        let re = match &*self.re {
            Engine::Prefix(finder) => {
                let n = finder.needle().len();
                return Ok(finder.find_iter(subject.as_bytes()).any(|i| {
                    // The literal is whole characters: `i + n` is a boundary.
                    let mut rest = subject[i + n..].chars();
                    match rest.next() {
                        Some('"') => true,
                        Some('\\') => rest.next() == Some('"'),
                        Some(c) => super::js_space(c),
                        None => false,
                    }
                }));
            }
            Engine::Fancy(re) => re,
        };
        self.test_fancy(re, subject, !subject.is_ascii())
    }

    /// `test` with what is known of the subject: whether it has any
    /// character beyond ASCII (then the checks JavaScript's UTF-16 units
    /// and `\b` need are made).
    pub fn test_known(&self, subject: &str, non_ascii: bool) -> Result<bool, Unknown> {
        match &*self.re {
            Engine::Fancy(re) => self.test_fancy(re, subject, non_ascii),
            Engine::Prefix(_) => self.test(subject),
        }
    }

    fn test_fancy(
        &self,
        re: &fancy_regex::Regex,
        subject: &str,
        non_ascii: bool,
    ) -> Result<bool, Unknown> {
        if non_ascii && subject.chars().any(|c| c as u32 > 0xFFFF) {
            return Err(Unknown(format!(
                "`{}` over text with characters outside the BMP (JavaScript counts UTF-16 units)",
                self.source
            )));
        }
        if self.word_boundary && non_ascii {
            return Err(Unknown(format!(
                "`{}`: `\\b` over non-ASCII text",
                self.source
            )));
        }
        re.is_match(subject)
            .map_err(|e| Unknown(format!("`{}` could not finish: {e}", self.source)))
    }
}

/// `isSafeRegExp`: the CLI drops a rule whose regex is longer than 2048
/// UTF-16 units or has a quantified group holding a quantifier.
pub fn is_safe(src: &str) -> bool {
    static NESTED: OnceLock<regex::Regex> = OnceLock::new();
    if src.encode_utf16().count() > 2048 {
        return false;
    }
    let nested = NESTED.get_or_init(|| {
        regex::Regex::new(r"\([^)]*[*+?{][^\n\r\x{2028}\x{2029}]*\)[*+?{]").unwrap()
    });
    !nested.is_match(src)
}

/// `escapeRegex` of the policy utilities.
pub fn escape_js(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if "-[]{}()*+?.,\\^$|#\"".contains(c) || super::js_space(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(p: &str, s: &str) -> bool {
        JsRegex::new(p).unwrap().test(s).unwrap()
    }

    #[test]
    fn javascript_semantics() {
        assert!(t(r"\d+", "a12"));
        assert!(!t(r"^\d$", "٣"));
        assert!(t(r"a{", "a{"));
        assert!(t(r"x{2}", "xx"));
        assert!(t(r"[[]", "["));
        assert!(t(r"\/", "/"));
        assert!(!t(r"a.b", "a\nb"));
        assert!(t(r"[^]", "\n"));
        assert!(!t(r"[]", "a"));
        assert!(t(r"(?<n>a)\1", "aa"));
        assert!(t(r"\x00\u0041", "\0A"));
        assert!(t(r"\z", "z"));
        assert!(t(r"a(?=b)", "ab"));
        assert!(t(r"[\d-x]", "-"));
    }

    #[test]
    fn what_javascript_refuses() {
        assert!(matches!(JsRegex::new("(?i)a"), Err(Refused::Invalid(_))));
        assert!(matches!(JsRegex::new("*a"), Err(Refused::Invalid(_))));
        assert!(matches!(JsRegex::new("[a"), Err(Refused::Invalid(_))));
    }

    #[test]
    fn a_prefix_matches_as_its_regex() {
        for prefix in ["git", "git push", "a\"b", "x\\y", "npm test"] {
            let fast = JsRegex::command_prefix(prefix);
            let slow = JsRegex::compile(&fast.source).unwrap();
            for cmd in [
                "git",
                "git push",
                "git pushx",
                "gitx",
                "git  push",
                "a\"b c",
                "x\\y",
                "npm test\t-x",
                "npm testing",
                "echo git",
            ] {
                let subject = format!(
                    "{{\u{0}\"command\":{}\u{0}}}",
                    serde_json::to_string(cmd).unwrap()
                );
                assert_eq!(fast.test(&subject), slow.test(&subject), "{prefix} / {cmd}");
            }
        }
    }

    #[test]
    fn the_clis_safety_check() {
        assert!(!is_safe("(a+)+"));
        assert!(is_safe("a+b"));
        assert!(!is_safe(&"a".repeat(2049)));
    }

    #[test]
    fn runaway_matches_are_unknown() {
        // A backreference makes the match backtrack (the regex crate runs
        // the rest in linear time).
        let r = JsRegex::new(r"(a|a)*\1c").unwrap();
        assert!(r.test(&"a".repeat(40)).is_err());
    }
}
