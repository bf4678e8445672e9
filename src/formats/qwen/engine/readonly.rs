//! Qwen Code's read-only classifier for shell commands (its
//! `shellAstParser`): the command parsed with the bash grammar, each
//! command judged `read-only`, `write` or `unknown` by its name and
//! arguments, redirections and substitutions; the worst wins. A command
//! is allowed without a rule only when it is `read-only`.

use tree_sitter::Node;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Safety {
    ReadOnly,
    Unknown,
    Write,
}

fn merge(xs: impl IntoIterator<Item = Safety>) -> Safety {
    xs.into_iter().max().unwrap_or(Safety::ReadOnly)
}

use Safety::{ReadOnly, Unknown, Write};

const READ_ONLY_ROOTS: &[&str] = &[
    "awk", "basename", "cat", "cd", "column", "cut", "df", "dirname", "du", "echo", "find", "git",
    "grep", "head", "less", "ls", "more", "printenv", "printf", "ps", "pwd", "rg", "ripgrep",
    "sed", "sort", "stat", "tail", "tree", "uniq", "wc", "which", "where", "whoami",
];
const WRITE_ROOTS: &[&str] = &[
    "chgrp", "chmod", "chown", "cp", "install", "ln", "mkdir", "mkfifo", "mknod", "mv", "rename",
    "rm", "rmdir", "shred", "touch", "truncate", "unlink",
];
const READ_ONLY_GIT: &[&str] = &[
    "blame",
    "branch",
    "cat-file",
    "diff",
    "grep",
    "log",
    "ls-files",
    "remote",
    "rev-parse",
    "show",
    "status",
    "describe",
];
const WRITE_GIT: &[&str] = &[
    "add",
    "am",
    "checkout",
    "cherry-pick",
    "clean",
    "clone",
    "commit",
    "fetch",
    "gc",
    "init",
    "merge",
    "mv",
    "pull",
    "push",
    "rebase",
    "reset",
    "restore",
    "revert",
    "rm",
    "stash",
    "switch",
];
const WRITE_GIT_REMOTE: &[&str] = &[
    "add",
    "remove",
    "rm",
    "rename",
    "set-branches",
    "set-head",
    "set-url",
    "update",
];
const WRITE_REDIRECTS: &[&str] = &[">", ">>", "&>", "&>>", ">|"];

/// The commands this classifier may call read-only by their name (and
/// `git`'s subcommand): where Qwen allows without a rule, for `diff`.
/// (A command judged `write` is asked about like an unknown one.)
pub fn read_only_prefixes() -> Vec<String> {
    let mut out: Vec<String> = READ_ONLY_ROOTS.iter().map(|r| r.to_string()).collect();
    out.extend(READ_ONLY_GIT.iter().map(|s| format!("git {s}")));
    out.push("git remote".into());
    out
}

fn text<'a>(n: &Node, src: &'a str) -> &'a str {
    n.utf8_text(src.as_bytes()).unwrap_or("")
}

fn named_children<'t>(n: &Node<'t>) -> Vec<Node<'t>> {
    let mut c = n.walk();
    n.named_children(&mut c).collect()
}

fn children<'t>(n: &Node<'t>) -> Vec<Node<'t>> {
    let mut c = n.walk();
    n.children(&mut c).collect()
}

fn descendants<'t>(n: &Node<'t>, kinds: &[&str], outermost: bool) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    let mut stack = vec![*n];
    while let Some(cur) = stack.pop() {
        if kinds.contains(&cur.kind()) {
            out.push(cur);
            if outermost {
                continue;
            }
        }
        let ch = children(&cur);
        for c in ch.into_iter().rev() {
            stack.push(c);
        }
    }
    out
}

fn strip_outer_quotes(t: &str) -> &str {
    if t.len() >= 2
        && ((t.starts_with('\'') && t.ends_with('\'')) || (t.starts_with('"') && t.ends_with('"')))
    {
        &t[1..t.len() - 1]
    } else {
        t
    }
}

