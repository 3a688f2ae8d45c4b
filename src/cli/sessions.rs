//! `claudio sessions`: list, show, resume, fork, rename, tag and delete the
//! transcripts the Claude Code CLI keeps (`claudio::store`).
//!
//! Transcript text is untrusted: everything shown on a terminal goes through
//! the [`Sanitizer`]; `--json` output carries the stored bytes unchanged.

use super::exit::Exit;
use super::sanitize::Sanitizer;
use super::style::{ColorChoice, Style};
use super::summary::{one_line, tool_summary};
use anyhow::Context;
mod export;
mod search;
mod usage;

use clap::{Args, Subcommand};
use claudio::store::{Conversation, ListOptions, SessionInfo, Store, StoreError};
use serde_json::Value;
use std::io::{self, IsTerminal, Read, Write};
use std::path::PathBuf;

const SESSIONS_HELP: &str = "\
Sessions are the transcripts the Claude Code CLI writes under
$CLAUDE_CONFIG_DIR/projects (else ~/.claude/projects), one folder per working
directory. An ID is a full session id or a unique prefix of at least 4 hex
digits (`claudio sessions list` shows 8).

Examples:
  claudio sessions list                     this directory's sessions, newest first
  claudio sessions list --all --limit 20    every project
  claudio sessions show 3f2a9c1e            the conversation, in a pager when long
  claudio sessions show 3f2a9c1e --json | jq -r .type
  claudio sessions resume 3f2a9c1e          chat on, in the directory it ran in
  claudio sessions fork 3f2a9c1e --at MESSAGE_UUID
  claudio sessions rename 3f2a9c1e \"parser refactor\"
  claudio sessions delete 3f2a9c1e --yes

Exit codes: 0 success, 1 failure (not found, unreadable, delete declined),
2 usage (bad id, no terminal to confirm a delete without --yes).";

/// `claudio sessions ...`
#[derive(Debug, Args)]
#[command(after_help = SESSIONS_HELP)]
pub struct SessionsArgs {
    /// The Claude configuration folder holding `projects/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude].
    #[arg(long, value_name = "DIR", global = true)]
    pub config_dir: Option<PathBuf>,
    #[command(subcommand)]
    pub command: SessionsCommand,
}

/// The `sessions` subcommands.
#[derive(Debug, Subcommand)]
pub enum SessionsCommand {
    /// List sessions, newest first (this directory's, or --all).
    List(ListArgs),
    /// Show a session's conversation as the CLI would resume it.
    #[command(after_help = SHOW_HELP, visible_alias = "show")]
    Inspect(ShowArgs),
    /// Search inside past conversations: prompts and answers (--tools: tool
    /// calls too), newest sessions first.
    Search(search::SearchArgs),
    /// Write a conversation as Markdown, HTML or JSON (stdout, or -o FILE).
    Export(export::ExportArgs),
    /// Tokens and estimated cost, by day, month, model, project or session.
    Usage(usage::UsageArgs),
    /// Open the chat on a session, in the directory it was recorded in.
    Resume(IdArgs),
    /// Copy a session into a new one with fresh ids; prints the new id.
    Fork(ForkArgs),
    /// Set a session's title (appends the CLI's custom-title line).
    Rename(RenameArgs),
    /// Tag a session (appends the CLI's tag line).
    Tag(TagArgs),
    /// Delete a session's transcript (asks first, unless --yes).
    Delete(DeleteArgs),
}

const SHOW_HELP: &str = "\
The conversation is the chain the CLI resumes: from the newest main-chain
message back through parentUuid. On a terminal, long output goes through
$PAGER (else `less -R`).

--json prints the chain's user, assistant and system entries, one JSON object
per line, exactly as stored in the transcript.";

/// Arguments of `sessions list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Every project's sessions, not only this directory's.
    #[arg(short, long)]
    pub all: bool,
    /// List this directory's sessions (and its git worktrees') instead of the current one.
    #[arg(long, value_name = "DIR", conflicts_with = "all")]
    pub cwd: Option<PathBuf>,
    /// At most this many sessions.
    #[arg(short = 'n', long, value_name = "N")]
    pub limit: Option<usize>,
    /// Print a JSON array with the fields of the TypeScript SDK's listSessions().
    #[arg(long)]
    pub json: bool,
    /// With --json, add each session's usage (tokens, models, prompts, API
    /// requests, estimated cost). Reads whole transcripts, so it is slower.
    #[arg(long, requires = "json")]
    pub usage: bool,
    /// Add columns: total tokens and the estimated cost (reads whole
    /// transcripts, so it is slower).
    #[arg(short, long, conflicts_with = "json")]
    pub long: bool,
}

/// Arguments of `sessions show`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// Session id or unique prefix.
    pub id: String,
    /// Print the entries as stored, one JSON object per line.
    #[arg(long)]
    pub json: bool,
    /// Also the session's sub-agent runs, each after the conversation.
    #[arg(long)]
    pub subagents: bool,
    /// Jump to the lines holding this text (smart case): on a terminal the
    /// pager opens at the first, with every one marked; in a pipe only
    /// those lines are printed, each after who said it.
    #[arg(long, value_name = "PATTERN")]
    pub grep: Option<String>,
}

/// A session id.
#[derive(Debug, Args)]
pub struct IdArgs {
    /// Session id or unique prefix.
    pub id: String,
}

/// Arguments of `sessions fork`.
#[derive(Debug, Args)]
pub struct ForkArgs {
    /// Session id or unique prefix.
    pub id: String,
    /// Copy only up to this message (its uuid or a unique prefix; see `show --json`).
    #[arg(long, value_name = "MESSAGE_UUID")]
    pub at: Option<String>,
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
}

/// What `claudio sessions` asks of its caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionsOutcome {
    /// Done: exit with this code.
    Done(Exit),
    /// Open the chat on session `id`, with the CLI started in `cwd`.
    Resume { id: String, cwd: PathBuf },
}

/// Run `claudio sessions ...`.
pub async fn run(args: SessionsArgs, color: ColorChoice) -> anyhow::Result<SessionsOutcome> {
    tokio::task::spawn_blocking(move || run_with(args, &mut Io::real(color)))
        .await
        .context("the sessions command stopped unexpectedly")?
}

