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
    /// Any redirection at all (`2>/dev/null` included).
    pub redirected: bool,
}

/// A whole command line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Parsed {
    pub commands: Vec<Simple>,
    /// `$(…)`, backticks, `<(…)` or `>(…)` outside quotes.
    pub substitution: bool,
    /// Something this reading does not take apart (subshells, braces, an
    /// unclosed quote): the CLI asks.
    pub complex: bool,
    /// A command run in the background (a single `&`).
    pub background: bool,
    /// Why the CLI cannot check the line before it runs, when it cannot
    /// (a variable, a parse error, a brace pattern, a case statement, …):
    /// it asks whatever allows the commands; only a rule naming the whole
    /// line exactly allows it (observed on 2.1.332).
    pub unchecked: Option<&'static str>,
    /// Commands run inside a quoted substitution with other text around it
    /// (`echo "built $(date)"`): decided as commands of the line.
    pub nested: Vec<String>,
    /// The variables the line sets for the rest of it: bare assignments
    /// (`X=1; ls`) and loop variables (`for f in …`).
    pub assigned: Vec<String>,
    /// An assignment in front of a shell keyword (`X=1 done`, `X=1 fi`;
    /// not `X=1 in`, `X=1 {`): not even bypass mode lifts what this asks
    /// (observed on 2.1.332).
    pub keyword_after_assignment: bool,
}

impl Parsed {
    fn uncheckable(&mut self, why: &'static str) {
        self.unchecked.get_or_insert(why);
    }
}

/// The CLI's words for what it cannot check.
pub const PARSE_ERROR: &str = "Parse error";
const VARIABLE: &str = "A variable in this command can't be checked before it runs";
const QUOTED: &str = "Quoted text in this command can't be checked before it runs";
const ESCAPES: &str = "Text with escape codes in this command can't be checked before it runs";
const BRACES: &str = "Brace expansion";
const TILDE: &str = "Tilde expansion variants (~user, ~+, ~-) in paths require manual approval";
const HEREDOC: &str = "Heredoc with unquoted delimiter undergoes shell expansion";
const CASE: &str = "A case statement in this command can't be checked before it runs";
const COUNTING_FOR: &str = "A counting for loop in this command can't be checked before it runs";
const FOR: &str = "A for or select loop in this command can't be checked before it runs";
const SELECT: &str = "select statement reads stdin into $REPLY; cannot statically model";
const TEST_WORDS: &str = "A test in brackets in this command can't be checked before it runs";
const LOOKUP: &str =
    "An assignment of this variable alters command lookup/execution for subsequent commands";
const INTEGER: &str =
    "An integer variable's assignment evaluates its value: it can't be checked before it runs";
const LOOP_VARIABLE: &str = "This loop variable bypasses assignment validation";

/// Variables whose assignment changes how later commands are found or run
/// (the CLI's list, any case; `LD_*`, `DYLD_*`, `BASH_FUNC_*`).
fn alters_lookup(name: &str) -> bool {
    const NAMES: &[&str] = &[
        "path",
        "home",
        "dirstack",
        "tmpprefix",
        "bash_env",
        "env",
        "cdpath",
        "globignore",
        "shell",
        "fpath",
        "bash_loadables_path",
        "module_path",
        "manpath",
        "mailpath",
        "readnullcmd",
        "nullcmd",
        "histfile",
        "zdotdir",
        "functions",
        "commands",
        "aliases",
        "galiases",
        "saliases",
        "bash_cmds",
        "bash_aliases",
        "execignore",
        "bash_source_path",
        "lang",
        "language",
        "lc_all",
        "lc_ctype",
        "lc_collate",
        "lc_messages",
        "lc_numeric",
        "lc_time",
        "histchars",
        "textdomain",
        "textdomaindir",
    ];
    let lower = name.to_ascii_lowercase();
    NAMES.contains(&lower.as_str())
        || lower.starts_with("ld_")
        || lower.starts_with("dyld_")
        || lower.starts_with("bash_func_")
}

/// The shells' integer variables: an assignment evaluates its value.
const INTEGER_VARIABLES: &[&str] = &[
    "RANDOM",
    "SECONDS",
    "LINENO",
    "OPTIND",
    "MAILCHECK",
    "HISTCMD",
    "SRANDOM",
    "EPOCHSECONDS",
    "EPOCHREALTIME",
    "BASHPID",
    "BASH_MONOSECONDS",
    "BASH_TRAPSIG",
    "COLUMNS",
    "LINES",
    "SHLVL",
    "ERRNO",
    "TMOUT",
    "HISTSIZE",
    "SAVEHIST",
    "TRY_BLOCK_ERROR",
    "TRY_BLOCK_INTERRUPT",
    "KEYTIMEOUT",
    "LISTMAX",
    "LOGCHECK",
    "PERIOD",
    "FUNCNEST",
    "UID",
    "EUID",
    "GID",
    "EGID",
    "REPORTTIME",
    "REPORTMEMORY",
    "DIRSTACKSIZE",
    "BAUD",
    "ZLE_RPROMPT_INDENT",
    "MBEGIN",
    "MEND",
    "PPID",
    "ARGC",
    "ZSH_SUBSHELL",
    "TTYIDLE",
    "status",
];

