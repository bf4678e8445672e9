//! Qwen Code's readings of a command line: the splitting into the parts
//! rules are matched against, the `shell-quote` re-tokenizing that drops
//! leading assignments, the word tokenizer of its shell-semantics module,
//! shell wrappers (`bash -c '…'`) and command substitution.

/// One part of a compound command and the operator after it.
#[derive(Debug, Clone, PartialEq)]
pub struct Segment {
    pub command: String,
    pub terminator: &'static str,
}

const OPERATORS: &[&str] = &["&&", "||", ";;", "|&", "|", ";", "&", "\n"];

fn is_sep(c: char) -> bool {
    c == ' ' || c == '\t' || c == '\n'
}

fn trim_seps(s: &[char]) -> String {
    let mut a = 0;
    let mut b = s.len();
    while a < b && is_sep(s[a]) {
        a += 1;
    }
    while b > a && is_sep(s[b - 1]) {
        b -= 1;
    }
    s[a..b].iter().collect()
}

fn backslashes_before(c: &[char], i: usize) -> usize {
    c[..i].iter().rev().take_while(|&&x| x == '\\').count()
}

/// `&` at `i` runs in the background (not `>&`, `&>`).
fn is_async(c: &[char], i: usize) -> bool {
    if c.get(i + 1) == Some(&'>') {
        return false;
    }
    for j in (0..i).rev() {
        if is_sep(c[j]) {
            continue;
        }
        if c[j] == '>' || c[j] == '<' {
            return backslashes_before(c, j) % 2 == 1;
        }
        return true;
    }
    true
}

fn cr_is_redirect_target(raw: &str) -> bool {
    // `(^|[ \t])(<<-?|1>>|1>|>>|>|2>>|2>|&>>|&>|<)\r$`
    let Some(body) = raw.strip_suffix('\r') else {
        return false;
    };
    for op in [
        "<<-", "<<", "1>>", "1>", ">>", ">", "2>>", "2>", "&>>", "&>", "<",
    ] {
        if let Some(before) = body.strip_suffix(op)
            && (before.is_empty() || before.ends_with(' ') || before.ends_with('\t'))
        {
            return true;
        }
    }
    false
}

/// Qwen's `splitCompoundCommandSegments`: quotes and `((…))` respected,
/// subshells and substitutions not.
pub fn segments(command: &str) -> Vec<Segment> {
    let c: Vec<char> = command.chars().collect();
    let mut out = Vec::new();
    let (mut single, mut double, mut escaped) = (false, false, false);
    let mut last = 0;
    let mut arith = 0usize;
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        if escaped {
            escaped = false;
            i += 1;
            continue;
        }
        if ch == '\\' {
            escaped = true;
            i += 1;
            continue;
        }
        if ch == '\'' && !double {
            single = !single;
            i += 1;
            continue;
        }
        if ch == '"' && !single {
            double = !double;
            i += 1;
            continue;
        }
        if single || double {
            i += 1;
            continue;
        }
        if ch == '(' && c.get(i + 1) == Some(&'(') {
            arith += 1;
            i += 2;
            continue;
        }
        if arith > 0 && ch == ')' && c.get(i + 1) == Some(&')') {
            arith -= 1;
            i += 2;
            continue;
        }
        let mut advanced = false;
        for op in OPERATORS {
            if !crate::syntax::shell_quote::ascii_at(&c, i, op) {
                continue;
            }
            if *op == "&" && (arith > 0 || !is_async(&c, i)) {
                continue;
            }
            let raw: String = c[last..i].iter().collect();
            let drop_cr = *op == "\n" && !cr_is_redirect_target(&raw);
            let raw = if drop_cr {
                raw.strip_suffix('\r').map(str::to_string).unwrap_or(raw)
            } else {
                raw
            };
            let rc: Vec<char> = raw.chars().collect();
            let seg = trim_seps(&rc);
            if !seg.is_empty() {
                out.push(Segment {
                    command: seg,
                    terminator: op,
                });
            }
            last = i + op.len();
            i = last;
            advanced = true;
            break;
        }
        if !advanced {
            i += 1;
        }
    }
    let tail = trim_seps(&c[last.min(c.len())..]);
    if !tail.is_empty() {
        out.push(Segment {
            command: tail,
            terminator: "",
        });
    }
    out
}

