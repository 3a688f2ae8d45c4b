//! `claudio sessions usage`: tokens and estimated cost, added up by day,
//! month, model, project or session; and the usage line of `inspect`.

use super::io::Output;
use super::io::{Io, JsonRows, SessionsOutcome};
use crate::cli::common::billing::{billing_windows, BillingWindow};
use crate::cli::common::exit::Exit;
use crate::cli::common::pricing::{Cost, Pricer, PRICES_DATE};
use crate::cli::term::style::Style;
use crate::cli::term::text::short;
use crate::cli::term::text::{cut_width, flat, pad, pad_left, table_row, width};
use crate::cli::term::time::local_time;
use crate::cli::term::wrap::undisputed;
use anyhow::Context;
use clap::{Args, ValueEnum};
use claudio::store::{ListOptions, SessionUsage, Store, SubagentUsage, Tokens, UsageSet};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::io::Write;
use std::path::PathBuf;

/// How `usage` groups its rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum By {
    Day,
    /// Weeks, each keyed by its first day (Monday unless --start-of-week).
    Week,
    Month,
    Model,
    Project,
    Session,
    /// 5-hour billing windows, as the subscription plans count them.
    Block,
}

/// Arguments of `sessions usage`.
#[derive(Debug, Args)]
pub struct UsageArgs {
    /// Every project's sessions, not only this directory's.
    #[arg(short, long)]
    pub all: bool,
    /// This directory's sessions (and its git worktrees') instead of the current one.
    #[arg(long, value_name = "DIR", conflicts_with = "all")]
    pub cwd: Option<PathBuf>,
    /// Rows by day, month, model, project, session, or 5-hour billing
    /// window (block; the open one with its burn rate and projection).
    #[arg(long, value_enum, default_value_t = By::Day)]
    pub by: By,
    /// Only API messages since then: 30m, 12h, 7d, 2w, or a date (2026-11-01).
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// Count only this many sessions (the newest).
    #[arg(short = 'n', long, value_name = "N")]
    pub limit: Option<usize>,
    /// text (a table), json (one object) or ndjson (a row a line, then the total).
    #[arg(short = 'o', long, value_enum, value_name = "FORMAT", default_value_t)]
    pub output: Output,
    /// The old spelling of `-o json`.
    #[arg(long, hide = true, conflicts_with = "output")]
    pub json: bool,
    /// Only API messages before then: a span back from now (12h, 7d), a
    /// date (2026-11-30: through that day) or a time.
    #[arg(long, value_name = "WHEN")]
    pub until: Option<String>,
    /// Days, weeks, months and windows in this time zone (an IANA name:
    /// Europe/Paris, America/New_York, UTC) instead of TZ's; --since and
    /// --until dates are its midnights.
    #[arg(long, value_name = "ZONE")]
    pub timezone: Option<String>,
    /// Under each row, its tokens and cost by model (-o json always has
    /// them: modelBreakdowns).
    #[arg(long)]
    pub breakdown: bool,
    /// Rows oldest first (asc) or newest first (desc); by model, project or
    /// session the same order, reversed.
    #[arg(long, value_enum, value_name = "ORDER", default_value_t = Order::Asc)]
    pub order: Order,
    /// With --by week: the day weeks start on.
    #[arg(long, value_enum, value_name = "DAY", default_value_t = WeekStart::Monday)]
    pub start_of_week: WeekStart,
    /// Leave the cost estimate out.
    #[arg(long)]
    pub no_cost: bool,
}

/// The order of `usage`'s rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Order {
    Asc,
    Desc,
}

/// The day a week starts on (`--by week`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WeekStart {
    Monday,
    Tuesday,
    Wednesday,
    Thursday,
    Friday,
    Saturday,
    Sunday,
}

impl WeekStart {
    /// Days since Monday.
    fn days_after_monday(self) -> i8 {
        self as i8
    }

    fn name(self) -> String {
        format!("{self:?}").to_lowercase()
    }
}

/// How `usage` tells the time: the zone `--timezone` names, else the
/// local one ([`local_time`]).
struct Clock {
    zone: Option<jiff::tz::TimeZone>,
}

impl Clock {
    /// The zone `--timezone` names: a usage error when none is found by
    /// that name (its file is read as `TZ`'s is: without blocking, a
    /// regular file only, bounded).
    fn new(name: Option<&str>) -> anyhow::Result<Clock> {
        let Some(name) = name else {
            return Ok(Clock { zone: None });
        };
        let tzdir = std::env::var_os("TZDIR");
        let (zone, why) = crate::cli::term::time::zone_from(Some(name.as_ref()), tzdir.as_deref());
        if why.is_some() || name.trim().is_empty() {
            return Err(crate::cli::common::exit::usage_error!(
                "--timezone {}: no such time zone (give an IANA name such as Europe/Paris, or UTC)",
                crate::cli::term::text::first_line(name, 40)
            ));
        }
        Ok(Clock { zone: Some(zone) })
    }

    /// (`YYYY-MM-DD`, `HH:MM`) at `ms`.
    fn at(&self, ms: i64) -> (String, String) {
        let Some(zone) = &self.zone else {
            return local_time(ms);
        };
        let Ok(t) = jiff::Timestamp::from_millisecond(ms) else {
            return local_time(ms);
        };
        let d = zone.to_datetime(t);
        (
            format!("{:04}-{:02}-{:02}", d.year(), d.month(), d.day()),
            format!("{:02}:{:02}", d.hour(), d.minute()),
        )
    }

    /// The day at `ms`.
    fn day(&self, ms: i64) -> String {
        self.at(ms).0
    }

