//! Typing the next prompt while Claude works.
//!
//! Enter queues the line (sent when the turn ends); Alt-Enter sends it at
//! once as an interjection (`priority: now`); Ctrl-S sends the oldest queued
//! prompt at once; Ctrl-X drops the newest queued one; Up on an empty line
//! takes it back onto the line to edit; Ctrl-U clears the line; pasted text joins the line whole, newlines and all. The key
//! handling is a pure state machine over the keys [`super::keys::Keys`]
//! reads.

use super::keys::TermEvent;
use crate::cli::sanitize::Sanitizer;
use crate::cli::term::text::cut_width;
use crate::cli::term::text::flat;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::collections::VecDeque;

/// What a key asks of the turn loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Only the typed line or the queue changed: redraw.
    Redraw,
    /// Send this text now, as an interjection.
    SendNow(String),
    /// Ctrl-D on an empty line: the end, where it means that.
    Eof,
    /// Shift-Tab: the next permission mode, where it means that.
    CycleMode,
}

/// The line being typed and the prompts waiting for the turn to end.
#[derive(Debug, Default)]
pub struct TypeAhead {
    pub typed: String,
    pub queued: VecDeque<String>,
    /// Queued commands an interrupt put aside: for the history.
    pub held: Vec<String>,
    /// Shift-Tab presses still owed a mode switch (pressed while the
    /// last switch was being confirmed): each press counts.
    pub cycles: usize,
    /// When Ctrl-C last interrupted a turn: the CLI ends it at once, so
    /// the second press of a double one may come at the prompt.
    pub interrupted_at: Option<std::time::Instant>,
}

impl TypeAhead {
    /// Take in a key or a paste (a resize changes nothing here).
    pub fn input(&mut self, input: &TermEvent) -> Option<Action> {
        match input {
            TermEvent::Key(k) => self.key(*k),
            TermEvent::Paste(text) => {
                self.paste(text);
                Some(Action::Redraw)
            }
            TermEvent::Resize(..) => None,
        }
    }

    /// Take in one key.
    pub fn key(&mut self, k: KeyEvent) -> Option<Action> {
        let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
        let alt = k.modifiers.contains(KeyModifiers::ALT);
        match k.code {
            KeyCode::Enter if alt => {
                let line = std::mem::take(&mut self.typed);
                if line.trim().is_empty() {
                    Some(Action::Redraw)
                } else {
                    Some(Action::SendNow(line))
                }
            }
            KeyCode::Enter => {
                let line = std::mem::take(&mut self.typed);
                if !line.trim().is_empty() {
                    self.queued.push_back(line);
                }
                Some(Action::Redraw)
            }
            KeyCode::BackTab => Some(Action::CycleMode),
            KeyCode::Backspace => {
                self.typed.pop();
                Some(Action::Redraw)
            }
            // Ctrl-D: on an empty line, the end (where it means that)
            KeyCode::Char('d') if ctrl => self.typed.is_empty().then_some(Action::Eof),
            KeyCode::Char('u') if ctrl => {
                self.typed.clear();
                Some(Action::Redraw)
            }
            // the oldest queued prompt, now
            KeyCode::Char('s') if ctrl => match self.queued.pop_front() {
                Some(q) => Some(Action::SendNow(q)),
                None => Some(Action::Redraw),
            },
            // drop the newest queued prompt
            KeyCode::Char('x') if ctrl => {
                self.queued.pop_back();
                Some(Action::Redraw)
            }
            // on an empty line: the newest queued prompt back on the line,
            // to edit (out of the queue until Enter queues it again)
            KeyCode::Up if self.typed.is_empty() && !ctrl && !alt => {
                let back = self.queued.pop_back()?;
                self.typed = back;
                Some(Action::Redraw)
            }
            KeyCode::Char(c) if !ctrl && !alt && !c.is_control() => {
                self.typed.push(c);
                Some(Action::Redraw)
            }
            _ => None,
        }
    }

    /// The queued prompts back on the line, oldest first, one per line,
    /// before what is being typed; true when there were any.
    ///
    /// A `!command` or `/command` is joined to nothing: joined, the lines
    /// after it would be its arguments (`!make test` and `fix it` would run
    /// `fix it` in the shell). When it is not alone, it goes to the
    /// history instead ([`TypeAhead::held`], Up brings it back), and the
    /// notice returned says so.
    pub fn unqueue(&mut self) -> Option<String> {
        if self.queued.is_empty() {
            return None;
        }
        let mut lines: Vec<String> = self.queued.drain(..).collect();
        let typed = std::mem::take(&mut self.typed);
        if !typed.trim().is_empty() {
            lines.push(typed);
        }
        let mut notice = String::from("the queued prompts are back on the line, to edit or send");
        if lines.len() > 1 {
            let (commands, prompts): (Vec<String>, Vec<String>) =
                lines.into_iter().partition(|l| is_command(l));
            if !commands.is_empty() {
                let shown: Vec<String> = commands
                    .iter()
                    .map(|c| cut_width(&flat(c.trim()), 40))
                    .collect();
                notice = format!(
                    "{notice}; not joined to them, in the history (Up): {}",
                    shown.join(", ")
                );
                self.held.extend(commands);
            }
            lines = prompts;
        }
        self.typed = lines.join("\n");
        Some(notice)
    }

