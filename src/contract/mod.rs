//! What a format is: the one contract between the shared layers and each
//! format folder. The `Format` trait in capability groups (`Describe`,
//! `Locate`, `Check`, `Simulate`, `Explain`, `Compare`, `History`,
//! `Editor`, in the manner of biome's file handlers) and every type they
//! exchange: the options and context a format is asked in (`options`,
//! `context`), the typed reports (`report`), the past-decision records
//! (`history`), and the editor data (from `crate::ide`). It depends on
//! `text`, `syntax`, `core`, `ide` and `fsio` only; the formats depend on
//! it and never on `analysis`, `history`, `workspace`, `cli` or `lsp`.

pub mod context;
pub mod history;
pub mod options;
pub mod report;

pub use context::{Context, OpenBuffers, Overrides};
pub use options::AnalysisOptions;

use crate::core::diagnostic::{CodeInfo, Diagnostic};
use crate::core::profile::RuntimeProfile;
use crate::ide::code_actions::Action;
use crate::ide::items::{HoverInfo, Item};
use crate::ide::symbols::Symbol;
use crate::syntax::Node;
use report::{EffectivePolicyReport, SimulationReport};
use serde_json::Value;
use std::ops::Range;

/// What a document is to its format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A config file (JSON / JSONC, or the format's own config language).
    Config,
    /// An agent definition (markdown with frontmatter).
    Agent,
    /// A rules file in a language of the format's own (not JSON): its
    /// analysis has no JSON tree.
    Rules,
}

/// A recognised document: its format and role.
#[derive(Clone, Copy)]
pub struct DocumentKind {
    pub format: &'static dyn Format,
    pub role: Role,
}

impl std::fmt::Debug for DocumentKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{:?}", self.format.id(), self.role)
    }
}

impl PartialEq for DocumentKind {
    fn eq(&self, other: &Self) -> bool {
        self.format.id() == other.format.id() && self.role == other.role
    }
}

impl Eq for DocumentKind {}

/// One analysed document: its JSON tree (config files) and its findings
/// over every scope the runtime merges. Built once per document version
/// and inputs; hover, code actions, symbols and lenses reuse it.
#[derive(Debug, Clone, Default)]
pub struct Analysis {
    pub root: Option<Node>,
    pub diagnostics: Vec<Diagnostic>,
    /// The runtime uses the file (it does not drop it whole).
    pub accepted: bool,
    /// The outline of a document without a JSON tree (a `Role::Rules`
    /// file, a TOML config), made with the analysis.
    pub outline: Vec<Symbol>,
}

/// A file a session reads, where the runtime looks for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionFile {
    pub path: std::path::PathBuf,
    pub role: Role,
    /// The scope, as the format names it (`user`, `project`, `local`, …).
    pub scope: String,
}

/// Where a session started in a context's working directory finds a
/// format's files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionFiles {
    /// The files that exist, in the order the runtime reads them.
    pub present: Vec<SessionFile>,
    /// Every place the runtime looks, for people (`~/.claude/settings.json`).
    pub looked_in: Vec<String>,
}

/// An option of a format's sessions (a flag of its CLI, a knob of its
/// environment), declared by the format: the command line's flags and the
/// editor's settings are built from these declarations, and the values
/// reach the format as [`AnalysisOptions::runtime_args`] under `arg`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionOption {
    /// The command-line flag without dashes (`permission-mode`).
    pub flag: &'static str,
    /// Other spellings the flag accepts (`allowedTools`).
    pub aliases: &'static [&'static str],
    pub value_name: &'static str,
    /// One line for `--help` and the editor's setting description.
    pub help: &'static str,
    /// Given more than once (a list in the editor's settings).
    pub repeatable: bool,
    /// The name it takes in `runtime_args`.
    pub arg: &'static str,
    /// The editor setting, under `permissionLsp.<format id>.` (camelCase).
    pub setting: &'static str,
    /// The valid values, when the list is closed (empty: any value).
    pub values: &'static [&'static str],
    /// A switch without a value (`--trusted`): given, it is `true`.
    pub switch: bool,
}

