//! OC005 and OC015: the shared exact last-match-wins analysis
//! (`core::last_match`) run on each agent's merged rule list. A rule
//! never decides when the later rules together match every call it matches
//! (overridden when one broader later rule has another action); it is
//! redundant when every call it decides is decided the same way by the
//! earlier rules the user wrote.
//!
//! Top-level rules are judged in the default agent's list without the
//! agents' own rules (those follow the top level in every agent, so a
//! top-level rule is only reported where it is dead for every agent); an
//! agent's own rules in that agent's list.

use super::{all_perm_maps, describe, example_call, past, verb};
use crate::core::diagnostic::{Diagnostic, Fix, InOrder, Related, Severity};
use crate::core::last_match::{self, Finding, Group, List, Memo};
use crate::core::literal_index::{AnchoredIndex, Anchors};
use crate::core::pattern_algebra::{Inclusion, included_in};
use crate::formats::opencode::codes::Code;
use crate::formats::opencode::engine::policy::{ByPermission, Layer, Policy, Rule};
use crate::formats::opencode::engine::wildcard;

/// Recent analyses (a few documents' agents).
static MEMO: Memo<Finding> = Memo::new();

/// One list to analyse: rules of an agent's list (indices into it), and
/// which of them are judged.
pub struct Pass<'r> {
    agent: &'r str,
    rules: &'r [Rule],
    keep: Vec<usize>,
    judged: Vec<bool>,
}

/// Each finding once: a rule judged in several agents' lists is reported
/// where it is first found.
pub type Seen = std::collections::HashSet<std::ops::Range<usize>>;

/// The precedence findings for the document's rules in one agent's list
/// (`rules`, `policy.rules(agent)`); `first` for the default agent, which
/// the caller gives first.
pub fn precedence(
    policy: &Policy,
    doc: usize,
    agent: &str,
    first: bool,
    rules: &[Rule],
    seen: &mut Seen,
    out: &mut Vec<Diagnostic>,
) {
    for pass in passes(policy, doc, agent, first, rules) {
        judge(policy, doc, &pass, seen, Out::Collect(out));
    }
}

/// The lists judged for the document's rules in one agent's list (as
/// [`precedence`] takes it): those with a rule to judge.
pub fn passes<'r>(
    policy: &Policy,
    doc: usize,
    agent: &'r str,
    first: bool,
    rules: &'r [Rule],
) -> Vec<Pass<'r>> {
    let f = &policy.files[doc];
    let own = |r: &Rule| r.origin.file == Some(doc) && !r.origin.range.is_empty();
    let mut passes = Vec::new();
    if first {
        let keep: Vec<usize> = (0..rules.len()).filter(|&i| !rules[i].agent_rule).collect();
        let judged = keep.iter().map(|&i| own(&rules[i])).collect();
        passes.push(Pass {
            agent,
            rules,
            keep,
            judged,
        });
    }
    let defines = f.read.agents.iter().any(|b| b.name == agent);
    if !first || defines {
        let keep: Vec<usize> = (0..rules.len()).collect();
        let judged = keep
            .iter()
            .map(|&i| rules[i].agent_rule && own(&rules[i]))
            .collect();
        passes.push(Pass {
            agent,
            rules,
            keep,
            judged,
        });
    }
    passes.retain(|p| p.judged.iter().any(|j| *j));
    passes
}

/// The findings of one list judged alone (the only list with rules of the
/// document to judge), handed on in document order a batch at a time.
pub fn precedence_in_order(policy: &Policy, doc: usize, pass: &Pass<'_>, out: &mut InOrder<'_>) {
    judge(policy, doc, pass, &mut Seen::new(), Out::InOrder(out));
}

