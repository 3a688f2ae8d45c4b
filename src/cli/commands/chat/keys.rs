//! The chat's one reader of the keyboard and of its signals: one
//! [`Keys`] for the chat's whole life (#42.1), a thread reading the
//! terminal with crossterm and a task taking the signals, both into one
//! channel, read in order by whoever reads next.
//!
//! At the prompt, [`super::editor::LineEditor`] reads it in raw mode and
//! feeds its keys to the prompt line's pure machine (`promptline.rs`, on
//! rustyline's `LineBuffer` and `History`); rustyline no longer reads the
//! terminal itself. Why not keep `Editor::readline`: it reads the terminal
//! with a reader of its own, which no `select!` can wait on beside the
//! session's events, and what it read past a key that stopped it stayed in
//! its buffer, out of the chat's reach (the next turn's type-ahead could
//! not have it). rustyline's public editing pieces
//! (`line_buffer::LineBuffer`, `history::FileHistory`) do its job, line
//! editing and history, without that.
//!
//! While Claude works, the turn's loop reads the same one: the type-ahead,
//! approvals, and the question and plan pickers all take their keys from
//! it, inside the turn's `select!`, so nothing is read twice and nothing
//! waits for a reader to let go. A picker shown at the prompt (`/rewind`'s)
//! reads it too. Since it lives as long as the chat, a key typed between
//! two readings (a turn's end and the next prompt, a slash command waiting
//! for the CLI, the session connecting) waits in the channel for the next
//! reading, neither lost nor echoed. What was typed past a reading's end
//! stays here, in order, for the next: no second queue of keys.
//!
//! A child that owns the terminal (the Ctrl-G editor) has it while the
//! reading is paused ([`Keys::pause`]: the thread stopped, the mode the
//! chat found put back) and resumed after ([`Keys::resume`]): still one
//! instance. The shell has it while the chat is stopped (Ctrl-Z, `kill
//! -TSTP`): handed back before the stop, taken again after it
//! ([`stop_here`]).
//!
//! Every signal the chat handles comes in through the same channel, taken
//! once for the chat's life: SIGINT and SIGCONT as [`Input::Signal`]s
//! among the keys, a resize as the terminal's [`TermEvent::Resize`], and
//! the ones that end the chat (SIGTERM, SIGHUP, SIGQUIT, SIGUSR1/2) as a
//! state too: [`Keys::next`] ends on them as for a terminal gone, and
//! every other wait of the chat waits on [`stopped`].
//!
//! The terminal is put in character mode without echo, with signals on:
//! Ctrl-C still interrupts (SIGINT), Ctrl-Z still suspends (SIGTSTP, taken
//! here too: the terminal is handed back as the chat found it before the
//! process stops, [`stop_here`], and the shell's `fg` brings the turn
//! back, drawn again, nothing it said or was typed lost). The prompt, and a dialog that needs
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
//! the terminal, blocked in a read while holding crossterm's reader, so
//! the next reading froze in `EventStream::new`. The thread here looks at
//! a stop flag between short polls, and [`Keys::pause`] waits for it to
//! end.

