//! Raw Messages API stream events, as carried by `stream_event` lines.

use super::content::{has_extra, ContentBlock, HasExtra};
use serde::de::{self, DeserializeOwned, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::fmt;

/// One server-sent event of the Messages API stream.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum StreamEvent {
    /// `message_start`: the message's id, model and initial usage.
    MessageStart {
        /// The API message as it starts (`id`, `model`, `usage`, ...).
        message: Value,
    },
    /// `content_block_start`: a new block begins at `index`.
    ContentBlockStart {
        /// The block's position in the message.
        index: usize,
        /// The block as it starts (text empty, tool input empty).
        content_block: ContentBlock,
    },
    /// `content_block_delta`: more of the block at `index`.
    ContentBlockDelta {
        /// The block's position in the message.
        index: usize,
        /// The new piece.
        delta: Delta,
    },
    /// `content_block_stop`: the block at `index` is complete.
    ContentBlockStop {
        /// The block's position in the message.
        index: usize,
    },
    /// `message_delta`: top-level changes (`stop_reason`) and usage.
    MessageDelta {
        /// `{"stop_reason":...,"stop_sequence":...}`
        delta: Value,
        /// Cumulative usage.
        usage: Option<Value>,
    },
    /// `message_stop`: the message is complete.
    MessageStop,
    /// `ping`.
    Ping,
    /// Any other event, as sent.
    Other(Value),
}

/// A piece of a content block.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Delta {
    /// More answer text.
    Text(String),
    /// More reasoning text.
    Thinking(String),
    /// More of a tool call's input, as a fragment of JSON text.
    InputJson(String),
    /// The reasoning's signature.
    Signature(String),
    /// Any other delta, as sent.
    Other(Value),
}

impl StreamEvent {
    /// The event's `type` as it appears on the wire.
    pub fn kind(&self) -> &str {
        match self {
            StreamEvent::MessageStart { .. } => "message_start",
            StreamEvent::ContentBlockStart { .. } => "content_block_start",
            StreamEvent::ContentBlockDelta { .. } => "content_block_delta",
            StreamEvent::ContentBlockStop { .. } => "content_block_stop",
            StreamEvent::MessageDelta { .. } => "message_delta",
            StreamEvent::MessageStop => "message_stop",
            StreamEvent::Ping => "ping",
            StreamEvent::Other(v) => v.get("type").and_then(Value::as_str).unwrap_or(""),
        }
    }

    /// The event as [`Options::lean_stream_events`](crate::Options::lean_stream_events)
    /// gives it: a `message_start`'s `message` (an object) keeps its `id`
    /// alone, a `message_delta`'s `delta` is null and its `usage` `None`;
    /// every other event is as it was.
    pub(crate) fn lean(&mut self) {
        match self {
            StreamEvent::MessageStart {
                message: Value::Object(m),
            } => {
                let id = m.remove("id");
                m.clear();
                if let Some(id) = id {
                    m.insert("id".to_owned(), id);
                }
            }
            StreamEvent::MessageDelta { delta, usage } => {
                *delta = Value::Null;
                *usage = None;
            }
            _ => {}
        }
    }

    /// Decode an event; never fails (unknown or odd events become `Other`).
    pub fn from_value(value: Value) -> Self {
        // Checked by reference, then taken apart: the fields it keeps as
        // JSON (`message`, `content_block`, `delta`, `usage`) are moved out,
        // not copied.
        let Value::Object(mut m) = value else {
            return StreamEvent::Other(value);
        };
        let index = m.get("index").and_then(Value::as_u64).map(|i| i as usize);
        let has = |m: &Map<String, Value>, k: &str| m.contains_key(k);
        let kind = match m.get("type").and_then(Value::as_str) {
            Some("message_start") => 0,
            Some("content_block_start") if index.is_some() && has(&m, "content_block") => 1,
            Some("content_block_delta") if index.is_some() && has(&m, "delta") => 2,
            Some("content_block_stop") if index.is_some() => 3,
            Some("message_delta") => 4,
            Some("message_stop") => 5,
            Some("ping") => 6,
            _ => return StreamEvent::Other(Value::Object(m)),
        };
        let index = index.unwrap_or_default();
        let mut take = |k: &str| m.remove(k).unwrap_or(Value::Null);
        match kind {
            0 => StreamEvent::MessageStart {
                message: take("message"),
            },
            1 => StreamEvent::ContentBlockStart {
                index,
                content_block: ContentBlock::from_value(take("content_block")),
            },
            2 => StreamEvent::ContentBlockDelta {
                index,
                delta: Delta::from_value(&take("delta")),
            },
            3 => StreamEvent::ContentBlockStop { index },
            4 => StreamEvent::MessageDelta {
                delta: take("delta"),
                usage: m.remove("usage"),
            },
            5 => StreamEvent::MessageStop,
            _ => StreamEvent::Ping,
        }
    }

