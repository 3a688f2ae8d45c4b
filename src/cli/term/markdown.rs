//! Markdown styled while it streams.
//!
//! Text is written as it arrives; styles are switched on and off around the
//! markdown markers, which stay in the text, so what is copied from the
//! terminal is the markdown itself, with no hard wraps added. Only the start
//! of a line is held back until its kind (heading, list, fence) is known,
//! and code inside a fence is written a line at a time, highlighted.
//!
//! Given a width ([`Markdown::set_width`], the chat on a terminal), the text
//! is also filled to it ([`Filler`]): lines break between words, under
//! their indent; code lines are left whole (the terminal wraps them, so
//! code copied from the screen gains no indent). A table (a header row, a
//! `|---|` row, then rows) is held until its first non-table line and
//! drawn as aligned columns that fit the width (cells wrapped when they
//! must); too narrow for its columns, its rows are shown as text.
//!
//! Given a margin ([`Markdown::set_margin`], the chat's answers), every
//! row starts with it, code and tables included, and the width is the
//! row's whole: the text fills what the margin leaves.

use super::highlight::highlight_line;
use super::wrap::{strip_sgr, visible_width, Filler, RAW_LINE};

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
    /// A table's row is collected (filled text only).
    Row,
}

/// The most rows, and bytes, of a table held to align it (an answer's
/// table that never ends must not hold the whole answer).
const MAX_TABLE_ROWS: usize = 200;
const MAX_TABLE_BYTES: usize = 64 << 10;

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
    /// Filling to a width (the chat on a terminal).
    fill: Option<Filler>,
    /// A table's rows, held until the table ends.
    table: Vec<String>,
    /// Rows that made no table, written as text (not read as rows again).
    replaying: bool,
    /// What every row starts with (the chat's answer is indented).
    margin: String,
}

impl Markdown {
    pub fn new(color: bool) -> Self {
        Markdown {
            color,
            prev: '\n',
            ..Default::default()
        }
    }

    /// Fill the text to `width` columns (none: lines are left as they are).
    /// Read as each word is placed, so a resize applies from the next word.
    pub fn set_width(&mut self, width: Option<usize>) {
        match (&mut self.fill, width) {
            (Some(f), w) => f.set_width(w),
            (None, Some(w)) => self.fill = Some(Filler::new(Some(w), &self.margin)),
            (None, None) if !self.margin.is_empty() => {
                self.fill = Some(Filler::new(None, &self.margin))
            }
            (None, None) => {}
        }
    }

    /// Start every row with `margin` (set before any text, with the
    /// width after it: [`Markdown::set_width`], `None` too).
    pub fn set_margin(&mut self, margin: &str) {
        self.margin = margin.to_owned();
    }

    /// Nothing of the answer is written on the terminal's current row
    /// (`None` when not filling: the caller knows from the text).
    pub fn at_row_start(&self) -> Option<bool> {
        self.fill.as_ref().map(Filler::at_row_start)
    }

    /// Something else was written and ended its line: the answer goes on
    /// at the start of a row.
    pub fn new_row(&mut self) {
        if let Some(f) = &mut self.fill {
            f.new_row();
        }
    }

    /// Something else wrote after the answer's half-written row: it goes
    /// on at the start of a row, under its indent
    /// ([`Filler::broken_elsewhere`]).
    pub fn broken_elsewhere(&mut self) {
        if let Some(f) = &mut self.fill {
            f.broken_elsewhere();
        }
    }

    /// Where the cursor is on the answer's current row, and the colours
    /// open there (`None` when not filling).
    pub fn row(&self) -> Option<(usize, &str)> {
        self.fill.as_ref().map(Filler::row)
    }

    /// Part of a word is held by the filler.
    pub fn holds_word(&self) -> bool {
        self.fill.as_ref().is_some_and(Filler::holds_word)
    }

    /// The text paused inside a word: show what came of it (see
    /// [`Filler::show_held`]).
    pub fn show_held(&mut self, out: &mut String) {
        if let Some(f) = &mut self.fill {
            f.show_held(out);
        }
    }

