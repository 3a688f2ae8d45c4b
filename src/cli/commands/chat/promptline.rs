//! The prompt line as a pure machine: keys in, the line, its cursor and
//! what the chat must do out. No terminal: [`super::keys::Keys`] reads the
//! keys, [`layout`] says where the line's text and cursor go on the screen.
//!
//! The edits are rustyline's own ([`LineBuffer`]: inserting, deleting,
//! the word moves and kills, transposing) and so is the history
//! ([`History`], kept in its file by [`rustyline::history::FileHistory`]):
//! rustyline for its job, line editing and history, while the terminal is
//! read by one reader for the whole chat (see `keys.rs`). What is the
//! chat's own is here: the keys that stop the prompt with a
//! [`PromptAction`] (Shift-Tab, Esc Esc, Ctrl-G, Ctrl-V), the continuation
//! of a line ending in `\`, Alt-Enter's newline, Tab's completion, and the
//! reverse search through the history (Ctrl-R).

use super::keys::TermEvent;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use rustyline::history::{History, SearchDirection};
use rustyline::line_buffer::{ChangeListener, DeleteListener, Direction, LineBuffer, WordAction};
use rustyline::{At, Word};
use std::time::{Duration, Instant};
use unicode_width::UnicodeWidthChar;

/// A key at the prompt that the chat handles itself: the line editor stops
/// (as for Ctrl-C) and the reading gives this back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PromptAction {
    /// Shift-Tab: the next permission mode; the line as it was, split at
    /// the cursor, to type on.
    CycleMode { before: String, after: String },
    /// Esc Esc at an empty prompt.
    Rewind,
    /// Ctrl-G (or Ctrl-X Ctrl-E): the line in `$VISUAL`/`$EDITOR`.
    Edit { line: String },
    /// Ctrl-V: the clipboard's image as a marker at the cursor.
    PasteImage { before: String, after: String },
}

/// What reading a line at the prompt gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Read {
    /// Enter: the line.
    Line(String),
    /// A key the chat handles itself stopped the editor.
    Action(PromptAction),
    /// Ctrl-C.
    Interrupted,
    /// Ctrl-D on an empty line.
    Eof,
}

/// Two Esc presses within this time at an empty prompt open rewind.
pub const DOUBLE_ESC: Duration = Duration::from_millis(800);

/// The buffer's first capacity. rustyline's `LineBuffer` never grows by
/// itself past the capacity it was made with (an `update` longer is cut
/// there, a key past it is dropped): [`PromptLine::fit`] puts a larger one
/// in its place first.
const CAPACITY: usize = 1024;

/// Tab's completion: for the line and the cursor, where the word to
/// complete starts, and each name offered as listed and as put in.
pub type Complete = dyn Fn(&str, usize) -> (usize, Vec<(String, String)>);

/// The most changes Ctrl-_ can undo in one reading.
const UNDO_MAX: usize = 200;
/// The most bytes of lines kept for undo (the last change is always kept).
const UNDO_BYTES: usize = 16 << 20;

/// What a key asks of the prompt's owner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing to do.
    Nothing,
    /// The line, the cursor or the search changed: draw it again.
    Redraw,
    /// Tab found several names: list them under the line, then draw it.
    List(Vec<String>),
    /// Ctrl-L: clear the screen and draw the line at the top.
    ClearScreen,
    /// Ctrl-Z: stop the chat (the shell's `fg` brings it back).
    Suspend,
    /// The key does nothing here.
    Bell,
    /// The reading is over.
    Done(Read),
}

/// Keeps what a kill removed, for Ctrl-Y.
#[derive(Default)]
struct Kills {
    /// Inside one kill (a word, the line's end): what it removed.
    killing: bool,
    last: String,
}

impl DeleteListener for Kills {
    fn start_killing(&mut self) {
        self.killing = true;
    }
    fn delete(&mut self, _idx: usize, string: &str, dir: Direction) {
        if !self.killing {
            return;
        }
        let _: Direction = dir;
        self.last = string.to_owned();
    }
    fn stop_killing(&mut self) {
        self.killing = false;
    }
}

impl ChangeListener for Kills {
    fn insert_char(&mut self, _idx: usize, _c: char) {}
    fn insert_str(&mut self, _idx: usize, _string: &str) {}
    fn replace(&mut self, _idx: usize, _old: &str, _new: &str) {}
}

/// Ctrl-R: the reverse search through the history.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Search {
    /// What is searched for.
    term: String,
    /// The history entry found, if any.
    found: Option<usize>,
    /// The last search found nothing (the line stays as it was).
    failed: bool,
    /// The line as it was before the search (Ctrl-G puts it back).
    before: (String, usize),
}

/// vi's two modes (with `--vi`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Vi {
    Insert,
    Command,
}

/// The prompt line being typed.
pub struct PromptLine<H: History> {
    buf: LineBuffer,
    /// What `buf` was made to hold ([`PromptLine::fit`]).
    cap: usize,
    history: H,
    /// Where Up and Down are in the history: `None` for the line typed.
    at: Option<usize>,
    /// The line typed, kept while the history is browsed.
    draft: String,
    kills: Kills,
    /// The first Esc of a possible Esc Esc.
    esc_at: Option<Instant>,
    /// Ctrl-X came: Ctrl-E next opens the editor.
    ctrl_x: bool,
    /// The last key was a Tab that completed nothing new: the next lists.
    tabbed: bool,
    search: Option<Search>,
    /// `Some` with `--vi`.
    vi: Option<Vi>,
    /// The line and cursor before each change of this reading, for undo
    /// (Ctrl-_): rustyline's own undo is not public.
    undo: Vec<(String, usize)>,
    /// vi's `d` waits for its motion.
    vi_d: bool,
}

