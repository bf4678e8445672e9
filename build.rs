//! Embeds the diagnostic pages (`docs/lints/<format>/<CODE>.md`) into the
//! binary, so `permission-lsp rule CODE` prints them wherever it is
//! installed.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/lints");
    println!("cargo:rerun-if-changed=docs/lints");
    let mut pages: Vec<(String, String, String)> = Vec::new();
    if let Ok(dirs) = std::fs::read_dir(&root) {
        for dir in dirs.flatten() {
            let Ok(ft) = dir.file_type() else { continue };
            if !ft.is_dir() {
                continue;
            }
            let format = dir.file_name().to_string_lossy().into_owned();
            println!("cargo:rerun-if-changed=docs/lints/{format}");
            let Ok(files) = std::fs::read_dir(dir.path()) else {
                continue;
            };
            for f in files.flatten() {
                let name = f.file_name().to_string_lossy().into_owned();
                if let Some(code) = name.strip_suffix(".md") {
                    pages.push((
                        format.clone(),
                        code.to_string(),
                        format!("/docs/lints/{format}/{name}"),
                    ));
                }
            }
        }
    }
    pages.sort();
    let mut out = String::from(
        "/// Every diagnostic page: (format folder, code, Markdown text).\npub static PAGES: &[(&str, &str, &str)] = &[\n",
    );
    // Paths from the manifest's folder as the crate is compiled, not as the
    // build script ran: a build output reused for a checkout elsewhere (one
    // CARGO_TARGET_DIR for several) still reads its own pages.
    for (format, code, path) in &pages {
        let _ = writeln!(
            out,
            "    ({format:?}, {code:?}, include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), {path:?}))),"
        );
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("lint_pages.rs");
    std::fs::write(dest, out).expect("write lint_pages.rs");
}
