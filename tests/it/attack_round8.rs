//! Round eight's attack on the last stop's changes (the chat's titles and
//! notices, the retries' row, the listings' branch, the deck's fixes, the
//! doctor's split of a status line command): each test is one repro.

use crate::common::term::Term;
use crate::common::*;
use serde_json::json;

/// A chat in `work`, its Claude folder `config` (the store it lists).
fn chat_in(fake: &Fake, work: &std::path::Path, config: &std::path::Path) -> Term {
    let mut c = claudio(fake);
    let home = fake.record.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    c.env("XDG_DATA_HOME", &home)
        .env("CLAUDE_CONFIG_DIR", config)
        .current_dir(work);
    Term::spawn(c)
}

/// `/sessions` lists each session of the folder on one row: a title with a
/// line break or a tab in it (a compaction summary is kept as the CLI
/// wrote it) is one row, its breaks and tabs spaces. Before, the title went
/// to the terminal as it was: its second line drew a row of its own at the
/// screen's edge, as a listed session's row looks (`  deadbeef  1 minute
/// ago  …`), and a tab moved past the width the cut counted.
#[test]
fn a_title_with_a_line_break_or_a_tab_is_one_row_of_slash_sessions() {
    let work = tempfile::tempdir().unwrap();
    let work_path = std::fs::canonicalize(work.path()).unwrap();
    let config = tempfile::tempdir().unwrap();
    let folder = config
        .path()
        .join("projects")
        .join(claudio::store::project_folder_name(
            work_path.to_str().unwrap(),
        ));
    std::fs::create_dir_all(&folder).unwrap();
    let id = "abcdef01-5555-4555-8555-555555555555";
    let lines = [
        json!({"type":"user","uuid":"u1","parentUuid":null,"cwd":work_path,"sessionId":id,
            "timestamp":"2026-11-30T10:00:00Z","message":{"role":"user","content":"fix the bug"}}),
        json!({"type":"assistant","uuid":"a1","parentUuid":"u1","cwd":work_path,"sessionId":id,
            "timestamp":"2026-11-30T10:00:01Z","message":{"role":"assistant","content":[{"type":"text","text":"fixed"}]}}),
        json!({"type":"summary","summary":"Bug fixed\n  deadbeef   1 minute ago  a forged row\tafter a tab","leafUuid":"a1"}),
    ]
    .map(|l| l.to_string() + "\n")
    .concat();
    std::fs::write(folder.join(format!("{id}.jsonl")), lines).unwrap();
    let fake = Fake::after_init(vec![]);
    let mut t = chat_in(&fake, &work_path, config.path());
    t.wait_for("Ctrl-D exits");
    t.line("/sessions");
    let screen = t.wait_for("/resume ID to open one");
    let rows = t.rows();
    let row = rows
        .iter()
        .find(|r| r.contains("abcdef01"))
        .unwrap_or_else(|| panic!("{screen}"));
    assert!(
        row.contains("Bug fixed   deadbeef   1 minute ago  a forged row after a tab"),
        "{screen}"
    );
    assert!(
        !rows.iter().any(|r| r.trim_start().starts_with("deadbeef")),
        "{screen}"
    );
    let raw = t.raw();
    let listed = &raw[raw.find("abcdef01").unwrap()..];
    assert!(!listed.contains('\t'), "{listed:?}");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
}

/// The CLI's `api_retry`, attempt `n` of 10, as 2.1.332 sends it for 529.
fn api_retry(n: u32) -> Step {
    Step::Emit(
        json!({"type":"system","subtype":"api_retry","attempt":n,"max_retries":10,
        "retry_delay_ms":400,"error_status":529,"error":"overloaded","session_id":"s"}),
    )
}

/// `ask` with stderr on a terminal leaves one line that says what the
/// CLI's retries came to however the turn ends: with `-o json` (the
/// answer's text and its result are no text of `ask`'s own, so nothing
/// ended the retries), and when the CLI ends mid-retry. Before, the
/// spinner's line said `↻ retrying (2/10)` and went, and nothing was left.
#[test]
fn ask_leaves_what_the_retries_came_to_however_the_turn_ends() {
    let json_turn = vec![
        expect_user("q"),
        system_init(),
        api_retry(1),
        api_retry(2),
        assistant_text("recovered"),
        result("recovered"),
    ];
    let cut_off = vec![
        expect_user("q"),
        system_init(),
        api_retry(1),
        api_retry(2),
        Step::Exit(1),
    ];
    for (args, steps, ends_well) in [
        (&["ask", "-o", "json", "q"][..], json_turn, true),
        (&["ask", "q"][..], cut_off, false),
    ] {
        let fake = Fake::after_init(vec![steps]);
        let pty = Term::open();
        let mut c = claudio(&fake);
        c.args(args)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(pty.slave());
        let child = c.spawn().unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.success(), ends_well, "{args:?}: {out:?}");
        if ends_well {
            assert!(
                String::from_utf8_lossy(&out.stdout).contains("\"result\""),
                "{out:?}"
            );
        }
        let screen = pty.wait_for("↻ retried 2 times — overloaded");
        assert!(!screen.contains("retrying"), "{args:?}: {screen}");
    }
}

