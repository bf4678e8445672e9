//! pi-permission-system (`@gotgenes/pi-permission-system`): its model,
//! runtime versions, engine, lints, file locations and editor answers.

pub mod approval_log;
pub mod codes;
pub mod effective;
pub mod engine;
pub mod history;
pub mod ide;
pub mod lints;
pub mod model;
pub mod scopes;

use crate::contract::Context;
use crate::contract::report::{EffectivePolicyReport, SimulationReport};
use crate::contract::{
    Analysis, CallRequest, Check, Compare, Describe, Editor, Explain, History, Locate, Role,
    Simulate, Simulator,
};
use crate::core::diagnostic::CodeInfo;
use crate::core::profile::RuntimeProfile;
use crate::ide::code_actions::Action;
use crate::ide::items::{HoverInfo, Item};
use crate::ide::symbols::Symbol;
use crate::syntax::Node;
use model::locations::{FileRole, role_of_path};
use std::ops::Range;

/// The pi-permission-system format.
pub struct Pi;

/// The key that holds the policy in config and agent files.
const POLICY_KEY: &str = "permission";

/// How surely a JSON document is a pi-permission-system config: top-level
/// keys only its config has, `permission` surfaces only it knows, and deny
/// objects with an `action`.
pub fn content_score(root: &Node) -> u32 {
    let Some(members) = root.value.as_object() else {
        return 0;
    };
    let mut score = 0;
    for m in members {
        match m.key.as_str() {
            "$schema" => {}
            "permission" => {
                if let Some(p) = m.value.value.as_object() {
                    score += 1;
                    for pm in p {
                        if matches!(pm.key.as_str(), "write" | "find" | "ls" | "mcp" | "path") {
                            score += 2;
                        }
                        let has_action = |v: &crate::syntax::Value| {
                            v.as_object()
                                .is_some_and(|o| o.iter().any(|x| x.key == "action"))
                        };
                        if has_action(&pm.value.value)
                            || pm
                                .value
                                .value
                                .as_object()
                                .is_some_and(|o| o.iter().any(|x| has_action(&x.value.value)))
                        {
                            score += 3;
                        }
                    }
                }
            }
            k if model::versions::KEYS.iter().any(|s| s.key == k) => score += 3,
            _ => {}
        }
    }
    score
}

impl Describe for Pi {
    fn id(&self) -> &'static str {
        codes::FORMAT
    }

    fn display_name(&self) -> &'static str {
        "pi-permission-system"
    }

    fn codes(&self) -> &'static [CodeInfo] {
        codes::INFOS
    }

    fn default_profile(&self) -> RuntimeProfile {
        // `auto`: the installed version, else the lowest version that
        // accepts every key of the file, else the exact profile.
        RuntimeProfile {
            format: codes::FORMAT,
            version: model::versions::DEFAULT_TARGET,
            auto: true,
        }
    }

    fn session_options(&self) -> &'static [crate::contract::SessionOption] {
        &[crate::contract::SessionOption {
            flag: "agent-dir",
            aliases: &[],
            value_name: "DIR",
            help: "pi-permission-system: the agent directory (default: $PI_CODING_AGENT_DIR, else ~/.pi/agent)",
            repeatable: false,
            arg: scopes::AGENT_DIR,
            setting: "agentDir",
            values: &[],
            switch: false,
        }]
    }

    fn profile(&self, version: &str) -> Result<RuntimeProfile, String> {
        if version.trim() == "auto" {
            return Ok(self.default_profile());
        }
        let version = model::versions::Version::parse(version)
            .ok_or_else(|| format!("`{version}` is not a version like 20.7.3, or `auto`"))?;
        Ok(RuntimeProfile {
            format: codes::FORMAT,
            version,
            auto: false,
        })
    }

    fn versions_side_by_side(&self) -> Vec<(String, String)> {
        [
            "20.7.3", "21.0.0", "22.0.0", "23.0.0", "25.0.0", "25.2.1", "25.2.2", "26.3.1",
            "27.1.0", "30.1.0", "32.0.1", "40.1.4",
        ]
        .into_iter()
        .map(|v| {
            let version = crate::core::profile::Version::parse(v).expect("a version");
            (v.to_string(), basis(version))
        })
        .collect()
    }

    fn installed_version(
        &self,
        options: &crate::contract::AnalysisOptions,
    ) -> Option<(model::versions::Version, String)> {
        scopes::installed_version(options)
    }
}

