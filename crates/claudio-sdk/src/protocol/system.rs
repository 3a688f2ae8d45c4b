//! The `system` lines the CLI writes, by `subtype` (protocol.md §5): the
//! session's start and status, API retries, background tasks and
//! sub-agents (`task_*`, `background_tasks_changed`), compactions.
//!
//! Shapes from the real CLI 2.1.328 and 2.1.332 and the TypeScript SDK
//! 0.3.333's `SDK*Message` types. Every struct keeps the fields it does not
//! model in `extra`, and writes back what it read: [`SystemMessage::to_value`]
//! gives the line's JSON again, nothing lost, nothing added.

use super::content::{has_extra, HasExtra};
use super::names::{CompactTrigger, TaskStatus};
use super::replies::{lenient, Capabilities, McpServerStatus, PermissionMode};
use super::stream::{decode_tagged, untag};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A `system` line, by `subtype`. A subtype this crate does not type is
/// [`SystemMessage::Other`], kept as sent.
///
/// ```
/// use claudio::{Message, SystemMessage};
/// let line = br#"{"type":"system","subtype":"task_updated","task_id":"b7","patch":{"status":"completed","end_time":1764629000000},"session_id":"s1"}"#;
/// let msg = Message::parse(line)?;
/// if let Some(SystemMessage::TaskUpdated(u)) = msg.as_system() {
///     assert_eq!(u.task_id.as_deref(), Some("b7"));
///     assert!(u.status().is_some_and(|s| s.is_final()));
/// }
/// // written back as it came
/// let back = msg.as_system().map(SystemMessage::to_value);
/// assert_eq!(back, Some(serde_json::from_slice(line)?));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SystemMessage {
    /// `init`: sent at the start of every turn.
    Init(SystemInit),
    /// `status`: e.g. `requesting`.
    Status(SystemStatus),
    /// `api_retry`: the CLI retries a failed API request.
    ApiRetry(ApiRetry),
    /// `task_started`: a background task or a sub-agent began.
    TaskStarted(TaskStarted),
    /// `task_progress`: a sub-agent is at work.
    TaskProgress(TaskProgress),
    /// `task_updated`: a task's state changed (its status, say).
    TaskUpdated(TaskUpdated),
    /// `task_notification`: a task finished, failed or was stopped.
    TaskNotification(TaskNotification),
    /// `background_tasks_changed`: the whole list of background tasks still
    /// running.
    BackgroundTasksChanged(BackgroundTasksChanged),
    /// `compact_boundary`: the conversation was compacted.
    CompactBoundary(CompactBoundary),
    /// Any other subtype, as sent.
    Other(Value),
}

impl SystemMessage {
    pub(crate) fn decode(subtype: Option<&str>, line: &str) -> Result<Self, serde_json::Error> {
        // the subtype given twice, the last one another: an error (the
        // caller reads the line as serde_json's value says)
        fn sys<T: serde::de::DeserializeOwned + HasExtra>(
            line: &str,
            subtype: &str,
        ) -> Result<T, serde_json::Error> {
            let mut t: T = decode_tagged(line, "system")?;
            untag(t.extra_mut(), "subtype", subtype)?;
            Ok(t)
        }
        Ok(match subtype {
            Some(s @ "init") => SystemMessage::Init(sys(line, s)?),
            Some(s @ "status") => SystemMessage::Status(sys(line, s)?),
            Some(s @ "api_retry") => SystemMessage::ApiRetry(sys(line, s)?),
            Some(s @ "task_started") => SystemMessage::TaskStarted(sys(line, s)?),
            Some(s @ "task_progress") => SystemMessage::TaskProgress(sys(line, s)?),
            Some(s @ "task_updated") => SystemMessage::TaskUpdated(sys(line, s)?),
            Some(s @ "task_notification") => SystemMessage::TaskNotification(sys(line, s)?),
            Some(s @ "background_tasks_changed") => {
                SystemMessage::BackgroundTasksChanged(sys(line, s)?)
            }
            Some(s @ "compact_boundary") => SystemMessage::CompactBoundary(sys(line, s)?),
            _ => {
                // its `type` and `subtype` as serde_json's value reads
                // them (given twice: the last), or an error
                let v: Value = serde_json::from_str(line)?;
                if v.get("type").and_then(Value::as_str) != Some("system")
                    || v.get("subtype").and_then(Value::as_str) != subtype
                {
                    return Err(serde::de::Error::custom(
                        "`type` or `subtype` given twice, the last one another",
                    ));
                }
                SystemMessage::Other(v)
            }
        })
    }

