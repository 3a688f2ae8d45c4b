//! The fault matrix: each fault ends in bounded time, with a clear message,
//! the documented exit code, and no `claude` process left.

use crate::common;

use claudio::{Client, Error, Message, PermissionResult, StreamExt};
use common::term::Term;
use common::*;
use serde_json::{json, Value};
use std::io::Read;
use std::process::Stdio;
use std::time::{Duration, Instant};

async fn turn(client: &Client) -> Vec<claudio::Result<Message>> {
    let mut out = Vec::new();
    let mut s = std::pin::pin!(client.receive_response());
    while let Some(m) = s.next().await {
        out.push(m);
    }
    out
}

#[tokio::test]
async fn duplicate_request_ids_each_get_an_answer() {
    let req = can_use_tool("dup", "Bash", json!({})).emit();
    let fake = Fake::after_init(vec![vec![
        req.clone(),
        req,
        Step::expect(json!({"type":"control_response","response":{"request_id":"dup"}})),
        Step::expect(json!({"type":"control_response","response":{"request_id":"dup"}})),
        result("both answered"),
    ]]);
    let options = fake
        .options()
        .can_use_tool(|_r, _c| async { Ok(PermissionResult::deny("no")) });
    let client = Client::connect(options).await.unwrap();
    let msgs = turn(&client).await;
    assert!(
        matches!(msgs.last(), Some(Ok(Message::Result(_)))),
        "{msgs:?}"
    );
    assert!(client.close().await.unwrap().success());
}

#[tokio::test]
async fn a_response_to_an_unknown_id_is_ignored() {
    let fake = Fake::after_init(vec![vec![
        Step::Emit(
            json!({"type":"control_response","response":{"subtype":"success","request_id":"never-sent","response":{}}}),
        ),
        Step::Emit(
            json!({"type":"control_response","response":{"subtype":"error","request_id":"also-never","error":"x"}}),
        ),
        result("fine"),
    ]]);
    let client = Client::connect(fake.options()).await.unwrap();
    let msgs = turn(&client).await;
    assert_eq!(msgs.len(), 1, "{msgs:?}");
    assert!(client.close().await.unwrap().success());
}

#[tokio::test]
async fn stdout_closing_without_a_result_is_an_error() {
    let fake = Fake::after_init(vec![vec![
        expect_user("q"),
        delta("half an answer"),
        Step::Exit(0),
    ]]);
    let client = Client::connect(fake.options().include_partial_messages(true))
        .await
        .unwrap();
    client.send("q").await.unwrap();
    let msgs = tokio::time::timeout(Duration::from_secs(60), turn(&client))
        .await
        .expect("hang after stdout closed");
    match msgs.last() {
        Some(Err(Error::ProcessExited { code: Some(0), .. })) => {}
        other => panic!("{other:?}"),
    }
    // and `ask` says so and exits 1
    let mut c = claudio(&fake);
    c.args(["ask", "q"]);
    let o = c.stdin(Stdio::null()).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("exited with code 0"), "{err}");
}

#[test]
fn a_cli_that_is_not_executable_is_not_found() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("claude");
    std::fs::write(&p, "#!/bin/sh\necho hi\n").unwrap();
    let fake = Fake::new(vec![]);
    let o = claudio(&fake)
        .env("CLAUDIO_CLI", &p)
        .args(["ask", "q"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(127));
    assert!(String::from_utf8_lossy(&o.stderr).contains(&p.display().to_string()));
}

