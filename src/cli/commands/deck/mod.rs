//! `claudio deck`: every running Claude Code session on one screen, and
//! their permission requests answered from there.
//!
//! - [`claudio::registry`] finds the claude TUI sessions (their registry
//!   files) and tells their state from those files and their transcripts,
//!   never from a terminal's text;
//! - `deck hooks install` adds the `PermissionRequest` hook ([`install`]);
//! - `deck hook` is that hook ([`hook`]): it hands each request to the
//!   deck over its private socket ([`socket`]) and prints the answer;
//! - a claudio chat or `ask` offers the request its dialog asks about on
//!   the same socket ([`publish`]), answered there or at the deck, the
//!   first answer winning;
//! - `deck --json` prints one snapshot for scripts ([`snapshot`]);
//! - `deck` on a terminal is the full screen ([`view`] draws it, [`full`]
//!   feeds it), elsewhere line by line ([`line`]).

pub mod answered;
pub mod full;
pub mod hook;
pub mod install;
pub mod line;
pub mod snapshot;
pub mod view;
pub mod watch;

use crate::cli::common::exit::{usage_error, Exit};
use crate::cli::requests::socket;
use clap::{Args, Subcommand};

pub(crate) const HELP: &str = "\
Sessions are the claude CLIs running now, as each says in its registry file
(~/.claude/sessions/<pid>.json): where, in which tmux pane, and whether it
waits for you (a permission prompt), works, or is idle. Files there that are
links, FIFOs, too big, another user's or not JSON are named, never read.

A claude TUI's permission requests reach the deck through one
PermissionRequest hook in ~/.claude/settings.json:
  claudio deck hooks install     show the change, ask, back the file up, write it
  claudio deck hooks status      say whether it is there
  claudio deck hooks remove      take it out (the file as it was, when unchanged)
