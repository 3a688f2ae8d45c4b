//! The terminal sanitizer (`src/cli/sanitize.rs`, part of the binary): any
//! text, any chunking. No control character survives (C0 but `\n` and `\t`,
//! ESC, DEL, C1) and no bidi override; the sanitizer only removes (the
//! output is a subsequence of the input, and text with nothing to remove
//! passes unchanged); sanitizing twice is sanitizing once; and the output is
//! the same however the text is split across `push` calls.
//!
//! The first byte says how many of the following bytes are chunk sizes (in
//! characters, cycled; 0 adds an empty push); the rest is the text, made
//! valid UTF-8 with `from_utf8_lossy`.
#![no_main]

#[path = "../../src/cli/sanitize.rs"]
mod sanitize;

use libfuzzer_sys::fuzz_target;
use sanitize::Sanitizer;

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
    out
}

fuzz_target!(|input: &[u8]| {
    let Some((&k, rest)) = input.split_first() else {
        return;
    };
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
    assert_eq!(out, once, "char-by-char output differs");
});
