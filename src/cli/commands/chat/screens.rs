//! Whole screens of the chat, drawn in-process: the chat's loop, its
//! machine and its renderer run on a thread of the test, drawing on a
//! virtual terminal (`vt100`, through [`console`]'s seam) with keys the
//! test sends ([`Keys::scripted`]), against the fake CLI. Each screen is
//! compared, row by row and column by column, with the SAME kept file the
//! pseudo-terminal tests use (`tests/it/screens/NAME.COLS.txt`, compared
//! by `tests/support/screens.rs`): what the chat draws is checked here in
//! a fraction of the time, and the pseudo-terminal tests
//! (`tests/it/screens.rs`) keep what is the terminal's (its modes, its
//! signals, a resize read from the tty).
//!
//! What the virtual terminal does that a pseudo-terminal's line discipline
//! would: a `\n` written starts its line at the first column (output
//! processing, which the chat's modes keep on). Keys are sent as the bytes
//! a terminal sends, and read as crossterm reads them ([`events`]).
//!
//! Each scenario is one test, its three widths (40, 80, 160 columns) drawn
//! by a chat each, and every width that differs is said.
//!
//! The chat reads its environment (its home, the CLI to start, the fake's
//! script) and its working directory: a test sets them for its chat, under
//! one lock, so two never mix. nextest runs each test in a process of its
//! own; under `cargo test` the lock keeps the chats one at a time, but the
//! other tests of this binary share the process's environment meanwhile.

use super::keys::{Keys, Scripted};
use super::repl::{self, ChatSettings};
use crate::cli::common::exit::Exit;
use crate::cli::term::console;
use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use serde_json::{json, Value};
use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

#[allow(dead_code)]
#[path = "../../../../tests/it/common/steps.rs"]
mod steps;
use steps::*;

#[allow(dead_code)]
#[path = "../../../../tests/support/screens.rs"]
mod compare;

const ROWS: u16 = 30;

/// One scenario at each width, in one test (`NAME::w40_w80_160`): each
/// width is drawn by a chat of its own, and every width that differs from
/// its kept screen is said (a test is a process under nextest: one for
/// the three widths costs a third of three).
macro_rules! at_widths {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[test]
            fn w40_w80_w160() {
                super::at_each_width(stringify!($name), super::$name)
            }
        }
    )*};
}

