//! The findings on one Gemini CLI file: a policy TOML file (what the CLI
//! drops, what it never loads, rules another rule always beats, checked
//! by deciding a witness call) or a settings file (keys that do something
//! else than they seem).

use super::codes::Code;
use super::engine::decide::{self, Verdict};
use super::engine::policy::{Origin, Policy, Scope};
use super::model::settings::{self, SettingsFile};
use super::model::toml_policy::{PolicyFile, ProblemKind, RuleSpec};
use super::model::{self, Decision};
use crate::core::diagnostic::{Diagnostic, Fix, TextEdit};
use serde_json::json;
use std::ops::Range;

fn first_line(text: &str) -> Range<usize> {
    0..text.find('\n').unwrap_or(text.len())
}

/// A call a rule matches: its first prefix, or a sample for its tool.
pub fn witness(rule: &RuleSpec, tool: &str) -> Option<(String, serde_json::Value)> {
    if tool.contains('*') || rule.mcp_name.is_some() || rule.tool_annotations.is_some() {
        return None;
    }
    if rule.args_pattern.is_some() || rule.command_regex.is_some() {
        return None;
    }
    let args = match tool {
        "run_shell_command" => {
            let cmd = match &rule.command_prefix {
                Some(p) => p.first()?.value.clone(),
                None => "echo hi".into(),
            };
            if cmd.is_empty() {
                return None;
            }
            json!({ "command": cmd })
        }
        "read_file" => json!({ "file_path": "README.md" }),
        "write_file" => json!({ "file_path": "notes.txt", "content": "x" }),
        "replace" => {
            json!({ "file_path": "notes.txt", "instruction": "edit", "old_string": "a", "new_string": "b" })
        }
        "glob" => json!({ "pattern": "*.md" }),
        "list_directory" => json!({ "dir_path": "." }),
        "grep_search" => json!({ "pattern": "TODO" }),
        "web_fetch" => json!({ "prompt": "read https://example.com" }),
        "google_web_search" => json!({ "query": "x" }),
        "write_todos" => json!({ "todos": [] }),
        _ => return None,
    };
    Some((tool.to_string(), args))
}

fn call_text(tool: &str, args: &serde_json::Value) -> String {
    match args.get("command").and_then(|c| c.as_str()) {
        Some(c) if tool == "run_shell_command" => format!("`{c}`"),
        _ => format!("`{tool}` {args}"),
    }
}

/// The repair of one schema issue, when it is plain: a priority above 999
/// becomes 999 (the highest of the tier), a near-miss decision or mode
/// its spelling.
fn issue_fix(text: &str, path: &str, range: &Range<usize>) -> Option<Fix> {
    let written = text.get(range.clone())?.trim();
    let unquoted = written.trim_matches(['"', '\'']);
    let (title, new) = if path.ends_with(".priority") {
        let n: f64 = written.replace('_', "").parse().ok()?;
        if n > 999.0 {
            (
                "Use priority 999 (the highest of the tier)".to_string(),
                "999".to_string(),
            )
        } else if n < 0.0 {
            ("Use priority 0".to_string(), "0".to_string())
        } else if n.fract() != 0.0 {
            let r = n.round().clamp(0.0, 999.0) as i64;
            (format!("Use priority {r}"), r.to_string())
        } else {
            return None;
        }
    } else if path.ends_with(".decision") {
        let lower = unquoted.to_ascii_lowercase();
        let to = match lower.as_str() {
            "ask" | "ask-user" | "askuser" | "prompt" | "confirm" => "ask_user",
            "allowed" | "approve" | "accept" => "allow",
            "denied" | "block" | "reject" | "forbid" => "deny",
            other if Decision::parse(other).is_some() => other,
            _ => return None,
        };
        (format!("Use `{to}`"), format!("\"{to}\""))
    } else if path.contains(".modes.") {
        let to = match unquoted {
            "auto_edit" | "auto-edit" | "autoedit" | "AutoEdit" => "autoEdit",
            "Default" => "default",
            "YOLO" | "Yolo" => "yolo",
            "Plan" => "plan",
            _ => return None,
        };
        (format!("Use `{to}`"), format!("\"{to}\""))
    } else {
        return None;
    };
    Some(Fix::Edit {
        title,
        edits: vec![TextEdit::replace(range.clone(), new)],
    })
}