    /// Feed a chunk of (already sanitized) text; styled text is appended to `out`.
    pub fn push(&mut self, text: &str, out: &mut String) {
        if self.fill.is_none() {
            if !self.color {
                out.push_str(text);
                return;
            }
            for c in text.chars() {
                self.char(c, out);
            }
            return;
        }
        let mut styled = String::new();
        for c in text.chars() {
            self.char(c, &mut styled);
        }
        self.fill_out(&styled, out);
    }

    /// Styled text through the filler (colours dropped when off).
    fn fill_out(&mut self, styled: &str, out: &mut String) {
        let Some(fill) = &mut self.fill else {
            out.push_str(styled);
            return;
        };
        if self.color {
            fill.push(styled, out);
        } else {
            fill.push(&strip_sgr(styled), out);
        }
    }

    /// End of the message: flush what is held and reset styles.
    pub fn finish(&mut self, out: &mut String) {
        if !self.color && self.fill.is_none() {
            return;
        }
        let mut styled = String::new();
        match self.mode {
            Mode::Start => {
                let held = std::mem::take(&mut self.held);
                self.flush_table(&mut styled);
                self.start_line(held, &mut styled);
            }
            Mode::Collect => self.write_collected(&mut styled),
            Mode::Row => {
                let row = std::mem::take(&mut self.held);
                self.table_row(row, &mut styled);
                self.flush_table(&mut styled);
            }
            Mode::Flow => {}
        }
        self.flush_star(None, &mut styled);
        if self.bold || self.italic || self.code || self.block_style.is_some() {
            styled.push_str(RESET);
        }
        self.fill_out(&styled, out);
        let fill = self.fill.take().map(|mut f| {
            f.finish(out);
            f
        });
        let margin = std::mem::take(&mut self.margin);
        *self = Markdown::new(self.color);
        self.fill = fill;
        self.margin = margin;
    }

    /// A table's row has ended: held with the table's others. A first row
    /// not followed by a `|---|` row was no table's header: it is text.
    fn table_row(&mut self, row: String, out: &mut String) {
        self.table.push(row);
        if self.table.len() == 2 && !is_separator(&self.table[1]) {
            let first = self.table.remove(0);
            self.replay(&[first], out);
        }
        // a table is held to align it, but not without bound: past this
        // the rows held are drawn, and what comes after is text
        let held: usize = self.table.iter().map(String::len).sum();
        if self.table.len() >= MAX_TABLE_ROWS || held >= MAX_TABLE_BYTES {
            self.flush_table(out);
        }
    }

    /// A line that is no table's row: the table held so far is drawn.
    fn flush_table(&mut self, out: &mut String) {
        if self.replaying || self.table.is_empty() {
            return;
        }
        let rows = std::mem::take(&mut self.table);
        let drawn = match (rows.len() >= 2, self.fill.as_ref().and_then(Filler::room)) {
            (true, Some(room)) => draw_table(&rows, room, self.color),
            _ => None,
        };
        match drawn {
            Some(lines) => {
                for l in lines {
                    out.push(RAW_LINE);
                    out.push_str(&l);
                    out.push('\n');
                }
            }
            None => self.replay(&rows, out),
        }
    }

    /// Rows written as the text they are (styled and filled).
    fn replay(&mut self, rows: &[String], out: &mut String) {
        let (mode, held) = (self.mode, std::mem::take(&mut self.held));
        self.replaying = true;
        for row in rows {
            self.mode = Mode::Start;
            self.prev = '\n';
            for c in row.chars() {
                self.char(c, out);
            }
            self.char('\n', out);
        }
        self.replaying = false;
        self.mode = mode;
        self.held = held;
    }

