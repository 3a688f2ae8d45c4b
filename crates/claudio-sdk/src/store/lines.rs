//! The one way the store reads a transcript line by line.
//!
//! A transcript is read in blocks into a buffer reused across files (one
//! per thread), and handed out a block of whole lines at a time, with the
//! block's offset in the file. The partial last line is carried over to the
//! next read; a final line without a newline is handed out too. A line
//! of [`MAX_LINE`] bytes or more is never held whole: it is passed over to its
//! end and counted, so that callers can say so. A read error ends the
//! reading after what was read before it has been handed out.

use super::error::{io_err, StoreResult};
use std::cell::RefCell;
use std::fs::Metadata;
use std::io::Read;
use std::ops::{ControlFlow, Range};
use std::path::Path;

/// The bound on a transcript line, in bytes: a line this long or longer (a
/// pasted file of hundreds of megabytes) is passed over, and said; memory
/// stays within a few times this bound.
pub const MAX_LINE: usize = 256 << 20;

/// The size of one read, and of the buffer kept between files.
const BLOCK: usize = 1 << 18;

/// A buffer grown past this for a long line is not kept for the next file.
const KEEP: usize = 4 * BLOCK;

/// A page of memory. A buffer bigger than this keeps a page of slack, so
/// that what is read starts where a page starts ([`page_start`]).
const PAGE: usize = 4096;

/// How far into `buf` a page of memory starts. The kernel's copy from the
/// page cache into memory a few bytes past a page's start (where a buffer
/// from the allocator often starts: 16 bytes in) took 3× the CPU time of
/// the copy into a page's start (AMD EPYC, 10,000 transcripts read
/// whole); the transcript's first read starts where a page does.
fn page_start(buf: &[u8]) -> usize {
    (PAGE - buf.as_ptr() as usize % PAGE) % PAGE
}

/// Where the bytes read start in `buf` and how many it has room for: a
/// buffer bigger than a [`PAGE`] keeps one for the slack before a page
/// starts; a smaller one (the tests') is used whole.
fn window(buf: &[u8]) -> (usize, usize) {
    if buf.len() > PAGE {
        (page_start(buf), buf.len() - PAGE)
    } else {
        (0, buf.len())
    }
}

/// Whole lines of a transcript as read: each ends with a newline but the
/// file's last one.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Block<'a> {
    /// The lines' bytes.
    pub(crate) bytes: &'a [u8],
    /// Where `bytes` starts in the file.
    pub(crate) offset: u64,
}

impl<'a> Block<'a> {
    /// Each line (its newline removed) with where it starts in the file,
    /// empty ones included.
    pub(crate) fn lines(self) -> impl Iterator<Item = (u64, &'a [u8])> {
        let mut at = 0;
        std::iter::from_fn(move || {
            if at >= self.bytes.len() {
                return None;
            }
            let rest = &self.bytes[at..];
            let len = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
            let line = (self.offset + at as u64, &rest[..len]);
            at += len + 1;
            Some(line)
        })
    }

    /// The whole line around byte `at` of the block (its newline removed),
    /// as a range of the block.
    pub(crate) fn line_at(self, at: usize) -> Range<usize> {
        let start = memchr::memrchr(b'\n', &self.bytes[..at]).map_or(0, |i| i + 1);
        let end = memchr::memchr(b'\n', &self.bytes[at..]).map_or(self.bytes.len(), |i| at + i);
        start..end
    }

    /// [`line_at`](Self::line_at) without its leading blanks (see
    /// [`entry`]).
    pub(crate) fn entry_at(self, at: usize) -> Range<usize> {
        let Range { start, end } = self.line_at(at);
        end - entry(&self.bytes[start..end]).len()..end
    }
}

/// A line's entry: its bytes from the first one past a blank (a byte over
/// `0x20`). Every reader of transcript lines reads a line so: a crash can
/// leave NUL bytes (a block the filesystem zero-filled) before the next
/// line the CLI appends, and that line is read, not lost; JSON's own
/// blanks before the object go the same way.
pub(crate) fn entry(line: &[u8]) -> &[u8] {
    let lead = line.iter().take_while(|b| **b <= b' ').count();
    &line[lead..]
}

/// [`entry`] of a line held as text.
pub(crate) fn entry_str(line: &str) -> &str {
    line.trim_start_matches(|c: char| c <= ' ')
}

/// A transcript opened to be read line by line, through
/// [`open_regular`](super::open::open_regular) (no link, FIFO or device).
pub(crate) struct Transcript<'p> {
    file: Box<dyn Read + Send>,
    meta: Metadata,
    path: &'p Path,
}

