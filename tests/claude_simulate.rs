//! Claude Code calls decided exactly as the real CLI (2.1.332) decided
//! them: every call the reference oracle recorded
//! (`tests/fixtures/claude/oracle/observed*.json`: the reference runtime's
//! own `cases/`, a survey of Bash commands, the rule-syntax, mode and trust
//! probes) is set up again — the same settings files, project files, home
//! files and trust — and decided by `permission-lsp`'s simulator; the
//! decision must be the CLI's verdict, call for call.

use crate::harness;

use harness::{Case, Verdict};

fn fixture(name: &str) -> Vec<Case> {
    let path = format!(
        "{}/tests/fixtures/claude/oracle/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(Case::from_fixture)
        .collect()
}

fn replay(name: &str, min_calls: usize) {
    let cases = fixture(name);
    let mut calls = 0;
    let mut wrong = Vec::new();
    for case in &cases {
        for (call, got) in case.decide_all() {
            let Some(expected) = call.verdict else {
                continue;
            };
            calls += 1;
            if got.verdict != expected {
                wrong.push(format!(
                    "{} {} {}: CLI {:?}, we {:?} ({})",
                    case.id, call.tool, call.input, expected, got.verdict, got.reason
                ));
            }
        }
    }
    assert!(
        calls >= min_calls,
        "{name}: only {calls} calls with a verdict"
    );
    assert!(
        wrong.is_empty(),
        "{name}: {} of {calls} calls decided otherwise than the CLI:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn the_reference_runtimes_cases() {
    replay("observed-cases.json", 341);
}

#[test]
fn the_bash_survey() {
    replay("observed-bash.json", 200);
}

#[test]
fn the_rule_syntax_probes() {
    replay("observed.json", 60);
}

#[test]
fn the_mode_and_trust_probes() {
    replay("observed-scopes.json", 6);
}

/// Started in a subdirectory of a git repository: the project's
/// `.claude/settings.json` is read from the starting folder only, the local
/// file from the repository's root and from the starting folder.
#[test]
fn the_subdirectory_probes() {
    replay("observed-subdir.json", 10);
}

/// `CLAUDE_CONFIG_DIR`: the user's settings and the trust state are read
/// there, and `~/.claude/settings.json` is not.
#[test]
fn the_config_dir_probes() {
    replay("observed-config-dir.json", 4);
}

/// What a deny really blocks: wrappers and absolute paths are stripped
/// before deny rules match (`sudo`, `env`, `xargs`, `nice`, `timeout`,
/// `command`, `exec`, `time`, `nohup`, `/bin/rm`), shells' `-c`, `eval`
/// and `find -exec` / `-delete` ask even when the wrapper is allowed, other
/// flag spellings (`rm -fr`) get through `Bash(rm -rf *)`; environment
/// prefixes, bare builtins, pipes into `head`/`tail`, `git -C`.
#[test]
fn the_wrapper_and_indirection_probes() {
    replay("observed-wrappers.json", 250);
}

#[test]
fn verdicts_parse() {
    assert_eq!(Verdict::parse("ALLOW"), Some(Verdict::Allow));
    assert_eq!(Verdict::parse("ALLOW?"), None);
}

/// The classes of issue 25, each on the real CLI: environment prefixes
/// before an allowed command, builtins, pipes into `tail`/`head`,
/// redirections, `git` global options, reads outside the project and in the
/// home, Windows-style paths in rules, writes to new files and dot-files per
/// mode, MCP server rules, interpreters' `-c`/`-e`, and the spellings of
/// `rm` against each shape of deny rule.
#[test]
fn the_class_probes() {
    replay("observed-classes.json", 580);
}

/// The options of the read-only commands the CLI checks against its
/// tables (`git log`, `grep`, `sort`, `ps`, `date`, `xargs`, …): each
/// listed option with and without its value, `--opt=value`, unknown
/// options, grouped short options, glued numbers, `--` and positional
/// words, and each command's own check.
#[test]
fn the_option_survey() {
    replay("observed-flags.json", 1400);
}

/// What a deny rule does not block (CC018), on every corpus settings
/// file: each spelling a finding names was run on the CLI with that
/// file's rules (`observed-spellings.json`), and the CLI did what the
/// finding says — allowed it, or asked instead of denying it; the
/// simulator agrees call for call; and every corpus file with a finding
/// was recorded.
#[test]
fn what_a_deny_does_not_block_is_what_the_cli_lets_through() {
    use permission_lsp::analysis::AnalysisOptions;
    use permission_lsp::formats::{self, Role};
    replay("observed-spellings.json", 100);
    let path = format!(
        "{}/tests/fixtures/claude/oracle/observed-spellings.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let recorded: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let claude = formats::by_id("claude-code").unwrap();
    let options = AnalysisOptions::for_profile(claude.default_profile());
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/claude/corpus");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut claims = 0;
    for file in files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&file).unwrap();
        let (_, a) = claude.analyse_file(Role::Config, bytes.clone(), &options, None);
        let findings: Vec<_> = a
            .diagnostics
            .iter()
            .filter(|d| d.code.as_str() == "CC018")
            .collect();
        if findings.is_empty() {
            continue;
        }
        let case = recorded
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["corpus"] == name.as_str())
            .unwrap_or_else(|| panic!("{name}: CC018 findings, but no recorded session"));
        for d in findings {
            // `cmd` — Claude Code allows it / asks …; also `cmd` (allowed), …
            let mut parts = d.message.split('`');
            let first = parts.nth(1).unwrap().to_string();
            let first_claim = if d.message.contains("Claude Code asks instead") {
                "ASK"
            } else {
                "ALLOW"
            };
            let mut pairs = vec![(first, first_claim)];
            let tail = d.message.split("; also ").nth(1).unwrap_or("");
            for item in tail.split("), ") {
                let Some(cmd) = item.split('`').nth(1) else {
                    continue;
                };
                let claim = if item.contains("(asks") {
                    "ASK"
                } else {
                    "ALLOW"
                };
                pairs.push((cmd.to_string(), claim));
            }
            for (cmd, claim) in pairs {
                let call = case["calls"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|c| c["input"]["command"] == cmd.as_str())
                    .unwrap_or_else(|| panic!("{name}: `{cmd}` was not recorded"));
                assert_eq!(
                    call["verdict"], claim,
                    "{name}: the finding says `{cmd}` is {claim}: {}",
                    d.message
                );
                claims += 1;
            }
        }
    }
    assert!(claims >= 100, "only {claims} claims checked");
}

