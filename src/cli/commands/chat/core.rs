//! The chat's core: the chat as its parts (its connection to the CLI, its
//! screen, what its session has seen, its prompt side).
//! The prompt loop (`repl`), the slash commands (`commands`), the work
//! loop (`work`, driving `machine`) and rewind (`rewind`) build on it.

use super::connection::Connection;
use super::prompt::PromptSide;
use super::screen::Screen;
use super::state::Session;
use super::statusline_runner;
use crate::cli::common::exit::Exit;
use crate::cli::common::flags::SessionFlags;
use crate::cli::common::trust;
use crate::cli::sanitize::Sanitizer;
use crate::cli::term::text::cut_width;
use crate::cli::term::text::flat;
use crate::cli::term::wrap::wrapped;
use claudio::Client;
use claudio::PermissionMode;
use std::io::Write;
use std::sync::Arc;
use tokio::runtime::Runtime;

// what works on the chat's fields: the only code that sees them
pub(super) mod commands;
pub(super) mod history;
pub mod repl;
pub(super) mod rewind;
pub(super) mod work;

pub(super) use super::screen::terminal_width;

/// The chat: one session at a time, its screen and its keys.
pub(super) struct Chat<'a> {
    rt: &'a Runtime,
    /// The flags the chat was started with (what a new session starts from).
    flags: SessionFlags,
    /// The connection to the CLI: the live session, the one being made,
    /// what the last work held over.
    conn: Connection,
    /// Where the chat writes, how, and the renderer (the answer's filler,
    /// the live region, the width).
    screen: Screen,
    /// What the session has seen: model, mode, id, totals; the answer, the
    /// calls, the agents, the task list; the answers for `/copy`.
    session: Session,
    /// The prompt side: what the next prompt starts with (the line typed
    /// while Claude worked, a rewound or edited one), the prompts queued,
    /// what it owes (`!` output, pasted images), the prompts as typed.
    prompt: PromptSide,
    /// The session's working directory (for diffs of relative paths).
    cwd: std::path::PathBuf,
    /// The system clipboard, for `/copy` and Ctrl-V (opened on first use).
    clipboard: super::clipboard::System,
    /// Notices when the session needs the person, or a long turn ended.
    notifier: crate::cli::common::notify::Notifier,
    /// The chat's one reader of the keyboard and of its signals, for its
    /// whole life (#42.1): the prompt, the turns, the pickers and the
    /// dialogs all read it; `None` only while the chat's work holds it
    /// (`work.rs`), or before it is made.
    keys: Option<super::keys::Keys>,
}

impl<'a> Chat<'a> {
    /// The chat started with `flags` in `cwd`, no session yet (the next
    /// prompt's result is a resumed session's with `-r` or `-c`).
    pub(super) fn new(
        rt: &'a Runtime,
        flags: &SessionFlags,
        screen: Screen,
        notifier: crate::cli::common::notify::Notifier,
        cwd: std::path::PathBuf,
    ) -> Self {
        Chat {
            rt,
            flags: flags.clone(),
            conn: Connection::new(),
            screen,
            session: Session {
                state: super::state::SessionState {
                    resuming: flags.resume.is_some() || flags.continue_session,
                    ..Default::default()
                },
                // a call's paths are shown from the chat's folder
                reading: crate::cli::turn::reading::Reading::at(
                    crate::cli::turn::summary::Here::new(&cwd),
                ),
                ..Session::default()
            },
            prompt: PromptSide::default(),
            cwd,
            clipboard: Default::default(),
            notifier,
            keys: None,
        }
    }

    pub(super) fn header(&mut self) {
        let s = self.screen.style();
        let cwd = self
            .flags
            .cwd
            .clone()
            .or_else(|| std::env::current_dir().ok())
            .map(|p| tilde(&p))
            .unwrap_or_default();
        let mut parts = vec![format!("claudio {}", env!("CARGO_PKG_VERSION"))];
        if let Some(m) = &self.session.state.chosen_model {
            parts.push(model_label(m, HEADER_MODEL_COLUMNS));
        }
        parts.push(flat(&cwd));
        if let Some(id) = &self.flags.resume {
            parts.push(format!("resuming {}", short_id(id)));
        }
        let width = terminal_width();
        let about = s.dim(&Sanitizer::clean(&parts.join(" · ")));
        let keys = s.dim("/help for commands · Ctrl-C interrupts · Ctrl-D exits");
        let text = wrapped(&about, width, "", "") + &wrapped(&keys, width, "", "");
        let _ = writeln!(self.screen.out(), "{text}");
    }

