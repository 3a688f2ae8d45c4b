//! The chat's front end for requests from the model: one request asked in
//! the chat's screen, as a state machine over the model of its kind
//! (`crate::cli::requests`: a tool approval, the model's questions, a plan,
//! each a [`Kind`]), with no arm for any one kind. Keys in, text to write
//! and, at the end, the answer out. No I/O: what needs the disk (a proposed
//! edit's diff) is read when the model is opened, before the dialog is
//! made, and the keys come from the chat's one loop, so a request withdrawn
//! while its picker is open, a resize or a paste are events like any other.

use super::keys::TermEvent;
use crate::cli::requests::{self, Asking, Input, Kind, Opened, Screen, WITHDRAWN};
use crate::cli::term::style::Style;
use claudio::{CanUseToolRequest, PermissionResult, Responder};

pub(super) use crate::cli::requests::{Done, Step};

/// A request from the CLI waiting for the person (any kind), and the
/// handle its answer goes through.
#[derive(Debug)]
pub(crate) struct PendingRequest {
    pub(crate) req: CanUseToolRequest,
    pub(crate) responder: Responder,
}

/// The request being asked, and where its answer stands.
#[derive(Debug)]
enum State {
    /// Asked through its kind's model.
    Asking(Box<dyn Kind>),
    /// Decided before it starts (no terminal, a request that cannot be
    /// read, a call allowed before): the note to show and the answer.
    Decided {
        note: String,
        result: Option<PermissionResult>,
    },
}

/// One request being asked.
#[derive(Debug)]
pub(super) struct Dialog {
    state: State,
    style: Style,
    width: usize,
    height: usize,
}

impl Dialog {
    fn of(state: State, style: Style) -> Dialog {
        Dialog {
            state,
            style,
            width: 80,
            height: 24,
        }
    }

    /// `req` asked through the model its kind registers
    /// ([`requests::registered`]), or decided at once when the model says
    /// so.
    pub(super) fn open(req: &CanUseToolRequest, at: &Asking<'_>) -> Dialog {
        match (requests::registered(req.kind()).open)(req, at) {
            Opened::Ask(kind) => Dialog::asking(kind, at.style),
            Opened::Decided { note, result } => Dialog::decided(note, result, at.style),
        }
    }

    /// A request asked through `kind`, its model.
    pub(super) fn asking(kind: Box<dyn Kind>, style: Style) -> Dialog {
        Dialog::of(State::Asking(kind), style)
    }

    /// Nobody to ask (no terminal): denied at once, saying so.
    pub(super) fn decided(note: String, result: PermissionResult, style: Style) -> Dialog {
        let state = State::Decided {
            note,
            result: Some(result),
        };
        Dialog::of(state, style)
    }

    fn screen(&self) -> Screen {
        Screen {
            style: self.style,
            width: self.width,
            height: self.height,
            reflows: crate::cli::term::console::reflows(),
        }
    }

    /// The tool call this dialog asks to run, when it asks that.
    pub(super) fn call(&self) -> Option<&str> {
        match &self.state {
            State::Asking(kind) => kind.call(),
            State::Decided { .. } => None,
        }
    }

    /// The screen changed under the dialog (the chat was stopped and
    /// brought back: a shell wrote meanwhile): what is where is no longer
    /// known, so nothing it drew is erased when it folds.
    pub(super) fn screen_changed(&mut self) {
        if let State::Asking(kind) = &mut self.state {
            kind.screen_changed(None);
        }
    }

    /// Whether it asks the person (not decided without them: withdrawn,
    /// granted before, no terminal).
    pub(super) fn asks(&self) -> bool {
        !matches!(self.state, State::Decided { .. })
    }

    /// The terminal's size, for drawing pickers.
    pub(super) fn size(mut self, width: usize, height: usize) -> Dialog {
        (self.width, self.height) = (width.max(1), height.max(6));
        self
    }

    /// Draw the first screen.
    pub(super) fn start(&mut self) -> Step {
        let at = self.screen();
        match &mut self.state {
            State::Asking(kind) => kind.start(&at),
            State::Decided { note, result } => Step {
                write: std::mem::take(note),
                done: result.take().map(Done::answer),
            },
        }
    }

