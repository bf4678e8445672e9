//! The read-only commands whose options Claude Code 2.1.332 checks before
//! it runs them without asking (`git log`, `grep`, `sort`, `ps`, …): every
//! option must be one the command's row lists (`read_only_options.rs`),
//! take the value it says, and pass the command's own check (a `git log
//! --format` that could run code, a `date` that sets the clock, a `man`
//! that reads a path, …). Observed on the real CLI
//! (`tests/fixtures/claude/oracle/observed-flags.json`).

use super::read_only_options::{SPECS, Spec};

/// What an option takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Takes {
    /// Nothing (`--stat`).
    N,
    /// A number (`-n 5`, `--max-count=5`).
    Num,
    /// Any value that is not itself an option.
    S,
    /// One character.
    Ch,
    /// `{}` (`xargs -I {}`).
    Braces,
    /// `EOF` (`xargs -E EOF`).
    Eof,
}

fn value_ok(v: &str, t: Takes) -> bool {
    match t {
        Takes::N => false,
        Takes::Num => !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()),
        Takes::S => true,
        Takes::Ch => v.chars().count() == 1,
        Takes::Braces => v == "{}",
        Takes::Eof => v == "EOF",
    }
}

/// `-x`, `--long`, `-1`: a word read as an option.
fn looks_like_option(w: &str) -> bool {
    let b = w.as_bytes();
    b.len() > 1 && b[0] == b'-' && (b[1].is_ascii_alphanumeric() || b[1] == b'_' || b[1] == b'-')
}

fn option(spec: &Spec, name: &str) -> Option<Takes> {
    spec.options
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| *t)
}

/// The commands `xargs` may run and stay read-only.
const XARGS_TARGETS: &[&str] = &[
    "echo", "printf", "wc", "grep", "egrep", "fgrep", "head", "tail",
];

/// Do the words from `start` on pass the command's option table?
fn options_ok(argv: &[String], start: usize, spec: &Spec) -> bool {
    let name = argv[0].as_str();
    let grep_like = matches!(name, "grep" | "egrep" | "fgrep" | "rg");
    let mut i = start;
    while i < argv.len() {
        let mut w = argv[i].as_str();
        if w.is_empty() {
            i += 1;
            continue;
        }
        if name == "xargs" && (!w.starts_with('-') || w == "--") {
            if w == "--" && i + 1 < argv.len() {
                i += 1;
                w = argv[i].as_str();
            }
            return XARGS_TARGETS.contains(&w);
        }
        if w == "--" {
            i += 1;
            if spec.double_dash_ends_options {
                break;
            }
            continue;
        }
        // Any word starting with `-` is an option here (observed: `lsof
        // -?` asks), though only `-x`/`--x` words count as a value's
        // absence below.
        if !(w.starts_with('-') && w.len() > 1) {
            i += 1;
            continue;
        }
        let (flag, value) = match w.split_once('=') {
            Some((f, v)) => (f, Some(v)),
            None => (w, None),
        };
        if flag.is_empty() {
            return false;
        }
        let Some(takes) = option(spec, flag) else {
            // `git log -5`.
            if name == "git" && flag.len() > 1 && flag[1..].bytes().all(|b| b.is_ascii_digit()) {
                i += 1;
                continue;
            }
            // `grep -A3`: an option glued to its number.
            if grep_like && !flag.starts_with("--") && flag.len() > 2 {
                let (short, rest) = flag.split_at(2);
                if let Some(t @ (Takes::Num | Takes::S)) = option(spec, short)
                    && rest.bytes().all(|b| b.is_ascii_digit())
                {
                    if value_ok(rest, t) {
                        i += 1;
                        continue;
                    }
                    return false;
                }
            }
            // `-la`: each letter an option that takes nothing.
            if !flag.starts_with("--") && flag.len() > 2 {
                let all = flag[1..]
                    .chars()
                    .all(|c| option(spec, &format!("-{c}")) == Some(Takes::N));
                if !all {
                    return false;
                }
                i += 1;
                continue;
            }
            return false;
        };
        if takes == Takes::N {
            if value.is_some() {
                return false;
            }
            i += 1;
            continue;
        }
        let v = match value {
            Some(v) => {
                i += 1;
                v
            }
            None => {
                match argv.get(i + 1) {
                    None => return false,
                    Some(next) if looks_like_option(next) => return false,
                    Some(_) => {}
                }
                i += 2;
                argv[i - 1].as_str()
            }
        };
        if takes == Takes::S
            && v.starts_with('-')
            && !(flag == "--sort"
                && name == "git"
                && v.as_bytes().get(1).is_some_and(|b| b.is_ascii_alphabetic()))
        {
            return false;
        }
        if !value_ok(v, takes) {
            return false;
        }
    }
    true
}

