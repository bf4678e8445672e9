//! The files an OpenCode 1.18.33 session reads, in loading order: the
//! global folder's `config.json`, `opencode.json`, `opencode.jsonc`;
//! `$OPENCODE_CONFIG`; every `opencode.json` / `opencode.jsonc` from the
//! worktree root down to the working directory; the `.opencode` folders
//! from the working directory up to the worktree, then `~/.opencode` (their
//! `opencode.json(c)`, then their `agent(s)/**/*.md` and `mode(s)/*.md`;
//! the global folder's agents first); `$OPENCODE_CONFIG_CONTENT`; the
//! managed `/etc/opencode/opencode.json(c)`. And the session's places
//! (home, working directory, worktree, data and temporary folders).

use crate::contract::Context;
use crate::formats::opencode::engine::policy::{Layer, SourceFile};
use crate::formats::opencode::model::config::{self, Read};
use std::path::{Path, PathBuf};

/// The session's locations.
#[derive(Debug, Clone)]
pub struct Env {
    pub home: PathBuf,
    pub directory: PathBuf,
    /// The git worktree root, else `/`.
    pub worktree: PathBuf,
    pub config_dir: PathBuf,
    pub data_dir: PathBuf,
    pub tmp_dir: PathBuf,
    pub vars: Vec<(String, String)>,
}

