//! The shell heuristics of Gemini CLI 0.61.0's policy engine (POSIX):
//! known-safe commands that turn "ask" into "allow", dangerous ones that
//! turn "allow" into "ask", and git in an untrusted folder.

use super::policy::resolve;
use super::shell;
use std::path::{Path, PathBuf};

/// Where the heuristics run: the workspace, the command's folder, home.
pub struct Places<'a> {
    pub workspace: &'a Path,
    pub cwd: &'a Path,
    pub home: &'a Path,
}

fn real(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// `isSubpath(parent, child)` (the same path counts).
pub fn is_subpath(parent: &Path, child: &Path) -> bool {
    child.starts_with(parent)
}

/// `isPathEscapingWorkspace`.
fn escapes(arg: &str, at: &Places) -> bool {
    if arg.is_empty() {
        return false;
    }
    if arg.contains(['$', '`']) {
        return true;
    }
    let target = if arg == "~" || arg.starts_with("~/") || arg.starts_with("~\\") {
        let t = resolve(at.home, arg.get(2..).unwrap_or(""));
        if !is_subpath(at.workspace, &t) {
            return true;
        }
        t
    } else if arg.starts_with('~') {
        return true;
    } else {
        let t = resolve(at.cwd, arg);
        if !is_subpath(at.workspace, &t) {
            return true;
        }
        t
    };
    // A symlink inside the workspace that leads out of it.
    let mut cur = target.as_path();
    let mut steps = 0;
    while is_subpath(at.workspace, cur) && steps < 256 {
        steps += 1;
        if std::fs::symlink_metadata(cur).is_ok_and(|m| m.file_type().is_symlink())
            && let Ok(r) = std::fs::canonicalize(cur)
            && !is_subpath(at.workspace, &r)
        {
            return true;
        }
        match cur.parent() {
            Some(p) if p != cur => cur = p,
            _ => break,
        }
    }
    false
}

/// `containsGitCommand`.
pub fn contains_git(args: &[String]) -> bool {
    const BEFORE: &[&str] = &["sudo", "env", "time", "&&", "||", ";", "|", "&", "(", "\\n"];
    args.iter().enumerate().any(|(i, a)| {
        let t = super::super::model::js_trim(a);
        if t.is_empty() {
            return false;
        }
        let base = Path::new(t)
            .file_name()
            .map(|b| b.to_string_lossy().to_lowercase())
            .unwrap_or_default();
        if base != "git" && base != "git.exe" {
            return false;
        }
        let mut p = i as isize - 1;
        while p >= 0 && is_assignment(&args[p as usize]) {
            p -= 1;
        }
        p < 0 || BEFORE.contains(&args[p as usize].to_lowercase().as_str())
    })
}

fn is_assignment(s: &str) -> bool {
    let mut cs = s.chars();
    matches!(cs.next(), Some(c) if c.is_ascii_alphabetic() || c == '_') && {
        let rest: String = cs.collect();
        match rest.find('=') {
            Some(i) => rest[..i]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_'),
            None => false,
        }
    }
}

const FIND_UNSAFE: &[&str] = &[
    "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fls", "-fprint", "-fprint0", "-fprintf",
];

fn git_subcommand(args: &[String]) -> Option<(usize, &str)> {
    const SUBS: &[&str] = &["status", "log", "diff", "show", "branch"];
    let mut skip = false;
    for (idx, a) in args.iter().enumerate().skip(1) {
        if skip {
            skip = false;
            continue;
        }
        let with_value = [
            "--config-env=",
            "--exec-path=",
            "--git-dir=",
            "--namespace=",
            "--super-prefix=",
            "--work-tree=",
        ];
        if with_value.iter().any(|p| a.starts_with(p))
            || ((a.starts_with("-C") || a.starts_with("-c")) && a.len() > 2)
        {
            continue;
        }
        if matches!(
            a.as_str(),
            "-C" | "-c"
                | "--config-env"
                | "--exec-path"
                | "--git-dir"
                | "--namespace"
                | "--super-prefix"
                | "--work-tree"
        ) {
            skip = true;
            continue;
        }
        if a == "--" || a.starts_with('-') {
            continue;
        }
        return SUBS.iter().find(|s| **s == a).map(|s| (idx, *s));
    }
    None
}

fn git_config_override(args: &[String]) -> bool {
    args.iter().any(|a| {
        a == "-c"
            || a == "--config-env"
            || (a.starts_with("-c") && a.len() > 2)
            || a.starts_with("--config-env=")
    })
}

fn git_args_read_only(args: &[String]) -> bool {
    !args.iter().any(|a| {
        matches!(
            a.as_str(),
            "--output" | "--ext-diff" | "--textconv" | "--exec" | "--paginate"
        ) || a.starts_with("--output=")
            || a.starts_with("--exec=")
    })
}

fn git_branch_read_only(args: &[String]) -> bool {
    if args.is_empty() {
        return true;
    }
    let mut saw = false;
    for a in args {
        if matches!(
            a.as_str(),
            "--list"
                | "-l"
                | "--show-current"
                | "-a"
                | "--all"
                | "-r"
                | "--remotes"
                | "-v"
                | "-vv"
                | "--verbose"
        ) || a.starts_with("--format=")
        {
            saw = true;
        } else {
            return false;
        }
    }
    saw
}

fn sed_n_arg(a: Option<&String>) -> bool {
    let Some(a) = a else { return false };
    let Some(core) = a.strip_suffix('p') else {
        return false;
    };
    let parts: Vec<&str> = core.split(',').collect();
    let num = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    match parts.as_slice() {
        [n] => num(n),
        [a, b] => num(a) && num(b),
        _ => false,
    }
}

/// The file arguments of a reading command stay inside the workspace.
fn paths_inside(args: &[String], at: &Places, grep_like: bool) -> bool {
    let mut dd = false;
    let mut i = 1;
    while i < args.len() {
        let a = &args[i];
        if !dd {
            if a == "--" {
                dd = true;
                i += 1;
                continue;
            }
            if a == "-" {
                i += 1;
                continue;
            }
            if grep_like && (a.starts_with("-f") || a.starts_with("--file")) {
                let file = if let Some(v) = a.strip_prefix("--file=") {
                    Some(v.to_string())
                } else if a == "--file" {
                    i += 1;
                    args.get(i).cloned()
                } else if a.starts_with("--file") {
                    // `--filex`: read as `-f` with `ilex`… as the CLI does.
                    Some(a[2..].to_string())
                } else if a.len() > 2 {
                    Some(a[2..].to_string())
                } else {
                    i += 1;
                    args.get(i).cloned()
                };
                if file.is_some_and(|f| escapes(&f, at)) {
                    return false;
                }
                i += 1;
                continue;
            }
            if a.starts_with('-') {
                if let Some(eq) = a.find('=') {
                    if escapes(&a[eq + 1..], at) {
                        return false;
                    }
                    i += 1;
                    continue;
                }
                // An option unless a file of that name exists.
                if std::fs::symlink_metadata(resolve(at.cwd, a)).is_err() {
                    i += 1;
                    continue;
                }
            }
        }
        if escapes(a, at) {
            return false;
        }
        i += 1;
    }
    true
}

/// `isSafeToCallWithExec`.
fn safe_exec(args: &[String], at: &Places) -> bool {
    let Some(cmd) = args.first() else {
        return false;
    };
    let ws = real(at.workspace);
    let cwd = real(at.cwd);
    if !is_subpath(&ws, &cwd) {
        return false;
    }
    let at = Places {
        workspace: &ws,
        cwd: &cwd,
        home: at.home,
    };
    const READING: &[&str] = &[
        "cat", "head", "tail", "tac", "nl", "stat", "wc", "cut", "paste", "rev", "uniq", "numfmt",
        "ls", "__read",
    ];
    let c = cmd.as_str();
    if SAFE.contains(&c) {
        if c == "cd" {
            let mut has_path = false;
            for a in &args[1..] {
                if a.starts_with('-') {
                    continue;
                }
                has_path = true;
                if escapes(a, &at) {
                    return false;
                }
            }
            return has_path || !escapes("~", &at);
        }
        if READING.contains(&c) {
            return paths_inside(args, &at, false);
        }
        if c == "grep" {
            return paths_inside(args, &at, true);
        }
        return true;
    }
    match c {
        "base64" => {
            if args[1..]
                .iter()
                .any(|a| a == "--output" || a.starts_with("--output=") || a.starts_with("-o"))
            {
                return false;
            }
            args[1..]
                .iter()
                .filter(|a| !a.starts_with('-'))
                .all(|a| !escapes(a, &at))
        }
        "find" => {
            !args.iter().any(|a| FIND_UNSAFE.contains(&a.as_str()))
                && args[1..]
                    .iter()
                    .filter(|a| !a.starts_with('-'))
                    .all(|a| !escapes(a, &at))
        }
        "git" => {
            if git_config_override(args) {
                return false;
            }
            match git_subcommand(args) {
                Some((i, "branch")) => {
                    git_args_read_only(&args[i + 1..]) && git_branch_read_only(&args[i + 1..])
                }
                Some((i, _)) => git_args_read_only(&args[i + 1..]),
                None => false,
            }
        }
        "sed" => {
            args.len() <= 4
                && args.get(1).is_some_and(|a| a == "-n")
                && sed_n_arg(args.get(2))
                && !args.get(3).is_some_and(|a| escapes(a, &at))
        }
        // ripgrep: only at a trusted absolute system path.
        _ => false,
    }
}

/// The commands these heuristics judge by name and arguments (known safe,
/// dangerous): where Gemini decides without the rules alone, for `diff`.
pub fn self_decided_commands() -> Vec<&'static str> {
    let mut v = SAFE.to_vec();
    v.extend(["base64", "find", "git", "sed", "ln", "rm", "sudo", "rg"]);
    v
}

