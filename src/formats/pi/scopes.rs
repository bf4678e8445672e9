//! pi's scope files: where the runtime looks for them (spec §1.1), read
//! with open buffers winning over disk, from a resolved
//! [`Context`](crate::contract::Context). The engine and the lints never
//! touch the file system.

use crate::contract::Context;
use crate::formats::pi::engine::mcp::server_names_from_mcp_json;
use crate::formats::pi::engine::policy::{PolicyInputs, ScopeText};
use crate::formats::pi::engine::rules::{PathFlavor, RuleOrigin};
use crate::formats::pi::model::locations;
use crate::formats::pi::model::versions::Version;
use std::path::{Path, PathBuf};

/// Scope files larger than this are not read (the runtime would, but no
/// real policy is this large and the server must stay responsive).
pub const MAX_SCOPE_FILE_BYTES: u64 = 64 * 1024 * 1024;
/// Scope files larger than this are analysed on their own, without the
/// merge with the other scopes (memory stays within budget up to 10 MB).
pub const MAX_SCOPE_ANALYSIS_BYTES: usize = 4 * 1024 * 1024;

/// The session option naming the agent directory (`--agent-dir`, the
/// editor's `permissionLsp.pi.agentDir`), over `$PI_CODING_AGENT_DIR`.
pub const AGENT_DIR: &str = "agent-dir";

#[derive(Debug, Clone)]
pub struct Locations {
    pub agent_dir: PathBuf,
    pub cwd: PathBuf,
    pub home: PathBuf,
    pub agent: Option<String>,
    /// Explicit files instead of the default locations.
    pub global_config: Option<PathBuf>,
    pub project_config: Option<PathBuf>,
    /// The runtime version whose reading applies.
    pub version: Version,
}

impl Locations {
    /// The runtime's defaults: `$PI_CODING_AGENT_DIR` or `<home>/.pi/agent`.
    pub fn from_env(
        cwd: PathBuf,
        home: Option<PathBuf>,
        agent: Option<String>,
        version: Version,
    ) -> Locations {
        let home = home
            .or_else(|| std::env::var_os("HOME").map(PathBuf::from))
            .unwrap_or_else(|| PathBuf::from("/"));
        let env_dir = std::env::var("PI_CODING_AGENT_DIR").ok();
        Locations {
            agent_dir: locations::agent_dir(env_dir.as_deref(), &home),
            cwd,
            home,
            agent,
            global_config: None,
            project_config: None,
            version,
        }
    }

    pub fn global_config_path(&self) -> PathBuf {
        self.global_config
            .clone()
            .unwrap_or_else(|| locations::global_config_path(&self.agent_dir))
    }

    pub fn project_config_path(&self) -> PathBuf {
        self.project_config
            .clone()
            .unwrap_or_else(|| locations::project_config_path(&self.cwd))
    }
}

/// An agent name the runtime would turn into a file name: no separators,
/// no `..`, not empty.
pub fn valid_agent_name(name: &str) -> Result<(), String> {
    if name.is_empty()
        || name.contains('/')
        || name.contains('\\')
        || name == "."
        || name == ".."
        || name.contains('\0')
    {
        return Err(format!(
            "invalid agent name `{name}`: it must be a plain file name"
        ));
    }
    Ok(())
}

impl Locations {
    /// The active agent's files (global, project); `None` without an
    /// agent, an error for a name the runtime would refuse.
    pub fn agent_paths(&self) -> Result<Option<(PathBuf, PathBuf)>, String> {
        let Some(name) = &self.agent else {
            return Ok(None);
        };
        valid_agent_name(name)?;
        Ok(Some((
            locations::global_agent_path(&self.agent_dir, name),
            locations::project_agent_path(&self.cwd, name),
        )))
    }
}

/// Reads a file as the runtime does (UTF-8, invalid bytes as U+FFFD);
/// `None` when it does not exist or cannot be read.
pub fn read_text(path: &Path) -> Option<String> {
    crate::fsio::read_text(path, MAX_SCOPE_FILE_BYTES)
}

