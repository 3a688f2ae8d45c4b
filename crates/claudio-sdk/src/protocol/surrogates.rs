//! Lone surrogate escapes: the fallback every JSON line parser shares.
//!
//! The CLI is JavaScript: `JSON.stringify` writes a string cut inside a
//! character beyond the BMP (an emoji sliced by `.slice()`) with the half
//! it kept as a lone `\ud83d` escape. JavaScript and Python read such a
//! line; serde_json refuses it ("lone leading surrogate"), and the whole
//! line (a prompt, a tool result, a streamed message) would be lost. So a
//! line that fails to parse and holds such an escape is parsed again with
//! each lone surrogate read as U+FFFD, as a lossy UTF-8 decoder reads a
//! broken character. Lines without one cost nothing more: the copy is made
//! only on that slow path.

/// The line with every `\uXXXX` escape of a lone surrogate (one of
/// `\uD800`–`\uDFFF` not part of a high-low pair) rewritten as `\ufffd`,
/// the same length; `None` when the line has none.
pub(crate) fn mend_lone_surrogates(line: &[u8]) -> Option<Vec<u8>> {
    let mut out: Option<Vec<u8>> = None;
    let mut i = 0;
    while let Some(k) = line.get(i..).and_then(|rest| memchr::memchr(b'\\', rest)) {
        i += k;
        if line.get(i + 1) != Some(&b'u') {
            i += 2; // `\"`, `\\`, `\n`...: one escape, never the start of another
            continue;
        }
        let Some(unit) = hex4(line, i + 2) else {
            i += 2;
            continue;
        };
        match unit {
            0xD800..=0xDBFF
                if line.get(i + 6) == Some(&b'\\')
                    && line.get(i + 7) == Some(&b'u')
                    && hex4(line, i + 8).is_some_and(|lo| (0xDC00..=0xDFFF).contains(&lo)) =>
            {
                i += 12; // a pair
            }
            0xD800..=0xDFFF => {
                let o = out.get_or_insert_with(|| line.to_vec());
                o[i + 2..i + 6].copy_from_slice(b"fffd");
                i += 6;
            }
            _ => i += 6,
        }
    }
    out
}

/// The four hex digits at `at`, as a number.
fn hex4(line: &[u8], at: usize) -> Option<u32> {
    let h = line.get(at..at + 4)?;
    h.iter()
        .try_fold(0u32, |n, &b| Some(n * 16 + char::from(b).to_digit(16)?))
}

/// `parse(line)`; when that fails and the line holds lone surrogate
/// escapes, `parse` of the line with them as `\ufffd` (and the first error
/// if that fails too).
pub(crate) fn or_mended<T, E>(line: &str, parse: impl Fn(&str) -> Result<T, E>) -> Result<T, E> {
    parse(line).or_else(|e| match mend_lone_surrogates(line.as_bytes()) {
        // only ASCII hex digits were rewritten: still UTF-8
        Some(m) => match String::from_utf8(m) {
            Ok(m) => parse(&m).map_err(|_| e),
            Err(_) => Err(e),
        },
        None => Err(e),
    })
}

/// [`serde_json::from_str`] reading lone surrogate escapes as U+FFFD.
pub(crate) fn from_str_lenient<T: serde::de::DeserializeOwned>(
    line: &str,
) -> Result<T, serde_json::Error> {
    or_mended(line, |l| serde_json::from_str(l))
}

