//! A tool call decided as Qwen Code 0.24.4 decides it: is the tool
//! registered, the tool's own default, the permission manager's rules
//! (deny > ask > allow, compound commands part by part, a shell command's
//! file and network access checked against Read / Edit / WebFetch rules),
//! then the approval mode.

use super::super::model::{self, Mode};
use super::matching::{self, Anchors, Ctx};
use super::ops::{self, Op};
use super::policy::{List, Placed, Policy};
use super::readonly::{self, Safety};
use super::shell;
use serde_json::Value;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Perm {
    Allow,
    Default,
    Ask,
    Deny,
}

fn prio(p: Perm) -> u8 {
    match p {
        Perm::Allow => 0,
        Perm::Default => 1,
        Perm::Ask => 2,
        Perm::Deny => 3,
    }
}

/// The CLI's answer for one call.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Allow,
    Ask,
    Deny,
    /// The tool is not registered: the call is refused.
    Hidden,
    /// The tool refuses its arguments before any permission check.
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

/// The decision and why.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub verdict: Verdict,
    /// The rule that decided, by index into `Policy::rules`.
    pub rule: Option<usize>,
    /// Why, for people.
    pub reason: String,
    /// What the agent is told on a refusal, in the CLI's words.
    pub message: Option<String>,
    /// Parts of the call this simulation does not read as the CLI does
    /// (the answer may differ there).
    pub incomplete: Vec<String>,
}

/// The tools a session registers by default, and those it does not.
pub const TOOLS: &[&str] = &[
    "run_shell_command",
    "read_file",
    "write_file",
    "edit",
    "glob",
    "grep_search",
    "web_fetch",
    "list_directory",
    "todo_write",
    "web_search",
    "save_memory",
];
const OPT_IN: &[&str] = &["list_directory", "todo_write", "web_search", "save_memory"];
const CORE_TOOLS: &[&str] = &[
    "read_file",
    "zoom_image",
    "write_file",
    "edit",
    "notebook_edit",
    "glob",
    "grep_search",
    "run_shell_command",
    "list_directory",
    "read_mcp_resource",
    "web_fetch",
    "web_search",
    "todo_write",
    "save_memory",
    "lsp",
    "cron_create",
    "cron_list",
    "cron_delete",
    "loop_wakeup",
    "create_sub_session",
    "monitor",
];

struct Pm<'a> {
    policy: &'a Policy,
    anchors: std::rc::Rc<Anchors>,
    incomplete: Vec<String>,
    /// The first rule that decided, for the report.
    decided_by: Option<usize>,
    /// Some rule decides file or network access (Read, Edit, Write,
    /// WebFetch, list rules): a shell command's access can matter.
    access_rules: bool,
    /// The last command's operations and the folder they were read in
    /// (one decision asks for the same command's several times; without
    /// this, the 10 MB benchmark's check took about a sixth longer).
    last_ops: Option<(String, PathBuf, Vec<Op>)>,
    /// The last rule lookups (list, tool, command → the rules it may
    /// match): one decision looks the same call up in the same list for
    /// its relevance and again for its verdict.
    looked_up: std::cell::RefCell<Vec<Lookup>>,
    /// The last command split into the parts rules are matched against.
    last_split: Option<(String, std::rc::Rc<[String]>)>,
}

/// One remembered rule lookup of a decision.
struct Lookup {
    list: List,
    tool: String,
    command: Option<String>,
    rules: std::rc::Rc<[usize]>,
}

/// How many rule lookups a decision remembers.
const LOOKUPS: usize = 12;

#[derive(Clone, Default)]
struct Call<'a> {
    tool: &'a str,
    command: Option<String>,
    file: Option<String>,
    domain: Option<String>,
    specifier: Option<String>,
    params: Option<&'a Value>,
    cwd: Option<PathBuf>,
}

impl<'a> Call<'a> {
    /// The same call for one part of its command line (the whole line is
    /// not copied for each part: a line of n parts stays linear).
    fn part(&self, command: String) -> Call<'a> {
        Call {
            tool: self.tool,
            command: Some(command),
            file: self.file.clone(),
            domain: self.domain.clone(),
            specifier: self.specifier.clone(),
            params: self.params,
            cwd: self.cwd.clone(),
        }
    }
}