    /// Encode the event as JSON.
    pub fn to_value(&self) -> Value {
        use serde_json::json;
        match self {
            StreamEvent::MessageStart { message } => {
                json!({"type":"message_start","message":message})
            }
            StreamEvent::ContentBlockStart {
                index,
                content_block,
            } => json!({"type":"content_block_start","index":index,"content_block":content_block}),
            StreamEvent::ContentBlockDelta { index, delta } => {
                json!({"type":"content_block_delta","index":index,"delta":delta.to_value()})
            }
            StreamEvent::ContentBlockStop { index } => {
                json!({"type":"content_block_stop","index":index})
            }
            StreamEvent::MessageDelta { delta, usage } => {
                let mut v = json!({"type":"message_delta","delta":delta});
                if let Some(u) = usage {
                    v["usage"] = u.clone();
                }
                v
            }
            StreamEvent::MessageStop => json!({"type":"message_stop"}),
            StreamEvent::Ping => json!({"type":"ping"}),
            StreamEvent::Other(v) => v.clone(),
        }
    }
}

impl Delta {
    /// The delta `v` is: typed only when it is an object of exactly a
    /// known `type` and that type's text field, a string (what the typed
    /// kinds hold); anything more or else is kept as sent, so that no field
    /// is dropped. [`DeltaVisitor`] reads the same from the text.
    fn from_value(v: &Value) -> Self {
        let typed = || {
            let m = v.as_object().filter(|m| m.len() == 2)?;
            let (field, make): (&str, fn(String) -> Delta) = match m.get("type")?.as_str()? {
                "text_delta" => ("text", Delta::Text),
                "thinking_delta" => ("thinking", Delta::Thinking),
                "input_json_delta" => ("partial_json", Delta::InputJson),
                "signature_delta" => ("signature", Delta::Signature),
                _ => return None,
            };
            Some(make(m.get(field)?.as_str()?.to_owned()))
        };
        typed().unwrap_or_else(|| Delta::Other(v.clone()))
    }

    /// The text of a delta of type `kind` (`text_delta`, `thinking_delta`),
    /// its text in `field`: the typed one's, or one kept whole as
    /// [`Delta::Other`] (a field more than the library knows) whose `type`
    /// is `kind` and whose `field` is a string.
    fn text_of(&self, kind: &str, field: &str) -> Option<&str> {
        match (self, kind) {
            (Delta::Text(t), "text_delta") | (Delta::Thinking(t), "thinking_delta") => Some(t),
            (Delta::Other(v), _) if v.get("type").and_then(Value::as_str) == Some(kind) => {
                v.get(field)?.as_str()
            }
            _ => None,
        }
    }

    /// [`Delta::to_value`], the value moved out: how the general decoder
    /// keeps an event's `delta` that it does not type (a `message_delta`'s
    /// among them), read through [`Delta`]'s own rules first.
    pub(crate) fn into_value(self) -> Value {
        match self {
            Delta::Other(v) => v,
            d => d.to_value(),
        }
    }

    fn to_value(&self) -> Value {
        use serde_json::json;
        match self {
            Delta::Text(t) => json!({"type":"text_delta","text":t}),
            Delta::Thinking(t) => json!({"type":"thinking_delta","thinking":t}),
            Delta::InputJson(t) => json!({"type":"input_json_delta","partial_json":t}),
            Delta::Signature(t) => json!({"type":"signature_delta","signature":t}),
            Delta::Other(v) => v.clone(),
        }
    }
}

// Stream events are most of what the CLI writes: they are decoded field by
// field, without an intermediate `Value` and without serde's buffering.
// What they read is what [`StreamEvent::from_value`] reads from the
// event's `Value`: a key given twice is its last value, a `type` that is
// not a string makes the event `Other` (and the delta `Delta::Other`),
// an event that is not an object is `Other`.
impl<'de> Deserialize<'de> for StreamEvent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(EventVisitor)
    }
}

/// A value that is not an object: kept as sent.
macro_rules! scalar {
    ($out:ty, $wrap:expr; $($name:ident: $t:ty => $make:expr),* $(,)?) => {
        $(fn $name<E: de::Error>(self, v: $t) -> Result<$out, E> {
            Ok($wrap($make(v)))
        })*
        fn visit_unit<E: de::Error>(self) -> Result<$out, E> {
            Ok($wrap(Value::Null))
        }
        fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<$out, A::Error> {
            Value::deserialize(de::value::SeqAccessDeserializer::new(seq)).map($wrap)
        }
    };
}

