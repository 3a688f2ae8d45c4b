//! Requests from the model: the `can_use_tool` requests the CLI sends
//! while Claude works, each answered by the person. Three kinds, each a
//! model of its own here, pure (a request in, what to show, answers in, the
//! answer to send out):
//!
//! - a **tool approval** ([`tool`]): may this tool call run?
//! - a **question** ([`question`]): the model's questions
//!   (`AskUserQuestion`);
//! - a **plan** ([`plan`]): the model's plan to approve (`ExitPlanMode`).
//!
//! Two front ends show them: the chat's dialog, in its screen
//! (`chat/dialog.rs`), and `ask`'s prompts on `/dev/tty` ([`tty`]). The
//! kind of a request is the library's
//! ([`claudio::protocol::ask::RequestKind`]); how to add one is
//! `docs/requests.md`.

pub mod diff;
pub mod plan;
pub mod question;
pub mod tool;
pub mod tty;

use claudio::protocol::ask::RequestKind;
use claudio::PermissionResult;

/// The denial when the CLI withdrew a request while it was being asked.
pub const WITHDRAWN: &str = "The request was withdrawn.";

/// The denial for a request when no terminal can ask the person: never
/// allowed silently, and the model is told why.
pub fn nobody_to_ask(tool_name: &str) -> PermissionResult {
    match RequestKind::of_tool(tool_name) {
        RequestKind::Questions => PermissionResult::deny(question::NOBODY_TO_ASK),
        RequestKind::Plan => PermissionResult::deny(plan::NOBODY_TO_APPROVE),
        _ => PermissionResult::deny(tool::NO_TERMINAL),
    }
}
