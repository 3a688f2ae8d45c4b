//! JSON string escapes undone on a whole transcript line.

/// A transcript line with its JSON string escapes undone (`\n` a newline,
/// `\"` a quote, `\uXXXX` the character): every string's text is in it,
/// whole. Invalid UTF-8 and lone surrogates become U+FFFD.
pub(super) fn unescape_line(line: &[u8], out: &mut String) {
    out.clear();
    let text = String::from_utf8_lossy(line);
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let Some(k) = memchr::memchr(b'\\', &b[i..]) else {
            out.push_str(&text[i..]);
            break;
        };
        out.push_str(&text[i..i + k]);
        i += k;
        let Some(&e) = b.get(i + 1) else {
            break;
        };
        i += 2;
        match e {
            b'n' => out.push('\n'),
            b't' => out.push('\t'),
            b'r' => out.push('\r'),
            b'b' => out.push('\u{8}'),
            b'f' => out.push('\u{c}'),
            b'u' => {
                let hex = |at: usize| {
                    text.get(at..at + 4)
                        .and_then(|h| u32::from_str_radix(h, 16).ok())
                };
                let Some(hi) = hex(i) else {
                    out.push('\u{FFFD}');
                    continue;
                };
                i += 4;
                let c = if (0xD800..0xDC00).contains(&hi)
                    && b.get(i) == Some(&b'\\')
                    && b.get(i + 1) == Some(&b'u')
                {
                    match hex(i + 2) {
                        Some(lo) if (0xDC00..0xE000).contains(&lo) => {
                            i += 6;
                            char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))
                        }
                        _ => None,
                    }
                } else {
                    char::from_u32(hi)
                };
                out.push(c.unwrap_or('\u{FFFD}'));
            }
            other => out.push(other as char),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unescaped_lines_hold_every_string_whole() {
        let v = json!({"a":"line one\nsay \"hi\" \\ é 😀 \u{1b}","b":["x\ty"]});
        let line = serde_json::to_string(&v).unwrap();
        let mut out = String::new();
        unescape_line(line.as_bytes(), &mut out);
        assert!(
            out.contains("line one\nsay \"hi\" \\ é 😀 \u{1b}"),
            "{out:?}"
        );
        assert!(out.contains("x\ty"), "{out:?}");
        unescape_line(br#"{"s":"\ud83d\ude00 \ud800 \u12"}"#, &mut out);
        assert_eq!(out, "{\"s\":\"😀 \u{FFFD} \u{FFFD}12\"}");
    }
}
