//! A shell command as Gemini CLI 0.61.0 reads it: the parts the bash
//! grammar finds (`parseCommandDetails`), redirections, the `bash -c`
//! wrapper it strips, and the argument words `shell-quote` gives the
//! safety heuristics.

use crate::syntax::shell_quote::{self, Quoted};
use std::sync::OnceLock;
use tree_sitter::Node;

/// The names of the parts that are not commands.
pub const NOT_COMMANDS: &[&str] = &[
    "redirection (<)",
    "redirection (>)",
    "heredoc (<<)",
    "herestring (<<<)",
    "command substitution",
    "backtick substitution",
    "process substitution",
    "subshell",
];

/// One part of a command line.
#[derive(Debug, Clone, PartialEq)]
pub struct Detail {
    pub name: String,
    pub text: String,
    pub start: usize,
}

/// The parts, in source order, and whether the grammar found an error.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    pub details: Vec<Detail>,
    pub has_error: bool,
}

pub fn utf16_len(s: &str) -> usize {
    s.encode_utf16().count()
}

fn normalize_name(raw: &str) -> String {
    let cs: Vec<char> = raw.chars().collect();
    if cs.len() >= 2 {
        let (f, l) = (cs[0], cs[cs.len() - 1]);
        if (f == '"' && l == '"') || (f == '\'' && l == '\'') {
            return cs[1..cs.len() - 1].iter().collect();
        }
    }
    super::super::model::js_trim(raw).to_string()
}

fn name_of(node: Node, src: &str) -> Option<String> {
    let text = |n: Node| src.get(n.byte_range()).unwrap_or("").to_string();
    Some(match node.kind() {
        "command" => normalize_name(&text(node.child_by_field_name("name")?)),
        "declaration_command" | "unset_command" | "test_command" => {
            normalize_name(&text(node.child(0)?))
        }
        "file_redirect" => {
            let mut name = "redirection (>)";
            for i in 0..node.child_count() {
                let t = node.child(i).map(text).unwrap_or_default();
                if t.contains('<') {
                    name = "redirection (<)";
                    break;
                }
                if t.contains('>') {
                    break;
                }
            }
            name.to_string()
        }
        "heredoc_redirect" => "heredoc (<<)".into(),
        "herestring_redirect" => "herestring (<<<)".into(),
        "command_substitution" => "command substitution".into(),
        "process_substitution" => "process substitution".into(),
        "subshell" => "subshell".into(),
        _ => return None,
    })
}

/// `${x@P}` (a prompt transformation): the CLI reads it as an error.
fn has_prompt_transform(root: Node, src: &str) -> bool {
    let mut stack = vec![root];
    let mut seen = 0usize;
    while let Some(n) = stack.pop() {
        seen += 1;
        if seen > 200_000 {
            return true;
        }
        if n.kind() == "expansion" {
            for i in 0..n.child_count().saturating_sub(1) {
                let (a, b) = (n.child(i), n.child(i + 1));
                if let (Some(a), Some(b)) = (a, b)
                    && src.get(a.byte_range()) == Some("@")
                    && src
                        .get(b.byte_range())
                        .is_some_and(|t| t.eq_ignore_ascii_case("p"))
                {
                    return true;
                }
            }
        }
        for i in (0..n.named_child_count()).rev() {
            if let Some(c) = n.named_child(i) {
                stack.push(c);
            }
        }
    }
    false
}

/// `parseCommandDetails` (bash): `None` where the CLI gets no tree.
pub fn parse(command: &str) -> Option<Parsed> {
    if super::super::model::js_trim(command).is_empty() {
        return None;
    }
    let tree = crate::syntax::bash::parse(command).ok()?;
    let root = tree.root_node();
    let mut details = Vec::new();
    let mut stack = vec![root];
    let mut budget = 400_000usize;
    while let Some(n) = stack.pop() {
        budget = budget.checked_sub(1)?;
        if let Some(name) = name_of(n, command) {
            let text = command.get(n.byte_range()).unwrap_or("");
            details.push(Detail {
                name,
                text: super::super::model::js_trim(text).to_string(),
                start: n.start_byte(),
            });
        }
        for i in (0..n.child_count()).rev() {
            if let Some(c) = n.child(i) {
                stack.push(c);
            }
        }
    }
    let has_error = root.has_error() || details.is_empty() || has_prompt_transform(root, command);
    details.sort_by_key(|d| d.start);
    Some(Parsed { details, has_error })
}

