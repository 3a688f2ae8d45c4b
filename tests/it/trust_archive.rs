//! Trust round three (issue 29): the person's data in claudio's archive.
//! A shorter transcript never replaces its fuller archived copy; a project
//! folder that is a link is archived or named; a relative
//! `CLAUDIO_ARCHIVE_DIR` is a usage error; a pass cut short is taken up
//! from its last chunk and leaves nothing behind; an archived session is
//! read as a stream (never inflated to `$TMPDIR`); `delete` says what it
//! leaves; a transcript dated before 1970 is archived once; a failed write
//! says so.

use crate::common;

use claudio::store::Store;
use serde_json::{json, Value};
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, UNIX_EPOCH};

const ID: &str = "5e55a10e-0000-4000-8000-000000000001";

/// A throwaway home: an empty store with one project folder (`-w`), an
/// archive folder, a config folder.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Home {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("claude/projects/-w")).unwrap();
        std::fs::create_dir_all(dir.path().join("xdg")).unwrap();
        Home { dir }
    }
    fn cfg(&self) -> PathBuf {
        self.dir.path().join("claude")
    }
    fn projects(&self) -> PathBuf {
        self.cfg().join("projects")
    }
    fn transcript(&self) -> PathBuf {
        self.projects().join("-w").join(format!("{ID}.jsonl"))
    }
    fn archive(&self) -> PathBuf {
        self.dir.path().join("archive")
    }
    fn packed(&self) -> PathBuf {
        self.archive().join("-w").join(format!("{ID}.jsonl.zst"))
    }
    fn cmd(&self) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_claudio"));
        c.env("CLAUDE_CONFIG_DIR", self.cfg())
            .env("CLAUDIO_ARCHIVE_DIR", self.archive())
            .env("CLAUDIO_CACHE_DIR", self.dir.path().join("cache"))
            .env("HOME", self.dir.path())
            .env("XDG_CONFIG_HOME", self.dir.path().join("xdg"))
            .env("XDG_DATA_HOME", self.dir.path().join("data"))
            .env("CLAUDIO_CLI", "/nonexistent/claude")
            .env("CLAUDIO_TEST_TTY", "/nonexistent/tty")
            .env("NO_COLOR", "1")
            .env_remove("CLAUDIO_CONFIG")
            .current_dir(self.dir.path());
        c
    }
    fn run(&self, args: &[&str]) -> (i32, String, String) {
        run(self.cmd().args(args))
    }
    fn json(&self, args: &[&str]) -> Value {
        let (code, out, err) = self.run(args);
        assert_eq!(code, 0, "{args:?}: {err}");
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}: {out}"))
    }
    /// The session as the archive alone holds it: its entries' prompts.
    fn archived_prompts(&self, id: &str) -> Vec<String> {
        let store = Store::new(self.dir.path().join("none")).with_archive(self.archive());
        let (_, conv) = store.conversation(id).unwrap();
        conv.entries
            .iter()
            .filter_map(|e| e.content().map(|c| c.text()))
            .collect()
    }
}

/// Run to the end (bounded in time): exit code (-1 when killed by a
/// signal), stdout, stderr.
fn run(c: &mut Command) -> (i32, String, String) {
    let mut child = c
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (out, err) = (child.stdout.take(), child.stderr.take());
    let out = std::thread::spawn(move || common::read_all(out));
    let err = std::thread::spawn(move || common::read_all(err));
    let status = common::wait_with_deadline(&mut child, 120);
    (
        status.code().unwrap_or(-1),
        out.join().unwrap(),
        err.join().unwrap(),
    )
}