fn brace_expansion(t: &str) -> bool {
    let mut depth = 0usize;
    let mut dot = false;
    for ch in t.chars() {
        match ch {
            '{' => {
                depth += 1;
                dot = false;
            }
            '}' => {
                depth = depth.saturating_sub(1);
                dot = false;
            }
            _ if depth > 0 => {
                if ch == ',' || (ch == '.' && dot) {
                    return true;
                }
                dot = ch == '.';
            }
            _ => {}
        }
    }
    false
}

fn pattern_expansion(t: &str) -> bool {
    t.contains(['[', '*', '?']) || brace_expansion(t)
}

fn has_expansion(n: &Node, src: &str) -> bool {
    !descendants(
        n,
        &["simple_expansion", "expansion", "arithmetic_expansion"],
        false,
    )
    .is_empty()
        || (["word", "concatenation"].contains(&n.kind()) && pattern_expansion(text(n, src)))
}

fn before_terminator(args: &[String]) -> &[String] {
    let end = args.iter().position(|a| a == "--").unwrap_or(args.len());
    &args[..end]
}

fn has_help(args: &[String], value_options: &[&str]) -> bool {
    let opts = before_terminator(args);
    opts.iter().enumerate().any(|(i, a)| {
        let l = a.to_ascii_lowercase();
        (l == "--help" || l == "--version")
            && !(i > 0 && value_options.contains(&opts[i - 1].as_str()))
    })
}

fn without_option_values(args: &[String], is_value: impl Fn(&str) -> bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        out.push(args[i].clone());
        if is_value(&args[i]) {
            i += 1;
        }
        i += 1;
    }
    out
}

fn output_option(args: &[String], long: bool, short: bool) -> Option<Safety> {
    for (i, a) in args.iter().enumerate() {
        if a == "--" {
            break;
        }
        if (short && a == "-o") || (long && a == "--output") {
            return Some(if args.get(i + 1).is_some_and(|v| !v.is_empty()) {
                Write
            } else {
                Unknown
            });
        }
        if short && a.starts_with("-o") && a.chars().count() > 2 {
            return Some(Write);
        }
        if long && a.starts_with("--output=") {
            return Some(if a.len() > 9 { Write } else { Unknown });
        }
    }
    None
}

fn git_helper_option(a: &str) -> bool {
    [
        "--ext-diff",
        "--filters",
        "--show-signature",
        "--textconv",
        "--open-files-in-pager",
    ]
    .iter()
    .any(|o| a == *o || a.starts_with(&format!("{o}=")))
}

fn git_commit_value_option(a: &str) -> bool {
    ["-C", "-c", "-F", "-m", "-t"].contains(&a)
        || [
            "--author",
            "--cleanup",
            "--date",
            "--file",
            "--fixup",
            "--message",
            "--pathspec-from-file",
            "--reedit-message",
            "--reuse-message",
            "--squash",
            "--template",
            "--trailer",
        ]
        .contains(&a)
}

fn write_branch_flag(a: &str) -> bool {
    let b: Vec<char> = a.chars().collect();
    if b.len() >= 2 && b[0] == '-' && "cCdDmMu".contains(b[1]) {
        return true;
    }
    [
        "--delete",
        "--move",
        "--copy",
        "--set-upstream",
        "--set-upstream-to",
        "--unset-upstream",
        "--create-reflog",
        "--edit-description",
    ]
    .iter()
    .any(|o| a == *o || a.starts_with(&format!("{o}=")))
}

fn branch_list_flag(a: &str) -> bool {
    ["-a", "-l", "-r"].contains(&a)
        || [
            "--all",
            "--list",
            "--remotes",
            "--show-current",
            "--contains",
            "--no-contains",
            "--merged",
            "--no-merged",
            "--points-at",
        ]
        .iter()
        .any(|o| a == *o || a.starts_with(&format!("{o}=")))
}

