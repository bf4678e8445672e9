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
    let settings = server.session.settings();
    let text: &str = &snapshot.text;
    let index = LineIndex::new(text);
    let offset = to_offset(text, &index, pos.position, settings.encoding);
    if snapshot.kind == DocumentKind::PiAgent {
        // Agent files: what the rule under the cursor does (offsets in the
        // CRLF-folded text the runtime parses).
        let folded = offset - text[..offset].matches("\r\n").count();
        let surfaces = crate::model::pi::agent::agent_permission(text)?;
        let cfg = crate::model::pi::PiConfig {
            permission: Some(surfaces),
            ..Default::default()
        };
        let md = crate::ide::hover::precedence(&cfg, folded, &settings.analysis.home)?;
        return Some(Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value: md,
            }),
            range: None,
        });
    }
    if snapshot.kind != DocumentKind::PiConfig {
        return None;
    }
    let file = read_config(text, settings.analysis.target);
    let root = file.parsed.root.as_ref()?;
    let mut info = crate::ide::hover::hover(root, offset, settings.analysis.target)?;
    if let Some(cfg) = file.config()
        && let Some(more) = crate::ide::hover::precedence(&cfg, offset, &settings.analysis.home)
    {
        info.markdown.push_str("\n\n---\n\n");
        info.markdown.push_str(&more);
    }
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: info.markdown,
        }),
        range: Some(to_lsp_range(text, &index, &info.range, settings.encoding)),
    })
}
