//! Past decisions: the records a runtime writes about the tool calls it
//! decided, read back as calls that can be decided again. Shared machinery
//! only: the record model, the bounded line reader and the format-agnostic
//! replay ([`replay`]). Each format reads its own log kinds behind
//! [`crate::formats::Format::log_reader`].

pub mod replay;
pub mod suggest;

use serde_json::Value;

pub use crate::contract::history::*;

/// A log reader for a file, from the formats, by one of its first records.
pub fn detect(record: &Value) -> Option<(&'static dyn crate::formats::Format, Box<dyn LogReader>)> {
    crate::formats::all()
        .iter()
        .find_map(|f| f.log_reader(record).map(|r| (*f, r)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], cap: usize) -> Vec<Result<String, usize>> {
        let mut r = std::io::BufReader::with_capacity(4, input);
        let mut buf = Vec::new();
        let mut out = Vec::new();
        loop {
            match read_line(&mut r, &mut buf, cap).unwrap() {
                Line::Text => out.push(Ok(String::from_utf8_lossy(&buf).into_owned())),
                Line::TooLong(n) => out.push(Err(n)),
                Line::End => return out,
            }
        }
    }

    #[test]
    fn lines_are_split_and_long_ones_skipped_without_keeping_them() {
        assert_eq!(
            lines(b"ab\r\ncdefghij\n\nxy", 5),
            vec![Ok("ab".into()), Err(8), Ok(String::new()), Ok("xy".into())]
        );
        assert_eq!(lines(b"", 5), vec![]);
        assert_eq!(lines(b"abcdefgh", 5), vec![Err(8)]);
        assert_eq!(lines(b"abc\n", 3), vec![Ok("abc".into())]);
    }

    #[test]
    fn decisions_round_trip() {
        for d in [Decision::Allow, Decision::Ask, Decision::Deny] {
            assert_eq!(Decision::parse(d.as_str()), Some(d));
        }
        assert_eq!(Decision::parse("maybe"), None);
        assert!(Answer::SessionRule.approved() && !Answer::Unavailable.approved());
    }
}
