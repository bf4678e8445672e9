//! One tool call decided as Gemini CLI 0.61.0 decides it: is the tool
//! registered at all, does it accept its arguments, then the policy
//! engine's `check` (the highest matching rule, compound commands part by
//! part, redirection, the shell heuristics, build files).

use super::super::model::{self, Decision, Mode};
use super::heuristics::{self, Places};
use super::policy::{Policy, Rule, resolve};
use super::shell;
use serde_json::Value as Json;
use std::path::Path;

/// What happens to a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Allow,
    Ask,
    Deny,
    /// Never registered: "Tool … not found in registry".
    Hidden,
    /// Refused by the tool before any policy check.
    Invalid(String),
}

impl Verdict {
    pub fn name(&self) -> &'static str {
        match self {
            Verdict::Allow => "allow",
            Verdict::Ask => "ask",
            Verdict::Deny => "deny",
            Verdict::Hidden => "hidden",
            Verdict::Invalid(_) => "invalid",
        }
    }
}

/// A decision with its reasons.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub verdict: Verdict,
    /// The deciding rule (`Policy::rules`).
    pub rule: Option<usize>,
    pub reason: String,
    /// Parts of the answer this simulation could not reproduce.
    pub incomplete: Vec<String>,
    pub notes: Vec<String>,
}

struct Run<'a> {
    p: &'a Policy,
    workspace: &'a Path,
    incomplete: Vec<String>,
    notes: Vec<String>,
    depth: usize,
    heuristic_why: Option<String>,
}

/// `stableStringify` of the arguments: keys sorted, each top-level pair
/// between NUL characters.
pub fn stable_stringify(v: &Json) -> String {
    fn go(v: &Json, top: bool) -> String {
        match v {
            Json::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
                let pairs: Vec<String> = keys
                    .into_iter()
                    .map(|k| {
                        let s = format!(
                            "{}:{}",
                            serde_json::to_string(k).unwrap_or_default(),
                            go(&m[k], false)
                        );
                        if top { format!("\u{0}{s}\u{0}") } else { s }
                    })
                    .collect();
                format!("{{{}}}", pairs.join(","))
            }
            Json::Array(a) => format!(
                "[{}]",
                a.iter().map(|x| go(x, false)).collect::<Vec<_>>().join(",")
            ),
            other => js_json(other),
        }
    }
    go(v, true)
}

/// `JSON.stringify` of a scalar (numbers as JavaScript prints them).
fn js_json(v: &Json) -> String {
    match v {
        Json::Number(n) => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 1e21 => format!("{}", f as i64),
            _ => n.to_string(),
        },
        other => serde_json::to_string(other).unwrap_or_default(),
    }
}

fn matches_wildcard(pattern: &str, name: &str, server: Option<&str>) -> bool {
    if pattern == "*" {
        return true;
    }
    if pattern == "mcp_*" {
        return server.is_some();
    }
    if pattern.starts_with("mcp_") && pattern.ends_with("_*") && pattern.len() >= 6 {
        let expected = &pattern[4..pattern.len() - 2];
        return server == Some(expected) && name.starts_with(&format!("mcp_{expected}_"));
    }
    name == pattern
}

