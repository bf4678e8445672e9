//! A Codex session's policy: the files it reads (`$CODEX_HOME/config.toml`
//! and `$CODEX_HOME/rules/*.rules`; the project's `.codex/config.toml` and
//! `.codex/rules/*.rules` only when the project — keyed on its git root —
//! is trusted), read in that order through one rules parser (one file
//! that fails drops every custom rule), and the approval policy and
//! sandbox they set.

use crate::contract::Context;
use crate::formats::codex::model::config::{self, Approval, ConfigFile};
use crate::formats::codex::model::requirements::{self, Requirements};
use crate::formats::codex::model::rules::{self, HostTable, PrefixRule, RulesFile};
use std::path::{Path, PathBuf};

/// Where a file sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    User,
    Project,
    /// The managed `requirements.toml`.
    Managed,
}

impl Scope {
    pub fn name(self) -> &'static str {
        match self {
            Scope::User => "user",
            Scope::Project => "project",
            Scope::Managed => "managed",
        }
    }
}

/// The session option that sets the approval policy (`-a`, `--ask-for-approval`).
pub const APPROVAL_ARG: &str = "ask-for-approval";
/// The session option that sets the sandbox (`-s`, `--sandbox`).
pub const SANDBOX_ARG: &str = "sandbox";
/// The session option that layers a profile (`-p`, `--profile NAME`:
/// `$CODEX_HOME/NAME.config.toml` over the user's config.toml, as the
/// CLI's help documents it; not verified: the app-server the oracle drives
/// takes no profile).
pub const PROFILE_ARG: &str = "profile";
/// The session option naming the managed requirements file to apply
/// (default: `/etc/codex/requirements.toml` when it exists) — to check a
/// file before it is deployed.
pub const REQUIREMENTS_ARG: &str = "requirements";

/// The places of a session.
#[derive(Debug, Clone)]
pub struct Env {
    pub home: PathBuf,
    /// `$CODEX_HOME`, else `~/.codex`.
    pub codex_home: PathBuf,
    pub cwd: PathBuf,
    /// The project's root: the git root of `cwd`, else `cwd`.
    pub root: PathBuf,
}

impl Env {
    pub fn from_context(ctx: &Context<'_>) -> Env {
        let home = ctx.options.home_dir();
        let codex_home = ctx
            .options
            .runtime_arg("CODEX_HOME")
            .map(str::to_string)
            .or_else(|| std::env::var("CODEX_HOME").ok())
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| home.join(".codex"));
        let cwd = ctx.cwd.clone();
        let root = crate::fsio::git_root(&cwd)
            .map(Path::to_path_buf)
            .unwrap_or_else(|| cwd.clone());
        Env {
            home,
            codex_home,
            cwd,
            root,
        }
    }

    /// The project's `.codex` folders, from the root down to `cwd` (not
    /// the user's own `$CODEX_HOME`).
    pub fn project_dirs(&self) -> Vec<PathBuf> {
        let mut dirs: Vec<PathBuf> = self
            .cwd
            .ancestors()
            .take_while(|a| a.starts_with(&self.root))
            .map(|a| a.join(".codex"))
            .filter(|d| *d != self.codex_home)
            .collect();
        dirs.reverse();
        dirs
    }
}

/// One file of the session, read.
#[derive(Debug, Clone)]
pub struct Source<T> {
    pub path: PathBuf,
    pub scope: Scope,
    pub text: String,
    pub read: T,
}

/// A loaded rule and the rules file it comes from.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub rule: PrefixRule,
    /// Index into `Policy::rules_files`.
    pub file: usize,
}

/// Where the approval policy comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum ApprovalFrom {
    Default,
    /// A project marked `trust_level = "untrusted"`.
    UntrustedProject,
    File(PathBuf),
    Option,
}

#[derive(Debug, Clone)]
pub struct Policy {
    pub env: Env,
    pub configs: Vec<Source<ConfigFile>>,
    /// The rules files read, in load order.
    pub rules_files: Vec<Source<RulesFile>>,
    /// Project files Codex does not read: the project is not trusted.
    pub untrusted_files: Vec<PathBuf>,
    /// The project's trust in the user's config (`None`: no entry).
    pub trust: Option<bool>,
    /// Codex reads the project's files: trusted, or no entry and a
    /// sandbox that is not read-only.
    pub project_read: bool,
    pub approval: Approval,
    pub approval_from: ApprovalFrom,
    pub sandbox: String,
    /// The rules file whose error dropped every custom rule.
    pub dropped_by: Option<usize>,
    /// The custom rules in effect (none when a file failed), then the
    /// managed requirements' rules (which stay).
    pub rules: Vec<Loaded>,
    /// The managed `requirements.toml`, when there is one.
    pub requirements: Option<Source<Requirements>>,
    /// What the requirements changed: (setting, configured, required).
    pub constrained: Vec<(&'static str, String, String)>,
    pub hosts: HostTable,
}

/// The largest config or rules file read.
pub const MAX_FILE_BYTES: u64 = 4 << 20;

fn read_text(ctx: &Context<'_>, path: &Path) -> Option<String> {
    (ctx.open)(path).or_else(|| crate::fsio::read_text(path, MAX_FILE_BYTES))
}

/// The `*.rules` files directly in `dir`, by name (other names and
/// subfolders are ignored, as Codex ignores them).
pub fn rules_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(rd) = crate::fsio::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = rd
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "rules") && p.is_file())
        .take(1000)
        .collect();
    out.sort();
    out
}