/// `path` for people: `~/…` inside `home` (unless the home is `/` or
/// unknown, `~`), else as it is.
pub fn tilde(path: &std::path::Path, home: &std::path::Path) -> String {
    match path.strip_prefix(home) {
        Ok(rest) if home != std::path::Path::new("/") && home != std::path::Path::new("~") => {
            if rest.as_os_str().is_empty() {
                "~".to_string()
            } else {
                format!("~/{}", rest.display())
            }
        }
        _ => path.display().to_string(),
    }
}

/// A tool call to decide.
#[derive(Debug, Clone, PartialEq)]
pub struct CallRequest {
    pub tool: String,
    pub input: Value,
}

/// A loaded policy that decides calls as the runtime does.
pub trait Simulator {
    fn simulate(&self, call: &CallRequest) -> SimulationReport;
}

/// A format's simulator whose answers say when a command in the call was
/// not parsed (a pipeline too long for the bash grammar to recover from in
/// bounded time, [`crate::syntax::bash::take_refused`]): the format then
/// decides as for a command without a tree, and the answer is marked
/// incomplete, in its explanation and in `incomplete`.
pub struct Bounded(pub Box<dyn Simulator>);

impl Simulator for Bounded {
    fn simulate(&self, call: &CallRequest) -> SimulationReport {
        // A refusal left by other work on this thread is not this call's.
        let _ = crate::syntax::bash::take_refused();
        let mut report = self.0.simulate(call);
        if let Some(why) = crate::syntax::bash::take_refused() {
            mark_incomplete(&mut report, why.to_string());
        }
        report
    }
}

/// Marks a simulation incomplete: `why` joins `incomplete` (a list of
/// strings) and the explanation.
pub fn mark_incomplete(report: &mut SimulationReport, why: String) {
    let said = |v: &Value| {
        v.as_array()
            .is_some_and(|l| l.iter().any(|s| s.as_str() == Some(&why)))
    };
    if report.details.get("incomplete").is_some_and(said) {
        return;
    }
    report.explanation.push(format!(
        "INCOMPLETE: {why} — the runtime's answer may differ"
    ));
    let list = report
        .details
        .entry("incomplete")
        .or_insert_with(|| Value::Array(Vec::new()));
    match list {
        Value::Array(items) => items.push(Value::String(why)),
        other => *other = Value::Array(vec![other.take(), Value::String(why)]),
    }
}

/// Who the format is: its names, codes and runtime versions.
pub trait Describe: Send + Sync + 'static {
    /// The id: code namespace, docs folder, `--runtime` value (`pi`).
    fn id(&self) -> &'static str;
    /// The name users know (`pi-permission-system`).
    fn display_name(&self) -> &'static str;
    /// Other names `--runtime` accepts.
    fn aliases(&self) -> &'static [&'static str] {
        &[]
    }
    /// Every diagnostic code of the format.
    fn codes(&self) -> &'static [CodeInfo];
    /// The runtime version used when the user names none.
    fn default_profile(&self) -> RuntimeProfile;
    /// The profile for a version the user names (`20.9.0`).
    fn profile(&self, version: &str) -> Result<RuntimeProfile, String>;
    /// The versions `simulate --target-version all` answers for, side by
    /// side, each with how its answer is known (observed on a runtime, or
    /// documented and not verified).
    fn versions_side_by_side(&self) -> Vec<(String, String)> {
        vec![(
            self.default_profile().version.to_string(),
            "observed on the real runtime".into(),
        )]
    }
    /// The options of the format's sessions (its CLI's flags), which the
    /// command line and the editor settings offer.
    fn session_options(&self) -> &'static [SessionOption] {
        &[]
    }
    /// The environment variables a session of the format reads
    /// (`--runtime-env NAME=VALUE`, the editor's `permissionLsp.<id>.env`).
    fn session_env(&self) -> &'static [&'static str] {
        &[]
    }
    /// The runtime version installed where the runtime records it (for an
    /// `auto` profile), with where it was found.
    fn installed_version(
        &self,
        _options: &AnalysisOptions,
    ) -> Option<(crate::core::profile::Version, String)> {
        None
    }
}

