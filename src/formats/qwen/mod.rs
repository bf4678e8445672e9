//! Qwen Code (`~/.qwen/settings.json`, `<project>/.qwen/settings.json`,
//! the system settings files, `~/.qwen/trustedFolders.json`): the
//! `permissions` lists and the legacy `tools.*` keys, read and decided as
//! Qwen Code 0.24.4 reads and decides them. The rules are written in
//! Claude Code's grammar but matched by Qwen's own permission manager, so
//! nothing here is shared with the Claude Code format beyond the JSONC
//! reader and the bash grammar: Qwen's rule parser, its splitting of
//! compound commands, its `shell-quote` re-tokenizing, its read-only
//! classifier and its path anchors all differ. The floor plan:
//!
//! - `model`: one settings file, and a rule's text as Qwen parses it;
//! - `engine/`: the session (`policy`), the command-line readings
//!   (`shell`), the read-only classifier (`readonly`, `sed_awk`), a
//!   command's file and network access (`ops`), matching and the decision;
//! - `lints`: the findings; `ide`: hover, completion, outline, reports.

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

/// The Qwen Code format.
pub struct Qwen;

/// The CLI version whose behaviour was observed.
pub const VERSION: Version = Version(0, 24, 4);

fn has_qwen_segment(p: &str) -> bool {
    p.split(['/', '\\']).flat_map(|s| s.split("__")).any(|seg| {
        let s = seg.to_ascii_lowercase();
        s == ".qwen" || s == "qwen" || s == "qwen-code" || s == "dot_qwen"
    })
}

/// Is `path` a Qwen Code settings file?
pub fn is_settings_path(path: &str) -> bool {
    let p = path.replace('\\', "/");
    let name = p.rsplit('/').next().unwrap_or(&p);
    let name = name.rsplit("__").next().unwrap_or(name);
    (name == "settings.json" || name == "system-defaults.json") && has_qwen_segment(&p)
}

static OPTIONS: &[SessionOption] = &[
    SessionOption {
        flag: "approval-mode",
        aliases: &[],
        value_name: "MODE",
        help: "Qwen Code's --approval-mode for the session (over tools.approvalMode)",
        repeatable: false,
        arg: policy::MODE_ARG,
        setting: "approvalMode",
        values: &["default", "plan", "auto-edit", "yolo", "auto"],
        switch: false,
    },
    // The mode under the name other agents give it (`--permission-mode
    // yolo`); `--approval-mode` wins.
    SessionOption {
        flag: "permission-mode",
        aliases: &[],
        value_name: "MODE",
        help: "the approval mode under the name other agents give it (--approval-mode wins)",
        repeatable: false,
        arg: policy::PERMISSION_MODE_ARG,
        setting: "permissionMode",
        values: &["default", "plan", "auto-edit", "yolo", "auto"],
        switch: false,
    },
];

impl Describe for Qwen {
    fn id(&self) -> &'static str {
        codes::FORMAT
    }

    fn display_name(&self) -> &'static str {
        "Qwen Code"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["qwen-code"]
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
        crate::core::profile::single_version(codes::FORMAT, "Qwen Code", VERSION, version)
    }

    fn session_options(&self) -> &'static [SessionOption] {
        OPTIONS
    }

    fn session_env(&self) -> &'static [&'static str] {
        &[policy::SYSTEM_ENV, policy::DEFAULTS_ENV]
    }
}

