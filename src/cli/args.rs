//! Command-line arguments.

pub use super::term::style::ColorChoice;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

use super::commands::ask::args::{AskArgs, ASK_HELP};
use super::common::flags::{CompletionShell, SessionFlags};

const AFTER_HELP: &str = "\
Examples:
  claudio                                   open a chat in this directory
  claudio ask \"what does this repo do?\"     one answer on stdout
  git diff | claudio ask \"review this\"      piped text is added after the prompt
  claudio ask -o json \"hi\" | jq .result     the final result as JSON

Output (every command that prints data says it the same way):
  -o FORMAT    text (the default), json (one JSON document) or ndjson (one
               JSON object a line); `ask` calls its ndjson stream-json, as
               the CLI does; `sessions export` takes md, html or json
  -O FILE      write to a file instead of stdout (`sessions export`)
  JSON field names are camelCase, as in Claude Code's transcripts.

Exit codes:
  0 success · 1 the run ended with an error or the CLI failed · 2 usage
  127 the Claude Code CLI was not found or not executable · 130 interrupted (Ctrl-C)

Environment:
  CLAUDIO_CLI              path of the `claude` executable
  CLAUDIO_MODEL            default model (like --model)
  CLAUDIO_PERMISSION_MODE  default permission mode (like --permission-mode)
  CLAUDIO_CONFIG           path of the config file
  CLAUDIO_ARCHIVE_DIR      claudio's archive of transcripts (`claudio sessions archive`)
  NO_COLOR                 turn colors off (same as --color never)

Files:
  ~/.config/claudio/config.toml      settings (see `claudio config --help`)
  ~/.local/share/claudio/history     the chat's input history
  ~/.claude/projects/                Claude Code's transcripts
  ~/.local/share/claudio/archive/    claudio's archive of them (`claudio sessions archive`)";

/// A fast, sturdy terminal front end and Rust SDK for Claude Code.
#[derive(Debug, Parser)]
#[command(
    name = "claudio",
    version,
    about = "A terminal chat, a pipeline tool and a session manager for Claude Code: answers stream as they are written, tool calls are shown and approved at the terminal, and past sessions are found, resumed, exported and priced.",
    after_help = AFTER_HELP
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub global: GlobalFlags,
    #[command(flatten)]
    pub session: SessionFlags,
    #[command(flatten)]
    pub chat: ChatFlags,
}

/// The `claudio-statusline` program's command line: `claudio statusline`'s.
#[derive(Debug, Parser)]
#[command(
    name = "claudio-statusline",
    version,
    about = "Print one status line for the claude TUI (its `statusLine` command): `claudio statusline` as a program of its own, which starts faster.",
    after_help = super::commands::statusline::HELP
)]
pub struct StatuslineCli {
    #[command(flatten)]
    pub global: GlobalFlags,
    #[command(flatten)]
    pub args: super::commands::statusline::StatuslineArgs,
}

/// Flags every command takes.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct GlobalFlags {
    /// Path of the `claude` executable.
    #[arg(long, global = true, env = "CLAUDIO_CLI")]
    pub cli_path: Option<PathBuf>,
    /// Log claudio's own decisions on stderr (never secrets).
    #[arg(long, global = true)]
    pub debug: bool,
    /// When to use colors [default: auto].
    #[arg(long, value_enum, global = true)]
    pub color: Option<ColorChoice>,
}

/// How the chat shows and edits (the chat only).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ChatFlags {
    /// Don't show the model's thinking in the chat.
    #[arg(long)]
    pub hide_thinking: bool,
    /// Edit the prompt with vi keys (`edit-mode = "vi"` in the config file).
    #[arg(long)]
    pub vi: bool,
}

