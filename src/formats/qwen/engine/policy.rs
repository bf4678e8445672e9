//! A Qwen Code session's policy: the settings files it reads (system
//! defaults, `~/.qwen/settings.json`, `<project>/.qwen/settings.json`,
//! system settings: later wins, the permission lists and `tools.exclude`
//! / `tools.disabled` concatenated), folder trust from
//! `~/.qwen/trustedFolders.json`, the approval mode, and the rules in the
//! order the permission manager reads them.

use super::super::model::{self, Entry, Mode, Rule, SettingsFile};
use crate::contract::Context;
use std::path::{Path, PathBuf};

/// The session option that pins the approval mode (`--approval-mode`).
pub const MODE_ARG: &str = "approval-mode";
/// The same under the name other agents use (`--permission-mode`): read
/// when it is one of Qwen's modes.
pub const PERMISSION_MODE_ARG: &str = "permission-mode";
/// The variable naming the system settings file.
pub const SYSTEM_ENV: &str = "QWEN_CODE_SYSTEM_SETTINGS_PATH";
/// The variable naming the system defaults file.
pub const DEFAULTS_ENV: &str = "QWEN_CODE_SYSTEM_DEFAULTS_PATH";

/// Where a file sits, in merge order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scope {
    SystemDefaults,
    User,
    Project,
    System,
}

impl Scope {
    pub fn name(self) -> &'static str {
        match self {
            Scope::SystemDefaults => "system defaults",
            Scope::User => "user",
            Scope::Project => "project",
            Scope::System => "system",
        }
    }
}

/// One settings file of the session.
#[derive(Debug, Clone)]
pub struct File {
    pub scope: Scope,
    pub path: PathBuf,
    pub text: String,
    pub read: SettingsFile,
    /// Read by the session (a project file of an untrusted folder, or a
    /// broken project file Qwen resets, is not).
    pub applies: bool,
}

/// Which list a rule came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum List {
    Allow,
    Ask,
    Deny,
}

impl List {
    pub fn name(self) -> &'static str {
        match self {
            List::Allow => "allow",
            List::Ask => "ask",
            List::Deny => "deny",
        }
    }
}

/// A rule of the session and where it is written.
#[derive(Debug, Clone)]
pub struct Placed {
    pub rule: Rule,
    pub list: List,
    /// The index into `Policy::files`.
    pub file: usize,
    pub range: std::ops::Range<usize>,
    /// The key it is under (`permissions.deny`, `tools.exclude`, …).
    pub key: &'static str,
}

/// The places of a session.
#[derive(Debug, Clone)]
pub struct Env {
    pub home: PathBuf,
    pub cwd: PathBuf,
}

impl Env {
    pub fn from_context(ctx: &Context<'_>) -> Env {
        let home = ctx.options.home_dir();
        Env {
            home,
            cwd: ctx.cwd.clone(),
        }
    }
}

/// A whole session as Qwen Code reads it.
#[derive(Debug, Clone)]
pub struct Policy {
    pub env: Env,
    pub files: Vec<File>,
    /// In the permission manager's order: deny, ask, allow lists, each in
    /// merge order.
    pub rules: Vec<Placed>,
    /// `tools.core` of the highest scope that sets it (canonical names).
    pub core: Option<Vec<String>>,
    pub disabled: Vec<String>,
    pub mode: Mode,
    /// Where the mode comes from, for people.
    pub mode_source: String,
    /// Folder trust is on and this folder is not trusted.
    pub untrusted: bool,
    pub folder_trust: bool,
    pub trusted_servers: Vec<String>,
    /// Some rule decides file or network access (Read, Edit, Write,
    /// WebFetch, list rules): a shell command's access can matter.
    pub access_rules: bool,
    /// The opt-in tools registered (`list_directory`, `todo_write`).
    pub opt_in: Vec<&'static str>,
    /// A setting registers other opt-in tools in a way not read here.
    pub opt_in_other: bool,
    /// Allow rules the `auto` mode sets aside (shell rules for anything or
    /// for an interpreter, agent and skill rules): the classifier decides
    /// their calls.
    pub stripped: Vec<Placed>,
    /// Why no session starts (a broken user file, an unknown mode).
    pub fatal: Option<String>,
    /// What the CLI prints or does about its files.
    pub notes: Vec<String>,
    /// The rules by the text a command must start with.
    pub index: crate::core::literal_index::BuiltOnce<super::index::RuleIndex>,
}

