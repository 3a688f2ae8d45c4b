//! The `claudio` command. Everything lives in `cli/`; this only runs it.

mod cli;

fn main() {
    // A panic (its message already printed) exits 101, as an uncaught
    // one does; either way nothing of the CLI's outlives this process.
    let code = std::panic::catch_unwind(cli::app::main).unwrap_or(101);
    claudio::transport::abandon();
    std::process::exit(code);
}
