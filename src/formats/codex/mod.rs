//! Codex CLI (`$CODEX_HOME/config.toml`, `$CODEX_HOME/rules/*.rules`, a
//! project's `.codex/config.toml` and `.codex/rules/*.rules`): the
//! execpolicy rules and the approval settings read as Codex 0.169.0 reads
//! them. What the CLI was seen to do is recorded in
//! `tests/fixtures/codex/`. The folder has the floor plan of every format:
//!
//! - `model/`: one file as Codex reads it (`rules`: Starlark evaluated
//!   with Codex's builtins; `config`: TOML);
//! - `engine/`: the session's files and policy (`policy`), which rules
//!   match an argv (`matching`), how a `bash -lc` script is split
//!   (`split`), and a call decided (`decide`);
//! - `lints/`: the findings;
//! - `ide/`: hover, completion, symbols and the simulation report.

pub mod codes;
pub mod engine;
pub mod history;
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

/// The Codex CLI format.
pub struct Codex;

/// The CLI version whose behaviour was observed.
pub const VERSION: Version = Version(0, 169, 0);

fn has_codex_segment(p: &str) -> bool {
    p.split('/').any(|seg| {
        let s = seg.to_ascii_lowercase();
        s == ".codex" || s == "codex" || s == "dot_codex" || s.contains("codex__")
    })
}

/// Is `path` a Codex rules file (`….codex/rules/x.rules`, or a `.rules`
/// file in a folder named for Codex)?
pub fn is_rules_path(path: &str) -> bool {
    let p = path.replace('\\', "/");
    p.ends_with(".rules") && has_codex_segment(&p)
}

/// Is `path` a managed `requirements.toml` of Codex?
pub fn is_requirements_path(path: Option<&str>) -> bool {
    path.is_some_and(|p| {
        let p = p.replace('\\', "/");
        p.ends_with("requirements.toml") && (p.starts_with("/etc/codex/") || has_codex_segment(&p))
    })
}

fn text_path(ctx: Option<&Context<'_>>) -> Option<String> {
    ctx.and_then(|c| c.document.as_ref())
        .map(|d| d.display().to_string())
}

/// Is `path` a Codex `config.toml` (in a folder named for Codex)?
pub fn is_config_path(path: &str) -> bool {
    let p = path.replace('\\', "/");
    let name = p.rsplit('/').next().unwrap_or(&p);
    // `config.toml`, profiles' `x.config.toml`, dotfile managers' names
    // (`private_config.toml`, `dot_codex__config.toml`).
    name.ends_with("config.toml") && has_codex_segment(&p)
}

static OPTIONS: &[SessionOption] = &[
    SessionOption {
        flag: "ask-for-approval",
        aliases: &["approval-policy"],
        value_name: "POLICY",
        help: "Codex's --ask-for-approval for the session (over config.toml)",
        repeatable: false,
        arg: policy::APPROVAL_ARG,
        setting: "askForApproval",
        values: &["untrusted", "on-failure", "on-request", "never"],
        switch: false,
    },
    SessionOption {
        flag: "profile",
        aliases: &[],
        value_name: "NAME",
        help: "Codex's --profile: $CODEX_HOME/NAME.config.toml over config.toml",
        repeatable: false,
        arg: policy::PROFILE_ARG,
        setting: "profile",
        values: &[],
        switch: false,
    },
    SessionOption {
        flag: "requirements",
        aliases: &[],
        value_name: "FILE",
        help: "A managed requirements.toml to apply (default: /etc/codex/requirements.toml when present)",
        repeatable: false,
        arg: policy::REQUIREMENTS_ARG,
        setting: "requirements",
        values: &[],
        switch: false,
    },
    SessionOption {
        flag: "sandbox",
        aliases: &[],
        value_name: "MODE",
        help: "Codex's --sandbox for the session (over config.toml)",
        repeatable: false,
        arg: policy::SANDBOX_ARG,
        setting: "sandbox",
        values: &["read-only", "workspace-write", "danger-full-access"],
        switch: false,
    },
];

impl Describe for Codex {
    fn id(&self) -> &'static str {
        codes::FORMAT
    }

    fn display_name(&self) -> &'static str {
        "Codex CLI"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["codex-cli"]
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
        crate::core::profile::single_version(codes::FORMAT, "Codex CLI", VERSION, version)
    }

    fn session_options(&self) -> &'static [SessionOption] {
        OPTIONS
    }

    fn session_env(&self) -> &'static [&'static str] {
        &["CODEX_HOME"]
    }
}

