//! MCP secrets off the command line (issue 30, item 1). Every local user can
//! read `/proc/PID/cmdline`, so an MCP server's `env` and `headers` and the
//! settings' `env` must reach the CLI some other way: in the `initialize`
//! request (CLI 2.1.326 and later, `--await-initialize`), or, for a CLI that
//! does not load them from there, in a private file (mode 0600, removed when
//! the CLI ends). Real-CLI tests first (skipped loudly without
//! `CLAUDIO_TEST_REAL_CLI`), then the fake CLI for a reply that does not say
//! `mcp_servers_applied`.

use crate::common;

use claudio::{Client, Options};
use common::real::*;
use common::term::Term;
use common::*;
use serde_json::{json, Value};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn example_bin(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let mut dir = exe.parent().unwrap().to_path_buf();
    if dir.ends_with("deps") {
        dir.pop();
    }
    let p = dir.join("examples").join(name);
    assert!(
        p.exists(),
        "{} is missing (cargo test builds it)",
        p.display()
    );
    p
}

/// A token no other process can hold by chance.
pub(crate) fn secret(tag: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("tok-{tag}-{}-{nanos:x}-SECRET", std::process::id())
}

/// The arguments of process `pid`, as every local user can read them.
fn cmdline(pid: u32) -> Vec<String> {
    let raw = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    raw.split(|b| *b == 0)
        .filter(|a| !a.is_empty())
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect()
}

/// Every process whose command line holds one of `needles`, with it.
fn cmdlines_holding(needles: &[&str]) -> Vec<(u32, String)> {
    let mut hits = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return hits;
    };
    for e in entries.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        let line = cmdline(pid).join(" ");
        if needles.iter().any(|n| line.contains(n)) {
            hits.push((pid, line));
        }
    }
    hits
}

/// The value of `--flag=VALUE` in `args`, for each time it is there.
fn flag_values(args: &[String], flag: &str) -> Vec<String> {
    let prefix = format!("{flag}=");
    args.iter()
        .filter_map(|a| a.strip_prefix(&prefix).map(str::to_owned))
        .collect()
}

