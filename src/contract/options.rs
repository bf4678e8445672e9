//! The options every analysis and simulation takes: the runtime profile,
//! lint levels, home, agent and the runtime's own command line.

use crate::core::levels::LintLevels;
use crate::core::profile::RuntimeProfile;

#[derive(Debug, Clone, PartialEq)]
pub struct AnalysisOptions {
    /// The format and runtime version whose rules apply.
    pub profile: RuntimeProfile,
    pub levels: LintLevels,
    /// The home directory `~/` in patterns expands to (the runtime uses the
    /// user's); the default `~` leaves such patterns literal.
    pub home: String,
    /// The active agent, whose agent files join the other scopes.
    pub agent: Option<String>,
    /// Options of the runtime's own command line for the simulated
    /// session, by name (such as `permission-mode`); a format ignores names
    /// it does not have.
    pub runtime_args: Vec<(String, String)>,
    /// The runtime version installed where the runtime records it, and
    /// where it was found (filled by the format at the settings layer when
    /// the profile is `auto`).
    pub installed: Option<(crate::core::profile::Version, String)>,
    /// The work one tool's comparison in `diff` may spend (positions
    /// stepped), when not the default.
    pub diff_work: Option<usize>,
}

impl AnalysisOptions {
    /// Options for a profile, everything else at its default.
    pub fn for_profile(profile: RuntimeProfile) -> AnalysisOptions {
        AnalysisOptions {
            profile,
            levels: LintLevels::default(),
            home: "~".into(),
            agent: None,
            runtime_args: Vec::new(),
            installed: None,
            diff_work: None,
        }
    }
}

impl AnalysisOptions {
    /// The home folder: `home` when set, else `$HOME` (`~` when neither
    /// is known).
    pub fn home_dir(&self) -> std::path::PathBuf {
        match self.home.as_str() {
            "" | "~" => std::env::var_os("HOME")
                .map(std::path::PathBuf::from)
                .unwrap_or_else(|| std::path::PathBuf::from("~")),
            h => std::path::PathBuf::from(h),
        }
    }

    /// The last value given for a session option or environment variable
    /// (`runtime_args` by name).
    pub fn runtime_arg(&self, name: &str) -> Option<&str> {
        self.runtime_args
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}
