//! OpenCode (`opencode.json`, `opencode.jsonc`, `.opencode/opencode.json`,
//! agent markdown files): the V1 `permission` config read as OpenCode
//! 1.18.33 reads it. What the CLI was seen to do is recorded in
//! `tests/fixtures/opencode/`. The folder has the floor plan of every
//! format:
//!
//! - `model/`: one file as OpenCode reads it (`config`; `yaml` an agent
//!   file's frontmatter);
//! - `scopes.rs`: the files a session reads, in merge order, and the
//!   session's places (home, worktree, data folders);
//! - `engine/`: the files merged into each agent's ordered rule list
//!   (`policy`), a call decided over it (`decide`; `bash` takes commands
//!   apart, `wildcard` is the pattern language);
//! - `lints/`: the findings (`precedence`: the shared exact last-match-wins
//!   analysis on each agent's list);
//! - `ide/`: hover, completion, symbols and the simulation report.

pub mod codes;
pub mod engine;
pub mod history;
pub mod ide;
pub mod lints;
pub mod model;
pub mod scopes;

use engine::{policy, wildcard};
use ide::simulation;

use crate::contract::Context;
use crate::contract::report::EffectivePolicyReport;
use crate::contract::{
    Analysis, CallRequest, Check, Compare, Describe, Editor, Explain, History, Locate, Role,
    Simulate, Simulator,
};
use crate::core::diagnostic::{CodeInfo, Diagnostic};
use crate::core::profile::{RuntimeProfile, Version};
use crate::ide::code_actions::Action;
use crate::ide::items::{HoverInfo, Item};
use crate::ide::symbols::Symbol;
use crate::syntax::{Node, Value};
use policy::{Layer, Policy, SourceFile};
use std::ops::Range;
use std::path::{Path, PathBuf};

/// The OpenCode format.
pub struct OpenCode;

/// The CLI version whose behaviour was observed.
pub const VERSION: Version = Version(1, 18, 33);

const SCHEMA: &str = "opencode.ai/config.json";

/// Is `path` a config file OpenCode reads?
pub fn is_config_path(path: &str) -> bool {
    let p = path.replace('\\', "/");
    let name = p.rsplit('/').next().unwrap_or(&p);
    name == "opencode.json" || name == "opencode.jsonc"
}

/// Is `path` an agent (or mode) markdown file OpenCode reads?
pub fn is_agent_path(path: &str) -> bool {
    let p = path.replace('\\', "/");
    if !p.ends_with(".md") {
        return false;
    }
    ["/.opencode/", "/opencode/"].iter().any(|root| {
        p.split(root).skip(1).any(|rest| {
            ["agent/", "agents/", "mode/", "modes/"]
                .iter()
                .any(|d| rest.starts_with(d))
        })
    })
}

/// The folder a document's session runs in, when the document says it:
/// the folder of a project `opencode.json`, or the one holding `.opencode`.
fn project_of(doc: &Path, config_dir: &Path) -> Option<PathBuf> {
    if doc.starts_with(config_dir) {
        return None;
    }
    let parent = doc.parent()?;
    if let Some(dot) = doc
        .ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == ".opencode"))
    {
        return dot.parent().map(Path::to_path_buf);
    }
    Some(parent.to_path_buf())
}

/// How surely a JSON document is an OpenCode config: top-level keys only
/// OpenCode's config has, and `permission` keys only OpenCode knows.
pub fn content_score(root: &Node) -> u32 {
    let Some(members) = root.value.as_object() else {
        return 0;
    };
    let mut score = 0;
    for m in members {
        match m.key.as_str() {
            "agent" | "mode" | "provider" | "model" | "small_model" | "theme" | "instructions"
            | "tools" | "lsp" | "formatter" | "share" | "autoupdate" | "plugin" | "keybinds"
            | "username" | "layout" | "snapshot" | "command" | "experimental"
            | "disabled_providers" | "enabled_providers" | "watcher" | "references"
            | "default_agent" | "mcp" | "compaction" | "tui" | "server" => score += 3,
            "permission" => match &m.value.value {
                Value::String(_) => score += 3,
                Value::Object(p) => {
                    score += 1;
                    for pm in p {
                        if matches!(
                            pm.key.as_str(),
                            "glob"
                                | "list"
                                | "task"
                                | "webfetch"
                                | "websearch"
                                | "codesearch"
                                | "todowrite"
                                | "todoread"
                                | "doom_loop"
                                | "lsp"
                                | "question"
                        ) {
                            score += 2;
                        }
                    }
                }
                _ => {}
            },
            _ => {}
        }
    }
    score
}

