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
//! Each kind's model is one [`Kind`]: both front ends drive it without
//! knowing which kind it is, the chat's dialog in its screen, key by key
//! (`chat/dialog.rs`), and `ask`'s prompts on `/dev/tty`, a line at a time
//! ([`tty`]). The kind of a request is the library's
//! ([`claudio::protocol::ask::RequestKind`]); [`registered`] is the one
//! place that maps it to its model. How to add one is `docs/requests.md`.

pub mod diff;
pub mod plan;
pub mod publish;
pub mod question;
pub mod socket;
pub mod tool;
pub mod tty;

use crate::cli::common::notify::Trigger;
use crate::cli::term::picker::{InPlace, Picked};
use crate::cli::term::style::Style;
use claudio::protocol::ask::RequestKind;
use claudio::protocol::DecisionClassification;
use claudio::{CanUseToolRequest, PermissionResult};
use crossterm::event::KeyEvent;
use std::path::Path;

/// The denial when the CLI withdrew a request while it was being asked.
pub const WITHDRAWN: &str = "The request was withdrawn.";

/// Every kind's model, registered: the one place a [`RequestKind`] is
/// mapped to what asks it. A kind the library knows and claudio does not
/// is asked as a tool approval (a yes or no, never allowed silently);
/// the test below fails until it is registered here.
pub fn registered(kind: RequestKind) -> &'static Registered {
    match kind {
        RequestKind::Questions => &question::KIND,
        RequestKind::Plan => &plan::KIND,
        _ => &tool::KIND,
    }
}

/// What claudio knows of one kind of request, before it is asked.
pub struct Registered {
    /// The denial when no terminal can ask the person.
    pub nobody_to_ask: &'static str,
    /// What `ask` says on stderr when its terminal fails ("… Bash: cannot
    /// ask on the terminal").
    pub cannot_ask: &'static str,
    /// The notice for a request of this kind: its trigger and title.
    pub notice: fn(&CanUseToolRequest) -> (Trigger, String),
    /// The request's model, ready to ask; or decided without asking (a
    /// request that cannot be read, a call allowed before). The one step
    /// that may read the disk (a proposed edit's diff); the model is pure
    /// from there.
    pub open: fn(&CanUseToolRequest, &Asking<'_>) -> Opened,
    /// A request of this kind, and how a person answers it in each front
    /// end, with the answer both must send (the tests drive every kind).
    #[cfg(test)]
    pub sample: fn() -> Sample,
}

/// What a model is opened with.
pub struct Asking<'a> {
    /// Where relative paths in the request point.
    pub cwd: &'a Path,
    /// The sub-agent that asks, when one does.
    pub agent: Option<String>,
    /// Calls allowed for this session before (not asked again).
    pub grants: &'a tool::SessionGrants,
    pub style: Style,
    /// The terminal's width.
    pub width: usize,
}

/// A request opened: to ask, or decided at once.
pub enum Opened {
    Ask(Box<dyn Kind>),
    /// Decided without asking: the note to show and the answer.
    Decided {
        note: String,
        result: PermissionResult,
    },
}

/// Where a model draws: the style and the terminal's size.
#[derive(Debug, Clone, Copy)]
pub struct Screen {
    pub style: Style,
    pub width: usize,
    pub height: usize,
    /// The terminal re-wraps its rows at a new width
    /// ([`crate::cli::term::console::reflows`]).
    pub reflows: bool,
}

/// A key or a paste, for a model asked key by key (the chat).
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    Key(KeyEvent),
    Paste(String),
}

/// The answer given, once a request is answered.
#[derive(Debug, PartialEq)]
pub struct Done {
    pub result: PermissionResult,
    /// The person chose to stop the turn too.
    pub interrupt: bool,
    /// The person allowed this exact call for the session (the CLI
    /// suggested no rule): the front end remembers it
    /// ([`tool::SessionGrants`]).
    pub grant: Option<Box<CanUseToolRequest>>,
}

impl Done {
    /// The answer, and nothing else to do.
    pub fn answer(result: PermissionResult) -> Done {
        Done {
            result,
            interrupt: false,
            grant: None,
        }
    }
}

