//! The chat at work, as a state machine: events in, effects out.
//!
//! While Claude works, two things can be going on: a turn the person
//! started (it ends with its `result`), or, between prompts, background
//! agents still at work (their progress and their report's turn show live,
//! under the prompt line). Both are one machine, [`Machine`], fed the events
//! the terminal and the CLI produce ([`Event`]: keys, messages, requests,
//! ticks, Ctrl-C, SIGCONT) and answering with what to do ([`Effect`]: write
//! to the screen, send an interjection, interrupt, ask the person, end).
//!
//! A third, short stretch: Shift-Tab's switch of the permission mode, while
//! the CLI confirms it (its requests meanwhile are asked as in a turn).
//!
//! Whether the work is over (the results owed, the reports of background
//! agents, the settle time, the double Ctrl-C) is the turn tracker's
//! ([`crate::cli::turn::TurnWatch`]), which `ask` uses too. The machine does no
//! I/O and reads no clock: every event carries the time. So each behaviour
//! of the chat at work is tested here without a terminal; the loop in
//! `work` only carries events in and effects out.
//!
//! Each message is taken into the [`Session`] once, and the machine decides
//! from it; what the screen is to show ([`Draw`]) is drawn once the step
//! has decided, in order, by the renderer.
//!
//! The CLI's requests come among its messages. One dialog is open at a
//! time; while it is, the loop holds what the CLI says (its messages, its
//! other requests, its end) and steps it in, in order, once it is
//! answered (`inbox.rs`'s `Inbox`): the CLI is read all the while, and the
//! dialog is not disturbed. A request's dialog is made by the loop when
//! its turn comes, and the machine is told of it once, as it opens
//! ([`Event::Request`]); its answer ([`Effect::Reply`]) lets the loop open
//! the next.

use super::dialog::{Dialog, Done};
use super::keys::TermEvent;
use super::render::{Draw, Renderer, Showing};
use super::state::Session;
use super::typeahead::{Action, TypeAhead};
use crate::cli::common::exit::Exit;
use crate::cli::sanitize::Sanitizer;
use crate::cli::turn::interrupt::Press;
#[cfg(test)]
use crate::cli::turn::SETTLE;
use crate::cli::turn::{After, TurnWatch};
use claudio::{Message, PermissionMode, SystemMessage};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::time::{Duration, Instant};

/// What a dialog says when the deck answered its request first.
pub(super) const ANSWERED_IN_THE_DECK: &str = "answered in the deck";

/// How long Shift-Tab waits for the CLI to confirm the new mode with a
/// `system`/`status` message (it says yes to the request first).
pub(super) const MODE_WAIT: Duration = Duration::from_secs(1);

/// What happens to the chat at work.
#[derive(Debug)]
pub(super) enum Event<R> {
    /// A key, a paste or a resize.
    Key(TermEvent),
    /// A message from the CLI.
    Message(Box<Message>),
    /// The CLI sent a line longer than the limit; it was skipped.
    LongLine(usize),
    /// The CLI's output ended: the session is gone.
    Closed,
    /// The CLI's output failed.
    Failed(claudio::Error),
    /// The CLI asks something (a tool to allow, a question, a plan), and
    /// no other dialog is open: `dialog` asks it. The loop made it when
    /// the request's turn came (a proposed edit's diff read against the
    /// file as the edits allowed before it left it). The keys read before
    /// its question is drawn (while it was made) come with it: the
    /// type-ahead's, never its answer.
    Request {
        typed_before: Vec<TermEvent>,
        request: R,
        dialog: Box<Dialog>,
    },
    /// The request being asked was withdrawn by the CLI (or its session
    /// ended).
    Withdrawn,
    /// The request being asked was answered in the deck (its other
    /// holder, `deck/publish.rs`) with `given` (`None`: not known): the
    /// dialog closes, saying so, and the answer means what it means when
    /// given in the dialog (its [`Effect::Reply`] carries it: "no, and
    /// stop" stops the turn).
    AnsweredElsewhere {
        given: Option<claudio::PermissionResult>,
    },
    /// The person's answer ([`Effect::Reply`]) came too late: the deck's,
    /// `given`, reached the CLI first (the two raced on the request's one
    /// slot), so what the dialog's note said is not what happened. Said
    /// under it; when the person's "no, and stop" lost to an answer that
    /// goes on, the loop interrupts the turn.
    Overtaken { given: claudio::PermissionResult },
    /// The terminal is gone (no more keys).
    KeysGone,
    /// Ctrl-D on an empty line (the terminal's end of input): between
    /// prompts it leaves the chat; in a turn it is nothing.
    Eof,
    /// An interjection ([`Effect::SendNow`]) went out.
    SentNow,
    /// Time passed (the spinners move, timers expire).
    Tick,
    /// Ctrl-C (SIGINT).
    CtrlC,
    /// Back from Ctrl-Z (SIGCONT), at this terminal width.
    Continued { width: usize },
}

