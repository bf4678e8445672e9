//! Which direction a bash path token accesses (27.1's directional path
//! surfaces): an output redirect writes, an input redirect reads, an
//! argument of a pure-reader command reads, anything else is unproven and
//! consults both directions. Read from the runtime's documentation (its
//! configuration reference, 40.1.3); no runnable source of 27.1 or later
//! exists here, so this is documented, not verified. Where the
//! documentation leaves a detail open (which `sed` scripts are proven
//! read-only) the reading here is the narrower one: the token consults both
//! surfaces, never fewer than the runtime's.

use super::tokens::{Reading, extract_command_name, is_arg_node, option_values, resolve_node_text};
use super::{MAX_DEPTH, text};
use rustc_hash::FxHashMap;
use tree_sitter::{Node, Tree};

/// The direction of one access.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Read,
    Write,
    /// Not proven: both surfaces are consulted, the more restrictive wins.
    Both,
}

impl Direction {
    /// The same path reached twice: disagreeing proofs fold to unproven.
    pub fn fold(self, other: Direction) -> Direction {
        if self == other { self } else { Direction::Both }
    }
}

/// What the program proves about a token's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokenRole {
    pub direction: Direction,
    /// The token is a redirect destination (gated even when the file does
    /// not exist yet, 34.0).
    pub redirect: bool,
}

/// The commands whose arguments are read-only for any arguments (the
/// documented "pure-reader core"), as bare basenames only.
const PURE_READERS: &[&str] = &[
    ":", "awk", "basename", "cat", "cd", "diff", "dirname", "echo", "egrep", "false", "fd",
    "fgrep", "find", "grep", "head", "ls", "pwd", "realpath", "rg", "sed", "sort", "stat", "tail",
    "true", "wc", "which",
];

/// The role of every token text of the program, folded per text.
pub fn token_roles(tree: &Tree, src: &str, r: Reading<'_>) -> FxHashMap<String, TokenRole> {
    let mut roles: FxHashMap<String, TokenRole> = FxHashMap::default();
    let mut note = |t: String, direction: Direction, redirect: bool| {
        roles
            .entry(t)
            .and_modify(|e| {
                e.direction = e.direction.fold(direction);
                e.redirect |= redirect;
            })
            .or_insert(TokenRole {
                direction,
                redirect,
            });
    };
    let mut stack = vec![(tree.root_node(), 0usize)];
    while let Some((n, d)) = stack.pop() {
        if d > MAX_DEPTH {
            continue;
        }
        match n.kind() {
            "command" => {
                let direction = if proves_read(n, src) {
                    Direction::Read
                } else {
                    Direction::Both
                };
                let mut c = n.walk();
                for child in n.children(&mut c) {
                    let kind = child.kind();
                    if kind != "command_name" && kind != "variable_assignment" && is_arg_node(kind)
                    {
                        note(resolve_node_text(child, src, r.home), direction, false);
                    }
                }
                if r.option_values {
                    for v in option_values(n, src, r.home) {
                        note(v, direction, false);
                    }
                }
            }
            "file_redirect" if !duplicates_descriptor(n, src) => {
                let direction = redirect_direction(n);
                let mut c = n.walk();
                for child in n.children(&mut c) {
                    if is_arg_node(child.kind()) {
                        note(resolve_node_text(child, src, r.home), direction, true);
                    }
                }
            }
            _ => {}
        }
        let mut c = n.walk();
        for child in n.children(&mut c) {
            stack.push((child, d + 1));
        }
    }
    roles
}

/// A command text whose (first) command is a pure reader that proves a
/// read, as a wrapper's executed unit is judged.
pub fn proves_read_text(command: &str) -> bool {
    super::parse(command)
        .is_ok_and(|tree| super::first_command(&tree).is_some_and(|n| proves_read(n, command)))
}

