//! A Gemini CLI 0.61.0 session: the settings files it merges (system
//! defaults, user, workspace when trusted, system), folder trust, the
//! approval mode, the policy files of each tier and the rules the
//! settings keys become, in the engine's order (highest priority first,
//! ties in reading order).

use super::super::model::settings::{self, SettingsFile};
use super::super::model::toml_policy::{self, PolicyFile};
use super::super::model::{self, Decision, Mode, jsregex::JsRegex};
use super::defaults;
use crate::contract::Context;
use crate::core::literal_index::BuiltOnce;
use serde_json::Value as Json;
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub const MODE_ARG: &str = "approval-mode";
pub const PERMISSION_MODE_ARG: &str = "permission-mode";
pub const POLICY_ARG: &str = "policy";
pub const HEADLESS_ARG: &str = "headless";
pub const SYSTEM_ENV: &str = "GEMINI_CLI_SYSTEM_SETTINGS_PATH";
pub const DEFAULTS_ENV: &str = "GEMINI_CLI_SYSTEM_DEFAULTS_PATH";

/// A policy tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Tier {
    Default = 1,
    Extension = 2,
    Workspace = 3,
    User = 4,
    Admin = 5,
}

impl Tier {
    pub fn name(self) -> &'static str {
        match self {
            Tier::Default => "default",
            Tier::Extension => "extension",
            Tier::Workspace => "workspace",
            Tier::User => "user",
            Tier::Admin => "admin",
        }
    }
}

/// A settings scope, in merge order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    SystemDefaults,
    User,
    Workspace,
    System,
}

impl Scope {
    pub fn name(self) -> &'static str {
        match self {
            Scope::SystemDefaults => "system defaults",
            Scope::User => "user",
            Scope::Workspace => "workspace",
            Scope::System => "system",
        }
    }
}

/// A policy file of the session.
#[derive(Debug, Clone)]
pub struct PolicyDoc {
    pub tier: Tier,
    pub path: PathBuf,
    pub text: String,
    pub read: PolicyFile,
    /// Why the CLI does not read it at all (workspace policies in 0.61.0,
    /// a name not ending in `.toml`, a folder `policyPaths` replaced).
    pub not_loaded: Option<String>,
    /// The extension whose `policies/` folder holds it (tier 2: its allow
    /// rules and its yolo-mode rules are ignored).
    pub extension: Option<String>,
}

/// A settings file of the session.
#[derive(Debug, Clone)]
pub struct SettingsDoc {
    pub scope: Scope,
    pub path: PathBuf,
    pub text: String,
    pub read: SettingsFile,
    /// Merged (a workspace file of an untrusted folder is not).
    pub applies: bool,
}

/// Where an engine rule comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum Origin {
    /// A policy file's rule: the file (`Policy::policies`), its 0-based
    /// rule index, and the expansion (`PolicyFile::expanded`).
    File {
        doc: usize,
        rule: usize,
        expanded: usize,
    },
    /// The CLI's own default rules.
    Builtin { file: &'static str, rule: usize },
    /// A settings key (`tools.allowed`, …): the settings file and the
    /// entry's range when known.
    Settings {
        key: &'static str,
        entry: String,
        place: Option<(usize, std::ops::Range<usize>)>,
    },
}

