//! Asking the person in the chat, as a state machine: a tool to allow, the
//! model's questions, or a plan to approve. Keys in, text to write and, at
//! the end, the answer out. No I/O: what needs the disk (a proposed edit's
//! diff) is rendered before the dialog is made, and the keys come from the
//! chat's one loop, so a request withdrawn while its picker is open, a
//! resize or a paste are events like any other.

use super::approval::{Answer, Outcome};
use super::keys::TermEvent;
use crate::cli::approve::{choices, Decision, Offer, SessionGrants};
use crate::cli::asking;
use crate::cli::picker::{redraw, Picked, Picker};
use crate::cli::sanitize::Sanitizer;
use crate::cli::style::Style;
use crate::cli::wrap::{visible_width, wrap};
use claudio::protocol::ask::{self, answer_each, answer_questions, Question};
use claudio::protocol::Capabilities;
use claudio::{CanUseToolRequest, PermissionResult, RequestContext};
use tokio::sync::oneshot;

/// A tool approval waiting for the person.
pub(crate) struct Approval {
    pub(crate) req: CanUseToolRequest,
    pub(crate) ctx: RequestContext,
    pub(crate) reply: oneshot::Sender<PermissionResult>,
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

/// What one step of a dialog gives.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Step {
    /// What to write to the screen.
    pub write: String,
    /// The answer, when the dialog is over.
    pub done: Option<Done>,
}

/// Shows the cursor again (a picker hides it while it is drawn).
const SHOW_CURSOR: &str = "\x1b[?25h";
const HIDE_CURSOR: &str = "\x1b[?25l";

/// A picker drawn in place under what is on the screen.
#[derive(Debug)]
struct Drawn {
    picker: Picker,
    /// How many lines the last drawing took.
    shown: usize,
    /// How many rows of the screen it took (a line wider than the screen
    /// takes more than one).
    rows: usize,
    /// The rows drawn above it that belong to it (a question's head).
    above: usize,
    /// The screen may have changed under it since (a resize): what is
    /// where is no longer known, so nothing is erased.
    moved: bool,
}

/// What the dialog is asking.
#[derive(Debug)]
enum Ask {
    /// Allow a tool: `y`, `a`, `n`, a reason, `d` for the whole diff.
    Tool {
        req: Box<CanUseToolRequest>,
        answer: Box<Answer>,
        /// The question with the whole diff, when the first one folds it.
        full: Option<String>,
    },
    /// The model's questions, one picker each.
    Questions {
        input: serde_json::Value,
        questions: Vec<Question>,
        at: usize,
        answers: Vec<String>,
        picker: Option<Drawn>,
        agent: Option<String>,
    },
    /// A plan to approve.
    Plan {
        input: serde_json::Value,
        picker: Option<Drawn>,
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
    ask: Ask,
    /// The first screen (the question, the plan, the tool call).
    first: String,
    style: Style,
    width: usize,
    height: usize,
}

impl Dialog {
    /// The tool call this dialog asks to run, when it asks that.
    pub(super) fn call(&self) -> Option<&str> {
        match &self.ask {
            Ask::Tool { req, .. } => req.tool_use_id.as_deref(),
            _ => None,
        }
    }

    /// The screen changed under the dialog (the chat was stopped and
    /// brought back: a shell wrote meanwhile): what is where is no longer
    /// known, so nothing it drew is erased when it folds.
    pub(super) fn screen_changed(&mut self) {
        if let Ask::Questions {
            picker: Some(d), ..
        }
        | Ask::Plan {
            picker: Some(d), ..
        } = &mut self.ask
        {
            d.moved = true;
        }
    }

    /// Allow a tool: `question` as drawn with its diff folded (`folded`:
    /// something was left out), `full` with all of it.
    pub(super) fn tool(
        req: CanUseToolRequest,
        question: (String, bool),
        full: String,
        style: Style,
    ) -> Dialog {
        let (first, folded) = question;
        let offer = Offer::of(&req);
        Dialog {
            ask: Ask::Tool {
                req: Box::new(req),
                answer: Box::new(Answer::new(offer, folded)),
                full: folded.then_some(full),
            },
            first,
            style,
            width: 80,
            height: 24,
        }
    }

