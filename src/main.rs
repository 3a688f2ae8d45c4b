//! The `claudio` command. Everything lives in `cli/`; this only runs it.
//!
//! The program starts at the C runtime's `main` (`#![no_main]`), not at
//! std's start: that reads `/proc/self/maps` for the main thread's stack
//! guard and maps a signal stack for it, a twentieth of a status line's
//! time (`claudio statusline` is a new process after every message of a
//! Claude Code session). What of it the program needs is done in start.rs: the
//! standard streams open, `SIGPIPE` ignored (a write to a closed pipe
//! fails rather than kills), a panic's exit status, the output flushed at
//! the exit, and the main thread's name in a panic's message (std's start
//! names it: without it a panic said `thread '<unnamed>'`). A stack
//! overflow of the main thread is then a plain `SIGSEGV`, without std's
//! message. (The unit tests' build keeps the test harness's own start.)
#![cfg_attr(not(test), no_main)]

mod cli;
mod start;

#[cfg_attr(not(test), unsafe(no_mangle))]
#[cfg_attr(test, allow(dead_code))]
extern "C" fn main(
    _argc: std::ffi::c_int,
    _argv: *const *const std::ffi::c_char,
) -> std::ffi::c_int {
    start::run(cli::app::main)
}
