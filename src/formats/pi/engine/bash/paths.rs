//! Which paths a bash program touches (`BashPathResolver`): tokens tagged
//! with their effective directory (literal `cd` folds it; a pipeline stage,
//! a backgrounded command or a subshell does not leak it), projected onto
//! external paths and `path`-rule candidates.

use super::direction::{Direction, TokenRole, token_roles};
use super::tokens::{
    Reading, collect_command_tokens, collect_path_candidate_tokens, collect_redirect_tokens,
    extract_command_name, is_arg_node, is_skipped_subtree, path_candidate, promoted_candidate,
    resolve_node_text, rule_candidate,
};
use super::{MAX_DEPTH, text};
use crate::formats::pi::engine::paths::{
    AccessPath, PathContext, is_absolute, join, policy_literal, resolve,
};
use rustc_hash::FxHashMap;
use tree_sitter::{Node, Tree};

#[derive(Debug, Clone, PartialEq)]
enum Base {
    /// Offset from the cwd ("" = the cwd itself, or an absolute path).
    Known(String),
    Unknown,
}

/// A token of the bash `path` gate and its path values.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleCandidate {
    pub token: String,
    pub path: AccessPath,
    /// The access direction (27.1 on; `Both` before, where it is unused).
    pub direction: Direction,
}

/// A path outside the working directory the program touches.
#[derive(Debug, Clone, PartialEq)]
pub struct ExternalPath {
    pub path: AccessPath,
    pub direction: Direction,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct BashPaths {
    pub external: Vec<ExternalPath>,
    pub rule_candidates: Vec<RuleCandidate>,
    /// Command units and their absolute spelling (40.0, documented): each
    /// path argument replaced by the absolute path it names, against the
    /// directory a literal `cd` moved to. Only units that change.
    pub spellings: Vec<(String, String)>,
}

pub struct Resolver<'a> {
    /// Absolute spellings found while walking (40.0).
    pub spellings: std::cell::RefCell<Vec<(String, String)>>,
    pub ctx: &'a PathContext<'a>,
    pub promotable: &'a dyn Fn(&str) -> bool,
    pub workdir: Option<String>,
    /// What the runtime version reads out of tokens besides plain paths.
    pub tokens: TokenReading,
}

/// Tokens that later versions turn into paths (20.7.3 reads neither).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TokenReading {
    /// `--opt=value`: the value is a path candidate (23.0).
    pub option_values: bool,
    /// A bare token (`id_rsa`) is a path candidate when it names an existing
    /// entry, never because a `path` rule names it (23.0, ADR 0009 of the
    /// runtime; up to 22.x a matching deny/ask rule promotes it).
    pub bare_by_existence: bool,
    /// A plain `$HOME` / `${HOME}` expansion in a token is the home
    /// directory, `$PWD` is `.` (25.0).
    pub home_variable: bool,
    /// Commands inside redirect targets and here-documents (25.2.2).
    pub execution_hosts: bool,
    /// Each token carries the direction its command or redirect proves
    /// (27.1, documented).
    pub directional: bool,
    /// A redirect destination reaches the path rules even when the file
    /// does not exist yet (34.0, documented).
    pub redirect_always: bool,
    /// Commands are also matched in their absolute spelling (40.0,
    /// documented).
    pub absolute_spelling: bool,
}