    /// The model's questions; a request whose questions cannot be read is
    /// denied, saying so.
    pub(super) fn questions(
        req: &CanUseToolRequest,
        agent: Option<String>,
        style: Style,
    ) -> Dialog {
        let Some(questions) = claudio::protocol::ask::questions(&req.input) else {
            return Dialog::decided(
                format!(
                    "  {} the model asked questions claudio cannot read\n",
                    style.red("✗")
                ),
                PermissionResult::deny(
                    "The questions could not be read: each needs a `question` and `options`.",
                ),
                style,
            );
        };
        Dialog {
            ask: Ask::Questions {
                input: req.input.clone(),
                questions,
                at: 0,
                answers: Vec::new(),
                picker: None,
                agent,
            },
            first: String::new(),
            style,
            width: 80,
            height: 24,
        }
    }

    /// A plan to approve (`plan`: its text, as the model wrote it).
    pub(super) fn plan(
        req: &CanUseToolRequest,
        plan: Option<String>,
        agent: Option<&str>,
        style: Style,
    ) -> Dialog {
        Dialog {
            first: String::new(),
            ask: Ask::Plan {
                input: req.input.clone(),
                picker: None,
                plan,
                agent: agent.map(str::to_owned),
            },
            style,
            width: 80,
            height: 24,
        }
    }

    /// Nobody to ask (no terminal): denied at once, saying so.
    pub(super) fn decided(note: String, result: PermissionResult, style: Style) -> Dialog {
        Dialog {
            ask: Ask::Decided {
                note,
                result: Some(result),
            },
            first: String::new(),
            style,
            width: 80,
            height: 24,
        }
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
        match &mut self.ask {
            Ask::Tool { .. } => {}
            Ask::Decided { note, result } => {
                step.write.push_str(note);
                step.done = result.take().map(|result| Done {
                    result,
                    interrupt: false,
                    grant: None,
                });
            }
            Ask::Questions { .. } => self.next_question(&mut step),
            Ask::Plan {
                picker,
                plan,
                agent,
                ..
            } => {
                step.write.push_str(&asking::plan_block(
                    plan.as_deref(),
                    agent.as_deref(),
                    self.style,
                    self.width,
                ));
                let drawn = draw_new(asking::plan_picker(), self.style, self.width, self.height);
                step.write.push_str(&drawn.1);
                *picker = Some(drawn.0);
            }
        }
        step
    }

    /// The next question's head and picker, or the answers when all are in.
    fn next_question(&mut self, step: &mut Step) {
        let Ask::Questions {
            input,
            questions,
            at,
            answers,
            picker,
            agent,
        } = &mut self.ask
        else {
            return;
        };
        match questions.get(*at) {
            Some(q) => {
                let head = asking::question_head(
                    q,
                    *at,
                    questions.len(),
                    agent.as_deref(),
                    self.style,
                    self.width,
                );
                step.write.push_str(&head);
                let (mut drawn, text) = draw_new(
                    asking::question_picker(q),
                    self.style,
                    self.width,
                    self.height,
                );
                // the head's blank first line stays: the rest is the question's
                drawn.above = screen_rows(head.strip_prefix('\n').unwrap_or(&head), self.width);
                step.write.push_str(&text);
                *picker = Some(drawn);
            }
            None => {
                let pairs: Vec<(&str, String)> = questions
                    .iter()
                    .map(|q| q.question.as_str())
                    .zip(answers.iter().cloned())
                    .collect();
                step.done = Some(Done {
                    result: answer_questions(input, pairs),
                    interrupt: false,
                    grant: None,
                });
            }
        }
    }

