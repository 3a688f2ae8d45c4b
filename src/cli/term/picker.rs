//! A list to choose from, on the terminal: the model's questions, plan
//! approval, the prompt to rewind to.
//!
//! Keys in, an outcome out; drawing is text out. Pure, so it is tested
//! without a terminal: `Picker::key` decides, `Picker::lines` draws,
//! `redraw` turns two drawings into what to write, and `InPlace` is a
//! picker drawn in place under the screen's last line, as the chat's
//! dialog and the rewind picker draw it.
//!
//! Keys: a digit picks that option (toggles it under multi-select); ↑/↓
//! move; Space toggles (multi-select); Enter chooses; any other character
//! starts the person's own answer on the last row, when the picker takes
//! one; Esc or Ctrl-C declines.

use crate::cli::sanitize::Sanitizer;
use crate::cli::term::style::Style;
use crate::cli::term::wrap::{visible_width, wrap};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use unicode_width::UnicodeWidthStr;

/// One row to choose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    pub label: String,
    pub description: String,
}

impl Choice {
    pub fn new(label: impl Into<String>, description: impl Into<String>) -> Choice {
        Choice {
            label: label.into(),
            description: description.into(),
        }
    }
}

/// What the person picked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Picked {
    /// These options (indices, in order; one unless multi-select), and the
    /// text typed on the last row, if any.
    Chosen(Vec<usize>, Option<String>),
    /// Esc or Ctrl-C.
    Declined,
}

#[derive(Debug, Clone)]
pub struct Picker {
    choices: Vec<Choice>,
    multi: bool,
    /// The label of the typed-answer row (`None`: no such row).
    other: Option<String>,
    cursor: usize,
    toggled: Vec<bool>,
    typed: String,
}

impl Picker {
    pub fn new(choices: Vec<Choice>) -> Picker {
        let n = choices.len();
        Picker {
            choices,
            multi: false,
            other: None,
            cursor: 0,
            toggled: vec![false; n],
            typed: String::new(),
        }
    }

    /// Put the cursor on row `i`.
    pub fn start_at(mut self, i: usize) -> Picker {
        self.cursor = i.min(self.rows().saturating_sub(1));
        self
    }

    /// Several options may be chosen (Space or a digit toggles).
    pub fn multi(mut self, multi: bool) -> Picker {
        self.multi = multi;
        self
    }

    /// Add a last row that takes a typed answer, labelled `label` while empty.
    pub fn other(mut self, label: impl Into<String>) -> Picker {
        self.other = Some(label.into());
        self
    }

    fn rows(&self) -> usize {
        self.choices.len() + usize::from(self.other.is_some())
    }

    fn on_other(&self) -> bool {
        self.other.is_some() && self.cursor == self.choices.len()
    }

    /// The text typed on the last row so far.
    #[cfg(test)]
    pub fn typed(&self) -> &str {
        &self.typed
    }

    /// Feed one key; `Some` when decided.
    pub fn key(&mut self, key: KeyEvent) -> Option<Picked> {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let rows = self.rows();
        match key.code {
            KeyCode::Esc => return Some(Picked::Declined),
            KeyCode::Char('c') | KeyCode::Char('d') if ctrl => return Some(Picked::Declined),
            KeyCode::Char('u') if ctrl => self.typed.clear(),
            KeyCode::Up | KeyCode::BackTab => self.cursor = (self.cursor + rows - 1) % rows.max(1),
            KeyCode::Down | KeyCode::Tab => self.cursor = (self.cursor + 1) % rows.max(1),
            KeyCode::Backspace => {
                self.typed.pop();
            }
            KeyCode::Enter => return self.enter(),
            KeyCode::Char(' ') if self.multi && !self.on_other() => {
                if let Some(t) = self.toggled.get_mut(self.cursor) {
                    *t = !*t;
                }
            }
            KeyCode::Char(c) if !ctrl && c.is_ascii_digit() && self.typed.is_empty() => {
                let i = (c as usize).wrapping_sub('1' as usize);
                if i < self.choices.len() {
                    self.cursor = i;
                    if self.multi {
                        self.toggled[i] = !self.toggled[i];
                    } else {
                        return Some(Picked::Chosen(vec![i], None));
                    }
                } else if i == self.choices.len() && self.other.is_some() {
                    self.cursor = i;
                }
            }
            KeyCode::Char(c) if !ctrl && !c.is_control() && self.other.is_some() => {
                self.cursor = self.choices.len();
                self.typed.push(c);
            }
            _ => {}
        }
        None
    }

