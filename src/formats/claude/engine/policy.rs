//! Every settings file Claude Code 2.1.332 merges for a session, loaded
//! once: the rules of each list with the file, line and column they are
//! written at, the permission mode in force, the working directories and
//! the project's trust. `decide.rs` decides calls against it.

use crate::contract::Context;
use crate::formats::claude::lints;
use crate::formats::claude::model::rules::{self, Flaw, List, Reading};
use crate::formats::claude::scopes::{self, Source};
use crate::text::{LineIndex, line_col_1};
use std::path::{Path, PathBuf};

/// A permission mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Default,
    AcceptEdits,
    Plan,
    DontAsk,
    BypassPermissions,
    Auto,
}

impl Mode {
    pub fn parse(s: &str) -> Option<Mode> {
        Some(match s {
            "default" => Mode::Default,
            "acceptEdits" => Mode::AcceptEdits,
            "plan" => Mode::Plan,
            "dontAsk" => Mode::DontAsk,
            "bypassPermissions" => Mode::BypassPermissions,
            "auto" => Mode::Auto,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Mode::Default => "default",
            Mode::AcceptEdits => "acceptEdits",
            Mode::Plan => "plan",
            Mode::DontAsk => "dontAsk",
            Mode::BypassPermissions => "bypassPermissions",
            Mode::Auto => "auto",
        }
    }
}

/// Where a rule or a mode comes from, with the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    File(Source),
    /// `--allowedTools`, `--disallowedTools`, `--permission-mode`.
    CommandLine,
}

impl Origin {
    /// The CLI's name for the source (its debug log's).
    pub fn layer(self) -> &'static str {
        match self {
            Origin::File(Source::User) => "userSettings",
            Origin::File(Source::Project) => "projectSettings",
            Origin::File(Source::Local) => "localSettings",
            Origin::File(Source::Flag) => "flagSettings",
            Origin::File(Source::Managed) => "policySettings",
            Origin::CommandLine => "cliArg",
        }
    }

    pub fn scope(self) -> &'static str {
        match self {
            Origin::File(Source::User) => "user",
            Origin::File(Source::Project) => "project",
            Origin::File(Source::Local) => "local",
            Origin::File(Source::Flag) => "--settings",
            Origin::File(Source::Managed) => "managed",
            Origin::CommandLine => "command line",
        }
    }
}

/// A rule the CLI loaded.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub list: List,
    /// The rule as written.
    pub text: String,
    pub tool: String,
    pub content: Option<String>,
    pub flaw: Option<Flaw>,
    pub origin: Origin,
    pub file: Option<PathBuf>,
    /// 1-based line and column of the rule's string.
    pub line: usize,
    pub column: usize,
    /// The directory a `/x` path pattern is relative to: the project for
    /// project, local and managed settings, `~/.claude` for the user's
    /// (observed).
    pub root: PathBuf,
}

/// What the session runs with, as the CLI's flags give it.
#[derive(Debug, Clone, Default)]
pub struct Session {
    pub permission_mode: Option<String>,
    pub allowed_tools: Vec<String>,
    pub disallowed_tools: Vec<String>,
    pub add_dirs: Vec<PathBuf>,
    /// `--settings`: a settings file, or the settings as JSON text.
    pub settings: Option<String>,
    /// Decide as the session's first Bash command to run (`first-command`).
    pub first_command: bool,
    /// The names of the shell's environment variables (`shell-env`;
    /// default: this process's environment, which the agent inherits).
    pub shell_env: Option<Vec<String>>,
}

/// The session option that decides a call as the session's first Bash
/// command to run.
pub const FIRST_COMMAND: &str = "first-command";

/// The session option naming the shell's environment variables.
pub const SHELL_ENV: &str = "shell-env";

impl Session {
    /// From the context's runtime options (`permission-mode`,
    /// `allowedTools`, `disallowedTools`, `add-dir`; lists are comma or
    /// space separated as on the CLI).
    pub fn from_options(opts: &[(String, String)]) -> Session {
        let mut s = Session::default();
        for (k, v) in opts {
            match k.as_str() {
                "permission-mode" | "permissionMode" => s.permission_mode = Some(v.clone()),
                "allowedTools" | "allowed-tools" => s.allowed_tools.extend(split_tools(v)),
                "disallowedTools" | "disallowed-tools" => s.disallowed_tools.extend(split_tools(v)),
                "add-dir" => s.add_dirs.push(PathBuf::from(v)),
                "settings" => s.settings = Some(v.clone()),
                FIRST_COMMAND => s.first_command = v == "true",
                SHELL_ENV => s.shell_env.get_or_insert_with(Vec::new).extend(
                    v.split([',', ' '])
                        .filter(|n| !n.is_empty())
                        .map(String::from),
                ),
                _ => {}
            }
        }
        s
    }
}

