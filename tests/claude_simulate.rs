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