/// Where output goes and what the terminal is like (replaced in tests).
struct Io {
    out: Box<dyn Write + Send>,
    err: Box<dyn Write + Send>,
    out_style: Style,
    err_style: Style,
    /// Stdout is a terminal: cut titles to its width, page long output.
    out_tty: bool,
    /// Terminal size (columns, rows), when known.
    size: Option<(usize, usize)>,
    /// Where delete confirmations are asked.
    tty: PathBuf,
    /// Milliseconds since the epoch, for relative times.
    now_ms: i64,
    /// The directory listed by default.
    cwd: Option<PathBuf>,
}

impl Io {
    fn real(color: ColorChoice) -> Io {
        let out_tty = io::stdout().is_terminal();
        Io {
            // A pipe gets big writes; a terminal sees each line at once.
            out: if out_tty {
                Box::new(io::stdout())
            } else {
                Box::new(io::BufWriter::with_capacity(64 * 1024, io::stdout()))
            },
            err: Box::new(io::stderr()),
            out_style: Style::decide(color, out_tty),
            err_style: Style::for_stderr(color),
            out_tty,
            size: if out_tty { terminal_size() } else { None },
            // a test seam (see approve.rs), not a setting
            tty: std::env::var_os("CLAUDIO_TEST_TTY")
                .map(Into::into)
                .unwrap_or_else(|| "/dev/tty".into()),
            now_ms: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as i64),
            cwd: std::env::current_dir().ok(),
        }
    }

    /// Write an error or notice on stderr, made safe for a terminal.
    fn warn(&mut self, msg: &str) {
        let _ = writeln!(self.err, "claudio: {}", Sanitizer::clean(msg));
    }
}

fn terminal_size() -> Option<(usize, usize)> {
    // SAFETY: TIOCGWINSZ fills the winsize struct we own.
    let mut ws: libc::winsize = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut ws) } == 0;
    (ok && ws.ws_col > 0).then(|| (ws.ws_col as usize, ws.ws_row.max(1) as usize))
}

fn run_with(args: SessionsArgs, io: &mut Io) -> anyhow::Result<SessionsOutcome> {
    let store = match &args.config_dir {
        Some(dir) => Store::new(dir),
        None => Store::from_env()?,
    };
    let result = match args.command {
        SessionsCommand::List(a) => list(&store, a, io),
        SessionsCommand::Inspect(a) => show(&store, a, io),
        SessionsCommand::Search(a) => search::search(&store, a, io),
        SessionsCommand::Export(a) => export::export(&store, a, io),
        SessionsCommand::Usage(a) => usage::usage(&store, a, io),
        SessionsCommand::Resume(a) => resume(&store, &a.id),
        SessionsCommand::Fork(a) => store
            .fork(&a.id, a.at.as_deref())
            .map_err(Into::into)
            .and_then(|id| {
                writeln!(io.out, "{id}")?;
                Ok(SessionsOutcome::Done(Exit::Success))
            }),
        SessionsCommand::Rename(a) => store
            .rename(&a.id, &a.title)
            .map(|_| SessionsOutcome::Done(Exit::Success))
            .map_err(Into::into),
        SessionsCommand::Tag(a) => {
            let tag = if a.clear { None } else { a.tag.as_deref() };
            store
                .tag(&a.id, tag)
                .map(|_| SessionsOutcome::Done(Exit::Success))
                .map_err(Into::into)
        }
        SessionsCommand::Delete(a) => delete(&store, a, io),
    };
    // A bad id or an empty title is a usage error (2); the rest are failures.
    match result {
        Err(e) => match e.downcast_ref::<StoreError>() {
            Some(se @ (StoreError::InvalidId(_) | StoreError::Empty(_))) => {
                let msg = se.to_string();
                io.warn(&msg);
                Ok(SessionsOutcome::Done(Exit::Usage))
            }
            _ => Err(e),
        },
        ok => ok,
    }
}

fn resume(store: &Store, id: &str) -> anyhow::Result<SessionsOutcome> {
    let t = store.resume_target(id)?;
    if !t.cwd.is_dir() {
        anyhow::bail!(
            "cannot resume {}: its working directory {} no longer exists",
            t.id,
            t.cwd.display()
        );
    }
    Ok(SessionsOutcome::Resume {
        id: t.id,
        cwd: t.cwd,
    })
}

// ---- list -------------------------------------------------------------------

fn list(store: &Store, a: ListArgs, io: &mut Io) -> anyhow::Result<SessionsOutcome> {
    let mut opts = if a.all {
        ListOptions::all()
    } else {
        let dir = a
            .cwd
            .or_else(|| io.cwd.clone())
            .context("cannot tell the current directory; pass --cwd or --all")?;
        ListOptions::for_dir(dir)
    };
    if let Some(n) = a.limit {
        opts = opts.limit(n);
    }
    let listing = store.list(&opts)?;
    const SHOWN: usize = 5;
    for s in listing.skipped.iter().take(SHOWN) {
        let msg = format!("skipped {}: {}", s.path.display(), s.reason);
        io.warn(&msg);
    }
    if listing.skipped.len() > SHOWN {
        let msg = format!(
            "skipped {} more unreadable transcripts",
            listing.skipped.len() - SHOWN
        );
        io.warn(&msg);
    }
    if a.json && a.usage {
        let rows: Vec<serde_json::Value> = listing
            .sessions
            .iter()
            .map(|s| {
                let mut v = serde_json::to_value(s).unwrap_or_default();
                if let (Some(o), Ok(u)) = (v.as_object_mut(), claudio::store::file_usage(&s.path)) {
                    for (k, x) in usage::json_fields(&u) {
                        o.insert(k.to_owned(), x);
                    }
                }
                v
            })
            .collect();
        write_json_values(&mut io.out, &rows)?;
    } else if a.json {
        write_json_array(&mut io.out, &listing.sessions)?;
    } else if listing.sessions.is_empty() {
        let msg = match &opts.dir {
            Some(d) => format!("no sessions for {} (try --all)", d.display()),
            None => format!("no sessions in {}", store.projects_dir().display()),
        };
        io.warn(&msg);
    } else {
        let long: Option<Vec<[String; 2]>> = a.long.then(|| {
            listing
                .sessions
                .iter()
                .map(|s| match claudio::store::file_usage(&s.path) {
                    Ok(u) => usage::long_cells(&u),
                    Err(_) => ["?".into(), "?".into()],
                })
                .collect()
        });
        let table = render_table(&listing.sessions, io, long.as_deref());
        io.out.write_all(table.as_bytes())?;
    }
    io.out.flush()?;
    Ok(SessionsOutcome::Done(Exit::Success))
}