impl<H: History> PromptLine<H> {
    pub fn new(history: H, vi: bool) -> PromptLine<H> {
        PromptLine {
            buf: LineBuffer::with_capacity(CAPACITY),
            cap: CAPACITY,
            history,
            at: None,
            draft: String::new(),
            kills: Kills::default(),
            esc_at: None,
            ctrl_x: false,
            tabbed: false,
            search: None,
            vi: vi.then_some(Vi::Insert),
            vi_d: false,
            undo: Vec::new(),
        }
    }

    /// A new reading, starting with `before` and `after` the cursor.
    pub fn start(&mut self, before: &str, after: &str) {
        let text = format!("{before}{after}");
        self.fit(text.len());
        self.buf.update(&text, before.len(), &mut self.kills);
        self.at = None;
        self.draft.clear();
        self.esc_at = None;
        self.ctrl_x = false;
        self.tabbed = false;
        self.search = None;
        if self.vi.is_some() {
            self.vi = Some(Vi::Insert);
        }
        self.vi_d = false;
        self.undo.clear();
    }

    pub fn history_mut(&mut self) -> &mut H {
        &mut self.history
    }

    /// The line as typed.
    pub fn line(&self) -> &str {
        self.buf.as_str()
    }

    /// The cursor, a byte offset in [`PromptLine::line`].
    pub fn pos(&self) -> usize {
        self.buf.pos()
    }

    /// Ctrl-R's prompt, while a search runs: `(reverse-i-search)`term': `,
    /// with `failed ` in front when nothing holds the term.
    pub fn search_prompt(&self) -> Option<String> {
        self.search.as_ref().map(|s| {
            let failed = if s.failed { "failed " } else { "" };
            // shown as text: a bidi override typed never reorders the row
            let term = crate::cli::sanitize::Sanitizer::visible(&s.term);
            format!("({failed}reverse-i-search)`{term}': ")
        })
    }

    /// Take in a key, a paste or a resize. `complete` gives, for the line
    /// and the cursor, where the word to complete starts and the
    /// replacements offered with how they are listed.
    pub fn input(&mut self, event: &TermEvent, now: Instant, complete: &Complete) -> Outcome {
        match event {
            TermEvent::Resize(..) => Outcome::Redraw,
            TermEvent::Paste(text) => {
                self.search = None;
                // as typed, line breaks kept (`\r\n` and `\r` as `\n`)
                let text = text.replace("\r\n", "\n").replace('\r', "\n");
                self.insert(&text);
                Outcome::Redraw
            }
            TermEvent::Key(k) => {
                let tabbed = std::mem::take(&mut self.tabbed);
                let ctrl_x = std::mem::take(&mut self.ctrl_x);
                if k.code != KeyCode::Esc {
                    self.esc_at = None;
                }
                if self.search.is_some() {
                    if let Some(done) = self.search_key(*k) {
                        return done;
                    }
                }
                if ctrl_x {
                    if is_ctrl(k, 'e') {
                        return self.done_action(PromptAction::Edit {
                            line: self.line().to_owned(),
                        });
                    }
                    return Outcome::Bell;
                }
                let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
                let vi_undo = self.vi == Some(Vi::Command)
                    && !self.vi_d
                    && k.code == KeyCode::Char('u')
                    && k.modifiers.is_empty();
                if vi_undo || ctrl && matches!(k.code, KeyCode::Char('_' | '7')) {
                    let Some((line, pos)) = self.undo.pop() else {
                        return Outcome::Bell;
                    };
                    self.fit(line.len());
                    self.buf.update(&line, pos, &mut self.kills);
                    return Outcome::Redraw;
                }
                let before = (self.line().to_owned(), self.pos());
                let out = if self.vi == Some(Vi::Command) {
                    self.vi_key(*k)
                } else {
                    self.key(*k, now, tabbed, complete)
                };
                if self.line() != before.0 && !matches!(out, Outcome::Done(_)) {
                    if self.undo.len() == UNDO_MAX {
                        self.undo.remove(0);
                    }
                    self.undo.push(before);
                    // bounded in bytes too (a large paste's line is copied
                    // on each key): the oldest go first, the last stays
                    let mut held: usize = self.undo.iter().map(|(l, _)| l.len()).sum();
                    while held > UNDO_BYTES && self.undo.len() > 1 {
                        held -= self.undo.remove(0).0.len();
                    }
                }
                out
            }
        }
    }

    /// Make the buffer hold `len` bytes, the line and the cursor kept: a
    /// larger one takes its place when its capacity is short.
    fn fit(&mut self, len: usize) {
        if len <= self.cap {
            return;
        }
        let cap = len.max(self.cap.saturating_mul(2));
        let mut buf = LineBuffer::with_capacity(cap);
        buf.update(self.buf.as_str(), self.buf.pos(), &mut Kills::default());
        self.buf = buf;
        self.cap = cap;
    }

    fn done_action(&mut self, action: PromptAction) -> Outcome {
        Outcome::Done(Read::Action(action))
    }

    fn split(&self) -> (String, String) {
        let (a, b) = self.line().split_at(self.pos());
        (a.to_owned(), b.to_owned())
    }

    fn insert(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        let pos = self.pos();
        self.fit(self.buf.len() + text.len());
        self.buf.insert_str(pos, text, &mut self.kills);
        self.buf.set_pos(pos + text.len());
    }

