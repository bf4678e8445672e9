use clap::{Parser, Subcommand};
use permission_lsp::analysis::AnalysisOptions;
use permission_lsp::cli;
use std::path::PathBuf;

/// A language server and checker for AI coding agent permission configs.
#[derive(Parser)]
#[command(name = "permission-lsp", version, about)]
struct Cli {
    /// Serve LSP over stdio (what editors run; same as `serve`).
    #[arg(long, global = false)]
    stdio: bool,
    #[command(subcommand)]
    command: Option<Command>,
}

/// The flags every command shares: the same flag means the same thing in
/// `check`, `simulate` and `explain`.
#[derive(clap::Args, Clone)]
struct ScopeArgs {
    /// The agent whose rules apply (the help lists the registry's formats).
    #[arg(long, value_name = "FORMAT")]
    runtime: Option<String>,
    /// The runtime version whose rules apply (default: the format's; pi:
    /// `auto` — the installed version, else the lowest version that accepts
    /// the file's keys, else 20.7.3). `simulate --target-version all`
    /// answers for every known version side by side.
    #[arg(long, value_name = "VERSION")]
    target_version: Option<String>,
    /// Override a lint level: CODE=off|error|warning|info|hint (repeatable).
    #[arg(long = "level", value_name = "CODE=LEVEL")]
    levels: Vec<String>,
    /// The home directory: where `~/` in patterns expands and where the
    /// user's global files are found (default: $HOME).
    #[arg(long, value_name = "DIR")]
    home: Option<PathBuf>,
    /// The active agent, whose agent files join the scopes.
    #[arg(long, value_name = "NAME")]
    agent: Option<String>,
    /// The project directory: the session's working directory, where the
    /// project files are found (default: the current directory).
    #[arg(long, visible_alias = "project", value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// The user's global config file, instead of the runtime's location.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// An environment variable of the simulated session, NAME=VALUE (the
    /// help lists each format's).
    #[arg(long = "runtime-env", value_name = "NAME=VALUE")]
    runtime_env: Vec<String>,
    /// The formats' own session options (`--permission-mode`, …), as
    /// `runtime_args`: their flags are built from the formats'
    /// declarations, not listed here.
    #[arg(skip)]
    session: Vec<(String, String)>,
}

/// A command-line error: exit status 2.
struct UsageError(String);

type DynFormat = &'static dyn permission_lsp::formats::Format;

impl ScopeArgs {
    fn format(&self) -> Result<DynFormat, UsageError> {
        match &self.runtime {
            None => Ok(permission_lsp::formats::default_format()),
            Some(id) => permission_lsp::formats::by_id(id).ok_or_else(|| {
                let known: Vec<&str> = permission_lsp::formats::all()
                    .iter()
                    .map(|f| f.id())
                    .collect();
                UsageError(format!(
                    "--runtime: unknown format `{id}` (known: {})",
                    known.join(", ")
                ))
            }),
        }
    }

    fn options(&self) -> Result<AnalysisOptions, UsageError> {
        let format = self.format()?;
        let profile = match &self.target_version {
            Some(v) => format
                .profile(v)
                .map_err(|e| UsageError(format!("--target-version: {e}")))?,
            None => format.default_profile(),
        };
        let mut options = AnalysisOptions::for_profile(profile);
        for l in &self.levels {
            options
                .levels
                .parse_assignment(l, &permission_lsp::analysis::code_by_name)
                .map_err(UsageError)?;
        }
        options.home = match &self.home {
            Some(h) => h.display().to_string(),
            None => std::env::var("HOME").unwrap_or_else(|_| "~".into()),
        };
        options.agent = self.agent.clone();
        if options.profile.auto {
            options.installed = format.installed_version(&options);
        }
        options.runtime_args.extend(self.session.iter().cloned());
        for kv in &self.runtime_env {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| UsageError(format!("--runtime-env: `{kv}` is not NAME=VALUE")))?;
            options.runtime_args.push((k.to_string(), v.to_string()));
        }
        Ok(options)
    }

    /// The resolved context for `simulate` and `explain`; a named directory
    /// or file that does not exist or cannot be read is an error.
    fn context(&self) -> Result<permission_lsp::workspace::Context<'static>, UsageError> {
        let options = self.options()?;
        let cwd = match &self.cwd {
            Some(dir) => {
                existing(dir, true, "--cwd (--project)")?;
                Some(std::path::absolute(dir).unwrap_or_else(|_| dir.clone()))
            }
            None => None,
        };
        if let Some(f) = &self.config {
            existing(f, false, "--config")?;
        }
        if let Some(h) = &self.home {
            existing(h, true, "--home")?;
        }
        let overrides = permission_lsp::workspace::Overrides {
            cwd,
            agent: self.agent.clone(),
            global_config: self.config.clone(),
            ..Default::default()
        };
        Ok(permission_lsp::workspace::resolve(
            &options, None, None, &overrides, None,
        ))
    }
}

