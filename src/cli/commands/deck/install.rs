//! `claudio deck hooks install|status|remove`: one `PermissionRequest`
//! hook in the person's Claude Code settings (`~/.claude/settings.json`,
//! or under `$CLAUDE_CONFIG_DIR`) that runs `claudio deck hook`, so a
//! claude TUI's permission requests reach the deck.
//!
//! The file is the person's: the change is shown (a diff) before it is
//! written and asked about on a terminal; the old file is kept beside it
//! (`settings.json.claudio-backup`); the new text is the old one with our
//! entry written in, every other byte kept (as the trust record is
//! written into `~/.claude.json`, [`crate::cli::common::trust`]), written to a
//! temporary file and renamed over it, its mode kept. `remove` puts the
//! backup back when the file is still exactly what `install` made of it,
//! else takes out our entry alone.

use crate::cli::common::exit::{usage_error, Exit};
use crate::cli::common::trust::{object_start, offset, version, write_atomic};
use claudio::sanitize::Sanitizer;
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};

/// The hook event the entry is for.
const EVENT: &str = "PermissionRequest";
/// What every command of ours ends with.
const SUFFIX: &str = " deck hook";
/// The most of a settings file read.
const MAX_SETTINGS: u64 = 16 << 20;
/// The hook's timeout in the settings, in seconds: the CLI's bound on the
/// hook, a little over the hook's own wait ([`super::hook::WAIT`]) so the
/// hook always ends first, with no decision.
pub const TIMEOUT_SECS: u64 = super::hook::WAIT.as_secs() + 10;

/// The settings file the hook goes in: `$CLAUDE_CONFIG_DIR/settings.json`,
/// else `~/.claude/settings.json`.
pub fn settings_file() -> anyhow::Result<PathBuf> {
    let dir = claudio::store::default_config_dir()?;
    if dir.is_relative() {
        return Err(usage_error!(
            "CLAUDE_CONFIG_DIR is a relative path ({}): no settings file is written",
            crate::cli::common::folder::shown(&dir)
        ));
    }
    Ok(dir.join("settings.json"))
}

