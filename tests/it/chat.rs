//! The interactive chat on a pseudo-terminal, against the fake CLI.

use crate::common;

use common::term::Term;
use common::*;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

pub(crate) fn chat(fake: &Fake) -> Term {
    let mut c = claudio(fake);
    let home = fake.record.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    // history goes under XDG_DATA_HOME: keep it in the test's folder
    c.env("XDG_DATA_HOME", &home).env("HOME", &home);
    Term::spawn(c)
}

/// A file the fake CLI waits for (`Step::WaitFile`) where a turn holds
/// still while the test types into it: the turn goes on when the test has
/// seen what it waits for, not after a guessed time (a loaded machine
/// takes longer than any guess).
struct Gate(tempfile::TempDir);

impl Gate {
    fn new() -> Gate {
        Gate(tempfile::tempdir().unwrap())
    }

    fn path(&self) -> std::path::PathBuf {
        self.0.path().join("go")
    }

    /// The fake's step that waits for [`Gate::open`].
    fn step(&self) -> Step {
        Step::WaitFile(self.path())
    }

    fn open(&self) {
        std::fs::write(self.path(), b"").unwrap();
    }
}

fn count(lines: &[Value], f: impl Fn(&Value) -> bool) -> usize {
    lines.iter().filter(|l| f(l)).count()
}

#[test]
fn streams_an_answer_once_and_ctrl_d_leaves_nothing_behind() {
    let fake = Fake::after_init(vec![vec![
        expect_user("hello there"),
        system_init(),
        Step::Emit(
            json!({"type":"stream_event","event":{"type":"message_start","message":{"id":"msg_1"}},"session_id":"s"}),
        ),
        Step::Emit(
            json!({"type":"stream_event","event":{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}},"session_id":"s"}),
        ),
        delta("General "),
        Step::SleepMs(50),
        delta("Kenobi!"),
        Step::Emit(
            json!({"type":"stream_event","event":{"type":"content_block_stop","index":0},"session_id":"s"}),
        ),
        assistant_text("General Kenobi!"),
        result("General Kenobi!"),
    ]]);
    let mut t = chat(&fake);
    t.wait_for("Ctrl-D exits");
    t.line("hello there");
    let screen = t.wait_for("1 API call");
    assert_eq!(screen.matches("General Kenobi!").count(), 1, "{screen}");
    let pid = fake.pid();
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    assert!(
        gone_within(pid, Duration::from_secs(5)),
        "claude left behind"
    );
    let history = fake.record.path().join("home/claudio/history");
    assert!(std::fs::read_to_string(history)
        .unwrap()
        .contains("hello there"));
}

fn bash_request(id: &str, command: &str) -> Step {
    can_use_tool(id, "Bash", json!({ "command": command }))
        .with("description", json!("run it"))
        .suggest_rule("Bash", command)
        .with("tool_use_id", json!(format!("toolu_{id}")))
        .emit()
}

fn expect_answer(id: &str, response: Value) -> Step {
    Step::expect(
        json!({"type":"control_response","response":{"request_id":id,"response":response}}),
    )
}

