//! End-to-end scenarios: claudio (library and binary) with the real Claude
//! Code CLI (pinned 2.1.328) and the scripted Messages API on loopback.
//!
//! Each test skips loudly without `CLAUDIO_TEST_REAL_CLI` (and fails under
//! `CI=true`), like `tests/it/real_cli.rs`.

use crate::common;

use claudio::{
    query, Client, HookCallbackRequest, HookMatcher, HookOutput, McpServer, McpTool, Message,
    PermissionResult, ResultMessage, StreamExt, SystemMessage, ToolOutput,
};
use common::real::*;
use serde_json::{json, Value};
use std::process::{Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Send `prompt` and read the whole turn.
async fn ask(client: &Client, prompt: &str) -> Vec<Message> {
    client.send(prompt).await.expect("send");
    turn(client).await
}

fn result(msgs: &[Message]) -> &ResultMessage {
    match msgs.last() {
        Some(Message::Result(r)) => r,
        other => panic!("no result at the end: {other:?}"),
    }
}

async fn connect(options: claudio::Options) -> Client {
    tokio::time::timeout(Duration::from_secs(60), Client::connect(options))
        .await
        .expect("connect timed out")
        .expect("connect")
}

/// A `can_use_tool` handler that allows everything and keeps every request.
fn allow_all_recording(
    options: claudio::Options,
) -> (
    claudio::Options,
    Arc<Mutex<Vec<claudio::CanUseToolRequest>>>,
) {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let a2 = asked.clone();
    let options = options.can_use_tool(move |req: claudio::CanUseToolRequest, _ctx| {
        let a2 = a2.clone();
        async move {
            a2.lock().unwrap().push(req);
            Ok(PermissionResult::allow())
        }
    });
    (options, asked)
}

fn tool_names(asked: &Mutex<Vec<claudio::CanUseToolRequest>>) -> Vec<String> {
    asked
        .lock()
        .unwrap()
        .iter()
        .map(|r| r.tool_name.clone())
        .collect()
}

/// Run `claudio` to completion with stdin closed, killing it after `secs`.
fn run_claudio(mut cmd: std::process::Command, secs: u64) -> (Output, Duration) {
    let started = Instant::now();
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn claudio");
    // Drain both pipes while waiting, so a chatty run can't block on them.
    let mut so = child.stdout.take().unwrap();
    let mut se = child.stderr.take().unwrap();
    let out_t = std::thread::spawn(move || {
        let mut b = Vec::new();
        std::io::Read::read_to_end(&mut so, &mut b).ok();
        b
    });
    let err_t = std::thread::spawn(move || {
        let mut b = Vec::new();
        std::io::Read::read_to_end(&mut se, &mut b).ok();
        b
    });
    let status = common::wait_with_deadline(&mut child, secs);
    let elapsed = started.elapsed();
    let output = Output {
        status,
        stdout: out_t.join().unwrap(),
        stderr: err_t.join().unwrap(),
    };
    (output, elapsed)
}

// ---- 1. Write ---------------------------------------------------------------

#[tokio::test(flavor = "multi_thread")]
async fn write_tool_approved_writes_the_file() {
    let w = world!("write_tool_approved_writes_the_file");
    let path = w.work.path().join("notes.txt");
    let content = "written by the model\nsecond line\n";
    let write = Reply::tool_use(
        "Write",
        json!({"file_path": path.display().to_string(), "content": content}),
    );
    let write_id = write.tool_use_id();
    w.api.push(write);
    w.api.push(Reply::text("Wrote notes.txt."));
    let (options, asked) = allow_all_recording(w.options());
    let client = connect(options).await;
    let msgs = ask(&client, "write some notes").await;
    client.close().await.unwrap();

    assert_eq!(tool_names(&asked), ["Write"]);
    {
        let asked = asked.lock().unwrap();
        assert_eq!(asked[0].input["content"], content, "{:?}", asked[0]);
        assert_eq!(asked[0].tool_use_id.as_deref(), Some(write_id.as_str()));
    }
    assert_eq!(
        std::fs::read_to_string(&path).expect("the file was not written"),
        content
    );
    let r = result(&msgs);
    assert!(!r.is_error, "{r:?}");
    assert_eq!(r.result.as_deref(), Some("Wrote notes.txt."));
    let reqs = w.main_requests();
    assert_eq!(reqs.len(), 2);
    let tr = reqs[1].tool_result_for(&write_id).expect("a tool result");
    assert!(!tr.is_error, "{tr:?}");
}

// ---- 2. In-process MCP tool -------------------------------------------------

fn calc_server(calls: Arc<Mutex<Vec<Value>>>) -> McpServer {
    McpServer::new("calc").tool(McpTool::new(
        "add",
        "Adds two numbers and returns the sum.",
        json!({
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
        }),
        move |args: Value| {
            let calls = calls.clone();
            async move {
                calls.lock().unwrap().push(args.clone());
                let a = args["a"].as_f64().ok_or("a must be a number")?;
                let b = args["b"].as_f64().ok_or("b must be a number")?;
                Ok(ToolOutput::text(format!("sum = {}", a + b)))
            }
        },
    ))
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_tool_in_rust_is_called_by_the_model() {
    let w = world!("mcp_tool_in_rust_is_called_by_the_model");
    let call = Reply::tool_use("mcp__calc__add", json!({"a": 19, "b": 23}));
    let call_id = call.tool_use_id();
    w.api.push(call);
    w.api.push(Reply::text("The sum is 42."));
    let calls = Arc::new(Mutex::new(Vec::new()));
    let (options, asked) = allow_all_recording(w.options().mcp_server(calc_server(calls.clone())));
    let client = connect(options).await;
    let msgs = ask(&client, "add 19 and 23").await;
    let status = client.mcp_status().await.expect("mcp_status");
    client.close().await.unwrap();

    // The CLI tells the model about the tool under its MCP name. (2.1.328
    // defers MCP tools: they are not in `tools` but named for `ToolSearch`;
    // a direct call works all the same.)
    let reqs = w.main_requests();
    assert_eq!(reqs.len(), 2);
    assert!(reqs[0].body_contains("mcp__calc__add"));
    // An SDK server's tool is not pre-approved: the host is asked.
    assert_eq!(tool_names(&asked), ["mcp__calc__add"]);
    assert_eq!(*calls.lock().unwrap(), [json!({"a": 19, "b": 23})]);
    let tr = reqs[1].tool_result_for(&call_id).expect("a tool result");
    assert!(!tr.is_error, "{tr:?}");
    assert!(tr.content.contains("sum = 42"), "{tr:?}");
    assert_eq!(result(&msgs).result.as_deref(), Some("The sum is 42."));
    assert!(
        status
            .servers
            .iter()
            .any(|s| s.name == "calc" && s.is_connected()),
        "{status:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_tool_allowed_by_rule_runs_without_asking() {
    let w = world!("mcp_tool_allowed_by_rule_runs_without_asking");
    let call = Reply::tool_use("mcp__calc__add", json!({"a": 1.5, "b": 2}));
    let call_id = call.tool_use_id();
    w.api.push(call);
    w.api.push(Reply::text("3.5 it is."));
    let calls = Arc::new(Mutex::new(Vec::new()));
    let (options, asked) = allow_all_recording(
        w.options()
            .mcp_server(calc_server(calls.clone()))
            .allowed_tools(["mcp__calc__add"]),
    );
    let client = connect(options).await;
    let msgs = ask(&client, "add 1.5 and 2").await;
    client.close().await.unwrap();

    assert!(tool_names(&asked).is_empty(), "asked although allowed");
    assert_eq!(calls.lock().unwrap().len(), 1);
    let tr = w.main_requests()[1]
        .tool_result_for(&call_id)
        .expect("a tool result");
    assert!(!tr.is_error && tr.content.contains("sum = 3.5"), "{tr:?}");
    assert_eq!(result(&msgs).result.as_deref(), Some("3.5 it is."));
}

// ---- 3. PreToolUse hook -----------------------------------------------------

#[tokio::test(flavor = "multi_thread")]
async fn pre_tool_use_hook_denies_bash() {
    let w = world!("pre_tool_use_hook_denies_bash");
    let bash = Reply::bash("touch hooked_file");
    let bash_id = bash.tool_use_id();
    w.api.push(bash);
    w.api.push(Reply::text("Fine, I won't."));
    let seen: Arc<Mutex<Vec<HookCallbackRequest>>> = Arc::new(Mutex::new(Vec::new()));
    let s2 = seen.clone();
    let hook = HookMatcher::new(Some("Bash"), move |req: HookCallbackRequest, _ctx| {
        let s2 = s2.clone();
        async move {
            s2.lock().unwrap().push(req);
            Ok(HookOutput::deny_tool("the hook forbids touching files"))
        }
    });
    let (options, asked) = allow_all_recording(
        w.options()
            .hook(claudio::protocol::HookEvent::PreToolUse, hook),
    );
    let client = connect(options).await;
    let msgs = ask(&client, "make a file").await;
    client.close().await.unwrap();

    {
        let seen = seen.lock().unwrap();
        assert_eq!(seen.len(), 1, "{seen:?}");
        assert_eq!(seen[0].event(), "PreToolUse");
        assert_eq!(seen[0].input["tool_name"], "Bash");
        assert_eq!(seen[0].input["tool_input"]["command"], "touch hooked_file");
        assert_eq!(seen[0].tool_use_id.as_deref(), Some(bash_id.as_str()));
        // the same, typed
        let input = seen[0].hook_input();
        assert_eq!(
            input.hook_event_name,
            Some(claudio::protocol::HookEvent::PreToolUse)
        );
        assert_eq!(input.tool_name.as_deref(), Some("Bash"));
        assert_eq!(
            input.tool_input.as_ref().unwrap()["command"],
            "touch hooked_file"
        );
        assert!(
            input.session_id.is_some() && input.cwd.is_some(),
            "{input:?}"
        );
        assert_eq!(
            input.permission_mode,
            Some(claudio::PermissionMode::Default)
        );
    }
    assert!(
        tool_names(&asked).is_empty(),
        "the permission handler was asked after the hook denied"
    );
    assert!(
        !w.work.path().join("hooked_file").exists(),
        "a tool the hook denied ran"
    );
    let reqs = w.main_requests();
    assert_eq!(reqs.len(), 2);
    let tr = reqs[1].tool_result_for(&bash_id).expect("a tool result");
    assert!(tr.is_error, "{tr:?}");
    assert!(
        tr.content.contains("the hook forbids touching files"),
        "{tr:?}"
    );
    assert_eq!(result(&msgs).result.as_deref(), Some("Fine, I won't."));
}

// ---- 4. Interrupt -----------------------------------------------------------

#[tokio::test(flavor = "multi_thread")]
async fn interrupt_during_a_slow_answer_then_the_next_turn_works() {
    let w = world!("interrupt_during_a_slow_answer_then_the_next_turn_works");
    let chunks: Vec<String> = (0..40).map(|i| format!("word{i} ")).collect();
    let chunks: Vec<&str> = chunks.iter().map(String::as_str).collect();
    // 40 chunks × 250 ms: 10 s if nobody interrupts.
    w.api
        .push(Reply::text_chunks(&chunks).with_delay(Duration::from_millis(250)));
    w.api.push(Reply::text("Back again."));
    let client = connect(w.options().include_partial_messages(true)).await;
    client.send("tell me a long story").await.unwrap();

    let mut msgs = Vec::new();
    let mut interrupted_at = None;
    let read = async {
        let mut s = std::pin::pin!(client.receive_response());
        while let Some(m) = s.next().await {
            let m = m.expect("message");
            let first_delta = matches!(&m, Message::StreamEvent(e) if e.text_delta().is_some());
            msgs.push(m);
            if first_delta && interrupted_at.is_none() {
                interrupted_at = Some(Instant::now());
                let answer = client.interrupt().await.expect("interrupt");
                assert!(answer.still_queued.is_empty(), "{answer:?}");
            }
        }
    };
    tokio::time::timeout(TURN_LIMIT, read)
        .await
        .expect("no result after the interrupt");
    assert!(interrupted_at.is_some(), "never saw a text delta");
    let r = result(&msgs);
    assert!(r.was_interrupted(), "{r:?}");
    assert_eq!(r.subtype, "error_during_execution", "{r:?}");
    // Only a few of the 40 chunks came through: the slow answer was cut
    // short (how soon is the loaded machine's, not claudio's).
    let streamed: String = msgs
        .iter()
        .filter_map(|m| match m {
            Message::StreamEvent(e) => e.text_delta().map(str::to_owned),
            _ => None,
        })
        .collect();
    assert!(streamed.starts_with("word0 "), "{streamed:?}");
    assert!(!streamed.contains("word39"), "{streamed:?}");

    // The session goes on.
    let msgs = ask(&client, "are you there?").await;
    client.close().await.unwrap();
    let r = result(&msgs);
    assert!(!r.is_error, "{r:?}");
    assert_eq!(r.result.as_deref(), Some("Back again."));
    let reqs = w.main_requests();
    assert_eq!(reqs.len(), 2);
    assert!(reqs[1].last_user_text().contains("are you there?"));
}

// ---- 5. set_model -----------------------------------------------------------

#[tokio::test(flavor = "multi_thread")]
async fn set_model_names_the_new_model_in_the_next_request() {
    let w = world!("set_model_names_the_new_model_in_the_next_request");
    w.api.push(Reply::text("First."));
    w.api.push(Reply::text("Second."));
    let client = connect(w.options()).await;
    let first = ask(&client, "one").await;
    assert_eq!(result(&first).result.as_deref(), Some("First."));
    // the result's usage and per-model usage, typed
    let r = result(&first);
    let usage = r.usage.as_ref().expect("usage");
    assert!(
        usage.input_tokens > 0 && usage.output_tokens > 0,
        "{usage:?}"
    );
    let (model, per_model) = r.model_usage.iter().next().expect("modelUsage");
    assert!(!model.is_empty());
    assert_eq!(
        per_model.output_tokens, usage.output_tokens,
        "{per_model:?}"
    );
    assert!(per_model.cost_usd > 0.0);
    assert_eq!(r.kind(), claudio::protocol::ResultSubtype::Success);
    assert!(r.errors().is_empty());
    // the context window, typed
    let ctx = client.context_usage().await.expect("context_usage");
    assert!(ctx.max_tokens > 0 && ctx.total_tokens > 0, "{ctx:?}");
    assert!(
        ctx.categories
            .iter()
            .any(|c| c.name == "Messages" && c.tokens > 0),
        "{ctx:?}"
    );
    // the mode, as an enum; the CLI confirms it
    let mode = client
        .set_permission_mode(claudio::PermissionMode::AcceptEdits)
        .await
        .expect("set_permission_mode");
    assert_eq!(mode.mode, Some(claudio::PermissionMode::AcceptEdits));
    let set = client
        .set_model(Some("claude-sonnet-4-5"))
        .await
        .expect("set_model");
    // the CLI's answer, typed
    assert_eq!(set.model.as_deref(), Some("claude-sonnet-4-5"), "{set:?}");
    let second = ask(&client, "two").await;
    client.close().await.unwrap();
    assert_eq!(result(&second).result.as_deref(), Some("Second."));

    let reqs = w.main_requests();
    assert_eq!(reqs.len(), 2);
    assert_ne!(reqs[0].model(), Some("claude-sonnet-4-5"));
    assert_eq!(reqs[1].model(), Some("claude-sonnet-4-5"));
    let init_model = second.iter().find_map(|m| match m {
        Message::System(s) => match &**s {
            SystemMessage::Init(i) => i.model.clone(),
            _ => None,
        },
        _ => None,
    });
    assert_eq!(init_model.as_deref(), Some("claude-sonnet-4-5"));
}

// ---- 6. Resume and fork -----------------------------------------------------

const FIRST_PROMPT: &str = "remember the word pineapple";
const FIRST_ANSWER: &str = "I will remember pineapple.";

/// A first session with one turn, closed; its session id.
async fn first_session(w: &World) -> String {
    w.api.push(Reply::text(FIRST_ANSWER));
    let client = connect(w.options()).await;
    let msgs = ask(&client, FIRST_PROMPT).await;
    let info = client.close().await.unwrap();
    let r = result(&msgs);
    assert_eq!(r.result.as_deref(), Some(FIRST_ANSWER));
    assert!(info.success(), "{info:?}");
    r.session_id.clone().expect("a session id")
}

/// Whether the request's conversation holds the first session's turn.
fn sees_first_turn(req: &RecordedRequest) -> bool {
    let messages = req.messages();
    let text_of = |role: &str| {
        messages
            .iter()
            .filter(|m| m["role"] == role)
            .map(|m| m["content"].to_string())
            .collect::<String>()
    };
    text_of("user").contains(FIRST_PROMPT) && text_of("assistant").contains(FIRST_ANSWER)
}

#[tokio::test(flavor = "multi_thread")]
async fn resume_sends_the_earlier_turns() {
    let w = world!("resume_sends_the_earlier_turns");
    let id = first_session(&w).await;
    w.api.push(Reply::text("The word was pineapple."));
    let client = connect(w.options().resume(id.clone())).await;
    let msgs = ask(&client, "what was the word?").await;
    client.close().await.unwrap();

    let r = result(&msgs);
    assert_eq!(r.result.as_deref(), Some("The word was pineapple."));
    assert_eq!(r.session_id.as_deref(), Some(id.as_str()));
    let reqs = w.main_requests();
    assert_eq!(reqs.len(), 2);
    assert!(
        sees_first_turn(&reqs[1]),
        "the resumed turn lacks the first one: {:?}",
        reqs[1].messages()
    );
    assert!(reqs[1].last_user_text().contains("what was the word?"));
}

#[tokio::test(flavor = "multi_thread")]
async fn fork_gets_a_new_id_and_keeps_the_earlier_turns() {
    let w = world!("fork_gets_a_new_id_and_keeps_the_earlier_turns");
    let id = first_session(&w).await;
    w.api.push(Reply::text("Forked: pineapple."));
    let client = connect(w.options().resume(id.clone()).fork_session(true)).await;
    let msgs = ask(&client, "what was the word, in the fork?").await;
    client.close().await.unwrap();

    let r = result(&msgs);
    assert_eq!(r.result.as_deref(), Some("Forked: pineapple."));
    let fork_id = r.session_id.clone().expect("a session id");
    assert_ne!(fork_id, id, "the fork kept the original id");
    let reqs = w.main_requests();
    assert_eq!(reqs.len(), 2);
    assert!(
        sees_first_turn(&reqs[1]),
        "the fork lacks the first turn: {:?}",
        reqs[1].messages()
    );
    // Both transcripts are on disk, side by side.
    let projects = w.home.path().join(".claude").join("projects");
    let mut names = Vec::new();
    for dir in std::fs::read_dir(&projects).unwrap() {
        for f in std::fs::read_dir(dir.unwrap().path()).unwrap() {
            names.push(f.unwrap().file_name().to_string_lossy().into_owned());
        }
    }
    assert!(names.contains(&format!("{id}.jsonl")), "{names:?}");
    assert!(names.contains(&format!("{fork_id}.jsonl")), "{names:?}");
}

// ---- 7. API error -----------------------------------------------------------

const BILLING: &str = "Mock account 7 is suspended for this test.";

#[test]
fn ask_reports_an_api_error_and_exits_1() {
    let w = world!("ask_reports_an_api_error_and_exits_1");
    w.api.push(Reply::fatal(BILLING));
    let mut cmd = w.claudio();
    cmd.args(["ask", "hello?"]);
    let (out, _) = run_claudio(cmd, 180);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "stderr: {err}");
    assert!(err.contains("402") && err.contains(BILLING), "{err}");
    // not retried (the request count says so, whatever the machine's load)
    assert_eq!(w.main_requests().len(), 1, "the CLI retried");
}

/// The CLI reports an API error as a synthetic assistant message; `ask` must
/// not print it on stdout as if it were the answer (`> answer.txt` would get
/// the error text), and the stderr report must not call the run a "success"
/// (the CLI's result subtype for API errors).
#[test]
fn ask_api_error_goes_to_stderr_only() {
    let w = world!("ask_api_error_goes_to_stderr_only");
    w.api.push(Reply::fatal(BILLING));
    let mut cmd = w.claudio();
    cmd.args(["ask", "hello?"]);
    let (out, _) = run_claudio(cmd, 180);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "stderr: {err}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout, "", "the API error was printed as the answer");
    assert!(!err.contains("success"), "stderr: {err}");
}

#[tokio::test(flavor = "multi_thread")]
async fn api_error_gives_an_error_result_through_the_library() {
    let w = world!("api_error_gives_an_error_result_through_the_library");
    w.api.push(Reply::fatal(BILLING));
    let collect = query("hello?", w.options())
        .map(|m| m.expect("message"))
        .collect::<Vec<Message>>();
    let msgs = tokio::time::timeout(TURN_LIMIT, collect)
        .await
        .expect("query hung");
    assert_eq!(w.main_requests().len(), 1, "the CLI retried");
    let r = result(&msgs);
    assert!(r.is_error, "{r:?}");
    assert_eq!(r.terminal_reason.as_deref(), Some("api_error"), "{r:?}");
    assert!(r.result.as_deref().unwrap_or("").contains(BILLING), "{r:?}");
    let synthetic = msgs.iter().any(|m| match m {
        Message::Assistant(a) => a.is_synthetic() && a.text().contains(BILLING),
        _ => false,
    });
    assert!(synthetic, "no synthetic assistant message: {msgs:?}");
}

/// An overloaded API (529) is retried: the host sees `system/api_retry`, then
/// the turn succeeds.
#[tokio::test(flavor = "multi_thread")]
async fn retried_api_error_is_reported_then_the_turn_succeeds() {
    let w = world!("retried_api_error_is_reported_then_the_turn_succeeds");
    w.api
        .push(Reply::api_error(529, "overloaded_error", "Overloaded"));
    w.api.push(Reply::text("Recovered."));
    let client = connect(w.options()).await;
    let msgs = ask(&client, "hello?").await;
    client.close().await.unwrap();
    let retries: Vec<&claudio::protocol::ApiRetry> = msgs
        .iter()
        .filter_map(|m| match m {
            Message::System(s) => match &**s {
                SystemMessage::ApiRetry(r) => Some(r),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(retries.len(), 1, "{msgs:?}");
    assert_eq!(retries[0].error_status, Some(529), "{:?}", retries[0]);
    assert_eq!(retries[0].attempt, Some(1), "{:?}", retries[0]);
    let r = result(&msgs);
    assert!(!r.is_error, "{r:?}");
    assert_eq!(r.result.as_deref(), Some("Recovered."));
    assert_eq!(w.main_requests().len(), 2);
}

/// The chat shows the CLI's retry while it waits, then the answer.
#[test]
fn chat_shows_the_retry_then_the_answer() {
    let w = world!("chat_shows_the_retry_then_the_answer");
    w.api
        .push(Reply::api_error(529, "overloaded_error", "Overloaded"));
    w.api.push(Reply::text("Recovered in the chat."));
    let mut c = w.claudio();
    c.env("XDG_DATA_HOME", w.home.path());
    let mut t = common::term::Term::spawn(c);
    t.wait_for("Ctrl-D exits");
    t.line("hello?");
    t.wait_for("retrying (1/10)");
    let screen = t.wait_for("Recovered in the chat.");
    assert!(
        screen.contains("529") || screen.contains("overloaded"),
        "{screen}"
    );
    t.wait_for("1 API call ·");
    t.ctrl_d();
    assert_eq!(t.wait(30).code(), Some(0));
}

/// The rows of a screen that say something of the CLI's retries.
fn retry_rows(screen: &str) -> Vec<String> {
    screen
        .lines()
        .filter(|l| l.contains('↻'))
        .map(str::to_owned)
        .collect()
}

/// The CLI retries an overloaded API (529) three times: the chat shows
/// one row that says the newest attempt, in place, and once the answer
/// comes one line in the scrollback that says what the retries came to.
/// A row each was left before.
#[test]
fn chat_shows_retries_on_one_row_then_what_they_came_to() {
    let w = world!("chat_shows_retries_on_one_row_then_what_they_came_to");
    w.api
        .push(Reply::api_error(529, "overloaded_error", "Overloaded").times(3));
    w.api.push(Reply::text("Recovered after three."));
    let mut c = w.claudio();
    c.env("XDG_DATA_HOME", w.home.path());
    let mut t = common::term::Term::spawn(c);
    t.wait_for("Ctrl-D exits");
    t.line("hello?");
    let screen = t.wait_for("retrying (3/10)");
    assert_eq!(retry_rows(&screen).len(), 1, "{screen}");
    t.wait_for("Recovered after three.");
    let screen = t.wait_for("1 API call ·");
    let rows = retry_rows(&screen);
    assert_eq!(rows.len(), 1, "{screen}");
    assert!(rows[0].contains("↻ retried 3 times — "), "{screen}");
    assert!(!screen.contains("retrying"), "{screen}");
    t.ctrl_d();
    assert_eq!(t.wait(30).code(), Some(0));
}

/// `ask` on a terminal: the retries are the spinner's one line on stderr,
/// in place, then one line that says what they came to, above the
/// answer. Nothing was said of them before.
#[test]
fn ask_on_a_terminal_shows_retries_on_one_line() {
    let w = world!("ask_on_a_terminal_shows_retries_on_one_line");
    w.api
        .push(Reply::api_error(529, "overloaded_error", "Overloaded").times(3));
    w.api.push(Reply::text("Recovered in ask."));
    let mut c = w.claudio();
    c.args(["ask", "hello?"]);
    let mut t = common::term::Term::spawn(c);
    let screen = t.wait_for("retrying (3/10)");
    assert_eq!(retry_rows(&screen).len(), 1, "{screen}");
    let screen = t.wait_for("Recovered in ask.");
    let rows = retry_rows(&screen);
    assert_eq!(rows.len(), 1, "{screen}");
    assert!(rows[0].starts_with("  ↻ retried 3 times — "), "{screen}");
    assert!(!screen.contains("retrying"), "{screen}");
    assert_eq!(t.wait(120).code(), Some(0));
}

// ---- 8. ask -o json / stream-json ------------------------------------------

#[test]
fn ask_json_prints_the_result_line() {
    let w = world!("ask_json_prints_the_result_line");
    w.api.push(Reply::text_chunks(&["Forty", "-two."]));
    let mut cmd = w.claudio();
    cmd.args(["ask", "-o", "json", "the answer?"]);
    let (out, _) = run_claudio(cmd, 180);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 1, "{stdout:?}");
    assert!(stdout.ends_with('\n'));
    let v: Value = serde_json::from_str(stdout.trim_end()).expect("one JSON object");
    assert_eq!(v["type"], "result", "{v}");
    assert_eq!(v["subtype"], "success");
    assert_eq!(v["is_error"], false);
    assert_eq!(v["result"], "Forty-two.");
    assert!(v["session_id"].as_str().is_some_and(|s| !s.is_empty()));
}

#[test]
fn ask_stream_json_prints_every_line() {
    let w = world!("ask_stream_json_prints_every_line");
    w.api
        .push(Reply::text_chunks(&["Stream", "ed ", "answer."]));
    let mut cmd = w.claudio();
    cmd.args(["ask", "-o", "stream-json", "stream it"]);
    let (out, _) = run_claudio(cmd, 180);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l:?}")))
        .collect();
    let kinds: Vec<String> = lines
        .iter()
        .map(|v| {
            let t = v["type"].as_str().unwrap_or("?");
            match v["subtype"].as_str() {
                Some(s) => format!("{t}/{s}"),
                None => t.to_owned(),
            }
        })
        .collect();
    let has = |k: &str| kinds.iter().any(|x| x == k);
    assert!(has("system/init"), "{kinds:?}");
    assert!(has("assistant"), "{kinds:?}");
    assert_eq!(
        kinds.last().map(String::as_str),
        Some("result/success"),
        "{kinds:?}"
    );
    assert_eq!(lines.last().unwrap()["result"], "Streamed answer.");
    // Control traffic between claudio and the CLI is not part of the output.
    assert!(
        !kinds.iter().any(|k| k.starts_with("control_")),
        "{kinds:?}"
    );
    // The token deltas are there too, in order.
    assert!(has("stream_event"), "no stream_event lines: {kinds:?}");
    let deltas: String = lines
        .iter()
        .filter(|v| v["type"] == "stream_event")
        .filter_map(|v| v.pointer("/event/delta/text").and_then(Value::as_str))
        .collect();
    assert_eq!(deltas, "Streamed answer.");
}

// ---- 9. Secrets -------------------------------------------------------------

fn assert_no_key(out: &Output) {
    for (name, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        let text = String::from_utf8_lossy(bytes);
        assert!(!text.contains(API_KEY), "the API key is on {name}:\n{text}");
        // Nor a recognisable part of it.
        assert!(
            !text.contains("SECRET-never-print"),
            "part of the API key is on {name}:\n{text}"
        );
    }
}

#[test]
fn verbose_debug_ask_never_prints_the_api_key() {
    let w = world!("verbose_debug_ask_never_prints_the_api_key");
    // A tool call (denied: no terminal) and an answer: plenty of traffic.
    w.api.push(Reply::bash("echo hi"));
    w.api.push(Reply::text("All done."));
    let mut cmd = w.claudio();
    cmd.args(["--verbose", "--debug", "ask", "say hi"]);
    let (out, _) = run_claudio(cmd, 180);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "All done.\n");
    // --debug did log something, so this run proves something.
    assert!(err.contains("started the CLI"), "{err}");
    assert_no_key(&out);

    // And the same with -o stream-json, where every CLI line is printed.
    w.api.push(Reply::text("Again."));
    let mut cmd = w.claudio();
    cmd.args(["--verbose", "--debug", "ask", "-o", "stream-json", "again"])
        .env("ANTHROPIC_LOG", "debug");
    let (out, _) = run_claudio(cmd, 180);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_no_key(&out);
}

#[test]
fn verbose_debug_api_error_never_prints_the_api_key() {
    let w = world!("verbose_debug_api_error_never_prints_the_api_key");
    // The key was refused: the likeliest place for a key to be echoed.
    // (`x-should-retry: false` keeps the CLI from retrying for minutes.)
    w.api.push(
        Reply::api_error(401, "authentication_error", "invalid x-api-key")
            .with_header("x-should-retry", "false"),
    );
    let mut cmd = w.claudio();
    // ANTHROPIC_LOG=debug makes the CLI's API client log every request, with
    // its headers, as non-JSON lines on the CLI's stdout.
    cmd.args(["--verbose", "--debug", "ask", "hello?"])
        .env("ANTHROPIC_LOG", "debug");
    let (out, _) = run_claudio(cmd, 180);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_no_key(&out);
}

// ---- TypeScript SDK parity: options and host requests ------------------------

#[tokio::test(flavor = "multi_thread")]
async fn json_schema_gives_structured_output() {
    let w = world!("json_schema_gives_structured_output");
    w.api.push(Reply::tool_use(
        "StructuredOutput",
        json!({"name": "Ada", "age": 36}),
    ));
    let schema = json!({"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"}},"required":["name"]});
    let client = connect(w.options().json_schema(schema)).await;
    let msgs = ask(&client, "who wrote the first program?").await;
    client.close().await.unwrap();
    let r = result(&msgs);
    assert!(!r.is_error, "{r:?}");
    assert_eq!(r.structured_output, Some(json!({"name": "Ada", "age": 36})));
    // the model was handed the schema as a tool
    let reqs = w.main_requests();
    assert!(reqs[0].body_contains("StructuredOutput"));
    assert_eq!(reqs.len(), 1, "the turn ends without another request");
}

