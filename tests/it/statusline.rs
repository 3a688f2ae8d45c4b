//! `claudio statusline`: Claude Code's status JSON on stdin, one line out,
//! over a small store with a session today and one yesterday.

use crate::common::term::Term;
use crate::common::{run, stderr, stdout, wait_with_deadline};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

const TODAY: &str = "aaaaaaaa-1111-4111-8111-111111111111";
const YESTERDAY: &str = "bbbbbbbb-2222-4222-8222-222222222222";
const HOUR: i64 = 3_600_000;

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

fn iso(ms: i64) -> String {
    claudio::store::format_iso_millis(ms)
}

fn assistant(id: &str, input: u64, output: u64, at: i64) -> String {
    json!({"type":"assistant","sessionId":"s","requestId":format!("r-{id}"),"timestamp":iso(at),
        "uuid":id,"cwd":"/work","message":{"id":id,"model":"claude-3-7-sonnet","role":"assistant",
        "content":[{"type":"text","text":"x"}],
        "usage":{"input_tokens":input,"output_tokens":output,
            "cache_creation_input_tokens":0,"cache_read_input_tokens":0}}})
    .to_string()
}

fn write(dir: &Path, id: &str, lines: &[String], mtime: i64) -> PathBuf {
    let p = dir.join(format!("projects/-work/{id}.jsonl"));
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    let f = std::fs::File::options().write(true).open(&p).unwrap();
    f.set_modified(UNIX_EPOCH + Duration::from_millis(mtime as u64))
        .unwrap();
    p
}

/// The UTC day now, as days since the epoch.
fn utc_day() -> i64 {
    now_ms().div_euclid(24 * HOUR)
}

/// Run `test` (which makes its own [`world`]) again when the UTC day
/// changed while it ran: "today" moved under it, so that run says nothing.
/// A run within one day stands, passed or failed.
fn on_one_day(test: impl Fn()) {
    loop {
        let day = utc_day();
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(&test));
        if utc_day() == day {
            if let Err(e) = run {
                std::panic::resume_unwind(e);
            }
            return;
        }
    }
}

/// The store, the repository the session works in, and the times used.
struct World {
    dir: tempfile::TempDir,
    transcript: PathBuf,
    repo: PathBuf,
    /// When today's message was sent.
    sent: i64,
}