use claudio::Cancellation;
use crossterm::event::{Event, KeyEvent, KeyEventKind};
use rustix::termios::{
    self, InputModes, LocalModes, OptionalActions, OutputModes, SpecialCodeIndex, Termios,
};
use std::collections::VecDeque;
use std::io::{self, IsTerminal, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::sync::{Condvar, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;

/// How often the reading thread looks at its stop flag (a key arriving
/// ends the wait at once).
const POLL: Duration = Duration::from_millis(40);
/// How long stopping waits for the thread (it is inside a read of a key
/// split in two, at worst).
const STOP_WAIT: Duration = Duration::from_millis(500);
/// The longest a clearing ([`Keys::discard_typed`]) waits for the reading
/// thread to take its epoch up. The thread takes it up within one round
/// (a poll of [`POLL`], or a paste's burst, which looks for it on every
/// read), and says so when it ends: this bound is for a thread truly
/// stuck, not a time. Bounded by half a second, a thread descheduled that
/// long on a loaded machine dropped the first key typed after the
/// question was drawn.
const TAKE_UP_WAIT: Duration = Duration::from_secs(60);
/// The most of a paste's burst held before it is handed on (what follows
/// in the same burst is handed on as pasted text too, in pieces of at most
/// this many bytes): a program writing to the terminal without end after
/// a paste's end marker is not held without end.
const PASTE_CHUNK: usize = 64 * 1024;
/// The most of what crossterm holds dropped at a clearing
/// ([`Keys::discard_typed`]): a terminal written to without end is not
/// read without end.
const DRAIN_MAX: usize = 4096;

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

/// The signals that end the chat: SIGTERM, SIGHUP (the terminal closed),
/// and SIGQUIT, SIGUSR1 and SIGUSR2 (whose default would end it at once,
/// its private files left on disk and the terminal raw).
const STOPS: [i32; 5] = [
    libc::SIGTERM,
    libc::SIGHUP,
    libc::SIGQUIT,
    libc::SIGUSR1,
    libc::SIGUSR2,
];

/// Every signal the chat takes, for its life, through its one source
/// (#42.1): SIGINT (Ctrl-C while Claude works) and SIGCONT (back from
/// Ctrl-Z) as events beside the keys ([`Sig`]), SIGTSTP (Ctrl-Z while
/// Claude works, `kill -TSTP`) as a stop with the terminal handed back
/// first ([`stop_here`]), and the ones that end it ([`STOPS`]). A resize
/// (SIGWINCH) comes from the terminal's own reader, as a
/// [`TermEvent::Resize`] among the keys.
const TAKEN: [i32; 8] = [
    libc::SIGINT,
    libc::SIGCONT,
    libc::SIGTSTP,
    libc::SIGTERM,
    libc::SIGHUP,
    libc::SIGQUIT,
    libc::SIGUSR1,
    libc::SIGUSR2,
];

/// The stop, for every wait of the chat (0: none yet). No task of their
/// own ends the process from wherever the chat is: every wait of the chat
/// (the keys, the turn's events, a `!` command, the Ctrl-G editor, the
/// connection) waits on [`stopped`] beside what it waits for, and the
/// chat ends from its own loop (the CLI closed, the history saved, the
/// terminal put back).
static STOP: OnceLock<tokio::sync::watch::Sender<i32>> = OnceLock::new();
/// The signal that stopped the chat (0: none yet). A stop is a state:
/// once seen, every wait sees it at once.
static STOPPED: AtomicI32 = AtomicI32::new(0);
/// Whether the chat's one [`Keys`] was made: a second is refused, so that
/// no two readers ever share the keyboard or the signals.
static MADE: AtomicBool = AtomicBool::new(false);

/// The chat's terminal as a stop needs it, to hand it back first: set
/// while the chat reads one ([`Terminal`]).
static HANDBACK: std::sync::Mutex<Option<Handback>> = std::sync::Mutex::new(None);

/// What [`stop_here`] needs of the chat's terminal.
struct Handback {
    /// The terminal (a descriptor of its own).
    fd: OwnedFd,
    /// The mode the chat found it in.
    saved: Termios,
    /// How many [`RawGuard`]s live (the mode to set again after).
    raw: Arc<AtomicUsize>,
    /// The chat has the terminal: its reading is not paused (a child
    /// that owns it, the Ctrl-G editor, keeps it as it is).
    ours: bool,
}

fn handback() -> std::sync::MutexGuard<'static, Option<Handback>> {
    HANDBACK
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Stop the process as SIGTSTP stops it (Ctrl-Z, `kill -TSTP`), the
/// terminal first handed back as the chat found it: its mode (echo,
/// lines, signals), bracketed paste off, the cursor shown. Back from the
/// stop, the chat's mode is set again at once (a key typed after `fg` is
/// neither echoed nor held for a line), and the SIGCONT that continued it
/// comes in as [`Sig::Continue`]: the reading draws again what it shows.
///
/// The stop is SIGTSTP's own (its default action, for the moment of the
/// stop): in a process group no shell can continue (an orphaned one, as
/// `ssh host claudio` runs it), the kernel drops it, as it drops a Ctrl-Z
/// there, and the chat goes on where it was.
pub fn stop_here() {
    let held = handback();
    let ours = held.as_ref().filter(|h| h.ours);
    if let Some(h) = ours {
        write_now(b"\x1b[?2004l\x1b[?25h");
        let _ = termios::tcsetattr(&h.fd, OptionalActions::Now, &h.saved);
    }
    stop_as_sigtstp();
    if let Some(h) = ours {
        let signals = h.raw.load(Ordering::SeqCst) == 0;
        let _ = termios::tcsetattr(&h.fd, OptionalActions::Now, &char_mode(&h.saved, signals));
        write_now(b"\x1b[?2004h");
    }
}

/// SIGTSTP's default action, now: the chat's own handling of it set aside
/// for the moment of the stop, and put back after.
fn stop_as_sigtstp() {
    // SAFETY: sigaction(2) with valid pointers: SIGTSTP's action swapped
    // for its default and back; raise(3) of it on this thread, which stops
    // the process (or, in an orphaned process group, is dropped) before it
    // returns.
    unsafe {
        let mut default: libc::sigaction = std::mem::zeroed();
        default.sa_sigaction = libc::SIG_DFL;
        libc::sigemptyset(&mut default.sa_mask);
        let mut taken: libc::sigaction = std::mem::zeroed();
        if libc::sigaction(libc::SIGTSTP, &default, &mut taken) != 0 {
            return;
        }
        let mut only: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut only);
        libc::sigaddset(&mut only, libc::SIGTSTP);
        let mut mask: libc::sigset_t = std::mem::zeroed();
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &only, &mut mask);
        libc::raise(libc::SIGTSTP);
        libc::pthread_sigmask(libc::SIG_SETMASK, &mask, std::ptr::null_mut());
        libc::sigaction(libc::SIGTSTP, &taken, std::ptr::null_mut());
    }
}

/// The signal that stopped the chat, if one did.
pub fn stopped_by() -> Option<i32> {
    match STOPPED.load(Ordering::SeqCst) {
        0 => None,
        n => Some(n),
    }
}

/// Resolves with the signal that stops the chat: at once if one already
/// did; never when the chat's signals were not taken ([`Keys::start`]).
pub async fn stopped() -> i32 {
    if let Some(n) = stopped_by() {
        return n;
    }
    let Some(stop) = STOP.get() else {
        return std::future::pending().await;
    };
    let mut seen = stop.subscribe();
    let n = match seen.wait_for(|&n| n != 0).await {
        Ok(n) => *n,
        // the sender lives as long as the process
        Err(_) => return std::future::pending().await,
    };
    n
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

/// A signal the chat takes as an event, in order with the keys (the ones
/// that end it are a state: [`stopped`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sig {
    /// SIGINT: Ctrl-C while Claude works (the terminal's signals are on
    /// then), or `kill -INT`.
    Interrupt,
    /// SIGCONT: back from Ctrl-Z.
    Continue,
}

/// What the chat's one source gives: the terminal's keys, pastes and
/// resizes, and the signals, in the order they came.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    Term(TermEvent),
    Signal(Sig),
}

/// What goes through the source's channel: from the terminal's reading
/// thread, and from the signals' task.
enum Raw {
    /// What the terminal's reader read, with the clearing it was read in
    /// (the epoch: [`Keys::discard_typed`]).
    Term(u64, io::Result<Event>),
    Signal(i32),
}

/// The chat's one reader of the keyboard and of its signals, made once for
/// the chat's life ([`Keys::start`]): keys typed at any moment (between a
/// turn's end and the next prompt, while a dialog opens, while the
/// session connects) wait in its one channel, in order, for whoever reads
/// next. A child that must own the terminal (the Ctrl-G editor) has it
/// while the reading is paused ([`Keys::pause`],
/// [`Keys::resume`]). The terminal's mode is put back when it is dropped.
pub struct Keys {
    rx: mpsc::UnboundedReceiver<Raw>,
    /// For the terminal's reading thread, started again on resume.
    tx: mpsc::UnboundedSender<Raw>,
    /// Taken from the channel and not handed out yet, in order (keys read
    /// past while a signal was looked for: [`Keys::next_signal`]; a signal
    /// met while the keys ready were taken: [`Keys::ready`]).
    kept: VecDeque<Input>,
    /// The terminal, when the chat has one.
    term: Option<Terminal>,
    /// The terminal is gone (its reading failed).
    gone: bool,
    /// The keys are a test's, sent as a terminal would ([`Keys::scripted`]).
    scripted: bool,
    /// How many clearings there were ([`Keys::discard_typed`]): the
    /// terminal's reader tags what it reads with the one it has taken up,
    /// and an event read before the last one is dropped whenever it comes.
    epoch: Arc<Epoch>,
}

