//! What sessions used: tokens by kind and model, API requests, prompts, and
//! the time span, read from the transcripts.
//!
//! The CLI writes one transcript line per content block of an API message,
//! each repeating the message's `usage`, and a resumed session's file
//! repeats the messages it continues. So usage is counted once per API
//! message: the LAST line seen for each `message.id` + `requestId` wins
//! (the final numbers: earlier lines of a streamed message can hold partial
//! output counts), dated by its FIRST line (when the response began). Only
//! lines holding `"usage"` (or `"cost-state"`, the CLI's own cost) are
//! parsed.

use super::error::{StoreError, StoreResult};
use super::lines::{Block, Transcript};
use super::subagents::SubagentInfo;
use super::usage_skim::UsageFields;
use super::usage_types::*;
use serde_json::Value;
use std::collections::HashMap;
use std::ops::{ControlFlow, Range};
use std::path::{Path, PathBuf};

impl CliCost {
    /// Read a `cost-state` line; `None` when it is not one, or its figures
    /// are not numbers a cost can be (negative, not finite).
    fn parse(line: &[u8], until: Option<i64>, responses: usize) -> Option<CliCost> {
        // its type first, the rest not built (a line found by an escaped
        // letter is most often another kind)
        #[derive(serde::Deserialize)]
        struct Kind<'a> {
            #[serde(rename = "type", borrow)]
            kind: Option<std::borrow::Cow<'a, str>>,
        }
        let Obj(k): Obj<Kind<'_>> = serde_json::from_slice(line).ok()?;
        if k.kind.as_deref() != Some("cost-state") {
            return None;
        }
        let v: Value = serde_json::from_slice(line).ok()?;
        let usd = |v: Option<&Value>| {
            v.and_then(Value::as_f64)
                .filter(|c| c.is_finite() && *c >= 0.0)
        };
        let n = |m: &Value, k: &str| m.get(k).and_then(Value::as_u64).unwrap_or(0);
        let mut models = Vec::new();
        for (model, m) in v
            .get("modelUsage")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            models.push(ModelCost {
                model: model.clone(),
                tokens: Tokens {
                    input: n(m, "inputTokens"),
                    output: n(m, "outputTokens"),
                    cache_write: n(m, "cacheCreationInputTokens"),
                    cache_read: n(m, "cacheReadInputTokens"),
                    cache_write_1h: n(m, "cacheCreationEphemeral1hInputTokens"),
                },
                web_search_requests: n(m, "webSearchRequests"),
                cost_usd: usd(m.get("costUSD"))?,
            });
        }
        Some(CliCost {
            total_usd: usd(v.get("totalCostUSD"))?,
            models,
            has_unknown_model_cost: v.get("hasUnknownModelCost").and_then(Value::as_bool)
                == Some(true),
            until,
            responses,
            first: 0,
        })
    }

    /// The first of `messages` (the file's, all before the line) that
    /// these figures cover ([`CliCost::first`]): walked back from the
    /// last, the first place from which the responses' tokens equal the
    /// figures', model by model, for every model the responses name (a
    /// model only the figures name is the CLI's side requests'); 0 when
    /// there is none (the figures hold a sub-agent's too, or are the whole
    /// session's).
    fn first_covered(&self, messages: &[MessageUsage]) -> usize {
        let same = |a: &Tokens, b: &Tokens| {
            (a.input, a.output, a.cache_write, a.cache_read)
                == (b.input, b.output, b.cache_write, b.cache_read)
        };
        let figures = |model: &str| {
            self.models
                .iter()
                .find(|x| x.model == model)
                .map(|x| x.tokens)
                .unwrap_or_default()
        };
        let mut models: Vec<(&str, Tokens, Tokens)> = Vec::new();
        for m in messages {
            if !models.iter().any(|(x, _, _)| *x == m.model) {
                models.push((&m.model, Tokens::default(), figures(&m.model)));
            }
        }
        for (k, m) in messages.iter().enumerate().rev() {
            if let Some((_, sum, _)) = models.iter_mut().find(|(x, _, _)| *x == m.model) {
                sum.add(&m.tokens);
            }
            if k > 0 && models.iter().all(|(_, sum, want)| same(sum, want)) {
                return k;
            }
        }
        0
    }
}

/// Read what one transcript file records about usage. Damaged lines are
/// skipped. The file is read in blocks; only lines holding `"usage"` or a
/// user entry are parsed.
///
/// This is the file alone: a session's sub-agents write their own
/// transcripts beside it, and [`session_usage`](super::session_usage) (or
/// [`Store::session_usage`](super::Store::session_usage)) counts them too.
///
/// ```no_run
/// use claudio::store::{file_usage, Store};
/// let file = Store::from_env()?.find("b55ade39")?;
/// let usage = file_usage(&file.path)?;
/// println!("{} prompts, {} API requests", usage.prompts, usage.messages.len());
/// for (model, tokens) in usage.by_model() {
///     println!("{model}: {} tokens", tokens.total());
/// }
/// # Ok::<(), claudio::store::StoreError>(())
/// ```
pub fn file_usage(path: &Path) -> StoreResult<FileUsage> {
    super::usage::file_usage_of(path, true).map(|(u, _)| u)
}

/// [`file_usage`], counting prompts or not (one scan of each block less).
/// What the transcript at `path` records about usage (prompts counted or
/// not), with its metadata. An archived one's comes from the usage summary
/// at its end when that still holds (see `packed.rs`: its size, time,
/// length and the checksum of its frames), without decompressing it;
/// otherwise, and for a plain one, the transcript is read whole. Either way
/// the answer is a full read's.
pub(crate) fn file_usage_of(
    path: &Path,
    prompts: bool,
) -> StoreResult<(FileUsage, std::fs::Metadata)> {
    #[cfg(feature = "archive")]
    if super::open::is_packed(path) {
        if let Ok(Some((mut usage, meta))) = super::packed::summarized_usage(path) {
            if !prompts {
                usage.prompts = 0;
            }
            return Ok((usage, meta));
        }
    }
    let t = Transcript::open(path)?;
    let meta = t.meta().clone();
    Ok((read_usage(t, prompts)?, meta))
}

/// A line too long to be read (see [`MAX_LINE`](super::MAX_LINE)) is
/// passed over: a usage line is short, a giant one is a pasted prompt.
pub(super) fn read_usage(t: Transcript<'_>, prompts: bool) -> StoreResult<FileUsage> {
    scan_usage(t, prompts, None, |_| {}).map(|(u, _)| u)
}

/// [`read_usage`] carried on from `start` (what the lines before where `t`
/// stands record), with `watch` shown each block as it is read.
pub(super) fn scan_usage(
    t: Transcript<'_>,
    prompts: bool,
    start: Option<FileUsage>,
    mut watch: impl FnMut(Block<'_>),
) -> StoreResult<(FileUsage, super::lines::Passed)> {
    let mut acc = Acc {
        skip_prompts: !prompts,
        ..Acc::default()
    };
    if let Some(u) = start {
        for (i, m) in u.messages.iter().enumerate() {
            acc.index.insert(m.key.clone(), i);
        }
        acc.out = u;
    }
    let passed = t.blocks(|block| {
        watch(block);
        acc.block(block);
        ControlFlow::Continue(())
    })?;
    acc.settle();
    Ok((acc.out, passed))
}

/// Why a file could not be read, without its path (a listing names it).
pub(super) fn reason_of(e: &StoreError) -> String {
    match e {
        StoreError::Io { source, .. } => source.to_string(),
        StoreError::NotAFile(_) => "not a regular file".to_owned(),
        other => other.to_string(),
    }
}

/// A line's time (its `timestamp`), if it has one: read at the byte level
/// when `skim` and that reading is sure of the line, else by serde.
fn time_of(line: &[u8], skim: bool) -> Option<i64> {
    let t = match skim.then(|| super::usage_skim::skim(line)?.timestamp()) {
        Some(Some(t)) => t.map(std::borrow::Cow::Borrowed),
        _ => time_serde(line)?,
    };
    super::time::parse_iso_millis(&t?)
}

/// serde's reading of a line's `timestamp` (the entry's own field,
/// however the line is spaced or ordered): `None` when serde does not
/// take the line.
pub(super) fn time_serde(line: &[u8]) -> Option<Option<std::borrow::Cow<'_, str>>> {
    serde_json::from_slice::<Obj<TimeLine<'_>>>(line)
        .ok()
        .map(|l| l.0.timestamp)
}