/// The folder a document's session runs in, when the document says it:
/// the folder holding a project's `.codex`.
fn project_of(doc: &Path, codex_home: &Path) -> Option<PathBuf> {
    if doc.starts_with(codex_home) {
        return None;
    }
    doc.ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == ".codex"))
        .and_then(Path::parent)
        .map(Path::to_path_buf)
}

fn document_context<'a>(ctx: &Context<'a>) -> Context<'a> {
    let env = policy::Env::from_context(ctx);
    let cwd = match (&ctx.document, ctx.cwd_explicit) {
        (Some(d), false) => project_of(d, &env.codex_home).unwrap_or_else(|| ctx.cwd.clone()),
        _ => ctx.cwd.clone(),
    };
    ctx.with(&crate::contract::Overrides {
        cwd: Some(cwd),
        ..Default::default()
    })
}

/// The session of `ctx` with `text` as the document's content, and the
/// document's place in it.
fn session(text: Option<&str>, ctx: &Context<'_>) -> (Policy, Place) {
    let base = document_context(ctx);
    let doc = ctx.document.clone();
    let p = match (text, doc.as_deref()) {
        (Some(t), Some(d)) => base.with_buffer(d, t, Policy::load),
        _ => Policy::load(&base),
    };
    let place = match doc.as_deref() {
        Some(d) => {
            if let Some(i) = p.rules_files.iter().position(|f| f.path == d) {
                Place::Rules(i)
            } else if let Some(i) = p.configs.iter().position(|f| f.path == d) {
                Place::Config(i)
            } else if p.untrusted_files.iter().any(|f| f == d) {
                Place::Untrusted
            } else {
                Place::Outside
            }
        }
        None => Place::Outside,
    };
    (p, place)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Rules(usize),
    Config(usize),
    /// A project file Codex does not read (the project is not trusted).
    Untrusted,
    /// Not a file of the session: judged on its own.
    Outside,
}

/// An empty session (no files): for a file judged alone.
fn detached() -> Policy {
    let ctx = Context {
        options: crate::contract::AnalysisOptions::for_profile(Codex.default_profile()),
        cwd: PathBuf::from("/nonexistent-permission-lsp/project"),
        cwd_explicit: true,
        agent_explicit: false,
        document: None,
        global_config: None,
        open: &crate::contract::context::no_buffers,
    };
    let mut ctx = ctx;
    ctx.options.home = "/nonexistent-permission-lsp/home".into();
    ctx.options.runtime_args.push((
        "CODEX_HOME".into(),
        "/nonexistent-permission-lsp/home/.codex".into(),
    ));
    Policy::load(&ctx)
}

fn checked(role: Role, text: &str, ctx: Option<&Context<'_>>) -> Analysis {
    let (policy, place) = match ctx {
        Some(c) => session(Some(text), c),
        None => (detached(), Place::Outside),
    };
    let mut diagnostics: Vec<Diagnostic> = Vec::new();
    let accepted;
    // The outline from the file as read here (no second evaluation).
    let outline;
    match role {
        Role::Rules => {
            let own;
            let (doc, file) = match place {
                Place::Rules(i) => (Some(i), &policy.rules_files[i].read),
                _ => {
                    let mut hosts = policy.hosts.clone();
                    own = model::rules::read(text, &mut hosts);
                    (None, &own)
                }
            };
            accepted = file.loaded();
            outline = ide::rule_symbols(file);
            if place == Place::Untrusted {
                let end = text.find('\n').unwrap_or(text.len());
                diagnostics.push(Diagnostic::new(
                    codes::Code::ProjectNotTrusted,
                    0..end,
                    lints::untrusted_message(&policy),
                ));
            }
            lints::rules_findings(
                &policy,
                doc,
                place != Place::Untrusted,
                text,
                file,
                &mut diagnostics,
            );
        }
        Role::Config | Role::Agent if is_requirements_path(text_path(ctx).as_deref()) => {
            let r = model::requirements::read(text);
            accepted = r.refusals.is_empty();
            outline = ide::key_symbols(&r.keys);
            for x in &r.refusals {
                diagnostics.push(Diagnostic::new(
                    codes::Code::ConfigRefused,
                    x.range.clone(),
                    format!(
                        "Codex refuses these requirements and no session starts: {}",
                        x.message
                    ),
                ));
            }
        }
        Role::Config | Role::Agent => {
            let own;
            let file = match place {
                Place::Config(i) => &policy.configs[i].read,
                _ => {
                    own = model::config::read(text);
                    &own
                }
            };
            accepted = file.accepted();
            outline = ide::key_symbols(&file.keys);
            let is_project = match place {
                Place::Config(i) => policy.configs[i].scope == Scope::Project,
                Place::Untrusted => true,
                _ => false,
            };
            lints::config_findings(&policy, is_project, text, file, &mut diagnostics);
        }
    }
    crate::core::diagnostic::sort_by_place(&mut diagnostics);
    let levels = ctx.map(|c| c.options.levels.clone()).unwrap_or_default();
    Analysis {
        root: None,
        diagnostics: levels.apply(diagnostics),
        accepted,
        outline,
    }
}