    /// The `subtype`.
    pub fn subtype(&self) -> &str {
        match self {
            SystemMessage::Init(_) => "init",
            SystemMessage::Status(_) => "status",
            SystemMessage::ApiRetry(_) => "api_retry",
            SystemMessage::TaskStarted(_) => "task_started",
            SystemMessage::TaskProgress(_) => "task_progress",
            SystemMessage::TaskUpdated(_) => "task_updated",
            SystemMessage::TaskNotification(_) => "task_notification",
            SystemMessage::BackgroundTasksChanged(_) => "background_tasks_changed",
            SystemMessage::CompactBoundary(_) => "compact_boundary",
            SystemMessage::Other(v) => v.get("subtype").and_then(Value::as_str).unwrap_or(""),
        }
    }

    /// The session id, if the line carries one.
    pub fn session_id(&self) -> Option<&str> {
        match self {
            SystemMessage::Init(m) => m.session_id.as_deref(),
            SystemMessage::Status(m) => m.session_id.as_deref(),
            SystemMessage::ApiRetry(m) => m.session_id.as_deref(),
            SystemMessage::TaskStarted(m) => m.session_id.as_deref(),
            SystemMessage::TaskProgress(m) => m.session_id.as_deref(),
            SystemMessage::TaskUpdated(m) => m.session_id.as_deref(),
            SystemMessage::TaskNotification(m) => m.session_id.as_deref(),
            SystemMessage::BackgroundTasksChanged(m) => m.session_id.as_deref(),
            SystemMessage::CompactBoundary(m) => m.session_id.as_deref(),
            SystemMessage::Other(v) => v.get("session_id").and_then(Value::as_str),
        }
    }

    /// The task this line is about (`task_*` lines), if it names one.
    pub fn task_id(&self) -> Option<&str> {
        match self {
            SystemMessage::TaskStarted(m) => m.task_id.as_deref(),
            SystemMessage::TaskProgress(m) => m.task_id.as_deref(),
            SystemMessage::TaskUpdated(m) => m.task_id.as_deref(),
            SystemMessage::TaskNotification(m) => m.task_id.as_deref(),
            _ => None,
        }
    }

    /// The whole line as JSON again (`type` and `subtype` included): what
    /// was read, nothing lost, nothing added (but for `init`'s
    /// capabilities, a set: their order is not kept). See [`SystemMessage`]
    /// for an example.
    pub fn to_value(&self) -> Value {
        fn tagged<T: Serialize>(t: &T, subtype: &str) -> Value {
            let mut v = serde_json::to_value(t).unwrap_or(Value::Null);
            if let Value::Object(m) = &mut v {
                m.insert("type".into(), Value::from("system"));
                m.insert("subtype".into(), Value::from(subtype));
            }
            v
        }
        let subtype = self.subtype();
        match self {
            SystemMessage::Init(m) => tagged(m, subtype),
            SystemMessage::Status(m) => tagged(m, subtype),
            SystemMessage::ApiRetry(m) => tagged(m, subtype),
            SystemMessage::TaskStarted(m) => tagged(m, subtype),
            SystemMessage::TaskProgress(m) => tagged(m, subtype),
            SystemMessage::TaskUpdated(m) => tagged(m, subtype),
            SystemMessage::TaskNotification(m) => tagged(m, subtype),
            SystemMessage::BackgroundTasksChanged(m) => tagged(m, subtype),
            SystemMessage::CompactBoundary(m) => tagged(m, subtype),
            SystemMessage::Other(v) => v.clone(),
        }
    }
}