/// The terminal the keys are read from, and its mode.
struct Terminal {
    tty: Tty,
    saved: Termios,
    /// The reading thread (none while paused).
    reader: Option<Reader>,
    /// How many [`RawGuard`]s live: the mode goes back to character mode
    /// when the last one is dropped, whatever the order.
    raw: Arc<AtomicUsize>,
}

/// What [`Keys::next_unless`] gives.
#[derive(Debug)]
pub enum Next {
    TermEvent(TermEvent),
    /// Back from Ctrl-Z (SIGCONT): the terminal's mode is set again; what
    /// is drawn is to be drawn again.
    Continued,
    /// The request was withdrawn.
    Cancelled,
    /// The terminal is gone.
    Gone,
}

/// What [`Keys::next`] gives from the terminal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TermEvent {
    Key(KeyEvent),
    Paste(String),
    /// The terminal's new width and height.
    Resize(u16, u16),
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

/// Take the chat's signals for its life, into `tx` (inside the runtime).
fn take_signals(handle: &tokio::runtime::Handle, tx: mpsc::UnboundedSender<Raw>) -> io::Result<()> {
    use tokio::signal::unix::{signal, SignalKind};
    let _inside = handle.enter();
    let mut streams = TAKEN
        .into_iter()
        .map(|n| Ok((n, signal(SignalKind::from_raw(n))?)))
        .collect::<io::Result<Vec<_>>>()?;
    let _ = STOP.set(tokio::sync::watch::channel(0).0);
    handle.spawn(async move {
        loop {
            let n = std::future::poll_fn(|cx| {
                for (n, stream) in streams.iter_mut() {
                    if let std::task::Poll::Ready(Some(())) = stream.poll_recv(cx) {
                        return std::task::Poll::Ready(*n);
                    }
                }
                std::task::Poll::Pending
            })
            .await;
            if n == libc::SIGTSTP {
                // the process stops here, and goes on here: the SIGCONT
                // that continues it comes next, as an event
                stop_here();
                continue;
            }
            if STOPS.contains(&n) {
                let _ = STOPPED.compare_exchange(0, n, Ordering::SeqCst, Ordering::SeqCst);
                if let Some(stop) = STOP.get() {
                    stop.send_replace(stopped_by().unwrap_or(n));
                }
            }
            // the keys dropped (the chat ending): the stop is still seen
            let _ = tx.send(Raw::Signal(n));
        }
    });
    Ok(())
}

impl Keys {
    /// The chat's one reader: its signals taken from now on, and the
    /// terminal read when `terminal` (the chat has one: its input and its
    /// output are terminals) and one can be opened. Made once in a
    /// process: a second is refused.
    pub fn start(handle: &tokio::runtime::Handle, terminal: bool) -> io::Result<Keys> {
        if MADE.swap(true, Ordering::SeqCst) {
            return Err(io::Error::other(
                "the chat's keyboard already has its one reader",
            ));
        }
        let (tx, rx) = mpsc::unbounded_channel();
        take_signals(handle, tx.clone())?;
        let epoch = Arc::new(Epoch::default());
        let term = if terminal {
            Terminal::open(&tx, &epoch)
        } else {
            None
        };
        Ok(Keys {
            rx,
            tx,
            kept: VecDeque::new(),
            term,
            gone: false,
            scripted: false,
            epoch,
        })
    }

    /// Keys a test sends, as a terminal would ([`Scripted`]): no terminal
    /// read, no signal taken, no mode set; the chat reads them as its one
    /// reader's. Any number may be made (each test its own).
    #[cfg(test)]
    pub fn scripted() -> (Keys, Scripted) {
        let (tx, rx) = mpsc::unbounded_channel();
        let epoch = Arc::new(Epoch::default());
        let keys = Keys {
            rx,
            tx: tx.clone(),
            kept: VecDeque::new(),
            term: None,
            gone: false,
            scripted: true,
            epoch: epoch.clone(),
        };
        (keys, Scripted(tx, epoch))
    }

    /// Whether keys are read from a terminal (there is one, not gone).
    pub fn has_terminal(&self) -> bool {
        (self.term.is_some() || self.scripted) && !self.gone
    }

    /// What came from the channel as an input (`None`: nothing to hand
    /// out: an event not handed on, a stop, or the terminal gone).
    fn take(&mut self, raw: Raw) -> Option<Input> {
        match raw {
            // read before the last clearing: typed before what it cleared for
            Raw::Term(read_in, Ok(_)) if read_in != self.epoch.load() => None,
            Raw::Term(_, Ok(e)) => TermEvent::of(e).map(Input::Term),
            Raw::Term(_, Err(_)) => {
                self.gone = true;
                None
            }
            Raw::Signal(libc::SIGINT) => Some(Input::Signal(Sig::Interrupt)),
            Raw::Signal(libc::SIGCONT) => Some(Input::Signal(Sig::Continue)),
            // a stop: a state, seen by `stopped`
            Raw::Signal(_) => None,
        }
    }

    /// The next key, paste, resize or signal; `None` when the terminal is
    /// gone, or when a signal stopped the chat ([`stopped`]): every reading
    /// ends then, as for a terminal gone, and the chat's loop ends the chat.
    pub async fn next(&mut self) -> Option<Input> {
        loop {
            if stopped_by().is_some() {
                return None;
            }
            if let Some(i) = self.kept.pop_front() {
                return Some(i);
            }
            if self.gone {
                return None;
            }
            let raw = tokio::select! {
                biased;
                _ = stopped() => return None,
                r = self.rx.recv() => r?,
            };
            if let Some(i) = self.take(raw) {
                return Some(i);
            }
        }
    }

    /// The next signal, the keys read meanwhile kept in order for the
    /// next reading (a `!` command's wait: Ctrl-C stops it, what is typed
    /// meanwhile is the next prompt's); `None` when a signal stops the
    /// chat.
    pub async fn next_signal(&mut self) -> Option<Sig> {
        if let Some(at) = self.kept.iter().position(|i| matches!(i, Input::Signal(_))) {
            if let Some(Input::Signal(s)) = self.kept.remove(at) {
                return Some(s);
            }
        }
        loop {
            let raw = tokio::select! {
                biased;
                _ = stopped() => return None,
                r = self.rx.recv() => r?,
            };
            match self.take(raw) {
                Some(Input::Signal(s)) => return Some(s),
                Some(i) => self.kept.push_back(i),
                None => {}
            }
        }
    }

