//! A Claude Code permission rule (`Tool` or `Tool(content)`) read as
//! Claude Code 2.1.332 reads it: which rules it skips and why (in its own
//! words), which it loads with a warning, and which load silently but can
//! never match. Every answer here was observed on the real CLI
//! (`tests/fixtures/claude/oracle/` holds the observations).

/// The list a rule is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum List {
    Allow,
    Ask,
    Deny,
}

impl List {
    pub fn key(self) -> &'static str {
        match self {
            List::Allow => "allow",
            List::Ask => "ask",
            List::Deny => "deny",
        }
    }

    pub fn from_key(k: &str) -> Option<List> {
        match k {
            "allow" => Some(List::Allow),
            "ask" => Some(List::Ask),
            "deny" => Some(List::Deny),
            _ => None,
        }
    }
}

/// The tool names the CLI knows (no "matches no known tool" warning; probe
/// r1), with `Task` and `KillShell`, the old names of `Agent` and
/// `TaskStop`. `MultiEdit`, `Cd`, `LS`,
/// `SlashCommand` and `NotebookRead` are warned about.
pub const TOOLS: &[&str] = &[
    "Agent",
    "Artifact",
    "AskUserQuestion",
    "Bash",
    "BashOutput",
    "CronCreate",
    "CronDelete",
    "CronList",
    "Edit",
    "EndConversation",
    "EnterPlanMode",
    "EnterWorktree",
    "ExitPlanMode",
    "ExitWorktree",
    "Glob",
    "Grep",
    "KillShell",
    "LSP",
    "ListAgents",
    "ListMcpResourcesTool",
    "Monitor",
    "NotebookEdit",
    "PowerShell",
    "PushNotification",
    "Read",
    "ReadMcpResourceTool",
    "RemoteTrigger",
    "ReportFindings",
    "ScheduleWakeup",
    "SendMessage",
    "SendUserFile",
    "ShareOnboardingGuide",
    "Skill",
    "Task",
    "TaskCreate",
    "TaskGet",
    "TaskList",
    "TaskOutput",
    "TaskStop",
    "TaskUpdate",
    "TodoWrite",
    "ToolSearch",
    "WaitForMcpServers",
    "WebFetch",
    "WebSearch",
    "Workflow",
    "Write",
];

/// A rule split into its tool and content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule<'a> {
    pub tool: &'a str,
    /// The text between the first `(` and the final `)`.
    pub content: Option<&'a str>,
}

/// Why the CLI skips a rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Skip {
    /// Not `Tool` or `Tool(content)` ending at the closing `)`.
    Malformed,
    EmptyParentheses,
    /// A tool name starting with a lower-case letter; the canonical name
    /// when one matches regardless of case.
    LowerCaseTool {
        canonical: Option<&'static str>,
    },
    /// `*` in the tool name of an allow rule (deny and ask accept it).
    WildcardAllow,
    /// `Bash(:*)`.
    EmptyPrefix,
    /// `WebFetch(example.com)`.
    WebFetchWithoutDomain,
    /// `mcp__server(…)` or `mcp__server__tool(…)`: MCP rules take no
    /// content (observed: skipped, the CLI naming the rules meant).
    McpParentheses,
}

/// What the CLI does with a rule that it loads but that cannot work as
/// written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Flaw {
    /// A tool name no tool has (with the closest known name).
    UnknownTool { suggestion: Option<&'static str> },
    /// Spaces around the tool name: the rule loads without a warning and
    /// matches nothing.
    SpacedToolName,
    /// `*` before a trailing `:*`: the `*` is literal (the CLI warns).
    StarWithColonStar,
    /// `:*` not at the end: the rule loads (a deny with a warning) and
    /// matched no command tried.
    ColonStarInside,
    /// An allow rule with a `*` among its first words and more words after
    /// it: the `*` also matches options inserted there (the CLI warns).
    WildcardBeforeRest,
    /// `Write(path)`: file checks read only `Edit(path)` rules (the CLI
    /// warns).
    WriteWithPath,
    /// An allow `Read(*)`: the same as the default (the CLI warns).
    ReadStar,
    /// An allow `Edit(*)`: edits only inside the working directories (the
    /// CLI warns: older versions read it as `Edit`).
    EditStar,
}