impl Run<'_> {
    fn non_interactive(&self) -> bool {
        !self.p.interactive
    }

    fn default_decision(&self) -> Decision {
        if self.p.interactive {
            Decision::Ask
        } else {
            Decision::Deny
        }
    }

    /// `ruleMatches` (no subagent; MCP tools without known annotations).
    fn rule_matches(
        &mut self,
        r: &Rule,
        name: &str,
        stringified: Option<&str>,
        server: Option<&str>,
        has_args: bool,
    ) -> bool {
        self.matches(r, name, stringified, server, has_args, false)
    }

    /// `ruleMatches` of the rule without its `argsPattern` (as
    /// `getExcludedTools` asks it).
    fn rule_matches_ignoring_args(&mut self, r: &Rule, name: &str, server: Option<&str>) -> bool {
        self.matches(r, name, None, server, true, true)
    }

    fn matches(
        &mut self,
        r: &Rule,
        name: &str,
        stringified: Option<&str>,
        server: Option<&str>,
        has_args: bool,
        ignore_args: bool,
    ) -> bool {
        if let Some(m) = &r.modes
            && !m.is_empty()
            && !m.contains(&self.p.mode)
        {
            return false;
        }
        if r.subagent.is_some() {
            return false;
        }
        match r.mcp_name.as_deref() {
            Some("*") if server.is_none() => return false,
            Some(s) if s != "*" && server != Some(s) => return false,
            _ => {}
        }
        let t = r.tool_name.as_str();
        if t != "*" {
            if t.contains('*') {
                if !matches_wildcard(t, name, server) {
                    return false;
                }
            } else if name != t {
                let mut ok = false;
                if let Some(s) = server {
                    if let Some(m) = &r.mcp_name
                        && !t.starts_with("mcp_")
                        && name == model::format_mcp(m, Some(t))
                    {
                        ok = true;
                    }
                    if !ok && t.starts_with("mcp_") && t == model::format_mcp(s, Some(name)) {
                        ok = true;
                    }
                }
                if !ok {
                    return false;
                }
            }
        }
        if let Some(src) = r.untranslated.as_ref().filter(|_| !ignore_args) {
            self.incomplete.push(format!(
                "the regex `{src}` ({}) is not run by this checker",
                r.source
            ));
            return false;
        }
        if let Some(re) = r.pattern.as_ref().filter(|_| !ignore_args) {
            if !has_args {
                return false;
            }
            let Some(s) = stringified else { return false };
            match re.test_known(s, !s.is_ascii()) {
                Ok(true) => {}
                Ok(false) => return false,
                Err(u) => {
                    self.incomplete.push(u.0);
                    return false;
                }
            }
        }
        if let Some(i) = r.interactive
            && i == self.non_interactive()
        {
            return false;
        }
        // Everything else matches. The CLI's own tools have no
        // annotations (such a rule never matches them); an MCP tool's
        // are known only to its server.
        if r.annotations.is_some() {
            if server.is_some() {
                self.incomplete.push(format!(
                    "a rule ({}) tests the MCP tool's annotations (`toolAnnotations`), which only its server knows",
                    r.source
                ));
            }
            return false;
        }
        true
    }

    fn downgrade(&self, command: &str, allow_redirection: bool) -> bool {
        !allow_redirection
            && shell::has_redirection(command)
            && !matches!(self.p.mode, Mode::AutoEdit | Mode::Yolo)
    }

    fn heuristics(&mut self, command: &str, decision: Decision, dir: Option<&str>) -> Decision {
        let out = self.heuristics_inner(command, decision, dir);
        if out != decision {
            self.notes.push(format!(
                "the shell heuristics turn {} into {}: {}",
                decision.verdict(),
                out.verdict(),
                self.heuristic_why.take().unwrap_or_default()
            ));
        }
        out
    }

    fn heuristics_inner(
        &mut self,
        command: &str,
        decision: Decision,
        dir: Option<&str>,
    ) -> Decision {
        if decision == Decision::Deny {
            return Decision::Deny;
        }
        let Some(args) = shell::words(command) else {
            return decision;
        };
        let ws = self.workspace;
        let eff = dir
            .map(|d| resolve(ws, d))
            .unwrap_or_else(|| ws.to_path_buf());
        let outside = !heuristics::is_subpath(ws, &eff);
        if outside && self.p.mode != Mode::Yolo {
            self.heuristic_why = Some("the command's folder is outside the project".into());
            return Decision::Ask;
        }
        let untrusted_git = heuristics::contains_git(&args) && !self.p.trusted;
        if untrusted_git {
            self.heuristic_why = Some("git in a folder that is not trusted".into());
            return Decision::Ask;
        }
        if heuristics::dangerous(&args) {
            self.heuristic_why = Some(
                "a dangerous command (`rm -f`/`-rf`, `find -delete`/`-exec`, `ln -s`, `git -c`, …)"
                    .into(),
            );
            return if self.p.mode == Mode::Yolo {
                decision
            } else {
                Decision::Ask
            };
        }
        let at = Places {
            workspace: ws,
            cwd: &eff,
            home: &self.p.env.home,
        };
        if decision == Decision::Ask && heuristics::known_safe(&args, &at) {
            if outside {
                return Decision::Ask;
            }
            self.heuristic_why = Some("a known-safe read-only command inside the project".into());
            return Decision::Allow;
        }
        decision
    }

    #[allow(clippy::too_many_arguments)]
    fn check_shell(
        &mut self,
        name: &str,
        command: Option<&str>,
        rule_decision: Decision,
        server: Option<&str>,
        dir: Option<&str>,
        allow_redirection: bool,
        rule: Option<usize>,
    ) -> (Decision, Option<usize>) {
        let Some(command) = command.filter(|c| !c.is_empty()) else {
            return (rule_decision, rule);
        };
        let parsed = shell::parse(command);
        let details = parsed
            .as_ref()
            .map(|p| p.details.clone())
            .unwrap_or_default();
        if details.is_empty() || parsed.as_ref().is_none_or(|p| p.has_error) {
            if rule_decision == Decision::Deny {
                return (Decision::Deny, rule);
            }
            if self.p.mode == Mode::Yolo {
                if rule.is_some_and(|i| self.p.rules[i].pattern.is_some()) {
                    return (Decision::Deny, rule);
                }
                return (Decision::Allow, rule);
            }
            self.notes.push(
                "the bash grammar cannot read this command: the engine falls back to its default"
                    .into(),
            );
            return (self.default_decision(), rule);
        }
        if rule_decision == Decision::Deny {
            return (Decision::Deny, rule);
        }
        let mut agg = rule_decision;
        let mut responsible = rule.filter(|&i| self.p.rules[i].decision == rule_decision);
        if self.downgrade(command, allow_redirection) && agg == Decision::Allow {
            agg = Decision::Ask;
            responsible = None;
            self.notes.push(
                "a redirection turns allow into ask (the deciding rule has no allowRedirection)"
                    .into(),
            );
        }
        let full = shell::utf16_len(command);
        for d in &details {
            if shell::NOT_COMMANDS.contains(&d.name.as_str()) {
                continue;
            }
            let sub = model::js_trim(&d.text).to_string();
            let atomic = sub == command || (d.start == 0 && shell::utf16_len(&d.text) == full);
            let stripped = shell::strip_wrapper(&sub);
            if stripped != sub {
                let (dec, r) = self.check(name, &shell_args(&stripped, dir), server, true);
                if dec == Decision::Deny {
                    return (dec, r);
                }
                if dec == Decision::Ask {
                    if agg == Decision::Allow {
                        responsible = r;
                    } else {
                        responsible = responsible.or(r);
                    }
                    agg = Decision::Ask;
                }
            }
            if !atomic {
                let (dec, r) = self.check(name, &shell_args(&sub, dir), server, true);
                if dec == Decision::Deny {
                    return (dec, r);
                }
                if dec == Decision::Ask {
                    if agg == Decision::Allow {
                        responsible = r;
                    } else {
                        responsible = responsible.or(r);
                    }
                    agg = Decision::Ask;
                }
                if dec == Decision::Allow
                    && self.downgrade(&sub, allow_redirection)
                    && agg == Decision::Allow
                {
                    agg = Decision::Ask;
                    responsible = None;
                }
            }
        }
        (
            agg,
            if agg == rule_decision {
                rule
            } else {
                responsible
            },
        )
    }

    /// `PolicyEngine.check`.
    fn check(
        &mut self,
        name: &str,
        args: &Json,
        server: Option<&str>,
        skip_heuristics: bool,
    ) -> (Decision, Option<usize>) {
        self.depth += 1;
        if self.depth > 64 {
            self.incomplete
                .push("the command nests wrappers deeper than this checker follows".into());
            self.depth -= 1;
            return (Decision::Ask, None);
        }
        let parsed_server = model::parse_mcp(name).map(|(s, _)| s.to_string());
        let server = server.map(str::to_string).or(parsed_server);
        let server = server.as_deref();
        let has_args = args.is_object() || args.is_array();
        let stringified = has_args.then(|| stable_stringify(args));
        let shell_call = model::SHELL_TOOL_NAMES.contains(&name);
        let command = shell_call
            .then(|| args.get("command").and_then(Json::as_str))
            .flatten()
            .map(str::to_string);
        let dir = shell_call
            .then(|| args.get("dir_path").and_then(Json::as_str))
            .flatten()
            .map(str::to_string);
        let names = model::aliases(name);
        let mut out: Option<(Decision, Option<usize>)> = None;
        for i in self.p.index.candidates(stringified.as_deref()) {
            let r = &self.p.rules[i];
            if self.p.skipped(r) {
                continue;
            }
            let hit = names
                .iter()
                .any(|n| self.rule_matches(r, n, stringified.as_deref(), server, has_args));
            if !hit {
                continue;
            }
            let mut dec = r.decision;
            if !skip_heuristics
                && shell_call
                && command.as_deref().is_some_and(|c| !c.is_empty())
                && r.pattern.is_none()
                && r.untranslated.is_none()
            {
                dec = self.heuristics(command.as_deref().unwrap_or(""), dec, dir.as_deref());
            }
            out = Some(if shell_call {
                let ar = r.allow_redirection;
                self.check_shell(
                    name,
                    command.as_deref(),
                    dec,
                    server,
                    dir.as_deref(),
                    ar,
                    Some(i),
                )
            } else {
                (dec, Some(i))
            });
            break;
        }
        let result = match out {
            Some(o) => o,
            None if self.p.mode == Mode::Yolo => (Decision::Allow, None),
            None if shell_call => {
                let mut d = self.default_decision();
                if !skip_heuristics && command.as_deref().is_some_and(|c| !c.is_empty()) {
                    d = self.heuristics(command.as_deref().unwrap_or(""), d, dir.as_deref());
                }
                self.check_shell(
                    name,
                    command.as_deref(),
                    d,
                    server,
                    dir.as_deref(),
                    false,
                    None,
                )
            }
            None => (self.default_decision(), None),
        };
        self.depth -= 1;
        result
    }

    /// `getExcludedTools` for one tool: a rule without arguments that
    /// denies it before anything else decides it.
    fn excluded(&mut self, name: &str, server: Option<&str>) -> Option<Option<usize>> {
        let p = self.p;
        let (answer, gaps) = p.excluded_memo.get_or(name, server, || {
            let mut run = Run {
                p,
                workspace: self.workspace,
                incomplete: Vec::new(),
                notes: Vec::new(),
                depth: self.depth,
                heuristic_why: None,
            };
            let answer = run.excluded_uncached(name, server);
            (answer, run.incomplete)
        });
        self.incomplete.extend(gaps);
        answer
    }

    fn excluded_uncached(&mut self, name: &str, server: Option<&str>) -> Option<Option<usize>> {
        for i in 0..self.p.rules.len() {
            let r = &self.p.rules[i];
            if self.p.skipped(r) {
                continue;
            }
            if !self.rule_matches_ignoring_args(r, name, server) {
                continue;
            }
            if r.pattern.is_some() || r.untranslated.is_some() {
                if r.decision != Decision::Deny {
                    return None;
                }
                continue;
            }
            return (r.decision == Decision::Deny).then_some(Some(i));
        }
        (self.default_decision() == Decision::Deny).then_some(None)
    }
}