/// The one field of a line that is read for its time.
#[derive(serde::Deserialize)]
struct TimeLine<'a> {
    #[serde(borrow)]
    timestamp: Option<std::borrow::Cow<'a, str>>,
}

/// The usage recorded in transcript bytes.
#[cfg(test)]
pub(crate) fn usage_of(data: &[u8]) -> FileUsage {
    let mut acc = Acc::default();
    acc.block(Block {
        bytes: data,
        offset: 0,
    });
    acc.settle();
    acc.out
}

/// The usage recorded in transcript bytes handed over in blocks of whole
/// lines, each block ending where `ends` says (offsets moved back to a
/// line's start, as the reader's blocks end after a newline); every line
/// parsed when `every_line`.
#[cfg(test)]
pub(crate) fn usage_of_blocks(data: &[u8], ends: &[usize], every_line: bool) -> FileUsage {
    let mut acc = Acc {
        every_line,
        ..Acc::default()
    };
    let mut at = 0;
    let mut ends: Vec<usize> = ends
        .iter()
        .map(|&e| {
            let e = e.min(data.len());
            memchr::memrchr(b'\n', &data[..e]).map_or(0, |i| i + 1)
        })
        .collect();
    ends.push(data.len());
    ends.sort_unstable();
    for e in ends {
        if e > at {
            acc.block(Block {
                bytes: &data[at..e],
                offset: at as u64,
            });
            at = e;
        }
    }
    acc.settle();
    acc.out
}

/// [`usage_of`] with every line parsed, none found by a key first.
#[cfg(test)]
pub(crate) fn usage_of_every_line(data: &[u8]) -> FileUsage {
    let mut acc = Acc {
        every_line: true,
        ..Acc::default()
    };
    acc.block(Block {
        bytes: data,
        offset: 0,
    });
    acc.settle();
    acc.out
}

#[derive(Default)]
pub(super) struct Acc {
    /// Leave `prompts` at 0 (what [`Store::usage`](super::Store::usage) needs
    /// not, it does not count).
    skip_prompts: bool,
    pub(super) out: FileUsage,
    index: HashMap<String, usize>,
    /// Parse every line, found by no key (the tests' full parse).
    every_line: bool,
    /// A `cost-state` was taken whose first response covered is not
    /// worked out yet ([`Acc::settle`]: once, when the reading is done,
    /// not at each block's, which a file with one in every block made
    /// blocks × responses).
    unsettled: bool,
}

/// What a usage line is read for.
#[derive(serde::Deserialize)]
struct UsageLine<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    message: Option<Obj<UsageMessage<'a>>>,
    #[serde(rename = "requestId", borrow)]
    request_id: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    timestamp: Option<std::borrow::Cow<'a, str>>,
}

#[derive(serde::Deserialize)]
struct UsageMessage<'a> {
    #[serde(borrow)]
    id: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    model: Option<std::borrow::Cow<'a, str>>,
    usage: Option<Obj<UsageCounts>>,
}

#[derive(serde::Deserialize)]
struct UsageCounts {
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    cache_creation_input_tokens: Option<u64>,
    cache_read_input_tokens: Option<u64>,
    cache_creation: Option<Obj<CacheCreation>>,
    // any JSON (a line with another type here still counts its tokens)
    speed: Option<Value>,
    inference_geo: Option<Value>,
    server_tool_use: Option<Value>,
}

#[derive(serde::Deserialize)]
struct CacheCreation {
    ephemeral_1h_input_tokens: Option<u64>,
}

/// How far from a block's end its last `cost-state` line is looked for
/// backwards (the CLI writes it at a session's end): a tail of this size,
/// then the rest forwards. The tests' is a line or two, so that both ways
/// are taken.
#[cfg(not(test))]
const COST_TAIL: usize = 64 << 10;
#[cfg(test)]
const COST_TAIL: usize = 160;

/// The searchers of [`Acc::block`], built once. Each looks for a key with
/// its quotes only (`"usage"`, not `"usage":{`), so a line written with
/// spaces or its keys in another order is found too; the line is then
/// parsed, and only what it says counts.
struct Finders {
    timestamp: memchr::memmem::Finder<'static>,
    cwd: memchr::memmem::Finder<'static>,
    user: memchr::memmem::Finder<'static>,
    usage: memchr::memmem::Finder<'static>,
    cost_state: memchr::memmem::Finder<'static>,
    tool_result: memchr::memmem::Finder<'static>,
}

fn finders() -> &'static Finders {
    static F: std::sync::OnceLock<Finders> = std::sync::OnceLock::new();
    F.get_or_init(|| Finders {
        timestamp: memchr::memmem::Finder::new(b"\"timestamp\""),
        cwd: memchr::memmem::Finder::new(b"\"cwd\""),
        user: memchr::memmem::Finder::new(b"\"user\""),
        usage: memchr::memmem::Finder::new(b"\"usage\""),
        cost_state: memchr::memmem::Finder::new(b"\"cost-state\""),
        tool_result: memchr::memmem::Finder::new(b"\"tool_result\""),
    })
}

/// A line's working directory (its `cwd`), if it has one, read as
/// [`time_of`] reads the time.
fn cwd_of(line: &[u8], skim: bool) -> Option<String> {
    match skim.then(|| super::usage_skim::skim(line)?.cwd()) {
        Some(Some(c)) => c.map(str::to_owned),
        _ => cwd_serde(line)?.map(std::borrow::Cow::into_owned),
    }
}

/// serde's reading of a line's `cwd`, as [`time_serde`].
pub(super) fn cwd_serde(line: &[u8]) -> Option<Option<std::borrow::Cow<'_, str>>> {
    serde_json::from_slice::<Obj<CwdLine<'_>>>(line)
        .ok()
        .map(|l| l.0.cwd)
}

/// The one field of a line that is read for the working directory.
#[derive(serde::Deserialize)]
struct CwdLine<'a> {
    #[serde(borrow)]
    cwd: Option<std::borrow::Cow<'a, str>>,
}

/// `T` read from a JSON object only. serde's derived structs also take an
/// array, field by field in order: `["2026-11-02T21:23:16.371Z"]` was read
/// as a line whose `timestamp` (and `cwd`) is that text, and
/// `"message":["id","model",{…}]` as a message with usage. No transcript
/// line is an array, and the byte-level reading never takes one; a
/// property test found the two readings apart.
pub(super) struct Obj<T>(pub(super) T);

impl<'de, T: serde::Deserialize<'de>> serde::Deserialize<'de> for Obj<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Only<T>(std::marker::PhantomData<T>);
        impl<'de, T: serde::Deserialize<'de>> serde::de::Visitor<'de> for Only<T> {
            type Value = T;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
                T::deserialize(serde::de::value::MapAccessDeserializer::new(map))
            }
        }
        d.deserialize_map(Only(std::marker::PhantomData)).map(Obj)
    }
}

/// The `\u00XX` escapes in `block` that write an ASCII letter or a `-`
/// (the keys' only other character): where each starts, and the
/// character. A key can be written with them (`"\u0075sage"` is the key
/// `"usage"`, `"cost\u002dstate"` the type `"cost-state"`), so a line
/// with one that writes a character of a key is a candidate for that key
/// too. Usually none.
fn letter_escapes(block: &[u8]) -> Vec<(usize, u8)> {
    let hex = |b: u8| (b as char).to_digit(16);
    memchr::memmem::find_iter(block, b"\\u00")
        .filter_map(|at| {
            let hi = hex(*block.get(at + 4)?)?;
            let lo = hex(*block.get(at + 5)?)?;
            let c = (hi * 16 + lo) as u8;
            (c.is_ascii_alphabetic() || c == b'-').then_some((at, c))
        })
        .collect()
}

/// Where the lines that may hold a key are in a block: the key as written
/// (with its quotes, found by `fwd`), and `extra` (sorted): the escapes
/// of one of its letters, or in the tests' full parse every line.
struct Hits<'f> {
    fwd: Option<&'f memchr::memmem::Finder<'static>>,
    extra: Vec<usize>,
}

/// The first window of [`last_forward`]; the tests' is small, so that
/// their few lines take several.
#[cfg(not(test))]
const FIRST_WINDOW: usize = 4096;
#[cfg(test)]
const FIRST_WINDOW: usize = 24;

