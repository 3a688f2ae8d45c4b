//! Errors of the transcript store.

use std::path::PathBuf;

/// What can go wrong while reading or changing the transcript store.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The id is neither a UUID nor a prefix of at least 4 hex digits.
    /// Nothing was read or written.
    #[error("invalid session id {0:?}: expected a UUID or at least 4 of its leading hex digits")]
    InvalidId(String),
    /// No transcript has this id (or prefix).
    #[error("no session matches {0}")]
    NotFound(String),
    /// The session has no sub-agent transcript with this agent id.
    #[error("session {session} has no sub-agent {agent:?}")]
    SubagentNotFound {
        /// The session's id.
        session: String,
        /// The agent id asked for.
        agent: String,
    },
    /// The prefix matches several sessions.
    #[error("session id prefix {prefix} is ambiguous: it matches {}", candidates.join(", "))]
    Ambiguous {
        /// The prefix as given.
        prefix: String,
        /// Every matching session id.
        candidates: Vec<String>,
    },
    /// The message named (by full uuid or prefix, e.g.
    /// [`ForkOptions::at`](super::ForkOptions::at)) is not in the session.
    #[error("no message {message} in session {session}")]
    MessageNotFound {
        /// The session searched.
        session: String,
        /// The message id (or prefix) as given.
        message: String,
    },
    /// A message id prefix matches several messages.
    #[error("message id prefix {prefix} is ambiguous: it matches {}", candidates.join(", "))]
    AmbiguousMessage {
        /// The prefix as given.
        prefix: String,
        /// Every matching message id.
        candidates: Vec<String>,
    },
    /// The session holds no message that could be copied.
    #[error("session {0} has no messages to fork")]
    NothingToFork(String),
    /// A title or tag is empty once trimmed.
    #[error("the {0} must not be empty")]
    Empty(&'static str),
    /// A title or tag is too long to be read back (listings read the
    /// last 64 KiB of a transcript). Nothing was written.
    #[error("the {what} is too long: at most {max} bytes")]
    TooLong {
        /// `"title"` or `"tag"`.
        what: &'static str,
        /// The most allowed, in bytes of UTF-8.
        max: usize,
    },
    /// The transcript is empty (it was never written to, or it was truncated).
    #[error("{} is empty", crate::error::shown(.0))]
    EmptyFile(PathBuf),
    /// The transcript shows no conversation: no prompt, title or summary
    /// can be read from its first and last 64 KiB (it holds only metadata
    /// entries, its lines there are damaged, or it is not a transcript).
    #[error("{} shows no conversation: no prompt, title or summary can be read from its first and last 64 KiB", crate::error::shown(.0))]
    NoConversation(PathBuf),
    /// The transcript is a sub-agent's: its first entry is on a side chain,
    /// so it is part of another session, not one of its own.
    #[error("{} is a sub-agent's transcript (it starts on a side chain), not a session", crate::error::shown(.0))]
    Sidechain(PathBuf),
    /// The session was continued in another one, which holds its messages
    /// and is listed in its place.
    #[error("session {session} was continued in session {next}, which is listed in its place")]
    ContinuedIn {
        /// The session asked for.
        session: String,
        /// The session it continues in.
        next: String,
    },
    /// The path is a symbolic link or not a regular file: it is not touched.
    #[error("{} is not a regular file", crate::error::shown(.0))]
    NotAFile(PathBuf),
    /// Reading or writing a file failed. The system's reason is the
    /// error's `source()` (shown by `{:#}` in anyhow, not repeated here).
    #[error("cannot access {}", crate::error::shown(path))]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The system error.
        #[source]
        source: std::io::Error,
    },
    /// The transcript holds a line too long to be read (see
    /// [`MAX_LINE`](super::MAX_LINE)), so it cannot be copied whole.
    /// Nothing was written.
    #[error("{} holds a line of {} MiB or more, which cannot be copied", crate::error::shown(path), max >> 20)]
    LineTooLong {
        /// The transcript.
        path: PathBuf,
        /// The bound, in bytes.
        max: usize,
    },
    /// The transcript records no working directory to resume in.
    #[error("session {0} has no recorded working directory")]
    NoWorkingDirectory(String),
    /// The blocking work of an [`AsyncStore`](super::AsyncStore) call did
    /// not finish: it panicked, or the runtime shut down before it ran (the
    /// reason is `source()`).
    #[error("the store's blocking task did not finish")]
    Task(#[source] tokio::task::JoinError),
    /// An [`AsyncStore`](super::AsyncStore) method was called outside a
    /// Tokio runtime (the reason is `source()`).
    #[error("the async store needs a Tokio runtime")]
    NoRuntime(#[source] tokio::runtime::TryCurrentError),
    /// The session is only in an archive (the CLI deleted its transcript):
    /// it is read from there, but not changed. `Store::restore` brings it
    /// back into the store.
    #[error("session {0} is only in the archive (the CLI deleted it): restore it first")]
    OnlyInArchive(String),
    /// Neither `CLAUDE_CONFIG_DIR` nor `HOME` is set (or `HOME` is a
    /// relative path).
    #[error("cannot find the Claude configuration folder: set CLAUDE_CONFIG_DIR or HOME")]
    NoConfigDir,
    /// `$CLAUDIO_ARCHIVE_DIR` holds a relative path: resolved against the
    /// working directory, it would put copies of every project's
    /// transcripts wherever the program happens to run.
    #[error("CLAUDIO_ARCHIVE_DIR is a relative path ({}): set it to an absolute one", crate::error::shown(.0))]
    RelativeArchiveDir(PathBuf),
    /// `$CLAUDE_CONFIG_DIR` holds a relative path: resolved against the
    /// working directory, it would name another folder's transcripts and
    /// settings wherever the program happens to run (a project's own).
    #[error("CLAUDE_CONFIG_DIR is a relative path ({}): set it to an absolute one", crate::error::shown(.0))]
    RelativeConfigDir(PathBuf),
}

/// A result with [`StoreError`].
pub type StoreResult<T> = std::result::Result<T, StoreError>;

pub(crate) fn io_err(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> StoreError {
    let path = path.into();
    move |source| StoreError::Io { path, source }
}

/// The message and its causes as `{:#}` in anyhow shows them.
#[cfg(test)]
pub(crate) fn chain(e: &StoreError) -> String {
    use std::error::Error as _;
    let mut out = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        out.push_str(&format!(": {c}"));
        cur = c.source();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_io_error_names_the_path_and_its_cause_once() {
        let e = io_err("/x/y.jsonl")(std::io::Error::from(rustix::io::Errno::NOTDIR));
        let text = chain(&e);
        assert!(text.starts_with("cannot access /x/y.jsonl: "), "{text}");
        assert_eq!(text.matches("os error").count(), 1, "{text}");
    }

    /// A path with a terminal's title sequence and a newline in it: named
    /// whole and on one line by every error that names one, so a program
    /// that filters sequences out of what it prints still names the file.
    #[test]
    fn a_path_is_named_whole_on_one_line() {
        let path = PathBuf::from("/a/b\x1b]0;x\x07\nc.jsonl");
        let shown = "/a/b\\e]0;x\\a\\nc.jsonl";
        let io = || std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        for e in [
            StoreError::EmptyFile(path.clone()),
            StoreError::NoConversation(path.clone()),
            StoreError::Sidechain(path.clone()),
            StoreError::NotAFile(path.clone()),
            StoreError::Io {
                path: path.clone(),
                source: io(),
            },
            StoreError::LineTooLong {
                path: path.clone(),
                max: 1 << 20,
            },
            StoreError::RelativeArchiveDir(path.clone()),
            StoreError::RelativeConfigDir(path.clone()),
        ] {
            let said = e.to_string();
            assert!(said.contains(shown), "{said}");
            assert!(!said.contains(['\x1b', '\x07', '\n']), "{said:?}");
        }
        let image = crate::protocol::ImageError::Read {
            path: path.clone(),
            source: io(),
        };
        assert_eq!(image.to_string(), format!("cannot read {shown}"));
    }
}
