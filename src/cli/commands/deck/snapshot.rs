//! `claudio deck --json`: one snapshot of the running sessions, for
//! scripts. The claude CLIs' registry files, each with its state (from the
//! file, else the transcript's tail), the stale ones and the files passed
//! over, sorted as the deck shows them: waiting for you, working, done.

use crate::cli::common::exit::Exit;
use claudio::registry::{self, LiveSession, Registry, SessionState};
use serde_json::{json, Value};
use std::io::Write;
use std::path::Path;

/// The API error the last turn of `session` ended with (the CLI's
/// `isApiErrorMessage` answer: `Credit balance is too low` for a 402), read from its
/// transcript's last 64 KiB (no link followed): a session whose turn ended
/// so is not one that finished its work.
pub fn last_error(config_dir: &Path, session: &LiveSession) -> Option<String> {
    use std::io::{Read, Seek, SeekFrom};
    use std::os::unix::fs::OpenOptionsExt;
    const TAIL: u64 = 64 * 1024;
    let p = registry::transcript_path(config_dir, session)?;
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(p)
        .ok()?;
    if !f.metadata().ok()?.is_file() {
        return None;
    }
    let len = f.metadata().ok()?.len();
    f.seek(SeekFrom::Start(len.saturating_sub(TAIL))).ok()?;
    let mut raw = Vec::new();
    f.take(TAIL).read_to_end(&mut raw).ok()?;
    error_of_tail(&String::from_utf8_lossy(&raw))
}

/// The API error the last conversation line of a transcript's tail is, if
/// it is one.
fn error_of_tail(tail: &str) -> Option<String> {
    for line in tail.lines().rev() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if v.get("isSidechain").and_then(Value::as_bool) == Some(true) {
            continue;
        }
        match v.get("type").and_then(Value::as_str) {
            Some("assistant") => {
                if v.get("isApiErrorMessage").and_then(Value::as_bool) != Some(true) {
                    return None;
                }
                let content = v.get("message").and_then(|m| m.get("content"));
                let text = match content {
                    Some(Value::String(t)) => t.clone(),
                    Some(Value::Array(blocks)) => blocks
                        .iter()
                        .filter_map(|b| b.get("text").and_then(Value::as_str))
                        .collect::<Vec<_>>()
                        .join(" "),
                    _ => String::new(),
                };
                let text = text.trim();
                return Some(if text.is_empty() { "API error" } else { text }.to_owned());
            }
            Some("user") => return None,
            _ => continue,
        }
    }
    None
}

/// The order rows are shown in: needs you, working, done.
fn rank(s: &SessionState) -> u8 {
    match s {
        SessionState::Waiting { .. } => 0,
        SessionState::Working => 1,
        _ => 2,
    }
}

/// The state's name in the snapshot.
fn state_name(s: &SessionState) -> &'static str {
    match s {
        SessionState::Waiting { .. } => "waiting",
        SessionState::Working => "working",
        SessionState::Idle => "idle",
        _ => "unknown",
    }
}

fn row(config_dir: &Path, s: &LiveSession, state: &SessionState) -> Value {
    let waiting_for = match state {
        SessionState::Waiting { for_what } => Some(for_what.clone()),
        _ => None,
    };
    json!({
        "pid": s.pid,
        "sessionId": s.session_id,
        "cwd": s.cwd,
        "kind": s.kind,
        "entrypoint": s.entrypoint,
        "program": super::view::Kind::of_process(s.kind.as_deref(), s.entrypoint.as_deref(), s.pid)
            .words(),
        "name": s.name,
        "tmux": s.tmux,
        "version": s.version,
        "status": s.status,
        "state": state_name(state),
        "waitingFor": waiting_for,
        "error": matches!(state, SessionState::Idle)
            .then(|| last_error(config_dir, s))
            .flatten(),
        "updatedAt": s.updated_at,
        "transcript": registry::transcript_path(config_dir, s),
        "file": s.file,
    })
}

/// The snapshot of `reg`, the registry read in the store at `config_dir`.
pub fn snapshot(config_dir: &Path, reg: &Registry) -> Value {
    let mut rows: Vec<(SessionState, &LiveSession)> = reg
        .live
        .iter()
        .map(|s| (registry::state(config_dir, s), s))
        .collect();
    rows.sort_by_key(|(st, s)| (rank(st), std::cmp::Reverse(s.updated_at), s.pid));
    json!({
        "sessions": rows.iter().map(|(st, s)| row(config_dir, s, st)).collect::<Vec<_>>(),
        "stale": reg.stale.iter().map(|(s, why)| json!({
            "pid": s.pid,
            "sessionId": s.session_id,
            "file": s.file,
            "why": why,
        })).collect::<Vec<_>>(),
        "problems": reg.problems,
    })
}

/// The Claude folder, refused when relative.
pub fn config_dir() -> anyhow::Result<std::path::PathBuf> {
    let config_dir = claudio::store::default_config_dir()?;
    if config_dir.is_relative() {
        return Err(crate::cli::common::exit::usage_error!(
            "CLAUDE_CONFIG_DIR is a relative path ({}): not read",
            crate::cli::common::folder::shown(&config_dir)
        ));
    }
    Ok(config_dir)
}