/// Where the last match of `f` in `block` that starts at or after `lo`
/// starts: `f` searched forwards in windows from the block's end, each
/// four times the one before, down to `lo` (memchr's forward search is
/// vectorised, its backward one is not; the last key of a block is most
/// often in its last few KB). Each window is searched from each match on,
/// so a match that overlaps the one before is found too.
fn last_forward(f: &memchr::memmem::Finder<'_>, block: &[u8], lo: usize) -> Option<usize> {
    let end = block.len();
    let lo = lo.min(end);
    let mut window = FIRST_WINDOW;
    loop {
        let start = end.saturating_sub(window).max(lo);
        let mut last = None;
        let mut from = start;
        while let Some(i) = f.find(&block[from..]) {
            last = Some(from + i);
            from += i + 1;
        }
        if last.is_some() || start == lo {
            return last;
        }
        window = window.saturating_mul(4);
    }
}

impl Hits<'_> {
    /// The first at or after `from`.
    fn next_from(&self, block: &[u8], from: usize) -> Option<usize> {
        let a = self
            .fwd
            .and_then(|f| f.find(&block[from..]))
            .map(|i| from + i);
        let i = self.extra.partition_point(|&x| x < from);
        let b = self.extra.get(i).copied();
        match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The last before `before`.
    fn prev_before(&self, block: &[u8], before: usize) -> Option<usize> {
        self.last_in(&block[..before], 0)
    }

    /// The last that starts at or after `lo` in `block` (all of it in
    /// `block`).
    fn last_in(&self, block: &[u8], lo: usize) -> Option<usize> {
        let lo = lo.min(block.len());
        let a = self.fwd.and_then(|f| last_forward(f, block, lo));
        let i = self.extra.partition_point(|&x| x < block.len());
        let b = i.checked_sub(1).map(|i| self.extra[i]).filter(|&x| x >= lo);
        a.max(b)
    }

    /// All of them, in order.
    fn all(&self, block: &[u8]) -> Vec<usize> {
        let mut out: Vec<usize> = match self.fwd {
            Some(f) => f.find_iter(block).collect(),
            None => Vec::new(),
        };
        if !self.extra.is_empty() {
            out.extend(&self.extra);
            out.sort_unstable();
        }
        out
    }
}

impl Acc {
    /// Nothing read yet; prompts counted.
    pub(super) fn counting_prompts() -> Acc {
        Acc::default()
    }

    /// Take in a block of whole lines (the next ones after those taken).
    pub(super) fn take_block(&mut self, lines: Block<'_>) {
        self.block(lines)
    }

    /// The reading is done (for now): the last `cost-state` taken gets the
    /// first response it covers ([`CliCost::first`]).
    pub(super) fn settle(&mut self) {
        if std::mem::take(&mut self.unsettled) {
            let out = &mut self.out;
            if let Some(c) = out.cli_cost.as_mut() {
                let upto = c.responses.min(out.messages.len());
                c.first = c.first_covered(&out.messages[..upto]);
            }
        }
    }

    /// Take in a block of whole lines.
    fn block(&mut self, lines: Block<'_>) {
        let block = lines.bytes;
        let f = finders();
        let escapes = letter_escapes(block);
        let every: Vec<usize> = if self.every_line {
            lines
                .lines()
                .map(|(o, _)| (o - lines.offset) as usize)
                .collect()
        } else {
            Vec::new()
        };
        let hits = |fwd, key: &[u8]| {
            if self.every_line {
                return Hits {
                    fwd: None,
                    extra: every.clone(),
                };
            }
            Hits {
                fwd: Some(fwd),
                extra: escapes
                    .iter()
                    .filter(|(_, c)| key.contains(c))
                    .map(|&(at, _)| at)
                    .collect(),
            }
        };
        let timestamps = hits(&f.timestamp, b"timestamp");
        // a key found may be a nested one: the next line holding it is tried
        if self.out.first.is_none() {
            let mut from = 0;
            while let Some(at) = timestamps.next_from(block, from) {
                let Range { start: s, end: e } = lines.entry_at(at);
                self.out.first = time_of(&block[s..e], !self.every_line);
                if self.out.first.is_some() {
                    break;
                }
                from = e.max(at + 1);
                if from >= block.len() {
                    break;
                }
            }
        }
        if self.out.cwd.is_none() {
            let cwds = hits(&f.cwd, b"cwd");
            let mut from = 0;
            while let Some(at) = cwds.next_from(block, from) {
                let Range { start: s, end: e } = lines.entry_at(at);
                self.out.cwd = cwd_of(&block[s..e], !self.every_line);
                if self.out.cwd.is_some() {
                    break;
                }
                from = e.max(at + 1);
                if from >= block.len() {
                    break;
                }
            }
        }
        let mut before = block.len();
        while let Some(at) = timestamps.prev_before(block, before) {
            let Range { start: s, end: e } = lines.entry_at(at);
            if let Some(t) = time_of(&block[s..e], !self.every_line) {
                self.out.last = Some(t);
                break;
            }
            // the line's own start: a hit of the tests' full parse is
            // where the line starts, before its leading blanks
            before = lines.line_at(at).start;
        }
        let users = if self.skip_prompts {
            Vec::new()
        } else {
            hits(&f.user, b"user").all(block)
        };
        // usage lines and `cost-state` lines, in file order: a cost-state
        // covers the messages before it
        let mut usages: Vec<(usize, bool)> = hits(&f.usage, b"usage")
            .all(block)
            .into_iter()
            .map(|at| (at, false))
            .collect();
        let costs = hits(&f.cost_state, b"cost-state");
        // only the block's last good `cost-state` line counts (a later one
        // replaces it, whatever it says): it is looked for backwards in
        // the block's last COST_TAIL bytes, where the CLI writes it, and
        // only when none is there, forwards in the rest (the tail's last
        // is found by forward searches of growing windows from its end,
        // `last_forward`); the tests' full parse takes every one in turn
        let mut last_cost = None;
        if self.every_line {
            usages.extend(costs.all(block).into_iter().map(|at| (at, true)));
        } else {
            let lo = block.len().saturating_sub(COST_TAIL);
            let good = |at: usize| {
                let Range { start: s, end: e } = lines.entry_at(at);
                CliCost::parse(&block[s..e], None, 0).map(|c| (at, c))
            };
            let mut found = None;
            let mut before = block.len();
            // the hits that start in the tail, last first
            while before > lo {
                let Some(at) = costs.last_in(&block[..before], lo) else {
                    break;
                };
                found = good(at);
                if found.is_some() {
                    break;
                }
                before = lines.line_at(at).start;
            }
            if found.is_none() && lo > 0 {
                // the hits that start before the tail
                let end = (lo + b"\"cost-state\"".len() - 1).min(block.len());
                let before_tail = costs.all(&block[..end]);
                found = before_tail
                    .into_iter()
                    .rev()
                    .filter(|&at| at < lo)
                    .find_map(&good);
            }
            if let Some((at, c)) = found {
                usages.push((at, true));
                last_cost = Some(c);
            }
        }
        usages.sort_unstable();
        // the person's prompts: user lines that are not tool results (a
        // line whose bytes hold `"tool_result"` is passed over only when
        // that is a content block's type, read at the byte level: a person
        // may type the word; the tests' full parse reads every line)
        let mut last_line = usize::MAX;
        for at in users {
            let Range { start: s, end: e } = lines.entry_at(at);
            if s == last_line {
                continue;
            }
            last_line = s;
            let line = &block[s..e];
            if !self.every_line
                && f.tool_result.find(line).is_some()
                && super::usage_skim::is_tool_result(line)
            {
                continue;
            }
            if let Ok(v) = crate::protocol::from_slice_lenient::<Value>(line) {
                if v.get("type").and_then(Value::as_str) == Some("user") && is_prompt(&v) {
                    self.out.prompts += 1;
                }
            }
        }
        // a line may be found as both (an escape of a letter both keys
        // have): each reading checks the line's type
        let mut last_line = [usize::MAX; 2];
        for (at, cost) in usages {
            let Range { start: s, end: e } = lines.entry_at(at);
            if last_line[cost as usize] == s {
                continue;
            }
            last_line[cost as usize] = s;
            if cost {
                // the last response before it, in file order (the latest
                // time would be one a wrong clock dated in 2099)
                let until = self.out.messages.iter().rev().find_map(|m| m.at);
                let responses = self.out.messages.len();
                let read = match last_cost.take() {
                    Some(c) => Some(CliCost {
                        until,
                        responses,
                        ..c
                    }),
                    None => CliCost::parse(&block[s..e], until, responses),
                };
                if let Some(c) = read {
                    self.out.cli_cost = Some(c);
                    self.unsettled = true;
                }
            } else {
                self.usage_line(&block[s..e]);
            }
        }
    }