/// A loop variable the CLI refuses to follow: the shell's own and those
/// whose assignment it checks.
fn guarded_loop_variable(name: &str) -> bool {
    const SHELL_OWN: &[&str] = &[
        "PS4",
        "IFS",
        "BASH_ARGV0",
        "BASHOPTS",
        "BASH_VERSINFO",
        "EUID",
        "PPID",
        "SHELLOPTS",
        "UID",
        "FUNCNAME",
        "GROUPS",
        "BASH_ARGC",
        "BASH_ARGV",
        "BASH_LINENO",
        "BASH_SOURCE",
        "BASHPID",
        "HOME",
        "PWD",
        "OLDPWD",
        "USER",
        "LOGNAME",
        "SHELL",
        "PATH",
        "HOSTNAME",
        "RANDOM",
        "SECONDS",
        "LINENO",
        "TMPDIR",
        "BASH_VERSION",
        "SHLVL",
        "HISTFILE",
    ];
    SHELL_OWN.contains(&name) || alters_lookup(name) || INTEGER_VARIABLES.contains(&name)
}
const FUNCTION: &str = "A function definition in this command can't be checked before it runs";

/// Splits a command line (the commands of quoted substitutions included).
pub fn parse(line: &str) -> Parsed {
    let mut out = parse_depth(line, 0);
    // The CLI's parser gives up on a command over 10,000 characters
    // (observed: 10,000 runs under an allow rule, 10,005 asks).
    if line.encode_utf16().count() > MAX_CHECKED_LENGTH {
        out.uncheckable(TOO_LONG);
    }
    out
}

/// The longest command the CLI checks (UTF-16 units).
const MAX_CHECKED_LENGTH: usize = 10_000;
const TOO_LONG: &str = "This command is too long to be checked before it runs";
const LEGACY_ARITHMETIC: &str =
    "A `$[…]` arithmetic expansion in this command can't be checked before it runs";

fn parse_depth(line: &str, depth: usize) -> Parsed {
    let mut out = parse_line(line);
    for inner in std::mem::take(&mut out.nested) {
        if depth >= 8 {
            out.uncheckable(QUOTED);
            break;
        }
        let p = parse_depth(&inner, depth + 1);
        out.commands.extend(p.commands);
        out.assigned.extend(p.assigned);
        out.substitution |= p.substitution;
        out.complex |= p.complex;
        out.background |= p.background;
        if let Some(u) = p.unchecked {
            out.uncheckable(u);
        }
    }
    out
}

