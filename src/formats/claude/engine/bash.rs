//! A Bash command as Claude Code 2.1.332 takes it apart before deciding it:
//! split into simple commands at `&&`, `||`, `;`, `|`, `&` and newlines,
//! with the substitutions, redirections and environment assignments that
//! change the decision, and the commands the CLI runs without asking
//! (its read-only set). Every entry of the read-only table was observed on
//! the real CLI (`tests/fixtures/claude/oracle/observed-bash.json`).

/// One simple command.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Simple {
    /// The words after the leading `NAME=value` assignments, unquoted.
    pub words: Vec<String>,
    /// The text rules are matched against: the command from its first word
    /// after the assignments, runs of unquoted blanks as one space.
    pub text: String,
    /// The same with the assignments (allow rules see them).
    pub text_with_env: String,
    /// The `NAME` of each leading assignment.
    pub env: Vec<String>,
    /// Each leading assignment as written (`NAME=value`, quotes kept).
    pub env_raw: Vec<String>,
    /// Redirections to or from a file (not `/dev/null`, not `&N`).
    pub file_redirects: Vec<String>,
}

/// A whole command line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Parsed {
    pub commands: Vec<Simple>,
    /// `$(…)`, backticks, `<(…)` or `>(…)`.
    pub substitution: bool,
    /// Something this reading does not take apart (subshells, braces,
    /// here-documents, an unclosed quote): the CLI asks.
    pub complex: bool,
    /// A command run in the background (a single `&`).
    pub background: bool,
}

/// Splits a command line.
pub fn parse(line: &str) -> Parsed {
    let mut out = Parsed::default();
    let mut cur = Builder::default();
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            ' ' | '\t' => {
                i += 1;
            }
            '\n' | ';' => {
                cur.finish(&mut out);
                i += 1;
            }
            '&' | '|' => {
                let next = chars.get(i + 1).copied();
                if c == '&' && next == Some('>') {
                    // `&>file`
                    i += 2;
                    if chars.get(i) == Some(&'>') {
                        i += 1;
                    }
                    while matches!(chars.get(i), Some(' ') | Some('\t')) {
                        i += 1;
                    }
                    let (target, n) = read_word(&chars[i..], &mut out);
                    i += n;
                    cur.redirect(&target);
                    continue;
                }
                cur.finish(&mut out);
                if c == '&' && next != Some('&') {
                    out.background = true;
                }
                i += if next == Some(c) || (c == '|' && next == Some('&')) {
                    2
                } else {
                    1
                };
            }
            '(' | ')' => {
                // A subshell or a function body.
                out.complex = true;
                cur.finish(&mut out);
                i += 1;
            }
            '{' | '}'
                if chars
                    .get(i + 1)
                    .is_none_or(|n| n.is_whitespace() || *n == ';') =>
            {
                // A brace group (`{` inside a word is literal).
                out.complex = true;
                cur.finish(&mut out);
                i += 1;
            }
            '>' | '<' => {
                // `N>` / `N<`: the descriptor number is part of the operator.
                if cur.last_end == Some(i)
                    && cur
                        .words
                        .last()
                        .is_some_and(|w| w.chars().all(|d| d.is_ascii_digit()))
                {
                    cur.words.pop();
                    cur.raw_words.pop();
                }
                if chars.get(i + 1) == Some(&'(') {
                    out.substitution = true;
                    i = skip_balanced(&chars, i + 1);
                    continue;
                }
                i += 1;
                if c == '<' && chars.get(i) == Some(&'<') {
                    // Here-document or here-string.
                    out.complex = true;
                    i += 1;
                    if chars.get(i) == Some(&'<') {
                        i += 1;
                    }
                } else if chars.get(i) == Some(&'>') || chars.get(i) == Some(&'|') {
                    i += 1;
                }
                while matches!(chars.get(i), Some(' ') | Some('\t')) {
                    i += 1;
                }
                if chars.get(i) == Some(&'&') {
                    // `2>&1`, `>&2`
                    i += 1;
                    let (_, n) = read_word(&chars[i..], &mut out);
                    i += n;
                    continue;
                }
                let (target, n) = read_word(&chars[i..], &mut out);
                i += n;
                if c == '>' {
                    cur.redirect(&target);
                }
            }
            _ => {
                let (word, n) = read_word(&chars[i..], &mut out);
                if n == 0 {
                    // Not a word start (cannot happen: operators are
                    // handled above); step over it.
                    i += 1;
                    continue;
                }
                cur.words.push(word);
                cur.raw_words.push(chars[i..i + n].iter().collect());
                i += n;
                cur.last_end = Some(i);
            }
        }
    }
    cur.finish(&mut out);
    out
}