impl Describe for OpenCode {
    fn id(&self) -> &'static str {
        codes::FORMAT
    }

    fn display_name(&self) -> &'static str {
        "OpenCode"
    }

    fn codes(&self) -> &'static [CodeInfo] {
        codes::INFOS
    }

    fn default_profile(&self) -> RuntimeProfile {
        RuntimeProfile {
            format: codes::FORMAT,
            version: VERSION,
            auto: false,
        }
    }

    fn profile(&self, version: &str) -> Result<RuntimeProfile, String> {
        crate::core::profile::single_version(codes::FORMAT, "OpenCode", VERSION, version)
    }

    fn session_env(&self) -> &'static [&'static str] {
        &[
            "OPENCODE_PERMISSION",
            "OPENCODE_CONFIG_CONTENT",
            "OPENCODE_CONFIG",
            "OPENCODE_CONFIG_DIR",
            "OPENCODE_DISABLE_PROJECT_CONFIG",
            "XDG_CONFIG_HOME",
            "XDG_DATA_HOME",
            "TMPDIR",
        ]
    }
}

impl Locate for OpenCode {
    fn detect(&self, path: &str, head: &str) -> Option<Role> {
        if is_agent_path(path) {
            return Some(Role::Agent);
        }
        (is_config_path(path)
            || ((path.ends_with(".json") || path.ends_with(".jsonc"))
                && head.contains("$schema")
                && head.contains(SCHEMA)))
        .then_some(Role::Config)
    }

    fn content_score(&self, root: &Node) -> u32 {
        content_score(root)
    }

    fn session_files(&self, ctx: &Context<'_>) -> crate::contract::SessionFiles {
        // Which files there are, not what they say: listed, not parsed.
        let (env, files) = scopes::listed_files(ctx);
        let env = &env;
        let show = |p: &std::path::Path| crate::contract::tilde(p, &env.home);
        let mut out = crate::contract::SessionFiles::default();
        out.looked_in.push(format!(
            "{}/{{opencode.json,opencode.jsonc,config.json}}",
            show(&env.config_dir)
        ));
        out.looked_in
            .push(format!("{}/{{agent,agents}}/*.md", show(&env.config_dir)));
        let top = if env.worktree == std::path::Path::new("/") {
            env.directory.clone()
        } else {
            env.worktree.clone()
        };
        let span = if top == env.directory {
            show(&top)
        } else {
            format!("{} up to {}", show(&env.directory), show(&top))
        };
        out.looked_in.push(format!(
            "{span}: opencode.json, opencode.jsonc, .opencode/opencode.json[c], .opencode/{{agent,agents}}/*.md"
        ));
        out.looked_in.push("/etc/opencode/opencode.json[c]".into());
        for f in &files {
            if f.layer == policy::Layer::ConfigContent || !f.path.is_file() {
                continue;
            }
            out.present.push(crate::contract::SessionFile {
                path: f.path.clone(),
                role: if f.layer == policy::Layer::AgentFile {
                    Role::Agent
                } else {
                    Role::Config
                },
                scope: f.layer.name().to_string(),
            });
        }
        out
    }

    fn watch_globs(&self, _ctx: &Context<'_>) -> (Vec<String>, Vec<(PathBuf, String)>) {
        (
            [
                "**/opencode.json",
                "**/opencode.jsonc",
                "**/config.json",
                "**/.opencode/agent/**/*.md",
                "**/.opencode/agents/**/*.md",
                "**/opencode/agent/**/*.md",
                "**/opencode/agents/**/*.md",
                "**/.git",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect(),
            Vec::new(),
        )
    }
}

impl Check for OpenCode {
    fn analyse(&self, role: Role, text: &str, ctx: &Context<'_>) -> Analysis {
        checked(role, text, Some(ctx), &ctx.options.levels)
    }