    /// Drop every key typed so far, read or not yet: a question about to
    /// be shown (the workspace's trust) is answered only by keys typed
    /// after it is. The terminal's input queue is flushed and a new epoch
    /// begun: the reading thread, at its next round, drops what crossterm
    /// holds and tags what it reads after with the new epoch; an event it
    /// read before (a paste it was holding, a key read and not yet handed
    /// on) carries the old one and is dropped whenever it comes, with no
    /// guess of time and no second reader. The clearing waits for the
    /// thread to take the new epoch up (bounded only against a thread
    /// truly stuck, [`TAKE_UP_WAIT`]), so that a key typed once the
    /// question is drawn is kept. Every
    /// key in the channel is
    /// dropped, those behind a signal too (the signals are kept, in order,
    /// for the next reading: back from Ctrl-Z, keys typed ahead behind the
    /// SIGCONT answered the question).
    pub fn discard_typed(&mut self) {
        if let Some(t) = self.term.as_ref().filter(|t| t.reader.is_some()) {
            let _ = termios::tcflush(t.tty.fd(), termios::QueueSelector::IFlush);
        }
        let now = self.epoch.begin();
        if self.term.as_ref().is_some_and(|t| t.reader.is_some()) {
            // the question is drawn once the thread tags what it reads
            // with the new epoch: a key typed after it is kept
            self.epoch.wait_taken(now, TAKE_UP_WAIT);
        }
        self.kept.retain(|i| matches!(i, Input::Signal(_)));
        while let Ok(raw) = self.rx.try_recv() {
            if let Some(signal @ Input::Signal(_)) = self.take(raw) {
                self.kept.push_back(signal);
            }
        }
    }

    /// The keys read and not taken yet, without waiting for more: what
    /// was typed before what is drawn next. Ends at a signal (it is the
    /// next [`Keys::next`]'s).
    pub fn ready(&mut self) -> Vec<TermEvent> {
        let mut out = Vec::new();
        while let Some(Input::Term(_)) = self.kept.front() {
            if let Some(Input::Term(t)) = self.kept.pop_front() {
                out.push(t);
            }
        }
        if !self.kept.is_empty() {
            return out;
        }
        while let Ok(raw) = self.rx.try_recv() {
            match self.take(raw) {
                Some(Input::Term(t)) => out.push(t),
                Some(signal) => {
                    self.kept.push_back(signal);
                    break;
                }
                None => {}
            }
        }
        out
    }

    /// The next input already read, without waiting.
    fn ready_input(&mut self) -> Option<Input> {
        if let Some(i) = self.kept.pop_front() {
            return Some(i);
        }
        while let Ok(raw) = self.rx.try_recv() {
            if let Some(i) = self.take(raw) {
                return Some(i);
            }
        }
        None
    }

    /// The next input, unless the request it answers is withdrawn first.
    /// Ctrl-C as a signal is passed over (on the raw terminal a picker
    /// needs, Ctrl-C is a key); back from Ctrl-Z, the mode is set again.
    pub async fn next_unless(&mut self, cancel: Option<&Cancellation>) -> Next {
        let cancelled = async {
            match cancel {
                Some(c) => c.cancelled().await,
                None => std::future::pending().await,
            }
        };
        tokio::pin!(cancelled);
        loop {
            let next = tokio::select! {
                i = self.next() => i,
                _ = &mut cancelled => return Next::Cancelled,
            };
            match next {
                None => return Next::Gone,
                Some(Input::Term(t)) => return Next::TermEvent(t),
                Some(Input::Signal(Sig::Continue)) => {
                    self.restore_char_mode();
                    return Next::Continued;
                }
                Some(Input::Signal(Sig::Interrupt)) => {}
            }
        }
    }

    /// Single keys with signals off (Ctrl-C and Ctrl-Z arrive as keys) until
    /// the guard is dropped; output processing stays on.
    pub fn raw(&self) -> RawGuard {
        let Some(t) = &self.term else {
            // a test's keys are single keys already
            return RawGuard {
                on: None,
                scripted: self.scripted,
            };
        };
        let fd = rustix::io::fcntl_dupfd_cloexec(t.tty.fd(), 0).ok();
        let on = fd.as_ref().is_some_and(|fd| {
            termios::tcsetattr(fd, OptionalActions::Now, &char_mode(&t.saved, false)).is_ok()
        });
        let on = fd.filter(|_| on).map(|fd| {
            t.raw.fetch_add(1, Ordering::SeqCst);
            (fd, char_mode(&t.saved, true), t.raw.clone())
        });
        RawGuard {
            on,
            scripted: false,
        }
    }

    /// Put the chat's mode back after the process was stopped and continued
    /// (the shell may have changed the terminal in between).
    pub fn restore_char_mode(&self) {
        if let Some(t) = &self.term {
            if t.reader.is_some() {
                let _ = t.enter_char_mode();
            }
        }
    }

    /// Let a child own the terminal (the Ctrl-G editor): the reading stops, what was read stays in the channel for
    /// the next reading, and the terminal's mode is the one the chat found
    /// (echo, lines) until [`Keys::resume`]. Still the one reader: nothing
    /// else reads the keyboard meanwhile but the child.
    pub fn pause(&mut self) {
        let Some(t) = self.term.as_mut() else {
            return;
        };
        let Some(reader) = t.reader.take() else {
            return;
        };
        reader.stop();
        if let Some(h) = handback().as_mut() {
            h.ours = false;
        }
        // what crossterm read and still holds, before what comes after
        let epoch = self.epoch.load();
        while let Ok(true) = crossterm::event::poll(Duration::ZERO) {
            let e = crossterm::event::read();
            let failed = e.is_err();
            let _ = self.tx.send(Raw::Term(epoch, e));
            if failed {
                break;
            }
        }
        write_now(b"\x1b[?2004l");
        let _ = termios::tcsetattr(t.tty.fd(), OptionalActions::Now, &t.saved);
    }

