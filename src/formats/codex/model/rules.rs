//! A `.rules` file as Codex 0.169.0 reads it: a Starlark program (the
//! `starlark` crate, with Codex's dialect — the extended dialect with
//! f-strings — the standard globals and the three builtins
//! `prefix_rule`, `network_rule`, `host_executable`) whose calls add rules.
//! The `match` / `not_match` examples of each `prefix_rule` are checked
//! after the file has run, against that call's rules alone, as Codex
//! checks them. Any error makes the file fail to load, with Codex's words
//! and the narrowest range the error allows.
//!
//! Evaluation is bounded (Codex sets no bound): Starlark's own tick
//! budget (calls and loop iterations, comprehensions included), heap
//! budget and cancellation on a clock, a nesting limit and a size limit;
//! a file past them is reported as not evaluated, never as loaded.

use starlark::any::ProvidesStaticType;
use starlark::environment::{GlobalsBuilder, Module};
use starlark::eval::Evaluator;
use starlark::starlark_module;
use starlark::syntax::{AstModule, Dialect};
use starlark::values::Value;
use starlark::values::list::{ListRef, UnpackList};
use starlark::values::none::NoneType;
use std::cell::RefCell;
use std::ops::Range;
use std::time::{Duration, Instant};

pub use super::matching::{Decision, HostTable, PrefixRule, normalize_absolute};

/// A `host_executable(name, paths)` call.
#[derive(Debug, Clone, PartialEq)]
pub struct HostExecutable {
    pub name: String,
    pub paths: Vec<String>,
    pub call: Range<usize>,
}

/// Why a file did not load.
#[derive(Debug, Clone, PartialEq)]
pub enum ErrorKind {
    /// The text is not Starlark (Codex: `Parse error: …`).
    Syntax,
    /// A `decision` Codex does not know (the value given).
    InvalidDecision(String),
    /// `match` examples no rule of their call matches.
    ExamplesDidNotMatch(Vec<String>),
    /// A `not_match` example one of the call's rules matches (the example,
    /// the matched prefix).
    ExampleDidMatch(String, Vec<String>),
    /// Any other error Codex raises while running the file.
    Other,
    /// Not evaluated: past the evaluation bounds (not Codex's error).
    Bounds,
}

/// A file that does not load: Codex drops every custom rule with it.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadError {
    /// Codex's own words for the problem (`invalid decision: deny`).
    pub message: String,
    /// The narrowest range the error names.
    pub range: Range<usize>,
    pub kind: ErrorKind,
}

/// A `.rules` file, read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RulesFile {
    /// The rules, in the order the file adds them.
    pub rules: Vec<PrefixRule>,
    pub host_executables: Vec<HostExecutable>,
    /// `network_rule` calls (they do not decide shell commands).
    pub network_rules: usize,
    /// The `prefix_rule` calls' ranges, in order (a call in a loop once).
    pub calls: Vec<Range<usize>>,
    pub error: Option<LoadError>,
}

impl RulesFile {
    pub fn loaded(&self) -> bool {
        self.error.is_none()
    }
}

/// The evaluation bounds.
const MAX_TICKS: u64 = 5_000_000;
const MAX_TIME: Duration = Duration::from_secs(2);
const MAX_HEAP: usize = 256 << 20;
/// Brackets nested deeper than this are refused before parsing (the
/// parser recurses on them).
const MAX_NESTING: usize = 200;
/// Files larger than this are not evaluated.
pub const MAX_BYTES: usize = 4 << 20;

/// Reads one file as Codex does, after the files whose host executables
/// are in `hosts` (which it extends).
pub fn read(text: &str, hosts: &mut HostTable) -> RulesFile {
    if text.len() > MAX_BYTES {
        return bounds_error(
            0..0,
            format!(
                "not evaluated: the file is larger than {} MiB",
                MAX_BYTES >> 20
            ),
        );
    }
    if let Some(at) = too_deep(text) {
        return bounds_error(
            at..(at + 1).min(text.len()),
            format!("not evaluated: brackets nested deeper than {MAX_NESTING}"),
        );
    }
    match evaluator::run(text.to_string(), hosts.clone()) {
        Some((file, new_hosts)) => {
            if file.error.is_none() {
                *hosts = new_hosts;
            }
            file
        }
        None => bounds_error(
            0..0,
            "not evaluated: the Starlark evaluator failed on this file".into(),
        ),
    }
}

