//! Whether a rule matches a call, as Qwen Code's `matchesRule` decides:
//! commands (word prefix without `*`, ` *` also the bare command), paths
//! (picomatch globs over anchored paths), domains (subdomains included),
//! MCP names.

use super::super::model::{EDIT_TOOLS, Kind, READ_TOOLS, Rule};
use super::shell;
use std::path::{Component, Path, PathBuf};

/// What a call (or a shell command's file or network access) offers the
/// rules.
#[derive(Debug, Clone, Default)]
pub struct Ctx<'a> {
    pub tool: &'a str,
    pub command: Option<&'a str>,
    pub file: Option<&'a str>,
    pub domain: Option<&'a str>,
    pub specifier: Option<&'a str>,
    pub params: Option<&'a serde_json::Value>,
}

/// The folders paths are anchored to.
#[derive(Debug, Clone)]
pub struct Anchors {
    pub root: PathBuf,
    pub cwd: PathBuf,
    pub home: PathBuf,
}

/// Does the rule's tool cover the call's tool (`Read` covers the read
/// tools, `Edit` the edit tools, `Bash` the monitor)?
/// Whether a rule naming `rule_tool` can match a call of `tool`
/// (canonical): an MCP rule or call by `mcp_matches`, else `tool_covers`.
pub fn tool_gate(rule_tool: &str, tool: &str) -> bool {
    if rule_tool.starts_with("mcp__") || tool.starts_with("mcp__") {
        mcp_matches(rule_tool, tool)
    } else {
        tool_covers(rule_tool, tool)
    }
}

pub fn tool_covers(rule_tool: &str, tool: &str) -> bool {
    rule_tool == tool
        || (rule_tool == "read_file" && READ_TOOLS.contains(&tool))
        || (rule_tool == "edit" && EDIT_TOOLS.contains(&tool))
        || (rule_tool == "run_shell_command" && tool == "monitor")
}