    /// The prompt: the model the person chose and the mode unless it is
    /// `default`, then `›`; the same before and after the CLI names its
    /// model (with none chosen, a bare `›` throughout).
    pub(super) fn plain_prompt(&self) -> String {
        let mut parts = Vec::new();
        if let Some(m) = &self.session.state.chosen_model {
            // a third of the row at most, the typed text's room kept
            let room = (terminal_width() / 3).clamp(8, PROMPT_MODEL_COLUMNS);
            parts.push(model_label(&short_model(m), room));
        }
        if let Some(mode) = self
            .session
            .state
            .mode
            .as_ref()
            .filter(|m| **m != PermissionMode::Default)
        {
            parts.push(flat(mode.as_str()));
        }
        let label = parts.join(" · ");
        if label.is_empty() {
            "› ".into()
        } else {
            format!("{label} › ")
        }
    }

    /// Start connecting a session with these flags, in the background;
    /// in a folder not trusted yet, first ask whether to trust it (the
    /// CLI's stream-json mode would load its project settings unasked).
    pub(super) fn start_connect(&mut self, mut flags: SessionFlags) -> anyhow::Result<()> {
        let cwd = flags.cwd.clone().unwrap_or_else(|| self.cwd.clone());
        flags.without_project_settings = !self.project_settings(&cwd, flags.trust_workspace)?;
        self.conn.start(self.rt, &flags)
    }

    /// Whether the CLI in `cwd` loads the folder's project settings: it is
    /// trusted, `--trust-workspace` says so, or the person says so now.
    /// Asked once a folder.
    pub(super) fn project_settings(
        &mut self,
        cwd: &std::path::Path,
        forced: bool,
    ) -> Result<bool, Interrupted> {
        if let Some(loads) = self.conn.trusted(cwd) {
            return Ok(loads);
        }
        // `--trust-workspace` is for the folder the chat was started in,
        // not for one it moves into (`/resume` of another project's session)
        let started_in = self
            .flags
            .cwd
            .clone()
            .or_else(|| std::env::current_dir().ok());
        let same = |a: &std::path::Path, b: &std::path::Path| {
            let real = |p: &std::path::Path| std::fs::canonicalize(p).ok();
            a == b || real(a).is_some_and(|x| real(b) == Some(x))
        };
        let forced = forced && started_in.is_some_and(|s| same(&s, cwd));
        let loads = forced
            || match trust::check(cwd) {
                trust::Check::Trusted => true,
                trust::Check::Untrusted(folder) => self.ask_trust(&folder)?,
            };
        self.conn.settle_trust(cwd, loads);
        Ok(loads)
    }

    /// The trust question, asked on the terminal before the CLI starts;
    /// the answer is recorded where the claude TUI records it.
    ///
    /// The answer is read as a line at the prompt is, from the chat's one
    /// reader of the keyboard (#42.1), its signals with it: Ctrl-C (or a
    /// signal that stops the chat) ends the chat before its CLI starts
    /// ([`Interrupted`]); Ctrl-D, or no terminal to ask on, is "no", said.
    fn ask_trust(&mut self, folder: &trust::Folder) -> Result<bool, Interrupted> {
        let s = self.screen.style();
        let question = trust::question_rows(folder, terminal_width());
        let plain = format!("  {} ", trust::ASK);
        let styled = format!("  {} ", s.bold(trust::ASK));
        let answer = self.read_trust_answer(&question, &styled, &plain)?;
        Ok(match answer {
            Ok(line) if trust::yes(&line) => {
                if let Err(e) = trust::record_trust(folder) {
                    self.info(&format!(
                        "trusted for this session only: the trust could not be recorded ({e})"
                    ));
                } else if folder.home {
                    self.info("trusted for this session");
                } else {
                    self.info("trusted");
                }
                true
            }
            Ok(_) => {
                self.info(&trust::left_out(
                    folder,
                    "claudio asks again next time, or trust it in claude",
                ));
                false
            }
            Err(e) => {
                self.info(&trust::left_out(folder, &format!("could not ask ({e})")));
                false
            }
        })
    }