#[test]
fn approvals_with_y_a_n_and_a_reason() {
    let fake = Fake::after_init(vec![vec![
        expect_user("do things"),
        assistant_tool_use("toolu_p1", "Bash", json!({"command":"touch one"})),
        bash_request("p1", "touch one"),
        expect_answer(
            "p1",
            json!({"behavior":"allow","updatedInput":{"command":"touch one"}}),
        ),
        bash_request("p2", "touch two"),
        expect_answer(
            "p2",
            json!({"behavior":"allow","updatedInput":{"command":"touch two"},
                "updatedPermissions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"touch two"}],"behavior":"allow","destination":"session"}]}),
        ),
        bash_request("p3", "rm -rf /"),
        expect_answer(
            "p3",
            json!({"behavior":"deny","message":"The user denied this tool call.","interrupt":false}),
        ),
        bash_request("p4", "curl evil"),
        expect_answer(
            "p4",
            json!({"behavior":"deny","message":"The user denied this tool call: please stay offline","interrupt":false}),
        ),
        result("ok"),
    ]]);
    let mut t = chat(&fake);
    t.wait_for("Ctrl-D exits");
    t.line("do things");
    t.wait_for_n("Allow?", 1);
    assert!(t.contents().contains("touch one"));
    t.line("y");
    t.wait_for_n("Allow?", 2);
    t.line("a");
    t.wait_for_n("Allow?", 3);
    t.line("n");
    t.wait_for_n("Allow?", 4);
    t.line("please stay offline");
    let screen = t.wait_for("1 API call");
    assert!(screen.contains("allowed once"), "{screen}");
    assert!(
        screen.contains("allowed: Bash(touch two), for this session"),
        "{screen}"
    );
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    // the fake exits 3 on any answer it did not expect; it got them all
    let sent = fake.stdin_lines();
    assert_eq!(count(&sent, |l| l["type"] == "control_response"), 4);
}

#[test]
fn esc_denies_and_interrupts() {
    let fake = Fake::after_init(vec![vec![
        expect_user("go"),
        bash_request("e1", "make install"),
        expect_answer("e1", json!({"behavior":"deny","interrupt":true})),
        Step::Emit(
            json!({"type":"result","subtype":"error_during_execution","is_error":true,"session_id":"s","terminal_reason":"aborted_streaming"}),
        ),
    ]]);
    let mut t = chat(&fake);
    t.wait_for("Ctrl-D exits");
    t.line("go");
    t.wait_for("Allow?");
    t.send(b"\x1b");
    t.wait_for("interrupting the turn");
    t.wait_for("⏹ interrupted");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
}

#[test]
fn ctrl_c_interrupts_and_the_next_prompt_works() {
    let fake = Fake::after_init(vec![
        interrupted_turn("long task", "working on it"),
        turn("and now?", "still here"),
    ]);
    let mut t = chat(&fake);
    t.interrupt_a_turn("long task", "working on it");
    t.wait_for("interrupting");
    t.wait_for("1 API call");
    t.wait_prompt();
    t.line("and now?");
    t.wait_for("still here");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
}

#[test]
fn slash_model_and_mode_reach_the_cli() {
    let fake = Fake::after_init(vec![vec![
        Step::expect_as(
            json!({"type":"control_request","request":{"subtype":"set_model","model":"opus"}}),
            "m",
        ),
        Step::Emit(
            json!({"type":"control_response","response":{"subtype":"success","request_id":"{{m}}","response":{"model":"opus"}}}),
        ),
        Step::expect_as(
            json!({"type":"control_request","request":{"subtype":"set_permission_mode","mode":"plan"}}),
            "p",
        ),
        Step::Emit(
            json!({"type":"control_response","response":{"subtype":"success","request_id":"{{p}}","response":{"mode":"plan"}}}),
        ),
    ]]);
    let mut t = chat(&fake);
    t.wait_for("Ctrl-D exits");
    t.line("/model opus");
    t.wait_for("model: opus");
    t.line("/mode plan");
    t.wait_for("permission mode: plan");
    // the prompt now shows both
    t.wait_for("opus · plan ›");
    t.line("/help");
    t.wait_for("/context");
    let screen = t.wait_for("Ctrl-S/X");
    for k in [
        "/rewind",
        "Shift-Tab",
        "Esc Esc",
        "complete a /command, or a file after @",
        "run a shell command",
    ] {
        assert!(screen.contains(k), "{k}: {screen}");
    }
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
}

/// Shift-Tab waits for the CLI to confirm the new mode; a request the CLI
/// sends in that moment is asked at once (it was left unanswered, the CLI
/// waiting on it, while the chat read on past it).
#[test]
fn a_request_right_after_shift_tab_is_asked() {
    let fake = Fake::after_init(vec![
        vec![
            Step::expect_as(
                json!({"type":"control_request","request":{"subtype":"set_permission_mode","mode":"acceptEdits"}}),
                "p",
            ),
            Step::Emit(
                json!({"type":"control_response","response":{"subtype":"success","request_id":"{{p}}","response":{"mode":"acceptEdits"}}}),
            ),
            bash_request("m1", "touch after"),
            expect_answer(
                "m1",
                json!({"behavior":"allow","updatedInput":{"command":"touch after"}}),
            ),
            Step::Emit(
                json!({"type":"system","subtype":"status","permissionMode":"acceptEdits","session_id":"s"}),
            ),
        ],
        turn("and now?", "still here"),
    ]);
    let mut t = chat(&fake);
    t.wait_for("Ctrl-D exits");
    t.send(b"\x1b[Z");
    let screen = t.wait_for("Allow?");
    assert!(screen.contains("touch after"), "{screen}");
    t.line("y");
    t.wait_for("acceptEdits ›");
    t.line("and now?");
    t.wait_for("still here");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    let sent = fake.stdin_lines();
    assert_eq!(count(&sent, |l| l["type"] == "control_response"), 1);
}

#[test]
fn a_crashed_cli_is_reported_and_the_chat_goes_on() {
    let fake = Fake::after_init(vec![vec![
        expect_user("boom"),
        Step::Stderr("fatal: out of cheese".into()),
        Step::Exit(7),
    ]]);
    let mut t = chat(&fake);
    t.wait_for("Ctrl-D exits");
    t.line("boom");
    let screen = t.wait_for("out of cheese");
    assert!(screen.contains("exited with code 7"), "{screen}");
    t.wait_for("the next prompt starts it again");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
}

/// Ctrl-C while Claude works says "Ctrl-C again to quit", and the CLI ends
/// the interrupted turn at once: the second press, well within the two
/// seconds, came to the prompt, which cleared its empty line, and the chat
/// went on. It quits now, 130, as during the turn. With text on the line
/// (a queued prompt the interrupt gave back) the press clears the line, as
/// at any prompt, and the chat goes on.
#[test]
fn a_second_ctrl_c_just_after_the_interrupted_turn_ended_quits() {
    let fake = Fake::after_init(vec![interrupted_turn("long task", "working on it")]);
    let mut t = chat(&fake);
    t.interrupt_a_turn("long task", "working on it");
    t.wait_for("⏹ interrupted");
    t.wait_prompt();
    t.ctrl_c();
    assert_eq!(t.wait(20).code(), Some(130));
    assert!(
        gone_within(fake.pid(), Duration::from_secs(5)),
        "claude left behind"
    );

    // a prompt queued during the turn comes back to the line: the second
    // press clears it
    let fake = Fake::after_init(vec![interrupted_turn("long task", "working on it")]);
    let mut t = chat(&fake);
    t.wait_for("Ctrl-D exits");
    t.line("long task");
    t.wait_for("working on it");
    t.line("next one");
    t.wait_for("queued");
    t.ctrl_c();
    t.wait_for("⏹ interrupted");
    screen_until(&t, |s| {
        let last = s.lines().rev().find(|l| !l.trim().is_empty());
        last.is_some_and(|l| l.trim_end() == "› next one")
    });
    t.ctrl_c();
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
}

#[test]
fn second_ctrl_c_within_two_seconds_kills_and_exits_130() {
    let fake = Fake::after_init(vec![vec![
        expect_user("stuck"),
        delta("thinking hard"),
        Step::IgnoreSigterm,
        Step::Hang,
    ]]);
    let mut t = chat(&fake);
    t.wait_for("Ctrl-D exits");
    t.line("stuck");
    t.wait_for("thinking hard");
    t.ctrl_c();
    t.wait_for("interrupting");
    t.ctrl_c();
    assert_eq!(t.wait(10).code(), Some(130));
    assert!(
        gone_within(fake.pid(), Duration::from_secs(5)),
        "claude left behind"
    );
}

#[test]
fn an_edit_approval_shows_the_diff() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("checkout.rs");
    std::fs::write(&file, "fn total() {\n    let total = subtotal - discount;\n    if total < 0 { panic!() }\n    total\n}\n").unwrap();
    let input = json!({"file_path": file, "old_string": "    if total < 0 { panic!() }\n", "new_string": "    let total = total.max(0);\n"});
    let fake = Fake::after_init(vec![vec![
        expect_user("fix it"),
        can_use_tool("ed1", "Edit", input.clone())
            .with("tool_use_id", json!("toolu_ed1"))
            .emit(),
        expect_answer("ed1", json!({"behavior":"allow","updatedInput":input})),
        result("fixed"),
    ]]);
    let mut t = chat(&fake);
    t.wait_for("Ctrl-D exits");
    t.line("fix it");
    let screen = t.wait_for("Allow?");
    assert!(screen.contains("(+1 −1)"), "{screen}");
    assert!(
        screen.contains("3 -      if total < 0 { panic!() }"),
        "{screen}"
    );
    assert!(
        screen.contains("3 +      let total = total.max(0);"),
        "{screen}"
    );
    assert!(
        screen.contains("2        let total = subtotal - discount;"),
        "{screen}"
    );
    t.line("y");
    t.wait_for("API call");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    // asking never writes
    assert!(std::fs::read_to_string(&file).unwrap().contains("panic!()"));
}

#[test]
fn a_prompt_typed_ahead_is_sent_after_the_result_not_before() {
    let gate = Gate::new();
    let fake = Fake::after_init(vec![
        vec![
            expect_user("first"),
            system_init(),
            delta("working on the first\n"),
            // the person types the next prompt now (the turn holds until it
            // is queued); it must wait for the result: nothing has come
            // meanwhile, nor comes now
            gate.step(),
            Step::ExpectSilenceMs(300),
            result("first done"),
        ],
        turn("second", "second done"),
    ]);
    let mut t = chat(&fake);
    t.wait_for("Ctrl-D exits");
    t.line("first");
    t.wait_for("working on the first");
    t.line("second");
    t.wait_for("› second  · queued");
    gate.open();
    t.wait_for("second done");
    t.wait_for_n("API call", 2);
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    let users = fake.user_lines();
    assert_eq!(users.len(), 2);
    assert_eq!(users[1]["message"]["content"], "second");
}

#[test]
fn an_interjection_goes_out_at_once_with_priority_now() {
    let fake = Fake::after_init(vec![vec![
        expect_user("long job"),
        system_init(),
        message_start("msg_a"),
        delta("step one of many\n"),
        Step::expect(
            json!({"type":"user","priority":"now","message":{"content":"stop, use the other file"}}),
        ),
        Step::Emit(
            json!({"type":"result","subtype":"success","is_error":false,"session_id":"s","num_turns":1,"terminal_reason":"aborted_streaming"}),
        ),
        message_start("msg_b"),
        delta("switching files\n"),
        result("done with the other file"),
    ]]);
    let mut t = chat(&fake);
    t.wait_for("Ctrl-D exits");
    t.line("long job");
    t.wait_for("step one of many");
    t.send(b"stop, use the other file\x1b\r"); // Alt-Enter
    t.wait_for("switching files");
    t.wait_for_n("API call ·", 2);
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
}

#[test]
fn a_queued_prompt_can_be_taken_back() {
    let gate = Gate::new();
    let fake = Fake::after_init(vec![
        vec![
            expect_user("first"),
            delta("busy\n"),
            gate.step(),
            result("first done"),
        ],
        turn("keep", "kept"),
    ]);
    let mut t = chat(&fake);
    t.wait_for("Ctrl-D exits");
    t.line("first");
    t.wait_for("busy");
    t.line("keep");
    t.line("drop this");
    t.wait_for("› keep  · 2 queued");
    t.wait_for("› drop this");
    t.send(b"\x18"); // Ctrl-X
    screen_until(&t, |s| !s.contains("drop this"));
    gate.open();
    t.wait_for("kept");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    let users = fake.user_lines();
    assert_eq!(users.len(), 2, "{users:?}");
}

/// Wait (at most 20 s) until the screen is as `f` wants it.
fn screen_until(t: &Term, f: impl Fn(&str) -> bool) {
    let until = Instant::now() + Duration::from_secs(20);
    while !f(&t.contents()) {
        assert!(Instant::now() < until, "never came:\n{}", t.contents());
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A text-only answer stops mid-row: the turn's status line shows under
/// it, a prompt typed meanwhile shows (dimmed) at once, Ctrl-X drops the
/// newest queued one, Up takes one back to edit; what is queued at the
/// result is sent then, and only that (#33.2).
#[test]
fn a_prompt_typed_during_a_text_only_stream_shows_at_once() {
    let gate = Gate::new();
    let fake = Fake::after_init(vec![
        vec![
            expect_user("first"),
            delta("still typing the ans"),
            gate.step(),
            delta("wer\n"),
            result("first done"),
        ],
        turn("keep it!", "kept"),
    ]);
    let mut t = chat(&fake);
    t.wait_for("Ctrl-D exits");
    t.line("first");
    // mid-row: no tool, no line end, yet the turn says it is at work
    t.wait_for("still typing the ans");
    t.wait_for("Esc to interrupt");
    t.line("keep it");
    t.wait_for("› keep it  · queued");
    t.line("drop this");
    t.wait_for("› keep it  · 2 queued");
    t.wait_for("› drop this");
    t.send(b"\x18"); // Ctrl-X: the newest goes
    screen_until(&t, |s| !s.contains("drop this"));
    t.send(b"\x1b[A"); // Up: the newest back on the line, out of the queue
    screen_until(&t, |s| !s.contains("queued"));
    t.send(b"!\r");
    t.wait_for("› keep it!  · queued");
    gate.open();
    t.wait_for("kept");
    let screen = t.contents();
    assert!(!screen.contains("Working"), "no status line left: {screen}");
    assert_eq!(
        screen.matches("still typing the answer").count(),
        1,
        "{screen}"
    );
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    let users: Vec<String> = fake
        .user_lines()
        .into_iter()
        .map(|l| l["message"]["content"].to_string())
        .collect();
    assert_eq!(users.len(), 2, "{users:?}");
    assert!(users[1].contains("keep it!"), "{users:?}");
}

#[test]
fn a_missing_cli_ends_the_chat_at_once_with_127() {
    let fake = Fake::new(vec![]);
    let mut c = claudio(&fake);
    c.env("CLAUDIO_CLI", "/nonexistent/claude");
    let mut t = Term::spawn(c);
    t.wait_for("npm install -g @anthropic-ai/claude-code");
    assert_eq!(t.wait(20).code(), Some(127));
}

fn db_question(multi: bool) -> Value {
    json!([{"question":"Which database should we use?","header":"Database","multiSelect":multi,
        "options":[{"label":"SQLite","description":"one file, no server"},
                   {"label":"Postgres","description":"a server, more features"},
                   {"label":"Redis","description":"in memory"}]}])
}

#[test]
fn a_question_is_shown_with_its_options_and_a_digit_answers_it() {
    let q = db_question(false);
    let mut script = vec![expect_user("pick a db")];
    script.extend(ask_question("q1", q.clone()));
    script.push(expect_answer(
        "q1",
        json!({"behavior":"allow","updatedInput":{"questions":q,"answers":{"Which database should we use?":"Postgres"}}}),
    ));
    script.push(result("ok"));
    let fake = Fake::after_init(vec![script]);
    let mut t = chat(&fake);
    t.wait_for("Ctrl-D exits");
    t.line("pick a db");
    let screen = t.wait_for("esc declines");
    assert!(screen.contains("? Database"), "{screen}");
    assert!(screen.contains("Which database should we use?"), "{screen}");
    assert!(screen.contains("1. SQLite"), "{screen}");
    assert!(screen.contains("one file, no server"), "{screen}");
    assert!(screen.contains("2. Postgres"), "{screen}");
    assert!(screen.contains("4. Type your own answer"), "{screen}");
    assert!(!screen.contains("Allow?"), "not an approval: {screen}");
    t.send(b"2");
    let screen = t.wait_for("1 API call");
    // answered, the question folds to one line
    assert!(screen.contains("? Database — Postgres"), "{screen}");
    assert!(!screen.contains("1. SQLite"), "{screen}");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
}

#[test]
fn arrows_multi_select_and_an_own_answer() {
    let multi = db_question(true);
    let single = db_question(false);
    let mut script = vec![expect_user("pick")];
    script.extend(ask_question("q2", multi.clone()));
    script.push(expect_answer(
        "q2",
        json!({"behavior":"allow","updatedInput":{"answers":{"Which database should we use?":"SQLite, Redis"}}}),
    ));
    script.extend(ask_question("q3", single.clone()));
    script.push(expect_answer(
        "q3",
        json!({"behavior":"allow","updatedInput":{"answers":{"Which database should we use?":"MySQL 8"}}}),
    ));
    script.extend(ask_question("q4", single));
    script.push(expect_answer(
        "q4",
        json!({"behavior":"allow","updatedInput":{"answers":{"Which database should we use?":"[No preference]"}}}),
    ));
    script.push(result("ok"));
    let fake = Fake::after_init(vec![script]);
    let mut t = chat(&fake);
    t.wait_for("Ctrl-D exits");
    t.line("pick");
    t.wait_for("space toggles");
    // space on the first, down twice, space on the third, enter
    t.send(b" ");
    t.send(b"\x1b[B");
    t.send(b"\x1b[B");
    t.send(b" ");
    t.wait_for("[x] 3. Redis");
    t.send(b"\r");
    t.wait_for("? Database — SQLite, Redis");
    t.wait_for_n("esc declines", 1);
    t.send(b"MySQL 8");
    t.wait_for("4. MySQL 8");
    t.send(b"\r");
    t.wait_for("? Database — MySQL 8");
    t.wait_for_n("esc declines", 1);
    std::thread::sleep(Duration::from_millis(200));
    t.send(b"\x1b");
    let screen = t.wait_for("1 API call");
    assert!(
        screen.contains("skipped: the model is told you have no preference"),
        "{screen}"
    );
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
}

#[test]
fn a_plan_is_shown_and_approved_with_auto_accept() {
    let plan = "# Plan\n\n1. Add a `checkout` test\n2. Fix the **rounding**";
    let fake = Fake::after_init(vec![vec![
        expect_user("make a plan"),
        assistant_tool_use("toolu_x1", "ExitPlanMode", json!({"plan": plan})),
        can_use_tool("x1", "ExitPlanMode", json!({}))
            .with("tool_use_id", json!("toolu_x1"))
            .with("requires_user_interaction", json!(true))
            .emit(),
        expect_answer(
            "x1",
            json!({"behavior":"allow","updatedInput":{},"updatedPermissions":[{"type":"setMode","mode":"acceptEdits","destination":"session"}]}),
        ),
        Step::Emit(
            json!({"type":"system","subtype":"status","status":null,"permissionMode":"acceptEdits","session_id":"s"}),
        ),
        result("ok"),
    ]]);
    let mut t = chat(&fake);
    t.wait_for("Ctrl-D exits");
    t.line("make a plan");
    let screen = t.wait_for("esc declines");
    assert!(screen.contains("Here is the plan"), "{screen}");
    assert!(screen.contains("│ # Plan"), "{screen}");
    assert!(screen.contains("Fix the **rounding**"), "{screen}");
    assert!(screen.contains("1. Yes, and auto-accept edits"), "{screen}");
    assert!(screen.contains("3. No, keep planning"), "{screen}");
    t.send(b"1");
    let screen = t.wait_for("1 API call");
    assert!(screen.contains("approved · accepting edits"), "{screen}");
    assert!(
        screen.contains("acceptEdits ──"),
        "the footer shows the mode: {screen}"
    );
    t.wait_prompt();
    let screen = t.contents();
    let last = screen.lines().rev().find(|l| !l.trim().is_empty()).unwrap();
    assert!(
        last.contains("acceptEdits"),
        "the prompt shows the mode: {screen}"
    );
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
}

#[test]
fn keep_planning_sends_the_feedback() {
    let fake = Fake::after_init(vec![vec![
        expect_user("plan it"),
        assistant_tool_use("toolu_x2", "ExitPlanMode", json!({"plan": "1. do it"})),
        can_use_tool("x2", "ExitPlanMode", json!({}))
            .with("tool_use_id", json!("toolu_x2"))
            .emit(),
        expect_answer(
            "x2",
            json!({"behavior":"deny","message":"The user wants to keep planning. Their feedback: add tests first","interrupt":false}),
        ),
        result("ok"),
    ]]);
    let mut t = chat(&fake);
    t.wait_for("Ctrl-D exits");
    t.line("plan it");
    t.wait_for("esc declines");
    t.send(b"add tests first");
    t.wait_for("add tests first");
    t.send(b"\r");
    let screen = t.wait_for("1 API call");
    assert!(screen.contains("keep planning"), "{screen}");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
}

#[test]
fn a_shell_command_runs_and_its_output_goes_with_the_next_prompt() {
    let sent = "<bash-input>echo $((6*7)); printf 'bad\\033[2J\\n' >&2</bash-input>\n<bash-stdout>42\n</bash-stdout><bash-stderr>bad\n</bash-stderr>\n\nwhat is it?";
    let fake = Fake::after_init(vec![{
        let mut t = vec![expect_user(sent)];
        t.push(assistant_text("the answer"));
        t.push(result("the answer"));
        t
    }]);
    let mut t = chat(&fake);
    t.wait_for("Ctrl-D exits");
    t.line(r"!echo $((6*7)); printf 'bad\033[2J\n' >&2");
    let screen = t.wait_for("Claude sees this with your next prompt");
    assert!(screen.contains("│ 42"), "{screen}");
    assert!(screen.contains("│ bad"), "{screen}");
    assert!(screen.contains("exit 0"), "{screen}");
    assert!(!t.raw().contains("\x1b[2J"), "sanitized");
    t.wait_prompt();
    t.line("what is it?");
    t.wait_for("1 API call");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
}

#[test]
fn ctrl_c_stops_the_shell_command_not_the_chat() {
    let fake = Fake::new(steps(vec![init()]));
    let mut t = chat(&fake);
    t.wait_for("Ctrl-D exits");
    t.line("!echo started; sleep 30; echo never");
    t.wait_for("│ started");
    t.ctrl_c();
    let screen = t.wait_for("stopped (Ctrl-C)");
    assert!(!screen.contains("│ never"), "{screen}");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
}

/// Whether a process of group `pgid` is alive (not a zombie), from `/proc`.
fn group_alive(pgid: i32) -> bool {
    std::fs::read_dir("/proc").unwrap().flatten().any(|e| {
        let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
        // pid (comm) state ppid pgrp ...; comm may hold anything
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .map_or("", |(_, rest)| rest)
            .split_whitespace()
            .collect();
        fields.len() > 2 && fields[2] == pgid.to_string() && fields[0] != "Z"
    })
}

#[test]
fn a_shell_command_dies_with_a_chat_killed_hard() {
    let fake = Fake::new(steps(vec![init()]));
    let mut t = chat(&fake);
    t.wait_for("Ctrl-D exits");
    // the sleep is the shell's child, not the shell: all the group must go
    t.line("!echo group=$$; sleep 1000; echo never");
    let screen = t.wait_for("│ group=");
    let pgid: i32 = screen
        .split("│ group=")
        .nth(1)
        .unwrap()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .unwrap();
    assert!(group_alive(pgid));
    t.child().kill().unwrap(); // SIGKILL: the chat's cleanup never runs
    t.child().wait().unwrap();
    // a bound only to fail instead of hanging
    let mut gone = false;
    for _ in 0..1500 {
        if !group_alive(pgid) {
            gone = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: a plain kill(2) of what the test started, whatever is left.
    unsafe { libc::kill(-pgid, libc::SIGKILL) };
    assert!(gone, "the command outlived the chat");
}

fn background_agent_start(prompt: &str) -> Vec<Step> {
    vec![
        expect_user(prompt),
        assistant_tool_use(
            "task1",
            "Agent",
            json!({"description":"count files","prompt":"count"}),
        ),
        Step::Emit(
            json!({"type":"system","subtype":"task_started","task_id":"a1","tool_use_id":"task1","description":"count files","is_backgrounded":true,"session_id":"s"}),
        ),
        Step::Emit(
            json!({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"task1","content":[{"type":"text","text":"Async agent launched successfully."}]}]},"parent_tool_use_id":null,"session_id":"s"}),
        ),
        result("launched"),
    ]
}

#[test]
fn a_prompt_typed_while_an_agent_works_is_sent_and_its_report_shows() {
    let mut script = background_agent_start("start agent");
    script.extend([
        expect_user("while it works"),
        assistant_text("meanwhile, an answer"),
        result("meanwhile"),
        Step::SleepMs(200),
        Step::Emit(json!({"type":"system","subtype":"task_progress","task_id":"a1","tool_use_id":"task1","description":"Running ls","session_id":"s"})),
        Step::SleepMs(300),
        Step::Emit(json!({"type":"system","subtype":"task_notification","task_id":"a1","tool_use_id":"task1","status":"completed","summary":"3 files","usage":{"tool_uses":1,"duration_ms":900},"session_id":"s"})),
        system_init(),
        assistant_text("The agent reported 3 files."),
        Step::Emit(json!({"type":"result","subtype":"success","is_error":false,"result":"r","session_id":"s","num_turns":1,"duration_ms":5,"origin":{"kind":"task-notification"}})),
    ]);
    let fake = Fake::after_init(vec![script]);
    let mut t = chat(&fake);
    t.wait_for("Ctrl-D exits");
    t.line("start agent");
    let screen = t.wait_for("1 agent still working");
    assert!(screen.contains("working in the background"), "{screen}");
    // the prompt under the agent's live line takes a whole line at once
    t.line("while it works");
    t.wait_for("meanwhile, an answer");
    let screen = t.wait_for("The agent reported 3 files.");
    assert!(screen.contains("● count files  completed"), "{screen}");
    // back at the line editor
    t.wait_prompt();
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
}

#[test]
fn ctrl_d_while_an_agent_works_ends_the_chat() {
    let script = background_agent_start("start agent");
    let fake = Fake::after_init(vec![script]);
    let mut t = chat(&fake);
    t.wait_for("Ctrl-D exits");
    t.line("start agent");
    t.wait_for("1 agent still working");
    t.send(b"\x04");
    assert_eq!(t.wait(20).code(), Some(0));
}

/// The chat run as a job of an interactive shell on the terminal, so that
/// Ctrl-Z stops it and `fg` brings it back, as at a real prompt.
fn chat_in_a_shell(fake: &Fake) -> Term {
    let c = claudio(fake);
    let home = fake.record.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let mut sh = std::process::Command::new("bash");
    sh.args(["--norc", "--noprofile", "-i"]);
    for (k, v) in c.get_envs() {
        match v {
            Some(v) => sh.env(k, v),
            None => sh.env_remove(k),
        };
    }
    sh.env("XDG_DATA_HOME", &home)
        .env("HOME", &home)
        .env("PS1", "shell$ ");
    let mut t = Term::spawn(sh);
    t.wait_for("shell$");
    t.line(env!("CARGO_BIN_EXE_claudio"));
    t
}

#[test]
fn ctrl_z_mid_turn_stops_the_chat_and_fg_brings_the_turn_back() {
    let fake = Fake::after_init(vec![
        vec![
            expect_user("slow job"),
            system_init(),
            delta("step one\n"),
            Step::SleepMs(2500),
            delta("step two\n"),
            result("slow done"),
        ],
        turn("after fg", "second answer"),
    ]);
    let mut t = chat_in_a_shell(&fake);
    t.wait_for("Ctrl-D exits");
    t.line("slow job");
    t.wait_for("step one");
    t.send(b"\x1a"); // Ctrl-Z
    t.wait_for("Stopped");
    // the shell has the terminal, with echo: what is typed shows
    t.line("echo shell-$((40+2))");
    t.wait_for("shell-42");
    t.line("fg");
    // the turn goes on where it was, and keys reach it again
    t.wait_for("step two");
    t.line("after fg");
    t.wait_for("second answer");
    t.wait_for_n("API call", 2);
    t.ctrl_d();
    // the shell's prompt again, under the chat
    let until = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let screen = t.contents();
        let last = screen
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        if last.trim_end() == "shell$" {
            break;
        }
        assert!(
            std::time::Instant::now() < until,
            "no shell prompt:\n{screen}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    t.line("exit");
    assert_eq!(t.wait(20).code(), Some(0));
    let users = fake.user_lines();
    assert_eq!(users.len(), 2, "{users:?}");
    assert_eq!(users[1]["message"]["content"], "after fg");
}

#[test]
fn a_resize_mid_turn_redraws_the_spinners_at_the_new_width() {
    let long = "x".repeat(150);
    let gate = Gate::new();
    let fake = Fake::after_init(vec![vec![
        expect_user("run it"),
        system_init(),
        assistant_tool_use(
            "toolu_1",
            "Bash",
            json!({"command": format!("echo {long}")}),
        ),
        // the tool runs until the test has seen the redraw
        gate.step(),
        Step::Emit(
            json!({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]},"session_id":"s"}),
        ),
        result("ran it"),
    ]]);
    let mut t = chat(&fake);
    t.wait_for("Ctrl-D exits");
    t.line("run it");
    let before = t.wait_for("echo xxx");
    let row = |screen: &str| {
        screen
            .lines()
            .find(|l| l.contains("echo xxx"))
            .map(|l| l.trim_end().chars().count())
            .unwrap_or(0)
    };
    assert!(row(&before) > 60, "{before}");
    t.resize(40, 60);
    // the spinner line is drawn again, cut to the new width
    let until = Instant::now() + Duration::from_secs(60);
    loop {
        let screen = t.contents();
        let rows: Vec<&str> = screen.lines().filter(|l| l.contains("echo xxx")).collect();
        if rows.len() == 1 && rows[0].trim_end().chars().count() <= 60 && rows[0].contains('…') {
            break;
        }
        assert!(std::time::Instant::now() < until, "not redrawn:\n{screen}");
        std::thread::sleep(Duration::from_millis(50));
    }
    gate.open();
    let screen = t.wait_for("1 API call");
    // nothing of the old, wider drawing is left
    assert_eq!(screen.matches("echo xxx").count(), 1, "{screen}");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
}

#[test]
fn a_paste_mid_turn_joins_the_typed_line_and_sends_nothing_by_itself() {
    let gate = Gate::new();
    let fake = Fake::after_init(vec![
        vec![
            expect_user("first"),
            system_init(),
            delta("busy\n"),
            // the paste comes now (the turn holds until it is on the
            // line): nothing has gone out meanwhile, nor goes now
            gate.step(),
            Step::ExpectSilenceMs(300),
            result("first done"),
        ],
        turn("look at\nthese two lines", "seen both"),
    ]);
    let mut t = chat(&fake);
    t.wait_for("Ctrl-D exits");
    t.line("first");
    t.wait_for("busy");
    t.send(b"look at");
    t.send(b"\x1b[200~\nthese two lines\x1b[201~");
    t.wait_for("› look at these two lines");
    gate.open();
    t.send(b"\r");
    t.wait_for("seen both");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    let users = fake.user_lines();
    assert_eq!(users.len(), 2, "{users:?}");
    assert_eq!(users[1]["message"]["content"], "look at\nthese two lines");
}

#[test]
fn ctrl_g_edits_the_line_in_the_editor_and_ctrl_r_finds_history() {
    let fake = Fake::after_init(vec![
        turn("write docs and tests", "on it"),
        turn("write docs and tests", "again"),
    ]);
    // an "editor" that appends to the file, as a person typing would
    let script = fake.record.path().join("editor.sh");
    std::fs::write(&script, "#!/bin/sh\nprintf ' and tests' >> \"$1\"\n").unwrap();
    std::process::Command::new("chmod")
        .arg("+x")
        .arg(&script)
        .status()
        .unwrap();
    let mut c = claudio(&fake);
    let home = fake.record.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    c.env("XDG_DATA_HOME", &home)
        .env("HOME", &home)
        .env("VISUAL", &script);
    let mut t = Term::spawn(c);
    t.wait_for("Ctrl-D exits");
    t.wait_prompt();
    t.send(b"write docs");
    t.send(b"\x07"); // Ctrl-G
    t.wait_for("write docs and tests");
    t.send(b"\r");
    t.wait_for("on it");
    t.wait_for("1 API call");
    t.wait_prompt();
    // Ctrl-R: reverse search through the history
    t.send(b"\x12");
    t.send(b"docs and");
    t.wait_for("(reverse-i-search)`docs and': write docs and tests");
    t.send(b"\r"); // takes the line found, and sends it
    t.wait_for("again");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
}

#[test]
fn vi_keys_edit_the_prompt_with_vi() {
    let fake = Fake::after_init(vec![turn("hello", "hi")]);
    let mut c = claudio(&fake);
    let home = fake.record.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    c.env("XDG_DATA_HOME", &home).env("HOME", &home).arg("--vi");
    let mut t = Term::spawn(c);
    t.wait_for("Ctrl-D exits");
    t.wait_prompt();
    t.send(b"ello");
    // the cursor after the typed word, then (Esc: command mode) on its
    // last letter: the Esc was taken alone, so the next keys are not read
    // with it as one (Alt-0)
    fn at_column(t: &Term, col: usize) {
        let until = Instant::now() + Duration::from_secs(60);
        loop {
            let (row, c) = t.cursor();
            let line = t.rows()[row as usize].clone();
            let start = line
                .find("› ello")
                .map(|i| line[..i].chars().count() + "› ".chars().count());
            if start.map(|s| s + col) == Some(c as usize) {
                return;
            }
            assert!(
                Instant::now() < until,
                "the cursor never at {col}: {:?} {:#?}",
                t.cursor(),
                t.rows()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    at_column(&t, 4);
    t.send(b"\x1b"); // command mode
    at_column(&t, 3);
    t.send(b"0ih"); // to the start, insert "h"
    t.wait_for("hello");
    t.send(b"\r");
    t.wait_for("1 API call");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
}

#[test]
fn copy_puts_an_answer_on_the_terminal_s_clipboard_and_the_model_cannot() {
    // the model's own OSC 52 is stripped; the person's /copy sends one
    let evil = "take \u{1b}]52;c;cm0gLXJmIH4=\u{7}this";
    let fake = Fake::after_init(vec![turn("first", "**one**"), turn("second", evil)]);
    let mut t = chat(&fake);
    t.wait_for("Ctrl-D exits");
    t.line("first");
    t.wait_for("1 API call");
    t.wait_prompt();
    t.line("second");
    t.wait_for_n("1 API call", 2);
    t.wait_prompt();
    assert!(!t.raw().contains("\u{1b}]52;"), "the model wrote OSC 52");
    t.line("/copy 2");
    t.wait_for("copied answer 2 (7 characters, 1 line) to the terminal's clipboard (OSC 52)");
    t.wait_prompt();
    // base64 of "**one**", the answer's markdown source
    assert!(
        t.raw().contains("\u{1b}]52;c;KipvbmUqKg==\u{7}"),
        "{:?}",
        t.raw()
    );
    t.line("/copy 9");
    t.wait_for("only 2 answers to copy");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
}

#[test]
fn continue_with_nothing_to_continue_says_so() {
    let config = tempfile::tempdir().unwrap();
    let fake = Fake::after_init(vec![]);
    let mut c = claudio(&fake);
    c.env("CLAUDE_CONFIG_DIR", config.path()).arg("-c");
    let mut t = Term::spawn(c);
    let screen = t.wait_for("Ctrl-D exits");
    assert!(
        screen.contains("no earlier session in this folder to continue"),
        "{screen}"
    );
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
}

#[test]
fn typos_are_caught_before_they_cost_a_turn() {
    // the CLI's own commands come with its answer to `initialize`
    let fake = Fake::new(steps(vec![
        vec![
            Step::expect_as(
                json!({"type":"control_request","request":{"subtype":"initialize"}}),
                "init",
            ),
            Step::Emit(
                json!({"type":"control_response","response":{"subtype":"success","request_id":"{{init}}","response":{
                "commands":[{"name":"compact","description":"","argumentHint":""}],
                "models":[{"value":"default"},{"value":"sonnet"}]}}}),
            ),
        ],
        turn("/compact now", "compacted"),
    ]));
    let mut t = chat(&fake);
    t.wait_for("Ctrl-D exits");
    t.line("/cpy");
    t.wait_for("unknown command /cpy: did you mean /copy?");
    t.wait_prompt();
    t.line("/model nonsense");
    t.wait_for("no model nonsense here; the CLI offers default, sonnet");
    t.wait_prompt();
    // the CLI's own command goes as typed
    t.line("/compact now");
    t.wait_for("compacted");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    // neither typo reached the CLI (the fake exits 3 on what it did not expect)
    let sent = fake.stdin_lines();
    assert_eq!(count(&sent, |l| l["type"] == "user"), 1, "{sent:?}");
    assert_eq!(
        count(&sent, |l| l["request"]["subtype"] == "set_model"),
        0,
        "{sent:?}"
    );
}

#[test]
fn a_resumed_session_shows_its_last_exchanges() {
    let work = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let id = "dddddddd-4444-4444-8444-444444444444";
    let folder = config.path().join("projects/x");
    std::fs::create_dir_all(&folder).unwrap();
    let mut lines = String::new();
    let mut parent = Value::Null;
    for i in 1..=5 {
        let (u, a) = (format!("u{i}"), format!("a{i}"));
        lines.push_str(&format!(
            "{}\n{}\n",
            json!({"type":"user","uuid":u,"parentUuid":parent,"cwd":work.path(),"sessionId":id,
                "timestamp":"2026-11-30T10:00:00Z","message":{"role":"user","content":format!("question number {i}")}}),
            json!({"type":"assistant","uuid":a,"parentUuid":u,"cwd":work.path(),"sessionId":id,
                "timestamp":"2026-11-30T10:00:01Z","message":{"role":"assistant","content":[{"type":"text","text":format!("answer number {i}")}]}})
        ));
        parent = json!(a);
    }
    std::fs::write(folder.join(format!("{id}.jsonl")), lines).unwrap();
    let fake = Fake::after_init(vec![]);
    let mut c = claudio(&fake);
    c.env("CLAUDE_CONFIG_DIR", config.path())
        .args(["-r", &id[..8]]);
    let mut t = Term::spawn(c);
    let screen = t.wait_for("resumed here");
    for i in 3..=5 {
        assert!(screen.contains(&format!("question number {i}")), "{screen}");
        assert!(screen.contains(&format!("answer number {i}")), "{screen}");
    }
    assert!(!screen.contains("question number 2"), "{screen}");
    assert!(screen.contains("2 earlier prompts"), "{screen}");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
}

/// A session's transcript of one exchange run in `dir`: `question`, and
/// `the answer to {question}` (marked a sub-agent's when `side`).
fn one_exchange(id: &str, dir: &std::path::Path, question: &str, side: bool) -> String {
    format!(
        "{}\n{}\n",
        json!({"type":"user","uuid":"u1","parentUuid":null,"cwd":dir,"sessionId":id,"isSidechain":side,
            "timestamp":"2026-11-30T10:00:00Z","message":{"role":"user","content":question}}),
        json!({"type":"assistant","uuid":"a1","parentUuid":"u1","cwd":dir,"sessionId":id,"isSidechain":side,
            "timestamp":"2026-11-30T10:00:01Z","message":{"role":"assistant","content":[{"type":"text","text":format!("the answer to {question}")}]}})
    )
}

/// `-c` resumes the folder's latest session by its id, and shows where it
/// stands as `-r` does (it showed nothing: the CLI was told `--continue`
/// and claudio did not know which session that was).
/// Make `path` a minute older than now: the newest transcript is the
/// other one, whatever the clock's resolution (a sleep between the two
/// writes guessed at it).
fn backdate(path: &std::path::Path) {
    let when = std::time::SystemTime::now() - Duration::from_secs(60);
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(when)
        .unwrap();
}

#[test]
fn continue_shows_the_latest_session_here() {
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
    let write = |id: &str, question: &str| {
        let lines = one_exchange(id, &work_path, question, false);
        std::fs::write(folder.join(format!("{id}.jsonl")), lines).unwrap();
    };
    let older = "eeeeeeee-5555-4555-8555-555555555555";
    let newer = "ffffffff-6666-4666-8666-666666666666";
    write(older, "the older question");
    write(newer, "the newer question");
    backdate(&folder.join(format!("{older}.jsonl")));
    let fake = Fake::after_init(vec![]);
    let mut c = claudio(&fake);
    c.env("CLAUDE_CONFIG_DIR", config.path())
        .current_dir(&work_path)
        .arg("-c");
    let mut t = Term::spawn(c);
    let screen = t.wait_for("resumed here");
    assert!(
        screen.contains("the answer to the newer question"),
        "{screen}"
    );
    assert!(!screen.contains("the older question"), "{screen}");
    assert!(screen.contains("resuming ffffffff"), "{screen}");
    // the CLI started (its argv recorded) before the chat ends: a chat
    // left at once may end before it starts its CLI
    fake.pid();
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    let argv = fake.argv();
    assert!(argv.contains(&format!("--resume={newer}")), "{argv:?}");
    assert!(!argv.iter().any(|a| a == "--continue"), "{argv:?}");
}

/// `-c` continues this folder's latest session, as the CLI's `--continue`
/// does (it reads the folder's own sessions), not a newer one of another
/// worktree of the same repository: it took that one, and the chat moved
/// into the other worktree.
#[test]
fn continue_keeps_to_this_worktree() {
    let work = tempfile::tempdir().unwrap();
    let work = std::fs::canonicalize(work.path()).unwrap();
    let (repo, wt) = (work.join("repo"), work.join("repo-wt"));
    common::git_repo_with_worktree(&repo, &wt);
    let config = tempfile::tempdir().unwrap();
    let write = |id: &str, dir: &std::path::Path, question: &str| {
        let folder = config
            .path()
            .join("projects")
            .join(claudio::store::project_folder_name(dir.to_str().unwrap()));
        std::fs::create_dir_all(&folder).unwrap();
        let lines = one_exchange(id, dir, question, false);
        std::fs::write(folder.join(format!("{id}.jsonl")), lines).unwrap();
    };
    let here = "eeeeeeee-5555-4555-8555-555555555555";
    let there = "ffffffff-6666-4666-8666-666666666666";
    write(here, &repo, "the question here");
    write(there, &wt, "the other worktree's question");
    backdate(
        &config
            .path()
            .join("projects")
            .join(claudio::store::project_folder_name(repo.to_str().unwrap()))
            .join(format!("{here}.jsonl")),
    );
    let fake = Fake::after_init(vec![]);
    let mut c = claudio(&fake);
    c.env("CLAUDE_CONFIG_DIR", config.path())
        .current_dir(&repo)
        .arg("-c");
    let mut t = Term::spawn(c);
    let screen = t.wait_for("resumed here");
    assert!(
        screen.contains("the answer to the question here"),
        "{screen}"
    );
    assert!(!screen.contains("other worktree"), "{screen}");
    // the CLI started (its arguments recorded) before the chat ends: an
    // end while it connects may never start it
    let argv = fake.argv();
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    assert!(argv.contains(&format!("--resume={here}")), "{argv:?}");
}

/// `-c` passes over the newer transcripts that are no session of this
/// folder (a FIFO, a link to `/dev/zero`, an empty file, a sub-agent's,
/// one recorded in another folder whose name maps to the same project
/// folder) without hanging, continues the newest real one, and names the
/// newer files it could not read (it passed over them in silence).
#[test]
fn continue_passes_over_odd_newer_transcripts_and_names_them() {
    let work = tempfile::tempdir().unwrap();
    let work = std::fs::canonicalize(work.path()).unwrap();
    let (here, twin) = (work.join("a-b"), work.join("a/b"));
    std::fs::create_dir_all(&here).unwrap();
    std::fs::create_dir_all(&twin).unwrap();
    let config = tempfile::tempdir().unwrap();
    let name = claudio::store::project_folder_name(here.to_str().unwrap());
    assert_eq!(
        name,
        claudio::store::project_folder_name(twin.to_str().unwrap())
    );
    let folder = config.path().join("projects").join(name);
    std::fs::create_dir_all(&folder).unwrap();
    let file = |id: &str| folder.join(format!("{id}.jsonl"));
    let good = "10000000-0000-4000-8000-000000000001";
    std::fs::write(
        file(good),
        one_exchange(good, &here, "the real question", false),
    )
    .unwrap();
    let twin_id = "20000000-0000-4000-8000-000000000002";
    std::fs::write(
        file(twin_id),
        one_exchange(twin_id, &twin, "the twin's question", false),
    )
    .unwrap();
    backdate(&file(good));
    let agent = "30000000-0000-4000-8000-000000000003";
    std::fs::write(
        file(agent),
        one_exchange(agent, &here, "a sub-agent's task", true),
    )
    .unwrap();
    let empty = "40000000-0000-4000-8000-000000000004";
    std::fs::write(file(empty), "").unwrap();
    let fifo = "50000000-0000-4000-8000-000000000005";
    let made = std::process::Command::new("mkfifo")
        .arg(file(fifo))
        .status();
    assert!(made.unwrap().success());
    let zero = "60000000-0000-4000-8000-000000000006";
    std::os::unix::fs::symlink("/dev/zero", file(zero)).unwrap();
    let fake = Fake::after_init(vec![]);
    let mut c = claudio(&fake);
    c.env("CLAUDE_CONFIG_DIR", config.path())
        .current_dir(&here)
        .arg("-c");
    let mut t = Term::spawn(c);
    // each awaited (a screen taken the moment one shows may not hold the
    // rest yet), then the prompt: all is drawn
    t.wait_for("resumed here");
    t.wait_for("the answer to the real question");
    // (the link is dated by /dev/zero, older than every session: not reached)
    for passed in [fifo, empty] {
        t.wait_for(passed);
    }
    t.wait_prompt();
    let screen = t.contents();
    for other in ["twin", "sub-agent"] {
        assert!(!screen.contains(other), "{other}: {screen}");
    }
    // the CLI started (its argv recorded) before the chat ends
    fake.pid();
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    assert!(fake.argv().contains(&format!("--resume={good}")));
}

/// What is typed in the same instant as the Enter that sends a prompt
/// (one write: a fast typist, a paste of two lines) is the turn's
/// type-ahead at once, shown under the turn and sent after it: the
/// chat's one reader of the keyboard hands it over (#42.1). Before, the
/// line editor kept it to itself until the next prompt.
#[test]
fn keys_typed_with_the_enter_that_sends_a_prompt_are_the_turn_s_type_ahead() {
    let gate = Gate::new();
    let fake = Fake::after_init(vec![
        vec![
            expect_user("first"),
            delta("busy\n"),
            gate.step(),
            result("first done"),
        ],
        turn("second", "second done"),
    ]);
    let mut t = chat(&fake);
    t.wait_for("Ctrl-D exits");
    t.wait_prompt();
    t.send(b"first\rsecond");
    t.wait_for("› second");
    let screen = t.contents();
    assert!(
        !screen.contains("first done"),
        "shown during the turn: {screen}"
    );
    t.send(b"\r");
    t.wait_for("› second  · queued");
    gate.open();
    t.wait_for("second done");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    let users = fake.user_lines();
    assert_eq!(users.len(), 2, "{users:?}");
    assert_eq!(users[1]["message"]["content"], "second");
}

/// A resize at the prompt (SIGWINCH, through the chat's one reader) draws
/// the line again at the new width, wrapped, the cursor at its end.
#[test]
fn a_resize_at_the_prompt_draws_the_line_again_at_the_new_width() {
    let fake = Fake::after_init(vec![turn("word ".repeat(12).trim_end(), "ok")]);
    let mut t = chat(&fake);
    t.wait_for("Ctrl-D exits");
    t.wait_prompt();
    let typed = "word ".repeat(12);
    t.send(typed.as_bytes());
    t.wait_for(typed.trim_end());
    t.resize(24, 30);
    // `› ` and 60 columns at 30 a row: two rows full, the header kept
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let rows = t.rows();
        let first = format!("› {}", &typed[..28]);
        let drawn = rows
            .windows(2)
            .any(|w| w[0] == first.trim_end() && w[1] == typed[28..58].trim_end());
        if drawn && rows.iter().any(|r| r.starts_with("claudio ")) {
            break;
        }
        assert!(Instant::now() < until, "never drawn again: {rows:#?}");
        std::thread::sleep(Duration::from_millis(20));
    }
    t.send(b"\r");
    t.wait_for("1 API call");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
}

/// SIGTERM at the prompt: the chat ends (128+15), the terminal put back,
/// its CLI gone with it.
#[test]
fn sigterm_at_the_prompt_ends_the_chat_and_its_cli() {
    let fake = Fake::after_init(vec![turn("hello", "hi")]);
    let mut t = chat(&fake);
    t.wait_for("Ctrl-D exits");
    t.line("hello");
    t.wait_for("1 API call");
    t.wait_prompt();
    t.send(b"half typed");
    t.wait_for("half typed");
    let cli = fake.pid();
    assert!(alive(cli));
    signal(t.child(), libc::SIGTERM);
    assert_eq!(t.wait(20).code(), Some(143));
    let until = Instant::now() + Duration::from_secs(60);
    while alive(cli) {
        assert!(Instant::now() < until, "the CLI outlived the chat");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The chat's history file, as the test's `HOME` keeps it.
fn history_of(fake: &Fake) -> String {
    let p = fake.record.path().join("home/claudio/history");
    std::fs::read_to_string(p).unwrap_or_default()
}

/// Waits (bounded) for `pid` to be gone.
fn gone(pid: i32, what: &str) {
    let until = Instant::now() + Duration::from_secs(60);
    while alive(pid) {
        assert!(Instant::now() < until, "{what} outlived the chat");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// SIGQUIT at the prompt (#42.1: the signal comes in through the chat's
/// one stream, beside the keys): the chat ends from its own loop, 128+3,
/// its CLI gone, and the history kept (before, a side task exited from
/// wherever the chat was, the history never saved; without handling,
/// SIGQUIT ends it at once with a core).
#[test]
fn sigquit_at_the_prompt_ends_the_chat_keeping_its_history() {
    let fake = Fake::after_init(vec![turn("hello", "hi")]);
    let mut t = chat(&fake);
    t.wait_for("Ctrl-D exits");
    t.line("hello");
    t.wait_for("1 API call");
    t.wait_prompt();
    t.send(b"half typed");
    t.wait_for("half typed");
    let cli = fake.pid();
    signal(t.child(), libc::SIGQUIT);
    assert_eq!(t.wait(20).code(), Some(131));
    gone(cli, "the CLI");
    assert!(
        history_of(&fake).lines().any(|l| l == "hello"),
        "{}",
        history_of(&fake)
    );
}

/// SIGHUP (the window closed) while Claude works: the turn stops, the
/// chat ends 128+1 from its loop, its CLI closed, the history kept.
#[test]
fn sighup_during_a_turn_ends_the_chat_and_its_cli() {
    let fake = Fake::after_init(vec![vec![
        expect_user("go"),
        system_init(),
        delta("working on it"),
        Step::Hang,
    ]]);
    let mut t = chat(&fake);
    t.wait_for("Ctrl-D exits");
    t.line("go");
    t.wait_for("working on it");
    let cli = fake.pid();
    signal(t.child(), libc::SIGHUP);
    assert_eq!(t.wait(20).code(), Some(129));
    gone(cli, "the CLI");
    assert!(
        history_of(&fake).lines().any(|l| l == "go"),
        "{}",
        history_of(&fake)
    );
}

/// SIGTERM while a `!` command runs: the command's process group is
/// killed, the chat ends 128+15 from its loop, its CLI gone, the history
/// kept.
#[test]
fn sigterm_while_a_shell_command_runs_ends_the_chat_and_the_command() {
    let fake = Fake::new(steps(vec![init()]));
    let mut t = chat(&fake);
    t.wait_for("Ctrl-D exits");
    t.line("!echo group=$$; sleep 1000; echo never");
    let screen = t.wait_for("│ group=");
    let pgid: i32 = screen
        .split("│ group=")
        .nth(1)
        .unwrap()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .unwrap();
    let cli = fake.pid();
    signal(t.child(), libc::SIGTERM);
    let code = t.wait(20).code();
    let mut left = false;
    for _ in 0..500 {
        left = group_alive(pgid);
        if !left {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: a plain kill(2) of what the test started, whatever is left.
    unsafe { libc::kill(-pgid, libc::SIGKILL) };
    assert_eq!(code, Some(143));
    assert!(!left, "the command outlived the chat");
    gone(cli, "the CLI");
    assert!(
        history_of(&fake).contains("!echo group=$$"),
        "{}",
        history_of(&fake)
    );
}

/// SIGTERM while the Ctrl-G editor runs (the chat a job of a shell, as a
/// person runs it): the editor is ended, the chat ends 128+15, its CLI
/// gone (before, the chat exited and left the editor running on the
/// terminal, beside the shell).
#[test]
fn sigterm_while_the_editor_runs_ends_the_chat_and_the_editor() {
    let fake = Fake::after_init(vec![vec![Step::Hang]]);
    let script = fake.record.path().join("editor.sh");
    let pidfile = fake.record.path().join("editor.pid");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho $$ > '{}'\nexec sleep 1000\n",
            pidfile.display()
        ),
    )
    .unwrap();
    std::process::Command::new("chmod")
        .arg("+x")
        .arg(&script)
        .status()
        .unwrap();
    let c = claudio(&fake);
    let home = fake.record.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let mut sh = std::process::Command::new("bash");
    sh.args(["--norc", "--noprofile", "-i"]);
    for (k, v) in c.get_envs() {
        match v {
            Some(v) => sh.env(k, v),
            None => sh.env_remove(k),
        };
    }
    sh.env("XDG_DATA_HOME", &home)
        .env("HOME", &home)
        .env("VISUAL", &script)
        .env("PS1", "shell$ ");
    let mut t = Term::spawn(sh);
    t.wait_for("shell$");
    t.line(env!("CARGO_BIN_EXE_claudio"));
    t.wait_for("Ctrl-D exits");
    t.wait_prompt();
    t.send(b"write docs");
    t.wait_for("write docs");
    t.send(b"\x07"); // Ctrl-G
    let until = Instant::now() + Duration::from_secs(60);
    let editor: i32 = loop {
        if let Some(pid) = std::fs::read_to_string(&pidfile)
            .ok()
            .and_then(|s| s.trim().parse().ok())
        {
            break pid;
        }
        assert!(Instant::now() < until, "the editor never started");
        std::thread::sleep(Duration::from_millis(20));
    };
    let cli = fake.pid();
    // the chat is the CLI's parent
    let stat = std::fs::read_to_string(format!("/proc/{cli}/stat")).unwrap();
    let chat: i32 = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    // SAFETY: a plain kill(2) of the chat the test started.
    unsafe { libc::kill(chat, libc::SIGTERM) };
    gone(chat, "the chat");
    t.line("echo code=$?");
    t.wait_for("code=143");
    let until = Instant::now() + Duration::from_secs(60);
    while alive(editor) && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    let left = alive(editor);
    // SAFETY: a plain kill(2) of what the test started, whatever is left.
    unsafe { libc::kill(editor, libc::SIGKILL) };
    assert!(!left, "the editor outlived the chat");
    gone(cli, "the CLI");
    t.line("exit");
    t.wait(20);
}

/// SIGTERM while the chat waits for a prompt read as a plain line (its
/// output a pipe, its input a terminal): the wait ends, the chat ends
/// 128+15 from its loop, its CLI gone.
#[test]
fn sigterm_at_a_plain_prompt_ends_the_chat() {
    use std::io::{Read, Write};
    use std::os::fd::FromRawFd;
    use std::os::unix::process::CommandExt;
    use std::process::Stdio;
    let fake = Fake::after_init(vec![turn("hello", "hi")]);
    let (mut m, mut sl) = (0, 0);
    // SAFETY: valid out-pointers; both fds become owned files.
    let rc = unsafe {
        libc::openpty(
            &mut m,
            &mut sl,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(rc, 0);
    let (mut master, slave) = unsafe {
        (
            std::fs::File::from_raw_fd(m),
            std::fs::File::from_raw_fd(sl),
        )
    };
    let mut c = claudio(&fake);
    let home = fake.record.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    c.env("XDG_DATA_HOME", &home)
        .env("HOME", &home)
        .stdin(Stdio::from(slave))
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    // SAFETY: setsid(2) in the child before exec
    unsafe {
        c.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
    let mut child = c.spawn().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let out = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let reader = {
        let out = out.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stdout.read(&mut buf) {
                if n == 0 {
                    break;
                }
                out.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        })
    };
    master.write_all(b"hello\n").unwrap();
    let until = Instant::now() + Duration::from_secs(20);
    // the answer, then the next prompt: the chat waits for a line
    loop {
        let o = out.lock().unwrap().clone();
        if o.split_once("hi")
            .is_some_and(|(_, rest)| rest.trim_end().ends_with('›'))
        {
            break;
        }
        assert!(Instant::now() < until, "never at the prompt again: {o:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
    let cli = fake.pid();
    signal(&child, libc::SIGTERM);
    let until = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > until {
            child.kill().unwrap();
            panic!("the chat never ended: {:?}", out.lock().unwrap());
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    reader.join().unwrap();
    drop(master);
    assert_eq!(status.code(), Some(143));
    gone(cli, "the CLI");
}

/// Ctrl-Z at the prompt stops the chat (the terminal the shell's, as it
/// was); `fg` draws the line again as it was, and typing goes on.
#[test]
fn ctrl_z_at_the_prompt_stops_the_chat_and_fg_brings_the_line_back() {
    let fake = Fake::after_init(vec![turn("half done", "whole")]);
    let mut t = chat_in_a_shell(&fake);
    t.wait_for("Ctrl-D exits");
    t.wait_prompt();
    t.send(b"half");
    t.wait_for("› half");
    t.send(b"\x1a"); // Ctrl-Z
    t.wait_for("Stopped");
    // the shell has the terminal, with echo: what is typed shows
    t.line("echo shell-$((40+2))");
    t.wait_for("shell-42");
    t.line("fg");
    t.wait_for_n("› half", 2);
    t.line(" done");
    t.wait_for("whole");
    t.ctrl_d();
    // the shell's prompt again, under the chat
    screen_until(&t, |s| {
        let last = s.lines().rev().find(|l| !l.trim().is_empty());
        last.is_some_and(|l| l.trim_end() == "shell$")
    });
    t.line("exit");
    assert_eq!(t.wait(20).code(), Some(0));
    let users = fake.user_lines();
    assert_eq!(users.len(), 1, "{users:?}");
    assert_eq!(users[0]["message"]["content"], "half done");
}

/// A process's state letter (`T`: stopped) and its parent, from
/// `/proc/<pid>/stat`.
fn proc_state(pid: i32) -> (char, i32) {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let mut rest = stat
        .rsplit_once(')')
        .map_or("", |(_, r)| r)
        .split_whitespace();
    let state = rest.next().and_then(|s| s.chars().next()).unwrap_or('?');
    let parent = rest.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    (state, parent)
}

/// Wait until `pid` is in `state` (30 s at most).
fn wait_state(pid: i32, state: char) {
    let until = Instant::now() + Duration::from_secs(30);
    while proc_state(pid).0 != state {
        assert!(
            Instant::now() < until,
            "{pid} never reached state {state}: {:?}",
            proc_state(pid)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// What the program wrote after `mark` (a length of [`Term::raw`]), once
/// it holds `needle` (60 s at most).
fn written_after(t: &Term, mark: usize, needle: &str) -> String {
    let until = Instant::now() + Duration::from_secs(60);
    loop {
        let raw = t.raw();
        let after = raw.get(mark..).unwrap_or(&raw).to_owned();
        if after.contains(needle) {
            return after;
        }
        assert!(Instant::now() < until, "never saw {needle:?}: {after:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A stop while Claude works goes through the chat's one source of keys
/// and signals (#42.1): Ctrl-Z, and a `kill -TSTP` from outside, hand the
/// terminal back as the chat found it (bracketed paste off, written
/// before the process stops: the kernel's stop left it on) and stop the
/// chat; the CLI, in a process group of its own, goes on meanwhile, its
/// output kept for the chat. `fg` brings the turn back: its answer to its
/// end, and the line typed ahead before the stop still there.
#[test]
fn a_stop_mid_turn_hands_the_terminal_back_and_fg_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (first, second) = (dir.path().join("first"), dir.path().join("second"));
    let fake = Fake::after_init(vec![
        vec![
            expect_user("slow job"),
            system_init(),
            delta("step one\n"),
            Step::WaitFile(first.clone()),
            delta("step two\n"),
            Step::WaitFile(second.clone()),
            delta("step three\n"),
            result("slow done"),
        ],
        turn("typed ahead", "second answer"),
    ]);
    let mut t = chat_in_a_shell(&fake);
    t.wait_for("Ctrl-D exits");
    let cli = fake.pid();
    let chat = proc_state(cli).1;
    t.line("slow job");
    t.wait_for("step one");
    // typed while Claude works: the next prompt's line
    t.send(b"typed ahead");
    t.wait_for("typed ahead");

    // Ctrl-Z
    let mark = t.raw().len();
    t.send(b"\x1a");
    let stop = written_after(&t, mark, "Stopped");
    assert!(
        stop.contains("\x1b[?2004l"),
        "the terminal was not handed back before the stop: {stop:?}"
    );
    wait_state(chat, 'T');
    // the CLI is not stopped with the chat: it goes on, its output waits
    assert_ne!(proc_state(cli).0, 'T', "the CLI was stopped too");
    std::fs::write(&first, "").unwrap();
    t.line("fg");
    t.wait_for("step two");

    // `kill -TSTP` from outside
    let mark = t.raw().len();
    // SAFETY: a signal to the chat this test started
    unsafe { libc::kill(chat, libc::SIGTSTP) };
    let stop = written_after(&t, mark, "Stopped");
    assert!(
        stop.contains("\x1b[?2004l"),
        "the terminal was not handed back before the stop: {stop:?}"
    );
    wait_state(chat, 'T');
    std::fs::write(&second, "").unwrap();
    t.line("fg");
    t.wait_for("step three");
    t.wait_for("API call");
    // the line typed before the stops is the prompt's
    t.wait_for("› typed ahead");
    t.send(b"\r");
    t.wait_for("second answer");
    t.wait_for_n("API call", 2);
    t.ctrl_d();
    screen_until(&t, |s| {
        let last = s.lines().rev().find(|l| !l.trim().is_empty());
        last.is_some_and(|l| l.trim_end() == "shell$")
    });
    t.line("exit");
    assert_eq!(t.wait(20).code(), Some(0));
    let users = fake.user_lines();
    assert_eq!(users.len(), 2, "{users:?}");
    assert_eq!(users[1]["message"]["content"], "typed ahead");
}

/// `kill -TSTP` from outside at the prompt: the terminal handed back
/// before the chat stops (bracketed paste off; the kernel's stop left the
/// terminal as the prompt had it), and `fg` draws the line again, kept.
#[test]
fn a_kill_tstp_at_the_prompt_hands_the_terminal_back_and_fg_keeps_the_line() {
    let fake = Fake::after_init(vec![turn("half done", "whole")]);
    let mut t = chat_in_a_shell(&fake);
    t.wait_for("Ctrl-D exits");
    let chat = proc_state(fake.pid()).1;
    t.wait_prompt();
    t.send(b"half");
    t.wait_for("› half");
    let mark = t.raw().len();
    // SAFETY: a signal to the chat this test started
    unsafe { libc::kill(chat, libc::SIGTSTP) };
    let stop = written_after(&t, mark, "Stopped");
    assert!(
        stop.contains("\x1b[?2004l"),
        "the terminal was not handed back before the stop: {stop:?}"
    );
    wait_state(chat, 'T');
    t.line("fg");
    t.wait_for_n("› half", 2);
    t.line(" done");
    t.wait_for("whole");
    t.ctrl_d();
    screen_until(&t, |s| {
        let last = s.lines().rev().find(|l| !l.trim().is_empty());
        last.is_some_and(|l| l.trim_end() == "shell$")
    });
    t.line("exit");
    assert_eq!(t.wait(20).code(), Some(0));
    let users = fake.user_lines();
    assert_eq!(users.len(), 1, "{users:?}");
    assert_eq!(users[0]["message"]["content"], "half done");
}

/// A chat no shell can continue (its own session: an orphaned process
/// group, as `ssh host claudio` runs it): a `kill -TSTP` is dropped, as
/// the kernel drops a Ctrl-Z there, and the chat goes on with its mode set
/// again (a key typed after it edits the line, neither echoed by the
/// terminal nor held for a line). `kill -STOP` then `kill -CONT`: the
/// mode set again and the line drawn again, kept.
#[test]
fn stops_from_outside_in_a_chat_no_shell_continues_keep_the_line() {
    let fake = Fake::after_init(vec![turn("halfx done", "whole")]);
    let mut c = claudio(&fake);
    let home = fake.record.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    c.env("XDG_DATA_HOME", &home).env("HOME", &home);
    let mut t = Term::spawn(c);
    t.wait_for("Ctrl-D exits");
    let chat = i32::try_from(t.child().id()).unwrap();
    t.wait_prompt();
    t.send(b"half");
    t.wait_for("› half");
    let mark = t.raw().len();
    // SAFETY: a signal to the chat this test started
    unsafe { libc::kill(chat, libc::SIGTSTP) };
    // handed back, then the chat's mode set again
    let after = written_after(&t, mark, "\x1b[?2004h");
    assert!(after.contains("\x1b[?2004l"), "{after:?}");
    assert_ne!(proc_state(chat).0, 'T');
    t.send(b"x");
    t.wait_for("› halfx");
    // SAFETY: as above
    unsafe { libc::kill(chat, libc::SIGSTOP) };
    wait_state(chat, 'T');
    let mark = t.raw().len();
    // SAFETY: as above
    unsafe { libc::kill(chat, libc::SIGCONT) };
    written_after(&t, mark, "halfx");
    t.line(" done");
    t.wait_for("whole");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    let users = fake.user_lines();
    assert_eq!(users[0]["message"]["content"], "halfx done");
}

/// A pasted text holding the bracketed paste's end marker (`ESC [201~`)
/// ends the paste there at the terminal: what followed it in the text
/// came as keys typed, and an Enter in it sent the prompt, unseen. What
/// comes in the same burst of input after a paste's end is pasted text:
/// the Enter a line break; the prompt is sent by the person's own Enter.
#[test]
fn an_enter_in_the_same_burst_as_a_paste_s_end_does_not_send() {
    let fake = Fake::after_init(vec![turn("abcd\nef", "whole")]);
    let mut c = claudio(&fake);
    let home = fake.record.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    c.env("XDG_DATA_HOME", &home).env("HOME", &home);
    let mut t = Term::spawn(c);
    t.wait_for("Ctrl-D exits");
    t.wait_prompt();
    t.send(b"\x1b[200~ab\x1b[201~cd\ref");
    screen_until(&t, |s| {
        let rows: Vec<&str> = s.lines().map(str::trim_end).collect();
        rows.windows(2)
            .any(|w| w[0].ends_with("› abcd") && w[1] == "ef")
    });
    t.send(b"\r");
    t.wait_for("whole");
    t.wait_for("API call");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    let users = fake.user_lines();
    assert_eq!(users.len(), 1, "{users:?}");
    assert_eq!(users[0]["message"]["content"], "abcd\nef");
}

/// Wide characters at the prompt wrap whole (one that does not fit the
/// row's last column starts the next row, as the terminal puts it), and
/// an edit in the middle of the wrapped line draws it again in place.
#[test]
fn wide_characters_wrap_whole_at_the_prompt_and_edit_in_place() {
    let wide = "日本語".repeat(10);
    let sent = format!("a{wide}");
    let fake = Fake::after_init(vec![turn(&format!("a{wide}!"), "ok")]);
    let mut c = claudio(&fake);
    let home = fake.record.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    c.env("XDG_DATA_HOME", &home).env("HOME", &home);
    let mut t = Term::spawn_sized(c, 24, 40);
    t.wait_for("Ctrl-D exits");
    t.wait_prompt();
    t.send(sent.as_bytes());
    // `› a` is 3 columns, 18 wide characters fill 36 more: the 19th
    // does not fit the last column and starts the next row
    let first = format!("› a{}", wide.chars().take(18).collect::<String>());
    let second: String = wide.chars().skip(18).collect();
    let drawn = |t: &Term| {
        let rows = t.rows();
        rows.windows(2).any(|w| w[0] == first && w[1] == second)
    };
    let until = Instant::now() + Duration::from_secs(20);
    while !drawn(&t) {
        assert!(Instant::now() < until, "never drawn: {:#?}", t.rows());
        std::thread::sleep(Duration::from_millis(20));
    }
    // to the start, then type at the end again: the line stays in place
    t.send(b"\x01");
    t.send(b"\x05!");
    let second = format!("{second}!");
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let rows = t.rows();
        if rows.windows(2).any(|w| w[0] == first && w[1] == second) {
            assert_eq!(rows.iter().filter(|r| r.starts_with("› a")).count(), 1);
            break;
        }
        assert!(Instant::now() < until, "never drawn: {rows:#?}");
        std::thread::sleep(Duration::from_millis(20));
    }
    t.send(b"\r");
    t.wait_for("1 API call");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
}

/// Tab at the prompt: the common part of the slash commands goes in, a
/// second Tab lists them under the line (the prompt again below, the line
/// kept), and a Tab that leaves one completes it.
#[test]
fn tab_completes_slash_commands_and_lists_them() {
    let fake = Fake::after_init(vec![]);
    let mut t = chat(&fake);
    t.wait_for("Ctrl-D exits");
    t.wait_prompt();
    t.send(b"/mo\t");
    t.wait_for("› /mode");
    t.send(b"\t");
    t.send(b"\t");
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let rows = t.rows();
        let listed = rows.iter().position(|r| r == "/model  /mode");
        if let Some(i) = listed {
            assert_eq!(rows[i + 1], "› /mode", "{rows:#?}");
            break;
        }
        assert!(Instant::now() < until, "never listed: {rows:#?}");
        std::thread::sleep(Duration::from_millis(20));
    }
    t.send(b"l\t");
    t.wait_for("› /model ");
    t.send(b"\x15"); // Ctrl-U
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
}

/// A scenario part: the fake takes `/mcp`'s `mcp_status` request, says so
/// (the file `asked`), and answers only once the test makes `go`: the
/// chat is busy between prompts (no prompt read, no turn) until then.
fn mcp_waits_for(asked: &std::path::Path, go: &std::path::Path) -> Vec<Step> {
    vec![
        Step::expect_as(
            json!({"type":"control_request","request":{"subtype":"mcp_status"}}),
            "m",
        ),
        Step::WriteFile {
            path: asked.display().to_string(),
            content: String::new(),
        },
        Step::WaitFile(go.to_path_buf()),
        Step::Emit(
            json!({"type":"control_response","response":{"subtype":"success","request_id":"{{m}}","response":{"mcpServers":[]}}}),
        ),
    ]
}

/// Waits (bounded) for the file at `p`.
fn wait_file(p: &std::path::Path) {
    let until = Instant::now() + Duration::from_secs(20);
    while !p.exists() {
        assert!(Instant::now() < until, "{} never made", p.display());
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Keys typed while the chat is busy between prompts (a slash command
/// waiting for the CLI: no prompt is read, no turn runs) are read by the
/// chat's one reader of the keyboard, which lives as long as the chat
/// (#42.1): the terminal does not echo them where the chat writes, and
/// they are on the next prompt's line, once. Before, no reader was there:
/// the terminal, back in its own mode, echoed them under the command.
#[test]
fn keys_typed_while_the_chat_is_busy_between_prompts_are_on_the_next_line_once() {
    let gate = tempfile::tempdir().unwrap();
    let (asked, go) = (gate.path().join("asked"), gate.path().join("go"));
    let fake = Fake::after_init(vec![
        mcp_waits_for(&asked, &go),
        turn("typed while busy", "all right"),
    ]);
    let mut t = chat(&fake);
    t.wait_for("Ctrl-D exits");
    t.wait_prompt();
    t.line("/mcp");
    wait_file(&asked);
    t.send(b"typed while busy");
    std::fs::write(&go, "").unwrap();
    t.wait_for("no MCP servers");
    let screen = t.wait_for("› typed while busy");
    assert_eq!(screen.matches("typed while busy").count(), 1, "{screen}");
    t.send(b"\r");
    t.wait_for("all right");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    let users = fake.user_lines();
    assert_eq!(users.len(), 1, "{users:?}");
    assert_eq!(users[0]["message"]["content"], "typed while busy");
}

/// Ctrl-C while the chat is busy between prompts, before any turn: it
/// comes in through the chat's one source of keys and signals, as Ctrl-C
/// at the next prompt (the line starts again), and reaches no turn: the
/// next prompt's turn runs to its end. Before, nothing took SIGINT there
/// yet: it killed the chat.
#[test]
fn ctrl_c_while_the_chat_is_busy_between_prompts_is_the_next_prompt_s() {
    let gate = tempfile::tempdir().unwrap();
    let (asked, go) = (gate.path().join("asked"), gate.path().join("go"));
    let fake = Fake::after_init(vec![
        mcp_waits_for(&asked, &go),
        turn("after the ctrl-c", "still here"),
    ]);
    let mut t = chat(&fake);
    t.wait_for("Ctrl-D exits");
    t.wait_prompt();
    t.line("/mcp");
    wait_file(&asked);
    t.ctrl_c();
    std::fs::write(&go, "").unwrap();
    t.wait_for("no MCP servers");
    t.wait_prompt();
    t.line("after the ctrl-c");
    let screen = t.wait_for("1 API call");
    assert!(screen.contains("still here"), "{screen}");
    assert!(!screen.contains("interrupting"), "{screen}");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
}

/// While the Ctrl-G editor runs, it owns the terminal: the chat's one
/// reader of the keyboard pauses (the terminal in the mode the chat found,
/// lines and echo), so every key typed goes to the editor, none to the
/// chat; after it, the reader reads again, the same one.
#[test]
fn keys_typed_in_the_editor_are_the_editor_s_and_the_prompt_reads_again_after() {
    let fake = Fake::after_init(vec![turn("from the editor!", "edited")]);
    let gate = tempfile::tempdir().unwrap();
    let started = gate.path().join("started");
    let script = gate.path().join("editor.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\n: > '{}'\nIFS= read -r line\nprintf '%s' \"$line\" > \"$1\"\n",
            started.display()
        ),
    )
    .unwrap();
    std::process::Command::new("chmod")
        .arg("+x")
        .arg(&script)
        .status()
        .unwrap();
    let mut c = claudio(&fake);
    let home = fake.record.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    c.env("XDG_DATA_HOME", &home)
        .env("HOME", &home)
        .env("VISUAL", &script);
    let mut t = Term::spawn(c);
    t.wait_for("Ctrl-D exits");
    t.wait_prompt();
    t.send(b"draft");
    t.wait_for("› draft");
    t.send(b"\x07"); // Ctrl-G
    wait_file(&started);
    // the editor reads a line, the terminal echoing it
    t.send(b"from the editor\r");
    t.wait_for("› from the editor");
    t.send(b"!\r");
    t.wait_for("edited");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    let users = fake.user_lines();
    assert_eq!(users.len(), 1, "{users:?}");
    assert_eq!(users[0]["message"]["content"], "from the editor!");
}

/// SIGINT from outside at the prompt (`kill -INT`) comes in through the
/// chat's one source of keys and signals as Ctrl-C there: the line
/// starts again, the chat goes on. Before, the handler a past turn had
/// taken swallowed it, and the line stayed.
#[test]
fn sigint_at_the_prompt_is_ctrl_c_there() {
    let fake = Fake::after_init(vec![turn("hello", "hi"), turn("clean", "ok")]);
    let mut t = chat(&fake);
    t.wait_for("Ctrl-D exits");
    t.line("hello");
    t.wait_for("1 API call");
    t.wait_prompt();
    t.send(b"junk");
    t.wait_for("› junk");
    signal(t.child(), libc::SIGINT);
    screen_until(&t, |s| {
        let last = s.lines().rev().find(|l| !l.trim().is_empty());
        last.is_some_and(|l| l.trim_end() == "›")
    });
    t.line("clean");
    t.wait_for_n("API call", 2);
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    let users = fake.user_lines();
    assert_eq!(users.len(), 2, "{users:?}");
    assert_eq!(users[1]["message"]["content"], "clean");
}

/// Ctrl-C while Claude works interrupts the turn (the terminal's signal,
/// through the chat's one source); Ctrl-C at the next prompt is the key
/// there (the line starts again), not a second Ctrl-C of the turn: the
/// chat goes on.
#[test]
fn ctrl_c_in_a_turn_then_ctrl_c_at_the_prompt_clears_the_line_only() {
    let fake = Fake::after_init(vec![
        interrupted_turn("long task", "working on it"),
        turn("and now?", "still here"),
    ]);
    let mut t = chat(&fake);
    t.interrupt_a_turn("long task", "working on it");
    t.wait_for("interrupting");
    t.wait_for("1 API call");
    t.wait_prompt();
    t.send(b"to drop");
    t.wait_for("› to drop");
    t.ctrl_c();
    screen_until(&t, |s| {
        let last = s.lines().rev().find(|l| !l.trim().is_empty());
        last.is_some_and(|l| l.trim_end() == "›")
    });
    t.line("and now?");
    t.wait_for("still here");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    let users = fake.user_lines();
    assert_eq!(users.len(), 2, "{users:?}");
    assert_eq!(users[1]["message"]["content"], "and now?");
}

/// Keys typed while a Shift-Tab switch of mode waits for the CLI's answer
/// go on the line kept at the press, in order, once: the chat's one reader
/// had them (#42.1). Before, no reader was there while the switch was
/// asked: the terminal echoed them, and the turn's reader took them as
/// the type-ahead, which the kept line then put aside into the history.
#[test]
fn keys_typed_while_a_mode_switch_waits_go_on_the_kept_line() {
    let gate = tempfile::tempdir().unwrap();
    let (asked, go) = (gate.path().join("asked"), gate.path().join("go"));
    let fake = Fake::after_init(vec![
        vec![
            Step::expect_as(
                json!({"type":"control_request","request":{"subtype":"set_permission_mode","mode":"acceptEdits"}}),
                "a",
            ),
            Step::WriteFile {
                path: asked.display().to_string(),
                content: String::new(),
            },
            Step::WaitFile(go.clone()),
            Step::Emit(
                json!({"type":"control_response","response":{"subtype":"success","request_id":"{{a}}","response":{"mode":"acceptEdits"}}}),
            ),
            Step::Emit(
                json!({"type":"system","subtype":"status","permissionMode":"acceptEdits","session_id":"s"}),
            ),
        ],
        turn("draft kept on", "fine"),
    ]);
    let mut t = chat(&fake);
    t.wait_for("Ctrl-D exits");
    t.wait_prompt();
    t.send(b"draft");
    t.wait_for("› draft");
    t.send(b"\x1b[Z"); // Shift-Tab
    wait_file(&asked);
    t.send(b" kept on");
    std::fs::write(&go, "").unwrap();
    let screen = t.wait_for("› draft kept on");
    assert_eq!(screen.matches("kept on").count(), 1, "{screen}");
    t.send(b"\r");
    t.wait_for("fine");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    let users = fake.user_lines();
    assert_eq!(users.len(), 1, "{users:?}");
    assert_eq!(users[0]["message"]["content"], "draft kept on");
}

/// A stop in the middle of an answer's row: after `fg` the rest of the
/// answer goes on at the start of a fresh line, under the answer's
/// indent, as if the row had been broken there, every word where the
/// filler counts it. It went on at the old row's column (the row's start
/// left blank, halfway across the screen); before that, the rest began at
/// the line's start while the filler counted from the old row, and the
/// words after the next spinner were drawn a gap away.
#[test]
fn a_stop_mid_row_of_an_answer_draws_its_rest_whole_after_fg() {
    let dir = tempfile::tempdir().unwrap();
    let (go, more) = (dir.path().join("go"), dir.path().join("more"));
    let fake = Fake::after_init(vec![vec![
        expect_user("slow job"),
        system_init(),
        delta("slow answer "),
        Step::WaitFile(go.clone()),
        delta("one, which "),
        Step::WaitFile(more.clone()),
        delta("streams on\n"),
        result("slow answer one, which streams on"),
    ]]);
    let mut t = chat_in_a_shell(&fake);
    t.wait_for("Ctrl-D exits");
    let chat = proc_state(fake.pid()).1;
    t.line("slow job");
    t.wait_for("slow answer");
    let mark = t.raw().len();
    t.send(b"\x1a");
    written_after(&t, mark, "Stopped");
    wait_state(chat, 'T');
    let mark = t.raw().len();
    t.line("fg");
    // the chat heard of the continue: the stopped row is ended and what
    // is under the cursor erased (words sent before that may be drawn
    // before it, where the stopped row left off)
    written_after(&t, mark, "\n\r\x1b[J");
    std::fs::write(&go, "").unwrap();
    t.wait_for("one, which");
    // a spinner drawn under the row before its next words
    let mark = t.raw().len();
    written_after(&t, mark, "Working");
    std::fs::write(&more, "").unwrap();
    t.wait_for("API call");
    let screen = t.contents();
    assert!(screen.contains("  slow answer"), "{screen}");
    let rest = screen
        .lines()
        .find(|l| l.contains("one, which"))
        .unwrap_or_default();
    assert_eq!(rest.trim_end(), "  one, which streams on", "{screen}");
    t.ctrl_d();
    screen_until(&t, |s| {
        let last = s.lines().rev().find(|l| !l.trim().is_empty());
        last.is_some_and(|l| l.trim_end() == "shell$")
    });
    t.line("exit");
    assert_eq!(t.wait(20).code(), Some(0));
}

/// The chat on a terminal 2 to 19 columns wide (1 is the pure renderer's
/// test: the harness's terminal cannot hold a wide character in one
/// column): a streamed answer, a tool call with its spinner and its
/// approval, answered, then Ctrl-D; no panic, no hang, and no spinner left
/// on the screen. Below 20 columns the chat drew at 20: its rows wrapped
/// and the live region's erase left spinner and status rows behind.
#[test]
fn a_turn_with_an_approval_runs_at_every_narrow_width() {
    let wait = |what: &str, f: &dyn Fn() -> bool| {
        let until = Instant::now() + Duration::from_secs(60);
        while !f() {
            assert!(Instant::now() < until, "never came: {what}");
            std::thread::sleep(Duration::from_millis(10));
        }
    };
    for cols in 2..=19u16 {
        let fake = Fake::after_init(vec![vec![
            expect_user("go"),
            system_init(),
            delta("the answer is "),
            delta("forty-two"),
            assistant_tool_use("toolu_1", "Bash", json!({"command": "ls -la"})),
            can_use_tool("p1", "Bash", json!({"command": "ls -la"}))
                .with("tool_use_id", json!("toolu_1"))
                .emit(),
            Step::expect(json!({"type":"control_response",
                "response":{"request_id":"p1","response":{"behavior":"allow"}}})),
            Step::Emit(json!({"type":"user","message":{"role":"user","content":[
                {"type":"tool_result","tool_use_id":"toolu_1","content":"done"}]},
                "parent_tool_use_id":null,"session_id":"sess-1"})),
            result("done"),
        ]]);
        let mut c = claudio(&fake);
        let home = fake.record.path().join("home");
        std::fs::create_dir_all(&home).unwrap();
        c.env("XDG_DATA_HOME", &home).env("HOME", &home);
        let mut t = Term::spawn_sized(c, 24, cols);
        t.wait_prompt();
        t.send(b"go\r");
        wait(&format!("the approval at {cols}"), &|| {
            t.raw().contains('┌')
        });
        t.send(b"y\r");
        let answered = || {
            fake.stdin_lines()
                .iter()
                .any(|l| l["type"] == "control_response")
        };
        wait(&format!("the answer at {cols}"), &answered);
        // Ctrl-D in a turn is nothing (`machine::Event::Eof`), and at 2 to
        // 19 columns no text on the screen tells the turn's end for sure
        // (a stale `Enter ›` row ends like the prompt): Ctrl-D again, a
        // second apart, until the chat ends, within the hang guard
        let until = Instant::now() + Duration::from_secs(60);
        let status = 'exited: loop {
            t.send(b"\x04");
            let next = Instant::now() + Duration::from_secs(1);
            while Instant::now() < next {
                if let Some(s) = t.child().try_wait().unwrap() {
                    break 'exited s;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            assert!(Instant::now() < until, "no exit at {cols} columns");
        };
        assert_eq!(status.code(), Some(0), "at {cols} columns");
        assert!(!t.raw().contains("panicked"), "at {cols} columns");
        let screen = t.contents();
        let spinners = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
        assert!(
            !screen.chars().any(|c| spinners.contains(&c)),
            "at {cols} columns:\n{screen}"
        );
    }
}

/// SIGINT from outside (`kill -INT`) while a tool's approval is open and a
/// second request is queued behind it: it acts at once, as the Ctrl-C key
/// does in the dialog: the open request is denied and the turn stops; the
/// queued one waits for the turn's end and, withdrawn by the CLI as it
/// stops, is said withdrawn, never asked. Before, the signal waited for
/// the person's answer, and then for every request queued.
#[test]
fn sigint_at_an_approval_with_requests_queued_answers_it_at_once() {
    let gate = Gate::new();
    let fake = Fake::after_init(vec![vec![
        expect_user("do both"),
        system_init(),
        assistant_tool_use("toolu_1", "Bash", json!({"command": "touch one"})),
        can_use_tool("p1", "Bash", json!({"command": "touch one"}))
            .with("tool_use_id", json!("toolu_1"))
            .emit(),
        can_use_tool("p2", "Bash", json!({"command": "touch two"}))
            .with("tool_use_id", json!("toolu_2"))
            .emit(),
        Step::expect(json!({"type":"control_response",
            "response":{"request_id":"p1","response":{"behavior":"deny","interrupt":true}}})),
        // the CLI stops: it withdraws what it asked after, then ends the turn
        gate.step(),
        Step::Emit(json!({"type":"control_cancel_request","request_id":"p2"})),
        result("stopped"),
    ]]);
    let mut t = chat(&fake);
    t.wait_for("Ctrl-D exits");
    t.line("do both");
    t.wait_for("Allow?");
    signal(t.child(), libc::SIGINT);
    let until = Instant::now() + Duration::from_secs(60);
    while !fake
        .stdin_lines()
        .iter()
        .any(|l| l["type"] == "control_response")
    {
        assert!(Instant::now() < until, "never answered:\n{}", t.contents());
        std::thread::sleep(Duration::from_millis(10));
    }
    gate.open();
    let screen = t.wait_for("1 API call");
    assert!(screen.contains("withdrawn before it was asked"), "{screen}");
    assert_eq!(screen.matches("Allow?").count(), 1, "{screen}");
    assert!(!screen.contains("touch two"), "{screen}");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    // the one answer: the denial that stops the turn (the fake exits 3 on
    // one it did not expect)
    let answers = count(&fake.stdin_lines(), |l| l["type"] == "control_response");
    assert_eq!(answers, 1);
}
