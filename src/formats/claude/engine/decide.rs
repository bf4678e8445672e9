//! One tool call decided as Claude Code 2.1.332 decides it, over every
//! settings file at once: a deny rule in any file wins, then an ask rule,
//! then the tool's own checks (the read-only commands, the working
//! directories, the mode), then an allow rule; what is left asks. Each
//! step is what the real CLI was seen to do (`tests/fixtures/claude/oracle/`).

use super::bash::{self, ReadOnlyAnswer};
use super::paths;
use super::policy::{Loaded, Mode, Policy};
use crate::formats::claude::model::rules::{Flaw, List};
use std::path::{Path, PathBuf};

/// allow / ask / deny (the shared decision type).
pub use crate::core::decision::Decision;

/// Why the call gets its decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Why {
    /// A rule decided (its index in `Policy::rules`).
    Rule(usize),
    /// A whole-tool deny: the tool is removed from the session.
    ToolRemoved(usize),
    /// A command the CLI runs without asking.
    ReadOnly,
    /// The mode allows it (reads in the working directories; edits in
    /// `acceptEdits`; everything in `bypassPermissions`).
    Mode(Mode),
    /// A path outside the working directories.
    OutsideWorkingDirectories(PathBuf),
    /// A command substitution, a subshell, a background job or a
    /// redirection to a file.
    Shell(&'static str),
    /// A safety check of the CLI that a whole-tool allow does not lift:
    /// a background job (`&`: bypass mode lifts it), an `rm` that a deny
    /// rule matches inside a shell's `-c` script (nothing lifts it) —
    /// observed on 2.1.332.
    Safety(&'static str, Lifted),
    /// `dontAsk` turns what would ask into a refusal.
    DontAsk(Box<Why>),
    /// In plan or auto mode the CLI's model-backed classifier decides.
    Classifier(Mode),
    /// Nothing allows it: the CLI asks.
    NoRule,
    /// The session has no such tool.
    Unavailable,
    /// A tool the CLI runs without asking (launching a subagent, whose
    /// calls are decided one by one; loading a tool or a skill).
    NoPermission,
}

/// What lifts a safety check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lifted {
    ByBypass,
    Never,
}

/// The decision with its reason and the commands it was made of.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub decision: Decision,
    pub why: Why,
    /// For Bash: each simple command with its own decision.
    pub parts: Vec<(String, Decision)>,
}

/// The variables the CLI itself puts in every shell it starts (its list),
/// and the shell's own: a line may not set them unasked, whatever the
/// environment.
const SHELL_ENV: &[&str] = &[
    "SHELL",
    "GIT_EDITOR",
    "CLAUDECODE",
    "AI_AGENT",
    "CLAUDE_CODE_SESSION_ID",
    "CLAUDE_CODE_CHILD_SESSION",
    "CLAUDE_CODE_CHILD_NOTES_DIR",
    "CLAUDE_CODE_SESSION_ATTENDED",
    "CLAUDE_CODE_STARTER_MAY_HOLD_CONNECTOR_FILE",
    "CLAUDE_PID",
    "TRACEPARENT",
    "CLAUDE_CODE_EXECPATH",
    "TMUX",
    "TMPDIR",
    "CLAUDE_CODE_TMPDIR",
    "TMPPREFIX",
    "BUN_OPTIONS",
    "TEMP",
    "TMP",
    "GIT_CONFIG_PARAMETERS",
    "CLAUDE_EFFORT",
    "CLAUDE_CODE_INVOKED_SKILLS",
    // Seen in its shells too (observed: `env` in a session).
    "CLAUDE_CODE_ENTRYPOINT",
    "CLAUDE_CODE_MESSAGING_SOCKET",
    "CLAUDE_CODE_MESSAGING_TOKEN",
    "COREPACK_ENABLE_AUTO_PIN",
    "NoDefaultCurrentDirectoryInExePath",
    // The shell's own.
    "SHLVL",
    "_",
];

fn outcome(decision: Decision, why: Why) -> Outcome {
    Outcome {
        decision,
        why,
        parts: Vec::new(),
    }
}

/// Tools a 2.1.332 session does not offer ("No such tool available").
const UNAVAILABLE: &[&str] = &[
    "TodoWrite",
    "LSP",
    "TaskCreate",
    "TaskList",
    "TaskGet",
    "TaskUpdate",
    "TaskOutput",
    "ListMcpResourcesTool",
    "ReadMcpResourceTool",
    "WaitForMcpServers",
    "PushNotification",
    "SendUserFile",
    "RemoteTrigger",
    "Artifact",
    "EndConversation",
];

/// Tools a 2.1.332 session runs without asking (observed; a deny or ask
/// rule naming the tool still applies).
const NO_PERMISSION: &[&str] = &[
    "Agent",
    "Task",
    "ToolSearch",
    "ListAgents",
    "Skill",
    "CronList",
    "CronCreate",
    "CronDelete",
    "EnterPlanMode",
    "EnterWorktree",
    "ReportFindings",
    "ScheduleWakeup",
    "SendMessage",
];

/// Old tool names the CLI still accepts in rules.
fn same_tool(rule_tool: &str, tool: &str) -> bool {
    rule_tool == tool
        || matches!(
            (rule_tool, tool),
            ("Task", "Agent") | ("KillShell", "TaskStop")
        )
        || (rule_tool.contains('*') && paths::glob_segment(rule_tool, tool))
}

/// Does a rule without content (or an MCP server rule) cover every call of
/// `tool`?
fn whole_tool(r: &Loaded, tool: &str) -> bool {
    if r.flaw == Some(Flaw::SpacedToolName) {
        return false;
    }
    let content_free = match (&r.content, r.tool.as_str()) {
        (None, _) => true,
        (Some(c), "Bash") => c == "*",
        _ => false,
    };
    if !content_free {
        return false;
    }
    if same_tool(&r.tool, tool) {
        return true;
    }
    // `mcp__srv` and `mcp__srv__*` cover every tool of the server.
    if let Some(rest) = tool.strip_prefix("mcp__")
        && let Some(server) = rest.split("__").next()
    {
        let t = r.tool.as_str();
        return t == format!("mcp__{server}") || t == format!("mcp__{server}__*");
    }
    false
}

impl Policy {
    fn first(&self, list: List, pred: impl Fn(&Loaded) -> bool) -> Option<usize> {
        self.rules.iter().position(|r| r.list == list && pred(r))
    }

    /// The rules' index (`None`: the rules changed since it was built).
    fn index(&self) -> Option<&super::index::BashIndex> {
        let index = self
            .bash_index
            .get_or_init(|| super::index::BashIndex::new(&self.rules));
        index.fits(&self.rules).then_some(index)
    }

    /// `first`, trying only the rules `candidates` finds in the index (in
    /// policy order); `pred` must be false of every other rule of `list`.
    fn first_among(
        &self,
        list: List,
        candidates: impl FnOnce(&super::index::BashIndex) -> Vec<usize>,
        pred: impl Fn(&Loaded) -> bool,
    ) -> Option<usize> {
        match self.index() {
            Some(index) => candidates(index)
                .into_iter()
                .find(|&i| pred(&self.rules[i])),
            None => self.first(list, pred),
        }
    }

    /// `first`, for a predicate true only of Bash rules matching one of
    /// `texts` (`rule_matches`).
    fn first_bash(
        &self,
        list: List,
        texts: &[String],
        pred: impl Fn(&Loaded) -> bool,
    ) -> Option<usize> {
        self.first_among(list, |ix| ix.candidates(list, texts), pred)
    }

