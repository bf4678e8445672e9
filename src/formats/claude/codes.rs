//! Claude Code's diagnostic codes (`CC…`). Each has a page under
//! `docs/lints/claude/<code>.md`.

/// The format id: the codes' namespace and docs folder.
pub const FORMAT: &str = "claude";

crate::code_table! {
    unnecessary: [RuleNeverDecides, DuplicateRule, RedundantRule, ReadStarAddsNothing];
    safe_fix: [DuplicateRule, RedundantRule, ReadStarAddsNothing, DuplicateKey];
    InvalidJson = "CC001", "invalid-json", Error, "The file is not strict JSON (a comment or a trailing comma is enough); Claude Code silently ignores the whole file.";
    EmptyFile = "CC002", "empty-file", Warning, "An empty settings file holds no rules.";
    SettingsRejected = "CC003", "settings-rejected", Error, "A permissions value of the wrong type makes Claude Code ignore the whole file, rules of every list included.";
    NonStringRule = "CC004", "non-string-rule", Warning, "A rule that is not a string is removed from its list.";
    RuleSkipped = "CC005", "rule-skipped", Error, "Claude Code skips this rule when it loads the file (with the reason shown); the rule decides nothing.";
    UnknownTool = "CC006", "unknown-tool", Warning, "A rule naming no known tool loads but never matches.";
    SpacedToolName = "CC007", "spaced-tool-name", Warning, "Spaces around the tool name: the rule loads without a warning and matches nothing.";
    StarWithColonStar = "CC008", "star-with-colon-star", Warning, "A `*` before a trailing `:*` is taken literally, not as a wildcard.";
    ColonStarInside = "CC009", "colon-star-inside", Warning, "`:*` is the prefix form only at the end of a Bash rule; elsewhere an allow rule matches nothing and a deny or ask rule matches only a literal `:`.";
    UnknownPermissionsKey = "CC010", "unknown-permissions-key", Warning, "An unknown key under `permissions` is ignored without a word.";
    DuplicateKey = "CC011", "duplicate-key", Warning, "A repeated key: the last value wins and the earlier one is ignored.";
    PermissionsKeyTypo = "CC012", "permissions-key-typo", Error, "A top-level key that looks like `permissions` is not read: none of its rules apply.";
    DuplicateRule = "CC013", "duplicate-rule", Hint, "The same rule twice in one list.";
    TopLevelType = "CC015", "top-level-type", Error, "A top-level setting of the wrong type makes Claude Code ignore the whole file, without a word.";
    ModeIgnored = "CC016", "mode-ignored", Warning, "`bypassPermissions` in project or local settings (and `auto` in project settings) is ignored: the session starts in the default mode.";
    UntrustedAllowIgnored = "CC017", "untrusted-allow-ignored", Warning, "In a project not trusted in ~/.claude.json, Claude Code ignores the allow rules of its project and local settings.";
    DenyBypass = "CC018", "deny-bypass", Warning, "Another spelling of a Bash deny rule's command gets through: `rm -fr build` is not denied by `Bash(rm -rf *)`, `git -C . push` not by `Bash(git push:*)`.";
    RedundantRule = "CC019", "redundant-rule", Hint, "An allow rule inside a broader allow rule (in this file, or in the project or managed settings for a local or project file) changes nothing.";
    WildcardBeforeRest = "CC020", "wildcard-before-rest", Warning, "An allow rule with a `*` before the rest of the command also matches options inserted at that place, and approves them without a prompt.";
    WriteRuleIgnored = "CC021", "write-rule-ignored", Warning, "`Write(path)` rules are not read by file permission checks: only `Edit(path)` rules are (they cover every file-editing tool).";
    ReadStarAddsNothing = "CC022", "read-star-adds-nothing", Hint, "An allow `Read(*)` adds nothing to the default: reading inside the working directories already runs without asking.";
    EditStarWorkingDirectories = "CC023", "edit-star-working-directories", Info, "An allow `Edit(*)` allows edits only inside the working directories; older Claude Code versions read it as `Edit` (every path).";
    ProjectRootAnchor = "CC024", "project-root-anchor", Warning, "A path rule starting with a single `/` and a system folder (`/etc/…`) means that folder inside the project, not the file-system path (`//etc/…`).";
    WindowsPath = "CC025", "windows-path", Warning, "A Windows drive path in a path rule is a relative pattern that matches nothing on Linux and macOS; Claude Code compares `/c/…` paths.";
    UnexpandedHome = "CC026", "unexpanded-home", Warning, "`$HOME` or `~user` is not expanded in a path rule: only `~/` is the home directory.";
    SecretInRule = "CC027", "secret-in-rule", Warning, "A rule holds what looks like an API key, token or password: settings files are committed and shared.";
    UnknownMcpServer = "CC028", "unknown-mcp-server", Warning, "An MCP rule names a server that no MCP config of the project or the user defines: it matches no tool.";
    RuleNeverDecides = "CC014", "rule-never-decides", Warning, "Deny beats ask beats allow: this rule is always overridden by a rule in a stronger list.";
}
