//! The chat's core: the chat as its parts (its connection to the CLI, its
//! screen, what its session has seen, its prompt side), its one `impl`
//! and the only code that sees its fields. What it does is done by
//! components of their own, each handed only the parts it works on, never
//! a `Chat`: the slash commands (`commands.rs`), the work (`work.rs`,
//! driving `machine.rs`), rewind (`rewind.rs`), the history shown on
//! resuming (`history.rs`), the trust question (`trust_question.rs`), the
//! header and the prompt's label (`label.rs`), and a prompt or a `!`
//! command as it goes (`outgoing.rs`). The prompt loop (`repl.rs`) drives
//! the chat through its methods.

use super::commands::{Commands, Then};
use super::connection::Connection;
use super::editor::{self, LineEditor};
use super::images;
use super::keys::{self, stopped_by, Keys};
use super::label;
use super::machine::WorkEnd;
use super::outgoing;
use super::prompt::{CursorLine, Next, PromptSide};
use super::promptline::PromptAction;
use super::rewind::{rewound_notice, Rewind};
use super::screen::{terminal_width, Screen};
use super::slash::{ChatCommand, Input};
use super::state::{short_id, Session};
use super::statusline_runner;
use super::trust_question::{Interrupted, TrustQuestion};
use super::work::Work;
use crate::cli::common::exit::Exit;
use crate::cli::common::flags::SessionFlags;
use crate::cli::common::trust;
use crate::cli::sanitize::Sanitizer;
use crate::cli::term::console;
use crate::cli::term::wrap::wrapped;
use claudio::Client;
use claudio::PermissionMode;
use claudio::UserInput;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use tokio::runtime::Runtime;

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
    keys: Option<Keys>,
}

impl<'a> Chat<'a> {
    /// The chat started with `flags` in `cwd`, no session yet (the next
    /// prompt's result is a resumed session's with `-r` or `-c`): the
    /// model and the mode asked for, or the model the settings choose.
    pub(super) fn new(
        rt: &'a Runtime,
        flags: &SessionFlags,
        screen: Screen,
        notifier: crate::cli::common::notify::Notifier,
        cwd: std::path::PathBuf,
    ) -> Self {
        let mut chat = Chat {
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
        };
        chat.session.state.model = flags.model.clone();
        chat.session.state.chosen_model = flags.model.clone().or_else(|| {
            let claude_dir = claudio::store::default_config_dir().ok()?;
            let files = crate::cli::common::settings::files(&claude_dir, Some(&chat.cwd));
            crate::cli::common::settings::chosen_model(
                &files,
                std::env::var("ANTHROPIC_MODEL").ok(),
            )
        });
        chat.session.state.mode = flags.permission_mode.clone();
        chat
    }

    /// The chat's folder (where its session runs).
    pub(super) fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// The chat's one reader of the keyboard, for its whole life.
    pub(super) fn set_keys(&mut self, keys: Keys) {
        self.keys = Some(keys);
    }

    /// The chat's one reader, when no work holds it and it was made.
    pub(super) fn keys_mut(&mut self) -> Option<&mut Keys> {
        self.keys.as_mut()
    }

    /// The one reader ends: the terminal in the mode it was found in.
    pub(super) fn end_keys(&mut self) {
        drop(self.keys.take());
    }

    /// The prompt side: what the next prompt starts with, what is queued.
    pub(super) fn prompt_side(&mut self) -> &mut PromptSide {
        &mut self.prompt
    }

    /// What comes next at the prompt (background agents at work or not).
    pub(super) fn next_prompt(&mut self) -> Next {
        let agents = self.session.agents_running() > 0;
        self.prompt.next(agents)
    }

    /// A prompt typed ahead, shown as it goes.
    pub(super) fn echo_queued(&mut self, next: &str) {
        let echo = format!(
            "{}{}\n",
            self.screen.style().bold("› "),
            Sanitizer::clean(next)
        );
        self.write(&echo);
    }

    /// Whether the chat's loop ends here: `e` is a signal's stop (the chat
    /// ends by it) or another failure that ends it.
    pub(super) fn ends(&mut self, e: &anyhow::Error) -> Option<Exit> {
        if let Some(n) = stopped_by() {
            return Some(Exit::Signal(n));
        }
        self.failed(e)
    }

