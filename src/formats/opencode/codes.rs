//! OpenCode's diagnostic codes (`OC…`). Each has a page under
//! `docs/lints/opencode/<code>.md`.

/// The format id: the codes' namespace and docs folder.
pub const FORMAT: &str = "opencode";

crate::code_table! {
    unnecessary: [RuleNeverDecides, DuplicateKey, RedundantRule];
    safe_fix: [DuplicateKey, RedundantRule];
    InvalidJsonc = "OC001", "invalid-jsonc", Error, "The file is not valid JSON(C): OpenCode refuses to start (`Config file at … is not valid JSON(C)`).";
    ConfigInvalid = "OC002", "config-invalid", Error, "A permission value OpenCode's schema rejects (`Configuration is invalid at …`): OpenCode refuses to start, in every session this file is part of.";
    V2Permissions = "OC003", "v2-permissions", Error, "A V2 `permissions` array in a V1 config: OpenCode 1.x refuses to start.";
    UnknownKey = "OC004", "unknown-key", Warning, "A key OpenCode does not know is accepted without a word and does nothing (`permision`, `Bash`, `write`).";
    RuleNeverDecides = "OC005", "rule-never-decides", Warning, "A rule that can never decide: a later rule in the merged order (a catch-all, or a broader pattern) matches every call it matches.";
    PathRuleNeverMatches = "OC006", "path-rule-never-matches", Warning, "A `read`/`edit` rule with `~`, `$HOME` or an absolute path never matches: those permissions check paths relative to the worktree; files outside it go through `external_directory`.";
    BareCommand = "OC007", "bare-command", Warning, "A bash rule without a wildcard matches only that exact command line, not the command with arguments.";
    MapDropsCatchAll = "OC008", "map-drops-catch-all", Warning, "A map here replaces a lower file's one-action value for the same permission: that value's `*` rule is gone.";
    ToolHidden = "OC009", "tool-hidden", Warning, "The last rule for this tool is a `*` deny: OpenCode removes the tool from the agent, and the tool's other rules never apply.";
    LegacyTools = "OC010", "legacy-tools", Info, "`tools` switches are deprecated: each becomes a `*` rule under the permission of the same name.";
    AgentFileSkipped = "OC011", "agent-file-skipped", Error, "The agent file's frontmatter is not valid YAML: OpenCode loads the agent without any of it (no rules of its own), or skips the agent, without a word (an unquoted `*` key or a repeated key is the usual cause).";
    DuplicateKey = "OC012", "duplicate-key", Warning, "A repeated key: the last value counts, at the first key's position.";
    AsksHeadless = "OC013", "asks-headless", Hint, "A rule that can still ask: in a headless run (`opencode run`) nobody answers, and the call is rejected.";
    FileRefused = "OC014", "file-refused", Error, "Another file of the session makes OpenCode refuse to start, so none of this file's rules apply.";
    PrecedenceUnexamined = "OC017", "precedence-unexamined", Info, "The precedence analysis reached one of its bounds: the rules it names were not checked for never deciding or being redundant.";
    RedundantRule = "OC015", "redundant-rule", Hint, "A rule whose every call the earlier rules you wrote already decide the same way: removing it changes no decision.";
    UnresolvedReference = "OC016", "unresolved-reference", Info, "A `{env:…}` or `{file:…}` reference this check cannot resolve as the agent would — a variable it was not given, or a file outside the project and OpenCode's folders (never read) — and reads as empty.";
}