/// `hasRedirection`.
pub fn has_redirection(command: &str) -> bool {
    if !command.contains(['<', '>']) {
        return false;
    }
    let Ok(tree) = crate::syntax::bash::parse(command) else {
        return true;
    };
    let mut stack = vec![tree.root_node()];
    while let Some(n) = stack.pop() {
        if matches!(
            n.kind(),
            "redirected_statement" | "file_redirect" | "heredoc_redirect" | "herestring_redirect"
        ) {
            return true;
        }
        for i in (0..n.child_count()).rev() {
            if let Some(c) = n.child(i) {
                stack.push(c);
            }
        }
    }
    false
}

/// `splitCommands`: the command parts' texts.
pub fn split_commands(command: &str) -> Vec<String> {
    match parse(command) {
        Some(p) if !p.has_error => p
            .details
            .into_iter()
            .filter(|d| !NOT_COMMANDS.contains(&d.name.as_str()))
            .map(|d| d.text)
            .filter(|t| !t.is_empty())
            .collect(),
        _ => Vec::new(),
    }
}

/// `stripShellWrapper`: `bash -c '…'` (and `sh`, `zsh`, `cmd.exe /c`,
/// PowerShell) to what it runs; otherwise the command trimmed.
pub fn strip_wrapper(command: &str) -> String {
    static WRAP: OnceLock<regex::Regex> = OnceLock::new();
    let re = WRAP.get_or_init(|| {
        regex::Regex::new(
            r"(?i)^\s*(?:(?:(?:\S+/)?(?:sh|bash|zsh))\s+-c|cmd\.exe\s+/c|powershell(?:\.exe)?\s+(?:-NoProfile\s+)?-Command|pwsh(?:\.exe)?\s+(?:-NoProfile\s+)?-Command)\s+",
        )
        .unwrap()
    });
    let Some(m) = re.find(command) else {
        return super::super::model::js_trim(command).to_string();
    };
    let mut inner = super::super::model::js_trim(&command[m.end()..]).to_string();
    let posix = m.as_str().trim_end().to_ascii_lowercase().ends_with("-c");
    let quoted = inner.chars().count() >= 2
        && ((inner.starts_with('"') && inner.ends_with('"'))
            || (inner.starts_with('\'') && inner.ends_with('\'')));
    if quoted {
        let strip = |s: &str| {
            let cs: Vec<char> = s.chars().collect();
            cs[1..cs.len() - 1].iter().collect::<String>()
        };
        if posix && inner.starts_with('"') {
            inner = match shell_quote::shell_quote_keeping_vars(&inner) {
                Ok(v) if v.len() == 1 && matches!(v[0], Quoted::Word(_)) => match &v[0] {
                    Quoted::Word(w) => w.clone(),
                    _ => unreachable!(),
                },
                _ => strip(&inner),
            };
        } else {
            inner = strip(&inner);
        }
    }
    inner
}

/// The argument words of `shell-quote`'s `parse` as the heuristics read
/// them (operators and glob patterns as text, a comment as ``), or
/// `None` where it throws.
pub fn words(command: &str) -> Option<Vec<String>> {
    let q = shell_quote::shell_quote(command).ok()?;
    Some(
        q.into_iter()
            .map(|t| match t {
                Quoted::Word(w) | Quoted::Op(w) | Quoted::Glob(w) => w,
                Quoted::Comment => String::new(),
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts() {
        let p = parse("git status && npm test").unwrap();
        let names: Vec<_> = p.details.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["git", "npm"]);
        assert!(has_redirection("echo a > b"));
        assert!(!has_redirection("echo a"));
        assert_eq!(strip_wrapper("bash -c 'git status'"), "git status");
        assert_eq!(strip_wrapper("sh -c \"echo $HOME\""), "echo $HOME");
    }
}
