//! Editor answers for Codex files: hover (what a rule matches, which rule
//! wins for its commands, what a config key does), completion, the
//! outline, and the simulation report (`simulation`).

pub mod simulation;

use crate::contract::Role;
use crate::formats::codex::engine::decide::{Engine, Input, Outcome};
use crate::formats::codex::engine::policy::Policy;
use crate::formats::codex::lints::witness;
use crate::formats::codex::model::{config, rules};
use crate::ide::items::{HoverInfo, Item, ItemKind};
use crate::ide::symbols::{Symbol, SymbolKind};

fn outcome_text(o: Outcome) -> &'static str {
    match o {
        Outcome::Allow { sandboxed: true } => "runs (in the sandbox)",
        Outcome::Allow { sandboxed: false } => "runs (outside the sandbox)",
        Outcome::Ask => "asks",
        Outcome::Deny => "is rejected",
    }
}

pub fn hover(
    role: Role,
    text: &str,
    offset: usize,
    policy: &Policy,
    doc: Option<usize>,
) -> Option<HoverInfo> {
    match role {
        Role::Rules => rules_hover(text, offset, policy, doc),
        Role::Config => config_hover(text, offset, policy),
        Role::Agent => None,
    }
}

fn rules_hover(
    text: &str,
    offset: usize,
    policy: &Policy,
    doc: Option<usize>,
) -> Option<HoverInfo> {
    let file = rules::read(text, &mut Vec::new());
    let here: Vec<&rules::PrefixRule> = file
        .rules
        .iter()
        .filter(|r| r.call.start <= offset && offset <= r.call.end)
        .collect();
    let first = here.first()?;
    let mut md = String::new();
    let mut seen = std::collections::HashSet::new();
    for r in &here {
        if !seen.insert(r.display()) {
            continue;
        }
        md.push_str(&format!(
            "**`{}`** → `{}`{}\n\n",
            r.display(),
            r.decision.as_str(),
            r.justification
                .as_ref()
                .map(|j| format!(" — {j}"))
                .unwrap_or_default()
        ));
    }
    md.push_str(
        "Matches any command whose first words are these tokens (exactly, as argv words; a list is alternatives), also as `/usr/bin/…` unless a `host_executable` lists the paths.\n\n",
    );
    // The session's answer for the rule's shortest command, with this
    // document's rules in place.
    let mut all: Vec<&rules::PrefixRule> = policy
        .rules
        .iter()
        .filter(|l| Some(l.file) != doc)
        .map(|l| &l.rule)
        .collect();
    if file.loaded() && policy.dropped_by.is_none_or(|d| Some(d) == doc) {
        all.extend(file.rules.iter());
    }
    let engine = Engine::new(&all, &policy.hosts, policy.approval);
    let w = witness(first);
    let v = engine.decide(&Input::Line(w.clone()));
    md.push_str(&format!(
        "In this session (approval `{}`), `{w}` {}{}.\n",
        policy.approval.describe(),
        outcome_text(v.outcome),
        v.reason
            .as_ref()
            .map(|r| format!(": {r}"))
            .unwrap_or_default()
    ));
    if let Some(e) = &file.error {
        md.push_str(&format!(
            "\n**This file does not load** ({}): Codex applies no custom rule.\n",
            e.message
        ));
    }
    Some(HoverInfo {
        range: Some(first.call.clone()),
        markdown: md,
    })
}

const KEY_DOCS: &[(&str, &str)] = &[
    (
        "approval_policy",
        "When Codex asks: `on-request` (default: commands no rule matches run in the sandbox, a forced `rm` asks), `never` (never asks: a prompt rule or a forced `rm` is rejected), `on-failure` (acts as `on-request`), or `{ granular = { sandbox_approval, rules, mcp_elicitations } }` (all three required; `rules = false` rejects prompt rules). `\"untrusted\"` is refused here: no session starts.",
    ),
    (
        "sandbox_mode",
        "Where commands run: `read-only`, `workspace-write` or `danger-full-access`. Any other value is refused. A command runs outside the sandbox only when a rule allows every command of it.",
    ),
    (
        "projects",
        "`[projects.\"<git root>\"] trust_level = \"trusted\"`: Codex reads the project's `.codex/config.toml` and `.codex/rules/*.rules` only when trusted. `\"untrusted\"` also makes the default approval policy `untrusted` (every command asks unless a rule allows it).",
    ),
    (
        "default_permissions",
        "The sandbox profile: `:read-only`, `:workspace`, `:danger-full-access`, or the name of a `[permissions.<name>]` table.",
    ),
    (
        "sandbox_workspace_write",
        "`network_access` and `writable_roots` of the `workspace-write` sandbox.",
    ),
    (
        "profile",
        "Refused: a legacy `profile = \"x\"` stops Codex from starting; use `--profile x`.",
    ),
];