/// Where its files are: which documents are its own, and which files a session reads.
pub trait Locate: Describe {
    /// The role of a document, by its path (percent-decoded) and the start
    /// of its text (`$schema`); `None` when it is not this format's.
    fn detect(&self, path: &str, head: &str) -> Option<Role>;
    /// How strongly a JSON document's content says it is this format's
    /// config (0: not at all), for files whose path says nothing or that
    /// several formats claim by path: a top-level `permissions` object
    /// with rule arrays is Claude Code's, and so on.
    fn content_score(&self, _root: &Node) -> u32 {
        0
    }
    /// The files a session started in `ctx.cwd` (with `ctx`'s home and
    /// options) reads, and where the runtime looks for them.
    fn session_files(&self, ctx: &Context<'_>) -> SessionFiles;
    /// Globs of the files whose changes can change other documents'
    /// findings (scope files, agent files, server lists), relative to any
    /// folder, and relative to the directory of the user's files under
    /// `ctx` (for file watchers).
    fn watch_globs(&self, ctx: &Context<'_>) -> (Vec<String>, Vec<(std::path::PathBuf, String)>);
}

/// Reading and checking a document as the runtime reads it.
pub trait Check: Describe {
    /// Findings for a document, with every scope the runtime merges.
    fn analyse(&self, role: Role, text: &str, ctx: &Context<'_>) -> Analysis;
    /// Findings for a file's bytes as the runtime reads them (invalid UTF-8
    /// included): alone (`ctx` is `None`), or with every scope. Returns the
    /// text as read.
    fn analyse_file(
        &self,
        role: Role,
        bytes: Vec<u8>,
        options: &AnalysisOptions,
        ctx: Option<&Context<'_>>,
    ) -> (String, Analysis);
    /// The findings of [`Check::analyse_file`] alone, which is what `check`
    /// reports: a format may skip what only the editor reads (a second
    /// parse for the JSON tree, say). Returns the text as read.
    fn findings_of_file(
        &self,
        role: Role,
        bytes: Vec<u8>,
        options: &AnalysisOptions,
        ctx: Option<&Context<'_>>,
    ) -> (String, Vec<Diagnostic>) {
        let (text, analysis) = self.analyse_file(role, bytes, options, ctx);
        (text, analysis.diagnostics)
    }

    /// [`findings_of_file`](Check::findings_of_file)'s findings, in their
    /// order, handed to `sink` a batch at a time with the text they are in
    /// (the same text every time; at least one call): a caller that writes
    /// them out holds a batch, not the hundreds of thousands of a 10 MB
    /// file. By default, all of them at once.
    fn findings_of_file_in_order(
        &self,
        role: Role,
        bytes: Vec<u8>,
        options: &AnalysisOptions,
        ctx: Option<&Context<'_>>,
        sink: &mut dyn FnMut(&str, Vec<Diagnostic>),
    ) {
        let (text, diagnostics) = self.findings_of_file(role, bytes, options, ctx);
        sink(&text, diagnostics);
    }
}

/// A file's bytes as a UTF-8 reader decodes them: valid UTF-8 as it is (no
/// copy), else each invalid sequence as U+FFFD; with where the first
/// invalid sequence starts (the same place in both).
pub fn decode(bytes: Vec<u8>) -> (String, Option<usize>) {
    match String::from_utf8(bytes) {
        Ok(text) => (text, None),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            (String::from_utf8_lossy(e.as_bytes()).into_owned(), Some(at))
        }
    }
}

/// Deciding tool calls as the runtime decides them.
pub trait Simulate: Describe {
    /// A tool call typed as a command line (`git push`, `read .env`).
    fn parse_command_line(&self, line: &str) -> Option<CallRequest>;
    /// The tools a call can name and the input field each takes its main
    /// value in (`("Bash", "command")`): sample calls for fuzzing and
    /// for the editor's simulate prompt.
    fn sample_tools(&self) -> &'static [(&'static str, &'static str)] {
        &[]
    }
    /// Whether a call may name `tool` (for `simulate`): an error with a
    /// did-you-mean for a name the runtime has no tool for. Formats whose
    /// tools are open-ended (extension and MCP tools) accept every name.
    fn check_tool(&self, _tool: &str) -> Result<(), String> {
        Ok(())
    }
    /// The tool that runs shell commands (`simulate --command`), taking
    /// the command line as `{"command": …}`.
    fn shell_tool(&self) -> &'static str;
    /// The format's own loading of the policy of `ctx` (callers use
    /// [`Describe::simulator`]).
    fn load_simulator(&self, ctx: &Context<'_>) -> Result<Box<dyn Simulator>, String>;
    /// The policy of `ctx` (the document at `ctx.document` read from its
    /// open buffer), loaded once, ready to decide any number of calls; an
    /// answer for which a command was too long to parse says so (see
    /// [`Bounded`]).
    fn simulator(&self, ctx: &Context<'_>) -> Result<Box<dyn Simulator>, String> {
        Ok(Box::new(Bounded(self.load_simulator(ctx)?)))
    }
    /// What the runtime decides for one call, with the policy of `ctx`.
    fn simulate(&self, ctx: &Context<'_>, call: &CallRequest) -> Result<SimulationReport, String> {
        Ok(self.simulator(ctx)?.simulate(call))
    }
    /// The decision as the runtime's log records it, from a simulation of
    /// the call: by default the decision itself (a tool removed from the
    /// agent: deny).
    fn decision_as_logged(&self, report: &SimulationReport) -> crate::core::decision::Decision {
        report.outcome()
    }
}

/// The effective policy: every scope merged as the runtime merges them.
pub trait Explain: Describe {
    /// Every scope merged as the runtime merges them.
    fn effective_policy(&self, ctx: &Context<'_>) -> Result<EffectivePolicyReport, String>;
}

/// The name `Compare::diff_agents` gives the session without an agent.
pub const NO_AGENT: &str = "-";

/// What `diff` needs to compare two policies class by class.
pub trait Compare: Describe {
    /// For `diff` without an agent named: the agents whose rule lists are
    /// compared one by one (none: the session's one list; [`NO_AGENT`]:
    /// the session without an agent).
    fn diff_agents(&self, _ctx: &Context<'_>) -> Vec<String> {
        Vec::new()
    }
    /// For `diff`: how the runtime picks the deciding rule among those
    /// that match (the rules' evaluation order is the policy's).
    fn diff_precedence(&self) -> crate::core::precedence::Precedence {
        crate::core::precedence::Precedence::LastMatchWins
    }
    /// For `diff`: do rules on `rule_surface` take part in deciding calls
    /// on `surface`, weighed with its own rules by `diff_precedence`? By
    /// default the same surface, or a wildcard surface key that matches it
    /// (`*`, `ba*`). A rule that gates the call another way (a path rule
    /// on a command's arguments) must not be named here: its change shows
    /// on its own surface's calls.
    fn diff_applies(&self, rule_surface: &str, surface: &str) -> bool {
        rule_surface == surface
            || (rule_surface.contains(['*', '?'])
                && crate::core::pattern_algebra::Pattern::from_expanded(rule_surface)
                    .is_match(surface))
    }
    /// For `diff`: the surface a rule of the merged policy decides calls
    /// on, its pattern as written, and that pattern in the shared algebra
    /// (`~` expanded against `home`); `None` when the rule has no such
    /// pattern (the format does not support `diff` by default).
    fn diff_pattern(
        &self,
        _rule: &report::EffectiveRule,
        _home: &str,
    ) -> Option<(String, String, crate::core::pattern_algebra::Pattern)> {
        None
    }
    /// For `diff`: patterns (in the shared algebra) that mark where the
    /// runtime decides values of `surface` by itself rather than by the
    /// rules alone (a path outside the project, a read-only command): each
    /// such region is visited with its own example.
    fn diff_hints(
        &self,
        _surface: &str,
        _home: &str,
    ) -> Vec<crate::core::pattern_algebra::Pattern> {
        Vec::new()
    }
    /// For `diff`: may two rules with the same action decide a call
    /// differently (Gemini CLI runs its shell heuristics only after a rule
    /// without a command pattern)? Then every class whose deciding rules
    /// differ is decided by both simulators, not only those whose actions
    /// differ.
    fn diff_decider_matters(&self) -> bool {
        false
    }
    /// For `diff`: regions like [`Compare::diff_hints`] where the runtime
    /// decides by more than which rules match — a classifier that reads a
    /// command's arguments (`git branch` is read-only, `git branch x` is
    /// not). A change that reaches such a region is compared there by
    /// example only, and the surface is reported as not compared
    /// completely.
    fn diff_example_hints(
        &self,
        _surface: &str,
        _home: &str,
    ) -> Vec<crate::core::pattern_algebra::Pattern> {
        Vec::new()
    }
    /// For `diff`: a call on `surface` whose matched value is `value`.
    fn probe_call(&self, _surface: &str, _value: &str) -> Option<CallRequest> {
        None
    }
}

/// Past decisions: the runtime's logs, and rules suggested from approvals.
pub trait History: Describe {
    /// A reader for a log of past decisions that this record starts (or
    /// belongs to), when the runtime writes such logs.
    fn log_reader(&self, _record: &Value) -> Option<Box<dyn history::LogReader>> {
        None
    }

    /// A log of this runtime that is not JSON lines (OpenCode's SQLite
    /// database), as a stream of JSON lines its `log_reader` reads; `None`
    /// when `path` is no such log of this runtime.
    fn log_stream(
        &self,
        _path: &std::path::Path,
    ) -> Option<Result<Box<dyn std::io::Read + Send>, String>> {
        None
    }

    /// The logs the runtime wrote for sessions in `ctx.cwd` (or folders
    /// below it), where it writes them; none when it writes no such logs.
    fn session_logs(&self, _ctx: &Context<'_>) -> history::SessionLogs {
        history::SessionLogs::default()
    }

    /// For rule suggestions: the surface of a call, the value its rules
    /// match, and where that value may be cut to generalise (`' '` between
    /// the words of a command, `'/'` between path segments); `None` when
    /// the format suggests no rules for such calls.
    fn suggestion_value(&self, _call: &CallRequest) -> Option<(String, String, char)> {
        None
    }
    /// For rule suggestions in a format without rule order (where an allow
    /// takes effect wherever it is written): the file a new allow rule goes
    /// in (Claude Code: the project's `.claude/settings.local.json`, where
    /// its own "always allow" writes), which need not exist yet.
    fn suggestion_file(&self, _ctx: &Context<'_>) -> Option<std::path::PathBuf> {
        None
    }
    /// For rule suggestions: the rule `pattern` → `action` on `surface` as
    /// the config writes it, and where it goes.
    fn suggested_rule(
        &self,
        _surface: &str,
        _pattern: &str,
        _action: &str,
    ) -> Option<history::RuleText> {
        None
    }
}

/// Editor answers: hover, completion, outline, lenses, refactorings.
pub trait Editor: Describe {
    /// What the rule or key under the cursor does.
    fn hover(
        &self,
        role: Role,
        text: &str,
        analysis: &Analysis,
        offset: usize,
        ctx: &Context<'_>,
    ) -> Option<HoverInfo>;
    /// Completions at the cursor.
    fn completions(
        &self,
        role: Role,
        text: &str,
        offset: usize,
        ctx: &Context<'_>,
        snippets: bool,
    ) -> Vec<Item>;
    /// The outline.
    fn symbols(&self, role: Role, analysis: &Analysis) -> Vec<Symbol>;
    /// Where the "simulate" and "effective policy" lenses go.
    fn lens_anchor(&self, role: Role, analysis: &Analysis) -> Option<Range<usize>>;
    /// Refactorings at a position (the quick fixes come from the
    /// diagnostics' typed fixes).
    fn assists(&self, role: Role, text: &str, analysis: &Analysis, at: Range<usize>)
    -> Vec<Action>;
}

/// What one config format provides: every capability group. A format
/// implements each group (most methods of the later groups have defaults)
/// and is then a `Format` by the blanket impl.
pub trait Format:
    Describe + Locate + Check + Simulate + Explain + Compare + History + Editor
{
}

impl<T> Format for T where
    T: Describe + Locate + Check + Simulate + Explain + Compare + History + Editor
{
}

/// Every capability group in scope at once, for code that calls them on a
/// format's own type (`Pi.default_profile()`).
pub mod prelude {
    pub use super::{Check, Compare, Describe, Editor, Explain, Format, History, Locate, Simulate};
}
