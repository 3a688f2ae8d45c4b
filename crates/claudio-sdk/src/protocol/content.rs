//! Content blocks: the parts of an assistant or user message.

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};
use std::fmt;

/// One block of message content. Unknown block types are kept as
/// [`ContentBlock::Unknown`] with their raw JSON.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ContentBlock {
    /// Plain text.
    Text(TextBlock),
    /// The model's visible reasoning.
    Thinking(Box<ThinkingBlock>),
    /// Redacted reasoning (opaque data).
    RedactedThinking(Box<RedactedThinkingBlock>),
    /// A request to run a tool.
    ToolUse(Box<ToolUseBlock>),
    /// The result of a tool run.
    ToolResult(Box<ToolResultBlock>),
    /// An image (base64 or URL source).
    Image(Box<ImageBlock>),
    /// A block type this version of claudio does not know, as sent.
    Unknown(Value),
}

/// `{"type":"text","text":...}`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextBlock {
    /// The text.
    pub text: String,
    /// Fields claudio does not model, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `{"type":"thinking","thinking":...,"signature":...}`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThinkingBlock {
    /// The reasoning text.
    pub thinking: String,
    /// The API's signature over the reasoning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// Fields claudio does not model, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `{"type":"redacted_thinking","data":...}`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RedactedThinkingBlock {
    /// Opaque data.
    #[serde(default)]
    pub data: String,
    /// Fields claudio does not model, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `{"type":"tool_use","id":...,"name":...,"input":{...}}`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolUseBlock {
    /// The tool call's id (`toolu_...`).
    pub id: String,
    /// The tool's name (`Bash`, `Edit`, `mcp__server__tool`, ...).
    pub name: String,
    /// The tool's input.
    #[serde(default)]
    pub input: Value,
    /// Fields claudio does not model, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `{"type":"tool_result","tool_use_id":...,"content":...,"is_error":...}`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResultBlock {
    /// The id of the `tool_use` this answers.
    pub tool_use_id: String,
    /// The result: a string or a list of blocks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<MessageContent>,
    /// Whether the tool failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Fields claudio does not model, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ToolResultBlock {
    /// The result's text: the string, or the text blocks joined by newlines.
    pub fn text(&self) -> String {
        self.content
            .as_ref()
            .map(MessageContent::text)
            .unwrap_or_default()
    }

    /// Whether the tool reported an error.
    pub fn is_error(&self) -> bool {
        self.is_error.unwrap_or(false)
    }
}

/// `{"type":"image","source":{...}}`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImageBlock {
    /// Where the image comes from: its bytes (`base64`), a `url`, or a
    /// source this crate does not know (kept as sent).
    pub source: ImageSource,
    /// Fields claudio does not model, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Where an [`ImageBlock`] comes from, by its `type`. A `type` this crate
/// does not know, or a known one of another shape (a `data` that is not a
/// string), is kept whole as [`ImageSource::Other`] and encodes back to
/// the same JSON.
///
/// ```
/// use claudio::protocol::ImageSource;
/// use serde_json::json;
/// let s: ImageSource = serde_json::from_value(json!(
///     {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}
/// )).unwrap();
/// assert_eq!(s.media_type(), Some("image/png"));
/// assert_eq!(s.data(), Some("iVBORw0KGgo="));
/// let later = json!({"type": "file", "file_id": "file_01"});
/// let s: ImageSource = serde_json::from_value(later.clone()).unwrap();
/// assert!(matches!(s, ImageSource::Other(_)));
/// assert_eq!(serde_json::to_value(&s).unwrap(), later);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ImageSource {
    /// `{"type":"base64","media_type":...,"data":...}`: the image's bytes
    /// (made with [`ImageSource::base64`]).
    #[non_exhaustive]
    Base64 {
        /// `image/png`, `image/jpeg`, `image/gif` or `image/webp`.
        media_type: String,
        /// The bytes, base64-encoded.
        data: String,
        /// Fields claudio does not model, kept as sent.
        extra: Map<String, Value>,
    },
    /// `{"type":"url","url":...}`: an image the API fetches (made with
    /// [`ImageSource::url`]).
    #[non_exhaustive]
    Url {
        /// The image's address.
        url: String,
        /// Fields claudio does not model, kept as sent.
        extra: Map<String, Value>,
    },
    /// Any other source, as sent (with its `type`).
    Other(Value),
}

