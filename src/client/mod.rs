//! Sessions with the CLI: the control router, [`Client`] and [`query`].

#[allow(clippy::module_inception)]
mod client;
mod query;
mod queue;
mod session;

pub use client::{Client, Interrupted, ModeSet, ModelSet, RawMessage, Turn};
pub use query::{query, Query};

/// Handlers the host registers for the CLI's requests: permissions and hooks
/// (also at the crate's root).
pub mod handlers {
    pub use crate::handlers::{
        BoxFuture, Cancellation, HookHandler, HookMatcher, PermissionHandler, RequestContext,
    };
}

/// In-process MCP servers: tools written in Rust, served to the CLI over
/// `mcp_message` control requests (also at the crate's root).
pub mod mcp {
    pub use crate::mcp::{McpServer, McpTool, ToolHandler, ToolOutput, MCP_PROTOCOL_VERSION};
}
