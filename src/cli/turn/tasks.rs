//! The session's sub-agents as the program shows them: the library's
//! [`claudio::tasks::Tracker`] follows them (read the same way by the chat
//! and by `ask`); this adds what they are called on screen.

use claudio::tasks::{Task, Tracker};

pub use claudio::tasks::is_task_tool;

/// What a sub-agent is called on screen: its description (else its type),
/// one line, inert; `agent` when it has neither.
pub fn agent_label(description: Option<&str>) -> String {
    description
        .map(|d| crate::cli::sanitize::Sanitizer::clean(&crate::cli::term::text::first_line(d, 60)))
        .filter(|d| !d.trim().is_empty())
        .unwrap_or_else(|| "agent".into())
}

/// One sub-agent (or background task), as it is shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Agent {
    /// The `Task` call that started it (its sub-agent's messages carry it
    /// as `parent_tool_use_id`).
    pub call: String,
    /// What it is called on screen.
    pub label: String,
    /// It works in the background (its report comes in a turn of its own).
    pub background: bool,
}

impl Agent {
    fn of(t: &Task) -> Agent {
        Agent {
            call: t.call.clone(),
            label: agent_label(t.description.as_deref()),
            background: t.background,
        }
    }
}

/// The session's sub-agents as the screen names them: a view of the
/// library's [`Tracker`] (the chat's and `ask`'s
/// [`claudio::progress::Progress`] holds it).
#[derive(Debug, Clone, Copy)]
pub struct Agents<'a> {
    tracker: &'a Tracker,
}

impl<'a> Agents<'a> {
    /// The agents `tracker` follows.
    pub fn new(tracker: &'a Tracker) -> Agents<'a> {
        Agents { tracker }
    }

    /// Whether a `Task` call started a known agent.
    pub fn knows(&self, call: &str) -> bool {
        self.tracker.get(call).is_some()
    }

    /// Whether the agent of `call` is done (or unknown).
    pub fn is_done(&self, call: &str) -> bool {
        self.tracker.get(call).is_none_or(|t| t.done)
    }

    /// The agent with this task id.
    pub fn by_task(&self, task_id: &str) -> Option<Agent> {
        self.tracker.by_task(task_id).map(Agent::of)
    }

    /// What the agent of `call` is called (`sub-agent` when it is unknown).
    pub fn label(&self, call: &str) -> String {
        self.tracker
            .get(call)
            .map(|t| agent_label(t.description.as_deref()))
            .unwrap_or_else(|| "sub-agent".into())
    }

    /// The agents still at work, oldest first.
    pub fn running(&self) -> impl Iterator<Item = Agent> + 'a {
        self.tracker.running().map(Agent::of)
    }

    /// How many agents still work in the background.
    pub fn background_running(&self) -> usize {
        self.tracker.background_running()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use claudio::Message;
    use serde_json::{json, Value};

    fn msg(v: Value) -> Message {
        Message::parse(v.to_string().as_bytes()).unwrap()
    }

    #[test]
    fn agents_are_named_inert_from_call_to_report() {
        let mut t = Tracker::default();
        t.observe(&msg(json!({"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"fg","name":"Task","input":{"description":"read\u{1b}[2J files\nand more"}}]}})));
        // one line, the escape sequence gone
        assert_eq!(Agents::new(&t).label("fg"), "read files…");
        assert_eq!(Agents::new(&t).running().count(), 1);
        assert!(!Agents::new(&t).is_done("fg"));
        t.observe(&msg(json!({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"fg","content":"found 3"}]}})));
        assert!(Agents::new(&t).is_done("fg"));
        // a background one, known from its task_started alone
        t.observe(&msg(json!({"type":"system","subtype":"task_started","task_id":"t2","tool_use_id":"bg","description":"count","is_backgrounded":true})));
        assert_eq!(Agents::new(&t).background_running(), 1);
        let bg = Agents::new(&t).by_task("t2").unwrap();
        assert_eq!(
            (bg.call.as_str(), bg.label.as_str(), bg.background),
            ("bg", "count", true)
        );
        assert!(t.observe(&msg(json!({"type":"system","subtype":"task_notification","task_id":"t2","status":"completed"}))));
        let a = Agents::new(&t);
        assert_eq!(a.background_running(), 0);
        assert_eq!(a.label("unknown"), "sub-agent");
        assert!(a.knows("fg") && !a.knows("unknown"));
        assert_eq!(agent_label(Some("  ")), "agent");
    }
}
