//! A `config.toml` as Codex 0.169.0 reads it, for permissions: the
//! approval policy (granular included), the sandbox, the projects' trust,
//! and the values that make Codex refuse the whole configuration (the
//! session never starts). Read with `toml_edit`, which keeps every key's
//! and value's position for diagnostics and fixes.

use std::ops::Range;
use toml_edit::{Item, TableLike};

/// `approval_policy`, as Codex acts on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Approval {
    OnRequest,
    /// Accepted and acts as `on-request` for commands.
    OnFailure,
    Never,
    /// Only from the command line or a client now (`config.toml` refuses
    /// it); also the default of a project marked untrusted.
    Untrusted,
    Granular {
        sandbox_approval: bool,
        rules: bool,
    },
}

impl Approval {
    pub fn parse_flag(s: &str) -> Option<Approval> {
        match s {
            "on-request" => Some(Approval::OnRequest),
            "on-failure" => Some(Approval::OnFailure),
            "never" => Some(Approval::Never),
            "untrusted" => Some(Approval::Untrusted),
            _ => None,
        }
    }

    pub fn describe(self) -> String {
        match self {
            Approval::OnRequest => "on-request".into(),
            Approval::OnFailure => "on-failure (acts as on-request)".into(),
            Approval::Never => "never".into(),
            Approval::Untrusted => "untrusted".into(),
            Approval::Granular {
                sandbox_approval,
                rules,
            } => format!("granular (sandbox_approval = {sandbox_approval}, rules = {rules})"),
        }
    }
}

/// The approval policy values Codex's `config.toml` names.
pub const APPROVAL_VALUES: &[&str] =
    &["untrusted", "on-failure", "on-request", "granular", "never"];
/// The sandbox modes.
pub const SANDBOX_VALUES: &[&str] = &["read-only", "workspace-write", "danger-full-access"];
/// The trust levels of `[projects."<path>"]`.
pub const TRUST_VALUES: &[&str] = &["trusted", "untrusted"];

/// A value that makes Codex refuse the configuration: no session starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// The top-level key whose value is refused (empty: the file does not
    /// parse). Codex merges the files first: a later file that sets the
    /// key again replaces the refused value.
    pub key: String,
    /// Codex's words.
    pub message: String,
    pub range: Range<usize>,
    /// A replacement Codex accepts that keeps the intent, for the value at
    /// `range` (the fix), with its title.
    pub fix: Option<(String, String)>,
}

/// A key Codex ignores (it warns "Codex is ignoring N unrecognized
/// configuration settings"), with the key it likely means.
#[derive(Debug, Clone, PartialEq)]
pub struct Ignored {
    pub key: String,
    pub range: Range<usize>,
    pub meant: Option<&'static str>,
}

/// `[projects."<path>"] trust_level`.
#[derive(Debug, Clone, PartialEq)]
pub struct ProjectTrust {
    pub path: String,
    pub trusted: bool,
    pub range: Range<usize>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ConfigFile {
    pub approval: Option<(Approval, Range<usize>)>,
    pub sandbox: Option<(String, Range<usize>)>,
    pub default_permissions: Option<(String, Range<usize>)>,
    pub projects: Vec<ProjectTrust>,
    /// Profiles defined (`[profiles.<name>]`): used only with `--profile`.
    pub profiles: Vec<(String, Range<usize>)>,
    pub refusals: Vec<Refusal>,
    pub ignored: Vec<Ignored>,
    /// Every top-level key, with its range (for the outline).
    pub keys: Vec<(String, Range<usize>)>,
}

impl ConfigFile {
    /// Codex starts a session with this file.
    pub fn accepted(&self) -> bool {
        self.refusals.is_empty()
    }

