//! POSIX path arithmetic exactly as Node's `path.posix` does it, and the
//! runtime's path values (spec §4.5): absolute, cwd-relative, literal and
//! canonical aliases.

use std::path::Path;

/// `path.posix.normalize`.
pub fn normalize(path: &str) -> String {
    if path.is_empty() {
        return ".".into();
    }
    let absolute = path.starts_with('/');
    let trailing = path.ends_with('/');
    let mut out = normalize_segments(path, !absolute);
    if out.is_empty() {
        if absolute {
            return "/".into();
        }
        return if trailing { "./".into() } else { ".".into() };
    }
    if trailing {
        out.push('/');
    }
    if absolute { format!("/{out}") } else { out }
}

/// Node's `normalizeString`: resolves `.` and `..`, collapses `//`.
fn normalize_segments(path: &str, allow_above_root: bool) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|p| *p != "..") {
                    parts.pop();
                } else if allow_above_root {
                    parts.push("..");
                }
            }
            s => parts.push(s),
        }
    }
    parts.join("/")
}

/// `path.posix.join(a, b)`.
pub fn join(a: &str, b: &str) -> String {
    let joined = match (a.is_empty(), b.is_empty()) {
        (true, true) => return ".".into(),
        (true, false) => b.to_string(),
        (false, true) => a.to_string(),
        (false, false) => format!("{a}/{b}"),
    };
    normalize(&joined)
}

/// `path.posix.resolve(base, p)` for an absolute `base`.
pub fn resolve(base: &str, p: &str) -> String {
    let joined = if p.starts_with('/') {
        p.to_string()
    } else if p.is_empty() {
        base.to_string()
    } else {
        format!("{base}/{p}")
    };
    let r = normalize_segments(&joined, false);
    format!("/{r}")
}

pub fn is_absolute(p: &str) -> bool {
    p.starts_with('/')
}

/// `path.posix.relative(from, to)` for absolute paths.
pub fn relative(from: &str, to: &str) -> String {
    let from = resolve("/", from);
    let to = resolve("/", to);
    if from == to {
        return String::new();
    }
    let f: Vec<&str> = from.split('/').filter(|s| !s.is_empty()).collect();
    let t: Vec<&str> = to.split('/').filter(|s| !s.is_empty()).collect();
    let common = f.iter().zip(&t).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<&str> = vec![".."; f.len() - common];
    parts.extend(&t[common..]);
    parts.join("/")
}

/// The runtime's `isWithin(path, dir)`: equal, or below.
pub fn is_within(path: &str, dir: &str) -> bool {
    if path.is_empty() || dir.is_empty() {
        return false;
    }
    if path == dir {
        return true;
    }
    let rel = relative(dir, path);
    !rel.is_empty() && rel != ".." && !rel.starts_with("../") && !is_absolute(&rel)
}

/// `expandHomePath`: `~`/`$HOME` alone, or a `~/`, `~\`, `$HOME/`, `$HOME\` prefix.
pub fn expand_home(pattern: &str, home: &str) -> String {
    if pattern == "~" || pattern == "$HOME" {
        return home.to_string();
    }
    for prefix in ["~/", "~\\", "$HOME/", "$HOME\\"] {
        if let Some(rest) = pattern.strip_prefix(prefix) {
            return join(home, rest);
        }
    }
    pattern.to_string()
}

/// Why a path has no real path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FsError {
    /// `ENOENT` or `ENOTDIR`: the runtime tries a shorter prefix.
    Missing,
    /// Anything else (a symlink loop, no permission): the runtime gives up.
    Other,
}

/// What the file system says about a path (injectable for tests and for
/// simulating another machine).
pub trait FsView: Send + Sync {
    /// The real path of an existing path.
    fn realpath(&self, path: &str) -> Result<String, FsError>;
}

/// The machine's file system.
#[derive(Debug, Default, Clone, Copy)]
pub struct RealFs;