impl ScopeArgs {
    /// The format named with `--runtime`, when one is (log commands read
    /// only its logs then).
    fn only_format(
        &self,
    ) -> Result<Option<&'static dyn permission_lsp::formats::Format>, UsageError> {
        match &self.runtime {
            Some(_) => self.format().map(Some),
            None => Ok(None),
        }
    }

    /// The context for a format's logs: these flags, with that format
    /// unless one was named.
    fn context_of(
        &self,
        f: &'static dyn permission_lsp::formats::Format,
    ) -> Result<permission_lsp::workspace::Context<'static>, String> {
        let mut s = self.clone();
        if s.runtime.is_none() {
            s.runtime = Some(f.id().to_string());
        }
        s.context().map_err(|UsageError(e)| e)
    }
}

impl ScopeArgs {
    /// The formats to answer for, each with its context: the one named
    /// with `--runtime`; else the format of the `--config` file; else every
    /// format whose files a session started in `--cwd` reads (from the
    /// project and from the home). None found is an error that says where
    /// each format looks. `pinned` is true when the user chose.
    fn formats(&self) -> Result<Answering, UsageError> {
        // `--target-version all` is answered version by version later.
        let mut this = self.clone();
        if this.target_version.as_deref() == Some("all") {
            this.target_version = None;
        }
        let this = &this;
        if this.runtime.is_some() {
            let f = this.format()?;
            return Ok(Answering {
                answers: vec![(f, this.context()?, Vec::new())],
                pinned: true,
            });
        }
        if let Some(c) = &this.config {
            existing(c, false, "--config")?;
            let text = permission_lsp::workspace::read_text(c, 16 << 20).unwrap_or_default();
            let f = match permission_lsp::formats::detect_file(&c.to_string_lossy(), &text) {
                permission_lsp::formats::Detected::Kind(k) => k.format,
                // The user's global config file of pi, the format that
                // reads `--config` files by default.
                _ => permission_lsp::formats::default_format(),
            };
            let mut one = this.clone();
            one.runtime = Some(f.id().to_string());
            return Ok(Answering {
                answers: vec![(f, one.context()?, Vec::new())],
                pinned: true,
            });
        }
        let probe = this.context()?;
        let (present, absent) = permission_lsp::formats::present(&probe);
        if present.is_empty() {
            let mut message = nothing_found(&probe.cwd, &absent);
            // From a subdirectory: what a session started at the project's
            // root would read.
            if let Some(root) = probe.cwd.parent().and_then(permission_lsp::fsio::git_root) {
                let mut up = this.clone();
                up.cwd = Some(root.to_path_buf());
                if let Ok(ctx) = up.context() {
                    let (there, _) = permission_lsp::formats::present(&ctx);
                    let found: Vec<String> = there
                        .iter()
                        .map(|(f, s)| {
                            let files: Vec<String> = s
                                .present
                                .iter()
                                .map(|x| cli::discover::shown(&x.path, root, &ctx.options.home))
                                .collect();
                            format!("{} ({})", f.display_name(), files.join(", "))
                        })
                        .collect();
                    if !found.is_empty() {
                        message.push_str(&format!(
                            "\nthe project at {} has configs of {}: a session started there reads them (--cwd {})",
                            root.display(),
                            found.join(", "),
                            root.display()
                        ));
                    }
                }
            }
            return Err(UsageError(message));
        }
        let mut answers = Vec::new();
        for (f, files) in present {
            let mut one = this.clone();
            one.runtime = Some(f.id().to_string());
            answers.push((f, one.context()?, files.present));
        }
        Ok(Answering {
            answers,
            pinned: false,
        })
    }
}

/// The formats a command answers for.
struct Answering {
    answers: Vec<(
        DynFormat,
        permission_lsp::workspace::Context<'static>,
        Vec<permission_lsp::formats::SessionFile>,
    )>,
    /// Chosen with `--runtime` or `--config` rather than found.
    pinned: bool,
}