/// `s` quoted for `sh` when it needs it.
fn shell_quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+,:@%=".contains(&b));
    if plain {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// The hook's command line for the program at `exe`.
pub fn command_for(exe: &Path) -> String {
    format!("{}{SUFFIX}", shell_quote(&exe.to_string_lossy()))
}

/// The program a hook command of ours runs: its path, unquoted as the
/// shell reads what [`command_for`] wrote.
fn program_of(cmd: &str) -> Option<PathBuf> {
    let exe = cmd.strip_suffix(SUFFIX)?;
    let path = match exe.strip_prefix('\'').and_then(|e| e.strip_suffix('\'')) {
        Some(quoted) => quoted.replace("'\\''", "'"),
        None => exe.to_owned(),
    };
    Some(PathBuf::from(path))
}

/// Whether one of these commands of ours runs a program that is there (a
/// claudio since removed or moved runs nothing: the CLI's hook fails).
fn any_runs(ours: &[String]) -> bool {
    ours.iter()
        .filter_map(|c| program_of(c))
        .any(|p| p.is_file())
}

/// `exe` as a hook's command can name it: a settings file is JSON text, and
/// a path that is not UTF-8 would be written as another one.
pub fn nameable(exe: &Path) -> anyhow::Result<()> {
    if exe.to_str().is_none() {
        anyhow::bail!(
            "claudio's own path {} is not UTF-8: a settings file cannot name it (install claudio under a UTF-8 path)",
            crate::cli::common::folder::shown(exe)
        );
    }
    Ok(())
}

/// Whether a hook command is one of ours (any claudio's path).
fn is_our_command(cmd: &str) -> bool {
    cmd.strip_suffix(SUFFIX)
        .is_some_and(|exe| exe.trim_matches('\'').ends_with("claudio"))
}

/// Whether an element of `hooks.PermissionRequest` is an entry of ours:
/// every hook in it is a command of ours.
fn is_our_entry(v: &Value) -> bool {
    v.get("hooks")
        .and_then(Value::as_array)
        .is_some_and(|hooks| {
            !hooks.is_empty()
                && hooks.iter().all(|h| {
                    h.get("command")
                        .and_then(Value::as_str)
                        .is_some_and(is_our_command)
                })
        })
}

/// The entry written.
fn entry(command: &str) -> Value {
    json!({
        "matcher": "*",
        "hooks": [{"type": "command", "command": command, "timeout": TIMEOUT_SECS}]
    })
}

/// What is written in: the entry, a list of it, or the hooks object
/// holding that list.
#[derive(Clone, Copy)]
enum Shape {
    Entry,
    List,
    Event,
}

/// `shape` as JSON text for `command`, its keys in the order Claude
/// Code's docs show them: over lines with the lines after the first
/// indented by `indent`, else on one line.
fn written(command: &str, shape: Shape, indent: &Option<String>) -> String {
    let cmd = serde_json::to_string(command).unwrap_or_default();
    match indent {
        Some(i) => {
            let entry = format!(
                "{{\n  \"matcher\": \"*\",\n  \"hooks\": [\n    {{\n      \"type\": \"command\",\n      \"command\": {cmd},\n      \"timeout\": {TIMEOUT_SECS}\n    }}\n  ]\n}}"
            );
            let more = |s: &str| s.replace('\n', "\n  ");
            let text = match shape {
                Shape::Entry => entry,
                Shape::List => format!("[\n  {}\n]", more(&entry)),
                Shape::Event => {
                    format!("{{\n  \"{EVENT}\": [\n    {}\n  ]\n}}", more(&more(&entry)))
                }
            };
            text.replace('\n', &format!("\n{i}"))
        }
        None => {
            let entry = format!(
                "{{\"matcher\":\"*\",\"hooks\":[{{\"type\":\"command\",\"command\":{cmd},\"timeout\":{TIMEOUT_SECS}}}]}}"
            );
            match shape {
                Shape::Entry => entry,
                Shape::List => format!("[{entry}]"),
                Shape::Event => format!("{{\"{EVENT}\":[{entry}]}}"),
            }
        }
    }
}

/// Whether the person's settings hold our hook (read as `status` reads
/// them: a link followed, a regular file only). No file, or one that
/// cannot be read, holds none.
pub fn installed() -> bool {
    settings_file().is_ok_and(|path| holds_our_hook(&path))
}

/// Whether the settings file at `path` holds our hook (read as `status`
/// reads it: a link followed, a regular file only). No file, or one that
/// cannot be read, holds none.
pub fn holds_our_hook(path: &Path) -> bool {
    let Ok(target) = resolve(path) else {
        return false;
    };
    matches!(read(&target), Ok(Some((text, _))) if !our_commands(&text).is_empty())
}

/// Whether the settings file at `path` holds our hook for a program that is
/// there (a removed claudio's hook runs nothing).
pub fn holds_a_working_hook(path: &Path) -> bool {
    let Ok(target) = resolve(path) else {
        return false;
    };
    matches!(read(&target), Ok(Some((text, _))) if any_runs(&our_commands(&text)))
}

/// The settings, as JSON text for the CLI's `--settings`, that hold our
/// hook for the program at `exe` and nothing else: the entry `install`
/// writes into the person's file, given to one session alone.
pub fn settings_for_flag(exe: &Path) -> String {
    json!({"hooks": {EVENT: [entry(&command_for(exe))]}}).to_string()
}

/// What the settings file's commands of ours are, if any.
pub fn our_commands(text: &str) -> Vec<String> {
    let Ok(v) = serde_json::from_str::<Value>(text) else {
        return vec![];
    };
    v.get("hooks")
        .and_then(|h| h.get(EVENT))
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter(|e| is_our_entry(e))
                .flat_map(|e| e["hooks"].as_array().cloned().unwrap_or_default())
                .filter_map(|h| h.get("command").and_then(Value::as_str).map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// Put `item` first in the object or array `raw` (a slice of `text`):
/// the insertion point and the text inserted. `member`: the member's name
/// (an object) or `None` (an array).
fn first(
    text: &str,
    raw: &RawValue,
    member: Option<&str>,
    command: &str,
    shape: Shape,
) -> (usize, String) {
    let (at, indent) = object_start(text, raw);
    let inner = raw.get()[1..raw.get().len() - 1].trim();
    let empty = inner.is_empty();
    let value = written(command, shape, &indent);
    let body = match member {
        Some(name) => format!(
            "{}: {value}",
            serde_json::to_string(name).unwrap_or_default()
        ),
        None => value,
    };
    let comma = if empty { "" } else { "," };
    let ins = match &indent {
        Some(i) if empty => format!("\n{i}{body}\n{}", &i[..i.len() - 2]),
        Some(i) => format!("\n{i}{body}{comma}"),
        None => format!("{body}{comma}"),
    };
    (at, ins)
}

/// Why our hook could not be written into (or taken out of) a settings
/// file; the file is then left as it was.
#[derive(Debug, thiserror::Error)]
pub enum EditError {
    #[error("not JSON ({0})")]
    NotJson(serde_json::Error),
    #[error("not a JSON object")]
    NotAnObject,
    #[error("not readable ({0})")]
    Unreadable(serde_json::Error),
    #[error("its hooks are not readable ({0})")]
    HooksUnreadable(serde_json::Error),
    #[error("its hooks are not an object")]
    HooksNotAnObject,
    #[error("its hooks.{EVENT} is not a list")]
    EventNotAList,
    #[error("its hooks.{EVENT} is not readable ({0})")]
    EventUnreadable(serde_json::Error),
    #[error("the hook could not be {0} without changing more")]
    WouldChangeMore(&'static str),
}

/// `text` (a settings file; `None` or blank: none yet) with our entry for
/// `command` written in, every other byte kept.
pub fn with_hook(text: Option<&str>, command: &str) -> Result<String, EditError> {
    let text = match text {
        Some(t) if !t.trim().is_empty() => t,
        _ => {
            let hooks = written(command, Shape::Event, &Some("  ".into()));
            return Ok(format!("{{\n  \"hooks\": {hooks}\n}}\n"));
        }
    };
    let top_raw: &RawValue = serde_json::from_str(text).map_err(EditError::NotJson)?;
    if !top_raw.get().starts_with('{') {
        return Err(EditError::NotAnObject);
    }
    // a key written twice is read as JSON.parse reads it: the last
    let top: HashMap<String, &RawValue> =
        serde_json::from_str(text).map_err(EditError::Unreadable)?;
    let (at, to, ins) = match top.get("hooks").copied() {
        None => {
            let (at, ins) = first(text, top_raw, Some("hooks"), command, Shape::Event);
            (at, at, ins)
        }
        Some(h) if h.get() == "null" => {
            let at = offset(text, h);
            (
                at,
                at + h.get().len(),
                written(command, Shape::Event, &None),
            )
        }
        Some(h) if h.get().starts_with('{') => {
            let events: HashMap<String, &RawValue> =
                serde_json::from_str(h.get()).map_err(EditError::HooksUnreadable)?;
            match events.get(EVENT).copied() {
                None => {
                    let (at, ins) = first(text, h, Some(EVENT), command, Shape::List);
                    (at, at, ins)
                }
                Some(p) if p.get() == "null" => {
                    let at = offset(text, p);
                    (at, at + p.get().len(), written(command, Shape::List, &None))
                }
                Some(p) if p.get().starts_with('[') => {
                    let (at, ins) = first(text, p, None, command, Shape::Entry);
                    (at, at, ins)
                }
                Some(_) => return Err(EditError::EventNotAList),
            }
        }
        Some(_) => return Err(EditError::HooksNotAnObject),
    };
    let mut out = String::with_capacity(text.len() + ins.len());
    out.push_str(&text[..at]);
    out.push_str(&ins);
    out.push_str(&text[to..]);
    // what changed is our entry alone
    let mut want: Value = serde_json::from_str(text).map_err(EditError::NotJson)?;
    let hooks = want
        .as_object_mut()
        .ok_or(EditError::NotAnObject)?
        .entry("hooks")
        .or_insert(Value::Null);
    if hooks.is_null() {
        *hooks = Value::Object(Map::new());
    }
    let list = hooks
        .as_object_mut()
        .ok_or(EditError::HooksNotAnObject)?
        .entry(EVENT)
        .or_insert(Value::Null);
    if list.is_null() {
        *list = Value::Array(vec![]);
    }
    list.as_array_mut()
        .ok_or(EditError::EventNotAList)?
        .insert(0, entry(command));
    match serde_json::from_str::<Value>(&out) {
        Ok(got) if got == want => Ok(out),
        _ => Err(EditError::WouldChangeMore("written in")),
    }
}

/// `text` with every entry of ours taken out of `hooks.PermissionRequest`,
/// every other byte kept (a list left empty stays, as `[]`).
pub fn without_hook(text: &str) -> Result<String, EditError> {
    let mut out = text.to_owned();
    // one entry a round: at most as many rounds as the list had entries
    for _ in 0..10_000 {
        let top: HashMap<String, &RawValue> =
            serde_json::from_str(&out).map_err(EditError::NotJson)?;
        let Some(h) = top.get("hooks").filter(|h| h.get().starts_with('{')) else {
            return Ok(out);
        };
        let events: HashMap<String, &RawValue> =
            serde_json::from_str(h.get()).map_err(EditError::HooksUnreadable)?;
        let Some(list) = events.get(EVENT).filter(|p| p.get().starts_with('[')) else {
            return Ok(out);
        };
        let items: Vec<&RawValue> =
            serde_json::from_str(list.get()).map_err(EditError::EventUnreadable)?;
        let Some(k) = items.iter().position(|raw| {
            serde_json::from_str::<Value>(raw.get()).is_ok_and(|v| is_our_entry(&v))
        }) else {
            return Ok(out);
        };
        let span = |r: &RawValue| {
            let s = offset(&out, r);
            (s, s + r.get().len())
        };
        let (s, e) = span(items[k]);
        let (from, to) = if k + 1 < items.len() {
            (s, span(items[k + 1]).0)
        } else if k > 0 {
            (span(items[k - 1]).1, e)
        } else {
            let (ls, le) = span(list);
            (ls + 1, le - 1)
        };
        let before: Value = serde_json::from_str(&out).map_err(EditError::NotJson)?;
        let mut next = String::with_capacity(out.len());
        next.push_str(&out[..from]);
        next.push_str(&out[to..]);
        let mut want = before;
        if let Some(a) = want["hooks"][EVENT].as_array_mut() {
            a.remove(k);
        }
        match serde_json::from_str::<Value>(&next) {
            Ok(got) if got == want => out = next,
            _ => return Err(EditError::WouldChangeMore("taken out")),
        }
    }
    Ok(out)
}

/// The file named, a link followed (a settings file kept elsewhere, as
/// dotfiles are, is written where it is).
fn resolve(path: &Path) -> io::Result<PathBuf> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(path),
        _ => Ok(path.to_owned()),
    }
}

/// The file's text and mode (`None`: no file); an error for a FIFO, a
/// device, a folder or a file over the bound: never read, never replaced.
fn read(target: &Path) -> io::Result<Option<(String, u32)>> {
    use std::os::unix::fs::PermissionsExt;
    match std::fs::symlink_metadata(target) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
        Ok(m) => {
            let text = crate::cli::common::settings::read_small_text(target, MAX_SETTINGS)
                .ok_or_else(|| {
                    // a regular file within the bound that could not be
                    // read as text: another encoding (UTF-16, Latin-1)
                    let small_file = std::fs::metadata(target)
                        .is_ok_and(|m| m.is_file() && m.len() <= MAX_SETTINGS);
                    let why = if small_file {
                        "is not UTF-8 text (Claude Code reads its settings as UTF-8)".to_owned()
                    } else {
                        format!(
                            "is not a regular file of at most {} MiB",
                            MAX_SETTINGS >> 20
                        )
                    };
                    io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!(
                            "{} {why}; it was left as it was",
                            crate::cli::common::folder::shown(target)
                        ),
                    )
                })?;
            Ok(Some((text, m.permissions().mode() & 0o7777)))
        }
    }
}

