//! The interactive chat's prompt loop: one persistent session, the line
//! editor, slash commands, Shift-Tab, `!` commands. While Claude works, the
//! chat's machine runs (`work`, `machine`).

use super::core::Chat;
use super::editor::LineEditor;
use super::keys::{self, stopped_by};
use super::machine::WorkEnd;
use super::pick;
use super::prompt::{CursorLine, Next};
use super::promptline::Read;
use super::render::{RenderOptions, Renderer};
use super::screen::{terminal_width, Screen};
use super::shell;
use super::slash;
use super::trust_question::Interrupted;
use crate::cli::common::exit::Exit;
use crate::cli::common::flags::SessionFlags;
use crate::cli::term::console;
use crate::cli::term::style::Style;
use std::io::{self, Write};
use std::time::Instant;
use tokio::runtime::Runtime;

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
        reflows: console::reflows(),
    });
    renderer.set_verbose(session.verbose);
    let mut chat = Chat::new(
        rt,
        session,
        Screen::new(style, renderer),
        crate::cli::common::notify::Notifier::new(settings.notify.clone().unwrap_or_default()),
        match &session.cwd {
            Some(d) => d.clone(),
            None => crate::cli::common::folder::current()?,
        },
    );
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
    chat.set_keys(start_keys(rt.handle(), terminal)?);
    if let Err(e) = chat.start_connect(session.clone()) {
        // Ctrl-C (or a stop) at the trust question: the chat ends there
        if e.downcast_ref::<Interrupted>().is_some() {
            chat.end_keys();
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
            unknown = chat.ends(&e);
        }
    }

    let mut ed = LineEditor::new(
        rt.handle().clone(),
        settings.history_size,
        settings.vi,
        chat.cwd().to_owned(),
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
        let start = match chat.next_prompt() {
            // Prompts typed ahead during the last turn go first, in order.
            Next::Queued(next) => {
                chat.echo_queued(&next);
                ed.add_history(&next);
                if let Some(input) = slash::parse(&next) {
                    match chat.handle(input) {
                        Ok(None) => {}
                        Ok(Some(exit)) => break exit,
                        Err(e) => {
                            if let Some(exit) = chat.ends(&e) {
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
                if chat.prompt_side().has_queued() {
                    continue;
                }
                chat.prompt_side().start()
            }
            Next::Read(start) => start,
            // Ctrl-D typed as the last turn ended
            Next::Eof => break Exit::Success,
        };
        // a line typed during the last turn stays within reach, and so do
        // the queued commands an interrupt put aside
        for held in chat.prompt_side().take_held() {
            ed.add_history(&held);
        }
        if let Some(typed) = &start.to_history {
            ed.add_history(typed);
        }
        let prompt = chat.plain_prompt();
        let CursorLine { before, after } = start.line;
        let Some(keys) = chat.keys_mut() else {
            break Exit::Success;
        };
        let read = ed.read(keys, &prompt, &before, &after)?;
        if !matches!(read, Read::Interrupted) {
            // a `!` command, a slash command or an action between the two
            // presses: the second only clears the line
            chat.prompt_side().took_input();
        }
        let line = match read {
            Read::Line(line) => line,
            Read::Eof => break Exit::Success,
            Read::Interrupted => {
                // the second press of a double Ctrl-C whose first ended the
                // turn (the CLI stops at once) quits, as during the turn;
                // with text on the line it only clears it
                if chat.prompt_side().second_ctrl_c(Instant::now()) && ed.line_was_empty() {
                    break Exit::Interrupted;
                }
                continue;
            }
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
                if let Some(exit) = chat.ends(&e) {
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
    chat.end_keys();
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