/// `splitCompoundCommand`: the parts, or the command itself.
pub fn split(command: &str) -> Vec<String> {
    let s: Vec<String> = segments(command).into_iter().map(|s| s.command).collect();
    if s.is_empty() {
        vec![command.to_string()]
    } else {
        s
    }
}

/// `splitCommandForRules` for the shell tool under bash: a line with a
/// word-start `#` comment (and no shell syntax before) stays whole.
pub fn split_for_rules(command: &str) -> Vec<String> {
    if command.contains('\n') || command.contains('\r') {
        return split(command);
    }
    let c: Vec<char> = command.chars().collect();
    let (mut single, mut double) = (false, false);
    for i in 0..c.len() {
        let ch = c[i];
        if ch == '\\' || ch == '$' || ch == '`' || ";&|(){}<>".contains(ch) {
            return split(command);
        }
        if ch == '\'' && !double {
            single = !single;
        } else if ch == '"' && !single {
            double = !double;
        } else if ch == '#'
            && !single
            && !double
            && i > 0
            && (c[i - 1] == ' ' || c[i - 1] == '\t')
            && !command.trim_start().starts_with('#')
        {
            return vec![command.to_string()];
        }
    }
    split(command)
}

// ---- shell-quote ----------------------------------------------------------

pub use crate::syntax::shell_quote::{BadSubstitution, Quoted, shell_quote};

fn is_assignment(t: &str) -> bool {
    let mut cs = t.chars();
    let Some(f) = cs.next() else { return false };
    if !(f.is_ascii_alphabetic() || f == '_') {
        return false;
    }
    for ch in cs {
        if ch == '=' {
            return true;
        }
        if !(ch.is_ascii_alphanumeric() || ch == '_') {
            return false;
        }
    }
    false
}

/// `stripLeadingVariableAssignments`: the command re-tokenized by
/// `shell-quote`, leading `NAME=value` words dropped, joined by spaces
/// (quotes gone, variables empty, globs `glob`, a comment dropped).
pub fn normalized_for_match(command: &str) -> String {
    let trimmed = super::super::model::js_trim(command);
    if trimmed.is_empty() {
        return String::new();
    }
    let Ok(tokens) = shell_quote(trimmed) else {
        return trimmed.to_string();
    };
    let words: Vec<String> = tokens
        .into_iter()
        .filter_map(|t| match t {
            Quoted::Word(w) | Quoted::Op(w) => Some(w),
            // Qwen reads a glob entry as its operator name.
            Quoted::Glob(_) => Some("glob".to_string()),
            Quoted::Comment => None,
        })
        .collect();
    let first = words.iter().take_while(|w| is_assignment(w)).count();
    words[first..].join(" ")
}

// ---- shell-semantics tokenizer --------------------------------------------

/// The word tokenizer of Qwen's shell-semantics module (quotes removed,
/// `{`/`}` words dropped, leading `(` and trailing `)`/`&` trimmed).
pub fn words(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let (mut single, mut double, mut escaped) = (false, false, false);
    let push = |out: &mut Vec<String>, t: &str| {
        if t == "{" || t == "}" {
            return;
        }
        let t = t.trim_start_matches('(');
        let t = t.trim_end_matches([')', '&']);
        if !t.is_empty() {
            out.push(t.to_string());
        }
    };
    for ch in command.chars() {
        if escaped {
            cur.push(ch);
            escaped = false;
            continue;
        }
        if ch == '\\' && !single {
            escaped = true;
            continue;
        }
        if ch == '\'' && !double {
            single = !single;
            continue;
        }
        if ch == '"' && !single {
            double = !double;
            continue;
        }
        if !single && !double && (ch == ' ' || ch == '\t') {
            if !cur.is_empty() {
                push(&mut out, &cur);
                cur.clear();
            }
            continue;
        }
        cur.push(ch);
    }
    if !cur.is_empty() {
        push(&mut out, &cur);
    }
    out
}

// ---- wrappers and substitution -------------------------------------------