#[tokio::test(flavor = "multi_thread")]
async fn effort_budget_session_id_and_no_persistence_reach_the_cli() {
    let w = world!("effort_budget_session_id_and_no_persistence_reach_the_cli");
    w.api.push(Reply::text("Spent."));
    let id = "0b7d4e8a-9c55-4f0e-8d3c-4b5a3f2a9c1e";
    let options = w
        .options()
        .effort(claudio::protocol::Effort::High)
        .max_budget_usd(0.000001)
        .session_id(id)
        .persist_session(false);
    let client = connect(options).await;
    let msgs = ask(&client, "spend a little").await;
    client.close().await.unwrap();
    let r = result(&msgs);
    // the budget ends the turn, typed
    assert_eq!(
        r.kind(),
        claudio::protocol::ResultSubtype::ErrorMaxBudgetUsd,
        "{r:?}"
    );
    assert!(r.errors()[0].contains("maximum budget"), "{:?}", r.errors());
    assert_eq!(r.session_id.as_deref(), Some(id));
    let reqs = w.main_requests();
    assert_eq!(reqs[0].body["output_config"]["effort"], "high");
    // nothing written under the projects folder
    let projects = w.home.path().join(".claude/projects");
    let transcripts = common::walk(&projects)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .count();
    assert_eq!(transcripts, 0, "a transcript was written");
}

