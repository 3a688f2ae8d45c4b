//! The chat's core driven by events, with no terminal: each behaviour
//! that only the pseudo-terminal reached before.

use super::*;
use crate::cli::commands::chat::dialog::Dialog;
use crate::cli::commands::chat::inbox::{Inbox, Said};
use crate::cli::commands::chat::render::RenderOptions;
use crate::cli::requests::tool::{Approval, Frame, Shown};
use crate::cli::term::style::Style;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::json;

struct Chat {
    renderer: Renderer,
    session: Session,
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
                reflows: false,
            }),
            session: Session::default(),
            ahead: TypeAhead::default(),
            t0: Instant::now(),
        }
    }

    fn parts(&mut self) -> Parts<'_> {
        Parts {
            renderer: &mut self.renderer,
            session: &mut self.session,
            ahead: &mut self.ahead,
        }
    }

    fn at(&self, ms: u64) -> Instant {
        self.t0 + Duration::from_millis(ms)
    }

    fn turn(&mut self) -> Machine<&'static str> {
        let now = self.t0;
        Machine::turn(&mut self.parts(), now).0
    }

    fn step(
        &mut self,
        w: &mut Machine<&'static str>,
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

fn end<'a>(effects: &'a [Effect<&str>]) -> Option<&'a WorkEnd> {
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
    assert_eq!(end(&out), Some(&WorkEnd::Done));
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
    assert_eq!(end(&out), Some(&WorkEnd::Quit(Exit::Interrupted)));
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
    assert_eq!(end(&c.step(&mut w, msg(result()), 6)), Some(&WorkEnd::Done));
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
    assert_eq!(end(&out), Some(&WorkEnd::Done));
    assert_eq!(c.ahead.queued, ["next one"]);
    assert_eq!(c.ahead.typed, "half", "the line being typed is kept");
}

/// A request to run Bash, asked with a tool dialog.
fn request() -> Event<&'static str> {
    request_of(None)
}

/// A request to run Bash's `ls`, for the tool use `id` if given, asked
/// with a tool dialog as the loop asks it.
fn request_of(id: Option<&str>) -> Event<&'static str> {
    let mut req = json!({"tool_name":"Bash","input":{"command":"ls"}});
    if let Some(id) = id {
        req["tool_use_id"] = id.into();
    }
    let req: claudio::CanUseToolRequest = serde_json::from_value(req).unwrap();
    let shown = Shown {
        folded: "Allow? ".into(),
        whole: None,
    };
    let dialog = Dialog::asking(Box::new(Approval::new(req, shown)), Style::plain());
    Event::Request {
        typed_before: Vec::new(),
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

/// The loop's part between the CLI and the machine, without a terminal:
/// what the CLI says goes through the loop's [`Inbox`] (held while a
/// dialog is open); a request, once its turn comes, has its dialog made
/// (`opened` counts them, by name) and is stepped in once, as
/// [`Event::Request`]. `steps` counts the machine's steps.
struct Loop {
    inbox: Inbox<&'static str>,
    opened: Vec<&'static str>,
    steps: usize,
}

impl Loop {
    fn new() -> Loop {
        Loop {
            inbox: Inbox::new(Default::default()),
            opened: Vec::new(),
            steps: 0,
        }
    }

    /// The request's turn came: its dialog made, the machine stepped once.
    fn take_in(
        &mut self,
        c: &mut Chat,
        w: &mut Machine<&'static str>,
        said: Said<&'static str>,
        ms: u64,
    ) -> Vec<Effect<&'static str>> {
        let event = match said {
            Said::Event(e) => e,
            Said::Asks(name) => {
                self.opened.push(name);
                asked(name)
            }
        };
        self.steps += 1;
        c.step(w, event, ms)
    }

    /// What the CLI said, read now: taken in, or held.
    fn read(
        &mut self,
        c: &mut Chat,
        w: &mut Machine<&'static str>,
        said: Said<&'static str>,
        ms: u64,
    ) -> Vec<Effect<&'static str>> {
        match self.inbox.take(said, w.asking()) {
            Some(said) => self.take_in(c, w, said, ms),
            None => Vec::new(),
        }
    }

    /// The machine's replies in `out` carried out as the loop does: "no,
    /// and stop" holds what is queued behind it for the turn's end.
    fn replies(&mut self, out: &[Effect<&'static str>]) {
        for e in out {
            if let Effect::Reply(_, result) = e {
                if matches!(
                    result,
                    claudio::PermissionResult::Deny {
                        interrupt: true,
                        ..
                    }
                ) {
                    self.inbox.stop_asked();
                }
            }
        }
    }

    /// The next thing held, taken in (`None`: nothing, or a dialog open).
    fn next(
        &mut self,
        c: &mut Chat,
        w: &mut Machine<&'static str>,
        ms: u64,
    ) -> Option<Vec<Effect<&'static str>>> {
        let said = self.inbox.next(w.asking())?;
        Some(self.take_in(c, w, said, ms))
    }
}