With no deck running the hook prints nothing at once and the TUI asks as before.
A TUI started by `claudio sessions resume ID --tui` gets the same hook for
itself alone (the CLI's --settings): no settings file is changed.

`claudio deck` on a terminal is one full screen: every session, sorted NEEDS
YOU, WORKING, DONE, with its project, kind, age and cost, kept current as the
registry folder changes. The selected request is shown as the chat shows an
approval (the whole command, the diff; Enter with nothing typed shows all of
it) and answered the chat's way, each with Enter: y once, a for this session,
p in this project, u in every project (p and u only when the CLI suggested a
rule), n or a reason denies, t hands it back to its terminal. A request
taller than the screen is paged with PgDn and PgUp, and allowed only once
every row of it has been on the screen. Up and Down pick a request; q quits
(what is held is handed back). Questions and plans of a claude TUI are
answered in its terminal: the row names its tmux pane. A request answered in
its terminal first leaves the deck by itself; one answered there a moment
before the deck's answer is said so (\"answered in its terminal first\").
A request whose session ended while it waited (its claude TUI killed or
crashed) leaves the deck too, said so (\"its session ended\"): nobody is
left to answer it.
Not on a terminal, the deck works line by line (y, n or a reason, t; a
chat's questions and plans a number or your own words a line, and Enter
alone rejects a plan and stops the turn, as ask reads it).

A claudio chat, or an ask asking on its terminal, needs no hook: while its
request waits, it offers it to the deck over the same socket (a deck started
later too), and the row says claudio chat or claudio ask (an installed hook
stands aside for the sessions claudio starts, so each request is held once). The deck answers
its tool approvals, its questions and its plans, each shown as ask shows it:
a question's options numbered (type a number, numbers like 1,3 where several
may be chosen, or your own answer, then Enter; one question after another),
a plan in its box (1 approves it accepting edits, 2 approving each edit, 3
keeps planning, or type what to change; Esc rejects it and stops the turn,
as in the chat), t hands it back to the chat, and
Ctrl-C quits (an answer may start with a q). The chat takes only the answers
to the questions it asked and the plan it showed. The first answer wins: the
deck's closes the chat's question (\"answered in the deck\"), the chat's
takes the deck's row away (\"answered in its chat first\" when it was a
moment before the deck's). t, q or a deck that dies leave the chat asking
where it was.

`claudio deck --json` prints one snapshot (with the requests a full-screen
deck holds, under pending; program says which kind each session and request
is: claudio chat, claudio ask, claude TUI, claude -p, background agent);
`claudio deck --watch` prints each change as one JSON object a line:
session-appeared, session-changed, session-gone, request-pending,
request-answered.

Examples:
  claudio deck --json | jq '.sessions[] | select(.state == \"waiting\")'
  claudio deck --watch | jq -c 'select(.event == \"request-pending\")'";

/// `claudio deck`'s arguments.
#[derive(Debug, Args)]
pub struct DeckArgs {
    #[command(subcommand)]
    pub action: Option<DeckAction>,
    /// Print one snapshot of every running session as JSON (and the requests a running deck holds), and exit.
    #[arg(long, conflicts_with = "watch")]
    pub json: bool,
    /// Print what changes as it changes, one JSON object a line (sessions appearing, changing, going; requests pending, answered).
    #[arg(long)]
    pub watch: bool,
}

#[derive(Debug, Subcommand)]
pub enum DeckAction {
    /// Install, check or remove the PermissionRequest hook in Claude Code's settings.
    Hooks {
        #[command(subcommand)]
        action: HooksAction,
    },
    /// The PermissionRequest hook itself (Claude Code runs it; it reads the request on stdin).
    Hook {
        /// The most seconds to wait for the deck's answer.
        #[arg(long, value_name = "SECONDS", default_value_t = hook::WAIT.as_secs())]
        wait: u64,
    },
}

#[derive(Debug, Subcommand)]
pub enum HooksAction {
    /// Add the hook (the change is shown and asked about first).
    Install {
        /// Write without asking (for scripts).
        #[arg(short, long)]
        yes: bool,
    },
    /// Say whether the hook is installed.
    Status,
    /// Take the hook out again.
    Remove {
        /// Write without asking (for scripts).
        #[arg(short, long)]
        yes: bool,
    },
}

/// Run `claudio deck`.
pub fn run(args: DeckArgs, color: crate::cli::term::style::ColorChoice) -> anyhow::Result<Exit> {
    match args.action {
        Some(DeckAction::Hook { wait }) => Ok(hook::run(std::time::Duration::from_secs(wait))),
        Some(DeckAction::Hooks { action }) => {
            let (action, yes) = match action {
                HooksAction::Install { yes } => (install::Action::Install, yes),
                HooksAction::Status => (install::Action::Status, false),
                HooksAction::Remove { yes } => (install::Action::Remove, yes),
            };
            let path = install::settings_file()?;
            let exe = std::env::current_exe()?;
            let mut confirm = |q: &str| install::confirm_on_tty(q);
            let mut out = std::io::stdout().lock();
            install::run(action, &path, &exe, yes, &mut confirm, &mut out).map_err(|e| {
                match e.downcast_ref::<std::io::Error>() {
                    Some(io) if io.kind() == std::io::ErrorKind::InvalidInput => {
                        usage_error!("{io}")
                    }
                    _ => e,
                }
            })
        }
        None if args.json => snapshot::run(),
        None if args.watch => watch::run(),
        None => {
            use std::io::{IsTerminal, Write};
            let style =
                crate::cli::term::style::Style::decide(color, std::io::stdout().is_terminal());
            let path = socket::path();
            let listener = socket::Listener::bind(&path)?;
            if std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
                let config_dir = claudio::store::default_config_dir()?;
                full::run(listener, config_dir, style)?;
                return Ok(Exit::Success);
            }
            let width = crossterm::terminal::size().map_or(80, |(w, _)| w as usize);
            let mut out = std::io::stdout().lock();
            write!(out, "{}", line::sessions_lines(style))?;
            writeln!(
                out,
                "{}",
                style.dim(&format!(
                    "waiting for permission requests on {} (Ctrl-C stops; `claudio deck hooks install` sends them here)",
                    claudio::sanitize::Sanitizer::visible(&path.display().to_string())
                ))
            )?;
            out.flush()?;
            let mut input = line::Polled::new(std::io::stdin());
            line::serve(&listener, &mut input, &mut out, style, width)?;
            Ok(Exit::Success)
        }
    }
}

#[cfg(test)]
mod tests {
    /// The help says what becomes of each request that leaves the deck by
    /// itself: answered in its terminal, its session ended.
    #[test]
    fn the_help_says_what_becomes_of_a_request_whose_session_ended() {
        assert!(super::HELP.contains("answered in its terminal first"));
        assert!(super::HELP.contains("its session ended"), "{}", super::HELP);
    }
}
