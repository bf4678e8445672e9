//! Which runtime version (or fork) accepts which top-level key — as data.
//!
//! Source: the project's research note on runtime versions. Adding a version's
//! keys means adding rows here; no code elsewhere changes.

pub use crate::core::profile::Version;

/// The version the simulation reproduces exactly (the one on npm).
pub const DEFAULT_TARGET: Version = Version(20, 7, 3);
/// Strict (whole-file) validation starts here.
pub const STRICT_SINCE: Version = Version(19, 0, 0);

/// `permission` takes the directional path surfaces from this version on
/// (27.1.0; documented, not verified).
pub const DIRECTIONAL_SINCE: Version = Version(27, 1, 0);

/// The directional surfaces, as `auto` names them.
pub const DIRECTIONAL_KEYS: [&str; 4] = [
    "permission.path_read",
    "permission.path_write",
    "permission.external_directory_read",
    "permission.external_directory_write",
];

/// The value a top-level key takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyShape {
    String,
    Boolean,
    /// Integer from 1 to 2^53 − 1.
    PositiveInt,
    /// Array of non-empty strings.
    NonEmptyStrings,
    /// Array of the given string values.
    EnumStrings(&'static [&'static str]),
    /// Strict object whose members are all optional strings.
    StringMembers(&'static [&'static str]),
    /// The `permission` policy.
    Permission,
    /// The `shellTools` alias map.
    ShellTools,
    /// A key of another runtime whose shape this project does not check.
    Opaque,
}