/// `--allowedTools "Bash(git log:*) Read"`: rules separated by commas or
/// blanks outside parentheses.
pub fn split_tools(v: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut depth = 0usize;
    for c in v.chars() {
        match c {
            '(' => {
                depth += 1;
                cur.push(c);
            }
            ')' => {
                depth = depth.saturating_sub(1);
                cur.push(c);
            }
            ',' | ' ' if depth == 0 => {
                if !cur.trim().is_empty() {
                    out.push(cur.trim().to_string());
                }
                cur.clear();
            }
            _ => cur.push(c),
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// One settings file as the session saw it.
#[derive(Debug, Clone)]
pub struct FileSeen {
    pub source: Source,
    pub path: PathBuf,
    pub present: bool,
    pub accepted: bool,
    /// Why the CLI ignores it whole.
    pub issue: Option<String>,
}

/// Everything merged.
#[derive(Debug, Clone)]
pub struct Policy {
    pub rules: Vec<Loaded>,
    pub mode: Mode,
    pub mode_origin: Option<Origin>,
    /// Modes written in a file that the CLI ignores there.
    pub ignored_modes: Vec<(Source, String)>,
    pub cwd: PathBuf,
    pub home: PathBuf,
    pub working_dirs: Vec<PathBuf>,
    pub trusted: bool,
    /// Allow rules of the project and local files dropped because the
    /// project is not trusted.
    pub untrusted_allows: usize,
    pub files: Vec<FileSeen>,
    /// The hooks that run before a tool call is decided or asked about
    /// (`PreToolUse`, `PermissionRequest`), in file order.
    pub hooks: Vec<Hook>,
    /// `"disableAllHooks": true` in a file.
    pub hooks_disabled: bool,
    /// No Bash command has run in the session yet: the CLI does not know
    /// the shell's variables (it learns them when it first runs one), so a
    /// line that sets any variable asks.
    pub first_command: bool,
    /// The variables the session's shell has (a line that sets one asks).
    pub shell_env: Vec<String>,
    /// The Bash rules by the text a command must start with, built on the
    /// first decision (`rules` do not change after loading).
    pub bash_index: crate::core::literal_index::BuiltOnce<super::index::BashIndex>,
}

/// A hook a settings file declares for tool calls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hook {
    /// `PreToolUse` or `PermissionRequest`.
    pub event: String,
    /// The tools it runs for (`None`, empty or `*`: every tool).
    pub matcher: Option<String>,
    /// What it runs (a command, or the hook's type when it has none).
    pub command: String,
    pub origin: Origin,
    pub file: PathBuf,
    pub line: usize,
    pub column: usize,
}

impl Hook {
    /// Does the hook run for calls of `tool`? As the CLI matches a
    /// matcher: empty or `*` is every tool; a list of names (`Edit|Write`,
    /// `Bash, Read`) names them exactly; anything else is a regular
    /// expression searched in the tool's name (an invalid one matches
    /// nothing).
    pub fn covers(&self, tool: &str) -> bool {
        let Some(m) = self.matcher.as_deref().map(str::trim) else {
            return true;
        };
        if m.is_empty() || m == "*" {
            return true;
        }
        fn alias(n: &str) -> &str {
            match n {
                "Task" => "Agent",
                "KillShell" => "TaskStop",
                other => other,
            }
        }
        let plain = m
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'|' | b',' | b' ' | b'-'));
        if plain {
            return m
                .split(['|', ','])
                .map(str::trim)
                .filter(|n| !n.is_empty())
                .any(|n| alias(n) == alias(tool));
        }
        regex::Regex::new(m).is_ok_and(|r| r.is_match(tool))
    }

    /// The sentence the simulator says about it.
    pub fn sentence(&self) -> String {
        let when = if self.event == "PermissionRequest" {
            "answers the prompt when Claude Code asks"
        } else {
            "runs first and may change this decision"
        };
        format!(
            "a {} hook `{}` ({} settings, {}:{}:{}) {when}; not simulated",
            self.event,
            self.command,
            self.origin.scope(),
            self.file.display(),
            self.line,
            self.column
        )
    }
}

