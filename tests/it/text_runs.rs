//! Text deltas read in runs (`Options::coalesce_text_deltas`, what
//! `ask -o text` to a pipe uses): the same text, in order with requests,
//! in far fewer messages, and never held back while the CLI is silent.

use crate::common;

use claudio::protocol::StreamEvent;
use claudio::{Client, Event, Message, PermissionResult};
use common::*;
use futures_util::StreamExt;
use serde_json::json;
use std::time::Duration;

/// A text delta as the real CLI writes it (its fields in its order).
fn cli_delta(text: &str, uuid: &str) -> String {
    format!(
        r#"{{"type":"stream_event","event":{{"type":"content_block_delta","index":0,"delta":{{"type":"text_delta","text":{}}}}},"session_id":"sess-1","parent_tool_use_id":null,"uuid":"{uuid}","api_message_id":"msg_1"}}"#,
        serde_json::to_string(text).unwrap()
    )
}

/// Lines the fake writes at once (one write, under the pipe's atomic size:
/// the client reads them together).
fn at_once(lines: &[String]) -> Step {
    Step::EmitRaw(lines.join("\n"))
}

/// What the client saw: each delta's text, each request, each other kind.
fn seen(e: &Event) -> String {
    match e {
        Event::Message(Message::StreamEvent(s)) => match s.text_delta() {
            Some(t) => format!("text:{t}"),
            None => format!("event:{}", s.event.kind()),
        },
        Event::Message(m) => m.kind().to_owned(),
        Event::Request(_) => "request".to_owned(),
        Event::TurnStarted => "turn-started".to_owned(),
        Event::TurnEnded => "turn-ended".to_owned(),
        _ => "other".to_owned(),
    }
}

#[tokio::test]
async fn text_deltas_come_in_runs_in_order_with_requests_and_without_waiting() {
    let fake = Fake::after_init(vec![vec![
        expect_user("go"),
        at_once(&[
            cli_delta("Hel", "u1"),
            cli_delta("lo \"quoted\"\n", "u2"),
            cli_delta("caf\u{e9} \u{1f980}", "u3"),
            r#"{"type":"control_request","request_id":"p1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"ls"}}}"#.to_owned(),
            cli_delta("after ", "u4"),
            cli_delta("the request", "u5"),
        ]),
        Step::expect(json!({"type":"control_response","response":{"request_id":"p1"}})),
        // the CLI waits for the host: the run read so far must reach it
        at_once(&[cli_delta("all ", "u6"), cli_delta("read", "u7")]),
        expect_user("more"),
        result("done"),
    ]]);
    // (its close is not checked: the fake is ended at a short grace)
    let client = Client::connect(
        fake.options()
            .include_partial_messages(true)
            .coalesce_text_deltas(true)
            .requests_as_events(true)
            .close_grace(Duration::from_secs(2)),
    )
    .await
    .unwrap();
    client.send("go").await.unwrap();
    let read = async {
        let mut names = Vec::new();
        let mut events = client.events();
        while let Some(e) = events.next().await {
            let e = e.expect("event");
            names.push(seen(&e));
            match e {
                Event::Request(req) => {
                    let (_, responder) = req.into_parts();
                    responder.answer(PermissionResult::allow()).await.unwrap();
                }
                Event::Message(Message::StreamEvent(s)) if s.text_delta() == Some("all read") => {
                    // sent only once the text came: held back, it never would
                    client.send("more").await.unwrap();
                }
                Event::TurnEnded => break,
                _ => {}
            }
        }
        names
    };
    let names = tokio::time::timeout(Duration::from_secs(60), read)
        .await
        .expect("the turn ended: no text was held back");
    assert_eq!(
        names,
        [
            "turn-started",
            "text:Hello \"quoted\"\ncafé 🦀",
            "request",
            "text:after the request",
            "text:all read",
            "turn-started",
            "result",
            "turn-ended",
        ],
    );
    let _ = client.close().await;
}

