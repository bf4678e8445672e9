//! `textDocument/codeLens`: "Simulate…" and "Effective policy" lenses where
//! the format anchors them (pi: the `permission` key). Clients that can ask
//! for input (the VS Code extension does) run
//! `permission-lsp.simulateCommandLine` with the line the user types; the
//! effective policy needs no input.

use super::execute_command::{EFFECTIVE_POLICY, SIMULATE_COMMAND_LINE};
use crate::lsp::convert::to_lsp_range;
use crate::lsp::diagnostics::analysis;
use crate::lsp::server::Server;
use crate::text::LineIndex;
use tower_lsp_server::ls_types::{CodeLens, CodeLensParams, Command};

pub fn handle(server: &Server, params: CodeLensParams) -> Option<Vec<CodeLens>> {
    let uri = params.text_document.uri;
    let session = &server.session;
    let snapshot = session.snapshot(&uri)?;
    let kind = snapshot.kind?;
    let settings = session.settings();
    let analysis = analysis(session, &snapshot, &settings)?;
    let anchor = kind.format.lens_anchor(kind.role, &analysis)?;
    let text: &str = &snapshot.text;
    let index = LineIndex::new(text);
    let range = to_lsp_range(text, &index, &anchor, settings.encoding);
    let lens = |title: &str, command: &str| CodeLens {
        range,
        command: Some(Command {
            title: title.into(),
            command: command.into(),
            arguments: Some(vec![serde_json::json!({ "uri": uri.as_str() })]),
        }),
        data: None,
    };
    Some(vec![
        lens("▶ Simulate a tool call…", SIMULATE_COMMAND_LINE),
        lens("Effective policy (all scopes)", EFFECTIVE_POLICY),
    ])
}
