//! Shell commands parsed with the bash grammar (tree-sitter-bash), one
//! parser per thread: the runtimes that parse commands use this grammar.
//!
//! A command is parsed with a newline after it when that is exact, and the
//! newline is then edited out of the tree. At the end of the input,
//! tree-sitter-bash keeps a second parse stack alive through a pipeline of
//! double-quoted words (`cat "a" | cat "b" | …`) and its error recovery then
//! walks every path through them: time and memory grow with the square of
//! the pipeline (4,000 parts: 0.3 s and 160 MB; 12,000: 3 s and 1 GB). A
//! newline ends the statement before the end of the input and no stack
//! survives to be recovered (4,000 parts: 0.08 s, 18 MB). The tree is the
//! same node for node, byte for byte, as the tree of the command as written
//! (compared over seeded random commands, every command in the test
//! fixtures and mutations of them) except where the newline changes what
//! comes before it: after a backslash at the end (a line continuation), with
//! a here-document (a newline completes a body that ends the input without
//! its delimiter), and in a tree with an error (recovery may end elsewhere).
//! Those are parsed as written.
//!
//! A long pipeline followed by a syntax error (`a|a|…|a )`, or an unclosed
//! `"`, `(` or `$(` after it) still costs the square of its length in this
//! grammar, with or without the newline: the pipeline's commands stay on
//! the parse stack until its end and, after the error, the parser builds a
//! tree for every path through them when it accepts (8,000 commands:
//! 3.4 s and 700 MB, measured here, not in the runtimes). Such a command
//! is not parsed: [`parse`] refuses a statement with more than
//! [`MAX_PIPELINE`] commands joined by `|` (counted by a linear scan that
//! skips quotes and here-document bodies), a command with more than
//! [`MAX_PIPES`] `|` in all, or with more than [`MAX_STACKED`] operators
//! right after another. A refusal is kept for [`take_refused`], which a
//! simulation reports as incomplete.

use std::cell::RefCell;
use tree_sitter::{InputEdit, Parser, Point, Tree};

thread_local! {
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
    static REFUSED: RefCell<Option<Unparsed>> = const { RefCell::new(None) };
}

/// The most commands one statement's pipelines may join (nested ones
/// counted with it) for the command to be parsed. A pipeline of this
/// length with a syntax error after it parses in about 8 ms, as much per
/// byte as a short command with an error (the grammar's recovery has a
/// cost of its own: 0.14 ms for `x )`); no command an agent runs comes
/// near it.
pub const MAX_PIPELINE: usize = 256;

/// The most `|` characters a command may have, quoted or not: a bound
/// that does not rest on the scan telling statements, quotes or bodies
/// apart as the grammar's error recovery does (a pipeline of
/// this length with an error: about 50 ms and 35 MB).
pub const MAX_PIPES: usize = 1024;

/// The most operators a command may have right after another (`a || ||
/// b`, `&& &&`, `| |`), each a syntax error whose recovery costs more the
/// more came before (8,000 `||` in a row: 2.9 s; 64: well under a
/// millisecond).
pub const MAX_STACKED: usize = 64;

/// Why a command has no tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unparsed {
    /// The grammar did not load.
    NoGrammar,
    /// One statement joins more than [`MAX_PIPELINE`] commands by pipes.
    LongPipeline(usize),
    /// More than [`MAX_PIPES`] pipes in all.
    ManyPipes(usize),
    /// More than [`MAX_STACKED`] operators right after another.
    StackedOperators(usize),
}

impl std::fmt::Display for Unparsed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const WHY: &str = "the bash grammar takes time and memory growing with the square of \
                           a long pipeline that has a syntax error (measured with the \
                           tree-sitter this checker runs, not in the runtime)";
        match self {
            Unparsed::NoGrammar => write!(f, "the bash grammar did not load"),
            Unparsed::LongPipeline(n) => write!(
                f,
                "a command whose pipes join {n} commands in one statement (more than \
                 {MAX_PIPELINE}) was not parsed: {WHY}"
            ),
            Unparsed::ManyPipes(n) => write!(
                f,
                "a command with {n} `|` (more than {MAX_PIPES}, quoted or not) was not \
                 parsed: {WHY}"
            ),
            Unparsed::StackedOperators(n) => write!(
                f,
                "a command with {n} operators right after another (`|| ||`; more than \
                 {MAX_STACKED}) was not parsed: the bash grammar takes time growing with \
                 the square of such a run of syntax errors (measured with the tree-sitter \
                 this checker runs, not in the runtime)"
            ),
        }
    }
}