/// A `type`: a string, borrowed when it has no escapes, or any other
/// value, kept as sent.
enum Tag<'de> {
    Str(Cow<'de, str>),
    Other(Value),
}

impl<'de> Tag<'de> {
    fn as_str(&self) -> Option<&str> {
        match self {
            Tag::Str(s) => Some(s),
            Tag::Other(_) => None,
        }
    }

    fn into_value(self) -> Value {
        match self {
            Tag::Str(s) => Value::String(s.into_owned()),
            Tag::Other(v) => v,
        }
    }
}

impl<'de> Deserialize<'de> for Tag<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Tag<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a type")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Tag<'de>, E> {
                Ok(Tag::Str(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Tag<'de>, E> {
                Ok(Tag::Str(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Tag<'de>, E> {
                Ok(Tag::Str(Cow::Owned(v)))
            }
            scalar! {
                Tag<'de>, Tag::Other;
                visit_bool: bool => Value::Bool,
                visit_i64: i64 => Value::from,
                visit_u64: u64 => Value::from,
                visit_f64: f64 => Value::from,
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Tag<'de>, A::Error> {
                Value::deserialize(de::value::MapAccessDeserializer::new(map)).map(Tag::Other)
            }
        }
        d.deserialize_any(V)
    }
}

struct EventVisitor;

impl<'de> Visitor<'de> for EventVisitor {
    type Value = StreamEvent;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an API stream event")
    }

    scalar! {
        StreamEvent, StreamEvent::Other;
        visit_bool: bool => Value::Bool,
        visit_i64: i64 => Value::from,
        visit_u64: u64 => Value::from,
        visit_f64: f64 => Value::from,
        visit_str: &str => Value::from,
        visit_string: String => Value::String,
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<StreamEvent, A::Error> {
        let mut kind: Option<Tag<'de>> = None;
        let mut index: Option<Value> = None;
        let mut delta: Option<Delta> = None;
        let mut rest = Map::new();
        // a key given twice: its last value, as serde_json's `Value` keeps it
        while let Some(key) = map.next_key::<Key>()? {
            match key.0.as_ref() {
                "type" => kind = Some(map.next_value()?),
                "index" => index = Some(map.next_value()?),
                // Before or after `type`: the CLI passes the API's key order
                // on, and that is not always `type` first.
                "delta" => delta = Some(map.next_value()?),
                _ => {
                    let v: Value = map.next_value()?;
                    rest.insert(key.0.into_owned(), v);
                }
            }
        }
        if kind.as_ref().and_then(Tag::as_str) == Some("content_block_delta") && rest.is_empty() {
            // the delta taken only once the index is known to be one: an
            // event without one is kept whole, its delta with it
            if let Some(i) = index.as_ref().and_then(Value::as_u64) {
                if let Some(d) = delta.take() {
                    return Ok(StreamEvent::ContentBlockDelta {
                        index: i as usize,
                        delta: d,
                    });
                }
            }
        }
        // Everything else: rebuild the object and take the general path.
        if let Some(k) = kind {
            rest.insert("type".into(), k.into_value());
        }
        if let Some(i) = index {
            rest.insert("index".into(), i);
        }
        if let Some(d) = delta {
            rest.insert("delta".into(), d.into_value());
        }
        Ok(StreamEvent::from_value(Value::Object(rest)))
    }
}

impl<'de> Deserialize<'de> for Delta {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(DeltaVisitor)
    }
}

struct DeltaVisitor;

