//! The chat's status line, and the person's own `statusLine` command run
//! for it (claudio acting as such a command is `commands/statusline.rs`):
//! where the session stands, after every turn. Built in:
//! how full the context is, the git branch and the permission mode, in the
//! end-of-turn line (beside the turn's cost; the prompt names the model chosen). When the person's
//! Claude Code settings define `statusLine` (a command), it runs as the
//! claude TUI runs it: the documented JSON on its stdin, its first lines
//! shown (colors kept, every other control sequence removed), with a
//! deadline over the whole exchange, and its process group killed at the
//! end; `disableAllHooks` turns it off, as in the claude TUI.

use crate::cli::common::settings;
use crate::cli::sanitize::Sanitizer;
use claudio::protocol::Usage;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// How long a `statusLine` command may take before it is skipped.
pub const DEADLINE: Duration = Duration::from_secs(1);
/// The most output read from it, and the most lines shown.
const MAX_OUTPUT: usize = 8 * 1024;
const MAX_LINES: usize = 3;

/// How full the context is, in percent, from the last main-agent API
/// call's usage and the model's window.
pub fn context_percent(usage: &Usage, window: u64) -> Option<u8> {
    if window == 0 {
        return None;
    }
    let (input, output) = tokens(usage);
    Some((input.saturating_add(output).saturating_mul(100) / window).min(100) as u8)
}

/// An API call's input tokens (cached or not) and output tokens.
fn tokens(usage: &Usage) -> (u64, u64) {
    // numbers from the CLI: summed without overflow
    let input = usage
        .input_tokens
        .saturating_add(usage.cache_creation_input_tokens)
        .saturating_add(usage.cache_read_input_tokens);
    (input, usage.output_tokens)
}

/// What a `statusLine` command is told of the session.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Facts {
    pub model: Option<String>,
    pub mode: String,
    pub context_window: Option<u64>,
    pub last_usage: Option<Usage>,
    pub cost_usd: f64,
    pub duration_ms: u64,
    pub api_duration_ms: u64,
    pub session_id: Option<String>,
    pub cwd: PathBuf,
}

/// The JSON a `statusLine` command gets on its stdin, in the claude TUI's
/// documented shape.
pub fn input(f: &Facts, transcript: Option<&Path>) -> Value {
    let cwd = f.cwd.display().to_string();
    let (input, output) = f.last_usage.as_ref().map(tokens).unwrap_or_default();
    let percent = f
        .last_usage
        .as_ref()
        .zip(f.context_window)
        .and_then(|(u, w)| context_percent(u, w));
    // the usage as the CLI sent it, its fields claudio does not model kept
    let usage = f
        .last_usage
        .as_ref()
        .and_then(|u| serde_json::to_value(u).ok())
        .unwrap_or(Value::Null);
    json!({
        "hook_event_name": "Status",
        "session_id": f.session_id,
        "transcript_path": transcript.map(|p| p.display().to_string()),
        "cwd": cwd,
        "model": {"id": f.model, "display_name": f.model},
        "workspace": {"current_dir": cwd, "project_dir": cwd},
        "version": env!("CARGO_PKG_VERSION"),
        "output_style": {"name": "default"},
        "permission_mode": f.mode,
        "cost": {
            "total_cost_usd": f.cost_usd,
            "total_duration_ms": f.duration_ms,
            "total_api_duration_ms": f.api_duration_ms,
            "total_lines_added": 0,
            "total_lines_removed": 0,
        },
        "context_window": {
            "context_window_size": f.context_window,
            "current_usage": usage,
            "total_input_tokens": input,
            "total_output_tokens": output,
            "used_percentage": percent,
            "remaining_percentage": percent.map(|p| 100 - p),
        },
        "exceeds_200k_tokens": input > 200_000,
    })
}

