//! Qwen Code's judgement of `sed` and `awk` scripts (its
//! shell-safety-rules): read-only, write (`w`, `-i`, `print > "f"`) or
//! unknown.

use super::readonly::Safety::{self, ReadOnly, Unknown, Write};
use regex::Regex;
use std::sync::LazyLock;

static ADDRESS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*(?:(?:\d+|\$)(?:\s*,\s*(?:\d+|\$))?|/(?:\\[\s\S]|[^/\\])*/)?\s*").unwrap()
});
static COMPAT: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?:^|[^\\])[ewr]\s").unwrap());
static SAFE_FLAGS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^[0-9gIpM]*$").unwrap());
static SAFE_OPTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:-[nElrsuz]|--(?:quiet|silent|line-length(?:=.*)?))$").unwrap()
});
/// `print`/`printf` at the start of a statement (not `print(`), then
/// `AWK_WRITE_TAIL`: a static write `print … > "file"`.
static AWK_PRINT_HEAD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*(?:print|printf)\b").unwrap());
static AWK_WRITE_TAIL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"^(?:(?:"(?:\\[\s\S]|[^"\\])*")|[^">|])*>>?\s*"[^"]*"\s*$"#).unwrap()
});

fn awk_static_write(statement: &str) -> bool {
    let Some(m) = AWK_PRINT_HEAD.find(statement) else {
        return false;
    };
    let rest = &statement[m.end()..];
    !rest.trim_start().starts_with('(') && AWK_WRITE_TAIL.is_match(rest)
}
static AWK_UNKNOWN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?:system|close)\s*\(|getline\b").unwrap());
static AWK_PRINT: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b(?:print|printf)\b").unwrap());

const SAFE_COMMANDS: &str = "dDgGhHlnNpPqQxz=";
const VALUE_OPTIONS: &[&str] = &["-f", "--file", "-e", "--expression", "-l", "--line-length"];

fn address_len(s: &str) -> usize {
    ADDRESS.find(s).map(|m| m.end()).unwrap_or(0)
}

/// `scanDelimitedSection`: the index after the closing delimiter.
fn scan(script: &[char], start: usize, delim: char) -> Option<usize> {
    let mut escaped = false;
    for (i, &c) in script.iter().enumerate().skip(start) {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == delim {
            return Some(i + 1);
        }
    }
    None
}

fn single(script: &str) -> Safety {
    let compat = COMPAT.is_match(script);
    let off_b = address_len(script);
    if off_b == script.len() {
        return ReadOnly;
    }
    let c: Vec<char> = script.chars().collect();
    let off = script[..off_b].chars().count();
    let cmd = c[off];
    let after: String = c[off + 1..].iter().collect();
    if cmd == 'w' || cmd == 'W' {
        return if after.trim().is_empty() {
            Unknown
        } else {
            Write
        };
    }
    if "eErR".contains(cmd) {
        return Unknown;
    }
    if cmd == 's' {
        let Some(&d) = c.get(off + 1) else {
            return Unknown;
        };
        if d == '\\' || d.is_whitespace() {
            return Unknown;
        }
        let Some(r) = scan(&c, off + 2, d) else {
            return Unknown;
        };
        let Some(f) = scan(&c, r, d) else {
            return Unknown;
        };
        let flags: String = c[f..].iter().collect();
        let flags = flags.trim();
        if flags.contains([';', '\n', '{', '}']) {
            return Unknown;
        }
        if let Some(w) = flags.find('w') {
            return if flags[w + 1..].trim().is_empty() {
                Unknown
            } else {
                Write
            };
        }
        if flags.contains(['e', 'E', 'r', 'R', 'w', 'W']) || !SAFE_FLAGS.is_match(flags) {
            return Unknown;
        }
        return if compat { Unknown } else { ReadOnly };
    }
    if after.contains([';', '\n', '{', '}']) || !SAFE_COMMANDS.contains(cmd) {
        return Unknown;
    }
    if compat { Unknown } else { ReadOnly }
}

fn next_sep(c: &[char], start: usize) -> usize {
    (start..c.len())
        .find(|&i| c[i] == ';' || c[i] == '\n')
        .unwrap_or(c.len())
}

fn script_safety(script: &str) -> Safety {
    let c: Vec<char> = script.chars().collect();
    let mut result = ReadOnly;
    let mut start = 0;
    while start < c.len() {
        let rest: String = c[start..].iter().collect();
        let a = rest[..address_len(&rest)].chars().count();
        let off = start + a;
        if off == c.len() {
            return result;
        }
        let cmd = c[off];
        if cmd == 'w' || cmd == 'W' {
            return if single(&rest) == Write {
                Write
            } else {
                Unknown
            };
        }
        if "eErR".contains(cmd) {
            return Unknown;
        }
        if cmd != 's' && !SAFE_COMMANDS.contains(cmd) {
            return Unknown;
        }
        let sep = if cmd == 's' {
            let Some(&d) = c.get(off + 1) else {
                return Unknown;
            };
            if d == '\\' || d.is_whitespace() {
                return Unknown;
            }
            let Some(r) = scan(&c, off + 2, d) else {
                return Unknown;
            };
            let Some(f) = scan(&c, r, d) else {
                return Unknown;
            };
            next_sep(&c, f)
        } else {
            next_sep(&c, off + 1)
        };
        let part: String = c[start..sep].iter().collect();
        match single(&part) {
            Write => return Write,
            Unknown => result = Unknown,
            ReadOnly => {}
        }
        if sep == c.len() {
            return result;
        }
        start = sep + 1;
    }
    result
}

/// `classifySedCommandSafety`.
pub fn sed(args: &[String]) -> Safety {
    let term = args.iter().position(|a| a == "--").unwrap_or(args.len());
    let options = &args[..term];
    if options.iter().enumerate().any(|(i, a)| {
        let l = a.to_lowercase();
        (l == "--help" || l == "--version")
            && !(i > 0 && VALUE_OPTIONS.contains(&options[i - 1].as_str()))
    }) {
        return Unknown;
    }
    let in_place = Regex::new(r"^(?:-[nErsuz]*[iI]|--in-place(?:=|$))").unwrap();
    let inline_e = Regex::new(r"^-[nErsuz]*e.+").unwrap();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if a == "--" {
            break;
        }
        if VALUE_OPTIONS.contains(&a.as_str()) {
            i += 1;
        } else if inline_e.is_match(a) {
        } else if in_place.is_match(a) {
            return Write;
        }
        i += 1;
    }
    let mut scripts: Vec<String> = Vec::new();
    let mut used = std::collections::BTreeSet::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if a == "--" {
            if scripts.is_empty() {
                match args.get(i + 1) {
                    Some(s) if !s.starts_with('-') => {
                        scripts.push(s.clone());
                        used.insert(i + 1);
                    }
                    _ => return Unknown,
                }
            }
            break;
        }
        if a == "-l" || a == "--line-length" {
            i += 1;
            if args.get(i).is_none_or(|v| v.is_empty()) {
                return Unknown;
            }
        }
        if a == "-f" || a == "--file" || a.starts_with("-f") || a.starts_with("--file=") {
            return Unknown;
        }
        if a == "-e" || a == "--expression" {
            i += 1;
            match args.get(i) {
                Some(s) if !s.is_empty() && !s.starts_with('-') => {
                    scripts.push(s.clone());
                    used.insert(i);
                }
                _ => return Unknown,
            }
        } else if (a.starts_with("-e") && a.len() > 2) || a.starts_with("--expression=") {
            let s = a
                .strip_prefix("--expression=")
                .or_else(|| a.strip_prefix("-e"))
                .unwrap_or(a);
            if s.starts_with('-') {
                return Unknown;
            }
            scripts.push(s.to_string());
            used.insert(i);
        } else if (a.starts_with("--")
            && !(a == "--line-length" || a.starts_with("--line-length=")))
            || (a.starts_with('-') && !SAFE_OPTION.is_match(a))
        {
            return Unknown;
        } else if !a.starts_with('-') && scripts.is_empty() {
            scripts.push(a.clone());
            used.insert(i);
        }
        i += 1;
    }
    let mut result = ReadOnly;
    for s in &scripts {
        match script_safety(s) {
            Write => return Write,
            Unknown => result = Unknown,
            ReadOnly => {}
        }
    }
    let remaining: Vec<&str> = args
        .iter()
        .enumerate()
        .filter(|(i, _)| !used.contains(i))
        .map(|(_, a)| a.as_str())
        .collect();
    if COMPAT.is_match(&remaining.join(" ")) {
        Unknown
    } else {
        result
    }
}

