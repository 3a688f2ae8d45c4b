//! Where the chat draws: the process's terminal (standard output, its size
//! asked of the tty), or a screen a test holds (its bytes and its size
//! given), for the thread that draws. The chat asks here, never the tty
//! itself, for where to write, how big the screen is, and whether it is a
//! terminal: so a whole screen of the chat is drawn in-process, from its
//! machine and its renderer into a virtual terminal, and compared.
//!
//! Without a test's screen every answer is the terminal's, as before.

use std::cell::RefCell;
use std::io::{self, IsTerminal, Write};
use std::sync::{Arc, Mutex};

/// A test's screen: what is written goes to `out`; its size is `size`
/// (columns, rows), which the test may change (a resize).
#[derive(Clone)]
pub struct Virtual {
    pub out: Arc<Mutex<dyn Write + Send>>,
    pub size: Arc<Mutex<(u16, u16)>>,
}

thread_local! {
    static VIRTUAL: RefCell<Option<Virtual>> = const { RefCell::new(None) };
}

/// `f`, drawing on `screen` (this thread only), then the terminal again.
#[cfg(test)]
pub fn drawing_on<T>(screen: Virtual, f: impl FnOnce() -> T) -> T {
    struct Back;
    impl Drop for Back {
        fn drop(&mut self) {
            VIRTUAL.with(|v| v.borrow_mut().take());
        }
    }
    VIRTUAL.with(|v| *v.borrow_mut() = Some(screen));
    let _back = Back;
    f()
}

fn screen() -> Option<Virtual> {
    VIRTUAL.with(|v| v.borrow().clone())
}

/// Where the chat writes: standard output, or the test's screen.
pub struct Out(Option<Virtual>);

/// Where the chat writes ([`Out`]).
pub fn out() -> Out {
    Out(screen())
}

impl Write for Out {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &self.0 {
            Some(v) => v
                .out
                .lock()
                .map_err(|_| io::Error::other("the screen's lock"))?
                .write(buf),
            None => io::stdout().write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match &self.0 {
            Some(v) => v
                .out
                .lock()
                .map_err(|_| io::Error::other("the screen's lock"))?
                .write_all(buf),
            None => io::stdout().write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &self.0 {
            Some(v) => v
                .out
                .lock()
                .map_err(|_| io::Error::other("the screen's lock"))?
                .flush(),
            None => io::stdout().flush(),
        }
    }
}

/// The screen's size, columns and rows (the terminal's, asked).
pub fn size() -> io::Result<(u16, u16)> {
    match screen() {
        Some(v) => Ok(*v.size.lock().map_err(|_| io::Error::other("the size"))?),
        None => crossterm::terminal::size(),
    }
}

/// Whether the terminal re-wraps its rows when its width changes (tmux,
/// VTE, kitty, iTerm2, WezTerm, Windows Terminal, Alacritty, foot,
/// ghostty, VS Code): a row wider than the new width then takes more
/// rows, and one that was wrapped joins up again. Terminals not known to
/// (xterm, the Linux console, a test's screen) cut rows instead. What was
/// drawn is erased by the rows it takes now, so a wrong guess either
/// leaves rows of it behind (taken for one that cuts) or erases rows above
/// it (taken for one that re-wraps): only terminals known to re-wrap are.
pub fn reflows() -> bool {
    static REFLOWS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    screen().is_none() && *REFLOWS.get_or_init(|| reflows_in(|name| std::env::var(name).ok()))
}

/// [`reflows`], from an environment's variables as `var` gives them.
pub fn reflows_in(var: impl Fn(&str) -> Option<String>) -> bool {
    let set = |name: &str| var(name).is_some_and(|v| !v.is_empty());
    // a multiplexer is the terminal its programs draw on
    if set("TMUX") {
        return true;
    }
    if set("STY") {
        return false; // GNU screen cuts
    }
    let term = var("TERM").unwrap_or_default();
    let program = var("TERM_PROGRAM").unwrap_or_default();
    [
        "VTE_VERSION",
        "KITTY_WINDOW_ID",
        "WT_SESSION",
        "ALACRITTY_WINDOW_ID",
        "WEZTERM_PANE",
    ]
    .iter()
    .any(|v| set(v))
        || [
            "iTerm.app",
            "WezTerm",
            "vscode",
            "ghostty",
            "Apple_Terminal",
            "tmux",
        ]
        .contains(&program.as_str())
        || [
            "xterm-kitty",
            "xterm-ghostty",
            "alacritty",
            "foot",
            "wezterm",
            "tmux",
        ]
        .iter()
        .any(|t| term.starts_with(t))
}

/// Whether the chat writes to a terminal (a test's screen is one).
pub fn output_is_terminal() -> bool {
    screen().is_some() || io::stdout().is_terminal()
}

/// Whether the chat's input is a terminal (a test's screen has its keys).
pub fn input_is_terminal() -> bool {
    screen().is_some() || io::stdin().is_terminal()
}

/// The terminal in crossterm's raw mode (a test's screen has no mode: its
/// keys are single keys already).
pub fn enable_raw_mode() -> io::Result<()> {
    match screen() {
        Some(_) => Ok(()),
        None => crossterm::terminal::enable_raw_mode(),
    }
}

/// The terminal out of crossterm's raw mode ([`enable_raw_mode`]).
pub fn disable_raw_mode() -> io::Result<()> {
    match screen() {
        Some(_) => Ok(()),
        None => crossterm::terminal::disable_raw_mode(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Terminals known to re-wrap rows are; xterm, the console and GNU
    /// screen are not, and a screen inside tmux is tmux's.
    #[test]
    fn the_terminals_known_to_re_wrap_their_rows() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| v.to_string())
            }
        };
        assert!(reflows_in(env(&[
            ("TMUX", "/tmp/tmux-0/default,1,0"),
            ("TERM", "screen")
        ])));
        assert!(reflows_in(env(&[
            ("VTE_VERSION", "7600"),
            ("TERM", "xterm-256color")
        ])));
        assert!(reflows_in(env(&[("TERM", "xterm-kitty")])));
        assert!(reflows_in(env(&[("TERM_PROGRAM", "iTerm.app")])));
        assert!(reflows_in(env(&[("WT_SESSION", "a-b-c")])));
        assert!(!reflows_in(env(&[("TERM", "xterm-256color")])));
        assert!(!reflows_in(env(&[("TERM", "linux")])));
        assert!(!reflows_in(env(&[
            ("STY", "1.pts-0"),
            ("TERM", "screen"),
            ("VTE_VERSION", "7600")
        ])));
        assert!(!reflows_in(env(&[("TMUX", ""), ("TERM", "xterm")])));
        assert!(!reflows_in(env(&[])));
    }
}
