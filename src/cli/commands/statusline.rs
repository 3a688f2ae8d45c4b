//! `claudio statusline`: the one line a `statusLine` command of the claude
//! TUI prints. Claude Code runs the command after every message, with a
//! JSON on its stdin (the session, its transcript, the model, the working
//! directory, the cost so far, how full the context is); this reads it and
//! prints the model, the context share, the session's cost and today's,
//! the open 5-hour window and the git branch.
//!
//! It is called often, so it is cheap: no process, no network; stdin is
//! read up to [`MAX_INPUT`] bytes and for at most [`INPUT_DEADLINE`]; today's
//! cost and the 5-hour window read only the transcripts written since the
//! start of the day or the last ten hours, through the store's bounded
//! readers; which those are is kept between runs and looked at again only
//! where it can have changed ([`Store::recent_usage_kept`]: the folders'
//! times, the running sessions' transcripts, every transcript at least once
//! a minute); and the store is not read at all when the template shows
//! neither.
//!
//! Bad or missing input prints [`NO_STATUS`] and the reason on stderr, and
//! exits 0: what a status line prints is shown only when it succeeds, and
//! a short line says more than an empty one. A bad `--format` is a usage
//! error (exit 2).

// text from outside made inert, on one line: the sessions' cell cleaner
use crate::cli::common::billing::{billing_windows, OpenWindow, BILLING_WINDOW_MS};
use crate::cli::common::exit::{usage_error, Exit};
use crate::cli::common::pricing::Pricer;
use crate::cli::common::stdin::{read_json, StdinError};
use crate::cli::sanitize::Sanitizer;
use crate::cli::term::style::{ColorChoice, Style};
use crate::cli::term::text::flat;
use crate::cli::term::text::short;
use crate::cli::term::time::now_ms;
use claudio::store::{session_usage, SessionUsage, Store, Tokens, UsageSet};
use serde_json::Value;
use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The most bytes read from stdin: Claude Code's JSON is a few KiB.
pub const MAX_INPUT: usize = 1 << 20;
/// How long stdin is waited for, over the whole read.
pub const INPUT_DEADLINE: Duration = Duration::from_secs(2);
/// What is printed when there is nothing to show (the reason goes to stderr).
pub const NO_STATUS: &str = "claudio: no status";
/// The line without `--format`.
pub const DEFAULT_FORMAT: &str =
    "{model} · {context} ctx · {session_cost} session · {today_cost} today · {block} · {branch}";
/// The separator between a template's segments: one whose placeholders
/// are all empty is left out, with its separator.
const SEP: &str = " · ";
/// How far back the transcripts are read for the 5-hour window: two
/// windows, so the one open now starts where it does.
const LOOKBACK_MS: i64 = 2 * BILLING_WINDOW_MS;
/// How much further back the transcripts are read while responses keep
/// the 5-hour chain going (a response within 5 hours before where the
/// reading starts carries its window over): at most a week.
const CHAIN_LIMIT_MS: i64 = 7 * 24 * 60 * 60 * 1000;

/// Where the 5-hour chain that reaches `since` begins: `since`, moved back
/// 5 hours at a time while the sessions read from there hold a response
/// in the 5 hours before it (it may begin the window open now), at most
/// [`CHAIN_LIMIT_MS`]. `read` gives the sessions written since a time.
fn chain_start<E>(
    since: i64,
    mut read: impl FnMut(i64) -> Result<Vec<SessionUsage>, E>,
) -> Result<(i64, Vec<SessionUsage>), E> {
    let mut from = since;
    loop {
        let edge = from.saturating_sub(BILLING_WINDOW_MS);
        let sessions = read(edge)?;
        let carried = sessions
            .iter()
            .flat_map(|s| s.messages().map(move |m| m.at.unwrap_or(s.last_modified)))
            .any(|at| (edge..from).contains(&at));
        if !carried || since - edge > CHAIN_LIMIT_MS {
            return Ok((from, sessions));
        }
        from = edge;
    }
}
/// A model's context window when the JSON does not say: 200k tokens, or
/// 1M for a `[1m]` model.
const DEFAULT_WINDOW: u64 = 200_000;
const LONG_WINDOW: u64 = 1_000_000;

/// `--help`'s text after the options.
pub const HELP: &str = "\
Reads the JSON Claude Code gives a `statusLine` command on stdin and prints
one line. In ~/.claude/settings.json:

  \"statusLine\": {\"type\": \"command\", \"command\": \"claudio-statusline\"}

