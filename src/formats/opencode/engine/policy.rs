//! The files OpenCode 1.18.33 reads for a session and the ordered rule
//! list of each agent, as `opencode debug agent NAME` prints it.
//!
//! Loading order (each file deep-merged over the ones before, a key that is
//! set again keeping its first position): the global folder's
//! `config.json`, `opencode.json`, `opencode.jsonc`; `$OPENCODE_CONFIG`;
//! every `opencode.json` / `opencode.jsonc` from the worktree root down to
//! the working directory; the `.opencode` folders from the working
//! directory up to the worktree, then `~/.opencode` (their
//! `opencode.json(c)`, then their `agent(s)/**/*.md` and `mode(s)/*.md`;
//! the global folder's agents first); `$OPENCODE_CONFIG_CONTENT`; the
//! managed `/etc/opencode/opencode.json(c)`; then `$OPENCODE_PERMISSION`
//! merged into `permission`, and the legacy `tools` switches under it.
//!
//! An agent's list: the built-in defaults, the agent's built-in extras, the
//! top-level `permission`, the agent's own `permission`, and a final allow
//! of the tool-output folder.

use super::wildcard;
use crate::contract::Context;
use crate::core::literal_index::{AnchoredIndex, Anchors};
use crate::core::pattern_algebra::Pattern;
use crate::core::precedence::Action;
use crate::formats::opencode::model::config::{self, AgentBlock, Fatal, PermMap, PermValue, Read};
use crate::formats::opencode::scopes::{Env, normalise, relative};
use std::ops::Range;
use std::path::PathBuf;

/// Where a rule or file comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Layer {
    /// The built-in defaults every agent starts with.
    Default,
    /// A built-in agent's own extras (`plan` denies edits, …).
    BuiltinAgent,
    /// `~/.config/opencode/opencode.json(c)`, `config.json`.
    Global,
    /// `$OPENCODE_CONFIG`.
    Custom,
    /// The project's `opencode.json(c)` files.
    Project,
    /// `.opencode/opencode.json(c)` folders (and `~/.opencode`).
    DotOpencode,
    /// An agent markdown file.
    AgentFile,
    /// `$OPENCODE_CONFIG_CONTENT`.
    ConfigContent,
    /// `/etc/opencode/opencode.json(c)`.
    Managed,
    /// `$OPENCODE_PERMISSION`.
    PermissionEnv,
    /// The final tool-output allow every agent gets.
    Trailer,
}

impl Layer {
    pub fn name(self) -> &'static str {
        match self {
            Layer::Default => "default",
            Layer::BuiltinAgent => "built-in agent",
            Layer::Global => "global",
            Layer::Custom => "OPENCODE_CONFIG",
            Layer::Project => "project",
            Layer::DotOpencode => ".opencode",
            Layer::AgentFile => "agent file",
            Layer::ConfigContent => "OPENCODE_CONFIG_CONTENT",
            Layer::Managed => "managed",
            Layer::PermissionEnv => "OPENCODE_PERMISSION",
            Layer::Trailer => "tool output",
        }
    }
}

/// Where something is written: a file of the policy (index into
/// `Policy::files`) and a byte range, or nowhere (built in).
#[derive(Debug, Clone, PartialEq)]
pub struct Origin {
    pub layer: Layer,
    pub file: Option<usize>,
    pub range: Range<usize>,
}

impl Origin {
    fn builtin(layer: Layer) -> Origin {
        Origin {
            layer,
            file: None,
            range: 0..0,
        }
    }
}

/// One rule of an agent's list.
#[derive(Debug, Clone)]
pub struct Rule {
    pub permission: String,
    pub pattern: String,
    pub action: Action,
    pub origin: Origin,
    /// Where the rule sits in the agent's config: top level or the agent's
    /// own block.
    pub agent_rule: bool,
    /// Compiled on first use (a check of a long list decides few calls;
    /// boxed: a rule that never is holds a pointer, not a pattern's room).
    permission_glob: std::sync::OnceLock<Box<Pattern>>,
    pattern_glob: std::sync::OnceLock<Box<Pattern>>,
    /// The permission has no wildcard (compared as a string).
    permission_literal: bool,
}

