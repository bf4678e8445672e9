//! Path rules (`Read(…)`, `Edit(…)`) as Claude Code 2.1.332 matches them:
//! gitignore patterns, anchored by their prefix (observed):
//!
//! - `//abs/path` — the file-system path `/abs/path`;
//! - `~/x` — under the home directory;
//! - `/x` — under the settings file's project root (not the file-system
//!   root);
//! - `./x`, `x` — relative to the working directory; a pattern with no `/`
//!   but a trailing one matches at any depth (`.env` and `./.env` both
//!   match `sub/.env`).

use std::path::{Component, Path, PathBuf};

/// A path pattern split into the directory it is relative to and the
/// gitignore pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathPattern {
    pub root: PathBuf,
    pub pattern: String,
}

/// Where a rule's path pattern is anchored.
pub fn anchor(content: &str, settings_root: &Path, cwd: &Path, home: &Path) -> PathPattern {
    // Runs of `/` after the anchor are one (the CLI collapses them).
    let collapsed;
    let content = if content.len() > 2 && content.is_char_boundary(2) && content[2..].contains("//")
    {
        let (head, tail) = content.split_at(2);
        let mut t = String::with_capacity(tail.len());
        for ch in tail.chars() {
            if !(ch == '/' && t.ends_with('/')) {
                t.push(ch);
            }
        }
        collapsed = format!("{head}{t}");
        collapsed.as_str()
    } else {
        content
    };
    if let Some(rest) = content.strip_prefix("//") {
        PathPattern {
            root: PathBuf::from("/"),
            pattern: format!("/{rest}"),
        }
    } else if let Some(rest) = content.strip_prefix("~/") {
        PathPattern {
            root: home.to_path_buf(),
            pattern: format!("/{rest}"),
        }
    } else if content.starts_with('/') {
        PathPattern {
            root: settings_root.to_path_buf(),
            pattern: content.to_string(),
        }
    } else {
        PathPattern {
            root: cwd.to_path_buf(),
            pattern: content.strip_prefix("./").unwrap_or(content).to_string(),
        }
    }
}

impl PathPattern {
    /// Does the pattern match the absolute, normalised `path`?
    pub fn matches(&self, path: &Path) -> bool {
        let Ok(rel) = path.strip_prefix(&self.root) else {
            return false;
        };
        let rel: Vec<&str> = rel
            .components()
            .filter_map(|c| match c {
                Component::Normal(s) => s.to_str(),
                _ => None,
            })
            .collect();
        if rel.is_empty() {
            return false;
        }
        // Without regard to case (observed on Linux: `Read(./.env)` denies
        // `.ENV`, `Edit(./Docs/**)` allows `docs/a.md`).
        let rel: Vec<String> = rel.iter().map(|s| s.to_lowercase()).collect();
        let rel: Vec<&str> = rel.iter().map(String::as_str).collect();
        gitignore_matches(&self.pattern.to_lowercase(), &rel)
    }
}

/// gitignore semantics: a pattern with a `/` before its end is anchored at
/// the root, one without matches at any depth; a match of a directory
/// matches everything inside it; `*` stays within a segment, `**` spans
/// segments.
pub fn gitignore_matches(pattern: &str, rel: &[&str]) -> bool {
    let pattern = pattern.strip_suffix('/').unwrap_or(pattern);
    if pattern.is_empty() {
        return false;
    }
    let anchored = pattern.trim_end_matches('/').contains('/');
    let pat = pattern.strip_prefix('/').unwrap_or(pattern);
    let segs: Vec<&str> = pat.split('/').collect();
    // Any prefix of the path (a directory, or the file itself) may match.
    if anchored {
        if prefix_matches(&segs, rel)[1..].iter().any(|m| *m) {
            return true;
        }
    } else if rel.iter().any(|s| glob_segment(segs[0], s)) {
        return true;
    }
    // `dir/**` also matches `dir` itself for a listing (observed: a deny of
    // `//etc/**` denies `ls /etc`).
    if let Some(base) = pat.strip_suffix("/**") {
        let base_segs: Vec<&str> = base.split('/').collect();
        if anchored && prefix_matches(&base_segs, rel)[rel.len()] {
            return true;
        }
    }
    false
}

