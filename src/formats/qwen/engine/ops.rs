//! The file and network access Qwen Code reads out of a shell command
//! (its shell-semantics module), checked against Read / Edit / Write /
//! WebFetch rules: `cat .env` is a read of `.env`, `echo x > a` a write,
//! `curl https://x` a fetch of `x`. Commands whose access this reading
//! does not model are named, so an answer that depends on them says so.

use super::matching::join;
use super::shell::{self, Segment};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq)]
pub struct Op {
    /// `read_file`, `list_directory`, `write_file`, `edit`, `web_fetch`.
    pub tool: &'static str,
    pub file: Option<String>,
    pub domain: Option<String>,
    /// After a `cd` whose target is not known.
    pub cwd_unknown: bool,
    pub path_may_depend_on_cwd: bool,
}

fn op(tool: &'static str, file: String) -> Op {
    Op {
        tool,
        file: Some(file),
        domain: None,
        cwd_unknown: false,
        path_may_depend_on_cwd: false,
    }
}

fn resolve(p: &str, cwd: &Path, home: &Path) -> String {
    let n = p.replace('\\', "/");
    if n == "~" {
        return home.display().to_string();
    }
    if let Some(r) = n.strip_prefix("~/") {
        return join(home, r);
    }
    if n.starts_with('/') {
        return n;
    }
    join(cwd, &n)
}

fn looks_like_path(s: &str) -> bool {
    !(s.is_empty()
        || s.starts_with('$')
        || s.starts_with('-')
        || s.chars().all(|c| c.is_ascii_digit())
        || s.contains(['{', '}'])
        || s.contains("://"))
}

fn net_device(t: &str) -> bool {
    t.starts_with("/dev/tcp/") || t.starts_with("/dev/udp/")
}

