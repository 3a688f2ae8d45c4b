//! A plan: the model's plan to approve (`ExitPlanMode`), shown like an
//! answer, in a box. Approved with accepting edits or approving each;
//! refused with what to change, or rejected (the turn stops). What is
//! shown, what a pick or a typed line means, and the answer sent. Pure.

use crate::cli::markdown::Markdown;
use crate::cli::picker::{Choice, Picked, Picker};
use crate::cli::sanitize::Sanitizer;
use crate::cli::style::Style;
use crate::cli::wrap::wrapped;
use claudio::{PermissionResult, PermissionUpdate};

/// An unedited approval: the request's input back as it came, and `mode`.
fn approve_plan(
    mode: claudio::PermissionMode,
    request_input: &serde_json::Value,
) -> PermissionResult {
    PermissionResult::allow_with(
        request_input.clone(),
        vec![PermissionUpdate::set_mode(mode)],
    )
}

/// The denial of a plan when nobody is at a terminal.
pub const NOBODY_TO_APPROVE: &str = "Nobody is at a terminal to approve the plan (claudio is running non-interactively), so it is not approved. Stay in plan mode and present the plan as your answer.";

/// The three ways to answer a plan, in order.
pub const CHOICES: [(&str, &str); 3] = [
    ("Yes, and auto-accept edits", "switches to acceptEdits"),
    ("Yes, and approve each edit", "stays in default mode"),
    (
        "No, keep planning",
        "or type what to change on the next row",
    ),
];

/// The plan, drawn like an answer (markdown), in a box within `width` (a
/// long line wraps inside the box, under its own indent).
pub fn block(plan: Option<&str>, agent: Option<&str>, style: Style, width: usize) -> String {
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
pub fn picker() -> Picker {
    let choices = CHOICES.iter().map(|(l, d)| Choice::new(*l, *d)).collect();
    Picker::new(choices).other("Type what to change…")
}

/// What a plan answer sends, and the note to show.
/// An approval sends the request's input back unchanged: the plan was not
/// edited here, and the model is not told it was.
pub fn result(
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
pub fn from_line(line: &str) -> Picked {
    match line.trim() {
        "" => Picked::Declined,
        "1" => Picked::Chosen(vec![0], None),
        "2" => Picked::Chosen(vec![1], None),
        "3" => Picked::Chosen(vec![2], None),
        t => Picked::Chosen(vec![2], Some(t.to_owned())),
    }
}

/// The choices as numbered lines (for `ask`, which reads a line).
pub fn numbered(style: Style) -> String {
    let mut out = String::new();
    for (i, (label, what)) in CHOICES.iter().enumerate() {
        out.push_str(&format!("    {}. {label}  {}\n", i + 1, style.dim(what)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn plans_render_as_markdown_and_answer() {
        let b = block(
            Some("# Plan\n1. add `x`\n\u{1b}[2J"),
            None,
            Style::plain(),
            80,
        );
        assert!(b.contains("│ "), "{b}");
        assert!(b.contains("Plan"), "{b}");
        assert!(!b.contains('\u{1b}'), "{b:?}");
        let none = json!({});
        let (r, _) = result(&Picked::Chosen(vec![0], None), &none);
        assert_eq!(r, approve_plan(claudio::PermissionMode::AcceptEdits, &none));
        let (r, _) = result(&Picked::Chosen(vec![1], None), &none);
        assert_eq!(r, approve_plan(claudio::PermissionMode::Default, &none));
        let (r, _) = result(&Picked::Chosen(vec![], Some("add tests".into())), &none);
        assert!(
            matches!(&r, PermissionResult::Deny { message, interrupt: false, .. } if message.ends_with("add tests")),
            "{r:?}"
        );
        assert_eq!(from_line("2"), Picked::Chosen(vec![1], None));
        assert_eq!(
            from_line("more tests"),
            Picked::Chosen(vec![2], Some("more tests".into()))
        );
    }
}
