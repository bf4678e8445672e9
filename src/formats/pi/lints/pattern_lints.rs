//! Patterns the runtime accepts that cannot match what they seem to (drift
//! D22–D29, D31, D32, D35, D39, D42). Where the bash grammar decides, the
//! engine's own decomposition is asked, so a finding is the runtime's view.

use crate::core::diagnostic::{Diagnostic, Fix, Related};
use crate::core::pattern_algebra::{Overlap, Pattern, overlap};
use crate::formats::pi::codes::Code;
use crate::formats::pi::engine::bash::{self, CommandUnit};
use crate::formats::pi::engine::wildcard::{MatchOptions, Wildcard};
use crate::formats::pi::model::{PiConfig, State, Surface, SurfaceValue};
use crate::syntax::{Member, Node};

/// A readable instance of a pattern: every `*` and `?` becomes `x`.
fn instance(pattern: &str) -> String {
    pattern.replace(['*', '?'], "x")
}

/// The commands the runtime checks for `command`, or why they are unknown
/// (the bash reader refused it).
fn units(command: &str) -> Result<Vec<CommandUnit>, String> {
    match bash::parse(command) {
        Ok(tree) => Ok(bash::command_units(&tree, command)),
        Err(crate::syntax::bash::Unparsed::NoGrammar) => Ok(Vec::new()),
        Err(why) => Err(why.to_string()),
    }
}

fn map_rules(s: &Surface) -> &[crate::formats::pi::model::PatternRule] {
    match &s.value {
        SurfaceValue::Map { rules, .. } => rules,
        SurfaceValue::State { .. } => &[],
    }
}