/// The file exists (`stat` succeeds) but cannot be read as a file.
fn unreadable(p: &Path) -> bool {
    crate::fsio::metadata(p).is_ok_and(|m| m.is_dir() || std::fs::File::open(p).is_err())
}

/// Everything the engine needs, read from the locations; `open` supplies
/// unsaved buffers by path.
pub fn load_inputs(
    loc: &Locations,
    open: &dyn Fn(&Path) -> Option<String>,
) -> Result<PolicyInputs, String> {
    let read = |p: PathBuf| -> Option<ScopeText> {
        let text = open(&p).or_else(|| read_text(&p))?;
        Some(ScopeText {
            path: p.display().to_string().into(),
            text,
        })
    };
    let mut unreadable_agents = Vec::new();
    let (global_agent, project_agent) = match loc.agent_paths()? {
        Some((global, project)) => {
            // A file that exists but cannot be read (a directory, no
            // permission) is not an absent scope to the runtime.
            for (p, origin) in [
                (&global, RuleOrigin::Agent),
                (&project, RuleOrigin::ProjectAgent),
            ] {
                if open(p).is_none() && unreadable(p) {
                    unreadable_agents.push(origin);
                }
            }
            (read(global), read(project))
        }
        None => (None, None),
    };
    let mcp_servers = read(locations::mcp_json_path(&loc.agent_dir))
        .map(|s| server_names_from_mcp_json(&s.text))
        .unwrap_or_default();
    let agent_dir = loc.agent_dir.display().to_string();
    Ok(PolicyInputs {
        global: read(loc.global_config_path()),
        project: read(loc.project_config_path()),
        global_agent,
        project_agent,
        unreadable_agents,
        mcp_servers,
        home: loc.home.display().to_string(),
        version: loc.version,
        auto: false,
        installed: None,
        project_trusted: project_trust(&loc.agent_dir, &loc.cwd),
        flavor: PathFlavor::Posix,
        // The runtime also bypasses reads of its own directories.
        extra_infra_dirs: vec![agent_dir.clone(), format!("{agent_dir}/git")],
        agent_dir: Some(agent_dir),
    })
}

/// Where the runtime would look when the file at `doc` is one of its scope
/// files: a project file or project agent fixes the project directory; a
/// global file or global agent fixes the agent directory. Any other file is
/// read as the project config of `fallback_cwd`.
pub fn locations_for_document(
    doc: &Path,
    fallback_cwd: &Path,
    home: &Path,
    agent: Option<String>,
    version: Version,
) -> Locations {
    use locations::FileRole;
    let mut loc = Locations::from_env(
        fallback_cwd.to_path_buf(),
        Some(home.to_path_buf()),
        agent.clone(),
        version,
    );
    let up = |p: &Path, n: usize| p.ancestors().nth(n).map(Path::to_path_buf);
    match locations::role_of_path(&doc.to_string_lossy()) {
        Some(FileRole::ProjectConfig) => {
            // <cwd>/.pi/extensions/pi-permission-system/config.json
            if let Some(cwd) = up(doc, 4) {
                loc.cwd = cwd;
            }
        }
        Some(FileRole::GlobalConfig) => {
            // <agentDir>/extensions/pi-permission-system/config.json
            if let Some(dir) = up(doc, 3) {
                loc.agent_dir = dir;
            }
        }
        Some(FileRole::ProjectAgent) => {
            if let Some(cwd) = up(doc, 3) {
                loc.cwd = cwd;
            }
            loc.agent = agent.or_else(|| doc.file_stem().map(|s| s.to_string_lossy().into_owned()));
        }
        Some(FileRole::GlobalAgent) => {
            if let Some(dir) = up(doc, 2) {
                loc.agent_dir = dir;
            }
            loc.agent = agent.or_else(|| doc.file_stem().map(|s| s.to_string_lossy().into_owned()));
        }
        None => loc.project_config = Some(doc.to_path_buf()),
    }
    loc
}

