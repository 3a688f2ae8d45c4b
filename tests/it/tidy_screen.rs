//! What stays on the screen: an answered question folds to one line (and
//! is left alone when that could erase what is not its own); Ctrl-G in a
//! history search cancels the search, as readline's does.

use crate::common;

use common::term::Term;
use common::*;
use serde_json::json;
use std::path::PathBuf;

/// A home of its own, with `history` as the line editor's history.
fn home_with_history(fake: &Fake, history: &[&str]) -> PathBuf {
    let home = fake.record.path().join("home");
    let dir = home.join("claudio");
    std::fs::create_dir_all(&dir).unwrap();
    let mut text = String::from("#V2\n");
    for h in history {
        text.push_str(h);
        text.push('\n');
    }
    std::fs::write(dir.join("history"), text).unwrap();
    home
}

/// An "editor" that leaves a mark when it is run.
fn marking_editor(fake: &Fake) -> (PathBuf, PathBuf) {
    let mark = fake.record.path().join("editor-ran");
    let script = fake.record.path().join("editor.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ntouch '{}'\nprintf ' edited' >> \"$1\"\n",
            mark.display()
        ),
    )
    .unwrap();
    std::process::Command::new("chmod")
        .arg("+x")
        .arg(&script)
        .status()
        .unwrap();
    (script, mark)
}

/// The line the prompt is on (the last one with text).
fn prompt_line(t: &Term) -> String {
    t.rows()
        .into_iter()
        .rev()
        .find(|r| !r.trim().is_empty())
        .unwrap_or_default()
}

