//! Gemini CLI (`~/.gemini/policies/*.toml`, `policyPaths`, the system and
//! workspace policy folders, `~/.gemini/settings.json`,
//! `<project>/.gemini/settings.json`, the system settings,
//! `~/.gemini/trustedFolders.json`): policy rules and the settings keys
//! that become rules, read and decided as Gemini CLI 0.61.0 reads and
//! decides them. The floor plan:
//!
//! - `model`: a policy file (`toml_policy`), a settings file (`settings`),
//!   JavaScript regexes (`jsregex`), tool names;
//! - `engine/`: the session (`policy`, with the bundled default tier in
//!   `defaults`), command lines (`shell`), the shell heuristics and the
//!   decision;
//! - `lints`: the findings; `ide`: reports, hover, completion, outline.

pub mod codes;
pub mod engine;
pub mod ide;
pub mod lints;
pub mod model;

use crate::contract::report::EffectivePolicyReport;
use crate::contract::{
    Analysis, CallRequest, Check, Compare, Context, Describe, Editor, Explain, History, Locate,
    Role, SessionFile, SessionFiles, SessionOption, Simulate, Simulator,
};
use crate::core::diagnostic::{CodeInfo, Diagnostic};
use crate::core::profile::{RuntimeProfile, Version};
use crate::ide::code_actions::Action;
use crate::ide::items::{HoverInfo, Item};
use crate::ide::symbols::Symbol;
use engine::policy::{self, Policy, Scope};
use std::ops::Range;
use std::path::{Path, PathBuf};

/// The Gemini CLI format.
pub struct Gemini;

/// The CLI version whose behaviour was observed.
pub const VERSION: Version = Version(0, 61, 0);

fn segments(p: &str) -> Vec<String> {
    p.split(['/', '\\'])
        .flat_map(|s| s.split("__"))
        .map(|s| s.to_ascii_lowercase())
        .collect()
}

fn gemini_segment(s: &str) -> bool {
    matches!(s, ".gemini" | "gemini" | "dot_gemini" | "gemini-cli")
}

/// Is `path` a Gemini CLI policy file: a `.toml` in a policies folder
/// under a Gemini folder (`~/.gemini/policies/`, `/etc/gemini-cli/policies/`,
/// `<project>/.gemini/policies/`, or another folder whose name says
/// policies, as `policyPaths` names them: `.gemini/extra-policies/`)?
pub fn is_policy_path(path: &str) -> bool {
    let segs = segments(path);
    let n = segs.len();
    if n < 3 || !segs[n - 1].ends_with(".toml") {
        return false;
    }
    segs[..n - 1]
        .iter()
        .rposition(|s| gemini_segment(s))
        .is_some_and(|g| segs[g + 1..n - 1].iter().any(|s| s.contains("polic")))
}

/// Is `path` a Gemini CLI settings file?
pub fn is_settings_path(path: &str) -> bool {
    let segs = segments(path);
    let n = segs.len();
    n >= 2
        && (segs[n - 1] == "settings.json" || segs[n - 1] == "system-defaults.json")
        && gemini_segment(&segs[n - 2])
}

static OPTIONS: &[SessionOption] = &[
    SessionOption {
        flag: "approval-mode",
        aliases: &[],
        value_name: "MODE",
        help: "Gemini CLI's --approval-mode for the session (over general.defaultApprovalMode)",
        repeatable: false,
        arg: policy::MODE_ARG,
        setting: "approvalMode",
        values: &["default", "auto_edit", "yolo", "plan"],
        switch: false,
    },
    SessionOption {
        flag: "permission-mode",
        aliases: &[],
        value_name: "MODE",
        help: "the approval mode under the name other agents give it (--approval-mode wins)",
        repeatable: false,
        arg: policy::PERMISSION_MODE_ARG,
        setting: "permissionMode",
        values: &["default", "auto_edit", "yolo", "plan"],
        switch: false,
    },
    SessionOption {
        flag: "policy",
        aliases: &[],
        value_name: "PATH",
        help: "Gemini CLI: a --policy file or folder (repeatable; replaces ~/.gemini/policies)",
        repeatable: true,
        arg: policy::POLICY_ARG,
        setting: "policy",
        values: &[],
        switch: false,
    },
    SessionOption {
        flag: "headless",
        aliases: &[],
        value_name: "",
        help: "Gemini CLI: decide as `gemini -p` (no one to ask: what would ask is denied)",
        repeatable: false,
        arg: policy::HEADLESS_ARG,
        setting: "headless",
        values: &[],
        switch: true,
    },
];

