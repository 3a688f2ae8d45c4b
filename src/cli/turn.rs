//! A turn's meaning, shared by the front ends (`ask` and the chat): the
//! one wait for its events (`events`), its messages read once (`reading`),
//! tool calls, agents and the task list in words (`summary`, `tasks`,
//! `todos`), Ctrl-C (`interrupt`), and here [`TurnWatch`]: whether the work
//! is over, a pure tracker.
//!
//! A turn is a prompt sent to the CLI and the answer to it: the `result`
//! for the prompt, and one more for each interjection sent while it runs.
//! Background agents can outlive the answer; each then reports in a turn
//! the CLI starts by itself (a `system`/`init`, then a `result` with an
//! `origin`). `ask` and the chat (its turns, and its wait for agents between
//! prompts) feed a [`TurnWatch`] what they see and ask it whether the work is
//! over: whether a turn is open, how many results are owed, how long to
//! wait for a report and what Ctrl-C does are decided here and nowhere else.
//!
//! What the messages mean (which calls run, the agents, the task list, the
//! results owed in the stream's order) is the library's
//! [`claudio::progress::Progress`], held by the `reading`. This is a front
//! end's policy over it: when a person waiting is done waiting. It counts
//! the prompts as the loop sends them (an interjection sent while the
//! first result is already on its way keeps the turn open for its own),
//! waits out the settle time, and takes Ctrl-C.
//!
//! The tracker does no I/O and reads no clock: each event carries the time.
//! The events themselves (the CLI's messages, signals, the settle deadline)
//! come from [`events::Source`], the one place that waits for them.

use super::turn::interrupt::{CtrlC, Press};
// a report's result (a turn the CLI started by itself) owes nothing: the
// library's reading of it
use claudio::progress::is_automatic;
use claudio::{Message, SystemMessage};
use std::time::{Duration, Instant};

pub mod events;
pub mod interrupt;
pub mod reading;
pub mod summary;
pub mod tasks;
pub mod todos;

/// Once the answer is in and no background agent is left: how long to wait
/// for a turn the CLI starts by itself to report one (after an agent ended,
/// or after a report, since agents that end together report one after the
/// other). The CLI starts it within milliseconds of the agent's end on an
/// idle machine. One second leaves room for a loaded one (the tests run the
/// CLI on two shared cores) so that `ask` does not cut a report off, and
/// costs the chat little: while it waits, the prompt line is already live
/// (Enter sends at once). `ask` waits this long only when background agents
/// outlived its answer; an answer with none ends at its `result`.
pub const SETTLE: Duration = Duration::from_secs(1);

/// What follows the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum After {
    /// The work is over with the answer (the chat: agents left working are
    /// waited for at the prompt, by a [`TurnWatch::agents`] of their own).
    Answer,
    /// Background agents that outlived the answer are waited for, and
    /// their reports (`ask`: the answer ends with the report).
    Agents,
}

/// A watch over one turn, or over the wait for background agents after
/// one: whether the work is over (the library's `claudio::Turn` is another
/// thing, a turn's messages collected).
#[derive(Debug)]
pub struct TurnWatch {
    /// Results still owed: one for the prompt, one per interjection.
    results_due: usize,
    after: After,
    /// The answer is in and agents outlived it: waiting for them and for
    /// their reports.
    waiting: bool,
    /// A turn the CLI started by itself (a report) is open.
    report_open: bool,
    /// When the agents were seen done and no report open: the work is over
    /// at this time unless a report starts.
    settle: Option<Instant>,
    ctrl_c: CtrlC,
    interrupted: bool,
    over: bool,
}

fn is_init(m: &Message) -> bool {
    matches!(m, Message::System(s) if matches!(&**s, SystemMessage::Init(_)))
}

impl TurnWatch {
    /// A prompt was sent: its result is due.
    pub fn prompt(after: After) -> TurnWatch {
        TurnWatch {
            results_due: 1,
            after,
            waiting: false,
            report_open: false,
            settle: None,
            ctrl_c: CtrlC::default(),
            interrupted: false,
            over: false,
        }
    }

    /// No prompt: background agents are at work, and their reports are
    /// waited for.
    pub fn agents() -> TurnWatch {
        TurnWatch {
            results_due: 0,
            after: After::Agents,
            waiting: true,
            ..TurnWatch::prompt(After::Agents)
        }
    }

    /// An interjection went out: one more result is owed (while the turn
    /// is still open; between turns it starts a turn of its own).
    pub fn sent_now(&mut self) {
        if self.results_due > 0 {
            self.results_due += 1;
        }
    }

    /// A message from the CLI, with `agents` background agents at work once
    /// it was read; true when the work is over.
    pub fn message(&mut self, m: &Message, agents: usize, now: Instant) -> bool {
        if self.over {
            return true;
        }
        if is_init(m) && self.results_due == 0 {
            self.report_open = true;
        }
        if m.is_result() {
            if self.results_due > 0 && !is_automatic(m) {
                self.results_due -= 1;
            } else {
                self.report_open = false;
            }
            if self.interrupted {
                // interrupted: the first result ends the wait, agents or not
                self.over = true;
                return true;
            }
        }
        self.check(agents, now)
    }

    /// Time passed; true when the work is over (the settle time ran out).
    pub fn tick(&mut self, agents: usize, now: Instant) -> bool {
        self.check(agents, now)
    }

