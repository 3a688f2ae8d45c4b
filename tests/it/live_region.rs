//! The chat's live region on a real terminal (a pty, the fake CLI): it
//! stays within the screen, folding what does not fit, and every call that
//! ends reaches the scrollback once.

use crate::common;

use common::term::Term;
use common::*;
use serde_json::json;

/// Everything the terminal holds after `raw` was written to it (`rows` ×
/// `cols`): its scrollback, oldest first, then its screen, row by row.
/// (vt100 shows at most a screen of scrollback at a time: `raw` goes in
/// small pieces, and the rows each one scrolled off are read after it.)
fn scrollback_and_screen(raw: &[u8], rows: u16, cols: u16) -> Vec<String> {
    let mut p = vt100::Parser::new(rows, cols, 1_000_000);
    let mut all = Vec::new();
    let mut seen = 0;
    for piece in raw.chunks(16) {
        p.process(piece);
        p.set_scrollback(usize::MAX);
        let kept = p.screen().scrollback();
        let new = kept - seen;
        assert!(new <= usize::from(rows), "{new} rows scrolled off at once");
        p.set_scrollback(new);
        all.extend(
            p.screen()
                .rows(0, cols)
                .take(new)
                .map(|r| r.trim_end().to_owned()),
        );
        seen = kept;
        p.set_scrollback(0);
    }
    all.extend(p.screen().rows(0, cols).map(|r| r.trim_end().to_owned()));
    all
}

fn started(i: usize) -> Step {
    assistant_tool_use(
        &format!("toolu_{i}"),
        "Bash",
        json!({ "command": format!("echo {i}") }),
    )
}

fn ended(i: usize) -> Step {
    Step::Emit(json!({"type":"user","message":{"role":"user","content":[
        {"type":"tool_result","tool_use_id":format!("toolu_{i}"),"content":format!("{i}")}]},
        "parent_tool_use_id":null,"session_id":"sess-1"}))
}

/// 60 calls running at once on an 80×24 terminal: the region shows what
/// fits and folds the rest ("… N more running"), never taller than the
/// screen; when they end, each call's line is in the scrollback once, and
/// no spinner row is left anywhere. Before, the region was drawn 60 rows
/// tall: each redraw moved up past the top of the screen, the scrollback
/// filled with partial copies of it, and rows "echo 37" to "echo 59" were
/// never seen.
#[test]
fn sixty_calls_on_an_80x24_terminal_fold_and_each_ends_in_the_scrollback_once() {
    let n = 60;
    let mut turn = vec![expect_user("run them"), system_init()];
    turn.extend((0..n).map(started));
    // the calls run until the test has seen the region drawn with all of
    // them
    let gate = tempfile::tempdir().unwrap();
    let seen = gate.path().join("seen");
    turn.push(Step::WaitFile(seen.clone()));
    turn.extend((0..n).map(ended));
    turn.push(result("done"));
    let fake = Fake::after_init(vec![turn]);
    let mut c = claudio(&fake);
    let home = fake.record.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    c.env("XDG_DATA_HOME", &home).env("HOME", &home);
    let (rows, cols) = (24, 80);
    let mut t = Term::spawn_sized(c, rows, cols);
    t.wait_for("Ctrl-D exits");
    t.line("run them");
    // all 60 running: 9 drawn, and a row that counts the rest (10 rows
    // of calls at most)
    t.wait_for(&format!("… {} more running", n - 9));
    // (the region may be drawn in more than one write: awaited whole)
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let screen = t.contents();
        if screen.matches("Bash  echo").count() == 9 {
            break;
        }
        assert!(
            std::time::Instant::now() < until,
            "not 9 calls drawn: {screen}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(t.rows().len() <= usize::from(rows));
    std::fs::write(&seen, "").unwrap();
    t.wait_for("1 API call");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    let all = scrollback_and_screen(t.raw().as_bytes(), rows, cols);
    let text = all.join("\n");
    for i in 0..n {
        let done = format!("✓ Bash  echo {i}  ");
        let seen = all.iter().filter(|r| r.contains(&done)).count();
        assert_eq!(seen, 1, "the line of call {i} ×{seen}:\n{text}");
    }
    let spinners = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
    assert!(
        !all.iter().any(|r| r.contains(spinners)),
        "a spinner row was left behind:\n{text}"
    );
    assert!(!text.contains("more running"), "{text}");
}

/// The chat's peak memory (VmHWM), in bytes.
fn peak_rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// 1,000 calls in one message, on a real terminal: the chat writes at
/// most 2 MB and stays within 60 MB (it wrote 117 MB, and grew to 130 MB,
/// before).
#[test]
fn a_thousand_calls_write_at_most_2_mb_in_at_most_60_mb() {
    let n = 1000;
    let mut turn = vec![expect_user("run them"), system_init()];
    turn.extend((0..n).map(started));
    turn.extend((0..n).map(ended));
    turn.push(result("done"));
    let fake = Fake::after_init(vec![turn]);
    let mut c = claudio(&fake);
    let home = fake.record.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    c.env("XDG_DATA_HOME", &home).env("HOME", &home);
    let mut t = Term::spawn_sized(c, 24, 80);
    t.wait_for("Ctrl-D exits");
    let before = t.raw().len();
    t.line("run them");
    t.wait_for("1 API call");
    let written = t.raw().len() - before;
    let pid = t.child().id();
    let peak = peak_rss(pid);
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
    assert!(written <= 2_000_000, "1,000 calls wrote {written} bytes");
    if peak == 0 {
        eprintln!("SKIPPED: no /proc/{pid}/status, the chat's memory is not checked");
    } else {
        assert!(peak <= 60 << 20, "the chat grew to {peak} bytes");
    }
}
