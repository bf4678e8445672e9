//! Findings about what a loaded rule's text says rather than how the CLI
//! reads it: path rules whose anchor is not what it looks like (a single
//! `/` is the project root, a Windows drive path, `$HOME` that never
//! expands) and secrets written into rules.

use super::rules::{List, Rule};
use crate::core::diagnostic::Diagnostic;
use crate::formats::claude::codes::Code;
use crate::formats::claude::lints::replace_rule;
use crate::syntax::json::Node;
use regex::RegexSet;
use std::sync::LazyLock;

/// First segments that name a system directory, not a project folder.
const SYSTEM_DIRS: &[&str] = &[
    "etc", "usr", "var", "tmp", "home", "Users", "opt", "root", "bin", "sbin", "dev", "proc",
    "sys", "private", "Library", "mnt", "srv", "boot", "lib", "Volumes", "System",
];

/// Findings for one loaded rule.
pub fn findings(rule: &str, r: &Rule<'_>, list: List, node: &Node, out: &mut Vec<Diagnostic>) {
    if let Some(c) = r.content
        && matches!(r.tool, "Read" | "Edit")
    {
        path_anchor(rule, r.tool, c, list, node, out);
    }
    secrets(rule, node, out);
}

fn path_anchor(
    rule: &str,
    tool: &str,
    c: &str,
    list: List,
    node: &Node,
    out: &mut Vec<Diagnostic>,
) {
    let lost = match list {
        List::Deny => "this deny does not protect that file",
        List::Ask => "Claude Code does not ask about that file",
        List::Allow => "this allow does not reach that file",
    };
    // `/etc/passwd`: the project's `etc/passwd`.
    if let Some(rest) = c.strip_prefix('/')
        && !rest.starts_with('/')
        && let Some(first) = rest.split('/').next()
        && SYSTEM_DIRS.contains(&first)
    {
        let fixed = format!("{tool}(/{c})");
        out.push(
            Diagnostic::new(
                Code::ProjectRootAnchor,
                node.range.clone(),
                format!(
                    "a single leading `/` is the settings file's project root (`~/.claude` in user settings), not the file-system root: this rule means `<project>{c}`, not `{c}` ({lost}); write `{fixed}` for the file-system path"
                ),
            )
            .with_fix(replace_rule(&node.range, format!("Use `{fixed}` (the file-system path)"), &fixed)),
        );
        return;
    }
    // `C:\Users\x`, `C:/Users/x`: relative on Linux and macOS; on Windows
    // the CLI normalises paths to `/c/Users/x`.
    let b = c.as_bytes();
    if b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && (b[2] == b'\\' || b[2] == b'/')
    {
        let drive = (b[0] as char).to_ascii_lowercase();
        let fixed = format!("{tool}(//{drive}/{})", c[3..].replace('\\', "/"));
        out.push(
            Diagnostic::new(
                Code::WindowsPath,
                node.range.clone(),
                format!(
                    "a Windows drive path: on Linux and macOS it is a relative pattern that matches nothing, and on Windows Claude Code compares paths in the form `/{drive}/…` (documented, not verified), so `{fixed}` is the rule that reaches `{c}` ({lost} as written)"
                ),
            )
            .with_fix(replace_rule(&node.range, format!("Use `{fixed}`"), &fixed)),
        );
        return;
    }
    // `$HOME/x`, `${HOME}/x`, `~user/x`: never expanded.
    let home_var = ["$HOME/", "${HOME}/"]
        .iter()
        .find_map(|p| c.strip_prefix(p));
    if let Some(rest) = home_var {
        let fixed = format!("{tool}(~/{rest})");
        out.push(
            Diagnostic::new(
                Code::UnexpandedHome,
                node.range.clone(),
                format!(
                    "`$HOME` is not expanded in a path rule: this rule is relative to the project and matches a folder named `$HOME` ({lost}); `~/` is the home directory"
                ),
            )
            .with_fix(replace_rule(&node.range, format!("Use `{fixed}`"), &fixed)),
        );
    } else if c.starts_with('~') && !c.starts_with("~/") && c != "~" {
        out.push(Diagnostic::new(
            Code::UnexpandedHome,
            node.range.clone(),
            format!(
                "only `~/` is the home directory in a path rule: `{rule}` is relative to the project and matches a folder named `{}` ({lost})",
                c.split('/').next().unwrap_or(c)
            ),
        ));
    }
}

