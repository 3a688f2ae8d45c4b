//! The chat's one reader of the keyboard: a thread reading the terminal
//! with crossterm, at the prompt and while Claude works (#42.1).
//!
//! At the prompt, [`super::editor::LineEditor`] starts a [`Keys`] in raw
//! mode and feeds its keys to the prompt line's pure machine
//! (`promptline.rs`, on rustyline's `LineBuffer` and `History`); rustyline
//! no longer reads the terminal itself. Why not keep `Editor::readline`:
//! it reads the terminal with a reader of its own, which no `select!` can
//! wait on beside the session's events, and what it read past a key that
//! stopped it stayed in its buffer, out of the chat's reach (the next
//! turn's type-ahead could not have it). rustyline's public editing pieces
//! (`line_buffer::LineBuffer`, `history::FileHistory`) do its job, line
//! editing and history, without that.
//!
//! From the moment a prompt is sent until the next one is read, a [`Keys`]
//! reads for the turn: the type-ahead, approvals, and the question and
//! plan pickers all take their keys from the same stream, inside the
//! turn's `select!`, so nothing is read twice and nothing waits for a
//! reader to let go. Each reading hands what it read and did not take to
//! the next ([`Keys::finish`]). Between turns, a picker shown at the
//! prompt (`/rewind`'s) starts a [`Keys`] of its own and finishes it
//! before the prompt returns.
//!
//! The signals that end the chat (SIGTERM, SIGHUP, SIGQUIT, SIGUSR1/2) are
//! one stream beside the keys, taken once for the chat's life
//! ([`take_stops`]): [`Keys::next`] ends on them as for a terminal gone,
//! and every other wait of the chat waits on [`stopped`] too.
//!
//! The terminal is put in character mode without echo, with signals on:
//! Ctrl-C still interrupts (SIGINT), Ctrl-Z still suspends (SIGTSTP, and the
//! shell's `fg` brings the turn back). The prompt, and a dialog that needs
//! Ctrl-C as a key, ask for [`Keys::raw`] for as long as they run.
//!
//! In every mode set here, output processing is on (`OPOST`, `ONLCR`), even
//! when the mode found was without it: a `\n` written while keys are read
//! starts its line at the first column. Everything the chat writes during a
//! turn (the tool call to allow, a question, a plan box, the notes after an
//! answer) is text with plain newlines; without output processing each of
//! its lines would start where the last one ended (a staircase). That is
//! why the raw mode is not crossterm's (`cfmakeraw` turns `OPOST` off).
//!
//! The keys are read by a thread of claudio's own, not by crossterm's
//! `EventStream`: a dropped stream can leave crossterm's thread waiting on
//! the terminal, and when the line editor then takes the keys typed at the
//! prompt, that thread blocks in a read while holding crossterm's reader,
//! so the next turn froze in `EventStream::new`. The thread here looks at a
//! stop flag between short polls, and [`Keys::finish`] waits for it to end.

use claudio::Cancellation;
use crossterm::event::{Event, KeyEvent, KeyEventKind};
use rustix::termios::{
    self, InputModes, LocalModes, OptionalActions, OutputModes, SpecialCodeIndex, Termios,
};
use std::io::{self, IsTerminal, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use tokio::sync::mpsc;

/// How often the reading thread looks at its stop flag (a key arriving
/// ends the wait at once).
const POLL: Duration = Duration::from_millis(40);
/// How long stopping waits for the thread (it is inside a read of a key
/// split in two, at worst).
const STOP_WAIT: Duration = Duration::from_millis(500);

/// The terminal being read (standard input, or `/dev/tty` when that is a
/// pipe).
enum Tty {
    Stdin(io::Stdin),
    Dev(OwnedFd),
}

impl Tty {
    fn open() -> Option<Tty> {
        let stdin = io::stdin();
        if stdin.is_terminal() {
            return Some(Tty::Stdin(stdin));
        }
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/tty")
            .ok()?;
        Some(Tty::Dev(f.into()))
    }

    fn fd(&self) -> BorrowedFd<'_> {
        match self {
            Tty::Stdin(s) => s.as_fd(),
            Tty::Dev(fd) => fd.as_fd(),
        }
    }
}

