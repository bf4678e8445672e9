//! One resolver of settings and locations for every LSP handler and CLI
//! command: the runtime profile, home, agent directory, agent and working
//! directory mean the same in diagnostics, hover, completion, code lenses,
//! simulation and the effective policy. Formats turn a [`Context`] into
//! their own file locations; nothing else reads settings.

use crate::analysis::AnalysisOptions;
use std::path::{Path, PathBuf};

/// Open buffers by path: they win over disk.
pub type OpenBuffers<'a> = &'a dyn Fn(&Path) -> Option<String>;

/// Values given for one request or command, over the settings.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub home: Option<String>,
    pub agent: Option<String>,
    pub agent_dir: Option<String>,
    /// The session's working directory (the project directory).
    pub cwd: Option<PathBuf>,
    /// The user's global config file instead of the runtime's location.
    pub global_config: Option<PathBuf>,
}

/// Everything resolved for one document or command.
pub struct Context<'a> {
    /// Profile, lint levels, home, agent, agent directory.
    pub options: AnalysisOptions,
    /// The session's working directory: the override, else the workspace
    /// root, else the document's folder, else the current directory.
    pub cwd: PathBuf,
    /// `cwd` was given explicitly (it wins over what a document's location
    /// implies).
    pub cwd_explicit: bool,
    /// `agent` was given explicitly (it wins over an agent file's own name).
    pub agent_explicit: bool,
    /// The document the request is about, if any.
    pub document: Option<PathBuf>,
    /// Explicit files in place of the default locations (CLI
    /// `--config`): the user's global config.
    pub global_config: Option<PathBuf>,
    /// Open buffers, which win over disk.
    pub open: OpenBuffers<'a>,
}

impl std::fmt::Debug for Context<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("options", &self.options)
            .field("cwd", &self.cwd)
            .field("document", &self.document)
            .finish()
    }
}

fn no_buffers(_: &Path) -> Option<String> {
    None
}

/// Resolves the settings, the workspace root, the document and the
/// request's overrides into one context.
pub fn resolve<'a>(
    settings: &AnalysisOptions,
    workspace_root: Option<&Path>,
    document: Option<&Path>,
    overrides: &Overrides,
    open: Option<OpenBuffers<'a>>,
) -> Context<'a> {
    let cwd = workspace_root
        .map(Path::to_path_buf)
        .or_else(|| document.and_then(|d| d.parent().map(Path::to_path_buf)))
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| PathBuf::from("/"));
    Context {
        options: settings.clone(),
        cwd,
        cwd_explicit: false,
        agent_explicit: false,
        document: document.map(Path::to_path_buf),
        global_config: None,
        open: open.unwrap_or(&no_buffers),
    }
    .with(overrides)
}

impl<'a> Context<'a> {
    /// This context with a request's overrides applied (explicit values
    /// win over settings and over what the document's location implies).
    pub fn with(&self, overrides: &Overrides) -> Context<'a> {
        let mut options = self.options.clone();
        if let Some(h) = &overrides.home {
            options.home = h.clone();
        }
        if overrides.agent.is_some() {
            options.agent = overrides.agent.clone();
        }
        if overrides.agent_dir.is_some() {
            options.agent_dir = overrides.agent_dir.clone();
        }
        Context {
            options,
            cwd: overrides.cwd.clone().unwrap_or_else(|| self.cwd.clone()),
            cwd_explicit: self.cwd_explicit || overrides.cwd.is_some(),
            agent_explicit: self.agent_explicit || overrides.agent.is_some(),
            document: self.document.clone(),
            global_config: overrides
                .global_config
                .clone()
                .or_else(|| self.global_config.clone()),
            open: self.open,
        }
    }
}

/// Reads a file the way the runtimes do (UTF-8, invalid bytes as U+FFFD);
/// `None` when it is not a regular file, cannot be read, or is larger than
/// `max` bytes.
pub fn read_text(path: &Path, max: u64) -> Option<String> {
    crate::fsio::read_capped(path, max)
        .ok()
        .map(|b| String::from_utf8_lossy(&b).into_owned())
}
