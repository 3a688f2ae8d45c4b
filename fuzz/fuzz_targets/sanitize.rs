//! The terminal sanitizer (`claudio::sanitize`): any
//! text, any chunking. No control character survives (C0 but `\n` and `\t`,
//! ESC, DEL, C1) and no bidi override; the sanitizer only removes (the
//! output is a subsequence of the input, and text with nothing to remove
//! passes unchanged); sanitizing twice is sanitizing once; the output is
//! the same however the text is split across `push` calls (with `finish` at
//! the end); and visible text after a sequence that is cut off survives,
//! after `finish` (the end of its block) or past the length cap without it.
//!
//! The first byte's low four bits say how many of the following bytes are
//! chunk sizes (in characters, cycled; 0 adds an empty push), its high four
//! which opener the cut-off check uses; the rest is the text, made
//! valid UTF-8 with `from_utf8_lossy`.
#![no_main]

use claudio::sanitize::{Sanitizer, MAX_STRING};
use libfuzzer_sys::fuzz_target;

/// What must never reach the terminal.
fn forbidden(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Feeds `text` in chunks of `sizes` characters (cycled; 0 pushes an empty
/// string, then one character).
fn chunked(text: &str, sizes: &[u8]) -> String {
    let mut s = Sanitizer::new();
    let mut out = String::new();
    let mut rest = text;
    let mut i = 0;
    while !rest.is_empty() {
        let n = sizes
            .get(i % sizes.len().max(1))
            .map_or(1, |&b| b as usize % 8);
        i += 1;
        if n == 0 {
            s.push("", &mut out);
        }
        let at = rest
            .char_indices()
            .nth(n.max(1))
            .map_or(rest.len(), |(at, _)| at);
        let (chunk, tail) = rest.split_at(at);
        s.push(chunk, &mut out);
        rest = tail;
    }
    s.finish(&mut out);
    out
}

/// Openers of sequences left unterminated, by the fuzzer's pick.
const OPENERS: [&str; 8] = [
    "\u{1b}]",
    "\u{1b}]8;;http://x",
    "\u{1b}P",
    "\u{1b}_",
    "\u{1b}^",
    "\u{1b}[",
    "\u{1b}[1;",
    "\u{1b} ",
];

fuzz_target!(|input: &[u8]| {
    let Some((&k, rest)) = input.split_first() else {
        return;
    };
    // the low four bits: how many sizes; the high four: which opener
    let opener = OPENERS[(k >> 4) as usize % OPENERS.len()];
    let k = (k as usize % 16).min(rest.len());
    let (sizes, data) = rest.split_at(k);
    let text = String::from_utf8_lossy(data);

    let once = Sanitizer::clean(&text);

    // 1. Nothing that acts on a terminal survives.
    if let Some(c) = once.chars().find(|&c| forbidden(c)) {
        panic!("{c:?} survived sanitizing");
    }

    // The sanitizer only removes, and removes nothing from plain text.
    let mut input_chars = text.chars();
    assert!(
        once.chars().all(|c| input_chars.any(|d| d == c)),
        "the output is not a subsequence of the input"
    );
    if !text.chars().any(forbidden) {
        assert_eq!(once, text, "plain text changed");
    }

    // 2. Idempotent.
    assert_eq!(
        Sanitizer::clean(&once),
        once,
        "sanitizing twice differs from once"
    );

    // 3. Chunking does not matter: fuzzer-chosen chunks, and one character
    //    per push (every split point at once).
    assert_eq!(chunked(&text, sizes), once, "chunked output differs");
    let mut s = Sanitizer::new();
    let mut out = String::new();
    let mut buf = [0u8; 4];
    for c in text.chars() {
        s.push(c.encode_utf8(&mut buf), &mut out);
    }
    s.finish(&mut out);
    assert_eq!(out, once, "char-by-char output differs");

    // 4. A sequence cut off hides no text after it: the marker (no letter
    //    of it ends any sequence) is there once the block ends, and without
    //    an end once more than the cap follows.
    let marker = "§MARK§";
    let cut = format!("{text}{opener}{marker}");
    assert!(
        Sanitizer::clean(&cut).contains(marker),
        "text after a cut-off sequence was lost"
    );
    let mut s = Sanitizer::new();
    let mut out = String::new();
    s.push(&cut, &mut out);
    s.push(&"x".repeat(MAX_STRING + 1), &mut out);
    assert!(
        out.contains(marker),
        "text after a cut-off sequence was held past the cap"
    );
});
