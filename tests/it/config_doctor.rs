//! Config precedence and errors; `claudio doctor`.

use crate::common;

use common::*;
use std::process::{Command, Output};

/// Both outputs, for messages that may go to either.
fn text(o: &Output) -> String {
    stdout(o) + &stderr(o)
}

fn model_flag(fake: &Fake) -> Option<String> {
    fake.argv()
        .into_iter()
        .find_map(|a| a.strip_prefix("--model=").map(str::to_owned))
}

#[test]
fn flags_beat_environment_beat_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("config.toml");
    std::fs::write(&cfg, "model = \"from-file\"\nallowed-tools = [\"Read\"]\n").unwrap();
    let cases: [(&[&str], Option<&str>, &str); 3] = [
        (&[], None, "from-file"),
        (&[], Some("from-env"), "from-env"),
        (&["--model", "from-flag"], Some("from-env"), "from-flag"),
    ];
    for (flags, env, want) in cases {
        let fake = Fake::after_init(vec![turn("q", "a")]);
        let mut c = claudio(&fake);
        c.env("CLAUDIO_CONFIG", &cfg)
            .env_remove("CLAUDIO_MODEL")
            .arg("ask")
            .args(flags)
            .arg("q");
        if let Some(v) = env {
            c.env("CLAUDIO_MODEL", v);
        }
        let o = run(c, None);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        assert_eq!(model_flag(&fake).as_deref(), Some(want));
        assert!(fake.argv().iter().any(|a| a == "--allowedTools=Read"));
    }
}

#[test]
fn a_bad_config_file_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("config.toml");
    std::fs::write(&cfg, "model = \"x\"\n\ncolor = \"purple\"\n").unwrap();
    let fake = Fake::new(vec![]);
    let mut c = claudio(&fake);
    c.env("CLAUDIO_CONFIG", &cfg).args(["ask", "q"]);
    let o = run(c, None);
    assert_eq!(o.status.code(), Some(1));
    let t = text(&o);
    assert!(t.contains("line 3") && t.contains("purple"), "{t}");
    assert!(t.contains(&cfg.display().to_string()), "{t}");
    // a named file that is missing is an error too, not a silent default
    let mut c = claudio(&fake);
    c.env("CLAUDIO_CONFIG", dir.path().join("nope.toml"))
        .args(["ask", "q"]);
    let o = run(c, None);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).contains("nope.toml"));
}

/// One unknown key (a typo, or a key of a newer version) is a warning
/// naming it and the nearest known key, said once, and every command goes
/// on: it made even `config show` exit 1.
#[test]
fn an_unknown_config_key_is_a_warning_and_the_command_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("c.toml");
    std::fs::write(
        &cfg,
        "theme = \"dark\"\ncolour = \"never\"\npermission-mode = \"plan\"\n",
    )
    .unwrap();
    let mut c = Command::new(env!("CARGO_BIN_EXE_claudio"));
    c.env("CLAUDIO_CONFIG", &cfg).args(["config", "show"]);
    let o = run(c, None);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        stdout(&o).contains("permission-mode = \"plan\""),
        "{}",
        text(&o)
    );
    let err = stderr(&o);
    assert_eq!(err.matches("unknown key `theme`").count(), 1, "{err}");
    assert_eq!(err.matches("unknown key `colour`").count(), 1, "{err}");
    assert!(err.contains("did you mean `color`?"), "{err}");
    // and a session starts with the rest of the file in effect
    let fake = Fake::after_init(vec![turn("q", "a")]);
    let mut c = claudio(&fake);
    c.env("CLAUDIO_CONFIG", &cfg).args(["ask", "q"]);
    let o = run(c, None);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        fake.argv().iter().any(|a| a == "--permission-mode=plan"),
        "{:?}",
        fake.argv()
    );
}

#[test]
fn config_path_and_show() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("c.toml");
    std::fs::write(&cfg, "permission-mode = \"plan\"\n").unwrap();
    let mut c = Command::new(env!("CARGO_BIN_EXE_claudio"));
    c.env("CLAUDIO_CONFIG", &cfg).args(["config", "path"]);
    let o = run(c, None);
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).trim(),
        cfg.display().to_string()
    );
    let mut c = Command::new(env!("CARGO_BIN_EXE_claudio"));
    c.env("CLAUDIO_CONFIG", &cfg).args(["config", "show"]);
    let o = run(c, None);
    assert!(String::from_utf8_lossy(&o.stdout).contains("permission-mode = \"plan\""));
}