impl Resolver<'_> {
    /// How this version reads token text.
    fn reading(&self) -> Reading<'_> {
        Reading {
            option_values: self.tokens.option_values,
            home: self.tokens.home_variable.then_some(self.ctx.home.as_str()),
            execution_hosts: self.tokens.execution_hosts,
        }
    }

    pub fn resolve(&self, tree: &Tree, src: &str) -> BashPaths {
        let initial = match &self.workdir {
            None => Base::Known(String::new()),
            Some(w) => self.base_from_cd(&Base::Known(String::new()), w),
        };
        let mut candidates = Vec::new();
        self.walk(tree.root_node(), src, initial, &mut candidates, 0);
        let roles = if self.tokens.directional || self.tokens.redirect_always {
            token_roles(tree, src, self.reading())
        } else {
            Default::default()
        };
        let external = self.with_workdir_external(self.project_external(&candidates, &roles));
        BashPaths {
            external,
            rule_candidates: self.project_rule_candidates(&candidates, &roles),
            spellings: self.spellings.take(),
        }
    }

    /// Records the absolute spelling of every command in `node` run from
    /// `base` (40.0, documented): a path-shaped literal argument — one with
    /// a `/`, `.` or `..`, or a bare name that exists — becomes the absolute
    /// path it names; arguments holding a glob, a variable or a
    /// substitution, `~` paths and options stay as typed, and nothing is
    /// spelled after a `cd` whose target is not literal.
    fn spell(&self, node: Node<'_>, src: &str, base: &Base, depth: usize) {
        if !self.tokens.absolute_spelling || depth > MAX_DEPTH {
            return;
        }
        if node.kind() != "command" {
            let mut c = node.walk();
            for child in node.named_children(&mut c) {
                self.spell(child, src, base, depth + 1);
            }
            return;
        }
        let Some(dir) = self.resolve_base(base) else {
            return;
        };
        let unit = super::command_unit_text(node, src);
        let unit_start = unit.as_ptr() as usize - src.as_ptr() as usize;
        let mut spelled = String::with_capacity(unit.len());
        let mut at = unit_start;
        let mut changed = false;
        let mut c = node.walk();
        for child in node.named_children(&mut c) {
            let kind = child.kind();
            if child.start_byte() < unit_start || kind == "command_name" || !is_arg_node(kind) {
                // Substitutions in arguments run from the same directory.
                if child.start_byte() >= unit_start && !is_arg_node(kind) {
                    self.spell(child, src, base, depth + 1);
                }
                continue;
            }
            let raw = text(child, src);
            let literal = kind == "raw_string" || !raw.contains(['$', '`']);
            let value = resolve_node_text(child, src, None);
            let path_shaped = value.contains('/')
                || value == "."
                || value == ".."
                || value.starts_with("./")
                || value.starts_with("../")
                || (!value.is_empty()
                    && !value.starts_with('-')
                    && self.ctx.fs.realpath(&resolve(&dir, &value)).is_ok());
            if !literal
                || !path_shaped
                || value.starts_with('~')
                || value.starts_with('-')
                || value.contains(['*', '?', '['])
                || value.contains("://")
            {
                continue;
            }
            let absolute = resolve(&dir, &value);
            spelled.push_str(src.get(at..child.start_byte()).unwrap_or(""));
            spelled.push_str(&absolute);
            at = child.end_byte();
            changed |= absolute != raw;
        }
        if changed {
            spelled.push_str(src.get(at..node.end_byte()).unwrap_or(""));
            self.spellings
                .borrow_mut()
                .push((unit.to_string(), spelled));
        }
    }

    fn with_workdir_external(&self, mut tokens: Vec<ExternalPath>) -> Vec<ExternalPath> {
        let Some(w) = &self.workdir else {
            return tokens;
        };
        let wd = self.ctx.for_path(w, None);
        let canonical = wd.canonical.clone();
        let external = if canonical.is_empty() {
            true
        } else {
            self.ctx.is_boundary_outside(&canonical)
        };
        if !external {
            return tokens;
        }
        let key = if canonical.is_empty() {
            wd.lexical.clone()
        } else {
            canonical
        };
        let present = tokens.iter().any(|e| path_key(&e.path) == key);
        if !present {
            // The directory a shell tool runs in: no direction is proven.
            tokens.insert(
                0,
                ExternalPath {
                    path: wd,
                    direction: Direction::Both,
                },
            );
        }
        tokens
    }

    /// The path candidates of a subtree, each command's `--opt=value`
    /// values after its own tokens from 23.0 on (observed on 26.3.1).
    fn candidates(&self, node: Node<'_>, src: &str, depth: usize) -> Vec<String> {
        collect_path_candidate_tokens(node, src, depth, self.reading())
    }

    fn walk(
        &self,
        node: Node<'_>,
        src: &str,
        base: Base,
        out: &mut Vec<(String, Base)>,
        depth: usize,
    ) -> Base {
        if depth > MAX_DEPTH {
            return base;
        }
        match node.kind() {
            "program" | "list" | "redirected_statement" | "compound_statement" => {
                self.sequence(node, src, base, out, depth)
            }
            "command" => {
                let tokens = collect_command_tokens(node, src, depth, self.reading());
                tag(tokens, &base, out);
                self.spell(node, src, &base, depth);
                self.fold_cd(node, src, base)
            }
            "pipeline" => self.pipeline(node, src, base, out, depth),
            "subshell" => {
                self.sequence(node, src, base.clone(), out, depth);
                base
            }
            _ => {
                tag(self.candidates(node, src, depth), &base, out);
                self.spell(node, src, &base, depth);
                base
            }
        }
    }

    fn sequence(
        &self,
        node: Node<'_>,
        src: &str,
        base: Base,
        out: &mut Vec<(String, Base)>,
        depth: usize,
    ) -> Base {
        let mut current = base;
        let count = node.child_count();
        for i in 0..count {
            let Some(child) = node.child(i) else { continue };
            if !child.is_named() || is_skipped_subtree(child.kind()) {
                continue;
            }
            let after = self.walk(child, src, current.clone(), out, depth + 1);
            let backgrounded = node
                .child(i + 1)
                .is_some_and(|next| !next.is_named() && next.kind() == "&");
            if !backgrounded {
                current = after;
            }
        }
        current
    }

    fn pipeline(
        &self,
        node: Node<'_>,
        src: &str,
        base: Base,
        out: &mut Vec<(String, Base)>,
        depth: usize,
    ) -> Base {
        let mut current = base;
        let mut first = true;
        let mut c = node.walk();
        for child in node.children(&mut c) {
            if !child.is_named() || is_skipped_subtree(child.kind()) {
                continue;
            }
            if first {
                current = self.pipeline_first_stage(child, src, current, out, depth + 1);
                first = false;
                continue;
            }
            tag(self.candidates(child, src, depth + 1), &current, out);
            self.spell(child, src, &current, depth + 1);
        }
        current
    }

    fn pipeline_first_stage(
        &self,
        node: Node<'_>,
        src: &str,
        base: Base,
        out: &mut Vec<(String, Base)>,
        depth: usize,
    ) -> Base {
        if depth > MAX_DEPTH {
            return base;
        }
        match node.kind() {
            "list" => {
                let mut named = Vec::new();
                let mut c = node.walk();
                for child in node.children(&mut c) {
                    if child.is_named() && !is_skipped_subtree(child.kind()) {
                        named.push(child);
                    }
                }
                let mut current = base;
                let n = named.len();
                for (i, child) in named.into_iter().enumerate() {
                    if i + 1 < n {
                        current = self.walk(child, src, current, out, depth + 1);
                    } else {
                        tag(self.candidates(child, src, depth + 1), &current, out);
                        self.spell(child, src, &current, depth + 1);
                    }
                }
                current
            }
            "redirected_statement" => {
                let mut current = base;
                let mut c = node.walk();
                for child in node.children(&mut c) {
                    if !child.is_named() {
                        continue;
                    }
                    if child.kind() == "file_redirect" {
                        tag(
                            collect_redirect_tokens(child, src, depth + 1, self.reading()),
                            &current,
                            out,
                        );
                        continue;
                    }
                    current = self.pipeline_first_stage(child, src, current, out, depth + 1);
                }
                current
            }
            _ => {
                tag(self.candidates(node, src, depth), &base, out);
                self.spell(node, src, &base, depth);
                base
            }
        }
    }

    fn fold_cd(&self, node: Node<'_>, src: &str, base: Base) -> Base {
        if extract_command_name(node, src).as_deref() != Some("cd") {
            return base;
        }
        match cd_literal_target(node, src) {
            None => Base::Unknown,
            Some(t) => self.base_from_cd(&base, &t),
        }
    }

    fn base_from_cd(&self, base: &Base, target: &str) -> Base {
        if is_absolute(target) {
            return Base::Known(target.to_string());
        }
        match base {
            Base::Unknown => Base::Unknown,
            Base::Known(offset) => Base::Known(join(offset, target)),
        }
    }

    fn resolve_base(&self, base: &Base) -> Option<String> {
        match base {
            Base::Known(offset) => Some(resolve(&self.ctx.cwd, offset)),
            Base::Unknown => None,
        }
    }

    fn is_relative(candidate: &str) -> bool {
        !is_absolute(candidate) && !candidate.starts_with('~')
    }

    fn project_external(
        &self,
        candidates: &[(String, Base)],
        roles: &FxHashMap<String, TokenRole>,
    ) -> Vec<ExternalPath> {
        // Each path once; a path reached again folds its direction.
        let mut seen: FxHashMap<String, usize> = Default::default();
        let mut out: Vec<ExternalPath> = Vec::new();
        let mut push = |p: AccessPath, key: String, direction: Direction| match seen.get(&key) {
            Some(&i) => out[i].direction = out[i].direction.fold(direction),
            None => {
                seen.insert(key, out.len());
                out.push(ExternalPath { path: p, direction });
            }
        };
        for (token, base) in candidates {
            let Some(candidate) = path_candidate(token) else {
                continue;
            };
            let direction = roles.get(token).map_or(Direction::Both, |r| r.direction);
            if *base == Base::Unknown && Self::is_relative(candidate) {
                let p = self.ctx.for_path(candidate, None);
                let canonical = p.canonical.clone();
                if !canonical.is_empty()
                    && !matches!(
                        canonical.as_str(),
                        "/dev/null" | "/dev/stdin" | "/dev/stdout" | "/dev/stderr"
                    )
                {
                    push(p, canonical, direction);
                }
                continue;
            }
            let rb = self.resolve_base(base);
            let p = self.ctx.for_path(candidate, rb.as_deref());
            if p.lexical.is_empty() {
                continue;
            }
            let external = if p.canonical.is_empty() {
                true
            } else {
                self.ctx.is_boundary_outside(&p.canonical)
            };
            if external {
                let key = path_key(&p);
                push(p, key, direction);
            }
        }
        out
    }

    fn project_rule_candidates(
        &self,
        candidates: &[(String, Base)],
        roles: &FxHashMap<String, TokenRole>,
    ) -> Vec<RuleCandidate> {
        let mut seen: FxHashMap<String, usize> = Default::default();
        let mut out: Vec<RuleCandidate> = Vec::new();
        for (token, base) in candidates {
            let role = roles.get(token);
            let direction = role.map_or(Direction::Both, |r| r.direction);
            let exists = |t: &str| {
                self.resolve_base(base)
                    .is_some_and(|rb| self.ctx.fs.realpath(&resolve(&rb, t)).is_ok())
            };
            let promoted = if self.tokens.redirect_always && role.is_some_and(|r| r.redirect) {
                // A redirect creates what it names (34.0).
                promoted_candidate(token, &|_: &str| true)
            } else if self.tokens.bare_by_existence {
                promoted_candidate(token, &exists)
            } else {
                promoted_candidate(token, self.promotable)
            };
            let Some(candidate) = rule_candidate(token).or(promoted) else {
                continue;
            };
            let path = if *base == Base::Unknown && Self::is_relative(candidate) {
                AccessPath::literal(&policy_literal(candidate, &self.ctx.home))
            } else {
                let rb = self.resolve_base(base);
                self.ctx.for_path(candidate, rb.as_deref())
            };
            let values = path.match_values();
            if values.is_empty() {
                continue;
            }
            let key = values.join("\0");
            if let Some(&i) = seen.get(&key) {
                out[i].direction = out[i].direction.fold(direction);
                continue;
            }
            seen.insert(key, out.len());
            out.push(RuleCandidate {
                token: candidate.to_string(),
                path,
                direction,
            });
        }
        out
    }
}