/// Who reads a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Availability {
    /// `@gotgenes/pi-permission-system` from this version on.
    Since(Version),
    /// Only a fork or look-alike runtime that reads the same file.
    Fork(&'static str),
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KeySpec {
    pub key: &'static str,
    pub shape: KeyShape,
    pub availability: Availability,
    /// Accepted but ignored from this version on.
    pub ignored_since: Option<Version>,
    pub description: &'static str,
}

const V0: Version = Version(0, 0, 0);

/// Every top-level key known to any runtime version or fork, in the
/// runtime's schema order (which is the order the runtime reports issues in).
pub static KEYS: &[KeySpec] = &[
    spec(
        "$schema",
        KeyShape::String,
        V0,
        "JSON Schema URI for editor autocomplete and validation. No runtime effect.",
    ),
    spec(
        "debugLog",
        KeyShape::Boolean,
        V0,
        "Write verbose permission-system diagnostics to the extension logs directory. Default `false`.",
    ),
    spec(
        "permissionReviewLog",
        KeyShape::Boolean,
        V0,
        "Write permission request and decision audit events to the extension logs directory. Default `true`.",
    ),
    spec(
        "yoloMode",
        KeyShape::Boolean,
        V0,
        "Auto-approve `ask` results of permission rules (default `false`). Wrapper floors and unparseable bash commands still ask.",
    ),
    spec(
        "doublePressToConfirm",
        KeyShape::Boolean,
        Version(20, 7, 0),
        "Require a second press of a decision hotkey in the TUI permission dialog. Default `true`.",
    ),
    KeySpec {
        ignored_since: Some(Version(26, 0, 0)),
        ..spec(
            "toolInputPreviewMaxLength",
            KeyShape::PositiveInt,
            V0,
            "Maximum length of the tool-input preview in permission prompts. Default 200.",
        )
    },
    KeySpec {
        ignored_since: Some(Version(26, 0, 0)),
        ..spec(
            "toolTextSummaryMaxLength",
            KeyShape::PositiveInt,
            V0,
            "Maximum length of inline pattern/path summaries in permission prompts. Default 80.",
        )
    },
    spec(
        "piInfrastructureReadPaths",
        KeyShape::NonEmptyStrings,
        V0,
        "Extra directories whose reads bypass the `external_directory` gate (plain prefixes or `*`/`?` wildcards; `~` expands). An empty list replaces a lower scope's list.",
    ),
    spec(
        "permission",
        KeyShape::Permission,
        V0,
        "The policy: surface keys (tool names, `path`, `external_directory`, `bash`, `mcp`, `skill`, or `*`) mapped to a state or to a map of patterns. Last matching rule wins.",
    ),
    spec(
        "shellTools",
        KeyShape::ShellTools,
        Version(20, 5, 0),
        "Tools gated like `bash`: tool name → `{ \"commandArgument\": …, \"workdirArgument\"?: … }`.",
    ),
    spec(
        "authorizerChain",
        KeyShape::NonEmptyStrings,
        Version(20, 9, 0),
        "Authorizer links consulted, in order, before an `ask` prompts.",
    ),
    spec(
        "forwardingTimeoutMs",
        KeyShape::PositiveInt,
        Version(25, 1, 0),
        "How long a forwarded subagent ask waits for the parent, in ms (default 600000).",
    ),
    spec(
        "promptMaxRows",
        KeyShape::PositiveInt,
        Version(25, 3, 0),
        "Maximum rows of the permission prompt (default 24).",
    ),
    spec(
        "promptFieldMaxWidth",
        KeyShape::PositiveInt,
        Version(25, 3, 0),
        "Maximum width of a prompt field (default 400).",
    ),
    spec(
        "reviewLogFieldMaxWidth",
        KeyShape::PositiveInt,
        Version(26, 0, 0),
        "Review-log values are truncated to this width (default 1000).",
    ),
    spec(
        "permissionDialogKeys",
        KeyShape::StringMembers(&[
            "approve",
            "approveSession",
            "approveSessionBoth",
            "deny",
            "denyWithReason",
        ]),
        Version(32, 1, 0),
        "Hotkeys of the permission dialog.",
    ),
    spec(
        "promptNotifications",
        KeyShape::EnumStrings(&["bell", "osc9", "osc777"]),
        Version(36, 1, 0),
        "Terminal notifications when a permission prompt opens.",
    ),
    fork("keybindings", "the epheien/pi-permission-system fork"),
    fork(
        "subagentPermission",
        "the epheien/pi-permission-system fork",
    ),
    fork("toolDiffPrompt", "the epheien/pi-permission-system fork"),
    fork(
        "toolDiffDefaultView",
        "the epheien/pi-permission-system fork",
    ),
    fork(
        "yoloModeShortcut",
        "the epheien/pi-permission-system fork (briefly)",
    ),
    fork("wrapperFloors", "the @xzzpig/pi-permission-system fork"),
    fork(
        "desktopNotifications",
        "the yrahul3910/pi-permission-system fork (MasuRii line)",
    ),
    fork(
        "debug",
        "the MasuRii pi-permission-system ≥ 0.7.0 and @vitos-pizza/permission-system",
    ),
    fork("agentMode", "@vitos-pizza/permission-system"),
    fork(
        "_comment",
        "lenient loaders (gotgenes ≤ 18.x, MasuRii, vitos-pizza)",
    ),
    fork(
        "defaultPolicy",
        "the legacy policy file `pi-permissions.jsonc` (MasuRii line); since the flat format it belongs in `permission[\"*\"]`",
    ),
    fork(
        "tools",
        "the legacy policy file (MasuRii line); the flat format writes `permission.<tool>`",
    ),
    fork(
        "bash",
        "the legacy policy file; the flat format writes `permission.bash`",
    ),
    fork(
        "mcp",
        "the legacy policy file; the flat format writes `permission.mcp`",
    ),
    fork(
        "skills",
        "the legacy policy file; the flat format writes `permission.skill`",
    ),
    fork(
        "special",
        "the legacy policy file; the flat format writes `permission.external_directory`",
    ),
];

const fn spec(
    key: &'static str,
    shape: KeyShape,
    since: Version,
    description: &'static str,
) -> KeySpec {
    KeySpec {
        key,
        shape,
        availability: Availability::Since(since),
        ignored_since: None,
        description,
    }
}

const fn fork(key: &'static str, who: &'static str) -> KeySpec {
    KeySpec {
        key,
        shape: KeyShape::Opaque,
        availability: Availability::Fork(who),
        ignored_since: None,
        description: "",
    }
}

pub fn key_spec(key: &str) -> Option<&'static KeySpec> {
    KEYS.iter().find(|k| k.key == key)
}

/// The top-level keys the target version accepts, in schema order.
pub fn accepted_keys(target: Version) -> impl Iterator<Item = &'static KeySpec> {
    KEYS.iter().filter(move |k| accepts(k, target))
}

