//! Where the work's events come from: the one place that waits for the
//! session's events (the CLI's messages and requests, in the order it
//! wrote them: [`Client::next_raw_event`]), for signals and for the settle
//! deadline, and that runs the interrupt request beside them. `ask` and the
//! chat both read their events here; the chat adds its keys and its
//! signals, from its one reader (`chat/keys.rs`), as its own input.

use claudio::{Client, Event, RawMessage, Request};
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::Poll;
use std::time::{Duration, Instant};
use tokio::signal::unix::{signal, SignalKind};

/// How long the interrupt request may take before it is given up (the
/// CLI ends the turn with a result when it takes it).
const INTERRUPT_WAIT: Duration = Duration::from_secs(10);

/// The most events a front end reads and holds while someone is asked
/// (`ask`'s question, the chat's dialog); past it, or past [`HELD_BYTES`],
/// it reads nothing more from the CLI until the answer ([`Wait::hold`]):
/// the CLI waits, as it does on the library's queue.
pub const HELD_MAX: usize = 1024;

/// The most bytes of the CLI's lines a front end holds while someone is
/// asked (the line that passes it is held whole), as the library's own
/// queue is bounded: what comes while a dialog is open is mostly a
/// sub-agent's progress, small lines, but a line may be 256 MiB (an
/// image, a file read), and 1,024 of them were held.
pub const HELD_BYTES: usize = 8 * 1024 * 1024;

/// The bytes `h` holds: a message's line, as the CLI wrote it.
pub fn held_bytes<X>(h: &Happened<X>) -> usize {
    match h {
        Happened::Message(m) => m.raw.len(),
        _ => 0,
    }
}

/// A signal, as an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// SIGINT: Ctrl-C.
    Interrupt,
    /// SIGTERM: asked to stop.
    Terminate,
    /// SIGHUP: the terminal closed.
    Hangup,
}

impl Signal {
    /// The signal's number (an exit by it is 128 + this).
    pub fn number(self) -> i32 {
        match self {
            Signal::Interrupt => libc::SIGINT,
            Signal::Terminate => libc::SIGTERM,
            Signal::Hangup => libc::SIGHUP,
        }
    }
}

/// The signals a front end takes, as one stream of [`Signal`]s.
pub struct Signals {
    streams: Vec<(Signal, tokio::signal::unix::Signal)>,
}

impl Signals {
    /// Take these signals from now on (inside the runtime).
    pub fn new(which: &[Signal]) -> io::Result<Signals> {
        let streams = which
            .iter()
            .map(|&s| Ok((s, signal(SignalKind::from_raw(s.number()))?)))
            .collect::<io::Result<_>>()?;
        Ok(Signals { streams })
    }

    /// No signals: the front end takes them itself (the chat: from its one
    /// reader of keys and signals, `chat/keys.rs`).
    pub fn none() -> Signals {
        Signals {
            streams: Vec::new(),
        }
    }

    /// The next signal; with `ctrl_c` false, SIGINT waits (it is seen at
    /// the next call that takes it).
    pub async fn recv(&mut self, ctrl_c: bool) -> Signal {
        std::future::poll_fn(|cx| {
            for (s, stream) in &mut self.streams {
                if *s == Signal::Interrupt && !ctrl_c {
                    continue;
                }
                if let Poll::Ready(Some(())) = stream.poll_recv(cx) {
                    return Poll::Ready(*s);
                }
            }
            Poll::Pending
        })
        .await
    }
}

/// What happened while [`Source::next`] waited (what a message itself
/// means is `reading`'s `Seen`).
#[derive(Debug)]
pub enum Happened<X> {
    /// A message from the CLI.
    Message(Box<RawMessage>),
    /// A request from the CLI (a tool to allow, a question, a plan), with
    /// the handle to answer it.
    Request(Box<Request>),
    /// The CLI withdrew the request with this id.
    Withdrawn(String),
    /// A prompt was sent: what follows is its turn (for the reading: the
    /// results owed, in the stream's order).
    TurnStarted,
    /// The turn that took a prompt ended (after its `result`; one for each
    /// prompt it took): for the reading's results owed.
    TurnEnded,
    /// The CLI sent a line longer than the limit; it was skipped.
    LongLine(usize),
    /// The CLI's output failed.
    Failed(claudio::Error),
    /// The CLI's output ended.
    Closed,
    Signal(Signal),
    /// The deadline passed.
    Due,
    /// The front end's ticker (its spinners move).
    Tick,
    /// The front end's own input (the chat's keys, `ask`'s answer).
    Front(X),
}

/// What to wait for besides the CLI's messages.
#[derive(Debug, Clone, Copy, Default)]
pub struct Wait {
    /// Someone is being asked something: take no ticks and no Ctrl-C
    /// (the CLI is still read: its messages are held, a withdrawal is
    /// seen).
    pub asking: bool,
    /// Read nothing from the CLI for now (what was read and held while
    /// someone is asked is at its bound: the CLI waits).
    pub hold: bool,
    /// The work is over at this time unless something happens first.
    pub due: Option<Instant>,
}