/// How a path is told apart from another: its canonical form, else its
/// lexical one.
fn path_key(p: &AccessPath) -> String {
    if p.canonical.is_empty() {
        p.lexical.clone()
    } else {
        p.canonical.clone()
    }
}

fn tag(tokens: Vec<String>, base: &Base, out: &mut Vec<(String, Base)>) {
    for t in tokens {
        out.push((t, base.clone()));
    }
}

/// The literal target of `cd`, or `None` when it is not literal
/// (`cd "$X"`, `cd -`, `cd ~…`, bare `cd`).
fn cd_literal_target(node: Node<'_>, src: &str) -> Option<String> {
    let mut c = node.walk();
    for child in node.children(&mut c) {
        let kind = child.kind();
        if kind == "command_name" || kind == "variable_assignment" || !child.is_named() {
            continue;
        }
        if kind == "word" && text(child, src) == "--" {
            continue;
        }
        if !is_arg_node(kind) {
            return None;
        }
        return literal_text(child, src);
    }
    None
}

fn literal_text(node: Node<'_>, src: &str) -> Option<String> {
    match node.kind() {
        "word" => {
            let t = text(node, src);
            if t == "-" || t.starts_with('~') {
                None
            } else {
                Some(t.to_string())
            }
        }
        "raw_string" => Some(resolve_node_text(node, src, None)),
        "concatenation" => {
            let mut out = String::new();
            let mut c = node.walk();
            for child in node.children(&mut c) {
                out.push_str(&literal_text(child, src)?);
            }
            Some(out)
        }
        "string" => {
            let mut out = String::new();
            let mut c = node.walk();
            for child in node.children(&mut c) {
                match child.kind() {
                    "\"" => {}
                    "string_content" => out.push_str(text(child, src)),
                    _ => return None,
                }
            }
            Some(out)
        }
        _ => None,
    }
}
