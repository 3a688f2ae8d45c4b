//! What a session's work means, read once for every front end: which tool
//! calls run and how each ended, the sub-agents, the model's task list,
//! whether a turn is open, and what the session cost.
//!
//! A [`Progress`] takes the session's [`Event`]s (or only its
//! [`Message`]s) in order and keeps that meaning as typed values. It does
//! no I/O and reads no clock; what each event changed is handed to a sink
//! (a closure taking [`Change`]s), as a searcher hands its matches to any
//! sink: a terminal, a notifier, a screen of many sessions each draw from
//! the same reading and decide only how it looks. [`Progress::snapshot`]
//! is the state as one serializable value, to send elsewhere.
//!
//! Everything it keeps is the CLI's text as sent (tool names, inputs, task
//! subjects): untrusted, to be made inert before a terminal shows it.
//!
//! ```no_run
//! # async fn demo() -> claudio::Result<()> {
//! use claudio::progress::{Change, Progress};
//! use claudio::{Client, Event, Options, StreamExt};
//!
//! let client = Client::connect(Options::default()).await?;
//! client.send("Run the tests and fix what fails").await?;
//! let mut progress = Progress::default();
//! let mut events = client.events();
//! while let Some(event) = events.next().await {
//!     let event = event?;
//!     progress.observe_event_with(&event, |change| match change {
//!         Change::CallStarted(id) => println!("started {id}"),
//!         Change::CallEnded { call, end } => println!("{} ended: {end:?}", call.name),
//!         Change::TodosChanged => println!("the task list changed"),
//!         _ => {}
//!     });
//!     for call in progress.running() {
//!         println!("  running {} ({})", call.name, call.id);
//!     }
//!     if matches!(event, Event::TurnEnded) && !progress.turn_open() {
//!         println!("done; the session cost ${:.4}", progress.cost_usd().unwrap_or(0.0));
//!         break;
//!     }
//! }
//! # Ok(()) }
//! ```
//!
//! Fed a recorded stream (what the CLI wrote, line by line), it gives the
//! same reading:
//!
//! ```
//! use claudio::progress::{Progress, TodoStatus};
//! use claudio::Message;
//! let mut progress = Progress::default();
//! for line in [
//!     r#"{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"cargo test"}},{"type":"tool_use","id":"w1","name":"TodoWrite","input":{"todos":[{"content":"Fix the parser","status":"in_progress","activeForm":"Fixing the parser"}]}}]}}"#,
//!     r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"w1","content":"ok"}]}}"#,
//! ] {
//!     progress.observe(&Message::parse_str(line)?);
//! }
//! let running: Vec<&str> = progress.running().map(|c| c.name.as_str()).collect();
//! assert_eq!(running, ["Bash"]);
//! assert_eq!(progress.todos().items()[0].subject, "Fix the parser");
//! assert_eq!(progress.todos().items()[0].status, TodoStatus::InProgress);
//!
//! let end = r#"{"type":"result","subtype":"success","is_error":false,"total_cost_usd":0.012}"#;
//! progress.observe(&Message::parse_str(end)?);
//! assert_eq!(progress.running().count(), 0);
//! assert_eq!(progress.cost_usd(), Some(0.012));
//! # Ok::<(), serde_json::Error>(())
//! ```

use crate::protocol::{
    AssistantMessage, ContentBlock, MessageContent, ResultMessage, StreamEvent, StreamEventMessage,
    ToolResultBlock, Usage,
};
use crate::tasks::{is_background_launch, is_task_tool, Tracker};
use crate::{Event, Message};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

/// A tool call in flight.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolCall {
    /// The call's id (`toolu_...`).
    pub id: String,
    /// The tool (`Bash`, `Edit`, `mcp__server__tool`, ...), as sent.
    pub name: String,
    /// The tool's input, as sent.
    pub input: Value,
    /// The `Task` call whose sub-agent made this call; `None` for the main
    /// agent's own calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
}

/// How a tool call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum CallEnd {
    /// Its result came and says it worked.
    Done,
    /// Its result says it failed (`is_error`).
    Failed,
    /// A `Task` call whose agent goes on in the background (its report
    /// comes later, in a turn of its own).
    Background,
}