/// One rule of the engine.
#[derive(Debug, Clone)]
pub struct Rule {
    pub tool_name: String,
    pub mcp_name: Option<String>,
    pub subagent: Option<String>,
    pub decision: Decision,
    pub priority: f64,
    pub modes: Option<Vec<Mode>>,
    pub interactive: Option<bool>,
    pub annotations: Option<Vec<(String, Json)>>,
    pub pattern: Option<JsRegex>,
    /// A pattern this checker could not translate (reaching the rule makes
    /// the answer incomplete).
    pub untranslated: Option<String>,
    pub allow_redirection: bool,
    pub deny_message: Option<String>,
    pub origin: Origin,
    /// "User: a.toml", "Settings (Tools Allowed)", …
    pub source: String,
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

/// A whole session as Gemini CLI reads it.
#[derive(Debug, Clone)]
pub struct Policy {
    pub env: Env,
    pub settings: Vec<SettingsDoc>,
    pub policies: Vec<PolicyDoc>,
    /// The merged settings.
    pub merged: Json,
    pub folder_trust: bool,
    pub trusted: bool,
    pub mode: Mode,
    pub mode_source: String,
    /// ACP or the TUI (`false`: `gemini -p`).
    pub interactive: bool,
    pub disable_always_allow: bool,
    /// In engine order.
    pub rules: Vec<Rule>,
    /// Tool names `tools.exclude` lists (with `ask_user`, which the CLI
    /// adds in ACP and headless sessions).
    pub exclude: Vec<String>,
    /// `tools.core`, when set.
    pub core: Option<Vec<String>>,
    /// The MCP servers of `mcpServers` (name, trusted).
    pub mcp_servers: Vec<(String, bool)>,
    pub mcp_allowed: Option<Vec<String>>,
    pub mcp_excluded: Vec<String>,
    /// The CLI does not start (a broken settings file, `toolName = ""`,
    /// yolo with `disableYoloMode`, an unknown mode).
    pub fatal: Option<String>,
    pub notes: Vec<String>,
    /// `rules` indexed by the literal each `commandPrefix` rule needs.
    pub index: RuleIndex,
    /// `getExcludedTools`' answer per tool and server, with what it could
    /// not answer: it does not depend on the arguments, and a run of deny
    /// rules with patterns before it made every decision walk them.
    pub excluded_memo: ExcludedMemo,
    /// The real path of `env.cwd` (every decision starts from it; the
    /// lookup is a system call per path component).
    pub real_cwd: BuiltOnce<PathBuf>,
}

/// An answer of `excluded` and the gaps it found.
pub type Excluded = (Option<Option<usize>>, Vec<String>);

/// A cache of `excluded` answers (a clone starts empty).
#[derive(Default)]
pub struct ExcludedMemo(std::sync::Mutex<HashMap<(String, Option<String>), Excluded>>);

impl ExcludedMemo {
    pub fn get_or(
        &self,
        name: &str,
        server: Option<&str>,
        f: impl FnOnce() -> Excluded,
    ) -> Excluded {
        let key = (name.to_string(), server.map(str::to_string));
        if let Some(hit) = self.0.lock().ok().and_then(|m| m.get(&key).cloned()) {
            return hit;
        }
        let made = f();
        if let Ok(mut m) = self.0.lock() {
            if m.len() >= 4096 {
                m.clear();
            }
            m.insert(key, made.clone());
        }
        made
    }
}

impl Clone for ExcludedMemo {
    fn clone(&self) -> Self {
        ExcludedMemo::default()
    }
}

impl std::fmt::Debug for ExcludedMemo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ExcludedMemo")
    }
}

/// The rules a call can match, found without trying every rule: each
/// `commandPrefix` rule matches only a call whose stringified arguments
/// hold its literal (`"command":"git status`), so a walk from each
/// `"command":` of the arguments finds the candidates among them; the
/// other rules (no pattern, another regex) are always tried. Exact: a rule
/// left out could not have matched.
#[derive(Debug, Clone, Default)]
pub struct RuleIndex(crate::core::literal_index::LiteralIndex);

/// What every `commandPrefix` literal starts with.
const COMMAND_KEY: &[u8] = b"\"command\":";

impl RuleIndex {
    pub fn new(rules: &[Rule]) -> RuleIndex {
        RuleIndex(crate::core::literal_index::LiteralIndex::new(
            rules.iter().enumerate().map(|(i, r)| {
                let lit = r
                    .pattern
                    .as_ref()
                    .filter(|_| r.untranslated.is_none())
                    .and_then(|p| p.required_literal())
                    .filter(|l| l.starts_with(COMMAND_KEY));
                (i, lit)
            }),
        ))
    }

    /// The rules that can match a call with these stringified arguments
    /// (`None`: no arguments), in rule order.
    pub fn candidates(&self, stringified: Option<&str>) -> Vec<usize> {
        let s = stringified.unwrap_or_default().as_bytes();
        self.0
            .candidates(memchr::memmem::find_iter(s, COMMAND_KEY).map(|at| &s[at..]))
    }
}

fn read_text(path: &Path, ctx: &Context<'_>) -> Option<String> {
    if let Some(t) = (ctx.open)(path) {
        return Some(t);
    }
    crate::fsio::read_text(path, 8 << 20)
}

/// Node's `path.resolve(base, p)` for POSIX paths.
pub fn resolve(base: &Path, p: &str) -> PathBuf {
    let joined = if p.starts_with('/') {
        PathBuf::from(p)
    } else {
        base.join(p)
    };
    let mut out = PathBuf::from("/");
    for c in joined.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::Normal(n) => out.push(n),
            _ => {}
        }
    }
    out
}

/// `~`-expansion of a settings path (`resolvePath`).
fn expand(p: &str, home: &Path, cwd: &Path) -> PathBuf {
    if p == "~" {
        return home.to_path_buf();
    }
    if let Some(rest) = p.strip_prefix("~/") {
        return home.join(rest);
    }
    resolve(cwd, p)
}

