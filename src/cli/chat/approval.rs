//! The chat's approval prompt: single keys on a raw terminal.
//!
//! `y` allows once, `a` always for this session, `n` (or Enter) denies;
//! `p` then Enter always in this project, `u` then Enter always in every
//! project (a rule that outlives the session takes two keys, so a reason
//! typed as `use rg` never keeps one), Esc
//! (or Ctrl-C) denies and interrupts the turn; any other text is a reason,
//! sent back with the denial when Enter is pressed. The key handling is a
//! pure state machine; the keys come from the chat's one key stream, in raw
//! mode for as long as the question is open.

use super::keys::{Keys, Next, TermEvent};
use crate::cli::approve::Decision;
use crate::cli::picker::{redraw, Picked, Picker};
use crate::cli::style::Style;
use crate::cli::summary::truncate_width;
use claudio::Cancellation;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::io::{self, Write};

/// What the person decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Decision(Decision),
    /// Deny, and end the turn.
    DenyAndInterrupt,
    /// Show the folded part of the diff, then ask again.
    ShowAll,
}

/// Keys in, an outcome out (and what to echo).
#[derive(Debug, Default)]
pub struct Answer {
    typed: String,
    /// A folded diff is shown: `d` expands it.
    pub can_expand: bool,
}

impl Answer {
    /// A fresh answer; `can_expand` when a folded diff is shown.
    pub fn new(can_expand: bool) -> Answer {
        Answer {
            can_expand,
            ..Answer::default()
        }
    }

    /// Feed one key; returns the echo to write and, when decided, the outcome.
    pub fn key(&mut self, key: KeyEvent) -> (String, Option<Outcome>) {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Esc => (String::new(), Some(Outcome::DenyAndInterrupt)),
            KeyCode::Char('c') | KeyCode::Char('d') if ctrl => {
                (String::new(), Some(Outcome::DenyAndInterrupt))
            }
            KeyCode::Enter => {
                let d = Decision::parse(&self.typed);
                (String::new(), Some(Outcome::Decision(d)))
            }
            KeyCode::Backspace => {
                if self.typed.pop().is_some() {
                    ("\x08 \x08".into(), None)
                } else {
                    (String::new(), None)
                }
            }
            KeyCode::Char(c) if !ctrl => {
                if self.typed.is_empty() {
                    let quick = match c {
                        'y' | 'Y' => Some(Decision::AllowOnce),
                        'a' | 'A' => Some(Decision::AllowSession),
                        'n' | 'N' => Some(Decision::parse("n")),
                        _ => None,
                    };
                    if let Some(d) = quick {
                        return (c.to_string(), Some(Outcome::Decision(d)));
                    }
                    if c == 'd' && self.can_expand {
                        return (String::new(), Some(Outcome::ShowAll));
                    }
                }
                if c.is_control() {
                    return (String::new(), None);
                }
                self.typed.push(c);
                (c.to_string(), None)
            }
            _ => (String::new(), None),
        }
    }

    /// Pasted text joins the reason (newlines become spaces).
    pub fn paste(&mut self, text: &str) -> String {
        let clean: String = text
            .chars()
            .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
            .filter(|c| !c.is_control())
            .collect();
        self.typed.push_str(&clean);
        clean
    }
}

/// Shows the cursor again when dropped (the picker hides it), on every path.
struct ShowCursor;

impl Drop for ShowCursor {
    fn drop(&mut self) {
        let mut out = io::stdout();
        let _ = out.write_all(b"\x1b[?25h");
        let _ = out.flush();
    }
}

/// Make sure a panic never leaves the terminal raw.
pub fn install_panic_restore() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let _ = crossterm::terminal::disable_raw_mode();
        let _ = io::stdout().write_all(b"\x1b[0m\x1b[?25h\n");
        previous(info);
    }));
}

