//! Claude Code settings (`.claude/settings.json`, `settings.local.json`,
//! `~/.claude/settings.json`, managed settings): the `permissions` object
//! read as Claude Code 2.1.332 reads it. What the CLI was seen to do is in
//! `tests/fixtures/claude/oracle/`. Each file is checked, and its rules are
//! set against the other settings files and the project's trust state
//! (`scopes.rs`). The folder has the floor plan of every format:
//!
//! - `model/`: a rule as the CLI reads it (`rules`), the shapes of Bash
//!   rules (`shape`), what a rule's text says it does (`rule_text`);
//! - `engine/`: calls decided over every file at once (`policy` loads
//!   them, `decide` decides, `bash` takes commands apart, `paths` matches
//!   path rules);
//! - `lints/`: the findings of one file;
//! - `ide/`: what the editor and the CLI show (`hover`, `completion`,
//!   `symbols`, `simulation`);
//! - `scopes.rs` (the files and the trust state), `history/` (session
//!   files and stream-json messages, read back as past decisions),
//!   `codes.rs`.

pub mod codes;
pub mod engine;
pub mod history;
pub mod ide;
pub mod lints;
pub mod model;
pub mod scopes;

use engine::{bash, policy};
use ide::simulation;
use model::rules;

use crate::contract::Context;
use crate::contract::report::EffectivePolicyReport;
use crate::contract::{
    Analysis, CallRequest, Check, Compare, Describe, Editor, Explain, History, Locate, Role,
    Simulate, Simulator,
};
use crate::core::diagnostic::CodeInfo;
use crate::core::profile::{RuntimeProfile, Version};
use crate::ide::code_actions::Action;
use crate::ide::items::{HoverInfo, Item};
use crate::ide::symbols::Symbol;
use crate::syntax::{Node, Value};
use std::ops::Range;

/// The Claude Code settings format.
pub struct Claude;

/// The CLI version whose behaviour was observed.
pub const VERSION: Version = Version(2, 1, 332);

const SCHEMA: &str = "json.schemastore.org/claude-code-settings.json";

/// Is `path` a settings file Claude Code reads?
pub fn is_settings_path(path: &str) -> bool {
    let path = path.replace('\\', "/");
    path.ends_with("/.claude/settings.json")
        || path.ends_with("/.claude/settings.local.json")
        || path == ".claude/settings.json"
        || path == ".claude/settings.local.json"
        || path.ends_with("/managed-settings.json")
        || path == "managed-settings.json"
        || (path.contains("/managed-settings.d/") && path.ends_with(".json"))
}

/// How surely a JSON document is a Claude Code settings file: a top-level
/// `permissions` object whose `allow`, `ask` or `deny` is an array of rule
/// strings, or other keys only Claude Code settings have.
pub fn content_score(root: &Node) -> u32 {
    let Some(members) = root.value.as_object() else {
        return 0;
    };
    let mut score = 0;
    for m in members {
        match m.key.as_str() {
            "permissions" => {
                if let Some(p) = m.value.value.as_object() {
                    for pm in p {
                        match (pm.key.as_str(), &pm.value.value) {
                            ("allow" | "ask" | "deny", Value::Array(_)) => score += 4,
                            (
                                "defaultMode"
                                | "additionalDirectories"
                                | "disableBypassPermissionsMode",
                                _,
                            ) => score += 3,
                            _ => {}
                        }
                    }
                }
            }
            "hooks"
            | "enabledPlugins"
            | "apiKeyHelper"
            | "includeCoAuthoredBy"
            | "enableAllProjectMcpServers"
            | "enabledMcpjsonServers"
            | "statusLine"
            | "outputStyle"
            | "cleanupPeriodDays"
            | "forceLoginMethod"
            | "alwaysThinkingEnabled" => score += 2,
            _ => {}
        }
    }
    score
}