    fn analyse_file(
        &self,
        role: Role,
        bytes: Vec<u8>,
        options: &crate::contract::AnalysisOptions,
        ctx: Option<&Context<'_>>,
    ) -> (String, Analysis) {
        let (text, _) = crate::contract::decode(bytes);
        let a = checked(role, &text, ctx, &options.levels);
        (text, a)
    }

    fn findings_of_file_in_order(
        &self,
        role: Role,
        bytes: Vec<u8>,
        options: &crate::contract::AnalysisOptions,
        ctx: Option<&Context<'_>>,
        sink: &mut dyn FnMut(&str, Vec<Diagnostic>),
    ) {
        let (text, _) = crate::contract::decode(bytes);
        let (mut policy, doc) = session(role, &text, ctx);
        let f = &policy.files[doc];
        let mut own = Vec::new();
        lints::own_findings(role, &text, &f.read, f.yaml_error.as_ref(), &mut own);
        // The session holds the document's text: one copy, not two.
        debug_assert!(f.text == text);
        drop(text);
        lints::session_findings_in_order(&mut policy, doc, own, &options.levels, sink);
    }
}

impl Simulate for OpenCode {
    fn parse_command_line(&self, line: &str) -> Option<CallRequest> {
        simulation::parse_command_line(line)
    }

    fn sample_tools(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("bash", "command"),
            ("read", "filePath"),
            ("edit", "filePath"),
            ("webfetch", "url"),
            ("glob", "pattern"),
        ]
    }

    fn shell_tool(&self) -> &'static str {
        "bash"
    }

    fn load_simulator(&self, ctx: &Context<'_>) -> Result<Box<dyn Simulator>, String> {
        let sim = simulation::OpenCodeSimulator::load(&document_context(ctx));
        if sim.unknown_agent {
            return Err(format!(
                "OpenCode has no agent `{}` here (agents: {})",
                sim.agent,
                sim.policy.agent_names().join(", ")
            ));
        }
        Ok(Box::new(sim))
    }
}

impl Explain for OpenCode {
    fn effective_policy(&self, ctx: &Context<'_>) -> Result<EffectivePolicyReport, String> {
        Ok(simulation::effective(&simulation::OpenCodeSimulator::load(
            &document_context(ctx),
        )))
    }
}

impl Compare for OpenCode {
    /// Every agent of the session: agent files and `agent.*` keys change
    /// only their own agent's list.
    fn diff_agents(&self, ctx: &Context<'_>) -> Vec<String> {
        Policy::load(&document_context(ctx)).agent_names()
    }

    fn diff_pattern(
        &self,
        rule: &crate::contract::report::EffectiveRule,
        _home: &str,
    ) -> Option<(String, String, crate::core::pattern_algebra::Pattern)> {
        Some((
            rule.surface.clone(),
            rule.pattern.clone(),
            wildcard::compile(&rule.pattern),
        ))
    }

    fn diff_hints(&self, surface: &str, home: &str) -> Vec<crate::core::pattern_algebra::Pattern> {
        let path = |extra: &[&str]| crate::core::pattern_algebra::path_hints(home, extra);
        match surface {
            // Folder checks of `cd rm cp mv mkdir touch chmod chown cat`.
            "bash" => path(&["* /*", "* ~*", "* ../*"]),
            "read" | "edit" | "list" | "external_directory" => path(&[]),
            _ => Vec::new(),
        }
    }

    fn probe_call(&self, surface: &str, value: &str) -> Option<CallRequest> {
        use serde_json::json;
        let (tool, input) = match surface {
            "bash" => ("bash", json!({ "command": value, "description": "x" })),
            "read" => ("read", json!({ "filePath": value })),
            "edit" => (
                "edit",
                json!({ "filePath": value, "oldString": "a", "newString": "b" }),
            ),
            "external_directory" => ("read", json!({ "filePath": value })),
            "glob" => ("glob", json!({ "pattern": value })),
            "grep" => ("grep", json!({ "pattern": value })),
            "list" => ("list", json!({ "path": value })),
            "webfetch" => ("webfetch", json!({ "url": value })),
            "websearch" => ("websearch", json!({ "query": value })),
            "task" => (
                "task",
                json!({ "subagent_type": value, "description": "x", "prompt": "x" }),
            ),
            "skill" => ("skill", json!({ "name": value })),
            "todowrite" | "todoread" | "lsp" | "codesearch" => (surface, json!({})),
            // Session-level permissions (doom_loop, question, plan_*) and
            // the catch-all over tool names are not calls of one tool.
            _ => return None,
        };
        Some(CallRequest {
            tool: tool.to_string(),
            input,
        })
    }
}

