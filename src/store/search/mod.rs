//! Searching inside past conversations: the person's prompts and the model's
//! answers (and, on request, tool inputs and outputs).
//!
//! Brute force, made fast: each transcript is read in blocks and a literal
//! pattern is first looked for in the raw bytes, in the form JSON gives it
//! (a quote in the pattern is `\"` on disk). Only the lines where it occurs
//! are parsed, and the match is then confirmed in the decoded text, in the
//! fields that are searched. A regex does the same with the literals that
//! each of its matches holds ([`Pattern::Prefiltered`], found by the
//! program as ripgrep finds them), all looked for at once; a custom matcher
//! without them has no such shortcut: every message line is decoded. Files
//! are searched on a few threads; sessions come back newest first, each as
//! soon as it and every newer one are done. Nothing is cached, so nothing
//! is ever stale.

use super::error::{StoreError, StoreResult};
use super::info::{scan_file, Scanned, SessionInfo};
use super::lines::{Block, Transcript, MAX_LINE};
use super::list::{project_folders, Candidate};
use super::Store;
use serde::Serialize;
use serde_json::Value;
use std::borrow::Cow;
use std::ops::{ControlFlow, Range};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::UNIX_EPOCH;

/// Finds matches in a piece of text: byte ranges, in order.
pub type MatchFn = Arc<dyn Fn(&str) -> Vec<Range<usize>> + Send + Sync>;

/// What to look for.
///
/// ```
/// use claudio::store::Pattern;
/// use std::sync::Arc;
/// let smart = Pattern::smart("tokio"); // any case; "Tokio" would match case
/// // a matcher of one's own: byte ranges of the matches, in order
/// let marks = Pattern::Custom(Arc::new(|text: &str| {
///     let mut found: Vec<_> = ["TODO", "FIXME"]
///         .iter()
///         .flat_map(|w| text.match_indices(w).map(|(i, m)| i..i + m.len()))
///         .collect();
///     found.sort_by_key(|r| r.start);
///     found
/// }));
/// if let Pattern::Custom(find) = &marks {
///     assert_eq!(find("a TODO, a FIXME"), [2..6, 10..15]);
/// }
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub enum Pattern {
    /// A literal string; `ignore_case` folds case (Unicode simple folding).
    Literal {
        /// The text to find.
        text: String,
        /// Match regardless of case.
        ignore_case: bool,
    },
    /// Any matcher (a regex, say). Every message line is parsed to run it.
    Custom(MatchFn),
    /// A matcher that may also be run on a whole transcript line with its
    /// JSON escapes undone, as a prefilter: only lines where it finds
    /// something are parsed. Sound when a match inside a field's text is
    /// also a match in that line, which holds for regexes without anchors
    /// or word boundaries (`^`, `$`, `\b`, `\B`, `\A`, `\z`) that, when
    /// tools are searched, cannot match a newline: a tool's input and output
    /// are searched as their strings joined by newlines, in an order the
    /// line need not show.
    Scan(MatchFn),
    /// A matcher with the literals that each of its matches contains: as
    /// ripgrep does with a regex, the raw bytes of each block are searched
    /// for the literals (in the form JSON gives them on disk) and only the
    /// lines that hold one are parsed and matched. A line with a `\u` or
    /// `\/` escape is always a candidate, as is one with invalid UTF-8 when a
    /// literal has bytes of U+FFFD.
    ///
    /// `any_of` are bytes of the decoded text, every case variant that can
    /// match included (a regex's required literals, as `regex-syntax`'s
    /// literal extractor gives them); an empty list says that nothing can
    /// match. A literal with a newline or another control character is
    /// looked for by its longest part without one.
    ///
    /// ```
    /// use claudio::store::Pattern;
    /// use std::sync::Arc;
    /// // "error" followed by a number: every match holds "error"
    /// let p = Pattern::Prefiltered {
    ///     matcher: Arc::new(|text: &str| {
    ///         let mut found = Vec::new();
    ///         for (i, _) in text.match_indices("error") {
    ///             let digits = text[i + 5..].bytes().take_while(u8::is_ascii_digit).count();
    ///             if digits > 0 {
    ///                 found.push(i..i + 5 + digits);
    ///             }
    ///         }
    ///         found
    ///     }),
    ///     any_of: vec![b"error".to_vec()],
    ///     scan: true,
    /// };
    /// ```
    Prefiltered {
        /// Finds the matches in a field's decoded text.
        matcher: MatchFn,
        /// Every match contains one of these.
        any_of: Vec<Vec<u8>>,
        /// Also run `matcher` on each candidate line with its escapes
        /// undone before parsing it, under the rule of [`Pattern::Scan`].
        scan: bool,
    },
}

impl std::fmt::Debug for Pattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Pattern::Literal { text, ignore_case } => f
                .debug_struct("Literal")
                .field("text", text)
                .field("ignore_case", ignore_case)
                .finish(),
            Pattern::Custom(_) => f.write_str("Custom(..)"),
            Pattern::Scan(_) => f.write_str("Scan(..)"),
            Pattern::Prefiltered { any_of, scan, .. } => f
                .debug_struct("Prefiltered")
                .field(
                    "any_of",
                    &any_of
                        .iter()
                        .map(|l| String::from_utf8_lossy(l))
                        .collect::<Vec<_>>(),
                )
                .field("scan", scan)
                .finish_non_exhaustive(),
        }
    }
}