impl Answering {
    /// Tells, on standard error, which agent answers and from which files
    /// when it was found rather than named.
    fn announce(&self, cwd: Option<&std::path::Path>) {
        if self.pinned {
            return;
        }
        for (f, ctx, files) in &self.answers {
            let base = cwd.unwrap_or(&ctx.cwd);
            let shown: Vec<String> = files
                .iter()
                .map(|s| cli::discover::shown(&s.path, base, &ctx.options.home))
                .collect();
            eprintln!(
                "permission-lsp: answering for {} (found {}){}",
                f.display_name(),
                shown.join(", "),
                if self.answers.len() == 1 {
                    "; --runtime picks another agent"
                } else {
                    ""
                }
            );
        }
    }
}

/// "No permission configs found", with where each format looks.
fn nothing_found(
    cwd: &std::path::Path,
    formats: &[(DynFormat, permission_lsp::formats::SessionFiles)],
) -> String {
    let mut s = format!(
        "no permission configs found for a session in {} (looked in:",
        cwd.display()
    );
    for (f, files) in formats {
        s.push_str(&format!(
            "\n  {}: {}",
            f.display_name(),
            files.looked_in.join(", ")
        ));
    }
    let ids: Vec<&str> = permission_lsp::formats::all()
        .iter()
        .map(|f| f.id())
        .collect();
    s.push_str(&format!(
        ")\nname the agent with --runtime ({}) to answer with its defaults",
        ids.join(", ")
    ));
    s
}

/// A path named on the command line must exist and be readable.
fn existing(path: &std::path::Path, dir: bool, flag: &str) -> Result<(), UsageError> {
    if dir {
        let meta = std::fs::metadata(path)
            .map_err(|e| UsageError(format!("{flag} {}: {e}", path.display())))?;
        if !meta.is_dir() {
            return Err(UsageError(format!(
                "{flag} {}: not a directory",
                path.display()
            )));
        }
        return Ok(());
    }
    // Opened (without blocking) and then checked.
    permission_lsp::fsio::open(path, false)
        .map(|_| ())
        .map_err(|e| UsageError(format!("{flag} {}: {e}", path.display())))
}

