//! `claudio ask` against the scripted fake CLI.

use crate::common;

use common::term::Term;
use common::*;
use serde_json::{json, Value};
use std::process::{Output, Stdio};
use std::time::Duration;

/// `claudio ARGS` against `fake`, with no stdin, to its end.
fn ask(fake: &Fake, args: &[&str]) -> Output {
    let mut c = claudio(fake);
    c.args(args);
    run(c, None)
}

#[test]
fn text_answer_streams_each_character_once() {
    let fake = Fake::after_init(vec![vec![
        expect_user("say hi"),
        system_init(),
        Step::Emit(
            json!({"type":"stream_event","event":{"type":"message_start","message":{"id":"msg_1","model":"m"}},"session_id":"s"}),
        ),
        Step::Emit(
            json!({"type":"stream_event","event":{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}},"session_id":"s"}),
        ),
        delta("Hi "),
        delta("there!"),
        assistant_text("Hi there!"),
        result("Hi there!"),
    ]]);
    let o = ask(&fake, &["ask", "say", "hi"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "Hi there!\n");
    let argv = fake.argv();
    assert!(argv.iter().any(|a| a == "--include-partial-messages"));
}

#[test]
fn text_blocks_without_deltas_are_printed_once_each() {
    let fake = Fake::after_init(vec![vec![
        expect_user("q"),
        assistant_text("Let me check."),
        assistant_tool_use("toolu_1", "Read", json!({"file_path":"/x"})),
        Step::Emit(
            json!({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"data"}]},"session_id":"s"}),
        ),
        Step::Emit(
            json!({"type":"assistant","message":{"id":"msg_9","role":"assistant","content":[{"type":"text","text":"Done."}]},"session_id":"s"}),
        ),
        result("Done."),
    ]]);
    let o = ask(&fake, &["ask", "q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "Let me check.\n\nDone.\n");
    // stderr is not a terminal: no tool activity there
    assert!(!stderr(&o).contains("Read"), "{}", stderr(&o));
}

#[test]
fn piped_stdin_follows_the_prompt() {
    let fake = Fake::after_init(vec![vec![
        Step::expect(json!({"type":"user"})),
        result("ok"),
    ]]);
    let mut c = claudio(&fake);
    c.args(["ask", "review", "this"]);
    let o = run(c, Some(b"diff --git a/x b/x\n+added\n"));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let sent = fake.stdin_lines();
    // the prompt typed, then the piped text in a block of its own: the
    // session's title is the prompt, not the two run together
    assert_eq!(
        sent[1]["message"]["content"],
        json!([{"type":"text","text":"review this"},
            {"type":"text","text":"\ndiff --git a/x b/x\n+added\n"}])
    );
}

#[test]
fn stdin_alone_is_the_prompt_and_large_input_is_not_cut() {
    let big: String = "0123456789abcdef\n".repeat(1_500_000); // ~25 MB
    let fake = Fake::after_init(vec![vec![
        Step::expect(json!({"type":"user"})),
        result("read it all"),
    ]]);
    let mut c = claudio(&fake);
    c.arg("ask");
    let o = run(c, Some(big.as_bytes()));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "read it all\n");
    let sent = fake.stdin_lines();
    assert_eq!(
        sent[1]["message"]["content"].as_str().unwrap().len(),
        big.len()
    );
}

#[test]
fn stdin_over_the_limit_is_a_usage_error_and_nothing_is_sent() {
    let big = vec![b'x'; 64 * 1024 * 1024 + 1];
    let fake = Fake::after_init(vec![turn("q", "never")]);
    let mut c = claudio(&fake);
    c.arg("ask");
    let o = run(c, Some(&big));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("stdin holds more than 64 MiB"),
        "{}",
        stderr(&o)
    );
    assert_eq!(stdout(&o), "");
    assert!(fake.stdin_lines().is_empty(), "a prompt was sent");
}