impl Flaw {
    /// The rule still matches what it says (only a warning).
    pub fn matches_as_written(&self) -> bool {
        matches!(
            self,
            Flaw::StarWithColonStar
                | Flaw::WildcardBeforeRest
                | Flaw::WriteWithPath
                | Flaw::ReadStar
                | Flaw::EditStar
        )
    }
}

/// How the CLI reads one rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reading<'a> {
    Skipped(Skip),
    Loaded(Rule<'a>, Option<Flaw>),
}

/// Splits a rule at the first `(`; the rule must then end at `)`.
pub fn split(rule: &str) -> Option<Rule<'_>> {
    match rule.find('(') {
        None => Some(Rule {
            tool: rule,
            content: None,
        }),
        Some(open) => {
            let inner = rule[open + 1..].strip_suffix(')')?;
            Some(Rule {
                tool: &rule[..open],
                content: Some(inner),
            })
        }
    }
}

/// Reads a rule of `list` as the CLI does.
pub fn read(rule: &str, list: List) -> Reading<'_> {
    let Some(mut r) = split(rule) else {
        return Reading::Skipped(Skip::Malformed);
    };
    // `Tool(*)` is the whole tool (the CLI lists it as `Tool`), except an
    // allow `Read(*)` or `Edit(*)`, which stay path rules (observed).
    if r.content == Some("*") && !(list == List::Allow && matches!(r.tool, "Read" | "Edit")) {
        r.content = None;
    }
    if r.content == Some("") {
        return Reading::Skipped(Skip::EmptyParentheses);
    }
    let mcp = r.tool.starts_with("mcp__");
    if mcp && split(rule).is_some_and(|r| r.content.is_some()) {
        return Reading::Skipped(Skip::McpParentheses);
    }
    if !mcp && r.tool.starts_with(|c: char| c.is_ascii_lowercase()) {
        let canonical = TOOLS
            .iter()
            .copied()
            .find(|t| t.eq_ignore_ascii_case(r.tool));
        return Reading::Skipped(Skip::LowerCaseTool { canonical });
    }
    if r.tool.contains('*') && list == List::Allow && !anchored_mcp_glob(r.tool) {
        return Reading::Skipped(Skip::WildcardAllow);
    }
    let content = r.content.unwrap_or("");
    if r.tool == "Bash" && content == ":*" {
        return Reading::Skipped(Skip::EmptyPrefix);
    }
    if r.tool == "WebFetch" && r.content.is_some() && !content.starts_with("domain:") {
        return Reading::Skipped(Skip::WebFetchWithoutDomain);
    }
    let flaw = if r.tool != r.tool.trim() {
        Some(Flaw::SpacedToolName)
    } else if !mcp && !r.tool.contains('*') && !TOOLS.contains(&r.tool) {
        Some(Flaw::UnknownTool {
            suggestion: closest_tool(r.tool),
        })
    } else if r.tool == "Bash" && content.strip_suffix(":*").is_some_and(|b| b.contains('*')) {
        Some(Flaw::StarWithColonStar)
    } else if r.tool == "Bash"
        && content
            .match_indices(":*")
            .any(|(i, _)| i + 2 != content.len())
    {
        Some(Flaw::ColonStarInside)
    } else if r.tool == "Write" && r.content.is_some() {
        Some(Flaw::WriteWithPath)
    } else if r.tool == "Read" && r.content == Some("*") && list == List::Allow {
        Some(Flaw::ReadStar)
    } else if r.tool == "Edit" && r.content == Some("*") && list == List::Allow {
        Some(Flaw::EditStar)
    } else if r.tool == "Bash" && list == List::Allow && wildcard_before_rest(content) {
        Some(Flaw::WildcardBeforeRest)
    } else {
        None
    };
    Reading::Loaded(r, flaw)
}

