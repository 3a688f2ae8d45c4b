//! Whole screens of the chat through a real terminal: the program under a
//! pseudo-terminal, its screen drawn on a virtual terminal (vt100) and
//! compared, row by row and column by column, with the screen kept in
//! `tests/it/screens/NAME.COLS.txt`.
//!
//! What the chat draws, every dialog and state at 40, 80 and 160 columns,
//! is checked in-process against the same kept files
//! (`src/cli/commands/chat/screens.rs`: the chat's machine and renderer
//! drawing on a virtual terminal, with keys sent to it). Here are the
//! screens that depend on the terminal layer: the keys as the terminal
//! sends them, read by crossterm in the chat's raw and character modes
//! (arrows and space in a picker, a prompt typed while the terminal's
//! signals are on), crossterm's own raw mode for the session finder, the
//! size asked of the tty, and a resize (SIGWINCH) at the prompt. Each is
//! a screen the in-process tests check too: a difference between the two
//! is the terminal layer's.
//!
//! The comparison is `tests/support/screens.rs`, shared with the
//! in-process tests. `CLAUDIO_UPDATE_SCREENS=1` writes the files anew; a
//! failure shows every row, the differing ones as `-` (kept) and `+`
//! (drawn). The test waits until the screen is the kept one (a definite
//! point, not a time of quiet), 30 s at most, and then shows the last one
//! drawn. Only `CLAUDIO_UPDATE_SCREENS=1`, with no kept screen to wait
//! for, takes one once it has stopped changing. Paths are the same on
//! every run: the chat runs in `~/proj` of a home of its own.

use crate::common;

use common::term::Term;
use common::*;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

const ROWS: u16 = 30;

// ---- the comparison --------------------------------------------------------

#[path = "../support/screens.rs"]
mod compare;
use compare::{diff, kept};

/// The screen as it is kept ([`compare::shot`]).
fn shot(t: &Term) -> String {
    compare::shot(&t.rows(), t.size())
}

/// Wait until the screen shows `needle` and has not changed for a while
/// (a spinner never stops: a screen with one never settles).
fn settle(t: &Term, needle: &str) -> String {
    let until = Instant::now() + Duration::from_secs(30);
    let mut last = shot(t);
    let mut since = Instant::now();
    loop {
        std::thread::sleep(Duration::from_millis(50));
        let now = shot(t);
        if now != last {
            last = now;
            since = Instant::now();
        } else if last.contains(needle) && since.elapsed() > Duration::from_millis(600) {
            return last;
        }
        if Instant::now() > until {
            let raw = t.raw();
            let tail: String = raw
                .chars()
                .rev()
                .take(800)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            panic!("the screen never settled showing {needle:?}:\n{last}\nlast bytes written: {tail:?}");
        }
    }
}

/// Wait until the screen is the kept one (30 s at most); else fail with
/// the last one drawn, row by row against the kept one. With
/// `CLAUDIO_UPDATE_SCREENS=1`, keep the screen once it shows `needle` and
/// has settled.
fn check(t: &Term, name: &str, needle: &str) {
    let (_, cols) = t.size();
    let path = kept(name, cols);
    if std::env::var_os("CLAUDIO_UPDATE_SCREENS").is_some_and(|v| v == "1") {
        let drawn = settle(t, needle);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &drawn).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; CLAUDIO_UPDATE_SCREENS=1 writes it. Drawn:\n{}",
            path.display(),
            shot(t)
        )
    });
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        let drawn = shot(t);
        if drawn == want {
            return;
        }
        if Instant::now() > until {
            panic!(
                "the screen differs from {} (- kept, + drawn; CLAUDIO_UPDATE_SCREENS=1 keeps the drawn one):\n{}",
                path.display(),
                diff(&want, &drawn)
            );
        }
        // a poll, not a wait for quiet: the screen is compared as it comes
        std::thread::sleep(Duration::from_millis(20));
    }
}

// ---- the chat on a terminal of a given width --------------------------------

/// The chat at `cols` × [`ROWS`], in `~/proj` of its own home (so the
/// header names the same folder on every run), clock in UTC.
fn chat(fake: &Fake, cols: u16) -> Term {
    chat_sized(fake, ROWS, cols)
}

fn chat_sized(fake: &Fake, rows: u16, cols: u16) -> Term {
    chat_with(fake, rows, cols, &[])
}

