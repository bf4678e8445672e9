//! `{env:NAME}` and `{file:PATH}` references in an OpenCode config, replaced
//! as OpenCode 1.18.33 replaces them (`ConfigVariable.substitute`) before it
//! reads the JSON: every `{env:NAME}` by the variable's value (the empty
//! string when unset), then every `{file:PATH}` — except on a line that
//! starts with `//` — by the file's content, trimmed and escaped as inside a
//! JSON string (`JSON.stringify(content).slice(1, -1)`). `~/` is the home
//! folder, a relative path is the config's folder's. A file that cannot be
//! read makes OpenCode refuse to start (`bad file reference: "{file:x}"`,
//! with ` /abs/x does not exist` when there is none).
//!
//! The replaced text is what is parsed; every range of its tree is mapped
//! back onto the file as written (a range inside a replacement covers the
//! reference).

use crate::text::{EditMap, replace_spans};
use std::ops::Range;
use std::path::{Path, PathBuf};

/// Where references resolve, and how files and variables are read.
pub struct Resolver<'r> {
    /// The config's folder (relative paths).
    pub dir: &'r Path,
    pub home: &'r Path,
    /// A variable of the session, `None` when unset.
    pub var: &'r dyn Fn(&str) -> Option<String>,
    /// A referenced file's text.
    pub read: &'r dyn Fn(&Path) -> Result<String, Unreadable>,
}

/// Why a referenced file gives no text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unreadable {
    /// There is nothing at the path (`ENOENT`).
    Missing,
    /// A folder, a device, unreadable, too large.
    Other,
    /// A file this checker does not read (outside the project and the
    /// runtime's folders): read as empty, and said so.
    NotRead,
}

/// One reference as the file has it.
#[derive(Debug, Clone, PartialEq)]
pub struct Use {
    /// In the file as written.
    pub range: Range<usize>,
    /// `{env:NAME}` or `{file:PATH}`.
    pub text: String,
    /// What it became: `Some(value)` for a variable given to the session,
    /// `None` for an unset one (it became empty); for a file, its
    /// absolute path, `None` when the file was not read (it became empty).
    pub value: Option<String>,
    pub is_file: bool,
}

/// A config's text after substitution.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Substituted {
    pub text: String,
    /// Where each part of the file as written is in `text`.
    pub map: EditMap,
    pub uses: Vec<Use>,
    /// The reference OpenCode cannot resolve (it refuses to start), with
    /// its message.
    pub error: Option<(Range<usize>, String)>,
}

fn env_refs() -> &'static regex::Regex {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| regex::Regex::new(r"\{env:([^}]+)\}").expect("valid"))
}

fn file_refs() -> &'static regex::Regex {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| regex::Regex::new(r"\{file:[^}]+\}").expect("valid"))
}

/// Whether a text has references at all (nothing to do otherwise).
pub fn has_refs(text: &str) -> bool {
    text.contains("{env:") || text.contains("{file:")
}

/// The path a `{file:…}` reference names.
pub fn file_path(reference: &str, r: &Resolver<'_>) -> PathBuf {
    let p = reference
        .strip_prefix("{file:")
        .unwrap_or(reference)
        .strip_suffix('}')
        .unwrap_or(reference);
    let p = match p.strip_prefix("~/") {
        Some(rest) => r.home.join(rest),
        None if Path::new(p).is_absolute() => PathBuf::from(p),
        None => r.dir.join(p),
    };
    crate::formats::opencode::scopes::normalise(&p)
}