fn read_text(path: &Path, ctx: &Context<'_>) -> Option<String> {
    if let Some(t) = (ctx.open)(path) {
        return Some(t);
    }
    crate::fsio::read_text(path, 8 << 20)
}

/// The trust of `cwd` in `trustedFolders.json`: the most specific entry
/// (`TRUST_FOLDER` a folder and below, `TRUST_PARENT` the parent and
/// below, `DO_NOT_TRUST`); unlisted is untrusted.
fn trusted(text: Option<&str>, cwd: &Path) -> bool {
    let Some(t) = text else { return false };
    let Ok(serde_json::Value::Object(map)) = serde_json::from_str::<serde_json::Value>(t) else {
        return false;
    };
    let mut best: Option<(usize, bool)> = None;
    for (k, v) in map {
        // Node's `path.resolve`: `.` and `..` resolved.
        let p = PathBuf::from(super::matching::join(Path::new("/"), &k));
        let (dir, trust) = match v.as_str() {
            Some("TRUST_FOLDER") => (p.clone(), true),
            Some("TRUST_PARENT") => (p.parent().map(Path::to_path_buf).unwrap_or(p.clone()), true),
            Some("DO_NOT_TRUST") => (p.clone(), false),
            _ => continue,
        };
        let applies = if trust {
            cwd.starts_with(&dir)
        } else {
            cwd == dir
        };
        if applies {
            let depth = dir.components().count();
            if best.is_none_or(|(d, _)| depth >= d) {
                best = Some((depth, trust));
            }
        }
    }
    best.is_some_and(|(_, t)| t)
}

