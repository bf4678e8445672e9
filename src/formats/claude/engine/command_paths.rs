//! The files a command names, as Claude Code 2.1.332 finds them before it
//! checks them against the working directories and the Read and Edit
//! rules: one reader per command (`cat`'s operands, `grep`'s after its
//! pattern, `find`'s starting points and `-newer` files, `cut`'s operands
//! past its valued options, `git grep`/`git diff` paths under `git -C`, …).
//! Commands it has no reader for name no files.

/// The operands of a command with plain options: every word after the
/// first that is not an option (or after `--`), and everything after the
/// first operand.
fn operands(args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let (mut ended, mut seen) = (false, false);
    for a in args {
        if ended || seen {
            out.push(a.clone());
        } else if a == "--" {
            ended = true;
        } else if a == "-" || !a.starts_with('-') {
            out.push(a.clone());
            seen = true;
        }
    }
    out
}

/// A command's option letters and names, for [`with_options`].
struct Opts {
    boolean_short: &'static str,
    valued_short: &'static str,
    attached_short: &'static str,
    boolean_long: &'static [&'static str],
    valued_long: &'static [&'static str],
    attached_long: &'static [&'static str],
}

#[derive(PartialEq)]
enum OptKind {
    Boolean,
    Valued,
    Attached,
    Unknown,
}

fn opt_kind(o: &Opts, w: &str) -> OptKind {
    if w.starts_with("--") {
        if w.contains('=') {
            return OptKind::Attached;
        }
        if o.boolean_long.contains(&w) {
            return OptKind::Boolean;
        }
        if o.attached_long.contains(&w) {
            return OptKind::Attached;
        }
        return if o.valued_long.contains(&w) {
            OptKind::Valued
        } else {
            OptKind::Unknown
        };
    }
    if w.len() > 1 && w[1..].bytes().all(|b| b.is_ascii_digit()) {
        return OptKind::Attached;
    }
    let letters: Vec<char> = w.chars().skip(1).collect();
    for (k, c) in letters.iter().enumerate() {
        if o.boolean_short.contains(*c) {
            continue;
        }
        if o.attached_short.contains(*c) {
            return OptKind::Attached;
        }
        if !o.valued_short.contains(*c) {
            return OptKind::Unknown;
        }
        return if k == letters.len() - 1 {
            OptKind::Valued
        } else {
            OptKind::Attached
        };
    }
    OptKind::Boolean
}

/// Operands past the command's options (an unknown option stops the
/// reading of options, not of operands).
fn with_options(o: &Opts, args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let (mut ended, mut seen, mut reading) = (false, false, true);
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if ended || seen {
            out.push(a.clone());
        } else if a == "--" {
            ended = true;
        } else if a != "-" && a.starts_with('-') {
            if reading {
                match opt_kind(o, a) {
                    OptKind::Valued => i += 1,
                    OptKind::Unknown => reading = false,
                    _ => {}
                }
            }
        } else {
            out.push(a.clone());
            seen = true;
        }
        i += 1;
    }
    out
}

/// `-fFILE` / `--file=FILE`: the value of one of `names` glued to it.
fn attached_value(w: &str, names: &[&str]) -> Option<String> {
    if !w.starts_with('-') {
        return None;
    }
    if let Some(eq) = w.find('=') {
        return names.contains(&&w[..eq]).then(|| w[eq + 1..].to_string());
    }
    names
        .iter()
        .find(|n| n.len() == 2 && w.starts_with(**n) && w != **n)
        .map(|_| w[2..].to_string())
}

