//! OpenCode (`opencode.json`, `opencode.jsonc`, `.opencode/opencode.json`,
//! agent markdown files): the V1 `permission` config read as OpenCode
//! 1.18.33 reads it. `config.rs` reads one file (`yaml.rs` an agent's
//! frontmatter), `policy.rs` finds and merges the session's files into each
//! agent's ordered rule list, `decide.rs` decides a call (`bash.rs` takes
//! commands apart), `lints.rs` finds the mistakes, `simulation.rs` reports.
//! What the CLI was seen to do is recorded in `tests/fixtures/opencode/`.

pub mod bash;
pub mod codes;
pub mod config;
pub mod decide;
pub mod lints;
pub mod policy;
mod precedence;
pub mod simulation;
pub mod wildcard;
pub mod yaml;

use crate::contract::Context;
use crate::contract::report::EffectivePolicyReport;
use crate::contract::{
    Analysis, CallRequest, Check, Compare, Describe, Editor, Explain, History, Locate, Role,
    Simulate, Simulator,
};
use crate::core::diagnostic::{CodeInfo, Diagnostic};
use crate::core::profile::{RuntimeProfile, Version};
use crate::ide::code_actions::Action;
use crate::ide::items::{HoverInfo, Item, ItemKind};
use crate::ide::symbols::{Symbol, SymbolKind};
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
        let policy = Policy::load(ctx);
        let env = &policy.env;
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
        for f in &policy.files {
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
        bytes: &[u8],
        options: &crate::contract::AnalysisOptions,
        ctx: Option<&Context<'_>>,
    ) -> (String, Analysis) {
        let text = String::from_utf8_lossy(bytes).into_owned();
        let a = checked(role, &text, ctx, &options.levels);
        (text, a)
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

    fn simulator(&self, ctx: &Context<'_>) -> Result<Box<dyn Simulator>, String> {
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
        let root = analysis.root.as_ref()?;
        let at = crate::ide::locate::locate(root, offset)?;
        let (policy, doc) = session(role, text, Some(ctx));
        if let Some((range, permission, pattern)) = lints::rule_at(&policy, doc, offset) {
            return Some(HoverInfo {
                range: Some(range),
                markdown: rule_hover(&policy, doc, &permission, &pattern, ctx),
            });
        }
        let key = at.path.last()?;
        if at.on_key && at.path.len() >= 2 && at.path[at.path.len() - 2] == "permission" {
            return Some(HoverInfo {
                range: Some(at.range.clone()),
                markdown: permission_hover(key),
            });
        }
        None
    }

    fn completions(
        &self,
        role: Role,
        text: &str,
        offset: usize,
        _ctx: &Context<'_>,
        _snippets: bool,
    ) -> Vec<Item> {
        let own = lints::read(role, text, "");
        let Some(root) = own.read.root else {
            return Vec::new();
        };
        let Some(at) = crate::ide::locate::locate(&root, offset) else {
            return Vec::new();
        };
        let quoted = |r: &Range<usize>| r.start + 1..r.end.saturating_sub(1).max(r.start + 1);
        let n = at.path.len();
        let under_permission = n >= 2 && at.path[n - 2] == "permission";
        let in_map = n >= 3 && at.path[n - 3] == "permission";
        if under_permission && at.on_key {
            return config::PERMISSIONS
                .iter()
                .filter(|p| !p.starts_with("plan_"))
                .map(|p| Item {
                    label: p.to_string(),
                    kind: ItemKind::Surface,
                    detail: Some(short_permission(p).into()),
                    insert: p.to_string(),
                    snippet: false,
                    range: quoted(&at.range),
                })
                .collect();
        }
        if (under_permission || in_map || (n >= 1 && at.path[n - 1] == "permission"))
            && !at.on_key
            && at.node.value.as_str().is_some()
        {
            return ["allow", "ask", "deny"]
                .iter()
                .map(|a| Item {
                    label: a.to_string(),
                    kind: ItemKind::Value,
                    detail: None,
                    insert: a.to_string(),
                    snippet: false,
                    range: quoted(&at.range),
                })
                .collect();
        }
        Vec::new()
    }

    fn symbols(&self, _role: Role, analysis: &Analysis) -> Vec<Symbol> {
        let Some(members) = analysis.root.as_ref().and_then(|r| r.value.as_object()) else {
            return Vec::new();
        };
        members.iter().map(member_symbol).collect()
    }

    fn lens_anchor(&self, _role: Role, analysis: &Analysis) -> Option<Range<usize>> {
        let root = analysis.root.as_ref()?;
        let members = root.value.as_object()?;
        Some(
            members
                .iter()
                .find(|m| m.key == "permission")
                .map(|m| m.key_range.clone())
                .unwrap_or(root.range.start..root.range.start),
        )
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
    let env = policy::Env::from_context(ctx);
    let cwd = match (&ctx.document, ctx.cwd_explicit) {
        (Some(d), false) => project_of(d, &env.config_dir).unwrap_or_else(|| ctx.cwd.clone()),
        _ => ctx.cwd.clone(),
    };
    ctx.with(&crate::contract::Overrides {
        cwd: Some(cwd),
        ..Default::default()
    })
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
            policy::agent_name(&dir, p)
        })
        .unwrap_or_default();
    if let (Some(ctx), Some(doc)) = (ctx, doc_path.as_deref()) {
        let base = document_context(ctx);
        let doc_owned = doc.to_path_buf();
        let text_owned = text.to_string();
        let buffers = move |p: &Path| {
            if p == doc_owned {
                Some(text_owned.clone())
            } else {
                None
            }
        };
        let outer = ctx.open;
        let both = |p: &Path| buffers(p).or_else(|| outer(p));
        let with_buffer = Context {
            options: base.options.clone(),
            cwd: base.cwd.clone(),
            cwd_explicit: base.cwd_explicit,
            agent_explicit: base.agent_explicit,
            document: base.document.clone(),
            global_config: base.global_config.clone(),
            open: &both,
        };
        let p = Policy::load(&with_buffer);
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
        Some(c) => policy::Env::from_context(c),
        None => policy::Env::detached(),
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
    env: Option<&policy::Env>,
) -> SourceFile {
    let mut own = lints::read(role, text, name);
    if role == Role::Config
        && let Some(env) = env
    {
        let dir = path.parent().unwrap_or(Path::new("/")).to_path_buf();
        config::check_file_refs(&mut own.read, text, &dir, &env.home, |p| p.exists());
    }
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
    let (policy, doc) = session(role, text, ctx);
    let f = &policy.files[doc];
    let own = lints::Own {
        read: f.read.clone(),
        yaml_error: f.yaml_error.clone(),
    };
    let mut diagnostics: Vec<Diagnostic> = Vec::new();
    lints::own_findings(role, text, &own, &mut diagnostics);
    lints::session_findings(&policy, doc, &mut diagnostics);
    diagnostics.sort_by_key(|d| (d.range.start, d.range.end));
    Analysis {
        root: own.read.root.clone(),
        diagnostics: levels.apply(diagnostics),
        accepted: own.read.accepted() && own.yaml_error.is_none(),
    }
}

