//! Reading an archived transcript: a `.jsonl.zst` file of the archive
//! (see [`archive`](super::archive) for the layout and the writer).
//!
//! The file starts with a zstd skippable frame, the header, which holds the
//! original file's size and modification time and where its last frame
//! starts; then the transcript, as one zstd frame for a file of up to
//! 128 KiB, else all but its last 64 KiB in frames of 4 MiB (one in a file
//! written before there were chunks) and those 64 KiB in a frame of their
//! own. A listing thus decompresses the first 64 KiB and the last frame
//! only, with a decompressor kept per thread. Everything else reads the
//! transcript as a stream ([`stream`]): it is never decompressed whole, to
//! a file or into memory.

use super::headtail::{HeadTail, HEAD_TAIL_BYTES};
use super::open::open_nofollow;
use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A zstd skippable frame's magic number (one of 0x184D2A50..=0x184D2A5F).
const MAGIC: u32 = 0x184D_2A5C;
/// What the header's payload starts with.
const TAG: &[u8; 8] = b"claudio1";
/// The header: magic, frame size, then the payload.
pub(crate) const HEADER_LEN: usize = 8 + PAYLOAD_LEN;
const PAYLOAD_LEN: usize = 8 + 8 + 8 + 8 + 8 + 8;

/// What the header says of the original file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Header {
    /// The original file's size.
    pub size: u64,
    /// Its modification time.
    pub mtime: SystemTime,
    /// Where the frame with the last 64 KiB starts in the archived file (0:
    /// there is one frame).
    pub tail_at: u64,
    /// Where that frame's content starts in the original file.
    pub tail_from: u64,
}

impl Header {
    pub(crate) fn to_bytes(self) -> [u8; HEADER_LEN] {
        let mut out = [0u8; HEADER_LEN];
        out[0..4].copy_from_slice(&MAGIC.to_le_bytes());
        out[4..8].copy_from_slice(&(PAYLOAD_LEN as u32).to_le_bytes());
        out[8..16].copy_from_slice(TAG);
        let (secs, nanos) = split_time(self.mtime);
        out[16..24].copy_from_slice(&self.size.to_le_bytes());
        out[24..32].copy_from_slice(&secs.to_le_bytes());
        out[32..40].copy_from_slice(&u64::from(nanos).to_le_bytes());
        out[40..48].copy_from_slice(&self.tail_at.to_le_bytes());
        out[48..56].copy_from_slice(&self.tail_from.to_le_bytes());
        out
    }

    pub(crate) fn parse(b: &[u8; HEADER_LEN]) -> Option<Header> {
        let u = |r: std::ops::Range<usize>| u64::from_le_bytes(b[r].try_into().expect("8 bytes"));
        if b[0..4] != MAGIC.to_le_bytes()
            || b[4..8] != (PAYLOAD_LEN as u32).to_le_bytes()
            || &b[8..16] != TAG
        {
            return None;
        }
        let nanos = u(32..40);
        if nanos >= 1_000_000_000 {
            return None;
        }
        let mtime = join_time(u(24..32) as i64, nanos as u32)?;
        Some(Header {
            size: u(16..24),
            mtime,
            tail_at: u(40..48),
            tail_from: u(48..56),
        })
    }

    /// The header of an open archived file; `None` when it has none.
    pub(crate) fn read(file: &File) -> io::Result<Option<Header>> {
        let mut b = [0u8; HEADER_LEN];
        match file.read_exact_at(&mut b, 0) {
            Ok(()) => Ok(Header::parse(&b)),
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// A time as whole seconds from the epoch (negative before 1970) and the
/// nanoseconds after them. The seconds are stored as an `i64` in two's
/// complement: a time after 1970 reads as it did when they were a `u64`.
fn split_time(t: SystemTime) -> (i64, u32) {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => (
            i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
            d.subsec_nanos(),
        ),
        Err(e) => {
            let d = e.duration();
            let secs = i64::try_from(d.as_secs()).unwrap_or(i64::MAX);
            match d.subsec_nanos() {
                0 => (-secs, 0),
                n => (-secs - 1, 1_000_000_000 - n),
            }
        }
    }
}

/// [`split_time`] undone.
fn join_time(secs: i64, nanos: u32) -> Option<SystemTime> {
    let whole = if secs >= 0 {
        UNIX_EPOCH.checked_add(Duration::from_secs(secs.unsigned_abs()))?
    } else {
        UNIX_EPOCH.checked_sub(Duration::from_secs(secs.unsigned_abs()))?
    };
    whole.checked_add(Duration::from_nanos(u64::from(nanos)))
}

fn not_archive() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, "not a claudio archive file")
}

/// Open an archived file (no link, no FIFO) and read its header.
fn open_packed(path: &Path) -> io::Result<(File, Header)> {
    let f = open_nofollow(path)?;
    if !f.metadata()?.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    let h = Header::read(&f)?.ok_or_else(not_archive)?;
    Ok((f, h))
}

