//! Decoding the CLI's lines: the byte-level fast paths first
//! ([`super::fast`]), then the general decoder, whose line's `type` picks
//! its typed shape ([`super::message`]'s types).

use super::content::HasExtra;
use super::message::{Message, Routed};
use super::stream::decode_tagged;
use super::system::SystemMessage;
use serde::Deserialize;
use serde_json::Value;
use std::borrow::Cow;

impl Routed {
    /// Decode one line; fails only when it is not a JSON object.
    #[cfg(test)]
    pub(crate) fn parse(line: &[u8]) -> Result<Routed, serde_json::Error> {
        let line =
            crate::text::to_str(line).map_err(<serde_json::Error as serde::de::Error>::custom)?;
        Self::parse_str(line)
    }

    /// [`Routed::parse`] of a line already known to be UTF-8.
    #[cfg(test)]
    pub(crate) fn parse_str(line: &str) -> Result<Routed, serde_json::Error> {
        Self::parse_str_as(line, false)
    }

    /// [`Routed::parse_str`]; `lean`: a stream event as
    /// [`Options::lean_stream_events`](crate::Options::lean_stream_events)
    /// gives it ([`StreamEvent::lean`](super::StreamEvent::lean)), the
    /// values it leaves out never built where the fast path reads the
    /// line. Any line reads as [`Routed::parse_str`] reads it, made lean:
    /// the same message, the same error.
    pub(crate) fn parse_str_as(line: &str, lean: bool) -> Result<Routed, serde_json::Error> {
        if let Some(m) = super::fast::stream_delta_as(line, lean) {
            return Ok(Routed::Message(Message::StreamEvent(Box::new(m))));
        }
        if let Some(m) = super::fast::assistant(line) {
            return Ok(Routed::Message(Message::Assistant(Box::new(m))));
        }
        // a lone surrogate escape (a string cut inside an emoji) is U+FFFD
        let mut routed = super::or_mended(line, parse_line);
        if lean {
            if let Ok(Routed::Message(Message::StreamEvent(e))) = &mut routed {
                e.event.lean();
            }
        }
        routed
    }
}

#[derive(Deserialize)]
struct Peek<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    subtype: Option<Cow<'a, str>>,
}

