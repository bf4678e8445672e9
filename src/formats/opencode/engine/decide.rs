//! One tool call decided as OpenCode 1.18.33 decides it: the tool is hidden
//! when the last rule for its permission is a `*` deny; otherwise the tool
//! asks its gates in order — each gate a permission and the patterns it
//! checks, each pattern decided by the last matching rule (ask when none);
//! in a gate any deny denies, else any ask asks. The first gate that does
//! not allow decides the call (an ask the user rejects stops it there).
//!
//! What each tool checks (from the 1.18.33 sources):
//! - `read`: `external_directory` `<dir>/*` when the path is outside the
//!   project, then `read` with the path relative to the worktree;
//! - `edit`, `write`, `apply_patch`: the same with `edit`;
//! - `glob`, `grep`: their own permission with the pattern first, then
//!   `external_directory` for the search folder;
//! - `bash`: `external_directory` for the folders that `cd rm cp mv mkdir
//!   touch chmod chown cat` arguments (and `workdir`) name outside the
//!   project, then `bash` with each command's text (`cd` commands
//!   excepted);
//! - `webfetch` the URL, `websearch`/`codesearch` the query, `task` the
//!   agent type, `skill` the name, `lsp` `*` (after the file's folder
//!   check); any other tool (MCP included) its own name with `*`.

use super::policy::{Policy, Rule};
use crate::core::precedence::Action;
use crate::formats::opencode::scopes::{Env, normalise, relative};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// One pattern checked, and the rule that decided it.
#[derive(Debug, Clone)]
pub struct Check {
    pub pattern: String,
    pub action: Action,
    /// Index in the agent's rule list; `None`: no rule matched (ask).
    pub rule: Option<usize>,
}

/// One permission request a tool makes.
#[derive(Debug, Clone)]
pub struct Gate {
    pub permission: String,
    pub checks: Vec<Check>,
    pub action: Action,
}

/// The runtime's answer for a call.
#[derive(Debug, Clone)]
pub struct Decision {
    pub action: Action,
    pub hidden: bool,
    /// The rule that hides the tool.
    pub hidden_by: Option<usize>,
    /// Every gate asked, in order (the decisive one last).
    pub gates: Vec<Gate>,
    /// Gates after the decisive one (not reached).
    pub unreached: Vec<Gate>,
    /// Why the call is not decided by rules (a bad input).
    pub note: Option<String>,
}

impl Decision {
    /// The check that decided the call.
    pub fn decisive(&self) -> Option<&Check> {
        let g = self.gates.last()?;
        g.checks
            .iter()
            .find(|c| c.action == Action::Deny)
            .or_else(|| g.checks.iter().find(|c| c.action == Action::Ask))
            .or_else(|| g.checks.last())
    }
}

/// The permission a tool's hiding is judged by.
pub fn permission_of(tool: &str) -> &str {
    match tool {
        "edit" | "write" | "apply_patch" => "edit",
        "list_mcp_resources" | "list_mcp_resource_templates" | "read_mcp_resource" => "read",
        t => t,
    }
}

/// The last rule for a permission name (pattern ignored), if it hides the
/// tool.
pub fn hidden_by(rules: &[Rule], tool: &str) -> Option<usize> {
    hidden_by_except(rules, tool, None)
}

/// `hidden_by` of the list without the rule at `except`.
pub fn hidden_by_except(rules: &[Rule], tool: &str, except: Option<usize>) -> Option<usize> {
    let p = permission_of(tool);
    let i = (0..rules.len())
        .rev()
        .find(|&i| Some(i) != except && rules[i].applies_to(p))?;
    hides(&rules[i]).then_some(i)
}

/// `hidden_by`, with the rules found through `index` (of `rules`).
pub fn hidden_by_indexed(
    rules: &[Rule],
    index: &super::policy::ByPermission<'_>,
    tool: &str,
) -> Option<usize> {
    let i = *index.applying(permission_of(tool), |i| &rules[i]).last()?;
    hides(&rules[i]).then_some(i)
}

/// Does this rule, the last for its permission, remove the tool (a `*`
/// deny)?
fn hides(r: &Rule) -> bool {
    r.pattern == "*" && r.action == Action::Deny
}

/// The last matching rule for one pattern.
pub fn evaluate(rules: &[Rule], permission: &str, pattern: &str) -> Check {
    let units = super::wildcard::units(pattern);
    match rules
        .iter()
        .rposition(|r| r.matches_units(permission, &units))
    {
        Some(i) => Check {
            pattern: pattern.to_string(),
            action: rules[i].action,
            rule: Some(i),
        },
        None => Check {
            pattern: pattern.to_string(),
            action: Action::Ask,
            rule: None,
        },
    }
}

fn gate(rules: &[Rule], permission: &str, patterns: &[String]) -> Gate {
    let mut checks = Vec::new();
    let mut action = Action::Allow;
    for p in patterns {
        let c = evaluate(rules, permission, p);
        match c.action {
            Action::Deny => {
                checks.push(c);
                action = Action::Deny;
                // The runtime stops at the first deny.
                break;
            }
            Action::Ask => action = Action::Ask,
            Action::Allow => {}
        }
        checks.push(c);
    }
    Gate {
        permission: permission.to_string(),
        checks,
        action,
    }
}

/// A request a tool makes: permission and patterns.
#[derive(Debug, Clone)]
pub struct Request {
    pub permission: String,
    pub patterns: Vec<String>,
}

fn req(permission: &str, patterns: Vec<String>) -> Request {
    Request {
        permission: permission.to_string(),
        patterns,
    }
}

