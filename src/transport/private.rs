//! Private files for what must not go on the CLI's command line.
//!
//! Every local user can read `/proc/PID/cmdline`, so settings and MCP server
//! configurations (which hold tokens: a stdio server's `env`, an http
//! server's `headers`) are handed to the CLI as the path of a file only its
//! owner can read: mode 0600, created exclusively, in a fresh mode-0700
//! directory. The directory goes when its [`PrivateDir`] is dropped, which
//! the process supervisor does once the CLI has ended.

use std::fs::{DirBuilder, OpenOptions};
use std::hash::{BuildHasher, Hasher};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A fresh directory only this user can enter, removed with what it holds
/// when dropped.
#[derive(Debug)]
pub(crate) struct PrivateDir {
    path: PathBuf,
}

impl PrivateDir {
    /// Make one under `$XDG_RUNTIME_DIR` (a per-user tmpfs, cleared at
    /// logout) when it is set to an absolute directory, else under the
    /// temporary directory.
    pub(crate) fn create() -> io::Result<PrivateDir> {
        Self::create_in(&base_dir())
    }

    /// Make one under `base` (which must be absolute: the CLI may run
    /// in another directory).
    pub(crate) fn create_in(base: &Path) -> io::Result<PrivateDir> {
        if !base.is_absolute() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("not an absolute directory: {}", base.display()),
            ));
        }
        let mut last = None;
        for _ in 0..16 {
            let path = base.join(format!("claudio-{}-{:016x}", std::process::id(), unique()));
            // mkdir never follows a link at its last component, and fails
            // when the name exists: what it makes is new, and ours.
            match DirBuilder::new().mode(0o700).create(&path) {
                Ok(()) => return Ok(PrivateDir { path }),
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
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&path)?;
        file.write_all(contents)?;
        file.sync_all()?;
        Ok(path)
    }
}

impl Drop for PrivateDir {
    fn drop(&mut self) {
        if let Err(e) = std::fs::remove_dir_all(&self.path) {
            if e.kind() != io::ErrorKind::NotFound {
                tracing::warn!(path = %self.path.display(), error = %e,
                    "could not remove the private directory of the CLI's settings and MCP servers");
            }
        }
    }
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
}
