//! The claude CLI's registry of running sessions.
//!
//! Each running `claude` (the TUI, `claude -p`, a background agent) writes
//! `~/.claude/sessions/<pid>.json` (under `$CLAUDE_CONFIG_DIR` when set)
//! and removes it when it exits. The file says which session it runs,
//! where, in which tmux pane, and whether it waits for the person: while a
//! permission dialog is open, `"status": "waiting"` and `"waitingFor":
//! "permission prompt"`. Observed with the CLI 2.1.332; the format is
//! undocumented, so every field is optional and the ones not known here
//! are kept as they were ([`LiveSession::extra`]).
//!
//! The folder is read as data someone else may have written: a FIFO, a
//! device, a symbolic link, a huge file, another user's file or malformed
//! JSON is named as a [`Problem`], never followed, read or waited on. A
//! file whose process is gone (or whose pid now belongs to another
//! process: its start time differs from `procStart`) is stale.
//!
//! ```no_run
//! let dir = claudio::registry::default_dir()?;
//! let reg = claudio::registry::read_dir(&dir);
//! for s in &reg.live {
//!     println!("{} {:?} {:?}", s.pid, s.cwd, s.status);
//! }
//! for p in &reg.problems {
//!     eprintln!("{}: {}", p.path.display(), p.reason);
//! }
//! # Ok::<(), claudio::store::StoreError>(())
//! ```

use serde::Serialize;
use serde_json::{Map, Value};
use std::fs::File;
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The most bytes of one registry file read: the CLI's are under 1 KiB.
pub const MAX_ENTRY: u64 = 64 * 1024;

/// The most registry files looked at in one reading of the folder.
pub const MAX_ENTRIES: usize = 4096;

/// The registry folder: `$CLAUDE_CONFIG_DIR/sessions`, else
/// `~/.claude/sessions`.
pub fn default_dir() -> crate::store::StoreResult<PathBuf> {
    Ok(crate::store::default_config_dir()?.join("sessions"))
}

/// One running CLI, as its registry file describes it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct LiveSession {
    /// The file read.
    pub file: PathBuf,
    /// The CLI's process id.
    pub pid: u32,
    /// The session it runs (its transcript is `<sessionId>.jsonl`).
    pub session_id: Option<String>,
    /// The folder it runs in.
    pub cwd: Option<String>,
    /// The CLI's version.
    pub version: Option<String>,
    /// `interactive` (the TUI), ...
    pub kind: Option<String>,
    /// `cli`, ...
    pub entrypoint: Option<String>,
    /// The session's name.
    pub name: Option<String>,
    /// The tmux pane it runs in (`0:@0.%0`).
    pub tmux: Option<String>,
    /// `busy`, `shell`, `idle` or `waiting`.
    pub status: Option<String>,
    /// While `waiting`: what for (`permission prompt`).
    pub waiting_for: Option<String>,
    /// When the file was last written, in ms since the epoch.
    pub updated_at: Option<u64>,
    /// When the session started, in ms since the epoch.
    pub started_at: Option<u64>,
    /// The process's start time as `/proc/<pid>/stat` says it (its 22nd
    /// field, in clock ticks since boot): tells a reused pid.
    pub proc_start: Option<String>,
    /// Every other field, and a known one of an unexpected type, as it was.
    pub extra: Map<String, Value>,
}

/// Why a registry file describes no running process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum Stale {
    /// No process has the pid (or only a zombie).
    Gone,
    /// A process has the pid, but it started at another time than the
    /// file says: the pid was reused.
    Reused,
}

/// A registry file passed over, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Problem {
    /// The file.
    pub path: PathBuf,
    /// Why it was not read, in words.
    pub reason: String,
}

/// What the registry folder holds.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Registry {
    /// The sessions whose process runs, by pid.
    pub live: Vec<LiveSession>,
    /// The files whose process is gone, by pid.
    pub stale: Vec<(LiveSession, Stale)>,
    /// The files passed over (a link, a FIFO, another user's, too big, not
    /// JSON, ...), by name.
    pub problems: Vec<Problem>,
}