fn git(args: &[String]) -> Safety {
    let Some(first) = args.first() else {
        return ReadOnly;
    };
    if first == "--version" {
        return ReadOnly;
    }
    if first == "--help" {
        return if args.len() == 1 { ReadOnly } else { Unknown };
    }
    if first.starts_with('-') {
        return Unknown;
    }
    let sub = first.to_lowercase();
    let rest = &args[1..];
    let opts = before_terminator(rest);
    let helper = opts.iter().any(|a| git_helper_option(a))
        || (sub == "grep" && opts.iter().any(|a| a.starts_with("-O")))
        || (["log", "show"].contains(&sub.as_str())
            && opts.iter().any(|a| {
                ["%G?", "%GG", "%GK", "%GF", "%GP", "%GS", "%GT"]
                    .iter()
                    .any(|p| a.contains(p))
            }));
    if WRITE_GIT.contains(&sub.as_str()) {
        let eff = if sub == "commit" {
            without_option_values(rest, git_commit_value_option)
        } else {
            rest.to_vec()
        };
        let eopts = before_terminator(&eff);
        let help = has_help(&eff, &[]);
        let dry = eopts.iter().any(|a| a == "--dry-run")
            || (eopts.iter().any(|a| a == "-n")
                && ["add", "clean", "mv", "push", "rm"].contains(&sub.as_str()));
        return if help || dry { Unknown } else { Write };
    }
    if !READ_ONLY_GIT.contains(&sub.as_str()) {
        return Unknown;
    }
    if ["diff", "log", "show"].contains(&sub.as_str())
        && let Some(o) = output_option(rest, true, false)
    {
        return o;
    }
    if sub == "blame"
        && opts
            .iter()
            .any(|a| a == "--output" || a.starts_with("--output="))
    {
        return Unknown;
    }
    if sub != "branch" && has_help(rest, &[]) {
        return Unknown;
    }
    if sub == "remote" {
        let action = rest
            .iter()
            .find(|a| !a.starts_with('-'))
            .map(|a| a.to_lowercase());
        let Some(action) = action else {
            return if helper { Unknown } else { ReadOnly };
        };
        if action == "show" || action == "get-url" {
            let w = rest.iter().any(|a| {
                let l = a.to_lowercase();
                WRITE_GIT_REMOTE.contains(&l.as_str()) || l == "prune"
            });
            return if w || helper { Unknown } else { ReadOnly };
        }
        if WRITE_GIT_REMOTE.contains(&action.as_str()) {
            return Write;
        }
        if action == "prune" {
            return if rest.iter().any(|a| a == "-n" || a == "--dry-run") {
                Unknown
            } else {
                Write
            };
        }
        return Unknown;
    }
    if sub == "branch" {
        let actions = without_option_values(rest, |a| a == "--format" || a == "--sort");
        let aopts = before_terminator(&actions);
        if has_help(&actions, &[]) {
            return Unknown;
        }
        if actions.iter().any(|a| write_branch_flag(a)) {
            return if aopts.iter().any(|a| write_branch_flag(a)) {
                Write
            } else {
                Unknown
            };
        }
        if actions.len() != rest.len() {
            return Unknown;
        }
        if aopts.iter().any(|a| branch_list_flag(a)) {
            return ReadOnly;
        }
        if rest.iter().any(|a| !a.starts_with('-')) {
            return Write;
        }
        if rest.iter().any(|a| a == "--") || helper {
            return Unknown;
        }
        return if rest.is_empty() { ReadOnly } else { Unknown };
    }
    if helper { Unknown } else { ReadOnly }
}

