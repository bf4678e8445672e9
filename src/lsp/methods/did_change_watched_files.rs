//! `workspace/didChangeWatchedFiles`: a scope file, agent file or
//! `mcp.json` changed on disk — every open document is analysed again,
//! since each one's findings can depend on the others (open buffers still
//! win over disk). The watchers are registered in `initialized` when the
//! client supports dynamic registration.

use crate::lsp::server::Server;
use tower_lsp_server::ls_types::{
    DidChangeWatchedFilesParams, FileSystemWatcher, GlobPattern, OneOf, Registration,
    RelativePattern, Uri,
};

pub const REGISTRATION_ID: &str = "permission-lsp/watched-files";

pub fn handle(server: &Server, params: DidChangeWatchedFilesParams) {
    if params.changes.is_empty() {
        return;
    }
    if let Some(first) = server.session.uris().into_iter().next() {
        // `schedule_refresh` refreshes the given document and every other
        // open scope file.
        server.schedule_refresh(first);
    }
}

/// The files whose changes matter: scope configs, agent files, `mcp.json`
/// — in the workspace, and in the agent directory under `home`.
pub fn registration(agent_dir: Option<&std::path::Path>) -> Registration {
    let glob = |p: &str| FileSystemWatcher {
        glob_pattern: GlobPattern::String(p.to_string()),
        kind: None,
    };
    let mut watchers = vec![
        glob("**/.pi/extensions/pi-permission-system/config.json"),
        glob("**/.pi/agents/*.md"),
        glob("**/extensions/pi-permission-system/config.json"),
        glob("**/agents/*.md"),
        glob("**/mcp.json"),
    ];
    if let Some(dir) = agent_dir
        && let Some(uri) = Uri::from_file_path(dir)
    {
        for pattern in [
            "extensions/pi-permission-system/config.json",
            "agents/*.md",
            "mcp.json",
        ] {
            watchers.push(FileSystemWatcher {
                glob_pattern: GlobPattern::Relative(RelativePattern {
                    base_uri: OneOf::Right(uri.clone()),
                    pattern: pattern.to_string(),
                }),
                kind: None,
            });
        }
    }
    Registration {
        id: REGISTRATION_ID.into(),
        method: "workspace/didChangeWatchedFiles".into(),
        register_options: serde_json::to_value(
            tower_lsp_server::ls_types::DidChangeWatchedFilesRegistrationOptions { watchers },
        )
        .ok(),
    }
}
