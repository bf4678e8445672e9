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
    // A file on disk changed: every cached analysis may be stale.
    server.session.bump();
    if let Some(first) = server.session.uris().into_iter().next() {
        // `schedule_refresh` refreshes the given document and every other
        // open scope file.
        server.schedule_refresh(first);
    }
}

/// The files whose changes matter, as every format names them: scope
/// configs, agent files, server lists — in the workspace, and in the
/// user's directories under the resolved settings.
pub fn registration(ctx: &crate::workspace::Context<'_>) -> Registration {
    let mut watchers = Vec::new();
    for format in crate::formats::all() {
        let (anywhere, relative) = format.watch_globs(ctx);
        watchers.extend(anywhere.into_iter().map(|p| FileSystemWatcher {
            glob_pattern: GlobPattern::String(p),
            kind: None,
        }));
        for (dir, pattern) in relative {
            if let Some(uri) = Uri::from_file_path(&dir) {
                watchers.push(FileSystemWatcher {
                    glob_pattern: GlobPattern::Relative(RelativePattern {
                        base_uri: OneOf::Right(uri),
                        pattern,
                    }),
                    kind: None,
                });
            }
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
