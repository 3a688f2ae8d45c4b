//! The chat at work, as a state machine: events in, effects out.
//!
//! While Claude works, two things can be going on: a turn the person
//! started (it ends with its `result`), or, between prompts, background
//! agents still at work (their progress and their report's turn show live,
//! under the prompt line). Both are one machine, [`Work`], fed the events
//! the terminal and the CLI produce ([`Event`]: keys, messages, requests,
//! ticks, Ctrl-C, SIGCONT) and answering with what to do ([`Effect`]: write
//! to the screen, send an interjection, interrupt, ask the person, end).
//!
//! The machine does no I/O and reads no clock: every event carries the
//! time. So each behaviour of the chat at work (the double Ctrl-C, the
//! settle time after the agents finish, the results an interjection is owed,
//! the prompts typed ahead) is tested here without a terminal; the loop in
//! `repl` only carries events in and effects out.

use super::dialog::{Dialog, Done};
use super::keys::TermEvent;
use super::render::Renderer;
use super::state::SessionState;
use super::typeahead::{Action, TypeAhead};
use crate::cli::exit::Exit;
use claudio::{Message, SystemMessage};
use std::time::{Duration, Instant};

/// Within this long, a second Ctrl-C in a turn quits.
pub(super) const DOUBLE_CTRL_C: Duration = Duration::from_secs(2);

/// After the last background agent is done: how long to wait for the turn
/// the CLI starts to report it (it starts within milliseconds when it does).
pub(super) const SETTLE: Duration = Duration::from_millis(400);

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
    /// The CLI asks something (a tool to allow, a question, a plan), to be
    /// answered through `dialog`. The messages it wrote before asking,
    /// already received, come with it: they are shown first (the tool
    /// call, the plan it refers to).
    Request {
        before: Vec<Message>,
        request: R,
        dialog: Box<Dialog>,
    },
    /// The request being asked was withdrawn by the CLI.
    Withdrawn,
    /// The terminal is gone (no more keys).
    KeysGone,
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
    /// Answer the request.
    Reply(R, claudio::PermissionResult),
    /// Put the keys back in character mode (after Ctrl-Z).
    RestoreKeys,
    /// The work is over.
    End(End),
}

/// How the chat's work ended.
#[derive(Debug, PartialEq)]
pub(super) enum End {
    /// The turn ended, or the agents are done (or a prompt was typed: it is
    /// queued in the type-ahead).
    Done,
    /// The CLI is gone; a fresh session is needed.
    SessionLost,
    /// The CLI's output failed (the error, as text).
    Failed(String),
    /// Leave the program: a second Ctrl-C in a turn, or Ctrl-D on an empty
    /// line while agents work.
    Quit(Exit),
}

/// What the machine is doing.
#[derive(Debug)]
enum Stage {
    /// A turn the person started.
    Turn {
        /// Results still to come: one for the prompt, one per interjection.
        results_due: usize,
        /// The last Ctrl-C, for the double press that quits.
        last_ctrl_c: Option<Instant>,
    },
    /// Between prompts, background agents at work, the next prompt typed
    /// on the prompt line under them.
    AtWork {
        /// A turn the CLI started by itself (an agent reporting) is open.
        turn_open: bool,
        /// When the agents were seen done, waiting for that turn to start.
        settle: Option<Instant>,
        /// The prompt line's label.
        prompt: String,
    },
}

/// The parts of the chat the machine works on.
pub(super) struct Parts<'a> {
    pub renderer: &'a mut Renderer,
    pub state: &'a mut SessionState,
    pub ahead: &'a mut TypeAhead,
}

/// A request being asked.
#[derive(Debug)]
struct Asking<R> {
    request: R,
    dialog: Box<Dialog>,
    /// The turn's result came with the request: the turn ends once it is
    /// answered.
    ended: bool,
}