impl Locate for Pi {
    fn detect(&self, path: &str, head: &str) -> Option<Role> {
        if let Some(role) = role_of_path(path) {
            return Some(match role {
                FileRole::GlobalConfig | FileRole::ProjectConfig => Role::Config,
                FileRole::GlobalAgent | FileRole::ProjectAgent => Role::Agent,
            });
        }
        ((path.ends_with(".json") || path.ends_with(".jsonc"))
            && head.contains("$schema")
            && head.contains("pi-permission-system"))
        .then_some(Role::Config)
    }

    fn content_score(&self, root: &Node) -> u32 {
        content_score(root)
    }

    fn session_files(&self, ctx: &Context<'_>) -> crate::contract::SessionFiles {
        let loc = scopes::locations(ctx);
        let show = |p: &std::path::Path| crate::contract::tilde(p, &loc.home);
        let mut out = crate::contract::SessionFiles::default();
        let add = |path: std::path::PathBuf,
                   role: Role,
                   scope: &str,
                   out: &mut crate::contract::SessionFiles| {
            out.looked_in.push(show(&path));
            if path.is_file() && !out.present.iter().any(|f| f.path == path) {
                out.present.push(crate::contract::SessionFile {
                    path,
                    role,
                    scope: scope.to_string(),
                });
            }
        };
        add(loc.global_config_path(), Role::Config, "global", &mut out);
        add(loc.project_config_path(), Role::Config, "project", &mut out);
        // Every agent's files (a session reads the active agent's).
        let dirs = [
            (loc.agent_dir.join("agents"), "global agent"),
            (loc.cwd.join(".pi").join("agents"), "project agent"),
        ];
        for (dir, scope) in dirs {
            out.looked_in.push(format!("{}/*.md", show(&dir)));
            let mut names: Vec<std::path::PathBuf> = crate::fsio::read_dir(&dir)
                .into_iter()
                .flatten()
                .flatten()
                .take(10_000)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "md") && p.is_file())
                .collect();
            names.sort();
            for path in names {
                if !out.present.iter().any(|f| f.path == path) {
                    out.present.push(crate::contract::SessionFile {
                        path,
                        role: Role::Agent,
                        scope: scope.to_string(),
                    });
                }
            }
        }
        if let Ok(Some((global, project))) = loc.agent_paths() {
            add(global, Role::Agent, "global agent", &mut out);
            add(project, Role::Agent, "project agent", &mut out);
        }
        out
    }

    fn watch_globs(&self, ctx: &Context<'_>) -> (Vec<String>, Vec<(std::path::PathBuf, String)>) {
        let anywhere = [
            "**/.pi/extensions/pi-permission-system/config.json",
            "**/.pi/agents/*.md",
            "**/extensions/pi-permission-system/config.json",
            "**/agents/*.md",
            "**/mcp.json",
        ];
        let agent_dir = scopes::locations(ctx).agent_dir;
        let relative = [
            "extensions/pi-permission-system/config.json",
            "agents/*.md",
            "mcp.json",
        ];
        (
            anywhere.iter().map(|s| s.to_string()).collect(),
            relative
                .iter()
                .map(|p| (agent_dir.clone(), p.to_string()))
                .collect(),
        )
    }
}

impl Check for Pi {
    fn analyse(&self, role: Role, text: &str, ctx: &Context<'_>) -> Analysis {
        analysed(role, text, ctx, true)
    }