/// Reads one shell word from the start of `chars` (stopping at a blank or
/// an operator): its unquoted value and how many chars it used.
fn read_word(chars: &[char], out: &mut Parsed) -> (String, usize) {
    let mut word = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            ' ' | '\t' | '\n' | ';' | '&' | '|' | '<' | '>' | '(' | ')' => break,
            '\\' => {
                if let Some(&n) = chars.get(i + 1) {
                    if n != '\n' {
                        word.push(n);
                    }
                    i += 2;
                } else {
                    i += 1;
                }
            }
            '\'' => {
                i += 1;
                let start = i;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                if i >= chars.len() {
                    out.complex = true;
                }
                word.extend(&chars[start..i.min(chars.len())]);
                i += 1;
            }
            '"' => {
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    match chars[i] {
                        '\\' if i + 1 < chars.len() => {
                            word.push(chars[i + 1]);
                            i += 2;
                        }
                        '`' => {
                            out.substitution = true;
                            word.push('`');
                            i += 1;
                        }
                        '$' if chars.get(i + 1) == Some(&'(') => {
                            out.substitution = true;
                            let end = skip_balanced(chars, i + 1);
                            word.extend(&chars[i..end.min(chars.len())]);
                            i = end;
                        }
                        ch => {
                            word.push(ch);
                            i += 1;
                        }
                    }
                }
                if i >= chars.len() {
                    out.complex = true;
                }
                i += 1;
            }
            '`' => {
                out.substitution = true;
                let start = i;
                i += 1;
                while i < chars.len() && chars[i] != '`' {
                    i += 1;
                }
                i += 1;
                word.extend(&chars[start..i.min(chars.len())]);
            }
            '$' if chars.get(i + 1) == Some(&'(') => {
                out.substitution = true;
                let end = skip_balanced(chars, i + 1);
                word.extend(&chars[i..end.min(chars.len())]);
                i = end;
            }
            _ => {
                word.push(c);
                i += 1;
            }
        }
    }
    (word, i.min(chars.len()))
}

/// The index after the `)` matching the `(` at `open`.
fn skip_balanced(chars: &[char], open: usize) -> usize {
    let mut depth = 0usize;
    let mut i = open;
    while i < chars.len() {
        match chars[i] {
            '(' => depth += 1,
            ')' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            '\\' => i += 1,
            _ => {}
        }
        i += 1;
    }
    chars.len()
}

#[derive(Default)]
struct Builder {
    words: Vec<String>,
    raw_words: Vec<String>,
    /// Where the last word ended (a `>` right after digits makes them a
    /// descriptor number).
    last_end: Option<usize>,
    redirects: Vec<String>,
}

impl Builder {
    fn redirect(&mut self, target: &str) {
        if target != "/dev/null" && !target.is_empty() {
            self.redirects.push(target.to_string());
        }
    }

    fn finish(&mut self, out: &mut Parsed) {
        let words = std::mem::take(&mut self.words);
        let raw_words = std::mem::take(&mut self.raw_words);
        self.last_end = None;
        let redirects = std::mem::take(&mut self.redirects);
        if words.is_empty() {
            return;
        }
        let env_count = words.iter().take_while(|w| is_assignment(w)).count();
        let env = words[..env_count]
            .iter()
            .map(|w| w[..w.find('=').unwrap_or(0)].to_string())
            .collect();
        out.commands.push(Simple {
            text: raw_words[env_count..].join(" "),
            text_with_env: raw_words.join(" "),
            words: words[env_count..].to_vec(),
            env,
            env_raw: raw_words[..env_count].to_vec(),
            file_redirects: redirects,
        });
    }
}

