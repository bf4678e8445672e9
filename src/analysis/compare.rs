//! A config compared with its earlier text — at a git revision, or in
//! another file: the earlier text stands in for the file (as an open
//! buffer would) and both policies are compared by [`super::diff`]. Shared
//! by `permission-lsp diff` and the editor's lens against `HEAD`.

use crate::analysis::diff::{DiffReport, Side};
use crate::formats::Format as RuntimeFormat;
use crate::workspace::{Context, Overrides};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The largest config read from git or a file.
const MAX_BASE_BYTES: u64 = 64 * 1024 * 1024;

/// Where the earlier text comes from.
pub enum Base {
    /// A git revision (`HEAD`, `main~3`, a commit).
    Rev(String),
    /// A file holding the earlier text.
    File(PathBuf),
}

/// One compared file.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Compared {
    pub path: String,
    /// `changed`, `unchanged`, `new` (absent at the base), `not in git`.
    pub status: &'static str,
}

/// The earlier text of `path` at `rev` (`Ok(None)`: not in that revision).
pub fn git_text(path: &Path, rev: &str) -> Result<Option<String>, String> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let top = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["rev-parse", "--show-toplevel"])
        .output()
        .map_err(|e| format!("git: {e}"))?;
    if !top.status.success() {
        return Err(format!("{} is not in a git work tree", path.display()));
    }
    let top = PathBuf::from(String::from_utf8_lossy(&top.stdout).trim());
    let top = top.canonicalize().unwrap_or(top);
    let full = path
        .parent()
        .and_then(|p| p.canonicalize().ok())
        .map(|p| p.join(path.file_name().unwrap_or_default()))
        .unwrap_or_else(|| path.to_path_buf());
    let rel = full
        .strip_prefix(&top)
        .map_err(|_| format!("{} is outside its git work tree", path.display()))?;
    // `git show REV:./path` resolves relative to the top level.
    let spec = format!("{rev}:{}", rel.display());
    let out = Command::new("git")
        .arg("-C")
        .arg(&top)
        .args(["cat-file", "-e", &spec])
        .output()
        .map_err(|e| format!("git: {e}"))?;
    if !out.status.success() {
        // Is the revision itself there?
        let ok = Command::new("git")
            .arg("-C")
            .arg(&top)
            .args([
                "rev-parse",
                "--verify",
                "--quiet",
                &format!("{rev}^{{commit}}"),
            ])
            .output()
            .map_err(|e| format!("git: {e}"))?;
        if !ok.status.success() {
            return Err(format!("git: unknown revision `{rev}`"));
        }
        return Ok(None);
    }
    let size = Command::new("git")
        .arg("-C")
        .arg(&top)
        .args(["cat-file", "-s", &spec])
        .output()
        .map_err(|e| format!("git: {e}"))?;
    let size: u64 = String::from_utf8_lossy(&size.stdout)
        .trim()
        .parse()
        .unwrap_or(0);
    if size > MAX_BASE_BYTES {
        return Err(format!("{spec}: larger than {MAX_BASE_BYTES} bytes"));
    }
    let out = Command::new("git")
        .arg("-C")
        .arg(&top)
        .args(["cat-file", "blob", &spec])
        .output()
        .map_err(|e| format!("git: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "git cat-file {spec}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(Some(String::from_utf8_lossy(&out.stdout).into_owned()))
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// The comparison: the files compared and the differences, with the
/// runtime's name.
pub struct Comparison {
    pub files: Vec<Compared>,
    pub report: DiffReport,
    pub runtime: String,
    pub base: String,
}

/// Compares the config (the one named, or every file the session reads)
/// with its earlier text. `ctx.open` supplies the current text of open
/// buffers (the editor's unsaved ones).
pub fn compare(
    runtime: &'static dyn RuntimeFormat,
    ctx: &Context<'_>,
    config: Option<&Path>,
    base: &Base,
) -> Result<Comparison, String> {
    // The files to compare: the one named, or every file of the session
    // that exists.
    let mut ctx = ctx.with(&Overrides::default());
    // The agents compared one by one, when the format has several lists
    // and none was named (an agent file changes only its agent's list).
    let agents_now = if ctx.agent_explicit {
        Vec::new()
    } else {
        runtime.diff_agents(&ctx)
    };
    let files: Vec<PathBuf> = match config {
        Some(c) => {
            let c = absolute(c);
            let policy = runtime.effective_policy(&ctx)?;
            let in_session = policy.files.iter().any(|f| {
                f.present && f.path.as_deref().map(|p| absolute(Path::new(p))) == Some(c.clone())
            });
            if !in_session {
                // Not one the session reads where it stands: read it as the
                // user's global file.
                ctx.global_config = Some(c.clone());
            }
            vec![c]
        }
        None => {
            if matches!(base, Base::File(_)) {
                return Err("--base FILE needs the CONFIG it stands for".into());
            }
            // With every agent's files when the agents are compared one
            // by one.
            let mut sessions = vec![ctx.with(&Overrides::default())];
            for a in agents_now
                .iter()
                .filter(|a| *a != crate::contract::NO_AGENT)
            {
                sessions.push(ctx.with(&Overrides {
                    agent: Some(a.clone()),
                    ..Overrides::default()
                }));
            }
            let mut files: Vec<PathBuf> = Vec::new();
            for s in &sessions {
                for f in runtime
                    .effective_policy(s)?
                    .files
                    .iter()
                    .filter(|f| f.present)
                {
                    if let Some(p) = f.path.as_deref().map(|p| absolute(Path::new(p)))
                        && !files.contains(&p)
                    {
                        files.push(p);
                    }
                }
            }
            files
        }
    };
    let mut earlier: HashMap<PathBuf, String> = HashMap::new();
    let mut compared = Vec::new();
    let base_name = match base {
        Base::Rev(r) => r.clone(),
        Base::File(f) => f.display().to_string(),
    };
    for f in &files {
        let text = match base {
            Base::Rev(rev) => match git_text(f, rev) {
                Ok(t) => t,
                Err(e) if config.is_none() && e.contains("not in a git work tree") => {
                    compared.push(Compared {
                        path: f.display().to_string(),
                        status: "not in git",
                    });
                    continue;
                }
                Err(e) => return Err(e),
            },
            Base::File(b) => Some(
                crate::fsio::read_capped(b, MAX_BASE_BYTES)
                    .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
                    .map_err(|e| format!("--base {}: {e}", b.display()))?,
            ),
        };
        // The open buffer (the editor's unsaved text), else the file.
        let now = (ctx.open)(f).or_else(|| crate::workspace::read_text(f, MAX_BASE_BYTES));
        let status = match (&text, &now) {
            (None, _) => "new",
            (Some(t), Some(n)) if t == n => "unchanged",
            _ => "changed",
        };
        compared.push(Compared {
            path: f.display().to_string(),
            status,
        });
        // A file absent at the base reads as one without rules.
        earlier.insert(f.clone(), text.unwrap_or_else(|| "{}".to_string()));
    }
    let lookup = |p: &Path| -> Option<String> {
        earlier
            .get(p)
            .or_else(|| earlier.get(&absolute(p)))
            .cloned()
    };
    let mut before_ctx = ctx.with(&Overrides::default());
    before_ctx.open = &lookup;
    // With the agents of the earlier texts too (an agent file removed).
    let mut agents = agents_now;
    if !ctx.agent_explicit {
        for a in runtime.diff_agents(&before_ctx) {
            if !agents.contains(&a) {
                agents.push(a);
            }
        }
    }
    let work = ctx
        .options
        .diff_work
        .unwrap_or(crate::analysis::diff::SURFACE_WORK);
    let one = |after: &Context<'_>, before: &Context<'_>| -> Result<_, String> {
        let before_sim = runtime.simulator(before)?;
        let before_policy = runtime.effective_policy(before)?;
        let after_sim = runtime.simulator(after)?;
        let after_policy = runtime.effective_policy(after)?;
        let report = crate::analysis::diff::diff_within(
            runtime,
            Side {
                simulator: before_sim.as_ref(),
                policy: &before_policy,
            },
            Side {
                simulator: after_sim.as_ref(),
                policy: &after_policy,
            },
            &after.options.home,
            work,
        );
        Ok((report, after_policy.runtime))
    };
    let (report, runtime_name) = if agents.is_empty() {
        one(&ctx, &before_ctx)?
    } else {
        let mut merged = crate::analysis::diff::DiffReport::default();
        let mut name = String::new();
        for agent in &agents {
            let pick = Overrides {
                agent: (agent != crate::contract::NO_AGENT).then(|| agent.clone()),
                ..Overrides::default()
            };
            let (after, mut before) = (ctx.with(&pick), before_ctx.with(&pick));
            before.open = &lookup;
            let (r, n) = one(&after, &before)?;
            merged.merge_agent(agent, r);
            name = n;
        }
        (merged, name)
    };
    Ok(Comparison {
        files: compared,
        report,
        runtime: runtime_name,
        base: base_name,
    })
}
