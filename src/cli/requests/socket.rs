//! The deck's Unix socket: where `claudio deck hook` (run by a claude
//! TUI for each permission request) hands the request to the deck and
//! waits for its answer.
//!
//! Only the same user reaches it: the folder is private (0700, the
//! user's own, no link), the socket 0600, and each side checks the
//! other's uid (`SO_PEERCRED`). One request a connection, one line of JSON
//! each way, and for an allow or a denial a third, the asking end's
//! acknowledgement ([`Ack`]: taken, or not because it was answered at its
//! end first, or refused as no answer to it); the request carries a fresh
//! random token, and an answer is taken only with that token, so no answer
//! meant for one request can be given to another.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Set (to `1`) in the environment of every CLI a claudio chat or `ask`
/// starts, and so in its hooks'. Such a session offers its requests to the
/// deck itself, as values with their ids (an `ask` with no terminal denies
/// them at once): the hook, which the CLI runs
/// beside the stream-json request when `deck hooks install` put it in the
/// person's settings, stands aside (no output at once), or the deck would
/// hold every request of a chat twice.
pub const PUBLISHED_BY_CLAUDIO: &str = "CLAUDIO_PUBLISHES_REQUESTS";

/// The most bytes of one line read from the socket: a request holds a
/// tool's whole input (an Edit's old and new text).
pub const MAX_LINE: u64 = 4 << 20;

/// The socket's file name in its folder.
const NAME: &str = "deck.sock";

/// The socket's folder: `$XDG_RUNTIME_DIR/claudio` when that is an
/// absolute path, else `/tmp/claudio-<uid>`.
pub fn dir() -> PathBuf {
    dir_from(std::env::var_os("XDG_RUNTIME_DIR"))
}

fn dir_from(runtime: Option<std::ffi::OsString>) -> PathBuf {
    match runtime.map(PathBuf::from).filter(|d| d.is_absolute()) {
        Some(d) => d.join("claudio"),
        None => PathBuf::from(format!("/tmp/claudio-{}", uid())),
    }
}

/// The socket: `deck.sock` in [`dir`].
pub fn path() -> PathBuf {
    dir().join(NAME)
}

fn uid() -> u32 {
    rustix::process::geteuid().as_raw()
}

/// Whether `dir` is a private folder of ours: a folder (no link), owned
/// by us, with no access for anyone else.
pub fn check_private(dir: &Path) -> io::Result<()> {
    let m = std::fs::symlink_metadata(dir)?;
    if !m.file_type().is_dir() {
        return Err(io::Error::other(format!(
            "{} is not a folder (a link or a file); not used",
            crate::cli::common::folder::shown(dir)
        )));
    }
    if m.uid() != uid() {
        return Err(io::Error::other(format!(
            "{} is owned by uid {}, not by you; not used",
            crate::cli::common::folder::shown(dir),
            m.uid()
        )));
    }
    if m.permissions().mode() & 0o077 != 0 {
        return Err(io::Error::other(format!(
            "{} is open to others (mode {:o}); not used",
            crate::cli::common::folder::shown(dir),
            m.permissions().mode() & 0o777
        )));
    }
    Ok(())
}

/// The uid of the process at the other end of `s`.
pub fn peer_uid(s: &UnixStream) -> io::Result<u32> {
    let mut cred = libc::ucred {
        pid: 0,
        uid: 0,
        gid: 0,
    };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: `cred` and `len` are valid for the call, sized for
    // SO_PEERCRED's `struct ucred`; the fd is open for the call's length.
    let rc = unsafe {
        libc::getsockopt(
            s.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut cred as *mut libc::ucred).cast(),
            &mut len,
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(cred.uid)
}

/// Whether the other end of `s` is the same user.
pub fn same_user(s: &UnixStream) -> bool {
    peer_uid(s).is_ok_and(|u| u == uid())
}

/// What the hook sends: one permission request of a claude session.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Request {
    /// `permission`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The request's own random token: the answer must carry it.
    pub token: String,
    /// The hook's input as the CLI gave it (`session_id`, `tool_name`,
    /// `tool_input`, `permission_suggestions`, ...).
    pub input: Value,
}

