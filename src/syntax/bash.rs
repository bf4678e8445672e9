//! Shell commands parsed with the bash grammar (tree-sitter-bash), one
//! parser per thread: the runtimes that parse commands use this grammar.

use std::cell::RefCell;
use tree_sitter::{Parser, Tree};

thread_local! {
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// The syntax tree of a command line (`None` if the grammar cannot load).
pub fn parse(command: &str) -> Option<Tree> {
    PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let mut p = Parser::new();
            p.set_language(&tree_sitter_bash::LANGUAGE.into()).ok()?;
            *slot = Some(p);
        }
        slot.as_mut()?.parse(command, None)
    })
}
