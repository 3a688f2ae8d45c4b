//! The messages the CLI writes on stdout, one per line (protocol.md §5).

use super::content::{has_extra, ContentBlock, HasExtra, MessageContent};
use super::control::{ControlCancelRequest, ControlRequest, ControlResponse};
use super::names::{OriginKind, OriginSubkind, StartupFailureReason};
use super::replies::{lenient, ModelUsageMap, PermissionDenial, Usage};
use super::stream::StreamEventMessage;
use super::system::{SystemInit, SystemMessage};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// One line from the CLI, decoded by its `type`.
///
/// Decoding never fails for a JSON object: an unknown `type`, or a known one
/// whose shape does not fit, becomes [`Message::Unknown`] with the raw JSON.
///
/// The payloads are boxed: a `Message` is 32 bytes, so handing hundreds of
/// thousands of them from the reader to the consumer moves pointers, not
/// 300-byte structs. Fields are reached through the box as usual
/// (`Message::Result(r) => r.is_error`); `*r` takes the payload out.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Message {
    /// `system`: session start, status, retries, sub-agent tasks, ...
    System(Box<SystemMessage>),
    /// `assistant`: a content block from the model.
    Assistant(Box<AssistantMessage>),
    /// `user`: tool results, replays.
    User(Box<UserMessage>),
    /// `stream_event`: a raw API stream event (partial messages).
    StreamEvent(Box<StreamEventMessage>),
    /// `result`: the end of a turn.
    Result(Box<ResultMessage>),
    /// `command_lifecycle`: where a prompt sent with a `uuid` is (queued,
    /// started, completed).
    CommandLifecycle(Box<CommandLifecycle>),
    /// `tool_progress`: a tool is still running.
    ToolProgress(Box<ToolProgress>),
    /// Anything else, as sent.
    Unknown(Value),
}

/// A line from the CLI, as the client routes it: the control protocol's
/// lines (requests, answers, cancellations) never reach users; they are
/// handled inside. [`Message::parse`] turns them into [`Message::Unknown`].
#[derive(Debug)]
pub(crate) enum Routed {
    Message(Message),
    Request(Box<ControlRequest>),
    Response(Box<ControlResponse>),
    Cancel(Box<ControlCancelRequest>),
}

impl Message {
    /// The line's `type` (`assistant`, `result`, ...).
    ///
    /// See [`Message::parse`] for an example.
    pub fn kind(&self) -> &str {
        match self {
            Message::System(_) => "system",
            Message::Assistant(_) => "assistant",
            Message::User(_) => "user",
            Message::StreamEvent(_) => "stream_event",
            Message::Result(_) => "result",
            Message::CommandLifecycle(_) => "command_lifecycle",
            Message::ToolProgress(_) => "tool_progress",
            Message::Unknown(v) => v.get("type").and_then(Value::as_str).unwrap_or(""),
        }
    }

    /// The session id the message carries, if any.
    ///
    /// See [`Message::parse_str`] for an example.
    pub fn session_id(&self) -> Option<&str> {
        match self {
            Message::System(s) => s.session_id(),
            Message::Assistant(m) => m.session_id.as_deref(),
            Message::User(m) => m.session_id.as_deref(),
            Message::StreamEvent(m) => m.session_id.as_deref(),
            Message::Result(m) => m.session_id.as_deref(),
            Message::CommandLifecycle(m) => m.session_id.as_deref(),
            Message::ToolProgress(m) => m.session_id.as_deref(),
            Message::Unknown(v) => v.get("session_id").and_then(Value::as_str),
        }
    }

    /// The `result` payload, if this is one.
    ///
    /// ```
    /// use claudio::Message;
    /// let line = br#"{"type":"result","subtype":"success","is_error":false,"result":"4","total_cost_usd":0.0021}"#;
    /// let msg = Message::parse(line)?;
    /// let r = msg.as_result().expect("a result");
    /// assert_eq!((r.result.as_deref(), r.total_cost_usd), (Some("4"), Some(0.0021)));
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn as_result(&self) -> Option<&ResultMessage> {
        match self {
            Message::Result(r) => Some(r),
            _ => None,
        }
    }

    /// The `assistant` payload, if this is one.
    ///
    /// ```
    /// use claudio::Message;
    /// use serde_json::json;
    /// let line = json!({
    ///     "type": "assistant",
    ///     "message": {"id": "msg_1", "role": "assistant", "model": "claude-sonnet-4-5",
    ///                 "content": [{"type": "text", "text": "Hello!"}]},
    ///     "parent_tool_use_id": null,
    ///     "session_id": "s1",
    /// });
    /// let msg = Message::parse_str(&line.to_string())?;
    /// assert_eq!(msg.as_assistant().map(|a| a.text()).as_deref(), Some("Hello!"));
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn as_assistant(&self) -> Option<&AssistantMessage> {
        match self {
            Message::Assistant(a) => Some(a),
            _ => None,
        }
    }

    /// The `user` payload, if this is one.
    ///
    /// ```
    /// use claudio::{ContentBlock, Message};
    /// use serde_json::json;
    /// let line = json!({
    ///     "type": "user",
    ///     "message": {"role": "user", "content": [{"type": "tool_result",
    ///         "tool_use_id": "toolu_1", "content": "3 files", "is_error": false}]},
    ///     "parent_tool_use_id": null,
    ///     "session_id": "s1",
    /// });
    /// let msg = Message::parse_str(&line.to_string())?;
    /// let user = msg.as_user().expect("a user line");
    /// for block in user.message.content.blocks() {
    ///     if let ContentBlock::ToolResult(r) = block {
    ///         assert_eq!((r.tool_use_id.as_str(), r.text()), ("toolu_1", "3 files".to_owned()));
    ///     }
    /// }
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn as_user(&self) -> Option<&UserMessage> {
        match self {
            Message::User(u) => Some(u),
            _ => None,
        }
    }

    /// The `system` payload, if this is one.
    ///
    /// ```
    /// use claudio::{Message, SystemMessage};
    /// let line = br#"{"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"error_status":529}"#;
    /// let msg = Message::parse(line)?;
    /// if let Some(SystemMessage::ApiRetry(r)) = msg.as_system() {
    ///     assert_eq!((r.attempt, r.error_status), (Some(1), Some(529)));
    /// }
    /// assert_eq!(msg.as_system().map(|s| s.subtype()), Some("api_retry"));
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn as_system(&self) -> Option<&SystemMessage> {
        match self {
            Message::System(s) => Some(s),
            _ => None,
        }
    }

