//! A growing transcript's usage, read as it grows: only the bytes
//! appended since the last read are read (a screen that shows a running
//! session's cost read its whole transcript at each change before).

use super::error::{io_err, StoreResult};
use super::lines::Transcript;
use super::usage::Acc;
use super::usage_types::FileUsage;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};

/// How many bytes before where the last read stopped are kept, and
/// checked at the next read: a file rewritten in place is read again.
const EDGE: usize = 256;

/// How far back from its end a file is read at once for its last newline.
const BACK: u64 = 1 << 16;

/// One transcript's usage, read as it grows.
///
/// Each [`UsageTail::read`] reads what was appended since the last: its
/// lines up to the last one ended by a newline (a line still being
/// written is read once it is ended). A file replaced (another inode), cut
/// shorter than what was read, or whose last bytes before where the last
/// read stopped changed (256 of them are kept and compared) is read again
/// whole; a transcript is only ever appended to, and a change further
/// back in the same file is not seen. What it gives is what
/// [`file_usage`](super::file_usage) gives for the file's lines read so far.
///
/// An archived transcript is read whole, each time ([`super::file_usage`]).
pub struct UsageTail {
    path: PathBuf,
    /// The file read, by device and inode.
    file: Option<(u64, u64)>,
    /// Where the lines read end: the byte after the last newline read.
    offset: u64,
    /// The last bytes before `offset`.
    edge: Vec<u8>,
    acc: Acc,
}

impl std::fmt::Debug for UsageTail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UsageTail")
            .field("path", &self.path)
            .field("offset", &self.offset)
            .finish_non_exhaustive()
    }
}

impl UsageTail {
    /// Nothing read yet of the transcript at `path`.
    pub fn new(path: impl Into<PathBuf>) -> UsageTail {
        UsageTail {
            path: path.into(),
            file: None,
            offset: 0,
            edge: Vec::new(),
            acc: Acc::counting_prompts(),
        }
    }

    /// The transcript this reads.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Read what was appended since the last read, and give the usage of
    /// every line read so far.
    ///
    /// # Errors
    ///
    /// The file cannot be opened or read, is a link, a FIFO or no regular
    /// file; what was read before is forgotten (the next read starts
    /// again).
    pub fn read(&mut self) -> StoreResult<&FileUsage> {
        if super::open::is_packed(&self.path) {
            let u = super::file_usage(&self.path);
            self.restart(None);
            self.acc.out = u?;
            return Ok(&self.acc.out);
        }
        match self.read_on() {
            Ok(()) => Ok(&self.acc.out),
            Err(e) => {
                self.restart(None);
                Err(e)
            }
        }
    }

    /// Forget what was read (the file `file` is read from its start).
    fn restart(&mut self, file: Option<(u64, u64)>) {
        self.file = file;
        self.offset = 0;
        self.edge.clear();
        self.acc = Acc::counting_prompts();
    }

    fn read_on(&mut self) -> StoreResult<()> {
        let path = self.path.clone();
        let err = |e| io_err(&path)(e);
        let (file, meta) = super::open::open_regular(&self.path)?;
        let id = (meta.dev(), meta.ino());
        let size = meta.len();
        if self.file != Some(id) || size < self.offset || !self.edge_holds(&file)? {
            self.restart(Some(id));
        }
        let end = last_line_end(&file, self.offset, size).map_err(&err)?;
        if end <= self.offset {
            return Ok(());
        }
        let mut reader = file.try_clone().map_err(&err)?;
        reader.seek(SeekFrom::Start(self.offset)).map_err(&err)?;
        let appended = reader.take(end - self.offset);
        let acc = &mut self.acc;
        Transcript::from_parts(Box::new(appended), meta, &self.path).blocks(|b| {
            acc.take_block(b);
            std::ops::ControlFlow::Continue(())
        })?;
        acc.settle();
        let from = end.saturating_sub(EDGE as u64);
        let mut edge = vec![0; (end - from) as usize];
        file.read_exact_at(&mut edge, from).map_err(&err)?;
        self.edge = edge;
        self.offset = end;
        Ok(())
    }