thread_local! {
    /// Compiled patterns, by source (bounded: cleared when full).
    static REGEXES: std::cell::RefCell<std::collections::HashMap<String, Option<regex::Regex>>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
    /// Real paths of the current decision (the file system may change
    /// between decisions: cleared by `forget_paths`).
    static REAL: std::cell::RefCell<std::collections::HashMap<PathBuf, Option<PathBuf>>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

fn cached_regex(key: String, make: impl FnOnce() -> Option<regex::Regex>) -> Option<regex::Regex> {
    if let Some(r) = REGEXES.with(|m| m.borrow().get(&key).cloned()) {
        return r;
    }
    let r = make();
    REGEXES.with(|m| {
        let mut m = m.borrow_mut();
        if m.len() > 8192 {
            m.clear();
        }
        m.insert(key, r.clone());
    });
    r
}

/// Starts a decision: real paths are looked up again.
pub fn forget_paths() {
    REAL.with(|m| m.borrow_mut().clear());
}

/// How many re-read commands are remembered: a decision matches rules
/// against the whole command, its parts and its wrapped script in turn.
const REMEMBERED: usize = 8;

thread_local! {
    /// The last commands re-read and their readings, newest last.
    static LAST: std::cell::RefCell<Vec<(String, String)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// `matchesCommandPattern`.
pub fn command_matches(pattern: &str, command: &str) -> bool {
    with_normalized(command, |n| command_matches_normalized(pattern, n))
}

/// `f` of the command as the CLI re-reads it before matching
/// (`shell-quote`), remembered for the next rules asking about it.
pub fn with_normalized<R>(command: &str, f: impl FnOnce(&str) -> R) -> R {
    LAST.with(|l| {
        let mut l = l.borrow_mut();
        let at = match l.iter().rposition(|(c, _)| c == command) {
            Some(i) => i,
            None => {
                if l.len() == REMEMBERED {
                    l.remove(0);
                }
                l.push((command.to_string(), shell::normalized_for_match(command)));
                l.len() - 1
            }
        };
        f(&l[at].1)
    })
}

/// `matchesCommandPattern` on a command already re-read by `shell-quote`.
pub fn command_matches_normalized(pattern: &str, cmd: &str) -> bool {
    if pattern == "*" {
        return true;
    }
    if !pattern.contains('*') {
        return cmd == pattern
            || (cmd.len() > pattern.len()
                && cmd.starts_with(pattern)
                && cmd.as_bytes()[pattern.len()] == b' ');
    }
    wildcard_matches(pattern, cmd)
}

/// The commands (as re-read for matching) a command pattern matches, as a
/// pattern of the shared algebra: literal text, `*` any text, ` *`
/// nothing or a blank and any text (each such choice one alternative),
/// no `*` the command or it, a blank and anything. `None` past 6 ` *`
/// (64 alternatives).
pub fn algebra(pattern: &str) -> Option<crate::core::pattern_algebra::Pattern> {
    use crate::core::pattern_algebra::Pattern;
    if !pattern.contains('*') {
        return Some(Pattern::union(&[
            Pattern::from_parts(&[pattern]),
            Pattern::from_parts(&[&format!("{pattern} "), ""]),
        ]));
    }
    // Each alternative as its parts (text between the stars).
    let mut alts: Vec<Vec<String>> = vec![vec![String::new()]];
    for piece in pieces(pattern) {
        match piece {
            Piece::Lit(l) => {
                for a in &mut alts {
                    a.last_mut().expect("never empty").push_str(l);
                }
            }
            Piece::Any => {
                for a in &mut alts {
                    a.push(String::new());
                }
            }
            Piece::BlankAny => {
                if alts.len() >= 64 {
                    return None;
                }
                let mut with = alts.clone();
                for a in &mut with {
                    a.last_mut().expect("never empty").push(' ');
                    a.push(String::new());
                }
                alts.extend(with);
            }
        }
    }
    let pats: Vec<Pattern> = alts
        .iter()
        .map(|a| Pattern::from_parts(&a.iter().map(String::as_str).collect::<Vec<_>>()))
        .collect();
    Some(Pattern::union(&pats))
}

/// A piece of a command pattern, as the CLI's regex reads it.
#[derive(Debug, PartialEq)]
enum Piece<'a> {
    Lit(&'a str),
    /// `*`: any text (`.*`, newlines too).
    Any,
    /// ` *`: nothing, or a blank and any text (`( .*)?`).
    BlankAny,
}

/// The pattern's pieces: the CLI escapes the text between stars and turns
/// each `*` into `.*`, or, after a blank, the blank and the star into
/// `( .*)?`, anchored at both ends.
fn pieces(p: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < p.len() {
        let Some(star) = p[pos..].find('*').map(|s| s + pos) else {
            out.push(Piece::Lit(&p[pos..]));
            break;
        };
        let lit = &p[pos..star];
        if star > 0 && p.as_bytes()[star - 1] == b' ' {
            out.push(Piece::Lit(&lit[..lit.len() - 1]));
            out.push(Piece::BlankAny);
        } else {
            out.push(Piece::Lit(lit));
            out.push(Piece::Any);
        }
        pos = star + 1;
    }
    out
}

/// The pattern's regex run over `cmd` without building it: the set of
/// positions each piece can reach, piece after piece (time: pieces ×
/// length). Regexes compiled per pattern cost more than the whole check
/// of a large file and their cache thrashed.
fn wildcard_matches(pattern: &str, cmd: &str) -> bool {
    // The common shapes, one star at the end: `X *` (X, or X, a blank and
    // anything) and `X*` (anything starting with X).
    if let Some(body) = pattern.strip_suffix('*')
        && !body.contains('*')
    {
        return match body.strip_suffix(' ') {
            Some(x) => {
                cmd.starts_with(x) && (cmd.len() == x.len() || cmd.as_bytes()[x.len()] == b' ')
            }
            None => cmd.starts_with(body),
        };
    }
    let text = cmd.as_bytes();
    let n = text.len();
    let mut reach = vec![false; n + 1];
    reach[0] = true;
    for piece in pieces(pattern) {
        let mut next = vec![false; n + 1];
        match piece {
            Piece::Lit("") => next = reach,
            Piece::Lit(l) => {
                for p in 0..=n {
                    if reach[p] && text[p..].starts_with(l.as_bytes()) {
                        next[p + l.len()] = true;
                    }
                }
            }
            Piece::Any => {
                if let Some(first) = reach.iter().position(|&r| r) {
                    next[first..].fill(true);
                }
            }
            Piece::BlankAny => {
                // Nothing, or a blank then anything.
                next.clone_from(&reach);
                if let Some(first) = (0..n).find(|&p| reach[p] && text[p] == b' ') {
                    next[first + 1..].fill(true);
                }
            }
        }
        reach = next;
        if !reach.iter().any(|&r| r) {
            return false;
        }
    }
    reach[n]
}

/// `path.join` of node (normalizing `.` and `..`).
pub fn join(base: &Path, rest: &str) -> String {
    let mut parts: Vec<String> = Vec::new();
    let whole = format!("{}/{}", base.display(), rest);
    let absolute = whole.starts_with('/');
    for seg in whole.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|p| p != "..") {
                    parts.pop();
                } else if !absolute {
                    parts.push("..".into());
                }
            }
            s => parts.push(s.to_string()),
        }
    }
    let mut out = parts.join("/");
    if absolute {
        out.insert(0, '/');
    }
    if rest.ends_with('/') && !out.ends_with('/') {
        out.push('/');
    }
    if out.is_empty() { ".".into() } else { out }
}

