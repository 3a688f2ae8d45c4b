//! Round five's attack on what landed in round four (issues 39 and 40):
//! each test is one repro, against the real CLI where the CLI is involved.

use crate::common::real::{turn, world, Reply, World};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

/// Runs `calls` through the real CLI, allowing each; what each
/// can_use_tool request carried (tool, input).
async fn run_allowing(w: &World, calls: Vec<(&str, Value)>) -> Vec<(String, Value)> {
    for (name, input) in calls {
        w.api.push(Reply::tool_use(name, input));
    }
    w.api.push(Reply::text("Done."));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s2 = seen.clone();
    let options = w.options().can_use_tool(move |req, _ctx| {
        s2.lock()
            .unwrap()
            .push((req.tool_name.clone(), req.input.clone()));
        async move { Ok(claudio::PermissionResult::allow()) }
    });
    let client = claudio::Client::connect(options).await.expect("connect");
    client.send("go").await.unwrap();
    let _ = turn(&client).await;
    client.close().await.unwrap();
    let v = seen.lock().unwrap().clone();
    v
}

/// What the real CLI's Edit and Write do with line endings, a byte-order
/// mark and the CLI's own input aliases: what the approval's diff now
/// models (the unit tests `crlf_files_are_matched_as_the_cli_reads_them`
/// and `line_endings_and_a_byte_order_mark_are_what_the_cli_writes` in
/// src/cli/requests/diff.rs show claudio's side).
/// - A CRLF file is matched as `\n` text: `x\ny` with replace_all in
///   `x\r\ny\nx\ny\n` changes both places (the approval showed one), and
///   the file is written back with the ending most of its lines have.
/// - A Write of `\n` text over a CRLF file writes `\n` (the approval said
///   "(no change)").
/// - An empty old_string into a file holding only a byte-order mark is
///   made, the mark kept (the approval said the CLI would refuse).
/// - `path`/`old_str`/`new_str` are renamed by the CLI before it asks:
///   the approval is given `file_path`/`old_string`/`new_string` (held).
#[tokio::test(flavor = "multi_thread")]
async fn real_cli_edit_line_endings_and_aliases_are_as_the_approval_shows() {
    let w = world!("real_cli_edit_line_endings_and_aliases_are_as_the_approval_shows");
    let p = |n: &str| w.work.path().join(n).display().to_string();
    std::fs::write(p("a.txt"), "alpha\nbeta\n").unwrap();
    std::fs::write(p("crlf.txt"), "one\r\ntwo\nthree\r\n").unwrap();
    std::fs::write(p("mixed.txt"), "x\r\ny\nx\ny\n").unwrap();
    std::fs::write(p("w.txt"), "x\r\ny\r\n").unwrap();
    std::fs::write(p("bom.txt"), "\u{FEFF}").unwrap();
    let calls = vec![
        ("Read", json!({"file_path": p("a.txt")})),
        (
            "Edit",
            json!({"path": p("a.txt"), "old_str": "alpha", "new_str": "ALPHA"}),
        ),
        ("Read", json!({"file_path": p("crlf.txt")})),
        (
            "Edit",
            json!({"file_path": p("crlf.txt"), "old_string": "two\nthree", "new_string": "TWO\nTHREE"}),
        ),
        ("Read", json!({"file_path": p("mixed.txt")})),
        (
            "Edit",
            json!({"file_path": p("mixed.txt"), "old_string": "x\ny", "new_string": "Z", "replace_all": true}),
        ),
        ("Read", json!({"file_path": p("w.txt")})),
        (
            "Write",
            json!({"file_path": p("w.txt"), "content": "x\ny\n"}),
        ),
        ("Read", json!({"file_path": p("bom.txt")})),
        (
            "Edit",
            json!({"file_path": p("bom.txt"), "old_string": "", "new_string": "evil\n"}),
        ),
    ];
    let seen = run_allowing(&w, calls).await;
    let first = &seen.first().expect("the CLI asked").1;
    assert_eq!(first["file_path"], p("a.txt"), "{seen:?}");
    assert_eq!(first["old_string"], "alpha", "{seen:?}");
    assert_eq!(first["new_string"], "ALPHA", "{seen:?}");
    let read = |n: &str| std::fs::read_to_string(p(n)).unwrap();
    assert_eq!(read("a.txt"), "ALPHA\nbeta\n");
    assert_eq!(read("crlf.txt"), "one\r\nTWO\r\nTHREE\r\n");
    assert_eq!(read("mixed.txt"), "Z\nZ\n");
    assert_eq!(read("w.txt"), "x\ny\n");
    assert_eq!(read("bom.txt"), "\u{FEFF}evil\n");
}