/// [`chat_sized`], claudio given `args`.
fn chat_with(fake: &Fake, rows: u16, cols: u16, args: &[&str]) -> Term {
    let home = fake.record.path().join("home");
    let proj = home.join("proj");
    std::fs::create_dir_all(&proj).unwrap();
    let mut c = claudio(fake);
    c.args(args);
    c.env("XDG_DATA_HOME", &home)
        .env("HOME", &home)
        .env_remove("CLAUDE_CONFIG_DIR")
        .env("TZ", "UTC")
        .current_dir(&proj);
    let t = Term::spawn_sized(c, rows, cols);
    t.wait_for("Ctrl-D exits");
    // typed before the line editor reads, a line would be echoed twice
    t.wait_prompt();
    t
}

fn bye(mut t: Term) {
    t.ctrl_d();
    assert_eq!(t.wait(30).code(), Some(0));
}

fn db_question(multi: bool) -> Value {
    json!([{"question":"Which database should we use for the session store, given that it must run on a laptop?","header":"Database","multiSelect":multi,
        "options":[{"label":"SQLite","description":"one file, no server"},
                   {"label":"Postgres","description":"a server, more features"},
                   {"label":"Redis","description":"in memory"}]}])
}

// ---- the screens that depend on the terminal layer ------------------------

/// A picker's keys as the terminal sends them (arrows as escape
/// sequences, space, Enter), read in the chat's raw mode.
#[test]
fn question_multi_keys_from_the_tty() {
    question_multi(80)
}

fn question_multi(cols: u16) {
    let q = db_question(true);
    let mut script = vec![expect_user("pick dbs")];
    script.extend(ask_question("q1", q));
    script.push(Step::expect(json!({"type":"control_response"})));
    script.extend([assistant_text("Both, then."), result("Both, then.")]);
    let fake = Fake::after_init(vec![script]);
    let mut t = chat(&fake, cols);
    t.line("pick dbs");
    t.wait_for("space toggles");
    t.send(b" ");
    t.send(b"\x1b[B");
    t.send(b"\x1b[B");
    t.send(b" ");
    check(&t, "question_multi", "[x] 3. Redis");
    t.send(b"\r");
    check(&t, "question_multi_answered", "2 API calls");
    bye(t);
}

/// The session finder in crossterm's raw mode, its keys (Tab, Esc) read
/// through the chat's one reader of the tty.
#[test]
fn resume_filtered_on_the_tty() {
    resume_filtered(80)
}

/// A uuid-shaped session id (what the store looks sessions up by).
const SESSION: &str = "5c0e3e11-0000-4000-8000-000000000001";

fn session_init() -> Step {
    Step::Emit(
        json!({"type":"system","subtype":"init","session_id":SESSION,"model":"fake-model","cwd":"/tmp","tools":["Bash"],"permissionMode":"default","mcp_servers":[]}),
    )
}

/// A transcript of `prompts` (each answered) as session `id`
/// ([`compare::transcript`]).
fn transcript(fake: &Fake, id: &str, prompts: &[(&str, &str)]) {
    compare::transcript(fake.record.path(), id, prompts)
}

/// The session finder as it is used: a fuzzy filter typed, then Tab to
/// search inside the conversations; the keys line says what each key does
/// in each state.
fn resume_filtered(cols: u16) {
    let fake = Fake::after_init(vec![]);
    transcript(
        &fake,
        "11111111-2222-4333-8444-555555555555",
        &[(
            "remember the word teapot, and keep it for the next session we have",
            "Noted: teapot.",
        )],
    );
    transcript(
        &fake,
        "66666666-7777-4888-8999-000000000000",
        &[("what is 2+2", "4")],
    );
    let mut t = chat(&fake, cols);
    t.line("/resume");
    t.wait_for("Resume a session");
    t.send(b"rmb tpot");
    check(&t, "resume_filtered", "filter › rmb tpot");
    t.send(b"\t");
    // the search runs once the typing pauses (no Enter): its answer
    check(&t, "resume_search", "no session matches");
    t.send(b"\x1b");
    check(&t, "resume_cancelled", "nothing resumed");
    bye(t);
}

