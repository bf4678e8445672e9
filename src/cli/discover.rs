//! Which files `check` reads: explicit files as given; below a directory, the
//! files the runtime reads (spec §1.1 locations) and JSON files whose
//! `$schema` names pi-permission-system.

use crate::model::pi::locations::{FileRole, role_of_path};
use std::path::{Path, PathBuf};

/// Directories never descended into.
const SKIP_DIRS: &[&str] = &["node_modules", ".git", "target", ".hg", ".svn"];
/// Files larger than this are not considered when scanning directories.
const MAX_SCAN_BYTES: u64 = 64 * 1024 * 1024;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub path: PathBuf,
    pub role: Option<FileRole>,
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
                role: role_of_path(&p.to_string_lossy()),
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
        let role = role_of_path(&path.to_string_lossy());
        if role.is_some() {
            out.push(Found { path, role });
            continue;
        }
        if (name.ends_with(".json") || name.ends_with(".jsonc")) && names_pi_schema(&path) {
            out.push(Found { path, role: None });
        }
    }
}

/// A cheap look at the start of the file for a pi-permission-system `$schema`.
fn names_pi_schema(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    if meta.len() > MAX_SCAN_BYTES {
        return false;
    }
    let Ok(bytes) = std::fs::read(path) else {
        return false;
    };
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]);
    head.contains("$schema") && head.contains("pi-permission-system")
}
