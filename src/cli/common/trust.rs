//! Workspace trust: the claude TUI's "Do you trust the files in this
//! folder?", which the CLI's stream-json mode skips. A folder's project
//! settings (`.claude/settings.json`, `.claude/settings.local.json`) and
//! `.mcp.json` are its author's code: hooks, MCP servers, a `statusLine`,
//! an `apiKeyHelper`, `env`, rules that allow tools. Until the person
//! trusts the folder, the CLI starts without them (`--setting-sources
//! user`, which also leaves `.mcp.json` out, as checked with the real CLI
//! 2.1.328 and 2.1.332).
//!
//! One check serves the chat, `ask` and the chat's status line. The answer
//! is recorded where the claude TUI records and reads it
//! (`projects[<root>].hasTrustDialogAccepted` in `~/.claude.json`), so a
//! folder trusted in one is trusted in both.

use super::settings;
use serde_json::value::RawValue;
use serde_json::Value;
use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

/// The key the trust answer is recorded under, for the CLI's state file.
const ACCEPTED: &str = "hasTrustDialogAccepted";

/// What the check found for a folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Check {
    /// Trusted (recorded, or the CLI's `CLAUDE_CODE_SANDBOXED`): the
    /// project's settings load.
    Trusted,
    /// Not trusted: ask, or start without the project's settings.
    Untrusted(Folder),
}

/// An untrusted folder: where its trust would be recorded, and what of it
/// would run if trusted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Folder {
    /// The folder the CLI runs in.
    pub cwd: PathBuf,
    /// Where the claude TUI records this folder's trust: the root of the
    /// git repository it is in (for a linked worktree, its main
    /// worktree), else the folder itself, links resolved.
    pub root: PathBuf,
    /// The home folder: its trust is never recorded (the TUI's answer
    /// there holds for one session only).
    pub home: bool,
    /// What the project's settings would load, one phrase each (empty:
    /// nothing today).
    pub loads: Vec<String>,
}

/// Whether `cwd`'s project settings may load: trusted as the claude TUI
/// records it, or not (with what would load).
pub fn check(cwd: &Path) -> Check {
    if settings::trusted(settings::state_file().as_deref(), cwd) {
        return Check::Trusted;
    }
    let real = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_owned());
    let home = dirs::home_dir().and_then(|h| std::fs::canonicalize(h).ok());
    Check::Untrusted(folder(cwd, &real, home.as_deref()))
}

/// The untrusted folder `cwd` (`real`: its links resolved), given the home
/// folder (links resolved). A folder whose trust would be recorded for the
/// home folder (one in a home folder kept in git, as dotfiles are) is
/// treated as the home folder: its trust holds for the session only, or
/// trusting `~/notes` would trust every folder under home that is no
/// repository of its own.
fn folder(cwd: &Path, real: &Path, home: Option<&Path>) -> Folder {
    let root = settings::trust_root(real);
    let home = home.is_some_and(|h| h == real || h == root);
    Folder {
        root,
        cwd: cwd.to_owned(),
        home,
        loads: what_would_load(cwd),
    }
}