impl Env {
    pub fn var(&self, name: &str) -> Option<&str> {
        self.vars
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The tool-output folder glob every agent may read.
    pub fn tool_output_glob(&self) -> String {
        format!("{}/tool-output/*", self.data_dir.display())
    }

    /// Is `path` inside the project (working directory or worktree)?
    pub fn contains(&self, path: &Path) -> bool {
        path.starts_with(&self.directory)
            || (self.worktree != Path::new("/") && path.starts_with(&self.worktree))
    }

    /// A session with no files around: `$HOME`, working directory `/`.
    pub fn detached() -> Env {
        let home = std::env::var_os("HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("/"));
        Env {
            config_dir: home.join(".config/opencode"),
            data_dir: home.join(".local/share/opencode"),
            tmp_dir: PathBuf::from("/tmp/opencode"),
            home,
            directory: PathBuf::from("/"),
            worktree: PathBuf::from("/"),
            vars: Vec::new(),
        }
    }

    pub fn from_context(ctx: &Context<'_>) -> Env {
        let vars: Vec<(String, String)> = ctx.options.runtime_args.clone();
        let get = |n: &str| {
            vars.iter()
                .rev()
                .find(|(k, _)| k == n)
                .map(|(_, v)| v.clone())
        };
        let home = {
            let h = ctx.options.home.as_str();
            if !h.is_empty() && h != "~" {
                normalise(&crate::fsio::absolute(Path::new(h)).unwrap_or_else(|_| PathBuf::from(h)))
            } else {
                std::env::var_os("HOME")
                    .map(PathBuf::from)
                    .unwrap_or_else(|| PathBuf::from("/"))
            }
        };
        let directory = normalise(&ctx.cwd);
        let worktree =
            crate::fsio::git_root(&directory).map_or_else(|| PathBuf::from("/"), Path::to_path_buf);
        let config_dir = get("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| home.join(".config"))
            .join("opencode");
        let data_dir = get("XDG_DATA_HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| home.join(".local/share"))
            .join("opencode");
        let tmp_dir = get("TMPDIR")
            .map(|t| PathBuf::from(t.trim_end_matches('/')))
            .unwrap_or_else(|| PathBuf::from("/tmp"))
            .join("opencode");
        Env {
            home,
            directory,
            worktree,
            config_dir,
            data_dir,
            tmp_dir,
            vars,
        }
    }
}

/// A config read with its `{env:…}`/`{file:…}` references replaced as
/// OpenCode replaces them: the session's variables, the files (an open
/// buffer wins over the disk) relative to `dir`.
pub fn read_with_refs(
    text: &str,
    dir: &Path,
    env: &Env,
    open: crate::contract::context::OpenBuffers<'_>,
) -> config::Read {
    use crate::formats::opencode::model::refs;
    let var = |n: &str| env.var(n).map(str::to_string);
    let read = |p: &Path| -> Result<String, refs::Unreadable> {
        if let Some(t) = open(p) {
            return Ok(t);
        }
        // Only the project's and OpenCode's own folders are read; a file
        // elsewhere (an API key) is looked at, never read.
        let inside = [
            dir,
            env.directory.as_path(),
            env.worktree.as_path(),
            env.config_dir.as_path(),
            &env.home.join(".opencode"),
        ]
        .iter()
        .any(|d| *d != Path::new("/") && p.starts_with(d));
        if !inside {
            return match std::fs::metadata(p) {
                Ok(m) if m.is_file() => Err(refs::Unreadable::NotRead),
                Ok(_) => Err(refs::Unreadable::Other),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    Err(refs::Unreadable::Missing)
                }
                Err(_) => Err(refs::Unreadable::Other),
            };
        }
        match crate::fsio::read_capped(p, config::MAX_BYTES) {
            Ok(b) => Ok(String::from_utf8_lossy(&b).into_owned()),
            Err(crate::fsio::ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
                Err(refs::Unreadable::Missing)
            }
            Err(_) => Err(refs::Unreadable::Other),
        }
    };
    let resolver = refs::Resolver {
        dir,
        home: &env.home,
        var: &var,
        read: &read,
    };
    config::read_config_with(text, Some(&resolver))
}

/// `/a/./b/../c` → `/a/c`, lexically.
pub fn normalise(p: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::Normal(n) => out.push(n),
            _ => {}
        }
    }
    out
}

/// Node's `path.relative(from, to)` for absolute, normalised paths.
pub fn relative(from: &Path, to: &Path) -> String {
    let f: Vec<_> = from.components().collect();
    let t: Vec<_> = to.components().collect();
    let common = f.iter().zip(&t).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = Vec::new();
    for _ in common..f.len() {
        parts.push("..".into());
    }
    for c in &t[common..] {
        parts.push(c.as_os_str().to_string_lossy().into_owned());
    }
    parts.join("/")
}

/// Every file a session of `ctx` reads, in loading order (open buffers
/// win), with the session's places.
pub fn session_files(ctx: &Context<'_>) -> (Env, Vec<SourceFile>) {
    load(ctx, false)
}

/// The files of the session, in loading order, read but not parsed (their
/// `read` is empty): which files there are does not depend on what they
/// say. Listing a session of a 10 MB agent file this way skips its parse.
pub fn listed_files(ctx: &Context<'_>) -> (Env, Vec<SourceFile>) {
    load(ctx, true)
}

fn load(ctx: &Context<'_>, list_only: bool) -> (Env, Vec<SourceFile>) {
    let env = Env::from_context(ctx);
    let mut loader = Loader {
        ctx,
        env: &env,
        files: Vec::new(),
        list_only,
    };
    // 1. The global folder (or the file named on the command line).
    if let Some(g) = &ctx.global_config {
        loader.config(g, Layer::Global);
    } else {
        for name in ["config.json", "opencode.json", "opencode.jsonc"] {
            loader.config(&env.config_dir.join(name), Layer::Global);
        }
    }
    if let Some(c) = env.var("OPENCODE_CONFIG") {
        loader.config(Path::new(c), Layer::Custom);
    }
    let project_config = env.var("OPENCODE_DISABLE_PROJECT_CONFIG").is_none();
    // 2. Project files, root first; in a folder `.json` before `.jsonc`.
    if project_config {
        let ups = up_dirs(&env.directory, &env.worktree);
        for d in ups.iter().rev() {
            for name in ["opencode.json", "opencode.jsonc"] {
                loader.config(&d.join(name), Layer::Project);
            }
        }
    }
    // 3. Config folders: the global one, `.opencode` from the working
    // directory up, `~/.opencode`, `$OPENCODE_CONFIG_DIR`.
    let mut dirs = vec![env.config_dir.clone()];
    if project_config {
        for d in up_dirs(&env.directory, &env.worktree) {
            let o = d.join(".opencode");
            if crate::fsio::is_dir(&o) {
                dirs.push(o);
            }
        }
    }
    let home_dot = env.home.join(".opencode");
    if crate::fsio::is_dir(&home_dot) {
        dirs.push(home_dot);
    }
    if let Some(d) = env.var("OPENCODE_CONFIG_DIR") {
        dirs.push(PathBuf::from(d));
    }
    let mut seen = Vec::new();
    for d in dirs {
        if seen.contains(&d) {
            continue;
        }
        seen.push(d.clone());
        if d.ends_with(".opencode") || env.var("OPENCODE_CONFIG_DIR") == d.to_str() {
            for name in ["opencode.json", "opencode.jsonc"] {
                loader.config(&d.join(name), Layer::DotOpencode);
            }
        }
        for f in markdown_files(&d, &["agent", "agents"], true) {
            loader.agent_file(&d, &f, false);
        }
        for f in markdown_files(&d, &["mode", "modes"], false) {
            loader.agent_file(&d, &f, true);
        }
    }
    // 4. Inline content, 5. managed files.
    if let Some(c) = env.var("OPENCODE_CONFIG_CONTENT") {
        // Its relative references are the working directory's (read from
        // the CLI's bundle: `dir: directory`; not recorded).
        let read = loader.read_config(c, &env.directory);
        loader.files.push(SourceFile {
            path: PathBuf::from("OPENCODE_CONFIG_CONTENT"),
            layer: Layer::ConfigContent,
            text: c.to_string(),
            read,
            yaml_error: None,
            index: Default::default(),
        });
    }
    let managed = PathBuf::from(
        env.var("OPENCODE_TEST_MANAGED_CONFIG_DIR")
            .unwrap_or("/etc/opencode"),
    );
    for name in ["opencode.json", "opencode.jsonc"] {
        loader.config(&managed.join(name), Layer::Managed);
    }
    let files = loader.files;
    (env, files)
}

/// The folders from `dir` up to `stop` (included), nearest first.
fn up_dirs(dir: &Path, stop: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for d in dir.ancestors() {
        out.push(d.to_path_buf());
        if d == stop {
            break;
        }
    }
    out
}

/// The most folders and files one discovery looks at: a hostile
/// repository (a link to `/`, a huge tree) costs no more than this.
const MAX_DIRS: usize = 2_000;
const MAX_ENTRIES: usize = 20_000;

/// Markdown files under `dir/{names}/` (recursively or not), sorted. A
/// linked folder is followed only when it stays inside that folder (a
/// link out of it — to `/`, to the home — is not walked), to a depth of
/// 8, and the walk stops at `MAX_DIRS` folders and `MAX_ENTRIES` entries;
/// a linked file is read only when its target is inside the folder.
fn markdown_files(dir: &Path, names: &[&str], recursive: bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let (mut dirs, mut entries) = (0usize, 0usize);
    for n in names {
        let root = dir.join(n);
        let Some(real_root) = crate::fsio::real_path(&root) else {
            continue;
        };
        let mut stack = vec![(root, 0usize)];
        while let Some((d, depth)) = stack.pop() {
            dirs += 1;
            if dirs > MAX_DIRS {
                break;
            }
            let Ok(rd) = crate::fsio::read_dir(&d) else {
                continue;
            };
            for e in rd.flatten() {
                entries += 1;
                if entries > MAX_ENTRIES {
                    break;
                }
                let p = e.path();
                let Ok(t) = e.file_type() else { continue };
                let linked_dir = t.is_symlink()
                    && p.is_dir()
                    && std::fs::canonicalize(&p).is_ok_and(|r| r.starts_with(&real_root));
                if (t.is_dir() || linked_dir) && recursive && depth < 8 {
                    stack.push((p, depth + 1));
                } else if p.extension().is_some_and(|x| x == "md")
                    && !p.is_dir()
                    && (!t.is_symlink()
                        || std::fs::canonicalize(&p).is_ok_and(|r| r.starts_with(&real_root)))
                {
                    // A linked file is read only when it stays inside too.
                    out.push(p);
                }
            }
        }
    }
    out.sort();
    out
}

struct Loader<'c, 'a> {
    ctx: &'c Context<'a>,
    env: &'c Env,
    files: Vec<SourceFile>,
    /// Files are read, not parsed ([`listed_files`]).
    list_only: bool,
}

impl Loader<'_, '_> {
    /// A config's reading, its references resolved from `dir` (nothing
    /// when only listing).
    fn read_config(&self, text: &str, dir: &Path) -> Read {
        if self.list_only {
            return Read::default();
        }
        read_with_refs(text, dir, self.env, self.ctx.open)
    }

