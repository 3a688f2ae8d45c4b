//! NDJSON framing: `\n`-terminated lines with a per-line limit.

use std::io;
use tokio::io::{AsyncRead, AsyncReadExt};

const READ_CHUNK: usize = 256 * 1024;

/// A page of memory: the buffer keeps one of slack, so that each read
/// lands where a page starts ([`page_start`]).
const PAGE: usize = 4096;

/// How far into `buf` a page of memory starts. The kernel's copy out of a
/// pipe into memory a few bytes past a page's start (where a buffer of
/// this size from the allocator starts: 16 bytes in, after the header of
/// its own mapping) took 3× the system time of the copy into a page's
/// start (AMD EPYC, 200 MB read from a pipe in 256 KiB reads).
fn page_start(buf: &[u8]) -> usize {
    (PAGE - buf.as_ptr() as usize % PAGE) % PAGE
}

/// What [`LineReader::next_line`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum Line<'a> {
    /// A complete line, without its `\n` (and without a trailing `\r`).
    Data(&'a [u8]),
    /// A line longer than the limit; its bytes were dropped, reading goes on.
    TooLong,
}

/// Reads `\n`-terminated lines from a byte stream without ever holding more
/// than `max` bytes of one line. Cancel-safe: dropping a pending
/// `next_line` future loses nothing.
pub struct LineReader<R> {
    inner: R,
    /// Where the last returned line lives (for [`LineReader::take_last`]).
    last: Option<(usize, usize)>,
    buf: Box<[u8]>,
    /// Where a page starts in `buf`: each read is put there.
    base: usize,
    start: usize,
    end: usize,
    line: Vec<u8>,
    line_ready: bool,
    discarding: bool,
    eof: bool,
    max: usize,
    /// Bytes read from `inner` so far.
    read_total: u64,
}