fn is_assignment(w: &str) -> bool {
    match w.find('=') {
        Some(eq) if eq > 0 => {
            let name = &w[..eq];
            name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
        _ => false,
    }
}

/// Environment variables the CLI lets through in front of a command it
/// would otherwise allow or run as read-only (Claude Code 2.1.332's list;
/// others make it ask: `X=1 ls`, `PAGER=cat git log`, `DEBUG=1 npm test`).
pub const SAFE_ENV: &[&str] = &[
    "GOEXPERIMENT",
    "GOOS",
    "GOARCH",
    "CGO_ENABLED",
    "GO111MODULE",
    "RUST_BACKTRACE",
    "RUST_LOG",
    "NODE_ENV",
    "PYTHONUNBUFFERED",
    "PYTHONDONTWRITEBYTECODE",
    "PYTEST_DISABLE_PLUGIN_AUTOLOAD",
    "PYTEST_DEBUG",
    "ANTHROPIC_API_KEY",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_TIME",
    "CHARSET",
    "TERM",
    "COLORTERM",
    "NO_COLOR",
    "FORCE_COLOR",
    "TZ",
    "LS_COLORS",
    "LSCOLORS",
    "GREP_COLOR",
    "GREP_COLORS",
    "GCC_COLORS",
    "TIME_STYLE",
    "BLOCK_SIZE",
    "BLOCKSIZE",
    "COLUMNS",
    "LINES",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "CI",
    "DEBIAN_FRONTEND",
    "GIT_TERMINAL_PROMPT",
];

/// Is one leading assignment, as written, one the CLI lets through? Its
/// name is in [`SAFE_ENV`], its value plain (letters, digits, `_./:-`, no
/// quotes) and not a path (`/x`, `./x`, `~/x`, `a//b`, `c:/x`, `..`); the
/// locale variables take a locale name (`C`, `POSIX`, `en_US.UTF-8`).
pub fn harmless_assignment(raw: &str) -> bool {
    let Some((name, value)) = raw.split_once('=') else {
        return false;
    };
    if !SAFE_ENV.contains(&name) || value.is_empty() {
        return false;
    }
    if !value
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'/' | b':' | b'-'))
    {
        return false;
    }
    if matches!(name, "LANG" | "LC_ALL" | "LC_CTYPE") && !locale_name(value) {
        return false;
    }
    !path_like(value)
}

/// `C`, `POSIX`, `UTF-8`, `UTF8`, or `<name>.UTF-8` (case-insensitive).
fn locale_name(v: &str) -> bool {
    let lower = v.to_ascii_lowercase();
    if matches!(lower.as_str(), "c" | "posix" | "utf-8" | "utf8") {
        return true;
    }
    let Some(dot) = lower.find('.') else {
        return false;
    };
    let (base, enc) = (&lower[..dot], &lower[dot + 1..]);
    let enc = enc.split_once('@').map_or(enc, |(e, m)| {
        if m.is_empty() || !m.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            "x"
        } else {
            e
        }
    });
    !base.is_empty()
        && base
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        && matches!(enc, "utf-8" | "utf8")
}

/// A value that names a path: it starts with `/` (after dots or `~`),
/// holds `//`, `:/` or `:.`, or a `..` segment.
fn path_like(v: &str) -> bool {
    let lead = v.trim_start_matches(['.', '~']);
    lead.starts_with('/')
        || v.contains("//")
        || v.contains(":/")
        || v.contains(":.")
        || v.split('/').any(|seg| seg == "..")
}

/// Every leading assignment of the command is harmless.
pub fn harmless_env(c: &Simple) -> bool {
    c.env_raw.iter().all(|r| harmless_assignment(r))
}

/// How many leading assignments the CLI strips before matching allow rules:
/// the harmless ones, up to the first that is not.
pub fn harmless_prefix(c: &Simple) -> usize {
    c.env_raw
        .iter()
        .take_while(|r| harmless_assignment(r))
        .count()
}

/// How a read-only command takes its arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Args {
    /// Every word after the flags is a file or directory it reads.
    Paths,
    /// The first non-flag word is not a path (a pattern, a script), the
    /// rest are.
    PatternThenPaths,
    /// No path arguments.
    None,
}

/// A command the CLI runs without asking (observed), its forbidden flags,
/// and how it takes paths.
struct ReadOnly {
    name: &'static str,
    args: Args,
    /// Flags (or prefixes of `--flag=value`) that make it ask.
    forbidden: &'static [&'static str],
}