#[derive(Subcommand)]
enum Command {
    /// Run the language server over stdio.
    Serve {
        /// Accepted for editors that pass it.
        #[arg(long)]
        stdio: bool,
    },
    /// Check config files and report problems. Without a path: every file
    /// of every agent that a session started here reads (project, user,
    /// managed and agent files; the project found from a subdirectory too)
    /// and the configs below the project. Each file is read together with
    /// the others its runtime merges, as the editor reads it.
    Check {
        /// Files or directories (searched for configs by location).
        paths: Vec<PathBuf>,
        #[arg(long, value_enum, default_value = "human")]
        format: cli::check::Format,
        /// Read each file alone, without the other files its runtime
        /// merges (no cross-file findings).
        #[arg(long)]
        no_scopes: bool,
        /// Cross-file findings (the default; kept for older scripts).
        #[arg(long, hide = true)]
        scopes: bool,
        /// Apply the safe fixes in place first — duplicate and redundant
        /// rules removed, repeated keys folded as the runtime reads them;
        /// no decision changes, every other byte stays — then report what
        /// is left.
        #[arg(long)]
        fix: bool,
        #[command(flatten)]
        scope: ScopeArgs,
    },
    /// Print the page of a diagnostic code (`permission-lsp rule CC017`),
    /// or list every code.
    Rule {
        /// A code (`PL002`) or its name (`trailing-comma`); none lists them.
        code: Option<String>,
    },
    /// Print the effective policy: every scope merged as the runtime merges
    /// them, rules in evaluation order with their file and line, knobs, issues.
    Explain {
        #[command(flatten)]
        scope: ScopeArgs,
        #[arg(long, value_enum, default_value = "human")]
        format: cli::explain::Format,
    },
    /// Ask what the runtime decides for a tool call (or a JSONL batch of calls).
    Simulate {
        /// The tool name (bash, read, mcp, skill, …). Without it, calls are read
        /// as JSON lines `{"tool": …, "input": …, "agent"?: …, "cwd"?: …}`.
        #[arg(long)]
        tool: Option<String>,
        /// The tool input as JSON, e.g. '{"command":"npm install"}'.
        #[arg(long)]
        input: Option<String>,
        /// A shell command for the agent's shell tool: `--command 'rm -rf
        /// build'` is `--tool Bash --input '{"command":"rm -rf build"}'` in
        /// Claude Code, `--tool bash …` in OpenCode and pi.
        #[arg(long, conflicts_with_all = ["tool", "input"])]
        command: Option<String>,
        /// Batch file of JSON lines (`-` for stdin).
        #[arg(long, conflicts_with_all = ["tool", "command"])]
        batch: Option<PathBuf>,
        #[command(flatten)]
        scope: ScopeArgs,
        #[arg(long, value_enum, default_value = "human")]
        format: cli::simulate::Format,
    },
    /// What a config change newly allows, asks or denies, compared with the
    /// config at a git revision (default HEAD) or in another file, with an
    /// example call for each difference. Exit status: 0 no newly allowed
    /// call, 1 something newly allowed, 2 a usage or input error, 3 nothing
    /// newly allowed found but a tool not compared completely.
    Diff {
        /// The config file (default: every file the runtime reads from the
        /// current directory).
        #[arg(value_name = "CONFIG")]
        file: Option<PathBuf>,
        /// A git revision, or a file with the earlier text.
        #[arg(long, default_value = "HEAD")]
        base: String,
        #[command(flatten)]
        scope: ScopeArgs,
        #[arg(long, value_enum, default_value = "human")]
        format: cli::diff::Format,
        /// The work each tool's comparison may spend (automaton positions
        /// stepped); past it the tool is named as not compared completely
        /// (exit 3). Raise it for very large rule sets.
        #[arg(long, value_name = "STEPS", default_value_t = permission_lsp::analysis::diff::SURFACE_WORK)]
        budget: usize,
    },
    /// Suggest rules from the approvals in the runtimes' decision logs: the
    /// smallest rule (at a word or path boundary) covering calls approved
    /// again and again, never one matching a call the history refused, with
    /// where it goes so that it takes effect.
    Suggest {
        /// Log files, as for `replay` (default: this project's session
        /// logs, found where each runtime writes them).
        logs: Vec<PathBuf>,
        /// Approvals a rule must cover.
        #[arg(long, default_value_t = 2)]
        min: u64,
        /// Write each suggestion into the file it names (every other byte
        /// kept; a missing file is created) and check it again from there.
        #[arg(long)]
        apply: bool,
        #[command(flatten)]
        scope: ScopeArgs,
        #[arg(long, value_enum, default_value = "human")]
        format: cli::suggest::Format,
    },
    /// Decide every past call of the runtimes' decision logs again with the
    /// current config and print the calls whose decision changes (exit
    /// status 1 when any does). Logs: Claude Code's session files and
    /// stream-json / SDK messages, Codex's rollouts, OpenCode's session
    /// database, pi-permission-system's review log, the pi-toolkits
    /// approval log (documented, not verified); the kind is recognised per
    /// file. Each call is decided in its recorded session's working
    /// directory (and agent, and permission mode) unless given here.
    /// Without a file: the logs the runtimes wrote for this project's
    /// sessions (Claude Code's session files, Codex's rollouts, OpenCode's
    /// database, pi-permission-system's review log), newest first.
    Replay {
        /// Log files (`-` for stdin), read as streams (default: this
        /// project's session logs, found where each runtime writes them).
        logs: Vec<PathBuf>,
        /// Without a file: only logs written since this date (`2026-11-30`)
        /// or for this long (`7d`, `12h`).
        #[arg(long, value_name = "WHEN")]
        since: Option<String>,
        /// Without a file: at most this many logs, the newest.
        #[arg(long, value_name = "N")]
        limit: Option<usize>,
        #[command(flatten)]
        scope: ScopeArgs,
        #[arg(long, value_enum, default_value = "human")]
        format: cli::replay::Format,
    },
}

/// The subcommands that take the scope flags.
const SCOPED: &[&str] = &["check", "explain", "simulate", "diff", "suggest", "replay"];