fn doctor(cli: &str, claude_dir: &std::path::Path, key: Option<&str>) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_claudio"));
    c.arg("doctor")
        .env("CLAUDIO_CLI", cli)
        .env("CLAUDE_CONFIG_DIR", claude_dir)
        .env("CLAUDIO_CONFIG", claude_dir.join("no-config.toml"))
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("ANTHROPIC_AUTH_TOKEN")
        .env_remove("CLAUDE_CODE_OAUTH_TOKEN");
    if let Some(k) = key {
        c.env("ANTHROPIC_API_KEY", k);
    }
    run(c, None)
}

#[test]
fn doctor_all_well() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("projects/-tmp-x");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(project.join("a.jsonl"), "{}\n").unwrap();
    // the config named but missing is reported; give it a real one
    std::fs::write(dir.path().join("no-config.toml"), "").unwrap();
    let secret = "sk-ant-api03-DOCTOR-SECRET";
    let o = doctor(&fake_cli().display().to_string(), dir.path(), Some(secret));
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    assert!(t.contains("2.1.328"), "{t}");
    assert!(t.contains("present (ANTHROPIC_API_KEY)"), "{t}");
    assert!(t.contains("1 sessions"), "{t}");
    assert!(!t.contains(secret), "the key leaked: {t}");
}

#[test]
fn doctor_reports_problems_with_fixes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("projects"), "not a folder").unwrap();
    std::fs::write(dir.path().join("no-config.toml"), "bogus = 1\n").unwrap();
    let o = doctor("/nonexistent/claude", dir.path(), None);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(
        t.contains("npm install -g @anthropic-ai/claude-code"),
        "{t}"
    );
    assert!(t.contains("none found"), "{t}");
    assert!(t.contains("not a directory"), "{t}");
    assert!(t.contains("bogus"), "{t}");
}

#[test]
fn a_closed_pipe_ends_quietly_with_0() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    for args in [
        &["completions", "bash"][..],
        &["man"],
        &["config", "show"],
        &["--help"],
    ] {
        let mut c = Command::new(env!("CARGO_BIN_EXE_claudio"));
        let tmp = tempfile::tempdir().unwrap();
        c.args(args)
            .env("XDG_CONFIG_HOME", tmp.path())
            .env_remove("CLAUDIO_CONFIG")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = c.spawn().unwrap();
        // the reader goes away before the first write, as `head` does once
        // it has its line
        drop(child.stdout.take());
        let status = crate::common::wait_with_deadline(&mut child, 20);
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        assert_eq!(status.code(), Some(0), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn doctor_is_calm_on_an_empty_store_and_short_when_the_cli_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("projects")).unwrap();
    std::fs::write(dir.path().join("no-config.toml"), "").unwrap();
    let run_doctor = |verbose: bool| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_claudio"));
        c.arg("doctor")
            .env_remove("CLAUDIO_CLI")
            .env("PATH", "/nonexistent")
            .env("HOME", dir.path())
            .env("CLAUDE_CONFIG_DIR", dir.path())
            .env("CLAUDIO_CONFIG", dir.path().join("no-config.toml"))
            .env("CLAUDIO_ARCHIVE_DIR", dir.path().join("archive"))
            .env("ANTHROPIC_API_KEY", "x");
        if verbose {
            c.arg("--verbose");
        }
        run(c, None)
    };
    let o = run_doctor(false);
    let t = text(&o);
    let claude = t.lines().find(|l| l.contains("claude")).unwrap_or("");
    assert!(claude.contains("not found (looked in"), "{t}");
    assert!(claude.chars().count() < 160, "one short line: {claude}");
    // an empty store: nothing to warn about, nothing to archive
    let cleanup = t.lines().find(|l| l.contains("cleanup")).unwrap_or("");
    assert!(!cleanup.contains("not archived"), "{t}");
    assert!(!t.contains("keep them:"), "{t}");
    let o = run_doctor(true);
    let t = text(&o);
    assert!(
        t.contains(".local/bin/claude") && t.contains("/usr/local/bin/claude"),
        "--verbose lists the places: {t}"
    );
}

#[test]
fn every_usage_error_has_claudio_s_prefix_and_exit_2() {
    for args in [
        &["sessions", "list", "--bogus"][..],
        &["--model", "x", "doctor"],
        &["ask", "--output-format", "yaml", "hi"],
    ] {
        let mut c = Command::new(env!("CARGO_BIN_EXE_claudio"));
        c.args(args);
        let o = run(c, None);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = stderr(&o);
        assert!(err.starts_with("claudio: "), "{args:?}: {err}");
        assert!(!err.contains("error:"), "{args:?}: {err}");
    }
}
