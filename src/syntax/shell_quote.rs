//! The npm package `shell-quote`'s `parse(s)` (no environment: every
//! variable reads as empty), which several runtimes run over a command
//! line before matching it: words with their quotes removed, control
//! operators, globs, and the comment that ends the line.

const CONTROLS: &[&str] = &[
    "||", "&&", ";;", "|&", "<(", "<<<", ">>", ">&", "<&", "&", ";", "(", ")", "|", "<", ">",
];
const META: &str = "|&;()<> \t";

/// `c` holds the ASCII text `op` at `i`.
pub fn ascii_at(c: &[char], i: usize, op: &str) -> bool {
    let op = op.as_bytes();
    c.get(i..i + op.len())
        .is_some_and(|w| w.iter().zip(op).all(|(&x, &y)| x == char::from(y)))
}

fn control_at(c: &[char], i: usize) -> Option<usize> {
    CONTROLS
        .iter()
        .find(|op| ascii_at(c, i, op))
        .map(|op| op.len())
}

fn is_bare(ch: char) -> bool {
    !ch.is_whitespace() && ch != '\'' && ch != '"' && !META.contains(ch)
}

/// One quoted run starting at `i` (`"…"` or `'…'`, the quote's escape
/// pairs kept): its end, or `None` when it does not close.
fn quoted_end(c: &[char], i: usize) -> Option<usize> {
    let q = c[i];
    let mut j = i + 1;
    while j < c.len() {
        if c[j] == q {
            return Some(j + 1);
        }
        if c[j] == '\\' && c.get(j + 1) == Some(&q) {
            j += 2;
        } else {
            j += 1;
        }
    }
    None
}

/// A token of `shell-quote`'s `parse` (no environment): words, operators,
/// globs (`glob`), and the comment that ends the line.
#[derive(Debug, Clone, PartialEq)]
pub enum Quoted {
    Word(String),
    Op(String),
    /// `{op: 'glob', pattern}`: a word with an unquoted `*` or `?`.
    Glob(String),
    Comment,
}

/// `shell-quote` throws on a bad substitution (`${}`, `${x` unclosed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BadSubstitution;

/// `shell-quote`'s `parse(s)`; `Err` where it throws.
pub fn shell_quote(s: &str) -> Result<Vec<Quoted>, BadSubstitution> {
    parse(s, false)
}

/// `parse(s, (key) => "$" + key)`: the same, each variable kept as
/// `$name`.
pub fn shell_quote_keeping_vars(s: &str) -> Result<Vec<Quoted>, BadSubstitution> {
    parse(s, true)
}

fn var_name(t: &[char], k: usize, end: usize) -> String {
    let inner: String = t[k + 1..=end].iter().collect();
    let inner = inner
        .strip_prefix('{')
        .and_then(|x| x.strip_suffix('}'))
        .map(str::to_string)
        .unwrap_or(inner);
    format!("${inner}")
}

fn parse(s: &str, keep_vars: bool) -> Result<Vec<Quoted>, BadSubstitution> {
    let c: Vec<char> = s.chars().collect();
    let mut chunks: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < c.len() {
        if let Some(n) = control_at(&c, i) {
            chunks.push((i, i + n));
            i += n;
            continue;
        }
        let start = i;
        let mut j = i;
        loop {
            if j < c.len()
                && c[j] == '\\'
                && c.get(j + 1)
                    .is_some_and(|&n| n == '\'' || n == '"' || META.contains(n))
            {
                j += 2;
            } else if j < c.len() && is_bare(c[j]) {
                j += 1;
            } else if j < c.len() && (c[j] == '"' || c[j] == '\'') {
                match quoted_end(&c, j) {
                    Some(e) => j = e,
                    None => break,
                }
            } else {
                break;
            }
        }
        if j > start {
            chunks.push((start, j));
            i = j;
        } else {
            i += 1;
        }
    }
    let mut out = Vec::new();
    for (a, b) in chunks {
        let t = &c[a..b];
        if control_at(t, 0) == Some(t.len()) {
            out.push(Quoted::Op(t.iter().collect()));
            continue;
        }
        let mut quote: Option<char> = None;
        let mut esc = false;
        let mut word = String::new();
        let mut glob = false;
        let mut k = 0;
        let mut ended = false;
        while k < t.len() {
            let ch = t[k];
            glob = glob || (quote.is_none() && (ch == '*' || ch == '?'));
            if esc {
                word.push(ch);
                esc = false;
            } else if let Some(q) = quote {
                if ch == q {
                    quote = None;
                } else if q == '\'' {
                    word.push(ch);
                } else if ch == '\\' {
                    k += 1;
                    match t.get(k) {
                        Some(&n) if n == '"' || n == '\\' || n == '$' => word.push(n),
                        Some(&n) => {
                            word.push('\\');
                            word.push(n);
                        }
                        None => word.push('\\'),
                    }
                } else if ch == '$' {
                    let (end, empty) = env_var(t, k)?;
                    if empty {
                        word.push('$');
                    } else if keep_vars {
                        word.push_str(&var_name(t, k, end));
                    }
                    k = end;
                } else {
                    word.push(ch);
                }
            } else if ch == '"' || ch == '\'' {
                quote = Some(ch);
            } else if control_at(&[ch], 0).is_some() {
                out.push(Quoted::Op(t.iter().collect()));
                ended = true;
                break;
            } else if ch == '#' {
                if !word.is_empty() {
                    out.push(Quoted::Word(word.clone()));
                }
                out.push(Quoted::Comment);
                return Ok(out);
            } else if ch == '\\' {
                esc = true;
            } else if ch == '$' {
                let (end, empty) = env_var(t, k)?;
                if empty {
                    word.push('$');
                } else if keep_vars {
                    word.push_str(&var_name(t, k, end));
                }
                k = end;
            } else {
                word.push(ch);
            }
            k += 1;
        }
        if ended {
            continue;
        }
        if glob {
            out.push(Quoted::Glob(word));
        } else {
            out.push(Quoted::Word(word));
        }
    }
    Ok(out)
}

/// Reads `$name`, `${name}` or `$?` at `k` (the `$`): the index of its
/// last character, and whether the name is empty (a lone `$`, kept).
/// Unset variables read as empty.
fn env_var(t: &[char], k: usize) -> Result<(usize, bool), BadSubstitution> {
    let i = k + 1;
    match t.get(i) {
        Some('{') => {
            if t.get(i + 1) == Some(&'}') {
                return Err(BadSubstitution);
            }
            let end = t[i + 1..]
                .iter()
                .position(|&x| x == '}')
                .ok_or(BadSubstitution)?;
            Ok((i + 1 + end, false))
        }
        Some(&ch) if "*@#?$!_-".contains(ch) => Ok((i, false)),
        Some(_) => {
            let n = t[i..]
                .iter()
                .position(|&x| !(x.is_ascii_alphanumeric() || x == '_'))
                .unwrap_or(t.len() - i);
            if n == 0 {
                Ok((k, true))
            } else {
                Ok((i + n - 1, false))
            }
        }
        None => Ok((k, true)),
    }
}