/// Read the registry folder `dir`: every `<pid>.json` in it, checked for
/// liveness. A missing folder is an empty registry; one that cannot be
/// listed is one problem. Never blocks on a file.
pub fn read_dir(dir: &Path) -> Registry {
    let mut reg = Registry::default();
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return reg,
        Err(e) => {
            reg.problems.push(Problem {
                path: dir.to_owned(),
                reason: format!("cannot be listed: {e}"),
            });
            return reg;
        }
    };
    let mut seen = 0usize;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            // named, never skipped without a word (an entry's name is
            // `<pid>.json`: this one is none the CLI wrote)
            if std::os::unix::ffi::OsStrExt::as_bytes(name.as_os_str()).ends_with(b".json") {
                reg.problems.push(Problem {
                    path: entry.path(),
                    reason: "a name that is not UTF-8, not read".into(),
                });
            }
            continue;
        };
        // `<pid>.<hash>.key` files and the CLI's temporary files are not
        // entries
        let Some(stem) = name.strip_suffix(".json") else {
            continue;
        };
        if stem.starts_with('.') {
            continue;
        }
        seen += 1;
        if seen > MAX_ENTRIES {
            reg.problems.push(Problem {
                path: dir.to_owned(),
                reason: format!("holds more than {MAX_ENTRIES} entries; the rest were not read"),
            });
            break;
        }
        match read_entry(&entry.path()) {
            Err(p) => reg.problems.push(p),
            Ok(s) => match liveness(&s) {
                None => reg.live.push(s),
                Some(why) => reg.stale.push((s, why)),
            },
        }
    }
    reg.live.sort_by_key(|s| s.pid);
    reg.stale.sort_by_key(|(s, _)| s.pid);
    reg.problems.sort_by(|a, b| a.path.cmp(&b.path));
    reg
}

/// What a file that is no regular file is, in words.
fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else {
        "not a regular file"
    }
}

/// Read one registry file. It must be a regular file (a link is not
/// followed), the user's own, at most [`MAX_ENTRY`] bytes, a JSON object
/// with a `pid` that is the one its name says.
pub fn read_entry(path: &Path) -> Result<LiveSession, Problem> {
    let problem = |reason: String| Problem {
        path: path.to_owned(),
        reason,
    };
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(
            (rustix::fs::OFlags::NOFOLLOW
                | rustix::fs::OFlags::NONBLOCK
                | rustix::fs::OFlags::CLOEXEC
                | rustix::fs::OFlags::NOCTTY)
                .bits() as i32,
        )
        .open(path)
        .map_err(|e| {
            if rustix::io::Errno::from_io_error(&e) == Some(rustix::io::Errno::LOOP) {
                problem("a symbolic link, not followed".into())
            } else {
                problem(format!("cannot be opened: {e}"))
            }
        })?;
    let meta = file
        .metadata()
        .map_err(|e| problem(format!("cannot be read: {e}")))?;
    if !meta.is_file() {
        return Err(problem(format!("{}, not read", kind_of(&meta))));
    }
    let me = rustix::process::geteuid().as_raw();
    if meta.uid() != me {
        return Err(problem(format!(
            "owned by uid {}, not by you (uid {me}); not read",
            meta.uid()
        )));
    }
    if meta.len() > MAX_ENTRY {
        return Err(problem(format!(
            "larger than {} KiB, not read",
            MAX_ENTRY / 1024
        )));
    }
    let bytes = read_bounded(file).map_err(|e| problem(format!("cannot be read: {e}")))?;
    if bytes.len() as u64 > MAX_ENTRY {
        return Err(problem(format!(
            "larger than {} KiB, not read",
            MAX_ENTRY / 1024
        )));
    }
    let value: Value =
        serde_json::from_slice(&bytes).map_err(|e| problem(format!("not JSON ({e})")))?;
    let Value::Object(map) = value else {
        return Err(problem("not a JSON object".into()));
    };
    let named: Option<u32> = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_suffix(".json"))
        .and_then(|n| n.parse().ok());
    let session = from_map(path, map).ok_or_else(|| problem("has no valid pid".into()))?;
    if named != Some(session.pid) {
        return Err(problem(format!(
            "holds pid {} but is not named {}.json",
            session.pid, session.pid
        )));
    }
    Ok(session)
}

fn read_bounded(file: File) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    file.take(MAX_ENTRY + 1).read_to_end(&mut out)?;
    Ok(out)
}

