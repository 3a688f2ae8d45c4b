//! The start both programs share (`claudio`, src/main.rs, and
//! `claudio-statusline`, src/statusline_main.rs): what std's start would do
//! that the programs rely on, their `main` being the C runtime's.

/// Runs a program's `entry` as `main`: the standard streams open,
/// `SIGPIPE` ignored, the main thread named in a panic's message; a panic
/// (its message already printed) exits 101, as an uncaught one does; the
/// output flushed at the exit; either way nothing of the CLI's outlives
/// this process.
pub fn run(entry: fn() -> i32) -> ! {
    #[cfg(unix)]
    start();
    #[cfg(unix)]
    name_the_main_thread();
    let code = std::panic::catch_unwind(entry).unwrap_or(101);
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

/// A panic on the main thread says so as it does when std starts the
/// program (`thread 'main' (1234) panicked at src/x.rs:1:2:`): std's own
/// message names the thread std's start named, and this start names none.
/// The main thread is the one whose id is the process's, so nothing is
/// read or kept at the start; any other thread's panic is std's to tell.
#[cfg(unix)]
fn name_the_main_thread() {
    use std::io::Write;
    use std::sync::atomic::{AtomicBool, Ordering};
    static FIRST: AtomicBool = AtomicBool::new(true);
    let std_s = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let tid = rustix::thread::gettid().as_raw_nonzero().get();
        if u32::try_from(tid).ok() != Some(std::process::id()) {
            return std_s(info);
        }
        let backtrace = match std::env::var_os("RUST_BACKTRACE") {
            Some(v) if v != "0" => {
                let b = std::backtrace::Backtrace::force_capture();
                Some(if v == "full" {
                    format!("{b:#}")
                } else {
                    format!("{b}")
                })
            }
            _ => None,
        };
        let first = FIRST.swap(false, Ordering::Relaxed);
        let text = main_panic_text(info.location(), info.payload(), tid, backtrace, first);
        let _ = std::io::stderr().lock().write_all(text.as_bytes());
    }));
}

/// What a panic on the main thread (`tid`) at `location` with `payload`
/// says, as std's hook says it: the backtrace when one was asked for
/// (`RUST_BACKTRACE`), else, the first time, how to ask for one.
#[cfg(unix)]
fn main_panic_text(
    location: Option<&std::panic::Location<'_>>,
    payload: &(dyn std::any::Any + Send),
    tid: i32,
    backtrace: Option<String>,
    first: bool,
) -> String {
    let message = payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("Box<dyn Any>");
    let at = location.map_or_else(|| "<unknown>".to_owned(), ToString::to_string);
    let mut text = format!("\nthread 'main' ({tid}) panicked at {at}:\n{message}\n");
    match backtrace {
        Some(b) => text.push_str(&format!("stack backtrace:\n{b}")),
        None if first => text.push_str(
            "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n",
        ),
        None => {}
    }
    text
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// The main thread's panic reads as std's, named `main` (it said
    /// `<unnamed>`): the message, where, the note the first time or the
    /// backtrace asked for.
    #[test]
    fn a_panic_on_the_main_thread_names_it() {
        let at = std::panic::Location::caller();
        let boom: Box<dyn std::any::Any + Send> = Box::new(String::from("boom 7"));
        let text = main_panic_text(Some(at), &*boom, 4242, None, true);
        assert_eq!(
            text,
            format!(
                "\nthread 'main' (4242) panicked at {}:{}:{}:\nboom 7\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n",
                at.file(),
                at.line(),
                at.column()
            )
        );
        let plain: Box<dyn std::any::Any + Send> = Box::new("plain");
        let text = main_panic_text(Some(at), &*plain, 1, None, false);
        assert!(text.ends_with(":\nplain\n"), "{text:?}");
        let text = main_panic_text(None, &*plain, 1, Some("0: here\n".into()), true);
        assert!(
            text.ends_with("panicked at <unknown>:\nplain\nstack backtrace:\n0: here\n"),
            "{text:?}"
        );
        let other: Box<dyn std::any::Any + Send> = Box::new(7u8);
        assert!(main_panic_text(None, &*other, 1, None, false).contains("\nBox<dyn Any>\n"));
    }
}