fn config_hover(text: &str, offset: usize, policy: &Policy) -> Option<HoverInfo> {
    let c = config::read(text);
    let (key, range) = c
        .keys
        .iter()
        .find(|(_, r)| r.start <= offset && offset <= r.end)?;
    let doc = KEY_DOCS.iter().find(|(k, _)| k == key).map(|(_, d)| *d)?;
    Some(HoverInfo {
        range: Some(range.clone()),
        markdown: format!(
            "**`{key}`** — {doc}\n\nIn this session: approval policy `{}` (from {}), sandbox `{}`.",
            policy.approval.describe(),
            policy.approval_source(),
            policy.sandbox
        ),
    })
}

pub fn completions(role: Role, text: &str, offset: usize) -> Vec<Item> {
    let offset = offset.min(text.len());
    let line_start = text[..offset].rfind('\n').map(|i| i + 1).unwrap_or(0);
    let before = &text[line_start..offset];
    let value = |label: &str, insert: &str, detail: &str, range: std::ops::Range<usize>| Item {
        label: label.into(),
        kind: ItemKind::Value,
        detail: Some(detail.into()),
        insert: insert.into(),
        snippet: false,
        range,
    };
    match role {
        Role::Rules => {
            if let Some(q) = before.rfind("decision=") {
                let after = &before[q + 9..];
                let start = line_start + q + 9;
                if !after.contains(',') && !after.contains(')') {
                    return [
                        ("allow", "runs without asking (outside the sandbox when every command is allowed)"),
                        ("prompt", "asks (rejected under approval `never`)"),
                        ("forbidden", "rejected"),
                    ]
                    .iter()
                    .map(|(d, detail)| value(d, &format!("\"{d}\""), detail, start..offset))
                    .collect();
                }
            }
            if before.trim().is_empty()
                || before
                    .trim_start()
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_')
            {
                let start = offset - before.trim_start().len();
                return vec![
                    Item {
                        label: "prefix_rule".into(),
                        kind: ItemKind::Snippet,
                        detail: Some("a rule on the first words of a command".into()),
                        insert: "prefix_rule(pattern=[\"$1\"], decision=\"${2|allow,prompt,forbidden|}\", match=[\"$3\"])$0".into(),
                        snippet: true,
                        range: start..offset,
                    },
                    Item {
                        label: "host_executable".into(),
                        kind: ItemKind::Snippet,
                        detail: Some("the paths a program name's rules also match".into()),
                        insert: "host_executable(name=\"$1\", paths=[\"/usr/bin/$1\"])$0".into(),
                        snippet: true,
                        range: start..offset,
                    },
                ];
            }
            Vec::new()
        }
        Role::Config => {
            let t = before.trim_start();
            if let Some(eq) = t.find('=') {
                let key = t[..eq].trim();
                let start = offset - t[eq + 1..].trim_start().len();
                let values: &[&str] = match key {
                    "approval_policy" => &["on-request", "never", "on-failure"],
                    "sandbox_mode" => SANDBOX,
                    "trust_level" => &["trusted", "untrusted"],
                    _ => &[],
                };
                return values
                    .iter()
                    .map(|v| value(v, &format!("\"{v}\""), key, start..offset))
                    .collect();
            }
            if t.chars().all(|c| c.is_alphanumeric() || c == '_') {
                let start = offset - t.len();
                return KEY_DOCS
                    .iter()
                    .filter(|(k, _)| *k != "profile" && *k != "projects")
                    .map(|(k, d)| Item {
                        label: k.to_string(),
                        kind: ItemKind::Key,
                        detail: Some(d.chars().take(80).collect()),
                        insert: format!("{k} = "),
                        snippet: false,
                        range: start..offset,
                    })
                    .collect();
            }
            Vec::new()
        }
        Role::Agent => Vec::new(),
    }
}

const SANDBOX: &[&str] = &["read-only", "workspace-write", "danger-full-access"];

/// The outline of a rules file: one entry per rule of each call site (a
/// call in a loop once per distinct rule).
pub fn rule_symbols(file: &rules::RulesFile) -> Vec<Symbol> {
    let mut seen = std::collections::HashSet::new();
    file.rules
        .iter()
        .filter_map(|r| {
            let name = r.display();
            seen.insert((r.call.start, name.clone())).then(|| Symbol {
                name,
                detail: Some(r.decision.as_str().into()),
                kind: SymbolKind::Rule,
                range: r.call.clone(),
                selection: r.call.clone(),
                children: Vec::new(),
            })
        })
        .collect()
}

/// The outline of a TOML file: its top-level keys.
pub fn key_symbols(keys: &[(String, std::ops::Range<usize>)]) -> Vec<Symbol> {
    keys.iter()
        .map(|(k, r)| Symbol {
            name: k.clone(),
            detail: None,
            kind: SymbolKind::Key,
            range: r.clone(),
            selection: r.clone(),
            children: Vec::new(),
        })
        .collect()
}