    fn text(&self, path: &Path) -> Option<String> {
        (self.ctx.open)(path).or_else(|| crate::fsio::read_text(path, config::MAX_BYTES))
    }

    fn config(&mut self, path: &Path, layer: Layer) {
        if self.files.iter().any(|f| f.path == path) {
            return;
        }
        let Some(text) = self.text(path) else {
            return;
        };
        let read = self.read_config(&text, path.parent().unwrap_or(Path::new("/")));
        self.files.push(SourceFile {
            path: path.to_path_buf(),
            layer,
            text,
            read,
            yaml_error: None,
            index: Default::default(),
        });
    }

    fn agent_file(&mut self, dir: &Path, path: &Path, mode: bool) {
        let Some(text) = self.text(path) else {
            return;
        };
        let name = agent_name(dir, path);
        // (Nothing to read when only listing.)
        let parsed = (!self.list_only).then(|| config::read_agent(&text, &name));
        let (read, yaml_error) = match parsed {
            None => (Read::default(), None),
            Some(Ok(mut r)) => {
                if mode {
                    for a in &mut r.agents {
                        a.mode = Some("primary".into());
                    }
                    // A mode file that does not decode is skipped, not fatal.
                    if !r.accepted() {
                        r = Read::default();
                    }
                }
                (r, None)
            }
            Some(Err(e)) if e.without_frontmatter => {
                (config::agent_without_frontmatter(&name), Some(e))
            }
            Some(Err(e)) => (Read::default(), Some(e)),
        };
        self.files.push(SourceFile {
            path: path.to_path_buf(),
            layer: Layer::AgentFile,
            text,
            read,
            yaml_error,
            index: Default::default(),
        });
    }
}

/// An agent file's name: its path under `agent/` or `agents/`, without the
/// extension (`agents/review/deep.md` → `review/deep`).
pub fn agent_name(dir: &Path, path: &Path) -> String {
    let rel = path
        .strip_prefix(dir)
        .map(|p| p.to_string_lossy().replace('\\', "/"))
        .unwrap_or_default();
    let under = ["agent/", "agents/", "mode/", "modes/"]
        .iter()
        .find_map(|p| rel.strip_prefix(p).map(str::to_string))
        .unwrap_or_else(|| {
            path.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        });
    under
        .strip_suffix(".md")
        .map(str::to_string)
        .unwrap_or(under)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Listing a session without parsing it finds the same files, in the
    /// same order and layers, as loading it (broken files included).
    #[test]
    fn listing_finds_what_loading_finds() {
        let dir =
            std::env::temp_dir().join(format!("permission-lsp-oc-list-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let project = dir.join("p");
        let home = dir.join("home");
        for (path, text) in [
            ("p/opencode.json", "{\"permission\": {\"bash\": \"ask\"}}"),
            ("p/opencode.jsonc", "{ broken"),
            (
                "p/.opencode/opencode.jsonc",
                "{\"permission\": {\"edit\": \"deny\"}}",
            ),
            (
                "p/.opencode/agents/a.md",
                "---\npermission:\n  bash: allow\n---\nA.\n",
            ),
            ("p/.opencode/agents/b.md", "---\n*: [\n---\nBroken.\n"),
            ("p/.opencode/modes/m.md", "no frontmatter\n"),
            (
                "home/.config/opencode/opencode.json",
                "{\"permission\": {\"*\": \"allow\"}}",
            ),
            (
                "home/.config/opencode/agents/g.md",
                "---\ndescription: g\n---\n",
            ),
        ] {
            let p = dir.join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, text).unwrap();
        }
        std::fs::create_dir_all(project.join(".git")).unwrap();
        let ctx = Context {
            options: crate::contract::AnalysisOptions {
                home: home.display().to_string(),
                ..Default::default()
            },
            cwd: project.clone(),
            cwd_explicit: true,
            agent_explicit: false,
            document: None,
            global_config: None,
            open: &crate::contract::context::no_buffers,
        };
        let shape = |files: &[SourceFile]| -> Vec<(PathBuf, String)> {
            files
                .iter()
                .map(|f| (f.path.clone(), f.layer.name().to_string()))
                .collect()
        };
        let (_, loaded) = session_files(&ctx);
        let (_, listed) = listed_files(&ctx);
        assert_eq!(shape(&listed), shape(&loaded));
        assert!(loaded.len() >= 7, "{:?}", shape(&loaded));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn relative_paths_as_node() {
        assert_eq!(relative(Path::new("/a/b"), Path::new("/a/b/c.md")), "c.md");
        assert_eq!(
            relative(Path::new("/tmp/ocp/p1"), Path::new("/tmp/oc/x/*.md")),
            "../../oc/x/*.md"
        );
        assert_eq!(relative(Path::new("/"), Path::new("/tmp/x")), "tmp/x");
    }

    #[cfg(unix)]
    #[test]
    fn agent_discovery_stays_in_its_folder() {
        let dir =
            std::env::temp_dir().join(format!("permission-lsp-oc-links-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let agents = dir.join("agents");
        std::fs::create_dir_all(agents.join("team")).unwrap();
        std::fs::write(agents.join("a.md"), "---\n---\n").unwrap();
        std::fs::write(agents.join("team/b.md"), "---\n---\n").unwrap();
        std::fs::write(dir.join("outside.md"), "---\n---\n").unwrap();
        std::os::unix::fs::symlink("/", agents.join("root")).unwrap();
        std::os::unix::fs::symlink(dir.join("outside.md"), agents.join("c.md")).unwrap();
        std::os::unix::fs::symlink(agents.join("team"), agents.join("again")).unwrap();
        let found: Vec<String> = markdown_files(&dir, &["agents"], true)
            .iter()
            .map(|p| p.strip_prefix(&agents).unwrap().display().to_string())
            .collect();
        assert_eq!(found, ["a.md", "again/b.md", "team/b.md"]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
