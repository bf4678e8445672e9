//! A rule and which rules match one argv, as Codex's policy matches: the
//! rules keyed on the argv's first word exactly; when none of them
//! matches, the rules of the first word's basename (`/usr/bin/git` →
//! `git`), unless a `host_executable` for that name lists paths and the
//! program is not one of them.

use std::ops::Range;

/// A rule's decision, in Codex's order: the strictest is the greatest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Decision {
    Allow,
    Prompt,
    Forbidden,
}

impl Decision {
    /// Codex's spelling (`allow`, `prompt`, `forbidden`): exactly these,
    /// case and all.
    pub fn parse(s: &str) -> Option<Decision> {
        match s {
            "allow" => Some(Decision::Allow),
            "prompt" => Some(Decision::Prompt),
            "forbidden" => Some(Decision::Forbidden),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Prompt => "prompt",
            Decision::Forbidden => "forbidden",
        }
    }

    /// As Codex prints it in its errors (`Prompt`).
    pub fn debug_name(self) -> &'static str {
        match self {
            Decision::Allow => "Allow",
            Decision::Prompt => "Prompt",
            Decision::Forbidden => "Forbidden",
        }
    }
}

/// One rule: a `prefix_rule` call with several first tokens makes one rule
/// per first token, as in Codex.
#[derive(Debug, Clone, PartialEq)]
pub struct PrefixRule {
    /// The program (the first argv word) the rule is keyed on.
    pub first: String,
    /// The other tokens, each a list of alternatives.
    pub rest: Vec<Vec<String>>,
    pub decision: Decision,
    pub justification: Option<String>,
    /// The `prefix_rule(…)` call in the file (the call site that ran it).
    pub call: Range<usize>,
    /// The call's order among the file's `prefix_rule` calls.
    pub call_index: usize,
}

impl PrefixRule {
    /// The argv prefix this rule matches, or `None`.
    pub fn matches(&self, argv: &[String], first: &str) -> Option<usize> {
        let n = self.rest.len() + 1;
        if argv.len() < n || first != self.first {
            return None;
        }
        self.rest
            .iter()
            .zip(&argv[1..n])
            .all(|(alts, w)| alts.iter().any(|a| a == w))
            .then_some(n)
    }

    /// The pattern as people read it: `git push`, `git [push|fetch]`.
    pub fn display(&self) -> String {
        let word = |w: &String| {
            if w.is_empty() || w.contains(char::is_whitespace) {
                format!("\"{w}\"")
            } else {
                w.clone()
            }
        };
        let mut out = vec![word(&self.first)];
        for t in &self.rest {
            if t.len() == 1 {
                out.push(word(&t[0]));
            } else {
                out.push(format!(
                    "[{}]",
                    t.iter().map(word).collect::<Vec<_>>().join("|")
                ));
            }
        }
        out.join(" ")
    }
}

/// Host executables declared by the files read before (Codex's parser is
/// shared by every file of a session).
pub type HostTable = Vec<(String, Vec<String>)>;

/// An absolute path with `.` and `..` resolved lexically (as Codex's
/// absolute paths are compared).
pub fn normalize_absolute(raw: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for c in raw.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    format!("/{}", parts.join("/"))
}

/// Rules by the program they are keyed on, as Codex keeps them: a lookup
/// per command instead of a pass over every rule.
#[derive(Debug, Default)]
pub struct RuleIndex<'a>(std::collections::HashMap<&'a str, Vec<usize>>);

impl<'a> RuleIndex<'a> {
    pub fn new(rules: &[&'a PrefixRule]) -> RuleIndex<'a> {
        let mut map: std::collections::HashMap<&'a str, Vec<usize>> = Default::default();
        for (i, r) in rules.iter().enumerate() {
            map.entry(r.first.as_str()).or_default().push(i);
        }
        RuleIndex(map)
    }

    /// The rules keyed on `program`, in rule order.
    pub fn keyed_on(&self, program: &str) -> &[usize] {
        self.0.get(program).map_or(&[], Vec::as_slice)
    }
}

/// The rules of `rules` that match `argv` (index, matched prefix length),
/// in rule order.
pub fn matching(rules: &[&PrefixRule], argv: &[String], hosts: &HostTable) -> Vec<(usize, usize)> {
    matching_indexed(rules, &RuleIndex::new(rules), argv, hosts)
}

/// `matching`, with the rules' index (`RuleIndex::new(rules)`).
pub fn matching_indexed(
    rules: &[&PrefixRule],
    index: &RuleIndex<'_>,
    argv: &[String],
    hosts: &HostTable,
) -> Vec<(usize, usize)> {
    let Some(first) = argv.first() else {
        return Vec::new();
    };
    let keyed = |program: &str| -> Vec<(usize, usize)> {
        index
            .keyed_on(program)
            .iter()
            .filter_map(|&i| rules[i].matches(argv, program).map(|n| (i, n)))
            .collect()
    };
    let exact = keyed(first);
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
    keyed(base)
}

/// The length of the prefix `rule` alone matches (as a policy of one rule).
pub fn match_rule(rule: &PrefixRule, argv: &[String], hosts: &HostTable) -> Option<usize> {
    matching(&[rule], argv, hosts).first().map(|(_, n)| *n)
}

#[cfg(test)]
mod tests {
    use super::*;

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
