//! UTF-8 validation at SIMD speed (transcripts and the CLI's lines are
//! mostly ASCII, validated once, then searched or parsed as `str`).

/// `bytes` as `&str`; the error says where the first invalid byte is.
pub(crate) fn to_str(bytes: &[u8]) -> Result<&str, std::str::Utf8Error> {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(s) => Ok(s),
        // Only the slow path knows where: ask it for the details.
        Err(_) => std::str::from_utf8(bytes),
    }
}

/// `bytes` as a `String` without a copy when they are valid UTF-8, else
/// with each invalid sequence as U+FFFD (as Node's `Buffer.toString` gives).
pub(crate) fn into_string_lossy(bytes: Vec<u8>) -> String {
    // std's check has an ASCII fast path, and keeps the library's only
    // `unsafe` the one around `pre_exec`
    match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_text_passes_and_invalid_is_reported_or_replaced() {
        assert_eq!(to_str("héllo ✓".as_bytes()).unwrap(), "héllo ✓");
        let bad = b"ok \xff then";
        assert_eq!(to_str(bad).unwrap_err().valid_up_to(), 3);
        assert_eq!(into_string_lossy("日本語".as_bytes().to_vec()), "日本語");
        assert_eq!(into_string_lossy(bad.to_vec()), "ok \u{fffd} then");
        for b in [
            &b"plain"[..],
            b"a\xffb",
            b"\xe2\x82",
            b"\x82\xacx",
            b"ok\xf0\x9f\xa6",
            b"\xc3\xa9\xed\xa0\x80z",
            b"",
        ] {
            assert_eq!(
                into_string_lossy(b.to_vec()),
                String::from_utf8_lossy(b),
                "{b:?}"
            );
        }
        // a sequence cut at the end is invalid, too
        assert!(to_str(&"é".as_bytes()[..1]).is_err());
    }
}