#[tokio::test]
async fn without_the_option_each_delta_is_its_own_message() {
    let fake = Fake::after_init(vec![vec![
        expect_user("go"),
        at_once(&[cli_delta("a", "u1"), cli_delta("b", "u2")]),
        result("done"),
    ]]);
    let client = Client::connect(fake.options().include_partial_messages(true))
        .await
        .unwrap();
    client.send("go").await.unwrap();
    let read = async {
        let mut names = Vec::new();
        let mut events = client.events();
        while let Some(e) = events.next().await {
            let e = e.expect("event");
            names.push(seen(&e));
            if let Event::TurnEnded = e {
                break;
            }
        }
        names
    };
    let names = tokio::time::timeout(Duration::from_secs(60), read)
        .await
        .expect("the turn ended");
    assert_eq!(
        names,
        ["turn-started", "text:a", "text:b", "result", "turn-ended"]
    );
    client.close().await.unwrap();
}

/// `Options::lean_stream_events` (what `ask` uses): a `message_start`
/// keeps its message's id alone, a `message_delta` neither its `delta`
/// nor its `usage`; every other line is read as without the option, in
/// the same order, and a line that is not JSON is passed over as before.
#[tokio::test]
async fn lean_stream_events_leave_out_only_the_values_a_text_reader_does_not_read() {
    let tail =
        r#","session_id":"sess-1","parent_tool_use_id":null,"uuid":"u0","api_message_id":"msg_1"}"#;
    let event = |e: &str| format!(r#"{{"type":"stream_event","event":{e}{tail}"#);
    let lines = vec![
        event(
            r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":12,"output_tokens":1}}}"#,
        ),
        // the general decoder's line (keys in another order): lean too
        event(r#"{"message":{"model":"m","id":"msg_2"},"type":"message_start"}"#),
        event(r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#),
        cli_delta("Hi", "u1"),
        event(r#"{"type":"content_block_stop","index":0}"#),
        "{\"type\":\"stream_event\",\"event\":{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":1e400}}}".to_owned(),
        event(r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":9}}"#),
        event(r#"{"type":"message_stop"}"#),
        r#"{"type":"assistant","message":{"id":"msg_1","role":"assistant","model":"m","content":[{"type":"text","text":"Hi"}]},"parent_tool_use_id":null,"session_id":"sess-1","uuid":"u9"}"#.to_owned(),
    ];
    let read = |lean: bool| {
        let lines = lines.clone();
        async move {
            let fake = Fake::after_init(vec![vec![
                expect_user("go"),
                at_once(&lines),
                result("done"),
            ]]);
            let client = Client::connect(
                fake.options()
                    .include_partial_messages(true)
                    .lean_stream_events(lean),
            )
            .await
            .unwrap();
            client.send("go").await.unwrap();
            let mut got = Vec::new();
            let mut events = client.events();
            let all = async {
                while let Some(e) = events.next().await {
                    match e.expect("event") {
                        Event::Message(m) => got.push(m),
                        Event::TurnEnded => break,
                        _ => {}
                    }
                }
            };
            tokio::time::timeout(GUARD, all)
                .await
                .expect("the turn ended");
            drop(events);
            client.close().await.unwrap();
            got
        }
    };
    let full = read(false).await;
    let lean = read(true).await;
    assert_eq!(full.len(), lean.len(), "{lean:?}");
    // the line that is not JSON (a number serde_json refuses) is in neither
    assert_eq!(full.len(), 9, "{full:?}");
    for (i, (f, l)) in full.iter().zip(&lean).enumerate() {
        let mut f = f.clone();
        if let Message::StreamEvent(s) = &mut f {
            match &mut s.event {
                StreamEvent::MessageStart { message } => {
                    *message = json!({"id": message["id"].clone()});
                }
                StreamEvent::MessageDelta { delta, usage } => {
                    assert!(!delta.is_null() && usage.is_some(), "line {i} in full");
                    *delta = serde_json::Value::Null;
                    *usage = None;
                }
                _ => {}
            }
        }
        assert_eq!(&f, l, "line {i}");
    }
    let starts: Vec<_> = lean
        .iter()
        .filter_map(|m| match m {
            Message::StreamEvent(s) => match &s.event {
                StreamEvent::MessageStart { message } => Some(message.clone()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(starts, [json!({"id": "msg_1"}), json!({"id": "msg_2"})]);
}
