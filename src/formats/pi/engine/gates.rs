//! The gate pipeline (spec §4.4): skill-read, `path`, `external_directory`,
//! bash external-directory, bash `path`, and the per-tool / bash-command
//! gate, each with its applicability rule. The simulator contract: deny if
//! any applicable gate denies, else ask if any asks, else allow.

use super::bash::direction::Direction;
use super::bash::paths::{BashPaths, Resolver};
use super::bash::{CommandUnit, Transparency, parse};
use super::check::{
    CheckResult, CheckSource, ToolKind, check_path_values, check_tool, check_tool_as, tool_kind,
};
use super::js::non_empty_string;
use super::messages::{Disclosure, Subject, deny_message, no_ui_message, prompt};
use super::paths::{AccessPath, FsView, PathContext, expand_home, is_within, join};
use super::renderer::{self, Texts};
use super::rules::{Layer, PathFlavor, Rule, RuleOrigin, RuleSet};
use super::wildcard::Wildcard;
use crate::formats::pi::model::{ShellTool, State};
use serde_json::Value;

/// Everything the runtime knows before a call: the composed rules and knobs.
pub struct Policy {
    pub rules: RuleSet,
    pub yolo: bool,
    /// From 25.2.1 yolo grants every gate that asks, the floors included
    /// (wrapper commands, unparseable commands): `resolveYoloGrant`.
    pub yolo_grants_every_ask: bool,
    /// Commands in redirect destinations and here-document bodies are
    /// gated (25.2.2).
    pub gate_execution_hosts: bool,
    /// From 30.1 a tool is hidden only when every rule of its surface
    /// denies (documented in the changelog, not verified: no runnable
    /// source of 30.1 exists here); before, when its catch-all denies.
    pub hide_only_all_deny: bool,
    /// Wrapper units name what they run (`executedUnit`; display only,
    /// observed on 26.3.1).
    pub executed_units: bool,
    /// Floored wrappers let through to the command they run (27.1 pure
    /// readers, 39.1 execution modifiers; documented).
    pub transparency: Transparency,
    /// MCP calls: prefix-named tools derive their server and the last rule
    /// matching any target decides (33.0, documented).
    pub mcp_last_match: bool,
    /// A deny on any gate refuses before an earlier gate asks (32.0.1,
    /// documented).
    pub deny_preempts_ask: bool,
    /// Which release's agent-facing texts the gates render (26.0 rewrote them).
    pub texts: super::renderer::Texts,
    /// Which tokens besides plain paths reach the path gates (by version).
    pub tokens: super::bash::paths::TokenReading,
    pub shell_tools: Vec<ShellTool>,
    pub mcp_servers: Vec<String>,
    /// Directories whose reads bypass `external_directory` (plain or wildcard).
    pub infra_dirs: Vec<String>,
    /// Never infrastructure, whatever covers them (39.0: the package's logs).
    pub infra_excluded: Vec<String>,
    /// A targeted `external_directory` deny outranks the bypass (39.0,
    /// documented); a catch-all `*` deny does not.
    pub infra_targeted_deny: bool,
    pub home: String,
    pub flavor: PathFlavor,
    /// Session grants ("approve for this session"), appended last.
    pub session_rules: Vec<Rule>,
    /// `path` deny/ask patterns that promote bare bash tokens, compiled once.
    pub promotable_paths: std::sync::OnceLock<Vec<Wildcard>>,
}

/// One tool call.
#[derive(Debug, Clone)]
pub struct Call {
    pub tool: String,
    pub input: Value,
    pub agent: Option<String>,
    pub cwd: String,
}

/// What one gate decided.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct GateRecord {
    /// `path`, `external_directory`, `bash`, the tool name, or a bypass event.
    pub gate: String,
    pub state: State,
    /// The permission check behind the gate (absent for bypasses).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub check: Option<CheckResult>,
    /// The deny message the agent receives.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// What the user is asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_message: Option<String>,
    /// What the agent receives when nobody can answer the prompt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_ui_message: Option<String>,
}

