//! How Codex reads the script of `bash -lc '<line>'` (tree-sitter-bash,
//! the grammar Codex parses with): split into its commands only when the
//! script is plain words — bare words, numbers, quoted strings without
//! expansions and their concatenations — joined by `&&`, `||`, `;`, `|` or
//! newlines. Anything else (a redirection, a subshell, `&`, `$VAR`,
//! `$( … )`, an assignment, control flow, a heredoc, a quoted or escaped
//! command name) leaves the line one command: `["/bin/bash", "-lc", line]`.
//!
//! For the dangerous-command check Codex also looks at every literal
//! command anywhere in a script it cannot split (`rm -rf x > /dev/null`).

use tree_sitter::Node;

/// The named node kinds a plain script may contain.
const PLAIN_KINDS: &[&str] = &[
    "program",
    "list",
    "pipeline",
    "command",
    "command_name",
    "word",
    "string",
    "string_content",
    "raw_string",
    "number",
    "concatenation",
];

/// The operator and quote tokens a plain script may contain.
const PLAIN_TOKENS: &[&str] = &["&&", "||", ";", "|", "\"", "'"];

/// The commands of a plain script (each an argv, quotes removed), or `None`
/// when Codex would not split it.
pub fn plain_commands(script: &str) -> Option<Vec<Vec<String>>> {
    let tree = crate::syntax::bash::parse(script).ok()?;
    let root = tree.root_node();
    if root.has_error() {
        return None;
    }
    let mut commands = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        let kind = node.kind();
        if node.is_named() {
            if !PLAIN_KINDS.contains(&kind) {
                return None;
            }
            if kind == "command" {
                commands.push(node);
            }
        } else if !PLAIN_TOKENS.contains(&kind) && !kind.trim().is_empty() {
            return None;
        }
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            stack.push(child);
        }
    }
    commands.sort_by_key(Node::start_byte);
    commands
        .into_iter()
        .map(|c| plain_words(c, script))
        .collect()
}

fn text<'s>(n: Node, src: &'s str) -> Option<&'s str> {
    src.get(n.start_byte()..n.end_byte())
}

fn plain_words(cmd: Node, src: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut cursor = cmd.walk();
    for child in cmd.named_children(&mut cursor) {
        match child.kind() {
            "command_name" => {
                let w = child.named_child(0)?;
                if w.kind() != "word" {
                    return None;
                }
                words.push(text(w, src)?.to_string());
            }
            "word" | "number" => words.push(text(child, src)?.to_string()),
            "string" => words.push(double_quoted(child, src)?),
            "raw_string" => words.push(single_quoted(child, src)?),
            "concatenation" => {
                let mut joined = String::new();
                let mut c2 = child.walk();
                for part in child.named_children(&mut c2) {
                    match part.kind() {
                        "word" | "number" => joined.push_str(text(part, src)?),
                        "string" => joined.push_str(&double_quoted(part, src)?),
                        "raw_string" => joined.push_str(&single_quoted(part, src)?),
                        _ => return None,
                    }
                }
                if joined.is_empty() {
                    return None;
                }
                words.push(joined);
            }
            _ => return None,
        }
    }
    Some(words)
}

fn double_quoted(n: Node, src: &str) -> Option<String> {
    let mut cursor = n.walk();
    if n.named_children(&mut cursor)
        .any(|p| p.kind() != "string_content")
    {
        return None;
    }
    let raw = text(n, src)?;
    Some(raw.strip_prefix('"')?.strip_suffix('"')?.to_string())
}

fn single_quoted(n: Node, src: &str) -> Option<String> {
    let raw = text(n, src)?;
    Some(raw.strip_prefix('\'')?.strip_suffix('\'')?.to_string())
}

/// Every command of a script whose name is a literal word, anywhere (in
/// lists, pipelines, control flow, substitutions, subshells), with its
/// arguments as written (quotes of plain strings removed): what the
/// dangerous-command check reads. `None` when the script has a syntax
/// error.
pub fn literal_commands(script: &str) -> Option<Vec<Vec<String>>> {
    let tree = crate::syntax::bash::parse(script).ok()?;
    let root = tree.root_node();
    if root.has_error() {
        return None;
    }
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.kind() == "command"
            && let Some(words) = literal_words(node, script)
        {
            out.push((node.start_byte(), words));
        }
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            stack.push(child);
        }
    }
    out.sort_by_key(|(at, _)| *at);
    Some(out.into_iter().map(|(_, w)| w).collect())
}

fn literal_words(cmd: Node, src: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut cursor = cmd.walk();
    let mut named = false;
    for child in cmd.named_children(&mut cursor) {
        match child.kind() {
            "command_name" => {
                let w = child.named_child(0)?;
                words.push(match w.kind() {
                    "word" => text(w, src)?.to_string(),
                    "string" => double_quoted(w, src)?,
                    "raw_string" => single_quoted(w, src)?,
                    _ => return None,
                });
                named = true;
            }
            "variable_assignment" | "file_redirect" | "herestring_redirect" => {}
            _ if !named => {}
            "string" => words.push(
                double_quoted(child, src)
                    .unwrap_or_else(|| text(child, src).unwrap_or_default().to_string()),
            ),
            "raw_string" => words.push(single_quoted(child, src).unwrap_or_default()),
            _ => words.push(text(child, src)?.to_string()),
        }
    }
    named.then_some(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(s: &str) -> Option<Vec<String>> {
        plain_commands(s).map(|cs| cs.iter().map(|c| c.join(" ")).collect())
    }

    #[test]
    fn plain_scripts_split() {
        assert_eq!(
            split("git status && git push | cat; echo 'a b'").unwrap(),
            ["git status", "git push", "cat", "echo a b"]
        );
        assert_eq!(split("git 'push'").unwrap(), ["git push"]);
        assert_eq!(split("git  push").unwrap(), ["git push"]);
        assert_eq!(
            split("git status\ngit push").unwrap(),
            ["git status", "git push"]
        );
        assert_eq!(split("rg -g\"*.py\" x").unwrap(), ["rg -g*.py x"]);
    }

    #[test]
    fn anything_else_does_not() {
        for s in [
            "git push > out.txt",
            "(git push)",
            "FOO=1 git push",
            "git push $(echo x)",
            "\"git\" push",
            "git push &",
            "git push 2>&1",
            "if true; then git push; fi",
            "cat <<EOF\nhi\nEOF",
            "echo $HOME",
            "ls &&",
        ] {
            assert!(split(s).is_none(), "{s}");
        }
    }

    #[test]
    fn literal_commands_reach_inside() {
        let cs = literal_commands("rm -rf zz > /dev/null; if true; then rm -f a; fi").unwrap();
        assert_eq!(cs[0], ["rm", "-rf", "zz"]);
        assert_eq!(cs[1], ["true"]);
        assert_eq!(cs[2], ["rm", "-f", "a"]);
    }
}
