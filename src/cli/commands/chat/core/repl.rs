//! The interactive chat's prompt loop: one persistent session, the line
//! editor, slash commands, Shift-Tab, `!` commands. While Claude works, the
//! chat's machine runs (`work`, `machine`).

use super::super::editor::{self, LineEditor};
use super::super::images;
use super::super::keys::{self, stopped_by};
use super::super::machine::WorkEnd;
use super::super::pick;
use super::super::prompt::{CursorLine, Next};
use super::super::promptline::{PromptAction, Read};
use super::super::render::{RenderOptions, Renderer};
use super::super::screen::Screen;
use super::super::shell;
use super::super::slash::{self, Input};
use super::{terminal_width, Chat};
use crate::cli::common::exit::Exit;
use crate::cli::common::flags::SessionFlags;
use crate::cli::sanitize::Sanitizer;
use crate::cli::term::console;
use crate::cli::term::style::Style;
use claudio::UserInput;
use std::io::{self, Write};
use tokio::runtime::Runtime;

/// Whether the chat's loop ends here: `e` is a signal's stop (the chat
/// ends by it) or another failure that ends it.
fn ends(chat: &mut Chat<'_>, e: &anyhow::Error) -> Option<Exit> {
    if let Some(n) = stopped_by() {
        return Some(Exit::Signal(n));
    }
    chat.failed(e)
}

pub struct ChatSettings {
    pub show_thinking: bool,
    pub history_size: usize,
    /// vi keys at the prompt.
    pub vi: bool,
    /// The config file's `[notify]` table.
    pub notify: Option<crate::cli::common::notify::NotifyConfig>,
}

pub fn run(rt: &Runtime, session: &SessionFlags, settings: ChatSettings) -> anyhow::Result<Exit> {
    run_with(rt, session, settings, keys::Keys::start)
}

