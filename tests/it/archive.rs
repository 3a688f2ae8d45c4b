//! The archive of transcripts kept past the CLI's cleanup: `claudio
//! sessions archive`, the commands reading it, `resume` restoring from it
//! (with the real CLI), `archive = "auto"`, and `doctor`'s report of the
//! cleanup.

use crate::common;

use claudio::store::Store;
use common::copy_tree;
use common::real::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime};

/// A session with a sub-agent, in the fixture store.
const AGENT: &str = "37af4a00-8d92-4edb-b3d6-bee2f6caa2d7";
const FOLDER: &str = "-tmp--tmpZ8Chz6";

/// A throwaway home: a copy of the fixture store, an archive folder, a
/// config folder.
struct T {
    dir: tempfile::TempDir,
}

impl T {
    fn new() -> T {
        let dir = tempfile::tempdir().unwrap();
        copy_tree(
            Path::new("tests/fixtures/sessions/real"),
            &dir.path().join("claude"),
        );
        std::fs::create_dir_all(dir.path().join("xdg")).unwrap();
        T { dir }
    }
    fn empty() -> T {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("claude/projects/-w")).unwrap();
        std::fs::create_dir_all(dir.path().join("xdg")).unwrap();
        T { dir }
    }
    fn cfg(&self) -> PathBuf {
        self.dir.path().join("claude")
    }
    fn projects(&self) -> PathBuf {
        self.cfg().join("projects")
    }
    fn archive(&self) -> PathBuf {
        self.dir.path().join("archive")
    }
    fn cmd(&self) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_claudio"));
        c.env("CLAUDE_CONFIG_DIR", self.cfg())
            .env("CLAUDIO_ARCHIVE_DIR", self.archive())
            .env("CLAUDIO_CACHE_DIR", self.dir.path().join("cache"))
            .env("HOME", self.dir.path())
            .env("XDG_CONFIG_HOME", self.dir.path().join("xdg"))
            .env("CLAUDIO_CLI", "/nonexistent/claude")
            .env("CLAUDIO_TEST_TTY", "/nonexistent/tty")
            .env_remove("CLAUDIO_CONFIG")
            .env_remove("NO_COLOR")
            .current_dir(self.dir.path());
        c
    }
    /// Run `claudio ARGS` (bounded in time): exit code, stdout, stderr.
    fn run(&self, args: &[&str]) -> (i32, String, String) {
        run(self.cmd().args(args))
    }
    fn json(&self, args: &[&str]) -> Value {
        let (code, out, err) = self.run(args);
        assert_eq!(code, 0, "{args:?}: {err}");
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}: {out}"))
    }
}

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
    let status = common::wait_with_deadline(&mut child, 60);
    (
        status.code().unwrap_or(-1),
        out.join().unwrap(),
        err.join().unwrap(),
    )
}

/// Every file under `dir` with its bytes and modification time.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (Vec<u8>, SystemTime)> {
    common::walk(dir)
        .into_iter()
        .map(|p| {
            let m = std::fs::symlink_metadata(&p).unwrap();
            let bytes = if m.is_file() {
                std::fs::read(&p).unwrap()
            } else {
                Vec::new()
            };
            (p, (bytes, m.modified().unwrap()))
        })
        .collect()
}

fn session<'a>(list: &'a Value, id: &str) -> Option<&'a Value> {
    list.as_array()
        .unwrap()
        .iter()
        .find(|s| s["sessionId"] == id)
}

