//! The chat's front end for requests from the model: one request asked in
//! the chat's screen, as a state machine over the models of
//! `crate::cli::requests` (a tool approval, the model's questions, a plan).
//! Keys in, text to write and, at the end, the answer out. No I/O: what
//! needs the disk (a proposed edit's diff) is read before the dialog is
//! made, and the keys come from the chat's one loop, so a request withdrawn
//! while its picker is open, a resize or a paste are events like any other.

use super::keys::TermEvent;
use crate::cli::picker::{InPlace, Picked};
use crate::cli::requests::question::{self, Questions};
use crate::cli::requests::tool::{self, Offer, Shown, ToolAnswer, ToolChoice};
use crate::cli::requests::{plan, WITHDRAWN};
use crate::cli::sanitize::Sanitizer;
use crate::cli::style::Style;
use crate::cli::wrap::wrap;
use claudio::{CanUseToolRequest, PermissionResult, Responder};

/// A request from the CLI waiting for the person (any kind), and the
/// handle its answer goes through.
#[derive(Debug)]
pub(crate) struct PendingRequest {
    pub(crate) req: CanUseToolRequest,
    pub(crate) responder: Responder,
}

/// The answer given, once the dialog is over.
#[derive(Debug, PartialEq)]
pub(super) struct Done {
    pub result: PermissionResult,
    /// The person chose to stop the turn too.
    pub interrupt: bool,
    /// The person allowed this exact call for the session (the CLI
    /// suggested no rule): the chat remembers it.
    pub grant: Option<Box<CanUseToolRequest>>,
}

impl Done {
    /// The answer, and nothing else to do.
    fn answer(result: PermissionResult) -> Done {
        Done {
            result,
            interrupt: false,
            grant: None,
        }
    }
}

/// What one step of a dialog gives.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Step {
    /// What to write to the screen.
    pub write: String,
    /// The answer, when the dialog is over.
    pub done: Option<Done>,
}

/// The request being asked, and where its answer stands.
#[derive(Debug)]
enum State {
    /// A tool approval: `y`, `a`, `n`, a reason, `d` for the whole diff.
    Tool {
        req: Box<CanUseToolRequest>,
        answer: Box<ToolAnswer>,
        /// The question with the whole diff, when the first one folds it.
        whole: Option<String>,
    },
    /// The model's questions, one picker each.
    Questions {
        questions: Questions,
        picker: Option<InPlace>,
        agent: Option<String>,
    },
    /// A plan to approve.
    Plan {
        input: serde_json::Value,
        picker: Option<InPlace>,
        /// The plan and the agent it is from, drawn at the start (at the
        /// terminal's width).
        plan: Option<String>,
        agent: Option<String>,
    },
    /// Decided before it starts (no terminal, a request that cannot be
    /// read): the note to show and the answer.
    Decided {
        note: String,
        result: Option<PermissionResult>,
    },
}

/// One request being asked.
#[derive(Debug)]
pub(super) struct Dialog {
    state: State,
    /// The first screen (the question, the plan, the tool call).
    first: String,
    style: Style,
    width: usize,
    height: usize,
}

impl Dialog {
    fn of(state: State, first: String, style: Style) -> Dialog {
        Dialog {
            state,
            first,
            style,
            width: 80,
            height: 24,
        }
    }

    /// The tool call this dialog asks to run, when it asks that.
    pub(super) fn call(&self) -> Option<&str> {
        match &self.state {
            State::Tool { req, .. } => req.tool_use_id.as_deref(),
            _ => None,
        }
    }

    /// The screen changed under the dialog (the chat was stopped and
    /// brought back: a shell wrote meanwhile): what is where is no longer
    /// known, so nothing it drew is erased when it folds.
    pub(super) fn screen_changed(&mut self) {
        self.picker_screen_changed(None);
    }

    fn picker_screen_changed(&mut self, size: Option<(usize, usize)>) {
        if let State::Questions {
            picker: Some(d), ..
        }
        | State::Plan {
            picker: Some(d), ..
        } = &mut self.state
        {
            d.screen_changed(size);
        }
    }

