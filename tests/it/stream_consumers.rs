//! The chat and `ask` as consumers of the session's one event stream
//! (#42.1): the CLI is read while a dialog is open, and a request the CLI
//! withdraws closes its dialog, saying so.

use crate::common::term::Term;
use crate::common::{self, init, steps, Fake, Step};
use serde_json::{json, Value};
use std::process::Stdio;
use std::time::{Duration, Instant};

fn control_answers(fake: &Fake) -> Vec<Value> {
    fake.stdin_lines()
        .into_iter()
        .filter(|l| l["type"] == "control_response")
        .collect()
}

fn bash_request(id: &str, command: &str) -> Step {
    Step::Emit(
        json!({"type":"control_request","request_id":id,"request":{"subtype":"can_use_tool",
        "tool_name":"Bash","input":{"command":command}}}),
    )
}

/// While a permission dialog is open the CLI goes on writing (a
/// sub-agent's progress, 12 MiB of tool output: more than the library's
/// queue and the pipe hold). The chat reads it all the while: the CLI is
/// never stuck on its stdout. Then the CLI withdraws the request: its
/// dialog closes and says so, nothing is answered for it; the held
/// messages are shown, and the next request is asked and answered.
#[test]
fn chat_reads_the_cli_while_a_dialog_is_open_and_a_withdrawn_dialog_closes() {
    let dir = tempfile::tempdir().unwrap();
    let drained = dir.path().join("drained");
    let mut scenario = vec![
        common::expect_user("go"),
        common::system_init(),
        bash_request("w1", "echo first"),
        common::assistant_text("PROGRESS-WHILE-ASKED"),
    ];
    scenario.extend((0..12).map(|_| Step::HugeLine(1024 * 1024)));
    scenario.extend([
        // reached only once everything above was read
        Step::WriteFile {
            path: drained.display().to_string(),
            content: "read".into(),
        },
        Step::Emit(json!({"type":"control_cancel_request","request_id":"w1"})),
        bash_request("w2", "echo second"),
        Step::expect(
            json!({"type":"control_response","response":{"request_id":"w2",
            "response":{"behavior":"allow"}}}),
        ),
        common::result("done"),
    ]);
    let fake = Fake::new(steps(vec![init(), scenario]));
    let mut t = Term::spawn(common::claudio(&fake));
    t.wait_for("Ctrl-D exits");
    t.line("go");
    t.wait_for("echo first");
    let until = Instant::now() + Duration::from_secs(30);
    while !drained.exists() {
        assert!(
            Instant::now() < until,
            "the chat stopped reading the CLI while its dialog was open:\n{}",
            t.contents()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    t.wait_for("withdrawn");
    let screen = t.wait_for("echo second");
    assert!(screen.contains("PROGRESS-WHILE-ASKED"), "{screen}");
    t.line("y");
    t.wait_for("allowed once");
    t.wait_for("1 API call");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    let answers = control_answers(&fake);
    assert_eq!(
        answers.len(),
        1,
        "nothing answers a withdrawn request: {answers:?}"
    );
    assert_eq!(answers[0]["response"]["request_id"], "w2");
    assert_eq!(answers[0]["response"]["response"]["behavior"], "allow");
}

/// `ask` asks each request from its one loop, in order: while the first is
/// asked on the terminal the CLI writes 12 MiB (read and held: it is not
/// stuck), sends a second request and withdraws the first. The first
/// question closes, saying so, and nothing is answered for it; the second
/// is asked next and its answer goes out; the answer held meanwhile is
/// printed whole.
#[test]
fn ask_asks_from_its_loop_and_a_withdrawn_question_closes() {
    let dir = tempfile::tempdir().unwrap();
    let drained = dir.path().join("drained");
    let mut scenario = vec![
        common::expect_user("q"),
        common::system_init(),
        bash_request("w1", "echo first"),
        common::assistant_text("HELD-ANSWER"),
    ];
    scenario.extend((0..12).map(|_| Step::HugeLine(1024 * 1024)));
    scenario.extend([
        Step::WriteFile {
            path: drained.display().to_string(),
            content: "read".into(),
        },
        bash_request("w2", "echo second"),
        Step::Emit(json!({"type":"control_cancel_request","request_id":"w1"})),
        Step::expect(
            json!({"type":"control_response","response":{"request_id":"w2",
            "response":{"behavior":"allow"}}}),
        ),
        common::result("HELD-ANSWER"),
    ]);
    let fake = Fake::new(steps(vec![init(), scenario]));
    let mut tty = Term::open();
    let mut c = common::claudio(&fake);
    c.args(["ask", "q"])
        .env("CLAUDIO_TEST_TTY", tty.slave_path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    // the stdout pipe is read beside, so the answer never blocks `ask`
    let stdout = child.stdout.take().unwrap();
    let out = std::thread::spawn(move || common::read_all(Some(stdout)));
    let first = tty.read_until("Allow?");
    assert!(first.contains("echo first"), "{first}");
    let mut shown = tty.read_until("echo second");
    let at = shown.find("echo second").unwrap_or_default();
    if !shown[at..].contains("Allow?") {
        shown += &tty.read_until("Allow?");
    }
    let withdrawn = shown.find("(withdrawn)");
    assert!(
        withdrawn.is_some_and(|w| w < at),
        "the first question closed before the second: {shown}"
    );
    assert!(
        drained.exists(),
        "the CLI was read while the question was open"
    );
    tty.type_line("y");
    let st = common::wait_with_deadline(&mut child, 30);
    let err = common::read_all(child.stderr.take());
    assert_eq!(st.code(), Some(0), "{err}");
    assert!(out.join().unwrap().contains("HELD-ANSWER"));
    let answers = control_answers(&fake);
    assert_eq!(
        answers.len(),
        1,
        "nothing answers a withdrawn request: {answers:?}"
    );
    assert_eq!(answers[0]["response"]["request_id"], "w2");
}

/// The real CLI, the normal path: one answer with two Bash calls. Each is
/// asked in the chat in its turn (the second read while the first is
/// open, when the CLI asks them together), each is answered once, and
/// both run.
#[test]
fn real_cli_chat_two_calls_in_one_answer_are_each_asked_and_run() {
    use crate::common::real::{world, Reply};
    let w = world!("real_cli_chat_two_calls_in_one_answer_are_each_asked_and_run");
    w.api.push(Reply::tool_uses(vec![
        ("Bash", json!({"command":"touch one_file"})),
        ("Bash", json!({"command":"touch two_file"})),
    ]));
    w.api.push(Reply::text("Made both."));
    let mut c = w.claudio();
    c.env("XDG_DATA_HOME", w.home.path());
    let mut t = Term::spawn(c);
    t.wait_for("Ctrl-D exits");
    t.line("make two files");
    t.wait_for("Allow?");
    t.line("y");
    t.wait_for_n("Allow?", 2);
    t.line("y");
    t.wait_for("Made both.");
    let screen = t.wait_for("API calls ·");
    assert_eq!(screen.matches("allowed once").count(), 2, "{screen}");
    t.ctrl_d();
    assert_eq!(t.wait(30).code(), Some(0));
    assert!(w.work.path().join("one_file").exists());
    assert!(w.work.path().join("two_file").exists());
    let reqs = w.main_requests();
    assert_eq!(reqs.len(), 2, "{reqs:?}");
    assert!(reqs[1].tool_results().iter().all(|r| !r.is_error));
}