    /// The first day of the week `ms` is in, weeks starting on `start`.
    fn week(&self, ms: i64, start: WeekStart) -> String {
        let day = self.day(ms);
        let Ok(d) = day.parse::<jiff::civil::Date>() else {
            return day;
        };
        let back = (d.weekday().to_monday_zero_offset() - start.days_after_monday()).rem_euclid(7);
        d.checked_sub(jiff::Span::new().days(i64::from(back)))
            .map(|d| d.to_string())
            .unwrap_or(day)
    }

    /// `--since` or `--until` (`end`: a date means the end of that day) in
    /// ms: a date (`2026-11-01` or `20261101`) is midnight in the zone
    /// `--timezone` names, else UTC; a span is back from now.
    fn bound(&self, flag: &str, s: &str, now: i64, end: bool) -> anyhow::Result<i64> {
        let t = s.trim();
        let digits = t.len() == 8 && t.bytes().all(|b| b.is_ascii_digit());
        let dashed = if digits {
            format!("{}-{}-{}", &t[..4], &t[4..6], &t[6..])
        } else {
            t.to_owned()
        };
        if let Some(d) = dashed
            .parse::<jiff::civil::Date>()
            .ok()
            .filter(|_| dashed.len() == 10)
        {
            let d = if end { d.tomorrow().unwrap_or(d) } else { d };
            let zone = self.zone.clone().unwrap_or(jiff::tz::TimeZone::UTC);
            if let Ok(z) = d.to_zoned_datetime(zone) {
                return Ok(z.timestamp().as_millisecond());
            }
        }
        super::since::parse_since(t, now)
            .map(|ms| if end { ms.saturating_add(1) } else { ms })
            .map_err(|_| {
                crate::cli::common::exit::usage_error!(
                    "{flag} {}: give a span (30m, 12h, 7d, 2w) or a date (2026-11-01)",
                    crate::cli::term::text::first_line(t, 40)
                )
            })
    }
}

impl UsageArgs {
    /// What to print.
    pub fn output(&self) -> Output {
        self.output.or_old_json(self.json, Output::Json)
    }
}

/// The month of a day `YYYY-MM-DD` (a year of any length, or negative).
fn month_of(day: &str) -> String {
    day.rsplit_once('-')
        .map_or(day, |(month, _)| month)
        .to_owned()
}

/// `usage --help`'s notes.
pub(super) const HELP: &str = "\
-o json prints one object: by, rows, total, pricesDate, unpricedModels (and
archivedSessions when the archive added some; startOfWeek by week; timezone
with --timezone). -o ndjson prints each row on a
line, then that object without its rows. A row has key (the day, month,
model, project, full session id or window), input, output, cacheWrite,
cacheRead, models, estimatedCostUsd (the CLI's own figure where it
recorded one), costIsPartial and costIsEstimate (some of it from the
list prices), modelBreakdowns (the same fields for each model, keyed by
model); by session also title, fromArchive and subagents (rows with agentId, description, agentType); by
block also start, end, firstMessage, lastMessage, apiRequests, active,
burnRate and projected.

Costs are the CLI's own (its cost-state records) where it wrote them; else
priced at the config file's [prices] (see claudio config --help), then the
unit prices the store's cost-state records teach, then the CLI's list
prices, kept in the program (~ marks those estimates).

Examples:
  claudio sessions usage --all --by month
  claudio sessions usage --all --by week --since 2026-11-01 --until 2026-11-30 --breakdown
  claudio sessions usage --by day --timezone America/New_York --order desc
  claudio sessions usage --by session --since 7d -n 10
  claudio sessions usage --all --by block -o json | jq '.rows[] | select(.active)'";

/// One row: tokens and cost by model.
#[derive(Debug, Default)]
struct Row {
    models: BTreeMap<String, Tokens>,
    costs: BTreeMap<String, Cost>,
}

impl Row {
    /// One session's row, its sub-agents' too: its tokens by model, priced
    /// by its own `cost-state` where it has one, else at the unit prices
    /// `pricer` learnt, else by the table.
    fn of(s: &SessionUsage, pricer: &Pricer) -> Row {
        let costs = pricer.session(s);
        let u = &s.total();
        let mut r = Row::default();
        for m in &u.messages {
            r.add(
                &m.model,
                &m.tokens,
                costs.get(&m.key).copied().unwrap_or_default(),
            );
        }
        r
    }

    /// A billing window's row.
    fn of_window(w: &BillingWindow) -> Row {
        Row {
            models: w.models.clone(),
            costs: w.costs.clone(),
        }
    }

    fn add(&mut self, model: &str, t: &Tokens, c: Cost) {
        self.models.entry(model.to_owned()).or_default().add(t);
        self.costs.entry(model.to_owned()).or_default().add(&c);
    }

    /// Each model's part of the row, as a row of its own.
    fn by_model(&self) -> impl Iterator<Item = (&String, Row)> {
        self.models.iter().map(|(m, t)| {
            let mut r = Row::default();
            r.add(m, t, self.costs.get(m).copied().unwrap_or_default());
            (m, r)
        })
    }

    /// Whether some model of the row has a price.
    fn any_priced(&self) -> bool {
        self.costs.values().any(|c| c.usd > 0.0 || !c.partial)
    }

    /// Whether some of its cost is the table's estimate.
    fn estimated(&self) -> bool {
        self.costs.values().any(|c| c.estimated)
    }

    fn tokens(&self) -> Tokens {
        let mut t = Tokens::default();
        for m in self.models.values() {
            t.add(m);
        }
        t
    }