    /// Pasted text joins the typed answer (newlines become spaces).
    pub fn paste(&mut self, text: &str) {
        if self.other.is_none() {
            return;
        }
        self.cursor = self.choices.len();
        self.typed.extend(
            text.chars()
                .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
                .filter(|c| !c.is_control()),
        );
    }

    fn enter(&mut self) -> Option<Picked> {
        let typed = Some(self.typed.trim().to_owned()).filter(|t| !t.is_empty());
        if self.multi {
            let chosen: Vec<usize> = (0..self.choices.len())
                .filter(|&i| self.toggled[i])
                .collect();
            if !chosen.is_empty() || typed.is_some() {
                return Some(Picked::Chosen(chosen, typed));
            }
        }
        if self.on_other() {
            // an empty answer is no answer: keep asking
            return typed.map(|t| Picked::Chosen(Vec::new(), Some(t)));
        }
        (self.cursor < self.choices.len()).then(|| Picked::Chosen(vec![self.cursor], None))
    }

    /// The rows as drawn, each within `width` columns.
    #[cfg(test)]
    pub fn lines(&self, style: Style, width: usize) -> Vec<String> {
        self.lines_within(style, width, usize::MAX)
    }

    /// The rows as drawn, at most `max_rows` lines: a longer list shows
    /// the part around the cursor, with a line saying how many rows are
    /// above and below (a drawing taller than the screen could not be
    /// redrawn). A row longer than `width` wraps under its text: nothing
    /// the person must read is cut.
    pub fn lines_within(&self, style: Style, width: usize, max_rows: usize) -> Vec<String> {
        let rows = self.all_rows(style, width);
        let total: usize = rows.iter().map(Vec::len).sum();
        let max_rows = max_rows.max(3);
        if total <= max_rows {
            return rows.concat();
        }
        // the cursor's row, then rows above it up to half the room, then
        // below it, then above again while there is room
        let room = max_rows - 2;
        let at = self.cursor.min(rows.len() - 1);
        let (mut start, mut end) = (at, at + 1);
        let mut used = rows[at].len();
        while start > 0 && used + rows[start - 1].len() <= room / 2 + rows[at].len() {
            start -= 1;
            used += rows[start].len();
        }
        while end < rows.len() && used + rows[end].len() <= room {
            used += rows[end].len();
            end += 1;
        }
        while start > 0 && used + rows[start - 1].len() <= room {
            start -= 1;
            used += rows[start].len();
        }
        let mut out = Vec::with_capacity(max_rows);
        out.push(format!("    {}", style.dim(&format!("↑ {start} more"))));
        out.extend(rows[start..end].concat().into_iter().take(room));
        out.push(format!(
            "    {}",
            style.dim(&format!("↓ {} more", rows.len() - end))
        ));
        out
    }

    /// The drawing under a question: the rows within `height` and, unless
    /// a choice was made (`help` false), the key help, wrapped in `width`.
    pub fn drawing(&self, style: Style, width: usize, height: usize, help: bool) -> Vec<String> {
        let help = if help {
            wrap(&style.dim(&self.help()), width, "  ", "  ")
        } else {
            Vec::new()
        };
        let mut lines = self.lines_within(style, width, height.saturating_sub(3 + help.len()));
        lines.extend(help);
        lines
    }