/// The `statusLine` command the person's Claude Code settings define (the
/// managed settings, then the project's local, the project's, the user's).
/// None when `disableAllHooks` is true in the settings in effect: as in the
/// claude TUI, that stops the status line command too; with the managed
/// settings' `allowManagedHooksOnly`, only theirs runs. `project`: whether
/// the folder's project settings load (it is trusted, see
/// [`crate::cli::common::trust`]); when they do not, the CLI starts without them
/// and their command is not run either: one check, one message.
pub fn configured(claude_dir: &Path, project: bool, cwd: &Path) -> Option<String> {
    configured_in(
        settings::files(claude_dir, Some(cwd)),
        claude_dir,
        project,
        cwd,
    )
}

/// [`configured`] given the settings files, the managed one last. When it
/// says `allowManagedHooksOnly`, only its own command runs, as in the CLI.
fn configured_in(
    mut files: Vec<PathBuf>,
    claude_dir: &Path,
    project: bool,
    cwd: &Path,
) -> Option<String> {
    let managed_only = |m: &PathBuf| {
        settings::read(m).and_then(|v| v.get("allowManagedHooksOnly").cloned())
            == Some(Value::Bool(true))
    };
    if files.last().is_some_and(managed_only) {
        files.drain(..files.len() - 1);
    }
    let of_the_project =
        |f: &Path| f.starts_with(cwd.join(".claude")) && !own_folder(claude_dir, cwd);
    if !project {
        files.retain(|f| !of_the_project(f));
    }
    if let Some((Value::Bool(true), _)) = settings::lookup(&files, "disableAllHooks") {
        return None;
    }
    let (s, _) = settings::lookup(&files, "statusLine")?;
    if s.get("type").and_then(Value::as_str).unwrap_or("command") != "command" {
        return None;
    }
    let c = s.get("command")?.as_str()?.trim();
    (!c.is_empty()).then(|| c.to_owned())
}

/// Whether the folder's `.claude` is the person's own config folder (the
/// chat runs in their home): its settings are theirs, not a project's. A
/// relative config folder is no one's own.
fn own_folder(claude_dir: &Path, cwd: &Path) -> bool {
    let real = |d: &Path| std::fs::canonicalize(d).ok();
    claude_dir.is_absolute()
        && real(claude_dir).is_some_and(|c| real(&cwd.join(".claude")) == Some(c))
}

/// Run a `statusLine` command with `input` on its stdin, in `cwd`; its
/// first lines, made safe (SGR colors kept when `color`). [`DEADLINE`]
/// covers the whole exchange: the start, writing its input, every read of
/// its output and waiting for it. What it starts goes with it: its process
/// group is ended when the exchange ends, however it ends (a `cmd &` left
/// behind, one that outlives the deadline, one that writes too much). The
/// output read is at most [`MAX_OUTPUT`] bytes: more is cut off there, and
/// the lines read are shown. A command that fails or outlives the
/// deadline gives an error saying so; one that prints nothing, no lines.
pub fn run(command: &str, input: &Value, cwd: &Path, color: bool) -> Result<Vec<String>, Failed> {
    run_within(DEADLINE, command, input, cwd, color)
}

/// [`run`] bounded by `deadline` (the tests' commands that must end in
/// time get a generous one: a loaded machine may start a shell late).
fn run_within(
    deadline: Duration,
    command: &str,
    input: &Value,
    cwd: &Path,
    color: bool,
) -> Result<Vec<String>, Failed> {
    use claudio::child::{self, Ended};
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c").arg(command).current_dir(cwd);
    let how = child::Run::new(deadline)
        .input(input.to_string().into_bytes())
        .max_output(MAX_OUTPUT);
    let done = child::run(cmd, how).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            Failed::NotStarted(e)
        } else {
            Failed::Io(e)
        }
    })?;
    match done.ended {
        Ended::Late => return Err(Failed::Late),
        Ended::Exited(st) if !st.success() => return Err(Failed::Exit(st)),
        // it was stopped here (too much output): how it ended says nothing
        _ => {}
    }
    let text = String::from_utf8_lossy(&done.output);
    Ok(text
        .lines()
        .filter(|l| !Sanitizer::clean(l).trim().is_empty())
        .map(|l| inert(l, color))
        .take(MAX_LINES)
        .collect())
}

