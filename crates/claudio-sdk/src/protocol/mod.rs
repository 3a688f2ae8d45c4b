//! Wire types of the stream-json protocol, with serde.
//!
//! Forward compatible: unknown message types, block types, event types and
//! request subtypes decode to `Unknown`/`Other` variants holding the raw JSON,
//! and every struct keeps fields it does not model in `extra`.

pub mod ask;
mod content;
mod control;
mod decode;
mod fast;
pub mod hooks;
mod image;
mod input;
mod message;
mod names;
mod replies;
mod rules;
mod stream;
mod surrogates;
mod system;

pub use content::{
    ContentBlock, ImageBlock, ImageSource, MessageContent, RedactedThinkingBlock, TextBlock,
    ThinkingBlock, ToolResultBlock, ToolUseBlock,
};
pub(crate) use control::{error_response, request_line, success_response};
// the control protocol's envelopes: the client's business, never the user's
pub use control::{
    CanUseToolRequest, HookCallbackRequest, HookInput, HookOutput, PermissionResult,
    PermissionRule, PermissionUpdate, SessionScope,
};
pub(crate) use control::{ControlRequest, ControlResponse, IncomingRequest};
pub(crate) use fast::{text_delta_into, DeltaShape};
pub use image::{
    Image, ImageError, ImageFormat, MAX_IMAGE_BASE64_LEN, MAX_IMAGE_BYTES, MAX_IMAGE_SIDE,
};
pub use input::{Priority, UserInput};
pub(crate) use message::Routed;
pub use message::{
    ApiMessage, AssistantMessage, CommandLifecycle, Message, MessageOrigin, ResultMessage,
    ResultSubtype, ToolProgress, UserContent, UserMessage,
};
pub use names::{
    CommandState, CompactTrigger, DecisionClassification, Effort, HookEvent, OriginKind,
    OriginSubkind, PermissionDestination, PermissionUpdateKind, RuleBehavior, RuleEditability,
    RuleSource, SendNow, SettingSource, StartupFailureReason, TaskStatus, ThinkingDisplay,
    Unanswered,
};
pub use replies::{
    AccountInfo, AgentInfo, AppliedSettings, Capabilities, ContextCategory, ContextUsage,
    Interrupted, McpCallResult, McpResource, McpResourceContents, McpServerStatus, McpSetServers,
    McpStatus, ModeSet, ModelInfo, ModelSet, ModelUsage, ModelUsageMap, PermissionDenial,
    PermissionMode, RewindFiles, ServerInfo, Settings, SettingsLayer, SlashCommand, TaskOutput,
    UnknownMode, Usage,
};
pub use rules::{PermissionRules, RuleDescription, RuleEntry};
pub use stream::{Delta, StreamEvent, StreamEventMessage};
pub(crate) use surrogates::{from_slice_lenient, from_str_lenient, or_mended};
pub use system::{
    ApiRetry, BackgroundTask, BackgroundTasksChanged, CompactBoundary, CompactMetadata, SystemInit,
    SystemMessage, SystemStatus, TaskNotification, TaskPatch, TaskProgress, TaskStarted,
    TaskUpdated, TaskUsage,
};
