//! The live region under the answer: a spinner bar per running tool and
//! agent, and the lines typed ahead, drawn by indicatif.
//!
//! The bars live in a [`MultiProgress`] whose draw target is not the
//! terminal but a buffer ([`ProgressDrawTarget::term_like`]): indicatif lays
//! the region out, moves over it and clears it, and the renderer hands what
//! it drew to the chat with the rest of its output. So the region is only
//! ever drawn where the renderer allows it (never inside a streamed line),
//! and it is ticked by the chat's own timer: no drawing thread.
//!
//! Drawing stays a pure function of the renderer's clock: the spinner frame
//! and the elapsed time are computed from a bar's position, which the
//! renderer sets to the milliseconds since the tool started.

use crate::cli::spinner::timed_style;
use crate::cli::style::Style;
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use std::io;
use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::{Arc, Mutex};

/// One line of the region.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
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

impl Line {
    fn key(&self) -> &str {
        match self {
            Line::Spinner { key, .. } | Line::Plain { key, .. } => key,
        }
    }
}

/// The columns the elapsed time takes after a spinner's text (`  12.3s`).
pub const TIME_COLUMNS: usize = 8;

/// What indicatif draws on: the renderer's output.
#[derive(Debug, Default)]
struct Buffer {
    out: Mutex<String>,
    width: AtomicU16,
}

#[derive(Debug, Clone, Default)]
struct Target(Arc<Buffer>);

impl Target {
    fn push(&self, s: &str) {
        self.0
            .out
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push_str(s);
    }

    fn take(&self) -> String {
        std::mem::take(&mut *self.0.out.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

impl indicatif::TermLike for Target {
    fn width(&self) -> u16 {
        self.0.width.load(Ordering::Relaxed)
    }

    fn height(&self) -> u16 {
        // the renderer keeps the region small; never cut it short
        u16::MAX
    }

    fn move_cursor_up(&self, n: usize) -> io::Result<()> {
        if n > 0 {
            self.push(&format!("\x1b[{n}A"));
        }
        Ok(())
    }

    fn move_cursor_down(&self, n: usize) -> io::Result<()> {
        if n > 0 {
            self.push(&format!("\x1b[{n}B"));
        }
        Ok(())
    }

    fn move_cursor_right(&self, n: usize) -> io::Result<()> {
        if n > 0 {
            self.push(&format!("\x1b[{n}C"));
        }
        Ok(())
    }

    fn move_cursor_left(&self, n: usize) -> io::Result<()> {
        if n > 0 {
            self.push(&format!("\x1b[{n}D"));
        }
        Ok(())
    }

    fn write_line(&self, s: &str) -> io::Result<()> {
        self.push(s);
        self.push("\n");
        Ok(())
    }

    fn write_str(&self, s: &str) -> io::Result<()> {
        self.push(s);
        Ok(())
    }

    fn clear_line(&self) -> io::Result<()> {
        self.push("\r\x1b[2K");
        Ok(())
    }

    fn flush(&self) -> io::Result<()> {
        Ok(())
    }
}

/// The bars, and the lines they show.
pub struct Live {
    multi: MultiProgress,
    target: Target,
    bars: Vec<(Line, ProgressBar)>,
    spinner: ProgressStyle,
    plain: ProgressStyle,
}

impl Live {
    pub fn new(style: Style, width: usize) -> Live {
        let target = Target::default();
        let multi = MultiProgress::with_draw_target(ProgressDrawTarget::term_like(Box::new(
            target.clone(),
        )));
        let live = Live {
            multi,
            target,
            bars: Vec::new(),
            spinner: spinner_style(style),
            plain: ProgressStyle::with_template("{msg}").expect("a valid template"),
        };
        live.set_width(width);
        live
    }

    pub fn set_width(&self, width: usize) {
        let w = width.clamp(1, u16::MAX as usize) as u16;
        self.target.0.width.store(w, Ordering::Relaxed);
    }

    /// How many rows the region takes.
    pub fn rows(&self) -> usize {
        self.bars.len()
    }

    /// Show `lines`, in place of what the region showed; returns what to
    /// write.
    pub fn draw(&mut self, lines: Vec<Line>) -> String {
        let same = self.bars.len() == lines.len()
            && self
                .bars
                .iter()
                .zip(&lines)
                .all(|((l, _), n)| l.key() == n.key());
        if !same {
            // other bars: indicatif clears the old region as it draws anew
            for (_, bar) in self.bars.drain(..) {
                self.multi.remove(&bar);
            }
            for line in lines {
                // made whole before it joins: one draw each
                let bar = match &line {
                    Line::Spinner {
                        indent, text, ms, ..
                    } => ProgressBar::new_spinner()
                        .with_style(self.spinner.clone())
                        .with_prefix(indent.clone())
                        .with_message(text.clone())
                        .with_position(*ms),
                    Line::Plain { text, .. } => ProgressBar::new_spinner()
                        .with_style(self.plain.clone())
                        .with_message(text.clone()),
                };
                let bar = self.multi.add(bar);
                bar.tick();
                self.bars.push((line, bar));
            }
        } else {
            for ((old, bar), new) in self.bars.iter_mut().zip(lines) {
                set(bar, &new, Some(old));
                *old = new;
            }
        }
        self.target.take()
    }

    /// Erase the region (the cursor ends where it began); returns what to
    /// write.
    pub fn clear(&mut self) -> String {
        let _ = self.multi.clear();
        for (_, bar) in self.bars.drain(..) {
            self.multi.remove(&bar);
        }
        self.target.take()
    }

    /// Forget the region without erasing it (the screen moved on: the
    /// process was stopped and continued, or the terminal was resized).
    pub fn forget(&mut self) {
        // a fresh target knows of no lines on the screen
        self.multi
            .set_draw_target(ProgressDrawTarget::term_like(Box::new(self.target.clone())));
        for (_, bar) in self.bars.drain(..) {
            self.multi.remove(&bar);
        }
        self.target.take();
    }
}

/// Bring one bar up to `new`: one draw per bar.
fn set(bar: &ProgressBar, new: &Line, old: Option<&Line>) {
    match new {
        Line::Spinner {
            indent, text, ms, ..
        } => {
            let (old_indent, old_text) = match old {
                Some(Line::Spinner { indent, text, .. }) => (Some(indent), Some(text)),
                _ => (None, None),
            };
            if old_indent != Some(indent) {
                bar.set_prefix(indent.clone());
            }
            if old_text != Some(text) {
                bar.set_message(text.clone());
            }
            let ms = *ms;
            bar.update(|s| s.set_pos(ms));
        }
        Line::Plain { text, .. } => {
            if !matches!(old, Some(Line::Plain { text: t, .. }) if t == text) {
                bar.set_message(text.clone());
            }
        }
    }
}

/// `{indent}{frame} {text}  {secs}`: the frame cyan, the time dim.
fn spinner_style(style: Style) -> ProgressStyle {
    // the position is the milliseconds since the tool started
    timed_style("{prefix}{frame} {msg}  {secs}", style, ProgressState::pos)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spin(key: &str, text: &str, ms: u64) -> Line {
        Line::Spinner {
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
            Line::Plain {
                key: "f".into(),
                text: "› next".into(),
            },
        ]);
        assert!(!out.contains("\x1b[3"), "{out:?}");
        assert!(!out.contains("\x1b[2m"), "{out:?}");
    }
}
