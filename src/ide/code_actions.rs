//! Code actions as plain text edits. Each changes only what it must: the
//! rest of the file — comments, order, formatting — stays as it was, and the
//! result is what the runtime accepts (tested by re-reading it).

use crate::analysis::{Code, Diagnostic};
use crate::ide::locate::locate;
use crate::syntax::{Member, Node, Value};
use std::ops::Range;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextEdit {
    pub range: Range<usize>,
    pub new_text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionKind {
    QuickFix,
    RefactorRewrite,
    /// Acts on a whole map or file.
    Source,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Action {
    pub title: String,
    pub kind: ActionKind,
    pub edits: Vec<TextEdit>,
    /// The diagnostic this action fixes, if any.
    pub fixes: Option<Diagnostic>,
    pub preferred: bool,
}

fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// Actions for the range `at` of a config text, given its diagnostics.
pub fn code_actions(
    text: &str,
    root: Option<&Node>,
    diagnostics: &[Diagnostic],
    at: Range<usize>,
) -> Vec<Action> {
    let mut out = Vec::new();
    for d in diagnostics
        .iter()
        .filter(|d| d.range.start <= at.end && at.start <= d.range.end)
    {
        if let Some(a) = fix(text, root, d) {
            out.push(a);
        }
    }
    if let Some(root) = root {
        out.extend(rewrites(text, root, at.start));
    }
    out
}

fn action(title: impl Into<String>, edits: Vec<TextEdit>, d: &Diagnostic) -> Action {
    Action {
        title: title.into(),
        kind: ActionKind::QuickFix,
        edits,
        fixes: Some(d.clone()),
        preferred: true,
    }
}

fn replace(range: Range<usize>, new_text: impl Into<String>) -> TextEdit {
    TextEdit {
        range,
        new_text: new_text.into(),
    }
}

fn fix(text: &str, root: Option<&Node>, d: &Diagnostic) -> Option<Action> {
    let span = text.get(d.range.clone())?;
    match d.code {
        Code::TrailingComma if span == "," => Some(action(
            "Remove the trailing comma",
            vec![replace(d.range.clone(), "")],
            d,
        )),
        Code::ByteOrderMark => Some(action(
            "Remove the byte order mark",
            vec![replace(0..3, "")],
            d,
        )),
        Code::InvalidState => {
            let inner: String = serde_json::from_str::<String>(span).ok()?;
            let fixed = ["allow", "deny", "ask"]
                .into_iter()
                .find(|s| s.eq_ignore_ascii_case(inner.trim()))?;
            Some(action(
                format!("Change to \"{fixed}\""),
                vec![replace(d.range.clone(), quote(fixed))],
                d,
            ))
        }
        Code::ObjectFormForState => {
            // The diagnostic is on the action value; replace the whole object.
            let obj = enclosing_object(root?, d.range.start)?;
            let action_value: String = serde_json::from_str(span).ok()?;
            Some(action(
                format!("Write \"{action_value}\" as a plain string"),
                vec![replace(obj.range.clone(), quote(&action_value))],
                d,
            ))
        }
        Code::ReasonNotString => Some(action(
            "Make the reason a string",
            vec![replace(d.range.clone(), quote(span.trim_matches('"')))],
            d,
        )),
        Code::SurfaceDenyObject => Some(action(
            "Move the deny object under the pattern \"*\"",
            vec![
                replace(d.range.start..d.range.start, "{ \"*\": "),
                replace(d.range.end..d.range.end, " }"),
            ],
            d,
        )),
        Code::UnknownKey => {
            let hint = d
                .message
                .split("(did you mean `")
                .nth(1)?
                .split('`')
                .next()?;
            Some(action(
                format!("Rename to \"{hint}\""),
                vec![replace(d.range.clone(), quote(hint))],
                d,
            ))
        }
        Code::DuplicateKey => {
            // Keep the runtime's meaning: the last value at the first position.
            let (members, i) = member_with_key_at(root?, d.range.start)?;
            let key = &members[i].key;
            let first = members.iter().position(|m| &m.key == key)?;
            if first == i {
                return None;
            }
            let last_value = text.get(
                members
                    .iter()
                    .rposition(|m| &m.key == key)
                    .map(|l| members[l].value.range.clone())?,
            )?;
            let mut edits = Vec::new();
            if members.iter().rposition(|m| &m.key == key) == Some(i) {
                edits.push(replace(members[first].value.range.clone(), last_value));
            }
            edits.extend(member_removal_edits(text, members, i));
            Some(action(
                "Remove this duplicate (the value in force moves to the first occurrence)",
                edits,
                d,
            ))
        }
        Code::FrontmatterEntryDropped => frontmatter_rewrite(text, span, d),
        Code::OverriddenRule => move_after_broader(text, root?, d),
        Code::ShadowedRule | Code::RedundantRule if !d.message.contains("still marks") => {
            let (members, i) = member_with_key_at(root?, d.range.start)?;
            Some(action(
                format!("Remove the rule \"{}\"", members[i].key),
                member_removal_edits(text, members, i),
                d,
            ))
        }
        Code::UnknownSurface => {
            let hint = d
                .message
                .split("did you mean `")
                .nth(1)?
                .split('`')
                .next()?;
            rename_key(root?, d, hint)
        }
        Code::McpCatchAllShadows | Code::DoubleStar => {
            let hint = match d.code {
                Code::McpCatchAllShadows => {
                    d.message.rsplit("write `").next()?.split('`').next()?
                }
                _ => d.message.split("; `").nth(1)?.split("` alone").next()?,
            };
            rename_key(root?, d, hint)
        }
        Code::StarWithoutSpace => {
            let key = serde_json::from_str::<String>(span).ok()?;
            let word = key.strip_suffix('*')?;
            rename_key(root?, d, &format!("{word} *"))
        }
        Code::PatternWhitespace => {
            let key = serde_json::from_str::<String>(span).ok()?;
            let fixed = key
                .split(' ')
                .filter(|w| !w.is_empty())
                .collect::<Vec<_>>()
                .join(" ");
            rename_key(root?, d, &fixed)
        }
        Code::ToolHidden => {
            let (members, i) = member_with_key_at(root?, d.range.start)?;
            let m = &members[i];
            (m.key == "*" && m.value.value.as_str() == Some("deny")).then(|| {
                action(
                    "Make the catch-all ask (keeps the tool available)",
                    vec![replace(m.value.range.clone(), "\"ask\"")],
                    d,
                )
            })
        }
        _ => None,
    }
}

/// Agent frontmatter: an inline comment moved to its own line, or a flow
/// map `{ action: deny, reason: … }` written as the nested block the
/// runtime reads.
fn frontmatter_rewrite(text: &str, line: &str, d: &Diagnostic) -> Option<Action> {
    let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let indent: String = line
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    let body = &line[indent.len()..];
    if d.message.contains("no inline comments") {
        let at = body.find(" #")?;
        let (entry, comment) = (body[..at].trim_end(), body[at..].trim_start());
        return Some(action(
            "Move the comment to its own line",
            vec![replace(
                d.range.clone(),
                format!("{indent}{comment}{newline}{indent}{entry}"),
            )],
            d,
        ));
    }
    if d.message.contains("is not `allow`, `ask` or `deny`")
        && let Some((entry, value)) = body.rsplit_once(": ")
        && let lower = value.trim().to_ascii_lowercase()
        && matches!(lower.as_str(), "allow" | "ask" | "deny")
    {
        return Some(action(
            format!("Change to {lower}"),
            vec![replace(
                d.range.clone(),
                format!("{indent}{entry}: {lower}"),
            )],
            d,
        ));
    }
    if d.message.contains("no flow maps") {
        let colon = body.find(": {").or_else(|| body.find(":{"))?;
        let key = &body[..colon];
        let inner = body[colon + 1..]
            .trim()
            .strip_prefix('{')?
            .strip_suffix('}')?;
        let unit = if indent.contains('\t') { "\t" } else { "  " };
        let mut out = format!("{indent}{key}:");
        for part in inner.split(',') {
            let (k, v) = part.split_once(':')?;
            let (k, v) = (k.trim(), v.trim());
            if k.is_empty() || v.is_empty() || v.contains(['{', '}', '[', ']']) {
                return None;
            }
            out.push_str(&format!("{newline}{indent}{unit}{k}: {v}"));
        }
        return Some(action(
            "Write as a nested block",
            vec![replace(d.range.clone(), out)],
            d,
        ));
    }
    None
}

/// Renames the key at the diagnostic to `to`, unless the map has that key.
fn rename_key(root: &Node, d: &Diagnostic, to: &str) -> Option<Action> {
    let (members, _) = member_with_key_at(root, d.range.start)?;
    if to.is_empty() || members.iter().any(|m| m.key == to) {
        return None;
    }
    Some(action(
        format!("Rename to \"{to}\""),
        vec![replace(d.range.clone(), quote(to))],
        d,
    ))
}

/// PL210: moves the overridden rule right after the last later rule of
/// the same map that overrides it. Only the calls the moved rule matches
/// can change (each now gets its action); every other decision stays.
fn move_after_broader(text: &str, root: &Node, d: &Diagnostic) -> Option<Action> {
    let (members, i) = member_with_key_at(root, d.range.start)?;
    let last = d.related.last()?;
    let p = members.iter().position(|m| m.key_range == last.range)?;
    if p <= i || members.iter().filter(|m| m.key == members[i].key).count() > 1 {
        return None;
    }
    // Every overriding rule must be in this map for the move to help.
    if !d
        .related
        .iter()
        .all(|r| members.iter().any(|m| m.key_range == r.range))
    {
        return None;
    }
    let moved = text.get(members[i].key_range.start..members[i].value.range.end)?;
    let target = &members[p];
    let mut edits = member_removal_edits(text, members, i);
    let value_end = target.value.range.end;
    let comma = comma_after(text, value_end);
    let after_comma = comma.map_or(value_end, |c| c + 1);
    let multiline = line_start_if_blank(text, target.key_range.start).is_some()
        && line_end_if_blank(text, after_comma).is_some();
    if multiline {
        let ls = line_start_if_blank(text, target.key_range.start)?;
        let indent = &text[ls..target.key_range.start];
        let le = line_end_if_blank(text, after_comma)?;
        let newline = if text[..le].ends_with("\r\n") {
            "\r\n"
        } else {
            "\n"
        };
        let at_eof = le == text.len() && !text.ends_with('\n');
        let lead = if at_eof { newline } else { "" };
        match comma {
            Some(_) => edits.push(replace(le..le, format!("{lead}{indent}{moved},{newline}"))),
            None => {
                edits.push(replace(value_end..value_end, ","));
                edits.push(replace(le..le, format!("{lead}{indent}{moved}{newline}")));
            }
        }
    } else {
        match comma {
            Some(c) => edits.push(replace(c + 1..c + 1, format!(" {moved},"))),
            None => edits.push(replace(value_end..value_end, format!(", {moved}"))),
        }
    }
    edits.sort_by_key(|e| e.range.start);
    Some(action(
        format!("Move after \"{}\" so this rule takes effect", target.key),
        edits,
        d,
    ))
}

/// Rewrites available at a position: a string `"deny"` pattern value into a
/// deny object with a reason, and back.
fn rewrites(text: &str, root: &Node, offset: usize) -> Vec<Action> {
    let mut out = Vec::new();
    let Some(at) = locate(root, offset) else {
        return out;
    };
    // Every string "deny" of the enclosing surface map at once.
    if at.path.len() >= 2
        && at.path[0] == "permission"
        && let Some(map) = enclosing_pattern_value(root, &at.path[..2])
        && let Some(members) = map.value.as_object()
    {
        let edits: Vec<TextEdit> = members
            .iter()
            .filter(|m| m.value.value.as_str() == Some("deny"))
            .map(|m| {
                replace(
                    m.value.range.clone(),
                    "{ \"action\": \"deny\", \"reason\": \"\" }",
                )
            })
            .collect();
        if edits.len() > 1 {
            out.push(Action {
                title: format!(
                    "Add a deny reason to all {} string denies in \"{}\"",
                    edits.len(),
                    at.path[1]
                ),
                kind: ActionKind::Source,
                edits,
                fixes: None,
                preferred: false,
            });
        }
    }
    // Only pattern values: permission.<surface>.<pattern>.
    let in_pattern = at.path.len() >= 3 && at.path[0] == "permission";
    if !in_pattern {
        return out;
    }
    let value_node = if at.path.len() == 3 {
        Some(at.node)
    } else {
        enclosing_pattern_value(root, &at.path[..3])
    };
    let Some(v) = value_node else { return out };
    match &v.value {
        Value::String(s) if s == "deny" => out.push(Action {
            title: "Add a deny reason".into(),
            kind: ActionKind::RefactorRewrite,
            edits: vec![replace(
                v.range.clone(),
                "{ \"action\": \"deny\", \"reason\": \"\" }",
            )],
            fixes: None,
            preferred: false,
        }),
        Value::Object(members) => {
            let reason = members.iter().find(|m| m.key == "reason");
            let is_deny = members
                .iter()
                .any(|m| m.key == "action" && m.value.value.as_str() == Some("deny"));
            let plain = members
                .iter()
                .all(|m| m.key == "action" || m.key == "reason");
            let empty_reason =
                reason.is_none_or(|r| r.value.value.as_str().is_some_and(str::is_empty));
            if is_deny && plain && empty_reason {
                out.push(Action {
                    title: "Write as the plain string \"deny\"".into(),
                    kind: ActionKind::RefactorRewrite,
                    edits: vec![replace(v.range.clone(), "\"deny\"")],
                    fixes: None,
                    preferred: false,
                });
            }
        }
        _ => {}
    }
    let _ = text;
    out
}

fn enclosing_pattern_value<'a>(root: &'a Node, path: &[String]) -> Option<&'a Node> {
    let mut node = root;
    for key in path {
        node = &node
            .value
            .as_object()?
            .iter()
            .rev()
            .find(|m| &m.key == key)?
            .value;
    }
    Some(node)
}

