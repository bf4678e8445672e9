//! Path-candidate tokens of a bash program (spec §4.6.5): argument words of
//! every command (command names and assignments skipped), redirect targets,
//! and the pattern/script arguments of sed, awk, grep, rg and sd skipped.

use super::{MAX_DEPTH, text};
use tree_sitter::Node;

pub(crate) fn is_arg_node(kind: &str) -> bool {
    matches!(kind, "word" | "concatenation" | "string" | "raw_string")
}

pub(crate) fn is_skipped_subtree(kind: &str) -> bool {
    matches!(kind, "heredoc_body" | "heredoc_end" | "comment")
}

/// How a version reads the text of tokens.
#[derive(Debug, Clone, Copy, Default)]
pub struct Reading<'a> {
    /// Each command's `--opt=value` values follow its tokens (23.0).
    pub option_values: bool,
    /// A plain `$HOME` / `${HOME}` expansion is this directory and `$PWD`
    /// is `.` (25.0, `resolvePlainVariableExpansion`); `None`: verbatim.
    pub home: Option<&'a str>,
    /// Commands run inside redirect targets and here-documents contribute
    /// their tokens (25.2.2, the runtime's execution hosts).
    pub execution_hosts: bool,
}

fn is_execution_host(kind: &str) -> bool {
    matches!(
        kind,
        "file_redirect" | "heredoc_redirect" | "herestring_redirect" | "heredoc_body"
    )
}

fn is_execution_context(kind: &str) -> bool {
    matches!(kind, "command_substitution" | "process_substitution")
}

/// The tokens of the commands `node` hosts, none of its own text
/// (`collectHostedExecutionTokens`): `node` itself when it is a
/// substitution, else every outermost substitution below it.
fn hosted_execution_tokens(node: Node<'_>, src: &str, depth: usize, r: Reading<'_>) -> Vec<String> {
    if is_execution_context(node.kind()) {
        return collect_path_candidate_tokens(node, src, depth, r);
    }
    let mut out = Vec::new();
    nested_executions(node, src, depth + 1, r, &mut out);
    out
}

fn nested_executions(
    node: Node<'_>,
    src: &str,
    depth: usize,
    r: Reading<'_>,
    out: &mut Vec<String>,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let mut c = node.walk();
    for child in node.children(&mut c) {
        if is_execution_context(child.kind()) {
            out.extend(collect_path_candidate_tokens(child, src, depth + 1, r));
        } else {
            nested_executions(child, src, depth + 1, r, out);
        }
    }
}

/// The variable of a plain `$NAME` / `${NAME}` expansion.
fn plain_variable<'s>(node: Node<'_>, src: &'s str) -> Option<&'s str> {
    let mut name = None;
    let mut c = node.walk();
    for child in node.children(&mut c) {
        match child.kind() {
            "variable_name" if name.is_none() => name = Some(text(child, src)),
            "$" | "${" | "}" => {}
            _ => return None,
        }
    }
    name
}

/// A word's text with quotes removed; expansions verbatim, or `$HOME` and
/// `$PWD` resolved when `home` is given.
pub(crate) fn resolve_node_text(node: Node<'_>, src: &str, home: Option<&str>) -> String {
    match node.kind() {
        "simple_expansion" | "expansion" if home.is_some() => {
            match (plain_variable(node, src), home) {
                (Some("HOME"), Some(h)) => h.to_string(),
                (Some("PWD"), _) => ".".to_string(),
                _ => text(node, src).to_string(),
            }
        }
        "raw_string" => {
            let t = text(node, src);
            if t.len() >= 2 && t.starts_with('\'') && t.ends_with('\'') {
                t[1..t.len() - 1].to_string()
            } else {
                t.to_string()
            }
        }
        "string" => {
            let mut out = String::new();
            let mut c = node.walk();
            for child in node.children(&mut c) {
                if child.kind() == "\"" {
                    continue;
                }
                out.push_str(&resolve_node_text(child, src, home));
            }
            out
        }
        "concatenation" => {
            let mut out = String::new();
            let mut c = node.walk();
            for child in node.children(&mut c) {
                out.push_str(&resolve_node_text(child, src, home));
            }
            out
        }
        _ => text(node, src).to_string(),
    }
}