/// Why the status line command showed nothing: each one line to tell the
/// person.
#[derive(Debug, thiserror::Error)]
pub enum Failed {
    /// `/bin/sh` (or the folder) is not there.
    #[error("the status line command did not start: {0}")]
    NotStarted(#[source] std::io::Error),
    /// Starting it, writing its input or reading its output failed.
    #[error("the status line command failed: {0}")]
    Io(#[source] std::io::Error),
    /// It outlived [`DEADLINE`]: its process group was ended.
    #[error("the status line command took longer than {} s; skipped", DEADLINE.as_secs())]
    Late,
    /// It ended with a failure.
    #[error("the status line command ended with {0}")]
    Exit(std::process::ExitStatus),
}

/// `line` with every control sequence removed but colors (SGR: `ESC [ … m`),
/// which are kept when `color`, else removed too; with colors, it ends with
/// a reset.
pub fn inert(line: &str, color: bool) -> String {
    if !color {
        return Sanitizer::clean(line);
    }
    let mut out = Sanitizer::clean_keeping_colors(line);
    if out.contains('\x1b') {
        out.push_str("\x1b[0m");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(v: Value) -> Usage {
        serde_json::from_value(v).unwrap()
    }
    use std::time::Instant;

    /// [`run`] of a command that must end in time, under a generous
    /// deadline: [`DEADLINE`] is a person's status line's, and a loaded
    /// machine may start a shell later than that.
    fn run_in_time(
        command: &str,
        input: &Value,
        cwd: &Path,
        color: bool,
    ) -> Result<Vec<String>, Failed> {
        run_within(Duration::from_secs(120), command, input, cwd, color)
    }

    #[test]
    fn context_is_the_last_call_s_tokens_over_the_window() {
        let u = usage(
            json!({"input_tokens": 10, "cache_read_input_tokens": 19_990, "output_tokens": 4000}),
        );
        assert_eq!(context_percent(&u, 200_000), Some(12));
        assert_eq!(context_percent(&u, 0), None);
        assert_eq!(
            context_percent(&usage(json!({"input_tokens": 999_999})), 1000),
            Some(100)
        );
        // numbers past any real count do not overflow
        assert_eq!(
            context_percent(
                &usage(json!({"input_tokens": u64::MAX, "cache_read_input_tokens": 1})),
                1000
            ),
            Some(100)
        );
    }

    #[test]
    fn the_command_s_input_has_the_documented_shape() {
        let f = Facts {
            model: Some("opus\u{1b}]0;x\u{7}".into()),
            mode: "plan".into(),
            // 24,000 of 200,000 tokens
            last_usage: Some(usage(
                json!({"input_tokens": 20_000, "output_tokens": 4000, "server_tool_use": {"web_search_requests": 1}}),
            )),
            context_window: Some(200_000),
            ..Facts::default()
        };
        let v = input(&f, None);
        assert_eq!(v["hook_event_name"], "Status");
        assert_eq!(v["context_window"]["used_percentage"], 12);
        // the usage as the CLI sent it: what claudio does not model is kept
        let cu = &v["context_window"]["current_usage"];
        assert_eq!(cu["input_tokens"], 20_000);
        assert_eq!(cu["server_tool_use"]["web_search_requests"], 1);
        assert_eq!(v["context_window"]["remaining_percentage"], 88);
    }

    #[test]
    fn the_settings_decide_the_command_local_first() {
        let t = tempfile::tempdir().unwrap();
        // the folders as getcwd names them (the temporary folder may be linked)
        let d = std::fs::canonicalize(t.path()).unwrap();
        let d = &d;
        let (home, cwd) = (d.join("home"), d.join("work"));
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(cwd.join(".claude")).unwrap();
        let runs = |c: &str| Some(c.to_owned());
        assert_eq!(configured(&home, true, &cwd), None);
        std::fs::write(
            home.join("settings.json"),
            r#"{"statusLine":{"type":"command","command":"user.sh"}}"#,
        )
        .unwrap();
        assert_eq!(configured(&home, true, &cwd), runs("user.sh"));
        std::fs::write(
            cwd.join(".claude/settings.local.json"),
            r#"{"statusLine":{"type":"command","command":"local.sh"}}"#,
        )
        .unwrap();
        assert_eq!(configured(&home, true, &cwd), runs("local.sh"));
        // without the project's settings (not trusted), the person's own
        assert_eq!(configured(&home, false, &cwd), runs("user.sh"));
    }

    /// In the home folder the person's own settings are also the folder's
    /// `.claude/` ones (`~/.claude/settings.json`): they are the person's,
    /// and their command runs there as anywhere, trusted or not.
    #[test]
    fn in_the_home_folder_the_person_s_own_command_runs() {
        let t = tempfile::tempdir().unwrap();
        let d = std::fs::canonicalize(t.path()).unwrap();
        let (home, work) = (d.join("home"), d.join("work"));
        let claude = home.join(".claude");
        std::fs::create_dir_all(&claude).unwrap();
        std::fs::create_dir_all(&work).unwrap();
        std::fs::write(
            claude.join("settings.json"),
            r#"{"statusLine":{"type":"command","command":"mine.sh"}}"#,
        )
        .unwrap();
        let runs = Some("mine.sh".to_owned());
        assert_eq!(configured(&claude, false, &home), runs);
        // named through a link, it is still the person's own folder
        std::os::unix::fs::symlink(&home, d.join("me")).unwrap();
        assert_eq!(configured(&d.join("me/.claude"), false, &home), runs);
        // a folder whose own settings say otherwise waits for trust
        std::fs::create_dir_all(work.join(".claude")).unwrap();
        std::fs::write(
            work.join(".claude/settings.json"),
            r#"{"statusLine":{"type":"command","command":"theirs.sh"}}"#,
        )
        .unwrap();
        assert_eq!(configured(&claude, false, &work), runs, "not trusted");
        assert_eq!(configured(&claude, true, &work), Some("theirs.sh".into()));
        // a relative config folder is no one's own
        assert_eq!(configured(Path::new(".claude"), false, &home), None);
    }

    /// A folder is trusted when it or one above it was accepted in the
    /// claude TUI, and only then; a state file that is no JSON, a FIFO or
    /// says false trusts nothing.
    #[test]
    fn trust_is_what_the_claude_tui_recorded() {
        let t = tempfile::tempdir().unwrap();
        // the folders as getcwd names them (the temporary folder may be linked)
        let d = std::fs::canonicalize(t.path()).unwrap();
        let d = &d;
        let cwd = d.join("a/b");
        std::fs::create_dir_all(&cwd).unwrap();
        let state = d.join(".claude.json");
        let write = |v: serde_json::Value| std::fs::write(&state, v.to_string()).unwrap();
        assert!(!settings::trusted(Some(&state), &cwd), "no file");
        let key = |p: &Path| p.to_str().unwrap().to_owned();
        write(json!({"projects": {key(&cwd): {"hasTrustDialogAccepted": false}}}));
        assert!(!settings::trusted(Some(&state), &cwd));
        write(json!({"projects": {key(&cwd.join("c")): {"hasTrustDialogAccepted": true}}}));
        assert!(!settings::trusted(Some(&state), &cwd), "a folder below");
        write(json!({"projects": {key(&d.join("a")): {"hasTrustDialogAccepted": true}}}));
        assert!(settings::trusted(Some(&state), &cwd), "a folder above");
        write(json!({"projects": {key(&cwd): {"hasTrustDialogAccepted": "yes"}}}));
        assert!(!settings::trusted(Some(&state), &cwd));
        std::fs::write(&state, "{not json").unwrap();
        assert!(!settings::trusted(Some(&state), &cwd));
        std::fs::remove_file(&state).unwrap();
        let made = std::process::Command::new("mkfifo").arg(&state).status();
        assert!(made.unwrap().success());
        assert!(!settings::trusted(Some(&state), &cwd), "a FIFO");
    }

    #[test]
    fn a_command_gets_the_json_and_its_colors_survive_but_nothing_else() {
        let d = tempfile::tempdir().unwrap();
        let cmd = r#"read -r j; case "$j" in *'"hook_event_name":"Status"'*) printf '\033[32mok\033[0m \033]52;c;QQ==\007x\033[2J\nsecond\n\n\nthird\nfourth\n';; *) echo bad;; esac"#;
        let lines = run_in_time(cmd, &json!({"hook_event_name":"Status"}), d.path(), true).unwrap();
        assert_eq!(
            lines,
            ["\u{1b}[32mok\u{1b}[0m x\u{1b}[0m", "second", "third"],
            "{lines:?}"
        );
        let plain =
            run_in_time(cmd, &json!({"hook_event_name":"Status"}), d.path(), false).unwrap();
        assert_eq!(plain[0], "ok x");
    }

    #[test]
    fn a_slow_or_failing_command_is_skipped_with_a_reason() {
        let d = tempfile::tempdir().unwrap();
        let slow = run("sleep 30 & sleep 30", &json!({}), d.path(), false).unwrap_err();
        assert!(matches!(slow, Failed::Late), "{slow:?}");
        assert!(slow.to_string().contains("longer than 1 s"), "{slow}");
        let bad = run_in_time("exit 3", &json!({}), d.path(), false).unwrap_err();
        // the exit code survives, for the caller to read
        assert!(
            matches!(&bad, Failed::Exit(st) if st.code() == Some(3)),
            "{bad:?}"
        );
        assert!(bad.to_string().contains("ended with"), "{bad}");
        // a folder that is not there: it did not start
        let gone = run_in_time("true", &json!({}), &d.path().join("nope"), false).unwrap_err();
        assert!(
            matches!(&gone, Failed::NotStarted(e) if e.kind() == std::io::ErrorKind::NotFound),
            "{gone:?}"
        );
    }

    /// Whether `pid` is running (a zombie is not).
    fn running(pid: &str) -> bool {
        std::fs::read_to_string(format!("/proc/{}/stat", pid.trim()))
            .map(|s| {
                let state = s.rsplit(')').next().unwrap_or("").trim_start();
                !state.starts_with('Z') && !state.starts_with('X')
            })
            .unwrap_or(false)
    }

    #[test]
    fn disable_all_hooks_stops_the_status_line_command() {
        let t = tempfile::tempdir().unwrap();
        let d = std::fs::canonicalize(t.path()).unwrap();
        let (home, cwd) = (d.join("home"), d.join("work"));
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(cwd.join(".claude")).unwrap();
        std::fs::write(
            home.join("settings.json"),
            r#"{"disableAllHooks":true,"statusLine":{"type":"command","command":"user.sh"}}"#,
        )
        .unwrap();
        let runs = |c: &str| Some(c.to_owned());
        assert_eq!(configured(&home, true, &cwd), None);
        // the settings in effect decide: a local `false` turns it back on,
        // where the project's settings load only (a repository just cloned
        // turned the person's own `true` off)
        std::fs::write(
            cwd.join(".claude/settings.local.json"),
            r#"{"disableAllHooks":false}"#,
        )
        .unwrap();
        assert_eq!(configured(&home, false, &cwd), None);
        assert_eq!(configured(&home, true, &cwd), runs("user.sh"));
        // and a project that disables them stops the user's command
        std::fs::write(
            cwd.join(".claude/settings.local.json"),
            r#"{"disableAllHooks":true}"#,
        )
        .unwrap();
        assert_eq!(configured(&home, true, &cwd), None);
    }

    /// The managed settings' `allowManagedHooksOnly` leaves only their own
    /// command, as in the CLI: the person's and the project's ran anyway.
    #[test]
    fn managed_hooks_only_leaves_only_the_managed_command() {
        let t = tempfile::tempdir().unwrap();
        let d = std::fs::canonicalize(t.path()).unwrap();
        let (home, cwd) = (d.join("home"), d.join("work"));
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(cwd.join(".claude")).unwrap();
        let user = r#"{"statusLine":{"type":"command","command":"user.sh"}}"#;
        std::fs::write(home.join("settings.json"), user).unwrap();
        let managed = d.join("managed-settings.json");
        let mut files = settings::files(&home, Some(&cwd));
        *files.last_mut().unwrap() = managed.clone();
        let got = || configured_in(files.clone(), &home, true, &cwd);
        assert_eq!(got(), Some("user.sh".into()));
        std::fs::write(&managed, r#"{"allowManagedHooksOnly":true}"#).unwrap();
        assert_eq!(got(), None);
        let both = r#"{"allowManagedHooksOnly":true,"statusLine":{"command":"managed.sh"}}"#;
        std::fs::write(&managed, both).unwrap();
        assert_eq!(got(), Some("managed.sh".into()));
        std::fs::write(&managed, r#"{"allowManagedHooksOnly":false}"#).unwrap();
        assert_eq!(got(), Some("user.sh".into()));
    }

    #[test]
    fn a_child_left_behind_holding_the_output_neither_freezes_nor_survives() {
        let d = tempfile::tempdir().unwrap();
        // the old code waited for the sleep: late (an error), not the line
        let lines = run_in_time(
            "sleep 300 & echo $! > bg.pid; echo ok",
            &json!({}),
            d.path(),
            false,
        );
        assert_eq!(lines.ok(), Some(vec!["ok".to_owned()]));
        let pid = std::fs::read_to_string(d.path().join("bg.pid")).unwrap();
        // (a guard against one that survives, not a time it may take)
        let gone = Instant::now() + Duration::from_secs(60);
        while running(&pid) && Instant::now() < gone {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(!running(&pid), "the sleep survived");
    }

    #[test]
    fn a_command_that_never_ends_its_output_is_cut_off_by_the_deadline() {
        let d = tempfile::tempdir().unwrap();
        let pidfile = d.path().join("bg.pid");
        // the deadline's, then longer ones until the shell got as far as
        // the pid written (a loaded machine may start it late)
        let mut deadline = DEADLINE;
        let pid = loop {
            let start = Instant::now();
            // output held open, nothing written, stdin never read
            let slow = run_within(
                deadline,
                "sleep 300 & echo $! > bg.pid; exec sleep 300",
                &json!({}),
                d.path(),
                false,
            )
            .unwrap_err();
            // (a guard against waiting for the sleep, not a time it may take)
            assert!(
                start.elapsed() < deadline + Duration::from_secs(120),
                "{:?}",
                start.elapsed()
            );
            assert!(matches!(slow, Failed::Late), "{slow:?}");
            match std::fs::read_to_string(&pidfile) {
                Ok(pid) if pid.ends_with('\n') => break pid,
                _ => assert!(deadline < Duration::from_secs(60), "the pid never came"),
            }
            deadline *= 4;
        };
        let gone = Instant::now() + Duration::from_secs(60);
        while running(&pid) && Instant::now() < gone {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(!running(&pid), "the group was not killed");
    }

    #[test]
    fn output_past_the_bound_shows_its_first_lines() {
        let d = tempfile::tempdir().unwrap();
        // 100 KB that ends, and output that never ends (cut off at the
        // bound, else late: an error)
        for cmd in ["seq 1 20000", "yes 'a line'"] {
            let lines = run_in_time(cmd, &json!({}), d.path(), false);
            let want: Vec<String> = match cmd {
                "seq 1 20000" => vec!["1".into(), "2".into(), "3".into()],
                _ => vec!["a line".into(); 3],
            };
            assert_eq!(lines.ok(), Some(want), "{cmd}");
        }
    }

    #[test]
    fn colors_after_another_sequence_on_the_line_are_kept() {
        let d = tempfile::tempdir().unwrap();
        let cmd = r#"printf '\033[31mred\033[2J \033]0;title\007\033[32mgreen\033[0m \033[5Ahere\n\033[0m\n'"#;
        let lines = run_in_time(cmd, &json!({}), d.path(), true).unwrap();
        assert_eq!(
            lines,
            ["\u{1b}[31mred \u{1b}[32mgreen\u{1b}[0m here\u{1b}[0m"],
            "a line of colors alone is not shown"
        );
        assert_eq!(
            inert("a\u{1b}[1Hb\u{1b}[1;31mc\u{1b}]52;c;QQ==\u{7}", true),
            "ab\u{1b}[1;31mc\u{1b}[0m"
        );
        assert_eq!(inert("a\u{1b}[1Hb\u{1b}[1;31mc", false), "abc");
    }
}