    /// The `system`/`init` payload, if this is one.
    ///
    /// ```
    /// use claudio::Message;
    /// let line = br#"{"type":"system","subtype":"init","session_id":"s1","model":"claude-sonnet-4-5","tools":["Read","Bash"]}"#;
    /// let msg = Message::parse(line)?;
    /// let init = msg.as_init().expect("an init");
    /// assert_eq!(init.model.as_deref(), Some("claude-sonnet-4-5"));
    /// assert_eq!(init.tools, ["Read", "Bash"]);
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn as_init(&self) -> Option<&SystemInit> {
        match self.as_system()? {
            SystemMessage::Init(i) => Some(i),
            _ => None,
        }
    }

    /// The `stream_event` payload, if this is one.
    ///
    /// See [`StreamEventMessage::text_delta`] for an example.
    pub fn as_stream_event(&self) -> Option<&StreamEventMessage> {
        match self {
            Message::StreamEvent(e) => Some(e),
            _ => None,
        }
    }

    /// The `command_lifecycle` payload, if this is one.
    ///
    /// ```
    /// use claudio::{protocol::CommandState, Message};
    /// let line = br#"{"type":"command_lifecycle","command_uuid":"u1","state":"started","session_id":"s1"}"#;
    /// let msg = Message::parse(line)?;
    /// let c = msg.as_command_lifecycle().expect("a lifecycle line");
    /// assert_eq!((c.command_uuid.as_deref(), &c.state), (Some("u1"), &CommandState::Started));
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn as_command_lifecycle(&self) -> Option<&CommandLifecycle> {
        match self {
            Message::CommandLifecycle(c) => Some(c),
            _ => None,
        }
    }

    /// The `tool_progress` payload, if this is one.
    ///
    /// ```
    /// use claudio::Message;
    /// let line = br#"{"type":"tool_progress","tool_use_id":"toolu_1","tool_name":"Bash","parent_tool_use_id":null,"elapsed_time_seconds":12,"description":"Running the tests","session_id":"s1"}"#;
    /// let msg = Message::parse(line)?;
    /// let p = msg.as_tool_progress().expect("a progress line");
    /// assert_eq!(p.description.as_deref(), Some("Running the tests"));
    /// assert_eq!(p.elapsed_time_seconds, Some(12.0));
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn as_tool_progress(&self) -> Option<&ToolProgress> {
        match self {
            Message::ToolProgress(p) => Some(p),
            _ => None,
        }
    }

    /// Whether this is the `result` that ends a turn.
    ///
    /// ```
    /// let line = br#"{"type":"result","subtype":"success","is_error":false}"#;
    /// let msg = claudio::Message::parse(line)?;
    /// assert!(msg.is_result());
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn is_result(&self) -> bool {
        matches!(self, Message::Result(_))
    }
}

/// An API message (the `message` field of `assistant` lines).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApiMessage {
    /// The API message id; several `assistant` lines share one.
    #[serde(default)]
    pub id: Option<String>,
    /// The model; `<synthetic>` for errors the CLI made up.
    #[serde(default)]
    pub model: Option<String>,
    /// `assistant`.
    #[serde(default)]
    pub role: Option<String>,
    /// The content blocks (in 2.1.x, one per line).
    #[serde(default)]
    pub content: Vec<ContentBlock>,
    /// Why generation stopped, when it did.
    #[serde(default)]
    pub stop_reason: Option<String>,
    /// Token usage of the API call (fields claudio does not model kept in
    /// its `extra`); `None` when absent or not an object.
    #[serde(default, deserialize_with = "lenient")]
    pub usage: Option<Usage>,
    /// Fields claudio does not model, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// An `assistant` line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AssistantMessage {
    /// The API message.
    pub message: ApiMessage,
    /// Set inside sub-agents: the `Task` call's id.
    #[serde(default)]
    pub parent_tool_use_id: Option<String>,
    /// The session id.
    #[serde(default)]
    pub session_id: Option<String>,
    /// The line's id.
    #[serde(default)]
    pub uuid: Option<String>,
    /// Fields claudio does not model (`aborted`, `error`, ...), kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl AssistantMessage {
    /// The text blocks' text, joined.
    ///
    /// See [`Message::as_assistant`] for an example.
    pub fn text(&self) -> String {
        MessageContent::Blocks(self.message.content.clone()).text()
    }

    /// Whether the CLI made this message up (an API error shown as text).
    pub fn is_synthetic(&self) -> bool {
        self.message.model.as_deref() == Some("<synthetic>")
    }

    /// Whether the message was cut short by an interrupt.
    pub fn is_aborted(&self) -> bool {
        self.extra.get("aborted").and_then(Value::as_bool) == Some(true)
    }
}

/// The `message` field of `user` lines.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserContent {
    /// `user`.
    #[serde(default)]
    pub role: Option<String>,
    /// A string or blocks (tool results).
    #[serde(default)]
    pub content: MessageContent,
    /// Fields claudio does not model, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A `command_lifecycle` line. A prompt sent with a `uuid`
/// ([`UserInput::uuid`](crate::UserInput::uuid)) gets three, keyed by that
/// uuid: `queued` when the CLI takes it, `started` before its turn's
/// `system`/`init`, `completed` right after its turn's `result` (so it
/// arrives in the stream after that turn, before the next).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommandLifecycle {
    /// The `uuid` the host put on its prompt.
    #[serde(default)]
    pub command_uuid: Option<String>,
    /// Where the prompt is.
    #[serde(default = "unknown_state")]
    pub state: super::names::CommandState,
    /// The line's own id.
    #[serde(default)]
    pub uuid: Option<String>,
    /// The session id.
    #[serde(default)]
    pub session_id: Option<String>,
    /// Fields claudio does not model, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
has_extra!(CommandLifecycle);