fn find_value_predicate(l: &str) -> bool {
    let Some(p) = l.strip_prefix('-') else {
        return false;
    };
    let simple = [
        "context",
        "fstype",
        "gid",
        "group",
        "inum",
        "links",
        "maxdepth",
        "mindepth",
        "path",
        "perm",
        "printf",
        "regextype",
        "samefile",
        "size",
        "type",
        "uid",
        "used",
        "user",
        "wholename",
        "xtype",
        "lname",
        "name",
        "path",
        "regex",
        "ilname",
        "iname",
        "ipath",
        "iregex",
        "newer",
        "anewer",
        "cnewer",
    ];
    if simple.contains(&p) {
        return true;
    }
    if let Some(x) = p.strip_prefix("newer") {
        return x.len() == 2 && x.chars().all(|c| c.is_ascii_lowercase());
    }
    if p.len() == 4 && "acm".contains(&p[..1]) && (p.ends_with("min") || p.ends_with("ime")) {
        return p[1..] == *"min" || p[1..] == *"time";
    }
    matches!(p, "amin" | "cmin" | "mmin" | "atime" | "ctime" | "mtime")
}

fn process(root: &str, args: &[String]) -> Safety {
    let opts = before_terminator(args);
    if args.is_empty()
        || has_help(args, &[])
        || opts
            .iter()
            .any(|a| ["-h", "-V", "-help", "-version"].contains(&a.as_str()))
    {
        return Unknown;
    }
    let value_opts: Vec<&str> = match root {
        "pkill" => vec![],
        "kill" => vec!["-s", "-n"],
        _ => vec!["-s"],
    };
    let zero = |s: &str| {
        let s = s
            .strip_prefix("SIG")
            .or_else(|| s.strip_prefix("sig"))
            .unwrap_or(s);
        !s.is_empty() && s.chars().all(|c| c == '0')
    };
    let risky = opts.iter().enumerate().any(|(i, a)| {
        let prev_val = i > 0 && value_opts.contains(&opts[i - 1].as_str());
        (a.contains(['$', '`', '*', '?', '(', ')', '[', ']', '{', '}'])
            && (a.starts_with('-') || prev_val))
            || a == "-l"
            || a == "-L"
            || a == "-0"
            || (a.starts_with("--") && (a.contains("list") || a.starts_with("--table")))
            || (a.starts_with("--signal=") && zero(&a[9..]))
            || (a.starts_with('-') && zero(&a[1..]))
            || (root == "kill"
                && (a.starts_with("-s") || a.starts_with("-n"))
                && a.len() > 2
                && zero(&a[2..]))
            || (root == "killall" && a.starts_with("-s") && a.len() > 2 && zero(&a[2..]))
            || (prev_val && zero(a))
    });
    if risky { Unknown } else { Write }
}

fn find(args: &[String]) -> Safety {
    let mut result = ReadOnly;
    let mut i = 0;
    while i < args.len() {
        let l = args[i].to_lowercase();
        if l == "--" {
            return merge([result, Unknown]);
        }
        if l == "--help" || l == "--version" {
            return Unknown;
        }
        if find_value_predicate(&l) {
            i += 1;
            if !args
                .get(i)
                .is_some_and(|v| !v.is_empty() && !v.starts_with('-'))
            {
                result = merge([result, Unknown]);
            }
            i += 1;
            continue;
        }
        if l == "-delete" {
            result = Write;
            i += 1;
            continue;
        }
        if ["-fls", "-fprint", "-fprintf"]
            .iter()
            .any(|p| l.starts_with(p))
        {
            result = Write;
            i += if l.starts_with("-fprintf") { 3 } else { 2 };
            continue;
        }
        if ["-exec", "-execdir", "-ok", "-okdir"].contains(&l.as_str()) {
            let invoked = args.get(i + 1).map(|s| s.to_lowercase());
            let end = (i + 2..args.len()).find(|&k| [";", "\\;", "+"].contains(&args[k].as_str()));
            let inv_args: Vec<String> =
                args[(i + 2).min(args.len())..end.unwrap_or(args.len())].to_vec();
            let nested = match invoked.as_deref() {
                Some(r) if WRITE_ROOTS.contains(&r) => {
                    if has_help(&inv_args, &[]) {
                        Unknown
                    } else {
                        Write
                    }
                }
                Some(r @ ("kill" | "killall" | "pkill")) => process(r, &inv_args),
                _ => Unknown,
            };
            result = merge([result, nested]);
            i = end.map(|e| e + 1).unwrap_or(args.len());
            continue;
        }
        i += 1;
    }
    result
}

