//! A Qwen Code case (the reference runtime's case format: `settings`,
//! `project_settings`, `approval_mode`, `trust`, `files`, `mcp`, `calls`)
//! laid out in a scratch folder exactly as the oracle's driver lays it out,
//! and decided by permission-lsp.

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
    match v {
        Value::String(s) => Value::String(
            s.replace("{PROJ}", &proj.display().to_string())
                .replace("{HOME}", &home.display().to_string()),
        ),
        Value::Array(a) => Value::Array(a.iter().map(|x| subst(x, proj, home)).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| {
                    (
                        k.replace("{PROJ}", &proj.display().to_string())
                            .replace("{HOME}", &home.display().to_string()),
                        subst(x, proj, home),
                    )
                })
                .collect(),
        ),
        x => x.clone(),
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn json_or_raw(case: &Value, key: &str, proj: &Path, home: &Path) -> Option<String> {
    if let Some(raw) = case.get(format!("{key}_raw")).and_then(Value::as_str) {
        return Some(subst(&json!(raw), proj, home).as_str().unwrap().to_string());
    }
    case.get(key)
        .map(|v| serde_json::to_string_pretty(&subst(v, proj, home)).unwrap())
}

/// The case's folders under `root/<id>`: `(proj, home, system dir)`.
pub fn lay_out(root: &Path, case: &Value) -> (PathBuf, PathBuf, PathBuf) {
    let id = case["id"].as_str().unwrap();
    let dir = root.join(id);
    let _ = std::fs::remove_dir_all(&dir);
    let (proj, home, sys) = (dir.join("proj"), dir.join("home"), dir.join("system"));
    for d in [&proj, &home, &sys] {
        std::fs::create_dir_all(d).unwrap();
    }
    // The oracle's system settings (no permission keys) and its pin.
    let mut system = json!({"security": {"auth": {"selectedType": "openai"}}});
    if case.get("mcp").and_then(Value::as_bool) == Some(true) {
        let mut srv = json!({"command": "python3", "args": ["mcp_stub.py"]});
        if let Some(extra) = case.get("mcp_config").and_then(Value::as_object) {
            for (k, v) in extra {
                srv[k] = v.clone();
            }
        }
        system["mcpServers"] = json!({ "srv": srv });
    }
    write(&sys.join("settings.json"), &system.to_string());
    let mode = match case.get("approval_mode") {
        None => Some("default".to_string()),
        Some(Value::Null) => None,
        Some(v) => v.as_str().map(str::to_string),
    };
    let defaults = match &mode {
        Some(m) => json!({"tools": {"approvalMode": m}}),
        None => json!({}),
    };
    write(&sys.join("system-defaults.json"), &defaults.to_string());
    if let Some(t) = json_or_raw(case, "settings", &proj, &home) {
        write(&home.join(".qwen/settings.json"), &t);
    }
    if let Some(t) = json_or_raw(case, "project_settings", &proj, &home) {
        write(&proj.join(".qwen/settings.json"), &t);
    }
    let tf = match (case.get("trusted_folders"), case.get("trust")) {
        (Some(tf), _) => Some(subst(tf, &proj, &home)),
        (None, Some(Value::Bool(false))) => None,
        (None, Some(Value::String(s))) if s == "untrusted" => {
            Some(json!({ proj.display().to_string(): "DO_NOT_TRUST" }))
        }
        _ => Some(json!({ proj.display().to_string(): "TRUST_FOLDER" })),
    };
    if let Some(tf) = tf {
        write(&home.join(".qwen/trustedFolders.json"), &tf.to_string());
    }
    for (key, base) in [("files", &proj), ("home_files", &home)] {
        if let Some(files) = case.get(key).and_then(Value::as_object) {
            for (rel, text) in files {
                write(&base.join(rel), text.as_str().unwrap_or(""));
            }
        }
    }
    (proj, home, sys)
}

/// The session of a laid-out case.
pub fn context<'a>(case: &Value, proj: &Path, home: &Path, sys: &Path) -> Context<'a> {
    let f = formats::by_id("qwen").unwrap();
    let mut options = AnalysisOptions::for_profile(f.default_profile());
    options.home = home.display().to_string();
    options.runtime_args.push((
        "QWEN_CODE_SYSTEM_SETTINGS_PATH".into(),
        sys.join("settings.json").display().to_string(),
    ));
    options.runtime_args.push((
        "QWEN_CODE_SYSTEM_DEFAULTS_PATH".into(),
        sys.join("system-defaults.json").display().to_string(),
    ));
    if let Some(args) = case.get("args").and_then(Value::as_array) {
        let a: Vec<&str> = args.iter().filter_map(Value::as_str).collect();
        for w in a.windows(2) {
            if w[0] == "--approval-mode" {
                options
                    .runtime_args
                    .push(("approval-mode".into(), w[1].into()));
            }
        }
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
/// starts), or one verdict per call (`allow`, `ask`, `deny`, `hidden`,
/// `invalid`), each with whether the simulation says it is incomplete.
pub fn decide(root: &Path, case: &Value) -> Result<Vec<(String, bool)>, String> {
    let (proj, home, sys) = lay_out(root, case);
    let ctx = context(case, &proj, &home, &sys);
    let f: &dyn Format = formats::by_id("qwen").unwrap();
    let sim = f.simulator(&ctx)?;
    let mut out = Vec::new();
    for call in case["calls"].as_array().unwrap() {
        let r = sim.simulate(&CallRequest {
            tool: call["name"].as_str().unwrap().to_string(),
            input: subst(&call["arguments"], &proj, &home),
        });
        if r.details.get("sessionStarts") == Some(&json!(false)) {
            return Err(r.reason.unwrap_or_default());
        }
        let v = r.details["verdict"].as_str().unwrap().to_string();
        out.push((v, r.details.contains_key("incomplete")));
    }
    Ok(out)
}
