//! A question: the model's questions (`AskUserQuestion`), one after
//! another, each answered with one of its options, several under
//! multi-select, or the person's own words. What is shown, what a pick or
//! a typed line answers, and the answer sent. Pure: text in, text out.

use crate::cli::sanitize::Sanitizer;
use crate::cli::term::picker::{Choice, InPlace, Picked, Picker};
use crate::cli::term::style::Style;
use crate::cli::term::wrap::{wrap, wrapped};
use claudio::protocol::ask::{self, answer_each, answer_questions, Question};
use claudio::protocol::Capabilities;
use claudio::{CanUseToolRequest, PermissionResult};

/// The denial when the person declines to answer (`ask`: Enter alone).
pub const DECLINED: &str = "The user declined to answer the questions.";
/// The denial when nobody is at a terminal.
pub const NOBODY_TO_ASK: &str = "Nobody is at a terminal to answer questions (claudio is running non-interactively). Do not ask again: choose a sensible default yourself and say which one you chose.";
/// The denial of questions that cannot be read.
pub const UNREADABLE: &str =
    "The questions could not be read: each needs a `question` and `options`.";
/// The row for an answer of the person's own.
pub const OTHER: &str = "Type your own answer";
/// What a skipped question says.
pub const SKIPPED: &str = "skipped: the model is told you have no preference";

/// The questions of one request, answered one after another.
#[derive(Debug)]
pub struct Questions {
    input: serde_json::Value,
    questions: Vec<Question>,
    answers: Vec<String>,
}

impl Questions {
    /// The questions `req` asks; `Err` (the denial to send) when they
    /// cannot be read.
    pub fn of(req: &CanUseToolRequest) -> Result<Questions, PermissionResult> {
        match ask::questions(&req.input) {
            Some(questions) => Ok(Questions {
                input: req.input.clone(),
                questions,
                answers: Vec::new(),
            }),
            None => Err(PermissionResult::deny(UNREADABLE)),
        }
    }

    /// The question being asked (`None`: all are answered).
    pub fn current(&self) -> Option<&Question> {
        self.questions.get(self.answers.len())
    }

    /// The lines above the current question's options (empty when all are
    /// answered).
    pub fn head(&self, agent: Option<&str>, style: Style, width: usize) -> String {
        let (at, count) = (self.answers.len(), self.questions.len());
        self.current()
            .map(|q| head(q, at, count, agent, style, width))
            .unwrap_or_default()
    }

    /// The current question is answered with `answer`; on to the next.
    pub fn answer(&mut self, answer: String) {
        if self.current().is_some() {
            self.answers.push(answer);
        }
    }

    /// The answer to send, once every question is answered.
    pub fn result(&self) -> Option<PermissionResult> {
        if self.current().is_some() {
            return None;
        }
        let pairs = self
            .questions
            .iter()
            .map(|q| q.question.as_str())
            .zip(self.answers.iter().cloned());
        Some(answer_questions(&self.input, pairs.collect::<Vec<_>>()))
    }

    /// The answer when the current question is skipped (the chat's Esc):
    /// what was answered stays answered; the rest is "no preference", as
    /// the claude TUI answers a skipped question (the model goes on, not
    /// stuck on a refusal).
    pub fn skip_rest(&self) -> PermissionResult {
        let pairs = self.questions.iter().enumerate().map(|(i, q)| {
            let a = match self.answers.get(i) {
                Some(text) => ask::Answer::Text(text.clone()),
                None => ask::Answer::Skipped,
            };
            (q.question.as_str(), a)
        });
        answer_each(&self.input, pairs, &Capabilities::default())
    }
}

/// The model's questions, registered ([`super::registered`]).
pub static KIND: super::Registered = super::Registered {
    nobody_to_ask: NOBODY_TO_ASK,
    cannot_ask: "could not ask the model's question",
    notice: |_| {
        (
            crate::cli::common::notify::Trigger::Question,
            "Claude asks you".into(),
        )
    },
    open,
    #[cfg(test)]
    sample: tests::sample,
};

/// The questions of `req`, to ask; denied at once, saying so, when they
/// cannot be read.
fn open(req: &CanUseToolRequest, at: &super::Asking<'_>) -> super::Opened {
    match Questions::of(req) {
        Ok(questions) => super::Opened::Ask(Box::new(Asked {
            questions,
            picker: None,
            agent: at.agent.clone(),
        })),
        Err(result) => super::Opened::Decided {
            note: format!(
                "  {} the model asked questions claudio cannot read\n",
                at.style.red("✗")
            ),
            result,
        },
    }
}