/// The folder a document's session runs in: the folder holding its
/// `.qwen` (not the home's).
fn project_of(doc: &Path, home: &Path) -> Option<PathBuf> {
    let parent = doc.parent()?;
    if parent.file_name().is_some_and(|n| n == ".qwen") && parent.parent() != Some(home) {
        return parent.parent().map(Path::to_path_buf);
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

fn session(text: Option<&str>, ctx: &Context<'_>) -> (Policy, Option<usize>) {
    let base = document_context(ctx);
    let doc = ctx.document.clone();
    let p = match (text, doc.as_deref()) {
        (Some(t), Some(d)) => base.with_buffer(d, t, Policy::load),
        _ => Policy::load(&base),
    };
    let at = doc
        .as_deref()
        .and_then(|d| p.files.iter().position(|f| f.path == d));
    (p, at)
}

/// The policy of a file judged alone: it is the project's only file.
fn alone(text: &str) -> Policy {
    let root = PathBuf::from("/nonexistent-permission-lsp/project");
    let ctx = Context {
        options: crate::contract::AnalysisOptions::for_profile(Qwen.default_profile()),
        cwd: root.clone(),
        cwd_explicit: true,
        agent_explicit: false,
        document: None,
        global_config: Some(PathBuf::from(
            "/nonexistent-permission-lsp/home/.qwen/settings.json",
        )),
        open: &|p: &Path| {
            (p == Path::new("/nonexistent-permission-lsp/project/.qwen/settings.json"))
                .then(|| text.to_string())
        },
    };
    let mut ctx = ctx;
    ctx.options.home = "/nonexistent-permission-lsp/home".into();
    ctx.options.runtime_args.push((
        policy::SYSTEM_ENV.into(),
        "/nonexistent-permission-lsp/system.json".into(),
    ));
    ctx.options.runtime_args.push((
        policy::DEFAULTS_ENV.into(),
        "/nonexistent-permission-lsp/defaults.json".into(),
    ));
    Policy::load(&ctx)
}

fn checked(text: &str, ctx: Option<&Context<'_>>) -> Analysis {
    checked_with(text, ctx, true)
}

/// The session a file is judged in, and the file's place in it (`None`:
/// judged as a project file that is not part of it).
fn judged_in(text: &str, ctx: Option<&Context<'_>>) -> (Policy, Option<usize>) {
    let (policy, at) = match ctx {
        Some(c) => session(Some(text), c),
        None => (alone(text), None),
    };
    let (policy, at) = match at {
        Some(i) => (policy, Some(i)),
        // A file the session does not read here: judged as a project file.
        None => {
            let p = alone(text);
            let i = p.files.iter().position(|f| f.scope == Scope::Project);
            (p, i)
        }
    };
    (policy, at)
}

/// The session's reading of the file at `at` (not copied: at 10 MB it holds
/// hundreds of thousands of rule strings), or this text's own.
fn read_of<'p>(
    policy: &'p Policy,
    at: Option<usize>,
    text: &str,
) -> std::borrow::Cow<'p, model::SettingsFile> {
    match at {
        Some(i) => std::borrow::Cow::Borrowed(&policy.files[i].read),
        None => std::borrow::Cow::Owned(model::read(text)),
    }
}

/// [`checked`], with the JSON tree only when `tree` (the settings are read
/// without one; the tree is a second parse, for the editor).
fn checked_with(text: &str, ctx: Option<&Context<'_>>, tree: bool) -> Analysis {
    let (policy, at) = judged_in(text, ctx);
    let read = read_of(&policy, at, text);
    let mut diagnostics: Vec<Diagnostic> = Vec::new();
    lints::findings(&policy, at, text, &read, &mut diagnostics);
    crate::core::diagnostic::sort_by_place(&mut diagnostics);
    let root = tree
        .then(|| crate::syntax::json::parse(&crate::syntax::strip::strip_json_comments(text)).root)
        .flatten();
    let levels = ctx.map(|c| c.options.levels.clone()).unwrap_or_default();
    Analysis {
        root,
        diagnostics: levels.apply(diagnostics),
        accepted: read.parsed,
        outline: Vec::new(),
    }
}

impl Locate for Qwen {
    fn detect(&self, path: &str, _head: &str) -> Option<Role> {
        is_settings_path(path).then_some(Role::Config)
    }

    fn session_files(&self, ctx: &Context<'_>) -> SessionFiles {
        let p = Policy::load(&document_context(ctx));
        let show = |x: &Path| crate::contract::tilde(x, &p.env.home);
        let mut out = SessionFiles::default();
        out.looked_in
            .push(format!("{}/.qwen/settings.json", show(&p.env.home)));
        out.looked_in
            .push(format!("{}/.qwen/settings.json", show(&p.env.cwd)));
        out.looked_in
            .push("/etc/qwen-code/settings.json and system-defaults.json".into());
        for f in &p.files {
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
        out
    }

    fn watch_globs(&self, ctx: &Context<'_>) -> (Vec<String>, Vec<(PathBuf, String)>) {
        let env = policy::Env::from_context(ctx);
        (
            vec!["**/.qwen/settings.json".into()],
            vec![
                (env.home.join(".qwen"), "settings.json".into()),
                (env.home.join(".qwen"), "trustedFolders.json".into()),
            ],
        )
    }
}

impl Check for Qwen {
    fn analyse(&self, _role: Role, text: &str, ctx: &Context<'_>) -> Analysis {
        checked(text, Some(ctx))
    }

    fn analyse_file(
        &self,
        _role: Role,
        bytes: Vec<u8>,
        _options: &crate::contract::AnalysisOptions,
        ctx: Option<&Context<'_>>,
    ) -> (String, Analysis) {
        let (text, _) = crate::contract::decode(bytes);
        let a = checked(&text, ctx);
        (text, a)
    }

    fn findings_of_file(
        &self,
        _role: Role,
        bytes: Vec<u8>,
        _options: &crate::contract::AnalysisOptions,
        ctx: Option<&Context<'_>>,
    ) -> (String, Vec<Diagnostic>) {
        let (text, _) = crate::contract::decode(bytes);
        let a = checked_with(&text, ctx, false);
        (text, a.diagnostics)
    }

