//! Codex's diagnostic codes (`CX…`). Each has a page under
//! `docs/lints/codex/<code>.md`.

/// The format id: the codes' namespace and docs folder.
pub const FORMAT: &str = "codex";

crate::code_table! {
    unnecessary: [RuleNeverDecides, RedundantRule];
    safe_fix: [];
    RulesFileNotLoaded = "CX001", "rules-file-not-loaded", Error, "Codex cannot load this `.rules` file (a Starlark error, an unknown decision, a failing `match`/`not_match` example): it drops every custom rule of the session, this file's and every other's (\"Error parsing rules; custom rules not applied.\").";
    RulesDropped = "CX002", "rules-dropped", Error, "Another `.rules` file of the session fails to load, so Codex applies none of this file's rules.";
    ProjectNotTrusted = "CX003", "project-not-trusted", Warning, "The project is not trusted in `config.toml`: Codex reads none of its `.codex/rules/*.rules` nor its `.codex/config.toml`.";
    ConfigRefused = "CX004", "config-refused", Error, "Codex refuses this `config.toml` value: the session never starts (`approval_policy = \"untrusted\"`, an unknown sandbox mode, a granular policy missing a field, a legacy `profile`, invalid TOML).";
    IgnoredKey = "CX005", "ignored-key", Warning, "A key Codex does not know: it ignores it (\"Codex is ignoring N unrecognized configuration settings\") and the setting it was meant to be does not apply.";
    RuleNeverDecides = "CX006", "rule-never-decides", Warning, "A rule that never decides: a stricter rule matches every command it matches (the strictest match wins: forbidden > prompt > allow).";
    TokenWithSpace = "CX007", "token-with-space", Warning, "A pattern token with a space matches one argv word that contains the space, never two words: `\"git push\"` does not match `git push`.";
    ShellBypass = "CX008", "shell-bypass", Info, "Codex matches rules only on scripts of plain words: the same command with a redirection, a variable, an env prefix or inside `bash -c` is not matched and runs.";
    ShellWrapperRule = "CX009", "shell-wrapper-rule", Warning, "A rule on a shell invocation (`/bin/zsh -lc …`) matches only that literal command line, never the script's commands.";
    RedundantRule = "CX010", "redundant-rule", Hint, "A rule whose every command an earlier rule of the session already decides the same way: removing it changes no decision.";
}