impl Describe for Gemini {
    fn id(&self) -> &'static str {
        codes::FORMAT
    }

    fn display_name(&self) -> &'static str {
        "Gemini CLI"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["gemini-cli"]
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
        crate::core::profile::single_version(codes::FORMAT, "Gemini CLI", VERSION, version)
    }

    fn session_options(&self) -> &'static [SessionOption] {
        OPTIONS
    }

    fn session_env(&self) -> &'static [&'static str] {
        &[policy::SYSTEM_ENV, policy::DEFAULTS_ENV]
    }
}

/// The folder a document's session runs in: the folder holding its
/// `.gemini` (not the home's).
fn project_of(doc: &Path, home: &Path) -> Option<PathBuf> {
    let mut dir = doc.parent()?;
    if dir.file_name().is_some_and(|n| n == "policies") {
        dir = dir.parent()?;
    }
    if dir.file_name().is_some_and(|n| n == ".gemini") && dir.parent() != Some(home) {
        return dir.parent().map(Path::to_path_buf);
    }
    None
}

fn document_context<'a>(ctx: &Context<'a>) -> Context<'a> {
    let env = policy::Env::from_context(ctx);
    let cwd = match (&ctx.document, ctx.cwd_explicit) {
        (Some(d), false) => project_of(d, &env.home).unwrap_or_else(|| ctx.cwd.clone()),
        _ => ctx.cwd.clone(),
    };
    ctx.with(&crate::contract::Overrides {
        cwd: Some(cwd),
        ..Default::default()
    })
}

fn session(text: Option<&str>, ctx: &Context<'_>) -> Policy {
    let base = document_context(ctx);
    match (text, ctx.document.as_deref()) {
        (Some(t), Some(d)) => base.with_buffer(d, t, Policy::load),
        _ => Policy::load(&base),
    }
}

const ALONE_HOME: &str = "/nonexistent-permission-lsp/home";

/// A file judged alone: the user's policy file (or settings file) of an
/// otherwise empty, trusted session.
fn alone(text: &str, policy_file: bool) -> Policy {
    let home = PathBuf::from(ALONE_HOME);
    let target = if policy_file {
        home.join(".gemini/policies/policy.toml")
    } else {
        home.join(".gemini/settings.json")
    };
    let t2 = target.clone();
    let open = move |p: &Path| (p == t2.as_path()).then(|| text.to_string());
    let mut ctx = Context {
        options: crate::contract::AnalysisOptions::for_profile(Gemini.default_profile()),
        cwd: PathBuf::from("/nonexistent-permission-lsp/project"),
        cwd_explicit: true,
        agent_explicit: false,
        document: Some(target),
        global_config: None,
        open: &open,
    };
    ctx.options.home = ALONE_HOME.into();
    ctx.options.runtime_args.push((
        policy::SYSTEM_ENV.into(),
        "/nonexistent-permission-lsp/system.json".into(),
    ));
    ctx.options
        .runtime_args
        .push(("GEMINI_CLI_TRUST_WORKSPACE".into(), "true".into()));
    Policy::load(&ctx)
}

/// The session a document is read in, and the document's place in it:
/// where the CLI reads it, else (a file elsewhere, a dotfiles copy) the
/// only file of an otherwise empty session.
fn located(text: &str, ctx: Option<&Context<'_>>, policy_file: bool) -> (Policy, Option<usize>) {
    let doc = ctx.and_then(|c| c.document.clone());
    if let (Some(c), Some(d)) = (ctx, &doc) {
        let p = session(Some(text), c);
        let at = if policy_file {
            p.policies.iter().position(|f| &f.path == d)
        } else {
            p.settings.iter().position(|f| &f.path == d)
        };
        if at.is_some() {
            return (p, at);
        }
    }
    let a = alone(text, policy_file);
    let at = if policy_file {
        (!a.policies.is_empty()).then_some(0)
    } else {
        a.settings.iter().position(|f| f.scope == Scope::User)
    };
    (a, at)
}

