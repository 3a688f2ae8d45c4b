//! `@` mentions in a prompt, as the CLI reads them: `@path` (up to the next
//! blank) or `@"a path with spaces"`. The CLI expands each one that names a
//! file or a folder (it reads the file for the model); the chat sends the
//! text as typed and only says, before it goes, which `@` words name
//! nothing here, so a path that attaches nothing never does so silently.
//! The prompt is sent all the same: a word like `@channel` may be meant as
//! text.
//!
//! Said only of what looks like a path (a `/`, a `.`, `~`, quotes) or a
//! bare word cut from a file's name (`@notes file.txt`): `@channel` or a
//! Java `@Override` is text. Left alone: `@agent-…` (an agent), words with
//! a `:` (an MCP resource, `@server:uri`) or code's `(`, `=`, `"`, `@`
//! inside a word (an e-mail address), and fenced code blocks. A `#L10-20`
//! line range and what follows an unquoted name's last ASCII letter or
//! digit (`see @notes.txt,`) are not part of the name looked up, as the
//! CLI does it.

use crate::cli::term::text::cut_width;
use crate::cli::term::text::flat;
use std::path::{Path, PathBuf};

/// At most this many `@` words are looked up in one prompt (a pasted log
/// full of `@` costs no more than that), and at most this many notes said.
const MAX_LOOKED_UP: usize = 100;
const MAX_NOTES: usize = 5;
/// The most columns of a name a note shows.
const NAME_COLUMNS: usize = 80;
/// How many following words are tried when an unquoted `@word` names
/// nothing, to find the file with spaces it was cut from.
const MAX_JOINED: usize = 8;

/// One `@` mention: the name as written (without `@` and quotes), whether
/// it was quoted, and the words after it (unquoted only, for the hint).
struct Mention<'a> {
    name: &'a str,
    quoted: bool,
    after: Vec<&'a str>,
}

/// Where `line`'s fenced code blocks (```) are: byte ranges.
fn fences(line: &str) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut open = None;
    let mut at = 0;
    for l in line.split_inclusive('\n') {
        if l.trim_start().starts_with("```") {
            match open.take() {
                Some(start) => out.push(start..at + l.len()),
                None => open = Some(at),
            }
        }
        at += l.len();
    }
    if let Some(start) = open {
        out.push(start..line.len());
    }
    out
}

/// The mentions in `line`, in order (none inside a fenced code block:
/// `@property` there is Python, not a path).
fn mentions(line: &str) -> Vec<Mention<'_>> {
    let mut out = Vec::new();
    let mut from = 0;
    let code = fences(line);
    while let Some(i) = line[from..].find('@').map(|i| from + i) {
        from = i + 1;
        if let Some(block) = code.iter().find(|r| r.contains(&i)) {
            from = block.end;
            continue;
        }
        // only at a word's start
        if line[..i]
            .chars()
            .next_back()
            .is_some_and(|c| !c.is_whitespace())
        {
            continue;
        }
        let rest = &line[i + 1..];
        if let Some(inner) = rest.strip_prefix('"') {
            if let Some(end) = inner.find('"') {
                out.push(Mention {
                    name: &inner[..end],
                    quoted: true,
                    after: Vec::new(),
                });
                from = i + 2 + end + 1;
                continue;
            }
        }
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let after = rest[end..].split_whitespace().take(MAX_JOINED).collect();
        out.push(Mention {
            name: &rest[..end],
            quoted: false,
            after,
        });
        from = i + 1 + end;
    }
    out
}

/// Where `name` points: `~/…` under `home`, an absolute path, or a path
/// from `cwd`.
fn resolve(name: &str, cwd: &Path, home: Option<&Path>) -> Option<PathBuf> {
    if let Some(rest) = name.strip_prefix("~/") {
        return Some(home?.join(rest));
    }
    Some(cwd.join(name))
}