fn shell_args(command: &str, dir: Option<&str>) -> Json {
    let mut m = serde_json::Map::new();
    m.insert("command".into(), Json::String(command.to_string()));
    if let Some(d) = dir {
        m.insert("dir_path".into(), Json::String(d.to_string()));
    }
    Json::Object(m)
}

const EXACT_BUILD_FILES: &[&str] = &[
    "BUILD",
    "BUILD.bazel",
    "WORKSPACE",
    "WORKSPACE.bazel",
    "MODULE.bazel",
    ".bazelrc",
    ".blazerc",
    "Makefile",
    "makefile",
    "GNUmakefile",
    "CMakeLists.txt",
    "package.json",
    "package-lock.json",
    "pnpm-lock.yaml",
    "yarn.lock",
    "bun.lockb",
    "setup.py",
    "setup.cfg",
    "pyproject.toml",
    "go.mod",
    "go.sum",
    "Cargo.toml",
    "Cargo.lock",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "settings.gradle",
    "settings.gradle.kts",
    "Dockerfile",
    "Containerfile",
];

/// `isBuildFile`: the file's real name.
pub fn is_build_file(path: &str, cwd: &Path) -> bool {
    let clean = path.replace('\0', "").replace('\\', "/");
    if clean.is_empty() {
        return false;
    }
    let abs = resolve(cwd, &clean);
    let real = std::fs::canonicalize(&abs).unwrap_or(abs);
    let base = real
        .file_name()
        .map(|b| b.to_string_lossy().into_owned())
        .unwrap_or_default();
    if EXACT_BUILD_FILES.contains(&base.as_str())
        || base.starts_with("Dockerfile.")
        || base.starts_with("Containerfile.")
    {
        return true;
    }
    let ext = match base.rfind('.') {
        Some(i) if i > 0 => base[i..].to_lowercase(),
        _ => String::new(),
    };
    [".bzl", ".bazel", ".bzlmod", ".mk", ".cmake"].contains(&ext.as_str())
}