fn checked(text: &str, ctx: Option<&Context<'_>>, policy_file: bool) -> Analysis {
    let (p, at) = located(text, ctx, policy_file);
    let mut diagnostics: Vec<Diagnostic> = Vec::new();
    let (root, accepted, outline) = if policy_file {
        let (accepted, outline) = match at {
            Some(i) => {
                lints::policy_findings(&p, i, &mut diagnostics);
                let d = &p.policies[i];
                (
                    d.not_loaded.is_none() && d.read.dropped().is_none(),
                    ide::symbols(&d.read.rules),
                )
            }
            None => (false, Vec::new()),
        };
        (None, accepted, outline)
    } else {
        let read = at
            .map(|i| p.settings[i].read.clone())
            .unwrap_or_else(|| model::settings::read(text));
        let scope = at.map(|i| p.settings[i].scope);
        lints::settings_findings(&p, scope, &read, &mut diagnostics);
        (read.root.clone(), read.error.is_none(), Vec::new())
    };
    crate::core::diagnostic::sort_by_place(&mut diagnostics);
    let levels = ctx.map(|c| c.options.levels.clone()).unwrap_or_default();
    Analysis {
        root,
        diagnostics: levels.apply(diagnostics),
        accepted,
        outline,
    }
}

fn is_policy_doc(ctx: &Context<'_>, text: &str) -> bool {
    match ctx.document.as_deref() {
        Some(d) => d.extension().is_some_and(|e| e == "toml"),
        None => !text.trim_start().starts_with('{'),
    }
}

impl Locate for Gemini {
    fn detect(&self, path: &str, _head: &str) -> Option<Role> {
        (is_policy_path(path) || is_settings_path(path)).then_some(Role::Config)
    }

    fn session_files(&self, ctx: &Context<'_>) -> SessionFiles {
        let p = Policy::load(&document_context(ctx));
        let show = |x: &Path| crate::contract::tilde(x, &p.env.home);
        let mut out = SessionFiles::default();
        out.looked_in
            .push(format!("{}/.gemini/settings.json", show(&p.env.home)));
        out.looked_in
            .push(format!("{}/.gemini/settings.json", show(&p.env.cwd)));
        out.looked_in
            .push(format!("{}/.gemini/policies/*.toml", show(&p.env.home)));
        out.looked_in
            .push("/etc/gemini-cli/settings.json and policies/*.toml".into());
        for f in &p.settings {
            out.present.push(SessionFile {
                path: f.path.clone(),
                role: Role::Config,
                scope: if f.applies || f.read.error.is_some() {
                    f.scope.name().into()
                } else {
                    format!("{} (not trusted)", f.scope.name())
                },
            });
        }
        for d in &p.policies {
            out.present.push(SessionFile {
                path: d.path.clone(),
                role: Role::Config,
                scope: match &d.not_loaded {
                    None => format!("{} policies", d.tier.name()),
                    Some(_) => format!("{} policies (not loaded)", d.tier.name()),
                },
            });
        }
        out
    }

    fn watch_globs(&self, ctx: &Context<'_>) -> (Vec<String>, Vec<(PathBuf, String)>) {
        let env = policy::Env::from_context(ctx);
        (
            vec![
                "**/.gemini/settings.json".into(),
                "**/.gemini/policies/*.toml".into(),
            ],
            vec![
                (env.home.join(".gemini"), "settings.json".into()),
                (env.home.join(".gemini"), "trustedFolders.json".into()),
                (env.home.join(".gemini/policies"), "*.toml".into()),
            ],
        )
    }
}

impl Check for Gemini {
    fn analyse(&self, _role: Role, text: &str, ctx: &Context<'_>) -> Analysis {
        checked(text, Some(ctx), is_policy_doc(ctx, text))
    }

