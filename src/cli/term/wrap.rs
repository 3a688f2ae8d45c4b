//! Lines that are longer than the terminal is wide, broken at spaces by
//! claudio itself: each row keeps the line's indent (and a box's side), and
//! nothing is cut. Left to the terminal, a long line wraps mid-word (or
//! mid-path) to the first column; cut to the width, it loses what the
//! person must read.
//!
//! Colours (SGR sequences) count for nothing and are never split; a colour
//! open at a break is closed at the end of the row and opened again after
//! the next row's indent.

use unicode_width::UnicodeWidthChar;

/// The fewest columns a row leaves for text, however narrow the terminal.
const MIN_ROOM: usize = 8;

/// `text` (one line) in rows of at most `width` columns, broken at spaces:
/// the first row starts with `first`, every later one with `rest`, and the
/// line's own indent (its leading spaces, and a list marker such as `1. `
/// or `- `) is kept on every row. A word longer than a row is broken where
/// the row ends.
pub fn wrap(text: &str, width: usize, first: &str, rest: &str) -> Vec<String> {
    let hang = " ".repeat(hang_width(text));
    wrap_exact(text, width, first, &format!("{rest}{hang}"))
}

/// [`wrap`] with every later row starting with `rest` and nothing more
/// (for text whose indent is not its own, such as a diff's line numbers).
pub fn wrap_exact(text: &str, width: usize, first: &str, rest: &str) -> Vec<String> {
    let room_of = |prefix: &str| width.saturating_sub(visible_width(prefix)).max(MIN_ROOM);
    let mut rows = Vec::new();
    let mut row = first.to_owned();
    let mut room = room_of(first);
    let mut used = 0;
    // the colours open where the text has got to
    let mut open = String::new();
    // the line's own indent, colours before it included, stays as it is
    let mut lead = 0;
    for unit in units(text) {
        if unit == " " {
            used += 1;
        } else if unit.starts_with('\x1b') {
            note_colour(unit, &mut open);
        } else {
            break;
        }
        lead += unit.len();
    }
    row.push_str(&text[..lead]);
    let mut break_row = |row: &mut String, used: &mut usize, room: &mut usize, open: &str| {
        // the space the break takes is not drawn
        row.truncate(row.trim_end_matches(' ').len());
        if !open.is_empty() {
            row.push_str("\x1b[0m");
        }
        rows.push(std::mem::replace(row, format!("{rest}{open}")));
        *used = 0;
        *room = room_of(rest);
    };
    for (i, word) in text[lead..].split(' ').enumerate() {
        let w = visible_width(word);
        if i > 0 {
            if used > 0 && used + 1 + w <= room {
                row.push(' ');
                used += 1;
            } else if used > 0 && w > 0 {
                break_row(&mut row, &mut used, &mut room, &open);
            } else if used > 0 && used < room {
                // a second space in a row
                row.push(' ');
                used += 1;
                continue;
            }
        }
        for unit in units(word) {
            let uw = unit_width(unit);
            if used + uw > room && used > 0 {
                break_row(&mut row, &mut used, &mut room, &open);
            }
            if unit.starts_with('\x1b') {
                note_colour(unit, &mut open);
            }
            row.push_str(unit);
            used += uw;
        }
    }
    rows.push(row);
    rows
}

/// Keep track of the colours open: a reset closes them all.
fn note_colour(unit: &str, open: &mut String) {
    if unit == "\x1b[0m" || unit == "\x1b[m" {
        open.clear();
    } else if unit.ends_with('m') {
        open.push_str(unit);
    }
}

/// [`wrap`], each row ended with a newline.
pub fn wrapped(text: &str, width: usize, first: &str, rest: &str) -> String {
    wrap(text, width, first, rest)
        .into_iter()
        .map(|r| r + "\n")
        .collect()
}

/// The columns `s` takes on the screen (colour sequences take none).
pub fn visible_width(s: &str) -> usize {
    units(s).map(unit_width).sum()
}

/// The rows one line of `s` takes on a terminal `width` columns wide
/// (at least one): as the terminal wraps it, a wide character that does not
/// fit in a row's last column starting the next row (the column is left
/// empty), so not its columns divided by the width.
pub fn terminal_rows(s: &str, width: usize) -> usize {
    let width = width.max(1);
    let (mut rows, mut col) = (1, 0);
    for w in units(s).map(unit_width) {
        if w == 0 {
            continue;
        }
        if col + w > width && col > 0 {
            rows += 1;
            col = 0;
        }
        col += w;
    }
    rows
}

/// `s` cut where a terminal `width` columns wide wraps it: its rows, as
/// many as [`terminal_rows`] counts, none wider than the screen (a
/// character wider than it alone on its row).
pub fn terminal_cut(s: &str, width: usize) -> Vec<&str> {
    let width = width.max(1);
    let (mut rows, mut start, mut at, mut col) = (Vec::new(), 0, 0, 0);
    for unit in units(s) {
        let w = unit_width(unit);
        if w > 0 && col + w > width && col > 0 {
            rows.push(&s[start..at]);
            start = at;
            col = 0;
        }
        col += w;
        at += unit.len();
    }
    rows.push(&s[start..]);
    rows
}

/// The text's own indent: its leading spaces and a list marker after them.
fn hang_width(text: &str) -> usize {
    let plain = strip_sgr(text);
    let body = plain.trim_start_matches(' ');
    let lead = plain.len() - body.len();
    let marker = if ["- ", "* ", "• ", "+ "].iter().any(|m| body.starts_with(m)) {
        2
    } else {
        let digits = body.chars().take_while(char::is_ascii_digit).count();
        if digits > 0 && body[digits..].starts_with(". ") {
            digits + 2
        } else {
            0
        }
    };
    lead + marker
}

/// Characters, and escape sequences whole.
fn units(s: &str) -> impl Iterator<Item = &str> {
    let mut at = 0;
    std::iter::from_fn(move || {
        let rest = &s[at..];
        let mut chars = rest.char_indices();
        let (_, c) = chars.next()?;
        let len = if c == '\x1b' && rest[1..].starts_with('[') {
            rest[2..]
                .find(|d: char| d.is_ascii_alphabetic() || d == '~')
                .map_or(rest.len(), |end| end + 3)
        } else {
            c.len_utf8()
        };
        at += len;
        Some(&rest[..len])
    })
}