/// The chat at work.
#[derive(Debug)]
pub(super) struct Work<R> {
    stage: Stage,
    /// A request being asked: keys go to its dialog.
    asking: Option<Asking<R>>,
    ended: bool,
}

type Effects<R> = Vec<Effect<R>>;

fn write<R>(out: &mut Effects<R>, text: String) {
    if !text.is_empty() {
        out.push(Effect::Write(text));
    }
}

/// The result of a turn the CLI started by itself (a background agent
/// reporting: `origin.kind` `task-notification`), not one of the person's.
fn is_automatic(m: &Message) -> bool {
    matches!(m, Message::Result(r) if r.extra.contains_key("origin"))
}

impl<R> Work<R> {
    /// A turn was sent: its prompt's result is due.
    pub(super) fn turn(p: &mut Parts<'_>, now: Instant) -> (Work<R>, Effects<R>) {
        let work = Work {
            stage: Stage::Turn {
                results_due: 1,
                last_ctrl_c: None,
            },
            asking: None,
            ended: false,
        };
        p.ahead.eof = false;
        let mut out = Vec::new();
        write(&mut out, p.renderer.set_footer(p.ahead.footer(), now));
        (work, out)
    }

    /// Background agents are at work between prompts; `prompt` is the
    /// prompt line's label.
    pub(super) fn at_work(
        p: &mut Parts<'_>,
        prompt: String,
        now: Instant,
    ) -> (Work<R>, Effects<R>) {
        let mut work = Work {
            stage: Stage::AtWork {
                turn_open: false,
                settle: None,
                prompt,
            },
            asking: None,
            ended: false,
        };
        let mut out = Vec::new();
        let footer = work.footer(p);
        write(&mut out, p.renderer.set_footer(footer, now));
        work.check(p, now, &mut out);
        (work, out)
    }

    /// Whether the work is over (an [`Effect::End`] was given).
    #[cfg(test)]
    pub(super) fn ended(&self) -> bool {
        self.ended
    }

    /// Whether a request is being asked (keys go to its dialog; the loop
    /// reads nothing else from the CLI meanwhile).
    pub(super) fn asking(&self) -> bool {
        self.asking.is_some()
    }

    /// Take in one event at time `now`.
    pub(super) fn step(&mut self, p: &mut Parts<'_>, event: Event<R>, now: Instant) -> Effects<R> {
        let mut out = Vec::new();
        if self.ended {
            return out;
        }
        if self.asking.is_some() {
            self.step_asking(p, event, now, &mut out);
            if !self.ended {
                self.check(p, now, &mut out);
            }
            return out;
        }
        match event {
            Event::Key(input) => self.key(p, input, now, &mut out),
            Event::Message(m) => self.message(p, &m, now, &mut out),
            Event::LongLine(limit) => {
                if matches!(self.stage, Stage::Turn { .. }) {
                    let n = p
                        .renderer
                        .notice(&format!("skipped a message longer than {limit} bytes"));
                    write(&mut out, n);
                }
            }
            Event::Closed => match self.stage {
                Stage::Turn { .. } => self.end(End::SessionLost, &mut out),
                Stage::AtWork { .. } => self.end_at_work(p, &mut out),
            },
            Event::Failed(e) => {
                if matches!(self.stage, Stage::Turn { .. }) {
                    self.end(End::Failed(e.to_string()), &mut out);
                }
            }
            Event::Request {
                before,
                request,
                mut dialog,
            } => {
                // someone is at work: no settling while it is asked
                if let Stage::AtWork { settle, .. } = &mut self.stage {
                    *settle = None;
                }
                // what the CLI wrote before it asked, then the question
                let mut ended = false;
                for m in &before {
                    ended |= self.count_result(p, m, now, &mut out);
                }
                write(&mut out, p.renderer.suspend());
                out.push(Effect::Raw(true));
                let step = dialog.start();
                write(&mut out, step.write);
                self.asking = Some(Asking {
                    request,
                    dialog,
                    ended,
                });
                if let Some(done) = step.done {
                    self.answered(p, done, now, &mut out);
                }
            }
            Event::Withdrawn | Event::KeysGone => {}
            Event::SentNow => {
                if let Stage::Turn { results_due, .. } = &mut self.stage {
                    *results_due += 1;
                    write(&mut out, p.renderer.notice("sent now, cutting in"));
                }
            }
            Event::Tick => write(&mut out, p.renderer.tick(now)),
            Event::CtrlC => self.ctrl_c(p, now, &mut out),
            Event::Continued { width } => {
                out.push(Effect::RestoreKeys);
                write(&mut out, p.renderer.resume_after_stop(width, now));
            }
        }
        if !self.ended {
            self.check(p, now, &mut out);
        }
        out
    }

