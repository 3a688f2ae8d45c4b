//! The session's sub-agents and background tasks, followed from the
//! messages: which exist, which still work, which run in the background.
//!
//! The CLI tells of them in several places at once: the main agent's `Task`
//! (or `Agent`) tool call and its result, and the `system` lines
//! `task_started`, `task_updated`, `task_notification` and
//! `background_tasks_changed` (protocol.md §5). A [`Tracker`] takes every
//! message of a session, in order, and keeps one [`Task`] per tool call
//! that started one. Any front end can hold one: it says what to draw,
//! never how.
//!
//! ```
//! use claudio::{tasks::Tracker, Message};
//! let mut tracker = Tracker::default();
//! for line in [
//!     // the main agent starts a sub-agent; its call returns at once
//!     r#"{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"toolu_1","name":"Agent","input":{"description":"count files","prompt":"…"}}]}}"#,
//!     r#"{"type":"system","subtype":"task_started","task_id":"a1","tool_use_id":"toolu_1","description":"count files","task_type":"local_agent"}"#,
//!     r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"Async agent launched successfully."}]}}"#,
//! ] {
//!     tracker.observe(&Message::parse_str(line)?);
//! }
//! assert_eq!(tracker.background_running(), 1);
//! let task = tracker.by_task("a1").expect("tracked");
//! assert_eq!(task.description.as_deref(), Some("count files"));
//!
//! let done = r#"{"type":"system","subtype":"task_notification","task_id":"a1","status":"completed","summary":"12 files."}"#;
//! assert!(tracker.observe(&Message::parse_str(done)?), "an agent stopped working");
//! assert_eq!(tracker.running().count(), 0);
//! # Ok::<(), serde_json::Error>(())
//! ```

use crate::protocol::{ContentBlock, MessageContent, SystemMessage};
use crate::Message;
use serde_json::Value;

/// Whether a tool starts a sub-agent (the API names it `Agent`, the CLI's
/// tool list `Task`; both are taken).
///
/// ```
/// assert!(claudio::tasks::is_task_tool("Agent"));
/// assert!(!claudio::tasks::is_task_tool("Bash"));
/// ```
pub fn is_task_tool(name: &str) -> bool {
    matches!(name, "Task" | "Agent")
}

/// Whether a `Task` call's result only says the agent went to work in the
/// background (its report comes later, in a turn of its own). The CLI
/// 2.1.328 and 2.1.332 begin that result with `Async agent launched`.
///
/// ```
/// use claudio::tasks::is_background_launch;
/// assert!(is_background_launch("Async agent launched successfully.\nagentId: a1"));
/// assert!(!is_background_launch("Found 3 files."));
/// ```
pub fn is_background_launch(result_text: &str) -> bool {
    result_text.starts_with("Async agent launched")
}

/// One sub-agent or background task of the session.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Task {
    /// The tool call that started it: a `Task` call for a sub-agent (whose
    /// messages carry it as `parent_tool_use_id`), a `Bash` call for a
    /// command run in the background.
    pub call: String,
    /// The task id the CLI reports in `task_*` lines (and as
    /// [`agent_id`](crate::CanUseToolRequest::agent_id) on a sub-agent's
    /// permission requests); `None` until its `task_started` comes.
    pub task_id: Option<String>,
    /// What it does, as sent (the `Task` call's `description`, else its
    /// `subagent_type`, else the `task_started` description). Untrusted
    /// text: make it inert before a terminal shows it.
    pub description: Option<String>,
    /// `local_agent`, `local_bash`, ... when `task_started` said.
    pub task_type: Option<String>,
    /// It works in the background (its tool call returned at once; its
    /// report comes in a turn of its own).
    pub background: bool,
    /// It does no more work.
    pub done: bool,
    /// Its tool call has not returned yet.
    call_open: bool,
}

/// The session's sub-agents and background tasks, from its messages. See
/// the [module](self) for an example.
#[derive(Debug, Clone, Default)]
pub struct Tracker {
    tasks: Vec<Task>,
}

impl Tracker {
    /// Take in the session's next message. Returns whether a task stopped
    /// working because of it (its call returned in the foreground, a
    /// final status, a background list without it).
    pub fn observe(&mut self, m: &Message) -> bool {
        match m {
            Message::Assistant(a) if a.parent_tool_use_id.is_none() => {
                for b in &a.message.content {
                    if let ContentBlock::ToolUse(t) = b {
                        if is_task_tool(&t.name) && self.get(&t.id).is_none() {
                            self.tasks.push(Task {
                                call: t.id.clone(),
                                task_id: None,
                                description: call_description(&t.input),
                                task_type: None,
                                background: false,
                                done: false,
                                call_open: true,
                            });
                        }
                    }
                }
                false
            }
            Message::User(u) if u.parent_tool_use_id.is_none() => {
                let MessageContent::Blocks(blocks) = &u.message.content else {
                    return false;
                };
                let mut ended = false;
                for b in blocks {
                    let ContentBlock::ToolResult(r) = b else {
                        continue;
                    };
                    let Some(t) = self.tasks.iter_mut().find(|t| t.call == r.tool_use_id) else {
                        continue;
                    };
                    if !t.call_open {
                        continue;
                    }
                    t.call_open = false;
                    if !r.is_error() && (t.background || is_background_launch(&r.text())) {
                        t.background = true;
                    } else if !t.done {
                        // a foreground agent that finished, or one that
                        // never started
                        t.done = true;
                        ended = true;
                    }
                }
                ended
            }
            Message::System(s) => self.system(s),
            _ => false,
        }
    }