/// The name the CLI looks up, as 2.1.332 does: an unquoted word loses
/// every character after its last ASCII letter, digit or `_` (the
/// sentence's punctuation, and a folder's `/`), then a `#L…` line range.
fn looked_up(name: &str, quoted: bool) -> &str {
    let name = if quoted {
        name
    } else {
        name.trim_end_matches(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
    };
    name.split('#').next().unwrap_or(name)
}

fn exists(name: &str, cwd: &Path, home: Option<&Path>) -> bool {
    // a name with a NUL or a huge one is no path here; metadata says so
    resolve(name, cwd, home).is_some_and(|p| std::fs::metadata(p).is_ok())
}

/// The notes to show before `line` is sent: one for each `@` word that
/// names no file or folder here (at most [`MAX_NOTES`], then how many
/// more), each inert and on one line.
pub fn unfound(line: &str, cwd: &Path, home: Option<&Path>) -> Vec<String> {
    let mut notes = Vec::new();
    let mut more = 0;
    // one line of inert text, cut (a pasted word can be a megabyte)
    let show = |s: &str| cut_width(&flat(s), NAME_COLUMNS);
    for m in mentions(line).into_iter().take(MAX_LOOKED_UP) {
        let name = looked_up(m.name, m.quoted);
        if name.is_empty() || name.starts_with("agent-") || name.contains([':', '(', '=', '"']) {
            continue;
        }
        if exists(name, cwd, home) {
            continue;
        }
        let shown = if m.quoted {
            format!("@\"{}\"", show(m.name))
        } else if !m.name.starts_with(name) || m.name.len() > name.len() + 1 {
            // the CLI cut more than a closing mark: say what it looks for
            format!("@{} (looked up as \"{}\")", show(m.name), show(name))
        } else {
            format!("@{}", show(m.name))
        };
        // `@notes file.txt`: the file with a space it was cut from
        let mut joined = name.to_owned();
        let mut meant = None;
        for w in &m.after {
            joined.push(' ');
            joined.push_str(looked_up(w, false));
            if exists(&joined, cwd, home) {
                meant = Some(joined.clone());
                break;
            }
        }
        // a bare word (`@channel`, `@Override`) is said only when it was
        // cut from a file's name; a path (`/`, `.`, `~`, quotes) always is
        let path_like = m.quoted
            || name.contains(['/', '.'])
            || name.starts_with('~')
            || (name != m.name && exists(m.name, cwd, home));
        if meant.is_none() && !path_like {
            continue;
        }
        if notes.len() == MAX_NOTES {
            more += 1;
            continue;
        }
        notes.push(match meant {
            Some(file) if !file.contains('"') => format!(
                "{shown} names no file here, so nothing is attached for it; for \"{f}\" write @\"{f}\" (Tab after @ quotes it)",
                f = show(&file)
            ),
            _ => format!("{shown} names no file here, so nothing is attached for it (sent as text)"),
        });
    }
    if more > 0 {
        notes.push(format!("… and {more} more @ words that name no file"));
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(line: &str) -> Vec<(&str, bool)> {
        mentions(line).iter().map(|m| (m.name, m.quoted)).collect()
    }

    #[test]
    fn mentions_are_read_as_the_cli_reads_them() {
        assert_eq!(
            names(r#"read @a.txt and @"my docs/b c.txt" then mail me@x.org @"open"#),
            [
                ("a.txt", false),
                ("my docs/b c.txt", true),
                ("\"open", false)
            ]
        );
        assert!(names("no mentions, a@b").is_empty());
        assert_eq!(names("@"), [("", false)]);
    }

    #[test]
    fn an_at_word_that_names_nothing_is_said_once_and_a_quoted_one_with_spaces_is_found() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("notes file.txt"), "x").unwrap();
        std::fs::write(d.path().join("plain.txt"), "x").unwrap();
        std::fs::create_dir(d.path().join("my docs")).unwrap();
        std::fs::create_dir(d.path().join("src")).unwrap();
        let cwd = d.path();
        // found: quoted, plain, a folder, with a line range, in a sentence
        for ok in [
            r#"see @"notes file.txt""#,
            "see @plain.txt",
            r#"in @"my docs/""#,
            "lines @plain.txt#L1-2",
            "see @plain.txt, then",
            "see (@plain.txt).",
            "in @src/ (a folder, its slash cut as the CLI cuts it)",
            "ask @agent-reviewer and @server:res://x",
            "me@example.org",
            "ping @channel about it",
            "```\n@property\ndef x(self): ...\n@app.route(\"/\")\n```",
            "    @dataclass(frozen=True)",
        ] {
            assert!(
                unfound(ok, cwd, None).is_empty(),
                "{ok}: {:?}",
                unfound(ok, cwd, None)
            );
        }
        let notes = unfound("and @notes file.txt", cwd, None);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].starts_with("@notes names no file here"),
            "{notes:?}"
        );
        assert!(notes[0].contains(r#"write @"notes file.txt""#), "{notes:?}");
        let notes = unfound("fix @missing.rs", cwd, None);
        assert_eq!(
            notes,
            ["@missing.rs names no file here, so nothing is attached for it (sent as text)"]
        );
        // the CLI cuts what follows the last ASCII letter or digit: a
        // name ending in another character is not found
        std::fs::write(cwd.join("café"), "x").unwrap();
        let notes = unfound("@café", cwd, None);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].starts_with(r#"@café (looked up as "caf") names no file"#),
            "{notes:?}"
        );
        // a pasted megabyte of a word is said in one short line
        let notes = unfound(&format!("@x.{}", "x".repeat(1 << 20)), cwd, None);
        assert!(notes[0].chars().count() < 300, "{}", notes[0].len());
        // a terminal's escape in the word is not drawn as one
        let notes = unfound("@x.txt\u{1b}]0;t\u{7}", cwd, None);
        assert!(!notes[0].contains('\u{1b}'), "{notes:?}");
    }

    #[test]
    fn a_line_full_of_at_words_says_a_few_and_counts_the_rest() {
        let d = tempfile::tempdir().unwrap();
        let line: String = (0..10_000).map(|i| format!("@n{i}.txt ")).collect();
        let notes = unfound(&line, d.path(), None);
        assert_eq!(notes.len(), MAX_NOTES + 1, "{notes:?}");
        assert_eq!(
            notes[MAX_NOTES],
            format!(
                "… and {} more @ words that name no file",
                MAX_LOOKED_UP - MAX_NOTES
            )
        );
    }
}