/// The first command [`parse`] refused on this thread since the last call
/// (what a simulation that parsed commands reports as incomplete).
pub fn take_refused() -> Option<Unparsed> {
    REFUSED.with(|r| r.borrow_mut().take())
}

fn with_parser<T>(f: impl FnOnce(&mut Parser) -> Option<T>) -> Option<T> {
    PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let mut p = Parser::new();
            p.set_language(&tree_sitter_bash::LANGUAGE.into()).ok()?;
            *slot = Some(p);
        }
        f(slot.as_mut()?)
    })
}

/// The syntax tree of a command line; no tree when the grammar cannot load
/// or the command is refused (see the module's notes; the refusal is also
/// kept for [`take_refused`]).
pub fn parse(command: &str) -> Result<Tree, Unparsed> {
    let Counts {
        longest,
        pipes,
        stacked,
    } = pipe_counts(command);
    let refused = if longest > MAX_PIPELINE {
        Some(Unparsed::LongPipeline(longest))
    } else if pipes > MAX_PIPES {
        Some(Unparsed::ManyPipes(pipes))
    } else if stacked > MAX_STACKED {
        Some(Unparsed::StackedOperators(stacked))
    } else {
        None
    };
    if let Some(why) = refused {
        REFUSED.with(|r| {
            r.borrow_mut().get_or_insert_with(|| why.clone());
        });
        return Err(why);
    }
    parse_unbounded(command).ok_or(Unparsed::NoGrammar)
}

/// [`parse`] without the bound on pipelines.
fn parse_unbounded(command: &str) -> Option<Tree> {
    with_parser(|p| {
        if newline_is_neutral(command) {
            let mut text = String::with_capacity(command.len() + 1);
            text.push_str(command);
            text.push('\n');
            if let Some(mut tree) = p.parse(&text, None)
                && !tree.root_node().has_error()
            {
                let end = end_point(command);
                tree.edit(&InputEdit {
                    start_byte: command.len(),
                    old_end_byte: text.len(),
                    new_end_byte: command.len(),
                    start_position: end,
                    old_end_position: Point::new(end.row + 1, 0),
                    new_end_position: end,
                });
                return Some(tree);
            }
        }
        p.parse(command, None)
    })
}

/// The tree of the command exactly as written, never with a newline added
/// (the reference [`parse`] is compared with).
fn parse_as_written(command: &str) -> Option<Tree> {
    with_parser(|p| p.parse(command, None))
}

