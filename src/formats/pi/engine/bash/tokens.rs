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

/// A word's text with quotes removed and expansions kept verbatim.
pub(crate) fn resolve_node_text(node: Node<'_>, src: &str) -> String {
    match node.kind() {
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
                out.push_str(&resolve_node_text(child, src));
            }
            out
        }
        "concatenation" => {
            let mut out = String::new();
            let mut c = node.walk();
            for child in node.children(&mut c) {
                out.push_str(&resolve_node_text(child, src));
            }
            out
        }
        _ => text(node, src).to_string(),
    }
}

pub fn collect_path_candidate_tokens(node: Node<'_>, src: &str, depth: usize) -> Vec<String> {
    if is_skipped_subtree(node.kind()) || depth > MAX_DEPTH {
        return Vec::new();
    }
    match node.kind() {
        "command" => collect_command_tokens(node, src, depth),
        "file_redirect" => collect_redirect_tokens(node, src),
        _ => {
            let mut out = Vec::new();
            let mut c = node.walk();
            for child in node.children(&mut c) {
                out.extend(collect_path_candidate_tokens(child, src, depth + 1));
            }
            out
        }
    }
}

pub fn collect_redirect_tokens(node: Node<'_>, src: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut c = node.walk();
    for child in node.children(&mut c) {
        if is_arg_node(child.kind()) {
            out.push(resolve_node_text(child, src));
        }
    }
    out
}

pub fn extract_command_name(node: Node<'_>, src: &str) -> Option<String> {
    let mut c = node.walk();
    for child in node.children(&mut c) {
        if child.kind() == "command_name" {
            let t = resolve_node_text(child, src);
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

pub fn collect_command_tokens(node: Node<'_>, src: &str, depth: usize) -> Vec<String> {
    match extract_command_name(node, src).and_then(|n| pattern_command(&n)) {
        Some(cfg) => collect_pattern_command_tokens(node, src, &cfg, depth),
        None => collect_generic_command_tokens(node, src, depth),
    }
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
            out.extend(collect_path_candidate_tokens(child, src, depth + 1));
            continue;
        }
        let t = resolve_node_text(child, src);
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

fn collect_generic_command_tokens(node: Node<'_>, src: &str, depth: usize) -> Vec<String> {
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
            out.push(resolve_node_text(child, src));
            continue;
        }
        out.extend(collect_path_candidate_tokens(child, src, depth + 1));
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
pub fn option_values(node: Node<'_>, src: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut c = node.walk();
    for child in node.children(&mut c) {
        let kind = child.kind();
        if kind == "command_name" || kind == "variable_assignment" || !is_arg_node(kind) {
            continue;
        }
        let t = resolve_node_text(child, src);
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