/// Today (UTC: the tests run with TZ=UTC): one message, $3 (a million
/// input tokens of Sonnet), and in the same file one of yesterday,
/// resumed ($15, not today's). Yesterday: a session last written then
/// ($15). Both of yesterday's are more than 10 hours before now, so no
/// 5-hour window holds them.
fn world() -> World {
    let dir = tempfile::tempdir().unwrap();
    let now = now_ms();
    let midnight = now.div_euclid(24 * HOUR) * 24 * HOUR;
    let sent = (now - 60_000).max(midnight);
    let old = midnight - 11 * HOUR;
    let transcript = write(
        dir.path(),
        TODAY,
        &[
            assistant("old", 0, 1_000_000, old),
            assistant("m1", 1_000_000, 0, sent),
        ],
        sent,
    );
    write(
        dir.path(),
        YESTERDAY,
        &[assistant("y1", 0, 1_000_000, old)],
        old,
    );
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::write(repo.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    World {
        dir,
        transcript,
        repo,
        sent,
    }
}

impl World {
    /// What Claude Code gives the command, in the shape of its docs.
    fn input(&self) -> Value {
        let cwd = self.repo.display().to_string();
        json!({
            "hook_event_name": "Status",
            "session_id": TODAY,
            "transcript_path": self.transcript.display().to_string(),
            "cwd": cwd,
            "model": {"id": "claude-sonnet-4-5-20250929", "display_name": "Sonnet 4.5"},
            "workspace": {"current_dir": cwd, "project_dir": cwd},
            "version": "2.1.332",
            "output_style": {"name": "default"},
            "cost": {"total_cost_usd": 3.5, "total_duration_ms": 1000, "total_api_duration_ms": 900,
                "total_lines_added": 0, "total_lines_removed": 0},
            "context_window": {"total_input_tokens": 24000, "total_output_tokens": 100,
                "context_window_size": 200000, "used_percentage": 12, "remaining_percentage": 88,
                "current_usage": {"input_tokens": 4000, "output_tokens": 100,
                    "cache_creation_input_tokens": 0, "cache_read_input_tokens": 20000}},
            "exceeds_200k_tokens": false
        })
    }

    fn claudio(&self, args: &[&str]) -> Command {
        let mut c = crate::common::over_store(env!("CARGO_BIN_EXE_claudio"), self.dir.path());
        c.arg("statusline").args(args);
        c
    }

    /// `claudio-statusline`, the status line as a program of its own.
    fn program(&self, args: &[&str]) -> Command {
        let program = env!("CARGO_BIN_EXE_claudio-statusline");
        let mut c = crate::common::over_store(program, self.dir.path());
        c.args(args);
        c
    }
}

const NO_BLOCK: &str =
    "{model} · {context} ctx · {session_cost} session · {today_cost} today · {branch}";

#[test]
fn statusline_prints_the_line_for_claude_codes_json() {
    on_one_day(|| {
        let w = world();
        let o = run(
            w.claudio(&["--format", NO_BLOCK]),
            Some(w.input().to_string().as_bytes()),
        );
        assert!(o.status.success(), "{}", stderr(&o));
        // today: $3, yesterday's $15 (its own session, and the message resumed
        // into today's) not
        assert_eq!(
            stdout(&o),
            "Sonnet 4.5 · 12% ctx · $3.50 session · $3.00 today · main\n"
        );
        assert_eq!(stderr(&o), "");
    });
}

#[test]
fn statusline_default_line_has_the_open_five_hour_window() {
    on_one_day(|| {
        let w = world();
        // the window of the one message today: from its hour, 5 hours; with one
        // request there is no rate yet
        let end = w.sent.div_euclid(HOUR) * HOUR + 5 * HOUR;
        let left = |now: i64| {
            let m = (end - now).max(0) / 60_000;
            if m >= 60 {
                format!("{}h{:02}m", m / 60, m % 60)
            } else {
                format!("{m}m")
            }
        };
        let before = left(now_ms());
        let o = run(w.claudio(&[]), Some(w.input().to_string().as_bytes()));
        let after = left(now_ms());
        let line = |l: &str| {
            format!("Sonnet 4.5 · 12% ctx · $3.50 session · $3.00 today · 5h: {l} left · main\n")
        };
        let out = stdout(&o);
        assert!(out == line(&before) || out == line(&after), "{out}");
    });
}

#[test]
fn statusline_colors_follow_no_color_and_the_color_flag() {
    on_one_day(|| {
        let w = world();
        let input = w.input().to_string();
        let fmt = ["--format", "{model}"];
        let mut c = w.claudio(&fmt);
        c.env_remove("NO_COLOR");
        // a pipe, as under Claude Code: colors
        assert_eq!(
            stdout(&run(c, Some(input.as_bytes()))),
            "\x1b[36mSonnet 4.5\x1b[0m\n"
        );
        // NO_COLOR
        assert_eq!(
            stdout(&run(w.claudio(&fmt), Some(input.as_bytes()))),
            "Sonnet 4.5\n"
        );
        // --color always beats NO_COLOR; --color never beats a terminal's wish
        let mut c = w.claudio(&fmt);
        c.arg("--color").arg("always");
        assert_eq!(
            stdout(&run(c, Some(input.as_bytes()))),
            "\x1b[36mSonnet 4.5\x1b[0m\n"
        );
        let mut c = w.claudio(&fmt);
        c.env_remove("NO_COLOR").args(["--color", "never"]);
        assert_eq!(stdout(&run(c, Some(input.as_bytes()))), "Sonnet 4.5\n");
    });
}

#[test]
fn statusline_bad_json_prints_a_short_line_and_why() {
    on_one_day(|| {
        let w = world();
        for (given, why) in [
            (&b"{\"model\": "[..], "stdin is not JSON"),
            (b"[1, 2]", "not a JSON object"),
            (b"", "no input on stdin"),
            (b"\n", "no input on stdin"),
        ] {
            let o = run(w.claudio(&[]), Some(given));
            assert!(o.status.success());
            assert_eq!(stdout(&o), "claudio: no status\n");
            assert!(stderr(&o).contains(why), "{}", stderr(&o));
        }
        // stdin closed from the start (/dev/null)
        let o = run(w.claudio(&[]), None);
        assert_eq!(stdout(&o), "claudio: no status\n");
        // a bad template is a usage error, said before stdin is read
        let o = run(w.claudio(&["--format", "{cost}"]), None);
        assert_eq!(o.status.code(), Some(2));
        assert!(stderr(&o).contains("no placeholder {cost}"));
    });
}

#[test]
fn statusline_does_not_wait_for_a_terminal_or_a_silent_pipe() {
    on_one_day(|| {
        let w = world();
        // stdin a terminal: not read at all
        let pty = Term::open();
        let mut c = w.claudio(&[]);
        c.stdin(Stdio::from(pty.slave()))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = c.spawn().unwrap();
        wait_with_deadline(&mut child, 20);
        let o = child.wait_with_output().unwrap();
        assert_eq!(stdout(&o), "claudio: no status\n");
        assert!(stderr(&o).contains("stdin is a terminal"));
        // a pipe that stays open and says nothing: given up at its deadline
        let mut c = w.claudio(&[]);
        c.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = c.spawn().unwrap();
        let _keep_open = child.stdin.take();
        wait_with_deadline(&mut child, 20);
        let o = child.wait_with_output().unwrap();
        assert_eq!(stdout(&o), "claudio: no status\n");
        assert!(stderr(&o).contains("no complete JSON"), "{}", stderr(&o));
        // a whole JSON and the pipe left open: the line at once
        let mut c = w.claudio(&["--format", "{model}"]);
        c.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = c.spawn().unwrap();
        let mut input = child.stdin.take().unwrap();
        std::io::Write::write_all(&mut input, w.input().to_string().as_bytes()).unwrap();
        wait_with_deadline(&mut child, 20);
        drop(input);
        assert_eq!(stdout(&child.wait_with_output().unwrap()), "Sonnet 4.5\n");
    });
}

#[test]
fn statusline_reads_the_transcript_when_the_json_leaves_out_cost_and_context() {
    on_one_day(|| {
        let w = world();
        let mut input = w.input();
        input.as_object_mut().unwrap().remove("cost");
        input.as_object_mut().unwrap().remove("context_window");
        let o = run(
            w.claudio(&["--format", "{context} · {context_tokens} · {session_cost}"]),
            Some(input.to_string().as_bytes()),
        );
        // the last request: a million tokens of a 200k window; the session's
        // two messages, $15 + $3
        assert_eq!(stdout(&o), "500% · 1.0M/200k · $18.00\n");

        // the transcript a FIFO: not waited for, and said
        let fifo = w.dir.path().join("fifo.jsonl");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid C string.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        input["transcript_path"] = json!(fifo.display().to_string());
        input["session_id"] = json!("cccccccc-3333-4333-8333-333333333333");
        let o = run_bounded(
            w.claudio(&["--format", "{model} · {context} · {session_cost}"]),
            &input,
        );
        assert_eq!(stdout(&o), "Sonnet 4.5\n");
        assert!(
            stderr(&o).contains("transcript could not be read"),
            "{}",
            stderr(&o)
        );
    });
}

#[test]
fn statusline_escapes_in_the_json_never_reach_the_terminal() {
    on_one_day(|| {
        let w = world();
        let mut input = w.input();
        input["model"]["display_name"] = json!("x\u{1b}]52;c;aGk=\u{7}\u{1b}[2J\ny\u{202e}");
        std::fs::write(w.repo.join(".git/HEAD"), "ref: refs/heads/b\u{1b}[31mad\n").unwrap();
        let mut c = w.claudio(&["--format", "{model} {branch}"]);
        c.env_remove("NO_COLOR");
        let o = run(c, Some(input.to_string().as_bytes()));
        assert_eq!(
            stdout(&o),
            "\x1b[36mx y\x1b[0m \x1b[32mbad\x1b[0m\n",
            "only its own colors"
        );
    });
}

#[test]
fn statusline_notes_are_inert_and_a_huge_transcript_is_not_read() {
    on_one_day(|| {
        let w = world();
        let mut input = w.input();
        input.as_object_mut().unwrap().remove("cost");
        input.as_object_mut().unwrap().remove("context_window");
        input["session_id"] = json!("cccccccc-3333-4333-8333-333333333333");
        // a path with escapes: the note that names it stays inert
        input["transcript_path"] = json!(format!(
            "{}/\u{1b}]0;PWN\u{7}\u{1b}[2J/x.jsonl",
            w.dir.path().display()
        ));
        let o = run(
            w.claudio(&["--format", "{model} · {session_cost}"]),
            Some(input.to_string().as_bytes()),
        );
        assert_eq!(stdout(&o), "Sonnet 4.5\n");
        let err = stderr(&o);
        assert!(err.contains("transcript could not be read"), "{err}");
        assert!(!err.contains('\u{1b}') && !err.contains('\u{7}'), "{err:?}");
        // a huge transcript (sparse: no disk used) is passed over, said so
        let huge = w.dir.path().join("huge.jsonl");
        std::fs::File::create(&huge)
            .unwrap()
            .set_len(3 << 30)
            .unwrap();
        input["transcript_path"] = json!(huge.display().to_string());
        let o = run_bounded(w.claudio(&["--format", "{model} · {session_cost}"]), &input);
        assert_eq!(stdout(&o), "Sonnet 4.5\n");
        assert!(
            stderr(&o).contains("over 64 MiB, not read"),
            "{}",
            stderr(&o)
        );
    });
}

/// `TZ` naming a FIFO made the status line wait for ever (the fourth
/// attack round): the day is UTC's, and stderr says why in one line.
#[test]
fn statusline_with_tz_naming_a_fifo_is_utc_and_says_so() {
    on_one_day(|| {
        let w = world();
        let fifo = w.dir.path().join("tz-fifo");
        let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success());
        let mut cmd = w.claudio(&["--format", NO_BLOCK]);
        cmd.env("TZ", &fifo);
        let o = run_bounded(cmd, &w.input());
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(
            stdout(&o),
            "Sonnet 4.5 · 12% ctx · $3.50 session · $3.00 today · main\n"
        );
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains("not a regular file; times are shown in UTC"),
            "{err}"
        );
    });
}