/// Where a list's findings go.
enum Out<'o, 's> {
    /// Pushed, in the list's order.
    Collect(&'o mut Vec<Diagnostic>),
    /// Handed on in document order.
    InOrder(&'o mut InOrder<'s>),
}

/// The groups of one list: every literal permission name (its rules are
/// the ones that apply to it), and every wildcard permission a judged rule
/// has (the rules that apply to every name it matches; no redundancy is
/// claimed there, since a narrower rule may decide some of its names).
fn groups(rules: &[&Rule], judged: &[bool]) -> Vec<Group> {
    // A name's rules are its own and the wildcards that match it: linear
    // in the rules, not in rules × names.
    let index = ByPermission::new(rules.iter().copied());
    let mut literal: Vec<&str> = index.names().collect();
    literal.sort_unstable();
    let mut out = Vec::new();
    for name in literal {
        let members = index.applying(name, |i| rules[i]);
        let judged = members
            .iter()
            .map(|&i| judged[i] && rules[i].permission == name)
            .collect();
        out.push(Group {
            members,
            judged,
            single_valued: true,
            values: true,
        });
    }
    let mut wild: Vec<&Rule> = (0..rules.len())
        .filter(|&i| judged[i] && !rules[i].permission_is_literal())
        .map(|i| rules[i])
        .collect();
    wild.sort_by(|a, b| a.permission.cmp(&b.permission));
    wild.dedup_by(|a, b| a.permission == b.permission);
    // A rule whose permission includes `w`'s starts and ends with texts
    // every name of `w` starts and ends with, and requires a text within
    // one of `w`'s literal runs: the rules are found by those, not tried
    // one by one for every wildcard.
    let anchored = (!wild.is_empty()).then(|| {
        AnchoredIndex::new(rules.iter().enumerate().map(|(i, r)| {
            if r.permission_is_literal() {
                Anchors::literal(i, &r.permission)
            } else {
                Anchors::of(i, r.permission_glob())
            }
        }))
    });
    for w in wild {
        let members: Vec<usize> = anchored
            .as_ref()
            .map(|ix| ix.including(w.permission_glob()))
            .unwrap_or_default()
            .into_iter()
            .filter(|&i| {
                rules[i].permission == w.permission
                    || wildcard::is_catch_all(&rules[i].permission)
                    || included_in(w.permission_glob(), rules[i].permission_glob())
                        == Inclusion::Included
            })
            .collect();
        let judged = members
            .iter()
            .map(|&i| judged[i] && rules[i].permission == w.permission)
            .collect();
        out.push(Group {
            members,
            judged,
            single_valued: false,
            values: true,
        });
    }
    out
}

/// The permission keys other files than `doc` set at the top level
/// (`None`) or in `agent`'s block: removing a rule whose key another file
/// sets would bring that file's value back, so "it can go" is not claimed.
/// Gathered once per list (a set, not a scan per rule).
fn set_elsewhere<'p>(
    policy: &'p Policy,
    doc: usize,
    agent: &str,
) -> [rustc_hash::FxHashSet<&'p str>; 2] {
    let mut keys: [rustc_hash::FxHashSet<&str>; 2] = Default::default();
    for (i, g) in policy.files.iter().enumerate() {
        if i == doc {
            continue;
        }
        for (pm, a) in all_perm_maps(&g.read) {
            let agent_rule = match a {
                None => false,
                Some(a) if a == agent => true,
                Some(_) => continue,
            };
            for e in &pm.entries {
                keys[usize::from(agent_rule)].insert(e.key.as_str());
            }
        }
    }
    keys
}

