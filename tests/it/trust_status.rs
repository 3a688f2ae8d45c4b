//! Trust round three: regression tests (filled in by the work on issue 29/30).
//!
//! The chat's `statusLine` command (issue 29, items 4 and 5): what it
//! leaves behind neither freezes the chat nor survives it, output past the
//! bound shows its first lines, colors are kept on the whole line and
//! nothing else gets through, and `disableAllHooks` stops it.

use crate::common;

use common::term::Term;
use common::*;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::time::Duration;

/// The chat on a pty, with the fake CLI playing one turn, and Claude Code
/// settings (the user's) of `settings`; it runs in its own folder, which
/// the status line command starts in.
fn chat(fake: &Fake, settings: Value) -> (Term, PathBuf) {
    let home = fake.record.path().join("home");
    let work = fake.record.path().join("work");
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::create_dir_all(&work).unwrap();
    std::fs::write(home.join(".claude/settings.json"), settings.to_string()).unwrap();
    let mut c = claudio(fake);
    c.env("XDG_DATA_HOME", &home)
        .env("HOME", &home)
        .env_remove("CLAUDE_CONFIG_DIR")
        .current_dir(&work);
    let t = Term::spawn(c);
    t.wait_for("Ctrl-D exits");
    (t, work)
}

fn one_turn() -> Fake {
    Fake::after_init(vec![turn("hello", "Hi there.")])
}

fn status_line(command: &str) -> Value {
    json!({"statusLine": {"type": "command", "command": command}})
}

fn bye(mut t: Term) {
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0), "Ctrl-D did not end the chat");
}

#[test]
fn a_status_line_command_leaving_a_child_behind_neither_freezes_the_chat_nor_survives() {
    let fake = one_turn();
    // the child holds the command's output open for 300 s
    let (mut t, work) = chat(
        &fake,
        status_line("sleep 300 & echo $! > bg.pid; echo status-ok"),
    );
    t.line("hello");
    t.wait_for("status-ok");
    // the chat answers: Ctrl-D at the prompt ends it
    bye(t);
    let pid: i32 = std::fs::read_to_string(work.join("bg.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(
        gone_within(pid, Duration::from_secs(20)),
        "the status line's sleep survived"
    );
}

#[test]
fn a_status_line_command_s_output_past_the_bound_shows_its_first_three_lines() {
    let fake = one_turn();
    let (mut t, _work) = chat(&fake, status_line("yes status-more"));
    t.line("hello");
    let screen = t.wait_for_n("status-more", 3);
    t.wait_prompt();
    let screen = format!("{screen}{}", t.contents());
    assert!(!screen.contains("ended with"), "{screen}");
    assert_eq!(t.contents().matches("status-more").count(), 3, "{screen}");
    bye(t);
}

#[test]
fn a_status_line_keeps_its_colors_past_other_sequences_and_nothing_else() {
    let fake = one_turn();
    let cmd = r#"printf '\033[31mstatus-red\033[2J \033]0;evil-title\007\033[32mstatus-green\033[0m \033]52;c;ZXZpbA==\007\033[5Aend\n'"#;
    let (mut t, _work) = chat(&fake, status_line(cmd));
    t.line("hello");
    t.wait_for("status-red status-green end");
    t.wait_prompt();
    let raw = t.raw();
    // the line as written: its colors and its text, nothing between
    assert!(
        raw.contains("\x1b[31mstatus-red \x1b[32mstatus-green\x1b[0m end\x1b[0m"),
        "the color after the removed sequence was lost: {raw:?}"
    );
    for bad in ["evil-title", "ZXZpbA"] {
        assert!(!raw.contains(bad), "{bad:?} got through: {raw:?}");
    }
    bye(t);
}

#[test]
fn disable_all_hooks_stops_the_status_line_command() {
    let fake = one_turn();
    let mut settings = status_line("touch ran; echo status-ran");
    settings["disableAllHooks"] = json!(true);
    let (mut t, work) = chat(&fake, settings);
    t.line("hello");
    t.wait_for("1 API call");
    // the command runs (or not) before the next prompt is shown
    t.wait_prompt();
    let screen = t.contents();
    assert!(!screen.contains("status-ran"), "{screen}");
    bye(t);
    assert!(!work.join("ran").exists(), "the command ran");
}

/// The chat in `work`, whose own `.claude/settings.json` (a repository's,
/// written by its author) defines a status line command; `trust` is what
/// `~/.claude.json` records of the folder, as the claude TUI writes it.
fn chat_in_a_project(fake: &Fake, trust: Option<bool>, turns: usize) -> (Term, PathBuf) {
    let home = fake.record.path().join("home");
    let work = fake.record.path().join("work");
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::create_dir_all(work.join(".claude")).unwrap();
    std::fs::write(
        work.join(".claude/settings.json"),
        status_line("touch ran; echo status-ran").to_string(),
    )
    .unwrap();
    if let Some(accepted) = trust {
        // the folder as the chat's getcwd names it
        let key = std::fs::canonicalize(&work).unwrap();
        let state =
            json!({"projects": {key.to_str().unwrap(): {"hasTrustDialogAccepted": accepted}}});
        std::fs::write(home.join(".claude.json"), state.to_string()).unwrap();
    }
    let mut c = claudio(fake);
    c.env("XDG_DATA_HOME", &home)
        .env("HOME", &home)
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CLAUDE_CODE_SANDBOXED")
        .env_remove("CLAUDE_CODE_IGNORE_PERSISTED_TRUST")
        .current_dir(&work);
    let mut t = Term::spawn(c);
    t.wait_for("Ctrl-D exits");
    if trust != Some(true) {
        // not trusted: the chat asks first, and here is told no
        t.wait_for("y trust it");
        t.line("n");
    }
    for (i, answer) in ["Hi.", "Hi again."].iter().take(turns).enumerate() {
        t.line(&format!("hello {i}"));
        t.wait_for(answer);
        // the command runs (or not) before the next prompt is shown
        t.wait_prompt();
    }
    (t, work)
}

#[test]
fn a_cloned_project_s_status_line_command_waits_for_the_person_s_trust() {
    let two = || Fake::after_init(vec![turn("hello 0", "Hi."), turn("hello 1", "Hi again.")]);
    // never opened in the claude TUI, or not trusted there, and not
    // trusted when asked: not run, and one message says what was left out
    // (the CLI's project settings and the status line are one check)
    for trust in [None, Some(false)] {
        let fake = two();
        let (t, work) = chat_in_a_project(&fake, trust, 2);
        let screen = t.contents();
        assert!(!screen.contains("status-ran"), "{screen}");
        assert_eq!(
            screen
                .matches(
                    "this folder is not trusted: its project settings were not loaded (statusLine)"
                )
                .count(),
            1,
            "{screen}"
        );
        assert!(!screen.contains("is not run"), "a second message: {screen}");
        bye(t);
        assert!(!work.join("ran").exists(), "the project's command ran");
        assert!(
            fake.argv().contains(&"--setting-sources=user".to_owned()),
            "{:?}",
            fake.argv()
        );
    }
    // trusted in the claude TUI: it runs as there
    let fake = two();
    let (t, work) = chat_in_a_project(&fake, Some(true), 1);
    t.wait_for("status-ran");
    bye(t);
    assert!(work.join("ran").exists());
}
