//! What tokens cost. The CLI's own figures first: its `cost-state`
//! transcript lines price a session exactly, per model. Where a session
//! has none (still running, an older CLI), unit prices derived from the
//! `cost-state` lines of the same model elsewhere in the store; only then
//! the list prices (the config file's `[prices]` first, then the CLI's
//! own price list as of a date, kept by the program), and such a figure is
//! an estimate.

use claudio::store::{CliCost, FileUsage, MessageUsage, ModelCost, SessionUsage, Tokens};
use std::collections::HashMap;

/// USD per million tokens of each kind, as the CLI's own price list (its
/// model catalog) gives them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rates {
    /// Per million uncached input tokens.
    pub input: f64,
    /// Per million output tokens.
    pub output: f64,
    /// Per million tokens written to the 5-minute cache.
    pub write_5m: f64,
    /// Per million tokens written to the 1-hour cache.
    pub write_1h: f64,
    /// Per million tokens read from the cache.
    pub read: f64,
}

impl Rates {
    /// What `tokens` cost at these rates, in USD; `None` when it is not a
    /// number (rates from a config file are checked when read).
    pub fn cost(&self, t: &Tokens) -> Option<f64> {
        let w1h = t.cache_write_1h.min(t.cache_write);
        let usd = (t.input as f64 * self.input
            + t.output as f64 * self.output
            + (t.cache_write - w1h) as f64 * self.write_5m
            + w1h as f64 * self.write_1h
            + t.cache_read as f64 * self.read)
            / 1e6;
        usd.is_finite().then_some(usd)
    }
}

/// One model's prices in the built-in table.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Price {
    /// Model-name prefix it applies to.
    prefix: &'static str,
    rates: Rates,
    /// The long-prompt tier, where the model has one: past this many input
    /// tokens (uncached, cache writes and reads) a request is priced at
    /// these rates instead.
    long: Option<(u64, Rates)>,
    /// Fast mode's rates (`usage.speed` `"fast"`), where the CLI has them
    /// for the model; elsewhere a fast answer costs the usual rates.
    fast: Option<Rates>,
}

/// When the built-in prices were taken from the CLI's price list.
pub const PRICES_DATE: &str = "2026-12-04";

/// An entry of the table: prices per million input, output, 5-minute and
/// 1-hour cache write, and cache read tokens (one line each:
/// `scripts/check-prices` reads them).
const fn price(
    prefix: &'static str,
    input: f64,
    output: f64,
    write_5m: f64,
    write_1h: f64,
    read: f64,
) -> Price {
    Price {
        prefix,
        rates: Rates {
            input,
            output,
            write_5m,
            write_1h,
            read,
        },
        long: None,
        fast: None,
    }
}

/// `p` with a long-prompt tier past `above` input tokens.
const fn long(
    p: Price,
    above: u64,
    input: f64,
    output: f64,
    write_5m: f64,
    write_1h: f64,
    read: f64,
) -> Price {
    Price {
        long: Some((
            above,
            price("", input, output, write_5m, write_1h, read).rates,
        )),
        ..p
    }
}

/// `p` with fast mode's rates (the CLI's own, not in its catalog: the
/// real-CLI test `cost::real_cli_prices_every_model_as_the_table_does`
/// checks them).
const fn fast(p: Price, input: f64, output: f64, write_5m: f64, write_1h: f64, read: f64) -> Price {
    Price {
        fast: Some(price("", input, output, write_5m, write_1h, read).rates),
        ..p
    }
}

/// What US-only inference (`usage.inference_geo` `"us"`) costs, times the
/// tokens' usual price (the CLI's 1.1; web searches not).
const US_ONLY: f64 = 1.1;

/// The CLI's list prices (its model catalog, which `scripts/check-prices`
/// reads out of the CLI binaries the tests install and compares with
/// this), the first prefix that matches wins. Models not here have no
/// price: their tokens are counted, their cost is not guessed. A cost
/// comes from [`table_cost`] and its date from [`PRICES_DATE`].
const PRICES: &[Price] = &[
    // the real CLI 2.1.332's own cost-state: 49,825 input and 80 output
    // tokens cost $0.2009
    fast(
        price("claude-opus-5-5", 4.0, 20.0, 5.0, 8.0, 0.2),
        8.0,
        40.0,
        10.0,
        16.0,
        0.4,
    ),
    fast(
        price("claude-opus-5", 5.0, 25.0, 6.25, 10.0, 0.5),
        10.0,
        50.0,
        12.5,
        20.0,
        1.0,
    ),
    price("claude-opus-4-5", 5.0, 25.0, 6.25, 10.0, 0.5),
    fast(
        price("claude-opus-4-6", 5.0, 25.0, 6.25, 10.0, 0.5),
        30.0,
        150.0,
        37.5,
        60.0,
        3.0,
    ),
    fast(
        price("claude-opus-4-7", 5.0, 25.0, 6.25, 10.0, 0.5),
        30.0,
        150.0,
        37.5,
        60.0,
        3.0,
    ),
    fast(
        price("claude-opus-4-8", 5.0, 25.0, 6.25, 10.0, 0.5),
        10.0,
        50.0,
        12.5,
        20.0,
        1.0,
    ),
    price("claude-opus-4", 15.0, 75.0, 18.75, 30.0, 1.5),
    price("claude-sonnet-5-5", 2.0, 10.0, 2.5, 4.0, 0.1),
    price("claude-sonnet-5", 2.0, 10.0, 2.5, 4.0, 0.2),
    price("claude-sonnet-4", 3.0, 15.0, 3.75, 6.0, 0.3),
    price("claude-3-7-sonnet", 3.0, 15.0, 3.75, 6.0, 0.3),
    price("claude-3-5-sonnet", 3.0, 15.0, 3.75, 6.0, 0.3),
    long(
        price("claude-haiku-5-5", 0.1, 0.5, 0.125, 0.2, 0.01),
        100_000,
        0.5,
        2.5,
        0.625,
        1.0,
        0.05,
    ),
    price("claude-haiku-4-5", 1.0, 5.0, 1.25, 2.0, 0.1),
    price("claude-3-5-haiku", 0.8, 4.0, 1.0, 1.6, 0.08),
    fast(
        price("claude-fable-5-2", 8.0, 40.0, 10.0, 16.0, 0.2),
        16.0,
        80.0,
        20.0,
        32.0,
        0.4,
    ),
    price("claude-fable-5-1", 10.0, 50.0, 12.5, 20.0, 0.25),
    price("claude-fable-5", 10.0, 50.0, 12.5, 20.0, 1.0),
    fast(
        price("claude-mythos-5-2", 8.0, 40.0, 10.0, 16.0, 0.2),
        16.0,
        80.0,
        20.0,
        32.0,
        0.4,
    ),
    price("claude-mythos-5-1", 10.0, 50.0, 12.5, 20.0, 0.25),
    price("claude-mythos-5", 10.0, 50.0, 12.5, 20.0, 1.0),
];

