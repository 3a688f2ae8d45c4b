//! Runs of text deltas, for [`Options::coalesce_text_deltas`](crate::Options::coalesce_text_deltas):
//! the main agent's text deltas of one block that the CLI wrote back to
//! back, read as one `stream_event` whose text is theirs joined.
//!
//! The reader takes each such line into the open run without allocating
//! (its text unescaped onto the run's), and hands the run on as one
//! message before anything else: before any other line, before a read
//! that could wait for the CLI, and at [`RUN_BYTES`]. So what comes after
//! a run still comes after it, and text is never held back while the CLI
//! is silent.

use crate::protocol::{text_delta_into, Delta, DeltaShape, StreamEvent, StreamEventMessage};
use serde_json::Map;

/// A run is handed on once its lines hold this many bytes.
pub(crate) const RUN_BYTES: usize = 256 * 1024;

/// The most room a run's text starts with, when that many bytes of lines
/// are at hand: a block's deltas read at once then take no `realloc`s.
const RUN_START: usize = 8 * 1024;

/// The open run, if any.
#[derive(Debug, Default)]
pub(crate) struct TextRun {
    /// The run's message: its first line's, with the text of all.
    head: Option<Box<StreamEventMessage>>,
    /// The bytes of its lines (for the queue's bound).
    bytes: usize,
    /// The shape of the lines that continue it, as the CLI writes them:
    /// such a line is compared with it, not parsed.
    shape: DeltaShape,
}

impl TextRun {
    /// Whether a run is open.
    pub(crate) fn is_open(&self) -> bool {
        self.head.is_some()
    }

    /// The bytes of the open run's lines.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    /// Take `line` into the run: true when it was taken (it continues the
    /// open run, or starts one). False leaves the run as it was: the caller
    /// hands the run on, then reads the line the usual way.
    #[cfg(test)]
    pub(crate) fn offer(&mut self, line: &[u8]) -> bool {
        crate::text::to_str(line).is_ok_and(|line| self.offer_text(line, line.len()))
    }

    /// Take the line at the start of `lines` (read, not yet split off) if
    /// it continues the open run as the CLI writes its next delta (the
    /// run's [`DeltaShape`]): the bytes it took, its end with it. `None`
    /// leaves the run as it was: the caller splits the line off and offers
    /// it with [`TextRun::offer_text`], which takes what this takes and
    /// more.
    pub(crate) fn offer_next(&mut self, lines: &str) -> Option<usize> {
        let head = self.head.as_mut()?;
        let StreamEvent::ContentBlockDelta {
            delta: Delta::Text(text),
            ..
        } = &mut head.event
        else {
            return None;
        };
        let (line, took) = self.shape.text_into_next(lines, text)?;
        self.bytes += line;
        Some(took)
    }

    /// [`TextRun::offer`] for a line already known to be UTF-8; `at_hand`
    /// is how many bytes are read from the line's start on (the line and
    /// the ones after it): no run's text of them can be longer.
    pub(crate) fn offer_text(&mut self, line: &str, at_hand: usize) -> bool {
        match &mut self.head {
            Some(head) => {
                let (index, text) = match &mut head.event {
                    StreamEvent::ContentBlockDelta {
                        index,
                        delta: Delta::Text(text),
                    } => (*index, text),
                    // never: a run's head is a text delta
                    _ => return false,
                };
                if self.shape.text_into(line, text) {
                    self.bytes += line.len();
                    return true;
                }
                let before = text.len();
                let Some(d) = text_delta_into(line, text) else {
                    return false;
                };
                // one block of one message of one session
                if d.index != index
                    || d.session_id != head.session_id.as_deref()
                    || d.api_message_id != head.api_message_id.as_deref()
                {
                    text.truncate(before);
                    return false;
                }
            }
            None => {
                // the text is no longer than its lines: room for the text
                // of those at hand, up to RUN_START (what a run does not
                // fill is given back when it is handed on)
                let mut text = String::with_capacity(at_hand.min(RUN_START).max(line.len()));
                let Some(d) = text_delta_into(line, &mut text) else {
                    return false;
                };
                self.shape.set(&d);
                self.head = Some(Box::new(StreamEventMessage {
                    event: StreamEvent::ContentBlockDelta {
                        index: d.index,
                        delta: Delta::Text(text),
                    },
                    parent_tool_use_id: None,
                    session_id: d.session_id.map(str::to_owned),
                    uuid: d.uuid.map(str::to_owned),
                    api_message_id: d.api_message_id.map(str::to_owned),
                    extra: Map::new(),
                }));
            }
        }
        self.bytes += line.len();
        true
    }