/// The runtime's answer to one call.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Simulation {
    pub decision: State,
    /// Every gate that produced a decision, in pipeline order.
    pub gates: Vec<GateRecord>,
    /// What the agent receives without an interactive UI: the first deny
    /// or ask on the way (`None` when the call runs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_message: Option<String>,
    /// The deny reason, when a configured deny decided.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The tool is removed from the agent's tools at start (its tool-level
    /// state, `evaluate(tool, "*")`, is deny): the agent cannot call it at all.
    pub tool_hidden: bool,
    /// The bash units the command was split into.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub units: Vec<CommandUnit>,
}

impl Policy {
    /// The rules one check sees: composed + session, then the yolo rewrite.
    fn full_rules(&self) -> std::borrow::Cow<'_, RuleSet> {
        if !self.yolo && self.session_rules.is_empty() {
            return std::borrow::Cow::Borrowed(&self.rules);
        }
        let mut rules: Vec<Rule> = self
            .rules
            .rules
            .iter()
            .chain(&self.session_rules)
            .cloned()
            .collect();
        if self.yolo {
            rules = rules.iter().map(Rule::yolo).collect();
        }
        std::borrow::Cow::Owned(RuleSet::new(rules))
    }

    /// A manager-level check of a tool call (bash matched as a whole string).
    pub fn check_tool(&self, tool: &str, input: &Value) -> CheckResult {
        check_tool_as(
            &self.full_rules(),
            tool,
            input,
            &self.mcp_servers,
            self.mcp_last_match,
        )
    }

    /// A manager-level check of path values on a surface.
    pub fn check_path_values(&self, surface: &str, values: &[String]) -> CheckResult {
        check_path_values(&self.full_rules(), surface, values)
    }

    /// `getToolPermission`: the tool-level state (no yolo, no session rules).
    pub fn tool_permission(&self, tool: &str) -> State {
        self.rules
            .evaluate(super::js::js_trim(tool), "*")
            .map_or(State::Ask, |r| r.action)
    }

    /// The runtime removes the tool from the agent before the session:
    /// its catch-all denies (up to 30.0); every rule of its surface denies
    /// (30.1 on, documented).
    pub fn tool_hidden(&self, tool: &str) -> bool {
        if self.tool_permission(tool) != State::Deny {
            return false;
        }
        if !self.hide_only_all_deny {
            return true;
        }
        let surface = super::js::js_trim(tool);
        self.rules
            .rules
            .iter()
            .filter(|r| r.surface == surface)
            .all(|r| r.action == State::Deny)
    }

    /// Bare tokens of `path` deny/ask rules promote to path candidates.
    fn promotable(&self) -> impl Fn(&str) -> bool + '_ {
        let patterns = self.promotable_paths.get_or_init(|| {
            let opts = self.flavor.match_options().unwrap_or_default();
            self.rules
                .rules
                .iter()
                .filter(|r| {
                    r.layer == Layer::Config
                        && r.surface == "path"
                        && r.pattern != "*"
                        && r.action != State::Allow
                })
                .map(|r| Wildcard::compile(&r.pattern, &self.home, opts))
                .collect()
        });
        move |token: &str| patterns.iter().any(|p| p.is_match(token))
    }

    fn is_infrastructure_read(&self, tool: &str, canonical: &str, cwd: &str) -> bool {
        if !matches!(tool, "read" | "find" | "grep" | "ls") {
            return false;
        }
        if self
            .infra_excluded
            .iter()
            .any(|d| is_within(canonical, &expand_home(d, &self.home)))
        {
            return false;
        }
        let opts = self.flavor.match_options().unwrap_or_default();
        for dir in &self.infra_dirs {
            if dir.contains('*') || dir.contains('?') {
                if Wildcard::compile(dir, &self.home, opts).is_match(canonical) {
                    return true;
                }
            } else if is_within(canonical, &expand_home(dir, &self.home)) {
                return true;
            }
        }
        is_within(canonical, &join(&join(cwd, ".pi"), "npm"))
            || is_within(canonical, &join(&join(cwd, ".pi"), "git"))
    }

    /// Runs the whole pipeline for one call.
    pub fn simulate(&self, call: &Call, fs: &dyn FsView) -> Simulation {
        let rules = self.full_rules();
        let ctx = PathContext::new(&call.cwd, &self.home, fs);
        let agent = call.agent.as_deref();
        let render = Render {
            texts: self.texts,
            agent,
            tool: &call.tool,
        };
        let input = &call.input;
        let record = input.as_object();
        let get = |k: &str| record.and_then(|r| r.get(k));
        let mut gates: Vec<GateRecord> = Vec::new();

        // The shell invocation, if this call runs one.
        let tool_name = super::js::js_trim(&call.tool);
        let shell: Option<(String, Option<String>)> = if tool_name == "bash" {
            Some((non_empty_string(get("command")).unwrap_or_default(), None))
        } else {
            self.shell_tools
                .iter()
                .rev()
                .find(|t| t.name == tool_name)
                .map(|alias| {
                    (
                        non_empty_string(get(&alias.command_argument)).unwrap_or_default(),
                        alias
                            .workdir_argument
                            .as_deref()
                            .and_then(|w| non_empty_string(get(w))),
                    )
                })
        };
        let program = shell
            .as_ref()
            .filter(|(c, _)| !c.is_empty())
            .map(|(command, workdir)| {
                let promotable = self.promotable();
                match parse(command) {
                    Ok(tree) => {
                        let resolver = Resolver {
                            spellings: Default::default(),
                            ctx: &ctx,
                            promotable: &promotable,
                            workdir: workdir.clone(),
                            tokens: self.tokens,
                        };
                        let paths = resolver.resolve(&tree, command);
                        let mut units = super::bash::command_units_as(
                            &tree,
                            command,
                            self.gate_execution_hosts,
                        );
                        if self.executed_units {
                            for u in units.iter_mut().filter(|u| u.wrapper.is_some()) {
                                u.executed_unit = super::bash::executed_unit(&u.text);
                            }
                        }
                        (command.clone(), units, paths)
                    }
                    Err(_) => (command.clone(), Vec::new(), BashPaths::default()),
                }
            });

        // 2. path gate, 3. external_directory gate: the tool's own path.
        if let Some(file_path) = tool_input_path(&call.tool, input) {
            let access = ctx.for_path(&file_path, None);
            let direction = tool_direction(&call.tool);
            let check = self.access_check(&rules, "path", direction, &access.match_values());
            if check.state != State::Allow && check.matched_pattern.is_some() {
                let subject = Subject::Path {
                    tool: call.tool.clone(),
                    path: file_path.clone(),
                };
                gates.push(record_gate(&render, "path", check, &subject, None));
            }
            if !denied(&gates) && ctx.is_outside(&file_path) {
                let check = self.access_check(
                    &rules,
                    "external_directory",
                    direction,
                    &access.match_values(),
                );
                let targeted_deny = self.infra_targeted_deny
                    && check.state == State::Deny
                    && check
                        .rule
                        .as_ref()
                        .is_some_and(|r| r.layer == Layer::Config && r.pattern != "*");
                if !targeted_deny
                    && self.is_infrastructure_read(&call.tool, &access.canonical, &call.cwd)
                {
                    gates.push(bypass("permission_request.infrastructure_auto_allowed"));
                } else {
                    let subject = Subject::ExternalDirectory {
                        tool: call.tool.clone(),
                        path: file_path.clone(),
                        resolved: access.resolved_alias().map(str::to_string),
                        cwd: call.cwd.clone(),
                    };
                    gates.push(record_gate(
                        &render,
                        "external_directory",
                        check,
                        &subject,
                        None,
                    ));
                }
            }
        }

        // 4. bash external-directory gate, 5. bash path gate.
        if let Some((command, _, paths)) = program.as_ref().filter(|_| !denied(&gates)) {
            if !paths.external.is_empty() {
                let checks: Vec<(&AccessPath, CheckResult)> = paths
                    .external
                    .iter()
                    .map(|e| {
                        (
                            &e.path,
                            self.access_check(
                                &rules,
                                "external_directory",
                                e.direction,
                                &e.path.match_values(),
                            ),
                        )
                    })
                    .filter(|(_, c)| c.state != State::Allow)
                    .collect();
                if checks.is_empty() {
                    gates.push(bypass("permission_request.session_approved"));
                } else {
                    let worst = most_restrictive(checks.iter().map(|(_, c)| c)).cloned();
                    let subject = Subject::BashExternalDirectory {
                        command: command.clone(),
                        paths: checks
                            .iter()
                            .map(|(p, _)| Disclosure {
                                path: p.lexical.clone(),
                                resolved: p.resolved_alias().map(str::to_string),
                            })
                            .collect(),
                        cwd: call.cwd.clone(),
                    };
                    if let Some(worst) = worst {
                        gates.push(record_gate(
                            &render,
                            "external_directory",
                            worst,
                            &subject,
                            None,
                        ));
                    }
                }
            }
            if !denied(&gates)
                && let Some(g) = self.bash_path_gate(&render, &rules, command, paths)
            {
                gates.push(g);
            }
        }
        // The runner stops the pipeline at the first deny.
        if denied(&gates) {
            return self.finish(call, gates, Vec::new());
        }

        // 6. the per-tool / bash-command gate.
        let mut units = Vec::new();
        let tool_check = if let Some((command, _)) = &shell {
            match &program {
                Some((text, u, paths)) => {
                    units = u.clone();
                    bash_command_check(
                        &rules,
                        (text, &paths.spellings),
                        u,
                        &self.mcp_servers,
                        self.transparency,
                    )
                }
                None => check_tool(
                    &rules,
                    "bash",
                    &serde_json::json!({ "command": command }),
                    &self.mcp_servers,
                ),
            }
        } else if tool_kind(&call.tool) == ToolKind::Path
            && let Some(p) = non_empty_string(get("path"))
        {
            let access = ctx.for_path(&p, None);
            check_path_values(&rules, &call.tool, &access.match_values())
        } else {
            check_tool_as(
                &rules,
                &call.tool,
                input,
                &self.mcp_servers,
                self.mcp_last_match,
            )
        };
        let gate_name = if shell.is_some() {
            "bash".to_string()
        } else {
            call.tool.clone()
        };
        let full_command = non_empty_string(get("command"));
        let subject = Subject::Tool {
            check: tool_check.clone(),
        };
        gates.push(record_gate(
            &render,
            &gate_name,
            tool_check,
            &subject,
            full_command.as_deref(),
        ));

        self.finish(call, gates, units)
    }

    fn finish(
        &self,
        call: &Call,
        mut gates: Vec<GateRecord>,
        units: Vec<CommandUnit>,
    ) -> Simulation {
        if self.yolo && self.yolo_grants_every_ask {
            for g in gates.iter_mut().filter(|g| g.state == State::Ask) {
                g.state = State::Allow;
                g.prompt_message = None;
                g.no_ui_message = None;
                if let Some(c) = g.check.as_mut() {
                    c.state = State::Allow;
                    c.origin = super::rules::RuleOrigin::Yolo;
                }
            }
        }
        let decision = if gates.iter().any(|g| g.state == State::Deny) {
            State::Deny
        } else if gates.iter().any(|g| g.state == State::Ask) {
            State::Ask
        } else {
            State::Allow
        };
        // Without a UI the first gate that does not allow answers; from
        // 32.0.1 (documented) a deny on any gate refuses first, naming its
        // rule, instead of an earlier gate's ask.
        let first_block = self
            .deny_preempts_ask
            .then(|| gates.iter().find(|g| g.state == State::Deny))
            .flatten()
            .or_else(|| gates.iter().find(|g| g.state != State::Allow));
        let agent_message = first_block.and_then(|g| match g.state {
            State::Deny => g.message.clone(),
            _ => g.no_ui_message.clone(),
        });
        let reason = gates
            .iter()
            .find(|g| g.state == State::Deny)
            .and_then(|g| g.check.as_ref()?.reason.clone());
        Simulation {
            decision,
            gates,
            agent_message,
            reason,
            tool_hidden: self.tool_hidden(&call.tool),
            units,
        }
    }
}

