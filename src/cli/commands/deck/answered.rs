//! Whether a claude TUI's permission request was answered in its own
//! terminal while the deck held it.
//!
//! The TUI shows its own dialog beside a running `PermissionRequest` hook
//! (2.1.332, about a second after it asks) and does not stop the hook
//! when the person answers there: the hook would wait out its bound and
//! the deck would show a request nobody waits on. The session's
//! transcript says it instead: the tool call (same tool, same input) gets
//! its `tool_result` once it was answered, allowed or denied. Read from
//! the transcript's tail, never from a terminal's text. The TUI writes its
//! transcript a moment after: a result stamped before the request came
//! (the same command's last run, written late) is no answer to it.
//!
//! An allowed call's result comes only once the tool ends (a long build):
//! meanwhile the session's registry file says it. The TUI writes `status`
//! `waiting` (`waitingFor` `permission prompt`) a moment after it asks,
//! and another status once the person answered in its dialog (2.1.332:
//! `busy`, a later `statusUpdatedAt`). A session seen waiting since the
//! request came, then no longer, was answered there.

use claudio::progress::{Change, Progress};
use serde_json::Value;
use std::collections::HashSet;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::PathBuf;

/// The most of a transcript's end read.
const TAIL: u64 = 256 * 1024;

/// One request's call, watched for in its transcript.
#[derive(Debug)]
pub struct Watch {
    transcript: PathBuf,
    tool_name: String,
    input: Value,
    /// Calls like this one that had their result when the request came in
    /// (the same command run earlier): not this request's.
    before: HashSet<String>,
    /// When the request came in (ms since the epoch): a result the TUI
    /// stamped earlier is an earlier call's, however late it was written.
    since: i64,
    /// The transcript's size and change time when last read.
    seen: Option<(u64, i64, i64)>,
    /// The registry folder (`~/.claude/sessions`) and the session's id.
    registry: Option<(PathBuf, String)>,
    /// When the session was seen waiting on a permission prompt (its
    /// `statusUpdatedAt`, 0 when it has none).
    waiting: Option<u64>,
}

impl Watch {
    /// A watch for the hook input `request` (its `transcript_path`,
    /// `tool_name`, `tool_input`); `None` when it names no transcript.
    pub fn new(request: &Value) -> Option<Watch> {
        Watch::in_registry(request, claudio::registry::default_dir().ok())
    }

    /// [`Watch::new`], the registry read in `registry`.
    fn in_registry(request: &Value, registry: Option<PathBuf>) -> Option<Watch> {
        let transcript = PathBuf::from(request.get("transcript_path")?.as_str()?);
        if !transcript.is_absolute() || transcript.extension().is_none_or(|e| e != "jsonl") {
            return None;
        }
        let mut w = Watch {
            transcript,
            tool_name: request.get("tool_name")?.as_str()?.to_owned(),
            input: request.get("tool_input").cloned().unwrap_or(Value::Null),
            before: HashSet::new(),
            since: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as i64),
            seen: None,
            registry: registry.zip(
                request
                    .get("session_id")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
            ),
            waiting: None,
        };
        if let Some(tail) = w.read() {
            w.before = w.results(&tail);
        }
        Some(w)
    }

    /// Whether the call now has its result (read again only when the file
    /// changed).
    pub fn answered(&mut self) -> bool {
        if self.left_waiting() {
            return true;
        }
        let Some(tail) = self.read() else {
            return false;
        };
        !self.results(&tail).is_subset(&self.before)
    }

    /// Whether the session's registry file, seen waiting on a permission
    /// prompt since the request came, now says another status, newer.
    fn left_waiting(&mut self) -> bool {
        let Some((dir, id)) = &self.registry else {
            return false;
        };
        let reg = claudio::registry::read_dir(dir);
        let Some(s) = reg
            .live
            .iter()
            .find(|s| s.session_id.as_deref() == Some(id.as_str()))
        else {
            return false;
        };
        let since = s
            .extra
            .get("statusUpdatedAt")
            .and_then(Value::as_u64)
            .or(s.updated_at);
        if s.status.as_deref() == Some("waiting")
            && s.waiting_for.as_deref() == Some("permission prompt")
        {
            self.waiting = self.waiting.or(Some(since.unwrap_or(0)));
            return false;
        }
        self.waiting.is_some_and(|w| since.is_none_or(|t| t > w))
    }

    /// The transcript's tail, when it changed since the last read: a
    /// regular file of ours, no link followed, never blocking.
    fn read(&mut self) -> Option<String> {
        let mut f = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC | libc::O_NOCTTY)
            .open(&self.transcript)
            .ok()?;
        let m = f.metadata().ok()?;
        if !m.is_file() || m.uid() != rustix::process::geteuid().as_raw() {
            return None;
        }
        let now = (m.len(), m.mtime(), m.mtime_nsec());
        if self.seen == Some(now) {
            return None;
        }
        self.seen = Some(now);
        let from = m.len().saturating_sub(TAIL);
        f.seek(SeekFrom::Start(from)).ok()?;
        let mut bytes = Vec::new();
        f.take(TAIL).read_to_end(&mut bytes).ok()?;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// The ids of this call's tool uses in `tail` that have their result.
    fn results(&self, tail: &str) -> HashSet<String> {
        results_of(tail, &self.tool_name, &self.input, self.since)
    }
}

