//! Every `sessions` subcommand on a store of hostile files: FIFOs, a link to
//! `/dev/zero`, a link out of the store, files and folders without
//! permission, invalid UTF-8, escape sequences in every field. Nothing may
//! hang (each run has a deadline), nothing outside the store is read, every
//! file left out is named on stderr, and nothing that acts on a terminal
//! reaches one.

use crate::common;

use common::term::Term;
use common::wait_with_deadline;
use serde_json::{json, Value};
use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const GOOD: &str = "aaaaaaaa-0000-4000-8000-000000000001";
const BAD_UTF8: &str = "abababab-0000-4000-8000-000000000002";
const FIFO: &str = "bbbbbbbb-0000-4000-8000-000000000003";
const ZERO: &str = "cccccccc-0000-4000-8000-000000000004";
const OUTSIDE: &str = "dddddddd-0000-4000-8000-000000000005";
const LOCKED: &str = "eeeeeeee-0000-4000-8000-000000000006";
const LOCKED_DIR_ID: &str = "ffffffff-0000-4000-8000-000000000007";

/// Everything a terminal would act on, as hostile text carries it.
const ESCAPES: &str = "\u{1b}]52;c;cHduZWQ=\u{7}\u{1b}]0;PWNED\u{7}\u{1b}c\u{1b}[2J\
\u{1b}]8;;http://evil\u{1b}\\\u{1b}Pq#0\u{1b}\\\u{1b}_apc\u{1b}\\\u{9b}31m\u{9d}0;t\u{9c}\u{202e}";

/// What must never reach a terminal from the transcripts (claudio's own
/// colors, `ESC [ ... m`, may).
fn assert_inert(what: &str, raw: &str) {
    for bad in [
        "\u{1b}]",
        "\u{1b}P",
        "\u{1b}_",
        "\u{1b}c",
        "\u{1b}[2J",
        "\u{9b}",
        "\u{9d}",
        "\u{7}",
        "\u{202e}",
        "PWNED\u{7}",
    ] {
        assert!(
            !raw.contains(bad),
            "{what}: {bad:?} reached the terminal: {raw:?}"
        );
    }
}

struct Hostile {
    dir: tempfile::TempDir,
    folder: PathBuf,
    /// Whether permissions bind (not root, or the runs drop to `nobody`).
    /// When they do not (root, and `nobody` cannot run the build or reach
    /// the store: a clone in a mode-700 folder), the mode-000 cases are
    /// skipped, said, and nothing about them is asserted.
    locked: bool,
}

fn line(v: Value) -> String {
    format!("{v}\n")
}