const RO: &[ReadOnly] = &[
    ro("echo", Args::None, &[]),
    ro("printf", Args::None, &[]),
    ro("ls", Args::Paths, &[]),
    ro("cat", Args::Paths, &[]),
    ro("head", Args::Paths, &[]),
    // `tail -f`, `-F`, `--follow` run too (observed: the process starts).
    ro("tail", Args::Paths, &[]),
    ro("wc", Args::Paths, &[]),
    ro("grep", Args::PatternThenPaths, &[]),
    ro("rg", Args::PatternThenPaths, &["--pre"]),
    ro(
        "find",
        Args::Paths,
        &[
            "-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf",
            "-fls",
        ],
    ),
    ro("which", Args::None, &[]),
    ro("date", Args::None, &[]),
    ro("true", Args::None, &[]),
    ro("false", Args::None, &[]),
    ro("sort", Args::Paths, &["-o", "--output"]),
    ro("cut", Args::Paths, &[]),
    ro("diff", Args::Paths, &[]),
    ro("file", Args::Paths, &[]),
    ro("stat", Args::Paths, &[]),
    ro("du", Args::Paths, &[]),
    ro("df", Args::None, &[]),
    ro("tree", Args::Paths, &["-o"]),
    ro("basename", Args::None, &[]),
    ro("dirname", Args::None, &[]),
    ro("realpath", Args::Paths, &[]),
    ro("hostname", Args::None, &[]),
    ro("uname", Args::None, &[]),
    ro("id", Args::None, &[]),
    ro("ps", Args::None, &[]),
    ro("jq", Args::PatternThenPaths, &[]),
    ro("test", Args::None, &[]),
    ro("[", Args::None, &[]),
    ro("cd", Args::Paths, &[]),
    ro("type", Args::None, &[]),
    ro("od", Args::Paths, &[]),
    ro("hexdump", Args::Paths, &[]),
    ro("md5sum", Args::Paths, &[]),
    ro("sha256sum", Args::Paths, &[]),
    ro("strings", Args::Paths, &[]),
    ro("nl", Args::Paths, &[]),
    ro("column", Args::Paths, &[]),
    ro("comm", Args::Paths, &[]),
    ro("paste", Args::Paths, &[]),
    ro("rev", Args::Paths, &[]),
    ro("fold", Args::Paths, &[]),
    ro("expand", Args::Paths, &[]),
    ro("seq", Args::None, &[]),
    ro("base64", Args::Paths, &[]),
    ro("readlink", Args::Paths, &[]),
    ro("lsof", Args::None, &[]),
    ro("netstat", Args::None, &[]),
    ro("ss", Args::None, &[]),
    ro("free", Args::None, &[]),
    ro("uptime", Args::None, &[]),
    // The rest of the CLI's list of commands it runs with any arguments.
    ro("cal", Args::None, &[]),
    ro("locale", Args::None, &[]),
    ro("groups", Args::None, &[]),
    ro("nproc", Args::None, &[]),
    ro("tr", Args::None, &[]),
    ro("tac", Args::Paths, &[]),
    ro("unexpand", Args::Paths, &[]),
    ro("fmt", Args::Paths, &[]),
    ro("cmp", Args::Paths, &[]),
    ro("numfmt", Args::None, &[]),
    ro("sleep", Args::None, &[]),
    ro("expr", Args::None, &[]),
    ro("tsort", Args::Paths, &[]),
    ro("pr", Args::Paths, &[]),
];

const fn ro(name: &'static str, args: Args, forbidden: &'static [&'static str]) -> ReadOnly {
    ReadOnly {
        name,
        args,
        forbidden,
    }
}

/// Commands whose file arguments the CLI checks against the working
/// directories and the Read deny rules, whatever decides them (observed:
/// `Bash(rm:*)` allows `rm -rf dist` but `rm -rf /tmp/x` asks).
const PATH_COMMANDS: &[(&str, Args)] = &[
    ("rm", Args::Paths),
    ("rmdir", Args::Paths),
    ("mkdir", Args::Paths),
    ("touch", Args::Paths),
    ("cp", Args::Paths),
    ("mv", Args::Paths),
    ("sed", Args::PatternThenPaths),
];

/// The commands the CLI may run without a rule (read-only ones) and those
/// whose paths it checks, as word prefixes (`git status`, `ls`, `rm`): the
/// places where its decision does not follow the rules alone.
pub fn self_decided_prefixes() -> Vec<String> {
    let mut out: Vec<String> = RO.iter().map(|r| r.name.to_string()).collect();
    out.extend(PATH_COMMANDS.iter().map(|(n, _)| n.to_string()));
    out.extend(
        super::read_only_options::SPECS
            .iter()
            .map(|s| s.command.to_string()),
    );
    for extra in [
        "git stash",
        "git config",
        "docker ps",
        "docker images",
        "ip addr",
        "node",
        "python3",
        "python",
        "claude",
        "pwd",
        "whoami",
        "alias",
        "history",
        "arch",
        "ifconfig",
        "uniq",
        "[[",
        "timeout",
        "command",
    ] {
        out.push(extra.to_string());
    }
    out
}

/// What the CLI's read-only check says of one simple command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadOnlyAnswer {
    /// Runs without asking, reading these path arguments.
    Yes {
        paths: Vec<String>,
    },
    No,
}