    /// Read the terminal again after [`Keys::pause`], in the chat's mode
    /// (raw if a [`RawGuard`] still lives).
    pub fn resume(&mut self) {
        let Some(t) = self.term.as_mut() else {
            return;
        };
        if t.reader.is_some() {
            return;
        }
        let _ = t.enter_char_mode();
        match Reader::start(self.tx.clone(), self.epoch.clone()) {
            Ok(r) => t.reader = Some(r),
            Err(_) => self.gone = true,
        }
        if let Some(h) = handback().as_mut() {
            h.ours = t.reader.is_some();
        }
    }
}

/// The chat's one reader as the `/resume` finder's source of keys
/// (`finder.rs`, which waits on the main thread): the finder reads the
/// same reader as every other reading of the chat.
pub struct FinderKeys<'k> {
    pub keys: &'k mut Keys,
    pub rt: &'k tokio::runtime::Handle,
    /// Read by a poll, for the next read.
    pub peeked: Option<Input>,
}

impl FinderKeys<'_> {
    fn gone() -> io::Error {
        io::Error::other("the terminal is gone")
    }
}

impl crate::cli::term::finder::KeySource for FinderKeys<'_> {
    fn poll(&mut self, within: Duration) -> io::Result<bool> {
        if self.peeked.is_some() {
            return Ok(true);
        }
        let keys = &mut *self.keys;
        let next = if within.is_zero() {
            keys.ready_input()
        } else {
            match self
                .rt
                .block_on(async { tokio::time::timeout(within, keys.next()).await })
            {
                Ok(None) => return Err(Self::gone()),
                Ok(some) => some,
                Err(_) => None,
            }
        };
        self.peeked = next;
        Ok(self.peeked.is_some())
    }

    fn read(&mut self) -> io::Result<Option<KeyEvent>> {
        let next = match self.peeked.take() {
            Some(i) => i,
            None => self.rt.block_on(self.keys.next()).ok_or_else(Self::gone)?,
        };
        Ok(match next {
            Input::Term(TermEvent::Key(k)) => Some(k),
            _ => None,
        })
    }
}

impl Terminal {
    /// Start reading the terminal into `tx`; `None` when there is none.
    fn open(tx: &mpsc::UnboundedSender<Raw>, epoch: &Arc<Epoch>) -> Option<Terminal> {
        let tty = Tty::open()?;
        let saved = termios::tcgetattr(tty.fd()).ok()?;
        let mut t = Terminal {
            tty,
            saved,
            reader: None,
            raw: Arc::default(),
        };
        t.enter_char_mode().ok()?;
        t.reader = Some(Reader::start(tx.clone(), epoch.clone()).ok()?);
        if let Ok(fd) = rustix::io::fcntl_dupfd_cloexec(t.tty.fd(), 0) {
            *handback() = Some(Handback {
                fd,
                saved: t.saved.clone(),
                raw: t.raw.clone(),
                ours: true,
            });
        }
        Some(t)
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
}

/// A paste, with what came in the same burst of input after its end
/// marker: a pasted text holding the marker (`ESC [201~`) ends the paste
/// there, and what followed it in the text would be read as keys typed
/// (an Enter in it would send the prompt, a `y` answer an approval). What
/// is read at once after a paste's end (crossterm holds it already, or the
/// terminal has it ready: nobody types that fast) is taken as pasted
/// text: a character as itself, Enter as a line break, Tab as a tab, a
/// paste's text joined on; a key no text can hold (an arrow, a Ctrl or
/// Alt chord) is dropped, never acted on. A resize met meanwhile is kept
/// in `after`, in order, as is an error (which ends the burst).
///
/// What the terminal sends later (a paste split by a slow link, its tail
/// in a later read) is not caught: that would need a guess of time.
///
/// Bounded: what it holds is handed on (`true`: the burst may go on, what
/// is ready next is still the paste's) when `held` says so (the reader
/// asked to stop, or a clearing begun: [`Keys::discard_typed`]) or when it
/// holds [`PASTE_CHUNK`] bytes; input that never ends (a program writing
/// to the terminal) is never held without end, and the reader can stop.
fn rest_of_paste(
    src: &mut impl Source,
    mut text: String,
    after: &mut Vec<io::Result<Event>>,
    held: &dyn Fn() -> bool,
) -> (String, bool) {
    loop {
        if held() || text.len() >= PASTE_CHUNK {
            return (text, true);
        }
        if !matches!(src.poll(Duration::ZERO), Ok(true)) {
            return (text, false);
        }
        let next = src.read();
        match next {
            Ok(e) => match in_paste(&e) {
                InPaste::Text(t) => text.push_str(&t),
                InPaste::Dropped => {}
                InPaste::Kept => after.push(Ok(e)),
            },
            Err(_) => {
                after.push(next);
                return (text, false);
            }
        }
    }
}

/// Where the reading thread reads the terminal's events: crossterm's
/// reader ([`Crossterm`]), or a test's.
trait Source {
    fn poll(&mut self, within: Duration) -> io::Result<bool>;
    fn read(&mut self) -> io::Result<Event>;
}

/// crossterm's reader of the terminal.
struct Crossterm;

impl Source for Crossterm {
    fn poll(&mut self, within: Duration) -> io::Result<bool> {
        crossterm::event::poll(within)
    }

