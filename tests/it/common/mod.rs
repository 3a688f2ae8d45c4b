//! Shared test support: the fake CLI, its typed scripts (`steps`), recordings,
//! process checks, the pseudo-terminal (`term`), the real CLI (`real`).

pub mod real;
pub mod steps;
pub mod term;

pub use steps::*;

use claudio::Options;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The `fake-claude` program (built by cargo as an example of this package).
pub fn fake_cli() -> PathBuf {
    let exe = std::env::current_exe().expect("current exe");
    let mut dir = exe.parent().expect("exe dir").to_path_buf();
    if dir.ends_with("deps") {
        dir.pop();
    }
    let p = dir.join("examples").join("fake-claude");
    assert!(
        p.exists(),
        "{} is missing: build it with `cargo build --examples` (cargo test does)",
        p.display()
    );
    p
}

/// A scenario run by the fake CLI, plus the folder it records into.
pub struct Fake {
    pub record: tempfile::TempDir,
    pub steps: Vec<Step>,
}

impl Fake {
    /// The usual script: answer `initialize`, then play `parts` in order.
    pub fn after_init(parts: Vec<Vec<Step>>) -> Fake {
        Fake::new(steps(std::iter::once(init()).chain(parts).collect()))
    }

    pub fn new(steps: Vec<Step>) -> Fake {
        Fake {
            record: tempfile::tempdir().unwrap(),
            steps,
        }
    }

    /// The scenario, written to a file (big scenarios don't fit in the environment).
    pub fn scenario_file(&self) -> String {
        let p = self.record.path().join("scenario.json");
        let steps = self.steps.iter().map(Step::to_json).collect();
        std::fs::write(&p, Value::Array(steps).to_string()).unwrap();
        p.display().to_string()
    }

    /// Options that run this scenario.
    pub fn options(&self) -> Options {
        Options::default()
            .cli_path(fake_cli())
            .env("FAKE_CLAUDE_SCENARIO", self.scenario_file())
            .env(
                "FAKE_CLAUDE_RECORD",
                self.record.path().display().to_string(),
            )
            .close_grace(Duration::from_secs(30))
            .init_timeout(Duration::from_secs(10))
            .control_timeout(Duration::from_secs(10))
    }

    /// Every line the fake read from its stdin.
    pub fn stdin_lines(&self) -> Vec<Value> {
        let p = self.record.path().join("stdin.jsonl");
        std::fs::read_to_string(p)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or(Value::String(l.into())))
            .collect()
    }

    /// The user turns among [`Fake::stdin_lines`]: the prompts claudio sent.
    pub fn user_lines(&self) -> Vec<Value> {
        self.stdin_lines()
            .into_iter()
            .filter(|l| l["type"] == "user")
            .collect()
    }

    pub fn argv(&self) -> Vec<String> {
        let p = self.record.path().join("argv.json");
        serde_json::from_str(&wait_for_file(&p)).unwrap()
    }

    pub fn env(&self) -> Value {
        let p = self.record.path().join("env.json");
        serde_json::from_str(&wait_for_file(&p)).unwrap()
    }

    pub fn pid(&self) -> i32 {
        wait_for_file(&self.record.path().join("pid"))
            .trim()
            .parse()
            .unwrap()
    }

    pub fn child_pid(&self) -> i32 {
        wait_for_file(&self.record.path().join("child.pid"))
            .trim()
            .parse()
            .unwrap()
    }
}

pub fn wait_for_file(p: &Path) -> String {
    let until = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok(s) = std::fs::read_to_string(p) {
            if !s.trim().is_empty() {
                return s;
            }
        }
        assert!(Instant::now() < until, "{} never appeared", p.display());
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Whether a process is alive (a zombie counts as dead).
pub fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(s) => {
            // state is the field after the parenthesised command name
            let state = s.rsplit(')').next().unwrap_or("").trim_start();
            !state.starts_with('Z') && !state.starts_with('X')
        }
        Err(_) => false,
    }
}

/// The least time a wait for a process (its exit, its end) is given: the
/// waits guard against a hang, and are never a time it may take (on a
/// loaded machine a process can take seconds to be scheduled).
pub const GUARD: Duration = Duration::from_secs(60);

