//! One OpenCode file as the CLI reads it: a JSON(C) config (`config`), an
//! agent markdown file's YAML frontmatter (`yaml`).

pub mod config;
pub mod refs;
pub mod yaml;
