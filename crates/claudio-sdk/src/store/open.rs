//! The one way the store opens a file to read it.
//!
//! Everything under `~/.claude/projects` is data someone else wrote, and
//! any name there may be a symbolic link, a FIFO or a device. A file is
//! opened without following a link at its last component (`O_NOFOLLOW`)
//! and without waiting for a writer (`O_NONBLOCK`), and only a regular file
//! is read: a link to `/dev/zero` or outside the store, a FIFO or a socket
//! is refused at once, never read.

use super::error::{io_err, StoreError, StoreResult};
use std::fs::{File, Metadata};
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// The file name ending of an archived (compressed) transcript.
pub(crate) const PACKED_EXT: &str = ".jsonl.zst";

/// Whether `path` names an archived transcript, read through the archive's
/// decompressor (which opens it as this module does).
pub(crate) fn is_packed(path: &Path) -> bool {
    path.as_os_str()
        .as_encoded_bytes()
        .ends_with(PACKED_EXT.as_bytes())
}

/// Open a file for reading without following a symbolic link at its last
/// component and without blocking on a FIFO.
pub(crate) fn open_nofollow(path: &Path) -> std::io::Result<File> {
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(
            (rustix::fs::OFlags::NOFOLLOW
                | rustix::fs::OFlags::NONBLOCK
                | rustix::fs::OFlags::CLOEXEC)
                .bits() as i32,
        )
        .open(path)
}

/// Open `path` for reading if it is a regular file (not a link to one).
/// An archived transcript is not opened this way: it is read as a stream
/// ([`open_stream`], [`read_spans`]), never decompressed whole to a file or
/// into memory.
pub(crate) fn open_regular(path: &Path) -> StoreResult<(File, Metadata)> {
    if is_packed(path) {
        return Err(io_err(path)(std::io::Error::new(
            std::io::ErrorKind::Unsupported,
            "an archived transcript is read as a stream",
        )));
    }
    let file = open_nofollow(path).map_err(|e| {
        if rustix::io::Errno::from_io_error(&e) == Some(rustix::io::Errno::LOOP) {
            StoreError::NotAFile(path.to_path_buf())
        } else {
            io_err(path)(e)
        }
    })?;
    let meta = file.metadata().map_err(io_err(path))?;
    if !meta.is_file() {
        return Err(StoreError::NotAFile(path.to_path_buf()));
    }
    Ok((file, meta))
}

/// The whole of a small regular file (at most `max` bytes; a bigger one is
/// an error, not cut).
pub(crate) fn read_small(path: &Path, max: u64) -> StoreResult<Vec<u8>> {
    let (file, meta) = open_regular(path)?;
    if meta.len() > max {
        return Err(io_err(path)(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("larger than {max} bytes"),
        )));
    }
    let mut out = Vec::with_capacity(meta.len() as usize);
    // a file that grew since: still no more than `max` (+1 to see it)
    file.take(max + 1)
        .read_to_end(&mut out)
        .map_err(io_err(path))?;
    if out.len() as u64 > max {
        return Err(io_err(path)(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("larger than {max} bytes"),
        )));
    }
    Ok(out)
}

/// An archived transcript to read from its start (as `either::open_stream`),
/// and, when its two ends as a listing reads them are the first and last
/// 64 KiB of what is read, the size and time its header records.
pub(crate) type PackedStream = (
    Box<dyn Read + Send>,
    Metadata,
    Option<(u64, std::time::SystemTime)>,
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_are_opened() {
        let d = tempfile::tempdir().unwrap();
        let file = d.path().join("a.jsonl");
        std::fs::write(&file, "{}\n").unwrap();
        assert!(open_regular(&file).is_ok());
        assert_eq!(read_small(&file, 3).unwrap(), b"{}\n");
        assert!(read_small(&file, 2).is_err(), "too big is an error");

        let link = d.path().join("zero.jsonl");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        assert!(matches!(open_regular(&link), Err(StoreError::NotAFile(_))));
        let out = d.path().join("out.jsonl");
        std::os::unix::fs::symlink(&file, &out).unwrap();
        assert!(matches!(open_regular(&out), Err(StoreError::NotAFile(_))));

        // a FIFO: refused at once, never waited on
        let fifo = d.path().join("fifo.jsonl");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success());
        assert!(matches!(open_regular(&fifo), Err(StoreError::NotAFile(_))));
        assert!(read_small(&fifo, 100).is_err());
        assert!(matches!(
            open_regular(d.path()),
            Err(StoreError::NotAFile(_))
        ));
    }
}