impl History for OpenCode {
    fn log_reader(
        &self,
        record: &serde_json::Value,
    ) -> Option<Box<dyn crate::contract::history::LogReader>> {
        history::reader(record)
    }

    fn log_stream(
        &self,
        path: &std::path::Path,
    ) -> Option<Result<Box<dyn std::io::Read + Send>, String>> {
        history::stream(path)
    }

    fn session_logs(&self, ctx: &Context<'_>) -> crate::contract::history::SessionLogs {
        history::session_logs(&scopes::Env::from_context(ctx).data_dir)
    }

    fn suggestion_value(&self, call: &CallRequest) -> Option<(String, String, char)> {
        let (surface, field, sep) = match call.tool.as_str() {
            "bash" => ("bash", "command", ' '),
            "read" => ("read", "filePath", '/'),
            "edit" | "write" => ("edit", "filePath", '/'),
            _ => return None,
        };
        let v = call.input.get(field)?.as_str()?.trim();
        (!v.is_empty()).then(|| (surface.to_string(), v.to_string(), sep))
    }

    fn suggested_rule(
        &self,
        surface: &str,
        pattern: &str,
        action: &str,
    ) -> Option<crate::contract::history::RuleText> {
        crate::contract::history::RuleText::member(&["permission", surface], pattern, action)
    }
}

impl Editor for OpenCode {
    fn hover(
        &self,
        role: Role,
        text: &str,
        analysis: &Analysis,
        offset: usize,
        ctx: &Context<'_>,
    ) -> Option<HoverInfo> {
        ide::hover::hover(role, text, analysis, offset, &with_document_agent(ctx))
    }

    fn completions(
        &self,
        role: Role,
        text: &str,
        offset: usize,
        _ctx: &Context<'_>,
        _snippets: bool,
    ) -> Vec<Item> {
        ide::completion::completions(role, text, offset)
    }

    fn symbols(&self, _role: Role, analysis: &Analysis) -> Vec<Symbol> {
        ide::symbols::symbols(analysis)
    }

    fn lens_anchor(&self, _role: Role, analysis: &Analysis) -> Option<Range<usize>> {
        ide::symbols::lens_anchor(analysis)
    }

    fn assists(
        &self,
        _role: Role,
        _text: &str,
        _analysis: &Analysis,
        _at: Range<usize>,
    ) -> Vec<Action> {
        Vec::new()
    }
}

/// The context with the working directory a document implies (when none
/// was given).
fn document_context<'a>(ctx: &Context<'a>) -> Context<'a> {
    let env = scopes::Env::from_context(ctx);
    let cwd = match (&ctx.document, ctx.cwd_explicit) {
        (Some(d), false) => project_of(d, &env.config_dir).unwrap_or_else(|| ctx.cwd.clone()),
        _ => ctx.cwd.clone(),
    };
    // An agent file answers for its own agent unless one is named.
    with_document_agent(&ctx.with(&crate::contract::Overrides {
        cwd: Some(cwd),
        ..Default::default()
    }))
}

/// `ctx` with the agent of its document when that is an agent file and no
/// agent is named (hover answers for the file's own agent).
fn with_document_agent<'a>(ctx: &Context<'a>) -> Context<'a> {
    let agent = match (&ctx.document, &ctx.options.agent) {
        (Some(d), None) if !ctx.agent_explicit => agent_of_file(d),
        _ => None,
    };
    ctx.with(&crate::contract::Overrides {
        agent,
        ..Default::default()
    })
}