    /// Each row's lines: the pointer, the mark, the label and, dimmed, the
    /// description, wrapped under the label's text.
    fn all_rows(&self, style: Style, width: usize) -> Vec<Vec<String>> {
        let mut out = Vec::new();
        for (i, c) in self.choices.iter().enumerate() {
            let here = i == self.cursor;
            let pointer = if here { style.cyan("›") } else { " ".into() };
            let mark = if self.multi {
                if self.toggled[i] {
                    style.green("[x] ")
                } else {
                    "[ ] ".into()
                }
            } else {
                String::new()
            };
            // one row: a newline in a label would draw a row not counted
            // here, and could draw another choice that is not there
            let label = Sanitizer::clean(&c.label);
            let label = label.split_whitespace().collect::<Vec<_>>().join(" ");
            let label = format!("{}. {label}", i + 1);
            let mut text = if here { style.bold(&label) } else { label };
            let desc = Sanitizer::clean(&c.description);
            let desc = desc.split_whitespace().collect::<Vec<_>>().join(" ");
            if !desc.is_empty() {
                text.push_str("  ");
                text.push_str(&style.dim(&desc));
            }
            let first = format!("  {pointer} {mark}");
            let rest = " ".repeat(visible_width(&first));
            out.push(wrap(&text, width, &first, &rest));
        }
        if let Some(label) = &self.other {
            let i = self.choices.len();
            let here = self.cursor == i;
            let pointer = if here { style.cyan("›") } else { " ".into() };
            let first = format!("  {pointer} ");
            let rows = if self.typed.is_empty() {
                let text = style.dim(&format!("{}. {label}", i + 1));
                wrap(&text, width, &first, "    ")
            } else {
                let typed = Sanitizer::clean(&self.typed);
                // the end of a long answer is what is being typed
                let room = width.saturating_sub(8).max(8);
                let shown = tail_width(&typed, room);
                vec![format!("{first}{}. {shown}", i + 1)]
            };
            out.push(rows);
        }
        out
    }

    /// The key help line under the rows: what each key does now (once an
    /// answer is being typed, digits and space are its text, and Enter
    /// sends it).
    pub fn help(&self) -> String {
        let mut parts = vec!["↑/↓ move"];
        if !self.typed.is_empty() && self.on_other() {
            parts.push("enter sends your answer");
            parts.push("ctrl-u clears it");
        } else if !self.typed.is_empty() {
            // the typed answer stays on its row; Enter takes this one
            parts.push(if self.multi {
                "space toggles"
            } else {
                "enter chooses"
            });
            if self.multi {
                parts.push("enter confirms");
            }
            parts.push("typing adds to your answer");
        } else {
            if self.multi {
                parts.push("space toggles");
                parts.push("enter confirms");
            } else {
                parts.push("enter or a digit chooses");
            }
            if self.other.is_some() {
                parts.push("or type your own");
            }
        }
        parts.push("esc declines");
        parts.join(" · ")
    }
}

/// The end of `s`, at most `width` columns, with `…` in front when cut.
fn tail_width(s: &str, width: usize) -> String {
    if s.width() <= width {
        return s.to_owned();
    }
    let mut out: Vec<char> = Vec::new();
    let mut w = 1;
    for c in s.chars().rev() {
        let cw = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if w + cw > width {
            break;
        }
        w += cw;
        out.push(c);
    }
    out.push('…');
    out.iter().rev().collect()
}

/// What to write to replace a drawing of `old` lines with `new` (the cursor
/// is at the end of the old drawing's last line, which has no newline).
pub fn redraw(old: usize, new: &[String]) -> String {
    let mut out = String::new();
    if old > 1 {
        out.push_str(&format!("\x1b[{}A", old - 1));
    }
    out.push_str("\r\x1b[J");
    out.push_str(&new.join("\r\n"));
    out
}

/// Shows the cursor again (a picker drawn in place hides it).
pub const SHOW_CURSOR: &str = "\x1b[?25h";
const HIDE_CURSOR: &str = "\x1b[?25l";