/// Adds the findings of one list not `seen` before to `out`.
fn judge(policy: &Policy, doc: usize, pass: &Pass<'_>, seen: &mut Seen, mut out: Out<'_, '_>) {
    let sub: Vec<&Rule> = pass.keep.iter().map(|&i| &pass.rules[i]).collect();
    let groups = groups(&sub, &pass.judged);
    // (Only a judged rule's removal is ever weighed.)
    let elsewhere = set_elsewhere(policy, doc, pass.agent);
    let core: Vec<last_match::Rule> = sub
        .iter()
        .zip(&pass.judged)
        .map(|(r, &judged)| last_match::Rule {
            source: &r.pattern,
            action: r.action,
            effect: None,
            keeps_lower: judged
                && elsewhere[usize::from(r.agent_rule)].contains(r.permission.as_str()),
        })
        .collect();
    let list = List {
        rules: &core,
        groups: &groups,
        salt: b"",
    };
    let findings = MEMO.analyse(&list, &wildcard::Wildcard, &|_, _| Vec::new());
    // The findings not seen in an earlier pass; `out` is reserved for
    // them (a growing list of long findings held a third more than it
    // used).
    let mut fresh: Vec<&Finding> = findings
        .iter()
        .filter(|f| !seen.contains(&sub[f.rule()].origin.range))
        .collect();
    match &mut out {
        Out::Collect(out) => out.reserve(fresh.len()),
        // In document order (a list's rules from one map are already).
        Out::InOrder(_) => {
            let place = |f: &&Finding| {
                let r = &sub[f.rule()].origin.range;
                (r.start, r.end)
            };
            if !fresh.is_sorted_by_key(place) {
                fresh.sort_by_key(place);
            }
        }
    }
    let (places, notes) = (Places::default(), Notes::default());
    // Written on every core for a long list (a finding per rule of a large
    // file), in the findings' order; a batch at a time is held.
    let batches: Vec<&[&Finding]> = fresh.chunks(BATCH).collect();
    let threads = if fresh.len() >= crate::core::parallel::SEQUENTIAL_BELOW {
        crate::core::parallel::cores()
    } else {
        1
    };
    let mut last: Option<std::ops::Range<usize>> = None;
    crate::core::parallel::for_each_ordered(
        &batches,
        threads,
        AHEAD,
        |batch| {
            batch
                .iter()
                .filter_map(|f| diagnostic(policy, pass, &sub, (&places, &notes), f))
                .collect::<Vec<_>>()
        },
        |mut ds| match &mut out {
            Out::Collect(out) => {
                // (A rule is judged once per pass: its place is new.)
                ds.retain(|d| seen.insert(d.range.clone()));
                out.append(&mut ds);
            }
            // The only list: in order of place, a repeated place is the
            // one before (no set of every place held).
            Out::InOrder(out) => {
                ds.retain(|d| {
                    let new = last.as_ref() != Some(&d.range);
                    last = Some(d.range.clone());
                    new
                });
                out.batch(ds);
            }
        },
    );
}

/// Findings written as one batch, and batches written beyond the last one
/// added.
const BATCH: usize = 4096;
const AHEAD: usize = 2;

/// Texts about the rules of a list, each made once and shared: one
/// catch-all overriding every other rule is named in every finding. Read
/// from every core.
struct Described<K>(std::sync::Mutex<rustc_hash::FxHashMap<K, std::sync::Arc<str>>>);

impl<K> Default for Described<K> {
    fn default() -> Self {
        Described(Default::default())
    }
}

impl<K: std::hash::Hash + Eq> Described<K> {
    /// The text for `key`, made by `make` the first time (outside the
    /// lock: another thread may make it too, the same text).
    fn get(&self, key: K, make: impl FnOnce() -> String) -> std::sync::Arc<str> {
        if let Some(t) = self.0.lock().ok().and_then(|m| m.get(&key).cloned()) {
            return t;
        }
        let t: std::sync::Arc<str> = make().into();
        if let Ok(mut m) = self.0.lock() {
            m.insert(key, t.clone());
        }
        t
    }
}

/// How messages name each rule of a list ("the later `bash` `*` ask
/// (opencode.json line 3)").
type Places = Described<usize>;