/// The command line with every format's declared session options on each
/// scoped subcommand, and `--runtime-env` naming the variables each format
/// reads.
fn command_line() -> clap::Command {
    use clap::CommandFactory;
    let mut options: Vec<permission_lsp::contract::SessionOption> = Vec::new();
    // A flag several formats declare: each one's help, named.
    let mut helps: Vec<(&'static str, Vec<String>)> = Vec::new();
    for f in permission_lsp::formats::all() {
        for o in f.session_options() {
            if !options.iter().any(|x| x.flag == o.flag) {
                options.push(*o);
            }
            let named = if o.help.starts_with(f.display_name()) {
                o.help.to_string()
            } else {
                format!("{}: {}", f.display_name(), o.help)
            };
            match helps.iter_mut().find(|(flag, _)| *flag == o.flag) {
                Some((_, v)) => v.push(named),
                None => helps.push((o.flag, vec![named])),
            }
        }
    }
    let help_of = move |o: &permission_lsp::contract::SessionOption| -> String {
        match helps.iter().find(|(flag, _)| *flag == o.flag) {
            Some((_, v)) if v.len() > 1 => v.join("; "),
            _ => o.help.to_string(),
        }
    };
    let env: Vec<String> = permission_lsp::formats::all()
        .iter()
        .filter(|f| !f.session_env().is_empty())
        .map(|f| format!("{}: {}", f.display_name(), f.session_env().join(", ")))
        .collect();
    let env_help = format!(
        "An environment variable of the simulated session, NAME=VALUE (repeatable), read by the format as its runtime reads it: {}",
        env.join("; ")
    );
    let ids: Vec<String> = permission_lsp::formats::all()
        .iter()
        .map(|f| format!("{} ({})", f.id(), f.display_name()))
        .collect();
    let runtime_help = format!(
        "The agent whose rules apply: {}. Default: every agent whose files a session started in --cwd reads (project, user and managed files), each answering side by side. `check` reads each file as the format that recognises it, and files no format recognises as this one",
        ids.join(", ")
    );
    let mut cmd = Cli::command();
    for name in SCOPED {
        let options = options.clone();
        let help_of = help_of.clone();
        let env_help = env_help.clone();
        let runtime_help = runtime_help.clone();
        cmd = cmd.mut_subcommand(*name, move |mut sub| {
            sub = sub
                .mut_arg("runtime_env", |a| a.help(env_help))
                .mut_arg("runtime", |a| a.help(runtime_help));
            for o in options {
                let mut arg = clap::Arg::new(o.flag)
                    .long(o.flag)
                    .help(help_of(&o))
                    .visible_aliases(o.aliases.iter().copied())
                    .action(if o.switch {
                        clap::ArgAction::SetTrue
                    } else if o.repeatable {
                        clap::ArgAction::Append
                    } else {
                        clap::ArgAction::Set
                    });
                if !o.switch {
                    arg = arg.value_name(o.value_name);
                }
                if !o.values.is_empty() {
                    arg = arg.value_parser(clap::builder::PossibleValuesParser::new(flag_values(
                        o.flag,
                    )));
                }
                sub = sub.arg(arg);
            }
            sub
        });
    }
    cmd
}

/// The declared session options given to the subcommand, as runtime args.
fn session_args(matches: &clap::ArgMatches) -> Vec<(String, String)> {
    let Some((_, sub)) = matches.subcommand() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for f in permission_lsp::formats::all() {
        for o in f.session_options() {
            if seen.contains(&o.flag) {
                continue;
            }
            seen.push(o.flag);
            if o.switch {
                if sub.try_get_one::<bool>(o.flag).ok().flatten() == Some(&true) {
                    out.push((o.arg.to_string(), "true".to_string()));
                }
            } else if let Ok(Some(values)) = sub.try_get_many::<String>(o.flag) {
                out.extend(values.map(|v| (o.arg.to_string(), v.clone())));
            }
        }
    }
    out
}

fn main() {
    use clap::FromArgMatches;
    let matches = command_line().get_matches();
    let mut args = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let session = session_args(&matches);
    if let Some(scope) = args.command.as_mut().and_then(Command::scope_mut) {
        scope.session = session;
    }
    let result = match args.command {
        None if args.stdio => Ok(serve()),
        Some(Command::Serve { .. }) => Ok(serve()),
        None => Err(UsageError(
            "a command is needed (serve, check, simulate, explain, diff, replay, suggest, rule); see --help"
                .into(),
        )),
        Some(Command::Check {
            paths,
            format,
            no_scopes,
            scopes: _,
            fix,
            scope,
        }) => {
            // Nothing that `check` looks up changes while it runs (a fix
            // edits a file in place): each home, system and ancestor file
            // is looked for once, not once per project.
            let lookups = permission_lsp::fsio::Lookups::new();
            let _remembered = lookups.enter();
            return_freed_memory_at_once();
            check(&paths, format, !no_scopes, fix, &scope)
        }
        Some(Command::Rule { code }) => Ok(cli::rule::run(code.as_deref(), &mut std::io::stdout())),
        Some(Command::Explain { scope, format }) => scope.formats().map(|detected| {
            detected.announce(None);
            let answers: Vec<_> = detected
                .answers
                .iter()
                .map(|(f, ctx, _)| (*f, ctx))
                .collect();
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            let code = cli::explain::run_all(&answers, format, &mut out);
            let _ = std::io::Write::flush(&mut out);
            code
        }),
        Some(Command::Simulate {
            tool,
            input,
            command,
            batch,
            scope,
            format,
        }) => simulate(tool, input, command, batch, &scope, format),
        Some(Command::Diff {
            file,
            base,
            scope,
            format,
            budget,
        }) => diff(file.as_deref(), &base, &scope, format, budget),
        Some(Command::Replay {
            logs,
            since,
            limit,
            scope,
            format,
        }) => replay(&logs, since.as_deref(), limit, &scope, format),
        Some(Command::Suggest {
            logs,
            min,
            apply,
            scope,
            format,
        }) => suggest(&logs, min, apply, &scope, format),
    };
    let code = match result {
        Ok(code) => code,
        Err(UsageError(e)) => {
            eprintln!(
                "permission-lsp: {}",
                permission_lsp::text::clip_spans(&e.to_string())
            );
            2
        }
    };
    exit_now(code)
}

fn check(
    paths: &[PathBuf],
    format: cli::check::Format,
    scopes: bool,
    fix: bool,
    scope: &ScopeArgs,
) -> Result<i32, UsageError> {
    let options = scope.options()?;
    let cwd = match &scope.cwd {
        Some(dir) => {
            existing(dir, true, "--cwd (--project)")?;
            std::path::absolute(dir).unwrap_or_else(|_| dir.clone())
        }
        None => std::env::current_dir()
            .map_err(|e| UsageError(format!("the current directory: {e}")))?,
    };
    if let Some(home) = &scope.home {
        existing(home, true, "--home")?;
    }
    let inputs = cli::check::Inputs {
        paths,
        cwd,
        scopes,
        pinned: scope.runtime.is_some(),
        fix,
    };
    // A path that cannot be read is reported with the findings (exit
    // status 2).
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let code = cli::check::run(&inputs, format, &options, &mut out);
    let _ = std::io::Write::flush(&mut out);
    Ok(code)
}

impl Command {
    /// The scope flags of a scoped subcommand.
    fn scope_mut(&mut self) -> Option<&mut ScopeArgs> {
        match self {
            Command::Check { scope, .. }
            | Command::Explain { scope, .. }
            | Command::Simulate { scope, .. }
            | Command::Diff { scope, .. }
            | Command::Suggest { scope, .. }
            | Command::Replay { scope, .. } => Some(scope),
            Command::Serve { .. } | Command::Rule { .. } => None,
        }
    }
}

fn diff(
    config: Option<&std::path::Path>,
    base: &str,
    scope: &ScopeArgs,
    format: cli::diff::Format,
    budget: usize,
) -> Result<i32, UsageError> {
    let mut scope = scope.clone();
    if let Some(c) = config {
        existing(c, false, "CONFIG")?;
        // The format of the named file, unless one was named.
        if scope.runtime.is_none()
            && let Some(text) = permission_lsp::workspace::read_text(c, 1 << 20)
            && let permission_lsp::formats::Detected::Kind(kind) =
                permission_lsp::formats::detect_file(&c.to_string_lossy(), &text)
        {
            scope.runtime = Some(kind.format.id().to_string());
        }
    }
    let detected = scope.formats()?;
    detected.announce(None);
    let base_path = std::path::Path::new(base);
    let base = if base_path.is_file() {
        permission_lsp::analysis::compare::Base::File(base_path.to_path_buf())
    } else {
        permission_lsp::analysis::compare::Base::Rev(base.to_string())
    };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    // Each agent compared on its own: newly allowed anywhere is exit 1,
    // else an incomplete comparison anywhere is exit 3.
    let mut codes = Vec::new();
    for (runtime, ctx, _) in &detected.answers {
        let mut ctx = ctx.with(&Default::default());
        ctx.options.diff_work = Some(budget);
        codes.push(
            cli::diff::run(*runtime, &ctx, config, &base, format, &mut out).map_err(UsageError)?,
        );
    }
    let code = if codes.contains(&1) {
        1
    } else if codes.contains(&3) {
        3
    } else {
        0
    };
    let _ = std::io::Write::flush(&mut out);
    Ok(code)
}

fn suggest(
    logs: &[PathBuf],
    min: u64,
    apply: bool,
    scope: &ScopeArgs,
    format: cli::suggest::Format,
) -> Result<i32, UsageError> {
    let ctx = scope.context()?;
    let only = scope.only_format()?;
    let which = logs_to_read(logs, only, &ctx, None, None);
    let context_for = |f: &'static dyn permission_lsp::formats::Format| scope.context_of(f);
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let code = cli::suggest::run(
        which,
        only,
        &context_for,
        min.max(1),
        apply,
        format,
        &mut out,
        &mut std::io::stderr(),
    );
    let _ = std::io::Write::flush(&mut out);
    Ok(code)
}

/// The logs named, else those the runtimes (`only`, else every one) wrote
/// for the project of `ctx`.
fn logs_to_read<'a>(
    logs: &'a [PathBuf],
    only: Option<&'static dyn permission_lsp::formats::Format>,
    ctx: &permission_lsp::workspace::Context<'_>,
    since: Option<std::time::SystemTime>,
    limit: Option<usize>,
) -> cli::replay::Logs<'a> {
    if !logs.is_empty() {
        return cli::replay::Logs::Named(logs);
    }
    cli::replay::Logs::Found {
        formats: match only {
            Some(f) => vec![f],
            None => permission_lsp::formats::all().to_vec(),
        },
        project: ctx.cwd.clone(),
        home: ctx.options.home_dir(),
        since,
        limit,
    }
}

