//! `permission-lsp diff [--base REV|FILE] [CONFIG]`: what a config change
//! newly allows, asks or denies, with an example call for each difference.
//! The config's earlier text (from git, or a file) stands in for the file
//! on disk; both policies are loaded as the runtime loads them and
//! compared by [`crate::analysis::diff`].

use super::render::{gh_data, gh_property};
use crate::analysis::compare::{Base, Compared, Comparison, compare};
use crate::analysis::diff::{DiffReport, Difference};
use crate::formats::Format as RuntimeFormat;
use crate::workspace::Context;
use serde_json::json;
use std::io::Write;
use std::path::Path;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Human,
    Json,
    /// GitHub Actions workflow commands: each difference annotated on the
    /// line of the rule that now decides it.
    Github,
    /// A SARIF 2.1.0 log (code scanning): one result per difference.
    Sarif,
}

/// Runs the comparison; the exit status is 1 when anything is newly
/// allowed.
pub fn run(
    runtime: &'static dyn RuntimeFormat,
    ctx: &Context<'_>,
    config: Option<&Path>,
    base: &Base,
    format: Format,
    out: &mut dyn Write,
) -> Result<i32, String> {
    let Comparison {
        files: compared,
        report,
        runtime: runtime_name,
        base: base_name,
    } = compare(runtime, ctx, config, base)?;
    match format {
        Format::Json => {
            let v = json!({
                "schemaVersion": crate::analysis::report::SCHEMA_VERSION,
                "runtime": runtime_name,
                "base": base_name,
                "files": compared,
                "differences": report.differences,
                "newly_allowed": report.newly_allowed,
                "newly_asked": report.newly_asked,
                "newly_denied": report.newly_denied,
                "surfaces": report.surfaces,
                "probes": report.probes,
                "incomplete": report.incomplete,
                "incomplete_reasons": report.incomplete_reasons,
                "agents": report.agents,
            });
            let _ = writeln!(out, "{v}");
        }
        Format::Human => human(&report, &compared, &base_name, &runtime_name, out),
        Format::Github => {
            for d in &report.differences {
                let (file, line) = place(d, &ctx.cwd);
                let level = match d.after {
                    "allow" => "error",
                    "ask" => "warning",
                    _ => "notice",
                };
                let mut props = String::new();
                if let Some(f) = file {
                    props.push_str(&format!(" file={}", gh_property(&f)));
                    if let Some(l) = line {
                        props.push_str(&format!(",line={l}"));
                    }
                    props.push(',');
                } else {
                    props.push(' ');
                }
                let _ = writeln!(
                    out,
                    "::{level}{props}title={}::{}",
                    gh_property(&format!("permission-lsp diff: {}", d.kind())),
                    gh_data(&human_difference(d, &base_name, &report.agents))
                );
            }
            for t in &report.incomplete {
                let _ = writeln!(
                    out,
                    "::warning title=permission-lsp diff: incomplete::{}",
                    gh_data(&format!(
                        "{runtime_name}: `{t}` not compared completely; differences there may be missing"
                    ))
                );
            }
            summary_line(&report, &runtime_name, out);
        }
        Format::Sarif => {
            let _ = writeln!(out, "{}", sarif(&report, &base_name, &ctx.cwd));
        }
    }
    Ok(exit_status(&report))
}

/// 1: something is newly allowed; 3: nothing is, but a tool was not
/// compared completely (an incomplete answer is never a pass); 0 otherwise.
pub fn exit_status(report: &DiffReport) -> i32 {
    if report.newly_allowed > 0 {
        1
    } else if !report.incomplete.is_empty() {
        3
    } else {
        0
    }
}

fn rule_text(r: &Option<crate::analysis::report::DecidingRule>, at: Option<&str>) -> String {
    match r {
        Some(r) => {
            let mut s = format!("`{}`", r.pattern);
            if r.surface != r.pattern && !r.pattern.starts_with(&format!("{}(", r.surface)) {
                s = format!("`{}` `{}`", r.surface, r.pattern);
            }
            if let (Some(f), Some(l)) = (&r.place.file, r.place.line) {
                let name = Path::new(f)
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| f.clone());
                match at {
                    Some(base) => s.push_str(&format!(" ({name}:{l} at {base})")),
                    None => s.push_str(&format!(" ({name}:{l})")),
                }
            }
            s
        }
        None => "the default".into(),
    }
}

