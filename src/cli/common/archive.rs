//! The archive's folder (`$CLAUDIO_ARCHIVE_DIR`), and a session to resume
//! restored from it first: for the chat, `ask` and `sessions`.

use claudio::store::{ResumeTarget, Store, StoreError, ARCHIVE_DIR_ENV};
use std::path::PathBuf;

/// The archive folder ([`claudio::store::default_archive_dir`]); `None`
/// when it cannot be named (no `HOME`, or a relative
/// `$CLAUDIO_ARCHIVE_DIR`: a usage error, see [`archive_env`]).
pub fn archive_dir() -> Option<PathBuf> {
    claudio::store::default_archive_dir().ok()
}

/// Whether `$CLAUDIO_ARCHIVE_DIR` is usable; a relative path is an error
/// (the message to show): resolved against the working directory, it
/// would put copies of every project's transcripts wherever claudio
/// happens to run.
pub fn archive_env() -> Result<(), RelativeArchiveDir> {
    match claudio::store::default_archive_dir() {
        Err(StoreError::RelativeArchiveDir(dir)) => Err(RelativeArchiveDir(dir)),
        _ => Ok(()),
    }
}

/// `$CLAUDIO_ARCHIVE_DIR` names a relative path (its text shown whole on
/// one line, an escape sequence in it as text).
#[derive(Debug, thiserror::Error)]
#[error(
    "{ARCHIVE_DIR_ENV} is a relative path ({d}): set it to an absolute one, e.g. \"$HOME/{d}\"",
    d = crate::cli::common::folder::shown(.0)
)]
pub struct RelativeArchiveDir(pub PathBuf);

/// Where to resume session `id` ([`Store::resume_target`]: a session only
/// the archive holds is restored into the store first); `said` is told
/// when one was.
pub fn resume_target(
    store: &Store,
    id: &str,
    said: &mut dyn FnMut(&str),
) -> claudio::store::StoreResult<ResumeTarget> {
    let t = store.resume_target(id)?;
    if t.restored {
        said(&format!(
            "restored session {} from the archive into {}",
            t.id,
            crate::cli::common::folder::shown(&t.path)
        ));
    }
    Ok(t)
}
