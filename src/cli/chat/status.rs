//! The status line: where the session stands, after every turn. Built in:
//! how full the context is, the git branch and the permission mode, in the
//! end-of-turn line (beside the turn's cost; the prompt names the model). When the person's
//! Claude Code settings define `statusLine` (a command), it runs as the
//! claude TUI runs it: the documented JSON on its stdin, its first lines
//! shown (colors kept, every other control sequence removed), with a
//! deadline.

use crate::cli::sanitize::Sanitizer;
use crate::cli::settings;
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long a `statusLine` command may take before it is skipped.
pub const DEADLINE: Duration = Duration::from_secs(1);
/// The most output read from it, and the most lines shown.
const MAX_OUTPUT: usize = 8 * 1024;
const MAX_LINES: usize = 3;

/// The git branch of `dir` (or of the repository above it): read from
/// `.git/HEAD`, no git process. A detached head shows as its short hash.
pub fn git_branch(dir: &Path) -> Option<String> {
    let mut at = Some(dir);
    while let Some(d) = at {
        let git = d.join(".git");
        let meta = std::fs::symlink_metadata(&git).ok();
        let git_dir = match meta {
            Some(m) if m.is_dir() => Some(git),
            // a worktree or submodule: `gitdir: <path>`
            Some(m) if m.is_file() => {
                let text = settings::read_small_text(&git, 4096)?;
                let rel = text.strip_prefix("gitdir:")?.trim();
                Some(d.join(rel))
            }
            _ => None,
        };
        if let Some(g) = git_dir {
            let head = settings::read_small_text(&g.join("HEAD"), 4096)?;
            let head = head.trim();
            let name = match head.strip_prefix("ref: refs/heads/") {
                Some(branch) => branch.to_owned(),
                None => head.get(..7)?.to_owned(),
            };
            return Some(Sanitizer::clean(&name));
        }
        at = d.parent();
    }
    None
}

/// How full the context is, in percent, from the last main-agent API
/// call's usage and the model's window.
pub fn context_percent(usage: &Value, window: u64) -> Option<u8> {
    if window == 0 {
        return None;
    }
    let (input, output) = tokens(usage);
    Some((((input + output) * 100) / window).min(100) as u8)
}

/// An API call's input tokens (cached or not) and output tokens.
fn tokens(usage: &Value) -> (u64, u64) {
    let n = |k: &str| usage.get(k).and_then(Value::as_u64).unwrap_or(0);
    let input = n("input_tokens") + n("cache_creation_input_tokens") + n("cache_read_input_tokens");
    (input, n("output_tokens"))
}

/// What a `statusLine` command is told of the session.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Facts {
    pub model: Option<String>,
    pub mode: String,
    pub context_window: Option<u64>,
    pub last_usage: Option<Value>,
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
    let usage = f.last_usage.clone().unwrap_or(Value::Null);
    let (input, output) = tokens(&usage);
    let percent = f.context_window.and_then(|w| context_percent(&usage, w));
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
pub fn configured(claude_dir: &Path, cwd: &Path) -> Option<String> {
    let files = settings::files(claude_dir, Some(cwd));
    let (s, _) = settings::lookup(&files, "statusLine")?;
    if s.get("type").and_then(Value::as_str).unwrap_or("command") != "command" {
        return None;
    }
    let c = s.get("command")?.as_str()?.trim();
    (!c.is_empty()).then(|| c.to_owned())
}

/// Run a `statusLine` command with `input` on its stdin, in `cwd`; its
/// first lines, made safe (SGR colors kept when `color`). A command that
/// fails, prints nothing or outlives [`DEADLINE`] gives an error saying so;
/// it is killed, with its process group.
pub fn run(command: &str, input: &Value, cwd: &Path, color: bool) -> Result<Vec<String>, String> {
    use std::os::unix::process::CommandExt;
    let mut child = Command::new("/bin/sh")
        .arg("-c")
        .arg(command)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .map_err(|e| format!("the status line command did not start: {e}"))?;
    let body = input.to_string();
    let mut stdin = child.stdin.take();
    let writer = std::thread::spawn(move || {
        if let Some(s) = stdin.as_mut() {
            let _ = s.write_all(body.as_bytes());
        }
    });
    let mut stdout = child.stdout.take().ok_or("no stdout")?;
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = (&mut stdout).take(MAX_OUTPUT as u64).read_to_end(&mut out);
        out
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break Some(st),
            Ok(None) if start.elapsed() < DEADLINE => std::thread::sleep(Duration::from_millis(5)),
            _ => break None,
        }
    };
    let Some(status) = status else {
        // the whole group: a script's own children go too
        let _ = rustix::process::kill_process_group(
            rustix::process::Pid::from_child(&child),
            rustix::process::Signal::Kill,
        );
        let _ = child.wait();
        return Err(format!(
            "the status line command took longer than {} s; skipped",
            DEADLINE.as_secs()
        ));
    };
    let _ = writer.join();
    let out = reader.join().unwrap_or_default();
    if !status.success() {
        return Err(format!("the status line command ended with {status}"));
    }
    let text = String::from_utf8_lossy(&out);
    let lines: Vec<String> = text
        .lines()
        .map(|l| inert(l, color))
        .filter(|l| !l.trim().is_empty())
        .take(MAX_LINES)
        .collect();
    Ok(lines)
}