/// The findings on the policy file `doc` of the session (or a file judged
/// alone: `doc` then points at it with the user tier).
pub fn policy_findings(p: &Policy, doc: usize, out: &mut Vec<Diagnostic>) {
    let d = &p.policies[doc];
    let f: &PolicyFile = &d.read;
    let text = &d.text;
    if let Some(why) = &d.not_loaded {
        out.push(Diagnostic::new(
            Code::PolicyFileNotLoaded,
            first_line(text),
            why.clone(),
        ));
    }
    for pr in &f.problems {
        let (code, msg) = match pr.kind {
            ProblemKind::Syntax | ProblemKind::Schema => {
                let lost = if f.dropped_rules > 0 {
                    format!(
                        " — the CLI drops the whole file: its {} rule{} do nothing",
                        f.dropped_rules,
                        if f.dropped_rules == 1 { "" } else { "s" }
                    )
                } else {
                    " — the CLI drops the whole file".into()
                };
                (Code::PolicyFileDropped, format!("{}{lost}", pr.message))
            }
            ProblemKind::ShellSyntax => (Code::CommandFieldMisplaced, pr.message.clone()),
            ProblemKind::EmptyToolName => (
                Code::EmptyToolName,
                format!(
                    "{} — the policy engine throws and Gemini CLI does not start",
                    pr.message
                ),
            ),
            ProblemKind::ToolName | ProblemKind::McpDoubleUnderscore => (
                Code::UnknownToolName,
                format!("{} — the rule never matches a call", pr.message),
            ),
            ProblemKind::RegexInvalid | ProblemKind::RegexUnsafe => (
                Code::RuleDropped,
                format!("{} — the CLI drops this rule", pr.message),
            ),
            ProblemKind::RegexUnsupported => (
                Code::RegexNotSimulated,
                format!("not run exactly by this checker: {}", pr.message),
            ),
        };
        let mut diag = Diagnostic::new(code, pr.range.clone(), msg);
        diag.runtime_issue = Some(pr.message.clone());
        if pr.kind == ProblemKind::ToolName
            && let Some(r) = pr.rule.and_then(|i| f.rules.iter().find(|r| r.index == i))
            && let Some(t) = r.tool_names.iter().find(|t| t.range == pr.range)
            && let Some(s) = model::suggestion(&t.value)
        {
            diag = diag.with_fix(Fix::Edit {
                title: format!("Use `{s}`"),
                edits: vec![TextEdit::replace(t.range.clone(), format!("\"{s}\""))],
            });
        }
        if pr.kind == ProblemKind::Schema
            && let Some((path, _, range)) = f.issues.first()
            && let Some(fix) = issue_fix(text, path, range)
        {
            diag = diag.with_fix(fix);
        }
        out.push(diag);
    }
    // Issues after the first, each at its place.
    for (path, m, range) in f.issues.iter().skip(1) {
        let mut d = Diagnostic::new(
            Code::PolicyFileDropped,
            range.clone(),
            format!("Field \"{path}\": {m} — one schema error drops the whole file"),
        );
        if let Some(fix) = issue_fix(text, path, range) {
            d = d.with_fix(fix);
        }
        out.push(d);
    }
    if d.not_loaded.is_some() || f.dropped().is_some() {
        return;
    }
    if let Some(ext) = &d.extension {
        for r in &f.rules {
            let yolo = r
                .modes
                .as_ref()
                .is_some_and(|m| m.contains(&model::Mode::Yolo));
            if r.decision.value == Decision::Allow || yolo {
                out.push(Diagnostic::new(
                    Code::ExtensionRuleIgnored,
                    r.decision.range.clone(),
                    format!(
                        "Gemini CLI ignores this rule of the extension `{ext}`: {}",
                        if r.decision.value == Decision::Allow {
                            "an extension may not contribute an allow rule"
                        } else {
                            "an extension may not contribute a rule for yolo mode"
                        }
                    ),
                ));
            }
        }
    }
    for r in &f.rules {
        for (src, place) in [
            (r.command_regex.as_ref(), "commandRegex"),
            (r.args_pattern.as_ref(), "argsPattern"),
        ] {
            let Some(a) = src else { continue };
            let v = &a.value;
            let anchored_start = v.starts_with('^');
            let anchored_end = v.ends_with('$') && !v.ends_with("\\$");
            if anchored_start || anchored_end {
                out.push(Diagnostic::new(
                    Code::AnchoredRegex,
                    a.range.clone(),
                    format!(
                        "`{}` in {place}: the regex runs over the arguments' JSON (`{{\\u0000\"command\":\"…\"\\u0000}}`), so {} never matches there{}",
                        v,
                        if anchored_start { "`^`" } else { "`$`" },
                        if place == "commandRegex" { "; the CLI already anchors a commandRegex at the command's start" } else { "" }
                    ),
                ));
            }
        }
    }
    shadowing(p, doc, out);
}