/// The typed session from a registry file's fields; a known field of an
/// unexpected type stays in `extra`. `None`: it has no valid pid.
fn from_map(path: &Path, mut map: Map<String, Value>) -> Option<LiveSession> {
    let pid = match map.get("pid").and_then(Value::as_u64) {
        Some(p) if p > 1 && p <= i32::MAX as u64 => p as u32,
        _ => return None,
    };
    map.remove("pid");
    let mut text = |key: &str| match map.get(key) {
        Some(Value::String(_)) => match map.remove(key) {
            Some(Value::String(s)) => Some(s),
            _ => None,
        },
        _ => None,
    };
    let session_id = text("sessionId");
    let cwd = text("cwd");
    let version = text("version");
    let kind = text("kind");
    let entrypoint = text("entrypoint");
    let name = text("name");
    let tmux = text("tmux");
    let status = text("status");
    let waiting_for = text("waitingFor");
    let proc_start = text("procStart");
    let mut number = |key: &str| {
        let n = map.get(key).and_then(Value::as_u64)?;
        map.remove(key);
        Some(n)
    };
    let updated_at = number("updatedAt");
    let started_at = number("startedAt");
    Some(LiveSession {
        file: path.to_owned(),
        pid,
        session_id,
        cwd,
        version,
        kind,
        entrypoint,
        name,
        tmux,
        status,
        waiting_for,
        updated_at,
        started_at,
        proc_start,
        extra: map,
    })
}

/// `None` when the session's process runs (its start time is the one the
/// file says, when it says one); else why not.
pub fn liveness(session: &LiveSession) -> Option<Stale> {
    liveness_in(Path::new("/proc"), session)
}

/// [`liveness`] with the process table at `proc` (tests).
fn liveness_in(proc: &Path, session: &LiveSession) -> Option<Stale> {
    match proc_stat(proc, session.pid) {
        Some(stat) => {
            let after = stat.rfind(')').map_or("", |i| stat[i + 1..].trim_start());
            let fields: Vec<&str> = after.split(' ').collect();
            // field 3 (the state) is the first after the command's name
            if fields.first() == Some(&"Z") || fields.first() == Some(&"X") {
                return Some(Stale::Gone);
            }
            match (&session.proc_start, fields.get(19)) {
                (Some(want), Some(got)) if want != got => Some(Stale::Reused),
                _ => None,
            }
        }
        // no /proc entry: a process table without /proc says by a signal 0
        None if proc.join("self").exists() => Some(Stale::Gone),
        None => {
            let pid = rustix::process::Pid::from_raw(session.pid as i32)?;
            match rustix::process::test_kill_process(pid) {
                Err(rustix::io::Errno::SRCH) => Some(Stale::Gone),
                _ => None,
            }
        }
    }
}

/// `/proc/<pid>/stat`, at most 4 KiB.
fn proc_stat(proc: &Path, pid: u32) -> Option<String> {
    let f = File::open(proc.join(pid.to_string()).join("stat")).ok()?;
    let mut s = String::new();
    f.take(4096).read_to_string(&mut s).ok()?;
    Some(s)
}

/// What a session is doing, for the person looking at many.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "state")]
#[non_exhaustive]
pub enum SessionState {
    /// It waits for the person: `for_what` says for what (`permission
    /// prompt`).
    Waiting {
        /// What it waits for, as the CLI says it.
        #[serde(rename = "waitingFor")]
        for_what: String,
    },
    /// It works: a turn is running (a tool, a shell command, the model).
    Working,
    /// Its turn is over: it waits for a prompt.
    Idle,
    /// Nothing says (no status, no transcript yet).
    Unknown,
}

impl SessionState {
    /// The state of `session`: its registry file's `status` when it says
    /// one, else the last message of its transcript's tail (`tail`: the
    /// last bytes of the transcript, which may start mid-line). Never from
    /// a terminal's text.
    pub fn of(session: &LiveSession, tail: Option<&str>) -> SessionState {
        match session.status.as_deref() {
            Some("waiting") => SessionState::Waiting {
                for_what: session
                    .waiting_for
                    .clone()
                    .unwrap_or_else(|| "input".to_owned()),
            },
            Some("busy") | Some("shell") => SessionState::Working,
            Some("idle") => SessionState::Idle,
            _ => tail.map_or(SessionState::Unknown, from_tail),
        }
    }
}

