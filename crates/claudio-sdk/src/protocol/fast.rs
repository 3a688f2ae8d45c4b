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

use super::content::{ContentBlock, TextBlock};
use super::message::{ApiMessage, AssistantMessage};
use super::replies::{lenient, Usage};
use super::stream::{Delta, StreamEvent, StreamEventMessage};
use serde_json::{Map, Value};
use std::borrow::Cow;

/// Decode `line` if it is a plain content-block-delta `stream_event` (or
/// the block's `content_block_stop`, or the `message_stop`: the small
/// events around the deltas, read here without serde's allocations; or
/// the `message_start`, `content_block_start` or `message_delta` around
/// them, their values read by serde_json from their own bytes).
pub(crate) fn stream_delta(line: &str) -> Option<StreamEventMessage> {
    stream_delta_as(line, false)
}

/// [`stream_delta`]; `lean`: the event as
/// [`StreamEvent::lean`] leaves it, the values it leaves out checked as
/// serde_json's `Value` reads them but never built ([`Checked`],
/// [`LeanStart`]). Where it answers, the answer is the general decoder's,
/// made lean (the differential tests below).
pub(crate) fn stream_delta_as(line: &str, lean: bool) -> Option<StreamEventMessage> {
    let mut p = Parser {
        b: line.as_bytes(),
        s: line,
        i: 0,
    };
    p.lit(br#"{"type":"stream_event","event":{"#)?;
    let event = p.event(lean)?;
    let [session_id, parent_tool_use_id, uuid, api_message_id] =
        p.envelope()?.map(|f| f.map(Cow::into_owned));
    Some(StreamEventMessage {
        event,
        parent_tool_use_id,
        session_id,
        uuid,
        api_message_id,
        extra: Map::new(),
    })
}

/// The main agent's text delta, as [`text_delta_into`] read it: all of
/// the line but its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TextDelta<'a> {
    pub(crate) index: usize,
    pub(crate) session_id: Option<&'a str>,
    pub(crate) uuid: Option<&'a str>,
    pub(crate) api_message_id: Option<&'a str>,
}

/// Read `line` if it is a `stream_event` carrying one `text_delta` of the
/// main agent (`parent_tool_use_id` null or absent), with its text
/// unescaped straight onto the end of `out`: nothing is allocated. The ids
/// must be plain strings (no escapes), as the CLI writes them (one with
/// an escape is unescaped, then declines). Anything
/// else declines, with `out` as it was; where it answers, the answer is
/// the general decoder's (the differential tests below).
pub(crate) fn text_delta_into<'a>(line: &'a str, out: &mut String) -> Option<TextDelta<'a>> {
    let before = out.len();
    let read = text_delta_inner(line, out);
    if read.is_none() {
        out.truncate(before);
    }
    read
}

fn text_delta_inner<'a>(line: &'a str, out: &mut String) -> Option<TextDelta<'a>> {
    let mut p = Parser {
        b: line.as_bytes(),
        s: line,
        i: 0,
    };
    p.lit(br#"{"type":"stream_event","event":{"#)?;
    let (mut kind, mut index, mut delta) = (false, None, false);
    loop {
        let key = p.one_of(&[
            br#""type":"content_block_delta""#,
            br#""index":"#,
            br#""delta":{"#,
        ])?;
        match key {
            0 if !kind => kind = true,
            1 if index.is_none() => index = Some(p.index()?),
            2 if !delta => {
                p.text_delta_body(out)?;
                delta = true;
            }
            _ => return None,
        }
        if !p.next_member()? {
            break;
        }
    }
    if !kind || !delta {
        return None;
    }
    // the ids as written: one with an escape declines
    let plain = |f: Option<Cow<'a, str>>| match f {
        None => Some(None),
        Some(Cow::Borrowed(s)) => Some(Some(s)),
        Some(Cow::Owned(_)) => None,
    };
    let [session_id, parent, uuid, api_message_id] = p.envelope()?;
    let (session_id, uuid, api_message_id) =
        (plain(session_id)?, plain(uuid)?, plain(api_message_id)?);
    if parent.is_some() {
        return None; // a sub-agent's: not the answer's text
    }
    Some(TextDelta {
        index: index?,
        session_id,
        uuid,
        api_message_id,
    })
}

/// The shape of the lines that continue a run of text deltas, as the CLI
/// writes every delta of one block: the first line's `index`,
/// `session_id` and `api_message_id`, the keys in the CLI's order, a
/// null `parent_tool_use_id`, a plain `uuid`. A line of exactly that shape
/// is compared with it byte for byte and only its text (and the uuid's
/// end) is scanned; any other line declines, and [`text_delta_into`]
/// reads it. Where it answers, the answer is `text_delta_into`'s with the
/// run's index and ids (the differential tests below). Rebuilt in place
/// for each run: nothing is allocated once it has room.
#[derive(Debug, Default)]
pub(crate) struct DeltaShape {
    /// The line through `"text":`, then from the text's end through the
    /// uuid's opening quote, then from the uuid's closing quote to the end.
    bytes: Vec<u8>,
    /// Where the second and third parts begin; `None`: no shape.
    cuts: Option<(usize, usize)>,
}