/// Evaluation on threads of its own: a deep recursion in the evaluator has
/// room, and a panic in it is an error of the file, never of the caller.
/// The threads are kept for the next file (starting one cost more than
/// evaluating a small file), at most one per core.
mod evaluator {
    use super::{HostTable, RulesFile, evaluate};
    use std::sync::Mutex;
    use std::sync::mpsc;

    type Outcome = Option<(RulesFile, HostTable)>;
    type Job = (String, HostTable, mpsc::SyncSender<Outcome>);

    struct Worker {
        jobs: mpsc::Sender<Job>,
    }

    static IDLE: Mutex<Vec<Worker>> = Mutex::new(Vec::new());

    fn idle() -> std::sync::MutexGuard<'static, Vec<Worker>> {
        IDLE.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn spawn() -> Option<Worker> {
        let (jobs, rx) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("codex-rules".into())
            .stack_size(64 << 20)
            .spawn(move || {
                for (text, hosts, reply) in rx {
                    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        evaluate(&text, hosts)
                    }));
                    let failed = out.is_err();
                    let _ = reply.send(out.ok());
                    // After a panic the evaluator's state is not trusted
                    // again: the thread ends, the next file starts another.
                    if failed {
                        return;
                    }
                }
            })
            .ok()?;
        Some(Worker { jobs })
    }

    /// Evaluates `text` after `hosts`; `None` when the evaluator panicked
    /// or no thread could be started.
    pub fn run(text: String, hosts: HostTable) -> Outcome {
        // The pool is not held while a thread starts.
        let kept = idle().pop();
        let worker = kept.or_else(spawn)?;
        let (reply, answer) = mpsc::sync_channel(1);
        worker.jobs.send((text, hosts, reply)).ok()?;
        let outcome = answer.recv().ok().flatten();
        // A thread whose evaluation panicked has ended: not kept.
        if outcome.is_some() {
            let mut idle = idle();
            if idle.len() < crate::core::parallel::cores() {
                idle.push(worker);
            }
        }
        outcome
    }
}

fn bounds_error(range: Range<usize>, message: String) -> RulesFile {
    RulesFile {
        error: Some(LoadError {
            message,
            range,
            kind: ErrorKind::Bounds,
        }),
        ..RulesFile::default()
    }
}

