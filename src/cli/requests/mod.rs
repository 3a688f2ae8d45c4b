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
use claudio::protocol::DecisionClassification;
use claudio::PermissionResult;

/// The denial when the CLI withdrew a request while it was being asked.
pub const WITHDRAWN: &str = "The request was withdrawn.";

/// The denial for a request when no terminal can ask the person: never
/// allowed silently, and the model is told why.
/// claudio decided by itself, nobody asked: `decisionClassification` config.
pub fn nobody_to_ask(tool_name: &str) -> PermissionResult {
    let denied = match RequestKind::of_tool(tool_name) {
        RequestKind::Questions => PermissionResult::deny(question::NOBODY_TO_ASK),
        RequestKind::Plan => PermissionResult::deny(plan::NOBODY_TO_APPROVE),
        _ => PermissionResult::deny(tool::NO_TERMINAL),
    };
    denied.classified(DecisionClassification::Config)
}

/// The allow for a call the person allowed for this session before
/// ([`tool::SessionGrants`]): claudio applies its own rule, nobody is asked
/// this time, so it is `config` ("the host decided by itself", #41.2). The
/// person's answer that made the grant was `user_permanent`.
pub fn granted_before() -> PermissionResult {
    PermissionResult::allow().classified(DecisionClassification::Config)
}