/// Let the person choose from `picker` with single keys on a raw terminal,
/// drawn in place under what is already on the screen. The final choice
/// stays drawn. A withdrawn request (`cancel`) ends it with `None`.
pub async fn pick(
    keys: &mut Keys,
    cancel: Option<&Cancellation>,
    mut picker: Picker,
    style: Style,
    mut width: usize,
) -> io::Result<Option<Picked>> {
    let raw = keys.raw();
    if !raw.ok() {
        return Ok(None);
    }
    let _cursor = ShowCursor;
    let mut out = io::stdout();
    // the drawing must fit on the screen to be redrawn in place
    let mut height = crossterm::terminal::size()
        .map(|(_, h)| h as usize)
        .unwrap_or(24);
    let draw = |p: &Picker, width: usize, height: usize| {
        let mut lines = p.lines_within(style, width, height.saturating_sub(4));
        lines.push(format!(
            "  {}",
            style.dim(&truncate_width(&p.help(), width.saturating_sub(2)))
        ));
        lines
    };
    let mut shown = draw(&picker, width, height);
    out.write_all(format!("{}\x1b[?25l", shown.join("\r\n")).as_bytes())?;
    out.flush()?;
    let result = loop {
        let decided = match keys.next_unless(cancel).await {
            Next::TermEvent(TermEvent::Key(k)) => picker.key(k),
            Next::TermEvent(TermEvent::Paste(text)) => {
                picker.paste(&text);
                None
            }
            Next::TermEvent(TermEvent::Resize(w, h)) => {
                (width, height) = (w as usize, h as usize);
                None
            }
            Next::Cancelled | Next::Gone => break None,
        };
        let mut now = draw(&picker, width, height);
        if decided.is_some() {
            now.pop(); // the help line goes once a choice is made
        }
        out.write_all(redraw(shown.len(), &now).as_bytes())?;
        out.flush()?;
        shown = now;
        if decided.is_some() {
            break decided;
        }
    };
    out.write_all(b"\r\n")?;
    out.flush()?;
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn single_keys_decide_at_once() {
        for (c, want) in [
            ('y', Decision::AllowOnce),
            ('a', Decision::AllowSession),
            ('n', Decision::parse("n")),
        ] {
            let mut a = Answer::default();
            assert_eq!(a.key(k(KeyCode::Char(c))).1, Some(Outcome::Decision(want)));
        }
        let mut a = Answer::default();
        assert_eq!(a.key(k(KeyCode::Esc)).1, Some(Outcome::DenyAndInterrupt));
        let mut a = Answer::default();
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(a.key(ctrl_c).1, Some(Outcome::DenyAndInterrupt));
        let mut a = Answer::default();
        assert_eq!(
            a.key(k(KeyCode::Enter)).1,
            Some(Outcome::Decision(Decision::parse("")))
        );
    }

    #[test]
    fn a_rule_that_outlives_the_session_takes_enter_too() {
        for (c, want) in [('p', Decision::AllowProject), ('u', Decision::AllowUser)] {
            let mut a = Answer::default();
            assert_eq!(
                a.key(k(KeyCode::Char(c))).1,
                None,
                "{c} alone decides nothing"
            );
            assert_eq!(a.key(k(KeyCode::Enter)).1, Some(Outcome::Decision(want)));
        }
        // a reason that starts with one of them is a reason
        let mut a = Answer::default();
        for c in "p please not".chars() {
            a.key(k(KeyCode::Char(c)));
        }
        assert!(matches!(
            a.key(k(KeyCode::Enter)).1,
            Some(Outcome::Decision(Decision::Deny(_)))
        ));
    }

    #[test]
    fn a_typed_reason_is_a_denial() {
        let mut a = Answer::default();
        for c in "use rg".chars() {
            assert_eq!(a.key(k(KeyCode::Char(c))).1, None);
        }
        // letters after the first are text, not shortcuts
        assert_eq!(a.key(k(KeyCode::Char('y'))).1, None);
        a.key(k(KeyCode::Backspace));
        let (_, o) = a.key(k(KeyCode::Enter));
        assert_eq!(
            o,
            Some(Outcome::Decision(Decision::Deny(
                "The user denied this tool call: use rg".into()
            )))
        );
    }

    #[test]
    fn paste_joins_the_reason() {
        let mut a = Answer::default();
        a.key(k(KeyCode::Char('x')));
        a.paste("two\nlines\u{1b}");
        let (_, o) = a.key(k(KeyCode::Enter));
        assert_eq!(
            o,
            Some(Outcome::Decision(Decision::Deny(
                "The user denied this tool call: xtwo lines".into()
            )))
        );
    }
}
