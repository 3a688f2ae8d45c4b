//! Notices: the chat tells the person, the ways the config file's
//! `[notify]` table sets, when a tool waits for them; `claudio notify test`.

use crate::common;

use common::term::Term;
use common::*;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The notices the person's command got, one JSON line each.
fn notices(file: &Path) -> Vec<Value> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("a notice is one line of JSON"))
        .collect()
}

fn wait_notices(file: &Path, n: usize) -> Vec<Value> {
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        let got = notices(file);
        if got.len() >= n || Instant::now() > until {
            return got;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A config file whose `[notify]` table sends every notice to `file`.
fn config(dir: &Path, file: &Path, extra: &str) -> PathBuf {
    let cfg = dir.join("notify-config.toml");
    let text = format!(
        "[notify]\nbell = false\ncommand = \"cat >> '{}'\"\n{extra}",
        file.display()
    );
    std::fs::write(&cfg, text).unwrap();
    cfg
}

fn bash_request(id: &str, command: &str) -> Step {
    can_use_tool(id, "Bash", json!({ "command": command }))
        .with("tool_use_id", json!(format!("toolu_{id}")))
        .emit()
}

#[test]
fn a_tool_waiting_for_the_person_sends_one_notice_each_time_it_asks() {
    let fake = Fake::after_init(vec![vec![
        expect_user("do things"),
        bash_request("p1", "touch one\u{1b}]0;evil\u{7}"),
        Step::expect(json!({"type":"control_response","response":{"request_id":"p1"}})),
        bash_request("p2", "touch two"),
        Step::expect(json!({"type":"control_response","response":{"request_id":"p2"}})),
        result("ok"),
    ]]);
    let file = fake.record.path().join("notices.jsonl");
    let cfg = config(fake.record.path(), &file, "on = [\"permission\"]\n");
    let mut c = claudio(&fake);
    let home = fake.record.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    c.env("HOME", &home)
        .env("XDG_DATA_HOME", &home)
        .env("CLAUDIO_CONFIG", &cfg);
    let mut t = Term::spawn(c);
    t.wait_for("Ctrl-D exits");
    assert!(notices(&file).is_empty(), "no notice before anything asks");
    t.line("do things");
    t.wait_for_n("Allow?", 1);
    let got = wait_notices(&file, 1);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0]["kind"], "permission");
    assert_eq!(got[0]["title"], "Bash waits for you");
    let body = got[0]["body"].as_str().unwrap();
    assert!(body.contains("touch one"), "{body}");
    assert!(
        !body.contains('\u{1b}') && !body.contains('\u{7}'),
        "{body:?}"
    );
    t.line("y");
    t.wait_for_n("Allow?", 2);
    // answered in between: the next request needs the person again
    let got = wait_notices(&file, 2);
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(got[1]["body"].as_str().unwrap().contains("touch two"));
    t.line("y");
    t.wait_for("1 API call");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    // a short turn: no `turn` notice (and it was not chosen)
    assert_eq!(notices(&file).len(), 2);
}

#[test]
fn without_a_notify_table_nothing_is_sent_and_notify_test_says_so() {
    let fake = Fake::after_init(vec![]);
    let mut c = claudio(&fake);
    c.args(["notify", "test"]);
    let out = c.output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no [notify] table"), "{err}");
}

#[test]
fn notify_test_sends_through_every_way_set() {
    let fake = Fake::after_init(vec![]);
    let file = fake.record.path().join("notices.jsonl");
    let cfg = config(fake.record.path(), &file, "osc = \"777\"\n");
    let mut c = claudio(&fake);
    c.env("CLAUDIO_CONFIG", &cfg)
        .env_remove("TMUX")
        .args(["notify", "test"]);
    let out = c.output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    // the OSC 777 notice went to the terminal, the command got the notice
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with("\x1b]777;notify;claudio: a test notice;"),
        "{stdout:?}"
    );
    let got = notices(&file);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0]["title"], "claudio: a test notice");
    // a command that fails is said, and the exit is 1
    let bad = fake.record.path().join("bad.toml");
    std::fs::write(&bad, "[notify]\nbell = false\ncommand = \"exit 7\"\n").unwrap();
    let mut c = claudio(&fake);
    c.env("CLAUDIO_CONFIG", &bad).args(["notify", "test"]);
    let out = c.output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("notice not sent") && err.contains("exit status: 7"),
        "{err}"
    );
}