`claudio-statusline`, installed beside `claudio`, is this command as a
program of its own, the status line all it holds: it starts faster. It
takes the same flags and prints the same line as `claudio statusline`.

Placeholders of --format (`{{` and `}}` are braces):
  {model}          the model's name (model.display_name, else model.id)
  {model_id}       the model's id
  {context}        how full the context window is: 42%
  {context_tokens} the tokens in it and the window: 84k/200k
  {session_cost}   this session's cost: $1.23 (cost.total_cost_usd, else
                   estimated from its transcript)
  {today_cost}     every session's estimated cost today (local time)
  {block}          the open 5-hour window: 5h: 3h12m left, $2.10/h → $9.80
  {block_left}     the time left in it: 3h12m
  {block_cost}     its estimated cost so far: $3.40
  {burn_rate}      its cost per hour so far: $2.10/h
  {projected}      its cost at its end at that rate: $9.80
  {branch}         the git branch (read from .git/HEAD)
  {dir}            the name of the working directory

The default: {model} · {context} ctx · {session_cost} session · {today_cost} today · {block} · {branch}
Segments are separated by ` · `; a segment whose placeholders are all empty
is left out. A `+` after a cost: some models have no price (a lower bound).
Estimates use Anthropic's list prices, as `claudio sessions usage` does;
`{block}` counts as `sessions usage --by block` does.

Colors follow --color and NO_COLOR (stdout is a pipe under Claude Code:
`auto` colors unless NO_COLOR is set or TERM is dumb).

Never starts a process or uses the network. Reads stdin for at most 2 s and
1 MiB; reads only the transcripts written today or in the last 10 hours,
and none when the line shows neither {today_cost} nor a block field.

Exit codes: 0, also when the JSON is missing or bad (it prints
`claudio: no status` and the reason on stderr); 2 for a bad --format.";

/// Arguments of `claudio statusline`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct StatuslineArgs {
    /// The line's template: placeholders in braces (listed below).
    #[arg(long, value_name = "TEMPLATE")]
    pub format: Option<String>,
}

/// What a template shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Model,
    ModelId,
    Context,
    ContextTokens,
    SessionCost,
    TodayCost,
    Block,
    BlockLeft,
    BlockCost,
    BurnRate,
    Projected,
    Branch,
    Dir,
}

const FIELDS: &[(&str, Field)] = &[
    ("model", Field::Model),
    ("model_id", Field::ModelId),
    ("context", Field::Context),
    ("context_tokens", Field::ContextTokens),
    ("session_cost", Field::SessionCost),
    ("today_cost", Field::TodayCost),
    ("block", Field::Block),
    ("block_left", Field::BlockLeft),
    ("block_cost", Field::BlockCost),
    ("burn_rate", Field::BurnRate),
    ("projected", Field::Projected),
    ("branch", Field::Branch),
    ("dir", Field::Dir),
];

impl Field {
    /// Whether it needs the recent transcripts of every session.
    fn needs_store(self) -> bool {
        matches!(
            self,
            Field::TodayCost
                | Field::Block
                | Field::BlockLeft
                | Field::BlockCost
                | Field::BurnRate
                | Field::Projected
        )
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Text(String),
    Field(Field),
}

/// Why a `--format` is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum TemplateError {
    /// A `{` with no `}` after it (the name so far).
    #[error("`{{{0}` is not closed with `}}`")]
    Unclosed(String),
    /// A placeholder that is none of [`FIELDS`].
    #[error("no placeholder {{{0}}}; there are {known}", known = placeholders())]
    Unknown(String),
}

/// Every placeholder, as written in a template: `{model}, {dir}, …`.
fn placeholders() -> String {
    let known: Vec<String> = FIELDS.iter().map(|(n, _)| format!("{{{n}}}")).collect();
    known.join(", ")
}

