//! The grams filter never says "no" to a transcript where a full search
//! finds a match: case folded as the search folds it, Unicode, JSON
//! escapes, invalid UTF-8, a tool's strings joined by newlines.

use super::*;
use crate::store::lines::Transcript;
use crate::store::search::extract::hits_in_entry;
use crate::store::search::literal::Literal;
use crate::store::search::prefilter::Finder;
use crate::store::search::{grams_of, MatchFn, Pattern};
use proptest::prelude::*;
use serde_json::{json, Value};
use std::sync::Arc;

/// Words that the patterns look for, in several cases and foldings.
pub(crate) const WORDS: &[&str] = &[
    "frog",
    "Frog",
    "FROG",
    "frogs",
    "secret",
    "ſecret",
    "SECRET",
    "kelvin",
    "\u{212A}elvin",
    "σίσυφος",
    "ΣΊΣΥΦΟΣ",
    "école",
    "ÉCOLE",
    "beef",
    "quokka-7731",
    "a/b",
    "x",
];

/// What separates the words of a text.
const GLUE: &[&str] = &[" ", "\n", "\"", "\\", "-", "é", "\t", "", "~"];

fn text() -> impl Strategy<Value = String> {
    proptest::collection::vec((0..WORDS.len(), 0..GLUE.len()), 0..6).prop_map(|ws| {
        ws.into_iter()
            .map(|(w, g)| format!("{}{}", WORDS[w], GLUE[g]))
            .collect()
    })
}

/// One transcript line: a prompt, an answer, a tool's call or result, a
/// note, a damaged line; written as JSON writes it, or with every
/// character beyond ASCII and every `/` escaped, and with a `~` made a
/// byte of invalid UTF-8.
pub(crate) fn line() -> impl Strategy<Value = Vec<u8>> {
    (0u8..7, text(), text(), 0u8..3, any::<bool>()).prop_map(|(kind, a, b, how, meta)| {
        let v = match kind {
            0 => json!({"type":"user","message":{"role":"user","content":a}}),
            1 => json!({"type":"user","message":{"content":[{"type":"text","text":a},
                {"type":"tool_result","content":[{"type":"text","text":b},{"type":"text","text":a}]}]}}),
            2 => json!({"type":"assistant","message":{"content":[{"type":"text","text":a}]}}),
            3 => json!({"type":"assistant","message":{"content":[
                {"type":"tool_use","name":a,"input":{"command":b,"args":[a,{"deep":b}]}}]}}),
            4 => json!({"type":"user","message":{"content":[{"type":"tool_result","content":a}]}}),
            5 => json!({"type":"system","content":a,"note":b}),
            _ => json!({"type":"assistant","message":{"content":[{"type":"text","text":a}]}}),
        };
        let mut v = v;
        if meta && kind == 0 {
            v["isMeta"] = json!(true);
        }
        let mut s = v.to_string();
        if kind == 6 {
            let mut cut = s.len() / 2; // damaged
            while !s.is_char_boundary(cut) {
                cut -= 1;
            }
            s.truncate(cut);
        }
        let s = if how == 1 { escape_all(&s) } else { s };
        let mut bytes = s.into_bytes();
        if how == 2 {
            for b in &mut bytes {
                if *b == b'~' {
                    *b = 0xFF;
                }
            }
        }
        bytes
    })
}

/// `s` with every character beyond ASCII written `\uXXXX` (surrogate
/// pairs beyond the first plane) and every `/` written `\/`.
fn escape_all(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c == '/' {
            out.push_str("\\/");
        } else if c.is_ascii() {
            out.push(c);
        } else {
            let mut buf = [0u16; 2];
            for u in c.encode_utf16(&mut buf) {
                out.push_str(&format!("\\u{u:04x}"));
            }
        }
    }
    out
}

/// A pattern: a literal with case or without, or a regex-like matcher
/// (the literal at word boundaries) with every case variant of it as the
/// literals each match holds.
pub(crate) fn pattern() -> impl Strategy<Value = Pattern> {
    (0..WORDS.len() + 3, any::<bool>(), any::<bool>()).prop_map(|(w, ignore_case, regex)| {
        let text = match w.checked_sub(WORDS.len()) {
            None => WORDS[w].to_owned(),
            Some(0) => "og fr".to_owned(),
            Some(1) => "frog\nsecret".to_owned(),
            _ => "\"frog".to_owned(),
        };
        if !regex {
            return Pattern::Literal { text, ignore_case };
        }
        let lit = Literal::new(&text, ignore_case);
        let matcher: MatchFn = Arc::new(move |t: &str| {
            let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
            lit.find(t)
                .into_iter()
                .filter(|r| {
                    !word(t[..r.start].chars().next_back()) && !word(t[r.end..].chars().next())
                })
                .collect()
        });
        Pattern::Prefiltered {
            matcher,
            any_of: variants(&text, ignore_case),
            scan: false,
        }
    })
}

