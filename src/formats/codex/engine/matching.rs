//! Which rules match one argv, as Codex's policy matches: the rules keyed
//! on the argv's first word exactly; when none of them matches, the rules
//! of the first word's basename (`/usr/bin/git` → `git`), unless a
//! `host_executable` for that name lists paths and the program is not one
//! of them.

use crate::formats::codex::model::rules::{HostTable, PrefixRule, normalize_absolute};

/// The rules of `rules` that match `argv` (index, matched prefix length),
/// in rule order.
pub fn matching(rules: &[&PrefixRule], argv: &[String], hosts: &HostTable) -> Vec<(usize, usize)> {
    let Some(first) = argv.first() else {
        return Vec::new();
    };
    let exact: Vec<(usize, usize)> = rules
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.matches(argv, first).map(|n| (i, n)))
        .collect();
    if !exact.is_empty() {
        return exact;
    }
    let Some(base) = std::path::Path::new(first)
        .file_name()
        .and_then(|n| n.to_str())
    else {
        return Vec::new();
    };
    if let Some((_, paths)) = hosts.iter().find(|(n, _)| n == base) {
        // A relative program resolves against the session's folder, which
        // a listed path (absolute) names only by chance: not listed.
        if !first.starts_with('/') || !paths.contains(&normalize_absolute(first)) {
            return Vec::new();
        }
    }
    rules
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.matches(argv, base).map(|n| (i, n)))
        .collect()
}

/// The length of the prefix `rule` alone matches (as a policy of one rule).
pub fn match_rule(rule: &PrefixRule, argv: &[String], hosts: &HostTable) -> Option<usize> {
    matching(&[rule], argv, hosts).first().map(|(_, n)| *n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::codex::model::rules::Decision;

    fn rule(first: &str, rest: &[&str]) -> PrefixRule {
        PrefixRule {
            first: first.into(),
            rest: rest.iter().map(|t| vec![t.to_string()]).collect(),
            decision: Decision::Forbidden,
            justification: None,
            call: 0..0,
            call_index: 0,
        }
    }

    fn argv(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_string).collect()
    }

    #[test]
    fn basename_fallback_and_host_executables() {
        let r = rule("git", &["push"]);
        let none: HostTable = Vec::new();
        for cmd in ["git push", "/usr/bin/git push x", "./git push"] {
            assert!(match_rule(&r, &argv(cmd), &none).is_some(), "{cmd}");
        }
        assert!(match_rule(&r, &argv("git pull"), &none).is_none());
        let listed: HostTable = vec![("git".into(), vec!["/opt/homebrew/bin/git".into()])];
        assert!(match_rule(&r, &argv("/opt/homebrew/bin/git push"), &listed).is_some());
        assert!(match_rule(&r, &argv("/usr/bin/git push"), &listed).is_none());
        assert!(match_rule(&r, &argv("./git push"), &listed).is_none());
        assert!(match_rule(&r, &argv("git push"), &listed).is_some());
        // A rule on an absolute program matches only that path.
        let abs = rule("/usr/bin/git", &["push"]);
        assert!(match_rule(&abs, &argv("/usr/bin/git push"), &none).is_some());
        assert!(match_rule(&abs, &argv("git push"), &none).is_none());
    }
}
