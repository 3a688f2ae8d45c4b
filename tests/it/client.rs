//! The library against the scripted fake CLI: turns, control routing, faults.

use crate::common;

use claudio::protocol::{ContentBlock, SystemMessage};
use claudio::{
    query, Client, Error, HookMatcher, HookOutput, McpServer, McpTool, Message, Options,
    PermissionResult, StreamExt, ToolOutput,
};
use common::*;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

async fn collect_turn(client: &Client) -> Vec<Message> {
    let mut out = Vec::new();
    let mut s = std::pin::pin!(client.receive_response());
    while let Some(m) = s.next().await {
        out.push(m.expect("message"));
    }
    out
}

/// The last thing a turn's stream gives, `None` when it hung past `bound`
/// (a guard against a hang, not a time it may take).
async fn last_of_turn(client: &Client, bound: Duration) -> Option<Option<Result<Message, Error>>> {
    let mut last = None;
    let mut s = std::pin::pin!(client.receive_response());
    tokio::time::timeout(bound, async {
        while let Some(m) = s.next().await {
            last = Some(m);
        }
    })
    .await
    .ok()?;
    Some(last)
}

fn text_of_deltas(msgs: &[Message]) -> String {
    msgs.iter()
        .filter_map(|m| match m {
            Message::StreamEvent(e) => e.text_delta().map(str::to_owned),
            _ => None,
        })
        .collect()
}

fn last_result(msgs: &[Message]) -> &claudio::ResultMessage {
    match msgs.last() {
        Some(Message::Result(r)) => r,
        other => panic!("turn did not end with a result: {other:?}"),
    }
}

#[tokio::test]
async fn query_streams_one_turn_and_closes() {
    let mut fake = Fake::new(vec![]);
    let marker = fake.record.path().join("closed-cleanly");
    fake.steps = steps(vec![
        init(),
        turn("hello", "Hi there!"),
        vec![
            Step::WaitStdinEof,
            Step::WriteFile {
                path: marker.display().to_string(),
                content: "ok".into(),
            },
        ],
    ]);

    let msgs: Vec<Message> = query("hello", fake.options().include_partial_messages(true))
        .map(|m| m.expect("message"))
        .collect()
        .await;
    assert!(matches!(&msgs[0], Message::System(s) if matches!(**s, SystemMessage::Init(_))));
    assert_eq!(text_of_deltas(&msgs), "Hi there!");
    assert_eq!(last_result(&msgs).result.as_deref(), Some("Hi there!"));
    // closed gracefully: stdin EOF reached the CLI, which then finished
    assert_eq!(std::fs::read_to_string(&marker).unwrap(), "ok");
    assert!(gone_within(fake.pid(), Duration::from_secs(5)));

    let argv = fake.argv();
    for flag in [
        "--output-format",
        "stream-json",
        "--input-format",
        "--verbose",
        "--include-partial-messages",
    ] {
        assert!(argv.iter().any(|a| a == flag), "{flag} missing in {argv:?}");
    }
    assert_eq!(fake.env()["CLAUDE_CODE_ENTRYPOINT"], "sdk-rust");
    let sent = fake.stdin_lines();
    assert_eq!(sent[0]["request"]["subtype"], "initialize");
    assert_eq!(sent[1]["type"], "user");
    assert_eq!(sent[1]["message"]["content"], "hello");
}

#[tokio::test]
async fn several_turns_on_one_client() {
    let fake = Fake::after_init(vec![
        turn("one", "first"),
        turn("two", "second"),
        turn("three", "third"),
    ]);
    let client = Client::connect(fake.options().include_partial_messages(true))
        .await
        .unwrap();
    assert_eq!(client.server_info().models[0].value, "fake");
    for (p, a) in [("one", "first"), ("two", "second"), ("three", "third")] {
        client.send(p).await.unwrap();
        let msgs = collect_turn(&client).await;
        assert_eq!(text_of_deltas(&msgs), a);
        assert_eq!(last_result(&msgs).result.as_deref(), Some(a));
    }
    assert_eq!(client.session_id().as_deref(), Some("sess-1"));
    let pid = fake.pid();
    let exit = client.close().await.unwrap();
    assert!(exit.success(), "{exit:?}");
    assert!(gone_within(pid, Duration::from_secs(5)));
}

fn permission_scenario(expected_response: Value) -> Vec<Step> {
    steps(vec![
        init(),
        vec![
            expect_user("run it"),
            system_init(),
            assistant_tool_use("toolu_1", "Bash", json!({"command":"touch a"})),
            Step::Emit(
                json!({"type":"control_request","request_id":"perm-1","request":{
                "subtype":"can_use_tool","tool_name":"Bash","input":{"command":"touch a"},
                "permission_suggestions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"touch a"}],"behavior":"allow","destination":"localSettings"}],
                "tool_use_id":"toolu_1"}}),
            ),
            Step::expect(
                json!({"type":"control_response","response":{"subtype":"success","request_id":"perm-1","response":expected_response}}),
            ),
            result("done"),
        ],
    ])
}

async fn run_permission(expected: Value, answer: PermissionResult) -> Fake {
    let fake = Fake::new(permission_scenario(expected));
    let asked = Arc::new(Mutex::new(Vec::new()));
    let a2 = asked.clone();
    let options = fake
        .options()
        .can_use_tool(move |req: claudio::CanUseToolRequest, _ctx| {
            let answer = answer.clone();
            let asked = a2.clone();
            async move {
                asked.lock().unwrap().push(req.tool_name.clone());
                Ok(answer)
            }
        });
    let client = Client::connect(options).await.unwrap();
    client.send("run it").await.unwrap();
    let msgs = collect_turn(&client).await;
    assert_eq!(last_result(&msgs).result.as_deref(), Some("done"));
    assert_eq!(*asked.lock().unwrap(), vec!["Bash".to_string()]);
    let argv = fake.argv();
    let i = argv
        .iter()
        .position(|a| a == "--permission-prompt-tool")
        .unwrap();
    assert_eq!(argv[i + 1], "stdio");
    let exit = client.close().await.unwrap();
    // the fake exits 3 if our answer did not match what it expected
    assert!(exit.success(), "fake rejected the answer: {exit:?}");
    fake
}