/// The CLI's session flags that change its decisions.
static SESSION_OPTIONS: &[crate::contract::SessionOption] = &[
    crate::contract::SessionOption {
        flag: "trusted",
        aliases: &[],
        value_name: "",
        help: "Claude Code: assume the project is trusted (as after its trust dialog) even without ~/.claude.json saying so",
        repeatable: false,
        arg: scopes::TRUSTED,
        setting: "trusted",
        values: &[],
        switch: true,
    },
    crate::contract::SessionOption {
        flag: "permission-mode",
        aliases: &[],
        value_name: "MODE",
        help: "Claude Code: the session's --permission-mode",
        repeatable: false,
        arg: "permission-mode",
        setting: "permissionMode",
        values: &[
            "default",
            "acceptEdits",
            "plan",
            "dontAsk",
            "bypassPermissions",
            "auto",
        ],
        switch: false,
    },
    crate::contract::SessionOption {
        flag: "allowed-tools",
        aliases: &["allowedTools"],
        value_name: "RULES",
        help: "Claude Code: the session's --allowedTools rules (repeatable; commas or blanks separate rules)",
        repeatable: true,
        arg: "allowedTools",
        setting: "allowedTools",
        values: &[],
        switch: false,
    },
    crate::contract::SessionOption {
        flag: "disallowed-tools",
        aliases: &["disallowedTools"],
        value_name: "RULES",
        help: "Claude Code: the session's --disallowedTools rules (repeatable)",
        repeatable: true,
        arg: "disallowedTools",
        setting: "disallowedTools",
        values: &[],
        switch: false,
    },
    crate::contract::SessionOption {
        flag: "settings",
        aliases: &[],
        value_name: "FILE-OR-JSON",
        help: "Claude Code: the session's --settings (a settings file, or its JSON text), read after the local settings",
        repeatable: false,
        arg: "settings",
        setting: "settings",
        values: &[],
        switch: false,
    },
    crate::contract::SessionOption {
        flag: "add-dir",
        aliases: &[],
        value_name: "DIR",
        help: "Claude Code: another working directory (--add-dir, repeatable)",
        repeatable: true,
        arg: "add-dir",
        setting: "addDirs",
        values: &[],
        switch: false,
    },
    crate::contract::SessionOption {
        flag: "first-command",
        aliases: &[],
        value_name: "",
        help: "Claude Code: decide as the session's first Bash command to run (until one has run, Claude Code does not know the shell's variables, and a line that sets one asks)",
        repeatable: false,
        arg: engine::policy::FIRST_COMMAND,
        setting: "firstCommand",
        values: &[],
        switch: true,
    },
    crate::contract::SessionOption {
        flag: "shell-env",
        aliases: &[],
        value_name: "NAMES",
        help: "Claude Code: the environment variables of the shell it runs commands in (repeatable; commas separate names; default: this process's environment) — a line that sets one of them asks",
        repeatable: true,
        arg: engine::policy::SHELL_ENV,
        setting: "shellEnv",
        values: &[],
        switch: false,
    },
];

impl Describe for Claude {
    fn id(&self) -> &'static str {
        codes::FORMAT
    }

    fn display_name(&self) -> &'static str {
        "Claude Code"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["claude-code"]
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
        crate::core::profile::single_version(codes::FORMAT, "Claude Code", VERSION, version)
    }

    fn session_options(&self) -> &'static [crate::contract::SessionOption] {
        SESSION_OPTIONS
    }

    fn session_env(&self) -> &'static [&'static str] {
        &["CLAUDE_CONFIG_DIR"]
    }
}

impl Locate for Claude {
    fn detect(&self, path: &str, head: &str) -> Option<Role> {
        (is_settings_path(path)
            || (path.ends_with(".json") && head.contains("$schema") && head.contains(SCHEMA)))
        .then_some(Role::Config)
    }

    fn content_score(&self, root: &Node) -> u32 {
        content_score(root)
    }

    fn session_files(&self, ctx: &Context<'_>) -> crate::contract::SessionFiles {
        let (home, _, candidates) = policy::candidate_files(ctx);
        let mut out = crate::contract::SessionFiles::default();
        for (source, path) in candidates {
            out.looked_in.push(crate::contract::tilde(&path, &home));
            if path.is_file() && !out.present.iter().any(|f| f.path == path) {
                out.present.push(crate::contract::SessionFile {
                    path,
                    role: Role::Config,
                    scope: policy::Origin::File(source).scope().to_string(),
                });
            }
        }
        out
    }

    fn watch_globs(&self, _ctx: &Context<'_>) -> (Vec<String>, Vec<(std::path::PathBuf, String)>) {
        (
            [
                "**/.claude/settings.json",
                "**/.claude/settings.local.json",
                "**/managed-settings.json",
                "**/managed-settings.d/*.json",
                "**/.mcp.json",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect(),
            Vec::new(),
        )
    }
}

impl Check for Claude {
    fn analyse(&self, _role: Role, text: &str, ctx: &Context<'_>) -> Analysis {
        checked(text, Some(ctx), &ctx.options.levels)
    }