/// The paths a command reads or writes, when the CLI checks them.
pub fn path_args(words: &[String]) -> Option<Vec<String>> {
    let name = words.first()?.as_str();
    let args = RO
        .iter()
        .find(|r| r.name == name)
        .map(|r| r.args)
        .or_else(|| {
            PATH_COMMANDS
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, a)| *a)
        })?;
    // `cd` alone goes home (observed: it asks outside the project), as
    // `cd ~` does.
    if name == "cd" && words.len() == 1 {
        return Some(vec!["~".to_string()]);
    }
    // `$HOME` is the home, as the shell expands it (observed: `cd $HOME`
    // asks like `cd ~`).
    let mut paths = collect_paths(name, args, &words[1..]);
    for p in &mut paths {
        for var in ["${HOME}", "$HOME"] {
            if let Some(rest) = p.strip_prefix(var)
                && (rest.is_empty() || rest.starts_with('/'))
            {
                *p = format!("~{rest}");
                break;
            }
        }
    }
    Some(paths)
}

fn collect_paths(name: &str, args: Args, rest: &[String]) -> Vec<String> {
    let mut paths = Vec::new();
    let mut skipped_pattern = args != Args::PatternThenPaths;
    let mut after_dd = false;
    let mut it = rest.iter();
    while let Some(w) = it.next() {
        if !after_dd && w == "--" {
            after_dd = true;
            continue;
        }
        if !after_dd && w.starts_with('-') && w.len() > 1 {
            // Flags that take the next word as a value.
            if matches!(
                (name, w.as_str()),
                ("head" | "tail", "-n" | "-c")
                    | (
                        "grep" | "rg",
                        "-e" | "-f" | "-A" | "-B" | "-C" | "-m" | "--include"
                    )
                    | ("cut", "-d" | "-f" | "-c" | "-b")
                    | (
                        "find",
                        "-name" | "-iname" | "-type" | "-path" | "-maxdepth" | "-mindepth"
                    )
                    | ("sed", "-e")
                    | ("du", "-d")
                    | ("tree", "-L" | "-I" | "-P")
            ) {
                let _ = it.next();
                if matches!((name, w.as_str()), ("grep" | "rg", "-e") | ("sed", "-e")) {
                    skipped_pattern = true;
                }
            }
            continue;
        }
        if name == "find" && (w.starts_with('-') || w == "!" || w == "(" || w == ")") {
            continue;
        }
        if !skipped_pattern {
            skipped_pattern = true;
            continue;
        }
        if matches!(args, Args::None) {
            continue;
        }
        paths.push(w.clone());
    }
    paths
}

/// What a command's text expands before it runs, as the CLI's read-only
/// check sees it: a variable (`$X` outside single quotes) is found first;
/// otherwise an unquoted glob (`*`, `?`, `[…]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expansion {
    None,
    Variable,
    Glob,
}

pub fn expansion(text: &str) -> Expansion {
    if !text.contains(['$', '?', '*', '[']) {
        return Expansion::None;
    }
    let b: Vec<char> = text.chars().collect();
    let (mut single, mut double, mut escaped, mut backtick) = (false, false, false, false);
    let (mut glob, mut bracket, mut word_start) = (false, false, true);
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if escaped {
            escaped = false;
            word_start = false;
            i += 1;
            continue;
        }
        if c == '\\' && !single {
            if b.get(i + 1) == Some(&'\n') {
                i += 2;
                continue;
            }
            escaped = true;
            i += 1;
            continue;
        }
        if backtick {
            if c == '`' {
                backtick = false;
                word_start = false;
            }
            i += 1;
            continue;
        }
        if c == '`' && !single {
            backtick = true;
            word_start = false;
            i += 1;
            continue;
        }
        if c == '#' && word_start && !single && !double {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
            word_start = true;
            i += 1;
            continue;
        }
        if c == '\'' && !double {
            single = !single;
            word_start = false;
            i += 1;
            continue;
        }
        if c == '"' && !single {
            double = !double;
            word_start = false;
            i += 1;
            continue;
        }
        if single {
            i += 1;
            continue;
        }
        if c == '$'
            && b.get(i + 1).is_some_and(|n| {
                n.is_ascii_alphanumeric()
                    || matches!(n, '_' | '@' | '*' | '#' | '?' | '!' | '$' | '-')
            })
        {
            return Expansion::Variable;
        }
        if double {
            i += 1;
            continue;
        }
        if matches!(
            c,
            ' ' | '\t' | '\n' | '|' | '&' | ';' | '(' | ')' | '<' | '>'
        ) {
            bracket = false;
            word_start = true;
            i += 1;
            continue;
        }
        word_start = false;
        match c {
            '?' | '*' => glob = true,
            '[' => bracket = true,
            ']' if bracket => glob = true,
            _ => {}
        }
        i += 1;
    }
    if glob {
        Expansion::Glob
    } else {
        Expansion::None
    }
}

