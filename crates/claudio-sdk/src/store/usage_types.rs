//! The values of what sessions used: tokens by kind, the CLI's own cost,
//! one API message's usage and what one transcript records (how they are
//! read is in `usage.rs`).

use serde::Serialize;
use std::collections::HashMap;

/// Tokens of one kind or another.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Tokens {
    /// Input tokens (not cached).
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Tokens written to the prompt cache (both lifetimes).
    pub cache_write: u64,
    /// Tokens read from the prompt cache.
    pub cache_read: u64,
    /// Of `cache_write`, those written to the 1-hour cache
    /// (`cache_creation.ephemeral_1h_input_tokens`), which cost more than
    /// the 5-minute writes. Not counted again in [`total`](Tokens::total).
    pub cache_write_1h: u64,
}

impl Tokens {
    /// All kinds together (at most `u64::MAX`: a count past it stays
    /// there).
    pub fn total(&self) -> u64 {
        self.input
            .saturating_add(self.output)
            .saturating_add(self.cache_write)
            .saturating_add(self.cache_read)
    }

    /// What `self` has beyond `old`, kind by kind (never below zero).
    pub fn beyond(&self, old: &Tokens) -> Tokens {
        Tokens {
            input: self.input.saturating_sub(old.input),
            output: self.output.saturating_sub(old.output),
            cache_write: self.cache_write.saturating_sub(old.cache_write),
            cache_read: self.cache_read.saturating_sub(old.cache_read),
            cache_write_1h: self.cache_write_1h.saturating_sub(old.cache_write_1h),
        }
    }

    /// Add another count (each kind at most `u64::MAX`: a transcript's
    /// numbers are not trusted to stay small).
    pub fn add(&mut self, o: &Tokens) {
        self.input = self.input.saturating_add(o.input);
        self.output = self.output.saturating_add(o.output);
        self.cache_write = self.cache_write.saturating_add(o.cache_write);
        self.cache_read = self.cache_read.saturating_add(o.cache_read);
        self.cache_write_1h = self.cache_write_1h.saturating_add(o.cache_write_1h);
    }
}

/// What the CLI itself says a session cost: its `cost-state` transcript
/// line, which it writes when it exits, the session's running total
/// (a resumed session's goes on from the one before). The last one in a
/// file counts; it covers what the session did up to [`until`](CliCost::until).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CliCost {
    /// `totalCostUSD`: the session's cost in USD, as the CLI priced it.
    pub total_usd: f64,
    /// `modelUsage`: each model's tokens and cost, by model name.
    pub models: Vec<ModelCost>,
    /// `hasUnknownModelCost`: the CLI had no price for some model, so its
    /// figures leave something out.
    pub has_unknown_model_cost: bool,
    /// The time of the last API message the file records before the line
    /// (ms since the epoch; the last in the file's order): messages after it (a session resumed and
    /// still running) are not in these figures.
    pub until: Option<i64>,
    /// How many of the file's API messages ([`FileUsage::messages`], in
    /// order) come before the line: these are in the figures, whatever
    /// their dates (a wrong clock's 2099 among them); the file's later ones
    /// are not. [`until`](CliCost::until) is for other files' messages (a
    /// sub-agent's).
    pub responses: usize,
    /// The first of those [`responses`](CliCost::responses) in the
    /// figures: 0, unless the figures are those of the responses from
    /// here on alone, token for token. A session copied without its
    /// `cost-state` (a fork made by the store, or by the TypeScript SDK's
    /// `forkSession`) and then resumed starts the CLI's count again at 0:
    /// its figures are then the resumed run's, not the copied responses'.
    pub first: usize,
}

// the figures are finite (others are dropped when read), so equality is one
impl Eq for CliCost {}

/// One model's part of a [`CliCost`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ModelCost {
    /// The model.
    pub model: String,
    /// Its tokens, as the CLI counted them (`inputTokens`, `outputTokens`,
    /// `cacheCreationInputTokens`, `cacheReadInputTokens`,
    /// `cacheCreationEphemeral1hInputTokens`).
    pub tokens: Tokens,
    /// `webSearchRequests`.
    pub web_search_requests: u64,
    /// `costUSD`: what they cost.
    pub cost_usd: f64,
}

impl Eq for ModelCost {}

impl CliCost {
    /// Whether the API message at `index` of the messages `own` of which
    /// are the file's own (the rest a sub-agent's, after them, as
    /// [`SessionUsage::total`](super::SessionUsage::total) lists them) is in these figures: the file's
    /// own by their place before the line, the others by their time.
    pub fn covers_message(&self, index: usize, own: usize, at: Option<i64>) -> bool {
        if index < own {
            self.first <= index && index < self.responses
        } else {
            self.covers(at)
        }
    }

    /// Whether an API message at `at` is in these figures, by its time.
    pub fn covers(&self, at: Option<i64>) -> bool {
        match (at, self.until) {
            (Some(at), Some(until)) => at <= until,
            (Some(_), None) => false,
            (None, _) => true,
        }
    }
}

/// One API message's usage, as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct MessageUsage {
    /// `message.id` + `requestId`: what makes it one message.
    pub key: String,
    /// The model that answered.
    pub model: String,
    /// Its tokens.
    pub tokens: Tokens,
    /// When (ms since the epoch), if recorded.
    pub at: Option<i64>,
    /// Answered in fast mode (`usage.speed` is `"fast"`): the CLI prices
    /// it at the model's fast rates.
    pub fast: bool,
    /// Run in the US only (`usage.inference_geo` is `"us"`): the CLI
    /// prices its tokens at 1.1×.
    pub us_only: bool,
    /// Web searches the model made (`usage.server_tool_use
    /// .web_search_requests`), priced apart from the tokens.
    pub web_searches: u64,
}

/// What one transcript records.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct FileUsage {
    /// Each API message once (its last line), in order of first appearance.
    pub messages: Vec<MessageUsage>,
    /// Prompts the person typed.
    pub prompts: u64,
    /// The working directory the file records first.
    pub cwd: Option<String>,
    /// The first and last time in the file (ms since the epoch).
    pub first: Option<i64>,
    /// See `first`.
    pub last: Option<i64>,
    /// The CLI's own figures for the session, from the file's last
    /// `cost-state` line (CLIs of late 2026 write one when they exit);
    /// `None` when it has none (a session still running, an older CLI).
    pub cli_cost: Option<CliCost>,
}

impl FileUsage {
    /// Tokens by model, largest first.
    pub fn by_model(&self) -> Vec<(String, Tokens)> {
        let mut m: HashMap<&str, Tokens> = HashMap::new();
        for msg in &self.messages {
            m.entry(&msg.model).or_default().add(&msg.tokens);
        }
        let mut v: Vec<(String, Tokens)> = m.into_iter().map(|(k, t)| (k.to_owned(), t)).collect();
        v.sort_by(|a, b| b.1.total().cmp(&a.1.total()).then(a.0.cmp(&b.0)));
        v
    }

    /// All tokens.
    pub fn tokens(&self) -> Tokens {
        let mut t = Tokens::default();
        for m in &self.messages {
            t.add(&m.tokens);
        }
        t
    }
}
