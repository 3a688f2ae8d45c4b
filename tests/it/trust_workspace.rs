//! Trust round four, item 1: a cloned repository's project settings
//! (hooks, `.mcp.json` servers) run nothing before the person trusts the
//! folder, in the chat and in `ask`. The CLI's stream-json mode skips the
//! claude TUI's trust question and loads them all; claudio asks it itself
//! and records the answer where the TUI reads it. With the real CLI
//! (skipped loudly without `CLAUDIO_TEST_REAL_CLI`), in a `git clone`.

use crate::common;

use common::real::*;
use common::term::Term;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A repository whose `.claude/settings.json` has `SessionStart` and
/// `UserPromptSubmit` hooks and whose `.mcp.json` starts a server, each
/// leaving a mark in `marks`; cloned with git into the world's folder.
/// The clone's path.
fn cloned_repository(w: &World, marks: &Path) -> PathBuf {
    let origin = w.home.path().join("origin");
    std::fs::create_dir_all(origin.join(".claude")).unwrap();
    std::fs::create_dir_all(marks).unwrap();
    let touch = |name: &str| format!("touch '{}'", marks.join(name).display());
    let hook = |name: &str| json!([{"hooks": [{"type": "command", "command": touch(name)}]}]);
    std::fs::write(
        origin.join(".claude/settings.json"),
        json!({"hooks": {"SessionStart": hook("session-start"), "UserPromptSubmit": hook("prompt-submit")}})
            .to_string(),
    )
    .unwrap();
    std::fs::write(
        origin.join(".mcp.json"),
        json!({"mcpServers": {"evil": {"command": "sh", "args": ["-c", format!("{}; exec cat >/dev/null", touch("mcp-server"))]}}})
            .to_string(),
    )
    .unwrap();
    std::fs::write(origin.join("README"), "hello\n").unwrap();
    let git = |dir: &Path, args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_AUTHOR_NAME", "a")
            .env("GIT_AUTHOR_EMAIL", "a@b")
            .env("GIT_COMMITTER_NAME", "a")
            .env("GIT_COMMITTER_EMAIL", "a@b")
            .env("HOME", w.home.path())
            .output()
            .unwrap();
        assert!(ok.status.success(), "git {args:?}: {ok:?}");
    };
    git(&origin, &["init", "-q", "."]);
    git(&origin, &["add", "-A"]);
    git(&origin, &["commit", "-q", "-m", "init"]);
    let clone = w.work.path().join("clone");
    git(
        w.work.path(),
        &["clone", "-q", origin.to_str().unwrap(), "clone"],
    );
    clone
}

/// The marks left in `marks`, sorted, after giving a late one 2 s.
fn marks_left(marks: &Path) -> Vec<String> {
    std::thread::sleep(Duration::from_secs(2));
    let mut names: Vec<String> = std::fs::read_dir(marks)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The marks once `want` are all there (waiting up to 30 s).
fn marks_reaching(marks: &Path, want: &[&str]) -> Vec<String> {
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        let got = marks_left(marks);
        if want.iter().all(|w| got.iter().any(|g| g == w)) || Instant::now() > until {
            return got;
        }
    }
}

/// The chat in `dir`, on a pty.
fn chat_in(w: &World, dir: &Path) -> Term {
    let mut c = w.claudio();
    c.env("XDG_DATA_HOME", w.home.path()).current_dir(dir);
    let t = Term::spawn(c);
    t.wait_for("Ctrl-D exits");
    t
}

fn bye(mut t: Term) {
    t.ctrl_d();
    assert_eq!(t.wait(30).code(), Some(0), "Ctrl-D did not end the chat");
}

fn state(w: &World) -> Value {
    std::fs::read_to_string(w.state_file())
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null)
}

/// `ask hi` in `dir`, the trust question answered on a terminal with
/// `answer`.
fn ask_answering(w: &World, dir: &Path, answer: &[u8]) -> std::process::Output {
    let mut pty = Term::open();
    let child = w
        .claudio()
        .current_dir(dir)
        .args(["ask", "hi"])
        .env("CLAUDIO_TEST_TTY", pty.slave_path())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    pty.wait_for("y trust it");
    pty.send(answer);
    child.wait_with_output().unwrap()
}