    fn read(&mut self) -> io::Result<Event> {
        crossterm::event::read()
    }
}

/// The reading thread's loop: the terminal's events into the channel, each
/// tagged with the epoch the thread has taken up, until `stop`. A new
/// epoch ([`Keys::discard_typed`]) is taken up between two events: what
/// the source holds already is dropped then (bounded), and a paste being
/// held is handed on at once, with the old epoch (dropped by the reading).
fn read_loop(
    src: &mut impl Source,
    tx: &mpsc::UnboundedSender<Raw>,
    stop: &AtomicBool,
    epoch: &Epoch,
) {
    // the last epoch a reader took up: a clearing begun since (before this
    // thread's first round, or while no reader ran) is taken up at once,
    // what the source holds dropped; one begun as this thread started was
    // waited for by the clearing, which would otherwise never see it taken
    let mut seen = epoch.taken_now();
    // a paste's burst handed on in part, what is ready next still its text
    let mut burst = false;
    while !stop.load(Ordering::SeqCst) {
        let now = epoch.load();
        if now != seen {
            seen = now;
            for _ in 0..DRAIN_MAX {
                if stop.load(Ordering::SeqCst) || !matches!(src.poll(Duration::ZERO), Ok(true)) {
                    break;
                }
                if let Err(e) = src.read() {
                    let _ = tx.send(Raw::Term(seen, Err(e)));
                    return;
                }
            }
            epoch.taken(seen);
        }
        let next = if burst {
            Ok(Event::Paste(String::new()))
        } else {
            match src.poll(POLL) {
                Ok(false) => continue,
                Ok(true) => src.read(),
                Err(e) => Err(e),
            }
        };
        let mut after = Vec::new();
        let next = match next {
            Ok(Event::Paste(text)) => {
                let held = || stop.load(Ordering::SeqCst) || epoch.load() != seen;
                let (text, more) = rest_of_paste(src, text, &mut after, &held);
                let went_on = burst;
                burst = more;
                if went_on && text.is_empty() {
                    // the burst had ended: nothing more of it
                    None
                } else {
                    Some(Ok(Event::Paste(text)))
                }
            }
            other => Some(other),
        };
        for next in next.into_iter().chain(after) {
            let failed = next.is_err();
            if tx.send(Raw::Term(seen, next)).is_err() || failed {
                return;
            }
        }
    }
}

/// What an event read in the same burst as a paste's end is to it.
#[derive(Debug, PartialEq, Eq)]
enum InPaste {
    /// Pasted text.
    Text(String),
    /// A key no text holds: not acted on.
    Dropped,
    /// Not input (a resize): handed on as it is.
    Kept,
}

fn in_paste(e: &Event) -> InPaste {
    use crossterm::event::{KeyCode, KeyModifiers};
    match e {
        Event::Paste(t) => InPaste::Text(t.clone()),
        Event::Key(k) if k.kind == KeyEventKind::Release => InPaste::Dropped,
        Event::Key(k) => {
            let chord = k
                .modifiers
                .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
            match k.code {
                KeyCode::Char(c) if !chord => InPaste::Text(c.to_string()),
                KeyCode::Enter => InPaste::Text("\n".into()),
                KeyCode::Tab if !chord => InPaste::Text("\t".into()),
                _ => InPaste::Dropped,
            }
        }
        Event::Resize(..) => InPaste::Kept,
        _ => InPaste::Dropped,
    }
}

/// The clearings of the keys typed so far ([`Keys::discard_typed`]): the
/// one begun last, and the one the reading thread has taken up (it tags
/// what it reads with that one).
#[derive(Default)]
struct Epoch {
    now: AtomicU64,
    taken: Mutex<u64>,
    taken_up: Condvar,
}

impl Epoch {
    fn load(&self) -> u64 {
        self.now.load(Ordering::SeqCst)
    }

