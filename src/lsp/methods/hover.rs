//! `textDocument/hover`.

use crate::lsp::convert::{to_lsp_range, to_offset};
use crate::lsp::diagnostics::{analysis, context};
use crate::lsp::server::Server;
use crate::text::LineIndex;
use tower_lsp_server::ls_types::{Hover, HoverContents, HoverParams, MarkupContent, MarkupKind};

pub fn handle(server: &Server, params: HoverParams) -> Option<Hover> {
    let pos = params.text_document_position_params;
    let session = &server.session;
    let snapshot = session.snapshot(&pos.text_document.uri)?;
    let kind = snapshot.kind?;
    let settings = session.settings();
    let text: &str = &snapshot.text;
    let index = LineIndex::new(text);
    let offset = to_offset(text, &index, pos.position, settings.encoding);
    let analysis = analysis(session, &snapshot, &settings)?;
    let open = |p: &std::path::Path| session.open_text_by_path(p);
    let ctx = context(&settings, &snapshot.uri, &Default::default(), &open);
    let mut info = kind
        .format
        .hover(kind.role, text, &analysis, offset, &ctx)?;
    // How many past calls of the configured logs the rule decides now.
    if let Some(r) = &info.range
        && let Some(path) = snapshot.uri.to_file_path()
        && let Some(view) = crate::lsp::history::view(session, &snapshot, &settings)
        && !settings.history.logs.is_empty()
    {
        let line = text[..r.start].matches('\n').count() + 1;
        let ls = text[..r.start].rfind('\n').map_or(0, |i| i + 1);
        let column = text[ls..r.start].chars().count() + 1;
        let key = (path.display().to_string(), line, column);
        let is_rule = kind.format.effective_policy(&ctx).is_ok_and(|p| {
            p.rules.iter().any(|r| {
                r.place.file.as_deref() == Some(key.0.as_str())
                    && r.place.line == Some(line)
                    && r.place.column == Some(column)
            })
        });
        let n = view.counts.get(&key).copied().unwrap_or(0);
        if is_rule {
            info.markdown.push_str(&format!(
                "\n\n**History:** decides {} of the {} replayed past calls",
                crate::history::replay::thousands(n),
                crate::history::replay::thousands(view.summary.calls)
            ));
        }
    }
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: info.markdown,
        }),
        range: info
            .range
            .map(|r| to_lsp_range(text, &index, &r, settings.encoding)),
    })
}