    /// The cost over the models with a price, and whether some had none.
    fn cost(&self) -> (f64, bool) {
        let mut c = Cost::default();
        for x in self.costs.values() {
            c.add(x);
        }
        (c.usd, c.partial)
    }

    /// The cell: `$1.23`, `~$1.23` when some is the table's estimate,
    /// `$1.23+` when some model has no price, `—` when none has.
    fn cost_cell(&self) -> String {
        let (c, partial) = self.cost();
        let text = cost_text(c, partial, self.any_priced());
        if self.estimated() && self.any_priced() {
            format!("~{text}")
        } else {
            text
        }
    }
}

fn cost_text(cost: f64, unpriced: bool, any_priced: bool) -> String {
    match (any_priced, unpriced) {
        (false, _) => "—".into(),
        (true, false) => format!("${cost:.2}"),
        (true, true) => format!("${cost:.2}+"),
    }
}

/// Extra fields for `list --json --usage`: beside the SDK's, never instead
/// (listed in docs/json.md).
pub(super) fn list_fields(s: &SessionUsage, pricer: &Pricer) -> json::ListUsage {
    let u = &s.total();
    let t = u.tokens();
    let row = Row::of(s, pricer);
    let (cost, partial) = row.cost();
    let priced = row.any_priced();
    json::ListUsage {
        api_requests: u.messages.len(),
        cost_is_estimate: priced && row.estimated(),
        cost_is_partial: priced && partial,
        estimated_cost_usd: priced.then_some(cost),
        first_activity: u.first,
        last_activity: u.last,
        models: row.models.keys().cloned().collect(),
        prompts: u.prompts,
        usage: json::Tokens {
            cache_read: t.cache_read,
            cache_write: t.cache_write,
            input: t.input,
            output: t.output,
        },
    }
}

/// `list --long`'s cells: total tokens, and the estimate (`—` with no price).
pub(super) fn long_cells(s: &SessionUsage, pricer: &Pricer) -> [String; 2] {
    [
        short(s.total().tokens().total()),
        Row::of(s, pricer).cost_cell(),
    ]
}

/// The unit prices the store's every `cost-state` teaches (from the usage
/// index: see [`Store::cost_states`]), kept for the status line; `read`'s
/// alone when they cannot be had.
pub(super) fn store_pricer<'a>(
    store: &Store,
    read: impl IntoIterator<Item = &'a SessionUsage>,
) -> Pricer {
    crate::cli::common::pricing::learn_from_store(store)
        .unwrap_or_else(|| Pricer::learn(read.into_iter().map(|s| &s.without_subagents)))
}

/// The unit prices for `usage`'s report of `read`, the sessions of `dir`
/// (`None`: every project's, the archive's too). Of the whole store,
/// `read` holds every `cost-state` [`Store::cost_states`] would look for
/// (the same transcripts, as they were just read), so they are learnt from
/// it, and kept for the status line: the prices are those of what the
/// report counts, and the store is not listed again nor, without a usage
/// index, every transcript read a second time. Of one folder, from the
/// whole store ([`store_pricer`]).
fn view_pricer(store: &Store, dir: Option<&std::path::Path>, read: &[SessionUsage]) -> Pricer {
    if dir.is_some() {
        return store_pricer(store, read);
    }
    let pricer = Pricer::learn(read.iter().map(|s| &s.without_subagents));
    pricer.keep();
    pricer
}

/// The usage line of `inspect`: tokens, models, prompts, requests, span,
/// and the estimate, sub-agents included (as `usage` counts them).
pub(super) fn summary_line(s: &SessionUsage, pricer: &Pricer) -> String {
    let u = &s.total();
    let t = u.tokens();
    let models: Vec<String> = u
        .by_model()
        .into_iter()
        .map(|(m, _)| m.strip_prefix("claude-").unwrap_or(&m).to_owned())
        .collect();
    let mut parts = vec![format!(
        "{} in · {} out · {} cache write · {} cache read",
        short(t.input),
        short(t.output),
        short(t.cache_write),
        short(t.cache_read)
    )];
    parts.push(format!(
        "{} prompt{} · {} API request{}",
        u.prompts,
        if u.prompts == 1 { "" } else { "s" },
        u.messages.len(),
        if u.messages.len() == 1 { "" } else { "s" }
    ));
    let agents = s.subagents.len();
    if agents > 0 {
        let of: usize = s.subagents.iter().map(|a| a.usage.messages.len()).sum();
        parts.push(format!(
            "{agents} sub-agent{} ({of} of the requests)",
            if agents == 1 { "" } else { "s" }
        ));
    }
    if let (Some(a), Some(b)) = (u.first, u.last) {
        let mins = (b - a).max(0) / 60_000;
        let (d, h) = local_time(a);
        let span = if mins < 60 {
            format!("{mins} min")
        } else {
            format!("{}h{:02}", mins / 60, mins % 60)
        };
        parts.push(format!("{d} {h}, {span}"));
    }
    if !models.is_empty() {
        parts.push(models.join(", "));
    }
    let row = Row::of(s, pricer);
    let (cost, unpriced) = row.cost();
    let priced = row.any_priced();
    if !row.models.is_empty() {
        parts.push(if priced {
            format!(
                "{}{}{}",
                if row.estimated() { "est. " } else { "" },
                cost_text(cost, unpriced, true),
                if unpriced {
                    " (some models have no price)"
                } else {
                    ""
                }
            )
        } else {
            "no price for these models".to_owned()
        });
    }
    parts.join(" · ")
}

