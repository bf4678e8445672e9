//! A simulation as data for the CLI and the editor: the deciding gate and
//! rule with its position in the scope file, and the stable JSON shape.

use crate::contract::report::{DecidingRule, RulePlace, SCHEMA_VERSION, SimulationReport};
use crate::formats::pi::engine::gates::{Call, GateRecord, Simulation};
use crate::formats::pi::engine::policy::{LoadedPolicy, PolicyInputs};
use crate::formats::pi::engine::rules::RuleSource;
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
    Locator::new(inputs).locate(source)
}

/// A scope text with its line index.
type Indexed = std::rc::Rc<(String, LineIndex)>;

/// Places rules in the scope texts, indexing each file's lines once (an
/// effective policy places every rule of a file that can hold 100,000).
pub struct Locator<'a> {
    inputs: &'a PolicyInputs,
    files: std::cell::RefCell<Vec<(String, Indexed)>>,
}

impl<'a> Locator<'a> {
    pub fn new(inputs: &'a PolicyInputs) -> Self {
        Locator {
            inputs,
            files: Default::default(),
        }
    }

    fn indexed(&self, file: &str) -> Option<Indexed> {
        if let Some((_, f)) = self.files.borrow().iter().find(|(p, _)| p == file) {
            return Some(f.clone());
        }
        let scope = self
            .inputs
            .files()
            .into_iter()
            .flatten()
            .find(|s| &*s.path == file)?;
        // Agent files are read with CRLF normalised, as the runtime does.
        let text = if file.ends_with(".md") {
            scope.text.replace("\r\n", "\n")
        } else {
            scope.text.clone()
        };
        let index = LineIndex::new(&text);
        let entry = std::rc::Rc::new((text, index));
        self.files
            .borrow_mut()
            .push((file.to_string(), entry.clone()));
        Some(entry)
    }

    /// `file:line:column` of a rule.
    pub fn locate(&self, source: &RuleSource) -> Option<(String, usize, usize)> {
        let file = source.file.as_deref()?;
        let entry = self.indexed(file)?;
        let (text, index) = &*entry;
        let (line, col) = line_col_1(index, text, source.key_range.start.min(text.len()));
        Some((file.to_string(), line, col))
    }

    /// Where a rule is written, as the reports give it.
    pub fn place(&self, source: Option<&RuleSource>) -> RulePlace {
        let at = source.and_then(|s| self.locate(s));
        RulePlace {
            file: at.as_ref().map(|a| a.0.clone()),
            line: at.as_ref().map(|a| a.1),
            column: at.as_ref().map(|a| a.2),
        }
    }
}

/// Where a rule is written, as the reports give it.
pub fn rule_place(source: Option<&RuleSource>, inputs: &PolicyInputs) -> RulePlace {
    Locator::new(inputs).place(source)
}

/// The typed report of one simulation (the JSON of `simulate --format
/// json` and of `permission-lsp.simulate`).
pub fn to_report(
    call: &Call,
    sim: &Simulation,
    loaded: &LoadedPolicy,
    inputs: &PolicyInputs,
) -> SimulationReport {
    let gate = deciding_gate(sim);
    let deciding = gate
        .and_then(|g| g.check.as_ref())
        .and_then(|c| c.rule.as_ref());
    let rule = deciding.map(|r| DecidingRule {
        surface: r.surface.clone(),
        pattern: r.pattern.clone(),
        layer: serde_json::to_value(r.layer).unwrap_or(Value::Null),
        scope: r.origin.as_str().into(),
        place: rule_place(r.source.as_ref(), inputs),
    });
    let mut explanation = Vec::new();
    if let Some(g) = gate {
        let c = g.check.as_ref();
        let rule = c.and_then(|c| c.rule.as_ref());
        let pattern = c
            .and_then(|c| c.matched_pattern.clone())
            .or_else(|| rule.map(|r| format!("{} (default)", r.pattern)))
            .unwrap_or_default();
        let mut line = format!("decided by: {} gate, pattern `{pattern}`", g.gate);
        if let Some(r) = rule {
            line.push_str(&format!(" on `{}`, {}", r.surface, r.origin.as_str()));
            if let Some((f, l, col)) = r.source.as_ref().and_then(|s| locate(s, inputs)) {
                line.push_str(&format!(" ({f}:{l}:{col})"));
            }
        }
        explanation.push(line);
        if let Some(cmd) = c
            .and_then(|c| c.command.as_ref())
            .filter(|_| !sim.units.is_empty())
        {
            let ctx = c
                .and_then(|c| c.command_context)
                .map(|x| format!(" inside {}", x.label()))
                .unwrap_or_default();
            explanation.push(format!("unit: `{cmd}`{ctx}"));
        }
    }
    if let Some(r) = &sim.reason {
        explanation.push(format!("reason: {r}"));
    }
    if let Some(m) = &sim.agent_message {
        explanation.push(format!("agent sees: {m}"));
    }
    if sim.tool_hidden {
        explanation.push(format!(
            "note: the tool's catch-all is deny, so the runtime hides `{}` from the agent",
            call.tool
        ));
    }
    let gates: Vec<String> = sim
        .gates
        .iter()
        .map(|g| format!("{}={}", g.gate, g.state.as_str()))
        .collect();
    explanation.push(format!("gates: {}", gates.join(", ")));
    let mut details = serde_json::Map::new();
    if !sim.units.is_empty() {
        details.insert("units".into(), json!(sim.units));
    }
    details.insert("gates".into(), json!(sim.gates));
    let basis = crate::formats::pi::basis(inputs.version);
    if inputs.version > crate::core::profile::Version(26, 3, 1) {
        explanation.push(format!(
            "basis: pi-permission-system {}: {basis}",
            inputs.version
        ));
    }
    details.insert("basis".into(), json!(basis));
    SimulationReport {
        schema_version: SCHEMA_VERSION,
        runtime: format!("pi-permission-system {}", inputs.version),
        tool: call.tool.clone(),
        input: call.input.clone(),
        decision: sim.decision.as_str().into(),
        rule,
        reason: sim.reason.clone(),
        agent_message: sim.agent_message.clone(),
        tool_hidden: sim.tool_hidden,
        explanation,
        config_issues: loaded.issues.clone(),
        details,
    }
}

pub use crate::text::line_col_1;
