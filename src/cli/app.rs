//! Parse arguments, run the command, map the outcome to an exit code.

use super::args::{Cli, Command, SessionArgs};
use super::exit::{self, Exit};
use super::sanitize::Sanitizer;
use clap::Parser;
use std::io::IsTerminal;

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
    let piped = !std::io::stdin().is_terminal();
    let outcome = match cli.command {
        // Not a terminal on stdin: behave as `ask` with stdin as the prompt.
        None if piped => runtime.block_on(super::ask::run(
            &cli.session,
            super::args::AskArgs {
                prompt: Vec::new(),
                output_format: super::args::OutputFormat::Text,
            },
        )),
        None => super::chat::repl::run(
            &runtime,
            &cli.session,
            super::chat::repl::ChatSettings {
                show_thinking: !cli.hide_thinking,
                history_size: 10_000,
            },
        ),
        Some(command) => runtime.block_on(run(command, cli.session)),
    };
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

async fn run(command: Command, session: SessionArgs) -> anyhow::Result<Exit> {
    match command {
        Command::Ask(args) => super::ask::run(&session, args).await,
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