    /// The chat's header: the program, the model chosen, the folder, the
    /// session resumed; then its keys.
    pub(super) fn header(&mut self) {
        let cwd = self
            .flags
            .cwd
            .clone()
            .or_else(|| std::env::current_dir().ok());
        let text = label::header(
            self.screen.style(),
            terminal_width(),
            cwd.as_deref(),
            self.session.state.chosen_model.as_deref(),
            self.flags.resume.as_deref(),
        );
        let _ = writeln!(self.screen.out(), "{text}");
    }

    /// The prompt ([`label::prompt`]).
    pub(super) fn plain_prompt(&self) -> String {
        let state = &self.session.state;
        label::prompt(state.chosen_model.as_deref(), state.mode.as_ref())
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
                trust::Check::Untrusted(folder) => {
                    let answer = TrustQuestion {
                        rt: self.rt,
                        screen: &mut self.screen,
                        keys: &mut self.keys,
                    }
                    .ask(&folder)?;
                    if let Some(typed) = answer.typed {
                        self.prompt.edited(typed);
                    }
                    answer.loads
                }
            };
        self.conn.settle_trust(cwd, loads);
        Ok(loads)
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
    /// The parts the work runs with ([`Work`]).
    fn work(&mut self) -> Work<'_> {
        Work {
            conn: &mut self.conn,
            screen: &mut self.screen,
            session: &mut self.session,
            prompt: &mut self.prompt,
            keys: &mut self.keys,
            notifier: &mut self.notifier,
            cwd: &self.cwd,
        }
    }

    /// A prompt sent: Claude's turn, to its end.
    fn turn(&mut self, text: UserInput) -> anyhow::Result<Option<Exit>> {
        let rt = self.rt;
        let client = self.client()?;
        let end = self.work().turn(rt, &client, text);
        self.after(&client, end)
    }

    /// Shift-Tab: ask the CLI for the mode `next`, then take in what it
    /// sends until it confirms the switch (its requests meanwhile are
    /// asked, as in a turn). A refusal is an error; the session goes on.
    fn switch_mode(&mut self, next: PermissionMode) -> anyhow::Result<Option<Exit>> {
        let rt = self.rt;
        let client = self.client()?;
        rt.block_on(client.set_permission_mode(next.clone()))?;
        let end = self.work().mode(rt, &client, next);
        self.after(&client, end)
    }

    /// After the work: on to the next prompt, out of the program, or (the
    /// CLI gone or failed) the session started again, the conversation kept.
    fn after(
        &mut self,
        client: &Client,
        end: anyhow::Result<WorkEnd>,
    ) -> anyhow::Result<Option<Exit>> {
        let end = match end {
            Ok(WorkEnd::Failed(e)) => Err(anyhow::Error::new(e)),
            other => other,
        };
        // a signal stops the chat: the live region goes, the session is
        // kept for the chat's loop to close gracefully (never started again)
        if let Some(&keys::Stopped(n)) = end.as_ref().err().and_then(|e| e.downcast_ref()) {
            let out = self.screen.renderer_mut().abandon_turn();
            self.session.reading.abandon_turn();
            self.write(&out);
            return Ok(Some(Exit::Signal(n)));
        }
        match end {
            Ok(WorkEnd::Done) => Ok(None),
            Ok(WorkEnd::Quit(exit)) => {
                client.kill();
                self.conn.lost();
                Ok(Some(exit))
            }
            Ok(WorkEnd::SessionLost | WorkEnd::Failed(_)) | Err(_) => {
                let out = self.screen.renderer_mut().abandon_turn();
                self.session.reading.abandon_turn();
                self.write(&out);
                if let Err(e) = end {
                    self.error(&e);
                }
                // Keep the conversation: the next prompt resumes it.
                let id = self.session.state.session_id.clone();
                self.conn.lost();
                self.switch(Switch::Again(id))?;
                self.info("the session ended; the next prompt starts it again");
                Ok(None)
            }
        }
    }

    /// Background agents are at work and nothing else is: shown live, the
    /// next prompt taken on the turn's own line ([`Work::agents`]); how it
    /// ended is the machine's [`WorkEnd`], as a turn's is.
    pub(super) fn agents_at_work(&mut self) -> anyhow::Result<WorkEnd> {
        let Some(client) = self.conn.live() else {
            return Ok(WorkEnd::Done);
        };
        if !console::input_is_terminal() || !console::output_is_terminal() {
            return Ok(WorkEnd::Done);
        }
        let rt = self.rt;
        let prompt = self.plain_prompt();
        self.work().agents(rt, &client, prompt)
    }

    /// Run one of the chat's own commands ([`Commands`]), and go on with
    /// the session it names.
    fn command(&mut self, command: ChatCommand) -> anyhow::Result<()> {
        let mut commands = Commands {
            rt: self.rt,
            conn: &mut self.conn,
            screen: &mut self.screen,
            session: &mut self.session,
            clipboard: &mut self.clipboard,
            keys: &mut self.keys,
            cwd: &self.cwd,
        };
        match commands.run(command)? {
            Then::Stay => {}
            Then::New => {
                self.switch(Switch::New)?;
                self.info("new session");
            }
            Then::Resume { id, cwd } => {
                self.switch(Switch::Resume {
                    id: id.clone(),
                    cwd,
                })?;
                self.info(&format!("resuming {}", short_id(&id)));
                self.show_history(&id);
            }
        }
        Ok(())
    }

    /// Show the end of session `id`'s conversation ([`super::history`]).
    /// Whether the store holds the session.
    pub(super) fn show_history(&mut self, id: &str) -> bool {
        let width = self.screen.renderer().width();
        let style = self.screen.style();
        match super::history::last_exchanges(id, &self.cwd, width, style) {
            Some(shown) => {
                self.write(&shown);
                true
            }
            None => false,
        }
    }

    /// Esc Esc or `/rewind`: back to before one of this session's prompts
    /// ([`Rewind`] chooses). Returns the prompt's text, for the input
    /// line, when the conversation went back.
    fn rewind(&mut self) -> anyhow::Result<Option<String>> {
        let Some(id) = self.session.state.session_id.clone() else {
            self.info("nothing to rewind yet");
            return Ok(None);
        };
        let rewind = Rewind {
            rt: self.rt,
            conn: &mut self.conn,
            screen: &mut self.screen,
            keys: &mut self.keys,
            cwd: &self.cwd,
            typed: self.prompt.typed(),
        };
        let Some(chosen) = rewind.choose(&id)? else {
            return Ok(None);
        };
        // The transcript is complete once the CLI has closed; the fork ends
        // just before the prompt, and the session goes on from there.
        self.close();
        let forked = match chosen.fork(&id) {
            Ok(f) => f,
            Err(e) => {
                // go on with the session as it was
                self.switch(Switch::Again(Some(id)))?;
                return Err(chosen.not_forked(e));
            }
        };
        self.switch(Switch::Fork(forked))?;
        self.info(&rewound_notice(&chosen.prompt.text));
        Ok(Some(Sanitizer::clean(&chosen.prompt.text)))
    }

    /// A key the chat handles itself stopped the line editor at `prompt`:
    /// its line goes from the screen, the key's work is done, and what the
    /// next prompt starts with is fed to the prompt side. `Some` when the
    /// chat ends.
    pub(super) fn prompt_action(&mut self, prompt: &str, action: PromptAction) -> Option<Exit> {
        match action {
            PromptAction::CycleMode { before, after } => {
                self.screen
                    .erase_prompt(prompt, &format!("{before}{after}"));
                self.prompt.mode_cycled(CursorLine { before, after });
                // one switch per press: presses made while one was being
                // confirmed count too
                self.prompt.cycle_pressed();
                while self.prompt.take_cycle() {
                    let next = self
                        .session
                        .state
                        .mode
                        .clone()
                        .unwrap_or_default()
                        .next_in_cycle();
                    match self.switch_mode(next) {
                        Ok(None) => {}
                        Ok(Some(exit)) => return Some(exit),
                        Err(e) => {
                            self.prompt.drop_cycles();
                            if let Some(exit) = self.ends(&e) {
                                return Some(exit);
                            }
                        }
                    }
                }
                self.prompt.typed_onto_owed();
            }
            PromptAction::Rewind => {
                self.screen.erase_prompt(prompt, "");
                match self.rewind() {
                    Ok(Some(text)) => self.prompt.rewound(text),
                    Ok(None) => {}
                    Err(e) => self.error(&e),
                }
            }
            PromptAction::Edit { line } => {
                self.screen.erase_prompt(prompt, &line);
                // the editor owns the terminal while it runs: the chat's
                // one reader pauses (its signals are still taken: a stop
                // ends the editor)
                if let Some(k) = self.keys.as_mut() {
                    k.pause();
                }
                let edit =
                    editor::edit_in_editor_unless(&line, &editor::editor_from_env(), &|| {
                        stopped_by().is_some()
                    });
                if let Some(k) = self.keys.as_mut() {
                    k.resume();
                }
                if let Some(n) = stopped_by() {
                    self.prompt.edited(line);
                    return Some(Exit::Signal(n));
                }
                let text = match edit {
                    Ok(new) => new.unwrap_or(line),
                    Err(e) => {
                        self.error(&anyhow::Error::from(e));
                        line
                    }
                };
                self.prompt.edited(text);
            }
            PromptAction::PasteImage { before, after } => {
                self.screen
                    .erase_prompt(prompt, &format!("{before}{after}"));
                self.paste_image(CursorLine { before, after });
            }
        }
        None
    }

    /// Ctrl-V: the clipboard's image as a marker at the cursor, or a line
    /// saying why there is none.
    fn paste_image(&mut self, line: CursorLine) {
        let image = match self.clipboard.image() {
            Ok(image) => Some(image),
            Err(why) => {
                self.info(&why.to_string());
                None
            }
        };
        let about = image.as_ref().map(images::describe);
        if let (Some(marker), Some(about)) = (self.prompt.pasted(line, image), about) {
            self.info(&format!("{marker} pasted: {about}"));
        }
    }

    /// The line editor's prompt, styled, and the CLI's own commands for
    /// its completion.
    pub(super) fn set_prompt(&self, ed: &mut LineEditor) {
        let plain = self.plain_prompt();
        let styled = match plain.rsplit_once("› ") {
            Some((label, _)) if !label.is_empty() => {
                format!(
                    "{}{}",
                    self.screen.style().dim(label),
                    self.screen.style().bold("› ")
                )
            }
            _ => self.screen.style().bold(&plain),
        };
        ed.set_prompt(styled, &self.cwd);
        let cli: Option<Vec<String>> = self.conn.live().map(|c| {
            c.server_info()
                .commands
                .iter()
                .map(|c| c.name.clone())
                .collect()
        });
        if let Some(names) = cli {
            ed.set_cli_commands(names);
        }
    }

    /// A line typed at the prompt, parsed: a command, a prompt, `!`, a
    /// rewind or the end. `Some` when the chat ends.
    pub(super) fn handle(&mut self, input: Input) -> anyhow::Result<Option<Exit>> {
        match input {
            Input::Exit => return Ok(Some(Exit::Success)),
            // the chat's own commands
            Input::Command(command) => self.command(command)?,
            Input::Prompt(typed) => {
                // a `/word` no one knows is a typo, not a prompt
                if typed.starts_with('/') {
                    let client = self.client()?;
                    let cli: Vec<String> = client
                        .server_info()
                        .commands
                        .iter()
                        .map(|c| c.name.clone())
                        .collect();
                    if let Some(note) = outgoing::unknown_command(&typed, &cli) {
                        self.info(&note);
                        return Ok(None);
                    }
                }
                // the uuid is what /rewind names the prompt by; it gets the
                // line back as typed, so a pasted path attaches its image again
                let uuid = claudio::store::new_uuid();
                let owed = self.prompt.send(uuid.clone(), &typed);
                let (notes, input) = outgoing::prompt(&typed, &owed, &self.cwd, uuid);
                for note in notes {
                    self.info(&note);
                }
                return self.turn(input);
            }
            Input::Shell(cmd) if cmd.is_empty() => self.info(
                "usage: !COMMAND (runs in the shell; Claude sees the output with your next prompt)",
            ),
            Input::Shell(cmd) => self.shell(&cmd)?,
            Input::Rewind => {
                if let Some(text) = self.rewind()? {
                    self.prompt.rewound(text);
                }
            }
        }
        Ok(None)
    }

    /// `!command`: run it, show its output, keep it for the next prompt
    /// ([`outgoing::run_shell`]).
    fn shell(&mut self, cmd: &str) -> anyhow::Result<()> {
        let style = self.screen.style();
        let (line, context) =
            outgoing::run_shell(self.rt, self.keys.as_mut(), cmd, &self.cwd, style)?;
        self.write(&line);
        self.prompt.shell_ran(context);
        Ok(())
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

#[cfg(test)]
mod tests {
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
