//! Markdown styled while it streams.
//!
//! Text is written as it arrives; styles are switched on and off around the
//! markdown markers, which stay in the text, so what is copied from the
//! terminal is the markdown itself, with no hard wraps added. Only the start
//! of a line is held back until its kind (heading, list, fence) is known,
//! and code inside a fence is written a line at a time, highlighted.

use super::highlight::highlight_line;

const RESET: &str = "\x1b[0m";
const BOLD: &str = "\x1b[1m";
const ITALIC: &str = "\x1b[3m";
const CODE: &str = "\x1b[36m";
const HEADING: &str = "\x1b[1;35m";
const DIM: &str = "\x1b[2m";
const QUOTE: &str = "\x1b[2;3m";

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// At the start of a line: holding it until its kind is known.
    #[default]
    Start,
    /// Text flows straight through, styled inline.
    Flow,
    /// A whole line is collected, then written at its end (fences and code).
    Collect,
}

#[derive(Debug, Default)]
pub struct Markdown {
    color: bool,
    mode: Mode,
    /// The held start of a line, or the collected line.
    held: String,
    /// Inside a fenced code block: the fence's marker and language.
    fence: Option<(String, String)>,
    /// The line's block style (heading, quote), reapplied after inline resets.
    block_style: Option<&'static str>,
    bold: bool,
    italic: bool,
    code: bool,
    /// A `*` or `_` held to see whether it doubles.
    pending_star: Option<char>,
    prev: char,
}

impl Markdown {
    pub fn new(color: bool) -> Self {
        Markdown {
            color,
            prev: '\n',
            ..Default::default()
        }
    }

    /// Feed a chunk of (already sanitized) text; styled text is appended to `out`.
    pub fn push(&mut self, text: &str, out: &mut String) {
        if !self.color {
            out.push_str(text);
            return;
        }
        for c in text.chars() {
            self.char(c, out);
        }
    }

    /// End of the message: flush what is held and reset styles.
    pub fn finish(&mut self, out: &mut String) {
        if !self.color {
            return;
        }
        match self.mode {
            Mode::Start => {
                let held = std::mem::take(&mut self.held);
                self.start_line(held, out);
            }
            Mode::Collect => self.write_collected(out),
            Mode::Flow => {}
        }
        self.flush_star(None, out);
        if self.bold || self.italic || self.code || self.block_style.is_some() {
            out.push_str(RESET);
        }
        *self = Markdown::new(self.color);
    }

    fn char(&mut self, c: char, out: &mut String) {
        match self.mode {
            Mode::Start if c == '\n' => {
                let held = std::mem::take(&mut self.held);
                self.start_line(held, out);
                self.end_line(out);
            }
            Mode::Start => {
                self.held.push(c);
                if self.fence.is_some() {
                    self.mode = Mode::Collect;
                } else if decidable(&self.held) {
                    let held = std::mem::take(&mut self.held);
                    self.start_line(held, out);
                }
            }
            Mode::Collect if c == '\n' => {
                self.write_collected(out);
                self.end_line(out);
            }
            Mode::Collect => self.held.push(c),
            Mode::Flow if c == '\n' => self.end_line(out),
            Mode::Flow => self.inline(c, out),
        }
    }

    /// Write the held start of a line with its block style; go on flowing
    /// (or collecting, for a fence line).
    fn start_line(&mut self, held: String, out: &mut String) {
        self.mode = Mode::Flow;
        let s = held.trim_start_matches(' ');
        let indent = &held[..held.len() - s.len()];
        if s.starts_with("```") || s.starts_with("~~~") {
            self.held = held;
            self.mode = Mode::Collect;
            return;
        }
        if s.starts_with('#') {
            let hashes = s.chars().take_while(|&c| c == '#').count();
            if hashes <= 6 && s[hashes..].starts_with(' ') {
                self.block_style = Some(HEADING);
                out.push_str(HEADING);
                out.push_str(&held);
                self.prev = ' ';
                return;
            }
        }
        if let Some(rest) = s.strip_prefix('>') {
            self.block_style = Some(QUOTE);
            out.push_str(QUOTE);
            out.push_str(indent);
            out.push('>');
            self.prev = '>';
            for c in rest.chars() {
                self.inline(c, out);
            }
            return;
        }
        if let Some(b) = ["- ", "* ", "+ "].into_iter().find(|b| s.starts_with(b)) {
            out.push_str(indent);
            out.push_str(CODE);
            out.push_str(&b[..1]);
            out.push_str(RESET);
            out.push(' ');
            self.prev = ' ';
            for c in s[2..].chars() {
                self.inline(c, out);
            }
            return;
        }
        for c in held.chars() {
            self.inline(c, out);
        }
    }

    /// Write a collected line: a fence line (opening or closing) or code.
    fn write_collected(&mut self, out: &mut String) {
        let line = std::mem::take(&mut self.held);
        let s = line.trim_start_matches(' ');
        let marker: String = s.chars().take_while(|&c| c == '`' || c == '~').collect();
        match &self.fence {
            Some((open, _))
                if marker.len() >= open.len()
                    && marker.starts_with(&open[..1])
                    && s[marker.len()..].trim().is_empty() =>
            {
                self.fence = None;
                out.push_str(DIM);
                out.push_str(&line);
                out.push_str(RESET);
            }
            Some((_, lang)) => out.push_str(&highlight_line(&line, lang)),
            None if marker.len() >= 3 => {
                self.fence = Some((marker.clone(), s[marker.len()..].trim().to_string()));
                out.push_str(DIM);
                out.push_str(&line);
                out.push_str(RESET);
            }
            None => out.push_str(&line),
        }
    }