/// The object that directly holds the value at `offset`.
fn enclosing_object(root: &Node, offset: usize) -> Option<&Node> {
    let mut node = root;
    loop {
        let members = node.value.as_object()?;
        let m = members
            .iter()
            .find(|m| m.value.range.start <= offset && offset < m.value.range.end)?;
        if !matches!(m.value.value, Value::Object(_) | Value::Array(_)) {
            return Some(node);
        }
        node = &m.value;
    }
}

/// The members of the object holding the key at `offset`, and its index.
fn member_with_key_at(root: &Node, offset: usize) -> Option<(&[Member], usize)> {
    let mut node = root;
    loop {
        let members = node.value.as_object()?;
        if let Some(i) = members.iter().position(|m| m.key_range.contains(&offset)) {
            return Some((members, i));
        }
        node = &members
            .iter()
            .find(|m| m.value.range.start <= offset && offset < m.value.range.end)?
            .value;
    }
}

/// The text to delete to remove member `i` with its separating comma.
/// Skips spaces, tabs and comments (not newlines) from `at`.
fn skip_inline_trivia(text: &str, mut at: usize) -> usize {
    let b = text.as_bytes();
    loop {
        while at < b.len() && (b[at] == b' ' || b[at] == b'\t') {
            at += 1;
        }
        if text[at..].starts_with("/*") {
            match text[at + 2..].find("*/") {
                Some(e) if !text[at..at + 2 + e].contains('\n') => at += e + 4,
                _ => return at,
            }
        } else {
            return at;
        }
    }
}