    fn analyse_file(
        &self,
        _role: Role,
        bytes: Vec<u8>,
        options: &crate::contract::AnalysisOptions,
        ctx: Option<&Context<'_>>,
    ) -> (String, Analysis) {
        let (text, _) = crate::contract::decode(bytes);
        let a = checked(&text, ctx, &options.levels);
        (text, a)
    }
}

impl Simulate for Claude {
    fn parse_command_line(&self, line: &str) -> Option<CallRequest> {
        simulation::parse_command_line(line)
    }

    fn sample_tools(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("Bash", "command"),
            ("Read", "file_path"),
            ("Write", "file_path"),
            ("WebFetch", "url"),
        ]
    }

    fn shell_tool(&self) -> &'static str {
        "Bash"
    }

    fn check_tool(&self, tool: &str) -> Result<(), String> {
        // The CLI's tools, the older names it still decides, MCP tools.
        const OLDER: &[&str] = &["MultiEdit", "LS", "NotebookRead"];
        if rules::TOOLS.contains(&tool) || OLDER.contains(&tool) || tool.starts_with("mcp__") {
            return Ok(());
        }
        let shown: String = tool.chars().take(80).collect();
        let case = rules::TOOLS
            .iter()
            .chain(OLDER)
            .copied()
            .find(|t| t.eq_ignore_ascii_case(tool));
        let near = rules::TOOLS
            .iter()
            .copied()
            .filter(|t| crate::text::edit_distance(t, tool) <= 2)
            .min_by_key(|t| crate::text::edit_distance(t, tool));
        Err(match (case, near) {
            (Some(t), _) => format!(
                "`{shown}` is not a Claude Code tool (did you mean `{t}`? tool names are case-sensitive)"
            ),
            (None, Some(t)) => {
                format!("`{shown}` is not a Claude Code tool (did you mean `{t}`?)")
            }
            (None, None) => format!(
                "`{shown}` is not a Claude Code tool (its tools: Bash, Read, Edit, Write, WebFetch, …, and mcp__server__tool)"
            ),
        })
    }

    fn load_simulator(&self, ctx: &Context<'_>) -> Result<Box<dyn Simulator>, String> {
        Ok(Box::new(simulation::ClaudeSimulator::load(ctx)))
    }
}

impl Explain for Claude {
    fn effective_policy(&self, ctx: &Context<'_>) -> Result<EffectivePolicyReport, String> {
        Ok(simulation::effective(
            &simulation::ClaudeSimulator::load(ctx).policy,
        ))
    }
}

impl Compare for Claude {
    fn diff_precedence(&self) -> crate::core::precedence::Precedence {
        crate::core::precedence::Precedence::DenyAskAllow
    }

    /// `Edit` rules also decide writes. (They only allow reads, which is
    /// not a precedence among the `Read` rules: an `Edit` change shows on
    /// `Edit` calls.)
    fn diff_applies(&self, rule_surface: &str, surface: &str) -> bool {
        rule_surface == surface || (rule_surface == "Edit" && surface == "Write")
    }

    fn diff_pattern(
        &self,
        rule: &crate::contract::report::EffectiveRule,
        home: &str,
    ) -> Option<(String, String, crate::core::pattern_algebra::Pattern)> {
        // A skill's name: deny rules refuse it, by a name, a prefix or a
        // `skill:` glob (ask and allow rules change nothing; the
        // simulators' answers show that).
        // The content of a `Tool(…)` rule of `tools` (not `Tool(*)`, the
        // whole tool).
        let content = |tools: &[&str]| {
            tools
                .iter()
                .find_map(|t| rule.pattern.strip_prefix(t)?.strip_prefix('('))
                .and_then(|r| r.strip_suffix(')'))
                .filter(|c| *c != "*")
        };
        if let Some(content) = content(&["Skill"]) {
            return Some((
                "Skill".into(),
                rule.pattern.clone(),
                engine::skill::algebra(content),
            ));
        }
        // An agent type: a deny rule stops it (`Task(…)` is `Agent(…)`).
        if let Some(content) = content(&["Agent", "Task"]) {
            return Some((
                "Agent".into(),
                rule.pattern.clone(),
                crate::core::pattern_algebra::Pattern::from_parts(&[content]),
            ));
        }
        let Some((surface, glob)) = diff_glob(&rule.pattern, home) else {
            // Any other tool's content (`WebSearch(cats)`): the value it
            // names, on its own surface, decided by the simulators, which
            // read no such content (observed for `WebSearch` and
            // `ToolSearch`; for other tools, the simulator's reading).
            let (tool, content) = rule.pattern.split_once('(')?;
            let content = content.strip_suffix(')')?;
            return Some((
                tool.to_string(),
                rule.pattern.clone(),
                crate::core::pattern_algebra::Pattern::from_parts(&[content]),
            ));
        };
        Some((
            surface,
            rule.pattern.clone(),
            crate::core::pattern_algebra::Pattern::from_expanded(&glob),
        ))
    }