    /// Pasted text joins the line as it is (line breaks kept, other control
    /// characters left out).
    pub fn paste(&mut self, text: &str) {
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        self.typed.extend(
            text.chars()
                .filter(|c| *c == '\n' || *c == '\t' || !c.is_control()),
        );
    }

    /// Take in the keys left when a turn has ended: nothing can be sent
    /// "now" any more, so such a prompt goes first in the queue. True when
    /// Ctrl-D on an empty line was among them.
    pub fn drain_after_turn(&mut self, left: Vec<TermEvent>) -> bool {
        let mut eof = false;
        for i in &left {
            match self.input(i) {
                Some(Action::SendNow(text)) => self.queued.push_front(text),
                Some(Action::Eof) => eof = true,
                // counted for a mode switch under way (the prompt loop
                // forgets it otherwise)
                Some(Action::CycleMode) => self.cycles += 1,
                _ => {}
            }
        }
        eof
    }

    /// The lines to show under the answer: the queue (dim) and the line
    /// being typed.
    pub fn footer(&self) -> Vec<String> {
        let mut lines = self.queued_lines();
        if !self.typed.is_empty() || !self.queued.is_empty() {
            let typed = Sanitizer::clean(&self.typed.replace(['\n', '\t'], " "));
            lines.push(format!("› {typed}"));
        }
        lines
    }
}

impl TypeAhead {
    /// The queued prompts as they will be sent, each `› ` and its first
    /// line, the first saying once that they wait (`· queued`, `· 2
    /// queued`).
    pub fn queued_lines(&self) -> Vec<String> {
        let n = self.queued.len();
        let note = match n {
            1 => "  · queued".to_owned(),
            n => format!("  · {n} queued"),
        };
        self.queued
            .iter()
            .enumerate()
            .map(|(i, q)| {
                // its first line with text, one row: a tab would take
                // columns the row's width did not count
                let first = q.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
                let note = if i == 0 { note.as_str() } else { "" };
                format!("› {}{note}", flat(first.trim()))
            })
            .collect()
    }
}

