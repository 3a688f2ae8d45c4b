//! Attacks on the trust question (issue 39 item 1), with the fake CLI on a
//! pty: what the answer records, and where.

use crate::common;

use common::term::Term;
use common::*;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// The chat's command in `dir` with `home` as HOME, every folder's trust
/// asked.
pub(crate) fn chat_command(fake: &Fake, home: &Path, dir: &Path) -> std::process::Command {
    let mut c = claudio(fake);
    c.env("XDG_DATA_HOME", home)
        .env("HOME", home)
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CLAUDE_CODE_SANDBOXED")
        .current_dir(dir);
    c
}

/// The chat in `dir` with `home` as HOME, every folder's trust asked.
fn chat_in(fake: &Fake, home: &Path, dir: &Path) -> Term {
    Term::spawn(chat_command(fake, home, dir))
}

fn bye(mut t: Term) {
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0), "Ctrl-D did not end the chat");
}

/// Whether the screen says the folder was trusted; never that its
/// settings were left out.
fn trusted(rows: &[String]) -> bool {
    assert!(
        !rows.iter().any(|r| r.contains("not loaded")),
        "{}",
        rows.join("\n")
    );
    rows.iter().any(|r| r.trim() == "trusted")
}

/// The fake's folder (its real path) and a home folder made in it.
pub(crate) fn base_and_home(fake: &Fake) -> (PathBuf, PathBuf) {
    let base = std::fs::canonicalize(fake.record.path()).unwrap();
    let home = base.join("home");
    std::fs::create_dir_all(&home).unwrap();
    (base, home)
}

