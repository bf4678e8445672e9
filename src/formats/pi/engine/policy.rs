//! Building the runtime's policy from the scope files' texts (spec §1): each
//! config read strictly (a rejected file contributes nothing), agent
//! frontmatter read tolerantly, scopes merged, knobs merged, rules composed.

use super::gates::Policy;
use super::merge::{MergedSurface, Scope, compose_rules, merge_scopes};
use super::rules::{PathFlavor, RuleOrigin};
use crate::formats::pi::model::SurfaceValue;
use crate::formats::pi::model::agent::agent_permission;
use crate::formats::pi::model::{PiConfig, ShellTool, State, Version};
use std::sync::Arc;

/// A file's text and the name it is reported under.
#[derive(Debug, Clone)]
pub struct ScopeText {
    pub path: Arc<str>,
    pub text: String,
}

#[derive(Debug, Clone)]
pub struct PolicyInputs {
    pub global: Option<ScopeText>,
    pub project: Option<ScopeText>,
    /// The active agent's files: global (`<agentDir>/agents/<name>.md`) and project.
    pub global_agent: Option<ScopeText>,
    pub project_agent: Option<ScopeText>,
    /// Agent files (`Agent`, `ProjectAgent`) that exist but cannot be read:
    /// from 21.0 they fail closed.
    pub unreadable_agents: Vec<RuleOrigin>,
    pub mcp_servers: Vec<String>,
    pub home: String,
    /// The runtime version whose reading applies to the scope files.
    pub version: Version,
    /// `version` is the fallback of `auto`: each file is read as the
    /// installed version, else the lowest version accepting its keys.
    pub auto: bool,
    pub installed: Option<(Version, String)>,
    /// pi's trust in the project folder (`<agentDir>/trust.json`): from
    /// 22.0 an untrusted project's config and agents are withheld. `None`
    /// when trusted or not decided yet.
    pub project_trusted: Option<bool>,
    pub flavor: PathFlavor,
    /// Infrastructure directories besides `piInfrastructureReadPaths`
    /// (the runtime adds its agent directory and package locations).
    pub extra_infra_dirs: Vec<String>,
    /// pi's agent directory, when known: from 39.0 only its harness
    /// entries are infrastructure.
    pub agent_dir: Option<String>,
}

impl PolicyInputs {
    /// No scope files, for the given runtime version.
    pub fn new(version: Version) -> PolicyInputs {
        PolicyInputs {
            global: None,
            project: None,
            global_agent: None,
            project_agent: None,
            unreadable_agents: Vec::new(),
            mcp_servers: Vec::new(),
            home: String::new(),
            version,
            auto: false,
            installed: None,
            project_trusted: None,
            flavor: PathFlavor::default(),
            extra_infra_dirs: Vec::new(),
            agent_dir: None,
        }
    }

    /// The version whose semantics the session follows: the pinned one,
    /// else (under `auto`) the installed one, else the highest version a
    /// scope file was read as.
    pub fn session_version(&self, read_as: &[Version]) -> Version {
        if !self.auto {
            return self.version;
        }
        if let Some((v, _)) = &self.installed {
            return *v;
        }
        read_as.iter().copied().fold(self.version, Version::max)
    }

    /// Reads a scope config as these inputs' profile says.
    pub fn read(&self, text: &str) -> crate::formats::pi::model::read::ConfigFile {
        crate::formats::pi::model::read::read_config_as(
            text,
            crate::core::profile::RuntimeProfile {
                format: crate::formats::pi::codes::FORMAT,
                version: self.version,
                auto: self.auto,
            },
            self.installed.as_ref(),
        )
    }

    /// The scope files in merge order: global, project, global agent,
    /// project agent.
    pub fn files(&self) -> [&Option<ScopeText>; 4] {
        [
            &self.global,
            &self.project,
            &self.global_agent,
            &self.project_agent,
        ]
    }

    /// True when a scope file other than `path` is present.
    pub fn has_other_than(&self, path: &str) -> bool {
        self.files()
            .iter()
            .any(|s| s.as_ref().is_some_and(|s| &*s.path != path))
    }
}