    fn findings_of_file(
        &self,
        role: Role,
        bytes: Vec<u8>,
        options: &crate::contract::AnalysisOptions,
        ctx: Option<&Context<'_>>,
    ) -> (String, Vec<crate::core::diagnostic::Diagnostic>) {
        let (text, a) = analysed_file(role, bytes, options, ctx, false);
        (text, a.diagnostics)
    }

    fn analyse_file(
        &self,
        role: Role,
        bytes: Vec<u8>,
        options: &crate::contract::AnalysisOptions,
        ctx: Option<&Context<'_>>,
    ) -> (String, Analysis) {
        analysed_file(role, bytes, options, ctx, true)
    }
}

/// A file's analysis from its bytes: with every scope (`tree`: with its
/// JSON tree, which only the editor reads), or alone when there is no
/// context or the bytes are not UTF-8.
fn analysed_file(
    role: Role,
    bytes: Vec<u8>,
    options: &crate::contract::AnalysisOptions,
    ctx: Option<&Context<'_>>,
    tree: bool,
) -> (String, Analysis) {
    let (text, invalid) = crate::contract::decode(bytes);
    if let (Some(ctx), None) = (ctx, invalid) {
        let a = analysed(role, &text, ctx, tree);
        return (text, a);
    }
    match role {
        Role::Agent => {
            let diagnostics = lints::agent_file::analyze_agent_in_scopes(&text, options, None);
            (
                text,
                Analysis {
                    root: None,
                    diagnostics,
                    accepted: true,
                    outline: Vec::new(),
                },
            )
        }
        Role::Config | Role::Rules => {
            let (text, a) = lints::analyze_config_decoded(text, invalid, options);
            (text, a.into())
        }
    }
}

/// A document's analysis with every scope (`tree`: with its JSON tree,
/// which only the editor reads).
fn analysed(role: Role, text: &str, ctx: &Context<'_>, tree: bool) -> Analysis {
    let mut a = scopes::analyse_scope_file_with(role == Role::Agent, text, ctx, tree);
    // A rejected project file is ignored up to 20.x and fails closed
    // from 21.0: the finding says where that changes.
    let project = ctx
        .document
        .as_deref()
        .and_then(|d| role_of_path(&d.to_string_lossy()))
        == Some(FileRole::ProjectConfig);
    if role == Role::Config && project {
        for d in &mut a.diagnostics {
            if d.message.ends_with(lints::WHOLE_FILE_DROPPED) {
                d.message = d
                    .message
                    .replace(lints::WHOLE_FILE_DROPPED, lints::PROJECT_FILE_REJECTED);
            }
        }
    }
    a
}

impl Simulate for Pi {
    fn parse_command_line(&self, line: &str) -> Option<CallRequest> {
        ide::sample_call::parse_command_line(line).map(|(tool, input)| CallRequest { tool, input })
    }

    fn sample_tools(&self) -> &'static [(&'static str, &'static str)] {
        &[("bash", "command"), ("read", "path")]
    }

    fn shell_tool(&self) -> &'static str {
        "bash"
    }

    fn load_simulator(&self, ctx: &Context<'_>) -> Result<Box<dyn Simulator>, String> {
        let (loc, inputs, loaded) = scopes::load(ctx)?;
        Ok(Box::new(PiSimulator {
            loc,
            inputs,
            loaded,
        }))
    }

    /// The runtime gates a call in order and stops at the first gate that
    /// does not allow it (an approved ask goes on to the next): its log
    /// records that gate's state.
    fn decision_as_logged(&self, report: &SimulationReport) -> crate::core::decision::Decision {
        use crate::core::decision::Decision;
        if report.tool_hidden {
            return report.outcome();
        }
        let first = report
            .details
            .get("gates")
            .and_then(serde_json::Value::as_array)
            .and_then(|gates| {
                gates
                    .iter()
                    .filter_map(|g| g.get("state").and_then(serde_json::Value::as_str))
                    .find(|s| *s != "allow")
            });
        Decision::parse(first.unwrap_or(&report.decision)).unwrap_or(Decision::Ask)
    }
}

