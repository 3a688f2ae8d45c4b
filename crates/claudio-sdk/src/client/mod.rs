//! Sessions with the CLI: the control router, [`Client`] and [`query`]
//! (exported at the crate's root).

#[allow(clippy::module_inception)]
mod client;
mod events;
mod query;
mod queue;
mod router;
mod runs;

pub use client::{Client, RawMessage, Turn};
pub use events::{Answer, AnswerError, Event, Request, RequestBody, RequestState, Responder};
pub use query::{query, query_events, Query};
