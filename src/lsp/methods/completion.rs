//! `textDocument/completion`.

use crate::ide::completion::{ItemKind, completions};
use crate::lsp::convert::{to_lsp_range, to_offset};
use crate::lsp::server::Server;
use crate::lsp::session::DocumentKind;
use crate::text::LineIndex;
use tower_lsp_server::ls_types::{
    CompletionItem, CompletionItemKind, CompletionParams, CompletionResponse, CompletionTextEdit,
    InsertTextFormat, TextEdit,
};

pub fn handle(server: &Server, params: CompletionParams) -> Option<CompletionResponse> {
    let pos = params.text_document_position;
    let snapshot = server.session.snapshot(&pos.text_document.uri)?;
    if snapshot.kind != DocumentKind::PiConfig {
        return None;
    }
    let settings = server.session.settings();
    let text: &str = &snapshot.text;
    let index = LineIndex::new(text);
    let offset = to_offset(text, &index, pos.position, settings.encoding);
    let servers = mcp_servers(server, &pos.text_document.uri);
    let items = completions(
        text,
        offset,
        settings.analysis.target,
        &servers,
        settings.snippets,
    )
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

/// MCP server names from the `mcp.json` of the document's agent directory.
fn mcp_servers(server: &Server, uri: &tower_lsp_server::ls_types::Uri) -> Vec<String> {
    let Some(path) = uri.to_file_path() else {
        return Vec::new();
    };
    let settings = server.session.settings();
    let cwd = settings
        .workspace_root
        .clone()
        .unwrap_or_else(|| path.parent().map(|p| p.to_path_buf()).unwrap_or_default());
    let loc = crate::workspace::locations_for_document(
        &path,
        &cwd,
        &std::path::PathBuf::from(&settings.analysis.home),
        None,
    );
    crate::workspace::mcp_server_names(&loc)
}