    /// Take in a key, a paste or a resize.
    pub(super) fn input(&mut self, event: TermEvent) -> Step {
        let input = match event {
            TermEvent::Resize(w, h) => {
                (self.width, self.height) = ((w as usize).max(1), (h as usize).max(6));
                let at = self.screen();
                let write = match &mut self.state {
                    State::Asking(kind) => kind.resized(&at),
                    State::Decided { .. } => String::new(),
                };
                return Step { write, done: None };
            }
            TermEvent::Key(k) => Input::Key(k),
            TermEvent::Paste(text) => Input::Paste(text),
        };
        let at = self.screen();
        match &mut self.state {
            State::Asking(kind) => kind.input(input, &at),
            State::Decided { .. } => Step::default(),
        }
    }

    /// The terminal is gone: nothing was decided, so it is denied.
    pub(super) fn failed(&mut self) -> Step {
        let message = match &self.state {
            State::Asking(kind) => kind.failed(),
            State::Decided { .. } => "The permission prompt failed; nothing was allowed.",
        };
        let mut step = self.withdrawn();
        step.write = format!("\r\n  {}\n", self.style.red("denied (the prompt failed)"));
        step.done = Some(Done::answer(PermissionResult::deny(message)));
        step
    }

    /// The request was withdrawn (the CLI cancelled it): it ends, denied,
    /// saying so.
    pub(super) fn withdrawn(&mut self) -> Step {
        self.settled_elsewhere("withdrawn")
    }

    /// The request was settled without this dialog (withdrawn, answered
    /// in the deck): it closes, saying `how`. Its answer is never sent
    /// (the request takes no other).
    pub(super) fn settled_elsewhere(&mut self, how: &str) -> Step {
        self.answered_elsewhere(how, None)
    }

    /// The request was answered by its other holder (the deck) with
    /// `given` (`None`: not known): it closes, saying `how`, and its
    /// `Done` means what that answer means, as if given here: a denial
    /// that stops the turn stops it (the requests behind it wait for the
    /// turn's end). Its answer is never sent (the request took one).
    pub(super) fn answered_elsewhere(
        &mut self,
        how: &str,
        given: Option<PermissionResult>,
    ) -> Step {
        let mut write = match &mut self.state {
            State::Asking(kind) => kind.close(),
            State::Decided { .. } => String::new(),
        };
        write.push_str(&format!("  {}\n", self.style.dim(how)));
        let done = match given {
            Some(result) => Done {
                interrupt: stops_the_turn(&result),
                result,
                grant: None,
            },
            None => Done::answer(PermissionResult::deny(WITHDRAWN)),
        };
        Step {
            write,
            done: Some(done),
        }
    }
}

