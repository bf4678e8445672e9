//! Which files `check` reads: explicit files as given; below a directory, the
//! files some format recognises (by location, or JSON files whose `$schema`
//! names the runtime).

use crate::formats::DocumentKind;
use std::path::{Path, PathBuf};

/// Directories never descended into.
const SKIP_DIRS: &[&str] = &["node_modules", ".git", "target", ".hg", ".svn"];
/// Files larger than this are not considered when scanning directories.
const MAX_SCAN_BYTES: u64 = 64 * 1024 * 1024;

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
                walk(p, &mut here, &mut errors, 0);
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

fn walk(dir: &Path, out: &mut Vec<Found>, errors: &mut Vec<String>, depth: usize) {
    if depth > 32 {
        return;
    }
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            errors.push(format!("{}: {e}", dir.display()));
            return;
        }
    };
    for entry in entries.flatten() {
        let path = entry.path();
        // Never follow symlinks while scanning: no loops, no escaping the tree.
        let Ok(ft) = entry.file_type() else { continue };
        let name = entry.file_name().to_string_lossy().into_owned();
        if ft.is_dir() {
            if !SKIP_DIRS.contains(&name.as_str()) {
                walk(&path, out, errors, depth + 1);
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

/// A cheap look at the start of the file.
fn head(path: &Path) -> Option<String> {
    use std::io::Read;
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_SCAN_BYTES {
        return None;
    }
    let mut buf = vec![0u8; 4096];
    let mut f = std::fs::File::open(path).ok()?;
    let n = f.read(&mut buf).ok()?;
    Some(String::from_utf8_lossy(&buf[..n]).into_owned())
}
