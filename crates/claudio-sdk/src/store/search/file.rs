//! Searching one transcript.

use super::extract::hits_in_entry;
use super::grams::Needs;
use super::prefilter::{lines_in, Finder};
use super::{Found, SearchOptions, SessionHits};
use crate::store::either::{open_packed_stream, with_ends};
use crate::store::error::StoreError;
use crate::store::headtail::{with_opened, Ends, HeadTail, HEAD_TAIL_BYTES};
use crate::store::info::{scan_ends, Scanned};
use crate::store::lines::{Transcript, MAX_LINE};
use crate::store::list::Candidate;
use crate::store::open::{is_packed, open_regular};
use serde_json::Value;
use std::fs::File;
use std::io::Read;
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

/// Search one transcript. It is classified (a session of its own, a
/// sub-agent's transcript, one continued in another file) when its first
/// hit is found, from its two ends: one that is not a session is read no
/// further, and one without hits is never classified. A plain transcript
/// is opened once for both.
pub(super) fn search_file(
    c: &Candidate,
    opts: &SearchOptions,
    finder: &Finder,
    needs: Option<&Needs>,
) -> Found {
    // an archived transcript whose grams filter (as trusted as its usage
    // summary) says it cannot match: not decompressed
    if needs.is_some_and(|n| cannot_hold(&c.path, n)) {
        return Found {
            hits: None,
            problem: None,
        };
    }
    // an archived transcript read whole gives its two ends as it is read:
    // they are not decompressed again to say what session it is
    let mut captured: Option<(Arc<Mutex<Captured>>, u64, SystemTime)> = None;
    let opened = if is_packed(&c.path) {
        open_packed_stream(&c.path).map(|(reader, meta, ends)| {
            let reader: Box<dyn Read + Send> = match ends {
                Some((size, modified)) => {
                    let cap = Arc::new(Mutex::new(Captured::default()));
                    captured = Some((Arc::clone(&cap), size, modified));
                    Box::new(Capturing { inner: reader, cap })
                }
                None => reader,
            };
            (Transcript::from_parts(reader, meta, &c.path), None)
        })
    } else {
        open_regular(&c.path).map(|(file, meta)| {
            let file = Arc::new(file);
            // read to the size it had when opened: no read to find its end
            let reader = Box::new(Shared(Arc::clone(&file)).take(meta.len()));
            (Transcript::from_parts(reader, meta, &c.path), Some(file))
        })
    };
    let mut hits = Vec::new();
    let mut more = false;
    // what the transcript is, once it has a hit
    let mut kind: Option<Scanned> = None;
    let limit = opts.hits_per_session.max(1);
    let read = opened.and_then(|(transcript, file)| {
        let meta = transcript.meta().clone();
        let classify = || {
            let scan = |ends: std::io::Result<Option<Ends<'_>>>| {
                scan_ends(&c.path, &c.session_id, ends, None, c.side)
            };
            match &file {
                Some(f) => with_opened(f, &meta, scan),
                None => with_ends(&c.path, scan),
            }
        };
        let mut on_line = |line: &[u8]| {
            // read from its first byte past a blank, as every reader does
            let line = crate::store::lines::entry(line);
            // invalid UTF-8 and lone surrogate escapes are read as the
            // listing reads them (U+FFFD), not skipped
            let parsed = crate::protocol::from_slice_lenient::<Value>(line).or_else(|e| {
                match std::str::from_utf8(line) {
                    Ok(_) => Err(e),
                    Err(_) => {
                        crate::protocol::from_str_lenient::<Value>(&String::from_utf8_lossy(line))
                    }
                }
            });
            let Ok(v) = parsed else {
                return ControlFlow::Continue(()); // a damaged line: skip it
            };
            for h in hits_in_entry(&v, opts.tools, &finder.matcher) {
                // with its ends taken as it is read, after the reading
                if kind.is_none() && captured.is_none() {
                    let k = classify();
                    let session = matches!(k, Scanned::Session(_));
                    kind = Some(k);
                    if !session {
                        return ControlFlow::Break(());
                    }
                }
                if hits.len() == limit {
                    more = true;
                    return ControlFlow::Break(());
                }
                hits.push(h);
            }
            ControlFlow::Continue(())
        };
        // the prefilter runs on whole blocks; only the lines it finds are
        // parsed
        let passed = transcript.blocks(|block| lines_in(block, finder, &mut on_line));
        if kind.is_none() && !hits.is_empty() {
            // the ends taken as it was read, when it was read whole
            let ends = captured.as_ref().and_then(|(cap, size, modified)| {
                let cap = cap.lock().ok()?;
                (cap.read == *size).then(|| HeadTail {
                    head: crate::text::into_string_lossy(cap.head.clone()),
                    tail: crate::text::into_string_lossy(cap.tail()),
                    size: *size,
                    modified: *modified,
                })
            });
            kind = Some(match ends {
                Some(ht) => scan_ends(&c.path, &c.session_id, Ok(Some(ht.ends())), None, c.side),
                None => classify(),
            });
        }
        passed
    });
    let (mut problem, long_lines) = match read {
        Err(e) => (Some((c.path.clone(), unreadable_reason(&e))), 0),
        Ok(passed) => (None, passed.long_lines),
    };
    if long_lines > 0 {
        problem = Some((
            c.path.clone(),
            format!(
                "{long_lines} line{} longer than {} MiB not searched",
                if long_lines == 1 { "" } else { "s" },
                MAX_LINE >> 20
            ),
        ));
    }
    let hits = match kind {
        Some(Scanned::Session(info)) if !hits.is_empty() => Some(Box::new(SessionHits {
            info: *info,
            hits,
            more,
        })),
        // no hits; a sub-agent's transcript, or one continued in another
        // file
        _ => None,
    };
    Found { hits, problem }
}