/// What the chat is to do.
#[derive(Debug, PartialEq)]
pub(super) enum Effect<R> {
    /// Write this to the screen.
    Write(String),
    /// Send this text now, as an interjection (`priority: now`); the loop
    /// answers with [`Event::SentNow`] once it went out.
    SendNow(String),
    /// Interrupt the turn (in the background, bounded).
    Interrupt,
    /// Single keys on a raw terminal (a dialog is open), or back to the
    /// chat's character mode.
    Raw(bool),
    /// Answer the request (the loop may then open the next one).
    Reply(R, claudio::PermissionResult),
    /// Put the keys back in character mode (after Ctrl-Z).
    RestoreKeys,
    /// The work is over.
    End(WorkEnd),
}

/// How the chat's work ended: a turn, Shift-Tab's wait, or the agents at
/// work between prompts (one name for all three: the loop after them acts
/// on each end the same way).
#[derive(Debug)]
pub(super) enum WorkEnd {
    /// The turn ended, or the agents are done (or a prompt was typed: it is
    /// queued in the type-ahead).
    Done,
    /// The CLI is gone; a fresh session is needed.
    SessionLost,
    /// The CLI's output failed: the error, with its type (an OS error's
    /// kind, a broken pipe) kept for the program's exit.
    Failed(claudio::Error),
    /// Leave the program: a second Ctrl-C in a turn, or Ctrl-D on an empty
    /// line while agents work.
    Quit(Exit),
}

/// Ends compare by kind: two failures are alike when their errors are of
/// one kind (never by their text).
impl PartialEq for WorkEnd {
    fn eq(&self, other: &WorkEnd) -> bool {
        match (self, other) {
            (WorkEnd::Done, WorkEnd::Done) | (WorkEnd::SessionLost, WorkEnd::SessionLost) => true,
            (WorkEnd::Failed(a), WorkEnd::Failed(b)) => {
                std::mem::discriminant(a) == std::mem::discriminant(b)
            }
            (WorkEnd::Quit(a), WorkEnd::Quit(b)) => a == b,
            _ => false,
        }
    }
}

/// What the machine is doing.
#[derive(Debug)]
enum Stage {
    /// A turn the person started (it ends with its answer).
    Turn(TurnWatch),
    /// Between prompts, background agents at work, the next prompt typed
    /// on the prompt line under them.
    AtWork {
        turn: TurnWatch,
        /// The prompt line's label.
        prompt: String,
    },
    /// Shift-Tab switched the permission mode: waiting for the CLI to
    /// confirm it, until `until`.
    Mode {
        next: PermissionMode,
        until: Instant,
    },
}

/// The parts of the chat the machine works on.
pub(super) struct Parts<'a> {
    pub renderer: &'a mut Renderer,
    pub session: &'a mut Session,
    pub ahead: &'a mut TypeAhead,
}

/// A request being asked.
#[derive(Debug)]
struct Asking<R> {
    request: R,
    dialog: Box<Dialog>,
}

/// The chat at work: the machine (`work.rs` runs the loop that feeds it).
#[derive(Debug)]
pub(super) struct Machine<R> {
    stage: Stage,
    /// A request being asked: keys go to its dialog (the loop holds what
    /// the CLI says meanwhile).
    asking: Option<Asking<R>>,
    /// The last answer was to a tool call (the deck's answer that
    /// overtakes it ran the tool, when it allowed it).
    replied_to_call: bool,
    /// The call the last answer allowed for the session (`a`, the CLI
    /// suggested no rule), newly remembered: forgotten again when the
    /// deck's answer reached the CLI first (`Overtaken`), as a rule the
    /// CLI suggested is never kept then (it went with the answer).
    granted: Option<Box<claudio::CanUseToolRequest>>,
    ended: bool,
}