/// What one event changed, handed to the sink of
/// [`Progress::observe_with`] in the order it happened.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Change {
    /// A tool call began (its id: see [`Progress::call`]).
    CallStarted(String),
    /// A tool call's result came.
    CallEnded {
        /// The call.
        call: ToolCall,
        /// How it ended.
        end: CallEnd,
    },
    /// A call stopped being followed without its result: the sub-agent
    /// that made it finished, or the turn ended and nothing will answer it.
    CallDropped(ToolCall),
    /// The model's task list changed (see [`Progress::todos`]).
    TodosChanged,
    /// A sub-agent or background task stopped working (see
    /// [`Progress::agents`]).
    AgentStopped,
    /// A turn's `result` came (the session's cost so far is
    /// [`Progress::cost_usd`]).
    TurnEnded,
}

/// A task's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TodoStatus {
    /// To do.
    Pending,
    /// Being done now.
    InProgress,
    /// Done.
    Completed,
}

impl TodoStatus {
    fn parse(s: &str) -> Option<TodoStatus> {
        match s {
            "pending" => Some(TodoStatus::Pending),
            "in_progress" => Some(TodoStatus::InProgress),
            "completed" => Some(TodoStatus::Completed),
            _ => None,
        }
    }
}

/// One task of the model's task list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Todo {
    /// The CLI's id (`1`), once its `TaskCreate` returned; `None` for a
    /// `TodoWrite` list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// What it is, as sent.
    pub subject: String,
    /// What is shown while it runs (`Running tests`), as sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_form: Option<String>,
    /// Where it stands.
    pub status: TodoStatus,
}

/// Whether a tool keeps the model's task list: `TaskCreate`, `TaskUpdate`,
/// `TaskList`, `TaskGet` (the CLI 2.1.328 on), and `TodoWrite` (older
/// models).
///
/// ```
/// assert!(claudio::progress::is_todo_tool("TaskUpdate"));
/// assert!(!claudio::progress::is_todo_tool("Task"));
/// ```
pub fn is_todo_tool(name: &str) -> bool {
    matches!(
        name,
        "TaskCreate" | "TaskUpdate" | "TaskList" | "TaskGet" | "TodoWrite"
    )
}

/// `TaskCreate`'s input.
#[derive(Deserialize)]
struct TaskCreateInput {
    subject: String,
    #[serde(default, rename = "activeForm")]
    active_form: Option<String>,
}

/// `TaskUpdate`'s input (`status` may be `deleted`).
#[derive(Deserialize)]
struct TaskUpdateInput {
    #[serde(rename = "taskId")]
    task_id: String,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    subject: Option<String>,
    #[serde(default, rename = "activeForm")]
    active_form: Option<String>,
}

/// `TodoWrite`'s input: the whole list, each item read on its own (one
/// item of another shape is passed over, not the list).
#[derive(Deserialize)]
struct TodoWriteInput {
    todos: Vec<Value>,
}

#[derive(Deserialize)]
struct TodoWriteItem {
    content: String,
    #[serde(default)]
    status: Option<String>,
    #[serde(default, rename = "activeForm")]
    active_form: Option<String>,
}

/// `TaskCreate`'s structured result: `{"task":{"id":"1",...}}`.
#[derive(Deserialize)]
struct TaskCreated {
    task: TaskId,
}

#[derive(Deserialize)]
struct TaskId {
    id: String,
}

/// `TaskList`'s structured result: the CLI's own list.
#[derive(Deserialize)]
struct TaskListed {
    tasks: Vec<Value>,
}

#[derive(Deserialize)]
struct ListedTask {
    id: String,
    subject: String,
    #[serde(default)]
    status: Option<String>,
}

/// A typed reading of `v`, `None` when it has another shape.
fn typed<'v, T: Deserialize<'v>>(v: &'v Value) -> Option<T> {
    T::deserialize(v).ok()
}

/// The model's task list, as the main agent's calls of the task tools
/// built it ([`is_todo_tool`]).
///
/// A call changes it only once its result says it succeeded: the CLI
/// rejects a tool it does not have (`TodoWrite` on 2.1.328: "No such tool
/// available"), and such a call's list was never the session's.
#[derive(Debug, Clone, Default)]
pub struct Todos {
    list: Vec<Todo>,
    /// `TaskCreate` calls waiting for their id, by `tool_use_id`.
    creating: HashMap<String, usize>,
    /// The task tools' calls waiting for their result: name and input, by
    /// `tool_use_id` (until the turn's result).
    pending: HashMap<String, (String, Value)>,
}