/// `line` with every control sequence removed but colors (SGR: `ESC [ … m`),
/// which are kept when `color`, else removed too.
pub fn inert(line: &str, color: bool) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(i) = rest.find('\x1b') {
        out.push_str(&Sanitizer::clean(&rest[..i]));
        let after = &rest[i + 1..];
        let sgr_len = after.strip_prefix('[').and_then(|p| {
            let end = p.find(|c: char| !(c.is_ascii_digit() || c == ';' || c == ':'))?;
            (p.as_bytes()[end] == b'm' && end <= 64).then_some(end + 2)
        });
        match sgr_len {
            Some(n) => {
                if color {
                    out.push('\x1b');
                    out.push_str(&after[..n]);
                }
                rest = &after[n..];
            }
            None => {
                // not a color: the sanitizer takes the rest from the ESC on
                out.push_str(&Sanitizer::clean(&rest[i..]));
                rest = "";
            }
        }
    }
    out.push_str(&Sanitizer::clean(rest));
    if color && out.contains('\x1b') {
        out.push_str("\x1b[0m");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_branch_comes_from_head_in_a_repository_a_worktree_or_detached() {
        let d = tempfile::tempdir().unwrap();
        let repo = d.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("src/deep")).unwrap();
        std::fs::write(repo.join(".git/HEAD"), "ref: refs/heads/feature/x\n").unwrap();
        assert_eq!(
            git_branch(&repo.join("src/deep")).as_deref(),
            Some("feature/x")
        );
        std::fs::write(repo.join(".git/HEAD"), "0123456789abcdef\n").unwrap();
        assert_eq!(git_branch(&repo).as_deref(), Some("0123456"));
        // a worktree: .git is a file naming the real folder
        let wt = d.path().join("wt");
        std::fs::create_dir_all(wt.join("gd")).unwrap();
        std::fs::write(wt.join(".git"), "gitdir: gd\n").unwrap();
        std::fs::write(wt.join("gd/HEAD"), "ref: refs/heads/evil\u{1b}[2J\n").unwrap();
        assert_eq!(git_branch(&wt).as_deref(), Some("evil"));
        assert_eq!(git_branch(Path::new("/")), None);
    }

    #[test]
    fn context_is_the_last_call_s_tokens_over_the_window() {
        let u =
            json!({"input_tokens": 10, "cache_read_input_tokens": 19_990, "output_tokens": 4000});
        assert_eq!(context_percent(&u, 200_000), Some(12));
        assert_eq!(context_percent(&u, 0), None);
        assert_eq!(
            context_percent(&json!({"input_tokens": 999_999}), 1000),
            Some(100)
        );
    }

    #[test]
    fn the_command_s_input_has_the_documented_shape() {
        let f = Facts {
            model: Some("opus\u{1b}]0;x\u{7}".into()),
            mode: "plan".into(),
            // 24,000 of 200,000 tokens
            last_usage: Some(json!({"input_tokens": 20_000, "output_tokens": 4000})),
            context_window: Some(200_000),
            ..Facts::default()
        };
        let v = input(&f, None);
        assert_eq!(v["hook_event_name"], "Status");
        assert_eq!(v["context_window"]["used_percentage"], 12);
        assert_eq!(v["context_window"]["remaining_percentage"], 88);
    }

    #[test]
    fn the_settings_decide_the_command_local_first() {
        let d = tempfile::tempdir().unwrap();
        let (home, cwd) = (d.path().join("home"), d.path().join("work"));
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(cwd.join(".claude")).unwrap();
        assert_eq!(configured(&home, &cwd), None);
        std::fs::write(
            home.join("settings.json"),
            r#"{"statusLine":{"type":"command","command":"user.sh"}}"#,
        )
        .unwrap();
        assert_eq!(configured(&home, &cwd).as_deref(), Some("user.sh"));
        std::fs::write(
            cwd.join(".claude/settings.local.json"),
            r#"{"statusLine":{"type":"command","command":"local.sh"}}"#,
        )
        .unwrap();
        assert_eq!(configured(&home, &cwd).as_deref(), Some("local.sh"));
    }

    #[test]
    fn a_command_gets_the_json_and_its_colors_survive_but_nothing_else() {
        let d = tempfile::tempdir().unwrap();
        let cmd = r#"read -r j; case "$j" in *'"hook_event_name":"Status"'*) printf '\033[32mok\033[0m \033]52;c;QQ==\007x\033[2J\nsecond\n\n\nthird\nfourth\n';; *) echo bad;; esac"#;
        let lines = run(cmd, &json!({"hook_event_name":"Status"}), d.path(), true).unwrap();
        assert_eq!(
            lines,
            ["\u{1b}[32mok\u{1b}[0m x\u{1b}[0m", "second", "third"],
            "{lines:?}"
        );
        let plain = run(cmd, &json!({"hook_event_name":"Status"}), d.path(), false).unwrap();
        assert_eq!(plain[0], "ok x");
    }

    #[test]
    fn a_slow_or_failing_command_is_skipped_with_a_reason() {
        let d = tempfile::tempdir().unwrap();
        let slow = run("sleep 30 & sleep 30", &json!({}), d.path(), false).unwrap_err();
        assert!(slow.contains("longer than 1 s"), "{slow}");
        let bad = run("exit 3", &json!({}), d.path(), false).unwrap_err();
        assert!(bad.contains("ended with"), "{bad}");
    }
}