/// Run `cmd` with `input` on stdin, killed (and failed) past 20 s.
fn run_bounded(mut cmd: Command, input: &Value) -> std::process::Output {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut pipe = child.stdin.take().unwrap();
    std::io::Write::write_all(&mut pipe, input.to_string().as_bytes()).unwrap();
    drop(pipe);
    wait_with_deadline(&mut child, 20);
    child.wait_with_output().unwrap()
}

/// `claudio statusline` as the chat's own `statusLine` command, the real
/// CLI behind the chat: the line shows the model the CLI reported and the
/// session's cost as the end-of-turn line says it (issue 32.1). The
/// chat's command keeps the JSON it is given and says it ran (the chat
/// skips a command past its 1 s deadline, which a debug `claudio
/// statusline` on a loaded machine can pass); `claudio statusline` then
/// reads that JSON here, with the chat's environment and no deadline.
#[test]
fn statusline_is_the_status_line_of_claudios_own_chat() {
    use crate::common::real::{world, Reply};
    use crate::common::term::Term;
    let w = world!("statusline_is_the_status_line_of_claudios_own_chat");
    w.api.push(Reply::text("Hello from the model."));
    let claude = w.home.path().join(".claude");
    std::fs::create_dir_all(&claude).unwrap();
    let given = w.home.path().join("statusline-input.json");
    let command = format!("cat > '{}' && echo SL-RAN", given.display());
    std::fs::write(
        claude.join("settings.json"),
        json!({"statusLine": {"type": "command", "command": command}}).to_string(),
    )
    .unwrap();
    let mut c = w.claudio();
    c.env("XDG_DATA_HOME", w.home.path())
        .env("XDG_CACHE_HOME", w.home.path().join(".cache"))
        .env("NO_COLOR", "1");
    // the same environment and folder for `claudio statusline` below
    let mut sl = Command::new(env!("CARGO_BIN_EXE_claudio"));
    sl.args([
        "statusline",
        "--format",
        "SL[{model} · {session_cost} session · {context} ctx]",
    ]);
    for (k, v) in c.get_envs() {
        match v {
            Some(v) => sl.env(k, v),
            None => sl.env_remove(k),
        };
    }
    if let Some(d) = c.get_current_dir() {
        sl.current_dir(d);
    }
    let mut t = Term::spawn(c);
    t.wait_for("Ctrl-D exits");
    t.line("hi");
    t.wait_for("Hello from the model.");
    // the chat ran the command after the turn and showed its line
    let screen = t.wait_for("SL-RAN");
    let end = screen.lines().find(|l| l.contains("API call")).unwrap();
    let input: Value = serde_json::from_slice(&std::fs::read(&given).unwrap()).unwrap();
    let o = run_bounded(sl, &input);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let line = out.lines().find(|l| l.contains("SL[")).unwrap_or_default();
    // the model the CLI named, as the chat's prompt shows it
    let model = w.main_requests()[0].model().unwrap().to_owned();
    assert!(line.contains(&format!("SL[{model} · ")), "{line} / {model}");
    // the session's cost, the same figure as the end-of-turn line
    let cost = end
        .split(" session")
        .next()
        .and_then(|h| h.rsplit(' ').next())
        .unwrap();
    assert!(cost.starts_with('$'), "{end}");
    // (the status line rounds to cents)
    let shown = line
        .split(" session")
        .next()
        .and_then(|h| h.rsplit(' ').next())
        .unwrap();
    let dollars = |s: &str| s.trim_start_matches('$').parse::<f64>().unwrap();
    assert!(
        (dollars(shown) - dollars(cost)).abs() < 0.005,
        "{line} / {end}"
    );
    assert!(line.contains("% ctx]"), "{line}");
    t.ctrl_d();
    assert_eq!(t.wait(20).code(), Some(0));
}