/// The start of the line holding `at`, when only spaces come before it.
fn line_start_if_blank(text: &str, at: usize) -> Option<usize> {
    let ls = text[..at].rfind('\n').map_or(0, |n| n + 1);
    text[ls..at].trim().is_empty().then_some(ls)
}

/// The end of the line after `at` (past its newline) when only spaces and
/// comments remain on it.
fn line_end_if_blank(text: &str, at: usize) -> Option<usize> {
    let at = skip_inline_trivia(text, at);
    let rest = &text[at..];
    if rest.starts_with("\r\n") {
        Some(at + 2)
    } else if rest.starts_with('\n') {
        Some(at + 1)
    } else if rest.is_empty() {
        Some(at)
    } else {
        None
    }
}

/// The comma after `after` (skipping spaces and comments), if any.
fn comma_after(text: &str, after: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut at = after;
    loop {
        while at < b.len() && b[at].is_ascii_whitespace() {
            at += 1;
        }
        if text[at..].starts_with("//") {
            at += text[at..].find('\n').unwrap_or(text.len() - at);
        } else if text[at..].starts_with("/*") {
            at += 2 + text[at + 2..].find("*/")? + 2;
        } else {
            return (b.get(at) == Some(&b',')).then_some(at);
        }
    }
}

/// Edits that remove member `i` with its comma, keeping every comment and
/// the other members' lines as they are.
fn member_removal_edits(text: &str, members: &[Member], i: usize) -> Vec<TextEdit> {
    let m = &members[i];
    let own_comma = comma_after(text, m.value.range.end);
    let mut end = own_comma.map_or(m.value.range.end, |c| c + 1);
    let mut start = m.key_range.start;
    if let Some(ls) = line_start_if_blank(text, start)
        && let Some(le) = line_end_if_blank(text, end)
        && text[end..le].trim().is_empty()
    {
        // The member has its own line: remove the line. A comment after it
        // on the line keeps the line (and stays).
        start = ls;
        end = le;
    }
    if start == m.key_range.start {
        // Inline: the spaces after the comma go too.
        end = skip_inline_trivia(text, end)
            .min(end + text[end..].len() - text[end..].trim_start_matches([' ', '\t']).len());
    }
    if own_comma.is_none() && i > 0 {
        // The last member: the comma before it goes too — with everything
        // between, unless a comment is there.
        let prev_end = members[i - 1].value.range.end;
        let between = &text[prev_end..m.key_range.start];
        if !between.contains("//") && !between.contains("/*") {
            return vec![replace(prev_end..m.value.range.end, "")];
        }
        let mut edits = vec![replace(start..end, "")];
        if let Some(c) = comma_after(text, prev_end) {
            edits.insert(0, replace(c..c + 1, ""));
        }
        return edits;
    }
    let edits = vec![replace(start..end, "")];
    edits
}

/// Applies edits (non-overlapping) to a text.
pub fn apply(text: &str, edits: &[TextEdit]) -> String {
    let mut sorted: Vec<&TextEdit> = edits.iter().collect();
    sorted.sort_by_key(|e| std::cmp::Reverse(e.range.start));
    let mut out = text.to_string();
    for e in sorted {
        out.replace_range(e.range.clone(), &e.new_text);
    }
    out
}
