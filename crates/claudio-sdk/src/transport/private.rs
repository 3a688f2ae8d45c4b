//! Private files for what must not go on the CLI's command line.
//!
//! Every local user can read `/proc/PID/cmdline`, so settings and MCP server
//! configurations (which hold tokens: a stdio server's `env`, an http
//! server's `headers`) are handed to the CLI as the path of a file only its
//! owner can read: mode 0600, created exclusively, in a fresh mode-0700
//! directory named `claudio-<pid>-<random>`. The directory goes when its
//! [`PrivateDir`] is dropped, which the process supervisor does once the
//! CLI has ended.
//!
//! A program that ends without running destructors (`std::process::exit`
//! from a signal watcher) removes what is left with [`remove_all`] (through
//! [`crate::transport::abandon`]); what a process killed outright left
//! behind is removed by the next one's [`sweep`].

use std::fs::{DirBuilder, OpenOptions};
use std::hash::{BuildHasher, Hasher};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, Once};

/// The private directories of this process that exist now.
struct Live {
    dirs: Vec<PathBuf>,
    /// [`remove_all`] ran: the process is ending, and makes no more.
    closed: bool,
}

static LIVE: Mutex<Live> = Mutex::new(Live {
    dirs: Vec::new(),
    closed: false,
});

fn live() -> MutexGuard<'static, Live> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// The start of a private directory's name:
/// `claudio-<pid>-<pid namespace>-<16 hex>`.
const PREFIX: &str = "claudio-";

/// This process's pid namespace (the inode of `/proc/self/ns/pid`; 0
/// where that cannot be read): a pid means this process only inside it. A
/// container sharing the temporary directory, as the same user, has pids
/// of its own; its directories are never taken for a dead process's.
fn pid_namespace() -> u64 {
    static NS: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *NS.get_or_init(|| {
        std::fs::metadata("/proc/self/ns/pid")
            .map(|m| m.ino())
            .unwrap_or(0)
    })
}

/// A fresh directory only this user can enter, removed with what it holds
/// when dropped.
#[derive(Debug)]
pub(crate) struct PrivateDir {
    path: PathBuf,
}

impl PrivateDir {
    /// Make one under `$XDG_RUNTIME_DIR` (a per-user tmpfs, cleared at
    /// logout) when it is set to an absolute directory, else under the
    /// temporary directory. The first one a process makes sweeps that
    /// place first ([`sweep`]).
    pub(crate) fn create() -> io::Result<PrivateDir> {
        let base = base_dir();
        static SWEPT: Once = Once::new();
        SWEPT.call_once(|| {
            sweep_in(&base);
        });
        Self::create_in(&base)
    }

    /// Make one under `base` (which must be absolute: the CLI may run
    /// in another directory).
    pub(crate) fn create_in(base: &Path) -> io::Result<PrivateDir> {
        if !base.is_absolute() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("not an absolute directory: {}", crate::error::shown(base)),
            ));
        }
        // everyone may write in it and it has no sticky bit: anyone may
        // rename our directory away and put theirs (their settings, their
        // hooks) in its place before the CLI reads it
        let meta = std::fs::metadata(base)?;
        let mode = meta.permissions().mode();
        if mode & 0o002 != 0 && mode & 0o1000 == 0 {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!(
                    "{} is writable by every user and has no sticky bit: another user could swap the CLI's private settings there; set TMPDIR (or XDG_RUNTIME_DIR) to a folder of your own",
                    crate::error::shown(base)
                ),
            ));
        }
        let mut last = None;
        for _ in 0..16 {
            let path = base.join(format!(
                "{PREFIX}{}-{}-{:016x}",
                std::process::id(),
                pid_namespace(),
                unique()
            ));
            // Made and listed under the lock: `remove_all` sees every
            // directory that exists, and none is made after it ran.
            let mut live = live();
            if live.closed {
                return Err(io::Error::other(
                    "the process is ending: no more private directories",
                ));
            }
            // mkdir never follows a link at its last component, and fails
            // when the name exists: what it makes is new, and ours.
            match DirBuilder::new().mode(0o700).create(&path) {
                Ok(()) => {
                    live.dirs.push(path.clone());
                    return Ok(PrivateDir { path });
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or_else(|| io::Error::other("no free name for a private directory")))
    }

    /// The directory.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Write `contents` to a new file `name` (mode 0600, created
    /// exclusively, never through a link) and return its path.
    pub(crate) fn write(&self, name: &str, contents: &[u8]) -> io::Result<PathBuf> {
        let path = self.path.join(name);
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(
                (rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::CLOEXEC).bits() as i32,
            )
            .open(&path)?;
        file.write_all(contents)?;
        file.sync_all()?;
        Ok(path)
    }
}