fn parse_line(line: &str) -> Parsed {
    let mut out = Parsed::default();
    let mut cur = Builder::default();
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    // Here-documents whose bodies start at the next newline.
    let mut heredocs: Vec<String> = Vec::new();
    // The last operator had no command after it yet (`a &&`), or none
    // before it (`| b`).
    let mut dangling: Option<char> = None;
    while i < chars.len() {
        let c = chars[i];
        match c {
            ' ' | '\t' => {
                i += 1;
            }
            '#' if cur.words.is_empty() || cur.last_end != Some(i) => {
                // A comment runs to the end of the line.
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '\n' | ';' => {
                cur.finish(&mut out);
                if c == ';' && chars.get(i + 1) == Some(&';') {
                    i += 1;
                }
                i += 1;
                if c == '\n' {
                    i = skip_heredoc_bodies(&chars, i, &mut heredocs);
                }
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
                let had_command = !cur.words.is_empty();
                cur.finish(&mut out);
                if c == '&' && next != Some('&') {
                    out.background = true;
                }
                let double = next == Some(c) || (c == '|' && next == Some('&'));
                // `| b`, `&& b` with nothing before: a parse error.
                if !had_command && out.commands.is_empty() && !out.complex {
                    out.uncheckable(PARSE_ERROR);
                }
                dangling = (c == '&' && double || c == '|' && next == Some('|')).then_some(c);
                i += if double { 2 } else { 1 };
                continue;
            }
            '(' | ')' => {
                // A subshell or a function body.
                out.complex = true;
                cur.finish(&mut out);
                if c == '(' && chars.get(i + 1) == Some(&'(') {
                    // `((…))`, `for ((…))`: an arithmetic expression, no
                    // command inside (observed: `((rm x))` runs in
                    // bypassPermissions next to an ask rule `Bash(rm:*)`).
                    out.uncheckable(COUNTING_FOR);
                    let mut depth = 0usize;
                    let mut j = i;
                    while j < chars.len() {
                        match chars[j] {
                            '(' => depth += 1,
                            ')' => {
                                depth -= 1;
                                if depth == 0 {
                                    break;
                                }
                            }
                            _ => {}
                        }
                        j += 1;
                    }
                    i = (j + 1).min(chars.len());
                    continue;
                }
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
                cur.redirected = true;
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
                    i += 1;
                    if chars.get(i) == Some(&'<') {
                        // A here-string: its word is read like any other.
                        i += 1;
                        while matches!(chars.get(i), Some(' ') | Some('\t')) {
                            i += 1;
                        }
                        let (_, n) = read_word(&chars[i..], &mut out);
                        i += n;
                        continue;
                    }
                    // A here-document: a quoted delimiter keeps the body as
                    // written; an unquoted one expands it (the CLI asks).
                    let strip_tabs = chars.get(i) == Some(&'-');
                    if strip_tabs {
                        i += 1;
                    }
                    while matches!(chars.get(i), Some(' ') | Some('\t')) {
                        i += 1;
                    }
                    let start = i;
                    let (delim, n) = read_word(&chars[i..], &mut out);
                    let raw: String = chars[start..start + n].iter().collect();
                    i += n;
                    if !raw.contains(['\'', '"', '\\']) {
                        out.uncheckable(HEREDOC);
                    }
                    if delim.is_empty() {
                        out.uncheckable(PARSE_ERROR);
                    }
                    heredocs.push(delim);
                    continue;
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
                let raw: String = chars[i..i + n].iter().collect();
                word_checks(&raw, &mut out);
                cur.words.push(word);
                cur.raw_words.push(raw);
                i += n;
                cur.last_end = Some(i);
                dangling = None;
            }
        }
    }
    cur.finish(&mut out);
    // `a &&` at the end: a parse error (`a |` is not: observed).
    if dangling.is_some() {
        out.uncheckable(PARSE_ERROR);
    }
    keywords(&mut out);
    out
}

/// Skips the bodies of pending here-documents from `i` (the start of a
/// line): each ends at a line that is its delimiter.
fn skip_heredoc_bodies(chars: &[char], mut i: usize, pending: &mut Vec<String>) -> usize {
    for delim in std::mem::take(pending) {
        loop {
            if i >= chars.len() {
                return i;
            }
            let end = chars[i..]
                .iter()
                .position(|c| *c == '\n')
                .map_or(chars.len(), |p| i + p);
            let line: String = chars[i..end].iter().collect();
            i = (end + 1).min(chars.len());
            if line.trim_start_matches('\t') == delim {
                break;
            }
        }
    }
    i
}

/// What one word as written makes the CLI unable to check: `$'…'`, a brace
/// pattern (`x{a,b}`, `{1..3}`), a tilde form other than `~` and `~/`.
fn word_checks(raw: &str, out: &mut Parsed) {
    if let Some(rest) = raw.strip_prefix('~')
        && !rest.is_empty()
        && !rest.starts_with('/')
    {
        out.uncheckable(TILDE);
    }
    let b: Vec<char> = raw.chars().collect();
    let (mut single, mut double) = (false, false);
    let mut k = 0;
    while k < b.len() {
        match b[k] {
            '\\' if !single => k += 1,
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '{' if !single && !double => {
                if let Some(close) = b[k..].iter().position(|c| *c == '}') {
                    let inner: String = b[k + 1..k + close].iter().collect();
                    if inner.contains(',') || inner.contains("..") {
                        out.uncheckable(BRACES);
                    }
                }
            }
            _ => {}
        }
        k += 1;
    }
}

/// Shell keywords at a command's start, as the CLI's parser reads them:
/// `if`/`then`/`else`/`elif`, `while`/`until`/`do`, `!` open or continue
/// a structure and the command after them is checked; `fi` and `done`
/// close one; `for x in …` heads a loop (its words are no command); a
/// keyword that continues or closes nothing is a parse error; `case` and
/// `function` cannot be checked. A structure left open at the end is
/// fine (observed: `if true; then echo x` runs).
fn keywords(out: &mut Parsed) {
    #[derive(PartialEq)]
    enum Open {
        If,
        Loop,
    }
    let mut stack: Vec<Open> = Vec::new();
    let mut kept = Vec::with_capacity(out.commands.len());
    if let Some(why) = out.commands.iter().find_map(|c| wrapper_check(&c.words)) {
        out.uncheckable(why);
    }
    for c in &out.commands {
        if keyword_after_prefix(c) {
            out.unchecked.get_or_insert(
                "A shell keyword or opening brace in this command can't be checked before it runs",
            );
            if !c.env_raw.is_empty()
                && c.text
                    .split(' ')
                    .next()
                    .is_some_and(|w| !matches!(w, "in" | "{" | "}"))
            {
                out.keyword_after_assignment = true;
            }
        }
    }
    // A `for` head must be followed by its `do` (observed: `for f`, `for
    // f in a b;` and `for f in a; echo x` ask: the loop has no body).
    let mut expect_do = false;
    for mut c in std::mem::take(&mut out.commands) {
        // Bare assignments set a variable for the rest of the line.
        if c.words.is_empty() {
            out.assigned.extend(c.env.iter().cloned());
            for raw in &c.env_raw {
                let (name, value) = raw.split_once('=').unwrap_or((raw, ""));
                let name = name.trim_end_matches('+');
                if alters_lookup(name) {
                    out.uncheckable(LOOKUP);
                }
                let plain_integer = value == "0"
                    || (!value.is_empty()
                        && value.len() <= 18
                        && !value.starts_with('0')
                        && value.bytes().all(|b| b.is_ascii_digit()));
                if INTEGER_VARIABLES.contains(&name) && !plain_integer {
                    out.uncheckable(INTEGER);
                }
            }
        }
        loop {
            // Only an unquoted keyword counts: the raw first word.
            let first_raw = c.text.split(' ').next().unwrap_or("");
            let first = c.words.first().map(String::as_str).unwrap_or("");
            if std::mem::take(&mut expect_do) && (first_raw != first || first != "do") {
                out.uncheckable(FOR);
            }
            if first_raw != first || !c.env.is_empty() {
                break;
            }
            match first {
                "if" | "while" | "until" => {
                    stack.push(if first == "if" { Open::If } else { Open::Loop });
                }
                "then" | "else" | "elif" => {
                    if stack.last() != Some(&Open::If) {
                        out.uncheckable(PARSE_ERROR);
                    }
                }
                "do" => {
                    if stack.last() != Some(&Open::Loop) {
                        out.uncheckable(PARSE_ERROR);
                    }
                }
                "fi" | "done" => {
                    let want = if first == "fi" { Open::If } else { Open::Loop };
                    if stack.last() == Some(&want) {
                        stack.pop();
                    } else {
                        out.uncheckable(PARSE_ERROR);
                    }
                    if c.words.len() > 1 {
                        out.uncheckable(PARSE_ERROR);
                    }
                    c.words.clear();
                }
                "select" => {
                    out.uncheckable(SELECT);
                    c.words.clear();
                }
                "for" => {
                    stack.push(Open::Loop);
                    // The loop's head: `for x in a b`; its variable is set.
                    if let Some(var) = c.words.get(1) {
                        if guarded_loop_variable(var) {
                            out.uncheckable(LOOP_VARIABLE);
                        }
                        out.assigned.push(var.clone());
                    }
                    expect_do = true;
                    c.words.clear();
                }
                "!" => {}
                "case" => {
                    out.uncheckable(CASE);
                    c.words.clear();
                }
                "esac" | "in" => {
                    out.uncheckable(PARSE_ERROR);
                    c.words.clear();
                }
                "function" => {
                    out.uncheckable(FUNCTION);
                    c.words.clear();
                }
                _ => break,
            }
            if c.words.is_empty() {
                break;
            }
            // The rest is the command.
            c.words.remove(0);
            let mut raw = c.text.splitn(2, ' ');
            raw.next();
            c.text = raw.next().unwrap_or("").to_string();
            c.text_with_env = c.text.clone();
            if c.words.is_empty() {
                break;
            }
        }
        if !c.words.is_empty() || !c.env_raw.is_empty() {
            kept.push(c);
        }
    }
    if expect_do {
        out.uncheckable(FOR);
    }
    // A bracket test must end with its closing bracket (observed: `if [ -d
    // x ] y` asks).
    if kept
        .iter()
        .any(|c| match c.words.first().map(String::as_str) {
            Some("[") => c.words.last().is_none_or(|w| w != "]"),
            Some("[[") => c.words.last().is_none_or(|w| w != "]]"),
            _ => false,
        })
    {
        out.uncheckable(TEST_WORDS);
    }
    // A test in brackets with a redirection (observed: `if [ -d x ]
    // 2>/dev/null` asks).
    if kept
        .iter()
        .any(|c| c.redirected && matches!(c.words.first().map(String::as_str), Some("[" | "[[")))
    {
        out.uncheckable(TEST_WORDS);
    }
    out.commands = kept;
}

/// The wrappers in front of a command, read as the CLI reads them before
/// it matches rules: an option or argument it does not know makes the
/// command one it cannot check (observed: `timeout --flag` and `timeout
/// x` ask under `Bash(timeout:*)`).
fn wrapper_check(words: &[String]) -> Option<&'static str> {
    const WHY: &str = "A wrapper's arguments in this command can't be checked before it runs";
    let plain = |w: &str| {
        !w.is_empty()
            && w.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'+' | b'-'))
    };
    let duration = |w: &str| {
        let d = w.trim_end_matches(['s', 'm', 'h', 'd']);
        let (int, frac) = d.split_once('.').unwrap_or((d, "0"));
        (w.len() - d.len() <= 1)
            && !int.is_empty()
            && int.bytes().all(|b| b.is_ascii_digit())
            && !frac.is_empty()
            && frac.bytes().all(|b| b.is_ascii_digit())
    };
    let mut s: &[String] = words;
    for _ in 0..32 {
        let first = s.first()?;
        let name = first.rsplit('/').next().unwrap_or(first);
        match name {
            "time" | "nohup" => {
                s = &s[1..];
                if let Some(w) = s.first()
                    && !w.bytes().all(|b| {
                        b.is_ascii_alphanumeric()
                            || matches!(b, b'_' | b'.' | b'/' | b'~' | b'+' | b'-')
                    })
                {
                    return Some(WHY);
                }
            }
            "timeout" => {
                let mut c = 1;
                while c < s.len() {
                    let x = s[c].as_str();
                    if matches!(x, "--foreground" | "--preserve-status" | "--verbose" | "-v") {
                        c += 1;
                    } else if let Some(v) = x
                        .strip_prefix("--kill-after=")
                        .or_else(|| x.strip_prefix("--signal="))
                    {
                        if !plain(v) {
                            return Some(WHY);
                        }
                        c += 1;
                    } else if matches!(x, "--kill-after" | "--signal" | "-k" | "-s")
                        && s.get(c + 1).is_some_and(|v| plain(v))
                    {
                        c += 2;
                    } else if (x.starts_with("-k") || x.starts_with("-s"))
                        && x.len() > 2
                        && plain(&x[2..])
                    {
                        c += 1;
                    } else if x.starts_with('-') {
                        return Some(WHY);
                    } else {
                        break;
                    }
                }
                match s.get(c) {
                    Some(d) if duration(d) => s = &s[c + 1..],
                    Some(_) => return Some(WHY),
                    None => return None,
                }
            }
            "nice" => {
                if s.get(1).is_some_and(|w| w == "-n")
                    && s.get(2).is_some_and(|w| {
                        let d = w.strip_prefix('-').unwrap_or(w);
                        !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())
                    })
                {
                    s = &s[3..];
                } else if s.get(1).is_some_and(|w| {
                    w.len() > 1 && w.starts_with('-') && w[1..].bytes().all(|b| b.is_ascii_digit())
                }) {
                    s = &s[2..];
                } else if s
                    .get(1)
                    .is_some_and(|w| w.contains(['$', '(', '`']) || w.starts_with('-'))
                {
                    // An option it cannot read (observed: `nice -n x ls`
                    // asks: "an incomplete fragment").
                    return Some(WHY);
                } else {
                    s = &s[1..];
                }
            }
            "env" => {
                let mut c = 1;
                while c < s.len() {
                    let x = s[c].as_str();
                    if (x.contains('=') && !x.starts_with('-')) || matches!(x, "-i" | "-0" | "-v") {
                        c += 1;
                    } else if x == "-u" && c + 1 < s.len() {
                        c += 2;
                    } else if x.starts_with('-') {
                        return Some(WHY);
                    } else {
                        break;
                    }
                }
                if c >= s.len() {
                    return None;
                }
                s = &s[c..];
            }
            "stdbuf" => {
                let mut c = 1;
                while c < s.len() {
                    let x = s[c].as_str();
                    let b = x.as_bytes();
                    if b.len() == 2
                        && b[0] == b'-'
                        && matches!(b[1], b'i' | b'o' | b'e')
                        && c + 1 < s.len()
                    {
                        c += 2;
                    } else if (b.len() > 2 && b[0] == b'-' && matches!(b[1], b'i' | b'o' | b'e'))
                        || ["--input=", "--output=", "--error="]
                            .iter()
                            .any(|p| x.starts_with(p))
                    {
                        c += 1;
                    } else if x.starts_with('-') {
                        return Some(WHY);
                    } else {
                        break;
                    }
                }
                if c > 1 && c < s.len() {
                    s = &s[c..];
                } else {
                    return None;
                }
            }
            "command" => {
                let mut c = 1;
                let mut lookup = false;
                while c < s.len() && s[c].starts_with('-') && s[c] != "--" {
                    let d = &s[c][1..];
                    if d.is_empty() || !d.bytes().all(|b| matches!(b, b'p' | b'v' | b'V')) {
                        return Some(WHY);
                    }
                    lookup |= d.contains(['v', 'V']);
                    c += 1;
                }
                if s.get(c).is_some_and(|w| w == "--") {
                    c += 1;
                }
                if lookup || c >= s.len() {
                    return None;
                }
                s = &s[c..];
            }
            "builtin" | "noglob" => {
                let c = if name == "builtin" && s.get(1).is_some_and(|w| w == "--") {
                    2
                } else {
                    1
                };
                if c >= s.len() {
                    return None;
                }
                s = &s[c..];
            }
            "xargs" if s.len() >= 2 && !s[1].starts_with('-') => s = &s[1..],
            _ => return None,
        }
    }
    None
}