type Effects<R> = Vec<Effect<R>>;

/// What one step does, in order: its effects, and what the screen is to
/// show (drawn as the step ends, from the session as the step left it).
/// While nothing waits to be drawn, an effect goes out at once (to
/// `emit`): so does a message's text, drawn as it is read.
struct Out<'m, 'e, R> {
    items: Vec<Item<'m, R>>,
    emit: &'e mut dyn FnMut(Effect<R>),
}

enum Item<'m, R> {
    Effect(Effect<R>),
    Draw(Draw<'m>),
}

impl<'m, 'e, R> Out<'m, 'e, R> {
    fn new(emit: &'e mut dyn FnMut(Effect<R>)) -> Self {
        Out {
            items: Vec::new(),
            emit,
        }
    }

    fn push(&mut self, e: Effect<R>) {
        if self.items.is_empty() {
            (self.emit)(e);
        } else {
            self.items.push(Item::Effect(e));
        }
    }

    fn draw(&mut self, d: Draw<'m>) {
        self.items.push(Item::Draw(d));
    }

    fn write(&mut self, text: String) {
        if !text.is_empty() {
            self.push(Effect::Write(text));
        }
    }

    /// The effects go out, each thing to show drawn as text where it
    /// stands.
    fn drawn(self, p: &mut Parts<'_>, now: Instant) {
        for item in self.items {
            match item {
                Item::Effect(e) => (self.emit)(e),
                Item::Draw(d) => {
                    let text = p.renderer.draw(d, p.session, now);
                    if !text.is_empty() {
                        (self.emit)(Effect::Write(text));
                    }
                }
            }
        }
    }
}

/// The effects `f` gives, in a list.
fn collected<R>(f: impl FnOnce(&mut dyn FnMut(Effect<R>))) -> Effects<R> {
    let mut effects = Vec::new();
    f(&mut |e| effects.push(e));
    effects
}

/// The mode a `system`/`status` message confirms.
fn confirmed_mode(m: &Message) -> Option<&PermissionMode> {
    match m {
        Message::System(s) => match &**s {
            SystemMessage::Status(s) => s.permission_mode.as_ref(),
            _ => None,
        },
        _ => None,
    }
}

impl<R> Machine<R> {
    /// A turn was sent: its prompt's result is due.
    pub(super) fn turn(p: &mut Parts<'_>, now: Instant) -> (Machine<R>, Effects<R>) {
        let work = Machine {
            stage: Stage::Turn(TurnWatch::prompt(After::Answer)),
            asking: None,
            replied_to_call: false,
            granted: None,
            ended: false,
        };
        let effects = collected(|emit| {
            let mut out = Out::new(emit);
            // the turn's status line, from now to its result
            out.draw(Draw::BeginTurn);
            out.draw(Draw::Footer(p.ahead.footer()));
            out.drawn(p, now)
        });
        (work, effects)
    }

    /// Background agents are at work between prompts; `prompt` is the
    /// prompt line's label.
    pub(super) fn at_work(
        p: &mut Parts<'_>,
        prompt: String,
        now: Instant,
    ) -> (Machine<R>, Effects<R>) {
        let mut work = Machine {
            stage: Stage::AtWork {
                turn: TurnWatch::agents(),
                prompt,
            },
            asking: None,
            replied_to_call: false,
            granted: None,
            ended: false,
        };
        let effects = collected(|emit| {
            let mut out = Out::new(emit);
            out.draw(Draw::Footer(work.footer(p)));
            work.check(p, now, &mut out);
            out.drawn(p, now)
        });
        (work, effects)
    }

    /// Shift-Tab asked the CLI for the mode `next`, and it said yes: its
    /// confirmation is awaited (what it sends meanwhile is shown, what it
    /// asks is asked). Without one within [`MODE_WAIT`], the mode is taken
    /// as switched.
    pub(super) fn mode(next: PermissionMode, now: Instant) -> (Machine<R>, Effects<R>) {
        let work = Machine {
            stage: Stage::Mode {
                next,
                until: now + MODE_WAIT,
            },
            asking: None,
            replied_to_call: false,
            granted: None,
            ended: false,
        };
        (work, Vec::new())
    }

