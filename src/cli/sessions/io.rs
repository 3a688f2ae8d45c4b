//! What a sessions command works with and hands back: where its output
//! goes, what the terminal is like, and what the caller is to do next.

use crate::cli::exit::Exit;
use crate::cli::sanitize::Sanitizer;
use crate::cli::style::{ColorChoice, Style};
use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;

/// What `claudio sessions` asks of its caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionsOutcome {
    /// Done: exit with this code.
    Done(Exit),
    /// Open the chat on session `id`, with the CLI started in `cwd`.
    Resume { id: String, cwd: PathBuf },
}

/// Where output goes and what the terminal is like (replaced in tests).
pub(super) struct Io {
    pub(super) out: Box<dyn Write + Send>,
    pub(super) err: Box<dyn Write + Send>,
    pub(super) out_style: Style,
    pub(super) err_style: Style,
    /// Stdout is a terminal: cut titles to its width, page long output.
    pub(super) out_tty: bool,
    /// Terminal size (columns, rows), when known.
    pub(super) size: Option<(usize, usize)>,
    /// Where delete confirmations are asked.
    pub(super) tty: PathBuf,
    /// Milliseconds since the epoch, for relative times.
    pub(super) now_ms: i64,
    /// The directory listed by default.
    pub(super) cwd: Option<PathBuf>,
}

impl Io {
    pub(super) fn real(color: ColorChoice) -> Io {
        let out_tty = io::stdout().is_terminal();
        Io {
            // A pipe gets big writes; a terminal sees each line at once.
            out: if out_tty {
                Box::new(io::stdout())
            } else {
                Box::new(io::BufWriter::with_capacity(64 * 1024, io::stdout()))
            },
            err: Box::new(io::stderr()),
            out_style: Style::decide(color, out_tty),
            err_style: Style::for_stderr(color),
            out_tty,
            size: if out_tty { terminal_size() } else { None },
            // a test seam (see approve.rs), not a setting
            tty: std::env::var_os("CLAUDIO_TEST_TTY")
                .map(Into::into)
                .unwrap_or_else(|| "/dev/tty".into()),
            now_ms: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as i64),
            cwd: std::env::current_dir().ok(),
        }
    }

    /// Write an error or notice on stderr, made safe for a terminal.
    pub(super) fn warn(&mut self, msg: &str) {
        let _ = writeln!(self.err, "claudio: {}", Sanitizer::clean(msg));
    }
}

fn terminal_size() -> Option<(usize, usize)> {
    let ws = rustix::termios::tcgetwinsize(std::io::stdout()).ok()?;
    (ws.ws_col > 0).then(|| (ws.ws_col as usize, ws.ws_row.max(1) as usize))
}