/// Commands that still run without asking with a glob among their
/// arguments (the CLI's list).
const GLOB_OK: &[&str] = &[
    "ls",
    "cat",
    "head",
    "tail",
    "wc",
    "stat",
    "grep",
    "egrep",
    "fgrep",
    "diff",
    "du",
    "df",
    "echo",
    "strings",
    "hexdump",
    "od",
    "nl",
    "cut",
    "column",
    "tr",
    "tac",
    "rev",
    "cmp",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "sha256sum",
    "sha1sum",
    "md5sum",
    "cd",
];

/// Commands the CLI decides by name and arguments before its option
/// tables: a variable in their text does not make them ask.
const BY_NAME: &[&str] = &[
    "pwd", "whoami", "alias", "claude", "node", "python", "python3", "ip", "echo", "printf", "[[",
    "ls", "cd", "find", "history", "arch", "ifconfig", "jq", "docker",
];

/// Commands the CLI runs with any arguments (its list).
const ALWAYS: &[&str] = &[
    "cal", "uptime", "cat", "head", "tail", "wc", "stat", "strings", "hexdump", "od", "nl", "id",
    "uname", "free", "df", "du", "locale", "groups", "nproc", "basename", "dirname", "realpath",
    "cut", "paste", "tr", "column", "tac", "rev", "fold", "expand", "unexpand", "fmt", "comm",
    "cmp", "numfmt", "readlink", "diff", "true", "false", "sleep", "type", "expr", "seq", "tsort",
    "pr",
];

/// The read-only check of one simple command, with what its text expands
/// (`words` are the command's words, wrappers the caller strips already
/// removed).
pub fn read_only_text(text: &str, words: &[String]) -> ReadOnlyAnswer {
    let name = words.first().map(String::as_str).unwrap_or("");
    match expansion(text) {
        Expansion::Glob => {
            // Any arguments at all, for the commands of the list (observed:
            // `lsof -?` asks, `cat *.txt` runs).
            if GLOB_OK.contains(&name) {
                let args = RO.iter().find(|r| r.name == name).map_or(
                    if matches!(name, "egrep" | "fgrep") {
                        Args::PatternThenPaths
                    } else {
                        Args::Paths
                    },
                    |r| r.args,
                );
                return ReadOnlyAnswer::Yes {
                    paths: collect_paths(name, args, &words[1..]),
                };
            }
            ReadOnlyAnswer::No
        }
        Expansion::Variable if !BY_NAME.contains(&name) && !ALWAYS.contains(&name) => {
            ReadOnlyAnswer::No
        }
        _ => read_only(words),
    }
}

fn yes_if(ok: bool) -> ReadOnlyAnswer {
    if ok {
        ReadOnlyAnswer::Yes { paths: Vec::new() }
    } else {
        ReadOnlyAnswer::No
    }
}

