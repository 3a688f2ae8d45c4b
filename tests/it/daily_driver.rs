//! End-to-end, the chat as a daily driver: the model's questions, plans,
//! mode cycling, `@` paths, `!` commands, rewind and sub-agents, with the
//! real Claude Code CLI (pinned 2.1.328) and a scripted Messages API.

use crate::common;

use common::real::*;
use common::term::Term;
use serde_json::json;

fn chat(w: &World, args: &[&str]) -> Term {
    let mut c = w.claudio();
    c.env("XDG_DATA_HOME", w.home.path()).args(args);
    let t = Term::spawn(c);
    t.wait_for("Ctrl-D exits");
    t
}

/// Script a background agent: the main turn calls `Agent` with this
/// description and answers `started`; the agent's own requests get
/// `agent` in order, the first once the returned file exists: the test
/// makes it when claudio shows the main turn ended with the agent still at
/// work (a CLI that has the agent's answer before it ends the main turn
/// folds it in, and starts no turn to report it; a loaded machine's CLI
/// takes its time to end a turn); the turn the CLI starts for its report
/// answers `report`.
fn script_agent(
    w: &World,
    description: &str,
    started: &str,
    mut agent: Vec<Reply>,
    report: &str,
) -> std::path::PathBuf {
    let main = |r: &RecordedRequest| !r.is_subagent();
    let sub = |r: &RecordedRequest| r.is_subagent();
    w.api.push_matching(
        main,
        Reply::tool_use(
            "Agent",
            json!({"description":description,"prompt":"do it","subagent_type":"general-purpose"}),
        ),
    );
    w.api.push_matching(main, Reply::text(started));
    static GATES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = GATES.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let gate = w.home.path().join(format!("main-turn-ended-{n}"));
    if let Some(first) = agent.first_mut() {
        *first = first.clone().after(&gate);
    }
    for r in agent {
        w.api.push_matching(sub, r);
    }
    w.api.push_matching(main, Reply::text(report));
    gate
}

/// `claudio ask` with `args`, its stderr on a terminal: once it shows the
/// main turn ended with the agent at work, `gate` is made (see
/// [`script_agent`]). Its output, and its stdout.
fn ask_with_an_agent(w: &World, args: &[&str], gate: &std::path::Path) -> (Option<i32>, String) {
    let mut err = Term::open();
    let mut child = w
        .claudio()
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(err.slave())
        .spawn()
        .unwrap();
    let out = child.stdout.take();
    let out = std::thread::spawn(move || crate::common::read_all(out));
    err.read_until("waiting for 1 background agent");
    std::fs::write(gate, b"").unwrap();
    let code = crate::common::wait_with_deadline(&mut child, 180).code();
    (code, out.join().unwrap())
}

fn bye(mut t: Term) {
    t.ctrl_d();
    assert_eq!(t.wait(30).code(), Some(0));
}

fn db_question() -> serde_json::Value {
    json!({"questions":[{"question":"Which database should we use?","header":"Database","multiSelect":false,
        "options":[{"label":"SQLite","description":"one file"},{"label":"Postgres","description":"a server"}]}]})
}

#[test]
fn choosing_an_option_answers_the_model() {
    let w = world!("choosing_an_option_answers_the_model");
    let call = Reply::tool_use("AskUserQuestion", db_question());
    let id = call.tool_use_id();
    w.api.push(call);
    w.api.push(Reply::text("Postgres it is."));
    let mut t = chat(&w, &[]);
    t.line("set up storage");
    let screen = t.wait_for("esc declines");
    assert!(screen.contains("Which database should we use?"), "{screen}");
    assert!(!screen.contains("Allow?"), "{screen}");
    t.send(b"2");
    t.wait_for("Postgres it is.");
    t.wait_for("API calls ·");
    bye(t);
    let reqs = w.main_requests();
    let tr = reqs[1].tool_result_for(&id).expect("a tool result");
    assert!(!tr.is_error, "{tr:?}");
    assert!(tr.content.contains("answered"), "{tr:?}");
    assert!(
        tr.content
            .contains("\"Which database should we use?\"=\"Postgres\""),
        "{tr:?}"
    );
}

