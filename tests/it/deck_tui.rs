//! `claudio deck` against the real claude TUI 2.1.332, in a pseudo-terminal,
//! talking to the scripted Messages API (protocol.md §11). The TUI runs
//! `claudio deck hook` for each permission request, as `claudio deck hooks
//! install` set it up; the deck answers, or the person at the TUI does.
//!
//! The tests read the TUI's screen to check what happened; the deck itself
//! never reads it.

use crate::common::real::{real_cli, World, API_KEY};
use crate::common::term::Term;
use crate::common::{run, stderr, wait_with_deadline};
use mock_api::Reply;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The TUI version these tests were written against: its hook and registry
/// are undocumented, so other versions are skipped, loudly.
const TUI_VERSION: &str = "2.1.332";

/// A world for the real TUI, or a loud skip.
fn tui_world(test: &str) -> Option<Tui> {
    tui_cli(test).map(|cli| Tui::new(World::new(cli)))
}

/// The pinned TUI, or a loud skip.
fn tui_cli(test: &str) -> Option<PathBuf> {
    let cli = real_cli(test)?;
    let said = Command::new(&cli).arg("--version").output().ok()?;
    let said = String::from_utf8_lossy(&said.stdout).into_owned();
    if !said.starts_with(&format!("{TUI_VERSION} ")) {
        eprintln!(
            "SKIPPED {test}: the TUI tests are for claude {TUI_VERSION}; {} is {}",
            cli.display(),
            said.trim()
        );
        return None;
    }
    Some(cli)
}

/// 2.1.332's offer to make auto mode the default.
const AUTO_OFFER: &str = "Make auto mode your default";

/// On the offer to make auto mode the default: no, keep manual mode; and
/// wait (a hang guard only) for the offer to go.
fn decline_auto(t: &mut Term) {
    std::thread::sleep(Duration::from_millis(500));
    t.send(b"\x1b[B");
    std::thread::sleep(Duration::from_millis(300));
    t.send(b"\r");
    let gone = Instant::now() + Duration::from_secs(60);
    while t.contents().contains(AUTO_OFFER) {
        assert!(Instant::now() < gone, "{}", t.contents());
        std::thread::sleep(Duration::from_millis(50));
    }
}

struct Tui {
    w: World,
    work: PathBuf,
}

impl Tui {
    /// The throwaway HOME seeded so the TUI runs offline at once
    /// (protocol.md §11): onboarding done, the API key approved (its last
    /// 20 characters, as the TUI records the answer), the folder trusted,
    /// permission prompts on (`defaultMode` `default`: 2.1.332 starts in
    /// auto mode), and the hook installed by `claudio deck hooks install`.
    fn new(w: World) -> Tui {
        let t = Tui::without_hook(w);
        let o = run(t.claudio(&["deck", "hooks", "install", "--yes"]), None);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        t
    }

    /// The same HOME with no hook in the person's settings.
    fn without_hook(w: World) -> Tui {
        let work = std::fs::canonicalize(w.work.path()).unwrap();
        let key = &API_KEY[API_KEY.len() - 20..];
        let state = serde_json::json!({
            "hasCompletedOnboarding": true,
            "hasSeenAutoDefaultNotice": true,
            "customApiKeyResponses": {"approved": [key], "rejected": []},
            "projects": {work.to_str().unwrap(): {"hasTrustDialogAccepted": true}},
        });
        std::fs::write(w.state_file(), state.to_string()).unwrap();
        let settings = serde_json::json!({"permissions": {"defaultMode": "default"}});
        std::fs::write(
            w.home.path().join(".claude/settings.json"),
            settings.to_string(),
        )
        .unwrap();
        std::fs::create_dir_all(w.home.path().join("run")).unwrap();
        Tui { w, work }
    }

    fn env(&self) -> Vec<(String, String)> {
        let mut env = self.w.env();
        env.push((
            "XDG_RUNTIME_DIR".into(),
            self.w.home.path().join("run").display().to_string(),
        ));
        env
    }

    fn claudio(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_claudio"));
        c.args(args)
            .current_dir(&self.work)
            .env("NO_COLOR", "1")
            .env("CLAUDIO_CLI", &self.w.cli)
            .env_remove("CLAUDIO_CONFIG");
        for (k, v) in self.env() {
            c.env(k, v);
        }
        c
    }

    /// The claude TUI, started in a pseudo-terminal, at its prompt.
    fn start(&self) -> Term {
        let mut c = Command::new(&self.w.cli);
        c.current_dir(&self.work);
        for (k, v) in self.env() {
            c.env(k, v);
        }
        self.start_with(c)
    }