fn is_file_edit_tool(names: &[String]) -> bool {
    names.iter().any(|n| {
        n == "replace"
            || n == "write_file"
            || n.to_lowercase()
                .split(|c: char| !c.is_ascii_alphanumeric())
                .any(|t| {
                    matches!(
                        t,
                        "write"
                            | "edit"
                            | "replace"
                            | "patch"
                            | "update"
                            | "create"
                            | "append"
                            | "save"
                    )
                })
    })
}

fn expand_home(p: &str, home: &Path) -> String {
    if p == "~" {
        return home.display().to_string();
    }
    match p.strip_prefix("~/") {
        Some(rest) => home.join(rest).display().to_string(),
        None => p.to_string(),
    }
}

fn trim_spaces_and_dots(s: &str) -> &str {
    s.trim_end_matches([' ', '.'])
}

/// `hasBlockedPathSegment`: the workspace never includes `.git`, `.env`,
/// `node_modules` (nor their 8.3 short names) or GitHub Actions
/// credentials, so a tool refuses them as outside it.
fn blocked_segment(rel: &str) -> bool {
    static SFN: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let sfn = SFN.get_or_init(|| {
        regex::Regex::new(r"^(?:(?:git|gi[0-9a-f]{4})~[0-9]+|(?:env|en[0-9a-f]{4})~[0-9]+|(?:node_m|no[0-9a-f]{4})~[0-9]+|(?:gha-cr|gh[0-9a-f]{4})~[0-9]+\.jso(?:n)?)$").unwrap()
    });
    rel.split(['/', '\\']).any(|seg| {
        let clean = trim_spaces_and_dots(seg.split(':').next().unwrap_or("")).to_lowercase();
        clean == ".git"
            || clean == ".env"
            || clean == "node_modules"
            || sfn.is_match(&clean)
            || (clean.starts_with("gha-creds-") && clean.ends_with(".json"))
    })
}