impl<'de> Visitor<'de> for DeltaVisitor {
    type Value = Delta;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a content block delta")
    }

    scalar! {
        Delta, Delta::Other;
        visit_bool: bool => Value::Bool,
        visit_i64: i64 => Value::from,
        visit_u64: u64 => Value::from,
        visit_f64: f64 => Value::from,
        visit_str: &str => Value::from,
        visit_string: String => Value::String,
    }

    /// [`Delta::from_value`]'s reading, each key's last value: typed only
    /// for exactly a known `type` and its text field, a string.
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Delta, A::Error> {
        let mut kind: Option<Tag<'de>> = None;
        // the first text field named, its last value; any other in `rest`
        let mut text: Option<(&'static str, Value)> = None;
        let mut rest = Map::new();
        while let Some(key) = map.next_key::<Key>()? {
            let field = match key.0.as_ref() {
                "type" => {
                    kind = Some(map.next_value()?);
                    continue;
                }
                "text" => "text",
                "thinking" => "thinking",
                "partial_json" => "partial_json",
                "signature" => "signature",
                _ => {
                    let v: Value = map.next_value()?;
                    rest.insert(key.0.into_owned(), v);
                    continue;
                }
            };
            let v: Value = map.next_value()?;
            match &text {
                Some((first, _)) if *first != field => {
                    rest.insert(field.to_owned(), v);
                }
                _ => text = Some((field, v)),
            }
        }
        if rest.is_empty() {
            if let (Some(k), Some((field, Value::String(v)))) =
                (kind.as_ref().and_then(Tag::as_str), &mut text)
            {
                let typed: Option<fn(String) -> Delta> = match (k, *field) {
                    ("text_delta", "text") => Some(Delta::Text),
                    ("thinking_delta", "thinking") => Some(Delta::Thinking),
                    ("input_json_delta", "partial_json") => Some(Delta::InputJson),
                    ("signature_delta", "signature") => Some(Delta::Signature),
                    _ => None,
                };
                if let Some(make) = typed {
                    return Ok(make(std::mem::take(v)));
                }
            }
        }
        if let Some(k) = kind {
            rest.insert("type".into(), k.into_value());
        }
        if let Some((field, v)) = text {
            rest.insert(field.to_owned(), v);
        }
        Ok(Delta::Other(Value::Object(rest)))
    }
}

/// A map key, borrowed from the input when it has no escapes.
struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}

impl Serialize for StreamEvent {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(s)
    }
}

/// A `stream_event` line: one API stream event, while a message is generated
/// (only with `include_partial_messages`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StreamEventMessage {
    /// The API event.
    pub event: StreamEvent,
    /// Set when the event belongs to a sub-agent (the `Task` call's id).
    #[serde(default)]
    pub parent_tool_use_id: Option<String>,
    /// The session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The line's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    /// The API message the event belongs to (`msg_...`; the id of the
    /// `assistant` lines that follow).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_message_id: Option<String>,
    /// Fields claudio does not model, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
has_extra!(StreamEventMessage);

impl<'de> Deserialize<'de> for StreamEventMessage {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = StreamEventMessage;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a stream_event line")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut event = None;
                let mut parent_tool_use_id = None;
                let mut session_id = None;
                let mut uuid = None;
                let mut api_message_id = None;
                let mut extra = Map::new();
                // a `type` given twice: the last one is the line's, as
                // serde_json's value reads a repeated key
                let mut other_type = false;
                while let Some(key) = map.next_key::<Key>()? {
                    match key.0.as_ref() {
                        "event" => event = Some(map.next_value::<StreamEvent>()?),
                        "parent_tool_use_id" => parent_tool_use_id = map.next_value()?,
                        "session_id" => session_id = map.next_value()?,
                        "uuid" => uuid = map.next_value()?,
                        "api_message_id" => api_message_id = map.next_value()?,
                        "type" => other_type = map.next_value::<Key>()?.0 != "stream_event",
                        _ => {
                            let v: Value = map.next_value()?;
                            extra.insert(key.0.into_owned(), v);
                        }
                    }
                }
                if other_type {
                    return Err(de::Error::custom("not a stream_event line"));
                }
                Ok(StreamEventMessage {
                    event: event.ok_or_else(|| de::Error::missing_field("event"))?,
                    parent_tool_use_id,
                    session_id,
                    uuid,
                    api_message_id,
                    extra,
                })
            }
        }
        d.deserialize_map(V)
    }
}

impl StreamEventMessage {
    /// The text of a `text_delta`, if this is one.
    ///
    /// ```
    /// use claudio::Message;
    /// use serde_json::json;
    /// let line = json!({"type": "stream_event", "session_id": "s1",
    ///                   "event": {"type": "content_block_delta", "index": 0,
    ///                             "delta": {"type": "text_delta", "text": "Hel"}}});
    /// let msg = Message::parse_str(&line.to_string())?;
    /// let event = msg.as_stream_event().expect("a stream event");
    /// assert_eq!(event.text_delta(), Some("Hel"));
    /// assert_eq!(event.thinking_delta(), None);
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    ///
    /// The [crate's example](crate) prints them as they come.
    ///
    /// A `text_delta` that carries a field this library does not know (its
    /// [`Delta`] is then [`Delta::Other`], every field kept) still has its
    /// text: a field the API adds later does not make the answer's text
    /// disappear from the stream.
    ///
    /// ```
    /// use claudio::Message;
    /// let line = r#"{"type":"stream_event","session_id":"s1","event":{"type":"content_block_delta",
    ///     "index":0,"delta":{"type":"text_delta","text":"Hel","lang":"en"}}}"#;
    /// let msg = Message::parse_str(&line.replace('\n', ""))?;
    /// assert_eq!(msg.as_stream_event().and_then(|e| e.text_delta()), Some("Hel"));
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn text_delta(&self) -> Option<&str> {
        match &self.event {
            StreamEvent::ContentBlockDelta { delta, .. } => delta.text_of("text_delta", "text"),
            _ => None,
        }
    }