    fn diff_hints(&self, surface: &str, home: &str) -> Vec<crate::core::pattern_algebra::Pattern> {
        let path = |extra: &[&str]| crate::core::pattern_algebra::path_hints(home, extra);
        match surface {
            "Bash" => {
                let mut v = path(&["* /*", "* ~*", "* ../*"]);
                v.extend(bash::self_decided_prefixes().iter().map(|p| {
                    crate::core::pattern_algebra::Pattern::from_expanded(&format!("{p} *"))
                }));
                v
            }
            "Read" | "Edit" | "Write" => path(&[]),
            _ => Vec::new(),
        }
    }

    fn probe_call(&self, surface: &str, value: &str) -> Option<CallRequest> {
        use serde_json::json;
        let (tool, input) = match surface {
            "Bash" => ("Bash", json!({ "command": value, "description": "d" })),
            "Read" | "Edit" | "Write" => (surface, probe_path_input(surface, value)),
            "WebFetch" => (
                "WebFetch",
                json!({ "url": format!("https://{value}/"), "prompt": "p" }),
            ),
            "Skill" => ("Skill", json!({ "skill": value })),
            "Agent" => (
                "Agent",
                json!({ "subagent_type": value, "description": "d", "prompt": "p" }),
            ),
            "WebSearch" => ("WebSearch", json!({ "query": value })),
            // Rules without a specifier, over tool names.
            "tools" => {
                let ok = !value.is_empty()
                    && value
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
                if !ok {
                    return None;
                }
                let input = match value {
                    "Bash" => json!({ "command": "true", "description": "d" }),
                    "Read" | "Edit" | "Write" => probe_path_input(value, "probe.txt"),
                    "WebFetch" => json!({ "url": "https://probe.test/", "prompt": "p" }),
                    _ => json!({}),
                };
                return Some(CallRequest {
                    tool: value.to_string(),
                    input,
                });
            }
            // A tool whose rules' contents the simulator reads nowhere: a
            // call of the tool (its whole-tool rules decide).
            _ => (surface, json!({})),
        };
        Some(CallRequest {
            tool: tool.to_string(),
            input,
        })
    }
}

impl History for Claude {
    fn log_reader(
        &self,
        record: &serde_json::Value,
    ) -> Option<Box<dyn crate::contract::history::LogReader>> {
        history::reader(record)
    }

    fn session_logs(&self, ctx: &Context<'_>) -> crate::contract::history::SessionLogs {
        history::session_logs(ctx)
    }

    fn suggestion_value(&self, call: &CallRequest) -> Option<(String, String, char)> {
        // Commands only: files inside the project are read without a rule.
        if call.tool != "Bash" {
            return None;
        }
        let v = call.input.get("command")?.as_str()?.trim();
        (!v.is_empty()).then(|| ("Bash".to_string(), v.to_string(), ' '))
    }

    fn suggestion_file(&self, ctx: &Context<'_>) -> Option<std::path::PathBuf> {
        // The settings file being edited, when it is one the CLI reads
        // (an allow takes effect in any of them); else the local settings,
        // where the CLI's own "always allow" writes.
        let home = scopes::home(ctx);
        if let Some(doc) = &ctx.document
            && scopes::source_of(doc, home.as_deref())
                .is_some_and(|(source, _)| source != scopes::Source::Managed)
        {
            return Some(doc.clone());
        }
        Some(ctx.cwd.join(".claude/settings.local.json"))
    }

    fn suggested_rule(
        &self,
        surface: &str,
        pattern: &str,
        action: &str,
    ) -> Option<crate::contract::history::RuleText> {
        let list = match action {
            "allow" | "ask" | "deny" => action,
            _ => return None,
        };
        let rule = format!("{surface}({pattern})");
        let item = serde_json::to_string(&rule).ok()?;
        Some(crate::contract::history::RuleText {
            path: vec!["permissions".into(), list.into()],
            display: format!("{item} in `permissions.{list}`"),
            item,
        })
    }
}

impl Editor for Claude {
    fn hover(
        &self,
        _role: Role,
        text: &str,
        analysis: &Analysis,
        offset: usize,
        ctx: &Context<'_>,
    ) -> Option<HoverInfo> {
        ide::hover::hover(text, analysis, offset, ctx)
    }

