//! The `check` command as a user runs it.

use std::process::Command;

fn run(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_permission-lsp"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .output()
        .expect("run");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn check_examples_reports_and_fails() {
    let (code, out) = run(&["check", "examples"]);
    assert_eq!(code, 1);
    assert!(!out.contains("\x1b["), "NO_COLOR is respected");
    insta::assert_snapshot!(out);
}

#[test]
fn a_clean_config_passes() {
    let (code, out) = run(&["check", "examples/project"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(out.trim(), "Checked 1 file: no problems found.");
}

#[test]
fn json_format() {
    let (code, out) = run(&[
        "check",
        "--format",
        "json",
        "examples/broken/trailing-comma.json",
    ]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["errors"], 2);
    let d = &v["diagnostics"][0];
    assert_eq!(d["code"], "PL002");
    assert_eq!(d["start"]["line"], 6);
    assert_eq!(d["start"]["column"], 25);
    assert!(d["runtime_issue"].as_str().unwrap().starts_with(
        "Failed to read config at 'examples/broken/trailing-comma.json': Expected double-quoted property name"
    ));
}

#[test]
fn levels_and_target_version() {
    let (code, _) = run(&[
        "check",
        "--level",
        "PL010=off",
        "--level",
        "integer-key-order=off",
        "examples/broken/duplicate-and-integer-keys.json",
    ]);
    assert_eq!(code, 0);
    let (_, out) = run(&[
        "check",
        "--target-version",
        "21.0.0",
        "--format",
        "json",
        "examples/broken/invalid-values.json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let codes: Vec<&str> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert!(
        !codes.contains(&"PL111"),
        "authorizerChain is accepted from 20.9.0: {codes:?}"
    );
    let (code, _) = run(&["check", "--level", "PL999=off", "examples"]);
    assert_eq!(code, 2);
}

#[test]
fn missing_paths_are_io_errors() {
    let (code, out) = run(&["check", "does/not/exist.json"]);
    assert_eq!(code, 2);
    assert!(out.contains("does/not/exist.json"), "{out}");
}