/// `grep`/`rg`-like: the first operand is the pattern unless `-e`/`-f`
/// gave one; files given with `-f`, `--exclude-from`, … count too; `or`
/// when nothing is named.
fn pattern_then_files(args: &[String], valued: &[&str], or: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let (mut has_pattern, mut ended, mut seen) = (false, false, false);
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if !ended && !seen && a == "--" {
            ended = true;
            i += 1;
            continue;
        }
        if !ended && !seen && a != "-" && a.starts_with('-') {
            let eq = a.find('=');
            let name = eq.map_or(a.as_str(), |e| &a[..e]);
            if matches!(name, "-e" | "--regexp" | "-f" | "--file") {
                has_pattern = true;
                if name == "-f" || name == "--file" {
                    let v = eq
                        .map(|e| a[e + 1..].to_string())
                        .or_else(|| args.get(i + 1).cloned());
                    if let Some(v) = v.filter(|v| !v.is_empty()) {
                        out.push(v);
                    }
                }
            }
            let bytes = name.as_bytes();
            if name != "-f"
                && eq.is_none()
                && bytes.len() > 2
                && bytes[0] == b'-'
                && bytes[bytes.len() - 1] == b'f'
                && bytes[1..].iter().all(|b| b.is_ascii_alphabetic())
                && i + 1 < args.len()
            {
                has_pattern = true;
                out.push(args[i + 1].clone());
                i += 2;
                continue;
            }
            if matches!(name, "--exclude-from" | "--include-from" | "--ignore-file") {
                let v = eq
                    .map(|e| a[e + 1..].to_string())
                    .or_else(|| args.get(i + 1).cloned());
                if let Some(v) = v.filter(|v| !v.is_empty()) {
                    out.push(v);
                }
                if eq.is_none() {
                    i += 1;
                }
                i += 1;
                continue;
            }
            if eq.is_none() {
                if let Some(v) = attached_value(a, &["-f", "--file"]) {
                    has_pattern = true;
                    out.push(v);
                    i += 1;
                    continue;
                }
                if a.len() > 2 && a.starts_with("-e") {
                    has_pattern = true;
                    i += 1;
                    continue;
                }
            }
            if valued.contains(&name) && eq.is_none() {
                i += 1;
            }
            i += 1;
            continue;
        }
        if seen
            && !ended
            && let Some(v) = attached_value(a, &["-f", "--file"])
        {
            out.push(v);
        }
        seen = true;
        if !has_pattern {
            has_pattern = true;
            i += 1;
            continue;
        }
        out.push(a.clone());
        i += 1;
    }
    if out.is_empty() {
        or.iter().map(|s| s.to_string()).collect()
    } else {
        out
    }
}

fn grep(args: &[String]) -> Vec<String> {
    let files = pattern_then_files(
        args,
        &[
            "-e",
            "--regexp",
            "-f",
            "--file",
            "--exclude",
            "--include",
            "--exclude-dir",
            "--include-dir",
            "-m",
            "--max-count",
            "-A",
            "--after-context",
            "-B",
            "--before-context",
            "-C",
            "--context",
        ],
        &[],
    );
    if files.is_empty()
        && args
            .iter()
            .any(|a| matches!(a.as_str(), "-r" | "-R" | "--recursive"))
    {
        return vec![".".into()];
    }
    files
}

fn find(args: &[String]) -> Vec<String> {
    const NAMED: &[&str] = &[
        "-newer",
        "-anewer",
        "-cnewer",
        "-mnewer",
        "-samefile",
        "-path",
        "-wholename",
        "-ilname",
        "-lname",
        "-ipath",
        "-iwholename",
    ];
    let mut out = Vec::new();
    let (mut in_expr, mut ended) = (false, false);
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if ended {
            out.push(a.clone());
        } else if a == "--" {
            ended = true;
        } else if a.starts_with('-') {
            if matches!(a.as_str(), "-H" | "-L" | "-P") {
                i += 1;
                continue;
            }
            in_expr = true;
            let newer_xy = a.len() == 8
                && a.starts_with("-newer")
                && a[6..].bytes().all(|b| b"acmBt".contains(&b));
            if (NAMED.contains(&a.as_str()) || newer_xy)
                && let Some(v) = args.get(i + 1)
            {
                out.push(v.clone());
                i += 1;
            }
        } else if !in_expr {
            out.push(a.clone());
        }
        i += 1;
    }
    if out.is_empty() {
        vec![".".into()]
    } else {
        out
    }
}