fn awk_statements(script: &str) -> (Vec<String>, bool, bool) {
    let c: Vec<char> = script.chars().collect();
    let mut out = Vec::new();
    let (mut ambiguous, mut at) = (false, false);
    let mut start = 0;
    let (mut escaped, mut in_string, mut in_regex) = (false, false, false);
    let mut prev = '\0';
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        if escaped {
            escaped = false;
            i += 1;
            continue;
        }
        if (in_string || in_regex) && ch == '\\' {
            escaped = true;
            i += 1;
            continue;
        }
        if in_string {
            if ch == '"' {
                in_string = false;
            }
            i += 1;
            continue;
        }
        if in_regex {
            if ch == '/' {
                in_regex = false;
            }
            i += 1;
            continue;
        }
        if ch == '"' {
            in_string = true;
            i += 1;
            continue;
        }
        if ch == '/' && (prev == '\0' || "({[=,:;!~?&|".contains(prev)) {
            in_regex = true;
            i += 1;
            continue;
        }
        if ch == '/' {
            ambiguous = true;
        }
        if ch == '@' {
            at = true;
        }
        if ch == '#' {
            out.push(c[start..i].iter().collect());
            match (i + 1..c.len()).find(|&k| c[k] == '\n') {
                None => return (out, ambiguous, at),
                Some(nl) => {
                    start = nl + 1;
                    i = nl + 1;
                    prev = '\n';
                    continue;
                }
            }
        }
        if ";{}\n".contains(ch) {
            out.push(c[start..i].iter().collect());
            start = i + 1;
            prev = ch;
            i += 1;
            continue;
        }
        if !ch.is_whitespace() {
            prev = ch;
        }
        i += 1;
    }
    out.push(c[start.min(c.len())..].iter().collect());
    (out, ambiguous, at)
}