    /// `first`, for a predicate true only of rules without a content (or
    /// `Bash(*)`), as `whole_tool`.
    fn first_whole(&self, list: List, pred: impl Fn(&Loaded) -> bool) -> Option<usize> {
        self.first_among(list, |ix| ix.content_free(list).to_vec(), pred)
    }

    /// `first`, for a predicate true only of Bash rules whose content is
    /// `content`.
    fn first_content(
        &self,
        list: List,
        content: &str,
        pred: impl Fn(&Loaded) -> bool,
    ) -> Option<usize> {
        self.first_among(list, |ix| ix.with_content(list, content).to_vec(), pred)
    }

    /// `first`, for a predicate true only of Bash rules whose exact
    /// literal is one of `texts`.
    fn first_exact(
        &self,
        list: List,
        texts: &[String],
        pred: impl Fn(&Loaded) -> bool,
    ) -> Option<usize> {
        self.first_among(list, |ix| ix.exact(list, texts), pred)
    }

    /// Decides one call.
    pub fn decide(&self, tool: &str, input: &serde_json::Value) -> Outcome {
        // A whole-tool deny removes the tool; a whole-tool ask asks.
        if let Some(i) = self.first_whole(List::Deny, |r| whole_tool(r, tool)) {
            return outcome(Decision::Deny, Why::ToolRemoved(i));
        }
        let specific = match tool {
            // Not offered in a 2.1.332 session (observed: "No such tool
            // available: Glob. Glob is not available in this session — find
            // files with `find` via the Bash tool instead.").
            "Glob" | "Grep" => return outcome(Decision::Deny, Why::Unavailable),
            // Observed on 2.1.332 (`observed-tools.json`): not offered in a
            // `-p` session either.
            t if UNAVAILABLE.contains(&t) => return outcome(Decision::Deny, Why::Unavailable),
            // A skill is loaded without asking, unless a deny rule names
            // it (observed: an ask or allow `Skill(name)` changes nothing).
            "Skill" => self.skill(input),
            // A subagent is launched without asking, but the tool refuses
            // an agent type a deny rule names (observed: its permission
            // check accepts the call, then "Agent type 'Explore' has been
            // denied by permission rule 'Agent(Explore)'"; `Task(…)` is
            // the same rule; an ask rule, `Agent(Exp:*)` and `Agent(E*)`
            // change nothing).
            "Agent" | "Task" => self.subagent(input),
            // Run without asking (observed, in default and dontAsk mode).
            t if NO_PERMISSION.contains(&t) => outcome(Decision::Allow, Why::NoPermission),
            // A background command: decided as a Bash command (observed:
            // `npm test` asks; `Bash(npm test)` allows it).
            "Bash" | "Monitor" => self.bash(input),
            "Read" | "LS" | "NotebookRead" => self.read(tool, input),
            "Edit" | "Write" | "MultiEdit" | "NotebookEdit" => self.edit(tool, input),
            "WebFetch" => self.fetch(input),
            _ => self.named(tool),
        };
        // A deny the tool's own check found wins over a whole-tool ask
        // (observed: ask `Read` and deny `Read(/docs/private.md)` deny it).
        if specific.decision != Decision::Deny
            && let Some(i) = self.first_whole(List::Ask, |r| whole_tool(r, tool))
        {
            return self.finish(outcome(Decision::Ask, Why::Rule(i)), tool);
        }
        self.finish(specific, tool)
    }

    /// The steps after the tool's own: a whole-tool allow or the mode turn
    /// what is left into an allow; `dontAsk` turns an ask into a deny.
    fn finish(&self, mut o: Outcome, tool: &str) -> Outcome {
        if let Why::Safety(_, lifted) = o.why {
            if lifted == Lifted::ByBypass && self.mode == Mode::BypassPermissions {
                o = Outcome {
                    decision: Decision::Allow,
                    why: Why::Mode(Mode::BypassPermissions),
                    parts: o.parts,
                };
            } else if lifted == Lifted::ByBypass
                && matches!(self.mode, Mode::Plan | Mode::Auto)
                && matches!(tool, "Edit" | "Write" | "MultiEdit" | "NotebookEdit")
            {
                // A safety check the classifier may approve goes to it in
                // plan and auto mode (observed: without the model it
                // refuses the edit of `.git/config`).
                o.why = Why::Classifier(self.mode);
            }
        } else if o.decision == Decision::Ask && !matches!(o.why, Why::Rule(_)) {
            if self.mode == Mode::BypassPermissions {
                o = Outcome {
                    decision: Decision::Allow,
                    why: Why::Mode(Mode::BypassPermissions),
                    parts: o.parts,
                };
            } else if let Some(i) = self.first_whole(List::Allow, |r| whole_tool(r, tool)) {
                o = Outcome {
                    decision: Decision::Allow,
                    why: Why::Rule(i),
                    parts: o.parts,
                };
            } else if matches!(self.mode, Mode::Plan | Mode::Auto)
                && matches!(tool, "Bash" | "WebFetch")
            {
                o.why = Why::Classifier(self.mode);
            }
        }
        if o.decision == Decision::Ask && self.mode == Mode::DontAsk {
            o = Outcome {
                decision: Decision::Deny,
                why: Why::DontAsk(Box::new(o.why)),
                parts: o.parts,
            };
        }
        o
    }

    fn in_working_dirs(&self, p: &Path) -> bool {
        paths::inside(p, &self.working_dirs)
    }

    fn abs(&self, p: &str) -> PathBuf {
        paths::absolute(p, &self.cwd, &self.home)
    }

    /// A path rule of `tools` in `list` matching `path`.
    fn path_rule(&self, list: List, tools: &[&str], path: &Path) -> Option<usize> {
        self.first(list, |r| {
            tools.contains(&r.tool.as_str())
                && r.content
                    .as_deref()
                    .is_some_and(|c| paths::anchor(c, &r.root, &self.cwd, &self.home).matches(path))
        })
    }

    /// A Read deny (whole-tool or matching) for `path`.
    fn read_denied(&self, path: &Path) -> Option<usize> {
        self.first(List::Deny, |r| {
            r.tool == "Read"
                && match r.content.as_deref() {
                    None => true,
                    Some(c) => paths::anchor(c, &r.root, &self.cwd, &self.home).matches(path),
                }
        })
    }

    /// A Read deny with a path matching a file a read-only command reads.
    fn read_denied_by_command(&self, c: &bash::Simple) -> Option<usize> {
        let ReadOnlyAnswer::Yes { paths: read } =
            bash::read_only_text(&c.text, strip_wrappers(&c.words))
        else {
            return None;
        };
        read.iter()
            .find_map(|p| self.path_rule(List::Deny, &["Read"], &self.abs(p)))
    }

    fn read(&self, tool: &str, input: &serde_json::Value) -> Outcome {
        let raw = input["file_path"]
            .as_str()
            .or_else(|| input["notebook_path"].as_str())
            .or_else(|| input["path"].as_str());
        let path = match raw {
            Some(p) => self.abs(p),
            None if tool != "Read" => self.cwd.clone(),
            None => return outcome(Decision::Ask, Why::NoRule),
        };
        if let Some(i) = self.path_rule(List::Deny, &["Read"], &path) {
            return outcome(Decision::Deny, Why::Rule(i));
        }
        if let Some(i) = self.path_rule(List::Ask, &["Read"], &path) {
            return outcome(Decision::Ask, Why::Rule(i));
        }
        // A spelling Windows reads otherwise (a segment ending in a blank
        // or a dot, `~1`) asks (observed: `Read "sub/ a /x"` asks).
        if paths::sensitive_write(&path, &[]) == Some("suspicious Windows path pattern") {
            return outcome(
                Decision::Ask,
                Why::Safety(
                    "a path Windows reads otherwise (`~1`, a trailing dot or blank, `...`) asks whatever allows it",
                    Lifted::ByBypass,
                ),
            );
        }
        if self.in_working_dirs(&path) {
            return outcome(Decision::Allow, Why::Mode(self.mode));
        }
        if let Some(i) = self.path_rule(List::Allow, &["Read", "Edit"], &path) {
            return outcome(Decision::Allow, Why::Rule(i));
        }
        outcome(Decision::Ask, Why::OutsideWorkingDirectories(path))
    }