    /// While a request is asked: keys go to its dialog; it may be
    /// withdrawn; the spinners wait.
    fn step_asking(
        &mut self,
        p: &mut Parts<'_>,
        event: Event<R>,
        now: Instant,
        out: &mut Effects<R>,
    ) {
        let Some(asking) = self.asking.as_mut() else {
            return;
        };
        let step = match event {
            Event::Key(input) => {
                if let TermEvent::Resize(w, _) = &input {
                    // drawn again once the dialog is over
                    p.renderer.set_width(*w as usize);
                }
                asking.dialog.input(input)
            }
            Event::Withdrawn => asking.dialog.withdrawn(),
            Event::KeysGone => asking.dialog.failed(),
            Event::Continued { .. } => {
                out.push(Effect::RestoreKeys);
                out.push(Effect::Raw(true));
                return;
            }
            // the rest waits for the answer (the loop does not read it)
            _ => return,
        };
        write(out, step.write);
        if let Some(done) = step.done {
            self.answered(p, done, now, out);
        }
    }

    /// The person answered: the reply goes out, the live region comes back,
    /// or the turn ends if its result came with the request.
    fn answered(&mut self, p: &mut Parts<'_>, done: Done, now: Instant, out: &mut Effects<R>) {
        let Some(asking) = self.asking.take() else {
            return;
        };
        out.push(Effect::Raw(false));
        out.push(Effect::Reply(asking.request, done.result));
        if done.interrupt {
            write(out, p.renderer.notice("denied; interrupting the turn"));
        }
        if asking.ended {
            write(out, p.renderer.suspend());
            self.end(End::Done, out);
        } else {
            let footer = self.footer(p);
            write(out, p.renderer.set_footer(footer, now));
        }
    }

    fn end(&mut self, end: End, out: &mut Effects<R>) {
        self.ended = true;
        out.push(Effect::End(end));
    }

    /// The agents' work is over (or a prompt was typed): the live region
    /// goes, the prompt comes back.
    fn end_at_work(&mut self, p: &mut Parts<'_>, out: &mut Effects<R>) {
        write(out, p.renderer.suspend());
        self.end(End::Done, out);
    }

    fn end_at_work_quit(&mut self, p: &mut Parts<'_>, out: &mut Effects<R>) {
        write(out, p.renderer.suspend());
        self.end(End::Quit(Exit::Success), out);
    }

    /// The lines under the live region: the type-ahead (and, between
    /// prompts, the prompt line being typed).
    fn footer(&self, p: &Parts<'_>) -> Vec<String> {
        match &self.stage {
            Stage::Turn { .. } => p.ahead.footer(),
            Stage::AtWork { prompt, .. } => {
                let mut lines: Vec<String> = p
                    .ahead
                    .footer()
                    .into_iter()
                    .filter(|l| !l.starts_with("› "))
                    .collect();
                lines.push(format!("{prompt}{}", p.ahead.typed.replace('\n', " ")));
                lines
            }
        }
    }

