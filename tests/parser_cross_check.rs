//! An independent parser as a cross-check: wherever our reader finds strict
//! JSON, dprint's `jsonc-parser` (all extensions off) must agree on every
//! key, value and byte range. Run over the corpus and seeded mutations of it.
//!
//! Why `jsonc-parser` is not the product's parser: the runtime strips
//! comments with its own scanner (which treats `'…'` as strings and lets an
//! unterminated `/*` swallow the file) and then reports V8's first error
//! message; jsonc-parser stops at the first error with its own wording and no
//! tree. Our reader reproduces the runtime and recovers; this test keeps its
//! tree honest against a well-kept parser.

use jsonc_parser::ast::{ObjectPropName, Value as JValue};
use jsonc_parser::common::Ranged;
use jsonc_parser::{CollectOptions, ParseOptions, parse_to_ast};
use permission_lsp::syntax::json::parse;
use permission_lsp::syntax::strip::strip_json_comments;
use permission_lsp::syntax::{Node, Value};

fn strict() -> ParseOptions {
    ParseOptions {
        allow_comments: false,
        allow_loose_object_property_names: false,
        allow_trailing_commas: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    }
}

fn same(ours: &Node, theirs: &JValue<'_>, path: &str) -> Result<(), String> {
    let r = theirs.range();
    if ours.range != (r.start..r.end) {
        return Err(format!(
            "{path}: range {:?} vs {:?}",
            ours.range,
            r.start..r.end
        ));
    }
    match (&ours.value, theirs) {
        (Value::Null, JValue::NullKeyword(_)) => Ok(()),
        (Value::Bool(a), JValue::BooleanLit(b)) if *a == b.value => Ok(()),
        (Value::Number(a), JValue::NumberLit(b)) if b.value.parse::<f64>().ok() == Some(*a) => {
            Ok(())
        }
        (Value::String(a), JValue::StringLit(b)) if a == b.value.as_ref() => Ok(()),
        (Value::Array(a), JValue::Array(b)) if a.len() == b.elements.len() => a
            .iter()
            .zip(&b.elements)
            .enumerate()
            .try_for_each(|(i, (x, y))| same(x, y, &format!("{path}/{i}"))),
        (Value::Object(a), JValue::Object(b)) if a.len() == b.properties.len() => {
            for (m, p) in a.iter().zip(&b.properties) {
                let ObjectPropName::String(name) = &p.name else {
                    return Err(format!("{path}: word key"));
                };
                if m.key != name.value.as_ref() || m.key_range != (name.range.start..name.range.end)
                {
                    return Err(format!(
                        "{path}: key {:?} {:?} vs {:?} {:?}",
                        m.key, m.key_range, name.value, name.range
                    ));
                }
                same(&m.value, &p.value, &format!("{path}/{}", m.key))?;
            }
            Ok(())
        }
        (a, b) => Err(format!("{path}: {a:?} vs {b:?}")),
    }
}

/// Our verdict and tree on a comment-free text, against jsonc-parser's.
fn check(text: &str) -> Result<bool, String> {
    let stripped = strip_json_comments(text);
    if !stripped.comments.is_empty() || stripped.text.starts_with('\u{feff}') {
        return Ok(false);
    }
    let ours = parse(&stripped);
    let theirs = parse_to_ast(text, &CollectOptions::default(), &strict());
    match (ours.errors.is_empty(), theirs) {
        (true, Ok(res)) => {
            let (Some(o), Some(t)) = (ours.root.as_ref(), res.value.as_ref()) else {
                return Err("missing root".into());
            };
            same(o, t, "").map(|_| true)
        }
        (true, Err(e)) => Err(format!("we accept, jsonc-parser rejects: {e}")),
        // jsonc-parser lets raw control characters (a newline, a tab) into
        // strings; JSON.parse — and so the runtime — rejects them.
        (false, Ok(_))
            if text
                .chars()
                .any(|c| (c as u32) < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != ' ')
                || ours.errors[0].message.starts_with("control characters") =>
        {
            Ok(false)
        }
        (false, Ok(_)) => Err(format!(
            "we reject ({:?}), jsonc-parser accepts",
            ours.errors[0].kind
        )),
        (false, Err(_)) => Ok(false),
    }
}

#[test]
fn trees_agree_with_jsonc_parser() {
    let dir = format!("{}/tests/fixtures/corpus/pi", env!("CARGO_MANIFEST_DIR"));
    let mut texts: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
        .map(|e| String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()).into_owned())
        .collect();
    texts.sort();
    let mut compared = 0;
    let mut failures = Vec::new();
    let mut seed = 0x2545F4914F6CDD1Du64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for text in &texts {
        // Without its comments the text is plain JSON for both.
        let plain = strip_json_comments(text).text;
        let mut variants = vec![plain.clone()];
        for _ in 0..30 {
            let mut bytes = plain.clone().into_bytes();
            if bytes.is_empty() {
                break;
            }
            let at = (next() % bytes.len() as u64) as usize;
            let pick = b"{}[],:\" 0-e.tn\\\n";
            match next() % 3 {
                0 => {
                    bytes.remove(at);
                }
                1 => bytes.insert(at, pick[(next() % pick.len() as u64) as usize]),
                _ => bytes[at] = pick[(next() % pick.len() as u64) as usize],
            }
            if let Ok(s) = String::from_utf8(bytes) {
                variants.push(s);
            }
        }
        for v in variants {
            match check(&v) {
                Ok(true) => compared += 1,
                Ok(false) => {}
                Err(e) => failures.push(format!(
                    "{e}\n  in {:?}",
                    v.chars().take(200).collect::<String>()
                )),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} disagreements:\n{}",
        failures.len(),
        failures[..failures.len().min(10)].join("\n")
    );
    assert!(compared > 100, "only {compared} texts compared");
}