/// `~` in a value (`--x=~`, `a:~`), or with a brace expansion.
fn tilde_value(args: &[String]) -> bool {
    args.iter().any(|a| {
        let tilde_start = a.starts_with('~') || a.contains("=~") || a.contains(":~");
        tilde_start || (a.contains('~') && a.contains('{'))
    })
}

/// `%G…` or `%(signature`: a format that runs gpg.
fn signature_format(v: &str) -> bool {
    let b = v.as_bytes();
    for (i, _) in v.match_indices('%') {
        let mut j = i + 1;
        if matches!(b.get(j), Some(b'-' | b'+' | b' ')) {
            j += 1;
        }
        if b.get(j) == Some(&b'G') {
            return true;
        }
        if v[i + 1..].starts_with("(signature") || v[i + 1..].starts_with("(*signature") {
            return true;
        }
    }
    false
}

/// git's `--format`, `--pretty`, `--sort` and `--group` values the CLI
/// refuses: a signature, a `~`, or a pretty name it does not know.
fn git_format_dangerous(args: &[String]) -> bool {
    for (i, a) in args.iter().enumerate() {
        if signature_format(a) {
            return true;
        }
        for opt in ["--format", "--pretty", "--sort", "--group"] {
            let value = if a == opt {
                args.get(i + 1).map(String::as_str)
            } else {
                a.strip_prefix(opt).and_then(|r| r.strip_prefix('='))
            };
            let Some(v) = value else { continue };
            if tilde_value(&[v.to_string()]) || signature_format(v) || v.contains("signature") {
                return true;
            }
            if (opt == "--format" || opt == "--pretty")
                && !v.is_empty()
                && !v.contains('%')
                && !v.starts_with("format:")
                && !v.starts_with("tformat:")
                && !matches!(
                    v,
                    "oneline" | "short" | "medium" | "full" | "fuller" | "email" | "raw"
                )
            {
                return true;
            }
        }
    }
    false
}

/// The part of a `--name=value` word before the `=`.
fn option_name(w: &str) -> &str {
    w.split('=').next().unwrap_or(w)
}

