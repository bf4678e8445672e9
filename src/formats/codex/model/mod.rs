//! One Codex file as Codex reads it: a `.rules` file (`rules`, Starlark;
//! `matching`: which of its rules match an argv), a `config.toml`
//! (`config`) or the managed `requirements.toml` (`requirements`).

pub mod config;
pub mod matching;
pub mod requirements;
pub mod rules;

/// The candidate nearest to `word` within a small edit distance (a
/// did-you-mean), exact matches aside.
pub fn closest(word: &str, candidates: &[&'static str]) -> Option<&'static str> {
    let lower = word.trim().to_ascii_lowercase();
    candidates
        .iter()
        .filter(|c| **c != word)
        .map(|c| {
            (
                crate::text::edit_distance(&lower, &c.to_ascii_lowercase()),
                *c,
            )
        })
        .filter(|(d, c)| *d <= 2.min(c.len() / 3 + 1))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}