/// `resolvePathPattern`: `//x` absolute, `~/x` home, `/x` the project
/// root, anything else the cwd.
pub fn resolve_pattern(spec: &str, a: &Anchors) -> String {
    if let Some(r) = spec.strip_prefix("//") {
        return format!("/{r}");
    }
    if let Some(r) = spec.strip_prefix("~/") {
        return join(&a.home, r);
    }
    if let Some(r) = spec.strip_prefix('/') {
        return join(&a.root, r);
    }
    if let Some(r) = spec.strip_prefix("./") {
        return join(&a.cwd, r);
    }
    join(&a.cwd, spec)
}

/// A picomatch glob (`dot: true`) as a regex: `**` any segments, `*` and
/// `?` within one, `[…]` classes, `{a,b}` alternatives.
pub fn glob_regex(glob: &str) -> Option<regex::Regex> {
    let c: Vec<char> = glob.chars().collect();
    let mut re = String::from("(?s)^");
    let mut i = 0;
    let mut braces = 0usize;
    while i < c.len() {
        let ch = c[i];
        match ch {
            '*' if c.get(i + 1) == Some(&'*') => {
                let at_start = i == 0 || c[i - 1] == '/';
                let mut j = i;
                while c.get(j) == Some(&'*') {
                    j += 1;
                }
                let at_end = j == c.len() || c[j] == '/';
                if at_start && at_end {
                    if j < c.len() {
                        // `**/`: any number of whole segments.
                        re.push_str("(?:[^/]*(?:/[^/]*)*/)?");
                        j += 1;
                    } else if i > 0 {
                        // `x/**`: x itself or anything below.
                        if re.ends_with('/') {
                            re.pop();
                            re.push_str("(?:/.*)?");
                        } else {
                            re.push_str(".*");
                        }
                    } else {
                        re.push_str(".*");
                    }
                } else {
                    re.push_str("[^/]*");
                }
                i = j;
                continue;
            }
            '*' => re.push_str("[^/]*"),
            '?' => re.push_str("[^/]"),
            '[' => {
                let end = (i + 1..c.len()).find(|&k| c[k] == ']' && k > i + 1);
                match end {
                    Some(e) => {
                        let mut body: String = c[i + 1..e].iter().collect();
                        if body.starts_with('!') {
                            body.replace_range(0..1, "^");
                        }
                        re.push('[');
                        re.push_str(&body.replace('\\', "\\\\").replace('[', "\\["));
                        re.push(']');
                        i = e + 1;
                        continue;
                    }
                    None => re.push_str("\\["),
                }
            }
            '{' => {
                braces += 1;
                re.push_str("(?:");
            }
            ',' if braces > 0 => re.push('|'),
            '}' if braces > 0 => {
                braces -= 1;
                re.push(')');
            }
            '\\' if i + 1 < c.len() => {
                re.push_str(&regex::escape(&c[i + 1].to_string()));
                i += 2;
                continue;
            }
            _ => re.push_str(&regex::escape(&ch.to_string())),
        }
        i += 1;
    }
    if braces > 0 {
        return None;
    }
    re.push('$');
    regex::Regex::new(&re).ok()
}

