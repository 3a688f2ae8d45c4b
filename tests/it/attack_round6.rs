//! Round six's attack on what landed in round five without one (the event
//! stream, the deck's hook and socket, notices, `claudio::child`, the
//! usage flags, the chat's signals): each test is one repro.

use crate::common::*;
use std::time::Duration;

/// The chat stopped by SIGQUIT or SIGUSR1 (signals whose default is to
/// end the program at once) while its session starts: it ends as for
/// SIGTERM, its session closed, the terminal put back, its private files
/// (an MCP server's token) and its CLI gone. Before, the signal ended it
/// outright (SIGQUIT with a core), leaving the token on disk.
#[test]
fn chat_stopped_by_sigquit_or_sigusr1_leaves_no_private_files() {
    use crate::mcp_secrets::{
        config_with_token, nothing_left, second_start, secret, slow_second_start,
    };
    for (sig, code) in [
        (libc::SIGQUIT, 131),
        (libc::SIGUSR1, 138),
        (libc::SIGUSR2, 140),
    ] {
        let base = tempfile::tempdir().unwrap();
        let token = secret("chat");
        let fake = slow_second_start();
        let home = fake.record.path().join("home");
        let mut c = claudio(&fake);
        c.env("XDG_RUNTIME_DIR", base.path())
            .env("XDG_DATA_HOME", &home)
            .env("HOME", &home)
            .args(["--mcp-config", &config_with_token(&token)]);
        let mut t = term::Term::spawn(c);
        let (cli, _file) = second_start(&fake, base.path(), &token);
        signal(t.child(), sig);
        assert_eq!(t.wait(20).code(), Some(code), "signal {sig}");
        nothing_left(base.path(), cli, &format!("chat, signal {sig}"));
    }
}

/// `sessions usage --until` before `--since` is a window that holds no
/// time: a usage error naming both, not "no usage recorded in these
/// sessions" (which says something false about the sessions).
#[test]
fn usage_until_before_since_is_a_usage_error() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("projects")).unwrap();
    for (since, until) in [("2026-11-05", "2026-11-01"), ("2d", "3d")] {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_claudio"))
            .args(["sessions", "--config-dir"])
            .arg(d.path())
            .args(["usage", "--all", "--since", since, "--until", until])
            .env("NO_COLOR", "1")
            .env("TZ", "UTC")
            .env("CLAUDIO_CACHE_DIR", d.path().join("cache"))
            .env("CLAUDIO_ARCHIVE_DIR", d.path().join("archive"))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{since} {until}: {err}");
        assert!(
            err.contains(&format!("--until {until}")) && err.contains(&format!("--since {since}")),
            "{err}"
        );
        assert!(o.stdout.is_empty());
    }
}

