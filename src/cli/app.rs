//! Parse arguments, run the command, map the outcome to an exit code.

use super::args::{ChatFlags, Cli, Command, ConfigAction};
use super::commands::ask::args::AskArgs;
use super::commands::sessions::{SessionsAction, SessionsOutcome};
use super::common::config::{ArchiveMode, Config, EditMode};
use super::common::exit::{self, Exit};
use super::common::flags::{CompletionShell, SessionFlags};
use super::sanitize::Sanitizer;
use clap::{Args, CommandFactory};
use std::io::IsTerminal;
use tokio::runtime::Runtime;

pub fn main() -> i32 {
    quiet_on_closed_stdout();
    // the hook a claude TUI runs on every permission request: straight
    // there, without building the whole command line's parser
    if super::commands::deck::hook::is_plain_hook_call(std::env::args_os()) {
        return super::commands::deck::hook::run(super::commands::deck::hook::WAIT).code();
    }
    // the status line the claude TUI runs after every message, called as
    // its settings name it (`claudio statusline`, nothing more): straight
    // there too (building the parser was a tenth of its time); a flag
    // goes through the parser
    if super::commands::statusline::is_plain_call(std::env::args_os()) {
        return plain_statusline();
    }
    let (command, session, chat) = match parse(std::env::args_os()) {
        Ok(parsed) => parsed,
        Err(e) => return parse_failed(e),
    };
    if session.debug {
        init_debug_log();
    }
    match command.run(session, chat) {
        Ok(exit) => exit.code(),
        Err(e) => report(&e),
    }
}

/// The `claudio-statusline` program (src/statusline_main.rs):
/// `claudio statusline` with the same flags, its parser built only when a
/// flag is given, as `claudio statusline` alone skips it.
#[allow(dead_code, reason = "the way into `claudio-statusline`, not `claudio`")]
pub fn statusline_main() -> i32 {
    quiet_on_closed_stdout();
    if std::env::args_os().len() <= 1 {
        return plain_statusline();
    }
    let cli = match <super::args::StatuslineCli as clap::Parser>::try_parse() {
        Ok(cli) => cli,
        Err(e) => return parse_failed(e),
    };
    let session = SessionFlags {
        cli_path: cli.global.cli_path,
        debug: cli.global.debug,
        color: cli.global.color,
        ..SessionFlags::default()
    };
    if session.debug {
        init_debug_log();
    }
    match statusline(cli.args, session) {
        Ok(exit) => exit.code(),
        Err(e) => report(&e),
    }
}

/// The status line with no flag, as Claude Code's settings run it.
fn plain_statusline() -> i32 {
    let args = super::commands::statusline::StatuslineArgs::default();
    match statusline(args, SessionFlags::default()) {
        Ok(exit) => exit.code(),
        Err(e) => report(&e),
    }
}

/// A command line the parser refused, or `--help` and `--version`: said,
/// and the exit code for it.
fn parse_failed(e: clap::Error) -> i32 {
    if e.use_stderr() {
        // one prefix for every error claudio prints
        let text = e.render().to_string();
        let text = text.strip_prefix("error: ").unwrap_or(&text);
        eprint!("claudio: {text}");
    } else {
        // --help, --version
        let _ = e.print();
    }
    exit::for_error(&e.into()).code()
}

