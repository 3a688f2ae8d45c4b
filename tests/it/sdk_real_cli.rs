//! The library against the real CLI (issue 41): what 2.1.336 adds, and what
//! the older CLIs do with it. The module's name matches scripts/test's
//! real-CLI filter, so these run against 2.1.328, 2.1.332 and 2.1.336.

use crate::common;

use claudio::protocol::StartupFailureReason;
use claudio::{Client, Error};
use common::real::*;

/// The CLI's version as (major, minor, patch).
fn version(cli: &std::path::Path) -> (u64, u64, u64) {
    let out = std::process::Command::new(cli)
        .arg("--version")
        .output()
        .expect("claude --version");
    let text = String::from_utf8_lossy(&out.stdout);
    let v: Vec<u64> = text
        .split_whitespace()
        .next()
        .unwrap_or("")
        .split('.')
        .map(|p| p.parse().unwrap_or(0))
        .collect();
    (v[0], v[1], v[2])
}

const UNKNOWN_SESSION: &str = "3f1c2d4e-0000-4000-8000-00000000a41e";

/// `--resume` of an unknown id: the CLI writes an `error_during_execution`
/// result before it answers `initialize`, then exits 1. That result is the
/// connect error, with the CLI's `errors` and (2.1.336) its reason.
#[tokio::test(flavor = "multi_thread")]
async fn real_cli_resume_of_an_unknown_id_fails_with_the_clis_result() {
    let w = world!("real_cli_resume_of_an_unknown_id_fails_with_the_clis_result");
    let v = version(&w.cli);
    let err = Client::connect(w.options().resume(UNKNOWN_SESSION))
        .await
        .expect_err("an unknown session cannot be resumed");
    let Error::StartupFailed { result, code, .. } = &err else {
        panic!("not a startup failure: {err:?}");
    };
    assert_eq!(*code, Some(1));
    assert_eq!(result.subtype, "error_during_execution");
    assert!(result.is_error);
    assert!(
        result
            .errors
            .iter()
            .any(|e| e.contains("No conversation found") && e.contains(UNKNOWN_SESSION)),
        "{result:?}"
    );
    if v >= (2, 1, 336) {
        assert_eq!(
            result.startup_failure_reason,
            Some(StartupFailureReason::ResumeTargetNotFound)
        );
    }
    let text = err.to_string();
    assert!(text.contains("no such session"), "{text}");
    assert!(text.contains("No conversation found"), "{text}");
    assert_eq!(err.startup_failure().map(|r| r.is_error), Some(true));
}