/// Wait until `pid` is gone; false if it still lives after `within` (at
/// least [`GUARD`]).
pub fn gone_within(pid: i32, within: Duration) -> bool {
    let until = Instant::now() + within.max(GUARD);
    while Instant::now() < until {
        if !alive(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    !alive(pid)
}

// ---- running the claudio binary -------------------------------------------

/// The `claudio` binary with the fake CLI and its scenario in the environment.
pub fn claudio(fake: &Fake) -> std::process::Command {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_claudio"));
    c.env("CLAUDIO_CLI", fake_cli())
        .env("FAKE_CLAUDE_SCENARIO", fake.scenario_file())
        .env("FAKE_CLAUDE_RECORD", fake.record.path())
        .env_remove("NO_COLOR")
        .env_remove("CLAUDIO_MODEL")
        .env_remove("ANTHROPIC_MODEL")
        .env_remove("CLAUDIO_PERMISSION_MODE")
        .env_remove("CLAUDIO_CONFIG")
        // the developer's own config file and archive must not change the tests
        .env("XDG_CONFIG_HOME", fake.record.path())
        // nor their home (the CLI's settings a chat reads, its status line
        // command, the history, the usage cache): the test's own, which a
        // test may set again
        .env("HOME", fake.record.path().join("home"))
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("XDG_DATA_HOME")
        .env_remove("XDG_CACHE_HOME")
        .env_remove("CLAUDIO_CACHE_DIR")
        .env("CLAUDIO_ARCHIVE_DIR", fake.record.path().join("archive"))
        // nor a deck the developer runs (a chat offers it its requests)
        .env("XDG_RUNTIME_DIR", fake.record.path().join("run"))
        .env("CLAUDIO_TEST_TTY", "/nonexistent/tty")
        // every folder trusted (the CLI's own switch): the trust question
        // has tests of its own (trust_workspace), which take this away
        .env("CLAUDE_CODE_SANDBOXED", "1")
        .env_remove("CLAUDE_CODE_IGNORE_PERSISTED_TRUST");
    c
}

/// `program` over the store `dir` as the tests run it: `dir` its Claude
/// folder (`CLAUDE_CONFIG_DIR`), claudio's config, cache and archive
/// folders inside it (`xdg`, `.claudio-cache`, `.claudio-archive`), UTC,
/// no colours, no config file named, no terminal type.
pub fn over_store(program: &str, dir: &Path) -> std::process::Command {
    let mut c = std::process::Command::new(program);
    c.env("CLAUDE_CONFIG_DIR", dir)
        .env("XDG_CONFIG_HOME", dir.join("xdg"))
        .env("CLAUDIO_CACHE_DIR", dir.join(".claudio-cache"))
        .env("CLAUDIO_ARCHIVE_DIR", dir.join(".claudio-archive"))
        .env("TZ", "UTC")
        .env("NO_COLOR", "1")
        .env_remove("CLAUDIO_CONFIG")
        .env_remove("TERM");
    c
}

/// `claudio sessions --config-dir DIR ARGS` over the test store `dir`, its
/// cache and archive folders inside it, UTC, no colours: its stdout, once
/// it exits 0.
pub fn sessions_in(dir: &Path, args: &[&str]) -> Vec<u8> {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_claudio"))
        .args(["sessions", "--config-dir"])
        .arg(dir)
        .args(args)
        .env("NO_COLOR", "1")
        .env("TZ", "UTC")
        .env("CLAUDIO_CACHE_DIR", dir.join(".claudio-cache"))
        .env("CLAUDIO_ARCHIVE_DIR", dir.join(".claudio-archive"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    o.stdout
}

/// Run `cmd` to its end, feeding it `stdin` (or nothing), capturing both
/// outputs.
pub fn run(mut cmd: std::process::Command, stdin: Option<&[u8]>) -> std::process::Output {
    use std::process::Stdio;
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    if let Some(data) = stdin {
        let mut s = child.stdin.take().unwrap();
        let data = data.to_vec();
        std::thread::spawn(move || {
            use std::io::Write;
            let _ = s.write_all(&data);
        });
    }
    child.wait_with_output().unwrap()
}

pub fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Wait for a child with a deadline of `secs` (at least [`GUARD`]); kill
/// it and panic if it hangs.
pub fn wait_with_deadline(child: &mut std::process::Child, secs: u64) -> std::process::ExitStatus {
    let secs = secs.max(GUARD.as_secs());
    let until = Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(st) = child.try_wait().unwrap() {
            return st;
        }
        if Instant::now() > until {
            let _ = child.kill();
            panic!("claudio did not exit within {secs} s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The first `n` bytes the child writes on its (piped) stdout.
pub fn first_bytes(child: &mut std::process::Child, n: usize) -> Vec<u8> {
    use std::io::Read;
    let mut buf = vec![0u8; n];
    child
        .stdout
        .as_mut()
        .expect("stdout is piped")
        .read_exact(&mut buf)
        .unwrap();
    buf
}

/// All of a child's piped stdout or stderr, as text.
pub fn read_all(pipe: Option<impl std::io::Read>) -> String {
    let mut s = String::new();
    pipe.expect("the stream is piped")
        .read_to_string(&mut s)
        .unwrap();
    s
}

/// Send `sig` to a child of this test.
pub fn signal(child: &std::process::Child, sig: i32) {
    // SAFETY: a plain kill(2) of our own child.
    unsafe {
        libc::kill(child.id() as i32, sig);
    }
}

/// Copy a folder tree (fixture stores into a test's own folder).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let t = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &t);
        } else {
            std::fs::copy(e.path(), &t).unwrap();
        }
    }
}

/// Every file under `dir`, depth first (none when it does not exist).
pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// A git repository at `repo` (one empty commit) with a linked worktree
/// at `wt` on branch `wt`.
pub fn git_repo_with_worktree(repo: &std::path::Path, wt: &std::path::Path) {
    std::fs::create_dir_all(repo).unwrap();
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .current_dir(repo)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
    };
    git(&["init", "-q", "-b", "main"]);
    git(&["commit", "-q", "--allow-empty", "-m", "init"]);
    git(&["worktree", "add", "-q", "-b", "wt", wt.to_str().unwrap()]);
}