    /// Whether the work is over (an [`Effect::End`] was given).
    #[cfg(test)]
    pub(super) fn ended(&self) -> bool {
        self.ended
    }

    /// Whether a request is being asked: keys go to its dialog, and what
    /// the CLI says meanwhile is held by the loop, not stepped in (the
    /// machine ignores it).
    pub(super) fn asking(&self) -> bool {
        self.asking.is_some()
    }

    /// Take in one event at time `now`.
    #[cfg(test)]
    pub(super) fn step(&mut self, p: &mut Parts<'_>, event: Event<R>, now: Instant) -> Effects<R> {
        collected(|emit| self.step_into(p, event, now, emit))
    }

    /// Take in one event at time `now`; `emit` gets the effects in order,
    /// as they are decided (a message's text as it is read: a message of
    /// 300,000 blocks is not held drawn whole).
    pub(super) fn step_into(
        &mut self,
        p: &mut Parts<'_>,
        event: Event<R>,
        now: Instant,
        emit: &mut dyn FnMut(Effect<R>),
    ) {
        if self.ended {
            return;
        }
        if self.asking.is_some() {
            let mut out = Out::new(emit);
            self.step_asking(p, event, now, &mut out);
            if !self.ended {
                self.check(p, now, &mut out);
            }
            return out.drawn(p, now);
        }
        // the messages an event brings are kept until what they said is drawn
        match event {
            Event::Message(m) => {
                let mut out = Out::new(emit);
                self.message(p, &m, now, &mut out);
                self.checked(p, now, out)
            }
            Event::Request {
                typed_before,
                request,
                dialog,
            } => {
                let mut out = Out::new(emit);
                self.typed_before(p, typed_before, &mut out);
                self.request(p, request, dialog, now, &mut out);
                self.checked(p, now, out)
            }
            event => {
                let mut out = Out::new(emit);
                self.other(p, event, now, &mut out);
                self.checked(p, now, out)
            }
        }
    }

    /// The step's end: timers checked, what to show drawn.
    fn checked(&mut self, p: &mut Parts<'_>, now: Instant, mut out: Out<'_, '_, R>) {
        if !self.ended {
            self.check(p, now, &mut out);
        }
        out.drawn(p, now)
    }

    /// Keys typed before a request's question is drawn: the type-ahead's.
    /// They end nothing (the request is asked whatever they were): a
    /// prompt they finish is queued, one to send now is sent in a turn.
    fn typed_before(&mut self, p: &mut Parts<'_>, keys: Vec<TermEvent>, out: &mut Out<'_, '_, R>) {
        if keys.is_empty() {
            return;
        }
        for k in &keys {
            if let TermEvent::Resize(w, _) = k {
                out.draw(Draw::Resize(*w as usize));
            }
            match (p.ahead.input(k), &self.stage) {
                (Some(Action::SendNow(text)), Stage::Turn(_)) => out.push(Effect::SendNow(text)),
                (Some(Action::SendNow(text)), _) => p.ahead.queued.push_front(text),
                _ => {}
            }
        }
        out.draw(Draw::Footer(self.footer(p)));
    }

    /// The CLI asks something: the question is drawn (what it wrote
    /// before it asked was taken in before).
    fn request(
        &mut self,
        p: &mut Parts<'_>,
        request: R,
        mut dialog: Box<Dialog>,
        now: Instant,
        out: &mut Out<'_, '_, R>,
    ) {
        // someone is at work: no settling while it is asked
        if let Stage::AtWork { turn, .. } = &mut self.stage {
            turn.hold();
        }
        out.draw(Draw::Suspend);
        out.push(Effect::Raw(true));
        let step = dialog.start();
        out.write(step.write);
        self.asking = Some(Asking { request, dialog });
        if let Some(done) = step.done {
            self.answered(p, done, now, out);
        }
    }