fn awk_script(script: &str) -> Safety {
    let (st, ambiguous, at) = awk_statements(script);
    if !ambiguous && st.iter().any(|s| awk_static_write(s)) {
        return Write;
    }
    if at || AWK_UNKNOWN.is_match(script) {
        return Unknown;
    }
    if AWK_PRINT.is_match(script) && script.contains(['>', '|']) {
        Unknown
    } else {
        ReadOnly
    }
}

/// `classifyAwkCommandSafety`.
pub fn awk(args: &[String]) -> Safety {
    let mut program = None;
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if a == "--" {
            program = Some(i + 1);
            break;
        }
        if a == "-F" || a == "-v" {
            i += 1;
            if args.get(i).is_none_or(|v| v.is_empty()) {
                return Unknown;
            }
            i += 1;
            continue;
        }
        if (a.starts_with("-F") || a.starts_with("-v")) && a.len() > 2 {
            i += 1;
            continue;
        }
        if a.starts_with('-') {
            return Unknown;
        }
        program = Some(i);
        break;
    }
    let Some(p) = program else {
        return ReadOnly;
    };
    let Some(prog) = args.get(p) else {
        return Unknown;
    };
    let r = awk_script(prog);
    if r != ReadOnly {
        return r;
    }
    if awk_script(&args.join(" ")) == ReadOnly {
        ReadOnly
    } else {
        Unknown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: &[&str]) -> Vec<String> {
        x.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn sed_and_awk() {
        assert_eq!(sed(&v(&["-n", "1p", "README.md"])), ReadOnly);
        assert_eq!(sed(&v(&["-i", "s/a/b/", "f"])), Write);
        assert_eq!(sed(&v(&["s/a/b/w out", "f"])), Write);
        assert_eq!(sed(&v(&["-f", "x.sed"])), Unknown);
        assert_eq!(awk(&v(&["{print $1}", "f"])), ReadOnly);
        assert_eq!(awk(&v(&["{print > \"o\"}"])), Write);
        assert_eq!(awk(&v(&["{system(\"x\")}"])), Unknown);
    }
}