fn uniq(args: &[String]) -> Safety {
    let mut positional = 0;
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if a == "--" {
            return if args.len() - i + positional > 2 {
                Write
            } else {
                ReadOnly
            };
        } else if [
            "-f",
            "--skip-fields",
            "-s",
            "--skip-chars",
            "-w",
            "--check-chars",
        ]
        .contains(&a.as_str())
        {
            i += 1;
            if args.get(i).is_none_or(|v| v.is_empty()) {
                return Unknown;
            }
        } else if a == "-" || !a.starts_with('-') {
            positional += 1;
        }
        i += 1;
    }
    if positional >= 2 { Write } else { ReadOnly }
}

fn command_safety(cmd: &Node, src: &str, incomplete: &mut Vec<String>) -> Safety {
    let name = cmd.child_by_field_name("name");
    let raw_root = name.map(|n| text(&n, src).to_string());
    let root = raw_root.as_ref().map(|r| r.to_lowercase());
    let mut arg_nodes = Vec::new();
    for i in 0..cmd.child_count() {
        if cmd.field_name_for_child(i as u32) == Some("argument")
            && let Some(c) = cmd.child(i)
        {
            arg_nodes.push(c);
        }
    }
    let args: Vec<String> = arg_nodes
        .iter()
        .map(|n| strip_outer_quotes(text(n, src)).to_string())
        .collect();
    let mut result = match root.as_deref() {
        None => ReadOnly,
        Some(r) if Some(r) != raw_root.as_deref() => Unknown,
        Some(r) if WRITE_ROOTS.contains(&r) => {
            if has_help(&args, &[]) {
                Unknown
            } else {
                Write
            }
        }
        Some(r @ ("kill" | "killall" | "pkill")) => process(r, &args),
        Some("git") => git(&args),
        Some("find") => find(&args),
        Some("sed") => super::sed_awk::sed(&args),
        Some("awk") => super::sed_awk::awk(&args),
        Some(r @ ("sort" | "tree")) => {
            let mut x = output_option(&args, r == "sort", true).unwrap_or(ReadOnly);
            if has_help(&args, &["-o", "--output"]) {
                x = Unknown;
            }
            if before_terminator(&args).iter().any(|a| {
                a.starts_with("--o")
                    || (a.starts_with('-') && !a.starts_with("--") && a[1..].contains('o'))
                    || (r == "sort" && a.starts_with("--co"))
            }) {
                x = merge([x, Unknown]);
            }
            x
        }
        Some("uniq") => {
            if has_help(&args, &[]) {
                Unknown
            } else {
                uniq(&args)
            }
        }
        Some("tee") => {
            let w = args
                .iter()
                .enumerate()
                .any(|(i, a)| !a.starts_with('-') || (i > 0 && args[i - 1] == "--"));
            if w { Write } else { Unknown }
        }
        Some("dd") => {
            if args.iter().any(|a| a.starts_with("of=")) {
                Write
            } else {
                Unknown
            }
        }
        Some(r)
            if (r == "printf"
                && before_terminator(&args)
                    .iter()
                    .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('v')))
                || r == "less"
                || r == "more"
                || ((r == "rg" || r == "ripgrep")
                    && before_terminator(&args).iter().any(|a| {
                        a.starts_with("--hostname-bin")
                            || a.starts_with("--pre")
                            || a == "--search-zip"
                            || (a.starts_with('-') && !a.starts_with("--") && a.contains('z'))
                    })) =>
        {
            Unknown
        }
        Some(r) => {
            if READ_ONLY_ROOTS.contains(&r) {
                ReadOnly
            } else {
                Unknown
            }
        }
    };
    if let Some(r) = root.as_deref() {
        if result == ReadOnly
            && [
                "awk", "find", "git", "printf", "rg", "ripgrep", "sed", "sort", "tree", "uniq",
            ]
            .contains(&r)
            && arg_nodes.iter().any(|n| has_expansion(n, src))
        {
            result = Unknown;
        }
        if result == Write
            && !["find", "git", "sed", "sort", "tree"].contains(&r)
            && has_help(&args, &[])
        {
            result = Unknown;
        }
    }
    let named = named_children(cmd);
    if root.is_some() && named.iter().any(|c| c.kind() == "variable_assignment") {
        result = merge([result, Unknown]);
    }
    let mut all = vec![result, redirection_safety(cmd, src, incomplete)];
    for c in named.iter().filter(|c| !c.kind().ends_with("_redirect")) {
        all.push(substitutions(c, src, incomplete));
    }
    merge(all)
}

