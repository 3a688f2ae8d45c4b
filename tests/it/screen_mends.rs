//! Screens after the first hour, round two (issue 40 item 7): the
//! permission mode at 80 columns, and the prompt line after a resize, a
//! queued prompt and Ctrl-C; on a pseudo-terminal, against the fake CLI.

use crate::common;

use common::term::Term;
use common::*;
use serde_json::json;
use std::time::{Duration, Instant};

/// The chat on a terminal `rows` × `cols`, in `cwd`.
fn chat_in(fake: &Fake, cwd: &std::path::Path, rows: u16, cols: u16, args: &[&str]) -> Term {
    let mut c = claudio(fake);
    let home = fake.record.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    c.env("XDG_DATA_HOME", &home)
        .env("HOME", &home)
        .current_dir(cwd)
        .args(args);
    let t = Term::spawn_sized(c, rows, cols);
    t.wait_for("Ctrl-D exits");
    t
}

/// Wait (20 s at most) until `ok` holds of the screen's rows.
fn until_rows(t: &Term, what: &str, ok: impl Fn(&[String]) -> bool) -> Vec<String> {
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let rows = t.rows();
        if ok(&rows) {
            return rows;
        }
        assert!(Instant::now() < until, "{what}: {rows:#?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

const MODEL: &str = "claude-opus-4-5-20251101-with-a-long-suffix";
const BRANCH: &str = "feature/a-branch-name-long-enough-to-crowd-the-row";

/// A turn of many calls and a large cost, in `mode`.
fn costly_turn(mode: &str) -> Vec<Step> {
    vec![
        expect_user("go"),
        Step::Emit(
            json!({"type":"system","subtype":"init","session_id":"sess-1","model":MODEL,"cwd":"/tmp","tools":["Bash"],"permissionMode":mode,"mcp_servers":[]}),
        ),
        delta("done\n"),
        assistant_text("done\n"),
    ]
    .into_iter()
    // 123 responses: the call count takes its widest usual room
    .chain((0..122).map(|i| message_start(&format!("msg_s{i}"))))
    .chain([
        Step::Emit(
            json!({"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"sess-1","num_turns":123,"duration_ms":4_567_890,"total_cost_usd":1234.5678,"terminal_reason":"completed"}),
        ),
    ])
    .collect()
}

/// At 80 columns, with a long model name, a long branch and a four-digit
/// cost, a mode other than the default stays on the end-of-turn line
/// (whole, on one row) and on the prompt: it is the last thing left out
/// (#40.7).
#[test]
fn at_80_columns_the_permission_mode_stays_on_the_status_lines() {
    for mode in [
        "plan",
        "acceptEdits",
        "bypassPermissions",
        "auto",
        "dontAsk",
    ] {
        let fake = Fake::after_init(vec![costly_turn(mode)]);
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        std::fs::write(
            dir.path().join(".git/HEAD"),
            format!("ref: refs/heads/{BRANCH}\n"),
        )
        .unwrap();
        let mut t = chat_in(&fake, dir.path(), 30, 80, &["--model", MODEL]);
        t.line("go");
        let rows = until_rows(&t, mode, |rows| {
            rows.iter().any(|r| r.contains("API calls")) && rows.last_non_empty().ends_with('›')
        });
        let end: Vec<&String> = rows
            .iter()
            .skip_while(|r| !r.contains("── 123 API calls"))
            .take_while(|r| !r.contains('›'))
            .filter(|r| !r.is_empty())
            .collect();
        assert!(
            end.iter().any(|r| r.split(' ').any(|w| w == mode)),
            "{mode}: the end-of-turn line lost the mode: {rows:#?}"
        );
        for r in &end {
            assert!(r.chars().count() <= 80, "{r:?}");
        }
        let prompt = rows.last_non_empty();
        assert!(
            prompt.contains(&format!("{mode} ›")),
            "{mode}: the prompt lost the mode: {rows:#?}"
        );
        t.ctrl_d();
        assert_eq!(t.wait(20).code(), Some(0));
    }
}

trait LastRow {
    fn last_non_empty(&self) -> &str;
}

impl LastRow for [String] {
    fn last_non_empty(&self) -> &str {
        self.iter()
            .rev()
            .find(|r| !r.trim().is_empty())
            .map_or("", |r| r.as_str())
    }
}

impl LastRow for Vec<String> {
    fn last_non_empty(&self) -> &str {
        self.as_slice().last_non_empty()
    }
}

/// An answer streamed slowly, sentence by sentence, until it is
/// interrupted in sentence `last`; then the CLI ends the turn as it ends
/// an interrupted one (the rest of the word it was writing still comes).
/// After each sentence of `gates`, the answer waits for its file: the test
/// writes it once it has done what it does there (a definite point; no
/// guess of how long the test takes).
fn slow_interrupted_turn(prompt: &str, last: u32, gates: &[(u32, &std::path::Path)]) -> Vec<Step> {
    let mut steps = vec![expect_user(prompt), system_init()];
    // cut inside words, with a long pause inside one: a word's part is
    // shown, the live region hangs under the half-written row
    for i in 1..=last {
        for (piece, ms) in [
            ("Sentence num".to_owned(), 20),
            (format!("ber {i} expl"), 400),
            ("ains a lit".to_owned(), 20),
            ("tle more. ".to_owned(), 20),
        ] {
            steps.push(delta(&piece));
            if i == last && ms == 400 {
                // the interrupt comes in the middle of a word
                break;
            }
            steps.push(Step::SleepMs(ms));
        }
        if let Some((_, gate)) = gates.iter().find(|(after, _)| *after == i) {
            steps.push(Step::WaitFile(gate.to_path_buf()));
        }
    }
    steps.extend([
        Step::expect_as(
            json!({"type":"control_request","request":{"subtype":"interrupt"}}),
            "i",
        ),
        // the rest of the word, written before the CLI saw the interrupt
        delta("ains a lit"),
        delta("tle more. "),
        Step::Emit(
            json!({"type":"control_response","response":{"subtype":"success","request_id":"{{i}}","response":{}}}),
        ),
        Step::Emit(
            json!({"type":"result","subtype":"error_during_execution","is_error":true,"session_id":"sess-1","num_turns":1,"terminal_reason":"aborted_streaming"}),
        ),
    ]);
    steps
}

/// Every row of the answer is whole sentences' words, one space apart,
/// within the width; only the answer's last word may be cut (where the
/// interrupt stopped it).
fn assert_clean(rows: &[String], cols: usize) {
    let last = rows
        .iter()
        .rposition(|r| r.contains("Sentence") || r.contains("explains") || r.contains("little"));
    for (i, r) in rows.iter().enumerate() {
        assert!(r.chars().count() <= cols, "{r:?} in {rows:#?}");
        if r.contains("Sentence") || r.contains("explains") || r.contains("little") {
            let body = r.trim_start();
            assert!(!body.contains("  "), "a gap in {r:?}: {rows:#?}");
            let words: Vec<&str> = body.split(' ').collect();
            let whole = if Some(i) == last {
                &words[..words.len() - 1]
            } else {
                &words[..]
            };
            for w in whole {
                let w = w.trim_end_matches('.');
                assert!(
                    ["Sentence", "number", "explains", "a", "little", "more", ""].contains(&w)
                        || w.parse::<u32>().is_ok(),
                    "a fragment {w:?} in {r:?}: {rows:#?}"
                );
            }
        }
    }
}

/// A prompt queued while Claude works, a resize, then Ctrl-C: the queued
/// prompt comes back on a clean prompt line, and no row holds a fragment
/// of another (#40.7: `Sentence number 9 explains     more` was seen).
fn resize_queue_interrupt(from: u16, to: u16) {
    let gates = tempfile::tempdir().unwrap();
    let (queued, resized) = (gates.path().join("queued"), gates.path().join("resized"));
    let fake = Fake::after_init(vec![
        slow_interrupted_turn("long task", 8, &[(3, &queued), (6, &resized)]),
        turn("queued prompt", "fine"),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let mut t = chat_in(&fake, dir.path(), 40, from, &[]);
    t.line("long task");
    t.wait_for(" 3 explains");
    t.line("queued prompt");
    t.wait_for("· queued");
    std::fs::write(&queued, "").unwrap();
    t.wait_for(" 6 expl");
    t.resize(40, to);
    std::fs::write(&resized, "").unwrap();
    t.wait_for(" 8 expl");
    t.ctrl_c();
    t.wait_for("⏹ interrupted");
    let rows = until_rows(&t, "the queued prompt back", |rows| {
        rows.last_non_empty().ends_with("› queued prompt")
    });
    // (the rows written before the resize are the test terminal's: it
    // cuts them to the new width)
    let after = rows.iter().position(|r| r.contains("number 7")).unwrap() + 1;
    assert_clean(&rows[after..], to as usize);
    // the answer stops where it was interrupted: its notes are not split
    // from the rest of a word
    let notes = rows
        .iter()
        .position(|r| r.contains("interrupting…"))
        .unwrap();
    assert!(
        rows[notes..]
            .iter()
            .all(|r| !r.contains("Sentence") && !r.contains("ains")),
        "{rows:#?}"
    );
    let prompt = rows
        .iter()
        .rposition(|r| r.ends_with("› queued prompt"))
        .unwrap();
    assert_eq!(rows[prompt].trim_start(), "› queued prompt", "{rows:#?}");
    assert_eq!(
        rows.iter()
            .filter(|r| r.contains("› queued prompt"))
            .count(),
        1,
        "{rows:#?}"
    );
    t.send(b"\r");
    t.wait_for("fine");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    assert_eq!(fake.user_lines().len(), 2);
}

#[test]
fn a_resize_wider_a_queued_prompt_and_ctrl_c_leave_a_clean_prompt_line() {
    resize_queue_interrupt(70, 100);
}

#[test]
fn a_resize_narrower_a_queued_prompt_and_ctrl_c_leave_a_clean_prompt_line() {
    resize_queue_interrupt(100, 70);
}