/// What the deck answers.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Answer {
    /// The request's token.
    pub token: String,
    /// `allow`, `deny`, or `ask` (answer it in the TUI).
    pub behavior: String,
    /// Why, for a denial (the model reads it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// For an allow: the permission updates to apply with it (the CLI's
    /// own suggestions the person chose: `a`, `p`, `u`), as the hook's
    /// `updatedPermissions`.
    #[serde(
        default,
        rename = "updatedPermissions",
        skip_serializing_if = "Option::is_none"
    )]
    pub updated_permissions: Option<Value>,
    /// For an allow of a question or a plan of a claudio chat or `ask`:
    /// the tool's input with the answers (the library's
    /// `answer_questions`, `approve_plan`), as the hook's `updatedInput`.
    /// The chat takes it only when it is exactly what its own question
    /// comes to ([`super::publish`]); the TUI's hook never passes it on.
    #[serde(
        default,
        rename = "updatedInput",
        skip_serializing_if = "Option::is_none"
    )]
    pub updated_input: Option<Value>,
    /// For a denial: stop the turn too (a plan rejected, as the chat's
    /// Esc rejects it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupt: bool,
}

/// What the asking end says once it read an answer (an allow or a
/// denial): whether the answer was taken. The request may have been
/// answered at its own end a moment before (the chat's key, the TUI's
/// dialog: the hook is then gone); no acknowledgement is "not taken".
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Ack {
    /// The request's token.
    pub token: String,
    /// The answer counts.
    pub taken: bool,
    /// Not taken because it was no answer to this request (a claudio
    /// chat checks what the deck sends, [`super::publish::verdict`]): the
    /// request is still asked, and offered again.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub refused: bool,
}

/// What became of an answer the deck gave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Acked {
    /// It counts.
    Taken,
    /// The asking end answered first (or went away, or said nothing).
    NotTaken,
    /// The asking end found it no answer to its request, and still asks.
    Refused,
}

/// How long the deck waits for the acknowledgement of an answer.
pub const ACK_WAIT: Duration = Duration::from_secs(5);

/// Read one line of at most [`MAX_LINE`] bytes (`None`: the other end
/// closed or sent more).
pub fn read_line(s: &mut impl Read) -> io::Result<Option<String>> {
    let mut r = BufReader::new(s.take(MAX_LINE + 1));
    let mut line = String::new();
    r.read_line(&mut line)?;
    if !line.ends_with('\n') {
        return Ok(None);
    }
    line.pop();
    Ok(Some(line))
}

/// One line of JSON, written whole.
pub fn write_line(s: &mut impl Write, v: &impl Serialize) -> io::Result<()> {
    let mut text = serde_json::to_string(v).map_err(io::Error::other)?;
    text.push('\n');
    s.write_all(text.as_bytes())?;
    s.flush()
}

/// An answer given, its acknowledgement still to read.
#[derive(Debug)]
pub struct Sent {
    stream: UnixStream,
    token: String,
}

impl Sent {
    /// Whether the answer was taken ([`Ack`]): not when the asking end
    /// said so, closed (answered at its end first) or said nothing within
    /// [`ACK_WAIT`].
    pub fn acked(mut self) -> Acked {
        let _ = self.stream.set_read_timeout(Some(ACK_WAIT));
        let line = read_line(&mut self.stream).ok().flatten();
        let ack = line
            .and_then(|l| serde_json::from_str::<Ack>(&l).ok())
            .filter(|a| a.token == self.token);
        match ack {
            Some(a) if a.taken => Acked::Taken,
            Some(a) if a.refused => Acked::Refused,
            _ => Acked::NotTaken,
        }
    }
}

/// The deck's end: the socket bound, and the requests coming in.
#[derive(Debug)]
pub struct Listener {
    listener: UnixListener,
    path: PathBuf,
}

/// A request that came in, waiting for its answer.
#[derive(Debug)]
pub struct Pending {
    /// What was asked.
    pub request: Request,
    stream: UnixStream,
}

