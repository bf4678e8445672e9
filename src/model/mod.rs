//! Per format: the config as the runtime sees it, with source ranges.

pub mod pi;