fn neutral(s: &str) -> String {
    s.replace(['\r', '\n', '\u{2028}', '\u{2029}'], "")
}

/// The real path of `p`, or of its nearest existing parent with the
/// missing part appended.
fn canonical_nearest(p: &Path) -> Option<PathBuf> {
    if let Some(r) = REAL.with(|m| m.borrow().get(p).cloned()) {
        return r;
    }
    let r = canonical_nearest_uncached(p);
    REAL.with(|m| {
        let mut m = m.borrow_mut();
        if m.len() > 4096 {
            m.clear();
        }
        m.insert(p.to_path_buf(), r.clone());
    });
    r
}

fn canonical_nearest_uncached(p: &Path) -> Option<PathBuf> {
    let mut cur = p.to_path_buf();
    let mut missing: Vec<std::ffi::OsString> = Vec::new();
    for _ in 0..256 {
        if let Ok(r) = std::fs::canonicalize(&cur) {
            let mut out = r;
            for m in missing.iter().rev() {
                out.push(m);
            }
            return Some(out);
        }
        let name = cur.file_name()?.to_os_string();
        missing.push(name);
        if !cur.pop() {
            return None;
        }
    }
    None
}

fn lexical_abs(file: &str, cwd: &Path) -> PathBuf {
    let p = Path::new(file);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        cwd.join(p)
    }
}

/// `matchesPathPattern`; `canonical` adds the real paths of the pattern's
/// base and of the file (deny and ask rules).
pub fn path_matches(spec: &str, file: &str, a: &Anchors, canonical: bool) -> bool {
    let pattern = resolve_pattern(spec, a);
    let mut patterns = vec![pattern.clone()];
    let mut files = vec![file.replace('\\', "/")];
    if canonical {
        let base_end = pattern
            .find(['*', '?', '[', '{'])
            .map(|i| pattern[..i].rfind('/').unwrap_or(0))
            .unwrap_or(pattern.len());
        let base = &pattern[..base_end];
        if !base.is_empty()
            && let Some(real) = canonical_nearest(Path::new(base))
        {
            patterns.push(format!("{}{}", real.display(), &pattern[base_end..]));
        }
        let abs = lexical_abs(file, &a.cwd);
        if let Some(real) = canonical_nearest(&abs) {
            files.push(real.display().to_string());
        }
    }
    let res: Vec<regex::Regex> = patterns
        .iter()
        .filter_map(|p| {
            let g = neutral(p);
            cached_regex(format!("g{g}"), || glob_regex(&g))
        })
        .collect();
    files
        .iter()
        .any(|f| res.iter().any(|r| r.is_match(&neutral(f))))
}

/// `matchesDomainPattern`: the domain or any subdomain.
pub fn domain_matches(spec: &str, domain: &str) -> bool {
    let p = spec
        .strip_prefix("domain:")
        .unwrap_or(spec)
        .trim()
        .to_lowercase();
    let d = domain.to_lowercase();
    if p.is_empty() || d.is_empty() {
        return false;
    }
    d == p || d.ends_with(&format!(".{p}"))
}