    fn system(&mut self, s: &SystemMessage) -> bool {
        match s {
            SystemMessage::TaskStarted(t) => {
                let (Some(task_id), Some(call)) = (&t.task_id, &t.tool_use_id) else {
                    return false;
                };
                let background = t.is_backgrounded == Some(true);
                match self.tasks.iter_mut().find(|a| &a.call == call) {
                    Some(a) => {
                        a.task_id = Some(task_id.clone());
                        a.background |= background;
                        if a.task_type.is_none() {
                            a.task_type.clone_from(&t.task_type);
                        }
                        if a.description.is_none() {
                            a.description.clone_from(&t.description);
                        }
                    }
                    None => self.tasks.push(Task {
                        call: call.clone(),
                        task_id: Some(task_id.clone()),
                        description: t.description.clone(),
                        task_type: t.task_type.clone(),
                        background,
                        done: false,
                        call_open: false,
                    }),
                }
                false
            }
            SystemMessage::TaskUpdated(u) => {
                let Some(task_id) = &u.task_id else {
                    return false;
                };
                let patch = u.patch.as_ref();
                if patch.and_then(|p| p.is_backgrounded) == Some(true) {
                    for t in self.by_task_mut(task_id) {
                        t.background = true;
                    }
                }
                if u.status().is_some_and(|s| s.is_final()) {
                    self.end(task_id)
                } else {
                    false
                }
            }
            // a notification ends its task whatever its status says
            SystemMessage::TaskNotification(n) => match &n.task_id {
                Some(task_id) => self.end(task_id),
                None => false,
            },
            SystemMessage::BackgroundTasksChanged(c) => {
                let live: Vec<&str> = c
                    .tasks
                    .iter()
                    .filter_map(|t| t.task_id.as_deref())
                    .collect();
                let mut ended = false;
                for t in &mut self.tasks {
                    let gone = t.task_id.as_deref().is_some_and(|id| !live.contains(&id));
                    // a call still open is a foreground task: not in the list
                    if gone && !t.call_open && !t.done {
                        t.done = true;
                        ended = true;
                    }
                }
                ended
            }
            _ => false,
        }
    }

    fn by_task_mut<'a>(&'a mut self, task_id: &'a str) -> impl Iterator<Item = &'a mut Task> {
        self.tasks
            .iter_mut()
            .filter(move |t| t.task_id.as_deref() == Some(task_id))
    }

    fn end(&mut self, task_id: &str) -> bool {
        let mut ended = false;
        for t in self.by_task_mut(task_id) {
            ended |= !std::mem::replace(&mut t.done, true);
        }
        ended
    }

    /// The task its tool call started.
    pub fn get(&self, call: &str) -> Option<&Task> {
        self.tasks.iter().find(|t| t.call == call)
    }

    /// The task with this task id.
    pub fn by_task(&self, task_id: &str) -> Option<&Task> {
        self.tasks
            .iter()
            .find(|t| t.task_id.as_deref() == Some(task_id))
    }

    /// Every task seen, oldest first.
    pub fn tasks(&self) -> &[Task] {
        &self.tasks
    }

    /// The tasks still at work, oldest first.
    pub fn running(&self) -> impl Iterator<Item = &Task> {
        self.tasks.iter().filter(|t| !t.done)
    }

    /// How many tasks still work in the background (a turn's `result` does
    /// not end them: their reports come later).
    pub fn background_running(&self) -> usize {
        self.running().filter(|t| t.background).count()
    }

    /// A new session (a restart, another session resumed): none of the old
    /// one's tasks works any more.
    pub fn clear(&mut self) {
        self.tasks.clear();
    }
}