/// A JSON array of values, one per line.
fn write_json_values(out: &mut dyn Write, rows: &[serde_json::Value]) -> anyhow::Result<()> {
    if rows.is_empty() {
        writeln!(out, "[]")?;
        return Ok(());
    }
    writeln!(out, "[")?;
    for (i, r) in rows.iter().enumerate() {
        let sep = if i + 1 < rows.len() { "," } else { "" };
        writeln!(out, "{}{sep}", serde_json::to_string(r)?)?;
    }
    writeln!(out, "]")?;
    Ok(())
}

/// A JSON array, one session per line.
fn write_json_array(out: &mut dyn Write, sessions: &[SessionInfo]) -> anyhow::Result<()> {
    if sessions.is_empty() {
        writeln!(out, "[]")?;
        return Ok(());
    }
    writeln!(out, "[")?;
    for (i, s) in sessions.iter().enumerate() {
        let sep = if i + 1 < sessions.len() { "," } else { "" };
        writeln!(out, "{}{sep}", serde_json::to_string(s)?)?;
    }
    writeln!(out, "]")?;
    Ok(())
}

/// Columns: id, modified, title, branch, size; the title takes what the
/// terminal width leaves.
fn render_table(sessions: &[SessionInfo], io: &Io, long: Option<&[[String; 2]]>) -> String {
    let st = io.out_style;
    let rows: Vec<[String; 5]> = sessions
        .iter()
        .map(|s| {
            let mut title = flat(&s.summary);
            if let Some(tag) = s.tag.as_deref() {
                title = format!("[{}] {title}", flat(tag));
            }
            [
                s.session_id.chars().take(8).collect(),
                relative_time(io.now_ms, s.last_modified),
                title,
                s.git_branch.as_deref().map(flat).unwrap_or_default(),
                human_size(s.file_size),
            ]
        })
        .collect();
    let header = ["ID", "MODIFIED", "TITLE", "BRANCH", "SIZE"];
    let long_header = ["TOKENS", "EST. COST"];
    let w = |i: usize| {
        rows.iter()
            .map(|r| width(&r[i]))
            .chain([header[i].len()])
            .max()
            .unwrap_or(0)
    };
    let wl = |i: usize| {
        long.map_or(0, |l| {
            l.iter()
                .map(|r| width(&r[i]))
                .chain([long_header[i].len()])
                .max()
                .unwrap_or(0)
        })
    };
    let (w_id, w_mod, w_branch, w_size) = (w(0), w(1), w(3).min(30), w(4));
    let (w_tok, w_cost) = (wl(0), wl(1));
    let extra = if long.is_some() {
        w_tok + w_cost + 4
    } else {
        0
    };
    let fixed = w_id + w_mod + w_branch + w_size + 8 + extra;
    let w_title = match io.size {
        Some((cols, _)) if io.out_tty => cols.saturating_sub(fixed).max(10),
        _ => usize::MAX,
    };
    let w_title = w_title.min(w(2));
    let mut out = String::new();
    let line = |cells: [&str; 5], more: Option<[&str; 2]>, out: &mut String, head: bool| {
        let title = cut(cells[2], w_title);
        let branch = cut(cells[3], w_branch);
        let mut text = format!(
            "{}  {}  {}  {}  {}",
            pad(cells[0], w_id),
            pad(cells[1], w_mod),
            pad(&title, w_title),
            pad(&branch, w_branch),
            pad_left(cells[4], w_size)
        );
        if let Some([tok, cost]) = more {
            text.push_str(&format!(
                "  {}  {}",
                pad_left(tok, w_tok),
                pad_left(cost, w_cost)
            ));
        }
        let text = text.trim_end().to_owned();
        out.push_str(&if head { st.dim(&text) } else { text });
        out.push('\n');
    };
    line(header, long.map(|_| long_header), &mut out, true);
    for (i, r) in rows.iter().enumerate() {
        let more = long
            .and_then(|l| l.get(i))
            .map(|m| [m[0].as_str(), m[1].as_str()]);
        line([&r[0], &r[1], &r[2], &r[3], &r[4]], more, &mut out, false);
    }
    out
}

/// One line of inert text: controls and escape sequences removed, line
/// breaks and tabs made spaces.
fn flat(s: &str) -> String {
    Sanitizer::clean(s)
        .chars()
        .map(|c| if c == '\n' || c == '\t' { ' ' } else { c })
        .collect()
}

/// Columns a string takes (wide East Asian characters count two).
fn width(s: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(s)
}

/// At most `max` columns, with `…` when cut.
fn cut(s: &str, max: usize) -> String {
    super::summary::truncate_width(s, max)
}

fn pad(s: &str, w: usize) -> String {
    if w == usize::MAX {
        return s.to_owned();
    }
    format!("{s}{}", " ".repeat(w.saturating_sub(width(s))))
}

fn pad_left(s: &str, w: usize) -> String {
    format!("{}{s}", " ".repeat(w.saturating_sub(width(s))))
}

pub(crate) fn relative_time(now_ms: i64, then_ms: i64) -> String {
    let secs = (now_ms - then_ms) / 1000;
    match secs {
        s if s < 60 => "just now".into(),
        s if s < 3600 => format!("{}m ago", s / 60),
        s if s < 86_400 => format!("{}h ago", s / 3600),
        s if s < 30 * 86_400 => format!("{}d ago", s / 86_400),
        _ => local_time(then_ms).0,
    }
}

pub(crate) fn human_size(n: u64) -> String {
    const UNITS: [&str; 4] = ["K", "M", "G", "T"];
    if n < 1024 {
        return format!("{n}B");
    }
    let mut v = n as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit < UNITS.len() - 1 {
        v /= 1024.0;
        unit += 1;
    }
    if v < 10.0 {
        format!("{v:.1}{}", UNITS[unit])
    } else {
        format!("{v:.0}{}", UNITS[unit])
    }
}