fn denied(gates: &[GateRecord]) -> bool {
    gates.last().is_some_and(|g| g.state == State::Deny)
}

fn bypass(event: &str) -> GateRecord {
    GateRecord {
        gate: event.to_string(),
        state: State::Allow,
        check: None,
        message: None,
        prompt_message: None,
        no_ui_message: None,
    }
}

/// A gate's record as the runner would handle it: a session grant or a yolo
/// allow passes silently; deny and ask carry their texts.
/// The texts of a gate's verdict, as the policy's release words them.
struct Render<'a> {
    texts: Texts,
    agent: Option<&'a str>,
    tool: &'a str,
}

fn record_gate(
    r: &Render,
    gate: &str,
    check: CheckResult,
    subject: &Subject,
    full_command: Option<&str>,
) -> GateRecord {
    let state = if check.source == CheckSource::Session {
        State::Allow
    } else {
        check.state
    };
    let (agent, tool) = (r.agent, r.tool);
    let (message, prompt_message, no_ui_message) = match r.texts {
        Texts::Sentences => (
            (state == State::Deny).then(|| deny_message(subject, agent)),
            (state == State::Ask).then(|| prompt(subject, agent, tool, full_command)),
            (state == State::Ask).then(|| no_ui_message(subject)),
        ),
        // The 26.0 dialog is not modelled: only what the agent reads is.
        Texts::Renderer => (
            (state == State::Deny)
                .then(|| renderer::policy_denial(gate, subject, &check, agent, tool)),
            None,
            (state == State::Ask)
                .then(|| renderer::unavailable_denial(gate, subject, &check, agent, tool)),
        ),
    };
    GateRecord {
        gate: gate.to_string(),
        state,
        message,
        prompt_message,
        no_ui_message,
        check: Some(check),
    }
}