impl Policy {
    /// The session of `ctx` (its cwd, home, open buffers and options).
    pub fn load(ctx: &Context<'_>) -> Policy {
        let env = Env::from_context(ctx);
        let arg = |k: &str| {
            ctx.options
                .runtime_arg(k)
                .map(str::to_string)
                .or_else(|| std::env::var(k).ok())
        };
        let system = arg(SYSTEM_ENV)
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("/etc/qwen-code/settings.json"));
        let defaults = arg(DEFAULTS_ENV)
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("/etc/qwen-code/system-defaults.json"));
        let user = ctx
            .global_config
            .clone()
            .unwrap_or_else(|| env.home.join(".qwen").join("settings.json"));
        let project = env.cwd.join(".qwen").join("settings.json");
        let mut places = vec![
            (Scope::SystemDefaults, defaults),
            (Scope::User, user.clone()),
        ];
        if project != user {
            places.push((Scope::Project, project));
        }
        places.push((Scope::System, system));
        let mut files = Vec::new();
        let mut notes = Vec::new();
        let mut fatal = None;
        for (scope, path) in places {
            let Some(text) = read_text(&path, ctx) else {
                continue;
            };
            let read = model::read(&text);
            let mut applies = read.parsed;
            if let Some((_, msg)) = &read.error {
                if scope == Scope::Project {
                    notes.push(format!(
                        "{} is not valid JSON ({msg}): Qwen Code silently replaces it with {{\"$version\": 4}} (keeping it as settings.json.corrupted), so none of its rules apply",
                        path.display()
                    ));
                } else if fatal.is_none() {
                    fatal = Some(format!(
                        "{} is not valid JSON ({msg}): Qwen Code stops at start",
                        path.display()
                    ));
                }
                applies = false;
            }
            files.push(File {
                scope,
                path,
                text,
                read,
                applies,
            });
        }
        // Folder trust: the setting of the files other than the project's.
        let folder_trust = files
            .iter()
            .filter(|f| f.applies && f.scope != Scope::Project)
            .filter_map(|f| f.read.folder_trust)
            .next_back()
            .unwrap_or(false);
        let trust_file = read_text(&env.home.join(".qwen").join("trustedFolders.json"), ctx);
        let untrusted = folder_trust && !trusted(trust_file.as_deref(), &env.cwd);
        if untrusted {
            for f in files
                .iter_mut()
                .filter(|f| f.scope == Scope::Project && f.applies)
            {
                f.applies = false;
                notes.push(format!(
                    "folder trust is on and {} is not trusted: Qwen Code ignores {} whole, its denies included",
                    env.cwd.display(),
                    f.path.display()
                ));
            }
        }
        // Room for every rule at once (a policy can hold hundreds of
        // thousands; growing by doubling held half again as much).
        let mut rules = Vec::with_capacity(
            files
                .iter()
                .filter(|f| f.applies)
                .map(|f| {
                    let r = &f.read;
                    r.allow.len()
                        + r.ask.len()
                        + r.deny.len()
                        + r.tools_allowed.as_ref().map_or(0, Vec::len)
                        + r.tools_exclude.len()
                })
                .sum(),
        );
        let mut core = None;
        let mut disabled = Vec::new();
        let mut trusted_servers = Vec::new();
        let mut mode_entry: Option<(Entry, Scope)> = None;
        for list in [List::Deny, List::Ask, List::Allow] {
            for (i, f) in files.iter().enumerate().filter(|(_, f)| f.applies) {
                let (entries, key): (&[Entry], &'static str) = match list {
                    List::Allow => (&f.read.allow, "permissions.allow"),
                    List::Ask => (&f.read.ask, "permissions.ask"),
                    List::Deny => (&f.read.deny, "permissions.deny"),
                };
                push_rules(&mut rules, entries, list, i, key);
            }
            // `tools.allowed` (the highest scope setting it) after the
            // allow lists, `tools.exclude` (every scope) after the denies.
            match list {
                List::Allow => {
                    if let Some((i, f)) = files
                        .iter()
                        .enumerate()
                        .rfind(|(_, f)| f.applies && f.read.tools_allowed.is_some())
                    {
                        push_rules(
                            &mut rules,
                            f.read.tools_allowed.as_deref().unwrap_or(&[]),
                            list,
                            i,
                            "tools.allowed",
                        );
                    }
                }
                List::Deny => {
                    for (i, f) in files.iter().enumerate().filter(|(_, f)| f.applies) {
                        push_rules(&mut rules, &f.read.tools_exclude, list, i, "tools.exclude");
                    }
                }
                List::Ask => {}
            }
        }
        dedupe(&mut rules);
        for f in files.iter().filter(|f| f.applies) {
            if let Some(c) = &f.read.tools_core {
                core = Some(c.iter().map(|e| model::parse_rule(&e.text).tool).collect());
            }
            disabled.extend(
                f.read
                    .tools_disabled
                    .iter()
                    .map(|e| model::canonical(model::js_trim(&e.text)).to_string()),
            );
            trusted_servers.extend(f.read.trusted_servers.iter().cloned());
            if let Some(m) = &f.read.approval_mode {
                mode_entry = Some((m.clone(), f.scope));
            }
        }
        let (mut mode, mut mode_source) = (Mode::Auto, "Qwen Code's default".to_string());
        if let Some((e, scope)) = &mode_entry {
            match model::approval_mode(&e.text) {
                Some(m) => {
                    mode = m;
                    mode_source = format!("tools.approvalMode in the {} settings", scope.name());
                }
                None => {
                    fatal.get_or_insert(format!(
                        "Invalid approval mode: {}. Valid values are: plan, default, auto-edit, auto, yolo",
                        e.text
                    ));
                }
            }
        }
        let pinned = ctx
            .options
            .runtime_arg(MODE_ARG)
            .map(|m| (m, "--approval-mode"))
            .or_else(|| {
                ctx.options
                    .runtime_arg(PERMISSION_MODE_ARG)
                    .filter(|m| model::approval_mode(m).is_some())
                    .map(|m| (m, "--permission-mode"))
            });
        if let Some((a, flag)) = pinned {
            match model::approval_mode(a) {
                Some(m) => {
                    mode = m;
                    mode_source = flag.into();
                }
                None => {
                    fatal.get_or_insert(format!("Invalid approval mode: {a}"));
                }
            }
        }
        if untrusted && !matches!(mode, Mode::Default | Mode::Plan) {
            notes.push(format!(
                "Approval mode overridden to \"default\" because the current folder is not trusted (it was {})",
                mode.name()
            ));
            mode = Mode::Default;
            mode_source = "forced by folder trust".into();
        }
        let mut opt_in = Vec::new();
        let last = |get: fn(&SettingsFile) -> Option<bool>| {
            files
                .iter()
                .filter(|f| f.applies)
                .filter_map(|f| get(&f.read))
                .next_back()
        };
        if last(|r| r.list_directory) == Some(true) {
            opt_in.push("list_directory");
        }
        if last(|r| r.todo_write) == Some(true) {
            opt_in.push("todo_write");
        }
        let opt_in_other = files.iter().any(|f| f.applies && f.read.opt_in_other);
        let mut stripped = Vec::new();
        if mode == Mode::Auto {
            let (gone, kept): (Vec<Placed>, Vec<Placed>) = rules
                .into_iter()
                .partition(|r| r.list == List::Allow && dangerous_allow(&r.rule));
            rules = kept;
            stripped = gone;
        }
        let access_rules = rules.iter().any(|r| {
            !r.rule.invalid
                && [
                    "read_file",
                    "edit",
                    "write_file",
                    "web_fetch",
                    "list_directory",
                    "glob",
                    "grep_search",
                ]
                .iter()
                .any(|t| super::matching::tool_covers(&r.rule.tool, t))
        });
        Policy {
            env,
            access_rules,
            files,
            rules,
            stripped,
            core,
            disabled,
            mode,
            mode_source,
            untrusted,
            folder_trust,
            trusted_servers,
            opt_in,
            opt_in_other,
            fatal,
            notes,
            index: Default::default(),
        }
    }

    /// The rules of `list` a call of `tool` with this command (`None`:
    /// none) may match, in order (`rules` do not change after loading).
    pub fn candidates(&self, list: List, tool: &str, command: Option<&str>) -> Vec<usize> {
        let tool = super::super::model::canonical(tool);
        let gate = |rule_tool: &str| super::matching::tool_gate(rule_tool, tool);
        match command {
            Some(c) => super::matching::with_normalized(c, |n| {
                self.starting(list, &gate, std::iter::once(n))
            }),
            None => self.starting(list, &gate, std::iter::empty()),
        }
    }

    /// The rules of `list` whose tool passes `tool_ok`, without a command
    /// pattern or with one whose literal start begins one of `texts` as
    /// written, in order.
    pub fn starting<'t>(
        &self,
        list: List,
        tool_ok: &dyn Fn(&str) -> bool,
        texts: impl Iterator<Item = &'t str> + Clone,
    ) -> Vec<usize> {
        match self.index() {
            Some(index) => index.starting(list, tool_ok, texts),
            None => self.all_of(list),
        }
    }

    fn index(&self) -> Option<&super::index::RuleIndex> {
        let index = self
            .index
            .get_or_init(|| super::index::RuleIndex::new(&self.rules));
        index.fits(&self.rules).then_some(index)
    }

    fn all_of(&self, list: List) -> Vec<usize> {
        (0..self.rules.len())
            .filter(|&i| self.rules[i].list == list)
            .collect()
    }

    /// The project root (Qwen's target directory): the session's cwd.
    pub fn root(&self) -> &Path {
        &self.env.cwd
    }

    pub fn rules_of(&self, list: List) -> impl Iterator<Item = &Placed> {
        self.rules.iter().filter(move |r| r.list == list)
    }
}

