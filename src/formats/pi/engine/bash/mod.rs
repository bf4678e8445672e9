//! Bash as the runtime sees it (spec §4.6): parsed with tree-sitter-bash
//! 0.25.1 — the runtime's own grammar — and split into command units, with
//! wrapper kinds, nesting contexts and path tokens.

pub mod direction;
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
    /// What a wrapper unit runs (`sudo aws s3 ls` → `aws s3 ls`), shown by
    /// the runtime in its prompt and review log, never gated (observed on
    /// 26.3.1; absent on 20.7.3).
    #[serde(rename = "executedUnit", skip_serializing_if = "Option::is_none")]
    pub executed_unit: Option<String>,
}

pub use crate::syntax::bash::parse;

pub(crate) fn text<'a>(node: Node<'_>, src: &'a str) -> &'a str {
    src.get(node.start_byte()..node.end_byte()).unwrap_or("")
}

/// The first command of a program, in source order.
pub(crate) fn first_command(tree: &Tree) -> Option<Node<'_>> {
    let mut stack = vec![tree.root_node()];
    while let Some(n) = stack.pop() {
        if n.kind() == "command" {
            return Some(n);
        }
        let mut c = n.walk();
        let children: Vec<Node<'_>> = n.named_children(&mut c).collect();
        stack.extend(children.into_iter().rev());
    }
    None
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
                executed_unit: None,
            });
            collect_substitutions(node, src, out, depth + 1);
        }
        "subshell" => {
            out.push(CommandUnit {
                text: text(node, src).to_string(),
                context,
                wrapper: None,
                executed_unit: None,
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
            executed_unit: None,
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
pub(crate) fn command_unit_text<'a>(node: Node<'_>, src: &'a str) -> &'a str {
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

/// What a wrapper unit runs, as 26.3.1 shows it: wrappers unwrapped (at
/// most four layers) past their own options, environment assignments and
/// leading operands; a shell's `-c` payload or `eval`'s argument unquoted;
/// a `find -exec` clause up to its `;`/`+`. `None` when it cannot be
/// established or adds nothing over the unit (the runtime shows nothing
/// rather than a guess).
pub fn executed_unit(unit: &str) -> Option<String> {
    let tree = parse(unit).ok()?;
    let command = first_command(&tree)?;
    let mut words: Vec<(String, usize)> = Vec::new();
    let mut c = command.walk();
    for child in command.children(&mut c) {
        if !child.is_named()
            || child.kind() == "variable_assignment"
            || child.kind().ends_with("redirect")
        {
            continue;
        }
        words.push((text(child, unit).to_string(), child.start_byte()));
    }
    let mut current_text = unit.get(words.first()?.1..)?.to_string();
    let base = words.first()?.1;
    for w in &mut words {
        w.1 -= base;
    }
    for _ in 0..4 {
        let Some(kind) = wrapper_of_words(&words) else {
            break;
        };
        if kind == WrapperKind::OpaquePayload {
            let args: Vec<&str> = words[1..].iter().map(|(t, _)| t.as_str()).collect();
            let at = short_flag_c_index(&args).map_or(0, |i| i + 1);
            let payload = args.get(at).map(|p| unquote(p).to_string());
            return nothing_new(payload, unit);
        }
        let Some(start) = inner_command_index(&words).filter(|s| *s < words.len()) else {
            break;
        };
        let end = words
            .iter()
            .enumerate()
            .skip(start)
            .find(|(_, (t, _))| matches!(t.trim_start_matches('\\'), ";" | "+"))
            .map_or(words.len(), |(i, _)| i);
        let from = words[start].1;
        let sliced = match words.get(end) {
            Some(w) if end < words.len() => current_text.get(from..w.1).unwrap_or(""),
            _ => current_text.get(from..).unwrap_or(""),
        }
        .trim_end()
        .to_string();
        words = words[start..end]
            .iter()
            .map(|(t, o)| (t.clone(), o - from))
            .collect();
        current_text = sliced;
    }
    nothing_new(Some(current_text), unit)
}

/// Which floored wrappers a version lets through to the command they run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Transparency {
    /// A wrapper running a pure reader (27.1, documented).
    pub core_reader: bool,
    /// `time`, `timeout`, `nice`, `stdbuf`, `setsid` (39.1, documented).
    pub execution_modifiers: bool,
}

/// Why a wrapper unit is decided by the command it runs instead of being
/// floored (the runtime's `floorExemption`), with that command; `None` when
/// the floor stays. `writes` says the program writes through a redirect
/// (a pure reader behind a wrapper is not exempt then).
pub fn floor_exemption(
    unit: &str,
    t: Transparency,
    writes: bool,
) -> Option<(&'static str, String)> {
    let first = unit
        .split_whitespace()
        .find(|w| !w.contains('='))
        .unwrap_or("");
    if matches!(first, "watch" | "parallel" | "rush" | "rust-parallel") {
        return None;
    }
    let tree = parse(unit).ok()?;
    let wrapper = first_command(&tree).and_then(|n| classify_wrapper(n, unit));
    if wrapper != Some(WrapperKind::Indirection) {
        return None;
    }
    let inner = executed_unit(unit)?;
    if t.execution_modifiers && matches!(first, "time" | "timeout" | "nice" | "stdbuf" | "setsid") {
        return Some(("execution-modifier", inner));
    }
    if t.core_reader && !writes && direction::proves_read_text(&inner) {
        return Some(("core-reader", inner));
    }
    None
}

fn nothing_new(text: Option<String>, unit: &str) -> Option<String> {
    text.filter(|t| !t.is_empty() && t != unit && !t.starts_with('-'))
}

fn unquote(t: &str) -> &str {
    let quoted =
        (t.starts_with('\'') || t.starts_with('"')) && t.len() >= 2 && t.ends_with(&t[..1]);
    if quoted { &t[1..t.len() - 1] } else { t }
}

/// The wrapper kind of a command given as words (name first).
fn wrapper_of_words(words: &[(String, usize)]) -> Option<WrapperKind> {
    let name = words.first()?.0.as_str();
    let name = name.rsplit('/').next().unwrap_or(name);
    let args: Vec<&str> = words[1..].iter().map(|(t, _)| t.as_str()).collect();
    if name == "eval" {
        return Some(WrapperKind::OpaquePayload);
    }
    if SHELLS.contains(&name) && has_short_flag_c(&args) {
        return Some(WrapperKind::OpaquePayload);
    }
    if INDIRECTION.contains(&name) || exec_flag_index(name, &args).is_some() {
        return Some(WrapperKind::Indirection);
    }
    None
}

fn exec_flag_index(name: &str, args: &[&str]) -> Option<usize> {
    let exec: &[&str] = match name {
        "find" => &["-exec", "-execdir", "-ok", "-okdir"],
        "fd" => &["-x", "--exec", "-X", "--exec-batch"],
        _ => return None,
    };
    args.iter().position(|a| exec.contains(a))
}

/// Where the inner command starts: past the wrapper's options (and the
/// values of those that take one), environment assignments, `--`, and the
/// leading operand of `timeout` / `flock`; right after an exec flag.
fn inner_command_index(words: &[(String, usize)]) -> Option<usize> {
    let name = words.first()?.0.as_str();
    let name = name.rsplit('/').next().unwrap_or(name);
    let args: Vec<&str> = words[1..].iter().map(|(t, _)| t.as_str()).collect();
    if let Some(i) = exec_flag_index(name, &args) {
        return Some(i + 2);
    }
    let takes_value: &[&str] = match name {
        "sudo" => &["-u", "-g", "-p", "-C", "-h", "-U", "-r", "-t"],
        "doas" => &["-u", "-C"],
        "env" => &["-u", "-C", "--unset", "--chdir"],
        "xargs" => &["-n", "-P", "-I", "-i", "-d", "-E", "-L", "-l", "-s", "-a"],
        "timeout" => &["-s", "-k", "--signal", "--kill-after"],
        "nice" => &["-n", "--adjustment"],
        "time" => &["-o", "-f", "--output", "--format"],
        "stdbuf" => &["-i", "-o", "-e", "--input", "--output", "--error"],
        "watch" => &["-n", "--interval"],
        "flock" => &["-w", "-E", "--timeout", "--conflict-exit-code"],
        _ => &[],
    };
    let mut operand = matches!(name, "timeout" | "flock");
    let mut i = 1;
    while i < words.len() {
        let w = words[i].0.as_str();
        if w == "--" {
            return Some(i + 1);
        }
        let assignment = w.split_once('=').is_some_and(|(n, _)| {
            !n.is_empty()
                && n.chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        });
        if assignment {
            i += 1;
        } else if w.starts_with('-') {
            i += if takes_value.contains(&w) { 2 } else { 1 };
        } else if operand {
            operand = false;
            i += 1;
        } else {
            return Some(i);
        }
    }
    None
}

fn short_flag_c_index(args: &[&str]) -> Option<usize> {
    for (i, a) in args.iter().enumerate() {
        if *a == "--" {
            return None;
        }
        if a.starts_with('-') && !a.starts_with("--") && a.contains('c') {
            return Some(i);
        }
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

    /// What 26.3.1 reports as `executedUnit` (its own sources: the wrapper
    /// vectors of the conformance file through its vector driver, the rest
    /// through its gate pipeline), and where it reports none.
    #[test]
    fn executed_units_as_26_3_1_reports_them() {
        for (unit, want) in [
            ("bash -c \"rm -rf /\"", Some("rm -rf /")),
            ("sh -c \"rm -rf /\"", Some("rm -rf /")),
            ("eval \"rm -rf /\"", Some("rm -rf /")),
            ("/bin/bash -c \"rm -rf /\"", Some("rm -rf /")),
            ("bash -ec \"rm -rf /\"", Some("rm -rf /")),
            ("sudo aws s3 ls", Some("aws s3 ls")),
            ("env FOO=bar aws s3 ls", Some("aws s3 ls")),
            ("xargs rm -rf", Some("rm -rf")),
            ("timeout 10 aws s3 ls", Some("aws s3 ls")),
            ("doas aws s3 ls", Some("aws s3 ls")),
            ("flock /tmp/lock aws s3 ls", Some("aws s3 ls")),
            ("find . -exec rm {} \\;", Some("rm {}")),
            ("fd -x rm", Some("rm")),
            ("sudo timeout 5 xargs grep foo", Some("grep foo")),
            ("sudo -u root -- ls", Some("ls")),
            ("sudo --weird ls", Some("ls")),
            ("nice -n 5 make", Some("make")),
            ("env -u X FOO=1 make build", Some("make build")),
            ("sudo", None),
            ("sudo -i", None),
            ("ls -la", None),
        ] {
            assert_eq!(executed_unit(unit).as_deref(), want, "{unit}");
        }
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