/// The price of a model, if the table has it.
fn price_of(model: &str) -> Option<&'static Price> {
    PRICES.iter().find(|p| model.starts_with(p.prefix))
}

/// What one request's `tokens` of `model` cost at the built-in list
/// prices, in USD (the long-prompt tier when the request is past the
/// model's threshold, as the CLI prices it); `None` when the model has no
/// price in the table.
#[cfg(test)]
pub fn table_cost(model: &str, tokens: &Tokens) -> Option<f64> {
    table_cost_as(model, tokens, false, false)
}

/// [`table_cost`] of a request answered in fast mode (`fast`: at the
/// model's fast rates where it has them, never its long-prompt tier) or
/// run in the US only (`us_only`: 1.1×), as the CLI prices them.
pub fn table_cost_as(model: &str, tokens: &Tokens, fast: bool, us_only: bool) -> Option<f64> {
    let p = price_of(model)?;
    let ins = tokens
        .input
        .saturating_add(tokens.cache_write)
        .saturating_add(tokens.cache_read);
    let rates = match (p.fast, p.long) {
        (Some(f), _) if fast => f,
        (_, Some((above, l))) if ins > above => l,
        _ => p.rates,
    };
    let usd = rates.cost(tokens)?;
    Some(if us_only { usd * US_ONLY } else { usd })
}

/// What a fast answer of `model` costs, times a usual one (the ratio of
/// its fast input rate to its usual one; 1 where it has none).
fn fast_factor(model: &str) -> f64 {
    price_of(model)
        .and_then(|p| Some(p.fast?.input / p.rates.input))
        .filter(|f| f.is_finite() && *f > 0.0)
        .unwrap_or(1.0)
}

/// Prices the config file sets (`[prices."<model>"]`), by model-name
/// prefix: for a model the table lacks, or prices that changed. Set once
/// at start ([`use_overrides`]); none until then.
static OVERRIDES: std::sync::OnceLock<Vec<(String, Rates)>> = std::sync::OnceLock::new();

/// Use the config file's prices from now on (the first call wins).
pub fn use_overrides(prices: Vec<(String, Rates)>) {
    let _ = OVERRIDES.set(prices);
}

/// The config file's prices in use.
fn overrides() -> &'static [(String, Rates)] {
    OVERRIDES.get().map(Vec::as_slice).unwrap_or_default()
}

/// The rates of the longest prefix of `model` that `list` names.
fn override_of<'a>(list: &'a [(String, Rates)], model: &str) -> Option<&'a Rates> {
    list.iter()
        .filter(|(p, _)| model.starts_with(p.as_str()))
        .max_by_key(|(p, _)| p.len())
        .map(|(_, r)| r)
}

/// Tokens weighed in input tokens by the ratios most Anthropic prices
/// keep: output 5×, 5-minute cache writes 1.25×, 1-hour writes 2×,
/// cache reads 0.1× (how a `cost-state`'s figure is shared among the
/// responses it covers, and a unit price learnt from it applied).
pub fn weight(t: &Tokens) -> f64 {
    let w1h = t.cache_write_1h.min(t.cache_write);
    t.input as f64
        + 5.0 * t.output as f64
        + 1.25 * (t.cache_write - w1h) as f64
        + 2.0 * w1h as f64
        + 0.1 * t.cache_read as f64
}

/// The dearest price a `cost-state` figure is believed at, in USD per
/// weighed token ([`weight`]): $1,000 per million input tokens, 66 times
/// the dearest list price there has been (Claude Opus 4's $15).
pub const MAX_UNIT: f64 = 1e-3;
/// The cheapest price a `cost-state` teaches the rest of the store: $0.01
/// per million input tokens (the cheapest list price has been $0.25).
pub const MIN_UNIT: f64 = 1e-8;
/// What a web search costs ($10 per thousand), on top of the tokens.
const WEB_SEARCH_USD: f64 = 0.01;

