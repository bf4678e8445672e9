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
    let info = kind
        .format
        .hover(kind.role, text, &analysis, offset, &ctx)?;
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