#[test]
fn archived_sessions_are_read_when_the_cli_deleted_them() {
    let t = T::new();
    let before = snapshot(&t.projects());
    let files = common::walk(&t.projects()).len();
    let s = t.json(&["sessions", "archive", "--json"]);
    assert_eq!(s["archived"], files, "{s}");
    assert_eq!(
        (s["unchanged"].as_u64(), s["busy"].as_u64()),
        (Some(0), Some(0))
    );
    assert!(
        s["bytesOut"].as_u64().unwrap() < s["bytesIn"].as_u64().unwrap() / 3,
        "{s}"
    );
    assert_eq!(s["failed"], Value::Array(vec![]));
    assert!(t
        .archive()
        .join(FOLDER)
        .join(format!(
            "{AGENT}/subagents/agent-a307f301b44dc750f.jsonl.zst"
        ))
        .is_file());
    // incremental: nothing changed, nothing written
    let s = t.json(&["sessions", "archive", "--json"]);
    assert_eq!(
        (s["archived"].as_u64(), s["unchanged"].as_u64()),
        (Some(0), Some(files as u64))
    );
    let (code, out, _) = t.run(&["sessions", "archive"]);
    assert_eq!(code, 0);
    assert!(
        out.starts_with(&format!("archived 0 files (0B → 0B), {files} unchanged")),
        "{out}"
    );
    // the CLI's own files are as they were
    assert_eq!(snapshot(&t.projects()), before);

    // in both: listed once, from the store
    let live = t.json(&["sessions", "list", "--all", "--json"]);
    let n = live.as_array().unwrap().len();
    assert!(live
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s.get("fromArchive").is_none()));
    let export_before = t.run(&["sessions", "export", AGENT, "-f", "json"]).1;
    let usage_before = t.json(&["sessions", "usage", "--all", "--by", "session", "--json"]);

    // the CLI deletes the session
    let transcript = t.projects().join(FOLDER).join(format!("{AGENT}.jsonl"));
    std::fs::remove_file(&transcript).unwrap();
    std::fs::remove_dir_all(t.projects().join(FOLDER).join(AGENT)).unwrap();

    let list = t.json(&["sessions", "list", "--all", "--json"]);
    assert_eq!(list.as_array().unwrap().len(), n);
    let s = session(&list, AGENT).expect("still listed");
    assert_eq!(s["fromArchive"], true);
    assert_eq!(s["summary"], "ask a sub-agent whether all is good");
    let (_, table, _) = t.run(&["sessions", "list", "--all"]);
    let row = table.lines().find(|l| l.starts_with(&AGENT[..8])).unwrap();
    assert!(row.contains("(archived) ask a sub-agent"), "{row}");
    // --no-archive: as the CLI sees the store
    let only_live = t.json(&["sessions", "list", "--all", "--json", "--no-archive"]);
    assert!(session(&only_live, AGENT).is_none());
    assert_eq!(only_live.as_array().unwrap().len(), n - 1);

    // searched, with the mark
    let (code, out, err) = t.run(&["sessions", "search", "--all", "--json", "sub-agent whether"]);
    assert_eq!(code, 0, "{err}");
    let hit: Value = out
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|v| v["sessionId"] == AGENT)
        .expect("found in the archive");
    assert_eq!(hit["fromArchive"], true);
    let (code, _, _) = t.run(&[
        "sessions",
        "search",
        "--all",
        "--no-archive",
        "--json",
        "sub-agent whether",
    ]);
    assert_eq!(code, 1, "not found without the archive");

    // exported and counted as before
    let (code, export_after, _) = t.run(&["sessions", "export", AGENT, "-f", "json"]);
    assert_eq!(code, 0);
    assert_eq!(export_after, export_before);
    let (code, md, _) = t.run(&["sessions", "export", AGENT]);
    assert_eq!(code, 0);
    assert!(md.contains("from claudio's archive"), "{md}");
    let usage_after = t.json(&["sessions", "usage", "--all", "--by", "session", "--json"]);
    assert_eq!(usage_after["total"], usage_before["total"]);
    let row = usage_after["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["key"] == AGENT)
        .unwrap();
    assert_eq!(row["fromArchive"], true);
    assert_eq!(row["subagents"].as_array().unwrap().len(), 1, "{row}");

    // shown, sub-agents too
    let (code, shown, err) = t.run(&["sessions", "inspect", AGENT, "--subagents"]);
    assert_eq!(code, 0, "{err}");
    assert!(shown.contains("archived (the CLI deleted it)"), "{shown}");
    assert!(shown.contains("ask a sub-agent whether all is good"));
    assert!(shown.contains("a307f301b44dc750f"), "{shown}");
    let (code, raw, err) = t.run(&["sessions", "inspect", AGENT, "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("read from claudio's archive"), "{err}");
    assert!(raw.lines().count() > 2);
    for l in raw.lines() {
        serde_json::from_str::<Value>(l).expect("the entries as stored");
    }

    // never changed in the archive
    let (code, _, err) = t.run(&["sessions", "rename", AGENT, "new title"]);
    assert_eq!(code, 1);
    assert!(err.contains("only in the archive"), "{err}");
    // what to do about it, said once, after the error
    assert!(
        err.contains(&format!("; `claudio sessions resume {AGENT}` restores it")),
        "{err}"
    );
    assert_eq!(err.matches("only in the archive").count(), 1, "{err}");
    assert!(!transcript.exists());
}

#[test]
fn a_transcript_being_written_is_archived_whole_on_a_later_run() {
    let t = T::empty();
    let id = "0d9c1a52-6f5e-4c36-9d0b-0a4d3f6e1b7c";
    let path = t.projects().join("-w").join(format!("{id}.jsonl"));
    let line = |n: u32| {
        let parent = match n {
            1 => "null".to_owned(),
            _ => format!("\"0000000{}-0000-4000-8000-000000000000\"", n - 1),
        };
        format!("{{\"type\":\"user\",\"uuid\":\"0000000{n}-0000-4000-8000-000000000000\",\"parentUuid\":{parent},\"sessionId\":\"{id}\",\"cwd\":\"/w\",\"timestamp\":\"2026-11-01T10:00:0{n}Z\",\"message\":{{\"role\":\"user\",\"content\":\"prompt number {n}\"}}}}\n")
    };
    let first = line(1);
    std::fs::write(&path, format!("{first}{}", &line(2)[..40])).unwrap();
    let s = t.json(&["sessions", "archive", "--json"]);
    assert_eq!(
        (s["archived"].as_u64(), s["busy"].as_u64()),
        (Some(0), Some(1)),
        "{s}"
    );
    assert!(
        common::walk(&t.archive()).is_empty(),
        "nothing half-written, no temporary left"
    );
    let (_, out, _) = t.run(&["sessions", "archive"]);
    assert!(
        out.contains("1 still being written (archived on a later run)"),
        "{out}"
    );
    // finished: archived whole
    std::fs::write(&path, format!("{first}{}", line(2))).unwrap();
    let s = t.json(&["sessions", "archive", "--json"]);
    assert_eq!(s["archived"], 1, "{s}");
    std::fs::remove_file(&path).unwrap();
    let store = Store::new(t.cfg()).with_archive(t.archive());
    let (_, conv) = store.conversation(id).unwrap();
    let texts: Vec<String> = conv
        .entries
        .iter()
        .filter_map(|e| e.content().map(|c| c.text()))
        .collect();
    assert_eq!(texts, ["prompt number 1", "prompt number 2"]);
    // grown since: archived again, whole
    std::fs::write(&path, format!("{first}{}{}", line(2), line(3))).unwrap();
    assert_eq!(t.json(&["sessions", "archive", "--json"])["archived"], 1);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(store.conversation(id).unwrap().1.entries.len(), 3);
}

#[test]
fn links_fifos_and_devices_are_named_never_followed() {
    let t = T::empty();
    let folder = t.projects().join("-w");
    let outside = t.dir.path().join("secret.jsonl");
    std::fs::write(&outside, "{\"type\":\"user\",\"secret\":\"do not copy\"}\n").unwrap();
    let fifo = folder.join("11111111-1111-4111-8111-111111111111.jsonl");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    std::os::unix::fs::symlink(
        &outside,
        folder.join("22222222-2222-4222-8222-222222222222.jsonl"),
    )
    .unwrap();
    std::os::unix::fs::symlink(
        "/dev/zero",
        folder.join("33333333-3333-4333-8333-333333333333.jsonl"),
    )
    .unwrap();
    // a session folder whose sub-agents folder is a link out of the store
    let side = folder.join("44444444-4444-4444-8444-444444444444");
    std::fs::create_dir_all(&side).unwrap();
    let elsewhere = t.dir.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::copy(&outside, elsewhere.join("agent-x.jsonl")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, side.join("subagents")).unwrap();
    let (code, out, err) = t.run(&["sessions", "archive", "--json"]);
    assert_eq!(code, 1, "{out}{err}");
    let s: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(s["archived"], 0);
    let failed: Vec<&str> = s["failed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(failed.len(), 3, "{s}");
    for name in ["11111111", "22222222", "33333333"] {
        assert!(failed.iter().any(|p| p.contains(name)), "{name}: {s}");
        assert!(err.contains(name), "named on stderr: {err}");
    }
    let copied: Vec<PathBuf> = common::walk(&t.archive());
    assert!(copied.is_empty(), "{copied:?}");
}

#[test]
fn auto_archives_in_the_background() {
    let t = T::new();
    std::fs::create_dir_all(t.dir.path().join("xdg/claudio")).unwrap();
    std::fs::write(
        t.dir.path().join("xdg/claudio/config.toml"),
        "archive = \"auto\"\n",
    )
    .unwrap();
    let packed = t.archive().join(FOLDER).join(format!("{AGENT}.jsonl.zst"));
    // the pass runs at the lowest priority beside the command and never
    // holds it up: an `ask` kept open (its CLI waits for the test) gives
    // it all the time it needs on a loaded machine, where a quick command
    // ends first
    let gate = tempfile::tempdir().unwrap();
    let go = gate.path().join("go");
    let fake = common::Fake::after_init(vec![vec![
        common::expect_user("hi"),
        common::Step::WaitFile(go.clone()),
        common::result("done"),
    ]]);
    let mut c = t.cmd();
    c.env("CLAUDIO_CLI", common::fake_cli())
        .env("FAKE_CLAUDE_SCENARIO", fake.scenario_file())
        .env("FAKE_CLAUDE_RECORD", fake.record.path())
        .env("CLAUDE_CODE_SANDBOXED", "1")
        .args(["ask", "hi"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut ask = c.spawn().unwrap();
    let (out, err) = (ask.stdout.take(), ask.stderr.take());
    let out = std::thread::spawn(move || common::read_all(out));
    let err = std::thread::spawn(move || common::read_all(err));
    let stamp = t.archive().join(".last-auto-archive");
    let until = std::time::Instant::now() + Duration::from_secs(120);
    while !stamp.exists() {
        // never half-written, while it works
        for f in common::walk(&t.archive()) {
            let name = f.file_name().unwrap().to_string_lossy().into_owned();
            assert!(!name.ends_with(".zst") || zstd_ok(&f), "{name} is whole");
        }
        if std::time::Instant::now() > until {
            let _ = ask.kill();
            panic!("no background pass finished while `ask` ran");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    std::fs::write(&go, b"").unwrap();
    let status = common::wait_with_deadline(&mut ask, 60);
    let (out, err) = (out.join().unwrap(), err.join().unwrap());
    assert!(status.success(), "{out}{err}");
    assert_eq!(out.trim(), "done", "{err}");
    assert!(packed.is_file());
    let files = common::walk(&t.projects()).len() as u64;
    let s = t.json(&["sessions", "archive", "--json"]);
    assert_eq!(
        s["unchanged"], files,
        "the background pass archived everything: {s}"
    );
    // a pass cut short by a quick command's exit leaves nothing half-written
    let t3 = T::new();
    std::fs::create_dir_all(t3.dir.path().join("xdg/claudio")).unwrap();
    std::fs::write(
        t3.dir.path().join("xdg/claudio/config.toml"),
        "archive = \"auto\"\n",
    )
    .unwrap();
    for _ in 0..5 {
        let (code, _, err) = t3.run(&["sessions", "list", "--all", "--json"]);
        assert_eq!(code, 0, "{err}");
        for f in common::walk(&t3.archive()) {
            let name = f.file_name().unwrap().to_string_lossy().into_owned();
            assert!(!name.ends_with(".zst") || zstd_ok(&f), "{name} is whole");
        }
    }
    // off: no background pass
    let t2 = T::new();
    std::fs::create_dir_all(t2.dir.path().join("xdg/claudio")).unwrap();
    std::fs::write(
        t2.dir.path().join("xdg/claudio/config.toml"),
        "archive = \"off\"\n",
    )
    .unwrap();
    t2.run(&["sessions", "list", "--all", "--json"]);
    assert!(!t2.archive().exists());
}

/// Whether an archived file decompresses whole (as the store reads it).
fn zstd_ok(path: &Path) -> bool {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join(FOLDER);
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(path, folder.join(path.file_name().unwrap())).unwrap();
    let store = Store::new(dir.path().join("none")).with_archive(dir.path());
    let id = path
        .file_name()
        .unwrap()
        .to_string_lossy()
        .trim_end_matches(".jsonl.zst")
        .to_owned();
    store.conversation(&id).is_ok() || path.to_string_lossy().contains("subagents")
}

fn doctor_cleanup_line(t: &T) -> String {
    let (_, out, _) = t.run(&["doctor", "--color", "never"]);
    let i = out.find("cleanup").unwrap_or_else(|| panic!("{out}"));
    out[i..].lines().take(2).collect::<Vec<_>>().join("\n")
}

#[test]
fn doctor_reports_the_cleanup_period_and_what_goes_soon() {
    let t = T::empty();
    let path = t
        .projects()
        .join("-w/0d9c1a52-6f5e-4c36-9d0b-0a4d3f6e1b7c.jsonl");
    std::fs::write(&path, "{}\n").unwrap();
    let five_days_ago = SystemTime::now() - Duration::from_secs(5 * 86_400);
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(five_days_ago)
        .unwrap();
    // no setting: the CLI's 30 days; nothing goes within a week
    let line = doctor_cleanup_line(&t);
    assert!(
        line.contains("older than 30 days (cleanupPeriodDays, the CLI's default)"),
        "{line}"
    );
    assert!(line.contains("in the next 7 days: 0 sessions"), "{line}");
    assert!(line.contains("archive = \"auto\""), "suggested: {line}");
    // set to 10 days: the 5-day-old session goes within a week
    let settings = t.cfg().join("settings.json");
    std::fs::write(
        &settings,
        "{\"cleanupPeriodDays\": 10, \"model\": \"opus\"}",
    )
    .unwrap();
    let line = doctor_cleanup_line(&t);
    assert!(
        line.contains(&format!(
            "older than 10 days (cleanupPeriodDays in {})",
            settings.display()
        )),
        "{line}"
    );
    assert!(
        line.contains("in the next 7 days: 1 session (3B), 1 not archived"),
        "{line}"
    );
    // archived: said so; with archive = "auto", no suggestion
    t.run(&["sessions", "archive"]);
    std::fs::create_dir_all(t.dir.path().join("xdg/claudio")).unwrap();
    std::fs::write(
        t.dir.path().join("xdg/claudio/config.toml"),
        "archive = \"auto\"\n",
    )
    .unwrap();
    let line = doctor_cleanup_line(&t);
    assert!(line.contains("1 session (3B), all archived"), "{line}");
    assert!(line.contains("archived automatically into"), "{line}");
    assert!(!line.contains("fix:"), "{line}");
    // 0: no cleanup
    std::fs::write(&settings, "{\"cleanupPeriodDays\": 0}").unwrap();
    assert!(doctor_cleanup_line(&t).contains("off (0: cleanupPeriodDays in"));
}

/// Done-when of issue 24: a real CLI session archived, deleted, still
/// listed, searched and exported, then resumed: `resume` restores it and
/// the real CLI goes on with the conversation.
#[test]
fn a_deleted_session_is_restored_and_resumed_by_the_real_cli() {
    let w = world!("a_deleted_session_is_restored_and_resumed_by_the_real_cli");
    let archive = w.home.path().join("archive");
    let claudio = |args: &[&str]| {
        let mut c = w.claudio();
        c.env("CLAUDIO_ARCHIVE_DIR", &archive).args(args);
        c
    };
    w.api.push(Reply::text("Noted: pineapple."));
    let (code, out, err) = run(&mut claudio(&["ask", "remember the word pineapple"]));
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "Noted: pineapple.\n");
    let projects = w.home.path().join(".claude/projects");
    let transcript = common::walk(&projects)
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .expect("the CLI wrote a transcript");
    let id = transcript
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    // old, as a transcript about to be cleaned up is
    let old = SystemTime::now() - Duration::from_secs(60 * 86_400);
    std::fs::File::options()
        .write(true)
        .open(&transcript)
        .unwrap()
        .set_modified(old)
        .unwrap();

    // 1. archived
    let (code, out, err) = run(&mut claudio(&["sessions", "archive", "--json"]));
    assert_eq!(code, 0, "{err}");
    let s: Value = serde_json::from_str(&out).unwrap();
    assert!(s["archived"].as_u64().unwrap() >= 1, "{s}");
    // 2. deleted, as the CLI's cleanup deletes it
    std::fs::remove_file(&transcript).unwrap();
    // 3. listed, searchable, exportable
    let (code, out, err) = run(&mut claudio(&["sessions", "list", "--all", "--json"]));
    assert_eq!(code, 0, "{err}");
    let list: Value = serde_json::from_str(&out).unwrap();
    let listed = session(&list, &id).expect("listed from the archive");
    assert_eq!(listed["fromArchive"], true);
    assert_eq!(listed["summary"], "remember the word pineapple");
    let (code, out, err) = run(&mut claudio(&["sessions", "search", "--all", "pineapple"]));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(&id[..8]) && out.contains("(archived)"),
        "{out}"
    );
    let (code, md, err) = run(&mut claudio(&["sessions", "export", &id[..8]]));
    assert_eq!(code, 0, "{err}");
    assert!(
        md.contains("remember the word pineapple") && md.contains("Noted: pineapple."),
        "{md}"
    );
    // 4. resumed: restored into the store, and the CLI goes on
    w.api.push(Reply::text("It was pineapple."));
    let mut c = claudio(&["sessions", "resume", &id[..8]]);
    let mut child = c
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(b"what was the word?").unwrap();
    }
    let (out, err) = (child.stdout.take(), child.stderr.take());
    let out = std::thread::spawn(move || common::read_all(out));
    let err = std::thread::spawn(move || common::read_all(err));
    let status = common::wait_with_deadline(&mut child, 60);
    let (out, err) = (out.join().unwrap(), err.join().unwrap());
    assert_eq!(status.code(), Some(0), "{err}");
    assert!(err.contains("restored session"), "{err}");
    assert_eq!(out, "It was pineapple.\n");
    let last = w.main_requests().pop().unwrap();
    assert!(
        last.body_contains("remember the word pineapple"),
        "the resumed turn lacks the earlier prompt"
    );
    // the CLI wrote the new turn into the restored transcript
    let text = std::fs::read_to_string(&transcript).unwrap();
    assert!(text.contains("remember the word pineapple") && text.contains("It was pineapple."));
    let (_, out, _) = run(&mut claudio(&["sessions", "list", "--all", "--json"]));
    let list: Value = serde_json::from_str(&out).unwrap();
    assert!(session(&list, &id).unwrap().get("fromArchive").is_none());

    // 5. archived and deleted again, then `claudio ask -r`: the library's
    // resume_target restores it as well, and the CLI goes on once more
    std::fs::File::options()
        .write(true)
        .open(&transcript)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let (code, out, err) = run(&mut claudio(&["sessions", "archive", "--json"]));
    assert_eq!(code, 0, "{err}");
    let s: Value = serde_json::from_str(&out).unwrap();
    assert!(s["archived"].as_u64().unwrap() >= 1, "the longer copy: {s}");
    std::fs::remove_file(&transcript).unwrap();
    w.api.push(Reply::text("Still pineapple."));
    let (code, out, err) = run(&mut claudio(&["ask", "-r", &id[..8], "and now?"]));
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("restored session"), "{err}");
    assert_eq!(out, "Still pineapple.\n");
    let last = w.main_requests().pop().unwrap();
    assert!(
        last.body_contains("It was pineapple."),
        "the resumed turn lacks the restored answer"
    );
    let text = std::fs::read_to_string(&transcript).unwrap();
    assert!(text.contains("It was pineapple.") && text.contains("Still pineapple."));
}

#[test]
fn dash_r_restores_a_deleted_session_too() {
    let t = T::new();
    assert_eq!(t.run(&["sessions", "archive"]).0, 0);
    let transcript = t.projects().join(FOLDER).join(format!("{AGENT}.jsonl"));
    let original = std::fs::read(&transcript).unwrap();
    std::fs::remove_file(&transcript).unwrap();
    std::fs::remove_dir_all(t.projects().join(FOLDER).join(AGENT)).unwrap();
    let fake = common::Fake::new(common::steps(vec![common::init(), common::turn("q", "a")]));
    let mut c = common::claudio(&fake);
    c.env("CLAUDE_CONFIG_DIR", t.cfg())
        .env("CLAUDIO_ARCHIVE_DIR", t.archive())
        .env("HOME", t.dir.path())
        .args(["ask", "-r", &AGENT[..8], "q"]);
    let (code, out, err) = run(&mut c);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "a\n");
    assert!(err.contains("restored session"), "{err}");
    assert!(
        fake.argv().contains(&format!("--resume={AGENT}")),
        "{:?}",
        fake.argv()
    );
    assert_eq!(std::fs::read(&transcript).unwrap(), original);
    let agent = t
        .projects()
        .join(FOLDER)
        .join(AGENT)
        .join("subagents/agent-a307f301b44dc750f.jsonl");
    assert!(agent.is_file(), "sub-agents restored too");
}

#[test]
fn a_hostile_archive_is_named_never_hangs() {
    let t = T::new();
    let folder = t.archive().join(FOLDER);
    std::fs::create_dir_all(&folder).unwrap();
    let name = |n: u8| format!("{n}{n}{n}{n}{n}{n}{n}{n}-0000-4000-8000-00000000000{n}.jsonl.zst");
    // a FIFO, a link to a device, a link out of the archive, garbage, a
    // header that claims a huge file over garbage
    assert!(Command::new("mkfifo")
        .arg(folder.join(name(1)))
        .status()
        .unwrap()
        .success());
    std::os::unix::fs::symlink("/dev/zero", folder.join(name(2))).unwrap();
    let good = t.projects().join(FOLDER).join(format!("{AGENT}.jsonl"));
    std::os::unix::fs::symlink(&good, folder.join(name(3))).unwrap();
    std::fs::write(folder.join(name(4)), b"not zstd at all\n").unwrap();
    let mut lie = Vec::new();
    lie.extend_from_slice(&0x184D_2A5Cu32.to_le_bytes());
    lie.extend_from_slice(&48u32.to_le_bytes());
    lie.extend_from_slice(b"claudio1");
    lie.extend_from_slice(&u64::MAX.to_le_bytes()); // size
    lie.extend_from_slice(&1_700_000_000u64.to_le_bytes());
    lie.extend_from_slice(&0u64.to_le_bytes());
    lie.extend_from_slice(&60u64.to_le_bytes()); // tail frame: garbage
    lie.extend_from_slice(&(u64::MAX - 65_536).to_le_bytes());
    lie.extend_from_slice(&[0xAB; 4096]);
    std::fs::write(folder.join(name(5)), &lie).unwrap();
    let live = t.json(&["sessions", "list", "--all", "--json", "--no-archive"]);
    let (code, out, err) = t.run(&["sessions", "list", "--all", "--json"]);
    assert_eq!(code, 0, "{err}");
    let list: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(list, live, "nothing from the hostile archive is listed");
    for n in 1..=5u8 {
        assert!(
            err.contains(&format!("{n}{n}{n}{n}{n}{n}{n}{n}")),
            "{n} named: {err}"
        );
    }
    for args in [
        &["sessions", "search", "--all", "--json", "anything"][..],
        &["sessions", "usage", "--all", "--json"][..],
        &["sessions", "inspect", "55555555"][..],
        &["sessions", "export", "44444444"][..],
        &["sessions", "resume", "11111111"][..],
    ] {
        let (code, _, err) = t.run(args);
        assert!(code == 0 || code == 1, "{args:?}: {code} {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    assert!(!t
        .projects()
        .join(FOLDER)
        .join(name(1).replace(".zst", ""))
        .exists());
}

/// An archive folder whose name holds a terminal's title sequence and a
/// newline (and is a file, so it cannot be made): the error names it
/// whole and on one line, the sequence shown as text, nothing raw on
/// stderr.
#[test]
fn an_archive_path_is_named_whole_on_one_line() {
    let t = T::new();
    let archive = t.dir.path().join("arch\x1b]0;x\x07\nive");
    std::fs::write(&archive, b"a file, not a folder\n").unwrap();
    let shown = format!("{}/arch\\e]0;x\\a\\nive", t.dir.path().display());
    let (code, _, err) = run(t
        .cmd()
        .env("CLAUDIO_ARCHIVE_DIR", &archive)
        .args(["sessions", "archive"]));
    assert_ne!(code, 0, "{err}");
    assert!(!err.contains(['\x1b', '\x07']), "{err:?}");
    assert!(err.contains(&format!("cannot access {shown}: ")), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}