/// (`YYYY-MM-DD`, `HH:MM`) in local time.
fn local_time(ms: i64) -> (String, String) {
    let t = ms.div_euclid(1000) as libc::time_t;
    // SAFETY: localtime_r writes into the tm we own.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    if unsafe { libc::localtime_r(&t, &mut tm) }.is_null() {
        let iso = claudio::store::format_iso_millis(ms);
        return (iso[..10].to_owned(), iso[11..16].to_owned());
    }
    (
        format!(
            "{:04}-{:02}-{:02}",
            tm.tm_year + 1900,
            tm.tm_mon + 1,
            tm.tm_mday
        ),
        format!("{:02}:{:02}", tm.tm_hour, tm.tm_min),
    )
}

// ---- show -------------------------------------------------------------------

fn show(store: &Store, a: ShowArgs, io: &mut Io) -> anyhow::Result<SessionsOutcome> {
    let (file, conv) = store.conversation(&a.id)?;
    let agents = if a.subagents {
        store.subagents(&file.id)?
    } else {
        Vec::new()
    };
    if a.json {
        for e in &conv.entries {
            if matches!(e.kind(), "user" | "assistant" | "system") {
                io.out.write_all(e.raw.as_bytes())?;
                io.out.write_all(b"\n")?;
            }
        }
        for agent in &agents {
            for e in store.subagent_messages(&file.id, &agent.agent_id)? {
                io.out.write_all(e.raw.as_bytes())?;
                io.out.write_all(b"\n")?;
            }
        }
        io.out.flush()?;
        return Ok(SessionsOutcome::Done(Exit::Success));
    }
    let info = store.info(&file);
    let mut text = render_conversation(&file.id, info.as_ref(), &conv, io.out_style);
    if a.subagents && agents.is_empty() {
        text.push_str(&io.out_style.dim("(no sub-agents)\n"));
    }
    for agent in &agents {
        let mut head = format!("── sub-agent {}", agent.agent_id);
        if let Some(d) = &agent.description {
            head.push_str(&format!(" · {}", flat(d)));
        }
        if let Some(t) = &agent.agent_type {
            head.push_str(&format!(" ({})", flat(t)));
        }
        head.push_str(" ──");
        text.push('\n');
        text.push_str(&io.out_style.bold(&head));
        text.push('\n');
        let mut sub = Conversation::default();
        sub.entries = store.subagent_messages(&file.id, &agent.agent_id)?;
        // the agent's own chain, shown as a conversation of its own
        for e in &mut sub.entries {
            if let Some(o) = e.value.as_object_mut() {
                o.remove("isSidechain");
            }
        }
        let body = render_conversation(&agent.agent_id, None, &sub, io.out_style);
        // its own header line is the one above
        text.push_str(body.split_once('\n').map_or("", |(_, rest)| rest));
    }
    // what the session used, under its header line
    if let Ok(u) = claudio::store::file_usage(&file.path) {
        if !u.messages.is_empty() {
            let line = io.out_style.dim(&flat(&usage::summary_line(&u)));
            let at = text.find('\n').map_or(text.len(), |i| i + 1);
            text.insert_str(at, &format!("{line}\n"));
        }
    }
    if let Some(pattern) = a.grep.as_deref().filter(|p| !p.is_empty()) {
        let (marked, hits) = grep_marks(&text, pattern, io.out_style);
        if hits == 0 {
            io.warn(&format!("no line of this conversation holds {pattern:?}"));
            return Ok(SessionsOutcome::Done(Exit::Failure));
        }
        if !io.out_tty {
            io.out.write_all(marked.as_bytes())?;
            io.out.flush()?;
            return Ok(SessionsOutcome::Done(Exit::Success));
        }
        // the pager opens at the first marked line
        if page_at(&text, pattern).is_ok() {
            return Ok(SessionsOutcome::Done(Exit::Success));
        }
        io.out.write_all(marked.as_bytes())?;
        io.out.flush()?;
        return Ok(SessionsOutcome::Done(Exit::Success));
    }
    let long = io
        .size
        .is_some_and(|(_, rows)| text.lines().count() + 1 > rows);
    if io.out_tty && long && page(&text).is_ok() {
        return Ok(SessionsOutcome::Done(Exit::Success));
    }
    io.out.write_all(text.as_bytes())?;
    io.out.flush()?;
    Ok(SessionsOutcome::Done(Exit::Success))
}

/// The lines of a rendered conversation that hold `pattern` (smart case),
/// each after who said it (`you`, `claude`, or a sub-agent's line), and how
/// many there were.
fn grep_marks(text: &str, pattern: &str, st: Style) -> (String, usize) {
    let fold = !pattern.chars().any(char::is_uppercase);
    let want = if fold {
        pattern.to_lowercase()
    } else {
        pattern.to_owned()
    };
    let mut speaker = String::new();
    let mut out = String::new();
    let mut hits = 0;
    for line in text.lines() {
        let plain = crate::cli::chat::markdown::strip_sgr(line);
        let head = plain.split(" · ").next().unwrap_or("");
        if matches!(head, "you" | "claude") || plain.starts_with("── sub-agent") {
            speaker = plain.clone();
            continue;
        }
        let hay = if fold {
            plain.to_lowercase()
        } else {
            plain.clone()
        };
        if hay.contains(&want) {
            hits += 1;
            out.push_str(&format!(
                "{} {}\n",
                st.dim(&format!("{speaker} ›")),
                plain.trim_start()
            ));
        }
    }
    (out, hits)
}