/// `system`/`init`: the session as the CLI sees it at the start of a turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SystemInit {
    /// The session id.
    #[serde(default, rename = "session_id")]
    pub session_id: Option<String>,
    /// The model in use.
    #[serde(default)]
    pub model: Option<String>,
    /// The working directory.
    #[serde(default)]
    pub cwd: Option<String>,
    /// The tools the model may call.
    #[serde(default)]
    pub tools: Vec<String>,
    /// The permission mode (a mode this crate does not know is kept as
    /// [`PermissionMode::Other`]; a value of another shape reads as `None`).
    #[serde(default, deserialize_with = "lenient")]
    pub permission_mode: Option<PermissionMode>,
    /// MCP servers and their status.
    #[serde(default, rename = "mcp_servers", deserialize_with = "lenient")]
    pub mcp_servers: Vec<McpServerStatus>,
    /// Slash commands.
    #[serde(default, rename = "slash_commands")]
    pub slash_commands: Vec<String>,
    /// The CLI's version.
    #[serde(default, rename = "claude_code_version")]
    pub claude_code_version: Option<String>,
    /// The control protocol's features this CLI has (a longer list than
    /// [`ServerInfo::capabilities`](super::ServerInfo::capabilities): e.g.
    /// `ask_user_question_unanswered_v1`, `interrupt_receipt_v1`). Empty
    /// from a CLI that lists none.
    #[serde(default, skip_serializing_if = "Capabilities::is_empty")]
    pub capabilities: Capabilities,
    /// Whether Bash runs in the CLI's sandbox (CLI 2.1.332 and later;
    /// `None` from an older one).
    #[serde(
        default,
        rename = "sandbox_enabled",
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub sandbox_enabled: Option<bool>,
    /// Fields claudio does not model, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system`/`status`: the CLI is busy (`"status":"requesting"`), or a