/// The character mode the chat reads keys in: no line editing, no echo,
/// no flow control (Ctrl-S is a key), Enter as `\r`, signals as they were;
/// with `signals` off, Ctrl-C, Ctrl-Z and Ctrl-V arrive as keys too (raw).
/// Output processing is on whatever `saved` had (see the module's notes).
fn char_mode(saved: &Termios, signals: bool) -> Termios {
    let mut t = saved.clone();
    t.local_modes &= !(LocalModes::ICANON | LocalModes::ECHO);
    t.input_modes &= !(InputModes::IXON | InputModes::ICRNL);
    if !signals {
        t.local_modes &= !(LocalModes::ISIG | LocalModes::IEXTEN);
        t.input_modes &= !(InputModes::INLCR | InputModes::IGNCR | InputModes::ISTRIP);
    }
    t.output_modes |= OutputModes::OPOST | OutputModes::ONLCR;
    t.special_codes[SpecialCodeIndex::VMIN] = 1;
    t.special_codes[SpecialCodeIndex::VTIME] = 0;
    t
}

/// The signals that end the chat, taken once for its life (#42.1): SIGTERM,
/// SIGHUP (the terminal closed), and SIGQUIT, SIGUSR1 and SIGUSR2 (whose
/// default would end it at once, its private files left on disk and the
/// terminal raw). No task of their own ends the process from wherever the
/// chat is: every wait of the chat (the prompt's keys, the turn's events,
/// a `!` command, the Ctrl-G editor, the connection) waits on [`stopped`]
/// beside what it waits for, and the chat ends from its own loop (the CLI
/// closed, the history saved, the terminal put back). One registration for
/// the chat's life: a signal arriving between two waits is held by it and
/// seen at the next, never lost.
static STOPS: OnceLock<tokio::sync::Mutex<Vec<(i32, tokio::signal::unix::Signal)>>> =
    OnceLock::new();
/// The signal that stopped the chat (0: none yet). A stop is a state:
/// once seen, every wait sees it at once.
static STOPPED: AtomicI32 = AtomicI32::new(0);

/// Take the signals that end the chat from now on (inside the runtime).
pub fn take_stops() -> io::Result<()> {
    use tokio::signal::unix::{signal, SignalKind};
    if STOPS.get().is_some() {
        return Ok(());
    }
    let stops = [
        libc::SIGTERM,
        libc::SIGHUP,
        libc::SIGQUIT,
        libc::SIGUSR1,
        libc::SIGUSR2,
    ]
    .into_iter()
    .map(|n| Ok((n, signal(SignalKind::from_raw(n))?)))
    .collect::<io::Result<Vec<_>>>()?;
    let _ = STOPS.set(tokio::sync::Mutex::new(stops));
    Ok(())
}

/// The signal that stopped the chat, if one did.
pub fn stopped_by() -> Option<i32> {
    match STOPPED.load(Ordering::SeqCst) {
        0 => None,
        n => Some(n),
    }
}

/// Resolves with the signal that stops the chat: at once if one already
/// did; never when the signals were not taken ([`take_stops`]).
pub async fn stopped() -> i32 {
    if let Some(n) = stopped_by() {
        return n;
    }
    let Some(stops) = STOPS.get() else {
        return std::future::pending().await;
    };
    let mut stops = stops.lock().await;
    // seen by another wait while this one waited for the streams
    if let Some(n) = stopped_by() {
        return n;
    }
    let n = std::future::poll_fn(|cx| {
        for (n, stream) in stops.iter_mut() {
            if let std::task::Poll::Ready(Some(())) = stream.poll_recv(cx) {
                return std::task::Poll::Ready(*n);
            }
        }
        std::task::Poll::Pending
    })
    .await;
    let _ = STOPPED.compare_exchange(0, n, Ordering::SeqCst, Ordering::SeqCst);
    stopped_by().unwrap_or(n)
}

/// The chat was stopped by a signal: the error every wait of the chat ends
/// with then, up to its loop.
#[derive(Debug, thiserror::Error)]
#[error("stopped by signal {0}")]
pub struct Stopped(pub i32);

/// `fut`, unless a signal stops the chat first ([`Stopped`]).
pub async fn unless_stopped<T>(fut: impl std::future::Future<Output = T>) -> Result<T, Stopped> {
    tokio::select! {
        biased;
        n = stopped() => Err(Stopped(n)),
        t = fut => Ok(t),
    }
}

/// Keys from the terminal, for as long as it lives; the terminal's mode is
/// put back when it is finished or dropped.
pub struct Keys {
    tty: Tty,
    saved: Termios,
    reader: Option<Reader>,
    /// How many [`RawGuard`]s live: the mode goes back to character mode
    /// when the last one is dropped, whatever the order.
    raw: Arc<AtomicUsize>,
}

/// What [`Keys::next`] gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TermEvent {
    Key(KeyEvent),
    Paste(String),
    /// The terminal's new width and height.
    Resize(u16, u16),
}