/// The events of one stretch of work with `client`.
pub struct Source<'c> {
    client: &'c Client,
    signals: Signals,
    ticker: Option<tokio::time::Interval>,
    /// The interrupt request, running beside the reading, so a second
    /// Ctrl-C is seen at once even if the CLI is slow to answer the first.
    interrupting: Option<Pin<Box<dyn Future<Output = ()> + Send + 'c>>>,
}

/// The event as what happened; `None` for a turn's end (the front ends
/// read it from its `result`).
fn happened<X>(e: Option<claudio::Result<(Event, Vec<u8>)>>) -> Option<Happened<X>> {
    Some(match e {
        None => Happened::Closed,
        Some(Err(claudio::Error::LineTooLong { limit })) => Happened::LongLine(limit),
        Some(Err(e)) => Happened::Failed(e),
        Some(Ok((Event::Message(message), raw))) => {
            Happened::Message(Box::new(RawMessage { message, raw }))
        }
        Some(Ok((Event::Request(r), _))) => Happened::Request(r),
        Some(Ok((Event::Withdrawn { request_id }, _))) => Happened::Withdrawn(request_id),
        Some(Ok((Event::TurnStarted, _))) => Happened::TurnStarted,
        Some(Ok((Event::TurnEnded, _))) => Happened::TurnEnded,
        Some(Ok(_)) => return None,
    })
}

impl<'c> Source<'c> {
    pub fn new(client: &'c Client, signals: Signals) -> Source<'c> {
        Source {
            client,
            signals,
            ticker: None,
            interrupting: None,
        }
    }

    /// A [`Happened::Tick`] every `period`.
    pub fn ticking(mut self, period: Duration) -> Source<'c> {
        self.ticker = Some(tokio::time::interval(period));
        self
    }

    /// Interrupt the turn, in the background and bounded.
    pub fn interrupt(&mut self) {
        let client = self.client;
        self.interrupting = Some(Box::pin(async move {
            let _ = tokio::time::timeout(INTERRUPT_WAIT, client.interrupt()).await;
        }));
    }

    /// An event already received, without waiting.
    pub fn ready<X>(&self) -> Option<Happened<X>> {
        use futures_util::FutureExt;
        loop {
            let e = self.client.next_raw_event().now_or_never()?;
            if let Some(h) = happened(e) {
                return Some(h);
            }
        }
    }

    /// The next event: a message, a signal, the deadline, a tick, or the
    /// front end's own input (`front`; `std::future::pending()` for none).
    pub async fn next<X>(&mut self, front: impl Future<Output = X>, wait: Wait) -> Happened<X> {
        tokio::pin!(front);
        let Source {
            client,
            signals,
            ticker,
            interrupting,
        } = self;
        let client = *client;
        let due = wait.due.map(tokio::time::Instant::from_std);
        loop {
            let running = async {
                match interrupting.as_mut() {
                    Some(f) => f.await,
                    None => std::future::pending().await,
                }
            };
            let tick = async {
                match ticker.as_mut() {
                    Some(t) => t.tick().await,
                    None => std::future::pending().await,
                }
            };
            // `Err`: the interrupt request is done (answered or given up);
            // `Ok(None)`: a turn's boundary, passed over
            let seen = tokio::select! {
                e = client.next_raw_event(), if !wait.hold => Ok(happened(e)),
                s = signals.recv(!wait.asking) => Ok(Some(Happened::Signal(s))),
                _ = async { tokio::time::sleep_until(due.unwrap_or_else(tokio::time::Instant::now)).await },
                    if due.is_some() => Ok(Some(Happened::Due)),
                x = &mut front => Ok(Some(Happened::Front(x))),
                _ = tick, if !wait.asking => Ok(Some(Happened::Tick)),
                _ = running => Err(()),
            };
            match seen {
                Ok(Some(seen)) => return seen,
                Ok(None) => {}
                Err(()) => *interrupting = None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A turn's start and end reach the front end (its reading counts the
    /// results owed from them: a prompt taken into a running turn ends
    /// with it, after the one `result`).
    #[test]
    fn a_turn_s_start_and_end_are_handed_on() {
        let start = happened::<()>(Some(Ok((Event::TurnStarted, Vec::new()))));
        assert!(matches!(start, Some(Happened::TurnStarted)), "{start:?}");
        let end = happened::<()>(Some(Ok((Event::TurnEnded, Vec::new()))));
        assert!(matches!(end, Some(Happened::TurnEnded)), "{end:?}");
        assert!(matches!(happened::<()>(None), Some(Happened::Closed)));
    }
}