/// What the line found is kept (`recent-usage` in the cache folder) and
/// looked at again only where it can have changed: a running session's
/// transcript (the CLI's registry names it) is looked at every time, so a
/// response it wrote since shows at once.
#[test]
fn statusline_keeps_what_it_found_and_sees_a_running_sessions_response_at_once() {
    on_one_day(|| {
        let w = world();
        let config = w.dir.path();
        let registry = config.join("sessions");
        std::fs::create_dir_all(&registry).unwrap();
        std::fs::write(
            registry.join("4242.json"),
            json!({"pid": 4242, "sessionId": YESTERDAY, "kind": "interactive"}).to_string(),
        )
        .unwrap();
        // the folders' times settled, as they are between two messages
        let settled = UNIX_EPOCH + Duration::from_millis((now_ms() - HOUR) as u64);
        for d in [
            registry.clone(),
            config.join("projects"),
            config.join("projects/-work"),
        ] {
            std::fs::File::open(&d)
                .unwrap()
                .set_modified(settled)
                .unwrap();
        }
        let line =
            |today: &str| format!("Sonnet 4.5 · 12% ctx · $3.50 session · {today} today · main\n");
        let o = run(
            w.claudio(&["--format", NO_BLOCK]),
            Some(w.input().to_string().as_bytes()),
        );
        assert_eq!(stdout(&o), line("$3.00"), "{}", stderr(&o));
        assert!(config.join(".claudio-cache/recent-usage").is_file());
        // the running session answers today: a million input tokens, $3
        let yesterday = config.join(format!("projects/-work/{YESTERDAY}.jsonl"));
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&yesterday)
            .unwrap();
        std::io::Write::write_all(
            &mut f,
            (assistant("y2", 1_000_000, 0, w.sent) + "\n").as_bytes(),
        )
        .unwrap();
        drop(f);
        let o = run(
            w.claudio(&["--format", NO_BLOCK]),
            Some(w.input().to_string().as_bytes()),
        );
        assert_eq!(stdout(&o), line("$6.00"), "{}", stderr(&o));
        assert_eq!(stderr(&o), "");
    });
}