    fn edit(&self, _tool: &str, input: &serde_json::Value) -> Outcome {
        let Some(raw) = input["file_path"]
            .as_str()
            .or_else(|| input["notebook_path"].as_str())
        else {
            return outcome(Decision::Ask, Why::NoRule);
        };
        let path = self.abs(raw);
        if let Some(i) = self.path_rule(List::Deny, &["Edit"], &path) {
            return outcome(Decision::Deny, Why::Rule(i));
        }
        if let Some(i) = self.read_denied(&path) {
            return outcome(Decision::Deny, Why::Rule(i));
        }
        if let Some(i) = self.path_rule(List::Ask, &["Edit"], &path) {
            return outcome(Decision::Ask, Why::Rule(i));
        }
        if let Some(what) = paths::sensitive_write(&path, &self.working_dirs) {
            let why = if what == "sensitive file" {
                "an edit of a sensitive file (`.git/`, `.claude/`, `.vscode/`, `.bashrc`, `.npmrc`, `.mcp.json`, …) asks whatever allows it"
            } else {
                "a path Windows reads otherwise (`~1`, a trailing dot or blank, `...`) asks whatever allows it"
            };
            return outcome(Decision::Ask, Why::Safety(why, Lifted::ByBypass));
        }
        let inside = self.in_working_dirs(&path);
        if inside && self.mode == Mode::AcceptEdits {
            return outcome(Decision::Allow, Why::Mode(Mode::AcceptEdits));
        }
        if let Some(i) = self.path_rule(List::Allow, &["Edit"], &path) {
            return outcome(Decision::Allow, Why::Rule(i));
        }
        if inside {
            outcome(Decision::Ask, Why::NoRule)
        } else {
            outcome(Decision::Ask, Why::OutsideWorkingDirectories(path))
        }
    }

    fn fetch(&self, input: &serde_json::Value) -> Outcome {
        let host = input["url"].as_str().and_then(host_of).unwrap_or_default();
        let rule_for = |list| {
            self.first(list, |r| {
                r.tool == "WebFetch"
                    && r.content
                        .as_deref()
                        .and_then(|c| c.strip_prefix("domain:"))
                        .is_some_and(|d| domain_matches(d, &host))
            })
        };
        if let Some(i) = rule_for(List::Deny) {
            return outcome(Decision::Deny, Why::Rule(i));
        }
        if let Some(i) = rule_for(List::Ask) {
            return outcome(Decision::Ask, Why::Rule(i));
        }
        if let Some(i) = rule_for(List::Allow) {
            return outcome(Decision::Allow, Why::Rule(i));
        }
        outcome(Decision::Ask, Why::NoRule)
    }

    /// MCP tools and every other tool: rules by name only.
    fn skill(&self, input: &serde_json::Value) -> Outcome {
        let name = super::skill::call_name(input["skill"].as_str().unwrap_or_default());
        self.free_unless_denied(|r| {
            r.tool == "Skill"
                && r.content
                    .as_deref()
                    .is_some_and(|c| super::skill::denies(c, name))
        })
    }

    fn subagent(&self, input: &serde_json::Value) -> Outcome {
        let kind = input["subagent_type"].as_str().unwrap_or_default();
        self.free_unless_denied(|r| {
            matches!(r.tool.as_str(), "Agent" | "Task") && r.content.as_deref() == Some(kind)
        })
    }

    /// A call run without asking, unless a deny rule `names` it.
    fn free_unless_denied(&self, names: impl Fn(&Loaded) -> bool) -> Outcome {
        match self.first(List::Deny, names) {
            Some(i) => outcome(Decision::Deny, Why::Rule(i)),
            None => outcome(Decision::Allow, Why::NoPermission),
        }
    }

    fn named(&self, tool: &str) -> Outcome {
        if let Some(i) = self.first_whole(List::Allow, |r| whole_tool(r, tool)) {
            return outcome(Decision::Allow, Why::Rule(i));
        }
        outcome(Decision::Ask, Why::NoRule)
    }

    fn bash(&self, input: &serde_json::Value) -> Outcome {
        let command = input["command"].as_str().unwrap_or_default();
        let parsed = bash::parse(command);
        let o = self.bash_line(command, &parsed);
        // An assignment in front of a shell keyword (`NODE_ENV=test done`)
        // asks, and not even bypass mode lifts it (observed on 2.1.332:
        // `X=1 fi`, `X=1 do`, `ls && X=1 done` ask in bypassPermissions;
        // `X=1 {`, `X=1 time`, `X=1 [[` and a bare `done` run).
        if o.decision != Decision::Deny && parsed.keyword_after_assignment {
            return Outcome {
                decision: Decision::Ask,
                why: Why::Safety(
                    "a variable assignment in front of a shell keyword can't be checked",
                    Lifted::Never,
                ),
                parts: o.parts,
            };
        }
        self.variables_set(command, &parsed, o, self.first_command)
    }

    /// What the CLI decides for a Bash call as the session's first command
    /// when that differs from what it decides later (a line that sets a
    /// variable), with the whole-tool and mode steps applied.
    pub fn as_first_command(&self, input: &serde_json::Value) -> Option<Outcome> {
        if self.first_command {
            return None;
        }
        let command = input["command"].as_str().unwrap_or_default();
        let parsed = bash::parse(command);
        if parsed.assigned.is_empty() {
            return None;
        }
        let later = self.decide("Bash", input);
        let o = self.bash_line(command, &parsed);
        let first = self.finish(self.variables_set(command, &parsed, o, true), "Bash");
        (first.decision != later.decision).then_some(first)
    }

    /// A line the rules allow that sets a variable for the rest of it (`X=1;
    /// ls`, `for f in a b; do …`) asks when the variable may be one the
    /// shell already has: the CLI compares the names with the shell's
    /// environment, which it learns when the session's first Bash command
    /// runs — before that every name but the harmless ones counts
    /// (observed: `for f in a b; do echo x; done` asks as the first
    /// command and runs later; `PWD` and `OLDPWD` always count). A rule
    /// naming the whole line exactly, or a whole-tool allow, lets it run.
    fn variables_set(
        &self,
        command: &str,
        parsed: &bash::Parsed,
        o: Outcome,
        first_command: bool,
    ) -> Outcome {
        if o.decision != Decision::Allow || parsed.assigned.is_empty() {
            return o;
        }
        let whole = normalise_blanks(command);
        if let Why::Rule(i) = o.why
            && self.rules[i].content.as_deref() == Some(whole.as_str())
        {
            return o;
        }
        let counts = |name: &str| {
            matches!(name, "PWD" | "OLDPWD")
                || (!bash::SAFE_ENV.contains(&name)
                    && (first_command
                        || SHELL_ENV.contains(&name)
                        || self.shell_env.iter().any(|n| n == name)))
        };
        if !parsed.assigned.iter().any(|n| counts(n)) {
            return o;
        }
        Outcome {
            decision: Decision::Ask,
            why: Why::Shell(if first_command {
                "A variable set in this command can't be checked before it runs (until the session's first Bash command has run, Claude Code does not know the shell's variables)"
            } else {
                "A variable set in this command can't be checked before it runs (the shell already has it)"
            }),
            parts: o.parts,
        }
    }