/// The command line, read: the command, the session's flags (those after
/// `ask` over those before it, the global ones in), the chat's. The chat's
/// and `ask`'s own flags anywhere else are a usage error, as clap gives
/// for any flag a command does not take.
fn parse(
    args: impl IntoIterator<Item = std::ffi::OsString>,
) -> Result<(Command, SessionFlags, ChatFlags), clap::Error> {
    use clap::parser::ValueSource;
    use clap::FromArgMatches;
    let args: Vec<std::ffi::OsString> = args.into_iter().collect();
    let mut cmd = Cli::command();
    let matches = match cmd.try_get_matches_from_mut(args.iter().cloned()) {
        Ok(m) => m,
        // a chat flag's environment variable (`CLAUDIO_PERMISSION_MODE`
        // misspelt) is only the chat's and `ask`'s business: another
        // command is read without them (`claudio statusline`, which skips
        // the parser, never read them either)
        Err(e) => {
            let mut bare = without_session_env(Cli::command());
            match bare.try_get_matches_from_mut(args) {
                Ok(m) if m.subcommand_name().is_some_and(|c| c != "ask") => {
                    cmd = bare;
                    m
                }
                _ => return Err(e),
            }
        }
    };
    let cli = Cli::from_arg_matches(&matches)?;
    let given = |m: &clap::ArgMatches, id: &str| {
        m.try_get_raw(id).is_ok() && m.value_source(id) == Some(ValueSource::CommandLine)
    };
    let names = super::args::session_flag_names();
    let top: Vec<&str> = names
        .iter()
        .filter(|(id, _)| given(&matches, id))
        .map(|(_, spelled)| spelled.as_str())
        .collect();
    let chat_only: Vec<String> = {
        let c = ChatFlags::augment_args(clap::Command::new("x"));
        c.get_arguments()
            .filter(|a| given(&matches, a.get_id().as_str()))
            .map(|a| format!("--{}", a.get_long().unwrap_or_default()))
            .collect()
    };
    let mut not_here = |flags: &[&str], what: &str| {
        cmd.error(
            clap::error::ErrorKind::ArgumentConflict,
            format!("{}: {what}", flags.join(", ")),
        )
    };
    let mut session = cli.session;
    let command = match cli.command {
        None => Command::Chat,
        Some(Command::Ask(mut args)) => {
            if !chat_only.is_empty() {
                let c: Vec<&str> = chat_only.iter().map(String::as_str).collect();
                return Err(not_here(&c, "for the chat only, not `ask`"));
            }
            if args.json {
                // the old spelling of `-o json`
                args.output_format = crate::cli::commands::ask::args::OutputFormat::Json;
            }
            let sub = matches.subcommand_matches("ask");
            let later = std::mem::take(&mut args.session);
            session = session.with(later, |id| sub.is_some_and(|m| given(m, id)));
            Command::Ask(args)
        }
        Some(other) => {
            if !top.is_empty() {
                let name = matches.subcommand_name().unwrap_or("this command");
                return Err(not_here(
                    &top,
                    &format!("for the chat and `ask` only; `claudio {name}` takes none of them"),
                ));
            }
            other
        }
    };
    session.cli_path = cli.global.cli_path;
    session.debug = cli.global.debug;
    session.color = cli.global.color;
    Ok((command, session, cli.chat))
}

/// The command line with no environment variable for the chat's and
/// `ask`'s own flags (the global ones, like `CLAUDIO_CLI`, kept).
fn without_session_env(cmd: clap::Command) -> clap::Command {
    let ids: Vec<clap::Id> = cmd
        .get_arguments()
        .filter(|a| a.get_env().is_some() && !a.is_global_set())
        .map(|a| a.get_id().clone())
        .collect();
    ids.into_iter()
        .fold(cmd, |c, id| c.mut_arg(id, |a| a.env(None::<&str>)))
}

/// `claudio statusline`, with the flags the command line gave.
fn statusline(
    args: super::commands::statusline::StatuslineArgs,
    mut flags: SessionFlags,
) -> anyhow::Result<Exit> {
    // the config's `color` under --color; a broken config is no reason to
    // show no status
    if let Ok((c, _)) = Config::load() {
        c.apply(&mut flags);
        super::common::pricing::use_overrides(c.price_overrides());
    }
    super::commands::statusline::run(args, flags.color_choice())
}