/// The ids of the tool uses of `tool` with `input` in a transcript's
/// `tail` that have a `tool_result` stamped at `since` or later (a line
/// with no stamp counts): the calls the library's reading of the session
/// ([`Progress`]) saw end. A transcript's `assistant` and `user` lines are
/// the stream's; a line of another kind (or the first, cut) changes
/// nothing.
fn results_of(tail: &str, tool: &str, input: &Value, since: i64) -> HashSet<String> {
    let mut progress = Progress::default();
    let mut done = HashSet::new();
    for line in tail.lines() {
        let Ok(m) = claudio::Message::parse_str(line) else {
            continue;
        };
        progress.observe_with(&m, |change| {
            if let Change::CallEnded { call, .. } = change {
                if call.name == tool && call.input == *input && !stamped_before(line, since) {
                    done.insert(call.id);
                }
            }
        });
    }
    done
}

/// Whether the transcript line `line` carries a `timestamp` before `since`.
fn stamped_before(line: &str, since: i64) -> bool {
    #[derive(serde::Deserialize)]
    struct Stamped {
        timestamp: Option<String>,
    }
    serde_json::from_str::<Stamped>(line)
        .ok()
        .and_then(|l| l.timestamp)
        .and_then(|t| claudio::store::parse_iso_millis(&t))
        .is_some_and(|t| t < since)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(id: &str, cmd: &str) -> String {
        json!({"type": "assistant", "message": {"content": [
            {"type": "tool_use", "id": id, "name": "Bash", "input": {"command": cmd}}
        ]}})
        .to_string()
    }

    fn result(id: &str) -> String {
        json!({"type": "user", "message": {"content": [
            {"type": "tool_result", "tool_use_id": id, "content": "ok"}
        ]}})
        .to_string()
    }

    #[test]
    fn the_call_s_result_in_its_transcript_is_an_answer() {
        let d = tempfile::tempdir().unwrap();
        let t = d.path().join("s.jsonl");
        // the same command ran before, and this request's call is written
        std::fs::write(
            &t,
            format!(
                "{}\n{}\n{}\n",
                call("old", "ls"),
                result("old"),
                call("new", "ls")
            ),
        )
        .unwrap();
        let req =
            json!({"transcript_path": t, "tool_name": "Bash", "tool_input": {"command": "ls"}});
        let mut w = Watch::new(&req).unwrap();
        assert_eq!(w.transcript, t);
        assert!(
            !w.answered(),
            "the earlier run is not this request's answer"
        );
        // another call's result is not this one's
        let mut f = std::fs::OpenOptions::new().append(true).open(&t).unwrap();
        std::io::Write::write_all(&mut f, format!("{}\n", result("other")).as_bytes()).unwrap();
        assert!(!w.answered());
        std::io::Write::write_all(&mut f, format!("{}\n", result("new")).as_bytes()).unwrap();
        assert!(w.answered());
    }

    /// The same command run just before: its result, written in the
    /// transcript once the request for the next run came, stamped before
    /// it, is no answer to it; the next run's own result is.
    #[test]
    fn an_earlier_run_s_result_written_late_is_no_answer() {
        let d = tempfile::tempdir().unwrap();
        let t = d.path().join("s.jsonl");
        std::fs::write(&t, format!("{}\n", call("old", "ls"))).unwrap();
        let req =
            json!({"transcript_path": t, "tool_name": "Bash", "tool_input": {"command": "ls"}});
        let mut w = Watch::new(&req).unwrap();
        let stamped = |id: &str, at: i64| {
            let mut v: Value = serde_json::from_str(&result(id)).unwrap();
            v["timestamp"] = json!(claudio::store::format_iso_millis(at));
            v.to_string()
        };
        let mut f = std::fs::OpenOptions::new().append(true).open(&t).unwrap();
        let line = format!("{}\n{}\n", stamped("old", w.since - 100), call("new", "ls"));
        std::io::Write::write_all(&mut f, line.as_bytes()).unwrap();
        assert!(!w.answered(), "the earlier run's result is not this one's");
        let line = format!("{}\n", stamped("new", w.since + 2000));
        std::io::Write::write_all(&mut f, line.as_bytes()).unwrap();
        assert!(w.answered());
    }

    /// Allowed in the TUI's own dialog, the call's result comes only when
    /// its tool ends: the registry says it was answered meanwhile (the
    /// session, seen waiting on a permission prompt, now says another
    /// status). Busy alone, never seen waiting, is no answer.
    #[test]
    fn a_session_that_stopped_waiting_answered_it_in_its_terminal() {
        let d = tempfile::tempdir().unwrap();
        let t = d.path().join("s.jsonl");
        std::fs::write(&t, format!("{}\n", call("x", "sleep 20"))).unwrap();
        let sessions = d.path().join("sessions");
        std::fs::create_dir(&sessions).unwrap();
        let me = std::process::id();
        let entry = |status: &str, waiting: Option<&str>, at: u64| {
            let v = json!({"pid": me, "sessionId": "s1", "status": status,
                "waitingFor": waiting, "statusUpdatedAt": at});
            std::fs::write(sessions.join(format!("{me}.json")), v.to_string()).unwrap();
        };
        let req = json!({"session_id": "s1", "transcript_path": t, "tool_name": "Bash",
            "tool_input": {"command": "sleep 20"}});
        entry("busy", None, 100);
        let mut w = Watch::in_registry(&req, Some(sessions.clone())).unwrap();
        assert!(!w.answered(), "busy as it asks: not yet waiting");
        entry("waiting", Some("permission prompt"), 200);
        assert!(!w.answered(), "its dialog waits");
        entry("busy", None, 300);
        assert!(w.answered(), "answered in its dialog: the tool runs");
        // another session's status says nothing of this one
        entry("busy", None, 100);
        let other = json!({"session_id": "s2", "transcript_path": t, "tool_name": "Bash",
            "tool_input": {"command": "sleep 20"}});
        let mut w = Watch::in_registry(&other, Some(sessions.clone())).unwrap();
        entry("waiting", Some("permission prompt"), 200);
        assert!(!w.answered());
        entry("busy", None, 300);
        assert!(!w.answered());
    }

    #[test]
    fn no_transcript_or_a_link_is_never_an_answer() {
        let d = tempfile::tempdir().unwrap();
        let real = d.path().join("real.jsonl");
        std::fs::write(&real, format!("{}\n", call("x", "ls"))).unwrap();
        let link = d.path().join("s.jsonl");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let req =
            json!({"transcript_path": link, "tool_name": "Bash", "tool_input": {"command": "ls"}});
        let mut w = Watch::new(&req).unwrap();
        std::fs::write(&real, format!("{}\n{}\n", call("x", "ls"), result("x"))).unwrap();
        assert!(!w.answered(), "a link is not followed");
        assert!(
            Watch::new(&json!({"transcript_path": "rel.jsonl", "tool_name": "Bash"})).is_none()
        );
        assert!(Watch::new(&json!({"tool_name": "Bash"})).is_none());
    }
}