/// What one step of a model gives.
#[derive(Debug, Default, PartialEq)]
pub struct Step {
    /// What to write to the terminal.
    pub write: String,
    /// The answer, when it is over.
    pub done: Option<Done>,
}

/// One request's model, as both front ends drive it. Pure: text and keys
/// in, text and at the end the answer out.
pub trait Kind: std::fmt::Debug + Send {
    /// The chat: the first screen (it may be decided at once).
    fn start(&mut self, at: &Screen) -> Step;
    /// The chat: a key or a paste.
    fn input(&mut self, input: Input, at: &Screen) -> Step;
    /// The chat: what is drawn is no longer where it was (a resize, with
    /// the new size; `None`: unknown), so nothing drawn is erased.
    fn screen_changed(&mut self, _size: Option<(usize, usize)>) {}
    /// The chat: the terminal is now `at`'s size (a resize while it
    /// waits): what to write to draw it again there. By default nothing
    /// ([`Kind::screen_changed`]: it is drawn anew at its next key).
    fn resized(&mut self, at: &Screen) -> String {
        self.screen_changed(Some((at.width, at.height)));
        String::new()
    }
    /// The chat: what closes what is open, when the request ends unanswered.
    fn close(&mut self) -> String;
    /// `ask`: what to write before the next line is read.
    fn prompt(&mut self, at: &Screen) -> String;
    /// `ask`: a line typed (without its newline).
    fn line(&mut self, line: &str, at: &Screen) -> Step;
    /// The denial when the terminal fails while it is asked.
    fn failed(&self) -> &'static str;
    /// The tool call this asks to run, when it asks that.
    fn call(&self) -> Option<&str> {
        None
    }
}

/// Feed a picker drawn in place a key or a paste: what to write goes to
/// `step`; the choice, once made.
pub fn feed(d: &mut InPlace, input: Input, step: &mut Step) -> Option<Picked> {
    let (text, picked) = match input {
        Input::Key(k) => d.key(k),
        Input::Paste(text) => (d.paste(&text), None),
    };
    step.write.push_str(&text);
    picked
}

/// How the tests answer a kind (see [`Registered::sample`]).
#[cfg(test)]
pub struct Sample {
    pub req: CanUseToolRequest,
    /// The chat's keys (and pastes).
    pub keys: Vec<Input>,
    /// `ask`'s lines, each ended with `\n`.
    pub lines: Vec<&'static str>,
    /// What both send.
    pub result: PermissionResult,
    /// What the first screen shows, in both.
    pub shows: &'static str,
}

/// The denial for a request when no terminal can ask the person: never
/// allowed silently, and the model is told why.
/// claudio decided by itself, nobody asked: `decisionClassification` config.
pub fn nobody_to_ask(tool_name: &str) -> PermissionResult {
    let kind = registered(RequestKind::of_tool(tool_name));
    PermissionResult::deny(kind.nobody_to_ask).classified(DecisionClassification::Config)
}

/// The allow for a call the person allowed for this session before
/// ([`tool::SessionGrants`]): claudio applies its own rule, nobody is asked
/// this time, so it is `config` ("the host decided by itself", #41.2). The
/// person's answer that made the grant was `user_permanent`.
pub fn granted_before() -> PermissionResult {
    PermissionResult::allow().classified(DecisionClassification::Config)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind the library knows is registered under itself (a kind
    /// added to the library and not here fails), with a sample of its
    /// own, and says why nobody answered when there is no terminal.
    #[test]
    fn every_kind_is_registered_under_itself() {
        let mut seen = Vec::new();
        for &kind in RequestKind::ALL {
            let r = registered(kind);
            let sample = (r.sample)();
            assert_eq!(sample.req.kind(), kind, "{kind:?} is not registered");
            let name = &sample.req.tool_name;
            let denied = nobody_to_ask(name);
            assert_eq!(
                denied,
                PermissionResult::deny(r.nobody_to_ask).classified(DecisionClassification::Config)
            );
            assert!(
                !seen.contains(&r.nobody_to_ask),
                "{name}: a denial of its own"
            );
            seen.push(r.nobody_to_ask);
        }
    }
}