/// Whether an answer stops the turn ("no, and stop").
pub(super) fn stops_the_turn(result: &PermissionResult) -> bool {
    matches!(
        result,
        PermissionResult::Deny {
            interrupt: true,
            ..
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::requests::tool::{Approval, SessionGrants, Shown};
    use claudio::protocol::ask::RequestKind;
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use serde_json::json;

    fn key(c: KeyCode) -> TermEvent {
        TermEvent::Key(KeyEvent::new(c, KeyModifiers::NONE))
    }

    fn req(v: serde_json::Value) -> CanUseToolRequest {
        serde_json::from_value(v).unwrap()
    }

    /// `r` opened as the chat opens it (no grants, plain, from `agent`).
    fn open(r: &CanUseToolRequest, agent: Option<&str>) -> Dialog {
        let grants = SessionGrants::default();
        let cwd = std::env::temp_dir();
        let at = Asking {
            cwd: &cwd,
            agent: agent.map(str::to_owned),
            grants: &grants,
            style: Style::plain(),
            width: 80,
        };
        Dialog::open(r, &at)
    }

    /// A tool approval showing `shown`.
    fn tool(r: CanUseToolRequest, shown: Shown) -> Dialog {
        Dialog::asking(Box::new(Approval::new(r, shown)), Style::plain())
    }

    /// Every registered kind is asked and answered through the same
    /// dialog: its first screen, its keys, the answer its sample says; and
    /// each ends denied when withdrawn or when the terminal goes.
    #[test]
    fn every_kind_is_asked_and_answered_alike() {
        for &kind in RequestKind::ALL {
            let sample = (requests::registered(kind).sample)();
            let mut d = open(&sample.req, None);
            assert!(d.asks(), "{kind:?}");
            let s = d.start();
            assert!(plain(&s.write).contains(sample.shows), "{kind:?}: {s:?}");
            assert_eq!(s.done, None, "{kind:?}");
            let (last, keys) = sample.keys.split_last().unwrap();
            for k in keys {
                assert_eq!(d.input(term(k.clone())).done, None, "{kind:?}: {k:?}");
            }
            let done = d.input(term(last.clone())).done;
            assert_eq!(done.map(|d| d.result), Some(sample.result), "{kind:?}");

            let mut d = open(&sample.req, None);
            d.start();
            let s = d.withdrawn();
            assert!(s.write.contains("withdrawn"), "{kind:?}: {s:?}");
            assert_eq!(s.done.unwrap().result, PermissionResult::deny(WITHDRAWN));
            let mut d = open(&sample.req, None);
            d.start();
            let done = d.failed().done.unwrap();
            assert!(
                matches!(done.result, PermissionResult::Deny { .. }),
                "{kind:?}: {done:?}"
            );
        }
    }

    fn term(input: Input) -> TermEvent {
        match input {
            Input::Key(k) => TermEvent::Key(k),
            Input::Paste(t) => TermEvent::Paste(t),
        }
    }

    fn allow() -> Shown {
        Shown {
            folded: "Allow? ".into(),
            whole: None,
        }
    }

    fn plain(s: &str) -> String {
        crate::cli::term::wrap::strip_sgr(s)
    }

    fn typed(d: &mut Dialog, text: &str) -> Step {
        for c in text.chars() {
            let s = d.input(key(KeyCode::Char(c)));
            assert_eq!(s.done, None, "{c} alone decides nothing");
        }
        d.input(key(KeyCode::Enter))
    }

    #[test]
    fn a_tool_is_allowed_with_a_letter_and_enter_and_the_diff_unfolds_with_d() {
        let r = req(json!({"tool_name":"Bash","input":{"command":"ls"}}));
        let mut d = tool(
            r.clone(),
            Shown {
                folded: "Allow? ".into(),
                whole: Some("ALL OF IT Allow? ".into()),
            },
        );
        assert_eq!(d.start().write, "Allow? ");
        let s = typed(&mut d, "d");
        assert!(s.write.contains("ALL OF IT"), "{s:?}");
        assert_eq!(s.done, None);
        // once unfolded, `d` is a reason
        let s = typed(&mut d, "y");
        assert!(plain(&s.write).contains("allowed once"));
        assert!(
            !s.write.replace("\r\n", "").contains('\n'),
            "no bare newline: {s:?}"
        );
        let done = s.done.unwrap();
        assert!(matches!(done.result, PermissionResult::Allow { .. }));
        assert!(!done.interrupt && done.grant.is_none());

        // no rule suggested: `a` is this call only, and the chat is told to remember it
        let mut d = tool(r.clone(), allow());
        d.start();
        let s = typed(&mut d, "p");
        assert_eq!(s.done, None, "nothing to keep: asked again");
        assert!(s.write.contains("no rule"), "{s:?}");
        let s = typed(&mut d, "a");
        assert!(plain(&s.write).contains("this exact call again"), "{s:?}");
        let done = s.done.unwrap();
        assert_eq!(done.grant.as_deref(), Some(&r));
        let sent = done.result.to_response(&r.input);
        assert!(sent.get("updatedPermissions").is_none(), "{sent}");

        let mut d = tool(r, allow());
        d.start();
        let done = d.input(key(KeyCode::Esc)).done.unwrap();
        assert!(done.interrupt, "Esc denies and stops the turn");
    }

    #[test]
    fn a_skipped_question_is_no_preference_and_earlier_answers_stay() {
        let r = req(json!({"tool_name":"AskUserQuestion","input":{"questions":[
            {"question":"Which database?","header":"DB","multiSelect":false,
             "options":[{"label":"SQLite","description":""},{"label":"Postgres","description":""}]},
            {"question":"Tests?","header":"T","multiSelect":false,
             "options":[{"label":"Yes","description":""},{"label":"No","description":""}]}]}}));
        let mut d = open(&r, None);
        d.start();
        d.input(key(KeyCode::Char('1')));
        let s = d.input(key(KeyCode::Esc));
        assert!(s.write.contains("no preference"), "{s:?}");
        let PermissionResult::Allow { updated_input, .. } = s.done.unwrap().result else {
            panic!("a skip is an answer, not a refusal")
        };
        let answers = &updated_input.unwrap()["answers"];
        assert_eq!(answers["Which database?"], "SQLite");
        assert_eq!(answers["Tests?"], "[No preference]");
    }

    #[test]
    fn questions_are_picked_one_after_another() {
        let r = req(json!({"tool_name":"AskUserQuestion","input":{"questions":[
            {"question":"Which database?","header":"DB","multiSelect":false,
             "options":[{"label":"SQLite","description":"a file"},{"label":"Postgres","description":"a server"}]},
            {"question":"Tests?","header":"T","multiSelect":false,
             "options":[{"label":"Yes","description":""},{"label":"No","description":""}]}]}}));
        let mut d = open(&r, None);
        let s = d.start();
        assert!(
            s.write.contains("Which database?") && s.write.contains("SQLite"),
            "{s:?}"
        );
        let s = d.input(key(KeyCode::Char('2')));
        assert!(s.write.contains("? DB — Postgres"), "{s:?}");
        assert!(s.write.contains("Tests?"), "the next question: {s:?}");
        let s = d.input(key(KeyCode::Char('1')));
        let done = s.done.unwrap();
        let PermissionResult::Allow { updated_input, .. } = done.result else {
            panic!("{:?}", done.result)
        };
        let answers = &updated_input.unwrap()["answers"];
        assert_eq!(answers["Which database?"], "Postgres");
        assert_eq!(answers["Tests?"], "Yes");
    }

    /// What the dialog wrote, on a terminal of `rows` × `cols` (output
    /// processing on: `\n` starts a line), after a line of the chat's: the
    /// screen's rows.
    fn screen(writes: &[String], rows: u16, cols: u16) -> Vec<String> {
        let mut t = vt100::Parser::new(rows, cols, 0);
        t.process(b"> pick a db\r\n");
        for w in writes {
            t.process(w.replace("\r\n", "\n").replace('\n', "\r\n").as_bytes());
        }
        t.screen()
            .rows(0, cols)
            .map(|l| l.trim_end().to_owned())
            .collect()
    }

    /// The rows from `at` to the next blank one, trimmed, as one line.
    fn block(s: &[String], at: usize) -> String {
        s[at..]
            .iter()
            .take_while(|l| !l.is_empty())
            .map(|l| l.trim())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// A question on databases (`long`: one that wraps), then one on
    /// tests unless `alone`.
    fn db_questions(long: bool) -> CanUseToolRequest {
        let q = if long {
            "Which database should we use for the session store, given that it must run on a laptop with no server?"
        } else {
            "Which database?"
        };
        req(json!({"tool_name":"AskUserQuestion","input":{"questions":[
            {"question":q,"header":"Database","multiSelect":false,
             "options":[{"label":"SQLite","description":"one file, no server"},{"label":"Postgres","description":"a server"}]},
            {"question":"Tests?","header":"T","multiSelect":false,
             "options":[{"label":"Yes","description":""},{"label":"No","description":""}]}]}}))
    }

    fn db_question_alone(long: bool) -> CanUseToolRequest {
        let mut r = db_questions(long);
        if let Some(qs) = r.input["questions"].as_array_mut() {
            qs.truncate(1);
        }
        r
    }

    #[test]
    fn an_answered_question_collapses_to_one_line() {
        for (cols, long) in [(80, false), (20, true), (33, true)] {
            let mut d = open(&db_questions(long), None).size(cols, 30);
            let mut writes = vec![d.start().write];
            writes.push(d.input(key(KeyCode::Char('2'))).write);
            let s = screen(&writes, 30, cols as u16);
            assert_eq!(s[0], "> pick a db", "{cols}: {s:#?}");
            assert_eq!(s[1], "", "{cols}: {s:#?}");
            assert_eq!(block(&s, 2), "? Database — Postgres", "{cols}: {s:#?}");
            let rows = if cols < 23 { 2 } else { 1 };
            assert!(s[2].starts_with("  ? Database"), "{cols}: {s:#?}");
            assert!(
                !s.iter()
                    .any(|l| l.contains("SQLite") || l.contains("Which")),
                "{cols}: {s:#?}"
            );
            let next = 2 + rows + 1;
            assert!(
                s[next].starts_with("  ? T"),
                "the next question under it: {s:#?}"
            );
            // skipping the next one says so, in its place
            writes.push(d.input(key(KeyCode::Esc)).write);
            let s = screen(&writes, 30, cols as u16);
            assert_eq!(block(&s, 2), "? Database — Postgres", "{cols}: {s:#?}");
            assert_eq!(
                block(&s, next),
                "? T — skipped: the model is told you have no preference",
                "{cols}: {s:#?}"
            );
            assert!(!s.iter().any(|l| l.contains("Yes")), "{s:#?}");
        }
    }

    #[test]
    fn nothing_is_erased_when_the_question_scrolled_or_the_screen_was_resized() {
        // 12 rows: the long question and its options do not fit
        let mut d = open(&db_question_alone(true), None).size(20, 12);
        let mut writes = vec![d.start().write];
        writes.push(d.input(key(KeyCode::Char('2'))).write);
        let s = screen(&writes, 12, 20);
        assert!(s.iter().any(|l| l.contains("2. Postgres")), "{s:#?}");
        assert!(s.iter().any(|l| l == "  ✓ Postgres"), "{s:#?}");
        assert!(!s.iter().any(|l| l.contains("? Database —")), "{s:#?}");
        // a resize while asked: the options stay, the answer under them
        let mut d = open(&db_question_alone(false), None).size(80, 30);
        let mut writes = vec![d.start().write];
        d.input(TermEvent::Resize(80, 30));
        writes.push(d.input(key(KeyCode::Char('1'))).write);
        let s = screen(&writes, 30, 80);
        assert_eq!(s[0], "> pick a db", "{s:#?}");
        assert!(s.iter().any(|l| l.contains("1. SQLite")), "{s:#?}");
        assert!(s.iter().any(|l| l == "  ✓ SQLite"), "{s:#?}");
        // stopped and brought back (Ctrl-Z, fg): a shell may have written
        // under it, so nothing is erased either
        let mut d = open(&db_question_alone(false), None).size(80, 30);
        let mut writes = vec![d.start().write];
        d.screen_changed();
        writes.push(d.input(key(KeyCode::Char('1'))).write);
        let s = screen(&writes, 30, 80);
        assert_eq!(s[0], "> pick a db", "{s:#?}");
        assert!(s.iter().any(|l| l == "  ✓ SQLite"), "{s:#?}");
    }

    #[test]
    fn a_request_withdrawn_while_its_picker_is_open_is_denied_and_the_cursor_comes_back() {
        let r = req(json!({"tool_name":"ExitPlanMode","input":{"plan":"1. do it"}}));
        let mut d = open(&r, None);
        let s = d.start();
        assert!(s.write.contains("do it") && s.write.contains("\x1b[?25l"));
        d.input(key(KeyCode::Down));
        let s = d.withdrawn();
        assert!(
            s.write.contains(crate::cli::term::picker::SHOW_CURSOR)
                && s.write.contains("withdrawn")
        );
        assert_eq!(
            s.done.unwrap().result,
            PermissionResult::deny("The request was withdrawn.")
        );
    }

    #[test]
    fn unreadable_questions_and_nobody_to_ask_are_decided_at_once() {
        let r = req(json!({"tool_name":"AskUserQuestion","input":{"questions":"no"}}));
        let s = open(&r, None).start();
        assert!(s.write.contains("cannot read"));
        assert!(matches!(
            s.done.unwrap().result,
            PermissionResult::Deny { .. }
        ));
        let s = Dialog::decided(
            "no terminal\n".into(),
            PermissionResult::deny("x"),
            Style::plain(),
        )
        .start();
        assert_eq!(s.write, "no terminal\n");
        assert!(s.done.is_some());
    }

    #[test]
    fn a_plan_is_approved_from_its_picker() {
        let r = req(json!({"tool_name":"ExitPlanMode","input":{"plan":"the plan"}}));
        let mut d = open(&r, Some("helper"));
        let s = d.start();
        assert!(s.write.contains("(from helper)"), "{s:?}");
        let s = d.input(key(KeyCode::Char('1')));
        assert!(s.write.contains("✓"), "{s:?}");
        assert!(matches!(
            s.done.unwrap().result,
            PermissionResult::Allow { .. }
        ));
    }
}
