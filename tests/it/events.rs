//! One ordered stream of a session's events (issue 42): the messages, the
//! CLI's requests with a handle to answer them, their withdrawal and the
//! turns' boundaries, against the scripted fake CLI and the real CLI.

use crate::common;

use claudio::{
    AnswerError, Client, Event, Message, PermissionResult, RequestState, Responder, StreamExt,
};
use common::*;
use serde_json::{json, Value};
use std::time::Duration;

/// What an event is, in a word, for comparing a stream's order.
fn name(e: &Event) -> String {
    match e {
        Event::Message(m) => format!("message:{}", m.kind()),
        Event::Request(r) => format!("request:{}", r.request_id()),
        Event::Withdrawn { request_id } => format!("withdrawn:{request_id}"),
        Event::TurnStarted => "turn-started".into(),
        Event::TurnEnded => "turn-ended".into(),
        other => format!("{other:?}"),
    }
}

/// The control responses claudio wrote, as the fake read them.
fn answers(fake: &Fake) -> Vec<Value> {
    fake.stdin_lines()
        .into_iter()
        .filter(|l| l["type"] == "control_response")
        .collect()
}

/// A turn with one Bash call between two messages, whose approval the fake
/// waits for (`expected` must match claudio's answer).
fn bash_turn(expected: Value) -> Fake {
    Fake::after_init(vec![vec![
        expect_user("go"),
        system_init(),
        assistant_tool_use("toolu_1", "Bash", json!({"command":"ls"})),
        can_use_tool("perm-1", "Bash", json!({"command":"ls"}))
            .with("tool_use_id", json!("toolu_1"))
            .emit(),
        Step::expect(
            json!({"type":"control_response","response":{"subtype":"success","request_id":"perm-1","response":expected}}),
        ),
        assistant_text("done"),
        result("done"),
    ]])
}

/// Read events until the turn ends (bounded), answering no request.
async fn until_turn_end(client: &Client, out: &mut Vec<Event>) {
    let read = async {
        let mut events = client.events();
        while let Some(e) = events.next().await {
            let e = e.expect("event");
            let end = matches!(e, Event::TurnEnded);
            out.push(e);
            if end {
                return;
            }
        }
        panic!("the stream ended before the turn did");
    };
    tokio::time::timeout(Duration::from_secs(60), read)
        .await
        .expect("the turn ended");
}

/// The request comes exactly between the messages it came between, is
/// answered from another task through a cloned handle, and a second answer
/// is refused; the turn then goes on.
#[tokio::test]
async fn a_request_comes_between_its_messages_and_the_first_answer_wins() {
    let fake = bash_turn(json!({"behavior":"allow","updatedInput":{"command":"ls"}}));
    let client = Client::connect(fake.options()).await.unwrap();
    client.send("go").await.unwrap();
    let mut seen = Vec::new();
    let mut events = client.events();
    let responder: Responder = loop {
        let e = events.next().await.expect("an event").expect("no error");
        let req = match &e {
            Event::Request(r) => Some(r.clone()),
            _ => None,
        };
        seen.push(name(&e));
        if let Some(req) = req {
            let tool = req.can_use_tool().expect("a tool approval");
            assert_eq!(tool.tool_name, "Bash");
            assert_eq!(tool.input, json!({"command":"ls"}));
            assert!(!req.handled_by_callback());
            break req.responder().clone();
        }
    };
    drop(events);
    // answered from another task, through a clone
    let other = responder.clone();
    tokio::spawn(async move { other.answer(PermissionResult::allow()).await })
        .await
        .unwrap()
        .expect("the first answer is taken");
    assert_eq!(
        responder
            .answer(PermissionResult::deny("too late"))
            .await
            .unwrap_err(),
        AnswerError::AlreadyAnswered
    );
    assert_eq!(responder.state(), RequestState::Answered);
    let mut rest = Vec::new();
    until_turn_end(&client, &mut rest).await;
    seen.extend(rest.iter().map(name));
    assert_eq!(
        seen,
        [
            "turn-started",
            "message:system",
            "message:assistant",
            "request:perm-1",
            "message:assistant",
            "message:result",
            "turn-ended"
        ]
    );
    client.close().await.unwrap();
    assert_eq!(answers(&fake).len(), 1, "{:?}", answers(&fake));
}

