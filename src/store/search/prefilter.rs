//! The raw-bytes prefilter: which lines of a block of transcript lines
//! may hold a match, found without decoding them.

use super::literal::find_literal;
use super::unescape::unescape_line;
use super::{MatchFn, Pattern};
use crate::store::lines::Block;
use std::ops::{ControlFlow, Range};
use std::sync::Arc;

/// The raw-bytes prefilter (a literal's, or a set of a regex's literals)
/// and the decoded-text matcher.
pub(super) struct Finder {
    /// The literal as it appears inside a JSON string on disk.
    raw: Option<Vec<u8>>,
    /// Compare the raw form ignoring ASCII case.
    raw_ignore_case: bool,
    /// Where to look first: a part of `raw` that case does not change
    /// (searched as is, fast), else its rarest byte (both cases).
    anchor: Anchor,
    /// The JSON forms of literals one of which every match contains, and
    /// the escapes `\u` and `\/`.
    set: Option<aho_corasick::AhoCorasick>,
    /// A line with invalid UTF-8 is a candidate too: it is decoded with
    /// U+FFFD in place of the bad bytes, and a literal has bytes of U+FFFD.
    invalid_utf8: bool,
    /// Run the matcher on unescaped lines first.
    scan: bool,
    pub(super) matcher: MatchFn,
}