impl DeltaShape {
    /// The shape of the lines that continue the run `first` starts: none
    /// when an id is absent or is not its own JSON text.
    pub(crate) fn set(&mut self, first: &TextDelta<'_>) {
        self.cuts = None;
        let (Some(session_id), Some(api_message_id)) = (first.session_id, first.api_message_id)
        else {
            return;
        };
        // the ids are written as they are: only where that is their JSON
        if special(session_id.as_bytes()).is_some() || special(api_message_id.as_bytes()).is_some()
        {
            return;
        }
        let b = &mut self.bytes;
        b.clear();
        b.extend_from_slice(
            br#"{"type":"stream_event","event":{"type":"content_block_delta","index":"#,
        );
        b.extend_from_slice(first.index.to_string().as_bytes());
        b.extend_from_slice(br#","delta":{"type":"text_delta","text":"#);
        let middle = b.len();
        b.extend_from_slice(br#"}},"session_id":""#);
        b.extend_from_slice(session_id.as_bytes());
        b.extend_from_slice(br#"","parent_tool_use_id":null,"uuid":""#);
        let tail = b.len();
        b.extend_from_slice(br#","api_message_id":""#);
        b.extend_from_slice(api_message_id.as_bytes());
        b.extend_from_slice(br#""}"#);
        self.cuts = Some((middle, tail));
    }

    /// No shape (the run is over).
    pub(crate) fn clear(&mut self) {
        self.cuts = None;
    }

    /// If `line` has the shape: its text unescaped onto the end of `out`,
    /// true. Else false, `out` as it was.
    pub(crate) fn text_into(&self, line: &str, out: &mut String) -> bool {
        let before = out.len();
        match self.shape_at(line, out) {
            Some(end) if end == line.len() => true,
            Some(_) => {
                out.truncate(before);
                false
            }
            None => false,
        }
    }

    /// [`DeltaShape::text_into`] for the line at the start of `text` (the
    /// lines read, not yet split off): where `text` starts with a line of
    /// the shape and its end (`\n`, or `\r\n`), the line's text is
    /// unescaped onto the end of `out`, and the answer is the line's length
    /// (without its `\r`) and the bytes it took (with its end). The
    /// shape's end is the line's: its end is not looked for. Where it
    /// answers, the answer is `text_into`'s for the line split off as the
    /// reader splits it (the differential tests below); `None` leaves
    /// `out` as it was.
    pub(crate) fn text_into_next(&self, text: &str, out: &mut String) -> Option<(usize, usize)> {
        let before = out.len();
        let end = self.shape_at(text, out)?;
        let taken = match text.as_bytes().get(end..) {
            Some([b'\n', ..]) => Some((end, end + 1)),
            Some([b'\r', b'\n', ..]) => Some((end, end + 2)),
            _ => None,
        };
        if taken.is_none() {
            out.truncate(before);
        }
        taken
    }

    /// The shape read at the start of `text`, its text unescaped onto the
    /// end of `out`: where the shape ends. `None` leaves `out` as it was.
    fn shape_at(&self, text: &str, out: &mut String) -> Option<usize> {
        let (middle, tail) = self.cuts?;
        let before = out.len();
        let mut p = Parser {
            b: text.as_bytes(),
            s: text,
            i: 0,
        };
        let read = (|| {
            p.lit(&self.bytes[..middle])?;
            p.string_into(out)?;
            p.lit(&self.bytes[middle..tail])?;
            // the uuid: a plain string (one with an escape declines)
            let end = p.i + special(&p.b[p.i..])?;
            if p.b[end] != b'"' {
                return None;
            }
            p.i = end + 1;
            p.lit(&self.bytes[tail..])?;
            Some(p.i)
        })();
        if read.is_none() {
            out.truncate(before);
        }
        read
    }
}

/// The deepest a value read by [`Parser::value_text`] may nest.
const VALUE_DEPTH: usize = 64;

/// The longest `assistant` line read at the byte level: a longer one (a
/// line of many blocks) is the general decoder's, as it always was.
const ASSISTANT_MAX: usize = 1 << 20;

/// Decode `line` if it is an `assistant` line written compactly (no
/// whitespace), its keys without escapes and each once: the text blocks
/// (`{"type":"text","text":...}`, nothing more) and the fields the types
/// name are read here, in one pass; every other value (other blocks,
/// `usage`, the fields kept in `extra`) is found here and read by
/// serde_json from its own bytes, as the general decoder reads it. Anything
/// else declines. Where it answers, the answer is the general decoder's
/// (the differential tests below): the derived decoder buffers each field
/// it does not name, and reads every string through its scratch buffer.
pub(crate) fn assistant(line: &str) -> Option<AssistantMessage> {
    if line.len() > ASSISTANT_MAX {
        return None;
    }
    let mut p = Parser {
        b: line.as_bytes(),
        s: line,
        i: 0,
    };
    p.lit(br#"{"type":"assistant","#)?;
    let mut message = None;
    let (mut parent_tool_use_id, mut session_id, mut uuid) = (None, None, None);
    let mut extra = Map::new();
    loop {
        let key = p.key()?;
        match key {
            "message" if message.is_none() => {
                p.lit(b"{")?;
                message = Some(p.api_message()?);
            }
            "parent_tool_use_id" if parent_tool_use_id.is_none() => {
                parent_tool_use_id = Some(p.string_or_null()?);
            }
            "session_id" if session_id.is_none() => session_id = Some(p.string_or_null()?),
            "uuid" if uuid.is_none() => uuid = Some(p.string_or_null()?),
            "message" | "parent_tool_use_id" | "session_id" | "uuid" | "type" => return None,
            _ => {
                let v = p.value()?;
                if extra.insert(key.to_owned(), v).is_some() {
                    return None;
                }
            }
        }
        if !p.next_member()? {
            break;
        }
    }
    if p.i != p.b.len() {
        return None;
    }
    Some(AssistantMessage {
        message: message?,
        parent_tool_use_id: parent_tool_use_id.flatten(),
        session_id: session_id.flatten(),
        uuid: uuid.flatten(),
        extra,
    })
}

/// A JSON value read as serde_json reads it into a `Value` (the same
/// deserializer's `deserialize_any`, every string unescaped and every
/// number read as a `Value`'s are, the same depth limit), with nothing
/// kept: no allocation. What `Value` would read differently — an object
/// whose key is serde_json's private marker of a raw value or number —
/// is refused, so the caller declines and the general decoder reads the
/// line. So where it accepts, a `Value` of the same text is read too (the
/// property test below).
struct Checked;

impl<'de> serde::Deserialize<'de> for Checked {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Checked, D::Error> {
        d.deserialize_any(CheckedVisitor)
    }
}

struct CheckedVisitor;

impl<'de> serde::de::Visitor<'de> for CheckedVisitor {
    type Value = Checked;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Checked, E> {
        Ok(Checked)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Checked, E> {
        Ok(Checked)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Checked, E> {
        Ok(Checked)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Checked, E> {
        Ok(Checked)
    }

    fn visit_str<E>(self, _: &str) -> Result<Checked, E> {
        Ok(Checked)
    }

    fn visit_unit<E>(self) -> Result<Checked, E> {
        Ok(Checked)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Checked, A::Error> {
        while seq.next_element::<Checked>()?.is_some() {}
        Ok(Checked)
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Checked, A::Error> {
        while let Some(key) = map.next_key_seed(KeySeed)? {
            if key == Key::Private {
                return Err(serde::de::Error::custom("a private key"));
            }
            map.next_value::<Checked>()?;
        }
        Ok(Checked)
    }
}

/// An object's key, as `Value` reads it (`deserialize_str`), not kept.
#[derive(PartialEq)]
enum Key {
    Id,
    /// serde_json's private markers (`$serde_json::private::…`): a
    /// `Value` reads such an object as another thing.
    Private,
    Other,
}

struct KeySeed;

impl<'de> serde::de::DeserializeSeed<'de> for KeySeed {
    type Value = Key;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Key, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> serde::de::Visitor<'de> for KeySeed {
    type Value = Key;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a string key")
    }

    fn visit_str<E>(self, s: &str) -> Result<Key, E> {
        Ok(match s {
            "id" => Key::Id,
            s if s.starts_with("$serde_json::private::") => Key::Private,
            _ => Key::Other,
        })
    }
}

/// A `message_start`'s `message` object as [`StreamEvent::lean`] leaves
/// it: its `id` (the last one, as a `Value`'s map keeps it) read as a
/// `Value`, the other members [`Checked`].
struct LeanStart(Value);

impl<'de> serde::Deserialize<'de> for LeanStart {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<LeanStart, D::Error> {
        d.deserialize_any(LeanStartVisitor)
    }
}

struct LeanStartVisitor;

impl<'de> serde::de::Visitor<'de> for LeanStartVisitor {
    type Value = LeanStart;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<LeanStart, A::Error> {
        let mut id = None;
        while let Some(key) = map.next_key_seed(KeySeed)? {
            match key {
                Key::Id => id = Some(map.next_value::<Value>()?),
                Key::Other => {
                    map.next_value::<Checked>()?;
                }
                Key::Private => return Err(serde::de::Error::custom("a private key")),
            }
        }
        let mut m = Map::new();
        if let Some(id) = id {
            m.insert("id".to_owned(), id);
        }
        Ok(LeanStart(Value::Object(m)))
    }
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

    /// The body of `event` after its `{`: a `content_block_delta` (`type`,
    /// `index` and `delta`), a `content_block_stop` (`type` and `index`) or
    /// a `message_stop` (`type` alone), each key once, in any order.
    fn event(&mut self, lean: bool) -> Option<StreamEvent> {
        if let Some(kind) = self.one_of(&[
            br#""type":"message_start""#,
            br#""type":"content_block_start""#,
            br#""type":"message_delta""#,
        ]) {
            return self.framing(kind, lean);
        }
        let (mut kind, mut index, mut delta) = (None, None, None);
        loop {
            let key = self.one_of(&[
                br#""type":"content_block_delta""#,
                br#""index":"#,
                br#""delta":{"#,
                br#""type":"content_block_stop""#,
                br#""type":"message_stop""#,
            ])?;
            match key {
                0 | 3 | 4 if kind.is_none() => kind = Some(key),
                1 if index.is_none() => index = Some(self.index()?),
                2 if delta.is_none() => delta = Some(self.delta()?),
                _ => return None,
            }
            if !self.next_member()? {
                break;
            }
        }
        match (kind?, index, delta) {
            (0, Some(index), Some(delta)) => Some(StreamEvent::ContentBlockDelta { index, delta }),
            (3, Some(index), None) => Some(StreamEvent::ContentBlockStop { index }),
            (4, None, None) => Some(StreamEvent::MessageStop),
            _ => None,
        }
    }

    /// The rest of the event after its `type` (written first, as the CLI
    /// writes it) for the events that frame the deltas: a
    /// `message_start` (its `message`), a `content_block_start` (its
    /// `index` and `content_block`) or a `message_delta` (its `delta` and,
    /// if given, `usage`), each key once and no other; the values read by
    /// serde_json from their own bytes, as the general decoder reads them,
    /// without its map of every key. `lean`: the values
    /// [`StreamEvent::lean`] leaves out are checked, not built.
    fn framing(&mut self, kind: usize, lean: bool) -> Option<StreamEvent> {
        let (mut index, mut first, mut usage) = (None, None, None);
        let mut block = None;
        while self.next_member()? {
            match (kind, self.key()?) {
                (0, "message") if first.is_none() && lean => first = Some(self.lean_start()?),
                (0, "message") if first.is_none() => first = Some(self.value()?),
                // the block as the CLI starts a text block: no map built
                (1, "content_block") if block.is_none() => {
                    block = Some(match self.lit(br#"{"type":"text","text":""}"#) {
                        Some(()) => ContentBlock::Text(TextBlock {
                            text: String::new(),
                            extra: Map::new(),
                        }),
                        None => ContentBlock::from_value(self.value()?),
                    });
                }
                // the general decoder reads any event's `delta` as a
                // [`Delta`], then keeps it as a value: the value itself
                (2, "delta") if first.is_none() && lean => {
                    self.checked()?;
                    first = Some(Value::Null);
                }
                (2, "delta") if first.is_none() => first = Some(self.value()?),
                (1, "index") if index.is_none() => index = Some(self.index()?),
                (2, "usage") if usage.is_none() && lean => {
                    self.checked()?;
                    usage = Some(Value::Null);
                }
                (2, "usage") if usage.is_none() => usage = Some(self.value()?),
                _ => return None,
            }
        }
        Some(match kind {
            0 => StreamEvent::MessageStart { message: first? },
            1 => StreamEvent::ContentBlockStart {
                index: index?,
                content_block: block?,
            },
            _ => StreamEvent::MessageDelta {
                delta: first?,
                usage: usage.filter(|_| !lean),
            },
        })
    }

    /// A value found as [`Parser::value_text`] finds it, checked as
    /// serde_json reads it into a `Value` ([`Checked`]), nothing built.
    fn checked(&mut self) -> Option<()> {
        serde_json::from_str::<Checked>(self.value_text()?).ok()?;
        Some(())
    }

    /// A `message_start`'s `message` as [`StreamEvent::lean`] leaves it:
    /// an object keeps its `id` alone (its other members checked, not
    /// built: [`LeanStart`]); any other value is read whole. An object
    /// after JSON's white space is one too (`"message": {`).
    fn lean_start(&mut self) -> Option<Value> {
        let text = self.value_text()?;
        if text
            .trim_start_matches([' ', '\t', '\n', '\r'])
            .starts_with('{')
        {
            serde_json::from_str::<LeanStart>(text).ok().map(|l| l.0)
        } else {
            serde_json::from_str(text).ok()
        }
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

    /// The body of a `text_delta` after its `{`: `type` and `text`, each
    /// once, in any order; the text unescaped onto `out`.
    fn text_delta_body(&mut self, out: &mut String) -> Option<()> {
        let (mut kind, mut text) = (false, false);
        loop {
            match self.one_of(&[br#""type":"text_delta""#, br#""text":"#])? {
                0 if !kind => kind = true,
                1 if !text => {
                    self.string_into(out)?;
                    text = true;
                }
                _ => return None,
            }
            if !self.next_member()? {
                break;
            }
        }
        (kind && text).then_some(())
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

    /// The message's fields after its event, through the line's end:
    /// `session_id`, `parent_tool_use_id`, `uuid` and `api_message_id`,
    /// each a string or null, each once at most (a repeated key: the
    /// general path decides).
    fn envelope(&mut self) -> Option<[Option<Cow<'a, str>>; 4]> {
        let mut fields: [Option<Option<Cow<'a, str>>>; 4] = [None, None, None, None];
        while self.peek()? == b',' {
            self.i += 1;
            let slot = self.one_of(&[
                br#""session_id":"#,
                br#""parent_tool_use_id":"#,
                br#""uuid":"#,
                br#""api_message_id":"#,
            ])?;
            if fields[slot].is_some() {
                return None;
            }
            fields[slot] = Some(match self.lit(b"null") {
                Some(()) => None,
                None => Some(self.string()?),
            });
        }
        self.lit(b"}")?;
        if self.i != self.b.len() {
            return None;
        }
        Some(fields.map(Option::flatten))
    }

    /// An object's key and its `:`: a plain string (one with an escape
    /// declines).
    fn key(&mut self) -> Option<&'a str> {
        self.lit(b"\"")?;
        let start = self.i;
        let end = start + special(&self.b[start..])?;
        if self.b[end] != b'"' || self.b.get(end + 1) != Some(&b':') {
            return None;
        }
        self.i = end + 2;
        Some(&self.s[start..end])
    }

    /// A string, owned, or null.
    fn string_or_null(&mut self) -> Option<Option<String>> {
        if self.lit(b"null").is_some() {
            return Some(None);
        }
        let start = self.i;
        let raw = self.string_end()? - start;
        self.i = start;
        let mut out = String::with_capacity(raw);
        self.string_into(&mut out)?;
        Some(Some(out))
    }

    /// Where the string at `self.i` ends (after its closing quote), its
    /// escapes passed over, not checked; `self.i` is left there.
    fn string_end(&mut self) -> Option<usize> {
        self.lit(b"\"")?;
        loop {
            self.i += special(self.b.get(self.i..)?)?;
            match self.b[self.i] {
                b'"' => {
                    self.i += 1;
                    return Some(self.i);
                }
                b'\\' => self.i += 2,
                _ => return None,
            }
        }
    }

    /// One JSON value, found here (strings passed over, brackets counted
    /// to the `,` or the closing bracket after it) and read by serde_json
    /// from its bytes: what it is not, it declines.
    fn value_text(&mut self) -> Option<&'a str> {
        let start = self.i;
        let mut depth = 0usize;
        loop {
            match self.peek()? {
                b'"' => {
                    self.string_end()?;
                }
                // serde_json's depth limit (128) counts from the line's
                // start: read alone, a deeper value could pass where the
                // line does not
                b'{' | b'[' if depth == VALUE_DEPTH => return None,
                b'{' | b'[' => {
                    depth += 1;
                    self.i += 1;
                }
                b'}' | b']' if depth == 0 => break,
                b'}' | b']' => {
                    depth -= 1;
                    self.i += 1;
                }
                b',' if depth == 0 => break,
                _ => self.i += 1,
            }
        }
        self.s.get(start..self.i)
    }

    /// [`Parser::value_text`], read as serde_json reads it.
    fn value(&mut self) -> Option<Value> {
        serde_json::from_str(self.value_text()?).ok()
    }

    /// The body of an `assistant` line's `message` after its `{`, through
    /// its `}`: the fields [`ApiMessage`] names, each once; the others kept.
    fn api_message(&mut self) -> Option<ApiMessage> {
        let (mut id, mut model, mut role, mut stop_reason) = (None, None, None, None);
        let (mut content, mut usage) = (None, None);
        let mut extra = Map::new();
        loop {
            let key = self.key()?;
            match key {
                "id" if id.is_none() => id = Some(self.string_or_null()?),
                "model" if model.is_none() => model = Some(self.string_or_null()?),
                "role" if role.is_none() => role = Some(self.string_or_null()?),
                "stop_reason" if stop_reason.is_none() => {
                    stop_reason = Some(self.string_or_null()?);
                }
                "content" if content.is_none() => content = Some(self.blocks()?),
                "usage" if usage.is_none() => {
                    let v = self.value()?;
                    usage = Some(lenient::<_, Option<Usage>>(v).ok()?);
                }
                "id" | "model" | "role" | "stop_reason" | "content" | "usage" => return None,
                _ => {
                    let v = self.value()?;
                    if extra.insert(key.to_owned(), v).is_some() {
                        return None;
                    }
                }
            }
            if !self.next_member()? {
                break;
            }
        }
        Some(ApiMessage {
            id: id.flatten(),
            model: model.flatten(),
            role: role.flatten(),
            content: content.unwrap_or_default(),
            stop_reason: stop_reason.flatten(),
            usage: usage.flatten(),
            extra,
        })
    }

    /// A message's `content`: a list of blocks, a text block read here,
    /// any other by serde_json from its bytes.
    fn blocks(&mut self) -> Option<Vec<ContentBlock>> {
        self.lit(b"[")?;
        let mut blocks = Vec::new();
        if self.lit(b"]").is_some() {
            return Some(blocks);
        }
        loop {
            let at = self.i;
            let text = (|| {
                self.lit(br#"{"type":"text","text":"#)?;
                let text = self.string_or_null()??;
                self.lit(b"}")?;
                Some(text)
            })();
            let block = match text {
                Some(text) => ContentBlock::Text(TextBlock {
                    text,
                    extra: Map::new(),
                }),
                None => {
                    self.i = at;
                    ContentBlock::from_value(self.value()?)
                }
            };
            blocks.push(block);
            match self.peek()? {
                b',' => self.i += 1,
                b']' => {
                    self.i += 1;
                    return Some(blocks);
                }
                _ => return None,
            }
        }
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
        self.escaped_into(&mut out)?;
        Some(Cow::Owned(out))
    }

    /// A JSON string, unescaped onto the end of `out` (on `None`, `out`
    /// may hold part of it: the caller cuts it back).
    fn string_into(&mut self, out: &mut String) -> Option<()> {
        self.lit(b"\"")?;
        let start = self.i;
        let end = start + special(&self.b[start..])?;
        out.push_str(&self.s[start..end]);
        self.i = end;
        if self.b[end] == b'"' {
            self.i = end + 1;
            return Some(());
        }
        self.escaped_into(out)
    }

    /// The rest of a string from an escape or a control character on
    /// (`self.i` at it), unescaped onto `out`, through its closing quote.
    fn escaped_into(&mut self, out: &mut String) -> Option<()> {
        loop {
            match self.b[self.i] {
                b'"' => {
                    self.i += 1;
                    return Some(());
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

/// Where the first `"`, `\\` or control character is: sixteen bytes at a
/// time (SSE2, which every x86-64 processor has; a string's last bytes in
/// one more step, copied beside bytes that are none of them), eight
/// elsewhere. Where it answers, the answer is the byte-by-byte rule's (the
/// property test below).
#[cfg(target_arch = "x86_64")]
fn special(b: &[u8]) -> Option<usize> {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };
    /// The flags of the sixteen bytes at `p` that are special.
    ///
    /// # Safety
    /// `p` must be readable for sixteen bytes.
    #[inline(always)]
    unsafe fn flags(p: *const u8) -> u32 {
        // SAFETY: SSE2 is in every x86-64 processor (the target's
        // baseline); the caller gives sixteen readable bytes, loaded
        // unaligned.
        unsafe {
            let x = _mm_loadu_si128(p.cast::<__m128i>());
            // a control byte: its unsigned least with 0x1f is itself
            let ctrl = _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(0x1f)), x);
            let quote = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'"' as i8));
            let slash = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'\\' as i8));
            _mm_movemask_epi8(_mm_or_si128(ctrl, _mm_or_si128(quote, slash))) as u32
        }
    }
    let mut i = 0;
    while i + 16 <= b.len() {
        // SAFETY: `b[i..i + 16]` is in the slice.
        let hit = unsafe { flags(b.as_ptr().add(i)) };
        if hit != 0 {
            return Some(i + hit.trailing_zeros() as usize);
        }
        i += 16;
    }
    let rest = &b[i..];
    if rest.is_empty() {
        return None;
    }
    // the last bytes, beside bytes that are not special
    let mut last = [b'a'; 16];
    last[..rest.len()].copy_from_slice(rest);
    // SAFETY: `last` is sixteen bytes.
    let hit = unsafe { flags(last.as_ptr()) };
    (hit != 0).then(|| i + hit.trailing_zeros() as usize)
}

/// Where the first `"`, `\\` or control character is (eight bytes at a
/// time): [`special`] where the target is not x86-64, and built in the
/// tests everywhere, so that the property test holds it to the same rule.
#[cfg(not(target_arch = "x86_64"))]
fn special(b: &[u8]) -> Option<usize> {
    special_by_words(b)
}

/// [`special`] eight bytes at a time, in plain arithmetic.
#[cfg(any(test, not(target_arch = "x86_64")))]
fn special_by_words(b: &[u8]) -> Option<usize> {
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

    /// `line` with a BOM before it or a CR, a space, a NUL or a brace
    /// after it, and cut at each character: lines a fast path must
    /// decline or read as the full parse does.
    fn framed_and_cut(line: &str) -> Vec<String> {
        let mut out: Vec<String> = [
            ("\u{feff}", ""),
            ("", "\r"),
            ("", " "),
            ("", "\0"),
            ("", "}"),
        ]
        .iter()
        .map(|(before, after)| format!("{before}{line}{after}"))
        .collect();
        out.extend(
            (0..line.len())
                .filter(|&at| line.is_char_boundary(at))
                .map(|at| line[..at].to_owned()),
        );
        out
    }

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
    fn a_block_s_stop_and_the_message_s_stop_take_the_fast_path() {
        for inner in [
            r#""type":"content_block_stop","index":0"#,
            r#""index":2,"type":"content_block_stop""#,
            r#""type":"message_stop""#,
        ] {
            for tail in [TAIL, ""] {
                let l = line(inner, tail);
                assert!(agree(&l).is_some(), "declined {l}");
            }
        }
        let stop = agree(&line(r#""type":"content_block_stop","index":2"#, TAIL)).unwrap();
        assert_eq!(stop.event, StreamEvent::ContentBlockStop { index: 2 });
        assert_eq!(stop.uuid.as_deref(), Some("u-1"));
        let end = agree(&line(r#""type":"message_stop""#, TAIL)).unwrap();
        assert_eq!(end.event, StreamEvent::MessageStop);
        // anything more or less is the general decoder's
        for inner in [
            r#""type":"content_block_stop""#,
            r#""type":"message_stop","index":0"#,
            r#""type":"content_block_stop","index":0,"x":1"#,
            r#""type":"content_block_stop","index":0,"type":"content_block_stop""#,
            r#""type":"message_stop","type":"message_stop""#,
            r#""type":"message_stop","delta":{"type":"text_delta","text":"a"}"#,
        ] {
            let l = line(inner, TAIL);
            assert!(agree(&l).is_none(), "took {l}");
        }
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

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
        fn pick<'x>(&mut self, v: &[&'x str]) -> &'x str {
            v[self.below(v.len())]
        }
    }

    /// String pieces JSON accepts (escapes, non-ASCII, runs for the SWAR scan).
    #[rustfmt::skip]
    const GOOD_PIECES: &[&str] = &[
        "a", "Hi", "abcdefg", "abcdefgh", "0123456789abcdef", "\\n", "\\\"", "\\\\", "\\/",
        "\\b", "\\f", "\\r", "\\t", "\\u0000", "\\u00e9", "\\u00E9", "\\uD83D\\uDE00",
        "\\ud83d\\ude00", "\\uFFFF", "\\uFEFF", "\u{7f}", "é", "日本", "🦀", "\u{2028}", " ", "'",
        "null", "{", "}", ",", ":", "\\u0022", "\\u005c", "\\uDBFF\\uDFFF", "\\ud83d\\uDE00x",
        "\\u001f", "\\u0080", "\\u07ff", "\\u0800", "\\uD800\\uDC00", "\\uE000", "\u{10ffff}",
    ];

    /// Pieces that make a string invalid: lone surrogates, bad escapes, raw
    /// control characters.
    #[rustfmt::skip]
    const BAD_PIECES: &[&str] = &[
        "\\ud800", "\\udc00", "\\ud800\\u0041", "\\ud800\\ud800", "\\x", "\\u12", "\\u12g4",
        "\\U0041", "\\", "\u{1}", "\u{1f}", "\t",
    ];

    /// A piece of either kind.
    fn any_piece(r: &mut Rng) -> &'static str {
        let i = r.below(GOOD_PIECES.len() + BAD_PIECES.len());
        GOOD_PIECES
            .get(i)
            .copied()
            .unwrap_or_else(|| BAD_PIECES[i - GOOD_PIECES.len()])
    }

    fn rand_string(r: &mut Rng) -> String {
        let mut s = String::new();
        let good = r.below(3) != 0;
        for _ in 0..r.below(12) {
            s.push_str(if good {
                r.pick(GOOD_PIECES)
            } else {
                any_piece(r)
            });
        }
        // sometimes long plain runs to exercise the 8-byte SWAR path
        if r.below(4) == 0 {
            s.push_str(&"x".repeat(r.below(20)));
            s.push_str(any_piece(r));
        }
        format!("\"{s}\"")
    }

    fn rand_index(r: &mut Rng) -> String {
        if r.below(2) == 0 {
            return r
                .pick(&[
                    "0",
                    "1",
                    "7",
                    "10",
                    "99",
                    "123456789",
                    "999999999",
                    "100000000",
                ])
                .to_owned();
        }
        r.pick(&[
            "0",
            "1",
            "9",
            "10",
            "00",
            "01",
            "-0",
            "-1",
            "0.0",
            "1e2",
            "1E2",
            "0e0",
            "123456789",
            "999999999",
            "1000000000",
            "4294967296",
            "18446744073709551615",
            "18446744073709551616",
            "99999999999999999999",
            "1.5",
            "\"0\"",
            "null",
            "true",
            " 0",
            "0 ",
            "+1",
            "0x1",
            "[0]",
        ])
        .to_owned()
    }

    /// The keys of a small event around the deltas: a block's stop, the
    /// message's, with their fields or others.
    fn small_event(r: &mut Rng, clean: bool) -> Vec<String> {
        let mut ev: Vec<String> = vec![r
            .pick(&[
                "\"type\":\"content_block_stop\"",
                "\"type\":\"content_block_stop\"",
                "\"type\":\"message_stop\"",
                "\"type\":\"content_block_delta\"",
                "\"type\":\"message_delta\"",
            ])
            .to_owned()];
        if r.below(3) != 0 {
            ev.push(format!("\"index\":{}", rand_index(r)));
        }
        if !clean && r.below(4) == 0 {
            ev.push(
                r.pick(&[
                    "\"index\":0",
                    "\"type\":\"message_stop\"",
                    "\"type\":\"content_block_stop\"",
                    "\"x\":{}",
                    "\"delta\":{}",
                    "\"delta\":{\"type\":\"text_delta\",\"text\":\"a\"}",
                ])
                .to_owned(),
            );
        }
        if r.below(2) == 0 {
            ev.reverse();
        }
        ev
    }

    fn rand_line(r: &mut Rng) -> String {
        let clean = r.below(2) == 0;
        let kinds = [
            ("text_delta", "text"),
            ("thinking_delta", "thinking"),
            ("input_json_delta", "partial_json"),
            ("signature_delta", "signature"),
        ];
        let (dk, df) = kinds[r.below(4)];
        let mut delta: Vec<String> = vec![
            format!("\"type\":\"{dk}\""),
            format!("\"{df}\":{}", rand_string(r)),
        ];
        if !clean && r.below(6) == 0 {
            let (k2, f2) = kinds[r.below(4)];
            delta.push(if r.below(2) == 0 {
                format!("\"type\":\"{k2}\"")
            } else {
                format!("\"{f2}\":{}", rand_string(r))
            });
        }
        if !clean && r.below(10) == 0 {
            delta.push(format!(
                "\"{df}\":{}",
                r.pick(&["null", "5", "{}", "[]", "true"])
            ));
        }
        if !clean && r.below(12) == 0 {
            delta.remove(r.below(delta.len()));
        }
        if r.below(2) == 0 {
            delta.reverse();
        }
        let delta_obj = if !clean && r.below(30) == 0 {
            r.pick(&["null", "7", "\"x\"", "[]", "{}"]).to_owned()
        } else {
            format!("{{{}}}", delta.join(","))
        };
        let mut ev: Vec<String> = vec![
            if clean {
                "\"type\":\"content_block_delta\""
            } else {
                r.pick(&[
                    "\"type\":\"content_block_delta\"",
                    "\"type\":\"content_block_delta\"",
                    "\"type\":\"content_block_delta\"",
                    "\"type\":\"content_block_stop\"",
                    "\"type\":null",
                ])
            }
            .to_owned(),
            format!("\"index\":{}", rand_index(r)),
            format!("\"delta\":{delta_obj}"),
        ];
        if !clean && r.below(8) == 0 {
            ev.push(
                r.pick(&[
                    "\"type\":\"content_block_delta\"",
                    "\"type\":\"ping\"",
                    "\"index\":1",
                    "\"index\":0",
                    "\"delta\":{\"type\":\"text_delta\",\"text\":\"dup\"}",
                    "\"extra\":1",
                ])
                .to_owned(),
            );
        }
        if !clean && r.below(10) == 0 {
            ev.remove(r.below(ev.len()));
        }
        // shuffle event keys
        for k in (1..ev.len()).rev() {
            let j = r.below(k + 1);
            ev.swap(k, j);
        }
        if r.below(5) == 0 {
            ev = small_event(r, clean);
        }
        let mut tail: Vec<String> = Vec::new();
        for key in ["session_id", "parent_tool_use_id", "uuid", "api_message_id"] {
            for _ in 0..if clean {
                [1, 1, 0][r.below(3)]
            } else {
                [1, 1, 1, 0, 2][r.below(5)]
            } {
                let v = match r.below(5) + clean as usize {
                    0 => "null".to_owned(),
                    1 => r.pick(&["5", "true", "{}", "[]", "\"\""]).to_owned(),
                    5 => "null".to_owned(),
                    _ => rand_string(r),
                };
                tail.push(format!("\"{key}\":{v}"));
            }
        }
        if !clean && r.below(10) == 0 {
            tail.push(
                r.pick(&[
                    "\"type\":\"stream_event\"",
                    "\"type\":\"x\"",
                    "\"event\":{\"type\":\"ping\"}",
                    "\"x\":1",
                ])
                .to_owned(),
            );
        }
        for k in (1..tail.len()).rev() {
            let j = r.below(k + 1);
            tail.swap(k, j);
        }
        let mut l = String::from("{\"type\":\"stream_event\",\"event\":{");
        l.push_str(&ev.join(","));
        l.push('}');
        for t in &tail {
            l.push(',');
            l.push_str(t);
        }
        l.push('}');
        l
    }

    const FRAGS: &[&str] = &[
        " ",
        "\n",
        "\t",
        "\r",
        ",",
        "}",
        "{",
        "\"",
        "\\",
        ":",
        "null",
        "0",
        "-",
        ".",
        "e",
        "\\u",
        "\\ud800",
        "\u{0}",
        "é",
        "🦀",
        ",\"uuid\":\"x\"",
        ",\"x\":1",
        "}}",
        "\"type\":",
        "]",
        "\u{feff}",
    ];

    fn mutate(r: &mut Rng, l: &str) -> String {
        let mut b: Vec<u8> = l.as_bytes().to_vec();
        for _ in 0..1 + r.below(3) {
            let at = r.below(b.len() + 1);
            match r.below(5) {
                0 if at < b.len() => {
                    b.remove(at);
                }
                1 => {
                    let f = r.pick(FRAGS).as_bytes().to_vec();
                    b.splice(at..at, f);
                }
                2 if at < b.len() => {
                    b[at] = [
                        b'"', b'\\', b',', b'}', b'{', b':', b'0', b'1', b'a', b' ', 0x1f, 0x7f,
                        b'u', b'n',
                    ][r.below(14)];
                }
                3 => b.truncate(at),
                _ => {
                    if at < b.len() {
                        let end = (at + 1 + r.below(20)).min(b.len());
                        let seg = b[at..end].to_vec();
                        let to = r.below(b.len() + 1);
                        b.splice(to..to, seg);
                    }
                }
            }
        }
        String::from_utf8_lossy(&b).into_owned()
    }

    /// Random lines (clean ones, and ones with duplicate keys, odd numbers,
    /// bad escapes, wrong types), each also mutated: the fast path declines
    /// or agrees. `FAST_SEED` and `FAST_N` run it longer.
    #[test]
    fn random_lines_decode_alike() {
        let mut r = Rng(std::env::var("FAST_SEED")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0x9e3779b97f4a7c15));
        let n: usize = std::env::var("FAST_N")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(10_000);
        let (mut some, mut total) = (0usize, 0usize);
        for _ in 0..n {
            let l = rand_line(&mut r);
            total += 1;
            if agree(&l).is_some() {
                some += 1;
            }
            for _ in 0..3 {
                let m = mutate(&mut r, &l);
                total += 1;
                if agree(&m).is_some() {
                    some += 1;
                }
            }
        }
        assert!(
            some > total / 200,
            "the fast path took only {some} of {total}"
        );
    }

    /// Every single-byte edit (and some fragments) at every position of a
    /// few valid lines: the fast path declines or agrees.
    #[test]
    fn every_single_edit_decodes_alike() {
        let bases = [
            r#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi\n"}},"session_id":"s","parent_tool_use_id":null,"uuid":"u","api_message_id":"m"}"#,
            r#"{"type":"stream_event","event":{"delta":{"text":"a\u00e9\ud83d\ude00bcdefghij","type":"text_delta"},"index":10,"type":"content_block_delta"},"uuid":"u","parent_tool_use_id":"t"}"#,
            r#"{"type":"stream_event","event":{"index":7,"delta":{"partial_json":"{\"k\":1}","type":"input_json_delta"},"type":"content_block_delta"}}"#,
            r#"{"type":"stream_event","event":{"type":"content_block_stop","index":0},"session_id":"s","parent_tool_use_id":null,"uuid":"u","api_message_id":"m"}"#,
            r#"{"type":"stream_event","event":{"type":"message_stop"},"session_id":"s","parent_tool_use_id":null,"uuid":"u","api_message_id":"m"}"#,
        ];
        let mut fr: Vec<String> = (0u8..128).map(|c| (c as char).to_string()).collect();
        for f in [
            "é",
            "🦀",
            "\u{2028}",
            "null",
            "\\u0041",
            "\\ud800",
            "\\udc00",
            ",\"uuid\":\"x\"",
            ",\"uuid\":null",
            ",\"session_id\":\"x\"",
            ",\"index\":0",
            ",\"type\":\"text_delta\"",
            ",\"text\":\"y\"",
            ",\"type\":\"content_block_delta\"",
            ",\"delta\":{\"type\":\"text_delta\",\"text\":\"z\"}",
            "00",
            "\"\"",
            "{}",
            "[]",
        ] {
            fr.push(f.to_owned());
        }
        let mut some = 0;
        let mut n = 0;
        for base in bases {
            assert!(agree(base).is_some(), "{base}");
            let b = base.as_bytes();
            for at in 0..=b.len() {
                if !base.is_char_boundary(at) {
                    continue;
                }
                // deletion of 1..4 bytes
                for len in 1..5 {
                    if at + len <= b.len() && base.is_char_boundary(at + len) {
                        let l = format!("{}{}", &base[..at], &base[at + len..]);
                        n += 1;
                        if agree(&l).is_some() {
                            some += 1;
                        }
                    }
                }
                // truncation
                let l = &base[..at];
                n += 1;
                if agree(l).is_some() {
                    some += 1;
                }
                for f in &fr {
                    let ins = format!("{}{}{}", &base[..at], f, &base[at..]);
                    n += 1;
                    if agree(&ins).is_some() {
                        some += 1;
                    }
                    if at < b.len() {
                        let mut end = at + 1;
                        while !base.is_char_boundary(end) {
                            end += 1;
                        }
                        let rep = format!("{}{}{}", &base[..at], f, &base[end..]);
                        n += 1;
                        if agree(&rep).is_some() {
                            some += 1;
                        }
                    }
                }
            }
        }
        assert!(some > 0 && n > 10_000, "{some} of {n}");
    }

    /// What a run did with a line that may continue it, without a shape:
    /// [`text_delta_into`], then the run's test that the line is of its
    /// block (its index, session and message), the text cut back if not.
    fn continues_by_parsing(first: &TextDelta<'_>, line: &str, out: &mut String) -> bool {
        let before = out.len();
        match text_delta_into(line, out) {
            Some(d)
                if d.index == first.index
                    && d.session_id == first.session_id
                    && d.api_message_id == first.api_message_id =>
            {
                true
            }
            Some(_) => {
                out.truncate(before);
                false
            }
            None => false,
        }
    }

    /// The shape's answer, checked against the parse's: where the shape
    /// takes a line, so does the parse, with the same text after what
    /// `out` held; where it declines, `out` is as it was.
    fn shape_agrees(first: &TextDelta<'_>, line: &str) -> bool {
        let mut shape = DeltaShape::default();
        shape.set(first);
        let mut by_shape = String::from("held");
        let took = shape.text_into(line, &mut by_shape);
        if !took {
            assert_eq!(by_shape, "held", "{line}");
            return false;
        }
        let mut by_parse = String::from("held");
        assert!(
            continues_by_parsing(first, line, &mut by_parse),
            "the shape took {line}, the parse did not"
        );
        assert_eq!(by_shape, by_parse, "{line}");
        true
    }

    const FIRST: TextDelta<'static> = TextDelta {
        index: 0,
        session_id: Some("s-1"),
        uuid: Some("u-1"),
        api_message_id: Some("msg_1"),
    };

    fn cli_line(index: &str, text: &str, sid: &str, uuid: &str, mid: &str) -> String {
        format!(
            r#"{{"type":"stream_event","event":{{"type":"content_block_delta","index":{index},"delta":{{"type":"text_delta","text":{text}}}}},"session_id":{sid},"parent_tool_use_id":null,"uuid":{uuid},"api_message_id":{mid}}}"#
        )
    }

    #[test]
    fn the_cli_s_next_delta_of_a_block_takes_the_shape() {
        for text in [r#""Hi""#, r#""""#, r#""a\nb \"q\" \u00e9 \ud83d\ude00 日""#] {
            let l = cli_line("0", text, r#""s-1""#, r#""u-2""#, r#""msg_1""#);
            assert!(shape_agrees(&FIRST, &l), "{l}");
        }
        let mut shape = DeltaShape::default();
        shape.set(&FIRST);
        let mut out = String::from(">");
        let l = cli_line("0", r#""a\tb""#, r#""s-1""#, r#""u-2""#, r#""msg_1""#);
        assert!(shape.text_into(&l, &mut out));
        assert_eq!(out, ">a\tb");
        // another block, message or session; the uuid escaped, a sub-agent's,
        // a field more: declined (the parse reads it)
        for l in [
            cli_line("1", r#""Hi""#, r#""s-1""#, r#""u-2""#, r#""msg_1""#),
            cli_line("0", r#""Hi""#, r#""s-1""#, r#""u-2""#, r#""msg_2""#),
            cli_line("0", r#""Hi""#, r#""s-2""#, r#""u-2""#, r#""msg_1""#),
            cli_line("0", r#""Hi""#, r#""s-1""#, r#""u\u0032""#, r#""msg_1""#),
            cli_line("0", r#""Hi""#, r#""s-1""#, "null", r#""msg_1""#),
            cli_line("0", r#""Hi""#, r#""s-1""#, r#""u-2""#, r#""msg_1""#)
                .replace("null", r#""toolu_1""#),
            cli_line("0", r#""Hi""#, r#""s-1""#, r#""u-2""#, r#""msg_1""#)
                .replace(r#","uuid""#, r#","ttft_ms":3,"uuid""#),
            cli_line("0", r#""\ud800""#, r#""s-1""#, r#""u-2""#, r#""msg_1""#),
        ] {
            assert!(!shape_agrees(&FIRST, &l), "took {l}");
        }
        // a run whose first line lacks an id has no shape
        for first in [
            TextDelta {
                session_id: None,
                ..FIRST
            },
            TextDelta {
                api_message_id: None,
                ..FIRST
            },
        ] {
            let l = cli_line("0", r#""Hi""#, r#""s-1""#, r#""u-2""#, r#""msg_1""#);
            assert!(!shape_agrees(&first, &l));
        }
    }

    use proptest::prelude::{
        any, prop_assert_eq, prop_oneof, proptest, Just, ProptestConfig, Strategy,
    };
    use proptest::sample::select;

    /// A JSON string's text: escapes good and bad, raw control characters,
    /// non-ASCII, plain runs.
    fn json_string() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            6 => select(GOOD_PIECES).prop_map(str::to_owned),
            1 => select(BAD_PIECES).prop_map(str::to_owned),
            1 => any::<char>().prop_map(String::from),
            1 => "[a-z ]{0,24}",
        ];
        proptest::collection::vec(piece, 0..8).prop_map(|p| format!("\"{}\"", p.concat()))
    }

    /// A value where the CLI writes an id: mostly the run's or another
    /// plain one, sometimes anything.
    fn id_value(ids: &'static [&'static str]) -> impl Strategy<Value = String> {
        prop_oneof![
            8 => select(ids).prop_map(|s| format!("\"{s}\"")),
            1 => Just("null".to_owned()),
            1 => json_string(),
            1 => select(&["5", "{}", "\"\"", "\"s-1\\u0000\""][..]).prop_map(str::to_owned),
        ]
    }

    /// `b` as it is (`how` 3 or 4), cut at `at` (0), with `byte` put in
    /// there (1), or with the byte there taken out (2): a line as a
    /// broken writer or a torn read may give it.
    fn damaged(mut b: Vec<u8>, how: u8, byte: u8, at: proptest::sample::Index) -> String {
        let at = at.index(b.len() + 1);
        match how {
            0 => b.truncate(at),
            1 => b.insert(at, byte),
            2 if at < b.len() => {
                b.remove(at);
            }
            _ => {}
        }
        String::from_utf8_lossy(&b).into_owned()
    }
    /// A line much like the CLI's next delta, cut, or with a byte more or
    /// less (as text: a byte that is not UTF-8 is replaced).
    fn near_cli_line() -> impl Strategy<Value = String> {
        let index = prop_oneof![
            8 => select(&["0", "1", "12"][..]),
            1 => select(&["00", "-0", "1e0", "1.0", " 0", "\"0\"", "999999999", "1000000000"][..]),
        ];
        (
            index,
            json_string(),
            id_value(&["s-1", "s-2", ""]),
            id_value(&["u-1", "u-2", "s-1"]),
            id_value(&["msg_1", "msg_2"]),
            (0..5u8, any::<u8>(), any::<proptest::sample::Index>()),
        )
            .prop_map(|(i, text, sid, uuid, mid, (how, byte, at))| {
                damaged(
                    cli_line(i, &text, &sid, &uuid, &mid).into_bytes(),
                    how,
                    byte,
                    at,
                )
            })
    }

    /// The shape's answer for the line at the start of `text` (not split
    /// off), checked against its answer for the line as the reader splits
    /// it off (at the first `\n`, a `\r` before it cut): taken by both or
    /// neither, with the same text after what `out` held; the line's
    /// length and the bytes through its `\n`. Where it declines, `out` is
    /// as it was.
    fn shape_next_agrees(first: &TextDelta<'_>, text: &str) -> bool {
        let mut shape = DeltaShape::default();
        shape.set(first);
        let mut by_next = String::from("held");
        let took = shape.text_into_next(text, &mut by_next);
        let mut by_line = String::from("held");
        let expected = text.find('\n').and_then(|nl| {
            let l = &text[..nl];
            let l = l.strip_suffix('\r').unwrap_or(l);
            shape
                .text_into(l, &mut by_line)
                .then_some((l.len(), nl + 1))
        });
        assert_eq!(took, expected, "{text}");
        assert_eq!(by_next, by_line, "{text}");
        took.is_some()
    }

    #[test]
    fn the_cli_s_next_delta_is_taken_from_the_lines_read() {
        let l = cli_line("0", r#""a\nb ü 日""#, r#""s-1""#, r#""u-2""#, r#""msg_1""#);
        for (end, after) in [("\n", ""), ("\r\n", "x\n"), ("\n", "\n")] {
            let text = format!("{l}{end}{after}");
            assert!(shape_next_agrees(&FIRST, &text), "{text}");
            let mut shape = DeltaShape::default();
            shape.set(&FIRST);
            let mut out = String::from(">");
            let took = shape.text_into_next(&text, &mut out);
            assert_eq!(took, Some((l.len(), l.len() + end.len())));
            assert_eq!(out, ">a\nb ü 日");
        }
        // declined: no end of line yet, another end, something more on the
        // line, a line break in the text
        for text in [
            l.clone(),
            format!("{l}\r"),
            format!("{l}\r\r\n"),
            format!("{l} \n"),
            format!("{l}{l}\n"),
            format!("{}\n", l.replace("a\\nb", "a\nb")),
            // a NUL before it, `type` given twice
            format!("\0{l}\n"),
            format!(
                "{}\n",
                l.replacen(
                    r#"{"type":"stream_event","#,
                    r#"{"type":"stream_event","type":"stream_event","#,
                    1
                )
            ),
        ] {
            assert!(!shape_next_agrees(&FIRST, &text), "{text}");
        }
        // escapes in the text, ended by `\n` or `\r\n`, a line after it: the
        // same text as the line's own parse
        let escaped = cli_line(
            "0",
            r#""\u001b[2J\ud83d\ude00\"\\\/\t""#,
            r#""s-1""#,
            r#""u-2""#,
            r#""msg_1""#,
        );
        for end in ["\n", "\r\n"] {
            let text = format!("{escaped}{end}{l}\n");
            assert!(shape_next_agrees(&FIRST, &text), "{text}");
        }
    }

    /// The run's first line, its ids as the parse may give them.
    fn first_delta() -> impl Strategy<Value = TextDelta<'static>> {
        (
            select(&[0usize, 1, 12, 999_999_999][..]),
            select(&[Some("s-1"), Some("s-2"), Some(""), None, Some("q\"")][..]),
            select(&[Some("msg_1"), Some("msg_2"), None, Some("m\\")][..]),
        )
            .prop_map(|(index, session_id, api_message_id)| TextDelta {
                index,
                session_id,
                uuid: Some("u-1"),
                api_message_id,
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 3000,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        /// Any bytes, from any place in them: the first quote, backslash
        /// or control byte is the byte-by-byte rule's (sixteen at a time,
        /// the last ones beside filler; and eight at a time, as targets
        /// other than x86-64 search).
        #[test]
        fn special_is_the_byte_by_byte_rule(
            bytes in proptest::collection::vec(
                prop_oneof![
                    8 => 0x20u8..=0xff,
                    1 => select(&[b'"', b'\\', 0u8, 0x1f, b'\n', 0x20, 0x7f, 0x80, 0xff][..]),
                ],
                0..200,
            ),
            from in any::<proptest::sample::Index>(),
        ) {
            let from = from.index(bytes.len() + 1);
            let b = &bytes[from..];
            let naive = b.iter().position(|&c| c == b'"' || c == b'\\' || c < 0x20);
            prop_assert_eq!(special(b), naive);
            // the eight-byte search other targets use, held to the same rule
            prop_assert_eq!(special_by_words(b), naive);
        }

        /// Any line near the CLI's, for any first line of a run: the shape
        /// declines it, or takes it as the parse and the run's test do.
        #[test]
        fn a_line_the_shape_takes_is_what_the_parse_reads(
            first in first_delta(),
            line in near_cli_line(),
        ) {
            shape_agrees(&first, &line);
        }

        /// The same for the lines of the other generator (keys in any
        /// order, fields repeated or missing, other events).
        #[test]
        fn a_line_of_any_shape_is_declined_or_read_alike(
            first in first_delta(),
            seed in any::<u64>(),
        ) {
            let mut r = Rng(seed | 1);
            let l = rand_line(&mut r);
            shape_agrees(&first, &l);
            shape_agrees(&first, &mutate(&mut r, &l));
        }

        /// A line near the CLI's, not split off, any end after it (none,
        /// `\n`, `\r\n`, `\r`...) and any lines after that: the shape
        /// takes it from the lines read exactly where it takes it once split
        /// off, with the same text.
        #[test]
        fn a_line_the_shape_takes_from_the_lines_read_is_the_line_it_takes(
            first in first_delta(),
            line in near_cli_line(),
            end in select(&["\n", "\r\n", "", "\r", "\r\r\n", " \n", "\n\n"][..]),
            after in select(&["", "{\"type\":\"x\"}\n", "é\n", "\r\n"][..]),
        ) {
            shape_next_agrees(&first, &format!("{line}{end}{after}"));
        }
    }

    /// The `assistant` reader must decline, or agree with the general
    /// decoder.
    fn assistant_agrees(line: &str) -> bool {
        let Some(fast) = assistant(line) else {
            return false;
        };
        match Message::parse_general(line) {
            Ok(Message::Assistant(g)) => assert_eq!(*g, fast, "{line}"),
            other => panic!("the assistant reader took {line}, the general decoder gave {other:?}"),
        }
        true
    }

    /// An `assistant` line as the CLI 2.1 writes it.
    const CLI_ASSISTANT: &str = r#"{"type":"assistant","message":{"model":"claude-opus-5-5","id":"msg_01X","type":"message","role":"assistant","content":[{"type":"text","text":"Hello\n\"there\" \u00e9 \ud83d\ude00"},{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls -la","n":1.5}}],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":3,"cache_creation_input_tokens":5,"cache_read_input_tokens":0,"cache_creation":{"ephemeral_5m_input_tokens":5,"ephemeral_1h_input_tokens":0},"output_tokens":1,"service_tier":"standard"},"context_management":null},"parent_tool_use_id":null,"session_id":"0b7a4c3e-5a52-4d4c-9bd8-2f1c47a6c0b1","uuid":"5f0c8a2e-7b1d-4f3a-8c6e-1d2b3a4c5d6e","timestamp":"2026-11-29T23:28:03.596Z","request_id":"req_1"}"#;

    #[test]
    fn the_cli_s_assistant_line_is_read_as_the_general_decoder_reads_it() {
        assert!(assistant_agrees(CLI_ASSISTANT));
        let m = assistant(CLI_ASSISTANT).unwrap();
        assert_eq!(m.message.id.as_deref(), Some("msg_01X"));
        assert_eq!(m.message.content.len(), 2);
        assert!(
            matches!(&m.message.content[0], ContentBlock::Text(t) if t.text == "Hello\n\"there\" é 😀")
        );
        assert_eq!(m.message.usage.as_ref().map(|u| u.input_tokens), Some(3));
        assert_eq!(m.extra.get("request_id"), Some(&Value::from("req_1")));
        assert!(!m.extra.contains_key("type"));
        assert_eq!(m.message.extra.get("type"), Some(&Value::from("message")));
        for l in [
            CLI_ASSISTANT.replace(
                r#""content":[{"type":"text""#,
                r#""content":[{"type":"thinking","thinking":"hm"},{"type":"text""#,
            ),
            CLI_ASSISTANT.replace(r#""usage":{"#, r#""usage":null,"x":{"#),
            CLI_ASSISTANT.replace(r#""usage":{"#, r#""usage":[1],"x":{"#),
            CLI_ASSISTANT.replace(r#""stop_reason":null"#, r#""stop_reason":"end_turn""#),
            CLI_ASSISTANT.replace(r#","parent_tool_use_id":null"#, ""),
            CLI_ASSISTANT.replace(r#""content":["#, r#""content":[],"c2":["#),
        ] {
            assert!(assistant_agrees(&l), "declined {l}");
        }
        // declined: the general decoder decides (a known field twice or of
        // another type, whitespace, a lone surrogate, no message)
        for l in [
            CLI_ASSISTANT.replace(
                r#""role":"assistant","#,
                r#""role":"assistant","role":"x","#,
            ),
            CLI_ASSISTANT.replace(r#""id":"msg_01X""#, r#""id":5"#),
            CLI_ASSISTANT.replace(r#""request_id""#, r#""timestamp":1,"request_id""#),
            CLI_ASSISTANT.replace(r#","uuid""#, r#", "uuid""#),
            CLI_ASSISTANT.replace(r#"\ud83d\ude00"#, r#"\ud83d"#),
            CLI_ASSISTANT.replace(r#""message":"#, r#""msg":"#),
            CLI_ASSISTANT.replace(r#""content":["#, r#""content":null,"c":["#),
            format!("{CLI_ASSISTANT} "),
            CLI_ASSISTANT[..CLI_ASSISTANT.len() - 1].to_owned(),
            // nested deeper than the reader reads alone
            CLI_ASSISTANT.replace(
                r#""request_id":"req_1""#,
                &format!(r#""x":{}1{}"#, "[".repeat(65), "]".repeat(65)),
            ),
            // longer than the reader takes: the general decoder's
            CLI_ASSISTANT.replace("Hello", &"a".repeat(ASSISTANT_MAX)),
        ] {
            assert!(
                assistant(&l).is_none(),
                "took {}",
                l.chars().take(200).collect::<String>()
            );
        }
        let deep = CLI_ASSISTANT.replace(
            r#""request_id":"req_1""#,
            &format!(r#""x":{}1{}"#, "[".repeat(64), "]".repeat(64)),
        );
        assert!(assistant_agrees(&deep));
        let long = CLI_ASSISTANT.replace("Hello", &"a".repeat(ASSISTANT_MAX));
        assert!(matches!(
            Message::parse_str(&long),
            Ok(Message::Assistant(_))
        ));
    }

    /// A JSON string of good pieces only.
    fn good_string() -> impl Strategy<Value = String> {
        proptest::collection::vec(select(GOOD_PIECES), 0..8)
            .prop_map(|p| format!("\"{}\"", p.concat()))
    }

    /// A JSON value of many kinds, as text (some not JSON at all).
    fn any_json() -> impl Strategy<Value = String> {
        prop_oneof![
            3 => good_string(),
            1 => json_string(),
            6 => select(&[
                "null", "true", "false", "0", "-0", "1.5", "1e400", "-1", "3", "1E2",
                "18446744073709551615", "18446744073709551616", "-9223372036854775809",
                "12345678901234567890123", "[]", "{}", "[1,{\"a\":[\"]\"]}]",
                "{\"a\":\"}\",\"b\":[1,2]}", "{\"a\":1,\"a\":2}", "{\"input_tokens\":7}",
                "{\"input_tokens\":-1,\"output_tokens\":2}", "{\"input_tokens\":1.5}",
                "{\"input_tokens\":1,\"cache_creation\":{\"ephemeral_1h_input_tokens\":4}}",
                "{\"a\" :1}", " 1", "1 ", "\"a\\\"b\"", "[[[]]]",
                "{\"type\":\"text\",\"text\":\"x\"}",
            ][..]).prop_map(str::to_owned),
            1 => select(&[
                "[1,]", "tru", "{\"a\":\"\\ud800\"}", "01", "]", "{", "\"", "[}", "{]", "1.",
            ][..]).prop_map(str::to_owned),
        ]
    }

    /// A content block: mostly text as the CLI writes it, or anything.
    fn any_block() -> impl Strategy<Value = String> {
        prop_oneof![
            6 => good_string().prop_map(|t| format!(r#"{{"type":"text","text":{t}}}"#)),
            1 => json_string().prop_map(|t| format!(r#"{{"type":"text","text":{t}}}"#)),
            1 => (json_string(), any_json())
                .prop_map(|(t, v)| format!(r#"{{"type":"text","text":{t},"citations":{v}}}"#)),
            1 => json_string().prop_map(|t| format!(r#"{{"text":{t},"type":"text"}}"#)),
            1 => any_json().prop_map(|v| format!(r#"{{"type":"text","text":{v}}}"#)),
            1 => any_json().prop_map(|v| format!(r#"{{"type":"tool_use","id":"t","name":"Bash","input":{v}}}"#)),
            1 => any_json(),
        ]
    }

    fn member(
        key: &'static str,
        v: impl Strategy<Value = String>,
    ) -> impl Strategy<Value = String> {
        v.prop_map(move |v| format!("\"{key}\":{v}"))
    }

    /// [`member`], sometimes with JSON's white space around the value.
    fn spaced_member(
        key: &'static str,
        v: impl Strategy<Value = String>,
    ) -> impl Strategy<Value = String> {
        let ws = prop_oneof![6 => Just(""), 1 => Just(" "), 1 => Just("\n\t"), 1 => Just("\r ")];
        (v, ws.clone(), ws).prop_map(move |(v, a, b)| format!("\"{key}\":{a}{v}{b}"))
    }

    /// An id's value: mostly a string.
    fn id_or_any() -> impl Strategy<Value = String> {
        prop_oneof![
            8 => select(&["\"msg_1\"", "\"s-1\"", "\"\"", "\"a\\u00e9\\n\""][..]).prop_map(str::to_owned),
            2 => Just("null".to_owned()),
            1 => json_string(),
            1 => any_json(),
        ]
    }

    /// The members of an object: `fields` mostly once each, sometimes
    /// left out or twice, unknown ones too, mostly in the given order.
    fn object(
        fields: Vec<proptest::strategy::BoxedStrategy<String>>,
    ) -> impl Strategy<Value = String> {
        let n = fields.len();
        let count = prop_oneof![12 => Just(1usize), 1 => Just(0), 1 => Just(2)];
        (
            fields,
            proptest::collection::vec(count, n),
            proptest::collection::vec(
                (
                    select(&["x", "timestamp", "type", "extra", "request_id"][..]),
                    any_json(),
                ),
                0..3,
            ),
            prop_oneof![4 => Just(false), 1 => Just(true)],
        )
            .prop_flat_map(|(vals, counts, extra, shuffle)| {
                let mut m = Vec::new();
                for (v, c) in vals.into_iter().zip(counts) {
                    for _ in 0..c {
                        m.push(v.clone());
                    }
                }
                m.extend(extra.into_iter().map(|(k, v)| format!("\"{k}\":{v}")));
                if shuffle {
                    Just(m).prop_shuffle().boxed()
                } else {
                    Just(m).boxed()
                }
            })
            .prop_map(|m| format!("{{{}}}", m.join(",")))
    }

    fn api_message() -> impl Strategy<Value = String> {
        object(vec![
            member("id", id_or_any()).boxed(),
            member("model", id_or_any()).boxed(),
            member("role", id_or_any()).boxed(),
            member(
                "content",
                prop_oneof![
                    6 => proptest::collection::vec(any_block(), 0..4)
                        .prop_map(|b| format!("[{}]", b.join(","))),
                    1 => any_json(),
                ],
            )
            .boxed(),
            member("stop_reason", id_or_any()).boxed(),
            member("usage", any_json()).boxed(),
        ])
    }

    /// A line much like the CLI's `assistant` line, or cut, or with a byte
    /// more or less.
    fn near_assistant_line() -> impl Strategy<Value = String> {
        let top = object(vec![
            member("message", prop_oneof![8 => api_message(), 1 => any_json()]).boxed(),
            member("parent_tool_use_id", id_or_any()).boxed(),
            member("session_id", id_or_any()).boxed(),
            member("uuid", id_or_any()).boxed(),
        ]);
        (
            top,
            (0..12u8, any::<u8>(), any::<proptest::sample::Index>()),
        )
            .prop_map(|(top, (how, byte, at))| {
                // the `type` first, as the CLI writes it
                let mut b = format!("{{\"type\":\"assistant\",{}", &top[1..]).into_bytes();
                if top == "{}" {
                    b = b"{\"type\":\"assistant\"}".to_vec();
                }
                damaged(b, how, byte, at)
            })
    }

    /// The `message_start`, `content_block_start` and `message_delta`
    /// lines as the CLI writes them take the fast path.
    #[test]
    fn the_events_around_the_deltas_take_the_fast_path() {
        let tail = r#","session_id":"s-1","parent_tool_use_id":null,"uuid":"u-1","api_message_id":"msg_1"}"#;
        for event in [
            r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":12,"output_tokens":1}}}"#,
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
            r#"{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"t","name":"Bash","input":{}}}"#,
            r#"{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":9}}"#,
            r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"}}"#,
        ] {
            let l = format!(r#"{{"type":"stream_event","event":{event}{tail}"#);
            assert!(agree(&l).is_some(), "declined {l}");
        }
        // an unknown key, a repeated one, the type not first, no message
        for event in [
            r#"{"type":"message_start","message":{},"x":1}"#,
            r#"{"type":"message_start","message":{},"message":{}}"#,
            r#"{"message":{},"type":"message_start"}"#,
            r#"{"type":"message_start"}"#,
            r#"{"type":"content_block_start","index":01,"content_block":{}}"#,
            r#"{"type":"message_delta","delta":{},"type":"ping"}"#,
        ] {
            let l = format!(r#"{{"type":"stream_event","event":{event}{tail}"#);
            assert!(agree(&l).is_none(), "took {l}");
        }
    }

    /// A `message_delta`'s `delta` with a `type` that is not a string or a
    /// text field given twice (the general decoder keeps it as serde_json's
    /// `Value` reads it: each key's last value): the fast path declines it
    /// or reads the same.
    #[test]
    fn a_message_delta_s_delta_is_read_as_the_general_decoder_reads_it() {
        let tail = r#","session_id":"s-1","parent_tool_use_id":null,"uuid":"u-1","api_message_id":"msg_1"}"#;
        for delta in [
            r#"{"type":1}"#,
            r#"{"type":null,"stop_reason":"end_turn"}"#,
            r#"{"\u0074ype":[]}"#,
            r#"{"text":"a","text":"b"}"#,
            r#"{"text":"a","text":1}"#,
            r#"{"type":"text_delta","text":"a","text":"b"}"#,
            r#"{"thinking":"a","text":"b","thinking":"c"}"#,
            r#"{"type":"text_delta","text":"a"}"#,
            r#"{"type":"text_delta","text":"a","stop_reason":null}"#,
            r#"[{"type":1}]"#,
            r#""end_turn""#,
            r#"null"#,
        ] {
            let l = format!(
                r#"{{"type":"stream_event","event":{{"type":"message_delta","delta":{delta}}}{tail}"#
            );
            agree(&l);
        }
    }

    /// A `delta` much like an object the general decoder reads as a
    /// [`Delta`]: its `type` and text fields of any kind, repeated.
    fn delta_like() -> impl Strategy<Value = String> {
        let key = select(
            &[
                "type",
                "text",
                "thinking",
                "partial_json",
                "signature",
                "stop_reason",
                "\\u0074ype",
            ][..],
        );
        let value = select(
            &[
                "\"text_delta\"",
                "\"thinking_delta\"",
                "\"a\"",
                "\"end_turn\"",
                "1",
                "null",
                "[]",
                "{}",
            ][..],
        );
        proptest::collection::vec((key, value), 0..5).prop_map(|m| {
            let m: Vec<String> = m.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
            format!("{{{}}}", m.join(","))
        })
    }

    /// An `index` as text: mostly one the fast path reads.
    fn index_text() -> impl Strategy<Value = String> {
        select(
            &[
                "0",
                "1",
                "7",
                "12",
                "123456789",
                "1234567890",
                "01",
                "-1",
                "1.0",
                "1e2",
                "4294967296",
                "null",
                "\"0\"",
                "",
            ][..],
        )
        .prop_map(str::to_owned)
    }

    /// A `message_start`, `content_block_start` or `message_delta` line
    /// much like the CLI's (its event's members and the line's in any
    /// order, repeated, missing, unknown, of other kinds), or cut, or with
    /// a byte more or less.
    fn near_framing_line() -> impl Strategy<Value = String> {
        let event = prop_oneof![
            object(vec![spaced_member(
                "message",
                prop_oneof![4 => api_message(), 1 => any_json()]
            )
            .boxed()])
            .prop_map(|o| ("message_start", o)),
            object(vec![
                spaced_member("index", index_text()).boxed(),
                spaced_member("content_block", any_block()).boxed(),
            ])
            .prop_map(|o| ("content_block_start", o)),
            object(vec![
                spaced_member(
                    "delta",
                    prop_oneof![
                        3 => Just(r#"{"stop_reason":"end_turn","stop_sequence":null}"#.to_owned()),
                        1 => any_json(),
                        2 => delta_like(),
                    ],
                )
                .boxed(),
                spaced_member("usage", any_json()).boxed(),
            ])
            .prop_map(|o| ("message_delta", o)),
        ];
        let envelope = object(vec![
            member("session_id", id_or_any()).boxed(),
            member("parent_tool_use_id", id_or_any()).boxed(),
            member("uuid", id_or_any()).boxed(),
            member("api_message_id", id_or_any()).boxed(),
        ]);
        (
            event,
            envelope,
            prop_oneof![6 => Just(true), 1 => Just(false)],
            (0..12u8, any::<u8>(), any::<proptest::sample::Index>()),
        )
            .prop_map(|((kind, members), envelope, first, (how, byte, at))| {
                let kind = format!("\"type\":\"{kind}\"");
                let members = &members[1..members.len() - 1];
                // the `type` first, as the CLI writes it, or last
                let event = match (members.is_empty(), first) {
                    (true, _) => format!("{{{kind}}}"),
                    (false, true) => format!("{{{kind},{members}}}"),
                    (false, false) => format!("{{{members},{kind}}}"),
                };
                let b = match &envelope[1..] {
                    "}" => format!(r#"{{"type":"stream_event","event":{event}}}"#),
                    rest => format!(r#"{{"type":"stream_event","event":{event},{rest}"#),
                };
                damaged(b.into_bytes(), how, byte, at)
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 3000,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        /// Any line near the CLI's `message_start`, `content_block_start`
        /// or `message_delta` line: the fast path declines it, or reads
        /// what the general decoder reads.
        #[test]
        fn an_event_around_the_deltas_is_declined_or_read_as_the_general_decoder_reads_it(
            line in near_framing_line(),
        ) {
            agree(&line);
        }

        /// Any line near the CLI's `assistant` line (fields in any order,
        /// repeated, missing, unknown, of other kinds; blocks of any kind;
        /// numbers of every size; broken JSON): the reader declines it, or
        /// reads what the general decoder reads.
        #[test]
        fn an_assistant_line_read_at_the_byte_level_is_what_the_general_decoder_reads(
            line in near_assistant_line(),
        ) {
            assistant_agrees(&line);
        }
    }

    /// [`text_delta_into`] must decline, or read what the general decoder
    /// reads: the main agent's text delta, its ids as written.
    fn text_delta_agrees(line: &str) -> bool {
        let mut out = String::from("held");
        let Some(d) = text_delta_into(line, &mut out) else {
            assert_eq!(out, "held", "{line}");
            return false;
        };
        let g = match Message::parse_general(line) {
            Ok(Message::StreamEvent(g)) => g,
            other => panic!("text_delta_into took {line}, the general decoder gave {other:?}"),
        };
        let want = StreamEventMessage {
            event: StreamEvent::ContentBlockDelta {
                index: d.index,
                delta: Delta::Text(out[4..].to_owned()),
            },
            parent_tool_use_id: None,
            session_id: d.session_id.map(str::to_owned),
            uuid: d.uuid.map(str::to_owned),
            api_message_id: d.api_message_id.map(str::to_owned),
            extra: Map::new(),
        };
        assert_eq!(*g, want, "{line}");
        true
    }

    /// Every reader at the byte level, on one line: each declines it or
    /// reads what the general decoder reads.
    fn all_agree(line: &str) {
        agree(line);
        text_delta_agrees(line);
        shape_agrees(&FIRST, line);
        for end in ["\n", "\r\n", "\r", ""] {
            shape_next_agrees(&FIRST, &format!("{line}{end}"));
        }
        assistant_agrees(line);
    }

    /// Lines written by hand that a generator may never make: escaped
    /// keys, keys twice or in other orders, ids one byte off, a line cut at
    /// every byte, `\r\n`, a BOM, bytes after the line, NUL and control
    /// bytes and lone or split surrogates in strings, numbers JSON spells
    /// otherwise, text of other kinds, odd blocks in an `assistant` line.
    #[test]
    fn hand_written_lines_are_declined_or_read_alike() {
        let d = cli_line("0", r#""Hi""#, r#""s-1""#, r#""u-2""#, r#""msg_1""#);
        assert!(text_delta_agrees(&d) && shape_agrees(&FIRST, &d));
        let mut lines: Vec<String> = Vec::new();
        for (from, to) in [
            // escaped keys
            (r#""text":"#, r#""\u0074ext":"#),
            (r#""type":"text_delta""#, r#""\u0074ype":"text_delta""#),
            (r#""index":"#, r#""\u0069ndex":"#),
            (r#""delta":"#, r#""d\u0065lta":"#),
            (r#""session_id":"#, r#""session\u005fid":"#),
            (r#""uuid":"#, r#""\u0075uid":"#),
            (r#""api_message_id":"#, r#""api_message_i\u0064":"#),
            (r#""parent_tool_use_id":"#, r#""parent_tool_use_\u0069d":"#),
            (
                r#"{"type":"stream_event""#,
                r#"{"\u0074ype":"stream_event""#,
            ),
            // escaped values
            (r#""text_delta""#, r#""text\u005fdelta""#),
            (r#""content_block_delta""#, r#""content_block\u005fdelta""#),
            (r#""stream_event""#, r#""stream\u005fevent""#),
            (r#""s-1""#, r#""s\u002d1""#),
            (r#""msg_1""#, r#""msg\u005f1""#),
            // keys twice
            (r#""text":"Hi""#, r#""text":"Hi","text":"Ho""#),
            (r#""text":"Hi""#, r#""text":"Hi","text":null"#),
            (r#""text":"Hi""#, r#""text":null,"text":"Hi""#),
            (r#""text":"Hi""#, r#""text":5,"text":"Hi""#),
            (
                r#""type":"text_delta""#,
                r#""type":"text_delta","type":"text_delta""#,
            ),
            (
                r#""type":"text_delta""#,
                r#""type":"thinking_delta","type":"text_delta""#,
            ),
            (r#""type":"text_delta""#, r#""type":1,"type":"text_delta""#),
            (r#""index":0"#, r#""index":0,"index":0"#),
            (r#""index":0"#, r#""index":1,"index":0"#),
            (r#""index":0"#, r#""index":"x","index":0"#),
            (r#""uuid":"u-2""#, r#""uuid":"u-2","uuid":"u-2""#),
            (
                r#""session_id":"s-1""#,
                r#""session_id":"s-2","session_id":"s-1""#,
            ),
            (
                r#""api_message_id":"msg_1""#,
                r#""api_message_id":"msg_1","api_message_id":"msg_1""#,
            ),
            (
                r#""parent_tool_use_id":null"#,
                r#""parent_tool_use_id":"t","parent_tool_use_id":null"#,
            ),
            (
                r#","session_id""#,
                r#","event":{"type":"ping"},"session_id""#,
            ),
            (r#","session_id""#, r#","type":"stream_event","session_id""#),
            (r#","session_id""#, r#","type":"assistant","session_id""#),
            (r#","session_id""#, r#","type":null,"session_id""#),
            // the event's and the delta's `type` of another kind
            (r#""type":"text_delta""#, r#""type":1"#),
            (r#""type":"text_delta""#, r#""type":null"#),
            (r#""type":"text_delta""#, r#""type":["text_delta"]"#),
            (r#""type":"content_block_delta""#, r#""type":1"#),
            (r#""type":"content_block_delta""#, r#""type":null"#),
            (r#""type":"content_block_delta""#, r#""type":{}"#),
            // keys in other orders
            (
                r#""index":0,"delta":{"type":"text_delta","text":"Hi"}"#,
                r#""delta":{"text":"Hi","type":"text_delta"},"index":0"#,
            ),
            (
                r#""session_id":"s-1","parent_tool_use_id":null"#,
                r#""parent_tool_use_id":null,"session_id":"s-1""#,
            ),
            (
                r#""uuid":"u-2","api_message_id":"msg_1""#,
                r#""api_message_id":"msg_1","uuid":"u-2""#,
            ),
            // ids one byte off the run's
            (r#""s-1""#, r#""s-2""#),
            (r#""s-1""#, r#""s-1 ""#),
            (r#""s-1""#, r#""s-""#),
            (r#""s-1""#, r#""S-1""#),
            (r#""s-1""#, r#""s-1\u0000""#),
            (r#""msg_1""#, r#""msg_1x""#),
            (r#""msg_1""#, r#""msg_""#),
            (r#""msg_1""#, r#""msg_2""#),
            (r#""u-2""#, r#""""#),
            (r#""u-2""#, r#""u-2\"""#),
            // control bytes, NUL, lone and split surrogates in strings
            (r#""Hi""#, "\"H\u{0}i\""),
            (r#""Hi""#, "\"H\u{1f}i\""),
            (r#""Hi""#, "\"H\u{7f}i\""),
            (r#""Hi""#, "\"H\u{85}i\""),
            (r#""Hi""#, "\"H\u{2028}i\""),
            (r#""Hi""#, r#""H\u0000i""#),
            (r#""Hi""#, r#""\ud800""#),
            (r#""Hi""#, r#""\udfff""#),
            (r#""Hi""#, r#""\ud800\ud800""#),
            (r#""Hi""#, r#""\udc00\ud800""#),
            (r#""Hi""#, r#""\ud83dx\ude00""#),
            (r#""Hi""#, r#""\ud83d\u0020\ude00""#),
            (r#""Hi""#, r#""\ud83d\ude00""#),
            (r#""Hi""#, r#""\uD83D\uDE00""#),
            (r#""Hi""#, r#""\ud83d\\ude00""#),
            (r#""Hi""#, r#""\ud83d""#),
            (r#""Hi""#, r#""H\""#),
            (r#""Hi""#, r#""H\u00""#),
            (r#""Hi""#, r#""\u00e9\u0301""#),
            (r#""s-1""#, "\"s\u{0}1\""),
            (r#""u-2""#, "\"u\u{1}2\""),
            (r#""u-2""#, r#""\ud800""#),
            (r#""msg_1""#, r#""\ud800""#),
            // numbers JSON spells otherwise
            (r#""index":0"#, r#""index":0.0"#),
            (r#""index":0"#, r#""index":-0"#),
            (r#""index":0"#, r#""index":1e0"#),
            (r#""index":0"#, r#""index":0e0"#),
            (r#""index":0"#, r#""index":00"#),
            (r#""index":0"#, r#""index":-1"#),
            (r#""index":0"#, r#""index":18446744073709551615"#),
            (r#""index":0"#, r#""index":18446744073709551616"#),
            (r#""index":0"#, r#""index":999999999"#),
            (r#""index":0"#, r#""index":1000000000"#),
            (r#""index":0"#, r#""index":1e400"#),
            (r#""index":0"#, r#""index":"0""#),
            (r#""index":0"#, r#""index":null"#),
            // text of another kind
            (r#""text":"Hi""#, r#""text":null"#),
            (r#""text":"Hi""#, r#""text":5"#),
            (r#""text":"Hi""#, r#""text":["Hi"]"#),
            (r#""text":"Hi""#, r#""text":{"text":"Hi"}"#),
            (r#""text":"Hi""#, r#""text":true"#),
            (r#""text":"Hi""#, r#""thinking":"Hi""#),
            // fields more
            (r#""text":"Hi""#, r#""text":"Hi","citations":null"#),
            (r#""index":0"#, r#""index":0,"x":1"#),
            (
                r#""api_message_id":"msg_1""#,
                r#""api_message_id":"msg_1","x":1"#,
            ),
            // whitespace
            (r#""index":0"#, r#""index": 0"#),
            (r#""text":"Hi""#, "\"text\":\t\"Hi\""),
        ] {
            assert!(d.contains(from), "{from}");
            lines.push(d.replacen(from, to, 1));
        }
        // the line's end and what comes around it
        for (before, after) in [
            ("\u{feff}", ""),
            ("", "\u{feff}"),
            (" ", ""),
            ("", " "),
            ("", "\r"),
            ("", "\r\n"),
            ("", "\0"),
            ("", "x"),
            ("", "}"),
            ("", "\n"),
            ("", ",{}"),
            ("", &d),
        ] {
            lines.push(format!("{before}{d}{after}"));
        }
        // cut at every byte, or a byte taken out at every byte
        for at in 0..d.len() {
            lines.push(d[..at].to_owned());
            lines.push(format!("{}{}", &d[..at], &d[at + 1..]));
        }
        // other events of the same run, the sub-agent's delta
        lines.push(d.replace("content_block_delta", "content_block_stop"));
        lines.push(d.replace(
            r#""parent_tool_use_id":null"#,
            r#""parent_tool_use_id":"t""#,
        ));
        lines.push(d.replace(r#","parent_tool_use_id":null"#, ""));
        lines.push(d.replace(r#","session_id":"s-1""#, ""));
        lines.push(d.replace(r#","api_message_id":"msg_1""#, ""));
        lines.push(d.replace(r#","uuid":"u-2""#, ""));
        // the `assistant` line: odd blocks, nested content, odd input
        let a = CLI_ASSISTANT;
        let tool = r#"{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls -la","n":1.5}}"#;
        assert!(a.contains(tool));
        for block in [
            r#"{"type":"tool_use","id":"toolu_1","name":"Bash","input":null}"#,
            r#"{"type":"tool_use","id":"toolu_1","name":"Bash","input":"ls"}"#,
            r#"{"type":"tool_use","id":"toolu_1","name":"Bash","input":[]}"#,
            r#"{"type":"tool_use","id":"toolu_1","name":"Bash","input":1e400}"#,
            r#"{"type":"tool_use","id":"toolu_1","name":"Bash","input":-0}"#,
            r#"{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"a":"\ud800"}}"#,
            r#"{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"a":1,"a":2}}"#,
            r#"{"type":"tool_use","id":"toolu_1","name":"Bash","input":{},"input":{"b":1}}"#,
            r#"{"type":"tool_use","id":"toolu_1","name":"Bash"}"#,
            r#"{"type":"tool_use","id":5,"name":"Bash","input":{}}"#,
            r#"{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"\u0061":"\u0000"}}"#,
            r#"{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"k":"]"},"x":"}"}"#,
            r#"{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"x"}]}"#,
            r#"{"type":"tool_result","tool_use_id":"t","content":[{"type":"tool_result","content":[{"type":"text","text":"x"}]}]}"#,
            r#"{"type":"text","text":"a","text":"b"}"#,
            r#"{"type":"text","text":"a","type":"thinking"}"#,
            r#"{"type":"text","text":null}"#,
            r#"{"type":"text","text":5}"#,
            r#"{"type":"text","text":"a","content":[{"type":"text","text":"b"}]}"#,
            r#"{"\u0074ype":"text","text":"a"}"#,
            r#"{"type":"text","\u0074ext":"a"}"#,
            r#"{"type":"text","text":"a\u0000\u001b[2J"}"#,
            r#"{"type":"text","text":"\ud800"}"#,
            r#"{"type":"text","text":"\ud83d\ude00"}"#,
            r#"{"type":"text","text":"H\u0000i"}"#,
            r#"{"type":1,"text":"a"}"#,
            r#"{"type":"thinking","thinking":"a","signature":"s"}"#,
            r#"{"type":"image","source":{"type":"base64","media_type":"image/png","data":"x"}}"#,
            r#"[]"#,
            r#"null"#,
            r#""text""#,
            r#"{}"#,
        ] {
            lines.push(a.replacen(tool, block, 1));
        }
        for (from, to) in [
            (r#""content":["#, r#""content":"plain","c":["#),
            (
                r#""content":["#,
                r#""content":{"type":"text","text":"a"},"c":["#,
            ),
            (
                r#""content":["#,
                r#""content":[[{"type":"text","text":"a"}]],"c":["#,
            ),
            (r#""message":{"#, r#""message":{"message":{"id":"x"},"#),
            (r#""message":{"#, r#""\u006dessage":{"#),
            (r#""type":"assistant""#, r#""\u0074ype":"assistant""#),
            (
                r#""type":"assistant""#,
                r#""type":"assistant","type":"assistant""#,
            ),
            (
                r#""type":"assistant""#,
                r#""type":"assistant","type":"user""#,
            ),
            (r#""model":"#, r#""\u006dodel":"#),
            (
                r#""usage":{"#,
                r#""usage":{"input_tokens":1,"input_tokens":2,"#,
            ),
            (r#""usage":{"#, r#""usage":{"input_tokens":-0,"#),
            (r#""usage":{"#, r#""usage":{"input_tokens":1e0,"x":"#),
            (
                r#""request_id":"req_1""#,
                r#""request_id":"req_1","request_id":"req_2""#,
            ),
            (r#""request_id":"req_1""#, r#""request_id":-0"#),
            (r#""request_id":"req_1""#, r#""request_id":1e400"#),
            (
                r#""request_id":"req_1""#,
                r#""request_id":18446744073709551616"#,
            ),
            (r#""request_id":"req_1""#, r#""request_id":0.1e1"#),
            (r#""request_id":"req_1""#, r#""request_id":"\ud800""#),
            (r#""request_id":"req_1""#, "\"request_id\":\"a\u{0}\""),
            (r#""session_id":"0b7a"#, r#""session_id":"\u0030b7a"#),
        ] {
            assert!(a.contains(from), "{from}");
            lines.push(a.replacen(from, to, 1));
        }
        lines.extend(framed_and_cut(a));
        for l in &lines {
            all_agree(l);
        }
        // overlong or broken UTF-8 never reaches a reader at the byte
        // level: the line is refused whole, as the general decoder's input
        for bad in [
            &b"\xc0\xaf"[..],
            b"\xe0\x80\xaf",
            b"\xed\xa0\x80",
            b"\xff",
            b"\xc3",
        ] {
            let mut l = d.replacen("Hi", "H\u{1}", 1).into_bytes();
            let at = l.iter().position(|&c| c == 1).unwrap();
            l.splice(at..at + 1, bad.iter().copied());
            assert!(Message::parse(&l).is_err(), "{l:?}");
        }
    }

    /// [`stream_delta_as`] lean must decline, or read what the general
    /// decoder reads, made lean ([`StreamEvent::lean`]); and the whole
    /// reader of the client's lines ([`Routed::parse_str_as`]) reads every
    /// line as it reads it in full, made lean: the same message, or the
    /// same error.
    fn lean_agrees(line: &str) -> bool {
        use crate::protocol::Routed;
        let fast = stream_delta_as(line, true);
        if let Some(m) = &fast {
            match Message::parse_general(line) {
                Ok(Message::StreamEvent(mut g)) => {
                    g.event.lean();
                    assert_eq!(&*g, m, "{line}");
                }
                other => panic!("the lean fast path took {line}, general gave {other:?}"),
            }
        }
        let lean = Routed::parse_str_as(line, true);
        let mut full = Routed::parse_str(line);
        if let Ok(Routed::Message(Message::StreamEvent(e))) = &mut full {
            e.event.lean();
        }
        match (lean, full) {
            (Ok(Routed::Message(a)), Ok(Routed::Message(b))) => assert_eq!(a, b, "{line}"),
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{line}"),
            (a, b) => assert_eq!(format!("{a:?}"), format!("{b:?}"), "{line}"),
        }
        fast.is_some()
    }

    /// The values `lean` leaves out are checked as a `Value` reads them:
    /// where [`Checked`] accepts a text, a `Value` is read from it;
    /// where it refuses one a `Value` reads, only for serde_json's private
    /// keys. [`LeanStart`] reads an object's last `id` as a `Value` does.
    fn checked_agrees(text: &str) {
        let value = serde_json::from_str::<Value>(text);
        let checked = serde_json::from_str::<Checked>(text);
        match (&checked, &value) {
            (Ok(_), Ok(_)) | (Err(_), Err(_)) => {}
            (Ok(_), Err(e)) => panic!("checked {text}, a Value is refused: {e}"),
            (Err(_), Ok(_)) => assert!(text.contains("$serde_json::private::"), "{text}"),
        }
        if let Ok(l) = serde_json::from_str::<LeanStart>(text) {
            let Ok(mut v @ Value::Object(_)) = value else {
                panic!("lean start read {text}, a Value is not an object");
            };
            let mut e = StreamEvent::MessageStart { message: v.take() };
            e.lean();
            assert_eq!(e, StreamEvent::MessageStart { message: l.0 }, "{text}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 3000,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        /// Any line near the CLI's `message_start`, `content_block_start`
        /// or `message_delta`, read lean: declined, or the general
        /// decoder's event made lean; any line, read lean by the client,
        /// is its full reading made lean.
        #[test]
        fn an_event_around_the_deltas_read_lean_is_the_general_decoders_made_lean(
            line in near_framing_line(),
        ) {
            lean_agrees(&line);
        }

        /// Any JSON text (and texts that are not JSON: cut, a byte more
        /// or less, white space around): checked as a `Value` reads it.
        #[test]
        fn a_value_left_out_is_checked_as_a_value_reads_it(
            text in prop_oneof![
                3 => any_json(),
                3 => api_message(),
                1 => (any_json(), any_json()).prop_map(|(a, b)| format!(r#"{{"id":{a},"x":[{b}],"id":{b}}}"#)),
            ],
            how in 0..8u8,
            byte in any::<u8>(),
            at in any::<proptest::sample::Index>(),
            ws in select(&["", " ", "\n\t", "\r\n", "\u{a0}"][..]),
        ) {
            let text = format!("{ws}{}{ws}", damaged(text.into_bytes(), how, byte, at));
            checked_agrees(&text);
        }
    }

    /// The lean events written by hand: what the CLI writes (taken by the
    /// fast path, the message's id kept), and lines a generator may
    /// never make: escaped keys, keys twice, the line cut at every byte, a
    /// BOM, lone surrogates, numbers a `Value` refuses, serde_json's
    /// private keys, a `type` that is not a string, values nested deep.
    #[test]
    fn lean_events_written_by_hand_are_declined_or_read_alike() {
        let tail = r#","session_id":"s-1","parent_tool_use_id":null,"uuid":"u-1","api_message_id":"msg_1"}"#;
        let start = r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":12,"output_tokens":1}}}"#;
        let delta = r#"{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":9}}"#;
        let block =
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#;
        let line = |event: &str| format!(r#"{{"type":"stream_event","event":{event}{tail}"#);
        // as the CLI writes them: taken, and lean
        let m = stream_delta_as(&line(start), true).expect("message_start taken");
        assert_eq!(
            m.event,
            StreamEvent::MessageStart {
                message: serde_json::json!({"id": "msg_1"})
            }
        );
        assert_eq!(m.uuid.as_deref(), Some("u-1"));
        let m = stream_delta_as(&line(delta), true).expect("message_delta taken");
        assert_eq!(
            m.event,
            StreamEvent::MessageDelta {
                delta: Value::Null,
                usage: None
            }
        );
        // the empty text block read without a map is the general decoder's
        for lean in [false, true] {
            let m = stream_delta_as(&line(block), lean).expect("content_block_start taken");
            assert_eq!(Some(m.clone()), agree(&line(block)));
            assert_eq!(
                m.event,
                StreamEvent::ContentBlockStart {
                    index: 0,
                    content_block: ContentBlock::from_value(
                        serde_json::json!({"type": "text", "text": ""})
                    ),
                }
            );
        }
        let mut lines = Vec::new();
        for event in [start, delta, block] {
            let a = line(event);
            for (from, to) in [
                // escaped keys, inside the values left out and outside
                (r#""id":"msg_1""#, r#""i\u0064":"msg_1""#),
                (r#""model":"#, r#""mod\u0065l":"#),
                (r#""stop_reason":"#, r#""stop\u005freason":"#),
                (r#""output_tokens":"#, r#""output\u005ftokens":"#),
                (r#""message":{"#, r#""m\u0065ssage":{"#),
                (r#""usage":"#, r#""\u0075sage":"#),
                (r#""text":"""#, r#""t\u0065xt":"""#),
                // keys twice
                (r#""id":"msg_1""#, r#""id":"msg_1","id":"msg_2""#),
                (r#""id":"msg_1""#, r#""id":"msg_1","i\u0064":7"#),
                (r#""id":"msg_1""#, r#""id":null,"id":"msg_1""#),
                (r#""model":"m""#, r#""model":"m","model":1e400"#),
                (
                    r#""output_tokens":9"#,
                    r#""output_tokens":9,"output_tokens":9"#,
                ),
                (r#""usage":{"#, r#""usage":{},"usage":{"#),
                (r#""delta":{"#, r#""delta":{},"delta":{"#),
                (r#""text":"""#, r#""text":"","text":"""#),
                // no id, an id of another kind
                (r#""id":"msg_1","#, ""),
                (r#""id":"msg_1""#, r#""id":{"a":[1]}"#),
                (r#""id":"msg_1""#, r#""id":"\ud800""#),
                // numbers a `Value` refuses or spells otherwise
                (r#""output_tokens":9"#, r#""output_tokens":1e400"#),
                (r#""output_tokens":9"#, r#""output_tokens":-1e400"#),
                (r#""output_tokens":9"#, r#""output_tokens":01"#),
                (r#""output_tokens":9"#, r#""output_tokens":1."#),
                (
                    r#""output_tokens":9"#,
                    r#""output_tokens":18446744073709551616"#,
                ),
                (r#""input_tokens":12"#, r#""input_tokens":1e400"#),
                (r#""input_tokens":12"#, r#""input_tokens":-0.0e-400"#),
                // lone and split surrogates, control bytes
                (r#""model":"m""#, r#""model":"\ud800""#),
                (r#""model":"m""#, r#""model":"\udc00\ud800""#),
                (r#""model":"m""#, r#""model":"\ud83d\ude00""#),
                (r#""model":"m""#, "\"model\":\"m\u{1}\""),
                (r#""stop_reason":"end_turn""#, r#""stop_reason":"\ud83d""#),
                (r#""stop_reason":"end_turn""#, r#""\ud800":1"#),
                (r#""output_tokens":9"#, "\"output_tokens\":\"\u{0}\""),
                // serde_json's private keys: a `Value` reads them otherwise
                (
                    r#""id":"msg_1""#,
                    r#""$serde_json::private::RawValue":"[1,2]""#,
                ),
                (
                    r#""stop_reason":"end_turn""#,
                    r#""$serde_json::private::RawValue":"nope""#,
                ),
                (
                    r#""output_tokens":9"#,
                    r#""$serde_json::private::RawValue":5"#,
                ),
                (
                    r#""output_tokens":9"#,
                    r#""$serde_json::private::Number":"1""#,
                ),
                // `type` not a string, the event's or the message's
                (r#""type":"message_start""#, r#""type":1"#),
                (r#""type":"message_delta""#, r#""type":null"#),
                (r#""type":"message""#, r#""type":["message"]"#),
                (r#""type":"text""#, r#""type":7"#),
                // the values of other kinds
                (r#""message":{"#, r#""message":[{"#),
                (r#"{"output_tokens":9}"#, r#"[1,"a",{"b":null}]"#),
                (r#"{"output_tokens":9}"#, "null"),
                (
                    r#"{"stop_reason":"end_turn","stop_sequence":null}"#,
                    r#""end_turn""#,
                ),
                (
                    r#""content":[]"#,
                    r#""content":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"#,
                ),
                (
                    r#""content":[]"#,
                    r#""content":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"#,
                ),
                // whitespace, trailing commas
                (r#""usage":{"#, r#""usage": {"#),
                (r#""message":{"#, r#""message": {"#),
                (r#""message":{"#, "\"message\":\r\n\t{"),
                (r#""delta":{"#, r#""delta": {"#),
                (r#""content_block":{"#, r#""content_block": {"#),
                (r#""stop_sequence":null}"#, r#""stop_sequence":null,}"#),
                (r#""output_tokens":1}"#, r#""output_tokens":1,}"#),
            ] {
                if a.contains(from) {
                    lines.push(a.replacen(from, to, 1));
                }
            }
            lines.extend(framed_and_cut(&a));
            lines.push(format!("{a}x"));
            lines.push(a);
        }
        let taken = lines.iter().filter(|l| lean_agrees(l)).count();
        assert!(taken >= 3, "the CLI's own lines are taken: {taken}");
        // each value left out, alone
        for text in [
            "1e400",
            "-1e400",
            "{\"a\":1e400}",
            "[1,2,]",
            "{\"a\":\"\\ud800\"}",
            "{\"$serde_json::private::RawValue\":\"[1]\"}",
            "{\"id\":1,\"id\":\"b\"}",
            "{\"i\\u0064\":\"x\"}",
            "{\"id\":\"x\",\"a\":{\"id\":\"y\"}}",
            "{}",
            "{\"id\":null}",
            "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
        ] {
            checked_agrees(text);
        }
    }
}