/// `scenario` at 40, 80 and 160 columns; fails with what failed at each.
/// In a process of its own: under `cargo test`, which runs the tests as
/// threads of one process, it runs itself again as one (a chat sets the
/// process's environment and working directory).
fn at_each_width(name: &str, scenario: fn(u16)) {
    if !own_process() {
        return in_a_process_of_its_own(name);
    }
    let mut failed = Vec::new();
    for cols in [40, 80, 160] {
        let run = std::panic::catch_unwind(|| scenario(cols));
        if let Err(e) = run {
            let why = e
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| e.downcast_ref::<&str>().copied())
                .unwrap_or("a panic");
            failed.push(format!("{name} at {cols} columns: {why}"));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}

/// Set in a test run again in a process of its own.
const ALONE: &str = "CLAUDIO_SCREENS_ALONE";

/// Whether this test has the process to itself: nextest runs each test in
/// a process of its own, and so does [`in_a_process_of_its_own`].
fn own_process() -> bool {
    std::env::var_os(ALONE).is_some()
        || std::env::var("NEXTEST_EXECUTION_MODE").is_ok_and(|m| m == "process-per-test")
}

/// The test of scenario `name`, run by this test binary in a child
/// process; fails with its output when it fails.
fn in_a_process_of_its_own(name: &str) {
    let test = format!("cli::commands::chat::screens::{name}::w40_w80_w160");
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([test.as_str(), "--exact", "--test-threads=1", "--nocapture"])
        .env(ALONE, "1")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && said.contains("1 passed"),
        "{test} in a process of its own: {}\n{said}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

// ---- the fake CLI -----------------------------------------------------------

/// The `fake-claude` program (built by cargo as an example of this package).
fn fake_cli() -> PathBuf {
    let exe = std::env::current_exe().expect("current exe");
    let mut dir = exe.parent().expect("exe dir").to_path_buf();
    if dir.ends_with("deps") {
        dir.pop();
    }
    let p = dir.join("examples").join("fake-claude");
    assert!(
        p.exists(),
        "{} is missing: build it with `cargo build --examples` (cargo test does)",
        p.display()
    );
    p
}

/// A scenario run by the fake CLI, plus the folder it records into.
struct Fake {
    record: tempfile::TempDir,
    steps: Vec<Step>,
}

impl Fake {
    /// The usual script: answer `initialize`, then play `parts` in order.
    fn after_init(parts: Vec<Vec<Step>>) -> Fake {
        Fake::new(steps(std::iter::once(init()).chain(parts).collect()))
    }

    fn new(steps: Vec<Step>) -> Fake {
        Fake {
            record: tempfile::tempdir().unwrap(),
            steps,
        }
    }

    /// The scenario, written to a file.
    fn scenario_file(&self) -> PathBuf {
        let p = self.record.path().join("scenario.json");
        let steps = self.steps.iter().map(Step::to_json).collect();
        std::fs::write(&p, Value::Array(steps).to_string()).unwrap();
        p
    }
}

// ---- the virtual terminal ---------------------------------------------------

/// The environment is the process's: one chat sets it at a time.
static ENV: Mutex<()> = Mutex::new(());

/// What the chat writes, into the screen (and kept as written).
struct Feed {
    screen: Arc<Mutex<vt100::Parser>>,
    raw: Arc<Mutex<Vec<u8>>>,
    writes: Arc<Writes>,
}

/// How many writes the screen took, and a wake-up at each: a test that
/// waits for the screen looks again as soon as it is drawn.
#[derive(Default)]
struct Writes {
    count: Mutex<u64>,
    more: std::sync::Condvar,
}

impl Writes {
    fn seen(&self) -> u64 {
        *self.count.lock().unwrap()
    }

    /// Until a write after the `seen`-th, 10 ms at most.
    fn after(&self, seen: u64) {
        let count = self.count.lock().unwrap();
        let _ = self
            .more
            .wait_timeout_while(count, Duration::from_millis(10), |n| *n == seen);
    }
}

impl Write for Feed {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.raw.lock().unwrap().extend_from_slice(buf);
        // output processing (`ONLCR`), as the chat's terminal modes keep it
        let mut out = Vec::with_capacity(buf.len());
        for &b in buf {
            if b == b'\n' {
                out.push(b'\r');
            }
            out.push(b);
        }
        self.screen.lock().unwrap().process(&out);
        *self.writes.count.lock().unwrap() += 1;
        self.writes.more.notify_all();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The chat on a virtual terminal, and its keys.
struct Term {
    screen: Arc<Mutex<vt100::Parser>>,
    raw: Arc<Mutex<Vec<u8>>>,
    writes: Arc<Writes>,
    keys: Scripted,
    /// The size the chat reads (columns, rows).
    size: Arc<Mutex<(u16, u16)>>,
    chat: Option<JoinHandle<anyhow::Result<Exit>>>,
    /// How the chat ended, once it did.
    ended: Arc<Mutex<Option<String>>>,
    _env: MutexGuard<'static, ()>,
}

impl Drop for Term {
    fn drop(&mut self) {
        // a test that failed: the chat ends as on a terminal gone, its CLI
        // closed before the next chat starts (30 s at most)
        self.keys.gone();
        if let Some(chat) = self.chat.take() {
            let until = Instant::now() + Duration::from_secs(30);
            while !chat.is_finished() && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(10));
            }
        }
    }
}

impl Term {
    fn contents(&self) -> String {
        self.screen.lock().unwrap().screen().contents()
    }

    fn rows(&self) -> Vec<String> {
        let p = self.screen.lock().unwrap();
        let (_, cols) = p.screen().size();
        p.screen()
            .rows(0, cols)
            .map(|r| r.trim_end().to_owned())
            .collect()
    }

    /// Rows, columns.
    fn size(&self) -> (u16, u16) {
        self.screen.lock().unwrap().screen().size()
    }

    fn raw(&self) -> String {
        String::from_utf8_lossy(&self.raw.lock().unwrap()).into_owned()
    }

    fn send(&mut self, bytes: &[u8]) {
        for e in events(bytes) {
            self.keys.send(e);
        }
    }

    /// The terminal is made `cols` wide (a terminal that does not wrap
    /// its rows again: each is cut at the new width), and the chat told.
    fn resize(&mut self, cols: u16) {
        let (rows, _) = self.size();
        self.screen.lock().unwrap().set_size(rows, cols);
        *self.size.lock().unwrap() = (cols, rows);
        self.keys.send(Event::Resize(cols, rows));
    }

    /// `text` and Enter.
    fn line(&mut self, text: &str) {
        self.send(text.as_bytes());
        self.send(b"\r");
    }

    fn wait_for(&self, needle: &str) {
        self.wait_for_n(needle, 1);
    }

    fn wait_for_n(&self, needle: &str, n: usize) {
        let until = Instant::now() + Duration::from_secs(30);
        loop {
            let seen = self.writes.seen();
            let c = self.contents();
            if c.matches(needle).count() >= n {
                return;
            }
            self.running();
            assert!(
                Instant::now() < until,
                "never saw {needle:?} ×{n}; screen:\n{c}"
            );
            self.writes.after(seen);
        }
    }

    /// Wait until the last row with text ends with the prompt's `›`.
    fn wait_prompt(&self) {
        let until = Instant::now() + Duration::from_secs(30);
        loop {
            let seen = self.writes.seen();
            let c = self.contents();
            let last = c.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("");
            if last.trim_end().ends_with('›') {
                return;
            }
            self.running();
            assert!(Instant::now() < until, "no prompt; screen:\n{c}");
            self.writes.after(seen);
        }
    }

    /// Fails when the chat ended (while the test waits for it to draw).
    fn running(&self) {
        if let Some(end) = self.ended.lock().unwrap().as_ref() {
            panic!("the chat ended: {end}; screen:\n{}", self.contents());
        }
    }

    /// The chat's end (30 s at most).
    fn wait(&mut self) -> Exit {
        let chat = self.chat.take().expect("the chat runs");
        let until = Instant::now() + Duration::from_secs(30);
        loop {
            let seen = self.writes.seen();
            if self.ended.lock().unwrap().is_some() {
                break;
            }
            assert!(Instant::now() < until, "the chat never ended");
            self.writes.after(seen);
        }
        chat.join().unwrap().unwrap()
    }
}

/// The keys a terminal sends as `bytes`, as crossterm reads them.
fn events(bytes: &[u8]) -> Vec<Event> {
    let text = std::str::from_utf8(bytes).unwrap();
    let mut chars = text.chars().peekable();
    let mut out = Vec::new();
    let key = |code, mods| Event::Key(KeyEvent::new(code, mods));
    while let Some(c) = chars.next() {
        let none = KeyModifiers::NONE;
        out.push(match c {
            '\r' | '\n' => key(KeyCode::Enter, none),
            '\t' => key(KeyCode::Tab, none),
            '\x7f' => key(KeyCode::Backspace, none),
            '\x1b' if chars.peek() == Some(&'[') => {
                chars.next();
                match chars.next() {
                    Some('A') => key(KeyCode::Up, none),
                    Some('B') => key(KeyCode::Down, none),
                    Some('C') => key(KeyCode::Right, none),
                    Some('D') => key(KeyCode::Left, none),
                    Some('Z') => key(KeyCode::BackTab, KeyModifiers::SHIFT),
                    other => panic!("no key for ESC [ {other:?}"),
                }
            }
            '\x1b' => key(KeyCode::Esc, none),
            c if (c as u32) < 0x20 => key(
                KeyCode::Char((c as u8 + b'a' - 1) as char),
                KeyModifiers::CONTROL,
            ),
            c if c.is_uppercase() => key(KeyCode::Char(c), KeyModifiers::SHIFT),
            c => key(KeyCode::Char(c), none),
        });
    }
    out
}

/// The chat at `cols` × [`ROWS`], in `~/proj` of its own home (so the
/// header names the same folder on every run), clock in UTC.
fn chat(fake: &Fake, cols: u16) -> Term {
    chat_sized(fake, ROWS, cols)
}

fn chat_sized(fake: &Fake, rows: u16, cols: u16) -> Term {
    chat_with(fake, rows, cols, &[])
}

/// [`chat_sized`], claudio given `args`: the environment `claudio` is run
/// with in `tests/it` (`common::claudio`), in `~/proj` of its own home.
fn chat_with(fake: &Fake, rows: u16, cols: u16, args: &[&str]) -> Term {
    let env = ENV.lock().unwrap_or_else(|e| e.into_inner());
    let record = fake.record.path();
    let home = record.join("home");
    let proj = home.join("proj");
    std::fs::create_dir_all(&proj).unwrap();
    for (k, v) in [
        ("CLAUDIO_CLI", fake_cli()),
        ("FAKE_CLAUDE_SCENARIO", fake.scenario_file()),
        ("FAKE_CLAUDE_RECORD", record.to_owned()),
        ("XDG_CONFIG_HOME", record.to_owned()),
        ("CLAUDIO_ARCHIVE_DIR", record.join("archive")),
        ("XDG_RUNTIME_DIR", record.join("run")),
        ("CLAUDIO_TEST_TTY", "/nonexistent/tty".into()),
        ("CLAUDE_CODE_SANDBOXED", "1".into()),
        ("XDG_DATA_HOME", home.clone()),
        ("HOME", home.clone()),
        ("TZ", "UTC".into()),
        ("TERM", "xterm-256color".into()),
    ] {
        std::env::set_var(k, v);
    }
    for k in [
        "NO_COLOR",
        "CLAUDIO_MODEL",
        "ANTHROPIC_MODEL",
        "CLAUDIO_PERMISSION_MODE",
        "CLAUDIO_CONFIG",
        "CLAUDE_CODE_IGNORE_PERSISTED_TRUST",
        "CLAUDE_CONFIG_DIR",
    ] {
        std::env::remove_var(k);
    }
    std::env::set_current_dir(&proj).unwrap();
    // the flags as the program parses them
    let argv = std::iter::once("claudio").chain(args.iter().copied());
    let cli = <crate::cli::args::Cli as clap::Parser>::try_parse_from(argv).unwrap();
    let mut flags = cli.session;
    flags.cli_path = cli.global.cli_path;
    flags.debug = cli.global.debug;
    flags.color = cli.global.color;
    let flags = crate::cli::app::find_resumed(flags).unwrap();
    let settings = ChatSettings {
        show_thinking: true,
        history_size: 10_000,
        vi: false,
        notify: None,
    };
    let screen = Arc::new(Mutex::new(vt100::Parser::new(rows, cols, 0)));
    let raw = Arc::new(Mutex::new(Vec::new()));
    let writes = Arc::new(Writes::default());
    let on = console::Virtual {
        out: Arc::new(Mutex::new(Feed {
            screen: screen.clone(),
            raw: raw.clone(),
            writes: writes.clone(),
        })),
        size: Arc::new(Mutex::new((cols, rows))),
    };
    let size = on.size.clone();
    let (keys, scripted) = Keys::scripted();
    let ended = Arc::new(Mutex::new(None));
    let end = ended.clone();
    let woken = writes.clone();
    let chat = std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?;
        let exit = console::drawing_on(on, || {
            repl::run_with(&rt, &flags, settings, move |_, _| Ok(keys))
        });
        rt.shutdown_timeout(Duration::from_millis(100));
        *end.lock().unwrap() = Some(format!("{exit:?}"));
        // the test waiting for the end looks at once
        *woken.count.lock().unwrap() += 1;
        woken.more.notify_all();
        exit
    });
    let t = Term {
        screen,
        raw,
        writes,
        keys: scripted,
        size,
        chat: Some(chat),
        ended,
        _env: env,
    };
    t.wait_for("Ctrl-D exits");
    t.wait_prompt();
    t
}