/// A client that reads only messages passes the request over: the request
/// is denied ("no one answered"), never allowed, and the turn does not hang.
#[tokio::test]
async fn a_request_no_one_reads_is_denied_and_the_turn_goes_on() {
    let fake = bash_turn(
        json!({"behavior":"deny","message":"no one answered the permission request; the tool is not allowed"}),
    );
    let client = Client::connect(fake.options()).await.unwrap();
    let turn = tokio::time::timeout(Duration::from_secs(60), client.turn("go"))
        .await
        .expect("no hang")
        .expect("the turn");
    assert_eq!(turn.result.result.as_deref(), Some("done"));
    client.close().await.unwrap();
    assert_eq!(answers(&fake).len(), 1);
}

/// Every handle dropped unanswered while the events are read: the same
/// deny, sent once.
#[tokio::test]
async fn dropping_the_request_unanswered_denies_it() {
    let fake = bash_turn(json!({"behavior":"deny","interrupt":false}));
    let client = Client::connect(fake.options()).await.unwrap();
    client.send("go").await.unwrap();
    let read = async {
        let mut names = Vec::new();
        let mut events = client.events();
        while let Some(e) = events.next().await {
            // each event dropped once read: the request's only handle too
            let e = e.expect("event");
            names.push(name(&e));
            if matches!(e, Event::TurnEnded) {
                break;
            }
        }
        names
    };
    let names = tokio::time::timeout(Duration::from_secs(60), read)
        .await
        .expect("no hang");
    assert!(names.contains(&"request:perm-1".to_owned()), "{names:?}");
    client.close().await.unwrap();
    let sent = answers(&fake);
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(
        sent[0]["response"]["response"]["message"],
        "no one answered the permission request; the tool is not allowed"
    );
}

/// With a callback registered, the request is still in the stream (marked
/// as handled); one answering path: the stream's answer wins here, the
/// callback is told (its context is cancelled) and its late answer is not
/// sent.
#[tokio::test]
async fn a_callback_and_the_stream_share_one_answer() {
    let fake = bash_turn(json!({"behavior":"deny","message":"from the stream"}));
    let options = fake.options().can_use_tool(|_req, ctx| async move {
        ctx.cancellation.cancelled().await;
        Ok(PermissionResult::allow())
    });
    let client = Client::connect(options).await.unwrap();
    client.send("go").await.unwrap();
    let mut events = client.events();
    loop {
        if let Event::Request(req) = events.next().await.unwrap().unwrap() {
            assert!(req.handled_by_callback());
            req.responder()
                .answer(PermissionResult::deny("from the stream"))
                .await
                .unwrap();
            break;
        }
    }
    drop(events);
    let mut rest = Vec::new();
    until_turn_end(&client, &mut rest).await;
    client.close().await.unwrap();
    assert_eq!(answers(&fake).len(), 1, "{:?}", answers(&fake));
}

/// The CLI withdraws a request: the stream says so after it, the handle
/// refuses an answer as withdrawn, and nothing is sent.
#[tokio::test]
async fn a_withdrawn_request_is_an_event_and_refuses_answers() {
    let fake = Fake::after_init(vec![vec![
        expect_user("go"),
        can_use_tool("perm-w", "Bash", json!({"command":"ls"})).emit(),
        Step::Emit(json!({"type":"control_cancel_request","request_id":"perm-w"})),
        Step::SleepMs(100),
        result("withdrawn"),
    ]]);
    let client = Client::connect(fake.options()).await.unwrap();
    client.send("go").await.unwrap();
    let mut all = Vec::new();
    until_turn_end(&client, &mut all).await;
    let names: Vec<String> = all.iter().map(name).collect();
    assert_eq!(
        names,
        [
            "turn-started",
            "request:perm-w",
            "withdrawn:perm-w",
            "message:result",
            "turn-ended"
        ]
    );
    let Event::Request(req) = &all[1] else {
        panic!()
    };
    assert!(req.responder().withdrawn().await);
    assert_eq!(
        req.responder().answer(PermissionResult::allow()).await,
        Err(AnswerError::Withdrawn)
    );
    drop(all);
    client.close().await.unwrap();
    assert!(answers(&fake).is_empty(), "{:?}", answers(&fake));
}