/// Why no status could be read from stdin: each one line for stderr.
#[derive(Debug, thiserror::Error)]
pub(crate) enum InputError {
    /// stdin is a terminal, not Claude Code's pipe.
    #[error("stdin is a terminal: claudio statusline reads the JSON Claude Code gives a statusLine command")]
    Terminal,
    /// Nothing but white space.
    #[error("no input on stdin: it takes the JSON Claude Code gives a statusLine command")]
    Empty,
    /// Not JSON.
    #[error("stdin is not JSON: {0}")]
    NotJson(#[source] serde_json::Error),
    /// JSON, but not an object.
    #[error("stdin is not a JSON object")]
    NotObject,
    /// No whole JSON value read: late, too large, or unreadable.
    #[error(transparent)]
    Stdin(#[from] StdinError),
}

/// A parsed `--format`: its segments, split at [`SEP`].
#[derive(Debug, Clone, PartialEq, Eq)]
struct Template {
    segments: Vec<Vec<Piece>>,
}

impl Template {
    fn parse(t: &str) -> Result<Template, TemplateError> {
        let mut pieces = Vec::new();
        let mut text = String::new();
        let mut chars = t.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '{' if chars.peek() == Some(&'{') => {
                    chars.next();
                    text.push('{');
                }
                '}' if chars.peek() == Some(&'}') => {
                    chars.next();
                    text.push('}');
                }
                '{' => {
                    let mut name = String::new();
                    loop {
                        match chars.next() {
                            Some('}') => break,
                            Some(c) if name.len() < 64 => name.push(c),
                            _ => return Err(TemplateError::Unclosed(name)),
                        }
                    }
                    let Some(&(_, f)) = FIELDS.iter().find(|(n, _)| *n == name) else {
                        return Err(TemplateError::Unknown(name));
                    };
                    if !text.is_empty() {
                        pieces.push(Piece::Text(std::mem::take(&mut text)));
                    }
                    pieces.push(Piece::Field(f));
                }
                // one line: a newline or tab in the template is a space
                '\n' | '\r' | '\t' => text.push(' '),
                c => text.push(c),
            }
        }
        if !text.is_empty() {
            pieces.push(Piece::Text(text));
        }
        let mut segments = vec![Vec::new()];
        for p in pieces {
            match p {
                Piece::Text(s) => {
                    let mut parts = s.split(SEP);
                    if let Some(first) = parts.next().filter(|f| !f.is_empty()) {
                        segments.last_mut().into_iter().for_each(|seg| {
                            seg.push(Piece::Text(first.to_owned()));
                        });
                    }
                    for part in parts {
                        let mut seg = Vec::new();
                        if !part.is_empty() {
                            seg.push(Piece::Text(part.to_owned()));
                        }
                        segments.push(seg);
                    }
                }
                f => {
                    if let Some(seg) = segments.last_mut() {
                        seg.push(f);
                    }
                }
            }
        }
        Ok(Template { segments })
    }

    fn fields(&self) -> impl Iterator<Item = Field> + '_ {
        self.segments.iter().flatten().filter_map(|p| match p {
            Piece::Field(f) => Some(*f),
            Piece::Text(_) => None,
        })
    }

    /// The line: each segment whose placeholders are not all empty. The
    /// template's own text keeps its colors; every other control is
    /// removed, as from the values.
    fn render(&self, facts: &Facts, st: Style) -> String {
        let mut kept = Vec::new();
        for seg in &self.segments {
            let mut out = String::new();
            let (mut fields, mut empty) = (0, 0);
            for p in seg {
                match p {
                    Piece::Text(t) => out.push_str(&Sanitizer::clean_keeping_colors(t)),
                    Piece::Field(f) => {
                        fields += 1;
                        let v = facts.value(*f);
                        if v.is_empty() {
                            empty += 1;
                        } else {
                            out.push_str(&facts.paint(*f, &v, st));
                        }
                    }
                }
            }
            if fields > 0 && fields == empty {
                continue;
            }
            kept.push(out);
        }
        kept.join(SEP)
    }
}

/// A cost, and whether some models had no price (a lower bound then).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct Cost {
    usd: f64,
    partial: bool,
}

impl Cost {
    fn text(&self) -> String {
        dollars(self.usd, self.partial)
    }
}

fn dollars(usd: f64, partial: bool) -> String {
    format!("${usd:.2}{}", if partial { "+" } else { "" })
}

/// `3h12m`, `45m`.
fn duration(minutes: i64) -> String {
    if minutes >= 60 {
        format!("{}h{:02}m", minutes / 60, minutes % 60)
    } else {
        format!("{minutes}m")
    }
}