    fn char(&mut self, c: char, out: &mut String) {
        match self.mode {
            Mode::Start if c == '\n' => {
                let held = std::mem::take(&mut self.held);
                self.flush_table(out);
                self.start_line(held, out);
                self.end_line(out);
            }
            Mode::Start => {
                self.held.push(c);
                if self.fence.is_some() {
                    self.mode = Mode::Collect;
                } else if self.fill.is_some() && !self.replaying && is_row(&self.held) {
                    self.mode = Mode::Row;
                } else if decidable(&self.held) {
                    let held = std::mem::take(&mut self.held);
                    self.flush_table(out);
                    self.start_line(held, out);
                }
            }
            Mode::Row if c == '\n' => {
                let row = std::mem::take(&mut self.held);
                self.table_row(row, out);
                self.mode = Mode::Start;
                self.prev = '\n';
            }
            Mode::Row => self.held.push(c),
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
        if self.fill.is_some() {
            // left whole: the terminal wraps it
            out.push(RAW_LINE);
        }
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

/// A table's row: it starts with `|` (after at most three spaces).
fn is_row(held: &str) -> bool {
    let s = held.trim_start_matches(' ');
    held.len() - s.len() < 4 && s.starts_with('|')
}

/// A table's `|---|:--:|` row.
fn is_separator(row: &str) -> bool {
    let cells = cells(row);
    !cells.is_empty()
        && cells.iter().all(|c| {
            let c = c.trim_start_matches(':').trim_end_matches(':');
            !c.is_empty() && c.chars().all(|d| d == '-')
        })
}

/// A row's cells, trimmed (the outer pipes dropped, `\|` a pipe).
fn cells(row: &str) -> Vec<String> {
    let s = row.trim();
    let s = s.strip_prefix('|').unwrap_or(s);
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        match c {
            '\\' if it.peek() == Some(&'|') => {
                cell.push('|');
                it.next();
            }
            '|' => cells.push(std::mem::take(&mut cell)),
            _ => cell.push(c),
        }
    }
    if !cell.trim().is_empty() {
        cells.push(cell);
    }
    cells.into_iter().map(|c| c.trim().to_owned()).collect()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Align {
    Left,
    Center,
    Right,
}

/// The columns between two cells: ` │ `.
const GAP: usize = 3;
/// The fewest columns a shrunk column keeps.
const MIN_COLUMN: usize = 4;

/// A table's rows (header, `|---|`, body) drawn as aligned columns in at
/// most `room` columns: each cell's text styled, a column too wide for its
/// share wrapped within it. `None` when the columns cannot fit.
fn draw_table(rows: &[String], room: usize, color: bool) -> Option<Vec<String>> {
    let aligns: Vec<Align> = cells(&rows[1])
        .iter()
        .map(|c| match (c.starts_with(':'), c.ends_with(':')) {
            (true, true) => Align::Center,
            (false, true) => Align::Right,
            _ => Align::Left,
        })
        .collect();
    let styled = |c: &str, header: bool| {
        if !color {
            c.to_owned()
        } else if header {
            format!("{BOLD}{c}{RESET}")
        } else {
            inline_styled(c)
        }
    };
    let mut body: Vec<Vec<String>> = Vec::new();
    body.push(cells(&rows[0]).iter().map(|c| styled(c, true)).collect());
    for r in &rows[2..] {
        body.push(cells(r).iter().map(|c| styled(c, false)).collect());
    }
    let n = body.iter().map(Vec::len).max().unwrap_or(0).max(1);
    let mut natural = vec![0; n];
    for r in &body {
        for (i, c) in r.iter().enumerate() {
            natural[i] = natural[i].max(visible_width(c));
        }
    }
    let widths = fit_columns(&natural, room.checked_sub(GAP * (n - 1))?)?;
    let bar = |s: &str| {
        if color {
            format!("{DIM}{s}{RESET}")
        } else {
            s.to_owned()
        }
    };
    let mut lines = Vec::new();
    for (ri, r) in body.iter().enumerate() {
        let wrapped: Vec<Vec<String>> = (0..n)
            .map(|i| fill_cell(r.get(i).map_or("", String::as_str), widths[i]))
            .collect();
        let height = wrapped.iter().map(Vec::len).max().unwrap_or(1);
        for h in 0..height {
            let mut line = String::new();
            for i in 0..n {
                if i > 0 {
                    line.push(' ');
                    line.push_str(&bar("│"));
                    line.push(' ');
                }
                let text = wrapped[i].get(h).map_or("", String::as_str);
                let pad = widths[i].saturating_sub(visible_width(text));
                let align = aligns.get(i).copied().unwrap_or(Align::Left);
                let (before, after) = match align {
                    Align::Left => (0, pad),
                    Align::Right => (pad, 0),
                    Align::Center => (pad / 2, pad - pad / 2),
                };
                line.extend(std::iter::repeat_n(' ', before));
                line.push_str(text);
                line.extend(std::iter::repeat_n(' ', after));
            }
            lines.push(line.trim_end_matches(' ').to_owned());
        }
        if ri == 0 {
            let rule: Vec<String> = widths.iter().map(|&w| "─".repeat(w)).collect();
            lines.push(bar(&rule.join("─┼─")));
        }
    }
    Some(lines)
}

/// The columns' widths in `room` (gaps aside): each its natural width if
/// all fit, else the widest shrunk to an equal share of what the narrower
/// leave. `None` when not every column can keep [`MIN_COLUMN`].
fn fit_columns(natural: &[usize], room: usize) -> Option<Vec<usize>> {
    let natural: Vec<usize> = natural.iter().map(|&w| w.max(1)).collect();
    if natural.iter().sum::<usize>() <= room {
        return Some(natural);
    }
    let n = natural.len();
    if room < n * MIN_COLUMN {
        return None;
    }
    let mut widths = vec![0; n];
    let mut left: Vec<usize> = (0..n).collect();
    let mut budget = room;
    loop {
        let share = budget / left.len();
        let (narrow, wide): (Vec<usize>, Vec<usize>) =
            left.iter().partition(|&&i| natural[i] <= share);
        if narrow.is_empty() {
            let extra = budget - share * wide.len();
            for (k, &i) in wide.iter().enumerate() {
                widths[i] = share + usize::from(k < extra);
            }
            return Some(widths);
        }
        for &i in &narrow {
            widths[i] = natural[i];
            budget -= natural[i];
        }
        left = wide;
    }
}

/// A cell's text in rows of at most `width` columns.
fn fill_cell(text: &str, width: usize) -> Vec<String> {
    let mut f = Filler::new(Some(width), "").embedded();
    let mut out = String::new();
    f.push(text, &mut out);
    f.finish(&mut out);
    out.split('\n').map(str::to_owned).collect()
}

/// A cell's text with its inline styles (no block styles: a cell that
/// starts with `#` or `- ` is no heading or list).
fn inline_styled(text: &str) -> String {
    let mut m = Markdown::new(true);
    m.mode = Mode::Flow;
    m.prev = ' ';
    let mut out = String::new();
    for c in text.chars() {
        m.inline(c, &mut out);
    }
    m.flush_star(None, &mut out);
    if m.bold || m.italic || m.code {
        out.push_str(RESET);
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

    /// Render at `width` columns, the text cut into `chunks`.
    fn render_at(chunks: &[&str], width: usize, color: bool) -> String {
        render_in(chunks, width, color, "")
    }

    /// [`render_at`], every row starting with `margin`.
    fn render_in(chunks: &[&str], width: usize, color: bool, margin: &str) -> String {
        let mut m = Markdown::new(color);
        m.set_margin(margin);
        m.set_width(Some(width));
        let mut out = String::new();
        for c in chunks {
            m.push(c, &mut out);
        }
        m.finish(&mut out);
        out
    }

    const TABLE: &str = "Totals:\n\n| Store | Size | Notes |\n|:------|-----:|:-----:|\n| SQLite | 1 | one **file** |\n| Postgres | 20 | a server |\n\nAfter the table.\n";

    #[test]
    fn split_points_do_not_change_the_filled_result() {
        let doc = format!("{DOC}A long paragraph that certainly needs to wrap at twenty four columns, twice.\n{TABLE}");
        for width in [24, 60] {
            let whole = render_at(&[&doc], width, true);
            for cut in 1..doc.len() {
                if !doc.is_char_boundary(cut) {
                    continue;
                }
                let (a, b) = doc.split_at(cut);
                assert_eq!(
                    render_at(&[a, b], width, true),
                    whole,
                    "cut at {cut}, width {width}"
                );
            }
        }
    }

    /// The chat's answer: every row at the margin, code and tables too,
    /// and within the width; to a pipe (no width) the margin still leads.
    #[test]
    fn a_margin_starts_every_row_and_the_width_holds_it() {
        let text =
            "Some words that run on past the width.\n```\ncode\n```\n- a list item that wraps\n";
        let out = strip_sgr(&render_in(&[text], 24, true, "  "));
        assert_eq!(
            out,
            "  Some words that run on\n  past the width.\n  ```\n  code\n  ```\n  - a list item that\n    wraps\n"
        );
        let table = strip_sgr(&render_in(&[TABLE], 40, true, "  "));
        assert!(
            table.lines().all(|l| l.is_empty() || l.starts_with("  ")),
            "{table}"
        );
        assert!(table.lines().all(|l| l.width() <= 40), "{table}");
        let mut m = Markdown::new(false);
        m.set_margin("  ");
        m.set_width(None);
        let mut out = String::new();
        m.push("one\ntwo\n", &mut out);
        m.finish(&mut out);
        m.push("three\n", &mut out);
        m.finish(&mut out);
        assert_eq!(out, "  one\n  two\n  three\n", "kept after a block ends");
    }

    #[test]
    fn filled_lines_break_at_words_and_code_is_left_whole() {
        let text = "Some **bold words** and more words that run on past the width.\n```rust\nlet a_long_line_of_code = \"is never broken by claudio\";\n```\n- a list item that wraps under its text\n";
        let out = strip_sgr(&render_at(&[text], 24, true));
        assert_eq!(
            out,
            "Some **bold words** and\nmore words that run on\npast the width.\n```rust\nlet a_long_line_of_code = \"is never broken by claudio\";\n```\n- a list item that wraps\n  under its text\n"
        );
    }

    #[test]
    fn a_table_is_drawn_as_aligned_columns() {
        let out = strip_sgr(&render_at(&[TABLE], 80, true));
        assert_eq!(
            out,
            "Totals:\n\nStore    │ Size │    Notes\n─────────┼──────┼─────────────\nSQLite   │    1 │ one **file**\nPostgres │   20 │   a server\n\nAfter the table.\n"
        );
        // plain (no colour): the same columns
        assert_eq!(strip_sgr(&render_at(&[TABLE], 80, false)), out);
        // at the end of the answer too
        let end = TABLE.trim_end_matches("\nAfter the table.\n");
        let out = strip_sgr(&render_at(&[end], 80, true));
        assert!(out.ends_with("Postgres │   20 │   a server\n"), "{out:?}");
    }

    /// A table that never ends is not held whole: the first rows are drawn
    /// as they reach the bound, while the table still streams (found by
    /// the attack round: 400k rows were held until the end).
    #[test]
    fn a_long_table_is_drawn_as_it_comes_not_held_whole() {
        let mut m = Markdown::new(false);
        m.set_width(Some(80));
        let mut out = String::new();
        m.push("| n | square |\n|---|---|\n", &mut out);
        for i in 0..(MAX_TABLE_ROWS * 3) {
            m.push(&format!("| {i} | {} |\n", i * i), &mut out);
            assert!(
                m.table.len() <= MAX_TABLE_ROWS,
                "held {} rows",
                m.table.len()
            );
        }
        assert!(out.contains("│"), "drawn while it streams: {out:?}");
        assert!(out.contains("199"), "{out:?}");
        m.finish(&mut out);
        // every row is there once
        for i in [0, 199, 200, 599] {
            let cell = format!("{}", i * i);
            assert!(out.contains(&cell), "{i}");
        }
    }

    #[test]
    fn a_wide_table_wraps_its_cells_and_a_narrow_one_is_text() {
        let table = "| Option | What it does |\n|---|---|\n| --model | picks the model the chat talks to for the rest of the session |\n";
        let out = strip_sgr(&render_at(&[table], 40, true));
        for line in out.lines() {
            assert!(UnicodeWidthStr::width(line) <= 40, "{line:?} in\n{out}");
        }
        assert_eq!(
            out,
            "Option  │ What it does\n────────┼───────────────────────────────\n--model │ picks the model the chat talks\n        │ to for the rest of the session\n"
        );
        // too narrow for its columns: the rows as text, filled
        let many = "| a | b | c | d | e |\n|---|---|---|---|---|\n| 1 | 2 | 3 | 4 | 5 |\n";
        let out = strip_sgr(&render_at(&[many], 12, true));
        assert_eq!(
            out,
            "| a | b | c\n| d | e |\n|---|---|---\n|---|---|\n| 1 | 2 | 3\n| 4 | 5 |\n"
        );
    }

    #[test]
    fn pipes_that_make_no_table_stay_text() {
        let text = "| not a table\nnext line\n| one | two |\nno separator\n";
        assert_eq!(strip_sgr(&render_at(&[text], 80, true)), text);
        // unfilled (the plan's dialog, a pipe): rows are never held
        assert_eq!(strip_sgr(&render(&[TABLE])), TABLE);
    }

    use proptest::prelude::*;
    use unicode_width::UnicodeWidthStr;

    proptest! {
        #[test]
        fn filled_text_fits_the_width_and_keeps_every_word(
            words in proptest::collection::vec("[a-z]{1,7}|日本|\\*\\*b\\*\\*|`c`|-|1\\.|>|#", 1..60),
            seps in proptest::collection::vec(prop_oneof![4 => Just(" "), 1 => Just("  "), 1 => Just("\n"), 1 => Just("\n- "), 1 => Just("\t")], 60),
            width in 10usize..60,
            cuts in proptest::collection::vec(0usize..400, 0..6),
            long in proptest::option::of(("[a-z]{61,90}", 0usize..60)),
            margin in prop_oneof![Just(""), Just("  ")],
        ) {
            let mut text = String::new();
            for (i, (w, sep)) in words.iter().zip(&seps).enumerate() {
                // a word longer than any row: broken where the rows end
                match &long {
                    Some((l, at)) if *at == i => text.push_str(l),
                    _ => text.push_str(w),
                }
                text.push_str(sep);
            }
            let mut cuts: Vec<usize> = cuts.into_iter().filter(|&c| c < text.len() && text.is_char_boundary(c)).collect();
            cuts.sort_unstable();
            cuts.dedup();
            let mut chunks = Vec::new();
            let mut at = 0;
            for c in cuts {
                chunks.push(&text[at..c]);
                at = c;
            }
            chunks.push(&text[at..]);
            // the same room for the text with a margin as without
            let width = width + margin.len();
            let styled = render_in(&chunks, width, true, margin);
            prop_assert_eq!(&styled, &render_in(&[&text], width, true, margin));
            let out = strip_sgr(&styled);
            for line in out.lines() {
                prop_assert!(UnicodeWidthStr::width(line) <= width, "{:?} wider than {}", line, width);
                prop_assert!(line.is_empty() || line.starts_with(margin), "{:?} not at the margin", line);
            }
            let letters = |s: &str| s.split_whitespace().collect::<String>();
            prop_assert_eq!(letters(&text), letters(&out));
            if long.is_none() {
                let words_in: Vec<&str> = text.split_whitespace().collect();
                let words_out: Vec<&str> = out.split_whitespace().collect();
                prop_assert_eq!(words_in, words_out);
            }
        }
    }
}