impl Rule {
    fn new(
        permission: &str,
        pattern: &str,
        action: Action,
        origin: Origin,
        agent_rule: bool,
    ) -> Rule {
        Rule {
            permission_literal: !permission.contains(['*', '?', '\\']),
            permission_glob: Default::default(),
            pattern_glob: Default::default(),
            permission: permission.to_string(),
            pattern: pattern.to_string(),
            action,
            origin,
            agent_rule,
        }
    }

    /// The permission as a glob.
    pub fn permission_glob(&self) -> &Pattern {
        self.permission_glob
            .get_or_init(|| Box::new(wildcard::compile(&self.permission)))
    }

    /// The pattern as a glob.
    pub fn pattern_glob(&self) -> &Pattern {
        self.pattern_glob
            .get_or_init(|| Box::new(wildcard::compile(&self.pattern)))
    }

    /// The permission has no wildcard (it applies to that name alone).
    pub fn permission_is_literal(&self) -> bool {
        self.permission_literal
    }

    /// Does the rule apply to this permission name?
    pub fn applies_to(&self, permission: &str) -> bool {
        if self.permission_literal && !permission.contains('\\') {
            return self.permission == permission;
        }
        wildcard::is_match(permission, self.permission_glob())
    }

    /// [`Rule::matches`] with the pattern already in UTF-16 units, `/` for
    /// `\` ([`wildcard::units`]).
    pub fn matches_units(&self, permission: &str, pattern: &[u16]) -> bool {
        self.applies_to(permission) && self.pattern_glob().is_match_units(pattern)
    }

    /// Does the rule match this permission and pattern?
    pub fn matches(&self, permission: &str, pattern: &str) -> bool {
        self.applies_to(permission) && wildcard::is_match(pattern, self.pattern_glob())
    }
}

/// One file read for the policy.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub path: PathBuf,
    pub layer: Layer,
    pub text: String,
    pub read: Read,
    /// An agent file whose frontmatter does not parse: OpenCode skips it.
    pub yaml_error: Option<crate::formats::opencode::model::yaml::YamlError>,
    /// Line starts of `text`, built on the first position asked (a file
    /// of 100,000 rules on one line asks for every rule's).
    pub index: std::sync::OnceLock<crate::text::LineIndex>,
}

impl SourceFile {
    /// 1-based line and column (characters) of a byte offset of `text`.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let index = self
            .index
            .get_or_init(|| crate::text::LineIndex::new(&self.text));
        crate::text::line_col_1(index, &self.text, offset.min(self.text.len()))
    }
}

/// A rule list by permission: each literal permission's rules, and the
/// wildcard ones apart (few in any real list), so that the rules applying
/// to a name are found without a pass over the whole list per name.
pub struct ByPermission<'r> {
    literal: rustc_hash::FxHashMap<&'r str, Vec<usize>>,
    /// The wildcards by the texts every name they match starts and ends
    /// with.
    wild_index: AnchoredIndex,
    len: usize,
}

impl<'r> ByPermission<'r> {
    /// The list's rules in order.
    pub fn new(rules: impl IntoIterator<Item = &'r Rule>) -> ByPermission<'r> {
        let mut out = ByPermission {
            literal: Default::default(),
            wild_index: AnchoredIndex::default(),
            len: 0,
        };
        let mut starts = Vec::new();
        for (i, r) in rules.into_iter().enumerate() {
            if r.permission_is_literal() {
                out.literal
                    .entry(r.permission.as_str())
                    .or_default()
                    .push(i);
            } else {
                starts.push(Anchors::of(i, r.permission_glob()));
            }
            out.len = i + 1;
        }
        // (A name a wildcard matches starts and ends with its common
        // prefix and suffix and holds the literal it requires: only those
        // are tried, not every wildcard for every name.)
        out.wild_index = AnchoredIndex::new(starts);
        out
    }

    /// The literal permissions of the list.
    pub fn names(&self) -> impl Iterator<Item = &'r str> + '_ {
        self.literal.keys().copied()
    }

    /// The positions of the rules that apply to `name` ([`Rule::applies_to`]),
    /// ascending; `rule` gives the rule at a position.
    pub fn applying<'a>(&self, name: &str, rule: impl Fn(usize) -> &'a Rule) -> Vec<usize> {
        if name.contains('\\') {
            return (0..self.len)
                .filter(|&i| rule(i).applies_to(name))
                .collect();
        }
        let mut v: Vec<usize> = self.literal.get(name).cloned().unwrap_or_default();
        v.extend(
            self.wild_index
                .matching(name)
                .into_iter()
                .filter(|&i| rule(i).applies_to(name)),
        );
        v.sort_unstable();
        v
    }
}