/// A folder with a project hook, in `parent`.
pub(crate) fn project(parent: &Path, name: &str) -> PathBuf {
    let dir = parent.join(name);
    std::fs::create_dir_all(dir.join(".claude")).unwrap();
    std::fs::write(
        dir.join(".claude/settings.json"),
        json!({"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "true"}]}]}})
            .to_string(),
    )
    .unwrap();
    dir
}

/// A home folder kept in git (dotfiles): trusting `~/notes`, a folder in
/// it that is no repository of its own, would be recorded as the trust of
/// the repository's root, the home folder, and so trust every folder under
/// home that is no repository (a downloaded archive unpacked there
/// among them). As for the home folder itself, the trust holds for the
/// session only, and the question says so.
#[test]
fn trusting_a_folder_in_a_home_kept_in_git_does_not_trust_the_whole_home() {
    let fake = Fake::after_init(vec![]);
    let home = std::fs::canonicalize(fake.record.path())
        .unwrap()
        .join("home");
    std::fs::create_dir_all(home.join(".git")).unwrap();
    std::fs::write(home.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    let state = home.join(".claude.json");
    std::fs::write(&state, "{\n  \"numStartups\": 1\n}\n").unwrap();
    let notes = project(&home, "notes");

    let t = chat_in(&fake, &home, &notes);
    let screen = t.wait_for("y trust it");
    assert!(screen.contains("Do you trust the files"), "{screen}");
    assert!(screen.contains("session only"), "{screen}");
    let mut t = t;
    t.line("y");
    t.wait_for("trusted for this session");
    bye(t);

    let now: Value = serde_json::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
    let key = home.to_str().unwrap();
    assert_ne!(
        now["projects"][key]["hasTrustDialogAccepted"], true,
        "the home folder was recorded as trusted: {now:#}"
    );
    // a folder unpacked under home later is asked about, not trusted
    let other = project(&home, "Downloads/unpacked");
    let t = chat_in(&fake, &home, &other);
    let screen = t.wait_for("y trust it");
    assert!(screen.contains("Do you trust the files"), "{screen}");
    let mut t = t;
    t.line("n");
    t.wait_for("not loaded");
    bye(t);
}

/// A folder deep in a repository: the question says that what is trusted
/// is the whole repository (its root is what is recorded).
#[test]
fn the_question_in_a_repository_s_subfolder_names_the_repository_trusted() {
    let fake = Fake::after_init(vec![]);
    let (base, home) = base_and_home(&fake);
    let repo = base.join("work/big-repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::write(repo.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    let sub = project(&repo, "docs");

    let t = chat_in(&fake, &home, &sub);
    let screen = t.wait_for("y trust it");
    // the question is wrapped to the terminal: its words, rows apart
    let words = screen.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains("trusting it trusts that whole repository"),
        "{screen}"
    );
    assert!(screen.contains("big-repo"), "{screen}");
    let mut t = t;
    t.line("y");
    t.wait_for("trusted");
    bye(t);
    let now: Value =
        serde_json::from_str(&std::fs::read_to_string(home.join(".claude.json")).unwrap()).unwrap();
    assert_eq!(
        now["projects"][repo.to_str().unwrap()]["hasTrustDialogAccepted"],
        true,
        "{now:#}"
    );
}

/// The question is wrapped to the terminal's width as the chat's other
/// prose is: at 90 columns its 91-column line was left to the terminal,
/// which wrapped it before the final `.`, alone at the next row's start.
#[test]
fn the_question_is_wrapped_to_the_terminal_s_width() {
    let fake = Fake::after_init(vec![]);
    let (base, home) = base_and_home(&fake);
    // a folder with no project settings: "... it has none today." (91)
    let dir = base.join("plain");
    std::fs::create_dir_all(&dir).unwrap();
    let mut t = Term::spawn_sized(chat_command(&fake, &home, &dir), 30, 90);
    t.wait_for("y trust it");
    let rows = t.rows();
    let shown = rows.join("\n");
    let first = rows
        .iter()
        .position(|r| r.contains("Do you trust"))
        .expect(&shown);
    let ask = rows.iter().position(|r| r.contains("y trust it")).unwrap();
    for row in &rows[first..ask] {
        // every row of the question starts indented: none is the rest of
        // a row the terminal wrapped
        assert!(row.starts_with("  "), "{row:?} is not indented:\n{shown}");
    }
    assert!(
        rows[first..ask].iter().any(|r| r.ends_with("today.")),
        "{shown}"
    );
    t.line("n");
    t.wait_for("not loaded");
    bye(t);
}

/// Ctrl-D at the question is "no"; Ctrl-C there ends the chat before the
/// CLI ever starts. Neither hangs, and nothing is recorded.
#[test]
fn ctrl_d_at_the_question_is_no_and_ctrl_c_ends_the_chat() {
    let fake = Fake::after_init(vec![]);
    let (base, home) = base_and_home(&fake);
    let dir = project(&base, "work");

    let mut t = chat_in(&fake, &home, &dir);
    t.wait_for("y trust it");
    t.send(b"\x04");
    t.wait_for("not loaded");
    bye(t);

    let fake = Fake::after_init(vec![]);
    let mut t = chat_in(&fake, &home, &dir);
    t.wait_for("y trust it");
    t.send(b"\x03");
    let status = t.wait(20);
    assert!(!status.success(), "{status:?}");
    assert!(!home.join(".claude.json").exists());
    assert!(
        !fake.record.path().join("argv.json").exists(),
        "the CLI started"
    );
}

/// The answer to the trust question is read as a line at the prompt is,
/// by the chat's one reader of the keyboard (#42.1): edited with the
/// prompt's keys (Left moves in it, Delete takes the character under the
/// cursor), and shown as it is. Read in the terminal's own line mode, as
/// it was, the arrow went into the answer as `^[[D`: "y" became no answer
/// at all. Ctrl-C there still ends the chat, 130, before the CLI starts.
#[test]
fn the_trust_answer_is_edited_with_the_prompt_s_keys() {
    let fake = Fake::after_init(vec![]);
    let (base, home) = base_and_home(&fake);
    let dir = project(&base, "work");

    let mut t = chat_in(&fake, &home, &dir);
    t.wait_for("y trust it");
    // "yn", Left, Delete: "y"
    t.send(b"yn\x1b[D\x1b[3~");
    t.wait_rows("the answer is not \"y\"", |rows| {
        rows.iter().any(|r| r.ends_with("start without them › y"))
    });
    t.send(b"\r");
    t.wait_rows("never answered", trusted);
    bye(t);
    let now: Value =
        serde_json::from_str(&std::fs::read_to_string(home.join(".claude.json")).unwrap()).unwrap();
    assert_eq!(
        now["projects"][dir.to_str().unwrap()]["hasTrustDialogAccepted"],
        true,
        "{now:#}"
    );

    // Ctrl-C at the question: the chat ends, 130, the CLI never started
    let other = project(&base, "other");
    let fake = Fake::after_init(vec![]);
    let mut t = chat_in(&fake, &home, &other);
    t.wait_for("y trust it");
    t.send(b"y");
    t.send(b"\x03");
    assert_eq!(t.wait(30).code(), Some(130));
    assert!(
        !fake.record.path().join("argv.json").exists(),
        "the CLI started"
    );
}

/// Keys typed before the trust question is shown answer nothing, and
/// reach no prompt after it either: "y" and Enter typed ahead of the chat
/// (in the terminal before it started) neither trust the folder nor are
/// sent as the first prompt; they are dropped when the question is shown
/// (before, the one reader had read them already, and the first prompt
/// sent them).
#[test]
fn keys_typed_before_the_trust_question_answer_nothing_and_are_not_sent() {
    let fake = Fake::after_init(vec![turn("ok", "fine")]);
    let (base, home) = base_and_home(&fake);
    let dir = project(&base, "work");
    let mut t = Term::spawn_typed(chat_command(&fake, &home, &dir), b"y\r");
    t.wait_for("y trust it");
    t.line("n");
    t.wait_for("not loaded");
    t.wait_prompt();
    t.line("ok");
    t.wait_for("fine");
    t.wait_for("API call");
    bye(t);
    let users = fake.user_lines();
    assert_eq!(users.len(), 1, "{users:?}");
    assert_eq!(users[0]["message"]["content"], "ok");
    let state = std::fs::read_to_string(home.join(".claude.json")).unwrap_or_default();
    assert!(!state.contains("hasTrustDialogAccepted"), "{state}");
}

/// A prompt typed while the trust question is shown (the person did not
/// read it) answers nothing: the question is asked again, and the prompt
/// waits on the prompt line once it is answered, to send with Enter.
/// Before, any line but "y" was "no": the folder was left untrusted and
/// the prompt was lost.
#[test]
fn a_prompt_typed_at_the_trust_question_asks_again_and_waits_on_the_prompt_line() {
    let fake = Fake::after_init(vec![turn("fix the bug", "fixed it")]);
    let (base, home) = base_and_home(&fake);
    let dir = project(&base, "work");

    let mut t = chat_in(&fake, &home, &dir);
    t.wait_for("y trust it");
    t.line("fix the bug");
    t.wait_for("that is not y or n");
    t.wait_for_n("y trust it", 2);
    t.line("y");
    t.wait_rows("the prompt line does not hold what was typed", |rows| {
        trusted(rows) && rows.iter().any(|r| r.starts_with("› fix the bug"))
    });
    assert!(fake.user_lines().is_empty(), "sent before Enter");
    t.send(b"\r");
    t.wait_for("fixed it");
    bye(t);
    let users = fake.user_lines();
    assert_eq!(users.len(), 1, "{users:?}");
    assert_eq!(users[0]["message"]["content"], "fix the bug");
    let now: Value =
        serde_json::from_str(&std::fs::read_to_string(home.join(".claude.json")).unwrap()).unwrap();
    assert_eq!(
        now["projects"][dir.to_str().unwrap()]["hasTrustDialogAccepted"],
        true,
        "{now:#}"
    );
}

/// `--trust-workspace` loads the settings of the folder the chat was
/// started in; `/resume` of a session recorded in another project, not
/// trusted, asks about that one (it loaded its hooks unasked).
#[test]
fn trust_workspace_does_not_follow_a_resume_into_another_project() {
    let fake = Fake::after_init(vec![]);
    let base = std::fs::canonicalize(fake.record.path()).unwrap();
    let home = base.join("home");
    let mine = base.join("mine");
    std::fs::create_dir_all(&mine).unwrap();
    let other = project(&base, "other");
    let id = "abababab-1111-4111-8111-111111111111";
    let folder = home
        .join(".claude/projects")
        .join(claudio::store::project_folder_name(other.to_str().unwrap()));
    std::fs::create_dir_all(&folder).unwrap();
    let line = |kind: &str, uuid: &str, parent: Value, message: Value| {
        json!({"type": kind, "uuid": uuid, "parentUuid": parent, "cwd": other, "sessionId": id,
            "isSidechain": false, "timestamp": "2026-11-30T10:00:00Z", "message": message})
        .to_string()
    };
    std::fs::write(
        folder.join(format!("{id}.jsonl")),
        format!(
            "{}\n{}\n",
            line("user", "u1", Value::Null, json!({"role": "user", "content": "earlier"})),
            line(
                "assistant",
                "a1",
                json!("u1"),
                json!({"role": "assistant", "content": [{"type": "text", "text": "earlier answer"}]})
            )
        ),
    )
    .unwrap();

    let mut c = chat_command(&fake, &home, &mine);
    c.arg("--trust-workspace");
    let mut t = Term::spawn(c);
    let screen = t.wait_for("Ctrl-D exits");
    assert!(!screen.contains("Do you trust"), "{screen}");
    t.line(&format!("/resume {id}"));
    let screen = t.wait_for("y trust it");
    assert!(screen.contains("hooks SessionStart"), "{screen}");
    t.line("n");
    t.wait_for("not loaded");
    bye(t);
}

/// A session of another project, resumed: its calls' paths are shown from
/// that project, as its history is; they were shown from the folder the
/// chat began in (here a whole path).
#[test]
fn a_resumed_session_of_another_project_shows_paths_from_there() {
    let fake = Fake::after_init(vec![]);
    let base = std::fs::canonicalize(fake.record.path()).unwrap();
    let (home, mine, other) = (base.join("home"), base.join("mine"), base.join("other"));
    for d in [&mine, &other.join("src")] {
        std::fs::create_dir_all(d).unwrap();
    }
    let file = other.join("src/totals.rs");
    let fake = Fake {
        steps: steps(vec![
            init(),
            vec![
                expect_user("look"),
                system_init(),
                assistant_tool_use("toolu_r1", "Read", json!({"file_path": file})),
                Step::Emit(json!({"type":"user","message":{"role":"user","content":[
                    {"type":"tool_result","tool_use_id":"toolu_r1","content":"fn total() {}"}]},
                    "parent_tool_use_id":null,"session_id":"sess-1"})),
                result("ok"),
            ],
        ]),
        ..fake
    };
    let id = "cdcdcdcd-1111-4111-8111-111111111111";
    let folder = home
        .join(".claude/projects")
        .join(claudio::store::project_folder_name(other.to_str().unwrap()));
    std::fs::create_dir_all(&folder).unwrap();
    let line = json!({"type": "user", "uuid": "u1", "parentUuid": null, "cwd": other,
        "sessionId": id, "isSidechain": false, "timestamp": "2026-11-30T10:00:00Z",
        "message": {"role": "user", "content": "earlier"}});
    std::fs::write(folder.join(format!("{id}.jsonl")), format!("{line}\n")).unwrap();

    let mut t = chat_in(&fake, &home, &mine);
    t.wait_for("y trust it");
    t.line("n");
    t.wait_for("not loaded");
    t.line(&format!("/resume {id}"));
    t.wait_for_n("y trust it", 2);
    t.line("n");
    t.wait_for("resuming cdcdcdcd");
    t.line("look");
    let screen = t.wait_for("Read  src/totals.rs");
    assert!(!screen.contains("other/src/totals.rs"), "{screen}");
    bye(t);
}