/// The project directory of a session for `ctx`: an explicit `--cwd`, else
/// the project a project or local settings document belongs to, else the
/// context's working directory.
pub fn project_dir(ctx: &Context<'_>, home: Option<&Path>) -> PathBuf {
    if !ctx.cwd_explicit
        && let Some(doc) = ctx.document.as_deref()
        && let Some((source, project)) = scopes::source_of(doc, home)
        && matches!(source, Source::Project | Source::Local)
    {
        return project;
    }
    ctx.cwd.clone()
}

/// The home, the project directory and the settings files the CLI reads
/// for a session in `ctx`, in its merge order (a later file's mode wins).
///
/// The project's `settings.json` is read from the starting folder only;
/// the local file from there and from the git repository's root (observed
/// on 2.1.332: `observed-subdir.json`), unless that root is the home.
pub fn candidate_files(ctx: &Context<'_>) -> (PathBuf, PathBuf, Vec<(Source, PathBuf)>) {
    let home = scopes::home(ctx).unwrap_or_else(|| PathBuf::from("/"));
    let cwd = crate::formats::claude::engine::paths::normalise(&project_dir(ctx, Some(&home)));
    let claude = cwd.join(".claude");
    let mut candidates = vec![
        (
            Source::User,
            scopes::user_settings(ctx).unwrap_or_else(|| home.join(".claude/settings.json")),
        ),
        (Source::Project, claude.join("settings.json")),
        (Source::Local, claude.join("settings.local.json")),
    ];
    if let Some(root) = cwd.parent().and_then(crate::fsio::git_root)
        && root != home
    {
        candidates.push((Source::Local, root.join(".claude/settings.local.json")));
    }
    candidates.extend(
        scopes::managed_files()
            .into_iter()
            .map(|p| (Source::Managed, p)),
    );
    (home, cwd, candidates)
}

impl Policy {
    /// Loads every file the CLI reads for a session in `ctx` (open buffers
    /// win over disk).
    pub fn load(ctx: &Context<'_>, session: &Session) -> Policy {
        let (home, cwd, candidates) = candidate_files(ctx);
        // A project whose folder is the home directory: its settings file is
        // the user's, read once.
        let mut seen_paths: Vec<PathBuf> = Vec::new();
        let trusted = scopes::trust(ctx, &cwd).unwrap_or(false);
        let mut policy = Policy {
            rules: Vec::new(),
            mode: Mode::Default,
            mode_origin: None,
            ignored_modes: Vec::new(),
            cwd: cwd.clone(),
            home: home.clone(),
            working_dirs: vec![cwd.clone()],
            trusted,
            untrusted_allows: 0,
            files: Vec::new(),
            hooks: Vec::new(),
            hooks_disabled: false,
            first_command: session.first_command,
            shell_env: session.shell_env.clone().unwrap_or_else(|| {
                std::env::vars_os()
                    .filter_map(|(k, _)| k.into_string().ok())
                    .collect()
            }),
            bash_index: Default::default(),
        };
        // `--settings`: a file (relative to the session's folder) or JSON
        // text, read after the local settings and before the managed ones
        // (observed: its allow rules apply in an untrusted project, its
        // mode wins over the user's, a broken one is ignored).
        let mut candidates = candidates;
        let mut flag_text: Option<String> = None;
        if let Some(v) = session.settings.as_deref() {
            let at = candidates
                .iter()
                .position(|(s, _)| *s == Source::Managed)
                .unwrap_or(candidates.len());
            let path = if v.trim_start().starts_with('{') {
                flag_text = Some(v.to_string());
                PathBuf::from("<--settings>")
            } else {
                crate::formats::claude::engine::paths::absolute(v, &cwd, &home)
            };
            candidates.insert(at, (Source::Flag, path));
        }
        for (source, path) in candidates {
            if seen_paths.contains(&path) {
                continue;
            }
            seen_paths.push(path.clone());
            let text = match (&flag_text, source) {
                (Some(t), Source::Flag) => Some(t.clone()),
                _ => (ctx.open)(&path)
                    .or_else(|| crate::fsio::read_text(&path, scopes::MAX_SETTINGS_BYTES)),
            };
            let Some(text) = text else {
                policy.files.push(FileSeen {
                    source,
                    path,
                    present: false,
                    accepted: false,
                    issue: None,
                });
                continue;
            };
            let a = lints::analyse(&text);
            let issue = (!a.accepted).then(|| {
                a.diagnostics
                    .iter()
                    .find(|d| d.severity == crate::core::diagnostic::Severity::Error)
                    .map(|d| d.message.clone())
                    .unwrap_or_else(|| "Invalid or malformed JSON".into())
            });
            policy.files.push(FileSeen {
                source,
                path: path.clone(),
                present: true,
                accepted: a.accepted,
                issue,
            });
            if !a.accepted {
                continue;
            }
            let Some(root) = a.root.as_ref() else {
                continue;
            };
            policy.add_file(source, &path, &text, root);
        }
        // The command line.
        for (list, texts) in [
            (List::Allow, &session.allowed_tools),
            (List::Deny, &session.disallowed_tools),
        ] {
            for t in texts {
                if let Reading::Loaded(r, flaw) = rules::read(t, list) {
                    policy.rules.push(Loaded {
                        list,
                        text: t.clone(),
                        tool: r.tool.to_string(),
                        content: r.content.map(str::to_string),
                        flaw,
                        origin: Origin::CommandLine,
                        file: None,
                        line: 0,
                        column: 0,
                        root: cwd.clone(),
                    });
                }
            }
        }
        if let Some(m) = session.permission_mode.as_deref().and_then(Mode::parse) {
            policy.mode = m;
            policy.mode_origin = Some(Origin::CommandLine);
        }
        for d in &session.add_dirs {
            policy
                .working_dirs
                .push(crate::formats::claude::engine::paths::absolute(
                    &d.to_string_lossy(),
                    &cwd,
                    &home,
                ));
        }
        policy
    }

