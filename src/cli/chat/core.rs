//! The chat's core: its state, its connection to the CLI, and its output.
//! The prompt loop (`repl`), the slash commands (`commands`), the work
//! loop (`work`, driving `machine`) and rewind (`rewind`) build on it.

use super::dialog::Approval;
use super::render::Renderer;
use super::state::SessionState;
use super::status;
use super::typeahead::TypeAhead;
use crate::cli::args::SessionFlags;
use crate::cli::options::build_options;
use crate::cli::sanitize::Sanitizer;
use crate::cli::style::Style;
use crate::cli::wrap::wrapped;
use claudio::{Client, Options, PermissionResult};
use std::io::{self, Write};
use std::sync::Arc;
use tokio::runtime::Runtime;
use tokio::sync::{mpsc, oneshot};

/// The live session, shared with the signal watcher.
pub(super) type Slot = Arc<std::sync::Mutex<Option<Arc<Client>>>>;

/// The CLI's switch for its task tools (`TaskCreate`, `TaskUpdate`, ...).
const TODO_TOOLS: &str = "CLAUDE_CODE_ENABLE_TODO_TOOLS";

pub(super) fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The chat: one session at a time, its screen and its keys.
pub(super) struct Chat<'a> {
    pub(super) rt: &'a Runtime,
    pub(super) session: SessionFlags,
    pub(super) style: Style,
    pub(super) renderer: Renderer,
    /// What the CLI said of the session: model, mode, id, totals.
    pub(super) state: SessionState,
    /// The live session; shared with the signal watcher, which closes it
    /// gracefully on SIGTERM or SIGHUP (a closed terminal).
    pub(super) client: Slot,
    /// A connection being made in the background (the prompt shows at once).
    pub(super) connecting: Option<tokio::task::JoinHandle<claudio::Result<Client>>>,
    pub(super) approvals_tx: mpsc::Sender<Approval>,
    pub(super) approvals: mpsc::Receiver<Approval>,
    pub(super) out: io::Stdout,
    /// What was typed while Claude worked.
    pub(super) ahead: TypeAhead,
    /// Ctrl-D on an empty line was typed in the instant a turn ended: the
    /// wait for background agents after it ends the chat.
    pub(super) ctrl_d_left: bool,
    /// The session's working directory (for diffs of relative paths).
    pub(super) cwd: std::path::PathBuf,
    /// The input line to start the next prompt with (before and after the
    /// cursor): kept across Shift-Tab, or a rewound prompt to edit.
    pub(super) initial: Option<(String, String)>,
    /// What `!` commands printed, sent with the next prompt.
    pub(super) shell_context: Vec<String>,
    /// Prompts sent from this chat, by uuid, as typed (without the `!`
    /// context sent in front of them): what rewind lists and puts back.
    pub(super) typed_prompts: std::collections::HashMap<String, String>,
    /// The system clipboard, for `/copy` (opened on first use).
    pub(super) clipboard: super::clipboard::System,
    /// Images pasted with Ctrl-V into the line being typed.
    pub(super) pasted: super::images::Pending,
    /// The turn count when the status line was last brought up to date.
    pub(super) status_at: Option<u64>,
}