/// The plain `claudio statusline` skips the parser; with a flag it goes
/// through it. Both give the line when a chat flag's environment variable
/// holds what the flag does not take (a misspelt permission mode, a model
/// name that is not UTF-8): only the chat and `ask` take those flags. The
/// parser refused every other command for it (`--format` gave no status
/// line, `sessions list` nothing), while the plain call showed the line.
#[test]
fn statusline_with_or_without_the_parser_ignores_the_chat_s_environment() {
    on_one_day(|| {
        use std::os::unix::ffi::OsStringExt;
        let w = world();
        let bad = [
            ("CLAUDIO_PERMISSION_MODE", std::ffi::OsString::from("bogus")),
            (
                "CLAUDIO_MODEL",
                std::ffi::OsString::from_vec(vec![b'x', 0xff]),
            ),
        ];
        for (var, value) in &bad {
            let mut plain = w.claudio(&[]);
            plain.env(var, value);
            let o = run_bounded(plain, &w.input());
            assert!(o.status.success(), "{var}: {}", stderr(&o));
            assert!(
                stdout(&o).starts_with("Sonnet 4.5 · 12% ctx"),
                "{var}: {}",
                stdout(&o)
            );
            let mut parsed = w.claudio(&["--format", NO_BLOCK]);
            parsed.env(var, value);
            let o = run_bounded(parsed, &w.input());
            assert!(o.status.success(), "{var}: {}", stderr(&o));
            assert_eq!(
                stdout(&o),
                "Sonnet 4.5 · 12% ctx · $3.50 session · $3.00 today · main\n",
                "{var}"
            );
            assert_eq!(stderr(&o), "", "{var}");
            // `ask` takes the flag: its environment's value is still checked
            // (and nothing is run)
            let mut ask = Command::new(env!("CARGO_BIN_EXE_claudio"));
            ask.args(["ask", "hi"])
                .env(var, value)
                .env("CLAUDIO_CLI", w.dir.path().join("no-such-claude"))
                .env("CLAUDE_CONFIG_DIR", w.dir.path())
                .env("XDG_CONFIG_HOME", w.dir.path().join("xdg"))
                .env_remove("CLAUDIO_CONFIG");
            let o = run(ask, None);
            assert_eq!(o.status.code(), Some(2), "{var}: {}", stderr(&o));
            assert!(!stderr(&o).is_empty(), "{var}");
        }
    });
}

