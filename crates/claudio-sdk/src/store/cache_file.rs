//! The files claudio keeps in its cache folder (the usage index, the
//! listing index, the unit prices learnt): read only when they are the
//! user's own, written whole or not at all. One reader and one writer for
//! all of them.

use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

/// The bytes of `file` when it is a regular file (not a link, not a
/// FIFO), the user's own, writable by no one else, and at most `max`
/// bytes; `None` otherwise (as when it is not there).
pub fn read_private(file: &Path, max: u64) -> Option<Vec<u8>> {
    let f = super::open::open_nofollow(file).ok()?;
    let m = f.metadata().ok()?;
    let me = rustix::process::geteuid().as_raw();
    if !m.is_file() || m.len() > max || m.uid() != me || m.mode() & 0o022 != 0 {
        return None;
    }
    let mut data = Vec::with_capacity(m.len() as usize);
    f.take(max + 1).read_to_end(&mut data).ok()?;
    (data.len() as u64 <= max).then_some(data)
}

/// Write `data` to `file`, whole or not at all: a temporary file beside it
/// (mode 0600, never through a link), then a rename. The folder is made
/// (mode 0700) when missing, and the temporary files of writers killed
/// before their rename are swept first (see `sweep`). Not flushed to disk
/// first: each of these files is checked when read, and made anew when it
/// is not whole.
pub fn write_private(file: &Path, data: &[u8]) -> std::io::Result<()> {
    let dir = file
        .parent()
        .ok_or_else(|| std::io::Error::other("no folder"))?;
    let name = file
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| std::io::Error::other("no file name"))?;
    if !dir.is_dir() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
    }
    sweep(dir, name);
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let tmp = dir.join(format!(".{name}.{}.{nanos}.{n}.tmp", std::process::id()));
    let written = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(
                (rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::CLOEXEC).bits() as i32,
            )
            .open(&tmp)?;
        f.write_all(data)?;
        std::fs::rename(&tmp, file)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// Remove the temporary files (`.<name>.<pid>.<nanos>.<n>.tmp`) in `dir`
/// that a writer left when it died before its rename: of a process that is
/// gone, or more than an hour old (its process id may be another's since).
/// Another process's file being written now is left; nothing here fails.
pub(crate) fn sweep(dir: &Path, name: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let prefix = format!(".{name}.");
    for e in entries.flatten() {
        let file = e.file_name();
        let Some(rest) = file
            .to_str()
            .and_then(|n| n.strip_prefix(prefix.as_str()))
            .and_then(|n| n.strip_suffix(".tmp"))
        else {
            continue;
        };
        let pid = rest
            .split('.')
            .next()
            .and_then(|p| p.parse::<i32>().ok())
            .and_then(rustix::process::Pid::from_raw);
        // signal 0 only checks that the process exists
        let gone = pid.is_none_or(|pid| {
            rustix::process::test_kill_process(pid) == Err(rustix::io::Errno::SRCH)
        });
        let path = e.path();
        let old = || {
            std::fs::symlink_metadata(&path)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| SystemTime::now().duration_since(t).ok())
                .is_some_and(|age| age.as_secs() > 3600)
        };
        if gone || old() {
            let _ = std::fs::remove_file(&path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only the user's own plain file, writable by no one else and within
    /// the bound, is read; a link to one is not followed.
    #[test]
    fn only_a_private_plain_file_within_the_bound_is_read() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("cache").join("index");
        write_private(&file, b"hello").unwrap();
        assert_eq!(read_private(&file, 5).as_deref(), Some(&b"hello"[..]));
        assert_eq!(read_private(&file, 4), None);
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&file), 0o600);
        assert_eq!(mode(file.parent().unwrap()), 0o700);
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert_eq!(read_private(&link, 100), None);
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o622)).unwrap();
        assert_eq!(read_private(&file, 100), None);
        assert_eq!(read_private(&dir.path().join("none"), 100), None);
    }

    /// A write over a link replaces the link, never the file it names;
    /// the temporaries of a dead writer, or an hour old, are swept, and
    /// another live writer's, and other files', are left.
    #[test]
    fn a_write_replaces_the_file_and_sweeps_what_dead_writers_left() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("elsewhere");
        std::fs::write(&target, "kept").unwrap();
        let file = dir.path().join("index");
        std::os::unix::fs::symlink(&target, &file).unwrap();
        let me = std::process::id();
        let dead = dir.path().join(".index.999999999.1.0.tmp");
        let live = dir.path().join(format!(".index.{me}.1.0.tmp"));
        let old = dir.path().join(format!(".index.{me}.2.0.tmp"));
        let other = dir.path().join(".other.999999999.1.0.tmp");
        for p in [&dead, &live, &old, &other] {
            std::fs::write(p, "x").unwrap();
        }
        let hours_ago = SystemTime::now() - std::time::Duration::from_secs(7200);
        std::fs::File::options()
            .write(true)
            .open(&old)
            .unwrap()
            .set_modified(hours_ago)
            .unwrap();
        write_private(&file, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "kept");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "new");
        assert!(!std::fs::symlink_metadata(&file).unwrap().is_symlink());
        assert!(!dead.exists() && !old.exists());
        assert!(live.exists() && other.exists());
    }
}