#[tokio::test]
async fn a_plan_request_hands_the_handler_the_plan_the_session_saw() {
    // the CLI 2.1.328 sends ExitPlanMode's request with an empty input: the
    // plan is only in the assistant's tool_use block before it
    let plan = "# Plan\n1. write the parser\n2. test it";
    let fake = Fake::after_init(vec![vec![
        expect_user("plan it"),
        system_init(),
        assistant_tool_use(
            "toolu_old",
            "ExitPlanMode",
            json!({"plan": "an older plan"}),
        ),
        assistant_tool_use("toolu_p", "ExitPlanMode", json!({"plan": plan})),
        Step::Emit(
            json!({"type":"control_request","request_id":"perm-p","request":{
                "subtype":"can_use_tool","tool_name":"ExitPlanMode","input":{},
                "tool_use_id":"toolu_p"}}),
        ),
        Step::expect(
            json!({"type":"control_response","response":{"subtype":"success","request_id":"perm-p",
                "response":{"behavior":"deny","message":"keep planning"}}}),
        ),
        result("done"),
    ]]);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s2 = seen.clone();
    let options = fake
        .options()
        .can_use_tool(move |req: claudio::CanUseToolRequest, _ctx| {
            let seen = s2.clone();
            async move {
                seen.lock().unwrap().push(req.plan().map(str::to_owned));
                Ok(PermissionResult::deny("keep planning"))
            }
        });
    let client = Client::connect(options).await.unwrap();
    client.send("plan it").await.unwrap();
    let msgs = collect_turn(&client).await;
    assert_eq!(last_result(&msgs).result.as_deref(), Some("done"));
    assert_eq!(*seen.lock().unwrap(), vec![Some(plan.to_owned())]);
    assert!(client.close().await.unwrap().success());
}

#[tokio::test]
async fn can_use_tool_allow_echoes_input() {
    run_permission(
        json!({"behavior":"allow","updatedInput":{"command":"touch a"}}),
        PermissionResult::allow(),
    )
    .await;
}

#[tokio::test]
async fn can_use_tool_allow_with_edited_input() {
    run_permission(
        json!({"behavior":"allow","updatedInput":{"command":"touch b"}}),
        PermissionResult::allow_with_input(json!({"command":"touch b"})),
    )
    .await;
}

#[tokio::test]
async fn can_use_tool_deny_with_reason() {
    run_permission(
        json!({"behavior":"deny","message":"not today","interrupt":false}),
        PermissionResult::deny("not today"),
    )
    .await;
}