    /// Any event but a message or a request, while nothing is asked.
    fn other(
        &mut self,
        p: &mut Parts<'_>,
        event: Event<R>,
        now: Instant,
        out: &mut Out<'_, '_, R>,
    ) {
        match event {
            Event::Key(input) => self.key(p, input, out),
            Event::LongLine(limit) => {
                if !matches!(self.stage, Stage::AtWork { .. }) {
                    let text = format!("skipped a message longer than {limit} bytes");
                    out.draw(Draw::Notice(text));
                }
            }
            Event::Closed => match self.stage {
                Stage::AtWork { .. } => self.end_at_work(out),
                Stage::Turn(_) | Stage::Mode { .. } => self.end(WorkEnd::SessionLost, out),
            },
            Event::Failed(e) => {
                if !matches!(self.stage, Stage::AtWork { .. }) {
                    self.end(WorkEnd::Failed(e), out);
                }
            }
            Event::Withdrawn | Event::AnsweredElsewhere { .. } | Event::KeysGone => {}
            Event::Overtaken { given } => {
                // an `a` that lost keeps nothing for the session
                let kept = self.granted.take();
                if let Some(req) = &kept {
                    p.session.state.grants.forget(req);
                }
                let mut note = overtaken(&given, self.replied_to_call);
                if kept.is_some() {
                    note.push_str("; the same call will be asked again");
                }
                out.draw(Draw::Notice(note))
            }
            Event::Eof => self.eof(out),
            Event::SentNow => {
                if let Stage::Turn(turn) = &mut self.stage {
                    turn.sent_now();
                    out.draw(Draw::Notice("sent now, cutting in".into()));
                }
            }
            Event::Tick => out.draw(Draw::Tick),
            Event::CtrlC => self.ctrl_c(p, now, out),
            Event::Continued { width } => {
                out.push(Effect::RestoreKeys);
                out.draw(Draw::Continued(width));
            }
            // taken by `step`
            Event::Message(_) | Event::Request { .. } => {}
        }
    }

    /// While a request is asked: keys go to its dialog; it may be
    /// withdrawn; the spinners wait.
    fn step_asking(
        &mut self,
        p: &mut Parts<'_>,
        event: Event<R>,
        now: Instant,
        out: &mut Out<'_, '_, R>,
    ) {
        let Some(asking) = self.asking.as_mut() else {
            return;
        };
        let step = match event {
            Event::Key(input) => {
                if let TermEvent::Resize(w, _) = &input {
                    // the live region is drawn again once the dialog is
                    // over; the dialog draws itself again at the new width
                    out.draw(Draw::Width(*w as usize));
                }
                asking.dialog.input(input)
            }
            Event::Withdrawn => asking.dialog.withdrawn(),
            Event::AnsweredElsewhere { given } => asking
                .dialog
                .answered_elsewhere(ANSWERED_IN_THE_DECK, given),
            Event::KeysGone => asking.dialog.failed(),
            // Ctrl-C as a signal (`kill -INT`, or a terminal that sends
            // it) is the key's: the dialog answers as its Ctrl-C does
            // (denied, and the turn stops), at once
            Event::CtrlC => asking.dialog.input(TermEvent::Key(KeyEvent::new(
                KeyCode::Char('c'),
                KeyModifiers::CONTROL,
            ))),
            Event::Continued { .. } => {
                asking.dialog.screen_changed();
                out.push(Effect::RestoreKeys);
                out.push(Effect::Raw(true));
                return;
            }
            // ticks wait for the answer; what the CLI says is
            // held by the loop meanwhile (its end comes as `Withdrawn`)
            _ => return,
        };
        out.write(step.write);
        if let Some(done) = step.done {
            self.answered(p, done, now, out);
        }
    }

    /// The person answered: the reply goes out, the live region comes back,
    /// or the turn ends if its result came with the request.
    fn answered(&mut self, p: &mut Parts<'_>, done: Done, now: Instant, out: &mut Out<'_, '_, R>) {
        let Some(asking) = self.asking.take() else {
            return;
        };
        out.push(Effect::Raw(false));
        // the tool runs from now: its time does not count the deciding
        if let Some(call) = asking.dialog.call() {
            p.session.reading.call_runs(call, now);
        }
        self.replied_to_call = asking.dialog.call().is_some();
        self.granted = done
            .grant
            .filter(|req| p.session.state.grants.remember(req));
        out.push(Effect::Reply(asking.request, done.result));
        if done.interrupt {
            // Esc at a question: the CLI ends the turn; an interrupt like
            // any other (the queue comes back to the line)
            if let Stage::Turn(turn) = &mut self.stage {
                turn.esc();
            }
            out.draw(Draw::Interrupting);
            out.draw(Draw::Notice("interrupting the turn".into()));
            if let Some(back) = p.ahead.unqueue() {
                out.draw(Draw::Notice(back));
            }
        }
        out.draw(Draw::Footer(self.footer(p)));
    }