/// Every way of writing `text` that matches it (each character's folding
/// class when case is folded).
fn variants(text: &str, ignore_case: bool) -> Vec<Vec<u8>> {
    let mut out = vec![String::new()];
    for c in text.chars() {
        let class = if ignore_case { fold_class(c) } else { vec![c] };
        out = out
            .into_iter()
            .flat_map(|s| class.iter().map(move |d| format!("{s}{d}")))
            .collect();
    }
    out.into_iter().map(String::into_bytes).collect()
}

/// Whether a full search finds a match in a line (every line parsed, as
/// the search parses a candidate line), with tools or without.
pub(crate) fn line_matches(line: &[u8], matcher: &MatchFn) -> bool {
    let parsed = crate::protocol::from_slice_lenient::<Value>(line).or_else(|e| {
        match std::str::from_utf8(line) {
            Ok(_) => Err(e),
            Err(_) => crate::protocol::from_str_lenient::<Value>(&String::from_utf8_lossy(line)),
        }
    });
    let Ok(v) = parsed else {
        return false;
    };
    [false, true]
        .into_iter()
        .any(|tools| !hits_in_entry(&v, tools, matcher).is_empty())
}

/// The filter of a transcript of `lines`, made as the archive makes it.
pub(crate) fn filter_of(lines: &[Vec<u8>]) -> Grams {
    let mut bytes = Vec::new();
    for l in lines {
        bytes.extend_from_slice(l);
        bytes.push(b'\n');
    }
    let meta = std::fs::metadata(".").unwrap();
    let path = std::path::Path::new("t.jsonl");
    grams_of(Transcript::from_parts(
        Box::new(std::io::Cursor::new(bytes)),
        meta,
        path,
    ))
    .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// The differential property, line by line: where a full search finds
    /// a match, the filter says "maybe".
    #[test]
    fn the_filter_never_hides_a_match(
        lines in proptest::collection::vec(line(), 0..8),
        p in pattern(),
    ) {
        let g = filter_of(&lines);
        let matcher = Finder::new(&p).matcher;
        if lines.iter().any(|l| line_matches(l, &matcher)) {
            let needs = Needs::of(&p);
            prop_assert!(needs.is_none_or(|n| g.may_hold(&n)), "{p:?}: {lines:?}");
        }
    }
}

/// Folding is one character for each class of simple case folding, the
/// classes a caseless search matches by.
#[test]
fn each_folding_class_folds_to_one_character() {
    for c in (0..0x3_0000u32).filter_map(char::from_u32) {
        let class = fold_class(c);
        if class.len() > 1 || c.is_ascii() {
            for d in class {
                assert_eq!(fold(d), fold(c), "{c:?} {d:?}");
            }
        }
    }
    assert_eq!(fold('\u{212A}'), 'K');
    assert_eq!(fold('ſ'), 'S');
    assert_eq!(fold('ς'), fold('Σ'));
    assert_eq!(fold('é'), fold('É'));
}

/// A word the transcript lacks is a "no"; one it holds, in any case or
/// folding, a "maybe"; a pattern without a gram, or a matcher of one's
/// own, knows nothing.
#[test]
fn what_a_transcript_lacks_is_known() {
    let line = json!({"type":"user","message":{"content":"the ſecret of the \u{212A}elvin Frog"}})
        .to_string()
        .into_bytes();
    let g = filter_of(&[line]);
    let smart = |t: &str| Needs::of(&Pattern::smart(t)).unwrap();
    for present in ["frog", "FROG", "secret", "kelvin", "elvin frog"] {
        assert!(g.may_hold(&smart(present)), "{present}");
    }
    for absent in ["quokka", "toad", "frogs", "secrets"] {
        assert!(!g.may_hold(&smart(absent)), "{absent}");
    }
    // fewer than four letters or digits in a row, hexadecimal digits
    // alone: nothing to look for
    for none in ["fro", "a b c d", "beef", "2026"] {
        assert_eq!(Needs::of(&Pattern::smart(none)), None, "{none}");
    }
    assert_eq!(
        Needs::of(&Pattern::Custom(Arc::new(|_: &str| Vec::new()))),
        None
    );
    // one of a regex's literals suffices
    let either = Pattern::Prefiltered {
        matcher: Arc::new(|_: &str| Vec::new()),
        any_of: vec![b"quokka".to_vec(), b"frog".to_vec()],
        scan: false,
    };
    assert!(g.may_hold(&Needs::of(&either).unwrap()));
    // a transcript passed over in part (a line too long): it knows nothing
    let mut set = GramSet::default();
    set.add("frog");
    set.read_whole();
    assert!(set.finish().may_hold(&smart("quokka")));
}

#[test]
fn the_filter_round_trips_and_rejects_other_data() {
    let mut set = GramSet::default();
    set.add("the frog and the toad");
    let g = set.finish();
    let b = g.to_bytes();
    assert_eq!(Grams::from_bytes(&b), Some(g.clone()));
    let mut other = b.clone();
    other[0] ^= 1; // another version
    assert_eq!(Grams::from_bytes(&other), None);
    assert_eq!(Grams::from_bytes(&b[..b.len() - 1]), None);
    assert_eq!(Grams::from_bytes(&b[..10]), None);
}