impl Drop for PrivateDir {
    fn drop(&mut self) {
        let mut live = live();
        remove(&self.path);
        live.dirs.retain(|p| *p != self.path);
    }
}

/// Remove `dir` and what it holds; a failure is logged (gone already is
/// not one).
fn remove(dir: &Path) {
    if let Err(e) = std::fs::remove_dir_all(dir) {
        if e.kind() != io::ErrorKind::NotFound {
            tracing::warn!(path = %dir.display(), error = %e,
                "could not remove the private directory of the CLI's settings and MCP servers");
        }
    }
}

/// Remove every private directory of this process now, and make no more:
/// for a process about to end without running destructors.
pub(crate) fn remove_all() {
    let mut live = live();
    live.closed = true;
    for dir in live.dirs.drain(..) {
        remove(&dir);
    }
}

/// Remove the private directories that processes now gone left in the
/// place this process would make its own ($XDG_RUNTIME_DIR or the
/// temporary directory): the ones a process killed outright (SIGKILL, a
/// crash, the power) could not remove. Returns those removed.
///
/// A directory is removed only when all of these hold: its name is
/// `claudio-<pid>-<namespace>-<16 hex digits>`, with this process's pid
/// namespace; it is a directory, not a link; this user owns it; its mode
/// is exactly 0700; and process `<pid>` is gone, or is this one and did
/// not make it.
pub(crate) fn sweep() -> Vec<PathBuf> {
    sweep_in(&base_dir())
}

pub(crate) fn sweep_in(base: &Path) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    let Ok(entries) = std::fs::read_dir(base) else {
        return removed;
    };
    let me = rustix::process::geteuid().as_raw();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(owner_pid) else {
            continue;
        };
        if pid.1 != pid_namespace() {
            continue;
        }
        let pid = pid.0;
        let path = entry.path();
        // lstat: a link is never followed, nor removed
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if !meta.is_dir() || meta.uid() != me || meta.permissions().mode() & 0o7777 != 0o700 {
            continue;
        }
        if !abandoned(pid) {
            continue;
        }
        let live = live();
        if live.dirs.contains(&path) {
            continue;
        }
        remove(&path);
        drop(live);
        if std::fs::symlink_metadata(&path).is_err() {
            tracing::debug!(path = %path.display(), "removed a private directory left by a process now gone");
            removed.push(path);
        }
    }
    removed
}

/// The pid and pid namespace in a private directory's name, if it is
/// one's name.
fn owner_pid(name: &str) -> Option<(u32, u64)> {
    let (pid, tail) = name.strip_prefix(PREFIX)?.split_once('-')?;
    let (ns, tail) = tail.split_once('-')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let hex = tail.len() == 16 && tail.bytes().all(|b| b.is_ascii_hexdigit());
    if !digits(pid) || !digits(ns) || !hex {
        return None;
    }
    let pid = pid
        .parse()
        .ok()
        .filter(|&p| p > 0 && p <= i32::MAX as u32)?;
    Some((pid, ns.parse().ok()?))
}