/// Whether a `cost-state`'s figure for one model is one a price comes to:
/// at most [`MAX_UNIT`] per weighed token, web searches, and a cent. A
/// transcript's numbers are not trusted (a line written by hand, or by
/// something else than the CLI): `1e308` dollars for one token is not
/// the CLI's figure, and is priced by the tokens instead; before, it was
/// shown as a 309-digit cost, and priced every other session of the model.
pub fn believable(m: &ModelCost) -> bool {
    let most = MAX_UNIT * weight(&m.tokens) + WEB_SEARCH_USD * (m.web_search_requests as f64 + 1.0);
    m.cost_usd.is_finite() && m.cost_usd >= 0.0 && m.cost_usd <= most
}

/// Whether a `cost-state`'s figure for one model is the CLI's own price
/// of it, and not its guess: a CLI that has no price for a model (one
/// newer than it, or no Claude model) prices it at its default model's
/// (the real CLI 2.1.332 priced `claude-unknown-9` at Claude Opus 5.5's
/// rates) and says only that some model of the session was so priced
/// (`hasUnknownModelCost`). Such a session's figure for a model this
/// program has no price for either is taken for that guess: its tokens
/// are priced here if they can be, else counted unpriced. It was shown as
/// the CLI's exact cost.
fn priced_by_the_cli(cli: &CliCost, m: &ModelCost) -> bool {
    !cli.has_unknown_model_cost
        || (m.cost_usd > 0.0
            && (price_of(&m.model).is_some() || override_of(overrides(), &m.model).is_some()))
}

/// Where [`Pricer::keep`] keeps the store's unit prices: beside the usage
/// index.
fn kept_file() -> Option<std::path::PathBuf> {
    Some(claudio::store::usage_index_file()?.with_file_name("unit-prices"))
}

/// The most a file of kept unit prices is read of.
const MAX_KEPT: u64 = 256 << 10;

/// How long kept unit prices are taken as the store's: a status line
/// learns them again from the whole store after this.
pub const KEPT_FOR: std::time::Duration = std::time::Duration::from_secs(24 * 3600);

/// The unit prices kept, each within [`MIN_UNIT`]..[`MAX_UNIT`]: from
/// the user's own plain file only, at most [`MAX_KEPT`] bytes.
fn read_kept() -> Vec<(String, f64)> {
    kept_file()
        .and_then(|file| claudio::__private::read_private(&file, MAX_KEPT))
        .map(|data| parse_kept(&String::from_utf8_lossy(&data)))
        .unwrap_or_default()
}

/// The lines `<model>\t<unit>` of a file of kept unit prices, each unit
/// within [`MIN_UNIT`]..[`MAX_UNIT`] (a forged or garbled one is left out).
fn parse_kept(text: &str) -> Vec<(String, f64)> {
    text.lines()
        .filter_map(|l| {
            let (m, u) = l.split_once('\t')?;
            let u: f64 = u.parse().ok()?;
            (MIN_UNIT..=MAX_UNIT)
                .contains(&u)
                .then(|| (m.to_owned(), u))
        })
        .collect()
}

/// Whether the unit prices kept were learnt from the whole store less
/// than [`KEPT_FOR`] ago.
fn kept_lately() -> bool {
    kept_file()
        .and_then(|f| std::fs::symlink_metadata(f).ok())
        .and_then(|m| m.modified().ok())
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|age| age < KEPT_FOR)
}

/// The unit prices every `cost-state` of `store` teaches
/// ([`claudio::store::Store::cost_states`], from the usage index), kept
/// for the status line ([`Pricer::keep`]); `None` when they cannot be had.
pub fn learn_from_store(store: &claudio::store::Store) -> Option<Pricer> {
    let costs = store.cost_states().ok()?;
    let pricer = Pricer::learn_from(&costs);
    pricer.keep();
    Some(pricer)
}

/// For a view of the recent sessions alone (the status line): learn the
/// whole store's unit prices again when those kept are older than
/// [`KEPT_FOR`] (or none are), so that it reads the usage index whole at
/// most once a day.
pub fn keep_fresh(store: &claudio::store::Store) {
    use std::os::unix::fs::DirBuilderExt;
    let Some(dir) = kept_file().and_then(|f| f.parent().map(|d| d.to_path_buf())) else {
        return;
    };
    if kept_lately() {
        return;
    }
    // a cache folder that cannot keep them would learn them on every run
    let made = dir.is_dir()
        || std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)
            .is_ok();
    if made && rustix::fs::access(&dir, rustix::fs::Access::WRITE_OK).is_ok() {
        learn_from_store(store);
    }
}

/// A cost and how it is known.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Cost {
    /// USD.
    pub usd: f64,
    /// Some of it is the built-in table's estimate.
    pub estimated: bool,
    /// Some tokens had no price at all: the cost is more than `usd`.
    pub partial: bool,
}

impl Cost {
    pub fn add(&mut self, o: &Cost) {
        // finite figures only: a sum past the largest stays there
        self.usd = (self.usd + o.usd).min(f64::MAX);
        self.estimated |= o.estimated;
        self.partial |= o.partial;
    }

    /// What `self` has beyond `old` (a message counted again, grown).
    pub fn beyond(&self, old: &Cost) -> Cost {
        Cost {
            usd: (self.usd - old.usd).max(0.0),
            ..*self
        }
    }
}

/// The prices the store itself teaches: per model, USD per weighed token
/// (see [`weight`]) over every `cost-state` that priced it; and the config
/// file's prices.
#[derive(Debug)]
pub struct Pricer {
    unit: HashMap<String, f64>,
    overrides: &'static [(String, Rates)],
}

