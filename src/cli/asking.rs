//! The model's questions (`AskUserQuestion`) and plans (`ExitPlanMode`):
//! what is shown and what is answered, for the chat (a picker on the raw
//! terminal) and for `ask` (a line on `/dev/tty`). Pure: text in, text out.

use super::markdown::Markdown;
use super::picker::{Choice, Picked, Picker};
use super::sanitize::Sanitizer;
use super::style::Style;
use super::wrap::wrapped;
use claudio::protocol::ask::{approve_plan, Question};
use claudio::PermissionResult;

/// The denial when the person presses Esc at a question.
pub const DECLINED: &str = "The user declined to answer the questions.";
/// The denial when the CLI withdrew a request while it was being asked.
pub const WITHDRAWN: &str = "The request was withdrawn.";
/// The denial when nobody is at a terminal.
pub const NOBODY_TO_ASK: &str = "Nobody is at a terminal to answer questions (claudio is running non-interactively). Do not ask again: choose a sensible default yourself and say which one you chose.";
/// The denial of a plan when nobody is at a terminal.
pub const NOBODY_TO_APPROVE: &str = "Nobody is at a terminal to approve the plan (claudio is running non-interactively), so it is not approved. Stay in plan mode and present the plan as your answer.";
/// The row for an answer of the person's own.
pub const OTHER: &str = "Type your own answer";

/// The lines above a question's options, each row within `width` (a long
/// question wraps under itself).
pub fn question_head(
    q: &Question,
    index: usize,
    count: usize,
    agent: Option<&str>,
    style: Style,
    width: usize,
) -> String {
    let clean = Sanitizer::clean;
    let mut chip = clean(q.header.trim());
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
pub fn question_picker(q: &Question) -> Picker {
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
pub fn numbered_options(q: &Question, style: Style) -> String {
    let mut out = String::new();
    for (i, o) in q.options.iter().enumerate() {
        let desc = Sanitizer::clean(&o.description);
        let desc = desc.lines().next().unwrap_or("").trim();
        let desc = if desc.is_empty() {
            String::new()
        } else {
            format!("  {}", style.dim(desc))
        };
        out.push_str(&format!(
            "    {}. {}{desc}\n",
            i + 1,
            Sanitizer::clean(&o.label)
        ));
    }
    out
}

/// The three ways to answer a plan, in order.
pub const PLAN_CHOICES: [(&str, &str); 3] = [
    ("Yes, and auto-accept edits", "switches to acceptEdits"),
    ("Yes, and approve each edit", "stays in default mode"),
    (
        "No, keep planning",
        "or type what to change on the next row",
    ),
];

/// The plan, drawn like an answer (markdown), in a box within `width` (a
/// long line wraps inside the box, under its own indent).
pub fn plan_block(plan: Option<&str>, agent: Option<&str>, style: Style, width: usize) -> String {
    let from = agent
        .map(|a| {
            format!(
                "  {}",
                style.dim(&format!("(from {})", Sanitizer::clean(a)))
            )
        })
        .unwrap_or_default();
    let mut out = format!(
        "\n  {} {}{from}\n",
        style.yellow("┌"),
        style.bold("Ready to code? Here is the plan")
    );
    let body = match plan {
        Some(p) if !p.trim().is_empty() => {
            let mut md = Markdown::new(style.enabled());
            let mut text = String::new();
            md.push(&Sanitizer::clean(p), &mut text);
            if !text.ends_with('\n') {
                text.push('\n');
            }
            md.finish(&mut text);
            text
        }
        _ => style.dim("(the plan was not shown to claudio)") + "\n",
    };
    let side = format!("  {} ", style.yellow("│"));
    for line in body.trim_end_matches('\n').split('\n') {
        out.push_str(&wrapped(line, width, &side, &side));
    }
    out.push_str(&format!("  {}\n", style.yellow("└")));
    out
}

/// The picker under a plan.
pub fn plan_picker() -> Picker {
    let choices = PLAN_CHOICES
        .iter()
        .map(|(l, d)| Choice::new(*l, *d))
        .collect();
    Picker::new(choices).other("Type what to change…")
}

/// What a plan answer sends, and the note to show.
/// An approval sends the request's input back unchanged: the plan was not
/// edited here, and the model is not told it was.
pub fn plan_result(
    picked: &Picked,
    request_input: &serde_json::Value,
) -> (PermissionResult, &'static str) {
    match picked {
        Picked::Chosen(i, None) if i.as_slice() == [0] => (
            approve_plan(claudio::PermissionMode::AcceptEdits, request_input),
            "approved · accepting edits",
        ),
        Picked::Chosen(i, None) if i.as_slice() == [1] => (
            approve_plan(claudio::PermissionMode::Default, request_input),
            "approved · approving each edit",
        ),
        Picked::Chosen(_, Some(feedback)) => (
            PermissionResult::deny(format!(
                "The user wants to keep planning. Their feedback: {feedback}"
            )),
            "keep planning",
        ),
        Picked::Chosen(..) => (
            PermissionResult::deny(
                "The user wants to keep planning; the plan is not approved yet. Ask what to change.",
            ),
            "keep planning",
        ),
        Picked::Declined => (
            PermissionResult::deny_and_interrupt("The user rejected the plan and stopped the turn."),
            "plan rejected",
        ),
    }
}

/// A plan answer read from a line (for `ask`): `1`, `2`, `3`, or feedback.
pub fn plan_from_line(line: &str) -> Picked {
    match line.trim() {
        "" => Picked::Declined,
        "1" => Picked::Chosen(vec![0], None),
        "2" => Picked::Chosen(vec![1], None),
        "3" => Picked::Chosen(vec![2], None),
        t => Picked::Chosen(vec![2], Some(t.to_owned())),
    }
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
        let h = question_head(&q(true), 0, 2, Some("count files"), Style::plain(), 80);
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

    #[test]
    fn plans_render_as_markdown_and_answer() {
        let b = plan_block(
            Some("# Plan\n1. add `x`\n\u{1b}[2J"),
            None,
            Style::plain(),
            80,
        );
        assert!(b.contains("│ "), "{b}");
        assert!(b.contains("Plan"), "{b}");
        assert!(!b.contains('\u{1b}'), "{b:?}");
        let none = json!({});
        let (r, _) = plan_result(&Picked::Chosen(vec![0], None), &none);
        assert_eq!(r, approve_plan(claudio::PermissionMode::AcceptEdits, &none));
        let (r, _) = plan_result(&Picked::Chosen(vec![1], None), &none);
        assert_eq!(r, approve_plan(claudio::PermissionMode::Default, &none));
        let (r, _) = plan_result(&Picked::Chosen(vec![], Some("add tests".into())), &none);
        assert!(
            matches!(&r, PermissionResult::Deny { message, interrupt: false, .. } if message.ends_with("add tests")),
            "{r:?}"
        );
        assert_eq!(plan_from_line("2"), Picked::Chosen(vec![1], None));
        assert_eq!(
            plan_from_line("more tests"),
            Picked::Chosen(vec![2], Some("more tests".into()))
        );
    }
}