impl ImageSource {
    /// A base64 source.
    pub fn base64(media_type: impl Into<String>, data: impl Into<String>) -> Self {
        ImageSource::Base64 {
            media_type: media_type.into(),
            data: data.into(),
            extra: Map::new(),
        }
    }

    /// A URL source.
    pub fn url(url: impl Into<String>) -> Self {
        ImageSource::Url {
            url: url.into(),
            extra: Map::new(),
        }
    }

    /// The source's `type` (`base64`, `url`, or as sent; `""` for none).
    pub fn kind(&self) -> &str {
        match self {
            ImageSource::Base64 { .. } => "base64",
            ImageSource::Url { .. } => "url",
            ImageSource::Other(v) => v.get("type").and_then(Value::as_str).unwrap_or(""),
        }
    }

    /// The media type of a base64 source.
    pub fn media_type(&self) -> Option<&str> {
        match self {
            ImageSource::Base64 { media_type, .. } => Some(media_type),
            _ => None,
        }
    }

    /// The base64 data of a base64 source.
    pub fn data(&self) -> Option<&str> {
        match self {
            ImageSource::Base64 { data, .. } => Some(data),
            _ => None,
        }
    }

    /// The source as JSON, as it goes on the wire.
    pub fn to_value(&self) -> Value {
        let (kind, mut map) = match self {
            ImageSource::Other(v) => return v.clone(),
            ImageSource::Base64 {
                media_type,
                data,
                extra,
            } => {
                let mut m = extra.clone();
                m.insert("media_type".into(), Value::String(media_type.clone()));
                m.insert("data".into(), Value::String(data.clone()));
                ("base64", m)
            }
            ImageSource::Url { url, extra } => {
                let mut m = extra.clone();
                m.insert("url".into(), Value::String(url.clone()));
                ("url", m)
            }
        };
        map.insert("type".into(), Value::String(kind.into()));
        Value::Object(map)
    }

    /// Decode a source. Never fails: what does not fit a known type's
    /// shape is kept as [`ImageSource::Other`].
    pub fn from_value(value: Value) -> Self {
        let Value::Object(mut map) = value else {
            return ImageSource::Other(value);
        };
        let string = |m: &Map<String, Value>, k: &str| m.get(k).is_some_and(Value::is_string);
        let take = |m: &mut Map<String, Value>, k: &str| match m.remove(k) {
            Some(Value::String(s)) => s,
            _ => String::new(),
        };
        match map.get("type").and_then(Value::as_str) {
            Some("base64") if string(&map, "media_type") && string(&map, "data") => {
                map.remove("type");
                let media_type = take(&mut map, "media_type");
                let data = take(&mut map, "data");
                ImageSource::Base64 {
                    media_type,
                    data,
                    extra: map,
                }
            }
            Some("url") if string(&map, "url") => {
                map.remove("type");
                let url = take(&mut map, "url");
                ImageSource::Url { url, extra: map }
            }
            _ => ImageSource::Other(Value::Object(map)),
        }
    }
}

impl Serialize for ImageSource {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(s)
    }
}

impl<'de> Deserialize<'de> for ImageSource {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(ImageSource::from_value(Value::deserialize(d)?))
    }
}

