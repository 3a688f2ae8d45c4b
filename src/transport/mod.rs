//! Starting the CLI and framing its output.

mod discover;
mod framing;
mod process;
mod stderr;

pub use discover::find_cli;
pub use framing::{Line, LineReader};
pub use process::{spawn, ExitInfo, SpawnSpec, Spawned, Supervisor, STDERR_DRAIN};
pub use stderr::{StderrCallback, StderrTail, TAIL_BYTES};
