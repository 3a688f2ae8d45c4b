//! The chat's approval prompt: keys on a raw terminal.
//!
//! Every choice is a letter and Enter: `y` allows once, `a` for this
//! session (as far as the CLI's suggestion reaches, said on screen), `p` in
//! this project and `u` in every project (only when the CLI suggested a
//! rule to keep), `n` or Enter alone denies, `d` shows a folded diff. Any
//! other text is a reason, sent back with the denial: a reason that starts
//! with a choice's letter ("always ask first") is read whole, never as the
//! choice. Esc (or Ctrl-C) denies and interrupts the turn. The key handling
//! is a pure state machine; the keys come from the chat's one key stream,
//! in raw mode for as long as the question is open.

use super::keys::{Keys, Next, TermEvent};
use crate::cli::approve::{Decision, Offer};
use crate::cli::picker::{redraw, Picked, Picker};
use crate::cli::style::Style;
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
    /// A choice that is not offered: say why (the text), then ask again.
    NotOffered(String),
}

/// Keys in, an outcome out (and what to echo).
#[derive(Debug)]
pub struct Answer {
    typed: String,
    /// A folded diff is shown: `d` expands it.
    pub can_expand: bool,
    offer: Offer,
}

impl Answer {
    /// A fresh answer to `offer`; `can_expand` when a folded diff is shown.
    pub fn new(offer: Offer, can_expand: bool) -> Answer {
        Answer {
            typed: String::new(),
            can_expand,
            offer,
        }
    }

    /// What the choices do.
    pub fn offer(&self) -> &Offer {
        &self.offer
    }

    /// The same question again, nothing typed.
    pub fn reset(&mut self, can_expand: bool) {
        self.typed.clear();
        self.can_expand = can_expand;
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
                if self.can_expand && self.typed.trim().eq_ignore_ascii_case("d") {
                    return (String::new(), Some(Outcome::ShowAll));
                }
                let outcome = match Decision::parse(&self.typed, &self.offer) {
                    Ok(d) => Outcome::Decision(d),
                    Err(why) => Outcome::NotOffered(why),
                };
                (String::new(), Some(outcome))
            }
            KeyCode::Backspace => {
                if self.typed.pop().is_some() {
                    ("\x08 \x08".into(), None)
                } else {
                    (String::new(), None)
                }
            }
            KeyCode::Char(c) if !ctrl && !c.is_control() => {
                self.typed.push(c);
                (c.to_string(), None)
            }
            _ => (String::new(), None),
        }
    }

    /// Pasted text joins the reason (newlines become spaces).
    pub fn paste(&mut self, text: &str) -> String {
        let clean: String = crate::cli::sanitize::Sanitizer::clean(text)
            .chars()
            .map(|c| if c == '\n' || c == '\t' { ' ' } else { c })
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
    let mut shown = picker.drawing(style, width, height, true);
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
        // the help goes once a choice is made
        let now = picker.drawing(style, width, height, decided.is_none());
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
    use claudio::protocol::SessionScope;

    fn k(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn offer(keep: bool) -> Offer {
        Offer {
            session: SessionScope::ThisCall,
            rules: if keep {
                vec!["Bash(ls)".into()]
            } else {
                vec![]
            },
        }
    }

    fn typed(a: &mut Answer, text: &str) -> Option<Outcome> {
        for c in text.chars() {
            assert_eq!(
                a.key(k(KeyCode::Char(c))).1,
                None,
                "{c} alone decides nothing"
            );
        }
        a.key(k(KeyCode::Enter)).1
    }

    #[test]
    fn every_choice_is_a_letter_and_enter() {
        for (text, want) in [
            ("y", Decision::AllowOnce),
            ("a", Decision::AllowSession),
            ("p", Decision::AllowProject),
            ("u", Decision::AllowUser),
            (
                "n",
                Decision::Deny("The user denied this tool call.".into()),
            ),
            ("", Decision::Deny("The user denied this tool call.".into())),
        ] {
            let mut a = Answer::new(offer(true), false);
            assert_eq!(typed(&mut a, text), Some(Outcome::Decision(want)), "{text}");
        }
        let mut a = Answer::new(offer(true), false);
        assert_eq!(a.key(k(KeyCode::Esc)).1, Some(Outcome::DenyAndInterrupt));
        let mut a = Answer::new(offer(true), false);
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(a.key(ctrl_c).1, Some(Outcome::DenyAndInterrupt));
    }

    #[test]
    fn a_typed_reason_never_approves() {
        // the reason starts with `a`, the session choice's letter
        let mut a = Answer::new(offer(true), false);
        assert_eq!(
            typed(&mut a, "always ask before touching files"),
            Some(Outcome::Decision(Decision::Deny(
                "The user denied this tool call: always ask before touching files".into()
            )))
        );
        let mut a = Answer::new(offer(true), false);
        for c in "yes but use rg".chars() {
            a.key(k(KeyCode::Char(c)));
        }
        assert!(matches!(
            a.key(k(KeyCode::Enter)).1,
            Some(Outcome::Decision(Decision::Deny(_)))
        ));
        let mut a = Answer::new(offer(true), false);
        for c in "use rgx".chars() {
            a.key(k(KeyCode::Char(c)));
        }
        a.key(k(KeyCode::Backspace));
        assert_eq!(
            a.key(k(KeyCode::Enter)).1,
            Some(Outcome::Decision(Decision::Deny(
                "The user denied this tool call: use rg".into()
            )))
        );
    }

    #[test]
    fn keeping_a_rule_is_not_offered_without_one() {
        let mut a = Answer::new(offer(false), false);
        assert!(matches!(typed(&mut a, "p"), Some(Outcome::NotOffered(_))));
    }

    #[test]
    fn d_and_enter_unfold_the_diff_only_when_folded() {
        let mut a = Answer::new(offer(false), true);
        assert_eq!(typed(&mut a, "d"), Some(Outcome::ShowAll));
        let mut a = Answer::new(offer(false), true);
        assert!(matches!(
            typed(&mut a, "don't"),
            Some(Outcome::Decision(Decision::Deny(_)))
        ));
        let mut a = Answer::new(offer(false), false);
        assert!(matches!(
            typed(&mut a, "d"),
            Some(Outcome::Decision(Decision::Deny(_)))
        ));
    }

    #[test]
    fn paste_joins_the_reason() {
        let mut a = Answer::new(offer(false), false);
        a.key(k(KeyCode::Char('x')));
        a.paste("two\nlines\u{1b}]0;t\u{7}");
        assert_eq!(
            a.key(k(KeyCode::Enter)).1,
            Some(Outcome::Decision(Decision::Deny(
                "The user denied this tool call: xtwo lines".into()
            )))
        );
    }
}