/// `claudio-statusline` prints what `claudio statusline` prints, flag for
/// flag: the plain call (no parser) and calls with flags, colors from the
/// flag or the environment, bad input, a bad template (exit 2), stdin
/// closed; the same stdout, stderr and exit code. Its own name is in its
/// help, its version and its usage errors.
#[test]
fn the_statusline_program_prints_what_claudio_statusline_prints() {
    on_one_day(|| {
        let w = world();
        let input = w.input().to_string();
        let stable = "{model} · {context_tokens} · {session_cost} · {today_cost} · {block_cost} · {branch} · {dir}";
        // the flags, stdin, and whether NO_COLOR is set
        type Case<'a> = (Vec<&'a str>, Option<&'a [u8]>, bool);
        let cases: Vec<Case> = vec![
            (vec![], Some(input.as_bytes()), true),
            (vec!["--format", NO_BLOCK], Some(input.as_bytes()), true),
            (vec!["--format", stable], Some(input.as_bytes()), true),
            (vec!["--format", "{model}"], Some(input.as_bytes()), false),
            (
                vec!["--format", "{model}", "--color", "always"],
                Some(input.as_bytes()),
                true,
            ),
            (
                vec!["--color", "never", "--format", "{model}"],
                Some(input.as_bytes()),
                false,
            ),
            (vec![], Some(b"{\"model\": "), true),
            (vec![], Some(b"[1, 2]"), true),
            (vec![], Some(b""), true),
            (vec![], None, true),
            (vec!["--format", "{cost}"], None, true),
        ];
        for (args, stdin, no_color) in cases {
            let (mut a, mut b) = (w.claudio(&args), w.program(&args));
            if !no_color {
                a.env_remove("NO_COLOR");
                b.env_remove("NO_COLOR");
            }
            let (a, b) = (run(a, stdin), run(b, stdin));
            assert_eq!(a.status.code(), b.status.code(), "{args:?}");
            assert_eq!(stdout(&a), stdout(&b), "{args:?}");
            assert_eq!(stderr(&a), stderr(&b), "{args:?}");
        }
        // and the line is the line, not two empty outputs alike
        let o = run(w.program(&["--format", NO_BLOCK]), Some(input.as_bytes()));
        assert_eq!(
            stdout(&o),
            "Sonnet 4.5 · 12% ctx · $3.50 session · $3.00 today · main\n"
        );
        let mut colored = w.program(&["--format", "{model}"]);
        colored.env_remove("NO_COLOR");
        let o = run(colored, Some(input.as_bytes()));
        assert_eq!(stdout(&o), "\x1b[36mSonnet 4.5\x1b[0m\n");
        let o = run(w.program(&["--format", "{cost}"]), None);
        assert_eq!(o.status.code(), Some(2));
        assert!(
            stderr(&o).contains("no placeholder {cost}"),
            "{}",
            stderr(&o)
        );
        // its own name
        let o = run(w.program(&["--help"]), None);
        assert!(o.status.success());
        assert!(
            stdout(&o).contains("Usage: claudio-statusline [OPTIONS]"),
            "{}",
            stdout(&o)
        );
        assert!(stdout(&o).contains("{today_cost}"), "{}", stdout(&o));
        let o = run(w.program(&["--version"]), None);
        assert_eq!(
            stdout(&o),
            format!("claudio-statusline {}\n", env!("CARGO_PKG_VERSION"))
        );
        let o = run(w.program(&["statusline"]), None);
        assert_eq!(o.status.code(), Some(2));
        assert!(
            stderr(&o).starts_with("claudio: unexpected argument 'statusline'"),
            "{}",
            stderr(&o)
        );
        assert_eq!(stdout(&o), "");
    });
}