    fn key(&mut self, p: &mut Parts<'_>, input: TermEvent, now: Instant, out: &mut Effects<R>) {
        if let TermEvent::Resize(w, _) = &input {
            write(out, p.renderer.resize(*w as usize, now));
        }
        let action = p.ahead.input(&input);
        match &self.stage {
            Stage::Turn { .. } => {
                if let Some(Action::SendNow(text)) = action {
                    out.push(Effect::SendNow(text));
                }
            }
            Stage::AtWork { .. } => {
                if let Some(Action::SendNow(text)) = action {
                    p.ahead.queued.push_front(text);
                }
                if !p.ahead.queued.is_empty() {
                    // a prompt typed: the loop sends it
                    self.end_at_work(p, out);
                    return;
                }
            }
        }
        let footer = self.footer(p);
        write(out, p.renderer.set_footer(footer, now));
    }

    /// Show a message; true when it is the result the turn was waiting for
    /// last (counted, not yet acted on).
    fn count_result(
        &mut self,
        p: &mut Parts<'_>,
        m: &Message,
        now: Instant,
        out: &mut Effects<R>,
    ) -> bool {
        p.state.observe(m);
        write(out, p.renderer.message(m, p.state, now));
        match &mut self.stage {
            Stage::Turn { results_due, .. } if m.is_result() && !is_automatic(m) => {
                *results_due = results_due.saturating_sub(1);
                *results_due == 0
            }
            Stage::Turn { .. } => false,
            Stage::AtWork { turn_open, .. } => {
                if matches!(m, Message::System(s) if matches!(&**s, SystemMessage::Init(_))) {
                    *turn_open = true;
                }
                if m.is_result() {
                    *turn_open = false;
                }
                false
            }
        }
    }

    fn message(&mut self, p: &mut Parts<'_>, m: &Message, now: Instant, out: &mut Effects<R>) {
        if self.count_result(p, m, now, out) && self.asking.is_none() {
            // stop reading; what was typed in the last instant is kept by
            // the loop
            write(out, p.renderer.suspend());
            self.end(End::Done, out);
        }
    }

    fn ctrl_c(&mut self, p: &mut Parts<'_>, now: Instant, out: &mut Effects<R>) {
        match &mut self.stage {
            Stage::Turn { last_ctrl_c, .. } => {
                if last_ctrl_c.is_some_and(|t| now.duration_since(t) < DOUBLE_CTRL_C) {
                    write(out, p.renderer.notice("killed"));
                    self.end(End::Quit(Exit::Interrupted), out);
                    return;
                }
                *last_ctrl_c = Some(now);
                write(
                    out,
                    p.renderer.notice("interrupting… (Ctrl-C again to quit)"),
                );
                out.push(Effect::Interrupt);
            }
            Stage::AtWork { .. } => {
                // Ctrl-C clears the line, as at the prompt
                p.ahead.typed.clear();
                let footer = self.footer(p);
                write(out, p.renderer.set_footer(footer, now));
            }
        }
    }