/// The merged `permission` map: keys in position order with their values'
/// origins.
#[derive(Debug, Clone, Default)]
pub struct Merged {
    pub entries: Vec<MEntry>,
}

#[derive(Debug, Clone)]
pub struct MEntry {
    pub key: String,
    pub value: MValue,
}

#[derive(Debug, Clone)]
pub enum MValue {
    Action(Action, Origin),
    Map(Vec<(String, Action, Origin)>),
}

impl Merged {
    /// `mergeDeep(this, add)`: maps merge pattern by pattern, anything else
    /// replaces; a key already present keeps its position.
    pub fn merge(&mut self, add: &PermMap, layer: Layer, file: Option<usize>) {
        let mut at = self.positions();
        for e in &add.entries {
            let value = match &e.value {
                PermValue::Action(a, r) => MValue::Action(
                    *a,
                    Origin {
                        layer,
                        file,
                        range: r.clone(),
                    },
                ),
                PermValue::Map(list) => MValue::Map(
                    list.iter()
                        .map(|p| {
                            (
                                p.pattern.clone(),
                                p.action,
                                Origin {
                                    layer,
                                    file,
                                    range: p.key_range.clone(),
                                },
                            )
                        })
                        .collect(),
                ),
            };
            self.merge_value(&mut at, &e.key, value);
        }
        self.order();
    }

    /// Each key's position (before [`Merged::order`]).
    fn positions(&self) -> rustc_hash::FxHashMap<String, usize> {
        self.entries
            .iter()
            .enumerate()
            .map(|(i, e)| (e.key.clone(), i))
            .collect()
    }

    /// JavaScript's property order: array-index keys first, ascending,
    /// then the others in insertion order. (Sorting once after a merge is
    /// sorting after every insertion: the sort is stable and a key keeps
    /// its first position.)
    fn order(&mut self) {
        crate::syntax::js_order::sort_index_keys_first(&mut self.entries, |e| e.key.as_str());
    }

    /// One key of a merge; `at` holds each key's position. Linear in the
    /// two values' sizes (a map merged into a map by pattern).
    fn merge_value(
        &mut self,
        at: &mut rustc_hash::FxHashMap<String, usize>,
        key: &str,
        value: MValue,
    ) {
        match at.get(key).map(|&i| &mut self.entries[i]) {
            Some(x) => match (&mut x.value, value) {
                (MValue::Map(old), MValue::Map(new)) => {
                    let mut slots: rustc_hash::FxHashMap<String, usize> = old
                        .iter()
                        .enumerate()
                        .map(|(i, (q, _, _))| (q.clone(), i))
                        .collect();
                    for (p, a, o) in new {
                        match slots.get(&p) {
                            Some(&i) => {
                                old[i].1 = a;
                                old[i].2 = o;
                            }
                            None => {
                                slots.insert(p.clone(), old.len());
                                old.push((p, a, o));
                            }
                        }
                    }
                    crate::syntax::js_order::sort_index_keys_first(old, |(p, _, _)| p.as_str());
                }
                (slot, v) => *slot = v,
            },
            None => {
                at.insert(key.to_string(), self.entries.len());
                self.entries.push(MEntry {
                    key: key.to_string(),
                    value,
                });
            }
        }
    }

    /// `mergeDeep(base, self)`: `self` over `base`, positions from `base`.
    fn under(self, base: Merged) -> Merged {
        let mut out = base;
        let mut at = out.positions();
        for e in self.entries {
            out.merge_value(&mut at, &e.key, e.value);
        }
        out.order();
        out
    }

    /// How many rules `rules` adds.
    fn len(&self) -> usize {
        self.entries
            .iter()
            .map(|e| match &e.value {
                MValue::Action(..) => 1,
                MValue::Map(list) => list.len(),
            })
            .sum()
    }