/// [`run`], its one reader of the keyboard made by `start_keys` (given the
/// runtime, and whether the chat has a terminal): the terminal's
/// ([`keys::Keys::start`]), or a test's keys.
pub(in crate::cli::commands::chat) fn run_with(
    rt: &Runtime,
    session: &SessionFlags,
    settings: ChatSettings,
    start_keys: impl FnOnce(&tokio::runtime::Handle, bool) -> io::Result<keys::Keys>,
) -> anyhow::Result<Exit> {
    // No CLI: say so at once (exit 127), not after the first prompt.
    claudio::transport::find_cli(session.cli_path.as_deref())?;
    pick::install_panic_restore();
    // what a process killed outright left: its settings and MCP servers
    claudio::transport::sweep_private_dirs();
    let style = Style::decide(session.color_choice(), console::output_is_terminal());
    let width = terminal_width();
    let mut renderer = Renderer::new(RenderOptions {
        style,
        live: console::output_is_terminal(),
        show_thinking: settings.show_thinking,
        width,
    });
    renderer.set_verbose(session.verbose);
    let mut chat = Chat::new(
        rt,
        session,
        Screen::new(style, renderer),
        crate::cli::common::notify::Notifier::new(settings.notify.clone().unwrap_or_default()),
        match &session.cwd {
            Some(d) => d.clone(),
            None => std::env::current_dir()?,
        },
    );
    chat.session.state.model = session.model.clone();
    chat.session.state.chosen_model = session.model.clone().or_else(|| {
        let claude_dir = claudio::store::default_config_dir().ok()?;
        let files = crate::cli::common::settings::files(&claude_dir, Some(&chat.cwd));
        crate::cli::common::settings::chosen_model(&files, std::env::var("ANTHROPIC_MODEL").ok())
    });
    chat.session.state.mode = session.permission_mode.clone();
    chat.header();
    let found = session.resume.as_ref().map(|id| chat.show_history(id));
    // the signals that end the chat: one stream for its life, seen by
    // every wait of the chat (`keys::stopped`), the chat ending from this
    // loop (the CLI closed, the history saved, the terminal put back)
    // and the keyboard: one reader for the chat's life (#42.1), made
    // before the session connects, so that nothing typed from now on is
    // lost or echoed, whatever the chat is doing
    let saved = rustix::termios::tcgetattr(io::stdin()).ok();
    let terminal = console::input_is_terminal() && console::output_is_terminal();
    chat.keys = Some(start_keys(rt.handle(), terminal)?);
    if let Err(e) = chat.start_connect(session.clone()) {
        // Ctrl-C (or a stop) at the trust question: the chat ends there
        if e.downcast_ref::<super::Interrupted>().is_some() {
            drop(chat.keys.take());
            return Ok(stopped_by().map_or(Exit::Interrupted, Exit::Signal));
        }
        return Err(e);
    }
    // `-r ID` of a session the store does not hold: the CLI's answer
    // decides before a prompt is typed, so an unknown id never opens a
    // chat (nor takes a prompt it then drops)
    let mut unknown = None;
    if found == Some(false) {
        if let Err(e) = chat.client() {
            unknown = ends(&mut chat, &e);
        }
    }

    let mut ed = LineEditor::new(
        rt.handle().clone(),
        settings.history_size,
        settings.vi,
        chat.cwd.clone(),
    )?;
    let exit = loop {
        if let Some(exit) = unknown.take() {
            break exit;
        }
        if let Some(n) = stopped_by() {
            break Exit::Signal(n);
        }
        chat.update_status();
        chat.set_prompt(&mut ed);
        let agents = chat.session.agents_running() > 0;
        let start = match chat.prompt.next(agents) {
            // Prompts typed ahead during the last turn go first, in order.
            Next::Queued(next) => {
                let echo = format!(
                    "{}{}\n",
                    chat.screen.style().bold("› "),
                    Sanitizer::clean(&next)
                );
                chat.write(&echo);
                ed.add_history(&next);
                if let Some(input) = slash::parse(&next) {
                    match chat.handle(input) {
                        Ok(None) => {}
                        Ok(Some(exit)) => break exit,
                        Err(e) => {
                            if let Some(exit) = ends(&mut chat, &e) {
                                break exit;
                            }
                        }
                    }
                }
                continue;
            }
            // While background agents work, the prompt is the turn's own
            // line under the live spinners: their progress, requests and
            // report show as they come.
            Next::Agents => {
                // Ctrl-D on the empty line under them ends the chat; the
                // session lost or failed is the next prompt's to find
                match chat.agents_at_work() {
                    Ok(WorkEnd::Quit(exit)) => break exit,
                    Ok(WorkEnd::Done | WorkEnd::SessionLost | WorkEnd::Failed(_)) => {}
                    Err(_) if stopped_by().is_some() => continue,
                    Err(e) => chat.error(&e),
                }
                if chat.prompt.has_queued() {
                    continue;
                }
                chat.prompt.start()
            }
            Next::Read(start) => start,
            // Ctrl-D typed as the last turn ended
            Next::Eof => break Exit::Success,
        };
        // a line typed during the last turn stays within reach, and so do
        // the queued commands an interrupt put aside
        for held in chat.prompt.take_held() {
            ed.add_history(&held);
        }
        if let Some(typed) = &start.to_history {
            ed.add_history(typed);
        }
        let prompt = chat.plain_prompt();
        let CursorLine { before, after } = start.line;
        let Some(keys) = chat.keys.as_mut() else {
            break Exit::Success;
        };
        let line = match ed.read(keys, &prompt, &before, &after)? {
            Read::Line(line) => line,
            Read::Eof => break Exit::Success,
            Read::Interrupted => continue,
            Read::Action(action) => {
                if let Some(exit) = chat.prompt_action(&prompt, action) {
                    break exit;
                }
                continue;
            }
        };
        let Some(input) = slash::parse(&line) else {
            continue;
        };
        ed.add_history(&line);
        match chat.handle(input) {
            Ok(None) => {}
            Ok(Some(exit)) => break exit,
            Err(e) => {
                if let Some(exit) = ends(&mut chat, &e) {
                    break exit;
                }
            }
        }
    };
    // a signal seen as the loop ended (a reading ended by it) is the exit
    let exit = stopped_by().map_or(exit, Exit::Signal);
    ed.save_history();
    chat.close();
    // the one reader ends with the chat: the terminal in the mode it found
    drop(chat.keys.take());
    if stopped_by().is_some() {
        shell::kill_running();
        // a session still starting (or one replaced): its CLI and its
        // private files (MCP servers' tokens) go too
        claudio::transport::abandon();
        if let Some(t) = saved {
            let _ =
                rustix::termios::tcsetattr(io::stdin(), rustix::termios::OptionalActions::Now, &t);
        }
        // a picker may have hidden the cursor; styles end
        let mut out = io::stdout();
        let _ = out.write_all(b"\x1b[?25h\x1b[0m");
        let _ = out.flush();
    }
    Ok(exit)
}

