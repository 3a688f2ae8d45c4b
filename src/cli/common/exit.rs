//! Exit codes, as documented in `--help`, the man page and the README.

/// An error and its causes, on one line: `cannot read x.png: a FIFO, not a
/// regular file`.
pub fn with_causes(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

/// A store error with what to do about it, said after it
/// (`…; \`claudio sessions resume 3f2a\` restores it`). The error keeps
/// its type: `downcast_ref::<Hinted>()` reaches it.
#[derive(Debug)]
pub struct Hinted {
    pub error: claudio::store::StoreError,
    pub hint: String,
}

impl std::fmt::Display for Hinted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}; {}", with_causes(&self.error), self.hint)
    }
}

// no `source`: the text above says the error and its causes once
impl std::error::Error for Hinted {}

/// How claudio ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// 0: it worked.
    Success,
    /// 1: the run ended with an error result, or the CLI failed.
    Failure,
    /// 2: bad usage.
    Usage,
    /// 127: the Claude Code CLI was not found (or is not executable).
    CliNotFound,
    /// 130: interrupted with Ctrl-C.
    Interrupted,
    /// 128 + N: stopped by signal N (SIGTERM, SIGHUP).
    Signal(i32),
}

impl Exit {
    pub fn code(self) -> i32 {
        match self {
            Exit::Success => 0,
            Exit::Failure => 1,
            Exit::Usage => 2,
            Exit::CliNotFound => 127,
            Exit::Interrupted => 130,
            Exit::Signal(n) => 128 + n,
        }
    }
}

/// A mistake in how claudio was called (a flag's value, a pattern): the
/// program ends with [`Exit::Usage`], as clap's own errors do.
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// `Err(UsageError)` with a formatted message.
macro_rules! usage_error {
    ($($arg:tt)*) => {
        anyhow::Error::new($crate::cli::common::exit::UsageError(format!($($arg)*)))
    };
}
pub(crate) use usage_error;

/// The exit code for an error that ended the program, and the one place
/// that decides a usage error (2): clap's own (an unknown flag, a bad or
/// missing value, a flag where it does not apply), a [`UsageError`] (a
/// flag's value or a pattern claudio checks itself, a relative path from
/// the environment, no terminal to confirm on), a session id or title
/// the store refuses (`../x`, a blank title), a relative `CLAUDE_CONFIG_DIR`
/// the store refuses, and a session to resume that
/// the CLI says does not exist. `--help` and `--version`
/// come as clap errors too: 0.
pub fn for_error(e: &anyhow::Error) -> Exit {
    if let Some(c) = e.downcast_ref::<clap::Error>() {
        return if c.use_stderr() {
            Exit::Usage
        } else {
            Exit::Success
        };
    }
    let usage = |c: &(dyn std::error::Error + 'static)| {
        c.is::<UsageError>()
            || matches!(
                c.downcast_ref::<claudio::store::StoreError>(),
                Some(
                    claudio::store::StoreError::InvalidId(_)
                        | claudio::store::StoreError::Empty(_)
                        | claudio::store::StoreError::RelativeConfigDir(_)
                )
            )
    };
    if e.chain().any(usage) {
        return Exit::Usage;
    }
    match e.downcast_ref::<claudio::Error>() {
        Some(claudio::Error::CliNotFound { .. } | claudio::Error::CliNotExecutable { .. }) => {
            Exit::CliNotFound
        }
        // `-r` of a session that does not exist, as the CLI answered it: a
        // usage error, as when claudio's own look-up finds none
        Some(e) if e.is_unknown_session() => Exit::Usage,
        _ => Exit::Failure,
    }
}
