//! Finding the CLI, and how its process ended. (Starting it, framing its
//! output and keeping its stderr are the client's business.)

mod discover;
// the framing and the tail's size reach fuzzing, benchmarks and tests
// through `claudio::__private`
pub(crate) mod framing;
mod private;
mod process;
pub(crate) mod stderr;

pub use discover::find_cli;
pub(crate) use framing::{Line, LineReader};
pub(crate) use private::PrivateDir;
pub use process::ExitInfo;
pub(crate) use process::{spawn, SpawnSpec, Spawned, Supervisor, STDERR_DRAIN};
pub use stderr::StderrCallback;

/// Remove the private directories (settings, MCP servers: `env` and
/// `headers` hold tokens) that processes now gone left behind: a process
/// killed outright cannot remove its own. Only directories named as
/// claudio names them, owned by this user, of mode 0700, not links, whose
/// process is gone, are touched. Returns those removed. Making the first
/// such directory of a process sweeps too; a program calls this at its
/// start to sweep even when it makes none.
pub fn sweep_private_dirs() -> Vec<std::path::PathBuf> {
    private::sweep()
}

/// For a program about to end without running destructors
/// (`std::process::exit`, from a signal watcher say): kill every CLI this
/// process started that still runs, with its process group (the MCP
/// servers it started), and remove every private directory it made. A
/// CLI started after this is killed at once, and no private directory is
/// made: the clients still connecting fail.
///
/// A [`Client`](crate::Client) closed first ends gracefully (its
/// transcript complete); this is for the rest.
pub fn abandon() {
    process::kill_all();
    private::remove_all();
}