/// Wait until the prompt's line reads `want` (after the model's name,
/// which the prompt shows once a turn has told it).
fn wait_prompt_line(t: &Term, want: &str) {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !(prompt_line(t) == want || prompt_line(t).ends_with(&format!(" {want}"))) {
        if std::time::Instant::now() > until {
            panic!("the prompt never read {want:?}:\n{}", t.contents());
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[test]
fn ctrl_g_in_a_history_search_cancels_it_and_brings_the_line_back() {
    let fake = Fake::after_init(vec![turn("draft it", "drafted")]);
    let home = home_with_history(&fake, &["write docs and tests", "fix the parser"]);
    let (editor, mark) = marking_editor(&fake);
    let mut c = claudio(&fake);
    c.env("XDG_DATA_HOME", &home)
        .env("HOME", &home)
        .env("VISUAL", &editor)
        .current_dir(&home);
    let mut t = Term::spawn(c);
    t.wait_for("Ctrl-D exits");
    t.wait_prompt();
    t.send(b"draft it");
    t.send(b"\x12"); // Ctrl-R
    t.send(b"docs");
    t.wait_for("(reverse-i-search)`docs': write docs and tests");
    t.send(b"\x07"); // Ctrl-G
    wait_prompt_line(&t, "› draft it");
    assert!(
        !t.contents().contains("reverse-i-search"),
        "{}",
        t.contents()
    );
    // a search that finds nothing is cancelled the same way
    t.send(b"\x12");
    t.send(b"zzz");
    t.wait_for("(failed reverse-i-search)`zzz'");
    t.send(b"\x07");
    wait_prompt_line(&t, "› draft it");
    // the line is the one typed, sent as it is; the editor never ran
    t.send(b"\r");
    t.wait_for("drafted");
    assert!(!mark.exists(), "Ctrl-G in a search opened the editor");
    // out of a search, Ctrl-G still opens the editor
    t.wait_prompt();
    t.send(b"note");
    t.send(b"\x07");
    wait_prompt_line(&t, "› note edited");
    assert!(mark.exists());
    t.send(b"\x15"); // Ctrl-U: the line goes
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    let users = fake.user_lines();
    assert_eq!(users.len(), 1, "{users:?}");
    assert_eq!(users[0]["message"]["content"], "draft it");
}

#[test]
fn esc_in_a_history_search_keeps_the_line_found_with_the_chat_s_prompt() {
    let fake = Fake::after_init(vec![turn("write docs and tests", "written")]);
    let home = home_with_history(&fake, &["write docs and tests"]);
    let mut c = claudio(&fake);
    c.env("XDG_DATA_HOME", &home)
        .env("HOME", &home)
        .current_dir(&home);
    let mut t = Term::spawn(c);
    t.wait_for("Ctrl-D exits");
    t.wait_prompt();
    t.send(b"\x12");
    t.send(b"docs");
    t.wait_for("(reverse-i-search)`docs': write docs and tests");
    t.send(b"\x1b");
    wait_prompt_line(&t, "› write docs and tests");
    t.send(b"\r");
    t.wait_for("written");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
}

fn question(long: bool) -> Vec<Step> {
    let text = if long {
        "Which database should we use for the session store, given that it must run on a laptop with no server at all?"
    } else {
        "Which database should we use?"
    };
    let questions = json!([{"question":text,"header":"Database","multiSelect":false,
        "options":[{"label":"SQLite","description":"one file, no server"},
                   {"label":"Postgres","description":"a server, more features"}]}]);
    steps(vec![
        vec![expect_user("pick a db")],
        ask_question("q1", questions),
        vec![
            Step::expect(json!({"type":"control_response"})),
            assistant_text("Postgres it is."),
            result("Postgres it is."),
        ],
    ])
}

/// The chat at `rows` × `cols`, asked the question (the fake must
/// outlive the chat: it is handed back).
fn asked(rows: u16, cols: u16, long: bool) -> (Fake, Term) {
    let fake = Fake::after_init(vec![question(long)]);
    let mut t = Term::spawn_sized(claudio(&fake), rows, cols);
    t.wait_for("Ctrl-D exits");
    t.wait_prompt();
    t.line("pick a db");
    t.wait_for("esc declines");
    (fake, t)
}

#[test]
fn an_answered_question_folds_to_one_line_at_any_width() {
    for (cols, long) in [(100, false), (30, true)] {
        let (_fake, mut t) = asked(40, cols, long);
        t.send(b"2");
        t.wait_for("Postgres it is.");
        let rows = t.rows();
        let at = rows
            .iter()
            .position(|r| r.starts_with("  ? Database"))
            .unwrap_or_else(|| panic!("{cols}: {rows:#?}"));
        let folded = rows[at..]
            .iter()
            .take_while(|r| !r.is_empty() && !r.contains("Postgres it is."))
            .map(|r| r.trim())
            .collect::<Vec<_>>()
            .join(" ");
        assert_eq!(folded, "? Database — Postgres", "{cols}: {rows:#?}");
        let all = rows.join("\n");
        for gone in ["SQLite", "Which database", "esc declines", "Type your own"] {
            assert!(!all.contains(gone), "{cols}: {gone} stayed:\n{all}");
        }
        // what came before is untouched
        assert!(all.contains("› pick a db"), "{all}");
        t.ctrl_d();
        assert_eq!(t.wait(20).code(), Some(0));
    }
}

#[test]
fn a_question_taller_than_the_screen_is_left_as_it_was() {
    // 30 columns, 10 rows: the question and its options scroll
    let (_fake, mut t) = asked(10, 30, true);
    t.send(b"2");
    t.wait_for("Postgres it is.");
    let all = t.contents();
    assert!(all.contains("✓ Postgres"), "{all}");
    assert!(!all.contains("? Database —"), "{all}");
    // nothing of the answer was erased
    assert!(all.contains("2. Postgres"), "{all}");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
}

/// `sessions` one-exchange transcripts in `home/proj`'s project, each
/// prompt full of `e`s (every one matches a query of `e`s).
fn many_sessions(fake: &Fake, sessions: usize) -> PathBuf {
    let home = fake.record.path().join("home");
    let proj = home.join("proj");
    std::fs::create_dir_all(&proj).unwrap();
    let name: String = proj
        .display()
        .to_string()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let dir = home.join(".claude/projects").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    for s in 0..sessions {
        let id = format!("{s:08}-0000-4000-8000-000000000000");
        let u = json!({"parentUuid":null,"isSidechain":false,"type":"user",
            "message":{"role":"user","content":format!("see every e here e e e e e e e e e {s}")},
            "uuid":"00000000-0000-4000-8000-000000000001","timestamp":"2020-01-02T03:00:00.000Z",
            "cwd":proj,"sessionId":id,"version":"2.1.328"});
        let a = json!({"parentUuid":"00000000-0000-4000-8000-000000000001","isSidechain":false,"type":"assistant",
            "message":{"id":"msg_1","role":"assistant","model":"fake-model","content":[{"type":"text","text":"seen"}]},
            "uuid":"00000000-0000-4000-8000-000000000002","timestamp":"2020-01-02T03:00:00.000Z",
            "cwd":proj,"sessionId":id,"version":"2.1.328"});
        std::fs::write(dir.join(format!("{id}.jsonl")), format!("{u}\n{a}\n")).unwrap();
    }
    home
}

/// A paste of 600 characters into the session finder, then Esc: the keys
/// waiting are filtered for together (not row by row per key, each key
/// against every word typed), so Esc closes the finder within the
/// harness's usual wait.
#[test]
fn esc_after_a_long_paste_into_the_session_finder_closes_it() {
    let fake = Fake::after_init(vec![]);
    let home = many_sessions(&fake, 400);
    let mut c = claudio(&fake);
    c.env("XDG_DATA_HOME", &home)
        .env("HOME", &home)
        .current_dir(home.join("proj"));
    let mut t = Term::spawn(c);
    t.wait_for("Ctrl-D exits");
    t.wait_prompt();
    t.line("/resume");
    t.wait_for("Resume a session");
    t.wait_for("of 400");
    t.send("e ".repeat(300).as_bytes());
    t.send(b"\x1b");
    t.wait_for("nothing resumed");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
}