    /// The trust question shown, and its answer read from the chat's one
    /// reader (the end of the input: an empty answer); keys typed before
    /// the question was shown answer nothing (they are dropped).
    fn read_trust_answer(
        &mut self,
        question: &str,
        styled: &str,
        plain: &str,
    ) -> Result<std::io::Result<String>, Interrupted> {
        let Some(keys) = self.keys.as_mut().filter(|k| k.has_terminal()) else {
            return Ok(Err(std::io::Error::other("no terminal to ask on")));
        };
        keys.discard_typed();
        self.screen.write(question);
        let _ = self.screen.out().flush();
        match super::editor::read_answer(self.rt.handle(), keys, styled, plain) {
            super::promptline::Read::Interrupted => Err(Interrupted),
            _ if super::keys::stopped_by().is_some() => Err(Interrupted),
            super::promptline::Read::Line(line) => Ok(Ok(line)),
            super::promptline::Read::Eof | super::promptline::Read::Action(_) => {
                Ok(Ok(String::new()))
            }
        }
    }

    /// The session, waiting for the connection if it is still being made.
    pub(super) fn client(&mut self) -> anyhow::Result<Arc<Client>> {
        self.conn.client(self.rt)
    }

    /// An error of a prompt or a command, said; `Some` when the chat ends
    /// with it: the session the chat was started with (`-r ID`) is one
    /// the CLI does not know. The CLI's reason is said, and the chat exits
    /// 2, as `ask` and `claude --resume` do, rather than go on with no
    /// session (#41.1).
    pub(super) fn failed(&mut self, e: &anyhow::Error) -> Option<Exit> {
        self.error(e);
        let unknown = e
            .downcast_ref::<claudio::Error>()
            .is_some_and(claudio::Error::is_unknown_session);
        (unknown && self.flags.resume.is_some() && self.conn.first()).then_some(Exit::Usage)
    }

    pub(super) fn write(&mut self, s: &str) {
        self.screen.write(s);
    }

    /// An error: `✗` and its text, each line wrapped under the first.
    pub(super) fn error(&mut self, e: &anyhow::Error) {
        self.screen.error(e);
    }

    /// Before a prompt: the git branch read again, and after a turn the
    /// person's own `statusLine` command run (bounded), its lines shown.
    pub(super) fn update_status(&mut self) {
        self.session.state.branch = crate::cli::common::git::git_branch(&self.cwd);
        if !self.prompt.status_due(self.session.state.totals.prompts) {
            return;
        }
        let Ok(claude_dir) = claudio::store::default_config_dir() else {
            return;
        };
        // the one trust check: what the CLI was started with
        let Ok(project) = self.project_settings(&self.cwd.clone(), self.flags.trust_workspace)
        else {
            return;
        };
        let Some(command) = statusline_runner::configured(&claude_dir, project, &self.cwd) else {
            return;
        };
        let facts = statusline_runner::Facts {
            model: self.session.state.model.clone(),
            mode: self.session.state.mode_name().to_owned(),
            context_window: self.session.state.context_window,
            last_usage: self.session.state.last_usage.clone(),
            cost_usd: self.session.state.totals.session_cost_usd.unwrap_or(0.0),
            duration_ms: self.session.state.totals.duration.as_millis() as u64,
            api_duration_ms: self.session.state.totals.api_duration.as_millis() as u64,
            session_id: self.session.state.session_id.clone(),
            cwd: self.cwd.clone(),
        };
        let transcript = self.session.state.session_id.as_ref().and_then(|id| {
            let store = claudio::store::Store::open(Some(&claude_dir))
                .ok()?
                .without_archives();
            store.find(id).ok().map(|f| f.path.clone())
        });
        let input = statusline_runner::input(&facts, transcript.as_deref());
        match statusline_runner::run(&command, &input, &self.cwd, self.screen.style().enabled()) {
            Ok(lines) => {
                let width = terminal_width();
                let text: String = lines
                    .iter()
                    .map(|l| wrapped(l, width, "  ", "  "))
                    .collect();
                self.write(&text);
            }
            Err(why) => self.info(&why.to_string()),
        }
    }

    pub(super) fn info(&mut self, text: &str) {
        self.screen.info(text);
    }

    pub(super) fn close(&mut self) {
        self.session.forget();
        self.conn.close(self.rt);
    }

    /// Go on with another session (or the same one started again): the
    /// one the chat holds is closed, the next is started in the chat's
    /// folder, and what the chat knows of the session follows. The one
    /// session switch of `/new`, `/resume`, a rewind and a restart.
    pub(super) fn switch(&mut self, to: Switch) -> anyhow::Result<()> {
        self.close();
        if let Switch::Resume { cwd, .. } = &to {
            if cwd.is_dir() {
                self.cwd = cwd.clone();
                // a call's paths are shown from there
                let here = crate::cli::turn::summary::Here::new(&self.cwd);
                self.session.reading.move_to(here);
            }
        }
        let first = self.conn.first();
        let next = next_flags(&self.flags, &self.cwd, &to, &self.session.state, first);
        if !matches!(to, Switch::Again(_)) {
            self.session.state.switched(next.resume.clone());
        }
        self.start_connect(next)
    }
}