/// What reading a transcript passed over.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Passed {
    /// Lines of [`MAX_LINE`] bytes or more, not handed out.
    pub(crate) long_lines: usize,
}

impl<'p> Transcript<'p> {
    /// Open `path` if it is a regular file.
    pub(crate) fn open(path: &'p Path) -> StoreResult<Transcript<'p>> {
        let (file, meta) = super::either::open_stream(path)?;
        Ok(Transcript { file, meta, path })
    }

    /// A transcript already opened (a plain file read from where it
    /// stands: block offsets count from there).
    pub(crate) fn from_parts(
        file: Box<dyn Read + Send>,
        meta: Metadata,
        path: &'p Path,
    ) -> Transcript<'p> {
        Transcript { file, meta, path }
    }

    /// The file's metadata, as opened.
    pub(crate) fn meta(&self) -> &Metadata {
        &self.meta
    }

    /// Call `f` with each block of whole lines, in order, until it breaks
    /// or the file ends.
    pub(crate) fn blocks(
        mut self,
        mut f: impl FnMut(Block<'_>) -> ControlFlow<()>,
    ) -> StoreResult<Passed> {
        thread_local! {
            // one buffer per thread, reused for every file: a fresh zeroed
            // one per file was a quarter of the time across a big store
            static BUF: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
        }
        BUF.with(|cell| {
            let mut buf = cell.take();
            if buf.len() < BLOCK + PAGE {
                buf.resize(BLOCK + PAGE, 0);
            }
            let out = read_blocks(&mut self.file, &mut buf, MAX_LINE, &mut f);
            if buf.len() > KEEP + PAGE {
                buf = Vec::new(); // a long line's buffer is not kept
            }
            cell.replace(buf);
            out.map_err(io_err(self.path))
        })
    }

    /// Call `f(offset, line)` for every line that is not blank: its leading
    /// blanks and its newline removed, `offset` where what is left starts.
    pub(crate) fn each_line(self, mut f: impl FnMut(u64, &[u8])) -> StoreResult<Passed> {
        self.blocks(|block| {
            for (offset, line) in block.lines() {
                let e = entry(line);
                if !e.is_empty() {
                    f(offset + (line.len() - e.len()) as u64, e);
                }
            }
            ControlFlow::Continue(())
        })
    }
}

/// The reading loop: `buf` holds `filled` bytes (from `base`, where a
/// page starts: see [`window`]), whole lines are handed out, the partial
/// last line moves to the front, and the buffer grows for a long line up
/// to `max` ([`MAX_LINE`]).
fn read_blocks(
    file: &mut impl Read,
    buf: &mut Vec<u8>,
    max: usize,
    f: &mut impl FnMut(Block<'_>) -> ControlFlow<()>,
) -> std::io::Result<Passed> {
    let mut passed = Passed::default();
    let (mut base, mut cap) = window(buf);
    let mut filled = 0;
    // where buf[base] is in the file
    let mut offset = 0u64;
    // inside a line longer than MAX_LINE: its bytes are passed over
    let mut skipping = false;
    loop {
        if filled == cap {
            if cap >= max {
                // a line past the bound is not held in memory: passed over
                // to its end, and counted
                passed.long_lines += 1;
                skipping = true;
                offset += filled as u64;
                filled = 0;
            } else {
                // a line longer than the buffer: room for more of it (the
                // bytes held move to where a page starts in the new one)
                let was = base;
                buf.resize((cap * 2).min(max) + PAGE, 0);
                (base, cap) = window(buf);
                buf.copy_within(was..was + filled, base);
            }
        }
        let n = match file.read(&mut buf[base + filled..base + cap]) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                // what was read is still handed out
                if !skipping && filled > 0 {
                    let _ = f(Block {
                        bytes: &buf[base..base + filled],
                        offset,
                    });
                }
                return Err(e);
            }
        };
        let eof = n == 0;
        if skipping {
            match memchr::memchr(b'\n', &buf[base..base + n]) {
                Some(i) => {
                    buf.copy_within(base + i + 1..base + n, base);
                    offset += (i + 1) as u64;
                    filled = n - i - 1;
                    skipping = false;
                    continue;
                }
                None if eof => return Ok(passed),
                None => {
                    offset += n as u64;
                    continue;
                }
            }
        }
        filled += n;
        let end = if eof {
            filled
        } else {
            // the carried part holds no newline but after a skip
            match memchr::memrchr(b'\n', &buf[base + filled - n..base + filled]) {
                Some(i) => filled - n + i + 1,
                None => match memchr::memrchr(b'\n', &buf[base..base + filled - n]) {
                    Some(i) => i + 1,
                    None => continue, // no whole line yet
                },
            }
        };
        if end > 0
            && f(Block {
                bytes: &buf[base..base + end],
                offset,
            })
            .is_break()
        {
            return Ok(passed);
        }
        buf.copy_within(base + end..base + filled, base);
        filled -= end;
        offset += end as u64;
        if eof {
            return Ok(passed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::File;

    /// Every line handed out, with its offset, and what was passed over.
    fn lines_of(text: &[u8], buf_len: usize, max: usize) -> (Vec<(u64, Vec<u8>)>, Passed, usize) {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("t.jsonl");
        std::fs::write(&path, text).unwrap();
        let mut file = File::open(&path).unwrap();
        let mut buf = vec![0u8; buf_len];
        let mut out = Vec::new();
        let mut blocks = 0;
        let passed = read_blocks(&mut file, &mut buf, max, &mut |b: Block<'_>| {
            blocks += 1;
            out.extend(b.lines().map(|(o, l)| (o, l.to_vec())));
            ControlFlow::Continue(())
        })
        .unwrap();
        (out, passed, blocks)
    }

    #[test]
    fn whole_lines_with_their_offsets_the_last_one_without_a_newline_too() {
        let text = b"{\"a\":1}\n\n  {\"b\":2}\n{\"c\":3}";
        for len in [4, 8, 64] {
            let (lines, passed, _) = lines_of(text, len, 1 << 20);
            assert_eq!(
                lines,
                vec![
                    (0, b"{\"a\":1}".to_vec()),
                    (8, b"".to_vec()),
                    (9, b"  {\"b\":2}".to_vec()),
                    (19, b"{\"c\":3}".to_vec()),
                ],
                "buffer of {len}"
            );
            assert_eq!(passed.long_lines, 0);
        }
        let (lines, _, blocks) = lines_of(b"", 8, 1 << 20);
        assert!(lines.is_empty());
        assert_eq!(blocks, 0, "nothing read, nothing handed out");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

        /// A buffer bigger than a page is read into from where a page of
        /// its memory starts, every block handed out from there, and the
        /// lines are the file's, with their offsets, whether the buffer
        /// grows for a long line (what it held moves to the new one's
        /// page start) or not.
        #[test]
        fn a_big_buffer_is_read_into_from_a_page_start_and_gives_the_files_lines(
            lens in proptest::collection::vec(0usize..9000, 0..8),
            last_newline in proptest::bool::ANY,
            slack in 1usize..PAGE,
        ) {
            let mut text = Vec::new();
            for (i, &n) in lens.iter().enumerate() {
                text.extend((0..n).map(|j| b'a' + ((i + j) % 26) as u8));
                text.push(b'\n');
            }
            if !last_newline {
                text.pop();
            }
            let d = tempfile::tempdir().unwrap();
            let path = d.path().join("t.jsonl");
            std::fs::write(&path, &text).unwrap();
            let mut file = File::open(&path).unwrap();
            let mut buf = vec![0u8; PAGE + slack];
            let mut out = Vec::new();
            let mut starts = Vec::new();
            read_blocks(&mut file, &mut buf, 1 << 20, &mut |b: Block<'_>| {
                starts.push(b.bytes.as_ptr() as usize % PAGE);
                out.extend(b.lines().map(|(o, l)| (o, l.to_vec())));
                ControlFlow::Continue(())
            })
            .unwrap();
            let mut want = Vec::new();
            let mut at = 0;
            for l in text.split(|&c| c == b'\n') {
                want.push((at as u64, l.to_vec()));
                at += l.len() + 1;
            }
            if text.last().is_none_or(|&c| c == b'\n') {
                want.pop(); // nothing after the last newline
            }
            proptest::prop_assert_eq!(out, want);
            proptest::prop_assert!(starts.iter().all(|&s| s == 0), "{:?}", starts);
        }
    }

    /// A file given in the pieces `gives` says (`None`: an `Interrupted`
    /// error), then whole.
    struct Chunky {
        data: Vec<u8>,
        at: usize,
        gives: std::collections::VecDeque<Option<usize>>,
    }

    impl Read for Chunky {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let rest = self.data.len() - self.at;
            let n = match self.gives.pop_front() {
                Some(None) => return Err(std::io::ErrorKind::Interrupted.into()),
                Some(Some(n)) => n.min(rest),
                None => rest,
            };
            let n = n.min(buf.len());
            buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    use proptest::strategy::Strategy as _;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

        /// The lines handed out, their offsets and the long ones passed
        /// over are a plain reader's, whatever the pieces the file comes
        /// in (one byte at a time, interrupted), the buffer (smaller than a
        /// page, or read into from a page start, growing for a long line),
        /// and the bound: a line of the bound or more (the buffer's start
        /// when bigger), the last one without a newline too, is passed
        /// over and counted.
        #[test]
        fn the_lines_are_a_plain_reader_s_whatever_the_pieces(
            lens in proptest::collection::vec(
                proptest::prop_oneof![0usize..6, 6usize..200, 4000usize..9000], 0..10),
            last_newline in proptest::bool::ANY,
            gives in proptest::collection::vec(
                proptest::prop_oneof![
                    3 => (1usize..5).prop_map(Some),
                    3 => (5usize..10_000).prop_map(Some),
                    1 => proptest::strategy::Just(None),
                ],
                0..80,
            ),
            buf_len in proptest::sample::select(
                &[1usize, 2, 7, 64, PAGE, PAGE + 1, PAGE + 100, 2 * PAGE + 5][..]),
            max in proptest::sample::select(&[1usize, 2, 5, 100, 5000, 8192, 1 << 20][..]),
        ) {
            let mut text = Vec::new();
            for (i, &n) in lens.iter().enumerate() {
                text.extend((0..n).map(|j| if j % 7 == 3 { b'\r' } else { b'a' + ((i + j) % 26) as u8 }));
                text.push(b'\n');
            }
            if !last_newline {
                text.pop();
            }
            let mut file = Chunky { data: text.clone(), at: 0, gives: gives.into_iter().collect() };
            let mut buf = vec![0u8; buf_len];
            let bound = window(&buf).1.max(max);
            let mut out = Vec::new();
            let passed = read_blocks(&mut file, &mut buf, max, &mut |b: Block<'_>| {
                out.extend(b.lines().map(|(o, l)| (o, l.to_vec())));
                ControlFlow::Continue(())
            })
            .unwrap();
            let mut want = Vec::new();
            let mut long = 0;
            let mut at = 0;
            let mut lines: Vec<&[u8]> = text.split(|&c| c == b'\n').collect();
            if lines.last().is_some_and(|l| l.is_empty()) {
                lines.pop(); // nothing after the last newline
            }
            for l in lines {
                if l.len() >= bound {
                    long += 1;
                } else {
                    want.push((at as u64, l.to_vec()));
                }
                at += l.len() + 1;
            }
            proptest::prop_assert_eq!(out, want);
            proptest::prop_assert_eq!(passed.long_lines, long);
            proptest::prop_assert!(buf.len() <= bound.max(buf_len) + PAGE, "{}", buf.len());
        }
    }