    fn findings_of_file_in_order(
        &self,
        _role: Role,
        bytes: Vec<u8>,
        _options: &crate::contract::AnalysisOptions,
        ctx: Option<&Context<'_>>,
        sink: &mut dyn FnMut(&str, Vec<Diagnostic>),
    ) {
        let (text, _) = crate::contract::decode(bytes);
        let (policy, at) = judged_in(&text, ctx);
        let read = read_of(&policy, at, &text);
        let levels = ctx.map(|c| c.options.levels.clone()).unwrap_or_default();
        lints::findings_in_order(&policy, at, &text, &read, &levels, &mut |ds| {
            sink(&text, ds)
        });
    }
}

impl Simulate for Qwen {
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
            ("web_fetch", "url"),
        ]
    }

    fn check_tool(&self, tool: &str) -> Result<(), String> {
        let c = model::canonical(tool);
        if engine::decide::TOOLS.contains(&c) || c.starts_with("mcp__") {
            Ok(())
        } else {
            Err(format!(
                "Qwen Code has no tool `{tool}` this simulation decides: use one of {} or an MCP tool `mcp__<server>__<tool>`",
                engine::decide::TOOLS.join(", ")
            ))
        }
    }

    fn shell_tool(&self) -> &'static str {
        "run_shell_command"
    }

    fn load_simulator(&self, ctx: &Context<'_>) -> Result<Box<dyn Simulator>, String> {
        Ok(Box::new(ide::QwenSimulator {
            policy: session(None, ctx).0,
        }))
    }
}

impl Explain for Qwen {
    fn effective_policy(&self, ctx: &Context<'_>) -> Result<EffectivePolicyReport, String> {
        Ok(ide::effective(&session(None, ctx).0))
    }
}

impl Compare for Qwen {
    fn diff_precedence(&self) -> crate::core::precedence::Precedence {
        crate::core::precedence::Precedence::DenyAskAllow
    }

    /// Shell rules: the commands their pattern matches (as Qwen re-reads
    /// a command before matching). Rules of other tools, and a pattern
    /// with more than six ` *`, have none here: where they change, `diff`
    /// says the comparison is incomplete.
    fn diff_pattern(
        &self,
        rule: &crate::contract::report::EffectiveRule,
        _home: &str,
    ) -> Option<(String, String, crate::core::pattern_algebra::Pattern)> {
        let r = model::parse_rule(&rule.pattern);
        if r.invalid || r.tool != "run_shell_command" {
            return None;
        }
        let pattern = match r.specifier.as_deref() {
            None | Some("") => crate::core::pattern_algebra::Pattern::from_parts(&["", ""]),
            Some(spec) if r.kind == Some(model::Kind::Command) => engine::matching::algebra(spec)?,
            Some(_) => return None,
        };
        Some(("run_shell_command".into(), rule.pattern.clone(), pattern))
    }

    /// Where Qwen decides a command by itself: paths outside the project
    /// reach the file rules.
    fn diff_hints(&self, surface: &str, home: &str) -> Vec<crate::core::pattern_algebra::Pattern> {
        if surface != "run_shell_command" {
            return Vec::new();
        }
        crate::core::pattern_algebra::path_hints(home, &["* /*", "* ~*", "* ../*"])
    }

    /// Qwen's read-only classifier reads a command's arguments (`git
    /// branch` is read-only, `git branch x` is not; an output option, an
    /// expansion): commands it may call read-only are compared by example.
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
            &engine::readonly::read_only_prefixes(),
        )]
    }

    fn probe_call(&self, surface: &str, value: &str) -> Option<CallRequest> {
        (surface == "run_shell_command" && !value.trim().is_empty()).then(|| CallRequest {
            tool: "run_shell_command".into(),
            input: serde_json::json!({ "command": value }),
        })
    }
}

impl History for Qwen {}

impl Editor for Qwen {
    fn hover(
        &self,
        _role: Role,
        text: &str,
        analysis: &Analysis,
        offset: usize,
        ctx: &Context<'_>,
    ) -> Option<HoverInfo> {
        let (policy, _) = session(Some(text), ctx);
        ide::hover(analysis, offset, &policy)
    }

    fn completions(
        &self,
        _role: Role,
        text: &str,
        offset: usize,
        ctx: &Context<'_>,
        _snippets: bool,
    ) -> Vec<Item> {
        let a = checked(text, Some(ctx));
        ide::completions(text, &a, offset)
    }

    fn symbols(&self, _role: Role, analysis: &Analysis) -> Vec<Symbol> {
        ide::symbols(analysis)
    }

    fn lens_anchor(&self, _role: Role, analysis: &Analysis) -> Option<Range<usize>> {
        ide::lens_anchor(analysis)
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
