//! Parse arguments, run the command, map the outcome to an exit code.

use super::args::{Cli, Command};
use super::exit::{self, Exit};
use super::sanitize::Sanitizer;
use clap::Parser;

pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() {
                Exit::Usage.code()
            } else {
                0
            };
            let _ = e.print();
            return code;
        }
    };
    if cli.session.debug {
        init_debug_log();
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("claudio: failed to start the async runtime: {e}");
            return Exit::Failure.code();
        }
    };
    let outcome = runtime.block_on(run(cli));
    // Don't wait for blocking tasks (a permission prompt reading the terminal).
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    match outcome {
        Ok(exit) => exit.code(),
        Err(e) => {
            if is_broken_pipe(&e) {
                return 0;
            }
            eprintln!("claudio: {}", Sanitizer::clean(&format!("{e:#}")));
            exit::for_error(&e).code()
        }
    }
}

async fn run(cli: Cli) -> anyhow::Result<Exit> {
    match cli.command {
        Some(Command::Ask(args)) => super::ask::run(&cli.session, args).await,
        None => {
            eprintln!("claudio: the interactive chat is not built yet; use `claudio ask \"...\"`");
            Ok(Exit::Usage)
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

fn init_debug_log() {
    // claudio logs decisions, pids and sizes; it never logs environment
    // values or message contents, so no secret reaches this output.
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(tracing::Level::DEBUG)
        .with_target(false)
        .try_init();
}