impl Pending {
    /// Answer it: `behavior` `allow`, `deny` (with `message`) or `ask`.
    /// An error when the hook is gone (its session answered in the TUI,
    /// its bound passed).
    pub fn answer(self, behavior: &str, message: Option<String>) -> io::Result<()> {
        self.answer_with(behavior, message, None)
    }

    /// [`Pending::answer`], an allow carrying permission updates.
    pub fn answer_with(
        mut self,
        behavior: &str,
        message: Option<String>,
        updated_permissions: Option<Value>,
    ) -> io::Result<()> {
        let a = Answer {
            token: self.request.token.clone(),
            behavior: behavior.to_owned(),
            message,
            updated_permissions,
            updated_input: None,
            interrupt: false,
        };
        write_line(&mut self.stream, &a)
    }

    /// Give an allow or a denial (`answer`'s token is set here) and read
    /// whether it was taken ([`Ack`]): not taken when the asking end said
    /// so, closed (answered at its end first) or said nothing within
    /// [`ACK_WAIT`]; an error when the answer could not be written.
    pub fn decide(self, answer: Answer) -> io::Result<Acked> {
        Ok(self.send(answer)?.acked())
    }

    /// Give an allow or a denial (`answer`'s token is set here), and
    /// nothing more: [`Sent::acked`] reads what became of it.
    pub fn send(mut self, mut answer: Answer) -> io::Result<Sent> {
        answer.token = self.request.token.clone();
        write_line(&mut self.stream, &answer)?;
        Ok(Sent {
            stream: self.stream,
            token: self.request.token,
        })
    }

    /// Answer a `list` request with `v` (its token added).
    pub fn reply(mut self, mut v: Value) -> io::Result<()> {
        v["token"] = Value::String(self.request.token.clone());
        write_line(&mut self.stream, &v)
    }

    /// The connection, for a test to write on by hand.
    #[cfg(test)]
    pub fn into_stream(self) -> UnixStream {
        self.stream
    }

    /// The connection, to wait on alongside other input: it turns
    /// readable when the hook gives up (its session answered in its
    /// terminal, its bound passed).
    pub fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        std::os::fd::AsFd::as_fd(&self.stream)
    }

    /// Whether the hook gave up on it (closed its end).
    pub fn withdrawn(&self) -> bool {
        let mut b = [0u8; 1];
        // SAFETY: `b` is valid for one byte; the fd is open for the call.
        let n = unsafe {
            libc::recv(
                self.stream.as_raw_fd(),
                b.as_mut_ptr().cast(),
                1,
                libc::MSG_PEEK | libc::MSG_DONTWAIT,
            )
        };
        n == 0
    }
}

/// Make `dir` (a private folder, 0700) if missing, and check it is one.
fn make_private(dir: &Path) -> io::Result<()> {
    match std::fs::symlink_metadata(dir) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            std::fs::DirBuilder::new()
                .mode(0o700)
                .recursive(false)
                .create(dir)
                .or_else(|e| {
                    if e.kind() == io::ErrorKind::AlreadyExists {
                        Ok(())
                    } else {
                        Err(e)
                    }
                })?;
        }
        Err(e) => return Err(e),
        Ok(_) => {}
    }
    check_private(dir)
}

/// The lock file of the deck that sends the notices.
const NOTICES_LOCK: &str = "notices.lock";

/// The lock of the one deck (full screen, line by line or `--watch`) of
/// the user's that sends the config file's notices: `notices.lock` in
/// `dir` (made private if missing), locked with `flock`, which the kernel
/// lets go of when the process ends however it ends. `None` while another
/// deck holds it, or when the folder or the file is not ours to use (a
/// link, not a plain file).
pub fn lock_notices(dir: &Path) -> Option<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    make_private(dir).ok()?;
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK)
        .open(dir.join(NOTICES_LOCK))
        .ok()?;
    if !f.metadata().ok()?.file_type().is_file() {
        return None;
    }
    rustix::fs::flock(&f, rustix::fs::FlockOperation::NonBlockingLockExclusive).ok()?;
    Some(f)
}

