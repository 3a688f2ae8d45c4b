//! The arguments of `claudio sessions` and its subcommands.

pub use super::io::Output;
use super::{export, search, usage};
use clap::{Args, Subcommand};
use std::path::PathBuf;

const SESSIONS_HELP: &str = "\
Sessions are the transcripts the Claude Code CLI writes under
$CLAUDE_CONFIG_DIR/projects (else ~/.claude/projects), one folder per working
directory. An ID is a full session id or a unique prefix of at least 4 hex
digits (`claudio sessions list` shows 8).

The commands that read many sessions take the same flags: -a/--all (every
project, not only this directory's), --cwd DIR (that directory's), -n/--limit N
(the N newest sessions), --since WHEN (written since: 30m, 12h, 7d, 2w, or a
date such as 2026-11-01). Patterns (search, inspect --grep) are literal text,
case mattering only when they hold a capital; -e/--regex makes them a regex,
-s and -i decide the case.

Output: -o text (the default), -o json (one JSON document; a listing is one
array) or -o ndjson (one compact JSON object per line, as found), on list,
search, usage, inspect and archive; export takes -o md, html or json, and
-O FILE. JSON field names are camelCase, as in the CLI's transcripts; the
text in them is the transcripts' own, byte for byte. Each command's --help
names its fields. (Old spellings still work: --json, export -f FORMAT and
-o FILE, list --usage.)

Examples:
  claudio sessions list                     this directory's sessions, newest first
  claudio sessions list --all --limit 20    every project
  claudio sessions list --since 2d -o ndjson | jq -r .summary
  claudio sessions show 3f2a9c1e            the conversation, in a pager when long
  claudio sessions show 3f2a9c1e -o ndjson | jq -r .type
  claudio sessions resume 3f2a9c1e          chat on, in the directory it ran in
  claudio sessions resume 3f2a9c1e --tui    the same in the claude TUI, answerable from the deck
  claudio sessions fork 3f2a9c1e --at MESSAGE_UUID
  claudio sessions rename 3f2a9c1e \"parser refactor\"
  claudio sessions delete 3f2a9c1e --yes
  claudio sessions archive                  keep them past the CLI's cleanup

Sessions the CLI deleted but `claudio sessions archive` kept are listed,
searched, shown, exported and counted too (marked archived; --no-archive
leaves them out); `resume` brings one back first. The archive is
$CLAUDIO_ARCHIVE_DIR, else claudio/archive under $XDG_DATA_HOME
(~/.local/share).

Exit codes: 0 success, 1 failure (not found, unreadable, delete declined),
2 usage (bad id, no terminal to confirm a delete without --yes).";

/// `claudio sessions ...`
#[derive(Debug, Args)]
#[command(after_help = SESSIONS_HELP)]
pub struct SessionsCommand {
    /// The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude].
    #[arg(long, value_name = "DIR", global = true)]
    pub config_dir: Option<PathBuf>,
    /// Leave out the sessions only claudio's archive holds.
    #[arg(long, global = true)]
    pub no_archive: bool,
    #[command(subcommand)]
    pub action: SessionsAction,
}

/// The `sessions` subcommands.
#[derive(Debug, Subcommand)]
pub enum SessionsAction {
    /// List sessions, newest first (this directory's, or --all).
    #[command(after_help = LIST_HELP)]
    List(ListArgs),
    /// Show a session's conversation as the CLI would resume it.
    #[command(after_help = INSPECT_HELP, visible_alias = "show")]
    Inspect(InspectArgs),
    /// Search inside past conversations: prompts and answers (--tools: tool
    /// calls too), newest sessions first.
    #[command(after_help = search::HELP)]
    Search(search::SearchArgs),
    /// Write a conversation as Markdown, HTML or JSON (stdout, or -O FILE).
    #[command(after_help = export::HELP)]
    Export(export::ExportArgs),
    /// Tokens and estimated cost, by day, month, model, project, session or 5-hour block.
    #[command(after_help = usage::HELP)]
    Usage(usage::UsageArgs),
    /// Open the chat on a session, in the directory it was recorded in
    /// (--tui: the claude TUI, its requests answerable from `claudio deck`).
    #[command(after_help = RESUME_HELP)]
    Resume(ResumeArgs),
    /// Copy a session into a new one with fresh ids; prints the new id.
    Fork(ForkArgs),
    /// Set a session's title (appends the CLI's custom-title line).
    Rename(RenameArgs),
    /// Tag a session (appends the CLI's tag line).
    Tag(TagArgs),
    /// Delete a session's transcript (asks first, unless --yes).
    Delete(DeleteArgs),
    /// Copy every transcript into claudio's archive (compressed, only what
    /// changed), where the CLI's cleanup does not reach it.
    #[command(after_help = ARCHIVE_HELP)]
    Archive(ArchiveArgs),
    /// The newest session ids that start with PREFIX, one a line (what the
    /// shell completion scripts offer).
    #[command(hide = true)]
    CompleteIds(super::complete::CompleteArgs),
}