/// The program writes (or may write) a file through a redirect.
pub fn writes_through_redirect(tree: &Tree, src: &str) -> bool {
    token_roles(tree, src, Reading::default())
        .values()
        .any(|r| r.redirect && r.direction != Direction::Read)
        || has_unresolved_redirect(tree.root_node(), src, 0)
}

/// A redirect whose destination is not a plain word (`> $OUT`, `> $(mktemp)`)
/// counts against a read claim.
fn has_unresolved_redirect(node: Node<'_>, src: &str, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    if node.kind() == "file_redirect"
        && redirect_direction(node) != Direction::Read
        && !duplicates_descriptor(node, src)
    {
        let mut c = node.walk();
        let plain = node
            .named_children(&mut c)
            .all(|ch| matches!(ch.kind(), "word" | "raw_string" | "file_descriptor"));
        if !plain {
            return true;
        }
    }
    let mut c = node.walk();
    node.children(&mut c)
        .any(|ch| has_unresolved_redirect(ch, src, depth + 1))
}

/// `2>&1`, `<&0`, `>&-`: a descriptor duplicated or closed, no file.
fn duplicates_descriptor(node: Node<'_>, src: &str) -> bool {
    let mut c = node.walk();
    let children: Vec<Node<'_>> = node.children(&mut c).collect();
    let op = children
        .iter()
        .find(|ch| !ch.is_named())
        .map(|ch| ch.kind());
    if !matches!(op, Some(">&" | "<&" | ">&-" | "<&-")) {
        return false;
    }
    children
        .iter()
        .filter(|ch| ch.is_named() && ch.kind() != "file_descriptor")
        .all(|ch| {
            let t = text(*ch, src);
            ch.kind() == "number"
                || t == "-"
                || (!t.is_empty() && t.chars().all(|c| c.is_ascii_digit()))
        })
}

/// `>`, `>>`, `>|`, `&>`, `&>>` write; `<` reads; anything else (`<>`,
/// duplications, a redirect the parser could not read) is unproven.
fn redirect_direction(node: Node<'_>) -> Direction {
    if node.has_error() {
        return Direction::Both;
    }
    let mut c = node.walk();
    let op = node
        .children(&mut c)
        .find(|ch| !ch.is_named())
        .map(|ch| ch.kind().to_string());
    match op.as_deref() {
        Some(">" | ">>" | ">|" | "&>" | "&>>") => Direction::Write,
        Some("<") => Direction::Read,
        _ => Direction::Both,
    }
}

/// The arguments of the command: every word after its name, substitutions
/// and expansions included.
fn arguments<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut c = node.walk();
    node.named_children(&mut c)
        .filter(|ch| {
            let k = ch.kind();
            k != "command_name"
                && k != "variable_assignment"
                && k != "comment"
                && !k.ends_with("redirect")
        })
        .collect()
}

/// An argument only the shell decides (a variable, a substitution, a
/// leading glob): it could arrive as an option.
fn computed(arg: Node<'_>, src: &str) -> bool {
    let t = text(arg, src);
    let literal = match arg.kind() {
        "word" => !t.contains('$') && !t.contains('`'),
        "raw_string" => true,
        _ => false,
    };
    !literal || t.starts_with(['*', '?', '['])
}