/// `write_todos` takes nothing but `todos`, a list of `{description,
/// status}` (its schema closes both objects), then checks the values.
fn write_todos_refusal(args: &Json) -> Option<String> {
    const STATUSES: &[&str] = &[
        "pending",
        "in_progress",
        "completed",
        "cancelled",
        "blocked",
    ];
    let obj = args.as_object()?;
    if obj.keys().any(|k| k != "todos") {
        return Some("params must NOT have additional properties".into());
    }
    let Some(todos) = obj.get("todos") else {
        return Some("params must have required property 'todos'".into());
    };
    let Some(items) = todos.as_array() else {
        return Some("params/todos must be array".into());
    };
    for (i, t) in items.iter().enumerate() {
        let Some(o) = t.as_object() else {
            return Some(format!("params/todos/{i} must be object"));
        };
        for k in ["description", "status"] {
            if !o.contains_key(k) {
                return Some(format!(
                    "params/todos/{i} must have required property '{k}'"
                ));
            }
        }
        if o.keys().any(|k| k != "description" && k != "status") {
            return Some(format!(
                "params/todos/{i} must NOT have additional properties"
            ));
        }
        let Some(d) = o["description"].as_str() else {
            return Some(format!("params/todos/{i}/description must be string"));
        };
        let st = o["status"].as_str();
        if !st.is_some_and(|s| STATUSES.contains(&s)) {
            return Some(format!(
                "params/todos/{i}/status must be equal to one of the allowed values"
            ));
        }
        if super::super::model::js_trim(d).is_empty() {
            return Some("Each todo must have a non-empty description string".into());
        }
    }
    let in_progress = items
        .iter()
        .filter(|t| t["status"] == "in_progress")
        .count();
    (in_progress > 1)
        .then(|| "Invalid parameters: Only one task can be \"in_progress\" at a time.".to_string())
}