impl ContentBlock {
    /// A text block.
    ///
    /// ```
    /// use claudio::ContentBlock;
    /// let block = ContentBlock::text("Summarize this");
    /// assert_eq!(block.to_value(), serde_json::json!({"type": "text", "text": "Summarize this"}));
    /// ```
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text(TextBlock {
            text: text.into(),
            extra: Map::new(),
        })
    }

    /// A base64 image block.
    ///
    /// ```no_run
    /// # async fn demo(client: &claudio::Client) -> Result<(), Box<dyn std::error::Error>> {
    /// use claudio::ContentBlock;
    /// # fn base64(bytes: &[u8]) -> String { String::new() }
    /// let png = std::fs::read("chart.png")?;
    /// client
    ///     .send(vec![
    ///         ContentBlock::text("What does this chart show?"),
    ///         ContentBlock::image_base64("image/png", base64(&png)), // e.g. the `base64` crate
    ///     ])
    ///     .await?;
    /// # Ok(()) }
    /// ```
    pub fn image_base64(media_type: impl Into<String>, data: impl Into<String>) -> Self {
        ContentBlock::Image(Box::new(ImageBlock {
            source: ImageSource::base64(media_type, data),
            extra: Map::new(),
        }))
    }

    /// The block's `type` as it appears on the wire.
    pub fn kind(&self) -> &str {
        match self {
            ContentBlock::Text(_) => "text",
            ContentBlock::Thinking(_) => "thinking",
            ContentBlock::RedactedThinking(_) => "redacted_thinking",
            ContentBlock::ToolUse(_) => "tool_use",
            ContentBlock::ToolResult(_) => "tool_result",
            ContentBlock::Image(_) => "image",
            ContentBlock::Unknown(v) => v.get("type").and_then(Value::as_str).unwrap_or(""),
        }
    }

    /// Decode a block from JSON. Never fails: a block that does not fit its
    /// type's shape, or has an unknown type, becomes [`ContentBlock::Unknown`].
    pub fn from_value(value: Value) -> Self {
        let kind = value.get("type").and_then(Value::as_str).unwrap_or("");
        match kind {
            // The blocks that carry big payloads (answers, tool inputs, tool
            // results) are taken apart without copying their strings.
            "text" | "thinking" | "tool_use" | "tool_result" => owned_block(value),
            "redacted_thinking" => typed(&value)
                .map(|b| ContentBlock::RedactedThinking(Box::new(b)))
                .unwrap_or(ContentBlock::Unknown(value)),
            "image" => typed(&value)
                .map(|b| ContentBlock::Image(Box::new(b)))
                .unwrap_or(ContentBlock::Unknown(value)),
            _ => ContentBlock::Unknown(value),
        }
    }

    /// Encode the block as JSON (with its `type`).
    pub fn to_value(&self) -> Value {
        let (kind, body) = match self {
            ContentBlock::Unknown(v) => return v.clone(),
            ContentBlock::Text(b) => ("text", serde_json::to_value(b)),
            ContentBlock::Thinking(b) => ("thinking", serde_json::to_value(b)),
            ContentBlock::RedactedThinking(b) => ("redacted_thinking", serde_json::to_value(b)),
            ContentBlock::ToolUse(b) => ("tool_use", serde_json::to_value(b)),
            ContentBlock::ToolResult(b) => ("tool_result", serde_json::to_value(b)),
            ContentBlock::Image(b) => ("image", serde_json::to_value(b)),
        };
        let mut map = match body {
            Ok(Value::Object(m)) => m,
            _ => Map::new(),
        };
        map.insert("type".into(), Value::String(kind.into()));
        Value::Object(map)
    }
}