fn substitutions(n: &Node, src: &str, incomplete: &mut Vec<String>) -> Safety {
    let subs = descendants(n, &["command_substitution", "process_substitution"], true);
    if subs.is_empty() {
        for e in descendants(n, &["expansion"], false) {
            let ch = children(&e);
            for w in ch.windows(2) {
                if w[0].kind() == "@" && w[1].kind() == "P" {
                    return Unknown;
                }
            }
        }
        return ReadOnly;
    }
    let mut all = vec![Unknown];
    for s in subs {
        for c in named_children(&s) {
            all.push(statement(&c, src, incomplete));
        }
    }
    merge(all)
}

fn redirection_safety(n: &Node, src: &str, incomplete: &mut Vec<String>) -> Safety {
    let mut result = ReadOnly;
    for r in named_children(n) {
        if !r.kind().ends_with("_redirect") {
            continue;
        }
        result = merge([result, substitutions(&r, src, incomplete)]);
        if r.kind() != "file_redirect" {
            continue;
        }
        let Some(op) = children(&r)
            .into_iter()
            .find(|c| c.kind() != "file_descriptor")
        else {
            return Unknown;
        };
        if WRITE_REDIRECTS.contains(&op.kind()) {
            return Write;
        }
        if op.kind() == ">&" {
            let Some(dest) = r.child_by_field_name("destination") else {
                return Unknown;
            };
            let t = strip_outer_quotes(text(&dest, src));
            if t == "-" || (!t.is_empty() && t.chars().all(|c| c.is_ascii_digit())) {
                continue;
            }
            result = merge([
                result,
                if t.contains(['$', '`', '*', '?', '(', ')', '[', ']', '{', '}']) {
                    Unknown
                } else {
                    Write
                },
            ]);
        }
    }
    result
}

/// Nesting this reading follows (substitutions in substitutions, …);
/// deeper, the command is `unknown` and the answer says it is incomplete.
const MAX_DEPTH: usize = 200;

