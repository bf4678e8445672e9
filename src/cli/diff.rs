//! `permission-lsp diff [--base REV|FILE] [CONFIG]`: what a config change
//! newly allows, asks or denies, with an example call for each difference.
//! The config's earlier text (from git, or a file) stands in for the file
//! on disk; both policies are loaded as the runtime loads them and
//! compared by [`crate::analysis::diff`].

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
            });
            let _ = writeln!(out, "{v}");
        }
        Format::Human => human(&report, &compared, &base_name, &runtime_name, out),
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
pub fn human_difference(d: &Difference, base: &str) -> String {
    let call = match d.input.get("command").and_then(|c| c.as_str()) {
        Some(c) => format!("{} `{c}`", d.tool),
        None => format!("{} {}", d.tool, d.input),
    };
    let more = match d.similar {
        0 => String::new(),
        1 => " (and 1 more example)".to_string(),
        n => format!(" (and {n} more examples)"),
    };
    format!(
        "{}: {call}{more} by {}; was {} by {}",
        d.kind(),
        rule_text(&d.after_rule, None),
        d.before,
        rule_text(&d.before_rule, Some(base))
    )
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
        let _ = writeln!(out, "{}", human_difference(d, base));
    }
    for s in &report.incomplete {
        let _ = writeln!(
            out,
            "note: `{s}` has too many patterns to compare completely; differences there may be missing"
        );
    }
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