/// A shell keyword where a command's prefix makes it a plain word — after
/// an assignment (`X=1 then`) or a wrapper (`nohup while …`, `xargs fi`):
/// the CLI cannot check it (observed).
fn keyword_after_prefix(c: &Simple) -> bool {
    const RESERVED: &[&str] = &[
        "if", "then", "else", "elif", "fi", "do", "done", "case", "esac", "while", "until", "for",
        "select", "function", "in", "{", "}",
    ];
    const PREFIXES: &[&str] = &[
        "command", "builtin", "nohup", "time", "nice", "timeout", "stdbuf", "xargs", "exec", "env",
        "sudo", "noglob",
    ];
    let raw: Vec<&str> = c.text.split(' ').collect();
    if !c.env_raw.is_empty() {
        return raw.first().is_some_and(|w| RESERVED.contains(w));
    }
    let mut i = 0;
    while i < raw.len()
        && (PREFIXES.contains(&raw[i])
            || (i > 0
                && (raw[i].starts_with('-')
                    || raw[i].contains('=')
                    || raw[i].bytes().all(|b| b.is_ascii_digit() || b == b'.'))))
    {
        i += 1;
    }
    i > 0 && i < raw.len() && RESERVED.contains(&raw[i])
}

/// Reads one shell word from the start of `chars` (stopping at a blank or
/// an operator): its unquoted value and how many chars it used. What the
/// CLI cannot check in it is noted on `out`: a variable other than
/// `$HOME`, a substitution inside quotes with nothing around it, `$'…'`.
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
                    out.uncheckable(PARSE_ERROR);
                }
                word.extend(&chars[start..i.min(chars.len())]);
                i += 1;
            }
            '"' => {
                i += 1;
                let open = i;
                let mut text_around = false;
                let mut subs: Vec<String> = Vec::new();
                while i < chars.len() && chars[i] != '"' {
                    match chars[i] {
                        '\\' if i + 1 < chars.len() => {
                            word.push(chars[i + 1]);
                            text_around = true;
                            i += 2;
                        }
                        '`' => {
                            let start = i + 1;
                            let mut j = start;
                            while j < chars.len() && chars[j] != '`' {
                                j += 1;
                            }
                            subs.push(chars[start..j.min(chars.len())].iter().collect());
                            word.extend(&chars[i..(j + 1).min(chars.len())]);
                            i = (j + 1).min(chars.len());
                        }
                        '$' if chars.get(i + 1) == Some(&'(') => {
                            let end = skip_balanced(chars, i + 1);
                            if chars.get(i + 2) == Some(&'(') {
                                // `"$((…))"`
                                out.uncheckable(QUOTED);
                            } else {
                                let inner_end = end.saturating_sub(1).max(i + 2);
                                subs.push(
                                    chars[i + 2..inner_end.min(chars.len())].iter().collect(),
                                );
                            }
                            word.extend(&chars[i..end.min(chars.len())]);
                            i = end;
                        }
                        // `$?` with text around it, not glued to a word
                        // before it, is known (observed: `"exit=$?"` and
                        // `"$? x"` run under a rule; `"$?"`, `"x$?"` ask).
                        '$' if chars.get(i + 1) == Some(&'?')
                            && (i > open || chars.get(i + 2).is_some_and(|c| *c != '"'))
                            && !(i > open && chars[i - 1].is_alphanumeric()) =>
                        {
                            word.extend(&chars[i..i + 2]);
                            text_around = true;
                            i += 2;
                        }
                        '$' => {
                            let n = expansion_at(&chars[i..], true, out);
                            word.extend(&chars[i..i + n]);
                            text_around = true;
                            i += n;
                        }
                        ch => {
                            word.push(ch);
                            text_around = true;
                            i += 1;
                        }
                    }
                }
                if i >= chars.len() {
                    out.complex = true;
                    out.uncheckable(PARSE_ERROR);
                }
                // `"$(cmd)"` alone cannot be checked; with text around it
                // the command is decided like any other (observed: `echo
                // "x $(true)"` runs, `echo "$(true)"` asks).
                if !subs.is_empty() {
                    if text_around && subs.len() == 1 {
                        out.nested.extend(subs);
                    } else {
                        out.uncheckable(QUOTED);
                    }
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
                let end = skip_balanced(chars, i + 1);
                // `$((…))` outside quotes is a number (observed: runs).
                if chars.get(i + 2) != Some(&'(') {
                    out.substitution = true;
                }
                word.extend(&chars[i..end.min(chars.len())]);
                i = end;
            }
            '$' => {
                let n = expansion_at(&chars[i..], false, out);
                word.extend(&chars[i..i + n]);
                i += n;
            }
            _ => {
                word.push(c);
                i += 1;
            }
        }
    }
    (word, i.min(chars.len()))
}