impl<R> std::fmt::Debug for LineReader<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LineReader")
            .field("buffered", &(self.end - self.start))
            .field("max", &self.max)
            .field("eof", &self.eof)
            .finish_non_exhaustive()
    }
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    /// Wrap `inner`; lines longer than `max` bytes are reported as [`Line::TooLong`].
    pub fn new(inner: R, max: usize) -> Self {
        let buf = vec![0; READ_CHUNK + PAGE].into_boxed_slice();
        LineReader {
            inner,
            last: None,
            base: page_start(&buf),
            buf,
            start: 0,
            end: 0,
            line: Vec::new(),
            line_ready: false,
            discarding: false,
            eof: false,
            max,
            read_total: 0,
        }
    }

    /// The next line; `None` at end of stream. A final line without `\n` is
    /// still returned.
    pub async fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        if self.line_ready {
            self.line_ready = false;
            self.line.clear();
            // Don't keep a huge allocation around after a huge line.
            if self.line.capacity() > 4 * READ_CHUNK {
                self.line = Vec::new();
            }
        }
        loop {
            if self.start < self.end {
                let avail = &self.buf[self.start..self.end];
                match memchr::memchr(b'\n', avail) {
                    Some(i) => {
                        let s = self.start;
                        self.start += i + 1;
                        if self.discarding {
                            self.discarding = false;
                            return Ok(Some(Line::TooLong));
                        }
                        if self.line.is_empty() {
                            if i > self.max {
                                return Ok(Some(Line::TooLong));
                            }
                            let len = trim_cr(&self.buf[s..s + i]).len();
                            self.last = Some((s, s + len));
                            return Ok(Some(Line::Data(&self.buf[s..s + len])));
                        }
                        if self.line.len() + i > self.max {
                            self.line = Vec::new();
                            return Ok(Some(Line::TooLong));
                        }
                        self.line.extend_from_slice(&self.buf[s..s + i]);
                        self.line_ready = true;
                        self.last = None;
                        return Ok(Some(Line::Data(trim_cr(&self.line))));
                    }
                    None => {
                        let n = avail.len();
                        if !self.discarding {
                            if self.line.len() + n > self.max {
                                self.discarding = true;
                                self.line = Vec::new();
                            } else {
                                self.line.extend_from_slice(avail);
                            }
                        }
                        self.start = self.end;
                    }
                }
            }
            if self.eof {
                return Ok(self.finish());
            }
            let base = self.base;
            let n = self
                .inner
                .read(&mut self.buf[base..base + READ_CHUNK])
                .await?;
            self.start = base;
            self.end = base + n;
            self.read_total += n as u64;
            if n == 0 {
                self.eof = true;
            }
        }
    }

    /// Take the stream as ended where it stands (its writer is gone and
    /// the pipe is held open by another): what is buffered is still
    /// returned, a final line without `\n` too, then the end.
    pub(crate) fn end_here(&mut self) {
        self.eof = true;
    }

    /// Bytes read from the stream so far.
    pub(crate) fn bytes_read(&self) -> u64 {
        self.read_total
    }

    /// Whether [`LineReader::next_line`] would answer without reading: a
    /// whole line is buffered, or the stream ended.
    pub fn line_buffered(&self) -> bool {
        self.eof || memchr::memchr(b'\n', &self.buf[self.start..self.end]).is_some()
    }

    /// The whole lines already read and not yet returned, as one text that
    /// ends with its last line's `\n`, taken at once: UTF-8 checked once
    /// for them all rather than line by line. `None` (and nothing taken)
    /// when no whole line is buffered, a line is being gathered across
    /// reads, a line could be longer than the limit, or the bytes are not
    /// UTF-8: [`LineReader::next_line`] then reads them one by one, as
    /// ever. Split on `\n` (and a trailing `\r` cut), the text is the lines
    /// `next_line` would have returned.
    pub fn take_buffered_text(&mut self) -> Option<&str> {
        if !self.line.is_empty() || self.discarding || self.line_ready || self.max < READ_CHUNK {
            return None;
        }
        let avail = &self.buf[self.start..self.end];
        let last = memchr::memrchr(b'\n', avail)?;
        let text = crate::text::to_str(&avail[..=last]).ok()?;
        self.start += last + 1;
        self.last = None;
        Some(text)
    }

    fn finish(&mut self) -> Option<Line<'_>> {
        if self.discarding {
            self.discarding = false;
            return Some(Line::TooLong);
        }
        if self.line.is_empty() {
            return None;
        }
        self.line_ready = true;
        self.last = None;
        Some(Line::Data(trim_cr(&self.line)))
    }

    /// The bytes of the line last returned, as an owned buffer: a line
    /// gathered across reads is handed over without a copy (a huge line is
    /// never held twice).
    pub fn take_last(&mut self) -> Vec<u8> {
        match self.last.take() {
            Some((s, e)) => self.buf[s..e].to_vec(),
            None if self.line_ready => {
                self.line_ready = false;
                let mut v = std::mem::take(&mut self.line);
                if v.last() == Some(&b'\r') {
                    v.pop();
                }
                v
            }
            None => Vec::new(),
        }
    }
}