fn short_permission(p: &str) -> &'static str {
    match p {
        "read" => "reading a file (path relative to the worktree)",
        "edit" => "edit, write and apply_patch (path relative to the worktree)",
        "glob" => "file search (the glob pattern)",
        "grep" => "content search (the regex)",
        "list" => "listing a folder",
        "bash" => "shell commands (each command's text)",
        "task" => "starting a subagent (its name)",
        "external_directory" => "any path outside the project (`<folder>/*`)",
        "lsp" => "language-server queries",
        "skill" => "loading a skill (its name)",
        "todowrite" => "the todo list (one action)",
        "question" => "asking the user a question (one action)",
        "webfetch" => "fetching a URL (one action)",
        "websearch" => "web search (one action)",
        "codesearch" => "code search (the query)",
        "doom_loop" => "the same call repeated three times (one action)",
        _ => "",
    }
}

fn permission_hover(key: &str) -> String {
    let what = short_permission(key);
    if what.is_empty() {
        if key.contains(['*', '?']) {
            return format!(
                "**`{key}`** — a wildcard over permission names: its rules apply to every permission it matches (`*`: every tool). Placed after other keys it overrides them (last match wins)."
            );
        }
        return format!(
            "**`{key}`** — no built-in tool asks for this permission; an MCP or custom tool with exactly this id does (its calls check `*`)."
        );
    }
    format!(
        "**`{key}`** — {what}.\n\nA string is one rule with pattern `*`; a map is one rule per pattern, in order. The last matching rule in the merged list decides (none: ask)."
    )
}