/// What a `Task` call says it does: its `description`, else its
/// `subagent_type`.
fn call_description(input: &Value) -> Option<String> {
    ["description", "subagent_type"]
        .iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str))
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn msg(v: Value) -> Message {
        Message::parse(v.to_string().as_bytes()).unwrap()
    }

    fn call(id: &str, name: &str, input: Value) -> Message {
        msg(json!({"type":"assistant","message":{"id":"m","content":[
            {"type":"tool_use","id":id,"name":name,"input":input}]}}))
    }

    fn result(id: &str, text: &str) -> Message {
        msg(json!({"type":"user","message":{"content":[
            {"type":"tool_result","tool_use_id":id,"content":text}]}}))
    }

    #[test]
    fn a_foreground_agent_ends_with_its_call() {
        let mut t = Tracker::default();
        assert!(!t.observe(&call("fg", "Task", json!({"description":"read files"}))));
        assert_eq!(
            t.get("fg").unwrap().description.as_deref(),
            Some("read files")
        );
        assert_eq!(t.running().count(), 1);
        t.observe(&msg(
            json!({"type":"system","subtype":"task_started","task_id":"t1",
            "tool_use_id":"fg","description":"read files","is_backgrounded":false,
            "task_type":"local_agent"}),
        ));
        assert_eq!(
            t.by_task("t1").unwrap().task_type.as_deref(),
            Some("local_agent")
        );
        // a background list without it does not end a call still open
        assert!(!t.observe(&msg(
            json!({"type":"system","subtype":"background_tasks_changed","tasks":[]})
        )));
        assert!(!t.get("fg").unwrap().done);
        assert!(t.observe(&result("fg", "found 3")));
        assert!(t.get("fg").unwrap().done);
        assert_eq!(t.background_running(), 0);
        // told twice, ended once
        assert!(
            !t.observe(&msg(json!({"type":"system","subtype":"task_notification",
            "task_id":"t1","status":"completed"})))
        );
    }

    #[test]
    fn a_background_agent_ends_with_its_notification() {
        let mut t = Tracker::default();
        t.observe(&call("bg", "Agent", json!({"subagent_type":"counter"})));
        t.observe(&msg(
            json!({"type":"system","subtype":"task_started","task_id":"t2",
            "tool_use_id":"bg","is_backgrounded":true}),
        ));
        assert!(!t.observe(&result("bg", "Async agent launched successfully.")));
        assert_eq!(t.background_running(), 1);
        assert_eq!(
            t.by_task("t2").unwrap().description.as_deref(),
            Some("counter")
        );
        // progress and a status that is not final leave it at work
        assert!(
            !t.observe(&msg(json!({"type":"system","subtype":"task_progress",
            "task_id":"t2","description":"Running ls"})))
        );
        assert!(
            !t.observe(&msg(json!({"type":"system","subtype":"task_updated",
            "task_id":"t2","patch":{"status":"running"}})))
        );
        assert_eq!(t.background_running(), 1);
        assert!(
            t.observe(&msg(json!({"type":"system","subtype":"task_notification",
            "task_id":"t2","status":"completed","summary":"done"})))
        );
        assert_eq!(t.background_running(), 0);
        t.clear();
        assert!(t.tasks().is_empty());
    }

    #[test]
    fn the_background_list_and_final_updates_end_tasks() {
        let mut t = Tracker::default();
        // a background shell command: no Task call, known from task_started
        for (id, call) in [("b1", "toolu_b1"), ("b2", "toolu_b2")] {
            t.observe(&msg(
                json!({"type":"system","subtype":"task_started","task_id":id,
                "tool_use_id":call,"description":"sleep","task_type":"local_bash",
                "is_backgrounded":true}),
            ));
        }
        assert_eq!(t.background_running(), 2);
        // the level: b1 is gone
        assert!(t.observe(&msg(
            json!({"type":"system","subtype":"background_tasks_changed",
            "tasks":[{"task_id":"b2","task_type":"local_bash","description":"sleep"}]})
        )));
        assert!(t.by_task("b1").unwrap().done);
        assert!(
            t.observe(&msg(json!({"type":"system","subtype":"task_updated",
            "task_id":"b2","patch":{"status":"killed"}})))
        );
        assert_eq!(t.running().count(), 0);
    }

    #[test]
    fn a_foreground_task_moved_to_the_background_keeps_working() {
        let mut t = Tracker::default();
        t.observe(&call("fg", "Task", json!({"description":"slow"})));
        t.observe(&msg(
            json!({"type":"system","subtype":"task_started","task_id":"t3",
            "tool_use_id":"fg","is_backgrounded":false}),
        ));
        t.observe(&msg(
            json!({"type":"system","subtype":"task_updated","task_id":"t3",
            "patch":{"is_backgrounded":true}}),
        ));
        // its call returns with the news that it went on in the background
        assert!(!t.observe(&result("fg", "Moved to the background.")));
        assert_eq!(t.background_running(), 1);
    }

    #[test]
    fn a_sub_agent_s_own_calls_are_not_tasks_of_the_session() {
        let mut t = Tracker::default();
        let inner = msg(
            json!({"type":"assistant","parent_tool_use_id":"fg","message":{"id":"m",
            "content":[{"type":"tool_use","id":"x","name":"Task","input":{}}]}}),
        );
        t.observe(&inner);
        assert!(t.tasks().is_empty());
        // misshapen or partial lines change nothing
        t.observe(&msg(
            json!({"type":"system","subtype":"task_started","task_id":7}),
        ));
        t.observe(&msg(json!({"type":"system","subtype":"task_updated"})));
        assert!(t.tasks().is_empty());
    }
}
