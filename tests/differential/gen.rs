//! Seeded random configs and tool calls for the differential test.

use serde_json::{Value, json};

pub use super::common::Rng;

const SURFACES: &[&str] = &[
    "bash",
    "bash",
    "bash",
    "read",
    "write",
    "edit",
    "path",
    "path",
    "external_directory",
    "external_directory",
    "mcp",
    "mcp",
    "skill",
    "task",
    "my_tool",
    "my_*",
    "rea?",
    "Bash",
    "skills",
    "grep",
    "ls",
    "find",
    "*",
    "run_cmd",
    "ba*",
];

const BASH_PATTERNS: &[&str] = &[
    "*",
    "git *",
    "git push*",
    "git status",
    "npm *",
    "npm install",
    "rm -rf *",
    "rm *",
    "ls*",
    "ls *",
    "cat *",
    "sudo *",
    "curl *",
    "curl * | sh",
    "cd * && npm *",
    "echo * > *",
    "NODE_ENV=production *",
    "~/bin/deploy *",
    "$HOME/bin/*",
    "git  push*",
    "git status ",
    "Git *",
    "* *",
    "?",
    "find * -exec *",
    "bash -c *",
    "env *",
    "xargs *",
    "time *",
    "npm*",
    "echo *",
    "cd *",
    "make?*",
    "pnpm *",
    "(*)",
    "x=*",
    "if *",
    "{ *",
];

const PATH_PATTERNS: &[&str] = &[
    "*",
    "*.env",
    "*.env.*",
    "src/*",
    "/etc/*",
    "~/.ssh/*",
    "/workspace/project/*",
    "src/**/*.ts",
    "/tmp/*",
    "../*",
    "id_rsa",
    ".env*",
    "*secret*",
    "/opt/data",
    "/opt/data/*",
    "$HOME/*",
    "~/Downloads/*",
    "*/node_modules/*",
    "?.txt",
    "/dev/*",
    "*.md",
];

const MCP_PATTERNS: &[&str] = &[
    "*",
    "exa_*",
    "exa:*",
    "exa",
    "github",
    "github_*",
    "mcp_status",
    "mcp_*",
    "research_query-*",
    "server_tool",
    "dangerousServer",
    "myServer:*",
    "search",
    "mcp_connect_*",
];

const SKILL_PATTERNS: &[&str] = &["*", "web-*", "librarian", "42", "0", "code-*"];

const REASONS: &[&str] = &[
    "Use pnpm",
    "lockfiles are generated.",
    "no network",
    "",
    "dangerous: don't",
];

fn state(r: &mut Rng) -> &'static str {
    r.pick(&["allow", "deny", "ask", "allow", "ask"])
}

fn rule_value(r: &mut Rng) -> Value {
    if r.chance(20) {
        if r.chance(70) {
            json!({ "action": "deny", "reason": r.pick(REASONS) })
        } else {
            json!({ "action": "deny" })
        }
    } else {
        json!(state(r))
    }
}

fn patterns_for(surface: &str) -> &'static [&'static str] {
    match surface {
        "bash" | "Bash" | "ba*" | "run_cmd" => BASH_PATTERNS,
        "mcp" => MCP_PATTERNS,
        "skill" | "skills" => SKILL_PATTERNS,
        "read" | "write" | "edit" | "path" | "external_directory" | "grep" | "ls" | "find"
        | "rea?" => PATH_PATTERNS,
        _ => &["*", "secret*", "x", "?"],
    }
}

/// A `permission` object as JSON text members (kept as text so duplicate
/// keys and order survive).
fn permission(r: &mut Rng) -> String {
    let mut members = Vec::new();
    if r.chance(70) {
        members.push(format!("\"*\": \"{}\"", state(r)));
    }
    for _ in 0..1 + r.below(4) {
        let surface = r.pick(SURFACES);
        if r.chance(20) {
            members.push(format!("\"{surface}\": \"{}\"", state(r)));
            continue;
        }
        let pats = patterns_for(surface);
        let mut inner = Vec::new();
        for _ in 0..r.below(5) {
            inner.push(format!("{}: {}", json!(r.pick(pats)), rule_value(r)));
        }
        members.push(format!("\"{surface}\": {{ {} }}", inner.join(", ")));
    }
    format!("{{ {} }}", members.join(", "))
}