impl Chat<'_> {
    pub(super) fn header(&mut self) {
        let s = self.style;
        let cwd = self
            .session
            .cwd
            .clone()
            .or_else(|| std::env::current_dir().ok())
            .map(|p| tilde(&p))
            .unwrap_or_default();
        let mut parts = vec![format!("claudio {}", env!("CARGO_PKG_VERSION"))];
        if let Some(m) = &self.session.model {
            parts.push(m.clone());
        }
        parts.push(cwd);
        if let Some(id) = &self.session.resume {
            parts.push(format!("resuming {}", short_id(id)));
        }
        let width = terminal_width();
        let about = s.dim(&Sanitizer::clean(&parts.join(" · ")));
        let keys = s.dim("/help for commands · Ctrl-C interrupts · Ctrl-D exits");
        let text = wrapped(&about, width, "", "") + &wrapped(&keys, width, "", "");
        let _ = writeln!(self.out, "{text}");
    }

    pub(super) fn plain_prompt(&self) -> String {
        let mut parts = Vec::new();
        if let Some(m) = &self.state.model {
            parts.push(short_model(m));
        }
        if let Some(mode) = self.state.mode.as_deref().filter(|m| *m != "default") {
            parts.push(mode.to_owned());
        }
        let label = Sanitizer::clean(&parts.join(" · "));
        if label.is_empty() {
            "› ".into()
        } else {
            format!("{label} › ")
        }
    }

    pub(super) fn start_connect(&mut self, session: SessionFlags) -> anyhow::Result<()> {
        let tx = self.approvals_tx.clone();
        let mut options: Options = build_options(&session)?;
        // the task list, as the claude TUI has it (off in stream-json mode
        // unless asked for); the person's own setting wins
        if std::env::var_os(TODO_TOOLS).is_none() {
            options = options.env(TODO_TOOLS, "1");
        }
        let options = options
            .include_partial_messages(true)
            // checkpoints make /rewind able to restore files
            .file_checkpointing(true)
            .can_use_tool(move |req, ctx| {
                let tx = tx.clone();
                async move {
                    let (reply, answer) = oneshot::channel();
                    let denied =
                        || PermissionResult::deny("The permission prompt is not available.");
                    if tx.send(Approval { req, ctx, reply }).await.is_err() {
                        return Ok(denied());
                    }
                    Ok(answer.await.unwrap_or_else(|_| denied()))
                }
            });
        self.connecting = Some(self.rt.spawn(Client::connect(options)));
        Ok(())
    }

    /// The session, waiting for the connection if it is still being made.
    pub(super) fn client(&mut self) -> anyhow::Result<Arc<Client>> {
        if let Some(handle) = self.connecting.take() {
            let client = self.rt.block_on(handle)??;
            *lock(&self.client) = Some(Arc::new(client));
        }
        lock(&self.client)
            .clone()
            .ok_or_else(|| anyhow::anyhow!("no session; /new starts one"))
    }

    pub(super) fn write(&mut self, s: &str) {
        if !s.is_empty() {
            let _ = self.out.write_all(s.as_bytes());
            let _ = self.out.flush();
        }
    }

    /// An error: `✗` and its text, each line wrapped under the first.
    pub(super) fn error(&mut self, e: &anyhow::Error) {
        let text = Sanitizer::clean(&format!("{e:#}"));
        let first = format!("  {} ", self.style.red("✗"));
        let width = terminal_width();
        let out: String = text
            .split('\n')
            .enumerate()
            .map(|(i, l)| wrapped(l, width, if i == 0 { &first } else { "    " }, "    "))
            .collect();
        self.write(&out);
    }

    /// Before a prompt: the git branch read again, and after a turn the
    /// person's own `statusLine` command run (bounded), its lines shown.
    pub(super) fn update_status(&mut self) {
        self.state.branch = status::git_branch(&self.cwd);
        let turns = self.state.totals.prompts;
        if self.status_at.replace(turns) == Some(turns) || turns == 0 {
            return;
        }
        let Ok(claude_dir) = claudio::store::default_config_dir() else {
            return;
        };
        let Some(command) = status::configured(&claude_dir, &self.cwd) else {
            return;
        };
        let facts = status::Facts {
            model: self.state.model.clone(),
            mode: self.state.mode_name().to_owned(),
            context_window: self.state.context_window,
            last_usage: self.state.last_usage.clone(),
            cost_usd: self.state.totals.session_cost_usd.unwrap_or(0.0),
            duration_ms: self.state.totals.duration.as_millis() as u64,
            api_duration_ms: self.state.totals.api_duration.as_millis() as u64,
            session_id: self.state.session_id.clone(),
            cwd: self.cwd.clone(),
        };
        let transcript = self.state.session_id.as_ref().and_then(|id| {
            let store = claudio::store::Store::open(Some(&claude_dir))
                .ok()?
                .without_archives();
            store.find(id).ok().map(|f| f.path.clone())
        });
        let input = status::input(&facts, transcript.as_deref());
        match status::run(&command, &input, &self.cwd, self.style.enabled()) {
            Ok(lines) => {
                let width = terminal_width();
                let text: String = lines
                    .iter()
                    .map(|l| wrapped(l, width, "  ", "  "))
                    .collect();
                self.write(&text);
            }
            Err(why) => self.info(&why),
        }
    }

    pub(super) fn info(&mut self, text: &str) {
        let width = terminal_width();
        let out: String = Sanitizer::clean(text)
            .split('\n')
            .map(|l| wrapped(l, width, "  ", "  "))
            .collect();
        self.write(&out);
    }

    pub(super) fn close(&mut self) {
        self.renderer.forget_session();
        if let Some(h) = self.connecting.take() {
            h.abort();
        }
        let current = lock(&self.client).take();
        if let Some(c) = current {
            let _ = self.rt.block_on(c.close());
        }
    }
}

pub(super) fn terminal_width() -> usize {
    crossterm::terminal::size()
        .map(|(w, _)| w as usize)
        .unwrap_or(80)
}

pub(super) fn tilde(p: &std::path::Path) -> String {
    if let Some(home) = dirs::home_dir() {
        if let Ok(rest) = p.strip_prefix(&home) {
            return format!("~/{}", rest.display());
        }
    }
    p.display().to_string()
}

pub(super) fn short_id(id: &str) -> String {
    id.chars().take(8).collect()
}

/// `claude-opus-5-5` → `opus-5-5`.
pub(super) fn short_model(m: &str) -> String {
    m.strip_prefix("claude-").unwrap_or(m).to_owned()
}

#[cfg(test)]
mod tests {
    #[test]
    fn prompt_labels() {
        assert_eq!(super::short_model("claude-opus-5-5"), "opus-5-5");
        assert_eq!(super::short_id("0b7d4e8a-9c55"), "0b7d4e8a");
    }
}