/// deny > ask > allow; the first wins a tie.
fn most_restrictive<'a>(checks: impl Iterator<Item = &'a CheckResult>) -> Option<&'a CheckResult> {
    let mut worst: Option<&CheckResult> = None;
    for c in checks {
        if worst.is_none_or(|w| c.state.restrictiveness() > w.state.restrictiveness()) {
            worst = Some(c);
        }
    }
    worst
}

/// The tool's own path argument (`getToolInputPath`).
fn tool_input_path(tool: &str, input: &Value) -> Option<String> {
    let r = input.as_object();
    match tool_kind(tool) {
        ToolKind::Bash => None,
        ToolKind::Mcp => non_empty_string(
            r.and_then(|r| r.get("arguments"))
                .and_then(|a| a.as_object())
                .and_then(|a| a.get("path")),
        ),
        _ => non_empty_string(r.and_then(|r| r.get("path"))),
    }
}

/// `resolveBashCommandCheck`: each unit on its own, floors, most restrictive.
fn bash_command_check(
    rules: &RuleSet,
    (command, spellings): (&str, &[(String, String)]),
    units: &[CommandUnit],
    mcp: &[String],
    transparency: Transparency,
) -> CheckResult {
    // Whether the program writes through a redirect, asked only when a
    // wrapper might be let through.
    let writes = std::cell::OnceCell::new();
    let writes = || {
        *writes.get_or_init(|| {
            parse(command).map_or(true, |t| {
                super::bash::direction::writes_through_redirect(&t, command)
            })
        })
    };
    if units.is_empty() {
        let trivially_empty = command
            .split('\n')
            .map(super::js::js_trim)
            .filter(|l| !l.is_empty())
            .all(|l| l.starts_with('#'));
        if trivially_empty {
            return check_tool(
                rules,
                "bash",
                &serde_json::json!({ "command": command }),
                mcp,
            );
        }
        return CheckResult {
            tool_name: "bash".into(),
            state: State::Ask,
            reason: None,
            matched_pattern: Some("<unparseable-bash-command>".into()),
            source: CheckSource::Bash,
            origin: RuleOrigin::Builtin,
            command: Some(command.to_string()),
            command_context: None,
            target: None,
            rule: None,
            executed_unit: None,
        };
    }
    let results: Vec<CheckResult> = units
        .iter()
        .map(|u| {
            let spelled = spellings.iter().find(|(t, _)| *t == u.text);
            let mut r = match spelled {
                Some((_, s)) => super::check::check_bash_spellings(rules, &u.text, s),
                None => check_tool(
                    rules,
                    "bash",
                    &serde_json::json!({ "command": u.text }),
                    mcp,
                ),
            };
            if let Some(w) = u.wrapper
                && r.state == State::Allow
            {
                let exempt = (transparency != Transparency::default())
                    .then(|| super::bash::floor_exemption(&u.text, transparency, writes()))
                    .flatten();
                match exempt {
                    // Decided by the command it runs, by its own rules
                    // (27.1 / 39.1, documented).
                    Some((_, inner)) => {
                        r = check_tool(
                            rules,
                            "bash",
                            &serde_json::json!({ "command": inner }),
                            mcp,
                        );
                        r.command = Some(u.text.clone());
                    }
                    None => {
                        r.state = State::Ask;
                        r.matched_pattern = Some(w.sentinel().to_string());
                    }
                }
            }
            if u.context.is_some() {
                r.command_context = u.context;
            }
            r.executed_unit = u.executed_unit.clone();
            r
        })
        .collect();
    most_restrictive(results.iter())
        .cloned()
        .unwrap_or_else(|| {
            check_tool(
                rules,
                "bash",
                &serde_json::json!({ "command": command }),
                mcp,
            )
        })
}