fn is_assignment(t: &str) -> bool {
    let mut cs = t.chars();
    matches!(cs.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && t.find('=').is_some_and(|i| {
            t[1..i]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

/// `extractRedirects`: reads and writes of redirections, removed from the
/// words.
fn redirects(words: &mut Vec<String>, cwd: &Path, home: &Path) -> (Vec<String>, Vec<String>) {
    let (mut reads, mut writes) = (Vec::new(), Vec::new());
    let mut remove = std::collections::BTreeSet::new();
    let mut i = 0;
    while i < words.len() {
        let t = words[i].as_str();
        let next = words.get(i + 1).cloned();
        match t {
            ">" | "1>" | ">>" | "1>>" | "<" => {
                if let Some(n) = next.filter(|n| looks_like_path(n)) {
                    if !net_device(&n) {
                        let r = resolve(&n, cwd, home);
                        if t == "<" {
                            reads.push(r)
                        } else {
                            writes.push(r)
                        }
                    }
                    remove.insert(i);
                    remove.insert(i + 1);
                    i += 1;
                }
            }
            "<<" | "<<-" => {
                remove.insert(i);
                if next.is_some() {
                    remove.insert(i + 1);
                    i += 1;
                }
            }
            "2>" | "2>>" | "&>" | "&>>" => {
                if let Some(n) = next {
                    if n != "/dev/null" && looks_like_path(&n) && !net_device(&n) {
                        writes.push(resolve(&n, cwd, home));
                    }
                    remove.insert(i);
                    remove.insert(i + 1);
                    i += 1;
                }
            }
            _ => {
                for o in [
                    "<<-", "<<", "1>>", "1>", ">>", ">", "2>>", "2>", "&>>", "&>", "<",
                ] {
                    if let Some(target) = t.strip_prefix(o).filter(|x| !x.is_empty()) {
                        if !o.starts_with("<<")
                            && target != "/dev/null"
                            && looks_like_path(target)
                            && !net_device(target)
                        {
                            let r = resolve(target, cwd, home);
                            if o == "<" {
                                reads.push(r)
                            } else {
                                writes.push(r)
                            }
                        }
                        remove.insert(i);
                        break;
                    }
                }
            }
        }
        i += 1;
    }
    let kept: Vec<String> = words
        .iter()
        .enumerate()
        .filter(|(i, _)| !remove.contains(i))
        .map(|(_, w)| w.clone())
        .collect();
    *words = kept;
    (reads, writes)
}

fn positional(args: &[String], with_value: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let mut skip = false;
    for a in args {
        if skip {
            skip = false;
            continue;
        }
        if !a.starts_with('-') {
            out.push(a.clone());
            continue;
        }
        if let Some(eq) = a.find('=').filter(|&e| e > 0)
            && with_value.contains(&&a[..eq])
        {
            continue;
        }
        if with_value.contains(&a.as_str()) {
            skip = true;
            continue;
        }
        for f in with_value {
            if f.len() == 2 && !f.starts_with("--") && a.starts_with(f) && a.len() > 2 {
                break;
            }
            if f.len() == 2
                && !f.starts_with("--")
                && !a.starts_with("--")
                && a[1..].contains(&f[1..])
            {
                skip = true;
                break;
            }
        }
    }
    out
}

/// Commands whose file or network access Qwen reads, by how.
const READS: &[(&str, &[&str])] = &[
    ("cat", &[]),
    ("tac", &[]),
    ("nl", &[]),
    ("head", &["-n", "-c", "--lines", "--bytes"]),
    (
        "tail",
        &["-n", "-c", "-s", "--lines", "--bytes", "--sleep-interval"],
    ),
    ("wc", &[]),
    ("stat", &[]),
    ("file", &[]),
    ("tr", &[]),
];
const LISTS: &[&str] = &["ls", "dir", "vdir"];
const WRITES: &[(&str, &str, &[&str])] = &[
    (
        "touch",
        "write_file",
        &["-t", "-r", "--reference", "--date", "-d", "--time"],
    ),
    ("mkdir", "write_file", &["-m", "--mode", "-Z", "--context"]),
    ("tee", "write_file", &[]),
    ("rm", "edit", &["--interactive"]),
    (
        "rmdir",
        "edit",
        &["--ignore-fail-on-non-empty", "-p", "--parents"],
    ),
    ("unlink", "edit", &[]),
];
/// Every command Qwen's table knows (the ones above and those this
/// reading does not model).
const KNOWN: &[&str] = &[
    "cat",
    "tac",
    "nl",
    "zcat",
    "bzcat",
    "xzcat",
    "gzcat",
    "lzcat",
    "head",
    "tail",
    "less",
    "more",
    "most",
    "wc",
    "file",
    "stat",
    "readlink",
    "realpath",
    "diff",
    "diff3",
    "sdiff",
    "cmp",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "sha512sum",
    "sha224sum",
    "sha384sum",
    "cksum",
    "b2sum",
    "sum",
    "strings",
    "hexdump",
    "xxd",
    "od",
    "sort",
    "uniq",
    "cut",
    "paste",
    "join",
    "column",
    "fold",
    "expand",
    "unexpand",
    "base64",
    "base32",
    "tr",
    "grep",
    "egrep",
    "fgrep",
    "zgrep",
    "bzgrep",
    "rg",
    "ag",
    "ack",
    "ls",
    "dir",
    "vdir",
    "exa",
    "eza",
    "lsd",
    "find",
    "tree",
    "du",
    "touch",
    "mkdir",
    "mkfifo",
    "tee",
    "cp",
    "mv",
    "install",
    "dd",
    "rsync",
    "ln",
    "rm",
    "rmdir",
    "unlink",
    "shred",
    "truncate",
    "chmod",
    "chown",
    "chgrp",
    "rename",
    "patch",
    "perl",
    "sed",
    "awk",
    "gawk",
    "curl",
    "wget",
    "fetch",
];
const PREFIXES: &[&str] = &[
    "sudo", "doas", "env", "time", "nice", "ionice", "nohup", "timeout", "unbuffer", "stdbuf",
];

const CURL_VALUE_FLAGS: &[&str] = &[
    "-o",
    "-O",
    "--output",
    "-u",
    "--user",
    "-A",
    "--user-agent",
    "-H",
    "--header",
    "-d",
    "--data",
    "--data-binary",
    "--data-raw",
    "--data-urlencode",
    "-X",
    "--request",
    "-F",
    "--form",
    "-e",
    "--referer",
    "-T",
    "--upload-file",
    "--cacert",
    "--capath",
    "--cert",
    "--key",
    "--pass",
    "-m",
    "--max-time",
    "--connect-timeout",
    "-r",
    "--range",
    "--limit-rate",
    "-b",
    "--cookie",
    "-c",
    "--cookie-jar",
    "--proxy",
    "-U",
    "--proxy-user",
    "-K",
    "--config",
    "--netrc-file",
    "--resolve",
    "--connect-to",
    "-w",
    "--write-out",
    "-x",
    "-Y",
    "--speed-limit",
    "--speed-time",
    "-y",
    "--max-filesize",
    "--proto",
    "--proto-redir",
    "-E",
    "--cert-type",
    "--key-type",
];
const WGET_VALUE_FLAGS: &[&str] = &[
    "-O",
    "--output-document",
    "-P",
    "--directory-prefix",
    "-o",
    "--output-file",
    "-a",
    "--append-output",
    "-U",
    "--user-agent",
    "--header",
    "-e",
    "--execute",
    "--tries",
    "-t",
    "-T",
    "--timeout",
    "--wait",
    "-w",
    "--quota",
    "-Q",
    "--bind-address",
    "--limit-rate",
    "--user",
    "--password",
    "--proxy-user",
    "--proxy-password",
    "-i",
    "--input-file",
    "--base",
    "--config",
    "--referer",
    "-D",
    "--domains",
    "--exclude-domains",
    "-I",
    "--include-directories",
    "-X",
    "--exclude-directories",
    "--regex-type",
    "-A",
    "-R",
    "--accept",
    "--reject",
    "--no-check-certificate",
    "--ca-certificate",
    "--ca-directory",
    "--certificate",
    "--private-key",
];

/// `getFlagValue`: the value of `-o x`, `--output x`, `--output=x`, `-ox`,
/// or of a short flag combined with others (`-so x`).
fn flag_value(args: &[String], short: &str, long: &str) -> Option<String> {
    for (i, a) in args.iter().enumerate() {
        if a == short || a == long {
            return args.get(i + 1).cloned();
        }
        if let Some(v) = a.strip_prefix(&format!("{long}=")) {
            return Some(v.to_string());
        }
        if a.starts_with(short) && a.len() > short.len() {
            return Some(a[short.len()..].trim_start_matches('=').to_string());
        }
        if a.starts_with('-') && !a.starts_with("--") && a[1..].contains(&short[1..]) {
            return args.get(i + 1).cloned();
        }
    }
    None
}

/// Whether a word of `command` is an absolute path that resolves to `file`
/// (its access does not depend on the working directory).
fn absolute_token_for(command: &str, cwd: &Path, home: &Path, file: Option<&str>) -> bool {
    let Some(file) = file else { return false };
    shell::words(command).iter().any(|t| {
        let target = ["1>>", "1>", ">>", ">", "2>>", "2>", "&>>", "&>", "<"]
            .iter()
            .find_map(|o| t.strip_prefix(o).filter(|x| !x.is_empty()))
            .unwrap_or(t);
        looks_like_path(target) && target.starts_with('/') && resolve(target, cwd, home) == file
    })
}

fn web(url: &str) -> Option<Op> {
    let u = if url.contains("://") {
        url.to_string()
    } else {
        format!("https://{url}")
    };
    let host = super::decide::hostname(&u)?;
    (!host.is_empty()).then_some(Op {
        tool: "web_fetch",
        file: None,
        domain: Some(host),
        cwd_unknown: false,
        path_may_depend_on_cwd: false,
    })
}

/// `extractShellOperations` of one simple command; `unmodelled` collects
/// the known commands this reading does not take apart.
fn simple(cmd: &str, cwd: &Path, home: &Path, unmodelled: &mut Vec<String>) -> Vec<Op> {
    let mut w = shell::words(cmd);
    if w.is_empty() {
        return Vec::new();
    }
    let (reads, writes) = redirects(&mut w, cwd, home);
    while w.first().is_some_and(|t| is_assignment(t)) {
        w.remove(0);
    }
    let mut ops = Vec::new();
    if let Some(name) = w.first().cloned() {
        let args = &w[1..];
        if PREFIXES.contains(&name.as_str()) {
            let with_value: &[&str] = match name.as_str() {
                "sudo" => &[
                    "-u",
                    "--user",
                    "-g",
                    "--group",
                    "-C",
                    "--close-from",
                    "-c",
                    "--login-class",
                    "-D",
                    "--chdir",
                    "-p",
                    "--prompt",
                    "-r",
                    "--role",
                    "-t",
                    "--type",
                    "-T",
                    "--command-timeout",
                    "-U",
                    "--other-user",
                ],
                "timeout" => &["-s", "--signal", "-k", "--kill-after"],
                _ => &[],
            };
            let mut i = 0;
            while i < args.len() {
                if args[i].starts_with('-') {
                    let flag = args[i].clone();
                    i += 1;
                    if with_value.contains(&flag.as_str())
                        && i < args.len()
                        && !args[i].starts_with('-')
                    {
                        i += 1;
                    }
                } else if is_assignment(&args[i]) {
                    i += 1;
                } else {
                    break;
                }
            }
            if name == "timeout"
                && args
                    .get(i)
                    .is_some_and(|a| a.starts_with(|c: char| c.is_ascii_digit()))
            {
                i += 1;
            }
            if i < args.len() {
                ops.extend(simple(&args[i..].join(" "), cwd, home, unmodelled));
            }
        } else if let Some((_, flags)) = READS.iter().find(|(n, _)| *n == name) {
            for p in positional(args, flags)
                .into_iter()
                .filter(|p| looks_like_path(p))
            {
                ops.push(op("read_file", resolve(&p, cwd, home)));
            }
        } else if LISTS.contains(&name.as_str()) {
            let dirs: Vec<String> = positional(args, &[])
                .into_iter()
                .filter(|p| looks_like_path(p))
                .collect();
            if dirs.is_empty() {
                ops.push(op("list_directory", cwd.display().to_string()));
            }
            for d in dirs {
                ops.push(op("list_directory", resolve(&d, cwd, home)));
            }
        } else if let Some((_, tool, flags)) = WRITES.iter().find(|(n, _, _)| *n == name) {
            for p in positional(args, flags)
                .into_iter()
                .filter(|p| looks_like_path(p))
            {
                ops.push(op(tool, resolve(&p, cwd, home)));
            }
        } else if name == "curl" || name == "wget" {
            let (flags, out_short, out_long) = if name == "curl" {
                (CURL_VALUE_FLAGS, "-o", "--output")
            } else {
                (WGET_VALUE_FLAGS, "-O", "--output-document")
            };
            if let Some(out) = flag_value(args, out_short, out_long).filter(|t| looks_like_path(t))
            {
                ops.push(op("write_file", resolve(&out, cwd, home)));
            }
            for a in positional(args, flags).iter().filter(|a| a.contains("://")) {
                ops.extend(web(a));
            }
        } else if KNOWN.contains(&name.as_str()) {
            unmodelled.push(format!("`{name}`"));
        }
    }
    for r in reads {
        ops.push(op("read_file", r));
    }
    for wr in writes {
        ops.push(op("write_file", wr));
    }
    ops
}

fn cd_target(sub: &str, cwd: &Path, home: &Path) -> Option<Option<PathBuf>> {
    let mut w = shell::words(sub);
    redirects(&mut w, cwd, home);
    match w.first().map(String::as_str) {
        Some("popd") => return Some(None),
        Some("cd") | Some("pushd") => {}
        _ => return None,
    }
    if w[0] == "pushd"
        && (w.len() == 1
            || w[1] == "-n"
            || w[1].starts_with(['+', '-'])
                && w[1][1..].chars().all(|c| c.is_ascii_digit())
                && w[1].len() > 1)
    {
        return Some(None);
    }
    let mut i = 1;
    while i < w.len() && w[i].starts_with('-') && w[i] != "-" && w[i] != "--" {
        i += 1;
    }
    if w.get(i).is_some_and(|x| x == "--") {
        i += 1;
    }
    let target = w
        .get(i)
        .cloned()
        .unwrap_or_else(|| home.display().to_string());
    if target == "-" || target.contains('$') || target.contains('`') {
        return Some(None);
    }
    Some(Some(PathBuf::from(resolve(&target, cwd, home))))
}

/// `extractShellOperationsAcrossCommand`: every part, following `cd`s.
pub fn across(command: &str, cwd: &Path, home: &Path, unmodelled: &mut Vec<String>) -> Vec<Op> {
    walk(command, cwd, home, 0, false, unmodelled)
}

fn walk(
    command: &str,
    cwd: &Path,
    home: &Path,
    depth: usize,
    unknown: bool,
    unmodelled: &mut Vec<String>,
) -> Vec<Op> {
    if shell::has_heredoc(command) {
        unmodelled.push("a here-document".into());
    }
    let mut ops = Vec::new();
    let mut eff = cwd.to_path_buf();
    let mut cwd_unknown = unknown;
    for Segment {
        command: sub,
        terminator,
    } in shell::segments(command)
    {
        let bg = terminator == "&";
        match cd_target(&sub, &eff, home) {
            Some(Some(t)) => {
                if !bg {
                    let relative = !shell::words(&sub)
                        .iter()
                        .skip(1)
                        .any(|x| x.starts_with('/'));
                    eff = t;
                    cwd_unknown = cwd_unknown && relative;
                }
                continue;
            }
            Some(None) => {
                if !bg {
                    cwd_unknown = true;
                }
                continue;
            }
            None => {}
        }
        let unwrapped = shell::strip_wrapper(&sub);
        if depth < 4 && unwrapped != sub {
            ops.extend(walk(
                &unwrapped,
                &eff,
                home,
                depth + 1,
                cwd_unknown,
                unmodelled,
            ));
            continue;
        }
        let sub_ops = simple(&sub, &eff, home, unmodelled);
        if cwd_unknown {
            for mut o in sub_ops {
                if o.file.is_some() {
                    o.cwd_unknown = true;
                    o.path_may_depend_on_cwd =
                        !absolute_token_for(&sub, &eff, home, o.file.as_deref());
                }
                ops.push(o);
            }
        } else {
            ops.extend(sub_ops);
        }
    }
    ops
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_writes_and_fetches() {
        let (cwd, home) = (Path::new("/p"), Path::new("/h"));
        let mut u = Vec::new();
        let o = across("cat .env && head -1 ~/secret.txt", cwd, home, &mut u);
        assert_eq!(o[0].file.as_deref(), Some("/p/.env"));
        assert_eq!(o[1].file.as_deref(), Some("/h/secret.txt"));
        let o = across("echo x > src/b.ts", cwd, home, &mut u);
        assert_eq!(
            (o[0].tool, o[0].file.as_deref()),
            ("write_file", Some("/p/src/b.ts"))
        );
        let o = across("cd sub && cat a", cwd, home, &mut u);
        assert_eq!(o[0].file.as_deref(), Some("/p/sub/a"));
        let o = across("wget https://a.evil.test/x", cwd, home, &mut u);
        assert_eq!(o[0].domain.as_deref(), Some("a.evil.test"));
        let o = across("ls", cwd, home, &mut u);
        assert_eq!(o[0].tool, "list_directory");
    }
}