/// `takeLeadingToken`: the first word (quotes, backticks and `$(…)`
/// kept whole) and the rest, or `None` when it does not close.
pub fn leading_token(input: &str) -> Option<(&str, &str)> {
    let t = input.trim_start();
    if t.is_empty() {
        return None;
    }
    let mut quote: Option<char> = None;
    let (mut escaped, mut backticks) = (false, false);
    let mut depth = 0usize;
    let mut chars = t.char_indices().peekable();
    let mut end = t.len();
    while let Some((i, ch)) = chars.next() {
        if quote == Some('\'') {
            if ch == '\'' {
                quote = None;
            }
            continue;
        }
        if quote == Some('"') || backticks {
            if escaped {
                escaped = false;
            } else if ch == '\\' {
                escaped = true;
            } else if quote == Some('"') && ch == '"' {
                quote = None;
            } else if backticks && quote.is_none() && ch == '`' {
                backticks = false;
            }
            continue;
        }
        if escaped {
            escaped = false;
            continue;
        }
        match ch {
            '\\' => escaped = true,
            '"' | '\'' => quote = Some(ch),
            '`' => backticks = true,
            '$' | '<' | '>' if chars.peek().map(|&(_, n)| n) == Some('(') => {
                depth += 1;
                chars.next();
            }
            ')' if depth > 0 => depth -= 1,
            _ if ch.is_whitespace() && depth == 0 => {
                end = i;
                break;
            }
            _ => {}
        }
    }
    if end == 0 || quote.is_some() || escaped || backticks || depth > 0 {
        return None;
    }
    Some(t.split_at(end))
}

fn strip_symmetric(s: &str) -> (&str, Option<char>) {
    let t = s.trim();
    if t.len() >= 2
        && ((t.starts_with('"') && t.ends_with('"')) || (t.starts_with('\'') && t.ends_with('\'')))
    {
        let q = t.chars().next();
        return (&t[1..t.len() - 1], q);
    }
    if t == "\"" || t == "'" {
        // One quote both starts and ends it.
        return ("", t.chars().next());
    }
    (t, None)
}

fn normalized_token(t: &str) -> String {
    strip_symmetric(t).0.replace('\\', "/").to_lowercase()
}

fn wrapper_base(t: &str) -> String {
    let n = normalized_token(t);
    match n.rfind('/') {
        Some(i) => n[i + 1..].to_string(),
        None => n,
    }
}

fn env_token(t: &str) -> bool {
    is_assignment(strip_symmetric(t).0)
}

const SHELLS: &[&str] = &["sh", "bash", "zsh", "cmd", "powershell", "pwsh"];

/// `base` is one of `names`, or one of them with `.exe`.
fn named(base: &str, names: &[&str]) -> bool {
    let b = base.strip_suffix(".exe").unwrap_or(base);
    names.contains(&b)
}

fn is_wrapper(t: &str) -> bool {
    named(&wrapper_base(t), SHELLS)
}

fn consumes_rest(w: &str) -> bool {
    named(&wrapper_base(w), &["cmd", "powershell", "pwsh"])
}

fn is_marker(w: &str, t: &str) -> bool {
    let b = wrapper_base(w);
    let n = normalized_token(t);
    if b == "cmd" || b == "cmd.exe" {
        return n == "/c";
    }
    if named(&b, &["powershell", "pwsh"]) {
        return n == "-command" || n == "-c";
    }
    n.len() >= 2
        && n.starts_with('-')
        && n[1..].chars().all(|x| x.is_ascii_alphabetic())
        && n[1..].contains('c')
}

fn trim_edges(command: &str) -> String {
    let t = command.trim_start_matches([' ', '\t', '\n']);
    let t = t.trim_end_matches([' ', '\t', '\n']);
    t.to_string()
}

