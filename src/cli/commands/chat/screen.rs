//! The chat's screen: where it writes, how it styles, and the renderer
//! (the answer's filler, the live region, the width).

use super::render::Renderer;
use crate::cli::sanitize::Sanitizer;
use crate::cli::term::console::{self, Out};
use crate::cli::term::style::Style;
use crate::cli::term::wrap::wrapped;
use std::io::Write;

/// The chat's screen.
pub(super) struct Screen {
    out: Out,
    style: Style,
    renderer: Renderer,
}

impl Screen {
    /// The terminal's screen, styled so, drawn by `renderer`.
    pub(super) fn new(style: Style, renderer: Renderer) -> Self {
        Screen {
            out: console::out(),
            style,
            renderer,
        }
    }

    pub(super) fn style(&self) -> Style {
        self.style
    }

    pub(super) fn renderer(&self) -> &Renderer {
        &self.renderer
    }

    pub(super) fn renderer_mut(&mut self) -> &mut Renderer {
        &mut self.renderer
    }

    /// Where the chat writes (a notice's bell, a line of its own).
    pub(super) fn out(&mut self) -> &mut Out {
        &mut self.out
    }

    /// The renderer and where it writes, apart: the machine draws with
    /// the one while its text goes to the other.
    pub(super) fn split(&mut self) -> (&mut Renderer, &mut Out) {
        (&mut self.renderer, &mut self.out)
    }

    pub(super) fn write(&mut self, s: &str) {
        if !s.is_empty() {
            let _ = self.out.write_all(s.as_bytes());
            let _ = self.out.flush();
        }
    }

    /// An error: `✗` and its text, each line wrapped under the first.
    pub(super) fn error(&mut self, e: &anyhow::Error) {
        let text = Sanitizer::clean(&format!("{e:#}"));
        let first = format!("  {} ", self.style.red("✗"));
        let width = terminal_width();
        let out: String = text
            .split('\n')
            .enumerate()
            .map(|(i, l)| wrapped(l, width, if i == 0 { &first } else { "    " }, "    "))
            .collect();
        self.write(&out);
    }

    /// A note, each line indented and wrapped.
    pub(super) fn info(&mut self, text: &str) {
        let width = terminal_width();
        let out: String = Sanitizer::clean(text)
            .split('\n')
            .map(|l| wrapped(l, width, "  ", "  "))
            .collect();
        self.write(&out);
    }

    /// Remove the prompt line the line editor left at `prompt` with `line`
    /// typed when a key stopped it.
    pub(super) fn erase_prompt(&mut self, prompt: &str, line: &str) {
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
}

pub(super) fn terminal_width() -> usize {
    console::size().map(|(w, _)| w as usize).unwrap_or(80)
}

/// The terminal's rows (24 when it cannot be asked).
pub(super) fn terminal_height() -> usize {
    console::size()
        .map(|(_, h)| h as usize)
        .ok()
        .filter(|&h| h > 0)
        .unwrap_or(24)
}
