//! End-to-end, the chat as a daily driver: the model's questions, plans,
//! mode cycling, `@` paths, `!` commands, rewind and sub-agents, with the
//! real Claude Code CLI (pinned 2.1.328) and a scripted Messages API.

mod common;

use common::real::*;
use common::term::Term;
use serde_json::json;

fn chat(w: &World, args: &[&str]) -> Term {
    let mut c = w.claudio();
    c.env("XDG_DATA_HOME", w.home.path()).args(args);
    let t = Term::spawn(c);
    t.wait_for("Ctrl-D exits");
    t
}

fn bye(mut t: Term) {
    t.ctrl_d();
    assert_eq!(t.wait(30).code(), Some(0));
}

fn db_question() -> serde_json::Value {
    json!({"questions":[{"question":"Which database should we use?","header":"Database","multiSelect":false,
        "options":[{"label":"SQLite","description":"one file"},{"label":"Postgres","description":"a server"}]}]})
}

#[test]
fn choosing_an_option_answers_the_model() {
    let w = world!("choosing_an_option_answers_the_model");
    let call = Reply::tool_use("AskUserQuestion", db_question());
    let id = call.tool_use_id();
    w.api.push(call);
    w.api.push(Reply::text("Postgres it is."));
    let mut t = chat(&w, &[]);
    t.line("set up storage");
    let screen = t.wait_for("esc declines");
    assert!(screen.contains("Which database should we use?"), "{screen}");
    assert!(!screen.contains("Allow?"), "{screen}");
    t.send(b"2");
    t.wait_for("Postgres it is.");
    t.wait_for("turns ·");
    bye(t);
    let reqs = w.main_requests();
    let tr = reqs[1].tool_result_for(&id).expect("a tool result");
    assert!(!tr.is_error, "{tr:?}");
    assert!(tr.content.contains("answered"), "{tr:?}");
    assert!(
        tr.content
            .contains("\"Which database should we use?\"=\"Postgres\""),
        "{tr:?}"
    );
}

#[test]
fn ask_with_a_question_and_no_terminal_denies_and_tells_the_model() {
    let w = world!("ask_with_a_question_and_no_terminal_denies_and_tells_the_model");
    let call = Reply::tool_use("AskUserQuestion", db_question());
    let id = call.tool_use_id();
    w.api.push(call);
    w.api.push(Reply::text("I picked SQLite myself."));
    let out = w
        .claudio()
        .args(["ask", "set up storage"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "I picked SQLite myself."
    );
    let tr = w.main_requests()[1].tool_result_for(&id).unwrap();
    assert!(tr.is_error, "{tr:?}");
    assert!(tr.content.contains("Nobody is at a terminal"), "{tr:?}");
}

#[test]
fn approving_a_plan_with_auto_accept_switches_the_cli_to_accept_edits() {
    let w = world!("approving_a_plan_with_auto_accept_switches_the_cli_to_accept_edits");
    let plan = "# Plan\n\n1. Add notes.txt\n2. Say done";
    let call = Reply::tool_use("ExitPlanMode", json!({ "plan": plan }));
    let id = call.tool_use_id();
    w.api.push(call);
    w.api.push(Reply::text("Starting."));
    let mut t = chat(&w, &["--permission-mode", "plan"]);
    t.line("plan the notes");
    let screen = t.wait_for("esc declines");
    assert!(screen.contains("1. Add notes.txt"), "{screen}");
    t.send(b"1");
    t.wait_for("Starting.");
    let screen = t.wait_for("turns ·");
    assert!(screen.contains("acceptEdits ──"), "{screen}");
    bye(t);
    let tr = w.main_requests()[1].tool_result_for(&id).unwrap();
    assert!(!tr.is_error, "{tr:?}");
    assert!(tr.content.contains("approved your plan"), "{tr:?}");
    assert!(tr.content.contains("Add notes.txt"), "{tr:?}");
}