    /// A tool approval: its question as [`Shown`] (with the whole diff too
    /// when the first screen folds it).
    pub(super) fn tool(req: CanUseToolRequest, shown: Shown, style: Style) -> Dialog {
        let offer = Offer::of(&req);
        let state = State::Tool {
            req: Box::new(req),
            answer: Box::new(ToolAnswer::new(offer, shown.whole.is_some())),
            whole: shown.whole,
        };
        Dialog::of(state, shown.folded, style)
    }

    /// The model's questions; a request whose questions cannot be read is
    /// denied, saying so.
    pub(super) fn questions(
        req: &CanUseToolRequest,
        agent: Option<String>,
        style: Style,
    ) -> Dialog {
        match Questions::of(req) {
            Ok(questions) => Dialog::of(
                State::Questions {
                    questions,
                    picker: None,
                    agent,
                },
                String::new(),
                style,
            ),
            Err(denied) => Dialog::decided(
                format!(
                    "  {} the model asked questions claudio cannot read\n",
                    style.red("✗")
                ),
                denied,
                style,
            ),
        }
    }

    /// A plan to approve (`plan`: its text, as the model wrote it).
    pub(super) fn plan(
        req: &CanUseToolRequest,
        plan: Option<String>,
        agent: Option<&str>,
        style: Style,
    ) -> Dialog {
        let state = State::Plan {
            input: req.input.clone(),
            picker: None,
            plan,
            agent: agent.map(str::to_owned),
        };
        Dialog::of(state, String::new(), style)
    }

    /// Nobody to ask (no terminal): denied at once, saying so.
    pub(super) fn decided(note: String, result: PermissionResult, style: Style) -> Dialog {
        let state = State::Decided {
            note,
            result: Some(result),
        };
        Dialog::of(state, String::new(), style)
    }

    /// Whether it asks the person (not decided without them: withdrawn,
    /// granted before, no terminal).
    pub(super) fn asks(&self) -> bool {
        !matches!(self.state, State::Decided { .. })
    }

    /// The terminal's size, for drawing pickers.
    pub(super) fn size(mut self, width: usize, height: usize) -> Dialog {
        (self.width, self.height) = (width.max(20), height.max(6));
        self
    }

    /// Draw the first screen.
    pub(super) fn start(&mut self) -> Step {
        let mut step = Step {
            write: std::mem::take(&mut self.first),
            done: None,
        };
        match &mut self.state {
            State::Tool { .. } => {}
            State::Decided { note, result } => {
                step.write.push_str(note);
                step.done = result.take().map(Done::answer);
            }
            State::Questions { .. } => self.next_question(&mut step),
            State::Plan {
                picker,
                plan,
                agent,
                ..
            } => {
                step.write.push_str(&plan::block(
                    plan.as_deref(),
                    agent.as_deref(),
                    self.style,
                    self.width,
                ));
                let (drawn, text) =
                    InPlace::start(plan::picker(), self.style, self.width, self.height);
                step.write.push_str(&text);
                *picker = Some(drawn);
            }
        }
        step
    }

    /// The next question's head and picker, or the answers when all are in.
    fn next_question(&mut self, step: &mut Step) {
        let State::Questions {
            questions,
            picker,
            agent,
        } = &mut self.state
        else {
            return;
        };
        match questions.current() {
            Some(q) => {
                let head = questions.head(agent.as_deref(), self.style, self.width);
                step.write.push_str(&head);
                let (drawn, text) =
                    InPlace::start(question::picker(q), self.style, self.width, self.height);
                // the head's blank first line stays: the rest is the question's
                let drawn = drawn.owns_above(head.strip_prefix('\n').unwrap_or(&head));
                step.write.push_str(&text);
                *picker = Some(drawn);
            }
            None => step.done = questions.result().map(Done::answer),
        }
    }