impl Todos {
    /// The tasks, in the list's order.
    pub fn items(&self) -> &[Todo] {
        &self.list
    }

    /// Whether there is no task.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Whether a task is still to do (pending or in progress).
    pub fn has_open(&self) -> bool {
        self.list.iter().any(|t| t.status != TodoStatus::Completed)
    }

    /// How many tasks are done.
    pub fn completed(&self) -> usize {
        self.list
            .iter()
            .filter(|t| t.status == TodoStatus::Completed)
            .count()
    }

    /// Take in a message; true when the list changed.
    fn observe(&mut self, m: &Message) -> bool {
        match m {
            // the main agent's list (a sub-agent's tasks are its own)
            Message::Assistant(a) if a.parent_tool_use_id.is_none() => {
                for b in &a.message.content {
                    if let ContentBlock::ToolUse(t) = b {
                        if is_todo_tool(&t.name) {
                            let call = (t.name.clone(), t.input.clone());
                            self.pending.insert(t.id.clone(), call);
                        }
                    }
                }
                false
            }
            Message::User(u) if u.parent_tool_use_id.is_none() => {
                let MessageContent::Blocks(blocks) = &u.message.content else {
                    return false;
                };
                let mut changed = false;
                for b in blocks {
                    if let ContentBlock::ToolResult(r) = b {
                        // a failed call changes nothing
                        let Some((name, input)) = self.pending.remove(&r.tool_use_id) else {
                            continue;
                        };
                        if r.is_error() {
                            continue;
                        }
                        changed |= self.call(&r.tool_use_id, &name, &input);
                        changed |= self.result(&r.tool_use_id, u.tool_use_result.as_ref());
                    }
                }
                changed
            }
            // the main turn is over: a call still waiting never ran
            Message::Result(_) => {
                self.pending.clear();
                false
            }
            _ => false,
        }
    }

    fn call(&mut self, id: &str, name: &str, input: &Value) -> bool {
        match name {
            "TaskCreate" => {
                let Some(c) = typed::<TaskCreateInput>(input) else {
                    return false;
                };
                self.list.push(Todo {
                    id: None,
                    subject: c.subject,
                    active_form: c.active_form,
                    status: TodoStatus::Pending,
                });
                self.creating.insert(id.to_owned(), self.list.len() - 1);
                true
            }
            "TaskUpdate" => {
                let Some(u) = typed::<TaskUpdateInput>(input) else {
                    return false;
                };
                let Some(i) = self
                    .list
                    .iter()
                    .position(|t| t.id.as_deref() == Some(&u.task_id))
                else {
                    return false;
                };
                if u.status.as_deref() == Some("deleted") {
                    self.list.remove(i);
                    self.creating.retain(|_, at| *at != i);
                    for at in self.creating.values_mut() {
                        if *at > i {
                            *at -= 1;
                        }
                    }
                    return true;
                }
                let t = &mut self.list[i];
                if let Some(s) = u.status.as_deref().and_then(TodoStatus::parse) {
                    t.status = s;
                }
                if let Some(s) = u.subject {
                    t.subject = s;
                }
                if let Some(a) = u.active_form {
                    t.active_form = Some(a);
                }
                true
            }
            // older models: the whole list each time
            "TodoWrite" => {
                let Some(w) = typed::<TodoWriteInput>(input) else {
                    return false;
                };
                self.creating.clear();
                self.list = w
                    .todos
                    .iter()
                    .filter_map(typed::<TodoWriteItem>)
                    .map(|i| Todo {
                        id: None,
                        subject: i.content,
                        active_form: i.active_form,
                        status: i
                            .status
                            .as_deref()
                            .and_then(TodoStatus::parse)
                            .unwrap_or(TodoStatus::Pending),
                    })
                    .collect();
                true
            }
            _ => false,
        }
    }

