//! End-to-end: claudio with the real Claude Code CLI (pinned 2.1.328) and a
//! scripted Messages API on loopback.

use crate::common;

use claudio::{query, Client, Message, PermissionResult, StreamExt};
use common::real::*;
use std::process::Stdio;
use std::sync::{Arc, Mutex};

fn deltas(msgs: &[Message]) -> String {
    msgs.iter()
        .filter_map(|m| match m {
            Message::StreamEvent(e) => e.text_delta().map(str::to_owned),
            _ => None,
        })
        .collect()
}

fn result(msgs: &[Message]) -> &claudio::ResultMessage {
    match msgs.last() {
        Some(Message::Result(r)) => r,
        other => panic!("no result at the end: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn streamed_answer_through_query() {
    let w = world!("streamed_answer_through_query");
    w.api
        .push(Reply::text_chunks(&["Hel", "lo from ", "the mock"]));
    let msgs: Vec<Message> = query("say hello", w.options().include_partial_messages(true))
        .map(|m| m.expect("message"))
        .collect()
        .await;
    let init = msgs.iter().find_map(|m| match m {
        Message::System(s) => match &**s {
            claudio::SystemMessage::Init(i) => Some(i),
            _ => None,
        },
        _ => None,
    });
    let init = init.expect("system/init");
    assert!(init.session_id.is_some());
    assert!(init.tools.iter().any(|t| t == "Bash"), "{:?}", init.tools);
    assert_eq!(deltas(&msgs), "Hello from the mock");
    // Every stream event is fully typed: its message id, no leftover fields
    // beyond the ones 2.1.328 adds to `message_start`.
    let assistant_id = msgs.iter().find_map(|m| match m {
        Message::Assistant(a) => a.message.id.clone(),
        _ => None,
    });
    assert!(assistant_id.is_some());
    for m in &msgs {
        if let Message::StreamEvent(e) = m {
            assert_eq!(e.api_message_id, assistant_id, "{e:?}");
            assert!(e.uuid.is_some() && e.session_id.is_some(), "{e:?}");
            if e.text_delta().is_some() {
                assert!(e.extra.is_empty(), "{e:?}");
            }
        }
    }
    let r = result(&msgs);
    assert_eq!(r.subtype, "success");
    assert!(!r.is_error);
    assert_eq!(r.result.as_deref(), Some("Hello from the mock"));
    let reqs = w.main_requests();
    assert_eq!(reqs.len(), 1);
    assert!(reqs[0].last_user_text().contains("say hello"));
}

async fn bash_with_answer(answer: PermissionResult) -> (World, Vec<Message>, Vec<String>) {
    let w = match real_cli("bash_permission") {
        Some(cli) => World::new(cli),
        None => panic!("checked by the caller"),
    };
    w.api.push(Reply::bash("touch made_by_tool"));
    w.api.push(Reply::text("Finished."));
    let asked = Arc::new(Mutex::new(Vec::new()));
    let a2 = asked.clone();
    let options = w
        .options()
        .can_use_tool(move |req: claudio::CanUseToolRequest, _ctx| {
            let a2 = a2.clone();
            let answer = answer.clone();
            async move {
                a2.lock().unwrap().push(format!(
                    "{} {}",
                    req.tool_name,
                    req.input["command"].as_str().unwrap_or("")
                ));
                Ok(answer)
            }
        });
    let client = Client::connect(options).await.expect("connect");
    // the real CLI's answer to initialize, typed
    let info = client.server_info();
    // the version the CLI itself reports (no test pins one: the suites run
    // against the newest and the oldest supported CLI)
    let said = std::process::Command::new(&w.cli)
        .arg("--version")
        .output()
        .expect("claude --version");
    let said = String::from_utf8_lossy(&said.stdout);
    let version = info.claude_code_version.as_deref().expect("a version");
    assert!(
        said.starts_with(&format!("{version} ")),
        "initialize says {version}, --version says {said}"
    );
    assert!(
        !info.models.is_empty() && !info.commands.is_empty(),
        "{info:?}"
    );
    assert!(info.pid.is_some());
    assert_eq!(
        info.current_permission_mode,
        Some(claudio::PermissionMode::Default)
    );
    client.send("make a file").await.unwrap();
    let msgs = turn(&client).await;
    client.close().await.unwrap();
    let asked = asked.lock().unwrap().clone();
    (w, msgs, asked)
}

#[tokio::test(flavor = "multi_thread")]
async fn bash_allowed_runs_for_real() {
    if real_cli("bash_allowed_runs_for_real").is_none() {
        return;
    }
    let (w, msgs, asked) = bash_with_answer(PermissionResult::allow()).await;
    assert_eq!(asked, ["Bash touch made_by_tool"]);
    assert!(
        w.work.path().join("made_by_tool").exists(),
        "the tool did not run"
    );
    assert_eq!(result(&msgs).result.as_deref(), Some("Finished."));
    let reqs = w.main_requests();
    assert_eq!(reqs.len(), 2);
    let tr = &reqs[1].tool_results()[0];
    assert!(!tr.is_error, "{tr:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn bash_denied_does_not_run_and_the_model_hears_why() {
    if real_cli("bash_denied_does_not_run_and_the_model_hears_why").is_none() {
        return;
    }
    let (w, msgs, asked) =
        bash_with_answer(PermissionResult::deny("not in this test, sorry")).await;
    assert_eq!(asked.len(), 1);
    assert!(
        !w.work.path().join("made_by_tool").exists(),
        "a denied tool ran"
    );
    let reqs = w.main_requests();
    assert_eq!(reqs.len(), 2);
    let tr = &reqs[1].tool_results()[0];
    assert!(tr.is_error);
    assert!(tr.content.contains("not in this test, sorry"), "{tr:?}");
    let r = result(&msgs);
    assert_eq!(r.permission_denials.len(), 1);
}

#[test]
fn ask_prints_the_streamed_answer() {
    let w = world!("ask_prints_the_streamed_answer");
    w.api.push(Reply::text_chunks(&["The answer ", "is 42."]));
    let out = w
        .claudio()
        .args(["ask", "what is the answer?"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "The answer is 42.\n");
    assert!(!err.contains(API_KEY));
}

#[test]
fn ask_without_a_terminal_denies_the_tool() {
    let w = world!("ask_without_a_terminal_denies_the_tool");
    w.api.push(Reply::bash("touch should_not_exist"));
    w.api.push(Reply::text("Understood."));
    let out = w
        .claudio()
        .args(["ask", "make a file"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("denied Bash"), "{err}");
    assert!(!w.work.path().join("should_not_exist").exists());
    let reqs = w.main_requests();
    let tr = &reqs[1].tool_results()[0];
    assert!(
        tr.is_error && tr.content.contains("no terminal to ask the user"),
        "{tr:?}"
    );
}

#[test]
fn ask_sends_the_prompt_and_the_piped_text() {
    let w = world!("ask_sends_the_prompt_and_the_piped_text");
    w.api.push(Reply::text("Looks fine."));
    let mut child = w
        .claudio()
        .args(["ask", "review", "this"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(b"--- a/x\n+++ b/x\n+new line\n").unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "Looks fine.\n");
    let reqs = w.main_requests();
    assert!(
        reqs[0]
            .last_user_text()
            .contains("review this\n\n--- a/x\n+++ b/x\n+new line"),
        "{}",
        reqs[0].last_user_text()
    );
}

#[test]
fn chat_always_allow_is_not_asked_twice() {
    let w = world!("chat_always_allow_is_not_asked_twice");
    w.api.push(Reply::bash("touch first_file"));
    w.api.push(Reply::text("Made it."));
    w.api.push(Reply::bash("touch first_file"));
    w.api.push(Reply::text("Made it again."));
    let mut c = w.claudio();
    c.env("XDG_DATA_HOME", w.home.path());
    let mut t = common::term::Term::spawn(c);
    t.wait_for("Ctrl-D exits");
    t.line("make a file");
    t.wait_for("Allow?");
    t.line("a");
    t.wait_for("Made it.");
    t.wait_for("API calls ·");
    assert!(w.work.path().join("first_file").exists());
    t.wait_prompt();
    t.line("once more");
    t.wait_for("Made it again.");
    let screen = t.wait_for_n("API calls ·", 2);
    assert_eq!(
        screen.matches("Allow?").count(),
        1,
        "asked twice:\n{screen}"
    );
    t.ctrl_d();
    assert_eq!(t.wait(30).code(), Some(0));
    let reqs = w.main_requests();
    assert_eq!(reqs.len(), 4);
    assert!(!reqs[3].tool_results()[0].is_error);
}

#[test]
fn chat_edit_approval_shows_the_diff_and_the_file_then_matches() {
    let w = world!("chat_edit_approval_shows_the_diff_and_the_file_then_matches");
    let file = w.work.path().join("checkout.rs");
    std::fs::write(
        &file,
        "fn total(subtotal: i64, discount: i64) -> i64 {\n    let total = subtotal - discount;\n    if total < 0 { panic!(\"negative\") }\n    total\n}\n",
    )
    .unwrap();
    let path = file.display().to_string();
    // the CLI edits only files it has read in this session
    w.api.push(Reply::tool_use(
        "Read",
        serde_json::json!({"file_path": path}),
    ));
    w.api.push(Reply::tool_use(
        "Edit",
        serde_json::json!({"file_path": path,
            "old_string": "    if total < 0 { panic!(\"negative\") }\n    total\n",
            "new_string": "    total.max(0)\n"}),
    ));
    w.api.push(Reply::text("Clamped at zero."));
    let mut c = w.claudio();
    c.env("XDG_DATA_HOME", w.home.path());
    let mut t = common::term::Term::spawn(c);
    t.wait_for("Ctrl-D exits");
    t.line("fix the negative total");
    let screen = t.wait_for("Allow?");
    assert!(screen.contains("Edit"), "{screen}");
    assert!(screen.contains("(+1 −2)"), "{screen}");
    assert!(
        screen.contains("3 -      if total < 0 { panic!(\"negative\") }"),
        "{screen}"
    );
    assert!(screen.contains("4 -      total"), "{screen}");
    assert!(screen.contains("3 +      total.max(0)"), "{screen}");
    t.line("y");
    t.wait_for("Clamped at zero.");
    t.ctrl_d();
    assert_eq!(t.wait(30).code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "fn total(subtotal: i64, discount: i64) -> i64 {\n    let total = subtotal - discount;\n    total.max(0)\n}\n"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn sigterm_mid_turn_leaves_a_transcript_that_resumes() {
    let w = world!("sigterm_mid_turn_leaves_a_transcript_that_resumes");
    let chunks: Vec<String> = (0..40).map(|i| format!("part {i} ")).collect();
    let refs: Vec<&str> = chunks.iter().map(String::as_str).collect();
    w.api
        .push(Reply::text_chunks(&refs).with_delay(std::time::Duration::from_millis(100)));
    let mut child = w
        .claudio()
        .args(["ask", "remember the word pineapple"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    assert_eq!(common::first_bytes(&mut child, 6), b"part 0");
    common::signal(&child, libc::SIGTERM);
    let status = common::wait_with_deadline(&mut child, 30);
    assert_eq!(status.code(), Some(143));
    // the transcript is on disk and complete enough to resume
    let store = w.home.path().join(".claude/projects");
    let transcript = common::walk(&store)
        .into_iter()
        .find(|p| {
            p.extension().is_some_and(|e| e == "jsonl")
                && !p.to_string_lossy().contains("subagents")
        })
        .expect("a transcript");
    let id = transcript
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let text = std::fs::read_to_string(&transcript).unwrap();
    for line in text.lines() {
        serde_json::from_str::<serde_json::Value>(line).expect("every line whole");
    }
    w.api.push(Reply::text("It was pineapple."));
    let client = Client::connect(w.options().resume(id)).await.unwrap();
    client.send("what was the word?").await.unwrap();
    let msgs = turn(&client).await;
    assert_eq!(result(&msgs).result.as_deref(), Some("It was pineapple."));
    client.close().await.unwrap();
    let last = w.main_requests().pop().unwrap();
    assert!(
        last.body_contains("remember the word pineapple"),
        "the resumed turn lacks the earlier prompt"
    );
}

/// One turn in which the model runs a foreground sub-agent: what the store
/// counts for the session, sub-agents included, is what the CLI's own
/// `result.modelUsage` says the turn used, model by model.
#[tokio::test(flavor = "multi_thread")]
async fn usage_with_a_sub_agent_equals_the_turn_s_model_usage() {
    let w = world!("usage_with_a_sub_agent_equals_the_turn_s_model_usage");
    let main = |r: &RecordedRequest| !r.is_subagent();
    let sub = |r: &RecordedRequest| r.is_subagent();
    w.api.push_matching(
        main,
        Reply::tool_use(
            "Agent",
            serde_json::json!({"description":"count files","prompt":"count the files here",
                "subagent_type":"general-purpose","run_in_background":false}),
        )
        .with_output_tokens(10),
    );
    w.api
        .push_matching(sub, Reply::text("There are 3 files.").with_output_tokens(5));
    w.api.push_matching(
        main,
        Reply::text("The agent counted 3 files.").with_output_tokens(7),
    );
    let options = w
        .options()
        .can_use_tool(|_req: claudio::CanUseToolRequest, _ctx| async {
            Ok(PermissionResult::allow())
        });
    let client = Client::connect(options).await.expect("connect");
    client.send("how many files are there?").await.unwrap();
    let msgs = turn(&client).await;
    client.close().await.unwrap();
    let r = result(&msgs);
    assert_eq!(
        r.result.as_deref(),
        Some("The agent counted 3 files."),
        "{r:?}"
    );
    assert!(
        w.api
            .requests()
            .iter()
            .any(|q| q.is_main() && q.is_subagent()),
        "no sub-agent ran"
    );
    let session = r.session_id.clone().expect("a session id");

    let store = claudio::store::Store::new(w.home.path().join(".claude"));
    let u = store.session_usage(&session).expect("the session's usage");
    assert_eq!(u.subagents.len(), 1, "{u:?}");
    assert!(u.skipped.is_empty(), "{:?}", u.skipped);
    let ours: std::collections::BTreeMap<String, (u64, u64)> = u
        .total()
        .by_model()
        .into_iter()
        .map(|(m, t)| (m, (t.input, t.output)))
        .collect();
    let cli: std::collections::BTreeMap<String, (u64, u64)> = r
        .model_usage
        .iter()
        .map(|(m, t)| (m.clone(), (t.input_tokens, t.output_tokens)))
        .collect();
    eprintln!(
        "session_usage total: {ours:?}; the file alone: {:?}; result.modelUsage: {cli:?}",
        (
            u.without_subagents.tokens().input,
            u.without_subagents.tokens().output
        )
    );
    assert_eq!(ours, cli);
    // the session's own file alone is short of it: the sub-agent's part
    let alone = u.without_subagents.tokens();
    let agent = u.subagents[0].usage.tokens();
    assert_eq!(agent.output, 5);
    assert!(alone.output < u.total().tokens().output);
    // the listing counts the same
    let listing = store.usage(None).unwrap();
    let s = listing
        .sessions
        .iter()
        .find(|s| s.session_id == session)
        .unwrap();
    assert_eq!(s.total().tokens(), u.total().tokens());

    // and `sessions usage --by session` shows the agent under its session
    let out = w
        .claudio()
        .args(["sessions", "usage", "--all", "--by", "session"])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("{text}");
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        // the table names a session by its short id and title
        .position(|l| l.starts_with(&session[..8]))
        .unwrap_or_else(|| panic!("no row for the session:\n{text}"));
    assert!(lines[at + 1].starts_with("  ↳ count files ("), "{text}");
}

/// A background sub-agent (what the `Agent` tool does by default): the
/// CLI starts a second turn for its report. After it, what the store counts
/// for the session, sub-agents included, is what the CLI's last
/// `result.modelUsage` says the session used.
#[tokio::test(flavor = "multi_thread")]
async fn usage_with_a_background_agent_equals_the_session_s_model_usage() {
    let w = world!("usage_with_a_background_agent_equals_the_session_s_model_usage");
    let main = |r: &RecordedRequest| !r.is_subagent();
    let sub = |r: &RecordedRequest| r.is_subagent();
    w.api.push_matching(
        main,
        Reply::tool_use(
            "Agent",
            serde_json::json!({"description":"count files","prompt":"count the files here",
                "subagent_type":"general-purpose"}),
        )
        .with_output_tokens(10),
    );
    // the agent answers after the main turn has ended (its result here), as
    // a slow one would: a CLI that has the agent's answer before it ends
    // the main turn folds it in and starts no turn to report it
    let ended = w.home.path().join("main-turn-ended");
    w.api.push_matching(
        sub,
        Reply::text("There are 3 files.")
            .with_output_tokens(5)
            .after(&ended),
    );
    w.api
        .push_matching(main, Reply::text("It is counting.").with_output_tokens(7));
    w.api
        .push_matching(main, Reply::text("It found 3 files.").with_output_tokens(9));
    let options = w
        .options()
        .can_use_tool(|_req: claudio::CanUseToolRequest, _ctx| async {
            Ok(PermissionResult::allow())
        });
    let client = Client::connect(options).await.expect("connect");
    client.send("how many files are there?").await.unwrap();
    let first = turn(&client).await;
    std::fs::write(&ended, b"").unwrap();
    // the turn the CLI starts for the agent's report
    let report = turn(&client).await;
    client.close().await.unwrap();
    let r = result(&report);
    assert_eq!(r.result.as_deref(), Some("It found 3 files."), "{r:?}");
    let session = r.session_id.clone().expect("a session id");

    let store = claudio::store::Store::new(w.home.path().join(".claude"));
    let u = store.session_usage(&session).expect("the session's usage");
    assert_eq!(u.subagents.len(), 1, "{u:?}");
    let ours: std::collections::BTreeMap<String, (u64, u64)> = u
        .total()
        .by_model()
        .into_iter()
        .map(|(m, t)| (m, (t.input, t.output)))
        .collect();
    let of = |r: &claudio::ResultMessage| -> std::collections::BTreeMap<String, (u64, u64)> {
        r.model_usage
            .iter()
            .map(|(m, t)| (m.clone(), (t.input_tokens, t.output_tokens)))
            .collect()
    };
    eprintln!(
        "session_usage total: {ours:?}; first result: {:?}; last result: {:?}",
        of(result(&first)),
        of(r)
    );
    assert_eq!(ours, of(r));
}

/// `claudio deck hooks install` puts the deck's hook in the person's
/// settings, for claude TUIs; the CLI a claudio chat starts reads those
/// settings and runs the hook beside the stream-json request, which the
/// chat offers to the deck itself. The hook stands aside at once (it finds
/// `CLAUDIO_PUBLISHES_REQUESTS` in the environment the CLI gives it), so the
/// deck holds the request once. Before, it showed "1 sessions · 2 need you"
/// and the hook waited for a second answer (found by hand).
#[test]
fn chat_request_is_held_once_by_the_deck_with_the_hook_installed() {
    let w = world!("chat_request_is_held_once_by_the_deck_with_the_hook_installed");
    let home = w.home.path();
    std::fs::create_dir_all(home.join("run")).unwrap();
    // the hook as installed, wrapped to say when it ran and when it ended
    let log = home.join("hook.log");
    let wrapper = home.join("hook.sh");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\necho \"ran ${{CLAUDIO_PUBLISHES_REQUESTS:-unset}}\" >> '{log}'\n'{exe}' deck hook\necho ended >> '{log}'\n",
            log = log.display(),
            exe = env!("CARGO_BIN_EXE_claudio"),
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o700)).unwrap();
    let settings = serde_json::json!({"hooks": {"PermissionRequest": [{"matcher": "*",
        "hooks": [{"type": "command", "command": wrapper.display().to_string(), "timeout": 310}]}]}});
    std::fs::write(home.join(".claude/settings.json"), settings.to_string()).unwrap();
    w.api.push(Reply::bash("touch made_by_tool"));
    w.api.push(Reply::text("Made it."));
    let mut d = crate::deck::Deck::start(home);
    let mut c = w.claudio();
    c.env("XDG_DATA_HOME", home);
    let mut t = common::term::Term::spawn(c);
    t.wait_for("Ctrl-D exits");
    t.line("make a file");
    t.wait_for("Allow?");
    d.wait_for("┌ Bash  touch made_by_tool");
    // the CLI runs the hook beside the request: it ends with the request
    // still waiting, having asked the deck nothing
    let until = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        let said = std::fs::read_to_string(&log).unwrap_or_default();
        if said.contains("ended") {
            assert!(said.starts_with("ran 1\n"), "{said}");
            break;
        }
        assert!(
            std::time::Instant::now() < until,
            "the hook never ended while the request waited: {said:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let more = d.printed();
    assert!(
        !more.iter().any(|l| l.contains("┌ Bash")),
        "the deck showed the request again: {more:?}"
    );
    use std::io::Write;
    d.child.stdin.as_mut().unwrap().write_all(b"y\n").unwrap();
    t.wait_for("answered in the deck");
    t.wait_for("Made it.");
    t.wait_for("API calls ·");
    assert!(w.work.path().join("made_by_tool").exists());
    t.ctrl_d();
    assert_eq!(t.wait(30).code(), Some(0));
}

/// What a resumed chat's history relies on to time a call (the chat's
/// `history::untime_waited`): the transcript has when a call was made and
/// when its result came, not when its permission was answered, but its
/// `permissionDecision` says whether the check decided by itself. A call
/// the host allowed (the chat's dialog) has neither a `config` source nor
/// a `reasonType`; one the settings allowed (a Read in the working folder)
/// has one of them.
#[tokio::test(flavor = "multi_thread")]
async fn the_transcript_tells_an_answered_permission_from_one_decided_by_itself() {
    let w = world!("the_transcript_tells_an_answered_permission_from_one_decided_by_itself");
    let work = std::fs::canonicalize(w.work.path()).unwrap();
    std::fs::write(work.join("notes.txt"), "hello\n").unwrap();
    w.api.push(Reply::bash("touch made_by_tool"));
    w.api.push(Reply::tool_use(
        "Read",
        serde_json::json!({"file_path": work.join("notes.txt")}),
    ));
    w.api.push(Reply::text("Finished."));
    let asked = Arc::new(Mutex::new(Vec::new()));
    let a2 = asked.clone();
    let options = w
        .options()
        .can_use_tool(move |req: claudio::CanUseToolRequest, _ctx| {
            a2.lock().unwrap().push(req.tool_name.clone());
            async { Ok(PermissionResult::allow()) }
        });
    let client = Client::connect(options).await.expect("connect");
    client
        .send("make a file, then read the notes")
        .await
        .unwrap();
    let msgs = turn(&client).await;
    client.close().await.unwrap();
    assert_eq!(result(&msgs).subtype, "success");
    assert_eq!(*asked.lock().unwrap(), ["Bash"], "the Read was not asked");
    let store = claudio::store::Store::new(w.home.path().join(".claude"));
    let listing = store.list(&claudio::store::ListOptions::all()).unwrap();
    let id = &listing.sessions[0].session_id;
    let (_, conv) = store.conversation(id).unwrap();
    let decision = |tool: &str| -> serde_json::Value {
        let call = conv
            .entries
            .iter()
            .find_map(|e| {
                e.value
                    .pointer("/message/content/0")
                    .filter(|b| b["type"] == "tool_use" && b["name"] == tool)
                    .and_then(|b| b["id"].as_str().map(str::to_owned))
            })
            .unwrap_or_else(|| panic!("no {tool} call"));
        conv.entries
            .iter()
            .find(|e| {
                e.value.pointer("/message/content/0/tool_use_id") == Some(&call.clone().into())
            })
            .map(|e| e.value["permissionDecision"].clone())
            .unwrap_or_else(|| panic!("no {tool} result"))
    };
    let by_itself = |d: &serde_json::Value| {
        matches!(d["source"].as_str(), Some("config" | "classifier"))
            || d["reasonType"].as_str().is_some_and(|r| !r.is_empty())
    };
    let bash = decision("Bash");
    assert_eq!(bash["decision"], "accept", "{bash}");
    assert!(!by_itself(&bash), "{bash}");
    let read = decision("Read");
    assert_eq!(read["decision"], "accept", "{read}");
    assert!(by_itself(&read), "{read}");
}