/// The backup of `path`: `<path>.claudio-backup` beside it.
pub fn backup_of(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".claudio-backup");
    PathBuf::from(s)
}

/// The change as a unified diff, its text made inert for the terminal.
pub fn diff(path: &Path, old: &str, new: &str) -> String {
    let name = path.display().to_string();
    let d = similar::TextDiff::from_lines(old, new);
    let text = d
        .unified_diff()
        .context_radius(3)
        .header(&name, &name)
        .to_string();
    Sanitizer::visible(&text)
}

/// What `install`, `remove` and `status` do, given how to confirm.
pub enum Action {
    Install,
    Remove,
    Status,
}

/// Run a `hooks` action on the settings file `path`, for the program at
/// `exe`. `yes`: confirmed in advance; else the person is asked on the
/// terminal (`confirm`), and with no terminal it is a usage error.
pub fn run(
    action: Action,
    path: &Path,
    exe: &Path,
    yes: bool,
    confirm: &mut dyn FnMut(&str) -> io::Result<bool>,
    out: &mut dyn Write,
) -> anyhow::Result<Exit> {
    let target = resolve(path)?;
    let shown = Sanitizer::visible(&path.display().to_string());
    // before the read: a change made from here on (while the person reads
    // the diff and answers) is seen, and nothing is written over it
    let seen = version(&target)?;
    let old = read(&target)?;
    let old_text = old.as_ref().map(|(t, _)| t.as_str());
    let ours = old_text.map(our_commands).unwrap_or_default();
    match action {
        Action::Status => {
            if ours.is_empty() {
                writeln!(out, "not installed: {shown} has no PermissionRequest hook of claudio's (`claudio deck hooks install` adds it)")?;
            } else {
                for c in &ours {
                    writeln!(
                        out,
                        "installed: {shown} runs `{}` on PermissionRequest",
                        Sanitizer::visible(c)
                    )?;
                    if !any_runs(std::slice::from_ref(c)) {
                        writeln!(
                            out,
                            "but its program is gone: it runs nothing (`claudio deck hooks remove`, then `install`)"
                        )?;
                    }
                }
                let off = old_text
                    .and_then(|t| serde_json::from_str::<Value>(t).ok())
                    .and_then(|v| v.get("disableAllHooks").and_then(Value::as_bool))
                    == Some(true);
                if off {
                    writeln!(
                        out,
                        "but disableAllHooks is set there: Claude Code runs no hook"
                    )?;
                }
            }
            Ok(Exit::Success)
        }
        Action::Install => {
            if any_runs(&ours) {
                writeln!(out, "already installed in {shown}")?;
                return Ok(Exit::Success);
            }
            if !ours.is_empty() {
                anyhow::bail!(
                    "{shown} holds a claudio hook whose program is gone ({}): remove it first (claudio deck hooks remove), then install",
                    ours.join(", ")
                );
            }
            nameable(exe)?;
            let new = with_hook(old_text, &command_for(exe)).map_err(|why| {
                anyhow::anyhow!(
                    "{}: {why}; it was left as it was",
                    crate::cli::common::folder::shown(&target)
                )
            })?;
            let ok = show_and_confirm(&shown, old_text.unwrap_or(""), &new, yes, confirm, out)?;
            if !ok {
                writeln!(out, "nothing written")?;
                return Ok(Exit::Failure);
            }
            let mode = old.as_ref().map_or(0o600, |(_, m)| *m);
            unchanged_since(&target, seen)?;
            if let Some((text, m)) = &old {
                write_atomic(&backup_of(path), text.as_bytes(), *m, &|| true)?;
            }
            // a fresh home has no ~/.claude yet (the CLI makes it on its
            // first run): made here as the CLI makes it, private
            if let Some(dir) = target.parent().filter(|d| !d.as_os_str().is_empty()) {
                if old.is_none() {
                    use std::os::unix::fs::DirBuilderExt;
                    std::fs::DirBuilder::new()
                        .recursive(true)
                        .mode(0o700)
                        .create(dir)
                        .map_err(|e| {
                            anyhow::anyhow!(
                                "cannot make {}: {e}",
                                crate::cli::common::folder::shown(dir)
                            )
                        })?;
                }
            }
            write_new(&target, new.as_bytes(), mode, seen).map_err(|e| {
                anyhow::anyhow!(
                    "cannot write {}: {e}",
                    crate::cli::common::folder::shown(&target)
                )
            })?;
            match old {
                Some(_) => writeln!(
                    out,
                    "installed: {shown} changed; the old file is {}",
                    Sanitizer::visible(&backup_of(path).display().to_string())
                )?,
                None => writeln!(out, "installed: {shown} written")?,
            }
            Ok(Exit::Success)
        }
        Action::Remove => {
            let Some((text, mode)) = old.as_ref().filter(|_| !ours.is_empty()) else {
                writeln!(out, "not installed: nothing to remove from {shown}")?;
                return Ok(Exit::Success);
            };
            let backup = backup_of(path);
            let saved = read(&backup).ok().flatten();
            let command = ours[0].as_str();
            // the file is still exactly what `install` made of the backup
            // (or of no file): put that back, byte for byte
            let exact = match &saved {
                Some((b, _)) => with_hook(Some(b), command).ok().as_deref() == Some(text),
                None => with_hook(None, command).ok().as_deref() == Some(text),
            };
            let new: Option<String> = if exact {
                saved.as_ref().map(|(b, _)| b.clone())
            } else {
                Some(without_hook(text).map_err(|why| {
                    anyhow::anyhow!(
                        "{}: {why}; it was left as it was",
                        crate::cli::common::folder::shown(&target)
                    )
                })?)
            };
            let ok = show_and_confirm(
                &shown,
                text,
                new.as_deref().unwrap_or(""),
                yes,
                confirm,
                out,
            )?;
            if !ok {
                writeln!(out, "nothing written")?;
                return Ok(Exit::Failure);
            }
            match &new {
                Some(n) => write_new(&target, n.as_bytes(), *mode, seen)?,
                None => {
                    // `install` made the file: it goes, as it was before
                    unchanged_since(&target, seen)?;
                    std::fs::remove_file(&target)?;
                }
            }
            if exact && saved.is_some() {
                let _ = std::fs::remove_file(&backup);
            }
            match (&new, exact) {
                (None, _) => writeln!(out, "removed: {shown} (install had made it)")?,
                (Some(_), true) => writeln!(out, "removed: {shown} is as it was before install")?,
                (Some(_), false) => writeln!(
                    out,
                    "removed: the hook taken out of {shown}; the rest changed since install and is kept"
                )?,
            }
            Ok(Exit::Success)
        }
    }
}