/// Whether no living process can own a directory named with `pid`: it
/// is gone, or it is this one (which owns only those it lists). A pid now
/// reused by a living process keeps the directory until that one is gone
/// too: a clock cannot tell which came first safely.
fn abandoned(pid: u32) -> bool {
    if pid == std::process::id() {
        return true;
    }
    rustix::process::Pid::from_raw(pid as i32)
        .is_some_and(|p| rustix::process::test_kill_process(p) == Err(rustix::io::Errno::SRCH))
}

/// `$XDG_RUNTIME_DIR` when it is an absolute directory, else the
/// temporary directory when absolute, else `/tmp`.
fn base_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from) {
        if dir.is_absolute() && dir.is_dir() {
            return dir;
        }
    }
    let tmp = std::env::temp_dir();
    if tmp.is_absolute() {
        tmp
    } else {
        PathBuf::from("/tmp")
    }
}

/// A name part no other call returns: the standard library's per-process
/// random keys over the time and a counter. Unpredictable enough; safety
/// does not depend on it (creation is exclusive).
fn unique() -> u64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    h.write_u128(now);
    h.finish()
}
#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{MetadataExt, PermissionsExt};

    /// A folder with a terminal's title sequence and a newline in its name
    /// is named whole and on one line by the errors that name it.
    #[test]
    fn a_folder_is_named_whole_on_one_line() {
        let said = PrivateDir::create_in(Path::new("a\x1b]0;x\x07\nb"))
            .err()
            .unwrap()
            .to_string();
        assert_eq!(said, "not an absolute directory: a\\e]0;x\\a\\nb");
        let base = tempfile::tempdir().unwrap();
        let open = base.path().join("o\x1b]0;x\x07\np");
        std::fs::create_dir(&open).unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
        let said = PrivateDir::create_in(&open).err().unwrap().to_string();
        assert!(
            said.contains("o\\e]0;x\\a\\np is writable by every user"),
            "{said}"
        );
    }

    #[test]
    fn files_are_the_owner_s_alone_and_go_with_the_directory() {
        let base = tempfile::tempdir().unwrap();
        let dir = PrivateDir::create_in(base.path()).unwrap();
        let meta = std::fs::symlink_metadata(dir.path()).unwrap();
        assert!(meta.is_dir());
        assert_eq!(meta.permissions().mode() & 0o777, 0o700);
        // SAFETY: plain syscall.
        assert_eq!(meta.uid(), rustix::process::geteuid().as_raw());
        let f = dir.write("a.json", b"{\"k\":1}").unwrap();
        assert_eq!(std::fs::read(&f).unwrap(), b"{\"k\":1}");
        let meta = std::fs::symlink_metadata(&f).unwrap();
        assert!(meta.is_file());
        assert_eq!(meta.permissions().mode() & 0o777, 0o600);
        // exclusive: an existing name (or a link planted there) is refused
        assert!(dir.write("a.json", b"x").is_err());
        std::os::unix::fs::symlink("/etc/passwd", dir.path().join("l")).unwrap();
        assert!(dir.write("l", b"x").is_err());
        // two directories never share a name
        let other = PrivateDir::create_in(base.path()).unwrap();
        assert_ne!(other.path(), dir.path());
        let path = dir.path().to_owned();
        drop(dir);
        assert!(!path.exists());
        assert!(f.symlink_metadata().is_err());
        assert!(PrivateDir::create_in(Path::new("rel")).is_err());
    }

    /// A temporary directory every user may write in without the sticky
    /// bit lets another user rename the private directory away and put
    /// one of theirs, with settings of theirs (hooks: their code, run as
    /// this user), in its place before the CLI reads it: refused.
    #[test]
    fn a_base_anyone_may_rename_in_is_refused() {
        let base = tempfile::tempdir().unwrap();
        std::fs::set_permissions(base.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
        let e = PrivateDir::create_in(base.path()).unwrap_err();
        assert!(e.to_string().contains("sticky"), "{e}");
        assert_eq!(
            std::fs::read_dir(base.path()).unwrap().count(),
            0,
            "nothing made"
        );
        // the usual /tmp: world-writable with the sticky bit
        std::fs::set_permissions(base.path(), std::fs::Permissions::from_mode(0o1777)).unwrap();
        let dir = PrivateDir::create_in(base.path()).unwrap();
        assert!(dir.path().is_dir());
    }

    #[test]
    fn only_claudio_s_names_are_read_as_owned() {
        assert_eq!(owner_pid("claudio-42-7-00000000deadbeef"), Some((42, 7)));
        assert_eq!(owner_pid("claudio-42-7-00000000DEADBEEF"), Some((42, 7)));
        for name in [
            "claudio-42-00000000deadbeef",
            "claudio-42-7-deadbeef",
            "claudio-42-7-00000000deadbeef0",
            "claudio--7-00000000deadbeef",
            "claudio-42--00000000deadbeef",
            "claudio-0-7-00000000deadbeef",
            "claudio-+42-7-00000000deadbeef",
            "claudio-42-+7-00000000deadbeef",
            "claudio-99999999999-7-00000000deadbeef",
            "claudio-42-7-0000000-deadbeef",
            "xclaudio-42-7-00000000deadbeef",
            "claudio-42-7-00000000deadbeeg",
        ] {
            assert_eq!(owner_pid(name), None, "{name}");
        }
    }

    #[test]
    fn the_sweep_takes_only_dead_processes_private_directories() {
        use std::os::unix::fs::DirBuilderExt;
        let base = tempfile::tempdir().unwrap();
        let dead = {
            let mut child = std::process::Command::new("true").spawn().unwrap();
            child.wait().unwrap();
            child.id()
        };
        let mkdir = |name: String, mode: u32| {
            let p = base.path().join(name);
            DirBuilder::new().mode(mode).create(&p).unwrap();
            std::fs::write(p.join("settings.json"), "{}").unwrap();
            p
        };
        let ns = pid_namespace();
        let stale = mkdir(format!("claudio-{dead}-{ns}-00000000deadbeef"), 0o700);
        // this process's, not listed as made by it: a former process with
        // the same pid (a container's pids repeat)
        let former = mkdir(
            format!("claudio-{}-{ns}-00000000deadbeef", std::process::id()),
            0o700,
        );
        let ours = PrivateDir::create_in(base.path()).unwrap();
        let kept = [
            // pid 1 lives
            mkdir(format!("claudio-1-{ns}-00000000deadbeef"), 0o700),
            mkdir(format!("claudio-{dead}-{ns}-0000000000000777"), 0o777),
            mkdir(format!("claudio-{dead}-{ns}-0000000000001700"), 0o1700),
            // another pid namespace's (a container sharing the folder)
            mkdir(format!("claudio-{dead}-{}-00000000deadbeef", ns + 1), 0o700),
            // an older claudio's name
            mkdir(format!("claudio-{dead}-00000000deadbeef"), 0o700),
        ];
        let file = base
            .path()
            .join(format!("claudio-{dead}-{ns}-00000000000f11e0"));
        std::fs::write(&file, "x").unwrap();
        let link = base
            .path()
            .join(format!("claudio-{dead}-{ns}-000000000000111c"));
        std::os::unix::fs::symlink(kept[0].clone(), &link).unwrap();
        let mut removed = sweep_in(base.path());
        removed.sort();
        let mut want = vec![stale.clone(), former.clone()];
        want.sort();
        assert_eq!(removed, want);
        assert!(!stale.exists() && !former.exists());
        assert!(ours.path().is_dir());
        for p in &kept {
            assert!(p.join("settings.json").exists(), "{}", p.display());
        }
        assert!(file.is_file());
        assert!(std::fs::symlink_metadata(&link).is_ok());
        // a base that is not there: nothing
        assert!(sweep_in(&base.path().join("none")).is_empty());
    }
}