impl Locate for Codex {
    fn detect(&self, path: &str, _head: &str) -> Option<Role> {
        if is_rules_path(path) {
            Some(Role::Rules)
        } else if is_config_path(path) || is_requirements_path(Some(path)) {
            Some(Role::Config)
        } else {
            None
        }
    }

    fn session_files(&self, ctx: &Context<'_>) -> SessionFiles {
        let p = Policy::load(&document_context(ctx));
        let show = |x: &Path| crate::contract::tilde(x, &p.env.home);
        let mut out = SessionFiles::default();
        out.looked_in.push(format!(
            "{}/{{config.toml,rules/*.rules}}",
            show(&p.env.codex_home)
        ));
        out.looked_in.push(format!(
            "{}/.codex/{{config.toml,rules/*.rules}} (read when the project is trusted)",
            show(&p.env.root)
        ));
        for c in &p.configs {
            out.present.push(SessionFile {
                path: c.path.clone(),
                role: Role::Config,
                scope: c.scope.name().into(),
            });
        }
        for f in &p.rules_files {
            out.present.push(SessionFile {
                path: f.path.clone(),
                role: Role::Rules,
                scope: f.scope.name().into(),
            });
        }
        for f in &p.untrusted_files {
            out.present.push(SessionFile {
                path: f.clone(),
                role: if f.extension().is_some_and(|x| x == "rules") {
                    Role::Rules
                } else {
                    Role::Config
                },
                scope: "project (not trusted)".into(),
            });
        }
        out
    }

    fn watch_globs(&self, ctx: &Context<'_>) -> (Vec<String>, Vec<(PathBuf, String)>) {
        let env = policy::Env::from_context(ctx);
        (
            [
                "**/.codex/config.toml",
                "**/.codex/rules/*.rules",
                "**/.git",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect(),
            vec![
                (env.codex_home.clone(), "config.toml".into()),
                (env.codex_home, "rules/*.rules".into()),
            ],
        )
    }
}

impl Check for Codex {
    fn analyse(&self, role: Role, text: &str, ctx: &Context<'_>) -> Analysis {
        checked(role, text, Some(ctx))
    }

    fn analyse_file(
        &self,
        role: Role,
        bytes: Vec<u8>,
        _options: &crate::contract::AnalysisOptions,
        ctx: Option<&Context<'_>>,
    ) -> (String, Analysis) {
        // Codex reads files as UTF-8 and fails on anything else: a rules
        // file with invalid bytes does not load.
        let (text, invalid) = crate::contract::decode(bytes);
        let mut a = checked(role, &text, ctx);
        if let Some(start) = invalid {
            a.diagnostics.insert(
                0,
                Diagnostic::new(
                    if role == Role::Rules {
                        codes::Code::RulesFileNotLoaded
                    } else {
                        codes::Code::ConfigRefused
                    },
                    start..(start + 3).min(text.len()),
                    "the file is not valid UTF-8: Codex cannot read it".into(),
                ),
            );
            a.accepted = false;
        }
        (text, a)
    }
}

impl Simulate for Codex {
    fn parse_command_line(&self, line: &str) -> Option<CallRequest> {
        let line = line.trim();
        (!line.is_empty()).then(|| CallRequest {
            tool: "shell".into(),
            input: serde_json::json!({ "command": line }),
        })
    }

    fn sample_tools(&self) -> &'static [(&'static str, &'static str)] {
        &[("shell", "command")]
    }

    fn check_tool(&self, tool: &str) -> Result<(), String> {
        if ide::simulation::TOOLS.contains(&tool) {
            Ok(())
        } else {
            Err(format!(
                "Codex has no tool `{tool}` that rules decide: use `shell` (the command line Codex runs as `/bin/bash -lc`)"
            ))
        }
    }