/// `claudio doctor` over the test store at `dir`, its settings running
/// `command` as the status line (no CLI to be found).
fn doctor_with_status_line(dir: &std::path::Path, command: &str) -> std::process::Command {
    std::fs::write(
        dir.join("settings.json"),
        json!({"statusLine": {"type": "command", "command": command}}).to_string(),
    )
    .unwrap();
    let mut c = crate::common::over_store(env!("CARGO_BIN_EXE_claudio"), dir);
    c.args(["doctor", "--color", "never"])
        .env("CLAUDIO_CLI", dir.join("no-such-claude"));
    c
}

/// `claudio doctor` says which status line the settings run: `claudio
/// statusline` with the faster `claudio-statusline` suggested,
/// `claudio-statusline` found on PATH, or not found (the TUI then shows
/// none).
#[test]
fn doctor_says_which_status_line_the_settings_run() {
    let w = world();
    let bins = Path::new(env!("CARGO_BIN_EXE_claudio-statusline"))
        .parent()
        .unwrap()
        .to_path_buf();
    let empty = w.dir.path().join("empty-bin");
    std::fs::create_dir_all(&empty).unwrap();
    for (command, path, want) in [
        (
            "claudio statusline",
            &bins,
            "! status line  claudio statusline (`claudio-statusline`",
        ),
        (
            "claudio-statusline",
            &bins,
            "✓ status line  claudio-statusline",
        ),
        (
            "claudio-statusline",
            &empty,
            "✗ status line  claudio-statusline: no such program",
        ),
    ] {
        let mut c = doctor_with_status_line(w.dir.path(), command);
        c.env("PATH", path);
        let o = run(c, None);
        let out = stdout(&o);
        assert!(
            out.lines().any(|l| l.starts_with(want)),
            "{command} with PATH={}: {out}",
            path.display()
        );
    }
}

