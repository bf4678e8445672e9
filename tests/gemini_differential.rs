//! The differential test against the real Gemini CLI.