/// `sessions usage`: [`Query::resolve`] the flags, [`select`] the
/// sessions, [`aggregate`] them into rows (each message [`price`]d), [`bill`]
/// the 5-hour windows, then [`Counted::report`] (`-o json`, `ndjson`) or
/// [`Counted::table`] (text).
pub(super) fn usage(store: &Store, a: UsageArgs, io: &mut Io) -> anyhow::Result<SessionsOutcome> {
    let q = Query::resolve(&a, io.cwd.as_ref(), io.now_ms)?;
    // oldest first: a resumed session's file repeats what came before it
    let listing = store.usage(q.dir.as_deref())?;
    io.warn_skipped(&listing.skipped);
    let mut sessions = listing.sessions;
    // prices the store's own cost-state lines teach, for what none covers:
    // from every session of the store, other folders' and -n's left-out
    // ones too
    let pricer = view_pricer(store, q.dir.as_deref(), &sessions);
    select(&mut sessions, a.limit);
    // --by session: titles, and the rows in the order the sessions were last written
    let titles = if a.by == By::Session {
        session_titles(store, q.dir.as_deref())
    } else {
        HashMap::new()
    };
    let mut tally = aggregate(&sessions, &pricer, &a, &q);
    let windows = bill(&mut tally, &q, io.now_ms);
    let counted = Counted::new(&sessions, tally, windows, titles, &a);
    let output = a.output();
    if output.is_json() {
        let mut report = counted.report(&a, io.now_ms);
        if output == Output::Ndjson {
            // each row, then the rest of the document on the last line
            let mut lines = JsonRows::new(output);
            for row in report.rows.take().unwrap_or_default() {
                lines.push(io, &serde_json::to_string(&row)?)?;
            }
            lines.push(io, &serde_json::to_string(&report)?)?;
            lines.finish(io)?;
        } else {
            let mut text = serde_json::to_string_pretty(&report)?;
            text.push('\n');
            io.write_json(&text)?;
        }
        io.out.flush()?;
        return Ok(SessionsOutcome::Done(Exit::Success));
    }
    if counted.rows.is_empty() {
        io.warn("no usage recorded in these sessions");
        return Ok(SessionsOutcome::Done(Exit::Success));
    }
    if !counted.archived.is_empty() {
        let n = counted.archived.len();
        io.warn(&format!(
            "{n} archived session(s) counted (--no-archive: left out)"
        ));
    }
    let terminal = io
        .out_tty
        .then(|| io.size.map_or(usize::MAX, |(cols, _)| cols));
    let out = counted.table(&a, io.out_style, io.now_ms, &q.clock, terminal);
    io.out.write_all(out.as_bytes())?;
    io.out.flush()?;
    Ok(SessionsOutcome::Done(Exit::Success))
}

/// What `usage` counts, from its flags: the folder (none: every project),
/// the zone, and the time bounds.
struct Query {
    dir: Option<PathBuf>,
    clock: Clock,
    /// API messages at or after this (ms).
    since: Option<i64>,
    /// API messages before this (ms, exclusive: a date's next midnight).
    until: Option<i64>,
}

impl Query {
    /// Step 1: the flags resolved against the current directory and `now`;
    /// a usage error for a zone, a bound or a window that makes no sense.
    fn resolve(a: &UsageArgs, cwd: Option<&PathBuf>, now: i64) -> anyhow::Result<Query> {
        let dir = if a.all {
            None
        } else {
            Some(
                a.cwd
                    .clone()
                    .or_else(|| cwd.cloned())
                    .context("cannot tell the current directory; pass --cwd or --all")?,
            )
        };
        let clock = Clock::new(a.timezone.as_deref())?;
        let since = a
            .since
            .as_deref()
            .map(|s| clock.bound("--since", s, now, false))
            .transpose()?;
        // exclusive: a date's next midnight
        let until = a
            .until
            .as_deref()
            .map(|s| clock.bound("--until", s, now, true))
            .transpose()?;
        if let (Some(s), Some(u)) = (since, until) {
            if u <= s {
                // a window that holds no time: say so, not "no usage"
                return Err(crate::cli::common::exit::usage_error!(
                    "--until {} is not after --since {}: no time lies between them",
                    crate::cli::term::text::first_line(a.until.as_deref().unwrap_or(""), 40),
                    crate::cli::term::text::first_line(a.since.as_deref().unwrap_or(""), 40)
                ));
            }
        }
        Ok(Query {
            dir,
            clock,
            since,
            until,
        })
    }

    /// Whether a message at `at` (unknown: counted as after) is past `--until`.
    fn after_until(&self, at: Option<i64>) -> bool {
        self.until.is_some_and(|u| at.is_none_or(|at| at >= u))
    }

    /// The row a message of `model` at `when`, in session `s`, is added to
    /// (every `--by` but block).
    fn key(&self, a: &UsageArgs, when: i64, model: &str, s: &SessionUsage) -> String {
        match a.by {
            By::Day => self.clock.day(when),
            By::Week => self.clock.week(when, a.start_of_week),
            By::Month => month_of(&self.clock.day(when)),
            By::Model => model.to_owned(),
            By::Project => s
                .without_subagents
                .cwd
                .clone()
                .unwrap_or_else(|| "?".into()),
            By::Session | By::Block => s.session_id.clone(),
        }
    }
}

