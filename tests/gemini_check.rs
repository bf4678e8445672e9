//! `check`, hover, completion and the outline on Gemini CLI files.