/// Once after a resize: the chat starts at 160 columns and is narrowed to
/// 40 at the prompt; the question that follows is drawn at 40.
#[test]
fn after_a_resize() {
    let q = db_question(true);
    let mut script = vec![expect_user("pick dbs")];
    script.extend(ask_question("q1", q));
    script.push(Step::expect(json!({"type":"control_response"})));
    script.extend([assistant_text("Both, then."), result("Both, then.")]);
    let fake = Fake::after_init(vec![script]);
    let mut t = chat(&fake, 160);
    t.wait_prompt();
    // a key shown back: the chat's key reader is at work, and with it the
    // handler that hears a resize (a resize sent before it is lost)
    t.send(b"x");
    t.wait_for("› x");
    t.send(b"\x7f");
    t.wait_prompt();
    let drawn = t.raw().len();
    t.resize(ROWS, 40);
    // the screen as it was, cut at the new width; the next drawing fits
    // it: the line editor, told of the new width, draws its prompt again
    let until = Instant::now() + Duration::from_secs(30);
    while t.raw().len() == drawn {
        assert!(
            Instant::now() < until,
            "the prompt was never drawn again after the resize"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    t.line("pick dbs");
    t.wait_for("Which database");
    t.send(b"1");
    check(&t, "after_a_resize", "[x] 1. SQLite");
    t.send(b"\r");
    check(&t, "after_a_resize_answered", "2 API calls");
    bye(t);
}

/// A prompt typed while Claude works, with the terminal's signals on
/// (the chat's character mode), shown under the status line.
#[test]
fn streaming_pause_typed_on_the_tty() {
    streaming_pause(80)
}

fn stream_event(event: Value) -> Step {
    Step::Emit(
        json!({"type":"stream_event","event":event,"parent_tool_use_id":null,"session_id":SESSION}),
    )
}

/// `text` in deltas of seven characters (words cut anywhere), as block `index`.
fn streamed_block(index: usize, kind: &str, text: &str) -> Vec<Step> {
    let (start, delta, field) = match kind {
        "thinking" => (
            json!({"type":"thinking","thinking":""}),
            "thinking_delta",
            "thinking",
        ),
        _ => (json!({"type":"text","text":""}), "text_delta", "text"),
    };
    let mut steps = vec![stream_event(
        json!({"type":"content_block_start","index":index,"content_block":start}),
    )];
    let chars: Vec<char> = text.chars().collect();
    for piece in chars.chunks(7) {
        let piece: String = piece.iter().collect();
        steps.push(stream_event(
            json!({"type":"content_block_delta","index":index,"delta":{"type":delta, field: piece}}),
        ));
    }
    steps.push(stream_event(
        json!({"type":"content_block_stop","index":index}),
    ));
    steps
}

/// The answer stops mid-line for seconds: the status line shows under the
/// half-written row (spinner, time, the interrupt key), and a prompt typed
/// meanwhile shows, dimmed, under it. At the end neither is left.
fn streaming_pause(cols: u16) {
    let mut script = vec![
        expect_user("explain the store"),
        session_init(),
        stream_event(
            json!({"type":"message_start","message":{"id":"msg_s","model":"fake-model","role":"assistant","content":[]}}),
        ),
    ];
    let first = "The store keeps every session in one SQLite file; the";
    let rest = " index is rebuilt when the file is newer than it.";
    script.extend(
        streamed_block(0, "text", first)
            .into_iter()
            .take(1 + first.len().div_ceil(7)),
    );
    // the answer waits until the test has seen the pause's screens
    let dir = tempfile::tempdir().unwrap();
    let go = dir.path().join("go");
    script.push(Step::WaitFile(go.clone()));
    script.push(stream_event(
        json!({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":rest}}),
    ));
    script.push(stream_event(json!({"type":"content_block_stop","index":0})));
    let text = format!("{first}{rest}");
    script.push(Step::Emit(json!({"type":"assistant","message":{"id":"msg_s","model":"fake-model","role":"assistant","content":[{"type":"text","text":text}]},"parent_tool_use_id":null,"session_id":SESSION})));
    script.push(Step::Emit(json!({"type":"result","subtype":"success","is_error":false,"result":text,"session_id":SESSION,"num_turns":1,"duration_ms":5,"total_cost_usd":0.001})));
    let fake = Fake::after_init(vec![script, turn("and the index?", "It is rebuilt.")]);
    let mut t = chat(&fake, cols);
    t.line("explain the store");
    check(&t, "streaming_pause", "Ctrl-C");
    t.send(b"and the index?\r");
    check(&t, "streaming_pause_queued", "› and the index?");
    std::fs::write(&go, "").unwrap();
    check(&t, "streaming_pause_done", "It is rebuilt.");
    bye(t);
}