/// A CLI that ends mid-turn while a process it started holds its stdout
/// and writes to it on and on, `child` (a shell command; its pid goes to
/// `$0`): the turn ends with how the CLI ended, and the process goes with
/// the CLI's group.
async fn a_cli_ends_while_its_child_writes(child: &str) {
    use claudio::{Error, StreamExt};
    use std::time::Duration;
    let dir = tempfile::tempdir().unwrap();
    let script = format!(
        r#"#!/bin/sh
read -r line
id=$(printf '%s' "$line" | sed -n 's/.*"request_id" *: *"\([^"]*\)".*/\1/p')
printf '{{"type":"control_response","response":{{"subtype":"success","request_id":"%s","response":{{}}}}}}\n' "$id"
sh -c 'echo $$ > "$0.tmp" && mv "$0.tmp" "$0" && {child}' "$PIDFILE" &
read -r line
echo "fatal: the CLI crashed" >&2
exit 3
"#
    );
    let (client, pidfile) = crate::client::connect_script(dir.path(), &script).await;
    client.send("hi").await.unwrap();
    let child: i32 = wait_for_file(&pidfile).trim().parse().unwrap();
    let mut last = None;
    let ended = {
        let mut s = std::pin::pin!(client.receive_response());
        // a guard against a turn that never ends, not a time it may take
        tokio::time::timeout(Duration::from_secs(120), async {
            while let Some(m) = s.next().await {
                last = Some(m);
            }
        })
        .await
        .is_ok()
    };
    // the writer goes whatever the outcome (it would outlive the test)
    let gone = gone_within(child, Duration::from_secs(10));
    if !gone {
        unsafe { libc::kill(child, libc::SIGKILL) };
    }
    assert!(
        ended,
        "{child}: the turn never ended: the writer kept it open"
    );
    match last {
        Some(Err(e @ Error::ProcessExited { .. })) => {
            assert!(e.to_string().contains("the CLI crashed"), "{e}");
        }
        other => panic!("{child}: {other:?}"),
    }
    assert!(gone, "{child}: the CLI's child left behind");
}

/// A CLI that ends mid-turn while a process it started holds its stdout
/// and writes to it on and on (a `tail -f` left running, a wrapper's
/// proxy): the turn ends with how the CLI ended, and the process goes
/// with the CLI's group. The wait for the end of stdout after the exit
/// was half a second of silence per read, so a writer that never fell
/// silent kept the turn open for ever (threats.md class 3: every deadline
/// covers the whole exchange).
#[tokio::test(flavor = "multi_thread")]
async fn a_cli_that_ends_while_its_child_writes_on_ends_the_turn() {
    a_cli_ends_while_its_child_writes(
        r#"while :; do echo "not json, on and on"; sleep 0.05; done"#,
    )
    .await;
}

/// The same with a process that floods the pipe (`yes`): never silent,
/// and no read ever waits for it.
#[tokio::test(flavor = "multi_thread")]
async fn a_cli_that_ends_while_its_child_floods_stdout_ends_the_turn() {
    a_cli_ends_while_its_child_writes("exec yes").await;
}

/// Ctrl-L at the chat's trust question leaves the question on the screen
/// (the bell rings): what `y` trusts (the folder, the hooks and servers
/// that would load) stays in sight until it is answered. Before, the
/// screen was cleared and the answer's prompt drawn alone at its top
/// (`y trust it · n start without them ›`), its question gone.
#[test]
fn ctrl_l_at_the_trust_question_keeps_the_question_in_sight() {
    use crate::trust_workspace_attack::{base_and_home, chat_command, project};
    let fake = Fake::after_init(vec![]);
    let (base, home) = base_and_home(&fake);
    let dir = project(&base, "work");
    let mut t = Term::spawn(chat_command(&fake, &home, &dir));
    t.wait_for("y trust it");
    // a key after Ctrl-L: its drawing says the Ctrl-L was taken
    t.send(b"\x0cn");
    let rows = t.wait_rows("the n typed after Ctrl-L", |rows| {
        rows.iter().any(|r| r.contains("n start without them › n"))
    });
    assert!(
        rows.iter()
            .any(|r| r.contains("Do you trust the files in this folder?")),
        "{}",
        rows.join("\n")
    );
    t.send(b"\r");
    t.wait_for("not loaded");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
}