/// A private file: the owner's alone (0600), in a directory only the owner
/// may enter (0700); its JSON.
fn read_private(path: &Path) -> Value {
    let meta = std::fs::symlink_metadata(path).expect("the private file exists");
    assert!(meta.is_file(), "{}", path.display());
    assert_eq!(
        meta.permissions().mode() & 0o777,
        0o600,
        "{}",
        path.display()
    );
    let dir = std::fs::symlink_metadata(path.parent().unwrap()).unwrap();
    assert_eq!(
        dir.permissions().mode() & 0o777,
        0o700,
        "{}",
        path.display()
    );
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Wait until the CLI has connected to MCP server `name`; its status entry.
async fn connected(client: &Client, name: &str) -> Value {
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        let status = client.control("mcp_status", json!({})).await.unwrap();
        let server = status["mcpServers"]
            .as_array()
            .and_then(|a| a.iter().find(|s| s["name"] == name))
            .cloned();
        if let Some(s) = &server {
            if s["status"] == "connected" {
                return s.clone();
            }
        }
        assert!(Instant::now() < until, "{name} never connected: {status}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The MCP configuration of the tests: `mcp-echo` with a token in its
/// `env` (it echoes with that token as its prefix, so a call shows the env
/// arrived), and an http server with a token in its `headers`.
fn config(env_token: &str, header_token: &str) -> Value {
    json!({"mcpServers": {
        "echo": {"type": "stdio", "command": example_bin("mcp-echo").display().to_string(),
                 "args": [], "env": {"MCP_ECHO_PREFIX": format!("{env_token}: ")}},
        "web": {"type": "http", "url": "http://127.0.0.1:9/mcp",
                "headers": {"Authorization": format!("Bearer {header_token}")}}}})
}

/// Connected with the echo server working and no secret on any command
/// line; returns the CLI's argv.
async fn check_live_session(client: &Client, secrets: &[&str], env_token: &str) -> Vec<String> {
    let args = cmdline(client.pid());
    assert!(
        args.iter().any(|a| a == "--input-format"),
        "/proc/{}/cmdline is not readable: {args:?}",
        client.pid()
    );
    let echo = connected(client, "echo").await;
    let tools: Vec<&str> = echo["tools"]
        .as_array()
        .map(|t| t.iter().filter_map(|t| t["name"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(tools, ["echo"], "{echo}");
    let r = client
        .mcp_call("mcp__echo__echo", json!({"text": "hi"}))
        .await
        .unwrap();
    assert_eq!(r.text(), format!("{env_token}: hi"), "{r:?}");
    // the CLI, the MCP server, and every other process: no secret
    assert_eq!(cmdlines_holding(secrets), vec![]);
    args
}

#[tokio::test(flavor = "multi_thread")]
async fn real_cli_mcp_and_settings_secrets_stay_off_every_command_line() {
    let w = world!("real_cli_mcp_and_settings_secrets_stay_off_every_command_line");
    let (env_token, header_token, settings_token) =
        (secret("env"), secret("header"), secret("settings"));
    let options = w
        .options()
        .mcp_config(config(&env_token, &header_token).to_string())
        .settings(json!({"env": {"CLAUDIO_SETTINGS_TOKEN": settings_token}}));
    let client = Client::connect(options).await.expect("connect");
    let secrets = [&*env_token, &*header_token, &*settings_token];
    let args = check_live_session(&client, &secrets, &env_token).await;
    // the servers went in `initialize`: no configuration file for them
    assert!(args.iter().any(|a| a == "--await-initialize"), "{args:?}");
    assert_eq!(flag_values(&args, "--mcp-config"), Vec::<String>::new());
    // the http server was given (and failed: nothing listens there)
    let status = client.mcp_status().await.unwrap();
    assert!(status.servers.iter().any(|s| s.name == "web"), "{status:?}");
    // the settings arrived, from a private file
    let settings = flag_values(&args, "--settings");
    let [settings] = &settings[..] else {
        panic!("one --settings: {args:?}")
    };
    let path = PathBuf::from(settings);
    assert_eq!(
        read_private(&path)["env"]["CLAUDIO_SETTINGS_TOKEN"],
        settings_token
    );
    let s = client.get_settings().await.unwrap();
    assert_eq!(s.effective["env"]["CLAUDIO_SETTINGS_TOKEN"], settings_token);
    client.close().await.unwrap();
    assert!(!path.exists(), "{} outlived the CLI", path.display());
    assert!(!path.parent().unwrap().exists());
}

/// A wrapper around the real CLI, running `body` (a shell fragment) first;
/// each start appends its arguments to `starts.log` beside it.
fn wrapper(dir: &Path, cli: &Path, body: &str) -> PathBuf {
    let path = dir.join("claude-wrapper");
    let log = dir.join("starts.log");
    let script = format!(
        "#!/bin/sh\necho \"$*\" >> '{}'\n{body}\nexec '{}' \"$@\"\n",
        log.display(),
        cli.display()
    );
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// With `body` making the CLI not load the servers from `initialize`:
/// claudio starts it again with them in a private file, which works, holds
/// no secret on a command line, and is gone after `close`.
async fn falls_back_to_a_private_file(test: &str, body: &str) {
    let w = world!(test);
    let bin = tempfile::tempdir().unwrap();
    let cli = wrapper(bin.path(), &w.cli, body);
    let (env_token, header_token) = (secret("env"), secret("header"));
    let options = w
        .options()
        .cli_path(&cli)
        .mcp_config(config(&env_token, &header_token).to_string());
    let client = Client::connect(options).await.expect("connect");
    let args = check_live_session(&client, &[&env_token, &header_token], &env_token).await;
    let starts = std::fs::read_to_string(bin.path().join("starts.log")).unwrap();
    let starts: Vec<&str> = starts.lines().collect();
    assert_eq!(starts.len(), 2, "{starts:?}");
    assert!(starts[0].contains("--await-initialize"), "{starts:?}");
    assert!(!starts[1].contains("--await-initialize"), "{starts:?}");
    assert!(!args.iter().any(|a| a == "--await-initialize"), "{args:?}");
    let files = flag_values(&args, "--mcp-config");
    let [file] = &files[..] else {
        panic!("one --mcp-config: {args:?}")
    };
    let file = PathBuf::from(file);
    assert_eq!(read_private(&file), config(&env_token, &header_token));
    client.close().await.unwrap();
    assert!(!file.exists(), "{} outlived the CLI", file.display());
}

#[tokio::test(flavor = "multi_thread")]
async fn real_cli_that_did_not_load_the_servers_from_initialize_gets_a_private_file() {
    // As a wrapper that drops the flag would: the CLI answers
    // `mcp_servers_applied: false` and runs without them.
    falls_back_to_a_private_file(
        "real_cli_that_did_not_load_the_servers_from_initialize_gets_a_private_file",
        r#"for a; do shift; [ "$a" = --await-initialize ] || set -- "$@" "$a"; done"#,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn real_cli_older_than_await_initialize_gets_a_private_file() {
    // As a CLI before 2.1.326 does: it does not know the flag, and exits.
    falls_back_to_a_private_file(
        "real_cli_older_than_await_initialize_gets_a_private_file",
        r#"for a; do if [ "$a" = --await-initialize ]; then echo "error: unknown option '--await-initialize'" >&2; exit 1; fi; done"#,
    )
    .await;
}

/// A CLI whose answer to `initialize` does not say `mcp_servers_applied`
/// (one older than 2.1.326 behind a wrapper that ate the flag): taken as
/// "not loaded", as the TypeScript SDK does; the second start has the
/// servers in a private file.
#[tokio::test]
async fn a_reply_without_mcp_servers_applied_means_not_loaded() {
    let token = secret("fake");
    let config = json!({"mcpServers": {"s": {"command": "srv", "env": {"TOKEN": token}}}});
    let fake = Fake::after_init(vec![]);
    let client = Client::connect(fake.options().mcp_config(config.to_string()))
        .await
        .expect("connect");
    // the second start's argv (the fake records it as it starts)
    let args = fake.argv();
    assert!(!args.iter().any(|a| a.contains(&token)), "{args:?}");
    assert_eq!(
        cmdline(client.pid())[1..],
        args[..],
        "the live process's argv"
    );
    assert_eq!(cmdlines_holding(&[&token]), vec![]);
    assert!(!args.iter().any(|a| a == "--await-initialize"), "{args:?}");
    let files = flag_values(&args, "--mcp-config");
    let [file] = &files[..] else {
        panic!("one --mcp-config: {args:?}")
    };
    let file = PathBuf::from(file);
    assert_eq!(read_private(&file), config);
    // first start: the servers in `initialize`; second: not there
    let inits: Vec<Value> = fake
        .stdin_lines()
        .into_iter()
        .filter(|l| l["request"]["subtype"] == "initialize")
        .collect();
    assert_eq!(inits.len(), 2, "{inits:?}");
    assert_eq!(inits[0]["request"]["mcpServers"], config["mcpServers"]);
    assert!(inits[1]["request"].get("mcpServers").is_none());
    client.close().await.unwrap();
    assert!(!file.exists(), "{} outlived the CLI", file.display());
}

/// Options with nothing secret start the CLI once, with no private files
/// and no `--await-initialize` (the fake answers like a 2.1.325 CLI).
#[tokio::test]
async fn nothing_to_hide_one_start_no_files() {
    let fake = Fake::after_init(vec![]);
    let options: Options = fake.options().mcp_config("/nonexistent/mcp.json");
    let client = Client::connect(options).await.expect("connect");
    let args = fake.argv();
    assert!(!args.iter().any(|a| a == "--await-initialize"), "{args:?}");
    assert!(
        !args.iter().any(|a| a.starts_with("--settings")),
        "{args:?}"
    );
    assert_eq!(
        flag_values(&args, "--mcp-config"),
        ["/nonexistent/mcp.json"]
    );
    let inits = fake
        .stdin_lines()
        .into_iter()
        .filter(|l| l["request"]["subtype"] == "initialize")
        .count();
    assert_eq!(inits, 1);
    client.close().await.unwrap();
}

/// `claudio ask --mcp-config TEXT` with a token in it: the CLI's command line
/// is clean, and claudio says (once, without the token) that its own
/// command line is not, and how to keep the token in a file instead.
#[test]
fn inline_config_with_a_token_is_warned_about_once_without_the_token() {
    let token = "ghp_inline_secret_4242";
    let config =
        json!({"mcpServers": {"gh": {"command": "gh-mcp", "env": {"GITHUB_TOKEN": token}}}})
            .to_string();
    let fake = Fake::after_init(vec![vec![expect_user("hi"), result("ok")]]);
    let mut c = claudio(&fake);
    c.args([
        "ask",
        "--mcp-config",
        &config,
        "--mcp-config",
        &config,
        "hi",
    ]);
    let o = run(c, None);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert_eq!(err.matches("--mcp-config text").count(), 1, "{err}");
    assert!(err.contains("put it in a file"), "{err}");
    assert!(!err.contains(token), "{err}");
    assert!(!fake.argv().iter().any(|a| a.contains(token)));

    // A file path: nothing to warn about.
    let fake = Fake::after_init(vec![vec![expect_user("hi"), result("ok")]]);
    let mut c = claudio(&fake);
    c.args(["ask", "--mcp-config", "/nonexistent/servers.json", "hi"]);
    let o = run(c, None);
    assert!(!stderr(&o).contains("--mcp-config text"), "{}", stderr(&o));
}

// ---- issue 39, item 3: the private files go on every signal ------------

/// A CLI that takes the servers from `initialize` on its first start (a
/// reply without `mcp_servers_applied`: not loaded), and on its second,
/// started with them in a private file, never answers `initialize` (slow
/// MCP servers): claudio is stopped while the private file is on disk.
pub(crate) fn slow_second_start() -> Fake {
    Fake::new(vec![
        Step::expect_as(
            json!({"type":"control_request","request":{"subtype":"initialize"}}),
            "init",
        ),
        Step::WhenArg {
            prefix: "--mcp-config=".into(),
            steps: vec![Step::Hang],
        },
        Step::Emit(
            json!({"type":"control_response","response":{"subtype":"success","request_id":"{{init}}","response":{"commands":[],"models":[]}}}),
        ),
    ])
}

/// The config with a token in an MCP server's `env`.
pub(crate) fn config_with_token(token: &str) -> String {
    json!({"mcpServers": {"s": {"command": "srv", "env": {"TOKEN": token}}}}).to_string()
}

/// The private directories under `base`.
pub(crate) fn private_dirs(base: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(base)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("claudio-"))
        })
        .collect()
}

/// Wait until the fake's second start (the one given a private file) is
/// running; its pid and the private file holding `token`.
pub(crate) fn second_start(fake: &Fake, base: &Path, token: &str) -> (i32, PathBuf) {
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let args: Vec<String> = std::fs::read_to_string(fake.record.path().join("argv.json"))
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default();
        if let [file] = &flag_values(&args, "--mcp-config")[..] {
            let file = PathBuf::from(file);
            assert!(file.starts_with(base), "{}", file.display());
            let text = std::fs::read_to_string(&file).unwrap();
            assert!(text.contains(token), "{text}");
            // the second start's pid (the first start's may still be in
            // the file a moment after argv.json is the second's)
            let pid = fake.pid();
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            if String::from_utf8_lossy(&cmdline).contains("--mcp-config=") {
                return (pid, file);
            }
        }
        assert!(Instant::now() < until, "the second start never came");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// After claudio ended: no private directory, no CLI.
pub(crate) fn nothing_left(base: &Path, cli: i32, what: &str) {
    assert_eq!(private_dirs(base), Vec::<PathBuf>::new(), "{what}");
    assert!(
        gone_within(cli, Duration::from_secs(5)),
        "{what}: the CLI {cli} outlived claudio"
    );
}

/// `ask` stopped by SIGTERM, SIGHUP or Ctrl-C while the CLI has not yet
/// answered `initialize`: the private directory and its token are gone,
/// and so is the CLI. (Before, the signal killed claudio outright and the
/// token stayed on disk.)
#[test]
fn ask_stopped_while_the_cli_starts_leaves_no_private_files() {
    for (sig, code) in [
        (libc::SIGTERM, 143),
        (libc::SIGHUP, 129),
        (libc::SIGINT, 130),
    ] {
        let base = tempfile::tempdir().unwrap();
        let token = secret("ask");
        let fake = slow_second_start();
        let mut c = claudio(&fake);
        c.env("XDG_RUNTIME_DIR", base.path())
            .args(["ask", "--mcp-config", &config_with_token(&token), "q"])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = c.spawn().unwrap();
        let (cli, _file) = second_start(&fake, base.path(), &token);
        signal(&child, sig);
        let st = wait_with_deadline(&mut child, 20);
        assert_eq!(st.code(), Some(code), "signal {sig}");
        nothing_left(base.path(), cli, &format!("ask, signal {sig}"));
    }
}

/// The chat (on a terminal) stopped by SIGTERM or SIGHUP (its window
/// closed) while its session starts: the same.
#[test]
fn chat_stopped_while_the_cli_starts_leaves_no_private_files() {
    for (sig, code) in [(libc::SIGTERM, 143), (libc::SIGHUP, 129)] {
        let base = tempfile::tempdir().unwrap();
        let token = secret("chat");
        let fake = slow_second_start();
        let home = fake.record.path().join("home");
        let mut c = claudio(&fake);
        c.env("XDG_RUNTIME_DIR", base.path())
            .env("XDG_DATA_HOME", &home)
            .env("HOME", &home)
            .args(["--mcp-config", &config_with_token(&token)]);
        let mut t = Term::spawn(c);
        let (cli, _file) = second_start(&fake, base.path(), &token);
        signal(t.child(), sig);
        assert_eq!(t.wait(20).code(), Some(code), "signal {sig}");
        nothing_left(base.path(), cli, &format!("chat, signal {sig}"));
    }
}

/// A private directory whose process is gone (killed outright: it could
/// not remove it) is swept when claudio starts; one of a living process,
/// one not of mode 0700, a link, one of another pid namespace (a
/// container sharing the folder) and a name claudio does not make are
/// left alone.
#[test]
fn private_dirs_of_dead_processes_are_swept_at_start() {
    use std::os::unix::fs::DirBuilderExt;
    let base = tempfile::tempdir().unwrap();
    let dead = {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        child.wait().unwrap();
        child.id()
    };
    let living = std::process::id();
    // the pid namespace claudio shares with this test, as it names them
    let ns = std::os::unix::fs::MetadataExt::ino(&std::fs::metadata("/proc/self/ns/pid").unwrap());
    let mkdir = |name: &str, mode: u32| {
        let p = base.path().join(name);
        std::fs::DirBuilder::new().mode(mode).create(&p).unwrap();
        std::fs::write(p.join("mcp-config-0.json"), "tok-SECRET").unwrap();
        p
    };
    let stale = mkdir(&format!("claudio-{dead}-{ns}-00000000deadbeef"), 0o700);
    let kept = [
        mkdir(&format!("claudio-{living}-{ns}-00000000deadbeef"), 0o700),
        mkdir(&format!("claudio-{dead}-{ns}-00000000feedface"), 0o755),
        mkdir(&format!("claudio-{dead}-{ns}-deadbeef"), 0o700),
        mkdir(&format!("claudio-x{dead}-{ns}-00000000deadbeef"), 0o700),
        mkdir(
            &format!("claudio-{dead}-{}-00000000deadbeef", ns + 1),
            0o700,
        ),
    ];
    let target = mkdir("target", 0o700);
    let link = base
        .path()
        .join(format!("claudio-{dead}-{ns}-0000000000c0ffee"));
    std::os::unix::fs::symlink(&target, &link).unwrap();

    for args in [&["ask", "q"][..], &[]] {
        let fake = match args {
            [] => Fake::after_init(vec![]),
            _ => Fake::after_init(vec![vec![expect_user("q"), result("ok")]]),
        };
        let mut c = claudio(&fake);
        c.env("XDG_RUNTIME_DIR", base.path()).args(args);
        if args.is_empty() {
            // the chat, on a terminal, until its prompt shows
            let home = fake.record.path().join("home");
            c.env("XDG_DATA_HOME", &home).env("HOME", &home);
            let mut t = Term::spawn(c);
            t.wait_for("Ctrl-D exits");
            t.ctrl_d();
            assert_eq!(t.wait(20).code(), Some(0));
        } else {
            let o = run(c, None);
            assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        }
        assert!(!stale.exists(), "{} was not swept", stale.display());
        for p in &kept {
            assert!(p.join("mcp-config-0.json").exists(), "{}", p.display());
        }
        assert!(std::fs::symlink_metadata(&link).is_ok());
        assert!(target.join("mcp-config-0.json").exists());
        std::fs::create_dir(&stale).unwrap();
        std::fs::set_permissions(&stale, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
}

/// The real CLI, with the servers in a private file (it did not take them
/// from `initialize`), slow to start the second time (a wrapper waits
/// before it runs it): `ask` stopped by SIGTERM then leaves neither the
/// file nor the starting CLI.
#[test]
fn real_cli_stopped_while_it_starts_leaves_no_private_files() {
    let w = world!("real_cli_stopped_while_it_starts_leaves_no_private_files");
    let bin = tempfile::tempdir().unwrap();
    let pidfile = bin.path().join("slow.pid");
    let body = format!(
        r#"for a; do shift; [ "$a" = --await-initialize ] || set -- "$@" "$a"; done
case "$*" in *--mcp-config=*) echo $$ > '{}'; sleep 60;; esac"#,
        pidfile.display()
    );
    let cli = wrapper(bin.path(), &w.cli, &body);
    let base = tempfile::tempdir().unwrap();
    let (env_token, header_token) = (secret("real-env"), secret("real-header"));
    let mut c = w.claudio();
    c.env("CLAUDIO_CLI", &cli)
        .env("XDG_RUNTIME_DIR", base.path())
        .args([
            "ask",
            "--mcp-config",
            &config(&env_token, &header_token).to_string(),
            "hi",
        ])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = c.spawn().unwrap();
    let until = Instant::now() + Duration::from_secs(60);
    let slow: i32 = loop {
        if let Some(pid) = std::fs::read_to_string(&pidfile)
            .ok()
            .and_then(|t| t.trim().parse().ok())
        {
            break pid;
        }
        assert!(Instant::now() < until, "the second start never came");
        std::thread::sleep(Duration::from_millis(20));
    };
    let dirs = private_dirs(base.path());
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    let held = walk(&dirs[0])
        .iter()
        .any(|f| std::fs::read_to_string(f).is_ok_and(|t| t.contains(&env_token)));
    assert!(held, "the private file holds the token");
    signal(&child, libc::SIGTERM);
    assert_eq!(wait_with_deadline(&mut child, 30).code(), Some(143));
    nothing_left(base.path(), slow, "the real CLI, SIGTERM");
}
