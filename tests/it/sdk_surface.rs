//! The SDK as a program uses it (issue #25): one error for a closed session,
//! the permission mode typed everywhere, plans approved without "edited",
//! the lines between turns typed, the typed host requests. Fake-CLI tests
//! first, then the same against the real CLI 2.1.328.

use crate::common;

use claudio::protocol::{CommandState, SystemMessage};
use claudio::store::{ForkOptions, ListOptions, Store, StoreError};
use claudio::{
    Client, Error, HookEvent, HookMatcher, HookOutput, Message, Options, PermissionMode, StreamExt,
};
use common::*;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

async fn collect_turn(client: &Client) -> Vec<Message> {
    let mut out = Vec::new();
    let mut s = std::pin::pin!(client.receive_response());
    while let Some(m) = s.next().await {
        out.push(m.expect("message"));
    }
    out
}

// ---- 1. after close(), every call says Closed ------------------------------

#[tokio::test]
async fn after_close_every_call_fails_with_closed() {
    let fake = Fake::new(steps(vec![init(), turn("hi", "hello")]));
    let client = Client::connect(fake.options()).await.unwrap();
    client.turn("hi").await.unwrap();
    let exit = client.close().await.unwrap();
    assert!(exit.success(), "{exit:?}");

    fn closed<T: std::fmt::Debug>(what: &str, r: claudio::Result<T>) {
        assert!(matches!(r, Err(Error::Closed)), "{what}: {r:?}");
    }
    closed("turn", client.turn("again").await);
    closed("send", client.send("again").await);
    closed("interrupt", client.interrupt().await);
    closed("set_model", client.set_model(Some("haiku")).await);
    closed(
        "set_permission_mode",
        client.set_permission_mode(PermissionMode::Plan).await,
    );
    closed("mcp_status", client.mcp_status().await);
    closed("get_settings", client.get_settings().await);
    closed("control", client.control("get_settings", json!({})).await);
    assert!(client.next_message().await.is_none());
    // closing again reports how the process ended, once more
    assert!(client.close().await.unwrap().success());
}

#[tokio::test]
async fn a_cli_that_exits_by_itself_is_not_closed_but_exited() {
    // the host did not close it: the error says how the CLI ended
    let fake = Fake::new(steps(vec![init(), vec![Step::Exit(0)]]));
    let client = Client::connect(fake.options()).await.unwrap();
    // the reader sees the exit, then every call reports it
    while let Some(m) = client.next_message().await {
        if m.is_err() {
            break;
        }
    }
    let r = client.interrupt().await;
    assert!(
        matches!(r, Err(Error::ProcessExited { code: Some(0), .. })),
        "{r:?}"
    );
    let r = client.turn("hi").await;
    assert!(
        matches!(r, Err(Error::ProcessExited { code: Some(0), .. })),
        "{r:?}"
    );
    // and once closed, the session says so
    client.close().await.unwrap();
    assert!(matches!(client.interrupt().await, Err(Error::Closed)));
}

// ---- 2. and 5. the permission mode and the lines between turns, typed ------

#[tokio::test]
async fn the_permission_mode_and_the_lines_between_turns_are_typed() {
    let uuid = "11111111-2222-4333-8444-555555555555";
    let fake = Fake::new(steps(vec![
        init(),
        vec![
            Step::expect_as(
                json!({"type":"control_request","request":{"subtype":"set_model","model":"claude-x"}}),
                "m",
            ),
            Step::Emit(
                json!({"type":"control_response","response":{"subtype":"success","request_id":"{{m}}","response":{"model":"claude-x"}}}),
            ),
            Step::Emit(
                json!({"type":"user","message":{"role":"user","content":"<local-command-stdout>Set model to `claude-x`</local-command-stdout>"},"session_id":"sess-1","parent_tool_use_id":null,"uuid":"u-1","isReplay":true}),
            ),
            Step::expect_as(
                json!({"type":"control_request","request":{"subtype":"set_permission_mode","mode":"acceptEdits"}}),
                "p",
            ),
            Step::Emit(
                json!({"type":"control_response","response":{"subtype":"success","request_id":"{{p}}","response":{"mode":"acceptEdits"}}}),
            ),
            Step::Emit(
                json!({"type":"system","subtype":"status","status":null,"permissionMode":"acceptEdits","uuid":"u-2","session_id":"sess-1"}),
            ),
            Step::expect(json!({"type":"user","uuid":uuid})),
            Step::Emit(
                json!({"type":"command_lifecycle","command_uuid":uuid,"state":"queued","uuid":"u-3","session_id":"sess-1"}),
            ),
            Step::Emit(
                json!({"type":"command_lifecycle","command_uuid":uuid,"state":"started","uuid":"u-4","session_id":"sess-1"}),
            ),
            Step::Emit(
                json!({"type":"system","subtype":"init","session_id":"sess-1","model":"claude-x","tools":[],"permissionMode":"acceptEdits","mcp_servers":[]}),
            ),
            result("ok"),
            Step::Emit(
                json!({"type":"command_lifecycle","command_uuid":uuid,"state":"completed","uuid":"u-5","session_id":"sess-1"}),
            ),
            // a later CLI: a mode and a state this crate does not know
            Step::Emit(
                json!({"type":"system","subtype":"init","session_id":"sess-1","permissionMode":"laterMode"}),
            ),
            Step::Emit(
                json!({"type":"command_lifecycle","command_uuid":uuid,"state":"paused","new":1}),
            ),
            Step::Emit(json!({"type":"system","subtype":"init","permissionMode":7})),
        ],
    ]));
    let client = Client::connect(fake.options()).await.unwrap();
    client.set_model(Some("claude-x")).await.unwrap();
    client
        .set_permission_mode(PermissionMode::AcceptEdits)
        .await
        .unwrap();
    client
        .send(claudio::UserInput::from("go").uuid(uuid))
        .await
        .unwrap();
    let msgs = collect_turn(&client).await;
    // the next turn's stream opens with what the host's requests caused
    let set = msgs[0].as_user().expect("the set_model line");
    assert_eq!(set.local_command_stdout(), Some("Set model to `claude-x`"));
    assert_eq!(set.is_replay, Some(true));
    match msgs[1].as_system() {
        Some(SystemMessage::Status(st)) => {
            assert_eq!(st.permission_mode, Some(PermissionMode::AcceptEdits));
            assert_eq!(st.status, None);
            assert!(!st.extra.contains_key("permissionMode"), "{st:?}");
        }
        other => panic!("no status: {other:?}"),
    }
    let states: Vec<CommandState> = msgs
        .iter()
        .filter_map(Message::as_command_lifecycle)
        .map(|c| {
            assert_eq!(c.command_uuid.as_deref(), Some(uuid));
            c.state.clone()
        })
        .collect();
    assert_eq!(states, [CommandState::Queued, CommandState::Started]);
    let init = msgs.iter().find_map(Message::as_init).expect("init");
    assert_eq!(init.permission_mode, Some(PermissionMode::AcceptEdits));
    assert!(msgs.last().unwrap().is_result());
    // after the result: `completed`, then a later CLI's names, kept
    let next = client.next_message().await.unwrap().unwrap();
    let c = next.as_command_lifecycle().expect("completed");
    assert_eq!(c.state, CommandState::Completed);
    assert_eq!(next.kind(), "command_lifecycle");
    assert_eq!(next.session_id(), Some("sess-1"));
    let later = client.next_message().await.unwrap().unwrap();
    assert_eq!(
        later.as_init().unwrap().permission_mode,
        Some(PermissionMode::Other("laterMode".into()))
    );
    let later = client.next_message().await.unwrap().unwrap();
    let c = later.as_command_lifecycle().expect("still typed");
    assert_eq!(c.state, CommandState::Other("paused".into()));
    assert_eq!(c.extra["new"], 1);
    // a mode of another shape: the init is kept, without a mode
    let odd = client.next_message().await.unwrap().unwrap();
    assert_eq!(odd.as_init().expect("an init").permission_mode, None);
    client.close().await.unwrap();
}