/// A request claudio does not model comes as a request too, answered with
/// a payload of the caller's.
#[tokio::test]
async fn an_unmodelled_request_is_answered_from_the_stream() {
    let fake = Fake::after_init(vec![vec![
        Step::Emit(
            json!({"type":"control_request","request_id":"x-1","request":{"subtype":"elicitation","q":1}}),
        ),
        Step::expect(
            json!({"type":"control_response","response":{"subtype":"success","request_id":"x-1","response":{"action":"decline"}}}),
        ),
        result("still here"),
    ]]);
    let client = Client::connect(fake.options()).await.unwrap();
    let mut events = client.events();
    let Event::Request(req) = events.next().await.unwrap().unwrap() else {
        panic!("not a request")
    };
    match req.body() {
        claudio::RequestBody::Other { subtype, request } => {
            assert_eq!(subtype, "elicitation");
            assert_eq!(request["q"], 1);
        }
        other => panic!("{other:?}"),
    }
    assert!(req.can_use_tool().is_none());
    req.responder()
        .answer(claudio::Answer::Value(json!({"action":"decline"})))
        .await
        .unwrap();
    let next = events.next().await.unwrap().unwrap();
    assert!(
        matches!(next, Event::Message(Message::Result(_))),
        "{next:?}"
    );
    drop(events);
    client.close().await.unwrap();
}

/// The real CLI (2.1.332): a Bash approval comes as an event, is answered
/// from another task through a cloned handle, the tool runs, and a second
/// answer is refused as already answered.
#[tokio::test(flavor = "multi_thread")]
async fn real_cli_a_bash_request_is_an_event_answered_from_another_task() {
    use common::real::*;
    let w = world!("real_cli_a_bash_request_is_an_event_answered_from_another_task");
    let call = Reply::bash("touch made_by_tool");
    let id = call.tool_use_id();
    w.api.push(call);
    w.api.push(Reply::text("Finished."));
    let client = Client::connect(w.options().requests_as_events(true))
        .await
        .expect("connect");
    client.send("make a file").await.unwrap();
    let read = async {
        let mut names = Vec::new();
        let mut second = None;
        let mut events = client.events();
        while let Some(e) = events.next().await {
            let e = e.expect("event");
            names.push(name(&e));
            match e {
                Event::Request(req) => {
                    let tool = req.can_use_tool().expect("a tool approval");
                    assert_eq!(tool.tool_name, "Bash");
                    let (_, responder) = req.into_parts();
                    let other = responder.clone();
                    tokio::spawn(async move { other.answer(PermissionResult::allow()).await })
                        .await
                        .unwrap()
                        .expect("the answer from the other task");
                    second = Some(responder.answer(PermissionResult::deny("late")).await);
                }
                Event::TurnEnded => break,
                _ => {}
            }
        }
        (names, second)
    };
    let (names, second) = tokio::time::timeout(TURN_LIMIT, read)
        .await
        .expect("the turn ended");
    assert_eq!(second, Some(Err(AnswerError::AlreadyAnswered)), "{names:?}");
    let at = |n: &str| names.iter().position(|x| x == n);
    let request = names
        .iter()
        .position(|x| x.starts_with("request:"))
        .expect("a request event");
    assert_eq!(at("turn-started"), Some(0), "{names:?}");
    assert!(request < names.len() - 2, "{names:?}");
    assert_eq!(names.last().map(String::as_str), Some("turn-ended"));
    client.close().await.unwrap();
    assert!(
        w.work.path().join("made_by_tool").exists(),
        "the allowed command did not run"
    );
    let reqs = w.main_requests();
    let tr = reqs[1].tool_result_for(&id).expect("a tool result");
    assert!(!tr.is_error, "{tr:?}");
}