/// The agent an agent or mode markdown file defines (`agent/review.md`:
/// `review`), `None` for any other file.
fn agent_of_file(p: &Path) -> Option<String> {
    if p.extension().is_none_or(|e| e != "md") {
        return None;
    }
    let dir = p
        .ancestors()
        .find(|a| {
            a.file_name()
                .is_some_and(|n| n == "agent" || n == "agents" || n == "mode" || n == "modes")
        })?
        .parent()?
        .to_path_buf();
    Some(scopes::agent_name(&dir, p))
}

/// The session of a document (its text in place of the file), and the
/// document's index among the session's files. A document the session does
/// not read is judged on its own, as the project's config.
fn session(role: Role, text: &str, ctx: Option<&Context<'_>>) -> (Policy, usize) {
    let doc_path = ctx.and_then(|c| c.document.clone());
    let name = doc_path
        .as_deref()
        .map(|p| {
            let dir = p
                .ancestors()
                .find(|a| {
                    a.file_name().is_some_and(|n| {
                        n == "agent" || n == "agents" || n == "mode" || n == "modes"
                    })
                })
                .and_then(Path::parent)
                .map(Path::to_path_buf)
                .unwrap_or_default();
            scopes::agent_name(&dir, p)
        })
        .unwrap_or_default();
    if let (Some(ctx), Some(doc)) = (ctx, doc_path.as_deref()) {
        let base = document_context(ctx);
        let p = base.with_buffer(doc, text, Policy::load);
        if let Some(i) = p.files.iter().position(|f| f.path == doc) {
            return (p, i);
        }
        // Not read by the session: judged alone in the session's place.
        let mut files = p.files.clone();
        files.push(source(role, doc.to_path_buf(), text, &name, Some(&p.env)));
        let i = files.len() - 1;
        let env = p.env.clone();
        return (Policy::merge(env, files), i);
    }
    let env = match ctx {
        Some(c) => scopes::Env::from_context(c),
        None => scopes::Env::detached(),
    };
    let f = source(
        role,
        doc_path.unwrap_or_else(|| PathBuf::from("opencode.json")),
        text,
        &name,
        ctx.map(|_| &env),
    );
    (Policy::merge(env, vec![f]), 0)
}

fn source(
    role: Role,
    path: PathBuf,
    text: &str,
    name: &str,
    env: Option<&scopes::Env>,
) -> SourceFile {
    let own = match (role, env) {
        // References resolve from the file's folder, with the session's
        // variables.
        (Role::Config, Some(env)) => {
            let at = std::path::absolute(&path).unwrap_or_else(|_| path.clone());
            let dir = at.parent().unwrap_or(Path::new("/")).to_path_buf();
            lints::Own {
                read: scopes::read_with_refs(
                    text,
                    &dir,
                    env,
                    &crate::contract::context::no_buffers,
                ),
                yaml_error: None,
            }
        }
        // A file read alone: no variable, no other file (each reference is
        // said to read as empty).
        (Role::Config, None) => lints::Own {
            read: model::config::read_config_alone(text),
            yaml_error: None,
        },
        _ => lints::read(role, text, name),
    };
    SourceFile {
        path,
        layer: if role == Role::Agent {
            Layer::AgentFile
        } else {
            Layer::Project
        },
        text: text.to_string(),
        read: own.read,
        yaml_error: own.yaml_error,
        index: Default::default(),
    }
}

/// The file's findings (with the session's other files when there is a
/// context) at the configured levels.
fn checked(
    role: Role,
    text: &str,
    ctx: Option<&Context<'_>>,
    levels: &crate::core::levels::LintLevels,
) -> Analysis {
    let (mut policy, doc) = session(role, text, ctx);
    let f = &policy.files[doc];
    let mut diagnostics: Vec<Diagnostic> = Vec::new();
    lints::own_findings(role, text, &f.read, f.yaml_error.as_ref(), &mut diagnostics);
    lints::session_findings(&policy, doc, &mut diagnostics);
    let f = &mut policy.files[doc];
    Analysis {
        accepted: f.read.accepted() && f.yaml_error.is_none(),
        // (The session is not needed any more.)
        root: f.read.root.take(),
        diagnostics: levels.apply(diagnostics),
        outline: Vec::new(),
    }
}