fn sed(args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let (mut skip, mut has_script, mut ended, mut seen) = (false, false, false, false);
    for (k, a) in args.iter().enumerate() {
        if skip {
            skip = false;
            continue;
        }
        if !ended && !seen && a == "--" {
            ended = true;
            continue;
        }
        if !ended && !seen && a != "-" && a.starts_with('-') {
            if a == "-f" || a == "--file" {
                if let Some(v) = args.get(k + 1) {
                    out.push(v.clone());
                    skip = true;
                }
                has_script = true;
            } else if a == "-e" || a == "--expression" {
                skip = true;
                has_script = true;
            } else if a.contains('e') || a.contains('f') {
                has_script = true;
            }
            continue;
        }
        seen = true;
        if !has_script {
            has_script = true;
            continue;
        }
        out.push(a.clone());
    }
    out
}

fn awk(args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let (mut ended, mut has_program, mut seen) = (false, false, false);
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if !ended && !seen && a == "--" {
            ended = true;
            i += 1;
            continue;
        }
        if !ended && !seen && a != "-" && a.starts_with('-') {
            let eq = a.find('=');
            let name = eq.map_or(a.as_str(), |e| &a[..e]);
            if matches!(
                name,
                "-F" | "--field-separator" | "-v" | "--assign" | "-e" | "--source"
            ) {
                if name == "-e" || name == "--source" {
                    has_program = true;
                }
                if eq.is_none() {
                    i += 1;
                }
            } else if matches!(name, "-f" | "--file" | "-E" | "--exec") {
                has_program = true;
                match eq {
                    Some(e) => out.push(a[e + 1..].to_string()),
                    None => {
                        if let Some(v) = args.get(i + 1) {
                            out.push(v.clone());
                            i += 1;
                        }
                    }
                }
            }
            i += 1;
            continue;
        }
        if seen
            && !ended
            && let Some(v) = attached_value(a, &["-f", "--file", "-E", "--exec"])
        {
            out.push(v);
        }
        seen = true;
        if !has_program {
            has_program = true;
            i += 1;
            continue;
        }
        out.push(a.clone());
        i += 1;
    }
    out
}

fn jq(args: &[String]) -> Vec<String> {
    const VALUED: &[&str] = &[
        "-e",
        "--expression",
        "--arg",
        "--argjson",
        "--args",
        "--jsonargs",
        "-L",
        "--library-path",
        "--indent",
        "--tab",
    ];
    let mut out = Vec::new();
    let (mut has_filter, mut ended) = (false, false);
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if !ended && a == "--" {
            ended = true;
            i += 1;
            continue;
        }
        if !ended && a.starts_with('-') {
            let eq = a.find('=');
            let name = eq.map_or(a.as_str(), |e| &a[..e]);
            if name == "-e" || name == "--expression" {
                has_filter = true;
            }
            if name == "-f" || name == "--from-file" {
                has_filter = true;
                match eq {
                    Some(e) => out.push(a[e + 1..].to_string()),
                    None => {
                        if let Some(v) = args.get(i + 1) {
                            out.push(v.clone());
                            i += 1;
                        }
                    }
                }
                i += 1;
                continue;
            }
            if name == "--slurpfile" || name == "--rawfile" {
                if let Some(v) = args.get(i + 2) {
                    out.push(v.clone());
                }
                i += 3;
                continue;
            }
            if VALUED.contains(&name) && eq.is_none() {
                i += 1;
            }
            i += 1;
            continue;
        }
        if !has_filter {
            has_filter = true;
            i += 1;
            continue;
        }
        out.push(a.clone());
        i += 1;
    }
    out
}

