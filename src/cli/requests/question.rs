//! A question: the model's questions (`AskUserQuestion`), one after
//! another, each answered with one of its options, several under
//! multi-select, or the person's own words. What is shown, what a pick or
//! a typed line answers, and the answer sent. Pure: text in, text out.

use crate::cli::picker::{Choice, Picked, Picker};
use crate::cli::sanitize::Sanitizer;
use crate::cli::style::Style;
use crate::cli::wrap::{wrap, wrapped};
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
    let clean = Sanitizer::clean;
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
        let desc = Sanitizer::clean(&o.description);
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
            one_line(&Sanitizer::clean(&o.label))
        ));
    }
    out
}

/// An answered question in one line (wrapped at the width): its header
/// and the answer, or that it was skipped.
pub fn answered(q: &Question, answer: Option<&str>, style: Style, width: usize) -> Vec<String> {
    let mut chip = Sanitizer::clean(q.header.trim());
    if chip.is_empty() {
        chip = "Question".into();
    }
    let said = match answer {
        Some(a) => one_line(&Sanitizer::clean(a)),
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