enum EditOutcome {
    Applies,
    Fails(String),
    Unknown(String),
}

/// Whether `replace` can make its edit: the target (in plan mode, a file
/// of the session's new plans folder) exists or is created by an empty
/// `old_string`, and holds `old_string` exactly once.
fn edit_outcome(p: &Policy, args: &Json, ws: &Path) -> EditOutcome {
    let path = args.get("file_path").and_then(Json::as_str).unwrap_or("");
    let old = args.get("old_string").and_then(Json::as_str).unwrap_or("");
    if p.mode == Mode::Plan {
        // Each session's plans folder starts empty.
        return if old.is_empty() {
            EditOutcome::Applies
        } else {
            EditOutcome::Fails(format!(
                "File not found: {path} in the session's plans folder"
            ))
        };
    }
    let abs = resolve(ws, &expand_home(path, &p.env.home));
    match std::fs::symlink_metadata(&abs) {
        Err(_) if old.is_empty() => EditOutcome::Applies,
        Err(_) => EditOutcome::Fails(format!("File not found: {}", abs.display())),
        Ok(m) if !m.is_file() && !m.file_type().is_symlink() => {
            EditOutcome::Unknown(format!("`{path}` is not a regular file"))
        }
        Ok(_) if old.is_empty() => EditOutcome::Fails(
            "Failed to edit. Attempted to create a file that already exists.".into(),
        ),
        Ok(_) => match crate::fsio::read_text(&abs, 8 << 20) {
            Some(text) => match text.matches(old).count() {
                1 => EditOutcome::Applies,
                0 => EditOutcome::Unknown(format!(
                    "`old_string` is not in `{path}` as written: Gemini CLI then tries flexible matching (and may ask its model to correct the edit) before it gives up"
                )),
                n => EditOutcome::Unknown(format!(
                    "`old_string` is in `{path}` {n} times: what Gemini CLI does depends on the edit's options"
                )),
            },
            None => EditOutcome::Unknown(format!("`{path}` could not be read")),
        },
    }
}

/// The class names Gemini CLI also accepts in `tools.core`.
fn class_names(name: &str) -> &'static [&'static str] {
    match name {
        "list_directory" => &["LSTool"],
        "read_file" => &["ReadFileTool"],
        "grep_search" => &["GrepTool", "RipGrepTool"],
        "glob" => &["GlobTool"],
        "write_file" => &["WriteFileTool"],
        "replace" => &["EditTool"],
        "run_shell_command" => &["ShellTool"],
        "web_fetch" => &["WebFetchTool"],
        "google_web_search" => &["WebSearchTool"],
        "write_todos" => &["WriteTodosTool"],
        _ => &[],
    }
}

/// `tools.core` registers only the tools it names (`name`, its class
/// name, or either followed by `(…)`); without it, every tool.
fn in_core(p: &Policy, name: &str) -> bool {
    let Some(core) = &p.core else { return true };
    let names: Vec<&str> = std::iter::once(name)
        .chain(class_names(name).iter().copied())
        .collect();
    core.iter().any(|t| {
        names
            .iter()
            .any(|n| t == n || t.starts_with(&format!("{n}(")))
    })
}

