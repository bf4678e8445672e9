//! The settings files Claude Code reads together, and what one file's rules
//! mean next to the others: the user's `~/.claude/settings.json`, the
//! project's `.claude/settings.json` and `.claude/settings.local.json`, the
//! managed settings, and the project's trust state in `~/.claude.json`
//! (observed on 2.1.332: an untrusted project's allow rules are ignored —
//! its ask and deny rules still apply; `bypassPermissions` is ignored in
//! project and local settings).

use super::codes::Code;
use super::lints;
use super::model::rules::{self, List, Reading};
use super::model::shape;
use crate::contract::Context;
use crate::core::diagnostic::Diagnostic;
use crate::syntax::Node;
use std::path::{Path, PathBuf};

/// Where a settings file sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    User,
    Project,
    Local,
    /// `--settings FILE` (or JSON text) of the session.
    Flag,
    Managed,
}

impl Source {
    fn describe(self) -> &'static str {
        match self {
            Source::User => "your user settings (~/.claude/settings.json)",
            Source::Project => "the project settings (.claude/settings.json)",
            Source::Local => "the local settings (.claude/settings.local.json)",
            Source::Flag => "the settings given with --settings",
            Source::Managed => "the managed settings",
        }
    }
}

/// The largest settings file the CLI reads (2 MiB).
pub const MAX_SETTINGS_BYTES: u64 = 2 * 1024 * 1024;
/// `~/.claude.json` holds every project's state; it can be large.
const MAX_STATE_BYTES: u64 = 64 * 1024 * 1024;
/// The managed settings folder of this platform (observed on Linux;
/// macOS's from the CLI's own text: documented, not verified).
#[cfg(target_os = "macos")]
pub const MANAGED_DIR: &str = "/Library/Application Support/ClaudeCode";
#[cfg(not(target_os = "macos"))]
pub const MANAGED_DIR: &str = "/etc/claude-code";
/// The managed settings file.
#[cfg(target_os = "macos")]
pub const MANAGED: &str = "/Library/Application Support/ClaudeCode/managed-settings.json";
#[cfg(not(target_os = "macos"))]
pub const MANAGED: &str = "/etc/claude-code/managed-settings.json";

/// The managed settings files: `managed-settings.json`, then the
/// `managed-settings.d/*.json` drop-ins in name order (at most 64).
pub fn managed_files() -> Vec<PathBuf> {
    let dir = Path::new(MANAGED_DIR);
    let mut out = vec![dir.join("managed-settings.json")];
    if let Ok(rd) = crate::fsio::read_dir(&dir.join("managed-settings.d")) {
        let mut drop_ins: Vec<PathBuf> = rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .take(64)
            .collect();
        drop_ins.sort();
        out.extend(drop_ins);
    }
    out
}

/// The home directory: the configured one, else `$HOME`.
pub fn home(ctx: &Context<'_>) -> Option<PathBuf> {
    let h = ctx.options.home.as_str();
    if !h.is_empty() && h != "~" {
        return Some(PathBuf::from(h));
    }
    std::env::var_os("HOME").map(PathBuf::from)
}

/// The session option that assumes the project is trusted (`--trusted`,
/// the editor's `permissionLsp.claude.trusted`).
pub const TRUSTED: &str = "trusted";

/// The project's trust for a session in `ctx`: `Some(true)` trusted,
/// `Some(false)` not trusted in the state file, `None` no state file (the
/// CLI has not run here: not trusted either). `--trusted` makes it true.
pub fn trust(ctx: &Context<'_>, project: &Path) -> Option<bool> {
    if ctx
        .options
        .runtime_arg(TRUSTED)
        .is_some_and(|v| v == "true")
    {
        return Some(true);
    }
    state_dir(ctx).and_then(|h| trusted(&h, project))
}

