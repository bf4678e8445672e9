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
        if let Some(scopes) = scope_text(server, &pos.text_document.uri, root, offset) {
            info.markdown.push_str("\n\n");
            info.markdown.push_str(&scopes);
        }
    }
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: info.markdown,
        }),
        range: Some(to_lsp_range(text, &index, &info.range, settings.encoding)),
    })
}

/// What the other scope files say about the rule under the cursor.
fn scope_text(
    server: &Server,
    uri: &tower_lsp_server::ls_types::Uri,
    root: &crate::syntax::Node,
    offset: usize,
) -> Option<String> {
    let at = crate::ide::locate::locate(root, offset)?;
    let (surface, pattern) = match at.path.as_slice() {
        [p, s] if p == "permission" && at.node.value.as_str().is_some() => {
            (s.clone(), "*".to_string())
        }
        [p, s, pat, ..] if p == "permission" => (s.clone(), pat.clone()),
        _ => return None,
    };
    let settings = server.session.settings();
    let path = uri.to_file_path()?.into_owned();
    let cwd = settings
        .workspace_root
        .clone()
        .or_else(|| path.parent().map(|p| p.to_path_buf()))?;
    let session = &server.session;
    let (inputs, loaded, doc) =
        crate::workspace::scope_context(&path, &cwd, &settings.analysis, &|p| {
            session.open_text_by_path(p)
        })?;
    if !inputs.has_other_than(&doc) {
        return None;
    }
    crate::ide::effective::scope_hover(&inputs, &loaded, &doc, &surface, &pattern)
}