/// The real CLI takes a prompt written while a tool runs (no `priority`)
/// into the running turn and answers both with one `result`. Each prompt
/// still gets its `TurnEnded`, at that result, and the session is then idle:
/// a program waiting for the second prompt's turn to end does not hang. The
/// `command_lifecycle` lines the library caused by giving the prompts their
/// uuids are its own and are not passed on.
#[tokio::test(flavor = "multi_thread")]
async fn real_cli_a_prompt_taken_into_the_running_turn_ends_with_it() {
    use common::real::*;
    let w = world!("real_cli_a_prompt_taken_into_the_running_turn_ends_with_it");
    // the tool runs until the test has sent the second prompt (and a
    // second more, for the CLI to read it): however slow the test is
    let go = w.work.path().join("go");
    w.api
        .push(Reply::bash("until [ -e go ]; do sleep 0.1; done; sleep 1"));
    w.api.push(Reply::text("Both done."));
    let client = Client::connect(w.options().allowed_tools(["Bash"]))
        .await
        .expect("connect");
    client.send("one").await.unwrap();
    let read = async {
        let mut names = Vec::new();
        let mut events = client.events();
        let mut sent = false;
        let mut ended = 0;
        let mut progress = claudio::progress::Progress::default();
        while let Some(e) = events.next().await {
            let e = e.expect("event");
            progress.observe_event(&e);
            names.push(name(&e));
            match &e {
                Event::Message(Message::Assistant(a))
                    if !sent
                        && a.message
                            .content
                            .iter()
                            .any(|b| matches!(b, claudio::ContentBlock::ToolUse(_))) =>
                {
                    // the tool runs until this prompt is sent: the CLI
                    // reads it meanwhile
                    client.send("two").await.unwrap();
                    std::fs::write(&go, b"").unwrap();
                    sent = true;
                }
                Event::TurnEnded => {
                    ended += 1;
                    if ended == 2 {
                        assert!(!progress.turn_open(), "the reading owes nothing");
                        break;
                    }
                }
                _ => {}
            }
        }
        names
    };
    let names = tokio::time::timeout(TURN_LIMIT, read)
        .await
        .expect("both prompts' turns ended");
    let results = names.iter().filter(|n| *n == "message:result").count();
    assert_eq!(results, 1, "the CLI answered both in one turn: {names:?}");
    let n = names.len();
    assert_eq!(
        names[n - 3..],
        ["message:result", "turn-ended", "turn-ended"],
        "{names:?}"
    );
    assert_eq!(
        names.iter().filter(|n| *n == "turn-started").count(),
        2,
        "{names:?}"
    );
    assert!(
        !names.iter().any(|n| n == "message:command_lifecycle"),
        "{names:?}"
    );
    assert!(!client.turn_open(), "no turn is left open: {names:?}");
    let reqs = w.main_requests();
    let last = reqs.last().expect("requests").body["messages"].to_string();
    assert!(last.contains("two"), "the second prompt reached the model");
    client.close().await.unwrap();
}