/// A `*` in one of the first three words with more words after it, while
/// the last word that is not an option has none (fitted to the CLI's
/// warnings on 431 wildcard Bash rules of the public corpus, all agreeing;
/// `tests/fixtures/claude/oracle/observed-corpus.json`).
fn wildcard_before_rest(content: &str) -> bool {
    if content.ends_with(":*") || !content.contains('*') {
        return false;
    }
    let words: Vec<&str> = content.split(' ').collect();
    let Some(first) = words.iter().position(|w| w.contains('*')) else {
        return false;
    };
    let last_positional = words.iter().rev().find(|w| !w.starts_with('-'));
    if words[0] == "git" {
        // After git's subcommand a `*` is fine (observed: `git commit * -m
        // x` is not warned about, `git -C * push` is).
        let mut i = 1;
        while i < words.len() && words[i].starts_with('-') && !words[i].contains('*') {
            i += if matches!(words[i], "-C" | "-c") {
                2
            } else {
                1
            };
        }
        if first > i {
            return false;
        }
    }
    first <= 2 && first + 1 < words.len() && last_positional.is_some_and(|w| !w.contains('*'))
}

/// The server and tool of an MCP tool name (`mcp__srv__echo` is `srv` and
/// `echo`; `mcp__srv` is `srv` alone).
pub fn mcp_parts(tool: &str) -> (&str, Option<&str>) {
    let rest = tool.strip_prefix("mcp__").unwrap_or(tool);
    match rest.split_once("__") {
        Some((server, t)) if !t.is_empty() => (server, Some(t)),
        Some((server, _)) => (server, None),
        None => (rest, None),
    }
}

/// `mcp__<server>__<glob>`: the only tool-name glob an allow rule may use.
fn anchored_mcp_glob(tool: &str) -> bool {
    let Some(rest) = tool.strip_prefix("mcp__") else {
        return false;
    };
    match rest.find("__") {
        Some(i) => !rest[..i].is_empty() && !rest[..i].contains('*'),
        None => false,
    }
}

/// The CLI's reason for skipping a rule (its text, for this rule).
pub fn skip_reason(skip: &Skip, rule: &str) -> String {
    let tool = split(rule).map_or(rule, |r| r.tool);
    match skip {
        Skip::Malformed => "Malformed Tool(content) rule. Rules take the form Tool or Tool(content) and must end at the closing \")\"; parentheses inside the content are literal".into(),
        Skip::EmptyParentheses => format!("Empty parentheses. Either specify a pattern or use just \"{tool}\" without parentheses"),
        // The CLI capitalises the first letter (`webfetch` → "Webfetch").
        Skip::LowerCaseTool { .. } => {
            format!("Tool names must start with uppercase. Use \"{}\"", capitalise(tool))
        }
        Skip::WildcardAllow => format!("Wildcard tool name \"{tool}\" is not supported in allow rules. An allow pattern must name the scope it widens — globs are permitted only in the tool position after a literal mcp__<server>__ prefix. Deny and ask rules accept wildcards anywhere"),
        Skip::EmptyPrefix => "Prefix cannot be empty before :*. Specify a command prefix before :*".into(),
        Skip::WebFetchWithoutDomain => "WebFetch permissions must use \"domain:\" prefix. Use \"domain:hostname\" format".into(),
        Skip::McpParentheses => {
            let (server, named_tool) = mcp_parts(tool);
            match named_tool {
                Some(t) if !t.contains('*') => format!(
                    "MCP rules do not support patterns in parentheses. Use \"{tool}\" without parentheses. For all tools of a server, use \"mcp__{server}__*\" for the server \"{server}\", or \"{tool}__*\" for a server named \"{server}__{t}\""
                ),
                _ => format!(
                    "MCP rules do not support patterns in parentheses. Use \"{tool}\" without parentheses, or use \"mcp__{server}__*\" for all tools"
                ),
            }
        }
    }
}

