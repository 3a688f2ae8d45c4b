//! A fast path for the line the CLI writes most: a `stream_event` carrying
//! one `content_block_delta`.
//!
//! While an answer streams, nearly every line has this shape:
//!
//! ```text
//! {"type":"stream_event","event":{"type":"content_block_delta","index":0,
//!  "delta":{"type":"text_delta","text":"..."}},"session_id":"...",
//!  "parent_tool_use_id":null,"uuid":"...","api_message_id":"msg_..."}
//! ```
//!
//! [`stream_delta`] reads exactly that (keys inside `event` and `delta` in
//! any order, the trailing fields in any order) in one pass, without
//! serde's per-key machinery. Anything else — whitespace, an unknown or
//! repeated key, an unusual number, an invalid escape — makes it give up
//! and the general decoder takes the line. So it is never *wrong*: where it
//! answers, the answer equals the general decoder's (checked by tests and
//! by the `decode` fuzz target).

use super::stream::{Delta, StreamEvent, StreamEventMessage};
use serde_json::Map;
use std::borrow::Cow;

/// Decode `line` if it is a plain content-block-delta `stream_event`.
pub(crate) fn stream_delta(line: &str) -> Option<StreamEventMessage> {
    let mut p = Parser {
        b: line.as_bytes(),
        s: line,
        i: 0,
    };
    p.lit(br#"{"type":"stream_event","event":{"#)?;
    let (index, delta) = p.event()?;
    let mut fields: [Option<Option<String>>; 4] = [None, None, None, None];
    while p.peek()? == b',' {
        p.i += 1;
        let slot = p.one_of(&[
            br#""session_id":"#,
            br#""parent_tool_use_id":"#,
            br#""uuid":"#,
            br#""api_message_id":"#,
        ])?;
        if fields[slot].is_some() {
            return None; // a repeated key: the general path decides
        }
        fields[slot] = Some(p.string_or_null()?);
    }
    p.lit(b"}")?;
    if p.i != p.b.len() {
        return None;
    }
    let [session_id, parent_tool_use_id, uuid, api_message_id] = fields.map(Option::flatten);
    Some(StreamEventMessage {
        event: StreamEvent::ContentBlockDelta { index, delta },
        parent_tool_use_id,
        session_id,
        uuid,
        api_message_id,
        extra: Map::new(),
    })
}

struct Parser<'a> {
    b: &'a [u8],
    /// The same bytes, known to be UTF-8.
    s: &'a str,
    i: usize,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn lit(&mut self, l: &[u8]) -> Option<()> {
        if self.b[self.i..].starts_with(l) {
            self.i += l.len();
            Some(())
        } else {
            None
        }
    }

    /// Which of `lits` comes next (consumed).
    fn one_of(&mut self, lits: &[&[u8]]) -> Option<usize> {
        let at = &self.b[self.i..];
        let n = lits.iter().position(|l| at.starts_with(l))?;
        self.i += lits[n].len();
        Some(n)
    }

    /// The body of `event` after its `{`: `type`, `index` and `delta`, each
    /// once, in any order.
    fn event(&mut self) -> Option<(usize, Delta)> {
        let (mut kind, mut index, mut delta) = (false, None, None);
        loop {
            let key = self.one_of(&[
                br#""type":"content_block_delta""#,
                br#""index":"#,
                br#""delta":{"#,
            ])?;
            match key {
                0 if !kind => kind = true,
                1 if index.is_none() => index = Some(self.index()?),
                2 if delta.is_none() => delta = Some(self.delta()?),
                _ => return None,
            }
            if !self.next_member()? {
                break;
            }
        }
        if !kind {
            return None;
        }
        Some((index?, delta?))
    }

    /// The body of `delta` after its `{`: `type` and its one text field.
    fn delta(&mut self) -> Option<Delta> {
        const KINDS: [&[u8]; 4] = [
            br#""type":"text_delta""#,
            br#""type":"thinking_delta""#,
            br#""type":"input_json_delta""#,
            br#""type":"signature_delta""#,
        ];
        const FIELDS: [&[u8]; 4] = [
            br#""text":"#,
            br#""thinking":"#,
            br#""partial_json":"#,
            br#""signature":"#,
        ];
        let (mut kind, mut text): (Option<usize>, Option<(usize, String)>) = (None, None);
        loop {
            if kind.is_none() {
                if let Some(k) = self.one_of(&KINDS) {
                    kind = Some(k);
                    if !self.next_member()? {
                        break;
                    }
                    continue;
                }
            }
            if text.is_some() {
                return None;
            }
            let f = self.one_of(&FIELDS)?;
            text = Some((f, self.string()?.into_owned()));
            if !self.next_member()? {
                break;
            }
        }
        let (field, text) = text?;
        if kind? != field {
            return None;
        }
        Some([
            Delta::Text,
            Delta::Thinking,
            Delta::InputJson,
            Delta::Signature,
        ][field](text))
    }

    /// After a member: `,` (true: another follows) or `}` (false: the end).
    fn next_member(&mut self) -> Option<bool> {
        let more = match self.peek()? {
            b',' => true,
            b'}' => false,
            _ => return None,
        };
        self.i += 1;
        Some(more)
    }

    /// A non-negative integer as JSON writes it (no sign, no leading zero,
    /// no fraction or exponent), small enough for any `usize`.
    fn index(&mut self) -> Option<usize> {
        let start = self.i;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.i += 1;
        }
        let digits = &self.s[start..self.i];
        if digits.is_empty() || digits.len() > 9 || (digits.len() > 1 && digits.starts_with('0')) {
            return None;
        }
        digits.parse().ok()
    }

    fn string_or_null(&mut self) -> Option<Option<String>> {
        if self.lit(b"null").is_some() {
            return Some(None);
        }
        Some(Some(self.string()?.into_owned()))
    }

    /// A JSON string, unescaped.
    fn string(&mut self) -> Option<Cow<'a, str>> {
        self.lit(b"\"")?;
        let start = self.i;
        let end = start + special(&self.b[start..])?;
        if self.b[end] == b'"' {
            self.i = end + 1;
            return Some(Cow::Borrowed(&self.s[start..end]));
        }
        let mut out = String::with_capacity(end - start + 16);
        out.push_str(&self.s[start..end]);
        self.i = end;
        loop {
            match self.b[self.i] {
                b'"' => {
                    self.i += 1;
                    return Some(Cow::Owned(out));
                }
                b'\\' => {
                    let e = *self.b.get(self.i + 1)?;
                    self.i += 2;
                    match e {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => out.push(self.unicode_escape()?),
                        _ => return None,
                    }
                }
                // A raw control character: not allowed in a JSON string.
                _ => return None,
            }
            let run = special(&self.b[self.i..])?;
            out.push_str(&self.s[self.i..self.i + run]);
            self.i += run;
        }
    }

    /// After `\u`: four hex digits, and a surrogate pair's second half.
    fn unicode_escape(&mut self) -> Option<char> {
        let first = self.hex4()?;
        match first {
            0xD800..=0xDBFF => {
                self.lit(b"\\u")?;
                let second = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&second) {
                    return None;
                }
                let c = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00);
                char::from_u32(c)
            }
            0xDC00..=0xDFFF => None,
            c => char::from_u32(c),
        }
    }

    fn hex4(&mut self) -> Option<u32> {
        let h = self.s.get(self.i..self.i + 4)?;
        if !h.bytes().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        self.i += 4;
        u32::from_str_radix(h, 16).ok()
    }
}

