//! `claudio sessions search PATTERN`: the store's search, printed as found.

use super::io::Output;
use super::io::{Io, JsonRows, SessionsOutcome};
use crate::cli::common::exit::{usage_error, Exit};
use crate::cli::sanitize::Sanitizer;
use crate::cli::term::text::{cut_width, flat, width};
use crate::cli::term::time::relative_time;
use anyhow::Context;
use clap::Args;
use claudio::store::{HitKind, MatchFn, Pattern, SearchHit, SearchOptions, SessionHits, Store};
use regex_automata::{meta, nfa::thompson::WhichCaptures, util::syntax};
use std::io::Write;
use std::ops::{ControlFlow, Range};
use std::path::PathBuf;
use std::sync::Arc;

mod literals;

/// Arguments of `sessions search`.
#[derive(Debug, Args)]
pub struct SearchArgs {
    /// What to look for: a literal string (smart case: case matters only
    /// when it has an upper-case letter), or a regex with --regex.
    pub pattern: String,
    /// Search every project's sessions, not only this directory's.
    #[arg(short, long)]
    pub all: bool,
    /// This directory's sessions (and its git worktrees') instead of the current one.
    #[arg(long, value_name = "DIR", conflicts_with = "all")]
    pub cwd: Option<PathBuf>,
    /// The pattern is a regular expression (Rust regex syntax).
    #[arg(short = 'e', long)]
    pub regex: bool,
    /// Case always matters.
    #[arg(short = 's', long)]
    pub case_sensitive: bool,
    /// Case never matters.
    #[arg(short = 'i', long, conflicts_with = "case_sensitive")]
    pub ignore_case: bool,
    /// Also search tool inputs and outputs.
    #[arg(long)]
    pub tools: bool,
    /// Only sessions written to since then: 30m, 12h, 7d, 2w, or a date (2026-11-01).
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// At most this many sessions.
    #[arg(short = 'n', long, value_name = "N")]
    pub limit: Option<usize>,
    /// At most this many hits per session.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub hits: usize,
    /// text, json (one array of sessions) or ndjson (a session a line, as found).
    #[arg(short = 'o', long, value_enum, value_name = "FORMAT", default_value_t)]
    pub output: Output,
    /// The old spelling of `-o ndjson`.
    #[arg(long, hide = true, conflicts_with = "output")]
    pub json: bool,
}

/// `search --help`'s notes.
pub(super) const HELP: &str = "\
-o ndjson prints a session a line as it is found, -o json one array of them.
Each has sessionId, summary, cwd, lastModified, hits (each {kind: prompt,
answer, tool_input or tool_output; line; ranges [{start, end}], byte offsets
in line; uuid; timestamp}), more (it has more hits than shown), and
fromArchive for a session only claudio's archive holds.

