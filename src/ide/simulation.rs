//! A simulation as data for the CLI and the editor: the deciding gate and
//! rule with its position in the scope file, and the stable JSON shape.

use crate::engine::gates::{Call, GateRecord, Simulation};
use crate::engine::policy::{LoadedPolicy, PolicyInputs};
use crate::engine::rules::RuleSource;
use crate::text::LineIndex;
use serde_json::{Value, json};

/// The gate whose state is the decision (the first one that has it).
pub fn deciding_gate(sim: &Simulation) -> Option<&GateRecord> {
    sim.gates
        .iter()
        .find(|g| g.state == sim.decision)
        .or_else(|| sim.gates.last())
}

/// `file:line:column` of a rule, from the scope texts.
pub fn locate(source: &RuleSource, inputs: &PolicyInputs) -> Option<(String, usize, usize)> {
    let file = source.file.as_deref()?;
    let text = inputs
        .files()
        .into_iter()
        .flatten()
        .find(|s| &*s.path == file)?;
    let text = if file.ends_with(".md") {
        text.text.replace("\r\n", "\n")
    } else {
        text.text.clone()
    };
    let index = LineIndex::new(&text);
    let (line, col) = line_col_1(&index, &text, source.key_range.start.min(text.len()));
    Some((file.to_string(), line, col))
}

pub fn to_json(
    call: &Call,
    sim: &Simulation,
    loaded: &LoadedPolicy,
    inputs: &PolicyInputs,
) -> Value {
    let deciding = deciding_gate(sim)
        .and_then(|g| g.check.as_ref())
        .and_then(|c| c.rule.as_ref());
    let rule = deciding.map(|r| {
        let at = r.source.as_ref().and_then(|s| locate(s, inputs));
        json!({
            "surface": r.surface,
            "pattern": r.pattern,
            "layer": r.layer,
            "scope": r.origin.as_str(),
            "file": at.as_ref().map(|a| a.0.clone()),
            "line": at.as_ref().map(|a| a.1),
            "column": at.as_ref().map(|a| a.2),
        })
    });
    json!({
        "tool": call.tool,
        "input": call.input,
        "decision": sim.decision,
        "rule": rule,
        "reason": sim.reason,
        "agent_message": sim.agent_message,
        "tool_hidden": sim.tool_hidden,
        "units": sim.units,
        "gates": sim.gates,
        "config_issues": loaded.issues,
    })
}

/// 1-based line and character column, as editors and compilers print them.
pub fn line_col_1(index: &LineIndex, text: &str, offset: usize) -> (usize, usize) {
    let p = index.position(text, offset, crate::text::PositionEncoding::Utf8);
    let start = index.line_range(text, p.line as usize).start;
    let end = (start + p.col as usize).min(text.len());
    (
        p.line as usize + 1,
        text.get(start..end).map_or(0, |s| s.chars().count()) + 1,
    )
}