#[test]
fn no_prompt_at_all_is_a_usage_error() {
    let fake = Fake::new(vec![]);
    let mut c = claudio(&fake);
    c.arg("ask");
    let o = run(c, None);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("needs a prompt"), "{}", stderr(&o));
}

#[test]
fn json_output_is_the_result_line_verbatim() {
    let fake = Fake::after_init(vec![turn("q", "answer")]);
    let o = ask(&fake, &["ask", "-o", "json", "q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert_eq!(text.lines().count(), 1, "{text}");
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["type"], "result");
    assert_eq!(v["result"], "answer");
}

#[test]
fn stream_json_passes_every_line_byte_exact() {
    // odd spacing and an escape sequence: must come out exactly as sent
    let odd = "{\"type\":\"assistant\",  \"message\":{\"id\":\"m\",\"content\":[{\"type\":\"text\",\"text\":\"\\u001b]52;c;AAAA\\u0007x\"}]},\"session_id\":\"s\"}";
    let fake = Fake::after_init(vec![vec![
        expect_user("q"),
        system_init(),
        Step::EmitRaw(odd.into()),
        Step::Emit(json!({"type":"future_type","x":1})),
        result("x"),
    ]]);
    let o = ask(&fake, &["ask", "--output-format", "stream-json", "q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert_eq!(lines[1], odd);
    assert_eq!(
        serde_json::from_str::<Value>(lines[2]).unwrap()["type"],
        "future_type"
    );
    assert_eq!(
        serde_json::from_str::<Value>(lines[3]).unwrap()["type"],
        "result"
    );
}

#[test]
fn escape_sequences_pass_exactly_to_a_pipe() {
    let fake = Fake::after_init(vec![vec![
        expect_user("q"),
        assistant_text("a\u{1b}[31mred\u{1b}[0m"),
        result("x"),
    ]]);
    let o = ask(&fake, &["ask", "q"]);
    assert_eq!(stdout(&o), "a\u{1b}[31mred\u{1b}[0m\n");
}

#[test]
fn escape_sequences_are_inert_on_a_terminal() {
    let fake = Fake::after_init(vec![vec![
        expect_user("q"),
        assistant_text("safe\u{1b}]52;c;SGVsbG8=\u{7} \u{1b}[2Jtext\u{202e}"),
        result("x"),
    ]]);
    let mut pty = Term::open();
    let mut c = claudio(&fake);
    c.args(["ask", "q"])
        .stdin(Stdio::null())
        .stdout(pty.slave())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    let seen = pty.read_until("text");
    assert_eq!(wait_with_deadline(&mut child, 20).code(), Some(0));
    assert!(seen.contains("safe text"), "{seen:?}");
    assert!(!seen.contains('\u{1b}'), "{seen:?}");
    assert!(!seen.contains('\u{202e}'), "{seen:?}");
}

#[test]
fn error_result_exits_1_with_the_reason() {
    let fake = Fake::after_init(vec![vec![
        expect_user("q"),
        Step::Emit(
            json!({"type":"result","subtype":"error_max_turns","is_error":true,"session_id":"s","errors":["reached the turn limit"]}),
        ),
    ]]);
    let o = ask(&fake, &["ask", "q"]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("error_max_turns") && e.contains("reached the turn limit"),
        "{e}"
    );
}

#[test]
fn cli_crash_exits_1_with_its_stderr() {
    let fake = Fake::after_init(vec![vec![
        expect_user("q"),
        Step::Stderr("TypeError: cannot read properties of undefined".into()),
        Step::Exit(3),
    ]]);
    let o = ask(&fake, &["ask", "q"]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.contains("exited with code 3"), "{e}");
    assert!(e.contains("TypeError: cannot read properties"), "{e}");
}

#[test]
fn missing_cli_exits_127() {
    let fake = Fake::new(vec![]);
    let mut c = claudio(&fake);
    c.env("CLAUDIO_CLI", "/nonexistent/claude")
        .args(["ask", "q"]);
    let o = run(c, None);
    assert_eq!(o.status.code(), Some(127));
    assert!(stderr(&o).contains("npm install -g @anthropic-ai/claude-code"));
    // the program, not the library, names its own flag and variable
    assert!(
        stderr(&o).contains("give its path with `--cli-path` or `CLAUDIO_CLI`"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_cli_that_is_not_executable_says_so_and_exits_127() {
    let fake = Fake::new(vec![]);
    let file = fake.record.path().join("claude");
    std::fs::write(&file, "#!/bin/sh\n").unwrap();
    let mut c = claudio(&fake);
    c.env("CLAUDIO_CLI", &file).args(["ask", "q"]);
    let o = run(c, None);
    assert_eq!(o.status.code(), Some(127));
    let e = stderr(&o);
    assert!(e.contains("is not executable"), "{e}");
    assert!(!e.contains("was not found"), "{e}");
}

#[test]
fn a_missing_working_directory_is_named() {
    let fake = Fake::new(vec![]);
    let o = ask(&fake, &["--cwd", "/no/such/dir/x", "ask", "q"]);
    assert_ne!(o.status.code(), Some(0));
    let e = stderr(&o);
    assert!(e.contains("/no/such/dir/x"), "{e}");
    assert!(!e.contains("could not start"), "{e}");
}

fn permission_steps(expect_response: Value) -> Vec<Step> {
    steps(vec![
        init(),
        vec![
            expect_user("q"),
            can_use_tool("p1", "Bash", json!({"command":"touch x"}))
                .suggest_rule("Bash", "touch x")
                .emit(),
            Step::expect(
                json!({"type":"control_response","response":{"request_id":"p1","response":expect_response}}),
            ),
            result("done"),
        ],
    ])
}

#[test]
fn without_a_terminal_tools_are_denied_with_a_message() {
    let fake = Fake::new(permission_steps(json!({
        "behavior":"deny",
        "message":"no terminal to ask the user; pass --allowed-tools or --permission-mode"
    })));
    let mut c = claudio(&fake);
    c.args(["ask", "q"]);
    // also without a controlling terminal at all
    unsafe {
        use std::os::unix::process::CommandExt;
        c.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
    c.env_remove("CLAUDIO_TEST_TTY");
    let o = run(c, None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("denied Bash"), "{}", stderr(&o));
}

fn approve_on_tty(answer: &str, expect_response: Value) {
    let fake = Fake::new(permission_steps(expect_response));
    let mut pty = Term::open();
    let mut c = claudio(&fake);
    c.args(["ask", "q"])
        .env("CLAUDIO_TEST_TTY", pty.slave_path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    let shown = pty.read_until("Allow?");
    assert!(
        shown.contains("Bash") && shown.contains("touch x"),
        "{shown}"
    );
    // the rule "always" would keep is shown before the choice
    assert!(
        shown.contains("a       Bash(touch x), for this session"),
        "{shown}"
    );
    pty.type_line(answer);
    let st = wait_with_deadline(&mut child, 20);
    let out = read_all(child.stdout.take());
    let err = read_all(child.stderr.take());
    assert_eq!(st.code(), Some(0), "fake rejected our answer: {err}");
    assert_eq!(out, "done\n");
}

#[test]
fn tty_prompt_allow_once() {
    approve_on_tty(
        "y",
        json!({"behavior":"allow","updatedInput":{"command":"touch x"}}),
    );
}

#[test]
fn tty_prompt_always_for_session() {
    approve_on_tty(
        "a",
        json!({"behavior":"allow","updatedInput":{"command":"touch x"},
               "updatedPermissions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"touch x"}],"behavior":"allow","destination":"session"}]}),
    );
}

#[test]
fn tty_prompt_always_in_this_project_and_everywhere() {
    for (key, destination) in [("p", "localSettings"), ("u", "userSettings")] {
        approve_on_tty(
            key,
            json!({"behavior":"allow","updatedInput":{"command":"touch x"},
                   "updatedPermissions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"touch x"}],"behavior":"allow","destination":destination}]}),
        );
    }
}

#[test]
fn tty_prompt_deny_with_a_reason() {
    approve_on_tty(
        "use git clean instead",
        json!({"behavior":"deny","message":"The user denied this tool call: use git clean instead"}),
    );
}

#[test]
fn closed_stdout_ends_quietly_and_leaves_no_process() {
    let mut s = steps(vec![init(), vec![expect_user("q"), system_init()]]);
    for i in 0..2000 {
        s.push(delta(&format!("line {i}\n")));
        s.push(Step::SleepMs(1));
    }
    s.push(result("x"));
    let fake = Fake::new(s);
    let mut c = claudio(&fake);
    c.args(["ask", "q"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    first_bytes(&mut child, 6);
    drop(child.stdout.take()); // like `| head -1`
    let st = wait_with_deadline(&mut child, 20);
    let err = read_all(child.stderr.take());
    assert_eq!(st.code(), Some(0), "{err}");
    assert!(err.is_empty(), "should be quiet: {err}");
    assert!(
        gone_within(fake.pid(), Duration::from_secs(5)),
        "claude left behind"
    );
}

#[test]
fn ctrl_c_interrupts_the_turn_and_exits_130() {
    let fake = Fake::after_init(vec![vec![
        expect_user("q"),
        system_init(),
        delta("working"),
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
    ]]);
    let mut c = claudio(&fake);
    c.args(["ask", "q"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    assert_eq!(first_bytes(&mut child, 7), b"working");
    signal(&child, libc::SIGINT);
    let st = wait_with_deadline(&mut child, 20);
    assert_eq!(st.code(), Some(130));
    assert!(gone_within(fake.pid(), Duration::from_secs(5)));
    let sent = fake.stdin_lines();
    assert!(sent.iter().any(|l| l["request"]["subtype"] == "interrupt"));
}

#[test]
fn second_ctrl_c_kills_at_once() {
    // The CLI never answers the interrupt: only the second Ctrl-C ends it.
    let fake = Fake::after_init(vec![vec![
        expect_user("q"),
        delta("busy"),
        Step::IgnoreSigterm,
        Step::expect(json!({"type":"control_request","request":{"subtype":"interrupt"}})),
        Step::Hang,
    ]]);
    let mut c = claudio(&fake);
    c.args(["ask", "q"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    first_bytes(&mut child, 4);
    signal(&child, libc::SIGINT);
    // the first Ctrl-C is taken (the interrupt went out) before the second
    // is sent: two signals close together would be one
    let until = std::time::Instant::now() + Duration::from_secs(30);
    while !fake
        .stdin_lines()
        .iter()
        .any(|l| l["request"]["subtype"] == "interrupt")
    {
        if std::time::Instant::now() > until {
            let _ = child.kill();
            panic!("the first Ctrl-C never interrupted the turn");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        child.try_wait().unwrap().is_none(),
        "one Ctrl-C must wait for the CLI"
    );
    signal(&child, libc::SIGINT);
    let st = wait_with_deadline(&mut child, 20);
    assert_eq!(st.code(), Some(130));
    assert!(
        gone_within(fake.pid(), Duration::from_secs(5)),
        "claude left behind"
    );
}

#[test]
fn sigterm_closes_the_cli_gracefully() {
    let mut fake = Fake::new(vec![]);
    let marker = fake.record.path().join("saw-eof");
    fake.steps = steps(vec![
        init(),
        vec![
            expect_user("q"),
            delta("working"),
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
                content: "transcript complete".into(),
            },
        ],
    ]);
    for (sig, code) in [(libc::SIGTERM, 143), (libc::SIGHUP, 129)] {
        let _ = std::fs::remove_file(&marker);
        let mut c = claudio(&fake);
        c.args(["ask", "q"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = c.spawn().unwrap();
        first_bytes(&mut child, 7);
        signal(&child, sig);
        let st = wait_with_deadline(&mut child, 20);
        assert_eq!(st.code(), Some(code));
        assert_eq!(
            std::fs::read_to_string(&marker).unwrap(),
            "transcript complete"
        );
    }
}

fn activity_on_terminal_stderr(extra_env: &[(&str, &str)], args: &[&str]) -> String {
    let fake = Fake::after_init(vec![vec![
        expect_user("q"),
        Step::SleepMs(300),
        assistant_tool_use("toolu_7", "Bash", json!({"command":"ls -la"})),
        Step::SleepMs(300),
        Step::Emit(
            json!({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_7","content":"total 0"}]},"session_id":"s"}),
        ),
        assistant_text("listed"),
        result("listed"),
    ]]);
    let mut pty = Term::open();
    let mut c = claudio(&fake);
    c.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(pty.slave());
    for (k, v) in extra_env {
        c.env(k, v);
    }
    let mut child = c.spawn().unwrap();
    // the finished call's line, whole
    let seen = pty.read_until("\r\n");
    assert_eq!(wait_with_deadline(&mut child, 20).code(), Some(0));
    seen
}

/// Whether `s` holds a color (SGR) sequence.
fn has_color(s: &str) -> bool {
    s.split("\u{1b}[").skip(1).any(|rest| {
        let end = rest.find(|c: char| !c.is_ascii_digit() && c != ';');
        end.is_some_and(|i| rest[i..].starts_with('m'))
    })
}

#[test]
fn tool_activity_goes_to_a_terminal_stderr() {
    let seen = activity_on_terminal_stderr(&[], &["ask", "q"]);
    // the spinner line waits, then shows the running call, then makes way
    // for the finished call's line
    assert!(seen.contains("waiting for the answer"), "{seen:?}");
    assert!(seen.contains("Bash  ls -la"), "{seen:?}");
    assert!(seen.contains("\r\u{1b}[2K"), "{seen:?}");
    assert!(seen.contains('✓'), "{seen:?}");
    assert!(has_color(&seen), "colors expected on a terminal: {seen:?}");
}

#[test]
fn no_color_and_color_never_are_honoured() {
    let seen = activity_on_terminal_stderr(&[("NO_COLOR", "1")], &["ask", "q"]);
    assert!(seen.contains('✓') && !has_color(&seen), "{seen:?}");
    let seen = activity_on_terminal_stderr(&[], &["ask", "--color", "never", "q"]);
    assert!(seen.contains('✓') && !has_color(&seen), "{seen:?}");
}

#[test]
fn no_spinner_when_stderr_is_no_terminal() {
    let fake = Fake::after_init(vec![vec![
        expect_user("q"),
        Step::SleepMs(300),
        assistant_tool_use("toolu_7", "Bash", json!({"command":"ls -la"})),
        Step::SleepMs(300),
        Step::Emit(
            json!({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_7","content":"total 0"}]},"session_id":"s"}),
        ),
        assistant_text("listed"),
        result("listed"),
    ]]);
    let o = ask(&fake, &["ask", "q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "listed\n");
    assert_eq!(stderr(&o), "", "nothing drawn on a pipe");
}

#[test]
fn no_subcommand_with_piped_stdin_behaves_as_ask() {
    let fake = Fake::after_init(vec![turn("what is this?", "a test")]);
    let c = claudio(&fake);
    let o = run(c, Some(b"what is this?"));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "a test\n");
}

#[test]
fn stdout_ends_as_soon_as_the_answer_does() {
    // The CLI lingers after stdin closes (writing its transcript) until the
    // test lets it go; the reader of `ask`'s output must not wait for that.
    let gate = tempfile::tempdir().unwrap();
    let go = gate.path().join("go");
    let fake = Fake::after_init(vec![
        turn("q", "quick"),
        vec![Step::WaitStdinEof, Step::WaitFile(go.clone())],
    ]);
    let mut c = claudio(&fake);
    c.args(["ask", "q"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = c.spawn().unwrap();
    let stdout = child.stdout.take();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(read_all(stdout));
    });
    // the whole answer, and the end of stdout, while the CLI still lingers
    let out = match rx.recv_timeout(Duration::from_secs(60)) {
        Ok(out) => out,
        Err(_) => {
            std::fs::write(&go, b"").unwrap();
            let _ = child.kill();
            panic!("stdout did not end before the CLI finished");
        }
    };
    assert_eq!(out, "quick\n");
    std::fs::write(&go, b"").unwrap();
    assert_eq!(wait_with_deadline(&mut child, 60).code(), Some(0));
}

#[test]
fn the_nested_session_guard_is_not_inherited() {
    let fake = Fake::after_init(vec![turn("q", "a")]);
    let mut c = claudio(&fake);
    c.env("CLAUDECODE", "1").args(["ask", "q"]);
    let o = run(c, None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let env = fake.env();
    assert!(env.get("CLAUDECODE").is_none(), "{env}");
    assert_eq!(env["CLAUDE_CODE_ENTRYPOINT"], "sdk-rust");
    // the deck tells an ask's CLI from a chat's by it
    assert_eq!(env["CLAUDIO_PROGRAM"], "claudio ask");
}

/// A background agent that ends without the CLI starting a turn to report
/// it: the answer is complete once the agent is done, without hanging.
#[test]
fn an_agent_ending_without_a_report_turn_does_not_hang_ask() {
    let fake = Fake::after_init(vec![vec![
        expect_user("start it"),
        assistant_tool_use(
            "task1",
            "Agent",
            json!({"description":"scan","prompt":"scan"}),
        ),
        Step::Emit(
            json!({"type":"system","subtype":"task_started","task_id":"a1","tool_use_id":"task1","description":"scan","is_backgrounded":true,"session_id":"s"}),
        ),
        Step::Emit(
            json!({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"task1","content":"Async agent launched successfully."}]},"session_id":"s"}),
        ),
        assistant_text("Started the scan."),
        result("Started the scan."),
        Step::SleepMs(300),
        Step::Emit(
            json!({"type":"system","subtype":"task_updated","task_id":"a1","patch":{"status":"killed"},"session_id":"s"}),
        ),
    ]]);
    let o = ask(&fake, &["ask", "start", "it"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "Started the scan.\n");
}

/// A temporary folder holding one file.
fn dir_with_file(name: &str, content: &str) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join(name), content).unwrap();
    d
}

fn structured_turn(structured: Option<Value>) -> Vec<Step> {
    let mut result = json!({"type":"result","subtype":"success","is_error":false,
        "result":"{\"n\":42}","session_id":"s","num_turns":2});
    if let Some(v) = structured {
        result["structured_output"] = v;
    }
    steps(vec![
        init(),
        vec![
            expect_user("count"),
            system_init(),
            Step::Emit(json!(result)),
        ],
    ])
}

#[test]
fn json_schema_prints_the_object_the_model_returned() {
    let schema = dir_with_file(
        "schema.json",
        r#"{"type":"object","properties":{"n":{"type":"integer"}}}"#,
    );
    let fake = Fake::new(structured_turn(Some(
        json!({"n": 42, "why": "a \u{1b}[31m b"}),
    )));
    let mut c = claudio(&fake);
    c.args(["ask", "--json-schema"])
        .arg(format!("@{}", schema.path().join("schema.json").display()))
        .arg("count");
    let o = run(c, None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // one line of JSON, exact (an escape inside stays escaped JSON)
    assert_eq!(stdout(&o), "{\"n\":42,\"why\":\"a \\u001b[31m b\"}\n");
    assert!(
        fake.argv().iter().any(
            |a| a == r#"--json-schema={"properties":{"n":{"type":"integer"}},"type":"object"}"#
        ),
        "{:?}",
        fake.argv()
    );
}

#[test]
fn json_schema_without_a_structured_answer_fails_and_says_so() {
    let fake = Fake::new(structured_turn(None));
    let o = ask(
        &fake,
        &["ask", "--json-schema", r#"{"type":"object"}"#, "count"],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("without the requested structure"),
        "{}",
        stderr(&o)
    );
    assert_eq!(stdout(&o), "");
}

#[test]
fn a_schema_that_is_not_json_is_refused_before_the_cli_starts() {
    let fake = Fake::new(vec![]);
    let o = ask(&fake, &["ask", "--json-schema", "{not json", "count"]);
    assert_eq!(o.status.code(), Some(2), "a usage error");
    assert!(
        stderr(&o).contains("--json-schema: not JSON"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn effort_fallback_and_budget_reach_the_cli() {
    let fake = Fake::after_init(vec![turn("q", "answer")]);
    let o = ask(
        &fake,
        &[
            "ask",
            "--effort",
            "high",
            "--fallback-model",
            "claude-sonnet-4-5,claude-haiku-4-5",
            "--max-budget-usd",
            "0.5",
            "q",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let argv = fake.argv();
    for want in [
        "--effort=high",
        "--fallback-model=claude-sonnet-4-5,claude-haiku-4-5",
        "--max-budget-usd=0.5",
    ] {
        assert!(argv.iter().any(|a| a == want), "{want} missing: {argv:?}");
    }
    // a budget that is no amount is refused
    let o = ask(&fake, &["ask", "--max-budget-usd=0", "q"]);
    assert_ne!(o.status.code(), Some(0));
    assert!(
        stderr(&o).contains("must be a positive amount"),
        "{}",
        stderr(&o)
    );
}

/// A store with one session recorded in `work`: (its config dir, its id).
fn store_with_a_session_in(work: &std::path::Path) -> (tempfile::TempDir, &'static str) {
    let id = "cccccccc-3333-4333-8333-333333333333";
    let config = tempfile::tempdir().unwrap();
    let folder = config.path().join("projects/x");
    std::fs::create_dir_all(&folder).unwrap();
    let line =
        json!({"type":"user","uuid":"u","parentUuid":null,"cwd":work,"message":{"content":"hi"}});
    std::fs::write(folder.join(format!("{id}.jsonl")), format!("{line}\n")).unwrap();
    (config, id)
}

/// What the fake CLI was started with: the id of `--resume=ID`, and its
/// working directory.
fn resumed(fake: &Fake) -> (Option<String>, std::path::PathBuf) {
    let id = fake
        .argv()
        .iter()
        .find_map(|a| a.strip_prefix("--resume=").map(str::to_owned));
    let cwd = std::fs::read_to_string(fake.record.path().join("cwd")).unwrap();
    (id, std::fs::canonicalize(cwd.trim()).unwrap())
}

#[test]
fn claudio_alone_with_piped_stdin_asks() {
    let fake = Fake::after_init(vec![vec![expect_user("what is this?"), result("a test")]]);
    let o = run(claudio(&fake), Some(b"what is this?"));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "a test\n");
}

#[test]
fn sessions_resume_with_piped_stdin_asks_in_the_recorded_directory() {
    let work = tempfile::tempdir().unwrap();
    let (config, id) = store_with_a_session_in(work.path());
    let fake = Fake::after_init(vec![vec![expect_user("go on"), result("went on")]]);
    let mut c = claudio(&fake);
    c.env("CLAUDE_CONFIG_DIR", config.path())
        .args(["sessions", "resume", &id[..8]]);
    let o = run(c, Some(b"go on"));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "went on\n");
    assert_eq!(
        resumed(&fake),
        (
            Some(id.to_owned()),
            std::fs::canonicalize(work.path()).unwrap()
        )
    );
}

#[test]
fn resume_by_prefix_runs_where_the_session_was_recorded() {
    let work = tempfile::tempdir().unwrap();
    let (config, id) = store_with_a_session_in(work.path());
    let fake = Fake::after_init(vec![vec![expect_user("again"), result("ok")]]);
    let mut c = claudio(&fake);
    c.env("CLAUDE_CONFIG_DIR", config.path())
        .args(["-r", &id[..8], "ask", "again"]);
    let o = run(c, None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        resumed(&fake),
        (
            Some(id.to_owned()),
            std::fs::canonicalize(work.path()).unwrap()
        )
    );
}

#[test]
fn resuming_a_session_that_does_not_exist_fails_at_once() {
    let config = tempfile::tempdir().unwrap();
    let fake = Fake::after_init(vec![]);
    for args in [&["-r", "abcd1234"][..], &["-r", "abcd1234", "ask", "go on"]] {
        let mut c = claudio(&fake);
        c.env("CLAUDE_CONFIG_DIR", config.path()).args(args);
        let o = run(c, Some(b"go on"));
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("no session abcd1234"), "{}", stderr(&o));
    }
    assert!(fake.stdin_lines().is_empty(), "the CLI was started");
}

#[test]
fn resuming_without_a_terminal_or_a_prompt_says_how() {
    let work = tempfile::tempdir().unwrap();
    let (config, id) = store_with_a_session_in(work.path());
    let fake = Fake::after_init(vec![]);
    let mut c = claudio(&fake);
    c.env("CLAUDE_CONFIG_DIR", config.path())
        .args(["-r", &id[..8]]);
    let o = run(c, None);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("needs a terminal"), "{err}");
    assert!(err.contains("claudio ask -r"), "{err}");
    assert!(!err.contains("ask needs a prompt"), "{err}");
}

/// A tool's time in `ask` is what it took once allowed, as in the chat: the
/// time the person took to answer was counted (`✓ Bash touch … 8.4s`).
#[test]
fn a_tool_s_time_leaves_out_the_wait_for_its_approval() {
    let fake = Fake::after_init(vec![vec![
        expect_user("q"),
        assistant_tool_use("toolu_9", "Bash", json!({"command":"touch x"})),
        can_use_tool("p9", "Bash", json!({"command":"touch x"}))
            .with("tool_use_id", json!("toolu_9"))
            .emit(),
        Step::expect(
            json!({"type":"control_response","response":{"request_id":"p9","response":{"behavior":"allow"}}}),
        ),
        Step::Emit(
            json!({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_9","content":"ok"}]},"session_id":"s"}),
        ),
        assistant_text("done"),
        result("done"),
    ]]);
    let tty = Term::open();
    let mut err = Term::open();
    let mut c = claudio(&fake);
    c.args(["ask", "q"])
        .env("CLAUDIO_TEST_TTY", tty.slave_path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(err.slave());
    let mut child = c.spawn().unwrap();
    tty.wait_for("Allow?");
    // the person takes 60 s to decide: far more than the bound below, so
    // however slow the machine the two cases stay apart
    std::thread::sleep(std::time::Duration::from_secs(60));
    let mut tty = tty;
    tty.type_line("y");
    assert_eq!(wait_with_deadline(&mut child, 30).code(), Some(0));
    let seen = err.read_until("✓");
    let line = seen
        .split(['\r', '\n'])
        .find(|l| l.contains('✓'))
        .unwrap_or_default();
    // without its colours
    let mut plain = String::new();
    let mut in_seq = false;
    for c in line.chars() {
        match c {
            '\u{1b}' => in_seq = true,
            'm' if in_seq => in_seq = false,
            _ if in_seq => {}
            c => plain.push(c),
        }
    }
    let line = plain;
    let secs: f64 = line
        .split_whitespace()
        .find_map(|w| w.strip_suffix('s')?.parse().ok())
        .unwrap_or_else(|| panic!("no time on the line: {seen:?}"));
    assert!(secs < 30.0, "the 60 s wait was counted: {line:?}");
}
