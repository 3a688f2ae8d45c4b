//! The raw-bytes prefilter: which lines of a block of transcript lines
//! may hold a match, found without decoding them.

use super::literal::{fold_class, Literal};
use super::unescape::unescape_line;
use super::{MatchFn, Pattern};
use crate::store::lines::Block;
use std::ops::ControlFlow;
use std::sync::Arc;

/// The raw-bytes prefilter (a literal's, or a set of a regex's literals)
/// and the decoded-text matcher.
pub(super) struct Finder {
    /// The literal as it appears inside a JSON string on disk.
    raw: Option<Vec<u8>>,
    /// Compare the raw form ignoring ASCII case.
    raw_ignore_case: bool,
    /// Where in `raw` the window that `set` looks for starts: a match of
    /// one of the literal's patterns at `i` is the literal at `i - window`
    /// if the rest of it is there too.
    window: usize,
    /// Everything that makes a line a candidate, looked for in one pass:
    /// the literal's window in each of its case variants (or the JSON
    /// forms of literals one of which every match contains), then the
    /// escapes `\u` and `\/`.
    set: Option<Set>,
    /// The patterns of `set` before this one are the literal's (the rest
    /// are the escapes).
    literals: usize,
    /// A line with invalid UTF-8 is a candidate too: it is decoded with
    /// U+FFFD in place of the bad bytes, and a literal has bytes of U+FFFD.
    invalid_utf8: bool,
    /// Run the matcher on unescaped lines first.
    scan: bool,
    pub(super) matcher: MatchFn,
}

/// A set of byte strings searched for at once.
enum Set {
    /// Teddy, the vectorised searcher, for up to 64 patterns.
    Packed(aho_corasick::packed::Searcher),
    /// More patterns, or a processor without Teddy.
    Automaton(aho_corasick::AhoCorasick),
}

/// The escapes that make a line a candidate: a line with a `\u` or `\/`
/// may hold the pattern in a form the raw bytes do not show (a tool that
/// re-wrote the file with escaped non-ASCII, `<`, `/`). `\u` is looked for
/// with the hex digit that follows it (three bytes let the vectorised
/// searcher tell it from `\"` and `\n` at once); `\/` only when the
/// pattern has a `/` (only a `/` can be written so).
fn escapes(solidus: bool) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = b"0123456789abcdefABCDEF"
        .iter()
        .map(|&h| vec![b'\\', b'u', h])
        .collect();
    if solidus {
        out.push(b"\\/".to_vec());
    }
    out
}

impl Set {
    /// Leftmost-first: Teddy is only used with it; any match finds its line.
    fn new(patterns: &[Vec<u8>]) -> Option<Set> {
        if patterns.len() <= 64 {
            let mut b = aho_corasick::packed::Config::new()
                .match_kind(aho_corasick::packed::MatchKind::LeftmostFirst)
                .builder();
            b.extend(patterns);
            if let Some(s) = b.build() {
                return Some(Set::Packed(s));
            }
        }
        aho_corasick::AhoCorasick::builder()
            .match_kind(aho_corasick::MatchKind::LeftmostFirst)
            .build(patterns)
            .ok()
            .map(Set::Automaton)
    }