    /// Someone is asked something: no settling meanwhile (it starts again
    /// at the next event).
    pub fn hold(&mut self) {
        self.settle = None;
    }

    /// Ctrl-C at `now`: interrupt the turn, or (a second one soon) quit.
    pub fn ctrl_c(&mut self, now: Instant) -> Press {
        let press = self.ctrl_c.press(now);
        self.interrupted = true;
        press
    }

    /// Esc: interrupt the turn (it never quits); false when it was
    /// interrupted already (nothing more to do).
    pub fn esc(&mut self) -> bool {
        !std::mem::replace(&mut self.interrupted, true)
    }

    /// Whether Ctrl-C (or Esc) was pressed.
    pub fn interrupted(&self) -> bool {
        self.interrupted
    }

    /// Whether the answer is in and background agents are waited for.
    pub fn waiting_for_agents(&self) -> bool {
        self.waiting
    }

    /// When the work is over if nothing happens first.
    pub fn deadline(&self) -> Option<Instant> {
        self.settle
    }

    /// The one settle rule: with the answer in, the work is over at once
    /// when nothing outlived it, else once the agents are done, no report
    /// is open, and none started within [`SETTLE`].
    fn check(&mut self, agents: usize, now: Instant) -> bool {
        if self.over {
            return true;
        }
        if self.results_due > 0 {
            return false;
        }
        if !self.waiting {
            if self.after == After::Answer || agents == 0 {
                self.over = true;
                return true;
            }
            self.waiting = true;
        }
        if agents > 0 || self.report_open {
            self.settle = None;
            return false;
        }
        let at = *self.settle.get_or_insert(now + SETTLE);
        self.over = now >= at;
        self.over
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn msg(v: serde_json::Value) -> Message {
        Message::parse(v.to_string().as_bytes()).unwrap()
    }

    fn result() -> Message {
        msg(json!({"type":"result","subtype":"success","is_error":false}))
    }

    fn report() -> Message {
        msg(
            json!({"type":"result","subtype":"success","is_error":false,"origin":{"kind":"task-notification"}}),
        )
    }

    fn init() -> Message {
        msg(json!({"type":"system","subtype":"init","session_id":"s"}))
    }

    fn text() -> Message {
        msg(
            json!({"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"hi"}]}}),
        )
    }

    #[test]
    fn a_turn_ends_with_its_result_and_one_per_interjection() {
        let t0 = Instant::now();
        let mut t = TurnWatch::prompt(After::Answer);
        assert!(!t.message(&init(), 0, t0));
        t.sent_now();
        assert!(!t.message(&result(), 0, t0), "one more is owed");
        assert!(!t.message(&report(), 0, t0), "a report is not the person's");
        assert!(t.message(&result(), 3, t0), "agents are not waited for");
    }

    #[test]
    fn with_no_agent_left_the_answer_is_complete_at_its_result() {
        let t0 = Instant::now();
        let mut t = TurnWatch::prompt(After::Agents);
        assert!(t.message(&result(), 0, t0));
        assert_eq!(t.deadline(), None);
    }

    #[test]
    fn agents_that_outlive_the_answer_are_waited_for_and_their_report() {
        let t0 = Instant::now();
        let at = |ms| t0 + Duration::from_millis(ms);
        let mut t = TurnWatch::prompt(After::Agents);
        assert!(!t.message(&result(), 1, at(0)));
        assert!(t.waiting_for_agents());
        assert!(!t.tick(1, at(60_000)), "however long they take");
        // the agent is done: a moment for its report's turn to start
        assert!(!t.message(&text(), 0, at(61_000)));
        assert_eq!(t.deadline(), Some(at(61_000) + SETTLE));
        assert!(!t.message(&init(), 0, at(61_010)));
        assert_eq!(t.deadline(), None, "a report is open: no settling");
        assert!(!t.tick(0, at(70_000)));
        assert!(!t.message(&report(), 0, at(70_100)));
        // another report may follow; none did
        assert!(!t.tick(0, at(70_100) + SETTLE - Duration::from_millis(1)));
        assert!(t.tick(0, at(70_100) + SETTLE));
    }

    #[test]
    fn without_a_report_the_wait_ends_after_the_settle_time() {
        let t0 = Instant::now();
        let mut t = TurnWatch::agents();
        assert!(!t.tick(0, t0));
        assert!(!t.tick(0, t0 + SETTLE - Duration::from_millis(1)));
        assert!(t.tick(0, t0 + SETTLE));
        // asked something meanwhile: the time starts again
        let mut t = TurnWatch::agents();
        t.tick(0, t0);
        t.hold();
        assert!(!t.tick(0, t0 + SETTLE));
        assert!(t.tick(0, t0 + SETTLE * 2));
    }

    #[test]
    fn after_ctrl_c_the_next_result_ends_it_agents_or_not() {
        let t0 = Instant::now();
        let mut t = TurnWatch::prompt(After::Agents);
        assert_eq!(t.ctrl_c(t0), Press::Interrupt);
        assert!(t.interrupted());
        assert!(t.message(&result(), 2, t0));
        let mut t = TurnWatch::prompt(After::Agents);
        t.ctrl_c(t0);
        assert_eq!(t.ctrl_c(t0 + Duration::from_millis(500)), Press::Quit);
    }
}