/// Segment patterns against path segments, `**` spanning any number:
/// which prefixes `path[..j]` the whole pattern matches, computed over a
/// table of (pattern, path) positions, so no pattern costs more than their
/// product (a hostile `**/a/**/a/…` included).
fn prefix_matches(pat: &[&str], path: &[&str]) -> Vec<bool> {
    let n = path.len();
    let mut cur = vec![false; n + 1];
    cur[0] = true;
    for p in pat {
        let mut next = vec![false; n + 1];
        if *p == "**" {
            let mut any = false;
            for j in 0..=n {
                any |= cur[j];
                next[j] = any;
            }
        } else {
            for j in 0..n {
                next[j + 1] = cur[j] && glob_segment(p, path[j]);
            }
        }
        cur = next;
    }
    cur
}

/// Folders an edit may not reach without asking, at any depth (Claude Code
/// 2.1.332's list; compared case-insensitively).
const SENSITIVE_DIRS: &[&str] = &[
    ".git",
    ".vscode",
    ".idea",
    ".claude",
    ".husky",
    ".cargo",
    ".devcontainer",
    ".yarn",
    ".mvn",
];

/// File names an edit may not write without asking (the CLI's list: shell
/// start-up files, package managers' and tools' configurations, MCP and
/// git settings).
const SENSITIVE_FILES: &[&str] = &[
    ".gitconfig",
    ".gitmodules",
    ".bashrc",
    ".bash_profile",
    ".zshrc",
    ".zprofile",
    ".profile",
    ".zshenv",
    ".zlogin",
    ".zlogout",
    ".bash_login",
    ".bash_aliases",
    ".bash_logout",
    ".envrc",
    ".ripgreprc",
    ".mcp.json",
    ".claude.json",
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    ".pnp.cjs",
    ".pnp.loader.mjs",
    ".pnp.js",
    ".pnp.data.json",
    ".pnpmfile.cjs",
    "bunfig.toml",
    ".bunfig.toml",
    ".bazelrc",
    ".bazelversion",
    ".bazeliskrc",
    ".pre-commit-config.yaml",
    "lefthook.yml",
    ".lefthook.yml",
    "lefthook.yaml",
    ".lefthook.yaml",
    "gradle-wrapper.properties",
    "maven-wrapper.properties",
    ".devcontainer.json",
    "pyrightconfig.json",
];

/// A path segment as the CLI compares it: lower case, an NTFS stream
/// (`:…`) and trailing dots and blanks cut off.
fn comparable(seg: &str) -> String {
    let lower = seg.to_lowercase();
    let cut = lower.split(':').next().unwrap_or("");
    let trimmed = cut.trim_end_matches(['.', ' ']);
    if trimmed.is_empty() {
        lower
    } else {
        trimmed.to_string()
    }
}