    /// Whether the bytes before where the last read stopped are as they
    /// were.
    fn edge_holds(&self, file: &File) -> StoreResult<bool> {
        let from = self.offset - self.edge.len() as u64;
        let mut now = vec![0; self.edge.len()];
        match file.read_exact_at(&mut now, from) {
            Ok(()) => Ok(now == self.edge),
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(false),
            Err(e) => Err(io_err(&self.path)(e)),
        }
    }
}

/// Where the last line ended by a newline at or after `from` ends (the
/// byte after its newline), in a file `size` bytes long; `from` when no
/// newline comes after it. Read from the end backwards, a block at a time.
fn last_line_end(file: &File, from: u64, size: u64) -> std::io::Result<u64> {
    let mut hi = size;
    let mut buf = Vec::new();
    while hi > from {
        let lo = hi.saturating_sub(BACK).max(from);
        buf.resize((hi - lo) as usize, 0);
        file.read_exact_at(&mut buf, lo)?;
        if let Some(i) = memchr::memrchr(b'\n', &buf) {
            return Ok(lo + i as u64 + 1);
        }
        hi = lo;
    }
    Ok(from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A transcript of every kind of line the usage reads: a prompt, a
    /// response over several lines (the last one counts), its tool's
    /// result, another model's response, a line that is no JSON, a blank
    /// one and the CLI's own cost.
    fn transcript() -> String {
        let ts = |s: u32| format!("2026-12-04T10:00:{s:02}.000Z");
        let asst = |id: &str, model: &str, out: u64, s: u32| {
            format!(
                r#"{{"type":"assistant","requestId":"req_{id}","timestamp":"{}","message":{{"id":"msg_{id}","model":"{model}","usage":{{"input_tokens":10,"output_tokens":{out},"cache_read_input_tokens":100,"cache_creation_input_tokens":5}}}}}}"#,
                ts(s)
            )
        };
        let mut lines = vec![
            format!(
                r#"{{"type":"user","cwd":"/w","timestamp":"{}","message":{{"role":"user","content":"say hi"}}}}"#,
                ts(1)
            ),
            asst("a", "claude-sonnet-4-5", 1, 2),
            asst("a", "claude-sonnet-4-5", 40, 3),
            format!(
                r#"{{"type":"user","timestamp":"{}","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t","content":"ok"}}]}}}}"#,
                ts(4)
            ),
            "not json at all".to_owned(),
            String::new(),
            asst("b", "claude-opus-4-5", 7, 5),
            r#"{"type":"cost-state","totalCostUSD":0.25,"modelUsage":{"claude-sonnet-4-5":{"inputTokens":10,"outputTokens":40,"cacheReadInputTokens":100,"cacheCreationInputTokens":5,"costUSD":0.2},"claude-opus-4-5":{"inputTokens":10,"outputTokens":7,"costUSD":0.05}}}"#.to_owned(),
            format!(
                r#"{{"type":"user","timestamp":"{}","message":{{"role":"user","content":"and again"}}}}"#,
                ts(6)
            ),
            asst("c", "claude-sonnet-4-5", 3, 7),
        ];
        lines.push(String::new());
        lines.join("\n")
    }

    fn append(path: &Path, bytes: &[u8]) {
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(path)
            .unwrap();
        f.write_all(bytes).unwrap();
    }

    /// The usage of a file's whole lines, read whole into `scratch` (what
    /// the tail reads must be).
    fn whole_lines(path: &Path, scratch: &Path) -> FileUsage {
        let bytes = std::fs::read(path).unwrap();
        let end = memchr::memrchr(b'\n', &bytes).map_or(0, |i| i + 1);
        std::fs::write(scratch, &bytes[..end]).unwrap();
        super::super::file_usage(scratch).unwrap()
    }

    /// Differential: the transcript appended in pieces, split at every
    /// pair of places (a line cut anywhere, in its middle, after its
    /// newline or before it), read after each piece: what the tail gives
    /// is each time what a whole read of the lines so far gives, and at
    /// the end the whole file's.
    #[test]
    fn read_as_it_grows_is_read_whole_for_any_split() {
        let text = transcript();
        let bytes = text.as_bytes();
        let full = {
            let d = tempfile::tempdir().unwrap();
            let p = d.path().join("t.jsonl");
            std::fs::write(&p, bytes).unwrap();
            super::super::file_usage(&p).unwrap()
        };
        assert!(full.messages.len() == 3 && full.cli_cost.is_some() && full.prompts == 2);
        let d = tempfile::tempdir().unwrap();
        let scratch = d.path().join("whole.jsonl");
        // every 31st and 17th place, and each line's newline and the place
        // after it, as the two cuts
        let cuts = |every: usize| -> Vec<usize> {
            (0..=bytes.len())
                .filter(|&i| {
                    i % every == 0
                        || bytes.get(i) == Some(&b'\n')
                        || i.checked_sub(1).and_then(|j| bytes.get(j)) == Some(&b'\n')
                })
                .collect()
        };
        let seconds = cuts(17);
        for a in cuts(31) {
            for &b in seconds.iter().filter(|&&b| b >= a) {
                let p = d.path().join(format!("t{a}-{b}.jsonl"));
                let mut tail = UsageTail::new(&p);
                for piece in [&bytes[..a], &bytes[a..b], &bytes[b..]] {
                    append(&p, piece);
                    let got = tail.read().unwrap().clone();
                    assert_eq!(got, whole_lines(&p, &scratch), "cut at {a} and {b}");
                }
                assert_eq!(tail.read().unwrap(), &full, "cut at {a} and {b}");
                std::fs::remove_file(&p).unwrap();
            }
        }
    }

    /// A file replaced (a new inode), cut shorter, or rewritten in place
    /// (its bytes before where the last read stopped changed) is read
    /// again whole; one gone is an error, and read whole once it is back.
    #[test]
    fn a_file_replaced_cut_or_rewritten_is_read_again() {
        let text = transcript();
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("t.jsonl");
        std::fs::write(&p, &text).unwrap();
        let mut tail = UsageTail::new(&p);
        let full = tail.read().unwrap().clone();
        assert_eq!(full.messages.len(), 3);
        // replaced by a shorter file: its first two lines
        let two: String = text.lines().take(2).map(|l| format!("{l}\n")).collect();
        let tmp = d.path().join("new");
        std::fs::write(&tmp, &two).unwrap();
        std::fs::rename(&tmp, &p).unwrap();
        assert_eq!(tail.read().unwrap().messages.len(), 1);
        // cut shorter in place, then grown past where it was
        std::fs::write(&p, &text).unwrap();
        assert_eq!(tail.read().unwrap(), &full);
        let f = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
        f.set_len(0).unwrap();
        append(&p, two.as_bytes());
        assert_eq!(tail.read().unwrap().messages.len(), 1);
        // rewritten in place, as long as before and longer: its last line
        // read changed (another response's tokens)
        std::fs::write(&p, &text).unwrap();
        assert_eq!(tail.read().unwrap(), &full);
        let changed = text.replace(r#""output_tokens":3,"#, r#""output_tokens":9,"#);
        assert_eq!(changed.len(), text.len());
        std::fs::write(&p, format!("{changed}{}", "\n")).unwrap();
        let again = tail.read().unwrap();
        assert_eq!(again.messages.last().unwrap().tokens.output, 9);
        // gone: an error, and read whole once it is back
        std::fs::remove_file(&p).unwrap();
        assert!(tail.read().is_err());
        std::fs::write(&p, &text).unwrap();
        assert_eq!(tail.read().unwrap(), &full);
    }

    /// A link is not followed.
    #[test]
    fn a_link_is_not_read() {
        let d = tempfile::tempdir().unwrap();
        let real = d.path().join("real.jsonl");
        std::fs::write(&real, transcript()).unwrap();
        let link = d.path().join("t.jsonl");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        assert!(UsageTail::new(&link).read().is_err());
    }
}