#[tokio::test]
async fn can_use_tool_always_for_session() {
    let fake = run_permission(
        json!({"behavior":"allow","updatedInput":{"command":"touch a"},
               "updatedPermissions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"touch a"}],"behavior":"allow","destination":"session"}]}),
        PermissionResult::allow_always(vec![claudio::PermissionUpdate::allow_rule(
            "Bash",
            Some("touch a"),
            claudio::protocol::PermissionDestination::Session,
        )]),
    )
    .await;
    drop(fake);
}

#[tokio::test]
async fn handler_error_becomes_error_response() {
    let fake = Fake::after_init(vec![vec![
        Step::Emit(
            json!({"type":"control_request","request_id":"perm-9","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{}}}),
        ),
        Step::expect(
            json!({"type":"control_response","response":{"subtype":"error","request_id":"perm-9","error":"the prompt broke"}}),
        ),
        result("after"),
    ]]);
    let options = fake.options().can_use_tool(|_r, _c| async {
        Err::<PermissionResult, claudio::HandlerError>("the prompt broke".into())
    });
    let client = Client::connect(options).await.unwrap();
    let msgs = collect_turn(&client).await;
    assert_eq!(last_result(&msgs).result.as_deref(), Some("after"));
    assert!(client.close().await.unwrap().success());
}

#[tokio::test]
async fn hook_callback_is_routed_and_registered_at_initialize() {
    let fake = Fake::new(vec![
        Step::expect_as(
            json!({"type":"control_request","request":{"subtype":"initialize",
            "hooks":{"PreToolUse":[{"matcher":"Bash","hookCallbackIds":["hook_0"]}]}}}),
            "init",
        ),
        Step::Emit(
            json!({"type":"control_response","response":{"subtype":"success","request_id":"{{init}}","response":{}}}),
        ),
        expect_user("go"),
        Step::Emit(
            json!({"type":"control_request","request_id":"h-1","request":{"subtype":"hook_callback","callback_id":"hook_0","tool_use_id":"toolu_b1",
            "input":{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}}}),
        ),
        Step::expect(
            json!({"type":"control_response","response":{"subtype":"success","request_id":"h-1","response":{
            "continue":true,"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no rm"}}}}),
        ),
        result("ok"),
    ]);
    let seen = Arc::new(AtomicUsize::new(0));
    let s2 = seen.clone();
    let options = fake.options().hook(
        claudio::protocol::HookEvent::PreToolUse,
        HookMatcher::new(
            Some("Bash"),
            move |req: claudio::HookCallbackRequest, _c| {
                let s2 = s2.clone();
                async move {
                    assert_eq!(req.event(), "PreToolUse");
                    assert_eq!(req.input["tool_input"]["command"], "rm -rf /");
                    s2.fetch_add(1, Ordering::SeqCst);
                    Ok(HookOutput::deny_tool("no rm"))
                }
            },
        ),
    );
    let client = Client::connect(options).await.unwrap();
    client.send("go").await.unwrap();
    let msgs = collect_turn(&client).await;
    assert_eq!(last_result(&msgs).result.as_deref(), Some("ok"));
    assert_eq!(seen.load(Ordering::SeqCst), 1);
    assert!(client.close().await.unwrap().success());
}

fn calc_server() -> McpServer {
    McpServer::new("calc").tool(McpTool::new(
        "add",
        "Add two numbers",
        json!({"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}}}),
        |args: Value| async move {
            let a = args["a"].as_f64().unwrap_or(0.0);
            let b = args["b"].as_f64().unwrap_or(0.0);
            Ok(ToolOutput::text(format!("{}", a + b)))
        },
    ))
}

#[tokio::test]
async fn mcp_requests_before_and_after_initialize() {
    // The CLI talks to in-process servers before it answers `initialize`.
    let fake = Fake::new(vec![
        Step::expect_as(
            json!({"type":"control_request","request":{"subtype":"initialize"}}),
            "init",
        ),
        Step::Emit(
            json!({"type":"control_request","request_id":"m-1","request":{"subtype":"mcp_message","server_name":"calc","message":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}}}),
        ),
        Step::expect(
            json!({"type":"control_response","response":{"request_id":"m-1","response":{"mcp_response":{"id":0,"result":{"serverInfo":{"name":"calc"}}}}}}),
        ),
        Step::Emit(
            json!({"type":"control_request","request_id":"m-2","request":{"subtype":"mcp_message","server_name":"calc","message":{"jsonrpc":"2.0","method":"notifications/initialized"}}}),
        ),
        Step::expect(
            json!({"type":"control_response","response":{"request_id":"m-2","response":{"mcp_response":{}}}}),
        ),
        Step::Emit(
            json!({"type":"control_response","response":{"subtype":"success","request_id":"{{init}}","response":{}}}),
        ),
        expect_user("add"),
        Step::Emit(
            json!({"type":"control_request","request_id":"m-3","request":{"subtype":"mcp_message","server_name":"calc","message":{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}}}),
        ),
        Step::expect(
            json!({"type":"control_response","response":{"request_id":"m-3","response":{"mcp_response":{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"5"}],"isError":false}}}}}),
        ),
        Step::Emit(
            json!({"type":"control_request","request_id":"m-4","request":{"subtype":"mcp_message","server_name":"nope","message":{"jsonrpc":"2.0","id":6,"method":"tools/list"}}}),
        ),
        Step::expect(
            json!({"type":"control_response","response":{"subtype":"error","request_id":"m-4"}}),
        ),
        result("5"),
    ]);
    let client = Client::connect(fake.options().mcp_server(calc_server()))
        .await
        .unwrap();
    let argv = fake.argv();
    assert!(
        argv.iter()
            .any(|a| a == r#"--mcp-config={"mcpServers":{"calc":{"name":"calc","type":"sdk"}}}"#),
        "{argv:?}"
    );
    client.send("add").await.unwrap();
    let msgs = collect_turn(&client).await;
    assert_eq!(last_result(&msgs).result.as_deref(), Some("5"));
    assert!(client.close().await.unwrap().success());
}

#[tokio::test]
async fn unknown_incoming_subtype_gets_an_error_and_the_session_goes_on() {
    let fake = Fake::after_init(vec![vec![
        Step::Emit(
            json!({"type":"control_request","request_id":"x-1","request":{"subtype":"elicitation","q":1}}),
        ),
        Step::expect(
            json!({"type":"control_response","response":{"subtype":"error","request_id":"x-1","error":"Unsupported control request subtype: elicitation"}}),
        ),
        Step::Emit(json!({"type":"brand_new_type","data":[1,2,3]})),
        result("still here"),
    ]]);
    let client = Client::connect(fake.options()).await.unwrap();
    let msgs = collect_turn(&client).await;
    assert!(msgs
        .iter()
        .any(|m| matches!(m, Message::Unknown(v) if v["type"] == "brand_new_type")));
    assert_eq!(last_result(&msgs).result.as_deref(), Some("still here"));
    assert!(client.close().await.unwrap().success());
}

#[tokio::test]
async fn interrupt_ends_the_turn_and_the_session_goes_on() {
    let fake = Fake::after_init(vec![
        vec![
            expect_user("long"),
            system_init(),
            delta("partial "),
            Step::expect_as(
                json!({"type":"control_request","request":{"subtype":"interrupt"}}),
                "int",
            ),
            Step::Emit(
                json!({"type":"control_response","response":{"subtype":"success","request_id":"{{int}}","response":{"still_queued":[]}}}),
            ),
            Step::Emit(
                json!({"type":"result","subtype":"error_during_execution","is_error":true,"session_id":"sess-1","terminal_reason":"aborted_streaming"}),
            ),
        ],
        turn("next", "fine"),
    ]);
    let client = Client::connect(fake.options().include_partial_messages(true))
        .await
        .unwrap();
    client.send("long").await.unwrap();
    // read until the first delta, then interrupt while the turn runs
    loop {
        let m = client.next_message().await.unwrap().unwrap();
        if matches!(m, Message::StreamEvent(_)) {
            break;
        }
    }
    client.interrupt().await.unwrap();
    let msgs = collect_turn(&client).await;
    assert!(last_result(&msgs).was_interrupted());
    client.send("next").await.unwrap();
    let msgs = collect_turn(&client).await;
    assert_eq!(last_result(&msgs).result.as_deref(), Some("fine"));
    assert!(client.close().await.unwrap().success());
}

#[tokio::test]
async fn control_error_and_timeout_are_typed() {
    let fake = Fake::after_init(vec![vec![
        Step::expect_as(
            json!({"type":"control_request","request":{"subtype":"set_model"}}),
            "sm",
        ),
        Step::Emit(
            json!({"type":"control_response","response":{"subtype":"error","request_id":"{{sm}}","error":"unknown model","error_code":"bad_model"}}),
        ),
    ]]);
    // the answer is awaited as long as usual (a loaded machine may take a
    // while to give it)
    let client = Client::connect(fake.options()).await.unwrap();
    match client.set_model(Some("nope")).await {
        Err(Error::Control {
            subtype,
            message,
            code,
        }) => {
            assert_eq!(subtype, "set_model");
            assert_eq!(message, "unknown model");
            assert_eq!(code.as_deref(), Some("bad_model"));
        }
        other => panic!("{other:?}"),
    }
    client.close().await.unwrap();
    // a CLI that never answers `mcp_status`: the short timeout is typed
    let fake = Fake::after_init(vec![vec![Step::expect(
        json!({"type":"control_request","request":{"subtype":"mcp_status"}}),
    )]]);
    let client = Client::connect(fake.options().control_timeout(Duration::from_millis(300)))
        .await
        .unwrap();
    match client.mcp_status().await {
        Err(Error::ControlTimeout { subtype, .. }) => assert_eq!(subtype, "mcp_status"),
        other => panic!("{other:?}"),
    }
    client.close().await.unwrap();
}

#[tokio::test]
async fn cancelled_request_gets_no_answer_and_handler_sees_it() {
    // the CLI withdraws the request once the handler runs (it says so)
    let gate = tempfile::tempdir().unwrap();
    let running = gate.path().join("running");
    let fake = Fake::after_init(vec![vec![
        Step::Emit(
            json!({"type":"control_request","request_id":"perm-c","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{}}}),
        ),
        Step::WaitFile(running.clone()),
        Step::Emit(json!({"type":"control_cancel_request","request_id":"perm-c"})),
        Step::SleepMs(300),
        result("cancelled"),
    ]]);
    let cancelled = Arc::new(AtomicUsize::new(0));
    let c2 = cancelled.clone();
    let options = fake
        .options()
        .can_use_tool(move |_r, ctx: claudio::RequestContext| {
            let c2 = c2.clone();
            let running = running.clone();
            async move {
                // a person who never answers; a guard notices the drop
                struct OnDrop(Arc<AtomicUsize>);
                impl Drop for OnDrop {
                    fn drop(&mut self) {
                        self.0.fetch_add(1, Ordering::SeqCst);
                    }
                }
                let _g = OnDrop(c2);
                std::fs::write(&running, b"").unwrap();
                ctx.cancellation.cancelled().await;
                Ok(PermissionResult::allow())
            }
        });
    let client = Client::connect(options).await.unwrap();
    let msgs = collect_turn(&client).await;
    assert_eq!(last_result(&msgs).result.as_deref(), Some("cancelled"));
    client.close().await.unwrap();
    assert_eq!(cancelled.load(Ordering::SeqCst), 1);
    let answers: Vec<Value> = fake
        .stdin_lines()
        .into_iter()
        .filter(|l| l["type"] == "control_response")
        .collect();
    assert!(
        answers.is_empty(),
        "a withdrawn request was answered: {answers:?}"
    );
}

#[tokio::test]
async fn crash_mid_turn_is_an_error_with_the_stderr_tail() {
    let fake = Fake::after_init(vec![vec![
        expect_user("boom"),
        system_init(),
        delta("half"),
        Step::Stderr("Error: something exploded in the CLI".into()),
        Step::Crash,
    ]]);
    let client = Client::connect(fake.options().include_partial_messages(true))
        .await
        .unwrap();
    client.send("boom").await.unwrap();
    let last = last_of_turn(&client, Duration::from_secs(60))
        .await
        .unwrap_or_else(|| panic!("the turn hung after the crash"));
    match last {
        Some(Err(e @ Error::ProcessExited { .. })) => {
            let text = e.to_string();
            assert!(text.contains("something exploded"), "{text}");
            assert!(text.contains("signal 6"), "{text}");
        }
        other => panic!("{other:?}"),
    }
    // and later calls fail fast with the same reason
    assert!(matches!(
        client.send("again").await,
        Err(Error::ProcessExited { .. })
    ));
    assert!(matches!(
        client.interrupt().await,
        Err(Error::ProcessExited { .. })
    ));
}

#[tokio::test]
async fn exit_before_initialize_is_a_clear_error() {
    let fake = Fake::new(vec![
        Step::Stderr("fatal: not logged in".into()),
        Step::Exit(1),
    ]);
    let err = Client::connect(fake.options()).await.err().unwrap();
    match &err {
        Error::ProcessExited { code, .. } => assert_eq!(*code, Some(1)),
        other => panic!("{other:?}"),
    }
    assert!(err.to_string().contains("not logged in"), "{err}");
}

#[tokio::test]
async fn no_initialize_answer_times_out_and_kills() {
    let fake = Fake::new(vec![Step::Hang]);
    let err = Client::connect(fake.options().init_timeout(Duration::from_millis(500)))
        .await
        .err()
        .unwrap();
    assert!(matches!(err, Error::InitTimeout(_)), "{err:?}");
    assert!(gone_within(fake.pid(), Duration::from_secs(5)));
}

#[tokio::test]
async fn garbage_and_half_lines_are_skipped() {
    let fake = Fake::after_init(vec![vec![
        Step::EmitRaw("this is not json".into()),
        Step::EmitRaw("{\"type\":\"assistant\",\"message\":".into()),
        Step::EmitRaw("[1,2,3]".into()),
        Step::EmitRaw("".into()),
        Step::EmitRaw("\u{1b}[31mdebug output\u{1b}[0m".into()),
        result("survived"),
    ]]);
    let client = Client::connect(fake.options()).await.unwrap();
    let msgs = collect_turn(&client).await;
    assert_eq!(msgs.len(), 1);
    assert_eq!(last_result(&msgs).result.as_deref(), Some("survived"));
    assert!(client.close().await.unwrap().success());
}

#[tokio::test]
async fn a_20_mb_line_passes_whole() {
    let fake = Fake::after_init(vec![vec![Step::HugeLine(20_000_000), result("big")]]);
    let client = Client::connect(fake.options()).await.unwrap();
    let msgs = collect_turn(&client).await;
    let Message::User(u) = &msgs[0] else {
        panic!("{:?}", msgs[0].kind())
    };
    let claudio::protocol::MessageContent::Blocks(b) = &u.message.content else {
        panic!()
    };
    let ContentBlock::ToolResult(r) = &b[0] else {
        panic!()
    };
    let len = r.text().len();
    assert!(len > 19_999_000 && len < 20_000_000, "{len}");
    assert_eq!(last_result(&msgs).result.as_deref(), Some("big"));
    client.close().await.unwrap();
}

#[tokio::test]
async fn a_line_over_the_limit_is_an_error_and_reading_goes_on() {
    let fake = Fake::after_init(vec![vec![
        Step::HugeLine(2_000_000),
        result("after the big one"),
    ]]);
    let client = Client::connect(fake.options().max_line_bytes(1_000_000))
        .await
        .unwrap();
    let first = client.next_message().await.unwrap();
    assert!(
        matches!(first, Err(Error::LineTooLong { limit: 1_000_000 })),
        "{first:?}"
    );
    let msgs = collect_turn(&client).await;
    assert_eq!(
        last_result(&msgs).result.as_deref(),
        Some("after the big one")
    );
    client.close().await.unwrap();
}

#[tokio::test]
async fn a_stderr_flood_while_waiting_does_not_block() {
    // 10 MB of stderr before the CLI answers initialize: if stderr were not
    // drained, the CLI would block on its stderr pipe and never answer.
    let fake = Fake::new(vec![
        Step::expect_as(
            json!({"type":"control_request","request":{"subtype":"initialize"}}),
            "init",
        ),
        Step::StderrFlood(10_000_000),
        Step::Emit(
            json!({"type":"control_response","response":{"subtype":"success","request_id":"{{init}}","response":{}}}),
        ),
        result("flooded"),
    ]);
    let client = Client::connect(fake.options()).await.unwrap();
    let msgs = collect_turn(&client).await;
    assert_eq!(last_result(&msgs).result.as_deref(), Some("flooded"));
    let tail = client.stderr_tail();
    assert!(
        tail.ends_with("END-OF-FLOOD\n"),
        "{}",
        &tail[tail.len().saturating_sub(100)..]
    );
    assert!(tail.len() <= claudio::__private::TAIL_BYTES + 64);
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn dropping_a_client_leaves_no_process() {
    let fake = Fake::after_init(vec![vec![Step::SpawnSleeper(60)]]);
    let client = Client::connect(fake.options()).await.unwrap();
    let pid = fake.pid();
    let child = fake.child_pid();
    assert!(alive(pid) && alive(child));
    drop(client);
    assert!(gone_within(pid, Duration::from_secs(10)), "CLI left behind");
    assert!(
        gone_within(child, Duration::from_secs(10)),
        "CLI's child left behind"
    );
}

#[test]
fn dropping_the_runtime_kills_the_process_group() {
    let fake = Fake::after_init(vec![vec![
        Step::IgnoreSigterm,
        Step::SpawnSleeper(60),
        Step::Hang,
    ]]);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let client = rt.block_on(Client::connect(fake.options())).unwrap();
    let (pid, child) = (fake.pid(), fake.child_pid());
    // The client lives in a task that never finishes; the runtime goes away
    // under it (as when a program returns from main mid-session).
    rt.spawn(async move {
        let _client = client;
        std::future::pending::<()>().await;
    });
    drop(rt);
    assert!(gone_within(pid, Duration::from_secs(10)), "CLI left behind");
    assert!(
        gone_within(child, Duration::from_secs(10)),
        "CLI's child left behind"
    );
}

#[tokio::test]
async fn close_escalates_to_sigterm_then_sigkill() {
    // ignores stdin EOF and SIGTERM (from its start: not a step after
    // `initialize` that a loaded machine may run after the SIGTERM)
    let fake = Fake::new(steps(vec![
        vec![Step::IgnoreSigterm],
        init(),
        vec![Step::Hang],
    ]));
    let client = Client::connect(fake.options().close_grace(Duration::from_millis(300)))
        .await
        .unwrap();
    let pid = fake.pid();
    let exit = tokio::time::timeout(Duration::from_secs(60), client.close())
        .await
        .expect("close hung")
        .unwrap();
    assert_eq!(exit.signal, Some(libc::SIGKILL));
    assert!(!alive(pid));

    // stops at SIGTERM when the CLI honours it
    let fake = Fake::after_init(vec![vec![Step::Hang]]);
    let client = Client::connect(fake.options().close_grace(Duration::from_millis(300)))
        .await
        .unwrap();
    let exit = client.close().await.unwrap();
    assert_eq!(exit.signal, Some(libc::SIGTERM));
}

#[tokio::test]
async fn closing_mid_turn_interrupts_first() {
    let fake = Fake::after_init(vec![vec![
        expect_user("work"),
        Step::expect_as(
            json!({"type":"control_request","request":{"subtype":"interrupt"}}),
            "int",
        ),
        Step::Emit(
            json!({"type":"control_response","response":{"subtype":"success","request_id":"{{int}}","response":{}}}),
        ),
        Step::Emit(
            json!({"type":"result","subtype":"error_during_execution","is_error":true,"session_id":"sess-1","terminal_reason":"aborted_streaming"}),
        ),
    ]]);
    let client = Client::connect(fake.options()).await.unwrap();
    client.send("work").await.unwrap();
    assert!(client.turn_open());
    let exit = client.close().await.unwrap();
    assert!(exit.success(), "{exit:?}");
}

#[tokio::test]
async fn missing_cli_lists_where_it_looked() {
    let err = Client::connect(Options::default().cli_path("/nonexistent/claude"))
        .await
        .err()
        .unwrap();
    assert!(matches!(err, Error::CliNotFound { .. }));
    assert!(err.to_string().contains("/nonexistent/claude"));
}

#[tokio::test]
async fn messages_are_kept_while_a_control_answer_is_awaited() {
    // A consumer that is not reading must not block a control answer that
    // arrives behind many messages (no deadlock between the two).
    let mut s = init();
    s.push(Step::expect_as(
        json!({"type":"control_request","request":{"subtype":"get_context_usage"}}),
        "cu",
    ));
    for _ in 0..300 {
        s.push(Step::HugeLine(100_000));
    }
    s.push(Step::Emit(json!({"type":"control_response","response":{"subtype":"success","request_id":"{{cu}}","response":{"totalTokens":7}}})));
    let fake = Fake::new(s);
    // 30 MB come before the answer: a loaded machine takes a while to pass
    // them (the bounds are guards against a deadlock, not times)
    let client = Client::connect(fake.options().control_timeout(Duration::from_secs(600)))
        .await
        .unwrap();
    let usage = tokio::time::timeout(Duration::from_secs(120), client.context_usage())
        .await
        .expect("deadlock: control answer never arrived")
        .unwrap();
    assert_eq!(usage.total_tokens, 7);
    let mut n = 0;
    while n < 300 {
        client.next_message().await.unwrap().unwrap();
        n += 1;
    }
    client.close().await.unwrap();
}

#[tokio::test]
async fn inactivity_timeout_fails_a_silent_turn_but_not_a_waiting_prompt() {
    let fake = Fake::after_init(vec![vec![
        expect_user("slow"),
        // a person takes 7.5 s to answer: that silence does not count
        Step::Emit(
            json!({"type":"control_request","request_id":"p","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{}}}),
        ),
        Step::expect(json!({"type":"control_response"})),
        delta("then"),
        // the CLI goes quiet
        Step::SleepMs(120_000),
        result("too late"),
    ]]);
    // the timeout generous enough for the CLI's next line to come within
    // it on a loaded machine
    let options = fake
        .options()
        .include_partial_messages(true)
        .inactivity_timeout(Duration::from_secs(5))
        .can_use_tool(|_r, _c| async {
            tokio::time::sleep(Duration::from_millis(7500)).await;
            Ok(PermissionResult::allow())
        });
    let client = Client::connect(options).await.unwrap();
    client.send("slow").await.unwrap();
    let mut got = Vec::new();
    let mut s = std::pin::pin!(client.receive_response());
    while let Some(m) = s.next().await {
        got.push(m);
    }
    assert!(
        matches!(got.first(), Some(Ok(Message::StreamEvent(_)))),
        "the prompt's silence must not time out: {got:?}"
    );
    assert!(
        matches!(got.last(), Some(Err(Error::InactivityTimeout(_)))),
        "{got:?}"
    );
    client.kill();
}

/// The CLI's last words on stderr (its real reason) come just before it
/// exits, read by another task than the one that sees the exit: the error
/// must wait for them. Repeated, with a big stderr and a slow last line.
#[tokio::test(flavor = "multi_thread")]
async fn the_stderr_tail_of_an_exit_always_holds_the_last_line() {
    for round in 0..30 {
        let fake = Fake::after_init(vec![vec![
            expect_user("go"),
            Step::StderrFlood(40_000),
            Step::SleepMs(round % 3),
            Step::Stderr("fatal: the real reason".into()),
            Step::Exit(3),
        ]]);
        let client = Client::connect(fake.options()).await.unwrap();
        client.send("go").await.unwrap();
        let last = last_of_turn(&client, Duration::from_secs(60))
            .await
            .unwrap_or_else(|| panic!("round {round}: the turn hung"));
        match last {
            Some(Err(e @ Error::ProcessExited { .. })) => {
                let text = e.to_string();
                assert!(
                    text.trim_end().ends_with("fatal: the real reason"),
                    "round {round}: {}",
                    &text[text.len().saturating_sub(200)..]
                );
            }
            other => panic!("round {round}: {other:?}"),
        }
        // and a CLI that dies before it answers `initialize`
        let fake = Fake::new(vec![
            Step::StderrFlood(40_000),
            Step::SleepMs(round % 3),
            Step::Stderr("fatal: no credentials".into()),
            Step::Exit(3),
        ]);
        match Client::connect(fake.options()).await {
            Err(e) => {
                let text = e.to_string();
                assert!(
                    text.trim_end().ends_with("fatal: no credentials"),
                    "round {round}: {}",
                    &text[text.len().saturating_sub(200)..]
                );
            }
            Ok(_) => panic!("round {round}: connected to a dead CLI"),
        }
    }
}

#[tokio::test]
async fn a_missing_working_directory_is_its_own_error() {
    let fake = Fake::new(steps(vec![init()]));
    let err = Client::connect(fake.options().cwd("/no/such/dir/for/claudio"))
        .await
        .expect_err("connected in a missing directory");
    assert!(
        matches!(&err, Error::WorkingDirectory { path } if path.ends_with("claudio")),
        "{err:?}"
    );
    assert!(
        err.to_string().contains("/no/such/dir/for/claudio"),
        "{err}"
    );
}

#[tokio::test]
async fn turn_collects_up_to_the_result_or_reports_the_exit() {
    let fake = Fake::after_init(vec![
        turn("one", "first answer"),
        vec![
            expect_user("two"),
            system_init(),
            Step::Stderr("fatal: gone".into()),
            Step::Exit(2),
        ],
    ]);
    let client = Client::connect(fake.options()).await.unwrap();
    let t = client.turn("one").await.unwrap();
    assert_eq!(t.text(), "first answer");
    assert!(t.messages.iter().any(|m| m.as_init().is_some()));
    match client.turn("two").await {
        Err(e @ Error::ProcessExited { .. }) => {
            assert!(e.to_string().contains("fatal: gone"), "{e}")
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_query_can_be_interrupted_while_it_is_read() {
    let fake = Fake::after_init(vec![vec![
        expect_user("long job"),
        system_init(),
        delta("working"),
        Step::expect_as(
            json!({"type":"control_request","request":{"subtype":"interrupt"}}),
            "i",
        ),
        Step::Emit(
            json!({"type":"control_response","response":{"subtype":"success","request_id":"{{i}}","response":{"still_queued":[]}}}),
        ),
        Step::Emit(
            json!({"type":"result","subtype":"error_during_execution","is_error":true,"session_id":"s","num_turns":1,"terminal_reason":"aborted_streaming"}),
        ),
    ]]);
    let mut q = query("long job", fake.options().include_partial_messages(true));
    // nothing to interrupt before the session starts
    assert!(matches!(q.interrupt().await, Err(Error::Closed)));
    let first = q.next().await.unwrap().unwrap();
    assert!(q.client().is_some(), "{first:?}");
    let answer = q.interrupt().await.expect("interrupt");
    assert!(answer.still_queued.is_empty());
    let mut last = None;
    while let Some(m) = q.next().await {
        last = Some(m.unwrap());
    }
    let r = last
        .as_ref()
        .and_then(Message::as_result)
        .expect("a result");
    assert!(r.was_interrupted());
    assert!(q.client().is_none(), "the session is closed at the end");
}

/// A client whose CLI is the shell script `script`, written as `claude`
/// in `dir`, with `$PIDFILE` (the path returned) for it to write a pid to.
pub(crate) async fn connect_script(
    dir: &std::path::Path,
    script: &str,
) -> (Client, std::path::PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let pidfile = dir.join("pid");
    let cli = dir.join("claude");
    std::fs::write(&cli, script).unwrap();
    std::fs::set_permissions(&cli, std::fs::Permissions::from_mode(0o755)).unwrap();
    let options = Options::default()
        .cli_path(&cli)
        .env("PIDFILE", pidfile.display().to_string())
        .init_timeout(Duration::from_secs(60));
    (Client::connect(options).await.unwrap(), pidfile)
}

/// A CLI that answers the initialize request, starts a child that holds
/// its stdout (600 s), reads the prompt and then runs `end` (a shell
/// script's lines): the last thing the turn said (within 120 s, or the
/// test fails: the turn hung), the child's pid, and the client and the
/// CLI's folder, kept open by the test (the child must go as the CLI
/// ends, not as the client is dropped).
async fn turn_of_a_cli_whose_child_holds_stdout(
    end: &str,
) -> (
    Option<claudio::Result<Message>>,
    i32,
    Client,
    tempfile::TempDir,
) {
    let dir = tempfile::tempdir().unwrap();
    let head = r#"#!/bin/sh
read -r line
id=$(printf '%s' "$line" | sed -n 's/.*"request_id" *: *"\([^"]*\)".*/\1/p')
printf '{"type":"control_response","response":{"subtype":"success","request_id":"%s","response":{}}}\n' "$id"
sh -c 'echo $$ > "$0.tmp" && mv "$0.tmp" "$0" && exec sleep 600' "$PIDFILE" &
read -r line
"#;
    let (client, pidfile) = connect_script(dir.path(), &format!("{head}{end}\n")).await;
    client.send("hi").await.unwrap();
    let child: i32 = wait_for_file(&pidfile).trim().parse().unwrap();
    let last = last_of_turn(&client, Duration::from_secs(120))
        .await
        .unwrap_or_else(|| panic!("the turn hung after the CLI ended"));
    (last, child, client, dir)
}

/// A CLI that ends mid-turn while a process it started holds its stdout
/// (a wrapper's `proxy &`, a crash that leaves a child behind): the turn
/// ends with how the CLI ended, and the child goes with the CLI's group.
/// The end of stdout was the only sign the CLI had ended, and it never
/// came: the turn waited for ever.
#[tokio::test(flavor = "multi_thread")]
async fn a_cli_that_ends_while_its_child_holds_stdout_ends_the_turn() {
    let (last, child, _client, _dir) = turn_of_a_cli_whose_child_holds_stdout(
        r#"echo "fatal: the CLI crashed" >&2
exit 3"#,
    )
    .await;
    match last {
        Some(Err(e @ Error::ProcessExited { .. })) => {
            assert!(e.to_string().contains("the CLI crashed"), "{e}");
        }
        other => panic!("{other:?}"),
    }
    assert!(
        gone_within(child, Duration::from_secs(10)),
        "the CLI's child left behind"
    );
}

/// A CLI that writes its last line without the `\n` and exits while a
/// process it started holds its stdout: the line is read, as at the end of
/// a stdout that closes. Before, the half a second's wait for more ended
/// the reading with the line still unread: the turn ended with the exit
/// and no result.
#[tokio::test(flavor = "multi_thread")]
async fn a_last_line_without_its_newline_is_read_though_a_child_holds_stdout() {
    let (last, child, _client, _dir) = turn_of_a_cli_whose_child_holds_stdout(r#"printf '{"type":"result","subtype":"success","is_error":false,"session_id":"s","num_turns":1,"result":"the last words"}'
exit 0"#).await;
    match last {
        Some(Ok(Message::Result(r))) => {
            assert_eq!(r.result.as_deref(), Some("the last words"), "{r:?}")
        }
        other => panic!("the last line was lost: {other:?}"),
    }
    assert!(
        gone_within(child, Duration::from_secs(10)),
        "the CLI's child left behind"
    );
}

/// A session whose CLI is a launcher (a wrapper script that runs the real
/// CLI in the background and exits before it), the real CLI `real` (a
/// shell script that answers `initialize`, then runs `turn` when the
/// prompt comes and reads on): the client and the real CLI's pid.
async fn launched(dir: &std::path::Path, turn: &str) -> (Client, i32) {
    use std::os::unix::fs::PermissionsExt;
    let real = dir.join("real-claude");
    std::fs::write(
        &real,
        format!(
            r#"#!/bin/sh
echo $$ > "$PIDFILE.tmp" && mv "$PIDFILE.tmp" "$PIDFILE"
read -r line
id=$(printf '%s' "$line" | sed -n 's/.*"request_id" *: *"\([^"]*\)".*/\1/p')
printf '{{"type":"control_response","response":{{"subtype":"success","request_id":"%s","response":{{}}}}}}\n' "$id"
read -r line
{turn}
printf '{{"type":"result","subtype":"success","is_error":false,"session_id":"s","num_turns":1,"result":"from the real CLI"}}\n'
read -r line
"#
        ),
    )
    .unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o755)).unwrap();
    // its stdin handed on past the shell's /dev/null for a `cmd &`
    let launcher = r#"#!/bin/sh
exec 3<&0
"$(dirname "$0")/real-claude" <&3 3<&- &
exit 0
"#;
    let (client, pidfile) = connect_script(dir, launcher).await;
    let pid: i32 = wait_for_file(&pidfile).trim().parse().unwrap();
    (client, pid)
}

/// The turn of a [`launched`] session: the real CLI's result, and the
/// real CLI gone with the session.
async fn the_real_cli_answers(client: Client, pid: i32) {
    client.send("hi").await.unwrap();
    match last_of_turn(&client, Duration::from_secs(120)).await {
        Some(Some(Ok(Message::Result(r)))) => {
            assert_eq!(r.result.as_deref(), Some("from the real CLI"), "{r:?}")
        }
        other => panic!("the real CLI's result was lost: {other:?}"),
    }
    let _ = client.close().await;
    assert!(
        gone_within(pid, Duration::from_secs(10)),
        "the real CLI outlived the session"
    );
}

/// A launcher that starts the real CLI and exits before it: the session
/// goes on for as long as the real CLI runs, through a silence, and ends
/// with it. Before, half a second's silence after the launcher's exit was
/// taken as the end of the CLI's stdout: the session ended, its group (the
/// real CLI) was killed, and the turn's result never came.
#[tokio::test(flavor = "multi_thread")]
async fn a_launcher_that_exits_first_leaves_the_real_cli_its_session() {
    let dir = tempfile::tempdir().unwrap();
    let (client, pid) = launched(dir.path(), ":").await;
    // a silence of six times the half second that was the end: the real
    // CLI, whatever it does, is not killed in it
    let until = std::time::Instant::now() + Duration::from_secs(3);
    while alive(pid) && std::time::Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(alive(pid), "the real CLI was killed in a silence");
    the_real_cli_answers(client, pid).await;
}

/// A launcher's real CLI that writes on for longer than a process left
/// behind may (never silent, past the 5 s a leftover writer is given once
/// the CLI has exited) is the CLI, and its turn's result comes: the bound
/// on what a leftover writes is for what cannot be the CLI.
#[tokio::test(flavor = "multi_thread")]
async fn a_launcher_s_real_cli_that_writes_on_is_read_to_its_result() {
    let dir = tempfile::tempdir().unwrap();
    let writes_on = r#"i=0
while [ $i -lt 28 ]; do
  printf '{"type":"system","subtype":"status","n":%s}\n' "$i"
  sleep 0.25
  i=$((i+1))
done"#;
    let (client, pid) = launched(dir.path(), writes_on).await;
    the_real_cli_answers(client, pid).await;
}

/// A CLI that ends on its own mid-turn (a crash) takes what it left in its
/// process group with it, as a CLI the library closes does: a tool's
/// process it started outlived it, and the program.
#[tokio::test(flavor = "multi_thread")]
async fn a_cli_that_ends_on_its_own_leaves_no_process() {
    let fake = Fake::after_init(vec![vec![
        expect_user("boom"),
        Step::SpawnSleeper(600),
        Step::Crash,
    ]]);
    let client = Client::connect(fake.options()).await.unwrap();
    client.send("boom").await.unwrap();
    let child = fake.child_pid();
    let last = last_of_turn(&client, Duration::from_secs(120))
        .await
        .unwrap_or_else(|| panic!("the turn hung after the crash"));
    assert!(
        matches!(last, Some(Err(Error::ProcessExited { .. }))),
        "{last:?}"
    );
    let gone = gone_within(child, Duration::from_secs(10));
    if !gone {
        let _ = std::process::Command::new("kill")
            .args(["-9", &child.to_string()])
            .status();
    }
    assert!(gone, "the CLI's child left behind");
}