impl<'a> Pm<'a> {
    /// The anchors of a call in `cwd` (the session's, not copied, when the
    /// call names no folder or the session's own).
    fn anchors_for(&self, cwd: Option<&Path>) -> std::rc::Rc<Anchors> {
        match cwd {
            Some(c) if c != self.anchors.cwd => {
                let mut a = Anchors::clone(&self.anchors);
                a.cwd = c.to_path_buf();
                std::rc::Rc::new(a)
            }
            _ => self.anchors.clone(),
        }
    }

    /// The rules of `list` a call with this command may match, in order.
    fn rules(&self, list: List, x: &Ctx<'_>) -> impl Iterator<Item = (usize, &'a Placed)> + 'a {
        let policy = self.policy;
        let found = {
            let mut memo = self.looked_up.borrow_mut();
            match memo
                .iter()
                .find(|l| l.list == list && l.tool == x.tool && l.command.as_deref() == x.command)
            {
                Some(l) => l.rules.clone(),
                None => {
                    let rules: std::rc::Rc<[usize]> =
                        policy.candidates(list, x.tool, x.command).into();
                    if memo.len() == LOOKUPS {
                        memo.remove(0);
                    }
                    memo.push(Lookup {
                        list,
                        tool: x.tool.to_string(),
                        command: x.command.map(str::to_string),
                        rules: rules.clone(),
                    });
                    rules
                }
            }
        };
        (0..found.len()).map(move |k| {
            let i = found[k];
            (i, &policy.rules[i])
        })
    }

    /// `shell::split_for_rules` of `command`, remembered for the next ask.
    fn split_for_rules(&mut self, command: &str) -> std::rc::Rc<[String]> {
        if let Some((c, parts)) = &self.last_split
            && c == command
        {
            return parts.clone();
        }
        let parts: std::rc::Rc<[String]> = shell::split_for_rules(command).into();
        self.last_split = Some((command.to_string(), parts.clone()));
        parts
    }

    /// Some rule of the lists `listed` says matches `x` (`canonical` as
    /// each list asks `matches`).
    fn any_matching(&self, x: &Ctx<'_>, a: &Anchors, lists: &[List]) -> bool {
        lists.iter().any(|&list| {
            self.rules(list, x)
                .any(|(_, r)| matching::matches(&r.rule, x, a, list != List::Allow))
        })
    }

    fn ctx<'c>(c: &'c Call<'_>) -> Ctx<'c> {
        Ctx {
            tool: c.tool,
            command: c.command.as_deref(),
            file: c.file.as_deref(),
            domain: c.domain.as_deref(),
            specifier: c.specifier.as_deref(),
            params: c.params,
        }
    }

    fn is_shell(tool: &str) -> bool {
        tool == "run_shell_command" || tool == "monitor"
    }

    fn ops(&mut self, command: &str, cwd: Option<&Path>) -> Vec<Op> {
        // Every operation is a call of a file or network tool: with no rule
        // for one (no rule's tool covers any of them), none is matched,
        // none asks for an unknown folder, and none is worth reading.
        if !self.access_rules {
            return Vec::new();
        }
        let cwd = cwd.unwrap_or(&self.anchors.cwd).to_path_buf();
        if let Some((c, d, ops)) = &self.last_ops
            && c == command
            && *d == cwd
        {
            // Its unmodelled parts were noted the first time.
            return ops.clone();
        }
        let ops = self.ops_uncached(command, &cwd);
        self.last_ops = Some((command.to_string(), cwd, ops.clone()));
        ops
    }

    fn ops_uncached(&mut self, command: &str, cwd: &Path) -> Vec<Op> {
        let mut unmodelled = Vec::new();
        let ops = ops::across(command, cwd, &self.anchors.home, &mut unmodelled);
        // What this reading does not take apart matters only when some
        // rule decides file or network access.
        if self.access_rules {
            for u in unmodelled {
                let u = format!("the file or network access of {u}");
                if !self.incomplete.contains(&u) {
                    self.incomplete.push(u);
                }
            }
        }
        ops
    }

    fn single(&mut self, c: &Call<'_>) -> Perm {
        let a = self.anchors_for(c.cwd.as_deref());
        let x = Self::ctx(c);
        let mut base = Perm::Default;
        let mut by = None;
        for (list, perm, canonical) in [
            (List::Deny, Perm::Deny, true),
            (List::Ask, Perm::Ask, true),
            (List::Allow, Perm::Allow, false),
        ] {
            if let Some((i, _)) = self
                .rules(list, &x)
                .find(|(_, r)| matching::matches(&r.rule, &x, &a, canonical))
            {
                base = perm;
                by = Some(i);
                break;
            }
        }
        if base == Perm::Deny {
            self.decided_by.get_or_insert(by.unwrap_or(0));
            return base;
        }
        if Self::is_shell(c.tool)
            && let Some(cmd) = c.command.clone()
        {
            let ops = self.ops(&cmd, c.cwd.as_deref());
            let v = self.virtual_ops(&ops, c.cwd.as_deref());
            if v != Perm::Default && prio(v) > prio(base) {
                return v;
            }
        }
        if let Some(i) = by
            && base != Perm::Default
        {
            self.decided_by.get_or_insert(i);
        }
        base
    }

    fn has_deny_or_ask_for(&self, tool: &str, ask_only: bool) -> bool {
        self.policy.rules.iter().any(|r| {
            (r.list == List::Ask || (!ask_only && r.list == List::Deny))
                && !r.rule.invalid
                && matching::tool_covers(&r.rule.tool, tool)
        })
    }

    fn virtual_ops(&mut self, ops: &[Op], cwd: Option<&Path>) -> Perm {
        let mut worst = Perm::Default;
        for op in ops {
            let call = Call {
                tool: op.tool,
                file: op.file.clone(),
                domain: op.domain.clone(),
                cwd: cwd.map(Path::to_path_buf),
                ..Default::default()
            };
            let mut d = self.single(&call);
            if op.cwd_unknown
                && op.path_may_depend_on_cwd
                && prio(d) < prio(Perm::Ask)
                && self.has_deny_or_ask_for(op.tool, false)
            {
                d = Perm::Ask;
            }
            if prio(d) > prio(worst) {
                worst = d;
                if worst == Perm::Deny {
                    return worst;
                }
            }
        }
        worst
    }

    fn default_for(&mut self, command: &str) -> Perm {
        let (s, inc) = readonly::classify(command);
        self.incomplete.extend(inc);
        if s == Safety::ReadOnly {
            Perm::Allow
        } else {
            Perm::Ask
        }
    }

    fn evaluate(&mut self, c: &Call<'_>) -> Perm {
        let mut virt = Perm::Default;
        if let (Some(cmd), true) = (c.command.clone(), Self::is_shell(c.tool)) {
            let ops = self.ops(&cmd, c.cwd.as_deref());
            virt = self.virtual_ops(&ops, c.cwd.as_deref());
            if virt == Perm::Deny {
                return Perm::Deny;
            }
        }
        let bash = if let Some(cmd) = c.command.clone() {
            let subs: std::rc::Rc<[String]> = if Self::is_shell(c.tool) {
                self.split_for_rules(&cmd)
            } else {
                shell::split(&cmd).into()
            };
            if subs.len() > 1 {
                self.compound(c, &subs)
            } else {
                let d = self.single(c);
                if d == Perm::Default && Self::is_shell(c.tool) {
                    self.default_for(&cmd)
                } else {
                    d
                }
            }
        } else {
            self.single(c)
        };
        if virt != Perm::Default && prio(virt) > prio(bash) {
            return virt;
        }
        bash
    }

    fn compound(&mut self, c: &Call<'_>, subs: &[String]) -> Perm {
        let mut most = Perm::Allow;
        let cd = subs.iter().any(|s| {
            let t = s.trim_start();
            ["cd", "pushd"].iter().any(|w| {
                t == *w
                    || t.strip_prefix(w)
                        .is_some_and(|r| r.starts_with(char::is_whitespace))
            })
        });
        let whole = c.command.clone().unwrap_or_default();
        for s in subs {
            let sub = c.part(s.clone());
            let raw = self.single(&sub);
            let d = if raw == Perm::Default {
                self.default_for(if cd { &whole } else { s })
            } else {
                raw
            };
            if prio(d) > prio(most) {
                most = d;
            }
            if most == Perm::Deny {
                return most;
            }
        }
        most
    }

    fn relevant(&mut self, c: &Call<'_>, ask_only: bool) -> bool {
        let a = self.anchors_for(c.cwd.as_deref());
        if let (Some(cmd), true) = (c.command.clone(), Self::is_shell(c.tool)) {
            let ops = self.ops(&cmd, c.cwd.as_deref());
            for op in &ops {
                if op.cwd_unknown
                    && op.path_may_depend_on_cwd
                    && self.has_deny_or_ask_for(op.tool, ask_only)
                {
                    return true;
                }
                let x = Ctx {
                    tool: op.tool,
                    file: op.file.as_deref(),
                    domain: op.domain.as_deref(),
                    ..Default::default()
                };
                let hit = self.any_matching(&x, &a, lists(ask_only));
                if hit {
                    return true;
                }
            }
            let subs = self.split_for_rules(&cmd);
            if subs.len() > 1 {
                return subs
                    .iter()
                    .any(|s| self.relevant(&c.part(s.clone()), ask_only));
            }
        }
        let x = Self::ctx(c);
        self.any_matching(&x, &a, lists(ask_only))
    }

    /// The first deny rule matching the call (the refusal's words).
    fn deny_rule(&self, c: &Call<'_>) -> Option<usize> {
        let a = self.anchors_for(c.cwd.as_deref());
        if let (Some(cmd), true) = (c.command.clone(), Self::is_shell(c.tool)) {
            let mut scratch = Vec::new();
            let cwd = c.cwd.clone().unwrap_or_else(|| self.anchors.cwd.clone());
            for op in ops::across(&cmd, &cwd, &self.anchors.home, &mut scratch) {
                let x = Ctx {
                    tool: op.tool,
                    file: op.file.as_deref(),
                    domain: op.domain.as_deref(),
                    ..Default::default()
                };
                if let Some((i, _)) = self
                    .rules(List::Deny, &x)
                    .find(|(_, r)| matching::matches(&r.rule, &x, &a, true))
                {
                    return Some(i);
                }
            }
            let subs = shell::split_for_rules(&cmd);
            if subs.len() > 1 {
                for s in subs {
                    if let Some(i) = self.deny_rule(&c.part(s)) {
                        return Some(i);
                    }
                }
            }
        }
        let x = Self::ctx(c);
        self.rules(List::Deny, &x)
            .find(|(_, r)| matching::matches(&r.rule, &x, &a, true))
            .map(|(i, _)| i)
    }
}