/// The path candidates of a subtree. With `option_values` (23.0 on) each
/// command's `--opt=value` values follow its own tokens, as the runtime
/// collects them.
pub fn collect_path_candidate_tokens(
    node: Node<'_>,
    src: &str,
    depth: usize,
    r: Reading<'_>,
) -> Vec<String> {
    if depth > MAX_DEPTH {
        return Vec::new();
    }
    match node.kind() {
        "command" => collect_command_tokens(node, src, depth, r),
        "file_redirect" => collect_redirect_tokens(node, src, depth, r),
        // Before the skipped subtrees: a here-document body is one of them,
        // and its substitutions run.
        kind if r.execution_hosts && is_execution_host(kind) => {
            hosted_execution_tokens(node, src, depth, r)
        }
        kind if is_skipped_subtree(kind) => Vec::new(),
        _ => {
            let mut out = Vec::new();
            let mut c = node.walk();
            for child in node.children(&mut c) {
                out.extend(collect_path_candidate_tokens(child, src, depth + 1, r));
            }
            out
        }
    }
}

pub fn collect_redirect_tokens(
    node: Node<'_>,
    src: &str,
    depth: usize,
    r: Reading<'_>,
) -> Vec<String> {
    let mut out = Vec::new();
    let mut c = node.walk();
    for child in node.children(&mut c) {
        if is_arg_node(child.kind()) {
            out.push(resolve_node_text(child, src, r.home));
        }
        if r.execution_hosts {
            out.extend(hosted_execution_tokens(child, src, depth + 1, r));
        }
    }
    out
}

pub fn extract_command_name(node: Node<'_>, src: &str) -> Option<String> {
    let mut c = node.walk();
    for child in node.children(&mut c) {
        if child.kind() == "command_name" {
            let t = resolve_node_text(child, src, None);
            if t.is_empty() {
                return None;
            }
            return Some(t.rsplit('/').next().unwrap_or(&t).to_string());
        }
    }
    None
}

struct PatternCommand {
    arg_consuming: &'static [&'static str],
    file_consuming: &'static [&'static str],
    pattern_positionals: usize,
}

fn pattern_command(name: &str) -> Option<PatternCommand> {
    const GREP: &[&str] = &["-e", "-A", "-B", "-C", "-m"];
    const AWK: &[&str] = &["-e", "-F", "-v"];
    Some(match name {
        "sed" => PatternCommand {
            arg_consuming: &["-e", "-i"],
            file_consuming: &["-f"],
            pattern_positionals: 1,
        },
        "awk" | "gawk" | "nawk" => PatternCommand {
            arg_consuming: AWK,
            file_consuming: &["-f"],
            pattern_positionals: 1,
        },
        "grep" | "egrep" | "fgrep" => PatternCommand {
            arg_consuming: GREP,
            file_consuming: &["-f"],
            pattern_positionals: 1,
        },
        "rg" => PatternCommand {
            arg_consuming: &[
                "-e", "-A", "-B", "-C", "-m", "-g", "-t", "-T", "-j", "-M", "-r", "-E",
            ],
            file_consuming: &["-f"],
            pattern_positionals: 1,
        },
        "sd" => PatternCommand {
            arg_consuming: &["-n", "-f"],
            file_consuming: &[],
            pattern_positionals: 2,
        },
        _ => return None,
    })
}

pub fn collect_command_tokens(
    node: Node<'_>,
    src: &str,
    depth: usize,
    r: Reading<'_>,
) -> Vec<String> {
    let mut out = match extract_command_name(node, src).and_then(|n| pattern_command(&n)) {
        Some(cfg) => collect_pattern_command_tokens(node, src, &cfg, depth, r),
        None => collect_generic_command_tokens(node, src, depth, r),
    };
    if r.option_values {
        out.extend(option_values(node, src, r.home));
    }
    out
}

#[derive(PartialEq)]
enum Next {
    Skip,
    Extract,
}