impl Pattern {
    /// A literal with smart case: case matters only when the pattern has
    /// an upper-case letter.
    ///
    /// ```
    /// use claudio::store::Pattern;
    /// assert!(matches!(Pattern::smart("tokio"), Pattern::Literal { ignore_case: true, .. }));
    /// assert!(matches!(Pattern::smart("Tokio"), Pattern::Literal { ignore_case: false, .. }));
    /// ```
    pub fn smart(text: impl Into<String>) -> Pattern {
        let text = text.into();
        let ignore_case = !text.chars().any(char::is_uppercase);
        Pattern::Literal { text, ignore_case }
    }
}

/// Where a hit is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum HitKind {
    /// Something the person typed.
    Prompt,
    /// The model's answer text.
    Answer,
    /// A tool call's input (with `tools`).
    ToolInput,
    /// A tool's output (with `tools`).
    ToolOutput,
}

/// One matching line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct SearchHit {
    /// What the line is part of.
    pub kind: HitKind,
    /// The line of text that matched (decoded, as written; not sanitized:
    /// the caller decides how to show it). A line longer than
    /// [`MAX_HIT_LINE`] bytes is cut to that much around its first match,
    /// each cut marked with `…`.
    pub line: String,
    /// Where in `line` the pattern matched (byte ranges).
    pub ranges: Vec<Range<usize>>,
    /// The transcript entry's uuid.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    /// The entry's time (ISO 8601, as recorded).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
}

/// A session with hits.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct SessionHits {
    /// The session, as a listing shows it.
    pub info: SessionInfo,
    /// Its first hits, in transcript order (at most `hits_per_session`).
    pub hits: Vec<SearchHit>,
    /// Whether there were more hits than returned.
    pub more: bool,
}

/// What to search, and how much to return.
///
/// ```
/// use claudio::store::{Pattern, SearchOptions};
/// use std::time::{Duration, SystemTime, UNIX_EPOCH};
/// let week_ago = SystemTime::now() - Duration::from_secs(7 * 24 * 3600);
/// let since = week_ago.duration_since(UNIX_EPOCH)?.as_millis() as i64;
/// let opts = SearchOptions::new(Pattern::smart("migration"))
///     .dir("/home/me/project")
///     .tools(true) // also in tool calls and their output
///     .since(since)
///     .limit(10)
///     .hits_per_session(5);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct SearchOptions {
    /// What to look for.
    pub pattern: Pattern,
    /// The sessions of this working directory (and its git worktrees);
    /// `None`: every project.
    pub dir: Option<PathBuf>,
    /// Also tool inputs and outputs.
    pub tools: bool,
    /// Only sessions written to at or after this time (ms since the epoch).
    pub since: Option<i64>,
    /// At most this many sessions.
    pub limit: Option<usize>,
    /// At most this many hits per session (default 3).
    pub hits_per_session: usize,
}

impl SearchOptions {
    /// Search every project for `pattern`.
    pub fn new(pattern: Pattern) -> SearchOptions {
        SearchOptions {
            pattern,
            dir: None,
            tools: false,
            since: None,
            limit: None,
            hits_per_session: 3,
        }
    }

    /// Only the sessions of `dir` (and its git worktrees).
    pub fn dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.dir = Some(dir.into());
        self
    }

    /// Also search tool inputs and outputs.
    pub fn tools(mut self, yes: bool) -> Self {
        self.tools = yes;
        self
    }

    /// Only sessions modified at or after `ms` (since the epoch).
    pub fn since(mut self, ms: i64) -> Self {
        self.since = Some(ms);
        self
    }

    /// At most `n` sessions.
    pub fn limit(mut self, n: usize) -> Self {
        self.limit = Some(n);
        self
    }

    /// At most `n` hits per session (at least one).
    pub fn hits_per_session(mut self, n: usize) -> Self {
        self.hits_per_session = n.max(1);
        self
    }
}

/// How a search went, beside its hits.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SearchSummary {
    /// Transcripts looked into.
    pub files: usize,
    /// Sessions with hits that were returned.
    pub sessions: usize,
    /// Transcripts that could not be read (named, with the reason).
    pub unreadable: Vec<(PathBuf, String)>,
}