/// The CLI's own line about a rule it loads with a warning, if it has one.
pub fn flaw_warning(flaw: &Flaw, rule: &str, list: List) -> Option<String> {
    match flaw {
        // Printed for deny rules (probes q3, r1), not for allow rules (p1);
        // ask rules were not observed.
        Flaw::UnknownTool { .. } if list == List::Deny => Some(format!(
            "Permission deny rule \"{rule}\" matches no known tool — check for typos."
        )),
        Flaw::UnknownTool { .. } => None,
        Flaw::StarWithColonStar => Some(format!(
            "{rule} mixes * with the trailing :* prefix syntax, so it is matched as a literal prefix (the * is not expanded) and matches only commands containing a literal * at that position. Replace that * with the exact value you mean."
        )),
        // Printed for deny rules with two or more words before the `:*`
        // (`git push :* `; not `sudo :* `, nor allow rules: observed).
        Flaw::ColonStarInside
            if list == List::Deny
                && split(rule)
                    .and_then(|r| r.content)
                    .and_then(|c| c.split_once(":*"))
                    .is_some_and(|(before, _)| before.trim().contains(' ')) =>
        {
            Some(format!(
            "{rule} has a :* that is not at the end, so it is matched as a * wildcard (the : is literal), not as the trailing :* prefix syntax. It already matches as a * wildcard; moving :* to the end would make it a literal prefix and change which commands match."
            ))
        }
        Flaw::WildcardBeforeRest
            if split(rule)
                .and_then(|r| r.content)
                .is_some_and(|c| c.split(' ').next() == Some("git")) =>
        {
            Some(format!(
                "{rule} has a wildcard before the rest of the command, so it also matches any options inserted at that position and approves them without a prompt. For git, options such as -c and --exec-path can run arbitrary commands. Replace that * with the exact value you mean, or only use * after the subcommand (for example Bash(git status *))."
            ))
        }
        Flaw::WildcardBeforeRest => Some(format!(
            "{rule} has a wildcard before the rest of the command, so it also matches any options inserted at that position and approves them without a prompt. Replace that * with the exact value you mean, or only use * after the subcommand."
        )),
        Flaw::EditStar => Some(
            "Permission allow rule \"Edit(*)\" lets Edit run without asking only in the working directories. \"Edit\" alone allows every path. Older versions of Claude Code treat \"Edit(*)\" as \"Edit\", and this version will too if Anthropic turns this change off.".into(),
        ),
        Flaw::WriteWithPath => {
            let content = split(rule).and_then(|r| r.content).unwrap_or_default();
            Some(format!(
                "{rule} is not matched by file permission checks — only Edit(path) rules are. Use Edit({content}) instead (Edit rules cover all file-editing tools)."
            ))
        }
        Flaw::ReadStar => Some(
            "Permission allow rule \"Read(*)\" adds nothing to Read's default, which already runs without asking in the working directories. \"Read\" alone allows every path. Older versions of Claude Code treat \"Read(*)\" as \"Read\", and this version will too if Anthropic turns this change off.".into(),
        ),
        Flaw::SpacedToolName | Flaw::ColonStarInside => None,
    }
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// The known tool nearest to `name` (case-insensitive edit distance ≤ 2).
pub fn closest_tool(name: &str) -> Option<&'static str> {
    closest(name, TOOLS)
}