    /// A new clearing: its epoch.
    fn begin(&self) -> u64 {
        self.now.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// The reading thread tags what it reads with `n` from now on.
    fn taken(&self, n: u64) {
        *self
            .taken
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = n;
        self.taken_up.notify_all();
    }

    /// The epoch the reading thread took up last.
    fn taken_now(&self) -> u64 {
        *self
            .taken
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Wait (at most `within`) for the reading thread to take up `n`.
    fn wait_taken(&self, n: u64, within: Duration) {
        let taken = self
            .taken
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let _ = self.taken_up.wait_timeout_while(taken, within, |t| *t < n);
    }
}

/// The thread that reads the terminal into the chat's one channel, while
/// the reading is not paused.
struct Reader {
    stop: Arc<AtomicBool>,
    /// Closed when the thread ends.
    ended: std::sync::mpsc::Receiver<()>,
}

impl Reader {
    fn start(tx: mpsc::UnboundedSender<Raw>, epoch: Arc<Epoch>) -> io::Result<Reader> {
        let stop = Arc::new(AtomicBool::new(false));
        let (ended_tx, ended) = std::sync::mpsc::channel::<()>();
        let stopped = stop.clone();
        // crossterm takes SIGWINCH on its first poll: made here, before
        // the caller draws anything, so no resize after it is lost to a
        // thread not yet scheduled (what it finds waiting, the thread
        // reads)
        let _ = crossterm::event::poll(Duration::ZERO);
        std::thread::Builder::new()
            .name("claudio-keys".into())
            .spawn(move || {
                let _ended = ended_tx;
                read_loop(&mut Crossterm, &tx, &stopped, &epoch);
                // a clearing waiting for this thread waits no more
                epoch.taken(epoch.load());
            })?;
        Ok(Reader { stop, ended })
    }

    /// Stop the thread and wait for it to end (bounded: it is inside a
    /// read of a key split in two, at worst).
    fn stop(self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = self.ended.recv_timeout(STOP_WAIT);
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        *handback() = None;
        if let Some(reader) = self.reader.take() {
            reader.stop();
            write_now(b"\x1b[?2004l");
        }
        let _ = termios::tcsetattr(self.tty.fd(), OptionalActions::Now, &self.saved);
    }
}

/// Raw mode while it lives (see [`Keys::raw`]).
pub struct RawGuard {
    /// The terminal (its own descriptor), the chat's character mode to go
    /// back to, and the count of guards; none when it could not be
    /// switched.
    on: Option<(OwnedFd, Termios, Arc<AtomicUsize>)>,
    /// The keys are a test's ([`Keys::scripted`]): single keys, no mode.
    scripted: bool,
}

impl RawGuard {
    /// Whether the terminal could be switched.
    pub fn ok(&self) -> bool {
        self.on.is_some() || self.scripted
    }
}

/// What sends a test's keys to [`Keys::scripted`]: each event as the
/// terminal's reader would have read it.
#[cfg(test)]
pub struct Scripted(mpsc::UnboundedSender<Raw>, Arc<Epoch>);

#[cfg(test)]
impl Scripted {
    /// A key, a paste or a resize, as crossterm reads it.
    pub fn send(&self, e: Event) {
        let _ = self.0.send(Raw::Term(self.1.load(), Ok(e)));
    }

    /// The terminal gone (its reading failed).
    pub fn gone(&self) {
        let _ = self
            .0
            .send(Raw::Term(self.1.load(), Err(io::Error::other("gone"))));
    }

    /// A signal, as the signals' task hands it on.
    pub fn signal(&self, n: i32) {
        let _ = self.0.send(Raw::Signal(n));
    }
}

impl Drop for RawGuard {
    fn drop(&mut self) {
        if let Some((fd, back, raw)) = &self.on {
            // the last guard puts the character mode back (a new guard may
            // be made before the one it replaces is dropped)
            if raw.fetch_sub(1, Ordering::SeqCst) == 1 {
                let _ = termios::tcsetattr(fd, OptionalActions::Now, back);
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

    /// The chat's keyboard and signals have one reader for its life: a
    /// second is refused, and the signals the chat acts on (SIGINT,
    /// SIGCONT) come in through the one that was made, as events in its
    /// stream (here without a terminal: the signals still come).
    #[test]
    fn the_chat_has_one_reader_of_keys_and_signals_and_a_second_is_refused() {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let mut keys = Keys::start(rt.handle(), false).unwrap();
        assert!(!keys.has_terminal());
        assert!(Keys::start(rt.handle(), false).is_err());
        for (n, sig) in [
            (libc::SIGCONT, Sig::Continue),
            (libc::SIGINT, Sig::Interrupt),
        ] {
            // SAFETY: a signal to this process, taken by the reader above
            unsafe { libc::kill(libc::getpid(), n) };
            let got = rt.block_on(async {
                tokio::time::timeout(Duration::from_secs(20), keys.next()).await
            });
            assert_eq!(got.ok().flatten(), Some(Input::Signal(sig)));
        }
    }

    /// Keys typed before a question is shown (the workspace's trust) answer
    /// nothing, those after a signal among them too: back from Ctrl-Z
    /// (`fg`), keys typed ahead in the channel behind the SIGCONT were left
    /// there, and a `y` and Enter answered the question drawn after.
    #[test]
    fn keys_typed_before_a_question_are_dropped_past_a_signal_too() {
        use crossterm::event::{KeyCode, KeyModifiers};
        let key = |c| KeyEvent::new(c, KeyModifiers::NONE);
        let (mut keys, s) = Keys::scripted();
        s.send(Event::Key(key(KeyCode::Char('n'))));
        s.signal(libc::SIGCONT);
        s.send(Event::Key(key(KeyCode::Char('y'))));
        s.send(Event::Key(key(KeyCode::Enter)));
        keys.discard_typed();
        // the signal is kept for the next reading, no key typed before it
        assert_eq!(keys.ready_input(), Some(Input::Signal(Sig::Continue)));
        assert_eq!(keys.ready_input(), None);
        // and keys kept behind a signal (read past while one was looked
        // for) go too
        keys.kept.push_back(Input::Signal(Sig::Interrupt));
        keys.kept
            .push_back(Input::Term(TermEvent::Key(key(KeyCode::Char('y')))));
        keys.discard_typed();
        assert_eq!(keys.ready_input(), Some(Input::Signal(Sig::Interrupt)));
        assert_eq!(keys.ready_input(), None);
        // what is typed after is read
        s.send(Event::Key(key(KeyCode::Char('y'))));
        assert_eq!(
            keys.ready_input(),
            Some(Input::Term(TermEvent::Key(key(KeyCode::Char('y')))))
        );
    }

    /// What comes in the same burst after a paste's end is pasted text:
    /// an Enter a line break, not a send; a key no text holds is dropped,
    /// never acted on; a resize is handed on.
    #[test]
    fn keys_in_a_paste_s_burst_are_its_text_never_acted_on() {
        use crossterm::event::{KeyCode, KeyModifiers};
        let key = |code, m| Event::Key(KeyEvent::new(code, m));
        let none = KeyModifiers::NONE;
        assert_eq!(
            in_paste(&key(KeyCode::Char('y'), none)),
            InPaste::Text("y".into())
        );
        assert_eq!(
            in_paste(&key(KeyCode::Char('Y'), KeyModifiers::SHIFT)),
            InPaste::Text("Y".into())
        );
        assert_eq!(
            in_paste(&key(KeyCode::Enter, none)),
            InPaste::Text("\n".into())
        );
        assert_eq!(
            in_paste(&key(KeyCode::Tab, none)),
            InPaste::Text("\t".into())
        );
        assert_eq!(
            in_paste(&Event::Paste("more".into())),
            InPaste::Text("more".into())
        );
        for dropped in [
            key(KeyCode::Up, none),
            key(KeyCode::Esc, none),
            key(KeyCode::Char('c'), KeyModifiers::CONTROL),
            key(KeyCode::Char('x'), KeyModifiers::ALT),
            key(KeyCode::BackTab, KeyModifiers::SHIFT),
        ] {
            assert_eq!(in_paste(&dropped), InPaste::Dropped, "{dropped:?}");
        }
        assert_eq!(in_paste(&Event::Resize(80, 24)), InPaste::Kept);
    }

    /// A terminal that never stops sending: a paste, then a key after
    /// another without end (a program writing to the terminal); after
    /// `fail_after` reads its reading fails (a hang in the old loop ends
    /// as an error taken into the paste's burst, not as a test stuck).
    struct Endless {
        reads: usize,
        fail_after: usize,
        /// Set after this many reads (the reader asked to stop).
        stop_after: Option<(usize, Arc<AtomicBool>)>,
        /// At this read, a wait until the test lets it go (its sender
        /// dropped), the input going on after: what the reader holds
        /// meanwhile stays bounded.
        pause_at: Option<(usize, std::sync::mpsc::Receiver<()>)>,
    }

    impl Source for Endless {
        fn poll(&mut self, _: Duration) -> io::Result<bool> {
            Ok(true)
        }

        fn read(&mut self) -> io::Result<Event> {
            use crossterm::event::{KeyCode, KeyModifiers};
            self.reads += 1;
            if let Some((n, stop)) = &self.stop_after {
                if self.reads >= *n {
                    stop.store(true, Ordering::SeqCst);
                }
            }
            if let Some((n, gate)) = &self.pause_at {
                if self.reads == *n {
                    let _ = gate.recv();
                }
            }
            if self.reads > self.fail_after {
                return Err(io::Error::other("the end of a test's terminal"));
            }
            Ok(match self.reads {
                1 => Event::Paste("pasted".into()),
                _ => Event::Key(KeyEvent::new(KeyCode::Char('a'), KeyModifiers::NONE)),
            })
        }
    }

    /// Input going on without end after a paste's end is held at most
    /// [`PASTE_CHUNK`] bytes, and handed on when the reader is asked to
    /// stop: the old loop read on as long as input was ready, never
    /// looking at the stop flag.
    #[test]
    fn a_paste_s_burst_is_bounded_and_ends_when_the_reader_is_stopped() {
        let mut src = Endless {
            reads: 1,
            fail_after: 4 * PASTE_CHUNK,
            stop_after: None,
            pause_at: None,
        };
        let mut after = Vec::new();
        let (text, more) = rest_of_paste(&mut src, "pasted".into(), &mut after, &|| false);
        assert!(more);
        assert!(after.is_empty(), "{after:?}");
        assert_eq!(text.len(), PASTE_CHUNK);
        assert!(text.starts_with("pastedaaa"));

        let stop = Arc::new(AtomicBool::new(false));
        let mut src = Endless {
            reads: 1,
            fail_after: 4 * PASTE_CHUNK,
            stop_after: Some((11, stop.clone())),
            pause_at: None,
        };
        let (text, more) = rest_of_paste(&mut src, "pasted".into(), &mut after, &|| {
            stop.load(Ordering::SeqCst)
        });
        assert!(more);
        assert!(after.is_empty(), "{after:?}");
        assert_eq!(text, format!("pasted{}", "a".repeat(10)));
    }

    /// The reading thread, with input going on without end after a paste's
    /// end, hands the paste on (in pieces, each a paste: never a key acted
    /// on) while it goes on, and stops when asked.
    #[test]
    fn a_reader_fed_without_end_after_a_paste_hands_it_on_and_stops() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let (mut keys, _s) = Keys::scripted();
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, epoch, stopping) = (keys.tx.clone(), keys.epoch.clone(), stop.clone());
        let (ended_tx, ended) = std::sync::mpsc::channel::<()>();
        let (let_go, gate) = std::sync::mpsc::channel::<()>();
        let reader = std::thread::spawn(move || {
            let _ended = ended_tx;
            let mut src = Endless {
                reads: 0,
                fail_after: usize::MAX,
                stop_after: None,
                pause_at: Some((5 * PASTE_CHUNK, gate)),
            };
            read_loop(&mut src, &tx, &stopping, &epoch);
        });
        for piece in 0..3 {
            let got = rt
                .block_on(async {
                    tokio::time::timeout(Duration::from_secs(60), keys.next()).await
                })
                .expect("a piece of the paste handed on while the input goes on");
            let Some(Input::Term(TermEvent::Paste(text))) = got else {
                panic!("piece {piece}: {got:?}");
            };
            assert_eq!(text.len(), PASTE_CHUNK, "piece {piece}");
            assert!(text.bytes().skip(6).all(|b| b == b'a'));
        }
        stop.store(true, Ordering::SeqCst);
        // the input goes on, without end
        drop(let_go);
        let end = ended.recv_timeout(Duration::from_secs(60));
        assert!(
            matches!(end, Err(std::sync::mpsc::RecvTimeoutError::Disconnected)),
            "the reader stops when asked: {end:?}"
        );
        reader.join().unwrap();
    }

    /// A test's terminal, each step in the test's hands: the events it
    /// sends, and each read held until the test lets it go (a key read and
    /// not handed on yet, as by a thread descheduled at a high load).
    struct Gated {
        events: std::sync::mpsc::Receiver<Event>,
        pending: VecDeque<Event>,
        /// Each poll's wait, as it begins.
        polls: std::sync::mpsc::Sender<Duration>,
        /// Each read, as it is made (then held until `go`).
        reads: std::sync::mpsc::Sender<Event>,
        go: std::sync::mpsc::Receiver<()>,
    }

    impl Source for Gated {
        fn poll(&mut self, within: Duration) -> io::Result<bool> {
            let _ = self.polls.send(within);
            if !self.pending.is_empty() {
                return Ok(true);
            }
            match self.events.recv_timeout(within) {
                Ok(e) => {
                    self.pending.push_back(e);
                    Ok(true)
                }
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Ok(false),
                Err(_) => Err(io::Error::other("the end of a test's terminal")),
            }
        }

        fn read(&mut self) -> io::Result<Event> {
            let e = self
                .pending
                .pop_front()
                .ok_or_else(|| io::Error::other("none"))?;
            let _ = self.reads.send(e.clone());
            self.go
                .recv()
                .map_err(|_| io::Error::other("the test ended"))?;
            Ok(e)
        }
    }

    /// A key the reading thread read before a clearing (the trust
    /// question's) and handed on after it is dropped, however late it
    /// comes: the old clearing waited 500 ms for the thread, then started
    /// a second one, and the first one's key, handed on after, answered
    /// the question.
    #[test]
    fn a_key_read_before_a_clearing_and_handed_on_after_it_answers_nothing() {
        use crossterm::event::{KeyCode, KeyModifiers};
        let key = |c| Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let (mut keys, _s) = Keys::scripted();
        let (feed, events) = std::sync::mpsc::channel();
        let (polls_tx, polls) = std::sync::mpsc::channel();
        let (reads_tx, reads) = std::sync::mpsc::channel();
        let (go, go_rx) = std::sync::mpsc::channel();
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, epoch, stopping) = (keys.tx.clone(), keys.epoch.clone(), stop.clone());
        let reader = std::thread::spawn(move || {
            let mut src = Gated {
                events,
                pending: VecDeque::new(),
                polls: polls_tx,
                reads: reads_tx,
                go: go_rx,
            };
            read_loop(&mut src, &tx, &stopping, &epoch);
        });
        let deadline = Duration::from_secs(60);
        feed.send(key('y')).unwrap();
        assert_eq!(reads.recv_timeout(deadline).unwrap(), key('y'));
        // the reader holds the `y`; the question's clearing comes now
        keys.discard_typed();
        while polls.try_recv().is_ok() {}
        go.send(()).unwrap();
        // the `y` is handed on, and the reader waits for the next key in
        // the new epoch (a wait of POLL begun after the `y`)
        while polls.recv_timeout(deadline).unwrap() != POLL {}
        feed.send(key('n')).unwrap();
        assert_eq!(reads.recv_timeout(deadline).unwrap(), key('n'));
        go.send(()).unwrap();
        let got = rt.block_on(async { tokio::time::timeout(deadline, keys.next()).await });
        assert_eq!(
            got.ok().flatten(),
            Some(Input::Term(TermEvent::Key(KeyEvent::new(
                KeyCode::Char('n'),
                KeyModifiers::NONE
            ))))
        );
        stop.store(true, Ordering::SeqCst);
        drop(feed);
        drop(go);
        reader.join().unwrap();
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