/// Rules of this file another rule always beats, shown with a witness.
fn shadowing(p: &Policy, doc: usize, out: &mut Vec<Diagnostic>) {
    let d = &p.policies[doc];
    for r in &d.read.rules {
        for t in &r.tool_names {
            let Some((tool, args)) = witness(r, &t.value) else {
                continue;
            };
            let o = decide::decide(p, &tool, &args);
            let Some(i) = o.rule else { continue };
            let winner = &p.rules[i];
            let mine = matches!(winner.origin, Origin::File { doc: dd, rule, .. } if dd == doc && rule == r.index);
            if mine || !o.incomplete.is_empty() {
                continue;
            }
            let my_priority = d.tier as i64 as f64 + r.priority.value as f64 / 1000.0;
            if winner.priority < my_priority {
                continue;
            }
            let verdict = o.verdict.name();
            let decided = matches!(o.verdict, Verdict::Allow | Verdict::Ask | Verdict::Deny);
            if !decided || winner.decision == r.decision.value {
                continue;
            }
            let code = if matches!(r.decision.value, Decision::Deny | Decision::Ask)
                && winner.decision == Decision::Allow
            {
                Code::DenyOverridden
            } else {
                Code::RuleNeverDecides
            };
            let who = match &winner.origin {
                Origin::File { doc: dd, rule, .. } if *dd == doc => {
                    format!(
                        "rule #{} of this file (`{}`)",
                        rule + 1,
                        winner.decision.name()
                    )
                }
                Origin::File { rule, .. } => format!(
                    "{} rule #{} (`{}`)",
                    winner.source,
                    rule + 1,
                    winner.decision.name()
                ),
                Origin::Settings { key, entry, .. } if entry.is_empty() => format!(
                    "the `{}` {key} adds for everything it does not name",
                    winner.decision.name()
                ),
                Origin::Settings { key, entry, .. } => {
                    format!("`{entry}` in {key} (`{}`)", winner.decision.name())
                }
                Origin::Builtin { file, .. } => format!(
                    "the CLI's default rule in {file} (`{}`)",
                    winner.decision.name()
                ),
            };
            out.push(Diagnostic::new(
                code,
                r.decision.range.clone(),
                format!(
                    "{} beats this `{}` rule (effective priority {} ≥ {}): {} → {verdict}",
                    who,
                    r.decision.value.name(),
                    decide::fmt_priority(winner.priority),
                    decide::fmt_priority(my_priority),
                    call_text(&tool, &args),
                ),
            ));
            break;
        }
    }
}