/// What `cwd`'s project settings and `.mcp.json` would load, one phrase
/// each, in words a person reads at a glance: `hooks SessionStart,
/// UserPromptSubmit`, `MCP server evil`, `statusLine`, ...
pub fn what_would_load(cwd: &Path) -> Vec<String> {
    let mut hooks: Vec<String> = Vec::new();
    let mut others: Vec<String> = Vec::new();
    let mut allow = 0usize;
    let mut env: Vec<String> = Vec::new();
    let mut unreadable: Vec<String> = Vec::new();
    let add = |list: &mut Vec<String>, s: &str| {
        if !list.iter().any(|x| x == s) {
            list.push(s.to_owned());
        }
    };
    for name in ["settings.json", "settings.local.json"] {
        let file = cwd.join(".claude").join(name);
        if std::fs::symlink_metadata(&file).is_err() {
            continue;
        }
        let Some(Value::Object(s)) = settings::read(&file) else {
            unreadable.push(format!(".claude/{name}"));
            continue;
        };
        if let Some(Value::Object(h)) = s.get("hooks") {
            for event in h.keys() {
                add(&mut hooks, event);
            }
        }
        for key in [
            "statusLine",
            "apiKeyHelper",
            "awsAuthRefresh",
            "awsCredentialExport",
        ] {
            if s.contains_key(key) {
                add(&mut others, key);
            }
        }
        if let Some(Value::Object(e)) = s.get("env") {
            for k in e.keys() {
                add(&mut env, k);
            }
        }
        if let Some(Value::Array(a)) = s.get("permissions").and_then(|p| p.get("allow")) {
            allow += a.len();
        }
        if s.contains_key("enabledPlugins") {
            add(&mut others, "plugins");
        }
        if s.contains_key("enableAllProjectMcpServers") || s.contains_key("enabledMcpjsonServers") {
            add(&mut others, "MCP servers it enables");
        }
    }
    let mut out = Vec::new();
    if !hooks.is_empty() {
        out.push(format!("hooks {}", some(&hooks)));
    }
    // the CLI reads `.mcp.json` in the folder and in every folder above it
    // (checked with the real CLI 2.1.332: past the repository's root too)
    let real = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_owned());
    for dir in real.ancestors() {
        let mcp = dir.join(".mcp.json");
        if std::fs::symlink_metadata(&mcp).is_err() {
            continue;
        }
        let name = if dir == real {
            ".mcp.json".to_owned()
        } else {
            mcp.display().to_string()
        };
        match settings::read(&mcp)
            .as_ref()
            .and_then(|v| v.get("mcpServers"))
            .and_then(Value::as_object)
        {
            Some(servers) if servers.is_empty() => {}
            Some(servers) => {
                let names: Vec<String> = servers.keys().cloned().collect();
                out.push(format!(
                    "MCP server{} {} ({name})",
                    if names.len() == 1 { "" } else { "s" },
                    some(&names)
                ));
            }
            None => unreadable.push(name),
        }
    }
    out.extend(others);
    if !env.is_empty() {
        out.push(format!("env {}", some(&env)));
    }
    if allow > 0 {
        out.push(format!(
            "{allow} rule{} allowing tools without asking",
            if allow == 1 { "" } else { "s" }
        ));
    }
    for f in unreadable {
        out.push(format!(
            "{f} (not readable as JSON here; the CLI may still read it)"
        ));
    }
    // one line of inert text each: names come from the project's files
    out.into_iter()
        .map(|s| crate::cli::term::text::flat(&s))
        .collect()
}

/// The most names listed of one kind (hooks, servers, variables); the
/// rest are counted.
const NAMES_SHOWN: usize = 8;

/// Names, each cut to 40 columns, at most [`NAMES_SHOWN`] of them.
fn some(names: &[String]) -> String {
    let mut shown: Vec<String> = names
        .iter()
        .take(NAMES_SHOWN)
        .map(|n| crate::cli::term::text::cut_width(&crate::cli::term::text::flat(n), 40))
        .collect();
    if names.len() > NAMES_SHOWN {
        shown.push(format!("and {} more", names.len() - NAMES_SHOWN));
    }
    shown.join(", ")
}

/// The question, as the chat and `ask` put it (without the answer's
/// prompt).
pub fn question(folder: &Folder) -> String {
    let home = dirs::home_dir();
    let shown = |p: &Path| {
        let s = match home
            .as_deref()
            .and_then(|h| Some(p.strip_prefix(h).ok()?.to_owned()))
        {
            Some(rest) if rest.as_os_str().is_empty() => "~".to_owned(),
            Some(rest) => format!("~/{}", rest.display()),
            None => p.display().to_string(),
        };
        crate::cli::term::text::flat(&s)
    };
    let mut q = format!(
        "Do you trust the files in this folder?  {}\n",
        shown(&folder.cwd)
    );
    let real = std::fs::canonicalize(&folder.cwd).unwrap_or_else(|_| folder.cwd.clone());
    if folder.root != real && !folder.home {
        // what is recorded is the repository's trust, not the folder's
        q.push_str(&format!(
            "  It is part of the repository at {}: trusting it trusts that whole repository.\n",
            shown(&folder.root)
        ));
    }
    if folder.loads.is_empty() {
        q.push_str("  Its project settings (hooks, MCP servers, a status line) would load; it has none today.\n");
    } else {
        q.push_str("  Its project settings would run code on this machine:\n");
        for l in &folder.loads {
            q.push_str(&format!("    {l}\n"));
        }
    }
    if folder.home && folder.root != real {
        q.push_str("  Its trust would be your home folder's (a repository), which holds for this session only.\n");
    } else if folder.home {
        q.push_str("  Your home folder's trust holds for this session only, as in claude.\n");
    } else {
        q.push_str("  Trust is recorded in ~/.claude.json, as claude records it.\n");
    }
    q
}

/// [`question`] as the terminal shows it, `width` columns wide: each
/// line indented two columns and broken at spaces, as the chat wraps its
/// other prose (a row the terminal wrapped itself would leave a word, or
/// the final `.`, alone at the next row's first column).
pub fn question_rows(folder: &Folder, width: usize) -> String {
    question(folder)
        .lines()
        .map(|l| crate::cli::term::wrap::wrapped(l, width, "  ", "  "))
        .collect()
}