/// The trust of `cwd` in `trustedFolders.json`: the entry with the
/// longest written path that contains it.
fn trust_of(text: Option<&str>, cwd: &Path) -> Result<Option<bool>, String> {
    let Some(t) = text else { return Ok(None) };
    let stripped = crate::syntax::strip::strip_json_comments(t);
    let v: Json = crate::syntax::json::from_str_like_node(&stripped.text)
        .ok_or_else(|| "not valid JSON".to_string())?;
    let Json::Object(map) = v else {
        return Ok(None);
    };
    let mut best: Option<(usize, bool)> = None;
    for (k, v) in map {
        let trust = match v.as_str() {
            Some("TRUST_FOLDER") | Some("TRUST_PARENT") => true,
            Some("DO_NOT_TRUST") => false,
            _ => continue,
        };
        let p = resolve(Path::new("/"), &k);
        let dir = if v.as_str() == Some("TRUST_PARENT") {
            p.parent().map(Path::to_path_buf).unwrap_or(p)
        } else {
            p
        };
        if cwd.starts_with(&dir) && best.is_none_or(|(len, _)| k.len() > len) {
            best = Some((k.len(), trust));
        }
    }
    Ok(best.map(|(_, t)| t))
}

/// The merge strategy of a settings path.
fn strategy(path: &[String]) -> &'static str {
    let p: Vec<&str> = path.iter().map(String::as_str).collect();
    match p.as_slice() {
        ["policyPaths"] | ["adminPolicyPaths"] | ["tools", "exclude"] => "union",
        ["mcpServers"] => "shallow",
        _ => "replace",
    }
}

fn merge_into(target: &mut serde_json::Map<String, Json>, source: &Json, path: &mut Vec<String>) {
    let Json::Object(src) = source else { return };
    for (k, v) in src {
        if k == "__proto__" || k == "constructor" || k == "prototype" {
            continue;
        }
        path.push(k.clone());
        let strat = strategy(path);
        let existing = target.get(k).cloned();
        match (&existing, strat) {
            (Some(Json::Object(a)), "shallow") => {
                let mut m = a.clone();
                if let Json::Object(b) = v {
                    for (bk, bv) in b {
                        m.insert(bk.clone(), bv.clone());
                    }
                }
                target.insert(k.clone(), Json::Object(m));
            }
            (Some(Json::Array(a)), "union") => {
                let mut out = a.clone();
                let add: Vec<Json> = match v {
                    Json::Array(b) => b.clone(),
                    other => vec![other.clone()],
                };
                for x in add {
                    if !out.contains(&x) {
                        out.push(x);
                    }
                }
                target.insert(k.clone(), Json::Array(out));
            }
            (Some(Json::Object(_)), _) if v.is_object() => {
                if let Some(Json::Object(t)) = target.get_mut(k) {
                    merge_into(t, v, path);
                }
            }
            _ if v.is_object() => {
                let mut t = serde_json::Map::new();
                merge_into(&mut t, v, path);
                target.insert(k.clone(), Json::Object(t));
            }
            _ => {
                target.insert(k.clone(), v.clone());
            }
        }
        path.pop();
    }
}

fn merge(sources: &[&Json]) -> Json {
    let mut t = serde_json::Map::new();
    for s in sources {
        merge_into(&mut t, s, &mut Vec::new());
    }
    Json::Object(t)
}

fn get<'a>(v: &'a Json, path: &[&str]) -> Option<&'a Json> {
    let mut cur = v;
    for k in path {
        cur = cur.get(*k)?;
    }
    Some(cur)
}