impl Listener {
    /// Bind the socket at `path` (its folder made private if missing, and
    /// checked). A socket left by a deck that is gone is replaced; one a
    /// deck still answers on is an error (one deck at a time).
    pub fn bind(path: &Path) -> io::Result<Listener> {
        make_private(path.parent().unwrap_or(Path::new("/")))?;
        if let Ok(m) = std::fs::symlink_metadata(path) {
            if UnixStream::connect(path).is_ok() {
                return Err(io::Error::new(
                    io::ErrorKind::AddrInUse,
                    format!(
                        "another deck answers on {}",
                        crate::cli::common::folder::shown(path)
                    ),
                ));
            }
            if !std::os::unix::fs::FileTypeExt::is_socket(&m.file_type()) {
                return Err(io::Error::other(format!(
                    "{} is there and is no socket; not replaced",
                    crate::cli::common::folder::shown(path)
                )));
            }
            std::fs::remove_file(path)?;
        }
        let listener = UnixListener::bind(path)?;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
        Ok(Listener {
            listener,
            path: path.to_owned(),
        })
    }

    /// Where the socket is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The next request (blocking): a connection from another user, or
    /// one that sends no request within `bound`, is dropped and the next
    /// one waited for.
    pub fn next(&self, bound: Duration) -> io::Result<Pending> {
        loop {
            let p = self.next_any(bound)?;
            if p.request.kind == "permission" {
                return Ok(p);
            }
        }
    }

    /// [`Listener::next`], also taking `list` requests (`claudio deck
    /// --json` and `--watch` asking which requests the deck holds:
    /// answered with [`Pending::reply`]).
    pub fn next_any(&self, bound: Duration) -> io::Result<Pending> {
        loop {
            let (mut stream, _) = self.listener.accept()?;
            if !same_user(&stream) {
                continue;
            }
            stream.set_read_timeout(Some(bound))?;
            let Ok(Some(line)) = read_line(&mut stream) else {
                continue;
            };
            let _ = stream.set_read_timeout(None);
            let Ok(request) = serde_json::from_str::<Request>(&line) else {
                continue;
            };
            if !matches!(request.kind.as_str(), "permission" | "list") || request.token.is_empty() {
                continue;
            }
            return Ok(Pending { request, stream });
        }
    }
}