/// The command's own check of its arguments (after the command words):
/// does it make the call ask?
fn dangerous(command: &str, args: &[String]) -> bool {
    match command {
        "git diff" => {
            let before = args
                .iter()
                .position(|a| a == "--")
                .map_or(args, |d| &args[..d]);
            let short = before.iter().any(|a| a == "--submodule=short");
            args.iter().any(|a| {
                (option_name(a) == "--submodule" && a != "--submodule=short")
                    || (option_name(a) == "--ignore-submodules"
                        && a != "--ignore-submodules=all"
                        && !(a == "--ignore-submodules=dirty" && short))
            })
        }
        "git log" | "git show" | "git shortlog" | "git rev-list" | "git for-each-ref" => {
            git_format_dangerous(args)
        }
        "git reflog" => {
            if let Some(first) = args.first()
                && !first.starts_with('-')
                && !matches!(first.as_str(), "show" | "list")
            {
                return true;
            }
            args.iter().any(|a| {
                matches!(
                    a.as_str(),
                    "expire" | "delete" | "exists" | "drop" | "write"
                )
            })
        }
        "git ls-remote" => {
            if git_format_dangerous(args) {
                return true;
            }
            let mut after = false;
            let mut i = 0;
            while i < args.len() {
                let a = &args[i];
                if !after && a == "--" {
                    after = true;
                } else if !after && (a.is_empty() || a.starts_with('-')) {
                    if a == "--sort" {
                        i += 1;
                    }
                } else {
                    return true;
                }
                i += 1;
            }
            false
        }
        "git remote show" => {
            let dd = args.iter().position(|a| a == "--");
            let (before, after) = match dd {
                Some(d) => (&args[..d], &args[d + 1..]),
                None => (args, &args[args.len()..]),
            };
            let rest: Vec<&String> = before
                .iter()
                .filter(|a| *a != "-n")
                .chain(after.iter())
                .collect();
            if rest.len() != 1 || !before.iter().any(|a| a == "-n") {
                return true;
            }
            let r = rest[0];
            !(r.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
                && r.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'))
        }
        "git remote" => args.iter().any(|a| a != "-v" && a != "--verbose"),
        "git tag" | "git branch" => {
            if git_format_dangerous(args) {
                return true;
            }
            let tag = command == "git tag";
            let takes_value: &[&str] = if tag {
                &[
                    "--contains",
                    "--no-contains",
                    "--merged",
                    "--no-merged",
                    "--points-at",
                    "--sort",
                    "--format",
                    "-n",
                ]
            } else {
                &["--contains", "--no-contains", "--points-at", "--sort"]
            };
            let mut listing = false;
            let mut after = false;
            let mut last = String::new();
            let mut i = 0;
            while i < args.len() {
                let a = &args[i];
                if a.is_empty() {
                    i += 1;
                    continue;
                }
                if a == "--" && !after {
                    after = true;
                    last.clear();
                    i += 1;
                    continue;
                }
                if !after && a.starts_with('-') {
                    if a == "--list"
                        || a == "-l"
                        || (!a.starts_with("--")
                            && a.len() > 2
                            && !a.contains('=')
                            && a[1..].contains('l'))
                    {
                        listing = true;
                    }
                    if a.contains('=') {
                        last = option_name(a).to_string();
                        i += 1;
                    } else if takes_value.contains(&a.as_str()) {
                        last = a.clone();
                        i += 2;
                    } else {
                        last = a.clone();
                        i += 1;
                    }
                } else {
                    // A name creates a tag or branch unless listing (or,
                    // for branches, after `--merged`/`--no-merged`).
                    let merged = !tag && matches!(last.as_str(), "--merged" | "--no-merged");
                    if !listing && !merged {
                        return true;
                    }
                    i += 1;
                }
            }
            false
        }
        "help" => {
            args.iter().any(|a| a.contains('~'))
                || args.iter().any(|a| a.contains('/') || a.contains('\\'))
        }
        "man" => man_dangerous(args),
        "ps" => {
            let e_anywhere = args
                .iter()
                .any(|a| !looks_like_option(a) && a.contains(['e', 'E']));
            let e_flag = args.iter().any(|a| {
                a.strip_prefix('-').is_some_and(|r| {
                    r.bytes()
                        .take_while(|b| b.is_ascii_alphabetic())
                        .any(|b| b == b'e')
                })
            });
            let simple = args.iter().all(|a| {
                a == "--forest"
                    || a.strip_prefix('-').is_some_and(|r| {
                        !r.is_empty() && r.chars().all(|c| "AacdeFfjlwHLTm".contains(c))
                    })
            });
            let tree_flags: usize = args
                .iter()
                .map(|a| {
                    if a == "--forest" {
                        1
                    } else {
                        a.chars().filter(|c| "HLTm".contains(*c)).count()
                    }
                })
                .sum();
            e_anywhere || (e_flag && !(simple && tree_flags <= 1))
        }
        "date" => {
            let mut i = 0;
            while i < args.len() {
                let a = &args[i];
                if a.starts_with("--") && a.contains('=') {
                    i += 1;
                } else if a.starts_with('-') {
                    i += if matches!(
                        a.as_str(),
                        "-d" | "--date" | "-r" | "--reference" | "--rfc-3339"
                    ) {
                        2
                    } else {
                        1
                    };
                } else {
                    if !a.starts_with('+') {
                        return true;
                    }
                    i += 1;
                }
            }
            false
        }
        "hostname" => args.iter().any(|a| {
            !(a.strip_prefix("--").is_some_and(|r| {
                !r.is_empty() && r.bytes().all(|b| b.is_ascii_alphabetic() || b == b'-')
            }) || (a.len() == 2 && a.starts_with('-') && a.as_bytes()[1].is_ascii_alphabetic()))
        }),
        "which" => {
            let mut after = false;
            for a in args {
                if after {
                    continue;
                }
                if a == "--" {
                    after = true;
                } else if let Some(flags) = a.strip_prefix('-') {
                    let short = !flags.is_empty() && flags.bytes().all(|b| b.is_ascii_alphabetic());
                    let long = a.strip_prefix("--").is_some_and(|r| {
                        !r.is_empty() && r.bytes().all(|b| b.is_ascii_lowercase() || b == b'-')
                    });
                    if !short && !long {
                        return true;
                    }
                }
            }
            false
        }
        "lsof" => args.iter().enumerate().any(|(i, a)| {
            if a.starts_with("+m") {
                return true;
            }
            let host_of = |s: &str| -> bool {
                let after = &s[s.find('@').map_or(s.len(), |p| p + 1)..];
                let host = after.split(':').next().unwrap_or("");
                host.bytes().any(|b| b.is_ascii_alphabetic())
            };
            let i_flag = |s: &str| {
                s.strip_prefix('-').is_some_and(|r| {
                    let letters: String =
                        r.chars().take_while(|c| c.is_ascii_alphabetic()).collect();
                    letters.ends_with('i') || letters.contains('i')
                })
            };
            if i_flag(a) && a.contains('@') && host_of(a) {
                return true;
            }
            if a.strip_prefix('-').is_some_and(|r| {
                !r.is_empty() && r.bytes().all(|b| b.is_ascii_alphabetic()) && r.ends_with('i')
            }) && let Some(next) = args.get(i + 1)
            {
                return next.contains('~') || (next.contains('@') && host_of(next));
            }
            false
        }),
        "tput" => {
            const CHANGES: &[&str] = &[
                "init", "reset", "rs1", "rs2", "rs3", "is1", "is2", "is3", "iprog", "if", "rf",
                "clear", "flash", "mc0", "mc4", "mc5", "mc5i", "mc5p", "pfkey", "pfloc", "pfx",
                "pfxl", "smcup", "rmcup",
            ];
            let mut after = false;
            let mut i = 0;
            while i < args.len() {
                let a = &args[i];
                if a == "--" {
                    after = true;
                    i += 1;
                } else if !after && a.starts_with('-') {
                    if a == "-S" || (!a.starts_with("--") && a.len() > 2 && a.contains('S')) {
                        return true;
                    }
                    i += if a == "-T" { 2 } else { 1 };
                } else {
                    if CHANGES.contains(&a.as_str()) {
                        return true;
                    }
                    i += 1;
                }
            }
            false
        }
        "docker logs" | "docker inspect" => tilde_value(args),
        "test" => {
            if args
                .iter()
                .any(|a| matches!(a.as_str(), "-v" | "-R" | "-a" | "-o") || a.contains('['))
            {
                return true;
            }
            // A numeric comparison or `-t` takes integers only.
            let integer = |w: &str| {
                let d = w.strip_prefix(['-', '+']).unwrap_or(w);
                !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())
            };
            args.iter().enumerate().any(|(i, a)| {
                if matches!(a.as_str(), "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge") {
                    let before = i.checked_sub(1).and_then(|j| args.get(j));
                    return [before, args.get(i + 1)]
                        .into_iter()
                        .flatten()
                        .any(|n| !integer(n));
                }
                a == "-t" && args.get(i + 1).is_some_and(|n| !integer(n))
            })
        }
        "ss" => ss_dangerous(args),
        _ => false,
    }
}

