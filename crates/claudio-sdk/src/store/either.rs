//! A transcript read whatever its kind: a plain file, or one of claudio's
//! archive (compressed), decompressed as it is read. Files are opened the
//! one way ([`super::open`]); the two ends and the stream come from the
//! plain reader ([`super::headtail`]) or the archive's ([`super::packed`]).

use super::error::{io_err, StoreResult};
use super::headtail::{Ends, HeadTail};
use super::open::{is_packed, open_regular, PackedStream};
use std::fs::Metadata;
use std::io::Read;
use std::path::Path;

#[cfg(not(feature = "archive"))]
fn no_archive() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        "an archived transcript (claudio was built without the `archive` feature)",
    )
}

/// Read the head and tail of a transcript, plain or archived. `Ok(None)`
/// for an empty file; an error for a symbolic link, a non-regular file or
/// a read failure.
pub fn read_head_tail(path: &Path) -> std::io::Result<Option<HeadTail>> {
    if is_packed(path) {
        return packed_head_tail(path);
    }
    super::headtail::read_plain(path)
}

/// `f` given the head and tail of a transcript, plain or archived, as
/// [`read_head_tail`] reads them; a plain one's are borrowed from the
/// thread's one buffer, not copied (what a listing reads).
pub(crate) fn with_ends<R>(
    path: &Path,
    f: impl FnOnce(std::io::Result<Option<Ends<'_>>>) -> R,
) -> R {
    if is_packed(path) {
        return match packed_head_tail(path) {
            Ok(ht) => f(Ok(ht.as_ref().map(HeadTail::ends))),
            Err(e) => f(Err(e)),
        };
    }
    super::headtail::with_plain(path, f)
}

/// The two ends of an archived transcript.
fn packed_head_tail(path: &Path) -> std::io::Result<Option<HeadTail>> {
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

/// See [`PackedStream`].
pub(crate) fn open_packed_stream(path: &Path) -> StoreResult<PackedStream> {
    #[cfg(feature = "archive")]
    return super::packed::stream_and_ends(path).map_err(io_err(path));
    #[cfg(not(feature = "archive"))]
    return Err(io_err(path)(no_archive()));
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