fn replay(
    logs: &[PathBuf],
    since: Option<&str>,
    limit: Option<usize>,
    scope: &ScopeArgs,
    format: cli::replay::Format,
) -> Result<i32, UsageError> {
    // Usage errors first (a named directory or file that is not there).
    let ctx = scope.context()?;
    let only = scope.only_format()?;
    if !logs.is_empty() && (since.is_some() || limit.is_some()) {
        return Err(UsageError(
            "--since and --limit choose among the logs found for the project; with log files named, name only the ones to replay".into(),
        ));
    }
    let since = since
        .map(|s| cli::replay::parse_since(s, std::time::SystemTime::now()))
        .transpose()
        .map_err(UsageError)?;
    let which = logs_to_read(logs, only, &ctx, since, limit);
    let context_for = |f: &'static dyn permission_lsp::formats::Format| scope.context_of(f);
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let code = cli::replay::run(
        which,
        only,
        &context_for,
        format,
        &mut out,
        &mut std::io::stderr(),
    );
    let _ = std::io::Write::flush(&mut out);
    Ok(code)
}

/// Ends the process once everything is written. On Unix it skips the
/// allocator's teardown at exit (returning every arena page to the system,
/// a measurable share of a `check`): there is nothing left to clean up.
fn exit_now(code: i32) -> ! {
    let _ = std::io::Write::flush(&mut std::io::stdout());
    let _ = std::io::Write::flush(&mut std::io::stderr());
    #[cfg(unix)]
    // SAFETY: `_exit` ends the process immediately; stdout and stderr were
    // flushed above and no other state needs to outlive the process.
    unsafe {
        libc::_exit(code)
    }
    #[cfg(not(unix))]
    std::process::exit(code)
}