fn man(args: &[String]) -> Vec<String> {
    let local = args.iter().any(|o| {
        o == "--local-file" || (o.starts_with('-') && !o.starts_with("--") && o.contains('l'))
    });
    let mut out = Vec::new();
    for (k, o) in args.iter().enumerate() {
        if k > 0 && matches!(args[k - 1].as_str(), "-C" | "--config-file") {
            out.push(o.clone());
            continue;
        }
        let mut cands: Vec<String> = Vec::new();
        if !o.starts_with('-') {
            cands.push(o.clone());
        } else {
            if let Some(eq) = o.find('=') {
                cands.push(o[eq + 1..].to_string());
            }
            if o.len() > 2 && !o.starts_with("--") {
                cands.push(o[2..].to_string());
            }
            if let Some(p) = o.find(['\\', '/', '~'])
                && p > 0
            {
                cands.push(o[p..].to_string());
            }
            cands.dedup();
        }
        for c in cands {
            if !c.is_empty()
                && (local || c.contains(['\\', '/']) || c.starts_with('~') || c.starts_with('.'))
            {
                out.push(c);
            }
        }
    }
    out
}

/// A device or descriptor path, never a file that is read or written.
fn device(p: &str) -> bool {
    matches!(
        p,
        "/dev/null" | "/dev/stdin" | "/dev/stdout" | "/dev/stderr" | "/dev/tty"
    ) || p
        .strip_prefix("/dev/fd/")
        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
        || matches!(p, "/proc/self/fd/0" | "/proc/self/fd/1" | "/proc/self/fd/2")
}

/// `git -C dir …`: `git grep`'s and `git diff`'s paths, under the folder
/// the options name.
fn git(args: &[String]) -> Vec<String> {
    const VALUED: &[&str] = &[
        "-C",
        "-c",
        "--git-dir",
        "--work-tree",
        "--namespace",
        "--super-prefix",
        "--config-env",
        "--attr-source",
        "--shallow-file",
    ];
    let mut base = String::new();
    let join = |base: &str, p: &str| -> String {
        if base.is_empty() || p.starts_with('/') || p.starts_with('~') {
            p.to_string()
        } else {
            format!("{}/{p}", base.trim_end_matches('/'))
        }
    };
    let mut i = 0;
    while i < args.len() && args[i].starts_with('-') {
        let o = &args[i];
        i += 1;
        if let Some(tree) = o.strip_prefix("--work-tree=") {
            base = join(&base, tree);
        } else if VALUED.contains(&o.as_str()) && i < args.len() {
            if o == "-C" || o == "--work-tree" {
                base = join(&base, &args[i]);
            }
            i += 1;
        }
    }
    let Some(sub) = args.get(i) else {
        return Vec::new();
    };
    let rest = &args[i + 1..];
    let under = |p: &str| join(&base, p);
    match sub.as_str() {
        "grep" => {
            let files = pattern_then_files(
                rest,
                &[
                    "-e",
                    "--regexp",
                    "-f",
                    "--file",
                    "-A",
                    "--after-context",
                    "-B",
                    "--before-context",
                    "-C",
                    "--context",
                    "-m",
                    "--max-count",
                    "--max-depth",
                    "--threads",
                ],
                &[],
            );
            if files.is_empty() {
                vec![if base.is_empty() {
                    ".".into()
                } else {
                    base.clone()
                }]
            } else {
                files.iter().map(|f| under(f)).collect()
            }
        }
        "diff" => {
            let mut out = Vec::new();
            let mut ended = false;
            for a in rest {
                if !ended && a == "--" {
                    ended = true;
                } else if ended || a == "-" || !a.starts_with('-') {
                    let p = under(a);
                    if !device(&p) {
                        out.push(p);
                    }
                }
            }
            out
        }
        _ => Vec::new(),
    }
}

