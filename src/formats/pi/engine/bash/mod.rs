//! Bash as the runtime sees it (spec §4.6): parsed with tree-sitter-bash
//! 0.25.1 — the runtime's own grammar — and split into command units, with
//! wrapper kinds, nesting contexts and path tokens.

pub mod paths;
pub mod tokens;

use super::check::CommandContext;
use tree_sitter::{Node, Tree};

/// Deeper nesting than this is not walked (the runtime's own recursion
/// would fail closed long before a real command gets there).
pub const MAX_DEPTH: usize = 256;

/// How a wrapper command hides what it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum WrapperKind {
    /// `eval`, `bash -c` …: `<opaque-bash-wrapper>`.
    OpaquePayload,
    /// `sudo`, `env`, `xargs`, `find -exec` …: `<indirection-bash-wrapper>`.
    Indirection,
}

impl WrapperKind {
    pub fn sentinel(self) -> &'static str {
        match self {
            WrapperKind::OpaquePayload => "<opaque-bash-wrapper>",
            WrapperKind::Indirection => "<indirection-bash-wrapper>",
        }
    }
}

/// One unit the runtime matches separately.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct CommandUnit {
    pub text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<CommandContext>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wrapper: Option<WrapperKind>,
}

pub use crate::syntax::bash::parse;

pub(crate) fn text<'a>(node: Node<'_>, src: &'a str) -> &'a str {
    src.get(node.start_byte()..node.end_byte()).unwrap_or("")
}

/// The command units of a parsed program (`collectCommands`).
pub fn command_units(tree: &Tree, src: &str) -> Vec<CommandUnit> {
    let mut out = Vec::new();
    collect(tree.root_node(), None, src, &mut out, 0);
    out
}

/// [`command_units`], and from 25.2.2 also the commands of substitutions in
/// redirect destinations and interpolating here-document bodies
/// (`echo hi > $(rm x)`, `cat <<EOF` with `$(rm x)` in the body), which
/// really run and which 20.7.3 never sees.
pub fn command_units_as(tree: &Tree, src: &str, execution_hosts: bool) -> Vec<CommandUnit> {
    let mut out = command_units(tree, src);
    if execution_hosts {
        host_substitutions(tree.root_node(), src, &mut out, 0);
    }
    out
}

fn host_substitutions(node: Node<'_>, src: &str, out: &mut Vec<CommandUnit>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match node.kind() {
        // A command's whole subtree was searched with it.
        "command" => {}
        "file_redirect" | "heredoc_redirect" | "herestring_redirect" | "heredoc_body" => {
            collect_substitutions(node, src, out, depth + 1)
        }
        _ => {
            let mut cursor = node.walk();
            for child in node.children(&mut cursor) {
                host_substitutions(child, src, out, depth + 1);
            }
        }
    }
}

fn collect(
    node: Node<'_>,
    context: Option<CommandContext>,
    src: &str,
    out: &mut Vec<CommandUnit>,
    depth: usize,
) {
    if !node.is_named() || depth > MAX_DEPTH {
        return;
    }
    match node.kind() {
        "file_redirect"
        | "heredoc_redirect"
        | "herestring_redirect"
        | "comment"
        | "heredoc_body"
        | "heredoc_end" => {}
        "command" => {
            out.push(CommandUnit {
                text: command_unit_text(node, src).to_string(),
                context,
                wrapper: classify_wrapper(node, src),
            });
            collect_substitutions(node, src, out, depth + 1);
        }
        "subshell" => {
            out.push(CommandUnit {
                text: text(node, src).to_string(),
                context,
                wrapper: None,
            });
            descend(node, Some(CommandContext::Subshell), src, out, depth + 1);
        }
        "program" | "list" | "pipeline" | "redirected_statement" => {
            descend(node, context, src, out, depth + 1)
        }
        _ => out.push(CommandUnit {
            text: text(node, src).to_string(),
            context,
            wrapper: None,
        }),
    }
}

fn descend(
    node: Node<'_>,
    context: Option<CommandContext>,
    src: &str,
    out: &mut Vec<CommandUnit>,
    depth: usize,
) {
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        collect(child, context, src, out, depth);
    }
}