/// `claudio -r ID ask` of a whole id no transcript holds: claudio leaves
/// the answer to the CLI, and says the CLI's own startup failure in words
/// ("no such session" from 2.1.336's reason, or from 2.1.328's words), with
/// the CLI's errors; a usage error (2), as claudio's own look-up gives.
#[test]
fn real_cli_ask_resume_of_an_unknown_id_says_the_clis_answer() {
    let w = world!("real_cli_ask_resume_of_an_unknown_id_says_the_clis_answer");
    let o = w
        .claudio()
        .args(["-r", UNKNOWN_SESSION, "ask", "go on"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(
            "could not start the session: no such session (No conversation found with session ID: "
        ) && err.contains(UNKNOWN_SESSION),
        "{err}"
    );
    assert!(
        !err.contains("no session 3f1c"),
        "claudio's own look-up: {err}"
    );
    assert!(o.stdout.is_empty());
    assert!(w.main_requests().is_empty(), "the model was asked");
}

/// The chat resuming a whole id no transcript holds: the CLI's startup
/// failure shows on screen in words at the first prompt, and the chat
/// exits 2, as `ask` and `claude --resume` do (#41.1).
#[test]
fn real_cli_chat_resume_of_an_unknown_id_shows_the_clis_answer() {
    let w = world!("real_cli_chat_resume_of_an_unknown_id_shows_the_clis_answer");
    let mut c = w.claudio();
    c.env("XDG_DATA_HOME", w.home.path())
        .args(["-r", UNKNOWN_SESSION]);
    // wide: the error is one line
    let mut t = common::term::Term::spawn_sized(c, 40, 220);
    // nothing typed: an unknown id never opens a chat, and never takes a
    // prompt only to drop it (it waited for one, then said so)
    let screen = t.wait_for("No conversation found with session ID");
    assert!(
        screen.contains("could not start the session: no such session"),
        "{screen}"
    );
    assert!(!screen.contains("\n›"), "a prompt was offered:\n{screen}");
    // the chat ends there, as `ask` and `claude --resume` do: a usage
    // error, not a chat going on with no session (#41.1)
    assert_eq!(t.wait(30).code(), Some(2));
    assert!(w.main_requests().is_empty(), "the model was asked");
}

/// One Bash call answered with `answer`: whether the command ran, and the
/// tool result the model saw.
async fn bash_answered(
    w: &World,
    answer: claudio::PermissionResult,
) -> (bool, mock_api::ToolResult) {
    let call = Reply::bash("touch made_by_tool");
    let id = call.tool_use_id();
    w.api.push(call);
    w.api.push(Reply::text("Finished."));
    let options = w.options().can_use_tool(move |_req, _ctx| {
        let answer = answer.clone();
        async move { Ok(answer) }
    });
    let client = Client::connect(options).await.expect("connect");
    client.send("make a file").await.unwrap();
    let msgs = turn(&client).await;
    client.close().await.unwrap();
    assert!(
        matches!(msgs.last(), Some(claudio::Message::Result(r)) if !r.is_error),
        "{msgs:#?}"
    );
    let reqs = w.main_requests();
    assert_eq!(reqs.len(), 2, "{reqs:?}");
    let tr = reqs[1].tool_result_for(&id).expect("a tool result");
    (w.work.path().join("made_by_tool").exists(), tr)
}

/// `decisionClassification` on the permission answer: 2.1.336 takes each
/// value (config included), and an older CLI ignores the field harmlessly:
/// an allow still runs the tool, a deny still refuses it.
#[tokio::test(flavor = "multi_thread")]
async fn real_cli_a_classified_permission_answer_is_taken() {
    use claudio::protocol::DecisionClassification as By;
    use claudio::PermissionResult;
    if real_cli("real_cli_a_classified_permission_answer_is_taken").is_none() {
        return;
    }
    for by in [By::Config, By::UserTemporary, By::UserPermanent] {
        let w = world!("real_cli_a_classified_permission_answer_is_taken");
        let (ran, tr) = bash_answered(&w, PermissionResult::allow().classified(by.clone())).await;
        assert!(ran, "{by}: the allowed command did not run: {tr:?}");
        assert!(!tr.is_error, "{by}: {tr:?}");
    }
    for by in [By::UserReject, By::Config] {
        let w = world!("real_cli_a_classified_permission_answer_is_taken");
        let answer = PermissionResult::deny("not here").classified(by.clone());
        let (ran, tr) = bash_answered(&w, answer).await;
        assert!(!ran, "{by}: the refused command ran");
        assert!(
            tr.is_error && tr.content.contains("not here"),
            "{by}: {tr:?}"
        );
    }
}

/// The `Interrupt` hook (CLI 2.1.336) fires once after `Client::interrupt()`,
/// typed: a person-like stop (`user`, `stop`) that came as a request
/// (`client`). An older CLI knows no such event and never calls it.
#[tokio::test(flavor = "multi_thread")]
async fn real_cli_the_interrupt_hook_fires_once_after_interrupt() {
    use claudio::protocol::hooks::{
        HookEventInput, InterruptReason, InterruptSource, InterruptVia,
    };
    use claudio::{HookEvent, HookMatcher, HookOutput, Message, StreamExt};
    use std::sync::{Arc, Mutex};
    use std::time::Duration;
    let w = world!("real_cli_the_interrupt_hook_fires_once_after_interrupt");
    let v = version(&w.cli);
    let chunks: Vec<String> = (0..40).map(|i| format!("word{i} ")).collect();
    let chunks: Vec<&str> = chunks.iter().map(String::as_str).collect();
    w.api
        .push(Reply::text_chunks(&chunks).with_delay(Duration::from_millis(250)));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s2 = seen.clone();
    let hook = HookMatcher::new(None, move |req, _ctx| {
        let s2 = s2.clone();
        async move {
            s2.lock().unwrap().push(req.event_input());
            Ok(HookOutput::proceed())
        }
    });
    let options = w
        .options()
        .include_partial_messages(true)
        .hook(HookEvent::Interrupt, hook);
    let client = Client::connect(options).await.expect("connect");
    client.send("tell me a long story").await.unwrap();
    let read = async {
        let mut interrupted = false;
        let mut s = std::pin::pin!(client.receive_response());
        while let Some(m) = s.next().await {
            let m = m.expect("message");
            let delta = matches!(&m, Message::StreamEvent(e) if e.text_delta().is_some());
            if delta && !interrupted {
                interrupted = true;
                client.interrupt().await.expect("interrupt");
            }
        }
        interrupted
    };
    let interrupted = tokio::time::timeout(TURN_LIMIT, read)
        .await
        .expect("no result after the interrupt");
    assert!(interrupted, "never saw a text delta");
    client.close().await.unwrap();
    let seen = seen.lock().unwrap().clone();
    if v < (2, 1, 336) {
        assert!(seen.is_empty(), "{seen:?}");
        return;
    }
    assert_eq!(seen.len(), 1, "{seen:?}");
    let HookEventInput::Interrupt(i) = &seen[0] else {
        panic!("not typed: {:?}", seen[0]);
    };
    assert_eq!(i.source, Some(InterruptSource::User), "{i:?}");
    assert_eq!(i.reason, Some(InterruptReason::Stop), "{i:?}");
    assert_eq!(i.via, Some(InterruptVia::Client), "{i:?}");
    assert!(i.extra.is_empty(), "{i:?}");
}

/// A clean close: `close()` ends the session (`end_session`, host_closing),
/// the CLI exits 0, the stream ends (`None`, no error), a second `close` is
/// `Ok`, and a later `send` or request is `Closed`.
#[tokio::test(flavor = "multi_thread")]
async fn real_cli_a_closed_client_ends_cleanly() {
    let w = world!("real_cli_a_closed_client_ends_cleanly");
    w.api.push(Reply::text("Hi."));
    let client = Client::connect(w.options()).await.expect("connect");
    client.send("hello").await.unwrap();
    turn(&client).await;
    let exit = client.close().await.expect("close");
    assert!(exit.success(), "{exit:?}: {}", client.stderr_tail());
    assert!(client.next_message().await.is_none());
    assert!(client.close().await.is_ok());
    assert!(matches!(client.send("again").await, Err(Error::Closed)));
    assert!(matches!(client.interrupt().await, Err(Error::Closed)));
}

/// `end_session` sent by hand: the CLI answers `{}` and exits 0, which is
/// the end of the session, not an error: the stream ends with `None` (it
/// gave `Err(ProcessExited { code: 0 })`), and a later `send` is `Closed`
/// (it was `ProcessExited`).
#[tokio::test(flavor = "multi_thread")]
async fn real_cli_end_session_by_hand_ends_the_stream() {
    let w = world!("real_cli_end_session_by_hand_ends_the_stream");
    w.api.push(Reply::text("Hi."));
    let client = Client::connect(w.options()).await.expect("connect");
    client.send("hello").await.unwrap();
    turn(&client).await;
    let answer = client
        .control("end_session", serde_json::json!({"reason": "host_closing"}))
        .await
        .expect("end_session answered");
    assert_eq!(answer, serde_json::json!({}));
    let rest = tokio::time::timeout(TURN_LIMIT, async {
        let mut rest = Vec::new();
        while let Some(m) = client.next_message().await {
            rest.push(m);
        }
        rest
    })
    .await
    .expect("the stream ends");
    assert!(rest.iter().all(|m| m.is_ok()), "{rest:?}");
    assert!(matches!(client.send("again").await, Err(Error::Closed)));
    let exit = client.close().await.expect("close");
    assert!(exit.success(), "{exit:?}: {}", client.stderr_tail());
}

/// "Send now" on a message queued behind a slow turn: a CLI that lists
/// `interrupt_send_now_v1` (2.1.332 and later) stops the turn for it and
/// says so (`send_now: stopped`), and the message then runs; an older one is
/// not asked (it would take it for a plain interrupt).
#[tokio::test(flavor = "multi_thread")]
async fn real_cli_send_now_runs_the_queued_message() {
    use claudio::protocol::SendNow;
    use claudio::{Message, UserInput};
    use std::time::Duration;
    let w = world!("real_cli_send_now_runs_the_queued_message");
    let chunks: Vec<String> = (0..40).map(|i| format!("word{i} ")).collect();
    let chunks: Vec<&str> = chunks.iter().map(String::as_str).collect();
    w.api
        .push(Reply::text_chunks(&chunks).with_delay(Duration::from_millis(250)));
    w.api.push(Reply::text("Short answer."));
    let client = Client::connect(w.options().include_partial_messages(true))
        .await
        .expect("connect");
    client.send("tell me a long story").await.unwrap();
    let supported = loop {
        let m = client.next_message().await.expect("a message").expect("ok");
        if let Message::System(s) = &m {
            if let claudio::SystemMessage::Init(i) = &**s {
                break i.capabilities.has("interrupt_send_now_v1");
            }
        }
    };
    // the first text delta: the slow turn runs
    loop {
        let m = client.next_message().await.expect("a message").expect("ok");
        if matches!(&m, Message::StreamEvent(e) if e.text_delta().is_some()) {
            break;
        }
    }
    let id = claudio::store::new_uuid();
    client
        .send(UserInput::from("make it short").uuid(id.clone()))
        .await
        .unwrap();
    let answer = client.send_queued_now(Some(&id)).await;
    if !supported {
        assert!(
            matches!(&answer, Err(Error::Control { code: Some(c), .. }) if c == "unsupported_request"),
            "{answer:?}"
        );
        client.kill();
        let _ = client.close().await;
        return;
    }
    let answer = answer.expect("send_now answered");
    assert!(
        matches!(
            answer.send_now,
            Some(SendNow::Stopped | SendNow::Delivering)
        ),
        "{answer:?}"
    );
    // both turns end; the queued message reached the model
    let mut results = 0;
    let read = async {
        while let Some(m) = client.next_message().await {
            if m.expect("ok").is_result() {
                results += 1;
                if results == 2 {
                    break;
                }
            }
        }
    };
    tokio::time::timeout(TURN_LIMIT, read)
        .await
        .expect("both turns end");
    client.close().await.unwrap();
    assert!(
        w.main_requests()
            .iter()
            .any(|r| r.last_user_text().contains("make it short")),
        "the queued message never reached the model"
    );
}