impl Command {
    /// Run the command. Each reads the config and starts a runtime only if
    /// it needs them: `completions` and `man` need neither, and `doctor`
    /// reports a broken config instead of failing on it.
    fn run(self, mut flags: SessionFlags, chat: ChatFlags) -> anyhow::Result<Exit> {
        match self {
            Command::Completions { shell } => {
                // generated whole, then written: clap_complete panics on a
                // write error, and a closed pipe (`| head -1`) is no error
                let mut script = Vec::new();
                print_completions(shell, &mut script);
                std::io::Write::write_all(&mut std::io::stdout(), &script)?;
                Ok(Exit::Success)
            }
            Command::Deck(args) => super::commands::deck::run(args, flags.color_choice()),
            Command::Man => {
                print_man(&mut std::io::stdout())?;
                Ok(Exit::Success)
            }
            Command::Statusline(args) => statusline(args, flags),
            Command::Doctor { verbose } => {
                let loaded = Config::load();
                if let Ok((c, _)) = &loaded {
                    c.apply(&mut flags);
                }
                Ok(super::commands::doctor::run(&flags, loaded, verbose))
            }
            Command::Config { action } => {
                let (config, path) = Config::load()?;
                Ok(config_command(&action, &config, path.as_deref()))
            }
            Command::Notify {
                action: super::args::NotifyAction::Test,
            } => {
                let (config, _) = Config::load()?;
                super::common::notify::test(config.notify)
            }
            Command::Ask(mut args) => {
                let config = configure(&mut flags)?;
                auto_archive(&config, None);
                args.notify = config.notify.clone();
                ask(flags, args)
            }
            Command::Tui(args) => {
                // the config file's cli-path; nothing else of it is the TUI's
                configure(&mut flags)?;
                let cwd = super::common::folder::current()?;
                Err(super::commands::sessions::tui::exec(
                    flags.cli_path.as_deref(),
                    "claudio tui",
                    None,
                    &args.args,
                    &cwd,
                    None,
                ))
            }
            Command::Chat => {
                let config = configure(&mut flags)?;
                auto_archive(&config, None);
                converse(flags, &config, &chat)
            }
            Command::Sessions(sessions) => {
                if sessions.no_archive && matches!(sessions.action, SessionsAction::Archive(_)) {
                    return Err(super::common::exit::usage_error!(
                        "--no-archive leaves the archive out of what is read; `sessions archive` writes it, so the two do not go together"
                    ));
                }
                if let SessionsAction::CompleteIds(a) = &sessions.action {
                    // for a completion script: no config, no runtime, no
                    // background archive, nothing but the candidates
                    super::commands::sessions::complete_ids(
                        sessions.config_dir.as_deref(),
                        sessions.no_archive,
                        a,
                        &mut std::io::stdout().lock(),
                    );
                    return Ok(Exit::Success);
                }
                let config = configure(&mut flags)?;
                super::common::pricing::use_overrides(config.price_overrides());
                // `resume --tui` is replaced by the TUI at once: no pass begun
                let tui = matches!(&sessions.action, SessionsAction::Resume(a) if a.tui);
                if !matches!(sessions.action, SessionsAction::Archive(_)) && !tui {
                    auto_archive(&config, sessions.config_dir.clone());
                }
                let color = flags.color_choice();
                // where the session is found: the CLI that resumes it reads it
                let config_dir = sessions.config_dir.clone();
                let outcome = on_runtime(Threads::One, |rt| {
                    rt.block_on(super::commands::sessions::run(sessions, color))
                })?;
                match outcome {
                    SessionsOutcome::Done(exit) => Ok(exit),
                    SessionsOutcome::Resume { id, cwd, tui: true } => {
                        Err(super::commands::sessions::tui::exec(
                            flags.cli_path.as_deref(),
                            "--tui",
                            Some(&id),
                            &[],
                            &cwd,
                            config_dir.as_deref(),
                        ))
                    }
                    SessionsOutcome::Resume {
                        id,
                        cwd,
                        tui: false,
                    } => {
                        // the chat's CLI reads the configuration folder
                        // the chat reads (its settings, trust, sessions):
                        // one named elsewhere would not have the session
                        if let Some(dir) = config_dir.as_deref() {
                            let same = |d: &std::path::Path| std::fs::canonicalize(d).ok();
                            let default = claudio::store::default_config_dir()?;
                            if same(dir).is_none() || same(dir) != same(&default) {
                                return Err(super::common::exit::usage_error!(
                                    "--config-dir: the chat's CLI reads its sessions from {}, not {}: resume with CLAUDE_CONFIG_DIR={} claudio sessions resume {id} (or --tui, which gives the claude TUI that folder)",
                                    crate::cli::common::folder::shown(&default),
                                    crate::cli::common::folder::shown(dir),
                                    crate::cli::common::folder::shown(dir)
                                ));
                            }
                        }
                        flags.resume = Some(id);
                        flags.continue_session = false;
                        flags.cwd = Some(cwd);
                        converse(flags, &config, &chat)
                    }
                }
            }
        }
    }
}