/// What the line can say; `None` where it cannot tell.
#[derive(Debug, Clone, Default, PartialEq)]
struct Facts {
    model: Option<String>,
    model_id: Option<String>,
    /// Percent of the context window in use.
    context: Option<f64>,
    /// Tokens in the context, and the window.
    context_tokens: Option<(u64, u64)>,
    session_cost: Option<Cost>,
    today_cost: Option<Cost>,
    block: Option<OpenWindow>,
    branch: Option<String>,
    dir: Option<String>,
}

impl Facts {
    /// A field's text, made inert and one line; empty when unknown.
    fn value(&self, f: Field) -> String {
        let b = self.block.as_ref();
        let priced = b.filter(|b| !b.unpriced);
        let v = match f {
            Field::Model => self.model.clone().or_else(|| self.model_id.clone()),
            Field::ModelId => self.model_id.clone(),
            Field::Context => self.context.map(|p| format!("{:.0}%", p.clamp(0.0, 999.0))),
            Field::ContextTokens => self
                .context_tokens
                .map(|(n, w)| format!("{}/{}", short(n), short(w))),
            Field::SessionCost => self.session_cost.map(|c| c.text()),
            Field::TodayCost => self.today_cost.map(|c| c.text()),
            Field::Block => b.map(|b| {
                let mut s = format!("5h: {} left", duration(b.minutes_left));
                if let (false, Some(rate), Some(end)) = (b.unpriced, b.cost_per_hour, b.projected) {
                    let plus = if b.partial { "+" } else { "" };
                    s.push_str(&format!(
                        ", ${rate:.2}/h{plus} → {}",
                        dollars(end, b.partial)
                    ));
                }
                s
            }),
            Field::BlockLeft => b.map(|b| duration(b.minutes_left)),
            Field::BlockCost => priced.map(|b| dollars(b.cost, b.partial)),
            Field::BurnRate => priced.and_then(|b| {
                let plus = if b.partial { "+" } else { "" };
                b.cost_per_hour.map(|r| format!("${r:.2}/h{plus}"))
            }),
            Field::Projected => priced.and_then(|b| b.projected.map(|p| dollars(p, b.partial))),
            Field::Branch => self.branch.clone(),
            Field::Dir => self.dir.clone(),
        };
        v.map(|s| flat(&s)).unwrap_or_default()
    }

    /// A field's text in its color.
    fn paint(&self, f: Field, v: &str, st: Style) -> String {
        match f {
            Field::Model | Field::ModelId => st.cyan(v),
            Field::Context => match self.context {
                Some(p) if p >= 80.0 => st.red(v),
                Some(p) if p >= 50.0 => st.yellow(v),
                _ => st.green(v),
            },
            Field::SessionCost | Field::TodayCost => st.bold(v),
            Field::Branch => st.green(v),
            _ => st.dim(v),
        }
    }
}

/// What the line is made from, out of Claude Code's JSON.
#[derive(Debug, Clone, Default, PartialEq)]
struct Input {
    session_id: Option<String>,
    transcript: Option<PathBuf>,
    dir: Option<PathBuf>,
    model_id: Option<String>,
    model_name: Option<String>,
    cost_usd: Option<f64>,
    context_percent: Option<f64>,
    context_size: Option<u64>,
    /// The tokens of the last API call (input, cache and output).
    context_usage: Option<u64>,
}

/// The largest transcript the status line reads when the JSON leaves out
/// the cost or the context (Claude Code sends both; a session's transcript
/// is rarely past a few MiB).
const MAX_TRANSCRIPT: u64 = 64 << 20;

/// Whether the session at `path` (its transcript and its sub-agents'
/// files, which are read with it) is bigger than [`MAX_TRANSCRIPT`] (not
/// a regular file is the reader's to refuse).
fn too_big(path: &std::path::Path) -> bool {
    let size = |p: &Path| std::fs::metadata(p).map_or(0, |m| if m.is_file() { m.len() } else { 0 });
    let mut total = size(path);
    let agents = path.with_extension("").join("subagents");
    if let Ok(rd) = std::fs::read_dir(agents) {
        for e in rd.flatten() {
            total = total.saturating_add(size(&e.path()));
            if total > MAX_TRANSCRIPT {
                break;
            }
        }
    }
    total > MAX_TRANSCRIPT
}

