//! Reading only the first and last 64 KiB of a transcript.

use super::open::open_nofollow;
use std::fs::{File, Metadata};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::time::SystemTime;

/// How much of each end of a file is read when listing.
pub(crate) const HEAD_TAIL_BYTES: usize = 64 * 1024;

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

/// Up to [`HEAD_TAIL_BYTES`] from `offset`, as text. Valid UTF-8 (nearly
/// always) becomes the `String` without a copy.
fn read_text(f: &File, offset: u64, size: u64) -> io::Result<String> {
    // One `pread` for the whole part (the page cache gives it at once);
    // shorter if the file shrank meanwhile.
    let want = size.saturating_sub(offset).min(HEAD_TAIL_BYTES as u64) as usize;
    let mut bytes = vec![0u8; want];
    let mut n = 0;
    while n < want {
        match f.read_at(&mut bytes[n..], offset + n as u64) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    bytes.truncate(n);
    Ok(crate::text::into_string_lossy(bytes))
}

/// Read the head and tail of a plain (not archived) transcript. `Ok(None)`
/// for an empty file; an error for a symbolic link, a non-regular file or
/// a read failure. `either::read_head_tail` reads either kind.
pub(crate) fn read_plain(path: &Path) -> io::Result<Option<HeadTail>> {
    let f = open_nofollow(path)?;
    let meta = f.metadata()?;
    read_opened(&f, &meta)
}

/// [`read_plain`] of a file already opened, with its metadata as opened.
pub(crate) fn read_opened(f: &File, meta: &Metadata) -> io::Result<Option<HeadTail>> {
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    let size = meta.len();
    let head = read_text(f, 0, size)?;
    if head.is_empty() {
        return Ok(None);
    }
    let tail = if size > HEAD_TAIL_BYTES as u64 {
        read_text(f, size - HEAD_TAIL_BYTES as u64, size)?
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
        let ht = read_plain(&p).unwrap().unwrap();
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
        let ht = read_plain(&p).unwrap().unwrap();
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
        assert!(read_plain(&empty).unwrap().is_none());
        let bad = dir.path().join("b.jsonl");
        std::fs::write(&bad, b"{\"x\":\"\xff\xfe\"}\n").unwrap();
        assert_eq!(
            read_plain(&bad).unwrap().unwrap().head,
            "{\"x\":\"\u{fffd}\u{fffd}\"}\n"
        );
        let link = dir.path().join("l.jsonl");
        std::os::unix::fs::symlink(&bad, &link).unwrap();
        assert!(read_plain(&link).is_err());
        assert!(read_plain(dir.path()).is_err());
    }
}