/// MCP server names from the `mcp.json` in the agent directory (the names
/// the runtime derives MCP targets from); none when it is missing.
pub fn mcp_server_names(loc: &Locations) -> Vec<String> {
    crate::fsio::read_text(&locations::mcp_json_path(&loc.agent_dir), 16 * 1024 * 1024)
        .map(|text| server_names_from_mcp_json(&text))
        .unwrap_or_default()
}

/// The locations for a context: the document's own location decides the
/// project or agent directory it belongs to; explicit values win.
pub fn locations(ctx: &Context<'_>) -> Locations {
    use locations::FileRole;
    let o = &ctx.options;
    let home = PathBuf::from(&o.home);
    let role = ctx
        .document
        .as_deref()
        .and_then(|p| locations::role_of_path(&p.to_string_lossy()));
    // An agent file is its own agent unless one is named explicitly.
    let agent = match role {
        Some(FileRole::GlobalAgent | FileRole::ProjectAgent) if !ctx.agent_explicit => None,
        _ => o.agent.clone(),
    };
    let mut loc = match &ctx.document {
        Some(doc) => locations_for_document(doc, &ctx.cwd, &home, agent, o.profile.version),
        None => Locations::from_env(ctx.cwd.clone(), Some(home), agent, o.profile.version),
    };
    if let Some(dir) = o.runtime_arg(AGENT_DIR).filter(|d| !d.is_empty())
        && !matches!(role, Some(FileRole::GlobalConfig | FileRole::GlobalAgent))
    {
        loc.agent_dir = PathBuf::from(dir);
    }
    if ctx.cwd_explicit {
        loc.cwd = ctx.cwd.clone();
    }
    if let Some(g) = &ctx.global_config {
        loc.global_config = Some(g.clone());
    }
    loc
}

/// The scope files of a context (open buffers win over disk) and the
/// policy they make.
pub fn load(
    ctx: &Context<'_>,
) -> Result<
    (
        Locations,
        PolicyInputs,
        crate::formats::pi::engine::policy::LoadedPolicy,
    ),
    String,
> {
    let loc = locations(ctx);
    let mut inputs = load_inputs(&loc, ctx.open)?;
    inputs.auto = ctx.options.profile.auto;
    inputs.installed = ctx.options.installed.clone();
    let loaded = crate::formats::pi::engine::policy::load_policy(&inputs);
    Ok((loc, inputs, loaded))
}

/// Whether a scope file other than `doc` is open or on disk.
fn other_scope_file_exists(
    loc: &Locations,
    doc: &Path,
    open: &dyn Fn(&Path) -> Option<String>,
) -> bool {
    let mut paths = vec![loc.global_config_path(), loc.project_config_path()];
    if let Ok(Some((global, project))) = loc.agent_paths() {
        paths.extend([global, project]);
    }
    paths
        .iter()
        .filter(|p| p.as_path() != doc)
        .any(|p| crate::fsio::is_file(p) || open(p).is_some())
}

/// The other scope files of a document the runtime reads as a scope file,
/// the policy they make, and the document's path as it appears in them.
/// `None` for a file outside the runtime's locations, or when no other
/// scope file exists.
pub fn scope_context(ctx: &Context<'_>) -> Option<ScopeContext> {
    scope_context_with(ctx, None)
}

/// The other scope files, the policy they make, the document's path.
pub type ScopeContext = (
    PolicyInputs,
    crate::formats::pi::engine::policy::LoadedPolicy,
    String,
);

/// [`scope_context`], with the document already read (`known`): it is not
/// parsed again for the merge.
pub fn scope_context_with(
    ctx: &Context<'_>,
    known: Option<&crate::formats::pi::model::read::ConfigFile>,
) -> Option<ScopeContext> {
    let path = ctx.document.as_deref()?;
    locations::role_of_path(&path.to_string_lossy())?;
    let loc = locations(ctx);
    // Alone, the document's own order is the runtime's: nothing to merge,
    // and no reason to read (or copy) anything.
    if !other_scope_file_exists(&loc, path, ctx.open) {
        return None;
    }
    let mut inputs = load_inputs(&loc, ctx.open).ok()?;
    inputs.auto = ctx.options.profile.auto;
    inputs.installed = ctx.options.installed.clone();
    let doc = path.display().to_string();
    // Alone, the document's own order is the runtime's: nothing to merge
    // (and nothing to parse twice).
    if !inputs.has_other_than(&doc) {
        return None;
    }
    let loaded = crate::formats::pi::engine::policy::load_policy_with(
        &inputs,
        known.map(|f| (doc.as_str(), f)),
    );
    Some((inputs, loaded, doc))
}