/// The member of `v` at `path`, a JSON pointer whose names hold no `~`
/// and are not array indices (`/model/id`): what [`Value::pointer`] finds
/// there, without the pointer's unescaping making a `String` of each name
/// (a fifth of reading the JSON, for its eleven lookups).
fn member<'v>(v: &'v Value, path: &str) -> Option<&'v Value> {
    let names = path.strip_prefix('/')?;
    names.split('/').try_fold(v, |v, k| v.as_object()?.get(k))
}

/// `text` with every number outside a string that is a JSON number but
/// too large for a double (serde_json refuses it: `1e400`, `-1e400`, 400
/// digits) written `null`; `None` when it has none. Nothing else changes,
/// so what serde_json refuses for any other reason it still refuses.
fn huge_numbers_as_null(text: &[u8]) -> Option<Vec<u8>> {
    let mut out: Option<Vec<u8>> = None;
    let mut copied = 0; // text[..copied] is in `out`
    let mut i = 0;
    let is_num = |b: &u8| matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E');
    while let Some(&b) = text.get(i) {
        if b == b'"' {
            // a string: to its closing quote, an escape two bytes
            i += 1;
            while let Some(&c) = text.get(i) {
                i += if c == b'\\' { 2 } else { 1 };
                if c == b'"' {
                    break;
                }
            }
            continue;
        }
        if !is_num(&b) {
            i += 1;
            continue;
        }
        let len = text[i..].iter().take_while(|b| is_num(b)).count();
        let token = &text[i..i + len];
        if json_number(token)
            && std::str::from_utf8(token).is_ok_and(|t| serde_json::from_str::<Value>(t).is_err())
        {
            let o = out.get_or_insert_with(Vec::new);
            o.extend_from_slice(&text[copied..i]);
            o.extend_from_slice(b"null");
            copied = i + len;
        }
        i += len;
    }
    let mut o = out?;
    o.extend_from_slice(&text[copied..]);
    Some(o)
}

/// Whether `t` is a number as JSON writes one:
/// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
fn json_number(t: &[u8]) -> bool {
    let digits = |t: &[u8]| t.iter().take_while(|b| b.is_ascii_digit()).count();
    let t = t.strip_prefix(b"-").unwrap_or(t);
    let n = digits(t);
    if n == 0 || (n > 1 && t[0] == b'0') {
        return false;
    }
    let mut t = &t[n..];
    if let Some(f) = t.strip_prefix(b".") {
        let n = digits(f);
        if n == 0 {
            return false;
        }
        t = &f[n..];
    }
    if let Some(e) = t.strip_prefix(b"e").or_else(|| t.strip_prefix(b"E")) {
        let e = e
            .strip_prefix(b"+")
            .or_else(|| e.strip_prefix(b"-"))
            .unwrap_or(e);
        let n = digits(e);
        if n == 0 {
            return false;
        }
        t = &e[n..];
    }
    t.is_empty()
}

/// Claude Code's JSON as serde_json reads it, but for a lone surrogate
/// escape and a number too large for a double.
fn decode_json(bytes: &[u8]) -> Result<Value, serde_json::Error> {
    // a lone surrogate escape (`JSON.stringify` of a string cut inside an
    // emoji) read as U+FFFD, as the SDK reads the CLI's lines; a number
    // too large for a double (`1e400`: `JSON.parse` reads Infinity, and
    // `JSON.stringify` writes `null` for Infinity) read as `null`, a
    // member the line does not have: neither loses the whole line
    claudio::__private::from_slice_lenient(bytes).or_else(|e| match huge_numbers_as_null(bytes) {
        Some(m) => claudio::__private::from_slice_lenient(&m).map_err(|_| e),
        None => Err(e),
    })
}