/// `newly allowed: bash `rm -rf x` by `rm *` (config.json:4); was ask by
/// `*` (config.json:3 at HEAD)`.
pub fn human_difference(d: &Difference, base: &str, all: &[String]) -> String {
    let call = match d.input.get("command").and_then(|c| c.as_str()) {
        Some(c) => format!("{} `{c}`", d.tool),
        None => format!("{} {}", d.tool, d.input),
    };
    let more = match d.similar {
        0 => String::new(),
        1 => " (and 1 more example)".to_string(),
        n => format!(" (and {n} more examples)"),
    };
    let name = |a: &String| {
        if a == crate::contract::NO_AGENT {
            "(no agent)".to_string()
        } else {
            a.clone()
        }
    };
    let agents = match d.agents.as_slice() {
        [] => String::new(),
        some if all.len() > 1 && some.len() == all.len() => " [every agent]".to_string(),
        [a] if a == crate::contract::NO_AGENT => " [no agent]".to_string(),
        [a] => format!(" [agent {a}]"),
        many => format!(
            " [agents {}]",
            many.iter().map(name).collect::<Vec<_>>().join(", ")
        ),
    };
    format!(
        "{}: {call}{more} by {}; was {} by {}{agents}",
        d.kind(),
        rule_text(&d.after_rule, None),
        d.before,
        rule_text(&d.before_rule, Some(base))
    )
}

/// Where a difference shows: the rule that now decides it (the file, and
/// its line), else the file of the rule that decided it before (the line
/// may be gone). Paths relative to the project when inside it.
fn place(d: &Difference, cwd: &Path) -> (Option<String>, Option<usize>) {
    let rel = |f: &str| {
        Path::new(f)
            .strip_prefix(cwd)
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| f.to_string())
    };
    if let Some(r) = &d.after_rule
        && let Some(f) = &r.place.file
    {
        return (Some(rel(f)), r.place.line);
    }
    if let Some(r) = &d.before_rule
        && let Some(f) = &r.place.file
    {
        return (Some(rel(f)), None);
    }
    (None, None)
}

/// The differences as a SARIF 2.1.0 log.
fn sarif(report: &DiffReport, base: &str, cwd: &Path) -> serde_json::Value {
    let kinds = [
        (
            "newly-allowed",
            "A call the base decided otherwise is now allowed.",
            "error",
        ),
        (
            "newly-asked",
            "A call the base decided otherwise now asks.",
            "warning",
        ),
        (
            "newly-denied",
            "A call the base decided otherwise is now denied.",
            "note",
        ),
    ];
    let rules: Vec<serde_json::Value> = kinds
        .iter()
        .map(|(id, text, level)| {
            json!({
                "id": format!("diff/{id}"),
                "shortDescription": { "text": text },
                "defaultConfiguration": { "level": level },
            })
        })
        .collect();
    let mut results: Vec<serde_json::Value> = report
        .differences
        .iter()
        .map(|d| {
            let id = d.kind().replace(' ', "-");
            let level = kinds.iter().find(|k| k.0 == id).map_or("warning", |k| k.2);
            let mut r = json!({
                "ruleId": format!("diff/{id}"),
                "level": level,
                "message": { "text": human_difference(d, base, &report.agents) },
                "properties": {
                    "tool": d.tool,
                    "input": d.input,
                    "before": d.before,
                    "after": d.after,
                    "agents": d.agents,
                },
            });
            if let (Some(file), line) = place(d, cwd) {
                let mut loc = json!({ "artifactLocation": { "uri": file } });
                if let Some(l) = line {
                    loc["region"] = json!({ "startLine": l });
                }
                r["locations"] = json!([{ "physicalLocation": loc }]);
            }
            r
        })
        .collect();
    for t in &report.incomplete {
        results.push(json!({
            "ruleId": "diff/incomplete",
            "level": "warning",
            "message": { "text": format!("`{t}` not compared completely; differences there may be missing") },
        }));
    }
    let mut rules = rules;
    rules.push(json!({
        "id": "diff/incomplete",
        "shortDescription": { "text": "A tool whose comparison ran out of budget: differences there may be missing." },
        "defaultConfiguration": { "level": "warning" },
    }));
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "permission-lsp",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "results": results,
        }],
    })
}

fn human(
    report: &DiffReport,
    compared: &[Compared],
    base: &str,
    runtime: &str,
    out: &mut dyn Write,
) {
    for c in compared {
        let _ = writeln!(out, "{} against {base}: {}", c.path, c.status);
    }
    for d in &report.differences {
        let _ = writeln!(out, "{}", human_difference(d, base, &report.agents));
    }
    for s in &report.incomplete {
        let _ = writeln!(
            out,
            "note: `{s}` was not compared completely ({}); differences there may be missing",
            report.reasons_for(s).join("; ")
        );
    }
    summary_line(report, runtime, out);
}

/// `Claude Code 2.1.332: 2 differences: …` (and what was incomplete).
fn summary_line(report: &DiffReport, runtime: &str, out: &mut dyn Write) {
    let n = report.differences.len();
    let _ = writeln!(
        out,
        "{runtime}: {} difference{}{}{}",
        n,
        if n == 1 { "" } else { "s" },
        if n == 0 {
            String::new()
        } else {
            format!(
                ": {} newly allowed, {} newly asked, {} newly denied",
                report.newly_allowed, report.newly_asked, report.newly_denied
            )
        },
        if report.incomplete.is_empty() {
            String::new()
        } else {
            let tools: Vec<String> = report.incomplete.iter().map(|s| format!("`{s}`")).collect();
            format!(
                " — INCOMPLETE: {} not compared completely",
                tools.join(", ")
            )
        }
    );
}