/// A picker drawn in place under what is already on the screen, redrawn as
/// keys come, with the cursor hidden until a choice is made: text out, for
/// whoever writes it (the chat's dialog, the rewind picker).
#[derive(Debug)]
pub struct InPlace {
    picker: Picker,
    style: Style,
    width: usize,
    height: usize,
    /// How many lines the last drawing took.
    shown: usize,
    /// How many rows of the screen it took (a line wider than the screen
    /// takes more than one).
    rows: usize,
    /// The rows drawn above it that belong to it (a question's head).
    above: usize,
    /// The screen may have changed under it since (a resize): what is
    /// where is no longer known, so nothing is erased.
    moved: bool,
}

impl InPlace {
    /// Draw `picker` (with its key help) on a screen `width` × `height`:
    /// the picker, and the text to write.
    pub fn start(picker: Picker, style: Style, width: usize, height: usize) -> (InPlace, String) {
        let now = picker.drawing(style, width, height, true);
        let text = format!("{}{HIDE_CURSOR}", now.join("\r\n"));
        let drawn = InPlace {
            picker,
            style,
            width,
            height,
            shown: now.len(),
            rows: now.iter().map(|l| screen_rows(l, width)).sum(),
            above: 0,
            moved: false,
        };
        (drawn, text)
    }

    /// `text` drawn just above the picker belongs to it: it goes too when
    /// the picker is replaced ([`InPlace::replace`]).
    pub fn owns_above(mut self, text: &str) -> InPlace {
        self.above = screen_rows(text, self.width);
        self
    }

    /// Feed one key: what to write (the picker redrawn while nothing is
    /// chosen) and, once chosen, the choice (then [`InPlace::settle`] or
    /// [`InPlace::replace`]).
    pub fn key(&mut self, key: KeyEvent) -> (String, Option<Picked>) {
        match self.picker.key(key) {
            Some(picked) => (String::new(), Some(picked)),
            None => (self.redraw(), None),
        }
    }

    /// Pasted text joins the typed answer; the picker redrawn.
    pub fn paste(&mut self, text: &str) -> String {
        self.picker.paste(text);
        self.redraw()
    }

    /// The screen is now `width` × `height`, or was written over (`None`):
    /// what is where is no longer known, so nothing drawn before is erased
    /// by [`InPlace::replace`].
    pub fn screen_changed(&mut self, size: Option<(usize, usize)>) {
        if let Some((w, h)) = size {
            (self.width, self.height) = (w, h);
        }
        self.moved = true;
    }

    /// The picker drawn again (after a resize, say).
    pub fn redraw(&mut self) -> String {
        let now = self
            .picker
            .drawing(self.style, self.width, self.height, true);
        let text = redraw(self.shown, &now);
        self.shown = now.len();
        self.rows = now.iter().map(|l| screen_rows(l, self.width)).sum();
        text
    }

    /// A choice was made: the picker stays drawn without its help, and the
    /// cursor comes back under it.
    pub fn settle(&mut self) -> String {
        let now = self
            .picker
            .drawing(self.style, self.width, self.height, false);
        let mut text = redraw(self.shown, &now);
        self.shown = now.len();
        text.push_str("\r\n");
        text.push_str(SHOW_CURSOR);
        text
    }

    /// A choice was made: the picker and what it owns above make way for
    /// `lines`, when what they took is known (nothing moved, none of it
    /// scrolled away); `None` when it is not.
    pub fn replace(&self, lines: &[String]) -> Option<String> {
        let rows = self.above + self.rows;
        (!self.moved && rows <= self.height).then(|| {
            let mut text = redraw(rows, lines);
            text.push_str("\r\n");
            text.push_str(SHOW_CURSOR);
            text
        })
    }

    /// Nothing was chosen (the request went away): the cursor comes back
    /// under the picker.
    pub fn close(self) -> String {
        format!("\r\n{SHOW_CURSOR}")
    }
}