    fn key(&mut self, k: KeyEvent, now: Instant, tabbed: bool, complete: &Complete) -> Outcome {
        let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
        let alt = k.modifiers.contains(KeyModifiers::ALT);
        let redraw = |moved: bool| {
            if moved {
                Outcome::Redraw
            } else {
                Outcome::Nothing
            }
        };
        match k.code {
            KeyCode::Enter if alt => {
                self.insert("\n");
                Outcome::Redraw
            }
            KeyCode::Enter | KeyCode::Char('j') | KeyCode::Char('m')
                if k.code == KeyCode::Enter || ctrl =>
            {
                // a trailing `\` goes on on a new line
                if self.line().ends_with('\\') {
                    self.buf.move_buffer_end();
                    self.insert("\n");
                    return Outcome::Redraw;
                }
                Outcome::Done(Read::Line(self.line().to_owned()))
            }
            KeyCode::BackTab => {
                let (before, after) = self.split();
                self.done_action(PromptAction::CycleMode { before, after })
            }
            KeyCode::Esc => {
                if self.vi.is_some() {
                    self.vi = Some(Vi::Command);
                    self.buf.move_backward(1);
                    return Outcome::Redraw;
                }
                if !self.line().is_empty() {
                    self.esc_at = None;
                    return Outcome::Nothing;
                }
                if self
                    .esc_at
                    .is_some_and(|t| now.saturating_duration_since(t) < DOUBLE_ESC)
                {
                    self.esc_at = None;
                    return self.done_action(PromptAction::Rewind);
                }
                self.esc_at = Some(now);
                Outcome::Nothing
            }
            KeyCode::Tab => self.complete(tabbed, complete),
            KeyCode::Backspace if alt || ctrl => {
                redraw(self.kill(|b, k| b.delete_prev_word(Word::Emacs, 1, k)))
            }
            KeyCode::Backspace => redraw(self.buf.backspace(1, &mut self.kills)),
            KeyCode::Delete => redraw(self.buf.delete(1, &mut self.kills).is_some()),
            KeyCode::Left if ctrl || alt => redraw(self.buf.move_to_prev_word(Word::Emacs, 1)),
            KeyCode::Right if ctrl || alt => {
                redraw(self.buf.move_to_next_word(At::AfterEnd, Word::Emacs, 1))
            }
            KeyCode::Left => redraw(self.buf.move_backward(1)),
            KeyCode::Right => redraw(self.buf.move_forward(1)),
            KeyCode::Home => redraw(self.buf.move_home()),
            KeyCode::End => redraw(self.buf.move_end()),
            KeyCode::Up => self.up(),
            KeyCode::Down => self.down(),
            KeyCode::Char(c) if ctrl => self.ctrl_key(c.to_ascii_lowercase()),
            KeyCode::Char(c) if alt => match c {
                'b' => redraw(self.buf.move_to_prev_word(Word::Emacs, 1)),
                'f' => redraw(self.buf.move_to_next_word(At::AfterEnd, Word::Emacs, 1)),
                'd' => redraw(self.kill(|b, k| b.delete_word(At::AfterEnd, Word::Emacs, 1, k))),
                'u' => redraw(self.buf.edit_word(WordAction::Uppercase, &mut self.kills)),
                'l' => redraw(self.buf.edit_word(WordAction::Lowercase, &mut self.kills)),
                'c' => redraw(self.buf.edit_word(WordAction::Capitalize, &mut self.kills)),
                't' => redraw(self.buf.transpose_words(1, &mut self.kills)),
                _ => Outcome::Nothing,
            },
            KeyCode::Char(c) if !c.is_control() => {
                let pos = self.pos();
                self.fit(self.buf.len() + c.len_utf8());
                self.buf.insert(c, 1, &mut self.kills);
                self.buf.set_pos(pos + c.len_utf8());
                Outcome::Redraw
            }
            _ => Outcome::Nothing,
        }
    }

    fn ctrl_key(&mut self, c: char) -> Outcome {
        let redraw = |moved: bool| {
            if moved {
                Outcome::Redraw
            } else {
                Outcome::Nothing
            }
        };
        match c {
            'a' => redraw(self.buf.move_home()),
            'e' => redraw(self.buf.move_end()),
            'b' => redraw(self.buf.move_backward(1)),
            'f' => redraw(self.buf.move_forward(1)),
            'c' => {
                self.buf.move_buffer_end();
                Outcome::Done(Read::Interrupted)
            }
            'd' => {
                if self.line().is_empty() {
                    Outcome::Done(Read::Eof)
                } else {
                    redraw(self.buf.delete(1, &mut self.kills).is_some())
                }
            }
            'g' => self.done_action(PromptAction::Edit {
                line: self.line().to_owned(),
            }),
            'h' => redraw(self.buf.backspace(1, &mut self.kills)),
            'k' => redraw(self.kill(LineBuffer::kill_line)),
            'u' => redraw(self.kill(LineBuffer::discard_line)),
            'w' => redraw(self.kill(|b, k| b.delete_prev_word(Word::Big, 1, k))),
            'y' => {
                let text = self.kills.last.clone();
                self.insert(&text);
                redraw(!text.is_empty())
            }
            't' => redraw(self.buf.transpose_chars(&mut self.kills)),
            'l' => Outcome::ClearScreen,
            'p' => self.up(),
            'n' => self.down(),
            'r' => {
                self.search = Some(Search {
                    before: (self.line().to_owned(), self.pos()),
                    ..Search::default()
                });
                Outcome::Redraw
            }
            'v' => {
                let (before, after) = self.split();
                self.done_action(PromptAction::PasteImage { before, after })
            }
            'x' => {
                self.ctrl_x = true;
                Outcome::Nothing
            }
            'z' => Outcome::Suspend,
            _ => Outcome::Nothing,
        }
    }

