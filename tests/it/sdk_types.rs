//! The types of issue 30 (capabilities, every hook event, a skipped
//! question) against the real Claude Code CLI and the scripted Messages
//! API on loopback.
//!
//! Each test skips loudly without `CLAUDIO_TEST_REAL_CLI` (and fails under
//! `CI=true`), like `tests/it/e2e.rs`. No test pins a version: a feature
//! newer than the oldest supported CLI is checked only where the CLI has it.

use crate::common::real::*;

use claudio::protocol::ask::{self, Answer, ASK_USER_QUESTION};
use claudio::protocol::hooks::{HookEventInput, InvokedBy};
use claudio::protocol::{Capabilities, Unanswered};
use claudio::{
    Client, HookCallbackRequest, HookEvent, HookMatcher, HookOutput, Message, PermissionResult,
};
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::Duration;

async fn connect(options: claudio::Options) -> Client {
    tokio::time::timeout(Duration::from_secs(60), Client::connect(options))
        .await
        .expect("connect timed out")
        .expect("connect")
}

/// `major.minor.patch` of the CLI's version, from its `initialize` answer.
fn version(client: &Client) -> (u32, u32, u32) {
    let v = client
        .server_info()
        .claude_code_version
        .clone()
        .unwrap_or_default();
    let mut parts = v.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    (
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn capabilities_are_a_typed_set_in_the_answer_and_in_init() {
    let w = world!("capabilities_are_a_typed_set_in_the_answer_and_in_init");
    w.api.push(Reply::text("Hello."));
    let client = connect(w.options()).await;
    let info = client.server_info().clone();
    // listed by 2.1.328 and 2.1.332 alike
    assert!(
        info.capabilities.has("mcp_call_result_not_for_model_v1"),
        "{:?}",
        info.capabilities
    );
    assert!(info.capabilities.has("reload_plugins_refuse_if_busy_v1"));
    assert!(!info.capabilities.has("no_such_capability_v0"));
    assert!(!info.extra.contains_key("capabilities"), "{:?}", info.extra);
    assert!(!info.extra.contains_key("sandbox_enabled"));
    // not turned on here (2.1.332 says false; 2.1.328 says nothing)
    assert_ne!(info.sandbox_enabled, Some(true));
    if version(&client) >= (2, 1, 332) {
        assert!(info.capabilities.has("mcp_call_soft_error_result_v1"));
        assert_eq!(info.sandbox_enabled, Some(false));
    }

    client.send("hi").await.expect("send");
    let msgs = turn(&client).await;
    client.close().await.unwrap();
    let init = msgs
        .iter()
        .find_map(Message::as_init)
        .unwrap_or_else(|| panic!("no init: {msgs:#?}"));
    // system/init lists more than the answer to `initialize`
    assert!(init.capabilities.has(ask::UNANSWERED_CAPABILITY));
    assert!(init.capabilities.has("interrupt_receipt_v1"));
    assert!(init.capabilities.len() > info.capabilities.len());
    assert!(!init.extra.contains_key("capabilities"));
    assert_eq!(init.sandbox_enabled, info.sandbox_enabled);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_skill_command_is_asked_for_typed_and_denied() {
    let w = world!("a_skill_command_is_asked_for_typed_and_denied");
    let skill = w.work.path().join(".claude/skills/greet/SKILL.md");
    std::fs::create_dir_all(skill.parent().unwrap()).unwrap();
    std::fs::write(
        &skill,
        "---\nname: greet\ndescription: greets\n---\nThe answer is !`echo SKILLRAN-$((6*7))`. Say hi.\n",
    )
    .unwrap();
    w.api.push(Reply::text("Hi."));
    let seen: Arc<Mutex<Vec<HookCallbackRequest>>> = Arc::new(Mutex::new(Vec::new()));
    let s2 = seen.clone();
    let gate = HookMatcher::new(None, move |req: HookCallbackRequest, _ctx| {
        let s2 = s2.clone();
        async move {
            s2.lock().unwrap().push(req);
            Ok(HookOutput::deny_skill_shell_command(
                "skills run no commands here",
            ))
        }
    });
    let client = connect(w.options().hook(HookEvent::PreSkillShellCommand, gate)).await;
    let has_event = version(&client) >= (2, 1, 332);
    client.send("/greet").await.expect("send");
    let msgs = turn(&client).await;
    client.close().await.unwrap();
    let result = msgs.last().and_then(Message::as_result).expect("a result");
    assert!(!result.is_error, "{result:?}");

    let reqs = w.main_requests();
    assert_eq!(reqs.len(), 1, "{reqs:?}");
    let seen = seen.lock().unwrap();
    if !has_event {
        // before 2.1.332 the event does not exist: the command just runs
        eprintln!("the CLI predates PreSkillShellCommand: checked that nothing asks");
        assert!(seen.is_empty(), "{seen:?}");
        assert!(reqs[0].body_contains("SKILLRAN-42"));
        return;
    }
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0].event(), "PreSkillShellCommand");
    let HookEventInput::PreSkillShellCommand(cmd) = seen[0].event_input() else {
        panic!("not typed: {:?}", seen[0].input)
    };
    assert_eq!(cmd.command_name, "greet");
    assert_eq!(cmd.tool_name, "Bash");
    assert_eq!(cmd.tool_input.command, "echo SKILLRAN-$((6*7))");
    assert_eq!(cmd.invoked_by, Some(InvokedBy::User));
    assert_eq!(cmd.command_source.as_deref(), Some("projectSettings"));
    assert!(!cmd.tool_use_id.is_empty() && !cmd.tool_use_id.starts_with("toolu_"));
    assert_eq!(
        seen[0].tool_use_id.as_deref(),
        Some(cmd.tool_use_id.as_str())
    );
    assert!(!cmd.session_id.is_empty() && !cmd.cwd.is_empty());
    // the command did not run; the model read why
    assert!(!reqs[0].body_contains("SKILLRAN-42"));
    assert!(
        reqs[0].body_contains("[not run: blocked by hook: skills run no commands here]"),
        "{:?}",
        reqs[0].messages()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_skipped_question_reaches_the_model_as_no_preference() {
    let w = world!("a_skipped_question_reaches_the_model_as_no_preference");
    let q1 = "Which database should we use?";
    let q2 = "Which language?";
    let asking = Reply::tool_use(
        ASK_USER_QUESTION,
        json!({"questions": [
            {"question": q1, "header": "DB", "multiSelect": false,
             "options": [{"label": "SQLite", "description": "a file"},
                         {"label": "Postgres", "description": "a server"}]},
            {"question": q2, "header": "Lang", "multiSelect": false,
             "options": [{"label": "Go", "description": "go"},
                         {"label": "Rust", "description": "rust"}]}]}),
    );
    let ask_id = asking.tool_use_id();
    w.api.push(asking);
    w.api.push(Reply::text("I'll pick the database myself."));
    // both supported CLIs list the capability in system/init (checked
    // above); a handler gets it from the session's init
    let caps: Capabilities = [ask::UNANSWERED_CAPABILITY].into_iter().collect();
    let options = w.options().can_use_tool(move |req, _ctx| {
        let caps = caps.clone();
        async move {
            Ok(if req.tool_name == ASK_USER_QUESTION {
                ask::answer_each(
                    &req.input,
                    [
                        ("Which database should we use?", Answer::Skipped),
                        ("Which language?", Answer::from("Go")),
                    ],
                    &caps,
                )
            } else {
                PermissionResult::deny("not in this test")
            })
        }
    });
    let client = connect(options).await;
    client.send("help me choose").await.expect("send");
    let msgs = turn(&client).await;
    client.close().await.unwrap();

    let reqs = w.main_requests();
    assert_eq!(reqs.len(), 2, "{reqs:?}");
    let tr = reqs[1].tool_result_for(&ask_id).expect("a tool result");
    assert!(!tr.is_error, "{tr:?}");
    // up to 2.1.332 the CLI hands the model the answer as sent (no
    // preference); 2.1.336 leaves it out and says it was skipped
    assert!(
        tr.content
            .contains(&format!("\"{q1}\"=\"{}\"", ask::NO_PREFERENCE))
            || tr.content.contains("The user skipped question 1"),
        "{tr:?}"
    );
    assert!(tr.content.contains(&format!("\"{q2}\"=\"Go\"")), "{tr:?}");
    // the CLI echoes how the question went unanswered
    let echoed = msgs
        .iter()
        .filter_map(Message::as_user)
        .find_map(|u| u.tool_use_result.clone())
        .unwrap_or_else(|| panic!("no tool_use_result: {msgs:#?}"));
    assert_eq!(
        ask::unanswered(&echoed),
        [(q1.to_owned(), Unanswered::Skipped)]
    );
}

/// A background sub-agent that runs a command, and a shell command run in
/// the background, against the real CLI: every `task_*`,
/// `background_tasks_changed` line decodes to its typed subtype (none is
/// `Other`) and is written back as it came; the library's tracker follows
/// both tasks from start to end.
#[tokio::test(flavor = "multi_thread")]
async fn task_lines_are_typed_written_back_and_tracked() {
    use claudio::tasks::Tracker;
    use claudio::SystemMessage;
    let w = world!("task_lines_are_typed_written_back_and_tracked");
    let main = |r: &RecordedRequest| !r.is_subagent();
    let sub = |r: &RecordedRequest| r.is_subagent();
    let agent = Reply::tool_use(
        "Agent",
        json!({"description":"count files","prompt":"count them","subagent_type":"general-purpose"}),
    );
    let agent_call = agent.tool_use_id();
    w.api.push_matching(main, agent);
    w.api.push_matching(main, Reply::text("Started it."));
    // the agent waits until the main turn ended (its result here: a CLI
    // that has the agent's answer before it ends the turn folds it in),
    // runs a command, reports
    let main_ended = w.home.path().join("main-turn-ended");
    w.api
        .push_matching(sub, Reply::bash("ls").after(&main_ended));
    w.api.push_matching(sub, Reply::text("Found 0 files."));
    // the turns the CLI starts for the reports
    for _ in 0..3 {
        w.api.push_matching(main, Reply::text("Noted."));
    }
    let options = w
        .options()
        .can_use_tool(|_req, _ctx| async { Ok(PermissionResult::allow()) });
    let client = tokio::time::timeout(
        Duration::from_secs(60),
        Client::connect_keeping_raw(options),
    )
    .await
    .expect("connect timed out")
    .expect("connect");
    client.send("count the files").await.unwrap();
    let mut tracker = Tracker::default();
    let mut subtypes = Vec::new();
    let mut ended = false;
    let read = async {
        while let Some(line) = client.next_raw().await {
            let line = line.expect("a line");
            tracker.observe(&line.message);
            if let Some(s) = line.message.as_system() {
                let sent: serde_json::Value = serde_json::from_slice(&line.raw).unwrap();
                assert!(!matches!(s, SystemMessage::Other(_)), "{sent}");
                if s.subtype() != "init" {
                    // nothing lost, nothing added (init's capabilities are
                    // a set: their order is not kept)
                    assert_eq!(s.to_value(), sent);
                }
                subtypes.push(s.subtype().to_owned());
                match s {
                    SystemMessage::TaskStarted(t) => {
                        assert_eq!(t.is_backgrounded, Some(true), "{sent}");
                        assert_eq!(t.task_type.as_deref(), Some("local_agent"), "{sent}");
                    }
                    SystemMessage::TaskProgress(p) => {
                        assert!(p.description.is_some() && p.usage.is_some(), "{sent}")
                    }
                    _ => {}
                }
                if let SystemMessage::TaskNotification(n) = s {
                    assert!(n.status.as_ref().is_some_and(|s| s.is_final()), "{sent}");
                    assert!(
                        n.usage.as_ref().is_some_and(|u| u.tool_uses.is_some()),
                        "{sent}"
                    );
                    ended = true;
                }
            }
            if line.message.is_result() && !main_ended.exists() {
                std::fs::write(&main_ended, b"").unwrap();
            }
            if ended && line.message.is_result() {
                return;
            }
        }
    };
    tokio::time::timeout(TURN_LIMIT * 2, read)
        .await
        .unwrap_or_else(|_| panic!("no report in time: {subtypes:?}"));
    client.close().await.unwrap();
    for want in [
        "task_started",
        "task_progress",
        "task_updated",
        "task_notification",
        "background_tasks_changed",
    ] {
        assert!(subtypes.iter().any(|s| s == want), "{want}: {subtypes:?}");
    }
    let task = tracker.get(&agent_call).expect("the agent is tracked");
    assert!(task.background && task.done, "{task:?}");
    assert_eq!(task.description.as_deref(), Some("count files"));
    assert!(task.task_id.is_some());
    assert_eq!(tracker.running().count(), 0);
}