    fn analyse_file(
        &self,
        _role: Role,
        bytes: Vec<u8>,
        _options: &crate::contract::AnalysisOptions,
        ctx: Option<&Context<'_>>,
    ) -> (String, Analysis) {
        let (text, _) = crate::contract::decode(bytes);
        let policy_file = match ctx {
            Some(c) => is_policy_doc(c, &text),
            None => !text.trim_start().starts_with('{'),
        };
        let a = checked(&text, ctx, policy_file);
        (text, a)
    }
}

impl Simulate for Gemini {
    fn parse_command_line(&self, line: &str) -> Option<CallRequest> {
        let line = line.trim();
        (!line.is_empty()).then(|| CallRequest {
            tool: "run_shell_command".into(),
            input: serde_json::json!({ "command": line }),
        })
    }

    fn sample_tools(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("run_shell_command", "command"),
            ("read_file", "file_path"),
            ("write_file", "file_path"),
            ("web_fetch", "prompt"),
        ]
    }

    fn check_tool(&self, tool: &str) -> Result<(), String> {
        if model::SIMULATED_TOOLS.contains(&tool)
            || model::parse_mcp(tool).is_some()
            || model::BUILTIN_TOOLS.contains(&tool)
        {
            Ok(())
        } else {
            Err(format!(
                "Gemini CLI 0.61.0 has no tool `{tool}`: use one of {} or an MCP tool `mcp_<server>_<tool>`",
                model::SIMULATED_TOOLS.join(", ")
            ))
        }
    }

    fn shell_tool(&self) -> &'static str {
        "run_shell_command"
    }

    fn load_simulator(&self, ctx: &Context<'_>) -> Result<Box<dyn Simulator>, String> {
        let mut policy = session(None, ctx);
        // A policy file outside the places the CLI reads (a dotfiles
        // repository's copy): decided as the user's only policy file, as
        // its findings are.
        if let Some(d) = ctx.document.as_deref()
            && d.extension().is_some_and(|e| e == "toml")
            && !policy.policies.iter().any(|f| f.path == d)
            && let Some(text) = (ctx.open)(d).or_else(|| crate::fsio::read_text(d, 8 << 20))
        {
            policy = alone(&text, true);
            policy.notes.push(format!(
                "{} is not where Gemini CLI reads policies: decided as the user's only policy file (~/.gemini/policies/), with no settings",
                d.display()
            ));
        }
        Ok(Box::new(ide::GeminiSimulator { policy }))
    }
}

impl Explain for Gemini {
    fn effective_policy(&self, ctx: &Context<'_>) -> Result<EffectivePolicyReport, String> {
        Ok(ide::effective(&session(None, ctx)))
    }
}

impl Compare for Gemini {
    /// The effective rules are in the engine's order (highest effective
    /// priority first, ties in reading order): the first match decides.
    fn diff_precedence(&self) -> crate::core::precedence::Precedence {
        crate::core::precedence::Precedence::FirstMatchWins
    }

    /// The shell heuristics (known-safe commands allowed, dangerous ones
    /// asked) run only after a rule without a command pattern.
    fn diff_decider_matters(&self) -> bool {
        true
    }

    /// Shell rules with a `commandPrefix` (the command, or it followed by
    /// a blank or a quote and anything: the prefix regex over the
    /// arguments' JSON) or none (every command). Rules with a regular
    /// expression, and rules of other tools or of a tool pattern, have no
    /// pattern here: where they change, `diff` says the comparison is
    /// incomplete.
    fn diff_pattern(
        &self,
        rule: &crate::contract::report::EffectiveRule,
        _home: &str,
    ) -> Option<(String, String, crate::core::pattern_algebra::Pattern)> {
        use crate::core::pattern_algebra::Pattern;
        if rule.surface != "run_shell_command" {
            return None;
        }
        let pattern = if rule.pattern == ide::EVERY_CALL {
            Pattern::from_parts(&["", ""])
        } else {
            let prefix = ide::prefix_of_display(&rule.pattern)?;
            Pattern::union(&[
                Pattern::from_parts(&[prefix]),
                Pattern::from_parts(&[&format!("{prefix} "), ""]),
                Pattern::from_parts(&[&format!("{prefix}\""), ""]),
            ])
        };
        Some((rule.surface.clone(), rule.pattern.clone(), pattern))
    }

