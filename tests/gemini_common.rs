//! A Gemini CLI case (the oracle driver's case format: `settings`,
//! `project_settings`, `policies`, `project_policies`, `trust`,
//! `trusted_folders`, `args`, `files`, `mcp`, `headless`, `calls`) laid
//! out in a scratch folder exactly as `tests/differential/gemini/driver.py`
//! lays it out, and decided by permission-lsp.

use permission_lsp::contract::{AnalysisOptions, CallRequest, Context};
use permission_lsp::formats::{self, Format};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

pub fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("permission-lsp-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `{PROJ}` and `{HOME}` replaced, in every string of `v`.
pub fn subst(v: &Value, proj: &Path, home: &Path) -> Value {
    let s = |x: &str| {
        x.replace("{PROJ}", &proj.display().to_string())
            .replace("{HOME}", &home.display().to_string())
    };
    match v {
        Value::String(x) => Value::String(s(x)),
        Value::Array(a) => Value::Array(a.iter().map(|x| subst(x, proj, home)).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| (s(k), subst(x, proj, home)))
                .collect(),
        ),
        x => x.clone(),
    }
}

fn merge(a: &Value, b: &Value) -> Value {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut out = x.clone();
            for (k, v) in y {
                let m = match out.get(k) {
                    Some(old) if old.is_object() && v.is_object() => merge(old, v),
                    _ => v.clone(),
                };
                out.insert(k.clone(), m);
            }
            Value::Object(out)
        }
        (_, b) => b.clone(),
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => serde_json::to_string_pretty(other).unwrap(),
    }
}

/// The oracle's own settings keys (API-key auth, telemetry off, model).
fn base_settings() -> Value {
    json!({"security": {"auth": {"selectedType": "gemini-api-key"}},
           "privacy": {"usageStatisticsEnabled": false}, "telemetry": {"enabled": false},
           "general": {"disableAutoUpdate": true, "disableUpdateNag": true},
           "model": {"name": "gemini-2.5-pro"}})
}

/// The case's folders under `root/<id>`: `(proj, home)`.
pub fn lay_out(root: &Path, case: &Value) -> (PathBuf, PathBuf) {
    let id = case["id"].as_str().unwrap();
    let dir = root.join(id);
    let _ = std::fs::remove_dir_all(&dir);
    let (proj, home) = (dir.join("proj"), dir.join("home"));
    std::fs::create_dir_all(home.join(".gemini")).unwrap();
    std::fs::create_dir_all(&proj).unwrap();
    let case = subst(case, &proj, &home);
    let g = home.join(".gemini");
    if let Some(raw) = case.get("settings_raw") {
        write(&g.join("settings.json"), &text_of(raw));
    } else {
        let mut s = merge(&base_settings(), case.get("settings").unwrap_or(&json!({})));
        if case.get("mcp").and_then(Value::as_bool) == Some(true) {
            let entry = merge(
                &json!({"command": "python3", "args": ["mcp_stub.py"], "timeout": 20000}),
                case.get("mcp_config").unwrap_or(&json!({})),
            );
            s["mcpServers"]["srv"] = entry;
        }
        write(&g.join("settings.json"), &text_of(&s));
    }
    if let Some(tf) = case.get("trusted_folders") {
        write(&g.join("trustedFolders.json"), &text_of(tf));
    } else if case.get("trust").and_then(Value::as_bool) != Some(false) {
        write(
            &g.join("trustedFolders.json"),
            &json!({ proj.display().to_string(): "TRUST_FOLDER" }).to_string(),
        );
    }
    for (key, base) in [
        ("policies", g.join("policies")),
        ("project_policies", proj.join(".gemini/policies")),
    ] {
        if let Some(files) = case.get(key).and_then(Value::as_object) {
            for (name, text) in files {
                write(&base.join(name), &text_of(text));
            }
        }
    }
    if let Some(raw) = case.get("project_settings_raw") {
        write(&proj.join(".gemini/settings.json"), &text_of(raw));
    } else if let Some(s) = case.get("project_settings").filter(|s| !s.is_null()) {
        write(&proj.join(".gemini/settings.json"), &text_of(s));
    }
    for (key, base) in [("files", &proj), ("home_files", &home)] {
        if let Some(files) = case.get(key).and_then(Value::as_object) {
            for (rel, text) in files {
                write(&base.join(rel), &text_of(text));
            }
        }
    }
    (proj, home)
}

