//! What a sessions command works with and hands back: where its output
//! goes, what the terminal is like, and what the caller is to do next.

use crate::cli::common::exit::Exit;
use crate::cli::sanitize::Sanitizer;
use crate::cli::term::style::{ColorChoice, Style};
use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;

/// What a sessions command prints: `-o FORMAT` on `list`, `search`,
/// `usage`, `inspect` and `archive`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Output {
    // for people: a table or text (tab-separated when piped)
    #[default]
    Text,
    // one JSON document: a listing is one array
    Json,
    // one compact JSON object per line, written as found
    Ndjson,
}

impl Output {
    /// `-o`, or what the old `--json` printed (`old`) when it was given.
    pub fn or_old_json(self, json: bool, old: Output) -> Output {
        if json {
            old
        } else {
            self
        }
    }

    /// JSON of either shape.
    pub fn is_json(self) -> bool {
        self != Output::Text
    }
}

/// What `claudio sessions` asks of its caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionsOutcome {
    /// Done: exit with this code.
    Done(Exit),
    /// Open the chat (`tui`: the claude TUI) on session `id`, with the CLI
    /// started in `cwd`.
    Resume { id: String, cwd: PathBuf, tui: bool },
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
            // a test seam (see requests/tty.rs), not a setting
            tty: std::env::var_os("CLAUDIO_TEST_TTY")
                .map(Into::into)
                .unwrap_or_else(|| "/dev/tty".into()),
            now_ms: crate::cli::term::time::now_ms(),
            cwd: std::env::current_dir().ok(),
        }
    }

    /// Write an error or notice on stderr, made safe for a terminal.
    pub(super) fn warn(&mut self, msg: &str) {
        let _ = writeln!(self.err, "claudio: {}", Sanitizer::clean(msg));
    }

    /// Write JSON text to stdout. On a terminal, the characters a terminal
    /// acts on that JSON leaves raw (C1 controls, bidi overrides; in JSON
    /// text they can only be inside strings) are written as `\u` escapes:
    /// the same value, nothing for the terminal to act on. Elsewhere, the
    /// bytes as they are.
    pub(super) fn write_json(&mut self, text: &str) -> io::Result<()> {
        if !self.out_tty {
            return self.out.write_all(text.as_bytes());
        }
        self.out.write_all(json_for_terminal(text).as_bytes())
    }

    /// Name the files left out (the first few, then how many more).
    pub(super) fn warn_skipped(&mut self, skipped: &[claudio::store::Skipped]) {
        const SHOWN: usize = 5;
        for s in skipped.iter().take(SHOWN) {
            let msg = format!(
                "skipped {}: {}",
                crate::cli::common::folder::shown(&s.path),
                s.reason
            );
            self.warn(&msg);
        }
        if skipped.len() > SHOWN {
            let msg = format!(
                "skipped {} more unreadable transcripts",
                skipped.len() - SHOWN
            );
            self.warn(&msg);
        }
    }
}

/// JSON rows written as they come: `-o json` makes them one array (an
/// element a line, `[]` for none), `-o ndjson` one object a line.
pub(super) struct JsonRows {
    array: bool,
    written: usize,
}

impl JsonRows {
    pub(super) fn new(output: Output) -> JsonRows {
        JsonRows {
            array: output == Output::Json,
            written: 0,
        }
    }

    /// One row: its JSON text, on one line.
    pub(super) fn push(&mut self, io: &mut Io, row: &str) -> io::Result<()> {
        if self.array {
            io.write_json(if self.written == 0 { "[\n" } else { ",\n" })?;
            io.write_json(row)?;
        } else {
            io.write_json(row)?;
            io.write_json("\n")?;
        }
        self.written += 1;
        Ok(())
    }

    /// The array's end (nothing more for NDJSON).
    pub(super) fn finish(self, io: &mut Io) -> io::Result<()> {
        match (self.array, self.written) {
            (false, _) => Ok(()),
            (true, 0) => io.write_json("[]\n"),
            (true, _) => io.write_json("\n]\n"),
        }
    }

    /// Every row of `rows`, then the end.
    pub(super) fn write_all<T: serde::Serialize>(
        output: Output,
        io: &mut Io,
        rows: &[T],
    ) -> anyhow::Result<()> {
        let mut w = JsonRows::new(output);
        for r in rows {
            w.push(io, &serde_json::to_string(r)?)?;
        }
        w.finish(io)?;
        Ok(())
    }
}

/// [`Io::write_json`]'s escaping.
pub(super) fn json_for_terminal(text: &str) -> std::borrow::Cow<'_, str> {
    let acts = |c: char| matches!(c, '\u{7f}'..='\u{9f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
    if !text.contains(acts) {
        return text.into();
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if acts(c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out.into()
}

fn terminal_size() -> Option<(usize, usize)> {
    let ws = rustix::termios::tcgetwinsize(std::io::stdout()).ok()?;
    (ws.ws_col > 0).then(|| (ws.ws_col as usize, ws.ws_row.max(1) as usize))
}