fn config(r: &mut Rng) -> String {
    let mut members = vec![format!("\"permission\": {}", permission(r))];
    if r.chance(10) {
        members.push("\"yoloMode\": true".into());
    }
    if r.chance(15) {
        members.push(
            r.pick(&[
                "\"shellTools\": { \"run_cmd\": { \"commandArgument\": \"cmd\", \"workdirArgument\": \"dir\" } }",
                "\"shellTools\": { \"read\": { \"commandArgument\": \"path\" } }",
                "\"shellTools\": { \"bash\": { \"commandArgument\": \"script\" } }",
            ])
            .to_string(),
        );
    }
    if r.chance(10) {
        members.push(
            r.pick(&[
                "\"piInfrastructureReadPaths\": [\"/opt/*\"]",
                "\"piInfrastructureReadPaths\": [\"/etc\"]",
                "\"piInfrastructureReadPaths\": []",
            ])
            .to_string(),
        );
    }
    let mut text = format!("{{\n  {}\n}}\n", members.join(",\n  "));
    // Now and then a file the runtime rejects, or a comment.
    match r.below(30) {
        0 => text = text.replacen("}\n", ",}\n", 1),
        1 => {
            text = text.replacen(
                "\"permission\"",
                "\"authorizerChain\": [\"x\"], \"permission\"",
                1,
            )
        }
        2 => text = format!("// project policy\n{text}"),
        3 => text = text.replacen("\"allow\"", "\"Allow\"", 1),
        4 => text.push_str("/* unterminated"),
        _ => {}
    }
    text
}

fn agent_md(r: &mut Rng) -> String {
    let mut lines = vec![
        "---".to_string(),
        "name: reviewer".into(),
        "permission:".into(),
    ];
    for _ in 0..1 + r.below(3) {
        let surface = r.pick(&["bash", "read", "mcp", "skill", "path", "*"]);
        if r.chance(30) {
            lines.push(format!("  {surface}: {}", state(r)));
            continue;
        }
        lines.push(format!("  \"{surface}\":"));
        for _ in 0..1 + r.below(3) {
            let p = r.pick(patterns_for(surface));
            if r.chance(15) {
                lines.push(format!("    \"{p}\":"));
                lines.push("      action: deny".into());
                lines.push(format!("      reason: {}", r.pick(REASONS)));
            } else {
                lines.push(format!("    \"{p}\": {}", state(r)));
            }
        }
    }
    lines.push("---".into());
    lines.push("You review code.".into());
    lines.join("\n")
}

const COMMAND_WORDS: &[&str] = &[
    "git status",
    "git push origin main",
    "npm install",
    "npm run build",
    "rm -rf build",
    "rm -rf /",
    "ls -la",
    "cat .env",
    "cat ~/.ssh/id_rsa",
    "cat $HOME/.ssh/id_rsa",
    "cat /etc/passwd",
    "sudo ls",
    "env FOO=1 node x.js",
    "xargs rm",
    "time make",
    "find . -name '*.ts' -exec rm {} \\;",
    "bash -c 'rm -rf x'",
    "eval \"$CMD\"",
    "curl https://x.sh",
    "echo hi",
    "pnpm test",
    "make",
    "grep -r TODO src",
    "sed -i 's/a/b/' src/a.ts",
    "rg -e foo ../other",
    "cd /tmp",
    "cd src",
    "cd ..",
    "cd \"$X\"",
    "cp a.txt /tmp/b.txt",
    "touch ./notes.md",
    "cat id_rsa",
    "node -e \"1\"",
    "NODE_ENV=production npm start",
    "python3 script.py --out=/var/log/x",
    "tar -czf out.tgz ../secret",
    "wc -l < /etc/hosts",
    "echo x > /dev/null",
    "git log --oneline | head",
    "awk '{print $1}' file.txt",
    "sd foo bar src/x.rs",
    "ls C:/Windows",
    "cat $PWD/../y",
    "cat \"$HOME\"/.aws/credentials",
    "cp ${HOME}/.netrc .",
];

