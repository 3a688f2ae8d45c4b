//! The grams frame of an archived file: what its transcript may hold (see
//! [`Grams`](super::search::grams::Grams)), so that a search passes over a file
//! that cannot match without decompressing it.
//!
//! It is a zstd skippable frame just before the usage summary (see
//! [`packed`](super::packed)), so that the summary's checksum of the
//! frames before it covers it too: the filter is believed exactly when the
//! summary is (the file's size, time and length as the summary records
//! them, and the checksum of everything before it), and otherwise the
//! transcript is decompressed and searched whole, as is one archived before
//! there were filters. Its last bytes are its length and a tag, so that it
//! is found from the summary's start.

use super::packed::{open_packed, summary_covers, Header, HEADER_LEN};
use super::search::grams::{Grams, Needs};
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;

/// A zstd skippable frame's magic number, for the grams (the header's and
/// the summary's are others).
const GRAMS_MAGIC: u32 = 0x184D_2A5E;
/// What the grams frame ends with.
const GRAMS_TAG: &[u8; 8] = b"claudioG";
/// Magic and size before the filter; its length and tag after it.
const FIXED: usize = 8 + 4 + 8;
/// The biggest frame read: the biggest filter and its fixed parts.
const MAX_FRAME: u64 = (1 << 17) + 64;

/// The grams frame of `g`, to put just before the usage summary.
pub(crate) fn grams_frame(g: &Grams) -> Vec<u8> {
    let body = g.to_bytes();
    let len = FIXED + body.len();
    let mut out = Vec::with_capacity(len);
    out.extend_from_slice(&GRAMS_MAGIC.to_le_bytes());
    out.extend_from_slice(&((len - 8) as u32).to_le_bytes());
    out.extend_from_slice(&body);
    out.extend_from_slice(&(len as u32).to_le_bytes());
    out.extend_from_slice(GRAMS_TAG);
    out
}

/// The grams of the frame of `file` that ends at `end`, when there is one
/// of this format.
fn grams_before(file: &File, end: u64) -> io::Result<Option<Grams>> {
    if end < (HEADER_LEN + FIXED) as u64 {
        return Ok(None);
    }
    let mut tail = [0u8; 12];
    file.read_exact_at(&mut tail, end - 12)?;
    if &tail[4..12] != GRAMS_TAG {
        return Ok(None);
    }
    let len = u64::from(u32::from_le_bytes(tail[0..4].try_into().expect("4 bytes")));
    if len < FIXED as u64 || len > MAX_FRAME || len > end - HEADER_LEN as u64 {
        return Ok(None);
    }
    let mut b = vec![0u8; len as usize];
    file.read_exact_at(&mut b, end - len)?;
    if b[0..4] != GRAMS_MAGIC.to_le_bytes() || b[4..8] != ((len - 8) as u32).to_le_bytes() {
        return Ok(None);
    }
    Ok(Grams::from_bytes(&b[8..b.len() - 12]))
}

/// Whether the archived file `file` (with `header`) has a usage summary
/// that matches its header and length with a grams frame of this format
/// before it (the checksum not read: what the archive's pass asks of a
/// file it would otherwise leave as it is).
pub(crate) fn has_grams(file: &File, header: &Header) -> bool {
    matches!(summary_covers(file, header, false), Ok(Some(end))
        if matches!(grams_before(file, end), Ok(Some(_))))
}

/// Whether the archived transcript at `path` cannot hold a match of a
/// pattern that needs `needs`: its grams frame (of this format, just
/// before a usage summary that holds, its checksum read) lacks them.
/// `false` when that is not known (the transcript is to be read whole). The
/// checksum is read only for a file to pass over: one that may match is
/// read anyway.
pub(crate) fn cannot_hold(path: &Path, needs: &Needs) -> io::Result<bool> {
    let (f, h) = open_packed(path)?;
    let Some(end) = summary_covers(&f, &h, false)? else {
        return Ok(false);
    };
    let Some(g) = grams_before(&f, end)? else {
        return Ok(false);
    };
    if g.may_hold(needs) {
        return Ok(false);
    }
    Ok(summary_covers(&f, &h, true)? == Some(end))
}

#[cfg(test)]
#[path = "packed_grams_tests.rs"]
mod tests;