fn collect_substitutions(node: Node<'_>, src: &str, out: &mut Vec<CommandUnit>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        match child.kind() {
            "command_substitution" => descend(
                child,
                Some(CommandContext::CommandSubstitution),
                src,
                out,
                depth + 1,
            ),
            "process_substitution" => descend(
                child,
                Some(CommandContext::ProcessSubstitution),
                src,
                out,
                depth + 1,
            ),
            _ => collect_substitutions(child, src, out, depth + 1),
        }
    }
}

/// The command's text from its first non-assignment named child on.
fn command_unit_text<'a>(node: Node<'_>, src: &'a str) -> &'a str {
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        if child.is_named() && child.kind() != "variable_assignment" {
            return src.get(child.start_byte()..node.end_byte()).unwrap_or("");
        }
    }
    text(node, src)
}

const SHELLS: [&str; 5] = ["bash", "sh", "dash", "zsh", "ksh"];
const INDIRECTION: [&str; 15] = [
    "sudo",
    "env",
    "xargs",
    "time",
    "nohup",
    "timeout",
    "nice",
    "parallel",
    "rust-parallel",
    "rush",
    "doas",
    "setsid",
    "stdbuf",
    "watch",
    "flock",
];

/// Could a command whose name is `name` be a wrapper? (Names outside this
/// set never are, whatever their arguments.)
pub fn may_be_wrapper(name: &str) -> bool {
    let name = name.rsplit('/').next().unwrap_or(name);
    name == "eval"
        || name == "find"
        || name == "fd"
        || SHELLS.contains(&name)
        || INDIRECTION.contains(&name)
}

fn classify_wrapper(node: Node<'_>, src: &str) -> Option<WrapperKind> {
    let mut name: Option<&str> = None;
    let mut args: Vec<&str> = Vec::new();
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        if !child.is_named() || child.kind() == "variable_assignment" {
            continue;
        }
        let t = text(child, src);
        if name.is_none() {
            name = Some(t.rsplit('/').next().unwrap_or(t));
        } else {
            args.push(t);
        }
    }
    let name = name?;
    if name == "eval" {
        return Some(WrapperKind::OpaquePayload);
    }
    if SHELLS.contains(&name) && has_short_flag_c(&args) {
        return Some(WrapperKind::OpaquePayload);
    }
    if INDIRECTION.contains(&name) {
        return Some(WrapperKind::Indirection);
    }
    let exec: &[&str] = match name {
        "find" => &["-exec", "-execdir", "-ok", "-okdir"],
        "fd" => &["-x", "--exec", "-X", "--exec-batch"],
        _ => &[],
    };
    if args.iter().any(|a| exec.contains(a)) {
        return Some(WrapperKind::Indirection);
    }
    None
}

fn has_short_flag_c(args: &[&str]) -> bool {
    for a in args {
        if *a == "--" {
            return false;
        }
        if a.starts_with('-') && !a.starts_with("--") && a.contains('c') {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units(cmd: &str) -> Vec<String> {
        let tree = parse(cmd).unwrap();
        command_units(&tree, cmd)
            .into_iter()
            .map(|u| u.text)
            .collect()
    }

    #[test]
    fn observed_decompositions() {
        assert_eq!(
            units("a | b && c || d; e & f\ng"),
            ["a", "b", "c", "d", "e", "f", "g"]
        );
        assert_eq!(units("x=$(rm y)"), ["x=$(rm y)"]);
        assert_eq!(units("X=1 Y=$(rm z) cmd"), ["cmd", "rm z"]);
        assert_eq!(units("echo ${x:-$(rm y)}"), ["echo ${x:-$(rm y)}", "rm y"]);
        assert_eq!(units("rm x > $(rm y)"), ["rm x"]);
        assert_eq!(units("git status; # c"), ["git status"]);
        assert_eq!(units("cat <<EOF\nrm -rf /\nEOF"), ["cat"]);
        assert!(units("> out.txt").is_empty());
        assert!(units("# c").is_empty());
    }
}