/// What [`Keys::next_unless`] gives.
#[derive(Debug)]
pub enum Next {
    TermEvent(TermEvent),
    /// The request was withdrawn.
    Cancelled,
    /// The terminal is gone.
    Gone,
}

impl TermEvent {
    fn of(e: Event) -> Option<TermEvent> {
        match e {
            Event::Key(k) if k.kind != KeyEventKind::Release => Some(TermEvent::Key(k)),
            Event::Paste(p) => Some(TermEvent::Paste(p)),
            Event::Resize(w, h) => Some(TermEvent::Resize(w, h)),
            _ => None,
        }
    }
}

impl Keys {
    /// Start reading the terminal; `None` when there is none.
    pub fn start() -> Option<Keys> {
        let tty = Tty::open()?;
        let saved = termios::tcgetattr(tty.fd()).ok()?;
        let mut keys = Keys {
            tty,
            saved,
            reader: None,
            raw: Arc::default(),
        };
        keys.enter_char_mode().ok()?;
        keys.reader = Some(Reader::start().ok()?);
        Some(keys)
    }

    /// The next key, paste or resize; `None` when the terminal is gone, or
    /// when a signal stopped the chat ([`stopped`]): every reading ends
    /// then, as for a terminal gone, and the chat's loop ends the chat.
    pub async fn next(&mut self) -> Option<TermEvent> {
        let reader = self.reader.as_mut()?;
        loop {
            let next = tokio::select! {
                biased;
                _ = stopped() => return None,
                e = reader.events.recv() => e,
            };
            match next? {
                Ok(e) => {
                    if let Some(i) = TermEvent::of(e) {
                        return Some(i);
                    }
                }
                Err(_) => return None,
            }
        }
    }

    /// The keys read and not taken yet, without waiting for more: what
    /// was typed before what is drawn next.
    pub fn ready(&mut self) -> Vec<TermEvent> {
        let mut out = Vec::new();
        let Some(reader) = self.reader.as_mut() else {
            return out;
        };
        // the terminal gone: `next` says so (the channel closes after it)
        while let Ok(Ok(e)) = reader.events.try_recv() {
            out.extend(TermEvent::of(e));
        }
        out
    }

    /// The next input, unless the request it answers is withdrawn first.
    pub async fn next_unless(&mut self, cancel: Option<&Cancellation>) -> Next {
        let cancelled = async {
            match cancel {
                Some(c) => c.cancelled().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            i = self.next() => i.map_or(Next::Gone, Next::TermEvent),
            _ = cancelled => Next::Cancelled,
        }
    }

    /// Single keys with signals off (Ctrl-C and Ctrl-Z arrive as keys) until
    /// the guard is dropped; output processing stays on.
    pub fn raw(&self) -> RawGuard {
        let fd = rustix::io::fcntl_dupfd_cloexec(self.tty.fd(), 0).ok();
        let on = fd.as_ref().is_some_and(|fd| {
            termios::tcsetattr(fd, OptionalActions::Now, &char_mode(&self.saved, false)).is_ok()
        });
        let fd = fd.filter(|_| on);
        if fd.is_some() {
            self.raw.fetch_add(1, Ordering::SeqCst);
        }
        RawGuard {
            fd,
            back: char_mode(&self.saved, true),
            raw: self.raw.clone(),
        }
    }

    /// Put the chat's mode back after the process was stopped and continued
    /// (the shell may have changed the terminal in between).
    pub fn restore_char_mode(&self) {
        let _ = self.enter_char_mode();
    }

    /// Character mode, and bracketed paste: pasted text arrives whole, not
    /// as keys (Enter in it sends nothing).
    fn enter_char_mode(&self) -> rustix::io::Result<()> {
        let signals = self.raw.load(Ordering::SeqCst) == 0;
        termios::tcsetattr(
            self.tty.fd(),
            OptionalActions::Now,
            &char_mode(&self.saved, signals),
        )?;
        write_now(b"\x1b[?2004h");
        Ok(())
    }

    /// Stop reading and give back what was typed in the last instant: the
    /// keys the terminal already delivered, so none is lost to the line
    /// editor that reads next.
    pub fn finish(mut self) -> Vec<TermEvent> {
        let mut left = Vec::new();
        if let Some(reader) = self.reader.take() {
            // what the thread read and sent, then what crossterm still holds
            for e in reader.stop() {
                left.extend(TermEvent::of(e));
            }
            while let Ok(true) = crossterm::event::poll(Duration::ZERO) {
                match crossterm::event::read() {
                    Ok(e) => left.extend(TermEvent::of(e)),
                    Err(_) => break,
                }
            }
        }
        left
    }
}

/// The thread that reads the terminal while [`Keys`] lives.
struct Reader {
    events: mpsc::UnboundedReceiver<io::Result<Event>>,
    stop: Arc<AtomicBool>,
    /// Closed when the thread ends.
    ended: std::sync::mpsc::Receiver<()>,
}

impl Reader {
    fn start() -> io::Result<Reader> {
        let (tx, events) = mpsc::unbounded_channel();
        let stop = Arc::new(AtomicBool::new(false));
        let (ended_tx, ended) = std::sync::mpsc::channel::<()>();
        let stopped = stop.clone();
        std::thread::Builder::new()
            .name("claudio-keys".into())
            .spawn(move || {
                let _ended = ended_tx;
                while !stopped.load(Ordering::SeqCst) {
                    let next = match crossterm::event::poll(POLL) {
                        Ok(false) => continue,
                        Ok(true) => crossterm::event::read(),
                        Err(e) => Err(e),
                    };
                    let failed = next.is_err();
                    if tx.send(next).is_err() || failed {
                        return;
                    }
                }
            })?;
        Ok(Reader {
            events,
            stop,
            ended,
        })
    }

