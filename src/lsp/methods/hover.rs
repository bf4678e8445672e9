//! `textDocument/hover`.

use crate::lsp::convert::{to_lsp_range, to_offset};
use crate::lsp::server::Server;
use crate::lsp::session::DocumentKind;
use crate::model::pi::read::read_config;
use crate::text::LineIndex;
use tower_lsp_server::ls_types::{Hover, HoverContents, HoverParams, MarkupContent, MarkupKind};

pub fn handle(server: &Server, params: HoverParams) -> Option<Hover> {
    let pos = params.text_document_position_params;
    let snapshot = server.session.snapshot(&pos.text_document.uri)?;
    if snapshot.kind != DocumentKind::PiConfig {
        return None;
    }
    let settings = server.session.settings();
    let text: &str = &snapshot.text;
    let index = LineIndex::new(text);
    let offset = to_offset(text, &index, pos.position, settings.encoding);
    let file = read_config(text, settings.analysis.target);
    let root = file.parsed.root.as_ref()?;
    let info = crate::ide::hover::hover(root, offset, settings.analysis.target)?;
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: info.markdown,
        }),
        range: Some(to_lsp_range(text, &index, &info.range, settings.encoding)),
    })
}