fn simulate(
    tool: Option<String>,
    input: Option<String>,
    command: Option<String>,
    batch: Option<PathBuf>,
    scope: &ScopeArgs,
    format: cli::simulate::Format,
) -> Result<i32, UsageError> {
    let input = match (&command, input) {
        (Some(c), _) => serde_json::json!({ "command": c }),
        (None, Some(i)) => {
            serde_json::from_str(&i).map_err(|e| UsageError(format!("--input is not JSON: {e}")))?
        }
        (None, None) => serde_json::json!({}),
    };
    let detected = scope.formats()?;
    let several = detected.answers.len() > 1;
    let names = || {
        detected
            .answers
            .iter()
            .map(|(f, _, _)| f.id())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if tool.is_none() && command.is_none() && several {
        return Err(UsageError(format!(
            "a batch is decided by one agent, and several have configs here ({}): name one with --runtime",
            names()
        )));
    }
    if scope.target_version.as_deref() == Some("all") {
        let (runtime, _, _) = &detected.answers[0];
        if several {
            return Err(UsageError(format!(
                "--target-version all answers for one agent, and several have configs here ({}): name one with --runtime",
                names()
            )));
        }
        let tool = match (&tool, &command) {
            (Some(t), _) => t.clone(),
            (None, Some(_)) => runtime.shell_tool().to_string(),
            (None, None) => {
                return Err(UsageError(
                    "--target-version all answers one call (--tool and --input, or --command), not a batch"
                        .into(),
                ));
            }
        };
        let mut answers = Vec::new();
        for (version, basis) in runtime.versions_side_by_side() {
            let mut one = scope.clone();
            one.runtime = Some(runtime.id().to_string());
            one.target_version = Some(version.clone());
            let ctx = one.context()?;
            let report = runtime
                .simulate(
                    &ctx,
                    &permission_lsp::formats::CallRequest {
                        tool: tool.clone(),
                        input: input.clone(),
                    },
                )
                .map_err(UsageError)?;
            answers.push((version, basis, report));
        }
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        cli::simulate::emit_versions(format, &tool, &input, &answers, &mut out);
        let _ = std::io::Write::flush(&mut out);
        return Ok(0);
    }
    detected.announce(None);
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    if tool.is_none() && command.is_none() {
        // `--batch` is opened once, by the simulation (a pipe can be read once).
        let (runtime, ctx, _) = &detected.answers[0];
        let result = cli::simulate::run(*runtime, ctx, format, None, batch, &mut out);
        let _ = std::io::Write::flush(&mut out);
        return result.map_err(UsageError);
    }
    let mut calls = Vec::new();
    let mut refused = Vec::new();
    for (runtime, ctx, _) in &detected.answers {
        let tool = match &tool {
            Some(t) => t.clone(),
            None => runtime.shell_tool().to_string(),
        };
        // A name the agent has no tool for: said, never simulated.
        if let Err(e) = runtime.check_tool(&tool) {
            refused.push(format!("--tool: {e}"));
            continue;
        }
        // A session option's value this agent does not have (a flag
        // several agents share takes each one's values).
        if let Some(e) = unknown_option_value(*runtime, ctx) {
            refused.push(e);
            continue;
        }
        calls.push((
            *runtime,
            ctx,
            cli::simulate::SingleCall {
                tool,
                input: input.clone(),
            },
        ));
    }
    if calls.is_empty() {
        return Err(UsageError(refused.join("; ")));
    }
    for e in &refused {
        eprintln!(
            "permission-lsp: {}",
            permission_lsp::text::clip_spans(&e.to_string())
        );
    }
    let result = cli::simulate::run_side_by_side(calls, format, &mut out);
    let _ = std::io::Write::flush(&mut out);
    result.map_err(UsageError)
}

/// The values of a flag: a flag several formats declare takes the values
/// of each (every format reads the ones it knows).
fn flag_values(flag: &str) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for f in permission_lsp::formats::all() {
        for o in f.session_options().iter().filter(|o| o.flag == flag) {
            for v in o.values {
                if !out.contains(v) {
                    out.push(v);
                }
            }
        }
    }
    out
}