/// The files `words` (a command and its arguments) names, when the CLI
/// checks its files (`None` for a command it has no reader for).
pub fn of(words: &[String]) -> Option<Vec<String>> {
    let name = words.first()?.as_str();
    let args = &words[1..];
    let opts = |o: &Opts| with_options(o, args);
    let paths = match name {
        "cd" => {
            let ops = operands(args);
            match ops.first() {
                Some(p) => vec![p.clone()],
                None if args.last().is_some_and(|a| a == "-") => vec!["-".into()],
                None => vec!["~".into()],
            }
        }
        "ls" => {
            let ops = operands(args);
            if ops.is_empty() {
                vec![".".into()]
            } else {
                ops
            }
        }
        "find" => find(args),
        "mkdir" | "touch" | "rm" | "rmdir" | "mv" | "cp" | "cat" | "head" | "tail" | "sort"
        | "uniq" | "wc" | "file" | "stat" | "diff" | "strings" | "hexdump" | "od" | "base64"
        | "nl" | "sha256sum" | "sha1sum" | "md5sum" | "rev" | "tsort" => operands(args),
        "tee" => operands(args)
            .into_iter()
            .filter(|p| {
                !matches!(
                    p.as_str(),
                    "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/tty"
                )
            })
            .collect(),
        "tr" => {
            let delete = args
                .iter()
                .any(|a| a == "-d" || a == "--delete" || (a.starts_with('-') && a.contains('d')));
            operands(args)
                .into_iter()
                .skip(if delete { 1 } else { 2 })
                .collect()
        }
        "cut" => opts(&Opts {
            boolean_short: "nswz",
            valued_short: "bcdf",
            attached_short: "",
            boolean_long: &["--complement", "--only-delimited", "--zero-terminated"],
            valued_long: &[
                "--bytes",
                "--characters",
                "--delimiter",
                "--fields",
                "--output-delimiter",
            ],
            attached_long: &[],
        }),
        "paste" => opts(&Opts {
            boolean_short: "sz",
            valued_short: "d",
            attached_short: "",
            boolean_long: &["--serial", "--zero-terminated"],
            valued_long: &["--delimiters"],
            attached_long: &[],
        }),
        "column" => opts(&Opts {
            boolean_short: "txdemLJhV",
            valued_short: "cosNOClEHRTWrip",
            attached_short: "",
            boolean_long: &[
                "--table",
                "--fillrows",
                "--table-noheadings",
                "--table-header-repeat",
                "--table-maxout",
                "--keep-empty-lines",
                "--json",
            ],
            valued_long: &[
                "--separator",
                "--output-separator",
                "--output-width",
                "--table-name",
                "--table-order",
                "--table-column",
                "--table-columns",
                "--table-columns-limit",
                "--table-noextreme",
                "--table-hide",
                "--table-right",
                "--table-truncate",
                "--table-wrap",
                "--tree",
                "--tree-id",
                "--tree-parent",
            ],
            attached_long: &[],
        }),
        "tac" => opts(&Opts {
            boolean_short: "br",
            valued_short: "s",
            attached_short: "",
            boolean_long: &["--before", "--regex"],
            valued_long: &["--separator"],
            attached_long: &[],
        }),
        "fold" => opts(&Opts {
            boolean_short: "bs",
            valued_short: "w",
            attached_short: "",
            boolean_long: &["--bytes", "--spaces"],
            valued_long: &["--width"],
            attached_long: &[],
        }),
        "expand" => opts(&Opts {
            boolean_short: "i",
            valued_short: "t",
            attached_short: "",
            boolean_long: &["--initial"],
            valued_long: &["--tabs"],
            attached_long: &[],
        }),
        "unexpand" => opts(&Opts {
            boolean_short: "af",
            valued_short: "t",
            attached_short: "",
            boolean_long: &["--all", "--first-only"],
            valued_long: &["--tabs"],
            attached_long: &[],
        }),
        "fmt" => opts(&Opts {
            boolean_short: "csumn",
            valued_short: "wgdl",
            attached_short: "",
            boolean_long: &[
                "--crown-margin",
                "--split-only",
                "--tagged-paragraph",
                "--uniform-spacing",
            ],
            valued_long: &["--width", "--goal", "--prefix"],
            attached_long: &[],
        }),
        "comm" => opts(&Opts {
            boolean_short: "123iz",
            valued_short: "",
            attached_short: "",
            boolean_long: &[
                "--check-order",
                "--nocheck-order",
                "--total",
                "--zero-terminated",
            ],
            valued_long: &["--output-delimiter"],
            attached_long: &[],
        }),
        "cmp" => opts(&Opts {
            boolean_short: "blsvxzh",
            valued_short: "",
            attached_short: "",
            boolean_long: &["--print-bytes", "--verbose", "--quiet", "--silent"],
            valued_long: &["--ignore-initial", "--bytes"],
            attached_long: &[],
        }),
        "pr" => opts(&Opts {
            boolean_short: "acdFfJmprtTv",
            valued_short: "hlwWoND",
            attached_short: "einsS",
            boolean_long: &[
                "--across",
                "--show-control-chars",
                "--double-space",
                "--form-feed",
                "--join-lines",
                "--merge",
                "--no-file-warnings",
                "--omit-header",
                "--omit-pagination",
                "--show-nonprinting",
            ],
            valued_long: &[
                "--header",
                "--length",
                "--width",
                "--page-width",
                "--indent",
                "--first-line-number",
                "--date-format",
                "--columns",
            ],
            attached_long: &[
                "--expand-tabs",
                "--output-tabs",
                "--number-lines",
                "--separator",
                "--sep-string",
            ],
        }),
        "numfmt" => opts(&Opts {
            boolean_short: "z",
            valued_short: "d",
            attached_short: "",
            boolean_long: &["--grouping", "--zero-terminated", "--debug"],
            valued_long: &[
                "--from",
                "--to",
                "--from-unit",
                "--to-unit",
                "--format",
                "--padding",
                "--delimiter",
                "--field",
                "--round",
                "--suffix",
                "--invalid",
            ],
            attached_long: &["--header"],
        }),
        "awk" | "gawk" | "mawk" | "nawk" => awk(args),
        "grep" | "egrep" | "fgrep" => grep(args),
        "rg" => pattern_then_files(
            args,
            &[
                "-e",
                "--regexp",
                "-f",
                "--file",
                "-t",
                "--type",
                "-T",
                "--type-not",
                "-g",
                "--glob",
                "-m",
                "--max-count",
                "--max-depth",
                "-r",
                "--replace",
                "-A",
                "--after-context",
                "-B",
                "--before-context",
                "-C",
                "--context",
            ],
            &["."],
        ),
        "sed" => sed(args),
        "jq" => jq(args),
        "man" => man(args),
        "git" => git(args),
        _ => return None,
    };
    Some(paths)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(line: &str) -> Vec<String> {
        let w: Vec<String> = line.split(' ').map(String::from).collect();
        of(&w).unwrap_or_else(|| vec!["<none>".into()])
    }

    #[test]
    fn readers_as_the_cli_has_them() {
        assert_eq!(p("cat /etc/hostname"), ["/etc/hostname"]);
        assert_eq!(p("grep -r foo ."), ["."]);
        assert_eq!(p("grep -rn foo"), Vec::<String>::new());
        assert_eq!(p("grep -e x -e y a b"), ["a", "b"]);
        assert_eq!(p("head -n 5 a.txt"), ["5", "a.txt"]);
        assert_eq!(p("cut -d , -f 1 a.txt"), ["a.txt"]);
        assert_eq!(p("find . -name x -newer y"), [".", "y"]);
        assert_eq!(p("ls"), ["."]);
        assert_eq!(p("cd"), ["~"]);
        assert_eq!(p("sed -n 1p a.txt"), ["a.txt"]);
        assert_eq!(
            p("git -C /tmp/x grep -il dash -- x.ts"),
            ["/tmp/x/--", "/tmp/x/x.ts"]
        );
        assert_eq!(p("git status"), Vec::<String>::new());
        assert_eq!(p("npm test"), ["<none>"]);
        assert_eq!(p("tee /dev/null out"), ["out"]);
    }
}
