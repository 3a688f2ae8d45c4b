//! The shapes `sessions usage -o json` and `-o ndjson` print, and the
//! fields `sessions list --json --usage` adds (listed in docs/json.md). Each struct's fields are in the order printed: by name,
//! as earlier releases printed them. A field marked "only …" is left out
//! where it does not apply; a field that may be `null` is always there.

use serde::Serialize;

/// `-o json`: the whole document. `-o ndjson` prints each of `rows` on a
/// line of its own ([`UsageRow`]), then this object without `rows`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(in crate::cli::commands::sessions) struct UsageReport {
    /// How many sessions only claudio's archive still holds (only when the
    /// archive added some).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub archived_sessions: Option<usize>,
    /// What the rows group by: `day`, `week`, `month`, `model`, `project`,
    /// `session` or `block`.
    pub by: String,
    /// The date of the list prices kept in the program.
    pub prices_date: &'static str,
    /// The rows, in the order asked for (only in `-o json`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows: Option<Vec<UsageRow>>,
    /// The day weeks start on, lower case (only `--by week`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_of_week: Option<String>,
    /// The zone `--timezone` named (only with it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timezone: Option<String>,
    /// Every row added up (its `key` is `total`).
    pub total: UsageRow,
    /// The models with no price: their costs are missing from the totals.
    pub unpriced_models: Vec<String>,
}

/// One row: a day, week, month, model, project, session or 5-hour window.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(in crate::cli::commands::sessions) struct UsageRow {
    /// Whether the window is still open (only `--by block`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub active: Option<bool>,
    /// The API requests in the window (only `--by block`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api_requests: Option<usize>,
    /// The open window's rate (only `--by block`, an open window with two
    /// requests or more).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub burn_rate: Option<BurnRate>,
    /// Tokens read from the cache.
    pub cache_read: u64,
    /// Tokens written to the cache.
    pub cache_write: u64,
    /// Some of the cost is an estimate from the list prices.
    pub cost_is_estimate: bool,
    /// Some model has no price: the cost is a lower bound.
    pub cost_is_partial: bool,
    /// The window's end, ISO 8601 (only `--by block`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end: Option<String>,
    /// The cost in US dollars; `null` when no model has a price (or with
    /// `--no-cost`).
    pub estimated_cost_usd: Option<f64>,
    /// The window's first response, ISO 8601 (only `--by block`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_message: Option<String>,
    /// `true` for a session only the archive holds (only `--by session`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_archive: Option<bool>,
    /// Input tokens.
    pub input: u64,
    /// The day, week's first day, month, model, project folder, full
    /// session id or window (`2026-11-01 10:00–15:00`); `total` for the total.
    pub key: String,
    /// The window's last response, ISO 8601 (only `--by block`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_message: Option<String>,
    /// The same figures for each model.
    pub model_breakdowns: Vec<ModelBreakdown>,
    /// The models, by name.
    pub models: Vec<String>,
    /// Output tokens.
    pub output: u64,
    /// The open window at its end, at its present rate (with `burnRate`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub projected: Option<Projected>,
    /// The window's start, ISO 8601 (only `--by block`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    /// The session's sub-agents, each a row (only `--by session`, a session
    /// with sub-agents: its own row includes them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subagents: Option<Vec<AgentRow>>,
    /// The session's title (only `--by session`, when it has one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

/// A row's figures for one model.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(in crate::cli::commands::sessions) struct ModelBreakdown {
    /// As [`UsageRow::cache_read`].
    pub cache_read: u64,
    /// As [`UsageRow::cache_write`].
    pub cache_write: u64,
    /// As [`UsageRow::cost_is_estimate`].
    pub cost_is_estimate: bool,
    /// As [`UsageRow::cost_is_partial`].
    pub cost_is_partial: bool,
    /// As [`UsageRow::estimated_cost_usd`].
    pub estimated_cost_usd: Option<f64>,
    /// As [`UsageRow::input`].
    pub input: u64,
    /// The model.
    pub model: String,
    /// As [`UsageRow::output`].
    pub output: u64,
}

/// A sub-agent's row under its session (`--by session`).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(in crate::cli::commands::sessions) struct AgentRow {
    /// The sub-agent's id.
    pub agent_id: String,
    /// Its type, when its transcript names one.
    pub agent_type: Option<String>,
    /// As [`UsageRow::cache_read`].
    pub cache_read: u64,
    /// As [`UsageRow::cache_write`].
    pub cache_write: u64,
    /// As [`UsageRow::cost_is_estimate`].
    pub cost_is_estimate: bool,
    /// As [`UsageRow::cost_is_partial`].
    pub cost_is_partial: bool,
    /// What it was asked to do, when its transcript says.
    pub description: Option<String>,
    /// As [`UsageRow::estimated_cost_usd`].
    pub estimated_cost_usd: Option<f64>,
    /// As [`UsageRow::input`].
    pub input: u64,
    /// The sub-agent's id again (as every row has a key).
    pub key: String,
    /// As [`UsageRow::model_breakdowns`].
    pub model_breakdowns: Vec<ModelBreakdown>,
    /// As [`UsageRow::models`].
    pub models: Vec<String>,
    /// As [`UsageRow::output`].
    pub output: u64,
}

/// An open window's present rate.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(in crate::cli::commands::sessions) struct BurnRate {
    /// US dollars an hour; `null` with no price.
    pub cost_per_hour: Option<f64>,
    /// Tokens a minute.
    pub tokens_per_minute: f64,
}

/// An open window at its end, at its present rate.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(in crate::cli::commands::sessions) struct Projected {
    /// US dollars; `null` with no price.
    pub estimated_cost_usd: Option<f64>,
    /// Whole minutes until it ends.
    pub remaining_minutes: i64,
    /// Tokens.
    pub tokens: u64,
}

/// The fields `sessions list --json --usage` adds to each of the SDK's
/// session summaries: what `usage` counts for the session, its
/// sub-agents' requests included. They are merged into the summary's
/// object, whose keys print in name order.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(in crate::cli::commands::sessions) struct ListUsage {
    /// The API requests (responses counted once).
    pub api_requests: usize,
    /// Some of the cost is an estimate from the list prices.
    pub cost_is_estimate: bool,
    /// Some model has no price: the cost is a lower bound.
    pub cost_is_partial: bool,
    /// The cost in US dollars; `null` when no model has a price.
    pub estimated_cost_usd: Option<f64>,
    /// The first time the transcript records, ms since the epoch (`null`:
    /// none).
    pub first_activity: Option<i64>,
    /// The last time the transcript records, ms since the epoch.
    pub last_activity: Option<i64>,
    /// The models, by name.
    pub models: Vec<String>,
    /// The prompts the person typed.
    pub prompts: u64,
    /// The tokens.
    pub usage: Tokens,
}

/// Token counts.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(in crate::cli::commands::sessions) struct Tokens {
    /// Read from the cache.
    pub cache_read: u64,
    /// Written to the cache.
    pub cache_write: u64,
    /// Input.
    pub input: u64,
    /// Output.
    pub output: u64,
}