/// `CLAUDE_CONFIG_DIR` of the session (`--runtime-env`, else the
/// environment): where the CLI keeps the user's settings and its state
/// file instead of `~/.claude` and `~/.claude.json` (observed on 2.1.332:
/// `observed-config-dir.json`).
pub fn config_dir(ctx: &Context<'_>) -> Option<PathBuf> {
    ctx.options
        .runtime_args
        .iter()
        .rev()
        .find(|(k, _)| k == "CLAUDE_CONFIG_DIR")
        .map(|(_, v)| v.clone())
        .or_else(|| std::env::var("CLAUDE_CONFIG_DIR").ok())
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// The folder holding the CLI's state file (`.claude.json`: trust, MCP
/// servers): `CLAUDE_CONFIG_DIR`, else the home.
pub fn state_dir(ctx: &Context<'_>) -> Option<PathBuf> {
    config_dir(ctx).or_else(|| home(ctx))
}

/// The user's settings file: `$CLAUDE_CONFIG_DIR/settings.json`, else
/// `~/.claude/settings.json`.
pub fn user_settings(ctx: &Context<'_>) -> Option<PathBuf> {
    match config_dir(ctx) {
        Some(d) => Some(d.join("settings.json")),
        None => home(ctx).map(|h| h.join(".claude/settings.json")),
    }
}

/// The source of a settings file and its project directory (the folder
/// holding `.claude/`).
pub fn source_of(path: &Path, home: Option<&Path>) -> Option<(Source, PathBuf)> {
    let name = path.file_name()?.to_str()?;
    if name == "managed-settings.json" || path.parent()?.ends_with("managed-settings.d") {
        return Some((Source::Managed, path.parent()?.to_path_buf()));
    }
    let dot = path.parent()?;
    if dot.file_name()? != ".claude" {
        return None;
    }
    let project = dot.parent()?.to_path_buf();
    let source = match name {
        "settings.json" if home == Some(project.as_path()) => Source::User,
        "settings.json" => Source::Project,
        "settings.local.json" => Source::Local,
        _ => return None,
    };
    Some((source, project))
}

/// One other settings file as the CLI loads it: its rules, if it loads.
struct Other {
    source: Source,
    /// The rule texts of each list (allow, ask, deny).
    index: [rustc_hash::FxHashMap<String, ()>; 3],
    /// Every loaded rule, in file order.
    rules: Vec<(List, String)>,
}

fn load(path: &Path, source: Source, ctx: &Context<'_>) -> Option<Other> {
    let text = (ctx.open)(path).or_else(|| crate::fsio::read_text(path, MAX_SETTINGS_BYTES))?;
    let a = lints::analyse(&text);
    if !a.accepted {
        return None;
    }
    let mut index: [rustc_hash::FxHashMap<String, ()>; 3] = Default::default();
    let rules = loaded_rules(a.root.as_ref()?);
    for (l, r) in &rules {
        index[*l as usize].insert(r.clone(), ());
    }
    Some(Other {
        source,
        index,
        rules,
    })
}

/// The rules of a file that the CLI loads, per list.
pub fn loaded_rules(root: &Node) -> Vec<(List, String)> {
    let mut out = Vec::new();
    let Some(p) = lints::permissions_of(root) else {
        return out;
    };
    for list in [List::Allow, List::Ask, List::Deny] {
        for item in lints::list_items(p, list) {
            if let Some(r) = item.value.as_str()
                && matches!(rules::read(r, list), Reading::Loaded(_, flaw) if flaw.as_ref().is_none_or(|f| f.matches_as_written()))
            {
                out.push((list, r.to_string()));
            }
        }
    }
    out
}

/// What `~/.claude.json` says about a project: its trust, and the MCP
/// servers defined for it (user scope and the project's local scope).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectState {
    pub trusted: bool,
    pub servers: Vec<String>,
}

/// Is the project trusted in `~/.claude.json`? `None` when that file does
/// not exist or cannot be read (Claude Code has not run here: say nothing).
pub fn trusted(home: &Path, project: &Path) -> Option<bool> {
    project_state(home, project).map(|s| s.trusted)
}