    /// The text of a `thinking_delta`, if this is one.
    ///
    /// See [`StreamEventMessage::text_delta`] for an example.
    ///
    /// As with [`text_delta`](StreamEventMessage::text_delta), a field this
    /// library does not know keeps the text readable.
    pub fn thinking_delta(&self) -> Option<&str> {
        match &self.event {
            StreamEvent::ContentBlockDelta { delta, .. } => {
                delta.text_of("thinking_delta", "thinking")
            }
            _ => None,
        }
    }
}

/// Decode `T` (which keeps unknown fields) as a line of type `kind`, and
/// drop the envelope's `type` tag. A line whose `type`, read as serde_json
/// reads a repeated key (its last value), is not `kind` is an error: the
/// caller read another `type` first.
pub(crate) fn decode_tagged<T: DeserializeOwned + HasExtra>(
    line: &str,
    kind: &str,
) -> Result<T, serde_json::Error> {
    let mut t: T = serde_json::from_str(line)?;
    untag(t.extra_mut(), "type", kind)?;
    Ok(t)
}

/// Remove the tag `key` from `extra`: an error when it is there with
/// another value than `want` (given twice, the last one another).
pub(crate) fn untag(
    extra: &mut Map<String, Value>,
    key: &str,
    want: &str,
) -> Result<(), serde_json::Error> {
    match extra.remove(key) {
        Some(Value::String(s)) if s != want => Err(serde::de::Error::custom(format!(
            "`{key}` given twice: {want:?}, then {s:?}"
        ))),
        Some(Value::String(_)) | None => Ok(()),
        Some(other) => Err(serde::de::Error::custom(format!(
            "`{key}` given twice: {want:?}, then {other}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `StreamEvent::from_value` as it was: every field it keeps copied
    /// out of the event (the reference for the one that moves them).
    fn from_value_copying(value: Value) -> StreamEvent {
        fn try_from_value(v: &Value) -> Option<StreamEvent> {
            let index = || v.get("index").and_then(Value::as_u64).map(|i| i as usize);
            Some(match v.get("type")?.as_str()? {
                "message_start" => StreamEvent::MessageStart {
                    message: v.get("message").cloned().unwrap_or(Value::Null),
                },
                "content_block_start" => StreamEvent::ContentBlockStart {
                    index: index()?,
                    content_block: ContentBlock::from_value(v.get("content_block")?.clone()),
                },
                "content_block_delta" => StreamEvent::ContentBlockDelta {
                    index: index()?,
                    delta: Delta::from_value(v.get("delta")?),
                },
                "content_block_stop" => StreamEvent::ContentBlockStop { index: index()? },
                "message_delta" => StreamEvent::MessageDelta {
                    delta: v.get("delta").cloned().unwrap_or(Value::Null),
                    usage: v.get("usage").cloned(),
                },
                "message_stop" => StreamEvent::MessageStop,
                "ping" => StreamEvent::Ping,
                _ => return None,
            })
        }
        try_from_value(&value).unwrap_or(StreamEvent::Other(value))
    }

    /// A JSON value of any shape, small.
    fn any_value() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            prop_oneof![Just(0u64), Just(3), Just(u64::MAX)].prop_map(Value::from),
            Just(json!(-1)),
            Just(json!(1.5)),
            "[a-z]{0,4}".prop_map(Value::String),
        ];
        leaf.prop_recursive(3, 16, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
                proptest::collection::btree_map("[a-z]{1,3}", inner, 0..3)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    /// An event: its `type` one of those known (or not), its fields
    /// present or not, of the right kind or not.
    fn any_event() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        use proptest::sample::select;
        let kind = prop_oneof![
            8 => select(&[
                "message_start", "content_block_start", "content_block_delta",
                "content_block_stop", "message_delta", "message_stop", "ping",
            ][..]).prop_map(Value::from),
            1 => select(&["other", "", "MESSAGE_STOP"][..]).prop_map(Value::from),
            1 => any_value(),
        ];
        let field = |v: BoxedStrategy<Value>| proptest::option::weighted(0.7, v);
        let index = prop_oneof![
            4 => select(&[0u64, 1, 12][..]).prop_map(Value::from),
            1 => any_value(),
        ]
        .boxed();
        let block = prop_oneof![
            3 => Just(json!({"type":"text","text":""})),
            1 => Just(json!({"type":"tool_use","id":"t","name":"Bash","input":{}})),
            1 => any_value(),
        ]
        .boxed();
        let delta = prop_oneof![
            3 => Just(json!({"type":"text_delta","text":"Hi"})),
            1 => Just(json!({"stop_reason":"end_turn","stop_sequence":null})),
            1 => any_value(),
        ]
        .boxed();
        (
            field(kind.boxed()),
            field(index),
            field(any_value().boxed()),
            field(block),
            field(delta),
            field(any_value().boxed()),
            proptest::option::weighted(0.2, any_value()),
            proptest::option::weighted(0.05, any_value()),
        )
            .prop_map(|(t, i, message, block, delta, usage, extra, whole)| {
                if let Some(w) = whole {
                    return w; // not an object, or any object at all
                }
                let mut m = Map::new();
                for (k, v) in [
                    ("type", t),
                    ("index", i),
                    ("message", message),
                    ("content_block", block),
                    ("delta", delta),
                    ("usage", usage),
                    ("extra", extra),
                ] {
                    if let Some(v) = v {
                        m.insert(k.to_owned(), v);
                    }
                }
                Value::Object(m)
            })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: 3000,
            failure_persistence: None,
            ..proptest::prelude::ProptestConfig::default()
        })]

        /// Moving the fields out reads every event as copying them did.
        #[test]
        fn an_event_taken_apart_reads_as_the_copying_decoder_read_it(v in any_event()) {
            proptest::prop_assert_eq!(StreamEvent::from_value(v.clone()), from_value_copying(v));
        }
    }

    #[test]
    fn deltas_decode() {
        let m: StreamEventMessage = serde_json::from_value(json!({
            "event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"He"}},
            "parent_tool_use_id":null,"session_id":"s"
        }))
        .unwrap();
        assert_eq!(m.text_delta(), Some("He"));
        let e = StreamEvent::from_value(
            json!({"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a"}}),
        );
        assert_eq!(
            e,
            StreamEvent::ContentBlockDelta {
                index: 1,
                delta: Delta::InputJson("{\"a".into())
            }
        );
    }

    #[test]
    fn the_real_clis_line_decodes_whole() {
        // As 2.1.328 writes it against an API that sorts its keys.
        let m = parse_line(
            r#"{"type":"stream_event","event":{"delta":{"text":"Hi! How ","type":"text_delta"},"index":0,"type":"content_block_delta"},"session_id":"434bbf0b","parent_tool_use_id":null,"uuid":"e5bb6b87","api_message_id":"msg_mock_000001"}"#,
        );
        assert_eq!(m.text_delta(), Some("Hi! How "));
        assert_eq!(m.api_message_id.as_deref(), Some("msg_mock_000001"));
        assert_eq!(m.uuid.as_deref(), Some("e5bb6b87"));
        assert!(m.extra.is_empty(), "{:?}", m.extra);
    }

    fn parse_line(line: &str) -> StreamEventMessage {
        decode_tagged(line, "stream_event").unwrap()
    }

    #[test]
    fn unknown_events_and_deltas_pass_through() {
        let v = json!({"type":"brand_new_event","x":1});
        assert_eq!(
            StreamEvent::from_value(v.clone()),
            StreamEvent::Other(v.clone())
        );
        assert_eq!(StreamEvent::from_value(v.clone()).to_value(), v);
        let v = json!({"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{}}});
        match StreamEvent::from_value(v.clone()) {
            StreamEvent::ContentBlockDelta {
                delta: Delta::Other(d),
                ..
            } => assert_eq!(d["type"], "citations_delta"),
            other => panic!("{other:?}"),
        }
        // missing index: not a shape claudio knows, kept whole
        let v = json!({"type":"content_block_stop"});
        assert_eq!(StreamEvent::from_value(v.clone()), StreamEvent::Other(v));
    }

    #[test]
    fn field_order_and_extra_fields_do_not_matter() {
        let parse = |t: &str| serde_json::from_str::<StreamEventMessage>(t).unwrap();
        let a = parse(
            r#"{"type":"stream_event","event":{"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"x"}},"session_id":"s","new":1}"#,
        );
        let b = parse(
            r#"{"new":1,"session_id":"s","event":{"delta":{"text":"x","type":"text_delta"},"index":2,"type":"content_block_delta"},"type":"stream_event"}"#,
        );
        assert_eq!(a, b);
        assert_eq!(a.text_delta(), Some("x"));
        assert_eq!(a.extra["new"], 1);
        // an unknown field inside a delta keeps the whole delta as sent
        let c = parse(
            r#"{"event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x","lang":"en"}}}"#,
        );
        match c.event {
            StreamEvent::ContentBlockDelta {
                delta: Delta::Other(v),
                ..
            } => {
                assert_eq!(v, json!({"type":"text_delta","text":"x","lang":"en"}))
            }
            other => panic!("{other:?}"),
        }
        // ... and its text is still the text (a field the API adds later)
        let c = parse(
            r#"{"event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x","lang":"en"}}}"#,
        );
        assert_eq!((c.text_delta(), c.thinking_delta()), (Some("x"), None));
        let c = parse(
            r#"{"event":{"type":"content_block_delta","index":0,"delta":{"signature":"s","thinking":"t","type":"thinking_delta"}}}"#,
        );
        assert_eq!((c.text_delta(), c.thinking_delta()), (None, Some("t")));
        // not its text: another type's field, or a text that is not a string
        for d in [
            r#"{"type":"thinking_delta","text":"x","more":1}"#,
            r#"{"type":"text_delta","text":1}"#,
            r#"{"type":"text_delta","thinking":"x","more":1}"#,
        ] {
            let c = parse(&format!(
                r#"{{"event":{{"type":"content_block_delta","index":0,"delta":{d}}}}}"#
            ));
            assert_eq!((c.text_delta(), c.thinking_delta()), (None, None), "{d}");
        }
        // ... whatever the key order (the real CLI sorts them when the API does)
        let c = parse(
            r#"{"event":{"delta":{"lang":"en","text":"x","type":"text_delta"},"index":0,"type":"content_block_delta"}}"#,
        );
        assert!(
            matches!(
                c.event,
                StreamEvent::ContentBlockDelta {
                    delta: Delta::Other(_),
                    ..
                }
            ),
            "{c:?}"
        );
        // a delta that is not an object is kept as sent
        for (delta, want) in [
            ("7", json!(7)),
            ("null", json!(null)),
            ("[1,\"a\"]", json!([1, "a"])),
        ] {
            let e = parse(&format!(
                r#"{{"event":{{"delta":{delta},"index":0,"type":"content_block_delta"}}}}"#
            ));
            assert_eq!(
                e.event,
                StreamEvent::ContentBlockDelta {
                    index: 0,
                    delta: Delta::Other(want)
                }
            );
        }
        // a non-string text is not a text delta
        let d = parse(
            r#"{"event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":5}}}"#,
        );
        assert!(matches!(
            d.event,
            StreamEvent::ContentBlockDelta {
                delta: Delta::Other(_),
                ..
            }
        ));
        // escaped keys still match
        let e = parse(r#"{"ev\u0065nt":{"type":"message_stop"}}"#);
        assert_eq!(e.event, StreamEvent::MessageStop);
        assert!(serde_json::from_str::<StreamEventMessage>(r#"{"session_id":"s"}"#).is_err());
    }

    /// The event read from its text, as the general decoder reads it, and
    /// as [`StreamEvent::from_value`] reads serde_json's `Value` of it.
    fn read_both(text: &str) -> (StreamEvent, StreamEvent) {
        let direct: StreamEvent = serde_json::from_str(text).expect(text);
        let v: Value = serde_json::from_str(text).expect(text);
        (direct, StreamEvent::from_value(v))
    }

    /// A `type` that is not a string, a key given twice, a text field of
    /// another kind or with a field more, an event that is not an object:
    /// the general decoder reads what `from_value` reads from the `Value`
    /// (each key's last value; `Other` for what it does not type), and
    /// the line is a `stream_event`, not `Message::Unknown`.
    #[test]
    fn the_decoder_reads_what_from_value_reads() {
        for event in [
            r#"{"type":1,"index":0,"delta":{"type":"text_delta","text":"a"}}"#,
            r#"{"type":null}"#,
            r#"{"type":["content_block_delta"],"index":0}"#,
            r#"{"type":{"a":1}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":1,"text":"a"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":null,"text":"a"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a","text":"b"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":1,"text":"b"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a","text":1}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"text":"a","type":"thinking_delta","type":"text_delta"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a","thinking":"b"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","thinking":"b","text":"a","thinking":"c"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a","x":1},"x":2}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"},"delta":{"type":"text_delta","text":"b"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"},"delta":7}"#,
            r#"{"type":"content_block_delta","index":1,"index":0,"delta":{"type":"text_delta","text":"a"}}"#,
            r#"{"type":"ping","type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}}"#,
            r#"{"type":"content_block_delta","type":1,"index":0,"delta":{"type":"text_delta","text":"a"}}"#,
            r#"{"type":"message_delta","delta":{"type":1,"stop_reason":"end_turn"}}"#,
            r#"{"type":"message_delta","delta":{"text":"a","text":"b"}}"#,
            r#"{"type":"message_delta","delta":{"stop_reason":"a"},"delta":{"stop_reason":"b"}}"#,
            r#"{"\u0074ype":"content_block_delta","index":0,"delta":{"\u0074ype":"text_delta","\u0074ext":"a"}}"#,
            r#"7"#,
            r#""message_stop""#,
            r#"null"#,
            r#"[{"type":"message_stop"}]"#,
            r#"true"#,
        ] {
            let (direct, from_value) = read_both(event);
            assert_eq!(direct, from_value, "{event}");
            let line = format!(r#"{{"type":"stream_event","event":{event},"session_id":"s"}}"#);
            match crate::protocol::Message::parse_general(&line) {
                Ok(crate::protocol::Message::StreamEvent(m)) => {
                    assert_eq!(m.event, from_value, "{line}")
                }
                other => panic!("{line}: {other:?}"),
            }
        }
        // the last of a text field given twice, as serde_json keeps it
        let (e, _) = read_both(
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a","text":"b"}}"#,
        );
        assert_eq!(
            e,
            StreamEvent::ContentBlockDelta {
                index: 0,
                delta: Delta::Text("b".into())
            }
        );
        // a `type` that is not a string: the event kept as sent
        let (e, _) = read_both(r#"{"type":1,"index":0}"#);
        assert_eq!(e, StreamEvent::Other(json!({"type":1,"index":0})));
        // a field more in a text delta: kept, not dropped (from the `Value`
        // too)
        let v = json!({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x","lang":"en"}});
        assert_eq!(
            StreamEvent::from_value(v),
            StreamEvent::ContentBlockDelta {
                index: 0,
                delta: Delta::Other(json!({"type":"text_delta","text":"x","lang":"en"}))
            }
        );
    }

    /// An event's text much like the API's: its members and its delta's
    /// from small pools, in any order, any given twice.
    fn event_text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        use proptest::sample::select;
        let value = select(
            &[
                "\"text_delta\"",
                "\"thinking_delta\"",
                "\"input_json_delta\"",
                "\"signature_delta\"",
                "\"other_delta\"",
                "\"a\"",
                "\"\"",
                "1",
                "-0",
                "1.5",
                "null",
                "true",
                "[]",
                "{}",
                "[\"text_delta\"]",
                "{\"a\":1}",
            ][..],
        );
        let delta_key = select(
            &[
                "type",
                "text",
                "thinking",
                "partial_json",
                "signature",
                "x",
                "\\u0074ype",
            ][..],
        );
        let delta = prop_oneof![
            6 => proptest::collection::vec((delta_key, value.clone()), 0..5).prop_map(|m| {
                let m: Vec<String> = m.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
                format!("{{{}}}", m.join(","))
            }),
            1 => value.clone().prop_map(str::to_owned),
        ];
        let kind = prop_oneof![
            6 => select(&[
                "\"content_block_delta\"", "\"message_delta\"", "\"content_block_stop\"",
                "\"message_start\"", "\"ping\"", "\"x\"",
            ][..]).prop_map(str::to_owned),
            1 => value.clone().prop_map(str::to_owned),
        ];
        let index = select(
            &[
                "0",
                "1",
                "-1",
                "1.0",
                "null",
                "\"0\"",
                "18446744073709551615",
            ][..],
        );
        let member = prop_oneof![
            3 => kind.prop_map(|k| format!("\"type\":{k}")),
            2 => index.prop_map(|i| format!("\"index\":{i}")),
            3 => delta.prop_map(|d| format!("\"delta\":{d}")),
            1 => value.prop_map(|v| format!("\"usage\":{v}")),
            1 => Just("\"x\":1".to_owned()),
        ];
        prop_oneof![
            12 => proptest::collection::vec(member, 0..6)
                .prop_map(|m| format!("{{{}}}", m.join(","))),
            1 => select(&["7", "null", "\"ping\"", "[]", "[{\"type\":\"ping\"}]"][..])
                .prop_map(str::to_owned),
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: 3000,
            failure_persistence: None,
            ..proptest::prelude::ProptestConfig::default()
        })]

        /// Any event's text: the general decoder reads what `from_value`
        /// reads from serde_json's `Value` of it.
        #[test]
        fn any_event_text_is_read_as_from_value_reads_its_value(text in event_text()) {
            let (direct, from_value) = read_both(&text);
            proptest::prop_assert_eq!(direct, from_value, "{}", text);
        }
    }

    #[test]
    fn events_round_trip() {
        for v in [
            json!({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}),
            json!({"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hm"}}),
            json!({"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}),
            json!({"type":"message_stop"}),
        ] {
            assert_eq!(StreamEvent::from_value(v.clone()).to_value(), v);
        }
    }
}
