//! A real agent CLI installed as a permission oracle (a folder made by
//! `tests/differential/<agent>/setup.sh DIR`: the CLI, its `oracle.sh`
//! that runs a JSON list of cases inside `unshare -n` and prints one JSON
//! line per case), shared by the differential tests of the CLIs driven
//! this way.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One agent's oracle, as its differential test names it.
pub struct Spec {
    /// For people: "the Gemini CLI".
    pub what: &'static str,
    /// `GEMINI`: `<P>_ORACLE_DIR`, `<P>_DIFFERENTIAL_REQUIRED`.
    pub prefix: &'static str,
    /// The folder under `target/tmp/` by default.
    pub default_dir: &'static str,
    /// A file of the installed CLI, below the oracle folder.
    pub cli: &'static str,
    /// The setup script, below `tests/differential/`.
    pub setup: &'static str,
    /// The variable naming the scratch folder `oracle.sh` writes cases in.
    pub scratch_env: &'static str,
}

pub struct Oracle {
    pub dir: PathBuf,
    scratch_env: &'static str,
}

impl Oracle {
    fn find(spec: &Spec) -> Result<Oracle, String> {
        let dir = std::env::var_os(format!("{}_ORACLE_DIR", spec.prefix))
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("target/tmp")
                    .join(spec.default_dir)
            });
        if !dir.join(spec.cli).exists() {
            return Err(format!(
                "{} is not installed in {} (run tests/differential/{} {})",
                spec.what,
                dir.display(),
                spec.setup,
                dir.display()
            ));
        }
        let ok = Command::new("unshare")
            .args(["-n", "true"])
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            return Err("`unshare -n` is not available (root is needed)".into());
        }
        Ok(Oracle {
            dir,
            scratch_env: spec.scratch_env,
        })
    }

    /// The oracle, or `None` with a message when it cannot run here; a
    /// failure when `<P>_DIFFERENTIAL_REQUIRED=1` (CI) says it must.
    pub fn or_skip(spec: &Spec) -> Option<Oracle> {
        match Oracle::find(spec) {
            Ok(o) => Some(o),
            Err(e)
                if std::env::var(format!("{}_DIFFERENTIAL_REQUIRED", spec.prefix))
                    .is_ok_and(|v| v == "1") =>
            {
                panic!(
                    "the differential test against {} is required: {e}",
                    spec.what
                )
            }
            Err(e) => {
                eprintln!("differential test against {} skipped: {e}", spec.what);
                None
            }
        }
    }

    /// The CLI's answers, one line per case. One run at a time (a test
    /// binary's tests run at once; two CLIs on two cores starve each
    /// other's calls past the driver's timeouts).
    pub fn run(&self, cases: &[Value], scratch: &Path) -> Vec<Value> {
        static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        let file = scratch.join("cases.json");
        std::fs::write(&file, serde_json::to_string(cases).unwrap()).unwrap();
        let out = Command::new(self.dir.join("oracle.sh"))
            .arg(&file)
            .env(self.scratch_env, scratch.join("cli"))
            .output()
            .expect("oracle.sh runs");
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }
}

/// A number from the environment, else `default`.
pub fn env_num(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