    /// Up: the line above in a multi-line input, else the history's
    /// previous entry.
    fn up(&mut self) -> Outcome {
        let pos = self.pos();
        let line = self.line();
        if let Some(nl) = line[..pos].rfind('\n') {
            let col = line[nl + 1..pos].chars().count();
            let start = line[..nl].rfind('\n').map_or(0, |i| i + 1);
            self.buf.set_pos(col_in(line, start, nl, col));
            return Outcome::Redraw;
        }
        let next = match self.at {
            None => self.history.len().checked_sub(1),
            Some(i) => i.checked_sub(1),
        };
        let Some(i) = next else {
            return Outcome::Bell;
        };
        let Ok(Some(found)) = self.history.get(i, SearchDirection::Reverse) else {
            return Outcome::Bell;
        };
        let entry = found.entry.into_owned();
        if self.at.is_none() {
            self.draft = self.line().to_owned();
        }
        self.at = Some(i);
        let len = entry.len();
        self.fit(len);
        self.buf.update(&entry, len, &mut self.kills);
        Outcome::Redraw
    }

    /// Down: the line below in a multi-line input, else the history's
    /// next entry, and after the last, the line typed.
    fn down(&mut self) -> Outcome {
        let pos = self.pos();
        let line = self.line();
        if let Some(nl) = line[pos..].find('\n').map(|i| i + pos) {
            let start = line[..pos].rfind('\n').map_or(0, |i| i + 1);
            let col = line[start..pos].chars().count();
            let end = line[nl + 1..].find('\n').map_or(line.len(), |i| i + nl + 1);
            self.buf.set_pos(col_in(line, nl + 1, end, col));
            return Outcome::Redraw;
        }
        let Some(i) = self.at else {
            return Outcome::Bell;
        };
        let text = if i + 1 < self.history.len() {
            self.at = Some(i + 1);
            match self.history.get(i + 1, SearchDirection::Forward) {
                Ok(Some(found)) => found.entry.into_owned(),
                _ => return Outcome::Bell,
            }
        } else {
            self.at = None;
            std::mem::take(&mut self.draft)
        };
        let len = text.len();
        self.fit(len);
        self.buf.update(&text, len, &mut self.kills);
        Outcome::Redraw
    }

    /// Tab: the common part of the names offered goes in; when there is
    /// none to add, a second Tab lists them.
    fn complete(&mut self, tabbed: bool, complete: &Complete) -> Outcome {
        let pos = self.pos();
        let (start, found) = complete(self.line(), pos);
        if found.is_empty() || start > pos {
            return Outcome::Bell;
        }
        let common = common_prefix(found.iter().map(|(_, r)| r.as_str()));
        let typed = &self.line()[start..pos];
        if common.len() > typed.len() && common.starts_with(typed) || found.len() == 1 {
            let common = if found.len() == 1 {
                found[0].1.clone()
            } else {
                common
            };
            self.buf.replace(start..pos, &common, &mut self.kills);
            self.buf.set_pos(start + common.len());
            return Outcome::Redraw;
        }
        if tabbed {
            return Outcome::List(found.into_iter().map(|(d, _)| d).collect());
        }
        self.tabbed = true;
        Outcome::Bell
    }

    /// A key during Ctrl-R's search; `None` when it ends the search on
    /// the line found and is then a key of the line (an arrow, Ctrl-A).
    fn search_key(&mut self, k: KeyEvent) -> Option<Outcome> {
        let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
        let mut s = self.search.take()?;
        match k.code {
            KeyCode::Char('g') if ctrl => {
                let (line, pos) = s.before;
                self.fit(line.len());
                self.buf.update(&line, pos, &mut self.kills);
                return Some(Outcome::Redraw);
            }
            KeyCode::Char('c') if ctrl => {
                self.buf.move_buffer_end();
                return Some(Outcome::Done(Read::Interrupted));
            }
            KeyCode::Char('r') if ctrl => {
                let from = s.found.and_then(|i| i.checked_sub(1));
                if let Some(from) = from {
                    s.found = self.find(&s.term, from).or(s.found);
                }
            }
            KeyCode::Backspace => {
                s.term.pop();
                s.found = self
                    .history
                    .len()
                    .checked_sub(1)
                    .and_then(|i| self.find(&s.term, i));
            }
            KeyCode::Char(c) if !ctrl && !c.is_control() => {
                s.term.push(c);
                let from = s.found.or(self.history.len().checked_sub(1));
                let found = from.and_then(|i| self.find(&s.term, i));
                s.failed = found.is_none();
                s.found = found.or(s.found);
            }
            // Enter takes the line found and sends it; Esc ends the
            // search on it; any other key ends it and is a key of the line
            KeyCode::Enter => {
                return Some(Outcome::Done(Read::Line(self.line().to_owned())));
            }
            KeyCode::Esc => return Some(Outcome::Redraw),
            _ => return None,
        }
        if let Some(i) = s.found.filter(|_| !s.failed) {
            if let Ok(Some(found)) = self.history.get(i, SearchDirection::Reverse) {
                let entry = found.entry.into_owned();
                let at = entry.find(&s.term).unwrap_or(0);
                self.fit(entry.len());
                self.buf.update(&entry, at, &mut self.kills);
            }
        }
        self.search = Some(s);
        Some(Outcome::Redraw)
    }

    /// The newest entry at or before `from` holding `term`.
    fn find(&self, term: &str, from: usize) -> Option<usize> {
        self.history
            .search(term, from, SearchDirection::Reverse)
            .ok()
            .flatten()
            .map(|r| r.idx)
    }