/// The candidate nearest to `name` within a small edit distance.
pub fn closest(name: &str, candidates: &[&'static str]) -> Option<&'static str> {
    let lower = name.trim().to_ascii_lowercase();
    candidates
        .iter()
        .map(|c| {
            (
                crate::text::edit_distance(&lower, &c.to_ascii_lowercase()),
                *c,
            )
        })
        .filter(|(d, c)| *d <= 2.min(c.len() / 3 + 1))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// What a loaded Bash rule matches, in words (observed on the CLI).
pub fn bash_meaning(content: Option<&str>) -> String {
    let Some(c) = content else {
        return "every Bash command".into();
    };
    if c == "*" {
        return "every Bash command (`Bash(*)` is the whole tool)".into();
    }
    if let Some(prefix) = c.strip_suffix(":*")
        && !prefix.contains('*')
    {
        return format!(
            "`{prefix}` alone or followed by a space and arguments (`{prefix} --flag`); not `{prefix}:x` or `{prefix}x`"
        );
    }
    if let Some(prefix) = c.strip_suffix(" *") {
        return format!("`{prefix}` alone or with arguments (`{prefix} --flag`); not `{prefix}x`");
    }
    if let Some(prefix) = c.strip_suffix('*') {
        return format!("every command starting with `{prefix}` (also `{prefix}x…`)");
    }
    format!("exactly `{c}`")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skipped(rule: &str, list: List) -> Option<String> {
        match read(rule, list) {
            Reading::Skipped(s) => Some(skip_reason(&s, rule)),
            Reading::Loaded(..) => None,
        }
    }

    /// The reasons the CLI printed for these rules (oracle probe p1, q2, q3,
    /// q8).
    #[test]
    fn skipped_rules_with_the_cli_reasons() {
        let malformed = "Malformed Tool(content) rule. Rules take the form Tool or Tool(content) and must end at the closing \")\"; parentheses inside the content are literal";
        for r in [
            "Bash(npm run build",
            "Bash(npm run test)*",
            "Read(./a.txt",
            "Bash(npm run fmt) ",
        ] {
            assert_eq!(skipped(r, List::Allow).as_deref(), Some(malformed), "{r}");
        }
        assert_eq!(
            skipped("bash(ls)", List::Allow).unwrap(),
            "Tool names must start with uppercase. Use \"Bash\""
        );
        assert_eq!(
            skipped("Bash()", List::Allow).unwrap(),
            "Empty parentheses. Either specify a pattern or use just \"Bash\" without parentheses"
        );
        assert_eq!(
            skipped("Bash(:*)", List::Allow).unwrap(),
            "Prefix cannot be empty before :*. Specify a command prefix before :*"
        );
        for r in ["B*", "*", "mcp__*"] {
            assert!(
                skipped(r, List::Allow)
                    .unwrap()
                    .starts_with(&format!("Wildcard tool name \"{r}\""))
            );
            assert_eq!(skipped(r, List::Deny), None);
        }
        assert_eq!(skipped("mcp__github__get_*", List::Allow), None);
        assert_eq!(
            skipped("WebFetch(evil.test)", List::Deny).unwrap(),
            "WebFetch permissions must use \"domain:\" prefix. Use \"domain:hostname\" format"
        );
    }

    /// Probe r2: the suggestion is the name with its first letter upper-cased.
    #[test]
    fn lower_case_suggestions_as_the_cli_makes_them() {
        for (rule, use_) in [
            ("foo(x)", "Foo"),
            ("webfetch(domain:x.y)", "Webfetch"),
            ("read", "Read"),
            ("notebookEdit(x)", "NotebookEdit"),
        ] {
            assert_eq!(
                skipped(rule, List::Deny).unwrap(),
                format!("Tool names must start with uppercase. Use \"{use_}\"")
            );
        }
        assert_eq!(
            read("webfetch(domain:x.y)", List::Deny),
            Reading::Skipped(Skip::LowerCaseTool {
                canonical: Some("WebFetch")
            })
        );
    }

    #[test]
    fn loaded_rules_and_their_flaws() {
        let flaw = |r| match read(r, List::Allow) {
            Reading::Loaded(_, f) => f,
            Reading::Skipped(s) => panic!("{r} skipped: {s:?}"),
        };
        assert_eq!(flaw("Bash(echo:*)"), None);
        assert_eq!(flaw("Bash(git log))"), None);
        assert_eq!(split("Bash(git log))").unwrap().content, Some("git log)"));
        assert_eq!(flaw("Write"), None);
        assert_eq!(flaw("mcp__srv"), None);
        assert_eq!(
            flaw("Bassh(ls)"),
            Some(Flaw::UnknownTool {
                suggestion: Some("Bash")
            })
        );
        assert!(matches!(flaw("BASH(x)"), Some(Flaw::UnknownTool { .. })));
        assert_eq!(flaw("Bash (git status)"), Some(Flaw::SpacedToolName));
        assert_eq!(flaw(" Bash(pwd)"), Some(Flaw::SpacedToolName));
        assert_eq!(flaw("Bash(npm run x:*:*)"), Some(Flaw::StarWithColonStar));
        assert_eq!(flaw("Bash(npm:* run)"), Some(Flaw::ColonStarInside));
        // Found by the fuzzer: a multibyte character before the end.
        assert_eq!(flaw("Bash(git push:é)"), None);
        assert_eq!(flaw("Bash(git é:*)"), None);
    }

    #[test]
    fn warnings_in_the_cli_words() {
        assert_eq!(
            flaw_warning(
                &Flaw::UnknownTool { suggestion: None },
                "Bassh(npm run build)",
                List::Deny
            )
            .unwrap(),
            "Permission deny rule \"Bassh(npm run build)\" matches no known tool — check for typos."
        );
    }
}
