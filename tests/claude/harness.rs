//! A Claude Code oracle case set up on disk and decided by permission-lsp:
//! the settings files, project and home files and trust of a case (the
//! reference oracle's case format), and every call decided with the
//! format's simulator. Shared by the replay and the differential tests.
#![allow(dead_code)]

use permission_lsp::analysis::AnalysisOptions;
use permission_lsp::formats;
use permission_lsp::workspace::{Overrides, resolve};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Allow,
    Ask,
    Deny,
}

impl Verdict {
    pub fn parse(s: &str) -> Option<Verdict> {
        match s {
            "ALLOW" => Some(Verdict::Allow),
            "ASK" => Some(Verdict::Ask),
            "DENY" => Some(Verdict::Deny),
            _ => None,
        }
    }

    fn from_decision(s: &str) -> Verdict {
        match s {
            "allow" => Verdict::Allow,
            "deny" => Verdict::Deny,
            _ => Verdict::Ask,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Call {
    pub tool: String,
    pub input: Value,
    pub verdict: Option<Verdict>,
}

#[derive(Debug, Clone)]
pub struct Case {
    pub id: String,
    /// user / project / local: a JSON value, or a string written verbatim.
    pub user: Option<Value>,
    pub project: Option<Value>,
    pub local: Option<Value>,
    pub files: Vec<(String, String)>,
    pub home_files: Vec<(String, String)>,
    pub trust: bool,
    /// The project is a git repository.
    pub git: bool,
    /// The folder under the project the CLI starts in (`sub`).
    pub start: Option<String>,
    /// The CLI's environment (`CLAUDE_CONFIG_DIR`; `{HOME}` replaced).
    pub env: Vec<(String, String)>,
    pub args: Vec<String>,
    /// The oracle starts its MCP server `srv` (tools echo, danger, other).
    pub mcp: bool,
    pub calls: Vec<Call>,
    /// A call made alone before the others: the CLI learns the shell's
    /// environment when it first runs a Bash command.
    pub warmup: Option<Call>,
    /// What replaying the case's transcript found (differential test).
    pub replay_failures: Vec<String>,
}

pub struct Got {
    pub verdict: Verdict,
    pub reason: String,
}

fn pairs(v: &Value) -> Vec<(String, String)> {
    v.as_object()
        .map(|o| {
            o.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                .collect()
        })
        .unwrap_or_default()
}

impl Case {
    /// A case of a fixture: the oracle's case format, or the older
    /// `settings: {user, project, local}` one.
    pub fn from_fixture(v: &Value) -> Case {
        let settings = v.get("settings").unwrap_or(v);
        let calls = v["calls"]
            .as_array()
            .map(|calls| {
                calls
                    .iter()
                    .map(|c| Call {
                        tool: c["tool"]
                            .as_str()
                            .or_else(|| c["name"].as_str())
                            .unwrap_or_default()
                            .to_string(),
                        input: c["input"].clone(),
                        verdict: c["verdict"].as_str().and_then(Verdict::parse),
                    })
                    .collect()
            })
            .unwrap_or_default();
        Case {
            id: v["id"].as_str().unwrap_or_default().to_string(),
            user: settings.get("user").cloned(),
            project: settings.get("project").cloned(),
            local: settings.get("local").cloned(),
            files: pairs(&v["files"]),
            home_files: pairs(&v["home_files"]),
            trust: v
                .get("trust")
                .or_else(|| v.get("trusted"))
                .and_then(Value::as_bool)
                .unwrap_or(true),
            git: v["git"].as_bool().unwrap_or(false),
            start: v["start"].as_str().map(String::from),
            env: pairs(&v["env"]),
            args: v["args"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|s| s.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default(),
            mcp: v["mcp"].as_bool().unwrap_or(false),
            calls,
            warmup: v.get("warmup").filter(|w| w.is_object()).map(|w| Call {
                tool: w["name"].as_str().unwrap_or_default().to_string(),
                input: w["input"].clone(),
                verdict: None,
            }),
            replay_failures: Vec::new(),
        }
    }

    /// The case in the oracle's own format (for the differential test).
    pub fn to_oracle(&self) -> Value {
        let mut o = serde_json::Map::new();
        o.insert("id".into(), json!(self.id));
        for (k, v) in [
            ("user", &self.user),
            ("project", &self.project),
            ("local", &self.local),
        ] {
            if let Some(v) = v {
                o.insert(k.into(), v.clone());
            }
        }
        let files: serde_json::Map<String, Value> = self
            .files
            .iter()
            .map(|(k, v)| (k.clone(), json!(v)))
            .collect();
        o.insert("files".into(), Value::Object(files));
        let home: serde_json::Map<String, Value> = self
            .home_files
            .iter()
            .map(|(k, v)| (k.clone(), json!(v)))
            .collect();
        o.insert("home_files".into(), Value::Object(home));
        o.insert("trust".into(), json!(self.trust));
        if self.git {
            o.insert("git".into(), json!(true));
        }
        if let Some(s) = &self.start {
            o.insert("start".into(), json!(s));
        }
        if !self.args.is_empty() {
            o.insert("args".into(), json!(self.args));
        }
        let mut env: serde_json::Map<String, Value> = self
            .env
            .iter()
            .map(|(k, v)| (k.clone(), json!(v)))
            .collect();
        if self.args.iter().any(|a| a == "bypassPermissions") {
            env.insert("IS_SANDBOX".into(), json!("1"));
        }
        if !env.is_empty() {
            o.insert("env".into(), Value::Object(env));
        }
        if self.mcp {
            o.insert("mcp".into(), json!(true));
        }
        if let Some(w) = &self.warmup {
            o.insert("warmup".into(), json!({ "name": w.tool, "input": w.input }));
        }
        o.insert(
            "calls".into(),
            Value::Array(
                self.calls
                    .iter()
                    .map(|c| json!({ "name": c.tool, "input": c.input }))
                    .collect(),
            ),
        );
        Value::Object(o)
    }

    /// The case's project and home under `root`, written to disk.
    pub fn materialise(&self, root: &Path) -> (PathBuf, PathBuf) {
        let proj = root.join("proj");
        let home = root.join("home");
        let _ = std::fs::remove_dir_all(root);
        std::fs::create_dir_all(proj.join(".claude")).unwrap();
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        let write = |path: PathBuf, text: &str| {
            if let Some(p) = path.parent() {
                std::fs::create_dir_all(p).unwrap();
            }
            std::fs::write(path, text).unwrap();
        };
        let text = |v: &Value| match v {
            Value::String(s) => s.clone(),
            other => serde_json::to_string_pretty(other).unwrap(),
        };
        if let Some(v) = &self.user {
            write(
                home.join(".claude/settings.json"),
                &text(&subst(v, &proj, &home)),
            );
        }
        if let Some(v) = &self.project {
            write(
                proj.join(".claude/settings.json"),
                &text(&subst(v, &proj, &home)),
            );
        }
        if let Some(v) = &self.local {
            write(
                proj.join(".claude/settings.local.json"),
                &text(&subst(v, &proj, &home)),
            );
        }
        for (k, v) in &self.files {
            write(proj.join(k), v);
        }
        for (k, v) in &self.home_files {
            let v = v
                .replace("{PROJ}", &proj.to_string_lossy())
                .replace("{HOME}", &home.to_string_lossy());
            write(home.join(k), &v);
        }
        let mut state = json!({ "projects": {} });
        if self.trust {
            state["projects"][proj.to_string_lossy().as_ref()] =
                json!({ "hasTrustDialogAccepted": true });
        }
        write(home.join(".claude.json"), &state.to_string());
        if self.git {
            // What the CLI looks for to find the repository's root.
            std::fs::create_dir_all(proj.join(".git")).unwrap();
        }
        if let Some(s) = &self.start {
            std::fs::create_dir_all(proj.join(s)).unwrap();
        }
        (proj, home)
    }

    /// The runtime options of the case's CLI arguments.
    pub fn runtime_args(&self, proj: &Path, home: &Path) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut it = self.args.iter();
        while let Some(a) = it.next() {
            let name = match a.as_str() {
                "--permission-mode" => "permission-mode",
                "--allowedTools" | "--allowed-tools" => "allowedTools",
                "--disallowedTools" | "--disallowed-tools" => "disallowedTools",
                "--add-dir" => "add-dir",
                "--settings" => "settings",
                _ => continue,
            };
            if let Some(v) = it.next() {
                let v = v
                    .replace("{PROJ}", &proj.to_string_lossy())
                    .replace("{HOME}", &home.to_string_lossy());
                out.push((name.to_string(), v));
            }
        }
        out
    }

    /// The session of the case with its project and home at `proj` and
    /// `home` (its CLI options included).
    pub fn context(&self, proj: &Path, home: &Path) -> permission_lsp::workspace::Context<'static> {
        self.context_with(proj, home, &[])
    }

    /// The same with more session options.
    pub fn context_with(
        &self,
        proj: &Path,
        home: &Path,
        more: &[(&str, &str)],
    ) -> permission_lsp::workspace::Context<'static> {
        let claude = formats::by_id("claude-code").expect("the Claude Code format");
        let mut options = AnalysisOptions::for_profile(claude.default_profile());
        options.home = home.to_string_lossy().into_owned();
        options.runtime_args = self.runtime_args(proj, home);
        for (k, v) in more {
            options.runtime_args.push((k.to_string(), v.to_string()));
        }
        for (k, v) in &self.env {
            if k == "CLAUDE_CONFIG_DIR" {
                options
                    .runtime_args
                    .push((k.clone(), v.replace("{HOME}", &home.to_string_lossy())));
            }
        }
        resolve(
            &options,
            None,
            None,
            &Overrides {
                cwd: Some(match &self.start {
                    Some(s) => proj.join(s),
                    None => proj.to_path_buf(),
                }),
                ..Default::default()
            },
            None,
        )
    }

    /// The environment of the oracle's CLI (`base_env` of
    /// `tests/differential/claude/oracle.py`, the case's name and the
    /// case's own variables): what its shells have.
    pub fn shell_env(&self) -> String {
        let mut names: Vec<&str> = vec![
            "PATH",
            "HOME",
            "TMPDIR",
            "CLAUDE_CODE_TMPDIR",
            "XDG_RUNTIME_DIR",
            "XDG_CONFIG_HOME",
            "XDG_CACHE_HOME",
            "XDG_DATA_HOME",
            "XDG_STATE_HOME",
            "LANG",
            "SHELL",
            "ANTHROPIC_BASE_URL",
            "ANTHROPIC_API_KEY",
            "DISABLE_AUTOUPDATER",
            "DISABLE_TELEMETRY",
            "DISABLE_ERROR_REPORTING",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
            "ORACLE_CASE",
        ];
        names.extend(self.env.iter().map(|(k, _)| k.as_str()));
        names.join(",")
    }

    /// Every call decided by permission-lsp.
    pub fn decide_all(&self) -> Vec<(Call, Got)> {
        let root = std::env::temp_dir().join(format!(
            "permission-lsp-claude-{}-{}",
            std::process::id(),
            self.id
        ));
        let (proj, home) = self.materialise(&root);
        let claude = formats::by_id("claude-code").expect("the Claude Code format");
        // Until a Bash command has run in the session the CLI does not know
        // the shell's variables: calls are decided as the first command
        // until one is allowed (the warm-up call first, when the case has
        // one).
        let shell_env = self.shell_env();
        let ctx = self.context_with(&proj, &home, &[("shell-env", &shell_env)]);
        let sim = claude.simulator(&ctx).expect("a simulator");
        let first_ctx = self.context_with(
            &proj,
            &home,
            &[("shell-env", &shell_env), ("first-command", "true")],
        );
        let first_sim = claude.simulator(&first_ctx).expect("a simulator");
        let mut ran = false;
        let mut decide = |tool: &str, input: Value| {
            let s = if ran { &sim } else { &first_sim };
            let report = s.simulate(&formats::CallRequest {
                tool: tool.to_string(),
                input,
            });
            if tool == "Bash" && report.decision == "allow" {
                ran = true;
            }
            report
        };
        if let Some(w) = &self.warmup {
            decide(&w.tool, subst(&w.input, &proj, &home));
        }
        let out = self
            .calls
            .iter()
            .map(|c| {
                let report = decide(&c.tool, subst(&c.input, &proj, &home));
                (
                    c.clone(),
                    Got {
                        verdict: Verdict::from_decision(&report.decision),
                        reason: report.reason.unwrap_or_default(),
                    },
                )
            })
            .collect();
        let _ = std::fs::remove_dir_all(&root);
        out
    }
}

/// The warm-up call of the differential tests' cases: a command every
/// session runs without asking.
pub fn warmup() -> Call {
    Call {
        tool: "Bash".to_string(),
        input: json!({ "command": "true", "description": "warm-up" }),
        verdict: None,
    }
}

/// `{PROJ}` and `{HOME}` replaced in every string.
pub fn subst(v: &Value, proj: &Path, home: &Path) -> Value {
    match v {
        Value::String(s) => Value::String(
            s.replace("{PROJ}", &proj.to_string_lossy())
                .replace("{HOME}", &home.to_string_lossy()),
        ),
        Value::Array(a) => Value::Array(a.iter().map(|x| subst(x, proj, home)).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| (k.clone(), subst(x, proj, home)))
                .collect(),
        ),
        other => other.clone(),
    }
}
