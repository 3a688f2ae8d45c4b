//! Sessions with the CLI: the control router, [`Client`] and [`query`].

#[allow(clippy::module_inception)]
mod client;
pub mod handlers;
pub mod mcp;
mod query;
mod queue;
mod session;

pub use client::{Client, Interrupted, ModeSet, ModelSet, RawMessage, Turn};
pub use query::query;