/// A `tool_progress` line: a tool call is still running (a heartbeat, a
/// shell command's progress, a sub-agent's API retry). Typed from the
/// TypeScript SDK 0.3.333 (`SDKToolProgressMessage`); the CLI 2.1.332 wrote
/// none in the probes (a Bash command of 8 s, with and without partial
/// messages).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolProgress {
    /// The tool call (a heartbeat's own id for a heartbeat).
    #[serde(default)]
    pub tool_use_id: Option<String>,
    /// The tool (or, for a hook's heartbeat, the hook event).
    #[serde(default)]
    pub tool_name: Option<String>,
    /// The call it belongs to (inside sub-agents; a heartbeat's call).
    #[serde(default)]
    pub parent_tool_use_id: Option<String>,
    /// How long it has run.
    #[serde(default, deserialize_with = "lenient")]
    pub elapsed_time_seconds: Option<f64>,
    /// The background task it runs as, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// What the call does, for people (new in the TypeScript SDK 0.3.333).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Set on a heartbeat (nothing new, still running).
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub heartbeat: Option<bool>,
    /// The sub-agent's type, for a sub-agent's progress.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent_type: Option<String>,
    /// The line's id.
    #[serde(default)]
    pub uuid: Option<String>,
    /// The session id.
    #[serde(default)]
    pub session_id: Option<String>,
    /// Fields claudio does not model (`subagent_retry`, ...), kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
has_extra!(ToolProgress);

/// Where a user message or a result came from (`origin`; the TypeScript
/// SDK's `SDKMessageOrigin`): a person, a channel, a peer session, a task's
/// notification, ... One struct for all kinds: the fields of other kinds
/// are `None`.
///
/// ```
/// use claudio::protocol::{MessageOrigin, OriginKind, OriginSubkind};
/// use serde_json::json;
/// let o: MessageOrigin = serde_json::from_value(json!({
///     "kind": "task-notification", "subkind": "external-event"}))?;
/// assert_eq!(o.kind, Some(OriginKind::TaskNotification));
/// // the server's notice of an event outside the session: its text can
/// // quote a third party
/// assert_eq!(o.subkind, Some(OriginSubkind::ExternalEvent));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct MessageOrigin {
    /// `human`, `channel`, `peer`, `task-notification`, ...
    #[serde(default, deserialize_with = "lenient")]
    pub kind: Option<OriginKind>,
    /// A channel's MCP server (`channel`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// Who sent it, as the sender says (`peer`, `observer`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// The sender's display name (`peer`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The sending session's id (`peer`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_session: Option<String>,
    /// The background sub-agent that sent it (`peer`, `observer`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sender_task_id: Option<String>,
    /// The message body without the peer envelope (`peer`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// What kind of task notification (`task-notification`): a scheduled
    /// task, a peer's message, an external event, ...
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub subkind: Option<OriginSubkind>,
    /// Why a scheduled task fired (`scheduled`, `manual`, `retry`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fire_reason: Option<String>,
    /// A background task's `run_id` (`task-notification`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// Fields claudio does not model (`fromMode`, `verifiedPeerPid`, ...),
    /// kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn unknown_state() -> super::names::CommandState {
    super::names::CommandState::Other(String::new())
}

/// A `user` line: tool results, or a replayed prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UserMessage {
    /// The message.
    pub message: UserContent,
    /// Set inside sub-agents.
    #[serde(default, rename = "parent_tool_use_id")]
    pub parent_tool_use_id: Option<String>,
    /// The session id.
    #[serde(default, rename = "session_id")]
    pub session_id: Option<String>,
    /// The line's id.
    #[serde(default)]
    pub uuid: Option<String>,
    /// Set on echoes of the host's own messages (`--replay-user-messages`).
    #[serde(default)]
    pub is_replay: Option<bool>,
    /// A tool's structured result (Bash: `stdout`, `stderr`, `interrupted`).
    #[serde(default, rename = "tool_use_result")]
    pub tool_use_result: Option<Value>,
    /// Where the message came from, when the CLI says.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub origin: Option<MessageOrigin>,
    /// Fields claudio does not model, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A `result` line: the end of a turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultMessage {
    /// `success`, `error_during_execution`, `error_max_turns`, ...
    pub subtype: String,
    /// Whether the turn ended in an error.
    #[serde(default)]
    pub is_error: bool,
    /// The final text, if any.
    #[serde(default)]
    pub result: Option<String>,
    /// The session id.
    #[serde(default)]
    pub session_id: Option<String>,
    /// Turns taken.
    #[serde(default)]
    pub num_turns: Option<u64>,
    /// Wall time of the turn.
    #[serde(default)]
    pub duration_ms: Option<u64>,
    /// Time spent in the API.
    #[serde(default)]
    pub duration_api_ms: Option<u64>,
    /// Cost so far in US dollars.
    #[serde(default)]
    pub total_cost_usd: Option<f64>,
    /// Token usage.
    #[serde(default, deserialize_with = "lenient")]
    pub usage: Option<Usage>,
    /// Usage per model, by model name (empty when the CLI sent none).
    #[serde(
        default,
        rename = "modelUsage",
        deserialize_with = "lenient",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub model_usage: ModelUsageMap,
    /// Tools the person or a rule refused.
    #[serde(default, deserialize_with = "lenient")]
    pub permission_denials: Vec<PermissionDenial>,
    /// The answer in the shape `Options::json_schema` asked for, when the
    /// model gave it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_output: Option<Value>,
    /// What went wrong, for an error result (an entry that is not text is
    /// kept as its JSON).
    #[serde(
        default,
        deserialize_with = "error_texts",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub errors: Vec<String>,
    /// Why the turn ended (`completed`, `aborted_streaming`, `api_error`, ...).
    #[serde(default)]
    pub terminal_reason: Option<String>,
    /// The API's last stop reason.
    #[serde(default)]
    pub stop_reason: Option<String>,
    /// Why the CLI could not start, on the zeroed `error_during_execution`
    /// result it writes before exiting on a known startup failure (`errors`
    /// has the message). `None` on every other result.
    ///
    /// ```
    /// use claudio::{protocol::StartupFailureReason, Message};
    /// // the CLI 2.1.332 started in a directory that was removed (trimmed)
    /// let line = br#"{"type":"result","subtype":"error_during_execution","is_error":true,"num_turns":0,"errors":["The current directory no longer exists (it was deleted or moved). Start Claude Code from an existing directory."],"startup_failure_reason":"cwd_unavailable","result_index":0}"#;
    /// let msg = Message::parse(line)?;
    /// let r = msg.as_result().expect("a result");
    /// assert_eq!(r.startup_failure_reason, Some(StartupFailureReason::CwdUnavailable));
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub startup_failure_reason: Option<StartupFailureReason>,
    /// Where the turn's prompt came from, when the CLI says.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub origin: Option<MessageOrigin>,
    /// Fields claudio does not model, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