    fn bash_line(&self, command: &str, parsed: &bash::Parsed) -> Outcome {
        let variants: Vec<Vec<String>> = parsed.commands.iter().map(match_texts).collect();
        // Deny and ask rules also see the command behind `sudo`, `env`,
        // `exec` and an absolute path (observed: `sudo -u root rm x`, `env
        // -i rm x`, `/bin/rm x` are denied by `Bash(rm:*)`, `sudo npm run
        // test` is asked by `Bash(npm run test:*)`; allow rules do not see
        // through them).
        let deny_variants: Vec<Vec<String>> = parsed
            .commands
            .iter()
            .zip(&variants)
            .map(|(c, v)| {
                let mut v = v.clone();
                let stripped = strip_for_deny(&c.words);
                if !stripped.is_empty() {
                    let t = stripped.join(" ");
                    if !v.contains(&t) {
                        v.push(t);
                    }
                }
                // Deny and ask rules see the command without its unquoted
                // variable words after the first (observed: `git $EMPTY
                // push`, `git ${X} push`, `git $HOME push` are denied by
                // `Bash(git push:*)`; `git "$EMPTY" push` and `$EMPTY rm
                // x` ask).
                let behind_wrappers = (!stripped.is_empty() && !c.text.contains(['"', '\'', '\\']))
                    .then(|| without_variable_words(&stripped.join(" ")))
                    .flatten();
                for t in [without_variable_words(&c.text), behind_wrappers]
                    .into_iter()
                    .flatten()
                {
                    if !v.contains(&t) {
                        v.push(t);
                    }
                }
                v
            })
            .collect();
        // A `:*` inside a rule (`Bash(git push :* )`) is a wildcard with a
        // literal `:` for deny and ask rules (observed: it denies `git
        // push :x`); an allow rule so written matched nothing tried.
        let matches_any = |r: &Loaded, texts: &[String]| {
            r.tool == "Bash"
                && !matches!(r.flaw, Some(Flaw::SpacedToolName))
                && !(r.flaw == Some(Flaw::ColonStarInside) && r.list == List::Allow)
                && r.content
                    .as_deref()
                    .is_some_and(|c| texts.iter().any(|t| rule_matches(c, t, r.list)))
        };
        let whole = normalise_blanks(command);
        // The whole command line as one exact rule (`Bash(a && b)`) first
        // (a wildcard rule is matched per simple command: deny `Bash(git:*)`
        // does not deny `git status && ls` as a whole).
        for list in [List::Deny, List::Ask] {
            if let Some(i) = self.first_content(list, &whole, |r| {
                r.tool == "Bash"
                    && r.flaw.is_none()
                    && r.content
                        .as_deref()
                        .is_some_and(|c| !c.contains('*') && c == whole)
            }) {
                let d = if list == List::Deny {
                    Decision::Deny
                } else {
                    Decision::Ask
                };
                return outcome(d, Why::Rule(i));
            }
        }
        // Each simple command: a deny or ask rule naming exactly this
        // command (`Bash(git status)`, or `Bash(npm run test:*)` for `npm
        // run test`) decides it first; then any deny rule, a Read deny on a
        // file a read-only command reads, any ask rule. Observed: ask
        // `Bash(git status)` over deny `Bash(git:*)` asks for `git status`
        // (and `git status && ls`); ask `Bash(npm run test:*)` over deny
        // `Bash(npm run test*)` asks for `npm run test` but denies `npm run
        // test --watch`; an exact allow never goes first.
        let exactly = |r: &Loaded, texts: &[String]| {
            r.tool == "Bash"
                && r.flaw.is_none()
                && crate::formats::claude::model::shape::exact_literal(r.content.as_deref())
                    .is_some_and(|literal| texts.iter().any(|t| t == literal))
        };
        // Not in a line with `cd` and `git` (observed: `cd sub && git
        // status` is denied by `Bash(git:*)` next to an exact ask `Bash(git
        // status)`, which `ls && git status` asks).
        let cd_and_git = parsed.commands.len() > 1
            && parsed
                .commands
                .iter()
                .any(|c| c.words.first().map(String::as_str) == Some("cd"))
            && parsed
                .commands
                .iter()
                .any(|c| strip_wrappers(&c.words).first().map(String::as_str) == Some("git"));
        let mut denied: Option<usize> = None;
        let mut asked: Option<usize> = None;
        for (c, deny_texts) in parsed.commands.iter().zip(&deny_variants) {
            let decided = if let Some(i) =
                self.first_exact(List::Deny, deny_texts, |r| exactly(r, deny_texts))
            {
                Some((Decision::Deny, i))
            } else if let Some(i) = self
                .first_exact(List::Ask, deny_texts, |r| exactly(r, deny_texts))
                .filter(|_| !cd_and_git)
            {
                Some((Decision::Ask, i))
            } else if let Some(i) =
                self.first_bash(List::Deny, deny_texts, |r| matches_any(r, deny_texts))
            {
                Some((Decision::Deny, i))
            } else if let Some(i) = self.read_denied_by_command(c) {
                // Read deny rules with a path reach the files a read-only
                // command reads (observed: `cat .env` is denied by
                // `Read(./.env)`, `rm -rf .env` is not, and a whole-tool
                // `Read` deny does not deny `cat a.txt`).
                Some((Decision::Deny, i))
            } else {
                self.first_bash(List::Ask, deny_texts, |r| matches_any(r, deny_texts))
                    .map(|i| (Decision::Ask, i))
            };
            match decided {
                Some((Decision::Deny, i)) => {
                    denied.get_or_insert(i);
                }
                Some((_, i)) => {
                    asked.get_or_insert(i);
                }
                None => {}
            }
        }
        if let Some(i) = denied {
            return outcome(Decision::Deny, Why::Rule(i));
        }
        if let Some(i) = asked {
            return outcome(Decision::Ask, Why::Rule(i));
        }
        // What the CLI cannot check before it runs asks whatever allows
        // the commands, unless a rule names the whole line exactly
        // (observed: allow `Bash(fi)` runs `fi`, a parse error otherwise).
        if let Some(why) = parsed.unchecked {
            if let Some(i) = self.first_content(List::Allow, &whole, |r| {
                r.tool == "Bash" && r.flaw.is_none() && r.content.as_deref() == Some(whole.as_str())
            }) {
                return outcome(Decision::Allow, Why::Rule(i));
            }
            return outcome(Decision::Ask, Why::Shell(why));
        }
        // A rule naming the whole line exactly allows it before the CLI's
        // own checks (observed: `Bash(eval echo hi)` runs `eval echo hi`,
        // `Bash(find . -name x -delete)` runs it, `Bash(while read dir)`
        // runs `while read dir`).
        let whole_rule = self.first_content(List::Allow, &whole, |r| {
            r.tool == "Bash" && r.content.as_deref().is_some_and(|c| c == whole)
        });
        // The CLI's own safety checks: they ask whatever allows the command
        // (observed, each with the CLI's reason).
        if whole_rule.is_none() {
            for c in &parsed.commands {
                if let Some(why) = self.safety_check(c, &matches_any) {
                    return outcome(Decision::Ask, why);
                }
            }
        }
        // (Not a line run in the background: observed, `Bash(FOO=1 ls &)`
        // does not run `FOO=1 ls &`.)
        if let Some(i) = whole_rule
            && !parsed.background
            && (parsed.commands.len() > 1
                || parsed.commands.first().is_some_and(|c| c.text != whole))
        {
            return outcome(Decision::Allow, Why::Rule(i));
        }
        if parsed.complex {
            return outcome(
                Decision::Ask,
                Why::Shell("a subshell, brace group or here-document"),
            );
        }
        if parsed.substitution {
            return outcome(Decision::Ask, Why::Shell("a command substitution"));
        }
        if parsed.background {
            // Commands the CLI would run as read-only: a whole-tool allow
            // does not lift it (observed: `git status &`, `ls &`,
            // `timeout 5 ls &` ask next to `Bash`; `rm -r -f build &`,
            // `nice ls &` are allowed by it).
            // A command with an assignment in front is not one it runs as
            // read-only (observed: `FOO=1 ls &` runs next to `Bash(*)`,
            // `NODE_ENV=test ls &` asks).
            // The same for commands a rule allows (observed: `rm -r -f build
            // &` asks next to `Bash(*)` and `Bash(rm:*)`, `env FOO=1 rm -r
            // -f build &` next to `Bash(*)` and `Bash(env:*)`).
            let read_only = parsed.commands.iter().all(|c| {
                let texts = allow_texts(c);
                self.first_bash(List::Allow, &texts, |r| {
                    !whole_tool(r, "Bash") && matches_any(r, &texts)
                })
                .is_some()
                    || (bash::harmless_env(c)
                        && (c.words.first().is_some_and(|w| w == "sleep")
                            || matches!(
                                bash::read_only_text(&c.text, strip_builtin(&c.words)),
                                ReadOnlyAnswer::Yes { .. }
                            )))
            });
            let why = "a command run in the background (`&`) defers execution past approval time";
            return outcome(
                Decision::Ask,
                if read_only {
                    Why::Safety(why, Lifted::ByBypass)
                } else {
                    Why::Shell(why)
                },
            );
        }
        // Nothing to run (a comment, an empty loop): it runs (observed).
        if parsed.commands.is_empty() {
            return outcome(Decision::Allow, Why::ReadOnly);
        }
        // `cd` and `git` in one command line ask, whatever allows them
        // (observed: `cd sub && git push` asks next to `Bash(git push:*)`;
        // `cd sub && ls` does not).
        let first_word = |c: &bash::Simple| c.words.first().map(String::as_str) == Some("cd");
        if cd_and_git {
            return outcome(Decision::Ask, Why::Shell("`cd` with `git` in one command"));
        }
        // `cd` with a command that changes files, in either order, asks too
        // (observed: `cd sub && rm x` in acceptEdits, `mkdir -p build && cd
        // build` next to `Bash(mkdir:*)`).
        if parsed.commands.len() > 1
            && parsed.commands.iter().any(first_word)
            && parsed
                .commands
                .iter()
                .any(|c| is_edit_command(strip_wrappers(&c.words)))
        {
            return outcome(
                Decision::Ask,
                Why::Shell("`cd` with a command that changes files in one command"),
            );
        }
        // `cd` with an output redirection asks; so does `cd` with a read of
        // a relative path while a Read deny rule exists, the whole-tool
        // `Read` too (observed: `cd sub && find . -name x` and `cd sub &&
        // ls` ask next to `Read(./.env)` and next to `Read`; `cd sub &&
        // pwd` runs).
        if parsed.commands.len() > 1 && parsed.commands.iter().any(first_word) {
            if parsed.commands.iter().any(|c| !c.file_redirects.is_empty()) {
                return outcome(
                    Decision::Ask,
                    Why::Shell("`cd` with an output redirection in one command"),
                );
            }
            let read_deny = self
                .rules
                .iter()
                .any(|r| r.list == List::Deny && r.tool == "Read");
            let relative_read = parsed.commands.iter().any(|c| {
                let words = strip_wrappers(&c.words);
                words.first().is_some_and(|w| w != "cd")
                    && bash::path_args(words).is_some_and(|ps| {
                        ps.iter()
                            .any(|p| !p.starts_with('/') && !p.starts_with('~'))
                    })
            });
            if read_deny && relative_read {
                return outcome(
                    Decision::Ask,
                    Why::Shell("`cd` with a read of a relative path while a Read deny rule exists"),
                );
            }
        }
        let mut parts = Vec::new();
        let mut first_rule: Option<usize> = None;
        let mut all_read_only = true;
        let mut pending: Option<Why> = None;
        for c in &parsed.commands {
            let allow_texts = allow_texts(c);
            let rule = self.first_bash(List::Allow, &allow_texts, |r| matches_any(r, &allow_texts));
            let ro = bash::read_only_text(&c.text, strip_builtin(&c.words));
            // Wrappers are seen through, except what `xargs` runs (observed:
            // `nohup rmdir d` runs, `xargs rmdir d` asks), and except for
            // `touch` (observed: `touch x` runs; behind `nohup`, `timeout
            // 5`, `nice`, `time` or `command` it asks while `mkdir`, `rm`,
            // `rmdir`, `cp`, `mv` and `sed -i` run).
            let unwrapped = strip_wrappers(&c.words);
            let wrapped_touch =
                unwrapped.len() != c.words.len() && unwrapped.first().is_some_and(|w| w == "touch");
            let accept_edit = self.mode == Mode::AcceptEdits
                && c.words.first().is_none_or(|w| w != "xargs")
                // `FOO=1 rm x` asks (observed).
                && bash::harmless_env(c)
                && !wrapped_touch
                && is_edit_command(unwrapped);
            // The files it touches must be inside the working directories,
            // or, for a read-only command, allowed by a Read rule (observed:
            // `Read(//etc/**)` lets `ls /etc` run, even in dontAsk; an
            // `Edit(…)` allow does not let `mkdir` out).
            // A command the CLI counts as reading (its table: `find`,
            // `cat`, `grep`, …, behind the wrappers it strips — `nohup find
            // /x` reads) may reach a folder a Read rule allows.
            let reads = matches!(ro, ReadOnlyAnswer::Yes { .. })
                || strip_wrappers(&c.words)
                    .first()
                    .is_some_and(|w| bash::reads_files(w));
            let mut outside = None;
            for p in command_paths(&c.words) {
                let abs = self.abs(&p);
                let readable = self.in_working_dirs(&abs)
                    || (reads && self.path_rule(List::Allow, &["Read"], &abs).is_some());
                if !readable {
                    outside = Some(abs);
                    break;
                }
            }
            // A redirection writes its file: an `Edit` allow rule covering
            // it lets it run (observed: `cat > out.txt` under `Bash(cat *)`
            // and `Edit(//tmp/**)`).
            let edit_allowed = |p: &Path| self.path_rule(List::Allow, &["Edit"], p).is_some();
            let redirect_outside = c
                .file_redirects
                .iter()
                .map(|r| self.abs(r))
                .find(|p| !self.in_working_dirs(p) && !edit_allowed(p));
            let redirects_allowed = c.file_redirects.iter().all(|r| edit_allowed(&self.abs(r)));
            let decision = if let Some(p) = outside.clone().or(redirect_outside.clone()) {
                pending.get_or_insert(Why::OutsideWorkingDirectories(p));
                Decision::Ask
            } else if !c.file_redirects.is_empty()
                && self.mode != Mode::AcceptEdits
                && !redirects_allowed
            {
                pending.get_or_insert(Why::Shell("output redirected to a file"));
                Decision::Ask
            } else if let Some(i) = rule {
                first_rule.get_or_insert(i);
                all_read_only = false;
                Decision::Allow
            } else if matches!(ro, ReadOnlyAnswer::Yes { .. }) && bash::harmless_env(c) {
                Decision::Allow
            } else if c.words.is_empty() {
                // Assignments alone run (observed: `FOO=1`, `FOO=1; npm
                // test` under `Bash(npm test:*)`).
                Decision::Allow
            } else if accept_edit {
                all_read_only = false;
                Decision::Allow
            } else {
                pending.get_or_insert(Why::NoRule);
                Decision::Ask
            };
            let shown = if c.text.is_empty() {
                c.env_raw.join(" ")
            } else {
                c.text.clone()
            };
            parts.push((shown, decision));
        }
        let (decision, why) = match pending {
            Some(w) => (Decision::Ask, w),
            None => match first_rule {
                Some(i) => (Decision::Allow, Why::Rule(i)),
                None if all_read_only => (Decision::Allow, Why::ReadOnly),
                None => (Decision::Allow, Why::Mode(self.mode)),
            },
        };
        Outcome {
            decision,
            why,
            parts,
        }
    }
}