/// The project's state in `~/.claude.json`; `None` when that file does not
/// exist or cannot be read. The file is the CLI's whole state (history
/// included) and can be large: the answer is kept until the file's size or
/// modification time changes, so a keystroke does not parse it again.
pub fn project_state(home: &Path, project: &Path) -> Option<ProjectState> {
    type Key = (PathBuf, PathBuf, u64, Option<std::time::SystemTime>);
    static LAST: std::sync::Mutex<Option<(Key, Option<ProjectState>)>> =
        std::sync::Mutex::new(None);
    let path = home.join(".claude.json");
    let meta = crate::fsio::metadata(&path).ok()?;
    let key: Key = (
        path.clone(),
        project.to_path_buf(),
        meta.len(),
        meta.modified().ok(),
    );
    if let Ok(last) = LAST.lock()
        && let Some((k, answer)) = last.as_ref()
        && *k == key
    {
        return answer.clone();
    }
    let answer = (|| {
        let text = crate::fsio::read_text(&path, MAX_STATE_BYTES)?;
        // The CLI reads it with `JSON.parse`: a lone surrogate escape (half
        // an emoji in the saved prompt history) does not make it unreadable.
        let v = crate::syntax::json::from_str_like_node(&text)?;
        let name = project.to_string_lossy();
        let p = &v["projects"][name.as_ref()];
        let mut servers: Vec<String> = [&v["mcpServers"], &p["mcpServers"]]
            .iter()
            .filter_map(|m| m.as_object())
            .flat_map(|m| m.keys().cloned())
            .collect();
        servers.sort();
        servers.dedup();
        Some(ProjectState {
            trusted: p["hasTrustDialogAccepted"] == serde_json::Value::Bool(true),
            servers,
        })
    })();
    if let Ok(mut last) = LAST.lock() {
        *last = Some((key, answer.clone()));
    }
    answer
}

/// The servers of the project's `.mcp.json` (the open buffer wins).
fn project_servers(project: &Path, ctx: &Context<'_>) -> Vec<String> {
    let path = project.join(".mcp.json");
    let Some(text) =
        (ctx.open)(&path).or_else(|| crate::fsio::read_text(&path, MAX_SETTINGS_BYTES))
    else {
        return Vec::new();
    };
    serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| {
            v["mcpServers"]
                .as_object()
                .map(|m| m.keys().cloned().collect())
        })
        .unwrap_or_default()
}

/// Every MCP server defined for the project: its `.mcp.json`, and
/// `~/.claude.json` (user and local scope).
pub fn mcp_servers(project: &Path, _home: Option<&Path>, ctx: &Context<'_>) -> Vec<String> {
    let mut all = state_dir(ctx)
        .and_then(|h| project_state(&h, project))
        .map(|s| s.servers)
        .unwrap_or_default();
    all.extend(project_servers(project, ctx));
    all.sort();
    all.dedup();
    all
}

/// MCP rules naming a server that no MCP config read here defines. Said
/// only when `~/.claude.json` exists (Claude Code has run here), and not
/// for servers other sources provide (claude.ai connectors, plugins).
fn unknown_servers(
    p: &[crate::syntax::Member],
    project: &Path,
    ctx: &Context<'_>,
    out: &mut Vec<Diagnostic>,
) {
    let mcp_items: Vec<(&Node, &str)> = [List::Allow, List::Ask, List::Deny]
        .into_iter()
        .flat_map(|l| lints::list_items(p, l))
        .filter_map(|n| {
            let r = n.value.as_str()?;
            let server = rules::split(r)?.tool.strip_prefix("mcp__")?;
            let server = server.split("__").next()?;
            (!server.is_empty()
                && !server.contains('*')
                && !server.starts_with("claude_ai_")
                && !server.starts_with("plugin_"))
            .then_some((n, server))
        })
        .collect();
    if mcp_items.is_empty() {
        return;
    }
    let Some(state) = state_dir(ctx).and_then(|h| project_state(&h, project)) else {
        return;
    };
    let mut known = state.servers;
    known.extend(project_servers(project, ctx));
    for (node, server) in mcp_items {
        if known.iter().any(|k| k == server) {
            continue;
        }
        let suggestion = known
            .iter()
            .map(|k| (crate::text::edit_distance(k, server), k))
            .filter(|(d, _)| *d <= 2)
            .min()
            .map(|(_, k)| format!(" — did you mean `{k}`?"))
            .unwrap_or_default();
        out.push(Diagnostic::new(
            Code::UnknownMcpServer,
            node.range.clone(),
            format!(
                "no MCP server named `{server}` is defined for this project (`.mcp.json`, or `mcpServers` in ~/.claude.json for you or this project): this rule matches no tool until one is{suggestion}"
            ),
        ));
    }
}

