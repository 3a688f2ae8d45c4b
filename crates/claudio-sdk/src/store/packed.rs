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
//!
//! The file ends with a second skippable frame, the usage summary: what
//! the usage report reads from the transcript (the usage index's record
//! of it), the original's size and time, where the frames before it end
//! and their checksum; its last bytes are its length and a tag, so that it
//! is found from the file's end. [`summarized_usage`] believes it only
//! when all of that matches the file; a file without one (written before
//! there were summaries) or with one that does not hold is read whole.

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
pub(crate) fn open_packed(path: &Path) -> io::Result<(File, Header)> {
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

/// The decompressed content of `file` from `at` (a frame's start): `len`
/// bytes, and an error where it ends short of them (a file cut at a
/// frame's end decompresses without one: its reader must not take what
/// it gives for the whole transcript).
fn decoder(file: File, at: u64, len: u64) -> io::Result<impl Read> {
    let mut file = file;
    file.seek(SeekFrom::Start(at))?;
    Ok(Exact {
        inner: zstd::stream::read::Decoder::with_buffer(BufReader::new(file))?.take(len),
        len,
        left: len,
    })
}

/// A reader of exactly `len` bytes: one that ends sooner is an error.
struct Exact<R> {
    inner: R,
    len: u64,
    left: u64,
}

impl<R: Read> Read for Exact<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n == 0 && self.left > 0 && !buf.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "the archived transcript is cut short: {} of its {} bytes",
                    self.len - self.left,
                    self.len
                ),
            ));
        }
        self.left -= n as u64;
        Ok(n)
    }
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

/// The transcript of the archived file `file` (with `header`),
/// decompressed as it is read (at most the size its header records).
pub(crate) fn stream_of(file: &File, header: &Header) -> io::Result<Box<dyn Read + Send>> {
    Ok(Box::new(decoder(file.try_clone()?, 0, header.size)?))
}

/// [`stream`], with the size and time the header records when the
/// transcript's two ends, as [`head_tail`] reads them from their frames,
/// are the first and last 64 KiB of what the stream gives (the header
/// says so): a reader of the whole stream can take them from it.
pub(crate) fn stream_and_ends(path: &Path) -> io::Result<super::open::PackedStream> {
    let (f, h) = open_packed(path)?;
    let meta = f.metadata()?;
    let ends = HEAD_TAIL_BYTES as u64;
    let alike = h.size > 0
        && if h.tail_at > 0 {
            h.tail_from == h.size.saturating_sub(ends)
        } else {
            h.size <= 2 * ends
        };
    Ok((
        Box::new(decoder(f, 0, h.size)?),
        meta,
        alike.then_some((h.size, h.mtime)),
    ))
}

/// The whole transcript, decompressed as it is read (at most the size its
/// header records).
pub(crate) fn stream(path: &Path) -> io::Result<(Box<dyn Read + Send>, std::fs::Metadata)> {
    let (f, h) = open_packed(path)?;
    let meta = f.metadata()?;
    Ok((Box::new(decoder(f, 0, h.size)?), meta))
}

// ---- the usage summary

/// A zstd skippable frame's magic number, for the usage summary (the
/// header's is [`MAGIC`]).
const SUMMARY_MAGIC: u32 = 0x184D_2A5D;
/// What an archived file with a usage summary ends with.
const SUMMARY_TAG: &[u8; 8] = b"claudioU";
/// The summary frame's fixed part: magic, frame size; the usage format's
/// version, the original's size and time (seconds, nanoseconds), where the
/// frame starts, the checksum of the file before it, the usage's length;
/// then (after the usage) the frame's checksum, its length and the tag.
const SUMMARY_FIXED: usize = 8 + 4 + 8 + 8 + 8 + 8 + 8 + 4;
const SUMMARY_TRAILER: usize = 8 + 4 + 8;
/// A summary frame bigger than this is neither written nor read (the
/// transcript is read whole instead): the usage of a transcript of half a
/// million API messages, about 40 MB, fits.
const MAX_SUMMARY: u64 = 64 << 20;