/// The decompressed content of `file` from `at` (a frame's start), at most
/// `max` bytes.
fn decoder(file: File, at: u64, max: u64) -> io::Result<impl Read> {
    let mut file = file;
    file.seek(SeekFrom::Start(at))?;
    Ok(zstd::stream::read::Decoder::with_buffer(BufReader::new(file))?.take(max))
}

thread_local! {
    /// One decompressor per thread, reused from file to file.
    static DCTX: std::cell::RefCell<Option<zstd::zstd_safe::DCtx<'static>>> =
        const { std::cell::RefCell::new(None) };
}

/// Run `f` with this thread's decompressor.
fn with_dctx<T>(
    f: impl FnOnce(&mut zstd::zstd_safe::DCtx<'static>) -> io::Result<T>,
) -> io::Result<T> {
    DCTX.with(|cell| {
        let mut slot = cell.borrow_mut();
        let dctx = match slot.as_mut() {
            Some(d) => d,
            None => slot.insert(
                zstd::zstd_safe::DCtx::try_create()
                    .ok_or_else(|| io::Error::other("cannot make a zstd decompressor"))?,
            ),
        };
        f(dctx)
    })
}

/// The first `max` bytes of the frame at `at`.
fn frame_start(file: &File, at: u64, max: usize) -> io::Result<Vec<u8>> {
    let mut r = file;
    r.seek(SeekFrom::Start(at))?;
    with_dctx(|dctx| {
        let mut d =
            zstd::stream::read::Decoder::with_context(BufReader::with_capacity(16 << 10, r), dctx)
                .single_frame();
        let mut out = Vec::with_capacity(max.min(HEAD_TAIL_BYTES));
        (&mut d).take(max as u64).read_to_end(&mut out)?;
        Ok(out)
    })
}

/// The two ends of an archived transcript, with the original's size and
/// time. `Ok(None)` when it was empty.
pub(crate) fn head_tail(path: &Path) -> io::Result<Option<HeadTail>> {
    let (f, h) = open_packed(path)?;
    if h.size == 0 {
        return Ok(None);
    }
    let ends = HEAD_TAIL_BYTES as u64;
    let (head, tail) = if h.tail_at > 0 {
        // two frames: the last holds the last 64 KiB
        if h.tail_from != h.size.saturating_sub(ends) {
            return Err(not_archive());
        }
        let head = frame_start(&f, HEADER_LEN as u64, HEAD_TAIL_BYTES)?;
        let tail = frame_start(&f, h.tail_at, HEAD_TAIL_BYTES)?;
        (head, tail)
    } else {
        // one frame, of at most twice the ends
        if h.size > 2 * ends {
            return Err(not_archive());
        }
        let mut all = frame_start(&f, HEADER_LEN as u64, 2 * HEAD_TAIL_BYTES)?;
        let tail = all[all.len().saturating_sub(HEAD_TAIL_BYTES)..].to_vec();
        all.truncate(HEAD_TAIL_BYTES);
        (all, tail)
    };
    if head.is_empty() {
        return Ok(None);
    }
    Ok(Some(HeadTail {
        head: crate::text::into_string_lossy(head),
        tail: crate::text::into_string_lossy(tail),
        size: h.size,
        modified: h.mtime,
    }))
}

/// [`stream`], with the size the header records: what the whole
/// transcript comes to (a stream that ends short of it was cut).
pub(crate) fn stream_sized(path: &Path) -> io::Result<(Box<dyn Read + Send>, u64)> {
    let (f, h) = open_packed(path)?;
    Ok((Box::new(decoder(f, 0, h.size)?), h.size))
}

/// The whole transcript, decompressed as it is read (at most the size its
/// header records).
pub(crate) fn stream(path: &Path) -> io::Result<(Box<dyn Read + Send>, std::fs::Metadata)> {
    let (f, h) = open_packed(path)?;
    let meta = f.metadata()?;
    Ok((Box::new(decoder(f, 0, h.size)?), meta))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_round_trips_and_rejects_other_data() {
        let h = Header {
            size: 123_456,
            mtime: UNIX_EPOCH + Duration::new(1_700_000_000, 123_456_789),
            tail_at: 999,
            tail_from: 123_456 - 65_536,
        };
        assert_eq!(Header::parse(&h.to_bytes()), Some(h));
        // before 1970, to the nanosecond
        for (secs, nanos) in [(86_400 * 3650, 250), (1, 0), (0, 1), (0, 999_999_999)] {
            let old = Header {
                mtime: UNIX_EPOCH - Duration::new(secs, nanos),
                ..h
            };
            assert_eq!(Header::parse(&old.to_bytes()), Some(old), "{secs} {nanos}");
        }
        let mut bad = h.to_bytes();
        bad[8] = b'X';
        assert_eq!(Header::parse(&bad), None);
        let mut bad = h.to_bytes();
        bad[0] = 0x28; // a plain zstd frame
        assert_eq!(Header::parse(&bad), None);
        use crate::store::open::is_packed;
        assert!(is_packed(Path::new("/a/b.jsonl.zst")));
        assert!(!is_packed(Path::new("/a/b.jsonl")));
    }
}
