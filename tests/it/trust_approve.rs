//! Approvals never widen what the person agreed to (issues 29.1, 33.1, 34):
//! what "always" keeps is exactly what the CLI suggested, shown in full
//! before the key; with no suggestion nothing is saved, and "this session"
//! covers the same call only. Every choice ends with Enter, so a typed
//! reason is never read as a choice.

use crate::common::real::{world, Reply};
use crate::common::term::Term;
use crate::common::{self, init, steps, wait_with_deadline, Fake, Step};
use serde_json::{json, Value};
use std::process::Stdio;

/// The real CLI offers no rule for a command it cannot check (a nested
/// `$(...)`): `a` then allows that very call for the session, and nothing
/// else; `p` keeps nothing.
#[test]
fn session_choice_without_a_suggested_rule_covers_the_same_call_only() {
    let w = world!("session_choice_without_a_suggested_rule_covers_the_same_call_only");
    let first = "echo $(whoami) > out1.txt";
    w.api.push(Reply::bash(first));
    w.api.push(Reply::text("Wrote out1."));
    w.api.push(Reply::bash("echo SECOND-CALL-RAN > out2.txt"));
    w.api.push(Reply::text("Tried out2."));
    w.api.push(Reply::bash(first));
    w.api.push(Reply::text("Wrote out1 again."));
    let mut c = w.claudio();
    c.env("XDG_DATA_HOME", w.home.path());
    let mut t = Term::spawn(c);
    t.wait_for("Ctrl-D exits");
    t.line("write out1");
    let screen = t.wait_for("Allow?");
    // the line says in words what `a` allows, and offers nothing to keep
    assert!(
        screen.contains("this exact call again, for this session"),
        "{screen}"
    );
    assert!(!screen.contains("p project"), "{screen}");
    // `p` is not offered: asked again, nothing saved
    t.line("p");
    t.wait_for("there is none to keep");
    t.line("a");
    t.wait_for("Wrote out1.");
    t.wait_for("API calls ·");
    assert!(w.work.path().join("out1.txt").exists());
    t.wait_prompt();

    // a different command of the same tool is asked again
    t.line("write out2");
    // the first question was drawn twice (again after `p`)
    t.wait_for("└ Allow?  y once · a session · p project");
    t.wait_for_n("Allow?", 3);
    t.line("n");
    t.wait_for("Tried out2.");
    t.wait_for_n("API calls ·", 2);
    assert!(
        !w.work.path().join("out2.txt").exists(),
        "a different Bash command ran without a question"
    );
    t.wait_prompt();

    // the very same call is not asked again, and says why it ran
    std::fs::remove_file(w.work.path().join("out1.txt")).unwrap();
    t.line("write out1 again");
    t.wait_for("Wrote out1 again.");
    let screen = t.wait_for_n("API calls ·", 3);
    assert_eq!(screen.matches("Allow?").count(), 3, "{screen}");
    assert!(
        screen.contains("the same call was allowed for this session"),
        "{screen}"
    );
    assert!(w.work.path().join("out1.txt").exists());
    t.ctrl_d();
    assert_eq!(t.wait(30).code(), Some(0));
    // nothing was kept in the project's settings
    let local = w.work.path().join(".claude/settings.local.json");
    let kept = std::fs::read_to_string(&local).unwrap_or_default();
    assert!(!kept.contains("Bash"), "a rule was saved: {kept}");
}