impl Store {
    /// Search past conversations. Sessions with hits are passed to
    /// `on_session` newest first, each as soon as it is known;
    /// `ControlFlow::Break` stops the search. A damaged transcript is
    /// searched as far as it can be read; one that cannot be opened is
    /// named in the summary.
    ///
    /// ```no_run
    /// use claudio::store::{Pattern, SearchOptions, Store};
    /// use std::ops::ControlFlow;
    /// let store = Store::from_env()?;
    /// let opts = SearchOptions::new(Pattern::smart("tokio")).limit(5).hits_per_session(2);
    /// let summary = store.search(&opts, |session| {
    ///     println!("{} {}", session.info.session_id, session.info.summary);
    ///     for hit in &session.hits {
    ///         println!("  {:?}: {}", hit.kind, hit.line);
    ///     }
    ///     ControlFlow::Continue(())
    /// })?;
    /// println!("{} transcripts searched", summary.files);
    /// # Ok::<(), claudio::store::StoreError>(())
    /// ```
    pub fn search(
        &self,
        opts: &SearchOptions,
        mut on_session: impl FnMut(SessionHits) -> ControlFlow<()>,
    ) -> StoreResult<SearchSummary> {
        let projects = self.projects_dir();
        if opts.dir.is_none() && projects.exists() {
            // the folder itself must be readable; a missing one has nothing
            project_folders(&projects)?;
        }
        let cands = self.candidates(opts.dir.as_deref(), true)?;
        let (cands, unreadable) = super::list::split_unreadable(cands);
        let mut dated: Vec<(i64, Candidate)> = cands
            .into_iter()
            .filter_map(|c| {
                // the name's own time: a link is not followed (and is
                // reported as unreadable when it is opened)
                let m = std::fs::symlink_metadata(&c.path).ok()?;
                let ms = m
                    .modified()
                    .ok()?
                    .duration_since(UNIX_EPOCH)
                    .ok()?
                    .as_millis() as i64;
                Some((ms, c))
            })
            .filter(|(ms, _)| opts.since.is_none_or(|s| *ms >= s))
            .collect();
        dated.sort_by(|a, b| {
            b.0.cmp(&a.0)
                .then_with(|| b.1.session_id.cmp(&a.1.session_id))
        });
        let finder = Finder::new(&opts.pattern);
        let mut summary = SearchSummary {
            files: dated.len(),
            unreadable: unreadable
                .into_iter()
                .map(|s| {
                    let why = match s.reason {
                        super::info::SkipReason::Unreadable(e) => e,
                        other => other.to_string(),
                    };
                    (s.path, why)
                })
                .collect(),
            ..SearchSummary::default()
        };
        let results = Ordered::new(dated.len());
        let stop = AtomicBool::new(false);
        let next = AtomicUsize::new(0);
        let workers = std::thread::available_parallelism()
            .map_or(2, |n| n.get())
            .clamp(1, 8)
            .min(dated.len().max(1));
        std::thread::scope(|s| {
            for _ in 0..workers {
                s.spawn(|| loop {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some((_, c)) = dated.get(i) else { break };
                    results.put(i, search_file(c, opts, &finder));
                });
            }
            let mut at = 0;
            while let Some(found) = results.next(&mut at) {
                if let Some(p) = found.problem {
                    summary.unreadable.push(p);
                }
                if let Some(h) = found.hits {
                    summary.sessions += 1;
                    let full = opts.limit.is_some_and(|l| summary.sessions >= l);
                    if on_session(*h).is_break() || full {
                        break;
                    }
                }
            }
            stop.store(true, Ordering::Relaxed);
            results.close();
        });
        Ok(summary)
    }
}

/// What searching one file gave: its hits, and what could not be searched.
struct Found {
    hits: Option<Box<SessionHits>>,
    problem: Option<(PathBuf, String)>,
}

/// Results filled in any order, taken in order.
struct Ordered {
    slots: Mutex<Slots>,
    ready: Condvar,
}

struct Slots {
    found: Vec<Option<Found>>,
    /// Every result before this one is in.
    done: usize,
    closed: bool,
    /// The taker sleeps: it is woken only when a result with something in
    /// it (or the last one) is ready in order. A wake-up for each file, most
    /// of them without hits, cost a tenth of a fast search.
    asleep: bool,
}

impl Found {
    fn is_empty(&self) -> bool {
        self.hits.is_none() && self.problem.is_none()
    }
}

impl Ordered {
    fn new(n: usize) -> Ordered {
        Ordered {
            slots: Mutex::new(Slots {
                found: (0..n).map(|_| None).collect(),
                done: 0,
                closed: false,
                asleep: false,
            }),
            ready: Condvar::new(),
        }
    }

    fn put(&self, i: usize, f: Found) {
        let mut g = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        g.found[i] = Some(f);
        let from = g.done;
        while g.found.get(g.done).is_some_and(Option::is_some) {
            g.done += 1;
        }
        let news = g.found[from..g.done]
            .iter()
            .any(|f| f.as_ref().is_some_and(|f| !f.is_empty()));
        if g.asleep && (news || g.done == g.found.len()) {
            self.ready.notify_all();
        }
    }

    /// The next result with hits or a problem, in order, from `*at` on;
    /// `None` at the end or when closed.
    fn next(&self, at: &mut usize) -> Option<Found> {
        let mut g = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            while *at < g.done {
                let f = g.found[*at].take();
                *at += 1;
                if let Some(f) = f.filter(|f| !f.is_empty()) {
                    return Some(f);
                }
            }
            if *at >= g.found.len() || g.closed {
                return None;
            }
            g.asleep = true;
            g = self.ready.wait(g).unwrap_or_else(|e| e.into_inner());
            g.asleep = false;
        }
    }

    fn close(&self) {
        let mut g = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        g.closed = true;
        self.ready.notify_all();
    }
}