/// Why an edit of `path` asks whatever allows it (Claude Code 2.1.332's
/// safety check, observed: `acceptEdits` and an `Edit` allow do not lift
/// it, bypass mode does), if it does: a folder of [`SENSITIVE_DIRS`] on
/// the way (a `.claude/worktrees/…` inside a working directory excepted,
/// unless another `.claude` follows), `.config/git`, a file name of
/// [`SENSITIVE_FILES`], or a path spelled in a way Windows reads
/// otherwise (`~1` short names, a segment ending in a dot or blank, a
/// `...` segment, a DOS device name).
pub fn sensitive_write(path: &Path, working_dirs: &[PathBuf]) -> Option<&'static str> {
    let text = path.to_string_lossy();
    let segs: Vec<&str> = text.split('/').collect();
    if text.contains("~")
        && text
            .as_bytes()
            .windows(2)
            .any(|w| w[0] == b'~' && w[1].is_ascii_digit())
    {
        return Some("suspicious Windows path pattern");
    }
    if segs
        .iter()
        .any(|s| !s.is_empty() && *s != "." && *s != ".." && s.ends_with(['.', ' ', '\t']))
    {
        return Some("suspicious Windows path pattern");
    }
    if segs
        .iter()
        .any(|s| s.len() >= 3 && s.bytes().all(|b| b == b'.'))
    {
        return Some("suspicious Windows path pattern");
    }
    if let Some(last) = segs.last()
        && let Some((_, ext)) = last.rsplit_once('.')
    {
        let ext = ext.to_ascii_uppercase();
        let device = matches!(ext.as_str(), "CON" | "PRN" | "AUX" | "NUL")
            || ((ext.starts_with("COM") || ext.starts_with("LPT"))
                && ext.len() == 4
                && matches!(ext.as_bytes()[3], b'1'..=b'9'));
        if device {
            return Some("suspicious Windows path pattern");
        }
    }
    let names: Vec<String> = segs.iter().map(|s| comparable(s)).collect();
    // How many leading segments a working directory covers (up to a
    // `.claude` in it that is not followed by `worktrees`).
    let mut inside = 0;
    for wd in working_dirs {
        let wsegs: Vec<String> = wd.to_string_lossy().split('/').map(comparable).collect();
        let mut n = wsegs.len();
        if n > 1 && wsegs[n - 1].is_empty() {
            n -= 1;
        }
        if names.len() >= n && names[..n] == wsegs[..n] {
            let mut k = n;
            for i in 0..n {
                if wsegs[i] == ".claude"
                    && wsegs.get(i + 1).map(String::as_str) != Some("worktrees")
                {
                    k = i;
                    break;
                }
            }
            inside = inside.max(k);
        }
    }
    let mut in_worktree = false;
    for (i, name) in names.iter().enumerate() {
        if !SENSITIVE_DIRS.contains(&name.as_str()) {
            continue;
        }
        if name == ".claude" {
            if in_worktree {
                return Some("sensitive file");
            }
            if names.get(i + 1).map(String::as_str) == Some("worktrees") {
                if i >= inside {
                    in_worktree = true;
                }
                continue;
            }
        }
        return Some("sensitive file");
    }
    if names.windows(2).any(|w| w[0] == ".config" && w[1] == "git") {
        return Some("sensitive file");
    }
    let last = names.last().map(String::as_str).unwrap_or("");
    if SENSITIVE_FILES.contains(&last) {
        return Some("sensitive file");
    }
    None
}