/// permission mode change is confirmed (`"status":null` with
/// `permissionMode`, after [`Client::set_permission_mode`](crate::Client::set_permission_mode)
/// or an approved plan; none when the mode was already set).
///
/// ```
/// use claudio::{Message, PermissionMode, SystemMessage};
/// let line = br#"{"type":"system","subtype":"status","status":null,"permissionMode":"acceptEdits","session_id":"s1"}"#;
/// if let Some(SystemMessage::Status(st)) = Message::parse(line)?.as_system() {
///     assert_eq!(st.permission_mode, Some(PermissionMode::AcceptEdits));
///     assert_eq!(st.status, None);
/// }
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SystemStatus {
    /// e.g. `requesting`; `null` when the status clears.
    #[serde(default)]
    pub status: Option<String>,
    /// The new permission mode, on the line that confirms a change.
    #[serde(
        default,
        rename = "permissionMode",
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub permission_mode: Option<PermissionMode>,
    /// The session id.
    #[serde(default)]
    pub session_id: Option<String>,
    /// Fields claudio does not model, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system`/`api_retry`: an API request failed and will be tried again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApiRetry {
    /// This attempt's number (from 1).
    #[serde(default)]
    pub attempt: Option<u32>,
    /// How many attempts the CLI makes.
    #[serde(default)]
    pub max_retries: Option<u32>,
    /// How long until the next attempt.
    #[serde(default)]
    pub retry_delay_ms: Option<f64>,
    /// The HTTP status that failed, if any.
    #[serde(default)]
    pub error_status: Option<u16>,
    /// The error (text or object).
    #[serde(default)]
    pub error: Option<Value>,
    /// The session id.
    #[serde(default)]
    pub session_id: Option<String>,
    /// Fields claudio does not model, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `usage` of `task_progress` and `task_notification`: what a task has
/// cost so far.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskUsage {
    /// Tokens the sub-agent used.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub total_tokens: Option<u64>,
    /// Tool calls it made.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub tool_uses: Option<u64>,
    /// How long it has run.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub duration_ms: Option<u64>,
    /// Fields claudio does not model, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system`/`task_started`: a background task (a shell command run in the
/// background) or a sub-agent began.
///
/// ```
/// use claudio::{Message, SystemMessage};
/// // the real CLI 2.1.332, for a Bash call with `run_in_background` (ids shortened)
/// let line = br#"{"type":"system","subtype":"task_started","task_id":"bq2x","tool_use_id":"toolu_01","description":"wait","task_type":"local_bash","is_backgrounded":true,"uuid":"u1","session_id":"s1"}"#;
/// if let Some(SystemMessage::TaskStarted(t)) = Message::parse(line)?.as_system() {
///     assert_eq!(t.is_backgrounded, Some(true));
///     assert_eq!(t.task_type.as_deref(), Some("local_bash"));
/// }
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskStarted {
    /// The task's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// This run of the task (a resumed task gets a new one; CLI 2.1.332).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// The tool call that started it (a `Task` call for a sub-agent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    /// What it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The agent type, for a sub-agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent_type: Option<String>,
    /// `local_agent` (a sub-agent), `local_bash` (a shell command), ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_type: Option<String>,
    /// Whether it runs in the background (its tool call returned at once);
    /// `false`: the tool call waits for it. A later move to the background
    /// comes as [`TaskPatch::is_backgrounded`].
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub is_backgrounded: Option<bool>,
    /// The sub-agent task that started this one, if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_task_id: Option<String>,
    /// Housekeeping, not activity: hosts leave it out of "still working".
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub ambient: Option<bool>,
    /// The session id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// Fields claudio does not model (`uuid`, `prompt`, `spawn_depth`, ...),
    /// kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system`/`task_progress`: a sub-agent is at work (after each of its tool
/// calls).
///
/// ```
/// use claudio::{Message, SystemMessage};
/// let line = br#"{"type":"system","subtype":"task_progress","task_id":"a1","tool_use_id":"toolu_01","description":"Running ls","usage":{"total_tokens":5120,"tool_uses":2,"duration_ms":3400},"last_tool_name":"Bash","session_id":"s1"}"#;
/// if let Some(SystemMessage::TaskProgress(p)) = Message::parse(line)?.as_system() {
///     assert_eq!(p.description.as_deref(), Some("Running ls"));
///     assert_eq!(p.usage.as_ref().and_then(|u| u.tool_uses), Some(2));
/// }
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskProgress {
    /// The task's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// This run of the task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// The tool call that started it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    /// What it is doing now (`Running ls`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The agent type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent_type: Option<String>,
    /// What it has cost so far.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub usage: Option<TaskUsage>,
    /// The tool it called last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_tool_name: Option<String>,
    /// A one-line status, when the CLI makes one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// The session id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// Fields claudio does not model, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system`/`task_updated`: what changed in a task.
///
/// See [`SystemMessage`] for an example.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskUpdated {
    /// The task's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// This run of the task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// The fields that changed.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub patch: Option<TaskPatch>,
    /// The session id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// Fields claudio does not model, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl TaskUpdated {
    /// The task's new status, if this change has one.
    pub fn status(&self) -> Option<&TaskStatus> {
        self.patch.as_ref()?.status.as_ref()
    }
}

/// `patch` of `task_updated`: the fields of a task that changed (the others
/// are as they were).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskPatch {
    /// The new status.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub status: Option<TaskStatus>,
    /// The new description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// When it ended (milliseconds since the epoch).
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub end_time: Option<u64>,
    /// What went wrong.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// It moved to the background (`true`).
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub is_backgrounded: Option<bool>,
    /// Fields claudio does not model (`total_paused_ms`, ...), kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system`/`task_notification`: a task ended (completed, failed or
/// stopped), with its report.
///
/// ```
/// use claudio::{protocol::TaskStatus, Message, SystemMessage};
/// let line = br#"{"type":"system","subtype":"task_notification","task_id":"a1","tool_use_id":"toolu_01","status":"completed","output_file":"","summary":"Found 3 files.","usage":{"total_tokens":9000,"tool_uses":3,"duration_ms":5200},"session_id":"s1"}"#;
/// if let Some(SystemMessage::TaskNotification(n)) = Message::parse(line)?.as_system() {
///     assert_eq!(n.status, Some(TaskStatus::Completed));
///     assert_eq!(n.usage.as_ref().and_then(|u| u.duration_ms), Some(5200));
/// }
/// // a shell task's run time (TypeScript SDK 0.3.336)
/// let line = br#"{"type":"system","subtype":"task_notification","task_id":"b1","status":"completed","summary":"done","duration_ms":812,"session_id":"s1"}"#;
/// if let Some(SystemMessage::TaskNotification(n)) = Message::parse(line)?.as_system() {
///     assert_eq!(n.duration_ms, Some(812));
///     assert!(n.extra.is_empty());
/// }
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskNotification {
    /// The task's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// This run of the task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// The tool call that started it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    /// `completed`, `failed`, `stopped`.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub status: Option<TaskStatus>,
    /// What it did (a sub-agent's final report).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// What it cost.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub usage: Option<TaskUsage>,
    /// The file its output went to (empty when none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_file: Option<String>,
    /// How long a shell task's command ran, in ms, from its launch until it
    /// exited or was stopped (TypeScript SDK 0.3.336). Absent on other task
    /// types, and from older CLIs.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub duration_ms: Option<u64>,
    /// The session id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// Fields claudio does not model (`reason`, `resource_links`, ...), kept
    /// as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system`/`background_tasks_changed`: every background task still running,
/// sent whenever that set changes. A level, not an edge: a task missing
/// from the list has ended, whatever else was (or was not) heard of it.
///
/// ```
/// use claudio::{Message, SystemMessage};
/// let line = br#"{"type":"system","subtype":"background_tasks_changed","tasks":[{"task_id":"bq2x","task_type":"local_bash","description":"wait"}],"session_id":"s1"}"#;
/// if let Some(SystemMessage::BackgroundTasksChanged(c)) = Message::parse(line)?.as_system() {
///     assert_eq!(c.tasks[0].task_id.as_deref(), Some("bq2x"));
/// }
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BackgroundTasksChanged {
    /// The background tasks running now.
    #[serde(default, deserialize_with = "lenient")]
    pub tasks: Vec<BackgroundTask>,
    /// The session id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// Fields claudio does not model, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One entry of [`BackgroundTasksChanged::tasks`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct BackgroundTask {
    /// The task's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// This run of the task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// `local_agent`, `local_bash`, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_type: Option<String>,
    /// The agent type, for a sub-agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent_type: Option<String>,
    /// What it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The sub-agent task that started it, if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_task_id: Option<String>,
    /// Housekeeping, not activity.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub ambient: Option<bool>,
    /// Fields claudio does not model, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system`/`compact_boundary`: the conversation before this point was
/// summarized (`/compact`, or a nearly full context).
///
/// ```
/// use claudio::{protocol::CompactTrigger, Message, SystemMessage};
/// let line = br#"{"type":"system","subtype":"compact_boundary","compact_metadata":{"trigger":"manual","pre_tokens":48210},"uuid":"u1","session_id":"s1"}"#;
/// if let Some(SystemMessage::CompactBoundary(c)) = Message::parse(line)?.as_system() {
///     let meta = c.compact_metadata.as_ref().expect("metadata");
///     assert_eq!((meta.trigger.clone(), meta.pre_tokens), (Some(CompactTrigger::Manual), Some(48210)));
/// }
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompactBoundary {
    /// How and how much was compacted.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub compact_metadata: Option<CompactMetadata>,
    /// The session id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// Fields claudio does not model (`uuid`, ...), kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `compact_metadata` of `compact_boundary`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CompactMetadata {
    /// `manual` or `auto`.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub trigger: Option<CompactTrigger>,
    /// The context's tokens before.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub pre_tokens: Option<u64>,
    /// The context's tokens after, when the CLI says.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub post_tokens: Option<u64>,
    /// How long it took, when the CLI says.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub duration_ms: Option<u64>,
    /// Fields claudio does not model (`preserved_segment`, ...), kept as
    /// sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

has_extra!(
    SystemInit,
    SystemStatus,
    ApiRetry,
    TaskStarted,
    TaskProgress,
    TaskUpdated,
    TaskNotification,
    BackgroundTasksChanged,
    CompactBoundary
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Message;
    use serde_json::json;

    /// A background sub-agent's lines from the real CLI 2.1.332 (2.1.328
    /// wrote the same shapes); ids and paths shortened.
    const REAL: &[&str] = &[
        r#"{"type":"system","subtype":"background_tasks_changed","tasks":[{"task_id":"aed2","run_id":"0mx591aee-5943df21","task_type":"local_agent","subagent_type":"general-purpose","description":"count files"}],"uuid":"be633938","session_id":"6bbe0b05"}"#,
        r#"{"type":"system","subtype":"task_started","task_id":"aed2","run_id":"0mx591aee-5943df21","tool_use_id":"toolu_mock_000001","description":"count files","subagent_type":"general-purpose","is_backgrounded":true,"spawn_depth":1,"task_type":"local_agent","prompt":"count them","uuid":"3c130007","session_id":"6bbe0b05"}"#,
        r#"{"type":"system","subtype":"task_progress","task_id":"aed2","run_id":"0mx591aee-5943df21","tool_use_id":"toolu_mock_000001","description":"Running Run: ls","subagent_type":"general-purpose","usage":{"total_tokens":7138,"tool_uses":1,"duration_ms":1589},"last_tool_name":"Bash","uuid":"f4d65e50","session_id":"6bbe0b05"}"#,
        r#"{"type":"system","subtype":"task_updated","task_id":"aed2","run_id":"0mx591aee-5943df21","patch":{"status":"completed","end_time":1796162936544},"uuid":"22d9ca05","session_id":"6bbe0b05"}"#,
        r#"{"type":"system","subtype":"task_notification","task_id":"aed2","run_id":"0mx591aee-5943df21","tool_use_id":"toolu_mock_000001","status":"completed","output_file":"/tmp/claude-0/-w/6bbe0b05/tasks/aed2.output","summary":"Found 0 files.","summary_is_report":true,"usage":{"total_tokens":7905,"tool_uses":1,"duration_ms":1799},"uuid":"4af47b27","session_id":"6bbe0b05"}"#,
        r#"{"type":"system","subtype":"background_tasks_changed","tasks":[],"uuid":"291a2feb","session_id":"6bbe0b05"}"#,
        // the TypeScript SDK 0.3.333's SDKCompactBoundaryMessage
        r#"{"type":"system","subtype":"compact_boundary","compact_metadata":{"trigger":"manual","pre_tokens":48210,"post_tokens":3100,"duration_ms":5210,"preserved_segment":{"head_uuid":"h","anchor_uuid":"a","tail_uuid":"t"}},"uuid":"c1","session_id":"6bbe0b05"}"#,
    ];

    fn system(line: &str) -> SystemMessage {
        match Message::parse_str(line).unwrap() {
            Message::System(s) => *s,
            m => panic!("{m:?}"),
        }
    }

    #[test]
    fn the_real_cli_s_task_lines_decode_typed_and_round_trip() {
        for line in REAL {
            let s = system(line);
            assert!(!matches!(s, SystemMessage::Other(_)), "{line}");
            assert_eq!(s.session_id(), Some("6bbe0b05"));
            // nothing lost, nothing added
            let sent: Value = serde_json::from_str(line).unwrap();
            assert_eq!(s.to_value(), sent, "{line}");
        }
        let SystemMessage::BackgroundTasksChanged(c) = system(REAL[0]) else {
            panic!()
        };
        let t = &c.tasks[0];
        assert_eq!(t.task_id.as_deref(), Some("aed2"));
        assert_eq!(t.task_type.as_deref(), Some("local_agent"));
        assert_eq!(t.description.as_deref(), Some("count files"));
        assert!(t.extra.is_empty() && c.extra.contains_key("uuid"));

        let SystemMessage::TaskStarted(t) = system(REAL[1]) else {
            panic!()
        };
        assert_eq!(t.is_backgrounded, Some(true));
        assert_eq!(t.tool_use_id.as_deref(), Some("toolu_mock_000001"));
        assert_eq!(t.run_id.as_deref(), Some("0mx591aee-5943df21"));
        assert_eq!(t.extra["spawn_depth"], 1);
        assert!(!t.extra.contains_key("is_backgrounded"));

        let s = system(REAL[2]);
        assert_eq!(s.task_id(), Some("aed2"));
        let SystemMessage::TaskProgress(p) = s else {
            panic!()
        };
        assert_eq!(p.description.as_deref(), Some("Running Run: ls"));
        let u = p.usage.as_ref().unwrap();
        assert_eq!(
            (u.total_tokens, u.tool_uses, u.duration_ms),
            (Some(7138), Some(1), Some(1589))
        );
        assert_eq!(p.last_tool_name.as_deref(), Some("Bash"));

        let SystemMessage::TaskUpdated(u) = system(REAL[3]) else {
            panic!()
        };
        assert_eq!(u.status(), Some(&TaskStatus::Completed));
        assert_eq!(u.patch.as_ref().unwrap().end_time, Some(1796162936544));

        let SystemMessage::TaskNotification(n) = system(REAL[4]) else {
            panic!()
        };
        assert_eq!(n.status, Some(TaskStatus::Completed));
        assert_eq!(n.summary.as_deref(), Some("Found 0 files."));
        assert_eq!(n.usage.as_ref().unwrap().duration_ms, Some(1799));
        assert_eq!(n.extra["summary_is_report"], true);

        let SystemMessage::CompactBoundary(c) = system(REAL[6]) else {
            panic!()
        };
        let m = c.compact_metadata.as_ref().unwrap();
        assert_eq!(m.trigger, Some(CompactTrigger::Manual));
        assert_eq!((m.pre_tokens, m.post_tokens), (Some(48210), Some(3100)));
        assert_eq!(m.extra["preserved_segment"]["anchor_uuid"], "a");
    }

    #[test]
    fn later_names_and_other_shapes_lose_nothing_else() {
        // a status and a trigger this crate does not know are kept
        let s = system(
            r#"{"type":"system","subtype":"task_updated","task_id":"t","patch":{"status":"hibernating","total_paused_ms":5}}"#,
        );
        let SystemMessage::TaskUpdated(u) = &s else {
            panic!()
        };
        assert_eq!(u.status(), Some(&TaskStatus::Other("hibernating".into())));
        assert!(!u.status().unwrap().is_final());
        assert_eq!(u.patch.as_ref().unwrap().extra["total_paused_ms"], 5);
        assert_eq!(s.to_value()["patch"]["status"], "hibernating");
        // a part of another shape: the line is still typed, the rest kept
        let s = system(
            r#"{"type":"system","subtype":"task_notification","task_id":"t","status":7,"usage":"n/a","summary":"ok"}"#,
        );
        let SystemMessage::TaskNotification(n) = &s else {
            panic!()
        };
        assert_eq!((n.status.as_ref(), n.usage.as_ref()), (None, None));
        assert_eq!(n.summary.as_deref(), Some("ok"));
        let s = system(r#"{"type":"system","subtype":"background_tasks_changed","tasks":{"x":1}}"#);
        assert!(matches!(&s, SystemMessage::BackgroundTasksChanged(c) if c.tasks.is_empty()));
        let s = system(r#"{"type":"system","subtype":"compact_boundary"}"#);
        assert!(matches!(&s, SystemMessage::CompactBoundary(c) if c.compact_metadata.is_none()));
        assert_eq!(
            s.to_value(),
            json!({"type":"system","subtype":"compact_boundary"})
        );
        // a subtype this crate does not type stays as sent
        let v = json!({"type":"system","subtype":"thinking_tokens","estimated_tokens":12});
        let s = system(&v.to_string());
        assert_eq!(s, SystemMessage::Other(v.clone()));
        assert_eq!((s.subtype(), s.to_value()), ("thinking_tokens", v));
    }
}