    /// The claude TUI as `c` starts it, in a pseudo-terminal, at its prompt.
    fn start_with(&self, c: Command) -> Term {
        let mut t = Term::spawn_sized(c, 40, 100);
        t.wait_for("Claude Code v");
        // 2.1.332 may offer to make auto mode the default, a moment after it
        // starts: no, keep manual mode (the permission prompts are the test)
        let until = Instant::now() + Duration::from_secs(3);
        while Instant::now() < until {
            if t.contents().contains(AUTO_OFFER) {
                decline_auto(&mut t);
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        t.wait_for("manual mode on");
        t
    }

    /// Type a prompt into the TUI (the text, then Enter on its own, as a
    /// person types: a paste with its Enter is taken as a newline).
    ///
    /// 2.1.332 may offer auto mode as the default at any moment after a
    /// turn, and that dialog refuses typed text: so wait (however slow the
    /// machine) for the text at the prompt line or for the dialog, and on
    /// the dialog keep manual mode and type the text again.
    fn prompt(&self, t: &mut Term, text: &str) {
        t.send(text.as_bytes());
        let until = Instant::now() + Duration::from_secs(120);
        loop {
            let screen = t.contents();
            if screen.contains(AUTO_OFFER) {
                decline_auto(t);
                if !t.contents().contains(text) {
                    t.send(text.as_bytes());
                }
            } else if screen.contains(text) {
                break;
            }
            assert!(Instant::now() < until, "{text:?} never shown:\n{screen}");
            std::thread::sleep(Duration::from_millis(50));
        }
        std::thread::sleep(Duration::from_millis(200));
        t.send(b"\r");
    }

    /// After a turn, 2.1.332 may offer auto mode as the default again
    /// (even with `hasSeenAutoDefaultNotice`): no, keep manual mode, so
    /// the next prompt reaches the prompt line. A look only: [`Tui::prompt`]
    /// declines the offer whenever it shows, however late.
    fn keep_manual_mode(&self, t: &mut Term) {
        let until = Instant::now() + Duration::from_secs(3);
        while Instant::now() < until {
            if t.contents().contains(AUTO_OFFER) {
                decline_auto(t);
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn made(&self, name: &str) -> bool {
        self.work.join(name).exists()
    }
}

/// A line deck (`claudio deck` on pipes) whose output is read as it comes.
struct LineDeck {
    child: std::process::Child,
    lines: std::sync::mpsc::Receiver<String>,
}

impl LineDeck {
    fn start(t: &Tui) -> LineDeck {
        let mut child = t
            .claudio(&["deck"])
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
        let d = LineDeck { child, lines };
        d.wait_for("waiting for permission requests");
        d
    }

    /// A line deck, its output not yet read.
    fn start_quiet(t: &Tui) -> LineDeck {
        let mut child = t
            .claudio(&["deck"])
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
        LineDeck { child, lines }
    }

    /// The first line a new line deck prints: the first session of its
    /// list.
    fn start_listing(t: &Tui) -> String {
        let d = LineDeck::start_quiet(t);
        d.lines.recv_timeout(Duration::from_secs(60)).unwrap()
    }

    fn wait_for(&self, text: &str) -> String {
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

    fn wait_for_any(&self, texts: &[&str]) -> String {
        let until = Instant::now() + Duration::from_secs(60);
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) if texts.iter().any(|t| l.contains(t)) => return l,
                Ok(_) => {}
                Err(e) => panic!("the deck never said any of {texts:?}: {e}"),
            }
        }
    }

    fn type_line(&mut self, text: &str) {
        let stdin = self.child.stdin.as_mut().unwrap();
        stdin.write_all(format!("{text}\n").as_bytes()).unwrap();
        stdin.flush().unwrap();
    }
}

impl Drop for LineDeck {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Wait (bounded) until `f` holds; `what` names it in the failure.
fn eventually(what: &str, t: &Term, f: impl Fn() -> bool) {
    let until = Instant::now() + Duration::from_secs(30);
    while !f() {
        if Instant::now() > until {
            panic!("never: {what}; the TUI's screen:\n{}", t.contents());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The TUI's own permission dialog.
const DIALOG: &str = "Do you want to proceed?";

/// Answer the TUI's own dialog "Yes" (its first choice), once it takes
/// keys.
fn yes_in_the_tui(t: &mut Term) {
    first_choice_in_the_tui(t, DIALOG);
}

/// Answer the TUI's own dialog that shows `shown` with its first choice,
/// once it takes keys.
fn first_choice_in_the_tui(t: &mut Term, shown: &str) {
    t.wait_for(shown);
    // the dialog takes keys a moment after it is drawn
    std::thread::sleep(Duration::from_millis(700));
    t.send(b"\r");
}

/// The TUI's own dialog for a plan (`ExitPlanMode`).
const PLAN_DIALOG: &str = "Exit plan mode?";

/// From manual mode to plan mode, as a person gets there: shift+tab twice
/// (accept edits, then plan).
fn to_plan_mode(t: &mut Term) {
    t.send(b"\x1b[Z");
    t.wait_for("accept edits on");
    t.send(b"\x1b[Z");
    t.wait_for("plan mode on");
}

/// Stop the TUI and wait for it to be gone (no orphaned `claude`).
fn stop(mut t: Term) {
    t.ctrl_c();
    t.ctrl_c();
    let _ = t.child().kill();
    wait_with_deadline(t.child(), 30);
}

#[test]
fn real_cli_tui_permission_answered_from_the_deck_runs_the_tool() {
    let Some(tui) = tui_world("real_cli_tui_permission_answered_from_the_deck_runs_the_tool")
    else {
        return;
    };
    tui.w.api.push(Reply::bash("touch made_by_tool"));
    tui.w.api.push(Reply::text("Finished."));
    let mut deck = LineDeck::start(&tui);
    let mut t = tui.start();
    tui.prompt(&mut t, "make the file");
    // the deck shows the whole command, then takes the answer
    deck.wait_for("touch made_by_tool");
    assert!(!tui.made("made_by_tool"), "asked before it ran");
    deck.type_line("y");
    deck.wait_for("allowed from the deck");
    eventually("the tool ran", &t, || tui.made("made_by_tool"));
    t.wait_for("Finished.");
    // the tool's result went back to the model: it ran, nobody denied it
    let reqs = tui.w.main_requests();
    let last = reqs.last().unwrap();
    let results = last.tool_results();
    assert_eq!(results.len(), 1, "{results:?}");
    assert!(!results[0].is_error, "{results:?}");
    stop(t);
}

#[test]
fn real_cli_tui_permission_answered_in_the_tui_first_clears_the_deck_s_row() {
    let Some(tui) =
        tui_world("real_cli_tui_permission_answered_in_the_tui_first_clears_the_deck_s_row")
    else {
        return;
    };
    tui.w.api.push(Reply::bash("touch made_in_tui"));
    tui.w.api.push(Reply::text("Finished."));
    let mut deck = LineDeck::start(&tui);
    let mut t = tui.start();
    tui.prompt(&mut t, "make the file");
    deck.wait_for("touch made_in_tui");
    // the TUI shows its own dialog beside the hook's wait: answered there
    yes_in_the_tui(&mut t);
    eventually("the tool ran", &t, || tui.made("made_in_tui"));
    t.wait_for("Finished.");
    // the deck says the request is gone, without a key typed at it
    deck.wait_for("gone: answered in its terminal");
    // and an answer typed after it reaches nothing
    deck.type_line("n");
    let reqs = tui.w.main_requests();
    assert!(!reqs.last().unwrap().tool_results()[0].is_error);
    stop(t);
}

/// Allowed in the TUI's own dialog, a long tool runs and its result is
/// not in the transcript yet: the deck's row goes all the same (the
/// session's registry file stopped waiting), and an answer typed at the
/// deck is never said taken ("denied from the deck" was said, while the
/// TUI's allow stood and the tool ran).
#[test]
fn real_cli_tui_allowed_in_the_tui_while_its_tool_runs_is_not_acked_to_the_deck() {
    let Some(tui) =
        tui_world("real_cli_tui_allowed_in_the_tui_while_its_tool_runs_is_not_acked_to_the_deck")
    else {
        return;
    };
    tui.w.api.push(Reply::bash("sleep 20; touch made_in_tui"));
    tui.w.api.push(Reply::text("Finished."));
    let mut deck = LineDeck::start(&tui);
    let mut t = tui.start();
    tui.prompt(&mut t, "make the file");
    deck.wait_for("sleep 20");
    yes_in_the_tui(&mut t);
    // the tool runs (20 s): the deck's row goes, and its `n` is no answer
    let said = deck.wait_for_any(&["from the deck", "first", "gone"]);
    deck.type_line("n");
    assert!(said.contains("gone: answered in its terminal"), "{said}");
    eventually("the tool ran", &t, || tui.made("made_in_tui"));
    stop(t);
}

#[test]
fn real_cli_tui_with_no_deck_shows_its_own_dialog() {
    let Some(tui) = tui_world("real_cli_tui_with_no_deck_shows_its_own_dialog") else {
        return;
    };
    tui.w.api.push(Reply::bash("touch made_after_dialog"));
    tui.w.api.push(Reply::text("Finished."));
    let mut t = tui.start();
    tui.prompt(&mut t, "make the file");
    let screen = t.wait_for(DIALOG);
    assert!(screen.contains("touch made_after_dialog"), "{screen}");
    assert!(!tui.made("made_after_dialog"));
    // nothing was decided by the hook: the TUI asks, and its answer counts
    yes_in_the_tui(&mut t);
    eventually("the tool ran", &t, || tui.made("made_after_dialog"));
    t.wait_for("Finished.");
    assert!(!t.contents().contains("PermissionRequest hook"));
    stop(t);
}

#[test]
fn real_cli_tui_a_from_the_full_deck_keeps_the_cli_s_suggestion_for_the_session() {
    let Some(tui) =
        tui_world("real_cli_tui_a_from_the_full_deck_keeps_the_cli_s_suggestion_for_the_session")
    else {
        return;
    };
    let first = tui.work.join("first.txt");
    let second = tui.work.join("second.txt");
    tui.w.api.push(Reply::tool_use(
        "Write",
        serde_json::json!({"file_path": first, "content": "one\n"}),
    ));
    tui.w.api.push(Reply::tool_use(
        "Write",
        serde_json::json!({"file_path": second, "content": "two\n"}),
    ));
    tui.w.api.push(Reply::text("Finished."));
    // the full-screen deck, on a terminal of its own
    let mut deck = Term::spawn_sized(tui.claudio(&["deck"]), 30, 100);
    deck.wait_for("claudio deck");
    let mut t = tui.start();
    tui.prompt(&mut t, "write both files");
    let screen = deck.wait_for("first.txt");
    // `a`: every file edit for this session, as the CLI suggested it
    assert!(screen.contains("every file edit"), "{screen}");
    deck.send(b"a\r");
    eventually("the first file was written", &t, || tui.made("first.txt"));
    // the second edit is not asked again: the CLI took the mode
    eventually("the second file was written", &t, || tui.made("second.txt"));
    t.wait_for("Finished.");
    assert!(
        !deck.contents().contains("second.txt"),
        "{}",
        deck.contents()
    );
    assert!(!t.contents().contains(DIALOG));
    deck.send(b"q");
    stop(t);
}

/// `p` or `u` answered from the full deck for a command the TUI suggests a
/// rule for (`npm run *`): the tool runs, the CLI keeps the rule where it
/// keeps its own (`.claude/settings.local.json` of the project, or
/// `~/.claude/settings.json`, the hook and the rest of it kept), and the
/// same command next turn is not asked at all.
fn kept_from_the_full_deck(test: &str, key: &[u8]) {
    let Some(tui) = tui_world(test) else {
        return;
    };
    std::fs::write(
        tui.work.join("package.json"),
        r#"{"name":"kept","version":"1.0.0","scripts":{"lint":"touch linted"}}"#,
    )
    .unwrap();
    for said in ["Finished one.", "Finished two."] {
        tui.w.api.push(Reply::bash("npm run lint"));
        tui.w.api.push(Reply::text(said));
    }
    let mut deck = Term::spawn_sized(tui.claudio(&["deck"]), 30, 100);
    deck.wait_for("claudio deck");
    let mut t = tui.start();
    tui.prompt(&mut t, "lint it");
    let screen = deck.wait_for("npm run lint");
    // the CLI's own suggestion is what p and u keep, shown before
    assert!(
        screen.contains("p / u   Bash(npm run *), kept in this project / in every project"),
        "{screen}"
    );
    deck.send(key);
    deck.send(b"\r");
    eventually("the tool ran", &t, || tui.made("linted"));
    t.wait_for("Finished one.");
    assert!(t.contents().contains("Allowed by PermissionRequest hook"));
    let user = tui.w.home.path().join(".claude/settings.json");
    let project = tui.work.join(".claude/settings.local.json");
    let read = |p: &std::path::Path| -> serde_json::Value {
        serde_json::from_str(
            &std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())),
        )
        .unwrap()
    };
    let rule = serde_json::json!("Bash(npm run *)");
    let allowed = |v: &serde_json::Value| {
        v["permissions"]["allow"]
            .as_array()
            .is_some_and(|a| a.contains(&rule))
    };
    let u = read(&user);
    if key == b"p" {
        assert!(allowed(&read(&project)), "{}", read(&project));
        assert!(!allowed(&u), "{u}");
    } else {
        assert!(allowed(&u), "{u}");
        assert!(!project.exists() || !allowed(&read(&project)));
    }
    // the rest of the person's settings as they were: the mode, the hook
    assert_eq!(u["permissions"]["defaultMode"], "default", "{u}");
    assert!(
        u["hooks"]["PermissionRequest"][0]["hooks"][0]["command"]
            .as_str()
            .is_some_and(|c| c.ends_with(" deck hook")),
        "{u}"
    );
    // the same command again: allowed by the kept rule, never asked
    std::fs::remove_file(tui.work.join("linted")).unwrap();
    tui.keep_manual_mode(&mut t);
    tui.prompt(&mut t, "lint it again");
    t.wait_for("Finished two.");
    assert!(tui.made("linted"));
    assert!(!t.contents().contains(DIALOG), "{}", t.contents());
    let o = crate::common::run(tui.claudio(&["deck", "--json"]), None);
    let v: serde_json::Value = serde_json::from_str(&crate::common::stdout(&o)).unwrap();
    assert_eq!(v["pending"], serde_json::json!([]), "{v}");
    assert!(
        deck.contents().contains("allowed from now on in"),
        "{}",
        deck.contents()
    );
    let reqs = tui.w.main_requests();
    for r in reqs.iter().filter(|r| !r.tool_results().is_empty()) {
        assert!(
            !r.tool_results()[0].content.contains("denied"),
            "{:?}",
            r.tool_results()
        );
    }
    deck.send(b"q");
    stop(t);
}

#[test]
fn real_cli_tui_p_from_the_deck_keeps_the_rule_in_the_project_and_is_not_asked_again() {
    kept_from_the_full_deck(
        "real_cli_tui_p_from_the_deck_keeps_the_rule_in_the_project_and_is_not_asked_again",
        b"p",
    );
}

#[test]
fn real_cli_tui_u_from_the_deck_keeps_the_rule_for_every_project_and_is_not_asked_again() {
    kept_from_the_full_deck(
        "real_cli_tui_u_from_the_deck_keeps_the_rule_for_every_project_and_is_not_asked_again",
        b"u",
    );
}

/// The notices of the config file's `[notify]` table for a claude TUI,
/// from the full deck: its permission request is one notice (not one more
/// when the TUI's own dialog shows beside the hook's wait), and its turn's
/// end is one (`turn-seconds = 0`: every turn).
#[test]
fn real_cli_tui_request_and_turn_end_are_one_notice_each_from_the_deck() {
    let Some(tui) =
        tui_world("real_cli_tui_request_and_turn_end_are_one_notice_each_from_the_deck")
    else {
        return;
    };
    tui.w.api.push(Reply::bash("touch made_by_tool"));
    tui.w.api.push(Reply::text("Finished."));
    let log = tui.w.home.path().join("notices.jsonl");
    let config = tui.w.home.path().join("config.toml");
    std::fs::write(
        &config,
        format!(
            "[notify]\nbell = false\nturn-seconds = 0\ncommand = \"cat >> '{}'\"\n",
            log.display()
        ),
    )
    .unwrap();
    let mut c = tui.claudio(&["deck"]);
    c.env("CLAUDIO_CONFIG", &config);
    let mut deck = Term::spawn_sized(c, 30, 100);
    deck.wait_for("claudio deck");
    let mut t = tui.start();
    let notices = |kind: &str| -> Vec<serde_json::Value> {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter(|n| n["kind"] == kind)
            .collect()
    };
    tui.prompt(&mut t, "make the file");
    deck.wait_for("touch made_by_tool");
    eventually("a notice of the request", &t, || {
        notices("permission").len() == 1
    });
    let n = &notices("permission")[0];
    assert_eq!(n["title"], "Bash waits for you", "{n}");
    assert!(
        n["body"]
            .as_str()
            .unwrap()
            .ends_with(": touch made_by_tool"),
        "{n}"
    );
    // the TUI's own dialog shows beside the hook's wait (its registry file
    // says it waits): the same event, no second notice
    eventually("the TUI says it waits", &t, || {
        let o = crate::common::run(tui.claudio(&["deck", "--json"]), None);
        crate::common::stdout(&o).contains("\"status\":\"waiting\"")
    });
    deck.send(b"y\r");
    eventually("the tool ran", &t, || tui.made("made_by_tool"));
    t.wait_for("Finished.");
    eventually("a notice of the turn's end", &t, || {
        notices("turn").len() == 1
    });
    // the deck reads the registry once more after the end: nothing more
    std::thread::sleep(Duration::from_millis(2500));
    let all = std::fs::read_to_string(&log).unwrap();
    assert_eq!(notices("permission").len(), 1, "{all}");
    assert_eq!(notices("turn").len(), 1, "{all}");
    deck.send(b"q");
    stop(t);
}

/// 2.1.332 hands `AskUserQuestion` to the PermissionRequest hook too. The
/// deck hands it back at once (never an allow with no answer), the TUI
/// shows its own question and takes the answer there, the deck shows the
/// session as needing you in its terminal, and the config file's notice
/// says so once (`question`, from the registry's "input needed").
#[test]
fn real_cli_tui_question_is_answered_in_the_tui_and_is_one_notice() {
    let Some(tui) = tui_world("real_cli_tui_question_is_answered_in_the_tui_and_is_one_notice")
    else {
        return;
    };
    tui.w.api.push(Reply::tool_use(
        "AskUserQuestion",
        serde_json::json!({"questions": [{"question": "Which color?", "header": "Color",
            "options": [{"label": "Red", "description": "warm"}, {"label": "Blue", "description": "cool"}],
            "multiSelect": false}]}),
    ));
    tui.w.api.push(Reply::text("Finished."));
    let log = tui.w.home.path().join("notices.jsonl");
    let config = tui.w.home.path().join("config.toml");
    std::fs::write(
        &config,
        format!(
            "[notify]\nbell = false\non = [\"question\", \"permission\"]\ncommand = \"cat >> '{}'\"\n",
            log.display()
        ),
    )
    .unwrap();
    let mut c = tui.claudio(&["deck"]);
    c.env("CLAUDIO_CONFIG", &config);
    let deck = Term::spawn_sized(c, 30, 100);
    deck.wait_for("claudio deck");
    let mut t = tui.start();
    tui.prompt(&mut t, "ask me");
    deck.wait_for("a question: answer it in its terminal");
    let screen = deck.wait_for("answer in its terminal");
    assert!(!screen.contains("y once"), "{screen}");
    let lines = || -> Vec<serde_json::Value> {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    eventually("a notice of the question", &t, || {
        lines().iter().any(|n| n["kind"] == "question")
    });
    // answered in the TUI: its first choice
    first_choice_in_the_tui(&mut t, "Which color?");
    t.wait_for("Finished.");
    let reqs = tui.w.main_requests();
    let results = reqs.last().unwrap().tool_results();
    assert!(results[0].content.contains("Red"), "{results:?}");
    std::thread::sleep(Duration::from_millis(2500));
    let got = lines();
    let asked: Vec<_> = got
        .iter()
        .filter(|n| {
            n["kind"] == "question" && !n["body"].as_str().unwrap().ends_with("dialog open")
        })
        .collect();
    assert_eq!(asked.len(), 1, "{got:?}");
    assert!(!got.iter().any(|n| n["kind"] == "permission"), "{got:?}");
    stop(t);
}

/// The arguments the process in `t` runs with (the TUI, once claudio
/// replaced itself with it).
fn tui_args(t: &mut Term) -> Vec<String> {
    let raw = std::fs::read(format!("/proc/{}/cmdline", t.child().id())).unwrap();
    // each argument ends in a NUL
    let raw = raw.strip_suffix(b"\0").unwrap_or(&raw);
    raw.split(|b| *b == 0)
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect()
}

/// `claudio sessions resume ID --tui` starts the real claude TUI on the
/// session, in place of claudio, with the deck's hook given in its
/// `--settings`: its permission request is held by a running deck and
/// answered from it, and the person's settings file is not touched.
#[test]
fn real_cli_tui_resumed_by_claudio_is_answered_from_the_deck_with_no_settings_edit() {
    let Some(tui) =
        tui_cli("real_cli_tui_resumed_by_claudio_is_answered_from_the_deck_with_no_settings_edit")
            .map(|cli| Tui::without_hook(World::new(cli)))
    else {
        return;
    };
    // a session to resume, made by claudio's `ask` through the same CLI
    tui.w.api.push(Reply::text("Hello there."));
    let o = run(tui.claudio(&["ask", "say hello"]), None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run(tui.claudio(&["sessions", "list", "-o", "json"]), None);
    let listed: serde_json::Value = serde_json::from_str(&crate::common::stdout(&o)).unwrap();
    let id = listed[0]["sessionId"].as_str().unwrap().to_owned();
    let settings = tui.w.home.path().join(".claude/settings.json");
    let before = std::fs::read(&settings).unwrap();
    tui.w.api.push(Reply::bash("touch made_by_tool"));
    tui.w.api.push(Reply::text("Finished."));
    let mut deck = LineDeck::start(&tui);
    // from another folder: the TUI runs in the session's own
    let mut c = tui.claudio(&["sessions", "resume", &id[..8], "--tui"]);
    c.current_dir(tui.w.home.path());
    let mut t = tui.start_with(c);
    // claudio's process became the TUI: the registry file is under its pid
    let registry = tui
        .w
        .home
        .path()
        .join(format!(".claude/sessions/{}.json", t.child().id()));
    eventually("the TUI's registry file under claudio's pid", &t, || {
        std::fs::read_to_string(&registry).is_ok_and(|r| r.contains(&id))
    });
    assert!(tui_args(&mut t).contains(&"--settings".to_owned()));
    t.wait_for("Hello there.");
    tui.prompt(&mut t, "make the file");
    deck.wait_for("touch made_by_tool");
    assert!(!tui.made("made_by_tool"), "asked before it ran");
    deck.type_line("y");
    deck.wait_for("allowed from the deck");
    eventually("the tool ran", &t, || tui.made("made_by_tool"));
    t.wait_for("Finished.");
    assert!(t.contents().contains("Allowed by PermissionRequest hook"));
    let reqs = tui.w.main_requests();
    let results = reqs.last().unwrap().tool_results();
    assert_eq!(results.len(), 1, "{results:?}");
    assert!(!results[0].is_error, "{results:?}");
    stop(t);
    assert_eq!(std::fs::read(&settings).unwrap(), before);
    assert!(!tui
        .w
        .home
        .path()
        .join(".claude/settings.json.claudio-backup")
        .exists());
}

/// With the hook in the person's settings already, `sessions resume --tui`
/// gives the TUI none of its own (it would run both, and the deck hold the
/// request twice): the one installed hands the request to the deck.
#[test]
fn real_cli_tui_resumed_by_claudio_with_the_hook_installed_gets_no_second_one() {
    let Some(tui) =
        tui_world("real_cli_tui_resumed_by_claudio_with_the_hook_installed_gets_no_second_one")
    else {
        return;
    };
    tui.w.api.push(Reply::text("Hello there."));
    let o = run(tui.claudio(&["ask", "say hello"]), None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run(tui.claudio(&["sessions", "list", "-o", "json"]), None);
    let listed: serde_json::Value = serde_json::from_str(&crate::common::stdout(&o)).unwrap();
    let id = listed[0]["sessionId"].as_str().unwrap().to_owned();
    tui.w.api.push(Reply::bash("touch made_by_tool"));
    tui.w.api.push(Reply::text("Finished."));
    let mut deck = LineDeck::start(&tui);
    let mut t = tui.start_with(tui.claudio(&["sessions", "resume", &id, "--tui"]));
    let args = tui_args(&mut t);
    assert!(args.contains(&id), "{args:?}");
    assert!(!args.contains(&"--settings".to_owned()), "{args:?}");
    t.wait_for("Hello there.");
    tui.prompt(&mut t, "make the file");
    deck.wait_for("touch made_by_tool");
    deck.type_line("y");
    deck.wait_for("allowed from the deck");
    eventually("the tool ran", &t, || tui.made("made_by_tool"));
    t.wait_for("Finished.");
    stop(t);
}

/// `claudio tui ARGS...` starts a new session in the real claude TUI, in
/// this directory and in place of claudio, with the deck's hook given in
/// its `--settings` and the person's arguments passed on verbatim (a flag
/// claudio does not know among them): its permission request is held by a
/// running deck and answered from it, and the person's settings file is
/// not touched.
#[test]
fn real_cli_tui_started_by_claudio_tui_is_answered_from_the_deck_with_no_settings_edit() {
    let Some(tui) = tui_cli(
        "real_cli_tui_started_by_claudio_tui_is_answered_from_the_deck_with_no_settings_edit",
    )
    .map(|cli| Tui::without_hook(World::new(cli))) else {
        return;
    };
    let settings = tui.w.home.path().join(".claude/settings.json");
    let before = std::fs::read(&settings).unwrap();
    tui.w.api.push(Reply::bash("touch made_by_tool"));
    tui.w.api.push(Reply::text("Finished."));
    let mut deck = LineDeck::start(&tui);
    let marker = "Mention the word tangerine-4711.";
    let mut t = tui.start_with(tui.claudio(&["tui", "--append-system-prompt", marker]));
    let args = tui_args(&mut t);
    assert_eq!(args[1], "--settings", "{args:?}");
    assert!(args[2].contains(" deck hook"), "{args:?}");
    assert_eq!(args[3..], ["--append-system-prompt", marker], "{args:?}");
    assert!(!args.contains(&"--resume".to_owned()), "{args:?}");
    tui.prompt(&mut t, "make the file");
    deck.wait_for("touch made_by_tool");
    assert!(!tui.made("made_by_tool"), "asked before it ran");
    deck.type_line("y");
    deck.wait_for("allowed from the deck");
    eventually("the tool ran", &t, || tui.made("made_by_tool"));
    t.wait_for("Finished.");
    assert!(t.contents().contains("Allowed by PermissionRequest hook"));
    let reqs = tui.w.main_requests();
    let last = reqs.last().unwrap();
    let results = last.tool_results();
    assert_eq!(results.len(), 1, "{results:?}");
    assert!(!results[0].is_error, "{results:?}");
    // the TUI's own argument reached the model
    assert!(
        last.body["system"].to_string().contains(marker),
        "{:?}",
        last.body["system"]
    );
    stop(t);
    assert_eq!(std::fs::read(&settings).unwrap(), before);
    assert!(!tui
        .w
        .home
        .path()
        .join(".claude/settings.json.claudio-backup")
        .exists());
}

/// `claudio tui` with no terminal is a usage error (exit 2), and starts
/// nothing.
#[test]
fn claudio_tui_with_no_terminal_is_a_usage_error() {
    let home = tempfile::tempdir().unwrap();
    let o = run(
        {
            let mut c = Command::new(env!("CARGO_BIN_EXE_claudio"));
            c.args(["tui", "--model", "opus"])
                .env("CLAUDIO_CLI", "/nonexistent/claude")
                .env("HOME", home.path())
                .env("XDG_CONFIG_HOME", home.path())
                .env_remove("CLAUDIO_CONFIG");
            c
        },
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("claudio tui needs a terminal"),
        "{}",
        stderr(&o)
    );
}

/// `claudio sessions --config-dir DIR resume ID --tui`: the session was
/// found in DIR, so the claude TUI is given DIR as its configuration
/// folder (`CLAUDE_CONFIG_DIR`, whole though it was given relative, the
/// TUI starting in the session's folder). Before, the TUI read its
/// default folder and said "No conversation found with session ID".
#[test]
fn a_tui_resumed_from_another_config_dir_is_given_that_folder() {
    let home = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(home.path()).unwrap();
    let (config, work) = (base.join("other-config"), base.join("work"));
    std::fs::create_dir_all(config.join("projects/p")).unwrap();
    std::fs::create_dir_all(&work).unwrap();
    let id = "eeeeeeee-5555-4555-8555-555555555555";
    let line = serde_json::json!({"type":"user","uuid":"u1","parentUuid":null,
        "cwd": work, "sessionId": id, "message":{"role":"user","content":"hi"}});
    std::fs::write(
        config.join(format!("projects/p/{id}.jsonl")),
        format!("{line}\n"),
    )
    .unwrap();
    // a claude that writes what it was given, then ends
    let said = base.join("said");
    let cli = base.join("claude");
    std::fs::write(
        &cli,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$CLAUDE_CONFIG_DIR\" \"$PWD\" \"$@\" > '{}.tmp'\nmv '{0}.tmp' '{0}'\n",
            said.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&cli, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut c = Command::new(env!("CARGO_BIN_EXE_claudio"));
    c.args([
        "sessions",
        "--config-dir",
        "other-config",
        "resume",
        &id[..8],
        "--tui",
    ])
    .current_dir(&base)
    .env("CLAUDIO_CLI", &cli)
    .env("HOME", &base)
    .env("CLAUDE_CONFIG_DIR", base.join(".claude"))
    .env("XDG_CONFIG_HOME", base.join(".config"))
    .env("CLAUDIO_ARCHIVE_DIR", base.join("archive"))
    .env("XDG_RUNTIME_DIR", base.join("run"))
    .env_remove("CLAUDIO_CONFIG");
    let mut t = Term::spawn(c);
    assert_eq!(t.wait(60).code(), Some(0), "{}", t.contents());
    let said = std::fs::read_to_string(&said).expect("the TUI was started");
    let said: Vec<&str> = said.lines().collect();
    assert_eq!(said[0], config.to_str().unwrap(), "{said:?}");
    assert_eq!(said[1], work.to_str().unwrap(), "{said:?}");
    assert_eq!(said[2..4], ["--resume", id], "{said:?}");
    // claudio's own chat reads the default folder (its settings, trust):
    // a usage error that says how, never a chat whose CLI cannot find it
    let mut c = Command::new(env!("CARGO_BIN_EXE_claudio"));
    c.args([
        "sessions",
        "--config-dir",
        "other-config",
        "resume",
        &id[..8],
    ])
    .current_dir(&base)
    .env("CLAUDIO_CLI", &cli)
    .env("HOME", &base)
    .env("CLAUDE_CONFIG_DIR", base.join(".claude"))
    .env("XDG_CONFIG_HOME", base.join(".config"))
    .env("CLAUDIO_ARCHIVE_DIR", base.join("archive"))
    .env_remove("CLAUDIO_CONFIG");
    std::fs::remove_file(base.join("said")).unwrap();
    let o = run(c, None);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("resume with CLAUDE_CONFIG_DIR="),
        "{}",
        stderr(&o)
    );
    assert!(!base.join("said").exists(), "nothing started");
}

/// A `!` command run in the claude TUI (protocol.md §11): the TUI writes
/// its output HTML-escaped in an entry of its own. claudio reads it back as
/// the TUI does: the session's title is the prompt typed after it, and the
/// export shows the command with its output as printed.
#[test]
fn real_cli_tui_a_bang_command_is_read_back_as_the_tui_wrote_it() {
    let Some(cli) = tui_cli("real_cli_tui_a_bang_command_is_read_back_as_the_tui_wrote_it") else {
        return;
    };
    let tui = Tui::without_hook(World::new(cli));
    // 2.1.332 sends the command's output to the model, which answers it;
    // then the prompt
    tui.w.api.push(Reply::text("Noted the output."));
    tui.w.api.push(Reply::text("It printed one line."));
    tui.w.api.push(Reply::text("Noted again."));
    let mut t = tui.start();
    // `!` at an empty prompt is the TUI's shell mode
    t.send(b"!");
    std::thread::sleep(Duration::from_millis(300));
    tui.prompt(&mut t, "printf 'a -> b & c</bash-stdout>x'");
    t.wait_for("a -> b & c</bash-stdout>x");
    t.wait_for("Noted the output.");
    tui.keep_manual_mode(&mut t);
    tui.prompt(&mut t, "what did it print");
    t.wait_for("It printed one line.");
    // the TUI writes its transcript a moment after it draws
    let projects = tui.w.home.path().join(".claude/projects");
    let transcript = || {
        let folder = std::fs::read_dir(&projects).ok()?.next()?.ok()?.path();
        std::fs::read_dir(folder)
            .ok()?
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|x| x == "jsonl"))
    };
    // and a `!` command last (the TUI's last prompt, the SDK's summary,
    // may then be that command); the requests' copies of the system
    // prompt put the prompt typed between past the transcript's head
    tui.keep_manual_mode(&mut t);
    t.send(b"!");
    std::thread::sleep(Duration::from_millis(300));
    tui.prompt(&mut t, "echo done");
    t.wait_for("Noted again.");
    eventually("the last answer in the transcript", &t, || {
        transcript()
            .and_then(|p| std::fs::read_to_string(p).ok())
            .is_some_and(|raw| raw.contains("Noted again."))
    });
    stop(t);

    let list = run(tui.claudio(&["sessions", "list", "--all", "--json"]), None);
    assert_eq!(list.status.code(), Some(0), "{}", stderr(&list));
    let list: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    let sessions = list.as_array().unwrap();
    assert_eq!(sessions.len(), 1, "{list}");
    let id = sessions[0]["sessionId"].as_str().unwrap();
    // the title claudio shows is the prompt (`summary` is the SDK's: the
    // TUI's last prompt, which it writes when a turn ends)
    let table = run(tui.claudio(&["sessions", "list", "--all"]), None);
    let table = String::from_utf8(table.stdout).unwrap();
    assert!(table.contains("what did it print"), "{table}");
    assert!(!table.contains("printf"), "{table}");

    // the TUI's own shape, so that this test says what it reads
    let raw = std::fs::read_to_string(transcript().unwrap()).unwrap();
    let head = &raw.as_bytes()[..raw.len().min(64 << 10)];
    assert!(
        !String::from_utf8_lossy(head).contains("what did it print"),
        "the prompt lies past the first 64 KiB, as the test is meant to show"
    );
    assert!(
        raw.contains("<bash-stdout>a -&gt; b &amp; c&lt;/bash-stdout&gt;x</bash-stdout>"),
        "{raw}"
    );

    let out = run(tui.claudio(&["sessions", "export", id, "-o", "json"]), None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let items: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let items = items.as_array().unwrap();
    let kinds: Vec<&str> = items.iter().map(|i| i["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        ["shell", "answer", "prompt", "answer", "shell", "answer"],
        "{items:?}"
    );
    assert_eq!(
        items[0]["command"], "printf 'a -> b & c</bash-stdout>x'",
        "{items:?}"
    );
    assert_eq!(items[0]["stdout"], "a -> b & c</bash-stdout>x", "{items:?}");
    assert_eq!(items[1]["text"], "Noted the output.", "{items:?}");
    assert_eq!(items[2]["text"], "what did it print", "{items:?}");
    assert_eq!(items[3]["text"], "It printed one line.", "{items:?}");
}

/// `claudio-statusline` as the real claude TUI's `statusLine` command, as
/// README tells a person to set it: the TUI runs it after a turn and shows
/// its line, the same line `claudio statusline` prints from the JSON the
/// TUI gave (kept by `tee` on its way in).
#[test]
fn real_cli_tui_shows_the_line_claudio_statusline_prints() {
    let Some(cli) = tui_cli("real_cli_tui_shows_the_line_claudio_statusline_prints") else {
        return;
    };
    let tui = Tui::without_hook(World::new(cli));
    let given = tui.w.home.path().join("status-input.json");
    let format = "SLP[{model} · {session_cost} session · {context} ctx]";
    let command = format!(
        "tee '{}' | '{}' --color never --format '{format}'",
        given.display(),
        env!("CARGO_BIN_EXE_claudio-statusline"),
    );
    let settings = serde_json::json!({
        "permissions": {"defaultMode": "default"},
        "statusLine": {"type": "command", "command": command},
    });
    std::fs::write(
        tui.w.home.path().join(".claude/settings.json"),
        settings.to_string(),
    )
    .unwrap();
    tui.w.api.push(Reply::text("Hello from the model."));
    let mut t = tui.start();
    tui.keep_manual_mode(&mut t);
    tui.prompt(&mut t, "hi");
    t.wait_for("Hello from the model.");
    // the line after the turn: the session has cost something
    let shown = eventually_line(&t, |l| l.contains("SLP[") && !l.contains("$0.00 session"));
    stop(t);
    let shown = &shown[shown.find("SLP[").unwrap()..];
    let shown = &shown[..=shown.find(']').unwrap()];
    assert!(
        shown.contains(" session · ") && shown.ends_with("% ctx]"),
        "{shown}"
    );
    // what `claudio statusline` prints from the JSON the TUI gave
    let input = std::fs::read(&given).unwrap();
    let mut c = tui.claudio(&["statusline", "--color", "never", "--format", format]);
    c.current_dir(&tui.work);
    let o = run(c, Some(&input));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        crate::common::stdout(&o).trim_end(),
        shown,
        "{}",
        String::from_utf8_lossy(&input)
    );
}

/// The screen's first line for which `want` holds, waited for (a hang guard
/// only: a minute).
fn eventually_line(t: &Term, want: impl Fn(&str) -> bool) -> String {
    let until = Instant::now() + Duration::from_secs(60);
    loop {
        let screen = t.contents();
        if let Some(l) = screen.lines().find(|l| want(l)) {
            return l.to_owned();
        }
        assert!(Instant::now() < until, "never shown:\n{screen}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A plan of a claude TUI (`ExitPlanMode`, in plan mode) is never answered
/// from the deck: its hook hands it back at once, the deck holds nothing
/// and says to answer it in its terminal, and the TUI shows its own plan
/// dialog, not "Allowed by PermissionRequest hook". Approved there, the
/// turn goes on: the model is told the plan was approved, and its next
/// call (a file write, asked again: the mode is manual) is the deck's to
/// answer.
#[test]
fn real_cli_tui_plan_is_approved_in_its_own_dialog_never_from_the_deck() {
    let Some(tui) =
        tui_world("real_cli_tui_plan_is_approved_in_its_own_dialog_never_from_the_deck")
    else {
        return;
    };
    let planned = tui.work.join("planned.txt");
    let plan = Reply::tool_use(
        "ExitPlanMode",
        serde_json::json!({"plan": "# Plan\n\n1. Write planned.txt"}),
    );
    let plan_id = plan.tool_use_id();
    tui.w.api.push(plan);
    tui.w.api.push(Reply::tool_use(
        "Write",
        serde_json::json!({"file_path": planned, "content": "planned\n"}),
    ));
    tui.w.api.push(Reply::text("Finished."));
    let mut deck = Term::spawn_sized(tui.claudio(&["deck"]), 30, 100);
    deck.wait_for("claudio deck");
    let mut t = tui.start();
    to_plan_mode(&mut t);
    tui.prompt(&mut t, "plan it");
    let screen = deck.wait_for("a plan: answer it in its terminal");
    assert!(!screen.contains("y once"), "{screen}");
    let screen = t.wait_for(PLAN_DIALOG);
    assert!(
        !screen.contains("Allowed by PermissionRequest hook"),
        "{screen}"
    );
    // the deck holds nothing for it
    let o = run(tui.claudio(&["deck", "--json"]), None);
    let v: serde_json::Value = serde_json::from_str(&crate::common::stdout(&o)).unwrap();
    assert_eq!(v["pending"], serde_json::json!([]), "{v}");
    assert!(!tui.made("planned.txt"));
    // approved in the TUI: the turn goes on, to the write the plan named,
    // which the deck holds and answers
    first_choice_in_the_tui(&mut t, PLAN_DIALOG);
    let screen = deck.wait_for("planned.txt");
    assert!(screen.contains("y once"), "{screen}");
    deck.send(b"y\r");
    eventually("the file was written", &t, || tui.made("planned.txt"));
    t.wait_for("Finished.");
    let reqs = tui.w.main_requests();
    let approved = reqs
        .iter()
        .find_map(|r| r.tool_result_for(&plan_id))
        .expect("the plan's result");
    assert!(!approved.is_error, "{approved:?}");
    assert!(
        approved.content.contains("approved exiting plan mode"),
        "{approved:?}"
    );
    deck.send(b"q");
    stop(t);
}

/// `a` from the full deck for a command the TUI suggests a rule for
/// (`npm run *`): the TUI is given that rule for the session, and no
/// wider. In the same turn the same command again, and another the rule
/// covers, run with nobody asked (neither the deck nor the TUI's dialog);
/// a command outside the rule is asked again, at the deck; and no
/// settings file keeps the rule (it was for the session).
#[test]
fn real_cli_tui_a_from_the_full_deck_gives_the_session_the_cli_s_rule_and_no_wider() {
    let Some(tui) = tui_world(
        "real_cli_tui_a_from_the_full_deck_gives_the_session_the_cli_s_rule_and_no_wider",
    ) else {
        return;
    };
    std::fs::write(
        tui.work.join("package.json"),
        r#"{"name":"kept","version":"1.0.0","scripts":{"lint":"echo run >> linted","build":"touch built"}}"#,
    )
    .unwrap();
    let user = tui.w.home.path().join(".claude/settings.json");
    let before = std::fs::read_to_string(&user).unwrap();
    for command in [
        "npm run lint",
        "npm run lint",
        "npm run build",
        "touch outside",
    ] {
        tui.w.api.push(Reply::bash(command));
    }
    tui.w.api.push(Reply::text("Finished."));
    let mut deck = Term::spawn_sized(tui.claudio(&["deck"]), 30, 100);
    deck.wait_for("claudio deck");
    let mut t = tui.start();
    tui.prompt(&mut t, "lint and build");
    let screen = deck.wait_for("npm run lint");
    // what `a` gives, shown before: the CLI's own suggestion
    assert!(
        screen.contains("a       Bash(npm run *), for this session"),
        "{screen}"
    );
    deck.send(b"a\r");
    // the next request the deck holds is the command outside the rule:
    // the two between ran with nobody asked
    let screen = deck.wait_for("touch outside");
    assert!(!screen.contains("npm run build"), "{screen}");
    assert!(!screen.contains("allowed again"), "{screen}");
    let linted = std::fs::read_to_string(tui.work.join("linted")).unwrap();
    assert_eq!(linted, "run\nrun\n");
    assert!(tui.made("built"));
    assert!(!tui.made("outside"), "asked before it ran");
    deck.send(b"y\r");
    eventually("the last command ran", &t, || tui.made("outside"));
    t.wait_for("Finished.");
    // for the session only: no settings file keeps a rule
    assert_eq!(std::fs::read_to_string(&user).unwrap(), before);
    assert!(!tui.work.join(".claude/settings.local.json").exists());
    assert!(!tui.work.join(".claude/settings.json").exists());
    let reqs = tui.w.main_requests();
    for r in reqs.iter().filter(|r| !r.tool_results().is_empty()) {
        for res in r.tool_results() {
            assert!(!res.is_error, "{res:?}");
        }
    }
    deck.send(b"q");
    stop(t);
}

/// A deck of the test's own on the socket answers the next request, which
/// must be for `tool`, with an allow carrying `updates` (what the deck's
/// own keys never make); whether the hook said it took the answer (an
/// acknowledgement before it hung up).
fn forged_allow(
    l: &std::os::unix::net::UnixListener,
    tool: &str,
    updates: serde_json::Value,
) -> bool {
    let (mut s, req) = crate::deck_chat::read_request(l);
    assert_eq!(req["input"]["tool_name"], tool, "{req}");
    let answer = serde_json::json!({"token": req["token"], "behavior": "allow",
        "updatedPermissions": updates});
    writeln!(s, "{answer}").unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut s, &mut rest).unwrap();
    assert!(
        rest.is_empty() || rest.contains(r#""taken":true"#),
        "{rest}"
    );
    !rest.is_empty()
}

/// A deck's allow carrying permission updates the deck never offers for a
/// command (its own keys cannot make one: a deck of the test's own on the
/// socket answers) is not passed on to the claude TUI: its hook prints
/// nothing and takes nothing, and the TUI shows its own dialog. A rule
/// wider than the CLI suggested (`Bash`, in every project) is not kept,
/// and a mode (`bypassPermissions`) is not taken.
#[test]
fn real_cli_tui_an_allow_wider_than_the_cli_suggested_is_not_passed_on_and_the_tui_asks() {
    let Some(tui) = tui_world(
        "real_cli_tui_an_allow_wider_than_the_cli_suggested_is_not_passed_on_and_the_tui_asks",
    ) else {
        return;
    };
    let user = tui.w.home.path().join(".claude/settings.json");
    let before = std::fs::read_to_string(&user).unwrap();
    tui.w.api.push(Reply::bash("touch one"));
    tui.w.api.push(Reply::bash("touch two"));
    tui.w.api.push(Reply::text("Finished."));
    let l = crate::deck_chat::fake_deck(tui.w.home.path());
    let mut t = tui.start();
    tui.prompt(&mut t, "make the files");
    let wider = serde_json::json!([{"type": "addRules", "behavior": "allow",
        "rules": [{"toolName": "Bash"}], "destination": "userSettings"}]);
    assert!(!forged_allow(&l, "Bash", wider));
    yes_in_the_tui(&mut t);
    eventually("the first command ran", &t, || tui.made("one"));
    // asked again (the wider rule was never given to the TUI)
    let mode = serde_json::json!([{"type": "setMode", "mode": "bypassPermissions",
        "destination": "session"}]);
    assert!(!forged_allow(&l, "Bash", mode));
    yes_in_the_tui(&mut t);
    eventually("the second command ran", &t, || tui.made("two"));
    t.wait_for("Finished.");
    assert_eq!(std::fs::read_to_string(&user).unwrap(), before);
    assert!(!tui.work.join(".claude/settings.local.json").exists());
    assert!(
        !t.contents().contains("bypass permissions on"),
        "{}",
        t.contents()
    );
    stop(t);
}

/// The same command twice in a row, the first allowed once from the full
/// deck: the second is a request of its own, held by the deck and answered
/// from it. The TUI writes the first call's result in its transcript a
/// moment after it ran, when the second request is held already: that
/// result is no answer to it (the deck dropped the row as "answered in its
/// terminal", and the TUI waited on its own dialog for nobody).
#[test]
fn real_cli_tui_the_same_command_again_is_held_by_the_deck_till_answered() {
    let Some(tui) =
        tui_world("real_cli_tui_the_same_command_again_is_held_by_the_deck_till_answered")
    else {
        return;
    };
    tui.w.api.push(Reply::bash("echo x >> twice"));
    tui.w.api.push(Reply::bash("echo x >> twice"));
    tui.w.api.push(Reply::text("Finished."));
    let mut deck = Term::spawn_sized(tui.claudio(&["deck"]), 30, 100);
    deck.wait_for("claudio deck");
    let mut t = tui.start();
    tui.prompt(&mut t, "append twice");
    deck.wait_for("y once");
    deck.send(b"y\r");
    eventually("the first command ran", &t, || tui.made("twice"));
    deck.wait_for("y once");
    // the first call's result, in the transcript
    let projects = tui.w.home.path().join(".claude/projects");
    eventually("the first result in the transcript", &t, || {
        std::fs::read_dir(&projects)
            .into_iter()
            .flatten()
            .flat_map(|d| std::fs::read_dir(d.unwrap().path()).into_iter().flatten())
            .filter_map(|f| std::fs::read_to_string(f.unwrap().path()).ok())
            .any(|raw| raw.contains("tool_result"))
    });
    // the deck read it (its age column a second on): the request is held
    let held = |deck: &Term| -> Option<u64> {
        let rows = deck.rows();
        let row = rows
            .iter()
            .find(|r| r.contains("NEEDS YOU") && r.contains("echo x >> twice"))?;
        row.split_whitespace()
            .rev()
            .find_map(|w| w.strip_suffix('s')?.parse().ok())
    };
    let since = held(&deck).unwrap_or_else(|| panic!("{}", deck.contents()));
    eventually("the deck holds the request a second on", &t, || {
        held(&deck).is_some_and(|s| s > since)
    });
    assert!(
        !deck.contents().contains("answered in its terminal"),
        "{}",
        deck.contents()
    );
    deck.send(b"y\r");
    t.wait_for("Finished.");
    let twice = std::fs::read_to_string(tui.work.join("twice")).unwrap();
    assert_eq!(twice, "x\nx\n");
    deck.send(b"q");
    stop(t);
}

/// A claude TUI's plan and question are never decided by its hook, though
/// the deck answers one (its own keys never do: a deck of the test's own
/// on the socket answers an allow with the mode a plan's approval carries,
/// and a plain allow): the hook takes nothing, the TUI shows its own
/// dialog, and the answers given there are the ones that count.
#[test]
fn real_cli_tui_a_plan_or_question_allowed_by_a_deck_is_still_asked_in_the_tui() {
    let Some(tui) =
        tui_world("real_cli_tui_a_plan_or_question_allowed_by_a_deck_is_still_asked_in_the_tui")
    else {
        return;
    };
    let plan = Reply::tool_use(
        "ExitPlanMode",
        serde_json::json!({"plan": "# Plan\n\n1. Nothing"}),
    );
    let plan_id = plan.tool_use_id();
    tui.w.api.push(plan);
    tui.w.api.push(Reply::text("Planned."));
    tui.w.api.push(Reply::tool_use(
        "AskUserQuestion",
        serde_json::json!({"questions": [{"question": "Which color?", "header": "Color",
            "options": [{"label": "Red", "description": "warm"}, {"label": "Blue", "description": "cool"}],
            "multiSelect": false}]}),
    ));
    tui.w.api.push(Reply::text("Asked."));
    let l = crate::deck_chat::fake_deck(tui.w.home.path());
    let mut t = tui.start();
    to_plan_mode(&mut t);
    tui.prompt(&mut t, "plan it");
    let mode = serde_json::json!([{"type": "setMode", "mode": "acceptEdits",
        "destination": "session"}]);
    assert!(!forged_allow(&l, "ExitPlanMode", mode));
    let screen = t.wait_for(PLAN_DIALOG);
    assert!(
        !screen.contains("Allowed by PermissionRequest hook"),
        "{screen}"
    );
    // approved there: back to manual mode, as its first choice says
    first_choice_in_the_tui(&mut t, PLAN_DIALOG);
    t.wait_for("Planned.");
    assert!(
        !t.contents().contains("accept edits on"),
        "{}",
        t.contents()
    );
    let reqs = tui.w.main_requests();
    let approved = reqs
        .iter()
        .find_map(|r| r.tool_result_for(&plan_id))
        .expect("the plan's result");
    assert!(
        approved.content.contains("approved exiting plan mode"),
        "{approved:?}"
    );
    tui.keep_manual_mode(&mut t);
    tui.prompt(&mut t, "ask me");
    assert!(!forged_allow(&l, "AskUserQuestion", serde_json::json!([])));
    first_choice_in_the_tui(&mut t, "Which color?");
    t.wait_for("Asked.");
    let reqs = tui.w.main_requests();
    let results = reqs.last().unwrap().tool_results();
    assert!(results[0].content.contains("Red"), "{results:?}");
    stop(t);
}

/// A claude TUI killed while the deck holds its request (its hook runs on,
/// its parent gone): the request leaves the deck, said to be of a session
/// that ended, and nothing is left to allow. Before, the row stayed until the hook's 5 minutes passed, and
/// `y` said "allowed once" for a request nobody would run.
#[test]
fn real_cli_tui_killed_while_its_request_is_held_leaves_the_deck() {
    let Some(tui) = tui_world("real_cli_tui_killed_while_its_request_is_held_leaves_the_deck")
    else {
        return;
    };
    tui.w.api.push(Reply::bash("touch never_made"));
    tui.w.api.push(Reply::text("Finished."));
    let mut deck = Term::spawn_sized(tui.claudio(&["deck"]), 30, 100);
    deck.wait_for("claudio deck");
    let mut t = tui.start();
    tui.prompt(&mut t, "make the file");
    deck.wait_for("y once");
    assert!(deck.contents().contains("touch never_made"));
    // the TUI killed as a crash or `kill -9` ends it: no goodbye
    t.child().kill().unwrap();
    wait_with_deadline(t.child(), 30);
    let until = Instant::now() + Duration::from_secs(30);
    while !deck.contents().contains("its session ended") {
        assert!(
            Instant::now() < until,
            "the killed TUI's request is still held:\n{}",
            deck.contents()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let screen = deck.contents();
    assert!(!screen.contains("touch never_made"), "{screen}");
    assert!(!screen.contains("y once"), "{screen}");
    let o = run(tui.claudio(&["deck", "--json"]), None);
    let v: serde_json::Value = serde_json::from_str(&crate::common::stdout(&o)).unwrap();
    assert_eq!(v["pending"], serde_json::json!([]), "{v}");
    assert!(!tui.made("never_made"));
    deck.send(b"q");
    deck.wait(30);
}

/// The line deck too: a claude TUI killed while its request waits on the
/// deck's line is said to be gone, its session ended (before, the deck
/// waited on a line for the hook's 5 minutes).
#[test]
fn real_cli_tui_killed_while_the_line_deck_asks_is_said_to_be_gone() {
    let Some(tui) = tui_world("real_cli_tui_killed_while_the_line_deck_asks_is_said_to_be_gone")
    else {
        return;
    };
    tui.w.api.push(Reply::bash("touch never_made"));
    tui.w.api.push(Reply::text("Finished."));
    let deck = LineDeck::start(&tui);
    let mut t = tui.start();
    tui.prompt(&mut t, "make the file");
    deck.wait_for("touch never_made");
    t.child().kill().unwrap();
    wait_with_deadline(t.child(), 30);
    deck.wait_for("gone: its session ended");
    assert!(!tui.made("never_made"));
}

/// A prompt the API answers with an error the TUI shows at once (402,
/// billing: never retried). The session is not shown working for ever,
/// nor done as a turn that ended well: the full deck shows it failed, with
/// the error, and `deck --json` gives the same error.
#[test]
fn real_cli_tui_a_turn_ended_by_an_api_error_is_not_shown_working() {
    let Some(tui) = tui_world("real_cli_tui_a_turn_ended_by_an_api_error_is_not_shown_working")
    else {
        return;
    };
    tui.w
        .api
        .push(Reply::fatal("Your credit balance is too low"));
    let deck = Term::spawn_sized(tui.claudio(&["deck"]), 30, 140);
    deck.wait_for("claudio deck");
    let mut t = tui.start();
    tui.prompt(&mut t, "do the work");
    // the TUI takes the prompt back and says why
    t.wait_for("Once fixed, resend your message");
    let row = || -> serde_json::Value {
        let o = run(tui.claudio(&["deck", "--json"]), None);
        let v: serde_json::Value = serde_json::from_str(&crate::common::stdout(&o)).unwrap();
        v["sessions"][0].clone()
    };
    eventually("the deck no longer says it works", &t, || {
        row()["state"] != "working"
    });
    // not "done" as a turn that ended well: failed, with the CLI's error
    let screen = deck.wait_for("FAILED");
    let shown = screen
        .lines()
        .find(|l| l.contains("FAILED"))
        .unwrap_or_default();
    assert!(shown.contains("claude TUI"), "{screen}");
    // the CLI's own words for a billing error
    assert!(
        shown.contains("failed: Credit balance is too low"),
        "{screen}"
    );
    assert!(!screen.contains("DONE"), "{screen}");
    assert!(!screen.contains("WORKING"), "{screen}");
    let r = row();
    assert_eq!(r["state"], "idle", "{r}");
    assert_eq!(r["error"], "Credit balance is too low", "{r}");
    // the line deck's list of sessions says so too (one deck at a time)
    drop(deck);
    let line = LineDeck::start_listing(&tui);
    assert!(line.starts_with("FAILED "), "{line}");
    assert!(
        line.ends_with("failed: Credit balance is too low"),
        "{line}"
    );
    stop(t);
}