#[test]
fn a_closed_terminal_denies() {
    // /dev/null as the terminal: opening works, reading gives end of file
    let fake = Fake::after_init(vec![vec![
        expect_user("q"),
        can_use_tool("p", "Bash", json!({"command":"rm -rf /"})).emit(),
        Step::expect(
            json!({"type":"control_response","response":{"request_id":"p","response":{"behavior":"deny"}}}),
        ),
        result("denied"),
    ]]);
    let o = claudio(&fake)
        .env("CLAUDIO_TEST_TTY", "/dev/null")
        .args(["ask", "q"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let sent = fake.stdin_lines();
    let answer = sent
        .iter()
        .find(|l| l["type"] == "control_response")
        .unwrap();
    assert_eq!(answer["response"]["response"]["behavior"], "deny");
}

#[test]
fn a_handler_that_fails_never_allows() {
    // every failure path of the library's router: the CLI gets an error, not an allow
    let fake = Fake::after_init(vec![vec![
        can_use_tool("p1", "Bash", json!({})).emit(),
        Step::expect(
            json!({"type":"control_response","response":{"subtype":"error","request_id":"p1"}}),
        ),
        result("ok"),
    ]]);
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let options = fake.options().can_use_tool(|_r, _c| async {
            panic!("the prompt crashed");
            #[allow(unreachable_code)]
            Ok(PermissionResult::allow())
        });
        let client = Client::connect(options).await.unwrap();
        let msgs = turn(&client).await;
        assert!(matches!(msgs.last(), Some(Ok(Message::Result(_)))));
        assert!(client.close().await.unwrap().success());
    });
}