fn rule_hover(
    policy: &Policy,
    doc: usize,
    permission: &str,
    pattern: &str,
    ctx: &Context<'_>,
) -> String {
    let agent = policy.agent_name(ctx.options.agent.as_deref());
    let rules = policy.rules(&agent);
    let mut md =
        format!("**`{permission}` `{pattern}`** — OpenCode {VERSION}, agent `{agent}`\n\n");
    let home = policy.env.home.display().to_string();
    let expanded = policy::expand_home(pattern, &home);
    let Some(i) = rules.iter().position(|r| {
        r.origin.file == Some(doc) && r.permission == permission && r.pattern == expanded
    }) else {
        md.push_str("This rule is not in the agent's merged list (another agent's, or a value a later file replaces).");
        return md;
    };
    let r = &rules[i];
    md.push_str(&format!(
        "Rule {} of {} in the merged list: it {} `{permission}` calls whose pattern matches `{}`.\n\n",
        i + 1,
        rules.len(),
        match r.action {
            crate::core::precedence::Action::Allow => "allows",
            crate::core::precedence::Action::Ask => "asks about",
            crate::core::precedence::Action::Deny => "denies",
        },
        r.pattern
    ));
    if matches!(permission, "read" | "edit") {
        md.push_str("Paths are matched relative to the worktree (`src/a.ts`).\n\n");
    }
    let later: Vec<String> = rules[i + 1..]
        .iter()
        .filter(|l| {
            l.action != r.action
                && crate::core::pattern_algebra::overlaps(&r.pattern_glob, &l.pattern_glob)
                    != Some(false)
                && (l.applies_to(permission) || r.applies_to(&l.permission))
        })
        .take(5)
        .map(|l| format!("- {}", simulation::rule_line(policy, l)))
        .collect();
    if later.is_empty() {
        md.push_str("No later rule with another action overlaps it.");
    } else {
        md.push_str("Later rules with another action that can override it:\n");
        md.push_str(&later.join("\n"));
    }
    // What it decides for an example it matches, with every file.
    let example = r.pattern_glob.example();
    let perm = if r.permission.contains(['*', '?']) {
        "bash".to_string()
    } else {
        r.permission.clone()
    };
    let c = decide::evaluate(&rules, &perm, &example);
    let by = match c.rule {
        Some(j) if j == i => "this rule".to_string(),
        Some(j) => simulation::rule_line(policy, &rules[j]),
        None => "no rule (ask)".into(),
    };
    md.push_str(&format!(
        "\n\n**Example:** `{perm}` `{example}` → **{}** by {by}",
        config::action_str(c.action)
    ));
    md
}

fn member_symbol(m: &crate::syntax::Member) -> Symbol {
    let children = match &m.value.value {
        Value::Object(ms)
            if matches!(m.key.as_str(), "permission" | "agent" | "mode" | "tools")
                || ms.len() < 64 =>
        {
            ms.iter().map(member_symbol).collect()
        }
        _ => Vec::new(),
    };
    Symbol {
        name: m.key.clone(),
        detail: match &m.value.value {
            Value::String(s) => Some(s.clone()),
            _ => None,
        },
        kind: match &m.value.value {
            Value::String(s) if config::action(s).is_some() => SymbolKind::Rule,
            _ => SymbolKind::Key,
        },
        range: m.key_range.start..m.value.range.end,
        selection: m.key_range.clone(),
        children,
    }
}