/// `cargo run` from the checkout runs `claudio` (README's one command to
/// build and run it): with a second program in the package, cargo needs
/// the manifest to say which.
#[test]
fn cargo_run_runs_claudio_beside_the_status_line_s_program() {
    let manifest: toml::Table =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
            .unwrap()
            .parse()
            .unwrap();
    let bins: Vec<&str> = manifest["bin"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert_eq!(bins, ["claudio", "claudio-statusline"]);
    assert_eq!(manifest["package"]["default-run"].as_str(), Some("claudio"));
}

/// A config file that is no regular file is not read: a FIFO in its place
/// (nobody writing) hung both status line programs, and with them every
/// command, and a link to `/dev/zero` was read without end. The line is
/// shown (a broken config is no reason to show no status), and another
/// command says what is wrong with the file.
#[test]
fn a_config_file_that_is_no_regular_file_is_not_read() {
    on_one_day(|| {
        let w = world();
        let fifo = w.dir.path().join("config-fifo.toml");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let zero = w.dir.path().join("config-zero.toml");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        for config in [&fifo, &zero] {
            for mut c in [
                w.claudio(&["--format", NO_BLOCK]),
                w.program(&["--format", NO_BLOCK]),
            ] {
                c.env("CLAUDIO_CONFIG", config);
                let o = run_bounded(c, &w.input());
                assert!(o.status.success(), "{}", stderr(&o));
                assert_eq!(
                    stdout(&o),
                    "Sonnet 4.5 · 12% ctx · $3.50 session · $3.00 today · main\n",
                    "{}",
                    config.display()
                );
            }
            let mut c = crate::common::over_store(env!("CARGO_BIN_EXE_claudio"), w.dir.path());
            c.args(["sessions", "list"]).env("CLAUDIO_CONFIG", config);
            let o = run_bounded(c, &json!({}));
            assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
            assert!(stderr(&o).contains("not a regular file"), "{}", stderr(&o));
        }
    });
}

/// `claudio doctor` finds a `claudio-statusline` named from the home
/// folder as the claude TUI's shell does (`~/.cargo/bin/claudio-statusline`,
/// where `cargo install` puts it, or `$HOME/...`): it was said to be no
/// such program.
#[test]
fn doctor_finds_the_status_line_s_program_named_from_home() {
    let w = world();
    let home = w.dir.path().join("home");
    let bin = home.join(".cargo/bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(
        env!("CARGO_BIN_EXE_claudio-statusline"),
        bin.join("claudio-statusline"),
    )
    .unwrap();
    for (command, want) in [
        (
            "~/.cargo/bin/claudio-statusline",
            "✓ status line  ~/.cargo/bin/claudio-statusline",
        ),
        (
            "$HOME/.cargo/bin/claudio-statusline --format {model}",
            "✓ status line  $HOME/.cargo/bin/claudio-statusline",
        ),
        (
            "${HOME}/.cargo/bin/claudio-statusline",
            "✓ status line  ${HOME}/.cargo/bin/claudio-statusline",
        ),
        (
            "~/bin/claudio-statusline",
            "✗ status line  ~/bin/claudio-statusline: no such program",
        ),
    ] {
        let mut c = doctor_with_status_line(w.dir.path(), command);
        c.env("HOME", &home)
            .env("PATH", w.dir.path().join("empty-bin"));
        let o = run(c, None);
        let out = stdout(&o);
        assert!(out.lines().any(|l| l.starts_with(want)), "{command}: {out}");
    }
}

/// `claudio doctor` reads the settings for their status line only when
/// they are a regular file: a FIFO in their place (nobody writing) hung
/// it.
#[test]
fn doctor_reads_no_settings_that_are_no_regular_file() {
    let w = world();
    let settings = w.dir.path().join("settings.json");
    let made = Command::new("mkfifo").arg(&settings).status().unwrap();
    assert!(made.success());
    let mut c = crate::common::over_store(env!("CARGO_BIN_EXE_claudio"), w.dir.path());
    c.args(["doctor", "--color", "never"])
        .env("CLAUDIO_CLI", w.dir.path().join("no-such-claude"));
    let o = run_bounded(c, &json!({}));
    let out = stdout(&o);
    assert!(
        out.lines()
            .any(|l| l.starts_with("! status line  cannot read ~/.claude/settings.json")),
        "{out}"
    );
}
