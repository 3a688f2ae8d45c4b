//! The flags more than one command takes: the session's (the chat's and
//! `ask`'s), the permission mode as the flag and the config file spell it,
//! and the shells a completion script is written for.

use crate::cli::term::style::ColorChoice;
use clap::builder::TypedValueParser;
use clap::Args;
use claudio::PermissionMode;
use std::path::PathBuf;

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
    /// From the command line's `GlobalFlags`.
    #[arg(skip)]
    pub cli_path: Option<PathBuf>,
    /// From the command line's `GlobalFlags`.
    #[arg(skip)]
    pub debug: bool,
    /// From the command line's `GlobalFlags`.
    #[arg(skip)]
    pub color: Option<ColorChoice>,
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