impl Explain for Pi {
    fn effective_policy(&self, ctx: &Context<'_>) -> Result<EffectivePolicyReport, String> {
        let (loc, inputs, loaded) = scopes::load(ctx)?;
        Ok(effective::effective_policy(
            &inputs,
            &loaded,
            loc.agent.as_deref(),
        ))
    }
}

impl Compare for Pi {
    /// The session without an agent (`-`), then every agent file's agent
    /// (global and project `agents/*.md`): an agent file changes only its
    /// agent's policy.
    fn diff_agents(&self, ctx: &Context<'_>) -> Vec<String> {
        let loc = scopes::locations(ctx);
        let mut names: Vec<String> = Vec::new();
        for dir in [
            model::locations::global_agent_path(&loc.agent_dir, "x"),
            model::locations::project_agent_path(&loc.cwd, "x"),
        ]
        .iter()
        .filter_map(|p| p.parent())
        {
            let Ok(rd) = crate::fsio::read_dir(dir) else {
                continue;
            };
            for e in rd.flatten().take(1_000) {
                let p = e.path();
                if p.extension().is_some_and(|x| x == "md")
                    && let Some(stem) = p.file_stem().and_then(|s| s.to_str())
                    && scopes::valid_agent_name(stem).is_ok()
                    && !names.iter().any(|n| n == stem)
                {
                    names.push(stem.to_string());
                }
            }
        }
        if names.is_empty() {
            return Vec::new();
        }
        names.sort();
        names.insert(0, crate::contract::NO_AGENT.to_string());
        names
    }

    fn diff_pattern(
        &self,
        rule: &crate::contract::report::EffectiveRule,
        home: &str,
    ) -> Option<(String, String, crate::core::pattern_algebra::Pattern)> {
        Some((
            rule.surface.clone(),
            rule.pattern.clone(),
            engine::wildcard::algebra_pattern(&rule.pattern, home),
        ))
    }

    fn diff_hints(&self, surface: &str, home: &str) -> Vec<crate::core::pattern_algebra::Pattern> {
        let path = |extra: &[&str]| crate::core::pattern_algebra::path_hints(home, extra);
        match surface {
            // A command's path arguments reach the folder and path gates.
            "bash" => path(&["* /*", "* ~*", "* ../*"]),
            "read" | "write" | "edit" | "grep" | "find" | "ls" | "path" | "external_directory" => {
                path(&[])
            }
            _ => Vec::new(),
        }
    }

    fn probe_call(&self, surface: &str, value: &str) -> Option<CallRequest> {
        use serde_json::json;
        let (tool, input) = match surface {
            "bash" => ("bash", json!({ "command": value })),
            "read" | "write" | "edit" | "grep" | "find" | "ls" => {
                (surface, json!({ "path": value }))
            }
            // Path rules and folder rules gate every file tool: read stands
            // for them.
            "path" | "external_directory" => ("read", json!({ "path": value })),
            "mcp" => ("mcp", json!({ "tool": value })),
            "skill" | "skills" => ("skill", json!({ "name": value })),
            // The catch-all over tool names: a tool of that name.
            "*" => {
                let ok = !value.is_empty()
                    && value
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
                return ok.then(|| CallRequest {
                    tool: value.to_string(),
                    input: json!({}),
                });
            }
            // A tool-level rule of another tool: its name decides.
            other => (other, json!({})),
        };
        Some(CallRequest {
            tool: tool.to_string(),
            input,
        })
    }
}

impl History for Pi {
    fn log_reader(
        &self,
        record: &serde_json::Value,
    ) -> Option<Box<dyn crate::contract::history::LogReader>> {
        history::reader(record).or_else(|| approval_log::reader(record))
    }

    fn session_logs(&self, ctx: &Context<'_>) -> crate::contract::history::SessionLogs {
        history::session_logs(&scopes::locations(ctx).agent_dir)
    }