    /// The trust this file gives `root` (a project's git root).
    pub fn trust_of(&self, root: &str) -> Option<bool> {
        let want = root.trim_end_matches('/');
        self.projects
            .iter()
            .rev()
            .find(|p| p.path.trim_end_matches('/') == want)
            .map(|p| p.trusted)
    }
}

/// Keys Codex was seen to ignore, with what they likely mean.
const IGNORED_KNOWN: &[(&str, Option<&str>)] = &[
    ("ask_for_approval", Some("approval_policy")),
    ("approval", Some("approval_policy")),
    ("approvals", Some("approval_policy")),
    ("sandbox", Some("sandbox_mode")),
    (
        "network_access",
        Some("[sandbox_workspace_write] network_access"),
    ),
    (
        "writable_roots",
        Some("[sandbox_workspace_write] writable_roots"),
    ),
    ("trust_level", Some("[projects.\"<path>\"] trust_level")),
    ("commit_attribution", None),
    ("experimental_use_rmcp_client", None),
];

/// The top-level keys of permissions that a misspelling is measured against.
const PERMISSION_KEYS: &[&str] = &[
    "approval_policy",
    "sandbox_mode",
    "sandbox_workspace_write",
    "projects",
    "default_permissions",
    "permissions",
    "profiles",
];

fn span(item: &Item) -> Range<usize> {
    item.span().unwrap_or(0..0)
}

/// Reads a `config.toml`.
pub fn read(text: &str) -> ConfigFile {
    let mut out = ConfigFile::default();
    let doc = match toml_edit::Document::parse(text) {
        Ok(d) => d,
        Err(e) => {
            let range = e.span().unwrap_or(0..0);
            out.refusals.push(Refusal {
                key: String::new(),
                message: e.message().trim().to_string(),
                range: clamp(text, range),
                fix: None,
            });
            return out;
        }
    };
    let root = doc.as_table();
    for (k, item) in root.iter() {
        let key_range = root
            .get_key_value(k)
            .and_then(|(key, _)| key.span())
            .unwrap_or(0..0);
        out.keys.push((k.to_string(), key_range.clone()));
        match k {
            "approval_policy" => read_approval(item, &mut out),
            "sandbox_mode" => match item.as_str() {
                Some(v) if SANDBOX_VALUES.contains(&v) => {
                    out.sandbox = Some((v.to_string(), span(item)));
                }
                Some(v) => out.refusals.push(Refusal {
                    key: "sandbox_mode".into(),
                    message: format!(
                        "unknown variant `{v}`, expected one of `read-only`, `workspace-write`, `danger-full-access`"
                    ),
                    range: span(item),
                    fix: super::closest(v, SANDBOX_VALUES)
                        .or(match v {
                            "full-access" | "full" | "danger" => Some("danger-full-access"),
                            "readonly" | "read" => Some("read-only"),
                            "workspace" | "write" => Some("workspace-write"),
                            _ => None,
                        })
                        .map(|s| (format!("Use `{s}`"), format!("\"{s}\""))),
                }),
                None => out.refusals.push(Refusal {
                    key: "sandbox_mode".into(),
                    message: "invalid type: expected a string".into(),
                    range: span(item),
                    fix: None,
                }),
            },
            "default_permissions" => {
                if let Some(v) = item.as_str() {
                    out.default_permissions = Some((v.to_string(), span(item)));
                }
            }
            "profile" => {
                let name = item.as_str().unwrap_or_default();
                out.refusals.push(Refusal {
                    key: "profile".into(),
                    message: format!(
                        "legacy `profile = \"{name}\"` config is no longer supported; use `--profile {name}`"
                    ),
                    range: key_range.start..span(item).end.max(key_range.end),
                    fix: None,
                });
            }
            "profiles" => {
                if let Some(t) = item.as_table_like() {
                    for (name, _) in t.iter() {
                        let r = t
                            .get_key_value(name)
                            .and_then(|(key, _)| key.span())
                            .unwrap_or(0..0);
                        out.profiles.push((name.to_string(), r));
                    }
                }
            }
            "projects" => read_projects(item, &mut out),
            _ => {
                if let Some((_, meant)) = IGNORED_KNOWN.iter().find(|(n, _)| *n == k) {
                    out.ignored.push(Ignored {
                        key: k.to_string(),
                        range: key_range,
                        meant: *meant,
                    });
                } else if let Some(meant) = super::closest(k, PERMISSION_KEYS) {
                    out.ignored.push(Ignored {
                        key: k.to_string(),
                        range: key_range,
                        meant: Some(meant),
                    });
                }
            }
        }
    }
    out
}

/// `r` inside `text`, on character boundaries.
pub fn clamp(text: &str, r: Range<usize>) -> Range<usize> {
    let mut s = r.start.min(text.len());
    let mut e = r.end.min(text.len()).max(s);
    while !text.is_char_boundary(s) {
        s -= 1;
    }
    while !text.is_char_boundary(e) {
        e += 1;
    }
    s..e
}

fn read_approval(item: &Item, out: &mut ConfigFile) {
    let range = span(item);
    if let Some(v) = item.as_str() {
        match v {
            "on-request" => out.approval = Some((Approval::OnRequest, range)),
            "on-failure" => out.approval = Some((Approval::OnFailure, range)),
            "never" => out.approval = Some((Approval::Never, range)),
            "untrusted" => out.refusals.push(Refusal {
                key: "approval_policy".into(),
                message: "approval_policy = \"untrusted\" is no longer supported; remove this setting"
                    .into(),
                range,
                fix: Some((
                    "Use `on-request` (commands no rule allows run in the sandbox; dangerous ones ask)"
                        .into(),
                    "\"on-request\"".into(),
                )),
            }),
            other => out.refusals.push(Refusal {
                key: "approval_policy".into(),
                message: format!(
                    "unknown variant `{other}`, expected one of `untrusted`, `on-failure`, `on-request`, `granular`, `never`"
                ),
                range,
                fix: super::closest(other, &["on-failure", "on-request", "never"])
                    .map(|s| (format!("Use `{s}`"), format!("\"{s}\""))),
            }),
        }
        return;
    }
    let Some(t) = item.as_table_like() else {
        out.refusals.push(Refusal {
            key: "approval_policy".into(),
            message: "wanted string or table".into(),
            range,
            fix: None,
        });
        return;
    };
    let Some(g) = t.get("granular") else {
        let first = t
            .iter()
            .next()
            .map(|(k, _)| k.to_string())
            .unwrap_or_default();
        out.refusals.push(Refusal {
            key: "approval_policy".into(),
            message: format!("unknown variant `{first}`, expected `granular`"),
            range,
            fix: None,
        });
        return;
    };
    let Some(g) = g.as_table_like() else {
        out.refusals.push(Refusal {
            key: "approval_policy".into(),
            message: "invalid type: expected a table for `granular`".into(),
            range,
            fix: None,
        });
        return;
    };
    let flag = |name: &str| -> Result<Option<bool>, String> {
        match g.get(name) {
            None => Ok(None),
            Some(v) => v
                .as_bool()
                .map(Some)
                .ok_or_else(|| format!("invalid type for `{name}`: expected a boolean")),
        }
    };
    let mut values = [false; 3];
    for (i, name) in ["sandbox_approval", "rules", "mcp_elicitations"]
        .iter()
        .enumerate()
    {
        match flag(name) {
            Ok(Some(b)) => values[i] = b,
            Ok(None) => {
                out.refusals.push(Refusal {
                    key: "approval_policy".into(),
                    message: format!("missing field `{name}`"),
                    range: range.clone(),
                    fix: None,
                });
                return;
            }
            Err(m) => {
                out.refusals.push(Refusal {
                    key: "approval_policy".into(),
                    message: m,
                    range: range.clone(),
                    fix: None,
                });
                return;
            }
        }
    }
    let _ = granular_extra(g);
    out.approval = Some((
        Approval::Granular {
            sandbox_approval: values[0],
            rules: values[1],
        },
        range,
    ));
}

/// The optional granular fields (`skill_approval`, `request_permissions`).
fn granular_extra(g: &dyn TableLike) -> Vec<&str> {
    g.iter()
        .map(|(k, _)| k)
        .filter(|k| matches!(*k, "skill_approval" | "request_permissions"))
        .collect()
}

fn read_projects(item: &Item, out: &mut ConfigFile) {
    let Some(t) = item.as_table_like() else {
        return;
    };
    for (path, entry) in t.iter() {
        let Some(e) = entry.as_table_like() else {
            continue;
        };
        let Some(level) = e.get("trust_level") else {
            continue;
        };
        match level.as_str() {
            Some(v) if TRUST_VALUES.contains(&v) => out.projects.push(ProjectTrust {
                path: path.to_string(),
                trusted: v == "trusted",
                range: span(level),
            }),
            Some(v) => out.refusals.push(Refusal {
                key: "projects".into(),
                message: format!("unknown variant `{v}`, expected `trusted` or `untrusted`"),
                range: span(level),
                fix: super::closest(v, TRUST_VALUES)
                    .map(|s| (format!("Use `{s}`"), format!("\"{s}\""))),
            }),
            None => out.refusals.push(Refusal {
                key: "projects".into(),
                message: "invalid type: expected a string".into(),
                range: span(level),
                fix: None,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_permissions() {
        let c = read(
            "approval_policy = \"never\"\nsandbox_mode = \"read-only\"\n[projects.\"/p\"]\ntrust_level = \"trusted\"\n",
        );
        assert!(c.accepted());
        assert_eq!(c.approval.as_ref().unwrap().0, Approval::Never);
        assert_eq!(c.trust_of("/p/"), Some(true));
        let g = read(
            "approval_policy = { granular = { sandbox_approval = false, rules = true, mcp_elicitations = true } }\n",
        );
        assert_eq!(
            g.approval.unwrap().0,
            Approval::Granular {
                sandbox_approval: false,
                rules: true
            }
        );
        let g = read(
            "[approval_policy.granular]\nsandbox_approval = true\nrules = false\nmcp_elicitations = false\n",
        );
        assert!(g.accepted(), "{:?}", g.refusals);
    }

    #[test]
    fn refusals() {
        let text = "approval_policy = \"untrusted\"\n";
        let c = read(text);
        assert_eq!(&text[c.refusals[0].range.clone()], "\"untrusted\"");
        for (text, msg) in [
            (
                "sandbox_mode = \"full-access\"\n",
                "unknown variant `full-access`",
            ),
            (
                "approval_policy = { granular = { sandbox_approval = true, rules = false } }\n",
                "missing field `mcp_elicitations`",
            ),
            ("profile = \"yolo\"\n", "legacy `profile = \"yolo\"`"),
            ("approval_policy = \"always\"\n", "unknown variant `always`"),
            ("approval_policy = 3\n", "wanted string or table"),
            ("approval_policy = \"never\n", "basic string"),
        ] {
            let c = read(text);
            assert!(
                c.refusals.iter().any(|r| r.message.contains(msg)),
                "{text}: {:?}",
                c.refusals
            );
        }
    }

    #[test]
    fn ignored_keys() {
        let c = read(
            "ask_for_approval = \"never\"\nsandbox = \"x\"\napproval_polcy = 1\nmodel = \"m\"\n",
        );
        let keys: Vec<(&str, Option<&str>)> = c
            .ignored
            .iter()
            .map(|i| (i.key.as_str(), i.meant))
            .collect();
        assert_eq!(
            keys,
            [
                ("ask_for_approval", Some("approval_policy")),
                ("sandbox", Some("sandbox_mode")),
                ("approval_polcy", Some("approval_policy")),
            ]
        );
    }
}