/// The most pipes in one top-level statement (outside quotes and plain
/// here-document bodies; after an unclosed quote, every `|`), every `|`,
/// and the operators right after another, in one pass. Statements are told
/// apart only where no bracket and no compound command (`if`…`fi`,
/// `for`/`while`/`until`/`select`…`done`, `case`…`esac`) is open: the scan
/// opens one for every such word at the start of a word and closes it only
/// after a separator, so that it counts more than the grammar, never less,
/// where the tree has no error (a test compares it with the trees of random
/// commands; the fuzzer with mutations of recorded ones). Where recovery
/// reads a command otherwise, the count of every `|` bounds it.
fn pipe_counts(command: &str) -> Counts {
    let b = command.as_bytes();
    if memchr::memchr2(b'|', b'&', b).is_none() {
        return Counts::default();
    }
    // What closes each open bracket, quote or compound command: `)`, `}`,
    // `` ` ``, `"`, or `f` (`fi`), `d` (`done`), `e` (`esac`).
    let mut open: Vec<u8> = Vec::new();
    let mut heredocs: Vec<(&[u8], bool, bool)> = Vec::new();
    let (mut run, mut longest) = (0usize, 0usize);
    let mut word_start = true;
    // After a separator or an opening, where `fi`, `done` and `esac` close.
    let mut after_separator = true;
    // After `|`, `|&`, `||` or `&&` (white space, newlines and comments
    // between): another one there is an error.
    let mut after_operator = false;
    let mut stacked = 0usize;
    // Where each open `"` starts, and an unclosed `'` or `$'`: the grammar's
    // recovery reads what follows an unclosed quote as commands.
    let mut quotes: Vec<usize> = Vec::new();
    let mut unclosed: Option<usize> = None;
    let mut i = 0;
    // Only where no bracket is open does a statement end.
    let end_statement = |open: &[u8], run: &mut usize| {
        if open.is_empty() {
            *run = 0;
        }
    };
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if open.last() == Some(&b'"') {
            match c {
                b'\\' => i += 2,
                b'"' => {
                    open.pop();
                    quotes.pop();
                    i += 1;
                }
                b'$' if next == Some(b'(') => {
                    open.push(b')');
                    i += 2;
                }
                b'$' if next == Some(b'{') => {
                    open.push(b'}');
                    i += 2;
                }
                b'`' => {
                    open.push(b'`');
                    i += 1;
                }
                _ => i += 1,
            }
            word_start = false;
            after_separator = false;
            continue;
        }
        let mut starts_word = false;
        let mut separator = false;
        let mut operator = false;
        match c {
            b'\\' => i += 2,
            b'\'' => match memchr::memchr(b'\'', &b[i + 1..]) {
                Some(j) => i += j + 2,
                None => {
                    unclosed = Some(i);
                    i = b.len();
                }
            },
            b'$' if next == Some(b'\'') => {
                let start = i;
                i += 2;
                while i < b.len() && b[i] != b'\'' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                if i >= b.len() {
                    unclosed = Some(start);
                }
                i += 1;
            }
            b'"' => {
                open.push(b'"');
                quotes.push(i);
                i += 1;
            }
            b'$' if matches!(next, Some(b'(' | b'{')) => {
                open.push(if next == Some(b'(') { b')' } else { b'}' });
                i += 2;
                starts_word = next == Some(b'(');
                separator = starts_word;
            }
            b'`' => {
                if open.last() == Some(&b'`') {
                    open.pop();
                } else {
                    open.push(b'`');
                    starts_word = true;
                    separator = true;
                }
                i += 1;
            }
            b'(' | b'{' => {
                open.push(if c == b'(' { b')' } else { b'}' });
                i += 1;
                starts_word = true;
                separator = true;
            }
            b')' | b'}' => {
                if open.last() == Some(&c) {
                    open.pop();
                }
                i += 1;
            }
            b'#' if word_start => {
                // A comment's quotes are skipped; its pipes count, in case
                // the grammar's recovery reads the line otherwise.
                let end = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |j| i + j);
                let n = memchr::memchr_iter(b'|', &b[i..end]).count();
                run += n;
                longest = longest.max(run);
                i = end;
                operator = after_operator;
            }
            // `&&` and `||` do not end the statement for the scan: the
            // grammar's recovery and precedence may put a list inside a
            // pipeline.
            b'|' | b'&' if next == Some(c) => {
                stacked += usize::from(after_operator);
                i += 2;
                starts_word = true;
                separator = true;
                operator = true;
            }
            b'|' => {
                run += 1;
                longest = longest.max(run);
                stacked += usize::from(after_operator);
                i += if next == Some(b'&') { 2 } else { 1 };
                starts_word = true;
                separator = true;
                operator = true;
            }
            b'&' | b';' => {
                // `>&`, `<&` and `&>` redirect; anything else ends a statement.
                let redirect =
                    c == b'&' && (next == Some(b'>') || (i > 0 && matches!(b[i - 1], b'>' | b'<')));
                if !redirect {
                    end_statement(&open, &mut run);
                }
                i += 1;
                starts_word = true;
                separator = true;
            }
            b'<' if next == Some(b'<') && b.get(i + 2) != Some(&b'<') => {
                i += 2;
                let strip = b.get(i) == Some(&b'-');
                if strip {
                    i += 1;
                }
                while matches!(b.get(i), Some(b' ' | b'\t')) {
                    i += 1;
                }
                let start = i;
                while i < b.len() && !b" \t\n;&|()<>".contains(&b[i]) {
                    i += 1;
                }
                let word = &b[start..i];
                let quoted = word.iter().any(|c| matches!(c, b'\'' | b'"' | b'\\'));
                heredocs.push((word, strip, quoted));
            }
            b'<' if next == Some(b'<') => i += 3,
            // A newline does not end the statement for the scan either: the
            // grammar reads some words across it (`*.txt⏎/ x` is one
            // command).
            b'\n' => {
                operator = after_operator;
                i += 1;
                starts_word = true;
                separator = true;
                for (word, strip, quoted) in heredocs.drain(..) {
                    let delimiter: Vec<u8> = word
                        .iter()
                        .copied()
                        .filter(|c| !matches!(c, b'\'' | b'"' | b'\\'))
                        .collect();
                    // Only a plain delimiter (`EOF`, `'END'`) starts a body
                    // the scan skips.
                    if delimiter.is_empty()
                        || !delimiter
                            .iter()
                            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.'))
                    {
                        continue;
                    }
                    let body_start = i;
                    let mut closed = false;
                    while i < b.len() {
                        let end = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |j| i + j);
                        let mut line = &b[i..end];
                        if strip {
                            while let [b'\t', rest @ ..] = line {
                                line = rest;
                            }
                        }
                        i = (end + 1).min(b.len());
                        if line == delimiter.as_slice() {
                            closed = true;
                            break;
                        }
                    }
                    // A body's pipes count in the statement when it has
                    // substitutions (they are parsed) or no delimiter line
                    // (it may not be a body); every `|` counts in all.
                    let body = &b[body_start..i];
                    if !closed || (!quoted && memchr::memchr2(b'$', b'`', body).is_some()) {
                        run += memchr::memchr_iter(b'|', body).count();
                        longest = longest.max(run);
                    }
                }
            }
            b' ' | b'\t' | b'\r' => {
                i += 1;
                starts_word = true;
                separator = after_separator;
                operator = after_operator;
            }
            b'a'..=b'z' if word_start => {
                let end = b[i..]
                    .iter()
                    .position(|c| !c.is_ascii_lowercase())
                    .map_or(b.len(), |j| i + j);
                let word = &b[i..end];
                let whole = b.get(end).is_none_or(|c| b" \t\r\n;&|()<>".contains(c));
                if whole {
                    match word {
                        b"if" => open.push(b'f'),
                        b"for" | b"while" | b"until" | b"select" => open.push(b'd'),
                        b"case" => open.push(b'e'),
                        b"fi" | b"done" | b"esac" if after_separator => {
                            let closer = match word {
                                b"fi" => b'f',
                                b"done" => b'd',
                                _ => b'e',
                            };
                            if open.last() == Some(&closer) {
                                open.pop();
                            }
                        }
                        _ => {}
                    }
                }
                separator = whole && matches!(word, b"then" | b"do" | b"else" | b"elif" | b"in");
                i = end;
            }
            _ => i += 1,
        }
        word_start = starts_word;
        after_separator = separator;
        after_operator = operator;
    }
    let from = match (unclosed, quotes.first()) {
        (Some(a), Some(&q)) => Some(a.min(q)),
        (a, q) => a.or(q.copied()),
    };
    if let Some(from) = from {
        let n = memchr::memchr_iter(b'|', &b[from..]).count();
        run += n;
        longest = longest.max(run);
    }
    Counts {
        longest,
        // Every `|`, quoted or not: the grammar's recovery may pair quotes
        // and end bodies otherwise than any scan.
        pipes: memchr::memchr_iter(b'|', b).count(),
        stacked,
    }
}

