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
use std::collections::{BTreeSet, HashMap, HashSet};

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

/// How many finished tasks a [`Tracker`] keeps at least (it drops older
/// finished ones, now and then, so that a long session, or a stream that
/// starts task after task, does not keep them all).
const FINISHED_KEPT: usize = 1_000;

/// The session's sub-agents and background tasks, from its messages. See
/// the [module](self) for an example.
///
/// Each message costs time in its own size, not in the number of tasks
/// seen: tasks are found through maps by tool call and by task id, and
/// finished tasks beyond the last 1,000 are dropped (now and then, so
/// that a session that starts task after task does not keep them all).
#[derive(Debug, Clone, Default)]
pub struct Tracker {
    tasks: Vec<Task>,
    /// `tasks` index by `call` (one task per call).
    by_call: HashMap<String, usize>,
    /// `tasks` indexes by task id (several calls may name one).
    by_id: HashMap<String, Ids>,
    /// The task ids that some task waits on in the background list for.
    idle_ids: HashSet<String>,
    /// Tasks at work in the background.
    background_running: usize,
    /// Tasks done (and still kept).
    finished: usize,
}

/// The tasks of one task id, by what can still change them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Ids {
    /// All of them, oldest first.
    all: BTreeSet<usize>,
    /// Not done: a final status ends them.
    working: BTreeSet<usize>,
    /// Not in the background: a patch moves them there.
    foreground: BTreeSet<usize>,
    /// Not done, call returned: a background list without them ends them.
    idle: BTreeSet<usize>,
}