/// An error when another program changed `target` since `seen`.
fn unchanged_since(target: &Path, seen: crate::cli::common::trust::Version) -> io::Result<()> {
    if version(target)? == seen {
        Ok(())
    } else {
        Err(changed(target))
    }
}

fn changed(target: &Path) -> io::Error {
    io::Error::other(format!(
        "{} changed while it was written; nothing written, run it again",
        crate::cli::common::folder::shown(target)
    ))
}

/// Write `bytes` over `target` unless another program changed it since
/// `seen`.
fn write_new(
    target: &Path,
    bytes: &[u8],
    mode: u32,
    seen: crate::cli::common::trust::Version,
) -> io::Result<()> {
    write_atomic(target, bytes, mode, &|| {
        version(target).is_ok_and(|v| v == seen)
    })
    .map_err(|e| {
        if e.kind() == io::ErrorKind::Interrupted {
            changed(target)
        } else {
            e
        }
    })
}

fn show_and_confirm(
    shown: &str,
    old: &str,
    new: &str,
    yes: bool,
    confirm: &mut dyn FnMut(&str) -> io::Result<bool>,
    out: &mut dyn Write,
) -> anyhow::Result<bool> {
    let _ = shown;
    // the diff names the file; shown whole, with escapes as text
    write!(out, "{}", diff(Path::new(shown), old, new))?;
    out.flush()?;
    if yes {
        return Ok(true);
    }
    Ok(confirm("write this change? [y/N] ")?)
}

