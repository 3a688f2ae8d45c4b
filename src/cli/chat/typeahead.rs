//! Typing the next prompt while Claude works.
//!
//! Enter queues the line (sent when the turn ends); Alt-Enter sends it at
//! once as an interjection (`priority: now`); Ctrl-S sends the oldest queued
//! prompt at once; Ctrl-X removes the newest queued one; Ctrl-U clears the
//! line. The key handling is a pure state machine; the terminal part reads
//! stdin in a thread with echo and line mode off (signals stay on, so Ctrl-C
//! still interrupts).

use std::collections::VecDeque;
use std::io::{self, Read};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

/// What a key asks of the turn loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Only the typed line or the queue changed: redraw.
    Redraw,
    /// Send this text now, as an interjection.
    SendNow(String),
}

/// The line being typed and the prompts waiting for the turn to end.
#[derive(Debug, Default)]
pub struct TypeAhead {
    pub typed: String,
    pub queued: VecDeque<String>,
    /// Bytes of an unfinished UTF-8 character or escape sequence.
    pending: Vec<u8>,
    /// Ctrl-D was pressed on an empty line.
    pub eof: bool,
}

impl TypeAhead {
    /// Feed bytes read from the terminal.
    pub fn bytes(&mut self, data: &[u8]) -> Vec<Action> {
        let mut out = Vec::new();
        self.pending.extend_from_slice(data);
        let buf = std::mem::take(&mut self.pending);
        let mut i = 0;
        while i < buf.len() {
            let b = buf[i];
            match b {
                b'\r' | b'\n' => {
                    let line = std::mem::take(&mut self.typed);
                    if !line.trim().is_empty() {
                        self.queued.push_back(line);
                    }
                    out.push(Action::Redraw);
                    i += 1;
                }
                0x7f | 0x08 => {
                    self.typed.pop();
                    out.push(Action::Redraw);
                    i += 1;
                }
                0x04 => {
                    // Ctrl-D: on an empty line, the end (where it means that)
                    if self.typed.is_empty() {
                        self.eof = true;
                    }
                    i += 1;
                }
                0x15 => {
                    // Ctrl-U
                    self.typed.clear();
                    out.push(Action::Redraw);
                    i += 1;
                }
                0x13 => {
                    // Ctrl-S: the oldest queued prompt, now
                    if let Some(q) = self.queued.pop_front() {
                        out.push(Action::SendNow(q));
                    }
                    out.push(Action::Redraw);
                    i += 1;
                }
                0x18 => {
                    // Ctrl-X: take back the newest queued prompt
                    self.queued.pop_back();
                    out.push(Action::Redraw);
                    i += 1;
                }
                0x1b => {
                    // Alt-Enter, or an escape sequence to skip
                    match buf.get(i + 1) {
                        None => {
                            self.pending = buf[i..].to_vec();
                            return out;
                        }
                        Some(b'\r') | Some(b'\n') => {
                            let line = std::mem::take(&mut self.typed);
                            if !line.trim().is_empty() {
                                out.push(Action::SendNow(line));
                            }
                            out.push(Action::Redraw);
                            i += 2;
                        }
                        Some(b'[') | Some(b'O') => {
                            // CSI / SS3: skip to the final byte
                            let mut j = i + 2;
                            while j < buf.len() && !(0x40..=0x7e).contains(&buf[j]) {
                                j += 1;
                            }
                            if j >= buf.len() {
                                self.pending = buf[i..].to_vec();
                                return out;
                            }
                            i = j + 1;
                        }
                        Some(_) => i += 2,
                    }
                }
                b if b < 0x20 => i += 1,
                _ => {
                    let len = utf8_len(b);
                    if i + len > buf.len() {
                        self.pending = buf[i..].to_vec();
                        return out;
                    }
                    if let Ok(s) = std::str::from_utf8(&buf[i..i + len]) {
                        self.typed.push_str(s);
                        out.push(Action::Redraw);
                    }
                    i += len;
                }
            }
        }
        out
    }

    /// Take in the keys still waiting when a turn has ended: nothing can be
    /// sent "now" any more, so such a prompt goes first in the queue.
    pub fn drain_after_turn(&mut self, keys: &mut mpsc::UnboundedReceiver<Vec<u8>>) {
        while let Ok(data) = keys.try_recv() {
            for action in self.bytes(&data) {
                if let Action::SendNow(text) = action {
                    self.queued.push_front(text);
                }
            }
        }
    }

    /// The lines to show under the answer: the queue (dim) and the line
    /// being typed.
    pub fn footer(&self) -> Vec<String> {
        let mut lines = Vec::new();
        let n = self.queued.len();
        for (i, q) in self.queued.iter().enumerate() {
            let first = q.lines().next().unwrap_or("");
            lines.push(format!("queued {}/{n} › {first}", i + 1));
        }
        if !self.typed.is_empty() || n > 0 {
            lines.push(format!("› {}", self.typed.replace('\n', " ")));
        }
        lines
    }
}

fn utf8_len(first: u8) -> usize {
    match first {
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf7 => 4,
        _ => 1,
    }
}

/// Reads the terminal while a turn runs; stops (and restores the terminal
/// mode) when dropped.
pub struct KeyReader {
    stop: Arc<AtomicBool>,
    /// Set while another prompt (an approval) owns the keyboard.
    paused: Arc<AtomicBool>,
    /// Set by the reader once it has stopped reading for a pause.
    idle: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
    saved: Option<libc::termios>,
}