/// The name of an approval policy as the requirements list it.
fn approval_name(a: Approval) -> &'static str {
    match a {
        Approval::OnRequest => "on-request",
        Approval::OnFailure => "on-failure",
        Approval::Never => "never",
        Approval::Untrusted => "untrusted",
        Approval::Granular { .. } => "granular",
    }
}

/// The sandbox a `default_permissions` value names.
fn sandbox_of_permissions(p: &str) -> String {
    match p {
        ":danger-full-access" => "danger-full-access".into(),
        ":read-only" => "read-only".into(),
        ":workspace" => "workspace-write".into(),
        other => format!("[permissions.{other}]"),
    }
}

impl Policy {
    /// The session of `ctx`, its open buffers standing in for files.
    pub fn load(ctx: &Context<'_>) -> Policy {
        let env = Env::from_context(ctx);
        let mut configs = Vec::new();
        let user_config = env.codex_home.join("config.toml");
        if let Some(text) = read_text(ctx, &user_config) {
            configs.push(Source {
                read: config::read(&text),
                path: user_config,
                scope: Scope::User,
                text,
            });
        }
        if let Some(name) = ctx
            .options
            .runtime_arg(PROFILE_ARG)
            .filter(|n| !n.is_empty())
        {
            let path = env.codex_home.join(format!("{name}.config.toml"));
            let text = read_text(ctx, &path);
            configs.push(Source {
                read: match &text {
                    Some(t) => config::read(t),
                    None => config::ConfigFile {
                        refusals: vec![config::Refusal {
                            key: String::new(),
                            message: format!("profile `{name}` not found: no {}", path.display()),
                            range: 0..0,
                            fix: None,
                        }],
                        ..Default::default()
                    },
                },
                path,
                scope: Scope::User,
                text: text.unwrap_or_default(),
            });
        }
        let req_path = ctx
            .options
            .runtime_arg(REQUIREMENTS_ARG)
            .filter(|p| !p.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(requirements::PATH));
        let requirements = read_text(ctx, &req_path).map(|text| Source {
            read: requirements::read(&text),
            path: req_path,
            scope: Scope::Managed,
            text,
        });
        let root_key = env.root.display().to_string();
        let trust = configs
            .first()
            .and_then(|c| c.read.trust_of(&root_key))
            .or_else(|| {
                let canon = crate::fsio::real_path(&env.root)?;
                configs
                    .first()
                    .and_then(|c| c.read.trust_of(&canon.display().to_string()))
            });
        // Observed: a project without a trust entry is read as trusted when
        // the user's sandbox is not read-only (`workspace-write`,
        // `danger-full-access`, `:workspace`, or `--sandbox`), although
        // Codex still prints its "disabled until trusted" warning; with
        // `trust_level = "untrusted"` it never is.
        let user_sandbox = ctx
            .options
            .runtime_arg(SANDBOX_ARG)
            .map(str::to_string)
            .or_else(|| {
                configs.iter().rev().find_map(|c| {
                    c.read.sandbox.as_ref().map(|(s, _)| s.clone()).or_else(|| {
                        c.read
                            .default_permissions
                            .as_ref()
                            .map(|(p, _)| sandbox_of_permissions(p))
                    })
                })
            });
        let trusted = trust == Some(true)
            || (trust.is_none() && user_sandbox.as_deref().is_some_and(|s| s != "read-only"));
        let mut untrusted_files = Vec::new();
        let mut rule_paths: Vec<(PathBuf, Scope)> = rules_in(&env.codex_home.join("rules"))
            .into_iter()
            .map(|p| (p, Scope::User))
            .collect();
        for dir in env.project_dirs() {
            let cfg = dir.join("config.toml");
            let project_rules = rules_in(&dir.join("rules"));
            if trusted {
                if let Some(text) = read_text(ctx, &cfg) {
                    configs.push(Source {
                        read: config::read(&text),
                        path: cfg,
                        scope: Scope::Project,
                        text,
                    });
                }
                rule_paths.extend(project_rules.into_iter().map(|p| (p, Scope::Project)));
            } else {
                if crate::fsio::is_file(&cfg) {
                    untrusted_files.push(cfg);
                }
                untrusted_files.extend(project_rules);
            }
        }
        let mut hosts: HostTable = Vec::new();
        let mut rules_files = Vec::new();
        let mut dropped_by = None;
        for (path, scope) in rule_paths {
            let text = read_text(ctx, &path).unwrap_or_default();
            // Codex stops at the first file that fails.
            if dropped_by.is_some() {
                rules_files.push(Source {
                    read: RulesFile::default(),
                    path,
                    scope,
                    text,
                });
                continue;
            }
            let read = rules::read(&text, &mut hosts);
            if !read.loaded() {
                dropped_by = Some(rules_files.len());
            }
            rules_files.push(Source {
                read,
                path,
                scope,
                text,
            });
        }
        let mut rules: Vec<Loaded> = if dropped_by.is_some() {
            hosts.clear();
            Vec::new()
        } else {
            rules_files
                .iter()
                .enumerate()
                .flat_map(|(i, f)| {
                    f.read.rules.iter().map(move |r| Loaded {
                        rule: r.clone(),
                        file: i,
                    })
                })
                .collect()
        };
        // The requirements' rules join every session's (observed: they
        // stay when a `.rules` file fails), as a file of their own.
        if let Some(r) = &requirements
            && r.read.refusals.is_empty()
            && !r.read.rules.is_empty()
        {
            let file = rules_files.len();
            rules_files.push(Source {
                read: RulesFile {
                    rules: r.read.rules.clone(),
                    ..RulesFile::default()
                },
                path: r.path.clone(),
                scope: Scope::Managed,
                text: r.text.clone(),
            });
            rules.extend(r.read.rules.iter().map(|rule| Loaded {
                rule: rule.clone(),
                file,
            }));
        }
        let mut approval = if trust == Some(false) {
            (Approval::Untrusted, ApprovalFrom::UntrustedProject)
        } else {
            (Approval::OnRequest, ApprovalFrom::Default)
        };
        let mut sandbox = if trust.is_some() {
            "workspace-write".to_string()
        } else {
            "read-only".to_string()
        };
        for c in &configs {
            if let Some((a, _)) = &c.read.approval {
                approval = (*a, ApprovalFrom::File(c.path.clone()));
            }
            if let Some((p, _)) = &c.read.default_permissions {
                sandbox = sandbox_of_permissions(p);
            }
            if let Some((s, _)) = &c.read.sandbox {
                sandbox = s.clone();
            }
        }
        if let Some(a) = ctx
            .options
            .runtime_arg(APPROVAL_ARG)
            .and_then(Approval::parse_flag)
        {
            approval = (a, ApprovalFrom::Option);
        }
        if let Some(s) = ctx.options.runtime_arg(SANDBOX_ARG) {
            sandbox = s.to_string();
        }
        // Values the requirements do not allow fall back to their first
        // allowed value (observed, with Codex's warning).
        let mut constrained = Vec::new();
        if let Some(r) = &requirements {
            if let Some((allowed, _)) = &r.read.allowed_approval_policies {
                let now = approval_name(approval.0);
                if let Some(first) = requirements::constrain(now, allowed)
                    && let Some(a) = Approval::parse_flag(first)
                {
                    constrained.push(("approval_policy", now.to_string(), first.to_string()));
                    approval = (a, ApprovalFrom::File(r.path.clone()));
                }
            }
            if let Some((allowed, _)) = &r.read.allowed_sandbox_modes
                && let Some(first) = requirements::constrain(&sandbox, allowed)
            {
                constrained.push(("sandbox_mode", sandbox.clone(), first.to_string()));
                sandbox = first.to_string();
            }
        }
        Policy {
            env,
            configs,
            rules_files,
            untrusted_files,
            trust,
            project_read: trusted,
            approval: approval.0,
            approval_from: approval.1,
            sandbox,
            dropped_by,
            rules,
            hosts,
            requirements,
            constrained,
        }
    }

