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
