//! Claude Code's settings as its CLI reads them: each rule string
//! (`rules`), the shapes a Bash rule's content takes (`shape`), and what
//! a rule's text says it does (`rule_text`).

pub mod rule_text;
pub mod rules;
pub mod shape;
pub mod spellings;
