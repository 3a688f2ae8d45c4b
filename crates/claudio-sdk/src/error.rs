//! The library's error type.

use std::path::PathBuf;
use std::time::Duration;

/// Everything that can go wrong while talking to the Claude Code CLI.
///
/// Messages are lowercase fragments that read after "failed to ...": callers
/// add their own context.
///
/// Match the variants a program handles itself (the enum is
/// `#[non_exhaustive]`: keep a catch-all arm):
///
/// ```
/// use claudio::{transport::find_cli, Error};
/// use std::path::{Path, PathBuf};
/// match find_cli(Some(Path::new("/nowhere/claude"))) {
///     Err(Error::CliNotFound { searched }) => {
///         assert_eq!(searched, [PathBuf::from("/nowhere/claude")]);
///     }
///     Err(other) => panic!("another error: {other}"),
///     Ok(path) => panic!("found {}", path.display()),
/// }
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The `claude` executable was not found anywhere claudio looked.
    #[error(
        "the Claude Code CLI (`claude`) was not found; looked in: {}. \
         Install it with `npm install -g @anthropic-ai/claude-code`, or give its path",
        .searched.iter().map(|p| shown(p)).collect::<Vec<_>>().join(", ")
    )]
    CliNotFound {
        /// Every place that was checked, in order.
        searched: Vec<PathBuf>,
    },

    /// The CLI named explicitly exists but is not an executable file.
    #[error("the Claude Code CLI at {} is not executable (check its permissions, or that it is a file)", shown(.path))]
    CliNotExecutable {
        /// The file that was named.
        path: PathBuf,
    },

    /// The working directory for the CLI does not exist or is not a directory.
    #[error("the working directory {} does not exist or is not a directory", shown(.path))]
    WorkingDirectory {
        /// The directory asked for.
        path: PathBuf,
    },

    /// The working directory for the CLI is there but cannot be entered
    /// (no permission to search it, or a folder on its way): the CLI
    /// could not start in it. Told before the CLI is started, so a folder
    /// is never blamed on the CLI ([`Error::Spawn`]). The operating
    /// system's reason is the error's `source()`.
    #[error("cannot enter the working directory {}", shown(.path))]
    EnterWorkingDirectory {
        /// The directory asked for.
        path: PathBuf,
        /// The operating system's reason.
        #[source]
        source: std::io::Error,
    },

    /// The CLI could not be started. The operating system's reason is the
    /// error's `source()` (shown by `{:#}` in anyhow, not repeated here).
    #[error("could not start the Claude Code CLI at {}", shown(.path))]
    Spawn {
        /// The executable that failed to start.
        path: PathBuf,
        /// The operating system's reason.
        #[source]
        source: std::io::Error,
    },

    /// The CLI exited (or its output closed) before it was done.
    #[error("the Claude Code CLI exited {}{}", describe_exit(*.code, *.signal), stderr_suffix(.stderr_tail))]
    ProcessExited {
        /// Exit code, when it exited normally.
        code: Option<i32>,
        /// The signal that killed it, if any.
        signal: Option<i32>,
        /// The last lines the CLI wrote on stderr.
        stderr_tail: String,
    },

    /// The CLI could not start the session, and said why: the
    /// `error_during_execution` result it wrote before answering
    /// `initialize`, after which it exited. `result.errors` has the CLI's
    /// words, `result.startup_failure_reason` the reason (CLI 2.1.336 and
    /// later; 2.1.332 writes the result without one).
    ///
    /// ```no_run
    /// # async fn demo() {
    /// use claudio::{protocol::StartupFailureReason, Client, Error, Options};
    /// match Client::connect(Options::default().resume("3f1c2d4e-0000-4000-8000-000000000000")).await {
    ///     Err(Error::StartupFailed { result, .. })
    ///         if result.startup_failure_reason == Some(StartupFailureReason::ResumeTargetNotFound) =>
    ///     {
    ///         println!("no such session: {}", result.errors.join("; "));
    ///     }
    ///     Err(e) => println!("{e}"), // says the CLI's reason in words too
    ///     Ok(_) => {}
    /// }
    /// # }
    /// ```
    #[error("the Claude Code CLI could not start the session{}", startup_words(.result))]
    StartupFailed {
        /// The result the CLI wrote (zeroed; `errors` and the reason kept).
        result: Box<crate::protocol::ResultMessage>,
        /// The CLI's exit code, when it exited normally.
        code: Option<i32>,
        /// The last lines the CLI wrote on stderr.
        stderr_tail: String,
    },

    /// The CLI did not answer `initialize` in time.
    #[error("the Claude Code CLI did not answer `initialize` within {0:?}")]
    InitTimeout(Duration),

    /// A control request got no answer in time.
    #[error("the Claude Code CLI did not answer `{subtype}` within {timeout:?}")]
    ControlTimeout {
        /// The request's subtype (`interrupt`, `set_model`, ...).
        subtype: String,
        /// How long claudio waited.
        timeout: Duration,
    },

    /// The CLI answered a control request with an error.
    #[error("the Claude Code CLI refused `{subtype}`: {message}")]
    Control {
        /// The request's subtype.
        subtype: String,
        /// The CLI's error message.
        message: String,
        /// The CLI's error code, when it sent one (e.g. `unsupported_request`).
        code: Option<String>,
    },

    /// An MCP tool called with [`Client::mcp_call`](crate::Client::mcp_call)
    /// failed: the CLI reached its server, and the tool answered an error
    /// result or the server a JSON-RPC error. `message` is the text the CLI
    /// relays: the error result's text, or the server's error message.
    ///
    /// A CLI that lists the capability `mcp_call_soft_error_result_v1`
    /// (2.1.332 and later) hands a tool's error result back as a result
    /// instead, with [`McpCallResult::is_error`](crate::protocol::McpCallResult::is_error)
    /// set. It still fails this way for a server's JSON-RPC error, and for
    /// an error result it does not hand back whole: one with neither a text
    /// block nor structured content, or over 64 000 characters of JSON.
    ///
    /// When the CLI itself refuses the call, the error is
    /// [`Error::Control`] instead: the server is not connected or is an
    /// in-process one ([`McpServer`](crate::McpServer)), the name is not
    /// `mcp__SERVER__TOOL`, the server needs authentication, a permission
    /// check refused the call, or the connection closed during it. The two
    /// are told apart by the CLI's own wording of its refusals, which
    /// claudio knows for the CLI 2.1.328 to 2.1.332.
    ///
    /// ```no_run
    /// # async fn demo(client: &claudio::Client) -> claudio::Result<()> {
    /// use claudio::Error;
    /// use serde_json::json;
    /// match client.mcp_call("mcp__github__get_issue", json!({"number": 25})).await {
    ///     Ok(r) if r.is_error => println!("the tool failed: {}", r.text()),
    ///     Ok(r) => println!("{}", r.text()),
    ///     Err(Error::McpToolFailed { message, .. }) => println!("the tool failed: {message}"),
    ///     Err(Error::Control { message, .. }) => println!("not called: {message}"),
    ///     Err(other) => return Err(other),
    /// }
    /// # Ok(()) }
    /// ```
    #[error("the MCP tool `{tool}` failed: {message}")]
    McpToolFailed {
        /// The tool, as it was called (`mcp__SERVER__TOOL`).
        tool: String,
        /// Why, as the CLI relays it.
        message: String,
    },

    /// A line on the CLI's stdout exceeded the configured limit.
    #[error("a line from the Claude Code CLI is longer than the limit of {limit} bytes (raise it with `Options::max_line_bytes`)")]
    LineTooLong {
        /// The configured limit in bytes.
        limit: usize,
    },

    /// No message arrived for longer than the inactivity timeout.
    #[error("no message from the Claude Code CLI for {0:?}")]
    InactivityTimeout(Duration),

    /// The CLI sent something that breaks the protocol.
    #[error("protocol violation: {0}")]
    Protocol(String),

    /// The session is closed; nothing more can be sent or received.
    #[error("the session is closed")]
    Closed,

    /// Reading from or writing to the CLI failed (the reason is `source()`).
    #[error("i/o with the Claude Code CLI failed")]
    Io(#[from] std::io::Error),

    /// A value could not be encoded as JSON (the reason is `source()`).
    #[error("could not encode a message as JSON")]
    Json(#[from] serde_json::Error),
}

impl Error {
    /// The CLI's stderr tail carried by this error, if any.
    ///
    /// ```
    /// use claudio::Error;
    /// let e = Error::ProcessExited {
    ///     code: Some(1),
    ///     signal: None,
    ///     stderr_tail: "Invalid API key\n".into(),
    /// };
    /// assert_eq!(e.stderr_tail(), Some("Invalid API key\n"));
    /// assert_eq!(Error::Closed.stderr_tail(), None);
    /// ```
    pub fn stderr_tail(&self) -> Option<&str> {
        match self {
            Error::ProcessExited { stderr_tail, .. } | Error::StartupFailed { stderr_tail, .. }
                if !stderr_tail.is_empty() =>
            {
                Some(stderr_tail)
            }
            _ => None,
        }
    }

    /// The result the CLI wrote when it could not start the session
    /// ([`Error::StartupFailed`]), with its `errors` and reason.
    pub fn startup_failure(&self) -> Option<&crate::protocol::ResultMessage> {
        match self {
            Error::StartupFailed { result, .. } => Some(result),
            _ => None,
        }
    }

    /// Whether the CLI could not start the session because the session to
    /// resume does not exist: its reason `resume_target_not_found` (CLI
    /// 2.1.336 and later), or the words the CLIs before it write for
    /// `--resume` of an unknown id.
    ///
    /// ```
    /// use claudio::Error;
    /// let result = serde_json::from_value(serde_json::json!({
    ///     "subtype": "error_during_execution", "is_error": true,
    ///     "errors": ["No conversation found with session ID: 3f1c2d4e-0000-4000-8000-00000000a41e"]
    /// })).unwrap();
    /// let e = Error::StartupFailed { result: Box::new(result), code: Some(1), stderr_tail: String::new() };
    /// assert!(e.is_unknown_session());
    /// assert!(!Error::Closed.is_unknown_session());
    /// ```
    pub fn is_unknown_session(&self) -> bool {
        self.startup_failure().is_some_and(unknown_session)
    }
}

/// The CLI's answer to `--resume` of an unknown id: its reason, or (before
/// 2.1.336, which gives none) its words.
fn unknown_session(r: &crate::protocol::ResultMessage) -> bool {
    use crate::protocol::StartupFailureReason as R;
    match &r.startup_failure_reason {
        Some(reason) => *reason == R::ResumeTargetNotFound,
        None => r
            .errors
            .first()
            .is_some_and(|e| e.starts_with("No conversation found with session ID")),
    }
}

/// `: <reason in words>: <the CLI's errors>` for a startup failure. "No such
/// session" comes from the CLI's answer: its reason (2.1.336), or the words
/// 2.1.328 to 2.1.332 write for `--resume` of an unknown id.
fn startup_words(r: &crate::protocol::ResultMessage) -> String {
    let errors = r.errors.join("; ");
    let words = match &r.startup_failure_reason {
        Some(reason) => reason.words().map(str::to_owned),
        None if unknown_session(r) => Some("no such session".to_owned()),
        None => None,
    };
    let mut out = String::new();
    if let Some(w) = words {
        out.push_str(": ");
        out.push_str(&w);
    } else if let Some(reason) = &r.startup_failure_reason {
        out.push_str(": ");
        out.push_str(reason.as_str());
    }
    if !errors.is_empty() {
        out.push_str(" (");
        out.push_str(&errors);
        out.push(')');
    } else if let Some(t) = r.result.as_deref().filter(|t| !t.is_empty()) {
        out.push_str(" (");
        out.push_str(t);
        out.push(')');
    }
    out
}

fn describe_exit(code: Option<i32>, signal: Option<i32>) -> String {
    match (code, signal) {
        (Some(c), _) => format!("with code {c}"),
        (None, Some(s)) => format!("after signal {s}"),
        (None, None) => "unexpectedly".to_string(),
    }
}

fn stderr_suffix(tail: &str) -> String {
    let tail = tail.trim_end();
    if tail.is_empty() {
        String::new()
    } else {
        format!("; its stderr ended with:\n{tail}")
    }
}

/// Shorthand for `Result<T, claudio::Error>`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The error a handler (permission, hook, MCP tool) may return. Its text is
/// sent back to the CLI as the control response's error.
///
/// Any error converts into it with `?`:
///
/// ```
/// use claudio::{HandlerError, ToolOutput};
/// async fn read_notes(path: String) -> Result<ToolOutput, HandlerError> {
///     let text = std::fs::read_to_string(path)?;
///     Ok(ToolOutput::text(text))
/// }
/// ```
pub type HandlerError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// A path as an error says it, whole and on one line: an escape sequence
/// in it shown as text (`\e]0;x\a`), a newline as `\n`, so that a program
/// that filters the sequences out of the errors it prints (as it must for
/// other text) still names the real file or folder.
pub(crate) fn shown(path: &std::path::Path) -> String {
    crate::sanitize::Sanitizer::visible_line(&path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn process_exited_shows_code_and_tail() {
        let e = Error::ProcessExited {
            code: Some(2),
            signal: None,
            stderr_tail: "boom\n".into(),
        };
        let s = e.to_string();
        assert!(s.contains("with code 2"), "{s}");
        assert!(s.ends_with("boom"), "{s}");
        assert_eq!(e.stderr_tail(), Some("boom\n"));
    }

    #[test]
    fn a_startup_failure_says_the_reason_in_words_and_the_clis_errors() {
        let r = |v: serde_json::Value| -> Box<crate::protocol::ResultMessage> {
            Box::new(serde_json::from_value(v).unwrap())
        };
        // 2.1.336: the reason
        let e = Error::StartupFailed {
            result: r(
                serde_json::json!({"subtype":"error_during_execution","is_error":true,
                "errors":["No conversation found with session ID: abc"],
                "startup_failure_reason":"resume_target_not_found"}),
            ),
            code: Some(1),
            stderr_tail: String::new(),
        };
        assert_eq!(
            e.to_string(),
            "the Claude Code CLI could not start the session: no such session (No conversation found with session ID: abc)"
        );
        assert!(e.startup_failure().is_some());
        // 2.1.332: no reason, the same words
        let e = Error::StartupFailed {
            result: r(
                serde_json::json!({"subtype":"error_during_execution","is_error":true,
                "errors":["No conversation found with session ID: abc"]}),
            ),
            code: Some(1),
            stderr_tail: "x\n".into(),
        };
        assert!(e.to_string().contains(": no such session ("), "{e}");
        assert_eq!(e.stderr_tail(), Some("x\n"));
        // an unknown reason is named as the CLI spells it
        let e = Error::StartupFailed {
            result: r(
                serde_json::json!({"subtype":"error_during_execution","is_error":true,
                "errors":["went wrong"], "startup_failure_reason":"moon_phase"}),
            ),
            code: Some(1),
            stderr_tail: String::new(),
        };
        assert!(e.to_string().ends_with(": moon_phase (went wrong)"), "{e}");
    }

    #[test]
    fn not_found_lists_places_and_install_hint() {
        let e = Error::CliNotFound {
            searched: vec!["/a/claude".into(), "/b/claude".into()],
        };
        let s = e.to_string();
        assert!(s.contains("/a/claude, /b/claude"), "{s}");
        assert!(
            s.contains("npm install -g @anthropic-ai/claude-code"),
            "{s}"
        );
        // the library names no flag or variable of the program
        assert!(
            !s.contains("--cli-path") && !s.contains("CLAUDIO_CLI"),
            "{s}"
        );
    }

    /// The error and its causes as `{:#}` in anyhow shows them.
    fn chain(e: &(dyn std::error::Error + 'static)) -> String {
        let mut parts = vec![e.to_string()];
        let mut cur = e.source();
        while let Some(c) = cur {
            parts.push(c.to_string());
            cur = c.source();
        }
        parts.join(": ")
    }

    #[test]
    fn no_cause_is_shown_twice() {
        let denied = || std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        let reason = denied().to_string();
        let json = serde_json::from_str::<serde_json::Value>("{").unwrap_err();
        let json_reason = json.to_string();
        let cases: Vec<(Error, String)> = vec![
            (
                Error::Spawn {
                    path: "/x/claude".into(),
                    source: denied(),
                },
                reason.clone(),
            ),
            (Error::Io(denied()), reason.clone()),
            (Error::Json(json), json_reason),
        ];
        for (e, cause) in cases {
            let full = chain(&e);
            assert_eq!(full.matches(&cause).count(), 1, "{full}");
        }
        let e = Error::Spawn {
            path: "/x/claude".into(),
            source: denied(),
        };
        assert_eq!(
            chain(&e),
            format!("could not start the Claude Code CLI at /x/claude: {reason}")
        );
    }

    #[test]
    fn a_failed_mcp_tool_names_the_tool_and_its_words() {
        let e = Error::McpToolFailed {
            tool: "mcp__echo__fail".into(),
            message: "failed: hi".into(),
        };
        assert_eq!(
            e.to_string(),
            "the MCP tool `mcp__echo__fail` failed: failed: hi"
        );
        assert!(std::error::Error::source(&e).is_none());
    }

    #[test]
    fn not_executable_and_missing_directory_say_so() {
        let e = Error::CliNotExecutable {
            path: "/x/claude".into(),
        };
        assert!(e.to_string().contains("/x/claude is not executable"), "{e}");
        let e = Error::WorkingDirectory {
            path: "/no/such/dir".into(),
        };
        assert!(e.to_string().contains("/no/such/dir does not exist"), "{e}");
        let e = Error::EnterWorkingDirectory {
            path: "/locked".into(),
            source: std::io::Error::from(std::io::ErrorKind::PermissionDenied),
        };
        let reason = std::io::Error::from(std::io::ErrorKind::PermissionDenied).to_string();
        assert_eq!(
            chain(&e),
            format!("cannot enter the working directory /locked: {reason}")
        );
    }

    /// A path with a terminal's title sequence and a newline in it: named
    /// whole, on one line, nothing live (a program's filter of its error
    /// output took the sequence out, naming another folder).
    #[test]
    fn a_path_is_named_whole_on_one_line() {
        let path = PathBuf::from("/w/proj\x1b]0;x\x07\nz");
        let said = Error::WorkingDirectory { path: path.clone() }.to_string();
        assert_eq!(
            said,
            "the working directory /w/proj\\e]0;x\\a\\nz does not exist or is not a directory"
        );
        assert_eq!(crate::sanitize::Sanitizer::clean(&said), said);
        for e in [
            Error::CliNotExecutable { path: path.clone() },
            Error::CliNotFound {
                searched: vec![path.clone()],
            },
            Error::EnterWorkingDirectory {
                path: path.clone(),
                source: std::io::Error::from(std::io::ErrorKind::PermissionDenied),
            },
            Error::Spawn {
                path: path.clone(),
                source: std::io::Error::from(std::io::ErrorKind::NotFound),
            },
        ] {
            let said = e.to_string();
            assert!(said.contains("/w/proj\\e]0;x\\a\\nz"), "{said}");
            assert!(!said.contains(['\x1b', '\x07', '\n']), "{said:?}");
        }
    }
}