/// What the scan of a command counts (see [`pipe_counts`]).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Counts {
    /// The most pipes in one statement.
    longest: usize,
    /// Every `|` character, quoted or not.
    pipes: usize,
    /// Operators right after another (`a || || b`): each an error.
    stacked: usize,
}

/// The most `|` and `|&` tokens of one pipeline node, and of all.
fn tree_pipes(tree: &Tree) -> (usize, usize) {
    let (mut longest, mut all) = (0, 0);
    let mut stack = vec![tree.root_node()];
    while let Some(n) = stack.pop() {
        let mut here = 0;
        for i in 0..n.child_count() {
            let c = n.child(i).unwrap();
            if !c.is_named() && matches!(c.kind(), "|" | "|&") {
                here += 1;
            }
            stack.push(c);
        }
        all += here;
        if n.kind() == "pipeline" {
            longest = longest.max(here);
        }
    }
    (longest, all)
}

/// The scan that bounds [`parse`] counts at least the pipes of the
/// command's tree: in one pipeline node, where the tree has no error (error
/// recovery may join statements the scan keeps apart), and in all; else
/// both counts (what the tests and the fuzzer check).
pub fn scan_bounds_tree(command: &str) -> Result<(), String> {
    let Some(tree) = parse_as_written(command) else {
        return Err("the bash grammar did not load".into());
    };
    let (tree_longest, tree_all) = tree_pipes(&tree);
    let Counts {
        longest,
        pipes: all,
        ..
    } = pipe_counts(command);
    let error = tree.root_node().has_error();
    if (tree_longest > longest && !error) || tree_all > all {
        return Err(format!(
            "{command:?}: tree {tree_longest}/{tree_all}, scan {longest}/{all}, error {error}"
        ));
    }
    Ok(())
}