const ARCHIVE_HELP: &str = "\
The CLI deletes transcripts older than cleanupPeriodDays (30 by default) when
it starts; `claudio doctor` says how many it will delete soon. The archive
keeps a zstd copy of each transcript and its sub-agents, under
$CLAUDIO_ARCHIVE_DIR, else claudio/archive under $XDG_DATA_HOME
(~/.local/share). Unchanged files are skipped; a transcript being written is
archived on a later run; the CLI's own files are only read. With
`archive = \"auto\"` in the config file every claudio run does this in the
background.

-o json (or ndjson: the same one line) prints the summary as one object:
archived, unchanged, busy, bytesIn, bytesOut, shorter and failed ({path,
reason} each), anotherPass when set, and archive (its folder).

Exit codes: 0 done, 1 some files could not be read or written (named).";

/// Arguments of `sessions archive`.
#[derive(Debug, Args)]
pub struct ArchiveArgs {
    /// text, or json (the summary as one object on one line; ndjson is the same).
    #[arg(short = 'o', long, value_enum, value_name = "FORMAT", default_value_t)]
    pub output: Output,
    /// The old spelling of `-o json`.
    #[arg(long, hide = true, conflicts_with = "output")]
    pub json: bool,
}

impl ArchiveArgs {
    /// What to print.
    pub fn output(&self) -> Output {
        self.output.or_old_json(self.json, Output::Json)
    }
}

const INSPECT_HELP: &str = "\
The conversation is the chain the CLI resumes: from the newest main-chain
message back through parentUuid. On a terminal, long output goes through
$PAGER (else `less -R`).

-o ndjson prints the chain's user, assistant and system entries (then the
sub-agents' with --subagents), one JSON object per line, exactly as stored in
the transcript; -o json prints them as one array, an entry a line.

--grep PATTERN takes literal text (smart case: case matters only when the
pattern has a capital); with -e/--regex it is a regex (Rust syntax), and -s
or -i decide the case.";

const LIST_HELP: &str = "\
-o json prints one array, -o ndjson one object per line, each with the fields
of the TypeScript SDK's listSessions(): sessionId, summary, lastModified,
fileSize, customTitle, firstPrompt, gitBranch, cwd, tag, createdAt, archived
(and fromArchive for a session only claudio's archive holds). With --long, also
usage {input, output, cacheWrite, cacheRead}, models, prompts, apiRequests,
firstActivity, lastActivity, estimatedCostUsd and costIsPartial.

Piped, the table is tab-separated with whole ids, for cut and awk.";

/// Arguments of `sessions list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Every project's sessions, not only this directory's.
    #[arg(short, long)]
    pub all: bool,
    /// List this directory's sessions (and its git worktrees') instead of the current one.
    #[arg(long, value_name = "DIR", conflicts_with = "all")]
    pub cwd: Option<PathBuf>,
    /// At most this many sessions (the newest).
    #[arg(short = 'n', long, value_name = "N")]
    pub limit: Option<usize>,
    /// Only sessions written to since then: 30m, 12h, 7d, 2w, or a date (2026-11-01).
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// text (a table), json (one array) or ndjson (one session a line).
    #[arg(short = 'o', long, value_enum, value_name = "FORMAT", default_value_t)]
    pub output: Output,
    /// The old spelling of `-o json`.
    #[arg(long, hide = true, conflicts_with = "output")]
    pub json: bool,
    /// With each session's usage: in the table, total tokens and the
    /// estimated cost; in JSON, tokens, models, prompts, API requests and
    /// the estimate. Reads whole transcripts, so it is slower.
    #[arg(short, long)]
    pub long: bool,
    /// The old spelling of `--long` with JSON.
    #[arg(long, hide = true)]
    pub usage: bool,
}

impl ListArgs {
    /// What to print.
    pub fn output(&self) -> Output {
        self.output.or_old_json(self.json, Output::Json)
    }

    /// Whether each session's usage is read.
    pub fn with_usage(&self) -> bool {
        self.long || self.usage
    }
}

/// Arguments of `sessions inspect`.
#[derive(Debug, Args)]
pub struct InspectArgs {
    /// Session id or unique prefix.
    pub id: String,
    /// text (the conversation), ndjson (the entries as stored, one a line) or json (one array of them).
    #[arg(short = 'o', long, value_enum, value_name = "FORMAT", default_value_t)]
    pub output: Output,
    /// The old spelling of `-o ndjson`.
    #[arg(long, hide = true, conflicts_with = "output")]
    pub json: bool,
    /// Also the session's sub-agent runs, each after the conversation.
    #[arg(long)]
    pub subagents: bool,
    /// Jump to the lines holding this text (smart case): on a terminal the
    /// pager opens at the first, with every one marked; in a pipe only
    /// those lines are printed, each after who said it.
    #[arg(long, value_name = "PATTERN")]
    pub grep: Option<String>,
    /// The --grep pattern is a regular expression (Rust regex syntax).
    #[arg(short = 'e', long, requires = "grep")]
    pub regex: bool,
    /// Case always matters to --grep.
    #[arg(short = 's', long, requires = "grep")]
    pub case_sensitive: bool,
    /// Case never matters to --grep.
    #[arg(
        short = 'i',
        long,
        requires = "grep",
        conflicts_with = "case_sensitive"
    )]
    pub ignore_case: bool,
}

