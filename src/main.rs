use clap::{Parser, Subcommand};
use permission_lsp::analysis::{AnalysisOptions, LintLevels};
use permission_lsp::cli;
use permission_lsp::model::pi::Version;
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

#[derive(clap::Args, Clone)]
struct AnalysisArgs {
    /// The pi-permission-system version whose rules apply.
    #[arg(long, value_name = "VERSION", default_value = "20.7.3")]
    target_version: String,
    /// Override a lint level: CODE=off|error|warning|info|hint (repeatable).
    #[arg(long = "level", value_name = "CODE=LEVEL")]
    levels: Vec<String>,
    /// The home directory: where `~/` in patterns expands and, with
    /// --scopes, where the global config is found (default: $HOME).
    #[arg(long)]
    home: Option<PathBuf>,
    /// With --scopes: the active agent, whose `<name>.md` files join the scopes.
    #[arg(long)]
    agent: Option<String>,
}

impl AnalysisArgs {
    fn options(&self) -> Result<AnalysisOptions, String> {
        let target = Version::parse(&self.target_version).ok_or_else(|| {
            format!(
                "--target-version: `{}` is not a version like 20.7.3",
                self.target_version
            )
        })?;
        let mut levels = LintLevels::default();
        for l in &self.levels {
            levels.parse_assignment(l)?;
        }
        let home = match &self.home {
            Some(h) => h.display().to_string(),
            None => std::env::var("HOME").unwrap_or_else(|_| "~".into()),
        };
        Ok(AnalysisOptions {
            target,
            levels,
            home,
            agent: self.agent.clone(),
            ..AnalysisOptions::default()
        })
    }
}

#[derive(Subcommand)]
enum Command {
    /// Run the language server over stdio.
    Serve {
        /// Accepted for editors that pass it.
        #[arg(long)]
        stdio: bool,
    },
    /// Check config files (or directories, searched for configs) and report problems.
    Check {
        /// Files or directories (default: the current directory).
        paths: Vec<PathBuf>,
        #[arg(long, value_enum, default_value = "human")]
        format: cli::check::Format,
        /// Read each scope file together with the others the runtime reads
        /// (global, project, agent files): precedence across files and the
        /// cross-scope findings.
        #[arg(long)]
        scopes: bool,
        #[command(flatten)]
        analysis: AnalysisArgs,
    },
    /// Print the effective policy: every scope merged as the runtime merges
    /// them, rules in evaluation order with their file and line, knobs, issues.
    Explain {
        /// The global config file (default: the runtime's location under the agent directory).
        #[arg(long)]
        config: Option<PathBuf>,
        /// The project directory (default: the current directory).
        #[arg(long)]
        project: Option<PathBuf>,
        /// The active agent (its <name>.md frontmatter applies).
        #[arg(long)]
        agent: Option<String>,
        /// The home directory (default: $HOME).
        #[arg(long)]
        home: Option<PathBuf>,
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
        #[arg(long, default_value = "{}")]
        input: String,
        /// Batch file of JSON lines (`-` for stdin).
        #[arg(long, conflicts_with = "tool")]
        batch: Option<PathBuf>,
        /// The global config file (default: <agent dir>/extensions/pi-permission-system/config.json).
        #[arg(long)]
        config: Option<PathBuf>,
        /// The project config file (default: <cwd>/.pi/extensions/pi-permission-system/config.json).
        #[arg(long)]
        project: Option<PathBuf>,
        /// The active agent (its <name>.md frontmatter applies).
        #[arg(long)]
        agent: Option<String>,
        /// The session's working directory (default: the current directory).
        #[arg(long)]
        cwd: Option<PathBuf>,
        /// The home directory (default: $HOME).
        #[arg(long)]
        home: Option<PathBuf>,
        #[arg(long, value_enum, default_value = "human")]
        format: cli::simulate::Format,
    },
}

fn main() {
    let args = Cli::parse();
    let code = match args.command {
        None if args.stdio => serve(),
        Some(Command::Serve { .. }) => serve(),
        None => {
            eprintln!("permission-lsp: a command is needed (serve, check); see --help");
            2
        }
        Some(Command::Check {
            paths,
            format,
            scopes,
            analysis,
        }) => match analysis.options() {
            Ok(options) => {
                let mut out = std::io::BufWriter::new(std::io::stdout().lock());
                let code = cli::check::run(&paths, format, &options, scopes, &mut out);
                let _ = std::io::Write::flush(&mut out);
                code
            }
            Err(e) => {
                eprintln!("permission-lsp: {e}");
                2
            }
        },
        Some(Command::Explain {
            config,
            project,
            agent,
            home,
            format,
        }) => {
            let Some(cwd) = absolute_dir(project, "project directory") else {
                std::process::exit(2);
            };
            let mut loc = permission_lsp::workspace::Locations::from_env(cwd, home, agent);
            loc.global_config = config;
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            let code = cli::explain::run(&loc, format, &mut out);
            let _ = std::io::Write::flush(&mut out);
            code
        }
        Some(Command::Simulate {
            tool,
            input,
            batch,
            config,
            project,
            agent,
            cwd,
            home,
            format,
        }) => simulate(
            tool, &input, batch, config, project, agent, cwd, home, format,
        ),
    };
    std::process::exit(code);
}

#[allow(clippy::too_many_arguments)]
fn simulate(
    tool: Option<String>,
    input: &str,
    batch: Option<PathBuf>,
    config: Option<PathBuf>,
    project: Option<PathBuf>,
    agent: Option<String>,
    cwd: Option<PathBuf>,
    home: Option<PathBuf>,
    format: cli::simulate::Format,
) -> i32 {
    let Some(cwd) = absolute_dir(cwd, "working directory") else {
        return 2;
    };
    let mut locations = permission_lsp::workspace::Locations::from_env(cwd, home, agent);
    locations.global_config = config;
    locations.project_config = project;
    let single = match tool {
        Some(tool) => match serde_json::from_str(input) {
            Ok(input) => Some(cli::simulate::SingleCall { tool, input }),
            Err(e) => {
                eprintln!("permission-lsp: --input is not JSON: {e}");
                return 2;
            }
        },
        None => None,
    };
    let opts = cli::simulate::Options { locations, format };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let result = cli::simulate::run(&opts, single, batch, &mut out);
    let _ = std::io::Write::flush(&mut out);
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("permission-lsp: {e}");
            2
        }
    }
}

fn serve() -> i32 {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("permission-lsp: cannot start the async runtime: {e}");
            return 1;
        }
    };
    runtime.block_on(permission_lsp::lsp::run_stdio());
    // A blocked read of stdin must not hold the process open after `exit`.
    runtime.shutdown_background();
    0
}

/// The parser allocates one string per key and value; mimalloc makes those
/// allocations several times cheaper than the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `dir` made absolute, or the current directory; says why on stderr when
/// there is none.
fn absolute_dir(dir: Option<PathBuf>, what: &str) -> Option<PathBuf> {
    match dir.map(Ok).unwrap_or_else(std::env::current_dir) {
        Ok(c) => Some(std::path::absolute(&c).unwrap_or(c)),
        Err(e) => {
            eprintln!("permission-lsp: cannot determine the {what}: {e}");
            None
        }
    }
}
