//! What the prompt sends besides the chat's own commands: a typed prompt
//! as it goes to the CLI (the `!` output and the images it owes beside
//! it, its `@` paths checked, a `/word` no one knows caught first), and a
//! `!` command run, its output kept for the next prompt.

use super::images;
use super::keys::{self, Keys};
use super::prompt::Owed;
use super::shell;
use super::slash;
use crate::cli::term::console;
use crate::cli::term::style::Style;
use claudio::UserInput;
use std::path::Path;
use tokio::runtime::Runtime;

/// A typed `/word` that is none of the chat's commands nor of the CLI's
/// (`cli`): the note saying so, a typo rather than a prompt.
pub(super) fn unknown_command(typed: &str, cli: &[String]) -> Option<String> {
    let ours = slash::SLASH_COMMANDS
        .iter()
        .flat_map(|c| std::iter::once(c.name).chain(c.aliases.iter().copied()));
    super::typos::unknown_command(typed, ours, cli)
}

/// The prompt `typed`, sent as `uuid`, with what it `owed`: the notes to
/// say first, and the input. The text goes as typed, each image beside
/// it; a file that is no usable image is named, and an `@` path (from
/// `cwd`) that names no file attaches nothing: both said, and the prompt
/// goes all the same (the CLI expands the other paths).
pub(super) fn prompt(
    typed: &str,
    owed: &Owed,
    cwd: &Path,
    uuid: String,
) -> (Vec<String>, UserInput) {
    let home = dirs::home_dir();
    let mut notes = super::mentions::unfound(typed, cwd, home.as_deref());
    let attached = images::attach(
        typed,
        &owed.pasted,
        home.as_deref(),
        |p: &std::path::Path| claudio::protocol::Image::from_file(p),
    );
    notes.extend(attached.lines());
    let mut input = UserInput::new(shell::with_context(&owed.shell, &attached.text));
    for (_, image) in &attached.images {
        input = input.with_image(image);
    }
    (notes, input.uuid(uuid))
}

/// `!command` run in `cwd`, its output shown as it comes: the line that
/// says how it ended, and the context the next prompt takes. A signal
/// that stops the chat stops the command (its group killed); Ctrl-C from
/// the chat's one reader (`keys`) stops the command; what is typed
/// meanwhile is the next prompt's.
pub(super) fn run_shell(
    rt: &Runtime,
    keys: Option<&mut Keys>,
    cmd: &str,
    cwd: &Path,
    style: Style,
) -> anyhow::Result<(String, String)> {
    let mut out = console::out();
    let interrupts = futures_util::stream::unfold(keys, |k| async move {
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
        cmd, cwd, style, &mut out, interrupts,
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
    Ok((format!("\r  {mark} {}\n", style.dim(&note)), ran.context))
}