fn bash_command(r: &mut Rng) -> String {
    let n = 1 + r.below(3);
    let mut s = r.pick(COMMAND_WORDS).to_string();
    for _ in 1..n {
        let op = r.pick(&[" && ", " || ", "; ", " | ", " & ", "\n"]);
        s.push_str(op);
        s.push_str(r.pick(COMMAND_WORDS));
    }
    match r.below(16) {
        0 => format!("echo $({s})"),
        1 => format!("({s})"),
        2 => format!("x=$({s})"),
        3 => format!("if true; then {s}; fi"),
        4 => format!("{s} > out.txt 2>&1"),
        5 => format!("diff <({s}) b"),
        6 => format!("# comment\n{s}"),
        7 => format!("echo `{s}`"),
        8 => format!("{s} &&"),
        9 => format!("{s} 'unterminated"),
        10 => format!("cat <<EOF\n{s}\nEOF"),
        11 => format!("! {s}"),
        12 => format!("echo hi > $({s})"),
        13 => format!("cat <<EOF\n$({s})\nEOF"),
        _ => s,
    }
}

const PATHS: &[&str] = &[
    "src/main.ts",
    "src/x/a.ts",
    ".env",
    ".env.local",
    "/workspace/project/README.md",
    "/etc/passwd",
    "../other/x",
    "~/.ssh/config",
    "~/Downloads/file.txt",
    "@src/a.ts",
    "'quoted.txt'",
    "/tmp/x",
    "/opt/data",
    "/opt/data/f",
    "/dev/null",
    "id_rsa",
    "node_modules/x/index.js",
    "/workspace/project/../secret",
    "C:/Users/x",
    "*",
    "  spaced.txt ",
];

pub fn call(r: &mut Rng) -> Value {
    match r.below(16) {
        0..=5 => json!({ "tool": "bash", "input": { "command": bash_command(r) } }),
        6 => json!({ "tool": "read", "input": { "path": r.pick(PATHS) } }),
        7 => {
            json!({ "tool": r.pick(&["write", "edit", "grep", "ls", "find"]), "input": { "path": r.pick(PATHS) } })
        }
        8 => {
            let inputs = [
                json!({ "tool": "exa:search" }),
                json!({ "tool": "web_search_exa" }),
                json!({ "tool": "search", "server": "github" }),
                json!({ "server": "github", "search": "issues" }),
                json!({ "connect": "exa" }),
                json!({ "describe": "exa:search" }),
                json!({ "server": "research" }),
                json!({}),
                json!({ "tool": "research:query-docs", "arguments": { "path": "/etc/hosts" } }),
                json!({ "tool": "drop_db", "server": "dangerousServer" }),
            ];
            json!({ "tool": "mcp", "input": r.pick(&inputs) })
        }
        9 => {
            json!({ "tool": "skill", "input": { "name": r.pick(&["librarian", "web-design", "42", "code-review"]) } })
        }
        10 => {
            json!({ "tool": r.pick(&["task", "my_tool", "other_tool"]), "input": { "path": r.pick(PATHS) } })
        }
        11 => {
            json!({ "tool": "run_cmd", "input": { "cmd": bash_command(r), "dir": r.pick(&["/tmp", "src", "/workspace/project"]) } })
        }
        12 => {
            json!({ "tool": "bash", "input": { "command": r.pick(&["", "   ", "# only a comment", "\n# a\n# b\n"]) } })
        }
        13 => json!({ "tool": "read", "input": {} }),
        14 => json!({ "tool": "bash", "input": { "command": 42 } }),
        _ => json!({ "tool": "read", "input": { "path": r.pick(PATHS) } }),
    }
}

/// One generated case: configs, an optional agent, and some calls.
pub fn case(r: &mut Rng, id: usize, calls: usize) -> Value {
    let mut c = json!({ "id": id, "global": config(r), "cwd": "/workspace/project" });
    if r.chance(40) {
        c["project"] = json!(config(r));
    }
    if r.chance(25) {
        c["agent"] = json!("reviewer");
        if r.chance(60) {
            c["agents"] = json!({ "reviewer": agent_md(r) });
        }
        if r.chance(40) {
            c["projectAgents"] = json!({ "reviewer": agent_md(r) });
        }
    }
    if r.chance(30) {
        c["mcpServerNames"] = json!(["exa", "github", "research"]);
    }
    c["calls"] = Value::Array((0..calls).map(|_| call(r)).collect());
    c
}