/// The answer's prompt.
pub const ASK: &str = "y trust it · n start without them ›";

/// The answer's prompt on a screen `width` columns wide: [`ASK`] where it
/// fits on one row with room to type, a shorter one where not (it wrapped
/// to the first column, under the question's indent).
pub fn ask_for(width: usize) -> &'static str {
    let room = |ask: &str| 2 + crate::cli::term::wrap::visible_width(ask) + 1 + 4 <= width;
    if room(ASK) {
        ASK
    } else if room(ASK_SHORT) {
        ASK_SHORT
    } else {
        "y/n ›"
    }
}

/// [`ASK`] for a narrow screen.
const ASK_SHORT: &str = "y trust · n no ›";

/// A typed answer: `y`/`yes` trusts; anything else (Enter alone too) does
/// not.
pub fn yes(line: &str) -> bool {
    matches!(line.trim().to_lowercase().as_str(), "y" | "yes")
}

/// A typed answer that says no: `n`/`no`, or Enter alone. Where a
/// question can be asked again, anything neither [`yes`] nor this is no
/// answer at all (the chat's trust question asks again).
pub fn no(line: &str) -> bool {
    matches!(line.trim().to_lowercase().as_str(), "" | "n" | "no")
}

/// The one line said when the project's settings were left out.
pub fn left_out(folder: &Folder, how_to_trust: &str) -> String {
    let what = if folder.loads.is_empty() {
        String::new()
    } else {
        format!(" ({})", folder.loads.join("; "))
    };
    format!(
        "this folder is not trusted: its project settings were not loaded{what}; {how_to_trust}"
    )
}

/// Record that the person trusts `folder`, where the claude TUI records
/// it; the home folder's trust is never recorded.
pub fn record_trust(folder: &Folder) -> io::Result<()> {
    if folder.home {
        return Ok(());
    }
    let state = settings::state_file().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::NotFound,
            "no HOME or CLAUDE_CONFIG_DIR names the CLI's state file",
        )
    })?;
    let key = folder.root.to_str().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "the folder's name is not UTF-8",
        )
    })?;
    record(&state, key)
}

/// The most of the state file read to record trust in it (as the trust
/// check reads it).
const MAX_STATE: u64 = 64 << 20;

/// Set `projects[key].hasTrustDialogAccepted` to `true` in the CLI's state
/// file `state`, changing nothing else in it: the new text is the old one
/// with that one value written in (every other byte kept), written to a
/// temporary file beside it and renamed over it. A link is followed (the
/// file it names is replaced). A file that is there but cannot be read as
/// a JSON object is left alone: an error.
pub fn record(state: &Path, key: &str) -> io::Result<()> {
    record_with(state, key, &mut || {})
}

/// How often [`record`] starts again when the state file changed while
/// it was being written (a claude session writes it often).
const RECORD_TRIES: usize = 5;

/// The file's identity and version as `stat` says: changed when another
/// program wrote or replaced it (`None`: missing).
pub(crate) type Version = Option<[i64; 7]>;

pub(crate) fn version(path: &Path) -> io::Result<Version> {
    use std::os::unix::fs::MetadataExt;
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
        Ok(m) => Ok(Some([
            m.dev() as i64,
            m.ino() as i64,
            m.size() as i64,
            m.mtime(),
            m.mtime_nsec(),
            m.ctime(),
            m.ctime_nsec(),
        ])),
    }
}

/// [`record`], calling `between` after the file was read and before the
/// new text is renamed over it (where another program may write it). A
/// file changed in between is read again, so what the other wrote is kept.
fn record_with(state: &Path, key: &str, between: &mut dyn FnMut()) -> io::Result<()> {
    let target = match std::fs::symlink_metadata(state) {
        Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(state)?,
        _ => state.to_owned(),
    };
    for _ in 0..RECORD_TRIES {
        let seen = version(&target)?;
        let (new, mode) = new_text(&target, key)?;
        between();
        match write_atomic(&target, new.as_bytes(), mode, &|| {
            version(&target).is_ok_and(|v| v == seen)
        }) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
    Err(io::Error::other(format!(
        "{} kept changing while the trust was written in; it was left as the other program wrote it",
        crate::cli::common::folder::shown(&target)
    )))
}

/// The state file's text with the record written in, and the mode to
/// give the new file.
fn new_text(target: &Path, key: &str) -> io::Result<(String, u32)> {
    let (old, mode) = match std::fs::symlink_metadata(target) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => (None, 0o600),
        Err(e) => return Err(e),
        Ok(m) => {
            use std::os::unix::fs::PermissionsExt;
            let text = settings::read_small_text(target, MAX_STATE).ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "{} is not a regular file of at most {} MiB",
                        crate::cli::common::folder::shown(target),
                        MAX_STATE >> 20
                    ),
                )
            })?;
            (Some(text), m.permissions().mode() & 0o7777)
        }
    };
    let new = match &old {
        Some(text) if !text.trim().is_empty() => splice(text, key).map_err(|why| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{}: {why}; it was left as it was",
                    crate::cli::common::folder::shown(target)
                ),
            )
        })?,
        // no file yet, or an empty one
        _ => format!(
            "{{\n  \"projects\": {{\n    {}: {{\n      \"{ACCEPTED}\": true\n    }}\n  }}\n}}\n",
            json_string(key)
        ),
    };
    Ok((new, mode))
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned())
}