fn trim_cr(b: &[u8]) -> &[u8] {
    b.strip_suffix(b"\r").unwrap_or(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn collect(input: &[u8], max: usize) -> Vec<Result<String, ()>> {
        let mut r = LineReader::new(input, max);
        let mut out = Vec::new();
        while let Some(l) = r.next_line().await.unwrap() {
            out.push(match l {
                Line::Data(d) => Ok(String::from_utf8(d.to_vec()).unwrap()),
                Line::TooLong => Err(()),
            });
        }
        out
    }

    /// Each read is put where a page of the buffer's memory starts (the
    /// kernel's copy out of a pipe into a buffer 16 bytes into a page took
    /// three times as long), and a read fills as much as before.
    #[tokio::test]
    async fn each_read_lands_where_a_page_starts() {
        let line = vec![b'x'; READ_CHUNK - 1];
        let input = [line.as_slice(), b"\n", line.as_slice(), b"\nz\n"].concat();
        let mut r = LineReader::new(input.as_slice(), 2 * READ_CHUNK);
        for want in [&line[..], &line[..], &b"z"[..]] {
            match r.next_line().await.unwrap() {
                Some(Line::Data(d)) => assert_eq!(d, want),
                other => panic!("{other:?}"),
            }
            // the line just returned was read in one piece, at a page start
            let (s, _) = r.last.expect("a line returned from the buffer");
            assert_eq!((r.buf.as_ptr() as usize + s) % PAGE, 0, "read at {s}");
        }
        assert!(r.next_line().await.unwrap().is_none());
    }

    #[tokio::test]
    async fn splits_lines_and_keeps_last_unterminated() {
        let got = collect(b"a\nbb\r\n\nccc", 100).await;
        assert_eq!(
            got,
            vec![
                Ok("a".into()),
                Ok("bb".into()),
                Ok("".into()),
                Ok("ccc".into())
            ]
        );
    }

    #[tokio::test]
    async fn too_long_lines_are_reported_and_skipped() {
        let long = "x".repeat(50);
        let input = format!("ok\n{long}\nafter\n{long}");
        let got = collect(input.as_bytes(), 10).await;
        assert_eq!(
            got,
            vec![Ok("ok".into()), Err(()), Ok("after".into()), Err(())]
        );
    }

    #[tokio::test]
    async fn lines_spanning_many_reads() {
        // Longer than one read chunk, across chunk borders.
        let big = "y".repeat(READ_CHUNK * 3 + 17);
        let input = format!("{big}\nz\n");
        let got = collect(input.as_bytes(), usize::MAX).await;
        assert_eq!(got, vec![Ok(big), Ok("z".into())]);
        let limit = READ_CHUNK * 2;
        let got = collect(input.as_bytes(), limit).await;
        assert_eq!(got, vec![Err(()), Ok("z".into())]);
    }

    #[tokio::test]
    async fn take_last_gives_the_line_for_both_kinds() {
        let big = "q".repeat(READ_CHUNK + 5);
        let input = format!("short\r\n{big}\r\n");
        let mut r = LineReader::new(input.as_bytes(), usize::MAX);
        assert!(matches!(
            r.next_line().await.unwrap(),
            Some(Line::Data(b"short"))
        ));
        assert_eq!(r.take_last(), b"short");
        assert!(r.next_line().await.unwrap().is_some());
        assert_eq!(r.take_last(), big.as_bytes());
        assert_eq!(r.next_line().await.unwrap(), None);
    }

    #[tokio::test]
    async fn line_buffered_says_whether_the_next_line_needs_a_read() {
        let mut r = LineReader::new(&b"a\nb\nc"[..], 100);
        assert!(!r.line_buffered(), "nothing read yet");
        assert_eq!(r.next_line().await.unwrap(), Some(Line::Data(b"a")));
        assert!(r.line_buffered(), "b's line is in the buffer");
        assert_eq!(r.next_line().await.unwrap(), Some(Line::Data(b"b")));
        assert!(
            !r.line_buffered(),
            "c is half a line: the next read may wait"
        );
        assert_eq!(r.next_line().await.unwrap(), Some(Line::Data(b"c")));
        assert!(r.line_buffered(), "the end is known");
        assert_eq!(r.next_line().await.unwrap(), None);
    }

    /// A stream that gives its bytes in the pieces given (as a pipe gives
    /// what was written so far).
    struct Pieces(std::collections::VecDeque<Vec<u8>>);

    impl AsyncRead for Pieces {
        fn poll_read(
            mut self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
            buf: &mut tokio::io::ReadBuf<'_>,
        ) -> std::task::Poll<io::Result<()>> {
            if let Some(p) = self.0.front_mut() {
                let n = p.len().min(buf.remaining());
                buf.put_slice(&p[..n]);
                p.drain(..n);
                if p.is_empty() {
                    self.0.pop_front();
                }
            }
            std::task::Poll::Ready(Ok(()))
        }
    }

    /// What `bytes`, read in `pieces`, says line by line: `take` says
    /// before each line whether the whole lines buffered are taken as one
    /// text first (each of its lines then said as `next_line` says it).
    fn lines_of(bytes: &[u8], cuts: &[usize], max: usize, take: &[bool]) -> Vec<Option<Vec<u8>>> {
        let mut pieces = std::collections::VecDeque::new();
        let mut at = 0;
        for &c in cuts {
            let end = (at + c).min(bytes.len());
            pieces.push_back(bytes[at..end].to_vec());
            at = end;
        }
        pieces.push_back(bytes[at..].to_vec());
        let mut r = LineReader::new(Pieces(pieces), max);
        let mut out = Vec::new();
        let mut i = 0;
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            loop {
                i += 1;
                if take.get(i % take.len().max(1)).copied().unwrap_or(false) {
                    if let Some(text) = r.take_buffered_text() {
                        assert!(text.ends_with('\n'));
                        for l in text.split_terminator('\n') {
                            let l = l.strip_suffix('\r').unwrap_or(l);
                            out.push(Some(l.as_bytes().to_vec()));
                        }
                        continue;
                    }
                }
                match r.next_line().await.unwrap() {
                    Some(Line::Data(d)) => out.push(Some(d.to_vec())),
                    Some(Line::TooLong) => out.push(None),
                    None => break,
                }
            }
        });
        out
    }

    use proptest::prelude::{any, prop_oneof, proptest, ProptestConfig, Strategy};

    const ODD_LINES: &[&[u8]] = &[b"\r", b"", b"x\r\r", b"\xff\xfe", b"\xe6\x97"];

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 400,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        /// Whole lines taken as one text are the lines `next_line` gives,
        /// whatever the pieces the stream comes in, the limit, the bytes
        /// (`\r`, empty lines, lines longer than a read, not UTF-8).
        #[test]
        fn lines_taken_as_one_text_are_the_lines_read_one_by_one(
            lines in proptest::collection::vec(
                prop_oneof![
                    6 => "[a-z\\\"{}:,é日]{0,40}".prop_map(String::into_bytes),
                    1 => proptest::collection::vec(any::<u8>(), 0..20),
                    1 => proptest::sample::select(ODD_LINES).prop_map(<[u8]>::to_vec),
                    1 => (1usize..3).prop_map(|k| vec![b'y'; k * READ_CHUNK / 2 + 7]),
                ],
                0..40,
            ),
            end_with_newline in any::<bool>(),
            cuts in proptest::collection::vec(
                prop_oneof![1usize..64, 64usize..5000, 60_000usize..70_000], 0..30),
            max in proptest::sample::select(&[8usize, 300, READ_CHUNK - 1, READ_CHUNK, usize::MAX][..]),
            take in proptest::collection::vec(any::<bool>(), 1..8),
        ) {
            let mut bytes = lines.join(&b'\n');
            if end_with_newline && !lines.is_empty() {
                bytes.push(b'\n');
            }
            let one_by_one = lines_of(&bytes, &cuts, max, &[false]);
            proptest::prop_assert_eq!(lines_of(&bytes, &cuts, max, &take), one_by_one);
        }
    }

    /// What a stream gives at one poll: bytes (as many as fit), a
    /// `Pending` (the reading future is then dropped, and asked again), or
    /// an `Interrupted` error (the line asked again).
    #[derive(Debug, Clone)]
    enum Give {
        Bytes(usize),
        Pending,
        Interrupted,
    }

    /// A stream of `data` given as `gives` says, then whole.
    struct Chunky {
        data: Vec<u8>,
        at: usize,
        gives: std::collections::VecDeque<Give>,
    }

    impl AsyncRead for Chunky {
        fn poll_read(
            mut self: std::pin::Pin<&mut Self>,
            cx: &mut std::task::Context<'_>,
            buf: &mut tokio::io::ReadBuf<'_>,
        ) -> std::task::Poll<io::Result<()>> {
            let rest = self.data.len() - self.at;
            let n = match self.gives.pop_front() {
                Some(Give::Pending) => {
                    cx.waker().wake_by_ref();
                    return std::task::Poll::Pending;
                }
                Some(Give::Interrupted) => {
                    return std::task::Poll::Ready(Err(io::ErrorKind::Interrupted.into()))
                }
                Some(Give::Bytes(n)) => n.min(rest),
                None => rest,
            };
            let n = n.min(buf.remaining());
            let at = self.at;
            buf.put_slice(&self.data[at..at + n]);
            self.at += n;
            std::task::Poll::Ready(Ok(()))
        }
    }

    /// The lines of `bytes` as a plain reader says them: split at each
    /// `\n`, what follows the last one a line when not empty, a line over
    /// `max` bytes (its `\r` counted) too long, one `\r` cut off the end.
    fn plain_lines(bytes: &[u8], max: usize) -> Vec<Option<Vec<u8>>> {
        let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
        if lines.last().is_some_and(|l| l.is_empty()) {
            lines.pop();
        }
        lines
            .into_iter()
            .map(|l| (l.len() <= max).then(|| trim_cr(l).to_vec()))
            .collect()
    }

    /// What the reader says of `bytes` given as `gives` says: each poll of
    /// `next_line` that is pending drops the future (what cancelling
    /// does), each error asks again; each line handed out is also what
    /// `take_last` gives when `take` says so. The line gathered never
    /// holds more than `max` bytes.
    fn reader_lines(
        bytes: &[u8],
        gives: &[Give],
        max: usize,
        take: &[bool],
    ) -> Vec<Option<Vec<u8>>> {
        use std::future::Future;
        let mut r = LineReader::new(
            Chunky {
                data: bytes.to_vec(),
                at: 0,
                gives: gives.iter().cloned().collect(),
            },
            max,
        );
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        let mut out = Vec::new();
        let mut polls = 0usize;
        loop {
            polls += 1;
            assert!(polls < 10 * (bytes.len() + gives.len() + 10), "no progress");
            let got = {
                let mut next = std::pin::pin!(r.next_line());
                match next.as_mut().poll(&mut cx) {
                    std::task::Poll::Pending => continue,
                    std::task::Poll::Ready(Err(e)) => {
                        assert_eq!(e.kind(), io::ErrorKind::Interrupted);
                        continue;
                    }
                    std::task::Poll::Ready(Ok(None)) => break,
                    std::task::Poll::Ready(Ok(Some(Line::Data(d)))) => Some(d.to_vec()),
                    std::task::Poll::Ready(Ok(Some(Line::TooLong))) => None,
                }
            };
            assert!(r.line.len() <= max, "{} held of {max}", r.line.len());
            if let Some(d) = &got {
                if take[out.len() % take.len()] {
                    assert_eq!(&r.take_last(), d);
                }
            }
            out.push(got);
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 300,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        /// The reader says what a plain reader says, whatever the pieces
        /// (one byte at a time, a piece ending at the buffer's edge,
        /// reads cancelled or interrupted between them), the limit, and
        /// the lines (empty, `\r`, a UTF-8 character cut between reads,
        /// one the size of a read, a byte either side of it, no newline
        /// at the end).
        #[test]
        fn the_lines_are_a_plain_reader_s_whatever_the_pieces(
            lines in proptest::collection::vec(
                prop_oneof![
                    4 => "[a-z\"{}é日]{0,12}".prop_map(String::into_bytes),
                    1 => proptest::sample::select(ODD_LINES).prop_map(<[u8]>::to_vec),
                    1 => (0usize..4, any::<bool>()).prop_map(|(k, cr)| {
                        let mut l = vec![b'y'; READ_CHUNK - 2 + k];
                        if cr {
                            l.push(b'\r');
                        }
                        l
                    }),
                ],
                0..12,
            ),
            end_with_newline in any::<bool>(),
            gives in proptest::collection::vec(
                prop_oneof![
                    4 => prop_oneof![1usize..4, 4usize..300, READ_CHUNK - 2..READ_CHUNK + 3]
                        .prop_map(Give::Bytes),
                    1 => proptest::strategy::Just(Give::Pending),
                    1 => proptest::strategy::Just(Give::Interrupted),
                ],
                0..60,
            ),
            max in proptest::sample::select(
                &[0usize, 1, 8, 300, READ_CHUNK - 1, READ_CHUNK, READ_CHUNK + 1, usize::MAX][..]),
            take in proptest::collection::vec(any::<bool>(), 1..5),
        ) {
            let mut bytes = lines.join(&b'\n');
            if end_with_newline && !lines.is_empty() {
                bytes.push(b'\n');
            }
            proptest::prop_assert_eq!(
                reader_lines(&bytes, &gives, max, &take),
                plain_lines(&bytes, max)
            );
        }
    }

    #[tokio::test]
    async fn exactly_at_the_limit_passes() {
        let got = collect(b"12345\n123456\n", 5).await;
        assert_eq!(got, vec![Ok("12345".into()), Err(())]);
    }
}