/// With `archive = "auto"`, archive the transcripts in the background.
fn auto_archive(config: &Config, config_dir: Option<std::path::PathBuf>) {
    if config.archive == Some(ArchiveMode::Auto) {
        super::commands::sessions::spawn_auto_archive(config_dir);
    }
}

/// Load the config file and apply it under the flags (flags win).
fn configure(flags: &mut SessionFlags) -> anyhow::Result<Config> {
    let (config, _) = Config::load()?;
    config.apply(flags);
    Ok(config)
}

/// The chat when stdin is a terminal; else `ask`, with stdin as the prompt.
fn converse(flags: SessionFlags, config: &Config, chat: &ChatFlags) -> anyhow::Result<Exit> {
    if !std::io::stdin().is_terminal() {
        let args = AskArgs {
            from_chat: true,
            notify: config.notify.clone(),
            ..AskArgs::default()
        };
        return ask(flags, args);
    }
    // `-r` with no id: the person picks one
    let mut flags = flags;
    if flags.resume.as_deref() == Some("") {
        let store = claudio::store::Store::open(None)?;
        let cwd = match &flags.cwd {
            Some(d) => d.clone(),
            None => super::common::folder::current()?,
        };
        let style = super::term::style::Style::decide(
            flags.color_choice(),
            std::io::stdout().is_terminal(),
        );
        match super::term::finder::pick(&store, &cwd, style)? {
            Some(row) => {
                flags.resume = Some(row.id);
                if flags.cwd.is_none() {
                    flags.cwd = row.cwd.map(std::path::PathBuf::from).filter(|d| d.is_dir());
                }
            }
            None => return Ok(Exit::Success),
        }
    }
    // `-c`: the folder's latest session, resumed by its id, so that the
    // chat can show where it stands as `-r` does
    if flags.continue_session && flags.resume.is_none() {
        match latest_session_here(&flags) {
            Some(Some(id)) => {
                flags.resume = Some(id);
                flags.continue_session = false;
            }
            Some(None) => {
                eprintln!(
                    "claudio: no earlier session in this folder to continue; starting a new one"
                );
                flags.continue_session = false;
            }
            // the store cannot be read: the CLI finds it
            None => {}
        }
    }
    let flags = find_resumed(flags)?;
    let settings = super::commands::chat::repl::ChatSettings {
        show_thinking: !chat.hide_thinking && config.show_thinking.unwrap_or(true),
        history_size: config.history_size.unwrap_or(10_000),
        vi: chat.vi || config.edit_mode == Some(EditMode::Vi),
        notify: config.notify.clone(),
    };
    on_runtime(Threads::Chat, |rt| {
        super::commands::chat::repl::run(rt, &flags, settings)
    })
}

fn ask(flags: SessionFlags, args: AskArgs) -> anyhow::Result<Exit> {
    if flags.resume.as_deref() == Some("") {
        return Err(super::common::exit::usage_error!(
            "-r needs a session id here: the list to pick from needs a terminal (`claudio sessions list` shows the ids)"
        ));
    }
    let flags = find_resumed(flags)?;
    on_runtime(Threads::One, |rt| {
        rt.block_on(super::commands::ask::run(&flags, args))
    })
}

/// The session `-c` continues: the chat folder's latest (`Some(None)`:
/// none; `None`: the store cannot be read, and the CLI is left to decide).
fn latest_session_here(flags: &SessionFlags) -> Option<Option<String>> {
    let cwd = match &flags.cwd {
        Some(d) => d.clone(),
        None => std::env::current_dir().ok()?,
    };
    // this folder's own, as the CLI's --continue reads them: a newer
    // session of another worktree is not this folder's latest
    let opts = claudio::store::ListOptions::for_dir(cwd)
        .include_worktrees(false)
        .limit(1);
    let listing = claudio::store::Store::open(None).ok()?.list(&opts).ok()?;
    // the newer transcripts that could not be read are named, not passed
    // over in silence: the session continued is not the newest file
    for s in &listing.skipped {
        let msg = format!(
            "-c passed over {}: {}",
            crate::cli::common::folder::shown(&s.path),
            s.reason
        );
        eprintln!("claudio: {}", crate::cli::sanitize::Sanitizer::clean(&msg));
    }
    Some(listing.sessions.into_iter().next().map(|s| s.session_id))
}

