//! `textDocument/codeAction`: quick fixes for diagnostics and rewrites of
//! deny values, as workspace edits.

use crate::ide::code_actions::{ActionKind, code_actions};
use crate::lsp::convert::{to_lsp_range, to_offset};
use crate::lsp::diagnostics::analysis;
use crate::lsp::server::Server;
use crate::text::LineIndex;
use std::collections::HashMap;
use tower_lsp_server::ls_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams, NumberOrString, TextEdit,
    WorkspaceEdit,
};

pub fn handle(server: &Server, params: CodeActionParams) -> Option<Vec<CodeActionOrCommand>> {
    let uri = params.text_document.uri;
    let session = &server.session;
    let snapshot = session.snapshot(&uri)?;
    let kind = snapshot.kind?;
    let settings = session.settings();
    let enc = settings.encoding;
    let text: &str = &snapshot.text;
    let index = LineIndex::new(text);
    let start = to_offset(text, &index, params.range.start, enc);
    let end = to_offset(text, &index, params.range.end, enc).max(start);
    // The analysis published for this version (cached): its findings carry
    // their fixes as data.
    let analysis = analysis(session, &snapshot, &settings)?;
    let mut actions = code_actions(
        text,
        analysis.root.as_ref(),
        &analysis.diagnostics,
        start..end,
    );
    actions.extend(kind.format.assists(kind.role, text, &analysis, start..end));
    // Every safe fix of the document at once (`check --fix`), offered
    // when one applies: each read again with the session, the unsaved
    // buffer standing in for the file.
    if analysis
        .diagnostics
        .iter()
        .any(|d| d.code.0.safe_fix && !d.fixes.is_empty())
    {
        let path = uri.to_file_path().map(|p| p.into_owned());
        let mut analyse = |t: &str| {
            let open = |p: &std::path::Path| {
                if path.as_deref() == Some(p) {
                    Some(t.to_string())
                } else {
                    session.open_text_by_path(p)
                }
            };
            let ctx = crate::lsp::diagnostics::context(&settings, &uri, &Default::default(), &open);
            let a = kind.format.analyse(kind.role, t, &ctx);
            (a.root, a.diagnostics)
        };
        let fixed = crate::ide::code_actions::fix_all(text, &mut analyse, 2_000);
        if let Some(edit) = crate::ide::code_actions::minimal_edit(text, &fixed.text) {
            actions.push(crate::ide::code_actions::Action {
                title: format!(
                    "Fix all safe problems ({} fix{}: duplicate and redundant rules removed, no decision changes)",
                    fixed.applied.len(),
                    if fixed.applied.len() == 1 { "" } else { "es" }
                ),
                kind: ActionKind::FixAll,
                edits: vec![edit],
                fixes: None,
                preferred: false,
            });
        }
    }
    // Rules suggested by the approvals in the configured logs, inserted
    // where they take effect in this document.
    if let (Some(view), Some(path)) = (
        crate::lsp::history::view(session, &snapshot, &settings),
        uri.to_file_path(),
    ) {
        let path = path.display().to_string();
        let open = |p: &std::path::Path| session.open_text_by_path(p);
        let ctx = crate::lsp::diagnostics::context(&settings, &uri, &Default::default(), &open);
        let placed = view
            .approvals
            .suggestions(2)
            .into_iter()
            .take(20)
            .filter_map(|(s, approved, denied)| {
                crate::history::suggest::place(kind.format, &ctx, s, &approved, &denied)
            });
        for p in placed {
            if p.file.as_deref() != Some(path.as_str())
                || p.edits.is_empty()
                || p.edits.iter().any(|e| e.range.end > text.len())
            {
                continue;
            }
            let s = &p.suggestion;
            actions.push(crate::ide::code_actions::Action {
                title: format!(
                    "Add `{}` → {} (approved {} times in history, {} refused call{} checked)",
                    s.pattern,
                    s.action,
                    s.approvals,
                    s.denied_checked,
                    if s.denied_checked == 1 { "" } else { "s" }
                ),
                kind: crate::ide::code_actions::ActionKind::Source,
                edits: p.edits.clone(),
                fixes: None,
                preferred: false,
            });
        }
    }
    let wanted = params.context.only.as_ref();
    let out: Vec<CodeActionOrCommand> = actions
        .into_iter()
        .filter_map(|a| {
            let kind = match a.kind {
                ActionKind::QuickFix => CodeActionKind::QUICKFIX,
                ActionKind::RefactorRewrite => CodeActionKind::REFACTOR_REWRITE,
                ActionKind::Source => CodeActionKind::SOURCE,
                ActionKind::FixAll => CodeActionKind::SOURCE_FIX_ALL,
            };
            if let Some(only) = wanted
                && !only.iter().any(|k| kind.as_str().starts_with(k.as_str()))
            {
                return None;
            }
            let edits: Vec<TextEdit> = a
                .edits
                .iter()
                .map(|e| TextEdit {
                    range: to_lsp_range(text, &index, &e.range, enc),
                    new_text: e.new_text.clone(),
                })
                .collect();
            // Tie the fix to the client's diagnostic with the same code and range.
            let diagnostics = a.fixes.as_ref().map(|d| {
                let range = to_lsp_range(text, &index, &d.range, enc);
                params
                    .context
                    .diagnostics
                    .iter()
                    .filter(|c| {
                        c.range == range
                            && c.code == Some(NumberOrString::String(d.code.as_str().into()))
                    })
                    .cloned()
                    .collect()
            });
            Some(CodeActionOrCommand::CodeAction(CodeAction {
                title: a.title,
                kind: Some(kind),
                diagnostics,
                edit: Some(WorkspaceEdit {
                    changes: Some(HashMap::from([(uri.clone(), edits)])),
                    ..WorkspaceEdit::default()
                }),
                is_preferred: a.preferred.then_some(true),
                ..CodeAction::default()
            }))
        })
        .collect();
    Some(out)
}
