//! `permission-lsp rule CODE`: the page of a diagnostic code, as the docs
//! have it (embedded at build time), or the list of every code.

use std::io::Write;

include!(concat!(env!("OUT_DIR"), "/lint_pages.rs"));

/// The page of a code (`PL002`) or a code's name (`trailing-comma`), in
/// any format; history pages by their file name (`unused-in-history`).
pub fn page(code: &str) -> Option<&'static str> {
    let id = crate::analysis::code_by_name(code)
        .map(|c| c.as_str())
        .unwrap_or(code);
    PAGES
        .iter()
        .find(|(_, c, _)| c.eq_ignore_ascii_case(id))
        .map(|(_, _, text)| *text)
}

/// Prints the page, or every code with its summary; exit 2 for an
/// unknown code.
pub fn run(code: Option<&str>, out: &mut dyn Write) -> i32 {
    match code {
        Some(code) => match page(code) {
            Some(text) => {
                let _ = out.write_all(text.as_bytes());
                if !text.ends_with('\n') {
                    let _ = writeln!(out);
                }
                0
            }
            None => {
                eprintln!(
                    "permission-lsp: no diagnostic code `{code}` (`permission-lsp rule` lists them)"
                );
                2
            }
        },
        None => {
            for f in crate::formats::all() {
                let _ = writeln!(out, "{}:", f.display_name());
                for c in f.codes() {
                    let _ = writeln!(
                        out,
                        "  {:<6} {:<8} {:<34} {}",
                        c.id,
                        c.severity.as_str(),
                        c.name,
                        c.summary
                    );
                }
            }
            0
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_code_has_its_page_in_the_binary() {
        for f in crate::formats::all() {
            for c in f.codes() {
                let page = super::page(c.id).unwrap_or_else(|| panic!("{} has no page", c.id));
                assert!(page.contains(c.id), "{}", c.id);
                // Names repeat across formats (`invalid-json`): a name finds
                // the first format's page.
                assert!(super::page(c.name).is_some(), "{}", c.name);
            }
        }
        assert!(super::page("unused-in-history").is_some());
        assert!(super::page("XX999").is_none());
    }
}
