//! What the CLI said, on its way to the chat's machine: each thing
//! ([`Said`]) and, while a dialog is open, the things held in order until
//! it is answered ([`Inbox`]).

use super::machine::Event;
use crate::cli::turn::events::{HELD_BYTES, HELD_MAX};
use std::collections::VecDeque;

/// What the CLI said, for the machine: an event (a message, a line too
/// long, its end or its failure), or a request to ask, whose dialog is
/// made when its turn comes.
#[derive(Debug)]
pub(super) enum Said<R> {
    Event(Event<R>),
    Asks(R),
}

/// What the CLI said while a dialog was open (its messages, its other
/// requests, its end), held in order: taken in once the dialog is
/// answered, so the CLI is read all the while (a withdrawal is seen) and
/// the dialog is not disturbed. Bounded ([`HELD_MAX`] things,
/// [`HELD_BYTES`] of the CLI's lines): when full, the loop reads no more
/// from the CLI until the answer.
#[derive(Debug)]
pub(super) struct Inbox<R> {
    held: VecDeque<Said<R>>,
    /// The bytes of each line held, in the same order (0: not known,
    /// held over from the work before), and their sum.
    sizes: VecDeque<usize>,
    bytes: usize,
    /// A dialog was answered "no, and stop": the requests behind it are
    /// the turn's, which the CLI withdraws as it stops. What is held (and
    /// a request that comes) waits for the turn's end, so they are seen
    /// withdrawn, never asked: asked, each was drawn, offered to the deck
    /// and notified, then withdrawn a moment later.
    stopping: bool,
}

impl<R> Inbox<R> {
    /// What the work before held over: taken in first.
    pub(super) fn new(held: VecDeque<Said<R>>) -> Inbox<R> {
        Inbox {
            sizes: held.iter().map(|_| 0).collect(),
            held,
            bytes: 0,
            stopping: false,
        }
    }

    /// The dialog was answered "no, and stop the turn" ([`Inbox::stopping`]).
    pub(super) fn stop_asked(&mut self) {
        self.stopping = true;
    }

    /// The turn's end: its result, or the CLI's end or failure.
    fn ends_turn(said: &Said<R>) -> bool {
        match said {
            Said::Event(Event::Message(m)) => matches!(**m, claudio::Message::Result(_)),
            Said::Event(Event::Closed | Event::Failed(_)) => true,
            _ => false,
        }
    }

    /// [`Inbox::take_sized`] of what came in a line of no known size.
    #[cfg(test)]
    pub(super) fn take(&mut self, said: Said<R>, asking: bool) -> Option<Said<R>> {
        self.take_sized(said, 0, asking)
    }

    /// What the CLI said, in a line of `size` bytes: to take in now, or
    /// held while a dialog is open (`asking`) or something held before it
    /// waits. Its end or failure while a dialog is open withdraws the
    /// question: held (the work ends with it once the dialog closed), and
    /// [`Event::Withdrawn`] for the dialog now.
    pub(super) fn take_sized(
        &mut self,
        said: Said<R>,
        size: usize,
        asking: bool,
    ) -> Option<Said<R>> {
        let waits = self.stopping && matches!(said, Said::Asks(_));
        if !asking && self.held.is_empty() && !waits {
            if Self::ends_turn(&said) {
                self.stopping = false;
            }
            return Some(said);
        }
        let gone = matches!(said, Said::Event(Event::Closed | Event::Failed(_)));
        self.held.push_back(said);
        self.sizes.push_back(size);
        self.bytes += size;
        (gone && asking).then_some(Said::Event(Event::Withdrawn))
    }

    /// The next thing held, once no dialog is open: the loop takes it in
    /// before it reads anything new.
    pub(super) fn next(&mut self, asking: bool) -> Option<Said<R>> {
        if asking {
            return None;
        }
        if self.stopping {
            // until the turn's end is held (or as much as may be)
            if !self.full() && !self.held.iter().any(Self::ends_turn) {
                return None;
            }
            self.stopping = false;
        }
        self.bytes -= self.sizes.pop_front().unwrap_or(0);
        self.held.pop_front()
    }

    /// Whether as much is held as may be.
    pub(super) fn full(&self) -> bool {
        self.held.len() >= HELD_MAX || self.bytes >= HELD_BYTES
    }

    /// What is held and not taken in: at the work's end, for the next.
    pub(super) fn held_over(&mut self) -> VecDeque<Said<R>> {
        self.sizes.clear();
        self.bytes = 0;
        std::mem::take(&mut self.held)
    }
}