    /// A result: a created task's id, or the whole list from `TaskList`.
    fn result(&mut self, call: &str, result: Option<&Value>) -> bool {
        if let Some(i) = self.creating.remove(call) {
            let id = result.and_then(typed::<TaskCreated>).map(|c| c.task.id);
            if let (Some(id), Some(t)) = (id, self.list.get_mut(i)) {
                t.id = Some(id);
            }
            return false;
        }
        // `TaskList`: the CLI's own list is the truth
        let Some(listed) = result.and_then(typed::<TaskListed>) else {
            return false;
        };
        let fresh: Vec<Todo> = listed
            .tasks
            .iter()
            .filter_map(typed::<ListedTask>)
            .map(|t| {
                let active_form = self
                    .list
                    .iter()
                    .find(|o| o.id.as_deref() == Some(t.id.as_str()))
                    .and_then(|o| o.active_form.clone());
                Todo {
                    id: Some(t.id),
                    subject: t.subject,
                    active_form,
                    status: t
                        .status
                        .as_deref()
                        .and_then(TodoStatus::parse)
                        .unwrap_or(TodoStatus::Pending),
                }
            })
            .collect();
        let changed = fresh != self.list;
        self.list = fresh;
        self.creating.clear();
        changed
    }
}

/// The calls still running, in the order they began, each found by its id
/// at once: N calls and then their N results cost N steps, not N².
#[derive(Debug, Clone, Default)]
struct Running {
    calls: BTreeMap<u64, ToolCall>,
    order: HashMap<String, u64>,
    next: u64,
}

impl Running {
    /// A call begins (one with the id of a call still running takes its
    /// place: ids are not reused).
    fn push(&mut self, call: ToolCall) {
        let n = self.next;
        self.next += 1;
        if let Some(old) = self.order.insert(call.id.clone(), n) {
            self.calls.remove(&old);
        }
        self.calls.insert(n, call);
    }

    fn remove(&mut self, id: &str) -> Option<ToolCall> {
        let n = self.order.remove(id)?;
        self.calls.remove(&n)
    }

    fn get(&self, id: &str) -> Option<&ToolCall> {
        self.calls.get(self.order.get(id)?)
    }

    /// Keep the calls `keep` says; the others go to `gone`.
    fn retain(&mut self, mut keep: impl FnMut(&ToolCall) -> bool, gone: &mut impl FnMut(Change)) {
        let dropped: Vec<u64> = self
            .calls
            .iter()
            .filter(|(_, c)| !keep(c))
            .map(|(&n, _)| n)
            .collect();
        for n in dropped {
            if let Some(c) = self.calls.remove(&n) {
                self.order.remove(&c.id);
                gone(Change::CallDropped(c));
            }
        }
    }
}

/// Text streamed as deltas is not text to show again when the whole
/// `assistant` line for it follows.
#[derive(Debug, Clone, Default)]
struct Dedup {
    /// API message ids whose stream was seen (`message_start`), each held
    /// as its 64-bit hash (keyed at random), as [`ApiCalls`] holds them:
    /// 8 bytes a response however long the CLI made its id.
    ids: HashSet<u64>,
    keys: std::hash::RandomState,
    /// Deltas arrived since the last `assistant` line (covers streams that
    /// carry no `message_start`).
    pending: bool,
}

/// The `message` of a `message_start` stream event: its id.
#[derive(Deserialize)]
struct StartedMessage {
    #[serde(default)]
    id: Option<String>,
}

impl Dedup {
    fn event(&mut self, e: &StreamEventMessage) {
        match &e.event {
            StreamEvent::MessageStart { message } => {
                if let Some(id) = typed::<StartedMessage>(message).and_then(|m| m.id) {
                    self.ids
                        .insert(std::hash::BuildHasher::hash_one(&self.keys, id));
                }
            }
            _ if e.text_delta().is_some() || e.thinking_delta().is_some() => self.pending = true,
            _ => {}
        }
    }

    fn streamed(&mut self, a: &AssistantMessage) -> bool {
        let seen = std::mem::take(&mut self.pending);
        seen || a.message.id.as_ref().is_some_and(|id| {
            let id = std::hash::BuildHasher::hash_one(&self.keys, id.as_str());
            self.ids.contains(&id)
        })
    }
}