/// Read Claude Code's JSON. `notes` gets what was passed over.
fn parse_input(bytes: &[u8], notes: &mut Vec<String>) -> Result<Input, InputError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(InputError::Empty);
    }
    let v = decode_json(bytes).map_err(InputError::NotJson)?;
    let Value::Object(_) = &v else {
        return Err(InputError::NotObject);
    };
    let text = |p: &str| {
        member(&v, p)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    let path = |p: &str, notes: &mut Vec<String>| {
        let s = text(p)?;
        let path = PathBuf::from(&s);
        if path.is_relative() {
            notes.push(format!("{p} is a relative path ({}): not read", flat(&s)));
            return None;
        }
        Some(path)
    };
    let usage = member(&v, "/context_window/current_usage").filter(|u| u.is_object());
    let context_usage = usage.map(|u| {
        let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
        // numbers from stdin: summed without overflow
        [
            "input_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
            "output_tokens",
        ]
        .into_iter()
        .fold(0u64, |sum, k| sum.saturating_add(n(k)))
    });
    let input = Ok(Input {
        session_id: text("/session_id"),
        transcript: path("/transcript_path", notes),
        dir: path("/workspace/current_dir", notes).or_else(|| path("/cwd", notes)),
        model_id: text("/model/id"),
        model_name: text("/model/display_name"),
        cost_usd: member(&v, "/cost/total_cost_usd")
            .and_then(Value::as_f64)
            .filter(|c| c.is_finite() && *c >= 0.0),
        context_percent: member(&v, "/context_window/used_percentage")
            .and_then(Value::as_f64)
            .filter(|p| p.is_finite()),
        context_size: member(&v, "/context_window/context_window_size")
            .and_then(Value::as_u64)
            .filter(|n| *n > 0),
        context_usage,
    });
    left_to_exit(v);
    input
}

/// The start of the local day (the zone `TZ` names, else the system's)
/// that holds `now`.
fn start_of_day(now: i64) -> Option<i64> {
    let t = jiff::Timestamp::from_millisecond(now).ok()?;
    let z = t.to_zoned_datetime(crate::cli::term::time::local_zone().clone());
    Some(z.start_of_day().ok()?.timestamp().as_millisecond())
}

/// What every session spent since `today` (ms), and the 5-hour window
/// open at `now`, from the sessions given (oldest first, as
/// [`Store::usage_since`] gives them). Each API message is counted once,
/// as `sessions usage` counts them; one with no time counts at its file's.
/// A message dated after `now` (a wrong clock, an edited line) is not
/// today's, and its window is never the open one.
fn today_and_block(
    sessions: &[SessionUsage],
    today: i64,
    now: i64,
    from: i64,
) -> (Cost, Option<OpenWindow>) {
    // the chain of 5-hour windows begins at `from` (see `chain_start`)
    let since = today.min(now - LOOKBACK_MS).min(from);
    let mut seen = UsageSet::default();
    let mut today_cost = Cost::default();
    let mut timed: Vec<(i64, &str, Tokens, crate::cli::common::pricing::Cost)> = Vec::new();
    // the CLI's own figures where a session has them, else the prices
    // they teach, else the table's
    let pricer = Pricer::learn(sessions.iter().map(|s| &s.without_subagents)).with_kept();
    let mut counted: HashMap<&str, crate::cli::common::pricing::Cost> = HashMap::new();
    let mut side: Vec<(i64, String, crate::cli::common::pricing::Cost)> = Vec::new();
    for s in sessions {
        // priced at its first message counted: a session read for the
        // chain whose messages all came before it is not priced at all
        let mut costs = None;
        for m in s.messages() {
            let when = m.at.unwrap_or(s.last_modified);
            if when < since {
                continue;
            }
            let delta = seen.add_message(m);
            if delta.total() == 0 {
                continue;
            }
            let costs = costs.get_or_insert_with(|| pricer.session(s));
            let full = costs.get(&m.key).copied().unwrap_or_default();
            let cost = match counted.insert(&m.key, full) {
                Some(old) => full.beyond(&old),
                None => full,
            };
            if (today..=now).contains(&when) {
                today_cost.usd += cost.usd;
                today_cost.partial |= cost.partial;
            }
            timed.push((when, m.model.as_str(), delta, cost));
        }
        // the CLI's side requests its cost-state priced and no response carries
        let when = s
            .cli_cost()
            .and_then(|c| c.until)
            .unwrap_or(s.last_modified);
        if when >= since {
            for (model, usd) in Pricer::unshared(s) {
                let cost = crate::cli::common::pricing::Cost {
                    usd,
                    ..Default::default()
                };
                if (today..=now).contains(&when) {
                    today_cost.usd += usd;
                }
                side.push((when, model, cost));
            }
        }
    }
    timed.extend(
        side.iter()
            .map(|(at, m, c)| (*at, m.as_str(), Tokens::default(), *c)),
    );
    let windows = billing_windows(timed, now);
    let open = windows
        .iter()
        .rev()
        .find(|w| w.active)
        .map(|w| OpenWindow::of(w, now));
    (today_cost, open)
}

/// The context share from a transcript: its last API call's tokens over
/// the window.
fn context_of(s: &SessionUsage, window: u64) -> Option<(f64, u64)> {
    let last = s.without_subagents.messages.last()?;
    let n = last.tokens.total();
    Some((n as f64 * 100.0 / window as f64, n))
}