/// The findings on a settings file.
pub fn settings_findings(
    p: &Policy,
    scope: Option<Scope>,
    read: &SettingsFile,
    out: &mut Vec<Diagnostic>,
) {
    if let Some((range, m)) = &read.error {
        out.push(Diagnostic::new(
            Code::SettingsUnreadable,
            range.clone(),
            format!("{m} — Gemini CLI stops at start (\"Please fix the configuration file(s) and try again.\")"),
        ));
        return;
    }
    let Some(root) = read.root.as_ref() else {
        return;
    };
    if scope == Some(Scope::Workspace) && !p.trusted {
        out.push(Diagnostic::new(
            Code::ProjectNotTrusted,
            root.range.start..root.range.start + 1,
            "this folder is not trusted (no entry in ~/.gemini/trustedFolders.json, folder trust on): Gemini CLI ignores this file and forces the approval mode to default".into(),
        ));
    }
    for (path, instead) in settings::STALE_KEYS {
        if let Some(m) = settings::member_at(root, path) {
            out.push(Diagnostic::new(
                Code::StaleSettingsKey,
                m.key_range.clone(),
                format!(
                    "`{}` is not read by Gemini CLI 0.61.0: it does nothing (use {instead})",
                    path.join(".")
                ),
            ));
        }
    }
    for key in ["allowed", "exclude"] {
        if let Some(m) = settings::member_at(root, &["tools", key]) {
            out.push(Diagnostic::new(
                Code::DeprecatedSettingsKey,
                m.key_range.clone(),
                format!("`tools.{key}` is deprecated: Gemini CLI prints a warning at start; a rule in ~/.gemini/policies/*.toml says the same"),
            ));
        }
    }
    let allowed = settings::strings_at(root, &["tools", "allowed"]);
    if let Some((s, r)) = allowed.iter().find(|(s, _)| {
        super::engine::policy::split_call(s)
            .is_some_and(|(n, _)| model::SHELL_TOOL_NAMES.contains(&n))
    }) {
        let other = if s.contains("(ls") {
            "git status"
        } else {
            "ls"
        };
        out.push(Diagnostic::new(
            Code::AllowedNarrowsShell,
            r.clone(),
            format!("`{s}` also adds a shell deny at 4.29: every command it does not name is denied, not asked (`{other}` → deny, where the CLI would otherwise ask or allow)"),
        ));
    }
    for (s, r) in settings::strings_at(root, &["tools", "exclude"]) {
        if s.contains('(') {
            out.push(Diagnostic::new(
                Code::ExcludeWithArguments,
                r,
                format!("`{s}`: tools.exclude takes whole tool names; an entry with arguments hides nothing and denies nothing"),
            ));
        }
    }
    for key in [
        &["tools", "allowed"][..],
        &["tools", "exclude"],
        &["tools", "core"],
        &["tools", "confirmationRequired"],
    ] {
        for (s, r) in settings::strings_at(root, key) {
            let name = super::engine::policy::split_call(&s)
                .map(|(n, _)| n.to_string())
                .unwrap_or(s.clone());
            if model::SHELL_TOOL_NAMES.contains(&name.as_str()) || model::is_valid_tool_name(&name)
            {
                continue;
            }
            let mut d = Diagnostic::new(
                Code::UnknownToolName,
                r.clone(),
                format!("`{name}` is not a Gemini CLI tool: this entry matches no call"),
            );
            if let Some(sug) = model::suggestion(&name) {
                d.message.push_str(&format!(" (did you mean `{sug}`?)"));
                d = d.with_fix(Fix::Edit {
                    title: format!("Use `{sug}`"),
                    edits: vec![TextEdit::replace(
                        r.clone(),
                        format!("\"{}\"", s.replacen(&name, sug, 1)),
                    )],
                });
            }
            out.push(d);
        }
    }
    if let Some(m) = settings::member_at(root, &["general", "defaultApprovalMode"])
        && m.value.value.as_str() == Some("yolo")
    {
        out.push(Diagnostic::new(
            Code::YoloIgnored,
            m.value.range.clone(),
            "`\"yolo\"` is ignored here: yolo exists only on the command line (`--approval-mode yolo`); the session runs in default mode".into(),
        ));
    }
}