/// A session's work as its events tell it: see the [module](self).
///
/// Each message costs time in its own size (calls are found by id), and
/// what it keeps is bounded by what still runs: finished calls are handed
/// to the sink and not kept, finished sub-agents beyond the last 1,000 are
/// dropped ([`Tracker`]).
#[derive(Debug, Clone, Default)]
pub struct Progress {
    running: Running,
    agents: Tracker,
    todos: Todos,
    dedup: Dedup,
    /// The last main-agent `assistant` line repeats what its stream
    /// events gave.
    streamed: bool,
    /// Prompts sent whose turn has not ended ([`Event::TurnStarted`],
    /// [`Event::TurnEnded`]).
    results_owed: usize,
    /// The last `result` was of a turn the CLI started by itself: the
    /// [`Event::TurnEnded`] after it ends no prompt.
    automatic_result: bool,
    cost_usd: Option<f64>,
    usage: Option<Usage>,
    results: u64,
    calls: ApiCalls,
}

/// How many response ids the session remembers ([`ApiCalls`]): the
/// last 65,536 counted, held twice (a set, and their order), under
/// 2.5 MiB with their tables however many responses a CLI gives.
const CALLS_REMEMBERED: usize = 1 << 16;

/// The API calls of one turn: the distinct ids of the responses it
/// streamed or gave whole (the main agent's and its sub-agents'), so an
/// interrupted call counts once and a response given block by block once.
/// A response counts once in the session: one that began in a turn and is
/// given whole again in a later one (a background agent's, any number of
/// turns later) was counted there. The session's ids are remembered up to
/// a bound, the last [`CALLS_REMEMBERED`] counted (the oldest forgotten
/// first): a CLI giving millions of responses does not grow it. Each id is
/// held as its 64-bit hash (keyed at random, so a CLI cannot choose ids
/// that collide): 8 bytes a call however long the CLI made the id (a line
/// may be 256 MiB).
#[derive(Debug, Clone, Default)]
struct ApiCalls {
    /// The calls counted in the turn going on (or the one that just
    /// ended, until the next calls the API).
    count: u64,
    /// The session's ids counted, the last [`CALLS_REMEMBERED`].
    seen: HashSet<u64>,
    /// The same ids, oldest first: the first to be forgotten.
    order: VecDeque<u64>,
    keys: std::hash::RandomState,
    /// The turn they belong to ended: the next call begins a new count.
    ended: bool,
}

impl ApiCalls {
    fn saw(&mut self, id: Option<&str>) {
        let Some(id) = id else { return };
        let id = std::hash::BuildHasher::hash_one(&self.keys, id);
        if std::mem::take(&mut self.ended) {
            self.count = 0;
        }
        if !self.seen.insert(id) {
            return;
        }
        self.count += 1;
        self.order.push_back(id);
        if self.order.len() > CALLS_REMEMBERED {
            if let Some(old) = self.order.pop_front() {
                self.seen.remove(&old);
            }
        }
    }

    /// The turn ended; one that ends with no call seen since the last end
    /// made none.
    fn end(&mut self) {
        if std::mem::replace(&mut self.ended, true) {
            self.count = 0;
        }
    }
}

/// The result of a turn the CLI started by itself (a background agent
/// reporting: `origin.kind` `task-notification`), not one of a prompt's.
///
/// ```
/// use claudio::{progress::is_automatic, Message};
/// let report = Message::parse_str(r#"{"type":"result","subtype":"success","is_error":false,"origin":{"kind":"task-notification"}}"#)?;
/// assert!(is_automatic(&report));
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn is_automatic(m: &Message) -> bool {
    matches!(m, Message::Result(r) if r.origin.is_some())
}

impl Progress {
    /// Take in the session's next event (see [`Progress::observe_with`]).
    /// [`Event::TurnStarted`] opens a turn; a request, or its withdrawal,
    /// changes nothing here.
    pub fn observe_event_with(&mut self, e: &Event, sink: impl FnMut(Change)) {
        match e {
            Event::Message(m) => self.observe_with(m, sink),
            Event::TurnStarted => self.results_owed += 1,
            // One for each prompt the turn took (a prompt sent while a tool
            // ran can be taken into the running turn: two ends after one
            // result), none for a turn the CLI started by itself.
            Event::TurnEnded if !self.automatic_result => {
                self.results_owed = self.results_owed.saturating_sub(1);
            }
            _ => {}
        }
    }