/// Is `words` a command the CLI runs without asking (before the working
/// directory check of its paths)?
pub fn read_only(words: &[String]) -> ReadOnlyAnswer {
    let Some(first) = words.first() else {
        return ReadOnlyAnswer::No;
    };
    // `timeout N cmd` and `command cmd` are read as `cmd` (observed);
    // `time`, `nice`, `nohup` are not.
    if first == "timeout" {
        let mut i = 1;
        while i < words.len() && words[i].starts_with('-') {
            i += 1;
        }
        // `timeout` cannot run a builtin: `timeout 5 cd sub` asks (observed).
        return if i + 1 < words.len() && words[i + 1] != "cd" {
            read_only(&words[i + 1..])
        } else {
            ReadOnlyAnswer::No
        };
    }
    if first == "command" && words.len() > 1 && !words[1].starts_with('-') {
        return read_only(&words[1..]);
    }
    let rest = &words[1..];
    let has_flag = |forbidden: &[&str]| {
        rest.iter().any(|w| {
            forbidden
                .iter()
                .any(|f| w == f || (f.starts_with("--") && w.starts_with(&format!("{f}="))))
        })
    };
    match first.as_str() {
        "git" => yes_if(super::read_only::allowlisted(words) == Some(true)),
        "docker" => match rest.first().map(String::as_str) {
            Some("ps" | "images") => ReadOnlyAnswer::Yes { paths: Vec::new() },
            _ => yes_if(super::read_only::allowlisted(words) == Some(true)),
        },
        "ip" => match rest.first().map(String::as_str) {
            Some("addr") if rest.len() == 1 => ReadOnlyAnswer::Yes { paths: Vec::new() },
            _ => ReadOnlyAnswer::No,
        },
        "sed" => {
            if super::read_only::allowlisted(words) != Some(true) {
                return ReadOnlyAnswer::No;
            }
            // `sed -n …` without in-place editing or a `w` command.
            let in_place = rest
                .iter()
                .any(|w| w == "-i" || w.starts_with("-i") || w.starts_with("--in-place"));
            // A script is needed (observed: `sed -n` alone asks).
            let script = rest.iter().any(|w| !w.starts_with('-'));
            if in_place || !rest.iter().any(|w| w == "-n") || !script {
                return ReadOnlyAnswer::No;
            }
            ReadOnlyAnswer::Yes {
                paths: collect_paths("sed", Args::PatternThenPaths, rest),
            }
        }
        // Version checks observed to run: `node --version`, `node -v`,
        // `python3 --version` (`python3 -V`, `cargo --version`, `npm
        // --version`, `go --version`, `rustc --version` ask).
        "node" | "python3" | "python"
            if rest.len() == 1
                && (rest[0] == "--version" || (first == "node" && rest[0] == "-v")) =>
        {
            ReadOnlyAnswer::Yes { paths: Vec::new() }
        }
        "claude" if rest.len() == 1 && (rest[0] == "-h" || rest[0] == "--help") => {
            ReadOnlyAnswer::Yes { paths: Vec::new() }
        }
        // Only without arguments (the CLI's list).
        "pwd" | "whoami" | "alias" => yes_if(rest.is_empty()),
        "history" => yes_if(
            rest.is_empty() || (rest.len() == 1 && rest[0].bytes().all(|b| b.is_ascii_digit())),
        ),
        "arch" => {
            yes_if(rest.is_empty() || (rest.len() == 1 && (rest[0] == "-h" || rest[0] == "--help")))
        }
        "ifconfig" => yes_if(
            rest.is_empty()
                || (rest.len() == 1
                    && rest[0].starts_with(|c: char| c.is_ascii_alphabetic())
                    && rest[0]
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')),
        ),
        // `uniq` with options only (a file argument asks).
        "uniq" => {
            let mut ok = true;
            let mut it = rest.iter();
            while let Some(w) = it.next() {
                if matches!(w.as_str(), "-f" | "-s" | "-w") {
                    ok &= it
                        .next()
                        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
                } else if let Some(long) = w.strip_prefix("--") {
                    let name = long.split('=').next().unwrap_or("");
                    ok &= !name.is_empty()
                        && name.bytes().all(|b| b.is_ascii_alphabetic() || b == b'-');
                } else if let Some(short) = w.strip_prefix('-') {
                    ok &= !short.is_empty() && short.bytes().all(|b| b.is_ascii_alphabetic());
                } else {
                    ok = false;
                }
            }
            yes_if(ok)
        }
        // `[[ … ]]`: a test (the parser keeps `[[` as a word).
        "[[" => ReadOnlyAnswer::Yes { paths: Vec::new() },
        // Commands whose options the CLI checks against its tables.
        name if super::read_only::spec_of(words).is_some() => {
            if super::read_only::allowlisted(words) != Some(true) {
                return ReadOnlyAnswer::No;
            }
            let args = RO
                .iter()
                .find(|r| r.name == name)
                .map(|r| r.args)
                .unwrap_or(match name {
                    "egrep" | "fgrep" | "fd" | "fdfind" => Args::PatternThenPaths,
                    "sha1sum" => Args::Paths,
                    _ => Args::None,
                });
            ReadOnlyAnswer::Yes {
                paths: collect_paths(name, args, rest),
            }
        }
        name => match RO.iter().find(|r| r.name == name) {
            Some(r) if !has_flag(r.forbidden) => ReadOnlyAnswer::Yes {
                paths: collect_paths(name, r.args, rest),
            },
            _ => ReadOnlyAnswer::No,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(line: &str) -> Vec<String> {
        parse(line).commands.into_iter().map(|c| c.text).collect()
    }

    #[test]
    fn splits_at_operators_and_keeps_quotes() {
        assert_eq!(texts("ls && echo ok"), ["ls", "echo ok"]);
        assert_eq!(texts("ls; echo ok"), ["ls", "echo ok"]);
        assert_eq!(texts("ls | grep a"), ["ls", "grep a"]);
        assert_eq!(texts("ls || echo no"), ["ls", "echo no"]);
        assert_eq!(texts("a & b"), ["a", "b"]);
        assert_eq!(texts("a\nb"), ["a", "b"]);
        assert_eq!(texts("echo \"x && rm y\""), ["echo \"x && rm y\""]);
        assert_eq!(texts("echo 'a;b'"), ["echo 'a;b'"]);
        assert_eq!(texts("git  push"), ["git push"]);
        assert_eq!(texts("X=1 GIT_DIR=x git push"), ["git push"]);
    }

    #[test]
    fn substitutions_redirects_and_env() {
        assert!(parse("echo $(whoami)").substitution);
        assert!(parse("echo `whoami`").substitution);
        assert!(parse("echo \"$(whoami)\"").substitution);
        assert!(!parse("echo '$(whoami)'").substitution);
        assert!(parse("diff <(ls) b").substitution);
        let p = parse("echo hi > out.txt 2>&1");
        assert_eq!(p.commands[0].file_redirects, ["out.txt"]);
        assert_eq!(p.commands[0].text, "echo hi");
        assert!(
            parse("ls 2>/dev/null").commands[0]
                .file_redirects
                .is_empty()
        );
        assert_eq!(parse("X=1 ls").commands[0].env, ["X"]);
        assert_eq!(parse("X='a b' ls").commands[0].env_raw, ["X='a b'"]);
        assert!(parse("cat <<EOF\nx\nEOF").complex);
        assert!(parse("a & b").background);
        for no in [
            "a && b",
            "a 2>&1",
            "a &> f",
            "echo 'a & b'",
            "a |& b",
            "a >&2",
        ] {
            assert!(!parse(no).background, "{no}");
        }
        assert!(parse("(ls)").complex);
        assert!(parse("echo 'open").complex);
    }

    #[test]
    fn read_only_as_observed() {
        let ro = |l: &str| {
            matches!(
                read_only(&parse(l).commands[0].words),
                ReadOnlyAnswer::Yes { .. }
            )
        };
        for yes in [
            "ls -la",
            "git status",
            "git log --oneline",
            "git branch -a",
            "git config --get user.name",
            "find . -name x",
            "sed -n 1p a.txt",
            "timeout 5 ls",
            "command ls",
            "node --version",
            "docker ps",
        ] {
            assert!(ro(yes), "{yes}");
        }
        for no in [
            "uniq a.txt",
            "env",
            "git branch -D x",
            "git -C sub status",
            "git stash",
            "find . -delete",
            "sed -i s/a/b/ a.txt",
            "sort -o out a.txt",
            "npm ls",
            "time ls",
            "nice ls",
            "awk '{print}' a.txt",
        ] {
            assert!(!ro(no), "{no}");
        }
    }

    #[test]
    fn path_arguments() {
        let p = |l: &str| match read_only(&parse(l).commands[0].words) {
            ReadOnlyAnswer::Yes { paths } => paths,
            ReadOnlyAnswer::No => vec!["<no>".into()],
        };
        assert_eq!(p("cat /etc/hostname"), ["/etc/hostname"]);
        assert_eq!(p("grep -r foo ."), ["."]);
        assert_eq!(p("head -n 5 a.txt"), ["a.txt"]);
        assert_eq!(p("find . -name x"), ["."]);
        assert!(p("echo /etc").is_empty());
    }

    #[test]
    fn hostile_input_does_not_panic() {
        for l in [
            "", "\\", "'", "\"", "$(", "`", ">", "2>", "&>", "<<<", "((((", "))))", "a=b", "=",
            "\"$(\"", "\u{0}", "é>é", "1>&",
        ] {
            let _ = parse(l);
        }
    }
}