impl InspectArgs {
    /// What to print.
    pub fn output(&self) -> Output {
        self.output.or_old_json(self.json, Output::Ndjson)
    }
}

const RESUME_HELP: &str = "\
--tui starts the claude TUI itself (`claude --resume ID`, found as the chat
finds it: --cli-path, CLAUDIO_CLI, the config file, else $PATH) in place of
claudio. Its permission requests reach `claudio deck`: the PermissionRequest
hook `claudio deck hooks install` writes is given to this session alone, in
the CLI's --settings, and no settings file is changed (when one already holds
the hook, none is added).";

/// Arguments of `sessions resume`.
#[derive(Debug, Args)]
pub struct ResumeArgs {
    /// Session id or unique prefix.
    pub id: String,
    /// The claude TUI instead of claudio's chat, its permission requests
    /// answerable from `claudio deck` (no settings file changed).
    #[arg(long)]
    pub tui: bool,
}

/// Arguments of `sessions fork`.
#[derive(Debug, Args)]
pub struct ForkArgs {
    /// Session id or unique prefix.
    pub id: String,
    /// Copy only up to this message (its uuid or a unique prefix; see `show --json`).
    #[arg(long, value_name = "MESSAGE_UUID")]
    pub at: Option<String>,
    /// The fork's title (else the original's, marked "(fork)").
    #[arg(long)]
    pub title: Option<String>,
}

/// Arguments of `sessions rename`.
#[derive(Debug, Args)]
pub struct RenameArgs {
    /// Session id or unique prefix.
    pub id: String,
    /// The new title.
    pub title: String,
}

/// Arguments of `sessions tag`.
#[derive(Debug, Args)]
pub struct TagArgs {
    /// Session id or unique prefix.
    pub id: String,
    /// The tag.
    #[arg(required_unless_present = "clear")]
    pub tag: Option<String>,
    /// Remove the tag.
    #[arg(long, conflicts_with = "tag")]
    pub clear: bool,
}

/// Arguments of `sessions delete`.
#[derive(Debug, Args)]
pub struct DeleteArgs {
    /// Session id or unique prefix.
    pub id: String,
    /// Don't ask for confirmation.
    #[arg(short, long)]
    pub yes: bool,
    /// Also delete the session's copies in claudio's archive (with their
    /// sub-agents), in the same step: what a leaked secret needs.
    #[arg(long)]
    pub archived_too: bool,
}

#[cfg(test)]
mod tests {
    use super::super::testing::{TestCli, A};
    use super::*;
    use clap::{CommandFactory, Parser};

    #[test]
    fn wiring_parses() {
        TestCli::command().debug_assert();
        assert!(TestCli::try_parse_from(["claudio", "sessions", "tag", A]).is_err());
        assert!(TestCli::try_parse_from(["claudio", "sessions", "tag", A, "--clear"]).is_ok());
        assert!(
            TestCli::try_parse_from(["claudio", "sessions", "list", "--all", "--cwd", "/x"])
                .is_err()
        );
        assert!(SessionsAction::has_subcommand("delete"));
        let c = TestCli::try_parse_from(["claudio", "sessions", "archive", "--json"]).unwrap();
        assert!(format!("{c:?}").contains("json: true"), "{c:?}");
        assert!(TestCli::try_parse_from(["claudio", "sessions", "list", "--no-archive"]).is_ok());
    }

    #[test]
    fn sessions_take_the_global_flags() {
        use crate::cli::args::{Cli, Command};
        let list = |argv: &[&str]| {
            let c = Cli::try_parse_from(argv).unwrap();
            let Some(Command::Sessions(s)) = c.command else {
                panic!()
            };
            let SessionsAction::List(l) = s.action else {
                panic!()
            };
            l
        };
        let l = list(&[
            "claudio", "--color", "never", "sessions", "list", "--cwd", "/d", "-n", "3", "--json",
        ]);
        assert_eq!(l.cwd.as_deref(), Some(std::path::Path::new("/d")));
        assert_eq!((l.limit, l.output(), l.all), (Some(3), Output::Json, false));
        // the chat's flags are the chat's: not taken after `sessions`
        for flag in ["--model", "--permission-mode", "--max-budget-usd"] {
            assert!(
                Cli::try_parse_from(["claudio", "sessions", "list", flag, "3"]).is_err(),
                "{flag}"
            );
        }
    }
}
