//! A shell call decided as Codex 0.169.0 decides it: the command line runs
//! as `/bin/bash -lc '<line>'`; a plain script is split into its commands
//! (`split`), each matched against every loaded rule (`matching`), and a
//! command no rule matches gets Codex's own decision (a forced `rm` is
//! dangerous; the approval policy decides the rest). The strictest
//! decision of all wins (forbidden > prompt > allow); the approval policy
//! then turns a prompt into an ask or a rejection.

use super::split;
use crate::formats::codex::model::config::Approval;
use crate::formats::codex::model::matching::{RuleIndex, matching_indexed};
use crate::formats::codex::model::rules::{Decision, HostTable, PrefixRule};

/// The shell Codex runs a command line with.
pub const SHELL: &str = "/bin/bash";

/// What the model sends: a command line (the `exec_command` tool), or an
/// argv (the older `shell` tool).
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    Line(String),
    Argv(Vec<String>),
}

impl Input {
    /// The argv Codex checks: a line runs as `/bin/bash -lc <line>`.
    pub fn argv(&self) -> Vec<String> {
        match self {
            Input::Line(l) => vec![SHELL.into(), "-lc".into(), l.clone()],
            Input::Argv(a) => a.clone(),
        }
    }
}

/// What decided one command of the call.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Rules matched (indices into the policy's rules, matched prefix length).
    Rules(Vec<(usize, usize)>),
    /// No rule matched: Codex's own decision, and whether the command is
    /// dangerous (a forced `rm`).
    Heuristic { decision: Decision, dangerous: bool },
}

/// The outcome, as Codex gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// It runs; `sandboxed` unless a rule allows every command.
    Allow {
        sandboxed: bool,
    },
    Ask,
    Deny,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub outcome: Outcome,
    /// The strictest decision before the approval policy acted on it.
    pub decision: Decision,
    /// Codex's reason (the rejection or approval text), when it gives one.
    pub reason: Option<String>,
    /// The argv Codex checked.
    pub argv: Vec<String>,
    /// The commands matched: the script's when Codex split it, else the argv.
    pub commands: Vec<Vec<String>>,
    /// Codex split the script into its commands.
    pub split: bool,
    /// One step per command.
    pub steps: Vec<Step>,
}

/// The rules, host executables and approval policy of a session.
pub struct Engine<'a> {
    pub rules: &'a [&'a PrefixRule],
    pub hosts: &'a HostTable,
    pub approval: Approval,
    index: RuleIndex<'a>,
}

impl<'a> Engine<'a> {
    pub fn new(
        rules: &'a [&'a PrefixRule],
        hosts: &'a HostTable,
        approval: Approval,
    ) -> Engine<'a> {
        Engine {
            rules,
            hosts,
            approval,
            index: RuleIndex::new(rules),
        }
    }
}

/// `[shell, -lc|-c, script]` with a bash, zsh or sh: the script.
pub fn shell_script(argv: &[String]) -> Option<&str> {
    let [shell, flag, script] = argv else {
        return None;
    };
    let name = std::path::Path::new(shell)
        .file_name()
        .and_then(|n| n.to_str())?;
    (matches!(flag.as_str(), "-lc" | "-c") && matches!(name, "bash" | "zsh" | "sh"))
        .then_some(script.as_str())
}

/// Is `argv` a forced `rm` (also behind `sudo` and `env`)?
fn forced_rm(argv: &[String]) -> bool {
    let Some(first) = argv.first() else {
        return false;
    };
    let name = std::path::Path::new(first)
        .file_name()
        .and_then(|n| n.to_str());
    match name {
        Some("rm") => argv[1..]
            .iter()
            .take_while(|a| a.as_str() != "--")
            .any(|a| {
                a == "--force"
                    || a.strip_prefix('-')
                        .is_some_and(|f| !f.starts_with('-') && f.contains('f'))
            }),
        Some("sudo") => forced_rm(&argv[1..]),
        // `env` is seen through: its options and assignments skipped
        // (observed: `env -i rm -rf x` asks, `env -u X rm -rf x` does not).
        Some("env") => {
            let skip = argv[1..]
                .iter()
                .take_while(|a| a.starts_with('-') || a.contains('='))
                .count();
            forced_rm(&argv[1 + skip..])
        }
        _ => false,
    }
}