/// Page `text` opened at the first line holding `pattern` (less's `-p`,
/// which also marks every one); errors if the pager cannot start.
fn page_at(text: &str, pattern: &str) -> io::Result<()> {
    let mut escaped = String::new();
    if !pattern.chars().any(char::is_uppercase) {
        escaped.push_str("(?i)");
    }
    for c in pattern.chars() {
        if "\\.^$|?*+()[]{}".contains(c) {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    // less takes -i for case; a regex flag it may not know, so use -I
    let fold = escaped.starts_with("(?i)");
    let pat = escaped.trim_start_matches("(?i)");
    let mut cmd = std::process::Command::new("less");
    cmd.arg("-R");
    if fold {
        cmd.arg("-I");
    }
    cmd.arg(format!("-p{pat}"))
        .stdin(std::process::Stdio::piped());
    let mut child = cmd.spawn()?;
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(text.as_bytes());
    }
    child.wait()?;
    Ok(())
}

/// Send text through `$PAGER` (else `less -R`); errors if it cannot start.
fn page(text: &str) -> io::Result<()> {
    let pager = std::env::var("PAGER")
        .ok()
        .filter(|p| !p.trim().is_empty())
        .unwrap_or_else(|| "less -R".into());
    let mut words = pager.split_whitespace();
    let prog = words.next().unwrap_or("less");
    let mut cmd = std::process::Command::new(prog);
    cmd.args(words).stdin(std::process::Stdio::piped());
    if std::env::var_os("LESS").is_none() {
        cmd.env("LESS", "FRX");
    }
    let mut child = cmd.spawn()?;
    if let Some(mut stdin) = child.stdin.take() {
        // A pager closed early (q) is not an error.
        let _ = stdin.write_all(text.as_bytes());
    }
    child.wait()?;
    Ok(())
}

const RESULT_LINES: usize = 4;
const RESULT_WIDTH: usize = 160;

/// The conversation as text: prompts, answers, thinking (dimmed), tool calls
/// with their input and a cut result, and times.
fn render_conversation(
    id: &str,
    info: Option<&SessionInfo>,
    conv: &Conversation,
    st: Style,
) -> String {
    let mut out = String::new();
    let mut head = format!("session {id}");
    if let Some(i) = info {
        if let Some(cwd) = &i.cwd {
            head.push_str(&format!(" · {}", flat(cwd)));
        }
        if let Some(b) = &i.git_branch {
            head.push_str(&format!(" · {}", flat(b)));
        }
    }
    out.push_str(&st.bold(&head));
    out.push('\n');
    if let Some(t) = info.and_then(|i| i.custom_title.as_deref()) {
        out.push_str(&st.bold(&flat(t)));
        out.push('\n');
    }
    let mut speaker = "";
    let mut day = String::new();
    let mut header = |out: &mut String, who: &'static str, ts: Option<&str>, speaker: &mut &str| {
        if *speaker == who {
            return;
        }
        *speaker = who;
        let when = ts
            .and_then(claudio::store::parse_iso_millis)
            .map(|ms| {
                let (d, t) = local_time(ms);
                if d != day {
                    day = d.clone();
                    format!("{d} {t}")
                } else {
                    t
                }
            })
            .unwrap_or_default();
        let name = if who == "you" {
            st.bold(&st.green("you"))
        } else {
            st.bold(&st.cyan("claude"))
        };
        out.push('\n');
        out.push_str(&name);
        if !when.is_empty() {
            out.push_str(&st.dim(&format!(" · {when}")));
        }
        out.push('\n');
    };
    for e in &conv.entries {
        let v = &e.value;
        if v.get("isSidechain") == Some(&Value::Bool(true)) || truthy_str(v.get("teamName")) {
            continue;
        }
        match e.kind() {
            "user" => {
                if v.get("isMeta") == Some(&Value::Bool(true)) {
                    continue;
                }
                let content = v.pointer("/message/content");
                match content {
                    Some(Value::String(s)) => {
                        header(&mut out, "you", e.timestamp(), &mut speaker);
                        push_text(&mut out, s, None);
                    }
                    Some(Value::Array(blocks)) => {
                        for b in blocks {
                            match b.get("type").and_then(Value::as_str) {
                                Some("tool_result") => push_result(&mut out, b, st),
                                Some("text") => {
                                    header(&mut out, "you", e.timestamp(), &mut speaker);
                                    push_text(&mut out, b["text"].as_str().unwrap_or(""), None);
                                }
                                Some(kind @ ("image" | "document")) => {
                                    header(&mut out, "you", e.timestamp(), &mut speaker);
                                    out.push_str(&st.dim(&format!("[{kind}]")));
                                    out.push('\n');
                                }
                                _ => {}
                            }
                        }
                    }
                    _ => {}
                }
            }
            "assistant" => {
                let Some(Value::Array(blocks)) = v.pointer("/message/content") else {
                    continue;
                };
                for b in blocks {
                    match b.get("type").and_then(Value::as_str) {
                        Some("text") => {
                            header(&mut out, "claude", e.timestamp(), &mut speaker);
                            push_text(&mut out, b["text"].as_str().unwrap_or(""), None);
                        }
                        Some("thinking") => {
                            let t = b["thinking"].as_str().unwrap_or("");
                            if !t.trim().is_empty() {
                                header(&mut out, "claude", e.timestamp(), &mut speaker);
                                push_text(&mut out, t, Some(st));
                            }
                        }
                        Some("tool_use") => {
                            header(&mut out, "claude", e.timestamp(), &mut speaker);
                            let name = b["name"].as_str().unwrap_or("?");
                            let summary = tool_summary(name, &b["input"]);
                            out.push_str(&format!(
                                "  {} {} {}\n",
                                st.dim("⏺"),
                                st.bold(&flat(name)),
                                flat(&summary)
                            ));
                        }
                        _ => {}
                    }
                }
            }
            "system" if v.get("subtype").and_then(Value::as_str) == Some("compact_boundary") => {
                out.push_str(&format!("\n{}\n", st.dim("── conversation compacted ──")));
                speaker = "";
            }
            "attachment"
                if v.pointer("/attachment/type").and_then(Value::as_str)
                    == Some("queued_command") =>
            {
                if let Some(p) = v.pointer("/attachment/prompt").and_then(Value::as_str) {
                    header(&mut out, "you", e.timestamp(), &mut speaker);
                    push_text(&mut out, p, None);
                }
            }
            _ => {}
        }
    }
    out
}

fn truthy_str(v: Option<&Value>) -> bool {
    matches!(v, Some(Value::String(s)) if !s.is_empty())
}

