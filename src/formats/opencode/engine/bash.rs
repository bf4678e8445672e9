//! What OpenCode's bash tool checks for a command (1.18.33, `ShellTool`):
//! the command is parsed with the bash grammar; for every `command` node,
//! in document order, its text (the whole redirected statement when it has
//! redirections) is one `bash` pattern — except `cd`, `chdir`, `pushd`,
//! `popd` — and the path arguments of `cd rm cp mv mkdir touch chmod chown
//! cat` that lead outside the project add their folder to the
//! `external_directory` check. A path argument is unquoted, `~` expanded,
//! cut at its first glob character, and skipped when it holds `$`, a
//! substitution or starts with `(`.

use crate::formats::opencode::scopes::{Env, normalise};
use crate::syntax::bash::parse;
use std::path::{Path, PathBuf};
use tree_sitter::Node;

/// The checks a command leads to.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Collected {
    /// `bash` patterns, de-duplicated, in order.
    pub patterns: Vec<String>,
    /// Folders outside the project, de-duplicated, in order.
    pub dirs: Vec<PathBuf>,
}

const CHANGES_DIRECTORY: &[&str] = &[
    "cd",
    "chdir",
    "popd",
    "pushd",
    "push-location",
    "set-location",
];
const PATH_COMMANDS: &[&str] = &["rm", "cp", "mv", "mkdir", "touch", "chmod", "chown", "cat"];

/// The bash and folder checks of `command` run in `cwd`.
pub fn collect(command: &str, cwd: &Path, env: &Env) -> Collected {
    let mut out = Collected::default();
    let tree = match parse(command) {
        Ok(tree) => tree,
        Err(crate::syntax::bash::Unparsed::NoGrammar) => return out,
        Err(_) => {
            // Not parsed (a pipeline too long to recover from): the whole
            // line is the one pattern, so that only rules for every
            // command (`*`) decide it; the answer is marked incomplete.
            out.patterns.push(command.trim().to_string());
            return out;
        }
    };
    let mut commands = Vec::new();
    descendants(tree.root_node(), &mut commands);
    // Each pattern once, in order (a line of 20,000 parts stays linear).
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    for (node, in_redirect) in commands {
        let elements = elements(node, command);
        let Some(name) = elements.first().copied() else {
            continue;
        };
        if PATH_COMMANDS.contains(&name) || CHANGES_DIRECTORY.contains(&name) {
            for arg in &elements[1..] {
                if arg.starts_with('-') || (name == "chmod" && arg.starts_with('+')) {
                    continue;
                }
                if let Some(dir) = arg_dir(arg, cwd, env)
                    && !out.dirs.contains(&dir)
                {
                    out.dirs.push(dir);
                }
            }
        }
        if !CHANGES_DIRECTORY.contains(&name) {
            let whole = in_redirect.unwrap_or(node);
            let text = command
                .get(whole.start_byte()..whole.end_byte())
                .unwrap_or("")
                .trim_matches(|c: char| c.is_whitespace())
                .to_string();
            if seen.insert(text.clone()) {
                out.patterns.push(text);
            }
        }
    }
    out
}

/// Every `command` node, in document order (pre-order), with the
/// `redirected_statement` it is the direct child of (asking a node for its
/// parent walks down from the root: quadratic over a long `&&` chain).
fn descendants<'t>(node: Node<'t>, out: &mut Vec<(Node<'t>, Option<Node<'t>>)>) {
    let mut stack: Vec<(Node<'t>, Option<Node<'t>>)> = vec![(node, None)];
    while let Some((n, parent)) = stack.pop() {
        if n.kind() == "command" {
            out.push((n, parent.filter(|p| p.kind() == "redirected_statement")));
        }
        let mut c = n.walk();
        let children: Vec<Node<'t>> = n.children(&mut c).collect();
        stack.extend(children.into_iter().rev().map(|ch| (ch, Some(n))));
    }
}