fn unit_width(unit: &str) -> usize {
    match unit.chars().next() {
        Some('\x1b') | None => 0,
        Some(c) => columns(c),
    }
}

/// The columns `c` takes here: its width, or for an [`uncertain`]
/// character the most any terminal tried gives it (at least one).
pub fn columns(c: char) -> usize {
    let w = c.width().unwrap_or(0);
    if !uncertain(c) {
        return w;
    }
    w.max(listed(c).unwrap_or(0)).max(1)
}

/// A character whose width a terminal may give otherwise than claudio,
/// because its Unicode tables are older or newer: every character beyond
/// the Basic Multilingual Plane that takes room (emoji, new scripts,
/// ideograph extensions: tmux 3.3 with glibc 2.36 draws the Unicode 15
/// emoji in one column, claudio counts two), a wide one outside the East
/// Asian blocks wide since Unicode 1 (emoji presentation, wide since
/// Unicode 9; the trigrams, wide since 16), and those in [`UNCERTAIN`].
/// A [`Filler`] puts the cursor, after one, where claudio counts it
/// ([`columns`]), so the terminal's count cannot move what follows.
pub fn uncertain(c: char) -> bool {
    if c.is_ascii() || disputed(c) {
        return false;
    }
    let w = c.width().unwrap_or(0);
    let cp = c as u32;
    (cp >= 0x10000 && w > 0)
        || (w >= 2 && !WIDE_OF_OLD.iter().any(|&(lo, hi)| (lo..=hi).contains(&cp)))
        || listed(c).is_some()
}