/// A `$` expansion at the start of `chars` (not `$(`): its length, noting
/// on `out` what the CLI cannot check — every variable but `$HOME` and
/// `${HOME}`, `$'…'`, `$"…"`.
fn expansion_at(chars: &[char], quoted: bool, out: &mut Parsed) -> usize {
    match chars.get(1) {
        Some('{') => {
            let end = chars
                .iter()
                .position(|c| *c == '}')
                .map_or(chars.len(), |p| p + 1);
            let inner: String = chars[2..end.saturating_sub(1).max(2)].iter().collect();
            if inner != "HOME" {
                out.uncheckable(if quoted { QUOTED } else { VARIABLE });
            }
            end
        }
        Some('\'') if !quoted => {
            out.uncheckable(ESCAPES);
            1
        }
        // `$[1+1]` (observed: asks under an allow rule of the command).
        Some('[') => {
            out.uncheckable(LEGACY_ARITHMETIC);
            2
        }
        Some('"') if !quoted => {
            out.uncheckable(QUOTED);
            1
        }
        Some(c) if c.is_ascii_alphabetic() || *c == '_' => {
            let len = chars[1..]
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric() || **c == '_')
                .count();
            let name: String = chars[1..1 + len].iter().collect();
            if name != "HOME" {
                out.uncheckable(VARIABLE);
            }
            1 + len
        }
        Some(c) if c.is_ascii_digit() || "?$#!@*-_".contains(*c) => {
            out.uncheckable(VARIABLE);
            2
        }
        _ => 1,
    }
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
    redirected: bool,
    /// Where the last word ended (a `>` right after digits makes them a
    /// descriptor number).
    last_end: Option<usize>,
    redirects: Vec<String>,
}