/// The lists `relevant` looks at: ask rules, and deny and allow rules
/// unless only asks count.
fn lists(ask_only: bool) -> &'static [List] {
    if ask_only {
        &[List::Ask]
    } else {
        &[List::Deny, List::Ask, List::Allow]
    }
}

fn str_param<'v>(input: &'v Value, k: &str) -> Option<&'v str> {
    input.get(k).and_then(Value::as_str)
}

/// The hostname of a URL as WHATWG's parser gives it (lowercase, no port
/// or credentials), or `None` when it does not parse.
pub fn hostname(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    if scheme.is_empty()
        || !scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    {
        return None;
    }
    let auth = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host_port = auth.rsplit('@').next().unwrap_or("");
    let host = if host_port.starts_with('[') {
        host_port.split(']').next().map(|h| format!("{h}]"))?
    } else {
        host_port.split(':').next().unwrap_or("").to_string()
    };
    if host.is_empty() || host.contains([' ', '<', '>', '^', '|', '%']) {
        return None;
    }
    Some(host.to_lowercase())
}

/// The confirmation a tool asks with: `edit` (auto-edit approves), `info`
/// (auto-edit approves, plan asks), `exec`, `mcp`.
fn confirmation(tool: &str) -> &'static str {
    match tool {
        "write_file" | "edit" | "notebook_edit" => "edit",
        "run_shell_command" | "monitor" => "exec",
        t if t.starts_with("mcp__") => "mcp",
        _ => "info",
    }
}