/// The session of a laid-out case.
pub fn context<'a>(case: &Value, proj: &Path, home: &Path) -> Context<'a> {
    let f = formats::by_id("gemini").unwrap();
    let mut options = AnalysisOptions::for_profile(f.default_profile());
    options.home = home.display().to_string();
    // The oracle has no system settings file.
    options.runtime_args.push((
        "GEMINI_CLI_SYSTEM_SETTINGS_PATH".into(),
        home.join("no-system-settings.json").display().to_string(),
    ));
    let case = subst(case, proj, home);
    if let Some(args) = case.get("args").and_then(Value::as_array) {
        let a: Vec<&str> = args.iter().filter_map(Value::as_str).collect();
        for w in a.windows(2) {
            match w[0] {
                "--approval-mode" => options
                    .runtime_args
                    .push(("approval-mode".into(), w[1].into())),
                "--policy" => options.runtime_args.push(("policy".into(), w[1].into())),
                _ => {}
            }
        }
        if a.contains(&"--yolo") {
            options
                .runtime_args
                .push(("approval-mode".into(), "yolo".into()));
        }
    }
    if case.get("headless").and_then(Value::as_bool) == Some(true) {
        options
            .runtime_args
            .push(("headless".into(), "true".into()));
    }
    Context {
        options,
        cwd: proj.to_path_buf(),
        cwd_explicit: true,
        agent_explicit: false,
        document: None,
        global_config: None,
        open: &permission_lsp::contract::context::no_buffers,
    }
}

/// What permission-lsp answers for a case: the session error (no session
/// starts), or one verdict per call, each with whether the simulation
/// says it is incomplete.
pub fn decide(root: &Path, case: &Value) -> Result<Vec<(String, bool)>, String> {
    let (proj, home) = lay_out(root, case);
    let ctx = context(case, &proj, &home);
    let f: &dyn Format = formats::by_id("gemini").unwrap();
    let sim = f.simulator(&ctx)?;
    let mut out = Vec::new();
    for call in case["calls"].as_array().unwrap() {
        let r = sim.simulate(&CallRequest {
            tool: call["name"].as_str().unwrap().to_string(),
            input: subst(&call["args"], &proj, &home),
        });
        if r.details.get("sessionStarts") == Some(&json!(false)) {
            return Err(r.reason.unwrap_or_default());
        }
        let v = r.details["verdict"].as_str().unwrap().to_string();
        out.push((v, r.details.contains_key("incomplete")));
    }
    Ok(out)
}

/// The messages permission-lsp gives about the user tier's policy files:
/// `(file name, severity, message)`.
pub fn policy_messages(root: &Path, case: &Value) -> Vec<(String, String, String)> {
    let (proj, home) = lay_out(root, case);
    let ctx = context(case, &proj, &home);
    let f: &dyn Format = formats::by_id("gemini").unwrap();
    let report = f.effective_policy(&ctx).unwrap();
    let mut out = Vec::new();
    for file in report.files {
        if file.scope != "user policies" {
            continue;
        }
        let name = Path::new(file.path.as_deref().unwrap_or(""))
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        for m in file.issues.unwrap_or_default() {
            let sev = if m.starts_with("Unrecognized tool name") {
                "warning"
            } else {
                "error"
            };
            out.push((name.clone(), sev.to_string(), m));
        }
    }
    out
}
