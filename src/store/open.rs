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

#[cfg(not(feature = "archive"))]
fn no_archive() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        "an archived transcript (claudio was built without the `archive` feature)",
    )
}

/// Open a file for reading without following a symbolic link at its last
/// component and without blocking on a FIFO.
pub(crate) fn open_nofollow(path: &Path) -> std::io::Result<File> {
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
}

/// Read the head and tail of a transcript, plain or archived. `Ok(None)`
/// for an empty file; an error for a symbolic link, a non-regular file or
/// a read failure.
pub fn read_head_tail(path: &Path) -> std::io::Result<Option<super::headtail::HeadTail>> {
    if is_packed(path) {
        return packed_head_tail(path);
    }
    super::headtail::read_plain(path)
}

/// The two ends of an archived transcript.
fn packed_head_tail(path: &Path) -> std::io::Result<Option<super::headtail::HeadTail>> {
    #[cfg(feature = "archive")]
    return super::packed::head_tail(path);
    #[cfg(not(feature = "archive"))]
    {
        let _ = path;
        Err(no_archive())
    }
}

/// A transcript to read from its start: the file, or an archived one
/// decompressed as it is read (with the archived file's metadata, whose
/// time is the original's).
pub(crate) fn open_stream(path: &Path) -> StoreResult<(Box<dyn Read + Send>, Metadata)> {
    if is_packed(path) {
        #[cfg(feature = "archive")]
        return super::packed::stream(path).map_err(io_err(path));
        #[cfg(not(feature = "archive"))]
        return Err(io_err(path)(no_archive()));
    }
    let (f, m) = open_regular(path)?;
    Ok((Box::new(f), m))
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
        if e.raw_os_error() == Some(libc::ELOOP) {
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

/// The bytes of each of `spans` (offset, length) of a transcript, in the
/// order asked. A plain file is read where each span is. An archived one
/// is decompressed once from its start up to the end of the last span,
/// never held whole: what lies between the spans is passed over as it is
/// read, and only the spans are kept.
pub(crate) fn read_spans(path: &Path, spans: &[(u64, usize)]) -> StoreResult<Vec<Vec<u8>>> {
    use std::io::Read as _;
    if !is_packed(path) {
        let (file, _) = open_regular(path)?;
        return spans
            .iter()
            .map(|&(at, len)| {
                let mut buf = vec![0u8; len];
                std::os::unix::fs::FileExt::read_exact_at(&file, &mut buf, at)
                    .map_err(io_err(path))?;
                Ok(buf)
            })
            .collect();
    }
    let (mut data, _) = open_stream(path)?;
    let mut order: Vec<usize> = (0..spans.len()).collect();
    order.sort_by_key(|&i| spans[i]);
    let mut out: Vec<Vec<u8>> = vec![Vec::new(); spans.len()];
    let (mut pos, mut last) = (0u64, None::<usize>);
    let short = || {
        std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            "the archived transcript is shorter than when it was read",
        )
    };
    for i in order {
        let (at, len) = spans[i];
        if at < pos {
            // inside the span read last (the same line asked again)
            let Some(j) = last else {
                return Err(io_err(path)(short()));
            };
            let from = (at - spans[j].0) as usize;
            let Some(part) = out[j].get(from..from + len) else {
                return Err(io_err(path)(short()));
            };
            out[i] = part.to_vec();
            continue;
        }
        let gap = at - pos;
        let skipped = std::io::copy(&mut (&mut data).take(gap), &mut std::io::sink())
            .map_err(io_err(path))?;
        if skipped != gap {
            return Err(io_err(path)(short()));
        }
        let mut buf = vec![0u8; len];
        data.read_exact(&mut buf).map_err(io_err(path))?;
        out[i] = buf;
        (pos, last) = (at + len as u64, Some(i));
    }
    Ok(out)
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