fn said(e: Event<&'static str>) -> Said<&'static str> {
    Said::Event(e)
}

/// The CLI's request named `name`, asked with a tool dialog.
fn asked(name: &'static str) -> Event<&'static str> {
    let Event::Request { dialog, .. } = request() else {
        unreachable!()
    };
    Event::Request {
        typed_before: Vec::new(),
        request: name,
        dialog,
    }
}

#[test]
fn a_result_that_came_while_a_request_is_asked_ends_the_turn_after_the_answer() {
    let mut c = Chat::new();
    let mut w = c.turn();
    let mut l = Loop::new();
    let out = l.read(&mut c, &mut w, Said::Asks("Bash"), 1);
    assert!(text(&out).ends_with("Allow? "), "{out:?}");
    assert!(out.contains(&Effect::Raw(true)));
    assert!(w.asking());
    // read while it is asked: held, the dialog undisturbed
    assert!(l.read(&mut c, &mut w, said(msg(result())), 1).is_empty());
    assert!(
        l.next(&mut c, &mut w, 1).is_none(),
        "held while the dialog is open"
    );
    assert_eq!(end(&out), None, "not while the person is asked");
    // ticks while asking change nothing
    assert!(c.step(&mut w, Event::Tick, 2).is_empty());
    // Esc: denied, and the turn is to stop
    let out = c.step(&mut w, special(KeyCode::Esc, KeyModifiers::NONE), 3);
    assert!(text(&out).contains("interrupting the turn"));
    assert_eq!(
        text(&out).matches("denied").count(),
        1,
        "said once: {out:?}"
    );
    assert!(out.contains(&Effect::Raw(false)));
    assert!(matches!(
        replied(&out),
        Some(claudio::PermissionResult::Deny {
            interrupt: true,
            ..
        })
    ));
    assert_eq!(end(&out), None);
    // the held result is taken in now: the turn ends
    let out = l.next(&mut c, &mut w, 4).expect("the result was held");
    assert_eq!(end(&out), Some(&WorkEnd::Done));
}

/// While a dialog is open the CLI is still read: a sub-agent's progress
/// and a second request are held, the dialog undisturbed; once it is
/// answered they are taken in, in their order, and the second request is
/// opened in its turn (#42.1).
#[test]
fn what_the_cli_says_while_a_dialog_is_open_is_held_then_taken_in_order() {
    let mut c = Chat::new();
    let mut w = c.turn();
    let mut l = Loop::new();
    l.read(&mut c, &mut w, Said::Asks("Bash"), 1);
    let progress = msg(json!({"type":"assistant","message":{"id":"m2","content":[
        {"type":"text","text":"sub-agent progress"}]}}));
    for e in [
        said(progress),
        Said::Asks("Second"),
        said(Event::LongLine(9)),
    ] {
        assert!(
            l.read(&mut c, &mut w, e, 2).is_empty(),
            "the dialog is not disturbed"
        );
    }
    assert!(w.asking());
    assert_eq!(l.opened, ["Bash"], "the second is not made yet");
    assert!(l.next(&mut c, &mut w, 2).is_none());
    c.step(&mut w, key('y'), 3);
    let out = c.step(&mut w, special(KeyCode::Enter, KeyModifiers::NONE), 3);
    assert!(matches!(
        replied(&out),
        Some(claudio::PermissionResult::Allow { .. })
    ));
    // the progress first
    let out = l.next(&mut c, &mut w, 4).expect("the progress");
    assert!(text(&out).contains("sub-agent progress"), "{out:?}");
    assert_eq!(l.opened, ["Bash"], "made only when its turn comes");
    // then the second request: its dialog made and asked in one step,
    // nothing after it taken in until it is answered
    let out = l.next(&mut c, &mut w, 5).expect("the second request");
    assert!(text(&out).ends_with("Allow? "), "{out:?}");
    assert_eq!(l.opened, ["Bash", "Second"]);
    assert!(w.asking());
    assert!(l.next(&mut c, &mut w, 6).is_none(), "its dialog is open");
    let out = c.step(&mut w, Event::Withdrawn, 7);
    assert!(text(&out).contains("withdrawn"), "{out:?}");
    assert!(matches!(
        out.iter().find(|e| matches!(e, Effect::Reply("Second", _))),
        Some(Effect::Reply(_, claudio::PermissionResult::Deny { .. }))
    ));
    let out = l.next(&mut c, &mut w, 8).expect("the long line");
    assert!(text(&out).contains("skipped a message longer than 9 bytes"));
    assert!(l.next(&mut c, &mut w, 9).is_none());
}

/// A request passes the machine once (#42.1): it is stepped in with its
/// dialog, as it opens, whether at once or held behind another; the
/// machine never hands it back but in its answer.
#[test]
fn a_request_passes_the_machine_once_and_comes_back_only_answered() {
    let mut c = Chat::new();
    let mut w = c.turn();
    let mut l = Loop::new();
    let mut all = Vec::new();
    all.extend(l.read(&mut c, &mut w, Said::Asks("First"), 1));
    assert_eq!(l.steps, 1, "one step opens it");
    all.extend(l.read(&mut c, &mut w, Said::Asks("Second"), 2));
    all.extend(l.read(&mut c, &mut w, Said::Asks("Third"), 2));
    assert_eq!(l.steps, 1, "held: the machine is not stepped");
    for (i, name) in ["First", "Second", "Third"].into_iter().enumerate() {
        let ms = 10 * (i as u64 + 1);
        let before = l.steps;
        all.extend(c.step(&mut w, key('n'), ms));
        let out = c.step(&mut w, special(KeyCode::Enter, KeyModifiers::NONE), ms);
        assert!(
            matches!(
                out.iter().find_map(|e| match e {
                    Effect::Reply(r, _) => Some(*r),
                    _ => None,
                }),
                Some(r) if r == name
            ),
            "{name} answered in order: {out:?}"
        );
        all.extend(out);
        if let Some(out) = l.next(&mut c, &mut w, ms + 1) {
            assert_eq!(l.steps, before + 1, "the next opens in one step");
            assert!(text(&out).ends_with("Allow? "), "{out:?}");
            all.extend(out);
        }
    }
    assert_eq!(l.opened, ["First", "Second", "Third"]);
    assert_eq!(l.steps, 3, "one step a request");
    // the only effects that name a request are their answers, one each
    let named: Vec<_> = all
        .iter()
        .filter_map(|e| match e {
            Effect::Reply(r, _) => Some(*r),
            Effect::Write(_)
            | Effect::SendNow(_)
            | Effect::Interrupt
            | Effect::Raw(_)
            | Effect::RestoreKeys
            | Effect::End(_) => None,
        })
        .collect();
    assert_eq!(named, ["First", "Second", "Third"]);
}

/// What is held while a dialog is open is bounded: at the bound the loop
/// reads no more (the CLI waits), and once answered it reads again.
#[test]
fn what_is_held_is_bounded() {
    let mut c = Chat::new();
    let mut w = c.turn();
    let mut l = Loop::new();
    l.read(&mut c, &mut w, Said::Asks("Bash"), 1);
    let progress = json!({"type":"system","subtype":"task_progress","task_id":"a1",
        "description":"working"});
    for i in 0..crate::cli::turn::events::HELD_MAX {
        assert!(!l.inbox.full(), "full after {i}");
        l.read(&mut c, &mut w, said(msg(progress.clone())), 2);
    }
    assert!(l.inbox.full());
    c.step(&mut w, key('n'), 3);
    c.step(&mut w, special(KeyCode::Enter, KeyModifiers::NONE), 3);
    while l.next(&mut c, &mut w, 4).is_some() {}
    assert!(!l.inbox.full());
}

/// What is held while a dialog is open is bounded in bytes too, as the
/// library's queue is: lines of 1 MiB (a sub-agent's image, a file it
/// read) fill it at `HELD_BYTES`, and taking one in makes room. Bounded in
/// things alone, 1,024 lines of up to 256 MiB each were held.
#[test]
fn what_is_held_is_bounded_in_bytes() {
    use crate::cli::turn::events::HELD_BYTES;
    let mut inbox: Inbox<&'static str> = Inbox::new(Default::default());
    let line = 1 << 20;
    let progress = json!({"type":"system","subtype":"task_progress","task_id":"a1",
        "description":"working"});
    for i in 0..HELD_BYTES / line {
        assert!(!inbox.full(), "full after {i} lines of 1 MiB");
        assert!(inbox
            .take_sized(said(msg(progress.clone())), line, true)
            .is_none());
    }
    assert!(inbox.full());
    assert!(inbox.next(false).is_some());
    assert!(!inbox.full(), "one taken in makes room");
    // one line past the bound is held whole, and its bytes go with it
    assert!(inbox
        .take_sized(said(msg(progress.clone())), 64 * line, true)
        .is_none());
    assert!(inbox.full());
    let held = HELD_BYTES / line;
    for _ in 0..held {
        assert!(inbox.next(false).is_some());
    }
    assert!(!inbox.full());
    assert!(inbox.next(false).is_none());
}

/// What was held after the turn's result is not lost when the turn ends
/// with it: the next work takes it in first.
#[test]
fn what_was_held_after_the_result_goes_to_the_next_work() {
    let mut c = Chat::new();
    let mut w = c.turn();
    let mut l = Loop::new();
    l.read(&mut c, &mut w, Said::Asks("Bash"), 1);
    let after = msg(
        json!({"type":"system","subtype":"task_started","task_id":"a9",
        "tool_use_id":"t9","description":"late agent","is_backgrounded":true}),
    );
    for e in [said(msg(result())), said(after), Said::Asks("Late")] {
        assert!(l.read(&mut c, &mut w, e, 2).is_empty());
    }
    c.step(&mut w, key('n'), 3);
    c.step(&mut w, special(KeyCode::Enter, KeyModifiers::NONE), 3);
    let out = l.next(&mut c, &mut w, 4).expect("the result");
    assert_eq!(end(&out), Some(&WorkEnd::Done));
    // the loop stops at the end: the rest is the next work's
    let left = l.inbox.held_over();
    assert_eq!(left.len(), 2, "{left:?}");
    let mut next = c.turn();
    let mut l = Loop {
        inbox: Inbox::new(left),
        opened: Vec::new(),
        steps: 0,
    };
    l.next(&mut c, &mut next, 5).expect("the agent's start");
    assert_eq!(c.session.agents_running(), 1);
    let out = l.next(&mut c, &mut next, 6).expect("the late request");
    assert!(text(&out).ends_with("Allow? "), "{out:?}");
    assert_eq!(l.opened, ["Late"]);
}

/// The session ending while a dialog is open closes it, denied, and then
/// ends the turn.
#[test]
fn the_session_ending_while_asking_closes_the_dialog_then_the_turn() {
    let mut c = Chat::new();
    let mut w = c.turn();
    let mut l = Loop::new();
    l.read(&mut c, &mut w, Said::Asks("Bash"), 1);
    let out = l.read(&mut c, &mut w, said(Event::Closed), 2);
    assert!(text(&out).contains("withdrawn"), "{out:?}");
    assert!(matches!(
        replied(&out),
        Some(claudio::PermissionResult::Deny { .. })
    ));
    assert_eq!(end(&out), None);
    let out = l.next(&mut c, &mut w, 3).expect("the end");
    assert_eq!(end(&out), Some(&WorkEnd::SessionLost));
}

#[test]
fn keys_answer_the_open_request_not_the_type_ahead() {
    let mut c = Chat::new();
    let mut w = c.turn();
    for ch in "later".chars() {
        c.step(&mut w, key(ch), 1);
    }
    c.step(&mut w, request(), 2);
    assert!(c
        .step(&mut w, key('y'), 3)
        .iter()
        .all(|e| !matches!(e, Effect::Reply(..))));
    let out = c.step(&mut w, special(KeyCode::Enter, KeyModifiers::NONE), 3);
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
fn a_request_answered_in_the_deck_closes_its_dialog_saying_so() {
    let mut c = Chat::new();
    let mut w = c.turn();
    c.step(&mut w, request(), 1);
    assert!(w.asking());
    let out = c.step(&mut w, Event::AnsweredElsewhere { given: None }, 2);
    let shown = text(&out);
    assert!(shown.contains("answered in the deck"), "{shown}");
    assert!(!shown.contains("withdrawn"), "{shown}");
    assert!(!w.asking());
    // keys after it are the type-ahead's, not an answer
    let out = c.step(&mut w, key('y'), 3);
    assert_eq!(replied(&out), None);
    assert_eq!(end(&c.step(&mut w, msg(result()), 4)), Some(&WorkEnd::Done));
}

#[test]
fn a_request_withdrawn_while_it_is_asked_is_denied_and_the_turn_goes_on() {
    let mut c = Chat::new();
    let mut w = c.turn();
    c.step(&mut w, request(), 1);
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
    assert_eq!(end(&c.step(&mut w, msg(result()), 3)), Some(&WorkEnd::Done));
    // the terminal going away while asking: denied, never allowed
    let mut w = c.turn();
    c.step(&mut w, request(), 4);
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
        Some(&WorkEnd::SessionLost)
    );
    let mut w = c.turn();
    let out = c.step(&mut w, Event::Failed(claudio::Error::Closed), 3);
    assert!(matches!(end(&out), Some(WorkEnd::Failed(_))), "{out:?}");
    // an OS error keeps its reason
    let mut w = c.turn();
    let broken = claudio::Error::Io(std::io::Error::from_raw_os_error(32));
    let out = c.step(&mut w, Event::Failed(broken), 4);
    match end(&out) {
        Some(WorkEnd::Failed(why)) => {
            // the error itself, its kind and its reason kept
            assert!(
                matches!(why, claudio::Error::Io(e) if e.kind() == std::io::ErrorKind::BrokenPipe),
                "{why:?}"
            );
            let said = crate::cli::common::exit::with_causes(why);
            assert!(said.contains("Broken pipe"), "{said}");
        }
        other => panic!("{other:?}"),
    }
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
    assert_eq!(c.session.agents_running(), 1);
}

fn at_work(c: &mut Chat, ms: u64) -> (Machine<&'static str>, Vec<Effect<&'static str>>) {
    let now = c.at(ms);
    Machine::at_work(&mut c.parts(), "› ".into(), now)
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
    assert_eq!(end(&out), Some(&WorkEnd::Done));
}

#[test]
fn with_no_agent_left_the_prompt_comes_back_after_the_settle_time() {
    let mut c = Chat::new();
    let (mut w, out) = at_work(&mut c, 0);
    assert_eq!(end(&out), None);
    let settle = SETTLE.as_millis() as u64;
    assert_eq!(end(&c.step(&mut w, Event::Tick, settle - 1)), None);
    assert_eq!(
        end(&c.step(&mut w, Event::Tick, settle)),
        Some(&WorkEnd::Done)
    );
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
    assert_eq!(end(&out), Some(&WorkEnd::Done));
    assert_eq!(c.ahead.queued, ["go"]);

    let mut c = Chat::new();
    agent_left_working(&mut c);
    let (mut w, _) = at_work(&mut c, 10);
    let out = c.step(
        &mut w,
        special(KeyCode::Char('d'), KeyModifiers::CONTROL),
        20,
    );
    assert_eq!(end(&out), Some(&WorkEnd::Quit(Exit::Success)));
}

#[test]
fn between_prompts_requests_are_asked_and_nothing_ends_meanwhile() {
    let mut c = Chat::new();
    let (mut w, _) = at_work(&mut c, 0);
    let out = c.step(&mut w, request(), 1);
    assert!(w.asking(), "{out:?}");
    // past the settle time, but a question is open
    let settle = SETTLE.as_millis() as u64;
    assert_eq!(end(&c.step(&mut w, Event::Tick, 1 + settle * 2)), None);
    let answered = 2 + settle * 2;
    c.step(&mut w, key('n'), answered);
    let out = c.step(
        &mut w,
        special(KeyCode::Enter, KeyModifiers::NONE),
        answered,
    );
    assert!(replied(&out).is_some());
    assert_eq!(end(&out), None, "the settle time starts again");
    let out = c.step(&mut w, Event::Tick, answered + settle - 1);
    assert_eq!(end(&out), None);
    let out = c.step(&mut w, Event::Tick, answered + settle);
    assert_eq!(end(&out), Some(&WorkEnd::Done));
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

fn mode_status(mode: &str) -> Event<&'static str> {
    msg(json!({"type":"system","subtype":"status","permissionMode":mode}))
}

#[test]
fn shift_tab_asks_a_request_that_comes_before_the_confirmation() {
    let mut c = Chat::new();
    let (mut w, out) = Machine::mode(PermissionMode::AcceptEdits, c.at(0));
    assert_eq!(end(&out), None);
    // the CLI asks something in the instant after it said yes
    let out = c.step(&mut w, request(), 1);
    assert!(w.asking(), "the request is asked: {out:?}");
    assert!(text(&out).contains("Allow?"), "{out:?}");
    c.step(&mut w, key('y'), 200);
    let out = c.step(&mut w, special(KeyCode::Enter, KeyModifiers::NONE), 200);
    assert!(
        matches!(replied(&out), Some(claudio::PermissionResult::Allow { .. })),
        "{out:?}"
    );
    assert_eq!(end(&out), None, "the confirmation is still awaited");
    let out = c.step(&mut w, mode_status("acceptEdits"), 300);
    assert_eq!(end(&out), Some(&WorkEnd::Done));
    assert_eq!(c.session.state.mode_name(), "acceptEdits");

    // long past the wait: the question stays open until it is answered
    let mut c = Chat::new();
    let (mut w, _) = Machine::mode(PermissionMode::Plan, c.at(0));
    c.step(&mut w, request(), 1);
    assert_eq!(end(&c.step(&mut w, Event::Tick, 5000)), None);
    c.step(&mut w, key('n'), 5001);
    let out = c.step(&mut w, special(KeyCode::Enter, KeyModifiers::NONE), 5001);
    assert!(replied(&out).is_some(), "{out:?}");
    assert_eq!(end(&out), Some(&WorkEnd::Done));
    assert_eq!(c.session.state.mode_name(), "plan");
}

#[test]
fn shift_tab_without_a_confirmation_takes_the_mode_as_switched() {
    let mut c = Chat::new();
    let (mut w, _) = Machine::mode(PermissionMode::Plan, c.at(0));
    let wait = MODE_WAIT.as_millis() as u64;
    assert_eq!(end(&c.step(&mut w, Event::Tick, wait - 1)), None);
    assert_eq!(
        end(&c.step(&mut w, Event::Tick, wait)),
        Some(&WorkEnd::Done)
    );
    assert_eq!(c.session.state.mode_name(), "plan");
}

#[test]
fn shift_tab_shows_what_goes_wrong_meanwhile() {
    let mut c = Chat::new();
    let (mut w, _) = Machine::mode(PermissionMode::Plan, c.at(0));
    let out = c.step(&mut w, Event::LongLine(1024), 1);
    assert!(text(&out).contains("skipped a message longer than 1024 bytes"));
    assert_eq!(end(&out), None);
    let out = c.step(&mut w, Event::Failed(claudio::Error::Closed), 2);
    assert!(matches!(end(&out), Some(WorkEnd::Failed(_))), "{out:?}");
    let (mut w, _) = Machine::mode(PermissionMode::Plan, c.at(0));
    let out = c.step(&mut w, Event::Closed, 3);
    assert_eq!(end(&out), Some(&WorkEnd::SessionLost));
}

#[test]
fn ctrl_d_during_a_turn_does_not_end_the_wait_for_agents_after_it() {
    let mut c = Chat::new();
    let mut w = c.turn();
    c.step(
        &mut w,
        special(KeyCode::Char('d'), KeyModifiers::CONTROL),
        1,
    );
    for m in [
        json!({"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"task1","name":"Agent","input":{"description":"count files","prompt":"count"}}]}}),
        json!({"type":"system","subtype":"task_started","task_id":"a1","tool_use_id":"task1","description":"count files","is_backgrounded":true}),
        result(),
    ] {
        c.step(&mut w, msg(m), 5);
    }
    assert!(w.ended());
    let (_, out) = at_work(&mut c, 10);
    assert_eq!(end(&out), None, "{out:?}");
}

#[test]
fn ctrl_d_left_from_the_turn_ends_the_wait_for_agents() {
    let mut c = Chat::new();
    agent_left_working(&mut c);
    let (mut w, _) = at_work(&mut c, 10);
    let out = c.step(&mut w, Event::Eof, 11);
    assert_eq!(end(&out), Some(&WorkEnd::Quit(Exit::Success)));
    // in a turn it is nothing
    let mut w = c.turn();
    assert_eq!(end(&c.step(&mut w, Event::Eof, 12)), None);
}

/// A tool's time starts when it is allowed to run, not when the model
/// asked for it: 5 s of deciding are not the tool's (issue 33.6).
#[test]
fn a_tool_s_time_leaves_out_the_deciding() {
    let mut c = Chat::new();
    let mut w = c.turn();
    c.step(
        &mut w,
        msg(
            json!({"type":"assistant","message":{"id":"m1","role":"assistant","content":[
            {"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]}}),
        ),
        0,
    );
    let ask = request_of(Some("toolu_1"));
    c.step(&mut w, ask, 10);
    c.step(&mut w, key('y'), 5_000);
    let out = c.step(&mut w, special(KeyCode::Enter, KeyModifiers::NONE), 5_000);
    assert!(replied(&out).is_some(), "{out:?}");
    let out = c.step(
        &mut w,
        msg(json!({"type":"user","message":{"role":"user","content":[
            {"type":"tool_result","tool_use_id":"toolu_1","content":"a\nb"}]}})),
        5_300,
    );
    let shown = text(&out);
    assert!(shown.contains("0.3s"), "{shown:?}");
    assert!(!shown.contains("5.3s"), "{shown:?}");
}

#[test]
fn the_turn_shows_its_status_line_from_the_start_to_the_result() {
    let mut c = Chat::new();
    let t0 = c.t0;
    let (mut w, first) = Machine::<&'static str>::turn(&mut c.parts(), t0);
    assert!(
        text(&first).contains("Working · 0s · Esc to interrupt"),
        "{first:?}"
    );
    // a text-only stream, paused mid-row: the line still ticks, under it
    let delta = json!({"type":"stream_event","event":{"type":"content_block_delta","index":0,
        "delta":{"type":"text_delta","text":"half a row "}}});
    let out = c.step(&mut w, msg(delta), 100);
    assert!(text(&out).contains("half a row"), "{out:?}");
    let out = c.step(&mut w, Event::Tick, 3100);
    assert!(text(&out).contains("Working · 3s"), "{out:?}");
    // a prompt typed meanwhile shows under it at once
    for ch in "next".chars() {
        c.step(&mut w, key(ch), 3200);
    }
    let out = c.step(&mut w, special(KeyCode::Enter, KeyModifiers::NONE), 3300);
    assert!(text(&out).contains("› next  · queued"), "{out:?}");
    // Ctrl-C: the line says the turn is being interrupted
    c.step(&mut w, Event::CtrlC, 3400);
    let out = c.step(&mut w, Event::Tick, 3500);
    assert!(text(&out).contains("Interrupting · 3s"), "{out:?}");
    assert!(!text(&out).contains("Esc to interrupt"), "{out:?}");
    let out = c.step(&mut w, msg(result()), 4000);
    assert_eq!(end(&out), Some(&WorkEnd::Done));
    assert!(!text(&out).contains("Working"), "{out:?}");
    assert!(!c.renderer.has_live(&c.session), "nothing left to tick");
}

/// A request whose question was made while keys were read: those keys
/// are typed ahead, never its answer; the question waits for its own.
fn request_typed_before(typed: &str) -> Event<&'static str> {
    let Event::Request {
        request, dialog, ..
    } = request()
    else {
        unreachable!()
    };
    let typed_before = typed
        .chars()
        .map(|ch| {
            let code = if ch == '\r' {
                KeyCode::Enter
            } else {
                KeyCode::Char(ch)
            };
            TermEvent::Key(KeyEvent::new(code, KeyModifiers::NONE))
        })
        .collect();
    Event::Request {
        typed_before,
        request,
        dialog,
    }
}

#[test]
fn keys_typed_before_a_question_is_drawn_answer_nothing() {
    let mut c = Chat::new();
    let mut w = c.turn();
    let out = c.step(&mut w, request_typed_before("y\r"), 1);
    assert!(replied(&out).is_none(), "{out:?}");
    assert!(text(&out).ends_with("Allow? "), "{out:?}");
    assert_eq!(c.ahead.queued, ["y"], "typed ahead");
    c.step(&mut w, key('n'), 2);
    let out = c.step(&mut w, special(KeyCode::Enter, KeyModifiers::NONE), 3);
    assert!(
        matches!(replied(&out), Some(claudio::PermissionResult::Deny { .. })),
        "{out:?}"
    );
    // between prompts, a prompt finished by them ends nothing: the
    // request is still asked
    let mut c = Chat::new();
    agent_left_working(&mut c);
    let (mut w, _) = at_work(&mut c, 10);
    let out = c.step(&mut w, request_typed_before("next\r"), 20);
    assert_eq!(end(&out), None, "{out:?}");
    assert!(w.asking(), "the question is asked");
    assert_eq!(c.ahead.queued, ["next"]);
}

/// Esc while Claude works interrupts the turn, as in the claude TUI; a
/// second Esc neither interrupts again nor quits (#40.1).
#[test]
fn esc_interrupts_the_turn_and_never_quits() {
    let mut c = Chat::new();
    let mut w = c.turn();
    let out = c.step(&mut w, special(KeyCode::Esc, KeyModifiers::NONE), 10);
    assert!(out.contains(&Effect::Interrupt), "{out:?}");
    assert!(text(&out).contains("interrupting…"), "{out:?}");
    assert!(!text(&out).contains("again to quit"), "{out:?}");
    let out = c.step(&mut w, special(KeyCode::Esc, KeyModifiers::NONE), 20);
    assert!(!out.contains(&Effect::Interrupt), "{out:?}");
    assert_eq!(end(&out), None);
    // Alt-x is a key of its own, not an Esc
    let out = c.step(&mut w, special(KeyCode::Char('x'), KeyModifiers::ALT), 30);
    assert!(!out.contains(&Effect::Interrupt), "{out:?}");
    // the interrupted turn ends with its first result
    let out = c.step(&mut w, msg(result()), 40);
    assert_eq!(end(&out), Some(&WorkEnd::Done));
}

/// An interrupt (Ctrl-C, Esc, Esc at a question) puts the queued prompts
/// back on the line, oldest first, before what was being typed: none is
/// sent by itself when the interrupted turn ends (#40.4).
#[test]
fn an_interrupt_puts_the_queued_prompts_back_on_the_line() {
    for how in ["ctrl-c", "esc", "esc at a question"] {
        let mut c = Chat::new();
        let mut w = c.turn();
        for ch in "one\rtwo\rdra".chars() {
            let k = match ch {
                '\r' => special(KeyCode::Enter, KeyModifiers::NONE),
                ch => key(ch),
            };
            c.step(&mut w, k, 1);
        }
        assert_eq!(c.ahead.queued, ["one", "two"]);
        let out = match how {
            "ctrl-c" => c.step(&mut w, Event::CtrlC, 2),
            "esc" => c.step(&mut w, special(KeyCode::Esc, KeyModifiers::NONE), 2),
            _ => {
                c.step(&mut w, request(), 2);
                c.step(&mut w, special(KeyCode::Esc, KeyModifiers::NONE), 3)
            }
        };
        assert!(c.ahead.queued.is_empty(), "{how}: {:?}", c.ahead.queued);
        assert_eq!(c.ahead.typed, "one\ntwo\ndra", "{how}");
        assert!(!text(&out).contains("· 2 queued"), "{how}: {out:?}");
        assert!(
            text(&out).contains("the queued prompts are back on the line"),
            "{how}: {out:?}"
        );
        assert!(text(&out).contains("› one two dra"), "{how}: {out:?}");
        let out = c.step(&mut w, msg(result()), 4);
        assert_eq!(end(&out), Some(&WorkEnd::Done), "{how}");
        assert!(c.ahead.queued.is_empty(), "{how}");
    }
}

/// Shift-Tab pressed again while the CLI confirms a switch is counted:
/// each press is a switch (#40.6).
#[test]
fn shift_tab_pressed_while_a_switch_is_confirmed_counts() {
    let mut c = Chat::new();
    let (mut w, _) = Machine::mode(PermissionMode::AcceptEdits, c.at(0));
    c.step(&mut w, special(KeyCode::BackTab, KeyModifiers::SHIFT), 1);
    c.step(&mut w, special(KeyCode::BackTab, KeyModifiers::SHIFT), 2);
    assert_eq!(c.ahead.cycles, 2);
    let out = c.step(&mut w, mode_status("acceptEdits"), 3);
    assert_eq!(end(&out), Some(&WorkEnd::Done));
    assert_eq!(c.ahead.cycles, 2, "owed to the prompt loop");
    // one pressed in the instant the wait ended counts too
    let shift_tab = TermEvent::Key(KeyEvent::new(KeyCode::BackTab, KeyModifiers::SHIFT));
    c.ahead.drain_after_turn(vec![shift_tab]);
    assert_eq!(c.ahead.cycles, 3);
    // in a turn, Shift-Tab types nothing and switches nothing
    let mut c = Chat::new();
    let mut w = c.turn();
    c.step(&mut w, special(KeyCode::BackTab, KeyModifiers::SHIFT), 1);
    assert_eq!(c.ahead.cycles, 0);
    assert!(c.ahead.typed.is_empty());
}

/// The CLI's internal diagnostics in a result's errors stay off the
/// screen (its TUI hides them too); other errors are said (#40.3).
#[test]
fn a_cli_diagnostic_in_a_result_is_not_shown() {
    let mut c = Chat::new();
    let mut w = c.turn();
    let out = c.step(
        &mut w,
        msg(json!({"type":"result","subtype":"error_during_execution","is_error":true,"num_turns":1,
            "errors":["[ede_diagnostic] result_type=user last_content_type=n/a stop_reason=tool_use",
                      "disk full"]})),
        10,
    );
    let shown = text(&out);
    assert!(
        shown.contains("✗ error_during_execution: disk full"),
        "{shown}"
    );
    assert!(!shown.contains("ede_diagnostic"), "{shown}");
    // under --verbose it is there
    let mut c = Chat::new();
    c.renderer.set_verbose(true);
    let mut w = c.turn();
    let out = c.step(
        &mut w,
        msg(
            json!({"type":"result","subtype":"error_during_execution","is_error":true,"num_turns":1,
            "errors":["[ede_diagnostic] result_type=user"]}),
        ),
        10,
    );
    assert!(
        text(&out).contains("[ede_diagnostic] result_type=user"),
        "{out:?}"
    );
}

/// Esc at a question is an interrupt: the error result the CLI ends the
/// turn with reads `⏹ interrupted` (#40.3).
#[test]
fn esc_at_a_question_ends_as_an_interrupt() {
    let mut c = Chat::new();
    let mut w = c.turn();
    c.step(&mut w, request(), 1);
    c.step(&mut w, special(KeyCode::Esc, KeyModifiers::NONE), 2);
    let out = c.step(
        &mut w,
        msg(
            json!({"type":"result","subtype":"error_during_execution","is_error":true,"num_turns":1,
            "errors":["[ede_diagnostic] result_type=user"]}),
        ),
        3,
    );
    let shown = text(&out);
    assert!(shown.contains("⏹ interrupted"), "{shown}");
    assert!(!shown.contains("✗"), "{shown}");
    assert_eq!(end(&out), Some(&WorkEnd::Done));
}

/// What `messages` write through the machine, step by step, beside what
/// each writes drawn whole ([`Renderer::show`] after [`Session::see`]), and
/// the most bytes one write held.
fn streamed_and_whole(messages: &[serde_json::Value]) -> (Vec<String>, Vec<String>, usize) {
    let mut c = Chat::new();
    let mut w = c.turn();
    let mut whole = Chat::new();
    let _ = whole.turn();
    let (mut streamed, mut drawn, mut most) = (Vec::new(), Vec::new(), 0);
    for (i, m) in messages.iter().enumerate() {
        let ms = 10 * (i as u64 + 1);
        let out = c.step(&mut w, msg(m.clone()), ms);
        for e in &out {
            if let Effect::Write(t) = e {
                most = most.max(t.len());
            }
        }
        streamed.push(text(&out));
        let parsed = Message::parse(m.to_string().as_bytes()).unwrap();
        let now = whole.at(ms);
        let seen = whole.session.see(&parsed, now);
        drawn.push(whole.renderer.show(seen, &whole.session, now));
    }
    (streamed, drawn, most)
}

/// One line of many text blocks is written as it is drawn, a piece of
/// about [`crate::cli::commands::chat::render::CHUNK`] bytes at a time, never drawn
/// whole first (#39.6: the chat held a line of 300,000 blocks six times
/// over); the bytes are those of the message drawn whole.
#[test]
fn a_message_of_many_blocks_is_written_in_pieces_and_the_same_bytes() {
    use crate::cli::commands::chat::render::CHUNK;
    let blocks: Vec<serde_json::Value> = (0..20_000)
        .map(|i| json!({"type":"text","text":format!("block {i} of text ")}))
        .collect();
    let m = json!({"type":"assistant","message":{"id":"m","content":blocks}});
    let (streamed, drawn, most) = streamed_and_whole(&[m]);
    assert!(drawn[0].len() > 4 * CHUNK, "{}", drawn[0].len());
    assert!(most < 2 * CHUNK, "one write of {most} bytes");
    assert!(streamed == drawn, "not the bytes drawn whole");
}

/// Text, calls, a thinking block, text again and the result: the same
/// bytes, written as drawn or drawn whole (what needs the session waits
/// for the message's end).
#[test]
fn text_calls_and_the_result_are_the_same_bytes_as_drawn_whole() {
    let content = json!([
        {"type":"text","text":"first **bold** words\n\n- a list"},
        {"type":"thinking","thinking":"hmm"},
        {"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}},
        {"type":"text","text":"after the call"},
    ]);
    let messages = [
        json!({"type":"assistant","message":{"id":"a","content":content}}),
        json!({"type":"user","message":{"role":"user","content":[
            {"type":"tool_result","tool_use_id":"t1","content":"one\ntwo"}]}}),
        json!({"type":"assistant","message":{"id":"b","content":[{"type":"text","text":"done"}]}}),
        result(),
    ];
    let (streamed, drawn, _) = streamed_and_whole(&messages);
    assert_eq!(streamed, drawn);
    assert!(streamed[1].contains("✓ Bash"), "{:?}", streamed[1]);
    assert!(streamed[3].contains("API call"), "{:?}", streamed[3]);
}

/// "No, and stop" (Esc) with requests queued behind the dialog: they are
/// the turn's, which the CLI withdraws as it stops. They wait for the
/// turn's end, with what came after them, in order, so none is asked a
/// moment before its withdrawal (it was drawn, offered to the deck and
/// notified, then said withdrawn).
#[test]
fn requests_behind_a_stop_wait_for_the_turn_s_end() {
    let mut inbox: Inbox<&'static str> = Inbox::new(Default::default());
    let shown = |s: &Option<Said<&'static str>>| match s {
        None => "nothing".to_owned(),
        Some(Said::Asks(name)) => format!("asks {name}"),
        Some(Said::Event(Event::Message(m))) => format!("{:?}", m.kind()),
        Some(Said::Event(e)) => format!("{e:?}"),
    };
    // read while the first dialog was open
    assert!(inbox.take(Said::Asks("Second"), true).is_none());
    inbox.stop_asked();
    assert_eq!(shown(&inbox.next(false)), "nothing", "asked before the end");
    let text = json!({"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"stopped"}]}});
    assert!(
        inbox.take(said(msg(text)), false).is_none(),
        "held behind it"
    );
    // a request that comes meanwhile waits too
    assert!(inbox.take(Said::Asks("Third"), false).is_none());
    assert_eq!(shown(&inbox.next(false)), "nothing");
    assert!(inbox.take(said(msg(result())), false).is_none());
    let order: Vec<String> = std::iter::from_fn(|| inbox.next(false).map(Some))
        .map(|s| shown(&s))
        .collect();
    assert_eq!(order.len(), 4, "{order:?}");
    assert_eq!(order[0], "asks Second");
    assert_eq!(order[2], "asks Third");
    assert!(order[3].contains("result"), "{order:?}");
    // the turn ended: a request now is taken at once
    assert!(matches!(
        inbox.take(Said::Asks("Fourth"), false),
        Some(Said::Asks("Fourth"))
    ));
    // nothing held when the stop is asked: the CLI's end ends the wait
    let mut inbox: Inbox<&'static str> = Inbox::new(Default::default());
    inbox.stop_asked();
    assert!(inbox.take(Said::Asks("Late"), false).is_none());
    assert!(inbox.take(said(Event::Closed), false).is_none());
    assert_eq!(shown(&inbox.next(false)), "asks Late");
    assert_eq!(shown(&inbox.next(false)), "Closed");
}

/// Ctrl-C as a signal (`kill -INT`: the terminal's key comes as a key while
/// a dialog is open) with more requests queued behind the open dialog: it
/// acts at once, as the key does there: the open dialog is denied and the
/// turn stops, and the requests queued are held for the turn's end, not
/// opened one by one. Before, it waited for the dialog's answer and for
/// every request queued after it.
#[test]
fn ctrl_c_as_a_signal_at_a_dialog_answers_it_as_the_key_does() {
    let key_c = special(KeyCode::Char('c'), KeyModifiers::CONTROL);
    let mut answers = Vec::new();
    for ctrl_c in [key_c, Event::CtrlC] {
        let mut c = Chat::new();
        let mut w = c.turn();
        let mut l = Loop::new();
        l.read(&mut c, &mut w, Said::Asks("Bash"), 1);
        assert!(l.read(&mut c, &mut w, Said::Asks("Second"), 1).is_empty());
        assert!(l.read(&mut c, &mut w, Said::Asks("Third"), 1).is_empty());
        let out = c.step(&mut w, ctrl_c, 2);
        l.replies(&out);
        assert!(!w.asking(), "answered at once: {out:?}");
        assert!(text(&out).contains("interrupting the turn"), "{out:?}");
        assert!(out.contains(&Effect::Raw(false)));
        let answer = replied(&out).expect("the open dialog is answered");
        assert!(
            matches!(
                answer,
                claudio::PermissionResult::Deny {
                    interrupt: true,
                    ..
                }
            ),
            "{answer:?}"
        );
        answers.push(format!("{answer:?}"));
        // the requests queued are not opened one by one
        assert!(l.next(&mut c, &mut w, 3).is_none());
        assert_eq!(l.opened, ["Bash"]);
        // the turn's end (the CLI stops): they are taken in after it
        assert!(l.read(&mut c, &mut w, said(msg(result())), 4).is_empty());
    }
    assert_eq!(answers[0], answers[1], "the signal answers as the key");
}

/// "No, and stop" given in the deck means what it means given in the
/// dialog: the dialog's reply carries it (the loop holds the requests
/// queued behind it for the turn's end, as after Esc), and the turn is
/// said to stop. Before, the deck's answer closed the dialog as if
/// withdrawn, and the requests queued behind it opened one by one.
#[test]
fn no_and_stop_from_the_deck_holds_the_queue_as_esc_does() {
    let stop = claudio::PermissionResult::deny_and_interrupt("stopped in the deck");
    let mut c = Chat::new();
    let mut w = c.turn();
    let mut l = Loop::new();
    l.read(&mut c, &mut w, Said::Asks("Bash"), 1);
    assert!(l.read(&mut c, &mut w, Said::Asks("Second"), 1).is_empty());
    let out = c.step(
        &mut w,
        Event::AnsweredElsewhere {
            given: Some(stop.clone()),
        },
        2,
    );
    l.replies(&out);
    let shown = text(&out);
    assert!(shown.contains("answered in the deck"), "{shown}");
    assert!(shown.contains("interrupting the turn"), "{shown}");
    assert_eq!(replied(&out), Some(&stop));
    assert!(!w.asking());
    // the request queued behind it is not asked before the turn's end
    assert!(l.next(&mut c, &mut w, 3).is_none());
    assert_eq!(l.opened, ["Bash"]);
    assert!(l.read(&mut c, &mut w, said(msg(result())), 4).is_empty());
    assert!(l.next(&mut c, &mut w, 5).is_some());
    assert_eq!(l.opened, ["Bash", "Second"]);
    // an allow from the deck: what follows is asked at once
    let mut c = Chat::new();
    let mut w = c.turn();
    let mut l = Loop::new();
    l.read(&mut c, &mut w, Said::Asks("Bash"), 1);
    assert!(l.read(&mut c, &mut w, Said::Asks("Second"), 1).is_empty());
    let allow = claudio::PermissionResult::allow();
    let out = c.step(
        &mut w,
        Event::AnsweredElsewhere {
            given: Some(allow.clone()),
        },
        2,
    );
    l.replies(&out);
    assert!(!text(&out).contains("interrupting"), "{out:?}");
    assert_eq!(replied(&out), Some(&allow));
    assert!(l.next(&mut c, &mut w, 3).is_some());
    assert_eq!(l.opened, ["Bash", "Second"]);
}

/// A chat drawing at `width` columns (as the chat sets its renderer's
/// width from the terminal's), on a screen 24 rows tall.
fn chat_at(width: usize) -> Chat {
    let mut c = Chat::new();
    c.renderer.set_width(width);
    c.renderer.set_height(24);
    c
}

/// A turn at `width` columns: a streamed answer, a tool call with its
/// spinner ticking, an approval answered, the call's result, the turn's
/// end; each step's writes go to a terminal `width` columns wide (a `\n`
/// starting its line at the first column, as the chat's does).
fn a_turn_drawn_at(width: usize, answer: &str, command: &str) -> vt100::Parser {
    let mut c = chat_at(width);
    let mut p = vt100::Parser::new(24, width as u16, 0);
    let draw = |p: &mut vt100::Parser, out: &[Effect<&'static str>]| {
        let mut t = text(out).replace("\r\n", "\n").replace('\n', "\r\n");
        if width == 1 {
            // a character two columns wide on a screen of one: no terminal
            // can show it (vt100 panics); it takes the one row, as the
            // chat counts it
            t = t
                .chars()
                .map(|c| match crate::cli::term::wrap::columns(c) {
                    2 => '?',
                    _ => c,
                })
                .collect();
        }
        p.process(t.as_bytes());
    };
    let t0 = c.t0;
    let (mut w, first) = Machine::turn(&mut c.parts(), t0);
    draw(&mut p, &first);
    let delta = |t: &str| {
        msg(
            json!({"type":"stream_event","event":{"type":"content_block_delta","index":0,
            "delta":{"type":"text_delta","text":t}}}),
        )
    };
    let half = answer
        .char_indices()
        .nth(answer.chars().count() / 2)
        .map_or(0, |(i, _)| i);
    let (a, b) = answer.split_at(half);
    // the approval, drawn at the width and sized to the screen as the
    // loop opens it
    let req: claudio::CanUseToolRequest = serde_json::from_value(json!({"tool_name":"Bash",
        "input":{"command":command},"description":"list the files"}))
    .unwrap();
    let here = crate::cli::turn::summary::Here::default();
    let frame = Frame::new(&req, None, None, &here, Style::plain());
    let approval = Approval::new(req.clone(), frame.shown(&req, width)).drawn_from(frame);
    let dialog = Box::new(Dialog::asking(Box::new(approval), Style::plain()).size(width, 24));
    let mut events = vec![
        msg(json!({"type":"stream_event","event":{"type":"message_start","message":{"id":"m1"}}})),
        delta(a),
        Event::Tick,
        delta(b),
        msg(json!({"type":"assistant","message":{"id":"m1","content":[
            {"type":"text","text":answer},
            {"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":command}}]}})),
    ];
    events.extend((0..5).map(|_| Event::Tick));
    events.push(Event::Request {
        typed_before: Vec::new(),
        request: "Bash",
        dialog,
    });
    events.push(key('y'));
    events.push(special(KeyCode::Enter, KeyModifiers::NONE));
    events.extend((0..3).map(|_| Event::Tick));
    events.push(msg(
        json!({"type":"user","message":{"role":"user","content":[
        {"type":"tool_result","tool_use_id":"toolu_1","content":"done"}]}}),
    ));
    events.push(Event::Tick);
    events.push(msg(result()));
    for (n, e) in events.into_iter().enumerate() {
        let out = c.step(&mut w, e, 80 * (n as u64 + 1));
        draw(&mut p, &out);
    }
    assert!(w.ended(), "the turn ended");
    p
}

/// Every width from 1 column: the chat draws a turn (a streamed answer, a
/// tool call with its spinner, an approval) without a panic, and each
/// live region it drew is erased whole: once the turn is over, no spinner
/// and no status line is left on the screen. Below 20 columns the chat
/// drew at 20: its rows wrapped on the terminal, the live region's erase
/// counted too few, and spinner and status rows were left on the screen.
#[test]
fn every_width_from_one_column_draws_a_turn_and_erases_its_live_region() {
    use proptest::prelude::*;
    let frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
    let check = |width: usize, answer: &str, command: &str| {
        let p = a_turn_drawn_at(width, answer, command);
        let screen = p.screen().contents();
        let left: Vec<char> = screen.chars().filter(|c| frames.contains(c)).collect();
        assert!(
            left.is_empty(),
            "at {width} columns, spinners left: {screen}"
        );
        assert!(!screen.contains("Working"), "at {width}: {screen}");
    };
    for width in 1..=40 {
        check(
            width,
            "the answer is forty-two, and here is why it is so",
            "ls -la",
        );
    }
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 200,
        failure_persistence: None,
        ..ProptestConfig::default()
    });
    runner
        .run(
            &(1usize..=40, "[a-z é日 ]{0,60}", "[a-z -]{1,40}"),
            |(width, answer, command)| {
                check(width, &answer, &command);
                Ok(())
            },
        )
        .unwrap();
}

/// Esc ("no, and stop") at the terminal in the moment the deck's allow
/// reached the CLI: the person's reply lost the race on the request's one
/// slot, the tool ran, and the loop stops the turn (`after_reply`). The
/// dialog's note said "denied"; the screen now says, under it, what
/// happened. (The race itself is the loop's; the state after it is this.)
#[test]
fn a_stop_that_lost_to_the_deck_s_allow_says_the_tool_ran() {
    let mut c = chat_at(80);
    let mut w = c.turn();
    let mut screen = vt100::Parser::new(24, 80, 0);
    let mut show = |out: &[Effect<&'static str>]| {
        let t = text(out).replace("\r\n", "\n").replace('\n', "\r\n");
        screen.process(t.as_bytes());
    };
    let request = request_of(Some("toolu_1"));
    show(&c.step(&mut w, request, 1));
    let out = c.step(&mut w, special(KeyCode::Esc, KeyModifiers::NONE), 2);
    show(&out);
    assert!(
        matches!(
            replied(&out),
            Some(claudio::PermissionResult::Deny {
                interrupt: true,
                ..
            })
        ),
        "{out:?}"
    );
    // the loop found the deck's allow taken first
    let given = claudio::PermissionResult::allow();
    let out = c.step(&mut w, Event::Overtaken { given }, 3);
    assert_eq!(replied(&out), None, "nothing more is answered: {out:?}");
    show(&out);
    let rows: Vec<String> = screen
        .screen()
        .rows(0, 80)
        .map(|r| r.trim_end().to_owned())
        .collect();
    let denied = rows.iter().position(|r| r == "  denied").expect("the note");
    assert_eq!(
        rows[denied + 1..denied + 3],
        [
            "  interrupting the turn",
            "  too late: the deck allowed it first, and the tool ran"
        ],
        "{rows:#?}"
    );
    // the deck's denial, and a request that ran no tool, say so too
    let stop = claudio::PermissionResult::deny_and_interrupt("stopped");
    assert_eq!(
        overtaken(&stop, true),
        "too late: the deck denied it first and stopped the turn"
    );
    let no = claudio::PermissionResult::deny("no");
    assert_eq!(overtaken(&no, true), "too late: the deck denied it first");
    let allow = claudio::PermissionResult::allow();
    assert_eq!(
        overtaken(&allow, false),
        "too late: the deck answered it first"
    );
}

/// `a` (this exact call, for the session: the CLI suggested no rule) at
/// the terminal in the moment the deck's answer reached the CLI: the
/// person's answer never reached it, so nothing of it is kept (as a rule
/// the CLI suggests, sent with the answer, is never kept then): the same
/// call is asked again, and the screen says so. An `a` that reached the
/// CLI keeps the call.
#[test]
fn an_allow_for_the_session_that_lost_to_the_deck_keeps_nothing() {
    let req: claudio::CanUseToolRequest =
        serde_json::from_value(json!({"tool_name":"Bash","input":{"command":"ls"}})).unwrap();
    for deck in [
        claudio::PermissionResult::deny("no"),
        claudio::PermissionResult::allow(),
    ] {
        let mut c = chat_at(80);
        let mut w = c.turn();
        c.step(&mut w, request(), 1);
        c.step(&mut w, key('a'), 2);
        let out = c.step(&mut w, special(KeyCode::Enter, KeyModifiers::NONE), 2);
        assert!(
            matches!(replied(&out), Some(claudio::PermissionResult::Allow { .. })),
            "{out:?}"
        );
        assert!(c.session.state.grants.allows(&req), "kept when answered");
        let out = c.step(
            &mut w,
            Event::Overtaken {
                given: deck.clone(),
            },
            3,
        );
        assert!(!c.session.state.grants.allows(&req), "{deck:?}: kept");
        let said = text(&out);
        assert!(
            said.contains("the same call will be asked again"),
            "{said:?}"
        );
    }
    // the answer reached the CLI (no `Overtaken`): the call stays allowed
    let mut c = chat_at(80);
    let mut w = c.turn();
    c.step(&mut w, request(), 1);
    c.step(&mut w, key('a'), 2);
    c.step(&mut w, special(KeyCode::Enter, KeyModifiers::NONE), 2);
    assert!(c.session.state.grants.allows(&req));
    // a plain `y` that lost says nothing of the session
    let mut c = chat_at(80);
    let mut w = c.turn();
    c.step(&mut w, request(), 1);
    c.step(&mut w, key('y'), 2);
    c.step(&mut w, special(KeyCode::Enter, KeyModifiers::NONE), 2);
    let given = claudio::PermissionResult::deny("no");
    let said = text(&c.step(&mut w, Event::Overtaken { given }, 3));
    assert!(!said.contains("asked again"), "{said:?}");
}