fn collect_pattern_command_tokens(
    node: Node<'_>,
    src: &str,
    cfg: &PatternCommand,
    depth: usize,
    r: Reading<'_>,
) -> Vec<String> {
    let mut explicit_script = false;
    let mut positionals = 0usize;
    let mut next: Option<Next> = None;
    let mut past_flags = false;
    let mut out = Vec::new();
    let mut c = node.walk();
    for child in node.children(&mut c) {
        let kind = child.kind();
        if kind == "command_name" || kind == "variable_assignment" {
            continue;
        }
        if !is_arg_node(kind) {
            out.extend(collect_path_candidate_tokens(child, src, depth + 1, r));
            continue;
        }
        let t = resolve_node_text(child, src, r.home);
        match next.take() {
            Some(Next::Skip) => continue,
            Some(Next::Extract) => {
                out.push(t);
                continue;
            }
            None => {}
        }
        if !past_flags && kind == "word" && t.starts_with('-') && t.chars().count() > 1 {
            if t == "--" {
                past_flags = true;
            } else if cfg.arg_consuming.contains(&t.as_str()) {
                next = Some(Next::Skip);
                if t == "-e" || t == "-f" {
                    explicit_script = true;
                }
            } else if cfg.file_consuming.contains(&t.as_str()) {
                next = Some(Next::Extract);
                explicit_script = true;
            }
            continue;
        }
        if !explicit_script && positionals < cfg.pattern_positionals {
            positionals += 1;
            continue;
        }
        out.push(t);
    }
    out
}

fn collect_generic_command_tokens(
    node: Node<'_>,
    src: &str,
    depth: usize,
    r: Reading<'_>,
) -> Vec<String> {
    let mut out = Vec::new();
    let mut seen_name = false;
    let mut c = node.walk();
    for child in node.children(&mut c) {
        let kind = child.kind();
        if kind == "command_name" {
            seen_name = true;
            continue;
        }
        if kind == "variable_assignment" {
            continue;
        }
        if !seen_name && is_arg_node(kind) {
            seen_name = true;
            continue;
        }
        if is_arg_node(kind) {
            out.push(resolve_node_text(child, src, r.home));
            continue;
        }
        out.extend(collect_path_candidate_tokens(child, src, depth + 1, r));
    }
    out
}

/// Tokens that are never paths.
fn reject_non_path(token: &str) -> bool {
    if token.is_empty() || token.starts_with('-') {
        return true;
    }
    if let Some(eq) = token.find('=')
        && token.find('/').is_none_or(|slash| eq < slash)
    {
        return true;
    }
    if is_url(token) {
        return true;
    }
    if token.starts_with('@') && !token.starts_with("@/") {
        return true;
    }
    has_regex_metachar(token)
}

/// `/^[a-z][a-z0-9+.-]*:\/\//i`.
fn is_url(t: &str) -> bool {
    let b = t.as_bytes();
    if b.first().is_none_or(|c| !c.is_ascii_alphabetic()) {
        return false;
    }
    let mut i = 1;
    while i < b.len() && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'+' | b'.' | b'-')) {
        i += 1;
    }
    t[i..].starts_with("://")
}

/// `/\.\*|\.\+|\\\||\\\(|\\\)|\[.*?\]|\^\//`.
fn has_regex_metachar(t: &str) -> bool {
    if [".*", ".+", "\\|", "\\(", "\\)", "^/"]
        .iter()
        .any(|m| t.contains(m))
    {
        return true;
    }
    // `[` followed (on the same line) by a `]`.
    for (i, _) in t.match_indices('[') {
        let rest = &t[i + 1..];
        let line_end = rest.find('\n').unwrap_or(rest.len());
        if rest[..line_end].contains(']') {
            return true;
        }
    }
    false
}

fn is_drive_path(t: &str) -> bool {
    let b = t.as_bytes();
    b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && (b[2] == b'/' || b[2] == b'\\')
}

/// A token the external-directory gate looks at.
pub fn path_candidate(token: &str) -> Option<&str> {
    if reject_non_path(token) {
        return None;
    }
    (token.starts_with('/')
        || token.starts_with("~/")
        || token.contains("..")
        || is_drive_path(token))
    .then_some(token)
}