/// The model's questions being asked, one after another: in the chat a
/// picker each (Esc skips the rest), in `ask` a typed line each (Enter
/// alone declines them all).
#[derive(Debug)]
pub struct Asked {
    questions: Questions,
    picker: Option<InPlace>,
    agent: Option<String>,
}

impl Asked {
    /// The next question's head and picker, or the answers when all are in.
    fn next_question(&mut self, at: &super::Screen, step: &mut super::Step) {
        match self.questions.current() {
            Some(q) => {
                let head = self
                    .questions
                    .head(self.agent.as_deref(), at.style, at.width);
                step.write.push_str(&head);
                let (drawn, text) = InPlace::start(picker(q), at.style, at.width, at.height);
                // the head's blank first line stays: the rest is the question's
                let drawn = drawn.owns_above(head.strip_prefix('\n').unwrap_or(&head));
                step.write.push_str(&text);
                self.picker = Some(drawn);
            }
            None => step.done = self.questions.result().map(super::Done::answer),
        }
    }
}

impl super::Kind for Asked {
    fn start(&mut self, at: &super::Screen) -> super::Step {
        let mut step = super::Step::default();
        self.next_question(at, &mut step);
        step
    }

    fn input(&mut self, input: super::Input, at: &super::Screen) -> super::Step {
        let (style, width) = (at.style, at.width);
        let mut step = super::Step::default();
        let picked = self
            .picker
            .as_mut()
            .and_then(|d| super::feed(d, input, &mut step));
        let Some(picked) = picked else {
            return step;
        };
        let (Some(mut d), Some(q)) = (self.picker.take(), self.questions.current()) else {
            return step;
        };
        let answer = answer_of(q, &picked);
        // the question and its options make way for one line with the
        // answer, when what they took on the screen is known
        let line = answered(q, answer.as_deref(), style, width);
        match d.replace(&line) {
            Some(text) => step.write.push_str(&text),
            None => {
                step.write.push_str(&d.settle());
                let said = match &answer {
                    Some(a) => format!("{} {}", style.green("✓"), Sanitizer::clean(a)),
                    None => style.dim(SKIPPED),
                };
                step.write.push_str(&format!("  {said}\n"));
            }
        }
        match answer {
            Some(answer) => {
                self.questions.answer(answer);
                self.next_question(at, &mut step);
            }
            None => step.done = Some(super::Done::answer(self.questions.skip_rest())),
        }
        step
    }

    fn screen_changed(&mut self, size: Option<(usize, usize)>) {
        if let Some(d) = &mut self.picker {
            d.screen_changed(size);
        }
    }

    fn close(&mut self) -> String {
        self.picker.take().map(InPlace::close).unwrap_or_default()
    }

    fn prompt(&mut self, at: &super::Screen) -> String {
        let s = at.style;
        let Some(q) = self.questions.current() else {
            return String::new();
        };
        format!(
            "{}{}  {} ",
            self.questions.head(self.agent.as_deref(), s, at.width),
            numbered(q, s),
            s.dim(if q.multi_select {
                "numbers (1,3), or your own answer; Enter alone declines ›"
            } else {
                "a number, or your own answer; Enter alone declines ›"
            })
        )
    }

    fn line(&mut self, line: &str, at: &super::Screen) -> super::Step {
        let mut step = super::Step::default();
        let Some(q) = self.questions.current() else {
            return step;
        };
        match answer_from_line(q, line) {
            Some(a) => {
                self.questions.answer(a);
                if self.questions.current().is_none() {
                    let result = self.questions.result();
                    let result = result.unwrap_or_else(|| PermissionResult::deny(DECLINED));
                    step.done = Some(super::Done::answer(result));
                }
            }
            None => {
                step.write = format!("  {}\n", at.style.dim("declined"));
                step.done = Some(super::Done::answer(PermissionResult::deny(DECLINED)));
            }
        }
        step
    }

    fn failed(&self) -> &'static str {
        "The question prompt failed; nothing was answered."
    }
}

