//! Where the runtime looks for its files (spec §1.1), and how a path is
//! recognised as one of them.

use std::path::{Path, PathBuf};

/// What a file is to the runtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileRole {
    /// `<agentDir>/extensions/pi-permission-system/config.json`.
    GlobalConfig,
    /// `<cwd>/.pi/extensions/pi-permission-system/config.json`.
    ProjectConfig,
    /// `<agentDir>/agents/<name>.md`.
    GlobalAgent,
    /// `<cwd>/.pi/agents/<name>.md`.
    ProjectAgent,
}

/// Recognises a runtime file by its path (forward or back slashes).
pub fn role_of_path(path: &str) -> Option<FileRole> {
    let p = path.replace('\\', "/");
    if p.ends_with("/extensions/pi-permission-system/config.json") {
        // The project file sits under `.pi/extensions`; the global one under
        // the agent directory (`~/.pi/agent/extensions` by default).
        return Some(
            if p.ends_with("/.pi/extensions/pi-permission-system/config.json") {
                FileRole::ProjectConfig
            } else {
                FileRole::GlobalConfig
            },
        );
    }
    if p.ends_with(".md") {
        let parent = p.rsplit_once('/')?.0;
        if parent.ends_with("/.pi/agents") {
            return Some(FileRole::ProjectAgent);
        }
        if parent.ends_with("/agent/agents") || parent.ends_with("/.pi/agent/agents") {
            return Some(FileRole::GlobalAgent);
        }
    }
    None
}

/// `$PI_CODING_AGENT_DIR`, else `<home>/.pi/agent`.
pub fn agent_dir(env_agent_dir: Option<&str>, home: &Path) -> PathBuf {
    match env_agent_dir {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => home.join(".pi").join("agent"),
    }
}

pub fn global_config_path(agent_dir: &Path) -> PathBuf {
    agent_dir
        .join("extensions")
        .join("pi-permission-system")
        .join("config.json")
}

pub fn project_config_path(cwd: &Path) -> PathBuf {
    cwd.join(".pi")
        .join("extensions")
        .join("pi-permission-system")
        .join("config.json")
}

pub fn global_agent_path(agent_dir: &Path, name: &str) -> PathBuf {
    agent_dir.join("agents").join(format!("{name}.md"))
}

pub fn project_agent_path(cwd: &Path, name: &str) -> PathBuf {
    cwd.join(".pi").join("agents").join(format!("{name}.md"))
}

pub fn mcp_json_path(agent_dir: &Path) -> PathBuf {
    agent_dir.join("mcp.json")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_by_path() {
        assert_eq!(
            role_of_path("/home/u/.pi/agent/extensions/pi-permission-system/config.json"),
            Some(FileRole::GlobalConfig)
        );
        assert_eq!(
            role_of_path("/w/p/.pi/extensions/pi-permission-system/config.json"),
            Some(FileRole::ProjectConfig)
        );
        assert_eq!(
            role_of_path("/w/p/.pi/agents/reviewer.md"),
            Some(FileRole::ProjectAgent)
        );
        assert_eq!(
            role_of_path("/home/u/.pi/agent/agents/x.md"),
            Some(FileRole::GlobalAgent)
        );
        assert_eq!(role_of_path("/w/p/README.md"), None);
        assert_eq!(
            role_of_path("C:\\u\\.pi\\agents\\x.md"),
            Some(FileRole::ProjectAgent)
        );
    }
}
