//! `claudio deck`: the hook a claude TUI runs, the settings it goes in,
//! the sessions' snapshot and a deck answering a hook, through the
//! program itself.

use crate::common::{run, stderr, stdout};
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const REQUEST: &str = r#"{"session_id":"0b5e2d0e-2a47-4b55-9c1e-3f2b3c4d5e6f","transcript_path":"/tmp/none.jsonl","cwd":"/tmp","permission_mode":"default","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"touch made-by-the-tool"},"permission_suggestions":[]}"#;

/// The program with a home, a Claude folder and a runtime folder of the
/// test's own.
pub(crate) fn deck(home: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_claudio"));
    c.args(args)
        .env("HOME", home)
        .env("XDG_RUNTIME_DIR", home.join("run"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env_remove("CLAUDE_CONFIG_DIR")
        // a test run from inside a claudio chat's tool is still a TUI's hook
        .env_remove("CLAUDIO_PUBLISHES_REQUESTS")
        .env("NO_COLOR", "1");
    c
}

pub(crate) fn home() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("run")).unwrap();
    d
}

#[test]
fn the_hook_with_no_deck_prints_nothing_and_exits_0() {
    let h = home();
    let o = run(deck(h.path(), &["deck", "hook"]), Some(REQUEST.as_bytes()));
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o), "");
    assert_eq!(stderr(&o), "");
    // no input at all, or input that is no JSON: the same
    let o = run(deck(h.path(), &["deck", "hook"]), Some(b"not json"));
    assert_eq!((o.status.code(), stdout(&o).as_str()), (Some(0), ""));
    let o = run(deck(h.path(), &["deck", "hook"]), None);
    assert_eq!((o.status.code(), stdout(&o).as_str()), (Some(0), ""));
}

