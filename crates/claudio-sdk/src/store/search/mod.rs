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

mod extract;
mod file;
#[cfg_attr(not(feature = "archive"), allow(dead_code))]
pub(crate) mod grams;
mod literal;
mod ordered;
mod prefilter;
mod unescape;

pub use extract::MAX_HIT_LINE;
#[cfg(feature = "archive")]
pub(crate) use grams::Grams;
pub(crate) use grams::Needs;

use super::error::StoreResult;
use super::info::SessionInfo;
use super::list::{project_folders, Candidate};
use super::Store;
use file::search_file;
use prefilter::Finder;
use serde::Serialize;
use std::ops::{ControlFlow, Range};
use std::path::PathBuf;
use std::sync::Arc;
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
        // what a transcript must hold to match: an archived one whose
        // grams filter lacks it is not decompressed
        let needs = Needs::of(&opts.pattern);
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
        ordered::in_order(
            dated.len(),
            |i| search_file(&dated[i].1, opts, &finder, needs.as_ref()),
            |found| {
                if let Some(p) = found.problem {
                    summary.unreadable.push(p);
                }
                if let Some(h) = found.hits {
                    summary.sessions += 1;
                    let full = opts.limit.is_some_and(|l| summary.sessions >= l);
                    if on_session(*h).is_break() || full {
                        return ControlFlow::Break(());
                    }
                }
                ControlFlow::Continue(())
            },
        );
        Ok(summary)
    }
}

/// What searching one file gave: its hits, and what could not be searched.
pub(super) struct Found {
    pub(super) hits: Option<Box<SessionHits>>,
    pub(super) problem: Option<(PathBuf, String)>,
}

/// The grams filter of a transcript, read line by line as a search reads
/// it (a line too long to be read gives a filter that knows nothing).
#[cfg_attr(not(feature = "archive"), allow(dead_code))]
pub(crate) fn grams_of(t: super::lines::Transcript<'_>) -> StoreResult<grams::Grams> {
    let mut set = grams::GramSet::default();
    let mut text = String::new();
    let passed = t.blocks(|block| {
        for (_, line) in block.lines() {
            unescape::unescape_line(line, &mut text);
            set.add(&text);
        }
        ControlFlow::Continue(())
    })?;
    if passed.long_lines > 0 {
        set.read_whole();
    }
    Ok(set.finish())
}

impl Needs {
    /// What `p` needs of a transcript; `None` when nothing is known (then
    /// every transcript is read).
    pub(crate) fn of(p: &Pattern) -> Option<Needs> {
        let alternatives = match p {
            Pattern::Literal { text, .. } => vec![grams::needed(text)],
            Pattern::Prefiltered { any_of, .. } => {
                // none: the caller says nothing matches; read anyway
                if any_of.is_empty() {
                    return None;
                }
                let mut alts = any_of
                    .iter()
                    .map(|l| std::str::from_utf8(l).ok().map(grams::needed))
                    .collect::<Option<Vec<_>>>()?;
                alts.sort_unstable();
                alts.dedup();
                alts
            }
            Pattern::Custom(_) | Pattern::Scan(_) => return None,
        };
        // an alternative without a gram may be anywhere
        if alternatives.iter().any(Vec::is_empty) {
            return None;
        }
        Some(Needs(alternatives))
    }
}
