//! Draining the CLI's stderr into a bounded tail.

use super::framing::{Line, LineReader};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use tokio::io::AsyncRead;

/// Called with each line the CLI writes on stderr.
pub type StderrCallback = Arc<dyn Fn(&str) + Send + Sync>;

/// How much of the CLI's stderr is kept for error reports.
pub const TAIL_BYTES: usize = 16 * 1024;
const MAX_STDERR_LINE: usize = 64 * 1024;

/// The last [`TAIL_BYTES`] of the CLI's stderr, by whole lines.
#[derive(Clone, Default)]
pub(crate) struct StderrTail {
    inner: Arc<Mutex<TailInner>>,
}

#[derive(Default)]
struct TailInner {
    lines: VecDeque<String>,
    bytes: usize,
}

impl StderrTail {
    /// Add a line, dropping the oldest ones beyond the limit.
    pub(crate) fn push(&self, line: &str) {
        let mut t = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let line: String = if line.len() > TAIL_BYTES {
            let mut cut = line.len() - TAIL_BYTES;
            while !line.is_char_boundary(cut) {
                cut += 1;
            }
            format!("…{}", &line[cut..])
        } else {
            line.to_owned()
        };
        t.bytes += line.len() + 1;
        t.lines.push_back(line);
        while t.bytes > TAIL_BYTES && t.lines.len() > 1 {
            if let Some(old) = t.lines.pop_front() {
                t.bytes -= old.len() + 1;
            }
        }
    }

    /// The kept lines, `\n`-joined.
    pub(crate) fn text(&self) -> String {
        let t = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let mut s = String::with_capacity(t.bytes);
        for l in &t.lines {
            s.push_str(l);
            s.push('\n');
        }
        s
    }
}

/// Read `stderr` to its end, keeping the tail and passing lines to `callback`;
/// `done` turns true at the end.
pub(crate) async fn drain<R: AsyncRead + Unpin>(
    stderr: R,
    tail: StderrTail,
    callback: Option<StderrCallback>,
    done: tokio::sync::watch::Sender<bool>,
) {
    read_all(stderr, &tail, callback.as_ref()).await;
    let _ = done.send(true);
}

async fn read_all<R: AsyncRead + Unpin>(
    stderr: R,
    tail: &StderrTail,
    callback: Option<&StderrCallback>,
) {
    let mut reader = LineReader::new(stderr, MAX_STDERR_LINE);
    loop {
        match reader.next_line().await {
            Ok(Some(Line::Data(d))) => {
                let s = String::from_utf8_lossy(d);
                tail.push(&s);
                if let Some(cb) = callback {
                    cb(&s);
                }
            }
            Ok(Some(Line::TooLong)) => tail.push("[a stderr line longer than 64 KiB was cut]"),
            Ok(None) | Err(_) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_is_bounded_and_keeps_the_end() {
        let t = StderrTail::default();
        for i in 0..10_000 {
            t.push(&format!("line {i}"));
        }
        let s = t.text();
        assert!(s.len() <= TAIL_BYTES + 16, "{}", s.len());
        assert!(s.ends_with("line 9999\n"));
        let huge = "é".repeat(TAIL_BYTES);
        t.push(&huge);
        assert!(t.text().len() <= TAIL_BYTES + 8);
    }

    #[tokio::test]
    async fn drain_reads_everything() {
        let data = "a\nb\n".repeat(1000);
        let t = StderrTail::default();
        let seen = Arc::new(Mutex::new(0usize));
        let s2 = seen.clone();
        let (done_tx, done) = tokio::sync::watch::channel(false);
        drain(
            data.as_bytes(),
            t.clone(),
            Some(Arc::new(move |_l: &str| *s2.lock().unwrap() += 1)),
            done_tx,
        )
        .await;
        assert!(*done.borrow(), "the end is signalled");
        assert_eq!(*seen.lock().unwrap(), 2000);
        assert!(t.text().ends_with("a\nb\n"));
    }
}
