//! `claudio sessions`: list, inspect, search, export, count the usage of,
//! resume, fork, rename, tag and delete the transcripts the Claude Code CLI
//! keeps (`claudio::store`).
//!
//! Transcript text is untrusted: everything shown on a terminal goes through
//! the [`Sanitizer`](crate::cli::sanitize::Sanitizer); `--json` output carries
//! the stored bytes unchanged.

mod archive;
mod args;
mod complete;
mod conversation;
mod delete;
mod export;
mod images;
mod inspect;
mod io;
mod list;
mod pager;
mod run;
mod search;
mod since;
#[cfg(test)]
pub(crate) mod testing;
pub mod tui;
mod usage;

pub use archive::spawn_auto as spawn_auto_archive;
pub use args::{SessionsAction, SessionsCommand};
pub(crate) use complete::{complete_ids, hook as completion_hook};
pub use io::SessionsOutcome;
pub use run::run;
