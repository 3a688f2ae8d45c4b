//! The `claudio` program, in rooms. Each command has one (`commands/`);
//! what more than one command shares lies below them: the requests from
//! the model (`requests/`), a turn's meaning (`turn/`), the program's
//! plumbing (`common/`) and, lowest, the terminal tools (`term/`). A room
//! imports only the library and the rooms below it.

pub mod app;
pub mod args;
pub mod commands;
pub mod common;
pub mod requests;
pub mod term;
pub mod turn;
// the terminal sanitizer is the library's (`claudio::sanitize`)
pub use claudio::sanitize;