fn rss_kb(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

#[test]
fn a_slow_reader_slows_the_cli_instead_of_filling_memory() {
    let mut s = steps(vec![init(), vec![expect_user("q"), system_init()]]);
    let chunk = "x".repeat(1000);
    for _ in 0..60_000 {
        s.push(delta(&chunk)); // ~60 MB of answer
    }
    s.push(result("x"));
    let fake = Fake::new(s);
    let mut child = claudio(&fake)
        .args(["ask", "q"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // don't read for a while: the pipe fills, claudio must stop reading the CLI
    std::thread::sleep(Duration::from_secs(3));
    let held = rss_kb(child.id());
    assert!(
        held > 0 && held < 64 * 1024,
        "claudio holds {held} KB while nobody reads"
    );
    let mut out = child.stdout.take().unwrap();
    let mut total = 0usize;
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = out.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        total += n;
    }
    assert_eq!(wait_with_deadline(&mut child, 60).code(), Some(0));
    assert_eq!(total, 60_000 * 1000 + 1);
}

#[test]
fn a_64_mb_line_passes_with_the_default_limit() {
    let fake = Fake::after_init(vec![vec![
        expect_user("q"),
        Step::HugeLine(64 * 1024 * 1024),
        result("ok"),
    ]]);
    let o = claudio(&fake)
        .args(["ask", "-o", "stream-json", "q"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let first = o.stdout.split(|&b| b == b'\n').next().unwrap();
    assert!(first.len() > 64 * 1024 * 1024 - 200, "{}", first.len());
    let v: Value = serde_json::from_slice(first).unwrap();
    assert_eq!(v["type"], "user");
}

#[test]
fn the_terminal_closing_under_the_chat_closes_the_cli_gracefully() {
    let mut fake = Fake::new(vec![]);
    let marker = fake.record.path().join("saw-eof");
    fake.steps = steps(vec![
        init(),
        vec![
            expect_user("work"),
            delta("busy"),
            Step::expect_as(
                json!({"type":"control_request","request":{"subtype":"interrupt"}}),
                "i",
            ),
            Step::Emit(
                json!({"type":"control_response","response":{"subtype":"success","request_id":"{{i}}","response":{}}}),
            ),
            Step::Emit(
                json!({"type":"result","subtype":"error_during_execution","is_error":true,"session_id":"s","terminal_reason":"aborted_streaming"}),
            ),
            Step::WaitStdinEof,
            Step::WriteFile {
                path: marker.display().to_string(),
                content: "complete".into(),
            },
        ],
    ]);
    let home = fake.record.path().join("home");
    let mut c = claudio(&fake);
    c.env("XDG_DATA_HOME", &home).env("HOME", &home);
    let mut t = Term::spawn(c);
    t.wait_for("Ctrl-D exits");
    t.line("work");
    t.wait_for("busy");
    let started = Instant::now();
    signal(t.child(), libc::SIGHUP);
    assert_eq!(t.wait(20).code(), Some(129));
    // a hang guard: the marker below is the graceful close (stdin closed,
    // the CLI let finish; a kill writes none), and a loaded machine may
    // take its seconds
    assert!(started.elapsed() < Duration::from_secs(30));
    assert_eq!(std::fs::read_to_string(&marker).unwrap(), "complete");
    assert!(gone_within(fake.pid(), Duration::from_secs(5)));
}

/// The host killed outright (no cleanup runs, the CLI's stdin is not even
/// read): the parent-death signal the library sets at spawn stops the CLI,
/// which runs in a process group of its own.
#[test]
fn a_host_killed_outright_takes_the_cli_with_it() {
    let fake = Fake::after_init(vec![vec![
        expect_user("q"),
        system_init(),
        delta("working"),
        // deaf: reads no stdin, so only a signal can end it
        Step::SleepMs(60000),
    ]]);
    let mut c = claudio(&fake);
    c.args(["ask", "q"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    assert_eq!(first_bytes(&mut child, 7), b"working");
    let cli = fake.pid();
    assert!(alive(cli));
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let gone = gone_within(cli, Duration::from_secs(5));
    if !gone {
        // SAFETY: a plain kill(2) of what the test started.
        unsafe { libc::kill(cli, libc::SIGKILL) };
    }
    assert!(gone, "the CLI outlived its host");
}

/// `cmd` (a claudio command) started in `dir`, a folder removed by the
/// shell that entered it, just before it starts the command.
fn in_removed(cmd: &std::process::Command, dir: &std::path::Path) -> std::process::Command {
    let mut sh = std::process::Command::new("sh");
    sh.args([
        "-c",
        "cd \"$1\" && rmdir \"$1\" && shift && exec \"$@\"",
        "sh",
    ])
    .arg(dir)
    .arg(cmd.get_program())
    .args(cmd.get_args());
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => sh.env(k, v),
            None => sh.env_remove(k),
        };
    }
    sh
}

/// Run from a current folder removed while the shell was in it (its name
/// holding a terminal's title sequence), each command that needs the
/// current folder says it no longer exists and names it (its sequence
/// shown as text, nothing live), never "No such file or directory (os
/// error 2)" alone, and exits 1 with no `claude` started: `tui`, `ask`,
/// a prompt piped in, and on a terminal the chat, `-r` and `-c`.
#[test]
fn a_removed_current_folder_is_said_and_named() {
    let fake = Fake::after_init(vec![]);
    let root = tempfile::tempdir().unwrap();
    let folder = |n: usize| {
        let dir = root.path().join(format!("proj{n}\x1b]0;pwned\x07"));
        std::fs::create_dir(&dir).unwrap();
        let said = format!(
            "claudio: the current folder {} no longer exists: cd to a folder that exists",
            root.path().join(format!("proj{n}\\e]0;pwned\\a")).display()
        );
        (dir, said)
    };
    let piped: [(&[&str], Option<&[u8]>); 3] = [
        (&["tui"], None),
        (&["ask", "hi"], None),
        (&[], Some(b"hi\n")),
    ];
    for (n, (args, stdin)) in piped.into_iter().enumerate() {
        let (dir, said) = folder(n);
        let mut c = claudio(&fake);
        c.args(args);
        let out = run(in_removed(&c, &dir), stdin);
        let err = stderr(&out);
        assert!(
            err.contains(&said) && !err.contains('\x1b'),
            "{args:?}: {err:?}"
        );
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(!dir.exists(), "{args:?}");
    }
    let on_a_terminal: [&[&str]; 3] = [&[], &["-r"], &["-c"]];
    for (n, args) in on_a_terminal.into_iter().enumerate() {
        let (dir, said) = folder(10 + n);
        let mut c = claudio(&fake);
        c.args(args);
        let mut t = Term::spawn_sized(in_removed(&c, &dir), 24, 300);
        t.wait_for(&said);
        assert_eq!(t.wait(60).code(), Some(1), "{args:?}: {}", t.contents());
    }
    assert!(
        !fake.record.path().join("pid").exists(),
        "no claude was started"
    );
}