/// Decides one call.
pub fn decide(policy: &Policy, tool: &str, input: &Value) -> Outcome {
    decide_with(policy, tool, input, true)
}

/// The verdict of `decide` alone (its rule, reason, message and notes of
/// what is not simulated are left out, and not worked out): for checks
/// that decide one call per rule.
pub fn verdict(policy: &Policy, tool: &str, input: &Value) -> Verdict {
    decide_with(policy, tool, input, false).verdict
}

/// `decide`; with `explain` false, only the verdict is worked out (the
/// rest of the outcome may be empty).
fn decide_with(policy: &Policy, tool: &str, input: &Value, explain: bool) -> Outcome {
    matching::forget_paths();
    let tool = model::canonical(tool).to_string();
    let tool = tool.as_str();
    let root = policy.root().to_path_buf();
    let mut pm = Pm {
        policy,
        anchors: std::rc::Rc::new(Anchors {
            root: root.clone(),
            cwd: root.clone(),
            home: policy.env.home.clone(),
        }),
        incomplete: Vec::new(),
        decided_by: None,
        access_rules: policy.access_rules,
        last_ops: None,
        looked_up: Default::default(),
        last_split: None,
    };
    let out = |verdict: Verdict,
               rule: Option<usize>,
               reason: String,
               message: Option<String>,
               incomplete: Vec<String>| Outcome {
        verdict,
        rule,
        reason,
        message,
        incomplete,
    };
    // Registration.
    let whole = Call {
        tool,
        ..Default::default()
    };
    if pm.single(&whole) == Perm::Deny {
        let r = pm.decided_by;
        return out(
            Verdict::Hidden,
            r,
            "a deny rule for the whole tool: Qwen Code does not register it".into(),
            Some(if tool.starts_with("mcp__") {
                format!("Tool \"{tool}\" is disabled.")
            } else {
                format!("Tool \"{tool}\" not found in registry.")
            }),
            Vec::new(),
        );
    }
    if let Some(core) = &policy.core
        && !core.is_empty()
        && CORE_TOOLS.contains(&tool)
        && !core.iter().any(|c| c == tool)
    {
        return out(
            Verdict::Hidden,
            None,
            "not listed in tools.core: Qwen Code does not register it".into(),
            Some(format!("Tool \"{tool}\" not found in registry.")),
            Vec::new(),
        );
    }
    if policy.disabled.iter().any(|d| d == tool) {
        return out(
            Verdict::Hidden,
            None,
            "listed in tools.disabled: Qwen Code does not register it".into(),
            Some(format!("Tool \"{tool}\" not found in registry.")),
            Vec::new(),
        );
    }
    if OPT_IN.contains(&tool) && !policy.opt_in.contains(&tool) {
        // Observed hidden without the settings that register them; a
        // web search or memory setting registers the others in ways not
        // read here.
        let inc = if policy.opt_in_other && (tool == "web_search" || tool == "save_memory") {
            vec![format!("`{tool}`: the settings that register it")]
        } else {
            Vec::new()
        };
        return out(
            Verdict::Hidden,
            None,
            format!(
                "`{tool}` is not registered unless enabled (tools.listDirectory.enabled, tools.todoWrite.enabled, a web search provider)"
            ),
            Some(format!("Tool \"{tool}\" not found in registry.")),
            inc,
        );
    }
    if tool == "todo_write" {
        pm.incomplete
            .push("`todo_write`'s own default (not observed)".into());
    }
    if !TOOLS.contains(&tool) && !tool.starts_with("mcp__") {
        return out(
            Verdict::Ask,
            None,
            format!("`{tool}` is not a tool this simulation knows"),
            None,
            vec![format!("the tool `{tool}`")],
        );
    }
    // Arguments the tool refuses first.
    let abs = |k: &str| str_param(input, k).map(|p| Path::new(p).is_absolute());
    match tool {
        "read_file" | "write_file" | "edit" if abs("file_path") == Some(false) => {
            return out(
                Verdict::Invalid("File path must be absolute".into()),
                None,
                "the tool refuses a relative file_path before any permission check".into(),
                None,
                Vec::new(),
            );
        }
        "run_shell_command" if abs("directory") == Some(false) => {
            return out(
                Verdict::Invalid("Directory must be an absolute path.".into()),
                None,
                "the tool refuses a relative directory before any permission check".into(),
                None,
                Vec::new(),
            );
        }
        _ => {}
    }
    // The call as the permission manager sees it.
    let command = str_param(input, "command").map(str::to_string);
    let cwd = str_param(input, "directory").map(|d| {
        if Path::new(d).is_absolute() {
            PathBuf::from(d)
        } else {
            root.join(d)
        }
    });
    let file = str_param(input, "file_path")
        .or_else(|| str_param(input, "notebook_path"))
        .map(str::to_string)
        .or_else(|| {
            str_param(input, "path").map(|p| {
                if Path::new(p).is_absolute() {
                    p.to_string()
                } else {
                    matching::join(&root, p)
                }
            })
        });
    let domain = str_param(input, "url").and_then(hostname);
    let specifier = ["skill", "subagent_type", "server_name"]
        .iter()
        .find_map(|k| str_param(input, k))
        .map(str::to_string);
    let call = Call {
        tool,
        command: command.clone(),
        file: file.clone(),
        domain,
        specifier,
        params: Some(input),
        cwd: cwd.clone(),
    };
    // The tool's own default.
    let workspace = |p: &str| matching::within(Path::new(p), &root);
    // Whether the shell command has a substitution (its default asks).
    let mut substitution = false;
    let default = match tool {
        "run_shell_command" => {
            let c = command.clone().unwrap_or_default();
            substitution = shell::has_substitution(&c);
            if sed_in_place(&shell::strip_wrapper(&c)) {
                pm.incomplete.push(
                    "a `sed -i` edit (Qwen previews it as a file edit that needs the file read first)"
                        .into(),
                );
            }
            if substitution {
                Perm::Ask
            } else {
                let (s, inc) = readonly::classify(&shell::strip_wrapper(&c));
                pm.incomplete.extend(inc);
                if s == Safety::ReadOnly {
                    Perm::Allow
                } else {
                    Perm::Ask
                }
            }
        }
        "read_file" => {
            let f = file.clone().unwrap_or_default();
            if f.starts_with(&format!("{}/.qwen/", policy.env.home.display())) {
                pm.incomplete
                    .push("a read under ~/.qwen (Qwen allows some of its own folders)".into());
            }
            if workspace(&f) {
                Perm::Allow
            } else {
                Perm::Ask
            }
        }
        "glob" | "grep_search" | "list_directory" => match &file {
            None => Perm::Allow,
            Some(f) if workspace(f) => Perm::Allow,
            Some(_) => Perm::Ask,
        },
        t if t.starts_with("mcp__") => {
            let server = t.split("__").nth(1).unwrap_or("");
            if policy.trusted_servers.iter().any(|s| s == server) && !policy.untrusted {
                Perm::Allow
            } else {
                Perm::Ask
            }
        }
        _ => Perm::Ask,
    };
    let mut fin = default;
    if pm.relevant(&call, false) {
        let d = pm.evaluate(&call);
        if d != Perm::Default {
            fin = d;
        }
    }
    let rule = pm.decided_by;
    let inc = std::mem::take(&mut pm.incomplete);
    let mut inc_dedup: Vec<String> = Vec::new();
    for i in inc {
        if !inc_dedup.contains(&i) {
            inc_dedup.push(i);
        }
    }
    if fin == Perm::Deny && !explain {
        return out(Verdict::Deny, rule, String::new(), None, Vec::new());
    }
    if fin == Perm::Deny {
        let r = pm.deny_rule(&call).or(rule);
        let raw = r.map(|i| policy.rules[i].rule.raw.clone());
        let msg = match &raw {
            Some(raw) => format!(
                "This \"{tool}\" invocation was denied by permission rules. Matching deny rule: \"{raw}\".{}",
                if tool_wide(raw) {
                    ""
                } else {
                    " Other uses of this tool are still permitted."
                }
            ),
            None => format!("This \"{tool}\" invocation was denied by permission rules."),
        };
        return out(
            Verdict::Deny,
            r,
            "a deny rule matches".into(),
            Some(msg),
            inc_dedup,
        );
    }
    let mode = policy.mode;
    let plan_shell = mode == Mode::Plan && tool == "run_shell_command";
    let mut plan_unknown = false;
    if plan_shell {
        let (s, more) = readonly::classify(command.as_deref().unwrap_or(""));
        inc_dedup.extend(more);
        match s {
            Safety::Write => {
                return out(Verdict::Deny, None, "plan mode: the command changes state".into(), Some("Plan mode blocked this shell command because it was classified as state-modifying. Do not retry it through wrappers or obfuscation; continue read-only investigation and include the action in the plan.".into()), inc_dedup);
            }
            Safety::Unknown => plan_unknown = true,
            Safety::ReadOnly => {}
        }
    }
    if fin == Perm::Allow && !plan_unknown {
        // (A note only: the verdict stays allow.)
        if mode == Mode::Auto && explain {
            let writes = ["write_file", "edit", "notebook_edit"].contains(&tool)
                || (tool == "run_shell_command"
                    && ops::across(
                        command.as_deref().unwrap_or(""),
                        &cwd.clone().unwrap_or(root.clone()),
                        &policy.env.home,
                        &mut Vec::new(),
                    )
                    .iter()
                    .any(|o| o.tool == "write_file" || o.tool == "edit"));
            if writes {
                inc_dedup.push("approval mode `auto`: Qwen's classifier reviews allowed writes to protected paths (.git, package.json, Makefile, …)".into());
            }
        }
        let why = if rule.is_some() {
            "an allow rule matches".to_string()
        } else {
            default_reason(tool, default, substitution)
        };
        return out(Verdict::Allow, rule, why, None, inc_dedup);
    }
    if mode == Mode::Auto {
        inc_dedup.push("approval mode `auto`: an LLM classifier decides what no rule does".into());
        return out(
            Verdict::Ask,
            rule,
            "approval mode auto: the classifier decides (not simulated)".into(),
            None,
            inc_dedup,
        );
    }
    if mode == Mode::Yolo {
        return out(
            Verdict::Allow,
            rule,
            "approval mode yolo: everything but a deny runs (ask rules too)".into(),
            None,
            inc_dedup,
        );
    }
    let kind = confirmation(tool);
    if mode == Mode::Plan && !plan_shell && kind != "info" {
        return out(
            Verdict::Deny,
            None,
            "plan mode blocks tools that are not read-only".into(),
            Some(format!(
                "Tool blocked by plan mode: \"{tool}\" is not a read-only tool."
            )),
            inc_dedup,
        );
    }
    if mode == Mode::AutoEdit && (kind == "edit" || kind == "info") {
        return out(
            Verdict::Allow,
            rule,
            "approval mode auto-edit approves edits and fetches".into(),
            None,
            inc_dedup,
        );
    }
    let why = if rule.is_some() && fin == Perm::Ask && default != Perm::Ask {
        "an ask rule matches".to_string()
    } else if rule.is_some() && fin == Perm::Ask {
        "an ask rule matches (the tool asks anyway)".to_string()
    } else if plan_unknown {
        "plan mode: whether the command is read-only is not known, so it asks".to_string()
    } else {
        default_reason(tool, default, substitution)
    };
    out(
        Verdict::Ask,
        rule.filter(|&i| policy.rules[i].list != List::Allow),
        why,
        None,
        inc_dedup,
    )
}