impl Policy {
    /// A check of the CLI that asks for a command whatever allows it
    /// (observed on 2.1.332, the reason in the CLI's words): `eval`,
    /// `exec` and `alias` evaluate their arguments as shell code; what
    /// `watch` and `ionice` start cannot be checked; `find` with `-exec`,
    /// `-execdir`, `-ok`, `-okdir`, `-delete`, `-fprint*` or `-fls` cannot be
    /// allowed by a prefix rule; a shell's `-c` script with an `rm` or
    /// `rmdir` command that a deny rule matches.
    fn safety_check(
        &self,
        c: &bash::Simple,
        matches_any: &dyn Fn(&Loaded, &[String]) -> bool,
    ) -> Option<Why> {
        let words = strip_wrappers(&c.words);
        let first = words.first().map(String::as_str)?;
        // A whole-tool allow (`Bash`) or bypass mode lifts these (observed).
        let shell = |why: &'static str| Some(Why::Shell(why));
        // `find` is also seen through `env` (observed: `env find build
        // -exec …` asks; `sudo find build -exec …` runs under `Bash(sudo:*)`).
        if c.words.first().is_some_and(|w| w == "env") {
            let behind = strip_for_deny(&c.words);
            if behind.first().is_some_and(|w| w == "find") && first != "find" {
                return find_action(&behind);
            }
        }
        match first {
            "eval" => return shell("'eval' evaluates arguments as shell code"),
            "exec" if words.len() > 1 => return shell("'exec' evaluates arguments as shell code"),
            "alias" => return shell("'alias' evaluates arguments as shell code"),
            "watch" => return shell("What 'watch' starts can't be checked before it runs"),
            "ionice" => return shell("What 'ionice' starts can't be checked before it runs"),
            "find" => {
                if let Some(why) = find_action(words).or_else(|| find_glob(&c.text, words)) {
                    return Some(why);
                }
            }
            _ => {}
        }
        // `find` fed arguments by `xargs` may get `-exec` or `-delete` from
        // its input (observed: `xargs find` asks under `Bash(find:*)`).
        // (Only `xargs find`: `xargs -0 find` runs.) The same for `jq`, and
        // `awk` without a program (the CLI's list). A bare `env` in between
        // is seen through (observed: `xargs env find build` asks under
        // `Bash(xargs:*)`, `xargs env ls` runs).
        if let Some(x0) = c.words.iter().position(|w| w == "xargs")
            && let x = x0 + c.words[x0 + 1..].iter().take_while(|w| *w == "env").count()
            && let Some(run) = c.words.get(x + 1)
        {
            match run.as_str() {
                "find" => {
                    return Some(Why::Shell(
                        "What xargs adds to find can't be checked before it runs",
                    ));
                }
                "jq" => {
                    return Some(Why::Shell(
                        "What xargs adds to jq can't be checked before it runs",
                    ));
                }
                "awk" | "gawk" | "mawk" | "nawk"
                    if !c.words[x + 2..]
                        .iter()
                        .any(|w| w == "-" || !w.starts_with('-')) =>
                {
                    return Some(Why::Shell(
                        "The program xargs gives awk can't be checked before it runs",
                    ));
                }
                _ => {}
            }
        }
        // `jq` that can run commands or read other files asks (the CLI's
        // checks).
        if first == "jq" {
            for w in &words[1..] {
                if w.contains("system(") || w.contains("system (") {
                    return Some(Why::Shell(
                        "jq command contains system() function which executes arbitrary commands",
                    ));
                }
                if w.split(|c: char| !c.is_alphanumeric())
                    .any(|t| t == "include" || t == "import")
                {
                    return Some(Why::Shell(
                        "jq command contains include/import — modules can load arbitrary .jq files and call env or other builtins",
                    ));
                }
            }
            let dangerous_flag = words[1..].iter().any(|w| {
                let short = w.strip_prefix('-').is_some_and(|r| {
                    !r.starts_with('-')
                        && r.chars()
                            .take_while(|c| c.is_ascii_alphabetic())
                            .any(|c| c == 'f' || c == 'L')
                });
                let long = ["--from-file", "--rawfile", "--slurpfile", "--library-path"]
                    .iter()
                    .any(|f| w == f || w.starts_with(&format!("{f}=")));
                short || long
            });
            if dangerous_flag {
                return Some(Why::Shell(
                    "jq command contains dangerous flags that could execute code or read arbitrary files",
                ));
            }
        }
        // What `xargs` runs is not looked into (observed: `xargs bash -lc
        // 'rm -rf build'` runs under `Bash(xargs:*)`).
        if c.words.iter().take(4).any(|w| w == "xargs") {
            return None;
        }
        let script = shell_script(words)?;
        let inner = bash::parse(script);
        for ic in &inner.commands {
            let stripped = strip_for_deny(&ic.words);
            if !matches!(stripped.first().map(String::as_str), Some("rm" | "rmdir")) {
                continue;
            }
            let mut texts = match_texts(ic);
            texts.push(stripped.join(" "));
            if self
                .first_bash(List::Deny, &texts, |r| matches_any(r, &texts))
                .is_some()
            {
                // Not even bypass mode lifts it (observed).
                return Some(Why::Safety(
                    "A permission rule denies a command in this shell -c script",
                    Lifted::Never,
                ));
            }
        }
        None
    }
}

