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
/// decoded by `lossy`.
pub(crate) fn into_string_lossy(bytes: Vec<u8>, lossy: impl FnOnce(&[u8]) -> String) -> String {
    if simdutf8::basic::from_utf8(&bytes).is_ok() {
        // SAFETY: just validated as UTF-8.
        unsafe { String::from_utf8_unchecked(bytes) }
    } else {
        lossy(&bytes)
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
        let lossy = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        assert_eq!(
            into_string_lossy("日本語".as_bytes().to_vec(), lossy),
            "日本語"
        );
        assert_eq!(into_string_lossy(bad.to_vec(), lossy), "ok \u{fffd} then");
        // a sequence cut at the end is invalid, too
        assert!(to_str(&"é".as_bytes()[..1]).is_err());
    }
}
