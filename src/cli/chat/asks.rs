//! Answering the model's questions and plans in the chat: the picker on the
//! raw terminal, then the answer the CLI expects (protocol.md §6).

use super::approval;
use super::keys::Keys;
use crate::cli::asking::{self, DECLINED};
use crate::cli::picker::Picked;
use crate::cli::sanitize::Sanitizer;
use crate::cli::style::Style;
use claudio::protocol::ask::{answer_questions, questions};
use claudio::{CanUseToolRequest, Cancellation, PermissionResult, RequestContext};
use std::io::{self, Write};
use tokio::sync::oneshot;

/// A tool approval waiting for the person.
pub struct Approval {
    pub req: CanUseToolRequest,
    pub ctx: RequestContext,
    pub reply: oneshot::Sender<PermissionResult>,
}

fn write(s: &str) {
    let mut out = io::stdout();
    let _ = out.write_all(s.as_bytes());
    let _ = out.flush();
}

/// Run the picker on the chat's keys; `None` when the request was
/// withdrawn or the terminal failed.
async fn pick(
    keys: &mut Keys,
    picker: crate::cli::picker::Picker,
    cancel: &Cancellation,
    style: Style,
    width: usize,
) -> Option<Picked> {
    approval::pick(keys, Some(cancel), picker, style, width)
        .await
        .ok()
        .flatten()
}

/// Ask each question in turn; answer them all, or decline.
pub async fn questions_in_chat(
    keys: &mut Keys,
    a: Approval,
    style: Style,
    width: usize,
    agent: Option<String>,
) {
    if a.ctx.cancellation.is_cancelled() {
        return;
    }
    let Some(qs) = questions(&a.req.input) else {
        write(&format!(
            "  {} {}\n",
            style.red("✗"),
            "the model asked questions claudio cannot read"
        ));
        let _ = a.reply.send(PermissionResult::deny(
            "The questions could not be read: each needs a `question` and `options`.",
        ));
        return;
    };
    let cancel = a.ctx.cancellation.clone();
    let mut answers: Vec<(&str, String)> = Vec::new();
    for (i, q) in qs.iter().enumerate() {
        write(&asking::question_head(
            q,
            i,
            qs.len(),
            agent.as_deref(),
            style,
        ));
        let picked = pick(keys, asking::question_picker(q), &cancel, style, width).await;
        match picked.as_ref().and_then(|p| asking::answer_of(q, p)) {
            Some(answer) => {
                write(&format!(
                    "  {} {}\n",
                    style.green("✓"),
                    Sanitizer::clean(&answer)
                ));
                answers.push((q.question.as_str(), answer));
            }
            None => {
                let (result, note) = if picked.is_none() && cancel.is_cancelled() {
                    (
                        PermissionResult::deny("The request was withdrawn."),
                        "withdrawn",
                    )
                } else if picked.is_none() {
                    (
                        PermissionResult::deny("The question prompt failed; nothing was answered."),
                        "the prompt failed",
                    )
                } else {
                    (PermissionResult::deny(DECLINED), "declined to answer")
                };
                write(&format!("  {}\n", style.dim(note)));
                let _ = a.reply.send(result);
                return;
            }
        }
    }
    let _ = a.reply.send(answer_questions(&a.req.input, answers));
}

/// Show the plan and ask how to go on. An approval carries the new mode;
/// the CLI confirms it with a `system`/`status` message.
pub async fn plan_in_chat(
    keys: &mut Keys,
    a: Approval,
    plan: Option<String>,
    style: Style,
    width: usize,
    agent: Option<String>,
) {
    if a.ctx.cancellation.is_cancelled() {
        return;
    }
    let cancel = a.ctx.cancellation.clone();
    write(&asking::plan_block(
        plan.as_deref(),
        agent.as_deref(),
        style,
    ));
    let picked = pick(keys, asking::plan_picker(), &cancel, style, width).await;
    let (result, note) = match &picked {
        Some(p) => asking::plan_result(p, &a.req.input, plan.as_deref()),
        None if cancel.is_cancelled() => (
            PermissionResult::deny("The request was withdrawn."),
            "withdrawn",
        ),
        None => (
            PermissionResult::deny("The plan prompt failed; nothing was approved."),
            "the prompt failed",
        ),
    };
    let mark = if matches!(result, PermissionResult::Allow { .. }) {
        style.green("✓")
    } else {
        style.yellow("•")
    };
    write(&format!("  {mark} {}\n", style.dim(note)));
    let _ = a.reply.send(result);
}