has_extra!(
    ApiMessage,
    AssistantMessage,
    UserContent,
    UserMessage,
    ResultMessage
);

impl UserMessage {
    /// The output of a command the CLI ran for the host, which it reports
    /// as a `user` line of `<local-command-stdout>…</local-command-stdout>`
    /// (`isReplay: true`). The CLI 2.1.328 writes one right after answering
    /// [`Client::set_model`](crate::Client::set_model) once a turn has run
    /// (none before the first): ``Set model to `claude-x` ``. `None` for any
    /// other line.
    ///
    /// ```
    /// use claudio::Message;
    /// let line = br#"{"type":"user","message":{"role":"user","content":"<local-command-stdout>Set model to `claude-x`</local-command-stdout>"},"isReplay":true}"#;
    /// let msg = Message::parse(line)?;
    /// let user = msg.as_user().expect("a user line");
    /// assert_eq!(user.local_command_stdout(), Some("Set model to `claude-x`"));
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn local_command_stdout(&self) -> Option<&str> {
        const OPEN: &str = "<local-command-stdout>";
        const CLOSE: &str = "</local-command-stdout>";
        match &self.message.content {
            MessageContent::Text(t) => t.trim().strip_prefix(OPEN)?.strip_suffix(CLOSE),
            MessageContent::Blocks(_) => None,
        }
    }
}

impl ResultMessage {
    /// The final text; empty when the CLI sent none (an error result, a
    /// turn that ended on a tool). `result` keeps the difference.
    ///
    /// ```
    /// let line = br#"{"type":"result","subtype":"success","is_error":false,"result":"42","total_cost_usd":0.0123}"#;
    /// let msg = claudio::Message::parse(line)?;
    /// let r = msg.as_result().expect("a result");
    /// println!("{} (${:.4})", r.text(), r.cost_usd()); // no unwrap_or
    /// assert_eq!((r.text(), r.cost_usd()), ("42", 0.0123));
    /// let bare = claudio::Message::parse(br#"{"type":"result","subtype":"error_during_execution","is_error":true}"#)?;
    /// assert_eq!((bare.as_result().unwrap().text(), bare.as_result().unwrap().cost_usd()), ("", 0.0));
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn text(&self) -> &str {
        self.result.as_deref().unwrap_or("")
    }

    /// The session's cost so far in US dollars, as the CLI computed it; 0
    /// when it sent none. `total_cost_usd` keeps the difference.
    ///
    /// See [`ResultMessage::text`] for an example.
    pub fn cost_usd(&self) -> f64 {
        self.total_cost_usd.unwrap_or(0.0)
    }

    /// Whether the turn was cut short by an interrupt.
    ///
    /// ```
    /// let line = br#"{"type":"result","subtype":"error_during_execution","is_error":true,"terminal_reason":"aborted_streaming"}"#;
    /// let msg = claudio::Message::parse(line)?;
    /// assert!(msg.as_result().expect("a result").was_interrupted());
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn was_interrupted(&self) -> bool {
        self.terminal_reason.as_deref() == Some("aborted_streaming")
    }

    /// The `subtype`, as a closed set (unknown ones are kept).
    ///
    /// ```
    /// use claudio::{protocol::ResultSubtype, Message};
    /// let line = br#"{"type":"result","subtype":"error_max_turns","is_error":true,"num_turns":3}"#;
    /// let msg = Message::parse(line)?;
    /// match msg.as_result().map(|r| r.kind()) {
    ///     Some(ResultSubtype::Success) => println!("done"),
    ///     Some(ResultSubtype::ErrorMaxTurns) => println!("out of turns: raise `max_turns`"),
    ///     Some(other) => println!("ended: {other:?}"),
    ///     None => {}
    /// }
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn kind(&self) -> ResultSubtype {
        ResultSubtype::from_name(&self.subtype)
    }

    /// What went wrong: the `errors` the CLI listed, else the `result`
    /// text of an error result. Empty for a success.
    ///
    /// ```
    /// use claudio::Message;
    /// let line = br#"{"type":"result","subtype":"success","is_error":true,"result":"API Error: 529 Overloaded"}"#;
    /// let failed = Message::parse(line)?;
    /// assert_eq!(failed.as_result().unwrap().errors(), ["API Error: 529 Overloaded"]);
    /// let line = br#"{"type":"result","subtype":"error_max_turns","is_error":true,"errors":["Reached maximum number of turns (3)"]}"#;
    /// let out_of_turns = Message::parse(line)?;
    /// let errors = out_of_turns.as_result().unwrap().errors();
    /// assert_eq!(errors, ["Reached maximum number of turns (3)"]);
    /// let line = br#"{"type":"result","subtype":"success","is_error":false,"result":"4"}"#;
    /// assert!(Message::parse(line)?.as_result().unwrap().errors().is_empty());
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn errors(&self) -> Vec<&str> {
        if !self.errors.is_empty() {
            return self.errors.iter().map(String::as_str).collect();
        }
        match (&self.result, self.is_error) {
            (Some(r), true) => vec![r.as_str()],
            _ => Vec::new(),
        }
    }
}

/// `errors` as text, whatever each entry is.
fn error_texts<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::Array(a) => a
            .into_iter()
            .map(|e| match e {
                Value::String(s) => s,
                other => other.to_string(),
            })
            .collect(),
        Value::Null => Vec::new(),
        Value::String(s) => vec![s],
        other => vec![other.to_string()],
    })
}

/// How a turn ended ([`ResultMessage::kind`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ResultSubtype {
    /// It ended normally (an API error also ends with `success` and
    /// `is_error`).
    Success,
    /// It failed or was interrupted while running.
    ErrorDuringExecution,
    /// It hit `Options::max_turns`.
    ErrorMaxTurns,
    /// It hit the budget in US dollars.
    ErrorMaxBudgetUsd,
    /// Structured output failed validation too often.
    ErrorMaxStructuredOutputRetries,
    /// A subtype this crate does not know, as sent.
    Other(String),
}