/// The state the last conversation line of a transcript's tail says: an
/// assistant message that ended its turn is idle; one asking for a tool, a
/// tool's result or a prompt means a turn is running.
fn from_tail(tail: &str) -> SessionState {
    for line in tail.lines().rev() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if v.get("isSidechain").and_then(Value::as_bool) == Some(true) {
            continue;
        }
        match v.get("type").and_then(Value::as_str) {
            Some("assistant") => {
                let stop = v
                    .get("message")
                    .and_then(|m| m.get("stop_reason"))
                    .and_then(Value::as_str);
                return match stop {
                    Some("end_turn")
                    | Some("stop_sequence")
                    | Some("max_tokens")
                    | Some("refusal") => SessionState::Idle,
                    _ => SessionState::Working,
                };
            }
            Some("user") => return SessionState::Working,
            _ => continue,
        }
    }
    SessionState::Unknown
}

/// The transcript of `session` in the store at `config_dir`
/// (`projects/<folder of its cwd>/<sessionId>.jsonl`), if its registry
/// file names both and the id is a session id.
pub fn transcript_path(config_dir: &Path, session: &LiveSession) -> Option<PathBuf> {
    let id = session.session_id.as_deref()?;
    if !crate::store::is_uuid(id) {
        return None;
    }
    let cwd = session.cwd.as_deref()?;
    Some(
        config_dir
            .join("projects")
            .join(crate::store::project_folder_name(cwd))
            .join(format!("{id}.jsonl")),
    )
}