    fn shell_tool(&self) -> &'static str {
        "shell"
    }

    fn load_simulator(&self, ctx: &Context<'_>) -> Result<Box<dyn Simulator>, String> {
        Ok(Box::new(ide::simulation::CodexSimulator {
            policy: session(None, ctx).0,
        }))
    }
}

impl Explain for Codex {
    fn effective_policy(&self, ctx: &Context<'_>) -> Result<EffectivePolicyReport, String> {
        Ok(ide::simulation::effective(&session(None, ctx).0))
    }
}

impl Compare for Codex {
    /// Every matching rule counts, the strictest wins.
    fn diff_precedence(&self) -> crate::core::precedence::Precedence {
        crate::core::precedence::Precedence::DenyAskAllow
    }

    /// A rule's command lines: its tokens (each alternative) and anything
    /// after them (` *` also the bare prefix), as the shared glob algebra
    /// reads them. A token with `*` or `?` widens the region (the
    /// simulators decide each example exactly).
    fn diff_pattern(
        &self,
        rule: &crate::contract::report::EffectiveRule,
        _home: &str,
    ) -> Option<(String, String, crate::core::pattern_algebra::Pattern)> {
        let tokens = ide::simulation::tokens_of_display(&rule.pattern)?;
        let mut lines: Vec<String> = vec![String::new()];
        for alts in &tokens {
            if lines.len() * alts.len() > 64 {
                for l in &mut lines {
                    l.push_str(if l.is_empty() { "*" } else { " *" });
                }
                continue;
            }
            lines = lines
                .iter()
                .flat_map(|l| {
                    alts.iter().map(move |a| {
                        if l.is_empty() {
                            a.clone()
                        } else {
                            format!("{l} {a}")
                        }
                    })
                })
                .collect();
        }
        let pats: Vec<crate::core::pattern_algebra::Pattern> = lines
            .iter()
            .map(|l| crate::core::pattern_algebra::Pattern::from_expanded(&format!("{l} *")))
            .collect();
        Some((
            "shell".into(),
            rule.pattern.clone(),
            crate::core::pattern_algebra::Pattern::union(&pats),
        ))
    }

    /// Where Codex decides by itself: forced `rm`s (also behind `sudo`
    /// and `env`).
    fn diff_hints(&self, surface: &str, _home: &str) -> Vec<crate::core::pattern_algebra::Pattern> {
        if surface != "shell" {
            return Vec::new();
        }
        ["rm -f *", "rm -rf *", "sudo rm -rf *", "env rm -rf *"]
            .iter()
            .map(|p| crate::core::pattern_algebra::Pattern::from_expanded(p))
            .collect()
    }

    fn probe_call(&self, surface: &str, value: &str) -> Option<CallRequest> {
        (surface == "shell" && !value.trim().is_empty()).then(|| CallRequest {
            tool: "shell".into(),
            input: serde_json::json!({ "command": value }),
        })
    }
}

impl History for Codex {
    fn log_reader(
        &self,
        record: &serde_json::Value,
    ) -> Option<Box<dyn crate::contract::history::LogReader>> {
        history::reader(record)
    }

    fn session_logs(&self, ctx: &Context<'_>) -> crate::contract::history::SessionLogs {
        let env = engine::policy::Env::from_context(ctx);
        history::session_logs(&env.codex_home, &ctx.cwd)
    }
}

impl Editor for Codex {
    fn hover(
        &self,
        role: Role,
        text: &str,
        _analysis: &Analysis,
        offset: usize,
        ctx: &Context<'_>,
    ) -> Option<HoverInfo> {
        let (policy, place) = session(Some(text), ctx);
        let doc = match place {
            Place::Rules(i) => Some(i),
            _ => None,
        };
        ide::hover(role, text, offset, &policy, doc)
    }

    fn completions(
        &self,
        role: Role,
        text: &str,
        offset: usize,
        _ctx: &Context<'_>,
        _snippets: bool,
    ) -> Vec<Item> {
        ide::completions(role, text, offset)
    }

    fn symbols(&self, _role: Role, analysis: &Analysis) -> Vec<Symbol> {
        analysis.outline.clone()
    }

    fn lens_anchor(&self, _role: Role, analysis: &Analysis) -> Option<Range<usize>> {
        analysis.outline.first().map(|s| s.selection.clone())
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
