//! The live region under the answer: a spinner row per running tool and
//! agent, the task list, the turn's status line and the lines typed ahead.
//!
//! The region is drawn by the renderer's own hand, as terminal text handed
//! to the chat with the rest of its output: so it is only ever drawn where
//! the renderer allows it (never inside a streamed line), ticked by the
//! chat's own timer, and a pure function of the renderer's clock (the
//! spinner frame and the elapsed time come from a line's milliseconds).
//!
//! What it writes is bounded by the region, never by what it stands for:
//! each row is cut to the width (as the terminal counts it: see
//! [`fit_row`]), the renderer folds the region to fit the screen, and a
//! change rewrites the rows from the first that changed only (a new call
//! under a folded list rewrites the fold's count, not every row).

use crate::cli::term::spinner::frame;
use crate::cli::term::style::Style;
use crate::cli::term::wrap::fit_row;

/// One line of the region.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LiveLine {
    /// A spinner: `{indent}{frame} {text}  {elapsed}`, its frame and time
    /// from `ms`, the milliseconds since it started.
    Spinner {
        key: String,
        indent: String,
        text: String,
        ms: u64,
    },
    /// A line as it is (the prompts typed ahead).
    Plain { key: String, text: String },
}

/// The columns the elapsed time takes after a spinner's text (`  12.3s`).
pub const TIME_COLUMNS: usize = 8;

/// The rows on the screen, as drawn.
pub struct Live {
    style: Style,
    width: usize,
    /// The rows drawn (none: the region is not on the screen). The cursor
    /// is at the end of the last one.
    drawn: Vec<String>,
}

impl Live {
    pub fn new(style: Style, width: usize) -> Live {
        let mut live = Live {
            style,
            width: 1,
            drawn: Vec::new(),
        };
        live.set_width(width);
        live
    }

    pub fn set_width(&mut self, width: usize) {
        self.width = width.max(1);
    }

    /// How many rows the region takes.
    pub fn rows(&self) -> usize {
        self.drawn.len()
    }

    /// The rows the region takes once a terminal that re-wraps its rows
    /// is `width` columns wide (each drawn row fits the width it was
    /// drawn at; a narrower terminal wraps the longer ones).
    pub fn rows_at(&self, width: usize) -> usize {
        self.drawn
            .iter()
            .map(|r| crate::cli::term::wrap::terminal_rows(r, width))
            .sum()
    }

    /// Show `lines` where the cursor is (at the start of a row), the
    /// region not being on the screen; returns what to write. The cursor
    /// ends at the end of the last row.
    pub fn draw(&mut self, lines: Vec<LiveLine>) -> String {
        // (a region still on the screen goes first)
        let mut out = self.clear();
        self.drawn = lines.iter().map(|l| self.row(l)).collect();
        out.push_str(&self.drawn.join("\r\n"));
        out
    }

    /// Show `lines` in place of the region on the screen, rewriting from
    /// the first row that changed; returns what to write, `None` when no
    /// row changed (nothing to write, the cursor stays). The cursor is at
    /// the end of the region's last row, or (`above`) on the row above its
    /// first; it ends at the end of the new last row. Both the region and
    /// `lines` have rows (else [`Live::clear`] and [`Live::draw`]).
    pub fn update(&mut self, lines: Vec<LiveLine>, above: bool) -> Option<String> {
        let new: Vec<String> = lines.iter().map(|l| self.row(l)).collect();
        if self.drawn.is_empty() || new.is_empty() {
            return None;
        }
        let old = &self.drawn;
        let same = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
        if same == old.len() && same == new.len() {
            return None;
        }
        // the first row rewritten: one on the screen now and still there
        let first = same.min(old.len() - 1).min(new.len() - 1);
        let mut out = String::new();
        if above {
            out.push_str(&format!("\x1b[{}B", first + 1));
        } else if old.len() - 1 > first {
            out.push_str(&format!("\x1b[{}A", old.len() - 1 - first));
        }
        out.push_str("\r\x1b[J");
        out.push_str(&new[first..].join("\r\n"));
        self.drawn = new;
        Some(out)
    }

    /// Erase the region (the cursor ends at the start of its first row,
    /// where it began); returns what to write.
    pub fn clear(&mut self) -> String {
        let rows = std::mem::take(&mut self.drawn).len();
        match rows {
            0 => String::new(),
            1 => "\r\x1b[J".to_owned(),
            n => format!("\x1b[{}A\r\x1b[J", n - 1),
        }
    }

    /// Forget the region without erasing it (the screen moved on: the
    /// process was stopped and continued, or the terminal was resized).
    pub fn forget(&mut self) {
        self.drawn.clear();
    }

    /// A line as its row is drawn, within the width.
    fn row(&self, line: &LiveLine) -> String {
        let s = self.style;
        let text = match line {
            LiveLine::Spinner {
                indent, text, ms, ..
            } => {
                let secs = format!("{:.1}s", *ms as f64 / 1000.0);
                format!(
                    "{indent}{} {text}  {}",
                    s.cyan(&frame(*ms).to_string()),
                    s.dim(&secs)
                )
            }
            LiveLine::Plain { text, .. } => text.clone(),
        };
        fit_row(&text, self.width)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spin(key: &str, text: &str, ms: u64) -> LiveLine {
        LiveLine::Spinner {
            key: key.into(),
            indent: "  ".into(),
            text: text.into(),
            ms,
        }
    }

    /// The screen after writing `out` on a terminal 40 columns wide.
    fn screen(parser: &mut Vec<u8>, out: &str) -> String {
        parser.extend_from_slice(out.as_bytes());
        let mut p = vt100::Parser::new(10, 40, 0);
        p.process(parser);
        p.screen().contents()
    }

    #[test]
    fn spinners_tick_from_the_clock_and_the_region_is_redrawn_in_place() {
        let mut live = Live::new(Style::plain(), 40);
        let mut bytes = Vec::new();
        let s = screen(&mut bytes, "answer\r\n");
        assert_eq!(s.trim_end(), "answer");
        let out = live.draw(vec![spin("a", "Bash  ls", 0), spin("b", "Read  x", 1200)]);
        let s = screen(&mut bytes, &out);
        assert!(s.contains("  ⠋ Bash  ls  0.0s"), "{s}");
        assert!(s.contains("  ⠴ Read  x  1.2s"), "{s}");
        let out = live.draw(vec![spin("a", "Bash  ls", 90), spin("b", "Read  x", 1290)]);
        let s = screen(&mut bytes, &out);
        assert!(s.contains("  ⠙ Bash  ls  0.1s"), "{s}");
        assert_eq!(s.matches("Bash").count(), 1, "{s}");
        // one bar goes: the region shrinks, nothing of it is left
        let out = live.draw(vec![spin("b", "Read  x", 1400)]);
        let s = screen(&mut bytes, &out);
        assert!(!s.contains("Bash"), "{s}");
        assert!(s.contains("Read  x  1.4s"), "{s}");
        let out = live.clear();
        let s = screen(&mut bytes, &out);
        assert_eq!(s.trim_end(), "answer");
        assert_eq!(live.rows(), 0);
    }

    #[test]
    fn no_color_draws_no_escape_but_cursor_moves() {
        let mut live = Live::new(Style::plain(), 30);
        let out = live.draw(vec![
            spin("a", "Bash  ls", 0),
            LiveLine::Plain {
                key: "f".into(),
                text: "› next".into(),
            },
        ]);
        assert!(!out.contains("\x1b[3"), "{out:?}");
        assert!(!out.contains("\x1b[2m"), "{out:?}");
    }
}