/// The session the chat goes on with ([`Chat::switch`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Switch {
    /// `/new`: a fresh session.
    New,
    /// `/resume`: a recorded session, in its folder when that is one.
    Resume { id: String, cwd: std::path::PathBuf },
    /// A rewind: the conversation forked before a prompt (`None`: before
    /// the first, a fresh session), in the mode it is in now.
    Fork(Option<String>),
    /// The same session started again (the CLI gone, a fork that failed),
    /// in the mode it is in now; what was allowed for it stays allowed.
    Again(Option<String>),
}

/// The flags the next session starts with: the chat's own (`started`),
/// in the chat's folder, resuming what `to` names (`first`: the chat
/// holds the session it was started with).
fn next_flags(
    started: &SessionFlags,
    cwd: &std::path::Path,
    to: &Switch,
    state: &super::state::SessionState,
    first: bool,
) -> SessionFlags {
    let mut next = started.clone();
    next.cwd = Some(cwd.to_owned());
    let resume = match to {
        // the first session, its id not known yet: as it was asked for
        // (`-r ID`, `-c`)
        Switch::Again(None) if first => return next_mode(next, to, state),
        Switch::New => None,
        Switch::Resume { id, .. } => Some(id.clone()),
        Switch::Fork(id) | Switch::Again(id) => id.clone(),
    };
    next.continue_session = false;
    next.resume = resume;
    next_mode(next, to, state)
}

/// A conversation that goes on keeps the mode it is in.
fn next_mode(
    mut next: SessionFlags,
    to: &Switch,
    state: &super::state::SessionState,
) -> SessionFlags {
    if matches!(to, Switch::Fork(_) | Switch::Again(_)) {
        // a mode this program does not know: the one it was started with
        next.permission_mode = state.restart_mode(next.permission_mode.take());
    }
    next
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
/// The most columns a model's name takes in the prompt (a third of the
/// row on a narrower terminal) and in the header.
const PROMPT_MODEL_COLUMNS: usize = 40;
const HEADER_MODEL_COLUMNS: usize = 80;

/// A model's name as the prompt and the header show it: one line of inert
/// text (it may come from a project's settings), cut to `room` columns.
fn model_label(m: &str, room: usize) -> String {
    cut_width(&flat(m), room)
}

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

    /// Every switch starts the next session in the chat's folder: `/new`
    /// after a `/resume` into another project started in the folder the
    /// chat began in (the trust asked for the other), and so did a restart
    /// after the CLI was lost. A conversation that goes on keeps its mode.
    #[test]
    fn the_next_session_starts_where_the_chat_is() {
        use super::{next_flags, Switch};
        use crate::cli::common::flags::SessionFlags;
        use claudio::PermissionMode;
        let started = SessionFlags {
            continue_session: true,
            permission_mode: Some(PermissionMode::Plan),
            ..SessionFlags::default()
        };
        let state = crate::cli::commands::chat::state::SessionState {
            mode: Some(PermissionMode::AcceptEdits),
            ..Default::default()
        };
        let there = std::path::Path::new("/other");
        let new = next_flags(&started, there, &Switch::New, &state, false);
        assert_eq!(new.cwd.as_deref(), Some(there));
        assert_eq!((new.resume, new.continue_session), (None, false));
        assert_eq!(new.permission_mode, Some(PermissionMode::Plan));
        let again = Switch::Again(Some("s1".into()));
        let again = next_flags(&started, there, &again, &state, false);
        assert_eq!(again.cwd.as_deref(), Some(there));
        assert_eq!(again.resume.as_deref(), Some("s1"));
        assert!(!again.continue_session);
        assert_eq!(again.permission_mode, Some(PermissionMode::AcceptEdits));
        // the first session lost before it was named: `-c` again
        let first = next_flags(&started, there, &Switch::Again(None), &state, true);
        assert!(first.continue_session && first.resume.is_none());
        let fork = next_flags(
            &started,
            there,
            &Switch::Fork(Some("f".into())),
            &state,
            true,
        );
        assert_eq!(fork.resume.as_deref(), Some("f"));
        assert_eq!(fork.permission_mode, Some(PermissionMode::AcceptEdits));
    }
}

/// Ctrl-C at the trust question: the chat ends before its CLI starts.
#[derive(Debug, thiserror::Error)]
#[error("interrupted")]
pub(super) struct Interrupted;
