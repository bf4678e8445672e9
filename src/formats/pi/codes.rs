//! pi-permission-system's diagnostic codes (`PL…`). Each has a page under
//! `docs/lints/pi/<code>.md`.

pub use crate::core::diagnostic::Severity;

/// The format id: the codes' namespace and docs folder.
pub const FORMAT: &str = "pi";

crate::code_table! {
    unnecessary: [ShadowedRule, RedundantRule, DeprecatedKnob];
    safe_fix: [DuplicateKey, RedundantRule];
    InvalidJson = "PL001", "invalid-json", Error, "The file is not strict JSON; the runtime ignores the whole file.";
    TrailingComma = "PL002", "trailing-comma", Error, "A trailing comma makes JSON.parse fail; the runtime ignores the whole file.";
    ByteOrderMark = "PL003", "byte-order-mark", Error, "A UTF-8 byte order mark makes JSON.parse fail; the runtime ignores the whole file.";
    EmptyFile = "PL004", "empty-file", Error, "An empty or comment-only file is a parse error, not an empty config.";
    UnterminatedComment = "PL005", "unterminated-block-comment", Warning, "An unterminated `/*` silently drops the rest of the file.";
    InvalidUtf8 = "PL006", "invalid-utf8", Warning, "Bytes that are not UTF-8 are read as U+FFFD.";
    DuplicateKey = "PL010", "duplicate-key", Warning, "A repeated key keeps the last value at the first key's position.";
    IndexKeyOrder = "PL011", "integer-key-order", Warning, "Integer-like keys are enumerated first, which changes rule order.";
    IgnoreCommentCode = "PL013", "unknown-ignore-code", Warning, "A permission-lsp-ignore comment names a code that does not exist.";
    ProtoKey = "PL012", "proto-key-dropped", Warning, "A `__proto__` key is silently dropped.";
    UnknownKey = "PL100", "unknown-key", Error, "A top-level key the target runtime does not accept rejects the whole file.";
    InvalidState = "PL101", "invalid-state", Error, "A state other than exactly allow, deny or ask rejects the whole file.";
    ReasonNotString = "PL102", "reason-not-string", Error, "A non-string deny reason rejects the whole file.";
    ReasonTooLong = "PL103", "reason-too-long", Error, "A deny reason over 500 characters rejects the whole file.";
    ObjectFormForState = "PL104", "object-form-for-allow-ask", Error, "Only deny has an object form; `{ \"action\": \"allow\" }` rejects the whole file.";
    DenyObjectExtraKey = "PL105", "deny-object-extra-key", Error, "A deny object with a key other than action and reason rejects the whole file.";
    SurfaceDenyObject = "PL106", "surface-level-deny-object", Error, "A deny object directly under a surface rejects the whole file.";
    EmptyKey = "PL107", "empty-key", Error, "An empty surface or pattern key rejects the whole file.";
    InvalidValue = "PL108", "invalid-value", Error, "A knob or structural value of the wrong type rejects the whole file.";
    InvalidRuleValue = "PL109", "invalid-rule-value", Error, "A surface or pattern value that is neither a state nor a map/deny object rejects the whole file.";
    DenyObjectAction = "PL110", "deny-object-action", Error, "A deny object needs `\"action\": \"deny\"`.";
    AssumedVersion = "PL112", "assumed-version", Info, "With the `auto` target, a key of a newer pi-permission-system makes the file read as the lowest version that accepts it; the message says which and why.";
    UnknownDirectionalSurface = "PL113", "unknown-directional-surface", Error, "From 27.1 a `path_…` or `external_directory_…` surface other than the four directional ones rejects the whole file.";
    DeprecatedKnob = "PL114", "deprecated-knob", Hint, "From 26.0 `toolInputPreviewMaxLength` and `toolTextSummaryMaxLength` are accepted and ignored.";
    ForeignKey = "PL111", "version-specific-key", Error, "A key that only another runtime version or fork accepts rejects the whole file for the target.";
    ActionPattern = "PL201", "action-as-pattern", Warning, "`{ \"action\": \"deny\" }` under a surface is a pattern named `action`, not a deny.";
    UniversalMapIgnored = "PL202", "universal-map-ignored", Warning, "A pattern map under `*` is ignored; the universal default stays ask.";
    UnknownSurface = "PL203", "unknown-surface", Warning, "A surface key that names no pi tool never matches.";
    ReasonDoublePeriod = "PL204", "reason-trailing-period", Hint, "The runtime appends a period to the reason.";
    ReasonNeverShown = "PL205", "reason-never-shown", Warning, "A reason on a path or external_directory rule is never shown.";
    ExtensionPatternNeverFires = "PL206", "extension-pattern-never-fires", Warning, "For extension tools the runtime matches only the value `*`.";
    DirectoryWithoutStar = "PL207", "directory-without-star", Hint, "An external_directory pattern without `*` matches only that exact path.";
    PermissiveBash = "PL208", "permissive-bash", Warning, "`*: allow` without a bash policy lets every bash command run.";
    ToolHidden = "PL209", "tool-hidden", Warning, "A catch-all deny removes the tool from the agent, so its allow and ask rules are never reached.";
    OverriddenRule = "PL210", "overridden-rule", Warning, "A later rule with another action decides every call this rule matches (last match wins).";
    ShadowedRule = "PL211", "shadowed-rule", Hint, "Later rules with the same action decide every call this rule matches.";
    RedundantRule = "PL212", "redundant-rule", Hint, "Earlier rules already decide every call this rule decides the same way.";
    BashOperatorPattern = "PL213", "bash-operator-pattern", Warning, "Commands are split at operators and redirects before matching: `&&`, `|`, `;`, `>` in a bash pattern never match.";
    BashEnvPrefix = "PL214", "bash-env-prefix", Warning, "Variable assignments are stripped from a command before matching: `NODE_ENV=x *` never matches.";
    HomeInPattern = "PL215", "home-in-pattern", Warning, "`~/` is expanded in the pattern but not in the command or name it is matched against.";
    PatternWhitespace = "PL216", "pattern-whitespace", Warning, "Leading, trailing or doubled spaces are literal; commands are matched as written.";
    DoubleStar = "PL217", "double-star", Warning, "`**` is the same as `*`: `src/**/*.ts` needs two slashes and misses `src/a.ts`.";
    WrapperAllowClamped = "PL218", "wrapper-allow-clamped", Warning, "An allow for a wrapper command (`sudo`, `env`, `bash -c`, …) is lowered to ask.";
    McpCatchAllShadows = "PL219", "mcp-catch-all-shadows", Warning, "Under an MCP catch-all each call is decided by its first target (`server_tool`); `server:tool` and bare server patterns never decide.";
    McpBaselineOverridden = "PL220", "mcp-baseline-overridden", Info, "An MCP catch-all after the baseline turns status, list, search, describe and connect back into prompts.";
    PathAllowNotGrant = "PL221", "path-allow-not-grant", Warning, "`path` rules only tighten: an allow there grants nothing.";
    ShellToolKey = "PL222", "shell-tool-key", Warning, "A `shellTools` entry for `bash` is ignored; one for a built-in tool reroutes that tool through the bash rules.";
    YoloFloors = "PL223", "yolo-floors", Info, "yoloMode auto-approves asks, but wrapper commands and unparseable commands still ask.";
    EmptyMapErases = "PL225", "empty-map-erases", Warning, "An empty map in a higher scope replaces a lower scope's string rule: no rules remain for that surface.";
    AgentNameRefused = "PL227", "agent-name-refused", Warning, "The selected agent name is not a plain file name: its agent files cannot be read, and the other scopes are checked without them.";
    AnalysisLimited = "PL228", "analysis-limited", Info, "A scope file over 4 MiB is checked on its own: precedence across the other scope files is not analysed.";
    PrecedenceUnexamined = "PL230", "precedence-unexamined", Info, "The precedence analysis reached one of its bounds: the rules it names were not checked for never deciding or being redundant.";
    PatternNotParsed = "PL229", "pattern-not-parsed", Info, "A bash pattern the bash reader did not read (over 256 commands in one statement, or past the 64 KiB of patterns read per file): the lints that read its commands did not run.";
    ScopeFileIgnored = "PL226", "scope-file-ignored", Info, "The runtime ignores this scope file; the other scopes decide alone.";
    FrontmatterNotRead = "PL301", "frontmatter-not-read", Warning, "The runtime finds no frontmatter (it must start with `---` and end with a `---` line), so the agent file has no rules.";
    FrontmatterEntryDropped = "PL302", "frontmatter-entry-dropped", Warning, "The runtime's mini-YAML silently drops this entry (inline comment, flow map, `:` in a key, invalid state).";
    StarWithoutSpace = "PL224", "star-without-space", Hint, "`npm*` also matches `npmx …`; `npm *` matches `npm` and `npm …` only.";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_parse_back() {
        let mut seen = std::collections::HashSet::new();
        for c in Code::ALL {
            assert!(seen.insert(c.as_str()), "duplicate {}", c.as_str());
            assert_eq!(Code::parse(c.as_str()), Some(*c));
            assert_eq!(Code::parse(c.name()), Some(*c));
        }
    }
}