impl KeyReader {
    /// Start reading stdin (a terminal) into `tx`.
    pub fn start(tx: mpsc::UnboundedSender<Vec<u8>>) -> Option<KeyReader> {
        // SAFETY: plain termios calls on fd 0.
        let saved = unsafe {
            let mut t: libc::termios = std::mem::zeroed();
            if libc::tcgetattr(0, &mut t) != 0 {
                return None;
            }
            let mut raw = t;
            raw.c_lflag &= !(libc::ICANON | libc::ECHO);
            raw.c_iflag &= !(libc::IXON | libc::ICRNL);
            raw.c_cc[libc::VMIN] = 1;
            raw.c_cc[libc::VTIME] = 0;
            libc::tcsetattr(0, libc::TCSANOW, &raw);
            t
        };
        let stop = Arc::new(AtomicBool::new(false));
        let paused = Arc::new(AtomicBool::new(false));
        let idle = Arc::new(AtomicBool::new(false));
        let (s, p, d) = (stop.clone(), paused.clone(), idle.clone());
        let thread = std::thread::Builder::new()
            .name("claudio-keys".into())
            .spawn(move || {
                let mut stdin = io::stdin();
                let mut buf = [0u8; 1024];
                while !s.load(Ordering::SeqCst) {
                    if p.load(Ordering::SeqCst) {
                        d.store(true, Ordering::SeqCst);
                        std::thread::sleep(Duration::from_millis(20));
                        continue;
                    }
                    d.store(false, Ordering::SeqCst);
                    let mut pfd = libc::pollfd {
                        fd: 0,
                        events: libc::POLLIN,
                        revents: 0,
                    };
                    // SAFETY: one valid pollfd.
                    if unsafe { libc::poll(&mut pfd, 1, 50) } <= 0 {
                        continue;
                    }
                    if p.load(Ordering::SeqCst) {
                        continue;
                    }
                    match stdin.read(&mut buf) {
                        // end of file on a terminal: Ctrl-D reached it in
                        // line mode (between two readers); pass it on
                        Ok(0) => {
                            let _ = tx.send(vec![0x04]);
                            return;
                        }
                        Err(_) => return,
                        Ok(n) => {
                            if tx.send(buf[..n].to_vec()).is_err() {
                                return;
                            }
                        }
                    }
                }
            })
            .ok()?;
        Some(KeyReader {
            stop,
            paused,
            idle,
            thread: Some(thread),
            saved: Some(saved),
        })
    }

    /// Hand the keyboard to another prompt; waits until the reader let go.
    pub fn pause(&self) {
        self.paused.store(true, Ordering::SeqCst);
        for _ in 0..20 {
            if self.idle.load(Ordering::SeqCst) {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    pub fn resume(&self) {
        self.paused.store(false, Ordering::SeqCst);
    }
}

impl Drop for KeyReader {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        if let Some(t) = self.saved.take() {
            // SAFETY: restores the mode read in `start`.
            unsafe {
                libc::tcsetattr(0, libc::TCSANOW, &t);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_still_in_flight_when_the_turn_ends_are_kept() {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let mut t = TypeAhead::default();
        t.bytes(b"queued\r");
        // typed in the instant the answer ended: a line, an interjection
        // that can no longer cut in, and the start of the next prompt
        tx.send(b"later\r".to_vec()).unwrap();
        tx.send(b"urgent\x1b\r".to_vec()).unwrap();
        tx.send("draft é".as_bytes().to_vec()).unwrap();
        t.drain_after_turn(&mut rx);
        assert_eq!(t.queued, ["urgent", "queued", "later"]);
        assert_eq!(t.typed, "draft é");
    }

    #[test]
    fn enter_queues_and_keys_edit() {
        let mut t = TypeAhead::default();
        t.bytes(b"first\r");
        t.bytes("sécond".as_bytes());
        t.bytes(b"\x7f\x7fnd\r");
        assert_eq!(t.queued, ["first", "sécond"]);
        assert!(t.typed.is_empty());
        t.bytes(b"   \r");
        assert_eq!(t.queued.len(), 2, "blank lines are not queued");
        t.bytes(b"draft\x15");
        assert!(t.typed.is_empty());
    }

    #[test]
    fn ctrl_d_on_an_empty_line_is_noted() {
        let mut t = TypeAhead::default();
        t.bytes(b"x\x04");
        assert!(!t.eof, "not with text on the line");
        t.bytes(b"\x7f\x04");
        assert!(t.eof);
    }

    #[test]
    fn interjections_and_removal() {
        let mut t = TypeAhead::default();
        let a = t.bytes(b"stop that\x1b\r");
        assert!(a.contains(&Action::SendNow("stop that".into())));
        t.bytes(b"one\rtwo\r");
        t.bytes(b"\x18");
        assert_eq!(t.queued, ["one"]);
        let a = t.bytes(b"\x13");
        assert!(a.contains(&Action::SendNow("one".into())));
        assert!(t.queued.is_empty());
    }

    #[test]
    fn split_utf8_and_escape_sequences() {
        let mut t = TypeAhead::default();
        let e = "é".as_bytes();
        t.bytes(&e[..1]);
        t.bytes(&e[1..]);
        t.bytes(b"\x1b[");
        t.bytes(b"A"); // an arrow key: ignored
        t.bytes(b"x");
        assert_eq!(t.typed, "éx");
        assert_eq!(t.footer(), vec!["› éx".to_string()]);
        t.bytes(b"\r");
        assert_eq!(
            t.footer(),
            vec!["queued 1/1 › éx".to_string(), "› ".to_string()]
        );
    }
}