/// The command is a bare pure reader whose arguments do not withdraw the
/// claim.
fn proves_read(node: Node<'_>, src: &str) -> bool {
    let mut c = node.walk();
    let Some(name_node) = node.children(&mut c).find(|ch| ch.kind() == "command_name") else {
        return false;
    };
    let written = text(name_node, src);
    if written.contains(['/', '\\']) {
        return false;
    }
    let Some(name) = extract_command_name(node, src) else {
        return false;
    };
    if !PURE_READERS.contains(&name.as_str()) {
        return false;
    }
    let args = arguments(node);
    let words: Vec<String> = args
        .iter()
        .map(|a| resolve_node_text(*a, src, None))
        .collect();
    match name.as_str() {
        "find" => {
            !args.iter().any(|a| computed(*a, src))
                && !words.iter().any(|w| {
                    matches!(
                        w.as_str(),
                        "-exec"
                            | "-execdir"
                            | "-ok"
                            | "-okdir"
                            | "-delete"
                            | "-fprint"
                            | "-fprint0"
                            | "-fprintf"
                            | "-fls"
                    )
                })
        }
        "fd" => {
            !args.iter().any(|a| computed(*a, src))
                && !words.iter().any(|w| {
                    w.starts_with("--exec")
                        || (w.starts_with('-')
                            && !w.starts_with("--")
                            && w[1..].contains(['x', 'X']))
                })
        }
        "sort" => {
            !args.iter().any(|a| computed(*a, src))
                && !words.iter().any(|w| {
                    (w.starts_with("--o")
                        && "--output".starts_with(w.split('=').next().unwrap_or(w)))
                        || (w.starts_with('-') && !w.starts_with("--") && w[1..].contains('o'))
                })
        }
        "sed" => sed_reads(&args, &words, src),
        "awk" => awk_reads(&args, &words, src),
        _ => true,
    }
}