    #[test]
    fn each_line_skips_blanks_and_keeps_offsets() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("t.jsonl");
        std::fs::write(&path, "a\n \n\t b\nc").unwrap();
        let mut seen = Vec::new();
        let passed = Transcript::open(&path)
            .unwrap()
            .each_line(|o, l| seen.push((o, String::from_utf8(l.to_vec()).unwrap())))
            .unwrap();
        let want = [(0, "a"), (6, "b"), (8, "c")];
        assert_eq!(seen, want.map(|(o, l)| (o, l.to_owned())));
        assert_eq!(passed, Passed::default());
    }

    #[test]
    fn a_line_past_the_bound_is_passed_over_and_counted() {
        // lines under 16 bytes are read, from a buffer of 4
        let text = b"first\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\nfifteen-bytes-o\nlast";
        let (lines, passed, _) = lines_of(text, 4, 16);
        assert_eq!(
            lines,
            vec![
                (0, b"first".to_vec()),
                (43, b"fifteen-bytes-o".to_vec()),
                (59, b"last".to_vec()),
            ]
        );
        assert_eq!(passed.long_lines, 1);
        // the last line too long, without a newline
        let (lines, passed, _) = lines_of(b"a\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", 4, 16);
        assert_eq!(lines, vec![(0, b"a".to_vec())]);
        assert_eq!(passed.long_lines, 1);
    }

    #[test]
    fn the_line_around_a_position() {
        let b = Block {
            bytes: b"ab\ncd\nef",
            offset: 0,
        };
        assert_eq!(b.line_at(0), 0..2);
        assert_eq!(b.line_at(4), 3..5);
        assert_eq!(b.line_at(7), 6..8);
    }

    /// A line led by NUL bytes (a block zero-filled by a crash before the
    /// CLI's next line) is read alike by every reader of transcript lines:
    /// the conversation (and a fork of it), the usage scan (one session,
    /// a set, the store), the search and the listing. The conversation
    /// reader took it; the others, serde_json refusing a NUL, lost it.
    #[test]
    fn a_line_led_by_nul_bytes_is_read_alike_by_every_reader() {
        use crate::store::{
            read_conversation, session_usage, sessions_usage, ForkOptions, ListOptions, Pattern,
            SearchOptions, Store,
        };
        use serde_json::json;
        let d = tempfile::tempdir().unwrap();
        let folder = d.path().join("cfg/projects/-w");
        std::fs::create_dir_all(&folder).unwrap();
        let id = "7c1d3a52-2222-4333-8444-000000000001";
        let u = |n: u32| format!("00000000-0000-4000-8000-00000000000{n}");
        let base = |uuid: String, parent: Option<String>, t: &str| {
            json!({"uuid":uuid,"parentUuid":parent,"sessionId":id,"cwd":"/w",
                "timestamp":format!("2026-11-01T10:00:0{t}.000Z")})
        };
        let mut first = base(u(1), None, "1");
        first["type"] = json!("user");
        first["message"] = json!({"role":"user","content":"typed behind zeros"});
        let mut answer = base(u(2), Some(u(1)), "2");
        answer["type"] = json!("assistant");
        answer["requestId"] = json!("req_1");
        answer["message"] = json!({"id":"msg_1","role":"assistant","model":"claude-sonnet-4-5",
            "content":[{"type":"text","text":"an answer of zeroword"}],
            "usage":{"input_tokens":7,"output_tokens":3}});
        let mut second = base(u(3), Some(u(2)), "3");
        second["type"] = json!("user");
        second["message"] = json!({"role":"user","content":"and then"});
        let mut text = b"\0\0\0".to_vec();
        text.extend(first.to_string().bytes());
        text.extend(b"\n\0\x01\x0b ");
        text.extend(answer.to_string().bytes());
        text.push(b'\n');
        text.extend(second.to_string().bytes());
        text.push(b'\n');
        let path = folder.join(format!("{id}.jsonl"));
        std::fs::write(&path, &text).unwrap();
        let store = Store::new(d.path().join("cfg")).without_archives();

        // the conversation
        let uuids = |c: crate::store::Conversation| -> Vec<String> {
            c.entries
                .iter()
                .map(|e| e.value["uuid"].as_str().unwrap_or("").to_owned())
                .collect()
        };
        assert_eq!(uuids(read_conversation(&path).unwrap()), [u(1), u(2), u(3)]);

        // the usage: one session, a set, the store
        let one = session_usage(&path).unwrap().without_subagents;
        assert_eq!((one.messages.len(), one.tokens().input), (1, 7));
        assert_eq!(one.prompts, 2, "both prompts count");
        assert_eq!(
            one.first,
            crate::store::time::parse_iso_millis("2026-11-01T10:00:01.000Z")
        );
        assert_eq!(one.cwd.as_deref(), Some("/w"));
        let set = sessions_usage(&[&path]).pop().unwrap().unwrap();
        assert_eq!(set.without_subagents, one);
        let all = store.usage(None).unwrap();
        let mine = all.sessions.iter().find(|s| s.session_id == id).unwrap();
        assert_eq!(mine.without_subagents.tokens().input, 7);

        // the search
        for word in ["zeroword", "behind zeros"] {
            let opts = SearchOptions::new(Pattern::smart(word));
            let mut hits = Vec::new();
            store
                .search(&opts, |s| {
                    hits.extend(s.hits.iter().map(|h| h.line.clone()));
                    std::ops::ControlFlow::Continue(())
                })
                .unwrap();
            assert_eq!(hits.len(), 1, "{word}: {hits:?}");
        }

        // the listing
        let listing = store.list(&ListOptions::all()).unwrap();
        let info = listing
            .sessions
            .iter()
            .find(|s| s.session_id == id)
            .unwrap();
        assert_eq!(info.first_prompt.as_deref(), Some("typed behind zeros"));
        assert_eq!(info.summary, "typed behind zeros");

        // a fork of it (last: it is a session of the store too)
        let forked = store.fork(id, &ForkOptions::new()).unwrap();
        let (_, c) = store.conversation(&forked).unwrap();
        assert_eq!(c.entries.len(), 3, "the fork holds every entry");
    }

    #[test]
    fn a_breaking_caller_stops_the_reading() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("t.jsonl");
        std::fs::write(&path, "a\nb\n").unwrap();
        let mut calls = 0;
        Transcript::open(&path)
            .unwrap()
            .blocks(|_| {
                calls += 1;
                ControlFlow::Break(())
            })
            .unwrap();
        assert_eq!(calls, 1);
    }
}