/// A typed reason that starts with a choice's letter is a reason: the
/// tool does not run and the model hears it (issue 33.1).
#[test]
fn a_reason_starting_with_a_choice_letter_denies_and_the_model_hears_it() {
    let w = world!("a_reason_starting_with_a_choice_letter_denies_and_the_model_hears_it");
    w.api.push(Reply::bash("touch reason-file"));
    w.api.push(Reply::text("Understood."));
    let mut c = w.claudio();
    c.env("XDG_DATA_HOME", w.home.path());
    let mut t = Term::spawn(c);
    t.wait_for("Ctrl-D exits");
    t.line("make a file");
    t.wait_for("Allow?");
    t.line("always ask before touching files");
    t.wait_for("Understood.");
    t.wait_for("API calls ·");
    t.ctrl_d();
    assert_eq!(t.wait(30).code(), Some(0));
    assert!(!w.work.path().join("reason-file").exists(), "the tool ran");
    let reqs = w.main_requests();
    let result = &reqs[1].tool_results()[0];
    assert!(result.is_error, "{result:?}");
    assert!(
        result.content.contains("always ask before touching files"),
        "{result:?}"
    );
}

fn unchecked_bash_steps() -> Vec<Step> {
    steps(vec![
        init(),
        vec![
            common::expect_user("q"),
            common::can_use_tool("p1", "Bash", json!({"command":"echo $(whoami) > f"}))
                .suggest_accept_edits()
                .emit(),
            Step::expect(
                json!({"type":"control_response","response":{"request_id":"p1","response":{"behavior":"allow"}}}),
            ),
            common::result("done"),
        ],
    ])
}

/// `ask`'s `/dev/tty` prompt: with no rule suggested, `p` keeps nothing
/// (asked again) and `a` sends no rule for the whole tool.
#[test]
fn ask_tty_prompt_keeps_no_rule_the_cli_did_not_suggest() {
    let fake = Fake::new(unchecked_bash_steps());
    let (mut pty, mut child) = ask_on_a_tty(&fake);
    let shown = pty.read_until("Allow?");
    assert!(shown.contains("this exact call again"), "{shown}");
    assert!(!shown.contains("project"), "{shown}");
    pty.type_line("p");
    pty.read_until("there is none to keep");
    pty.type_line("a");
    let st = wait_with_deadline(&mut child, 20);
    assert_eq!(st.code(), Some(0));
    let answers = control_answers(&fake);
    assert_eq!(answers.len(), 1, "{answers:?}");
    let r = &answers[0]["response"]["response"];
    assert_eq!(r["behavior"], "allow", "{r}");
    assert!(r.get("updatedPermissions").is_none(), "widened: {r}");
}

/// What `a` allowed "for this session" (no rule suggested: the same call)
/// ends with the session: after /clear the same call is asked again.
#[test]
fn a_session_grant_ends_with_the_session() {
    let fake = Fake::new(steps(vec![
        init(),
        vec![
            common::expect_user("go"),
            common::can_use_tool("g1", "Bash", json!({"command":"rm -rf build"})).emit(),
            Step::expect(
                json!({"type":"control_response","response":{"request_id":"g1","response":{"behavior":"allow"}}}),
            ),
            common::result("ok"),
        ],
    ]));
    let mut t = Term::spawn(common::claudio(&fake));
    t.wait_for("Ctrl-D exits");
    t.line("go");
    t.wait_for("Allow?");
    t.line("a");
    t.wait_for("1 API call");
    t.wait_prompt();
    t.line("/clear");
    t.wait_for("new session");
    t.wait_prompt();
    t.line("go");
    // asked again, not allowed by the last session's grant
    t.wait_for_n("└ Allow?", 2);
    t.line("y");
    t.wait_for_n("1 API call", 2);
    let screen = t.contents();
    assert!(
        !screen.contains("the same call was allowed for this session"),
        "{screen}"
    );
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
}