/// What the line says, from the input, the store (when the template needs
/// it; `None`: not read) and the times. `notes` gets what could not be read.
fn gather(
    input: &Input,
    store: Option<&Store>,
    needs_store: bool,
    now: i64,
    today: i64,
    notes: &mut Vec<String>,
) -> Facts {
    let mut f = Facts {
        model: input.model_name.clone(),
        model_id: input.model_id.clone(),
        ..Facts::default()
    };
    let mut recent = Vec::new();
    if let (true, Some(store)) = (needs_store, store) {
        // the whole store's unit prices, learnt again once a day (#40.8)
        crate::cli::common::pricing::keep_fresh(store);
        let since = today.min(now - LOOKBACK_MS);
        let mut skipped = Vec::new();
        // the folders and the transcripts' times looked at once, however
        // far back the chain goes: what the last line found, looked at
        // again only where it can have changed (`recent_usage_kept`), when
        // the chain cannot reach past what that keeps
        let reach = since
            .saturating_sub(CHAIN_LIMIT_MS)
            .saturating_sub(BILLING_WINDOW_MS);
        let found = if reach >= now.saturating_sub(claudio::store::KEPT_HORIZON_MS) {
            store.recent_usage_kept(now, input.transcript.as_deref())
        } else {
            store.recent_usage(None)
        };
        let read = found.and_then(|found| {
            let read = chain_start(since, |t| {
                let l = found.since(t);
                skipped = l.skipped;
                Ok(l.sessions)
            });
            left_to_exit(found);
            read
        });
        match read {
            Ok((from, sessions)) => {
                for k in &skipped {
                    notes.push(format!(
                        "passed over {}: {}",
                        flat(&k.path.display().to_string()),
                        k.reason
                    ));
                }
                recent = sessions;
                let (cost, block) = today_and_block(&recent, today, now, from);
                f.today_cost = Some(cost);
                f.block = block;
            }
            Err(e) => notes.push(format!("the transcripts could not be read: {e}")),
        }
    }
    let window = input.context_size.unwrap_or_else(|| {
        let id = input.model_id.as_deref().unwrap_or("").to_ascii_lowercase();
        if id.contains("[1m]") {
            LONG_WINDOW
        } else {
            DEFAULT_WINDOW
        }
    });
    f.context = input.context_percent;
    if let Some(n) = input.context_usage {
        f.context_tokens = Some((n, window));
        f.context = f.context.or(Some(n as f64 * 100.0 / window as f64));
    }
    f.session_cost = input.cost_usd.map(|usd| Cost {
        usd,
        partial: false,
    });
    // the transcript, only when the JSON leaves something out
    if f.context.is_none() || f.session_cost.is_none() {
        // the transcript the JSON names, else the session of its id (an id
        // can be in two projects: the named file is the one)
        let found = match &input.transcript {
            Some(path) => recent.iter().find(|s| &s.path == path),
            None => input.session_id.as_deref().and_then(|id| {
                recent
                    .iter()
                    .find(|s| s.session_id.eq_ignore_ascii_case(id))
            }),
        };
        let read;
        let session = match (found, &input.transcript) {
            (Some(s), _) => Some(s),
            // read only a transcript, `<session>.jsonl` (an archived one
            // decompresses to what its header says: without end), and of
            // a size a session has (a huge or odd file named in the JSON
            // is not read: the line must be instant)
            (None, Some(path)) if path.extension().is_none_or(|e| e != "jsonl") => {
                notes.push(format!(
                    "the transcript is not a .jsonl file, not read: {}",
                    crate::cli::common::folder::shown(path)
                ));
                None
            }
            (None, Some(path)) if too_big(path) => {
                notes.push(format!(
                    "the transcript and its sub-agents are over {} MiB, not read: {}",
                    MAX_TRANSCRIPT >> 20,
                    crate::cli::common::folder::shown(path)
                ));
                None
            }
            (None, Some(path)) => match session_usage(path) {
                Ok(s) => {
                    read = s;
                    Some(&read)
                }
                Err(e) => {
                    notes.push(format!("the transcript could not be read: {e}"));
                    None
                }
            },
            (None, None) => None,
        };
        if let Some(s) = session {
            if f.context.is_none() {
                if let Some((p, n)) = context_of(s, window) {
                    f.context = Some(p);
                    f.context_tokens = Some((n, window));
                }
            }
            if f.session_cost.is_none() {
                let mut c = Cost::default();
                for x in Pricer::default().session(s).values() {
                    c.usd += x.usd;
                    c.partial |= x.partial;
                }
                f.session_cost = Some(c);
            }
        }
    }
    if let Some(dir) = &input.dir {
        f.branch = crate::cli::common::git::git_branch(dir);
        f.dir = dir.file_name().map(|n| n.to_string_lossy().into_owned());
    }
    left_to_exit(recent);
    f
}