    fn usage_line(&mut self, line: &[u8]) {
        // read at the byte level when that reading is sure of the line,
        // else by serde (the same answer: see `usage_skim`); the tests'
        // full parse is serde's alone
        let skimmed = if self.every_line {
            None
        } else {
            super::usage_skim::skim(line).and_then(|s| s.usage())
        };
        if let Some(f) = skimmed.unwrap_or_else(|| usage_serde(line)) {
            self.take(f);
        }
    }

    /// Count an assistant line's usage, however it was read.
    fn take(&mut self, f: UsageFields<'_>) {
        let id = f.id.as_deref().unwrap_or("");
        let req = f.request_id.as_deref().unwrap_or("");
        let model = f.model.as_deref().unwrap_or("");
        if model == "<synthetic>" || (id.is_empty() && req.is_empty()) {
            return; // the CLI's own made-up messages cost nothing
        }
        let m = MessageUsage {
            key: format!("{id}\u{0}{req}"),
            model: model.to_owned(),
            tokens: f.tokens,
            at: f
                .timestamp
                .as_deref()
                .and_then(super::time::parse_iso_millis),
            fast: f.fast,
            us_only: f.us_only,
            web_searches: f.web_searches,
        };
        match self.index.get(&m.key) {
            Some(&i) => {
                // the last line's counts win; the first line's time stays
                // (a response streamed across midnight or a block's edge
                // is dated when it began, as the CLI began writing it)
                let was = &mut self.out.messages[i];
                let at = was.at.or(m.at);
                *was = MessageUsage { at, ..m };
            }
            None => {
                self.index.insert(m.key.clone(), self.out.messages.len());
                self.out.messages.push(m);
            }
        }
    }
}

/// serde's reading of a usage line: its usage, `None` when it records
/// none (not an `assistant` entry, no `message.usage`, not a line serde
/// takes). Only the fields needed, the rest skipped without building
/// values.
pub(super) fn usage_serde(line: &[u8]) -> Option<UsageFields<'_>> {
    let Obj(l) = serde_json::from_slice::<Obj<UsageLine<'_>>>(line).ok()?;
    if l.kind.as_deref() != Some("assistant") {
        return None;
    }
    let Obj(msg) = l.message?;
    let Obj(usage) = msg.usage?;
    Some(UsageFields {
        id: msg.id,
        model: msg.model,
        request_id: l.request_id,
        timestamp: l.timestamp,
        tokens: Tokens {
            input: usage.input_tokens.unwrap_or(0),
            output: usage.output_tokens.unwrap_or(0),
            cache_write: usage.cache_creation_input_tokens.unwrap_or(0),
            cache_read: usage.cache_read_input_tokens.unwrap_or(0),
            cache_write_1h: usage
                .cache_creation
                .and_then(|c| c.0.ephemeral_1h_input_tokens)
                .unwrap_or(0),
        },
        fast: usage.speed.as_ref().and_then(Value::as_str) == Some("fast"),
        us_only: usage.inference_geo.as_ref().and_then(Value::as_str) == Some("us"),
        web_searches: usage
            .server_tool_use
            .as_ref()
            .and_then(|s| s["web_search_requests"].as_u64())
            .unwrap_or(0),
    })
}

/// Whether a user entry is something the person typed: the listing's own
/// rule (the SDK's), on the main chain.
fn is_prompt(v: &Value) -> bool {
    v.get("isSidechain").and_then(Value::as_bool) != Some(true)
        && super::scan::prompt_text(v, &mut String::new()).is_some()
}

/// One session's usage: its transcript's and its sub-agents'.
///
/// The CLI writes what a sub-agent (the `Agent` or `Task` tool) does to a
/// transcript of its own, `<session>/subagents/agent-<id>.jsonl`, and what
/// it spends is billed with the session. [`total`](SessionUsage::total)
/// counts both; `without_subagents` and `subagents` keep them apart.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionUsage {
    /// The session id (the file's name).
    pub session_id: String,
    /// The transcript.
    pub path: PathBuf,
    /// When the transcript was last written (ms since the epoch).
    pub last_modified: i64,
    /// What the session's own transcript records, without its sub-agents.
    /// [`Store::usage`](super::Store::usage) does not count prompts (0);
    /// [`session_usage`](super::session_usage) does. (Was named `usage`:
    /// the session's whole usage is [`total`](SessionUsage::total).)
    pub without_subagents: FileUsage,
    /// Each sub-agent run's usage, oldest first.
    pub subagents: Vec<SubagentUsage>,
    /// Sub-agent transcripts that could not be read (links, FIFOs, devices,
    /// files without permission): left out of the counts, and named here.
    pub skipped: Vec<super::Skipped>,
}

/// What one sub-agent run of a session used.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SubagentUsage {
    /// The run: its id, what it was asked to do, its type and transcript.
    pub agent: SubagentInfo,
    /// What its transcript records (`prompts` is 0: its prompt is the
    /// model's, not the person's).
    pub usage: FileUsage,
}

impl SessionUsage {
    /// What the session's own transcript records, without its sub-agents:
    /// the field [`without_subagents`](SessionUsage::without_subagents),
    /// which was named `usage` (the name read as the session's whole usage,
    /// which is [`total`](SessionUsage::total)).
    #[deprecated(
        since = "0.1.0",
        note = "read the field `without_subagents` (the session's own transcript), or call `total()` for the session's whole usage"
    )]
    pub fn usage(&self) -> &FileUsage {
        &self.without_subagents
    }

    /// Whether the transcript is read from an archive (the CLI deleted
    /// its own).
    pub fn is_archived(&self) -> bool {
        super::open::is_packed(&self.path)
    }

    /// What the CLI itself says the session cost, sub-agents included:
    /// its transcript's last `cost-state` line (`None` for a session still
    /// in its first run, or written by an older CLI). Messages after
    /// [`CliCost::until`] (a resumed session still running) are not in it.
    ///
    /// ```no_run
    /// use claudio::store::Store;
    /// let session = Store::from_env()?.session_usage("b55ade39")?;
    /// if let Some(cost) = session.cli_cost() {
    ///     for m in &cost.models {
    ///         println!("{}: ${:.4}", m.model, m.cost_usd);
    ///     }
    /// }
    /// # Ok::<(), claudio::store::StoreError>(())
    /// ```
    pub fn cli_cost(&self) -> Option<&CliCost> {
        self.without_subagents.cli_cost.as_ref()
    }

    /// Every API message of the session, then of each sub-agent, as each
    /// file records it (a message two files hold comes twice: count with a
    /// [`UsageSet`], or use [`total`](SessionUsage::total)).
    pub fn messages(&self) -> impl Iterator<Item = &MessageUsage> {
        self.without_subagents
            .messages
            .iter()
            .chain(self.subagents.iter().flat_map(|a| a.usage.messages.iter()))
    }

    /// The session and its sub-agents as one: each API message once (the
    /// last line seen wins, across files too), the session's prompts and
    /// working directory, and the span of all of them. What the CLI bills
    /// for the session.
    ///
    /// ```no_run
    /// use claudio::store::Store;
    /// let session = Store::from_env()?.session_usage("b55ade39")?;
    /// let all = session.total();
    /// println!(
    ///     "{} tokens, {} of them by {} sub-agents",
    ///     all.tokens().total(),
    ///     all.tokens().total() - session.without_subagents.tokens().total(),
    ///     session.subagents.len()
    /// );
    /// # Ok::<(), claudio::store::StoreError>(())
    /// ```
    pub fn total(&self) -> FileUsage {
        let mut out = FileUsage {
            messages: Vec::new(),
            ..self.without_subagents.clone()
        };
        let mut index: HashMap<&str, usize> = HashMap::new();
        for m in self.messages() {
            match index.get(m.key.as_str()) {
                Some(&i) => {
                    let at = out.messages[i].at.or(m.at);
                    out.messages[i] = MessageUsage { at, ..m.clone() };
                }
                None => {
                    index.insert(&m.key, out.messages.len());
                    out.messages.push(m.clone());
                }
            }
        }
        for a in &self.subagents {
            out.first = min_some(out.first, a.usage.first);
            out.last = max_some(out.last, a.usage.last);
        }
        out
    }
}