/// Replaces the references of `text` as OpenCode does.
pub fn substitute(text: &str, r: &Resolver<'_>) -> Substituted {
    let mut out = Substituted::default();
    // The variables first, over the whole text (comments too).
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    for c in env_refs().captures_iter(text) {
        let m = c.get(0).expect("match");
        let name = &c[1];
        let value = (r.var)(name).filter(|v| !v.is_empty());
        out.uses.push(Use {
            range: m.range(),
            text: m.as_str().to_string(),
            value: value.clone(),
            is_file: false,
        });
        edits.push((m.range(), value.unwrap_or_default()));
    }
    // Then the files, found in the text with the variables replaced.
    let (after_env, env_map) = replace_spans(text, &edits);
    for m in file_refs().find_iter(&after_env) {
        let line_start = after_env[..m.start()].rfind('\n').map_or(0, |n| n + 1);
        if after_env[line_start..m.start()]
            .trim_start()
            .starts_with("//")
        {
            continue;
        }
        let at = env_map.range(&m.range());
        if edits
            .iter()
            .any(|(e, _)| e.start < at.end && at.start < e.end)
        {
            // A reference a variable's value made: not followed.
            continue;
        }
        let path = file_path(m.as_str(), r);
        let read = (r.read)(&path);
        out.uses.push(Use {
            range: at.clone(),
            text: m.as_str().to_string(),
            value: (read != Err(Unreadable::NotRead)).then(|| path.display().to_string()),
            is_file: true,
        });
        match read {
            Err(Unreadable::NotRead) => edits.push((at, String::new())),
            Ok(content) => {
                let trimmed = crate::syntax::frontmatter::js_trim(&content);
                let quoted = serde_json::to_string(trimmed).unwrap_or_else(|_| "\"\"".into());
                edits.push((at, quoted[1..quoted.len() - 1].to_string()));
            }
            Err(why) => {
                let mut message = format!("bad file reference: \"{}\"", m.as_str());
                if why == Unreadable::Missing {
                    message.push_str(&format!(" {} does not exist", path.display()));
                }
                out.error = Some((at, message));
                break;
            }
        }
    }
    out.uses.sort_by_key(|u| u.range.start);
    (out.text, out.map) = replace_spans(text, &edits);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolver<'r>(
        var: &'r dyn Fn(&str) -> Option<String>,
        read: &'r dyn Fn(&Path) -> Result<String, Unreadable>,
    ) -> Resolver<'r> {
        Resolver {
            dir: Path::new("/p"),
            home: Path::new("/h"),
            var,
            read,
        }
    }

    #[test]
    fn variables_then_files_as_opencode_replaces_them() {
        let var = |n: &str| (n == "MODE").then(|| "deny".to_string());
        let read = |p: &Path| match p.to_str() {
            Some("/p/rules/bash.txt") => Ok("  ask \n".to_string()),
            Some("/h/q.txt") => Ok("say \"hi\"\n".to_string()),
            _ => Err(Unreadable::Missing),
        };
        let r = resolver(&var, &read);
        let text = "{\"a\": \"{env:MODE}\", \"b\": \"{file:./rules/bash.txt}\",\n // \"{file:nope}\"\n \"c\": \"{file:~/q.txt}{env:UNSET}\"}";
        let s = substitute(text, &r);
        assert_eq!(s.error, None);
        assert_eq!(
            s.text,
            "{\"a\": \"deny\", \"b\": \"ask\",\n // \"{file:nope}\"\n \"c\": \"say \\\"hi\\\"\"}"
        );
        // Ranges map back: "deny" is where `{env:MODE}` was.
        let deny = s.text.find("deny").unwrap();
        let back = s.map.range(&(deny..deny + 4));
        assert_eq!(&text[back], "{env:MODE}");
        let c = s.text.find("\"c\"").unwrap();
        assert_eq!(&text[s.map.range(&(c..c + 3))], "\"c\"");
        assert_eq!(s.uses.len(), 4);
        assert_eq!(s.uses.iter().filter(|u| u.value.is_none()).count(), 1);
    }

    #[test]
    fn a_missing_file_or_a_folder_is_refused() {
        let var = |_: &str| None;
        let read = |p: &Path| {
            if p.ends_with("dir") {
                Err(Unreadable::Other)
            } else {
                Err(Unreadable::Missing)
            }
        };
        let r = resolver(&var, &read);
        let s = substitute("{\"a\": \"{file:x/../gone}\"}", &r);
        assert_eq!(
            s.error.as_ref().map(|e| e.1.as_str()),
            Some("bad file reference: \"{file:x/../gone}\" /p/gone does not exist")
        );
        let s = substitute("{\"a\": \"{file:./dir}\"}", &r);
        assert_eq!(
            s.error.as_ref().map(|e| e.1.as_str()),
            Some("bad file reference: \"{file:./dir}\"")
        );
        assert_eq!(s.error.unwrap().0, 7..19);
    }
}