/// `stripShellWrapper`: the script of `bash -c '…'` (after assignments and
/// flags), or the command itself.
pub fn strip_wrapper(command: &str) -> String {
    let trimmed = trim_edges(command);
    let mut rest = trimmed.as_str();
    while let Some((t, r)) = leading_token(rest) {
        if !env_token(t) {
            break;
        }
        rest = r;
    }
    let Some((w, r)) = leading_token(rest) else {
        return trimmed;
    };
    if !is_wrapper(w) {
        return trimmed;
    }
    rest = r;
    loop {
        let Some((t, r)) = leading_token(rest) else {
            return trimmed;
        };
        if is_marker(w, t) {
            let Some((cmd, _)) = leading_token(r) else {
                return trimmed;
            };
            let (inner, q) = strip_symmetric(cmd);
            if q.is_none() && consumes_rest(w) {
                let r = r.trim_start();
                return if r.is_empty() { trimmed } else { r.to_string() };
            }
            return if inner.is_empty() {
                trimmed
            } else {
                inner.to_string()
            };
        }
        let n = normalized_token(t);
        if !(n.starts_with('-') || n.starts_with('/') || n == "+o") {
            return trimmed;
        }
        rest = r;
        let inline = t.contains('=') || t.contains(':');
        if !inline
            && ["-o", "+o", "-executionpolicy", "-file", "-encodedcommand"].contains(&n.as_str())
        {
            match leading_token(rest) {
                Some((_, r)) => rest = r,
                None => return trimmed,
            }
        }
    }
}

/// Command substitution outside single quotes and comments: `$(`, a
/// backtick, `<(`, `>(`, or `${…@P}`.
pub fn has_substitution(command: &str) -> bool {
    let c: Vec<char> = command.chars().collect();
    let (mut single, mut double, mut escaped) = (false, false, false);
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        if escaped {
            escaped = false;
            i += 1;
            continue;
        }
        if single {
            if ch == '\'' {
                single = false;
            }
            i += 1;
            continue;
        }
        match ch {
            '\\' => escaped = true,
            '\'' if !double => single = true,
            '"' => double = !double,
            '#' if !double
                && (i == 0 || c[i - 1].is_whitespace() || ";&|()<>".contains(c[i - 1])) =>
            {
                while i < c.len() && c[i] != '\n' {
                    i += 1;
                }
                continue;
            }
            '`' => return true,
            '$' if c.get(i + 1) == Some(&'(') => return true,
            '<' | '>' if !double && c.get(i + 1) == Some(&'(') => return true,
            '$' if c.get(i + 1) == Some(&'{') => {
                let end = c[i..].iter().position(|&x| x == '}').map(|p| i + p);
                if let Some(e) = end {
                    let inner: String = c[i + 2..e].iter().collect();
                    if inner.contains("@P") {
                        return true;
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    false
}

/// Does the command have a here-document (whose body a reader must skip)?
pub fn has_heredoc(command: &str) -> bool {
    command.contains("<<")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_as_qwen_splits() {
        assert_eq!(split("cd sub && git push"), vec!["cd sub", "git push"]);
        assert_eq!(split("git push 2>&1"), vec!["git push 2>&1"]);
        assert_eq!(split("git push &"), vec!["git push"]);
        assert_eq!(split("echo $(a; b)"), vec!["echo $(a", "b)"]);
        assert_eq!(split("(( a & b ))"), vec!["(( a & b ))"]);
        assert_eq!(
            split_for_rules("git status # push"),
            vec!["git status # push"]
        );
    }

    #[test]
    fn shell_quote_reads_as_the_package() {
        assert_eq!(normalized_for_match("FOO=1 git push"), "git push");
        assert_eq!(
            normalized_for_match("git \"push\" origin"),
            "git push origin"
        );
        assert_eq!(normalized_for_match("\\git  push"), "git push");
        assert_eq!(normalized_for_match("ls *.js"), "ls glob");
        assert_eq!(normalized_for_match("echo $HOME x"), "echo  x");
        assert_eq!(normalized_for_match("a && b > c 2>&1"), "a && b > c 2 >& 1");
        assert_eq!(normalized_for_match("git status # push"), "git status");
        assert_eq!(normalized_for_match("echo a#b"), "echo a");
        assert_eq!(normalized_for_match("echo $((1+2))"), "echo $ ( ( 1+2 ) )");
        assert_eq!(normalized_for_match("echo ${}"), "echo ${}");
    }

    #[test]
    fn wrappers_and_substitutions() {
        assert_eq!(strip_wrapper("bash -c 'git push'"), "git push");
        assert_eq!(strip_wrapper("FOO=1 sh -lc \"ls\""), "ls");
        assert_eq!(strip_wrapper("env git push"), "env git push");
        assert!(has_substitution("echo $(whoami)"));
        assert!(has_substitution("echo `x`"));
        assert!(!has_substitution("echo '$(x)'"));
        assert!(!has_substitution("echo x # $(y)"));
    }
}