    /// Take in the session's next event; true when it changed anything
    /// [`Progress::observe_with`] would tell.
    pub fn observe_event(&mut self, e: &Event) -> bool {
        let mut changed = false;
        self.observe_event_with(e, |_| changed = true);
        changed
    }

    /// Take in the session's next message; true when it changed anything
    /// [`Progress::observe_with`] would tell.
    pub fn observe(&mut self, m: &Message) -> bool {
        let mut changed = false;
        self.observe_with(m, |_| changed = true);
        changed
    }

    /// Take in the session's next message; `sink` gets what it changed,
    /// in order.
    pub fn observe_with(&mut self, m: &Message, mut sink: impl FnMut(Change)) {
        let sink = &mut sink;
        if self.todos.observe(m) {
            sink(Change::TodosChanged);
        }
        if self.agents.observe(m) {
            sink(Change::AgentStopped);
            self.drop_finished_calls(sink);
        }
        match m {
            Message::StreamEvent(e) => {
                if let StreamEvent::MessageStart { message } = &e.event {
                    // the id alone, borrowed: never the message copied
                    self.calls.saw(message.get("id").and_then(Value::as_str));
                }
                if e.parent_tool_use_id.is_none() {
                    self.dedup.event(e);
                }
            }
            Message::Assistant(a) => {
                if !a.is_synthetic() {
                    self.calls.saw(a.message.id.as_deref());
                }
                if a.parent_tool_use_id.is_none() {
                    self.streamed = self.dedup.streamed(a);
                }
                for b in &a.message.content {
                    if let ContentBlock::ToolUse(t) = b {
                        self.running.push(ToolCall {
                            id: t.id.clone(),
                            name: t.name.clone(),
                            input: t.input.clone(),
                            parent: a.parent_tool_use_id.clone(),
                        });
                        sink(Change::CallStarted(t.id.clone()));
                    }
                }
            }
            Message::User(u) => {
                if let MessageContent::Blocks(blocks) = &u.message.content {
                    for b in blocks {
                        if let ContentBlock::ToolResult(r) = b {
                            self.tool_result(r, sink);
                        }
                    }
                }
            }
            Message::Result(r) => self.result(m, r, sink),
            _ => {}
        }
    }

    fn tool_result(&mut self, r: &ToolResultBlock, sink: &mut impl FnMut(Change)) {
        let Some(call) = self.running.remove(&r.tool_use_id) else {
            return;
        };
        let is_task = call.parent.is_none() && is_task_tool(&call.name);
        let launched = is_task && !r.is_error() && is_background_launch(&r.text());
        if is_task && !launched {
            // a foreground agent that finished, or one that never started
            // (the tracker saw its result): its calls are over
            self.drop_finished_calls(sink);
        }
        let end = match (launched, r.is_error()) {
            (true, _) => CallEnd::Background,
            (false, true) => CallEnd::Failed,
            (false, false) => CallEnd::Done,
        };
        sink(Change::CallEnded { call, end });
    }

    fn result(&mut self, m: &Message, r: &ResultMessage, sink: &mut impl FnMut(Change)) {
        // a background agent's calls go on after the main turn's result
        let agents = &self.agents;
        self.running.retain(
            |c| {
                c.parent
                    .as_deref()
                    .is_some_and(|p| agents.get(p).is_some_and(|t| !t.done))
            },
            sink,
        );
        self.dedup = Dedup::default();
        self.automatic_result = is_automatic(m);
        self.calls.end();
        self.results += 1;
        if r.total_cost_usd.is_some() {
            self.cost_usd = r.total_cost_usd;
        }
        if r.usage.is_some() {
            self.usage.clone_from(&r.usage);
        }
        sink(Change::TurnEnded);
    }

    /// Forget the calls of sub-agents that no longer work.
    fn drop_finished_calls(&mut self, sink: &mut impl FnMut(Change)) {
        let agents = &self.agents;
        self.running.retain(
            |c| {
                c.parent
                    .as_deref()
                    .is_none_or(|p| agents.get(p).is_none_or(|t| !t.done))
            },
            sink,
        );
    }

