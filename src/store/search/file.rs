//! Searching one transcript.

use super::extract::hits_in_entry;
use super::prefilter::{lines_in, Finder};
use super::{Found, SearchOptions, SessionHits};
use crate::store::error::StoreError;
use crate::store::info::{scan_file, Scanned};
use crate::store::lines::{Transcript, MAX_LINE};
use crate::store::list::Candidate;
use serde_json::Value;
use std::ops::ControlFlow;

/// Search one transcript.
pub(super) fn search_file(c: &Candidate, opts: &SearchOptions, finder: &Finder) -> Found {
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
pub(super) fn unreadable_reason(e: &StoreError) -> String {
    match e {
        StoreError::Io { source, .. } => source.to_string(),
        StoreError::NotAFile(_) => "not a regular file".to_owned(),
        other => other.to_string(),
    }
}