/// The chat asks before the CLI starts. "n": nothing of the repository's
/// runs (no SessionStart hook, no UserPromptSubmit hook on the first
/// prompt, no MCP server), one line says what was left out, and nothing is
/// recorded. "y": the record is written where the TUI reads it (every
/// other key of the state file kept), the project's settings load, and
/// the next chat there asks nothing.
#[test]
fn a_cloned_repository_runs_nothing_in_the_chat_until_trusted() {
    let w = match real_cli("a_cloned_repository_runs_nothing_in_the_chat_until_trusted") {
        Some(cli) => World::untrusted(cli),
        None => return,
    };
    let marks = w.home.path().join("marks");
    let clone = cloned_repository(&w, &marks);
    // the state file the CLI keeps, with keys of its own
    std::fs::create_dir_all(w.home.path().join(".claude")).unwrap();
    let before = json!({"numStartups": 3, "theme": "dark", "projects": {"/elsewhere": {"hasTrustDialogAccepted": true, "allowedTools": []}}, "userID": "u"});
    std::fs::write(
        w.state_file(),
        serde_json::to_string_pretty(&before).unwrap(),
    )
    .unwrap();
    w.api.push(Reply::text("Not trusted, still answered."));
    w.api.push(Reply::text("Trusted now."));

    // no
    let mut t = chat_in(&w, &clone);
    let screen = t.wait_for("y trust it");
    assert!(
        screen.contains("Do you trust the files in this folder?"),
        "{screen}"
    );
    assert!(
        screen.contains("hooks SessionStart, UserPromptSubmit"),
        "{screen}"
    );
    assert!(screen.contains("MCP server evil (.mcp.json)"), "{screen}");
    assert!(
        marks_left(&marks).is_empty(),
        "something ran before the answer"
    );
    t.line("n");
    t.wait_for("its project settings were not loaded");
    t.line("hello");
    t.wait_for("Not trusted, still answered.");
    t.wait_for("API call");
    bye(t);
    assert_eq!(
        marks_left(&marks),
        Vec::<String>::new(),
        "the repository's code ran"
    );
    let now = state(&w);
    let key = std::fs::canonicalize(&clone).unwrap();
    let key = key.to_str().unwrap();
    assert_ne!(now["projects"][key]["hasTrustDialogAccepted"], true);

    // yes
    let mut t = chat_in(&w, &clone);
    t.wait_for("y trust it");
    t.line("y");
    t.wait_for("trusted");
    t.line("hello again");
    t.wait_for("Trusted now.");
    t.wait_for("API call");
    bye(t);
    let got = marks_reaching(&marks, &["mcp-server", "prompt-submit", "session-start"]);
    assert_eq!(
        got,
        ["mcp-server", "prompt-submit", "session-start"],
        "the project's settings did not load once trusted"
    );
    let after = state(&w);
    assert_eq!(
        after["projects"][key]["hasTrustDialogAccepted"], true,
        "{after:#}"
    );
    // (the CLI itself rewrites some keys, `theme` and `userID` among them;
    // that claudio's write keeps every byte is unit-tested in
    // src/cli/common/trust.rs)
    assert_eq!(
        after["projects"]["/elsewhere"],
        json!({"hasTrustDialogAccepted": true, "allowedTools": []})
    );

    // trusted: no question
    w.api.push(Reply::text("Third."));
    let mut t = chat_in(&w, &clone);
    t.line("third");
    let screen = t.wait_for("Third.");
    assert!(!screen.contains("Do you trust"), "{screen}");
    bye(t);
}

/// `ask` with no terminal leaves an untrusted folder's project settings
/// out and says so in one line naming the flag; `--trust-workspace` loads
/// them (for CI). On a terminal it asks, as the chat does.
#[test]
fn ask_loads_an_untrusted_folder_s_settings_only_when_told() {
    let w = match real_cli("ask_loads_an_untrusted_folder_s_settings_only_when_told") {
        Some(cli) => World::untrusted(cli),
        None => return,
    };
    let marks = w.home.path().join("marks");
    let clone = cloned_repository(&w, &marks);
    w.api.push(Reply::text("One."));
    w.api.push(Reply::text("Two."));
    w.api.push(Reply::text("Three."));
    w.api.push(Reply::text("Four."));

    // no terminal: left out, one line naming the flag
    let out = w
        .claudio()
        .current_dir(&clone)
        .args(["ask", "hi"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "One.");
    let err = String::from_utf8_lossy(&out.stderr);
    let notes: Vec<&str> = err.lines().filter(|l| l.contains("not trusted")).collect();
    assert_eq!(notes.len(), 1, "{err}");
    assert!(notes[0].contains("--trust-workspace"), "{err}");
    assert!(
        notes[0].contains("hooks SessionStart, UserPromptSubmit"),
        "{err}"
    );
    assert!(
        marks_left(&marks).is_empty(),
        "the repository's code ran: {err}"
    );

    // on a terminal, answered no: the same
    let out = ask_answering(&w, &clone, b"n\r");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "Two.");
    assert!(marks_left(&marks).is_empty(), "the repository's code ran");
    assert!(!state(&w).to_string().contains("clone"), "recorded a no");

    // the flag: loaded, for this run only (nothing recorded)
    let out = w
        .claudio()
        .current_dir(&clone)
        .args(["ask", "--trust-workspace", "hi"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "Three.");
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("not trusted"),
        "{out:?}"
    );
    let got = marks_reaching(&marks, &["prompt-submit", "session-start"]);
    assert!(
        got.contains(&"session-start".to_owned()) && got.contains(&"prompt-submit".to_owned()),
        "{got:?}"
    );
    assert!(!state(&w).to_string().contains("clone"), "{}", state(&w));

    // on a terminal, answered yes: recorded, loaded
    std::fs::remove_dir_all(&marks).unwrap();
    std::fs::create_dir_all(&marks).unwrap();
    let out = ask_answering(&w, &clone, b"y\r");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "Four.");
    let key = std::fs::canonicalize(&clone).unwrap();
    assert_eq!(
        state(&w)["projects"][key.to_str().unwrap()]["hasTrustDialogAccepted"],
        true
    );
    let got = marks_reaching(&marks, &["session-start"]);
    assert!(got.contains(&"session-start".to_owned()), "{got:?}");
}