    /// The run as one message, and its lines' bytes; no run is open after.
    pub(crate) fn take(&mut self) -> Option<(Box<StreamEventMessage>, usize)> {
        let mut head = self.head.take()?;
        self.shape.clear();
        let bytes = std::mem::take(&mut self.bytes);
        // no more room held than twice the lines' bytes the queue counts
        // (a run's room grows by doubling, from its first line's bytes)
        if let StreamEvent::ContentBlockDelta {
            delta: Delta::Text(text),
            ..
        } = &mut head.event
        {
            if text.capacity() > 2 * bytes {
                text.shrink_to_fit();
            }
        }
        Some((head, bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;
    use proptest::prelude::*;
    use proptest::sample::select;

    /// What the run says of one line: the message it makes alone, if it
    /// takes it.
    fn alone(line: &[u8]) -> Option<StreamEventMessage> {
        let mut run = TextRun::default();
        let took = run.offer(line);
        let head = run.take().map(|(h, bytes)| {
            assert_eq!(bytes, line.len());
            *h
        });
        assert_eq!(took, head.is_some());
        head
    }

    /// Where the run takes a line, the general decoder reads the same
    /// message from it (and so does the public one, surrogates mended);
    /// where it declines, nothing is left of the line.
    fn agrees(line: &[u8]) -> bool {
        let Some(fast) = alone(line) else {
            // the decoder into a buffer leaves it as it was
            if let Ok(s) = std::str::from_utf8(line) {
                let mut out = String::from("kept");
                assert!(text_delta_into(s, &mut out).is_none());
                assert_eq!(out, "kept");
            }
            return false;
        };
        let s = std::str::from_utf8(line).expect("taken lines are UTF-8");
        match Message::parse_general(s) {
            Ok(Message::StreamEvent(g)) => assert_eq!(*g, fast, "{s}"),
            other => panic!("the run took {s}, the general decoder read {other:?}"),
        }
        match Message::parse(line) {
            Ok(Message::StreamEvent(g)) => assert_eq!(*g, fast, "{s}"),
            other => panic!("the run took {s}, Message::parse read {other:?}"),
        }
        // and the text lands after what the buffer held
        let mut out = String::from("kept");
        let d = text_delta_into(s, &mut out).unwrap();
        assert_eq!(Some(&out[4..]), fast.text_delta());
        assert_eq!(d.uuid, fast.uuid.as_deref());
        true
    }

    const LINE: &str = r#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}},"session_id":"s","parent_tool_use_id":null,"uuid":"u1","api_message_id":"msg_1"}"#;

    #[test]
    fn the_cli_s_text_delta_is_taken_as_the_general_decoder_reads_it() {
        assert!(agrees(LINE.as_bytes()));
        let m = alone(LINE.as_bytes()).unwrap();
        assert_eq!(m.text_delta(), Some("Hi"));
        assert_eq!(m.session_id.as_deref(), Some("s"));
        assert_eq!(m.uuid.as_deref(), Some("u1"));
        assert_eq!(m.api_message_id.as_deref(), Some("msg_1"));
        // escapes in the text, keys in any order, fields left out
        for l in [
            LINE.replace(
                r#""Hi""#,
                r#""a\nb \"q\" \\ \/ \u00e9 \ud83d\ude00 \u0000 \t""#,
            ),
            LINE.replace(
                r#""type":"text_delta","text":"Hi""#,
                r#""text":"Hi","type":"text_delta""#,
            ),
            LINE.replace(r#""index":0,"#, "")
                .replace(r#""delta""#, r#""index":12,"delta""#),
            LINE.replace(r#","parent_tool_use_id":null"#, ""),
            LINE.replace(r#","session_id":"s""#, ""),
            LINE.replace(r#""uuid":"u1""#, r#""uuid":null"#),
        ] {
            assert!(agrees(l.as_bytes()), "declined {l}");
        }
    }

    #[test]
    fn anything_else_is_declined() {
        for l in [
            // a sub-agent's text, other deltas, other events
            LINE.replace(
                r#""parent_tool_use_id":null"#,
                r#""parent_tool_use_id":"t1""#,
            ),
            LINE.replace(
                r#""type":"text_delta","text""#,
                r#""type":"thinking_delta","thinking""#,
            ),
            LINE.replace("content_block_delta", "content_block_start"),
            // escaped ids (the general path reads them), unknown or repeated
            // fields, whitespace, numbers spelled otherwise
            LINE.replace(r#""u1""#, r#""u\u0031""#),
            LINE.replace(r#","uuid""#, r#","ttft_ms":3,"uuid""#),
            LINE.replace(r#","uuid":"u1""#, r#","uuid":"u1","uuid":"u2""#),
            LINE.replace(r#""text":"Hi""#, r#""text":"Hi","text":"Ho""#),
            LINE.replace(r#""text":"Hi""#, r#""text":"Hi","lang":"en""#),
            LINE.replace(r#""index":0"#, r#""index": 0"#),
            LINE.replace(r#""index":0"#, r#""index":00"#),
            LINE.replace(r#""index":0"#, r#""index":1e0"#),
            format!("{LINE} "),
            // invalid text: a lone surrogate (the general path mends it), a
            // raw control character, a bad escape
            LINE.replace(r#""Hi""#, r#""\ud800""#),
            LINE.replace(r#""Hi""#, "\"a\u{1}b\""),
            LINE.replace(r#""Hi""#, r#""\q""#),
            // cut short
            LINE[..LINE.len() - 1].to_owned(),
            LINE[..40].to_owned(),
        ] {
            assert!(!agrees(l.as_bytes()), "took {l}");
        }
        let mut bad = LINE.as_bytes().to_vec();
        bad.splice(120..120, [0xff, 0xfe]);
        assert!(!agrees(&bad));
    }

    /// A run started with much read after its line starts with room for
    /// its text; handed on short, it keeps no more than twice its lines'
    /// bytes (what the queue counts).
    #[test]
    fn a_run_handed_on_holds_no_more_room_than_its_lines() {
        let mut run = TextRun::default();
        assert!(run.offer_text(LINE, 1 << 20));
        let (head, bytes) = run.take().unwrap();
        assert_eq!(bytes, LINE.len());
        let StreamEvent::ContentBlockDelta {
            delta: Delta::Text(text),
            ..
        } = &head.event
        else {
            panic!("{head:?}")
        };
        assert_eq!(text, "Hi");
        assert!(text.capacity() <= 2 * bytes, "{}", text.capacity());
        // the lines of a long block read at once fill their room
        let mut run = TextRun::default();
        let next = LINE.replace("u1", "u2");
        assert!(run.offer_text(LINE, 1 << 20));
        for _ in 0..100 {
            assert!(run.offer_text(&next, 1 << 20));
        }
        let (head, bytes) = run.take().unwrap();
        assert_eq!(bytes, 101 * LINE.len());
        assert_eq!(head.text_delta(), Some("Hi".repeat(101).as_str()));
        // a line longer than the most room a run starts with
        let long = LINE.replace("\"Hi\"", &format!("\"{}\"", "x".repeat(3 * RUN_START)));
        for at_hand in [long.len(), 1 << 20] {
            let mut run = TextRun::default();
            assert!(run.offer_text(&long, at_hand));
            let (head, _) = run.take().unwrap();
            assert_eq!(head.text_delta().map(str::len), Some(3 * RUN_START));
        }
    }

    #[test]
    fn a_run_holds_one_block_of_one_message() {
        let mut run = TextRun::default();
        assert!(run.offer(LINE.as_bytes()));
        let second = LINE.replace("\"Hi\"", r#"", there\n""#).replace("u1", "u2");
        assert!(run.offer(second.as_bytes()));
        for other in [
            LINE.replace(r#""index":0"#, r#""index":1"#),
            LINE.replace("msg_1", "msg_2"),
            LINE.replace(r#""session_id":"s""#, r#""session_id":"t""#),
            LINE.replace(r#","session_id":"s""#, ""),
            r#"{"type":"stream_event","event":{"type":"content_block_stop","index":0}}"#.to_owned(),
        ] {
            assert!(!run.offer(other.as_bytes()), "{other}");
        }
        let (head, bytes) = run.take().unwrap();
        assert_eq!(bytes, LINE.len() + second.len());
        assert_eq!(head.text_delta(), Some("Hi, there\n"));
        // the first line's fields
        assert_eq!(head.uuid.as_deref(), Some("u1"));
        assert!(!run.is_open() && run.take().is_none());
    }

    /// Each run merged into one message: what a reader of the text sees.
    fn merged(msgs: Vec<Option<Message>>) -> Vec<Option<Message>> {
        let mut out: Vec<Option<Message>> = Vec::new();
        for m in msgs {
            if let (Some(Some(Message::StreamEvent(prev))), Some(Message::StreamEvent(next))) =
                (out.last_mut(), &m)
            {
                let key = |e: &StreamEventMessage| match &e.event {
                    StreamEvent::ContentBlockDelta {
                        index,
                        delta: Delta::Text(_),
                    } if e.parent_tool_use_id.is_none() && e.extra.is_empty() => {
                        Some((*index, e.session_id.clone(), e.api_message_id.clone()))
                    }
                    _ => None,
                };
                if key(prev).is_some() && key(prev) == key(next) {
                    if let StreamEvent::ContentBlockDelta {
                        delta: Delta::Text(t),
                        ..
                    } = &mut prev.event
                    {
                        t.push_str(next.text_delta().unwrap_or_default());
                    }
                    continue;
                }
            }
            out.push(m);
        }
        out
    }

    /// String pieces: escapes of every kind (good and bad), raw control
    /// characters, non-ASCII, plain runs.
    fn piece() -> impl Strategy<Value = String> {
        prop_oneof![
            6 => select(&[
                "a", "Hi", "abcdefgh", "\\n", "\\\"", "\\\\", "\\/", "\\b", "\\f", "\\r", "\\t",
                "\\u0000", "\\u00e9", "\\u00E9", "\\uD83D\\uDE00", "\\ud83d\\ude00", "\\uFFFF",
                "\\u001f", "\\u0022", "\\u005c", "\\uDBFF\\uDFFF", "é", "日本", "🦀", "\u{2028}",
                "\u{7f}", " ", "{", "}", ",", ":", "null",
            ][..]).prop_map(str::to_owned),
            1 => select(&[
                "\\ud800", "\\udc00", "\\ud800\\u0041", "\\ud800\\ud800", "\\x", "\\u12",
                "\\u12g4", "\\U0041", "\\", "\u{1}", "\u{1f}", "\t", "\n",
            ][..]).prop_map(str::to_owned),
            1 => any::<char>().prop_map(String::from),
            1 => "[a-z ]{0,24}",
        ]
    }

    fn string() -> impl Strategy<Value = String> {
        proptest::collection::vec(piece(), 0..8).prop_map(|p| format!("\"{}\"", p.concat()))
    }

    /// An id: mostly plain, as the CLI writes them.
    fn id() -> impl Strategy<Value = String> {
        prop_oneof![
            6 => select(&["\"s\"", "\"msg_1\"", "\"msg_2\"", "\"u1\"", "\"\""][..])
                .prop_map(str::to_owned),
            2 => Just("null".to_owned()),
            1 => string(),
            1 => select(&["5", "true", "{}", "[]", "{\"a\":[1,{\"b\":\"}\"}]}"][..])
                .prop_map(str::to_owned),
        ]
    }

    /// Between members: mostly nothing, sometimes whitespace.
    fn sep() -> impl Strategy<Value = &'static str> {
        prop_oneof![12 => Just(""), 1 => select(&[" ", "\n", "\t ", "\r\n"][..])]
    }

    fn members(m: Vec<String>, s: &'static str) -> String {
        m.join(&format!(",{s}"))
    }

    fn delta() -> impl Strategy<Value = String> {
        let kind = prop_oneof![
            8 => Just("\"type\":\"text_delta\"".to_owned()),
            1 => select(&[
                "\"type\":\"thinking_delta\"", "\"type\":\"citations_delta\"", "\"type\":null",
                "\"type\":\"text_delta\"",
            ][..]).prop_map(str::to_owned),
        ];
        let text = prop_oneof![
            8 => string().prop_map(|s| format!("\"text\":{s}")),
            1 => id().prop_map(|v| format!("\"thinking\":{v}")),
            1 => id().prop_map(|v| format!("\"text\":{v}")),
        ];
        let extra = proptest::collection::vec(
            select(
                &[
                    "\"lang\":\"en\"",
                    "\"text\":\"dup\"",
                    "\"type\":\"text_delta\"",
                ][..],
            ),
            0..2,
        );
        (kind, text, extra, any::<bool>(), sep())
            .prop_flat_map(|(k, t, e, drop, s)| {
                let mut m = vec![k, t];
                if drop && e.is_empty() {
                    m.pop();
                }
                m.extend(e.into_iter().map(str::to_owned));
                (Just(m).prop_shuffle(), Just(s))
            })
            .prop_map(|(m, s)| format!("{{{}}}", members(m, s)))
    }

    fn event() -> impl Strategy<Value = String> {
        let kind = prop_oneof![
            8 => Just("\"type\":\"content_block_delta\"".to_owned()),
            1 => select(&["\"type\":\"content_block_stop\"", "\"type\":\"message_stop\""][..])
                .prop_map(str::to_owned),
        ];
        let index = select(
            &[
                "0",
                "0",
                "1",
                "7",
                "12",
                "999999999",
                "1000000000",
                "00",
                "01",
                "-1",
                "1.0",
                "1e2",
                "\"0\"",
                "null",
            ][..],
        );
        let extra = proptest::collection::vec(select(&["\"index\":0", "\"x\":{}"][..]), 0..2);
        (kind, index, delta(), extra, sep())
            .prop_flat_map(|(k, i, d, e, s)| {
                let mut m = vec![k, format!("\"index\":{i}"), format!("\"delta\":{d}")];
                m.extend(e.into_iter().map(str::to_owned));
                (Just(m).prop_shuffle(), Just(s))
            })
            .prop_map(|(m, s)| format!("{{{}}}", members(m, s)))
    }

    /// A line as the CLI writes a text delta, with its fields in any order,
    /// some left out, repeated or unknown, values of other kinds.
    fn delta_line() -> impl Strategy<Value = String> {
        let tail = proptest::collection::vec(
            prop_oneof![
                3 => id().prop_map(|v| format!("\"session_id\":{v}")),
                3 => prop_oneof![4 => Just("null".to_owned()), 1 => id()]
                    .prop_map(|v| format!("\"parent_tool_use_id\":{v}")),
                3 => id().prop_map(|v| format!("\"uuid\":{v}")),
                3 => id().prop_map(|v| format!("\"api_message_id\":{v}")),
                1 => select(&["\"ttft_ms\":17", "\"type\":\"stream_event\"", "\"event\":{}"][..])
                    .prop_map(str::to_owned),
            ],
            0..6,
        );
        let head = prop_oneof![
            12 => Just("{\"type\":\"stream_event\",\"event\":"),
            1 => select(&[
                "{\"type\": \"stream_event\",\"event\":", "{ \"type\":\"stream_event\",\"event\":",
                "{\"type\":\"assistant\",\"event\":", "{\"event\":",
            ][..]),
        ];
        (head, event(), tail, sep()).prop_map(|(h, e, t, s)| {
            let mut l = format!("{h}{e}");
            for m in t {
                l.push_str(&format!(",{s}{m}"));
            }
            l.push('}');
            l
        })
    }

    /// A line cut, a byte put in or taken out (non-UTF-8 too).
    fn mutated() -> impl Strategy<Value = Vec<u8>> {
        (
            delta_line(),
            any::<u8>(),
            any::<prop::sample::Index>(),
            0..4u8,
        )
            .prop_map(|(l, byte, at, how)| {
                let mut b = l.into_bytes();
                let at = at.index(b.len() + 1);
                match how {
                    0 => b.truncate(at),
                    1 => b.insert(at, byte),
                    2 if at < b.len() => {
                        b.remove(at);
                    }
                    _ => {}
                }
                b
            })
    }

    /// The lines of a stream: text deltas of a few blocks and messages,
    /// and the lines between them.
    fn stream_line() -> impl Strategy<Value = Vec<u8>> {
        let plain = (
            select(&["0", "1"][..]),
            select(&["msg_1", "msg_2"][..]),
            string(),
            select(&["u1", "u2"][..]),
        )
            .prop_map(|(i, m, t, u)| {
                format!(
                    r#"{{"type":"stream_event","event":{{"type":"content_block_delta","index":{i},"delta":{{"type":"text_delta","text":{t}}}}},"session_id":"s","parent_tool_use_id":null,"uuid":"{u}","api_message_id":"{m}"}}"#
                )
                .into_bytes()
            });
        prop_oneof![
            8 => plain,
            2 => delta_line().prop_map(String::into_bytes),
            1 => mutated(),
            1 => select(&[
                r#"{"type":"stream_event","event":{"type":"content_block_stop","index":0},"session_id":"s"}"#,
                r#"{"type":"assistant","message":{"id":"msg_1","content":[{"type":"text","text":"Hi"}]},"session_id":"s"}"#,
                r#"{"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{}}}"#,
                r#"{"type":"result","subtype":"success","is_error":false}"#,
                "not json",
            ][..]).prop_map(|l| l.as_bytes().to_vec()),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 2000,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        /// Any line, well formed or not: the run declines it, or takes it
        /// as exactly the message the general decoder reads.
        #[test]
        fn a_line_taken_is_what_the_general_decoder_reads(line in delta_line()) {
            agrees(line.as_bytes());
        }

        /// The same for lines cut short, with a byte more or less, not
        /// UTF-8.
        #[test]
        fn a_broken_line_is_declined_or_read_alike(line in mutated()) {
            agrees(&line);
        }

        /// A stream read in runs (handed on at any points, as the reader
        /// does before a wait) says what it says line by line: the same
        /// messages in the same order, the text of a block's deltas the
        /// same text.
        #[test]
        fn a_stream_read_in_runs_says_what_it_says_line_by_line(
            lines in proptest::collection::vec((stream_line(), any::<bool>()), 0..40),
        ) {
            let mut run = TextRun::default();
            let mut got = Vec::new();
            let hand_on = |run: &mut TextRun, got: &mut Vec<Option<Message>>| {
                if let Some((h, _)) = run.take() {
                    got.push(Some(Message::StreamEvent(h)));
                }
            };
            for (line, wait) in &lines {
                if *wait {
                    hand_on(&mut run, &mut got);
                }
                if !run.offer(line) {
                    hand_on(&mut run, &mut got);
                    got.push(Message::parse(line).ok());
                }
            }
            hand_on(&mut run, &mut got);
            let each: Vec<Option<Message>> =
                lines.iter().map(|(l, _)| Message::parse(l).ok()).collect();
            prop_assert_eq!(merged(got), merged(each));
        }
    }
}