/// The policy and what the runtime reports while loading it.
pub struct LoadedPolicy {
    pub policy: Policy,
    pub merged: Vec<MergedSurface>,
    /// The permission of every scope file that has one and that the
    /// runtime accepts, in merge order (what `merged` was made of).
    pub scopes: Vec<Scope>,
    /// Scope files the runtime rejects (they contribute nothing).
    pub rejected: Vec<Arc<str>>,
    /// Issue texts, as the runtime reports them, per file.
    pub issues: Vec<String>,
    pub permissive_bash_warning: bool,
    /// From 26.0: the startup warning for the tool-preview caps, which are
    /// accepted and no longer read (`detectDeprecatedPreviewCaps`).
    pub deprecated_caps_warning: Option<String>,
}

impl LoadedPolicy {
    /// The warnings the runtime appends to the files' issues at startup, in
    /// its order.
    pub fn startup_warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.permissive_bash_warning {
            out.push(crate::formats::pi::engine::messages::PERMISSIVE_BASH_WARNING.to_string());
        }
        out.extend(self.deprecated_caps_warning.clone());
        out
    }
}

/// The tool-preview caps are ignored from this version on.
pub const PREVIEW_CAPS_IGNORED_SINCE: Version = Version(26, 0, 0);

/// `detectDeprecatedPreviewCaps` (26.0 on): the caps set by either scope.
fn deprecated_caps(configs: &[&Option<(Arc<str>, PiConfig)>]) -> Option<String> {
    let any = |f: fn(&PiConfig) -> bool| {
        configs
            .iter()
            .any(|c| c.as_ref().is_some_and(|(_, c)| f(c)))
    };
    let mut set = Vec::new();
    if any(|c| c.knobs.tool_input_preview_max_length.is_some()) {
        set.push("toolInputPreviewMaxLength");
    }
    if any(|c| c.knobs.tool_text_summary_max_length.is_some()) {
        set.push("toolTextSummaryMaxLength");
    }
    if set.is_empty() {
        return None;
    }
    Some(format!(
        "Permission config sets {}, which is deprecated and ignored. The prompt is bounded by 'promptMaxRows' and 'promptFieldMaxWidth' instead; remove the setting.",
        set.iter()
            .map(|k| format!("'{k}'"))
            .collect::<Vec<_>>()
            .join(" and ")
    ))
}

/// An untrusted project is withheld from this version on.
pub const TRUST_SINCE: Version = Version(22, 0, 0);

/// Yolo grants every ask, the floors' included, from this version on.
pub const YOLO_GRANTS_EVERY_ASK_SINCE: Version = Version(25, 2, 1);

/// The directional path surfaces (`path_read`, `path_write`,
/// `external_directory_read`, `external_directory_write`) from this
/// version on (documented, not verified).
pub const DIRECTIONAL_SINCE: Version = crate::formats::pi::model::versions::DIRECTIONAL_SINCE;

/// The infrastructure read bypass is narrowed from this version on
/// (documented, not verified).
pub const INFRA_NARROWED_SINCE: Version = Version(39, 0, 0);

/// pi's harness entries under its agent directory (39.0 on).
const HARNESS_ENTRIES: [&str; 11] = [
    "agents",
    "extensions",
    "git",
    "npm",
    "prompts",
    "skills",
    "themes",
    "settings.json",
    "SYSTEM.md",
    "APPEND_SYSTEM.md",
    "AGENTS.md",
];

/// A rejected project file fails closed from this version on.
pub const FAIL_CLOSED_SINCE: Version = Version(21, 0, 0);

pub fn load_policy(inputs: &PolicyInputs) -> LoadedPolicy {
    load_policy_with(inputs, None)
}