    fn completions(
        &self,
        _role: Role,
        text: &str,
        offset: usize,
        ctx: &Context<'_>,
        _snippets: bool,
    ) -> Vec<Item> {
        ide::completion::completions(text, offset, ctx)
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

/// The input of a file tool on `path`.
fn probe_path_input(tool: &str, path: &str) -> serde_json::Value {
    use serde_json::json;
    match tool {
        "Edit" => json!({ "file_path": path, "old_string": "a", "new_string": "b" }),
        "Write" => json!({ "file_path": path, "content": "" }),
        _ => json!({ "file_path": path }),
    }
}

/// A rule as a surface and a glob over the value it matches, for `diff`:
/// `Bash(npm run test:*)` → (`Bash`, `npm run test *`); `Read(./src/**)` →
/// (`Read`, `src/*`); `WebFetch(domain:x.com)` → (`WebFetch`, `x.com`); a
/// rule without a specifier → (`tools`, its tool name). The globs
/// approximate the gitignore and prefix forms; every difference `diff`
/// reports is decided by the simulator itself.
fn diff_glob(rule: &str, home: &str) -> Option<(String, String)> {
    let Some((tool, rest)) = rule.split_once('(') else {
        // A whole-tool rule decides every value of a tool that has them.
        return Some(match rule {
            "Bash" | "Read" | "Edit" | "Write" | "WebFetch" | "Skill" | "WebSearch" => {
                (rule.to_string(), "*".into())
            }
            "Agent" | "Task" => ("Agent".into(), "*".into()),
            _ => ("tools".into(), rule.to_string()),
        });
    };
    let content = rest.strip_suffix(')')?;
    // `Tool(*)` is the whole tool (the CLI lists it as `Tool`).
    if content == "*" {
        return diff_glob(tool, home);
    }
    let glob = match tool {
        "Bash" => match content.strip_suffix(":*") {
            Some(prefix) => format!("{prefix} *"),
            None => content.to_string(),
        },
        "Read" | "Edit" | "Write" => {
            let c = if let Some(abs) = content.strip_prefix("//") {
                format!("/{abs}")
            } else if let Some(rel) = content.strip_prefix("~/") {
                format!("{}/{rel}", home.trim_end_matches('/'))
            } else if let Some(rel) = content.strip_prefix("./") {
                rel.to_string()
            } else if let Some(rel) = content.strip_prefix('/') {
                rel.to_string()
            } else {
                content.to_string()
            };
            c.replace("**", "*")
        }
        "WebFetch" => content.strip_prefix("domain:")?.to_string(),
        _ => return None,
    };
    Some((tool.to_string(), glob))
}

/// What the file's Bash deny rules do not block (CC018), decided with
/// every settings file of the session when the document is one of them,
/// else with this file alone.
fn deny_spellings(
    text: &str,
    root: &crate::syntax::Node,
    ctx: Option<&Context<'_>>,
    out: &mut Vec<crate::core::diagnostic::Diagnostic>,
) {
    let Some(p) = lints::permissions_of(root) else {
        return;
    };
    let deny = lints::list_items(p, rules::List::Deny);
    let bash_content = |n: &crate::syntax::Node| {
        n.value
            .as_str()
            .is_some_and(|r| r.starts_with("Bash(") && r.len() > 6)
    };
    if !deny.iter().any(bash_content) {
        return;
    }
    let session = ctx.filter(|c| {
        c.document
            .as_deref()
            .is_some_and(|d| scopes::source_of(d, scopes::home(c).as_deref()).is_some())
    });
    let policy = match session {
        Some(c) => simulation::ClaudeSimulator::load(c).policy,
        None => {
            let cwd = std::path::Path::new("/project");
            engine::policy::Policy::single(
                text,
                root,
                &cwd.join(".claude/settings.json"),
                cwd,
                std::path::Path::new("/home/user"),
            )
        }
    };
    lints::spellings::deny_spellings(text, deny, &policy, out);
}

/// The file's findings (with the other settings files when there is a
/// context) at the configured levels, in document order (`apply`).
fn checked(
    text: &str,
    ctx: Option<&Context<'_>>,
    levels: &crate::core::levels::LintLevels,
) -> Analysis {
    let mut a = lints::analyse(text);
    if a.accepted
        && let Some(root) = a.root.as_ref()
    {
        deny_spellings(text, root, ctx, &mut a.diagnostics);
        if let Some(ctx) = ctx {
            scopes::cross_file(Some(root), ctx, &mut a.diagnostics);
        }
    }
    a.diagnostics = levels.apply(a.diagnostics);
    a
}