impl FsView for RealFs {
    fn realpath(&self, path: &str) -> Result<String, FsError> {
        match std::fs::canonicalize(Path::new(path)) {
            Ok(p) => Ok(p.to_string_lossy().into_owned()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound || e.raw_os_error() == Some(20) => {
                Err(FsError::Missing)
            }
            Err(_) => Err(FsError::Other),
        }
    }
}

/// A file system where nothing but `/` exists: canonical paths equal lexical ones.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoFs;

impl FsView for NoFs {
    fn realpath(&self, path: &str) -> Result<String, FsError> {
        if path == "/" {
            Ok("/".into())
        } else {
            Err(FsError::Missing)
        }
    }
}

/// `canonicalizePath`: the real path of the longest existing prefix, with the
/// rest appended. Existence is monotonic (a path's parents exist when it
/// does), so the prefix is found walking down from the root: as many
/// `realpath` calls as there are existing components, not as there are
/// components.
pub fn canonicalize(absolute: &str, fs: &dyn FsView) -> String {
    if absolute.is_empty() {
        return String::new();
    }
    let parts: Vec<&str> = absolute.split('/').filter(|s| !s.is_empty()).collect();
    let prefix = |i: usize| format!("/{}", parts[..i].join("/"));
    let mut real = match fs.realpath("/") {
        Ok(r) => r,
        Err(_) => return absolute.to_string(),
    };
    let mut existing = 0;
    for i in 1..=parts.len() {
        match fs.realpath(&prefix(i)) {
            Ok(r) => {
                real = r;
                existing = i;
            }
            Err(FsError::Missing) => break,
            // Every longer prefix fails the same way: the runtime keeps the path.
            Err(FsError::Other) => return absolute.to_string(),
        }
    }
    let tail = &parts[existing..];
    if tail.is_empty() {
        real
    } else {
        join(&real, &tail.join("/"))
    }
}

/// Where the runtime's path checks happen: session cwd, home, file system.
pub struct PathContext<'a> {
    pub cwd: String,
    pub home: String,
    pub fs: &'a dyn FsView,
    /// The canonical cwd, computed on first use.
    pub canonical_cwd: std::cell::OnceCell<String>,
}

impl<'a> PathContext<'a> {
    pub fn new(cwd: &str, home: &str, fs: &'a dyn FsView) -> PathContext<'a> {
        PathContext {
            cwd: cwd.to_string(),
            home: home.to_string(),
            fs,
            canonical_cwd: std::cell::OnceCell::new(),
        }
    }
}

/// One path as the runtime matches it (`AccessPath`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AccessPath {
    /// Absolute, lexically normalised (`value()`).
    pub lexical: String,
    /// Aliases matched by rules: absolute, cwd-relative, literal.
    pub aliases: Vec<String>,
    /// Symlinks resolved (`boundaryValue()`); empty for literal-only paths.
    pub canonical: String,
}

impl AccessPath {
    /// Every value a rule is matched against, deduplicated, in order.
    pub fn match_values(&self) -> Vec<String> {
        let mut out = Vec::with_capacity(self.aliases.len() + 1);
        for v in self.aliases.iter().chain(std::iter::once(&self.canonical)) {
            if !v.is_empty() && !out.contains(v) {
                out.push(v.clone());
            }
        }
        if self.canonical.is_empty() {
            out.retain(|v| self.aliases.contains(v));
        }
        out
    }

    /// The canonical form when it differs from the lexical one.
    pub fn resolved_alias(&self) -> Option<&str> {
        (!self.canonical.is_empty() && self.canonical != self.lexical)
            .then_some(self.canonical.as_str())
    }

    pub fn literal(literal: &str) -> AccessPath {
        if literal.is_empty() {
            return AccessPath::default();
        }
        AccessPath {
            lexical: literal.to_string(),
            aliases: vec![literal.to_string()],
            canonical: String::new(),
        }
    }
}

/// `normalizePathPolicyLiteral`: trim, one leading and one trailing quote
/// off, a leading `@` off, home expanded.
pub fn policy_literal(path: &str, home: &str) -> String {
    let t = js_trim(path);
    let t = t.strip_prefix(['\'', '"']).unwrap_or(t);
    let t = t.strip_suffix(['\'', '"']).unwrap_or(t);
    if t.is_empty() {
        return String::new();
    }
    let t = t.strip_prefix('@').unwrap_or(t);
    expand_home(t, home)
}

pub use crate::syntax::frontmatter::js_trim;