pub fn accepts(k: &KeySpec, target: Version) -> bool {
    match k.availability {
        Availability::Since(v) => target >= v,
        Availability::Fork(_) => false,
    }
}

/// Why a version was taken for a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Assumed {
    /// The user named it.
    Pinned,
    /// pi installed this version (the file says where).
    Installed(String),
    /// The lowest version that accepts every key of the file: this key
    /// needs it.
    NeededBy(&'static str),
    /// Nothing in the file needs more than the exact profile.
    Default,
}

/// The version `auto` takes for a file with these top-level keys (and
/// `permission.<directional surface>` for the surfaces of 27.1): the
/// installed one when known, else the lowest version accepting every key
/// (never below the exact profile), else the exact profile. Keys only a
/// fork reads do not raise it (no version accepts them: they are reported
/// with the fork's name).
pub fn resolve<'a>(
    profile: crate::core::profile::RuntimeProfile,
    installed: Option<&(Version, String)>,
    keys: impl Iterator<Item = &'a str>,
) -> (Version, Assumed) {
    if !profile.auto {
        return (profile.version, Assumed::Pinned);
    }
    if let Some((v, from)) = installed {
        return (*v, Assumed::Installed(from.clone()));
    }
    let mut best: Option<(Version, &'static str)> = None;
    for k in keys {
        if let Some(d) = DIRECTIONAL_KEYS.iter().find(|d| **d == k) {
            if best.is_none_or(|(b, _)| DIRECTIONAL_SINCE > b) {
                best = Some((DIRECTIONAL_SINCE, d));
            }
            continue;
        }
        if let Some(KeySpec {
            key,
            availability: Availability::Since(v),
            ..
        }) = key_spec(k)
            && *v > DEFAULT_TARGET
            && best.is_none_or(|(b, _)| *v > b)
        {
            best = Some((*v, key));
        }
    }
    match best {
        Some((v, key)) => (v, Assumed::NeededBy(key)),
        None => (profile.version, Assumed::Default),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_target_has_the_baseline_keys() {
        let keys: Vec<_> = accepted_keys(crate::formats::pi::model::versions::DEFAULT_TARGET)
            .map(|k| k.key)
            .collect();
        assert_eq!(
            keys,
            [
                "$schema",
                "debugLog",
                "permissionReviewLog",
                "yoloMode",
                "doublePressToConfirm",
                "toolInputPreviewMaxLength",
                "toolTextSummaryMaxLength",
                "piInfrastructureReadPaths",
                "permission",
                "shellTools"
            ]
        );
        assert!(accepted_keys(Version(40, 1, 4)).any(|k| k.key == "promptNotifications"));
        assert_eq!(Version::parse("v25.1"), Some(Version(25, 1, 0)));
        assert_eq!(Version::parse("x"), None);
    }

    #[test]
    fn auto_takes_the_lowest_version_that_accepts_every_key() {
        use crate::contract::prelude::*;
        let auto = crate::formats::pi::Pi.default_profile();
        let r = |keys: &[&str]| resolve(auto, None, keys.iter().copied());
        assert_eq!(r(&["permission"]), (DEFAULT_TARGET, Assumed::Default));
        assert_eq!(
            r(&["permission", "authorizerChain"]),
            (Version(20, 9, 0), Assumed::NeededBy("authorizerChain"))
        );
        assert_eq!(
            r(&["authorizerChain", "forwardingTimeoutMs"]),
            (Version(25, 1, 0), Assumed::NeededBy("forwardingTimeoutMs"))
        );
        // A fork's key raises nothing (it is reported with the fork).
        assert_eq!(r(&["keybindings"]), (DEFAULT_TARGET, Assumed::Default));
        let installed = (Version(26, 3, 1), "x".to_string());
        assert_eq!(
            resolve(auto, Some(&installed), ["authorizerChain"].into_iter()).0,
            Version(26, 3, 1)
        );
        let pinned = crate::core::profile::RuntimeProfile {
            auto: false,
            ..auto
        };
        assert_eq!(
            resolve(pinned, None, ["forwardingTimeoutMs"].into_iter()),
            (DEFAULT_TARGET, Assumed::Pinned)
        );
    }
}