fn too_deep(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, b) in text.bytes().enumerate() {
        match b {
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Some(i);
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

#[derive(Debug, Default, ProvidesStaticType)]
struct Builder {
    rules: Vec<PrefixRule>,
    hosts: HostTable,
    host_calls: Vec<HostExecutable>,
    network_rules: usize,
    calls: Vec<Range<usize>>,
    pending: Vec<Pending>,
    /// The error a builtin raised, with what it knows (Codex's message is
    /// rebuilt from the Starlark error; the kind and narrow range from here).
    raised: Option<(ErrorKind, Option<Range<usize>>)>,
}

#[derive(Debug)]
struct Pending {
    rules: Range<usize>,
    matches: Vec<Vec<String>>,
    not_matches: Vec<Vec<String>>,
    call: Range<usize>,
}

fn span_range(span: &starlark::codemap::FileSpan) -> Range<usize> {
    span.span.begin().get() as usize..span.span.end().get() as usize
}

fn evaluate(text: &str, hosts: HostTable) -> (RulesFile, HostTable) {
    let mut dialect = Dialect::Extended.clone();
    dialect.enable_f_strings = true;
    let ast = match AstModule::parse("rules", text.to_string(), &dialect) {
        Ok(a) => a,
        Err(e) => {
            let range = e.span().map(span_range).unwrap_or(0..0);
            return (
                RulesFile {
                    error: Some(LoadError {
                        message: first_line(&e.without_diagnostic().to_string()),
                        range,
                        kind: ErrorKind::Syntax,
                    }),
                    ..RulesFile::default()
                },
                hosts,
            );
        }
    };
    // Frozen and immutable once built: one for the process (building it
    // was a tenth of checking a small rules file).
    static GLOBALS: std::sync::OnceLock<starlark::environment::Globals> =
        std::sync::OnceLock::new();
    let globals = GLOBALS.get_or_init(|| GlobalsBuilder::standard().with(builtins).build());
    let builder = RefCell::new(Builder {
        hosts,
        ..Builder::default()
    });
    let cancelled = std::cell::Cell::new(false);
    let start = Instant::now();
    let result = Module::with_temp_heap(|module| {
        let mut eval = Evaluator::new(&module);
        eval.extra = Some(&builder);
        // Starlark's own bounds: ticks (calls and loop iterations,
        // comprehensions included), heap, and a clock.
        let _ = eval.set_max_tick_count(MAX_TICKS);
        let _ = eval.set_max_heap_size(MAX_HEAP);
        eval.set_check_cancelled(Box::new(|| {
            let over = start.elapsed() > MAX_TIME;
            if over {
                cancelled.set(true);
            }
            over
        }));
        eval.eval_module(ast, globals).map(|_| ())
    });
    let mut b = builder.into_inner();
    let mut file = RulesFile {
        rules: std::mem::take(&mut b.rules),
        host_executables: std::mem::take(&mut b.host_calls),
        network_rules: b.network_rules,
        calls: std::mem::take(&mut b.calls),
        error: None,
    };
    if let Err(e) = result {
        let text_msg = first_line(&e.without_diagnostic().to_string());
        let call = e.span().map(span_range).unwrap_or(0..0);
        let (kind, narrow) = b.raised.take().unwrap_or((ErrorKind::Other, None));
        let bound = if cancelled.get() {
            Some(format!("it runs longer than {} s", MAX_TIME.as_secs()))
        } else if text_msg.to_ascii_lowercase().contains("tick") && text_msg.contains("exceeded") {
            Some(format!(
                "it runs more than {MAX_TICKS} calls and loop steps"
            ))
        } else if text_msg.to_ascii_lowercase().contains("heap memory limit") {
            Some(format!(
                "it builds more than {} MiB of values",
                MAX_HEAP >> 20
            ))
        } else {
            None
        };
        let (kind, message) = match bound {
            Some(b) => (ErrorKind::Bounds, format!("not evaluated: {b}")),
            None => (kind, text_msg),
        };
        file.error = Some(LoadError {
            message,
            range: narrow.unwrap_or(call),
            kind,
        });
        return (file, b.hosts);
    }
    if let Some(err) = validate_examples(&file.rules, &b.pending, &b.hosts) {
        file.error = Some(err);
    }
    (file, b.hosts)
}

fn first_line(s: &str) -> String {
    let s = s.trim();
    let s = s.strip_prefix("error: ").unwrap_or(s);
    s.lines().next().unwrap_or_default().trim().to_string()
}

/// Checks each call's examples against that call's rules alone (with the
/// host executables declared so far), `not_match` first, as Codex does.
fn validate_examples(
    rules: &[PrefixRule],
    pending: &[Pending],
    hosts: &HostTable,
) -> Option<LoadError> {
    for p in pending {
        let own = &rules[p.rules.clone()];
        for ex in &p.not_matches {
            if let Some((r, n)) = own
                .iter()
                .find_map(|r| super::matching::match_rule(r, ex, hosts).map(|n| (r, n)))
            {
                let prefix: Vec<String> = ex[..n].to_vec();
                let rendered = render_example(ex);
                return Some(LoadError {
                    message: format!(
                        "expected example to not match rule `PrefixRuleMatch {{ matched_prefix: {:?}, decision: {}, resolved_program: None, justification: {:?} }}`: {rendered}",
                        prefix,
                        r.decision.debug_name(),
                        r.justification
                    ),
                    range: p.call.clone(),
                    kind: ErrorKind::ExampleDidMatch(rendered, prefix),
                });
            }
        }
        let unmatched: Vec<String> = p
            .matches
            .iter()
            .filter(|ex| {
                !own.iter()
                    .any(|r| super::matching::match_rule(r, ex, hosts).is_some())
            })
            .map(|ex| render_example(ex))
            .collect();
        if !unmatched.is_empty() {
            return Some(LoadError {
                message: format!(
                    "expected every example to match at least one rule. rules: [{}]; unmatched examples: {:?}",
                    own.iter()
                        .map(|r| format!("{:?}", r.display()))
                        .collect::<Vec<_>>()
                        .join(", "),
                    unmatched
                ),
                range: p.call.clone(),
                kind: ErrorKind::ExamplesDidNotMatch(unmatched),
            });
        }
    }
    None
}

/// An argv as a shell line (Codex renders failing examples so).
pub fn render_example(ex: &[String]) -> String {
    shlex::try_join(ex.iter().map(String::as_str))
        .unwrap_or_else(|_| "unable to render example".to_string())
}

fn builder<'a>(eval: &Evaluator<'_, 'a, '_>) -> anyhow::Result<&'a RefCell<Builder>> {
    eval.extra
        .and_then(|e| e.downcast_ref::<RefCell<Builder>>())
        .ok_or_else(|| anyhow::anyhow!("rules builder missing"))
}

