//! Running the real Claude Code CLI against the scripted Messages API.

use claudio::Options;
pub use mock_api::{MockApi, RecordedRequest, Reply};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The pinned CLI (`CLAUDIO_TEST_REAL_CLI`, set by `scripts/test`). Missing:
/// a loud skip locally, a failure in CI.
pub fn real_cli(test: &str) -> Option<PathBuf> {
    match std::env::var_os("CLAUDIO_TEST_REAL_CLI") {
        Some(p) if Path::new(&p).exists() => Some(PathBuf::from(p)),
        _ if std::env::var("CI").as_deref() == Ok("true") => {
            panic!("CLAUDIO_TEST_REAL_CLI is not set: CI must run the real-CLI tests (use scripts/test)")
        }
        _ => {
            eprintln!("SKIPPED {test}: no real Claude Code CLI (run scripts/test to install it)");
            None
        }
    }
}

/// A throwaway world for one real CLI: a HOME, a working directory, and the
/// scripted API.
pub struct World {
    pub cli: PathBuf,
    pub home: tempfile::TempDir,
    pub work: tempfile::TempDir,
    pub api: MockApi,
}

pub const API_KEY: &str = "sk-ant-test-0000-SECRET-never-print";

impl World {
    pub fn new(cli: PathBuf) -> World {
        let w = World::untrusted(cli);
        // the working folder trusted, as the claude TUI records it (the
        // trust question has tests of its own: `World::untrusted`)
        let work = std::fs::canonicalize(w.work.path()).unwrap();
        std::fs::create_dir_all(w.home.path().join(".claude")).unwrap();
        let state = serde_json::json!({
            "projects": {work.to_str().unwrap(): {"hasTrustDialogAccepted": true}}
        });
        std::fs::write(w.state_file(), state.to_string()).unwrap();
        w
    }

    /// A world whose working folder was never trusted.
    pub fn untrusted(cli: PathBuf) -> World {
        World {
            cli,
            home: tempfile::tempdir().unwrap(),
            work: tempfile::tempdir().unwrap(),
            api: MockApi::start(),
        }
    }

    /// The CLI's state file, where trust is recorded.
    pub fn state_file(&self) -> PathBuf {
        self.home.path().join(".claude/.claude.json")
    }

    /// The environment the CLI needs (protocol.md §1).
    pub fn env(&self) -> Vec<(String, String)> {
        let home = self.home.path().display().to_string();
        vec![
            ("ANTHROPIC_BASE_URL".into(), self.api.base_url()),
            ("ANTHROPIC_API_KEY".into(), API_KEY.into()),
            (
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC".into(),
                "1".into(),
            ),
            ("DISABLE_AUTOUPDATER".into(), "1".into()),
            ("HOME".into(), home.clone()),
            ("CLAUDE_CONFIG_DIR".into(), format!("{home}/.claude")),
        ]
    }

    pub fn options(&self) -> Options {
        let mut o = Options::default()
            .cli_path(&self.cli)
            .cwd(self.work.path())
            .init_timeout(Duration::from_secs(60))
            .control_timeout(Duration::from_secs(60));
        for (k, v) in self.env() {
            o = o.env(k, v);
        }
        o
    }

    /// The `claudio` binary set up for this world.
    pub fn claudio(&self) -> std::process::Command {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_claudio"));
        c.env("CLAUDIO_CLI", &self.cli)
            .current_dir(self.work.path())
            .env_remove("CLAUDIO_CONFIG")
            .env_remove("CLAUDIO_MODEL")
            .env_remove("CLAUDIO_PERMISSION_MODE")
            .env("XDG_CONFIG_HOME", self.home.path().join(".config"))
            .env("CLAUDIO_ARCHIVE_DIR", self.home.path().join("archive"))
            // a chat offers its requests to a deck: never the developer's
            .env("XDG_RUNTIME_DIR", self.home.path().join("run"))
            .env("CLAUDIO_TEST_TTY", "/nonexistent/tty");
        for (k, v) in self.env() {
            c.env(k, v);
        }
        c
    }

    pub fn main_requests(&self) -> Vec<RecordedRequest> {
        self.api.main_requests()
    }
}

/// A world for this test, or a loud skip (see [`real_cli`]).
macro_rules! world {
    ($name:expr) => {
        match $crate::common::real::real_cli($name) {
            Some(cli) => $crate::common::real::World::new(cli),
            None => return,
        }
    };
}
pub(crate) use world;

/// The longest any single turn may take here: a guard against a stuck
/// turn, not a time (a real turn takes ~50 ms; one of a dozen tool calls
/// on a loaded machine, where node starts slowly, took over 30 s).
pub const TURN_LIMIT: Duration = Duration::from_secs(120);

/// One turn's messages, through its `result` (bounded by [`TURN_LIMIT`]).
pub async fn turn(client: &claudio::Client) -> Vec<claudio::Message> {
    use claudio::StreamExt;
    let read = async {
        let mut out = Vec::new();
        let mut s = std::pin::pin!(client.receive_response());
        while let Some(m) = s.next().await {
            out.push(m.expect("message"));
        }
        out
    };
    tokio::time::timeout(TURN_LIMIT, read)
        .await
        .unwrap_or_else(|_| panic!("no result within {TURN_LIMIT:?}"))
}
