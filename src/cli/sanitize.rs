//! Making untrusted text inert before it reaches a terminal.
//!
//! Model output, tool output and transcripts may carry escape sequences that
//! move the cursor, retitle the window, write the clipboard (OSC 52), hide
//! links (OSC 8), or reorder text (bidi overrides). On a terminal they are
//! removed; newlines and tabs stay. The filter is stateful so a sequence
//! split across two stream deltas is still caught.

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum State {
    #[default]
    Text,
    /// After ESC.
    Escape,
    /// Inside `ESC [` ... final byte.
    Csi,
    /// Inside a string sequence (OSC, DCS, SOS, PM, APC) until BEL or ST.
    Str,
    /// ESC seen inside a string sequence (maybe ST).
    StrEscape,
}

/// A streaming filter for terminal control sequences.
#[derive(Debug, Default, Clone)]
pub struct Sanitizer {
    state: State,
}

impl Sanitizer {
    pub fn new() -> Self {
        Self::default()
    }

    /// Filter one chunk; state carries over to the next.
    pub fn push(&mut self, input: &str, out: &mut String) {
        for c in input.chars() {
            self.state = match self.state {
                State::Text => match c {
                    '\u{1b}' => State::Escape,
                    '\u{9b}' => State::Csi,
                    '\u{90}' | '\u{98}' | '\u{9d}' | '\u{9e}' | '\u{9f}' => State::Str,
                    '\n' | '\t' => {
                        out.push(c);
                        State::Text
                    }
                    c if is_dropped(c) => State::Text,
                    c => {
                        out.push(c);
                        State::Text
                    }
                },
                State::Escape => match c {
                    '[' => State::Csi,
                    ']' | 'P' | 'X' | '^' | '_' => State::Str,
                    // ESC followed by an intermediate byte: keep swallowing.
                    '\u{20}'..='\u{2f}' => State::Escape,
                    _ => State::Text,
                },
                State::Csi => match c {
                    '\u{40}'..='\u{7e}' => State::Text,
                    '\u{1b}' => State::Escape,
                    _ => State::Csi,
                },
                State::Str => match c {
                    '\u{7}' | '\u{9c}' => State::Text,
                    '\u{1b}' => State::StrEscape,
                    _ => State::Str,
                },
                State::StrEscape => match c {
                    '\\' => State::Text,
                    '\u{1b}' => State::StrEscape,
                    _ => State::Str,
                },
            };
        }
    }

    /// Filter a whole string at once.
    pub fn clean(input: &str) -> String {
        let mut out = String::with_capacity(input.len());
        Sanitizer::new().push(input, &mut out);
        out
    }
}

/// Characters that never reach the terminal: C0 controls (but `\n`, `\t`),
/// DEL, C1 controls, and bidi overrides/isolates.
fn is_dropped(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_passes() {
        let s = "héllo\n\twörld — ✓ 日本";
        assert_eq!(Sanitizer::clean(s), s);
    }

    #[test]
    fn escape_sequences_are_removed() {
        let cases = [
            ("a\u{1b}[31mred\u{1b}[0m b", "ared b"),
            ("x\u{1b}[2J\u{1b}[Hy", "xy"),
            ("\u{1b}]0;evil title\u{7}ok", "ok"),
            ("\u{1b}]52;c;SGVsbG8=\u{1b}\\clip", "clip"),
            (
                "\u{1b}]8;;http://evil\u{1b}\\link\u{1b}]8;;\u{1b}\\",
                "link",
            ),
            ("\u{1b}Pq#0;2;0;0;0\u{1b}\\dcs", "dcs"),
            ("\u{9b}31mc1csi", "c1csi"),
            ("\u{9d}0;t\u{9c}c1osc", "c1osc"),
            ("bell\u{7} back\u{8}\u{8}space\r\n", "bell backspace\n"),
            ("\u{202e}evil\u{202c} \u{2066}iso\u{2069}", "evil iso"),
            ("\u{1b}(Bcharset", "charset"),
            ("del\u{7f}", "del"),
        ];
        for (input, want) in cases {
            assert_eq!(Sanitizer::clean(input), want, "{input:?}");
        }
    }

    #[test]
    fn sequences_split_across_chunks() {
        let mut s = Sanitizer::new();
        let mut out = String::new();
        for chunk in [
            "ok \u{1b}",
            "]52;c;",
            "AAAA",
            "\u{1b}",
            "\\ done \u{1b}[",
            "1;3",
            "1m!",
        ] {
            s.push(chunk, &mut out);
        }
        assert_eq!(out, "ok  done !");
    }
}