#[tokio::test(flavor = "multi_thread")]
async fn host_requests_answer_typed() {
    let w = world!("host_requests_answer_typed");
    w.api.push(Reply::text("Hello."));
    let calls = Arc::new(Mutex::new(Vec::new()));
    let client = connect(w.options().mcp_server(calc_server(calls))).await;
    // what initialize told, as the TypeScript SDK's accessors
    assert!(client
        .supported_models()
        .iter()
        .any(|m| m.value == "default"));
    assert!(!client.supported_commands().is_empty());
    assert!(client
        .supported_agents()
        .iter()
        .any(|a| a.name == "Explore"));
    assert_eq!(
        client
            .account_info()
            .and_then(|a| a.api_key_source.as_deref()),
        Some("ANTHROPIC_API_KEY")
    );
    let models = client.list_models().await.expect("list_models");
    assert_eq!(models.len(), client.supported_models().len());
    client
        .set_max_thinking_tokens(Some(3000))
        .await
        .expect("set_max_thinking_tokens");
    ask(&client, "hi").await;
    // an in-process server: on, off, on again
    let status = client.mcp_status().await.unwrap();
    assert!(
        status
            .servers
            .iter()
            .any(|s| s.name == "calc" && s.is_connected()),
        "{status:?}"
    );
    client
        .mcp_toggle("calc", false)
        .await
        .expect("mcp_toggle off");
    let status = client.mcp_status().await.unwrap();
    let calc = status
        .servers
        .iter()
        .find(|s| s.name == "calc")
        .expect("calc");
    assert_eq!(calc.status, "disabled");
    // reconnecting an in-process server is refused by the CLI: an error, not a hang
    assert!(client.mcp_reconnect("calc").await.is_err());
    // an unknown task is no error to the CLI
    client.stop_task("no-such-task").await.expect("stop_task");
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_typed_tool_gets_its_arguments_and_tells_the_model_when_they_do_not_fit() {
    let w = world!("a_typed_tool_gets_its_arguments_and_tells_the_model_when_they_do_not_fit");
    #[derive(serde::Deserialize)]
    struct Add {
        a: i64,
        b: i64,
    }
    let bad = Reply::tool_use("mcp__calc__add", json!({"a": "nineteen", "b": 23}));
    let bad_id = bad.tool_use_id();
    w.api.push(bad);
    let good = Reply::tool_use("mcp__calc__add", json!({"a": 19, "b": 23}));
    let good_id = good.tool_use_id();
    w.api.push(good);
    w.api.push(Reply::text("42."));
    let tool = McpTool::typed(
        "add",
        "Adds two integers.",
        json!({"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}),
        |x: Add| async move { Ok(ToolOutput::text((x.a + x.b).to_string())) },
    );
    let options = w
        .options()
        .mcp_server(McpServer::new("calc").tool(tool))
        .allowed_tools(["mcp__calc__add"]);
    let client = connect(options).await;
    let msgs = ask(&client, "add 19 and 23").await;
    client.close().await.unwrap();
    assert_eq!(result(&msgs).result.as_deref(), Some("42."));
    let reqs = w.main_requests();
    let first = reqs[1]
        .tool_result_for(&bad_id)
        .expect("the first call's result");
    assert!(first.is_error, "{first:?}");
    assert!(
        first.content.contains("invalid arguments for `add`"),
        "{first:?}"
    );
    let second = reqs[2]
        .tool_result_for(&good_id)
        .expect("the second call's result");
    assert!(
        !second.is_error && second.content.contains("42"),
        "{second:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_plan_approved_through_the_library_switches_the_mode() {
    let w = world!("a_plan_approved_through_the_library_switches_the_mode");
    let plan = "# Plan\n1. Write hello.txt";
    w.api
        .push(Reply::tool_use("ExitPlanMode", json!({ "plan": plan })));
    w.api.push(Reply::text("Plan approved; writing it."));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s2 = seen.clone();
    let options = w
        .options()
        .permission_mode(claudio::PermissionMode::Plan)
        .can_use_tool(move |req, _ctx| {
            let s2 = s2.clone();
            async move {
                s2.lock().unwrap().push(req.tool_name.clone());
                assert_eq!(req.tool_name, claudio::protocol::ask::EXIT_PLAN_MODE);
                Ok(req.approve_plan(claudio::PermissionMode::AcceptEdits, None))
            }
        });
    let client = connect(options).await;
    let msgs = ask(&client, "plan it").await;
    client.close().await.unwrap();
    assert_eq!(seen.lock().unwrap().as_slice(), ["ExitPlanMode"]);
    // the CLI confirms the new mode
    let confirmed = msgs.iter().any(|m| match m {
        Message::System(s) => match &**s {
            SystemMessage::Status(st) => {
                st.permission_mode == Some(claudio::PermissionMode::AcceptEdits)
            }
            _ => false,
        },
        _ => false,
    });
    assert!(confirmed, "{msgs:#?}");
    // the model was told the plan it got approved
    let reqs = w.main_requests();
    assert!(reqs[1].body_contains("Write hello.txt"));
}

#[test]
fn ask_json_schema_prints_the_structured_answer() {
    let w = world!("ask_json_schema_prints_the_structured_answer");
    w.api.push(Reply::tool_use(
        "StructuredOutput",
        json!({"files": 3, "largest": "README.md"}),
    ));
    let mut cmd = w.claudio();
    cmd.args([
        "ask",
        "--json-schema",
        r#"{"type":"object","properties":{"files":{"type":"integer"},"largest":{"type":"string"}},"required":["files"]}"#,
        "count the files",
    ]);
    let (out, _) = run_claudio(cmd, 180);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let v: Value = serde_json::from_str(stdout.trim_end()).expect("one JSON object");
    assert_eq!(v, json!({"files": 3, "largest": "README.md"}));
    assert_eq!(stdout.lines().count(), 1, "{stdout:?}");
}
