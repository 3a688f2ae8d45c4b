//! The chat's connection to the CLI: the live session and the one being
//! made in the background. The CLI's
//! requests (a tool to allow, a question, a plan) come in the session's
//! events, among its messages.

use super::dialog::PendingRequest;
use super::inbox::Said;
use crate::cli::common::flags::SessionFlags;
use crate::cli::common::options::build_options;
use claudio::{Client, Options};
use std::sync::Arc;
use tokio::runtime::Runtime;

/// The live session.
pub(super) type Slot = Arc<std::sync::Mutex<Option<Arc<Client>>>>;

/// The CLI's switch for its task tools (`TaskCreate`, `TaskUpdate`, ...).
const TODO_TOOLS: &str = "CLAUDE_CODE_ENABLE_TODO_TOOLS";

pub(super) fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The connection to the CLI.
pub(super) struct Connection {
    /// The live session; the chat's loop closes it gracefully when a
    /// signal stops the chat (`keys::stopped`).
    client: Slot,
    /// A connection being made in the background (the prompt shows at once).
    connecting: Option<tokio::task::JoinHandle<claudio::Result<Client>>>,
    /// The folder whose trust was settled, and whether its project
    /// settings load there (asked once a folder).
    trust: Option<(std::path::PathBuf, bool)>,
    /// How many sessions were started (the first is the one the chat was
    /// started with).
    starts: u32,
    /// What the CLI said after the work's end, read while a dialog was
    /// open: the next work takes it in first (it was read off the
    /// session's queue, and would be lost).
    held_over: std::collections::VecDeque<Said<PendingRequest>>,
}

impl Connection {
    /// No session yet.
    pub(super) fn new() -> Self {
        Connection {
            client: Slot::default(),
            connecting: None,
            trust: None,
            starts: 0,
            held_over: Default::default(),
        }
    }

    /// Start connecting a session with these flags, in the background.
    pub(super) fn start(&mut self, rt: &Runtime, flags: &SessionFlags) -> anyhow::Result<()> {
        let mut options: Options = build_options(flags)?;
        // the task list, as the claude TUI has it (off in stream-json mode
        // unless asked for); the person's own setting wins
        if std::env::var_os(TODO_TOOLS).is_none() {
            options = options.env(TODO_TOOLS, "1");
        }
        let options = options
            // the deck's row says so (a chat started from `ask`'s tool too)
            .env(crate::cli::requests::publish::PROGRAM_ENV, "claudio chat")
            .include_partial_messages(true)
            // checkpoints make /rewind able to restore files
            .file_checkpointing(true)
            // asked by the chat's loop, in their place among the messages
            .requests_as_events(true);
        self.connecting = Some(rt.spawn(Client::connect(options)));
        self.starts += 1;
        // what was held belongs to the session before
        self.held_over.clear();
        Ok(())
    }

    /// The session, waiting for the connection if it is still being made.
    pub(super) fn client(&mut self, rt: &Runtime) -> anyhow::Result<Arc<Client>> {
        if let Some(handle) = self.connecting.take() {
            // a signal that stops the chat stops the wait (the chat's
            // loop gives the session up)
            let client = match rt.block_on(super::keys::unless_stopped(handle)) {
                Ok(joined) => joined??,
                Err(stopped) => return Err(stopped.into()),
            };
            *lock(&self.client) = Some(Arc::new(client));
        }
        lock(&self.client)
            .clone()
            .ok_or_else(|| anyhow::anyhow!("no session; /new starts one"))
    }

    /// The live session, if there is one (one being made is not waited for).
    pub(super) fn live(&self) -> Option<Arc<Client>> {
        lock(&self.client).clone()
    }

    /// The session is gone (the CLI lost, or the chat quits): let go of
    /// it without closing it.
    pub(super) fn lost(&mut self) {
        *lock(&self.client) = None;
    }

    /// Whether the chat holds the session it was started with.
    pub(super) fn first(&self) -> bool {
        self.starts == 1
    }

    /// Whether the project settings of `cwd` load, when that was settled.
    pub(super) fn trusted(&self, cwd: &std::path::Path) -> Option<bool> {
        self.trust
            .as_ref()
            .filter(|(dir, _)| dir == cwd)
            .map(|(_, loads)| *loads)
    }

    /// The trust of `cwd` is settled: its project settings load or not.
    pub(super) fn settle_trust(&mut self, cwd: &std::path::Path, loads: bool) {
        self.trust = Some((cwd.to_owned(), loads));
    }

    /// Keep what the CLI said (or what was typed) for the next work.
    pub(super) fn hold(&mut self, events: impl IntoIterator<Item = Said<PendingRequest>>) {
        self.held_over.extend(events);
    }

    /// What was held for this work, taken.
    pub(super) fn take_held(&mut self) -> std::collections::VecDeque<Said<PendingRequest>> {
        std::mem::take(&mut self.held_over)
    }

    /// The session closed (and one being made given up).
    pub(super) fn close(&mut self, rt: &Runtime) {
        if let Some(h) = self.connecting.take() {
            h.abort();
        }
        let current = lock(&self.client).take();
        if let Some(c) = current {
            let _ = rt.block_on(c.close());
        }
    }
}