    /// The first match at or after `from`: which pattern, and where.
    fn find(&self, hay: &[u8], from: usize) -> Option<(usize, usize)> {
        match self {
            Set::Packed(s) => s
                .find_in(hay, aho_corasick::Span::from(from..hay.len()))
                .map(|m| (m.pattern().as_usize(), m.start())),
            Set::Automaton(a) => a
                .find(aho_corasick::Input::new(hay).range(from..))
                .map(|m| (m.pattern().as_usize(), m.start())),
        }
    }
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
                let lit = Literal::new(text, *ignore_case);
                let ic = *ignore_case;
                let raw = (foldable && !raw.is_empty()).then_some(raw);
                // the whole literal when case matters; else its rarest
                // window of three bytes, in each case (a match is checked)
                let (window, mut patterns) = match raw.as_deref() {
                    Some(raw) if ic => {
                        let k = rarest_window(raw);
                        (k, case_variants(&raw[k..(k + WINDOW).min(raw.len())]))
                    }
                    Some(raw) => (0, vec![raw.to_vec()]),
                    None => (0, Vec::new()),
                };
                let literals = patterns.len();
                patterns.extend(escapes(text.contains('/')));
                if ic && raw.is_some() {
                    patterns.extend(folds_to_ascii(text));
                }
                Finder {
                    invalid_utf8: raw.as_deref().is_some_and(touches_fffd),
                    set: raw.is_some().then(|| Set::new(&patterns)).flatten(),
                    raw,
                    raw_ignore_case: ic,
                    window,
                    literals,
                    scan: false,
                    matcher: Arc::new(move |t: &str| lit.find(t)),
                }
            }
            Pattern::Custom(m) | Pattern::Scan(m) => Finder {
                raw: None,
                raw_ignore_case: false,
                window: 0,
                set: None,
                literals: 0,
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
                // a caseless regex's literal, in every case (`\bfrog\b`
                // under `-i`: 16 forms): looked for as a caseless literal
                // is, by its rarest window in each case, then the whole of
                // it around the window (fewer patterns, the faster search)
                if let Some(raw) = forms.as_deref().and_then(every_case_of_one) {
                    let k = rarest_window(&raw);
                    let mut patterns = case_variants(&raw[k..(k + WINDOW).min(raw.len())]);
                    let literals = patterns.len();
                    patterns.extend(escapes(raw.contains(&b'/')));
                    return Finder {
                        set: Set::new(&patterns),
                        raw: Some(raw),
                        raw_ignore_case: true,
                        window: k,
                        invalid_utf8: false,
                        literals,
                        scan: *scan,
                        matcher: matcher.clone(),
                    };
                }
                let mut literals = 0;
                let set = forms.as_ref().and_then(|forms| {
                    let mut forms = forms.clone();
                    forms.sort_unstable();
                    forms.dedup();
                    literals = forms.len();
                    // the escapes, in the same pass (two more passes over
                    // each block took as long)
                    let solidus = any_of.iter().any(|l| l.contains(&b'/'));
                    if forms.len() <= 16 {
                        forms.extend(escapes(solidus));
                        return Set::new(&forms);
                    }
                    // more literals: the vectorised searcher's buckets
                    // fill up and the automaton's rare-byte search is
                    // faster, with the escapes' two-byte forms
                    forms.extend([b"\\u".to_vec(), b"\\/".to_vec()]);
                    aho_corasick::AhoCorasick::builder()
                        .match_kind(aho_corasick::MatchKind::LeftmostFirst)
                        .build(&forms)
                        .ok()
                        .map(Set::Automaton)
                });
                Finder {
                    raw: None,
                    raw_ignore_case: false,
                    window: 0,
                    invalid_utf8: set.is_some() && forms.iter().flatten().any(|f| touches_fffd(f)),
                    set,
                    literals,
                    scan: *scan,
                    matcher: matcher.clone(),
                }
            }
        }
    }

    /// Whether some lines can be passed over unparsed.
    pub(super) fn filters(&self) -> bool {
        self.set.is_some()
    }

    /// The next position in `hay` at or after `from` that makes its line a
    /// candidate: where the raw form occurs, or an escape.
    pub(super) fn next_raw(&self, hay: &[u8], mut from: usize) -> Option<usize> {
        let set = self.set.as_ref()?;
        loop {
            let (pattern, at) = set.find(hay, from)?;
            let Some(raw) = self.raw.as_deref().filter(|_| pattern < self.literals) else {
                return Some(at);
            };
            // the window matched: the literal must be around it
            let fits = at.checked_sub(self.window).filter(|&start| {
                hay.get(start..start + raw.len()).is_some_and(|h| {
                    if self.raw_ignore_case {
                        h.eq_ignore_ascii_case(raw)
                    } else {
                        h == raw
                    }
                })
            });
            if fits.is_some() {
                return fits;
            }
            from = at + 1;
        }
    }
}