/// The findings that need the other settings files.
pub fn cross_file(root: Option<&Node>, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let (Some(root), Some(doc)) = (root, ctx.document.as_deref()) else {
        return;
    };
    let home = home(ctx);
    let Some((source, project)) = source_of(doc, home.as_deref()) else {
        return;
    };
    let Some(p) = lints::permissions_of(root) else {
        return;
    };
    // `bypassPermissions` (and `auto` in project settings) is ignored in
    // project and local settings.
    if let Some(m) = p.iter().rev().find(|m| m.key == "defaultMode")
        && let Some(mode) = m.value.value.as_str()
        && (matches!(source, Source::Project | Source::Local) && mode == "bypassPermissions"
            || source == Source::Project && mode == "auto")
    {
        out.push(Diagnostic::new(
            Code::ModeIgnored,
            m.value.range.clone(),
            format!(
                "Claude Code ignores `\"defaultMode\": \"{mode}\"` in {} without a word: only user, managed or command-line settings can start a session in this mode",
                source.describe()
            ),
        ));
    }
    unknown_servers(p, &project, ctx, out);
    // The other files.
    let mut others: Vec<Other> = Vec::new();
    let claude = project.join(".claude");
    let candidates = [
        (Source::User, user_settings(ctx)),
        (Source::Project, Some(claude.join("settings.json"))),
        (Source::Local, Some(claude.join("settings.local.json"))),
        (Source::Managed, Some(PathBuf::from(MANAGED))),
    ];
    for (s, path) in candidates {
        let Some(path) = path else { continue };
        let project_scoped = matches!(s, Source::Project | Source::Local);
        if s == source || (project_scoped && source == Source::User) || path == doc {
            continue;
        }
        others.extend(load(&path, s, ctx));
    }
    // An untrusted project: its allow rules are ignored.
    // Read only when the file has allow rules it could concern.
    let allows = lints::list_items(p, List::Allow);
    let project_scoped = matches!(source, Source::Project | Source::Local);
    let trust = if project_scoped && !allows.is_empty() {
        trust(ctx, &project)
    } else {
        Some(true)
    };
    let untrusted = trust == Some(false);
    // No state file at all (a fresh machine, every CI runner): the CLI
    // treats the project as untrusted — said once, on the allow list.
    if trust.is_none()
        && let Some(m) = p.iter().rev().find(|m| m.key == "allow")
    {
        let n = allows.len();
        out.push(Diagnostic::new(
            Code::UntrustedAllowIgnored,
            m.key_range.clone(),
            format!(
                "Claude Code has not run here (no ~/.claude.json), so this project is not trusted yet: it ignores the {n} allow rule{} of {} until the trust dialog is accepted (ask and deny rules apply); `--trusted` (permissionLsp.claude.trusted) assumes it is trusted",
                if n == 1 { "" } else { "s" },
                source.describe()
            ),
        ));
    }
    // The other files' Bash rules by shape, per list (`shape.rs`): what
    // contains a rule of this file.
    let all: Vec<(List, &str, Source)> = others
        .iter()
        .flat_map(|o| o.rules.iter().map(move |(l, r)| (*l, r.as_str(), o.source)))
        .collect();
    let mut by_shape: [shape::Index<'_>; 3] = Default::default();
    for (i, (l, r, _)) in all.iter().enumerate() {
        if let Reading::Loaded(rule, flaw) = rules::read(r, *l)
            && rule.tool == "Bash"
        {
            by_shape[*l as usize].insert(i, shape::shape(rule.content, flaw.as_ref()));
        }
    }
    for (list, items) in [List::Allow, List::Ask].map(|l| (l, lints::list_items(p, l))) {
        for item in items {
            let Some(rule) = item.value.as_str() else {
                continue;
            };
            if !matches!(rules::read(rule, list), Reading::Loaded(_, None)) {
                continue;
            }
            if untrusted && list == List::Allow {
                out.push(Diagnostic::new(
                    Code::UntrustedAllowIgnored,
                    item.range.clone(),
                    format!(
                        "this project is not trusted in ~/.claude.json: Claude Code ignores the allow rules of {} (its ask and deny rules still apply); run Claude Code here once and accept the trust dialog",
                        source.describe()
                    ),
                ));
                continue;
            }
            let tool = rules::split(rule).map_or(rule, |r| r.tool);
            let stronger = others.iter().find_map(|o| {
                [List::Ask, List::Deny]
                    .into_iter()
                    .filter(|l| *l > list)
                    .find_map(|l| {
                        let has = |r: &str| o.index[l as usize].contains_key(r);
                        if has(rule) {
                            Some((o.source, l, rule))
                        } else if !tool.contains('*') && has(tool) {
                            Some((o.source, l, tool))
                        } else {
                            None
                        }
                    })
            });
            let (own, exact) = match rules::read(rule, list) {
                Reading::Loaded(r, flaw) if r.tool == "Bash" => (
                    Some(shape::shape(r.content, flaw.as_ref())),
                    shape::exact_literal(r.content).is_some(),
                ),
                _ => (None, false),
            };
            let example = own
                .as_ref()
                .and_then(shape::example)
                .map(|e| format!(" (e.g. `{e}`)"))
                .unwrap_or_default();
            let exact_ask = list == List::Ask && exact;
            let stronger = stronger.or_else(|| {
                let a = own?;
                [List::Ask, List::Deny]
                    .into_iter()
                    .filter(|l| *l > list && !(exact_ask && *l == List::Deny))
                    .find_map(|l| {
                        by_shape[l as usize]
                            .covering(&a)
                            .first()
                            .map(|&i| (all[i].2, l, all[i].1))
                    })
            });
            if let Some((s, l, r)) = stronger {
                out.push(Diagnostic::new(
                    Code::RuleNeverDecides,
                    item.range.clone(),
                    format!(
                        "this {} rule never decides: `{r}` in the {} list of {} matches every call it matches{example}, and {} wins over {} in every file",
                        list.key(),
                        l.key(),
                        s.describe(),
                        l.key(),
                        list.key()
                    ),
                ));
                continue;
            }
            // An allow inside a broader allow of a file that applies to
            // everyone this one does (a local rule inside the project's or
            // the managed settings, a project rule inside the managed ones).
            if list == List::Allow
                && let Some(a) = own
                && let Some(&i) = by_shape[List::Allow as usize]
                    .covering(&a)
                    .iter()
                    .find(|&&i| {
                        matches!(
                            (source, all[i].2),
                            (Source::Local, Source::Project | Source::Managed)
                                | (Source::Project, Source::Managed)
                        )
                    })
            {
                out.push(
                    Diagnostic::new(
                        Code::RedundantRule,
                        item.range.clone(),
                        format!(
                            "`{}` in {} already allows every command this rule allows{example}: this rule changes nothing",
                            all[i].1,
                            all[i].2.describe()
                        ),
                    )
                    .with_fix(crate::core::diagnostic::Fix::RemoveArrayItem {
                        title: format!("Remove `{rule}` (`{}` covers it)", all[i].1),
                    }),
                );
            }
        }
    }
}