    fn end(&mut self, end: WorkEnd, out: &mut Out<'_, '_, R>) {
        self.ended = true;
        out.push(Effect::End(end));
    }

    /// The agents' work is over (or a prompt was typed): the live region
    /// goes, the prompt comes back.
    fn end_at_work(&mut self, out: &mut Out<'_, '_, R>) {
        out.draw(Draw::Suspend);
        self.end(WorkEnd::Done, out);
    }

    fn end_at_work_quit(&mut self, out: &mut Out<'_, '_, R>) {
        out.draw(Draw::Suspend);
        self.end(WorkEnd::Quit(Exit::Success), out);
    }

    /// The lines under the live region: the type-ahead (and, between
    /// prompts, the prompt line being typed).
    fn footer(&self, p: &Parts<'_>) -> Vec<String> {
        match &self.stage {
            Stage::Turn(_) | Stage::Mode { .. } => p.ahead.footer(),
            Stage::AtWork { prompt, .. } => {
                let mut lines = p.ahead.queued_lines();
                let typed = p.ahead.typed.replace(['\n', '\t'], " ");
                lines.push(format!("{prompt}{}", Sanitizer::clean(&typed)));
                lines
            }
        }
    }

    fn key(&mut self, p: &mut Parts<'_>, input: TermEvent, out: &mut Out<'_, '_, R>) {
        if let TermEvent::Resize(w, _) = &input {
            out.draw(Draw::Resize(*w as usize));
        }
        // Ctrl-T: the task list shown or hidden
        if let TermEvent::Key(k) = &input {
            if k.code == KeyCode::Char('t') && k.modifiers.contains(KeyModifiers::CONTROL) {
                out.draw(Draw::ToggleTodos);
                return;
            }
            // Esc (alone: an arrow or Alt-x arrives as one key of its own)
            // interrupts the turn, as in the claude TUI; never quits
            if k.code == KeyCode::Esc && k.modifiers.is_empty() {
                if let Stage::Turn(turn) = &mut self.stage {
                    if turn.esc() {
                        self.interrupting(p, "interrupting…", out);
                    }
                    return;
                }
            }
        }
        let action = p.ahead.input(&input);
        match &self.stage {
            Stage::Turn(_) => {
                if let Some(Action::SendNow(text)) = action {
                    out.push(Effect::SendNow(text));
                }
            }
            Stage::Mode { .. } => match action {
                // nothing to cut into: it goes first when the prompt is back
                Some(Action::SendNow(text)) => p.ahead.queued.push_front(text),
                // pressed again while the switch is confirmed: one more
                Some(Action::CycleMode) => p.ahead.cycles += 1,
                _ => {}
            },
            Stage::AtWork { .. } => {
                if action == Some(Action::Eof) {
                    self.eof(out);
                    return;
                }
                if let Some(Action::SendNow(text)) = action {
                    p.ahead.queued.push_front(text);
                }
                if !p.ahead.queued.is_empty() {
                    // a prompt typed: the loop sends it
                    self.end_at_work(out);
                    return;
                }
            }
        }
        out.draw(Draw::Footer(self.footer(p)));
    }

