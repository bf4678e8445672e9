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
//! Those are parsed as written — a long pipeline with a syntax error still
//! costs the square of its length, as in any parser of this grammar (not
//! measured in the runtimes).

use std::cell::RefCell;
use tree_sitter::{InputEdit, Parser, Point, Tree};

thread_local! {
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
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

/// The syntax tree of a command line (`None` if the grammar cannot load).
pub fn parse(command: &str) -> Option<Tree> {
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

/// [`parse`]'s tree is the tree of the command as written, node for node;
/// else both trees, described (what the tests and the fuzzer check).
pub fn same_as_written(command: &str) -> Result<(), String> {
    let (Some(fast), Some(written)) = (parse(command), parse_as_written(command)) else {
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
/// its delimiter).
fn newline_is_neutral(command: &str) -> bool {
    !command.trim_end().ends_with('\\') && memchr::memmem::find(command.as_bytes(), b"<<").is_none()
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
        let tree = parse(&line).unwrap();
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
}