/// `ss`: a filter may only name states, ports and addresses (a host
/// name, or any word with letters past `f`, asks).
fn ss_dangerous(args: &[String]) -> bool {
    let mut words: Vec<&str> = Vec::new();
    let mut ended = false;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if !ended && a == "--" {
            ended = true;
        } else if !ended && a.starts_with('-') {
            if matches!(a, "-f" | "--family" | "-A" | "--query" | "--socket") {
                i += 1;
            }
        } else {
            words.push(a);
        }
        i += 1;
    }
    if words.iter().any(|w| w.contains('~')) {
        return true;
    }
    let joined = words.join(" ");
    let tokens = joined
        .split(|c: char| c.is_whitespace() || "()=!<>&|,".contains(c))
        .filter(|t| !t.is_empty());
    const KEYWORDS: &[&str] = &[
        "dst",
        "src",
        "dport",
        "sport",
        "and",
        "or",
        "not",
        "eq",
        "ne",
        "ge",
        "le",
        "gt",
        "lt",
        "autobound",
        "state",
        "exclude",
        "dev",
        "fwmark",
        "cgroup",
    ];
    const TAKE_VALUE: &[&str] = &[
        "state", "exclude", "dport", "sport", "dev", "fwmark", "cgroup",
    ];
    let mut skip = false;
    for t in tokens {
        if skip {
            skip = false;
            continue;
        }
        if KEYWORDS.contains(&t) {
            skip = TAKE_VALUE.contains(&t);
            continue;
        }
        let high = t
            .bytes()
            .any(|b| matches!(b.to_ascii_lowercase(), b'g'..=b'z'));
        let hex = t
            .bytes()
            .any(|b| matches!(b.to_ascii_lowercase(), b'a'..=b'f'));
        if high || (hex && (t.contains('.') || !t.contains(':'))) {
            return true;
        }
    }
    false
}