/// The lines above a question's options, each row within `width` (a long
/// question wraps under itself).
pub fn head(
    q: &Question,
    index: usize,
    count: usize,
    agent: Option<&str>,
    style: Style,
    width: usize,
) -> String {
    // what is answered is what was shown: a sequence's text as text
    let clean = Sanitizer::visible;
    let mut chip = one_line(&clean(&q.header));
    if chip.is_empty() {
        chip = "Question".into();
    }
    let of = if count > 1 {
        format!("  {}", style.dim(&format!("{}/{count}", index + 1)))
    } else {
        String::new()
    };
    let from = agent
        .map(|a| format!("  {}", style.dim(&format!("(from {})", clean(a)))))
        .unwrap_or_default();
    let head = format!("{}{of}{from}", style.bold(&chip));
    let mut out = format!(
        "\n{}",
        wrapped(&head, width, &format!("  {} ", style.yellow("?")), "    ")
    );
    for line in clean(&q.question).lines() {
        out.push_str(&wrapped(line, width, "  ", "  "));
    }
    if q.multi_select {
        out.push_str(&format!("  {}\n", style.dim("(choose any number)")));
    }
    out
}

/// The picker for one question.
pub fn picker(q: &Question) -> Picker {
    let choices = q
        .options
        .iter()
        .map(|o| Choice::new(o.label.clone(), o.description.clone()))
        .collect();
    Picker::new(choices).multi(q.multi_select).other(OTHER)
}

/// The answer a pick makes: the chosen labels (joined with `", "`), then
/// the person's own words; `None` for a decline.
pub fn answer_of(q: &Question, picked: &Picked) -> Option<String> {
    match picked {
        Picked::Declined => None,
        Picked::Chosen(idx, typed) => {
            let mut parts: Vec<String> = idx
                .iter()
                .filter_map(|&i| q.options.get(i))
                .map(|o| o.label.clone())
                .collect();
            parts.extend(typed.iter().cloned());
            Some(parts.join(", "))
        }
    }
}

/// Read a typed line as an answer (for `ask`): option numbers (`2`, or
/// `1,3` under multi-select) or the person's own words. Empty: declined.
pub fn answer_from_line(q: &Question, line: &str) -> Option<String> {
    let t = line.trim();
    if t.is_empty() {
        return None;
    }
    let numbers: Option<Vec<usize>> = t
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|p| !p.is_empty())
        .map(|p| {
            p.parse::<usize>()
                .ok()
                .filter(|&n| n >= 1 && n <= q.options.len())
        })
        .collect();
    match numbers {
        Some(ns) if !ns.is_empty() && (q.multi_select || ns.len() == 1) => {
            let mut seen = Vec::new();
            for n in ns {
                if !seen.contains(&n) {
                    seen.push(n);
                }
            }
            Some(
                seen.iter()
                    .map(|&n| q.options[n - 1].label.clone())
                    .collect::<Vec<_>>()
                    .join(", "),
            )
        }
        _ => Some(t.to_owned()),
    }
}

/// Options as numbered lines (for `ask`, which reads a line).
pub fn numbered(q: &Question, style: Style) -> String {
    let mut out = String::new();
    for (i, o) in q.options.iter().enumerate() {
        let desc = Sanitizer::visible(&o.description);
        let desc = desc.lines().next().unwrap_or("").trim();
        let desc = if desc.is_empty() {
            String::new()
        } else {
            format!("  {}", style.dim(desc))
        };
        // a line each: a newline in a label could draw an option that is
        // not there
        out.push_str(&format!(
            "    {}. {}{desc}\n",
            i + 1,
            one_line(&Sanitizer::visible(&o.label))
        ));
    }
    out
}

/// An answered question in one line (wrapped at the width): its header
/// and the answer, or that it was skipped.
pub fn answered(q: &Question, answer: Option<&str>, style: Style, width: usize) -> Vec<String> {
    let mut chip = Sanitizer::visible(q.header.trim());
    if chip.is_empty() {
        chip = "Question".into();
    }
    let said = match answer {
        Some(a) => one_line(&Sanitizer::visible(a)),
        None => style.dim(SKIPPED),
    };
    let text = format!("{} {} {said}", style.bold(&one_line(&chip)), style.dim("—"));
    wrap(&text, width, &format!("  {} ", style.yellow("?")), "    ")
}

