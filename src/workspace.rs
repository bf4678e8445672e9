//! One resolver of settings and locations for every LSP handler and CLI
//! command: the runtime profile, home, agent directory, agent and working
//! directory mean the same in diagnostics, hover, completion, code lenses,
//! simulation and the effective policy. Formats turn a [`Context`] into
//! their own file locations; nothing else reads settings.

use crate::contract::AnalysisOptions;
use std::path::{Path, PathBuf};

pub use crate::contract::context::{Context, OpenBuffers, Overrides, no_buffers};
pub use crate::fsio::read_text;

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