/// Whether a line is a command of the chat's (`!…`, `/…`), not a prompt.
fn is_command(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with('!') || t.starts_with('/')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An interrupt joins the queued prompts on the line; a command among
    /// them is joined to nothing (its lines would be its arguments) and
    /// goes to the history (#40.4).
    #[test]
    fn unqueue_joins_prompts_and_holds_commands_apart() {
        let mut t = TypeAhead::default();
        assert_eq!(t.unqueue(), None);
        feed(&mut t, typed("!make test\rfix it\r/model opus\rdraft"));
        let notice = t.unqueue().unwrap();
        assert_eq!(t.typed, "fix it\ndraft");
        assert_eq!(t.held, ["!make test", "/model opus"]);
        assert!(
            notice.ends_with("(Up): !make test, /model opus"),
            "{notice}"
        );
        assert!(t.queued.is_empty());
        // a command alone comes back to the line as it was
        let mut t = TypeAhead::default();
        feed(&mut t, typed("!make test\r"));
        t.unqueue();
        assert_eq!(t.typed, "!make test");
        assert!(t.held.is_empty());
    }

    fn key(code: KeyCode) -> TermEvent {
        TermEvent::Key(KeyEvent::new(code, KeyModifiers::NONE))
    }

    fn ctrl(c: char) -> TermEvent {
        TermEvent::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))
    }

    fn alt_enter() -> TermEvent {
        TermEvent::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::ALT))
    }

    /// Type `s`: its characters as keys, `\r` as Enter.
    fn typed(s: &str) -> Vec<TermEvent> {
        s.chars()
            .map(|c| match c {
                '\r' => key(KeyCode::Enter),
                c => key(KeyCode::Char(c)),
            })
            .collect()
    }

    fn feed(t: &mut TypeAhead, keys: Vec<TermEvent>) -> Vec<Action> {
        keys.iter().filter_map(|k| t.input(k)).collect()
    }

    #[test]
    fn keys_still_in_flight_when_the_turn_ends_are_kept() {
        let mut t = TypeAhead::default();
        feed(&mut t, typed("queued\r"));
        // typed in the instant the answer ended: a line, an interjection
        // that can no longer cut in, and the start of the next prompt
        let mut left = typed("later\rurgent");
        left.push(alt_enter());
        left.extend(typed("draft é"));
        assert!(!t.drain_after_turn(left));
        assert_eq!(t.queued, ["urgent", "queued", "later"]);
        assert_eq!(t.typed, "draft é");
    }

    #[test]
    fn enter_queues_and_keys_edit() {
        let mut t = TypeAhead::default();
        feed(&mut t, typed("first\rsécond"));
        feed(
            &mut t,
            vec![key(KeyCode::Backspace), key(KeyCode::Backspace)],
        );
        feed(&mut t, typed("nd\r"));
        assert_eq!(t.queued, ["first", "sécond"]);
        assert!(t.typed.is_empty());
        feed(&mut t, typed("   \r"));
        assert_eq!(t.queued.len(), 2, "blank lines are not queued");
        feed(&mut t, typed("draft"));
        feed(&mut t, vec![ctrl('u')]);
        assert!(t.typed.is_empty());
        // arrows and function keys type nothing
        feed(
            &mut t,
            vec![
                key(KeyCode::Char('x')),
                key(KeyCode::Up),
                key(KeyCode::F(5)),
            ],
        );
        assert_eq!(t.typed, "x");
        assert_eq!(t.queued.len(), 2);
    }

    #[test]
    fn ctrl_d_on_an_empty_line_is_the_end() {
        let mut t = TypeAhead::default();
        feed(&mut t, typed("x"));
        assert_eq!(t.input(&ctrl('d')), None, "not with text on the line");
        feed(&mut t, vec![key(KeyCode::Backspace)]);
        assert_eq!(t.input(&ctrl('d')), Some(Action::Eof));
        // in the keys left when a turn ended, too
        assert!(t.drain_after_turn(vec![ctrl('d')]));
    }

    #[test]
    fn interjections_and_removal() {
        let mut t = TypeAhead::default();
        let mut keys = typed("stop that");
        keys.push(alt_enter());
        let a = feed(&mut t, keys);
        assert!(a.contains(&Action::SendNow("stop that".into())));
        feed(&mut t, typed("one\rtwo\r"));
        feed(&mut t, vec![ctrl('x')]);
        assert_eq!(t.queued, ["one"]);
        let a = feed(&mut t, vec![ctrl('s')]);
        assert!(a.contains(&Action::SendNow("one".into())));
        assert!(t.queued.is_empty());
    }

    #[test]
    fn up_on_an_empty_line_takes_the_newest_queued_prompt_back_to_edit() {
        let mut t = TypeAhead::default();
        feed(&mut t, typed("one\rtwo\r"));
        assert_eq!(t.input(&key(KeyCode::Up)), Some(Action::Redraw));
        assert_eq!(t.typed, "two");
        assert_eq!(t.queued, ["one"]);
        // not with text on the line: it stays as typed
        assert_eq!(t.input(&key(KeyCode::Up)), None);
        assert_eq!(t.queued, ["one"]);
        feed(&mut t, typed("!\r"));
        assert_eq!(t.queued, ["one", "two!"]);
        // nothing queued: nothing happens
        let mut t = TypeAhead::default();
        assert_eq!(t.input(&key(KeyCode::Up)), None);
        assert!(t.typed.is_empty());
    }

    /// A paste is kept as the person gave it (it is what is sent), but
    /// the lines under the answer draw it inert: a bidi override copied
    /// from a web page does not reorder them.
    #[test]
    fn the_typed_lines_are_drawn_inert() {
        let mut t = TypeAhead::default();
        t.input(&TermEvent::Paste(
            "rm \u{202e}txt.exe\u{2066}x\u{2069}".into(),
        ));
        assert_eq!(t.typed, "rm \u{202e}txt.exe\u{2066}x\u{2069}");
        feed(&mut t, typed("\r"));
        t.input(&TermEvent::Paste("\u{202e}and".into()));
        for l in t.footer() {
            assert!(!l.contains(['\u{202e}', '\u{2066}', '\u{2069}']), "{l:?}");
        }
        assert_eq!(t.footer(), ["› rm txt.exex  · queued", "› and"]);
    }

    #[test]
    fn a_paste_joins_the_line_whole() {
        let mut t = TypeAhead::default();
        feed(&mut t, typed("see "));
        t.input(&TermEvent::Paste("line one\r\nline\ttwo\u{1b}[31m".into()));
        assert_eq!(t.typed, "see line one\nline\ttwo[31m");
        assert!(t.queued.is_empty(), "a newline in a paste sends nothing");
        assert_eq!(t.footer(), vec!["› see line one line two[31m".to_string()]);
        feed(&mut t, typed("\r"));
        assert_eq!(t.queued, ["see line one\nline\ttwo[31m"]);
        assert_eq!(
            t.footer(),
            vec!["› see line one  · queued".to_string(), "› ".to_string()]
        );
    }

    /// A queued prompt is drawn on one row that fits: a tab in it is a
    /// space (the row's width counted it as nothing, and the terminal
    /// moved what followed to its next tab stop, past the width), and a
    /// prompt pasted with blank lines first shows its first line of text.
    #[test]
    fn a_queued_prompt_is_one_row_of_text() {
        let mut t = TypeAhead::default();
        t.input(&TermEvent::Paste("a\tb\tc".into()));
        feed(&mut t, typed("\r"));
        t.input(&TermEvent::Paste("\n \n\tsecond\nmore".into()));
        feed(&mut t, typed("\r"));
        assert_eq!(t.queued_lines(), ["› a b c  · 2 queued", "› second"]);
    }
}