/// `{"type":"X","subtype":"Y"` at the very start of a line, without escapes.
fn fast_peek(line: &[u8]) -> Option<Peek<'_>> {
    fn string_at(b: &[u8], prefix: &[u8]) -> Option<(usize, usize)> {
        let start = prefix.len();
        if !b.starts_with(prefix) {
            return None;
        }
        let len = memchr::memchr(b'"', &b[start..])?;
        let s = &b[start..start + len];
        (!s.contains(&b'\\')).then_some((start, start + len))
    }
    let (s, e) = string_at(line, br#"{"type":""#)?;
    let kind = std::str::from_utf8(&line[s..e]).ok()?;
    // `system` lines need their subtype; only take it when it comes next.
    let subtype = if kind == "system" {
        let rest = &line[e + 1..];
        let (s2, e2) = string_at(rest, br#","subtype":""#)?;
        Some(Cow::Borrowed(std::str::from_utf8(&rest[s2..e2]).ok()?))
    } else {
        None
    };
    Some(Peek {
        kind: Some(Cow::Borrowed(kind)),
        subtype,
    })
}

fn decode_boxed<T: serde::de::DeserializeOwned + HasExtra>(
    line: &str,
    kind: &str,
) -> Result<Box<T>, serde_json::Error> {
    decode_tagged(line, kind).map(Box::new)
}

/// The line as the typed shape its `type` (and a `system` line's
/// `subtype`) picks; `None` for a type that has none.
fn decode_typed(
    kind: &str,
    subtype: Option<&str>,
    line: &str,
) -> Option<Result<Routed, serde_json::Error>> {
    let msg = |m| Routed::Message(m);
    Some(match kind {
        "assistant" => decode_boxed(line, kind).map(|m| msg(Message::Assistant(m))),
        "user" => decode_boxed(line, kind).map(|m| msg(Message::User(m))),
        "stream_event" => decode_boxed(line, kind).map(|m| msg(Message::StreamEvent(m))),
        "result" => decode_boxed(line, kind).map(|m| msg(Message::Result(m))),
        "command_lifecycle" => decode_boxed(line, kind).map(|m| msg(Message::CommandLifecycle(m))),
        "tool_progress" => decode_boxed(line, kind).map(|m| msg(Message::ToolProgress(m))),
        "system" => SystemMessage::decode(subtype, line).map(|m| msg(Message::System(Box::new(m)))),
        "control_request" => decode_boxed(line, kind).map(Routed::Request),
        "control_response" => decode_boxed(line, kind).map(Routed::Response),
        "control_cancel_request" => decode_boxed(line, kind).map(Routed::Cancel),
        _ => return None,
    })
}

/// The general decoder: the line's `type` picks its typed shape.
fn parse_line(line: &str) -> Result<Routed, serde_json::Error> {
    // The CLI writes `type` first: read it without a first pass over
    // the line. Anything else takes the general path.
    let peek = match fast_peek(line.as_bytes()) {
        Some(p) => Ok(p),
        None => serde_json::from_str::<Peek>(line),
    };
    if let Ok(p) = &peek {
        let kind = p.kind.as_deref().unwrap_or("");
        match decode_typed(kind, p.subtype.as_deref(), line) {
            Some(Ok(m)) => return Ok(m),
            Some(Err(e)) => {
                tracing::debug!(kind, error = %e, "message does not fit its type; kept raw");
            }
            None => {}
        }
    }
    // Not typed: kept raw. A key given twice (which the peek refuses, or
    // a `type` after the first one peeked) is read as serde_json's value
    // reads it, its last value, whatever the keys' order: the shape that
    // `type` picks, if the line fits it.
    let v = match serde_json::from_str::<Value>(line) {
        Ok(v @ Value::Object(_)) => v,
        Ok(_) => return Err(peek.err().unwrap_or_else(not_an_object)),
        Err(e) => return Err(e),
    };
    let kind = v.get("type").and_then(Value::as_str);
    let subtype = v.get("subtype").and_then(Value::as_str);
    let peeked = peek.as_ref().ok().map(|p| {
        let sub = p
            .subtype
            .as_deref()
            .filter(|_| p.kind.as_deref() == Some("system"));
        (p.kind.as_deref(), sub)
    });
    let sub_of = |k: Option<&str>| subtype.filter(|_| k == Some("system"));
    if peeked != Some((kind, sub_of(kind))) {
        if let Some(Ok(m)) = kind.and_then(|k| decode_typed(k, sub_of(kind), line)) {
            return Ok(m);
        }
    }
    Ok(Routed::Message(Message::Unknown(v)))
}

/// The error for a line that is JSON but not an object.
fn not_an_object() -> serde_json::Error {
    <serde_json::Error as serde::de::Error>::custom("not a JSON object")
}

impl Message {
    /// Decode one line. Fails only when the line is not a JSON object. The
    /// control protocol's lines decode to [`Message::Unknown`] (a
    /// [`Client`](crate::Client) handles them and never shows them).
    ///
    /// ```
    /// use claudio::Message;
    /// let line = br#"{"type":"result","subtype":"success","is_error":false,"result":"ok"}"#;
    /// let msg = Message::parse(line)?;
    /// assert_eq!(msg.kind(), "result");
    /// assert_eq!(msg.as_result().and_then(|r| r.result.as_deref()), Some("ok"));
    /// // a type this crate does not know is kept, not an error
    /// let later = Message::parse(br#"{"type":"tool_use_summary","summary":"Ran ls"}"#)?;
    /// assert!(matches!(later, Message::Unknown(_)));
    /// assert!(Message::parse(b"not json").is_err());
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn parse(line: &[u8]) -> Result<Message, serde_json::Error> {
        // Validate UTF-8 once; serde_json then reads from a `&str` without
        // checking every string again.
        let line =
            crate::text::to_str(line).map_err(<serde_json::Error as serde::de::Error>::custom)?;
        Self::parse_str(line)
    }

    /// Decode one line of text. Fails only when it is not a JSON object.
    ///
    /// ```
    /// let line = r#"{"type":"system","subtype":"status","status":"requesting","session_id":"s1"}"#;
    /// let msg = claudio::Message::parse_str(line)?;
    /// assert_eq!((msg.kind(), msg.session_id()), ("system", Some("s1")));
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn parse_str(line: &str) -> Result<Message, serde_json::Error> {
        // Most lines of a streamed answer are text deltas: one pass, no serde.
        if let Some(m) = super::fast::stream_delta(line) {
            return Ok(Message::StreamEvent(Box::new(m)));
        }
        // and each message's `assistant` line: read at the byte level
        if let Some(m) = super::fast::assistant(line) {
            return Ok(Message::Assistant(Box::new(m)));
        }
        // a lone surrogate escape (`JSON.stringify` of a string cut inside
        // an emoji) is read as U+FFFD, not a reason to drop the line
        super::or_mended(line, Self::parse_general)
    }

    /// [`Message::parse_str`] without its fast path (for differential tests
    /// and fuzzing: both must agree).
    pub(crate) fn parse_general(line: &str) -> Result<Message, serde_json::Error> {
        Ok(match parse_line(line)? {
            Routed::Message(m) => m,
            // the client's own business: kept raw for anyone else
            Routed::Request(_) | Routed::Response(_) | Routed::Cancel(_) => {
                Message::Unknown(serde_json::from_str(line)?)
            }
        })
    }
}