/// The first declared session option given a value outside the ones
/// `runtime` declares, said for people.
fn unknown_option_value(
    runtime: &dyn permission_lsp::formats::Format,
    ctx: &permission_lsp::contract::Context<'_>,
) -> Option<String> {
    runtime.session_options().iter().find_map(|o| {
        let v = ctx.options.runtime_arg(o.arg)?;
        (!o.values.is_empty() && !o.switch && !o.values.contains(&v)).then(|| {
            format!(
                "--{} {v}: not a value of {} ({})",
                o.flag,
                runtime.display_name(),
                o.values.join(", ")
            )
        })
    })
}

fn serve() -> i32 {
    // One thread for the protocol: no cross-thread wake-ups per message;
    // large analyses run on the blocking pool.
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        // Analyses and heavy requests run here: a few threads bound the
        // memory however fast the client sends work.
        .max_blocking_threads(2)
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("permission-lsp: cannot start the async runtime: {e}");
            return 1;
        }
    };
    let ended = runtime.block_on(permission_lsp::lsp::run_stdio());
    // A blocked read of stdin must not hold the process open after `exit`.
    runtime.shutdown_background();
    if ended.after_shutdown { 0 } else { 1 }
}

/// `check` runs for a second or two and frees most of what it reads before
/// it is done (a large file's tree before its rules are judged, each batch
/// of findings once written): that memory goes back to the system at once,
/// not after the allocator's default second, which a short run never
/// reaches (a 10 MB file's peak falls by 40–80 MB, for a few hundredths of
/// a second). The server keeps the default.
fn return_freed_memory_at_once() {
    #[cfg(not(feature = "system-alloc"))]
    // SAFETY: sets an option of the allocator in use (mimalloc 3's
    // `mi_option_purge_delay`, 15 in its `mi_option_t`); any value is valid.
    unsafe {
        libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 0)
    };
}

/// `mi_option_purge_delay` in mimalloc 3's `mi_option_t` (the bindings
/// name only the options of version 2 with the same numbers).
#[cfg(not(feature = "system-alloc"))]
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// The parser allocates one string per key and value; mimalloc makes those
/// allocations several times cheaper than the system allocator. (A build
/// with `--features system-alloc` keeps the system's, for heap profilers
/// such as heaptrack.)
#[cfg(not(feature = "system-alloc"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[cfg(all(test, not(feature = "system-alloc")))]
mod tests {
    /// The option `check` sets is the purge delay: it reads as mimalloc 3's
    /// default for it (1000 ms) unless the environment sets it.
    #[test]
    fn the_option_set_is_the_purge_delay() {
        // SAFETY: reads an option of the allocator in use.
        let value = unsafe { libmimalloc_sys::mi_option_get(super::MI_OPTION_PURGE_DELAY) };
        let want = std::env::var("MIMALLOC_PURGE_DELAY")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(1000);
        assert_eq!(value, want);
    }
}