/// Text, thinking, tool use and tool result blocks, built by moving the
/// fields out of the map: no string is copied, however large. A block whose
/// fields do not have the expected types is kept whole as `Unknown`.
fn owned_block(value: Value) -> ContentBlock {
    let Value::Object(mut map) = value else {
        return ContentBlock::Unknown(value);
    };
    let is_str = |m: &Map<String, Value>, k: &str| m.get(k).is_some_and(Value::is_string);
    let opt_str =
        |m: &Map<String, Value>, k: &str| m.get(k).is_none_or(|v| v.is_string() || v.is_null());
    let kind = map
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let fits = match kind.as_str() {
        "text" => is_str(&map, "text"),
        "thinking" => is_str(&map, "thinking") && opt_str(&map, "signature"),
        "tool_use" => is_str(&map, "id") && is_str(&map, "name"),
        "tool_result" => {
            is_str(&map, "tool_use_id")
                && map
                    .get("is_error")
                    .is_none_or(|v| v.is_boolean() || v.is_null())
                && map
                    .get("content")
                    .is_none_or(|v| v.is_string() || v.is_array() || v.is_null())
        }
        _ => false,
    };
    if !fits {
        return ContentBlock::Unknown(Value::Object(map));
    }
    let mut take_str = |k: &str| match map.remove(k) {
        Some(Value::String(s)) => Some(s),
        _ => None,
    };
    let block = match kind.as_str() {
        "text" => ContentBlock::Text(TextBlock {
            text: take_str("text").unwrap_or_default(),
            extra: Map::new(),
        }),
        "thinking" => ContentBlock::Thinking(Box::new(ThinkingBlock {
            thinking: take_str("thinking").unwrap_or_default(),
            signature: take_str("signature"),
            extra: Map::new(),
        })),
        "tool_use" => ContentBlock::ToolUse(Box::new(ToolUseBlock {
            id: take_str("id").unwrap_or_default(),
            name: take_str("name").unwrap_or_default(),
            input: map.remove("input").unwrap_or(Value::Null),
            extra: Map::new(),
        })),
        _ => {
            let tool_use_id = take_str("tool_use_id").unwrap_or_default();
            let content = match map.remove("content") {
                Some(Value::String(s)) => Some(MessageContent::Text(s)),
                Some(Value::Array(items)) => Some(MessageContent::Blocks(
                    items.into_iter().map(ContentBlock::from_value).collect(),
                )),
                _ => None,
            };
            let is_error = map.remove("is_error").and_then(|v| v.as_bool());
            ContentBlock::ToolResult(Box::new(ToolResultBlock {
                tool_use_id,
                content,
                is_error,
                extra: Map::new(),
            }))
        }
    };
    map.remove("type");
    attach_extra(block, map)
}

fn attach_extra(mut block: ContentBlock, rest: Map<String, Value>) -> ContentBlock {
    // A map emptied by `remove` keeps its node (over 600 bytes): an empty
    // one holds nothing. 300,000 blocks in one line took 190 MB for it.
    let rest = if rest.is_empty() { Map::new() } else { rest };
    match &mut block {
        ContentBlock::Text(b) => b.extra = rest,
        ContentBlock::Thinking(b) => b.extra = rest,
        ContentBlock::ToolUse(b) => b.extra = rest,
        ContentBlock::ToolResult(b) => b.extra = rest,
        ContentBlock::RedactedThinking(b) => b.extra = rest,
        ContentBlock::Image(b) => b.extra = rest,
        ContentBlock::Unknown(_) => {}
    }
    block
}

/// Decode `T` from a block's JSON, dropping the `type` tag from the extras.
fn typed<T: de::DeserializeOwned + HasExtra>(value: &Value) -> Option<T> {
    let mut t: T = T::deserialize(value).ok()?;
    t.extra_mut().remove("type");
    Some(t)
}

/// Structs that keep unknown fields.
pub(crate) trait HasExtra {
    fn extra_mut(&mut self) -> &mut Map<String, Value>;
}

macro_rules! has_extra {
    ($($t:ty),*) => {$(
        impl HasExtra for $t {
            fn extra_mut(&mut self) -> &mut Map<String, Value> { &mut self.extra }
        }
    )*};
}
pub(crate) use has_extra;
has_extra!(
    TextBlock,
    ThinkingBlock,
    RedactedThinkingBlock,
    ToolUseBlock,
    ToolResultBlock,
    ImageBlock
);

impl<'de> Deserialize<'de> for ContentBlock {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(ContentBlock::from_value(Value::deserialize(d)?))
    }
}

impl Serialize for ContentBlock {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(s)
    }
}