/// The findings for a scope file's text: the per-file analysis, with the
/// precedence findings over the merged rule list of every scope and the
/// cross-scope findings (D18, D37) when other scope files contribute.
/// Returns the JSON tree too (for code actions).
pub fn analyse_scope_file(
    agent_file: bool,
    text: &str,
    ctx: &Context<'_>,
) -> crate::contract::Analysis {
    analyse_scope_file_with(agent_file, text, ctx, true)
}

/// [`analyse_scope_file`], with the JSON tree only when `tree` (see
/// `analyze_read_config_with`).
pub fn analyse_scope_file_with(
    agent_file: bool,
    text: &str,
    ctx: &Context<'_>,
    tree: bool,
) -> crate::contract::Analysis {
    use crate::formats::pi::effective::{cross_scope_diagnostics, scope_rules};
    // An agent name the runtime could not turn into a file name loses the
    // agent's files only: the other scopes are still merged, and the
    // document says why the agent is missing.
    let mut refused_agent = None;
    let repaired;
    let ctx = match &ctx.options.agent {
        Some(name) if !agent_file || ctx.agent_explicit => match valid_agent_name(name) {
            Ok(()) => ctx,
            Err(why) => {
                refused_agent = Some(why);
                let mut c = ctx.with(&crate::contract::Overrides::default());
                c.options.agent = None;
                repaired = c;
                &repaired
            }
        },
        _ => ctx,
    };
    let options = &ctx.options;
    // Past this size the merge with the other scopes (a second copy of
    // every rule, compiled) would break the memory budget: the file is
    // checked on its own and says so.
    let limited = text.len() > MAX_SCOPE_ANALYSIS_BYTES;
    // A config document is read once, for the merge and the analysis.
    let file = (!agent_file).then(|| {
        crate::formats::pi::model::read::read_config_as(
            text,
            options.profile,
            options.installed.as_ref(),
        )
    });
    let scoped = if limited {
        None
    } else {
        scope_context_with(ctx, file.as_ref())
    };
    let scopes = scoped.as_ref().and_then(|(i, l, d)| scope_rules(i, l, d));
    // Notes about the analysis itself, at the top of the file.
    let note = |code: crate::formats::pi::codes::Code, message: String| {
        let mut d = crate::core::diagnostic::Diagnostic::new(code, 0..0, message);
        d.severity = options.levels.severity(d.code)?;
        Some(d)
    };
    let notes: Vec<crate::core::diagnostic::Diagnostic> = [
        refused_agent.and_then(|why| {
            note(
                crate::formats::pi::codes::Code::AgentNameRefused,
                format!("{why}; the agent's files are not read, the other scope files are checked without them"),
            )
        }),
        limited.then(|| {
            note(
                crate::formats::pi::codes::Code::AnalysisLimited,
                format!(
                    "too large: analysis limited — this file has {} bytes (more than {} MiB), so it is checked on its own; precedence across the other scope files is not analysed (`permission-lsp simulate` and `explain` still merge every file)",
                    text.len(),
                    MAX_SCOPE_ANALYSIS_BYTES >> 20
                ),
            )
        }).flatten(),
    ]
    .into_iter()
    .flatten()
    .collect();
    if agent_file {
        let mut diagnostics = crate::formats::pi::lints::agent_file::analyze_agent_in_scopes(
            text,
            options,
            scopes.as_ref(),
        );
        diagnostics.splice(0..0, notes);
        return crate::contract::Analysis {
            root: None,
            diagnostics,
            accepted: true,
            outline: Vec::new(),
        };
    }
    let file = file.unwrap_or_else(|| {
        crate::formats::pi::model::read::read_config_as(
            text,
            options.profile,
            options.installed.as_ref(),
        )
    });
    let a = crate::formats::pi::lints::config_file::analyze_read_config_with(
        file,
        text,
        options,
        scopes.as_ref(),
        tree,
    );
    let mut analysis = crate::contract::Analysis::from(a);
    if let Some((inputs, loaded, doc)) = &scoped {
        for mut d in cross_scope_diagnostics(inputs, loaded, doc) {
            if let Some(sev) = options.levels.severity(d.code) {
                d.severity = sev;
                analysis.diagnostics.push(d);
            }
        }
        analysis
            .diagnostics
            .sort_by_key(|d| (d.range.start, d.range.end));
    }
    analysis.diagnostics.splice(0..0, notes);
    analysis
}