/// Where `raw` (a slice of `text`) starts in `text`.
pub(crate) fn offset(text: &str, raw: &RawValue) -> usize {
    raw.get().as_ptr() as usize - text.as_ptr() as usize
}

/// The text just after the `{` that opens the object `raw` (a slice of
/// `text`), and the indentation its members would have if the object is
/// written one member a line (`None`: written on one line).
pub(crate) fn object_start(text: &str, raw: &RawValue) -> (usize, Option<String>) {
    let at = offset(text, raw) + 1;
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let indent: String = text[line_start..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    let pretty = text[at..].starts_with('\n') || text[at..].starts_with("\r\n");
    (at, pretty.then(|| format!("{indent}  ")))
}

/// A member `"name": value` put first in an object (see [`object_start`]):
/// `empty` when the object had no members.
fn member(name: &str, value: &str, indent: &Option<String>, empty: bool) -> String {
    let comma = if empty { "" } else { "," };
    match indent {
        Some(i) if empty => format!("\n{i}{name}: {value}\n{}", &i[..i.len() - 2]),
        Some(i) => format!("\n{i}{name}: {value}{comma}"),
        None => format!("{name}: {value}{comma}"),
    }
}

/// Why the trust record could not be written into `~/.claude.json` (the
/// file is then left as it was).
#[derive(Debug, thiserror::Error)]
enum SpliceError {
    #[error("not JSON ({0})")]
    NotJson(serde_json::Error),
    #[error("not a JSON object")]
    NotAnObject,
    #[error("not readable ({0})")]
    Unreadable(serde_json::Error),
    #[error("its projects are not an object{}", because(.0))]
    ProjectsNotAnObject(Option<serde_json::Error>),
    #[error("its record of the folder is not an object ({0})")]
    RecordNotAnObject(serde_json::Error),
    #[error("the record could not be written in without breaking it")]
    WouldBreak,
    #[error("the record could not be written in without changing more")]
    WouldChangeMore,
}

/// ` (why)`, when there is a why.
fn because(e: &Option<serde_json::Error>) -> String {
    e.as_ref().map(|e| format!(" ({e})")).unwrap_or_default()
}

/// `text` with `projects[key].hasTrustDialogAccepted` set to `true`, every
/// other byte as it was.
fn splice(text: &str, key: &str) -> Result<String, SpliceError> {
    let top_raw: &RawValue = serde_json::from_str(text).map_err(SpliceError::NotJson)?;
    if !top_raw.get().starts_with('{') {
        return Err(SpliceError::NotAnObject);
    }
    // a key written twice is read as JSON.parse reads it: the last
    let top: HashMap<String, &RawValue> =
        serde_json::from_str(text).map_err(SpliceError::Unreadable)?;
    let (at, replace_to, insert) = match top.get("projects").copied() {
        Some(p) if p.get() == "null" => {
            let at = offset(text, p);
            (
                at,
                at + p.get().len(),
                format!("{{{}: {{\"{ACCEPTED}\": true}}}}", json_string(key)),
            )
        }
        Some(p) => {
            // the members borrow from `p`'s text, itself a slice of `text`;
            // a key written twice is read as JSON.parse reads it: the last
            let entries: HashMap<String, &RawValue> = serde_json::from_str(p.get())
                .map_err(|e| SpliceError::ProjectsNotAnObject(Some(e)))?;
            match entries.get(key) {
                Some(entry) if entry.get().starts_with('{') => {
                    let fields: HashMap<String, &RawValue> = serde_json::from_str(entry.get())
                        .map_err(SpliceError::RecordNotAnObject)?;
                    match fields.get(ACCEPTED) {
                        Some(v) => {
                            let at = offset(text, v);
                            (at, at + v.get().len(), "true".to_owned())
                        }
                        None => {
                            let (at, indent) = object_start(text, entry);
                            let ins = member(
                                &format!("\"{ACCEPTED}\""),
                                "true",
                                &indent,
                                fields.is_empty(),
                            );
                            (at, at, ins)
                        }
                    }
                }
                Some(entry) => {
                    let at = offset(text, entry);
                    (
                        at,
                        at + entry.get().len(),
                        format!("{{\"{ACCEPTED}\": true}}"),
                    )
                }
                None => {
                    let (at, indent) = object_start(text, p);
                    let value = match &indent {
                        Some(i) => format!("{{\n{i}  \"{ACCEPTED}\": true\n{i}}}"),
                        None => format!("{{\"{ACCEPTED}\": true}}"),
                    };
                    let ins = member(&json_string(key), &value, &indent, entries.is_empty());
                    (at, at, ins)
                }
            }
        }
        None => {
            let (at, indent) = object_start(text, top_raw);
            let value = match &indent {
                Some(i) => format!(
                    "{{\n{i}  {}: {{\n{i}    \"{ACCEPTED}\": true\n{i}  }}\n{i}}}",
                    json_string(key)
                ),
                None => format!("{{{}: {{\"{ACCEPTED}\": true}}}}", json_string(key)),
            };
            (
                at,
                at,
                member("\"projects\"", &value, &indent, top.is_empty()),
            )
        }
    };
    let mut out = String::with_capacity(text.len() + insert.len());
    out.push_str(&text[..at]);
    out.push_str(&insert);
    out.push_str(&text[replace_to..]);
    check_only_trust_changed(text, &out, key)?;
    Ok(out)
}

/// The new text is JSON, says the folder is trusted, and holds everything
/// else the old one held.
fn check_only_trust_changed(old: &str, new: &str, key: &str) -> Result<(), SpliceError> {
    let (Ok(mut before), Ok(after)) = (
        serde_json::from_str::<Value>(old),
        serde_json::from_str::<Value>(new),
    ) else {
        return Err(SpliceError::WouldBreak);
    };
    let top = before.as_object_mut().ok_or(SpliceError::NotAnObject)?;
    let projects = top
        .entry("projects")
        .or_insert_with(|| Value::Object(Default::default()));
    if projects.is_null() {
        *projects = Value::Object(Default::default());
    }
    let projects = projects
        .as_object_mut()
        .ok_or(SpliceError::ProjectsNotAnObject(None))?;
    let entry = projects
        .entry(key.to_owned())
        .or_insert_with(|| Value::Object(Default::default()));
    if !entry.is_object() {
        *entry = Value::Object(Default::default());
    }
    entry
        .as_object_mut()
        .map(|e| e.insert(ACCEPTED.to_owned(), Value::Bool(true)));
    if before != after {
        return Err(SpliceError::WouldChangeMore);
    }
    Ok(())
}

/// Write `bytes` to a temporary file beside `target` (mode `mode`), then
/// rename it over `target` if `unchanged` still says so (else
/// `Interrupted`, nothing replaced).
pub(crate) fn write_atomic(
    target: &Path,
    bytes: &[u8],
    mode: u32,
    unchanged: &dyn Fn() -> bool,
) -> io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let dir = target.parent().unwrap_or(Path::new("."));
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let nonce = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let tmp = dir.join(format!(
        ".{name}.claudio-{}-{nonce}.tmp",
        std::process::id()
    ));
    let result = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode & 0o777)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        if !unchanged() {
            return Err(io::Error::new(
                io::ErrorKind::Interrupted,
                "changed while it was written",
            ));
        }
        std::fs::rename(&tmp, target)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Throw away what was typed before the question is shown (as sudo
/// does): a `y` meant for something else must not trust a folder. Called
/// before the question is written, so that an answer typed as soon as it
/// shows is kept.
pub fn discard_typeahead(tty: &impl std::os::fd::AsFd) {
    let _ = rustix::termios::tcflush(tty, rustix::termios::QueueSelector::IFlush);
}

/// Read the answer to the question: one line from `tty`, at most 4 KiB.
/// End of input is "no".
pub fn read_answer(tty: &mut impl Read) -> io::Result<String> {
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    loop {
        match tty.read(&mut byte) {
            Ok(0) => break,
            Ok(_) if byte[0] == b'\n' || byte[0] == b'\r' => break,
            Ok(_) => {
                if line.len() < 4096 {
                    line.push(byte[0]);
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(String::from_utf8_lossy(&line).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::os::unix::fs::PermissionsExt;

    /// The state file as the CLI writes it (`JSON.stringify(c, null, 2)`).
    const STATE: &str = r#"{
  "numStartups": 12,
  "theme": "dark",
  "tipsHistory": {
    "new-user-warmup": 1
  },
  "projects": {
    "/home/me/old": {
      "allowedTools": [],
      "hasTrustDialogAccepted": true,
      "lastCost": 0.12345678901234568,
      "name": "caf\u00e9"
    },
    "/home/me/repo": {
      "allowedTools": [
        "Bash(ls:*)"
      ],
      "hasTrustDialogAccepted": false
    },
    "/home/me/bare": {
      "allowedTools": []
    }
  },
  "userID": "abc"
}
"#;

    fn written(before: &str, key: &str) -> String {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join(".claude.json");
        std::fs::write(&f, before).unwrap();
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o600)).unwrap();
        record(&f, key).unwrap();
        let mode = std::fs::metadata(&f).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "the file's mode is kept");
        let names: Vec<_> = std::fs::read_dir(d.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary file is left");
        std::fs::read_to_string(&f).unwrap()
    }

    fn accepted(text: &str, key: &str) -> Value {
        serde_json::from_str::<Value>(text).unwrap()["projects"][key][ACCEPTED].clone()
    }

    /// A false record is made true and nothing else changes, not a byte:
    /// escapes, number spellings and order stay as the CLI wrote them.
    #[test]
    fn a_false_record_becomes_true_and_every_other_byte_stays() {
        let after = written(STATE, "/home/me/repo");
        assert_eq!(
            after,
            STATE.replacen(
                "],\n      \"hasTrustDialogAccepted\": false",
                "],\n      \"hasTrustDialogAccepted\": true",
                1
            )
        );
    }

    /// A record with no trust key gets one, first, in the file's layout; a
    /// folder with no record gets one.
    #[test]
    fn a_missing_key_or_record_is_written_in_the_file_s_layout() {
        let after = written(STATE, "/home/me/bare");
        assert_eq!(
            after,
            STATE.replacen(
                "\"/home/me/bare\": {\n",
                "\"/home/me/bare\": {\n      \"hasTrustDialogAccepted\": true,\n",
                1
            )
        );
        let after = written(STATE, "/home/me/new \"quoted\"");
        assert_eq!(
            after,
            STATE.replacen(
                "\"projects\": {\n",
                "\"projects\": {\n    \"/home/me/new \\\"quoted\\\"\": {\n      \"hasTrustDialogAccepted\": true\n    },\n",
                1
            )
        );
        assert_eq!(accepted(&after, "/home/me/new \"quoted\""), true);
    }

    /// No `projects` yet, an empty one, one line of JSON, an empty file:
    /// each gets the record and keeps the rest.
    #[test]
    fn odd_but_valid_files_get_the_record_and_keep_the_rest() {
        for before in [
            "{\n  \"theme\": \"dark\"\n}\n",
            "{}",
            "{\"projects\":{}}",
            "{\"projects\":null,\"a\":[1,2]}",
            "{\"projects\":{\"/w\":[]}}",
            "{\"projects\":{\"/w\":{}}}",
            "  {\"a\": 1}  ",
            "",
        ] {
            let after = written(before, "/w");
            assert_eq!(accepted(&after, "/w"), true, "{before:?} -> {after:?}");
            if let Ok(Value::Object(old)) = serde_json::from_str::<Value>(before) {
                let new: Value = serde_json::from_str(&after).unwrap();
                for (k, v) in old.iter().filter(|(k, _)| *k != "projects") {
                    assert_eq!(&new[k], v, "{before:?}");
                }
            }
        }
    }

    /// A file that is there but is no JSON object is left as it was.
    #[test]
    fn a_file_that_is_no_json_object_is_left_alone() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join(".claude.json");
        for bad in [
            "{not json",
            "[1,2]",
            "{\"projects\": 3}",
            "{\"projects\":{}} trailing",
        ] {
            std::fs::write(&f, bad).unwrap();
            let e = record(&f, "/w").unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidData, "{bad}: {e}");
            assert_eq!(std::fs::read_to_string(&f).unwrap(), bad);
        }
        // a FIFO is not read (no hang) and not replaced
        std::fs::remove_file(&f).unwrap();
        let made = std::process::Command::new("mkfifo").arg(&f).status();
        assert!(made.unwrap().success());
        assert!(record(&f, "/w").is_err());
        assert!(std::fs::symlink_metadata(&f)
            .unwrap()
            .file_type()
            .is_fifo_like());
    }

    trait FifoLike {
        fn is_fifo_like(&self) -> bool;
    }
    impl FifoLike for std::fs::FileType {
        fn is_fifo_like(&self) -> bool {
            std::os::unix::fs::FileTypeExt::is_fifo(self)
        }
    }

    /// A missing file is made, private; a link is followed and kept.
    #[test]
    fn a_missing_file_is_made_private_and_a_link_is_kept() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join(".claude.json");
        record(&f, "/w").unwrap();
        let mode = std::fs::metadata(&f).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(accepted(&std::fs::read_to_string(&f).unwrap(), "/w"), true);
        let real = d.path().join("dotfiles.json");
        std::fs::write(&real, "{\"a\": 1}").unwrap();
        let link = d.path().join("link.json");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        record(&link, "/w").unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        let text = std::fs::read_to_string(&real).unwrap();
        assert_eq!(accepted(&text, "/w"), true);
        assert!(text.starts_with("{\"projects\": {"), "{text}");
    }

    /// Another program (a claude session) writing the state file between
    /// its reading and the rename: what it wrote is kept, the record
    /// written in too. It was lost: the rename put back the older text.
    #[test]
    fn a_write_by_another_program_meanwhile_is_kept() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join(".claude.json");
        std::fs::write(&f, STATE).unwrap();
        let mut writes = 0;
        record_with(&f, "/home/me/bare", &mut || {
            if writes == 0 {
                // as the CLI writes it: a new file renamed over it
                let other = d.path().join("other.tmp");
                std::fs::write(
                    &other,
                    STATE.replace("\"numStartups\": 12", "\"numStartups\": 13"),
                )
                .unwrap();
                std::fs::rename(&other, &f).unwrap();
            }
            writes += 1;
        })
        .unwrap();
        assert_eq!(writes, 2, "read again once");
        let text = std::fs::read_to_string(&f).unwrap();
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["numStartups"], 13, "the other program's write was lost");
        assert_eq!(accepted(&text, "/home/me/bare"), true);
        let names: Vec<_> = std::fs::read_dir(d.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary file is left");
        // one that never stops writing: the record gives up, the file is
        // the other's
        let e = record_with(&f, "/w", &mut || {
            std::fs::write(&f, "{\"a\": 1}").unwrap();
        })
        .unwrap_err();
        assert!(e.to_string().contains("kept changing"), "{e}");
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "{\"a\": 1}");
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
    }

    /// What is written is what the trust check reads: the folder is then
    /// trusted.
    #[test]
    fn the_record_written_is_the_one_the_check_reads() {
        let d = tempfile::tempdir().unwrap();
        let work = std::fs::canonicalize(d.path()).unwrap().join("work");
        std::fs::create_dir_all(work.join("sub")).unwrap();
        let f = d.path().join(".claude.json");
        std::fs::write(&f, STATE).unwrap();
        assert!(!settings::trusted(Some(&f), &work.join("sub")));
        let root = settings::trust_root(&work.join("sub"));
        assert_eq!(root, work.join("sub"), "no repository: the folder itself");
        record(&f, root.to_str().unwrap()).unwrap();
        assert!(settings::trusted(Some(&f), &work.join("sub")));
        // in a repository, the record is its root's
        std::fs::create_dir(work.join(".git")).unwrap();
        assert_eq!(settings::trust_root(&work.join("sub")), work);
    }

    /// What would load is said in words, one line each, inert.
    #[test]
    fn what_would_load_names_hooks_servers_and_the_rest() {
        let d = tempfile::tempdir().unwrap();
        let w = d.path();
        assert!(what_would_load(w).is_empty());
        std::fs::create_dir(w.join(".claude")).unwrap();
        std::fs::write(
            w.join(".claude/settings.json"),
            r#"{"hooks":{"SessionStart":[],"UserPromptSubmit":[]},"statusLine":{"command":"x"},
               "env":{"TOKEN\u001b]52;c;QQ==\u0007":"1"},"permissions":{"allow":["Bash(*)"]}}"#,
        )
        .unwrap();
        std::fs::write(w.join(".claude/settings.local.json"), "{oops").unwrap();
        std::fs::write(
            w.join(".mcp.json"),
            r#"{"mcpServers":{"evil":{"command":"sh"}}}"#,
        )
        .unwrap();
        let got = what_would_load(w);
        assert_eq!(
            got,
            [
                "hooks SessionStart, UserPromptSubmit",
                "MCP server evil (.mcp.json)",
                "statusLine",
                "env TOKEN",
                "1 rule allowing tools without asking",
                ".claude/settings.local.json (not readable as JSON here; the CLI may still read it)",
            ],
            "{got:?}"
        );
    }

    /// The CLI starts the servers of a `.mcp.json` in any folder above
    /// (a repository's root seen from a subfolder, or past it): they are
    /// named too, with their file.
    #[test]
    fn servers_of_a_mcp_json_above_the_folder_are_named() {
        let d = tempfile::tempdir().unwrap();
        let repo = std::fs::canonicalize(d.path()).unwrap().join("repo");
        std::fs::create_dir_all(repo.join("sub/deeper")).unwrap();
        std::fs::write(
            repo.join(".mcp.json"),
            r#"{"mcpServers":{"from-root":{"command":"sh"}}}"#,
        )
        .unwrap();
        let got = what_would_load(&repo.join("sub/deeper"));
        let file = repo.join(".mcp.json");
        assert_eq!(
            got,
            [format!("MCP server from-root ({})", file.display())],
            "{got:?}"
        );
    }

    /// A settings file naming a thousand hooks is said in one bounded line.
    #[test]
    fn many_names_are_counted_not_listed() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join(".claude")).unwrap();
        let hooks: serde_json::Map<String, Value> = (0..1000)
            .map(|i| (format!("Event{i}{}", "x".repeat(100)), Value::Array(vec![])))
            .collect();
        std::fs::write(
            d.path().join(".claude/settings.json"),
            json!({ "hooks": hooks }).to_string(),
        )
        .unwrap();
        let got = what_would_load(d.path());
        assert_eq!(got.len(), 1);
        assert!(got[0].ends_with("and 992 more"), "{}", got[0]);
        assert!(got[0].len() < 600, "{}", got[0].len());
    }

    /// A folder's name (and a repository root's) reaches the terminal
    /// inert: no escape sequence, no bidi override, no line of its own.
    #[test]
    fn the_question_shows_folder_names_inert() {
        let evil = "/tmp/x\u{1b}]52;c;QQ==\u{7}\u{202e}gpj.exe\n  hooks none\r\u{9b}2J";
        let folder = Folder {
            cwd: PathBuf::from(format!("{evil}/sub")),
            root: PathBuf::from(evil),
            home: false,
            loads: vec![],
        };
        let q = question(&folder);
        for bad in ['\u{1b}', '\u{7}', '\u{202e}', '\r', '\u{9b}'] {
            assert!(!q.contains(bad), "{bad:?} in {q:?}");
        }
        assert!(!q.contains("\n  hooks none"), "{q}");
        assert!(q.contains("trusts that whole repository"), "{q}");
    }

    /// Every row of the question fits the terminal, and a line that does
    /// not is broken at a space and carries on under its own indent.
    #[test]
    fn the_question_is_wrapped_to_the_terminal() {
        let folder = Folder {
            cwd: PathBuf::from("/srv/checkouts/some-long-name/docs"),
            root: PathBuf::from("/srv/checkouts/some-long-name"),
            home: false,
            loads: vec![],
        };
        for width in [40, 60, 90, 91, 120] {
            let rows = question_rows(&folder, width);
            for row in rows.lines() {
                let w = crate::cli::term::wrap::visible_width(row);
                assert!(w <= width, "{w} > {width}: {row:?}\n{rows}");
                assert!(row.starts_with("  "), "{row:?} at {width}\n{rows}");
                assert!(!row.trim().is_empty() && row.trim() != ".", "{rows}");
            }
            // nothing lost or added but the breaks and their indents
            let words = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
            assert_eq!(words(&rows), words(&question(&folder)), "at {width}");
        }
        // a line's own indent is kept on the rows it is broken into
        let rows = question_rows(&folder, 40);
        let at = rows.find("It is part").unwrap();
        let next = rows[at..].lines().nth(1).unwrap();
        assert!(
            next.starts_with("    ") && !next.starts_with("     "),
            "{rows}"
        );
    }

    #[test]
    fn only_yes_trusts() {
        assert!(yes("y") && yes(" Yes \n") && yes("Y"));
        assert!(!yes("") && !yes("n") && !yes("yess") && !yes("no"));
    }

    /// The prompt fits on one row with room to type, at every width down
    /// to where nothing can: at 20 columns it wrapped to the first column.
    #[test]
    fn the_answer_s_prompt_fits_the_screen() {
        use crate::cli::term::wrap::visible_width;
        assert_eq!(ask_for(80), ASK);
        for width in 12..80 {
            let ask = ask_for(width);
            assert!(2 + visible_width(ask) + 1 < width, "{width}: {ask}");
            assert!(ask.starts_with('y') && ask.ends_with('›'));
        }
        assert_ne!(ask_for(20), ASK);
    }
}