impl Default for Pricer {
    /// No unit prices learnt; the config file's prices in use.
    fn default() -> Pricer {
        Pricer {
            unit: HashMap::new(),
            overrides: overrides(),
        }
    }
}

impl Pricer {
    /// Learn from the `cost-state` figures of these files: per model, the
    /// median of the unit prices its believable lines ([`believable`])
    /// teach. One line cannot set the price of every other session: a
    /// forged or garbled one is outvoted by the rest, and is never past
    /// [`MAX_UNIT`] or under [`MIN_UNIT`] anyway.
    pub fn learn<'a>(files: impl IntoIterator<Item = &'a FileUsage>) -> Pricer {
        Pricer::learn_from(files.into_iter().filter_map(|f| f.cli_cost.as_ref()))
    }

    /// [`learn`](Pricer::learn) from `cost-state` figures: the store's
    /// every session's ([`claudio::store::Store::cost_states`]), so that a
    /// view of one folder prices a session with none as the rest of the
    /// store teaches.
    pub fn learn_from<'a>(costs: impl IntoIterator<Item = &'a CliCost>) -> Pricer {
        let mut units: HashMap<&str, Vec<f64>> = HashMap::new();
        for c in costs {
            for m in &c.models {
                let w = weight(&m.tokens);
                if m.cost_usd > 0.0 && w > 0.0 && believable(m) && priced_by_the_cli(c, m) {
                    let u = m.cost_usd / w;
                    if (MIN_UNIT..=MAX_UNIT).contains(&u) {
                        units.entry(&m.model).or_default().push(u);
                    }
                }
            }
        }
        Pricer {
            unit: units
                .into_iter()
                .map(|(m, mut u)| {
                    u.sort_by(f64::total_cmp);
                    let mid = u.len() / 2;
                    let median = if u.len() % 2 == 0 {
                        (u[mid - 1] + u[mid]) / 2.0
                    } else {
                        u[mid]
                    };
                    (m.to_owned(), median)
                })
                .collect(),
            ..Pricer::default()
        }
    }

    /// The unit prices kept by [`keep`](Pricer::keep) for the models these
    /// have none for: what the whole store taught the last view of it, for
    /// a view that reads only its recent sessions (the status line). A
    /// kept price past [`MIN_UNIT`]..[`MAX_UNIT`], a file that is not a
    /// plain file of the user's, or a big one, is not used.
    pub fn with_kept(mut self) -> Pricer {
        // the unit tests share one cache folder: a price another test
        // kept would price theirs
        if cfg!(test) {
            return self;
        }
        for (model, unit) in read_kept() {
            self.unit.entry(model).or_insert(unit);
        }
        self
    }

    /// The unit prices learnt, by model.
    #[cfg(test)]
    pub fn units(&self) -> std::collections::BTreeMap<String, f64> {
        self.unit.iter().map(|(m, u)| (m.clone(), *u)).collect()
    }

    /// Keep these unit prices beside the usage index, for
    /// [`with_kept`](Pricer::with_kept) (a temporary file renamed over the
    /// old one, mode 0600). Nothing fails: a cache folder that cannot be
    /// written keeps nothing.
    pub fn keep(&self) {
        let Some(file) = kept_file() else {
            return;
        };
        let mut models: Vec<(&String, &f64)> = self.unit.iter().collect();
        models.sort_by(|a, b| a.0.cmp(b.0));
        let mut text = String::new();
        for (m, u) in models {
            // a model name is the CLI's: one line, no tab
            if !m.contains(['\t', '\n', '\r']) {
                text.push_str(&format!("{m}\t{u:e}\n"));
            }
        }
        let _ = claudio::__private::write_private(&file, text.as_bytes());
    }

    /// These prices in place of the config file's (tests).
    #[cfg(test)]
    pub fn with_overrides(mut self, list: &'static [(String, Rates)]) -> Pricer {
        self.overrides = list;
        self
    }

    /// One request not in any `cost-state`: at the config file's price for
    /// the model (an estimate), else the store's unit price, else the
    /// table's (an estimate), else unpriced.
    #[cfg(test)]
    pub fn request(&self, model: &str, tokens: &Tokens) -> Cost {
        self.request_as(model, tokens, false, false)
    }

    /// [`request`](Pricer::request) of a request answered in fast mode or
    /// run in the US only, as the CLI prices them: the table's fast rates,
    /// and 1.1× (a unit price learnt, or the config file's, times the
    /// table's fast ratio for the model, and 1.1).
    pub fn request_as(&self, model: &str, tokens: &Tokens, fast: bool, us_only: bool) -> Cost {
        let mut times = if us_only { US_ONLY } else { 1.0 };
        if fast {
            times *= fast_factor(model);
        }
        if let Some(usd) = override_of(self.overrides, model).and_then(|r| r.cost(tokens)) {
            return Cost {
                usd: usd * times,
                estimated: true,
                partial: false,
            };
        }
        if let Some(u) = self.unit.get(model) {
            return Cost {
                usd: u * weight(tokens) * times,
                ..Cost::default()
            };
        }
        match table_cost_as(model, tokens, fast, us_only) {
            Some(usd) => Cost {
                usd,
                estimated: true,
                partial: false,
            },
            None => Cost {
                partial: tokens.total() > 0,
                ..Cost::default()
            },
        }
    }

    /// What each API message of a session cost, by its key. The messages
    /// the session's `cost-state` covers share its figure for their model
    /// in proportion to their weighed tokens, so they add up to exactly
    /// what the CLI said; the rest (after it, or with none) are priced one
    /// by one ([`request`](Pricer::request)).
    pub fn session(&self, s: &SessionUsage) -> HashMap<String, Cost> {
        let all = s.total();
        self.file(
            &all.messages,
            all.cli_cost.as_ref(),
            s.without_subagents.messages.len(),
        )
    }

    /// The models a session's `cost-state` priced that none of its
    /// transcripts' responses answered (the CLI's side requests): their
    /// cost, which no response carries, by model.
    pub fn unshared(s: &SessionUsage) -> Vec<(String, f64)> {
        let Some(cli) = s.cli_cost() else {
            return Vec::new();
        };
        let all = s.total();
        let own = s.without_subagents.messages.len();
        cli.models
            .iter()
            .filter(|x| x.cost_usd > 0.0 && believable(x) && priced_by_the_cli(cli, x))
            .filter(|x| {
                !all.messages
                    .iter()
                    .enumerate()
                    .any(|(i, m)| m.model == x.model && cli.covers_message(i, own, m.at))
            })
            .map(|x| (x.model.clone(), x.cost_usd))
            .collect()
    }

    /// [`session`](Pricer::session) for messages and the `cost-state`
    /// that may cover them: the first `own` messages are its file's (in
    /// the figures by their place before it), the rest a sub-agent's (by
    /// their time).
    pub fn file(
        &self,
        messages: &[MessageUsage],
        cli: Option<&claudio::store::CliCost>,
        own: usize,
    ) -> HashMap<String, Cost> {
        let mut out = HashMap::with_capacity(messages.len());
        let covered = |i: usize, m: &MessageUsage| {
            let c = cli.filter(|c| c.covers_message(i, own, m.at))?;
            c.models
                .iter()
                .find(|x| x.model == m.model)
                // a model the CLI had no price for: priced here if it can be
                .filter(|x| priced_by_the_cli(c, x))
                // a figure no price comes to: priced by its tokens instead
                .filter(|x| believable(x))
        };
        let mut weights: HashMap<&str, (f64, usize)> = HashMap::new();
        for (i, m) in messages.iter().enumerate() {
            if covered(i, m).is_some() {
                let w = weights.entry(&m.model).or_default();
                w.0 += weight(&m.tokens);
                w.1 += 1;
            }
        }
        for (i, m) in messages.iter().enumerate() {
            let cost = match covered(i, m) {
                Some(x) => {
                    let (sum, n) = weights.get(m.model.as_str()).copied().unwrap_or((0.0, 1));
                    let share = if sum > 0.0 {
                        weight(&m.tokens) / sum
                    } else {
                        1.0 / n.max(1) as f64
                    };
                    Cost {
                        usd: x.cost_usd * share,
                        ..Cost::default()
                    }
                }
                None => {
                    let mut c = self.request_as(&m.model, &m.tokens, m.fast, m.us_only);
                    // web searches at the CLI's $10 a thousand, on top
                    c.usd = (c.usd + WEB_SEARCH_USD * m.web_searches as f64).min(f64::MAX);
                    c
                }
            };
            out.insert(m.key.clone(), cost);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Option<f64>, b: f64) -> bool {
        a.is_some_and(|a| (a - b).abs() < 1e-9)
    }

    fn tokens(input: u64, output: u64, write: u64, write_1h: u64, read: u64) -> Tokens {
        let mut t = Tokens::default();
        (
            t.input,
            t.output,
            t.cache_write,
            t.cache_write_1h,
            t.cache_read,
        ) = (input, output, write, write_1h, read);
        t
    }

    #[test]
    fn costs_are_estimated_only_for_known_models() {
        let t = tokens(1000, 1000, 0, 0, 1000);
        let c = table_cost("claude-sonnet-4-5-20250929", &t);
        assert!(close(c, (3.0 + 15.0 + 0.3) / 1000.0), "{c:?}");
        assert!(close(
            table_cost("claude-opus-4-5", &t),
            (5.0 + 25.0 + 0.5) / 1000.0
        ));
        assert!(close(
            table_cost("claude-opus-4-1", &t),
            (15.0 + 75.0 + 1.5) / 1000.0
        ));
        let price = price_of("claude-haiku-4-5-20251001").expect("listed");
        assert_eq!((price.rates.input, price.rates.output), (1.0, 5.0));
        assert!(price_of("gpt-4").is_none());
        assert_eq!(table_cost("gpt-4", &t), None);
    }

    /// The CLI's default model is priced as the CLI prices it: the real
    /// CLI 2.1.332 recorded $0.2009 for 49,825 input and 80 output tokens.
    #[test]
    fn the_cli_default_model_has_the_cli_price() {
        let c = table_cost("claude-opus-5-5", &tokens(49825, 80, 0, 0, 0));
        assert!(close(c, 0.2009), "{c:?}");
    }

    /// 1-hour cache writes cost 2× input, 5-minute ones 1.25× (#44.3).
    #[test]
    fn one_hour_cache_writes_cost_twice_the_input() {
        let five = table_cost("claude-sonnet-4-5", &tokens(0, 0, 1000, 0, 0));
        let hour = table_cost("claude-sonnet-4-5", &tokens(0, 0, 1000, 1000, 0));
        assert!(close(five, 3.75 / 1000.0), "{five:?}");
        assert!(close(hour, 6.0 / 1000.0), "{hour:?}");
        // a 1-hour count past the whole (a hand-edited line) is the whole
        let odd = table_cost("claude-sonnet-4-5", &tokens(0, 0, 1000, u64::MAX, 0));
        assert!(close(odd, 6.0 / 1000.0), "{odd:?}");
    }

    /// Past its threshold a request is priced at the model's long-prompt
    /// tier, as the CLI prices it (Haiku 5.5: past 100k, $0.50 / $2.50),
    /// and not where the model has none.
    #[test]
    fn long_requests_cost_the_long_prompt_tier() {
        let at = table_cost("claude-haiku-5-5", &tokens(100_000, 1000, 0, 0, 0));
        assert!(close(at, 0.01 + 0.0005), "{at:?}");
        let past = table_cost("claude-haiku-5-5", &tokens(50_000, 1000, 0, 0, 50_001));
        assert!(
            close(
                past,
                (50_000.0 * 0.5 + 50_001.0 * 0.05 + 1000.0 * 2.5) / 1e6
            ),
            "{past:?}"
        );
        let opus = table_cost("claude-opus-4-5", &tokens(250_000, 0, 0, 0, 0));
        assert!(close(opus, 1.25), "{opus:?}");
    }

    /// Each kind of token at the model's own rate: the CLI's default model
    /// reads its cache at $0.20 (a twentieth of input), not a tenth.
    #[test]
    fn each_kind_has_the_model_s_own_rate() {
        let read = table_cost("claude-opus-5-5", &tokens(0, 0, 0, 0, 1_000_000));
        assert!(close(read, 0.2), "{read:?}");
        let writes = table_cost("claude-opus-5-5", &tokens(0, 0, 2_000_000, 1_000_000, 0));
        assert!(close(writes, 5.0 + 8.0), "{writes:?}");
        // the first prefix that matches: 5-5 is not priced as opus-5
        let opus5 = table_cost("claude-opus-5", &tokens(1_000_000, 0, 0, 0, 0));
        assert!(close(opus5, 5.0), "{opus5:?}");
        let sonnet = table_cost("claude-sonnet-4-20250514", &tokens(1_000_000, 0, 0, 0, 0));
        assert!(close(sonnet, 3.0), "{sonnet:?}");
    }

    /// The config file's price is used before the table (and for a model
    /// the table lacks); a `cost-state`'s own figure still wins.
    #[test]
    fn config_prices_come_before_the_table() {
        static LIST: std::sync::OnceLock<Vec<(String, Rates)>> = std::sync::OnceLock::new();
        let list = LIST.get_or_init(|| {
            let r = |input: f64| Rates {
                input,
                output: 10.0 * input,
                write_5m: 0.0,
                write_1h: 0.0,
                read: 0.0,
            };
            vec![
                ("m-local".to_owned(), r(1.0)),
                ("m-local-big".to_owned(), r(2.0)),
                ("claude-opus-4-5".to_owned(), r(100.0)),
            ]
        });
        let p = Pricer::default().with_overrides(list);
        let t = tokens(1_000_000, 0, 0, 0, 0);
        let c = p.request("m-local-7", &t);
        assert!(
            (c.usd - 1.0).abs() < 1e-9 && c.estimated && !c.partial,
            "{c:?}"
        );
        // the longest prefix
        assert!((p.request("m-local-big-1", &t).usd - 2.0).abs() < 1e-9);
        assert!((p.request("claude-opus-4-5", &t).usd - 100.0).abs() < 1e-9);
        // none configured: the table's
        assert!((Pricer::default().request("claude-opus-4-5", &t).usd - 5.0).abs() < 1e-9);
        assert!(Pricer::default().request("m-local-7", &t).partial);
    }

    /// A response a wrong clock dated 2099, just before the first of two
    /// `cost-state` lines: the second (a running total) covers it by its
    /// place in the file, not by its date, so its cost is in that figure
    /// once, not priced again on top of it. It was counted twice: the
    /// second line's `until` is the later response's time, before 2099.
    #[test]
    fn a_2099_answer_before_a_cost_state_is_counted_once() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.jsonl");
        let line = |id: &str, input: u64, ts: &str| {
            serde_json::json!({"type":"assistant","requestId":id,"timestamp":ts,
                "message":{"id":id,"model":"claude-opus-5-5","usage":{"input_tokens":input,"output_tokens":10}}})
            .to_string()
        };
        let cost = |usd: f64| {
            serde_json::json!({"type":"cost-state","totalCostUSD":usd,"hasUnknownModelCost":false,
                "modelUsage":{"claude-opus-5-5":{"inputTokens":3000,"outputTokens":30,"costUSD":usd}}})
            .to_string()
        };
        let text = [
            line("a", 1000, "2026-11-01T10:00:00.000Z"),
            line("b", 1000, "2099-01-01T00:00:00.000Z"),
            cost(0.2),
            line("c", 1000, "2026-11-01T11:00:00.000Z"),
            cost(0.3),
        ]
        .join("\n");
        std::fs::write(&p, text).unwrap();
        let f = claudio::store::file_usage(&p).unwrap();
        let costs = Pricer::learn([&f]).file(&f.messages, f.cli_cost.as_ref(), f.messages.len());
        let sum: f64 = costs.values().map(|c| c.usd).sum();
        assert!((sum - 0.3).abs() < 1e-12, "{costs:?}");
    }

    /// Messages a `cost-state` covers share its figure, so they add up to
    /// it exactly; later ones (the session resumed and running) are priced
    /// at the unit price the store's `cost-state` lines teach, and a model
    /// none teaches at the table's, marked an estimate.
    #[test]
    fn a_cost_state_is_shared_and_later_messages_are_priced_as_it_taught() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.jsonl");
        let line = |id: &str, model: &str, input: u64, ts: &str| {
            serde_json::json!({"type":"assistant","requestId":id,"timestamp":ts,
                "message":{"id":id,"model":model,"usage":{"input_tokens":input,"output_tokens":10}}})
            .to_string()
        };
        let cost = serde_json::json!({"type":"cost-state","totalCostUSD":0.5,"hasUnknownModelCost":false,
            "modelUsage":{"m-new":{"inputTokens":3000,"outputTokens":20,"costUSD":0.5}}});
        let text = [
            line("a", "m-new", 1000, "2026-11-01T10:00:00.000Z"),
            line("b", "m-new", 2000, "2026-11-01T10:01:00.000Z"),
            cost.to_string(),
            line("c", "m-new", 1000, "2026-11-01T11:00:00.000Z"),
            line("d", "claude-opus-4-5", 1000, "2026-11-01T11:00:00.000Z"),
            line("e", "m-unknown", 1000, "2026-11-01T11:00:00.000Z"),
        ]
        .join("\n");
        std::fs::write(&p, text).unwrap();
        let f = claudio::store::file_usage(&p).unwrap();
        let cli = f.cli_cost.as_ref().expect("the cost-state is read");
        assert_eq!(cli.total_usd, 0.5);
        let pricer = Pricer::learn([&f]);
        let costs = pricer.file(&f.messages, f.cli_cost.as_ref(), f.messages.len());
        let of = |k: &str| costs[&format!("{k}\u{0}{k}")];
        assert!((of("a").usd + of("b").usd - 0.5).abs() < 1e-12);
        assert!(of("b").usd > of("a").usd);
        assert!(!of("a").estimated && !of("b").estimated);
        // 0.5 per 3100 weighed tokens; c weighs 1050
        assert!(
            (of("c").usd - 0.5 / 3100.0 * 1050.0).abs() < 1e-12,
            "{:?}",
            of("c")
        );
        assert!(!of("c").estimated);
        assert!(of("d").estimated && of("d").usd > 0.0);
        assert!(of("e").partial && of("e").usd == 0.0);
    }

    /// A forged `cost-state` (one token for a million dollars, 1e308
    /// dollars, a negative or non-number figure) in one transcript prices
    /// neither its own session nor any other: before, the one line set the
    /// unit price of its model across the store, and its own session showed
    /// a 309-digit cost. A line's figures past any price are priced by
    /// their tokens, and the store's unit price is the median of its lines.
    #[test]
    fn a_forged_cost_state_prices_no_session() {
        let dir = tempfile::tempdir().unwrap();
        let line = |id: &str, input: u64| {
            serde_json::json!({"type":"assistant","requestId":id,"timestamp":"2026-11-01T10:00:00.000Z",
                "message":{"id":id,"model":"claude-opus-5-5","usage":{"input_tokens":input,"output_tokens":0}}})
            .to_string()
        };
        let state = |tokens: u64, usd: f64| {
            // (1e308 is written as JSON writes it)
            format!(
                r#"{{"type":"cost-state","totalCostUSD":{usd:e},"hasUnknownModelCost":false,"modelUsage":{{"claude-opus-5-5":{{"inputTokens":{tokens},"outputTokens":0,"costUSD":{usd:e}}}}}}}"#
            )
        };
        let write = |name: &str, lines: &[String]| {
            let p = dir.path().join(name);
            std::fs::write(&p, lines.join("\n")).unwrap();
            claudio::store::file_usage(&p).unwrap()
        };
        // two honest sessions at the CLI's price ($4 per million input)
        let honest = [
            write("h1.jsonl", &[line("a", 1000), state(1000, 0.004)]),
            write("h2.jsonl", &[line("b", 2000), state(2000, 0.008)]),
        ];
        let forged = write("f.jsonl", &[line("f", 1), state(1, 1e6)]);
        let huge = write("g.jsonl", &[line("g", 1), state(1, 1e308)]);
        assert!(forged.cli_cost.is_some() && huge.cli_cost.is_some());
        // a session with no cost-state, priced at what the store teaches
        let open = write("o.jsonl", &[line("o", 1_000_000)]);
        let pricer = Pricer::learn(honest.iter().chain([&forged, &huge]));
        let costs = pricer.file(&open.messages, None, open.messages.len());
        let o = costs["o\u{0}o"].usd;
        assert!((o - 4.0).abs() < 1e-9, "a million tokens cost ${o}");
        // the forged sessions themselves: priced by their tokens
        for f in [&forged, &huge] {
            let costs = pricer.file(&f.messages, f.cli_cost.as_ref(), f.messages.len());
            let usd: f64 = costs.values().map(|c| c.usd).sum();
            assert!(usd < 0.01, "one token cost ${usd}");
        }
        // one forged line among two honest ones: the median holds
        let three = Pricer::learn([&honest[0], &honest[1], &forged]);
        let o = three.file(&open.messages, None, open.messages.len())["o\u{0}o"].usd;
        assert!((o - 4.0).abs() < 1e-9, "a million tokens cost ${o}");
    }

    /// A session with `hasUnknownModelCost`: the CLI's figure for a model
    /// it has no price for is its guess (its default model's price), not a
    /// cost; a model it does price keeps its figure. The guess was shown
    /// as the CLI's exact cost, and taught the store a unit price.
    #[test]
    fn the_cli_s_guess_for_a_model_it_cannot_price_is_not_a_cost() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.jsonl");
        let line = |id: &str, model: &str| {
            serde_json::json!({"type":"assistant","requestId":id,"timestamp":"2026-11-01T10:00:00.000Z",
                "message":{"id":id,"model":model,"usage":{"input_tokens":1000,"output_tokens":0}}})
            .to_string()
        };
        let cost = serde_json::json!({"type":"cost-state","totalCostUSD":0.008,"hasUnknownModelCost":true,
            "modelUsage":{"claude-opus-5-5":{"inputTokens":1000,"outputTokens":0,"costUSD":0.004},
                "m-unknown":{"inputTokens":1000,"outputTokens":0,"costUSD":0.004}}});
        let text = [
            line("a", "claude-opus-5-5"),
            line("b", "m-unknown"),
            cost.to_string(),
        ]
        .join("\n");
        std::fs::write(&p, text).unwrap();
        let f = claudio::store::file_usage(&p).unwrap();
        let pricer = Pricer::learn([&f]);
        let costs = pricer.file(&f.messages, f.cli_cost.as_ref(), f.messages.len());
        let a = costs["a\u{0}a"];
        assert!((a.usd - 0.004).abs() < 1e-12 && !a.estimated, "{a:?}");
        let b = costs["b\u{0}b"];
        assert!(b.partial && b.usd == 0.0, "{b:?}");
        // nor is it a price learnt for the model
        assert!(!pricer.unit.contains_key("m-unknown"), "{pricer:?}");
        assert!(pricer.unit.contains_key("claude-opus-5-5"));
    }

    /// Kept unit prices are read back as written, and a forged one (past
    /// the dearest believable price, under the cheapest, not a number) is
    /// not used.
    #[test]
    fn kept_unit_prices_are_bounded() {
        let text = "claude-opus-5-5\t4e-6\nm-dear\t1e6\nm-cheap\t1e-12\nm-nan\tNaN\nno tab\nm-neg\t-4e-6\n";
        assert_eq!(parse_kept(text), vec![("claude-opus-5-5".to_owned(), 4e-6)]);
    }

    /// Fast mode (`usage.speed` `"fast"`) costs the model's fast rates
    /// (Opus 5.5: $8 a million input, twice the usual; a model with none,
    /// the usual ones), and US-only inference (`usage.inference_geo`
    /// `"us"`) 1.1×, and web searches $10 a thousand, as the real CLI
    /// prices them; a transcript's lines say which, and a field of another
    /// type still counts its tokens. All were priced as usual tokens.
    #[test]
    fn fast_mode_and_us_only_inference_cost_what_the_cli_says() {
        let m = tokens(1_000_000, 0, 0, 0, 0);
        let at = |model, fast, us| table_cost_as(model, &m, fast, us);
        assert!(close(at("claude-opus-5-5", true, false), 8.0));
        assert!(close(at("claude-opus-5-5", false, true), 4.4));
        assert!(close(at("claude-opus-4-6", true, false), 30.0));
        assert!(close(at("claude-sonnet-4-5", true, false), 3.0));
        // fast mode has no long-prompt tier
        let long = tokens(200_000, 0, 0, 0, 0);
        let l = table_cost_as("claude-haiku-5-5", &long, true, false);
        assert!(close(l, 0.1), "{l:?}");
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.jsonl");
        let line = |id: &str, extra: serde_json::Value| {
            let mut usage = serde_json::json!({"input_tokens":1_000_000,"output_tokens":0});
            for (k, v) in extra.as_object().unwrap() {
                usage[k] = v.clone();
            }
            serde_json::json!({"type":"assistant","requestId":id,"timestamp":"2026-11-01T10:00:00.000Z",
                "message":{"id":id,"model":"claude-opus-5-5","usage":usage}})
            .to_string()
        };
        let text = [
            line("a", serde_json::json!({"speed":"fast"})),
            line(
                "b",
                serde_json::json!({"inference_geo":"us","speed":"standard"}),
            ),
            line("c", serde_json::json!({"speed":5,"inference_geo":null})),
            line(
                "d",
                serde_json::json!({"server_tool_use":{"web_search_requests":3}}),
            ),
        ]
        .join("\n");
        std::fs::write(&p, text).unwrap();
        let f = claudio::store::file_usage(&p).unwrap();
        let flags: Vec<(bool, bool)> = f.messages.iter().map(|m| (m.fast, m.us_only)).collect();
        assert_eq!(
            flags,
            [(true, false), (false, true), (false, false), (false, false)]
        );
        let costs = Pricer::default().file(&f.messages, None, f.messages.len());
        let usd = |k: &str| costs[&format!("{k}\u{0}{k}")].usd;
        assert!((usd("a") - 8.0).abs() < 1e-9 && (usd("b") - 4.4).abs() < 1e-9);
        assert!((usd("c") - 4.0).abs() < 1e-9);
        // web searches at $10 a thousand, on top of the tokens
        assert_eq!(f.messages[3].web_searches, 3);
        assert!((usd("d") - 4.03).abs() < 1e-9, "{}", usd("d"));
        // a unit price learnt, for a fast answer: times the model's fast ratio
        let taught = Pricer {
            unit: HashMap::from([("claude-opus-5-5".to_owned(), 4e-6)]),
            overrides: &[],
        };
        let c = taught.request_as("claude-opus-5-5", &m, true, true);
        assert!((c.usd - 8.8).abs() < 1e-9, "{c:?}");
    }
}
