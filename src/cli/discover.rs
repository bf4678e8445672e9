//! Which files `check` reads: explicit files as given; below a directory, the
//! files some format recognises (by location, or JSON files whose `$schema`
//! names the runtime).

use crate::formats::DocumentKind;
use std::path::{Path, PathBuf};

/// Directories never descended into.
const SKIP_DIRS: &[&str] = &["node_modules", ".git", "target", ".hg", ".svn"];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub path: PathBuf,
    /// The format and role, when recognised.
    pub kind: Option<DocumentKind>,
    /// How the path is shown, when not as it is (a home file as `~/…`).
    pub shown: Option<String>,
}

/// Expands the command-line paths into files, sorted and de-duplicated
/// within each directory. Errors name the path that could not be read.
pub fn discover(paths: &[PathBuf]) -> (Vec<Found>, Vec<String>) {
    let mut found = Vec::new();
    let mut errors = Vec::new();
    for p in paths {
        match std::fs::metadata(p) {
            Ok(m) if m.is_dir() => {
                let mut here = Vec::new();
                walk(p, &mut here, &mut errors);
                here.sort_by(|a: &Found, b| a.path.cmp(&b.path));
                found.extend(here);
            }
            Ok(_) => found.push(Found {
                kind: kind_of(p),
                path: p.clone(),
                shown: None,
            }),
            Err(e) => errors.push(format!("{}: {e}", p.display())),
        }
    }
    (found, errors)
}

/// Every recognised file below `root`, at any depth (an explicit stack:
/// no recursion to overflow, and symlinks are never followed, so no loops).
/// The root's subfolders are walked on every core (an organisation's
/// checkout holds a thousand projects), in the order one thread takes
/// them, so files and notices come out as from one walk.
fn walk(root: &Path, out: &mut Vec<Found>, errors: &mut Vec<String>) {
    let Some(entries) = entries(root, errors) else {
        return;
    };
    let mut subdirs = Vec::new();
    scan(entries, &mut subdirs, out, errors);
    // One thread pops the last folder pushed first.
    subdirs.reverse();
    let lookups = crate::fsio::Lookups::current();
    let parts = crate::core::parallel::map_ordered_on(
        &subdirs,
        crate::core::parallel::cores(),
        PARALLEL_FROM,
        1,
        |run| {
            let _remembered = lookups.as_ref().map(|l| l.enter());
            run.iter()
                .map(|dir| {
                    let (mut found, mut errs) = (Vec::new(), Vec::new());
                    walk_below(dir.clone(), &mut found, &mut errs);
                    (found, errs)
                })
                .collect()
        },
    );
    for (found, errs) in parts {
        out.extend(found);
        for e in errs {
            if !errors.contains(&e) {
                errors.push(e);
            }
        }
    }
}

/// Below this many subfolders of the root, one thread walks them.
const PARALLEL_FROM: usize = 16;

/// `walk` on the calling thread.
fn walk_below(dir: PathBuf, out: &mut Vec<Found>, errors: &mut Vec<String>) {
    let mut stack = vec![dir];
    while let Some(dir) = stack.pop() {
        if let Some(entries) = entries(&dir, errors) {
            scan(entries, &mut stack, out, errors);
        }
    }
}

/// The entries of `dir`; an error names it.
fn entries(dir: &Path, errors: &mut Vec<String>) -> Option<std::fs::ReadDir> {
    std::fs::read_dir(dir)
        .map_err(|e| errors.push(format!("{}: {e}", dir.display())))
        .ok()
}

fn scan(
    entries: std::fs::ReadDir,
    stack: &mut Vec<PathBuf>,
    out: &mut Vec<Found>,
    errors: &mut Vec<String>,
) {
    for entry in entries.flatten() {
        let path = entry.path();
        // Never follow symlinks while scanning: no loops, no escaping the tree.
        let Ok(ft) = entry.file_type() else { continue };
        let name = entry.file_name().to_string_lossy().into_owned();
        if ft.is_dir() {
            if !SKIP_DIRS.contains(&name.as_str()) {
                stack.push(path);
            }
            continue;
        }
        if !ft.is_file() {
            // A FIFO, a device or a dangling link where an agent's config
            // would be: said, never read.
            if let Some(what) = crate::fsio::not_a_file(&path)
                && claims_by_place(&path)
            {
                let notice = not_read(&path.display().to_string(), what);
                if !errors.contains(&notice) {
                    errors.push(notice);
                }
            }
            continue;
        }
        if let Some(kind) = claim(&path) {
            out.push(Found {
                path,
                kind,
                shown: None,
            });
        }
    }
}

/// What a file is: by its location, else by a `$schema` near its start.
/// `Some(None)`: several formats claim the location, and the content
/// decides when the file is read.
fn claim(path: &Path) -> Option<Option<DocumentKind>> {
    // By the absolute path: `.opencode/agent/x.md` named from the project.
    let abs = crate::fsio::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let p = abs.to_string_lossy();
    let mut kinds = crate::formats::claims(&p, "");
    if kinds.is_empty() && (p.ends_with(".json") || p.ends_with(".jsonc")) {
        kinds = crate::formats::claims(&p, &head(path)?);
    }
    match kinds.as_slice() {
        [] => None,
        [one] => Some(Some(*one)),
        _ => Some(None),
    }
}

