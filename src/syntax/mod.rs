//! Reading text exactly as the runtimes read it: the comment stripper, strict
//! JSON with a ranged tree, JavaScript property order, and the mini-YAML of
//! agent frontmatter.

pub mod bash;
pub mod frontmatter;
pub mod js_order;
pub mod json;
pub mod shell_quote;
pub mod strip;

pub use json::{Member, Node, SyntaxError, SyntaxErrorKind, Value};