/// `-r ID` finds the session in any project (restoring it from claudio's
/// archive when the CLI deleted it) and runs where it was recorded (unless
/// `--cwd` says where). A prefix or malformed id that no transcript holds
/// is a usage error (exit 2), said at once; a whole id goes to the CLI,
/// whose own answer ("no such session", its startup failure) is shown.
pub(in crate::cli) fn find_resumed(mut flags: SessionFlags) -> anyhow::Result<SessionFlags> {
    use claudio::store::StoreError;
    let Some(id) = flags.resume.clone() else {
        return Ok(flags);
    };
    let mut said = |msg: &str| eprintln!("claudio: {}", Sanitizer::clean(msg));
    let target = claudio::store::Store::open(None)
        .and_then(|s| super::common::archive::resume_target(&s, &id, &mut said));
    match target {
        Ok(target) => {
            flags.resume = Some(target.id);
            if flags.cwd.is_none() {
                flags.cwd = Some(target.cwd).filter(|d| d.is_dir());
            }
        }
        // a whole id claudio does not see: the CLI answers for it (it may
        // know the session; if not, its startup failure says so, exit 2)
        Err(StoreError::NotFound(_)) if claudio::store::is_uuid(&id) => {}
        Err(StoreError::NotFound(_)) => {
            return Err(super::common::exit::usage_error!(
                "no session {}: `claudio sessions list --all` shows every session, `claudio -r` picks one",
                Sanitizer::clean(&id)
            ))
        }
        Err(e @ (StoreError::InvalidId(_) | StoreError::Ambiguous { .. })) => {
            return Err(super::common::exit::usage_error!("{}", Sanitizer::clean(&e.to_string())))
        }
        // the store cannot be read: the CLI may still know the session
        Err(_) => {}
    }
    Ok(flags)
}

/// The threads of a command's runtime.
enum Threads {
    /// One: the reader and the writer stay on the same core (no
    /// cross-thread wake-ups or allocator contention per message).
    One,
    /// The chat blocks its thread in the line editor between turns, so its
    /// session needs worker threads.
    Chat,
}

