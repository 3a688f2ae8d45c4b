//! The CLI's transcript store: list, read, fork, rename, tag and delete the
//! sessions the Claude Code CLI keeps under `~/.claude/projects`; with the
//! feature `archive`, keep them past the CLI's cleanup in a compressed
//! archive that is read beside the store ([`Store::open`], and with the
//! feature, `Store::with_archive`, `Store::archive_to`, `Store::restore`).
//!
//! [`Store`] does its reading and writing on the calling thread;
//! [`AsyncStore`] has the same methods for async code, run on Tokio's
//! blocking pool.

#[cfg(feature = "archive")]
mod archive;
pub(crate) mod cache_file;
mod chain;
mod edit;
mod error;
mod handle;
// `either` reaches fuzzing and tests through `claudio::__private`
pub(crate) mod either;
pub(crate) mod headtail;
pub(crate) mod ids;
mod info;
mod lines;
mod list;
mod list_index;
mod nonblocking;
pub(crate) mod open;
#[cfg(feature = "archive")]
mod packed;
#[cfg(feature = "archive")]
mod packed_grams;
mod paths;
mod recent_kept;
mod said;
pub(crate) mod scan;
mod search;
mod subagents;
pub(crate) mod time;
mod usage;
mod usage_index;
mod usage_read;
mod usage_skim;
mod usage_tail;
mod usage_types;

#[cfg(feature = "archive")]
pub use archive::{ArchiveOptions, ArchiveSummary, NotArchived};
pub use chain::{js_trim as trim_prompt, read_conversation, Conversation, Entry, ShellRun};
pub use edit::SessionFile;
pub use error::{StoreError, StoreResult};
pub use handle::{ForkOptions, ResumeTarget, Store};
pub use ids::{is_uuid, new_uuid, IdQuery};
pub use info::{SessionInfo, SkipReason};
pub use lines::MAX_LINE;
pub use list::{ListOptions, Listing, Skipped};
pub use nonblocking::AsyncStore;
#[cfg(feature = "archive")]
pub use paths::{default_archive_dir, ARCHIVE_DIR_ENV};
pub use paths::{default_config_dir, project_folder_name};
pub use recent_kept::{FULL_CHECK_MS, KEPT_HORIZON_MS};
pub use said::{steps, NoteKind, Said, Step};
pub use scan::is_cli_note;
pub use search::{
    HitKind, MatchFn, Pattern, SearchHit, SearchOptions, SearchSummary, SessionHits, MAX_HIT_LINE,
};
pub use subagents::SubagentInfo;
pub use time::{format_iso_millis, parse_iso_millis};
pub use usage::{file_usage, SessionUsage, SubagentUsage, UsageListing, UsageSet};
pub use usage_read::{session_usage, sessions_usage, usage_index_file, RecentUsage};
pub use usage_tail::UsageTail;
pub use usage_types::{CliCost, FileUsage, MessageUsage, ModelCost, Tokens};