fn push_rules(
    out: &mut Vec<Placed>,
    entries: &[Entry],
    list: List,
    file: usize,
    key: &'static str,
) {
    for e in entries {
        // Empty and blank strings are dropped before parsing.
        if model::js_trim(&e.text).is_empty() {
            continue;
        }
        out.push(Placed {
            rule: model::parse_rule(&e.text),
            list,
            file,
            range: e.range.clone(),
            key,
        });
    }
}

/// The merged lists are unions: a rule's text counts once per list.
fn dedupe(rules: &mut Vec<Placed>) {
    let keep: Vec<bool> = {
        let mut seen =
            rustc_hash::FxHashSet::with_capacity_and_hasher(rules.len(), Default::default());
        rules
            .iter()
            .map(|r| seen.insert((r.key, r.rule.raw.as_str())))
            .collect()
    };
    let mut keep = keep.into_iter();
    rules.retain(|_| keep.next().unwrap_or(true));
}

const INTERPRETERS: &[&str] = &[
    "bash",
    "sh",
    "zsh",
    "fish",
    "csh",
    "tcsh",
    "dash",
    "ksh",
    "cmd",
    "pwsh",
    "powershell",
    "python",
    "python3",
    "python2",
    "node",
    "deno",
    "tsx",
    "bun",
    "ruby",
    "perl",
    "php",
    "lua",
    "julia",
    "r",
    "rscript",
    "groovy",
    "awk",
    "gawk",
    "cargo",
    "npm",
    "pnpm",
    "yarn",
    "make",
    "gmake",
    "gradle",
    "mvn",
    "rake",
    "task",
    "just",
    "go",
    "npx",
    "bunx",
    "pnpx",
    "uvx",
    "pipx",
    "dlx",
    "ssh",
    "eval",
    "exec",
    "source",
];