/// [`parse`]'s tree is the tree of the command as written, node for node;
/// else both trees, described (what the tests and the fuzzer check).
pub fn same_as_written(command: &str) -> Result<(), String> {
    let (Some(fast), Some(written)) = (parse_unbounded(command), parse_as_written(command)) else {
        return Err("the bash grammar did not load".into());
    };
    let (fast, written) = (describe(&fast), describe(&written));
    if fast == written {
        Ok(())
    } else {
        Err(format!(
            "{command:?}\n--- as written\n{written}--- parsed\n{fast}"
        ))
    }
}

/// Whether a newline after `command` cannot change the tree of what comes
/// before it (given that the tree has no error): not after a backslash
/// (with only white space after it, a line continuation or an error as
/// written, a continuation or white space with the newline), and not with
/// a here-document (a newline completes a body that ends the input without
/// its delimiter), and not after a reserved word.
fn newline_is_neutral(command: &str) -> bool {
    let end = command.trim_end();
    // A reserved word last (`… && X=1 done`): the grammar may read it as a
    // word as written and as a keyword before a newline, both without error.
    const RESERVED: &[&str] = &[
        "!", "case", "coproc", "do", "done", "elif", "else", "esac", "fi", "for", "function", "if",
        "in", "select", "then", "time", "until", "while", "{", "}", "[[", "]]",
    ];
    let last = end
        .rsplit(|c: char| c.is_whitespace() || c == ';' || c == '&' || c == '|')
        .next();
    !end.ends_with('\\')
        && !last.is_some_and(|w| RESERVED.contains(&w))
        && memchr::memmem::find(command.as_bytes(), b"<<").is_none()
}

/// The row and byte column of the end of `text`.
fn end_point(text: &str) -> Point {
    let bytes = text.as_bytes();
    match memchr::memrchr(b'\n', bytes) {
        Some(i) => Point::new(
            memchr::memchr_iter(b'\n', bytes).count(),
            bytes.len() - i - 1,
        ),
        None => Point::new(0, bytes.len()),
    }
}

