//! The `claudio` command. Everything lives in `cli/`; this only runs it.
//!
//! The program starts at the C runtime's `main` (`#![no_main]`), not at
//! std's start: that reads `/proc/self/maps` for the main thread's stack
//! guard and maps a signal stack for it, a twentieth of a status line's
//! time (`claudio statusline` is a new process after every message of a
//! Claude Code session). What of it the program needs is done here: the
//! standard streams open, `SIGPIPE` ignored (a write to a closed pipe
//! fails rather than kills), a panic's exit status, the output flushed at
//! the exit. A stack overflow of the main thread is then a plain `SIGSEGV`,
//! without std's message. (The unit tests' build keeps the test harness's
//! own start.)
#![cfg_attr(not(test), no_main)]

mod cli;

#[cfg_attr(not(test), unsafe(no_mangle))]
#[cfg_attr(test, allow(dead_code))]
extern "C" fn main(
    _argc: std::ffi::c_int,
    _argv: *const *const std::ffi::c_char,
) -> std::ffi::c_int {
    #[cfg(unix)]
    start();
    // A panic (its message already printed) exits 101, as an uncaught
    // one does; either way nothing of the CLI's outlives this process.
    let code = std::panic::catch_unwind(cli::app::main).unwrap_or(101);
    claudio::transport::abandon();
    // flushes stdout, as std's end does
    std::process::exit(code);
}

/// `pow` of the C maths library, in Rust: its only callers (tokio's
/// scheduler statistics, indicatif's rate estimate, neither shown) would
/// otherwise load `libm.so` at every start, one more library for the
/// loader to find, map and relocate for each status line. With this
/// defined the program needs nothing of it, and the link leaves it out
/// (`--as-needed`; tests/it/linking.rs checks it). The program's own code
/// calls no maths function of the library.
#[cfg(all(target_os = "linux", target_env = "gnu", not(test)))]
#[unsafe(no_mangle)]
extern "C" fn pow(x: f64, y: f64) -> f64 {
    libm::pow(x, y)
}

/// What std's start does that the program relies on.
#[cfg(unix)]
fn start() {
    // a standard stream that is closed is opened on /dev/null, so that no
    // file opened later takes its number (and its output)
    let mut fds = [0, 1, 2].map(|fd| libc::pollfd {
        fd,
        events: 0,
        revents: 0,
    });
    // SAFETY: `fds` is a valid array of three pollfds for the call's length
    let polled = unsafe { libc::poll(fds.as_mut_ptr(), 3, 0) };
    if polled > 0 {
        for p in fds.iter().filter(|p| p.revents & libc::POLLNVAL != 0) {
            // SAFETY: a constant C string; the descriptor returned is
            // the lowest free one, the closed stream's
            let fd = unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR) };
            if fd != p.fd {
                std::process::abort();
            }
        }
    }
    // SAFETY: setting a signal's disposition to ignore, before any thread
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
}