/// How a related place names a rule, per wording ("the later `bash` `*`
/// rule").
type Notes = Described<(usize, &'static str)>;

fn diagnostic(
    policy: &Policy,
    pass: &Pass<'_>,
    sub: &[&Rule],
    (places, notes): (&Places, &Notes),
    f: &Finding,
) -> Option<Diagnostic> {
    let agent = pass.agent;
    let r = sub[f.rule()];
    let place = |j: usize| places.get(j, || describe(policy, sub[j], agent));
    let d = match f {
        Finding::Unexamined { count, .. } => Diagnostic::new(
            Code::PrecedenceUnexamined,
            r.origin.range.clone(),
            last_match::unexamined_message(*count),
        ),
        Finding::Overridden {
            decided_by,
            example,
            all_by,
            ..
        } => {
            let broader = sub[all_by[0]];
            let decider = sub[*decided_by];
            let call = example_call(&r.permission, example);
            let by = if std::ptr::eq(decider, broader) {
                String::new()
            } else {
                format!(" (by {})", place(*decided_by))
            };
            let mut d = Diagnostic::new(
                Code::RuleNeverDecides,
                r.origin.range.clone(),
                format!(
                    "This rule never decides: {} {} every call it matches (last match wins), e.g. {call} is {}{by}, not {}. Put the broader rule first.",
                    place(all_by[0]),
                    verb(broader.action),
                    past(decider.action),
                    past(r.action)
                ),
            );
            related(&mut d, r, sub, all_by[0], "later", notes);
            // In the same map: moving the rule after the broader one makes
            // it decide what it matches.
            if broader.origin.file == r.origin.file
                && !broader.origin.range.is_empty()
                && broader.permission == r.permission
                && broader.agent_rule == r.agent_rule
            {
                d.add_fix(Fix::MoveAfter {
                    after: broader.origin.range.clone(),
                    overriders: vec![broader.origin.range.clone()],
                });
            }
            d.severity = Severity::Warning;
            d
        }
        Finding::Shadowed {
            decided_by,
            example,
            all_by,
            ..
        } => {
            let decider = sub[*decided_by];
            let call = example_call(&r.permission, example);
            let same = all_by.iter().all(|&j| sub[j].action == r.action);
            let msg = if all_by.len() <= 1 {
                format!(
                    "This rule never decides: {} {}{} every call it matches (last match wins), e.g. {call}. It can go.",
                    place(*decided_by),
                    if same { "also " } else { "" },
                    verb(decider.action)
                )
            } else {
                // The decider first, then a few more; the related places
                // list them all.
                let mut order: Vec<usize> = vec![*decided_by];
                order.extend(all_by.iter().copied().filter(|j| j != decided_by));
                let mut names: Vec<String> = order
                    .iter()
                    .take(3)
                    .map(|&j| place(j).to_string())
                    .collect();
                if order.len() > 3 {
                    names.push(format!("{} more", order.len() - 3));
                }
                let last = names.pop().unwrap_or_default();
                let names = if names.is_empty() {
                    last
                } else {
                    format!("{} and {last}", names.join(", "))
                };
                format!(
                    "This rule never decides: {names} together match every call it matches (last match wins); e.g. {call} is {} by {}. {}",
                    past(decider.action),
                    place(*decided_by),
                    if same {
                        "It can go."
                    } else {
                        "Removing it changes no decision: move it after them if it says what you mean."
                    }
                )
            };
            let mut d = Diagnostic::new(Code::RuleNeverDecides, r.origin.range.clone(), msg);
            for &j in all_by {
                related(&mut d, r, sub, j, "later", notes);
            }
            d.severity = if same {
                Severity::Hint
            } else {
                Severity::Warning
            };
            d
        }
        Finding::Redundant {
            instead, example, ..
        } => {
            let earlier = sub[*instead];
            // Only against rules the user wrote: OpenCode's built-in rules
            // change between releases.
            if matches!(
                earlier.origin.layer,
                Layer::Default | Layer::BuiltinAgent | Layer::Trailer
            ) {
                return None;
            }
            // Removing the rule must not hide the tool (the last rule for a
            // permission being a `*` deny removes the tool).
            use crate::formats::opencode::engine::decide::{hidden_by, hidden_by_except};
            let at = Some(pass.keep[f.rule()]);
            if hidden_by(pass.rules, &r.permission).is_some()
                != hidden_by_except(pass.rules, &r.permission, at).is_some()
            {
                return None;
            }
            let call = example_call(&r.permission, example);
            let mut d = Diagnostic::new(
                Code::RedundantRule,
                r.origin.range.clone(),
                format!(
                    "Removing this rule changes no decision: every call it decides (e.g. {call}) is {} the same way by {} before it.",
                    past(r.action),
                    place(*instead).replacen("the later ", "the ", 1)
                ),
            );
            related(&mut d, r, sub, *instead, "earlier", notes);
            d.add_fix(Fix::RemoveMember);
            d
        }
    };
    Some(d)
}

/// The other rule (`sub[j]`), as a related place when it is in the same
/// file.
fn related(
    d: &mut Diagnostic,
    r: &Rule,
    sub: &[&Rule],
    j: usize,
    when: &'static str,
    notes: &Notes,
) {
    let other = sub[j];
    if other.origin.file == r.origin.file && !other.origin.range.is_empty() {
        d.add_related(Related {
            range: other.origin.range.clone(),
            message: notes.get((j, when), || {
                format!("the {when} `{}` `{}` rule", other.permission, other.pattern)
            }),
        });
    }
}