/// [`load_policy`], reusing `known` — a scope file already read, by its
/// path — instead of reading it again.
pub fn load_policy_with(
    inputs: &PolicyInputs,
    known: Option<(&str, &crate::formats::pi::model::read::ConfigFile)>,
) -> LoadedPolicy {
    let mut issues = Vec::new();
    let mut rejected = Vec::new();
    // The versions the files were read as (under `auto` the session runs
    // the highest of them).
    let mut versions: Vec<Version> = Vec::new();
    let mut read = |s: &Option<ScopeText>| -> Option<(Arc<str>, PiConfig)> {
        let s = s.as_ref()?;
        let owned;
        let file = match known {
            Some((path, file)) if path == &*s.path => file,
            _ => {
                owned = inputs.read(&s.text);
                &owned
            }
        };
        issues.extend(file.runtime_issues(&s.path));
        versions.push(file.version);
        if !file.accepted() {
            rejected.push(s.path.clone());
        }
        file.config().map(|c| (s.path.clone(), c))
    };
    // From 22.0 an untrusted project contributes nothing (its config and
    // agents are withheld; observed on 26.3.1). The version is the one the
    // global file alone implies.
    let withheld = inputs.project_trusted == Some(false) && {
        let global_version: Vec<Version> = inputs
            .global
            .iter()
            .map(|g| inputs.read(&g.text).version)
            .collect();
        inputs.session_version(&global_version) >= TRUST_SINCE
    };
    let global = read(&inputs.global);
    let project = if withheld {
        None
    } else {
        read(&inputs.project)
    };
    let session_version = inputs.session_version(&versions);
    let project_rejected = !withheld && inputs.project.is_some() && project.is_none();
    let mut scopes = Vec::new();
    for (origin, cfg) in [
        (RuleOrigin::Global, &global),
        (RuleOrigin::Project, &project),
    ] {
        if let Some((path, c)) = cfg
            && let Some(surfaces) = &c.permission
        {
            scopes.push(Scope {
                origin,
                file: Some(path.clone()),
                surfaces: surfaces.clone(),
            });
        }
    }
    // The startup warning looks at the merged global + project policy only.
    let permissive_bash_warning = permissive_bash(&scopes);
    let deprecated_caps_warning = (session_version >= PREVIEW_CAPS_IGNORED_SINCE)
        .then(|| deprecated_caps(&[&global, &project]))
        .flatten();
    let none = None;
    for (origin, s) in [
        (RuleOrigin::Agent, &inputs.global_agent),
        (
            RuleOrigin::ProjectAgent,
            if withheld {
                &none
            } else {
                &inputs.project_agent
            },
        ),
    ] {
        if let Some(s) = s
            && let Some(surfaces) = agent_permission(&s.text)
        {
            scopes.push(Scope {
                origin,
                file: Some(s.path.clone()),
                surfaces,
            });
        }
    }
    let merged = merge_scopes(&scopes);
    let mut rules = compose_rules(&merged, &inputs.home, inputs.flavor);
    // From 21.0 a rejected project file fails closed: every allow rule —
    // inherited, default and baseline ones included — becomes ask for the
    // session (observed on 26.3.1; 20.7.3 only drops the file). So does an
    // agent file that exists but cannot be read (the 26.3.1 sources; its
    // frontmatter itself is never invalid: malformed entries are dropped).
    let mut failed: Vec<&str> = Vec::new();
    if project_rejected {
        failed.push("project");
    }
    if inputs.unreadable_agents.contains(&RuleOrigin::Agent) {
        failed.push("agent");
    }
    if !withheld && inputs.unreadable_agents.contains(&RuleOrigin::ProjectAgent) {
        failed.push("project-agent");
    }
    if !failed.is_empty() && session_version >= FAIL_CLOSED_SINCE {
        // The index is by surface only: changing actions keeps it valid.
        for r in rules.rules.iter_mut() {
            if r.action == State::Allow {
                r.action = State::Ask;
                r.origin = RuleOrigin::FailClosed;
            }
        }
        issues.push(format!(
            "Invalid {} configuration detected — failing closed: 'allow' rules are clamped to 'ask' for this session until the configuration is corrected.",
            failed.join(", ")
        ));
    }

    // Knobs: project over global.
    let knob = |f: &dyn Fn(&PiConfig) -> Option<bool>| {
        project
            .as_ref()
            .and_then(|(_, c)| f(c))
            .or_else(|| global.as_ref().and_then(|(_, c)| f(c)))
    };
    let yolo = knob(&|c| c.knobs.yolo_mode) == Some(true);
    let infra = project
        .as_ref()
        .and_then(|(_, c)| c.knobs.pi_infrastructure_read_paths.clone())
        .or_else(|| {
            global
                .as_ref()
                .and_then(|(_, c)| c.knobs.pi_infrastructure_read_paths.clone())
        })
        .unwrap_or_default();
    let mut shell_tools: Vec<ShellTool> = Vec::new();
    for (_, c) in [&global, &project].into_iter().flatten() {
        for t in c.shell_tools.iter().flatten() {
            match shell_tools.iter_mut().find(|x| x.name == t.name) {
                Some(x) => *x = t.clone(),
                None => shell_tools.push(t.clone()),
            }
        }
    }
    let narrowed = session_version >= INFRA_NARROWED_SINCE;
    let mut infra_dirs: Vec<String> = match (&inputs.agent_dir, narrowed) {
        // 39.0 (documented): only the harness entries of the agent
        // directory, never this package's own logs.
        (Some(agent_dir), true) => inputs
            .extra_infra_dirs
            .iter()
            .filter(|d| *d != agent_dir)
            .cloned()
            .chain(HARNESS_ENTRIES.iter().map(|e| format!("{agent_dir}/{e}")))
            .collect(),
        _ => inputs.extra_infra_dirs.clone(),
    };
    infra_dirs.extend(infra);
    let infra_excluded = match (&inputs.agent_dir, narrowed) {
        (Some(agent_dir), true) => {
            vec![format!("{agent_dir}/extensions/pi-permission-system/logs")]
        }
        _ => Vec::new(),
    };
    LoadedPolicy {
        policy: Policy {
            rules,
            yolo,
            yolo_grants_every_ask: session_version >= YOLO_GRANTS_EVERY_ASK_SINCE,
            gate_execution_hosts: session_version >= Version(25, 2, 2),
            hide_only_all_deny: session_version >= Version(30, 1, 0),
            executed_units: session_version >= Version(26, 3, 1),
            deny_preempts_ask: session_version >= Version(32, 0, 1),
            mcp_last_match: session_version >= Version(33, 0, 0),
            transparency: crate::formats::pi::engine::bash::Transparency {
                core_reader: session_version >= DIRECTIONAL_SINCE,
                execution_modifiers: session_version >= Version(39, 1, 0),
            },
            texts: if session_version >= Version(26, 0, 0) {
                crate::formats::pi::engine::renderer::Texts::Renderer
            } else {
                crate::formats::pi::engine::renderer::Texts::Sentences
            },
            tokens: crate::formats::pi::engine::bash::paths::TokenReading {
                option_values: session_version >= Version(23, 0, 0),
                bare_by_existence: session_version >= Version(23, 0, 0),
                home_variable: session_version >= Version(25, 0, 0),
                execution_hosts: session_version >= Version(25, 2, 2),
                directional: session_version >= DIRECTIONAL_SINCE,
                redirect_always: session_version >= Version(34, 0, 0),
                absolute_spelling: session_version >= Version(40, 0, 0),
            },
            shell_tools,
            mcp_servers: inputs.mcp_servers.clone(),
            infra_dirs,
            infra_excluded,
            infra_targeted_deny: narrowed,
            home: inputs.home.clone(),
            flavor: inputs.flavor,
            session_rules: Vec::new(),
            promotable_paths: Default::default(),
        },
        merged,
        scopes,
        rejected,
        issues,
        permissive_bash_warning,
        deprecated_caps_warning,
    }
}

