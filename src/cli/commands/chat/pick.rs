//! Choosing from a picker on the chat's raw terminal, between turns (the
//! rewind picker), and the guard that never leaves the terminal raw.

use super::keys::{Keys, Next, TermEvent};
use crate::cli::term::console;
use crate::cli::term::picker::{InPlace, Picked, Picker};
use crate::cli::term::style::Style;
use claudio::Cancellation;
use std::io::{self, Write};

/// Shows the cursor again when dropped (the picker hides it), on every path.
struct ShowCursor;

impl Drop for ShowCursor {
    fn drop(&mut self) {
        let mut out = console::out();
        let _ = out.write_all(b"\x1b[?25h");
        let _ = out.flush();
    }
}

/// Make sure a panic never leaves the terminal raw.
pub fn install_panic_restore() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let _ = crossterm::terminal::disable_raw_mode();
        let _ = io::stdout().write_all(b"\x1b[0m\x1b[?25h\n");
        previous(info);
    }));
}

/// Let the person choose from `picker` with single keys on a raw terminal,
/// drawn in place under what is already on the screen. The final choice
/// stays drawn. A withdrawn request (`cancel`) ends it with `None`.
pub async fn pick(
    keys: &mut Keys,
    cancel: Option<&Cancellation>,
    picker: Picker,
    style: Style,
    width: usize,
) -> io::Result<Option<Picked>> {
    let raw = keys.raw();
    if !raw.ok() {
        return Ok(None);
    }
    let _cursor = ShowCursor;
    let mut out = console::out();
    // the drawing must fit on the screen to be redrawn in place
    let height = console::size().map(|(_, h)| h as usize).unwrap_or(24);
    let (mut drawn, text) = InPlace::start(picker, style, width, height);
    out.write_all(text.as_bytes())?;
    out.flush()?;
    loop {
        let (text, decided) = match keys.next_unless(cancel).await {
            Next::TermEvent(TermEvent::Key(k)) => drawn.key(k),
            Next::TermEvent(TermEvent::Paste(text)) => (drawn.paste(&text), None),
            Next::TermEvent(TermEvent::Resize(w, h)) => {
                drawn.screen_changed(Some((w as usize, h as usize)));
                (drawn.redraw(), None)
            }
            Next::Continued => {
                drawn.screen_changed(None);
                (drawn.redraw(), None)
            }
            Next::Cancelled | Next::Gone => {
                out.write_all(drawn.close().as_bytes())?;
                out.flush()?;
                return Ok(None);
            }
        };
        out.write_all(text.as_bytes())?;
        if decided.is_some() {
            // the help goes once a choice is made
            out.write_all(drawn.settle().as_bytes())?;
        }
        out.flush()?;
        if decided.is_some() {
            return Ok(decided);
        }
    }
}