/// The UTF-8 bytes of the characters beyond ASCII that a caseless search
/// for the ASCII `text` matches in decoded text although its raw bytes do
/// not show it (the Kelvin sign `K` for a `k`, the long s `ſ` for an `s`:
/// their simple case folding classes, as [`Literal`] folds case): a line
/// with one is a candidate (like an escape) and is checked whole.
fn folds_to_ascii(text: &str) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = text
        .chars()
        .flat_map(fold_class)
        .filter(|c| !c.is_ascii())
        .map(|c| c.to_string().into_bytes())
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The length of the window of a caseless literal that is looked for.
const WINDOW: usize = 3;

/// Where the window of [`WINDOW`] bytes of `raw` starts whose bytes are
/// rarest in transcripts (digits and punctuation before letters).
pub(super) fn rarest_window(raw: &[u8]) -> usize {
    let w = WINDOW.min(raw.len());
    (0..=raw.len() - w)
        .max_by_key(|&k| {
            let rank: usize = raw[k..k + w].iter().map(|&b| rank(b).min(64)).sum();
            (rank, std::cmp::Reverse(k))
        })
        .unwrap_or(0)
}

/// The one ASCII literal (in lower case) that `forms` write in every
/// case, each once: then a line holds one of the forms exactly when it
/// holds the literal ignoring ASCII case.
fn every_case_of_one(forms: &[Vec<u8>]) -> Option<Vec<u8>> {
    let lower = forms.first()?.to_ascii_lowercase();
    let letters = lower.iter().filter(|b| b.is_ascii_alphabetic()).count();
    if !lower.is_ascii() || letters == 0 || letters > 8 {
        return None;
    }
    let mut seen: Vec<&[u8]> = forms.iter().map(Vec::as_slice).collect();
    seen.sort_unstable();
    seen.dedup();
    let all = seen.len() == 1 << letters
        && seen
            .iter()
            .all(|f| f.len() == lower.len() && f.eq_ignore_ascii_case(&lower));
    all.then_some(lower)
}