    fn end_line(&mut self, out: &mut String) {
        self.flush_star(None, out);
        if self.bold || self.italic || self.code || self.block_style.is_some() {
            out.push_str(RESET);
        }
        self.bold = false;
        self.italic = false;
        self.code = false;
        self.block_style = None;
        out.push('\n');
        self.mode = Mode::Start;
        self.prev = '\n';
    }

    fn restyle(&self, out: &mut String) {
        out.push_str(RESET);
        if let Some(b) = self.block_style {
            out.push_str(b);
        }
        if self.bold {
            out.push_str(BOLD);
        }
        if self.italic {
            out.push_str(ITALIC);
        }
        if self.code {
            out.push_str(CODE);
        }
    }

    fn flush_star(&mut self, next: Option<char>, out: &mut String) {
        let Some(star) = self.pending_star.take() else {
            return;
        };
        let prev = self.prev;
        let opens = !prev.is_alphanumeric() && next.is_some_and(|n| !n.is_whitespace());
        let closes = !prev.is_whitespace();
        if self.italic && closes {
            out.push(star);
            self.italic = false;
            self.restyle(out);
        } else if !self.italic && opens && star == '*' {
            self.italic = true;
            self.restyle(out);
            out.push(star);
        } else {
            out.push(star);
        }
        self.prev = star;
    }

    fn inline(&mut self, c: char, out: &mut String) {
        if self.code {
            out.push(c);
            if c == '`' {
                self.code = false;
                self.restyle(out);
            }
            self.prev = c;
            return;
        }
        if let Some(star) = self.pending_star {
            if c == star {
                // `**` or `__`: bold toggles
                self.pending_star = None;
                if self.bold {
                    out.push(c);
                    out.push(c);
                    self.bold = false;
                    self.restyle(out);
                } else {
                    self.bold = true;
                    self.restyle(out);
                    out.push(c);
                    out.push(c);
                }
                self.prev = c;
                return;
            }
            self.flush_star(Some(c), out);
        }
        match c {
            '*' | '_' => self.pending_star = Some(c),
            '`' => {
                self.code = true;
                self.restyle(out);
                out.push(c);
                self.prev = c;
            }
            _ => {
                out.push(c);
                self.prev = c;
            }
        }
    }
}

/// Whether the held start of a line is enough to know the line's kind.
fn decidable(held: &str) -> bool {
    let s = held.trim_start_matches(' ');
    if held.len() - s.len() >= 4 {
        return true;
    }
    let Some(first) = s.chars().next() else {
        return false;
    };
    let run = s.chars().take_while(|&c| c == first).count();
    match first {
        '#' => run < s.chars().count() || run > 6,
        '`' | '~' => run < s.chars().count() || run >= 3,
        '-' | '*' | '+' => s.chars().count() >= 2,
        _ => true,
    }
}

/// Strip SGR sequences (our own styling) from text.
pub fn strip_sgr(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if c == '\x1b' && it.peek() == Some(&'[') {
            for d in it.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(chunks: &[&str]) -> String {
        let mut m = Markdown::new(true);
        let mut out = String::new();
        for c in chunks {
            m.push(c, &mut out);
        }
        m.finish(&mut out);
        out
    }

    fn split_every_char(s: &str) -> Vec<String> {
        s.chars().map(|c| c.to_string()).collect()
    }

    const DOC: &str = "# Title\n\nSome **bold** and `code` and *it* here.\n- item one\n- item two\n\n```rust\nfn main() { let x = 1; }\n```\n> quoted\n2 * 3 = 6\n";

    #[test]
    fn text_is_kept_exactly_once_styles_aside() {
        assert_eq!(strip_sgr(&render(&[DOC])), DOC);
        let parts = split_every_char(DOC);
        let refs: Vec<&str> = parts.iter().map(String::as_str).collect();
        assert_eq!(strip_sgr(&render(&refs)), DOC, "split per character");
    }

    #[test]
    fn split_points_do_not_change_the_result() {
        let whole = render(&[DOC]);
        for cut in 1..DOC.len() {
            if !DOC.is_char_boundary(cut) {
                continue;
            }
            let (a, b) = DOC.split_at(cut);
            assert_eq!(strip_sgr(&render(&[a, b])), DOC, "cut at {cut}");
            let styled = render(&[a, b]);
            assert_eq!(styled, whole, "styles differ when cut at {cut}");
        }
    }

    #[test]
    fn styles_are_applied() {
        let out = render(&["# Title\nSome **bold** and `code`.\n"]);
        assert!(out.contains("\x1b[1;35m# Title"), "{out:?}");
        assert!(out.contains(&format!("{BOLD}**bold**")), "{out:?}");
        assert!(out.contains(&format!("{CODE}`code`")), "{out:?}");
        let code = render(&["```rust\nlet x = \"s\";\n```\n"]);
        assert!(code.contains("let"), "{code:?}");
        assert_ne!(strip_sgr(&code), code, "code is highlighted");
    }

    #[test]
    fn plain_when_color_is_off() {
        let mut m = Markdown::new(false);
        let mut out = String::new();
        m.push(DOC, &mut out);
        m.finish(&mut out);
        assert_eq!(out, DOC);
    }

    #[test]
    fn unterminated_markers_reset_at_line_end() {
        let out = render(&["**never closed\nnext line\n"]);
        let second = out.split('\n').nth(1).unwrap();
        assert_eq!(second, "next line");
    }
}