/// The most columns a terminal gives `c`, when [`UNCERTAIN`] lists it.
fn listed(c: char) -> Option<usize> {
    let cp = c as u32;
    UNCERTAIN
        .binary_search_by(|&(lo, hi, _)| {
            if cp < lo {
                std::cmp::Ordering::Greater
            } else if cp > hi {
                std::cmp::Ordering::Less
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .ok()
        .map(|i| UNCERTAIN[i].2 as usize)
}

/// The East Asian blocks whose characters every terminal draws in two
/// columns (wide since Unicode 1 to 3).
const WIDE_OF_OLD: [(u32, u32); 13] = [
    (0x1100, 0x115f),
    (0x2e80, 0x303e),
    (0x3041, 0x33ff),
    (0x3400, 0x4dbf),
    (0x4e00, 0x9fff),
    (0xa000, 0xa4cf),
    (0xa960, 0xa97f),
    (0xac00, 0xd7a3),
    (0xf900, 0xfaff),
    (0xfe10, 0xfe19),
    (0xfe30, 0xfe6f),
    (0xff00, 0xff60),
    (0xffe0, 0xffe6),
];

/// The other characters claudio's tables (Unicode 18) and glibc 2.36's
/// (Unicode 14, which tmux 3.3 draws with) count differently, with the
/// most columns either gives: new marks that combine here and take a
/// column there (`wcwidth` -1: tmux gives 1), spacing vowel signs, the
/// Hangul tone marks, the new CJK strokes and unassigned compatibility
/// ideographs. Found by comparing every character (the test
/// `every_character_glibc_counts_otherwise_is_uncertain`).
#[rustfmt::skip]
const UNCERTAIN: [(u32, u32, u8); 104] = [
    (0x5c8, 0x5c9, 1), (0x605, 0x605, 1), (0x70f, 0x70f, 1), (0x890, 0x891, 1), (0x897, 0x897, 1), (0x8e2, 0x8e2, 1), (0x9be, 0x9be, 1), (0x9d7, 0x9d7, 1), (0xb3e, 0xb3e, 1), (0xb53, 0xb54, 1), (0xb57, 0xb57, 1), (0xbbe, 0xbbe, 1), (0xbd7, 0xbd7, 1), (0xcc0, 0xcc0, 1), (0xcc2, 0xcc2, 1), (0xcc7, 0xcc8, 1), (0xcca, 0xccb, 1), (0xcd5, 0xcd6, 1), (0xd3e, 0xd3e, 1), (0xd4e, 0xd4e, 1), (0xd57, 0xd57, 1), (0xdcf, 0xdcf, 1), (0xddf, 0xddf, 1), (0xece, 0xece, 1), (0x1715, 0x1715, 1), (0x1734, 0x1734, 1), (0x1acf, 0x1af0, 1), (0x1b35, 0x1b35, 1), (0x1b3b, 0x1b3b, 1), (0x1b3d, 0x1b3d, 1), (0x1b43, 0x1b44, 1), (0x1baa, 0x1baa, 1), (0x1bf2, 0x1bf3, 1), (0x2065, 0x2065, 1), (0x2d7f, 0x2d7f, 1), (0x2ffc, 0x2fff, 2), (0x302e, 0x302f, 2), (0x31e4, 0x31e5, 2), (0x31ef, 0x31ef, 2), (0x3248, 0x324f, 2), (0xa8fa, 0xa8fa, 1), (0xa953, 0xa953, 1), (0xa9c0, 0xa9c0, 1), (0xfa6e, 0xfa6f, 2), (0xfada, 0xfaff, 2), (0xfff0, 0xfffb, 1), (0x10d69, 0x10d6d, 1), (0x10ecb, 0x10ecf, 1), (0x10ef0, 0x10eff, 1), (0x111c0, 0x111c0, 1), (0x111c2, 0x111c3, 1), (0x11235, 0x11235, 1), (0x11241, 0x11241, 1), (0x1133e, 0x1133e, 1), (0x1134d, 0x1134d, 1), (0x11357, 0x11357, 1), (0x113b8, 0x113b8, 1), (0x113bb, 0x113c0, 1), (0x113c2, 0x113c2, 1), (0x113c5, 0x113c5, 1), (0x113c7, 0x113c9, 1), (0x113ce, 0x113d2, 1), (0x113e1, 0x113e2, 1), (0x114b0, 0x114b0, 1), (0x114bd, 0x114bd, 1), (0x115af, 0x115af, 1), (0x116b6, 0x116b6, 1), (0x11930, 0x11930, 1), (0x1193d, 0x1193d, 1), (0x1193f, 0x1193f, 1), (0x11941, 0x11941, 1), (0x11a84, 0x11a89, 1), (0x11b60, 0x11b60, 1), (0x11b62, 0x11b64, 1), (0x11b66, 0x11b66, 1), (0x11d46, 0x11d46, 1), (0x11df0, 0x11df0, 1), (0x11f00, 0x11f02, 1), (0x11f36, 0x11f3a, 1), (0x11f40, 0x11f42, 1), (0x11f5a, 0x11f5a, 1), (0x13440, 0x13440, 1), (0x13447, 0x13455, 1), (0x1611e, 0x16129, 1), (0x1612d, 0x1612f, 1), (0x16ff0, 0x16ff1, 2), (0x1d127, 0x1d128, 1), (0x1d165, 0x1d166, 1), (0x1d16d, 0x1d172, 1), (0x1d250, 0x1d252, 1), (0x1d25b, 0x1d25c, 1), (0x1d25f, 0x1d25f, 1), (0x1d280, 0x1d281, 1), (0x1e08f, 0x1e08f, 1), (0x1e4ec, 0x1e4ef, 1), (0x1e5ee, 0x1e5ef, 1), (0x1e6e3, 0x1e6e3, 1), (0x1e6e6, 0x1e6e6, 1), (0x1e6ee, 0x1e6ef, 1), (0x1e6f5, 0x1e6f5, 1), (0xe0000, 0xe0000, 1), (0xe0002, 0xe001f, 1), (0xe0080, 0xe00ff, 1), (0xe01f0, 0xe0fff, 1),
];

/// Marks, at the start of a line, that the line is written as it is (a
/// code line, a drawn table): [`Filler`] does not break it.
pub const RAW_LINE: char = '\0';

/// The columns a tab takes in text that is filled (its tab stop is not
/// known when the word before it may still move to the next row).
const TAB: &str = "    ";

/// Streamed text placed on the terminal word by word: a word is written
/// once the space after it arrives (or its line ends), on this row if it
/// fits and on the next one if not, under the line's indent. Only the
/// word being written is held, never more than a row of it: a word longer
/// than a row is broken where the row ends.
///
/// Every row starts with the margin (a thinking block's indent). A line's
/// own indent (its leading spaces, and a list or quote marker after them)
/// is repeated on the rows it wraps to. Colour sequences take no room;
/// those open at a break are closed before it and opened again after the
/// next row's indent. A line that starts with [`RAW_LINE`] is written as
/// it is, the marker dropped. With no width, nothing is broken and only
/// the margin is added.
///
/// The output depends on the text alone, not on how it was cut into
/// pieces; the width is read as each word is placed. A word's first part
/// shown during a pause ([`Filler::show_held`]) after other text on its
/// row is taken back when the rest would overflow the row: erased, and
/// the word written whole on the next row, so the screen ends as it would
/// have without the pause.
#[derive(Debug, Clone, Default)]
pub struct Filler {
    width: Option<usize>,
    margin: String,
    /// Columns written on this row, margin and indent included.
    used: usize,
    /// Something was written on this row (at least its margin).
    started: bool,
    /// Text, not only indent, was written on this row.
    content: bool,
    /// This row continues a wrapped line (its indent is the hang).
    cont: bool,
    /// The colours open in what was written.
    open: String,
    /// The word being held, after the spaces before it (colour sequences
    /// among them); `split` is where the word starts.
    held: String,
    split: usize,
    spaces: usize,
    word: usize,
    in_word: bool,
    /// The word's first characters, colours aside (to know a list marker).
    plain: String,
    /// At a line's first word (which decides the hang).
    first: bool,
    hang: usize,
    raw: bool,
    /// A word's first part, shown during a pause after other text on its
    /// row (taken back if the rest overflows the row).
    shown: Option<Shown>,
    /// Placing the held part of a word the text paused in.
    pausing: bool,
    /// Where this row's text starts (after its margin and indent).
    row_start: usize,
    /// Its rows start at the terminal's first column: after an
    /// [`uncertain`] character the cursor is put where it is counted.
    sync: bool,
}

/// A word's part shown during a pause: the column its spaces start at,
/// the colours open after them, and what was written of it.
#[derive(Debug, Clone)]
struct Shown {
    col: usize,
    open: String,
    text: String,
    width: usize,
}

impl Filler {
    /// A filler for rows of `width` columns (none: never broken), each
    /// starting with `margin`.
    pub fn new(width: Option<usize>, margin: &str) -> Self {
        Filler {
            width,
            margin: margin.to_owned(),
            first: true,
            sync: true,
            ..Default::default()
        }
    }

    /// A filler whose rows the caller places (a table's cell): the
    /// cursor is never put at a column of the terminal.
    pub fn embedded(mut self) -> Self {
        self.sync = false;
        self
    }

    /// Write `unit`, a character: after an [`uncertain`] one, the cursor
    /// goes to the column after the room it is given (CHA), wherever the
    /// terminal's tables put it; not at the row's end (the cursor could
    /// not wait there to wrap) nor past it (a raw line the terminal wraps).
    fn put(&mut self, unit: &str, w: usize, out: &mut String) {
        out.push_str(unit);
        self.used += w;
        let width = self.width.unwrap_or(0);
        if self.sync && self.used < width && unit.chars().next().is_some_and(uncertain) {
            out.push_str(&format!("\x1b[{}G", self.used + 1));
        }
    }

    /// The terminal changed width: the next words are placed in the new one.
    pub fn set_width(&mut self, width: Option<usize>) {
        self.width = width;
    }

    /// The columns a row has for text after the margin.
    pub fn room(&self) -> Option<usize> {
        self.width
            .map(|w| w.saturating_sub(visible_width(&self.margin)))
    }

    /// Nothing is written on the current row yet (the cursor is at its start).
    pub fn at_row_start(&self) -> bool {
        !self.started
    }

    /// Something else wrote on the terminal and ended its line: the next
    /// text starts a row (and a line) of its own.
    pub fn new_row(&mut self) {
        self.used = 0;
        self.started = false;
        self.content = false;
        self.cont = false;
        self.first = true;
        self.hang = 0;
        self.raw = false;
        self.shown = None;
    }

    /// Something else wrote after the half-written row and left the cursor
    /// at the start of a row (a shell, while the chat was stopped): the
    /// line goes on there, under its indent, as after a break of the
    /// filler's own. A word's part shown during a pause stays where it is.
    pub fn broken_elsewhere(&mut self) {
        if self.started {
            if !self.first {
                // the break takes the spaces held before the next word
                // (its colours stay)
                let (spaces, word) = self.held.split_at(self.split);
                let kept: String = units(spaces).filter(|u| u.starts_with('\x1b')).collect();
                self.split = kept.len();
                self.held = kept + word;
                self.spaces = 0;
            }
            self.used = 0;
            self.started = false;
            self.content = false;
            self.cont = true;
            self.shown = None;
        }
    }

    /// Where the cursor is on the current row (columns written, margin and
    /// indent included) and the colours open there.
    pub fn row(&self) -> (usize, &str) {
        (self.used, &self.open)
    }

    /// Part of a word is held (its end has not come yet).
    pub fn holds_word(&self) -> bool {
        self.word > 0
    }

    /// The text paused inside a word: write what came of it now, where it
    /// would go (the rest follows it, broken at the row's end if it must).
    pub fn show_held(&mut self, out: &mut String) {
        if self.word > 0 {
            self.pausing = true;
            self.place(false, out);
            self.pausing = false;
        }
    }

    pub fn push(&mut self, text: &str, out: &mut String) {
        for unit in units(text) {
            self.unit(unit, out);
        }
    }

    /// Write what is held and close the colours: the text is over.
    pub fn finish(&mut self, out: &mut String) {
        self.place(true, out);
        if !self.open.is_empty() {
            if self.started {
                out.push_str("\x1b[0m");
            }
            self.open.clear();
        }
        self.first = true;
        self.raw = false;
    }

    fn unit(&mut self, unit: &str, out: &mut String) {
        if unit == "\n" {
            self.place(true, out);
            if !self.open.is_empty() && self.started {
                // opened again on the next row
                out.push_str("\x1b[0m");
            }
            out.push('\n');
            self.new_row();
            return;
        }
        if unit.starts_with(RAW_LINE) {
            if !self.started && self.held.is_empty() {
                self.raw = true;
            }
            return;
        }
        if self.width.is_some() && unit.chars().next().is_some_and(disputed) {
            // on a terminal: a character it counts otherwise is left out
            return;
        }
        if self.raw || self.width.is_none() {
            self.start_row(out);
            // a tab on a terminal: spaces, counted as they are drawn
            let unit = if unit == "\t" && self.width.is_some() {
                TAB
            } else {
                unit
            };
            if unit.starts_with('\x1b') {
                note_colour(unit, &mut self.open);
                out.push_str(unit);
            } else {
                self.content = true;
                self.put(unit, visible_width(unit), out);
            }
            return;
        }
        if unit == " " || unit == "\t" {
            if self.in_word {
                self.place(false, out);
            }
            self.held.push_str(if unit == " " { " " } else { TAB });
            self.spaces += if unit == " " { 1 } else { TAB.len() };
            self.split = self.held.len();
            return;
        }
        self.held.push_str(unit);
        if unit.starts_with('\x1b') {
            if !self.in_word {
                self.split = self.held.len();
            }
            return;
        }
        self.in_word = true;
        self.word += unit_width(unit);
        if self.plain.len() < 8 {
            self.plain.push_str(unit);
        }
        // never more than a row held: a longer word is broken anyway
        if self.word > self.width.unwrap_or(usize::MAX) {
            self.place(false, out);
            self.in_word = true;
        }
    }

    /// Write the held word: on this row if it fits, else on the next.
    fn place(&mut self, line_end: bool, out: &mut String) {
        if self.held.is_empty() {
            // a word too long for a row was written as it came: it ends
            // here (still "in" it, each space after it was placed alone,
            // on a row of its own)
            self.in_word = false;
            return;
        }
        let held = std::mem::take(&mut self.held);
        let (spaces, word) = held.split_at(self.split);
        let width = self.width.unwrap_or(usize::MAX);
        let shown = self.shown.take();
        if self.first && self.word > 0 {
            // the line's first word: its indent (and marker) is the hang
            self.first = false;
            let marker = is_marker(&self.plain);
            let room = self.room().unwrap_or(usize::MAX);
            let hang = self.spaces + if marker { self.word + 1 } else { 0 };
            self.hang = hang.min(room / 2);
            self.start_row(out);
            let lead = self.spaces.min(width.saturating_sub(self.used));
            self.write_spaces(spaces, lead, out);
            self.write_word(word, out);
        } else if let Some(sh) = shown.filter(|_| self.spaces == 0 && self.word > 0) {
            if self.used + self.word > width {
                // the part shown during a pause and its spaces are taken
                // back: the word goes whole to the next row, as it would
                // have without the pause
                if !self.open.is_empty() {
                    out.push_str("\x1b[0m");
                }
                out.push('\r');
                if sh.col > 0 {
                    out.push_str(&format!("\x1b[{}C", sh.col));
                }
                out.push_str("\x1b[K");
                self.used = sh.col;
                self.open = sh.open;
                self.break_row(out);
                self.start_row(out);
                self.write_word(&sh.text, out);
                self.write_spaces(spaces, 0, out);
                self.write_word(word, out);
            } else {
                // it fits: the part shown grows
                self.start_row(out);
                self.write_spaces(spaces, 0, out);
                self.write_word(word, out);
                self.shown = Some(Shown {
                    text: sh.text + &held,
                    width: sh.width + self.word,
                    ..sh
                });
            }
        } else if self.spaces == 0 && self.word > 0 {
            // the rest of a word too long for a row: it goes on where it is
            self.start_row(out);
            self.write_spaces(spaces, 0, out);
            self.write_word(word, out);
        } else if self.word == 0 && line_end {
            // spaces at the end of a line: only what fits
            self.start_row(out);
            let n = self.spaces.min(width.saturating_sub(self.used));
            self.write_spaces(spaces, n, out);
            // what takes no room (a combining mark after a pause)
            self.write_word(word, out);
        } else if self.used + self.spaces + self.word <= width || !self.content {
            self.start_row(out);
            let after_text = self.content;
            let col = self.used;
            let n = if self.content {
                self.spaces
            } else {
                self.spaces.min(width.saturating_sub(self.used))
            };
            self.write_spaces(spaces, n, out);
            if self.pausing && after_text && self.word > 0 {
                // a part of a word, after other text: taken back if the
                // rest overflows the row
                self.shown = Some(Shown {
                    col,
                    open: self.open.clone(),
                    text: word.to_owned(),
                    width: self.word,
                });
            }
            self.write_word(word, out);
        } else {
            // the break takes the spaces
            self.break_row(out);
            self.start_row(out);
            self.write_spaces(spaces, 0, out);
            self.write_word(word, out);
        }
        self.split = 0;
        self.spaces = 0;
        self.word = 0;
        self.in_word = false;
        self.plain.clear();
    }

    /// The spaces part of the held text: its colours, and `n` spaces.
    fn write_spaces(&mut self, spaces: &str, n: usize, out: &mut String) {
        let mut left = n;
        for unit in units(spaces) {
            if unit.starts_with('\x1b') {
                note_colour(unit, &mut self.open);
                out.push_str(unit);
            } else if left > 0 {
                out.push(' ');
                left -= 1;
                self.used += 1;
            }
        }
    }

    /// A word, broken where the row ends if it is longer than a row.
    fn write_word(&mut self, word: &str, out: &mut String) {
        let width = self.width.unwrap_or(usize::MAX);
        for unit in units(word) {
            if unit.starts_with('\x1b') {
                note_colour(unit, &mut self.open);
                out.push_str(unit);
                continue;
            }
            let w = unit_width(unit);
            // past the row's end: to the next row, unless nothing but its
            // margin and indent is before it (the next would be the same)
            if self.used + w > width && (self.content || self.used > self.row_start) {
                self.break_row(out);
                self.start_row(out);
            }
            self.put(unit, w, out);
            self.content = true;
        }
    }

    /// End the row; the line goes on on the next one, under its indent.
    fn break_row(&mut self, out: &mut String) {
        if !self.open.is_empty() {
            out.push_str("\x1b[0m");
        }
        out.push('\n');
        self.used = 0;
        self.started = false;
        self.content = false;
        self.cont = true;
    }

    /// The row's margin, indent and open colours, once.
    fn start_row(&mut self, out: &mut String) {
        if self.started {
            return;
        }
        self.started = true;
        out.push_str(&self.margin);
        self.used = visible_width(&self.margin);
        if self.cont {
            out.extend(std::iter::repeat_n(' ', self.hang));
            self.used += self.hang;
        }
        self.row_start = self.used;
        out.push_str(&self.open);
    }
}

/// A list item's or a quote's marker: `-`, `*`, `+`, `•`, `>`, `1.`, `1)`.
fn is_marker(word: &str) -> bool {
    if ["-", "*", "+", "•", ">"].contains(&word) {
        return true;
    }
    let digits = word.chars().take_while(char::is_ascii_digit).count();
    digits > 0 && digits <= 3 && matches!(&word[digits..], "." | ")")
}

/// A character the terminals and claudio count differently, left out of
/// what is drawn on a terminal: the soft hyphen (no column here, one in
/// glibc and tmux, so the next word was drawn a column early), the
/// zero-width joiner (tmux draws a joined sequence in 2 columns, here each
/// emoji takes 2), the variation selectors and the emoji skin-tone
/// modifiers (emoji presentation: 2 columns in some terminals, 1 in
/// others), the Hangul fillers (no column here, 2 in glibc and tmux), the
/// line and paragraph separators (one column here, none in tmux).
/// Without them the terminals tried (vt100, tmux 3.3 with glibc 2.36) and
/// claudio agree on each character of Unicode 14; a character newer than
/// the terminal's tables may still be counted otherwise.
pub fn disputed(c: char) -> bool {
    matches!(
        c,
        '\u{ad}'
            | '\u{200d}'
            | '\u{fe00}'..='\u{fe0f}'
            | '\u{e0100}'..='\u{e01ef}'
            | '\u{1f3fb}'..='\u{1f3ff}'
            | '\u{3164}'
            | '\u{ffa0}'
            | '\u{2028}'
            | '\u{2029}'
    )
}

/// A colour sequence: `ESC [`, digits, `;` and `:`, then `m`.
fn is_sgr(unit: &str) -> bool {
    unit.strip_prefix("\x1b[")
        .and_then(|u| u.strip_suffix('m'))
        .is_some_and(|p| {
            p.bytes()
                .all(|b| b.is_ascii_digit() || b == b';' || b == b':')
        })
}

/// `s` as it is drawn on a terminal: without the [`disputed`] characters.
pub fn undisputed(s: &str) -> std::borrow::Cow<'_, str> {
    if s.chars().any(disputed) {
        s.chars()
            .filter(|&c| !disputed(c))
            .collect::<String>()
            .into()
    } else {
        s.into()
    }
}

/// One row of at most `width` columns, as the terminal counts them: the
/// [`disputed`] characters left out, tabs as spaces, other controls
/// dropped, and cut with `…` when it is wider (the colours it opened
/// closed after the cut).
pub fn fit_row(s: &str, width: usize) -> String {
    let mut clean = String::with_capacity(s.len());
    for unit in units(s) {
        match unit.chars().next() {
            Some('\t') => clean.push_str(TAB),
            // a colour is the one sequence a row holds (its own styling)
            Some('\x1b') if is_sgr(unit) => clean.push_str(unit),
            // any other sequence, a control, a bidi override: never drawn
            Some(c) if c.is_control() || crate::cli::sanitize::is_dropped(c) => {}
            Some(c) if disputed(c) => {}
            _ => clean.push_str(unit),
        }
    }
    if visible_width(&clean) <= width {
        return clean;
    }
    let mut out = String::with_capacity(clean.len());
    let mut used = 0;
    let mut open = String::new();
    for unit in units(&clean) {
        let w = unit_width(unit);
        if unit.starts_with('\x1b') {
            note_colour(unit, &mut open);
        } else if used + w + 1 > width {
            break;
        }
        out.push_str(unit);
        used += w;
    }
    if width > 0 {
        out.push('…');
    }
    if !open.is_empty() {
        out.push_str("\x1b[0m");
    }
    out
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

    /// A terminal starts a wide character that does not fit a row's last
    /// column on the next row: three of them take three rows of three
    /// columns, not two.
    #[test]
    fn terminal_rows_counts_wide_characters_wrapped_early() {
        assert_eq!(terminal_rows("中中中", 3), 3);
        assert_eq!(terminal_rows("a中a中", 4), 2);
        assert_eq!(terminal_rows("abcd", 4), 1, "a full row is one");
        assert_eq!(terminal_rows("abcde", 4), 2);
        assert_eq!(terminal_rows("", 4), 1);
        assert_eq!(terminal_rows("\x1b[1mab\x1b[0m", 2), 1);
        assert_eq!(terminal_rows("ab", 0), 2, "no width is one column");
    }

    /// A live row holds no sequence but colours, no control, no bidi
    /// override and no character the terminals count otherwise, and fits
    /// its width as the terminal counts it (threats.md classes 2, 11).
    #[test]
    fn a_fitted_row_is_inert_and_fits() {
        let hostile = "a\x1b]52;c;ZXZpbA==\x07b\x1b[2J\x1b[10;1H\x1b[201~\u{9b}31m\u{202e}evil\u{2066}\
            \r\x08\nnext\tcol \u{ad}soft 👨\u{200d}👩\u{200d}👧 ❤\u{fe0f} \u{3164}\x1b[36mcyan\x1b[0m 漢字漢字漢字";
        for width in [1, 5, 10, 20, 40, 200] {
            let row = fit_row(hostile, width);
            for unit in units(&row) {
                let c = unit.chars().next().unwrap();
                assert!(
                    !c.is_control() || is_sgr(unit),
                    "{width}: {unit:?} in {row:?}"
                );
                assert!(
                    !crate::cli::sanitize::is_dropped(c) || is_sgr(unit),
                    "{row:?}"
                );
                assert!(!disputed(c), "{row:?}");
            }
            assert!(visible_width(&row) <= width.max(1), "{width}: {row:?}");
        }
        assert_eq!(
            fit_row("\x1b[36mcyan text\x1b[0m", 6),
            "\x1b[36mcyan …\x1b[0m"
        );
    }

    /// After a character a terminal may count otherwise (a Unicode 15
    /// emoji: two columns here, one in tmux 3.3), the cursor is put at
    /// the column claudio counts, so what follows lands where claudio
    /// thinks, whatever the terminal's tables (#39 item 9); a table's
    /// cell, placed by its caller, gets no column.
    #[test]
    fn after_an_uncertain_character_the_cursor_is_put_where_it_is_counted() {
        let mut f = Filler::new(Some(20), "  ");
        let mut out = String::new();
        f.push(
            "a \u{1fae8} b \u{1fa77}\u{1f6dc} c \u{2630} d 漢 e\n",
            &mut out,
        );
        f.finish(&mut out);
        assert_eq!(
            out,
            "  a \u{1fae8}\x1b[7G b \u{1fa77}\x1b[12G\u{1f6dc}\x1b[14G c \u{2630}\x1b[19G d\n  漢 e\n"
        );
        // at the row's end the cursor is left to wrap
        let mut f = Filler::new(Some(6), "");
        let mut out = String::new();
        f.push("abcd\u{1fae8}\n", &mut out);
        f.finish(&mut out);
        assert_eq!(out, "abcd\u{1fae8}\n");
        let mut f = Filler::new(Some(20), "").embedded();
        let mut out = String::new();
        f.push("a \u{1fae8} b", &mut out);
        f.finish(&mut out);
        assert_eq!(out, "a \u{1fae8} b");
        // not on a terminal: as it came
        let mut f = Filler::new(None, "");
        let mut out = String::new();
        f.push("a \u{1fae8} b", &mut out);
        f.finish(&mut out);
        assert_eq!(out, "a \u{1fae8} b");
    }

    /// Every character glibc's `wcwidth` (what tmux draws with; -1 is one
    /// column there) counts otherwise than claudio is [`uncertain`] and
    /// given at least the columns glibc gives it; the others agree.
    /// Skipped, loudly, without the C.UTF-8 locale.
    #[cfg(target_os = "linux")]
    #[test]
    fn every_character_glibc_counts_otherwise_is_uncertain() {
        unsafe extern "C" {
            fn wcwidth(c: libc::wchar_t) -> libc::c_int;
        }
        let set = unsafe { libc::setlocale(libc::LC_ALL, c"C.UTF-8".as_ptr()) };
        if set.is_null() {
            eprintln!("SKIPPED: no C.UTF-8 locale, the widths are not compared with glibc");
            return;
        }
        let mut wrong = Vec::new();
        for c in (0..0x11_0000).filter_map(char::from_u32) {
            if c.is_control() || disputed(c) {
                continue;
            }
            let theirs = unsafe { wcwidth(c as libc::wchar_t) };
            let theirs = usize::try_from(theirs).unwrap_or(1);
            let ours = columns(c);
            if ours < theirs || (ours != theirs && !uncertain(c)) {
                wrong.push(format!("U+{:04X} {ours} {theirs}", c as u32));
            }
        }
        assert!(
            wrong.is_empty(),
            "{} differ: {:?}",
            wrong.len(),
            &wrong[..wrong.len().min(40)]
        );
    }

    #[test]
    fn breaks_at_spaces_and_keeps_the_indent() {
        let rows = wrap(
            "Which database should we use for the store?",
            20,
            "  ",
            "  ",
        );
        assert_eq!(
            rows,
            ["  Which database", "  should we use for", "  the store?"]
        );
        for r in &rows {
            assert!(visible_width(r) <= 20, "{r:?}");
        }
    }

    #[test]
    fn a_list_item_hangs_under_its_text_and_a_box_keeps_its_side() {
        let rows = wrap(
            "1. Add a test for /src/billing/totals.rs",
            24,
            "  │ ",
            "  │ ",
        );
        assert_eq!(
            rows,
            [
                "  │ 1. Add a test for",
                "  │    /src/billing/tota",
                "  │    ls.rs"
            ]
        );
    }

    #[test]
    fn nothing_is_cut_and_a_short_line_is_untouched() {
        let long = "x".repeat(30);
        let rows = wrap(&long, 12, "", "");
        assert_eq!(rows.concat(), long);
        assert!(rows.iter().all(|r| r.len() <= 12), "{rows:?}");
        assert_eq!(wrap("  short  one", 80, "", ""), ["  short  one"]);
        assert_eq!(wrap("", 80, "> ", ""), ["> "]);
    }

    #[test]
    fn an_indent_after_a_colour_is_kept() {
        let rows = wrap_exact("\x1b[31m    3 -  one two\x1b[0m", 14, "", "         ");
        assert_eq!(
            rows,
            ["\x1b[31m    3 -  one\x1b[0m", "         \x1b[31mtwo\x1b[0m"]
        );
    }

    #[test]
    fn colours_take_no_room_and_are_reopened_after_a_break() {
        let text = "\x1b[2mone two three four\x1b[0m five";
        let rows = wrap(text, 10, "", "");
        assert_eq!(
            rows,
            ["\x1b[2mone two\x1b[0m", "\x1b[2mthree four\x1b[0m", "five"]
        );
    }

    /// Fill `text`, cut into pieces at `cuts`, at `width`.
    fn fill(text: &str, cuts: &[usize], width: usize, margin: &str) -> String {
        fill_in(text, cuts, &[], width, margin)
    }

    /// Spaces after a word too long for its row (written as it came) go
    /// with the break: each was placed alone, on a row of spaces of its
    /// own (found by the pause proptest with wide characters at width 6).
    #[test]
    fn spaces_after_a_word_longer_than_the_row_make_no_row() {
        let text = "- 界a世界   a ";
        assert_eq!(
            fill(text, &[], 6, "  "),
            "  -\n    界\n    a\n    世\n    界\n    a "
        );
        let text = "-  -  aaaaaaaa e\u{301}aa   界a世界   a ";
        assert_eq!(
            screen(&fill_pausing(text, &[26], &[26], 6), 6),
            screen(&fill(text, &[], 6, "  "), 6)
        );
    }

    #[test]
    fn a_filler_breaks_between_words_not_inside_them() {
        let text = "The quick brown fox jumps over the lazy dog and keeps running.\n";
        assert_eq!(
            fill(text, &[], 20, ""),
            "The quick brown fox\njumps over the lazy\ndog and keeps\nrunning.\n"
        );
        // the same, however the text came in
        for cut in 0..text.len() {
            assert_eq!(fill(text, &[cut], 20, ""), fill(text, &[], 20, ""), "{cut}");
        }
    }

    #[test]
    fn a_filler_keeps_the_margin_and_the_list_indent() {
        let text =
            "- one two three four five six\n  1. seven eight nine ten\nplain words here again\n";
        assert_eq!(
            fill(text, &[], 16, "  "),
            "  - one two\n    three four\n    five six\n    1. seven\n       eight\n       nine ten\n  plain words\n  here again\n"
        );
    }

    #[test]
    fn a_word_longer_than_a_row_is_broken_and_never_held_whole() {
        let word = "x".repeat(25);
        let mut f = Filler::new(Some(10), "");
        let mut out = String::new();
        f.push(&format!("ab {word}"), &mut out);
        // more than a row of it arrived: a row is out already
        assert!(out.contains("xxxxxxxxxx"), "{out:?}");
        f.push(" cd", &mut out);
        f.finish(&mut out);
        assert_eq!(out, "ab\nxxxxxxxxxx\nxxxxxxxxxx\nxxxxx cd");
    }

    #[test]
    fn a_filler_counts_columns_not_colours_and_reopens_them() {
        let text = "\x1b[1mbold words that wrap\x1b[0m then plain\n";
        let out = fill(text, &[], 12, "");
        assert_eq!(
            out,
            "\x1b[1mbold words\x1b[0m\n\x1b[1mthat wrap\x1b[0m\nthen plain\n"
        );
        // wide characters take two columns
        assert_eq!(
            fill("日本語 日本語 日本語", &[], 14, ""),
            "日本語 日本語\n日本語"
        );
    }

    #[test]
    fn raw_lines_are_left_whole_and_no_width_breaks_nothing() {
        let code =
            format!("{RAW_LINE}fn main() {{ println!(\"a long line of code\"); }}\nnext words\n");
        assert_eq!(
            fill(&code, &[], 12, ""),
            "fn main() { println!(\"a long line of code\"); }\nnext words\n"
        );
        let mut f = Filler::new(None, "  ");
        let mut out = String::new();
        f.push("a line far longer than any terminal\n\tsecond\n", &mut out);
        f.finish(&mut out);
        assert_eq!(out, "  a line far longer than any terminal\n  \tsecond\n");
    }

    #[test]
    fn the_width_is_read_as_each_word_is_placed() {
        let mut f = Filler::new(Some(40), "");
        let mut out = String::new();
        f.push("one two three ", &mut out);
        f.set_width(Some(10));
        f.push("four five six\n", &mut out);
        assert_eq!(out, "one two three\nfour five\nsix\n");
    }

    /// What `out` leaves on a terminal `width` columns wide (line feeds
    /// as a terminal's output processing makes them), row by row.
    fn screen(out: &str, width: usize) -> Vec<String> {
        let mut t = vt100::Parser::new(60, width as u16, 0);
        t.process(out.replace('\n', "\r\n").as_bytes());
        let rows: Vec<String> = t
            .screen()
            .rows(0, width as u16)
            .map(|r| r.trim_end().to_owned())
            .collect();
        let last = rows
            .iter()
            .rposition(|r| !r.is_empty())
            .map_or(0, |i| i + 1);
        rows[..last].to_vec()
    }

    /// Fill `text` cut at `cuts`, the text pausing (a word's part shown)
    /// after the pieces whose end is in `pauses`.
    fn fill_pausing(text: &str, cuts: &[usize], pauses: &[usize], width: usize) -> String {
        fill_in(text, cuts, pauses, width, "  ")
    }

    /// [`fill_pausing`] with any margin.
    fn fill_in(text: &str, cuts: &[usize], pauses: &[usize], width: usize, margin: &str) -> String {
        let mut f = Filler::new(Some(width), margin);
        let mut out = String::new();
        let mut at = 0;
        for &c in cuts {
            if c > at && c < text.len() && text.is_char_boundary(c) {
                f.push(&text[at..c], &mut out);
                if pauses.contains(&c) {
                    f.show_held(&mut out);
                }
                at = c;
            }
        }
        f.push(&text[at..], &mut out);
        f.finish(&mut out);
        out
    }

    /// A word shown in part during a pause, whose rest then overflows the
    /// row: taken back and written whole on the next row (#5).
    #[test]
    fn a_word_shown_in_a_pause_moves_whole_when_its_rest_overflows() {
        let text = "the index is rebuilt when the file is newer\n";
        let at = text.find("rebuilt").unwrap() + 3;
        let paused = fill_pausing(text, &[at], &[at], 20);
        assert_eq!(
            screen(&paused, 20),
            ["  the index is", "  rebuilt when the", "  file is newer"]
        );
        assert_eq!(screen(&paused, 20), screen(&fill(text, &[], 20, "  "), 20));
        // shown, and still fitting: it goes on where it is
        let short = "the index is new\n";
        let at = short.find("new").unwrap() + 1;
        let out = fill_pausing(short, &[at], &[at], 20);
        assert_eq!(out, "  the index is new\n");
    }

    /// Spaces that reach the row's end, then a word: the word goes to the
    /// next row (it was written past the width when the row held nothing
    /// but those spaces; found by the attack round).
    #[test]
    fn a_word_after_spaces_to_the_row_s_end_goes_to_the_next_row() {
        for (width, text) in [
            (7, "世世aa世世aaaa世aa世世aaa世世aaa \t a \n"),
            (10, "abc\n          x\n"),
            (8, "a\t\t\tb\n"),
        ] {
            let mut f = Filler::new(Some(width), "  ");
            let mut out = String::new();
            f.push(text, &mut out);
            f.finish(&mut out);
            for row in out.lines() {
                assert!(visible_width(row) <= width, "{width}: {row:?} in {out:?}");
            }
            let words = |s: &str| s.split_whitespace().collect::<String>();
            assert_eq!(words(&out), words(text), "{out:?}");
        }
    }

    /// A mark that takes no room (a combining accent, a variation
    /// selector) coming after a pause at a line's end is written: it was
    /// held as a word of no width and dropped with the line's spaces.
    #[test]
    fn a_mark_of_no_width_after_a_pause_is_kept() {
        for text in [
            "see the cafe\u{301}\n",
            "I \u{2764}\u{fe0f}\n",
            "a b\u{200d}\n",
        ] {
            let at = text
                .rfind(|c: char| c.is_alphanumeric() || c == '\u{2764}')
                .unwrap();
            let at = at + text[at..].chars().next().unwrap().len_utf8();
            let paused = fill_pausing(text, &[at], &[at], 20);
            assert_eq!(paused, fill(text, &[], 20, "  "), "{text:?}");
        }
    }

    /// The words joined by the separators, cut at `cuts` (not inside a
    /// colour sequence) and paused at every `pause_every`th cut: the
    /// screen must end as without the pauses, and with `no_overflow` no
    /// row may pass the width.
    fn pauses_change_nothing(
        words: &[String],
        seps: &[&str],
        width: usize,
        cuts: Vec<usize>,
        pause_every: usize,
        no_overflow: bool,
    ) -> Result<(), proptest::test_runner::TestCaseError> {
        let mut text = String::new();
        for (w, sep) in words.iter().zip(seps) {
            text.push_str(w);
            text.push_str(sep);
        }
        // colour sequences come whole (the markdown styler makes them)
        let inside_sgr = |c: usize| {
            text[..c]
                .rfind('\x1b')
                .is_some_and(|e| !text[e..c].contains('m'))
        };
        let mut cuts: Vec<usize> = cuts
            .into_iter()
            .filter(|&c| c < text.len() && text.is_char_boundary(c) && !inside_sgr(c))
            .collect();
        cuts.sort_unstable();
        cuts.dedup();
        let pauses: Vec<usize> = cuts.iter().copied().step_by(pause_every).collect();
        let paused = fill_pausing(&text, &cuts, &pauses, width);
        let whole = fill(&text, &[], width, "  ");
        if no_overflow {
            for row in whole.lines() {
                proptest::prop_assert!(visible_width(row) <= width, "{:?} in {:?}", row, whole);
            }
        }
        proptest::prop_assert_eq!(
            screen(&paused, width),
            screen(&whole, width),
            "{:?}",
            paused
        );
        Ok(())
    }

    proptest::proptest! {
        /// However the text came in and wherever it paused, the screen
        /// ends as it would have without a pause.
        #[test]
        fn pauses_leave_the_screen_as_without_them(
            words in proptest::collection::vec("[a-z]{1,9}|\x1b\\[1m[a-z]{1,4}\x1b\\[0m|- ", 1..40),
            seps in proptest::collection::vec(proptest::prop_oneof![5 => proptest::strategy::Just(" "), 1 => proptest::strategy::Just("\n")], 40),
            width in 12usize..40,
            cuts in proptest::collection::vec(0usize..300, 0..12),
            pause_every in 1usize..3,
        ) {
            pauses_change_nothing(&words, &seps, width, cuts, pause_every, false)?;
        }

        /// The same with wide characters, combining marks, tabs and runs
        /// of spaces, on narrow rows too; and no row over the width.
        #[test]
        fn pauses_leave_the_screen_as_without_them_in_any_script(
            words in proptest::collection::vec("[a-z]{1,9}|[世界a]{1,5}|e\u{301}[a-z]{0,3}|\u{2764}\u{fe0f}|- ", 1..40),
            seps in proptest::collection::vec(proptest::prop_oneof![5 => proptest::strategy::Just(" "), 1 => proptest::strategy::Just("\n"), 1 => proptest::strategy::Just("\t"), 1 => proptest::strategy::Just("   ")], 40),
            width in 6usize..40,
            cuts in proptest::collection::vec(0usize..300, 0..12),
            pause_every in 1usize..3,
        ) {
            pauses_change_nothing(&words, &seps, width, cuts, pause_every, true)?;
        }
    }
}