/// Leaves `v` to the process's exit, not freed: the line is made once and
/// the process ends, so freeing what was read for it, block by block, is
/// work for nothing (about 40,000 instructions of a warm line's 1.1
/// million). Only for what [`run`] makes once.
fn left_to_exit<T>(v: T) {
    std::mem::forget(v);
}

/// The store, unless `CLAUDE_CONFIG_DIR` is relative (it would be read
/// against whatever directory Claude Code runs the command in).
fn store(notes: &mut Vec<String>) -> Option<Store> {
    if let Some(d) = std::env::var_os("CLAUDE_CONFIG_DIR").filter(|d| !d.is_empty()) {
        if Path::new(&d).is_relative() {
            notes.push(format!(
                "CLAUDE_CONFIG_DIR is a relative path ({}): the transcripts are not read",
                flat(&d.to_string_lossy())
            ));
            return None;
        }
    }
    // the CLI's own transcripts only: what the line counts is recent, and
    // the archive's folders are not walked again at every refresh (nor
    // looked for: `Store::open` would name and `stat` the archive's folder)
    match Store::from_env() {
        Ok(s) => Some(s),
        Err(e) => {
            notes.push(format!("the transcripts cannot be found: {e}"));
            None
        }
    }
}

/// Whether the command line is `claudio statusline` and nothing more (as
/// Claude Code's settings run it): the program then goes straight to
/// [`run`], the parser not built (what it would give is the default).
pub fn is_plain_call(args: impl Iterator<Item = std::ffi::OsString>) -> bool {
    let rest: Vec<std::ffi::OsString> = args.skip(1).take(2).collect();
    rest.len() == 1 && rest[0] == "statusline"
}

/// `claudio statusline`.
pub fn run(args: StatuslineArgs, color: ColorChoice) -> anyhow::Result<Exit> {
    let template = Template::parse(args.format.as_deref().unwrap_or(DEFAULT_FORMAT))
        .map_err(|e| usage_error!("--format: {e}"))?;
    // Claude Code reads stdout through a pipe and shows colors: `auto`
    // colors unless NO_COLOR or a dumb TERM says not to
    let style = Style::decide(color, true);
    let mut notes = Vec::new();
    let stdin = std::io::stdin();
    let input = if stdin.is_terminal() {
        Err(InputError::Terminal)
    } else {
        read_json(&stdin, MAX_INPUT, INPUT_DEADLINE)
            .map_err(InputError::from)
            .and_then(|b| parse_input(&b, &mut notes))
    };
    let line = match input {
        Err(why) => {
            notes.push(why.to_string());
            NO_STATUS.to_owned()
        }
        Ok(input) => {
            let needs_store = template.fields().any(Field::needs_store);
            let store = needs_store.then(|| store(&mut notes)).flatten();
            let now = now_ms();
            let today = start_of_day(now).unwrap_or(now - 86_400_000);
            let facts = gather(&input, store.as_ref(), needs_store, now, today, &mut notes);
            notes.extend(crate::cli::term::time::zone_note());
            let line = template.render(&facts, style);
            if Sanitizer::clean(&line).trim().is_empty() {
                notes
                    .push("nothing to show: the JSON has none of the fields the line shows".into());
                NO_STATUS.to_owned()
            } else {
                line
            }
        }
    };
    let mut err = std::io::stderr().lock();
    for n in &notes {
        // a path or an error may carry escapes from the JSON: inert, one line
        let _ = writeln!(err, "claudio statusline: {}", flat(n));
    }
    let mut out = std::io::stdout().lock();
    // a closed pipe is no error: nobody is reading
    let _ = writeln!(out, "{line}").and_then(|()| out.flush());
    Ok(Exit::Success)
}

#[cfg(test)]
mod tests;