fn session(id: &str, prompt: &str, answer: &str) -> String {
    let mut s = line(
        json!({"type":"user","uuid":"u1","parentUuid":null,"sessionId":id,
        "cwd":format!("/work/p{ESCAPES}"),"gitBranch":format!("main{ESCAPES}"),
        "timestamp":"2026-11-01T10:00:00.000Z",
        "message":{"role":"user","content":prompt}}),
    );
    s += &line(
        json!({"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":id,
        "timestamp":"2026-11-01T10:00:01.000Z","requestId":"r1",
        "message":{"id":"m1","role":"assistant","model":"claude-sonnet-4-5",
            "content":[{"type":"text","text":answer},
                       {"type":"tool_use","id":"t1","name":format!("Task{ESCAPES}"),"input":{"description":"look"}}],
            "usage":{"input_tokens":10,"output_tokens":5}}}),
    );
    // a sub-agent whose transcript is a link out of the store
    s += &line(
        json!({"type":"user","uuid":"u2","parentUuid":"a1","sessionId":id,
        "timestamp":"2026-11-01T10:00:02.000Z","toolUseResult":{"agentId":"out1"},
        "message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"done"}]}}),
    );
    s += &line(
        json!({"type":"custom-title","customTitle":format!("title {ESCAPES}"),"sessionId":id}),
    );
    s
}

impl Hostile {
    fn new() -> Hostile {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("projects/-work-p");
        std::fs::create_dir_all(&folder).unwrap();
        let t = |id: &str| folder.join(format!("{id}.jsonl"));
        std::fs::write(
            t(GOOD),
            session(
                GOOD,
                &format!("hi {ESCAPES} findme"),
                &format!("answer {ESCAPES} done"),
            ),
        )
        .unwrap();
        // a prompt with invalid UTF-8 in it
        let mut bad = session(BAD_UTF8, "findme BROKEN", "fine").into_bytes();
        let at = bad.windows(6).position(|w| w == b"BROKEN").unwrap();
        bad.splice(at..at + 6, [0xff, 0xfe, 0xc3]);
        std::fs::write(t(BAD_UTF8), bad).unwrap();
        mkfifo(&t(FIFO));
        std::os::unix::fs::symlink("/dev/zero", t(ZERO)).unwrap();
        let outside = dir.path().join("outside.jsonl");
        std::fs::write(
            &outside,
            line(json!({"type":"user","uuid":"x","sessionId":OUTSIDE,
                "message":{"role":"user","content":"outside-secret findme"}})),
        )
        .unwrap();
        std::os::unix::fs::symlink(&outside, t(OUTSIDE)).unwrap();
        // the sub-agent folder: a link out, a FIFO, a link to /dev/zero
        let agents = folder.join(GOOD).join("subagents");
        std::fs::create_dir_all(&agents).unwrap();
        std::os::unix::fs::symlink(&outside, agents.join("agent-out1.jsonl")).unwrap();
        mkfifo(&agents.join("agent-fifo1.jsonl"));
        std::os::unix::fs::symlink("/dev/zero", agents.join("agent-zero1.jsonl")).unwrap();
        mkfifo(&agents.join("agent-out1.meta.json"));
        // a file and a folder without permission
        std::fs::write(t(LOCKED), session(LOCKED, "locked findme", "x")).unwrap();
        let locked_dir = dir.path().join("projects/-work-locked");
        std::fs::create_dir_all(&locked_dir).unwrap();
        std::fs::write(
            locked_dir.join(format!("{LOCKED_DIR_ID}.jsonl")),
            session(LOCKED_DIR_ID, "hidden findme", "x"),
        )
        .unwrap();
        // open to the unprivileged user the runs drop to (as root)
        chmod_tree(dir.path());
        std::fs::set_permissions(t(LOCKED), std::fs::Permissions::from_mode(0o000)).unwrap();
        std::fs::set_permissions(&locked_dir, std::fs::Permissions::from_mode(0o000)).unwrap();
        let locked = !is_root() || can_run_as_nobody(dir.path());
        Hostile {
            dir,
            folder,
            locked,
        }
    }

    fn config(&self) -> &Path {
        self.dir.path()
    }

    /// `claudio sessions --config-dir STORE args...`, as `nobody` when
    /// run as root (so that permissions bind), with stdio piped.
    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_claudio"));
        c.args(["sessions", "--config-dir"])
            .arg(self.config())
            .args(args)
            .current_dir("/")
            .env("NO_COLOR", "1")
            .env("XDG_CONFIG_HOME", self.config())
            // no archive but the store's own folder: none of the host's
            .env("XDG_DATA_HOME", self.config())
            // the usage index too: never the developer's
            .env("CLAUDIO_CACHE_DIR", self.config().join(".claudio-cache"))
            .env_remove("CLAUDIO_ARCHIVE_DIR")
            .env_remove("CLAUDIO_CONFIG");
        if is_root() && self.locked {
            drop_to_nobody(&mut c);
        }
        c
    }

    /// Run with a deadline; stdout and stderr as text.
    fn run(&self, args: &[&str]) -> (i32, String, String) {
        let mut child = self
            .command(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
        let o = std::thread::spawn(move || {
            let mut v = Vec::new();
            // a run that writes without end is cut off here (and fails below)
            let _ = (&mut out).take(64 << 20).read_to_end(&mut v);
            v
        });
        let e = std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = err.read_to_end(&mut v);
            v
        });
        // a guard against a run without end, not a time: a search with a
        // 26,000-way regex took over 30 s on a loaded machine
        let status = wait_with_deadline(&mut child, 180);
        let (out, err) = (o.join().unwrap(), e.join().unwrap());
        assert!(out.len() < 64 << 20, "{args:?}: output without end");
        let code = status
            .code()
            .unwrap_or_else(|| panic!("{args:?}: killed by a signal: {status:?}"));
        (
            code,
            String::from_utf8_lossy(&out).into_owned(),
            String::from_utf8_lossy(&err).into_owned(),
        )
    }

    /// Run on a terminal: everything written to it.
    fn run_on_tty(&self, args: &[&str]) -> String {
        // read as it is written (a full terminal would block the writer)
        let term = Term::open();
        let mut c = self.command(args);
        c.stdin(Stdio::null())
            .stdout(Stdio::from(term.slave()))
            .stderr(Stdio::from(term.slave()))
            .env("CLAUDIO_TEST_TTY", term.slave_path())
            .env("PAGER", "cat");
        let mut child = c.spawn().unwrap();
        drop(c);
        let status = wait_with_deadline(&mut child, 30);
        assert!(status.code().is_some(), "{args:?}: {status:?}");
        term.output_to_end()
    }
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

fn drop_to_nobody(c: &mut Command) {
    // SAFETY: setgid/setuid are async-signal-safe.
    unsafe {
        c.pre_exec(|| {
            if libc::setgid(65534) != 0 || libc::setuid(65534) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Whether claudio can be run as `nobody` here on the store in `dir`:
/// neither the build folder nor the temporary folder may be open to it (a
/// clone in a mode-700 folder, a `$TMPDIR` of mode 700). Without that, the
/// permission cases are skipped, and said.
fn can_run_as_nobody(dir: &Path) -> bool {
    let mut c = Command::new(env!("CARGO_BIN_EXE_claudio"));
    c.args(["sessions", "--config-dir"])
        .arg(dir)
        .args(["list", "--all", "--json", "--no-archive"])
        .current_dir("/")
        .env("XDG_CONFIG_HOME", dir)
        .env_remove("CLAUDIO_ARCHIVE_DIR")
        .env_remove("CLAUDIO_CONFIG")
        .stdin(Stdio::null())
        .stderr(Stdio::null());
    drop_to_nobody(&mut c);
    let ok = c
        .output()
        .is_ok_and(|o| o.status.success() && String::from_utf8_lossy(&o.stdout).contains(GOOD));
    if !ok {
        eprintln!(
            "SKIPPED the mode-000 cases: running as root, and `nobody` cannot run {} on {} here (a mode-700 folder on the way?), so permissions do not bind",
            env!("CARGO_BIN_EXE_claudio"),
            dir.display()
        );
    }
    ok
}

fn chmod_tree(p: &Path) {
    let meta = std::fs::symlink_metadata(p).unwrap();
    if meta.file_type().is_symlink() {
        return;
    }
    if meta.is_dir() {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o777)).unwrap();
        for e in std::fs::read_dir(p).unwrap() {
            chmod_tree(&e.unwrap().path());
        }
    } else {
        // files and FIFOs
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o666)).unwrap();
    }
}

fn mkfifo(p: &Path) {
    assert!(Command::new("mkfifo").arg(p).status().unwrap().success());
}

/// The odd files each command must name when it leaves them out.
fn assert_names_odd_files(what: &str, err: &str, h: &Hostile) {
    for id in [FIFO, ZERO, OUTSIDE] {
        assert!(err.contains(id), "{what}: {id} not named: {err}");
    }
    if h.locked {
        assert!(err.contains(LOCKED), "{what}: the mode-000 file: {err}");
        assert!(
            err.contains("-work-locked"),
            "{what}: the mode-000 folder: {err}"
        );
    }
}

#[test]
fn every_command_survives_a_hostile_store() {
    let h = Hostile::new();

    let (code, out, err) = h.run(&["list", "--all"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(&GOOD[..8]) && out.contains(&BAD_UTF8[..8]),
        "{out}"
    );
    assert_names_odd_files("list --all", &err, &h);

    let (code, out, err) = h.run(&["list", "--all", "--long"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(&GOOD[..8]), "{out}");

    for args in [
        &["search", "findme", "--all"][..],
        &["search", "-e", "find.e", "--all"],
        &["search", "-s", "findme", "--all"],
        &["search", "findme", "--all", "--json"],
    ] {
        let (code, out, err) = h.run(args);
        assert_eq!(code, 0, "{args:?}: {err}");
        // invalid UTF-8 in a prompt is still found
        assert!(
            out.contains(&GOOD[..8]) || out.contains(GOOD),
            "{args:?}: {out}"
        );
        assert!(
            out.contains(&BAD_UTF8[..8]) || out.contains(BAD_UTF8),
            "{args:?}: the prompt with invalid UTF-8: {out}"
        );
        assert!(
            !out.contains("outside-secret"),
            "{args:?}: read out of the store"
        );
        if h.locked {
            assert!(
                !out.contains("hidden"),
                "{args:?}: a mode-000 folder was read"
            );
        }
        assert_names_odd_files(&format!("{args:?}"), &err, &h);
    }

    for args in [
        &["usage", "--all"][..],
        &["usage", "--all", "--by", "session"],
    ] {
        let (code, out, err) = h.run(args);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert!(out.contains("total"), "{args:?}: {out}");
        assert_names_odd_files(&format!("{args:?}"), &err, &h);
    }

    let (code, out, err) = h.run(&["inspect", &GOOD[..8], "--subagents"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("findme"), "{out}");
    assert!(
        !out.contains("outside-secret"),
        "inspect read out of the store"
    );

    for format in ["md", "html", "json"] {
        let (code, out, err) = h.run(&["export", &GOOD[..8], "-f", format]);
        assert_eq!(code, 0, "{format}: {err}");
        assert!(out.contains("findme"), "{format}: {out}");
        assert!(
            !out.contains("outside-secret"),
            "{format}: a sub-agent link followed out of the store"
        );
    }
    // HTML shows bidi overrides, never applies them
    let (_, html, _) = h.run(&["export", &GOOD[..8], "-f", "html"]);
    assert!(!html.contains('\u{202e}'), "a bidi override in the page");
    assert!(html.contains("[U+202E]"), "the override is shown");

    // the transcripts' own bytes, exact, to a pipe
    let (_, md, _) = h.run(&["export", &GOOD[..8]]);
    assert!(md.contains(ESCAPES), "a pipe gets the bytes as recorded");

    for args in [
        &["rename", &GOOD[..8], "renamed"][..],
        &["tag", &GOOD[..8], "t"],
        &["fork", &GOOD[..8]],
    ] {
        let (code, _, err) = h.run(args);
        assert_eq!(code, 0, "{args:?}: {err}");
    }
    for id in [FIFO, ZERO, OUTSIDE] {
        for args in [
            &["inspect", &id[..8]][..],
            &["export", &id[..8]],
            &["rename", &id[..8], "x"],
            &["fork", &id[..8]],
        ] {
            let (code, _, err) = h.run(args);
            assert_ne!(code, 0, "{args:?}");
            assert!(err.contains("not a regular file"), "{args:?}: {err}");
        }
    }
}

#[test]
fn nothing_from_a_transcript_acts_on_the_terminal() {
    let h = Hostile::new();
    for args in [
        &["list", "--all"][..],
        &["list", "--all", "--long"],
        &["inspect", &GOOD[..8], "--subagents"],
        &["search", "findme", "--all"],
        &["search", "findme", "--all", "--json"],
        &["export", &GOOD[..8]],
        &["export", &GOOD[..8], "-f", "html"],
        &["export", &GOOD[..8], "-f", "json"],
        &["usage", "--all", "--by", "project"],
    ] {
        let raw = h.run_on_tty(args);
        assert!(
            raw.contains("findme") || raw.contains("total") || raw.contains("work"),
            "{args:?}: {raw:?}"
        );
        assert_inert(&format!("{args:?}"), &raw);
    }
}

#[test]
fn unreadable_folders_and_files_are_named_not_skipped_silently() {
    let h = Hostile::new();
    if !h.locked {
        eprintln!("SKIPPED unreadable_folders_and_files_are_named_not_skipped_silently: mode 000 does not bind here (see above)");
        return;
    }
    let (code, _, err) = h.run(&["inspect", &LOCKED[..8]]);
    assert_ne!(code, 0);
    assert!(err.contains("Permission denied"), "{err}");
    // one session's usage: the file it could not read is named
    let (_, _, err) = h.run(&["usage", "--cwd", "/work/p"]);
    assert!(err.contains(LOCKED), "{err}");
}

#[test]
fn delete_removes_the_copy_it_showed() {
    let d = tempfile::tempdir().unwrap();
    let id = "dddddddd-1111-4111-8111-111111111111";
    let a = d.path().join("projects/-work-a");
    let b = d.path().join("projects/-work-b");
    for (f, title) in [(&a, "copy A"), (&b, "copy B")] {
        std::fs::create_dir_all(f).unwrap();
        std::fs::write(
            f.join(format!("{id}.jsonl")),
            line(
                json!({"type":"user","uuid":"u","parentUuid":null,"sessionId":id,
                "cwd":"/work/x","timestamp":"2026-01-01T10:00:00.000Z",
                "message":{"role":"user","content":title}}),
            ),
        )
        .unwrap();
    }
    // B is the newer copy: it is the one shown
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(a.join(format!("{id}.jsonl")))
        .unwrap()
        .set_modified(old)
        .unwrap();
    let mut pty = Term::open();
    let mut child = Command::new(env!("CARGO_BIN_EXE_claudio"))
        .args(["sessions", "--config-dir"])
        .arg(d.path())
        .args(["delete", &id[..8]])
        .env("CLAUDIO_TEST_TTY", pty.slave_path())
        .env("XDG_CONFIG_HOME", d.path())
        .env_remove("CLAUDIO_CONFIG")
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let asked = pty.read_until("[y/N]");
    assert!(asked.contains("copy B"), "{asked:?}");
    // meanwhile the other copy is written to: now it is the newer one
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(a.join(format!("{id}.jsonl")))
        .unwrap();
    std::io::Write::write_all(&mut f, b"{\"type\":\"tag\",\"tag\":\"x\"}\n").unwrap();
    drop(f);
    pty.type_line("y");
    let status = wait_with_deadline(&mut child, 20);
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(status.code(), Some(0), "{err}");
    assert!(
        !b.join(format!("{id}.jsonl")).exists(),
        "the copy shown is deleted"
    );
    assert!(
        a.join(format!("{id}.jsonl")).exists(),
        "the other copy is kept"
    );
    assert!(err.contains("-work-a"), "the other copy is named: {err}");
}

#[test]
fn regexes_are_bounded_and_usage_errors_exit_2() {
    let h = Hostile::new();
    // many capture groups: match ranges only, in bounded time and memory
    let groups = "(.)".repeat(2000);
    let (code, _, err) = h.run(&["search", "-e", &groups, "--all"]);
    assert!(code == 0 || code == 1, "{err}");
    let alternations = "(a|b)".repeat(26000);
    let (code, _, err) = h.run(&["search", "-e", &alternations, "--all"]);
    assert!(code == 0 || code == 1, "{}", &err[..err.len().min(500)]);
    // too big to compile: a clear usage error
    let (code, _, err) = h.run(&["search", "-e", r"(\w{100}){100}", "--all"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("make it simpler"), "{err}");
    let (code, _, err) = h.run(&["search", "-e", "a(", "--all"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("unclosed group"), "{err}");
    let (code, _, err) = h.run(&["search", "x", "--since", "someday", "--all"]);
    assert_eq!(code, 2, "{err}");

    // no match is exit 1 in JSON too
    let (code, out, _) = h.run(&["search", "no-such-text-anywhere", "--all", "--json"]);
    assert_eq!(code, 1);
    assert!(out.is_empty(), "{out}");

    let cli = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_claudio"))
            .args(args)
            .env("CLAUDIO_CLI", "/nonexistent/claude")
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let out = cli(&["--permission-mode", "yolo", "ask", "hi"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("acceptEdits"),
        "{out:?}"
    );
    let out = cli(&["ask", "--json-schema", "{not json", "hi"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

#[test]
fn titles_and_ids_have_bounds() {
    let h = Hostile::new();
    // a title too long to be read back is refused, and nothing is written
    let before = std::fs::read(h.folder.join(format!("{GOOD}.jsonl"))).unwrap();
    let long = "t".repeat(70 * 1024);
    let (code, _, err) = h.run(&["rename", &GOOD[..8], &long]);
    assert_ne!(code, 0);
    assert!(err.contains("too long"), "{}", &err[..err.len().min(300)]);
    assert_eq!(
        std::fs::read(h.folder.join(format!("{GOOD}.jsonl"))).unwrap(),
        before
    );
    // the longest title allowed is shown by the listing
    let title = "é".repeat(2048);
    let (code, _, err) = h.run(&["rename", &GOOD[..8], &title]);
    assert_eq!(code, 0, "{err}");
    let (_, out, _) = h.run(&["list", "--all", "--json"]);
    assert!(out.contains(&title), "the new title is listed");

    // a 100 KB id is not echoed whole
    let id = "z".repeat(100_000);
    let (code, _, err) = h.run(&["inspect", &id]);
    assert_ne!(code, 0);
    assert!(err.len() < 1000, "{} bytes of error", err.len());
}

#[test]
fn doctor_counts_only_regular_transcripts() {
    let h = Hostile::new();
    let mut c = Command::new(env!("CARGO_BIN_EXE_claudio"));
    c.arg("doctor")
        .current_dir("/")
        .env("CLAUDE_CONFIG_DIR", h.config())
        .env("CLAUDIO_CLI", "/nonexistent/claude")
        .env("NO_COLOR", "1")
        .env("XDG_CONFIG_HOME", h.config())
        .env("XDG_DATA_HOME", h.config())
        .env_remove("CLAUDIO_ARCHIVE_DIR")
        .env_remove("CLAUDIO_CONFIG");
    if is_root() && h.locked {
        drop_to_nobody(&mut c);
    }
    let out = c.output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let line = text
        .lines()
        .find(|l| l.contains("transcripts"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains("not regular files"), "{line}");
    assert!(line.contains("3 named like transcripts"), "{line}");
    // a folder it cannot read is named, and the rest still counted
    if h.locked {
        assert!(line.contains("-work-locked"), "{line}");
        assert!(line.contains("(3 sessions"), "{line}");
    } else {
        eprintln!(
            "SKIPPED doctor's count of a mode-000 folder: mode 000 does not bind here (see above)"
        );
    }
}

#[test]
fn an_unclosed_fence_does_not_swallow_the_export() {
    let d = tempfile::tempdir().unwrap();
    let folder = d.path().join("projects/-work-p");
    std::fs::create_dir_all(&folder).unwrap();
    let id = "12121212-0000-4000-8000-000000000001";
    let turns = [
        (
            "here is my code:\n```\nfn main() {",
            "an answer with ~~~~\nan open tilde fence",
        ),
        ("see:\n<pre>\nunclosed html block", "<!-- an open comment"),
        ("and\n<script>", "last answer"),
    ];
    let mut text = String::new();
    let mut parent = Value::Null;
    for (i, (p, a)) in turns.iter().enumerate() {
        let (u, m) = (format!("u{i}"), format!("a{i}"));
        text += &line(
            json!({"type":"user","uuid":u,"parentUuid":parent,"sessionId":id,
            "timestamp":"2026-11-01T10:00:00.000Z","message":{"role":"user","content":p}}),
        );
        text += &line(
            json!({"type":"assistant","uuid":m,"parentUuid":u,"sessionId":id,
            "timestamp":"2026-11-01T10:00:01.000Z",
            "message":{"id":m,"role":"assistant","content":[{"type":"text","text":a}]}}),
        );
        parent = Value::String(m);
    }
    std::fs::write(folder.join(format!("{id}.jsonl")), text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_claudio"))
        .args(["sessions", "--config-dir"])
        .arg(d.path())
        .args(["export", &id[..8]])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let md = String::from_utf8(out.stdout).unwrap();
    // read as CommonMark: every turn keeps its heading
    let mut headings = Vec::new();
    let mut in_heading = false;
    for ev in pulldown_cmark::Parser::new(&md) {
        match ev {
            pulldown_cmark::Event::Start(pulldown_cmark::Tag::Heading { .. }) => {
                in_heading = true;
                headings.push(String::new());
            }
            pulldown_cmark::Event::End(pulldown_cmark::TagEnd::Heading(_)) => in_heading = false,
            pulldown_cmark::Event::Text(t) if in_heading => {
                headings.last_mut().unwrap().push_str(&t)
            }
            _ => {}
        }
    }
    let you = headings.iter().filter(|h| *h == "You").count();
    let claude = headings.iter().filter(|h| *h == "Claude").count();
    assert_eq!((you, claude), (3, 3), "{headings:?}\n{md}");
    // and no byte of the text is lost
    for (p, a) in turns {
        assert!(md.contains(p) && md.contains(a), "{md}");
    }
}

/// Run `claudio args` to the end; its exit code and peak resident memory.
// reaped by wait4, which clippy does not see
#[allow(clippy::zombie_processes)]
fn peak_memory(args: &[&str]) -> (i32, String, u64) {
    let cache = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_claudio"))
        .args(args)
        .env("CLAUDIO_CACHE_DIR", cache.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out.read_to_end(&mut v);
        String::from_utf8_lossy(&v).into_owned()
    });
    let mut status = 0;
    // SAFETY: a zeroed rusage is valid; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    let rc = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(rc, pid);
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        panic!("{args:?}: killed by a signal")
    };
    (code, reader.join().unwrap(), usage.ru_maxrss as u64 * 1024)
}

#[test]
fn a_giant_line_is_searched_in_bounded_memory() {
    let d = tempfile::tempdir().unwrap();
    let folder = d.path().join("projects/-work-p");
    std::fs::create_dir_all(&folder).unwrap();
    let id = "13131313-0000-4000-8000-000000000001";
    const BIG: usize = 64 << 20;
    let mut text = line(
        json!({"type":"user","uuid":"u0","parentUuid":null,"sessionId":id,
        "cwd":"/work/p","timestamp":"2026-11-01T10:00:00.000Z",
        "message":{"role":"user","content":"a pasted log follows"}}),
    );
    let huge = format!("the NEEDLE is here {}", "x".repeat(BIG));
    text += &line(
        json!({"type":"user","uuid":"u1","parentUuid":"u0","sessionId":id,
        "timestamp":"2026-11-01T10:00:01.000Z","message":{"role":"user","content":huge}}),
    );
    drop(huge);
    std::fs::write(folder.join(format!("{id}.jsonl")), text).unwrap();
    let config = d.path().to_str().unwrap();
    for regex in [false, true] {
        let mut args = vec![
            "sessions",
            "--config-dir",
            config,
            "search",
            "NEEDLE",
            "--all",
        ];
        if regex {
            args.push("-e");
        }
        let (code, out, peak) = peak_memory(&args);
        assert_eq!(code, 0, "{args:?}");
        // the hit's line is cut around the match, not 64 MiB long
        assert!(
            out.contains("the NEEDLE is here"),
            "{}",
            &out[..out.len().min(500)]
        );
        assert!(out.len() < 8 << 10, "{} bytes of output", out.len());
        // the line is held, and parsed once: a few times its size, never more
        assert!(
            peak < 4 * BIG as u64 + (64 << 20),
            "{args:?}: {} MiB for a {} MiB line",
            peak >> 20,
            BIG >> 20
        );
    }
    let (code, out, _) = peak_memory(&["sessions", "--config-dir", config, "usage", "--all"]);
    assert_eq!(code, 0, "{out}");
}