fn env_prefix(p: &str) -> Option<&str> {
    let (name, _) = p.split_once('=')?;
    let mut chars = name.chars();
    let first = chars.next()?;
    ((first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_'))
    .then_some(name)
}

pub fn pattern_lints(cfg: &PiConfig, home: &str, out: &mut Vec<Diagnostic>) {
    let Some(surfaces) = &cfg.permission else {
        return;
    };
    for s in surfaces {
        match s.key.as_str() {
            "bash" => bash_patterns(s, out),
            "mcp" => mcp_patterns(s, out),
            "path" => path_patterns(s, home, out),
            _ => {}
        }
        if matches!(s.key.as_str(), "bash" | "mcp" | "skill") {
            for r in map_rules(s) {
                let p = r.pattern.as_str();
                if p == "~" || p.starts_with("~/") || p == "$HOME" || p.starts_with("$HOME/") {
                    let typed = instance(p);
                    out.push(Diagnostic::new(
                        Code::HomeInPattern,
                        r.key_range.clone(),
                        format!(
                            "the runtime expands the pattern to `{}` but matches it against the {} as written, so `{typed}` does not match; write the expanded form or start the pattern with `*`",
                            crate::formats::pi::engine::paths::expand_home(p, home),
                            if s.key == "bash" { "command" } else { "name" }
                        ),
                    ));
                }
            }
        }
        for r in map_rules(s) {
            if let Some(i) = r.pattern.find("**/") {
                let without = format!("{}{}", &r.pattern[..i], &r.pattern[i + 3..]);
                let example = instance(&without);
                let w = Wildcard::compile(&r.pattern, home, MatchOptions::default());
                if !w.is_match(&example) {
                    out.push(
                        Diagnostic::new(
                            Code::DoubleStar,
                            r.key_range.clone(),
                            format!(
                                "`**` is `*` here (any run, `/` included), so this pattern needs two `/` and misses `{example}`; `{}` alone already matches every depth",
                                without
                            ),
                        )
                        .with_fix(Fix::RenameKey { to: without.clone() }),
                    );
                }
            }
        }
    }
}

/// How many bytes of bash patterns one surface's lints give the bash
/// reader. Reading a pattern costs about 1 µs a byte when it is valid and up
/// to about 10 µs when it has a syntax error (the grammar's recovery), so a
/// file of thousands of long, broken patterns would take minutes; past this
/// bound the rest are left unread and one finding says how many. A real
/// config's patterns that need reading (those with an operator, an
/// assignment or a wrapper command in front) hold a few kilobytes.
pub const PARSE_BUDGET: usize = 64 << 10;

fn bash_patterns(s: &Surface, out: &mut Vec<Diagnostic>) {
    // What the bash reader may still read, and the patterns left unread
    // past it (the first one's place, how many).
    let left = std::cell::Cell::new(PARSE_BUDGET);
    let unread: std::cell::Cell<(Option<&std::ops::Range<usize>>, usize)> =
        std::cell::Cell::new((None, 0));
    for r in map_rules(s) {
        let p = r.pattern.as_str();
        // The commands of the pattern's readable instance, read once; a
        // pattern the bash reader refuses is said once (PL229) and the
        // lints that need its commands are skipped.
        let parsed = std::cell::OnceCell::new();
        let commands = |out: &mut Vec<Diagnostic>| -> Option<&Vec<CommandUnit>> {
            let mut fresh = false;
            let r2 = parsed.get_or_init(|| {
                fresh = true;
                let Some(rest) = left.get().checked_sub(p.len()) else {
                    let (first, n) = unread.get();
                    unread.set((first.or(Some(&r.key_range)), n + 1));
                    return Err(String::new());
                };
                left.set(rest);
                units(&instance(p))
            });
            match r2 {
                Ok(u) => Some(u),
                Err(why) => {
                    // (Unread past the budget: said once, below.)
                    if fresh && !why.is_empty() {
                        out.push(Diagnostic::new(
                            Code::PatternNotParsed,
                            r.key_range.clone(),
                            format!("not checked as the runtime splits it: {why}"),
                        ));
                    }
                    None
                }
            }
        };
        // Most patterns need no readable instance: build it on demand.
        let typed_cell = std::cell::OnceCell::new();
        let typed = || -> &str { typed_cell.get_or_init(|| instance(p)) };
        if p.starts_with(' ') || (p.ends_with(' ') && !p.ends_with(" *")) {
            out.push(
                Diagnostic::new(
                    Code::PatternWhitespace,
                    r.key_range.clone(),
                    format!("never matches: the runtime matches each command without its surrounding spaces, so `{}` is not matched by this pattern", typed().trim()),
                )
                .with_fix(single_spaced(p)),
            );
            continue;
        }
        if p.contains("  ") {
            out.push(
                Diagnostic::new(
                    Code::PatternWhitespace,
                    r.key_range.clone(),
                    format!(
                        "the double space is literal: `{}` typed with one space is not matched",
                        typed().split_whitespace().collect::<Vec<_>>().join(" ")
                    ),
                )
                .with_fix(single_spaced(p)),
            );
        }
        if let Some(name) = env_prefix(p)
            && let Some(u) = commands(out)
        {
            let typed = typed();
            if u.len() == 1 && u[0].text != typed {
                out.push(Diagnostic::new(
                    Code::BashEnvPrefix,
                    r.key_range.clone(),
                    format!(
                        "never matches: the runtime strips `{name}=…` and matches `{}` for the command `{typed}`; write the pattern without the assignment",
                        u[0].text
                    ),
                ));
                continue;
            }
        }
        let has_operator = p
            .bytes()
            .any(|b| matches!(b, b'&' | b'|' | b';' | b'>' | b'<' | b'\n'));
        if has_operator && let Some(u) = commands(out) {
            let typed = typed();
            if !(u.len() == 1 && u[0].text == typed) {
                let parts: Vec<String> = u.iter().map(|u| format!("`{}`", u.text)).collect();
                let split = if parts.is_empty() {
                    "no command at all".to_string()
                } else {
                    parts.join(" and ")
                };
                out.push(Diagnostic::new(
                    Code::BashOperatorPattern,
                    r.key_range.clone(),
                    format!(
                        "never matches: commands are split at operators and redirects before matching — `{typed}` is checked as {split}; write one rule per command"
                    ),
                ));
                continue;
            }
        }
        let first_word = if r.value.action == State::Allow {
            p.split_whitespace()
                .map(instance)
                .find(|w| env_prefix(w).is_none())
                .unwrap_or_default()
        } else {
            String::new()
        };
        if r.value.action == State::Allow
            && bash::may_be_wrapper(&first_word)
            && let Some(u) = commands(out)
        {
            let typed = typed();
            if let Some(w) = u.first().and_then(|u| u.wrapper) {
                out.push(Diagnostic::new(
                    Code::WrapperAllowClamped,
                    r.key_range.clone(),
                    format!(
                        "this allow is lowered to ask: the runtime treats `{typed}` as a wrapper ({}) that hides what it runs, and asks even when an allow matches",
                        w.sentinel()
                    ),
                ));
            }
        }
        if let Some(word) = p.strip_suffix('*')
            && !word.is_empty()
            && word
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        {
            out.push(
                Diagnostic::new(
                    Code::StarWithoutSpace,
                    r.key_range.clone(),
                    format!("also matches other commands that start with `{word}` (e.g. `{word}x run`); `{word} *` matches `{word}` and `{word} …` only"),
                )
                .with_fix(Fix::RenameKey { to: format!("{word} *") }),
            );
        }
    }
    if let (Some(first), n) = unread.get() {
        let later = match n - 1 {
            0 => String::new(),
            1 => ", nor 1 later pattern".to_string(),
            k => format!(", nor {k} later patterns"),
        };
        out.push(Diagnostic::new(
            Code::PatternNotParsed,
            first.clone(),
            format!(
                "not checked as the runtime splits it{later}: this file's bash patterns hold more than {} KiB for the bash reader (a bound of this checker: a broken pattern costs up to about 10 µs a byte to read)",
                PARSE_BUDGET >> 10
            ),
        ));
    }
}

fn mcp_patterns(s: &Surface, out: &mut Vec<Diagnostic>) {
    let rules = map_rules(s);
    let catch_all = match &s.value {
        SurfaceValue::State { .. } => return,
        SurfaceValue::Map { .. } => rules
            .iter()
            .position(|r| Pattern::from_expanded(&r.pattern).is_universal()),
    };
    if let Some(c) = catch_all {
        let ca = &rules[c];
        for r in &rules[c + 1..] {
            let p = r.pattern.as_str();
            let (server, tool, form) = match p.split_once(':') {
                Some((srv, t)) if !srv.is_empty() => (
                    instance(srv),
                    instance(if t.is_empty() { "x" } else { t }),
                    "the later target `server:tool`",
                ),
                _ if !p.contains(['_', '*', '?']) => {
                    (p.to_string(), "x".to_string(), "the later target `server`")
                }
                _ => continue,
            };
            let first = format!("{server}_{tool}");
            if Pattern::from_expanded(p).is_match(&first) {
                continue;
            }
            let mut d = Diagnostic::new(
                Code::McpCatchAllShadows,
                r.key_range.clone(),
                format!(
                    "never decides while `{}` ({}) is in the map: every MCP call is decided by its first target, so the call `{server}:{tool}` is checked as `{first}` and `{}` decides it; this pattern only matches {form}; write `{}_*`",
                    ca.pattern, ca.value.action, ca.pattern, server
                ),
            )
            .with_fix(Fix::RenameKey {
                to: format!("{server}_*"),
            });
            d.add_related(Related {
                range: ca.key_range.clone(),
                message: format!("the catch-all `{}` ({})", ca.pattern, ca.value.action).into(),
            });
            out.push(d);
        }
    }
    // D32: the baseline allows come before config rules.
    let baseline_on = rules.iter().any(|r| r.value.action == State::Allow);
    if baseline_on {
        const BASELINE: &[&str] = &[
            "mcp_status",
            "mcp_list",
            "mcp_search",
            "mcp_describe",
            "mcp_connect",
        ];
        if let Some(r) = rules.iter().rev().find(|r| {
            r.value.action != State::Allow
                && BASELINE
                    .iter()
                    .any(|b| Pattern::from_expanded(&r.pattern).is_match(b))
        }) {
            let hit: Vec<&str> = BASELINE
                .iter()
                .copied()
                .filter(|b| {
                    rules
                        .iter()
                        .rev()
                        .find(|x| Pattern::from_expanded(&x.pattern).is_match(b))
                        .map(|x| x.value.action)
                        .is_some_and(|a| a != State::Allow)
                })
                .collect();
            if !hit.is_empty() {
                out.push(Diagnostic::new(
                    Code::McpBaselineOverridden,
                    r.key_range.clone(),
                    format!(
                        "with an `mcp` allow rule the runtime auto-allows {} — but before the config rules, so this rule ({}) decides them again: the status call `mcp {{}}` is {}",
                        hit.iter().map(|b| format!("`{b}`")).collect::<Vec<_>>().join(", "),
                        r.value.action,
                        r.value.action
                    ),
                ));
            }
        }
    }
}

fn path_patterns(s: &Surface, home: &str, out: &mut Vec<Diagnostic>) {
    let rules = map_rules(s);
    for (i, r) in rules.iter().enumerate() {
        if r.value.action != State::Allow || r.pattern == "*" {
            continue;
        }
        let p = crate::formats::pi::engine::wildcard::algebra_pattern(&r.pattern, home);
        // An exception carved out of an earlier deny/ask does have an effect.
        let carves = rules[..i]
            .iter()
            .filter(|e| e.value.action != State::Allow)
            .any(|e| {
                overlap(
                    &p,
                    &crate::formats::pi::engine::wildcard::algebra_pattern(&e.pattern, home),
                ) != Overlap::Disjoint
            });
        if carves {
            continue;
        }
        out.push(Diagnostic::new(
            Code::PathAllowNotGrant,
            r.key_range.clone(),
            format!(
                "grants nothing: `path` rules only tighten (an allow there is skipped), so a call on `{}` is still decided by the tool's own rule and, outside the project, by `external_directory` — allow it there",
                instance(&r.pattern)
            ),
        ));
    }
}

/// Findings on top-level knobs (D39, D42), which need the syntax tree.
pub fn knob_lints(cfg: &PiConfig, root: &Node, out: &mut Vec<Diagnostic>) {
    let Some(members) = root.value.as_object() else {
        return;
    };
    let find = |k: &str| members.iter().rev().find(|m| m.key == k);
    if let Some(m) = find("shellTools")
        && let Some(tools) = m.value.value.as_object()
    {
        for t in tools {
            shell_tool(t, out);
        }
    }
    if cfg.knobs.yolo_mode == Some(true)
        && let Some(m) = find("yoloMode")
    {
        let bash_denied = cfg
            .permission
            .as_ref()
            .and_then(|p| p.iter().find(|s| s.key == "bash"))
            .is_some_and(|s| {
                matches!(
                    s.value,
                    SurfaceValue::State {
                        state: State::Deny,
                        ..
                    }
                )
            });
        if !bash_denied {
            out.push(Diagnostic::new(
                Code::YoloFloors,
                m.key_range.clone(),
                "yoloMode turns every ask into allow, except the floors applied after it: wrapper commands (`sudo ls`, `bash -c …`, `env X=1 cmd`) and commands that cannot be parsed still ask — and are blocked when no one can answer".into(),
            ));
        }
    }
}

fn shell_tool(t: &Member, out: &mut Vec<Diagnostic>) {
    let msg = match t.key.as_str() {
        "bash" => "ignored: the native `bash` tool is always checked as bash first, so this entry changes nothing".to_string(),
        k @ ("read" | "write" | "edit" | "grep" | "find" | "ls") => format!(
            "reroutes the built-in `{k}` tool through the bash rules: its argument is checked as a command (`{k} {{\"path\": \"rm -rf x\"}}` is decided by `bash` rules) and its own `{k}` rules no longer apply"
        ),
        _ => return,
    };
    out.push(Diagnostic::new(
        Code::ShellToolKey,
        t.key_range.clone(),
        msg,
    ));
}

/// The pattern with its spaces as the runtime's commands have them: single,
/// none around.
fn single_spaced(p: &str) -> Fix {
    Fix::RenameKey {
        to: p
            .split(' ')
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" "),
    }
}
