//! Reading only the first and last 64 KiB of a transcript.

use super::scan::decode_lossy;
use std::fs::File;
use std::io;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;
use std::time::SystemTime;

/// How much of each end of a file is read when listing.
pub const HEAD_TAIL_BYTES: usize = 64 * 1024;

/// The two ends of a transcript, decoded as UTF-8 (invalid bytes become
/// U+FFFD). For files up to 64 KiB the tail is the head.
#[derive(Debug, Clone)]
pub struct HeadTail {
    /// The first 64 KiB.
    pub head: String,
    /// The last 64 KiB (it may start in the middle of a line).
    pub tail: String,
    /// The file size when it was opened.
    pub size: u64,
    /// The modification time when it was opened.
    pub modified: SystemTime,
}

/// Buffers reused across files, so a listing allocates little.
pub(crate) struct ReadBuf {
    buf: Vec<u8>,
}

impl ReadBuf {
    pub(crate) fn new() -> ReadBuf {
        ReadBuf {
            buf: vec![0; HEAD_TAIL_BYTES],
        }
    }
}

/// Open a file for reading without following a symbolic link at its last
/// component and without blocking on a FIFO.
pub(crate) fn open_nofollow(path: &Path) -> io::Result<File> {
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
}

fn read_at_full(f: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match f.read_at(&mut buf[n..], offset + n as u64) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Read the head and tail of a transcript. `Ok(None)` for an empty file;
/// an error for a symbolic link, a non-regular file or a read failure.
pub fn read_head_tail(path: &Path) -> io::Result<Option<HeadTail>> {
    read_head_tail_with(path, &mut ReadBuf::new())
}

pub(crate) fn read_head_tail_with(path: &Path, rb: &mut ReadBuf) -> io::Result<Option<HeadTail>> {
    let f = open_nofollow(path)?;
    let meta = f.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    let n = read_at_full(&f, &mut rb.buf, 0)?;
    if n == 0 {
        return Ok(None);
    }
    let head = decode_lossy(&rb.buf[..n]);
    let size = meta.len();
    let tail = if size > HEAD_TAIL_BYTES as u64 {
        let k = read_at_full(&f, &mut rb.buf, size - HEAD_TAIL_BYTES as u64)?;
        decode_lossy(&rb.buf[..k])
    } else {
        head.clone()
    };
    Ok(Some(HeadTail {
        head,
        tail,
        size,
        modified: meta.modified()?,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn small_files_have_one_part() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.jsonl");
        std::fs::write(&p, "{\"a\":1}\n").unwrap();
        let ht = read_head_tail(&p).unwrap().unwrap();
        assert_eq!(ht.head, "{\"a\":1}\n");
        assert_eq!(ht.tail, ht.head);
        assert_eq!(ht.size, 8);
    }

    #[test]
    fn big_files_give_both_ends_only() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("big.jsonl");
        let mut f = File::create(&p).unwrap();
        f.write_all(b"HEAD").unwrap();
        f.write_all(&vec![b'x'; 1 << 20]).unwrap();
        f.write_all(b"TAIL").unwrap();
        drop(f);
        let ht = read_head_tail(&p).unwrap().unwrap();
        assert_eq!(ht.head.len(), HEAD_TAIL_BYTES);
        assert_eq!(ht.tail.len(), HEAD_TAIL_BYTES);
        assert!(ht.head.starts_with("HEAD") && ht.tail.ends_with("TAIL"));
        assert_eq!(ht.size, (1 << 20) + 8);
    }

    #[test]
    fn empty_invalid_and_links() {
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("e.jsonl");
        std::fs::write(&empty, "").unwrap();
        assert!(read_head_tail(&empty).unwrap().is_none());
        let bad = dir.path().join("b.jsonl");
        std::fs::write(&bad, b"{\"x\":\"\xff\xfe\"}\n").unwrap();
        assert_eq!(
            read_head_tail(&bad).unwrap().unwrap().head,
            "{\"x\":\"\u{fffd}\u{fffd}\"}\n"
        );
        let link = dir.path().join("l.jsonl");
        std::os::unix::fs::symlink(&bad, &link).unwrap();
        assert!(read_head_tail(&link).is_err());
        assert!(read_head_tail(dir.path()).is_err());
    }
}
