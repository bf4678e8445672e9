//! The default tier (tier 1): the rules Gemini CLI 0.61.0 ships in its
//! bundle's `policies/` folder, restated here in the order the CLI reads
//! those files (by name) and read by the same loader. Only `[[rule]]`
//! entries: the safety checkers of `conseca.toml` and `write.toml` decide
//! nothing for the calls simulated here (paths outside the workspace are
//! refused before), and `sandbox-default.toml` has no rules the engine
//! reads.

/// `(file name, text)` in the CLI's reading order.
pub const FILES: &[(&str, &str)] = &[
    (
        "agents.toml",
        r#"
[[rule]]
toolName = "invoke_agent"
decision = "allow"
priority = 50
modes = ["default", "autoEdit", "yolo"]
"#,
    ),
    (
        "discovered.toml",
        r#"
[[rule]]
toolName = "discovered_tool_*"
decision = "ask_user"
priority = 10
interactive = true
[[rule]]
toolName = "discovered_tool_*"
decision = "deny"
priority = 10
interactive = false
"#,
    ),
    (
        "non-interactive.toml",
        r#"
[[rule]]
toolName = "ask_user"
decision = "deny"
priority = 999
interactive = false
"#,
    ),
    (
        "plan.toml",
        r#"
[[rule]]
toolName = "enter_plan_mode"
decision = "ask_user"
priority = 50
interactive = true
[[rule]]
toolName = "enter_plan_mode"
decision = "allow"
priority = 50
interactive = false
[[rule]]
toolName = "enter_plan_mode"
decision = "deny"
priority = 70
modes = ["plan"]
[[rule]]
toolName = "exit_plan_mode"
decision = "ask_user"
priority = 70
modes = ["plan"]
interactive = true
[[rule]]
toolName = "exit_plan_mode"
decision = "allow"
priority = 70
modes = ["plan"]
interactive = false
[[rule]]
toolName = "exit_plan_mode"
decision = "deny"
priority = 50
[[rule]]
toolName = "*"
decision = "deny"
priority = 40
modes = ["plan"]
denyMessage = "You are in Plan Mode with access to read-only tools. Execution of scripts (including those from skills) is blocked."
[[rule]]
toolName = "*"
mcpName = "*"
toolAnnotations = { readOnlyHint = true }
decision = "ask_user"
priority = 50
modes = ["plan"]
interactive = true
[[rule]]
toolName = "invoke_agent"
argsPattern = '"agent_name":\s*"(codebase_investigator|cli_help)"'
decision = "allow"
priority = 50
modes = ["plan"]
[[rule]]
toolName = ["ask_user", "web_fetch", "activate_skill"]
decision = "ask_user"
priority = 50
modes = ["plan"]
interactive = true
[[rule]]
toolName = ["write_file", "replace"]
decision = "allow"
priority = 70
modes = ["plan"]
argsPattern = '\x00"file_path":"[^\"]+[\\/]+\.gemini[\\/]+tmp[\\/]+[\w-]+[\\/]+[\w-]+[\\/]+plans[\\/]+[\w-]+\.md"\x00'
[[rule]]
toolName = ["write_file", "replace"]
decision = "allow"
priority = 70
modes = ["plan"]
argsPattern = '\x00"file_path":"[^\"]+[\\/]+\.gemini[\\/]+tmp[\\/]+[\w-]+[\\/]+plans[\\/]+[\w-]+\.md"\x00'
[[rule]]
toolName = ["write_file", "replace"]
decision = "allow"
priority = 70
modes = ["plan"]
argsPattern = '\x00"file_path":"\.gemini[\\/]+tmp[\\/]+[\w-]+[\\/]+[\w-]+[\\/]+plans[\\/]+[\w-]+\.md"\x00'
[[rule]]
toolName = ["write_file", "replace"]
decision = "allow"
priority = 70
modes = ["plan"]
argsPattern = '\x00"file_path":"\.gemini[\\/]+tmp[\\/]+[\w-]+[\\/]+plans[\\/]+[\w-]+\.md"\x00'
[[rule]]
toolName = ["write_file", "replace"]
decision = "allow"
priority = 70
modes = ["plan"]
argsPattern = '\x00"file_path":"\.[\\/]+\.gemini[\\/]+tmp[\\/]+[\w-]+[\\/]+[\w-]+[\\/]+plans[\\/]+[\w-]+\.md"\x00'
[[rule]]
toolName = ["write_file", "replace"]
decision = "allow"
priority = 70
modes = ["plan"]
argsPattern = '\x00"file_path":"\.[\\/]+\.gemini[\\/]+tmp[\\/]+[\w-]+[\\/]+plans[\\/]+[\w-]+\.md"\x00'
[[rule]]
toolName = ["write_file", "replace"]
decision = "allow"
priority = 70
modes = ["plan"]
argsPattern = '\x00"file_path":"[\w-]+\.md"\x00'
[[rule]]
toolName = ["write_file", "replace"]
decision = "allow"
priority = 70
modes = ["plan"]
argsPattern = '\x00"file_path":"\.[\\/]+[\w-]+\.md"\x00'
[[rule]]
toolName = ["write_file", "replace"]
decision = "allow"
priority = 70
modes = ["plan"]
argsPattern = '\x00"file_path":"plans[\\/]+[\w-]+\.md"\x00'
[[rule]]
toolName = ["write_file", "replace"]
decision = "allow"
priority = 70
modes = ["plan"]
argsPattern = '\x00"file_path":"\.[\\/]+plans[\\/]+[\w-]+\.md"\x00'
[[rule]]
toolName = ["write_file", "replace"]
decision = "deny"
priority = 65
modes = ["plan"]
"#,
    ),
    (
        "read-only.toml",
        r#"
[[rule]]
toolName = ["glob", "grep_search", "list_directory", "read_file", "google_web_search",
  "codebase_investigator", "cli_help", "get_internal_docs", "tracker_create_task",
  "tracker_update_task", "tracker_get_task", "tracker_list_tasks", "tracker_add_dependency",
  "tracker_visualize", "update_topic", "complete_task", "read_mcp_resource", "list_mcp_resources"]
decision = "allow"
priority = 50
"#,
    ),
    (
        "write.toml",
        r#"
[[rule]]
toolName = "replace"
decision = "ask_user"
priority = 10
interactive = true
[[rule]]
toolName = "replace"
decision = "allow"
priority = 15
modes = ["autoEdit"]
[[rule]]
toolName = "run_shell_command"
decision = "ask_user"
priority = 10
interactive = true
[[rule]]
toolName = "write_file"
decision = "ask_user"
priority = 10
interactive = true
[[rule]]
toolName = "activate_skill"
decision = "ask_user"
priority = 10
interactive = true
[[rule]]
toolName = "write_file"
decision = "allow"
priority = 15
modes = ["autoEdit"]
[[rule]]
toolName = "web_fetch"
decision = "allow"
priority = 15
modes = ["autoEdit"]
[[rule]]
toolName = "web_fetch"
decision = "ask_user"
priority = 10
interactive = true
[[rule]]
toolName = ["replace", "run_shell_command", "write_file", "activate_skill", "web_fetch"]
decision = "deny"
priority = 10
interactive = false
"#,
    ),
    (
        "yolo.toml",
        r#"
[[rule]]
toolName = "ask_user"
decision = "ask_user"
priority = 999
modes = ["yolo"]
interactive = true
[[rule]]
toolName = ["enter_plan_mode", "exit_plan_mode"]
decision = "deny"
priority = 999
modes = ["yolo"]
interactive = true
[[rule]]
toolName = "*"
decision = "allow"
priority = 998
modes = ["yolo"]
allowRedirection = true
"#,
    ),
];