    /// One settings file alone, as the project settings of a trusted
    /// session in `cwd` (a file no session reads, or `check --no-scopes`).
    pub fn single(
        text: &str,
        root: &crate::syntax::Node,
        path: &Path,
        cwd: &Path,
        home: &Path,
    ) -> Policy {
        let mut policy = Policy {
            rules: Vec::new(),
            mode: Mode::Default,
            mode_origin: None,
            ignored_modes: Vec::new(),
            cwd: cwd.to_path_buf(),
            home: home.to_path_buf(),
            working_dirs: vec![cwd.to_path_buf()],
            trusted: true,
            untrusted_allows: 0,
            files: Vec::new(),
            hooks: Vec::new(),
            hooks_disabled: false,
            first_command: false,
            shell_env: Vec::new(),
            bash_index: Default::default(),
        };
        policy.add_file(Source::Project, path, text, root);
        policy
    }

    fn add_file(&mut self, source: Source, path: &Path, text: &str, root: &crate::syntax::Node) {
        let index = LineIndex::new(text);
        self.add_hooks(source, path, text, &index, root);
        let Some(p) = lints::permissions_of(root) else {
            return;
        };
        let settings_root = match source {
            Source::User => self.home.join(".claude"),
            _ => self.cwd.clone(),
        };
        let project_scoped = matches!(source, Source::Project | Source::Local);
        for list in [List::Allow, List::Ask, List::Deny] {
            for item in lints::list_items(p, list) {
                let Some(t) = item.value.as_str() else {
                    continue;
                };
                let Reading::Loaded(r, flaw) = rules::read(t, list) else {
                    continue;
                };
                if list == List::Allow && project_scoped && !self.trusted {
                    self.untrusted_allows += 1;
                    continue;
                }
                let (line, column) = line_col_1(&index, text, item.range.start);
                self.rules.push(Loaded {
                    list,
                    text: t.to_string(),
                    tool: r.tool.to_string(),
                    content: r.content.map(str::to_string),
                    flaw,
                    origin: Origin::File(source),
                    file: Some(path.to_path_buf()),
                    line,
                    column,
                    root: settings_root.clone(),
                });
            }
        }
        // The mode: a later file wins; bypassPermissions is ignored in
        // project and local settings, auto in project settings (observed).
        if let Some(m) = p.iter().rev().find(|m| m.key == "defaultMode")
            && let Some(s) = m.value.value.as_str()
            && let Some(mode) = Mode::parse(s)
        {
            let ignored = (project_scoped && mode == Mode::BypassPermissions)
                || (source == Source::Project && mode == Mode::Auto);
            if ignored {
                self.ignored_modes.push((source, s.to_string()));
            } else {
                self.mode = mode;
                self.mode_origin = Some(Origin::File(source));
            }
        }
        // An untrusted project's (and its local file's) extra directories
        // are not added (observed on 2.1.332: reading a file there asks).
        if let Some(m) = p.iter().rev().find(|m| m.key == "additionalDirectories")
            && let crate::syntax::Value::Array(items) = &m.value.value
            && (self.trusted || !project_scoped)
        {
            for i in items {
                if let Some(d) = i.value.as_str() {
                    self.working_dirs
                        .push(crate::formats::claude::engine::paths::absolute(
                            d, &self.cwd, &self.home,
                        ));
                }
            }
        }
    }