/// Commands `isKnownSafeCommand` takes as safe by their name (with
/// checks of their paths for some).
const SAFE: &[&str] = &[
    "__read", "__write", "cat", "cd", "cut", "echo", "expr", "false", "grep", "head", "id", "ls",
    "nl", "paste", "pwd", "rev", "seq", "stat", "tail", "tr", "true", "uname", "uniq", "wc",
    "which", "whoami", "numfmt", "tac",
];

/// `isKnownSafeCommand` (POSIX).
pub fn known_safe(args: &[String], at: &Places) -> bool {
    if args.is_empty() {
        return false;
    }
    let args: Vec<String> = args
        .iter()
        .map(|a| if a == "zsh" { "bash".into() } else { a.clone() })
        .collect();
    if safe_exec(&args, at) {
        return true;
    }
    if args.len() == 3 && args[0] == "bash" && (args[1] == "-lc" || args[1] == "-c") {
        let script = &args[2];
        if script.contains(['(', ')', '<', '>']) {
            return false;
        }
        let parts = shell::split_commands(script);
        if parts.is_empty() {
            return false;
        }
        return parts.iter().all(|p| {
            let t = super::super::model::js_trim(p);
            if t.is_empty() {
                return true;
            }
            match shell::words(t) {
                Some(w) if w.is_empty() => true,
                Some(w) => safe_exec(&w, at),
                None => false,
            }
        });
    }
    false
}

