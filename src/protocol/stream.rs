//! Raw Messages API stream events, as carried by `stream_event` lines.

use super::content::{has_extra, ContentBlock, HasExtra};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

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

    /// Decode an event; never fails (unknown or odd events become `Other`).
    pub fn from_value(value: Value) -> Self {
        Self::try_from_value(&value).unwrap_or(StreamEvent::Other(value))
    }

    fn try_from_value(v: &Value) -> Option<Self> {
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
    fn from_value(v: &Value) -> Self {
        let field = |name: &str| v.get(name).and_then(Value::as_str).map(str::to_owned);
        let parsed = match v.get("type").and_then(Value::as_str) {
            Some("text_delta") => field("text").map(Delta::Text),
            Some("thinking_delta") => field("thinking").map(Delta::Thinking),
            Some("input_json_delta") => field("partial_json").map(Delta::InputJson),
            Some("signature_delta") => field("signature").map(Delta::Signature),
            _ => None,
        };
        parsed.unwrap_or_else(|| Delta::Other(v.clone()))
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

impl<'de> Deserialize<'de> for StreamEvent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(StreamEvent::from_value(Value::deserialize(d)?))
    }
}

impl Serialize for StreamEvent {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(s)
    }
}

/// A `stream_event` line: one API stream event, while a message is generated
/// (only with `include_partial_messages`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    /// Fields claudio does not model, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
has_extra!(StreamEventMessage);

impl StreamEventMessage {
    /// The text of a `text_delta`, if this is one.
    pub fn text_delta(&self) -> Option<&str> {
        match &self.event {
            StreamEvent::ContentBlockDelta {
                delta: Delta::Text(t),
                ..
            } => Some(t),
            _ => None,
        }
    }

    /// The text of a `thinking_delta`, if this is one.
    pub fn thinking_delta(&self) -> Option<&str> {
        match &self.event {
            StreamEvent::ContentBlockDelta {
                delta: Delta::Thinking(t),
                ..
            } => Some(t),
            _ => None,
        }
    }
}

/// Decode `T` (which keeps unknown fields) and drop the envelope's `type` tag.
pub(crate) fn decode_tagged<T: DeserializeOwned + HasExtra>(
    line: &[u8],
) -> Result<T, serde_json::Error> {
    let mut t: T = serde_json::from_slice(line)?;
    t.extra_mut().remove("type");
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