    /// Take in a key, a paste or a resize.
    pub(super) fn input(&mut self, event: TermEvent) -> Step {
        let mut step = Step::default();
        if let TermEvent::Resize(w, h) = event {
            (self.width, self.height) = ((w as usize).max(20), (h as usize).max(6));
            self.picker_screen_changed(Some((self.width, self.height)));
            return step;
        }
        let style = self.style;
        let width = self.width;
        match &mut self.state {
            State::Decided { .. } => {}
            State::Tool { req, answer, whole } => {
                let (echo, choice) = match event {
                    TermEvent::Key(k) => answer.key(k),
                    TermEvent::Paste(text) => (answer.paste(&text), None),
                    TermEvent::Resize(..) => return step,
                };
                step.write = echo;
                let offer = answer.offer().clone();
                let (result, note, interrupt, grant) = match choice {
                    None => return step,
                    Some(ToolChoice::ShowWholeDiff) => {
                        // the whole diff, and the question again
                        if let Some(all) = whole.take() {
                            step.write.push_str("\r\n");
                            step.write.push_str(&all);
                        }
                        answer.reset(false);
                        return step;
                    }
                    Some(ToolChoice::NotOffered(why)) => {
                        let again = tool::ask_again(&why, &offer, style);
                        step.write.push_str("\r\n");
                        step.write.push_str(&again.replace('\n', "\r\n"));
                        answer.reset(whole.is_some());
                        return step;
                    }
                    Some(ToolChoice::Decided(d)) => {
                        let grant = d.grants_this_call(req).then(|| req.clone());
                        (d.result(req), d.styled_note(&offer, style), false, grant)
                    }
                    Some(ToolChoice::DenyAndStop) => (
                        PermissionResult::deny_and_interrupt(tool::DENIED_AND_STOPPED)
                            .classified(claudio::protocol::DecisionClassification::UserReject),
                        style.red("denied"),
                        true,
                        None,
                    ),
                };
                // a long note wraps under its indent, never to column 0
                for line in wrap(&note, width, "  ", "    ") {
                    step.write.push_str("\r\n");
                    step.write.push_str(&line);
                }
                step.write.push_str("\r\n");
                step.done = Some(Done {
                    result,
                    interrupt,
                    grant,
                });
            }
            State::Plan { input, picker, .. } => {
                let Some(picked) = picker.as_mut().and_then(|d| feed(d, event, &mut step)) else {
                    return step;
                };
                if let Some(d) = picker.as_mut() {
                    step.write.push_str(&d.settle());
                }
                let (result, note) = plan::result(&picked, input);
                let mark = if matches!(result, PermissionResult::Allow { .. }) {
                    style.green("✓")
                } else {
                    style.yellow("•")
                };
                step.write
                    .push_str(&format!("  {mark} {}\n", style.dim(note)));
                step.done = Some(Done::answer(result));
            }
            State::Questions {
                questions, picker, ..
            } => {
                let Some(picked) = picker.as_mut().and_then(|d| feed(d, event, &mut step)) else {
                    return step;
                };
                let (Some(mut d), Some(q)) = (picker.take(), questions.current()) else {
                    return step;
                };
                let answer = question::answer_of(q, &picked);
                // the question and its options make way for one line with
                // the answer, when what they took on the screen is known
                let line = question::answered(q, answer.as_deref(), style, width);
                match d.replace(&line) {
                    Some(text) => step.write.push_str(&text),
                    None => {
                        step.write.push_str(&d.settle());
                        let said = match &answer {
                            Some(a) => format!("{} {}", style.green("✓"), Sanitizer::clean(a)),
                            None => style.dim(question::SKIPPED),
                        };
                        step.write.push_str(&format!("  {said}\n"));
                    }
                }
                match answer {
                    Some(answer) => {
                        questions.answer(answer);
                        self.next_question(&mut step);
                    }
                    None => step.done = Some(Done::answer(questions.skip_rest())),
                }
            }
        }
        step
    }