// parsed once per run: `ask`'s flags inline cost nothing worth a box
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Ask once and print the answer (made for shell pipelines).
    #[command(after_help = ASK_HELP)]
    Ask(AskArgs),
    /// List, show, resume, fork, rename, tag and delete sessions.
    Sessions(super::commands::sessions::SessionsCommand),
    /// A new session in the claude TUI, answerable from `claudio deck`.
    #[command(after_help = TUI_HELP)]
    Tui(TuiArgs),
    /// Every running Claude Code session, and its permission requests answered from one place.
    #[command(after_help = super::commands::deck::HELP)]
    Deck(super::commands::deck::DeckArgs),
    /// Check that everything claudio needs is in place.
    #[command(
        after_help = "Checks the Claude Code CLI (path and version), whether credentials are configured \
(never showing them), the transcript store, and the config file. Exit 0 when all is well, 1 otherwise."
    )]
    Doctor {
        /// Say more: every place the CLI was looked for.
        #[arg(short, long)]
        verbose: bool,
    },
    /// Show the config file's path or its settings.
    #[command(after_help = CONFIG_HELP)]
    Config {
        #[command(subcommand)]
        action: ConfigAction,
    },
    /// Notices when a session needs you: `claudio notify test` sends one
    /// through every way the config file's `[notify]` table sets.
    #[command(after_help = NOTIFY_HELP)]
    Notify {
        #[command(subcommand)]
        action: NotifyAction,
    },
    /// Print one status line for the claude TUI (its `statusLine` command).
    #[command(after_help = super::commands::statusline::HELP)]
    Statusline(super::commands::statusline::StatuslineArgs),
    /// Print a shell completion script.
    #[command(
        after_help = "Examples:\n  claudio completions bash > ~/.local/share/bash-completion/completions/claudio\n  claudio completions zsh > ~/.zfunc/_claudio\n  claudio completions fish > ~/.config/fish/completions/claudio.fish\n  claudio completions nushell | save -f ~/.config/nushell/claudio.nu  (then `use ~/.config/nushell/claudio.nu *` in config.nu)"
    )]
    Completions {
        /// The shell.
        shell: CompletionShell,
    },
    /// Print the man page (roff).
    #[command(after_help = "Example:\n  claudio man > ~/.local/share/man/man1/claudio.1")]
    Man,
    /// No subcommand: the chat, or `ask` when stdin is piped.
    #[command(skip)]
    Chat,
}

pub(crate) const TUI_HELP: &str = "\
Starts the claude TUI itself (found as the chat finds it: --cli-path,
CLAUDIO_CLI, the config file, else $PATH) in this directory, in place of
claudio. Its permission requests reach `claudio deck`: the PermissionRequest
hook `claudio deck hooks install` writes is given to this session alone, in
the CLI's --settings, and no settings file is changed (when one already holds
the hook, none is added). A --settings of your own is refused while claudio
gives one: put yours in a settings file, or install the hook.

Every other argument is the TUI's, passed verbatim. claudio's own flags
(--cli-path, --color, --debug, --help) are claudio's when they come first;
after `--`, every argument is the TUI's.

Examples:
  claudio tui                              a new session here
  claudio tui --model opus \"fix it\"        the TUI's flags and prompt
  claudio tui -- --debug                   the TUI's --debug, not claudio's";

/// Arguments of `tui`.
#[derive(Debug, Args)]
pub struct TuiArgs {
    /// Arguments for the claude TUI, passed verbatim.
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "CLAUDE_ARGS"
    )]
    pub args: Vec<std::ffi::OsString>,
}

pub(crate) const CONFIG_HELP: &str = "\
The file is claudio/config.toml under your config directory (on Linux
~/.config/claudio/config.toml), or the file named by CLAUDIO_CONFIG.
Flags beat environment variables, which beat the file.