/// `find` with an action that runs commands or writes files: no prefix
/// rule allows it (observed, in the CLI's words).
fn find_action(words: &[String]) -> Option<Why> {
    const ACTIONS: &[&str] = &[
        "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls",
    ];
    words[1..]
        .iter()
        .any(|w| ACTIONS.contains(&w.as_str()))
        .then_some(Why::Shell(
            "find with an action that executes commands or modifies files (`-exec`, `-delete`, …) — cannot be auto-allowed by a Bash(find:*) prefix rule",
        ))
}

/// `find` whose text or arguments may expand to more words: an unquoted
/// glob anywhere, or glob characters in a path argument (quoted too; an
/// option's value — `-name '*.ts'` — is not looked at). The CLI's checks,
/// in its words (observed: `find a[b] -type f` and `find 'a[b]' -type f`
/// ask under `Bash(find:*)`; `find . -name '*.ts'` runs).
fn find_glob(text: &str, words: &[String]) -> Option<Why> {
    if bash::expansion(text) == bash::Expansion::Glob {
        return Some(Why::Shell(
            "find contains unquoted glob characters — could glob-expand to a dangerous action before find runs",
        ));
    }
    // Options that take a value.
    const VALUED: &[&str] = &[
        "-name",
        "-iname",
        "-path",
        "-ipath",
        "-lname",
        "-ilname",
        "-regex",
        "-iregex",
        "-wholename",
        "-iwholename",
        "-samefile",
        "-newer",
        "-anewer",
        "-cnewer",
        "-mnewer",
        "-perm",
        "-user",
        "-group",
        "-uid",
        "-gid",
        "-size",
        "-type",
        "-xtype",
        "-fstype",
        "-inum",
        "-links",
        "-used",
        "-context",
        "-amin",
        "-cmin",
        "-mmin",
        "-atime",
        "-ctime",
        "-mtime",
        "-mindepth",
        "-maxdepth",
        "-printf",
        "-regextype",
        "-D",
        "-f",
        "-flags",
        "-Bnewer",
        "-Btime",
        "-Bmin",
        "-files0-from",
        "-xattrname",
    ];
    let newer_xy = |w: &str| {
        w.strip_prefix("-newer").is_some_and(|r| {
            let b = r.as_bytes();
            b.len() == 2 && b"aBcm".contains(&b[0]) && b"aBcmt".contains(&b[1])
        })
    };
    let mut i = 1;
    while i < words.len() {
        let w = words[i].as_str();
        if VALUED.contains(&w) || newer_xy(w) {
            i += 2;
            continue;
        }
        if w.contains(['[', ']', '*', '?']) {
            return Some(Why::Shell(
                "a find argument contains glob characters — could glob-expand to a dangerous action",
            ));
        }
        i += 1;
    }
    None
}