    /// The rules, in order (`fromConfig`).
    fn rules(&self, agent_rule: bool, home: &str, out: &mut Vec<Rule>) {
        for e in &self.entries {
            match &e.value {
                MValue::Action(a, o) => out.push(Rule::new(&e.key, "*", *a, o.clone(), agent_rule)),
                MValue::Map(list) => {
                    for (p, a, o) in list {
                        out.push(Rule::new(
                            &e.key,
                            &expand_home(p, home),
                            *a,
                            o.clone(),
                            agent_rule,
                        ))
                    }
                }
            }
        }
    }
}

/// A leading `~/`, `~`, `$HOME/` or `$HOME` is the home directory.
pub fn expand_home(p: &str, home: &str) -> String {
    if let Some(rest) = p.strip_prefix("~/") {
        format!("{home}/{rest}")
    } else if p == "~" {
        home.to_string()
    } else if let Some(rest) = p.strip_prefix("$HOME") {
        format!("{home}{rest}")
    } else {
        p.to_string()
    }
}

/// An agent after every file is merged.
#[derive(Debug, Clone)]
pub struct Agent {
    pub name: String,
    pub builtin: bool,
    pub mode: String,
    /// `disable: true`: OpenCode deletes the agent.
    pub disabled: bool,
    pub hidden: bool,
    /// The agent's own `permission` (merged over every file).
    pub own: Merged,
    /// Where the agent is defined (first file), if anywhere.
    pub defined_in: Option<Origin>,
}

/// Everything OpenCode reads for a session.
#[derive(Debug, Clone)]
pub struct Policy {
    pub env: Env,
    pub files: Vec<SourceFile>,
    /// The merged top-level `permission` (with `$OPENCODE_PERMISSION` and
    /// the `tools` switches).
    pub top: Merged,
    pub agents: Vec<Agent>,
    pub default_agent: Option<String>,
    /// The folders of `references` with a local path (resolved), in order:
    /// every agent may read them.
    pub references: Vec<PathBuf>,
    /// A file the CLI refuses: it does not start (every call fails).
    pub refused: Option<usize>,
}

const BUILTIN_AGENTS: &[(&str, &str)] = &[
    ("build", "primary"),
    ("plan", "primary"),
    ("general", "subagent"),
    ("explore", "subagent"),
    ("compaction", "primary"),
    ("title", "primary"),
    ("summary", "primary"),
];

/// Is this name one of OpenCode's built-in agents?
pub fn is_builtin_agent(name: &str) -> bool {
    BUILTIN_AGENTS.iter().any(|(n, _)| *n == name)
}

impl Policy {
    /// Reads every file of the session of `ctx` (open buffers win).
    pub fn load(ctx: &Context<'_>) -> Policy {
        let (env, files) = crate::formats::opencode::scopes::session_files(ctx);
        Policy::merge(env, files)
    }

    /// Merges files read in loading order.
    pub fn merge(env: Env, files: Vec<SourceFile>) -> Policy {
        let refused = files.iter().position(|f| !f.read.accepted());
        let mut top = Merged::default();
        let mut tools: Vec<(config::ToolSwitch, usize)> = Vec::new();
        let mut agents: Vec<Agent> = Vec::new();
        let mut default_agent = None;
        let mut refs: Vec<(String, Option<String>)> = Vec::new();
        for (i, f) in files.iter().enumerate() {
            // (An agent loaded without its frontmatter is in the read, with
            // no rules.)
            if f.yaml_error
                .as_ref()
                .is_some_and(|e| !e.without_frontmatter)
                || !f.read.accepted()
            {
                continue;
            }
            if let Some(p) = &f.read.permission {
                top.merge(p, f.layer, Some(i));
            }
            for t in &f.read.tools {
                match tools.iter_mut().find(|(x, _)| x.tool == t.tool) {
                    Some(slot) => *slot = (t.clone(), i),
                    None => tools.push((t.clone(), i)),
                }
            }
            for (name, path) in &f.read.references {
                match refs.iter_mut().find(|(n, _)| n == name) {
                    Some(slot) => {
                        if path.is_some() {
                            slot.1 = path.clone();
                        }
                    }
                    None => refs.push((name.clone(), path.clone())),
                }
            }
            if f.read.default_agent.is_some() {
                default_agent = f.read.default_agent.clone();
            }
            for a in &f.read.agents {
                merge_agent(&mut agents, a, f.layer, i);
            }
        }
        if let Some(p) = env.var("OPENCODE_PERMISSION") {
            let r = config::read_config(&format!("{{\"permission\":{p}}}"));
            let ok = r.accepted();
            if let Some(pm) = r.permission.filter(|_| ok) {
                // Ranges are in the wrapped text; they point nowhere useful.
                top.merge(&pm, Layer::PermissionEnv, None);
            }
        }
        if !tools.is_empty() {
            let mut base = Merged::default();
            for (t, i) in &tools {
                let entries = config::switches_to_entries(std::slice::from_ref(t));
                base.merge(&PermMap { entries }, files[*i].layer, Some(*i));
            }
            top = top.under(base);
        }
        crate::syntax::js_order::sort_index_keys_first(&mut refs, |(n, _)| n.as_str());
        let references = refs
            .into_iter()
            .filter_map(|(_, p)| p)
            .map(|p| {
                let expanded = match p.strip_prefix("~/") {
                    Some(rest) => env.home.join(rest),
                    None if p == "~" => env.home.clone(),
                    None => env.directory.join(&p),
                };
                normalise(&expanded)
            })
            .collect();
        Policy {
            env,
            files,
            top,
            agents,
            default_agent,
            references,
            refused,
        }
    }