Example config.toml:
  model = \"sonnet\"
  permission-mode = \"acceptEdits\"
  allowed-tools = [\"Read\", \"Grep\", \"Bash(git log:*)\"]
  disallowed-tools = [\"WebFetch\"]
  cli-path = \"/usr/local/bin/claude\"
  color = \"auto\"          # auto, always, never
  show-thinking = true
  history-size = 10000
  edit-mode = \"emacs\"     # emacs, vi
  archive = \"off\"         # off, auto (archive every run)

  [notify]                # a session needs you, or a long turn ended
  on = [\"permission\", \"question\", \"turn\"]
  turn-seconds = 60       # a turn this long or longer
  bell = true
  osc = \"off\"             # 9, 777 (desktop notice by the terminal, tmux too), off
  desktop = false         # notify-send, or osascript on macOS
  ntfy = \"my-topic\"       # ntfy.sh/<topic>, or an https:// URL
  command = \"cat >> ~/claudio-notices.jsonl\"  # the notice as JSON on stdin

  # prices for sessions usage, USD per million tokens, before the built-in
  # table (cache-write-5m, cache-write-1h and cache-read may be left out)
  [prices.\"my-model\"]
  input = 3.0
  output = 15.0
  cache-write-5m = 3.75
  cache-write-1h = 6.0
  cache-read = 0.3";

const NOTIFY_HELP: &str = "\
The chat (and `ask` on a terminal) sends a notice when a tool waits for your
permission, when Claude asks a question or a plan waits, and when a turn
took longer than `turn-seconds`. One notice per event: requests that come
while one waits for you make no second notice. The ways are set in the
config file's [notify] table (see `claudio config --help`).";

#[derive(Debug, Subcommand)]
pub enum NotifyAction {
    /// Send a test notice through every way set, and say what failed.
    Test,
}

#[derive(Debug, Subcommand)]
pub enum ConfigAction {
    /// Print the path of the config file in use.
    Path,
    /// Print the settings the config file gives.
    Show,
}

/// The ids of the chat's and `ask`'s own flags, with how they are
/// spelled, for saying which one does not apply.
pub fn session_flag_names() -> Vec<(String, String)> {
    let cmd = ChatFlags::augment_args(SessionFlags::augment_args(clap::Command::new("x")));
    cmd.get_arguments()
        .map(|a| {
            let spelled = a
                .get_long()
                .map(|l| format!("--{l}"))
                .or_else(|| a.get_short().map(|c| format!("-{c}")))
                .unwrap_or_else(|| a.get_id().to_string());
            (a.get_id().to_string(), spelled)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::commands::ask::args::OutputFormat;
    use clap::CommandFactory;

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn ask_takes_flags_before_and_after() {
        let c = Cli::try_parse_from([
            "claudio",
            "--model",
            "opus",
            "ask",
            "-o",
            "json",
            "hello",
            "world",
            "--allowed-tools",
            "Read,Grep",
        ])
        .unwrap();
        let Some(Command::Ask(a)) = c.command else {
            panic!()
        };
        assert_eq!(a.prompt, ["hello", "world"]);
        assert_eq!(a.output_format, OutputFormat::Json);
        assert_eq!(c.session.model.as_deref(), Some("opus"));
        // after `ask`: its own copy, merged over the one before by app::parse
        assert_eq!(a.session.allowed_tools, ["Read", "Grep"]);
    }

    #[test]
    fn ask_by_default_is_ask_with_no_arguments() {
        let Some(Command::Ask(a)) = Cli::try_parse_from(["claudio", "ask"]).unwrap().command else {
            panic!()
        };
        let d = AskArgs::default();
        assert_eq!(
            (a.prompt, a.output_format, a.json_schema),
            (d.prompt, d.output_format, d.json_schema)
        );
    }

    #[test]
    fn the_chat_is_no_subcommand() {
        assert!(Cli::try_parse_from(["claudio"]).unwrap().command.is_none());
        assert!(Cli::try_parse_from(["claudio", "chat"]).is_err());
        assert!(!Cli::command()
            .get_subcommands()
            .any(|c| c.get_name() == "chat"));
    }
}
