//! What a format is asked in: the resolved settings, working directory,
//! document and open buffers of one request or command (built by
//! `crate::workspace::resolve`).

use super::options::AnalysisOptions;
use std::path::{Path, PathBuf};

/// Open buffers by path: they win over disk.
pub type OpenBuffers<'a> = &'a dyn Fn(&Path) -> Option<String>;

/// Values given for one request or command, over the settings.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub home: Option<String>,
    pub agent: Option<String>,
    /// Session options and environment variables (`runtime_args`), over
    /// the settings' values of the same names.
    pub runtime_args: Vec<(String, String)>,
    /// The session's working directory (the project directory).
    pub cwd: Option<PathBuf>,
    /// The user's global config file instead of the runtime's location.
    pub global_config: Option<PathBuf>,
}

/// Everything resolved for one document or command.
pub struct Context<'a> {
    /// Profile, lint levels, home, agent, session options.
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

/// No open buffers.
pub fn no_buffers(_: &Path) -> Option<String> {
    None
}

impl Context<'_> {
    /// Runs `f` with this context, `text` standing in for the file at
    /// `path` (over the other open buffers): a document's own unsaved text
    /// read as part of its session.
    pub fn with_buffer<R>(&self, path: &Path, text: &str, f: impl FnOnce(&Context<'_>) -> R) -> R {
        let outer = self.open;
        let open = |p: &Path| {
            if p == path {
                Some(text.to_string())
            } else {
                outer(p)
            }
        };
        f(&Context {
            options: self.options.clone(),
            cwd: self.cwd.clone(),
            cwd_explicit: self.cwd_explicit,
            agent_explicit: self.agent_explicit,
            document: self.document.clone(),
            global_config: self.global_config.clone(),
            open: &open,
        })
    }
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
        options
            .runtime_args
            .extend(overrides.runtime_args.iter().cloned());
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
