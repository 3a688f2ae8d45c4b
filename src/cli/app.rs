//! Parse arguments, run the command, map the outcome to an exit code.

use super::args::{AskArgs, Cli, Command, ConfigAction, OutputFormat, SessionFlags};
use super::config::Config;
use super::exit::{self, Exit};
use super::sanitize::Sanitizer;
use super::sessions::{SessionsAction, SessionsCommand, SessionsOutcome};
use clap::{CommandFactory, Parser};
use std::io::IsTerminal;

pub fn main() -> i32 {
    let mut cli = match Cli::try_parse() {
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
    // Commands that need no config and no runtime.
    match &cli.command {
        Some(Command::Completions { shell }) => {
            print_completions(*shell, &mut std::io::stdout());
            return 0;
        }
        Some(Command::Man) => {
            return match print_man(&mut std::io::stdout()) {
                Ok(()) => 0,
                Err(e) => report(&e.into()),
            };
        }
        _ => {}
    }
    let loaded = Config::load();
    if let Some(Command::Doctor) = cli.command {
        if let Ok((c, _)) = &loaded {
            c.apply(&mut cli.session);
        }
        return super::doctor::run(&cli.session, loaded).code();
    }
    let (config, path) = match loaded {
        Ok(c) => c,
        Err(e) => return report(&e),
    };
    if let Some(Command::Config { action }) = &cli.command {
        return config_command(action, &config, path.as_deref()).code();
    }
    config.apply(&mut cli.session);

    // The chat blocks its thread in the line editor between turns, so its
    // session needs worker threads; everything else runs on one thread, which
    // keeps the reader and the writer on the same core (no cross-thread
    // wake-ups or allocator contention per message).
    let resuming = matches!(
        &cli.command,
        Some(Command::Sessions(SessionsCommand {
            action: SessionsAction::Resume(_),
            ..
        }))
    );
    let chat = (cli.command.is_none() || resuming) && std::io::stdin().is_terminal();
    let built = if chat {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
    } else {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    };
    let runtime = match built {
        Ok(r) => r,
        Err(e) => {
            eprintln!("claudio: failed to start the async runtime: {e}");
            return Exit::Failure.code();
        }
    };
    let piped = !std::io::stdin().is_terminal();
    let settings = super::chat::repl::ChatSettings {
        show_thinking: !cli.hide_thinking && config.show_thinking.unwrap_or(true),
        history_size: config.history_size.unwrap_or(10_000),
    };
    // `-r ID` finds the session in any project and runs where it was recorded.
    if let Some(id) = cli.session.resume.clone() {
        if cli.session.cwd.is_none() {
            if let Ok(target) = claudio::store::Store::from_env().and_then(|s| s.resume_target(&id))
            {
                cli.session.resume = Some(target.id);
                cli.session.cwd = Some(target.cwd).filter(|d| d.is_dir());
            }
        }
    }
    let outcome = match cli.command {
        // Not a terminal on stdin: behave as `ask` with stdin as the prompt.
        None if piped => runtime.block_on(super::ask::run(
            &cli.session,
            AskArgs {
                prompt: Vec::new(),
                output_format: OutputFormat::Text,
                json_schema: None,
            },
        )),
        None => super::chat::repl::run(&runtime, &cli.session, settings),
        Some(Command::Sessions(args)) => {
            match runtime.block_on(super::sessions::run(args, cli.session.color_choice())) {
                Ok(SessionsOutcome::Done(exit)) => Ok(exit),
                Ok(SessionsOutcome::Resume { id, cwd }) => {
                    cli.session.resume = Some(id);
                    cli.session.continue_session = false;
                    cli.session.cwd = Some(cwd);
                    if piped {
                        runtime.block_on(super::ask::run(
                            &cli.session,
                            AskArgs {
                                prompt: Vec::new(),
                                output_format: OutputFormat::Text,
                                json_schema: None,
                            },
                        ))
                    } else {
                        super::chat::repl::run(&runtime, &cli.session, settings)
                    }
                }
                Err(e) => Err(e),
            }
        }
        Some(command) => runtime.block_on(run(command, cli.session)),
    };
    // Don't wait for blocking tasks (a permission prompt reading the terminal).
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    match outcome {
        Ok(exit) => exit.code(),
        Err(e) => report(&e),
    }
}

fn report(e: &anyhow::Error) -> i32 {
    if is_broken_pipe(e) {
        return 0;
    }
    // the library does not know the program's flags: say them here
    let hint = match e.downcast_ref::<claudio::Error>() {
        Some(claudio::Error::CliNotFound { .. }) => " with `--cli-path` or `CLAUDIO_CLI`",
        _ => "",
    };
    eprintln!("claudio: {}{hint}", Sanitizer::clean(&format!("{e:#}")));
    exit::for_error(e).code()
}

async fn run(command: Command, session: SessionFlags) -> anyhow::Result<Exit> {
    match command {
        Command::Ask(args) => super::ask::run(&session, args).await,
        Command::Doctor
        | Command::Config { .. }
        | Command::Completions { .. }
        | Command::Man
        | Command::Sessions(_) => {
            unreachable!("handled before the runtime starts")
        }
    }
}

fn config_command(action: &ConfigAction, config: &Config, path: Option<&std::path::Path>) -> Exit {
    match action {
        ConfigAction::Path => match (path, super::config::config_path()) {
            (Some(p), _) => println!("{}", p.display()),
            (None, Some((p, _))) => println!("{} (not present)", p.display()),
            (None, None) => println!("(no config directory on this system)"),
        },
        ConfigAction::Show => {
            if let Some(p) = path {
                println!("# {}", p.display());
            } else {
                println!("# no config file: the defaults are in use");
            }
            match toml::to_string(config) {
                Ok(t) => print!("{t}"),
                Err(e) => {
                    eprintln!("claudio: failed to show the config: {e}");
                    return Exit::Failure;
                }
            }
        }
    }
    Exit::Success
}

/// The completion script for `shell`.
pub fn print_completions(shell: clap_complete::Shell, out: &mut dyn std::io::Write) {
    clap_complete::generate(shell, &mut Cli::command(), "claudio", out);
}

/// The man page, with its subcommands.
pub fn print_man(out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let cmd = Cli::command();
    let man = clap_mangen::Man::new(cmd.clone());
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    man.render_options_section(out)?;
    man.render_subcommands_section(out)?;
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        writeln!(out, ".SH \"CLAUDIO {}\"", sub.get_name().to_uppercase())?;
        if let Some(about) = sub.get_about() {
            writeln!(out, "{}", roff_escape(&about.to_string()))?;
        }
        if let Some(after) = sub.get_after_help() {
            writeln!(out, ".PP\n.nf\n{}\n.fi", roff_escape(&after.to_string()))?;
        }
    }
    man.render_extra_section(out)?;
    man.render_version_section(out)?;
    writeln!(out, ".SH \"EXIT STATUS\"\n.TP\n0\nsuccess\n.TP\n1\nthe run ended with an error result, or the CLI failed (its stderr is shown)\n.TP\n2\nusage error\n.TP\n127\nthe Claude Code CLI was not found or is not executable\n.TP\n130\ninterrupted (Ctrl-C)")?;
    writeln!(out, ".SH ENVIRONMENT\n.TP\nCLAUDIO_CLI\npath of the claude executable\n.TP\nCLAUDIO_MODEL\ndefault model\n.TP\nCLAUDIO_PERMISSION_MODE\ndefault permission mode\n.TP\nCLAUDIO_CONFIG\npath of the config file\n.TP\nCLAUDE_CONFIG_DIR\nClaude Code's folder (transcripts under projects/)\n.TP\nNO_COLOR\nturn colors off")?;
    writeln!(out, ".SH FILES\n.TP\n~/.config/claudio/config.toml\nsettings\n.TP\n~/.local/share/claudio/history\nthe chat's input history\n.TP\n~/.claude/projects/\nClaude Code's transcripts")?;
    Ok(())
}

fn roff_escape(s: &str) -> String {
    s.lines()
        .map(|l| {
            let l = l.replace('\\', "\\\\");
            if l.starts_with('.') || l.starts_with('\'') {
                format!("\\&{l}")
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
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