impl Tracker {
    /// Take in the session's next message. Returns whether a task stopped
    /// working because of it (its call returned in the foreground, a
    /// final status, a background list without it).
    pub fn observe(&mut self, m: &Message) -> bool {
        let ended = match m {
            Message::Assistant(a) if a.parent_tool_use_id.is_none() => {
                for b in &a.message.content {
                    if let ContentBlock::ToolUse(t) = b {
                        if is_task_tool(&t.name) && !self.by_call.contains_key(&t.id) {
                            self.push(Task {
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
                    let Some(&i) = self.by_call.get(&r.tool_use_id) else {
                        continue;
                    };
                    if !self.tasks[i].call_open {
                        continue;
                    }
                    ended |= self.update(i, |t| {
                        t.call_open = false;
                        if !r.is_error() && (t.background || is_background_launch(&r.text())) {
                            t.background = true;
                            false
                        } else {
                            // a foreground agent that finished, or one that
                            // never started
                            !std::mem::replace(&mut t.done, true)
                        }
                    });
                }
                ended
            }
            Message::System(s) => self.system(s),
            _ => false,
        };
        self.compact();
        ended
    }

    fn system(&mut self, s: &SystemMessage) -> bool {
        match s {
            SystemMessage::TaskStarted(t) => {
                let (Some(task_id), Some(call)) = (&t.task_id, &t.tool_use_id) else {
                    return false;
                };
                let background = t.is_backgrounded == Some(true);
                match self.by_call.get(call) {
                    Some(&i) => self.update(i, |a| {
                        a.task_id = Some(task_id.clone());
                        a.background |= background;
                        if a.task_type.is_none() {
                            a.task_type.clone_from(&t.task_type);
                        }
                        if a.description.is_none() {
                            a.description.clone_from(&t.description);
                        }
                    }),
                    None => self.push(Task {
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
                    let moved = self
                        .by_id
                        .get(task_id)
                        .map(|e| e.foreground.iter().copied().collect::<Vec<_>>())
                        .unwrap_or_default();
                    for i in moved {
                        self.update(i, |t| t.background = true);
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
                let live: HashSet<&str> = c
                    .tasks
                    .iter()
                    .filter_map(|t| t.task_id.as_deref())
                    .collect();
                // only ids some task waits on are looked at: those not in
                // the list end, the rest are paid for by the list itself
                let gone: Vec<usize> = self
                    .idle_ids
                    .iter()
                    .filter(|id| !live.contains(id.as_str()))
                    .flat_map(|id| self.by_id[id].idle.iter().copied())
                    .collect();
                // a call still open is a foreground task: not in the list
                for &i in &gone {
                    self.update(i, |t| t.done = true);
                }
                !gone.is_empty()
            }
            _ => false,
        }
    }

    fn end(&mut self, task_id: &str) -> bool {
        let working: Vec<usize> = self
            .by_id
            .get(task_id)
            .map(|e| e.working.iter().copied().collect())
            .unwrap_or_default();
        for &i in &working {
            self.update(i, |t| t.done = true);
        }
        !working.is_empty()
    }

    fn push(&mut self, task: Task) {
        let i = self.tasks.len();
        self.by_call.insert(task.call.clone(), i);
        self.tasks.push(task);
        self.index(i);
    }

    /// Change task `i`, keeping the maps and counts in step.
    fn update<R>(&mut self, i: usize, change: impl FnOnce(&mut Task) -> R) -> R {
        self.unindex(i);
        let r = change(&mut self.tasks[i]);
        self.index(i);
        r
    }

    fn index(&mut self, i: usize) {
        let t = &self.tasks[i];
        self.finished += usize::from(t.done);
        self.background_running += usize::from(!t.done && t.background);
        let Some(id) = &t.task_id else {
            return;
        };
        let e = self.by_id.entry(id.clone()).or_default();
        e.all.insert(i);
        if !t.done {
            e.working.insert(i);
        }
        if !t.background {
            e.foreground.insert(i);
        }
        if !t.done && !t.call_open {
            e.idle.insert(i);
            if !self.idle_ids.contains(id) {
                self.idle_ids.insert(id.clone());
            }
        }
    }

    fn unindex(&mut self, i: usize) {
        let t = &self.tasks[i];
        self.finished -= usize::from(t.done);
        self.background_running -= usize::from(!t.done && t.background);
        let Some(id) = &t.task_id else {
            return;
        };
        let Some(e) = self.by_id.get_mut(id) else {
            return;
        };
        e.all.remove(&i);
        e.working.remove(&i);
        e.foreground.remove(&i);
        e.idle.remove(&i);
        if e.idle.is_empty() {
            self.idle_ids.remove(id);
        }
        if e.all.is_empty() {
            self.by_id.remove(id);
        }
    }

    /// Drop the oldest finished tasks beyond the last [`FINISHED_KEPT`],
    /// once there are at least as many to drop as half the tasks kept (so
    /// rebuilding the maps costs each task O(1), amortised).
    fn compact(&mut self) {
        let excess = self.finished.saturating_sub(FINISHED_KEPT);
        if excess < FINISHED_KEPT.max(self.tasks.len() / 2) {
            return;
        }
        let mut dropped = 0;
        self.tasks.retain(|t| {
            let drop = t.done && dropped < excess;
            dropped += usize::from(drop);
            !drop
        });
        self.reindex();
    }

    fn reindex(&mut self) {
        self.by_call.clear();
        self.by_id.clear();
        self.idle_ids.clear();
        self.background_running = 0;
        self.finished = 0;
        for i in 0..self.tasks.len() {
            self.by_call.insert(self.tasks[i].call.clone(), i);
            self.index(i);
        }
    }

    /// The task its tool call started.
    pub fn get(&self, call: &str) -> Option<&Task> {
        self.by_call.get(call).map(|&i| &self.tasks[i])
    }

    /// The task with this task id (the oldest, when several calls named
    /// it).
    pub fn by_task(&self, task_id: &str) -> Option<&Task> {
        let e = self.by_id.get(task_id)?;
        e.all.first().map(|&i| &self.tasks[i])
    }

    /// Every task at work and the last finished ones (at least the last
    /// 1,000; older finished ones are dropped), oldest first.
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
        self.background_running
    }

    /// A new session (a restart, another session resumed): none of the old
    /// one's tasks works any more.
    pub fn clear(&mut self) {
        *self = Tracker::default();
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

    impl Tracker {
        /// The maps and counts say what the tasks say.
        fn assert_in_step(&self) {
            let mut fresh = Tracker {
                tasks: self.tasks.clone(),
                ..Tracker::default()
            };
            fresh.reindex();
            assert_eq!(self.by_call, fresh.by_call);
            assert_eq!(self.by_id, fresh.by_id);
            assert_eq!(self.idle_ids, fresh.idle_ids);
            assert_eq!(self.background_running, fresh.background_running);
            assert_eq!(self.finished, fresh.finished);
            assert_eq!(self.by_call.len(), self.tasks.len(), "one task per call");
            assert_eq!(
                self.background_running,
                self.running().filter(|t| t.background).count()
            );
        }
    }

    fn started(id: &str, call: &str) -> Message {
        msg(
            json!({"type":"system","subtype":"task_started","task_id":id,
            "tool_use_id":call,"task_type":"local_bash","is_backgrounded":true}),
        )
    }

    fn notified(id: &str) -> Message {
        msg(
            json!({"type":"system","subtype":"task_notification","task_id":id,
            "status":"completed"}),
        )
    }

    #[test]
    fn the_maps_stay_in_step_through_every_kind_of_change() {
        let mut t = Tracker::default();
        let steps = [
            call("c1", "Task", json!({"description":"one"})),
            call("c2", "Agent", json!({})),
            started("t1", "c1"),
            started("t1", "c2"), // two calls, one task id
            started("t2", "c3"),
            msg(
                json!({"type":"system","subtype":"task_updated","task_id":"t1",
                "patch":{"is_backgrounded":true}}),
            ),
            result("c1", "Async agent launched"),
            started("t3", "c1"), // its task id changes
            msg(json!({"type":"system","subtype":"background_tasks_changed",
                "tasks":[{"task_id":"t3"}]})),
            result("c2", "done"),
            notified("t3"),
            msg(
                json!({"type":"system","subtype":"task_updated","task_id":"t1",
                "patch":{"status":"failed"}}),
            ),
        ];
        for m in &steps {
            t.observe(m);
            t.assert_in_step();
        }
        assert_eq!(t.tasks().len(), 3);
        assert_eq!(t.running().count(), 0);
        assert_eq!(t.by_task("t3").unwrap().call, "c1");
        assert_eq!(t.by_task("t1").unwrap().call, "c2");
    }

    #[test]
    fn twenty_thousand_background_tasks_start_are_listed_and_end() {
        const N: usize = 20_000;
        let mut t = Tracker::default();
        for i in 0..N {
            assert!(!t.observe(&started(&format!("t{i}"), &format!("c{i}"))));
        }
        assert_eq!(t.background_running(), N);
        let listed: Vec<Value> = (0..N).map(|i| json!({"task_id":format!("t{i}")})).collect();
        let listed = msg(json!({"type":"system","subtype":"background_tasks_changed",
            "tasks":listed}));
        assert!(!t.observe(&listed), "every task is listed");
        t.assert_in_step();
        for i in 0..N {
            assert!(t.observe(&notified(&format!("t{i}"))), "t{i} ends");
            assert!(!t.observe(&notified(&format!("t{i}"))), "t{i} ends once");
            assert_eq!(t.background_running(), N - i - 1);
            if i % 1_000 == 0 {
                t.assert_in_step();
            }
        }
        t.assert_in_step();
        // the finished ones kept are bounded, and the newest
        assert!(t.tasks().len() <= 3 * FINISHED_KEPT, "{}", t.tasks().len());
        assert!(t.tasks().len() >= FINISHED_KEPT);
        assert!(t.by_task(&format!("t{}", N - 1)).unwrap().done);
        assert!(t.get("c0").is_none(), "the oldest finished one is dropped");
        // a list without the (finished) tasks ends none
        assert!(!t.observe(&msg(
            json!({"type":"system","subtype":"background_tasks_changed","tasks":[]})
        )));
    }

    #[test]
    fn twenty_thousand_calls_on_one_task_id_end_together() {
        const N: usize = 20_000;
        let mut t = Tracker::default();
        let patch = msg(
            json!({"type":"system","subtype":"task_updated","task_id":"same",
            "patch":{"is_backgrounded":true}}),
        );
        for i in 0..N {
            t.observe(&call(&format!("c{i}"), "Task", json!({})));
            t.observe(&msg(json!({"type":"system","subtype":"task_started",
                "task_id":"same","tool_use_id":format!("c{i}")})));
            t.observe(&patch);
            t.observe(&msg(
                json!({"type":"system","subtype":"background_tasks_changed",
                "tasks":[{"task_id":"same"}]}),
            ));
        }
        t.assert_in_step();
        assert_eq!(t.background_running(), N);
        assert_eq!(t.by_task("same").unwrap().call, "c0");
        assert!(t.observe(&notified("same")));
        assert!(!t.observe(&notified("same")));
        assert_eq!(t.running().count(), 0);
        t.assert_in_step();
    }
}