/// The pi-permission-system version pi installed, where pi records it
/// (documented, not verified against a pi installation): the package in the
/// agent directory's npm folder
/// (`<agentDir>/npm/node_modules/@gotgenes/pi-permission-system/package.json`),
/// else a pinned `npm:@gotgenes/pi-permission-system@X.Y.Z` entry in the
/// `packages` of `<agentDir>/settings.json`.
pub fn installed_version(
    options: &crate::contract::AnalysisOptions,
) -> Option<(crate::formats::pi::model::versions::Version, String)> {
    use crate::formats::pi::model::versions::Version;
    const PACKAGE: &str = "@gotgenes/pi-permission-system";
    let home = match options.home.as_str() {
        "" | "~" => PathBuf::from(std::env::var_os("HOME")?),
        h => PathBuf::from(h),
    };
    let env_dir = std::env::var("PI_CODING_AGENT_DIR").ok();
    let agent_dir = match options.runtime_arg(AGENT_DIR).filter(|d| !d.is_empty()) {
        Some(d) => PathBuf::from(d),
        None => locations::agent_dir(env_dir.as_deref(), &home),
    };
    let json = |p: &Path| -> Option<serde_json::Value> {
        serde_json::from_str(&crate::fsio::read_text(p, 1024 * 1024)?).ok()
    };
    let manifest = agent_dir
        .join("npm/node_modules")
        .join(PACKAGE)
        .join("package.json");
    if let Some(v) = json(&manifest).and_then(|m| m["version"].as_str().and_then(Version::parse)) {
        return Some((v, manifest.display().to_string()));
    }
    let settings = agent_dir.join("settings.json");
    let s = json(&settings)?;
    s["packages"].as_array()?.iter().find_map(|p| {
        let source = p.as_str().or_else(|| p["source"].as_str())?;
        let pinned = source
            .strip_prefix("npm:")?
            .strip_prefix(PACKAGE)?
            .strip_prefix('@')?;
        Some((Version::parse(pinned)?, settings.display().to_string()))
    })
}

/// pi's trust in the project folder, as pi decides it at startup (the
/// host's trust store, read as 0.79 reads it): a folder without project
/// inputs (no `.pi`, no `.agents/skills` above it) is trusted; else the
/// nearest entry of `<agentDir>/trust.json`; else `defaultProjectTrust` of
/// `<agentDir>/settings.json` (`always`, `never`). `None` when pi would ask.
pub fn project_trust(agent_dir: &Path, cwd: &Path) -> Option<bool> {
    let has_inputs =
        cwd.join(".pi").is_dir() || cwd.ancestors().any(|d| d.join(".agents/skills").is_dir());
    if !has_inputs {
        return Some(true);
    }
    let json = |p: &Path| -> Option<serde_json::Value> {
        serde_json::from_str(&crate::fsio::read_text(p, 4 * 1024 * 1024)?).ok()
    };
    if let Some(store) = json(&agent_dir.join("trust.json")) {
        for dir in cwd.ancestors() {
            if let Some(b) = store[dir.to_string_lossy().as_ref()].as_bool() {
                return Some(b);
            }
        }
    }
    match json(&agent_dir.join("settings.json"))?["defaultProjectTrust"].as_str()? {
        "always" => Some(true),
        "never" => Some(false),
        _ => None,
    }
}