    /// Between prompts: Ctrl-D on the empty line quits; once the agents
    /// are done and no report is being written, a moment for the report's
    /// turn to start, then back to the prompt.
    fn check(&mut self, p: &mut Parts<'_>, now: Instant, out: &mut Effects<R>) {
        if self.asking.is_some() {
            return;
        }
        let Stage::AtWork {
            turn_open, settle, ..
        } = &mut self.stage
        else {
            return;
        };
        if std::mem::take(&mut p.ahead.eof) {
            self.end_at_work_quit(p, out);
            return;
        }
        if p.renderer.agents_running() == 0 && !*turn_open {
            let at = *settle.get_or_insert(now + SETTLE);
            if now >= at {
                self.end_at_work(p, out);
            }
        } else {
            *settle = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::chat::dialog::Dialog;
    use crate::cli::chat::render::RenderOptions;
    use crate::cli::style::Style;
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use serde_json::json;

    struct Chat {
        renderer: Renderer,
        state: SessionState,
        ahead: TypeAhead,
        t0: Instant,
    }

    impl Chat {
        fn new() -> Chat {
            Chat {
                renderer: Renderer::new(RenderOptions {
                    style: Style::plain(),
                    live: true,
                    show_thinking: false,
                    width: 80,
                }),
                state: SessionState::default(),
                ahead: TypeAhead::default(),
                t0: Instant::now(),
            }
        }

        fn parts(&mut self) -> Parts<'_> {
            Parts {
                renderer: &mut self.renderer,
                state: &mut self.state,
                ahead: &mut self.ahead,
            }
        }

        fn at(&self, ms: u64) -> Instant {
            self.t0 + Duration::from_millis(ms)
        }

        fn turn(&mut self) -> Work<&'static str> {
            let now = self.t0;
            Work::turn(&mut self.parts(), now).0
        }

        fn step(
            &mut self,
            w: &mut Work<&'static str>,
            e: Event<&'static str>,
            ms: u64,
        ) -> Vec<Effect<&'static str>> {
            let now = self.at(ms);
            w.step(&mut self.parts(), e, now)
        }
    }

    fn msg(v: serde_json::Value) -> Event<&'static str> {
        Event::Message(Box::new(Message::parse(v.to_string().as_bytes()).unwrap()))
    }

    fn result() -> serde_json::Value {
        json!({"type":"result","subtype":"success","is_error":false,"num_turns":1,"duration_ms":100})
    }

    fn report() -> serde_json::Value {
        json!({"type":"result","subtype":"success","is_error":false,"num_turns":1,"duration_ms":100,
               "origin":{"kind":"task-notification"}})
    }

    fn key(c: char) -> Event<&'static str> {
        Event::Key(TermEvent::Key(KeyEvent::new(
            KeyCode::Char(c),
            KeyModifiers::NONE,
        )))
    }

    fn special(code: KeyCode, m: KeyModifiers) -> Event<&'static str> {
        Event::Key(TermEvent::Key(KeyEvent::new(code, m)))
    }

    fn text(effects: &[Effect<&str>]) -> String {
        effects
            .iter()
            .filter_map(|e| match e {
                Effect::Write(t) => Some(t.as_str()),
                _ => None,
            })
            .collect()
    }

    fn end<'a>(effects: &'a [Effect<&str>]) -> Option<&'a End> {
        effects.iter().find_map(|e| match e {
            Effect::End(end) => Some(end),
            _ => None,
        })
    }

    #[test]
    fn a_turn_ends_with_its_result() {
        let mut c = Chat::new();
        let mut w = c.turn();
        let out = c.step(&mut w, msg(json!({"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"hello"}]}})), 10);
        assert!(text(&out).contains("hello"), "{out:?}");
        assert_eq!(end(&out), None);
        let out = c.step(&mut w, msg(result()), 20);
        assert_eq!(end(&out), Some(&End::Done));
        assert!(w.ended());
        // nothing after the end
        assert!(c.step(&mut w, Event::Tick, 30).is_empty());
    }

    #[test]
    fn a_second_ctrl_c_within_two_seconds_quits() {
        let mut c = Chat::new();
        let mut w = c.turn();
        let out = c.step(&mut w, Event::CtrlC, 0);
        assert!(out.contains(&Effect::Interrupt), "{out:?}");
        assert!(text(&out).contains("Ctrl-C again to quit"));
        assert_eq!(end(&out), None);
        // a second press, late: another interrupt
        let out = c.step(&mut w, Event::CtrlC, 2500);
        assert!(out.contains(&Effect::Interrupt), "{out:?}");
        assert_eq!(end(&out), None);
        // and one soon after it: quit
        let out = c.step(&mut w, Event::CtrlC, 3000);
        assert_eq!(end(&out), Some(&End::Quit(Exit::Interrupted)));
        assert!(text(&out).contains("killed"));
        assert!(!out.contains(&Effect::Interrupt));
    }

    #[test]
    fn each_interjection_is_owed_a_result_and_reports_are_not() {
        let mut c = Chat::new();
        let mut w = c.turn();
        for ch in "more".chars() {
            c.step(&mut w, key(ch), 1);
        }
        let out = c.step(&mut w, special(KeyCode::Enter, KeyModifiers::ALT), 2);
        assert!(out.contains(&Effect::SendNow("more".into())), "{out:?}");
        let out = c.step(&mut w, Event::SentNow, 3);
        assert!(text(&out).contains("sent now, cutting in"));
        // a background agent's report is not the person's result
        assert_eq!(end(&c.step(&mut w, msg(report()), 4)), None);
        assert_eq!(end(&c.step(&mut w, msg(result()), 5)), None);
        assert_eq!(end(&c.step(&mut w, msg(result()), 6)), Some(&End::Done));
    }

    #[test]
    fn prompts_typed_during_a_turn_wait_for_its_end() {
        let mut c = Chat::new();
        let mut w = c.turn();
        for ch in "next one".chars() {
            c.step(&mut w, key(ch), 1);
        }
        let out = c.step(&mut w, special(KeyCode::Enter, KeyModifiers::NONE), 2);
        assert!(
            text(&out).contains("next one"),
            "the queue is shown: {out:?}"
        );
        assert!(!out.iter().any(|e| matches!(e, Effect::SendNow(_))));
        for ch in "half".chars() {
            c.step(&mut w, key(ch), 3);
        }
        let out = c.step(&mut w, msg(result()), 4);
        assert_eq!(end(&out), Some(&End::Done));
        assert_eq!(c.ahead.queued, ["next one"]);
        assert_eq!(c.ahead.typed, "half", "the line being typed is kept");
    }

    /// A request to run Bash, asked with a tool dialog.
    fn request(before: Vec<Message>) -> Event<&'static str> {
        let req: claudio::CanUseToolRequest =
            serde_json::from_value(json!({"tool_name":"Bash","input":{"command":"ls"}})).unwrap();
        let dialog = Dialog::tool(
            req,
            ("Allow? ".into(), false),
            String::new(),
            Style::plain(),
        );
        Event::Request {
            before,
            request: "Bash",
            dialog: Box::new(dialog),
        }
    }

    fn replied<'a>(effects: &'a [Effect<&str>]) -> Option<&'a claudio::PermissionResult> {
        effects.iter().find_map(|e| match e {
            Effect::Reply("Bash", r) => Some(r),
            _ => None,
        })
    }

    #[test]
    fn a_result_that_came_with_a_request_ends_the_turn_after_the_answer() {
        let mut c = Chat::new();
        let mut w = c.turn();
        let before = vec![Message::parse(result().to_string().as_bytes()).unwrap()];
        let out = c.step(&mut w, request(before), 1);
        assert!(text(&out).ends_with("Allow? "), "{out:?}");
        assert!(out.contains(&Effect::Raw(true)));
        assert_eq!(end(&out), None, "not while the person is asked");
        assert!(w.asking());
        // ticks and Ctrl-C while asking change nothing
        assert!(c.step(&mut w, Event::Tick, 2).is_empty());
        assert!(c.step(&mut w, Event::CtrlC, 2).is_empty());
        // Esc: denied, and the turn is to stop
        let out = c.step(&mut w, special(KeyCode::Esc, KeyModifiers::NONE), 3);
        assert!(text(&out).contains("denied; interrupting the turn"));
        assert!(out.contains(&Effect::Raw(false)));
        assert!(matches!(
            replied(&out),
            Some(claudio::PermissionResult::Deny {
                interrupt: true,
                ..
            })
        ));
        assert_eq!(end(&out), Some(&End::Done));
    }

    #[test]
    fn keys_answer_the_open_request_not_the_type_ahead() {
        let mut c = Chat::new();
        let mut w = c.turn();
        for ch in "later".chars() {
            c.step(&mut w, key(ch), 1);
        }
        c.step(&mut w, request(Vec::new()), 2);
        let out = c.step(&mut w, key('y'), 3);
        assert!(matches!(
            replied(&out),
            Some(claudio::PermissionResult::Allow { .. })
        ));
        assert!(!w.asking());
        assert_eq!(c.ahead.typed, "later", "the typed line is untouched");
        assert!(text(&out).contains("later"), "the footer is back: {out:?}");
        assert_eq!(end(&out), None);
    }

    #[test]
    fn a_request_withdrawn_while_it_is_asked_is_denied_and_the_turn_goes_on() {
        let mut c = Chat::new();
        let mut w = c.turn();
        c.step(&mut w, request(Vec::new()), 1);
        let out = c.step(&mut w, Event::Withdrawn, 2);
        assert!(text(&out).contains("withdrawn"));
        assert_eq!(
            replied(&out),
            Some(&claudio::PermissionResult::deny(
                "The request was withdrawn."
            ))
        );
        assert!(!w.asking());
        // the turn goes on to its result
        assert_eq!(end(&c.step(&mut w, msg(result()), 3)), Some(&End::Done));
        // the terminal going away while asking: denied, never allowed
        let mut w = c.turn();
        c.step(&mut w, request(Vec::new()), 4);
        let out = c.step(&mut w, Event::KeysGone, 5);
        assert!(matches!(
            replied(&out),
            Some(claudio::PermissionResult::Deny { .. })
        ));
    }

    #[test]
    fn the_session_ending_or_failing_ends_the_turn() {
        let mut c = Chat::new();
        let mut w = c.turn();
        let out = c.step(&mut w, Event::LongLine(1024), 1);
        assert!(text(&out).contains("skipped a message longer than 1024 bytes"));
        assert_eq!(
            end(&c.step(&mut w, Event::Closed, 2)),
            Some(&End::SessionLost)
        );
        let mut w = c.turn();
        let out = c.step(&mut w, Event::Failed(claudio::Error::Closed), 3);
        assert!(matches!(end(&out), Some(End::Failed(_))), "{out:?}");
    }

    /// A turn that left an agent working in the background.
    fn agent_left_working(c: &mut Chat) {
        let mut w = c.turn();
        for m in [
            json!({"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"task1","name":"Agent","input":{"description":"count files","prompt":"count"}}]}}),
            json!({"type":"system","subtype":"task_started","task_id":"a1","tool_use_id":"task1","description":"count files","is_backgrounded":true}),
            json!({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"task1","content":[{"type":"text","text":"Async agent launched successfully."}]}]}}),
            result(),
        ] {
            c.step(&mut w, msg(m), 5);
        }
        assert!(w.ended());
        assert_eq!(c.renderer.agents_running(), 1);
    }

    fn at_work(c: &mut Chat, ms: u64) -> (Work<&'static str>, Vec<Effect<&'static str>>) {
        let now = c.at(ms);
        Work::at_work(&mut c.parts(), "› ".into(), now)
    }

    #[test]
    fn between_prompts_agents_report_and_then_the_prompt_comes_back() {
        let mut c = Chat::new();
        agent_left_working(&mut c);
        let (mut w, out) = at_work(&mut c, 10);
        assert!(text(&out).contains("› "), "the prompt line: {out:?}");
        assert_eq!(end(&out), None);
        // time passes while it works
        assert_eq!(end(&c.step(&mut w, Event::Tick, 2000)), None);
        // it is done; the CLI starts a turn of its own to report
        let out = c.step(&mut w, msg(json!({"type":"system","subtype":"task_notification","task_id":"a1","tool_use_id":"task1","status":"completed","summary":"3 files"})), 3000);
        assert!(text(&out).contains("3 files"), "{out:?}");
        assert_eq!(end(&out), None, "a moment for the report's turn");
        c.step(&mut w, msg(json!({"type":"system","subtype":"init","session_id":"s","model":"m","tools":[],"cwd":"/"})), 3100);
        // the report's turn is open: no settling, however long it takes
        assert_eq!(end(&c.step(&mut w, Event::Tick, 9000)), None);
        let out = c.step(&mut w, msg(json!({"type":"assistant","message":{"id":"r","content":[{"type":"text","text":"the agent counted 3 files"}]}})), 9100);
        assert!(text(&out).contains("the agent counted 3 files"));
        assert_eq!(end(&c.step(&mut w, msg(report()), 9200)), None);
        // settled: back to the prompt after the settle time, not before
        assert_eq!(end(&c.step(&mut w, Event::Tick, 9300)), None);
        let out = c.step(&mut w, Event::Tick, 9200 + SETTLE.as_millis() as u64 + 1);
        assert_eq!(end(&out), Some(&End::Done));
    }

    #[test]
    fn with_no_agent_left_the_prompt_comes_back_after_the_settle_time() {
        let mut c = Chat::new();
        let (mut w, out) = at_work(&mut c, 0);
        assert_eq!(end(&out), None);
        assert_eq!(end(&c.step(&mut w, Event::Tick, 399)), None);
        assert_eq!(end(&c.step(&mut w, Event::Tick, 400)), Some(&End::Done));
    }

    #[test]
    fn between_prompts_a_typed_prompt_ends_the_wait_and_ctrl_d_quits() {
        let mut c = Chat::new();
        agent_left_working(&mut c);
        let (mut w, _) = at_work(&mut c, 10);
        for ch in "hi".chars() {
            let out = c.step(&mut w, key(ch), 20);
            assert!(
                text(&out).contains("› h"),
                "typed on the prompt line: {out:?}"
            );
        }
        // Ctrl-C clears the line, as at the prompt
        let out = c.step(&mut w, Event::CtrlC, 30);
        assert!(!out.contains(&Effect::Interrupt));
        assert_eq!(c.ahead.typed, "");
        for ch in "go".chars() {
            c.step(&mut w, key(ch), 40);
        }
        let out = c.step(&mut w, special(KeyCode::Enter, KeyModifiers::NONE), 50);
        assert_eq!(end(&out), Some(&End::Done));
        assert_eq!(c.ahead.queued, ["go"]);

        let mut c = Chat::new();
        agent_left_working(&mut c);
        let (mut w, _) = at_work(&mut c, 10);
        let out = c.step(
            &mut w,
            special(KeyCode::Char('d'), KeyModifiers::CONTROL),
            20,
        );
        assert_eq!(end(&out), Some(&End::Quit(Exit::Success)));
    }

    #[test]
    fn between_prompts_requests_are_asked_and_nothing_ends_meanwhile() {
        let mut c = Chat::new();
        let (mut w, _) = at_work(&mut c, 0);
        let out = c.step(&mut w, request(Vec::new()), 1);
        assert!(w.asking(), "{out:?}");
        // past the settle time, but a question is open
        assert_eq!(end(&c.step(&mut w, Event::Tick, 1000)), None);
        let out = c.step(&mut w, key('n'), 1001);
        assert!(replied(&out).is_some());
        assert_eq!(end(&out), None, "the settle time starts again");
        assert_eq!(end(&c.step(&mut w, Event::Tick, 1500)), Some(&End::Done));
    }

    #[test]
    fn ctrl_z_and_resize_redraw() {
        let mut c = Chat::new();
        let mut w = c.turn();
        let out = c.step(&mut w, Event::Continued { width: 60 }, 1);
        assert_eq!(out.first(), Some(&Effect::RestoreKeys));
        c.step(&mut w, Event::Key(TermEvent::Resize(50, 20)), 2);
        assert_eq!(c.renderer.width(), 50);
    }
}
