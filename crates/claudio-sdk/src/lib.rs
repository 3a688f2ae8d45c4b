//! # claudio
//!
//! Drive the Claude Code CLI (`claude`) from Rust over its stream-json
//! control protocol: typed messages, a supervised subprocess, a control
//! router (permissions, hooks, in-process MCP tools), a one-shot [`query`]
//! and a multi-turn [`Client`].
//!
//! ```no_run
//! # async fn demo() -> claudio::Result<()> {
//! use claudio::{Client, Message, Options, PermissionResult, StreamExt};
//!
//! let options = Options::default()
//!     .include_partial_messages(true)
//!     .can_use_tool(|req, _ctx| async move {
//!         Ok(if req.tool_name == "Read" {
//!             PermissionResult::allow()
//!         } else {
//!             PermissionResult::deny("only reading is allowed here")
//!         })
//!     });
//! let client = Client::connect(options).await?;
//! client.send("Summarize README.md").await?;
//! {
//!     let mut turn = std::pin::pin!(client.receive_response());
//!     while let Some(msg) = turn.next().await {
//!         match msg? {
//!             Message::StreamEvent(e) => print!("{}", e.text_delta().unwrap_or("")),
//!             Message::Result(r) => println!("\n(cost ${:.4})", r.total_cost_usd.unwrap_or(0.0)),
//!             _ => {}
//!         }
//!     }
//! }
//! client.close().await?;
//! # Ok(()) }
//! ```
#![warn(missing_docs, unreachable_pub, missing_debug_implementations)]
// docs.rs (`--cfg docsrs`, nightly): mark what a feature adds (`archive`:
// the archive of transcripts).
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod child;
mod client;
mod error;
mod handlers;
mod mcp;
mod options;
pub mod progress;
pub mod protocol;
pub mod registry;
pub mod sanitize;
pub mod store;
pub mod tasks;
mod text;
pub mod transport;

/// Not part of the API: what the fuzz targets, benchmarks and integration
/// tests reach inside (the `claudio` program uses the public API only). No
/// stability promise; do not use.
#[doc(hidden)]
pub mod __private {
    pub use crate::store::cache_file::{read_private, write_private};
    pub use crate::store::either::read_head_tail;
    pub use crate::transport::framing::{Line, LineReader};
    pub use crate::transport::stderr::TAIL_BYTES;

    /// [`crate::Message::parse_str`] without its fast path, for the
    /// differential fuzzing of the two.
    pub fn parse_general(line: &str) -> Result<crate::Message, serde_json::Error> {
        crate::Message::parse_general(line)
    }

    /// `serde_json::from_slice`, a lone surrogate escape read as U+FFFD (as
    /// the library reads the CLI's lines), for the status line's input.
    pub fn from_slice_lenient<T: serde::de::DeserializeOwned>(
        bytes: &[u8],
    ) -> Result<T, serde_json::Error> {
        crate::protocol::from_slice_lenient(bytes)
    }
}

pub use client::{
    query, query_events, Answer, AnswerError, Client, Event, Query, RawMessage, Request,
    RequestBody, RequestState, Responder, Turn,
};
pub use error::{Error, HandlerError, Result};
/// `next()`, `map()`, `collect()` on the streams this crate returns
/// ([`query`], [`Client::receive_response`], [`Client::receive_messages`]).
/// Re-exported on purpose, so a program needs no `futures` dependency of
/// its own to read them; the streams are `futures_core::Stream`s, the
/// ecosystem's common trait, so any other stream toolkit works on them too.
/// This ties the API to `futures-util` 0.3; a major version of it would be a
/// major version of this crate.
pub use futures_util::StreamExt;
pub use handlers::{
    BoxFuture, Cancellation, HookHandler, HookMatcher, PermissionHandler, RequestContext,
};
pub use mcp::{McpServer, McpTool, ToolHandler, ToolOutput};
pub use options::{AgentDefinition, Options, Sandbox, Thinking, DEFAULT_MAX_LINE_BYTES};
pub use protocol::{
    AssistantMessage, CanUseToolRequest, ContentBlock, ContextUsage, HookCallbackRequest,
    HookEvent, HookInput, HookOutput, ImageError, Interrupted, McpStatus, Message, ModeSet,
    ModelSet, PermissionMode, PermissionResult, PermissionUpdate, Priority, ResultMessage,
    RewindFiles, ServerInfo, StreamEvent, SystemMessage, UserInput, UserMessage,
};
