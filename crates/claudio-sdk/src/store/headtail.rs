//! Reading only the first and last 64 KiB of a transcript.

use super::open::open_nofollow;
use std::borrow::Cow;
use std::cell::RefCell;
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

impl HeadTail {
    /// The two ends, borrowed.
    pub(crate) fn ends(&self) -> Ends<'_> {
        Ends {
            head: &self.head,
            tail: &self.tail,
            size: self.size,
            modified: self.modified,
        }
    }
}

/// The two ends of a transcript, borrowed: from a [`HeadTail`], or from
/// the reading thread's one buffer ([`with_opened`]), which a listing
/// reads every file into without a copy.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ends<'a> {
    /// The first 64 KiB.
    pub head: &'a str,
    /// The last 64 KiB (the head itself for a file of at most 64 KiB).
    pub tail: &'a str,
    /// The file size when it was opened.
    pub size: u64,
    /// The modification time when it was opened.
    pub modified: SystemTime,
}

thread_local! {
    /// Each reading thread's buffer for both ends: made (and zeroed) once,
    /// then read into again for each file, only the bytes read looked at.
    static BUF: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Up to `buf.len()` bytes from `offset` (fewer if the file shrank).
fn read_into(f: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
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

/// `f` given the ends of an opened plain transcript, read into the
/// thread's buffer: what [`read_opened`] gives, borrowed (valid UTF-8, as
/// nearly always, is not copied; invalid bytes become U+FFFD in a copy).
pub(crate) fn with_opened<R>(
    file: &File,
    meta: &Metadata,
    f: impl FnOnce(io::Result<Option<Ends<'_>>>) -> R,
) -> R {
    BUF.with(|cell| match cell.try_borrow_mut() {
        Ok(mut buf) => {
            if buf.len() < 2 * HEAD_TAIL_BYTES {
                *buf = vec![0; 2 * HEAD_TAIL_BYTES];
            }
            ends_in(file, meta, &mut buf, f)
        }
        // a reader inside a reader (none today): a buffer of its own
        Err(_) => ends_in(file, meta, &mut vec![0; 2 * HEAD_TAIL_BYTES], f),
    })
}

fn ends_in<R>(
    file: &File,
    meta: &Metadata,
    buf: &mut [u8],
    f: impl FnOnce(io::Result<Option<Ends<'_>>>) -> R,
) -> R {
    if !meta.is_file() {
        return f(Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        )));
    }
    let modified = match meta.modified() {
        Ok(m) => m,
        Err(e) => return f(Err(e)),
    };
    let size = meta.len();
    let (head_buf, tail_buf) = buf.split_at_mut(HEAD_TAIL_BYTES);
    let want = size.min(HEAD_TAIL_BYTES as u64) as usize;
    let n = match read_into(file, &mut head_buf[..want], 0) {
        Ok(n) => n,
        Err(e) => return f(Err(e)),
    };
    if n == 0 {
        return f(Ok(None));
    }
    let tail_len = if size > HEAD_TAIL_BYTES as u64 {
        let off = size - HEAD_TAIL_BYTES as u64;
        match read_into(file, &mut tail_buf[..HEAD_TAIL_BYTES], off) {
            Ok(k) => Some(k),
            Err(e) => return f(Err(e)),
        }
    } else {
        None
    };
    let head = text(&head_buf[..n]);
    let tail = match tail_len {
        Some(k) => text(&tail_buf[..k]),
        None => Cow::Borrowed(&*head),
    };
    f(Ok(Some(Ends {
        head: &head,
        tail: &tail,
        size,
        modified,
    })))
}

/// The bytes as text, borrowed when valid UTF-8 (std's check, with its
/// ASCII fast path: `from_utf8_lossy`'s chunking is several times slower).
fn text(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(bytes),
    }
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

/// [`with_opened`] of a plain transcript not yet opened (opened as
/// [`read_plain`] opens it).
pub(crate) fn with_plain<R>(path: &Path, f: impl FnOnce(io::Result<Option<Ends<'_>>>) -> R) -> R {
    let file = match open_nofollow(path) {
        Ok(file) => file,
        Err(e) => return f(Err(e)),
    };
    match file.metadata() {
        Ok(meta) => with_opened(&file, &meta, f),
        Err(e) => f(Err(e)),
    }
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
    use proptest::prelude::*;
    use std::io::Write;

    /// What the ends are by definition: the whole file read, then its
    /// first and last 64 KiB decoded (U+FFFD for what is not UTF-8).
    fn ends_of_whole(bytes: &[u8]) -> Option<(String, String)> {
        if bytes.is_empty() {
            return None;
        }
        let head = &bytes[..bytes.len().min(HEAD_TAIL_BYTES)];
        let tail = &bytes[bytes.len().saturating_sub(HEAD_TAIL_BYTES)..];
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        Some((text(head), text(tail)))
    }

    fn borrowed(path: &Path) -> Option<(String, String, u64)> {
        with_plain(path, |ends| {
            ends.unwrap()
                .map(|e| (e.head.to_owned(), e.tail.to_owned(), e.size))
        })
    }

    /// A file's bytes: pieces (multi-byte characters, invalid bytes, line
    /// breaks, JSON) around a run of filler whose length moves the 64 KiB
    /// cuts through them.
    fn contents() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop_oneof![
            Just(b"\n".to_vec()),
            Just("\u{e9}".as_bytes().to_vec()),
            Just("\u{2713}".as_bytes().to_vec()),
            Just("\u{1f600}".as_bytes().to_vec()),
            Just(b"\xff\xfe".to_vec()),
            Just(b"\xe2\x82".to_vec()),
            Just(br#"{"type":"user","message":{"content":"hi"}}"#.to_vec()),
            "[a-z ]{0,40}".prop_map(String::into_bytes),
        ];
        (
            proptest::collection::vec(piece.clone(), 0..12),
            0usize..3 * HEAD_TAIL_BYTES,
            proptest::collection::vec(piece, 0..12),
        )
            .prop_map(|(a, fill, b)| {
                let mut out: Vec<u8> = a.concat();
                out.resize(out.len() + fill, b'x');
                out.extend(b.concat());
                out
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
        /// The ends read into the thread's one buffer are the ends of the
        /// whole file, and what the owned reading gives, whatever was read
        /// into the buffer before (a longer file, then a shorter one, then
        /// the same again).
        #[test]
        fn the_borrowed_ends_are_the_whole_file_s(bytes in contents(), cut in 0usize..200_000) {
            let dir = tempfile::tempdir().unwrap();
            let short = &bytes[..cut.min(bytes.len())];
            for (name, b) in [("a", &bytes[..]), ("b", short), ("c", &bytes[..])] {
                let p = dir.path().join(name);
                std::fs::write(&p, b).unwrap();
                let want = ends_of_whole(b);
                let got = borrowed(&p);
                prop_assert_eq!(
                    got.as_ref().map(|(h, t, _)| (h.clone(), t.clone())),
                    want.clone()
                );
                if let Some((_, _, size)) = got {
                    prop_assert_eq!(size, b.len() as u64);
                }
                let owned = read_plain(&p).unwrap().map(|ht| (ht.head, ht.tail));
                prop_assert_eq!(owned, want);
            }
        }
    }

    #[test]
    fn borrowed_ends_refuse_what_the_owned_refuse() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f.jsonl");
        std::fs::write(&f, "{}\n").unwrap();
        let link = dir.path().join("l.jsonl");
        std::os::unix::fs::symlink(&f, &link).unwrap();
        for p in [link.as_path(), dir.path(), &dir.path().join("missing")] {
            assert!(with_plain(p, |e| e.is_err()), "{}", p.display());
        }
        let empty = dir.path().join("e.jsonl");
        std::fs::write(&empty, "").unwrap();
        assert!(with_plain(&empty, |e| e.unwrap().is_none()));
    }

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