thread_local! {
    static DEPTH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

fn statement(n: &Node, src: &str, incomplete: &mut Vec<String>) -> Safety {
    let depth = DEPTH.with(|d| {
        d.set(d.get() + 1);
        d.get()
    });
    let r = if depth > MAX_DEPTH {
        let note = format!("a command nested more than {MAX_DEPTH} levels deep");
        if !incomplete.contains(&note) {
            incomplete.push(note);
        }
        Unknown
    } else {
        statement_at(n, src, incomplete)
    };
    DEPTH.with(|d| d.set(d.get() - 1));
    r
}

fn statement_at(n: &Node, src: &str, incomplete: &mut Vec<String>) -> Safety {
    let k = n.kind();
    if k == "command" {
        return command_safety(n, src, incomplete);
    }
    if [
        "pipeline",
        "list",
        "subshell",
        "compound_statement",
        "negated_command",
    ]
    .contains(&k)
    {
        return merge(
            named_children(n)
                .iter()
                .map(|c| statement(c, src, incomplete))
                .collect::<Vec<_>>(),
        );
    }
    if k == "redirected_statement" {
        let mut all: Vec<Safety> = named_children(n)
            .iter()
            .filter(|c| !c.kind().ends_with("_redirect"))
            .map(|c| statement(c, src, incomplete))
            .collect();
        all.push(redirection_safety(n, src, incomplete));
        return merge(all);
    }
    if k == "variable_assignment" || k == "variable_assignments" {
        let alone = n.parent().is_some_and(|p| p.named_child_count() == 1);
        return merge([
            if alone { ReadOnly } else { Unknown },
            substitutions(n, src, incomplete),
        ]);
    }
    if k == "function_definition" {
        return Unknown;
    }
    let mut all = vec![Unknown];
    all.extend(
        named_children(n)
            .iter()
            .map(|c| statement(c, src, incomplete)),
    );
    merge(all)
}

/// The classification of a command line, and what it could not judge as
/// the runtime does (where the answer may differ).
pub fn classify(command: &str) -> (Safety, Vec<String>) {
    let mut incomplete = Vec::new();
    if command.trim().is_empty() {
        return (Unknown, incomplete);
    }
    let tree = match crate::syntax::bash::parse(command) {
        Ok(tree) => tree,
        Err(why) => return (Unknown, vec![why.to_string()]),
    };
    let root = tree.root_node();
    if root.named_child_count() == 0 || root.has_error() {
        return (Unknown, incomplete);
    }
    let mut s = merge(
        named_children(&root)
            .iter()
            .map(|c| statement(c, command, &mut incomplete))
            .collect::<Vec<_>>(),
    );
    if s == ReadOnly && cd_before_git_diff_or_status(command) {
        s = Unknown;
    }
    if s == ReadOnly && command.contains("\\\n") {
        let (again, more) = classify(&command.replace("\\\n", ""));
        incomplete.extend(more);
        if again != ReadOnly {
            s = Unknown;
        }
    }
    (s, incomplete)
}

/// Does a `cd`/`pushd` come before a `git diff`/`git status` (Qwen then
/// never calls it read-only)?
pub fn cd_before_git_diff_or_status(command: &str) -> bool {
    let Ok(tree) = crate::syntax::bash::parse(command) else {
        return false;
    };
    let root = tree.root_node();
    let mut changed = false;
    for c in descendants(&root, &["command"], false) {
        let name = c
            .child_by_field_name("name")
            .map(|n| text(&n, command).to_lowercase());
        match name.as_deref() {
            Some("cd") | Some("pushd") => changed = true,
            Some("git") if changed => {
                for i in 0..c.child_count() {
                    if c.field_name_for_child(i as u32) == Some("argument") {
                        let sub =
                            strip_outer_quotes(text(&c.child(i).unwrap(), command)).to_lowercase();
                        if sub == "diff" || sub == "status" {
                            return true;
                        }
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(s: &str) -> Safety {
        classify(s).0
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let deep = format!("{}x{}", "echo $(".repeat(5000), ")".repeat(5000));
        assert_eq!(classify(&deep).0, Unknown);
    }

    #[test]
    fn classifies_as_qwen() {
        assert_eq!(c("ls -la"), ReadOnly);
        assert_eq!(c("git status"), ReadOnly);
        assert_eq!(c("cat /etc/hostname"), ReadOnly);
        assert_eq!(c("sed -n 1p README.md"), ReadOnly);
        assert_eq!(c("npm test"), Unknown);
        assert_eq!(c("touch x.txt"), Write);
        assert_eq!(c("echo $(whoami)"), Unknown);
        assert_eq!(c("echo hi > a.txt"), Write);
        assert_eq!(c("npm test > log.txt"), Write);
        assert_eq!(c("ls 2>&1"), ReadOnly);
        assert_eq!(c("git push"), Write);
        assert_eq!(c("find . -delete"), Write);
        assert_eq!(c("FOO=1 ls"), Unknown);
        assert_eq!(c("ls | wc -l"), ReadOnly);
    }
}