fn type_name(v: Value) -> String {
    v.get_type().to_string()
}

/// Fails the call: records the kind and range, returns Codex's message.
fn fail<T>(
    eval: &Evaluator<'_, '_, '_>,
    kind: ErrorKind,
    range: Option<Range<usize>>,
    message: String,
) -> anyhow::Result<T> {
    if let Ok(b) = builder(eval) {
        b.borrow_mut().raised = Some((kind, range));
    }
    Err(anyhow::anyhow!(message))
}

/// Where `needle` (a string literal's content) is written inside the call
/// at the top of the stack: the narrowest range for an error about it.
fn literal_in_call(eval: &Evaluator<'_, '_, '_>, needle: &str) -> Option<Range<usize>> {
    let span = eval.call_stack_top_location()?;
    literal_range(span.file.source(), &span_range(&span), needle)
}

/// Where the string literal `needle` (its content, in double or single
/// quotes) is first written inside `call`.
pub fn literal_range(text: &str, call: &Range<usize>, needle: &str) -> Option<Range<usize>> {
    let body = text.get(call.clone())?;
    ['"', '\''].iter().find_map(|q| {
        let lit = format!("{q}{needle}{q}");
        body.find(&lit)
            .map(|i| call.start + i..call.start + i + lit.len())
    })
}

/// A Starlark list of strings: its items, or Codex's message for the
/// first item that is not a string (`item_error`) or for an empty list.
fn string_list(list: &ListRef, item_error: &str, empty_error: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for item in list.content() {
        match item.unpack_str() {
            Some(s) => out.push(s.to_string()),
            None => return Err(format!("{item_error} (got {})", type_name(*item))),
        }
    }
    if out.is_empty() {
        return Err(empty_error.to_string());
    }
    Ok(out)
}

fn parse_token(v: Value) -> Result<Vec<String>, String> {
    if let Some(s) = v.unpack_str() {
        return Ok(vec![s.to_string()]);
    }
    if let Some(list) = ListRef::from_value(v) {
        return string_list(
            list,
            "invalid pattern element: pattern alternative must be a string",
            "invalid pattern element: pattern alternatives cannot be empty",
        );
    }
    Err(format!(
        "invalid pattern element: pattern element must be a string or list of strings (got {})",
        type_name(v)
    ))
}

