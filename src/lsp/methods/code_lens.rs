//! `textDocument/codeLens`: "Simulate…" and "Effective policy" lenses where
//! the format anchors them (pi: the `permission` key). Clients that can ask
//! for input (the VS Code extension does) run
//! `permission-lsp.simulateCommandLine` with the line the user types; the
//! effective policy needs no input.

use super::execute_command::{DIFF, EFFECTIVE_POLICY, REPLAY, SIMULATE_COMMAND_LINE};
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
    let mut lenses = vec![
        lens("▶ Simulate a tool call…", SIMULATE_COMMAND_LINE),
        lens("Effective policy (all scopes)", EFFECTIVE_POLICY),
    ];
    // The unsaved edit's effect on the past calls of the configured logs.
    if let Some(view) = crate::lsp::history::view(session, &snapshot, &settings) {
        let s = &view.summary;
        let title = if s.changed == 0 {
            format!(
                "History: all {} past calls decided as recorded",
                crate::history::replay::thousands(s.calls)
            )
        } else {
            let parts: Vec<String> = [
                (s.newly_allowed, "newly allowed"),
                (s.newly_asked, "newly asked"),
                (s.newly_denied, "newly denied"),
            ]
            .iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, w)| format!("{} {w}", crate::history::replay::thousands(*n)))
            .collect();
            format!(
                "History: this config changes {} of {} past calls ({})",
                crate::history::replay::thousands(s.changed),
                crate::history::replay::thousands(s.calls),
                parts.join(", ")
            )
        };
        lenses.push(lens(&title, REPLAY));
    }
    // What the edit does compared with the file at git's HEAD.
    if let Some(c) = crate::lsp::history::head_diff(session, &snapshot, &settings) {
        let r = &c.report;
        let mut title = if r.differences.is_empty() && r.incomplete.is_empty() {
            "Against HEAD: no decision changes".to_string()
        } else if r.differences.is_empty() {
            "Against HEAD: no decision changes found".to_string()
        } else {
            format!(
                "Against HEAD: {} newly allowed, {} newly asked, {} newly denied",
                r.newly_allowed, r.newly_asked, r.newly_denied
            )
        };
        // An incomplete comparison says which tools it could not finish.
        if !r.incomplete.is_empty() {
            title.push_str(&format!(" (incomplete: {})", r.incomplete.join(", ")));
        }
        lenses.push(lens(&title, DIFF));
    }
    Some(lenses)
}