Exit codes: 0 found, 1 no match (grep's), 2 usage (a bad regex).";

impl SearchArgs {
    /// What to print.
    pub fn output(&self) -> Output {
        self.output.or_old_json(self.json, Output::Ndjson)
    }
}

/// The most a regex's compiled form (its NFA) may take, and the most its
/// lazy DFA may grow to while searching. A pattern past the first is refused
/// with a usage error; past the second, the search goes on more slowly in
/// bounded memory.
const REGEX_NFA_LIMIT: usize = 10 << 20;
const REGEX_DFA_CACHE: usize = 8 << 20;

/// A regex for finding match ranges only. It is compiled without capture
/// groups (a group costs memory in every state of the matcher: `(.)`
/// repeated 2000 times took gigabytes), and its size is bounded.
pub(super) fn build_regex(pattern: &str, ignore_case: bool) -> anyhow::Result<meta::Regex> {
    let config = meta::Config::new()
        .which_captures(WhichCaptures::Implicit)
        .nfa_size_limit(Some(REGEX_NFA_LIMIT))
        .onepass_size_limit(Some(REGEX_NFA_LIMIT))
        .dfa_size_limit(Some(REGEX_NFA_LIMIT))
        .hybrid_cache_capacity(REGEX_DFA_CACHE);
    meta::Builder::new()
        .configure(config)
        .syntax(syntax_config(ignore_case))
        .build(pattern)
        .map_err(|e| {
            let why = match (e.size_limit(), e.syntax_error()) {
                (Some(limit), _) => format!(
                    "it needs more than {} MiB once compiled; make it simpler",
                    limit >> 20
                ),
                // the parser's own message points at the mistake
                (None, Some(syntax)) => format!("\n{syntax}"),
                (None, None) => e.to_string(),
            };
            usage_error!(
                "not a valid regex: {}: {why}",
                Sanitizer::clean(&crate::cli::term::text::first_line(pattern, 60))
            )
        })
}

/// The regex's syntax options.
fn syntax_config(ignore_case: bool) -> syntax::Config {
    syntax::Config::new()
        .case_insensitive(ignore_case)
        // `^` and `$` are the ends of a line, as in grep
        .multi_line(true)
}

fn pattern(a: &SearchArgs) -> anyhow::Result<Pattern> {
    let has_upper = a.pattern.chars().any(char::is_uppercase);
    let ignore_case = a.ignore_case || (!a.case_sensitive && !has_upper);
    if a.regex {
        let re = build_regex(&a.pattern, ignore_case)?;
        let find: MatchFn = Arc::new(move |t: &str| re.find_iter(t).map(|m| m.range()).collect());
        // its literals, from its syntax tree parsed as the regex was
        let hir = syntax::parse_with(&a.pattern, &syntax_config(ignore_case)).ok();
        return Ok(literals::regex_pattern(find, hir.as_ref(), a.tools));
    }
    if a.pattern.is_empty() {
        return Err(usage_error!("the pattern is empty"));
    }
    Ok(Pattern::Literal {
        text: a.pattern.clone(),
        ignore_case,
    })
}

pub(super) fn search(store: &Store, a: SearchArgs, io: &mut Io) -> anyhow::Result<SessionsOutcome> {
    let mut opts = SearchOptions::new(pattern(&a)?)
        .tools(a.tools)
        .hits_per_session(a.hits);
    if !a.all {
        let dir = a
            .cwd
            .clone()
            .or_else(|| io.cwd.clone())
            .context("cannot tell the current directory; pass --cwd or --all")?;
        opts = opts.dir(dir);
    }
    if let Some(s) = &a.since {
        opts = opts.since(super::since::parse_since(s, io.now_ms)?);
    }
    if let Some(n) = a.limit {
        opts = opts.limit(n);
    }
    let output = a.output();
    let mut rows = JsonRows::new(output);
    let mut failed: Option<std::io::Error> = None;
    let summary = store.search(&opts, |s| {
        let written = if output.is_json() {
            rows.push(io, &json_row(&s)).and_then(|_| io.out.flush())
        } else {
            let text = render(&s, a.all, io);
            io.out
                .write_all(text.as_bytes())
                .and_then(|_| io.out.flush())
        };
        match written {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => {
                failed = Some(e);
                ControlFlow::Break(())
            }
        }
    })?;
    if failed.is_none() && output.is_json() {
        failed = rows.finish(io).err();
    }
    if let Some(e) = failed {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            return Ok(SessionsOutcome::Done(Exit::Success));
        }
        return Err(e.into());
    }
    for (path, why) in summary.unreadable.iter().take(5) {
        let msg = format!(
            "could not read {}: {why}",
            crate::cli::common::folder::shown(path)
        );
        io.warn(&msg);
    }
    io.out.flush()?;
    // no match is exit 1, as grep says it, in every format (NDJSON prints
    // nothing, JSON an empty array)
    if summary.sessions == 0 {
        if !output.is_json() {
            let msg = format!(
                "no matches in {} session{}{}",
                summary.files,
                if summary.files == 1 { "" } else { "s" },
                if a.all { "" } else { " here (try --all)" }
            );
            io.warn(&msg);
        }
        return Ok(SessionsOutcome::Done(Exit::Failure));
    }
    Ok(SessionsOutcome::Done(Exit::Success))
}

/// A session's hits as `-o json`/`ndjson` give them, one object each.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct SearchRow<'a> {
    session_id: &'a str,
    summary: &'a str,
    cwd: &'a Option<String>,
    last_modified: i64,
    hits: &'a [claudio::store::SearchHit],
    more: bool,
    /// Only when true.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    from_archive: bool,
}

/// A session's hits as one line of JSON.
fn json_row(s: &SessionHits) -> String {
    let row = SearchRow {
        session_id: &s.info.session_id,
        summary: &s.info.summary,
        cwd: &s.info.cwd,
        last_modified: s.info.last_modified,
        hits: &s.hits,
        more: s.more,
        from_archive: s.info.from_archive,
    };
    serde_json::to_string(&row).expect("a search row is plain data")
}

