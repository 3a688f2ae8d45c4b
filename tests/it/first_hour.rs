//! What a new user meets (issue 33): small things said plainly.

use crate::common::{run, stderr};

/// `claudio -c < /dev/null` (a script, a cron job) has no terminal to chat
/// on and no prompt: it says so in the chat's terms, not `ask`'s.
#[test]
fn the_chat_without_a_terminal_or_a_prompt_says_what_to_do() {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_claudio"));
    c.arg("-c").env("CLAUDIO_CLI", "/nonexistent/claude");
    let o = run(c, Some(b""));
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("the chat needs a terminal"), "{e}");
    assert!(!e.contains("ask needs a prompt"), "{e}");
    // `claudio ask` with nothing keeps its own words
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_claudio"));
    c.arg("ask").env("CLAUDIO_CLI", "/nonexistent/claude");
    let o = run(c, Some(b""));
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("ask needs a prompt"), "{}", stderr(&o));
}

/// Not logged in: `ask` says how to log in (the CLI's "run /login" names a
/// command only its own TUI has).
#[test]
fn ask_not_logged_in_says_how_to_log_in() {
    use crate::common::{claudio, expect_user, Fake, Step};
    use serde_json::json;
    let fake = Fake::after_init(vec![vec![
        expect_user("hi"),
        Step::Emit(json!({"type":"result","subtype":"success","is_error":true,
            "result":"Not logged in · Please run /login","session_id":"s","num_turns":1})),
    ]]);
    let mut c = claudio(&fake);
    c.args(["ask", "hi"]);
    let o = run(c, None);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.contains("run `claude` once to log in"), "{e}");
    assert!(!e.contains("/login"), "{e}");
}