impl PathContext<'_> {
    /// `normalizePathForComparison(path, base)`.
    pub fn comparable(&self, path: &str, base: &str) -> String {
        let lit = policy_literal(path, &self.home);
        if lit.is_empty() {
            String::new()
        } else {
            resolve(base, &lit)
        }
    }

    pub fn canonical(&self, path: &str, base: &str) -> String {
        let lexical = self.comparable(path, base);
        if lexical.is_empty() {
            return lexical;
        }
        canonicalize(&lexical, self.fs)
    }

    /// `AccessPath.forPath` with an optional resolve base (default: cwd).
    pub fn for_path(&self, path: &str, resolve_base: Option<&str>) -> AccessPath {
        let base = resolve_base.unwrap_or(&self.cwd);
        let lexical = self.comparable(path, base);
        let literal = policy_literal(path, &self.home);
        let mut aliases = Vec::new();
        if !literal.is_empty() {
            if literal == "*" {
                aliases.push("*".to_string());
            } else {
                if !lexical.is_empty() {
                    aliases.push(lexical.clone());
                    let cwd = self.comparable(&self.cwd, &self.cwd);
                    if !cwd.is_empty() && (lexical == cwd || is_within(&lexical, &cwd)) {
                        let rel = relative(&cwd, &lexical);
                        if !rel.is_empty() {
                            aliases.push(rel);
                        }
                    }
                }
                aliases.push(literal);
                dedup(&mut aliases);
            }
        }
        let canonical = if lexical.is_empty() {
            String::new()
        } else {
            canonicalize(&lexical, self.fs)
        };
        AccessPath {
            lexical,
            aliases,
            canonical,
        }
    }

    /// `getPathPolicyValues` without a canonical alias; without a cwd only
    /// the literal.
    pub fn policy_values(path: &str, cwd: Option<&str>, home: &str) -> Vec<String> {
        match cwd {
            Some(cwd) => {
                PathContext::new(cwd, home, &NoFs)
                    .for_path(path, None)
                    .aliases
            }
            None => {
                let lit = policy_literal(path, home);
                if lit.is_empty() {
                    Vec::new()
                } else {
                    vec![lit]
                }
            }
        }
    }

    pub fn canonical_cwd(&self) -> &str {
        self.canonical_cwd
            .get_or_init(|| self.canonical(&self.cwd, &self.cwd))
    }

    /// Outside the session cwd (canonical forms; `/dev/null` & co never are).
    pub fn is_boundary_outside(&self, canonical: &str) -> bool {
        let cwd = self.canonical_cwd();
        if cwd.is_empty() || canonical.is_empty() {
            return false;
        }
        if matches!(
            canonical,
            "/dev/null" | "/dev/stdin" | "/dev/stdout" | "/dev/stderr"
        ) {
            return false;
        }
        !is_within(canonical, cwd)
    }

    pub fn is_outside(&self, path: &str) -> bool {
        self.is_boundary_outside(&self.canonical(path, &self.cwd))
    }
}

fn dedup(v: &mut Vec<String>) {
    let mut seen: Vec<String> = Vec::with_capacity(v.len());
    v.retain(|x| {
        if seen.contains(x) {
            false
        } else {
            seen.push(x.clone());
            true
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_path_semantics() {
        assert_eq!(normalize("/a//b/../c/./"), "/a/c/");
        assert_eq!(normalize("a/../.."), "..");
        assert_eq!(normalize(""), ".");
        assert_eq!(join("/home/u", "a/"), "/home/u/a/");
        assert_eq!(join("/home/u", ""), "/home/u");
        assert_eq!(join("/home/u", "../*"), "/home/*");
        assert_eq!(resolve("/w/p", "src/../x"), "/w/p/x");
        assert_eq!(resolve("/w/p", "/etc//passwd/"), "/etc/passwd");
        assert_eq!(relative("/w/p", "/w/p/src/a"), "src/a");
        assert_eq!(relative("/w/p", "/w/q"), "../q");
        assert!(is_within("/w/p/a", "/w/p"));
        assert!(!is_within("/w/pq", "/w/p"));
        assert_eq!(expand_home("~/x/../y", "/home/u"), "/home/u/y");
        assert_eq!(expand_home("$HOME", "/home/u"), "/home/u");
        assert_eq!(expand_home("~user/x", "/home/u"), "~user/x");
    }

    #[test]
    fn access_path_aliases() {
        let ctx = PathContext::new("/workspace/project", "/home/u", &NoFs);
        let p = ctx.for_path("src/App.jsx", None);
        assert_eq!(
            p.match_values(),
            ["/workspace/project/src/App.jsx", "src/App.jsx"]
        );
        let p = ctx.for_path("'@~/.ssh/config'", None);
        assert_eq!(p.match_values(), ["/home/u/.ssh/config"]);
        assert!(ctx.is_outside("/etc/passwd"));
        assert!(!ctx.is_outside("/dev/null"));
        assert!(!ctx.is_outside("./a"));
    }
}