/// A 64-bit checksum of the first `end` bytes of `file`, read in blocks:
/// what ties a usage summary to the compressed bytes it summarises (not a
/// defence against anyone who can write the archive: against a file whose
/// frames were replaced, cut or damaged, its summary kept).
pub(crate) fn checksum_of(file: &File, end: u64) -> io::Result<u64> {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    const BLOCK: usize = 256 << 10; // a multiple of 32
    thread_local! {
        static BUF: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    BUF.with(|cell| {
        let mut buf = cell.borrow_mut();
        buf.resize(BLOCK, 0);
        let mut lanes = [
            0xcbf2_9ce4_8422_2325u64,
            0x8422_2325_cbf2_9ce4,
            0x9ce4_cbf2_2325_8422,
            0x2325_8422_9ce4_cbf2,
        ];
        let mut at = 0u64;
        while at < end {
            let n = BLOCK.min((end - at) as usize);
            file.read_exact_at(&mut buf[..n], at)?;
            let mut words = buf[..n].chunks_exact(32);
            for w in &mut words {
                for (i, lane) in lanes.iter_mut().enumerate() {
                    let x = u64::from_le_bytes(w[i * 8..i * 8 + 8].try_into().expect("8 bytes"));
                    *lane = (*lane ^ x).wrapping_mul(K).rotate_left(31);
                }
            }
            // only the last block has a remainder (the others are whole)
            for &x in words.remainder() {
                lanes[0] = (lanes[0] ^ u64::from(x)).wrapping_mul(K).rotate_left(31);
            }
            at += n as u64;
        }
        let mut h = end.wrapping_mul(K);
        for lane in lanes {
            h = (h ^ lane).wrapping_mul(K).rotate_left(27);
        }
        Ok(h ^ (h >> 29))
    })
}

/// [`checksum_of`] of a slice (for the frame's own checksum).
fn checksum_bytes(b: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h = (b.len() as u64).wrapping_mul(K) ^ 0x2545_f491_4f6c_dd1d;
    for &x in b {
        h = (h ^ u64::from(x)).wrapping_mul(K).rotate_left(31);
    }
    h ^ (h >> 29)
}

/// The usage summary frame, put at the end of an archived file whose
/// frames (header included) end at `data_end` and have the checksum
/// `data_sum` ([`checksum_of`]): `usage` is what a full read of the
/// transcript the `header` describes gives (prompts counted). `None` for
/// a usage too big to keep so.
pub(crate) fn summary_frame(
    header: &Header,
    data_end: u64,
    data_sum: u64,
    usage: &crate::store::usage_types::FileUsage,
) -> Option<Vec<u8>> {
    let bytes = super::usage_index::record::usage_bytes(usage);
    if (SUMMARY_FIXED + bytes.len() + SUMMARY_TRAILER) as u64 > MAX_SUMMARY {
        return None; // read whole instead
    }
    let mut out = Vec::with_capacity(SUMMARY_FIXED + bytes.len() + SUMMARY_TRAILER);
    let len = SUMMARY_FIXED + bytes.len() + SUMMARY_TRAILER;
    out.extend_from_slice(&SUMMARY_MAGIC.to_le_bytes());
    out.extend_from_slice(&((len - 8) as u32).to_le_bytes());
    out.extend_from_slice(&super::usage_index::record::USAGE_VERSION.to_le_bytes());
    let (secs, nanos) = split_time(header.mtime);
    out.extend_from_slice(&header.size.to_le_bytes());
    out.extend_from_slice(&secs.to_le_bytes());
    out.extend_from_slice(&u64::from(nanos).to_le_bytes());
    out.extend_from_slice(&data_end.to_le_bytes());
    out.extend_from_slice(&data_sum.to_le_bytes());
    out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(&bytes);
    let sum = checksum_bytes(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out.extend_from_slice(&(len as u32).to_le_bytes());
    out.extend_from_slice(SUMMARY_TAG);
    debug_assert_eq!(out.len(), len);
    Some(out)
}

/// What a summary frame says, checked against itself and the file it
/// ends (its `header`, its length `file_len`), but not yet against the
/// checksum of the frames before it.
struct Summary {
    data_end: u64,
    data_sum: u64,
    usage: Vec<u8>,
}

/// Read the summary frame at the end of `file` (of `file_len` bytes, with
/// `header`); `None` when it has none, of another format, or one that
/// does not match the file (another size or time, another length: a
/// stale or forged summary).
fn read_summary(file: &File, header: &Header, file_len: u64) -> io::Result<Option<Summary>> {
    let min = (HEADER_LEN + SUMMARY_FIXED + SUMMARY_TRAILER) as u64;
    if file_len < min {
        return Ok(None);
    }
    let mut end = [0u8; 12];
    file.read_exact_at(&mut end, file_len - 12)?;
    if &end[4..12] != SUMMARY_TAG {
        return Ok(None);
    }
    let len = u64::from(u32::from_le_bytes(end[0..4].try_into().expect("4 bytes")));
    let room = file_len - HEADER_LEN as u64;
    if len < (SUMMARY_FIXED + SUMMARY_TRAILER) as u64 || len > room || len > MAX_SUMMARY {
        return Ok(None);
    }
    let data_end = file_len - len;
    let mut b = vec![0u8; len as usize];
    file.read_exact_at(&mut b, data_end)?;
    let u32_at = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"));
    let u64_at = |at: usize| u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"));
    let body = b.len() - SUMMARY_TRAILER;
    if u32_at(0) != SUMMARY_MAGIC
        || u64::from(u32_at(4)) != len - 8
        || u64_at(body) != checksum_bytes(&b[..body])
        || u32_at(8) != super::usage_index::record::USAGE_VERSION
    {
        return Ok(None);
    }
    let (secs, nanos) = split_time(header.mtime);
    if u64_at(12) != header.size
        || u64_at(20) != secs as u64
        || u64_at(28) != u64::from(nanos)
        || u64_at(36) != data_end
        || SUMMARY_FIXED + u32_at(52) as usize != body
    {
        return Ok(None);
    }
    Ok(Some(Summary {
        data_end,
        data_sum: u64_at(44),
        usage: b[SUMMARY_FIXED..body].to_vec(),
    }))
}

/// Whether the archived file `file` (with `header`) ends with a usage
/// summary of this format that matches its header and length (the
/// checksum of its frames not read: what the archive's pass asks of a
/// file it would otherwise leave as it is).
pub(crate) fn has_summary(file: &File, header: &Header) -> bool {
    let Ok(meta) = file.metadata() else {
        return false;
    };
    meta.is_file() && matches!(read_summary(file, header, meta.len()), Ok(Some(_)))
}

/// Where the frames end that the usage summary of `file` (with `header`)
/// covers, when it has one that matches its header and length and, with
/// `check`, whose checksum of those frames holds; `None` otherwise. What
/// lies before the summary is believed as far as the summary is.
pub(crate) fn summary_covers(file: &File, header: &Header, check: bool) -> io::Result<Option<u64>> {
    let len = file.metadata()?.len();
    let Some(s) = read_summary(file, header, len)? else {
        return Ok(None);
    };
    if check && checksum_of(file, s.data_end)? != s.data_sum {
        return Ok(None);
    }
    Ok(Some(s.data_end))
}

/// What the archived transcript at `path` records about usage (prompts
/// counted), from the summary at its end, with the archived file's
/// metadata: `None` when it has none that holds (none, another format,
/// another size, time or length, or frames whose checksum is not the one
/// it records), and the transcript is to be read whole.
pub(crate) fn summarized_usage(
    path: &Path,
) -> io::Result<Option<(crate::store::usage_types::FileUsage, std::fs::Metadata)>> {
    let (f, h) = open_packed(path)?;
    let meta = f.metadata()?;
    let Some(s) = read_summary(&f, &h, meta.len())? else {
        return Ok(None);
    };
    if checksum_of(&f, s.data_end)? != s.data_sum {
        return Ok(None);
    }
    Ok(super::usage_index::record::usage_from_bytes(&s.usage).map(|u| (u, meta)))
}

#[cfg(test)]
#[path = "packed_tests.rs"]
mod summary_tests;

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