/// Print the snapshot of the registry in `$CLAUDE_CONFIG_DIR` (or
/// `~/.claude`), with the requests a running deck holds.
pub fn run() -> anyhow::Result<Exit> {
    let config_dir = config_dir()?;
    let reg = registry::read_dir(&config_dir.join("sessions"));
    let mut snap = snapshot(&config_dir, &reg);
    with_pending(
        &mut snap,
        crate::cli::requests::socket::ask_list(&crate::cli::requests::socket::path()),
    );
    let mut out = std::io::stdout().lock();
    writeln!(out, "{snap}")?;
    Ok(Exit::Success)
}

/// The requests a running deck holds, in the snapshot: `pending` (empty
/// when none) and `deck`, whether a full-screen deck answered.
pub fn with_pending(snap: &mut Value, pending: Option<Value>) {
    snap["deck"] = Value::Bool(pending.is_some());
    snap["pending"] = pending.unwrap_or_else(|| json!([]));
    let pending = snap["pending"].clone();
    if let Some(rows) = snap["sessions"].as_array_mut() {
        mark_held(rows, pending.as_array().map_or(&[], Vec::as_slice));
    }
}

/// A session whose permission request a deck holds waits for the person,
/// whatever its registry file says yet (the claude TUI says `busy` while
/// its hook runs, until its own dialog shows beside it): its row says
/// `waiting` for a `permission prompt`, and goes first.
pub fn mark_held(rows: &mut [Value], pending: &[Value]) {
    for row in rows.iter_mut() {
        let held = row["sessionId"].is_string()
            && pending.iter().any(|p| p["sessionId"] == row["sessionId"]);
        if held && row["state"] != "waiting" {
            row["state"] = json!("waiting");
            row["waitingFor"] = json!("permission prompt");
        }
    }
    // (stable: the order among the waiting ones, and the rest, is kept)
    rows.sort_by_key(|r| match r["state"].as_str() {
        Some("waiting") => 0,
        Some("working") => 1,
        _ => 2,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The last conversation line of the tail says whether the turn ended
    /// in an API error: an error answer is one (its text), a later prompt
    /// or a well-ended answer is none, a sub-agent's line or a line that is
    /// not of the conversation is passed over.
    #[test]
    fn the_error_is_the_last_conversation_line_s_when_it_is_an_api_error() {
        let error = r#"{"type":"assistant","isApiErrorMessage":true,"message":{"role":"assistant","content":[{"type":"text","text":"Credit balance is too low"}]}}"#;
        let fine = r#"{"type":"assistant","message":{"role":"assistant","stop_reason":"end_turn","content":[{"type":"text","text":"Done."}]}}"#;
        let prompt = r#"{"type":"user","message":{"role":"user","content":"again"}}"#;
        let side = r#"{"type":"assistant","isSidechain":true,"message":{"content":[]}}"#;
        let other = r#"{"type":"cost-state","totalCostUSD":0}"#;
        let tail = |lines: &[&str]| error_of_tail(&lines.join("\n"));
        assert_eq!(
            tail(&["half a line", prompt, error, side, other]).as_deref(),
            Some("Credit balance is too low")
        );
        assert_eq!(tail(&[error, prompt]), None);
        assert_eq!(tail(&[error, fine]), None);
        assert_eq!(tail(&[fine]), None);
        assert_eq!(tail(&[]), None);
        let bare = r#"{"type":"assistant","isApiErrorMessage":true,"message":{"content":[]}}"#;
        assert_eq!(tail(&[bare]).as_deref(), Some("API error"));
    }

    /// A session whose request a deck holds is `waiting` in the snapshot,
    /// first, whatever its file says yet; another session's is not.
    #[test]
    fn a_held_session_is_waiting_whatever_its_file_says_yet() {
        let mut snap = json!({"sessions": [
            {"pid": 1, "sessionId": "a", "state": "working", "waitingFor": null},
            {"pid": 2, "sessionId": "b", "state": "working", "waitingFor": null},
            {"pid": 3, "sessionId": null, "state": "idle", "waitingFor": null},
        ]});
        with_pending(
            &mut snap,
            Some(json!([{"id": 1, "sessionId": "b"}, {"id": 2, "sessionId": null}])),
        );
        let rows = snap["sessions"].as_array().unwrap();
        let states: Vec<(u64, &str)> = rows
            .iter()
            .map(|r| (r["pid"].as_u64().unwrap(), r["state"].as_str().unwrap()))
            .collect();
        assert_eq!(states, [(2, "waiting"), (1, "working"), (3, "idle")]);
        assert_eq!(rows[0]["waitingFor"], "permission prompt");
    }

    #[test]
    fn each_row_says_which_program_it_is() {
        let d = tempfile::tempdir().unwrap();
        let me = std::process::id();
        let row = |entrypoint: &str| {
            let f = d.path().join(format!("{me}.json"));
            std::fs::write(
                &f,
                format!(r#"{{"pid":{me},"cwd":"/w","kind":"interactive","entrypoint":"{entrypoint}","status":"idle"}}"#),
            )
            .unwrap();
            let reg = registry::read_dir(d.path());
            snapshot(d.path(), &reg)["sessions"][0]["program"].clone()
        };
        // the CLI a claudio chat or ask starts says `sdk-rust`
        assert_eq!(row("sdk-rust"), "claudio chat");
        assert_eq!(row("cli"), "claude TUI");
    }
}