/// The rows `text` takes on a screen `width` columns wide: each of its
/// lines one row, or more when wider than the screen.
pub fn screen_rows(text: &str, width: usize) -> usize {
    text.lines()
        .map(|l| crate::cli::term::wrap::terminal_rows(l, width))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::term::wrap::strip_sgr;

    fn k(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn abc() -> Vec<Choice> {
        vec![
            Choice::new("SQLite", "a file"),
            Choice::new("Postgres", "a server"),
            Choice::new("None", ""),
        ]
    }

    #[test]
    fn a_digit_chooses_at_once() {
        let mut p = Picker::new(abc()).other("Type something");
        assert_eq!(
            p.key(k(KeyCode::Char('2'))),
            Some(Picked::Chosen(vec![1], None))
        );
        // out of range: nothing
        let mut p = Picker::new(abc());
        assert_eq!(p.key(k(KeyCode::Char('9'))), None);
    }

    #[test]
    fn arrows_and_enter() {
        let mut p = Picker::new(abc());
        p.key(k(KeyCode::Down));
        p.key(k(KeyCode::Down));
        p.key(k(KeyCode::Down)); // wraps to the first
        p.key(k(KeyCode::Down));
        assert_eq!(
            p.key(k(KeyCode::Enter)),
            Some(Picked::Chosen(vec![1], None))
        );
        let mut p = Picker::new(abc());
        p.key(k(KeyCode::Up));
        assert_eq!(
            p.key(k(KeyCode::Enter)),
            Some(Picked::Chosen(vec![2], None))
        );
    }

    #[test]
    fn multi_select_toggles_with_space_and_digits() {
        let mut p = Picker::new(abc()).multi(true).other("Other");
        p.key(k(KeyCode::Char(' ')));
        p.key(k(KeyCode::Char('3')));
        p.key(k(KeyCode::Char('2')));
        p.key(k(KeyCode::Char('2')));
        assert_eq!(
            p.key(k(KeyCode::Enter)),
            Some(Picked::Chosen(vec![0, 2], None))
        );
        let lines = p.lines(Style::plain(), 80);
        assert!(lines[0].contains("[x] 1. SQLite"), "{lines:?}");
        assert!(lines[1].contains("[ ] 2. Postgres"), "{lines:?}");
    }

    #[test]
    fn typing_gives_an_own_answer_and_digits_then_are_text() {
        let mut p = Picker::new(abc()).other("Type something");
        for c in "use 2 dbs".chars() {
            assert_eq!(p.key(k(KeyCode::Char(c))), None);
        }
        p.key(k(KeyCode::Backspace));
        p.paste("s\nplease\u{1b}");
        assert_eq!(
            p.key(k(KeyCode::Enter)),
            Some(Picked::Chosen(vec![], Some("use 2 dbs please".into())))
        );
        // an empty typed row is not an answer
        let mut p = Picker::new(abc()).other("Type something");
        p.key(k(KeyCode::Up));
        assert_eq!(p.key(k(KeyCode::Enter)), None);
        // without the row, letters do nothing
        let mut p = Picker::new(abc());
        assert_eq!(p.key(k(KeyCode::Char('x'))), None);
        assert_eq!(p.typed(), "");
    }

    #[test]
    fn the_help_says_what_the_keys_do_while_an_answer_is_typed() {
        let mut p = Picker::new(abc()).other("Type something");
        assert_eq!(
            p.help(),
            "↑/↓ move · enter or a digit chooses · or type your own · esc declines"
        );
        for c in "use 2".chars() {
            p.key(k(KeyCode::Char(c)));
        }
        assert_eq!(
            p.help(),
            "↑/↓ move · enter sends your answer · ctrl-u clears it · esc declines"
        );
        // on an option again: Enter takes it, typing goes on with the answer
        p.key(k(KeyCode::Up));
        assert_eq!(
            p.help(),
            "↑/↓ move · enter chooses · typing adds to your answer · esc declines"
        );
        assert_eq!(
            p.clone().key(k(KeyCode::Enter)),
            Some(Picked::Chosen(vec![2], None))
        );
        p.key(k(KeyCode::Char('!')));
        assert_eq!(p.typed(), "use 2!");
        let ctrl_u = KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL);
        p.key(ctrl_u);
        assert!(
            p.help().contains("enter or a digit chooses"),
            "{}",
            p.help()
        );
        // multi-select: space is text while typing
        let mut p = Picker::new(abc()).multi(true).other("Other");
        assert_eq!(
            p.help(),
            "↑/↓ move · space toggles · enter confirms · or type your own · esc declines"
        );
        p.key(k(KeyCode::Char('x')));
        p.key(k(KeyCode::Char(' ')));
        assert_eq!(p.typed(), "x ");
        assert!(p.help().contains("enter sends your answer"), "{}", p.help());
    }

    #[test]
    fn esc_and_ctrl_c_decline() {
        let mut p = Picker::new(abc());
        assert_eq!(p.key(k(KeyCode::Esc)), Some(Picked::Declined));
        let mut p = Picker::new(abc());
        let c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(p.key(c), Some(Picked::Declined));
    }

    #[test]
    fn drawing_is_inert_and_fits() {
        let mut choices = abc();
        choices[0].label = "evil\u{1b}]52;c;AAAA\u{7}label".into();
        choices[1].description = "x".repeat(300);
        let p = Picker::new(choices).other("Other");
        let lines = p.lines(
            Style::decide(crate::cli::args::ColorChoice::Always, true),
            40,
        );
        for l in &lines {
            assert!(!strip_sgr(l).contains('\u{1b}'), "{l:?}");
            assert!(strip_sgr(l).width() <= 40, "{l:?}");
        }
        assert!(strip_sgr(&lines[0]).contains("› 1. evillabel"), "{lines:?}");
        assert_eq!(strip_sgr(&lines[1]), "    2. Postgres", "{lines:?}");
        assert!(
            strip_sgr(lines.last().unwrap()).contains("4. Other"),
            "{lines:?}"
        );
        // nothing is cut: the long description is all there, under its label
        let xs: usize = lines
            .iter()
            .map(|l| strip_sgr(l).matches('x').count())
            .sum();
        assert_eq!(xs, 300, "{lines:?}");
        assert!(strip_sgr(&lines[2]).starts_with("       x"), "{lines:?}");
    }

    /// A label is one row: a newline in it would draw a row the picker
    /// does not count (each redraw then lands a row off), and could draw
    /// what looks like another choice under it.
    #[test]
    fn a_label_with_newlines_is_one_row() {
        let mut choices = abc();
        choices[0].label = "SQLite\n  › 2. Postgres\r\n\u{2028}x".into();
        let p = Picker::new(choices);
        let lines = p.lines(Style::plain(), 80);
        assert_eq!(lines.len(), 3, "{lines:?}");
        for l in &lines {
            assert!(!l.contains(['\n', '\r', '\u{2028}']), "{l:?}");
        }
        assert!(lines[0].contains("1. SQLite › 2. Postgres x"), "{lines:?}");
    }

    #[test]
    fn a_long_list_shows_the_part_around_the_cursor() {
        let choices: Vec<Choice> = (1..=50).map(|i| Choice::new(format!("p{i}"), "")).collect();
        let p = Picker::new(choices).start_at(49);
        let lines = p.lines_within(Style::plain(), 80, 10);
        assert_eq!(lines.len(), 10, "{lines:?}");
        assert!(lines[0].contains("↑ 42 more"), "{lines:?}");
        assert!(lines[8].contains("› 50. p50"), "{lines:?}");
        assert!(lines[9].contains("↓ 0 more"), "{lines:?}");
        let p = Picker::new((1..=50).map(|i| Choice::new(format!("p{i}"), "")).collect());
        let lines = p.lines_within(Style::plain(), 80, 10);
        assert!(lines[1].contains("› 1. p1"), "{lines:?}");
        assert!(lines[9].contains("↓ 42 more"), "{lines:?}");
    }

    #[test]
    fn redraw_moves_up_and_clears() {
        assert_eq!(redraw(1, &["a".into()]), "\r\x1b[Ja");
        assert_eq!(
            redraw(3, &["a".into(), "b".into()]),
            "\x1b[2A\r\x1b[Ja\r\nb"
        );
    }
}
