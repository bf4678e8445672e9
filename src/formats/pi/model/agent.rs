//! Agent files (`<name>.md`): the `permission:` block of the frontmatter,
//! read tolerantly — every invalid entry is silently dropped (spec §2.5).

use super::config::{PatternRule, RuleValue, State, Surface, SurfaceValue};
use crate::syntax::frontmatter::{
    YamlEntry, YamlValue, extract_frontmatter, parse_simple_yaml_map,
};
use crate::syntax::js_order::sort_index_keys_first;

/// The permission surfaces an agent file contributes, or `None` when it
/// contributes nothing (no frontmatter, no `permission`, or nothing valid).
/// Ranges are byte offsets into the file with CRLF folded to LF.
pub fn agent_permission(markdown: &str) -> Option<Vec<Surface>> {
    let (block, start) = extract_frontmatter(markdown)?;
    let root = parse_simple_yaml_map(&block);
    let perm = root.iter().rev().find(|e| e.key == "permission")?;
    let YamlValue::Map(entries) = &perm.value else {
        return None;
    };
    let shift = |r: &std::ops::Range<usize>| r.start + start..r.end + start;
    let mut out = Vec::new();
    for e in entries {
        if e.key == "__proto__" {
            continue;
        }
        match &e.value {
            YamlValue::Scalar(s) => {
                if let Some(state) = State::parse(s) {
                    out.push(Surface {
                        key: e.key.clone(),
                        key_range: shift(&e.key_range),
                        value: SurfaceValue::State {
                            state,
                            range: shift(&e.line_range),
                        },
                    });
                }
            }
            YamlValue::Map(patterns) => {
                let rules: Vec<PatternRule> = patterns
                    .iter()
                    .filter(|p| p.key != "__proto__")
                    .filter_map(|p| {
                        Some(PatternRule {
                            pattern: p.key.clone(),
                            value: tolerant_rule_value(p)?,
                            key_range: shift(&p.key_range),
                            value_range: shift(&p.line_range),
                        })
                    })
                    .collect();
                let mut rules = rules;
                // A plain JavaScript object: integer-like keys enumerate first.
                sort_index_keys_first(&mut rules, |r| r.pattern.as_str());
                if !rules.is_empty() {
                    out.push(Surface {
                        key: e.key.clone(),
                        key_range: shift(&e.key_range),
                        value: SurfaceValue::Map {
                            rules,
                            range: shift(&e.line_range),
                        },
                    });
                }
            }
        }
    }
    sort_index_keys_first(&mut out, |s| s.key.as_str());
    if out.is_empty() { None } else { Some(out) }
}

/// `isPermissionState` or `isDenyWithReason` (action `deny`, reason absent
/// or a string, extra keys allowed, any length).
fn tolerant_rule_value(p: &YamlEntry) -> Option<RuleValue> {
    match &p.value {
        YamlValue::Scalar(s) => State::parse(s).map(|action| RuleValue {
            action,
            reason: None,
        }),
        YamlValue::Map(m) => {
            let action = m.iter().find(|e| e.key == "action")?;
            if action.value != YamlValue::Scalar("deny".into()) {
                return None;
            }
            let reason = match m.iter().find(|e| e.key == "reason").map(|e| &e.value) {
                None => None,
                Some(YamlValue::Scalar(s)) => Some(s.clone()),
                Some(YamlValue::Map(_)) => return None,
            };
            Some(RuleValue {
                action: State::Deny,
                reason,
            })
        }
    }
}
