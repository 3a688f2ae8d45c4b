//! The kept screens and how a drawn one is compared with them: shared by
//! the screens drawn in-process (the chat's `screens` tests, beside its
//! code) and those drawn by the program under a pseudo-terminal
//! (`tests/it/screens.rs`), so both check the same files the same way.
//!
//! A kept file is `tests/it/screens/NAME.COLS.txt`: a first line naming
//! the size (`80x30`), then the screen's rows, trailing spaces trimmed,
//! down to the last row with text. The cursor is not compared. Masked:
//! claudio's version in the header, and the digits of times in seconds
//! (see [`masked`]).

use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// The kept screen `name` at `cols` columns.
pub fn kept(name: &str, cols: u16) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/it/screens")
        .join(format!("{name}.{cols}.txt"))
}

/// What varies between builds or runs, masked: claudio's version in the
/// header becomes `VERSION`, and the digits of a time in seconds (`0.7s`,
/// how long a tool took, counting the time its approval waited) become `#`
/// (same width, so positions still compare).
pub fn masked(row: &str) -> String {
    let row = row.replace(
        &format!("claudio {}", env!("CARGO_PKG_VERSION")),
        "claudio VERSION",
    );
    let chars: Vec<char> = row.chars().collect();
    let mut out: Vec<char> = chars.clone();
    let mut i = 0;
    while i < chars.len() {
        // digits, a point, one digit, `s`, then the end or a space
        let start = i;
        while i < chars.len() && chars[i].is_ascii_digit() {
            i += 1;
        }
        let timer = i > start
            && (start == 0 || !chars[start - 1].is_alphanumeric())
            && chars.get(i) == Some(&'.')
            && chars.get(i + 1).is_some_and(char::is_ascii_digit)
            && chars.get(i + 2) == Some(&'s')
            && chars.get(i + 3).is_none_or(|c| *c == ' ');
        if timer {
            for c in &mut out[start..i + 2] {
                if c.is_ascii_digit() {
                    *c = '#';
                }
            }
            i += 3;
        } else if i == start {
            i += 1;
        }
    }
    let row: String = out.into_iter().collect();
    working_masked(&row)
}

/// The turn's status line moves while it waits: its spinner frame becomes
/// `⠿` and the digits of its elapsed seconds `#` (so a screen with it
/// settles, and compares).
fn working_masked(row: &str) -> String {
    let Some(at) = row.find("Working · ") else {
        return row.to_owned();
    };
    let (head, tail) = row.split_at(at);
    let head: String = head
        .chars()
        .map(|c| {
            if ('\u{2800}'..='\u{28ff}').contains(&c) {
                '⠿'
            } else {
                c
            }
        })
        .collect();
    let rest = &tail["Working · ".len()..];
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    format!("{head}Working · {}{}", "#".repeat(digits), &rest[digits..])
}

/// The screen as it is kept: its size, then its rows (`rows`: as drawn,
/// trailing spaces trimmed) down to the last one with text.
pub fn shot(rows: &[String], (h, w): (u16, u16)) -> String {
    let last = rows
        .iter()
        .rposition(|r| !r.is_empty())
        .map_or(0, |i| i + 1);
    let mut out = format!("{w}x{h}\n");
    for r in &rows[..last] {
        out.push_str(&masked(r));
        out.push('\n');
    }
    out
}

/// Row by row (screens are positional: row 5 is row 5 in both).
pub fn diff(want: &str, got: &str) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    let mut out = String::new();
    for i in 0..a.len().max(b.len()) {
        let (x, y) = (a.get(i), b.get(i));
        if x == y {
            out.push_str(&format!("  {:>2}|{}\n", i, x.unwrap_or(&"")));
        } else {
            if let Some(x) = x {
                out.push_str(&format!("- {i:>2}|{x}\n"));
            }
            if let Some(y) = y {
                out.push_str(&format!("+ {i:>2}|{y}\n"));
            }
        }
    }
    out
}

/// The store's folder for the chat's working directory: `~/proj`, the
/// home being `record`'s `home` (`record`: the fake CLI's folder).
pub fn project_dir(record: &Path) -> PathBuf {
    let proj = record.join("home/proj");
    let name: String = proj
        .display()
        .to_string()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    record.join("home/.claude/projects").join(name)
}

/// A transcript of `prompts` (each answered) as session `id`, last written
/// on 2 January 2020 (the pickers show dates, not "just now").
pub fn transcript(record: &Path, id: &str, prompts: &[(&str, &str)]) {
    let dir = project_dir(record);
    std::fs::create_dir_all(&dir).unwrap();
    let cwd = record.join("home/proj");
    let mut lines = Vec::new();
    let mut parent = Value::Null;
    for (i, (prompt, answer)) in prompts.iter().enumerate() {
        let (u, a) = (
            format!("00000000-0000-4000-8000-{:012}", 2 * i + 1),
            format!("00000000-0000-4000-8000-{:012}", 2 * i + 2),
        );
        let at = format!("2020-01-02T03:{:02}:00.000Z", i);
        lines.push(json!({"parentUuid":parent,"isSidechain":false,"type":"user","message":{"role":"user","content":prompt},
            "uuid":u,"timestamp":at,"cwd":cwd,"sessionId":id,"version":"2.1.328"}));
        lines.push(json!({"parentUuid":u,"isSidechain":false,"type":"assistant","message":{"id":format!("msg_{i}"),"role":"assistant","model":"fake-model",
            "content":[{"type":"text","text":answer}]},"uuid":a,"timestamp":at,"cwd":cwd,"sessionId":id,"version":"2.1.328"}));
        parent = Value::String(a);
    }
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let path = dir.join(format!("{id}.jsonl"));
    std::fs::write(&path, text).unwrap();
    let when = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_577_934_000);
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(when)
        .unwrap();
}