// ---- 4. plans: the plan goes back only when the person changed it ----------

/// A plan request as the CLI 2.1.328 sends it without a plan file, and the
/// answer the handler gives; returns what the host sent as its answer.
async fn answer_a_plan(edited: Option<&'static str>) -> Value {
    let plan = "# Plan\n1. write the parser";
    let fake = Fake::new(steps(vec![
        init(),
        vec![
            expect_user("plan it"),
            system_init(),
            assistant_tool_use("toolu_p", "ExitPlanMode", json!({ "plan": plan })),
            Step::Emit(
                json!({"type":"control_request","request_id":"perm-p","request":{
                "subtype":"can_use_tool","tool_name":"ExitPlanMode","display_name":"ExitPlanMode",
                "input":{},"tool_use_id":"toolu_p","requires_user_interaction":true}}),
            ),
            Step::expect(
                json!({"type":"control_response","response":{"subtype":"success","request_id":"perm-p"}}),
            ),
            result("done"),
        ],
    ]));
    let shown = Arc::new(Mutex::new(None));
    let s2 = shown.clone();
    let options = fake.options().can_use_tool(move |req, _ctx| {
        let s2 = s2.clone();
        async move {
            *s2.lock().unwrap() = req.plan().map(str::to_owned);
            Ok(req.approve_plan(PermissionMode::AcceptEdits, edited))
        }
    });
    let client = Client::connect(options).await.unwrap();
    client.turn("plan it").await.unwrap();
    client.close().await.unwrap();
    assert_eq!(shown.lock().unwrap().as_deref(), Some(plan));
    let answer = fake
        .stdin_lines()
        .into_iter()
        .find(|l| l["response"]["request_id"] == "perm-p")
        .expect("the answer");
    answer["response"]["response"].clone()
}

#[tokio::test]
async fn an_unedited_plan_goes_back_as_the_request_had_it() {
    for unedited in [None, Some("# Plan\n1. write the parser")] {
        let answer = answer_a_plan(unedited).await;
        assert_eq!(
            answer,
            json!({"behavior":"allow","updatedInput":{},
                "updatedPermissions":[{"type":"setMode","mode":"acceptEdits","destination":"session"}]}),
            "{unedited:?}"
        );
    }
}

#[tokio::test]
async fn an_edited_plan_goes_back_edited() {
    let answer = answer_a_plan(Some("# Plan\n1. write the parser\n2. test it")).await;
    assert_eq!(
        answer["updatedInput"],
        json!({"plan": "# Plan\n1. write the parser\n2. test it"})
    );
    assert_eq!(answer["updatedPermissions"][0]["mode"], "acceptEdits");
}

// ---- 7. the typed host requests, against the fake ---------------------------

/// Read request `subtype` (its fields a subset of `fields`) and answer it
/// with `reply` (`None`: a success without payload, as 2.1.328 sends some).
fn answer(subtype: &str, fields: Value, reply: Option<Value>) -> Vec<Step> {
    let mut request = fields;
    request["subtype"] = json!(subtype);
    let mut response = json!({"subtype":"success","request_id":"{{r}}"});
    if let Some(r) = reply {
        response["response"] = r;
    }
    vec![
        Step::expect_as(json!({"type":"control_request","request":request}), "r"),
        Step::Emit(json!({"type":"control_response","response":response})),
    ]
}