fn parse_example(v: Value) -> Result<Vec<String>, String> {
    if let Some(raw) = v.unpack_str() {
        let tokens = shlex::split(raw).ok_or_else(|| {
            "invalid example: example string has invalid shell syntax".to_string()
        })?;
        if tokens.is_empty() {
            return Err("invalid example: example cannot be an empty string".into());
        }
        return Ok(tokens);
    }
    if let Some(list) = ListRef::from_value(v) {
        return string_list(
            list,
            "invalid example: example tokens must be strings",
            "invalid example: example cannot be an empty list",
        );
    }
    Err(format!(
        "invalid example: example must be a string or list of strings (got {})",
        type_name(v)
    ))
}

#[starlark_module]
fn builtins(builder: &mut GlobalsBuilder) {
    fn prefix_rule<'v>(
        pattern: UnpackList<Value<'v>>,
        decision: Option<&'v str>,
        r#match: Option<UnpackList<Value<'v>>>,
        not_match: Option<UnpackList<Value<'v>>>,
        justification: Option<&'v str>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> anyhow::Result<NoneType> {
        let decision = match decision {
            Some(raw) => match Decision::parse(raw) {
                Some(d) => d,
                None => {
                    let at = literal_in_call(eval, raw);
                    return fail(
                        eval,
                        ErrorKind::InvalidDecision(raw.to_string()),
                        at,
                        format!("invalid decision: {raw}"),
                    );
                }
            },
            None => Decision::Allow,
        };
        let justification = match justification {
            Some(raw) if raw.trim().is_empty() => {
                let at = literal_in_call(eval, raw);
                return fail(
                    eval,
                    ErrorKind::Other,
                    at,
                    "invalid rule: justification cannot be empty".into(),
                );
            }
            other => other.map(str::to_string),
        };
        let mut tokens = Vec::new();
        for v in pattern.items {
            match parse_token(v) {
                Ok(t) => tokens.push(t),
                Err(m) => return fail(eval, ErrorKind::Other, None, m),
            }
        }
        if tokens.is_empty() {
            return fail(
                eval,
                ErrorKind::Other,
                None,
                "invalid pattern element: pattern cannot be empty".into(),
            );
        }
        let mut matches = Vec::new();
        for v in r#match.map(|l| l.items).unwrap_or_default() {
            match parse_example(v) {
                Ok(e) => matches.push(e),
                Err(m) => return fail(eval, ErrorKind::Other, None, m),
            }
        }
        let mut not_matches = Vec::new();
        for v in not_match.map(|l| l.items).unwrap_or_default() {
            match parse_example(v) {
                Ok(e) => not_matches.push(e),
                Err(m) => return fail(eval, ErrorKind::Other, None, m),
            }
        }
        let call = eval
            .call_stack_top_location()
            .map(|s| span_range(&s))
            .unwrap_or(0..0);
        let b = builder(eval)?;
        let mut b = b.borrow_mut();
        let call_index = b.calls.len();
        b.calls.push(call.clone());
        let start = b.rules.len();
        let rest: Vec<Vec<String>> = tokens[1..].to_vec();
        for head in &tokens[0] {
            b.rules.push(PrefixRule {
                first: head.clone(),
                rest: rest.clone(),
                decision,
                justification: justification.clone(),
                call: call.clone(),
                call_index,
            });
        }
        let end = b.rules.len();
        b.pending.push(Pending {
            rules: start..end,
            matches,
            not_matches,
            call,
        });
        Ok(NoneType)
    }

    fn network_rule<'v>(
        host: &'v str,
        protocol: &'v str,
        decision: &'v str,
        justification: Option<&'v str>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> anyhow::Result<NoneType> {
        if !matches!(
            protocol,
            "http" | "https" | "https_connect" | "http-connect" | "socks5_tcp" | "socks5_udp"
        ) {
            let at = literal_in_call(eval, protocol);
            return fail(
                eval,
                ErrorKind::Other,
                at,
                format!(
                    "invalid rule: network_rule protocol must be one of http, https, socks5_tcp, socks5_udp (got {protocol})"
                ),
            );
        }
        if decision != "deny" && Decision::parse(decision).is_none() {
            let at = literal_in_call(eval, decision);
            return fail(
                eval,
                ErrorKind::InvalidDecision(decision.to_string()),
                at,
                format!("invalid decision: {decision}"),
            );
        }
        if justification.is_some_and(|j| j.trim().is_empty()) {
            return fail(
                eval,
                ErrorKind::Other,
                None,
                "invalid rule: justification cannot be empty".into(),
            );
        }
        if let Err(m) = check_network_host(host) {
            let at = literal_in_call(eval, host);
            return fail(eval, ErrorKind::Other, at, m);
        }
        builder(eval)?.borrow_mut().network_rules += 1;
        Ok(NoneType)
    }

    fn host_executable<'v>(
        name: &'v str,
        paths: UnpackList<Value<'v>>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> anyhow::Result<NoneType> {
        let bare = !name.is_empty()
            && std::path::Path::new(name).components().count() == 1
            && std::path::Path::new(name)
                .file_name()
                .and_then(|n| n.to_str())
                == Some(name);
        if name.is_empty() {
            return fail(
                eval,
                ErrorKind::Other,
                None,
                "invalid rule: host_executable name cannot be empty".into(),
            );
        }
        if !bare {
            let at = literal_in_call(eval, name);
            return fail(
                eval,
                ErrorKind::Other,
                at,
                format!(
                    "invalid rule: host_executable name must be a bare executable name (got {name})"
                ),
            );
        }
        let mut list: Vec<String> = Vec::new();
        for v in paths.items {
            let Some(raw) = v.unpack_str() else {
                return fail(
                    eval,
                    ErrorKind::Other,
                    None,
                    format!(
                        "invalid rule: host_executable paths must be strings (got {})",
                        type_name(v)
                    ),
                );
            };
            if !raw.starts_with('/') {
                let at = literal_in_call(eval, raw);
                return fail(
                    eval,
                    ErrorKind::Other,
                    at,
                    format!("invalid rule: host_executable paths must be absolute (got {raw})"),
                );
            }
            let normal = normalize_absolute(raw);
            let base = std::path::Path::new(&normal)
                .file_name()
                .and_then(|n| n.to_str());
            if base != Some(name) {
                let at = literal_in_call(eval, raw);
                return fail(
                    eval,
                    ErrorKind::Other,
                    at,
                    format!(
                        "invalid rule: host_executable path `{raw}` must have basename `{name}`"
                    ),
                );
            }
            if !list.contains(&normal) {
                list.push(normal);
            }
        }
        let call = eval
            .call_stack_top_location()
            .map(|s| span_range(&s))
            .unwrap_or(0..0);
        let b = builder(eval)?;
        let mut b = b.borrow_mut();
        b.hosts.retain(|(n, _)| n != name);
        b.hosts.push((name.to_string(), list.clone()));
        b.host_calls.push(HostExecutable {
            name: name.to_string(),
            paths: list,
            call,
        });
        Ok(NoneType)
    }
}

