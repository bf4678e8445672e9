//! `textDocument/completion`.

use crate::ide::items::ItemKind;
use crate::lsp::convert::{to_lsp_range, to_offset};
use crate::lsp::diagnostics::context;
use crate::lsp::server::Server;
use crate::text::LineIndex;
use tower_lsp_server::ls_types::{
    CompletionItem, CompletionItemKind, CompletionParams, CompletionResponse, CompletionTextEdit,
    InsertTextFormat, TextEdit,
};

pub fn handle(server: &Server, params: CompletionParams) -> Option<CompletionResponse> {
    let pos = params.text_document_position;
    let session = &server.session;
    let snapshot = session.snapshot(&pos.text_document.uri)?;
    let kind = snapshot.kind?;
    let settings = session.settings();
    let text: &str = &snapshot.text;
    let index = LineIndex::new(text);
    let offset = to_offset(text, &index, pos.position, settings.encoding);
    let open = |p: &std::path::Path| session.open_text_by_path(p);
    let ctx = context(&settings, &snapshot.uri, &Default::default(), &open);
    let items = kind
        .format
        .completions(kind.role, text, offset, &ctx, settings.snippets)
        .into_iter()
        .enumerate()
        .map(|(n, i)| CompletionItem {
            label: i.label,
            kind: Some(match i.kind {
                ItemKind::Key => CompletionItemKind::PROPERTY,
                ItemKind::Surface => CompletionItemKind::MODULE,
                ItemKind::State => CompletionItemKind::ENUM_MEMBER,
                ItemKind::Snippet => CompletionItemKind::SNIPPET,
                ItemKind::Value => CompletionItemKind::VALUE,
            }),
            detail: i.detail,
            // Keep the server's order (states in a fixed order, surfaces as listed).
            sort_text: Some(format!("{n:04}")),
            filter_text: Some(
                text.get(i.range.clone())
                    .map_or(i.insert.clone(), |_| i.insert.clone()),
            ),
            insert_text_format: Some(if i.snippet {
                InsertTextFormat::SNIPPET
            } else {
                InsertTextFormat::PLAIN_TEXT
            }),
            text_edit: Some(CompletionTextEdit::Edit(TextEdit {
                range: to_lsp_range(text, &index, &i.range, settings.encoding),
                new_text: i.insert,
            })),
            ..CompletionItem::default()
        })
        .collect();
    Some(CompletionResponse::Array(items))
}
