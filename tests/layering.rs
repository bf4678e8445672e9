//! The layering of ARCHITECTURE.md, held by test: protocol types only in
//! `src/lsp`, terminal output only in `src/cli` (and `main.rs`), shared
//! code never imports a format, and the handlers reach formats only
//! through the registry.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Every source file below `src/<dir>` (or the file `src/<dir>.rs`), with
/// its text without comment lines.
fn sources(dir: &str) -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    let d = root.join(dir);
    if d.is_dir() {
        rust_files(&d, &mut files);
    } else {
        files.push(root.join(format!("{dir}.rs")));
    }
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let code: String = text
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .collect::<Vec<_>>()
                .join("\n");
            (p.display().to_string(), code)
        })
        .collect()
}

/// The format folders under `src/formats/` (a new format is found here,
/// not listed).
fn format_folders() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/formats");
    let mut out: Vec<String> = std::fs::read_dir(root)
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    out.sort();
    assert!(out.len() >= 3, "{out:?}");
    out
}

fn offenders(dirs: &[&str], needle: &str) -> Vec<String> {
    dirs.iter()
        .flat_map(|d| sources(d))
        .filter(|(_, code)| code.contains(needle))
        .map(|(p, _)| p)
        .collect()
}

#[test]
fn protocol_types_stay_in_lsp() {
    let all = [
        "text",
        "syntax",
        "core",
        "formats",
        "analysis",
        "ide",
        "workspace",
        "cli",
    ];
    for needle in ["tower_lsp_server", "ls_types"] {
        let bad = offenders(&all, needle);
        assert!(bad.is_empty(), "`{needle}` outside src/lsp: {bad:?}");
    }
}

#[test]
fn terminal_output_stays_in_cli() {
    let all = [
        "text",
        "syntax",
        "core",
        "formats",
        "analysis",
        "ide",
        "workspace",
        "lsp",
    ];
    for needle in [
        "println!",
        "eprintln!",
        "print!(",
        "eprint!(",
        "std::io::stderr",
    ] {
        let bad = offenders(&all, needle);
        assert!(bad.is_empty(), "`{needle}` outside src/cli: {bad:?}");
    }
    // Standard output carries the protocol in src/lsp (its transport), and
    // is nobody's business below.
    let below = [
        "text",
        "syntax",
        "core",
        "formats",
        "analysis",
        "ide",
        "workspace",
    ];
    let bad = offenders(&below, "std::io::stdout");
    assert!(
        bad.is_empty(),
        "stdout used below src/lsp and src/cli: {bad:?}"
    );
}

#[test]
fn shared_code_imports_no_format() {
    // The shared layers know no format at all.
    let bad = offenders(&["text", "syntax", "core"], "formats");
    assert!(bad.is_empty(), "shared code names the formats: {bad:?}");
    // The layers above reach formats only through the registry (the
    // `Format` trait), never a format's folder.
    for format in format_folders().iter().map(|f| format!("formats::{f}")) {
        let bad = offenders(
            &[
                "analysis",
                "ide",
                "workspace",
                "lsp",
                "cli",
                "contract",
                "history",
                "fuzzing",
            ],
            &format,
        );
        assert!(
            bad.is_empty(),
            "`{format}` used outside src/formats: {bad:?}"
        );
    }
}

#[test]
fn a_format_uses_no_other_format() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/formats");
    for entry in std::fs::read_dir(&root).unwrap().flatten() {
        if !entry.path().is_dir() {
            continue;
        }
        let me = entry.file_name().to_string_lossy().into_owned();
        for (path, code) in sources(&format!("formats/{me}")) {
            for other in format_folders().iter().filter(|o| **o != me) {
                assert!(
                    !code.contains(&format!("formats::{other}::")),
                    "{path} uses formats::{other}"
                );
            }
        }
    }
}