/// Message content: a plain string or a list of blocks (both are valid on the wire).
#[derive(Debug, Clone, PartialEq)]
pub enum MessageContent {
    /// `"content": "text"`
    Text(String),
    /// `"content": [ {...}, ... ]`
    Blocks(Vec<ContentBlock>),
}

impl MessageContent {
    /// The text of the content: the string, or the text blocks joined by newlines.
    ///
    /// ```
    /// use claudio::{protocol::MessageContent, ContentBlock};
    /// let blocks = vec![ContentBlock::text("one"), ContentBlock::text("two")];
    /// assert_eq!(MessageContent::from(blocks).text(), "one\ntwo");
    /// assert_eq!(MessageContent::from("plain").text(), "plain");
    /// ```
    pub fn text(&self) -> String {
        match self {
            MessageContent::Text(t) => t.clone(),
            MessageContent::Blocks(blocks) => {
                let mut out = String::new();
                for b in blocks {
                    if let ContentBlock::Text(t) = b {
                        if !out.is_empty() {
                            out.push('\n');
                        }
                        out.push_str(&t.text);
                    }
                }
                out
            }
        }
    }

    /// The blocks (a string is seen as one text block).
    pub fn blocks(&self) -> Vec<ContentBlock> {
        match self {
            MessageContent::Text(t) => vec![ContentBlock::text(t.clone())],
            MessageContent::Blocks(b) => b.clone(),
        }
    }
}

impl Default for MessageContent {
    fn default() -> Self {
        MessageContent::Blocks(Vec::new())
    }
}

impl Serialize for MessageContent {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            MessageContent::Text(t) => s.serialize_str(t),
            MessageContent::Blocks(b) => b.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for MessageContent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = MessageContent;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or a list of content blocks")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(MessageContent::Text(v.to_owned()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(MessageContent::Text(v))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(MessageContent::Blocks(Vec::new()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(1));
                while let Some(b) = seq.next_element::<ContentBlock>()? {
                    out.push(b);
                }
                Ok(MessageContent::Blocks(out))
            }
        }
        d.deserialize_any(V)
    }
}

impl From<&str> for MessageContent {
    fn from(s: &str) -> Self {
        MessageContent::Text(s.to_owned())
    }
}

impl From<String> for MessageContent {
    fn from(s: String) -> Self {
        MessageContent::Text(s)
    }
}