    /// The `PreToolUse` and `PermissionRequest` hooks of a file.
    fn add_hooks(
        &mut self,
        source: Source,
        path: &Path,
        text: &str,
        index: &LineIndex,
        root: &crate::syntax::Node,
    ) {
        use crate::syntax::Value;
        let Some(members) = root.value.as_object() else {
            return;
        };
        if let Some(m) = members.iter().rev().find(|m| m.key == "disableAllHooks")
            && m.value.value == Value::Bool(true)
        {
            self.hooks_disabled = true;
        }
        let Some(hooks) = members.iter().rev().find(|m| m.key == "hooks") else {
            return;
        };
        let Some(events) = hooks.value.value.as_object() else {
            return;
        };
        for ev in events {
            if ev.key != "PreToolUse" && ev.key != "PermissionRequest" {
                continue;
            }
            let Value::Array(groups) = &ev.value.value else {
                continue;
            };
            for g in groups {
                let Some(fields) = g.value.as_object() else {
                    continue;
                };
                let matcher = fields
                    .iter()
                    .rev()
                    .find(|f| f.key == "matcher")
                    .and_then(|f| f.value.value.as_str().map(str::to_string));
                let Some(Value::Array(list)) = fields
                    .iter()
                    .rev()
                    .find(|f| f.key == "hooks")
                    .map(|f| &f.value.value)
                else {
                    continue;
                };
                for h in list {
                    let Some(hf) = h.value.as_object() else {
                        continue;
                    };
                    let get = |k: &str| {
                        hf.iter()
                            .rev()
                            .find(|f| f.key == k)
                            .and_then(|f| f.value.value.as_str())
                    };
                    let command = get("command")
                        .or_else(|| get("url"))
                        .or_else(|| get("prompt"))
                        .or_else(|| get("type"))
                        .unwrap_or("(no command)");
                    let shown: String = command.chars().take(80).collect();
                    let (line, column) = line_col_1(index, text, h.range.start);
                    self.hooks.push(Hook {
                        event: ev.key.clone(),
                        matcher: matcher.clone(),
                        command: shown,
                        origin: Origin::File(source),
                        file: path.to_path_buf(),
                        line,
                        column,
                    });
                }
            }
        }
    }

    /// The hooks that run for a call of `tool` (none when a file disables
    /// every hook).
    pub fn hooks_for(&self, tool: &str) -> Vec<&Hook> {
        if self.hooks_disabled {
            return Vec::new();
        }
        self.hooks.iter().filter(|h| h.covers(tool)).collect()
    }

    /// What the CLI says about the files it ignores, and the rules it drops.
    pub fn issues(&self) -> Vec<String> {
        let mut out = Vec::new();
        for f in &self.files {
            if let Some(i) = &f.issue {
                out.push(format!(
                    "{}: the whole file is ignored ({i})",
                    f.path.display()
                ));
            }
        }
        if self.untrusted_allows > 0 {
            out.push(format!(
                "Ignoring {} permissions.allow entries from .claude/settings.json and .claude/settings.local.json: this workspace has not been trusted",
                self.untrusted_allows
            ));
        }
        for (s, m) in &self.ignored_modes {
            out.push(format!(
                "\"defaultMode\": \"{m}\" in the {} settings is ignored",
                Origin::File(*s).scope()
            ));
        }
        out
    }
}