/// `man`: `-k`/`-f` searches take no path; a page given as a path, or an
/// option after a search option, asks.
fn man_dangerous(args: &[String]) -> bool {
    let search = args.iter().take_while(|a| *a != "--").any(|a| {
        if !a.starts_with('-') || a == "-" {
            return false;
        }
        if a.starts_with("--") {
            matches!(a.as_str(), "-k" | "-f" | "--apropos" | "--whatis")
        } else {
            a[1..].contains(['k', 'f'])
        }
    });
    let mut searching = false;
    let mut ended = false;
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if !ended && a == "--" {
            ended = true;
            i += 1;
            continue;
        }
        if !(ended || !a.starts_with('-') || a == "-") {
            if matches!(a.as_str(), "-k" | "-f" | "--apropos" | "--whatis") {
                searching = true;
            } else if a == "-S" || a == "-s" {
                i += 1;
            }
            i += 1;
            continue;
        }
        ended = true;
        if search && a.starts_with('-') {
            return true;
        }
        if !searching && (a.contains('/') || a.contains('\\') || a.contains('~')) {
            return true;
        }
        i += 1;
    }
    false
}

/// The row of `argv`'s command (the first whose words start it), and how
/// many words name the command.
pub fn spec_of(argv: &[String]) -> Option<(&'static Spec, usize)> {
    // Asked for every command of every decision: compared word by word
    // without collecting each row's words.
    SPECS.iter().find_map(|s| {
        let mut n = 0;
        for w in s.command.split(' ') {
            if argv.get(n).is_none_or(|a| a != w) {
                return None;
            }
            n += 1;
        }
        Some((s, n))
    })
}

/// For a command with a row: does it run without asking? `None` when the
/// command has no row.
pub fn allowlisted(argv: &[String]) -> Option<bool> {
    let (spec, n) = spec_of(argv)?;
    let args = &argv[n..];
    if spec.command == "git ls-remote" {
        // Options only: a remote (or anything after `--`) asks.
        if args
            .iter()
            .any(|a| a == "-o" || option_name(a) == "--server-option")
        {
            return Some(false);
        }
        let mut ended = false;
        for a in args {
            if a.is_empty() {
                continue;
            }
            if !ended && a == "--" {
                ended = true;
                continue;
            }
            if ended || a == "-" || !a.starts_with('-') {
                return Some(false);
            }
        }
    }
    if args
        .iter()
        .any(|a| a.contains('$') || (a.contains('{') && (a.contains(',') || a.contains(".."))))
    {
        return Some(false);
    }
    if !options_ok(argv, n, spec) {
        return Some(false);
    }
    Some(!dangerous(spec.command, args))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(line: &str) -> Option<bool> {
        let argv: Vec<String> = line.split(' ').map(String::from).collect();
        allowlisted(&argv)
    }

    #[test]
    fn options_as_the_tables_say() {
        assert_eq!(ok("git log --oneline -n 5"), Some(true));
        assert_eq!(ok("git log --flag"), Some(false));
        assert_eq!(ok("git log -5"), Some(true));
        assert_eq!(ok("git log --format=%H"), Some(true));
        assert_eq!(ok("git log --format=%G?"), Some(false));
        assert_eq!(ok("git log --pretty=foo"), Some(false));
        assert_eq!(ok("grep -rn foo ."), Some(true));
        assert_eq!(ok("grep -A3 foo a.txt"), Some(true));
        assert_eq!(ok("sort -o out a.txt"), Some(false));
        assert_eq!(ok("git branch -D x"), Some(false));
        assert_eq!(ok("git branch"), Some(true));
        assert_eq!(ok("git branch newname"), Some(false));
        assert_eq!(ok("git tag -l v1"), Some(true));
        assert_eq!(ok("git tag v1"), Some(false));
        assert_eq!(ok("date +%s"), Some(true));
        assert_eq!(ok("date 0101"), Some(false));
        assert_eq!(ok("xargs grep x"), Some(true));
        assert_eq!(ok("xargs rm"), Some(false));
        assert_eq!(ok("npm test"), None);
    }
}