/// `t` on one line: its runs of whitespace, newlines too, as one space.
fn one_line(t: &str) -> String {
    t.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn q(multi: bool) -> Question {
        serde_json::from_value(json!({"question":"Which db?","header":"DB","multiSelect":multi,
            "options":[{"label":"SQLite","description":"a file"},{"label":"Postgres","description":"a server"},{"label":"Redis","description":""}]}))
        .unwrap()
    }

    /// The model's questions, the second option picked: `2` in the chat's
    /// picker, `2` and Enter in `ask`.
    pub(super) fn sample() -> crate::cli::requests::Sample {
        use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
        let input = json!({"questions":[{"question":"Which db?","header":"DB",
            "multiSelect":false,"options":[{"label":"SQLite","description":"a file"},
            {"label":"Postgres","description":"a server"}]}]});
        let req = json!({"tool_name":"AskUserQuestion","input":input});
        let two = KeyEvent::new(KeyCode::Char('2'), KeyModifiers::NONE);
        crate::cli::requests::Sample {
            req: serde_json::from_value(req).unwrap(),
            keys: vec![crate::cli::requests::Input::Key(two)],
            lines: vec!["2\n"],
            result: answer_questions(&input, [("Which db?", "Postgres".to_owned())]),
            shows: "Which db?",
        }
    }

    #[test]
    fn head_shows_header_question_and_agent() {
        let h = head(&q(true), 0, 2, Some("count files"), Style::plain(), 80);
        assert!(h.contains("? DB  1/2  (from count files)"), "{h}");
        assert!(h.contains("  Which db?\n"), "{h}");
        assert!(h.contains("choose any number"), "{h}");
    }

    #[test]
    fn answers_from_picks() {
        assert_eq!(
            answer_of(&q(false), &Picked::Chosen(vec![1], None)).as_deref(),
            Some("Postgres")
        );
        assert_eq!(
            answer_of(
                &q(true),
                &Picked::Chosen(vec![0, 2], Some("and files".into()))
            )
            .as_deref(),
            Some("SQLite, Redis, and files")
        );
        assert_eq!(answer_of(&q(true), &Picked::Declined), None);
    }

    /// `ask` numbers the options a line each: a label or a header with a
    /// newline in it cannot draw another numbered option, or a line of
    /// the head, that is not there.
    #[test]
    fn a_label_or_header_with_newlines_stays_on_its_line() {
        let spoof: Question = serde_json::from_value(json!({"question":"Which db?",
            "header":"DB\n  Delete everything?",
            "options":[{"label":"SQLite\n    2. Postgres","description":"a file"},
                       {"label":"Drop every table","description":""}]}))
        .unwrap();
        let text = numbered(&spoof, Style::plain());
        assert_eq!(text.lines().count(), 2, "{text}");
        assert!(
            text.contains("    1. SQLite 2. Postgres  a file\n"),
            "{text}"
        );
        assert!(text.contains("    2. Drop every table\n"), "{text}");
        let h = head(&spoof, 0, 1, None, Style::plain(), 80);
        assert!(h.contains("? DB Delete everything?\n"), "{h:?}");
        assert_eq!(h.lines().count(), 3, "{h:?}");
    }

    /// What is answered is what was shown: text inside an escape
    /// sequence of a question, an option's label or its description (an
    /// OSC's) is shown as text, in the chat's head and the deck's and
    /// `ask`'s numbered lines, never hidden from the person who answers.
    #[test]
    fn a_question_s_hidden_text_is_shown_before_it_is_answered() {
        let q: Question = serde_json::from_value(json!({
            "question": "Clean the build?\u{1b}]0; and then rm -rf ~\u{7}",
            "header": "Clean\u{1b}]0;, and push\u{7}",
            "options": [
                {"label": "Yes\u{1b}]0; also push --force\u{7}", "description": "the build\u{1b}]0;, and ~\u{7}"},
                {"label": "No", "description": ""}]}))
        .unwrap();
        let h = head(&q, 0, 1, None, Style::plain(), 80);
        let n = numbered(&q, Style::plain());
        let a = answered(&q, Some(&q.options[0].label), Style::plain(), 80).join("\n");
        assert!(h.contains("and then rm -rf ~"), "{h:?}");
        assert!(h.contains(", and push"), "{h:?}");
        assert!(n.contains("also push --force"), "{n:?}");
        assert!(n.contains(", and ~"), "{n:?}");
        assert!(a.contains("also push --force"), "{a:?}");
        for t in [h, n, a] {
            assert!(!t.contains(['\u{1b}', '\u{7}']), "{t:?}");
        }
    }

    #[test]
    fn answers_from_lines() {
        assert_eq!(
            answer_from_line(&q(false), "2").as_deref(),
            Some("Postgres")
        );
        assert_eq!(
            answer_from_line(&q(false), "1,2").as_deref(),
            Some("1,2"),
            "one choice only: taken as words"
        );
        assert_eq!(
            answer_from_line(&q(true), "3, 1 3").as_deref(),
            Some("Redis, SQLite")
        );
        assert_eq!(answer_from_line(&q(false), "9").as_deref(), Some("9"));
        assert_eq!(
            answer_from_line(&q(false), " use MySQL ").as_deref(),
            Some("use MySQL")
        );
        assert_eq!(answer_from_line(&q(false), "  "), None);
    }
}