/// The raw-bytes prefilter (a literal's, or a set of a regex's literals)
/// and the decoded-text matcher.
struct Finder {
    /// The literal as it appears inside a JSON string on disk.
    raw: Option<Vec<u8>>,
    /// Compare the raw form ignoring ASCII case.
    raw_ignore_case: bool,
    /// Where to look first: a part of `raw` that case does not change
    /// (searched as is, fast), else its rarest byte (both cases).
    anchor: Anchor,
    /// The JSON forms of literals one of which every match contains, and
    /// the escapes `\u` and `\/`.
    set: Option<aho_corasick::AhoCorasick>,
    /// A line with invalid UTF-8 is a candidate too: it is decoded with
    /// U+FFFD in place of the bad bytes, and a literal has bytes of U+FFFD.
    invalid_utf8: bool,
    /// Run the matcher on unescaped lines first.
    scan: bool,
    matcher: MatchFn,
}

enum Anchor {
    /// `raw` itself (case matters).
    Whole(memchr::memmem::Finder<'static>),
    /// A caseless run of `raw` starting at this offset.
    Run(usize, memchr::memmem::Finder<'static>),
    /// The byte at this offset, either case.
    Byte(usize),
}

impl Finder {
    fn new(p: &Pattern) -> Finder {
        match p {
            Pattern::Literal { text, ignore_case } => {
                // a tool's strings are searched joined by newlines: a
                // pattern with one is looked for by its longest line, which
                // lies inside one string
                let piece = text.split('\n').max_by_key(|l| l.len()).unwrap_or("");
                let escaped = serde_json::to_string(piece).unwrap_or_default();
                let raw = escaped.as_bytes()[1..escaped.len().saturating_sub(1).max(1)].to_vec();
                // folding case of non-ASCII letters changes their bytes:
                // then no prefilter, every line is decoded
                let foldable = !*ignore_case || text.is_ascii();
                let anchor = if !*ignore_case {
                    Anchor::Whole(memchr::memmem::Finder::new(&raw).into_owned())
                } else {
                    match caseless_run(&raw) {
                        Some(r) if r.len() >= 3 => {
                            Anchor::Run(r.start, memchr::memmem::Finder::new(&raw[r]).into_owned())
                        }
                        _ => Anchor::Byte(rarest(&raw)),
                    }
                };
                let needle = text.clone();
                let ic = *ignore_case;
                let raw = (foldable && !raw.is_empty()).then_some(raw);
                Finder {
                    invalid_utf8: raw.as_deref().is_some_and(touches_fffd),
                    raw,
                    raw_ignore_case: ic,
                    anchor,
                    set: None,
                    scan: false,
                    matcher: Arc::new(move |t: &str| find_literal(t, &needle, ic)),
                }
            }
            Pattern::Custom(m) | Pattern::Scan(m) => Finder {
                raw: None,
                raw_ignore_case: false,
                anchor: Anchor::Byte(0),
                set: None,
                invalid_utf8: false,
                scan: matches!(p, Pattern::Scan(_)),
                matcher: m.clone(),
            },
            Pattern::Prefiltered {
                matcher,
                any_of,
                scan,
            } => {
                // one literal without a usable form: no prefilter
                let forms: Option<Vec<Vec<u8>>> = any_of.iter().map(|l| raw_form(l)).collect();
                let set = forms.as_ref().and_then(|forms| {
                    let mut forms = forms.clone();
                    forms.sort_unstable();
                    forms.dedup();
                    // the escapes that make a line a candidate, in the same
                    // pass (two more passes over each block took as long)
                    forms.extend([b"\\u".to_vec(), b"\\/".to_vec()]);
                    // leftmost-first: the vectorised searcher (Teddy) is
                    // only used with it; any match finds its line
                    aho_corasick::AhoCorasick::builder()
                        .match_kind(aho_corasick::MatchKind::LeftmostFirst)
                        .build(&forms)
                        .ok()
                });
                Finder {
                    raw: None,
                    raw_ignore_case: false,
                    anchor: Anchor::Byte(0),
                    invalid_utf8: set.is_some() && forms.iter().flatten().any(|f| touches_fffd(f)),
                    set,
                    scan: *scan,
                    matcher: matcher.clone(),
                }
            }
        }
    }

    /// Whether some lines can be passed over unparsed.
    fn filters(&self) -> bool {
        self.raw.is_some() || self.set.is_some()
    }

    /// The next position in `hay` at or after `from` where the raw form occurs.
    fn next_raw(&self, hay: &[u8], from: usize) -> Option<usize> {
        if let Some(set) = &self.set {
            return set.find(&hay[from..]).map(|m| from + m.start());
        }
        let raw = self.raw.as_deref()?;
        let fits = |start: usize| {
            start + raw.len() <= hay.len()
                && (!self.raw_ignore_case && &hay[start..start + raw.len()] == raw
                    || self.raw_ignore_case
                        && hay[start..start + raw.len()].eq_ignore_ascii_case(raw))
        };
        match &self.anchor {
            Anchor::Whole(f) => f.find(&hay[from..]).map(|i| i + from),
            Anchor::Run(k, f) => {
                let mut at = from + k;
                while at <= hay.len() {
                    let i = f.find(&hay[at..])? + at;
                    if fits(i - k) {
                        return Some(i - k);
                    }
                    at = i + 1;
                }
                None
            }
            Anchor::Byte(k) => {
                let b = raw[*k];
                let (lo, up) = (b.to_ascii_lowercase(), b.to_ascii_uppercase());
                let mut at = from + k;
                while at < hay.len() {
                    let i = memchr::memchr2(lo, up, &hay[at..])? + at;
                    if fits(i - k) {
                        return Some(i - k);
                    }
                    at = i + 1;
                }
                None
            }
        }
    }
}

/// The form a piece of decoded text has on disk, in a line without `\u` or
/// `\/` escapes (those lines are candidates anyway): `"` and `\` escaped,
/// the rest as is. A control character (a newline, a tab) can be written in
/// more than one way, and a tool's strings are searched joined by newlines:
/// the longest part without one is used. `None` when no part is left.
fn raw_form(text: &[u8]) -> Option<Vec<u8>> {
    let piece = text
        .split(|b| *b < 0x20)
        .max_by_key(|p| p.len())
        .filter(|p| !p.is_empty())?;
    let mut out = Vec::with_capacity(piece.len() + 4);
    for &b in piece {
        if b == b'"' || b == b'\\' {
            out.push(b'\\');
        }
        out.push(b);
    }
    Some(out)
}

/// Whether an occurrence of `lit` in decoded text could share bytes with a
/// U+FFFD (`EF BF BD`) that stands for invalid UTF-8 in the raw line: it
/// holds the whole character, or starts with its end or ends with its start.
fn touches_fffd(lit: &[u8]) -> bool {
    const R: &[u8] = "\u{FFFD}".as_bytes();
    memchr::memmem::find(lit, R).is_some()
        || lit.starts_with(&R[2..])
        || lit.starts_with(&R[1..])
        || lit.ends_with(&R[..1])
        || lit.ends_with(&R[..2])
}

/// The longest run of bytes that have no case (digits, punctuation).
fn caseless_run(raw: &[u8]) -> Option<Range<usize>> {
    let mut best: Option<Range<usize>> = None;
    let mut start = None;
    for (i, b) in raw.iter().chain([&b'a']).enumerate() {
        if b.is_ascii_alphabetic() {
            if let Some(s) = start.take() {
                if best.as_ref().is_none_or(|r: &Range<usize>| i - s > r.len()) {
                    best = Some(s..i);
                }
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    best
}

/// The index of the byte least likely to occur in a transcript.
fn rarest(raw: &[u8]) -> usize {
    // rough frequency of bytes in transcripts, commonest first: letters,
    // JSON punctuation, digits
    const COMMON: &[u8] = b"\" e:,taoinsrhldcu{}mpfgywbv.-_0123456789k/x\\jqz";
    let rank = |b: u8| {
        let l = b.to_ascii_lowercase();
        COMMON.iter().position(|&c| c == l).unwrap_or(usize::MAX)
    };
    (0..raw.len())
        .max_by_key(|&i| (rank(raw[i]), std::cmp::Reverse(i)))
        .unwrap_or(0)
}

/// Every match of `needle` in `text`: byte ranges, not overlapping.
fn find_literal(text: &str, needle: &str, ignore_case: bool) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    if needle.is_empty() {
        return out;
    }
    if !ignore_case {
        let mut from = 0;
        while let Some(i) = memchr::memmem::find(&text.as_bytes()[from..], needle.as_bytes()) {
            out.push(from + i..from + i + needle.len());
            from += i + needle.len();
        }
        return out;
    }
    let folded: Vec<char> = needle.chars().flat_map(char::to_lowercase).collect();
    let mut i = 0;
    while i < text.len() {
        let mut pat = folded.iter();
        let mut end = i;
        let mut ok = true;
        let mut want = pat.next();
        for (off, c) in text[i..].char_indices() {
            let Some(_) = want else { break };
            for lc in c.to_lowercase() {
                if want == Some(&lc) {
                    want = pat.next();
                } else {
                    ok = false;
                    break;
                }
            }
            if !ok {
                break;
            }
            end = i + off + c.len_utf8();
        }
        if ok && want.is_none() {
            out.push(i..end);
            i = end;
        } else {
            i += text[i..].chars().next().map_or(1, char::len_utf8);
        }
    }
    out
}

/// Search one transcript.
fn search_file(c: &Candidate, opts: &SearchOptions, finder: &Finder) -> Found {
    let mut hits = Vec::new();
    let mut more = false;
    let limit = opts.hits_per_session.max(1);
    let mut on_line = |line: &[u8]| {
        // invalid UTF-8 is read as the listing reads it (U+FFFD), not skipped
        let parsed =
            serde_json::from_slice::<Value>(line).or_else(|e| match std::str::from_utf8(line) {
                Ok(_) => Err(e),
                Err(_) => serde_json::from_str::<Value>(&String::from_utf8_lossy(line)),
            });
        let Ok(v) = parsed else {
            return ControlFlow::Continue(()); // a damaged line: skip it
        };
        for h in hits_in_entry(&v, opts.tools, &finder.matcher) {
            if hits.len() == limit {
                more = true;
                return ControlFlow::Break(());
            }
            hits.push(h);
        }
        ControlFlow::Continue(())
    };
    // the prefilter runs on whole blocks; only the lines it finds are parsed
    let read = Transcript::open(&c.path)
        .and_then(|t| t.blocks(|block| lines_in(block, finder, &mut on_line)));
    let (mut problem, long_lines) = match read {
        Err(e) => (Some((c.path.clone(), unreadable_reason(&e))), 0),
        Ok(passed) => (None, passed.long_lines),
    };
    if long_lines > 0 {
        problem = Some((
            c.path.clone(),
            format!(
                "{long_lines} line{} longer than {} MiB not searched",
                if long_lines == 1 { "" } else { "s" },
                MAX_LINE >> 20
            ),
        ));
    }
    if hits.is_empty() {
        return Found {
            hits: None,
            problem,
        };
    }
    let hits = match scan_file(&c.path, &c.session_id, None, true) {
        Scanned::Session(info) => Some(Box::new(SessionHits {
            info: *info,
            hits,
            more,
        })),
        // a sub-agent's transcript, or one continued in another file
        _ => None,
    };
    Found { hits, problem }
}

/// Why a transcript could not be searched, without its path (the summary
/// names it beside the reason).
fn unreadable_reason(e: &StoreError) -> String {
    match e {
        StoreError::Io { source, .. } => source.to_string(),
        StoreError::NotAFile(_) => "not a regular file".to_owned(),
        other => other.to_string(),
    }
}

/// The candidate lines of a block of whole lines.
fn lines_in(
    block: Block<'_>,
    finder: &Finder,
    f: &mut impl FnMut(&[u8]) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let mut text = String::new();
    // with `scan`, a line where the matcher finds nothing is passed over
    let mut scanned = |line: &[u8]| {
        if !finder.scan {
            return true;
        }
        unescape_line(line, &mut text);
        !(finder.matcher)(&text).is_empty()
    };
    if !finder.filters() || finder.invalid_utf8 && simdutf8::basic::from_utf8(block.bytes).is_err()
    {
        for (_, line) in block.lines() {
            if !line.is_empty() && scanned(line) {
                f(line)?;
            }
        }
        return ControlFlow::Continue(());
    }
    let bytes = block.bytes;
    let mut from = 0;
    // a line with a `\u` or `\/` escape may hold the pattern in a form the
    // raw bytes do not show (a tool that re-wrote the file with escaped
    // non-ASCII, `<`, `/`): it is a candidate too, parsed and checked
    let escaped = |from: usize| {
        let u = ESCAPED_U.find(&bytes[from..]);
        let s = ESCAPED_SOLIDUS.find(&bytes[from..]);
        match (u, s) {
            (Some(a), Some(b)) => Some(from + a.min(b)),
            (a, b) => a.or(b).map(|i| from + i),
        }
    };
    // the set has them already
    let mut next_escape = if finder.set.is_some() {
        None
    } else {
        escaped(0)
    };
    while from < bytes.len() {
        let raw = finder.next_raw(bytes, from);
        if next_escape.is_some_and(|e| e < from) {
            next_escape = escaped(from);
        }
        let at = match (raw, next_escape) {
            (Some(r), Some(e)) => r.min(e),
            (Some(r), None) => r,
            (None, Some(e)) => e,
            (None, None) => break,
        };
        let line = block.line_at(at);
        from = line.end + 1;
        if scanned(&bytes[line.clone()]) {
            f(&bytes[line])?;
        }
    }
    ControlFlow::Continue(())
}

/// `\u` in a line's raw bytes: some character was written escaped.
static ESCAPED_U: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\\u"));
/// `\/`: a solidus written escaped (JSON allows it; some tools do it).
static ESCAPED_SOLIDUS: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\\/"));

/// A transcript line with its JSON string escapes undone (`\n` a newline,
/// `\"` a quote, `\uXXXX` the character): every string's text is in it,
/// whole. Invalid UTF-8 and lone surrogates become U+FFFD.
fn unescape_line(line: &[u8], out: &mut String) {
    out.clear();
    let text = String::from_utf8_lossy(line);
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let Some(k) = memchr::memchr(b'\\', &b[i..]) else {
            out.push_str(&text[i..]);
            break;
        };
        out.push_str(&text[i..i + k]);
        i += k;
        let Some(&e) = b.get(i + 1) else {
            break;
        };
        i += 2;
        match e {
            b'n' => out.push('\n'),
            b't' => out.push('\t'),
            b'r' => out.push('\r'),
            b'b' => out.push('\u{8}'),
            b'f' => out.push('\u{c}'),
            b'u' => {
                let hex = |at: usize| {
                    text.get(at..at + 4)
                        .and_then(|h| u32::from_str_radix(h, 16).ok())
                };
                let Some(hi) = hex(i) else {
                    out.push('\u{FFFD}');
                    continue;
                };
                i += 4;
                let c = if (0xD800..0xDC00).contains(&hi)
                    && b.get(i) == Some(&b'\\')
                    && b.get(i + 1) == Some(&b'u')
                {
                    match hex(i + 2) {
                        Some(lo) if (0xDC00..0xE000).contains(&lo) => {
                            i += 6;
                            char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))
                        }
                        _ => None,
                    }
                } else {
                    char::from_u32(hi)
                };
                out.push(c.unwrap_or('\u{FFFD}'));
            }
            other => out.push(other as char),
        }
    }
}

/// The texts of one transcript entry that are searched, with their kind.
fn texts_of(v: &Value, tools: bool) -> Vec<(HitKind, Cow<'_, str>)> {
    let mut out = Vec::new();
    let kind = v.get("type").and_then(Value::as_str).unwrap_or("");
    if v.get("isMeta").and_then(Value::as_bool) == Some(true) {
        return out;
    }
    let content = v.get("message").and_then(|m| m.get("content"));
    match (kind, content) {
        ("user", Some(Value::String(s))) => out.push((HitKind::Prompt, Cow::Borrowed(s.as_str()))),
        ("user", Some(Value::Array(blocks))) => {
            for b in blocks {
                match b.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        if let Some(t) = b.get("text").and_then(Value::as_str) {
                            out.push((HitKind::Prompt, Cow::Borrowed(t)));
                        }
                    }
                    Some("tool_result") if tools => {
                        out.push((
                            HitKind::ToolOutput,
                            Cow::Owned(result_text(b.get("content"))),
                        ));
                    }
                    _ => {}
                }
            }
        }
        ("assistant", Some(Value::Array(blocks))) => {
            for b in blocks {
                match b.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        if let Some(t) = b.get("text").and_then(Value::as_str) {
                            out.push((HitKind::Answer, Cow::Borrowed(t)));
                        }
                    }
                    Some("tool_use") if tools => {
                        let name = b.get("name").and_then(Value::as_str).unwrap_or("");
                        let mut text = name.to_owned();
                        strings_of(b.get("input").unwrap_or(&Value::Null), &mut text);
                        out.push((HitKind::ToolInput, Cow::Owned(text)));
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
    out
}

/// The string values of a tool input, a line each.
fn strings_of(v: &Value, out: &mut String) {
    match v {
        Value::String(s) => {
            out.push('\n');
            out.push_str(s);
        }
        Value::Array(a) => a.iter().for_each(|x| strings_of(x, out)),
        Value::Object(o) => o.values().for_each(|x| strings_of(x, out)),
        _ => {}
    }
}

/// A tool result's text, as the protocol reads it (the string, or its text
/// blocks joined by newlines).
fn result_text(content: Option<&Value>) -> String {
    content
        .and_then(|c| serde_json::from_value::<crate::protocol::MessageContent>(c.clone()).ok())
        .map(|c| c.text())
        .unwrap_or_default()
}

/// The longest [`SearchHit::line`], in bytes: a longer line is cut to this
/// much around its first match, and the cuts are marked with `…`.
pub const MAX_HIT_LINE: usize = 2048;

/// A hit's line, cut to [`MAX_HIT_LINE`] around its first match (the
/// ranges moved with it, and cut to what is kept).
fn window(line: &str, ranges: Vec<Range<usize>>) -> (String, Vec<Range<usize>>) {
    if line.len() <= MAX_HIT_LINE {
        return (line.to_owned(), ranges);
    }
    let first = ranges.first().map_or(0, |r| r.start);
    let floor = |mut i: usize| {
        while !line.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let start = floor(first.saturating_sub(MAX_HIT_LINE / 4));
    let end = floor((start + MAX_HIT_LINE).min(line.len()));
    let mut out = String::with_capacity(end - start + 8);
    let shift = if start > 0 {
        out.push('…');
        '…'.len_utf8()
    } else {
        0
    };
    out.push_str(&line[start..end]);
    if end < line.len() {
        out.push('…');
    }
    let ranges = ranges
        .into_iter()
        .filter(|r| r.start >= start && r.start < end)
        .map(|r| r.start - start + shift..r.end.min(end) - start + shift)
        .collect();
    (out, ranges)
}

fn hits_in_entry(v: &Value, tools: bool, matcher: &MatchFn) -> Vec<SearchHit> {
    let mut hits = Vec::new();
    let field = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
    for (kind, text) in texts_of(v, tools) {
        // the whole text is matched (a pattern may span lines); a hit is
        // the line where a match starts, its matches clipped to that line
        let mut lines: Vec<(Range<usize>, Vec<Range<usize>>)> = Vec::new();
        for m in matcher(&text) {
            if m.start >= text.len() {
                continue;
            }
            let ls = text[..m.start].rfind('\n').map_or(0, |i| i + 1);
            let le = text[m.start..]
                .find('\n')
                .map_or(text.len(), |i| m.start + i);
            let r = m.start - ls..m.end.min(le).max(m.start) - ls;
            match lines.last_mut() {
                Some((line, ranges)) if line.start == ls => ranges.push(r),
                _ => lines.push((ls..le, vec![r])),
            }
        }
        for (line, ranges) in lines {
            let (line, ranges) = window(&text[line], ranges);
            hits.push(SearchHit {
                kind,
                line,
                ranges,
                uuid: field("uuid"),
                timestamp: field("timestamp"),
            });
        }
    }
    hits
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    #[allow(clippy::single_range_in_vec_init)]
    fn long_hit_lines_are_cut_around_the_first_match() {
        let short = "a needle here";
        assert_eq!(window(short, vec![2..8]), (short.to_owned(), vec![2..8]));
        let line = format!("{}needle{}", "é".repeat(5000), "x".repeat(5000));
        let at = line.find("needle").unwrap();
        let (cut, ranges) = window(&line, vec![at..at + 6]);
        assert!(
            cut.len() <= MAX_HIT_LINE + 2 * '…'.len_utf8(),
            "{}",
            cut.len()
        );
        assert!(cut.starts_with('…') && cut.ends_with('…'));
        assert_eq!(&cut[ranges[0].clone()], "needle");
        // a match at the start: nothing cut before it
        let line = format!("needle{}", "x".repeat(10_000));
        let (cut, ranges) = window(&line, vec![0..6]);
        assert!(cut.starts_with("needle") && cut.ends_with('…'));
        assert_eq!(ranges, vec![0..6]);
    }

    #[test]
    fn literals_fold_case_and_keep_offsets() {
        assert_eq!(
            find_literal("a Rust crab, rust", "rust", true),
            vec![2..6, 13..17]
        );
        assert_eq!(find_literal("a Rust crab, rust", "Rust", false), vec![2..6]);
        assert_eq!(
            find_literal("ÉCOLE école", "école", true),
            vec![0..6, 7..13]
        );
        assert!(find_literal("abc", "", true).is_empty());
    }

    #[test]
    fn the_raw_form_is_the_json_one() {
        // a newline is left out: a tool's strings are searched joined by
        // newlines, so the longest line of the pattern is looked for
        let f = Finder::new(&Pattern::smart("say \"hi\"\nnow"));
        assert_eq!(f.raw.as_deref(), Some(br#"say \"hi\""#.as_slice()));
        let block = br#"{"a":"x"}
{"text":"they SAY \"HI\"\nNOW ok"}
"#;
        let mut lines = Vec::new();
        let block = Block {
            bytes: block,
            offset: 0,
        };
        let _ = lines_in(block, &f, &mut |l: &[u8]| {
            lines.push(l.to_vec());
            ControlFlow::Continue(())
        });
        assert_eq!(
            lines,
            vec![br#"{"text":"they SAY \"HI\"\nNOW ok"}"#.to_vec()]
        );
        // the anchors: a caseless run, the rarest byte
        assert_eq!(caseless_run(b"quokka-rare-7731"), Some(11..16));
        assert!(matches!(
            Finder::new(&Pattern::smart("quokka-rare-7731")).anchor,
            Anchor::Run(11, _)
        ));
        assert!(matches!(
            Finder::new(&Pattern::smart("zebra")).anchor,
            Anchor::Byte(0)
        ));
        // a non-ASCII pattern folded: no prefilter
        assert!(Finder::new(&Pattern::smart("école")).raw.is_none());
        assert!(Finder::new(&Pattern::smart("École")).raw.is_some());
    }

    #[test]
    fn unescaped_lines_hold_every_string_whole() {
        let v = json!({"a":"line one\nsay \"hi\" \\ é 😀 \u{1b}","b":["x\ty"]});
        let line = serde_json::to_string(&v).unwrap();
        let mut out = String::new();
        unescape_line(line.as_bytes(), &mut out);
        assert!(
            out.contains("line one\nsay \"hi\" \\ é 😀 \u{1b}"),
            "{out:?}"
        );
        assert!(out.contains("x\ty"), "{out:?}");
        unescape_line(br#"{"s":"\ud83d\ude00 \ud800 \u12"}"#, &mut out);
        assert_eq!(out, "{\"s\":\"😀 \u{FFFD} \u{FFFD}12\"}");
    }

    #[test]
    fn entries_give_prompts_answers_and_tools() {
        let m: MatchFn = Arc::new(|t: &str| find_literal(t, "needle", true));
        let user = json!({"type":"user","uuid":"u","timestamp":"t","message":{"content":"line one\nthe NEEDLE here"}});
        let h = hits_in_entry(&user, false, &m);
        assert_eq!(h.len(), 1);
        assert_eq!(h[0].kind, HitKind::Prompt);
        assert_eq!(h[0].line, "the NEEDLE here");
        assert_eq!(h[0].ranges, vec![4..10]);
        assert_eq!(h[0].uuid.as_deref(), Some("u"));
        let tool = json!({"type":"assistant","message":{"content":[{"type":"tool_use","name":"Bash","input":{"command":"grep needle"}},{"type":"text","text":"a needle"}]}});
        assert_eq!(hits_in_entry(&tool, false, &m).len(), 1);
        let both = hits_in_entry(&tool, true, &m);
        assert_eq!(both.len(), 2);
        assert_eq!(both[0].kind, HitKind::ToolInput);
        let result = json!({"type":"user","message":{"content":[{"type":"tool_result","content":"found needle"}]}});
        assert!(hits_in_entry(&result, false, &m).is_empty());
        assert_eq!(
            hits_in_entry(&result, true, &m)[0].kind,
            HitKind::ToolOutput
        );
        let meta = json!({"type":"user","isMeta":true,"message":{"content":"needle"}});
        assert!(hits_in_entry(&meta, true, &m).is_empty());
        // a pattern across lines: the hit is the line it starts on
        let two: MatchFn = Arc::new(|t: &str| find_literal(t, "end\nnext", false));
        let v = json!({"type":"user","message":{"content":"first\nthe end\nnext line"}});
        let h = hits_in_entry(&v, false, &two);
        assert_eq!(h.len(), 1);
        assert_eq!(h[0].line, "the end");
        assert_eq!(h[0].ranges, vec![4..7]);
    }
}
