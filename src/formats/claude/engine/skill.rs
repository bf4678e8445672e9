//! How Claude Code 2.1.332 matches a `Skill(…)` rule against the skill a
//! call loads (observed on the CLI; the cases are replayed from
//! `observed-skills.json`). Only deny rules with a content decide: an ask
//! or allow `Skill(name)` changes nothing, since the CLI loads a skill
//! without asking and reads no ask rule of the tool.
//!
//! - The call's name is trimmed and loses one leading `/`.
//! - `Skill(name)` (one leading `/` dropped) is that name exactly, case
//!   and all: `Skill(FOO)`, `Skill( foo)` and `Skill(f*)` do not deny
//!   `foo`; `Skill(f.o)` denies only `f.o`.
//! - `Skill(prefix:*)` and `Skill(prefix *)` are every name starting with
//!   the prefix: `Skill(fo:*)` denies `fo` and `foo`, `Skill(foo *)`
//!   denies `foo` and `foobar`, not `fo`.
//! - `Skill(skill:glob)` (blanks around `skill` and `:` allowed; the glob
//!   trimmed) is a glob where only `*` is special (any text): `skill:f*r`
//!   denies `foobar`; `skill:f?o` and `skill:f[o.]o` match only
//!   themselves; `SKILL:foo` is a plain name.

/// The name a call loads, as the CLI compares it.
pub fn call_name(raw: &str) -> &str {
    let t = raw.trim();
    t.strip_prefix('/').unwrap_or(t)
}

/// The glob of a `skill:` rule content, when it is one.
fn skill_glob(content: &str) -> Option<&str> {
    let rest = content.trim_start().strip_prefix("skill")?;
    Some(rest.trim_start().strip_prefix(':')?.trim())
}

/// Does a deny `Skill(content)` deny loading the skill `name` (as
/// [`call_name`] gives it)? The names [`algebra`] reads in the rule.
pub fn denies(content: &str, name: &str) -> bool {
    algebra(content).is_match(name)
}

/// The names a deny `Skill(content)` denies, as a pattern of the shared
/// algebra.
pub fn algebra(content: &str) -> crate::core::pattern_algebra::Pattern {
    use crate::core::pattern_algebra::Pattern;
    if let Some(glob) = skill_glob(content) {
        return Pattern::from_parts(&glob.split('*').collect::<Vec<_>>());
    }
    let rule = content.strip_prefix('/').unwrap_or(content);
    match rule.strip_suffix(":*").or_else(|| rule.strip_suffix(" *")) {
        // The bare prefix is a name too (`Skill(fo:*)` denies `fo`).
        Some(prefix) => Pattern::from_parts(&[prefix, ""]),
        None => Pattern::from_parts(&[rule]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_prefixes_and_globs_as_observed() {
        let d = |rule: &str, call: &str| denies(rule, call_name(call));
        assert!(d("foo", "foo") && d("/foo", "foo") && d("foo", "/foo") && d("foo", " foo"));
        assert!(!d("FOO", "foo") && !d(" foo", "foo") && !d("f*", "foo") && !d("f.o", "foo"));
        assert!(d("f.o", "f.o"));
        assert!(d("fo:*", "fo") && d("fo:*", "foo") && !d("fo:*", "bar"));
        assert!(d("foo *", "foo") && d("foo *", "foobar") && !d("foo *", "fo"));
        assert!(d(":*", "foo"));
        assert!(d("skill:f*", "foo") && !d("skill:f*", "bar"));
        assert!(d("skill:f*r", "foobar") && !d("skill:f*r", "foo"));
        assert!(!d("skill:f?o", "foo") && !d("skill:f?o", "f.o") && d("skill:f?o", "f?o"));
        assert!(!d("skill:f[o.]o", "foo"));
        assert!(d("skill: foo", "foo") && d(" skill : foo ", "foo") && !d("SKILL:foo", "foo"));
    }

    #[test]
    fn star_glob_ends() {
        let star_glob = |glob: &str, name: &str| denies(&format!("skill:{glob}"), name);
        assert!(star_glob("*", "") && star_glob("a*a", "aa") && !star_glob("a*a", "a"));
        assert!(star_glob("*b*", "abc") && !star_glob("*b*", "ac"));
        assert!(star_glob("a**", "a") && star_glob("", "") && !star_glob("", "x"));
    }

    #[test]
    fn the_algebra_reads_the_same_names() {
        let cases = [
            ("foo", "foo", true),
            ("f?o", "f.o", false),
            ("f?o", "f?o", true),
            ("fo:*", "foobar", true),
            ("foo *", "fo", false),
            ("skill:f*r", "foobar", true),
            ("skill:f[o]r", "for", false),
            ("/foo", "foo", true),
            ("f*", "foo", false),
            ("f*", "f*", true),
            ("fo:*", "fo", true),
        ];
        for (rule, name, want) in cases {
            let p = algebra(rule);
            assert_eq!(p.is_match(name), want, "{rule} {name}");
            assert_eq!(denies(rule, name), want, "{rule} {name}");
        }
    }
}