/// Codex's dangerous-command check: a forced `rm`, as the command itself
/// or as any literal command of its shell script.
pub fn dangerous(argv: &[String]) -> bool {
    if forced_rm(argv) {
        return true;
    }
    shell_script(argv)
        .and_then(split::literal_commands)
        .is_some_and(|cs| cs.iter().any(|c| forced_rm(c)))
}

impl Engine<'_> {
    /// Codex's decision for a command no rule matches.
    fn heuristic(&self, argv: &[String]) -> (Decision, bool) {
        let dangerous = dangerous(argv);
        let d = match self.approval {
            // Observed: every command asks unless a rule allows it.
            Approval::Untrusted => Decision::Prompt,
            Approval::Never if dangerous => Decision::Forbidden,
            _ if dangerous => Decision::Prompt,
            _ => Decision::Allow,
        };
        (d, dangerous)
    }

    pub fn decide(&self, input: &Input) -> Verdict {
        let argv = input.argv();
        let split_commands = shell_script(&argv)
            .and_then(split::plain_commands)
            .filter(|c| !c.is_empty());
        let split = split_commands.is_some();
        let commands = split_commands.unwrap_or_else(|| vec![argv.clone()]);
        let mut steps = Vec::new();
        let mut decision = Decision::Allow;
        for c in &commands {
            let m = matching_indexed(self.rules, &self.index, c, self.hosts);
            if m.is_empty() {
                let (d, dangerous) = self.heuristic(c);
                decision = decision.max(d);
                steps.push(Step::Heuristic {
                    decision: d,
                    dangerous,
                });
            } else {
                for (i, _) in &m {
                    decision = decision.max(self.rules[*i].decision);
                }
                steps.push(Step::Rules(m));
            }
        }
        let shown = format!(
            "`{}`",
            crate::formats::codex::model::rules::render_example(&argv)
        );
        let (outcome, reason) = match decision {
            Decision::Forbidden => (
                Outcome::Deny,
                Some(self.forbidden_reason(&shown, &steps, &commands)),
            ),
            Decision::Prompt => {
                let rule_prompt = steps.iter().find_map(|s| match s {
                    Step::Rules(m) => m
                        .iter()
                        .find(|(i, _)| self.rules[*i].decision == Decision::Prompt)
                        .map(|(i, _)| *i),
                    Step::Heuristic { .. } => None,
                });
                match (self.approval, rule_prompt) {
                    (Approval::Never, _) => (
                        Outcome::Deny,
                        Some("approval required by policy, but AskForApproval is set to Never".into()),
                    ),
                    (Approval::Granular { rules: false, .. }, Some(_)) => (
                        Outcome::Deny,
                        Some(
                            "approval required by policy rule, but AskForApproval::Granular.rules is false"
                                .into(),
                        ),
                    ),
                    (_, Some(i)) => (
                        Outcome::Ask,
                        Some(match &self.rules[i].justification {
                            Some(j) => format!("{shown} requires approval: {j}"),
                            None => format!("{shown} requires approval by policy"),
                        }),
                    ),
                    (_, None) => (Outcome::Ask, None),
                }
            }
            Decision::Allow => {
                let all_ruled = steps.iter().all(|s| match s {
                    Step::Rules(m) => m
                        .iter()
                        .any(|(i, _)| self.rules[*i].decision == Decision::Allow),
                    Step::Heuristic { .. } => false,
                });
                (
                    Outcome::Allow {
                        sandboxed: !all_ruled,
                    },
                    None,
                )
            }
        };
        Verdict {
            outcome,
            decision,
            reason,
            argv,
            commands,
            split,
            steps,
        }
    }

    fn forbidden_reason(&self, shown: &str, steps: &[Step], commands: &[Vec<String>]) -> String {
        for (s, cmd) in steps.iter().zip(commands) {
            if let Step::Rules(m) = s
                && let Some((i, n)) = m
                    .iter()
                    .find(|(i, _)| self.rules[*i].decision == Decision::Forbidden)
            {
                let r = self.rules[*i];
                return match &r.justification {
                    Some(j) => format!("{shown} rejected: {j}"),
                    // The matched prefix, a host executable's path shown
                    // by the rule's program name, as Codex shows it.
                    None => {
                        let prefix: Vec<&str> = std::iter::once(r.first.as_str())
                            .chain(cmd[1..*n].iter().map(String::as_str))
                            .collect();
                        format!(
                            "{shown} rejected: policy forbids commands starting with `{}`",
                            prefix.join(" ")
                        )
                    }
                };
            }
        }
        format!("{shown} rejected: rm -f style commands are not permitted. Use a safer approach")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::codex::model::rules;

    fn decide(rules_text: &str, approval: Approval, line: &str) -> Verdict {
        let f = rules::read(rules_text, &mut Vec::new());
        assert!(f.loaded(), "{:?}", f.error);
        let refs: Vec<&PrefixRule> = f.rules.iter().collect();
        let hosts = Vec::new();
        let e = Engine::new(&refs, &hosts, approval);
        e.decide(&Input::Line(line.into()))
    }

    #[test]
    fn recorded_split_facts() {
        let rules = "prefix_rule(pattern=[\"git\", \"push\"], decision=\"forbidden\")\nprefix_rule(pattern=[\"git\", \"status\"], decision=\"allow\")\nprefix_rule(pattern=[\"npm\", \"publish\"], decision=\"prompt\")\nprefix_rule(pattern=[\"cat\"], decision=\"forbidden\")\n";
        for (line, want) in [
            ("git push > out.txt", Outcome::Allow { sandboxed: true }),
            ("git push | cat", Outcome::Deny),
            ("git status && git push", Outcome::Deny),
            ("npm publish || true", Outcome::Ask),
            ("git status", Outcome::Allow { sandboxed: false }),
            ("cat <<EOF\nhi\nEOF", Outcome::Allow { sandboxed: true }),
        ] {
            assert_eq!(
                decide(rules, Approval::OnRequest, line).outcome,
                want,
                "{line}"
            );
        }
        let v = decide(rules, Approval::OnRequest, "git push origin main");
        assert_eq!(
            v.reason.as_deref(),
            Some(
                "`/bin/bash -lc 'git push origin main'` rejected: policy forbids commands starting with `git push`"
            )
        );
    }

    #[test]
    fn heuristics_by_approval() {
        for (line, approval, want) in [
            ("rm -rf zz", Approval::OnRequest, Outcome::Ask),
            ("rm -rf zz > /dev/null", Approval::OnRequest, Outcome::Ask),
            ("\"rm\" -rf zz", Approval::OnRequest, Outcome::Ask),
            ("bash -c 'rm -rf zz'", Approval::OnRequest, Outcome::Ask),
            (
                "sudo -u x rm -rf zz",
                Approval::OnRequest,
                Outcome::Allow { sandboxed: true },
            ),
            (
                "rm -- -f",
                Approval::OnRequest,
                Outcome::Allow { sandboxed: true },
            ),
            ("rm -rf zz", Approval::Never, Outcome::Deny),
            ("ls -la", Approval::Untrusted, Outcome::Ask),
            (
                "rm -rf zz",
                Approval::Granular {
                    sandbox_approval: false,
                    rules: false,
                },
                Outcome::Ask,
            ),
        ] {
            assert_eq!(
                decide("", approval, line).outcome,
                want,
                "{line} {approval:?}"
            );
        }
    }
}