/// Step 2: `-n`'s `limit` newest sessions (by when each was last
/// written), still oldest first; `-n 0` is no limit, as in list and search.
fn select(sessions: &mut Vec<SessionUsage>, limit: Option<usize>) {
    let Some(n) = limit.filter(|&n| n > 0) else {
        return;
    };
    let mut newest: Vec<(i64, usize)> = sessions
        .iter()
        .enumerate()
        .map(|(i, s)| (s.last_modified, i))
        .collect();
    newest.sort_unstable_by(|x, y| y.cmp(x));
    let keep: HashSet<usize> = newest.into_iter().take(n).map(|(_, i)| i).collect();
    let mut i = 0;
    sessions.retain(|_| {
        i += 1;
        keep.contains(&(i - 1))
    });
}

/// A session's prices: each response's (by its key), and what the CLI's
/// cost-state priced that no response carries (its side requests), by model.
#[derive(Debug, Default)]
struct Prices {
    messages: HashMap<String, Cost>,
    side: Vec<(String, f64)>,
}

/// Step 3: the session's prices (none with `--no-cost`): its own
/// cost-state where it has one, else at the unit prices `pricer` learnt,
/// else by the table.
fn price(s: &SessionUsage, pricer: &Pricer, no_cost: bool) -> Prices {
    if no_cost {
        return Prices::default();
    }
    Prices {
        messages: pricer.session(s),
        side: Pricer::unshared(s),
    }
}

/// The rows counted from the sessions, before the windows are billed.
#[derive(Debug, Default)]
struct Tally<'a> {
    rows: BTreeMap<String, Row>,
    /// `--by session`: each session's sub-agents, under its row, oldest first.
    agents: BTreeMap<&'a str, Vec<(&'a SubagentUsage, Row)>>,
    /// `--by block`: each message's time, model, new tokens and cost,
    /// windowed by [`bill`].
    timed: Vec<(i64, String, Tokens, Cost)>,
}

/// Step 4: every response within the bounds, added once (a resumed file
/// repeats what came before it) to its row, priced by [`price`].
fn aggregate<'a>(
    sessions: &'a [SessionUsage],
    pricer: &Pricer,
    a: &UsageArgs,
    q: &Query,
) -> Tally<'a> {
    let threads = crate::cli::common::parallel::threads_for(sessions.len());
    aggregate_on(sessions, pricer, a, q, threads)
}

/// [`aggregate`], the sessions priced on `threads` threads.
fn aggregate_on<'a>(
    sessions: &'a [SessionUsage],
    pricer: &Pricer,
    a: &UsageArgs,
    q: &Query,
    threads: usize,
) -> Tally<'a> {
    let mut t = Tally::default();
    let mut seen = UsageSet::default();
    // what each message's cost has added so far (a resumed file repeats it)
    let mut counted: HashMap<String, Cost> = HashMap::new();
    // each session's prices on every core (a function of the session
    // alone); the counting below, which a resumed file's repeats make
    // depend on the order, stays on this thread in the sessions' order
    let priced = crate::cli::common::parallel::map_on(
        sessions,
        &|s: &SessionUsage| price(s, pricer, a.no_cost),
        threads,
    );
    for (s, prices) in sessions.iter().zip(priced) {
        // the session's own transcript, then each sub-agent's
        let files = std::iter::once((None, &s.without_subagents))
            .chain(s.subagents.iter().map(|a| (Some(a), &a.usage)));
        for (agent, file) in files {
            for m in &file.messages {
                // by block every response counts toward the chain of
                // windows (one before --since may begin the window shown);
                // windows that end before it are left out by `bill`
                if a.by != By::Block && q.since.is_some_and(|t| m.at.is_none_or(|at| at < t)) {
                    continue;
                }
                if q.after_until(m.at) {
                    continue;
                }
                let delta = seen.add_message(m);
                if delta.total() == 0 {
                    continue;
                }
                let full = prices.messages.get(&m.key).copied().unwrap_or_default();
                let cost = match counted.insert(m.key.clone(), full) {
                    Some(old) => full.beyond(&old),
                    None => full,
                };
                let when = m.at.unwrap_or(s.last_modified);
                if a.by == By::Block {
                    t.timed.push((when, m.model.clone(), delta, cost));
                    continue;
                }
                let key = q.key(a, when, &m.model, s);
                t.rows.entry(key).or_default().add(&m.model, &delta, cost);
                if let (By::Session, Some(agent)) = (a.by, agent) {
                    let list = t.agents.entry(&s.session_id).or_default();
                    let i = match list.iter().position(|(x, _)| std::ptr::eq(*x, agent)) {
                        Some(i) => i,
                        None => {
                            list.push((agent, Row::default()));
                            list.len() - 1
                        }
                    };
                    list[i].1.add(&m.model, &delta, cost);
                }
            }
        }
        // the side requests, at the time the cost-state covers up to
        for (model, usd) in prices.side {
            let when = s
                .cli_cost()
                .and_then(|c| c.until)
                .unwrap_or(s.last_modified);
            let cost = Cost {
                usd,
                ..Cost::default()
            };
            if q.after_until(Some(when)) {
                continue;
            }
            if a.by == By::Block {
                t.timed.push((when, model, Tokens::default(), cost));
                continue;
            }
            if q.since.is_some_and(|t| when < t) {
                continue;
            }
            let key = q.key(a, when, &model, s);
            t.rows
                .entry(key)
                .or_default()
                .add(&model, &Tokens::default(), cost);
        }
    }
    t
}

/// Step 5: the 5-hour billing windows of `--by block`'s messages (none
/// otherwise), each a row keyed by its start and end in the zone; with
/// `--since`, those with a response since then (each whole).
fn bill(t: &mut Tally, q: &Query, now: i64) -> Vec<(String, BillingWindow)> {
    let mut windows = billing_windows(
        t.timed
            .iter()
            .map(|(at, m, tk, c)| (*at, m.as_str(), *tk, *c)),
        now,
    );
    if let Some(since) = q.since {
        windows.retain(|w| w.last >= since);
    }
    windows
        .into_iter()
        .map(|w| {
            let key = window_key(&w, &q.clock);
            t.rows.insert(key.clone(), Row::of_window(&w));
            (key, w)
        })
        .collect()
}