impl ResultSubtype {
    /// The subtype for the CLI's name of it.
    pub fn from_name(name: &str) -> ResultSubtype {
        match name {
            "success" => ResultSubtype::Success,
            "error_during_execution" => ResultSubtype::ErrorDuringExecution,
            "error_max_turns" => ResultSubtype::ErrorMaxTurns,
            "error_max_budget_usd" => ResultSubtype::ErrorMaxBudgetUsd,
            "error_max_structured_output_retries" => ResultSubtype::ErrorMaxStructuredOutputRetries,
            other => ResultSubtype::Other(other.to_owned()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An assistant line's usage is typed; fields claudio does not model are
    /// kept in its `extra`, and a usage that is no object reads as none.
    #[test]
    fn an_assistant_s_usage_is_typed_and_keeps_what_is_unknown() {
        let line = |usage: &str| {
            format!(
                r#"{{"type":"assistant","session_id":"s","message":{{"id":"m","content":[],"usage":{usage}}}}}"#
            )
        };
        let Ok(Message::Assistant(a)) = Message::parse_str(&line(
            r#"{"input_tokens":3,"cache_read_input_tokens":100,"output_tokens":7,"server_tool_use":{"web_search_requests":1}}"#,
        )) else {
            panic!("not an assistant line")
        };
        let u = a.message.usage.as_ref().unwrap();
        assert_eq!(
            (u.input_tokens, u.cache_read_input_tokens, u.output_tokens),
            (3, 100, 7)
        );
        assert_eq!(u.extra["server_tool_use"]["web_search_requests"], 1);
        let Ok(Message::Assistant(a)) = Message::parse_str(&line(r#""n/a""#)) else {
            panic!("not an assistant line")
        };
        assert_eq!(a.message.usage, None);
    }
    use crate::protocol::stream::{Delta, StreamEvent};
    use crate::protocol::PermissionMode;
    use serde_json::json;

    fn parse(v: Value) -> Message {
        Message::parse(v.to_string().as_bytes()).unwrap()
    }

    #[test]
    fn a_lone_surrogate_escape_is_read_as_a_replacement_character() {
        // `JSON.stringify` of a string cut inside an emoji: serde_json alone
        // refuses the line, and the message (here a tool's result, then a
        // streamed delta and a control request) was dropped
        let line = br#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"zebra \ud83d"}]},"session_id":"s"}"#;
        assert!(serde_json::from_slice::<Value>(line).is_err());
        let m = Message::parse(line).unwrap();
        assert_eq!(m.kind(), "user");
        assert!(m.as_user().is_some());
        assert!(format!("{m:?}").contains("zebra \u{FFFD}"), "{m:?}");
        let delta = br#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\udc00b"}},"session_id":"s"}"#;
        let Message::StreamEvent(e) = Message::parse(delta).unwrap() else {
            panic!("a stream event")
        };
        assert_eq!(
            e.event,
            StreamEvent::ContentBlockDelta {
                index: 0,
                delta: Delta::Text("a\u{FFFD}b".into())
            }
        );
        let req = br#"{"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"echo \ud83d"},"tool_use_id":"t2"}}"#;
        assert!(matches!(Routed::parse(req).unwrap(), Routed::Request(_)));
        // still not JSON: still an error
        assert!(Message::parse(br#"{"type":"user","x":"\ud83d""#).is_err());
    }

    #[test]
    fn results_are_typed_and_a_misshapen_part_loses_nothing_else() {
        let r = parse(
            json!({"type":"result","subtype":"error_max_turns","is_error":true,
            "usage":{"input_tokens":10,"output_tokens":3,"cache_read_input_tokens":2,"server_tool_use":{}},
            "modelUsage":{"claude-opus-5-5":{"inputTokens":10,"outputTokens":3,"costUSD":0.01}},
            "permission_denials":[{"tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"rm"}}],
            "errors":["Reached maximum number of turns (1)", {"code":7}]}),
        );
        let r = r.as_result().unwrap();
        assert_eq!(r.kind(), ResultSubtype::ErrorMaxTurns);
        let u = r.usage.as_ref().unwrap();
        assert_eq!(
            (u.input_tokens, u.output_tokens, u.cache_read_input_tokens),
            (10, 3, 2)
        );
        assert!(u.extra.contains_key("server_tool_use"));
        assert_eq!(r.model_usage["claude-opus-5-5"].output_tokens, 3);
        assert_eq!(r.permission_denials[0].tool_name, "Bash");
        assert_eq!(
            r.errors(),
            ["Reached maximum number of turns (1)", r#"{"code":7}"#]
        );
        // a later CLI changes a part's shape: the result is still a result
        let r = parse(
            json!({"type":"result","subtype":"new_kind","is_error":true,"result":"boom",
            "usage":"n/a","modelUsage":[1],"permission_denials":{"x":1}}),
        );
        let r = r.as_result().expect("still a result");
        assert_eq!(r.usage, None);
        assert!(r.model_usage.is_empty() && r.permission_denials.is_empty());
        assert_eq!(r.kind(), ResultSubtype::Other("new_kind".into()));
        assert_eq!(r.errors(), ["boom"]);
    }

    #[test]
    fn accessors_reach_the_payloads() {
        let r = Message::parse(
            br#"{"type":"result","subtype":"success","is_error":false,"result":"ok"}"#,
        )
        .unwrap();
        assert_eq!(r.as_result().and_then(|r| r.result.as_deref()), Some("ok"));
        assert!(r.as_assistant().is_none());
        let i =
            Message::parse(br#"{"type":"system","subtype":"init","session_id":"s","model":"m"}"#)
                .unwrap();
        assert_eq!(i.as_init().and_then(|i| i.model.as_deref()), Some("m"));
        assert!(i.as_system().is_some());
        assert!(i.as_result().is_none());
    }

    #[test]
    fn a_message_is_pointer_sized_payloads() {
        // Hundreds of thousands of messages pass from the reader to the
        // consumer; they must move as pointers (see the enum's docs).
        assert!(std::mem::size_of::<Message>() <= 32);
    }

    #[test]
    fn each_type_decodes() {
        let m = parse(
            json!({"type":"system","subtype":"init","session_id":"s1","model":"m","cwd":"/x","tools":["Bash"],"permissionMode":"default","mcp_servers":[],"newField":1}),
        );
        let Message::System(s) = &m else {
            panic!("{m:?}")
        };
        let SystemMessage::Init(i) = &**s else {
            panic!("{m:?}")
        };
        assert_eq!(i.session_id.as_deref(), Some("s1"));
        assert_eq!(i.permission_mode, Some(PermissionMode::Default));
        assert_eq!(i.extra["newField"], 1);
        assert!(!i.extra.contains_key("type") && !i.extra.contains_key("subtype"));
        assert_eq!(m.session_id(), Some("s1"));

        let m = parse(
            json!({"type":"assistant","message":{"id":"msg_1","model":"m","role":"assistant","content":[{"type":"text","text":"hi"}]},"parent_tool_use_id":null,"session_id":"s1","uuid":"u"}),
        );
        let Message::Assistant(a) = &m else { panic!() };
        assert_eq!(a.text(), "hi");

        let m = parse(
            json!({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}]},"tool_use_result":{"stdout":"ok"},"session_id":"s"}),
        );
        let Message::User(u) = &m else { panic!() };
        assert_eq!(u.tool_use_result.as_ref().unwrap()["stdout"], "ok");

        let m = parse(
            json!({"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}},"session_id":"s"}),
        );
        let Message::StreamEvent(e) = &m else {
            panic!()
        };
        assert_eq!(
            e.event,
            StreamEvent::ContentBlockDelta {
                index: 0,
                delta: Delta::Text("x".into())
            }
        );

        let m = parse(
            json!({"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"s","num_turns":1,"total_cost_usd":0.01,"modelUsage":{},"terminal_reason":"completed"}),
        );
        let Message::Result(r) = &m else { panic!() };
        assert_eq!(r.result.as_deref(), Some("done"));
        assert!(m.is_result());

        // the control protocol's lines are routed inside, and raw outside
        let line = json!({"type":"control_cancel_request","request_id":"r9"});
        let routed = Routed::parse(line.to_string().as_bytes()).unwrap();
        assert!(matches!(routed, Routed::Cancel(ref c) if c.request_id == "r9"));
        assert_eq!(parse(line.clone()), Message::Unknown(line));
        let line = json!({"type":"control_response","response":{"subtype":"error","request_id":"r1","error":"bad"}});
        let routed = Routed::parse(line.to_string().as_bytes()).unwrap();
        assert!(
            matches!(routed, Routed::Response(ref c) if c.response.error.as_deref() == Some("bad"))
        );
        assert_eq!(parse(line.clone()).kind(), "control_response");
    }

    #[test]
    fn unknown_and_misshapen_lines_pass_through() {
        let v = json!({"type":"tool_use_summary","summary":"s","preceding_tool_use_ids":[]});
        assert_eq!(parse(v.clone()), Message::Unknown(v));
        // `assistant` without `message`: kept raw, not an error.
        let v = json!({"type":"assistant","oops":true});
        assert_eq!(parse(v.clone()), Message::Unknown(v));
        let v = json!({"type":"system","subtype":"moon_phase","x":1});
        assert_eq!(
            parse(v.clone()),
            Message::System(Box::new(SystemMessage::Other(v)))
        );
        let v = json!({"no_type":1});
        assert_eq!(parse(v.clone()), Message::Unknown(v));
    }

    #[test]
    fn duplicate_keys_are_kept_raw_not_an_error() {
        // found by the `decode` fuzz target
        let line = br#"{"type":"system","subt":"systeem","subt":"system","subtype":"init","session_id":"bdd640fb-06m","subtype":"init","session_id":"bdd640fb-0667-1ad-dte..4ed2-6"}"#;
        let m = Message::parse(line).unwrap();
        assert!(
            matches!(m, Message::Unknown(ref v) if v["subtype"] == "init"),
            "{m:?}"
        );
        let line = br#"{"type":"result","type":"result","subtype":"success"}"#;
        assert!(Message::parse(line).is_ok());
    }

    /// A `type` (or a system line's `subtype`) given twice is read as
    /// serde_json reads a repeated key, its last value, whatever the keys'
    /// order: the shortcut that reads the first `type` at the line's start
    /// took a line whose `type` is `user` for a `control_response` (routed
    /// as the answer to a request), and `result` lines of another type for
    /// results.
    #[test]
    fn a_type_given_twice_is_its_last_whatever_the_order() {
        // each line, and the same keys with another first (`type` not at
        // the line's start, where the shortcut reads it)
        let lines = [
            (
                r#"{"type":"result","subtype":"success","is_error":false,"result":"x","type":"assistant"}"#,
                r#"{"subtype":"success","type":"result","is_error":false,"result":"x","type":"assistant"}"#,
            ),
            (
                r#"{"type":"control_response","response":{"subtype":"success","request_id":"r1","response":{}},"type":"user"}"#,
                r#"{"response":{"subtype":"success","request_id":"r1","response":{}},"type":"control_response","type":"user"}"#,
            ),
            (
                r#"{"type":"stream_event","event":{"type":"message_stop"},"type":"tool_use_summary"}"#,
                r#"{"event":{"type":"message_stop"},"type":"stream_event","type":"tool_use_summary"}"#,
            ),
            (
                r#"{"type":"system","subtype":"init","session_id":"s","subtype":"status","status":"requesting"}"#,
                r#"{"session_id":"s","type":"system","subtype":"init","subtype":"status","status":"requesting"}"#,
            ),
            (
                r#"{"type":"system","subtype":"status","session_id":"s","subtype":"moon_phase"}"#,
                r#"{"session_id":"s","type":"system","subtype":"status","subtype":"moon_phase"}"#,
            ),
            (
                r#"{"type":"user","type":"result","subtype":"success","is_error":false,"result":"x"}"#,
                r#"{"subtype":"success","type":"user","type":"result","is_error":false,"result":"x"}"#,
            ),
            (
                r#"{"type":"result","type":"result","subtype":"success"}"#,
                r#"{"subtype":"success","type":"result","type":"result"}"#,
            ),
            (
                r#"{"type":"result","subtype":"success","type":5}"#,
                r#"{"subtype":"success","type":"result","type":5}"#,
            ),
        ];
        for (line, moved) in lines {
            let v: Value = serde_json::from_str(line).unwrap();
            let last = v["type"].as_str().unwrap_or("");
            let m = Message::parse_str(line).unwrap();
            assert_eq!(m.kind(), last, "{line}: {m:?}");
            if let (Some(s), Some(sub)) = (m.as_system(), v["subtype"].as_str()) {
                assert_eq!(s.subtype(), sub, "{line}: {m:?}");
            }
            assert_eq!(Message::parse_str(moved).unwrap(), m, "{moved}");
            // routed as the message it is, never as the control protocol's
            // line its first `type` names
            let routed = Routed::parse_str(line).unwrap();
            assert!(matches!(routed, Routed::Message(_)), "{line}");
        }
        // a `user` line is not the answer to a request
        let m = Message::parse_str(lines[1].0).unwrap();
        assert!(matches!(m, Message::Unknown(_)), "{m:?}");
        let typed = Message::parse_str(lines[5].0).unwrap();
        assert_eq!(
            typed.as_result().and_then(|r| r.result.as_deref()),
            Some("x")
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: 2000,
            failure_persistence: None,
            ..proptest::prelude::ProptestConfig::default()
        })]

        /// Any object of the lines' members, `type` and `subtype` among
        /// them once, twice or not at all, in any order: its kind is the
        /// `type` serde_json's value reads (the last one given), and it is
        /// routed as a control line only when that is one.
        #[test]
        fn the_kind_is_the_type_serde_json_reads(
            members in proptest::collection::vec(
                proptest::sample::select(&[
                    r#""type":"result""#, r#""type":"assistant""#, r#""type":"user""#,
                    r#""type":"system""#, r#""type":"stream_event""#, r#""type":"control_response""#,
                    r#""type":"control_request""#, r#""type":"brand_new""#, r#""type":7"#,
                    r#""subtype":"success""#, r#""subtype":"init""#, r#""subtype":"status""#,
                    r#""subtype":5"#, r#""is_error":false"#, r#""result":"x""#,
                    r#""session_id":"s""#, r#""status":"requesting""#,
                    r#""message":{"role":"user","content":"hi"}"#,
                    r#""message":{"id":"m","content":[{"type":"text","text":"a"}]}"#,
                    r#""event":{"type":"message_stop"}"#, r#""request_id":"r""#,
                    r#""response":{"subtype":"success","request_id":"r","response":{}}"#,
                    r#""request":{"subtype":"interrupt"}"#,
                ][..]),
                0..7,
            ),
        ) {
            let line = format!("{{{}}}", members.join(","));
            let v: Value = serde_json::from_str(&line).unwrap();
            let last = v["type"].as_str().unwrap_or("");
            let m = Message::parse_str(&line).unwrap();
            proptest::prop_assert_eq!(m.kind(), last, "{}", line);
            if let (Some(s), Some(sub)) = (m.as_system(), v["subtype"].as_str()) {
                proptest::prop_assert_eq!(s.subtype(), sub, "{}", line);
            }
            if !last.starts_with("control_") {
                let routed = Routed::parse_str(&line).unwrap();
                proptest::prop_assert!(matches!(routed, Routed::Message(_)), "{}", line);
            }
        }
    }

    #[test]
    fn non_objects_are_errors() {
        assert!(Message::parse(b"not json").is_err());
        assert!(Message::parse(b"[1,2]").is_err());
        // an empty array filled the peek's defaults: it was kept as a message
        assert!(Message::parse(b"[]").is_err());
        assert!(Routed::parse(b"[]").is_err());
        assert!(Message::parse(b"").is_err());
    }

    #[test]
    fn init_capabilities_and_sandbox_are_typed() {
        // the real CLI 2.1.332's system/init, trimmed (issue 30 probe)
        let line = r#"{"type":"system","subtype":"init","cwd":"/w","session_id":"5517114d-58c8-4364-87d8-fb14df5b85be","tools":["Task","AskUserQuestion","Bash"],"mcp_servers":[],"model":"claude-opus-5-5","permissionMode":"default","slash_commands":["verify"],"apiKeySource":"ANTHROPIC_API_KEY","claude_code_version":"2.1.332","output_style":"default","capabilities":["interrupt_receipt_v1","interrupt_cancel_queued_v1","interrupt_send_now_v1","interrupt_requeue_taken_v1","msg_lifecycle_v1","request_marker_lists_v1","ask_user_question_unanswered_v1","lifecycle_wakeup_source_v1","sdk_mcp_tools_list_changed","sdk_mcp_manifests","mcp_read_resource_v1","mcp_tool_ui_meta_v1","ui_surface_v1","mcp_call_result_not_for_model_v1","mcp_call_soft_error_result_v1","mcp_call_check_permissions_v1","voice_call_talk_line_v1","withdrawn_files_note_v2","withdrawn_tools_v1","ui_pane_widget_v1","reload_plugins_refuse_if_busy_v1","get_usage_detached_v1","silent_resend_files_v1"],"uuid":"b3c44a90-0eea-467d-bd49-52951be81c29","sandbox_enabled":false,"fast_mode_state":"off","view_mode":"default"}"#;
        let m = Message::parse_str(line).unwrap();
        let init = m.as_init().expect("an init");
        assert_eq!(init.capabilities.len(), 23);
        assert!(init.capabilities.has("ask_user_question_unanswered_v1"));
        assert!(init.capabilities.has("mcp_call_soft_error_result_v1"));
        assert_eq!(init.sandbox_enabled, Some(false));
        assert!(!init.extra.contains_key("capabilities"));
        assert!(!init.extra.contains_key("sandbox_enabled"));
        assert_eq!(init.extra["view_mode"], "default");
        let back = serde_json::to_value(init).unwrap();
        assert_eq!(back["sandbox_enabled"], false);
        assert_eq!(back["capabilities"].as_array().map(Vec::len), Some(23));
        // 2.1.328 sends no sandbox_enabled; a CLI without capabilities none
        let old = parse(
            json!({"type":"system","subtype":"init","session_id":"s","capabilities":["interrupt_receipt_v1"]}),
        );
        let init = old.as_init().unwrap();
        assert_eq!(init.sandbox_enabled, None);
        assert!(init.capabilities.has("interrupt_receipt_v1"));
        let back = serde_json::to_value(init).unwrap();
        assert!(back.get("sandbox_enabled").is_none());
        let bare = parse(json!({"type":"system","subtype":"init","session_id":"s"}));
        assert!(bare.as_init().unwrap().capabilities.is_empty());
        // another shape: the init is still an init
        let odd = parse(
            json!({"type":"system","subtype":"init","capabilities":{"x":1},"sandbox_enabled":"no"}),
        );
        let init = odd.as_init().expect("still an init");
        assert!(init.capabilities.is_empty());
        assert_eq!(init.sandbox_enabled, None);
    }

    #[test]
    fn a_startup_failure_has_its_reason() {
        // the real CLI 2.1.332 started in a removed directory, with
        // CLAUDE_CODE_STARTUP_FAILURE_RESULTS=1 (usage trimmed)
        let line = r#"{"type":"result","subtype":"error_during_execution","duration_ms":0,"duration_api_ms":0,"is_error":true,"num_turns":0,"stop_reason":null,"session_id":"8885ac1f-661c-4a3f-a0a0-7409cea73f72","total_cost_usd":0,"usage":{"input_tokens":0,"output_tokens":0},"modelUsage":{},"permission_denials":[],"uuid":"b6ea2cae-c863-4294-b7dc-2741df74b0fe","errors":["The current directory no longer exists (it was deleted or moved). Start Claude Code from an existing directory."],"startup_failure_reason":"cwd_unavailable","result_index":0}"#;
        let m = Message::parse_str(line).unwrap();
        let r = m.as_result().expect("a result");
        assert_eq!(
            r.startup_failure_reason,
            Some(StartupFailureReason::CwdUnavailable)
        );
        assert!(!r.extra.contains_key("startup_failure_reason"));
        assert_eq!(r.extra["result_index"], 0);
        let back = serde_json::to_value(r).unwrap();
        assert_eq!(back["startup_failure_reason"], "cwd_unavailable");
        // the reason new in the TypeScript SDK 0.3.333, and a later one
        for (name, reason) in [
            (
                "sideload_flags_disabled",
                StartupFailureReason::SideloadFlagsDisabled,
            ),
            (
                "moon_phase",
                StartupFailureReason::Other("moon_phase".into()),
            ),
        ] {
            let m = parse(json!({"type":"result","subtype":"error_during_execution",
                "is_error":true,"startup_failure_reason":name}));
            let r = m.as_result().unwrap();
            assert_eq!(r.startup_failure_reason.as_ref(), Some(&reason));
            assert_eq!(
                serde_json::to_value(r).unwrap()["startup_failure_reason"],
                name
            );
        }
        // an ordinary result has none, and writes none
        let ok = parse(json!({"type":"result","subtype":"success","is_error":false}));
        let r = ok.as_result().unwrap();
        assert_eq!(r.startup_failure_reason, None);
        assert!(serde_json::to_value(r)
            .unwrap()
            .get("startup_failure_reason")
            .is_none());
    }

    #[test]
    fn tool_progress_is_typed_with_its_description() {
        // the shape of the TypeScript SDK 0.3.333's SDKToolProgressMessage
        let v = json!({"type":"tool_progress","tool_use_id":"toolu_1","tool_name":"Bash",
            "parent_tool_use_id":null,"elapsed_time_seconds":12,"task_id":"b4o5",
            "uuid":"u","session_id":"s","description":"Running the test suite",
            "subagent_retry":{"agent_id":"a","attempt":1}});
        let m = parse(v.clone());
        assert_eq!(m.kind(), "tool_progress");
        assert_eq!(m.session_id(), Some("s"));
        let p = m.as_tool_progress().expect("typed");
        assert_eq!(p.description.as_deref(), Some("Running the test suite"));
        assert_eq!(p.elapsed_time_seconds, Some(12.0));
        assert_eq!(p.tool_name.as_deref(), Some("Bash"));
        assert_eq!(p.extra["subagent_retry"]["attempt"], 1);
        let mut back = serde_json::to_value(p).unwrap();
        back["type"] = json!("tool_progress");
        assert_eq!(back["description"], v["description"]);
        assert_eq!(back["subagent_retry"], v["subagent_retry"]);
        // a heartbeat: no description
        let hb = parse(json!({"type":"tool_progress","tool_use_id":"t-heartbeat-0",
            "tool_name":"PreToolUse","parent_tool_use_id":"t","elapsed_time_seconds":30,
            "heartbeat":true}));
        let p = hb.as_tool_progress().unwrap();
        assert_eq!((p.heartbeat, p.description.as_deref()), (Some(true), None));
        // another shape of a known field: still a progress line
        let odd = parse(json!({"type":"tool_progress","elapsed_time_seconds":"soon"}));
        assert_eq!(odd.as_tool_progress().unwrap().elapsed_time_seconds, None);
    }

    #[test]
    fn origins_are_typed_and_unknown_kinds_kept() {
        let v = json!({"type":"user","message":{"role":"user","content":"A webhook fired"},
            "session_id":"s","origin":{"kind":"task-notification","subkind":"external-event",
            "runId":"r1","fireReason":"api","later":true}});
        let m = parse(v.clone());
        let u = m.as_user().unwrap();
        let o = u.origin.as_ref().expect("an origin");
        assert_eq!(o.kind, Some(OriginKind::TaskNotification));
        assert_eq!(o.subkind, Some(OriginSubkind::ExternalEvent));
        assert_eq!(o.run_id.as_deref(), Some("r1"));
        assert_eq!(o.fire_reason.as_deref(), Some("api"));
        assert_eq!(o.extra["later"], true);
        let back = serde_json::to_value(u).unwrap();
        assert_eq!(back["origin"], v["origin"]);

        let r = parse(json!({"type":"result","subtype":"success","is_error":false,
            "origin":{"kind":"peer","from":"uds:/tmp/x.sock","fromSession":"local_1","verifiedPeerPid":7}}));
        let o = r.as_result().unwrap().origin.clone().unwrap();
        assert_eq!(o.kind, Some(OriginKind::Peer));
        assert_eq!(o.from_session.as_deref(), Some("local_1"));
        assert_eq!(o.extra["verifiedPeerPid"], 7);
        let later: MessageOrigin =
            serde_json::from_value(json!({"kind":"robot","subkind":"cron"})).unwrap();
        assert_eq!(later.kind, Some(OriginKind::Other("robot".into())));
        assert_eq!(later.subkind, Some(OriginSubkind::Other("cron".into())));
        // an origin of another shape loses nothing else
        let odd =
            parse(json!({"type":"user","message":{"role":"user","content":"x"},"origin":"human"}));
        assert_eq!(odd.as_user().unwrap().origin, None);
        // none sent, none written
        let plain = parse(json!({"type":"user","message":{"role":"user","content":"x"}}));
        assert!(serde_json::to_value(plain.as_user().unwrap())
            .unwrap()
            .get("origin")
            .is_none());
    }

    #[test]
    fn round_trip_keeps_unknown_fields() {
        let v = json!({"type":"result","subtype":"success","is_error":false,"session_id":"s","brand_new":{"a":[1]}});
        let Message::Result(r) = parse(v) else {
            panic!()
        };
        let back = serde_json::to_value(&r).unwrap();
        assert_eq!(back["brand_new"], json!({"a":[1]}));
    }
}