/// The state of `session`, reading its transcript's tail in the store at
/// `config_dir` only when its registry file says no status (a bounded
/// read: the last 64 KiB, no link followed).
pub fn state(config_dir: &Path, session: &LiveSession) -> SessionState {
    let from_file = SessionState::of(session, None);
    if from_file != SessionState::Unknown {
        return from_file;
    }
    let tail = transcript_path(config_dir, session)
        .and_then(|p| crate::store::headtail::read_plain(&p).ok().flatten())
        .map(|ht| ht.tail);
    SessionState::of(session, tail.as_deref())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    /// A registry file as the CLI 2.1.332 writes it (protocol.md §11).
    fn entry(pid: u32) -> String {
        format!(
            r#"{{"pid":{pid},"sessionId":"0b5e2d0e-2a47-4b55-9c1e-3f2b3c4d5e6f","cwd":"/home/me/app","startedAt":1764850000000,"procStart":"123456","version":"2.1.332","peerProtocol":1,"peerFeatures":["a"],"kind":"interactive","entrypoint":"cli","pidDomain":"x","tmux":"0:@0.%0","messagingSocketPath":"/tmp/cc-socks/{pid}.sock","name":"fix the bug","nameSource":"auto","status":"waiting","waitingFor":"permission prompt","updatedAt":1764850001000,"statusUpdatedAt":1764850001000}}"#
        )
    }

    fn me() -> u32 {
        std::process::id()
    }

    /// Our own start time, as /proc says it.
    fn my_start() -> String {
        let stat = proc_stat(Path::new("/proc"), me()).unwrap();
        let after = &stat[stat.rfind(')').unwrap() + 2..];
        after.split(' ').nth(19).unwrap().to_owned()
    }

    /// A file whose name is not UTF-8 is named as passed over, never
    /// skipped without a word.
    #[test]
    fn a_name_that_is_no_text_is_named_as_passed_over() {
        use std::os::unix::ffi::OsStrExt;
        let d = tempfile::tempdir().unwrap();
        let odd = d.path().join(std::ffi::OsStr::from_bytes(b"42\xff.json"));
        std::fs::write(&odd, entry(42)).unwrap();
        // not an entry at all: no `.json` (the CLI's `<pid>.<hash>.key`)
        std::fs::write(d.path().join(std::ffi::OsStr::from_bytes(b"\xff.key")), "x").unwrap();
        let reg = read_dir(d.path());
        assert!(reg.live.is_empty() && reg.stale.is_empty());
        assert_eq!(reg.problems.len(), 1, "{:?}", reg.problems);
        assert_eq!(reg.problems[0].path, odd);
        assert!(
            reg.problems[0].reason.contains("not UTF-8"),
            "{:?}",
            reg.problems
        );
    }

    #[test]
    fn a_file_as_the_cli_writes_it_is_read_whole() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("4242.json");
        std::fs::write(&p, entry(4242)).unwrap();
        let s = read_entry(&p).unwrap();
        assert_eq!(s.pid, 4242);
        assert_eq!(
            s.session_id.as_deref(),
            Some("0b5e2d0e-2a47-4b55-9c1e-3f2b3c4d5e6f")
        );
        assert_eq!(s.cwd.as_deref(), Some("/home/me/app"));
        assert_eq!(s.version.as_deref(), Some("2.1.332"));
        assert_eq!(s.kind.as_deref(), Some("interactive"));
        assert_eq!(s.entrypoint.as_deref(), Some("cli"));
        assert_eq!(s.name.as_deref(), Some("fix the bug"));
        assert_eq!(s.tmux.as_deref(), Some("0:@0.%0"));
        assert_eq!(s.status.as_deref(), Some("waiting"));
        assert_eq!(s.waiting_for.as_deref(), Some("permission prompt"));
        assert_eq!(s.updated_at, Some(1764850001000));
        assert_eq!(s.started_at, Some(1764850000000));
        assert_eq!(s.proc_start.as_deref(), Some("123456"));
        // the fields not known here are kept
        let mut keys: Vec<&str> = s.extra.keys().map(String::as_str).collect();
        keys.sort();
        assert_eq!(
            keys,
            [
                "messagingSocketPath",
                "nameSource",
                "peerFeatures",
                "peerProtocol",
                "pidDomain",
                "statusUpdatedAt"
            ]
        );
        // a known field of an unexpected type is kept too, not a failure
        std::fs::write(&p, r#"{"pid":4242,"status":7,"cwd":null}"#).unwrap();
        let s = read_entry(&p).unwrap();
        assert_eq!(s.status, None);
        assert_eq!(s.extra["status"], 7);
        assert!(s.extra["cwd"].is_null());
    }

    fn reason(p: &Path) -> String {
        read_entry(p).unwrap_err().reason
    }

    #[test]
    fn a_symbolic_link_is_named_not_followed() {
        let d = tempfile::tempdir().unwrap();
        let real = d.path().join("real");
        std::fs::write(&real, entry(4242)).unwrap();
        let link = d.path().join("4242.json");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        assert!(reason(&link).contains("symbolic link"), "{}", reason(&link));
        // a link to /dev/zero is never read
        let zero = d.path().join("4243.json");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        assert!(reason(&zero).contains("symbolic link"));
    }

    #[test]
    fn a_fifo_is_named_at_once_not_waited_on() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("4242.json");
        let made = std::process::Command::new("mkfifo").arg(&p).status();
        assert!(made.unwrap().success());
        assert_eq!(reason(&p), "a FIFO, not read");
        let reg = read_dir(d.path());
        assert_eq!(reg.problems.len(), 1);
        assert_eq!(reg.problems[0].path, p);
    }

    #[test]
    fn a_device_or_directory_is_named() {
        // a device can only be had through a link (refused) or mknod (root);
        // a directory named like an entry is refused the same way
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("4242.json");
        std::fs::create_dir(&p).unwrap();
        assert_eq!(reason(&p), "a directory, not read");
        let meta = std::fs::metadata("/dev/null").unwrap();
        assert_eq!(kind_of(&meta), "a device");
    }

    #[test]
    fn a_huge_file_is_named_and_read_no_further_than_the_bound() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("4242.json");
        let mut big = entry(4242);
        big.push_str(&" ".repeat(MAX_ENTRY as usize));
        std::fs::write(&p, big).unwrap();
        assert!(reason(&p).contains("larger than 64 KiB"), "{}", reason(&p));
        // at the bound it is read
        let mut fits = entry(4242);
        fits.push_str(&" ".repeat(MAX_ENTRY as usize - fits.len()));
        std::fs::write(&p, fits).unwrap();
        assert!(read_entry(&p).is_ok());
    }

    #[test]
    fn malformed_json_and_odd_pids_are_named() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("4242.json");
        for (text, why) in [
            ("{not json", "not JSON"),
            ("", "not JSON"),
            ("[4242]", "not a JSON object"),
            ("{\"pid\":\"4242\"}", "has no valid pid"),
            ("{\"pid\":1}", "has no valid pid"),
            ("{\"pid\":-5}", "has no valid pid"),
            ("{\"pid\":99999999999}", "has no valid pid"),
            (
                "{\"pid\":4243}",
                "holds pid 4243 but is not named 4243.json",
            ),
        ] {
            std::fs::write(&p, text).unwrap();
            let r = reason(&p);
            assert!(r.starts_with(why), "{text}: {r}");
        }
    }

    #[test]
    fn another_user_s_file_is_named() {
        // a file of root's stands for another user's when we are not root
        if rustix::process::geteuid().is_root() {
            eprintln!("skipped: run as root, no file of another user to be had");
            return;
        }
        let r = reason(Path::new("/etc/passwd"));
        assert!(r.starts_with("owned by uid 0, not by you"), "{r}");
    }

    #[test]
    fn an_unreadable_file_is_named_not_fatal() {
        if rustix::process::geteuid().is_root() {
            eprintln!("skipped: root reads a mode-000 file");
            return;
        }
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("4242.json");
        std::fs::write(&p, entry(4242)).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o000)).unwrap();
        assert!(reason(&p).starts_with("cannot be opened"));
    }

    #[test]
    fn liveness_is_the_pid_and_its_start_time() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join(format!("{}.json", me()));
        // our own process, with our start time: live
        std::fs::write(
            &p,
            format!(r#"{{"pid":{},"procStart":"{}"}}"#, me(), my_start()),
        )
        .unwrap();
        let s = read_entry(&p).unwrap();
        assert_eq!(liveness(&s), None);
        // no procStart: the pid alone
        std::fs::write(&p, format!(r#"{{"pid":{}}}"#, me())).unwrap();
        assert_eq!(liveness(&read_entry(&p).unwrap()), None);
        // another start time: the pid was reused
        std::fs::write(&p, format!(r#"{{"pid":{},"procStart":"1"}}"#, me())).unwrap();
        assert_eq!(liveness(&read_entry(&p).unwrap()), Some(Stale::Reused));
        // a pid no process has (a child that was waited for)
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let gone = child.id();
        child.wait().unwrap();
        let q = d.path().join(format!("{gone}.json"));
        std::fs::write(&q, format!(r#"{{"pid":{gone}}}"#)).unwrap();
        assert_eq!(liveness(&read_entry(&q).unwrap()), Some(Stale::Gone));
        let reg = read_dir(d.path());
        assert_eq!(reg.live.len(), 0);
        assert_eq!(reg.stale.len(), 2);
        assert!(reg.problems.is_empty());
    }

    #[test]
    fn a_zombie_is_gone() {
        let d = tempfile::tempdir().unwrap();
        let proc = d.path();
        std::fs::create_dir_all(proc.join("self")).unwrap();
        std::fs::create_dir_all(proc.join("4242")).unwrap();
        let stat = |state: &str| {
            format!("4242 (odd) name) {state} 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 777 0 0")
        };
        std::fs::write(proc.join("4242/stat"), stat("Z")).unwrap();
        let s = from_map(
            Path::new("4242.json"),
            serde_json::from_str(r#"{"pid":4242,"procStart":"777"}"#).unwrap(),
        )
        .unwrap();
        assert_eq!(liveness_in(proc, &s), Some(Stale::Gone));
        std::fs::write(proc.join("4242/stat"), stat("S")).unwrap();
        assert_eq!(liveness_in(proc, &s), None, "a ')' in the name is skipped");
        std::fs::remove_file(proc.join("4242/stat")).unwrap();
        assert_eq!(liveness_in(proc, &s), Some(Stale::Gone));
    }

    #[test]
    fn the_folder_names_every_file_passed_over_and_skips_key_files() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(
            d.path().join(format!("{}.json", me())),
            format!(r#"{{"pid":{},"status":"idle"}}"#, me()),
        )
        .unwrap();
        std::fs::write(d.path().join("4242.abc.key"), "secret").unwrap();
        std::fs::write(d.path().join(".4242.json.tmp"), "x").unwrap();
        std::fs::write(d.path().join("notes.json"), "{\"pid\":4242}").unwrap();
        let reg = read_dir(d.path());
        assert_eq!(reg.live.len(), 1);
        assert_eq!(reg.live[0].pid, me());
        assert_eq!(reg.problems.len(), 1, "{:?}", reg.problems);
        assert!(reg.problems[0].path.ends_with("notes.json"));
        // a missing folder is an empty registry
        assert_eq!(read_dir(&d.path().join("none")), Registry::default());
    }

    #[test]
    fn state_comes_from_the_status_then_the_transcript_tail() {
        let s = |status: Option<&str>, waiting: Option<&str>| {
            let mut m = serde_json::Map::new();
            m.insert("pid".into(), 4242.into());
            if let Some(st) = status {
                m.insert("status".into(), st.into());
            }
            if let Some(w) = waiting {
                m.insert("waitingFor".into(), w.into());
            }
            from_map(Path::new("4242.json"), m).unwrap()
        };
        assert_eq!(
            SessionState::of(&s(Some("waiting"), Some("permission prompt")), None),
            SessionState::Waiting {
                for_what: "permission prompt".into()
            }
        );
        assert_eq!(
            SessionState::of(&s(Some("busy"), None), None),
            SessionState::Working
        );
        assert_eq!(
            SessionState::of(&s(Some("shell"), None), None),
            SessionState::Working
        );
        assert_eq!(
            SessionState::of(&s(Some("idle"), None), None),
            SessionState::Idle
        );
        // no status: the transcript's last conversation line
        let ended = r#"{"type":"assistant","message":{"stop_reason":"end_turn","content":[]}}"#;
        let tool = r#"{"type":"assistant","message":{"stop_reason":"tool_use","content":[]}}"#;
        let result = r#"{"type":"user","message":{"content":[{"type":"tool_result"}]}}"#;
        let side = r#"{"type":"user","isSidechain":true,"message":{}}"#;
        let cost = r#"{"type":"cost-state","totalCostUSD":0.1}"#;
        let none = s(None, None);
        for (tail, want) in [
            (format!("{tool}\n{ended}\n{cost}\n"), SessionState::Idle),
            (format!("{ended}\n{tool}\n"), SessionState::Working),
            (
                format!("{ended}\n{result}\n{side}\n"),
                SessionState::Working,
            ),
            (format!("{ended}\n{side}\n"), SessionState::Idle),
            // the tail may start mid-line
            (format!("xx\"}}\n{ended}"), SessionState::Idle),
            (cost.to_owned(), SessionState::Unknown),
        ] {
            assert_eq!(SessionState::of(&none, Some(&tail)), want, "{tail}");
        }
        assert_eq!(SessionState::of(&none, None), SessionState::Unknown);
        // an unknown status falls to the transcript too
        assert_eq!(
            SessionState::of(&s(Some("dreaming"), None), Some(ended)),
            SessionState::Idle
        );
    }

    #[test]
    fn state_reads_the_session_s_own_transcript() {
        let d = tempfile::tempdir().unwrap();
        let id = "0b5e2d0e-2a47-4b55-9c1e-3f2b3c4d5e6f";
        let folder = d
            .path()
            .join("projects")
            .join(crate::store::project_folder_name("/home/me/app"));
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(
            folder.join(format!("{id}.jsonl")),
            "{\"type\":\"user\",\"message\":{\"content\":\"hi\"}}\n",
        )
        .unwrap();
        let p = d.path().join("4242.json");
        std::fs::write(
            &p,
            format!(r#"{{"pid":4242,"sessionId":"{id}","cwd":"/home/me/app"}}"#),
        )
        .unwrap();
        let s = read_entry(&p).unwrap();
        assert_eq!(state(d.path(), &s), SessionState::Working);
        // a session id that is no id names no file (no `../` walk)
        std::fs::write(
            &p,
            r#"{"pid":4242,"sessionId":"../../etc/passwd","cwd":"/home/me/app"}"#,
        )
        .unwrap();
        let s = read_entry(&p).unwrap();
        assert_eq!(transcript_path(d.path(), &s), None);
        assert_eq!(state(d.path(), &s), SessionState::Unknown);
    }
}