/// Token shapes of the common providers (prefixes that only tokens have).
static SECRETS: LazyLock<(RegexSet, Vec<&'static str>)> = LazyLock::new(|| {
    let kinds: &[(&str, &str)] = &[
        (r"sk-ant-[A-Za-z0-9_-]{20,}", "an Anthropic API key"),
        (r"\bsk-(proj-)?[A-Za-z0-9_-]{32,}", "an OpenAI API key"),
        (r"\bgh[pousr]_[A-Za-z0-9]{30,}", "a GitHub token"),
        (r"github_pat_[A-Za-z0-9_]{40,}", "a GitHub token"),
        (r"\bglpat-[A-Za-z0-9_-]{20,}", "a GitLab token"),
        (r"\b(AKIA|ASIA)[0-9A-Z]{16}\b", "an AWS access key"),
        (r"\bxox[abpr]-[A-Za-z0-9-]{10,}", "a Slack token"),
        (r"\bAIza[0-9A-Za-z_-]{35}\b", "a Google API key"),
        (r"\b(sk|rk)_live_[0-9A-Za-z]{20,}", "a Stripe live key"),
        (r"-----BEGIN [A-Z ]*PRIVATE KEY-----", "a private key"),
        (r"(?i)\bBearer\s+[A-Za-z0-9._~+/=-]{20,}", "a bearer token"),
        (
            r#"(?i)\b[A-Z0-9_]*(PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY)=['"]?[^\s'"$]{8,}"#,
            "a password or token",
        ),
        (r"(?i)://[^/\s:@]+:[^/\s@$]{6,}@", "a password in a URL"),
    ];
    (
        RegexSet::new(kinds.iter().map(|(r, _)| *r)).expect("valid secret patterns"),
        kinds.iter().map(|(_, k)| *k).collect(),
    )
});

/// The longest rule text scanned for secrets.
const MAX_SCAN: usize = 64 * 1024;

fn secrets(rule: &str, node: &Node, out: &mut Vec<Diagnostic>) {
    if rule.len() > MAX_SCAN {
        return;
    }
    let (set, kinds) = &*SECRETS;
    if let Some(i) = set.matches(rule).iter().next() {
        out.push(Diagnostic::new(
            Code::SecretInRule,
            node.range.clone(),
            format!(
                "this rule contains what looks like {}: settings files are committed and shared (an approved command is saved here as typed), so treat it as exposed — rotate it, and allow the command without it",
                kinds[i]
            ),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::claude::model::rules::{self, Reading};

    fn codes(rule: &str, list: List) -> Vec<(String, String)> {
        let node = Node {
            range: 0..rule.len() + 2,
            value: crate::syntax::Value::String(rule.into()),
        };
        let Reading::Loaded(r, _) = rules::read(rule, list) else {
            panic!("{rule} does not load")
        };
        let mut out = Vec::new();
        findings(rule, &r, list, &node, &mut out);
        out.iter()
            .map(|d| {
                let fix = d
                    .fixes
                    .iter()
                    .find_map(|f| match f {
                        crate::core::diagnostic::Fix::Edit { edits, .. } => {
                            Some(edits[0].new_text.clone())
                        }
                        _ => None,
                    })
                    .unwrap_or_default();
                (d.code.as_str().to_string(), fix)
            })
            .collect()
    }

    #[test]
    fn anchors() {
        assert_eq!(
            codes("Read(/etc/passwd)", List::Deny),
            [("CC024".into(), "\"Read(//etc/passwd)\"".into())]
        );
        assert!(codes("Read(/docs/private.md)", List::Deny).is_empty());
        assert!(codes("Read(//etc/passwd)", List::Deny).is_empty());
        assert_eq!(
            codes("Read(C:\\Users\\me\\.ssh\\**)", List::Deny),
            [("CC025".into(), "\"Read(//c/Users/me/.ssh/**)\"".into())]
        );
        assert_eq!(
            codes("Edit($HOME/.bashrc)", List::Deny),
            [("CC026".into(), "\"Edit(~/.bashrc)\"".into())]
        );
        assert_eq!(codes("Read(~root/x)", List::Deny)[0].0, "CC026");
        assert!(codes("Read(~/x)", List::Deny).is_empty());
    }

    #[test]
    fn secrets_found_and_not() {
        for yes in [
            "Bash(curl -H \"Authorization: Bearer abcdefghijklmnopqrstuvwxyz123456\" https://x)",
            "Bash(export GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789)",
            "Bash(PGPASSWORD=hunter2hunter2 psql)",
            "Bash(git clone https://user:s3cretpass@host/repo)",
            "Bash(aws --key AKIAABCDEFGHIJKLMNOP)",
        ] {
            assert_eq!(codes(yes, List::Allow)[0].0, "CC027", "{yes}");
        }
        for no in [
            "Bash(npm run test:*)",
            "Bash(PGPASSWORD=$PGPASSWORD psql)",
            "Bash(git push origin main)",
            "Read(~/.ssh/**)",
        ] {
            assert!(codes(no, List::Allow).is_empty(), "{no}");
        }
    }
}
