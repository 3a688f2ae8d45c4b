//! `sessions archive`: copy the transcripts into claudio's archive (under
//! the XDG data directory), where the CLI's cleanup does not reach them;
//! and the same pass in the background when the config says
//! `archive = "auto"`.

use super::io::{Io, SessionsOutcome};
use crate::cli::common::archive::{archive_dir, archive_env};
use crate::cli::common::exit::Exit;
use crate::cli::term::text::human_size;
use claudio::store::{ArchiveOptions, ArchiveSummary, Store, ARCHIVE_DIR_ENV};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, SystemTime};

/// A background pass is skipped when the last one ended less than this ago.
const AUTO_EVERY: Duration = Duration::from_secs(300);

/// The file whose time says when the last background pass ended.
const STAMP: &str = ".last-auto-archive";

pub(super) fn archive(store: &Store, json: bool, io: &mut Io) -> anyhow::Result<SessionsOutcome> {
    if let Err(msg) = archive_env() {
        return Err(crate::cli::common::exit::usage_error!("{msg}"));
    }
    let Some(dir) = archive_dir() else {
        anyhow::bail!("cannot tell where to keep the archive: set {ARCHIVE_DIR_ENV} or HOME");
    };
    let what = format!(
        "archiving transcripts into {}",
        crate::cli::common::folder::shown(&dir)
    );
    let s = crate::cli::term::spinner::while_working(io.err_style, &what, || {
        store.archive(&dir, ArchiveOptions::default())
    })?;
    for f in s.shorter.iter().take(10) {
        io.warn(&format!(
            "kept the archived copy of {}: the transcript is now {}",
            crate::cli::common::folder::shown(&f.path),
            f.reason
        ));
    }
    if s.shorter.len() > 10 {
        io.warn(&format!(
            "… and {} more shorter than their archived copy, which is kept",
            s.shorter.len() - 10
        ));
    }
    for f in s.failed.iter().take(10) {
        io.warn(&format!(
            "not archived: {}: {}",
            crate::cli::common::folder::shown(&f.path),
            f.reason
        ));
    }
    if s.failed.len() > 10 {
        io.warn(&format!("… and {} more not archived", s.failed.len() - 10));
    }
    if json {
        /// `-o json`: the run's summary and the archive it went to.
        #[derive(serde::Serialize)]
        struct Row<'a> {
            #[serde(flatten)]
            summary: &'a claudio::store::ArchiveSummary,
            archive: std::borrow::Cow<'a, str>,
        }
        let row = Row {
            summary: &s,
            archive: dir.to_string_lossy(),
        };
        io.write_json(&format!("{}\n", serde_json::to_string(&row)?))?;
    } else {
        writeln!(io.out, "{}", human(&s, &dir))?;
    }
    io.out.flush()?;
    Ok(SessionsOutcome::Done(if s.failed.is_empty() {
        Exit::Success
    } else {
        Exit::Failure
    }))
}

/// The one-paragraph summary of a run.
fn human(s: &ArchiveSummary, dir: &Path) -> String {
    let files = |n: usize| format!("{n} file{}", if n == 1 { "" } else { "s" });
    let mut out = format!(
        "archived {} ({} → {}), {} unchanged",
        files(s.archived),
        human_size(s.bytes_in),
        human_size(s.bytes_out),
        s.unchanged
    );
    if s.busy > 0 {
        out.push_str(&format!(
            ", {} still being written (archived on a later run)",
            s.busy
        ));
    }
    if !s.shorter.is_empty() {
        out.push_str(&format!(
            ", {} kept as archived (the transcript is shorter now)",
            s.shorter.len()
        ));
    }
    if !s.failed.is_empty() {
        out.push_str(&format!(", {} failed", s.failed.len()));
    }
    out.push_str(&format!(
        "\nin {}",
        crate::cli::sanitize::Sanitizer::clean(&dir.display().to_string())
    ));
    out
}

/// Start the background pass of `archive = "auto"`: a detached thread at
/// the lowest CPU and I/O priority, one file at a time, and none while
/// another pass writes the archive. The program never waits for it: a pass
/// cut short by the exit leaves the archive whole (every file is written
/// under a temporary name, then renamed), and the next one goes on from
/// the last chunk it compressed. The stamp is written when a pass ends.
pub fn spawn_auto(config_dir: Option<PathBuf>) {
    let Some(dir) = archive_dir() else { return };
    let Ok(store) = Store::open(config_dir.as_deref()) else {
        return;
    };
    if !store.projects_dir().is_dir() || !due(&dir) {
        return;
    }
    let _ = std::thread::Builder::new()
        .name("claudio-archive".into())
        .spawn(move || {
            lower_priority();
            let stop = AtomicBool::new(false);
            let opts = ArchiveOptions::default().threads(1).if_alone(true);
            if let Ok(s) = store.archive_to(&dir, opts, &stop) {
                tracing::debug!(
                    archived = s.archived,
                    unchanged = s.unchanged,
                    busy = s.busy,
                    another_pass = s.another_pass,
                    "background archive pass"
                );
                if !s.another_pass {
                    let _ = std::fs::write(dir.join(STAMP), b"");
                }
            }
        });
}

/// Whether the last background pass ended long enough ago.
fn due(dir: &Path) -> bool {
    let last = std::fs::metadata(dir.join(STAMP)).and_then(|m| m.modified());
    match last {
        Ok(t) => SystemTime::now()
            .duration_since(t)
            .map_or(true, |age| age >= AUTO_EVERY),
        Err(_) => true,
    }
}

/// This thread yields to everything else: nice 19, idle I/O class.
fn lower_priority() {
    // best effort: a thread that stays at its priority still archives
    let tid = rustix::thread::gettid();
    let _ = rustix::process::setpriority_process(Some(tid), 19);
    // rustix has no ioprio_set: IOPRIO_WHO_PROCESS (1) is this thread,
    // IOPRIO_CLASS_IDLE (3) << 13
    // SAFETY: a plain system call on the calling thread, no memory passed.
    unsafe { libc::syscall(libc::SYS_ioprio_set, 1, tid.as_raw_nonzero().get(), 3 << 13) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_background_thread_yields_cpu_and_io() {
        // a thread of its own: the priorities are the calling thread's
        let (nice, io) = std::thread::spawn(|| {
            lower_priority();
            let tid = rustix::thread::gettid();
            let nice = rustix::process::getpriority_process(Some(tid)).unwrap();
            // SAFETY: a plain system call on the calling thread, no memory passed.
            let io = unsafe { libc::syscall(libc::SYS_ioprio_get, 1, tid.as_raw_nonzero().get()) };
            (nice, io)
        })
        .join()
        .unwrap();
        assert_eq!(nice, 19);
        assert_eq!(io, 3 << 13, "the idle I/O class");
    }

    #[test]
    fn the_summary_says_what_was_done() {
        let mut s = ArchiveSummary::default();
        (s.archived, s.unchanged, s.busy, s.bytes_in, s.bytes_out) = (1, 4, 2, 2048, 300);
        let text = human(&s, Path::new("/a"));
        assert!(
            text.starts_with("archived 1 file (2.0K → 300B), 4 unchanged, 2 still being written"),
            "{text}"
        );
        assert!(text.ends_with("\nin /a"), "{text}");
    }

    #[test]
    fn a_recent_pass_is_not_repeated() {
        let d = tempfile::tempdir().unwrap();
        assert!(due(d.path()));
        std::fs::write(d.path().join(STAMP), b"").unwrap();
        assert!(!due(d.path()));
    }
}