/// A response dated in the future (a wrong clock, a hand-edited line)
/// before a session's `cost-state` makes that cost-state "cover" every
/// response after it: a resumed session's new responses, dated now, share
/// the old figure and add nothing (class 10). `CliCost::covers` compares
/// times; where the line stands in the file is what says what it covers
/// (`CliCost::covers_message`, by the file's own messages' places).
#[test]
fn a_future_dated_response_does_not_make_a_cost_state_cover_what_follows_it() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("s.jsonl");
    let line = |id: &str, ts: &str| {
        json!({"type":"assistant","requestId":id,"timestamp":ts,
            "message":{"id":id,"model":"claude-opus-5-5","usage":{"input_tokens":1000,"output_tokens":10}}})
        .to_string()
    };
    let cost = json!({"type":"cost-state","totalCostUSD":0.5,"hasUnknownModelCost":false,
        "modelUsage":{"claude-opus-5-5":{"inputTokens":1000,"outputTokens":10,"costUSD":0.5}}});
    let text = [
        line("a", "2099-01-01T00:00:00.000Z"),
        cost.to_string(),
        // the session resumed, and answered after the cost-state
        line("b", "2026-12-04T10:00:00.000Z"),
    ]
    .join("\n");
    std::fs::write(&p, text).unwrap();
    let f = claudio::store::file_usage(&p).unwrap();
    let cli = f.cli_cost.as_ref().expect("the cost-state is read");
    let own = f.messages.len();
    let index = f
        .messages
        .iter()
        .position(|m| m.key.starts_with('b'))
        .unwrap();
    let after = &f.messages[index];
    assert!(
        !cli.covers_message(index, own, after.at),
        "a response written after the cost-state is taken as priced by it"
    );
    let before = f
        .messages
        .iter()
        .position(|m| m.key.starts_with('a'))
        .unwrap();
    assert!(cli.covers_message(before, own, f.messages[before].at));
}

/// Twenty calls at once on a terminal two rows high and 24 columns wide,
/// each command holding a title sequence (OSC 0) and a cursor move: the
/// chat ends cleanly, no sequence of the model's reaches the terminal, and
/// no spinner row is left on the screen (held: a regression guard).
#[test]
fn twenty_calls_on_a_two_row_terminal_leave_no_spinner_and_no_sequence() {
    use crate::common::term::Term;
    use crate::common::*;
    let n = 20;
    let mut steps = vec![expect_user("run them"), system_init()];
    steps.extend((0..n).map(|i| {
        assistant_tool_use(
            &format!("toolu_{i}"),
            "Bash",
            json!({ "command": format!("echo {i}\u{1b}]0;pwned\u{7}\u{1b}[2A") }),
        )
    }));
    steps.push(Step::SleepMs(1000));
    steps.extend((0..n).map(|i| {
        Step::Emit(json!({"type":"user","message":{"role":"user","content":[
            {"type":"tool_result","tool_use_id":format!("toolu_{i}"),"content":format!("{i}")}]},
            "parent_tool_use_id":null,"session_id":"sess-1"}))
    }));
    steps.push(result("done"));
    let fake = Fake::after_init(vec![steps]);
    let mut c = claudio(&fake);
    let home = fake.record.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    c.env("XDG_DATA_HOME", &home).env("HOME", &home);
    let mut t = Term::spawn_sized(c, 2, 24);
    t.wait_prompt();
    t.line("run them");
    t.wait_for("session ──");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    let raw = t.raw();
    assert!(
        !raw.contains("\u{1b}]0;pwned"),
        "a title sequence got through"
    );
    let mut p = vt100::Parser::new(2, 24, 100_000);
    p.process(raw.as_bytes());
    let spinners = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
    let screen = p.screen().contents();
    assert!(!screen.contains(spinners), "{screen}");
}