    /// A key in vi's command mode.
    fn vi_key(&mut self, k: KeyEvent) -> Outcome {
        let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
        let d = std::mem::take(&mut self.vi_d);
        let KeyCode::Char(c) = k.code else {
            return match k.code {
                KeyCode::Enter => Outcome::Done(Read::Line(self.line().to_owned())),
                KeyCode::Left => self.moved(|b| b.move_backward(1)),
                KeyCode::Right => self.moved(|b| b.move_forward(1)),
                KeyCode::Up => self.up(),
                KeyCode::Down => self.down(),
                _ => Outcome::Nothing,
            };
        };
        if ctrl {
            return match c {
                'c' => Outcome::Done(Read::Interrupted),
                'd' if self.line().is_empty() => Outcome::Done(Read::Eof),
                'z' => Outcome::Suspend,
                _ => Outcome::Nothing,
            };
        }
        if d {
            let changed = match c {
                'd' => self.kill(LineBuffer::kill_buffer),
                'w' => self.kill(|b, k| b.delete_word(At::Start, Word::Vi, 1, k)),
                'b' => self.kill(|b, k| b.delete_prev_word(Word::Vi, 1, k)),
                '$' => self.kill(LineBuffer::kill_line),
                '0' => self.kill(LineBuffer::discard_line),
                _ => false,
            };
            return if changed {
                Outcome::Redraw
            } else {
                Outcome::Nothing
            };
        }
        let insert = |s: &mut Self| {
            s.vi = Some(Vi::Insert);
            Outcome::Redraw
        };
        match c {
            'h' => self.moved(|b| b.move_backward(1)),
            'l' => self.moved(|b| {
                // the cursor stays on the last character
                let len = b.as_str().len();
                let next = b.next_pos(1);
                next.is_some_and(|n| n < len) && b.move_forward(1)
            }),
            '0' | '^' => self.moved(LineBuffer::move_home),
            '$' => self.moved(|b| {
                let moved = b.move_end();
                b.move_backward(1) || moved
            }),
            'w' => self.moved(|b| b.move_to_next_word(At::Start, Word::Vi, 1)),
            'b' => self.moved(|b| b.move_to_prev_word(Word::Vi, 1)),
            'e' => self.moved(|b| b.move_to_next_word(At::BeforeEnd, Word::Vi, 1)),
            'i' => insert(self),
            'a' => {
                self.buf.move_forward(1);
                insert(self)
            }
            'I' => {
                self.buf.move_home();
                insert(self)
            }
            'A' => {
                self.buf.move_end();
                insert(self)
            }
            'x' => {
                let d = self.buf.delete(1, &mut self.kills).is_some();
                if self.buf.pos() == self.line().len() {
                    self.buf.move_backward(1);
                }
                if d {
                    Outcome::Redraw
                } else {
                    Outcome::Nothing
                }
            }
            'X' => self.moved(|b| b.backspace(1, &mut Kills::default())),
            'D' => {
                let d = self.buf.kill_line(&mut self.kills);
                self.buf.move_backward(1);
                if d {
                    Outcome::Redraw
                } else {
                    Outcome::Nothing
                }
            }
            'C' => {
                self.buf.kill_line(&mut self.kills);
                insert(self)
            }
            'S' => {
                self.buf.kill_buffer(&mut self.kills);
                insert(self)
            }
            'd' => {
                self.vi_d = true;
                Outcome::Nothing
            }
            'p' => {
                let text = self.kills.last.clone();
                self.buf.move_forward(1);
                self.insert(&text);
                self.buf.move_backward(1);
                if text.is_empty() {
                    Outcome::Nothing
                } else {
                    Outcome::Redraw
                }
            }
            'k' => self.up(),
            'j' => self.down(),
            _ => Outcome::Nothing,
        }
    }

    /// A kill: what it removes is kept for Ctrl-Y.
    fn kill(&mut self, f: impl FnOnce(&mut LineBuffer, &mut Kills) -> bool) -> bool {
        self.kills.start_killing();
        let done = f(&mut self.buf, &mut self.kills);
        self.kills.stop_killing();
        done
    }

    fn moved(&mut self, f: impl FnOnce(&mut LineBuffer) -> bool) -> Outcome {
        if f(&mut self.buf) {
            Outcome::Redraw
        } else {
            Outcome::Nothing
        }
    }
}

fn is_ctrl(k: &KeyEvent, c: char) -> bool {
    k.modifiers.contains(KeyModifiers::CONTROL) && k.code == KeyCode::Char(c)
}

/// The byte offset of the `col`th character of `line[start..end]`, or of
/// its end when it is shorter.
fn col_in(line: &str, start: usize, end: usize, col: usize) -> usize {
    line[start..end]
        .char_indices()
        .nth(col)
        .map_or(end, |(i, _)| start + i)
}

/// What all the strings start with, on a character boundary.
fn common_prefix<'a>(mut all: impl Iterator<Item = &'a str>) -> String {
    let Some(first) = all.next() else {
        return String::new();
    };
    let mut n = first.len();
    for s in all {
        n = first[..n]
            .char_indices()
            .zip(s.chars())
            .find(|((_, a), b)| a != b)
            .map_or(n.min(s.len()), |((i, _), _)| i);
    }
    first[..n].to_owned()
}

/// Where the line is drawn: how many rows the prompt and the line take
/// at `cols` columns, and the cursor's row (from the first) and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub rows: usize,
    pub cursor_row: usize,
    pub cursor_col: usize,
}