    /// The agent a session uses: `--agent`, else `default_agent`, else
    /// `build`.
    pub fn agent_name(&self, wanted: Option<&str>) -> String {
        wanted
            .map(str::to_string)
            .or_else(|| self.default_agent.clone())
            .unwrap_or_else(|| "build".into())
    }

    /// Is there such an agent (built in or configured, not disabled)?
    pub fn has_agent(&self, name: &str) -> bool {
        let configured = self.agents.iter().find(|a| a.name == name);
        match configured {
            Some(a) => !a.disabled,
            None => is_builtin_agent(name),
        }
    }

    /// Every agent's name (built in first, then configured).
    pub fn agent_names(&self) -> Vec<String> {
        let mut out: Vec<String> = BUILTIN_AGENTS
            .iter()
            .map(|(n, _)| n.to_string())
            .filter(|n| self.has_agent(n))
            .collect();
        for a in &self.agents {
            if !out.contains(&a.name) && !a.disabled {
                out.push(a.name.clone());
            }
        }
        out
    }

    /// The ordered rule list of an agent (`opencode debug agent NAME`).
    pub fn rules(&self, agent: &str) -> Vec<Rule> {
        let env = &self.env;
        let home = env.home.display().to_string();
        let own = self.agents.iter().find(|a| a.name == agent);
        // Reserved once: a list of a few hundred thousand rules grown by
        // doubling held up to twice its size, and both copies while it grew.
        let mut out = Vec::with_capacity(
            self.top.len() + own.map_or(0, |a| a.own.len()) + 32 + 2 * self.references.len(),
        );
        let mut allow_dirs = vec![
            env.tool_output_glob(),
            format!("{}/*", env.tmp_dir.display()),
        ];
        allow_dirs.extend(self.references.iter().map(|r| format!("{}/*", r.display())));
        let d = Origin::builtin(Layer::Default);
        let push = |out: &mut Vec<Rule>, p: &str, pat: &str, a: Action, o: &Origin| {
            out.push(Rule::new(p, pat, a, o.clone(), false))
        };
        // The defaults.
        push(&mut out, "*", "*", Action::Allow, &d);
        push(&mut out, "doom_loop", "*", Action::Ask, &d);
        push(&mut out, "external_directory", "*", Action::Ask, &d);
        for dir in &allow_dirs {
            push(&mut out, "external_directory", dir, Action::Allow, &d);
        }
        push(&mut out, "question", "*", Action::Deny, &d);
        push(&mut out, "plan_enter", "*", Action::Deny, &d);
        push(&mut out, "plan_exit", "*", Action::Deny, &d);
        push(&mut out, "read", "*", Action::Allow, &d);
        push(&mut out, "read", "*.env", Action::Ask, &d);
        push(&mut out, "read", "*.env.*", Action::Ask, &d);
        push(&mut out, "read", "*.env.example", Action::Allow, &d);
        // The built-in agent's extras.
        let b = Origin::builtin(Layer::BuiltinAgent);
        match agent {
            "build" => {
                push(&mut out, "question", "*", Action::Allow, &b);
                push(&mut out, "plan_enter", "*", Action::Allow, &b);
            }
            "plan" => {
                push(&mut out, "question", "*", Action::Allow, &b);
                push(&mut out, "plan_exit", "*", Action::Allow, &b);
                push(&mut out, "task", "general", Action::Deny, &b);
                let plans = env.data_dir.join("plans");
                push(
                    &mut out,
                    "external_directory",
                    &format!("{}/*", plans.display()),
                    Action::Allow,
                    &b,
                );
                push(&mut out, "edit", "*", Action::Deny, &b);
                push(&mut out, "edit", ".opencode/plans/*.md", Action::Allow, &b);
                let rel = relative(&env.worktree, &plans.join("*.md"));
                push(&mut out, "edit", &rel, Action::Allow, &b);
            }
            "general" => push(&mut out, "todowrite", "*", Action::Deny, &b),
            "explore" => {
                push(&mut out, "*", "*", Action::Deny, &b);
                for t in [
                    "grep",
                    "glob",
                    "list",
                    "bash",
                    "webfetch",
                    "websearch",
                    "read",
                ] {
                    push(&mut out, t, "*", Action::Allow, &b);
                }
                push(&mut out, "external_directory", "*", Action::Ask, &b);
                for dir in &allow_dirs {
                    push(&mut out, "external_directory", dir, Action::Allow, &b);
                }
            }
            "compaction" | "title" | "summary" => push(&mut out, "*", "*", Action::Deny, &b),
            _ => {}
        }
        self.top.rules(false, &home, &mut out);
        if let Some(a) = own {
            a.own.rules(true, &home, &mut out);
        }
        let glob = env.tool_output_glob();
        if !out.iter().any(|r| {
            r.permission == "external_directory" && r.action == Action::Deny && r.pattern == glob
        }) {
            push(
                &mut out,
                "external_directory",
                &glob,
                Action::Allow,
                &Origin::builtin(Layer::Trailer),
            );
        }
        out
    }

