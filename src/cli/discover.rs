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
            }),
            Err(e) => errors.push(format!("{}: {e}", p.display())),
        }
    }
    (found, errors)
}

/// Every recognised file below `root`, at any depth (an explicit stack:
/// no recursion to overflow, and symlinks are never followed, so no loops).
fn walk(root: &Path, out: &mut Vec<Found>, errors: &mut Vec<String>) {
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) => {
                errors.push(format!("{}: {e}", dir.display()));
                continue;
            }
        };
        scan(entries, &mut stack, out);
    }
}

fn scan(entries: std::fs::ReadDir, stack: &mut Vec<PathBuf>, out: &mut Vec<Found>) {
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
            continue;
        }
        if let Some(kind) = kind_of(&path) {
            out.push(Found {
                path,
                kind: Some(kind),
            });
        }
    }
}

/// What a file is: by its location, else by a `$schema` near its start.
fn kind_of(path: &Path) -> Option<DocumentKind> {
    let p = path.to_string_lossy();
    if let Some(k) = crate::formats::detect(&p, "") {
        return Some(k);
    }
    if !(p.ends_with(".json") || p.ends_with(".jsonc")) {
        return None;
    }
    crate::formats::detect(&p, &head(path)?)
}

/// A cheap look at the start of the file (regular files only).
fn head(path: &Path) -> Option<String> {
    let buf = crate::fsio::read_head(path, 4096).ok()?;
    Some(String::from_utf8_lossy(&buf).into_owned())
}
