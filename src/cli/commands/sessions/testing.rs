//! What the sessions commands' tests share: `sessions` parsed alone, a
//! store of two sessions, and a run with captured output.

use super::args::SessionsCommand;
use super::io::{Io, SessionsOutcome};
use super::run::run_with;
use crate::cli::term::style::Style;
use clap::Parser;
use serde_json::{json, Value};
use std::io::{self, Write};
use std::sync::{Arc, Mutex};

/// `claudio sessions ...` alone (args.rs tests its wiring under the real
/// top-level flags too).
#[derive(Debug, Parser)]
#[command(name = "claudio")]
pub(super) struct TestCli {
    #[command(subcommand)]
    pub(super) command: TestCommand,
}

#[derive(Debug, clap::Subcommand)]
pub(super) enum TestCommand {
    Sessions(SessionsCommand),
}

#[derive(Clone, Default)]
pub(super) struct Buf(Arc<Mutex<Vec<u8>>>);

impl Write for Buf {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Buf {
    pub(super) fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

pub(super) struct Run {
    pub(super) out: Buf,
    pub(super) err: Buf,
    pub(super) outcome: anyhow::Result<SessionsOutcome>,
}

pub(super) fn run_args(args: &[&str], tty: &std::path::Path, cwd: &std::path::Path) -> Run {
    run_args_sized(args, tty, cwd, None)
}

/// As [`run_args`], with stdout a terminal of `size` (columns, rows) when
/// given.
pub(super) fn run_args_sized(
    args: &[&str],
    tty: &std::path::Path,
    cwd: &std::path::Path,
    size: Option<(usize, usize)>,
) -> Run {
    own_cache();
    let mut argv = vec!["claudio", "sessions"];
    argv.extend_from_slice(args);
    let cli = TestCli::try_parse_from(argv).expect("arguments parse");
    let TestCommand::Sessions(a) = cli.command;
    let (out, err) = (Buf::default(), Buf::default());
    let mut io = Io {
        out: Box::new(out.clone()),
        err: Box::new(err.clone()),
        out_style: Style::plain(),
        err_style: Style::plain(),
        out_tty: size.is_some(),
        size,
        tty: tty.to_path_buf(),
        now_ms: 1_800_000_000_000,
        cwd: Some(cwd.to_path_buf()),
    };
    let outcome = run_with(a, &mut io);
    Run { out, err, outcome }
}

pub(super) const A: &str = "aaaaaaaa-1111-4111-8111-111111111111";
pub(super) const B: &str = "aaaabbbb-2222-4222-8222-222222222222";
pub(super) const U1: &str = "10000000-0000-4000-8000-000000000001";
pub(super) const A1: &str = "10000000-0000-4000-8000-000000000002";
pub(super) const R1: &str = "10000000-0000-4000-8000-000000000003";
pub(super) const A2: &str = "10000000-0000-4000-8000-000000000004";
pub(super) const U9: &str = "10000000-0000-4000-8000-000000000009";

/// A store with two sessions in `/work/proj`, one with a tool call and
/// terminal escape sequences in its text.
pub(super) fn store() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("projects/-work-proj");
    std::fs::create_dir_all(&folder).unwrap();
    let line = |v: Value| format!("{v}\n");
    let mut a = String::new();
    a += &line(
        json!({"type":"user","uuid":U1,"parentUuid":null,"sessionId":A,"cwd":"/work/proj","gitBranch":"main",
        "timestamp":"2026-01-01T10:00:00.000Z","message":{"role":"user","content":"fix the \u{1b}]0;pwned\u{7}bug"}}),
    );
    a += &line(
        json!({"type":"assistant","uuid":A1,"parentUuid":U1,"sessionId":A,"timestamp":"2026-01-01T10:00:05.000Z",
        "message":{"id":"m1","role":"assistant","content":[{"type":"thinking","thinking":"let me look"},
        {"type":"tool_use","id":"t1","name":"Bash","input":{"command":"cargo test"}}]}}),
    );
    a += &line(
        json!({"type":"user","uuid":R1,"parentUuid":A1,"sessionId":A,"timestamp":"2026-01-01T10:00:06.000Z",
        "message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"1\n2\n3\n4\n5\n6","is_error":true}]}}),
    );
    a += &line(
        json!({"type":"assistant","uuid":A2,"parentUuid":R1,"sessionId":A,"timestamp":"2026-01-01T10:00:07.000Z",
        "message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"Fixed \u{1b}[31mit\u{1b}[0m."}]}}),
    );
    std::fs::write(folder.join(format!("{A}.jsonl")), a).unwrap();
    let b = line(
        json!({"type":"user","uuid":U9,"parentUuid":null,"sessionId":B,"cwd":"/work/proj",
        "timestamp":"2026-01-02T10:00:00.000Z","message":{"role":"user","content":"second session"}}),
    );
    std::fs::write(folder.join(format!("{B}.jsonl")), b).unwrap();
    for (id, secs) in [(A, 1_799_990_000u64), (B, 1_799_999_000)] {
        let f = std::fs::File::options()
            .write(true)
            .open(folder.join(format!("{id}.jsonl")))
            .unwrap();
        f.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs))
            .unwrap();
    }
    dir
}

pub(super) fn cfg(d: &tempfile::TempDir) -> String {
    d.path().display().to_string()
}

/// The usage index in a folder of this test process's own, never the
/// developer's `~/.cache/claudio` nor another test process's (nextest runs
/// each test in a process of its own, many at once: the only thread
/// reading the environment). The folder lives as long as the process and
/// is removed when it exits (a static is never dropped, so its removal is
/// registered with the C library's `atexit`: without it, each test
/// process left an empty folder in the temporary folder).
pub(crate) fn own_cache() {
    static DIR: std::sync::OnceLock<Option<tempfile::TempDir>> = std::sync::OnceLock::new();
    extern "C" fn remove() {
        if let Some(Some(dir)) = DIR.get() {
            let _ = std::fs::remove_dir_all(dir.path());
        }
    }
    DIR.get_or_init(|| {
        if std::env::var_os("CLAUDIO_CACHE_DIR").is_some() {
            return None;
        }
        let dir = tempfile::Builder::new()
            .prefix("claudio-test-cache-")
            .tempdir()
            .expect("a temporary folder");
        std::env::set_var("CLAUDIO_CACHE_DIR", dir.path());
        // SAFETY: `remove` is a plain function that touches only the
        // static above, which lives for the whole process.
        unsafe { libc::atexit(remove) };
        Some(dir)
    });
}

/// Every transcript under tests/fixtures (sessions and their sub-agents'),
/// for the tests that compare a reading with the old one on each.
pub(crate) fn fixture_transcripts() -> Vec<std::path::PathBuf> {
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures"),
        &mut files,
    );
    files
}

/// Titles holding what terminals count otherwise than claudio (threats.md
/// class 11): soft hyphens, a ZWJ sequence, variation selectors, a skin
/// tone, a Hangul filler, combining and new marks, new emoji, wide and
/// ambiguous characters; and a plain one.
pub(super) const HARD_TITLES: [&str; 11] = [
    "alpha\u{ad}beta soft\u{ad}hyphen",
    "family 👨\u{200d}👩\u{200d}👧 zwj",
    "heart ❤\u{fe0f} and ☺\u{fe0e}",
    "e\u{301}clair combining",
    "ｗｉｄｅ 漢字",
    "new \u{1fae8}\u{1fa77}\u{1f6dc} emoji",
    "skin 👍🏽 tone",
    "\u{3164}filler \u{2630} trigram",
    "±α① ambiguous",
    "new marks \u{1b35}\u{1715} \u{11f00}",
    "plain words",
];

/// A store of one session a title in /work/proj, the `i`th
/// `{i:08}-0000-4000-8000-000000000000` on branch `br{i}`: its prompt at
/// `at` (an ISO time) and an API response a second later, 600 × (i + 1)
/// input tokens of Sonnet.
pub(super) fn titled_store(titles: &[&str], at: &str) -> tempfile::TempDir {
    own_cache();
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("projects/-work-proj");
    std::fs::create_dir_all(&folder).unwrap();
    let then = claudio::store::parse_iso_millis(at).expect("an ISO time") + 1000;
    for (i, title) in titles.iter().enumerate() {
        let id = format!("{i:08}-0000-4000-8000-000000000000");
        let lines = [
            json!({"type":"user","uuid":format!("{i:08}-1111-4000-8000-000000000000"),
                "parentUuid":null,"sessionId":id,"cwd":"/work/proj","gitBranch":format!("br{i}"),
                "timestamp":at,"message":{"role":"user","content":title}}),
            json!({"type":"assistant","requestId":format!("r{i}"),"sessionId":id,
                "timestamp":claudio::store::format_iso_millis(then),"cwd":"/work/proj",
                "message":{"id":format!("m{i}"),"model":"claude-sonnet-4-5",
                "usage":{"input_tokens":600 * (i + 1),"output_tokens":0}}}),
        ];
        let text: Vec<String> = lines.iter().map(Value::to_string).collect();
        std::fs::write(folder.join(format!("{id}.jsonl")), text.join("\n") + "\n").unwrap();
    }
    dir
}

/// `out` drawn on a terminal 40 rows high and `cols` wide (vt100), once it
/// is checked to hold no character terminals dispute.
pub(super) fn drawn_undisputed(out: &str, cols: u16) -> vt100::Parser {
    let bad: Vec<char> = out
        .chars()
        .filter(|&c| crate::cli::term::wrap::disputed(c))
        .collect();
    assert!(bad.is_empty(), "{bad:?} written");
    let mut screen = vt100::Parser::new(40, cols, 0);
    screen.process(out.replace('\n', "\r\n").as_bytes());
    screen
}