fn colon_index(content: &str) -> Option<usize> {
    let first = content.find(':')?;
    let b = content.as_bytes();
    if b.len() > 2 && b[0].is_ascii_alphabetic() && b[1] == b':' && (b[2] == b'/' || b[2] == b'\\')
    {
        return content[2..].find(':').map(|i| i + 2);
    }
    Some(first)
}

fn interpreter(token: &str) -> bool {
    let t = token.trim_end_matches('*');
    let t = colon_index(t).map(|i| &t[..i]).unwrap_or(t);
    let last = t.rsplit(['/', '\\']).next().unwrap_or("");
    let last = last.strip_suffix(".exe").unwrap_or(last);
    INTERPRETERS.contains(&last)
}

/// Qwen's `isDangerousAllowRule`: what the `auto` mode sets aside.
pub fn dangerous_allow(rule: &Rule) -> bool {
    if rule.tool == "agent" || rule.tool == "skill" {
        return true;
    }
    if rule.tool != "run_shell_command" && rule.tool != "monitor" {
        return false;
    }
    let Some(spec) = rule.specifier.as_deref() else {
        return true;
    };
    let content = model::js_trim(spec).to_lowercase();
    if content.is_empty() || content == "*" {
        return true;
    }
    let first = content.split(char::is_whitespace).next().unwrap_or("");
    if !interpreter(first) {
        return false;
    }
    let colon = colon_index(&content);
    if first == content && colon.is_none() {
        return true;
    }
    if content.contains('*') {
        return true;
    }
    match colon {
        Some(i) => model::js_trim(&content[i + 1..]).is_empty(),
        None => false,
    }
}