    /// Where Gemini decides a command by itself: paths outside the
    /// project, a redirection (an allow asks), `git` in a folder not
    /// trusted.
    fn diff_hints(&self, surface: &str, home: &str) -> Vec<crate::core::pattern_algebra::Pattern> {
        use crate::core::pattern_algebra::Pattern;
        if surface != "run_shell_command" {
            return Vec::new();
        }
        let mut v = crate::core::pattern_algebra::path_hints(home, &["* /*", "* ~*", "* ../*"]);
        v.push(Pattern::from_parts(&["", ">", ""]));
        v.push(Pattern::from_parts(&["", "<", ""]));
        v.push(Pattern::from_parts(&["", "git", ""]));
        v
    }

    /// Where Gemini decides a command by its arguments (known safe and
    /// dangerous commands): compared by example.
    fn diff_example_hints(
        &self,
        surface: &str,
        _home: &str,
    ) -> Vec<crate::core::pattern_algebra::Pattern> {
        use crate::core::pattern_algebra::Pattern;
        if surface != "run_shell_command" {
            return Vec::new();
        }
        vec![Pattern::commands_named(
            &engine::heuristics::self_decided_commands(),
        )]
    }

    fn probe_call(&self, surface: &str, value: &str) -> Option<CallRequest> {
        (surface == "run_shell_command" && !value.trim().is_empty()).then(|| CallRequest {
            tool: "run_shell_command".into(),
            input: serde_json::json!({ "command": value }),
        })
    }
}

impl History for Gemini {}

impl Editor for Gemini {
    fn hover(
        &self,
        _role: Role,
        text: &str,
        _analysis: &Analysis,
        offset: usize,
        ctx: &Context<'_>,
    ) -> Option<HoverInfo> {
        if !is_policy_doc(ctx, text) {
            return None;
        }
        // The session only: hover needs no findings.
        let (p, at) = located(text, Some(ctx), true);
        let rules = at
            .map(|i| p.policies[i].read.rules.clone())
            .unwrap_or_default();
        ide::hover(&p, at, &rules, offset)
    }

    fn completions(
        &self,
        _role: Role,
        text: &str,
        offset: usize,
        ctx: &Context<'_>,
        _snippets: bool,
    ) -> Vec<Item> {
        if !is_policy_doc(ctx, text) {
            return Vec::new();
        }
        ide::completions(text, offset)
    }

    fn symbols(&self, _role: Role, analysis: &Analysis) -> Vec<Symbol> {
        analysis.outline.clone()
    }

    fn lens_anchor(&self, _role: Role, analysis: &Analysis) -> Option<Range<usize>> {
        analysis
            .outline
            .first()
            .map(|s| s.selection.clone())
            .or_else(|| analysis.root.as_ref().map(|r| r.range.start..r.range.start))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `diff` reads a `commandPrefix` rule as the commands the engine's
    /// prefix regex matches in the call's arguments.
    #[test]
    fn the_diff_reads_command_prefixes_as_the_engine() {
        let commands = [
            "git",
            "git x",
            "gitx",
            "git\"x",
            "git\tx",
            "git\nx",
            "git  x",
            "npm run",
            "npm runx",
            "npm run test",
            "npm",
            " git",
            "x git",
        ];
        for prefix in ["git", "npm run"] {
            let rule = crate::contract::report::EffectiveRule {
                index: 0,
                surface: "run_shell_command".into(),
                pattern: format!("commandPrefix \"{prefix}\""),
                action: "allow".into(),
                reason: None,
                layer: serde_json::Value::Null,
                scope: "user".into(),
                place: crate::contract::report::RulePlace {
                    file: None,
                    line: None,
                    column: None,
                },
            };
            let (_, _, pattern) = Gemini.diff_pattern(&rule, "/h").expect("a prefix rule");
            let engine = model::jsregex::JsRegex::command_prefix(prefix);
            for c in commands {
                let args = serde_json::json!({ "command": c }).to_string();
                assert_eq!(
                    pattern.is_match(c),
                    engine.test(&args).unwrap(),
                    "prefix {prefix:?} command {c:?}"
                );
            }
        }
    }
}