fn bye(mut t: Term) {
    t.wait_prompt();
    t.send(b"\x04");
    assert_eq!(t.wait(), Exit::Success);
}

// ---- the comparison ---------------------------------------------------------

fn shot(t: &Term) -> String {
    compare::shot(&t.rows(), t.size())
}

/// Wait until the screen shows `needle` and has not changed for a while
/// (only to keep a screen anew: `CLAUDIO_UPDATE_SCREENS=1`).
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
        assert!(
            Instant::now() < until,
            "the screen never settled showing {needle:?}:\n{last}"
        );
    }
}

/// Wait until the screen is the kept one (30 s at most); else fail with
/// the last one drawn, row by row against the kept one. With
/// `CLAUDIO_UPDATE_SCREENS=1`, keep the screen once it shows `needle` and
/// has settled.
fn check(t: &Term, name: &str, needle: &str) {
    let (_, cols) = t.size();
    let path = compare::kept(name, cols);
    if std::env::var_os("CLAUDIO_UPDATE_SCREENS").is_some_and(|v| v == "1") {
        let drawn = settle(t, needle);
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
        let seen = t.writes.seen();
        let drawn = shot(t);
        if drawn == want {
            return;
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
            panic!(
                "the screen differs from {} (- kept, + drawn):\n{}\nlast bytes written: {tail:?}",
                path.display(),
                compare::diff(&want, &drawn)
            );
        }
        t.writes.after(seen);
    }
}