#[test]
fn a_turn_as_long_as_turn_seconds_sends_a_notice_when_it_ends() {
    let fake = Fake::after_init(vec![vec![
        expect_user("think long"),
        Step::SleepMs(1200),
        assistant_text("done"),
        result("done"),
    ]]);
    let file = fake.record.path().join("notices.jsonl");
    let cfg = config(
        fake.record.path(),
        &file,
        "on = [\"turn\"]\nturn-seconds = 1\n",
    );
    let mut c = claudio(&fake);
    let home = fake.record.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    c.env("HOME", &home)
        .env("XDG_DATA_HOME", &home)
        .env("CLAUDIO_CONFIG", &cfg);
    let mut t = Term::spawn(c);
    t.wait_for("Ctrl-D exits");
    t.line("think long");
    t.wait_for("1 API call");
    let got = wait_notices(&file, 1);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0]["kind"], "turn");
    assert_eq!(got[0]["title"], "Claude is done");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
}

/// `ask`'s notice for the model's question is the chat's: a question
/// ("Claude asks you"), not a tool waiting for permission, so a person who
/// is told of questions only is told of it.
#[test]
fn ask_notices_a_question_as_a_question() {
    let questions = json!({"questions":[{"question":"Which database?","header":"DB",
        "multiSelect":false,"options":[{"label":"SQLite","description":""},
        {"label":"Postgres","description":""}]}]});
    let fake = Fake::after_init(vec![vec![
        expect_user("set up storage"),
        can_use_tool("q1", "AskUserQuestion", questions).emit(),
        Step::expect(json!({"type":"control_response","response":{"request_id":"q1"}})),
        result("done"),
    ]]);
    let file = fake.record.path().join("notices.jsonl");
    let cfg = config(fake.record.path(), &file, "on = [\"question\"]\n");
    let mut c = claudio(&fake);
    let home = fake.record.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    c.env("HOME", &home)
        .env("XDG_DATA_HOME", &home)
        .env("CLAUDIO_CONFIG", &cfg)
        // asked on its terminal, the pty below
        .env_remove("CLAUDIO_TEST_TTY")
        .args(["ask", "set up storage"]);
    let mut t = Term::spawn(c);
    t.wait_for("Enter alone declines");
    let got = wait_notices(&file, 1);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0]["kind"], "question");
    assert_eq!(got[0]["title"], "Claude asks you");
    t.line("2");
    assert_eq!(t.wait(20).code(), Some(0));
}

/// `ask` tells the person as the chat does: a tool it asks about on the
/// terminal, and an answer that took `turn-seconds`, sent before it exits.
#[test]
fn ask_sends_a_notice_when_it_asks_and_when_a_long_answer_ends() {
    let fake = Fake::after_init(vec![vec![
        expect_user("do things"),
        bash_request("p1", "touch one"),
        Step::expect(json!({"type":"control_response","response":{"request_id":"p1"}})),
        Step::SleepMs(1200),
        assistant_text("done"),
        result("done"),
    ]]);
    let file = fake.record.path().join("notices.jsonl");
    let cfg = config(fake.record.path(), &file, "turn-seconds = 1\n");
    let mut c = claudio(&fake);
    let home = fake.record.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    c.env("HOME", &home)
        .env("XDG_DATA_HOME", &home)
        .env("CLAUDIO_CONFIG", &cfg)
        // asked on its terminal, the pty below
        .env_remove("CLAUDIO_TEST_TTY")
        .args(["ask", "do things"]);
    let mut t = Term::spawn(c);
    t.wait_for("Allow?");
    let got = wait_notices(&file, 1);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0]["kind"], "permission");
    assert_eq!(got[0]["title"], "Bash waits for you");
    assert!(
        got[0]["body"].as_str().unwrap().contains("touch one"),
        "{got:?}"
    );
    t.line("y");
    assert_eq!(t.wait(20).code(), Some(0));
    // sent before `ask` exited: nothing to wait for
    let got = notices(&file);
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[1]["kind"], "turn");
    assert!(
        got[1]["body"].as_str().unwrap().contains("claudio ask in"),
        "{got:?}"
    );
}