    /// Stop the thread and wait for it to end (bounded); what it read and
    /// was not taken yet.
    fn stop(mut self) -> Vec<Event> {
        self.stop.store(true, Ordering::SeqCst);
        let _ = self.ended.recv_timeout(STOP_WAIT);
        let mut left = Vec::new();
        while let Ok(e) = self.events.try_recv() {
            left.extend(e.ok());
        }
        left
    }
}

impl Drop for Keys {
    fn drop(&mut self) {
        if let Some(reader) = self.reader.take() {
            reader.stop();
        }
        write_now(b"\x1b[?2004l");
        let _ = termios::tcsetattr(self.tty.fd(), OptionalActions::Now, &self.saved);
    }
}

/// Raw mode while it lives (see [`Keys::raw`]).
pub struct RawGuard {
    /// The terminal (its own descriptor), when it could be switched.
    fd: Option<OwnedFd>,
    /// The chat's character mode, to go back to.
    back: Termios,
    raw: Arc<AtomicUsize>,
}

impl RawGuard {
    /// Whether the terminal could be switched.
    pub fn ok(&self) -> bool {
        self.fd.is_some()
    }
}

impl Drop for RawGuard {
    fn drop(&mut self) {
        if let Some(fd) = &self.fd {
            // the last guard puts the character mode back (a new guard may
            // be made before the one it replaces is dropped)
            if self.raw.fetch_sub(1, Ordering::SeqCst) == 1 {
                let _ = termios::tcsetattr(fd, OptionalActions::Now, &self.back);
            }
        }
    }
}

fn write_now(b: &[u8]) {
    let mut out = io::stdout();
    let _ = out.write_all(b);
    let _ = out.flush();
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::FromRawFd;

    /// A terminal's mode, as a pseudo-terminal has it, with output
    /// processing off (as a raw mode left behind would have it).
    fn without_output_processing() -> Termios {
        let (mut m, mut s) = (0, 0);
        // SAFETY: valid out-pointers; both fds become owned and are closed.
        let rc = unsafe {
            libc::openpty(
                &mut m,
                &mut s,
                std::ptr::null_mut(),
                std::ptr::null(),
                std::ptr::null(),
            )
        };
        assert_eq!(rc, 0);
        let (_m, s) = unsafe { (OwnedFd::from_raw_fd(m), OwnedFd::from_raw_fd(s)) };
        let mut t = termios::tcgetattr(&s).unwrap();
        t.output_modes &= !(OutputModes::OPOST | OutputModes::ONLCR);
        t
    }

    #[test]
    fn every_mode_keeps_output_processing_so_a_newline_starts_a_line() {
        let saved = without_output_processing();
        for signals in [true, false] {
            let t = char_mode(&saved, signals);
            assert!(
                t.output_modes
                    .contains(OutputModes::OPOST | OutputModes::ONLCR),
                "signals {signals}: {:?}",
                t.output_modes
            );
            assert!(!t.local_modes.contains(LocalModes::ICANON));
            assert!(!t.local_modes.contains(LocalModes::ECHO));
        }
        // raw: Ctrl-C and Ctrl-Z are keys
        assert!(!char_mode(&saved, false)
            .local_modes
            .contains(LocalModes::ISIG));
        let mut with_signals = saved.clone();
        with_signals.local_modes |= LocalModes::ISIG;
        assert!(char_mode(&with_signals, true)
            .local_modes
            .contains(LocalModes::ISIG));
    }
}