impl Builder {
    fn redirect(&mut self, target: &str) {
        self.redirected = true;
        if target != "/dev/null" && !target.is_empty() {
            self.redirects.push(target.to_string());
        }
    }

    fn finish(&mut self, out: &mut Parsed) {
        let words = std::mem::take(&mut self.words);
        let raw_words = std::mem::take(&mut self.raw_words);
        self.last_end = None;
        let redirects = std::mem::take(&mut self.redirects);
        let redirected = std::mem::take(&mut self.redirected);
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
            redirected,
        });
    }
}

pub fn is_assignment(w: &str) -> bool {
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
    /// Flags (or prefixes of `--flag=value`) that make it ask.
    forbidden: &'static [&'static str],
}

const RO: &[ReadOnly] = &[
    ro("echo", &[]),
    ro("printf", &[]),
    ro("ls", &[]),
    ro("cat", &[]),
    ro("head", &[]),
    // `tail -f`, `-F`, `--follow` run too (observed: the process starts).
    ro("tail", &[]),
    ro("wc", &[]),
    ro("grep", &[]),
    ro("rg", &["--pre"]),
    ro(
        "find",
        &[
            "-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf",
            "-fls",
        ],
    ),
    ro("which", &[]),
    ro("date", &[]),
    ro("true", &[]),
    ro("false", &[]),
    ro("sort", &["-o", "--output"]),
    ro("cut", &[]),
    ro("diff", &[]),
    ro("file", &[]),
    ro("stat", &[]),
    ro("du", &[]),
    ro("df", &[]),
    ro("tree", &["-o"]),
    ro("basename", &[]),
    ro("dirname", &[]),
    ro("realpath", &[]),
    ro("hostname", &[]),
    ro("uname", &[]),
    ro("id", &[]),
    ro("ps", &[]),
    ro("jq", &[]),
    ro("test", &[]),
    ro("[", &[]),
    ro("cd", &[]),
    ro("type", &[]),
    ro("od", &[]),
    ro("hexdump", &[]),
    ro("md5sum", &[]),
    ro("sha256sum", &[]),
    ro("strings", &[]),
    ro("nl", &[]),
    ro("column", &[]),
    ro("comm", &[]),
    ro("paste", &[]),
    ro("rev", &[]),
    ro("fold", &[]),
    ro("expand", &[]),
    ro("seq", &[]),
    ro("base64", &[]),
    ro("readlink", &[]),
    ro("lsof", &[]),
    ro("netstat", &[]),
    ro("ss", &[]),
    ro("free", &[]),
    ro("uptime", &[]),
    // The rest of the CLI's list of commands it runs with any arguments.
    ro("cal", &[]),
    ro("locale", &[]),
    ro("groups", &[]),
    ro("nproc", &[]),
    ro("tr", &[]),
    ro("tac", &[]),
    ro("unexpand", &[]),
    ro("fmt", &[]),
    ro("cmp", &[]),
    ro("numfmt", &[]),
    ro("sleep", &[]),
    ro("expr", &[]),
    ro("tsort", &[]),
    ro("pr", &[]),
];