    /// Take in a key, a paste or a resize.
    pub(super) fn input(&mut self, event: TermEvent) -> Step {
        let mut step = Step::default();
        if let TermEvent::Resize(w, h) = event {
            (self.width, self.height) = ((w as usize).max(20), (h as usize).max(6));
            self.screen_changed();
            return step;
        }
        let style = self.style;
        let width = self.width;
        match &mut self.ask {
            Ask::Decided { .. } => {}
            Ask::Tool { req, answer, full } => {
                let (echo, outcome) = match event {
                    TermEvent::Key(k) => answer.key(k),
                    TermEvent::Paste(text) => (answer.paste(&text), None),
                    TermEvent::Resize(..) => return step,
                };
                step.write = echo;
                let offer = answer.offer().clone();
                let offer = &offer;
                let (result, note, interrupt, grant) = match outcome {
                    None => return step,
                    Some(Outcome::ShowAll) => {
                        // the whole diff, and the question again
                        if let Some(all) = full.take() {
                            step.write.push_str("\r\n");
                            step.write.push_str(&all);
                        }
                        answer.reset(false);
                        return step;
                    }
                    Some(Outcome::NotOffered(why)) => {
                        step.write.push_str(&format!(
                            "\r\n  {}\r\n  {}",
                            style.yellow(&why),
                            choices(&style, offer)
                        ));
                        answer.reset(full.is_some());
                        return step;
                    }
                    Some(Outcome::Decision(d)) => {
                        let note = match &d {
                            Decision::Deny(_) => style.red(&d.note(offer)),
                            _ => style.green(&d.note(offer)),
                        };
                        let grant = (d == Decision::AllowSession
                            && offer.session == claudio::protocol::SessionScope::ThisCall)
                            .then(|| req.clone());
                        let result = d.into_result(req, &mut SessionGrants::default());
                        (result, note, false, grant)
                    }
                    Some(Outcome::DenyAndInterrupt) => (
                        PermissionResult::deny_and_interrupt(
                            "The user denied this tool call and stopped the turn.",
                        ),
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
            Ask::Plan { input, picker, .. } => {
                let (width, height) = (self.width, self.height);
                let Some(picked) = picker
                    .as_mut()
                    .and_then(|d| pick_key(d, event, style, width, height, &mut step))
                else {
                    return step;
                };
                if let Some(d) = picker.as_mut() {
                    settle(d, style, width, height, &mut step);
                }
                let (result, note) = asking::plan_result(&picked, input);
                let mark = if matches!(result, PermissionResult::Allow { .. }) {
                    style.green("✓")
                } else {
                    style.yellow("•")
                };
                step.write
                    .push_str(&format!("  {mark} {}\n", style.dim(note)));
                step.done = Some(Done {
                    result,
                    interrupt: false,
                    grant: None,
                });
            }
            Ask::Questions {
                input,
                questions,
                at,
                answers,
                picker,
                ..
            } => {
                let (width, height) = (self.width, self.height);
                let Some(picked) = picker
                    .as_mut()
                    .and_then(|d| pick_key(d, event, style, width, height, &mut step))
                else {
                    return step;
                };
                let Some(mut d) = picker.take() else {
                    return step;
                };
                let answer = asking::answer_of(&questions[*at], &picked);
                if !d.moved && d.above + d.rows <= height {
                    // the question and its options make way for one line
                    // with the answer (what they took on the screen is
                    // known: nothing moved, and none of it scrolled away)
                    let line = collapsed(&questions[*at], answer.as_deref(), style, width);
                    step.write.push_str(&redraw(d.above + d.rows, &line));
                    step.write.push_str("\r\n");
                    step.write.push_str(SHOW_CURSOR);
                } else {
                    settle(&mut d, style, width, height, &mut step);
                    let said = match &answer {
                        Some(a) => format!("{} {}", style.green("✓"), Sanitizer::clean(a)),
                        None => style.dim(SKIPPED),
                    };
                    step.write.push_str(&format!("  {said}\n"));
                }
                match answer {
                    Some(answer) => {
                        answers.push(answer);
                        *at += 1;
                        self.next_question(&mut step);
                    }
                    None => step.done = Some(skipped(input, questions, answers, *at)),
                }
            }
        }
        step
    }

    /// The terminal is gone: nothing was decided, so it is denied.
    pub(super) fn failed(&mut self) -> Step {
        let message = match self.ask {
            Ask::Questions { .. } => "The question prompt failed; nothing was answered.",
            Ask::Plan { .. } => "The plan prompt failed; nothing was approved.",
            _ => "The permission prompt failed; nothing was allowed.",
        };
        let mut step = self.withdrawn();
        step.write = format!("\r\n  {}\n", self.style.red("denied (the prompt failed)"));
        step.done = Some(Done {
            result: PermissionResult::deny(message),
            interrupt: false,
            grant: None,
        });
        step
    }

    /// The request was withdrawn (the CLI cancelled it): it ends, denied,
    /// saying so.
    pub(super) fn withdrawn(&mut self) -> Step {
        let mut step = Step::default();
        let open_picker = match &mut self.ask {
            Ask::Questions { picker, .. } | Ask::Plan { picker, .. } => picker.take().is_some(),
            _ => false,
        };
        if open_picker {
            step.write.push_str("\r\n");
            step.write.push_str(SHOW_CURSOR);
        } else if matches!(self.ask, Ask::Tool { .. }) {
            step.write.push_str("\r\n");
        }
        step.write
            .push_str(&format!("  {}\n", self.style.dim("withdrawn")));
        step.done = Some(Done {
            result: PermissionResult::deny(asking::WITHDRAWN),
            interrupt: false,
            grant: None,
        });
        step
    }
}

/// What a skipped question says.
const SKIPPED: &str = "skipped: the model is told you have no preference";

/// The answer when a question is skipped: what was answered stays
/// answered; the rest is "no preference", as the claude TUI answers a
/// skipped question (the model goes on, not stuck on a refusal).
fn skipped(
    input: &serde_json::Value,
    questions: &[Question],
    answers: &[String],
    at: usize,
) -> Done {
    let pairs = questions.iter().enumerate().map(|(i, q)| {
        let a = match answers.get(i) {
            Some(text) if i < at => ask::Answer::Text(text.clone()),
            _ => ask::Answer::Skipped,
        };
        (q.question.as_str(), a)
    });
    Done {
        result: answer_each(input, pairs, &Capabilities::default()),
        interrupt: false,
        grant: None,
    }
}

/// An answered question in one line (wrapped at the width): its header
/// and the answer, or that it was skipped.
fn collapsed(q: &Question, answer: Option<&str>, style: Style, width: usize) -> Vec<String> {
    let mut chip = Sanitizer::clean(q.header.trim());
    if chip.is_empty() {
        chip = "Question".into();
    }
    let one_line = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    let said = match answer {
        Some(a) => one_line(&Sanitizer::clean(a)),
        None => style.dim(SKIPPED),
    };
    let text = format!("{} {} {said}", style.bold(&one_line(&chip)), style.dim("—"));
    wrap(&text, width, &format!("  {} ", style.yellow("?")), "    ")
}

/// The rows `text` takes on a screen `width` columns wide: each of its
/// lines one row, or more when wider than the screen.
fn screen_rows(text: &str, width: usize) -> usize {
    text.lines()
        .map(|l| visible_width(l).div_ceil(width.max(1)).max(1))
        .sum()
}

fn draw_new(picker: Picker, style: Style, width: usize, height: usize) -> (Drawn, String) {
    let now = picker.drawing(style, width, height, true);
    let text = format!("{}{HIDE_CURSOR}", now.join("\r\n"));
    (
        Drawn {
            picker,
            shown: now.len(),
            rows: now.iter().map(|l| screen_rows(l, width)).sum(),
            above: 0,
            moved: false,
        },
        text,
    )
}

/// Feed a picker; redraw it while no choice is made.
fn pick_key(
    d: &mut Drawn,
    event: TermEvent,
    style: Style,
    width: usize,
    height: usize,
    step: &mut Step,
) -> Option<Picked> {
    let decided = match event {
        TermEvent::Key(k) => d.picker.key(k),
        TermEvent::Paste(text) => {
            d.picker.paste(&text);
            None
        }
        TermEvent::Resize(..) => None,
    };
    if decided.is_none() {
        let now = d.picker.drawing(style, width, height, true);
        step.write.push_str(&redraw(d.shown, &now));
        d.shown = now.len();
        d.rows = now.iter().map(|l| screen_rows(l, width)).sum();
    }
    decided
}

/// A choice was made: leave the picker drawn without its help, and the
/// cursor under it.
fn settle(d: &mut Drawn, style: Style, width: usize, height: usize, step: &mut Step) {
    let now = d.picker.drawing(style, width, height, false);
    step.write.push_str(&redraw(d.shown, &now));
    d.shown = now.len();
    step.write.push_str("\r\n");
    step.write.push_str(SHOW_CURSOR);
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
            ("Allow? ".into(), true),
            "ALL OF IT Allow? ".into(),
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
        let mut d = Dialog::tool(
            r.clone(),
            ("Allow? ".into(), false),
            String::new(),
            Style::plain(),
        );
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

        let mut d = Dialog::tool(r, ("Allow? ".into(), false), String::new(), Style::plain());
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
        assert!(s.write.contains("do it") && s.write.contains(HIDE_CURSOR));
        d.input(key(KeyCode::Down));
        let s = d.withdrawn();
        assert!(s.write.contains(SHOW_CURSOR) && s.write.contains("withdrawn"));
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