/// The command's name and arguments as the runtime lists them: only
/// `command_name`, `word`, `string`, `raw_string` and `concatenation`
/// children count.
fn elements<'s>(node: Node<'_>, src: &'s str) -> Vec<&'s str> {
    let mut out = Vec::new();
    let mut c = node.walk();
    for child in node.children(&mut c) {
        if matches!(
            child.kind(),
            "command_name" | "word" | "string" | "raw_string" | "concatenation"
        ) {
            out.push(src.get(child.start_byte()..child.end_byte()).unwrap_or(""));
        }
    }
    out
}

/// The folder an argument leads to, when it is outside the project.
fn arg_dir(arg: &str, cwd: &Path, env: &Env) -> Option<PathBuf> {
    // Surrounding quotes of the same kind go.
    let unq = if arg.len() >= 2
        && ((arg.starts_with('"') && arg.ends_with('"'))
            || (arg.starts_with('\'') && arg.ends_with('\'')))
    {
        &arg[1..arg.len() - 1]
    } else {
        arg
    };
    let home = env.home.display().to_string();
    let expanded = if unq == "~" {
        home
    } else if let Some(rest) = unq.strip_prefix("~/").or_else(|| unq.strip_prefix("~\\")) {
        format!("{home}/{rest}")
    } else {
        unq.to_string()
    };
    // Cut at the first glob character; one at the start means no path.
    let cut = match expanded.find(['?', '*', '[']) {
        Some(0) => return None,
        Some(i) => &expanded[..i],
        None => &expanded[..],
    };
    if cut.is_empty()
        || cut.starts_with('(')
        || cut.starts_with("@(")
        || cut.contains("$(")
        || cut.contains("${")
        || cut.contains('`')
        || cut.contains('$')
    {
        return None;
    }
    let p = Path::new(cut);
    let abs = normalise(&if p.is_absolute() {
        p.to_path_buf()
    } else {
        cwd.join(p)
    });
    if env.contains(&abs) {
        return None;
    }
    Some(if abs.is_dir() {
        abs
    } else {
        abs.parent().map(Path::to_path_buf).unwrap_or(abs)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> Env {
        Env {
            home: "/home/u".into(),
            directory: "/work/p".into(),
            worktree: "/work/p".into(),
            config_dir: "/home/u/.config/opencode".into(),
            data_dir: "/home/u/.local/share/opencode".into(),
            tmp_dir: "/tmp/opencode".into(),
            vars: Vec::new(),
        }
    }

    #[test]
    fn each_command_is_a_pattern() {
        let e = env();
        let c = collect("echo a && git status | grep x > out.txt", &e.directory, &e);
        // In a pipeline the redirection belongs to the pipeline, not to
        // `grep x`; alone it is part of the command's text.
        assert_eq!(c.patterns, ["echo a", "git status", "grep x"]);
        let c = collect("git status > /dev/null", &e.directory, &e);
        assert_eq!(c.patterns, ["git status > /dev/null"]);
        let c = collect("cd /elsewhere && ls", &e.directory, &e);
        assert_eq!(c.patterns, ["ls"]);
        assert_eq!(c.dirs, [PathBuf::from("/")]);
        let c = collect("echo $(rm -rf x)", &e.directory, &e);
        assert_eq!(c.patterns, ["echo $(rm -rf x)", "rm -rf x"]);
    }

    #[test]
    fn folder_checks_only_for_path_commands() {
        let e = env();
        assert!(collect("ls /outside", &e.directory, &e).dirs.is_empty());
        let c = collect("cat /nonexistent-dir-xyz/x.md src/a.rs", &e.directory, &e);
        assert_eq!(c.dirs, [PathBuf::from("/nonexistent-dir-xyz")]);
        let c = collect("rm -rf ~/x/* $HOME/y \"/q/z\"", &e.directory, &e);
        assert_eq!(c.dirs, [PathBuf::from("/home/u"), PathBuf::from("/q")]);
        let c = collect("chmod +x /opt/t/run", &e.directory, &e);
        assert_eq!(c.dirs, [PathBuf::from("/opt/t")]);
    }
}