/// Every way of writing `bytes` with its ASCII letters in either case.
fn case_variants(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut out = vec![Vec::with_capacity(bytes.len())];
    for &b in bytes {
        let (lo, up) = (b.to_ascii_lowercase(), b.to_ascii_uppercase());
        if lo == up {
            out.iter_mut().for_each(|v| v.push(b));
        } else {
            out = out
                .into_iter()
                .flat_map(|v| {
                    let mut w = v.clone();
                    w.push(up);
                    let mut v = v;
                    v.push(lo);
                    [v, w]
                })
                .collect();
        }
    }
    out
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

/// How rare a byte is in transcripts: the higher, the rarer (from a rough
/// frequency, commonest first: letters, JSON punctuation, digits).
fn rank(b: u8) -> usize {
    const COMMON: &[u8] = b"\" e:,taoinsrhldcu{}mpfgywbv.-_0123456789k/x\\jqz";
    let l = b.to_ascii_lowercase();
    COMMON.iter().position(|&c| c == l).unwrap_or(usize::MAX)
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
    // one pass for the pattern and the escapes (see `escapes`)
    while let Some(at) = finder.next_raw(bytes, from) {
        let line = block.line_at(at);
        from = line.end + 1;
        if scanned(&bytes[line.clone()]) {
            f(&bytes[line])?;
        }
        if from >= bytes.len() {
            break;
        }
    }
    ControlFlow::Continue(())
}

#[cfg(test)]
mod tests {
    use super::super::literal::find_literal;
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
        // the window: the rarest three bytes (a caseless run first)
        assert_eq!(rarest_window(b"quokka-rare-7731"), 12);
        assert_eq!(rarest_window(b"zebra"), 0);
        assert_eq!(rarest_window(b"ab"), 0);
        let f = Finder::new(&Pattern::smart("zebra"));
        assert_eq!((f.window, f.literals), (0, 8), "zeb in each case");
        assert_eq!(Finder::new(&Pattern::smart("Zebra")).literals, 1);
        // a non-ASCII pattern folded: no prefilter
        assert!(Finder::new(&Pattern::smart("école")).raw.is_none());
        assert!(Finder::new(&Pattern::smart("École")).raw.is_some());
    }

    /// The candidate lines of `block` for `p`.
    fn candidates(p: &Pattern, block: &[u8]) -> Vec<Vec<u8>> {
        let f = Finder::new(p);
        let mut lines = Vec::new();
        let _ = lines_in(
            Block {
                bytes: block,
                offset: 0,
            },
            &f,
            &mut |l: &[u8]| {
                lines.push(l.to_vec());
                ControlFlow::Continue(())
            },
        );
        lines
    }

    #[test]
    fn a_window_that_does_not_grow_into_the_literal_is_passed_over() {
        // `-77` occurs first without the rest; the literal at a line's start
        let block = b"{\"a\":\"x-773\"}\nquokka-rare-7731 \\/\n{\"b\":\"QUOKKA-RARE-7731\"}\n";
        let want: Vec<Vec<u8>> = vec![
            b"quokka-rare-7731 \\/".to_vec(),
            b"{\"b\":\"QUOKKA-RARE-7731\"}".to_vec(),
        ];
        assert_eq!(candidates(&Pattern::smart("quokka-rare-7731"), block), want);
        // case matters: no exact one; a `\/` counts only for a pattern
        // with a `/`, a `\u` always
        assert!(candidates(&Pattern::smart("QUOKKA-rare"), block).is_empty());
        assert_eq!(
            candidates(&Pattern::smart("QUOKKA/rare"), block),
            want[..1].to_vec()
        );
        let escaped = b"{\"a\":\"caf\\u00e9\"}\n{\"b\":\"\\\"u1\"}\n";
        assert_eq!(
            candidates(&Pattern::smart("CAF"), escaped),
            vec![b"{\"a\":\"caf\\u00e9\"}".to_vec()]
        );
        assert!(candidates(&Pattern::smart("zzz"), b"{\"a\":\"zz\"}\n").is_empty());
        // a one-byte literal
        assert_eq!(candidates(&Pattern::smart("q"), block).len(), 2);
    }

    #[test]
    fn a_kelvin_sign_is_a_k_and_a_long_s_an_s_when_case_is_folded() {
        // `K` (U+212A) folds with an ASCII `k`, `ſ` (U+017F) with an `s`:
        // the full check finds "kelvin" in "Kelvin"; their raw bytes
        // (E2 84 AA, C5 BF) have no `k` or `s`
        let block = "{\"a\":\"\u{212A}elvin\"}\n{\"b\":\"\u{17F}ea\"}\n".as_bytes();
        assert_eq!(find_literal("\u{212A}elvin", "kelvin", true), vec![0..8]);
        assert_eq!(
            candidates(&Pattern::smart("kelvin"), block),
            vec!["{\"a\":\"\u{212A}elvin\"}".as_bytes().to_vec()]
        );
        assert_eq!(
            candidates(&Pattern::smart("sea"), block),
            vec!["{\"b\":\"\u{17F}ea\"}".as_bytes().to_vec()]
        );
        // case matters, or no `k` or `s`: no candidate
        assert!(candidates(&Pattern::smart("Kelvin"), block).is_empty());
        assert!(candidates(&Pattern::smart("elvix"), block).is_empty());
        assert_eq!(find_literal("\u{17F}ea", "sea", true), vec![0..4]);
        // every character beyond ASCII that folds with an ASCII one is
        // one of these two
        assert_eq!(
            folds_to_ascii("abcdefghijklmnopqrstuvwxyz"),
            [
                "\u{17F}".as_bytes().to_vec(),
                "\u{212A}".as_bytes().to_vec()
            ]
        );
    }

    proptest::proptest! {
        /// A regex's literals that are one literal in some of its cases:
        /// the candidates are exactly the lines whose raw bytes hold one
        /// of them or an escape, whether they are every case of it (looked
        /// for as a caseless literal) or not.
        #[test]
        fn candidates_of_a_literal_s_cases_are_the_lines_that_hold_one(
            lines in proptest::collection::vec("[abkAB7\\-\"\\\\/ug ]{0,24}", 0..12),
            // at most 16 forms: more are looked for with the escapes' two-byte forms
            needle in "[abkAB7/\\-]{1,4}",
            keep in proptest::collection::vec(proptest::bool::weighted(0.7), 32),
            all in proptest::bool::ANY,
        ) {
            let block: Vec<u8> = lines.iter().flat_map(|l| l.bytes().chain([b'\n'])).collect();
            let every = case_variants(needle.as_bytes());
            let any_of: Vec<Vec<u8>> = every
                .iter()
                .zip(keep.iter().cycle())
                .filter(|(_, k)| all || **k)
                .map(|(v, _)| v.clone())
                .collect();
            proptest::prop_assume!(!any_of.is_empty());
            let forms: Vec<Vec<u8>> = any_of.iter().map(|l| raw_form(l).unwrap()).collect();
            let p = Pattern::Prefiltered {
                matcher: Arc::new(|_: &str| Vec::new()),
                any_of,
                scan: false,
            };
            let holds = |l: &[u8]| {
                forms.iter().any(|f| l.windows(f.len()).any(|w| w == f.as_slice()))
                    || l.windows(3).any(|w| w[..2] == *b"\\u" && w[2].is_ascii_hexdigit())
                    || needle.contains('/') && l.windows(2).any(|w| w == b"\\/")
            };
            let want: Vec<Vec<u8>> = lines
                .iter()
                .map(|l| l.as_bytes().to_vec())
                .filter(|l| holds(l))
                .collect();
            proptest::prop_assert_eq!(candidates(&p, &block), want);
        }

        /// The candidates are exactly the lines whose raw bytes hold the
        /// literal's JSON form (in either ASCII case when case is folded)
        /// or an escape: `\u` and a hex digit, or `\/` when the literal has
        /// a `/`.
        #[test]
        fn candidates_are_the_lines_that_hold_the_form_or_an_escape(
            lines in proptest::collection::vec("[abkAB7\\-\"\\\\/ug \u{212A}\u{17F}]{0,24}", 0..12),
            needle in "[abksAB7/\\-]{1,5}",
            fold in proptest::bool::ANY,
        ) {
            let block: Vec<u8> = lines.iter().flat_map(|l| l.bytes().chain([b'\n'])).collect();
            let p = Pattern::Literal { text: needle.clone(), ignore_case: fold };
            let raw = needle.as_bytes();
            let holds = |l: &[u8]| {
                l.windows(raw.len()).any(|w| if fold { w.eq_ignore_ascii_case(raw) } else { w == raw })
                    || l.windows(3).any(|w| w[..2] == *b"\\u" && w[2].is_ascii_hexdigit())
                    || needle.contains('/') && l.windows(2).any(|w| w == b"\\/")
                    // a Kelvin sign, for a caseless `k`
                    || fold && needle.contains(['k', 'K']) && l.windows(3).any(|w| w == "\u{212A}".as_bytes())
                    // a long s, for a caseless `s`
                    || fold && needle.contains(['s', 'S']) && l.windows(2).any(|w| w == "\u{17F}".as_bytes())
            };
            let want: Vec<Vec<u8>> = lines
                .iter()
                .map(|l| l.as_bytes().to_vec())
                .filter(|l| holds(l))
                .collect();
            proptest::prop_assert_eq!(candidates(&p, &block), want);
        }
    }
}