    /// The terminal is gone: nothing was decided, so it is denied.
    pub(super) fn failed(&mut self) -> Step {
        let message = match self.state {
            State::Questions { .. } => "The question prompt failed; nothing was answered.",
            State::Plan { .. } => "The plan prompt failed; nothing was approved.",
            _ => "The permission prompt failed; nothing was allowed.",
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
        let mut step = Step::default();
        let open_picker = match &mut self.state {
            State::Questions { picker, .. } | State::Plan { picker, .. } => picker.take(),
            _ => None,
        };
        if let Some(d) = open_picker {
            step.write.push_str(&d.close());
        } else if matches!(self.state, State::Tool { .. }) {
            step.write.push_str("\r\n");
        }
        step.write.push_str(&format!("  {}\n", self.style.dim(how)));
        step.done = Some(Done::answer(PermissionResult::deny(WITHDRAWN)));
        step
    }
}

/// Feed a picker a key or a paste: what to write goes to `step`; the
/// choice, once made.
fn feed(d: &mut InPlace, event: TermEvent, step: &mut Step) -> Option<Picked> {
    let (text, picked) = match event {
        TermEvent::Key(k) => d.key(k),
        TermEvent::Paste(text) => (d.paste(&text), None),
        TermEvent::Resize(..) => (d.redraw(), None),
    };
    step.write.push_str(&text);
    picked
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use serde_json::json;

    fn key(c: KeyCode) -> TermEvent {
        TermEvent::Key(KeyEvent::new(c, KeyModifiers::NONE))
    }

    fn req(v: serde_json::Value) -> CanUseToolRequest {
        serde_json::from_value(v).unwrap()
    }

    fn allow() -> Shown {
        Shown {
            folded: "Allow? ".into(),
            whole: None,
        }
    }

    fn plain(s: &str) -> String {
        crate::cli::wrap::strip_sgr(s)
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
        let mut d = Dialog::tool(
            r.clone(),
            Shown {
                folded: "Allow? ".into(),
                whole: Some("ALL OF IT Allow? ".into()),
            },
            Style::plain(),
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
        let mut d = Dialog::tool(r.clone(), allow(), Style::plain());
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

        let mut d = Dialog::tool(r, allow(), Style::plain());
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
        let mut d = Dialog::questions(&r, None, Style::plain());
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
        let mut d = Dialog::questions(&r, None, Style::plain());
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
            let mut d = Dialog::questions(&db_questions(long), None, Style::plain()).size(cols, 30);
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
        let mut d = Dialog::questions(&db_question_alone(true), None, Style::plain()).size(20, 12);
        let mut writes = vec![d.start().write];
        writes.push(d.input(key(KeyCode::Char('2'))).write);
        let s = screen(&writes, 12, 20);
        assert!(s.iter().any(|l| l.contains("2. Postgres")), "{s:#?}");
        assert!(s.iter().any(|l| l == "  ✓ Postgres"), "{s:#?}");
        assert!(!s.iter().any(|l| l.contains("? Database —")), "{s:#?}");
        // a resize while asked: the options stay, the answer under them
        let mut d = Dialog::questions(&db_question_alone(false), None, Style::plain()).size(80, 30);
        let mut writes = vec![d.start().write];
        d.input(TermEvent::Resize(80, 30));
        writes.push(d.input(key(KeyCode::Char('1'))).write);
        let s = screen(&writes, 30, 80);
        assert_eq!(s[0], "> pick a db", "{s:#?}");
        assert!(s.iter().any(|l| l.contains("1. SQLite")), "{s:#?}");
        assert!(s.iter().any(|l| l == "  ✓ SQLite"), "{s:#?}");
        // stopped and brought back (Ctrl-Z, fg): a shell may have written
        // under it, so nothing is erased either
        let mut d = Dialog::questions(&db_question_alone(false), None, Style::plain()).size(80, 30);
        let mut writes = vec![d.start().write];
        d.screen_changed();
        writes.push(d.input(key(KeyCode::Char('1'))).write);
        let s = screen(&writes, 30, 80);
        assert_eq!(s[0], "> pick a db", "{s:#?}");
        assert!(s.iter().any(|l| l == "  ✓ SQLite"), "{s:#?}");
    }

    #[test]
    fn a_request_withdrawn_while_its_picker_is_open_is_denied_and_the_cursor_comes_back() {
        let r = req(json!({"tool_name":"ExitPlanMode","input":{}}));
        let mut d = Dialog::plan(&r, Some("1. do it".into()), None, Style::plain());
        let s = d.start();
        assert!(s.write.contains("do it") && s.write.contains("\x1b[?25l"));
        d.input(key(KeyCode::Down));
        let s = d.withdrawn();
        assert!(s.write.contains(crate::cli::picker::SHOW_CURSOR) && s.write.contains("withdrawn"));
        assert_eq!(
            s.done.unwrap().result,
            PermissionResult::deny("The request was withdrawn.")
        );
    }

    #[test]
    fn unreadable_questions_and_nobody_to_ask_are_decided_at_once() {
        let r = req(json!({"tool_name":"AskUserQuestion","input":{"questions":"no"}}));
        let s = Dialog::questions(&r, None, Style::plain()).start();
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
        let r = req(json!({"tool_name":"ExitPlanMode","input":{}}));
        let mut d = Dialog::plan(&r, Some("the plan".into()), Some("helper"), Style::plain());
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