/// Every node of a tree, one per line, depth first: kind, field, byte range,
/// positions and flags (two trees are the same when these are).
fn describe(tree: &Tree) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let mut c = tree.walk();
    let mut depth = 0usize;
    // Iterative: a tree can be as deep as the command is long.
    loop {
        let n = c.node();
        let _ = writeln!(
            out,
            "{:depth$}{}{} {:?} {}..{} named={} missing={} error={}",
            "",
            c.field_name().map(|f| format!("{f}: ")).unwrap_or_default(),
            n.kind(),
            n.byte_range(),
            n.start_position(),
            n.end_position(),
            n.is_named(),
            n.is_missing(),
            n.is_error(),
        );
        if c.goto_first_child() {
            depth += 1;
            continue;
        }
        while !c.goto_next_sibling() {
            if !c.goto_parent() {
                return out;
            }
            depth -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
        fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
            xs[self.below(xs.len())]
        }
    }

    const WORDS: &[&str] = &[
        "ls",
        "git",
        "push",
        "rm",
        "-rf",
        "/",
        "echo",
        "a",
        "\"b c\"",
        "'d e'",
        "$x",
        "${y}",
        "${z:-w}",
        "$(pwd)",
        "`date`",
        "\"$(id -u)\"",
        "$'\\n'",
        "*.txt",
        "~/x",
        "a=b",
        "\\;",
        "\"\"",
        "''",
        "$((1+2))",
        "{a,b}",
        "é",
        "x\\ y",
        "\"a\\\"b\"",
        "-",
        "--",
        "#",
        "$#",
        "$@",
        "\"$@\"",
        "[",
        "]",
        "!",
        "%",
        "<(ls)",
        ">(cat)",
        "\r",
    ];
    const JOINS: &[&str] = &[
        " | ", " && ", " || ", "; ", " & ", "\n", " |& ", " ;; ", " ", "|", "&&",
    ];
    const AFTER: &[&str] = &[
        "",
        "",
        "",
        " ",
        "\n",
        ";",
        "&",
        " # note",
        " > out",
        " 2>&1",
        " <in",
        "\t",
        " \\",
        "\\",
        " |",
        " &&",
        " \"",
        " '",
        " (",
        " )",
        " {",
        " }",
        " $(",
        " `",
        "\r",
        "\r\n",
        "\n\n",
        " <<EOF\nx\nEOF",
        " <<<\"s\"",
        " <<-E\n\tx\n\tE",
        " <<EOF\nx",
        " <<E\n$(a)\nE ",
        " <<E\nx\nE\n",
        " <<'E'\nx",
        " <<E\nx\\",
        " <<E",
        " \\ ",
        "\\\t",
        " \\\r",
    ];

    fn simple(rng: &mut Rng) -> String {
        let n = 1 + rng.below(4);
        (0..n)
            .map(|_| rng.pick(WORDS))
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn command(rng: &mut Rng, depth: usize) -> String {
        let pick = if depth > 2 { 0 } else { rng.below(9) };
        match pick {
            0..=3 => simple(rng),
            4 => format!("( {} )", command(rng, depth + 1)),
            5 => format!("{{ {}; }}", command(rng, depth + 1)),
            6 => format!("if {}; then {}; fi", simple(rng), command(rng, depth + 1)),
            7 => format!(
                "for i in {}; do {}; done",
                simple(rng),
                command(rng, depth + 1)
            ),
            _ => format!("echo \"$({})\"", command(rng, depth + 1)),
        }
    }

    #[test]
    fn fast_path_agrees_on_random_commands() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut failures = Vec::new();
        for _ in 0..20_000 {
            let parts = 1 + rng.below(5);
            let mut s = command(&mut rng, 0);
            for _ in 1..parts {
                s.push_str(rng.pick(JOINS));
                s.push_str(&command(&mut rng, 0));
            }
            s.push_str(rng.pick(AFTER));
            if let Err(e) = same_as_written(&s) {
                failures.push(e);
            }
        }
        assert!(
            failures.is_empty(),
            "{} disagreements; first:\n{}",
            failures.len(),
            failures[0]
        );
    }

    #[test]
    fn fast_path_agrees_on_edge_shapes() {
        for c in [
            "",
            "\n",
            " ",
            "ls",
            "ls\n",
            "ls \\",
            "ls \\\\",
            "echo \"abc",
            "echo 'abc",
            "a |",
            "a &&",
            "cat <<EOF\nx\nEOF",
            "cat <<EOF",
            "x=1",
            "# only",
            "ls # c",
            "ls\r",
            "case a in b) c;; esac",
            "case a in b) c;;",
            "echo $(",
            "f() { ls; }",
            "a\n\nb",
            "echo é",
            "[[ -f x ]]",
            "(( i++ ))",
            "ls &",
            "ls;",
            "`ls",
            "a=(1 2)",
            "echo ${a[@]}",
            "cat <<EOF\nx",
            "cat <<'EOF'\n$x\nEOF",
            "cat <<EOF\nx\nEOF ",
            "cat <<EOF\nx\nEO",
            "cat <<-EOF\n\tx\n\tEOF",
            "cat <<EOF | wc\nx\nEOF",
            "cat <<<x",
            "cat <<< \"x y\"",
            "cat <<EOF; ls\nx\nEOF",
            "cat <<EOF\n",
            "cat <<EOF\nEOF",
            "cat <<\\EOF\nx\nEOF",
            "cat <<EOF\n$(ls)\nEOF",
            "g<<: *a\n$(git0push)",
            "date --vercion=x \\ ",
            "cat <<EOF\nx\\",
            "cat << EOF\nx\nEOF\n",
            "a <<E <<F\n1\nE\n2\nF",
            "docker logseil -x | ls && X=1 dil -x |  --until -x | ls oner logs --until -x |  --until -x | ls && X=1 done",
            "a && X=1 fi",
            "ls | X=1 esac",
        ] {
            same_as_written(c).unwrap();
        }
    }

    #[test]
    fn a_long_pipeline_of_double_quoted_words_is_parsed_in_linear_time() {
        // 20,000 parts: about 4 GB and half a minute as written.
        let line = (0..20_000)
            .map(|i| format!("cat \"g{i}\""))
            .collect::<Vec<_>>()
            .join(" | ");
        // Refused by `parse` (more than MAX_PIPELINE commands) …
        assert_eq!(parse(&line).unwrap_err(), Unparsed::LongPipeline(19_999));
        assert_eq!(take_refused(), Some(Unparsed::LongPipeline(19_999)));
        assert_eq!(take_refused(), None);
        // … and linear without the bound.
        let tree = parse_unbounded(&line).unwrap();
        let root = tree.root_node();
        assert_eq!(root.byte_range(), 0..line.len());
        assert!(!root.has_error());
        assert_eq!(root.child(0).unwrap().named_child_count(), 20_000);
        // The same tree as written, on a length that is still cheap.
        let short = (0..300)
            .map(|i| format!("cat \"g{i}\""))
            .collect::<Vec<_>>()
            .join(" | ");
        same_as_written(&short).unwrap();
    }

    #[test]
    fn pipes_are_counted_per_statement_outside_quotes_and_bodies() {
        for (command, longest) in [
            ("ls", 0),
            ("a | b | c", 2),
            ("a | b; c | d", 1),
            ("a | b && c | d || e |& f", 3),
            ("a | b\nc | d", 2),
            ("a | b\n; c | d", 1),
            ("a | b & c | d", 1),
            ("a 2>&1 | b &> x | c >& y | d", 3),
            ("echo 'a|b|c' | x", 1),
            ("echo \"a|b|c\" | x", 1),
            ("echo $'a|\\'|c' | x", 1),
            ("echo a\\|b | x", 1),
            ("a | b # c | d | e", 3),
            ("a # it's\nb | c # it's", 1),
            ("a # x | y\n;b | c", 1),
            ("echo a#b|c", 1),
            // Nested statements count with the statement around them.
            ("{ a; } | { b; } | c", 2),
            ("( a | b; c | d ) | e", 3),
            ("x=$(a | b; c | d); e | f", 2),
            ("echo \"$(a | b)\" | c", 2),
            ("echo `a | b` | c", 2),
            // Here-document bodies: plain text is not parsed; a body with
            // a substitution is.
            ("cat <<'E' | x\n| a | b |\nE\n;y | z", 1),
            ("cat <<E | x\n| a | b |\nE\n;y | z", 1),
            ("cat <<-E | x\n\t| a |\n\tE\n;y | z", 1),
            ("cat <<E | x\n$(a | b)\nE\n;y | z", 2),
            ("cat <<<'a|b' | x", 1),
            // Unclosed: the rest is one statement, or quoted.
            ("( a | b\nc | d", 2),
            ("echo \"a | b", 1),
            ("echo 'a | b", 1),
            ("echo $'a | b", 1),
        ] {
            let c = pipe_counts(command);
            assert_eq!(c.longest, longest, "{command:?}");
            assert_eq!(c.pipes, command.matches('|').count(), "{command:?}");
        }
    }

    #[test]
    fn the_scan_never_counts_fewer_pipes_than_the_tree_has() {
        // Random commands, pipelines of them, wrapped and quoted, with and
        // without a syntax error after them.
        const WRAP: &[&str] = &[
            "( {} )",
            "{{ {}; }}",
            "echo \"$({})\"",
            "x=`{}`",
            "if a; then {}; fi",
            "{}",
        ];
        const END: &[&str] = &["", " )", " \"", " (", " |", " }", " fi", "\n", " 'x"];
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let mut failures = Vec::new();
        for _ in 0..10_000 {
            let stages = 1 + rng.below(12);
            let mut s = String::new();
            for k in 0..stages {
                if k > 0 {
                    s.push_str(rng.pick(&[" | ", "|", " |& ", " && ", "; ", "\n"]));
                }
                let inner = command(&mut rng, 1);
                s.push_str(
                    &rng.pick(WRAP)
                        .replacen("{}", &inner, 1)
                        .replace("{{", "{")
                        .replace("}}", "}"),
                );
            }
            s.push_str(rng.pick(END));
            if let Err(e) = scan_bounds_tree(&s) {
                failures.push(e);
            }
        }
        assert!(
            failures.is_empty(),
            "{} undercounts; first: {}",
            failures.len(),
            failures[0]
        );
    }

    #[test]
    fn a_long_pipeline_with_a_syntax_error_is_refused() {
        for (command, why) in [
            (
                format!("{}a )", "a|".repeat(8_000)),
                Unparsed::LongPipeline(8_000),
            ),
            (
                format!("{}a \"", "a | ".repeat(300)),
                Unparsed::LongPipeline(300),
            ),
            (
                format!("a ) {}", "| a".repeat(300)),
                Unparsed::LongPipeline(300),
            ),
            (
                format!("{}a", "{ a; } | ".repeat(300)),
                Unparsed::LongPipeline(300),
            ),
            (
                // (The `"` is never closed: what follows it counts again.)
                format!("echo \"$({}a\"", "a|".repeat(300)),
                Unparsed::LongPipeline(600),
            ),
            (
                format!("if a; then {}a; fi )", "a|".repeat(300)),
                Unparsed::LongPipeline(300),
            ),
        ] {
            let _ = take_refused();
            assert_eq!(parse(&command).unwrap_err(), why, "{:.40}", command);
            assert_eq!(take_refused(), Some(why));
        }
        // Operators right after another: each an error.
        let stacked = format!("a {}b", "|| ".repeat(MAX_STACKED + 2));
        assert_eq!(
            parse(&stacked).unwrap_err(),
            Unparsed::StackedOperators(MAX_STACKED + 1)
        );
        assert_eq!(pipe_counts("a || b && c | d").stacked, 0);
        assert_eq!(pipe_counts("a &&\n # x\n && b | | c").stacked, 2);
        assert!(parse(&format!("a {}b", "&& ".repeat(MAX_STACKED))).is_ok());
        let _ = take_refused();
        // Short pipelines, one per statement: parsed, however many.
        assert!(parse(&"a | b; ".repeat(600)).is_ok());
        assert_eq!(take_refused(), None);
        let many = "a | b; ".repeat(MAX_PIPES + 1);
        assert_eq!(
            parse(&many).unwrap_err(),
            Unparsed::ManyPipes(MAX_PIPES + 1)
        );
        // At the bound: parsed, error and all.
        let at = format!("{}a )", "a|".repeat(MAX_PIPELINE));
        assert!(parse(&at).unwrap().root_node().has_error());
        let _ = take_refused();
        assert!(
            Unparsed::LongPipeline(300)
                .to_string()
                .contains("300 commands")
        );
    }
}