#[test]
fn the_engine_has_no_check_mcp_cycle() {
    let (_, mcp) = sources("formats/pi/engine/mcp").into_iter().next().unwrap();
    assert!(!mcp.contains("super::check"), "mcp.rs imports check.rs");
    let js_trims: Vec<String> = ["text", "syntax", "core", "formats"]
        .iter()
        .flat_map(|d| sources(d))
        .filter(|(_, c)| c.contains("fn js_trim("))
        .map(|(p, _)| p)
        .collect();
    assert_eq!(js_trims.len(), 1, "js_trim defined in {js_trims:?}");
}

/// The layers a source folder (or file) of `src/` imports, by its
/// `crate::<layer>` paths.
fn imports_of(layer: &str, layers: &[&str]) -> std::collections::BTreeSet<String> {
    let mut out = std::collections::BTreeSet::new();
    for (_, code) in sources(layer) {
        for (i, _) in code.match_indices("crate::") {
            let rest = &code[i + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if name != layer && layers.contains(&name.as_str()) {
                out.insert(name);
            }
        }
    }
    out
}

const LAYERS: &[&str] = &[
    "text",
    "syntax",
    "core",
    "ide",
    "fsio",
    "contract",
    "formats",
    "workspace",
    "analysis",
    "history",
    "lsp",
    "cli",
    "fuzzing",
];

/// The contract is one module on its own layer: it knows only the layers
/// below it, and the formats know only it and those layers — never
/// `analysis`, `history`, `workspace`, `cli` or `lsp`.
#[test]
fn the_contract_is_one_layer_between_the_shared_code_and_the_formats() {
    let contract = imports_of("contract", LAYERS);
    for l in &contract {
        assert!(
            ["text", "syntax", "core", "ide", "fsio"].contains(&l.as_str()),
            "src/contract imports crate::{l}"
        );
    }
    let formats = imports_of("formats", LAYERS);
    for l in &formats {
        assert!(
            ["text", "syntax", "core", "ide", "fsio", "contract"].contains(&l.as_str()),
            "src/formats imports crate::{l}"
        );
    }
    // The trait and every type it exchanges live in src/contract.
    let (_, registry) = sources("formats")
        .into_iter()
        .find(|(p, _)| p.ends_with("src/formats/mod.rs"))
        .unwrap();
    assert!(!registry.contains("pub trait"), "a trait in the registry");
    let contract_code: String = sources("contract").into_iter().map(|(_, c)| c).collect();
    for group in [
        "pub trait Describe",
        "pub trait Locate",
        "pub trait Check",
        "pub trait Simulate",
        "pub trait Explain",
        "pub trait Compare",
        "pub trait History",
        "pub trait Editor",
        "pub trait Format",
        "pub trait Simulator",
        "pub trait LogReader",
        "pub struct SimulationReport",
        "pub struct Context",
        "pub struct AnalysisOptions",
    ] {
        assert!(
            contract_code.contains(group),
            "`{group}` not in src/contract"
        );
    }
}

/// Between the layers of `src/`, imports form no cycle.
#[test]
fn the_layers_import_each_other_without_a_cycle() {
    let edges: Vec<(String, std::collections::BTreeSet<String>)> = LAYERS
        .iter()
        .map(|l| (l.to_string(), imports_of(l, LAYERS)))
        .collect();
    // Depth-first search with colours: grey on the stack, black done.
    fn visit(
        n: &str,
        edges: &[(String, std::collections::BTreeSet<String>)],
        colour: &mut std::collections::BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) {
        colour.insert(n.to_string(), 1);
        stack.push(n.to_string());
        let next = edges.iter().find(|(l, _)| l == n).map(|(_, d)| d.clone());
        for m in next.unwrap_or_default() {
            match colour.get(&m).copied().unwrap_or(0) {
                1 => panic!("import cycle between layers: {} -> {m}", stack.join(" -> ")),
                0 => visit(&m, edges, colour, stack),
                _ => {}
            }
        }
        stack.pop();
        colour.insert(n.to_string(), 2);
    }
    let mut colour = std::collections::BTreeMap::new();
    for l in LAYERS {
        if colour.get(*l).copied().unwrap_or(0) == 0 {
            visit(l, &edges, &mut colour, &mut Vec::new());
        }
    }
}