fn min_some(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

fn max_some(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

/// The usage of many sessions, and the files that could not be read.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct UsageListing {
    /// Oldest first.
    pub sessions: Vec<SessionUsage>,
    /// Transcripts (and project folders) that could not be read: links,
    /// FIFOs, devices, files without permission. Left out, and named here.
    pub skipped: Vec<super::Skipped>,
}

/// Usage across files: each API message once, the last line seen winning
/// (a resumed session's file repeats what it continues).
///
/// See [`Store::usage`](super::Store::usage) for an example.
#[derive(Debug, Default)]
pub struct UsageSet {
    seen: HashMap<String, (String, Tokens)>,
}

impl UsageSet {
    /// Count one API message: returns what it adds (all of it the first
    /// time; later, only what grew).
    pub fn add_message(&mut self, m: &MessageUsage) -> Tokens {
        match self.seen.insert(m.key.clone(), (m.model.clone(), m.tokens)) {
            Some((_, old)) => m.tokens.beyond(&old),
            None => m.tokens,
        }
    }

    /// Add a file's messages; returns the tokens that were new, by model.
    pub fn add(&mut self, f: &FileUsage) -> Vec<(String, Tokens)> {
        let mut new: HashMap<String, Tokens> = HashMap::new();
        for m in &f.messages {
            let delta = self.add_message(m);
            new.entry(m.model.clone()).or_default().add(&delta);
        }
        let mut v: Vec<(String, Tokens)> = new.into_iter().collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::usage_read::{read_session, session_usage};
    use serde_json::{json, Value};

    /// `k` as a JSON key (quoted), each letter whose bit is set in `mask`
    /// written as a `\u` escape (in upper-case hex when `upper`).
    fn key(k: &str, mask: u64, upper: bool) -> String {
        let mut out = String::from("\"");
        for (i, c) in k.chars().enumerate() {
            if mask >> (i % 64) & 1 == 1 {
                let e = format!("\\u{:04x}", c as u32);
                out.push_str(&if upper {
                    e.to_uppercase().replace("\\U", "\\u")
                } else {
                    e
                });
            } else {
                out.push(c);
            }
        }
        out + "\""
    }

    /// A JSON object of these members, its keys escaped as the next masks
    /// of `rng` say, spaced or not.
    fn obj(members: &[(&str, String)], rng: &mut u64, spaced: bool) -> String {
        let sep = if spaced { ", " } else { "," };
        let colon = if spaced { ": " } else { ":" };
        let body: Vec<String> = members
            .iter()
            .map(|(k, v)| {
                // xorshift: a mask of its own for each key
                *rng ^= *rng << 13;
                *rng ^= *rng >> 7;
                *rng ^= *rng << 17;
                let mask = if *rng % 3 == 0 { 0 } else { *rng >> 8 };
                format!("{}{colon}{v}", key(k, mask, *rng & 2 == 2))
            })
            .collect();
        format!("{{{}}}", body.join(sep))
    }

    /// One transcript line of `kind`: an API message's usage (0, 1), a
    /// prompt (2), a tool result (3), a line with no entry (4), a prompt
    /// of the word `tool_result` (5), a block whose type is given twice
    /// (6), a block whose type is written with an escape (7), the word in
    /// a block's field of another name (8).
    fn escaped_line(kind: u8, id: u8, n: u64, rng: &mut u64, spaced: bool) -> String {
        let q = |s: &str| serde_json::to_string(s).unwrap();
        let ts = q(&format!("2026-11-0{}T10:00:{:02}.000Z", 1 + id % 3, n % 60));
        match kind {
            0 | 1 => {
                let usage = obj(
                    &[
                        ("input_tokens", n.to_string()),
                        ("output_tokens", (n * 7 % 101).to_string()),
                        ("cache_read_input_tokens", "5".into()),
                    ],
                    rng,
                    spaced,
                );
                let message = obj(
                    &[
                        ("id", q(&format!("m{id}"))),
                        ("model", q("claude-sonnet-4-5")),
                        ("usage", usage),
                    ],
                    rng,
                    spaced,
                );
                let mut m = vec![
                    ("type", q("assistant")),
                    ("message", message),
                    ("requestId", q(&format!("r{id}"))),
                    ("timestamp", ts),
                ];
                if kind == 1 {
                    m.reverse();
                    m.push(("cwd", q("/w/\u{e9}")));
                }
                obj(&m, rng, spaced)
            }
            2 | 3 | 5..=8 => {
                let content = if kind == 2 {
                    q(&format!("prompt {n}"))
                } else if kind == 5 {
                    // a person who typed the word
                    q("tool_result")
                } else if kind == 6 {
                    // a block whose type is given twice: the last counts
                    let types = [q("tool_result"), q("text")];
                    let (a, b) = if n % 2 == 0 { (0, 1) } else { (1, 0) };
                    let block = obj(
                        &[
                            ("type", types[a].clone()),
                            ("type", types[b].clone()),
                            ("text", q("tool_result")),
                        ],
                        rng,
                        spaced,
                    );
                    format!("[{block}]")
                } else if kind == 7 {
                    // the type written with an escape
                    format!(
                        "[{{\"type\":{},\"content\":\"out\"}}]",
                        if n % 2 == 0 {
                            "\"tool\\u005fresult\""
                        } else {
                            "\"text\""
                        }
                    )
                } else if kind == 8 {
                    // the word in a field of another name
                    format!(
                        "[{{\"type\":\"text\",\"text\":\"p\",\"note\":{}}}]",
                        q("tool_result")
                    )
                } else {
                    format!(
                        "[{}]",
                        obj(
                            &[
                                ("type", q("tool_result")),
                                ("tool_use_id", q("t")),
                                ("content", q("out"))
                            ],
                            rng,
                            spaced
                        )
                    )
                };
                let message = obj(&[("role", q("user")), ("content", content)], rng, spaced);
                obj(
                    &[
                        ("type", q("user")),
                        ("message", message),
                        ("cwd", q(&format!("/w{id}"))),
                        ("timestamp", ts),
                    ],
                    rng,
                    spaced,
                )
            }
            _ => obj(&[("note", q("usage \\u0075 text"))], rng, spaced),
        }
    }

    /// What a full parse of each line (serde_json's, no byte finder)
    /// says: the API messages (the last line of each id + requestId
    /// wins, dated by its first), the first and last time, the first working directory.
    fn full_parse(data: &[u8]) -> (Vec<MessageUsage>, Option<i64>, Option<i64>, Option<String>) {
        let mut msgs: Vec<MessageUsage> = Vec::new();
        let (mut first, mut last, mut cwd) = (None, None, None);
        for line in data.split(|b| *b == b'\n') {
            // every reader's rule: from the line's first byte past a blank
            let line = crate::store::lines::entry(line);
            let Ok(v) = serde_json::from_slice::<Value>(line) else {
                continue;
            };
            let at = v["timestamp"]
                .as_str()
                .and_then(crate::store::time::parse_iso_millis);
            if at.is_some() {
                first = first.or(at);
                last = at;
            }
            cwd = cwd.or(v["cwd"].as_str().map(str::to_owned));
            let m = &v["message"];
            let Some(u) = m.get("usage").filter(|_| v["type"] == "assistant") else {
                continue;
            };
            let n = |k: &str| u[k].as_u64().unwrap_or(0);
            let key = format!(
                "{}\u{0}{}",
                m["id"].as_str().unwrap_or(""),
                v["requestId"].as_str().unwrap_or("")
            );
            let mu = MessageUsage {
                key: key.clone(),
                model: m["model"].as_str().unwrap_or("").to_owned(),
                tokens: Tokens {
                    input: n("input_tokens"),
                    output: n("output_tokens"),
                    cache_write: n("cache_creation_input_tokens"),
                    cache_read: n("cache_read_input_tokens"),
                    cache_write_1h: u["cache_creation"]["ephemeral_1h_input_tokens"]
                        .as_u64()
                        .unwrap_or(0),
                },
                at,
                fast: u["speed"] == "fast",
                us_only: u["inference_geo"] == "us",
                web_searches: u["server_tool_use"]["web_search_requests"]
                    .as_u64()
                    .unwrap_or(0),
            };
            // the last line's counts, the first line's time
            match msgs.iter_mut().find(|x| x.key == key) {
                Some(x) => {
                    *x = MessageUsage {
                        at: x.at.or(mu.at),
                        ..mu
                    }
                }
                None => msgs.push(mu),
            }
        }
        (msgs, first, last, cwd)
    }

    /// What a full parse of each line says of the person's prompts:
    /// every line serde_json takes (lone surrogates mended), a `user`
    /// entry, the listing's rule (`is_prompt`); no byte finder, no skip.
    fn full_prompts(data: &[u8]) -> u64 {
        let mut n = 0;
        for line in data.split(|b| *b == b'\n') {
            let line = crate::store::lines::entry(line);
            if let Ok(v) = crate::protocol::from_slice_lenient::<Value>(line) {
                if v.get("type").and_then(Value::as_str) == Some("user") && is_prompt(&v) {
                    n += 1;
                }
            }
        }
        n
    }

    /// A user line whose bytes hold `"tool_result"` is a prompt unless a
    /// content block's type says so: a person who typed `tool_result`, a
    /// field of any name holding the word, a text block saying it, a block
    /// whose type was given twice, the last `text`. The byte finder passed
    /// over every such line (the fast paths' second attack round).
    #[test]
    fn a_prompt_holding_the_word_tool_result_is_counted() {
        let prompts = [
            r#"{"type":"user","message":{"role":"user","content":"tool_result"}}"#,
            r#"{"type":"user","note":"tool_result","message":{"content":"hi"}}"#,
            r#"{"type":"user","message":{"content":[{"type":"text","text":"tool_result"}]}}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","type":"text","text":"x"}]}}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result"}]},"message":{"content":"again"}}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result"}],"content":"edited"}}"#,
            r#"{"type":"user","toolUseResult":{"content":[{"type":"tool_result"}]},"message":{"content":"y"}}"#,
            r#"{"type":"user","message":{"content":[{"text":"z","type":"text"},{"content":{"type":"tool_result"}}]}}"#,
        ];
        let not = [
            r#"{"type":"user","message":{"content":[{"type":"tool_result","content":"out"}]}}"#,
            r#"{"type":"user","message":{"content":[{"type":"text","text":"a"},{"type":"tool_result"}]}}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool\u005fresult"}]}}"#,
            r#"{"type":"user","message":{"content":[{"type":"text","type":"tool_result","text":"b"}]}}"#,
            r#"{"type":"user","message":{"content":"c"},"message":{"content":[{"type":"tool_result"}]}}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result"}]}"#,
        ];
        for l in prompts {
            assert_eq!(usage_of(l.as_bytes()).prompts, 1, "{l}");
            assert_eq!(full_prompts(l.as_bytes()), 1, "{l}");
        }
        for l in not {
            assert_eq!(usage_of(l.as_bytes()).prompts, 0, "{l}");
            assert_eq!(full_prompts(l.as_bytes()), 0, "{l}");
        }
        let all = prompts
            .iter()
            .chain(&not)
            .copied()
            .collect::<Vec<_>>()
            .join("\n");
        assert_eq!(usage_of(all.as_bytes()).prompts, 8);
        assert_eq!(usage_of_every_line(all.as_bytes()).prompts, 8);
    }

    /// The `"usage"` key, or any other, written with `\u` escapes
    /// (`"\u0075sage"`) is the same key: the byte finder counts such a line
    /// as a full parse does (it missed them: the fourth attack round).
    #[test]
    fn an_escaped_usage_key_counts() {
        let plain = line(
            "m1",
            "r1",
            "claude-sonnet-4-5",
            7,
            3,
            "2026-11-01T10:00:00.000Z",
        );
        let escaped = plain
            .replace("\"usage\"", "\"\\u0075sage\"")
            .replace("\"timestamp\"", "\"time\\u0073tamp\"")
            .replace("\"cwd\"", "\"\\u0063wd\"");
        assert!(escaped.contains("\\u0075sage"));
        let u = usage_of(escaped.as_bytes());
        assert_eq!(u.messages.len(), 1, "{escaped}");
        assert_eq!(u.tokens().input, 7);
        assert_eq!(
            u.first,
            crate::store::time::parse_iso_millis("2026-11-01T10:00:00.000Z")
        );
        assert_eq!(u.last, u.first);
        let cwd = "{\"\\u0063wd\":\"/w\"}\n".to_owned() + &escaped;
        assert_eq!(usage_of(cwd.as_bytes()).cwd.as_deref(), Some("/w"));
    }

    proptest::proptest! {
        /// The byte finder (a key, or an escape of one of its letters)
        /// gives what a full parse of every line gives, with keys written
        /// plain, `\u`-escaped in either case, spaced and reordered; and
        /// the usage index, read whole and read on after an append, too.
        #[test]
        fn the_byte_finder_equals_a_full_parse_with_escaped_keys(
            lines in proptest::collection::vec((0u8..9, 0u8..4, 0u64..1000, proptest::bool::ANY), 0..12),
            seed in 1u64..u64::MAX,
            cut in 0usize..12,
        ) {
            let mut rng = seed;
            let text: Vec<String> = lines
                .iter()
                .map(|&(kind, id, n, spaced)| {
                    let l = escaped_line(kind, id, n, &mut rng, spaced);
                    // now and then led by NULs and control bytes, as a
                    // crash leaves a zero-filled block before a line
                    if n % 7 == 3 { format!("\0\0\u{1}{l}") } else { l }
                })
                .collect();
            let data = text.iter().map(|l| format!("{l}\n")).collect::<String>();
            let got = usage_of(data.as_bytes());
            let (msgs, first, last, cwd) = full_parse(data.as_bytes());
            proptest::prop_assert_eq!(&got.messages, &msgs, "{}", data);
            proptest::prop_assert_eq!((got.first, got.last, &got.cwd), (first, last, &cwd));
            let every = usage_of_every_line(data.as_bytes());
            proptest::prop_assert_eq!(got.prompts, every.prompts, "{}", data);
            proptest::prop_assert_eq!(got.prompts, full_prompts(data.as_bytes()), "{}", data);
            // through the usage index: read whole, then read on
            let d = tempfile::tempdir().unwrap();
            let path = d.path().join("t.jsonl");
            let cut = cut.min(text.len());
            let head: String = text[..cut].iter().map(|l| format!("{l}\n")).collect();
            std::fs::write(&path, &head).unwrap();
            let ix = crate::store::usage_index::Index::at(d.path().join("index"));
            let _ = ix.read(&path, true).unwrap();
            ix.finish(None, false);
            std::fs::write(&path, &data).unwrap();
            let ix = crate::store::usage_index::Index::at(d.path().join("index"));
            let r = ix.read(&path, true).unwrap();
            ix.finish(None, false);
            proptest::prop_assert_eq!(r.usage, got);
        }
    }

    fn line(id: &str, req: &str, model: &str, input: u64, output: u64, ts: &str) -> String {
        json!({"type":"assistant","requestId":req,"timestamp":ts,"message":{"id":id,"model":model,
            "usage":{"input_tokens":input,"output_tokens":output,"cache_creation_input_tokens":10,"cache_read_input_tokens":100}}})
        .to_string()
    }

    /// A transcript's numbers are not trusted: counts at `u64::MAX` stay
    /// there when summed (no panic in a debug build, no wrap in a release
    /// one), in a file, a session and a set (and a billing window:
    /// `claudio`'s `cli::billing` tests).
    #[test]
    fn token_counts_saturate_instead_of_overflowing() {
        let max = u64::MAX;
        let text = [
            line(
                "m1",
                "r1",
                "claude-sonnet-4-5",
                max,
                max,
                "2026-11-01T10:00:01.000Z",
            ),
            line(
                "m2",
                "r2",
                "claude-sonnet-4-5",
                max,
                1,
                "2026-11-01T10:00:02.000Z",
            ),
            line(
                "m3",
                "r3",
                "claude-opus-4-5",
                5,
                max,
                "2026-11-01T10:00:03.000Z",
            ),
        ]
        .join("\n")
            + "\n";
        let u = usage_of(text.as_bytes());
        assert_eq!(u.messages.len(), 3);
        assert_eq!(u.messages[0].tokens.input, max, "read as written");
        let t = u.tokens();
        assert_eq!((t.input, t.output, t.cache_write), (max, max, 30));
        assert_eq!(t.total(), max);
        assert_eq!(u.messages[2].tokens.total(), max);
        let by = u.by_model();
        assert_eq!(by.len(), 2);
        assert!(by.iter().all(|(_, t)| t.total() == max));
        let mut set = UsageSet::default();
        let added = set.add(&u);
        assert!(added.iter().all(|(_, t)| t.output == max));
        // a session of such files, and its sub-agents: the same
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("s.jsonl");
        std::fs::write(&p, &text).unwrap();
        let s = read_session(&p, true, None, true).unwrap();
        assert_eq!(s.total().tokens().total(), max);
    }

    /// A `cost-state` line is the CLI's, or nothing: a prompt that quotes
    /// one, a negative or non-numeric cost, are not figures; the last
    /// good one wins and covers the responses before it.
    #[test]
    fn only_a_well_formed_cost_state_is_read() {
        let cs = |cost: Value| {
            json!({"type":"cost-state","totalCostUSD":cost,"hasUnknownModelCost":true,
                "modelUsage":{"m":{"inputTokens":u64::MAX,"cacheCreationEphemeral1hInputTokens":5,"costUSD":cost}}})
            .to_string()
        };
        let prompt =
            json!({"type":"user","message":{"role":"user","content":cs(json!(1.0))}}).to_string();
        let text = [
            line("m0", "r0", "m", 5, 1, "2099-01-01T10:00:00.000Z"),
            line("m1", "r1", "m", 5, 1, "2026-11-01T10:00:00.000Z"),
            cs(json!(0.5)),
            cs(json!(-1.0)),
            cs(json!("9")),
            prompt,
            line("m2", "r2", "m", 5, 1, "2026-11-01T11:00:00.000Z"),
        ]
        .join("\n");
        let f = usage_of(text.as_bytes());
        let c = f.cli_cost.clone().expect("the good one");
        assert_eq!((c.total_usd, c.has_unknown_model_cost), (0.5, true));
        assert_eq!(c.models[0].tokens.input, u64::MAX);
        assert_eq!(c.models[0].tokens.cache_write_1h, 5);
        // covered: what came before it, even with a wrong clock's date
        assert_eq!(c.until, f.messages[1].at);
        assert!(c.covers(f.messages[1].at) && !c.covers(f.messages[2].at));
        // by their place: the 2099 one before it is in, the one after not
        assert_eq!(c.responses, 2);
        let own = f.messages.len();
        let placed: Vec<bool> = (0..own)
            .map(|i| c.covers_message(i, own, f.messages[i].at))
            .collect();
        assert_eq!(placed, [true, true, false]);
        // another file's message (a sub-agent's), by its time
        assert!(c.covers_message(own, own, f.messages[1].at));
        assert!(!c.covers_message(own, own, f.messages[0].at));
        assert_eq!(f.cli_cost, usage_of_every_line(text.as_bytes()).cli_cost);
    }

    /// A session copied without its `cost-state` (a fork) and resumed: the
    /// CLI counts from 0 again, so the line's figures are the resumed
    /// run's alone, token for token, and cover those responses only (the
    /// copied ones shared its figure, and the fork's own got a sliver of
    /// it). A resumed session's running total still covers every
    /// response; figures a sub-agent's tokens swell too; a model only the
    /// figures name (the CLI's side requests) is not looked for.
    #[test]
    fn a_cost_state_covers_the_responses_whose_tokens_it_counts() {
        let cs = |input: u64, output: u64, n: u64| {
            json!({"type":"cost-state","totalCostUSD":0.5,"modelUsage":{
                "m":{"inputTokens":input,"outputTokens":output,"cacheCreationInputTokens":10 * n,
                    "cacheReadInputTokens":100 * n,"costUSD":0.5},
                "haiku":{"inputTokens":7,"costUSD":0.001}}})
            .to_string()
        };
        let lines = [
            line("m0", "r0", "m", 5, 1, "2026-11-01T10:00:00.000Z"),
            line("m1", "r1", "m", 6, 2, "2026-11-01T10:00:01.000Z"),
            line("m2", "r2", "m", 7, 3, "2026-11-01T11:00:00.000Z"),
            line("m3", "r3", "m", 8, 4, "2026-11-01T11:00:01.000Z"),
        ]
        .join("\n");
        for (figures, first) in [
            (cs(15, 7, 2), 2),   // the resumed fork's own two
            (cs(8, 4, 1), 3),    // the last alone
            (cs(26, 10, 4), 0),  // the running total: all four
            (cs(126, 10, 4), 0), // a sub-agent's in it too: all, as before
            (cs(15, 7, 1), 0),   // no place adds up: all, as before
        ] {
            let text = format!("{lines}\n{figures}\n");
            let f = usage_of(text.as_bytes());
            let c = f.cli_cost.clone().expect("read");
            assert_eq!((c.responses, c.first), (4, first), "{figures}");
            let placed: Vec<bool> = (0..4).map(|i| c.covers_message(i, 4, None)).collect();
            let want: Vec<bool> = (0..4).map(|i| i >= first).collect();
            assert_eq!(placed, want, "{figures}");
            assert_eq!(f.cli_cost, usage_of_every_line(text.as_bytes()).cli_cost);
        }
    }

    proptest::proptest! {
        /// Only a block's last good `cost-state` line counts, so it is
        /// looked for from the block's end: the figures, and what they
        /// cover (the responses before the line, the last time among
        /// them), are what parsing every line in turn gives, whatever the
        /// blocks the file is read in; with good and bad `cost-state`
        /// lines (a negative or missing total, a prompt quoting one, the
        /// type written with escapes, a cut line) among usage lines.
        #[test]
        fn the_last_cost_state_found_from_the_end_equals_every_line_parsed(
            kinds in proptest::collection::vec((0u8..9, 0u8..6, 0u64..1000), 0..16),
            ends in proptest::collection::vec(0usize..4000, 0..4),
            cut in 0usize..4000,
            seed in 1u64..u64::MAX,
        ) {
            let mut rng = seed;
            let cs = |kind: &str, cost: Value, n: u64| {
                format!(
                    "{{\"type\":{kind},\"totalCostUSD\":{cost},\"modelUsage\":{{\"m\":{{\"inputTokens\":{n},\"costUSD\":{cost}}}}}}}"
                )
            };
            let text: Vec<String> = kinds
                .iter()
                .map(|&(k, id, n)| match k {
                    0 => cs("\"cost-state\"", json!(n as f64 / 8.0), n),
                    1 => cs("\"cost-state\"", json!(-1.0), n),
                    2 => cs(&key("cost-state", rng_next(&mut rng), false), json!(n), n),
                    3 => json!({"type":"user","message":{"role":"user","content":cs("\"cost-state\"", json!(1.0), n)}}).to_string(),
                    4 => json!({"type":"cost-state","totalCostUSD":null}).to_string(),
                    5 => {
                        let l = cs("\"cost-state\"", json!(2.5), n);
                        l[..l.len() / 2].to_owned()
                    }
                    6 => json!({"type":"user","op":"cost-state","totalCostUSD":1.0}).to_string(),
                    _ => escaped_line(k % 2, id, n, &mut rng, n % 2 == 0),
                })
                .collect();
            let mut data = text.iter().map(|l| format!("{l}\n")).collect::<String>();
            let at = cut.max(data.len() / 2);
            if at < data.len() && data.is_char_boundary(at) {
                data.truncate(at); // a cut last line
            }
            let data = data.as_bytes();
            let fast = usage_of_blocks(data, &ends, false);
            proptest::prop_assert_eq!(&fast, &usage_of_blocks(data, &ends, true), "{}", String::from_utf8_lossy(data));
            proptest::prop_assert_eq!(&fast.cli_cost, &usage_of_every_line(data).cli_cost);
            proptest::prop_assert_eq!(&fast.cli_cost, &usage_of(data).cli_cost);
        }
    }

    proptest::proptest! {
        /// The last match found forwards in growing windows is the one a
        /// backward search finds, for any start, needles that overlap
        /// themselves (`aba` in `ababa`) among them.
        #[test]
        fn the_last_match_found_forwards_is_the_backward_search_s(
            hay in proptest::collection::vec(proptest::sample::select(b"ab\"".to_vec()), 0..400),
            needle in proptest::collection::vec(proptest::sample::select(b"ab\"".to_vec()), 1..5),
            lo in 0usize..420,
        ) {
            let f = memchr::memmem::Finder::new(&needle);
            let lo = lo.min(hay.len());
            let want = memchr::memmem::rfind(&hay[lo..], &needle).map(|i| lo + i);
            proptest::prop_assert_eq!(last_forward(&f, &hay, lo), want);
        }
    }

    /// A `cost-state` line whose type is written with its `-` escaped
    /// (`"cost\u002dstate"`, the type serde reads as `cost-state`) is
    /// read, as the full parse reads it: the `-` is the one character of
    /// a key searched for that is not a letter.
    #[test]
    fn a_cost_state_with_its_dash_escaped_is_read() {
        let text = [
            line("m1", "r1", "m", 5, 1, "2026-11-01T10:00:00.000Z"),
            r#"{"type":"cost\u002dstate","totalCostUSD":0.25,"modelUsage":{}}"#.to_owned(),
        ]
        .join("\n");
        let c = usage_of(text.as_bytes()).cli_cost.expect("read");
        assert_eq!((c.total_usd, c.responses), (0.25, 1));
        assert_eq!(Some(c), usage_of_every_line(text.as_bytes()).cli_cost);
    }

    /// A pseudo-random mask (xorshift), for which letters a key escapes.
    fn rng_next(rng: &mut u64) -> u64 {
        *rng ^= *rng << 13;
        *rng ^= *rng >> 7;
        *rng ^= *rng << 17;
        *rng
    }

    /// A response streamed across midnight (one line per content block)
    /// is dated by its first line, its counts by its last (#44.1), as the
    /// full parse the byte finder is checked against says.
    #[test]
    fn a_response_is_dated_by_its_first_line() {
        let text = [
            line(
                "m1",
                "r1",
                "claude-sonnet-4-5",
                5,
                1,
                "2026-11-01T23:59:59.000Z",
            ),
            line(
                "m1",
                "r1",
                "claude-sonnet-4-5",
                5,
                90,
                "2026-11-02T00:00:01.000Z",
            ),
        ]
        .join("\n");
        let f = usage_of(text.as_bytes());
        let at = crate::store::time::parse_iso_millis("2026-11-01T23:59:59.000Z");
        assert_eq!((f.messages.len(), f.messages[0].at), (1, at));
        assert_eq!(f.messages[0].tokens.output, 90);
        assert_eq!(f.messages, full_parse(text.as_bytes()).0);
    }

    #[test]
    fn each_message_counts_once_its_last_line_winning() {
        let lines = [
            json!({"type":"user","timestamp":"2026-11-01T10:00:00.000Z","message":{"content":"hi"}}).to_string(),
            // one message, three content-block lines; output grows
            line("m1", "r1", "claude-sonnet-4-5", 1000, 5, "2026-11-01T10:00:01.000Z"),
            line("m1", "r1", "claude-sonnet-4-5", 1000, 40, "2026-11-01T10:00:02.000Z"),
            line("m1", "r1", "claude-sonnet-4-5", 1000, 80, "2026-11-01T10:00:03.000Z"),
            json!({"type":"user","message":{"content":[{"type":"tool_result","content":"x"}]}}).to_string(),
            line("m2", "r2", "claude-opus-4-5", 2000, 20, "2026-11-01T10:05:00.000Z"),
            "{broken".into(),
            json!({"type":"assistant","message":{"id":"s","model":"<synthetic>","usage":{"input_tokens":0,"output_tokens":0}}}).to_string(),
        ];
        let f = usage_of(lines.join("\n").as_bytes());
        assert_eq!(f.messages.len(), 2);
        assert_eq!(
            f.tokens(),
            Tokens {
                input: 3000,
                output: 100,
                cache_write: 20,
                cache_read: 200,
                cache_write_1h: 0,
            }
        );
        assert_eq!(f.prompts, 1);
        assert_eq!(f.last.unwrap() - f.first.unwrap(), 300_000);
        let models = f.by_model();
        assert_eq!(models[0].0, "claude-opus-4-5");
        // a resumed session's file repeats m1 (and adds m3): m1 is not counted again
        let mut set = UsageSet::default();
        let first = set.add(&f);
        assert_eq!(first.iter().map(|(_, t)| t.output).sum::<u64>(), 100);
        let resumed = usage_of(
            [
                line(
                    "m1",
                    "r1",
                    "claude-sonnet-4-5",
                    1000,
                    80,
                    "2026-11-02T10:00:00.000Z",
                ),
                line(
                    "m3",
                    "r3",
                    "claude-sonnet-4-5",
                    500,
                    7,
                    "2026-11-02T10:00:05.000Z",
                ),
            ]
            .join("\n")
            .as_bytes(),
        );
        let added = set.add(&resumed);
        assert_eq!(added.iter().map(|(_, t)| t.output).sum::<u64>(), 7);
        assert_eq!(added.iter().map(|(_, t)| t.input).sum::<u64>(), 500);
    }

    #[test]
    fn a_session_counts_its_sub_agents_once_and_never_a_link_or_fifo() {
        // the listing below loads the process's usage index, which tests
        // of the index watch: one at a time
        let _env = crate::store::usage_index::tests::env_lock();
        let d = tempfile::tempdir().unwrap();
        let dir = d.path().join("projects/-work");
        let id = "aaaaaaaa-1111-4111-8111-111111111111";
        let main = dir.join(format!("{id}.jsonl"));
        let agents = dir.join(id).join("subagents");
        std::fs::create_dir_all(&agents).unwrap();
        let prompt = json!({"type":"user","timestamp":"2026-11-01T10:00:00.000Z",
            "cwd":"/work","message":{"content":"count the files"}});
        std::fs::write(
            &main,
            [
                prompt.to_string(),
                line(
                    "m1",
                    "r1",
                    "claude-sonnet-4-5",
                    20,
                    10,
                    "2026-11-01T10:00:01.000Z",
                ),
            ]
            .join("\n"),
        )
        .unwrap();
        // the agent's two messages; the second also in a second file (the
        // last line seen wins), and later than the session's last
        std::fs::write(
            agents.join("agent-a1.jsonl"),
            [
                line(
                    "s1",
                    "q1",
                    "claude-haiku-4-5",
                    30,
                    3,
                    "2026-11-01T10:00:02.000Z",
                ),
                line(
                    "s2",
                    "q2",
                    "claude-haiku-4-5",
                    40,
                    4,
                    "2026-11-01T10:00:03.000Z",
                ),
            ]
            .join("\n"),
        )
        .unwrap();
        std::fs::write(
            agents.join("agent-a2.jsonl"),
            line(
                "s2",
                "q2",
                "claude-haiku-4-5",
                40,
                5,
                "2026-11-01T10:00:09.000Z",
            ),
        )
        .unwrap();
        std::fs::write(
            agents.join("agent-a1.meta.json"),
            r#"{"agentType":"general-purpose","description":"count"}"#,
        )
        .unwrap();
        // never read: a link out of the store, and a FIFO
        let outside = d.path().join("outside.jsonl");
        std::fs::write(
            &outside,
            line(
                "x",
                "x",
                "claude-haiku-4-5",
                1_000_000,
                1,
                "2026-11-01T10:00:04.000Z",
            ),
        )
        .unwrap();
        std::os::unix::fs::symlink(&outside, agents.join("agent-out.jsonl")).unwrap();
        let fifo = agents.join("agent-fifo.jsonl");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());

        let s = session_usage(&main).unwrap();
        assert_eq!(s.session_id, id);
        assert_eq!(s.without_subagents.tokens().input, 20, "the file alone");
        assert_eq!(file_usage(&main).unwrap(), s.without_subagents);
        let mut ids: Vec<&str> = s
            .subagents
            .iter()
            .map(|a| a.agent.agent_id.as_str())
            .collect();
        ids.sort_unstable();
        assert_eq!(ids, ["a1", "a2"]);
        let a1 = s
            .subagents
            .iter()
            .find(|a| a.agent.agent_id == "a1")
            .unwrap();
        assert_eq!(a1.agent.description.as_deref(), Some("count"));
        let mut odd: Vec<String> = s
            .skipped
            .iter()
            .map(|k| k.path.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        odd.sort();
        assert_eq!(odd, ["agent-fifo.jsonl", "agent-out.jsonl"]);
        let all = s.total();
        assert_eq!(all.messages.len(), 3, "s2 once");
        let t = all.tokens();
        assert_eq!((t.input, t.output), (20 + 30 + 40, 10 + 3 + 5));
        assert_eq!(all.prompts, 1);
        assert_eq!(all.cwd.as_deref(), Some("/work"));
        assert_eq!(all.last.unwrap() - all.first.unwrap(), 9_000);
        assert_eq!(s.messages().count(), 4, "as the files hold them");

        // the listing: the same, and the odd files named
        let store = super::super::Store::new(d.path());
        let listing = store.usage(None).unwrap();
        assert_eq!(listing.sessions.len(), 1);
        assert_eq!(listing.sessions[0].total().tokens(), t);
        assert_eq!(
            listing.sessions[0].without_subagents.prompts, 0,
            "not counted there"
        );
        assert_eq!(listing.skipped.len(), 2);
        assert_eq!(store.session_usage(&id[..8]).unwrap().total(), all);

        // a linked sub-agent folder is not followed
        std::fs::remove_dir_all(dir.join(id)).unwrap();
        std::fs::create_dir_all(d.path().join("elsewhere/subagents")).unwrap();
        std::fs::copy(&outside, d.path().join("elsewhere/subagents/agent-x.jsonl")).unwrap();
        std::os::unix::fs::symlink(d.path().join("elsewhere"), dir.join(id)).unwrap();
        let s = session_usage(&main).unwrap();
        assert!(s.subagents.is_empty() && s.skipped.is_empty());
        assert_eq!(s.total().tokens().input, 20);
    }
}
