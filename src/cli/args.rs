//! Command-line arguments.

pub use super::term::style::ColorChoice;
use clap::builder::TypedValueParser;
use clap::{Args, Parser, Subcommand, ValueEnum};
use claudio::PermissionMode;
use std::path::PathBuf;

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

/// The shells `claudio completions` writes a script for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CompletionShell {
    Bash,
    Zsh,
    Fish,
    Elvish,
    Powershell,
    Nushell,
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

const ASK_HELP: &str = "\
The prompt is the arguments joined by spaces. When stdin is piped, its text is
added after the prompt, separated by a blank line; with no arguments, stdin is
the whole prompt.

Tools that need approval are asked about on the terminal (/dev/tty), even when
stdin and stdout are pipes. Without a terminal they are denied: pass
--allowed-tools or --permission-mode to decide in advance.

Examples:
  claudio ask \"explain the borrow checker in one paragraph\"
  git diff --staged | claudio ask \"write a commit message for this\"
  claudio ask --allowed-tools Read,Grep \"where is the config parsed?\" > notes.md
  cat error.log | claudio ask -o json \"what failed?\" | jq -r .result

Exit codes: 0 success, 1 error result or CLI failure, 2 usage, 127 CLI not
found, 130 interrupted.";

/// `ask`'s arguments; the default is what `claudio` alone on piped stdin
/// runs: no prompt words, text out.
#[derive(Debug, Default, Args)]
pub struct AskArgs {
    /// The prompt (joined by spaces); piped stdin is appended.
    pub prompt: Vec<String>,
    /// `claudio` with no terminal on stdin came here (not `claudio ask`):
    /// an empty stdin is told in the chat's terms.
    #[arg(skip)]
    pub from_chat: bool,
    /// The config file's `[notify]` table: a request asked on the terminal
    /// (and a long answer) sends a notice, as in the chat.
    #[arg(skip)]
    pub notify: Option<crate::cli::common::notify::NotifyConfig>,
    /// What to print: the answer text, the final result as JSON, or every
    /// CLI message as NDJSON (stream-json, also spelled ndjson).
    #[arg(
        short = 'o',
        long = "output",
        alias = "output-format",
        value_enum,
        value_name = "FORMAT",
        default_value_t = OutputFormat::Text
    )]
    pub output_format: OutputFormat,
    /// The old spelling of `-o json`.
    #[arg(long, hide = true, conflicts_with = "output_format")]
    pub json: bool,
    /// Answer in this shape: a JSON Schema, inline or `@FILE`. With `-o text`
    /// the answer printed is the JSON object the model returned.
    #[arg(long, value_name = "SCHEMA")]
    pub json_schema: Option<String>,
    /// Send this image (png, jpeg, gif or webp) beside the prompt; repeat for
    /// more. An image piped on stdin is sent as an image too.
    #[arg(long = "image", value_name = "FILE")]
    pub image: Vec<std::path::PathBuf>,
    /// The session's flags given after `ask` (those before it count too).
    #[command(flatten)]
    pub session: SessionFlags,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    #[default]
    Text,
    Json,
    // the CLI's own name for its NDJSON (`--output-format stream-json`)
    #[value(alias = "ndjson")]
    StreamJson,
}

/// The permission modes the flag and the config file take: the ones the
/// CLI knows, spelled as it spells them (`acceptEdits`); anything else is a
/// usage error naming them. One type, the library's [`PermissionMode`].
pub fn mode_parser() -> impl clap::builder::TypedValueParser<Value = PermissionMode> {
    // a static, so each name is borrowed for 'static
    static KNOWN: [PermissionMode; 6] = PermissionMode::KNOWN;
    let names: Vec<&'static str> = KNOWN.iter().map(PermissionMode::as_str).collect();
    clap::builder::PossibleValuesParser::new(names).map(|name| PermissionMode::from_name(&name))
}

/// A permission mode in the config file: one the CLI knows, else an error
/// naming them (never passed on as an unknown mode).
pub fn known_mode<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<PermissionMode>, D::Error> {
    let name = <String as serde::Deserialize>::deserialize(d)?;
    name.parse::<PermissionMode>()
        .map(Some)
        .map_err(serde::de::Error::custom)
}