    /// What makes Codex refuse the session's configuration (no session
    /// starts), with the file: a file that does not parse, or a refused
    /// value no later file replaces (Codex merges the files, then reads
    /// the values: observed, a trusted project's `approval_policy` over a
    /// user's refused one starts the session).
    pub fn refusals(&self) -> Vec<(&Path, &config::Refusal)> {
        let mut out = Vec::new();
        if let Some(r) = &self.requirements {
            out.extend(r.read.refusals.iter().map(|x| (r.path.as_path(), x)));
        }
        for (i, c) in self.configs.iter().enumerate() {
            for r in &c.read.refusals {
                let replaced = !r.key.is_empty()
                    && self.configs[i + 1..]
                        .iter()
                        .any(|later| later.read.keys.iter().any(|(k, _)| *k == r.key));
                if !replaced {
                    out.push((c.path.as_path(), r));
                }
            }
        }
        out
    }

    /// The rules in effect, for the engine.
    pub fn rule_refs(&self) -> Vec<&PrefixRule> {
        self.rules.iter().map(|l| &l.rule).collect()
    }

    /// Where the approval policy comes from, for people.
    pub fn approval_source(&self) -> String {
        match &self.approval_from {
            ApprovalFrom::Default => "Codex's default".into(),
            ApprovalFrom::UntrustedProject => {
                "the default of a project marked trust_level = \"untrusted\"".into()
            }
            ApprovalFrom::File(p) => crate::contract::tilde(p, &self.env.home),
            ApprovalFrom::Option => format!("--{APPROVAL_ARG}"),
        }
    }

    /// The error that dropped every custom rule, with its file.
    pub fn drop_error(&self) -> Option<(&Source<RulesFile>, &rules::LoadError)> {
        let f = &self.rules_files[self.dropped_by?];
        Some((f, f.read.error.as_ref()?))
    }
}