/// Lay out `prompt` (its width in columns) then `line` at `cols` columns,
/// the cursor at byte `pos`: wide characters take two columns and never
/// split over two rows, a full row goes on on the next one, and a
/// newline starts a row. At one column (the least) each character takes
/// a row of its own, a wide one too.
pub fn layout(prompt: usize, line: &str, pos: usize, cols: usize) -> Layout {
    let cols = cols.max(1);
    let (mut row, mut col) = (prompt / cols, prompt % cols);
    let mut cursor = (row, col);
    for (i, c) in line.char_indices() {
        if i == pos {
            cursor = (row, col);
        }
        if c == '\n' {
            row += 1;
            col = 0;
            continue;
        }
        let w = c.width().unwrap_or(0);
        if col + w > cols && col > 0 {
            row += 1;
            col = 0;
        }
        col += w;
        if col == cols {
            row += 1;
            col = 0;
        }
    }
    if pos >= line.len() {
        cursor = (row, col);
    }
    Layout {
        rows: row + 1,
        cursor_row: cursor.0,
        cursor_col: cursor.1,
    }
}

/// Where each row of [`layout`]'s starts in `line` (a byte offset; the
/// rows the prompt alone takes start at 0), laid out as it lays it out.
pub fn row_starts(prompt: usize, line: &str, cols: usize) -> Vec<usize> {
    let cols = cols.max(1);
    let mut starts = vec![0; prompt / cols + 1];
    let mut col = prompt % cols;
    for (i, c) in line.char_indices() {
        if c == '\n' {
            starts.push(i + 1);
            col = 0;
            continue;
        }
        let w = c.width().unwrap_or(0);
        if col + w > cols && col > 0 {
            starts.push(i);
            col = 0;
        }
        col += w;
        if col == cols {
            starts.push(i + c.len_utf8());
            col = 0;
        }
    }
    starts
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustyline::history::MemHistory;

    fn key(c: KeyCode, m: KeyModifiers) -> TermEvent {
        TermEvent::Key(KeyEvent::new(c, m))
    }
    fn ch(c: char) -> TermEvent {
        key(KeyCode::Char(c), KeyModifiers::NONE)
    }
    fn ctrl(c: char) -> TermEvent {
        key(KeyCode::Char(c), KeyModifiers::CONTROL)
    }
    fn alt(c: KeyCode) -> TermEvent {
        key(c, KeyModifiers::ALT)
    }
    fn plain(c: KeyCode) -> TermEvent {
        key(c, KeyModifiers::NONE)
    }
    fn none(_: &str, pos: usize) -> (usize, Vec<(String, String)>) {
        (pos, Vec::new())
    }

    struct P {
        p: PromptLine<MemHistory>,
        now: Instant,
    }

    impl P {
        fn new(history: &[&str], vi: bool) -> P {
            let mut h = MemHistory::new();
            for e in history {
                h.add(e).unwrap();
            }
            let mut p = PromptLine::new(h, vi);
            p.start("", "");
            P {
                p,
                now: Instant::now(),
            }
        }
        fn send(&mut self, e: TermEvent) -> Outcome {
            self.p.input(&e, self.now, &none)
        }
        fn typed(&mut self, s: &str) {
            for c in s.chars() {
                self.send(ch(c));
            }
        }
        /// The line with `|` at the cursor.
        fn shown(&self) -> String {
            let (a, b) = self.p.line().split_at(self.p.pos());
            format!("{a}|{b}")
        }
    }

    #[test]
    fn typing_moving_and_the_word_keys_edit_the_line() {
        let mut p = P::new(&[], false);
        p.typed("fix the bug");
        assert_eq!(p.shown(), "fix the bug|");
        p.send(alt(KeyCode::Char('b')));
        assert_eq!(p.shown(), "fix the |bug");
        p.send(ctrl('w'));
        assert_eq!(p.shown(), "fix |bug");
        p.send(ctrl('y'));
        assert_eq!(p.shown(), "fix the |bug");
        p.send(ctrl('a'));
        p.send(alt(KeyCode::Char('f')));
        assert_eq!(p.shown(), "fix| the bug");
        p.send(ctrl('k'));
        assert_eq!(p.shown(), "fix|");
        p.send(plain(KeyCode::Backspace));
        p.send(ctrl('e'));
        assert_eq!(p.shown(), "fi|");
        p.send(ctrl('u'));
        assert_eq!(p.shown(), "|");
        // wide characters move as one
        p.typed("日本");
        p.send(plain(KeyCode::Left));
        assert_eq!(p.shown(), "日|本");
    }

    #[test]
    fn ctrl_underscore_undoes_and_alt_keys_change_words() {
        let mut p = P::new(&[], false);
        p.typed("ab cd");
        p.send(ctrl('w'));
        assert_eq!(p.shown(), "ab |");
        p.send(ctrl('_'));
        assert_eq!(p.shown(), "ab cd|");
        p.send(ctrl('7'));
        assert_eq!(p.shown(), "ab c|");
        p.send(ctrl('a'));
        p.send(alt(KeyCode::Char('u')));
        assert_eq!(p.shown(), "AB| c");
        p.send(alt(KeyCode::Char('t')));
        assert_eq!(p.shown(), "c AB|");
    }

    #[test]
    fn enter_gives_the_line_and_a_backslash_or_alt_enter_goes_on() {
        let mut p = P::new(&[], false);
        p.typed("look at\\");
        assert_eq!(p.send(plain(KeyCode::Enter)), Outcome::Redraw);
        p.typed("these");
        p.send(alt(KeyCode::Enter));
        p.typed("two");
        assert_eq!(
            p.send(plain(KeyCode::Enter)),
            Outcome::Done(Read::Line("look at\\\nthese\ntwo".into()))
        );
    }

    #[test]
    fn ctrl_c_and_ctrl_d_end_the_reading_as_they_did() {
        let mut p = P::new(&[], false);
        p.typed("half");
        assert_eq!(p.send(ctrl('c')), Outcome::Done(Read::Interrupted));
        p.p.start("ab", "");
        // Ctrl-D deletes under the cursor, and ends only an empty line
        p.send(ctrl('a'));
        assert_eq!(p.send(ctrl('d')), Outcome::Redraw);
        assert_eq!(p.shown(), "|b");
        p.send(ctrl('d'));
        assert_eq!(p.send(ctrl('d')), Outcome::Done(Read::Eof));
    }

    #[test]
    fn the_chat_s_keys_stop_the_prompt_with_their_action() {
        let mut p = P::new(&[], false);
        p.typed("abcd");
        p.send(plain(KeyCode::Left));
        assert_eq!(
            p.send(key(KeyCode::BackTab, KeyModifiers::SHIFT)),
            Outcome::Done(Read::Action(PromptAction::CycleMode {
                before: "abc".into(),
                after: "d".into()
            }))
        );
        assert_eq!(
            p.send(ctrl('v')),
            Outcome::Done(Read::Action(PromptAction::PasteImage {
                before: "abc".into(),
                after: "d".into()
            }))
        );
        assert_eq!(
            p.send(ctrl('g')),
            Outcome::Done(Read::Action(PromptAction::Edit {
                line: "abcd".into()
            }))
        );
        assert_eq!(p.send(ctrl('x')), Outcome::Nothing);
        assert_eq!(
            p.send(ctrl('e')),
            Outcome::Done(Read::Action(PromptAction::Edit {
                line: "abcd".into()
            }))
        );
        // Esc Esc rewinds at an empty prompt only, and only in time
        assert_eq!(p.send(plain(KeyCode::Esc)), Outcome::Nothing);
        assert_eq!(p.send(plain(KeyCode::Esc)), Outcome::Nothing);
        p.p.start("", "");
        p.send(plain(KeyCode::Esc));
        p.now += DOUBLE_ESC;
        assert_eq!(p.send(plain(KeyCode::Esc)), Outcome::Nothing);
        p.now += Duration::from_millis(100);
        assert_eq!(
            p.send(plain(KeyCode::Esc)),
            Outcome::Done(Read::Action(PromptAction::Rewind))
        );
    }

    #[test]
    fn up_and_down_walk_the_history_and_come_back_to_the_line_typed() {
        let mut p = P::new(&["first", "second"], false);
        p.typed("draft");
        p.send(plain(KeyCode::Up));
        assert_eq!(p.shown(), "second|");
        p.send(plain(KeyCode::Up));
        assert_eq!(p.shown(), "first|");
        assert_eq!(p.send(plain(KeyCode::Up)), Outcome::Bell);
        p.send(plain(KeyCode::Down));
        p.send(plain(KeyCode::Down));
        assert_eq!(p.shown(), "draft|");
        // in a multi-line input, Up and Down move between its lines
        p.p.start("one\ntwo", "");
        p.send(plain(KeyCode::Up));
        assert_eq!(p.shown(), "one|\ntwo");
        p.send(plain(KeyCode::Down));
        assert_eq!(p.shown(), "one\ntwo|");
    }

    #[test]
    fn ctrl_r_finds_a_history_entry_and_enter_sends_it() {
        let mut p = P::new(&["write docs and tests", "other"], false);
        p.send(ctrl('r'));
        p.typed("docs and");
        assert_eq!(
            p.p.search_prompt().as_deref(),
            Some("(reverse-i-search)`docs and': ")
        );
        assert_eq!(p.p.line(), "write docs and tests");
        assert_eq!(
            p.send(plain(KeyCode::Enter)),
            Outcome::Done(Read::Line("write docs and tests".into()))
        );
        // a term nothing holds: said, the line as it was
        p.p.start("mine", "");
        p.send(ctrl('r'));
        assert_eq!(p.send(ch('z')), Outcome::Redraw);
        assert_eq!(
            p.p.search_prompt().as_deref(),
            Some("(failed reverse-i-search)`z': ")
        );
        assert_eq!(p.shown(), "mine|");
        p.send(ctrl('g'));
        // Ctrl-G puts the line back as it was
        p.p.start("mine", "");
        p.send(ctrl('r'));
        p.typed("other");
        p.send(ctrl('g'));
        assert_eq!(p.p.search_prompt(), None);
        assert_eq!(p.shown(), "mine|");
        // a key of the line ends the search on the line found, and acts
        p.send(ctrl('r'));
        p.typed("other");
        p.send(ctrl('a'));
        assert_eq!(p.p.search_prompt(), None);
        assert_eq!(p.shown(), "|other");
    }

    #[test]
    fn tab_completes_the_common_part_then_lists() {
        let mut p = P::new(&[], false);
        let slash = |line: &str, pos: usize| {
            let names = ["/model ", "/mode "];
            let head = &line[..pos];
            (
                0,
                names
                    .iter()
                    .filter(|n| n.starts_with(head))
                    .map(|n| (n.trim().to_owned(), (*n).to_owned()))
                    .collect(),
            )
        };
        p.typed("/m");
        assert_eq!(
            p.p.input(&plain(KeyCode::Tab), p.now, &slash),
            Outcome::Redraw
        );
        assert_eq!(p.shown(), "/mode|");
        assert_eq!(
            p.p.input(&plain(KeyCode::Tab), p.now, &slash),
            Outcome::Bell
        );
        assert_eq!(
            p.p.input(&plain(KeyCode::Tab), p.now, &slash),
            Outcome::List(vec!["/model".into(), "/mode".into()])
        );
        p.typed("l");
        p.p.input(&plain(KeyCode::Tab), p.now, &slash);
        assert_eq!(p.shown(), "/model |");
    }

    #[test]
    fn a_paste_joins_the_line_whole_and_sends_nothing() {
        let mut p = P::new(&[], false);
        p.typed("see ");
        assert_eq!(p.send(TermEvent::Paste("a\r\nb".into())), Outcome::Redraw);
        assert_eq!(p.shown(), "see a\nb|");
    }

    /// Ctrl-R's prompt shows what was typed as text: a bidi override
    /// typed (or sent by a terminal that marks no paste) never reorders
    /// the screen.
    #[test]
    fn the_search_prompt_shows_a_bidi_override_as_text() {
        let mut p = P::new(&["ab\u{202e}cd"], false);
        p.send(ctrl('r'));
        p.send(ch('\u{202e}'));
        let prompt = p.p.search_prompt().unwrap();
        assert!(!prompt.contains('\u{202e}'), "{prompt:?}");
        assert!(prompt.contains("202e"), "{prompt:?}");
        assert_eq!(p.p.line(), "ab\u{202e}cd", "found all the same");
    }

    /// A line past the buffer's first capacity (1,024 bytes) is kept
    /// whole: typed key by key (the 1,025th byte panicked: rustyline's
    /// buffer refused it and the cursor was put past the line's end), a
    /// key after a large paste, a long history entry (cut at 1,024 bytes,
    /// or a panic when a character straddled it) and a long text to start
    /// with (the Ctrl-G editor's).
    #[test]
    fn a_line_past_the_first_capacity_is_kept_whole_and_never_panics() {
        let mut p = P::new(&[], false);
        let long = "é".repeat(700);
        p.typed(&long);
        assert_eq!(p.p.line(), long);
        let mut p = P::new(&[], false);
        p.send(TermEvent::Paste("a".repeat(5000)));
        p.typed("bc");
        assert_eq!(p.p.line().len(), 5002);
        assert!(p.p.line().ends_with("abc"));
        let entry = format!("{}ü and more", "x".repeat(1023));
        let mut p = P::new(&[&entry], false);
        p.send(plain(KeyCode::Up));
        assert_eq!(p.p.line(), entry);
        p.send(plain(KeyCode::Down));
        p.send(ctrl('r'));
        p.typed("more");
        assert_eq!(p.p.line(), entry);
        p.p.start(&entry, "tail");
        assert_eq!(p.p.line(), format!("{entry}tail"));
        assert_eq!(p.p.pos(), entry.len());
        // undo puts a long line back whole too
        p.typed("!");
        p.send(ctrl('_'));
        assert_eq!(p.p.line(), format!("{entry}tail"));
    }

    /// Undo keeps a bounded amount of text: after a large paste, each key
    /// kept a copy of the whole line (200 keys after a 256 KiB paste held
    /// 51 MB); the oldest go first, the last change is always undone.
    #[test]
    fn undo_after_a_large_paste_holds_a_bounded_amount() {
        let mut p = P::new(&[], false);
        p.send(TermEvent::Paste("x".repeat(256 << 10)));
        for _ in 0..200 {
            p.typed("a");
        }
        let held: usize = p.p.undo.iter().map(|(l, _)| l.len()).sum();
        assert!(held <= UNDO_BYTES, "{held} bytes held for undo");
        let line = p.p.line().to_owned();
        p.typed("b");
        p.send(ctrl('_'));
        assert_eq!(p.p.line(), line, "the last change is undone");
    }

    #[test]
    fn vi_keys_move_and_insert() {
        let mut p = P::new(&[], true);
        p.typed("ello");
        p.send(plain(KeyCode::Esc));
        p.typed("0ih");
        assert_eq!(p.shown(), "h|ello");
        p.send(plain(KeyCode::Esc));
        p.typed("$x");
        assert_eq!(p.shown(), "hel|l");
        p.typed("0dd");
        assert_eq!(p.shown(), "|");
        p.typed("u");
        assert_eq!(p.shown(), "|hell");
        p.typed("0dd");
        p.typed("p");
        assert_eq!(p.shown(), "hel|l");
    }

    #[test]
    fn the_layout_wraps_wide_characters_whole() {
        // prompt of 2, 8 columns: "abcdef" fills the first row
        assert_eq!(
            layout(2, "abcdef", 6, 8),
            Layout {
                rows: 2,
                cursor_row: 1,
                cursor_col: 0
            }
        );
        // a wide character that does not fit goes to the next row whole
        let l = layout(2, "abcde日", 8, 8);
        assert_eq!((l.rows, l.cursor_row, l.cursor_col), (2, 1, 2));
        // a newline starts a row
        let l = layout(2, "ab\ncd", 1, 8);
        assert_eq!((l.rows, l.cursor_row, l.cursor_col), (2, 0, 3));
        // where each row starts, as laid out
        assert_eq!(row_starts(2, "abcdef", 8), [0, 6]);
        assert_eq!(row_starts(2, "abcde日x", 8), [0, 5]);
        assert_eq!(row_starts(2, "ab\ncd", 8), [0, 3]);
        assert_eq!(row_starts(10, "ab", 8), [0, 0]);
        for (p, t) in [
            (2, "abcdef"),
            (2, "abcde日x"),
            (0, "日日日日\n\nx"),
            (10, "ab"),
        ] {
            assert_eq!(row_starts(p, t, 8).len(), layout(p, t, 0, 8).rows, "{t:?}");
        }
    }
}