/// `ask`'s terminal prompt: keys typed before the question was shown
/// answer nothing (a `y` meant for something else never allows a tool).
#[test]
fn ask_tty_prompt_ignores_what_was_typed_before_the_question() {
    let gate = tempfile::tempdir().unwrap();
    let go = gate.path().join("go");
    let fake = Fake::new(steps(vec![
        init(),
        vec![
            common::expect_user("q"),
            // the question comes once the test has typed its early key
            Step::WaitFile(go.clone()),
            common::can_use_tool("p1", "Bash", json!({"command":"rm -rf ~/important"})).emit(),
            Step::expect(
                json!({"type":"control_response","response":{"request_id":"p1","response":{"behavior":"deny"}}}),
            ),
            common::result("done"),
        ],
    ]));
    let (mut pty, mut child) = ask_on_a_tty(&fake);
    // typed long before the question: in the terminal's input (its echo
    // seen) before the request is even made
    pty.type_line("y");
    pty.read_until("y\r\n");
    std::fs::write(&go, b"").unwrap();
    pty.read_until("Allow?");
    // the question waits for its own answer
    std::thread::sleep(std::time::Duration::from_millis(300));
    pty.type_line("n");
    let st = wait_with_deadline(&mut child, 20);
    assert_eq!(st.code(), Some(0));
    let answers = control_answers(&fake);
    assert_eq!(answers.len(), 1, "{answers:?}");
    assert_eq!(
        answers[0]["response"]["response"]["behavior"], "deny",
        "{answers:?}"
    );
}

/// `claudio ask q` with its questions on a pty of the test's.
fn ask_on_a_tty(fake: &Fake) -> (Term, std::process::Child) {
    let pty = Term::open();
    let mut c = common::claudio(fake);
    c.args(["ask", "q"])
        .env("CLAUDIO_TEST_TTY", pty.slave_path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = c.spawn().unwrap();
    (pty, child)
}

/// The answers claudio sent the fake CLI's control requests.
fn control_answers(fake: &Fake) -> Vec<Value> {
    fake.stdin_lines()
        .into_iter()
        .filter(|l| l["type"] == "control_response")
        .collect()
}

/// The chat: keys typed before a tool's question is on the screen (while
/// it is made: a big file's diff takes a while) are the type-ahead's, and
/// never answer it; `y` and Enter typed then queue a prompt `y`.
#[test]
fn chat_keys_typed_before_the_question_is_shown_answer_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.txt");
    let line = "0123456\n";
    let text = line.repeat((16 * 1024 * 1024 - 1) / line.len());
    std::fs::write(&big, text).unwrap();
    let marker = dir.path().join("asked");
    let fake = Fake::new(steps(vec![
        init(),
        vec![
            common::expect_user("go"),
            Step::Emit(
                json!({"type":"control_request","request_id":"w1","request":{"subtype":"can_use_tool",
                "tool_name":"Write","input":{"file_path":big,"content":"small\n"}}}),
            ),
            Step::WriteFile {
                path: marker.display().to_string(),
                content: "asked".into(),
            },
            Step::expect(
                json!({"type":"control_response","response":{"request_id":"w1","response":{"behavior":"deny"}}}),
            ),
            common::result("done"),
            common::expect_user("y"),
            common::result("ok"),
        ],
    ]));
    let mut t = Term::spawn(common::claudio(&fake));
    t.wait_for("Ctrl-D exits");
    t.line("go");
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !marker.exists() {
        assert!(
            std::time::Instant::now() < until,
            "the request never went out"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    // the request is with the chat, its question not on the screen yet
    std::thread::sleep(std::time::Duration::from_millis(100));
    let early = !t.contents().contains("Allow?");
    t.send(b"y\r");
    t.wait_for("Allow?");
    if !early {
        eprintln!("skipped: the question was on the screen before the keys were typed");
        return;
    }
    t.line("n");
    // answered once: by the `n` typed for it, or by the keys before it
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let screen = loop {
        let c = t.contents();
        if c.contains("allowed once") || c.contains("denied") {
            break c;
        }
        assert!(std::time::Instant::now() < until, "never answered:\n{c}");
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert!(
        !screen.contains("allowed once"),
        "keys typed before the question answered it:\n{screen}"
    );
    t.wait_for_n("API call", 2);
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    let answers = control_answers(&fake);
    assert_eq!(answers.len(), 1, "{answers:?}");
    assert_eq!(
        answers[0]["response"]["response"]["behavior"], "deny",
        "keys typed before the question answered it: {answers:?}"
    );
}