/// Does a format claim this path by its place alone?
fn claims_by_place(path: &Path) -> bool {
    let abs = crate::fsio::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    !crate::formats::claims(&abs.to_string_lossy(), "").is_empty()
}

/// The notice for a config place holding something that is no file.
fn not_read(shown: &str, what: &str) -> String {
    format!("{shown}: {what}, not a regular file: not read")
}

/// Notices for the places the formats name one by one (`~/.claude/
/// settings.json`, not globs) that hold a FIFO, a device or a dangling
/// link: the runtime would not read a config there either.
fn special_places(looked_in: &[(String, Vec<String>)], home: &str, errors: &mut Vec<String>) {
    for (_, places) in looked_in {
        for place in places {
            for token in place.split(", ") {
                let t = token.trim();
                if t.contains(['{', '*', ' ', '[', ':']) {
                    continue;
                }
                let path = match t.strip_prefix("~/") {
                    Some(rest) => Path::new(home).join(rest),
                    None if t.starts_with('/') => PathBuf::from(t),
                    None => continue,
                };
                if let Some(what) = crate::fsio::not_a_file(&path) {
                    let notice = not_read(t, what);
                    if !errors.contains(&notice) {
                        errors.push(notice);
                    }
                }
            }
        }
    }
}

fn kind_of(path: &Path) -> Option<DocumentKind> {
    claim(path).flatten()
}

/// A cheap look at the start of the file (regular files only).
fn head(path: &Path) -> Option<String> {
    let buf = crate::fsio::read_head(path, 4096).ok()?;
    Some(String::from_utf8_lossy(&buf).into_owned())
}

/// What a session started in a directory reads, for `check` with no path.
pub struct Session {
    /// The project: the git root above the directory, else the directory.
    pub root: PathBuf,
    /// Every format's files a session there reads (project, user, managed,
    /// agent files), then the other recognised files below the project.
    pub files: Vec<Found>,
    pub errors: Vec<String>,
    /// Where each format looks (its name, the places).
    pub looked_in: Vec<(String, Vec<String>)>,
}

/// The files a session started in `cwd` reads, of every format, and the
/// recognised files below its project (found from a subdirectory too:
/// the project is the nearest folder above holding `.git`).
pub fn session(cwd: &Path, options: &crate::analysis::AnalysisOptions) -> Session {
    let cwd = crate::fsio::absolute(cwd).unwrap_or_else(|_| cwd.to_path_buf());
    let root = crate::fsio::git_root(&cwd).unwrap_or(&cwd).to_path_buf();
    let mut files: Vec<Found> = Vec::new();
    let mut looked_in = Vec::new();
    let mut seen = rustc_hash::FxHashSet::default();
    let mut starts = vec![cwd.clone()];
    if root != cwd {
        starts.push(root.clone());
    }
    for start in &starts {
        let ctx = crate::workspace::resolve(options, Some(start), None, &Default::default(), None);
        for f in crate::formats::all() {
            let found = f.session_files(&ctx);
            if start == &cwd {
                looked_in.push((f.display_name().to_string(), found.looked_in.clone()));
            }
            for sf in found.present {
                let key = crate::fsio::real_path(&sf.path).unwrap_or_else(|| sf.path.clone());
                if seen.insert(key) {
                    files.push(Found {
                        shown: Some(shown(&sf.path, &cwd, &options.home)),
                        path: sf.path,
                        kind: Some(DocumentKind {
                            format: *f,
                            role: sf.role,
                        }),
                    });
                }
            }
        }
    }
    let mut errors = Vec::new();
    special_places(&looked_in, &options.home, &mut errors);
    let mut below = Vec::new();
    walk(&root, &mut below, &mut errors);
    below.sort_by(|a, b| a.path.cmp(&b.path));
    for mut f in below {
        let key = crate::fsio::real_path(&f.path).unwrap_or_else(|| f.path.clone());
        if seen.insert(key) {
            f.shown = Some(shown(&f.path, &cwd, &options.home));
            files.push(f);
        }
    }
    Session {
        root,
        files,
        errors,
        looked_in,
    }
}

/// A path for people: relative to `cwd` when below it, `~/…` in the home.
pub fn shown(path: &Path, cwd: &Path, home: &str) -> String {
    if let Ok(rest) = path.strip_prefix(cwd) {
        return rest.display().to_string();
    }
    // A file of the project above a subdirectory: `../.claude/settings.json`.
    for (ups, dir) in cwd.ancestors().enumerate().skip(1).take(4) {
        if crate::fsio::exists(&dir.join(".git"))
            && let Ok(rest) = path.strip_prefix(dir)
        {
            return format!("{}{}", "../".repeat(ups), rest.display());
        }
    }
    crate::contract::tilde(path, Path::new(home))
}