/// Ask on the terminal (`/dev/tty`); with none, a usage error telling
/// about `--yes`.
pub fn confirm_on_tty(question: &str) -> io::Result<bool> {
    let tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty");
    let Ok(mut tty) = tty.and_then(|t| {
        if t.is_terminal() {
            Ok(t)
        } else {
            Err(io::Error::other("no terminal"))
        }
    }) else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "no terminal to confirm on: pass --yes to write it",
        ));
    };
    crate::cli::common::trust::discard_typeahead(&tty);
    tty.write_all(question.as_bytes())?;
    tty.flush()?;
    let line = crate::cli::common::trust::read_answer(&mut tty)?;
    Ok(crate::cli::common::trust::yes(&line))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `deck hooks install --yes` on `f`, what it printed left unread.
    fn install_yes(f: &Path) -> anyhow::Result<Exit> {
        run(
            Action::Install,
            f,
            Path::new(EXE),
            true,
            &mut |_| Ok(true),
            &mut Vec::new(),
        )
    }
    use std::os::unix::fs::PermissionsExt;

    const EXE: &str = "/opt/bin/claudio";

    /// A settings file as the CLI writes it (`JSON.stringify(s, null, 2)`).
    const SETTINGS: &str = r#"{
  "permissions": {
    "defaultMode": "default",
    "allow": [
      "Bash(ls:*)"
    ]
  },
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "notify-send done"
          }
        ]
      }
    ]
  },
  "model": "caf\u00e9",
  "cost": 0.12345678901234568
}
"#;

    fn go(action: Action, path: &Path) -> (Exit, String) {
        let mut out = Vec::new();
        let exit = run(
            action,
            path,
            Path::new(EXE),
            true,
            &mut |_| Ok(false),
            &mut out,
        )
        .unwrap();
        (exit, String::from_utf8(out).unwrap())
    }

    fn hooks_of(text: &str) -> Value {
        serde_json::from_str::<Value>(text).unwrap()["hooks"][EVENT].clone()
    }

    /// A fresh home: no `~/.claude` yet. It failed with a bare "No such
    /// file or directory (os error 2)", naming no file.
    #[test]
    fn install_in_a_home_with_no_claude_folder_makes_it_private() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join(".claude").join("settings.json");
        let (exit, said) = go(Action::Install, &f);
        assert_eq!(exit, Exit::Success, "{said}");
        let after = std::fs::read_to_string(&f).unwrap();
        assert_eq!(
            our_commands(&after),
            [format!("{EXE} deck hook")],
            "{after}"
        );
        let dir = std::fs::metadata(d.path().join(".claude")).unwrap();
        assert_eq!(dir.permissions().mode() & 0o777, 0o700);
        assert_eq!(
            std::fs::metadata(&f).unwrap().permissions().mode() & 0o777,
            0o600
        );
        assert!(!backup_of(&f).exists(), "no old file, no backup");
        let (_, said) = go(Action::Status, &f);
        assert!(said.starts_with("installed: "), "{said}");
    }

    #[test]
    fn install_then_remove_gives_back_every_byte() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("settings.json");
        for before in [
            SETTINGS,
            "{}",
            "{\"a\":1}",
            "{\n}\n",
            "{\"hooks\":{}}",
            "{\"hooks\":null,\"x\":[1,2]}",
            "{\"hooks\":{\"PermissionRequest\":[]}}",
            "{\"hooks\":{\"PermissionRequest\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"mine\"}]}]}}",
            "  {\"a\": 1}  \n",
            "",
        ] {
            std::fs::write(&f, before).unwrap();
            std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o640)).unwrap();
            let (exit, said) = go(Action::Install, &f);
            assert_eq!(exit, Exit::Success, "{said}");
            let after = std::fs::read_to_string(&f).unwrap();
            assert_eq!(our_commands(&after), [format!("{EXE} deck hook")], "{after}");
            assert_eq!(hooks_of(&after)[0]["hooks"][0]["timeout"], TIMEOUT_SECS);
            let mode = std::fs::metadata(&f).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o640, "the mode is kept");
            assert_eq!(std::fs::read_to_string(backup_of(&f)).unwrap(), before);
            assert!(said.contains("+"), "the change is shown: {said}");
            let (_, said) = go(Action::Status, &f);
            assert!(said.starts_with("installed: "), "{said}");
            let (exit, said) = go(Action::Remove, &f);
            assert_eq!(exit, Exit::Success);
            assert!(said.contains("as it was before install"), "{said}");
            assert_eq!(std::fs::read_to_string(&f).unwrap(), before, "byte for byte");
            assert!(!backup_of(&f).exists());
            let (_, said) = go(Action::Status, &f);
            assert!(said.starts_with("not installed"), "{said}");
            assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1, "no temporary left");
        }
    }

    #[test]
    fn the_entry_goes_in_the_file_s_layout_and_nothing_else_moves() {
        let after = with_hook(Some(SETTINGS), "/x/claudio deck hook").unwrap();
        let want = SETTINGS.replacen(
            "  \"hooks\": {\n",
            "  \"hooks\": {\n    \"PermissionRequest\": [\n      {\n        \"matcher\": \"*\",\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"/x/claudio deck hook\",\n            \"timeout\": 310\n          }\n        ]\n      }\n    ],\n",
            1,
        );
        assert_eq!(after, want);
    }

    #[test]
    fn remove_after_other_changes_takes_out_our_entry_alone() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("settings.json");
        std::fs::write(&f, SETTINGS).unwrap();
        go(Action::Install, &f);
        // the person changes something else meanwhile
        let changed = std::fs::read_to_string(&f)
            .unwrap()
            .replace("\"model\": \"caf\\u00e9\"", "\"model\": \"opus\"");
        std::fs::write(&f, &changed).unwrap();
        let (_, said) = go(Action::Remove, &f);
        assert!(said.contains("changed since install"), "{said}");
        let after = std::fs::read_to_string(&f).unwrap();
        assert!(our_commands(&after).is_empty());
        let mut want: Value = serde_json::from_str(&changed).unwrap();
        want["hooks"][EVENT] = json!([]);
        assert_eq!(serde_json::from_str::<Value>(&after).unwrap(), want);
        assert!(after.contains("\"model\": \"opus\""));
        // the person's own PermissionRequest hooks stay, before and after ours
        let theirs = r#"{"hooks":{"PermissionRequest":[{"hooks":[{"type":"command","command":"a"}]},{"hooks":[{"type":"command","command":"/y/claudio deck hook"}]},{"hooks":[{"type":"command","command":"b"}]}]}}"#;
        let out = without_hook(theirs).unwrap();
        assert_eq!(
            out,
            r#"{"hooks":{"PermissionRequest":[{"hooks":[{"type":"command","command":"a"}]},{"hooks":[{"type":"command","command":"b"}]}]}}"#
        );
        let last = r#"{"hooks":{"PermissionRequest":[{"hooks":[{"type":"command","command":"a"}]}, {"hooks":[{"type":"command","command":"'/a b/claudio' deck hook"}]}]}}"#;
        assert_eq!(
            without_hook(last).unwrap(),
            r#"{"hooks":{"PermissionRequest":[{"hooks":[{"type":"command","command":"a"}]}]}}"#
        );
    }

    #[test]
    fn a_missing_file_is_made_private_and_removed_again() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("settings.json");
        go(Action::Install, &f);
        let mode = std::fs::metadata(&f).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert!(!backup_of(&f).exists());
        go(Action::Remove, &f);
        assert!(!f.exists(), "install made it; remove takes it away");
    }

    #[test]
    fn a_link_is_followed_and_kept() {
        let d = tempfile::tempdir().unwrap();
        let real = d.path().join("dotfiles.json");
        std::fs::write(&real, "{\"a\": 1}").unwrap();
        let link = d.path().join("settings.json");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        go(Action::Install, &link);
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(
            our_commands(&std::fs::read_to_string(&real).unwrap()).len(),
            1
        );
        go(Action::Remove, &link);
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "{\"a\": 1}");
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
    }

    #[test]
    fn a_fifo_or_a_file_that_is_no_json_object_is_left_alone() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("settings.json");
        for bad in [
            "{not json",
            "// a comment\n{}",
            "[1]",
            "{\"hooks\": 3}",
            "{\"hooks\": {\"PermissionRequest\": {}}}",
        ] {
            std::fs::write(&f, bad).unwrap();
            let e = install_yes(&f);
            assert!(e.is_err(), "{bad}");
            assert_eq!(std::fs::read_to_string(&f).unwrap(), bad);
        }
        std::fs::remove_file(&f).unwrap();
        let made = std::process::Command::new("mkfifo").arg(&f).status();
        assert!(made.unwrap().success());
        let e = install_yes(&f);
        assert!(e.unwrap_err().to_string().contains("not a regular file"));
        assert!(std::os::unix::fs::FileTypeExt::is_fifo(
            &std::fs::symlink_metadata(&f).unwrap().file_type()
        ));
    }

    /// A settings file in another encoding is left as it was, and the
    /// person is told what is wrong with it (not "no regular file").
    #[test]
    fn a_file_in_another_encoding_is_left_alone_and_said_to_be_so() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("settings.json");
        for bytes in [&b"{\"model\": \"caf\xe9\"}"[..], &b"\xff\xfe{\x00}\x00"[..]] {
            std::fs::write(&f, bytes).unwrap();
            let e = install_yes(&f).unwrap_err();
            assert!(e.to_string().contains("not UTF-8"), "{e}");
            assert_eq!(std::fs::read(&f).unwrap(), bytes);
        }
    }

    #[test]
    fn no_is_nothing_written_and_the_change_is_shown_inert() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("settings.json");
        let before = "{\"x\": \"\\u001b]52;c;QQ==\\u0007\"}";
        std::fs::write(&f, before).unwrap();
        let mut out = Vec::new();
        let mut asked = 0;
        let exit = run(
            Action::Install,
            &f,
            Path::new("/tmp/evil\u{1b}]0;x\u{7}/claudio"),
            false,
            &mut |_| {
                asked += 1;
                Ok(false)
            },
            &mut out,
        )
        .unwrap();
        assert_eq!((exit, asked), (Exit::Failure, 1));
        assert_eq!(std::fs::read_to_string(&f).unwrap(), before);
        let said = String::from_utf8(out).unwrap();
        assert!(!said.contains('\u{1b}'), "{said:?}");
        assert!(said.contains("nothing written"));
    }

    /// Claude Code (or the person) writes the file while `install` or
    /// `remove` asks: what they wrote is kept, and nothing of ours is
    /// written over it.
    #[test]
    fn a_change_made_while_the_question_is_asked_is_never_lost() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("settings.json");
        let theirs = "{\"model\": \"opus\", \"theme\": \"dark\"}";
        for action in [Action::Install, Action::Remove] {
            let before = match action {
                Action::Remove => {
                    with_hook(Some("{\"a\": 1}"), &format!("{EXE} deck hook")).unwrap()
                }
                _ => "{\"a\": 1}".to_owned(),
            };
            std::fs::write(&f, &before).unwrap();
            let mut out = Vec::new();
            let f2 = f.clone();
            let r = run(
                action,
                &f,
                Path::new(EXE),
                false,
                &mut |_| {
                    // another program writes the file meanwhile
                    std::fs::write(&f2, theirs).unwrap();
                    Ok(true)
                },
                &mut out,
            );
            assert!(r.is_err(), "{}", String::from_utf8_lossy(&out));
            assert!(
                r.unwrap_err().to_string().contains("changed while"),
                "the person is told why"
            );
            assert_eq!(
                std::fs::read_to_string(&f).unwrap(),
                theirs,
                "their write is kept"
            );
            let _ = std::fs::remove_file(backup_of(&f));
        }
    }

    #[test]
    fn commands_are_quoted_for_the_shell() {
        assert_eq!(
            command_for(Path::new("/usr/bin/claudio")),
            "/usr/bin/claudio deck hook"
        );
        let odd = command_for(Path::new("/home/o'neil/my bin/claudio"));
        assert_eq!(odd, "'/home/o'\\''neil/my bin/claudio' deck hook");
        assert!(is_our_command(&odd));
        assert!(!is_our_command("rm -rf / deck hook"));
    }

    /// Installing beside a hook whose program is gone (a claudio since
    /// removed): said, and nothing written. It said "already installed",
    /// and the deck was never asked.
    #[test]
    fn install_beside_a_removed_claudio_s_hook_says_so() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("settings.json");
        let stale = with_hook(None, &command_for(Path::new("/gone/bin/claudio"))).unwrap();
        std::fs::write(&f, &stale).unwrap();
        let e = install_yes(&f).unwrap_err().to_string();
        assert!(e.contains("whose program is gone"), "{e}");
        assert!(e.contains("/gone/bin/claudio"), "{e}");
        assert_eq!(std::fs::read_to_string(&f).unwrap(), stale);
        // one whose program is there: installed already
        let exe = d.path().join("claudio");
        std::fs::write(&exe, "").unwrap();
        let live = with_hook(None, &command_for(&exe)).unwrap();
        std::fs::write(&f, &live).unwrap();
        let mut out = Vec::new();
        let exit = run(Action::Install, &f, &exe, true, &mut |_| Ok(true), &mut out).unwrap();
        assert_eq!(exit, Exit::Success);
        assert!(String::from_utf8(out)
            .unwrap()
            .starts_with("already installed"));
        // status says which runs nothing
        std::fs::write(&f, &stale).unwrap();
        let mut out = Vec::new();
        run(Action::Status, &f, &exe, true, &mut |_| Ok(true), &mut out).unwrap();
        let said = String::from_utf8(out).unwrap();
        assert!(said.contains("its program is gone"), "{said}");
        std::fs::write(&f, &live).unwrap();
        let mut out = Vec::new();
        run(Action::Status, &f, &exe, true, &mut |_| Ok(true), &mut out).unwrap();
        let said = String::from_utf8(out).unwrap();
        assert!(!said.contains("gone"), "{said}");
    }
}