/// What the CLI cannot check before it runs and how it reads a line's
/// structure: variables (only `$HOME` is known), quoted substitutions
/// with and without text around them, `$'…'`, brace patterns, tilde
/// forms, here-documents with quoted and unquoted delimiters,
/// here-strings, `if`/`while`/`until`/`for`/`!` around commands, `case`,
/// functions, groups, parse errors (a stray keyword, `a &&`, `| a`, an
/// unclosed quote), each with no rules and with broad allow rules.
#[test]
fn the_structure_probes() {
    replay("observed-structure.json", 300);
}

/// `--settings FILE` (absolute, relative to the session's folder) and
/// `--settings '{…}'`: rules merged with the other files (its allow rules
/// apply in an untrusted project), its mode winning over the user's, a
/// broken file ignored.
#[test]
fn the_settings_flag_probes() {
    replay("observed-settings-flag.json", 30);
}

/// Shapes the corpus-seeded differential test found, recorded: `xargs
/// find`, `cd` with a relative read while a Read deny rule exists and with
/// a redirection, redirections an `Edit` allow rule covers, trailing-blank
/// deny wildcards (`Bash(nc :* )`), Windows-ambiguous read paths, shell
/// keywords after a prefix; loops without a body, bracket tests with words
/// after `]`, a rule naming the whole line exactly (it skips the CLI's own
/// checks), `find` with glob characters, absolute program paths behind
/// `nice` and `stdbuf`, assignments in front of a background job, and a
/// line that sets a variable — as the session's first Bash command (the
/// CLI does not know the shell's variables yet) and later (only the
/// shell's own variables count; cases with a warm-up call).
#[test]
fn the_differential_shapes() {
    replay("observed-differential-shapes.json", 220);
}

/// Shapes where the simulator was laxer than the CLI (recorded on it for
/// the hostile-input work): `$[…]` arithmetic and other expansions, a
/// command over 10,000 characters (the CLI's parser gives up and asks),
/// `sed` writes with no rule, variables between a command's words (`git
/// $EMPTY push` is denied by `Bash(git push:*)`), and file rules matched
/// without regard to case (`Read(./.env)` denies `.ENV`; `Edit(./Docs/**)`
/// allows `docs/`); wrappers before a denied command (`builtin`, `command
/// -p`, `exec -a`, `sudo -u`, `env -i`, `/usr/bin/env`).
#[test]
fn the_hostile_input_shapes() {
    replay("observed-issue32.json", 61);
}

/// `Skill(…)` rules: a deny names a skill exactly, by a prefix (`name:*`,
/// `name *`) or by a `skill:` glob; an ask or allow changes nothing. A
/// deny `Agent(type)` (or `Task(type)`) stops that agent type.
#[test]
fn skill_rules() {
    replay("observed-skills.json", 48);
}

/// Every tool a 2.1.332 session offers, called with no rule: those it runs
/// without asking (launching a subagent, loading a tool or a skill,
/// scheduling), those it asks about, those not offered at all ("No such
/// tool available"), `Monitor` decided as a Bash command, and deny and ask
/// rules naming a tool that needs no permission (met when replaying real
/// session files, where such calls are common).
#[test]
fn tools_that_need_no_permission() {
    replay("observed-tools.json", 34);
}