    /// Take a message in and show it; true when the work is over with it
    /// (counted, not yet acted on).
    fn count_result<'m>(
        &mut self,
        p: &mut Parts<'_>,
        m: &'m Message,
        now: Instant,
        out: &mut Out<'m, '_, R>,
    ) -> bool {
        if out.items.is_empty() {
            // nothing waits to be drawn before it: the message is drawn as
            // it is read, what needs the session once it is read
            let mut showing = Showing::default();
            let renderer = &mut *p.renderer;
            p.session.see_into(m, now, &mut |seen| {
                renderer.stream(&mut showing, seen, now, &mut |text| {
                    out.push(Effect::Write(text))
                })
            });
            out.draw(Draw::Shown(showing));
        } else {
            out.draw(Draw::Seen(p.session.see(m, now)));
        }
        let agents = p.session.agents_running();
        match &mut self.stage {
            Stage::Turn(turn) | Stage::AtWork { turn, .. } => turn.message(m, agents, now),
            Stage::Mode { .. } => confirmed_mode(m).is_some(),
        }
    }

    fn message<'m>(
        &mut self,
        p: &mut Parts<'_>,
        m: &'m Message,
        now: Instant,
        out: &mut Out<'m, '_, R>,
    ) {
        if self.count_result(p, m, now, out) && self.asking.is_none() {
            // stop reading; what was typed in the last instant is kept by
            // the loop
            out.draw(Draw::Suspend);
            self.end(WorkEnd::Done, out);
        }
    }

    /// Ctrl-D on the empty line: between prompts, the chat ends.
    fn eof(&mut self, out: &mut Out<'_, '_, R>) {
        if let Stage::AtWork { .. } = self.stage {
            self.end_at_work_quit(out);
        }
    }

    fn ctrl_c(&mut self, p: &mut Parts<'_>, now: Instant, out: &mut Out<'_, '_, R>) {
        match &mut self.stage {
            Stage::Turn(turn) => {
                if turn.ctrl_c(now) == Press::Quit {
                    out.draw(Draw::Notice("killed".into()));
                    self.end(WorkEnd::Quit(Exit::Interrupted), out);
                    return;
                }
                p.ahead.interrupted_at = Some(now);
                self.interrupting(p, "interrupting… (Ctrl-C again to quit)", out);
            }
            Stage::Mode { .. } => {}
            Stage::AtWork { .. } => {
                // Ctrl-C clears the line, as at the prompt
                p.ahead.typed.clear();
                out.draw(Draw::Footer(self.footer(p)));
            }
        }
    }

    /// The turn is being interrupted (Ctrl-C or Esc): said, asked of the
    /// CLI, and the prompts queued behind it come back to the line being
    /// typed, oldest first, to edit or send (as in the claude TUI): none
    /// goes out by itself once the interrupted turn ends.
    fn interrupting(&mut self, p: &mut Parts<'_>, notice: &str, out: &mut Out<'_, '_, R>) {
        out.draw(Draw::Interrupting);
        out.draw(Draw::Notice(notice.into()));
        out.push(Effect::Interrupt);
        if let Some(back) = p.ahead.unqueue() {
            out.draw(Draw::Notice(back));
            out.draw(Draw::Footer(self.footer(p)));
        }
    }

    /// Between prompts: once the agents are done and no report is being
    /// written, a moment for the report's turn to start, then back to the
    /// prompt. Shift-Tab's wait for the CLI's confirmation runs out.
    fn check(&mut self, p: &mut Parts<'_>, now: Instant, out: &mut Out<'_, '_, R>) {
        if self.asking.is_some() {
            return;
        }
        match &mut self.stage {
            Stage::Turn(_) => {}
            Stage::AtWork { turn, .. } => {
                if turn.tick(p.session.agents_running(), now) {
                    self.end_at_work(out);
                }
            }
            Stage::Mode { next, until } => {
                if now >= *until {
                    // the CLI said yes but sent no status line
                    p.session.state.mode = Some(next.clone());
                    self.end_at_work(out);
                }
            }
        }
    }
}

/// What is said when the person's answer lost to the deck's, `given`
/// (`call`: the request was a tool call's): what the deck decided, and so
/// what happened. Said under the dialog's own note, which said the
/// person's answer.
fn overtaken(given: &claudio::PermissionResult, call: bool) -> String {
    use claudio::PermissionResult::{Allow, Deny};
    let what = match given {
        Deny {
            interrupt: true, ..
        } => "the deck denied it first and stopped the turn",
        Deny { .. } => "the deck denied it first",
        Allow { .. } if call => "the deck allowed it first, and the tool ran",
        _ => "the deck answered it first",
    };
    format!("too late: {what}")
}

#[cfg(test)]
mod tests;
