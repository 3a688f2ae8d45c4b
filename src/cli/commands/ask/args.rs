//! `claudio ask`'s arguments.

use crate::cli::common::flags::SessionFlags;
use clap::{Args, ValueEnum};

pub const ASK_HELP: &str = "\
The prompt is the arguments joined by spaces. When stdin is piped, its text is
added after the prompt, in a text block of its own (the session's title is the
prompt typed); with no arguments, stdin is the whole prompt.

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