pub(super) enum Anchor {
    /// `raw` itself (case matters).
    Whole(memchr::memmem::Finder<'static>),
    /// A caseless run of `raw` starting at this offset.
    Run(usize, memchr::memmem::Finder<'static>),
    /// The byte at this offset, either case.
    Byte(usize),
}

impl Finder {
    pub(super) fn new(p: &Pattern) -> Finder {
        match p {
            Pattern::Literal { text, ignore_case } => {
                // a tool's strings are searched joined by newlines: a
                // pattern with one is looked for by its longest line, which
                // lies inside one string
                let piece = text.split('\n').max_by_key(|l| l.len()).unwrap_or("");
                let escaped = serde_json::to_string(piece).unwrap_or_default();
                let raw = escaped.as_bytes()[1..escaped.len().saturating_sub(1).max(1)].to_vec();
                // folding case of non-ASCII letters changes their bytes:
                // then no prefilter, every line is decoded
                let foldable = !*ignore_case || text.is_ascii();
                let anchor = if !*ignore_case {
                    Anchor::Whole(memchr::memmem::Finder::new(&raw).into_owned())
                } else {
                    match caseless_run(&raw) {
                        Some(r) if r.len() >= 3 => {
                            Anchor::Run(r.start, memchr::memmem::Finder::new(&raw[r]).into_owned())
                        }
                        _ => Anchor::Byte(rarest(&raw)),
                    }
                };
                let needle = text.clone();
                let ic = *ignore_case;
                let raw = (foldable && !raw.is_empty()).then_some(raw);
                Finder {
                    invalid_utf8: raw.as_deref().is_some_and(touches_fffd),
                    raw,
                    raw_ignore_case: ic,
                    anchor,
                    set: None,
                    scan: false,
                    matcher: Arc::new(move |t: &str| find_literal(t, &needle, ic)),
                }
            }
            Pattern::Custom(m) | Pattern::Scan(m) => Finder {
                raw: None,
                raw_ignore_case: false,
                anchor: Anchor::Byte(0),
                set: None,
                invalid_utf8: false,
                scan: matches!(p, Pattern::Scan(_)),
                matcher: m.clone(),
            },
            Pattern::Prefiltered {
                matcher,
                any_of,
                scan,
            } => {
                // one literal without a usable form: no prefilter
                let forms: Option<Vec<Vec<u8>>> = any_of.iter().map(|l| raw_form(l)).collect();
                let set = forms.as_ref().and_then(|forms| {
                    let mut forms = forms.clone();
                    forms.sort_unstable();
                    forms.dedup();
                    // the escapes that make a line a candidate, in the same
                    // pass (two more passes over each block took as long)
                    forms.extend([b"\\u".to_vec(), b"\\/".to_vec()]);
                    // leftmost-first: the vectorised searcher (Teddy) is
                    // only used with it; any match finds its line
                    aho_corasick::AhoCorasick::builder()
                        .match_kind(aho_corasick::MatchKind::LeftmostFirst)
                        .build(&forms)
                        .ok()
                });
                Finder {
                    raw: None,
                    raw_ignore_case: false,
                    anchor: Anchor::Byte(0),
                    invalid_utf8: set.is_some() && forms.iter().flatten().any(|f| touches_fffd(f)),
                    set,
                    scan: *scan,
                    matcher: matcher.clone(),
                }
            }
        }
    }

    /// Whether some lines can be passed over unparsed.
    pub(super) fn filters(&self) -> bool {
        self.raw.is_some() || self.set.is_some()
    }

    /// The next position in `hay` at or after `from` where the raw form occurs.
    pub(super) fn next_raw(&self, hay: &[u8], from: usize) -> Option<usize> {
        if let Some(set) = &self.set {
            return set.find(&hay[from..]).map(|m| from + m.start());
        }
        let raw = self.raw.as_deref()?;
        let fits = |start: usize| {
            start + raw.len() <= hay.len()
                && (!self.raw_ignore_case && &hay[start..start + raw.len()] == raw
                    || self.raw_ignore_case
                        && hay[start..start + raw.len()].eq_ignore_ascii_case(raw))
        };
        match &self.anchor {
            Anchor::Whole(f) => f.find(&hay[from..]).map(|i| i + from),
            Anchor::Run(k, f) => {
                let mut at = from + k;
                while at <= hay.len() {
                    let i = f.find(&hay[at..])? + at;
                    if fits(i - k) {
                        return Some(i - k);
                    }
                    at = i + 1;
                }
                None
            }
            Anchor::Byte(k) => {
                let b = raw[*k];
                let (lo, up) = (b.to_ascii_lowercase(), b.to_ascii_uppercase());
                let mut at = from + k;
                while at < hay.len() {
                    let i = memchr::memchr2(lo, up, &hay[at..])? + at;
                    if fits(i - k) {
                        return Some(i - k);
                    }
                    at = i + 1;
                }
                None
            }
        }
    }
}

/// The form a piece of decoded text has on disk, in a line without `\u` or
/// `\/` escapes (those lines are candidates anyway): `"` and `\` escaped,
/// the rest as is. A control character (a newline, a tab) can be written in
/// more than one way, and a tool's strings are searched joined by newlines:
/// the longest part without one is used. `None` when no part is left.
pub(super) fn raw_form(text: &[u8]) -> Option<Vec<u8>> {
    let piece = text
        .split(|b| *b < 0x20)
        .max_by_key(|p| p.len())
        .filter(|p| !p.is_empty())?;
    let mut out = Vec::with_capacity(piece.len() + 4);
    for &b in piece {
        if b == b'"' || b == b'\\' {
            out.push(b'\\');
        }
        out.push(b);
    }
    Some(out)
}

/// Whether an occurrence of `lit` in decoded text could share bytes with a
/// U+FFFD (`EF BF BD`) that stands for invalid UTF-8 in the raw line: it
/// holds the whole character, or starts with its end or ends with its start.
pub(super) fn touches_fffd(lit: &[u8]) -> bool {
    const R: &[u8] = "\u{FFFD}".as_bytes();
    memchr::memmem::find(lit, R).is_some()
        || lit.starts_with(&R[2..])
        || lit.starts_with(&R[1..])
        || lit.ends_with(&R[..1])
        || lit.ends_with(&R[..2])
}

/// The longest run of bytes that have no case (digits, punctuation).
pub(super) fn caseless_run(raw: &[u8]) -> Option<Range<usize>> {
    let mut best: Option<Range<usize>> = None;
    let mut start = None;
    for (i, b) in raw.iter().chain([&b'a']).enumerate() {
        if b.is_ascii_alphabetic() {
            if let Some(s) = start.take() {
                if best.as_ref().is_none_or(|r: &Range<usize>| i - s > r.len()) {
                    best = Some(s..i);
                }
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    best
}

/// The index of the byte least likely to occur in a transcript.
pub(super) fn rarest(raw: &[u8]) -> usize {
    // rough frequency of bytes in transcripts, commonest first: letters,
    // JSON punctuation, digits
    const COMMON: &[u8] = b"\" e:,taoinsrhldcu{}mpfgywbv.-_0123456789k/x\\jqz";
    let rank = |b: u8| {
        let l = b.to_ascii_lowercase();
        COMMON.iter().position(|&c| c == l).unwrap_or(usize::MAX)
    };
    (0..raw.len())
        .max_by_key(|&i| (rank(raw[i]), std::cmp::Reverse(i)))
        .unwrap_or(0)
}

/// The candidate lines of a block of whole lines.
pub(super) fn lines_in(
    block: Block<'_>,
    finder: &Finder,
    f: &mut impl FnMut(&[u8]) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let mut text = String::new();
    // with `scan`, a line where the matcher finds nothing is passed over
    let mut scanned = |line: &[u8]| {
        if !finder.scan {
            return true;
        }
        unescape_line(line, &mut text);
        !(finder.matcher)(&text).is_empty()
    };
    if !finder.filters() || finder.invalid_utf8 && simdutf8::basic::from_utf8(block.bytes).is_err()
    {
        for (_, line) in block.lines() {
            if !line.is_empty() && scanned(line) {
                f(line)?;
            }
        }
        return ControlFlow::Continue(());
    }
    let bytes = block.bytes;
    let mut from = 0;
    // a line with a `\u` or `\/` escape may hold the pattern in a form the
    // raw bytes do not show (a tool that re-wrote the file with escaped
    // non-ASCII, `<`, `/`): it is a candidate too, parsed and checked
    let escaped = |from: usize| {
        let u = ESCAPED_U.find(&bytes[from..]);
        let s = ESCAPED_SOLIDUS.find(&bytes[from..]);
        match (u, s) {
            (Some(a), Some(b)) => Some(from + a.min(b)),
            (a, b) => a.or(b).map(|i| from + i),
        }
    };
    // the set has them already
    let mut next_escape = if finder.set.is_some() {
        None
    } else {
        escaped(0)
    };
    while from < bytes.len() {
        let raw = finder.next_raw(bytes, from);
        if next_escape.is_some_and(|e| e < from) {
            next_escape = escaped(from);
        }
        let at = match (raw, next_escape) {
            (Some(r), Some(e)) => r.min(e),
            (Some(r), None) => r,
            (None, Some(e)) => e,
            (None, None) => break,
        };
        let line = block.line_at(at);
        from = line.end + 1;
        if scanned(&bytes[line.clone()]) {
            f(&bytes[line])?;
        }
    }
    ControlFlow::Continue(())
}

/// `\u` in a line's raw bytes: some character was written escaped.
pub(super) static ESCAPED_U: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\\u"));
/// `\/`: a solidus written escaped (JSON allows it; some tools do it).
pub(super) static ESCAPED_SOLIDUS: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\\/"));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_raw_form_is_the_json_one() {
        // a newline is left out: a tool's strings are searched joined by
        // newlines, so the longest line of the pattern is looked for
        let f = Finder::new(&Pattern::smart("say \"hi\"\nnow"));
        assert_eq!(f.raw.as_deref(), Some(br#"say \"hi\""#.as_slice()));
        let block = br#"{"a":"x"}
{"text":"they SAY \"HI\"\nNOW ok"}
"#;
        let mut lines = Vec::new();
        let block = Block {
            bytes: block,
            offset: 0,
        };
        let _ = lines_in(block, &f, &mut |l: &[u8]| {
            lines.push(l.to_vec());
            ControlFlow::Continue(())
        });
        assert_eq!(
            lines,
            vec![br#"{"text":"they SAY \"HI\"\nNOW ok"}"#.to_vec()]
        );
        // the anchors: a caseless run, the rarest byte
        assert_eq!(caseless_run(b"quokka-rare-7731"), Some(11..16));
        assert!(matches!(
            Finder::new(&Pattern::smart("quokka-rare-7731")).anchor,
            Anchor::Run(11, _)
        ));
        assert!(matches!(
            Finder::new(&Pattern::smart("zebra")).anchor,
            Anchor::Byte(0)
        ));
        // a non-ASCII pattern folded: no prefilter
        assert!(Finder::new(&Pattern::smart("école")).raw.is_none());
        assert!(Finder::new(&Pattern::smart("École")).raw.is_some());
    }
}