const fn ro(name: &'static str, forbidden: &'static [&'static str]) -> ReadOnly {
    ReadOnly { name, forbidden }
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

/// The paths a command reads or writes, when the CLI checks them
/// (`command_paths`), `$HOME` read as the home (observed: `cd $HOME`
/// asks like `cd ~`).
pub fn path_args(words: &[String]) -> Option<Vec<String>> {
    let mut paths = super::command_paths::of(words)?;
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
    // The exit status the CLI tracks in a quoted text is a value it does
    // not know: only a rule runs the command (observed: `echo "exit=$?"`).
    if text.contains("$?") {
        return ReadOnlyAnswer::No;
    }
    match expansion(text) {
        Expansion::Glob => {
            // Any arguments at all, for the commands of the list (observed:
            // `lsof -?` asks, `cat *.txt` runs).
            if GLOB_OK.contains(&name) {
                return ReadOnlyAnswer::Yes {
                    paths: path_args(words).unwrap_or_default(),
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

/// Commands the CLI counts as reading the files they name (its table of
/// path commands: a Read allow rule lets them reach a folder outside the
/// working directories).
pub fn reads_files(name: &str) -> bool {
    matches!(
        name,
        "cd" | "ls"
            | "find"
            | "cat"
            | "head"
            | "tail"
            | "sort"
            | "uniq"
            | "wc"
            | "cut"
            | "paste"
            | "column"
            | "tr"
            | "file"
            | "stat"
            | "diff"
            | "awk"
            | "gawk"
            | "mawk"
            | "nawk"
            | "strings"
            | "hexdump"
            | "od"
            | "base64"
            | "nl"
            | "tac"
            | "man"
            | "rev"
            | "fold"
            | "expand"
            | "unexpand"
            | "fmt"
            | "comm"
            | "cmp"
            | "pr"
            | "numfmt"
            | "tsort"
            | "grep"
            | "egrep"
            | "fgrep"
            | "rg"
            | "git"
            | "jq"
            | "sha256sum"
            | "sha1sum"
            | "md5sum"
    )
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
                paths: path_args(words).unwrap_or_default(),
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
        _ if super::read_only::spec_of(words).is_some() => {
            if super::read_only::allowlisted(words) != Some(true) {
                return ReadOnlyAnswer::No;
            }
            ReadOnlyAnswer::Yes {
                paths: path_args(words).unwrap_or_default(),
            }
        }
        name => match RO.iter().find(|r| r.name == name) {
            Some(r) if !has_flag(r.forbidden) => ReadOnlyAnswer::Yes {
                paths: path_args(words).unwrap_or_default(),
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
        assert!(parse("echo \"$(whoami)\"").unchecked.is_some());
        assert_eq!(parse("echo \"x $(whoami)\"").commands.len(), 2);
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
        assert!(parse("cat <<EOF\nx\nEOF").unchecked.is_some());
        let quoted = parse("cat <<'EOF' | grep x\n$(rm -rf /)\nEOF\necho done");
        assert!(quoted.unchecked.is_none(), "{quoted:?}");
        assert_eq!(quoted.commands.len(), 3);
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
        assert_eq!(p("head -n 5 a.txt"), ["5", "a.txt"]);
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