/// A token the bash `path` gate looks at (POSIX flavor).
pub fn rule_candidate(token: &str) -> Option<&str> {
    if reject_non_path(token) {
        return None;
    }
    (token.starts_with('.') || token.contains('/') || token.contains("..") || is_drive_path(token))
        .then_some(token)
}

/// A bare token promoted because a specific `path` deny/ask rule matches it.
pub fn promoted_candidate<'a>(
    token: &'a str,
    promotable: &dyn Fn(&str) -> bool,
) -> Option<&'a str> {
    if reject_non_path(token) {
        return None;
    }
    promotable(token).then_some(token)
}

/// The values of a command's `--opt=value` / `-o=value` arguments (one or
/// two dashes, a name without `=` or blanks, `=`, a non-empty value; the
/// first `=` separates), read from the argument nodes: pattern commands
/// never emit their flags as tokens (23.0 and later read them).
pub fn option_values(node: Node<'_>, src: &str, home: Option<&str>) -> Vec<String> {
    let mut out = Vec::new();
    let mut c = node.walk();
    for child in node.children(&mut c) {
        let kind = child.kind();
        if kind == "command_name" || kind == "variable_assignment" || !is_arg_node(kind) {
            continue;
        }
        let t = resolve_node_text(child, src, home);
        // `/^-{1,2}[^=\s]+=(.+)$/`: the name after one or two dashes is
        // not empty (`--=x` reads as `-` then the name `-`).
        let value = [t.strip_prefix("--"), t.strip_prefix('-')]
            .into_iter()
            .flatten()
            .find_map(|body| {
                let eq = body.find('=')?;
                (eq > 0 && !body[..eq].contains(char::is_whitespace) && eq + 1 < body.len())
                    .then(|| body[eq + 1..].to_string())
            });
        out.extend(value);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(cmd: &str, r: Reading<'_>) -> Vec<String> {
        let tree = super::super::parse(cmd).expect("parses");
        collect_path_candidate_tokens(tree.root_node(), cmd, 0, r)
    }

    const V20: Reading<'static> = Reading {
        option_values: false,
        home: None,
        execution_hosts: false,
    };
    const V26: Reading<'static> = Reading {
        option_values: true,
        home: Some("/home/u"),
        execution_hosts: true,
    };

    /// What 26.3.1 collects (its `collectPathCandidateTokens`, observed
    /// through the path gates of the 26.3.1 differential test).
    #[test]
    fn later_versions_read_more_out_of_tokens() {
        // A command's option values follow its own tokens, not the subtree's.
        assert_eq!(
            tokens("x=$(cat a; python3 s.py --out=/var/x; cd ..)", V26),
            ["a", "s.py", "--out=/var/x", "/var/x", ".."]
        );
        // grep's pattern is not a path; its `--file=` value is, from 23.0.
        assert!(tokens("grep --file=/p x y", V20) == ["y"]);
        assert_eq!(tokens("grep --file=/p x y", V26), ["y", "/p"]);
        // Plain $HOME / ${HOME} expansions anywhere in a word; $PWD is `.`.
        assert_eq!(
            tokens(
                "cat $HOME/.x \"${HOME}\"/y $PWD/../z '$HOME/q' x$HOMEX",
                V26
            ),
            ["/home/u/.x", "/home/u/y", "./../z", "$HOME/q", "x$HOMEX"]
        );
        assert_eq!(tokens("cat $HOME/.x", V20), ["$HOME/.x"]);
        // Commands in redirect targets and here-documents run (25.2.2).
        assert_eq!(tokens("echo hi > $(cat /etc/p)", V26), ["hi", "/etc/p"]);
        assert_eq!(tokens("echo hi > $(cat /etc/p)", V20), ["hi"]);
        assert_eq!(tokens("cat <<EOF\n$(cat /etc/s)\nEOF", V26), ["/etc/s"]);
        assert!(tokens("cat <<EOF\n$(cat /etc/s)\nEOF", V20).is_empty());
    }
}