/// The arguments a tool refuses before the policy runs.
fn refusal(p: &Policy, name: &str, args: &Json, ws: &Path) -> Option<String> {
    let s = |k: &str| args.get(k).and_then(Json::as_str);
    let need = |k: &str| -> Option<String> {
        match args.get(k) {
            None => Some(format!("params must have required property '{k}'")),
            Some(v) if !v.is_string() => Some(format!("params/{k} must be string")),
            _ => None,
        }
    };
    // In plan mode the edit tools write into the session's plans folder:
    // a path that leaves it is refused (`../b.md` recorded on the CLI; an
    // absolute path read from its source).
    let plan_path = |path: &str| -> Option<String> {
        let t = path.trim();
        let escapes = if t.starts_with('/') {
            !heuristics::is_subpath(&p.env.home.join(".gemini").join("tmp"), &resolve(ws, t))
        } else {
            let root = Path::new("/plans");
            !resolve(root, t).starts_with(root)
        };
        escapes.then(|| {
            format!("Access denied: plan path ({t}) must be within the designated plans directory")
        })
    };
    let inside = |path: &str| -> Option<String> {
        let abs = resolve(ws, &expand_home(path, &p.env.home));
        let abs = std::fs::canonicalize(&abs).unwrap_or(abs);
        let plans = p.env.home.join(".gemini").join("tmp");
        let in_workspace = abs
            .strip_prefix(ws)
            .is_ok_and(|rel| !blocked_segment(&rel.to_string_lossy()));
        (!in_workspace && !heuristics::is_subpath(&plans, &abs)).then(|| {
            format!(
                "Path not in workspace: Attempted path \"{}\" resolves outside the allowed workspace directories",
                abs.display()
            )
        })
    };
    match name {
        "read_file" => need("file_path").or_else(|| inside(s("file_path")?)),
        "write_file" | "replace" if p.mode == Mode::Plan => need("file_path")
            .or_else(|| {
                if name == "write_file" {
                    need("content")
                } else {
                    need("instruction")
                        .or_else(|| need("old_string"))
                        .or_else(|| need("new_string"))
                }
            })
            .or_else(|| plan_path(s("file_path")?)),
        "write_file" => need("file_path")
            .or_else(|| need("content"))
            .or_else(|| inside(s("file_path")?)),
        "replace" => need("file_path")
            .or_else(|| need("instruction"))
            .or_else(|| need("old_string"))
            .or_else(|| need("new_string"))
            .or_else(|| inside(s("file_path")?)),
        "glob" | "grep_search" => need("pattern").or_else(|| inside(s("dir_path")?)),
        "list_directory" => need("dir_path").or_else(|| inside(s("dir_path")?)),
        "run_shell_command" => need("command").or_else(|| inside(s("dir_path")?)),
        "google_web_search" => need("query"),
        "web_fetch" => need("prompt").or_else(|| {
            let pr = s("prompt")?;
            (!pr.contains("http://") && !pr.contains("https://"))
                .then(|| "The 'prompt' must contain at least one valid URL (starting with http:// or https://).".to_string())
        }),
        "write_todos" => write_todos_refusal(args),
        _ => None,
    }
}