/// The first and last 64 KiB of what a reader gave, and how much it gave.
#[derive(Default)]
struct Captured {
    head: Vec<u8>,
    /// The last bytes read, in a ring: the next one goes at `read % H`.
    ring: Vec<u8>,
    read: u64,
}

impl Captured {
    fn take(&mut self, b: &[u8]) {
        const H: usize = HEAD_TAIL_BYTES;
        if self.head.len() < H {
            let k = (H - self.head.len()).min(b.len());
            self.head.extend_from_slice(&b[..k]);
        }
        if self.ring.len() < H {
            self.ring.resize(H, 0);
        }
        let last = &b[b.len() - b.len().min(H)..];
        let mut at = ((self.read + (b.len() - last.len()) as u64) % H as u64) as usize;
        let mut rest = last;
        while !rest.is_empty() {
            let k = (H - at).min(rest.len());
            self.ring[at..at + k].copy_from_slice(&rest[..k]);
            rest = &rest[k..];
            at = (at + k) % H;
        }
        self.read += b.len() as u64;
    }

    /// The last 64 KiB read (all of it when less was read).
    fn tail(&self) -> Vec<u8> {
        const H: usize = HEAD_TAIL_BYTES;
        if self.read <= H as u64 {
            return self.ring[..self.read as usize].to_vec();
        }
        let at = (self.read % H as u64) as usize;
        [&self.ring[at..], &self.ring[..at]].concat()
    }
}

/// A reader that keeps the ends of what it reads.
struct Capturing {
    inner: Box<dyn Read + Send>,
    cap: Arc<Mutex<Captured>>,
}

impl Read for Capturing {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Ok(mut cap) = self.cap.lock() {
            cap.take(&buf[..n]);
        }
        Ok(n)
    }
}

/// A file shared between the reader of its lines and the reader of its
/// ends (which reads at offsets, leaving the position as it is).
struct Shared(Arc<File>);

impl Read for Shared {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        (&*self.0).read(buf)
    }
}

/// Why a transcript could not be searched, without its path (the summary
/// names it beside the reason).
pub(super) fn unreadable_reason(e: &StoreError) -> String {
    match e {
        StoreError::Io { source, .. } => source.to_string(),
        StoreError::NotAFile(_) => "not a regular file".to_owned(),
        other => other.to_string(),
    }
}

/// Whether the transcript at `path` cannot hold a match of a pattern that
/// needs `needs`: an archived one whose grams filter lacks them, the filter
/// believed only as its usage summary is (see `packed_grams.rs`). `false`
/// for a plain one, and whenever that is not known: it is read.
fn cannot_hold(path: &Path, needs: &Needs) -> bool {
    #[cfg(feature = "archive")]
    if crate::store::open::is_packed(path) {
        return crate::store::packed_grams::cannot_hold(path, needs).unwrap_or(false);
    }
    let _ = (path, needs);
    false
}
