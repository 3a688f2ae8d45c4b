//! The `claudio-statusline` program: `claudio statusline` as a program of
//! its own, for the `statusLine` setting of Claude Code, which starts it
//! after every message of a session.
//!
//! Most of a status line's time is the process's start, and most of that
//! grows with the program: the loader writes every page of relocated data
//! (`claudio` holds the regex engine's Unicode tables, the markdown
//! renderer's entity table, every command's code) before the first line of
//! `main`. This program is the same command line code, `cli/`, with the
//! status line its only way in: the link leaves out all that the status
//! line never reaches: a fifth of `claudio`'s size, a tenth of its
//! relocated pages. The line it prints is `claudio statusline`'s, flag for
//! flag (tests/it/statusline.rs compares them).
#![cfg_attr(not(test), no_main)]
// `cli/` is the whole program's; this one reaches only the status line,
// so the rest of it is unused here (and checked where `claudio` uses it)
#![allow(dead_code)]

mod cli;
mod start;

#[cfg_attr(not(test), unsafe(no_mangle))]
#[cfg_attr(test, allow(dead_code))]
extern "C" fn main(
    _argc: std::ffi::c_int,
    _argv: *const *const std::ffi::c_char,
) -> std::ffi::c_int {
    start::run(cli::app::statusline_main)
}