/// The script of `bash -c '…'` (`sh`, `zsh`, `dash`, `ksh`; `-lc` and
/// other flag groups with `c`).
fn shell_script(words: &[String]) -> Option<&str> {
    let first = words.first()?.rsplit('/').next()?;
    if !matches!(first, "bash" | "sh" | "zsh" | "dash" | "ksh") {
        return None;
    }
    let mut it = words[1..].iter();
    while let Some(w) = it.next() {
        if let Some(flags) = w.strip_prefix('-')
            && !flags.starts_with('-')
            && !flags.is_empty()
        {
            if flags.contains('c') {
                return it.next().map(String::as_str);
            }
            continue;
        }
        return None;
    }
    None
}

/// The command behind every wrapper a deny or ask rule sees through
/// (observed on 2.1.332): `sudo` (with its options), `env` (with its
/// options and assignments), `exec` and an absolute path to the program,
/// and between them the wrappers of [`strip_wrappers`] — except that
/// `sudo` and `env` are seen through in front or behind the other wrappers
/// except a bare `nice` and `stdbuf`, and what `xargs` runs is not taken
/// apart. `sudo nice rm`, `nice -n 5 sudo rm`, `timeout 5 sudo rm`,
/// `command env rm` are `rm`; `nice sudo rm`, `stdbuf -o0 env rm` and
/// `xargs sudo rm` are not.
/// A command's text without its unquoted `$NAME` / `${NAME}` words after
/// the first word; `None` when there is none, or the text quotes anything.
fn without_variable_words(text: &str) -> Option<String> {
    if text.contains(['"', '\'', '\\']) {
        return None;
    }
    let is_var = |w: &str| {
        let name = w
            .strip_prefix("${")
            .and_then(|r| r.strip_suffix('}'))
            .or_else(|| w.strip_prefix('$'));
        name.is_some_and(|n| {
            n.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
    };
    let words: Vec<&str> = text.split(' ').collect();
    if words.len() < 2 || !words[1..].iter().any(|w| is_var(w)) || is_var(words[0]) {
        return None;
    }
    let kept: Vec<&str> = std::iter::once(words[0])
        .chain(words[1..].iter().copied().filter(|w| !is_var(w)))
        .collect();
    Some(kept.join(" "))
}

fn strip_for_deny(words: &[String]) -> Vec<String> {
    let mut w: Vec<String> = words.to_vec();
    let mut front = true;
    // An absolute program path is its name only behind the wrappers the
    // CLI takes off one by one (`time`, `nohup`, `timeout N`, `nice -n N`,
    // `sudo`, `env`, `command`, `exec`): not behind a bare `nice`, `nice
    // -5` or `stdbuf` (observed: `nice /bin/git push` and `stdbuf -o0
    // /bin/git push` run next to deny `Bash(git:*)`, `nice -n 5 /bin/git
    // push` is denied).
    let mut program_path = true;
    for _ in 0..32 {
        let first = w.first().cloned().unwrap_or_default();
        // Deny and ask rules see past every assignment, after a wrapper
        // too (observed: `time FOO=1 git status` is denied by `Bash(git
        // status)`).
        if w.len() > 1 && bash::is_assignment(&first) {
            w.remove(0);
            continue;
        }
        let skip = match first.as_str() {
            "sudo" if front => {
                // Options (some take a value), then `--`.
                let mut i = 1;
                while i < w.len() && w[i].starts_with('-') {
                    if w[i] == "--" {
                        i += 1;
                        break;
                    }
                    let takes_value = matches!(
                        w[i].as_str(),
                        "-u" | "-g" | "-h" | "-p" | "-C" | "-D" | "-r" | "-t" | "-T" | "-U"
                    );
                    i += if takes_value { 2 } else { 1 };
                }
                i
            }
            "env" if front => {
                let mut i = 1;
                while i < w.len() {
                    let a = w[i].as_str();
                    if a == "--" {
                        i += 1;
                        break;
                    }
                    if matches!(
                        a,
                        "-u" | "--unset" | "-C" | "--chdir" | "-S" | "--split-string"
                    ) {
                        i += 2;
                    } else if a.starts_with('-') || (a.contains('=') && !a.starts_with('=')) {
                        i += 1;
                    } else {
                        break;
                    }
                }
                i
            }
            "exec" if front => {
                let mut i = 1;
                while i < w.len() && matches!(w[i].as_str(), "-c" | "-l") {
                    i += 1;
                }
                if w.get(i).is_some_and(|a| a == "-a") {
                    i += 2;
                }
                i
            }
            // An absolute program path, behind any wrapper too (observed:
            // `nohup /bin/git status` is denied by `Bash(git status)`).
            p if program_path && p.starts_with('/') && p.len() > 1 && !p.ends_with('/') => {
                if let Some(base) = p.rsplit('/').next() {
                    w[0] = base.to_string();
                }
                continue;
            }
            "nice" if w.len() > 1 && !w[1].starts_with('-') => {
                front = false;
                program_path = false;
                1
            }
            // What `xargs` runs is matched by the rules themselves
            // (`rule_matches`), never taken further apart.
            "xargs" => return w,
            _ => {
                // One wrapper at a time: after `nice -n N`, `timeout N`,
                // `time`, `nohup` and `command` the next may still be
                // `sudo`, `env` or `exec` (observed: `command env git
                // push`, `nohup sudo git push`, `time command env git
                // push` are denied by `Bash(git:*)`); after `stdbuf`, not
                // (observed: `stdbuf -o0 env git push` asks).
                if first == "stdbuf" {
                    front = false;
                }
                if first == "stdbuf" || (first == "nice" && w.get(1).is_some_and(|o| o != "-n")) {
                    program_path = false;
                }
                one_wrapper(&w)
            }
        };
        if skip == 0 || skip >= w.len() {
            break;
        }
        w.drain(..skip);
    }
    w
}

/// The words the wrapper in front takes — `time`, `nohup`, `command`,
/// `builtin`, `stdbuf` with its options, `nice` with its option, `timeout`
/// with its options and duration — leaving a command (0: none).
fn one_wrapper(w: &[String]) -> usize {
    match w.first().map(String::as_str) {
        // `command -p` runs the command with the default PATH (observed:
        // denied like the command); `command -v` only names it.
        Some("command") if w.len() > 2 && w[1] == "-p" => 2,
        Some("time" | "nohup" | "command" | "builtin") if w.len() > 1 => 1,
        Some("stdbuf") if w.len() > 1 => {
            let mut i = 1;
            while i < w.len() && w[i].starts_with('-') {
                i += if w[i].len() == 2 { 2 } else { 1 };
            }
            if i >= w.len() { 0 } else { i }
        }
        Some("nice") if w.len() > 1 => {
            if w[1] == "-n" && w.len() > 3 {
                3
            } else if w[1].starts_with('-') && w.len() > 2 {
                2
            } else {
                1
            }
        }
        Some("timeout") if w.len() > 2 => {
            let mut i = 1;
            while i < w.len() && w[i].starts_with('-') {
                i += 1;
            }
            if i + 1 >= w.len() { 0 } else { i + 1 }
        }
        _ => 0,
    }
}

/// `builtin cd sub` is `cd sub` to the read-only check (observed).
fn strip_builtin(words: &[String]) -> &[String] {
    match words.first().map(String::as_str) {
        Some("builtin") if words.len() > 1 => &words[1..],
        _ => words,
    }
}

/// The files a command names, when the CLI checks them.
fn command_paths(words: &[String]) -> Vec<String> {
    let words = strip_wrappers(words);
    bash::path_args(words).unwrap_or_default()
}

/// `mkdir`, `touch`, `rm`, `rmdir`, `cp`, `mv`, `sed -i`: allowed in
/// `acceptEdits` inside the working directories (observed).
fn is_edit_command(words: &[String]) -> bool {
    match words.first().map(String::as_str) {
        Some("mkdir" | "touch" | "rm" | "rmdir" | "cp" | "mv") => true,
        // `sed -n 1p x` reads (observed: `cd sub && sed -n 1p b.txt` runs).
        Some("sed") => words[1..].iter().any(|w| {
            w.starts_with("--in-place")
                || (w.starts_with('-') && !w.starts_with("--") && w.contains('i'))
        }),
        _ => false,
    }
}

/// `timeout N`, `time`, `nice`, `nohup`, `command`, `builtin` and
/// `stdbuf` in front of a command: rules see the command behind them
/// (observed for deny and allow rules). `xargs` is not stripped: a rule
/// matches what it runs itself (`rule_matches`).
fn strip_wrappers(words: &[String]) -> &[String] {
    let mut w = words;
    loop {
        match one_wrapper(w) {
            0 => return w,
            n => w = &w[n..],
        }
    }
}

/// The texts deny and ask rules are matched against: the command as
/// written (blanks collapsed) and its words unquoted, with and without the
/// wrappers in front.
fn match_texts(c: &bash::Simple) -> Vec<String> {
    let mut out = vec![c.text.clone(), c.words.join(" ")];
    let stripped = strip_wrappers(&c.words);
    if stripped.len() != c.words.len() {
        out.push(stripped.join(" "));
    }
    out.dedup();
    out
}

/// The texts allow rules are matched against: the command as written, its
/// command name unquoted (`'npm' run build` matches, `npm run 'build'`
/// does not: observed), wrappers stripped. Harmless leading assignments
/// are stripped first; from the first other one on, the text is matched as
/// written (`FOO=1 npm test` is not `npm test`: observed).
fn allow_texts(c: &bash::Simple) -> Vec<String> {
    let harmless = bash::harmless_prefix(c);
    if harmless < c.env_raw.len() {
        let mut t = c.env_raw[harmless..].join(" ");
        if !c.text.is_empty() {
            t.push(' ');
            t.push_str(&c.text);
        }
        return vec![t];
    }
    let raw: Vec<&str> = c.text.split(' ').collect();
    let mut out = Vec::new();
    if let Some(first) = c.words.first() {
        let mut t = first.clone();
        for w in raw.iter().skip(1) {
            t.push(' ');
            t.push_str(w);
        }
        out.push(t);
    }
    let stripped = strip_wrappers(&c.words);
    if stripped.len() != c.words.len() {
        let skip = c.words.len() - stripped.len();
        let mut t = stripped[0].clone();
        for w in raw.iter().skip(skip + 1) {
            t.push(' ');
            t.push_str(w);
        }
        out.push(t);
    }
    out
}

fn normalise_blanks(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Does a Bash rule of `list` match one simple command, `xargs` in front
/// included (Claude Code 2.1.332's matching): a `:*` prefix rule matches
/// `xargs <prefix> …`; a wildcard rule does for deny and ask, and for
/// allow only when it ends with `*`; an exact rule never does. `xargs`
/// with options in front (`xargs -0 rm`) is not its command.
pub fn rule_matches(content: &str, cmd: &str, list: List) -> bool {
    if bash_rule_matches(content, cmd) {
        return true;
    }
    let Some(rest) = cmd.strip_prefix("xargs ") else {
        return false;
    };
    if rest.starts_with('-') {
        return false;
    }
    let prefix_rule = content.ends_with(":*") && content.len() > 2;
    let wildcard = !prefix_rule && content.contains('*');
    if prefix_rule || (wildcard && (list != List::Allow || content.trim_end().ends_with('*'))) {
        return bash_rule_matches(content, rest);
    }
    false
}

/// Does a Bash rule's content match one simple command (observed):
/// `prefix:*` is the prefix alone or followed by a space; a `*` elsewhere
/// is a wildcard that also crosses spaces, and a trailing ` *` also takes
/// the bare command; anything else is matched exactly. A `*` before a
/// trailing `:*` is literal; a space before `:*` makes the `:` literal.
pub fn bash_rule_matches(content: &str, cmd: &str) -> bool {
    crate::formats::claude::model::shape::matches(
        &crate::formats::claude::model::shape::shape(Some(content), None),
        cmd,
    )
}

/// The host of a URL.
pub fn host_of(url: &str) -> Option<String> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = authority.rsplit('@').next()?;
    let host = if host.starts_with('[') {
        host.split(']').next().map(|h| format!("{h}]"))?
    } else {
        host.split(':').next()?.to_string()
    };
    Some(host.to_ascii_lowercase())
}

/// `domain:example.com` is that host exactly (observed: not its
/// subdomains); `*.example.com` is its subdomains.
fn domain_matches(domain: &str, host: &str) -> bool {
    let domain = domain.to_ascii_lowercase();
    // `domain:` with no host matches nothing (observed: `https:///x` asks).
    if domain.is_empty() {
        return false;
    }
    match domain.strip_prefix("*.") {
        Some(base) => host.ends_with(&format!(".{base}")),
        None => domain == host,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bash_content_as_observed() {
        let m = bash_rule_matches;
        assert!(m("npm run test:*", "npm run test"));
        assert!(m("npm run test:*", "npm run test --watch"));
        assert!(!m("npm run test:*", "npm run test:unit"));
        assert!(!m("npm run test:*", "npm run testing"));
        assert!(m("npm run test *", "npm run test"));
        assert!(m("npm run test *", "npm run test --watch"));
        assert!(!m("npm run test *", "npm run testing"));
        assert!(m("npm run test*", "npm run testing"));
        assert!(m("npm run test*", "npm run test:unit"));
        assert!(!m("sudo :*", "sudo ls"));
        assert!(!m("npm:* run", "npm run"));
        assert!(m("npm run x*:*", "npm run x*"));
        assert!(!m("npm run x*:*", "npm run xy"));
        assert!(m("*", "anything at all"));
        assert!(m("git * main", "git push origin main"));
    }

    #[test]
    fn hosts() {
        assert_eq!(
            host_of("https://Example.com:8080/x").as_deref(),
            Some("example.com")
        );
        assert_eq!(host_of("https://u@h.test/x").as_deref(), Some("h.test"));
        assert!(domain_matches("example.com", "example.com"));
        assert!(!domain_matches("example.com", "docs.example.com"));
        assert!(domain_matches("*.example.com", "docs.example.com"));
    }
}