/// Run `work` on a fresh runtime, then stop it without waiting for blocking
/// tasks (a permission prompt reading the terminal).
fn on_runtime<T>(
    threads: Threads,
    work: impl FnOnce(&Runtime) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    let built = match threads {
        Threads::One => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build(),
        Threads::Chat => tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build(),
    };
    // the OS error kept under the context (printed `{:#}`: the same words)
    let runtime = anyhow::Context::context(built, "failed to start the async runtime")?;
    let outcome = work(&runtime);
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    outcome
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

fn config_command(action: &ConfigAction, config: &Config, path: Option<&std::path::Path>) -> Exit {
    match action {
        ConfigAction::Path => match (path, super::common::config::config_path()) {
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

/// The completion script for `shell`: the flags `--help` shows, not the
/// hidden old spellings (clap_complete offers every flag it is given),
/// with session ids completed where they are asked for.
pub fn print_completions(shell: CompletionShell, out: &mut dyn std::io::Write) {
    use clap_complete::Shell;
    let mut cmd = Cli::command();
    cmd.build();
    let mut shown = shown(&cmd);
    let mut script = Vec::new();
    match shell {
        CompletionShell::Bash => {
            clap_complete::generate(Shell::Bash, &mut shown, "claudio", &mut script)
        }
        CompletionShell::Zsh => {
            clap_complete::generate(Shell::Zsh, &mut shown, "claudio", &mut script)
        }
        CompletionShell::Fish => {
            clap_complete::generate(Shell::Fish, &mut shown, "claudio", &mut script)
        }
        CompletionShell::Elvish => {
            clap_complete::generate(Shell::Elvish, &mut shown, "claudio", &mut script)
        }
        CompletionShell::Powershell => {
            clap_complete::generate(Shell::PowerShell, &mut shown, "claudio", &mut script)
        }
        CompletionShell::Nushell => clap_complete::generate(
            clap_complete_nushell::Nushell,
            &mut shown,
            "claudio",
            &mut script,
        ),
    }
    let script = String::from_utf8_lossy(&script).into_owned();
    let _ =
        out.write_all(super::commands::sessions::completion_hook(shell, &shown, script).as_bytes());
}

/// A built command again, without its hidden flags: its name, about,
/// aliases, arguments and subcommands (what a completion script uses),
/// the help flags and the help subcommand copied as they were built.
fn shown(cmd: &clap::Command) -> clap::Command {
    // clap takes names as &'static str (without its `string` feature): the
    // few names of a completion script, made once by a command that then
    // exits, are leaked
    let name: &'static str = Box::leak(cmd.get_name().to_owned().into_boxed_str());
    let aliases: Vec<&'static str> = cmd
        .get_visible_aliases()
        .map(|a| &*Box::leak(a.to_owned().into_boxed_str()))
        .collect();
    let mut c = clap::Command::new(name)
        .disable_help_flag(true)
        .disable_version_flag(true)
        .disable_help_subcommand(true)
        .visible_aliases(aliases);
    if let Some(about) = cmd.get_about() {
        c = c.about(about.clone());
    }
    if cmd.get_version().is_some() {
        // only claudio's own: its version flag is copied below
        c = c.version(env!("CARGO_PKG_VERSION"));
    }
    for a in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
        // propagated already: each command has its own copy
        c = c.arg(a.clone().global(false));
    }
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        c = c.subcommand(shown(sub));
    }
    c
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
    // the commands, described in sections of this page (clap_mangen's own
    // list points to claudio-ask(1) and the like, which are not shipped)
    writeln!(out, ".SH COMMANDS")?;
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        writeln!(out, ".TP\n\\fB{}\\fR", sub.get_name())?;
        if let Some(about) = sub.get_about() {
            writeln!(
                out,
                "{} (see \\fBCLAUDIO {}\\fR below)",
                roff_escape(&about.to_string()),
                sub.get_name().to_uppercase()
            )?;
        }
    }
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
    writeln!(out, ".SH ENVIRONMENT\n.TP\nCLAUDIO_CLI\npath of the claude executable\n.TP\nCLAUDIO_MODEL\ndefault model\n.TP\nCLAUDIO_PERMISSION_MODE\ndefault permission mode\n.TP\nCLAUDIO_CONFIG\npath of the config file\n.TP\nCLAUDIO_ARCHIVE_DIR\nclaudio's archive of transcripts\n.TP\nCLAUDE_CONFIG_DIR\nClaude Code's folder (transcripts under projects/)\n.TP\nNO_COLOR\nturn colors off")?;
    writeln!(out, ".SH FILES\n.TP\n~/.config/claudio/config.toml\nsettings\n.TP\n~/.local/share/claudio/history\nthe chat's input history\n.TP\n~/.claude/projects/\nClaude Code's transcripts\n.TP\n~/.local/share/claudio/archive/\nclaudio's archive of them (claudio sessions archive)")?;
    Ok(())
}

fn roff_escape(s: &str) -> String {
    s.lines()
        .map(|l| {
            let l = l.replace('\\', "\\\\");
            // groff reads ASCII: anything else by its code point (→ is \[u2192])
            let l: String = l
                .chars()
                .map(|c| {
                    if c.is_ascii() {
                        c.to_string()
                    } else {
                        format!("\\[u{:04X}]", c as u32)
                    }
                })
                .collect();
            if l.starts_with('.') || l.starts_with('\'') {
                format!("\\&{l}")
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A reader that stops early (`claudio config show | head -1`) is no
/// error: `print!` panics on a closed pipe, so that one panic ends the
/// program quietly with 0 instead of a backtrace and 101.
fn quiet_on_closed_stdout() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let text = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if text.starts_with("failed printing to stdout") && text.contains("Broken pipe") {
            claudio::transport::abandon();
            std::process::exit(0);
        }
        previous(info);
    }));
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

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Result<(Command, SessionFlags, ChatFlags), clap::Error> {
        parse(args.iter().map(Into::into))
    }

    /// `claudio statusline` and nothing more skips the parser: what the
    /// parser gives for it is what the shortcut passes (no template, no
    /// color asked, no debug log); anything more goes through the parser.
    #[test]
    fn the_plain_statusline_call_is_what_the_parser_gives() {
        use super::super::commands::statusline::is_plain_call;
        let plain = |a: &[&str]| is_plain_call(a.iter().map(std::ffi::OsString::from));
        assert!(plain(&["/x/claudio", "statusline"]));
        for other in [
            &["/x/claudio", "statusline", "--format", "{model}"][..],
            &["/x/claudio", "statusline", "--color", "never"],
            &["/x/claudio", "--debug", "statusline"],
            &["/x/claudio", "statuslines"],
            &["/x/claudio"],
        ] {
            assert!(!plain(other), "{other:?}");
        }
        let (command, session, _) = p(&["claudio", "statusline"]).unwrap();
        let Command::Statusline(args) = command else {
            panic!("not the status line: {command:?}")
        };
        assert!(args.format.is_none());
        assert!(session.color.is_none() && !session.debug);
        assert_eq!(
            session.color_choice(),
            SessionFlags::default().color_choice()
        );
    }

    /// Another command than the chat and `ask` is parsed again, when the
    /// environment makes the parse fail, without the environment variables
    /// of the flags it does not take: the global ones are still read.
    #[test]
    fn other_commands_are_read_without_the_chat_s_environment() {
        let env_of = |c: &clap::Command| -> Vec<String> {
            let mut v: Vec<String> = c
                .get_arguments()
                .filter(|a| a.get_env().is_some())
                .map(|a| a.get_id().to_string())
                .collect();
            v.sort();
            v
        };
        assert_eq!(
            env_of(&Cli::command()),
            ["cli_path", "model", "permission_mode"]
        );
        assert_eq!(env_of(&without_session_env(Cli::command())), ["cli_path"]);
    }

    /// `claudio tui`'s arguments are the claude TUI's, verbatim: its flags
    /// (unknown to claudio) included, and all after a `--`; claudio's own
    /// global flags are claudio's only when they come first.
    #[test]
    fn tui_passes_its_arguments_to_the_claude_tui_verbatim() {
        let tui_args = |args: &[&str]| -> (Vec<String>, SessionFlags) {
            match p(args).unwrap() {
                (Command::Tui(a), flags, _) => (
                    a.args
                        .iter()
                        .map(|a| a.to_str().unwrap().to_owned())
                        .collect(),
                    flags,
                ),
                (other, _, _) => panic!("{args:?}: {other:?}"),
            }
        };
        assert_eq!(tui_args(&["claudio", "tui"]).0, Vec::<String>::new());
        assert_eq!(
            tui_args(&["claudio", "tui", "--model", "opus", "fix it", "-c"]).0,
            ["--model", "opus", "fix it", "-c"]
        );
        // once the TUI's arguments begin, claudio's own flags are theirs too
        let (a, flags) = tui_args(&["claudio", "tui", "--model", "opus", "--debug", "--help"]);
        assert_eq!(a, ["--model", "opus", "--debug", "--help"]);
        assert!(!flags.debug);
        // first, they are claudio's; after `--`, the TUI's
        let (a, flags) = tui_args(&["claudio", "tui", "--debug", "-r"]);
        assert_eq!(a, ["-r"]);
        assert!(flags.debug);
        let (a, flags) = tui_args(&["claudio", "tui", "--", "--debug", "--", "x"]);
        assert_eq!(a, ["--debug", "--", "x"]);
        assert!(!flags.debug);
        // the session's flags before `tui` are the chat's, not the TUI's
        assert!(p(&["claudio", "--model", "opus", "tui"]).is_err());
    }

    #[test]
    fn the_chat_s_flags_are_an_error_where_they_do_not_apply() {
        for args in [
            &["claudio", "--model", "opus", "sessions", "list"][..],
            &["claudio", "-c", "doctor"],
            &["claudio", "--max-budget-usd", "3", "config", "show"],
            &["claudio", "--vi", "ask", "hi"],
        ] {
            let e = p(args).expect_err(&args.join(" "));
            assert_eq!(e.exit_code(), 2, "{args:?}");
            let text = e.to_string();
            assert!(
                text.contains("--model")
                    || text.contains("-c")
                    || text.contains("--max-budget-usd")
                    || text.contains("--vi"),
                "{text}"
            );
        }
        // the global ones go anywhere
        assert!(p(&["claudio", "--color", "never", "sessions", "list"]).is_ok());
        assert!(p(&["claudio", "sessions", "list", "--debug"]).is_ok());
    }

    #[test]
    fn ask_s_output_is_o_and_the_old_spellings_still_work() {
        use crate::cli::commands::ask::args::OutputFormat;
        let format = |args: &[&str]| match p(args).unwrap().0 {
            Command::Ask(a) => a.output_format,
            _ => panic!("{args:?}"),
        };
        assert_eq!(format(&["claudio", "ask", "hi"]), OutputFormat::Text);
        assert_eq!(
            format(&["claudio", "ask", "-o", "json", "hi"]),
            OutputFormat::Json
        );
        assert_eq!(
            format(&["claudio", "ask", "--output", "json", "hi"]),
            OutputFormat::Json
        );
        assert_eq!(
            format(&["claudio", "ask", "--json", "hi"]),
            OutputFormat::Json
        );
        assert_eq!(
            format(&["claudio", "ask", "--output-format", "stream-json", "hi"]),
            OutputFormat::StreamJson
        );
        assert_eq!(
            format(&["claudio", "ask", "-o", "ndjson", "hi"]),
            OutputFormat::StreamJson
        );
        assert!(p(&["claudio", "ask", "--json", "-o", "text", "hi"]).is_err());
    }

    #[test]
    fn ask_takes_the_session_s_flags_before_and_after_it() {
        let (cmd, s, _) = p(&[
            "claudio",
            "--model",
            "opus",
            "--allowed-tools",
            "Read",
            "ask",
            "--allowed-tools",
            "Grep",
            "--max-turns",
            "3",
            "hi",
        ])
        .unwrap();
        assert!(matches!(cmd, Command::Ask(_)));
        assert_eq!(s.model.as_deref(), Some("opus"));
        assert_eq!(s.allowed_tools, ["Read", "Grep"]);
        assert_eq!(s.max_turns, Some(3));
        // after `ask` wins
        let (_, s, _) = p(&[
            "claudio", "--model", "opus", "ask", "--model", "haiku", "hi",
        ])
        .unwrap();
        assert_eq!(s.model.as_deref(), Some("haiku"));
    }

    /// Exit 2 is decided in one place, `exit::for_error`: each kind of
    /// usage error, whoever finds it, gets it; `--help` and `--version`
    /// get 0; everything else 1.
    #[test]
    fn every_kind_of_usage_error_exits_2() {
        use super::exit::{for_error, usage_error};
        use claudio::store::StoreError;
        let clap = |args: &[&str]| -> anyhow::Error {
            match p(args) {
                Err(e) => e.into(),
                Ok(_) => panic!("{args:?} parsed"),
            }
        };
        for args in [
            // an unknown flag, an unknown command
            &["claudio", "--nope"][..],
            &["claudio", "frobnicate"],
            // a bad value, a missing value, a missing argument
            &["claudio", "sessions", "list", "-o", "xml"],
            &["claudio", "--model"],
            &["claudio", "sessions", "rename"],
            // a session flag where it does not apply, a chat flag in `ask`
            &["claudio", "-c", "doctor"],
            &["claudio", "--vi", "ask", "hi"],
        ] {
            assert_eq!(for_error(&clap(args)), Exit::Usage, "{args:?}");
        }
        for args in [
            &["claudio", "--help"][..],
            &["claudio", "--version"],
            &["claudio", "sessions", "--help"],
        ] {
            assert_eq!(for_error(&clap(args)), Exit::Success, "{args:?}");
        }
        // claudio's own checks, however deep in the chain
        assert_eq!(for_error(&usage_error!("--grep: empty")), Exit::Usage);
        let deep = usage_error!("--image x: a FIFO").context("reading the prompt");
        assert_eq!(for_error(&deep), Exit::Usage);
        // what the store refuses of what was typed: an id, a blank title
        let store = |e: StoreError| for_error(&e.into());
        assert_eq!(store(StoreError::InvalidId("../x".into())), Exit::Usage);
        assert_eq!(store(StoreError::Empty("title")), Exit::Usage);
        // the rest are failures
        assert_eq!(store(StoreError::NotFound("abcd".into())), Exit::Failure);
        assert_eq!(for_error(&anyhow::anyhow!("no network")), Exit::Failure);
    }
}