/// `*`, `?` and `[…]` within one segment.
pub fn glob_segment(pat: &str, s: &str) -> bool {
    let p: Vec<char> = pat.chars().collect();
    let t: Vec<char> = s.chars().collect();
    // Iterative wildcard matching with backtracking on the last `*`.
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() {
            match p[pi] {
                '*' => {
                    star = Some((pi, ti));
                    pi += 1;
                    continue;
                }
                '?' => {
                    pi += 1;
                    ti += 1;
                    continue;
                }
                '[' => {
                    if let Some((ok, next)) = class(&p, pi, t[ti])
                        && ok
                    {
                        pi = next;
                        ti += 1;
                        continue;
                    }
                }
                // gitignore: a backslash makes the next character literal
                // (`\U` is `U`, never a backslash).
                '\\' if pi + 1 < p.len() && p[pi + 1] == t[ti] => {
                    pi += 2;
                    ti += 1;
                    continue;
                }
                '\\' if pi + 1 < p.len() => {}
                c if c == t[ti] => {
                    pi += 1;
                    ti += 1;
                    continue;
                }
                _ => {}
            }
        }
        match star {
            Some((sp, st)) => {
                pi = sp + 1;
                ti = st + 1;
                star = Some((sp, st + 1));
            }
            None => return false,
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

/// A `[…]` class at `p[at]`: does it take `c`, and where it ends.
fn class(p: &[char], at: usize, c: char) -> Option<(bool, usize)> {
    let mut i = at + 1;
    let negate = matches!(p.get(i), Some('!') | Some('^'));
    if negate {
        i += 1;
    }
    let mut hit = false;
    let start = i;
    while i < p.len() && (p[i] != ']' || i == start) {
        if i + 2 < p.len() && p[i + 1] == '-' && p[i + 2] != ']' {
            hit |= p[i] <= c && c <= p[i + 2];
            i += 3;
        } else {
            hit |= p[i] == c;
            i += 1;
        }
    }
    if i >= p.len() {
        return None;
    }
    Some((hit != negate, i + 1))
}

/// `path` joined to `cwd` when relative, with `~/` expanded and `.` and
/// `..` resolved without touching the file system.
pub fn absolute(path: &str, cwd: &Path, home: &Path) -> PathBuf {
    let joined = if let Some(rest) = path.strip_prefix("~/") {
        home.join(rest)
    } else if path == "~" {
        home.to_path_buf()
    } else if path.starts_with('/') {
        PathBuf::from(path)
    } else {
        cwd.join(path)
    };
    normalise(&joined)
}

/// `.` and `..` resolved lexically.
pub fn normalise(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            c => out.push(c.as_os_str()),
        }
    }
    out
}

/// Is `path` inside one of `dirs`?
pub fn inside(path: &Path, dirs: &[PathBuf]) -> bool {
    dirs.iter().any(|d| path.starts_with(d))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(content: &str, path: &str) -> bool {
        anchor(
            content,
            Path::new("/p"),
            Path::new("/p"),
            Path::new("/home/u"),
        )
        .matches(Path::new(path))
    }

    #[test]
    fn anchors_as_observed() {
        assert!(m("./.env", "/p/.env"));
        assert!(m("./.env", "/p/sub/.env"));
        assert!(m(".env", "/p/sub/.env"));
        assert!(m("/docs/private.md", "/p/docs/private.md"));
        assert!(!m("/docs/private.md", "/p/sub/docs/private.md"));
        assert!(m("~/secret.txt", "/home/u/secret.txt"));
        assert!(m("//abs/path/k.pem", "/abs/path/k.pem"));
        assert!(m("**/*.pem", "/p/sub/x.pem"));
        assert!(m("src/**", "/p/src/x.ts"));
        assert!(m("//etc/**", "/etc"));
        assert!(m("src", "/p/src/a/b.ts"));
        assert!(!m("*.ts", "/q/a.ts"));
        assert!(!m("src/*.ts", "/p/src/a/b.ts"));
        assert!(m("a/**/b/**/c", "/p/a/x/b/y/z/c"));
        assert!(!m("a/**/b/**/c", "/p/a/x/c"));
    }

    #[test]
    fn hostile_patterns_stay_cheap() {
        let pat = "**/a/".repeat(200) + "b";
        let path = format!("/p/{}", "a/".repeat(2000));
        assert!(!m(&pat, &path));
    }

    #[test]
    fn globs() {
        assert!(glob_segment("*.pem", "k.pem"));
        assert!(glob_segment("a?c", "abc"));
        assert!(glob_segment("[ab]x", "bx"));
        assert!(!glob_segment("[!ab]x", "bx"));
        assert!(glob_segment("*", ""));
        assert!(!glob_segment("[", "["));
    }

    #[test]
    fn normalising() {
        assert_eq!(
            absolute("../x", Path::new("/p/q"), Path::new("/h")),
            PathBuf::from("/p/x")
        );
        assert_eq!(
            absolute("~/x", Path::new("/p"), Path::new("/h")),
            PathBuf::from("/h/x")
        );
    }
}