impl Chat<'_> {
    /// A key the chat handles itself stopped the line editor at `prompt`:
    /// its line goes from the screen, the key's work is done, and what the
    /// next prompt starts with is fed to the prompt side. `Some` when the
    /// chat ends.
    fn prompt_action(&mut self, prompt: &str, action: PromptAction) -> Option<Exit> {
        match action {
            PromptAction::CycleMode { before, after } => {
                self.erase_prompt(prompt, &format!("{before}{after}"));
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
                            if let Some(exit) = ends(self, &e) {
                                return Some(exit);
                            }
                        }
                    }
                }
                self.prompt.typed_onto_owed();
            }
            PromptAction::Rewind => {
                self.erase_prompt(prompt, "");
                match self.rewind() {
                    Ok(Some(text)) => self.prompt.rewound(text),
                    Ok(None) => {}
                    Err(e) => self.error(&e),
                }
            }
            PromptAction::Edit { line } => {
                self.erase_prompt(prompt, &line);
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
                self.erase_prompt(prompt, &format!("{before}{after}"));
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

    fn set_prompt(&self, ed: &mut LineEditor) {
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

    fn handle(&mut self, input: Input) -> anyhow::Result<Option<Exit>> {
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
                    let ours = slash::SLASH_COMMANDS
                        .iter()
                        .flat_map(|c| std::iter::once(c.name).chain(c.aliases.iter().copied()));
                    if let Some(note) = super::super::typos::unknown_command(&typed, ours, &cli) {
                        self.info(&note);
                        return Ok(None);
                    }
                }
                // the uuid is what /rewind names the prompt by; it gets the
                // line back as typed, so a pasted path attaches its image again
                let uuid = claudio::store::new_uuid();
                let owed = self.prompt.send(uuid.clone(), &typed);
                // the text goes as typed, each image beside it; a file that
                // is no usable image is named, and the prompt goes all the same
                let home = dirs::home_dir();
                // an @ path that names no file attaches nothing: said, and
                // the prompt goes all the same (the CLI expands the others)
                for note in super::super::mentions::unfound(&typed, &self.cwd, home.as_deref()) {
                    self.info(&note);
                }
                let attached = images::attach(
                    &typed,
                    &owed.pasted,
                    home.as_deref(),
                    |p: &std::path::Path| claudio::protocol::Image::from_file(p),
                );
                for line in attached.lines() {
                    self.info(&line);
                }
                let mut input = UserInput::new(shell::with_context(&owed.shell, &attached.text));
                for (_, image) in &attached.images {
                    input = input.with_image(image);
                }
                return self.turn(input.uuid(uuid));
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

    /// Remove the prompt line the line editor left when a key stopped it.
    fn erase_prompt(&mut self, prompt: &str, line: &str) {
        use unicode_width::UnicodeWidthStr;
        if !console::output_is_terminal() {
            return;
        }
        let cols = terminal_width().max(1);
        // as the prompt lays it out (`promptline::layout`): a row is full at `cols` columns, and the
        // cursor after a full last row sits on the next one
        let text = format!("{prompt}{line}");
        let segments: Vec<&str> = text.split('\n').collect();
        let last = segments.len() - 1;
        let rows: usize = segments
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let w = l.width();
                if i == last {
                    w / cols + 1
                } else {
                    w.max(1).div_ceil(cols)
                }
            })
            .sum();
        self.write(&format!("\x1b[{rows}A\r\x1b[J"));
    }

    /// `!command`: run it, show its output, keep it for the next prompt.
    fn shell(&mut self, cmd: &str) -> anyhow::Result<()> {
        let rt = self.rt;
        let (style, cwd) = (self.screen.style(), self.cwd.clone());
        let mut out = console::out();
        // a signal that stops the chat stops the command (its group
        // killed); Ctrl-C from the chat's one source stops the command;
        // what is typed meanwhile is the next prompt's
        let interrupts = futures_util::stream::unfold(self.keys.as_mut(), |k| async move {
            let k = k?;
            loop {
                match k.next_signal().await? {
                    keys::Sig::Interrupt => return Some(((), Some(k))),
                    // back from Ctrl-Z: the chat's mode again
                    keys::Sig::Continue => k.restore_char_mode(),
                }
            }
        });
        let ran = match rt.block_on(keys::unless_stopped(shell::run(
            cmd, &cwd, style, &mut out, interrupts,
        ))) {
            Ok(ran) => ran?,
            Err(stopped) => {
                shell::kill_running();
                return Err(stopped.into());
            }
        };
        let mark = if ran.ok {
            style.green("✓")
        } else {
            style.red("✗")
        };
        let note = format!(
            "{} · {:.1}s · Claude sees this with your next prompt",
            ran.status,
            ran.elapsed.as_secs_f64()
        );
        // `\r`: over the terminal's `^C` echo, if any
        self.write(&format!("\r  {mark} {}\n", style.dim(&note)));
        self.prompt.shell_ran(ran.context);
        Ok(())
    }
}