fn kind_label(k: HitKind) -> &'static str {
    match k {
        HitKind::Prompt => "you",
        HitKind::Answer => "claude",
        HitKind::ToolInput => "tool",
        HitKind::ToolOutput => "output",
        _ => "?",
    }
}

/// A session's block: its line (id, when, title; the directory with --all),
/// then its hits, each cut to the terminal around the first match.
fn render(s: &SessionHits, all: bool, io: &Io) -> String {
    let st = io.out_style;
    let cols = match io.size {
        Some((c, _)) if io.out_tty => c,
        _ => usize::MAX,
    };
    let id: String = s.info.session_id.chars().take(8).collect();
    let when = relative_time(io.now_ms, s.info.last_modified);
    let mut head = format!("{}  {}  ", st.cyan(&id), st.dim(&when));
    let used = width(&id) + width(&when) + 4;
    let mut title = flat(&s.info.title);
    if s.info.from_archive {
        title = format!("(archived) {title}");
    }
    if all {
        if let Some(cwd) = &s.info.cwd {
            title = format!("{title}  ({})", flat(cwd));
        }
    }
    head.push_str(&st.bold(&cut_width(&title, cols.saturating_sub(used).max(10))));
    let mut out = format!("{head}\n");
    for h in &s.hits {
        let label = format!("{:<6}", kind_label(h.kind));
        let room = if cols == usize::MAX {
            usize::MAX // a pipe: whole lines
        } else {
            cols.saturating_sub(10).max(20)
        };
        out.push_str(&format!(
            "  {} {}\n",
            st.dim(&label),
            highlight(h, room, io)
        ));
    }
    if s.more {
        out.push_str(&format!("  {}\n", st.dim("… more")));
    }
    out.push('\n');
    out
}

/// The hit's line, sanitized, its matches highlighted, cut to `room`
/// columns around the first match.
fn highlight(h: &SearchHit, room: usize, io: &Io) -> String {
    let st = io.out_style;
    let segments = split(&h.line, &h.ranges);
    // columns before the first match that fit: keep the end of that text
    let first_match = segments.iter().position(|(_, m)| *m).unwrap_or(0);
    let mut out = String::new();
    let mut left = room;
    if room != usize::MAX {
        let lead: String = segments[..first_match]
            .iter()
            .map(|(t, _)| t.as_str())
            .collect();
        let keep = (room / 3).max(8);
        if width(&lead) > keep {
            let tail = tail_cols(&lead, keep.saturating_sub(1));
            out.push('…');
            out.push_str(&tail);
            left = left.saturating_sub(width(&tail) + 1);
        } else {
            out.push_str(&lead);
            left = left.saturating_sub(width(&lead));
        }
    } else {
        for (t, _) in &segments[..first_match] {
            out.push_str(t);
        }
    }
    for (t, is_match) in &segments[first_match..] {
        if left == 0 {
            break;
        }
        let w = width(t);
        let shown = if w > left {
            cut_width(t, left)
        } else {
            t.clone()
        };
        left = left.saturating_sub(width(&shown));
        if *is_match {
            out.push_str(&st.yellow(&st.bold(&shown)));
        } else {
            out.push_str(&shown);
        }
    }
    out
}

/// The line in pieces, each sanitized (flat), and whether it matched.
fn split(line: &str, ranges: &[Range<usize>]) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut at = 0;
    for r in ranges {
        if r.start < at
            || r.end > line.len()
            || !line.is_char_boundary(r.start)
            || !line.is_char_boundary(r.end)
        {
            continue;
        }
        if r.start > at {
            out.push((flat(&line[at..r.start]), false));
        }
        out.push((flat(&line[r.clone()]), true));
        at = r.end;
    }
    if at < line.len() {
        out.push((flat(&line[at..]), false));
    }
    out
}

/// The last `cols` columns of `s`.
fn tail_cols(s: &str, cols: usize) -> String {
    let mut w = 0;
    let mut start = s.len();
    for (i, c) in s.char_indices().rev() {
        let cw = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if w + cw > cols {
            break;
        }
        w += cw;
        start = i;
    }
    Sanitizer::clean(&s[start..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_split_around_matches_and_stay_inert() {
        let s = split("a \u{1b}[2Jneedle b needle", &[6..12, 15..21]);
        assert_eq!(
            s,
            vec![
                ("a ".to_owned(), false),
                ("needle".to_owned(), true),
                (" b ".to_owned(), false),
                ("needle".to_owned(), true)
            ]
        );
    }
}