#[test]
fn ask_with_a_question_and_no_terminal_denies_and_tells_the_model() {
    let w = world!("ask_with_a_question_and_no_terminal_denies_and_tells_the_model");
    let call = Reply::tool_use("AskUserQuestion", db_question());
    let id = call.tool_use_id();
    w.api.push(call);
    w.api.push(Reply::text("I picked SQLite myself."));
    let out = w
        .claudio()
        .args(["ask", "set up storage"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "I picked SQLite myself."
    );
    let tr = w.main_requests()[1].tool_result_for(&id).unwrap();
    assert!(tr.is_error, "{tr:?}");
    assert!(tr.content.contains("Nobody is at a terminal"), "{tr:?}");
}

#[test]
fn approving_a_plan_with_auto_accept_switches_the_cli_to_accept_edits() {
    let w = world!("approving_a_plan_with_auto_accept_switches_the_cli_to_accept_edits");
    let plan = "# Plan\n\n1. Add notes.txt\n2. Say done";
    let call = Reply::tool_use("ExitPlanMode", json!({ "plan": plan }));
    let id = call.tool_use_id();
    w.api.push(call);
    w.api.push(Reply::text("Starting."));
    let mut t = chat(&w, &["--permission-mode", "plan"]);
    t.line("plan the notes");
    let screen = t.wait_for("esc declines");
    assert!(screen.contains("1. Add notes.txt"), "{screen}");
    t.send(b"1");
    t.wait_for("Starting.");
    let screen = t.wait_for("API calls ·");
    assert!(screen.contains("acceptEdits ──"), "{screen}");
    bye(t);
    let tr = w.main_requests()[1].tool_result_for(&id).unwrap();
    assert!(!tr.is_error, "{tr:?}");
    // approved as proposed: the model is not told the person edited it
    // (no plan file was written, so the CLI names no plan at all)
    assert!(tr.content.contains("approved exiting plan mode"), "{tr:?}");
    assert!(!tr.content.contains("edited by user"), "{tr:?}");
}

#[test]
fn shift_tab_cycles_the_mode_and_the_cli_confirms_it() {
    let w = world!("shift_tab_cycles_the_mode_and_the_cli_confirms_it");
    let path = w.work.path().join("auto.txt");
    w.api.push(Reply::tool_use(
        "Write",
        json!({"file_path": path.display().to_string(), "content": "auto\n"}),
    ));
    w.api.push(Reply::text("Wrote it without asking."));
    let mut t = chat(&w, &[]);
    t.wait_prompt();
    t.send(b"half typed");
    t.send(b"\x1b[Z");
    t.wait_for("acceptEdits › half typed");
    // the line survives; finish it and send it
    t.send(b"\x15"); // Ctrl-U
    t.line("write the file");
    t.wait_for("Wrote it without asking.");
    let screen = t.wait_for("API calls ·");
    assert!(
        !screen.contains("Allow?"),
        "acceptEdits asks nothing: {screen}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "auto\n");
    t.wait_prompt();
    t.send(b"\x1b[Z");
    t.wait_for("plan ›");
    t.send(b"\x1b[Z");
    // back to default: the prompt names no mode
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let screen = t.contents();
        let last = screen
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .to_owned();
        if last.trim_end().ends_with('›') && !last.contains("plan") && !last.contains("acceptEdits")
        {
            break;
        }
        assert!(
            std::time::Instant::now() < until,
            "never back to default:\n{screen}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    bye(t);
}

/// Wait until the line editor shows `text` on its prompt: the last line
/// drawn ends with it (the same words may stand higher up, where they were
/// typed before).
fn wait_prompt_line(t: &Term, text: &str) {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let screen = t.contents();
        let last = screen.lines().rev().find(|l| !l.trim().is_empty());
        if last.is_some_and(|l| l.trim_end().ends_with(text)) {
            return;
        }
        assert!(
            std::time::Instant::now() < until,
            "never at the prompt: {text:?}\n{screen}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[test]
fn rewind_restores_the_files_and_the_conversation() {
    let w = world!("rewind_restores_the_files_and_the_conversation");
    let path = w.work.path().join("notes.txt");
    w.api.push(Reply::text("Hello to you."));
    w.api.push(Reply::tool_use(
        "Write",
        json!({"file_path": path.display().to_string(), "content": "notes\n"}),
    ));
    w.api.push(Reply::text("Wrote the notes."));
    w.api.push(Reply::text("Bye then."));
    let mut t = chat(&w, &[]);
    t.line("hello");
    t.wait_for("Hello to you.");
    t.wait_prompt();
    t.line("write notes");
    t.wait_for("Allow?");
    t.line("y");
    t.wait_for("Wrote the notes.");
    t.wait_for_n("API call", 2);
    t.wait_prompt();
    assert!(path.exists());
    t.line("/rewind");
    t.wait_for("Rewind to before which prompt?");
    let screen = t.wait_for("esc declines");
    assert!(screen.contains("1. hello"), "{screen}");
    t.send(b"2");
    let screen = t.wait_for("Never mind");
    assert!(screen.contains("1 file goes back"), "{screen}");
    assert!(screen.contains("notes.txt"), "{screen}");
    assert!(path.exists(), "nothing changes before the person confirms");
    t.send(b"1");
    t.wait_for("it is back in the input line");
    // the line editor has it: "› write notes" alone is on the screen
    // already, where it was typed, and Ctrl-U sent before the editor reads
    // is the terminal's line kill, lost (the flake this test had)
    wait_prompt_line(&t, "› write notes");
    assert!(!path.exists(), "the written file is gone");
    t.send(b"\x15");
    t.line("say bye instead");
    t.wait_for("Bye then.");
    bye(t);
    let reqs = w.main_requests();
    let last = reqs.last().unwrap();
    let body = serde_json::to_string(&last.messages()).unwrap();
    assert!(body.contains("hello"), "{body}");
    assert!(body.contains("say bye instead"), "{body}");
    assert!(
        !body.contains("write notes"),
        "the rewound turn is gone: {body}"
    );
}

#[test]
fn esc_esc_at_an_empty_prompt_opens_rewind_and_esc_leaves_it() {
    let w = world!("esc_esc_at_an_empty_prompt_opens_rewind_and_esc_leaves_it");
    w.api.push(Reply::text("Hello to you."));
    let mut t = chat(&w, &[]);
    t.line("hello");
    t.wait_for("API call ·");
    t.wait_prompt();
    // two presses in one write, so both land in the window however slow
    // the machine: the first in its CSI-u form (`ESC [ 27 u`, as a terminal
    // with the kitty keyboard protocol sends it), since two bare ESC bytes
    // read together decode as one Esc; the bare ESC ends the read and
    // decodes alone
    t.send(b"\x1b[27u\x1b");
    let screen = t.wait_for("esc declines");
    assert!(
        screen.contains("Rewind to before which prompt?"),
        "{screen}"
    );
    assert!(screen.contains("1. hello"), "{screen}");
    t.send(b"\x1b");
    t.wait_for("rewind cancelled; nothing changed");
    bye(t);
}

#[test]
fn a_shell_command_s_output_reaches_the_model_with_the_next_prompt() {
    let w = world!("a_shell_command_s_output_reaches_the_model_with_the_next_prompt");
    w.api.push(Reply::text("It printed 42."));
    let mut t = chat(&w, &[]);
    t.line("!echo $((6*7))");
    t.wait_for("Claude sees this with your next prompt");
    t.wait_prompt();
    t.line("what did it print?");
    t.wait_for("It printed 42.");
    bye(t);
    let last = w.main_requests()[0].last_user_text();
    assert!(last.contains("<bash-stdout>42\n</bash-stdout>"), "{last}");
    assert!(last.contains("what did it print?"), "{last}");
}

#[test]
fn an_at_mention_completes_with_tab_and_reaches_the_model_as_a_read() {
    let w = world!("an_at_mention_completes_with_tab_and_reaches_the_model_as_a_read");
    std::fs::write(w.work.path().join("notes.txt"), "zebra-quokka-7731\n").unwrap();
    std::fs::create_dir(w.work.path().join("nested")).unwrap();
    w.api.push(Reply::text("It is about a zebra."));
    let mut t = chat(&w, &[]);
    t.wait_prompt();
    t.send(b"summarize @no");
    t.send(b"\t");
    t.wait_for("summarize @notes.txt");
    t.send(b"\r");
    t.wait_for("It is about a zebra.");
    bye(t);
    let req = &w.main_requests()[0];
    assert!(req.body_contains("zebra-quokka-7731"), "the file was read");
    assert!(req.last_user_text().contains("summarize @notes.txt"));
}

#[test]
fn a_background_agent_is_drawn_under_its_task_and_its_request_names_it() {
    let w = world!("a_background_agent_is_drawn_under_its_task_and_its_request_names_it");
    let gate = script_agent(
        &w,
        "count files",
        "The agent is on it.",
        vec![Reply::bash("touch made_by_agent"), Reply::text("3 files")],
        "The agent counted 3 files.",
    );
    let mut t = chat(&w, &[]);
    t.line("count the files in the background");
    t.wait_for("The agent is on it.");
    let screen = t.wait_for("API calls ·");
    assert!(screen.contains("count files"), "{screen}");
    assert!(screen.contains("working in the background"), "{screen}");
    assert!(screen.contains("1 agent still working"), "{screen}");
    std::fs::write(&gate, b"").unwrap();
    // while the agent works, its live line shows under the answer, with the
    // prompt below it; its Bash call is asked about at once
    let screen = t.wait_for("Allow?");
    assert!(screen.contains("(from count files)"), "{screen}");
    t.line("y");
    t.wait_for("The agent counted 3 files.");
    let screen = t.wait_for("count files  completed");
    assert!(
        screen.contains("count files › ✓ Bash  touch made_by_agent"),
        "the agent's call is indented and named: {screen}"
    );
    assert!(w.work.path().join("made_by_agent").exists());
    // with the agent gone, a whole line arriving at once is read at once
    t.wait_prompt();
    t.line("anything else?");
    t.wait_for("OK (mock default reply).");
    bye(t);
}

#[test]
fn ask_waits_for_a_background_agent_and_prints_its_report() {
    let w = world!("ask_waits_for_a_background_agent_and_prints_its_report");
    let gate = script_agent(
        &w,
        "count files",
        "Started an agent.",
        vec![Reply::text("3 files")],
        "The agent counted 3 files.",
    );
    let (code, stdout) =
        ask_with_an_agent(&w, &["ask", "count the files in the background"], &gate);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.contains("Started an agent."), "{stdout}");
    assert!(stdout.contains("The agent counted 3 files."), "{stdout}");
    // -o json: one line, the last result (the agent's report)
    let gate = script_agent(
        &w,
        "count again",
        "Started again.",
        vec![Reply::text("4 files")],
        "The agent counted 4 files.",
    );
    let (code, text) = ask_with_an_agent(&w, &["ask", "-o", "json", "count again"], &gate);
    assert_eq!(code, Some(0), "{text}");
    assert_eq!(text.lines().count(), 1, "{text}");
    let v: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
    assert_eq!(v["result"], "The agent counted 4 files.", "{v}");
}

#[test]
fn ask_shows_a_sub_agent_s_calls_under_its_name_on_stderr() {
    let w = world!("ask_shows_a_sub_agent_s_calls_under_its_name_on_stderr");
    let gate = script_agent(
        &w,
        "list files",
        "Started.",
        vec![Reply::bash("echo listed"), Reply::text("one file")],
        "Done listing.",
    );
    let mut c = w.claudio();
    c.args(["ask", "list the files in the background"]);
    let mut t = Term::spawn(c);
    t.wait_for("waiting for 1 background agent");
    std::fs::write(&gate, b"").unwrap();
    t.wait_for("Done listing.");
    let screen = t.contents();
    assert!(
        screen.contains("⇢ Agent  list files  working in the background"),
        "{screen}"
    );
    assert!(
        screen.contains("list files › ✓ Bash  echo listed"),
        "{screen}"
    );
    assert!(screen.contains("● list files  completed"), "{screen}");
    assert_eq!(t.wait(30).code(), Some(0));
}

/// The SDK answers a question with its helpers; `Client::turn` collects it.
#[tokio::test(flavor = "multi_thread")]
async fn the_sdk_answers_a_question_and_collects_the_turn() {
    use claudio::protocol::ask::{answer_questions, questions};
    let w = world!("the_sdk_answers_a_question_and_collects_the_turn");
    let call = Reply::tool_use("AskUserQuestion", db_question());
    let id = call.tool_use_id();
    w.api.push(call);
    w.api.push(Reply::text("SQLite then."));
    let options = w.options().can_use_tool(|req, _ctx| async move {
        assert!(req.requires_user_interaction);
        let qs = questions(&req.input).expect("questions");
        let answers = qs
            .iter()
            .map(|q| (q.question.as_str(), q.options[0].label.clone()));
        Ok(answer_questions(&req.input, answers))
    });
    let client = claudio::Client::connect(options).await.unwrap();
    let turn = client.turn("set up storage").await.unwrap();
    client.close().await.unwrap();
    assert_eq!(turn.text(), "SQLite then.");
    assert!(!turn.result.is_error);
    let tr = w.main_requests()[1].tool_result_for(&id).unwrap();
    assert!(
        tr.content
            .contains("\"Which database should we use?\"=\"SQLite\""),
        "{tr:?}"
    );
}

#[test]
fn always_in_this_project_is_kept_by_the_cli_and_not_asked_again() {
    let w = world!("always_in_this_project_is_kept_by_the_cli_and_not_asked_again");
    let touch = || {
        Reply::tool_use(
            "Bash",
            json!({"command":"touch kept-rule-file","description":"make a file"}),
        )
    };
    w.api.push(touch());
    w.api.push(Reply::text("Made it."));
    let mut t = chat(&w, &[]);
    t.line("make the file");
    let screen = t.wait_for("Allow?");
    // the rule is shown before the person chooses: the CLI's own suggestion
    assert!(
        screen.contains(
            "p / u   Bash(touch kept-rule-file *), kept in this project / in every project"
        ),
        "{screen}"
    );
    t.line("p");
    t.wait_for("allowed from now on in this project");
    t.wait_for("Made it.");
    t.wait_for("API calls ·");
    bye(t);
    // written by the CLI itself, not by claudio
    let local = std::fs::read_to_string(w.work.path().join(".claude/settings.local.json"))
        .expect("the CLI wrote the project's local settings");
    assert!(local.contains("Bash(touch kept-rule-file *)"), "{local}");
    std::fs::remove_file(w.work.path().join("kept-rule-file")).unwrap();

    // a second chat in the same folder runs the call without asking
    w.api.push(touch());
    w.api.push(Reply::text("Made it again."));
    let mut t = chat(&w, &[]);
    t.line("make the file again");
    let screen = t.wait_for("Made it again.");
    assert!(!screen.contains("Allow?"), "asked again: {screen}");
    t.wait_for("API calls ·");
    // and /permissions lists it, as the CLI has it
    t.line("/permissions");
    let screen = t.wait_for("Any Bash command starting with");
    assert!(screen.contains("this project, yours"), "{screen}");
    assert!(
        screen.contains("allow Bash(touch kept-rule-file *)"),
        "{screen}"
    );
    bye(t);
    assert!(w.work.path().join("kept-rule-file").exists());
}

#[test]
fn the_status_line_shows_context_and_the_settings_command_runs() {
    let w = world!("the_status_line_shows_context_and_the_settings_command_runs");
    // a status line as people write them for the claude TUI: JSON on stdin
    let claude = w.home.path().join(".claude");
    std::fs::create_dir_all(&claude).unwrap();
    let cmd = r#"read -r j; m=$(printf %s "$j" | grep -o '"permission_mode":"[a-zA-Z]*"'); printf '\033[36mSL %s\033[0m\n' "$m""#;
    std::fs::write(
        claude.join("settings.json"),
        serde_json::to_string(&json!({"statusLine": {"type": "command", "command": cmd}})).unwrap(),
    )
    .unwrap();
    w.api.push(Reply::text("Hello."));
    let mut t = chat(&w, &[]);
    t.line("hello");
    let screen = t.wait_for(r#"SL "permission_mode":"default""#);
    // the built-in part: how full the context is, and the mode
    assert!(screen.contains("% context"), "{screen}");
    assert!(screen.contains(" · default ──"), "{screen}");
    bye(t);
}

#[test]
fn the_model_s_task_list_is_a_checklist_and_todos_prints_it() {
    let w = world!("the_model_s_task_list_is_a_checklist_and_todos_prints_it");
    // the chat turns the CLI's task tools on; the model keeps a list
    let create = Reply::tool_use(
        "TaskCreate",
        json!({"subject":"Write the parser tests","description":"cover the edge cases","activeForm":"Writing the parser tests"}),
    );
    let id = create.tool_use_id();
    w.api.push(create);
    w.api.push(Reply::tool_use(
        "TaskUpdate",
        json!({"taskId":"1","status":"completed"}),
    ));
    w.api.push(Reply::text("All done."));
    let mut t = chat(&w, &[]);
    t.line("plan and do it");
    let screen = t.wait_for("All done.");
    assert!(!screen.contains("Allow?"), "{screen}");
    assert!(!screen.contains("No such tool"), "{screen}");
    let screen = t.wait_for("API calls ·");
    assert!(screen.contains("tasks 1/1"), "{screen}");
    assert!(screen.contains("☑ Write the parser tests"), "{screen}");
    t.line("/todos");
    t.wait_for_n("☑ Write the parser tests", 2);
    bye(t);
    // the tool worked for the model (2.1.328 offers it deferred, behind
    // ToolSearch, once the chat turns the task tools on)
    let tr = w.main_requests()[1].tool_result_for(&id).expect("a result");
    assert!(!tr.is_error, "{tr:?}");
    assert!(tr.content.contains("created"), "{tr:?}");
}

/// One real session in this folder for each prompt and answer, in order.
fn sessions_of(w: &World, exchanges: &[(&str, &str)]) {
    for (prompt, answer) in exchanges {
        w.api.push(Reply::text(answer));
        let out = w
            .claudio()
            .args(["ask", prompt])
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
    }
}

#[test]
fn the_resume_picker_resumes_the_chosen_session_and_it_goes_on() {
    let w = world!("the_resume_picker_resumes_the_chosen_session_and_it_goes_on");
    // two real sessions in this folder
    sessions_of(
        &w,
        &[("remember the word teapot", "Noted."), ("what is 2+2", "4")],
    );
    w.api.push(Reply::text("The word was teapot."));
    let mut c = w.claudio();
    c.env("XDG_DATA_HOME", w.home.path()).arg("-r");
    let mut t = Term::spawn(c);
    let screen = t.wait_for("Resume a session");
    assert!(screen.contains("of 2"), "{screen}");
    // filtered as you type, the last exchange under the list
    t.send(b"teapot");
    let screen = t.wait_for("│ Noted.");
    assert!(screen.contains("1 of 2"), "{screen}");
    t.send(b"\r");
    t.wait_for("Ctrl-D exits");
    t.line("which word?");
    t.wait_for("The word was teapot.");
    bye(t);
    // the conversation went on: the model got the earlier turn
    let reqs = w.main_requests();
    let last = reqs.last().unwrap();
    let body = serde_json::to_string(&last.body).unwrap();
    assert!(body.contains("remember the word teapot"), "{body}");
    assert!(!body.contains("what is 2+2"), "the other session: {body}");
}

#[test]
fn continue_resumes_the_latest_session_here_and_shows_it() {
    let w = world!("continue_resumes_the_latest_session_here_and_shows_it");
    sessions_of(
        &w,
        &[("what is 2+2", "4"), ("remember the word kettle", "Noted.")],
    );
    w.api.push(Reply::text("The word was kettle."));
    let mut t = chat(&w, &["-c"]);
    // where the conversation stands, before the first prompt
    let screen = t.wait_for("resumed here");
    assert!(screen.contains("remember the word kettle"), "{screen}");
    assert!(!screen.contains("what is 2+2"), "{screen}");
    t.line("which word?");
    t.wait_for("The word was kettle.");
    bye(t);
    let reqs = w.main_requests();
    let body = serde_json::to_string(&reqs.last().unwrap().body).unwrap();
    assert!(body.contains("remember the word kettle"), "{body}");
    assert!(!body.contains("what is 2+2"), "the older session: {body}");
}

/// `-c` in a repository continues the repository's own latest session, as
/// the CLI's `--continue` does (checked here with the real CLI), not a
/// newer one of its worktree (claudio took that one).
#[test]
fn continue_in_a_repository_passes_over_its_worktree_as_the_cli_does() {
    let w = world!("continue_in_a_repository_passes_over_its_worktree_as_the_cli_does");
    let repo = std::fs::canonicalize(w.work.path()).unwrap();
    let wt = std::fs::canonicalize(w.home.path()).unwrap().join("wt");
    common::git_repo_with_worktree(&repo, &wt);
    sessions_of(&w, &[("remember the word kettle", "Noted.")]);
    // a newer session in the worktree
    let in_the_worktree = || {
        w.api.push(Reply::text("Noted."));
        let out = w
            .claudio()
            .current_dir(&wt)
            .args(["ask", "remember the word teapot"])
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
    };
    in_the_worktree();
    let last_body = || {
        let reqs = w.main_requests();
        serde_json::to_string(&reqs.last().unwrap().body).unwrap()
    };
    // claudio's
    w.api.push(Reply::text("The word was kettle."));
    let mut t = chat(&w, &["-c"]);
    let screen = t.wait_for("resumed here");
    assert!(!screen.contains("teapot"), "{screen}");
    t.line("which word now?");
    t.wait_for("The word was kettle.");
    bye(t);
    let body = last_body();
    assert!(body.contains("which word now?"), "{body}");
    assert!(
        !body.contains("teapot"),
        "claudio took the worktree's: {body}"
    );
    // the CLI's own choice in the repository, the worktree's newest again
    in_the_worktree();
    w.api.push(Reply::text("kettle"));
    let out = std::process::Command::new(&w.cli)
        .envs(w.env())
        .current_dir(&repo)
        .args(["-p", "--continue", "which word?"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let body = last_body();
    assert!(body.contains("remember the word kettle"), "{body}");
    assert!(
        !body.contains("teapot"),
        "the CLI took the worktree's: {body}"
    );
}