/// Why the tool's own default decides, from that default (no second
/// reading of the command).
fn default_reason(tool: &str, default: Perm, substitution: bool) -> String {
    match tool {
        "run_shell_command" => {
            if substitution {
                "no rule decides, and the command has a substitution: Qwen asks".into()
            } else if default == Perm::Allow {
                "no rule decides; Qwen judges the command read-only and runs it".into()
            } else {
                "no rule decides and Qwen does not judge the command read-only: it asks".into()
            }
        }
        "read_file" | "glob" | "grep_search" => {
            "no rule decides: reads inside the project run, outside they ask".into()
        }
        t if t.starts_with("mcp__") => {
            "no rule decides: MCP tools ask unless the server has trust: true".into()
        }
        _ => "no rule decides: the tool asks".into(),
    }
}

fn tool_wide(raw: &str) -> bool {
    let r = model::parse_rule(raw);
    match (&r.specifier, r.kind) {
        (None, _) => r.params.is_empty(),
        (Some(s), Some(model::Kind::Path)) => s == "//**",
        (Some(s), _) => s == "*",
    }
}

/// `sed -i` / `--in-place` as the first command: Qwen turns it into a
/// previewed file edit.
fn sed_in_place(command: &str) -> bool {
    let w = shell::words(command);
    w.first().is_some_and(|c| c == "sed")
        && w[1..].iter().any(|a| {
            a.starts_with("--in-place")
                || (a.starts_with('-') && !a.starts_with("--") && a.contains('i'))
        })
}
