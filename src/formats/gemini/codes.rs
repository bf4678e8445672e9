//! Gemini CLI's diagnostic codes (`GM…`). Each has a page under
//! `docs/lints/gemini/<code>.md`.

/// The format id: the codes' namespace and docs folder.
pub const FORMAT: &str = "gemini";

crate::code_table! {
    unnecessary: [RuleNeverDecides];
    safe_fix: [];
    PolicyFileDropped = "GM001", "policy-file-dropped", Error, "Gemini CLI drops this whole policy file (a TOML syntax error or one schema error anywhere, such as `priority = 1000` or an unknown `decision`): every rule in it, the valid ones included, does nothing.";
    PolicyFileNotLoaded = "GM002", "policy-file-not-loaded", Error, "Gemini CLI never reads this policy file: 0.61.0 never loads workspace policies (`<project>/.gemini/policies/`), and `policyPaths` / `--policy` replace `~/.gemini/policies/`. Its rules do nothing.";
    RuleDropped = "GM003", "rule-dropped", Error, "Gemini CLI drops this rule: its regex is invalid in JavaScript, or one the CLI calls unsafe (a quantified group holding a quantifier, or longer than 2048).";
    CommandFieldMisplaced = "GM004", "command-field-misplaced", Warning, "`commandPrefix` / `commandRegex` only work with `toolName = \"run_shell_command\"` and without `argsPattern`; Gemini CLI reports the rule (and, with both, the prefix wins).";
    EmptyToolName = "GM005", "empty-tool-name", Error, "`toolName = \"\"` makes Gemini CLI's policy engine throw: the CLI does not start.";
    UnknownToolName = "GM006", "unknown-tool-name", Warning, "A tool name Gemini CLI does not have (or the deprecated `server__tool` MCP form): the rule never matches a call.";
    RuleNeverDecides = "GM007", "rule-never-decides", Warning, "A rule that never decides: a rule of higher effective priority (tier + priority/1000) matches every call it matches.";
    DenyOverridden = "GM008", "deny-overridden", Warning, "A deny (or ask) that a broader allow at a higher effective priority beats for some calls: the allow decides them.";
    AnchoredRegex = "GM009", "anchored-regex", Warning, "`^` or `$` in a `commandRegex`/`argsPattern`: the regex runs over the arguments' JSON text (`{\\u0000\"command\":\"…\"\\u0000}`), so the anchor never matches where it seems to.";
    AllowedNarrowsShell = "GM010", "allowed-narrows-shell", Warning, "`tools.allowed` with `run_shell_command(…)` also adds a shell deny just below it: every command it does not name is denied, not asked.";
    DeprecatedSettingsKey = "GM011", "deprecated-settings-key", Info, "`tools.allowed` / `tools.exclude` are deprecated: Gemini CLI warns at start; a policy file rule says the same.";
    ExcludeWithArguments = "GM012", "exclude-with-arguments", Warning, "`tools.exclude` entries with arguments (`run_shell_command(rm)`) do nothing: only a whole tool name hides a tool.";
    StaleSettingsKey = "GM013", "stale-settings-key", Warning, "A settings key Gemini CLI 0.61.0 no longer reads (`autoAccept`, `excludeTools`, `coreTools`, …): it does nothing.";
    SettingsUnreadable = "GM014", "settings-unreadable", Error, "A settings file that is not valid JSON (after comments are stripped): Gemini CLI stops at start.";
    ProjectNotTrusted = "GM015", "project-not-trusted", Warning, "Folder trust is on and this folder is not trusted: Gemini CLI ignores the workspace settings file and forces the approval mode to default.";
    RegexNotSimulated = "GM016", "regex-not-simulated", Info, "A JavaScript regex this checker cannot run exactly (a variable-length lookbehind, an octal escape, …): calls it could decide are reported as incomplete.";
    ExtensionRuleIgnored = "GM018", "extension-rule-ignored", Warning, "An extension's policy file may only deny or ask: Gemini CLI drops its `allow` rules and its rules for yolo mode (a warning in the debug log, nothing on screen).";
    YoloIgnored = "GM017", "yolo-ignored", Warning, "`general.defaultApprovalMode: \"yolo\"` is ignored: yolo exists only on the command line (`--approval-mode yolo`).";
}