/// Decides one call.
pub fn decide(p: &Policy, name: &str, args: &Json) -> Outcome {
    let workspace: &Path = p
        .real_cwd
        .get_or_init(|| std::fs::canonicalize(&p.env.cwd).unwrap_or_else(|_| p.env.cwd.clone()));
    let mut run = Run {
        p,
        workspace,
        incomplete: Vec::new(),
        notes: Vec::new(),
        depth: 0,
        heuristic_why: None,
    };
    let mcp = model::parse_mcp(name);
    // An untrusted folder starts no MCP server, the user's included.
    let mcp_off = p.folder_trust && !p.trusted;
    let registered = if let Some((server, _)) = mcp {
        !mcp_off
            && p.mcp_servers.iter().any(|(s, _)| s == server)
            && p.mcp_allowed
                .as_ref()
                .is_none_or(|l| l.iter().any(|s| s == server))
            && !p.mcp_excluded.iter().any(|s| s == server)
    } else {
        model::SIMULATED_TOOLS.contains(&name) && in_core(p, name)
    };
    let finish = |run: Run, verdict: Verdict, rule: Option<usize>, reason: String| Outcome {
        verdict,
        rule,
        reason,
        incomplete: run.incomplete,
        notes: run.notes,
    };
    if !registered {
        let why = match mcp {
            Some(_) if mcp_off => {
                "this folder is not trusted: Gemini CLI starts no MCP server (user-level servers included)".to_string()
            }
            Some((server, _)) if !p.mcp_servers.iter().any(|(s, _)| s == server) => {
                format!("no MCP server `{server}` in mcpServers")
            }
            Some((server, _)) => format!("the MCP server `{server}` is filtered out by mcp.allowed / mcp.excluded"),
            None if model::SIMULATED_TOOLS.contains(&name) => {
                "tools.core does not list it (by its name or its class name), so it is never registered".into()
            }
            None if model::BUILTIN_TOOLS.contains(&name) => {
                "a tool this simulation does not register (Gemini CLI registers it only in some sessions)".into()
            }
            None => format!("Gemini CLI 0.61.0 has no tool `{name}`"),
        };
        if model::BUILTIN_TOOLS.contains(&name)
            && !model::SIMULATED_TOOLS.contains(&name)
            && mcp.is_none()
        {
            run.incomplete
                .push(format!("whether `{name}` is registered in this session"));
        }
        return finish(
            run,
            Verdict::Hidden,
            None,
            format!("Tool \"{name}\" not found in registry: {why}"),
        );
    }
    if p.exclude.iter().any(|e| e == name) {
        return finish(
            run,
            Verdict::Hidden,
            None,
            format!(
                "Tool \"{name}\" not found in registry: tools.exclude lists it, so it is never registered (whatever the policy files say)"
            ),
        );
    }
    let server = mcp.map(|(s, _)| s);
    if let Some(hit) = run.excluded(name, server) {
        let why = match hit {
            Some(i) => format!(
                "{} denies the whole tool, so it is never registered",
                p.rules[i].source
            ),
            None => "nothing allows it and the headless default is deny, so it is never registered"
                .into(),
        };
        return finish(
            run,
            Verdict::Hidden,
            hit,
            format!("Tool \"{name}\" not found in registry: {why}"),
        );
    }
    if let Some(m) = refusal(p, name, args, workspace) {
        return finish(
            run,
            Verdict::Invalid(m.clone()),
            None,
            format!("the tool refuses its arguments before any policy check: {m}"),
        );
    }
    let (mut dec, mut rule) = run.check(name, args, server, false);
    // `replace` computes its edit before the prompt (and before running):
    // an edit it cannot make fails without asking, whatever the policy
    // said short of deny.
    if name == "replace" && dec != Decision::Deny {
        match edit_outcome(p, args, workspace) {
            EditOutcome::Applies => {}
            EditOutcome::Fails(m) => {
                return finish(
                    run,
                    Verdict::Invalid(m.clone()),
                    None,
                    format!("the edit cannot be made, so the tool fails without a prompt: {m}"),
                );
            }
            EditOutcome::Unknown(m) => run.incomplete.push(m),
        }
    }
    let mut reason = match rule {
        Some(i) if p.rules[i].decision != dec => format!(
            "{} `{}` at priority {} matches first; the command's parts and the shell heuristics make it {}",
            p.rules[i].source,
            p.rules[i].decision.name(),
            fmt_priority(p.rules[i].priority),
            dec.verdict()
        ),
        Some(i) => format!(
            "{} `{}` at priority {}",
            p.rules[i].source,
            p.rules[i].decision.name(),
            fmt_priority(p.rules[i].priority)
        ),
        None if dec == run.default_decision() && p.mode != Mode::Yolo => format!(
            "no rule decides: the default ({})",
            if p.interactive {
                "ask in an interactive session"
            } else {
                "deny in a headless session"
            }
        ),
        None => "the parts of the command, the heuristics and the mode together".into(),
    };
    if dec == Decision::Allow && is_file_edit_tool(&model::aliases(name)) {
        let target = ["file_path", "path", "filePath", "file"]
            .iter()
            .find_map(|k| args.get(*k).and_then(Json::as_str));
        if let Some(t) = target
            && is_build_file(model::js_trim(t), workspace)
        {
            dec = if p.interactive {
                Decision::Ask
            } else {
                Decision::Deny
            };
            rule = None;
            reason = "Build File Protection: modifying build configuration files requires explicit user confirmation".into();
        }
    }
    if model::SHELL_TOOL_NAMES.contains(&name)
        && let Some(c) = args.get("command").and_then(Json::as_str)
        && dec == Decision::Allow
        && (c.contains("$(") || c.contains('`') || c.contains("<(") || c.contains(">("))
    {
        run.notes.push("the policy allows it, but the shell tool then refuses a command substitution (\"Command injection detected\")".into());
    }
    let verdict = match dec {
        Decision::Allow => Verdict::Allow,
        Decision::Ask => Verdict::Ask,
        Decision::Deny => Verdict::Deny,
    };
    finish(run, verdict, rule, reason)
}

/// A priority as the engine holds it (`4.3`, `1.05`).
pub fn fmt_priority(p: f64) -> String {
    let s = format!("{p:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}
