//! Qwen Code's diagnostic codes (`QW…`). Each has a page under
//! `docs/lints/qwen/<code>.md`.

/// The format id: the codes' namespace and docs folder.
pub const FORMAT: &str = "qwen";

crate::code_table! {
    unnecessary: [RuleNeverDecides, DuplicateRule];
    safe_fix: [];
    SettingsUnreadable = "QW001", "settings-unreadable", Error, "The settings file is not valid JSON: a broken user or system file stops Qwen Code at start; a broken project file is silently replaced by `{\"$version\": 4}`, and every rule in it is lost.";
    MalformedRule = "QW002", "malformed-rule", Warning, "A rule with unbalanced parentheses: Qwen Code skips it (the other rules apply).";
    UnknownTool = "QW003", "unknown-tool", Warning, "A rule for a tool name Qwen Code does not know (names are case-sensitive): it never matches a call.";
    QuotedRule = "QW004", "quoted-rule", Warning, "A shell rule with quotes or a backslash: Qwen re-tokenizes the command (quotes removed) but not the rule, so the rule never matches.";
    RelativePathRule = "QW005", "relative-path-rule", Warning, "A relative path rule (`Read(.env)`) is anchored to the working directory: it covers `./.env` but not `sub/.env`, unlike Claude Code.";
    SubstitutionBypass = "QW006", "substitution-bypass", Warning, "An allow rule lets a denied command run inside `$(…)` or backticks: Qwen matches the outer command only.";
    ProjectNotTrusted = "QW007", "project-not-trusted", Warning, "Folder trust is on and this folder is not trusted: Qwen Code ignores the whole project settings file, its denies included.";
    WordPrefix = "QW008", "word-prefix", Info, "A shell rule without `*` is a word prefix in Qwen Code: `Bash(npm test)` also matches `npm test --watch` (Claude Code reads it as the exact command).";
    Subdomains = "QW009", "subdomains", Info, "A `WebFetch` rule covers the domain and all its subdomains, and `curl`/`wget` URLs too (Claude Code matches no subdomain).";
    RuleNeverDecides = "QW010", "rule-never-decides", Warning, "A rule that never decides: the same rule in a stronger list (deny > ask > allow) always wins.";
    InvalidApprovalMode = "QW011", "invalid-approval-mode", Error, "An approval mode Qwen Code does not know: the CLI stops at start (\"Invalid approval mode\").";
    LegacyKey = "QW012", "legacy-key", Info, "A v1 settings key: Qwen Code migrates it on load (and rewrites the file) to its v2 place.";
    DuplicateRule = "QW014", "duplicate-rule", Hint, "The same rule is already in this list (in this file or a file read before it): removing it changes no decision.";
    WriteRuleForShell = "QW013", "write-rule-shell", Info, "A `Write`/`Edit` rule also decides shell redirections (`echo x > file`) and file commands (`touch`, `rm`), and a `Read` rule shell reads (`cat`, `head`, `ls`).";
}