    /// The tool calls in flight, in the order they began: the main agent's
    /// and its sub-agents' (questions, plans and the task list's tools
    /// too: see [`crate::protocol::ask::RequestKind::of_tool`] and
    /// [`is_todo_tool`] to tell them).
    pub fn running(&self) -> impl Iterator<Item = &ToolCall> + '_ {
        self.running.calls.values()
    }

    /// The call `id`, while it runs.
    pub fn call(&self, id: &str) -> Option<&ToolCall> {
        self.running.get(id)
    }

    /// The session's sub-agents and background tasks.
    pub fn agents(&self) -> &Tracker {
        &self.agents
    }

    /// The model's task list.
    pub fn todos(&self) -> &Todos {
        &self.todos
    }

    /// Whether the last `assistant` line of the main agent repeats what its
    /// stream events (with
    /// [`Options::include_partial_messages`](crate::Options::include_partial_messages))
    /// already gave: its text and thinking are not new.
    pub fn already_streamed(&self) -> bool {
        self.streamed
    }

    /// Whether a prompt's `result` is still owed: a turn is open (known
    /// from [`Event::TurnStarted`], so only when fed events).
    pub fn turn_open(&self) -> bool {
        self.results_owed > 0
    }

    /// How many prompts' results are still owed (one per prompt sent,
    /// interjections included).
    pub fn results_owed(&self) -> usize {
        self.results_owed
    }

    /// How many `result`s came (the CLI's own turns included).
    pub fn results(&self) -> u64 {
        self.results
    }

    /// The API calls of the turn going on, or of the turn that just ended
    /// until the next one calls the API: the distinct responses its events
    /// showed, the main agent's and its sub-agents' (the CLI's synthetic
    /// messages are none). The CLI's `num_turns` is not this: it counts an
    /// interrupted one-call turn as two.
    pub fn api_calls(&self) -> u64 {
        self.calls.count
    }

    /// What the session cost so far, in US dollars, as the CLI last said
    /// (its `total_cost_usd`: the session's running total, earlier runs of
    /// a resumed session included; never to be summed over turns).
    pub fn cost_usd(&self) -> Option<f64> {
        self.cost_usd
    }

    /// The last turn's token usage, as its `result` said.
    pub fn usage(&self) -> Option<&Usage> {
        self.usage.as_ref()
    }

    /// The turn ended without its result (the CLI died): no call runs any
    /// more; each goes to `sink` as [`Change::CallDropped`].
    pub fn abandon_turn(&mut self, mut sink: impl FnMut(Change)) {
        self.running.retain(|_| false, &mut sink);
        self.dedup = Dedup::default();
        self.calls.end();
        self.results_owed = 0;
    }

    /// A new session (`/new`, a resume, a restart): nothing of the old one
    /// runs any more, and its task list is gone. The cost is kept until the
    /// new session's first `result` says its own.
    pub fn forget_session(&mut self) {
        let cost_usd = self.cost_usd;
        *self = Progress {
            cost_usd,
            ..Progress::default()
        };
    }

    /// The state now, as one value to send elsewhere (serde: JSON,
    /// ...).
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            running: self.running().cloned().collect(),
            todos: self.todos.list.clone(),
            agents_running: self.agents.running().count(),
            background_agents: self.agents.background_running(),
            turn_open: self.turn_open(),
            cost_usd: self.cost_usd,
            usage: self.usage.clone(),
        }
    }
}

/// A [`Progress`] as one value ([`Progress::snapshot`]): what runs, the
/// task list, the cost so far. Serializes with snake_case keys; fields
/// may be added (read it with `#[serde(default)]` in mind).
///
/// ```
/// use claudio::progress::Progress;
/// let snapshot = Progress::default().snapshot();
/// let json = serde_json::to_string(&snapshot)?;
/// assert_eq!(json, r#"{"running":[],"todos":[],"agents_running":0,"background_agents":0,"turn_open":false,"cost_usd":null,"usage":null}"#);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct Snapshot {
    /// The tool calls in flight, oldest first.
    pub running: Vec<ToolCall>,
    /// The model's task list.
    pub todos: Vec<Todo>,
    /// Sub-agents and background tasks at work.
    pub agents_running: usize,
    /// Of those, how many work in the background.
    pub background_agents: usize,
    /// Whether a prompt's result is still owed.
    pub turn_open: bool,
    /// The session's cost so far, in US dollars, as the CLI last said.
    pub cost_usd: Option<f64>,
    /// The last turn's token usage.
    pub usage: Option<Usage>,
}

#[cfg(test)]
mod tests;