/// `isDangerousCommand` (POSIX).
pub fn dangerous(args: &[String]) -> bool {
    let Some(cmd) = args.first() else {
        return false;
    };
    match cmd.as_str() {
        "ln" if args.iter().any(|a| {
            a == "-s"
                || a == "--symbolic"
                || (a.starts_with('-') && !a.starts_with("--") && a.contains('s'))
        }) =>
        {
            true
        }
        "rm" => matches!(args.get(1).map(String::as_str), Some("-f" | "-rf" | "-fr")),
        "sudo" => dangerous(&args[1..]),
        "find" => args.iter().any(|a| FIND_UNSAFE.contains(&a.as_str())),
        "git" => {
            if git_config_override(args) {
                return true;
            }
            match git_subcommand(args) {
                Some((i, "branch")) => {
                    !(git_args_read_only(&args[i + 1..]) && git_branch_read_only(&args[i + 1..]))
                }
                Some((i, _)) => !git_args_read_only(&args[i + 1..]),
                None => false,
            }
        }
        "base64" => args[1..]
            .iter()
            .any(|a| a == "--output" || a.starts_with("--output=") || a.starts_with("-o")),
        c if Path::new(c)
            .file_name()
            .is_some_and(|b| b == "rg" || b == "rg.exe") =>
        {
            args.iter().any(|a| {
                a == "--search-zip"
                    || a == "-z"
                    || a == "--pre"
                    || a.starts_with("--pre=")
                    || a == "--hostname-bin"
                    || a.starts_with("--hostname-bin=")
            })
        }
        _ => false,
    }
}