impl From<Vec<ContentBlock>> for MessageContent {
    fn from(b: Vec<ContentBlock>) -> Self {
        MessageContent::Blocks(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// An image block's source is typed by its `type`; an unknown type, or
    /// a known one of another shape, comes back as the same JSON text.
    #[test]
    fn an_image_source_is_typed_and_an_unknown_one_round_trips() {
        let line = r#"{"source":{"data":"iVBORw0KGgo=","media_type":"image/png","type":"base64"},"type":"image"}"#;
        let b = ContentBlock::from_value(serde_json::from_str(line).unwrap());
        let ContentBlock::Image(i) = &b else {
            panic!("{b:?}")
        };
        assert_eq!(i.source, ImageSource::base64("image/png", "iVBORw0KGgo="));
        assert_eq!(i.source.kind(), "base64");
        assert_eq!(b.to_value().to_string(), line);
        let url = json!({"type":"image","source":{"type":"url","url":"https://x/a.png"}});
        let ContentBlock::Image(i) = ContentBlock::from_value(url.clone()) else {
            panic!()
        };
        assert_eq!(i.source, ImageSource::url("https://x/a.png"));
        assert_eq!(ContentBlock::Image(i).to_value(), url);
        for line in [
            r#"{"source":{"file_id":"file_01","type":"file"},"type":"image"}"#,
            r#"{"source":{"data":7,"media_type":"image/png","type":"base64"},"type":"image"}"#,
            r#"{"source":{"type":"url"},"type":"image"}"#,
            r#"{"source":"somewhere","type":"image"}"#,
        ] {
            let b = ContentBlock::from_value(serde_json::from_str(line).unwrap());
            let ContentBlock::Image(i) = &b else {
                panic!("{line}: {b:?}")
            };
            assert!(matches!(i.source, ImageSource::Other(_)), "{line}");
            assert_eq!(b.to_value().to_string(), line);
            assert_eq!(
                serde_json::to_string(&**i).unwrap(),
                line.replace(r#","type":"image""#, "")
            );
        }
    }

    /// A line of 300,000 blocks holds 300,000 of these: the large kinds
    /// are boxed, and a decoded block's empty `extra` holds no node.
    #[test]
    fn a_block_is_small_and_its_empty_extra_holds_nothing() {
        assert!(std::mem::size_of::<ContentBlock>() <= 48);
        let b = ContentBlock::from_value(json!({"type":"text","text":"hi"}));
        match b {
            // `Map::new()` allocates nothing; one emptied by `remove` would
            // compare equal but keep its node: only the length is seen here,
            // the memory test (tests/it/memory.rs) sees the rest
            ContentBlock::Text(t) => assert!(t.extra.is_empty()),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn known_blocks_decode_and_keep_unknown_fields() {
        let v = json!({"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"},"caller":"x"});
        let b = ContentBlock::from_value(v.clone());
        match &b {
            ContentBlock::ToolUse(t) => {
                assert_eq!(t.name, "Bash");
                assert_eq!(t.input["command"], "ls");
                assert_eq!(t.extra["caller"], "x");
                assert!(!t.extra.contains_key("type"));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(b.to_value(), v);
    }

    #[test]
    fn unknown_and_malformed_blocks_become_unknown() {
        let v = json!({"type":"server_tool_use","id":"x"});
        assert_eq!(
            ContentBlock::from_value(v.clone()),
            ContentBlock::Unknown(v)
        );
        // A text block without text does not fit: kept raw, not an error.
        let v = json!({"type":"text","text":42});
        assert_eq!(
            ContentBlock::from_value(v.clone()),
            ContentBlock::Unknown(v)
        );
    }

    #[test]
    fn big_blocks_keep_their_fields_and_odd_ones_stay_whole() {
        let v = json!({"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"a"}],"is_error":false,"x":1});
        let b = ContentBlock::from_value(v.clone());
        assert!(matches!(&b, ContentBlock::ToolResult(r) if r.text() == "a" && r.extra["x"] == 1));
        assert_eq!(b.to_value(), v);
        for odd in [
            json!({"type":"tool_result","tool_use_id":"t","is_error":"yes"}),
            json!({"type":"tool_result","content":"x"}),
            json!({"type":"tool_use","name":"Bash"}),
            json!({"type":"thinking","thinking":"t","signature":5}),
        ] {
            assert_eq!(
                ContentBlock::from_value(odd.clone()),
                ContentBlock::Unknown(odd)
            );
        }
        let v = json!({"type":"tool_use","id":"1","name":"Write","input":{"content":"big"}});
        assert_eq!(ContentBlock::from_value(v.clone()).to_value(), v);
    }

    #[test]
    fn content_is_string_or_blocks() {
        let c: MessageContent = serde_json::from_str(r#""hi""#).unwrap();
        assert_eq!(c, MessageContent::Text("hi".into()));
        let c: MessageContent =
            serde_json::from_str(r#"[{"type":"text","text":"a"},{"type":"image","source":{}},{"type":"text","text":"b"}]"#)
                .unwrap();
        assert_eq!(c.text(), "a\nb");
        assert_eq!(
            serde_json::to_string(&c).unwrap(),
            r#"[{"text":"a","type":"text"},{"source":{},"type":"image"},{"text":"b","type":"text"}]"#
        );
    }

    #[test]
    fn tool_result_text_from_blocks_or_string() {
        let b: ContentBlock = serde_json::from_value(
            json!({"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"out"}],"is_error":true}),
        )
        .unwrap();
        let ContentBlock::ToolResult(r) = b else {
            panic!()
        };
        assert_eq!(r.text(), "out");
        assert!(r.is_error());
    }
}
