//! `claudio sessions usage`: tokens and estimated cost, added up by day,
//! month, model, project or session; and the usage line of `inspect`.

use super::cells::{cut, flat, pad, pad_left, width};
use super::io::Output;
use super::io::{Io, JsonRows, SessionsOutcome};
use super::time::local_time;
use crate::cli::billing::{billing_windows, BillingWindow};
use crate::cli::exit::Exit;
use crate::cli::pricing::{Cost, Pricer, PRICES_DATE};
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
        let (zone, why) = super::time::zone_from(Some(name.as_ref()), tzdir.as_deref());
        if why.is_some() || name.trim().is_empty() {
            return Err(crate::cli::exit::usage_error!(
                "--timezone {}: no such time zone (give an IANA name such as Europe/Paris, or UTC)",
                crate::cli::summary::one_line(name, 40)
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
        super::time::parse_since(t, now)
            .map(|ms| if end { ms.saturating_add(1) } else { ms })
            .map_err(|_| {
                crate::cli::exit::usage_error!(
                    "{flag} {}: give a span (30m, 12h, 7d, 2w) or a date (2026-11-01)",
                    crate::cli::summary::one_line(t, 40)
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

/// Token counts in short: 950, 12.3k, 4.1M.
pub(crate) fn short(n: u64) -> String {
    match n {
        n if n >= 1_000_000 => format!("{:.1}M", n as f64 / 1e6),
        n if n >= 10_000 => format!("{:.0}k", n as f64 / 1e3),
        n if n >= 1_000 => format!("{:.1}k", n as f64 / 1e3),
        n => n.to_string(),
    }
}

fn cost_text(cost: f64, unpriced: bool, any_priced: bool) -> String {
    match (any_priced, unpriced) {
        (false, _) => "—".into(),
        (true, false) => format!("${cost:.2}"),
        (true, true) => format!("${cost:.2}+"),
    }
}

/// Extra fields for `list --json --usage`: beside the SDK's, never instead.
pub(super) fn json_fields(
    s: &SessionUsage,
    pricer: &Pricer,
) -> Vec<(&'static str, serde_json::Value)> {
    let u = &s.total();
    let t = u.tokens();
    let row = Row::of(s, pricer);
    let (cost, partial) = row.cost();
    let priced = row.any_priced();
    vec![
        (
            "usage",
            serde_json::json!({
                "input": t.input, "output": t.output,
                "cacheWrite": t.cache_write, "cacheRead": t.cache_read,
            }),
        ),
        (
            "models",
            serde_json::json!(row.models.keys().collect::<Vec<_>>()),
        ),
        ("prompts", serde_json::json!(u.prompts)),
        ("apiRequests", serde_json::json!(u.messages.len())),
        ("firstActivity", serde_json::json!(u.first)),
        ("lastActivity", serde_json::json!(u.last)),
        (
            "estimatedCostUsd",
            serde_json::json!(priced.then_some(cost)),
        ),
        ("costIsPartial", serde_json::json!(priced && partial)),
        (
            "costIsEstimate",
            serde_json::json!(priced && row.estimated()),
        ),
    ]
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
    crate::cli::pricing::learn_from_store(store)
        .unwrap_or_else(|| Pricer::learn(read.into_iter().map(|s| &s.without_subagents)))
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

pub(super) fn usage(store: &Store, a: UsageArgs, io: &mut Io) -> anyhow::Result<SessionsOutcome> {
    let dir = if a.all {
        None
    } else {
        Some(
            a.cwd
                .clone()
                .or_else(|| io.cwd.clone())
                .context("cannot tell the current directory; pass --cwd or --all")?,
        )
    };
    let clock = Clock::new(a.timezone.as_deref())?;
    let since = a
        .since
        .as_deref()
        .map(|s| clock.bound("--since", s, io.now_ms, false))
        .transpose()?;
    // exclusive: a date's next midnight
    let until = a
        .until
        .as_deref()
        .map(|s| clock.bound("--until", s, io.now_ms, true))
        .transpose()?;
    if let (Some(s), Some(u)) = (since, until) {
        if u <= s {
            // a window that holds no time: say so, not "no usage"
            return Err(crate::cli::exit::usage_error!(
                "--until {} is not after --since {}: no time lies between them",
                crate::cli::summary::one_line(a.until.as_deref().unwrap_or(""), 40),
                crate::cli::summary::one_line(a.since.as_deref().unwrap_or(""), 40)
            ));
        }
    }
    let after_until = |at: Option<i64>| until.is_some_and(|u| at.is_none_or(|at| at >= u));
    // oldest first: a resumed session's file repeats what came before it
    let listing = store.usage(dir.as_deref())?;
    io.warn_skipped(&listing.skipped);
    let mut sessions = listing.sessions;
    // prices the store's own cost-state lines teach, for what none covers:
    // from every session of the store, other folders' and -n's left-out
    // ones too
    let pricer = store_pricer(store, &sessions);
    // `-n 0` is no limit, as in list and search
    if let Some(n) = a.limit.filter(|&n| n > 0) {
        // the n newest, still oldest first
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
    // --by session: titles, and the rows in the order the sessions were last written
    let titles = if a.by == By::Session {
        session_titles(store, dir.as_deref())
    } else {
        HashMap::new()
    };
    let written: HashMap<&str, i64> = sessions
        .iter()
        .map(|s| (s.session_id.as_str(), s.last_modified))
        .collect();
    // sessions only claudio's archive still holds
    let archived: HashSet<&str> = sessions
        .iter()
        .filter(|s| s.is_archived())
        .map(|s| s.session_id.as_str())
        .collect();
    let mut rows: BTreeMap<String, Row> = BTreeMap::new();
    // --by session: each session's sub-agents, under its row, oldest first
    let mut agent_rows: BTreeMap<&str, Vec<(&SubagentUsage, Row)>> = BTreeMap::new();
    // --by block: each message's time, model and new tokens, windowed after
    let mut timed: Vec<(i64, String, Tokens, Cost)> = Vec::new();
    let mut seen = UsageSet::default();
    // what each message's cost has added so far (a resumed file repeats it)
    let mut counted: HashMap<String, Cost> = HashMap::new();
    for s in &sessions {
        let costs = if a.no_cost {
            HashMap::new()
        } else {
            pricer.session(s)
        };
        // the session's own transcript, then each sub-agent's
        let files = std::iter::once((None, &s.without_subagents))
            .chain(s.subagents.iter().map(|a| (Some(a), &a.usage)));
        for (agent, file) in files {
            for m in &file.messages {
                // by block every response counts toward the chain of
                // windows (one before --since may begin the window shown);
                // windows that end before it are left out below
                if a.by != By::Block && since.is_some_and(|t| m.at.is_none_or(|at| at < t)) {
                    continue;
                }
                if after_until(m.at) {
                    continue;
                }
                let delta = seen.add_message(m);
                if delta.total() == 0 {
                    continue;
                }
                let full = costs.get(&m.key).copied().unwrap_or_default();
                let cost = match counted.insert(m.key.clone(), full) {
                    Some(old) => full.beyond(&old),
                    None => full,
                };
                let when = m.at.unwrap_or(s.last_modified);
                if a.by == By::Block {
                    timed.push((when, m.model.clone(), delta, cost));
                    continue;
                }
                let key = match a.by {
                    By::Day => clock.day(when),
                    By::Week => clock.week(when, a.start_of_week),
                    By::Month => month_of(&clock.day(when)),
                    By::Model => m.model.clone(),
                    By::Project => s
                        .without_subagents
                        .cwd
                        .clone()
                        .unwrap_or_else(|| "?".into()),
                    By::Session | By::Block => s.session_id.clone(),
                };
                rows.entry(key).or_default().add(&m.model, &delta, cost);
                if let (By::Session, Some(agent)) = (a.by, agent) {
                    let list = agent_rows.entry(&s.session_id).or_default();
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
        // what the CLI's cost-state priced that no response carries (its
        // side requests), at the time it covers up to
        let side = if a.no_cost {
            Vec::new()
        } else {
            Pricer::unshared(s)
        };
        for (model, usd) in side {
            let when = s
                .cli_cost()
                .and_then(|c| c.until)
                .unwrap_or(s.last_modified);
            let cost = Cost {
                usd,
                ..Cost::default()
            };
            if after_until(Some(when)) {
                continue;
            }
            if a.by == By::Block {
                timed.push((when, model, Tokens::default(), cost));
                continue;
            }
            if since.is_some_and(|t| when < t) {
                continue;
            }
            let key = match a.by {
                By::Day => clock.day(when),
                By::Week => clock.week(when, a.start_of_week),
                By::Month => month_of(&clock.day(when)),
                By::Model => model.clone(),
                By::Project => s
                    .without_subagents
                    .cwd
                    .clone()
                    .unwrap_or_else(|| "?".into()),
                By::Session | By::Block => s.session_id.clone(),
            };
            rows.entry(key)
                .or_default()
                .add(&model, &Tokens::default(), cost);
        }
    }
    let mut windows = billing_windows(
        timed.iter().map(|(at, m, t, c)| (*at, m.as_str(), *t, *c)),
        io.now_ms,
    );
    // --since: the windows with a response since then (each whole)
    if let Some(t) = since {
        windows.retain(|w| w.last >= t);
    }
    // a window's row: its start and end, local time (in order as strings)
    let mut window_of: BTreeMap<String, &BillingWindow> = BTreeMap::new();
    for w in &windows {
        let key = window_key(w, &clock);
        rows.insert(key.clone(), Row::of_window(w));
        window_of.insert(key, w);
    }
    let mut total = Row::default();
    for r in rows.values() {
        for (m, t) in &r.models {
            total.models.entry(m.clone()).or_default().add(t);
        }
        for (m, c) in &r.costs {
            total.costs.entry(m.clone()).or_default().add(c);
        }
    }
    // in time order: by day, month and block the keys are; by session, when
    // each was last written (oldest first, as the days)
    let mut ordered: Vec<(&String, &Row)> = rows.iter().collect();
    if a.by == By::Session {
        ordered.sort_by_key(|(k, _)| (written.get(k.as_str()).copied(), k.as_str()));
    }
    if a.order == Order::Desc {
        ordered.reverse();
    }
    let unpriced: BTreeSet<&String> = total
        .costs
        .iter()
        .filter(|(_, c)| c.partial)
        .map(|(m, _)| m)
        .collect();
    let output = a.output();
    let now = io.now_ms;
    if output.is_json() {
        // a row's figures; by model too (`modelBreakdowns`)
        let figures = |r: &Row| {
            let t = r.tokens();
            let (cost, some_unpriced) = r.cost();
            let priced = r.any_priced();
            serde_json::json!({
                "input": t.input, "output": t.output,
                "cacheWrite": t.cache_write, "cacheRead": t.cache_read,
                "estimatedCostUsd": (!a.no_cost && priced).then_some(cost),
                "costIsPartial": !a.no_cost && some_unpriced && priced,
                "costIsEstimate": !a.no_cost && priced && r.estimated(),
            })
        };
        let row_json = |key: &str, r: &Row| {
            let mut v = figures(r);
            v["key"] = serde_json::json!(key);
            v["models"] = serde_json::json!(r.models.keys().collect::<Vec<_>>());
            let by_model: Vec<serde_json::Value> = r
                .by_model()
                .map(|(m, r)| {
                    let mut v = figures(&r);
                    v["model"] = serde_json::json!(m);
                    v
                })
                .collect();
            v["modelBreakdowns"] = serde_json::json!(by_model);
            v
        };
        let session_row = |k: &String, r: &Row| {
            let mut v = row_json(k, r);
            if let Some(t) = titles.get(k.as_str()) {
                v["title"] = serde_json::json!(t);
            }
            if a.by == By::Session && archived.contains(k.as_str()) {
                v["fromArchive"] = serde_json::json!(true);
            }
            if let Some(w) = window_of.get(k) {
                let iso = claudio::store::format_iso_millis;
                v["start"] = serde_json::json!(iso(w.start));
                v["end"] = serde_json::json!(iso(w.end));
                v["firstMessage"] = serde_json::json!(iso(w.first));
                v["lastMessage"] = serde_json::json!(iso(w.last));
                v["apiRequests"] = serde_json::json!(w.messages);
                v["active"] = serde_json::json!(w.active);
                if let Some(p) = Projection::of(w, r, now) {
                    let priced = !a.no_cost && r.any_priced();
                    v["burnRate"] = serde_json::json!({
                        "tokensPerMinute": p.tokens_per_minute,
                        "costPerHour": priced.then_some(p.cost_per_hour),
                    });
                    v["projected"] = serde_json::json!({
                        "tokens": p.tokens,
                        "estimatedCostUsd": priced.then_some(p.cost),
                        "remainingMinutes": p.minutes_left,
                    });
                }
            }
            if let Some(agents) = agent_rows.get(k.as_str()) {
                let list: Vec<serde_json::Value> = agents
                    .iter()
                    .map(|(agent, r)| {
                        let mut v = row_json(&agent.agent.agent_id, r);
                        v["agentId"] = serde_json::json!(agent.agent.agent_id);
                        v["description"] = serde_json::json!(agent.agent.description);
                        v["agentType"] = serde_json::json!(agent.agent.agent_type);
                        v
                    })
                    .collect();
                v["subagents"] = serde_json::json!(list);
            }
            v
        };
        let mut v = serde_json::json!({
            "by": format!("{:?}", a.by).to_lowercase(),
            "total": row_json("total", &total),
            "pricesDate": PRICES_DATE,
            "unpricedModels": unpriced,
        });
        if !archived.is_empty() {
            v["archivedSessions"] = serde_json::json!(archived.len());
        }
        if a.by == By::Week {
            v["startOfWeek"] = serde_json::json!(a.start_of_week.name());
        }
        if let Some(z) = &a.timezone {
            v["timezone"] = serde_json::json!(z);
        }
        let rows_json = ordered.iter().map(|(k, r)| session_row(k, r));
        if output == Output::Ndjson {
            // each row, then the rest of the document on the last line
            let mut lines = JsonRows::new(output);
            for row in rows_json {
                lines.push(io, &row.to_string())?;
            }
            lines.push(io, &v.to_string())?;
            lines.finish(io)?;
        } else {
            v["rows"] = serde_json::json!(rows_json.collect::<Vec<_>>());
            let mut text = serde_json::to_string_pretty(&v)?;
            text.push('\n');
            io.write_json(&text)?;
        }
        io.out.flush()?;
        return Ok(SessionsOutcome::Done(Exit::Success));
    }
    if rows.is_empty() {
        io.warn("no usage recorded in these sessions");
        return Ok(SessionsOutcome::Done(Exit::Success));
    }
    if !archived.is_empty() {
        let n = archived.len();
        io.warn(&format!(
            "{n} archived session(s) counted (--no-archive: left out)"
        ));
    }
    let st = io.out_style;
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
    for (k, r) in ordered {
        if window_of.get(k).is_some_and(|w| w.active) {
            table.push(line(&format!("{k} (open)"), r));
            breakdown(&mut table, r);
            continue;
        }
        if a.by == By::Session {
            table.push(line(
                &session_label(k, titles.get(k.as_str()), archived.contains(k.as_str())),
                r,
            ));
        } else {
            table.push(line(k, r));
        }
        breakdown(&mut table, r);
        // a session's sub-agents, already in its row: what each spent
        for (agent, r) in agent_rows.get(k.as_str()).into_iter().flatten() {
            table.push(line(&agent_label(agent), r));
        }
    }
    table.push(line("total", &total));
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
        let mut s = pad(&cut(&cells[0], key_w), key_w);
        for i in 1..cols {
            s.push_str("  ");
            s.push_str(&pad_left(&cells[i], w[i]));
        }
        out.push_str(s.trim_end());
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
    for w in windows.iter().filter(|w| w.active) {
        let r = Row::of_window(w);
        out.push_str(&flat(&open_window_line(
            w, &r, io.now_ms, !a.no_cost, &clock,
        )));
        out.push('\n');
    }
    if !agent_rows.is_empty() {
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
        let mut note = if total.estimated() {
            format!("~ marks estimates from the list prices of {PRICES_DATE} (or the config file's [prices]); other costs are the CLI's own")
        } else {
            "costs are the CLI's own (its cost-state records)".to_owned()
        };
        if !unpriced.is_empty() {
            let names: Vec<&str> = unpriced.iter().map(|s| s.as_str()).collect();
            note.push_str(&format!(
                "; no price for {} (tokens only)",
                names.join(", ")
            ));
        }
        out.push_str(&st.dim(&flat(&note)));
        out.push('\n');
    }
    io.out.write_all(out.as_bytes())?;
    io.out.flush()?;
    Ok(SessionsOutcome::Done(Exit::Success))
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

/// An open 5-hour window as a one-line status shows it (`claudio
/// statusline`): what `--by block` computes for it, in dollars.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct OpenWindow {
    /// Whole minutes until it ends.
    pub minutes_left: i64,
    /// Its estimated cost so far.
    pub cost: f64,
    /// At its present rate: dollars per hour, and its cost at its end
    /// (`None` with one request so far: no rate yet).
    pub cost_per_hour: Option<f64>,
    pub projected: Option<f64>,
    /// Some of its models have no price: the costs are a lower bound.
    pub partial: bool,
    /// None of its models has a price: no cost to show.
    pub unpriced: bool,
}

impl OpenWindow {
    /// The window `w` at `now`, as [`Projection`] sees it.
    pub(crate) fn of(w: &BillingWindow, now: i64) -> OpenWindow {
        let r = Row::of_window(w);
        let (cost, partial) = r.cost();
        let p = Projection::of(w, &r, now);
        OpenWindow {
            minutes_left: (w.end - now).max(0) / 60_000,
            cost,
            cost_per_hour: p.as_ref().map(|p| p.cost_per_hour),
            projected: p.as_ref().map(|p| p.cost),
            partial,
            unpriced: !r.any_priced(),
        }
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

#[cfg(test)]
mod tests;