    fn suggestion_value(&self, call: &CallRequest) -> Option<(String, String, char)> {
        let (field, sep) = match call.tool.as_str() {
            "bash" => ("command", ' '),
            "read" | "write" | "edit" => ("path", '/'),
            _ => return None,
        };
        let v = call.input.get(field)?.as_str()?.trim();
        (!v.is_empty()).then(|| (call.tool.clone(), v.to_string(), sep))
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

impl Editor for Pi {
    fn hover(
        &self,
        role: Role,
        text: &str,
        analysis: &Analysis,
        offset: usize,
        ctx: &Context<'_>,
    ) -> Option<HoverInfo> {
        let home = &ctx.options.home;
        if role == Role::Agent {
            // What the rule under the cursor does (offsets in the
            // CRLF-folded text the runtime parses).
            let folded = offset - text[..offset].matches("\r\n").count();
            let surfaces = model::agent::agent_permission(text)?;
            let cfg = model::PiConfig {
                permission: Some(surfaces),
                ..Default::default()
            };
            return ide::hover::precedence(&cfg, folded, home).map(|markdown| HoverInfo {
                range: None,
                markdown,
            });
        }
        let root = analysis.root.as_ref()?;
        let version = ctx.options.profile.version;
        let mut info = ide::hover::hover(root, offset, version)?;
        if version > crate::core::profile::Version(26, 3, 1) {
            info.markdown.push_str(&format!(
                "\n\n*pi-permission-system {version}: {}.*",
                basis(version)
            ));
        }
        // What the rule decides needs the config the runtime uses.
        let precedence = analysis
            .accepted
            .then(|| ide::hover::precedence(&model::PiConfig::from_validated(root), offset, home))
            .flatten();
        if let Some(more) = precedence {
            info.markdown.push_str("\n\n---\n\n");
            info.markdown.push_str(&more);
            if let Some(scopes) = scope_hover(root, offset, ctx) {
                info.markdown.push_str("\n\n");
                info.markdown.push_str(&scopes);
            }
        }
        Some(info)
    }

    fn completions(
        &self,
        role: Role,
        text: &str,
        offset: usize,
        ctx: &Context<'_>,
        snippets: bool,
    ) -> Vec<Item> {
        if role != Role::Config {
            return Vec::new();
        }
        let servers = scopes::mcp_server_names(&scopes::locations(ctx));
        ide::completion::completions(
            text,
            offset,
            ctx.options.profile.version,
            &servers,
            snippets,
        )
    }

    fn symbols(&self, role: Role, analysis: &Analysis) -> Vec<Symbol> {
        match (role, &analysis.root) {
            (Role::Config, Some(root)) => crate::ide::symbols::document_symbols(root, POLICY_KEY),
            _ => Vec::new(),
        }
    }

    fn lens_anchor(&self, role: Role, analysis: &Analysis) -> Option<Range<usize>> {
        if role != Role::Config {
            return None;
        }
        let root = analysis.root.as_ref()?;
        root.value
            .as_object()?
            .iter()
            .find(|m| m.key == POLICY_KEY)
            .map(|m| m.key_range.clone())
    }

    fn assists(
        &self,
        _role: Role,
        text: &str,
        analysis: &Analysis,
        at: Range<usize>,
    ) -> Vec<Action> {
        match &analysis.root {
            Some(root) => ide::rewrites::rewrites(text, root, at.start),
            None => Vec::new(),
        }
    }
}

/// The documented changes after 26.3.1 the simulator models, by release.
const MODELLED_AFTER_26_3_1: &[(crate::core::profile::Version, &str)] = {
    use crate::core::profile::Version;
    &[
        (
            Version(27, 1, 0),
            "directional path surfaces and wrappers running a pure reader (27.1)",
        ),
        (
            Version(30, 1, 0),
            "tool hiding only when every rule of the tool denies (30.1)",
        ),
        (
            Version(32, 0, 1),
            "a deny refusing before an earlier gate asks (32.0.1)",
        ),
        (
            Version(33, 0, 0),
            "MCP last match and servers of prefix-named tools (33.0)",
        ),
        (
            Version(34, 0, 0),
            "redirect targets reaching the path rules before they exist (34.0)",
        ),
        (
            Version(39, 0, 0),
            "the infrastructure read bypass narrowed to pi's harness entries, outranked by a targeted deny (39.0)",
        ),
        (
            Version(39, 1, 0),
            "execution modifiers decided as the command they run (39.1)",
        ),
        (
            Version(40, 0, 0),
            "commands also matched in the absolute spelling of their path arguments (40.0)",
        ),
    ]
};

/// The documented changes after 26.3.1 that are not modelled.
const NOT_MODELLED_AFTER_26_3_1: &[(crate::core::profile::Version, &str)] = {
    use crate::core::profile::Version;
    &[
        (
            Version(30, 0, 0),
            "session approvals per pattern surface and direction (30.0)",
        ),
        (Version(38, 0, 0), "Pi's built-in MCP tools (38.0)"),
        (
            Version(39, 0, 3),
            "home-prefixed command rules matching other home spellings (39.0.3)",
        ),
        (
            Version(40, 1, 0),
            "the option grammars of sudo, env, xargs and doas (40.1)",
        ),
    ]
};

/// How the answers for `version` are known: observed on a real runtime,
/// or read from the changelog (verified on the 26.3.1 sources up to 26.3.1;
/// documented and not verified after it — each modelled change is named,
/// and so is each one that is not).
pub fn basis(version: crate::core::profile::Version) -> String {
    use crate::core::profile::Version;
    if version == Version(20, 7, 3) {
        return "observed on the 20.7.3 runtime".into();
    }
    if version == Version(26, 3, 1) {
        return "observed on the 26.3.1 sources".into();
    }
    if version < Version(26, 3, 1) {
        return "the changelog's changes up to this release, verified on the 26.3.1 sources".into();
    }
    let upto = |list: &[(Version, &str)]| -> Vec<String> {
        list.iter()
            .filter(|(v, _)| *v <= version)
            .map(|(_, what)| what.to_string())
            .collect()
    };
    let (modelled, missing) = (upto(MODELLED_AFTER_26_3_1), upto(NOT_MODELLED_AFTER_26_3_1));
    let mut out = if modelled.is_empty() {
        "decisions as 26.3.1: the changes after it up to this release are documented, not verified, and not modelled".to_string()
    } else {
        format!(
            "decisions as 26.3.1 plus the documented changes (documented, not verified): {}",
            modelled.join(", ")
        )
    };
    if !missing.is_empty() {
        out.push_str(&format!("; not modelled: {}", missing.join(", ")));
    }
    out
}

/// pi's policy, loaded once for many calls.
struct PiSimulator {
    loc: scopes::Locations,
    inputs: engine::policy::PolicyInputs,
    loaded: engine::policy::LoadedPolicy,
}

impl Simulator for PiSimulator {
    fn simulate(&self, call: &CallRequest) -> SimulationReport {
        let call = engine::gates::Call {
            tool: call.tool.clone(),
            input: call.input.clone(),
            agent: self.loc.agent.clone(),
            cwd: self.loc.cwd.display().to_string(),
        };
        let sim = self.loaded.policy.simulate(&call, &engine::paths::RealFs);
        ide::simulation::to_report(&call, &sim, &self.loaded, &self.inputs)
    }
}

/// What the other scope files say about the rule under the cursor.
fn scope_hover(root: &crate::syntax::Node, offset: usize, ctx: &Context<'_>) -> Option<String> {
    let at = crate::ide::locate::locate(root, offset)?;
    let (surface, pattern) = match at.path.as_slice() {
        [p, s] if p == POLICY_KEY && at.node.value.as_str().is_some() => {
            (s.clone(), "*".to_string())
        }
        [p, s, pat, ..] if p == POLICY_KEY => (s.clone(), pat.clone()),
        _ => return None,
    };
    let (inputs, loaded, doc) = scopes::scope_context(ctx)?;
    if !inputs.has_other_than(&doc) {
        return None;
    }
    effective::scope_hover(&inputs, &loaded, &doc, &surface, &pattern)
}