/// The chat's live region on a tiny terminal (10×3), resized there in the
/// middle of a turn with calls running, and back: no panic, no hang, the
/// region never scrolls more than a screen at once, and no spinner row is
/// left behind.
#[test]
fn a_tiny_terminal_and_a_resize_mid_stream_leave_a_clean_screen() {
    let mut turn = vec![expect_user("go"), system_init()];
    for i in 0..6 {
        turn.push(assistant_tool_use(
            &format!("toolu_{i}"),
            "Bash",
            serde_json::json!({ "command": format!("echo {i} and a long tail of words") }),
        ));
    }
    // the calls run until the test has resized the terminal twice
    let dir = tempfile::tempdir().unwrap();
    let (sent, go) = (dir.path().join("sent"), dir.path().join("go"));
    turn.push(Step::WriteFile {
        path: sent.display().to_string(),
        content: String::new(),
    });
    turn.push(Step::WaitFile(go.clone()));
    for i in 0..6 {
        turn.push(Step::Emit(
            serde_json::json!({"type":"user","message":{"role":"user","content":[
            {"type":"tool_result","tool_use_id":format!("toolu_{i}"),"content":format!("{i}")}]},
            "parent_tool_use_id":null,"session_id":"sess-1"}),
        ));
    }
    turn.push(assistant_text(
        "a closing answer that is longer than ten columns",
    ));
    turn.push(result("done"));
    let fake = Fake::after_init(vec![turn]);
    let mut c = claudio(&fake);
    let home = fake.record.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    c.env("XDG_DATA_HOME", &home).env("HOME", &home);
    let mut t = term::Term::spawn_sized(c, 3, 10);
    t.wait_prompt();
    t.line("go");
    // while the calls run (the CLI sent them and waits): smaller still,
    // then a little larger, each time once the chat has drawn since
    let drew_since = |t: &term::Term, mark: usize| {
        let until = std::time::Instant::now() + Duration::from_secs(30);
        while t.raw().len() <= mark {
            assert!(std::time::Instant::now() < until, "{}", t.contents());
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    let until = std::time::Instant::now() + Duration::from_secs(30);
    while !sent.exists() {
        assert!(
            std::time::Instant::now() < until,
            "the calls never went out"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let mark = t.raw().len();
    t.resize(2, 5);
    drew_since(&t, mark);
    let mark = t.raw().len();
    t.resize(3, 10);
    drew_since(&t, mark);
    std::fs::write(&go, "").unwrap();
    t.wait_prompt();
    t.send(b"\x04");
    assert_eq!(t.wait(20).code(), Some(0), "{}", t.contents());
    let screen = t.contents();
    let spinners = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
    assert!(
        !screen.contains(spinners),
        "a spinner row was left:\n{screen}"
    );
}

/// `claudio deck hook --wait` with a bound past what a clock can add
/// (the TUI runs the hook: it must end 0 whatever it is given, or the
/// person's dialog is disturbed): no panic, no output, exit 0.
#[test]
fn the_deck_hook_with_a_huge_wait_ends_quietly() {
    let run = tempfile::tempdir().unwrap();
    std::fs::set_permissions(
        run.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )
    .unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_claudio"))
        .args(["deck", "hook", "--wait", "18446744073709551615"])
        .env("XDG_RUNTIME_DIR", run.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(br#"{"session_id":"s","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"ls"}}"#)
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty());
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `sessions usage` over a transcript dated past the years a clock
/// library knows (the largest JavaScript date, +275760) and before year
/// 0: each row's key is that whole date (by day, month and window), never
/// a date cut at a fixed column ("275760-09-", "275760-", "3T00:").
#[test]
fn usage_keys_of_far_dates_are_whole_dates() {
    let d = tempfile::tempdir().unwrap();
    let id = "aaaaaaaa-1111-4111-8111-111111111111";
    let dir = d.path().join("projects/-x");
    std::fs::create_dir_all(&dir).unwrap();
    let line = |req: &str, ts: &str| {
        serde_json::json!({"type":"assistant","sessionId":id,"requestId":req,"timestamp":ts,
            "message":{"id":req,"model":"claude-sonnet-4-5","role":"assistant","content":[],
            "usage":{"input_tokens":1,"output_tokens":1}}})
        .to_string()
    };
    std::fs::write(
        dir.join(format!("{id}.jsonl")),
        [
            line("r1", "+275760-09-13T00:00:00.000Z"),
            line("r2", "-000001-01-01T00:00:00.000Z"),
        ]
        .join("\n")
            + "\n",
    )
    .unwrap();
    let keys = |by: &str| -> Vec<String> {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_claudio"))
            .args(["sessions", "--config-dir"])
            .arg(d.path())
            .args(["usage", "--all", "--by", by, "-o", "json"])
            .env("TZ", "UTC")
            .env("CLAUDIO_CACHE_DIR", d.path().join("cache"))
            .env("CLAUDIO_ARCHIVE_DIR", d.path().join("archive"))
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{o:?}");
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["key"].as_str().unwrap().to_owned())
            .collect()
    };
    let day = keys("day");
    assert!(day.contains(&"275760-09-13".to_owned()), "{day:?}");
    let month = keys("month");
    assert!(month.contains(&"275760-09".to_owned()), "{month:?}");
    assert!(month.contains(&"-001-01".to_owned()), "{month:?}");
    let block = keys("block");
    assert!(
        block
            .iter()
            .any(|k| k.starts_with("275760-09-13 00:00–05:00")),
        "{block:?}"
    );
}

/// A CLI that withdraws a request and sends another with the same id: the
/// first handle says withdrawn, the second answers, and the CLI gets one
/// answer, the second's. A handle kept past the session's close says
/// closed, at once.
#[tokio::test]
async fn a_withdrawn_id_sent_again_is_a_new_request_and_close_refuses_answers() {
    use claudio::{AnswerError, Client, Event, PermissionResult, StreamExt};
    let fake = Fake::after_init(vec![vec![
        expect_user("go"),
        can_use_tool("dup", "Bash", serde_json::json!({"command":"one"})).emit(),
        Step::Emit(serde_json::json!({"type":"control_cancel_request","request_id":"dup"})),
        can_use_tool("dup", "Bash", serde_json::json!({"command":"two"})).emit(),
        Step::expect(
            serde_json::json!({"type":"control_response","response":{"subtype":"success",
            "request_id":"dup","response":{"behavior":"allow","updatedInput":{"command":"two"}}}}),
        ),
        result("done"),
        can_use_tool("late", "Bash", serde_json::json!({"command":"three"})).emit(),
    ]]);
    let client = Client::connect(fake.options()).await.unwrap();
    client.send("go").await.unwrap();
    let read = async {
        let mut requests: Vec<Box<claudio::Request>> = Vec::new();
        let mut withdrawn = 0;
        let mut events = client.events();
        while let Some(e) = events.next().await {
            match e.expect("event") {
                Event::Request(r) => {
                    let command = r.can_use_tool().unwrap().input["command"].clone();
                    if command == "two" {
                        // the first is withdrawn; the second, same id, is not
                        assert_eq!(
                            requests[0]
                                .responder()
                                .answer(PermissionResult::allow())
                                .await,
                            Err(AnswerError::Withdrawn)
                        );
                        r.responder()
                            .answer(PermissionResult::allow())
                            .await
                            .expect("the second answers");
                    }
                    requests.push(r);
                    if command == "three" {
                        break;
                    }
                }
                Event::Withdrawn { request_id } => {
                    assert_eq!(request_id, "dup");
                    assert_eq!(
                        requests.len(),
                        1,
                        "withdrawn after the first, before the second"
                    );
                    withdrawn += 1;
                }
                _ => {}
            }
        }
        (requests, withdrawn)
    };
    let (requests, withdrawn) = tokio::time::timeout(Duration::from_secs(60), read)
        .await
        .expect("no hang");
    assert_eq!(withdrawn, 1);
    assert_eq!(requests.len(), 3);
    let late = requests[2].responder().clone();
    client.close().await.unwrap();
    let after = tokio::time::timeout(
        Duration::from_secs(20),
        late.answer(PermissionResult::allow()),
    )
    .await
    .expect("no hang");
    assert_eq!(after, Err(AnswerError::Closed));
    drop(requests);
    let answers: Vec<_> = fake
        .stdin_lines()
        .into_iter()
        .filter(|l| l["type"] == "control_response")
        .collect();
    assert_eq!(answers.len(), 1, "{answers:?}");
}

/// `claudio args` run in `dir` (no stdin, no colours), its home, cache
/// and archive folders in it, with `env` set.
fn claudio_in(dir: &std::path::Path, args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_claudio"))
        .args(args)
        .current_dir(dir)
        .envs(env.iter().copied())
        .env("HOME", dir.join("home"))
        .env("NO_COLOR", "1")
        .env("CLAUDIO_CACHE_DIR", dir.join("cache"))
        .env("CLAUDIO_ARCHIVE_DIR", dir.join("archive"))
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

/// A relative `CLAUDE_CONFIG_DIR` is a usage error naming it, for the
/// sessions commands and the deck's install: before, it was read against
/// the folder claudio ran in, so `sessions list` listed (and `delete`
/// would delete in) a store the folder itself held, and the deck's hook
/// went into that folder's `settings.json`.
#[test]
fn a_relative_claude_config_dir_is_a_usage_error() {
    let d = tempfile::tempdir().unwrap();
    let id = "11111111-2222-4333-8444-555555555555";
    let folder = d.path().join("rel/projects/-w");
    std::fs::create_dir_all(&folder).unwrap();
    let line = serde_json::json!({"type": "user", "sessionId": id, "cwd": "/w",
        "message": {"role": "user", "content": "the folder's own"}});
    std::fs::write(folder.join(format!("{id}.jsonl")), format!("{line}\n")).unwrap();
    for args in [
        &["sessions", "list", "--all"][..],
        &["sessions", "delete", id, "--yes"],
        &["deck", "hooks", "install", "--yes"],
    ] {
        let o = claudio_in(d.path(), args, &[("CLAUDE_CONFIG_DIR", "rel")]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("CLAUDE_CONFIG_DIR is a relative path (rel)"),
            "{args:?}: {err}"
        );
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(!String::from_utf8_lossy(&o.stdout).contains(id), "{args:?}");
    }
    assert!(folder.join(format!("{id}.jsonl")).exists(), "not deleted");
    assert!(
        !d.path().join("rel/settings.json").exists(),
        "no hook installed"
    );
}

/// A relative `CLAUDIO_CONFIG` is a usage error (threats.md class 1), not
/// a file of that name in whatever folder claudio runs in: the folder's
/// `rel.toml` is never read. The status line still shows its line.
#[test]
fn a_relative_claudio_config_is_a_usage_error() {
    let d = tempfile::tempdir().unwrap();
    // a config the folder holds, that would make every command fail
    std::fs::write(d.path().join("rel.toml"), "color = \"sometimes\"\n").unwrap();
    let claude = d.path().join("claude");
    let claude = claude.to_str().unwrap();
    let run = |args: &[&str]| {
        claudio_in(
            d.path(),
            args,
            &[
                ("CLAUDIO_CONFIG", "rel.toml"),
                ("CLAUDE_CONFIG_DIR", claude),
            ],
        )
    };
    for args in [&["sessions", "list", "--all"][..], &["config", "show"]] {
        let o = run(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("CLAUDIO_CONFIG is a relative path (rel.toml)"),
            "{args:?}: {err}"
        );
        assert!(
            !err.contains("sometimes"),
            "{args:?}: the file was read: {err}"
        );
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    }
}