/// Everything counted, ready to show.
struct Counted<'a> {
    rows: BTreeMap<String, Row>,
    agents: BTreeMap<&'a str, Vec<(&'a SubagentUsage, Row)>>,
    /// The billed windows, in time order, each with its row's key.
    windows: Vec<(String, BillingWindow)>,
    /// Every row added up.
    total: Row,
    /// The rows' keys in the order shown: by day, week, month and block
    /// the keys' own; by session when each was last written; `--order
    /// desc` reversed.
    order: Vec<String>,
    /// The models with no price.
    unpriced: BTreeSet<String>,
    /// Sessions only claudio's archive still holds.
    archived: HashSet<&'a str>,
    /// `--by session`: the sessions' titles, by id.
    titles: HashMap<String, String>,
}

impl<'a> Counted<'a> {
    fn new(
        sessions: &'a [SessionUsage],
        tally: Tally<'a>,
        windows: Vec<(String, BillingWindow)>,
        titles: HashMap<String, String>,
        a: &UsageArgs,
    ) -> Counted<'a> {
        let Tally { rows, agents, .. } = tally;
        let archived: HashSet<&str> = sessions
            .iter()
            .filter(|s| s.is_archived())
            .map(|s| s.session_id.as_str())
            .collect();
        let mut total = Row::default();
        for r in rows.values() {
            for (m, t) in &r.models {
                total.models.entry(m.clone()).or_default().add(t);
            }
            for (m, c) in &r.costs {
                total.costs.entry(m.clone()).or_default().add(c);
            }
        }
        let mut order: Vec<String> = rows.keys().cloned().collect();
        if a.by == By::Session {
            let written: HashMap<&str, i64> = sessions
                .iter()
                .map(|s| (s.session_id.as_str(), s.last_modified))
                .collect();
            order.sort_by(|x, y| {
                (written.get(x.as_str()), x.as_str()).cmp(&(written.get(y.as_str()), y.as_str()))
            });
        }
        if a.order == Order::Desc {
            order.reverse();
        }
        let unpriced = total
            .costs
            .iter()
            .filter(|(_, c)| c.partial)
            .map(|(m, _)| m.clone())
            .collect();
        Counted {
            rows,
            agents,
            windows,
            total,
            order,
            unpriced,
            archived,
            titles,
        }
    }

    /// The window a row is, by its key (`--by block`).
    fn window(&self, key: &str) -> Option<&BillingWindow> {
        self.windows.iter().rfind(|(k, _)| k == key).map(|(_, w)| w)
    }

    /// The rows in the order shown.
    fn ordered(&self) -> impl Iterator<Item = (&String, &Row)> {
        self.order.iter().filter_map(|k| self.rows.get_key_value(k))
    }

    /// Step 6, `-o json` and `ndjson`: the document.
    fn report(&self, a: &UsageArgs, now: i64) -> json::UsageReport {
        let rows = self
            .ordered()
            .map(|(k, r)| self.row_json(k, r, a, now))
            .collect();
        json::UsageReport {
            archived_sessions: (!self.archived.is_empty()).then_some(self.archived.len()),
            by: format!("{:?}", a.by).to_lowercase(),
            prices_date: PRICES_DATE,
            rows: Some(rows),
            start_of_week: (a.by == By::Week).then(|| a.start_of_week.name()),
            timezone: a.timezone.clone(),
            total: Figures::of(&self.total, a.no_cost).row("total"),
            unpriced_models: self.unpriced.iter().cloned().collect(),
        }
    }

    /// A row of the document, with what its kind adds: a session's title,
    /// archive mark and sub-agents, a window's times and rate.
    fn row_json(&self, key: &str, r: &Row, a: &UsageArgs, now: i64) -> json::UsageRow {
        let mut v = Figures::of(r, a.no_cost).row(key);
        v.title = self.titles.get(key).cloned();
        if a.by == By::Session && self.archived.contains(key) {
            v.from_archive = Some(true);
        }
        if let Some(w) = self.window(key) {
            let iso = |ms| Some(claudio::store::format_iso_millis(ms));
            v.start = iso(w.start);
            v.end = iso(w.end);
            v.first_message = iso(w.first);
            v.last_message = iso(w.last);
            v.api_requests = Some(w.messages);
            v.active = Some(w.active);
            if let Some(p) = Projection::of(w, r, now) {
                let priced = !a.no_cost && r.any_priced();
                v.burn_rate = Some(json::BurnRate {
                    cost_per_hour: priced.then_some(p.cost_per_hour),
                    tokens_per_minute: p.tokens_per_minute,
                });
                v.projected = Some(json::Projected {
                    estimated_cost_usd: priced.then_some(p.cost),
                    remaining_minutes: p.minutes_left,
                    tokens: p.tokens,
                });
            }
        }
        if let Some(agents) = self.agents.get(key) {
            let list = agents
                .iter()
                .map(|(agent, r)| Figures::of(r, a.no_cost).agent_row(agent))
                .collect();
            v.subagents = Some(list);
        }
        v
    }

    /// Step 6, text: the table, the open window's line and the notes.
    /// The table; `terminal`, the width of the terminal it is written to
    /// (its rows then drawn as [`table_row`] says).
    fn table(
        &self,
        a: &UsageArgs,
        st: Style,
        now: i64,
        clock: &Clock,
        terminal: Option<usize>,
    ) -> String {
        let head = [
            "",
            "INPUT",
            "OUTPUT",
            "CACHE WRITE",
            "CACHE READ",
            "TOTAL",
            "COST",
        ];
        let mut table: Vec<[String; 7]> = Vec::new();

        let line = |key: &str, r: &Row| {
            let t = r.tokens();
            [
                flat(key),
                short(t.input),
                short(t.output),
                short(t.cache_write),
                short(t.cache_read),
                short(t.total()),
                r.cost_cell(),
            ]
        };
        // --breakdown: a row's models under it (by model a row is one)
        let breakdown = |table: &mut Vec<[String; 7]>, r: &Row| {
            if a.breakdown && a.by != By::Model {
                for (m, r) in r.by_model() {
                    table.push(line(&format!("  └ {m}"), &r));
                }
            }
        };
        for (k, r) in self.ordered() {
            if self.window(k).is_some_and(|w| w.active) {
                table.push(line(&format!("{k} (open)"), r));
                breakdown(&mut table, r);
                continue;
            }
            if a.by == By::Session {
                table.push(line(
                    &session_label(
                        k,
                        self.titles.get(k.as_str()),
                        self.archived.contains(k.as_str()),
                    ),
                    r,
                ));
            } else {
                table.push(line(k, r));
            }
            breakdown(&mut table, r);
            // a session's sub-agents, already in its row: what each spent
            for (agent, r) in self.agents.get(k.as_str()).into_iter().flatten() {
                table.push(line(&agent_label(agent), r));
            }
        }
        table.push(line("total", &self.total));
        if terminal.is_some() {
            // what terminals count otherwise left out before it is counted
            for r in &mut table {
                if let std::borrow::Cow::Owned(k) = undisputed(&r[0]) {
                    r[0] = k;
                }
            }
        }
        let cols = if a.no_cost { 6 } else { 7 };
        let w: Vec<usize> = (0..cols)
            .map(|i| {
                table
                    .iter()
                    .map(|r| width(&r[i]))
                    .chain([head[i].len()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let key_w = w[0].min(60);
        let mut out = String::new();
        let fmt = |cells: &[String], out: &mut String| {
            let mut s = pad(&cut_width(&cells[0], key_w), key_w);
            for i in 1..cols {
                s.push_str("  ");
                s.push_str(&pad_left(&cells[i], w[i]));
            }
            match terminal {
                Some(width) => out.push_str(&table_row(s.trim_end(), width)),
                None => out.push_str(s.trim_end()),
            }
            out.push('\n');
        };
        let heads: Vec<String> = head.iter().map(|h| h.to_string()).collect();
        let mut h = String::new();
        fmt(&heads, &mut h);
        out.push_str(&st.dim(h.trim_end()));
        out.push('\n');
        let n = table.len();
        for (i, r) in table.iter().enumerate() {
            let mut l = String::new();
            fmt(r, &mut l);
            if i + 1 == n {
                out.push_str(&st.bold(l.trim_end()));
                out.push('\n');
            } else {
                out.push_str(&l);
            }
        }
        for (_, w) in self.windows.iter().filter(|(_, w)| w.active) {
            let r = Row::of_window(w);
            out.push_str(&flat(&open_window_line(w, &r, now, !a.no_cost, clock)));
            out.push('\n');
        }
        if !self.agents.is_empty() {
            out.push_str(&st.dim("a session's row includes its sub-agents (↳ rows)"));
            out.push('\n');
        }
        if a.by == By::Week {
            let day = a.start_of_week.name();
            let mut note = format!("weeks start on {day}");
            note[..1].make_ascii_uppercase();
            out.push_str(&st.dim(&format!("{note} (--start-of-week)")));
            out.push('\n');
        }
        if !a.no_cost {
            let mut note = if self.total.estimated() {
                format!("~ marks estimates from the list prices of {PRICES_DATE} (or the config file's [prices]); other costs are the CLI's own")
            } else {
                "costs are the CLI's own (its cost-state records)".to_owned()
            };
            if !self.unpriced.is_empty() {
                let names: Vec<&str> = self.unpriced.iter().map(|s| s.as_str()).collect();
                note.push_str(&format!(
                    "; no price for {} (tokens only)",
                    names.join(", ")
                ));
            }
            out.push_str(&st.dim(&flat(&note)));
            out.push('\n');
        }
        out
    }
}

/// A row's figures as the document shows them: tokens, and the cost
/// (none with `--no-cost` or no price).
struct Figures<'r> {
    row: &'r Row,
    /// `--no-cost`: no cost shown.
    no_cost: bool,
    tokens: Tokens,
    cost: Option<f64>,
    partial: bool,
    estimate: bool,
}

impl<'r> Figures<'r> {
    fn of(r: &'r Row, no_cost: bool) -> Figures<'r> {
        let (cost, some_unpriced) = r.cost();
        let priced = !no_cost && r.any_priced();
        Figures {
            row: r,
            no_cost,
            tokens: r.tokens(),
            cost: priced.then_some(cost),
            partial: priced && some_unpriced,
            estimate: priced && r.estimated(),
        }
    }

    /// Each model's figures.
    fn breakdowns(&self) -> Vec<json::ModelBreakdown> {
        self.row
            .by_model()
            .map(|(m, r)| {
                let f = Figures::of(&r, self.no_cost);
                json::ModelBreakdown {
                    cache_read: f.tokens.cache_read,
                    cache_write: f.tokens.cache_write,
                    cost_is_estimate: f.estimate,
                    cost_is_partial: f.partial,
                    estimated_cost_usd: f.cost,
                    input: f.tokens.input,
                    model: m.clone(),
                    output: f.tokens.output,
                }
            })
            .collect()
    }

    /// A row keyed `key`, with nothing of a session or a window.
    fn row(&self, key: &str) -> json::UsageRow {
        json::UsageRow {
            active: None,
            api_requests: None,
            burn_rate: None,
            cache_read: self.tokens.cache_read,
            cache_write: self.tokens.cache_write,
            cost_is_estimate: self.estimate,
            cost_is_partial: self.partial,
            end: None,
            estimated_cost_usd: self.cost,
            first_message: None,
            from_archive: None,
            input: self.tokens.input,
            key: key.to_owned(),
            last_message: None,
            model_breakdowns: self.breakdowns(),
            models: self.row.models.keys().cloned().collect(),
            output: self.tokens.output,
            projected: None,
            start: None,
            subagents: None,
            title: None,
        }
    }

    /// A sub-agent's row.
    fn agent_row(&self, agent: &SubagentUsage) -> json::AgentRow {
        let id = &agent.agent.agent_id;
        json::AgentRow {
            agent_id: id.clone(),
            agent_type: agent.agent.agent_type.clone(),
            cache_read: self.tokens.cache_read,
            cache_write: self.tokens.cache_write,
            cost_is_estimate: self.estimate,
            cost_is_partial: self.partial,
            description: agent.agent.description.clone(),
            estimated_cost_usd: self.cost,
            input: self.tokens.input,
            key: id.clone(),
            model_breakdowns: self.breakdowns(),
            models: self.row.models.keys().cloned().collect(),
            output: self.tokens.output,
        }
    }
}

/// The titles of the sessions `dir` (or every project) holds, by id; none
/// when they cannot be listed (the rows keep their ids).
fn session_titles(store: &Store, dir: Option<&std::path::Path>) -> HashMap<String, String> {
    let opts = match dir {
        Some(d) => ListOptions::for_dir(d),
        None => ListOptions::all(),
    };
    store
        .list(&opts)
        .map(|l| {
            l.sessions
                .into_iter()
                .map(|s| (s.session_id, s.title))
                .collect()
        })
        .unwrap_or_default()
}

/// A session's row in the table: its short id and its title.
fn session_label(id: &str, title: Option<&String>, archived: bool) -> String {
    let short: String = id.chars().take(8).collect();
    let mut label = short;
    if archived {
        label.push_str("  (archived)");
    }
    if let Some(t) = title.filter(|t| !t.trim().is_empty()) {
        label.push_str("  ");
        label.push_str(&flat(t));
    }
    label
}

/// A billing window's row: its start and end, local time
/// (`2026-11-01 10:00–15:00`).
fn window_key(w: &BillingWindow, clock: &Clock) -> String {
    let (day, from) = clock.at(w.start);
    format!("{day} {from}–{}", clock.at(w.end).1)
}

/// An open window at its present rate: per minute, per hour, and at its end.
#[derive(Debug, PartialEq)]
struct Projection {
    tokens_per_minute: f64,
    cost_per_hour: f64,
    tokens: u64,
    cost: f64,
    minutes_left: i64,
}

impl Projection {
    /// `None` for a closed window, or one with no rate yet (one message).
    fn of(w: &BillingWindow, r: &Row, now: i64) -> Option<Projection> {
        let factor = w.projection_factor(now)?;
        let tokens_per_minute = w.tokens_per_minute()?;
        let hours = (w.last - w.first) as f64 / 3_600_000.0;
        let (cost, _) = r.cost();
        Some(Projection {
            tokens_per_minute,
            cost_per_hour: cost / hours,
            tokens: (w.tokens().total() as f64 * factor).round() as u64,
            cost: cost * factor,
            minutes_left: (w.end - now).max(0) / 60_000,
        })
    }
}

/// The line under the table for the window still open: time left, burn
/// rate and what it comes to at the window's end.
fn open_window_line(
    w: &BillingWindow,
    r: &Row,
    now: i64,
    with_cost: bool,
    clock: &Clock,
) -> String {
    let left = (w.end - now).max(0) / 60_000;
    let end = clock.at(w.end).1;
    let mut s = format!(
        "open window: {}h{:02} left, until {end}",
        left / 60,
        left % 60
    );
    let Some(p) = Projection::of(w, r, now) else {
        s.push_str(" · one request so far: no burn rate yet");
        return s;
    };
    let (_, partial) = r.cost();
    let priced = with_cost && r.any_priced();
    let plus = if partial { "+" } else { "" };
    s.push_str(&format!(
        " · burning {} tokens/min",
        short(p.tokens_per_minute.round() as u64)
    ));
    if priced {
        s.push_str(&format!(" (${:.2}/h{plus})", p.cost_per_hour));
    }
    s.push_str(&format!(
        " · projected at {end}: {} tokens",
        short(p.tokens)
    ));
    if priced {
        s.push_str(&format!(", ${:.2}{plus}", p.cost));
    }
    s
}

/// A sub-agent's row under its session: what it was asked to do, else
/// its type, and its id.
fn agent_label(a: &SubagentUsage) -> String {
    let id: String = a.agent.agent_id.chars().take(8).collect();
    match a
        .agent
        .description
        .as_deref()
        .or(a.agent.agent_type.as_deref())
    {
        Some(what) => format!("  ↳ {} ({id})", flat(what)),
        None => format!("  ↳ sub-agent {id}"),
    }
}

pub(super) mod json;
#[cfg(test)]
mod tests;
