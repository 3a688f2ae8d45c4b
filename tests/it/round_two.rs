//! The first hour, round two (issue 40): Esc, the queue at an interrupt,
//! Shift-Tab counted, `@` paths with spaces, failed tool calls, the CLI's
//! diagnostics; on a pseudo-terminal, against the fake CLI.

use crate::common;

use common::term::Term;
use common::*;
use serde_json::json;

fn chat(fake: &Fake) -> Term {
    let mut c = claudio(fake);
    let home = fake.record.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    c.env("XDG_DATA_HOME", &home).env("HOME", &home);
    let t = Term::spawn(c);
    t.wait_for("Ctrl-D exits");
    t
}

/// Esc (or Ctrl-C) while Claude works interrupts the turn, and the prompts
/// queued behind it come back to the line, oldest first, to edit or send:
/// none is sent by itself (#40.1, #40.4). Before, Esc was ignored (the
/// fake waited for an interrupt that never came) and Ctrl-C sent the
/// first queued prompt at once.
fn an_interrupt_brings_the_queue_back(key: &[u8]) {
    let fake = Fake::after_init(vec![
        interrupted_turn("long task", "working on it\n"),
        turn("one\ntwo, edited", "both done"),
    ]);
    let mut t = chat(&fake);
    t.line("long task");
    t.wait_for("working on it");
    t.wait_for("Esc to interrupt");
    t.line("one");
    t.line("two");
    t.wait_for("› one  · 2 queued");
    // an arrow and Alt-b start with Esc, and are no Esc
    t.send(b"\x1b[C\x1bbz");
    t.wait_for("› z");
    assert!(!t.contents().contains("interrupting"), "{}", t.contents());
    t.send(b"\x7f");
    // (Ctrl-C is a signal: it would overtake the Backspace still unread)
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while t.contents().contains("› z") {
        assert!(std::time::Instant::now() < until, "{}", t.contents());
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    t.send(key);
    t.wait_for("⏹ interrupted");
    // the prompt comes back with the queue on its line, one per line
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let rows = t.rows();
        let at = rows.iter().rposition(|r| r.ends_with("› one"));
        if at.is_some_and(|at| rows.get(at + 1).is_some_and(|r| r == "two")) {
            break;
        }
        assert!(std::time::Instant::now() < until, "{rows:#?}");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let screen = t.contents();
    assert!(!screen.contains("· 2 queued"), "{screen}");
    assert!(
        screen.contains("the queued prompts are back on the line"),
        "{screen}"
    );
    assert_eq!(fake.user_lines().len(), 1, "nothing sent by itself");
    t.send(b", edited\r");
    t.wait_for("both done");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    let users = fake.user_lines();
    assert_eq!(users.len(), 2, "{users:?}");
    assert_eq!(users[1]["message"]["content"], "one\ntwo, edited");
}

#[test]
fn esc_interrupts_while_claude_works_and_the_queue_comes_back() {
    an_interrupt_brings_the_queue_back(b"\x1b");
}

#[test]
fn ctrl_c_with_queued_prompts_brings_them_back_to_the_line() {
    an_interrupt_brings_the_queue_back(b"\x03");
}

fn mode_switch(mode: &str, id: &str) -> Vec<Step> {
    vec![
        Step::expect_as(
            json!({"type":"control_request","request":{"subtype":"set_permission_mode","mode":mode}}),
            id,
        ),
        Step::Emit(
            json!({"type":"control_response","response":{"subtype":"success","request_id":format!("{{{{{id}}}}}"),"response":{"mode":mode}}}),
        ),
        Step::Emit(
            json!({"type":"system","subtype":"status","permissionMode":mode,"session_id":"s"}),
        ),
    ]
}

/// Two Shift-Tabs in one read (a fast typist, a paste) are two presses:
/// default → acceptEdits → plan, and what was typed right after them is
/// kept (#40.6). Before, the second press and the text were dropped with
/// the line editor's read buffer, leaving the more permissive acceptEdits.
#[test]
fn two_shift_tabs_in_one_read_advance_two_modes() {
    let mut parts = vec![mode_switch("acceptEdits", "a"), mode_switch("plan", "p")];
    parts.push(turn("plan it", "a plan"));
    let fake = Fake::after_init(parts);
    let mut t = chat(&fake);
    t.wait_prompt();
    t.send(b"\x1b[Z\x1b[Zplan");
    t.wait_for("plan › plan");
    t.send(b" it\r");
    t.wait_for("a plan");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    let modes: Vec<String> = fake
        .stdin_lines()
        .iter()
        .filter(|l| l["request"]["subtype"] == "set_permission_mode")
        .map(|l| l["request"]["mode"].as_str().unwrap_or("").to_owned())
        .collect();
    assert_eq!(modes, ["acceptEdits", "plan"]);
}

mod real {
    use super::super::common;
    use common::real::*;
    use common::term::Term;

    fn chat(w: &World, args: &[&str]) -> Term {
        let mut c = w.claudio();
        c.env("XDG_DATA_HOME", w.home.path()).args(args);
        let t = Term::spawn(c);
        t.wait_for("Ctrl-D exits");
        t
    }

    /// An `@` path with spaces: Tab quotes it as the CLI reads it, a
    /// folder's quote stays open and Tab goes on inside it, and the quoted
    /// paths reach the model as reads of the files; an `@` word that names
    /// no file is said before the prompt goes (#40.2). Before, Tab wrote
    /// `@notes file.txt`, which attached nothing and said nothing.
    #[test]
    fn an_at_path_with_spaces_is_quoted_by_tab_and_reaches_the_model() {
        let w = world!("an_at_path_with_spaces_is_quoted_by_tab_and_reaches_the_model");
        let work = w.work.path();
        std::fs::write(work.join("notes file.txt"), "zebra-quokka-7731\n").unwrap();
        std::fs::create_dir(work.join("my docs")).unwrap();
        std::fs::write(work.join("my docs/Screen Shot 1.txt"), "okapi-2288\n").unwrap();
        w.api.push(Reply::text("A zebra and an okapi."));
        let mut t = chat(&w, &[]);
        t.send(b"summarize @note");
        t.send(b"\t");
        t.wait_for(r#"summarize @"notes file.txt""#);
        t.send(b"and @my");
        t.send(b"\t");
        t.wait_for(r#"and @"my docs/"#);
        t.send(b"Scr");
        t.send(b"\t");
        t.wait_for(r#"@"my docs/Screen Shot 1.txt""#);
        t.send(b"not @nowhere.txt\r");
        t.wait_for("@nowhere.txt names no file here");
        t.wait_for("A zebra and an okapi.");
        t.ctrl_d();
        assert_eq!(t.wait(30).code(), Some(0));
        let req = &w.main_requests()[0];
        assert!(
            req.body_contains("zebra-quokka-7731"),
            "the first file was read"
        );
        assert!(req.body_contains("okapi-2288"), "the second file was read");
        let text = req.last_user_text();
        assert!(
            text.contains(
                r#"summarize @"notes file.txt" and @"my docs/Screen Shot 1.txt" not @nowhere.txt"#
            ),
            "{text}"
        );
    }

    /// Esc at an approval is an interrupt like Ctrl-C: `⏹ interrupted`,
    /// never the CLI's internal `[ede_diagnostic] …` line, which shows only
    /// under `--verbose` (#40.3).
    #[test]
    fn esc_at_an_approval_is_an_interrupt_and_the_cli_s_diagnostic_stays_hidden() {
        for verbose in [false, true] {
            let w =
                world!("esc_at_an_approval_is_an_interrupt_and_the_cli_s_diagnostic_stays_hidden");
            w.api.push(Reply::bash("touch never_made"));
            w.api.push(Reply::text("unused"));
            let args: &[&str] = if verbose { &["--verbose"] } else { &[] };
            let mut t = chat(&w, args);
            t.line("make a file");
            t.wait_for("Allow?");
            t.send(b"\x1b");
            let screen = t.wait_for("API call");
            assert!(screen.contains("⏹ interrupted"), "{screen}");
            assert_eq!(screen.contains("ede_diagnostic"), verbose, "{screen}");
            assert!(!w.work.path().join("never_made").exists());
            t.ctrl_d();
            assert_eq!(t.wait(30).code(), Some(0));
        }
    }
}

/// Calls the CLI rejected get their `✗` line with the reason, even those
/// not drawn as tool lines (a plan, the task list's tools), and a rejected
/// `TodoWrite` draws no task list (#40.5). Before, both were hidden and
/// the rejected list was drawn.
#[test]
fn rejected_calls_get_their_failure_line_and_change_no_state() {
    let fake = Fake::after_init(vec![vec![
        expect_user("plan and track it"),
        system_init(),
        assistant_tool_use("p1", "ExitPlanMode", json!({"plan":"1. do it"})),
        Step::Emit(json!({"type":"user","message":{"role":"user","content":[
            {"type":"tool_result","tool_use_id":"p1","is_error":true,
             "content":"<tool_use_error>You are not in plan mode. This tool is only for exiting plan mode after writing a plan.</tool_use_error>"}]},
            "parent_tool_use_id":null,"session_id":"sess-1"})),
        assistant_tool_use(
            "w1",
            "TodoWrite",
            json!({"todos":[{"content":"ghost task","status":"in_progress","activeForm":"Haunting"}]}),
        ),
        Step::Emit(json!({"type":"user","message":{"role":"user","content":[
            {"type":"tool_result","tool_use_id":"w1","is_error":true,
             "content":"<tool_use_error>Error: No such tool available: TodoWrite</tool_use_error>"}]},
            "parent_tool_use_id":null,"session_id":"sess-1"})),
        assistant_text("Done anyway."),
        result("Done anyway."),
    ]]);
    let mut t = chat(&fake);
    t.line("plan and track it");
    let screen = t.wait_for("API call");
    assert!(screen.contains("✗ ExitPlanMode"), "{screen}");
    assert!(screen.contains("You are not in plan mode"), "{screen}");
    assert!(screen.contains("✗ TodoWrite"), "{screen}");
    assert!(
        screen.contains("No such tool available: TodoWrite"),
        "{screen}"
    );
    assert!(!screen.contains("tool_use_error"), "{screen}");
    assert!(!screen.contains("ghost task"), "{screen}");
    assert!(!screen.contains("Haunting"), "{screen}");
    assert!(!screen.contains("tasks 0/1"), "{screen}");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
}