/// Which requests the deck listening at `path` holds, as it says (its
/// `pending` list); `None` when no deck answers there (none running, a
/// deck working line by line, one that is not ours).
pub fn ask_list(path: &Path) -> Option<Value> {
    check_private(path.parent()?).ok()?;
    let stream = UnixStream::connect(path).ok()?;
    if !same_user(&stream) {
        return None;
    }
    let bound = Some(Duration::from_secs(2));
    stream.set_read_timeout(bound).ok()?;
    stream.set_write_timeout(bound).ok()?;
    let token = claudio::store::new_uuid();
    let req = Request {
        kind: "list".into(),
        token: token.clone(),
        input: Value::Object(Default::default()),
    };
    write_line(&mut &stream, &req).ok()?;
    let line = read_line(&mut &stream).ok()??;
    let v: Value = serde_json::from_str(&line).ok()?;
    if v.get("token").and_then(Value::as_str) != Some(token.as_str()) {
        return None;
    }
    v.get("pending").filter(|p| p.is_array()).cloned()
}

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One holder of the notices' lock at a time; once it lets go (its
    /// process ends), the next takes it. The folder is made private; a
    /// lock file that is a link is not followed.
    #[test]
    fn the_notices_lock_has_one_holder_at_a_time() {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path().join("claudio");
        let first = lock_notices(&dir).expect("free");
        let mode = std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        assert!(lock_notices(&dir).is_none(), "held");
        drop(first);
        let again = lock_notices(&dir);
        assert!(again.is_some(), "let go");
        drop(again);
        let other = tempfile::tempdir().unwrap();
        let linked = other.path().join("claudio");
        make_private(&linked).unwrap();
        std::os::unix::fs::symlink(d.path().join("elsewhere"), linked.join(NOTICES_LOCK)).unwrap();
        assert!(lock_notices(&linked).is_none(), "a link");
        assert!(!d.path().join("elsewhere").exists());
    }

    #[test]
    fn the_folder_is_the_runtime_one_or_a_private_one_under_tmp() {
        assert_eq!(
            dir_from(Some("/run/user/1000".into())),
            PathBuf::from("/run/user/1000/claudio")
        );
        let tmp = format!("/tmp/claudio-{}", uid());
        assert_eq!(dir_from(Some("relative".into())), PathBuf::from(&tmp));
        assert_eq!(dir_from(None), PathBuf::from(&tmp));
    }

    #[test]
    fn a_folder_open_to_others_or_a_link_is_not_used() {
        let d = tempfile::tempdir().unwrap();
        let open = d.path().join("open");
        std::fs::create_dir(&open).unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert!(check_private(&open).is_err());
        assert!(Listener::bind(&open.join(NAME)).is_err());
        let link = d.path().join("link");
        let private = d.path().join("private");
        std::fs::create_dir(&private).unwrap();
        std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o700)).unwrap();
        std::os::unix::fs::symlink(&private, &link).unwrap();
        assert!(check_private(&link).is_err());
        assert!(check_private(&private).is_ok());
    }

    #[test]
    fn the_socket_is_private_and_one_deck_binds_it() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("claudio").join(NAME);
        let l = Listener::bind(&p).unwrap();
        let dir_mode = std::fs::metadata(p.parent().unwrap()).unwrap().mode() & 0o777;
        assert_eq!(dir_mode, 0o700);
        assert_eq!(std::fs::metadata(&p).unwrap().mode() & 0o777, 0o600);
        let e = Listener::bind(&p).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::AddrInUse);
        drop(l);
        assert!(!p.exists(), "the socket goes with the deck");
        // one left by a deck that died is replaced
        let stale = UnixListener::bind(&p).unwrap();
        drop(stale);
        assert!(p.exists());
        let _l = Listener::bind(&p).unwrap();
        // a file that is no socket is not replaced
        let q = d.path().join("claudio").join("other.sock");
        std::fs::write(&q, "x").unwrap();
        assert!(Listener::bind(&q).is_err());
        assert_eq!(std::fs::read_to_string(&q).unwrap(), "x");
    }

    #[test]
    fn the_peer_is_the_same_user() {
        let (a, b) = UnixStream::pair().unwrap();
        assert_eq!(peer_uid(&a).unwrap(), uid());
        assert!(same_user(&b));
    }

    #[test]
    fn a_request_and_its_answer_go_through_with_the_token() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("claudio").join(NAME);
        let l = Listener::bind(&p).unwrap();
        let p2 = p.clone();
        let hook = std::thread::spawn(move || {
            let mut s = UnixStream::connect(&p2).unwrap();
            // a connection that sends nothing useful is passed over
            drop(UnixStream::connect(&p2).unwrap());
            write_line(
                &mut s,
                &Request {
                    kind: "permission".into(),
                    token: "t1".into(),
                    input: serde_json::json!({"tool_name": "Bash"}),
                },
            )
            .unwrap();
            read_line(&mut s).unwrap()
        });
        let pending = l.next(Duration::from_secs(30)).unwrap();
        assert_eq!(pending.request.input["tool_name"], "Bash");
        assert!(!pending.withdrawn());
        pending.answer("deny", Some("no".into())).unwrap();
        let got: Answer = serde_json::from_str(&hook.join().unwrap().unwrap()).unwrap();
        assert_eq!(got.token, "t1");
        assert_eq!(got.behavior, "deny");
        assert_eq!(got.message.as_deref(), Some("no"));
    }

    #[test]
    fn a_line_past_the_bound_is_no_line() {
        let mut big = std::io::Cursor::new(vec![b'x'; MAX_LINE as usize + 10]);
        assert_eq!(read_line(&mut big).unwrap(), None);
        let mut cut = std::io::Cursor::new(b"{\"a\":".to_vec());
        assert_eq!(read_line(&mut cut).unwrap(), None);
    }
}
