//! A tool call typed as a command line, for trying a policy without JSON:
//! `read src/.env`, `mcp exa:search`, `skill web-design`, anything else is a
//! bash command (`git push --force`). A leading `bash ` is optional.

use serde_json::{Value, json};

pub fn parse_command_line(line: &str) -> Option<(String, Value)> {
    let line = line.trim();
    if line.is_empty() {
        return None;
    }
    let (head, rest) = match line.split_once(char::is_whitespace) {
        Some((h, r)) => (h, r.trim()),
        None => (line, ""),
    };
    let call = match head {
        "bash" => ("bash".into(), json!({ "command": rest })),
        "read" | "write" | "edit" | "grep" | "find" | "ls" => {
            (head.to_string(), json!({ "path": rest }))
        }
        "skill" => ("skill".into(), json!({ "name": rest })),
        "mcp" => (
            "mcp".into(),
            if rest.is_empty() {
                json!({})
            } else {
                json!({ "tool": rest })
            },
        ),
        _ => ("bash".into(), json!({ "command": line })),
    };
    Some(call)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_lines() {
        assert_eq!(
            parse_command_line("git push"),
            Some(("bash".into(), json!({"command": "git push"})))
        );
        assert_eq!(
            parse_command_line("bash ls -la"),
            Some(("bash".into(), json!({"command": "ls -la"})))
        );
        assert_eq!(
            parse_command_line("read  src/.env"),
            Some(("read".into(), json!({"path": "src/.env"})))
        );
        assert_eq!(
            parse_command_line("mcp exa:search"),
            Some(("mcp".into(), json!({"tool": "exa:search"})))
        );
        assert_eq!(parse_command_line("  "), None);
    }
}