/// The folder check for a path (`external_directory` `<dir>/*`), when the
/// path is outside the project.
fn external(env: &Env, path: &Path, directory: bool) -> Option<Request> {
    if env.contains(path) {
        return None;
    }
    let dir = if directory {
        path.to_path_buf()
    } else {
        path.parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| path.to_path_buf())
    };
    Some(req("external_directory", vec![dir_glob(&dir)]))
}

/// `path.join(dir, "*")`: the folder check's pattern.
fn dir_glob(dir: &Path) -> String {
    format!("{}/*", dir.display()).replace("//*", "/*")
}

fn absolute(env: &Env, p: &str) -> PathBuf {
    let p = Path::new(p);
    normalise(&if p.is_absolute() {
        p.to_path_buf()
    } else {
        env.directory.join(p)
    })
}

/// The requests a tool call makes, in order; `Err` when the input is not
/// one the tool accepts (it fails before asking).
pub fn requests(env: &Env, tool: &str, input: &Value) -> Result<Vec<Request>, String> {
    let s = |k: &str| input.get(k).and_then(Value::as_str);
    let need = |k: &str| {
        s(k).filter(|v| !v.is_empty())
            .ok_or_else(|| format!("`{tool}` needs a string `{k}`"))
    };
    let mut out = Vec::new();
    match tool {
        "read" => {
            let path = absolute(env, need("filePath")?);
            out.extend(external(env, &path, path.is_dir()));
            out.push(req("read", vec![relative(&env.worktree, &path)]));
        }
        "edit" | "write" | "apply_patch" | "multiedit" | "patch" => {
            let key = if tool == "apply_patch" || tool == "patch" {
                "patchText"
            } else {
                "filePath"
            };
            if key == "patchText" {
                // The patch's own file list decides; a single target is
                // read from `filePath` when given.
                let files = patch_files(s("patchText").unwrap_or(""));
                let files: Vec<PathBuf> = if files.is_empty() {
                    vec![absolute(env, need("filePath")?)]
                } else {
                    files.iter().map(|f| absolute(env, f)).collect()
                };
                for f in &files {
                    out.extend(external(env, f, false));
                }
                out.push(req(
                    "edit",
                    files.iter().map(|f| relative(&env.worktree, f)).collect(),
                ));
            } else {
                let path = absolute(env, need(key)?);
                out.extend(external(env, &path, false));
                out.push(req("edit", vec![relative(&env.worktree, &path)]));
            }
        }
        "glob" | "grep" => {
            let pattern = need("pattern")?;
            out.push(req(tool, vec![pattern.to_string()]));
            let dir = absolute(env, s("path").unwrap_or("."));
            let is_dir = tool == "glob" || dir.is_dir();
            out.extend(external(env, &dir, is_dir));
        }
        "bash" => {
            let command = need("command")?;
            let workdir = s("workdir").map(|w| absolute(env, w));
            let cwd = workdir.clone().unwrap_or_else(|| env.directory.clone());
            let collected = super::bash::collect(command, &cwd, env);
            let mut dirs = collected.dirs;
            if let Some(w) = &workdir
                && !env.contains(w)
                && !dirs.contains(w)
            {
                dirs.push(w.clone());
            }
            if !dirs.is_empty() {
                out.push(req(
                    "external_directory",
                    dirs.iter().map(|d| dir_glob(d)).collect(),
                ));
            }
            if !collected.patterns.is_empty() {
                out.push(req("bash", collected.patterns));
            }
        }
        "webfetch" => {
            let url = need("url")?;
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err("URL must start with http:// or https://".into());
            }
            out.push(req("webfetch", vec![url.to_string()]));
        }
        "websearch" | "codesearch" => out.push(req(tool, vec![need("query")?.to_string()])),
        "task" => out.push(req("task", vec![need("subagent_type")?.to_string()])),
        "skill" => out.push(req("skill", vec![need("name")?.to_string()])),
        "lsp" => {
            if let Some(f) = s("filePath") {
                let path = absolute(env, f);
                out.extend(external(env, &path, false));
            }
            out.push(req("lsp", vec!["*".into()]));
        }
        other => out.push(req(other, vec!["*".into()])),
    }
    Ok(out)
}

/// The files an `apply_patch` text names (`*** Update File: path`, …).
fn patch_files(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| {
            ["*** Add File: ", "*** Update File: ", "*** Delete File: "]
                .iter()
                .find_map(|p| l.strip_prefix(p))
                .map(|p| p.trim().to_string())
        })
        .collect()
}

/// Decides a call for an agent's rules.
pub fn decide(policy: &Policy, rules: &[Rule], tool: &str, input: &Value) -> Decision {
    if let Some(i) = hidden_by(rules, tool) {
        return Decision {
            action: Action::Deny,
            hidden: true,
            hidden_by: Some(i),
            gates: Vec::new(),
            unreached: Vec::new(),
            note: None,
        };
    }
    let reqs = match requests(&policy.env, tool, input) {
        Ok(r) => r,
        Err(e) => {
            return Decision {
                action: Action::Deny,
                hidden: false,
                hidden_by: None,
                gates: Vec::new(),
                unreached: Vec::new(),
                note: Some(e),
            };
        }
    };
    let mut gates = Vec::new();
    let mut unreached = Vec::new();
    let mut action = Action::Allow;
    for r in reqs {
        let g = gate(rules, &r.permission, &r.patterns);
        if action != Action::Allow {
            unreached.push(g);
            continue;
        }
        action = g.action;
        gates.push(g);
    }
    Decision {
        action,
        hidden: false,
        hidden_by: None,
        gates,
        unreached,
        note: None,
    }
}