#[tokio::test]
async fn the_host_requests_send_their_fields_and_decode_their_answers() {
    let fake = Fake::new(steps(vec![
        init(),
        // the shapes the CLI 2.1.328 answered (docs/cli-2.1.328-observed.md)
        answer(
            "get_settings",
            json!({}),
            Some(json!({
            "effective":{"effortLevel":"high","sandbox":{"enabled":true}},
            "sources":[{"source":"userSettings","settings":{}},{"source":"flagSettings","settings":{"effortLevel":"high"}}],
            "served_settings_state":"ineligible",
            "applied":{"model":"claude-opus-5-5","effort":"high","advisor":null,"ultracode":false}})),
        ),
        answer(
            "apply_flag_settings",
            json!({"settings":{"effortLevel":"high"}}),
            None,
        ),
        answer(
            "mcp_call",
            json!({"tool":"mcp__echo__echo","arguments":{"text":"hi"}}),
            Some(json!({"content":[{"type":"text","text":"echo: hi"}]})),
        ),
        answer(
            "mcp_read_resource",
            json!({"serverName":"echo","uri":"ui://echo/page"}),
            Some(
                json!({"contents":[{"uri":"ui://echo/page","mimeType":"text/html","text":"<p>x</p>"}]}),
            ),
        ),
        answer("background_tasks", json!({}), Some(json!({}))),
        answer(
            "background_tasks",
            json!({"tool_use_id":"toolu_none"}),
            Some(json!({"backgrounded":false})),
        ),
        answer(
            "get_task_output",
            json!({"task_id":"b1234abcd"}),
            Some(json!({"output":"started\n","total_bytes":8,"truncated":false})),
        ),
        // a refusal keeps the CLI's words
        vec![
            Step::expect_as(
                json!({"type":"control_request","request":{"subtype":"mcp_call"}}),
                "e",
            ),
            Step::Emit(
                json!({"type":"control_response","response":{"subtype":"error","request_id":"{{e}}",
                "error":"mcp_call does not support SDK MCP servers. SDK servers are caller-provided — invoke calc directly."}}),
            ),
        ],
    ]));
    let client = Client::connect(fake.options()).await.unwrap();

    let settings = client.get_settings().await.unwrap();
    assert_eq!(settings.effective["effortLevel"], "high");
    let layers: Vec<&str> = settings.sources.iter().map(|l| l.source.as_str()).collect();
    assert_eq!(layers, ["userSettings", "flagSettings"]);
    assert_eq!(settings.sources[1].settings["effortLevel"], "high");
    assert_eq!(settings.applied.model.as_deref(), Some("claude-opus-5-5"));
    assert_eq!(
        settings.applied.effort,
        Some(claudio::protocol::Effort::High)
    );
    assert_eq!(settings.applied.extra["ultracode"], false);
    assert_eq!(settings.extra["served_settings_state"], "ineligible");

    client
        .apply_flag_settings(json!({"effortLevel": "high"}))
        .await
        .unwrap();

    let r = client
        .mcp_call("mcp__echo__echo", json!({"text": "hi"}))
        .await
        .unwrap();
    assert_eq!(r.text(), "echo: hi");
    assert!(!r.is_error);
    assert!(r.structured_content.is_none());

    let page = client
        .read_mcp_resource("echo", "ui://echo/page")
        .await
        .unwrap();
    assert_eq!(page.contents.len(), 1);
    assert_eq!(page.contents[0].mime_type.as_deref(), Some("text/html"));
    assert_eq!(page.contents[0].text.as_deref(), Some("<p>x</p>"));

    assert!(client.background_tasks(None).await.unwrap());
    assert!(!client.background_tasks(Some("toolu_none")).await.unwrap());

    let out = client.get_task_output("b1234abcd").await.unwrap();
    assert_eq!(
        (out.output.as_str(), out.total_bytes, out.truncated),
        ("started\n", 8, false)
    );

    match client.mcp_call("mcp__calc__add", json!({})).await {
        Err(Error::Control {
            subtype, message, ..
        }) => {
            assert_eq!(subtype, "mcp_call");
            assert!(message.contains("SDK MCP servers"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    client.close().await.unwrap();
    // what went out, exactly: no field the CLI does not know
    let sent = fake.stdin_lines();
    let find = |sub: &str| {
        sent.iter()
            .filter(|l| l["request"]["subtype"] == sub)
            .map(|l| l["request"].clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        find("background_tasks"),
        [
            json!({"subtype":"background_tasks"}),
            json!({"subtype":"background_tasks","tool_use_id":"toolu_none"})
        ]
    );
    assert_eq!(
        find("mcp_read_resource"),
        [json!({"subtype":"mcp_read_resource","serverName":"echo","uri":"ui://echo/page"})]
    );
    // a CLI without `mcp_call_soft_error_result_v1`: not asked for soft errors
    assert_eq!(
        find("mcp_call"),
        [
            json!({"subtype":"mcp_call","tool":"mcp__echo__echo","arguments":{"text":"hi"}}),
            json!({"subtype":"mcp_call","tool":"mcp__calc__add","arguments":{}})
        ]
    );
}

/// A failed MCP tool, told from the CLI refusing the call (issue 30, item
/// 2): a CLI with `mcp_call_soft_error_result_v1` is asked for the tool's
/// error result and hands it back as a result with `isError`; without it,
/// the CLI's error carries the tool's text and becomes `McpToolFailed`.
/// The CLI's own refusals stay `Control`. The answers are the real CLI's
/// (2.1.332 and 2.1.328, docs/cli-2.1.328-observed.md).
#[tokio::test]
async fn mcp_call_asks_for_soft_errors_when_the_cli_has_them_and_tells_failures_from_refusals() {
    for soft in [true, false] {
        let caps = if soft {
            json!([
                "mcp_call_result_not_for_model_v1",
                "mcp_call_soft_error_result_v1"
            ])
        } else {
            json!(["mcp_call_result_not_for_model_v1"])
        };
        let failed = |r: &str| -> Value {
            if soft {
                json!({"subtype":"success","request_id":r,
                    "response":{"content":[{"type":"text","text":"failed: hi"}],"isError":true}})
            } else {
                json!({"subtype":"error","request_id":r,"error":"failed: hi"})
            }
        };
        let refuse = |r: &str, words: &str| json!({"subtype":"error","request_id":r,"error":words});
        let fake = Fake::new(steps(vec![
            vec![
                Step::expect_as(
                    json!({"type":"control_request","request":{"subtype":"initialize"}}),
                    "init",
                ),
                Step::Emit(
                    json!({"type":"control_response","response":{"subtype":"success",
                    "request_id":"{{init}}","response":{"commands":[],"capabilities":caps}}}),
                ),
            ],
            vec![
                Step::expect_as(
                    json!({"type":"control_request","request":{"subtype":"mcp_call"}}),
                    "a",
                ),
                Step::Emit(json!({"type":"control_response","response":failed("{{a}}")})),
            ],
            vec![
                Step::expect_as(
                    json!({"type":"control_request","request":{"subtype":"mcp_call"}}),
                    "b",
                ),
                Step::Emit(
                    json!({"type":"control_response","response":refuse("{{b}}", "broken: hi")}),
                ),
            ],
            vec![
                Step::expect_as(
                    json!({"type":"control_request","request":{"subtype":"mcp_call"}}),
                    "c",
                ),
                Step::Emit(json!({"type":"control_response",
                    "response":refuse("{{c}}", "MCP server not connected: nosrv")})),
            ],
            vec![
                Step::expect_as(
                    json!({"type":"control_request","request":{"subtype":"mcp_call"}}),
                    "d",
                ),
                Step::Emit(json!({"type":"control_response","response":refuse("{{d}}",
                    "mcp_call does not support SDK MCP servers. SDK servers are caller-provided \u{2014} invoke calc directly.")})),
            ],
        ]));
        let client = Client::connect(fake.options()).await.unwrap();
        let r = client
            .mcp_call("mcp__echo__fail", json!({"text": "hi"}))
            .await;
        if soft {
            let r = r.unwrap();
            assert!(r.is_error, "{r:?}");
            assert_eq!(r.text(), "failed: hi");
        } else {
            match r {
                Err(Error::McpToolFailed { tool, message }) => {
                    assert_eq!(
                        (tool.as_str(), message.as_str()),
                        ("mcp__echo__fail", "failed: hi")
                    )
                }
                other => panic!("{other:?}"),
            }
        }
        // a server's JSON-RPC error fails the tool with every CLI
        match client
            .mcp_call("mcp__echo__broken", json!({"text": "hi"}))
            .await
        {
            Err(Error::McpToolFailed { tool, message }) => {
                assert_eq!(
                    (tool.as_str(), message.as_str()),
                    ("mcp__echo__broken", "broken: hi")
                )
            }
            other => panic!("{other:?}"),
        }
        for (tool, words) in [
            ("mcp__nosrv__x", "not connected"),
            ("mcp__calc__add", "SDK MCP"),
        ] {
            match client.mcp_call(tool, json!({})).await {
                Err(Error::Control {
                    subtype, message, ..
                }) => {
                    assert_eq!(subtype, "mcp_call");
                    assert!(message.contains(words), "{message}");
                }
                other => panic!("{tool}: {other:?}"),
            }
        }
        client.close().await.unwrap();
        let calls: Vec<Value> = fake
            .stdin_lines()
            .into_iter()
            .filter(|l| l["request"]["subtype"] == "mcp_call")
            .collect();
        assert_eq!(calls.len(), 4);
        for c in &calls {
            let asked = c["request"].get("soft_error_result").cloned();
            assert_eq!(asked, soft.then_some(json!(true)), "{c}");
        }
    }
}

// ---- 6. hooks by event, the store by id -------------------------------------

#[tokio::test]
async fn hooks_are_keyed_by_their_event() {
    let fake = Fake::new(steps(vec![vec![
        Step::expect_as(
            json!({"type":"control_request","request":{"subtype":"initialize",
            "hooks":{"PreToolUse":[{"matcher":"Bash","hookCallbackIds":["hook_0"]}]}}}),
            "init",
        ),
        Step::Emit(
            json!({"type":"control_response","response":{"subtype":"success","request_id":"{{init}}","response":{}}}),
        ),
    ]]));
    let matcher = HookMatcher::new(Some("Bash"), |_req, _ctx| async {
        Ok(HookOutput::proceed())
    });
    let options = fake.options().hook(HookEvent::PreToolUse, matcher);
    assert_eq!(
        options.hooks.keys().cloned().collect::<Vec<_>>(),
        [HookEvent::PreToolUse]
    );
    // the fake exits 3 if `initialize` lacks the hook under its event's name
    let client = Client::connect(options).await.unwrap();
    assert!(client.close().await.unwrap().success());
    let o = Options::default();
    assert!(o.hooks.is_empty());
}

fn fixture_config() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sessions/real")
}

const MULTI: &str = "b55ade39-b1fa-4ea6-962e-550708c31aaa";

#[test]
fn store_info_takes_a_session_id_like_the_other_methods() {
    let store = Store::new(fixture_config());
    let by_id = store.info(MULTI).unwrap();
    let by_prefix = store.info(&MULTI[..8]).unwrap();
    let by_file = store.info_file(&store.find(MULTI).unwrap()).unwrap();
    assert_eq!(by_id, by_file);
    assert_eq!(by_prefix, by_file);
    assert_eq!(by_id.session_id, MULTI);
    assert!(matches!(
        store.info("00000000-0000-4000-8000-000000000000"),
        Err(StoreError::NotFound(_))
    ));
    // a listing and a usage read twice are equal (PartialEq)
    let a = store.list(&ListOptions::all()).unwrap();
    assert_eq!(a, store.list(&ListOptions::all()).unwrap());
    assert!(a.sessions.contains(&by_id));
    // the usage index of a folder of its own, never the developer's (nextest
    // runs each test in a process of its own: the only thread reading the
    // environment)
    let cache = tempfile::tempdir().unwrap();
    std::env::set_var("CLAUDIO_CACHE_DIR", cache.path());
    let u = store.session_usage(MULTI).unwrap();
    assert_eq!(u, store.session_usage(MULTI).unwrap());
}

#[tokio::test]
async fn async_store_info_takes_a_session_id() {
    let store = claudio::store::AsyncStore::new(fixture_config());
    let info = store.info(&MULTI[..8]).await.unwrap();
    assert_eq!(info.session_id, MULTI);
    let file = store.find(MULTI).await.unwrap();
    assert_eq!(store.info_file(&file).await.unwrap(), info);
}

#[test]
fn fork_takes_options() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixture_config(), dir.path());
    let store = Store::new(dir.path());
    let whole = store.fork(MULTI, &ForkOptions::default()).unwrap();
    assert!(store.info(&whole).unwrap().summary.ends_with("(fork)"));
    let titled = store
        .fork(MULTI, &ForkOptions::new().title("Another way"))
        .unwrap();
    assert_eq!(store.info(&titled).unwrap().summary, "Another way");
    // a message the session does not hold: the error names it, not a flag
    let missing = "12345678-1234-4234-8234-123456789012";
    match store.fork(MULTI, &ForkOptions::new().at(missing)) {
        Err(e @ StoreError::MessageNotFound { .. }) => {
            assert_eq!(
                e.to_string(),
                format!("no message {missing} in session {MULTI}")
            );
        }
        other => panic!("{other:?}"),
    }
}

// ---- the same against the real CLI 2.1.328 ----------------------------------

use common::real::{real_cli, Reply, World, TURN_LIMIT};

/// A world for this test, or a loud skip (see `common::real::real_cli`).
macro_rules! real_world {
    ($name:expr) => {
        match real_cli($name) {
            Some(cli) => World::new(cli),
            None => return,
        }
    };
}

/// Messages through the next `result` (bounded).
async fn real_turn(client: &Client) -> Vec<Message> {
    tokio::time::timeout(TURN_LIMIT, collect_turn(client))
        .await
        .expect("a result in time")
}

/// The test helper programs cargo builds as examples of this package.
fn example_bin(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let mut dir = exe.parent().unwrap().to_path_buf();
    if dir.ends_with("deps") {
        dir.pop();
    }
    let p = dir.join("examples").join(name);
    assert!(
        p.exists(),
        "{} is missing (cargo test builds it)",
        p.display()
    );
    p
}

/// A plan mode session whose model calls `ExitPlanMode` with `plan`, and
/// whose handler approves it with `edited`; returns the tool_result the
/// model got, what the handler was shown, and the turn's messages.
async fn real_plan(
    w: &World,
    plan: &str,
    edited: Option<&'static str>,
    plan_file: bool,
) -> (String, Option<Value>, Vec<Message>) {
    let seen_input = Arc::new(Mutex::new(None));
    let s2 = seen_input.clone();
    let options = w
        .options()
        .permission_mode(PermissionMode::Plan)
        .can_use_tool(move |req, _ctx| {
            let s2 = s2.clone();
            async move {
                *s2.lock().unwrap() = Some(req.input.clone());
                assert!(req.plan().is_some(), "{req:?}");
                Ok(req.approve_plan(PermissionMode::AcceptEdits, edited))
            }
        });
    let client = Client::connect(options).await.expect("connect");
    if plan_file {
        // a first turn tells where this session's plan file goes; the model
        // of a real session writes it there, this test does it for it
        w.api.push(Reply::text("Let me think."));
        client.send("think first").await.unwrap();
        real_turn(&client).await;
        let body = w.main_requests()[0].body.to_string();
        let at = body.find("/plans/").expect("the plan file's path");
        let start = body[..at].rfind(['"', ' ', '`', '\n']).unwrap() + 1;
        let end = at + body[at..].find(".md").unwrap() + 3;
        let path = PathBuf::from(&body[start..end]);
        assert!(path.starts_with(w.home.path()), "{path:?}");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, plan).unwrap();
    }
    let call = Reply::tool_use("ExitPlanMode", json!({ "plan": plan }));
    let id = call.tool_use_id();
    w.api.push(call);
    w.api.push(Reply::text("Approved; starting."));
    client.send("plan it").await.unwrap();
    let msgs = real_turn(&client).await;
    client.close().await.unwrap();
    let reqs = w.main_requests();
    let tr = reqs
        .last()
        .unwrap()
        .tool_result_for(&id)
        .expect("the tool result");
    assert!(!tr.is_error, "{tr:?}");
    let input = seen_input.lock().unwrap().clone();
    (tr.content, input, msgs)
}

fn confirmed_mode(msgs: &[Message]) -> Option<PermissionMode> {
    msgs.iter().find_map(|m| match m.as_system() {
        Some(SystemMessage::Status(st)) => st.permission_mode.clone(),
        _ => None,
    })
}

#[tokio::test(flavor = "multi_thread")]
async fn real_cli_an_unedited_plan_is_not_called_edited() {
    let w = real_world!("real_cli_an_unedited_plan_is_not_called_edited");
    let (told, input, msgs) = real_plan(&w, "# Plan\n1. Add notes.txt", None, false).await;
    // no plan file: the request had no plan, the answer gives none back
    assert_eq!(input, Some(json!({})));
    assert!(!told.contains("edited by user"), "{told}");
    assert!(told.contains("approved exiting plan mode"), "{told}");
    assert_eq!(confirmed_mode(&msgs), Some(PermissionMode::AcceptEdits));
}

#[tokio::test(flavor = "multi_thread")]
async fn real_cli_an_unedited_plan_file_is_approved_as_it_is() {
    let w = real_world!("real_cli_an_unedited_plan_file_is_approved_as_it_is");
    let plan = "# Plan\n1. Add notes.txt from the file";
    let (told, input, _) = real_plan(&w, plan, None, true).await;
    let input = input.unwrap();
    assert_eq!(input["plan"], plan, "the CLI read the plan file");
    assert!(
        told.contains(&format!("## Approved Plan:\n{plan}")),
        "{told}"
    );
    assert!(!told.contains("edited by user"), "{told}");
}

#[tokio::test(flavor = "multi_thread")]
async fn real_cli_an_edited_plan_is_called_edited() {
    let w = real_world!("real_cli_an_edited_plan_is_called_edited");
    let edited = "# Plan\n1. Add notes.txt\n2. And a test";
    let (told, _, _) = real_plan(&w, "# Plan\n1. Add notes.txt", Some(edited), false).await;
    assert!(
        told.contains(&format!("## Approved Plan (edited by user):\n{edited}")),
        "{told}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn real_cli_the_lines_between_turns_are_typed() {
    let w = real_world!("real_cli_the_lines_between_turns_are_typed");
    let client = Client::connect(w.options()).await.expect("connect");
    w.api.push(Reply::text("first"));
    client.turn("first").await.unwrap();
    client.set_model(Some("claude-other-1")).await.unwrap();
    client
        .set_permission_mode(PermissionMode::AcceptEdits)
        .await
        .unwrap();
    let uuid = claudio::store::new_uuid();
    w.api.push(Reply::text("ok"));
    client
        .send(claudio::UserInput::from("hello").uuid(&uuid))
        .await
        .unwrap();
    let msgs = real_turn(&client).await;
    let set = msgs
        .iter()
        .find_map(|m| m.as_user().and_then(|u| u.local_command_stdout()))
        .unwrap_or_else(|| panic!("no set_model line: {msgs:#?}"));
    assert_eq!(set, "Set model to `claude-other-1`");
    assert_eq!(confirmed_mode(&msgs), Some(PermissionMode::AcceptEdits));
    let init = msgs.iter().find_map(Message::as_init).expect("init");
    assert_eq!(init.permission_mode, Some(PermissionMode::AcceptEdits));
    assert_eq!(init.model.as_deref(), Some("claude-other-1"));
    let states: Vec<CommandState> = msgs
        .iter()
        .filter_map(Message::as_command_lifecycle)
        .filter(|c| c.command_uuid.as_deref() == Some(uuid.as_str()))
        .map(|c| c.state.clone())
        .collect();
    assert_eq!(states, [CommandState::Queued, CommandState::Started]);
    assert!(
        !msgs.iter().any(|m| matches!(m, Message::Unknown(_))),
        "{msgs:#?}"
    );
    // `completed` opens the next stream
    let next = tokio::time::timeout(TURN_LIMIT, client.next_message())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let c = next.as_command_lifecycle().expect("completed");
    assert_eq!(
        (c.command_uuid.as_deref(), &c.state),
        (Some(uuid.as_str()), &CommandState::Completed)
    );
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn real_cli_settings_are_read_and_applied() {
    let w = real_world!("real_cli_settings_are_read_and_applied");
    let options = w.options().settings(json!({"env": {"CLAUDIO_PROBE": "1"}}));
    let client = Client::connect(options).await.expect("connect");
    let s = client.get_settings().await.unwrap();
    let flag = s
        .sources
        .iter()
        .find(|l| l.source == "flagSettings")
        .expect("the --settings layer");
    assert_eq!(flag.settings["env"]["CLAUDIO_PROBE"], "1");
    assert_eq!(s.effective["env"]["CLAUDIO_PROBE"], "1");
    assert!(s.applied.model.is_some(), "{s:?}");
    client
        .apply_flag_settings(json!({"effortLevel": "high"}))
        .await
        .unwrap();
    let s = client.get_settings().await.unwrap();
    assert_eq!(s.effective["effortLevel"], "high");
    assert_eq!(s.applied.effort, Some(claudio::protocol::Effort::High));
    w.api.push(Reply::text("ok"));
    client.turn("go").await.unwrap();
    let body = &w.main_requests()[0].body;
    assert_eq!(body["output_config"]["effort"], "high", "{body}");
    // one invalid value: nothing applied, the CLI says which
    match client
        .apply_flag_settings(json!({"permissions": "bogus"}))
        .await
    {
        Err(Error::Control { message, .. }) => {
            assert!(message.contains("permissions"), "{message}")
        }
        other => panic!("{other:?}"),
    }
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn real_cli_mcp_tools_and_resources_are_reached_directly() {
    let w = real_world!("real_cli_mcp_tools_and_resources_are_reached_directly");
    let config = json!({"mcpServers": {"echo": {"type": "stdio",
        "command": example_bin("mcp-echo").display().to_string(), "args": []}}});
    let options = w.options().mcp_config(config.to_string());
    let client = Client::connect(options).await.expect("connect");
    let r = client
        .mcp_call("mcp__echo__echo", json!({"text": "hi"}))
        .await
        .unwrap();
    assert_eq!(r.text(), "echo: hi", "{r:?}");
    assert!(!r.is_error);
    assert!(r.structured_content.is_none());
    // a structured result: the CLI gives it, and its JSON text as content
    let r = client
        .mcp_call("mcp__echo__echo", json!({"text": "hi", "structured": true}))
        .await
        .unwrap();
    assert_eq!(r.structured_content, Some(json!({"echoed": "hi"})));
    assert_eq!(r.text(), r#"{"echoed":"hi"}"#);
    let page = client
        .read_mcp_resource("echo", "ui://echo/page")
        .await
        .unwrap();
    assert_eq!(page.contents[0].uri, "ui://echo/page");
    assert_eq!(page.contents[0].mime_type.as_deref(), Some("text/html"));
    assert_eq!(page.contents[0].text.as_deref(), Some("<p>echo</p>"));
    for (what, r) in [
        (
            "scheme",
            client
                .read_mcp_resource("echo", "file:///etc/passwd")
                .await
                .map(drop),
        ),
        (
            "server",
            client.mcp_call("mcp__nosrv__x", json!({})).await.map(drop),
        ),
    ] {
        assert!(matches!(r, Err(Error::Control { .. })), "{what}: {r:?}");
    }
    // no model turn was needed
    assert!(w.main_requests().is_empty());
    client.close().await.unwrap();
}

/// Issue 30, item 2, against the real CLI: a tool that fails (an error
/// result) comes back as a result with `is_error` from a CLI that lists
/// `mcp_call_soft_error_result_v1`, and as `Error::McpToolFailed` from one
/// that does not; a server's JSON-RPC error is `McpToolFailed` with both;
/// the CLI refusing the call is `Error::Control`. Decided by the
/// capability, never by the version.
#[tokio::test(flavor = "multi_thread")]
async fn real_cli_a_failed_mcp_tool_is_told_from_a_refused_call() {
    let w = real_world!("real_cli_a_failed_mcp_tool_is_told_from_a_refused_call");
    let config = json!({"mcpServers": {
        "echo": {"type": "stdio", "command": example_bin("mcp-echo").display().to_string(), "args": [],
                 "env": {"MCP_ECHO_FAILING": "1"}},
        "dead": {"type": "stdio", "command": "/nonexistent/mcp-server", "args": []}}});
    let options = w
        .options()
        .mcp_config(config.to_string())
        .mcp_server(claudio::McpServer::new("calc"));
    let client = Client::connect(options).await.expect("connect");
    let soft = client
        .server_info()
        .capabilities
        .has("mcp_call_soft_error_result_v1");
    eprintln!("mcp_call_soft_error_result_v1: {soft}");

    let r = client
        .mcp_call("mcp__echo__fail", json!({"text": "hi"}))
        .await;
    if soft {
        let r = r.expect("the tool's error result");
        assert!(r.is_error, "{r:?}");
        assert_eq!(r.text(), "failed: hi", "{r:?}");
    } else {
        match r {
            Err(Error::McpToolFailed { tool, message }) => {
                assert_eq!(tool, "mcp__echo__fail");
                assert_eq!(message, "failed: hi");
            }
            other => panic!("{other:?}"),
        }
    }
    match client
        .mcp_call("mcp__echo__broken", json!({"text": "hi"}))
        .await
    {
        Err(Error::McpToolFailed { tool, message }) => {
            assert_eq!(tool, "mcp__echo__broken");
            assert!(message.contains("broken: hi"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    // a tool that works is still a plain result
    let r = client
        .mcp_call("mcp__echo__echo", json!({"text": "hi"}))
        .await
        .unwrap();
    assert!(!r.is_error, "{r:?}");
    assert_eq!(r.text(), "echo: hi");
    // the CLI refusing the call, in its own words
    for (tool, words) in [
        ("mcp__nosrv__x", "MCP server not connected: nosrv"),
        ("mcp__dead__x", "MCP server not connected: dead"),
        ("mcp__calc__add", "does not support SDK MCP servers"),
        ("echo", "Not a fully-qualified MCP tool name"),
    ] {
        match client.mcp_call(tool, json!({})).await {
            Err(Error::Control {
                subtype, message, ..
            }) => {
                assert_eq!(subtype, "mcp_call");
                assert!(message.contains(words), "{tool}: {message}");
            }
            other => panic!("{tool}: {other:?}"),
        }
    }
    // no model turn was needed
    assert!(w.main_requests().is_empty());
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn real_cli_background_tasks_and_their_output() {
    let w = real_world!("real_cli_background_tasks_and_their_output");
    w.api.push(Reply::tool_use(
        "Bash",
        json!({"command": "echo started; sleep 30", "description": "wait in the background",
               "run_in_background": true}),
    ));
    w.api.push(Reply::text("Started it."));
    let fg = Reply::tool_use(
        "Bash",
        json!({"command": "timeout 20 tail -f /dev/null", "description": "wait in the foreground"}),
    );
    let fg_id = fg.tool_use_id();
    w.api.push(fg);
    w.api.push(Reply::text("Moved on."));
    let options = w
        .options()
        .can_use_tool(|_req, _ctx| async { Ok(claudio::PermissionResult::allow()) });
    let client = Client::connect(options).await.expect("connect");
    client.send("start a background job").await.unwrap();
    let msgs = real_turn(&client).await;
    let task = msgs
        .iter()
        .find_map(|m| match m.as_system() {
            Some(SystemMessage::TaskStarted(t)) => t.task_id.clone(),
            _ => None,
        })
        .expect("task_started");
    // its output, while it runs
    let mut out = client.get_task_output(&task).await.unwrap();
    // (a guard against a stuck task, not a time it may take)
    let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while out.output.is_empty() && std::time::Instant::now() < until {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        out = client.get_task_output(&task).await.unwrap();
    }
    assert_eq!(out.output, "started\n");
    assert_eq!((out.total_bytes, out.truncated), (8, false));
    // a tool call that is not running: nothing to move
    assert!(!client.background_tasks(Some("toolu_none")).await.unwrap());
    // a foreground command, moved to the background while it runs
    client.send("run it in the foreground").await.unwrap();
    let seen = Mutex::new(Vec::new());
    let started = async {
        loop {
            let m = client.next_message().await.unwrap().unwrap();
            let mut line = format!("{m:?}");
            line.truncate(300);
            seen.lock().unwrap().push(line);
            if let Some(SystemMessage::TaskStarted(t)) = m.as_system() {
                if t.tool_use_id.as_deref() == Some(fg_id.as_str()) {
                    return;
                }
            }
        }
    };
    if tokio::time::timeout(TURN_LIMIT, started).await.is_err() {
        panic!("no foreground task: {:#?}", seen.lock().unwrap());
    }
    assert!(client.background_tasks(None).await.unwrap());
    let msgs = real_turn(&client).await;
    assert!(msgs.last().unwrap().is_result());
    let tr = w
        .main_requests()
        .last()
        .unwrap()
        .tool_result_for(&fg_id)
        .unwrap();
    assert!(tr.content.contains("backgrounded"), "{tr:?}");
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn real_cli_thinking_reaches_the_request() {
    let w = real_world!("real_cli_thinking_reaches_the_request");
    let cases = [
        (
            w.options()
                .model("claude-sonnet-4-5")
                .thinking(claudio::Thinking::Enabled {
                    budget_tokens: 5000,
                }),
            json!({"type": "enabled", "budget_tokens": 5000, "display": "updates"}),
        ),
        (
            w.options()
                .model("claude-sonnet-4-5")
                .thinking(claudio::Thinking::Disabled),
            json!({"type": "disabled"}),
        ),
        (
            w.options()
                .thinking_display(claudio::protocol::ThinkingDisplay::Summarized),
            json!({"type": "adaptive", "display": "summarized"}),
        ),
    ];
    for (i, (options, want)) in cases.into_iter().enumerate() {
        w.api.push(Reply::text("ok"));
        let msgs: Vec<Message> = claudio::query("hi", options)
            .map(|m| m.expect("message"))
            .collect()
            .await;
        assert!(msgs.last().unwrap().is_result());
        assert_eq!(w.main_requests()[i].body["thinking"], want, "case {i}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn real_cli_a_sandbox_that_cannot_run_refuses_to_start() {
    let w = real_world!("real_cli_a_sandbox_that_cannot_run_refuses_to_start");
    if which("bwrap") {
        eprintln!("SKIPPED: bubblewrap is installed here; this checks the refusal without it");
        return;
    }
    let r = Client::connect(w.options().sandbox(claudio::Sandbox::enabled())).await;
    // the CLI's own answer, typed (#41.1): its result before `initialize`
    match r {
        Err(Error::StartupFailed {
            result,
            code: Some(1),
            stderr_tail,
        }) => {
            assert!(
                result
                    .errors
                    .iter()
                    .any(|e| e.contains("Sandbox required but unavailable")),
                "{result:?}"
            );
            assert!(
                stderr_tail.contains("sandbox required but unavailable"),
                "{stderr_tail}"
            );
        }
        // a CLI that writes no result first
        Err(Error::ProcessExited {
            code: Some(1),
            stderr_tail,
            ..
        }) => assert!(
            stderr_tail.contains("sandbox required but unavailable"),
            "{stderr_tail}"
        ),
        other => panic!("{other:?}"),
    }
    assert!(
        w.main_requests().is_empty(),
        "no model turn ran unsandboxed"
    );
    // allowed to degrade: it runs, and the settings say the sandbox is on
    let options = w
        .options()
        .sandbox(claudio::Sandbox::enabled().fail_if_unavailable(false));
    let client = Client::connect(options).await.expect("connect");
    let s = client.get_settings().await.unwrap();
    assert_eq!(s.effective["sandbox"]["enabled"], true, "{s:?}");
    assert_eq!(s.effective["sandbox"]["failIfUnavailable"], false, "{s:?}");
    client.close().await.unwrap();
}

fn which(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(program).is_file()))
}

/// Issue 41, item 13: `mcp_wait` asks `mcp_status` until no server is
/// `pending`, and answers the last status (the fake CLI says `pending`
/// once, then `connected`: two requests, no more).
#[tokio::test]
async fn mcp_wait_asks_until_no_server_is_pending() {
    let status = |s: &str| json!({"mcpServers": [{"name": "echo", "status": s}]});
    let answer = |id: &str, s: &str| {
        Step::Emit(
            json!({"type":"control_response","response":{"subtype":"success",
            "request_id": format!("{{{{{id}}}}}"), "response": status(s)}}),
        )
    };
    let ask = |id: &str| {
        Step::expect_as(
            json!({"type":"control_request","request":{"subtype":"mcp_status"}}),
            id,
        )
    };
    let fake = Fake::after_init(vec![vec![
        ask("a"),
        answer("a", "pending"),
        ask("b"),
        answer("b", "connected"),
    ]]);
    let client = Client::connect(fake.options()).await.unwrap();
    let s = client
        .mcp_wait(std::time::Duration::from_secs(60))
        .await
        .unwrap();
    assert_eq!(s.servers.len(), 1);
    assert!(s.servers[0].is_connected() && !s.servers[0].is_pending());
    client.close().await.unwrap();
    let asked = fake
        .stdin_lines()
        .iter()
        .filter(|l| l["request"]["subtype"] == "mcp_status")
        .count();
    assert_eq!(asked, 2);
}

/// A server still `pending` when the time is up is answered as it is, not
/// as an error (a zero timeout: one look).
#[tokio::test]
async fn mcp_wait_answers_a_server_still_pending_when_the_time_is_up() {
    let fake = Fake::after_init(vec![vec![
        Step::expect_as(
            json!({"type":"control_request","request":{"subtype":"mcp_status"}}),
            "a",
        ),
        Step::Emit(
            json!({"type":"control_response","response":{"subtype":"success",
            "request_id":"{{a}}","response":{"mcpServers":[{"name":"slow","status":"pending"}]}}}),
        ),
    ]]);
    let client = Client::connect(fake.options()).await.unwrap();
    let s = client.mcp_wait(std::time::Duration::ZERO).await.unwrap();
    assert!(s.servers[0].is_pending());
    client.close().await.unwrap();
}

/// Against the real CLI: a stdio server is reached once `mcp_wait` says it
/// is connected, with no model turn.
#[tokio::test(flavor = "multi_thread")]
async fn real_cli_mcp_wait_sees_a_stdio_server_connected() {
    let w = real_world!("real_cli_mcp_wait_sees_a_stdio_server_connected");
    let config = json!({"mcpServers": {"echo": {"type": "stdio",
        "command": example_bin("mcp-echo").display().to_string(), "args": []}}});
    let client = Client::connect(w.options().mcp_config(config.to_string()))
        .await
        .expect("connect");
    let s = client
        .mcp_wait(std::time::Duration::from_secs(60))
        .await
        .unwrap();
    let echo = s.servers.iter().find(|s| s.name == "echo").expect("listed");
    assert_eq!(echo.status, "connected", "{echo:?}");
    assert!(!s.servers.iter().any(|s| s.is_pending()), "{s:?}");
    let r = client
        .mcp_call("mcp__echo__echo", json!({"text": "hi"}))
        .await
        .unwrap();
    assert_eq!(r.text(), "echo: hi");
    assert!(w.main_requests().is_empty());
    client.close().await.unwrap();
}