/// A transcript of `n` prompts, each its own whole line.
fn prompts(id: &str, n: usize) -> String {
    (1..=n)
        .map(|i| {
            let parent = if i == 1 {
                Value::Null
            } else {
                json!(format!("u{}", i - 1))
            };
            format!(
                "{}\n",
                json!({"type":"user","uuid":format!("u{i}"),"parentUuid":parent,
                "sessionId":id,"cwd":"/w","timestamp":"2026-11-01T10:00:00.000Z",
                "message":{"role":"user","content":format!("prompt number {i}")}})
            )
        })
        .collect()
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

// ---- 7: transcripts only grow ---------------------------------------------------

#[test]
fn a_shorter_transcript_never_replaces_its_fuller_archived_copy() {
    let h = Home::new();
    std::fs::write(h.transcript(), prompts(ID, 3)).unwrap();
    assert_eq!(h.json(&["sessions", "archive", "--json"])["archived"], 1);
    // cut to its first line (whole: not a transcript being written)
    std::fs::write(h.transcript(), prompts(ID, 1)).unwrap();
    let (code, out, err) = h.run(&["sessions", "archive", "--json"]);
    assert_eq!(code, 0, "{err}");
    let s: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(s["archived"], 0, "{s}");
    let shorter = s["shorter"].as_array().expect("said in the summary");
    assert_eq!(shorter.len(), 1, "{s}");
    assert!(shorter[0]["path"]
        .as_str()
        .unwrap()
        .ends_with(&format!("{ID}.jsonl")));
    assert!(
        err.contains("kept the archived copy") && err.contains(ID),
        "named on stderr: {err}"
    );
    // the archived copy still holds all three prompts
    assert_eq!(
        h.archived_prompts(ID),
        ["prompt number 1", "prompt number 2", "prompt number 3"]
    );
    let (code, out, _) = h.run(&["sessions", "archive"]);
    assert_eq!(code, 0);
    assert!(out.contains("1 kept as archived"), "{out}");
    // grown past the archived copy: archived again
    std::fs::write(h.transcript(), prompts(ID, 4)).unwrap();
    assert_eq!(h.json(&["sessions", "archive", "--json"])["archived"], 1);
    assert_eq!(h.archived_prompts(ID).len(), 4);
}

#[test]
fn a_rewritten_transcript_never_replaces_its_archived_copy_even_when_longer() {
    let h = Home::new();
    std::fs::write(h.transcript(), prompts(ID, 3)).unwrap();
    assert_eq!(h.json(&["sessions", "archive", "--json"])["archived"], 1);
    // longer than the copy, but not the copy with more after it
    let rewritten = prompts(ID, 5).replace("prompt number 1", "PROMPT NUMBER 1");
    std::fs::write(h.transcript(), rewritten).unwrap();
    let (code, out, err) = h.run(&["sessions", "archive", "--json"]);
    assert_eq!(code, 0, "{err}");
    let s: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(s["archived"], 0, "{s}");
    let kept = s["shorter"].as_array().expect("said in the summary");
    assert_eq!(kept.len(), 1, "{s}");
    assert!(
        kept[0]["reason"].as_str().unwrap().contains("rewritten"),
        "{s}"
    );
    // the archived copy still holds what the transcript lost
    assert_eq!(
        h.archived_prompts(ID),
        ["prompt number 1", "prompt number 2", "prompt number 3"]
    );
}

// ---- 8: project folders that are links ----------------------------------------

#[test]
fn a_project_folder_linked_to_the_persons_own_is_archived_listed_and_counted() {
    let h = Home::new();
    let id = "5e55a10e-0000-4000-8000-000000000008";
    let moved = h.dir.path().join("other-disk/-moved");
    std::fs::create_dir_all(&moved).unwrap();
    std::fs::write(moved.join(format!("{id}.jsonl")), prompts(id, 2)).unwrap();
    std::os::unix::fs::symlink(&moved, h.projects().join("-moved")).unwrap();

    let s = h.json(&["sessions", "archive", "--json"]);
    assert_eq!(s["archived"], 1, "{s}");
    assert!(h
        .archive()
        .join("-moved")
        .join(format!("{id}.jsonl.zst"))
        .is_file());
    let list = h.json(&["sessions", "list", "--all", "--json"]);
    assert!(
        list.as_array()
            .unwrap()
            .iter()
            .any(|s| s["sessionId"] == id),
        "{list}"
    );
    let (_, out, _) = h.run(&["doctor"]);
    let line = out
        .lines()
        .find(|l| l.contains("transcripts"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(line.contains("(1 sessions"), "{line}");
}

#[test]
fn a_project_folder_linked_elsewhere_is_named_never_skipped_silently() {
    let h = Home::new();
    // a link whose target is gone (a disk not mounted)
    std::os::unix::fs::symlink(
        h.dir.path().join("unmounted/-gone"),
        h.projects().join("-gone"),
    )
    .unwrap();
    let mut links = vec!["-gone"];
    // a link to a folder of another user: needs root to make one
    if is_root() {
        let theirs = h.dir.path().join("theirs/-theirs");
        std::fs::create_dir_all(&theirs).unwrap();
        let id = "5e55a10e-0000-4000-8000-000000000009";
        let t = theirs.join(format!("{id}.jsonl"));
        std::fs::write(&t, prompts(id, 1)).unwrap();
        std::os::unix::fs::chown(&theirs, Some(65534), Some(65534)).unwrap();
        std::os::unix::fs::chown(&t, Some(65534), Some(65534)).unwrap();
        std::os::unix::fs::symlink(&theirs, h.projects().join("-theirs")).unwrap();
        links.push("-theirs");
    } else {
        eprintln!(
            "SKIPPED the link to another user's folder: only root can make a folder owned by another user"
        );
    }
    let (code, out, err) = h.run(&["sessions", "archive", "--json"]);
    assert_eq!(code, 1, "{out}{err}");
    let s: Value = serde_json::from_str(&out).unwrap();
    let failed = s["failed"].as_array().unwrap();
    assert_eq!(failed.len(), links.len(), "{s}");
    for name in &links {
        assert!(
            failed
                .iter()
                .any(|f| f["path"].as_str().unwrap().ends_with(name)),
            "{name}: {s}"
        );
        assert!(
            err.lines()
                .any(|l| l.contains(name) && l.contains("not archived")),
            "{name} named on stderr: {err}"
        );
        assert!(!h.archive().join(name).exists());
    }
    if links.contains(&"-theirs") {
        assert!(err.contains("another user"), "{err}");
    }
    let (code, _, err) = h.run(&["sessions", "list", "--all", "--json"]);
    assert_eq!(code, 0, "{err}");
    for name in &links {
        assert!(err.contains(name), "list names {name}: {err}");
    }
    let (_, out, _) = h.run(&["doctor"]);
    let line = out
        .lines()
        .find(|l| l.contains("transcripts"))
        .unwrap_or_else(|| panic!("{out}"));
    for name in &links {
        assert!(line.contains(name), "doctor names {name}: {line}");
    }
}

// ---- 9: a relative CLAUDIO_ARCHIVE_DIR ----------------------------------------

#[test]
fn a_relative_archive_dir_is_a_usage_error_and_nothing_is_created() {
    let h = Home::new();
    std::fs::write(h.transcript(), prompts(ID, 2)).unwrap();
    let rel = |args: &[&str]| {
        let mut c = h.cmd();
        c.env("CLAUDIO_ARCHIVE_DIR", "copies/archive").args(args);
        run(&mut c)
    };
    for args in [
        &["sessions", "archive"][..],
        &["sessions", "list", "--all"],
        &["sessions", "export", &ID[..8]],
    ] {
        let (code, _, err) = rel(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(
            err.contains("CLAUDIO_ARCHIVE_DIR") && err.contains("relative"),
            "{args:?}: {err}"
        );
    }
    // with the background pass on, too
    std::fs::create_dir_all(h.dir.path().join("xdg/claudio")).unwrap();
    std::fs::write(
        h.dir.path().join("xdg/claudio/config.toml"),
        "archive = \"auto\"\n",
    )
    .unwrap();
    let (code, _, err) = rel(&["sessions", "list", "--all"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        !h.dir.path().join("copies").exists(),
        "nothing is created beside the working directory"
    );
    // doctor names it, with its fix, and reads the config file as it is
    let (code, out, _) = rel(&["doctor"]);
    assert_eq!(code, 1, "{out}");
    let line = out
        .lines()
        .find(|l| l.contains("archive") && l.contains("relative"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(line.contains("copies/archive"), "{line}");
    assert!(out.contains("archived automatically"), "{out}");
    assert!(!h.dir.path().join("copies").exists());
}

// ---- 10: a pass cut short -------------------------------------------------------

/// A transcript of about `bytes` bytes that zstd halves at best (random
/// hex digits in its prompts): it takes several chunks to archive.
fn big_transcript(id: &str, bytes: usize) -> (String, usize) {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut text = String::with_capacity(bytes + 4096);
    let mut n = 0;
    while text.len() < bytes {
        n += 1;
        let mut hex = String::with_capacity(4096);
        for _ in 0..256 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            hex.push_str(&format!("{seed:016x}"));
        }
        let parent = if n == 1 {
            Value::Null
        } else {
            json!(format!("u{}", n - 1))
        };
        text.push_str(&format!(
            "{}\n",
            json!({"type":"user","uuid":format!("u{n}"),"parentUuid":parent,
            "sessionId":id,"cwd":"/w","timestamp":"2026-11-01T10:00:00.000Z",
            "message":{"role":"user","content":hex}})
        ));
    }
    (text, n)
}

/// `c` is killed (SIGXFSZ) when it writes a file past `max` bytes, as a
/// pass is cut short by the program's exit; no core file.
fn killed_past(c: &mut Command, max: u64) {
    // SAFETY: setrlimit and signal are async-signal-safe.
    unsafe {
        c.pre_exec(move || {
            let lim = libc::rlimit {
                rlim_cur: max,
                rlim_max: max,
            };
            let none = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &lim) != 0
                || libc::setrlimit(libc::RLIMIT_CORE, &none) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            libc::signal(libc::SIGXFSZ, libc::SIG_DFL);
            Ok(())
        });
    }
}

#[test]
fn a_pass_cut_short_goes_on_from_its_last_chunk() {
    let h = Home::new();
    // 12 MiB: three chunks of 4 MiB, about 2 MiB each compressed
    let (text, lines) = big_transcript(ID, 12 << 20);
    std::fs::write(h.transcript(), &text).unwrap();
    // the first pass dies when its file passes 3 MiB: in its second chunk
    let mut c = h.cmd();
    c.args(["sessions", "archive", "--json"]);
    killed_past(&mut c, 3 << 20);
    let (code, _, err) = run(&mut c);
    assert_ne!(code, 0, "the first pass is cut short: {err}");
    assert!(!h.packed().exists(), "not finished");
    // the next pass goes on from its first chunk
    let s = h.json(&["sessions", "archive", "--json"]);
    assert_eq!(s["archived"], 1, "{s}");
    let read = s["bytesIn"].as_u64().unwrap();
    assert_eq!(
        read,
        text.len() as u64 - (4 << 20),
        "the first chunk is not compressed again: {s}"
    );
    // whole, and nothing temporary is left
    std::fs::remove_file(h.transcript()).unwrap();
    assert_eq!(h.archived_prompts(ID).len(), lines);
    let left: Vec<PathBuf> = common::walk(&h.archive())
        .into_iter()
        .filter(|p| !p.to_string_lossy().ends_with(".jsonl.zst"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_dead_pass_s_temporary_files_are_removed_when_the_next_starts() {
    let h = Home::new();
    std::fs::write(h.transcript(), prompts(ID, 1)).unwrap();
    assert_eq!(h.json(&["sessions", "archive", "--json"])["archived"], 1);
    // what a pass killed a moment ago left (written just now, by a
    // process id no process can have)
    let folder = h.archive().join("-w");
    let dead = [
        folder.join(format!(".{ID}.jsonl.zst.999999999-0.tmp")),
        folder.join(format!(".{ID}.jsonl.zst.999999999-1.tmp")),
        // the partial copy of a transcript the CLI has deleted since
        folder.join(".5e55a10e-0000-4000-8000-00000000dead.jsonl.zst.part"),
    ];
    for f in &dead {
        std::fs::write(f, vec![7u8; 100_000]).unwrap();
    }
    std::fs::write(h.transcript(), prompts(ID, 2)).unwrap();
    assert_eq!(h.json(&["sessions", "archive", "--json"])["archived"], 1);
    for f in &dead {
        assert!(!f.exists(), "{} is left", f.display());
    }
    assert_eq!(common::walk(&h.archive()), [h.packed()]);
    // a pass still running beside (this test's own process) is left alone
    let live = folder.join(format!(".{ID}.jsonl.zst.{}-0.tmp", std::process::id()));
    std::fs::write(&live, b"being written").unwrap();
    std::fs::write(h.transcript(), prompts(ID, 3)).unwrap();
    assert_eq!(h.json(&["sessions", "archive", "--json"])["archived"], 1);
    assert!(live.exists(), "a live pass's file is removed");
}

// ---- 11: reading an archived session -------------------------------------------

#[test]
fn an_archived_session_is_read_as_a_stream_never_inflated_to_tmpdir() {
    let h = Home::new();
    std::fs::write(h.transcript(), prompts(ID, 3)).unwrap();
    assert_eq!(h.json(&["sessions", "archive", "--json"])["archived"], 1);
    std::fs::remove_file(h.transcript()).unwrap();
    // no temporary folder at all: nothing is written there
    let no_tmp = h.dir.path().join("no-such-tmp");
    for args in [
        &["sessions", "export", &ID[..8]][..],
        &["sessions", "export", &ID[..8], "-f", "json"],
        &["sessions", "inspect", &ID[..8]],
        &["sessions", "inspect", &ID[..8], "--json"],
    ] {
        let mut c = h.cmd();
        c.env("TMPDIR", &no_tmp).env("PAGER", "cat").args(args);
        let (code, out, err) = run(&mut c);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert!(out.contains("prompt number 3"), "{args:?}: {out}");
    }
    assert!(!no_tmp.exists());
}

/// Run `c` to the end; its exit code, stdout, and peak resident memory.
// reaped by wait4, which clippy does not see
#[allow(clippy::zombie_processes)]
fn peak_memory(c: &mut Command) -> (i32, String, u64) {
    let mut child = c
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let out = child.stdout.take();
    let reader = std::thread::spawn(move || common::read_all(out));
    let mut status = 0;
    // SAFETY: a zeroed rusage is valid; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    let rc = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(rc, pid);
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    (code, reader.join().unwrap(), usage.ru_maxrss as u64 * 1024)
}

/// Blank lines of 4 KiB, without end.
struct Blank {
    at: usize,
}

impl Read for Blank {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        for b in buf.iter_mut() {
            self.at = (self.at + 1) % 4096;
            *b = if self.at == 0 { b'\n' } else { b' ' };
        }
        Ok(buf.len())
    }
}

#[test]
fn a_zstd_bomb_in_the_archive_is_read_in_bounded_memory() {
    let h = Home::new();
    // an archived file of a few hundred KiB that inflates to 128 MiB: a first
    // prompt, then blank lines, framed as the archive frames a transcript
    let first = prompts(ID, 1);
    const SIZE: u64 = 128 << 20;
    const ENDS: u64 = 64 << 10;
    let blank = || Blank { at: 0 };
    let body = std::io::Cursor::new(first.as_bytes().to_vec())
        .chain(blank().take(SIZE - ENDS - first.len() as u64));
    let body = zstd::stream::encode_all(body, 1).unwrap();
    let tail = zstd::stream::encode_all(blank().take(ENDS), 1).unwrap();
    let mut file = Vec::new();
    file.extend_from_slice(&0x184D_2A5Cu32.to_le_bytes());
    file.extend_from_slice(&48u32.to_le_bytes());
    file.extend_from_slice(b"claudio1");
    file.extend_from_slice(&SIZE.to_le_bytes());
    file.extend_from_slice(&1_700_000_000u64.to_le_bytes());
    file.extend_from_slice(&0u64.to_le_bytes());
    file.extend_from_slice(&(56 + body.len() as u64).to_le_bytes());
    file.extend_from_slice(&(SIZE - ENDS).to_le_bytes());
    file.extend_from_slice(&body);
    file.extend_from_slice(&tail);
    assert!(file.len() < 1 << 20, "a bomb: {} bytes", file.len());
    std::fs::create_dir_all(h.packed().parent().unwrap()).unwrap();
    std::fs::write(h.packed(), &file).unwrap();
    let no_tmp = h.dir.path().join("no-such-tmp");
    for args in [
        &["sessions", "export", &ID[..8]][..],
        &["sessions", "inspect", &ID[..8], "--json"],
    ] {
        let mut c = h.cmd();
        c.env("TMPDIR", &no_tmp).args(args);
        let (code, out, peak) = peak_memory(&mut c);
        assert_eq!(code, 0, "{args:?}: {out}");
        assert!(out.contains("prompt number 1"), "{args:?}: {out}");
        assert!(
            peak < 64 << 20,
            "{args:?}: {} MiB for a {} MiB transcript",
            peak >> 20,
            SIZE >> 20
        );
    }
    assert!(!no_tmp.exists());
}

// ---- 12: delete and the archived copy --------------------------------------------

#[test]
fn delete_says_the_archived_copy_remains_and_refuses_to_remove_it() {
    let h = Home::new();
    std::fs::write(h.transcript(), prompts(ID, 2)).unwrap();
    assert_eq!(h.json(&["sessions", "archive", "--json"])["archived"], 1);
    let (code, _, err) = h.run(&["sessions", "delete", &ID[..8], "--yes"]);
    assert_eq!(code, 0, "{err}");
    assert!(!h.transcript().exists());
    assert!(h.packed().is_file(), "the archived copy is kept");
    let said = err
        .lines()
        .find(|l| l.contains("archived copy remains"))
        .unwrap_or_else(|| panic!("not said: {err}"));
    assert!(said.contains(&h.packed().display().to_string()), "{said}");
    assert!(said.contains("rm '"), "how to remove it: {said}");
    assert!(
        err.contains(&format!("deleted {}", h.transcript().display())),
        "{err}"
    );
    // listed from the archive, as said
    let list = h.json(&["sessions", "list", "--all", "--json"]);
    assert_eq!(list[0]["fromArchive"], true, "{list}");
    // only in the archive now: refused, as rename, tag and fork are
    let (code, _, err) = h.run(&["sessions", "delete", &ID[..8], "--yes"]);
    assert_eq!(code, 1, "{err}");
    assert!(h.packed().is_file(), "the archived copy is never deleted");
    assert!(err.contains("only in claudio's archive"), "{err}");
    assert!(err.contains("rm '"), "how to remove it: {err}");
}

/// `--archived-too` deletes the CLI's transcript and the archived copy in
/// one step (a leaked secret took two), and the confirmation says which
/// copies go; with only the archived copy left, it deletes that.
#[test]
fn delete_archived_too_removes_every_copy_in_one_step() {
    let h = Home::new();
    std::fs::write(h.transcript(), prompts(ID, 2)).unwrap();
    assert_eq!(h.json(&["sessions", "archive", "--json"])["archived"], 1);
    let (code, _, err) = h.run(&["sessions", "delete", &ID[..8], "--yes", "--archived-too"]);
    assert_eq!(code, 0, "{err}");
    assert!(!h.transcript().exists());
    assert!(!h.packed().exists(), "the archived copy is gone too: {err}");
    assert!(!err.contains("remains"), "{err}");
    assert!(
        err.contains(&format!("deleted {} (archived)", h.packed().display())),
        "{err}"
    );
    let list = h.json(&["sessions", "list", "--all", "--json"]);
    assert_eq!(list.as_array().map(Vec::len), Some(0), "{list}");
    // only in the archive: --archived-too deletes it
    std::fs::write(h.transcript(), prompts(ID, 2)).unwrap();
    assert_eq!(h.json(&["sessions", "archive", "--json"])["archived"], 1);
    std::fs::remove_file(h.transcript()).unwrap();
    let (code, _, err) = h.run(&["sessions", "delete", &ID[..8], "--yes"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("--archived-too"), "{err}");
    let (code, _, err) = h.run(&["sessions", "delete", &ID[..8], "--yes", "--archived-too"]);
    assert_eq!(code, 0, "{err}");
    assert!(!h.packed().exists(), "{err}");
}

// ---- 13: before 1970 ----------------------------------------------------------------

#[test]
fn a_transcript_dated_before_1970_is_archived_once() {
    let h = Home::new();
    std::fs::write(h.transcript(), prompts(ID, 2)).unwrap();
    let long_ago =
        UNIX_EPOCH - Duration::from_secs(10 * 365 * 86_400 + 1) - Duration::from_nanos(5);
    std::fs::File::options()
        .write(true)
        .open(h.transcript())
        .unwrap()
        .set_modified(long_ago)
        .unwrap();
    assert_eq!(h.json(&["sessions", "archive", "--json"])["archived"], 1);
    let s = h.json(&["sessions", "archive", "--json"]);
    assert_eq!(
        (s["archived"].as_u64(), s["unchanged"].as_u64()),
        (Some(0), Some(1)),
        "{s}"
    );
    assert_eq!(
        std::fs::metadata(h.packed()).unwrap().modified().unwrap(),
        long_ago
    );
}

// ---- 17: a failed write ---------------------------------------------------------------

#[test]
fn a_failed_archive_write_says_it_could_not_write() {
    let h = Home::new();
    std::fs::write(h.transcript(), prompts(ID, 1)).unwrap();
    // where the project's folder goes in the archive, a file
    std::fs::create_dir_all(h.archive()).unwrap();
    std::fs::write(h.archive().join("-w"), "in the way").unwrap();
    let (code, out, err) = h.run(&["sessions", "archive", "--json"]);
    assert_eq!(code, 1, "{out}{err}");
    let s: Value = serde_json::from_str(&out).unwrap();
    let reason = s["failed"][0]["reason"].as_str().unwrap();
    assert!(
        reason.starts_with(&format!(
            "cannot write {}",
            h.archive().join("-w").display()
        )),
        "{reason}"
    );
    assert!(!err.contains("unreadable"), "{err}");
    assert!(err.contains("cannot write"), "{err}");
}