/// [`serde_json::from_slice`] reading lone surrogate escapes as U+FFFD.
pub(crate) fn from_slice_lenient<T: serde::de::DeserializeOwned>(
    line: &[u8],
) -> Result<T, serde_json::Error> {
    serde_json::from_slice(line).or_else(|e| match mend_lone_surrogates(line) {
        Some(m) => serde_json::from_slice(&m).map_err(|_| e),
        None => Err(e),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        let mend =
            |s: &str| mend_lone_surrogates(s.as_bytes()).map(|m| String::from_utf8(m).unwrap());
        assert_eq!(mend(r#"{"a":"x"}"#), None);
        assert_eq!(
            mend(r#"{"a":"\ud83d\ude00 \u00e9"}"#),
            None,
            "a pair is kept"
        );
        assert_eq!(
            mend(r#"{"a":"\ud83d"}"#).as_deref(),
            Some(r#"{"a":"\ufffd"}"#)
        );
        assert_eq!(
            mend(r#"{"a":"\uDE00x"}"#).as_deref(),
            Some(r#"{"a":"\ufffdx"}"#)
        );
        // a lone high one before a pair; two high ones; a low then a high
        assert_eq!(
            mend(r#""\ud83d\ud83d\ude00\ud800\ud800\udc00\ud800""#).as_deref(),
            Some(r#""\ufffd\ud83d\ude00\ufffd\ud800\udc00\ufffd""#)
        );
        // an escaped backslash before `ud83d` is no escape
        assert_eq!(mend(r#""\\ud83d""#), None);
        assert_eq!(mend(r#""\\\ud83d""#).as_deref(), Some(r#""\\\ufffd""#));
        // cut short: left for the parser to refuse
        assert_eq!(mend(r#""\ud8"#), None);
        assert_eq!(mend("\\"), None);
    }

    proptest::proptest! {
        /// Any UTF-16 text written as `JSON.stringify` may write it (lone
        /// surrogates as escapes, the rest escaped or not) reads as a lossy
        /// UTF-16 decoder reads it; any bytes at all are mended without a
        /// panic, to the same length.
        #[test]
        fn mended_text_reads_as_lossy_utf16(
            units in proptest::collection::vec(
                proptest::prop_oneof![0xD800u16..0xE000, 0x20u16..0x80, 0u16..=0xFFFF],
                0..16,
            ),
            escape_all in proptest::bool::ANY,
            junk in proptest::collection::vec(proptest::prop_oneof![
                proptest::strategy::Just(b'\\'), proptest::strategy::Just(b'u'),
                proptest::strategy::Just(b'd'), proptest::strategy::Just(b'8'),
                proptest::strategy::Just(b'c'), proptest::num::u8::ANY,
            ], 0..24),
        ) {
            let mut line = String::from("\"");
            for r in char::decode_utf16(units.iter().copied()) {
                match r {
                    Ok(c) if !escape_all && c != '"' && c != '\\' && c >= ' ' => line.push(c),
                    Ok(c) => {
                        let mut buf = [0u16; 2];
                        for u in c.encode_utf16(&mut buf) {
                            line.push_str(&format!("\\u{u:04x}"));
                        }
                    }
                    Err(e) => line.push_str(&format!("\\u{:04X}", e.unpaired_surrogate())),
                }
            }
            line.push('"');
            let got: String = from_str_lenient(&line).unwrap();
            proptest::prop_assert_eq!(got, String::from_utf16_lossy(&units));
            if let Some(m) = mend_lone_surrogates(&junk) {
                proptest::prop_assert_eq!(m.len(), junk.len());
            }
        }
    }

    #[test]
    fn a_line_with_a_lone_surrogate_parses() {
        let line = r#"{"t":"cut \ud83d","u":"\ud83d\ude00"}"#;
        assert!(
            serde_json::from_str::<Value>(line).is_err(),
            "serde_json refuses it"
        );
        let v: Value = from_str_lenient(line).unwrap();
        assert_eq!(v["t"], "cut \u{FFFD}");
        assert_eq!(v["u"], "😀");
        let v: Value = from_slice_lenient(line.as_bytes()).unwrap();
        assert_eq!(v["t"], "cut \u{FFFD}");
        // not JSON for another reason: still an error
        assert!(from_str_lenient::<Value>(r#"{"t":"\ud83d""#).is_err());
        assert!(from_str_lenient::<Value>("nope").is_err());
    }
}