/// `query_events` gives a one-shot query's turn as events, as
/// `Client::events` gives a session's, and ends after the turn's end; the
/// library's `Progress` reads the same events: the Bash call runs while it
/// is asked, and the cost is the result's.
#[tokio::test]
async fn a_query_gives_its_turn_as_events_and_progress_reads_them() {
    let fake = bash_turn(json!({"behavior":"allow","updatedInput":{"command":"ls"}}));
    let mut events = claudio::query_events("go", fake.options().requests_as_events(true));
    let mut progress = claudio::progress::Progress::default();
    let mut names = Vec::new();
    let mut running_when_asked = Vec::new();
    let read = async {
        while let Some(e) = events.next().await {
            let e = e.expect("event");
            progress.observe_event(&e);
            names.push(name(&e));
            if let Event::Request(req) = &e {
                running_when_asked = progress.running().map(|c| c.name.clone()).collect();
                req.responder()
                    .answer(PermissionResult::allow())
                    .await
                    .expect("answered");
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(60), read)
        .await
        .expect("the query ended");
    assert_eq!(names.first().map(String::as_str), Some("turn-started"));
    assert_eq!(names.last().map(String::as_str), Some("turn-ended"));
    assert!(names.iter().any(|n| n == "request:perm-1"), "{names:?}");
    assert_eq!(running_when_asked, ["Bash"]);
    assert_eq!(progress.cost_usd(), Some(0.001));
    assert!(!progress.turn_open());
    assert_eq!(progress.results(), 1);
    assert_eq!(answers(&fake).len(), 1);
}

/// The real CLI (2.1.332): the library's `Progress`, fed a real turn's
/// events, says what ran and how it ended, the task list the model kept
/// and the turn's cost, with nothing left running once the turn is over.
#[tokio::test(flavor = "multi_thread")]
async fn real_cli_progress_reads_the_calls_the_task_list_and_the_cost() {
    use claudio::progress::{CallEnd, Change, Progress, TodoStatus};
    use common::real::*;
    let w = world!("real_cli_progress_reads_the_calls_the_task_list_and_the_cost");
    w.api.push(Reply::tool_use(
        "TaskCreate",
        json!({"subject":"Make the file","description":"touch it","activeForm":"Making the file"}),
    ));
    let call = Reply::bash("touch made_by_tool");
    let bash = call.tool_use_id();
    w.api.push(call);
    w.api.push(Reply::tool_use(
        "TaskUpdate",
        json!({"taskId":"1","status":"completed"}),
    ));
    w.api.push(Reply::text("Finished."));
    // the CLI offers its task tools in stream-json mode only when asked
    let options = w
        .options()
        .env("CLAUDE_CODE_ENABLE_TODO_TOOLS", "1")
        .requests_as_events(true);
    let client = Client::connect(options).await.expect("connect");
    client.send("make a file").await.unwrap();
    let mut progress = Progress::default();
    let mut ended = Vec::new();
    let mut running_when_asked = Vec::new();
    let read = async {
        let mut events = client.events();
        while let Some(e) = events.next().await {
            let e = e.expect("event");
            progress.observe_event_with(&e, |c| {
                if let Change::CallEnded { call, end } = c {
                    ended.push((call.name, end));
                }
            });
            match e {
                Event::Request(req) => {
                    running_when_asked = progress.running().map(|c| c.id.clone()).collect();
                    let _ = req.responder().answer(PermissionResult::allow()).await;
                }
                Event::TurnEnded => break,
                _ => {}
            }
        }
    };
    tokio::time::timeout(TURN_LIMIT, read)
        .await
        .expect("the turn ended");
    client.close().await.unwrap();
    assert_eq!(running_when_asked, [bash], "the Bash call runs while asked");
    assert_eq!(
        ended,
        [
            ("TaskCreate".to_owned(), CallEnd::Done),
            ("Bash".to_owned(), CallEnd::Done),
            ("TaskUpdate".to_owned(), CallEnd::Done)
        ]
    );
    let todos = progress.todos().items();
    assert_eq!(todos.len(), 1, "{todos:?}");
    assert_eq!(todos[0].subject, "Make the file");
    assert_eq!(todos[0].id.as_deref(), Some("1"));
    assert_eq!(todos[0].status, TodoStatus::Completed);
    assert_eq!(progress.running().count(), 0);
    assert!(!progress.turn_open());
    assert!(progress.cost_usd().is_some_and(|c| c > 0.0), "{progress:?}");
    assert!(progress.usage().is_some_and(|u| u.output_tokens > 0));
    assert!(w.work.path().join("made_by_tool").exists());
}