fn string_list(v: &Json, path: &[&str]) -> Option<Vec<String>> {
    match get(v, path)? {
        Json::Array(a) => Some(
            a.iter()
                .map(|x| match x {
                    Json::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .collect(),
        ),
        _ => None,
    }
}

/// The `.toml` files of a policy path (a folder: the names ending in
/// `.toml`, in byte order; a file ending in `.toml`), with the buffers
/// open in the editor.
fn policy_files(dir: &Path, ctx: &Context<'_>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if dir.extension().is_some_and(|e| e == "toml") && !dir.is_dir() {
        if (ctx.open)(dir).is_some() || dir.is_file() {
            out.push(dir.to_path_buf());
        }
        return out;
    }
    if let Ok(rd) = crate::fsio::read_dir(dir) {
        for e in rd.flatten().take(4096) {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.ends_with(".toml") && e.file_type().is_ok_and(|t| t.is_file() || t.is_symlink())
            {
                out.push(e.path());
            }
        }
    }
    if let Some(d) = &ctx.document
        && d.parent() == Some(dir)
        && d.to_string_lossy().ends_with(".toml")
        && !out.contains(d)
        && (ctx.open)(d).is_some()
    {
        out.push(d.clone());
    }
    out.sort_by(|a, b| a.file_name().cmp(&b.file_name()));
    out
}

impl Policy {
    /// The session of `ctx`.
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
            .unwrap_or_else(|| PathBuf::from("/etc/gemini-cli/settings.json"));
        let defaults_path = arg(DEFAULTS_ENV).map(PathBuf::from).unwrap_or_else(|| {
            system
                .parent()
                .unwrap_or(Path::new("/"))
                .join("system-defaults.json")
        });
        let user = ctx
            .global_config
            .clone()
            .unwrap_or_else(|| env.home.join(".gemini").join("settings.json"));
        let workspace = env.cwd.join(".gemini").join("settings.json");
        let mut places = vec![
            (Scope::System, system),
            (Scope::SystemDefaults, defaults_path),
            (Scope::User, user.clone()),
        ];
        // A session started in the home folder reads no workspace file.
        if env.cwd != env.home && workspace != user {
            places.push((Scope::Workspace, workspace));
        }
        let mut settings_docs = Vec::new();
        let mut fatal: Option<String> = None;
        let mut notes = Vec::new();
        for (scope, path) in places {
            let Some(text) = read_text(&path, ctx) else {
                continue;
            };
            let read = settings::read(&text);
            if let Some((_, m)) = &read.error
                && fatal.is_none()
            {
                fatal = Some(format!(
                    "Error in {}: {m} — Gemini CLI stops at start (\"Please fix the configuration file(s) and try again.\")",
                    path.display()
                ));
            }
            let applies = read.error.is_none();
            settings_docs.push(SettingsDoc {
                scope,
                path,
                text,
                read,
                applies,
            });
        }
        let value_of = |s: Scope| {
            settings_docs
                .iter()
                .find(|d| d.scope == s && d.applies)
                .map(|d| d.read.value.clone())
                .unwrap_or(Json::Object(Default::default()))
        };
        let (sys, sysdef, usr, ws) = (
            value_of(Scope::System),
            value_of(Scope::SystemDefaults),
            value_of(Scope::User),
            value_of(Scope::Workspace),
        );
        let trust_settings = merge(&[&sysdef, &usr, &sys]);
        let folder_trust = get(&trust_settings, &["security", "folderTrust", "enabled"])
            .and_then(Json::as_bool)
            .unwrap_or(true);
        // The environment overrides (`GEMINI_RESTRICTED_MODE`,
        // `GEMINI_CLI_TRUST_WORKSPACE`) are read from the CLI's source, not
        // recorded on it; the trust file and `folderTrust` are.
        let trust_env = arg("GEMINI_CLI_TRUST_WORKSPACE");
        let trusted = if arg("GEMINI_RESTRICTED_MODE").as_deref() == Some("true")
            || trust_env.as_deref() == Some("false")
        {
            false
        } else if trust_env.as_deref() == Some("true") || !folder_trust {
            true
        } else {
            let tf = env.home.join(".gemini").join("trustedFolders.json");
            match trust_of(read_text(&tf, ctx).as_deref(), &env.cwd) {
                Ok(t) => t.unwrap_or(false),
                Err(e) => {
                    if fatal.is_none() {
                        fatal = Some(format!(
                            "Error in {}: {e} — Gemini CLI stops at start",
                            tf.display()
                        ));
                    }
                    false
                }
            }
        };
        for d in settings_docs.iter_mut() {
            if d.scope == Scope::Workspace && !trusted && d.applies {
                d.applies = false;
                notes.push(format!(
                    "{} is ignored: this folder is not trusted",
                    d.path.display()
                ));
            }
        }
        let ws = if trusted {
            ws
        } else {
            Json::Object(Default::default())
        };
        let merged = merge(&[&sysdef, &usr, &ws, &sys]);

        // The approval mode.
        let flag = ctx
            .options
            .runtime_arg(MODE_ARG)
            .or_else(|| ctx.options.runtime_arg(PERMISSION_MODE_ARG))
            .map(str::to_string);
        let setting = get(&merged, &["general", "defaultApprovalMode"])
            .and_then(Json::as_str)
            .map(str::to_string);
        let (raw, mut mode_source) = match (&flag, &setting) {
            (Some(f), _) => (Some(f.clone()), "--approval-mode".to_string()),
            (None, Some(s)) if s != "yolo" => {
                (Some(s.clone()), "general.defaultApprovalMode".to_string())
            }
            (None, Some(_)) => {
                notes.push("general.defaultApprovalMode \"yolo\" is ignored: yolo exists only on the command line".into());
                (None, "the default".to_string())
            }
            _ => (None, "the default".to_string()),
        };
        let mut mode = Mode::Default;
        if let Some(r) = raw {
            match Mode::from_flag(&r) {
                Some(Mode::Plan)
                    if get(&merged, &["general", "plan", "enabled"]).and_then(Json::as_bool)
                        == Some(false) =>
                {
                    notes.push(
                        "approval mode plan is disabled by general.plan.enabled: default".into(),
                    );
                }
                Some(m) => mode = m,
                None => {
                    fatal.get_or_insert(format!(
                        "Invalid approval mode: {r}. Valid values are: yolo, auto_edit, plan, default"
                    ));
                }
            }
        }
        let secure =
            get(&merged, &["admin", "secureModeEnabled"]).and_then(Json::as_bool) == Some(true);
        if mode == Mode::Yolo
            && (secure
                || get(&merged, &["security", "disableYoloMode"]).and_then(Json::as_bool)
                    == Some(true))
        {
            fatal.get_or_insert("YOLO mode is disabled by the settings (security.disableYoloMode or admin.secureModeEnabled): Gemini CLI stops at start".into());
        }
        if !trusted && mode != Mode::Default {
            notes.push(format!(
                "approval mode {} overridden to default: this folder is not trusted",
                mode.flag_name()
            ));
            mode = Mode::Default;
            mode_source = "forced: the folder is not trusted".into();
        }
        let interactive = ctx.options.runtime_arg(HEADLESS_ARG) != Some("true");
        if !interactive && folder_trust && !trusted {
            fatal.get_or_insert("Gemini CLI is not running in a trusted directory: headless (`gemini -p`) it stops at start (trust the folder, pass `--skip-trust`, or set GEMINI_CLI_TRUST_WORKSPACE=true)".into());
        }
        let disable_always_allow =
            get(&merged, &["security", "disableAlwaysAllow"]).and_then(Json::as_bool) == Some(true)
                || secure;

        // Policy files by tier.
        let mut policies: Vec<PolicyDoc> = Vec::new();
        let flag_policies: Vec<String> = ctx
            .options
            .runtime_args
            .iter()
            .filter(|(k, _)| k == POLICY_ARG)
            .map(|(_, v)| v.clone())
            .collect();
        let policy_paths: Vec<PathBuf> = if !flag_policies.is_empty() {
            flag_policies
                .iter()
                .map(|p| expand(p, &env.home, &env.cwd))
                .collect()
        } else {
            string_list(&merged, &["policyPaths"])
                .unwrap_or_default()
                .iter()
                .map(|p| expand(p, &env.home, &env.cwd))
                .collect()
        };
        let user_dir = env.home.join(".gemini").join("policies");
        let admin_dirs: Vec<PathBuf> = string_list(&merged, &["adminPolicyPaths"])
            .unwrap_or_default()
            .iter()
            .map(|p| expand(p, &env.home, &env.cwd))
            .collect();
        let mut dirs: Vec<(Tier, PathBuf)> =
            vec![(Tier::Admin, PathBuf::from("/etc/gemini-cli/policies"))];
        for d in admin_dirs {
            dirs.push((Tier::Admin, d));
        }
        if policy_paths.is_empty() {
            dirs.push((Tier::User, user_dir.clone()));
        } else {
            for p in &policy_paths {
                dirs.push((Tier::User, p.clone()));
            }
        }
        for (tier, dir) in &dirs {
            for path in policy_files(dir, ctx) {
                let Some(text) = read_text(&path, ctx) else {
                    continue;
                };
                let read = toml_policy::read(&text);
                policies.push(PolicyDoc {
                    tier: *tier,
                    path,
                    text,
                    read,
                    not_loaded: None,
                    extension: None,
                });
            }
        }
        if !policy_paths.is_empty() {
            for path in policy_files(&user_dir, ctx) {
                if policies.iter().any(|p| p.path == path) {
                    continue;
                }
                let Some(text) = read_text(&path, ctx) else {
                    continue;
                };
                let read = toml_policy::read(&text);
                policies.push(PolicyDoc {
                    tier: Tier::User,
                    path,
                    text,
                    read,
                    not_loaded: Some("`policyPaths` (or `--policy`) replaces ~/.gemini/policies: the CLI does not read this folder".into()),
                    extension: None,
                });
            }
        }
        // Extensions (tier 2): `~/.gemini/extensions/<dir>/policies/*.toml`
        // of each installed extension (its `gemini-extension.json` names it).
        let ext_root = env.home.join(".gemini").join("extensions");
        let mut ext_dirs: Vec<PathBuf> = crate::fsio::read_dir(&ext_root)
            .map(|rd| {
                rd.flatten()
                    .take(256)
                    .map(|e| e.path())
                    .filter(|p| p.is_dir())
                    .collect()
            })
            .unwrap_or_default();
        ext_dirs.sort();
        if !ext_dirs.is_empty() && crate::fsio::exists(&ext_root.join("extension-enablement.json"))
        {
            notes.push("~/.gemini/extensions/extension-enablement.json is not read by this simulation: every installed extension's policies are taken as active".into());
        }
        for ext in ext_dirs {
            let name = read_text(&ext.join("gemini-extension.json"), ctx)
                .and_then(|t| {
                    crate::syntax::json::from_str_like_node(
                        &crate::syntax::strip::strip_json_comments(&t).text,
                    )
                })
                .and_then(|v| v.get("name").and_then(Json::as_str).map(str::to_string));
            let Some(name) = name else { continue };
            for path in policy_files(&ext.join("policies"), ctx) {
                let Some(text) = read_text(&path, ctx) else {
                    continue;
                };
                let read = toml_policy::read(&text);
                policies.push(PolicyDoc {
                    tier: Tier::Extension,
                    path,
                    text,
                    read,
                    not_loaded: None,
                    extension: Some(name.clone()),
                });
            }
        }
        let ws_dir = env.cwd.join(".gemini").join("policies");
        if ws_dir != user_dir {
            for path in policy_files(&ws_dir, ctx) {
                let Some(text) = read_text(&path, ctx) else {
                    continue;
                };
                let read = toml_policy::read(&text);
                policies.push(PolicyDoc {
                    tier: Tier::Workspace,
                    path,
                    text,
                    read,
                    not_loaded: Some("Gemini CLI 0.61.0 never loads workspace policies (`<project>/.gemini/policies/`): the rules of this file do nothing".into()),
                    extension: None,
                });
            }
        }
        for p in &policies {
            if p.not_loaded.is_none()
                && p.extension.is_none()
                && let Some(f) = p.read.fatal()
            {
                fatal.get_or_insert(format!(
                    "{}: {} — the policy engine throws and Gemini CLI stops at start",
                    p.path.display(),
                    f.message
                ));
            }
        }

        // The rules, in the order the engine is built.
        let mut rules: Vec<Rule> = Vec::new();
        for (di, p) in policies.iter().enumerate() {
            if p.not_loaded.is_some() {
                continue;
            }
            let start = rules.len();
            push_file_rules(
                &mut rules,
                &p.read,
                p.tier,
                &file_name(&p.path),
                |rule, expanded| Origin::File {
                    doc: di,
                    rule,
                    expanded,
                },
            );
            if let Some(ext) = &p.extension {
                // An extension may not allow, nor speak for yolo mode.
                let mut k = start;
                while k < rules.len() {
                    let r = &rules[k];
                    if r.decision == Decision::Allow
                        || r.modes.as_ref().is_some_and(|m| m.contains(&Mode::Yolo))
                    {
                        rules.remove(k);
                    } else {
                        rules[k].source = format!("Extension ({ext}): {}", file_name(&p.path));
                        k += 1;
                    }
                }
            }
        }
        rules.extend(default_tier().iter().cloned());
        // Where each settings entry is written: the last applying file that
        // lists it, its first occurrence there. Indexed once per key path
        // (a search per entry made long lists quadratic).
        type Places = HashMap<String, (usize, std::ops::Range<usize>)>;
        let places: RefCell<HashMap<Vec<String>, Places>> = RefCell::default();
        let settings_place =
            |key_path: &[&str], entry: &str| -> Option<(usize, std::ops::Range<usize>)> {
                let key: Vec<String> = key_path.iter().map(|k| k.to_string()).collect();
                let mut places = places.borrow_mut();
                let index = places.entry(key).or_insert_with(|| {
                    let mut index = Places::new();
                    for (i, d) in settings_docs.iter().enumerate().rev() {
                        let Some(root) = d.read.root.as_ref().filter(|_| d.applies) else {
                            continue;
                        };
                        for (s, r) in settings::strings_at(root, key_path) {
                            index.entry(s).or_insert((i, r));
                        }
                    }
                    index
                });
                index.get(entry).cloned()
            };
        let settings_rule = |tool: &str,
                             decision: Decision,
                             priority: f64,
                             key: &'static str,
                             entry: &str,
                             source: &str,
                             modes: Option<Vec<Mode>>,
                             pattern: Option<JsRegex>,
                             mcp: Option<String>,
                             key_path: &[&str]| Rule {
            tool_name: tool.to_string(),
            mcp_name: mcp,
            subagent: None,
            decision,
            priority,
            modes,
            interactive: None,
            annotations: None,
            pattern,
            untranslated: None,
            allow_redirection: false,
            deny_message: None,
            origin: Origin::Settings {
                key,
                entry: entry.to_string(),
                place: settings_place(key_path, entry),
            },
            source: source.to_string(),
        };
        let mcp_excluded = string_list(&merged, &["mcp", "excluded"]).unwrap_or_default();
        for s in &mcp_excluded {
            rules.push(settings_rule(
                &if s == "*" {
                    "mcp_*".to_string()
                } else {
                    format!("mcp_{s}_*")
                },
                Decision::Deny,
                4.0 + 0.9,
                "mcp.excluded",
                s,
                "Settings (MCP Excluded)",
                None,
                None,
                Some(s.clone()),
                &["mcp", "excluded"],
            ));
        }
        let mut exclude: Vec<String> =
            string_list(&merged, &["tools", "exclude"]).unwrap_or_default();
        let mut seen = std::collections::HashSet::new();
        exclude.retain(|t| seen.insert(t.clone()));
        if !exclude.iter().any(|t| t == "ask_user") {
            exclude.push("ask_user".into());
        }
        for t in &exclude {
            rules.push(settings_rule(
                t,
                Decision::Deny,
                4.0 + 0.4,
                "tools.exclude",
                t,
                "Settings (Tools Excluded)",
                None,
                None,
                None,
                &["tools", "exclude"],
            ));
        }
        let non_plan = Some(vec![Mode::Default, Mode::AutoEdit, Mode::Yolo]);
        let map_tools = |rules: &mut Vec<Rule>,
                         tools: &[String],
                         priority: f64,
                         key: &'static str,
                         source: &str,
                         modes: Option<Vec<Mode>>,
                         narrowing: bool,
                         key_path: &[&str]| {
            let mut narrowed = false;
            for tool in tools {
                let parsed = split_call(tool);
                match parsed {
                    Some((name, args)) => {
                        let name = if model::SHELL_TOOL_NAMES.contains(&name) {
                            model::SHELL_TOOL
                        } else {
                            name
                        };
                        if name == model::SHELL_TOOL {
                            narrowed = true;
                            // `run_shell_command()`: an empty prefix is no
                            // pattern, so no allow (the narrowing deny
                            // stays).
                            if !args.is_empty() {
                                let re = JsRegex::command_prefix(args);
                                rules.push(settings_rule(
                                    name,
                                    Decision::Allow,
                                    priority,
                                    key,
                                    tool,
                                    source,
                                    modes.clone(),
                                    Some(re),
                                    None,
                                    key_path,
                                ));
                            }
                        } else {
                            rules.push(settings_rule(
                                name,
                                Decision::Allow,
                                priority,
                                key,
                                tool,
                                source,
                                modes.clone(),
                                None,
                                None,
                                key_path,
                            ));
                        }
                    }
                    None => {
                        let name = if model::SHELL_TOOL_NAMES.contains(&tool.as_str()) {
                            model::SHELL_TOOL
                        } else {
                            tool.as_str()
                        };
                        rules.push(settings_rule(
                            name,
                            Decision::Allow,
                            priority,
                            key,
                            tool,
                            source,
                            modes.clone(),
                            None,
                            None,
                            key_path,
                        ));
                    }
                }
            }
            if narrowing && narrowed {
                let mut r = settings_rule(
                    model::SHELL_TOOL,
                    Decision::Deny,
                    priority - 0.01,
                    key,
                    "",
                    &format!("{source} (Narrowing Enforcement)"),
                    modes.clone(),
                    None,
                    None,
                    key_path,
                );
                r.origin = Origin::Settings {
                    key,
                    entry: String::new(),
                    place: None,
                };
                rules.push(r);
            }
        };
        let allowed = string_list(&merged, &["tools", "allowed"]).unwrap_or_default();
        if !allowed.is_empty() || get(&merged, &["tools", "allowed"]).is_some() {
            map_tools(
                &mut rules,
                &allowed,
                4.0 + 0.3,
                "tools.allowed",
                "Settings (Tools Allowed)",
                None,
                true,
                &["tools", "allowed"],
            );
        }
        if let Some(list) = string_list(&merged, &["tools", "confirmationRequired"]) {
            for t in &list {
                let name = if model::SHELL_TOOL_NAMES.contains(&t.as_str()) {
                    model::SHELL_TOOL
                } else {
                    t.as_str()
                };
                rules.push(settings_rule(
                    name,
                    Decision::Ask,
                    4.0 + 0.35,
                    "tools.confirmationRequired",
                    t,
                    "Settings (Confirmation Required)",
                    None,
                    None,
                    None,
                    &["tools", "confirmationRequired"],
                ));
            }
        }
        let core = string_list(&merged, &["tools", "core"]);
        if let Some(c) = &core {
            map_tools(
                &mut rules,
                c,
                4.0 + 0.25,
                "tools.core",
                "Settings (Core Tools)",
                non_plan.clone(),
                false,
                &["tools", "core"],
            );
            let mut r = settings_rule(
                "*",
                Decision::Deny,
                4.0 + 0.25 - 0.01,
                "tools.core",
                "",
                "Settings (Core Tools Allowlist Enforcement)",
                non_plan.clone(),
                None,
                None,
                &["tools", "core"],
            );
            r.origin = Origin::Settings {
                key: "tools.core",
                entry: String::new(),
                place: None,
            };
            rules.push(r);
        }
        let mut mcp_servers = Vec::new();
        if let Some(Json::Object(servers)) = get(&merged, &["mcpServers"]) {
            for (name, cfg) in servers {
                let trust = cfg.get("trust").and_then(Json::as_bool) == Some(true);
                mcp_servers.push((name.clone(), trust));
                if trust {
                    rules.push(settings_rule(
                        &format!("mcp_{name}_*"),
                        Decision::Allow,
                        4.0 + 0.2,
                        "mcpServers.trust",
                        name,
                        "Settings (MCP Trusted)",
                        non_plan.clone(),
                        None,
                        Some(name.clone()),
                        &["mcpServers"],
                    ));
                }
            }
        }
        let mcp_allowed = string_list(&merged, &["mcp", "allowed"]);
        if let Some(list) = &mcp_allowed {
            for s in list {
                rules.push(settings_rule(
                    &if s == "*" {
                        "mcp_*".to_string()
                    } else {
                        format!("mcp_{s}_*")
                    },
                    Decision::Allow,
                    4.0 + 0.1,
                    "mcp.allowed",
                    s,
                    "Settings (MCP Allowed)",
                    non_plan.clone(),
                    None,
                    Some(s.clone()),
                    &["mcp", "allowed"],
                ));
            }
        }
        if !interactive
            && get(&merged, &["mcp", "autoAllowInHeadless"]).and_then(Json::as_bool) == Some(true)
        {
            for (name, trust) in &mcp_servers {
                let listed = mcp_allowed
                    .as_ref()
                    .is_some_and(|l| l.iter().any(|s| s == name || s == "*"));
                if !listed && !trust {
                    rules.push(settings_rule(
                        &format!("mcp_{name}_*"),
                        Decision::Allow,
                        4.0 + 0.1,
                        "mcp.autoAllowInHeadless",
                        name,
                        "Settings (Headless MCP Auto-Allow)",
                        non_plan.clone(),
                        None,
                        Some(name.clone()),
                        &["mcp", "autoAllowInHeadless"],
                    ));
                }
            }
        }
        // A stable sort, highest priority first.
        rules.sort_by(|a, b| {
            b.priority
                .partial_cmp(&a.priority)
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        for p in &policies {
            if let Some(d) = p.read.dropped()
                && p.not_loaded.is_none()
            {
                notes.push(format!(
                    "[{}] Policy file error in {}: the whole file is dropped ({})",
                    p.tier.name().to_uppercase(),
                    file_name(&p.path),
                    d.message.lines().next().unwrap_or("")
                ));
            }
        }
        let index = RuleIndex::new(&rules);
        Policy {
            env,
            settings: settings_docs,
            policies,
            merged,
            folder_trust,
            trusted,
            mode,
            mode_source,
            interactive,
            disable_always_allow,
            rules,
            exclude,
            core,
            mcp_servers,
            mcp_allowed,
            mcp_excluded,
            fatal,
            notes,
            index,
            excluded_memo: ExcludedMemo::default(),
            real_cwd: BuiltOnce::default(),
        }
    }

    /// The rule's 0.950 band ("always allow") is skipped.
    pub fn skipped(&self, r: &Rule) -> bool {
        self.disable_always_allow && ((r.priority % 1.0) * 1000.0).round() as i64 == 950
    }
}

/// The bundled default tier, read once.
fn default_tier() -> &'static [Rule] {
    static RULES: std::sync::OnceLock<Vec<Rule>> = std::sync::OnceLock::new();
    RULES.get_or_init(|| {
        let mut rules = Vec::new();
        for (name, text) in defaults::FILES {
            let read = toml_policy::read(text);
            push_file_rules(&mut rules, &read, Tier::Default, name, |rule, _| {
                Origin::Builtin { file: name, rule }
            });
        }
        rules
    })
}

pub fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// `name(args)` of a settings tool entry (`/^([a-zA-Z0-9_-]+)\((.*)\)$/`).
pub fn split_call(s: &str) -> Option<(&str, &str)> {
    let open = s.find('(')?;
    let name = &s[..open];
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        || !s.ends_with(')')
        || s[open + 1..s.len() - 1].contains(['\n', '\r', '\u{2028}', '\u{2029}'])
    {
        return None;
    }
    Some((name, &s[open + 1..s.len() - 1]))
}

fn push_file_rules(
    rules: &mut Vec<Rule>,
    read: &PolicyFile,
    tier: Tier,
    name: &str,
    origin: impl Fn(usize, usize) -> Origin,
) {
    if read.dropped().is_some() {
        return;
    }
    let tier_name = tier.name();
    let label = format!(
        "{}{}: {name}",
        tier_name[..1].to_uppercase(),
        &tier_name[1..]
    );
    rules.reserve(read.expanded.len());
    for (k, e) in read.expanded.iter().enumerate() {
        let spec = &read.rules[e.rule];
        rules.push(Rule {
            tool_name: e.tool_name.clone(),
            mcp_name: spec.mcp_name.as_ref().map(|m| m.value.clone()),
            subagent: spec.subagent.clone(),
            decision: spec.decision.value,
            priority: tier as i64 as f64 + spec.priority.value as f64 / 1000.0,
            modes: spec.modes.clone(),
            interactive: spec.interactive,
            annotations: spec.tool_annotations.clone(),
            pattern: e.pattern.clone(),
            untranslated: e.untranslated.clone(),
            allow_redirection: spec.allow_redirection.unwrap_or(false),
            deny_message: spec.deny_message.clone(),
            origin: origin(e.rule, k),
            source: label.clone(),
        });
    }
}
