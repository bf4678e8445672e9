//! OpenCode's wildcard (`util/wildcard.ts` in 1.18.33): both sides turn
//! `\` into `/`; `*` is any run of characters (across `/`), `?` exactly one
//! UTF-16 unit (the runtime's regex has no `u` flag), everything else
//! literal; the whole text must match; a pattern ending in ` *` also
//! matches what is before it alone (`git *` matches `git`). Case-sensitive
//! on Linux and macOS. The language is the shared wildcard algebra's, after
//! the slash normalisation.

use crate::core::pattern_algebra::{Pattern, PatternLanguage};

/// OpenCode's pattern language for the shared algebra.
pub struct Wildcard;

impl PatternLanguage for Wildcard {
    fn compile(&self, source: &str) -> Pattern {
        compile(source)
    }
}

/// The compiled form of a rule's pattern (or permission name).
pub fn compile(pattern: &str) -> Pattern {
    Pattern::from_expanded(&pattern.replace('\\', "/"))
}

/// Does `text` match the compiled pattern?
pub fn is_match(text: &str, pattern: &Pattern) -> bool {
    if text.contains('\\') {
        pattern.is_match(&text.replace('\\', "/"))
    } else {
        pattern.is_match(text)
    }
}

/// A value as the matcher reads it: UTF-16 units, `\` as `/`.
pub fn units(text: &str) -> Vec<u16> {
    text.encode_utf16()
        .map(|u| {
            if u == u16::from(b'\\') {
                u16::from(b'/')
            } else {
                u
            }
        })
        .collect()
}

/// Does `text` match `pattern` (compiled on the spot)?
pub fn matches(text: &str, pattern: &str) -> bool {
    is_match(text, &compile(pattern))
}

/// Is the pattern a catch-all (`*`, `**`, …)?
pub fn is_catch_all(pattern: &str) -> bool {
    !pattern.is_empty() && pattern.chars().all(|c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn observed_on_the_cli() {
        assert!(matches("git status", "git *"));
        assert!(matches("git", "git *"));
        assert!(!matches("gitx status", "git *"));
        assert!(matches("echo a", "echo ?"));
        assert!(!matches("echo ab", "echo ?"));
        assert!(matches("ls", "ls"));
        assert!(!matches("ls -a", "ls"));
        assert!(!matches("Git status", "git *"));
        assert!(matches("src/a/b.ts", "*.ts"));
        assert!(matches("a\\b", "a/b"));
        assert!(matches("x\ny", "x*"));
        assert!(matches("anything", "*"));
        assert!(matches("", "*"));
        assert!(!matches("x", ""));
        assert!(matches("a.b", "a.b"));
        assert!(!matches("axb", "a.b"));
        assert!(matches("(x)", "(x)"));
    }

    #[test]
    fn question_mark_is_one_utf16_unit() {
        assert!(!matches("😀", "?"));
        assert!(matches("😀", "??"));
        assert!(matches("é", "?"));
    }
}