/// Flags shared by the chat and `ask`: they shape the CLI session. Only
/// the chat (no subcommand) and `ask` take them: elsewhere they are a
/// usage error, not accepted and ignored.
#[derive(Debug, Args, Clone, Default)]
pub struct SessionFlags {
    /// Model for the session (e.g. sonnet, opus, or a full model name).
    #[arg(long, env = "CLAUDIO_MODEL")]
    pub model: Option<String>,
    /// Permission mode: default, acceptEdits, plan, bypassPermissions, dontAsk, auto.
    #[arg(
        long,
        env = "CLAUDIO_PERMISSION_MODE",
        hide_possible_values = true,
        value_parser = mode_parser()
    )]
    pub permission_mode: Option<PermissionMode>,
    /// Tools allowed without asking (comma-separated or repeated), e.g. "Read,Bash(git log:*)".
    #[arg(long, value_delimiter = ',')]
    pub allowed_tools: Vec<String>,
    /// Tools never allowed (comma-separated or repeated).
    #[arg(long, value_delimiter = ',')]
    pub disallowed_tools: Vec<String>,
    /// Stop after this many agent turns.
    #[arg(long)]
    pub max_turns: Option<u32>,
    /// How hard the model thinks.
    #[arg(long, value_parser = ["low", "medium", "high", "xhigh", "max"])]
    pub effort: Option<String>,
    /// Models to try, in order, when the model is overloaded (comma-separated or repeated).
    #[arg(long, value_delimiter = ',')]
    pub fallback_model: Vec<String>,
    /// End the turn once the session has cost this much, in US dollars.
    #[arg(long, value_name = "USD")]
    pub max_budget_usd: Option<f64>,
    /// Replace the system prompt.
    #[arg(long)]
    pub system_prompt: Option<String>,
    /// Add to the system prompt.
    #[arg(long)]
    pub append_system_prompt: Option<String>,
    /// Give the tools access to another directory (repeatable).
    #[arg(long)]
    pub add_dir: Vec<PathBuf>,
    /// Working directory for the session.
    #[arg(long)]
    pub cwd: Option<PathBuf>,
    /// Resume the session with this id (an id prefix works); with no id,
    /// pick one from a list (this directory's sessions; Ctrl-A: every project).
    #[arg(short = 'r', long, num_args = 0..=1, default_missing_value = "", value_name = "ID")]
    pub resume: Option<String>,
    /// Continue the most recent session of this directory.
    #[arg(short = 'c', long = "continue")]
    pub continue_session: bool,
    /// MCP server configuration: JSON text or a file (repeatable).
    #[arg(long)]
    pub mcp_config: Vec<String>,
    /// Show the CLI's own stderr as it runs.
    #[arg(short = 'v', long)]
    pub verbose: bool,
    /// Load this folder's project settings (hooks, MCP servers, statusLine)
    /// without asking, for this run only, though it is not trusted: for
    /// scripts and CI.
    #[arg(long)]
    pub trust_workspace: bool,
    /// Start the CLI without the folder's project settings (it is not
    /// trusted): set by the trust check, not a flag.
    #[arg(skip)]
    pub without_project_settings: bool,
    /// From [`GlobalFlags`].
    #[arg(skip)]
    pub cli_path: Option<PathBuf>,
    /// From [`GlobalFlags`].
    #[arg(skip)]
    pub debug: bool,
    /// From [`GlobalFlags`].
    #[arg(skip)]
    pub color: Option<ColorChoice>,
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

impl SessionFlags {
    /// These flags (given before `ask`) with `later`'s (given after it)
    /// over them: what `later` has from the command line (`given` says
    /// which ids) wins; lists add up.
    pub fn with(mut self, later: SessionFlags, given: impl Fn(&str) -> bool) -> SessionFlags {
        macro_rules! take {
            ($($f:ident),*) => {$(
                if given(stringify!($f)) {
                    self.$f = later.$f;
                }
            )*};
        }
        take!(
            model,
            permission_mode,
            max_turns,
            effort,
            max_budget_usd,
            system_prompt,
            append_system_prompt,
            cwd,
            resume
        );
        self.allowed_tools.extend(later.allowed_tools);
        self.disallowed_tools.extend(later.disallowed_tools);
        self.fallback_model.extend(later.fallback_model);
        self.add_dir.extend(later.add_dir);
        self.mcp_config.extend(later.mcp_config);
        self.continue_session |= later.continue_session;
        self.verbose |= later.verbose;
        self.trust_workspace |= later.trust_workspace;
        self
    }

    /// The color choice, `auto` when nothing set it.
    pub fn color_choice(&self) -> ColorChoice {
        self.color.unwrap_or(ColorChoice::Auto)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