fn check_network_host(raw: &str) -> Result<(), String> {
    let host = raw.trim();
    if host.is_empty() {
        return Err("invalid rule: network_rule host cannot be empty".into());
    }
    if host.contains("://") || host.contains(['/', '?', '#']) {
        return Err(
            "invalid rule: network_rule host must be a hostname or IP literal (without scheme or path)"
                .into(),
        );
    }
    if host.contains('*') {
        return Err(
            "invalid rule: network_rule host must be a specific host; wildcards are not allowed"
                .into(),
        );
    }
    if host.chars().any(char::is_whitespace) {
        return Err("invalid rule: network_rule host cannot contain whitespace".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> RulesFile {
        read(text, &mut Vec::new())
    }

    #[test]
    fn reads_rules_variables_loops_and_f_strings() {
        let f = load(
            "CMDS = [\"status\", \"log\"]\nfor c in CMDS:\n    prefix_rule(pattern=[\"git\", c])\nname = \"push\"\nprefix_rule([\"git\", f\"{name}\"], \"forbidden\")\n",
        );
        assert!(f.loaded(), "{:?}", f.error);
        let shown: Vec<String> = f
            .rules
            .iter()
            .map(|r| format!("{} {}", r.display(), r.decision.as_str()))
            .collect();
        assert_eq!(
            shown,
            ["git status allow", "git log allow", "git push forbidden"]
        );
        // The loop's call is one call site, run twice.
        assert_eq!(f.rules[0].call, f.rules[1].call);
    }

    #[test]
    fn alternatives_in_first_position_make_one_rule_each() {
        let f = load("prefix_rule([[\"git\", \"hg\"], \"push\"], decision=\"prompt\")");
        assert_eq!(f.rules.len(), 2);
        assert_eq!(f.rules[1].first, "hg");
    }

    #[test]
    fn errors_in_codex_words_with_a_narrow_range() {
        let text = "prefix_rule(pattern=[\"x\"], decision=\"deny\")";
        let f = load(text);
        let e = f.error.unwrap();
        assert_eq!(e.message, "invalid decision: deny");
        assert_eq!(&text[e.range.clone()], "\"deny\"");
        assert_eq!(e.kind, ErrorKind::InvalidDecision("deny".into()));
        for (text, msg) in [
            (
                "prefix_rule(pattern=[\"git\", decision=\"allow\")",
                "Parse error: unexpected symbol '=', expected symbol ']'",
            ),
            ("print(\"hello\")", "Variable `print` not found"),
            (
                "prefix_rule(pattern=[], decision=\"allow\")",
                "invalid pattern element: pattern cannot be empty",
            ),
            (
                "prefix_rule(pattern=[\"git\"], decision=\"allow\", reason=\"x\")",
                "Found `reason` extra named parameter(s) for call to prefix_rule",
            ),
            (
                "prefix_rule(pattern=[\"git\"], decision=\"prompt\", justification=\"\")",
                "invalid rule: justification cannot be empty",
            ),
            (
                "host_executable(name=\"git\", paths=[\"/usr/bin/hg\"])",
                "invalid rule: host_executable path `/usr/bin/hg` must have basename `git`",
            ),
            (
                "i = 0\nwhile i < 2:\n    i += 1\n",
                "cannot use reserved keyword `while`",
            ),
            (
                "\u{feff}prefix_rule(pattern=[\"git\"])",
                "Parse error: invalid input",
            ),
        ] {
            let e = load(text).error.unwrap_or_else(|| panic!("{text} loaded"));
            assert!(e.message.contains(msg), "{text}: {}", e.message);
        }
    }

    #[test]
    fn examples_are_checked_against_their_call() {
        let e = load(
            "prefix_rule(pattern=[\"git\", \"push\"], decision=\"prompt\", match=[\"git pull\"])",
        )
        .error
        .unwrap();
        assert_eq!(
            e.kind,
            ErrorKind::ExamplesDidNotMatch(vec!["git pull".into()])
        );
        let e =
            load("prefix_rule(pattern=[\"git\"], decision=\"prompt\", not_match=[\"git pull\"])")
                .error
                .unwrap();
        assert!(e.message.starts_with("expected example to not match rule"));
        // Another call's rule does not count.
        let f = load(
            "prefix_rule(pattern=[\"git\"])\nprefix_rule(pattern=[\"git\", \"push\"], not_match=[\"git pull\"], match=[[\"git\", \"push\", \"x\"]])",
        );
        assert!(f.loaded(), "{:?}", f.error);
    }

    #[test]
    fn bounded_evaluation() {
        for text in [
            "def f():\n    for i in range(100000000):\n        x = i\nf()\n",
            "x = [0 for i in range(100000000)]\n",
            "x = [[i] * 1000 for i in range(1000000)]\n",
        ] {
            let e = load(text).error.unwrap_or_else(|| panic!("{text} loaded"));
            assert_eq!(e.kind, ErrorKind::Bounds, "{text}: {}", e.message);
        }
        let deep = format!("x = {}1{}", "[".repeat(5000), "]".repeat(5000));
        assert_eq!(load(&deep).error.unwrap().kind, ErrorKind::Bounds);
        assert!(load("").loaded());
        assert!(load("# only a comment\r\n").loaded());
    }
}