#[test]
fn hooks_install_status_and_remove_give_the_file_back_byte_for_byte() {
    let h = home();
    let settings = h.path().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let before =
        "{\n  \"permissions\": {\n    \"defaultMode\": \"default\"\n  },\n  \"theme\":\"dark\" }\n";
    std::fs::write(&settings, before).unwrap();
    let o = run(deck(h.path(), &["deck", "hooks", "status"]), None);
    assert!(stdout(&o).starts_with("not installed"), "{}", stdout(&o));
    let o = run(deck(h.path(), &["deck", "hooks", "install", "--yes"]), None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // the change is shown before it is written
    assert!(
        stdout(&o).contains("+    \"PermissionRequest\": ["),
        "{}",
        stdout(&o)
    );
    let after: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    let command = after["hooks"]["PermissionRequest"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_owned();
    let exe = std::fs::canonicalize(env!("CARGO_BIN_EXE_claudio")).unwrap();
    assert!(command.ends_with(" deck hook"), "{command}");
    assert!(
        Path::new(command.trim_end_matches(" deck hook").trim_matches('\'')).is_absolute(),
        "{command}"
    );
    assert!(command.contains(exe.file_name().unwrap().to_str().unwrap()));
    assert_eq!(after["theme"], "dark");
    let o = run(deck(h.path(), &["deck", "hooks", "status"]), None);
    assert!(stdout(&o).starts_with("installed: "), "{}", stdout(&o));
    let o = run(deck(h.path(), &["deck", "hooks", "install", "--yes"]), None);
    assert!(
        stdout(&o).starts_with("already installed"),
        "{}",
        stdout(&o)
    );
    let o = run(deck(h.path(), &["deck", "hooks", "remove", "--yes"]), None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), before);
}

#[test]
fn the_snapshot_lists_running_sessions_and_names_hostile_files() {
    let h = home();
    let sessions = h.path().join(".claude/sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    // this test's own process stands for a running CLI
    let me = std::process::id();
    std::fs::write(
        sessions.join(format!("{me}.json")),
        format!(
            r#"{{"pid":{me},"sessionId":"0b5e2d0e-2a47-4b55-9c1e-3f2b3c4d5e6f","cwd":"/w","kind":"interactive","tmux":"0:@0.%0","status":"waiting","waitingFor":"permission prompt","updatedAt":1}}"#
        ),
    )
    .unwrap();
    let fifo = sessions.join("4242.json");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    std::os::unix::fs::symlink("/dev/zero", sessions.join("4243.json")).unwrap();
    let o = run(deck(h.path(), &["deck", "--json"]), None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let rows = v["sessions"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{v}");
    assert_eq!(rows[0]["pid"], me);
    assert_eq!(rows[0]["state"], "waiting");
    assert_eq!(rows[0]["waitingFor"], "permission prompt");
    assert_eq!(rows[0]["tmux"], "0:@0.%0");
    let problems: Vec<String> = v["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["reason"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        problems,
        ["a FIFO, not read", "a symbolic link, not followed"]
    );
}

/// A deck running: its stdout read line by line in a thread.
pub(crate) struct Deck {
    pub(crate) child: std::process::Child,
    lines: std::sync::mpsc::Receiver<String>,
}

impl Deck {
    pub(crate) fn start(home: &Path) -> Deck {
        let mut child = deck(home, &["deck"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let out = child.stdout.take().unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for l in BufReader::new(out).split(b'\n').map_while(Result::ok) {
                let _ = tx.send(String::from_utf8_lossy(&l).into_owned());
            }
        });
        let d = Deck { child, lines };
        d.wait_for("waiting for permission requests");
        d
    }

    /// Wait for a line holding `text` (bounded: a deck that never says it
    /// fails the test, not hangs it).
    pub(crate) fn wait_for(&self, text: &str) -> String {
        let until = Instant::now() + Duration::from_secs(60);
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) if l.contains(text) => return l,
                Ok(_) => {}
                Err(e) => panic!("the deck never said {text:?}: {e}"),
            }
        }
    }
}

impl Deck {
    /// The lines the deck printed since the last wait, not waiting.
    pub(crate) fn printed(&self) -> Vec<String> {
        self.lines.try_iter().collect()
    }
}

impl Drop for Deck {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn hook(home: &Path) -> std::process::Child {
    let mut c = deck(home, &["deck", "hook"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    c.stdin
        .take()
        .unwrap()
        .write_all(REQUEST.as_bytes())
        .unwrap();
    c
}

#[test]
fn a_deck_answering_y_allows_the_hook_s_request() {
    let h = home();
    let mut d = Deck::start(h.path());
    let socket = h.path().join("run/claudio/deck.sock");
    use std::os::unix::fs::MetadataExt;
    assert_eq!(std::fs::metadata(&socket).unwrap().mode() & 0o777, 0o600);
    assert_eq!(
        std::fs::metadata(socket.parent().unwrap()).unwrap().mode() & 0o777,
        0o700
    );
    let child = hook(h.path());
    // the request is shown whole before the answer
    d.wait_for("touch made-by-the-tool");
    d.child.stdin.as_mut().unwrap().write_all(b"y\n").unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(
        v,
        serde_json::json!({"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}})
    );
    // one deck at a time
    let o = run(deck(h.path(), &["deck"]), Some(b""));
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("another deck answers"),
        "{}",
        stderr(&o)
    );
}

/// The CLI a claudio chat starts runs the person's installed deck hook
/// beside the stream-json request the chat offers to the deck itself: the
/// hook stands aside at once, or the deck holds the chat's request twice
/// (found by hand: "1 sessions · 2 need you"). On the old code the hook
/// asked the deck and waited for its answer.
#[test]
fn the_hook_of_a_session_claudio_publishes_stands_aside_at_once() {
    let h = home();
    let mut d = Deck::start(h.path());
    let mut c = deck(h.path(), &["deck", "hook"]);
    c.env("CLAUDIO_PUBLISHES_REQUESTS", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(REQUEST.as_bytes())
        .unwrap();
    let status = crate::common::wait_with_deadline(&mut child, 60);
    let o = child.wait_with_output().unwrap();
    assert_eq!((status.code(), stdout(&o).as_str()), (Some(0), ""));
    // the deck holds nothing of it: the next request it shows and answers
    // is a TUI's, whose hook gets the allow
    let tui = hook(h.path());
    d.wait_for("touch made-by-the-tool");
    d.child.stdin.as_mut().unwrap().write_all(b"y\n").unwrap();
    let o = tui.wait_with_output().unwrap();
    assert!(stdout(&o).contains("\"allow\""), "{}", stdout(&o));
}

#[test]
fn a_deck_killed_mid_answer_leaves_the_tui_to_ask() {
    let h = home();
    let mut d = Deck::start(h.path());
    let child = hook(h.path());
    d.wait_for("touch made-by-the-tool");
    d.child.kill().unwrap();
    d.child.wait().unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o), "", "no decision: the TUI shows its dialog");
    // and the next request, with the deck's socket left behind, too
    let o = run(deck(h.path(), &["deck", "hook"]), Some(REQUEST.as_bytes()));
    assert_eq!((o.status.code(), stdout(&o).as_str()), (Some(0), ""));
}

/// The full-screen deck on a terminal of `cols` columns.
fn full_deck(home: &Path, cols: u16) -> crate::common::term::Term {
    let t = crate::common::term::Term::spawn_sized(deck(home, &["deck"]), 24, cols);
    t.wait_for("claudio deck");
    t
}

#[test]
fn the_full_screen_deck_answers_a_request_with_y_and_enter() {
    let h = home();
    let mut t = full_deck(h.path(), 100);
    let child = hook(h.path());
    // the row, and the request as the chat's approval shows it
    let screen = t.wait_for("touch made-by-the-tool");
    assert!(screen.contains("NEEDS YOU"), "{screen}");
    t.send(b"y\r");
    let o = child.wait_with_output().unwrap();
    let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(
        v["hookSpecificOutput"]["decision"],
        serde_json::json!({"behavior": "allow"})
    );
    t.wait_for("allowed once");
    // q leaves the alternate screen and puts the terminal back
    t.send(b"q");
    assert!(t.wait(20).success());
    // (read as it reaches the test: the program may be gone first)
    t.read_until("\x1b[?1049l");
    assert!(
        !h.path().join("run/claudio/deck.sock").exists(),
        "the socket goes with the deck"
    );
}

/// A paste never answers a request: the full deck asks the terminal to
/// mark pastes (bracketed paste), so a pasted `y` and newline are typed
/// text, not the key that allows; Enter is the person's own.
#[test]
fn a_paste_in_the_full_deck_is_typed_never_an_answer() {
    let h = home();
    let mut t = full_deck(h.path(), 100);
    let mut child = hook(h.path());
    t.wait_for("touch made-by-the-tool");
    assert!(
        t.raw().contains("\x1b[?2004h"),
        "the deck asks the terminal to mark pastes"
    );
    // pasted: `y`, a newline and more; typed as one line, not sent
    t.send(b"\x1b[200~y\rno, not now\x1b[201~");
    t.wait_for("why not › y no, not now");
    assert!(child.try_wait().unwrap().is_none(), "nothing was answered");
    // the person's own Enter sends what was typed: a denial with its reason
    t.send(b"\r");
    let o = child.wait_with_output().unwrap();
    let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(
        v["hookSpecificOutput"]["decision"]["behavior"], "deny",
        "{v}"
    );
    t.send(b"q");
    assert!(t.wait(20).success());
    t.read_until("\x1b[?2004l");
}

/// An asker that takes its time to acknowledge an answer stops nothing:
/// the deck shows the next request meanwhile, says the answer was sent,
/// and what became of it once the asker says (it was taken).
#[test]
fn an_asker_slow_to_acknowledge_never_stops_the_full_deck() {
    let h = home();
    let mut t = full_deck(h.path(), 100);
    // an asker of the test's own, on the deck's socket
    let socket = h.path().join("run/claudio/deck.sock");
    let mut first = std::os::unix::net::UnixStream::connect(&socket).unwrap();
    let mut input: Value = serde_json::from_str(REQUEST).unwrap();
    input["tool_input"]["command"] = "echo the-first-one".into();
    let offer =
        serde_json::json!({"type": "permission", "token": "tok-first-0001", "input": input});
    first.write_all(format!("{offer}\n").as_bytes()).unwrap();
    t.wait_for("echo the-first-one");
    t.send(b"y\r");
    // the answer reached the asker, which does not acknowledge yet
    let mut line = String::new();
    BufReader::new(&first).read_line(&mut line).unwrap();
    let answer: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(answer["token"], "tok-first-0001");
    assert_eq!(answer["behavior"], "allow", "{answer}");
    t.wait_for("(sent)");
    // the next request is shown and answered meanwhile
    let child = hook(h.path());
    let screen = t.wait_for("touch made-by-the-tool");
    assert!(
        !screen.contains("first:"),
        "nothing said of the first yet: {screen}"
    );
    // the asker says it took the answer: the deck says so
    first
        .write_all(b"{\"token\":\"tok-first-0001\",\"taken\":true}\n")
        .unwrap();
    t.wait_for("allowed once: /tmp");
    t.send(b"y\r");
    let o = child.wait_with_output().unwrap();
    let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(
        v["hookSpecificOutput"]["decision"]["behavior"], "allow",
        "{v}"
    );
    t.send(b"q");
    assert!(t.wait(20).success());
}

#[test]
fn the_full_screen_deck_sees_sessions_come_and_names_the_pane_of_one_it_cannot_answer() {
    let h = home();
    let sessions = h.path().join(".claude/sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    let t = full_deck(h.path(), 120);
    // each line awaited: a screen taken the moment one shows may not hold
    // the next yet (it failed so under load)
    t.wait_for("no claude sessions are running");
    // no hook in the settings: the deck says what brings the TUI's
    // requests to it
    t.wait_for("by `claudio tui`, or once `claudio deck hooks install` has run");
    // a TUI waiting on a question (this test's process stands for it),
    // written after the deck started: the deck is told, not polled
    let me = std::process::id();
    std::fs::write(
        sessions.join(format!("{me}.json")),
        format!(
            r#"{{"pid":{me},"sessionId":"0b5e2d0e-2a47-4b55-9c1e-3f2b3c4d5e6f","cwd":"/w/site\u001b[2J","kind":"interactive","entrypoint":"cli","tmux":"0:@1.%3","status":"waiting","waitingFor":"question","updatedAt":1}}"#
        ),
    )
    .unwrap();
    t.wait_for("tmux 0:@1.%3");
    t.wait_for("question: answer in its terminal");
    t.wait_for("site\\e[2J");
    assert!(!t.raw().contains("site\x1b[2J"));
    std::fs::remove_file(sessions.join(format!("{me}.json"))).unwrap();
    t.wait_for("no claude sessions are running");
}

#[test]
fn json_lists_the_full_deck_s_requests_and_watch_streams_the_changes() {
    let h = home();
    let sessions = h.path().join(".claude/sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    // no deck: nothing pending, and said so
    let o = run(deck(h.path(), &["deck", "--json"]), None);
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(
        (&v["deck"], &v["pending"]),
        (&Value::Bool(false), &serde_json::json!([]))
    );
    let mut t = full_deck(h.path(), 100);
    let mut watch = deck(h.path(), &["deck", "--watch"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (tx, events) = std::sync::mpsc::channel::<Value>();
    let out = watch.stdout.take().unwrap();
    std::thread::spawn(move || {
        for l in BufReader::new(out).lines().map_while(Result::ok) {
            let _ = tx.send(serde_json::from_str(&l).unwrap());
        }
    });
    let next = |name: &str| -> Value {
        let until = Instant::now() + Duration::from_secs(30);
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match events.recv_timeout(left) {
                Ok(e) if e["event"] == name => return e,
                Ok(_) => {}
                Err(e) => panic!("no {name} event: {e}"),
            }
        }
    };
    let me = std::process::id();
    std::fs::write(
        sessions.join(format!("{me}.json")),
        format!(r#"{{"pid":{me},"cwd":"/w","kind":"interactive","status":"busy"}}"#),
    )
    .unwrap();
    let e = next("session-appeared");
    assert_eq!(e["session"]["state"], "working");
    let child = hook(h.path());
    let e = next("request-pending");
    assert_eq!(
        e["request"]["toolInput"]["command"],
        "touch made-by-the-tool"
    );
    let id = e["request"]["id"].clone();
    // the snapshot lists it too, the hook's input byte for byte
    let o = run(deck(h.path(), &["deck", "--json"]), None);
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["deck"], true);
    assert_eq!(v["pending"][0]["toolName"], "Bash");
    assert_eq!(
        v["pending"][0]["sessionId"],
        "0b5e2d0e-2a47-4b55-9c1e-3f2b3c4d5e6f"
    );
    t.wait_for("touch made-by-the-tool");
    t.send(b"n\r");
    let deck_id = e["request"]["deckId"].clone();
    assert!(deck_id.as_str().is_some_and(|d| !d.is_empty()), "{e}");
    let answered = next("request-answered");
    assert_eq!((&answered["id"], &answered["deckId"]), (&id, &deck_id));
    let o = child.wait_with_output().unwrap();
    assert!(stdout(&o).contains("\"deny\""));
    std::fs::remove_file(sessions.join(format!("{me}.json"))).unwrap();
    assert_eq!(next("session-gone")["pid"], me);
    let _ = watch.kill();
    let _ = watch.wait();
}

/// A registry file for a claude TUI (`pid` stands for it) in `sessions`.
fn tui_entry(sessions: &Path, pid: u32, id: &str, status: &str, waiting_for: &str, since: u64) {
    let tmp = sessions.join(format!(".{pid}.tmp"));
    std::fs::write(
        &tmp,
        serde_json::json!({
            "pid": pid, "sessionId": id, "cwd": format!("/w/{id}"), "kind": "interactive",
            "entrypoint": "cli", "status": status,
            "waitingFor": (!waiting_for.is_empty()).then_some(waiting_for),
            "updatedAt": since, "statusUpdatedAt": since,
        })
        .to_string(),
    )
    .unwrap();
    // as the CLI writes it: whole, at once
    std::fs::rename(tmp, sessions.join(format!("{pid}.json"))).unwrap();
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// The notices a `[notify]` command wrote, one JSON object a line, once
/// there are `n` of them (bounded).
fn notices(log: &Path, n: usize) -> Vec<Value> {
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        let got: Vec<Value> = text
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        if got.len() >= n || Instant::now() > until {
            return got;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A config file whose `[notify]` command appends each notice to `log`.
fn notify_config(home: &Path, log: &Path) -> std::path::PathBuf {
    let config = home.join("config.toml");
    std::fs::write(
        &config,
        format!(
            "[notify]\nbell = false\ncommand = \"cat >> '{}'\"\n",
            log.display()
        ),
    )
    .unwrap();
    config
}

/// The full-screen deck sends the config file's notices for claude TUI
/// sessions: one for a permission request from the hook, none more for a
/// second request of the same session meanwhile (a sub-agent) or its own
/// dialog beside the hook's; one for another session's question; one for
/// a long turn's end.
#[test]
fn the_full_deck_sends_one_notice_per_tui_event() {
    let h = home();
    let sessions = h.path().join(".claude/sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    let log = h.path().join("notices.jsonl");
    let config = notify_config(h.path(), &log);
    const ID: &str = "0b5e2d0e-2a47-4b55-9c1e-3f2b3c4d5e6f";
    let me = std::process::id();
    // working for two minutes already when the deck starts
    tui_entry(&sessions, me, ID, "busy", "", now_ms() - 120_000);
    let mut c = deck(h.path(), &["deck"]);
    c.env("CLAUDIO_CONFIG", &config);
    let mut t = crate::common::term::Term::spawn_sized(c, 30, 110);
    t.wait_for("WORKING");
    // the hook's request, and a sub-agent's beside it
    let first = hook(h.path());
    t.wait_for("touch made-by-the-tool");
    let second = hook(h.path());
    t.wait_for("2 need you");
    let got = notices(&log, 1);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0]["kind"], "permission");
    assert_eq!(got[0]["title"], "Bash waits for you");
    assert_eq!(got[0]["session"], ID);
    // the TUI's own dialog beside the hook's wait: the same event
    tui_entry(&sessions, me, ID, "waiting", "permission prompt", now_ms());
    // another session asks a question in its terminal
    let mut other = Command::new("sleep").arg("60").spawn().unwrap();
    tui_entry(
        &sessions,
        other.id(),
        "s-other",
        "waiting",
        "question",
        now_ms(),
    );
    t.wait_for("question: answer in its terminal");
    let got = notices(&log, 2);
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[1]["kind"], "question");
    assert_eq!(got[1]["session"], "s-other");
    // both requests answered; the turn goes on, then ends
    t.send(b"y\r");
    t.wait_for("allowed once");
    t.send(b"y\r");
    assert!(first.wait_with_output().unwrap().status.success());
    assert!(second.wait_with_output().unwrap().status.success());
    tui_entry(&sessions, me, ID, "busy", "", now_ms());
    tui_entry(&sessions, me, ID, "idle", "", now_ms());
    let got = notices(&log, 3);
    assert_eq!(got.len(), 3, "{got:?}");
    assert_eq!(got[2]["kind"], "turn");
    assert_eq!(got[2]["title"], "Claude is done");
    assert!(
        got[2]["body"]
            .as_str()
            .unwrap()
            .starts_with("claude TUI in 0b5e2d0e-2a47-4b55-9c1e-3f2b3c4d5e6f, after 1"),
        "{got:?}"
    );
    // nothing more came
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(notices(&log, 0).len(), 3);
    let _ = other.kill();
    let _ = other.wait();
    t.send(b"q");
    t.wait(20);
}

/// `deck --watch` sends the same notices (its stdout stays NDJSON): a
/// session that starts waiting, a long turn's end.
#[test]
fn watch_sends_notices_and_keeps_its_output_json() {
    let h = home();
    let sessions = h.path().join(".claude/sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    let log = h.path().join("notices.jsonl");
    let config = notify_config(h.path(), &log);
    let me = std::process::id();
    tui_entry(&sessions, me, "s-w", "busy", "", now_ms() - 90_000);
    let mut c = deck(h.path(), &["deck", "--watch"]);
    c.env("CLAUDIO_CONFIG", &config)
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut watch = c.spawn().unwrap();
    let out = watch.stdout.take().unwrap();
    let (tx, lines) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        for l in BufReader::new(out).lines().map_while(Result::ok) {
            let _ = tx.send(l);
        }
    });
    let next = |state: &str| {
        let until = Instant::now() + Duration::from_secs(30);
        loop {
            let l = lines
                .recv_timeout(until.saturating_duration_since(Instant::now()))
                .unwrap();
            let v: Value = serde_json::from_str(&l).unwrap_or_else(|_| panic!("not JSON: {l:?}"));
            if v["session"]["state"] == state {
                return;
            }
        }
    };
    next("working");
    tui_entry(
        &sessions,
        me,
        "s-w",
        "waiting",
        "permission prompt",
        now_ms(),
    );
    next("waiting");
    let got = notices(&log, 1);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0]["kind"], "permission");
    tui_entry(&sessions, me, "s-w", "idle", "", now_ms());
    next("idle");
    let got = notices(&log, 2);
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[1]["kind"], "turn");
    let _ = watch.kill();
    let _ = watch.wait();
}

/// Five claude TUIs (sleeping processes stand for them) each waiting on a
/// permission its hook handed the full deck, while their files still say
/// `busy` (as the TUI's does while its hook runs): `deck --json` shows all
/// five waiting and none working, each with its request, and so does the
/// screen.
#[test]
fn sessions_waiting_on_the_deck_are_never_shown_working() {
    let h = home();
    let sessions = h.path().join(".claude/sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    let mut t = full_deck(h.path(), 110);
    let mut stand_ins = Vec::new();
    let mut hooks = Vec::new();
    for i in 0..5 {
        let p = Command::new("sleep").arg("120").spawn().unwrap();
        let id = format!("5e55i0n-{i}");
        tui_entry(&sessions, p.id(), &id, "busy", "", now_ms());
        stand_ins.push(p);
        let mut req: Value = serde_json::from_str(REQUEST).unwrap();
        req["session_id"] = id.clone().into();
        req["tool_input"]["command"] = format!("touch made-{i}").into();
        let mut c = deck(h.path(), &["deck", "hook"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        c.stdin
            .take()
            .unwrap()
            .write_all(req.to_string().as_bytes())
            .unwrap();
        hooks.push(c);
    }
    t.wait_for("5 sessions · 5 need you");
    let until = Instant::now() + Duration::from_secs(30);
    let v = loop {
        let o = run(deck(h.path(), &["deck", "--json"]), None);
        let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
        if v["pending"].as_array().unwrap().len() == 5 || Instant::now() > until {
            break v;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let rows = v["sessions"].as_array().unwrap();
    assert_eq!(rows.len(), 5, "{v}");
    for r in rows {
        assert_eq!(r["state"], "waiting", "{v}");
        assert_eq!(r["status"], "busy", "its file as it is: {v}");
    }
    assert_eq!(v["pending"].as_array().unwrap().len(), 5, "{v}");
    assert!(!t.contents().contains("WORKING"), "{}", t.contents());
    // answered one by one from the deck: each hook gets its allow
    for _ in 0..5 {
        t.send(b"y\r");
        std::thread::sleep(Duration::from_millis(100));
    }
    for c in hooks {
        let o = c.wait_with_output().unwrap();
        assert!(stdout(&o).contains("\"allow\""), "{}", stdout(&o));
    }
    for mut p in stand_ins {
        let _ = p.kill();
        let _ = p.wait();
    }
    t.send(b"q");
    t.wait(20);
}

/// The line-by-line deck sends the config file's notice for a request
/// too: one, while it waits for the answer.
#[test]
fn the_line_deck_sends_one_notice_per_request() {
    let h = home();
    let log = h.path().join("notices.jsonl");
    let config = notify_config(h.path(), &log);
    let mut child = deck(h.path(), &["deck"])
        .env("CLAUDIO_CONFIG", &config)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let (tx, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for l in BufReader::new(out).split(b'\n').map_while(Result::ok) {
            let _ = tx.send(String::from_utf8_lossy(&l).into_owned());
        }
    });
    let mut d = Deck { child, lines };
    d.wait_for("waiting for permission requests");
    let first = hook(h.path());
    d.wait_for("touch made-by-the-tool");
    let got = notices(&log, 1);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0]["kind"], "permission");
    assert_eq!(got[0]["body"], "claude TUI in tmp: touch made-by-the-tool");
    d.child.stdin.as_mut().unwrap().write_all(b"y\n").unwrap();
    assert!(stdout(&first.wait_with_output().unwrap()).contains("\"allow\""));
    // answered: the next request is a notice again
    let second = hook(h.path());
    d.wait_for("touch made-by-the-tool");
    assert_eq!(notices(&log, 2).len(), 2);
    d.child.stdin.as_mut().unwrap().write_all(b"n\n").unwrap();
    assert!(stdout(&second.wait_with_output().unwrap()).contains("\"deny\""));
}

/// A claude TUI hands its questions to the PermissionRequest hook too
/// (2.1.332, `AskUserQuestion`): an allow from the deck would run it with
/// no answer. Both decks hand it back at once (the hook prints nothing,
/// the TUI asks), and say it is answered in its terminal.
#[test]
fn a_tui_s_question_is_handed_back_to_its_terminal_at_once() {
    let question = serde_json::json!({
        "session_id": "0b5e2d0e-2a47-4b55-9c1e-3f2b3c4d5e6f", "cwd": "/tmp",
        "hook_event_name": "PermissionRequest", "tool_name": "AskUserQuestion",
        "tool_input": {"questions": [{"question": "Which color?", "header": "Color",
            "options": [{"label": "Red", "description": "warm"}, {"label": "Blue", "description": "cool"}],
            "multiSelect": false}]},
        "permission_suggestions": null,
    })
    .to_string();
    let ask = |h: &Path| {
        // (bounded: a deck that held it would make the hook give up after 20 s)
        let mut c = deck(h, &["deck", "hook", "--wait", "20"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        c.stdin
            .take()
            .unwrap()
            .write_all(question.as_bytes())
            .unwrap();
        c.wait_with_output().unwrap()
    };
    let h = home();
    let t = full_deck(h.path(), 100);
    let o = ask(h.path());
    assert_eq!((o.status.code(), stdout(&o).as_str()), (Some(0), ""));
    let screen = t.wait_for("a question: answer it in its terminal");
    assert!(!screen.contains("y once"), "{screen}");
    drop(t);
    let h = home();
    let d = Deck::start(h.path());
    let o = ask(h.path());
    assert_eq!((o.status.code(), stdout(&o).as_str()), (Some(0), ""));
    d.wait_for("a question of its session: answer it in its terminal");
}

/// `deck --watch` beside a full-screen deck shows the same, but only one
/// of them sends the config file's notices: one notice per event, not one
/// each. Once that deck is gone (killed: the kernel lets its lock go), the
/// watch sends them.
#[test]
fn a_watch_beside_a_deck_sends_no_second_notice_and_takes_over_when_it_ends() {
    let h = home();
    let sessions = h.path().join(".claude/sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    let log = h.path().join("notices.jsonl");
    let config = notify_config(h.path(), &log);
    const ID: &str = "0b5e2d0e-2a47-4b55-9c1e-3f2b3c4d5e6f";
    let me = std::process::id();
    tui_entry(&sessions, me, ID, "busy", "", now_ms());
    let mut c = deck(h.path(), &["deck"]);
    c.env("CLAUDIO_CONFIG", &config);
    let mut t = crate::common::term::Term::spawn_sized(c, 30, 110);
    t.wait_for("WORKING");
    let mut c = deck(h.path(), &["deck", "--watch"]);
    c.env("CLAUDIO_CONFIG", &config)
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut watch = c.spawn().unwrap();
    let out = watch.stdout.take().unwrap();
    let (tx, lines) = std::sync::mpsc::channel::<Value>();
    std::thread::spawn(move || {
        for l in BufReader::new(out).lines().map_while(Result::ok) {
            let _ = tx.send(serde_json::from_str(&l).unwrap());
        }
    });
    let next = |what: &dyn Fn(&Value) -> bool| {
        let until = Instant::now() + Duration::from_secs(30);
        loop {
            let v = lines
                .recv_timeout(until.saturating_duration_since(Instant::now()))
                .expect("the watch said nothing more");
            if what(&v) {
                return;
            }
        }
    };
    next(&|v| v["event"] == "session-appeared");
    // a request the deck holds, which the watch sees too
    let first = hook(h.path());
    t.wait_for("touch made-by-the-tool");
    next(&|v| v["event"] == "request-pending");
    // another session waits on a question: both see it
    let mut other = Command::new("sleep").arg("60").spawn().unwrap();
    tui_entry(
        &sessions,
        other.id(),
        "s-other",
        "waiting",
        "question",
        now_ms(),
    );
    t.wait_for("question: answer in its terminal");
    next(&|v| v["session"]["sessionId"] == "s-other");
    let got = notices(&log, 2);
    assert_eq!(got.len(), 2, "{got:?}");
    // (what a second sender would have written comes meanwhile)
    std::thread::sleep(Duration::from_millis(1000));
    let got = notices(&log, 0);
    let kinds: Vec<&str> = got.iter().map(|n| n["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["permission", "question"], "{got:?}");
    // the deck dies: the watch sends the next notice, once
    t.child().kill().unwrap();
    let _ = t.child().wait();
    assert!(first.wait_with_output().unwrap().status.success());
    next(&|v| v["event"] == "request-answered");
    tui_entry(&sessions, me, ID, "waiting", "input needed", now_ms());
    next(&|v| v["session"]["sessionId"] == ID && v["session"]["state"] == "waiting");
    let got = notices(&log, 3);
    assert_eq!(got.len(), 3, "{got:?}");
    assert_eq!(got[2]["kind"], "question");
    assert_eq!(got[2]["session"], ID);
    let _ = other.kill();
    let _ = other.wait();
    let _ = watch.kill();
    let _ = watch.wait();
}

/// The CLI a claudio chat or `ask` starts says `sdk-rust` in its registry
/// file, whichever it is; the program says which in the CLI's environment,
/// and `deck --json` (and the deck's kind column) names it: an ask's row is
/// `claudio ask`.
#[test]
fn json_says_an_ask_s_session_is_claudio_ask() {
    let h = home();
    let sessions = h.path().join(".claude/sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    let cli = |program: Option<&str>| {
        let mut c = Command::new("sleep");
        c.arg("60");
        if let Some(p) = program {
            c.env("CLAUDIO_PROGRAM", p);
        }
        c.spawn().unwrap()
    };
    let mut ask = cli(Some("claudio ask"));
    let mut chat = cli(Some("claudio chat"));
    let mut old = cli(None);
    for (c, id) in [(&ask, "s-ask"), (&chat, "s-chat"), (&old, "s-old")] {
        let f = sessions.join(format!("{}.json", c.id()));
        std::fs::write(
            f,
            serde_json::json!({"pid": c.id(), "sessionId": id, "cwd": "/w", "kind": "print",
                "entrypoint": "sdk-rust", "status": "idle"})
            .to_string(),
        )
        .unwrap();
    }
    let o = run(deck(h.path(), &["deck", "--json"]), None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let program = |id: &str| {
        v["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["sessionId"] == id)
            .unwrap_or_else(|| panic!("no {id}: {v}"))["program"]
            .clone()
    };
    assert_eq!(program("s-ask"), "claudio ask");
    assert_eq!(program("s-chat"), "claudio chat");
    assert_eq!(program("s-old"), "claudio chat");
    for c in [&mut ask, &mut chat, &mut old] {
        let _ = c.kill();
        let _ = c.wait();
    }
}