    /// The file a rule or entry comes from.
    pub fn file(&self, o: &Origin) -> Option<&SourceFile> {
        o.file.and_then(|i| self.files.get(i))
    }
}

fn merge_agent(agents: &mut Vec<Agent>, a: &AgentBlock, layer: Layer, file: usize) {
    let origin = Origin {
        layer,
        file: Some(file),
        range: a.name_range.clone(),
    };
    let slot = match agents.iter().position(|x| x.name == a.name) {
        Some(i) => &mut agents[i],
        None => {
            agents.push(Agent {
                name: a.name.clone(),
                builtin: is_builtin_agent(&a.name),
                mode: if is_builtin_agent(&a.name) {
                    BUILTIN_AGENTS
                        .iter()
                        .find(|(n, _)| *n == a.name)
                        .map(|(_, m)| m.to_string())
                        .unwrap_or_default()
                } else {
                    "all".into()
                },
                disabled: false,
                hidden: false,
                own: Merged::default(),
                defined_in: Some(origin.clone()),
            });
            agents.last_mut().expect("just pushed")
        }
    };
    slot.own.merge(&a.permission, layer, Some(file));
    if let Some(m) = &a.mode {
        slot.mode = m.clone();
    }
    if a.disable {
        slot.disabled = true;
    }
}

/// Whether the file is refused and why, in the CLI's words.
pub fn refusal(f: &SourceFile) -> Option<String> {
    match &f.read.fatal {
        None => None,
        Some(Fatal::Json { message, .. }) => Some(format!(
            "Config file at {} is not valid JSON(C): {message}",
            f.path.display()
        )),
        Some(Fatal::Invalid) => {
            let mut s = format!("Configuration is invalid at {}", f.path.display());
            if let [i] = f.read.issues.as_slice()
                && i.path.is_empty()
            {
                return Some(format!("{s}: {}", i.message));
            }
            for i in &f.read.issues {
                s.push('\n');
                s.push_str(&i.line());
            }
            Some(s)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn home_is_expanded_at_the_start_only() {
        assert_eq!(expand_home("$HOMEx/y", "/h"), "/hx/y");
        assert_eq!(expand_home("~", "/h"), "/h");
        assert_eq!(expand_home("~/a", "/h"), "/h/a");
        assert_eq!(expand_home("a/~", "/h"), "a/~");
    }
}