impl Policy {
    /// A check of `surface` (`path` or `external_directory`) for an access
    /// in `direction`. From 27.1 (documented) the bare surface is sugar
    /// whose entries come before the directional ones, so a matching
    /// `<surface>_read` / `_write` rule has the last word and the bare
    /// surface answers otherwise; an unproven access consults both
    /// directions and takes the more restrictive answer.
    fn access_check(
        &self,
        rules: &RuleSet,
        surface: &str,
        direction: Direction,
        values: &[String],
    ) -> CheckResult {
        if !self.tokens.directional {
            return check_path_values(rules, surface, values);
        }
        let one = |d: Direction| {
            let directional = match (surface, d) {
                ("path", Direction::Read) => "path_read",
                ("path", _) => "path_write",
                (_, Direction::Read) => "external_directory_read",
                _ => "external_directory_write",
            };
            let explicit = check_path_values(rules, directional, values);
            if explicit
                .rule
                .as_ref()
                .is_some_and(|r| matches!(r.layer, Layer::Config | Layer::Session))
            {
                explicit
            } else {
                check_path_values(rules, surface, values)
            }
        };
        match direction {
            Direction::Both => {
                let (read, write) = (one(Direction::Read), one(Direction::Write));
                if write.state.restrictiveness() > read.state.restrictiveness() {
                    write
                } else {
                    read
                }
            }
            single => one(single),
        }
    }