/// Where the first `"`, `\\` or control character is (eight bytes at a time).
fn special(b: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::MAX / 255;
    const HIGH: u64 = ONES << 7;
    let mut i = 0;
    while i + 8 <= b.len() {
        let mut w = [0u8; 8];
        w.copy_from_slice(&b[i..i + 8]);
        let x = u64::from_le_bytes(w);
        // The lowest flagged byte of each test is a true hit (a borrow can
        // only flag bytes above one), so the lowest flag overall is the
        // first special byte.
        let ctrl = x.wrapping_sub(ONES * 0x20) & !x;
        let q = x ^ (ONES * b'"' as u64);
        let quote = q.wrapping_sub(ONES) & !q;
        let s = x ^ (ONES * b'\\' as u64);
        let slash = s.wrapping_sub(ONES) & !s;
        let hit = (ctrl | quote | slash) & HIGH;
        if hit != 0 {
            return Some(i + (hit.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    b[i..]
        .iter()
        .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
        .map(|p| i + p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    /// The fast path must either decline or agree with the general decoder.
    fn agree(line: &str) -> Option<StreamEventMessage> {
        let fast = stream_delta(line);
        if let Some(m) = &fast {
            match Message::parse_general(line) {
                Ok(Message::StreamEvent(g)) => assert_eq!(&*g, m, "{line}"),
                other => panic!("fast path took {line}, general gave {other:?}"),
            }
        }
        fast
    }

    fn line(event_inner: &str, tail: &str) -> String {
        format!(r#"{{"type":"stream_event","event":{{{event_inner}}}{tail}}}"#)
    }

    const TAIL: &str =
        r#","session_id":"s-1","parent_tool_use_id":null,"uuid":"u-1","api_message_id":"msg_1""#;

    #[test]
    fn the_common_shapes_take_the_fast_path() {
        let shapes = [
            r#""type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}"#,
            r#""delta":{"text":"Hi","type":"text_delta"},"index":0,"type":"content_block_delta""#,
            r#""type":"content_block_delta","index":3,"delta":{"type":"thinking_delta","thinking":"hm"}"#,
            r#""type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}"#,
            r#""type":"content_block_delta","index":12,"delta":{"type":"signature_delta","signature":"c2ln"}"#,
        ];
        for inner in shapes {
            for tail in [TAIL, "", r#","parent_tool_use_id":"toolu_1","uuid":"u""#] {
                let l = line(inner, tail);
                assert!(agree(&l).is_some(), "declined {l}");
            }
        }
        let m = agree(&line(shapes[0], TAIL)).unwrap();
        assert_eq!(m.text_delta(), Some("Hi"));
        assert_eq!(m.session_id.as_deref(), Some("s-1"));
        assert_eq!(m.parent_tool_use_id, None);
        assert_eq!(m.uuid.as_deref(), Some("u-1"));
        assert_eq!(m.api_message_id.as_deref(), Some("msg_1"));
        let m = agree(&line(shapes[3], "")).unwrap();
        assert_eq!(
            m.event,
            StreamEvent::ContentBlockDelta {
                index: 1,
                delta: Delta::InputJson("{\"a\":".into())
            }
        );
    }

    #[test]
    fn escapes_decode_like_serde() {
        let texts = [
            r#"a\nb"#,
            r#"\"quoted\" \\ back\/slash"#,
            r#"\b\f\r\t"#,
            r#"caf\u00e9 \u65E5"#,
            r#"\ud83d\ude00 smile"#,
            r#"\u0000 nul"#,
            r#"plain ünïcödé 日本語 ✓"#,
            r#"ends with escape\n"#,
            r#"\n"#,
            "",
        ];
        for t in texts {
            let l = line(
                &format!(
                    r#""type":"content_block_delta","index":0,"delta":{{"type":"text_delta","text":"{t}"}}"#
                ),
                TAIL,
            );
            assert!(agree(&l).is_some(), "declined {l}");
        }
    }

    #[test]
    fn anything_unusual_falls_back() {
        let delta =
            r#""type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}"#;
        let declined = [
            // lone or broken surrogates, bad escapes, raw control characters
            line(&delta.replace("\"x\"", r#""\ud800""#), TAIL),
            line(&delta.replace("\"x\"", r#""\udc00x""#), TAIL),
            line(&delta.replace("\"x\"", r#""\ud800\u0041""#), TAIL),
            line(&delta.replace("\"x\"", r#""\x""#), TAIL),
            line(&delta.replace("\"x\"", r#""\u12""#), TAIL),
            line(&delta.replace("\"x\"", "\"a\tb\""), TAIL),
            line(&delta.replace("\"x\"", "\"a\\n\u{1}\""), TAIL),
            // numbers JSON spells otherwise, or too big for the fast path
            line(&delta.replace(":0,", ":01,"), TAIL),
            line(&delta.replace(":0,", ":-1,"), TAIL),
            line(&delta.replace(":0,", ":1.0,"), TAIL),
            line(&delta.replace(":0,", ":1e2,"), TAIL),
            line(&delta.replace(":0,", ":12345678901,"), TAIL),
            // unknown, repeated or missing keys; other kinds; whitespace
            line(&delta.replace("\"index\"", "\"idx\""), TAIL),
            line(&format!("{delta},\"index\":1"), TAIL),
            line(&delta.replace(",\"index\":0", ""), TAIL),
            line(&delta.replace("text_delta", "citations_delta"), TAIL),
            line(&delta.replace("text_delta", "thinking_delta"), TAIL),
            line(&delta.replace("}", ",\"lang\":\"en\"}"), TAIL),
            line(
                &delta.replace("content_block_delta", "content_block_stop"),
                TAIL,
            ),
            line(delta, r#","session_id":"a","session_id":"b""#),
            line(delta, r#","ttft_ms":17"#),
            line(delta, r#","uuid":7"#),
            line(&delta.replace(":0,", ": 0,"), TAIL),
            format!("{} ", line(delta, TAIL)),
            line(delta, TAIL).replace("\"stream_event\"", "\"stream_event\" "),
            // not even JSON
            line(delta, TAIL)[..40].to_owned(),
        ];
        for l in declined {
            assert!(agree(&l).is_none(), "took {l}");
            // and the general path still answers (or rejects) as before
            let _ = Message::parse_str(&l);
        }
    }

    #[test]
    fn special_finds_the_first_quote_backslash_or_control() {
        let naive = |b: &[u8]| b.iter().position(|&c| c == b'"' || c == b'\\' || c < 0x20);
        for len in 0..40 {
            for at in 0..len {
                for hit in [b'"', b'\\', 0u8, 0x1f, b'\n'] {
                    for filler in [b'a', 0x7f, 0xc3, b'!', b'#', b'[', b'\x20'] {
                        let mut b = vec![filler; len];
                        b[at] = hit;
                        // more specials further on must not confuse it
                        if at + 3 < len {
                            b[at + 3] = b'"';
                        }
                        assert_eq!(special(&b), naive(&b), "{b:?}");
                    }
                }
            }
            let clean = vec![b'z'; len];
            assert_eq!(special(&clean), None);
        }
    }
}