/// Text, made inert; thinking (with a style given) is marked `✻` and dimmed.
fn push_text(out: &mut String, text: &str, thinking: Option<Style>) {
    let clean = Sanitizer::clean(text.trim_end());
    for (i, line) in clean.lines().enumerate() {
        match thinking {
            Some(st) => {
                let mark = if i == 0 { "✻ " } else { "  " };
                out.push_str(&st.dim(&format!("{mark}{line}")));
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
}

/// A tool result: its first lines, cut, red when it is an error.
fn push_result(out: &mut String, block: &Value, st: Style) {
    let text = match block.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .map(|p| match p.get("type").and_then(Value::as_str) {
                Some("text") => p["text"].as_str().unwrap_or("").to_owned(),
                Some(other) => format!("[{other}]"),
                None => String::new(),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    };
    let clean = Sanitizer::clean(&text);
    let lines: Vec<&str> = clean.lines().collect();
    let error = block.get("is_error") == Some(&Value::Bool(true));
    let paint = |s: &str| if error { st.red(s) } else { st.dim(s) };
    if lines.is_empty() {
        out.push_str(&format!("    {}\n", paint("⎿ (no output)")));
        return;
    }
    for (i, line) in lines.iter().take(RESULT_LINES).enumerate() {
        let mark = if i == 0 { "⎿ " } else { "  " };
        out.push_str(&format!(
            "    {}\n",
            paint(&format!("{mark}{}", one_line(line, RESULT_WIDTH)))
        ));
    }
    if lines.len() > RESULT_LINES {
        out.push_str(&format!(
            "    {}\n",
            st.dim(&format!("  … {} more lines", lines.len() - RESULT_LINES))
        ));
    }
}

// ---- delete -----------------------------------------------------------------

fn delete(store: &Store, a: DeleteArgs, io: &mut Io) -> anyhow::Result<SessionsOutcome> {
    let file = store.find(&a.id)?;
    if !a.yes {
        let info = store.info(&file);
        let what = match &info {
            Some(i) => format!(
                "{} “{}” ({}, {})",
                &file.id,
                cut(&flat(&i.summary), 60),
                human_size(i.file_size),
                relative_time(io.now_ms, i.last_modified)
            ),
            None => file.id.clone(),
        };
        let mut tty = match std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&io.tty)
        {
            Ok(t) => t,
            Err(_) => {
                let msg = format!(
                    "not deleting {}: no terminal to confirm on; pass --yes to delete without asking",
                    file.id
                );
                io.warn(&msg);
                return Ok(SessionsOutcome::Done(Exit::Usage));
            }
        };
        let question = format!(
            "Delete session {}? {} ",
            Sanitizer::clean(&what),
            io.err_style.bold("[y/N]")
        );
        tty.write_all(question.as_bytes())?;
        tty.flush()?;
        let answer = read_answer(&mut tty)?;
        if !matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes") {
            let msg = format!("kept {}", file.id);
            io.warn(&msg);
            return Ok(SessionsOutcome::Done(Exit::Failure));
        }
    }
    store.delete(&file)?;
    Ok(SessionsOutcome::Done(Exit::Success))
}

/// One line from the terminal (up to 1 KiB).
fn read_answer(tty: &mut std::fs::File) -> io::Result<String> {
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    while line.len() < 1024 {
        match tty.read(&mut byte) {
            Ok(0) => break,
            Ok(_) if byte[0] == b'\n' => break,
            Ok(_) => line.push(byte[0]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(String::from_utf8_lossy(&line).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;
    use serde_json::json;
    use std::os::fd::FromRawFd;
    use std::sync::{Arc, Mutex};

    /// `claudio sessions ...` alone (its wiring under the real top-level
    /// flags is tested in args.rs).
    #[derive(Debug, Parser)]
    #[command(name = "claudio")]
    struct TestCli {
        #[command(subcommand)]
        command: TestCommand,
    }

    #[derive(Debug, clap::Subcommand)]
    enum TestCommand {
        Sessions(SessionsArgs),
    }

    #[derive(Clone, Default)]
    struct Buf(Arc<Mutex<Vec<u8>>>);

    impl Write for Buf {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl Buf {
        fn text(&self) -> String {
            String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
        }
    }

    struct Run {
        out: Buf,
        err: Buf,
        outcome: anyhow::Result<SessionsOutcome>,
    }

    fn run_args(args: &[&str], tty: &std::path::Path, cwd: &std::path::Path) -> Run {
        let mut argv = vec!["claudio", "sessions"];
        argv.extend_from_slice(args);
        let cli = TestCli::try_parse_from(argv).expect("arguments parse");
        let TestCommand::Sessions(a) = cli.command;
        let (out, err) = (Buf::default(), Buf::default());
        let mut io = Io {
            out: Box::new(out.clone()),
            err: Box::new(err.clone()),
            out_style: Style::plain(),
            err_style: Style::plain(),
            out_tty: false,
            size: None,
            tty: tty.to_path_buf(),
            now_ms: 1_800_000_000_000,
            cwd: Some(cwd.to_path_buf()),
        };
        let outcome = run_with(a, &mut io);
        Run { out, err, outcome }
    }

    const A: &str = "aaaaaaaa-1111-4111-8111-111111111111";
    const B: &str = "aaaabbbb-2222-4222-8222-222222222222";
    const U1: &str = "10000000-0000-4000-8000-000000000001";
    const A1: &str = "10000000-0000-4000-8000-000000000002";
    const R1: &str = "10000000-0000-4000-8000-000000000003";
    const A2: &str = "10000000-0000-4000-8000-000000000004";
    const U9: &str = "10000000-0000-4000-8000-000000000009";

    /// A store with two sessions in `/work/proj`, one with a tool call and
    /// terminal escape sequences in its text.
    fn store() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("projects/-work-proj");
        std::fs::create_dir_all(&folder).unwrap();
        let line = |v: Value| format!("{v}\n");
        let mut a = String::new();
        a += &line(
            json!({"type":"user","uuid":U1,"parentUuid":null,"sessionId":A,"cwd":"/work/proj","gitBranch":"main",
            "timestamp":"2026-01-01T10:00:00.000Z","message":{"role":"user","content":"fix the \u{1b}]0;pwned\u{7}bug"}}),
        );
        a += &line(
            json!({"type":"assistant","uuid":A1,"parentUuid":U1,"sessionId":A,"timestamp":"2026-01-01T10:00:05.000Z",
            "message":{"id":"m1","role":"assistant","content":[{"type":"thinking","thinking":"let me look"},
            {"type":"tool_use","id":"t1","name":"Bash","input":{"command":"cargo test"}}]}}),
        );
        a += &line(
            json!({"type":"user","uuid":R1,"parentUuid":A1,"sessionId":A,"timestamp":"2026-01-01T10:00:06.000Z",
            "message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"1\n2\n3\n4\n5\n6","is_error":true}]}}),
        );
        a += &line(
            json!({"type":"assistant","uuid":A2,"parentUuid":R1,"sessionId":A,"timestamp":"2026-01-01T10:00:07.000Z",
            "message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"Fixed \u{1b}[31mit\u{1b}[0m."}]}}),
        );
        std::fs::write(folder.join(format!("{A}.jsonl")), a).unwrap();
        let b = line(
            json!({"type":"user","uuid":U9,"parentUuid":null,"sessionId":B,"cwd":"/work/proj",
            "timestamp":"2026-01-02T10:00:00.000Z","message":{"role":"user","content":"second session"}}),
        );
        std::fs::write(folder.join(format!("{B}.jsonl")), b).unwrap();
        for (id, secs) in [(A, 1_799_990_000u64), (B, 1_799_999_000)] {
            let f = std::fs::File::options()
                .write(true)
                .open(folder.join(format!("{id}.jsonl")))
                .unwrap();
            f.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs))
                .unwrap();
        }
        dir
    }

    fn cfg(d: &tempfile::TempDir) -> String {
        d.path().display().to_string()
    }

    #[test]
    fn wiring_parses() {
        use clap::CommandFactory;
        TestCli::command().debug_assert();
        assert!(TestCli::try_parse_from(["claudio", "sessions", "tag", A]).is_err());
        assert!(TestCli::try_parse_from(["claudio", "sessions", "tag", A, "--clear"]).is_ok());
        assert!(
            TestCli::try_parse_from(["claudio", "sessions", "list", "--all", "--cwd", "/x"])
                .is_err()
        );
        assert!(SessionsCommand::has_subcommand("delete"));
    }

    #[test]
    fn list_json_is_the_library_listing() {
        let d = store();
        let r = run_args(
            &["--config-dir", &cfg(&d), "list", "--all", "--json"],
            "/nonexistent".as_ref(),
            "/".as_ref(),
        );
        assert_eq!(r.outcome.unwrap(), SessionsOutcome::Done(Exit::Success));
        let v: Value = serde_json::from_str(&r.out.text()).unwrap();
        let ours = serde_json::to_value(
            Store::new(d.path())
                .list(&ListOptions::all())
                .unwrap()
                .sessions,
        )
        .unwrap();
        assert_eq!(v, ours);
        assert_eq!(v[0]["sessionId"], B);
        // Bytes exact: the escape sequence is still there, JSON-escaped.
        assert!(r.out.text().contains("\\u001b]0;pwned\\u0007bug"));
    }

    #[test]
    fn list_table_is_inert_and_defaults_to_this_directory() {
        let d = store();
        let r = run_args(
            &["--config-dir", &cfg(&d), "list"],
            "/nonexistent".as_ref(),
            "/work/proj".as_ref(),
        );
        r.outcome.unwrap();
        let out = r.out.text();
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines[0].starts_with("ID"), "{out}");
        assert!(
            lines[1].starts_with("aaaabbbb  16m ago   second session          "),
            "{out}"
        );
        assert!(lines[1].ends_with('B'), "{out}");
        assert!(
            lines[2].starts_with("aaaaaaaa  2h ago    fix the bug     main"),
            "{out}"
        );
        assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'));
        let r = run_args(
            &["--config-dir", &cfg(&d), "list"],
            "/nonexistent".as_ref(),
            "/elsewhere".as_ref(),
        );
        r.outcome.unwrap();
        assert_eq!(r.out.text(), "");
        assert!(
            r.err.text().contains("no sessions for /elsewhere"),
            "{}",
            r.err.text()
        );
    }

    #[test]
    fn show_renders_and_json_keeps_the_bytes() {
        let d = store();
        let r = run_args(
            &["--config-dir", &cfg(&d), "show", "aaaaaaaa"],
            "/nonexistent".as_ref(),
            "/".as_ref(),
        );
        r.outcome.unwrap();
        let out = r.out.text();
        for want in [
            "session aaaaaaaa-1111-4111-8111-111111111111 · /work/proj · main",
            "you · ",
            "fix the bug",
            "claude · ",
            "✻ let me look",
            "⏺ Bash cargo test",
            "⎿ 1",
            "… 2 more lines",
            "Fixed it.",
        ] {
            assert!(out.contains(want), "{want:?} missing in:\n{out}");
        }
        assert!(!out.contains('\u{1b}'), "{out:?}");
        let r = run_args(
            &["--config-dir", &cfg(&d), "show", A, "--json"],
            "/nonexistent".as_ref(),
            "/".as_ref(),
        );
        r.outcome.unwrap();
        let file = std::fs::read_to_string(d.path().join(format!("projects/-work-proj/{A}.jsonl")))
            .unwrap();
        assert_eq!(r.out.text(), file);
    }

    #[test]
    fn bad_and_ambiguous_ids() {
        let d = store();
        let r = run_args(
            &["--config-dir", &cfg(&d), "show", "../../etc"],
            "/nonexistent".as_ref(),
            "/".as_ref(),
        );
        assert_eq!(r.outcome.unwrap(), SessionsOutcome::Done(Exit::Usage));
        assert!(
            r.err.text().contains("invalid session id"),
            "{}",
            r.err.text()
        );
        let r = run_args(
            &["--config-dir", &cfg(&d), "show", "aaaa"],
            "/nonexistent".as_ref(),
            "/".as_ref(),
        );
        let e = r.outcome.unwrap_err().to_string();
        assert!(
            e.contains("ambiguous") && e.contains(A) && e.contains(B),
            "{e}"
        );
        let r = run_args(
            &["--config-dir", &cfg(&d), "rename", A, "  "],
            "/nonexistent".as_ref(),
            "/".as_ref(),
        );
        assert_eq!(r.outcome.unwrap(), SessionsOutcome::Done(Exit::Usage));
    }

    #[test]
    fn rename_tag_fork() {
        let d = store();
        let c = cfg(&d);
        let ok = |args: &[&str]| {
            let r = run_args(args, "/nonexistent".as_ref(), "/".as_ref());
            assert_eq!(r.outcome.unwrap(), SessionsOutcome::Done(Exit::Success));
            r.out.text()
        };
        ok(&["--config-dir", &c, "rename", B, "Second"]);
        ok(&["--config-dir", &c, "tag", B, "wip"]);
        let info = Store::new(d.path())
            .info(&Store::new(d.path()).find(B).unwrap())
            .unwrap();
        assert_eq!(
            (info.summary.as_str(), info.tag.as_deref()),
            ("Second", Some("wip"))
        );
        ok(&["--config-dir", &c, "tag", B, "--clear"]);
        let info = Store::new(d.path())
            .info(&Store::new(d.path()).find(B).unwrap())
            .unwrap();
        assert_eq!(info.tag, None);
        let r = run_args(
            &["--config-dir", &c, "fork", A, "--at", &A1[..12]],
            "/n".as_ref(),
            "/".as_ref(),
        );
        assert!(r.outcome.unwrap_err().to_string().contains("is ambiguous"));
        let new = ok(&["--config-dir", &c, "fork", A, "--at", A1]);
        let new = new.trim();
        assert!(claudio::store::is_uuid(new), "{new}");
        let (_, conv) = Store::new(d.path()).conversation(new).unwrap();
        assert_eq!(conv.entries.len(), 2);
    }

    #[test]
    fn resume_gives_the_recorded_directory() {
        let d = store();
        let work = tempfile::tempdir().unwrap();
        let folder = d.path().join("projects/x");
        std::fs::create_dir_all(&folder).unwrap();
        let id = "cccccccc-3333-4333-8333-333333333333";
        let line = json!({"type":"user","uuid":"u","parentUuid":null,"cwd":work.path(),"message":{"content":"hi"}});
        std::fs::write(folder.join(format!("{id}.jsonl")), format!("{line}\n")).unwrap();
        let r = run_args(
            &["--config-dir", &cfg(&d), "resume", "cccc"],
            "/nonexistent".as_ref(),
            "/".as_ref(),
        );
        assert_eq!(
            r.outcome.unwrap(),
            SessionsOutcome::Resume {
                id: id.into(),
                cwd: work.path().to_path_buf()
            }
        );
        let r = run_args(
            &["--config-dir", &cfg(&d), "resume", A],
            "/nonexistent".as_ref(),
            "/".as_ref(),
        );
        let e = r.outcome.unwrap_err().to_string();
        assert!(e.contains("/work/proj no longer exists"), "{e}");
    }

    #[test]
    fn delete_asks_on_the_terminal() {
        let d = store();
        let c = cfg(&d);
        let path = d.path().join(format!("projects/-work-proj/{A}.jsonl"));
        // No terminal and no --yes: refused, nothing deleted.
        let r = run_args(
            &["--config-dir", &c, "delete", A],
            "/nonexistent/tty".as_ref(),
            "/".as_ref(),
        );
        assert_eq!(r.outcome.unwrap(), SessionsOutcome::Done(Exit::Usage));
        assert!(r.err.text().contains("pass --yes"), "{}", r.err.text());
        assert!(path.exists());
        // A terminal answering no, then yes.
        for (answer, want, exists) in [
            ("n\n", Exit::Failure, true),
            ("yes\n", Exit::Success, false),
        ] {
            let (mut master, slave) = pty();
            master.write_all(answer.as_bytes()).unwrap();
            let r = run_args(
                &["--config-dir", &c, "delete", &A[..8]],
                &slave,
                "/".as_ref(),
            );
            assert_eq!(r.outcome.unwrap(), SessionsOutcome::Done(want));
            assert_eq!(path.exists(), exists);
            let asked = read_available(&mut master);
            assert!(
                asked.contains("Delete session aaaaaaaa-1111-4111-8111-111111111111 “fix the bug”"),
                "{asked:?}"
            );
            assert!(!asked.contains('\u{1b}'), "{asked:?}");
        }
        let r = run_args(
            &["--config-dir", &c, "delete", B, "--yes"],
            "/nonexistent".as_ref(),
            "/".as_ref(),
        );
        assert_eq!(r.outcome.unwrap(), SessionsOutcome::Done(Exit::Success));
    }

    /// A pseudo-terminal: the master side and the slave's path.
    fn pty() -> (std::fs::File, PathBuf) {
        let (mut m, mut sl) = (0, 0);
        let mut name = [0 as libc::c_char; 128];
        // SAFETY: out-pointers are valid; the master fd becomes an owned File.
        let rc = unsafe {
            libc::openpty(
                &mut m,
                &mut sl,
                name.as_mut_ptr(),
                std::ptr::null(),
                std::ptr::null(),
            )
        };
        assert_eq!(rc, 0, "openpty");
        let path = unsafe { std::ffi::CStr::from_ptr(name.as_ptr()) }
            .to_string_lossy()
            .into_owned();
        // The test keeps the slave open so the terminal stays alive.
        std::mem::forget(unsafe { std::fs::File::from_raw_fd(sl) });
        (
            unsafe { std::fs::File::from_raw_fd(m) },
            PathBuf::from(path),
        )
    }

    fn read_available(master: &mut std::fs::File) -> String {
        use std::os::fd::AsRawFd;
        let mut seen = Vec::new();
        loop {
            let mut pfd = libc::pollfd {
                fd: master.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            if unsafe { libc::poll(&mut pfd, 1, 200) } <= 0 {
                break;
            }
            let mut buf = [0u8; 4096];
            match master.read(&mut buf) {
                Ok(n) if n > 0 => seen.extend_from_slice(&buf[..n]),
                _ => break,
            }
        }
        String::from_utf8_lossy(&seen).into_owned()
    }

    #[test]
    fn sizes_times_and_cuts() {
        assert_eq!(human_size(10), "10B");
        assert_eq!(human_size(158 * 1024), "158K");
        assert_eq!(human_size(1536 * 1024), "1.5M");
        assert_eq!(relative_time(100_000, 90_000), "just now");
        assert_eq!(relative_time(7_200_000, 0), "2h ago");
        assert_eq!(cut("hello world", 6), "hello…");
        assert_eq!(cut("日本語です", 5), "日本…");
        assert_eq!(flat("a\nb\tc\u{1b}[2J"), "a b c");
    }
}