    fn bash_path_gate(
        &self,
        render: &Render,
        rules: &RuleSet,
        command: &str,
        paths: &BashPaths,
    ) -> Option<GateRecord> {
        bash_path_gate(self, render, rules, command, paths)
    }
}

/// The direction a tool's own path is accessed in (27.1, documented):
/// the read-only tools read, `write` writes, anything else (`edit`, MCP
/// and extension tools) is both.
fn tool_direction(tool: &str) -> Direction {
    match super::js::js_trim(tool) {
        "read" | "grep" | "find" | "ls" => Direction::Read,
        "write" => Direction::Write,
        _ => Direction::Both,
    }
}

fn bash_path_gate(
    policy: &Policy,
    render: &Render,
    rules: &RuleSet,
    command: &str,
    paths: &BashPaths,
) -> Option<GateRecord> {
    if paths.rule_candidates.is_empty() {
        return None;
    }
    let mut uncovered: Vec<(String, CheckResult)> = Vec::new();
    let mut all_session = true;
    for c in &paths.rule_candidates {
        let check = policy.access_check(rules, "path", c.direction, &c.path.match_values());
        let session = check.source == CheckSource::Session;
        if check.matched_pattern.is_none() && !session {
            all_session = false;
            continue;
        }
        if !session {
            all_session = false;
        }
        match check.state {
            State::Deny => {
                uncovered.push((c.token.clone(), check));
                break;
            }
            State::Ask => uncovered.push((c.token.clone(), check)),
            State::Allow => {}
        }
    }
    if all_session {
        return Some(bypass("permission_request.session_approved"));
    }
    let worst_index = {
        let mut w: Option<usize> = None;
        for (i, (_, c)) in uncovered.iter().enumerate() {
            if w.is_none_or(|j| c.state.restrictiveness() > uncovered[j].1.state.restrictiveness())
            {
                w = Some(i);
            }
        }
        w?
    };
    let (token, check) = uncovered.swap_remove(worst_index);
    let subject = Subject::BashPath {
        command: command.to_string(),
        path: token,
    };
    Some(record_gate(render, "path", check, &subject, None))
}