/// `sed` reads when every option is a read-only one and every script is
/// made of read-only commands (a conservative subset: print, delete,
/// quit, line number, next, and `s` / `y` without the `w` or `e` flag).
fn sed_reads(args: &[Node<'_>], words: &[String], src: &str) -> bool {
    if args.iter().any(|a| computed(*a, src)) {
        return false;
    }
    let mut scripts: Vec<&str> = Vec::new();
    let mut positional_seen = false;
    let mut i = 0;
    while i < words.len() {
        let w = words[i].as_str();
        if w == "-e" || w == "--expression" {
            if positional_seen {
                return false;
            }
            let Some(s) = words.get(i + 1) else {
                return false;
            };
            scripts.push(s);
            i += 2;
            continue;
        }
        if let Some(s) = w.strip_prefix("--expression=") {
            scripts.push(s);
        } else if w.starts_with("--") {
            if !matches!(
                w,
                "--quiet"
                    | "--silent"
                    | "--regexp-extended"
                    | "--separate"
                    | "--unbuffered"
                    | "--null-data"
                    | "--posix"
                    | "--debug"
                    | "--sandbox"
            ) {
                return false;
            }
        } else if w.starts_with('-') && w.len() > 1 {
            if !w[1..].chars().all(|c| "nErsuz".contains(c)) {
                return false;
            }
        } else {
            if scripts.is_empty() && !positional_seen {
                scripts.push(w);
            }
            positional_seen = true;
        }
        i += 1;
    }
    !scripts.is_empty() && scripts.iter().all(|s| sed_script_reads(s))
}

fn sed_script_reads(script: &str) -> bool {
    script
        .split(['\n', ';'])
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .all(sed_command_reads)
}

fn sed_command_reads(cmd: &str) -> bool {
    // An address: line numbers, `$`, a range of them; regex addresses and
    // anything else are not proven.
    let body = cmd.trim_start_matches(|c: char| c.is_ascii_digit() || c == ',' || c == '$');
    let body = body.trim_start();
    let mut chars = body.chars();
    match chars.next() {
        Some('p' | 'd' | 'q' | '=' | 'l' | 'n' | 'N' | 'P' | 'D') => {
            chars.as_str().trim().is_empty()
        }
        Some(c @ ('s' | 'y')) => {
            let Some(delim) = chars.next() else {
                return false;
            };
            if delim == '\\' || delim == '\n' || delim.is_alphanumeric() {
                return false;
            }
            let rest = chars.as_str();
            let parts: Vec<&str> = rest.split(delim).collect();
            if parts.len() != 3 || parts[0].contains('[') || parts.iter().any(|p| p.contains('\\'))
            {
                return false;
            }
            let flags = parts[2];
            if c == 'y' {
                flags.is_empty()
            } else {
                flags
                    .chars()
                    .all(|f| f == 'g' || f == 'p' || f == 'I' || f == 'i' || f.is_ascii_digit())
            }
        }
        _ => false,
    }
}

/// `awk` reads when its only options are `-F` and `-v` and the program
/// holds no `>`, `|`, `system` or `@`.
fn awk_reads(args: &[Node<'_>], words: &[String], src: &str) -> bool {
    if args.iter().any(|a| computed(*a, src)) {
        return false;
    }
    let mut i = 0;
    while i < words.len() {
        let w = words[i].as_str();
        if w == "-F" || w == "-v" {
            i += 2;
            continue;
        }
        if w.starts_with("-F") || w.starts_with("-v") {
            i += 1;
            continue;
        }
        if w.starts_with('-') && w.len() > 1 {
            return false;
        }
        return !(w.contains('>') || w.contains('|') || w.contains("system") || w.contains('@'));
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roles(cmd: &str) -> Vec<(String, Direction, bool)> {
        let tree = super::super::parse(cmd).expect("parses");
        let mut v: Vec<_> = token_roles(&tree, cmd, Reading::default())
            .into_iter()
            .map(|(k, r)| (k, r.direction, r.redirect))
            .collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    }

    fn dir(cmd: &str, token: &str) -> Direction {
        roles(cmd)
            .into_iter()
            .find(|(t, ..)| t == token)
            .unwrap_or_else(|| panic!("{token} in {cmd}"))
            .1
    }

    /// The documented examples (configuration reference, 40.1.3).
    #[test]
    fn directions_as_documented() {
        use Direction::*;
        assert_eq!(dir("cat notes.md > /backup/notes.md", "notes.md"), Read);
        assert_eq!(
            dir("cat notes.md > /backup/notes.md", "/backup/notes.md"),
            Write
        );
        assert_eq!(dir("cat a.txt > a.txt", "a.txt"), Both);
        assert_eq!(dir("wc -l < /etc/hosts", "/etc/hosts"), Read);
        assert_eq!(dir("cp a.txt /tmp/b.txt", "/tmp/b.txt"), Both);
        assert_eq!(dir("./grep x /etc/p", "/etc/p"), Both);
        assert_eq!(dir("/usr/bin/cat /etc/p", "/etc/p"), Both);
        assert_eq!(dir("find . -name x", "."), Read);
        assert_eq!(dir("find . -delete", "."), Both);
        assert_eq!(dir("find packages/*/docs", "packages/*/docs"), Read);
        assert_eq!(dir("find $DIR -name x", "-name"), Both);
        assert_eq!(dir("sort -o /tmp/x in.txt", "in.txt"), Both);
        assert_eq!(dir("sort -uo /tmp/x in.txt", "in.txt"), Both);
        assert_eq!(dir("sort --out=/tmp/x in.txt", "in.txt"), Both);
        assert_eq!(dir("sort -u in.txt", "in.txt"), Read);
        assert_eq!(dir("fd -x rm", "rm"), Both);
        assert_eq!(dir("sed -n '1,80p' file", "file"), Read);
        assert_eq!(dir("sed 's/a/b/g' file", "file"), Read);
        assert_eq!(dir("sed -i 's/a/b/' file", "file"), Both);
        assert_eq!(dir("sed -f script.sed file", "file"), Both);
        assert_eq!(dir("sed 's/a/b/w out' file", "file"), Both);
        assert_eq!(dir("sed '1r x' file", "file"), Both);
        assert_eq!(dir("sed -n \"$range\" file", "file"), Both);
        assert_eq!(dir("awk '{print $1}' file", "file"), Read);
        assert_eq!(dir("awk -f prog.awk file", "file"), Both);
        assert_eq!(dir("awk '{print > \"out\"}' file", "file"), Both);
        assert_eq!(dir("awk 'NR>=100' file", "file"), Both);
        assert_eq!(dir("rm -rf build", "build"), Both);
        let r = roles("echo hi > out.txt");
        assert!(r.contains(&("out.txt".to_string(), Write, true)), "{r:?}");
    }
}