fn sanitize(n: &str) -> String {
    n.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `matchesMcpPattern`.
pub fn mcp_matches(pattern: &str, tool: &str) -> bool {
    if pattern == tool {
        return true;
    }
    if let Some(prefix) = pattern.strip_suffix('*') {
        return sanitize(tool).starts_with(&sanitize(prefix));
    }
    let pp: Vec<&str> = pattern.split("__").collect();
    let tp: Vec<&str> = tool.split("__").collect();
    pp.len() == 2 && tp.len() >= 3 && pp[0] == tp[0] && sanitize(pp[1]) == sanitize(tp[1])
}

fn param_value_matches(pattern: &str, value: &str) -> bool {
    let p = pattern.to_lowercase();
    let v = value.to_lowercase();
    if p == "*" {
        return true;
    }
    if !p.contains('*') {
        return v == p;
    }
    let segs: Vec<&str> = p.split('*').collect();
    let mut pos = 0;
    if !segs[0].is_empty() {
        if !v.starts_with(segs[0]) {
            return false;
        }
        pos = segs[0].len();
    }
    for s in &segs[1..segs.len() - 1] {
        if s.is_empty() {
            continue;
        }
        match v[pos..].find(s) {
            Some(i) => pos += i + s.len(),
            None => return false,
        }
    }
    let last = segs[segs.len() - 1];
    last.is_empty() || (v.len() - pos >= last.len() && v.ends_with(last))
}

fn params_match(rule: &Rule, params: Option<&serde_json::Value>) -> bool {
    let Some(obj) = params.and_then(|p| p.as_object()) else {
        return false;
    };
    rule.params.iter().all(|(k, pat)| match obj.get(k) {
        Some(serde_json::Value::String(s)) => param_value_matches(pat, s),
        Some(serde_json::Value::Number(n)) => param_value_matches(pat, &n.to_string()),
        _ => false,
    })
}

/// `matchesRule`.
pub fn matches(rule: &Rule, ctx: &Ctx<'_>, a: &Anchors, canonical: bool) -> bool {
    if rule.invalid {
        return false;
    }
    let tool = super::super::model::canonical(ctx.tool);
    if !tool_gate(&rule.tool, tool) {
        return false;
    }
    if rule.tool.starts_with("mcp__") || tool.starts_with("mcp__") {
        if !mcp_matches(&rule.tool, tool) || rule.specifier.is_some() {
            return false;
        }
        return rule.params.is_empty() || params_match(rule, ctx.params);
    }
    if !tool_covers(&rule.tool, tool) {
        return false;
    }
    if rule.specifier.is_none() && rule.params.is_empty() {
        return true;
    }
    if let Some(spec) = &rule.specifier {
        let kind = rule.kind.unwrap_or(Kind::Literal);
        let ok = match kind {
            Kind::Command => match ctx.command {
                Some(c) => command_matches(spec, c),
                None => return false,
            },
            Kind::Path => match ctx.file {
                Some(f) => path_matches(spec, f, a, canonical),
                None => return false,
            },
            Kind::Domain => match ctx.domain {
                Some(d) => domain_matches(spec, d),
                None => return false,
            },
            Kind::Literal => ctx.command.or(ctx.specifier) == Some(spec.as_str()),
        };
        if !ok {
            return false;
        }
    }
    rule.params.is_empty() || params_match(rule, ctx.params)
}

/// Is `p` inside `dir` (lexically)?
pub fn within(p: &Path, dir: &Path) -> bool {
    let norm = |x: &Path| -> PathBuf {
        let mut out = PathBuf::new();
        for c in x.components() {
            match c {
                Component::ParentDir => {
                    out.pop();
                }
                Component::CurDir => {}
                c => out.push(c),
            }
        }
        out
    };
    norm(p).starts_with(norm(dir))
}

#[cfg(test)]
mod tests {

    /// The algebra's reading of a command pattern matches exactly the
    /// commands the CLI's does.
    #[test]
    fn the_algebra_reads_command_patterns_as_the_cli() {
        let patterns = [
            "git",
            "git push",
            "git *",
            "git * --force",
            "*",
            "* x",
            "x*",
            "a * b * c",
            "g?t",
            "npm run test *",
            "rm -rf *",
            "*test",
            "a*b",
            " *",
            "git  *",
        ];
        let commands = [
            "",
            "git",
            "git push",
            "git push x",
            "gitx",
            "git  push",
            "x",
            "a b c",
            "a x b y c",
            "abc",
            "a b  c",
            "g?t",
            "git",
            "npm run test",
            "npm run tests",
            "npm run test -w",
            "rm -rf",
            "rm -rf /",
            "mytest",
            "test",
            "ab",
            "a x",
            " x",
            "git ",
        ];
        for p in patterns {
            let a = algebra(p).expect("few ` *`");
            for c in commands {
                assert_eq!(
                    a.is_match(c),
                    command_matches_normalized(p, c),
                    "pattern {p:?} command {c:?}"
                );
            }
        }
    }

    use super::*;

    /// The regex the CLI builds from a command pattern (`matchesCommandPattern`).
    fn cli_regex(p: &str) -> regex::Regex {
        let mut re = String::from("(?s)^");
        let mut pos = 0;
        while pos < p.len() {
            let Some(star) = p[pos..].find('*').map(|s| s + pos) else {
                re.push_str(&regex::escape(&p[pos..]));
                break;
            };
            let lit = &p[pos..star];
            if star > 0 && p.as_bytes()[star - 1] == b' ' {
                re.push_str(&regex::escape(&lit[..lit.len() - 1]));
                re.push_str("( .*)?");
            } else {
                re.push_str(&regex::escape(lit));
                re.push_str(".*");
            }
            pos = star + 1;
        }
        re.push('$');
        regex::Regex::new(&re).unwrap()
    }

    #[test]
    fn wildcards_match_as_the_cli_regex() {
        // Every pattern and command over a small alphabet (blanks, stars,
        // a multi-byte character, a newline), against the regex itself.
        let alphabet = ["a", "b", " ", "*", "é", "\n"];
        let cmds = [
            "", "a", "ab", "a b", "a  b", " a", "b a", "a é b", "a\nb", "ab b", "a b a", "éa",
            "a *",
        ];
        let mut n = 0;
        let mut pats: Vec<String> = vec![String::new()];
        for _ in 0..4 {
            pats = pats
                .iter()
                .flat_map(|p| alphabet.iter().map(move |c| format!("{p}{c}")))
                .collect();
            for p in pats.iter().filter(|p| p.contains('*')) {
                let re = cli_regex(p);
                for c in cmds {
                    assert_eq!(wildcard_matches(p, c), re.is_match(c), "{p:?} {c:?}");
                    n += 1;
                }
            }
        }
        assert!(n > 10_000);
    }

    #[test]
    fn commands_match_as_qwen() {
        assert!(command_matches("npm test", "npm test --watch"));
        assert!(!command_matches("npm test", "npm tests"));
        assert!(command_matches("npm run *", "npm run"));
        assert!(!command_matches("npm run *", "npm runx"));
        assert!(command_matches("docker*", "docker-compose up"));
        assert!(command_matches("git push *", "FOO=1 git push"));
        assert!(command_matches("git push *", "git \"push\" origin"));
        assert!(!command_matches(
            "git commit -m \"wip\"",
            "git commit -m \"wip\""
        ));
    }

    #[test]
    fn globs_and_paths() {
        let a = Anchors {
            root: "/p".into(),
            cwd: "/p".into(),
            home: "/h".into(),
        };
        assert!(path_matches(".env", "/p/.env", &a, false));
        assert!(!path_matches(".env", "/p/sub/.env", &a, false));
        assert!(path_matches("**/.env", "/p/sub/.env", &a, false));
        assert!(path_matches("/etc/**", "/p/etc/x", &a, false));
        assert!(path_matches("//etc/**", "/etc/hostname", &a, false));
        assert!(path_matches("//etc/**", "/etc", &a, false));
        assert!(path_matches("~/secret.txt", "/h/secret.txt", &a, false));
        assert!(path_matches("src/**", "/p/src/a/b.ts", &a, false));
        assert!(domain_matches("domain:example.com", "docs.example.com"));
        assert!(!domain_matches("example.com", "notexample.com"));
        assert!(mcp_matches("mcp__srv", "mcp__srv__echo"));
        assert!(mcp_matches("mcp__srv__d*", "mcp__srv__danger"));
    }
}