/// `detectPermissiveBashFallback`: `"*": "allow"` and no `bash` string or
/// `bash` map with its own `"*"`, on the merge of `scopes` — folded over
/// the two keys it reads instead of merging every map (`merge_scopes`
/// replaces a value unless both are maps, which it unites).
fn permissive_bash(scopes: &[Scope]) -> bool {
    #[derive(Clone, Copy)]
    enum Bash {
        Missing,
        State,
        Map { star: bool },
    }
    let mut star_allow = false;
    let mut bash = Bash::Missing;
    for s in scopes.iter().flat_map(|s| &s.surfaces) {
        match (s.key.as_str(), &s.value) {
            ("*", SurfaceValue::State { state, .. }) => star_allow = *state == State::Allow,
            ("*", SurfaceValue::Map { .. }) => star_allow = false,
            ("bash", SurfaceValue::State { .. }) => bash = Bash::State,
            ("bash", SurfaceValue::Map { rules, .. }) => {
                let here = rules.iter().any(|r| r.pattern == "*");
                bash = match bash {
                    Bash::Map { star } => Bash::Map { star: star || here },
                    _ => Bash::Map { star: here },
                };
            }
            _ => {}
        }
    }
    star_allow
        && match bash {
            Bash::State => false,
            Bash::Map { star } => !star,
            Bash::Missing => true,
        }
}