/// Wait until a spinner (a braille frame) is drawn below the last row
/// holding `after` (30 s at most).
fn wait_spinner_after(t: &Term, after: &str) {
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        let seen = t.writes.seen();
        let c = t.contents();
        let below = c.rfind(after).map_or("", |at| &c[at..]);
        if below
            .chars()
            .any(|ch| ('\u{2801}'..='\u{28ff}').contains(&ch))
        {
            return;
        }
        t.running();
        assert!(Instant::now() < until, "no spinner below {after:?}:\n{c}");
        t.writes.after(seen);
    }
}

fn db_question(multi: bool) -> Value {
    json!([{"question":"Which database should we use for the session store, given that it must run on a laptop?","header":"Database","multiSelect":multi,
        "options":[{"label":"SQLite","description":"one file, no server"},
                   {"label":"Postgres","description":"a server, more features"},
                   {"label":"Redis","description":"in memory"}]}])
}

// ---- the scenarios ---------------------------------------------------------

at_widths!(
    question_single,
    question_multi,
    plan,
    help,
    error,
    task_list,
    status_line,
    rewind,
    resume,
    approve_bash,
    approve_bash_narrowed,
    approve_edit,
    approve_write,
    chosen_model,
    hostile_model,
    resumed_history,
);

fn question_single(cols: u16) {
    let q = db_question(false);
    let mut script = vec![expect_user("pick a db")];
    script.extend(ask_question("q1", q));
    script.push(Step::expect(json!({"type":"control_response"})));
    script.extend([assistant_text("Postgres it is."), result("Postgres it is.")]);
    let fake = Fake::after_init(vec![script]);
    let mut t = chat(&fake, cols);
    t.line("pick a db");
    check(&t, "question_single", "esc declines");
    t.send(b"2");
    check(&t, "question_single_answered", "2 API calls");
    bye(t);
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

at_widths!(question_typed);

/// An answer of one's own being typed: the help says what Enter and the
/// keys do now (digits and space are text).
fn question_typed(cols: u16) {
    let q = db_question(false);
    let mut script = vec![expect_user("pick a db")];
    script.extend(ask_question("q1", q));
    script.push(Step::expect(json!({"type":"control_response"})));
    script.extend([assistant_text("Both it is."), result("Both it is.")]);
    let fake = Fake::after_init(vec![script]);
    let mut t = chat(&fake, cols);
    t.line("pick a db");
    t.wait_for("esc declines");
    t.send(b"use 2 of them");
    check(&t, "question_typed", "ctrl-u clears it");
    t.send(b"\r");
    check(&t, "question_typed_answered", "Both it is.");
    bye(t);
}

fn plan(cols: u16) {
    let plan = "# Plan\n\n1. Add a `checkout` test that covers the rounding of totals in /src/billing/checkout/totals.rs\n2. Fix the **rounding**";
    let fake = Fake::after_init(vec![vec![
        expect_user("make a plan"),
        assistant_tool_use("toolu_x1", "ExitPlanMode", json!({"plan": plan})),
        Step::Emit(
            json!({"type":"control_request","request_id":"x1","request":{"subtype":"can_use_tool","tool_name":"ExitPlanMode",
                "input":{},"tool_use_id":"toolu_x1","requires_user_interaction":true}}),
        ),
        Step::expect(json!({"type":"control_response"})),
        Step::Emit(
            json!({"type":"system","subtype":"status","status":null,"permissionMode":"acceptEdits","session_id":"s"}),
        ),
        result("ok"),
    ]]);
    let mut t = chat(&fake, cols);
    t.line("make a plan");
    check(&t, "plan", "esc");
    t.send(b"1");
    check(&t, "plan_approved", "1 API call");
    bye(t);
}

fn help(cols: u16) {
    let fake = Fake::after_init(vec![]);
    let mut t = chat_sized(&fake, 90, cols);
    t.line("/help");
    check(&t, "help", "Ctrl-D");
    bye(t);
}

fn error(cols: u16) {
    let fake = Fake::after_init(vec![vec![
        expect_user("boom"),
        Step::Stderr("fatal: the model could not be reached (connection reset by peer while reading the answer)".into()),
        Step::Exit(7),
    ]]);
    let mut t = chat(&fake, cols);
    t.line("boom");
    check(&t, "error", "starts it again");
    bye(t);
}

fn task_list(cols: u16) {
    let todos = json!({"todos":[
        {"content":"Write the parser tests for every edge case of the config file","status":"completed","activeForm":"Writing the parser tests"},
        {"content":"Fix the rounding","status":"in_progress","activeForm":"Fixing the rounding of totals in the checkout"},
        {"content":"Update the docs","status":"pending","activeForm":"Updating the docs"}]});
    let fake = Fake::after_init(vec![vec![
        expect_user("plan and do it"),
        system_init(),
        assistant_tool_use("toolu_t1", "TodoWrite", todos),
        Step::Emit(
            json!({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_t1","content":"ok"}]},"parent_tool_use_id":null,"session_id":"sess-1"}),
        ),
        assistant_text("On it."),
        result("On it."),
    ]]);
    let mut t = chat(&fake, cols);
    t.line("plan and do it");
    t.wait_for("2 API calls");
    // typed before the prompt, it would be a prompt typed ahead
    t.wait_prompt();
    t.line("/todos");
    check(&t, "task_list", "Update the docs");
    bye(t);
}

/// The model the settings name is in the header and the prompt from the
/// first prompt on, and the prompt stays as it was when the CLI names the
/// model it resolved (no jump from `›` to `fake-model ›`).
fn chosen_model(cols: u16) {
    let fake = Fake::after_init(vec![vec![
        expect_user("hi"),
        system_init(),
        assistant_text("Hello."),
        result("Hello."),
    ]]);
    let claude = fake.record.path().join("home/.claude");
    std::fs::create_dir_all(&claude).unwrap();
    std::fs::write(claude.join("settings.json"), r#"{"model": "sonnet"}"#).unwrap();
    let mut t = chat(&fake, cols);
    t.line("hi");
    t.wait_for("1 API call");
    check(&t, "chosen_model", "1 API call");
    bye(t);
}

/// A model's name from a project's settings is untrusted text: in the
/// header and the prompt it is one line, inert, cut to 40 columns (a
/// newline in it put the prompt on two rows, a tab moved it off its
/// columns, and a long one filled the row before the typed text).
fn hostile_model(cols: u16) {
    let fake = Fake::after_init(vec![vec![
        expect_user("hi"),
        system_init(),
        assistant_text("Hello."),
        result("Hello."),
    ]]);
    let home = fake.record.path().join("home");
    let settings = home.join("proj/.claude");
    std::fs::create_dir_all(&settings).unwrap();
    let model = format!("so\nnet\t\u{1b}]0;pwn\u{7}{}", "x".repeat(100));
    let text = serde_json::to_string(&json!({ "model": model })).unwrap();
    std::fs::write(settings.join("settings.json"), text).unwrap();
    let mut t = chat(&fake, cols);
    t.line("hi");
    t.wait_for("1 API call");
    check(&t, "hostile_model", "1 API call");
    bye(t);
}

/// A uuid-shaped session id (what the store looks sessions up by).
const SESSION: &str = "5c0e3e11-0000-4000-8000-000000000001";

fn session_init() -> Step {
    Step::Emit(
        json!({"type":"system","subtype":"init","session_id":SESSION,"model":"fake-model","cwd":"/tmp","tools":["Bash"],"permissionMode":"default","mcp_servers":[]}),
    )
}

/// A whole turn in the session [`SESSION`].
fn session_turn(prompt: &str, answer: &str) -> Vec<Step> {
    vec![
        expect_user(prompt),
        session_init(),
        assistant_text(answer),
        Step::Emit(
            json!({"type":"result","subtype":"success","is_error":false,"result":answer,"session_id":SESSION,"num_turns":1,"duration_ms":5,"total_cost_usd":0.001}),
        ),
    ]
}

/// The store's folder for the chat's working directory (`~/proj`).
fn project_dir(fake: &Fake) -> PathBuf {
    compare::project_dir(fake.record.path())
}

/// A transcript of `prompts` (each answered) as session `id`
/// ([`compare::transcript`]).
fn transcript(fake: &Fake, id: &str, prompts: &[(&str, &str)]) {
    compare::transcript(fake.record.path(), id, prompts)
}

/// `claudio -r ID`: the last exchanges above the prompt, drawn as a live
/// turn is (the prompt after `›`, the answer at its margin, the tool's
/// line with its mark, relative path, time and preview), dimmed.
fn resumed_history(cols: u16) {
    let fake = Fake::after_init(vec![]);
    let dir = project_dir(&fake);
    std::fs::create_dir_all(&dir).unwrap();
    let proj = fake.record.path().join("home/proj");
    std::fs::create_dir_all(&proj).unwrap();
    let file = std::fs::canonicalize(&proj)
        .unwrap()
        .join("src/checkout.rs");
    let line = |uuid: &str, parent: Value, at: &str, kind: &str, message: Value| {
        json!({"parentUuid":parent,"isSidechain":false,"type":kind,"message":message,"uuid":uuid,
            "timestamp":format!("2020-01-02T03:00:{at}Z"),"cwd":proj,"sessionId":SESSION,"version":"2.1.328"})
    };
    let mut lines = [
        line(
            "00000000-0000-4000-8000-000000000001",
            Value::Null,
            "00.000",
            "user",
            json!({"role":"user","content":"why do the checkout tests fail?"}),
        ),
        line(
            "00000000-0000-4000-8000-000000000002",
            json!("00000000-0000-4000-8000-000000000001"),
            "01.000",
            "assistant",
            json!({"id":"msg_1","role":"assistant","model":"fake-model","content":[{"type":"text","text":"Let me read the checkout module first, where the totals are rounded."}]}),
        ),
        line(
            "00000000-0000-4000-8000-000000000003",
            json!("00000000-0000-4000-8000-000000000002"),
            "01.000",
            "assistant",
            json!({"id":"msg_1","role":"assistant","model":"fake-model","content":[{"type":"tool_use","id":"toolu_r1","name":"Read","input":{"file_path":file}}]}),
        ),
        line(
            "00000000-0000-4000-8000-000000000004",
            json!("00000000-0000-4000-8000-000000000003"),
            "01.400",
            "user",
            json!({"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_r1","content":"fn total(subtotal: i64, discount: i64) -> i64 {\n    subtotal - discount\n}\n"}]}),
        ),
        line(
            "00000000-0000-4000-8000-000000000005",
            json!("00000000-0000-4000-8000-000000000004"),
            "02.000",
            "assistant",
            json!({"id":"msg_2","role":"assistant","model":"fake-model","content":[{"type":"text","text":"A discount above the subtotal makes the total negative."}]}),
        ),
    ];
    // the Read allowed by the mode, as the CLI records it: its time holds
    // no wait for an answer, and is shown
    lines[3]["permissionDecision"] = json!({"decision":"accept","source":"config"});
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(dir.join(format!("{SESSION}.jsonl")), text).unwrap();
    let t = chat_with(&fake, ROWS, cols, &["-r", &SESSION[..8]]);
    check(&t, "resumed_history", "resumed here");
    bye(t);
}

fn status_line(cols: u16) {
    let fake = Fake::after_init(vec![session_turn("hello", "Hello to you.")]);
    let home = fake.record.path().join("home");
    let git = home.join("proj/.git");
    std::fs::create_dir_all(&git).unwrap();
    std::fs::write(git.join("HEAD"), "ref: refs/heads/feature/screen-tests\n").unwrap();
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    let cmd =
        "printf 'build ok · 3 files changed under src/billing/checkout since the last commit\\n'";
    std::fs::write(
        home.join(".claude/settings.json"),
        json!({"statusLine": {"type": "command", "command": cmd}}).to_string(),
    )
    .unwrap();
    let mut t = chat(&fake, cols);
    t.line("hello");
    check(&t, "status_line", "build ok");
    bye(t);
}

fn rewind(cols: u16) {
    let mut fake = Fake::new(vec![]);
    // the dry run names the file by its full path
    let notes = fake.record.path().join("home/proj/docs/notes.txt");
    fake.steps = steps(vec![
        init(),
        session_turn("hello", "Hello to you."),
        session_turn("write the notes", "Wrote the notes."),
        vec![
            Step::expect_as(
                json!({"type":"control_request","request":{"subtype":"rewind_files"}}),
                "rw",
            ),
            Step::Emit(
                json!({"type":"control_response","response":{"subtype":"success","request_id":"{{rw}}",
                "response":{"canRewind":true,"filesChanged":[notes.display().to_string()],"insertions":12,"deletions":0}}}),
            ),
        ],
    ]);
    let mut t = chat(&fake, cols);
    t.line("hello");
    t.wait_for("1 API call");
    t.wait_prompt();
    t.line("write the notes");
    t.wait_for_n("1 API call", 2);
    t.wait_prompt();
    transcript(
        &fake,
        SESSION,
        &[
            ("hello", "Hello to you."),
            ("write the notes", "Wrote the notes."),
        ],
    );
    t.line("/rewind");
    check(&t, "rewind", "esc");
    t.send(b"2");
    check(&t, "rewind_actions", "Never mind");
    t.send(b"4");
    check(&t, "rewind_cancelled", "nothing changed");
    bye(t);
}

fn resume(cols: u16) {
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
    check(&t, "resume", "Resume a session");
    t.send(b"\x1b");
    check(&t, "resume_cancelled", "nothing resumed");
    bye(t);
}

at_widths!(resume_filtered);

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

/// A Bash call the CLI cannot check, with a rule it suggests.
fn approve_bash(cols: u16) {
    let command = "grep -rn 'rounding' /work/projects/billing/src/checkout/totals.rs | head -20";
    let dir = tempfile::tempdir().unwrap();
    let go = dir.path().join("go");
    let fake = Fake::after_init(vec![vec![
        expect_user("find it"),
        session_init(),
        assistant_tool_use("toolu_b1", "Bash", json!({"command":command})),
        Step::Emit(
            json!({"type":"control_request","request_id":"b1","request":{"subtype":"can_use_tool","tool_name":"Bash",
            "input":{"command":command},"description":"Find where the totals are rounded",
            "permission_suggestions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"grep -rn 'rounding' /work/projects/billing/src/checkout/totals.rs:*"}],"behavior":"allow","destination":"localSettings"}],
            "tool_use_id":"toolu_b1"}}),
        ),
        Step::expect(json!({"type":"control_response"})),
        // the tool's spinner is drawn again meanwhile; it must not stay
        Step::WaitFile(go.clone()),
        Step::Emit(
            json!({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_b1","is_error":true,"content":"The user denied this tool call."}]},"parent_tool_use_id":null,"session_id":SESSION}),
        ),
        assistant_text("Understood."),
        result("Understood."),
    ]]);
    let mut t = chat(&fake, cols);
    t.line("find it");
    check(&t, "approve_bash", "Enter ›");
    t.line("n");
    // the spinner drawn under the denied call, then the CLI goes on
    wait_spinner_after(&t, "denied");
    std::fs::write(&go, "").unwrap();
    check(&t, "approve_bash_denied", "2 API calls");
    bye(t);
}

/// The terminal made narrower while a Bash call's approval waits: the
/// approval is drawn again at the new width, with what was typed, none of
/// the old one's rows left; the answer goes on (#42).
fn approve_bash_narrowed(cols: u16) {
    let command = "grep -rn 'rounding' /work/projects/billing/src/checkout/totals.rs | head -20";
    let fake = Fake::after_init(vec![vec![
        expect_user("find it"),
        session_init(),
        assistant_tool_use("toolu_b1", "Bash", json!({"command":command})),
        Step::Emit(
            json!({"type":"control_request","request_id":"b1","request":{"subtype":"can_use_tool","tool_name":"Bash",
            "input":{"command":command},"description":"Find where the totals are rounded",
            "permission_suggestions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"grep -rn 'rounding' /work/projects/billing/src/checkout/totals.rs:*"}],"behavior":"allow","destination":"localSettings"}],
            "tool_use_id":"toolu_b1"}}),
        ),
        Step::expect(json!({"type":"control_response"})),
        Step::Emit(
            json!({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_b1","is_error":true,"content":"The user denied this tool call."}]},"parent_tool_use_id":null,"session_id":SESSION}),
        ),
        assistant_text("Understood."),
        result("Understood."),
    ]]);
    let mut t = chat(&fake, cols);
    t.line("find it");
    t.wait_for("Enter ›");
    t.send(b"no wa");
    t.wait_for("› no wa");
    let narrower = cols - cols / 4;
    t.resize(narrower);
    check(&t, "approve_bash_narrowed", "› no wa");
    t.line("y");
    t.wait_for("Understood.");
    bye(t);
}

/// An edit, with its diff.
fn approve_edit(cols: u16) {
    let fake = Fake::after_init(vec![]);
    let file = fake.record.path().join("home/proj/src/checkout.rs");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, "fn total(subtotal: i64, discount: i64) -> i64 {\n    let total = subtotal - discount;\n    if total < 0 { panic!(\"a negative total for the order is not allowed\") }\n    total\n}\n").unwrap();
    // absolute, as the CLI names it: shown relative to the chat's folder
    let file = std::fs::canonicalize(&file).unwrap();
    let input = json!({"file_path": file, "old_string": "    if total < 0 { panic!(\"a negative total for the order is not allowed\") }\n", "new_string": "    let total = total.max(0);\n"});
    let fake = Fake {
        steps: steps(vec![
            init(),
            vec![
                expect_user("fix it"),
                session_init(),
                assistant_tool_use("toolu_e1", "Edit", input.clone()),
                Step::Emit(
                    json!({"type":"control_request","request_id":"e1","request":{"subtype":"can_use_tool","tool_name":"Edit","input":input,"tool_use_id":"toolu_e1",
                "permission_suggestions":[{"type":"setMode","mode":"acceptEdits","destination":"session"}]}}),
                ),
                Step::expect(json!({"type":"control_response"})),
                Step::Emit(
                    json!({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_e1","content":"The file has been updated."}]},"parent_tool_use_id":null,"session_id":SESSION}),
                ),
                assistant_text("Fixed."),
                result("Fixed."),
            ],
        ]),
        ..fake
    };
    let mut t = chat(&fake, cols);
    t.line("fix it");
    check(&t, "approve_edit", "Enter ›");
    t.line("y");
    check(&t, "approve_edit_allowed", "2 API calls");
    bye(t);
}

/// A new file.
fn approve_write(cols: u16) {
    let fake = Fake::after_init(vec![]);
    // absolute, as the CLI names it: shown relative to the chat's folder
    let proj = fake.record.path().join("home/proj");
    std::fs::create_dir_all(&proj).unwrap();
    let file = std::fs::canonicalize(&proj)
        .unwrap()
        .join("docs/rounding.md");
    let input = json!({"file_path": file, "content": "# Rounding\n\nTotals are rounded half to even, once, at the end of the checkout.\n"});
    let fake = Fake {
        steps: steps(vec![
            init(),
            vec![
                expect_user("write it down"),
                session_init(),
                assistant_tool_use("toolu_w1", "Write", input.clone()),
                Step::Emit(
                    json!({"type":"control_request","request_id":"w1","request":{"subtype":"can_use_tool","tool_name":"Write","input":input,"tool_use_id":"toolu_w1",
                "permission_suggestions":[{"type":"setMode","mode":"acceptEdits","destination":"session"}]}}),
                ),
                Step::expect(json!({"type":"control_response"})),
                Step::Emit(
                    json!({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_w1","content":"File created."}]},"parent_tool_use_id":null,"session_id":SESSION}),
                ),
                assistant_text("Written."),
                result("Written."),
            ],
        ]),
        ..fake
    };
    let mut t = chat(&fake, cols);
    t.line("write it down");
    check(&t, "approve_write", "Enter ›");
    t.line("a");
    check(&t, "approve_write_allowed", "2 API calls");
    bye(t);
}

// ---- answers filled to the width (#33.5) ------------------------------------

at_widths!(wrapped_answer, table_answer);

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

/// A turn whose answer streams: thinking (when any), then text.
fn streamed_turn(prompt: &str, thinking: &str, text: &str) -> Vec<Step> {
    let mut steps = vec![
        expect_user(prompt),
        session_init(),
        stream_event(
            json!({"type":"message_start","message":{"id":"msg_s","model":"fake-model","role":"assistant","content":[]}}),
        ),
    ];
    let mut content = Vec::new();
    if !thinking.is_empty() {
        steps.extend(streamed_block(0, "thinking", thinking));
        content.push(json!({"type":"thinking","thinking":thinking,"signature":"x"}));
    }
    steps.extend(streamed_block(1, "text", text));
    content.push(json!({"type":"text","text":text}));
    steps.push(stream_event(json!({"type":"message_stop"})));
    steps.push(Step::Emit(json!({"type":"assistant","message":{"id":"msg_s","model":"fake-model","role":"assistant","content":content},"parent_tool_use_id":null,"session_id":SESSION})));
    steps.push(Step::Emit(json!({"type":"result","subtype":"success","is_error":false,"result":text,"session_id":SESSION,"num_turns":1,"duration_ms":5,"total_cost_usd":0.001})));
    steps
}

/// A long paragraph, a list and a thinking block: broken between words,
/// each wrapped row under its line's indent.
fn wrapped_answer(cols: u16) {
    let thinking = "The person asks how the totals are rounded; the checkout module rounds once, at the end, half to even.";
    let text = "Totals are rounded once, at the very end of the checkout, half to even, so that a long basket of small prices never drifts by a cent.\n\n- The rounding lives in src/billing/checkout/totals.rs, next to the tax rules.\n- Discounts apply before it.";
    let fake = Fake::after_init(vec![streamed_turn("how is it rounded", thinking, text)]);
    let mut t = chat(&fake, cols);
    t.line("how is it rounded");
    check(&t, "wrapped_answer", "API call");
    bye(t);
}

/// A markdown table, drawn as aligned columns that fit the width.
fn table_answer(cols: u16) {
    let text = "Here are the stores:\n\n| Store | Size | Notes |\n|:------|-----:|-------|\n| SQLite | 1 | one file on the laptop, no server to run |\n| Postgres | 20 | a server, with more features than we need |\n\nSQLite fits.";
    let fake = Fake::after_init(vec![streamed_turn("compare them", "", text)]);
    let mut t = chat(&fake, cols);
    t.line("compare them");
    check(&t, "table_answer", "API call");
    bye(t);
}

// ---- the turn's status line (#33.2) -----------------------------------------

at_widths!(streaming_pause);

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
