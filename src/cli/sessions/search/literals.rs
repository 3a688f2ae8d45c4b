//! The literals that every match of a regex holds, for the store's
//! raw-bytes prefilter ([`Pattern::Prefiltered`]), found as ripgrep and the
//! regex crate find them: `regex-syntax`'s literal extractor on the regex's
//! syntax tree. Its prefixes, its suffixes and the prefixes of each tail of
//! a top-level concatenation (an inner literal) are tried; the set that
//! lets the fewest lines through is kept.
//!
//! tests/search.rs includes this file too (it uses only the library and
//! `regex-syntax`), to check the prefilter against a search without one.

use claudio::store::{MatchFn, Pattern};
use regex_syntax::hir::literal::{ExtractKind, Extractor, Seq};
use regex_syntax::hir::{Class, Hir, HirKind};

/// The most literals in a set: beyond this the search for them is slow
/// (past the vectorised searcher's reach).
const MAX_LITERALS: usize = 64;

/// At most this many tails of a concatenation are tried.
const MAX_TAILS: usize = 32;

/// How a regex is searched, from its syntax tree (parsed with the regex's
/// own options; `None` when that failed, then every line is parsed):
/// - with literals that every match holds, only the lines whose raw bytes
///   hold one are parsed;
/// - a candidate line is first matched with its escapes undone when that is
///   sound: no look-around (`^`, `$`, `\b`), and, when tools are searched,
///   no newline in a match (their strings are searched joined by newlines).
pub fn regex_pattern(find: MatchFn, hir: Option<&Hir>, tools: bool) -> Pattern {
    let Some(hir) = hir else {
        return Pattern::Custom(find);
    };
    let scan = hir.properties().look_set().is_empty() && !(tools && may_match_newline(hir));
    match required_literals(hir) {
        Some(any_of) => Pattern::Prefiltered {
            matcher: find,
            any_of,
            scan,
        },
        None if scan => Pattern::Scan(find),
        None => Pattern::Custom(find),
    }
}

/// Byte strings one of which every match of `hir` contains (none: the
/// regex matches nothing), or `None` when no good set was found.
pub fn required_literals(hir: &Hir) -> Option<Vec<Vec<u8>>> {
    let mut seqs = vec![prefixes(hir), suffixes(hir)];
    let mut top = hir;
    while let HirKind::Capture(c) = top.kind() {
        top = &c.sub;
    }
    // a match of a concatenation holds a match of each of its tails
    if let HirKind::Concat(subs) = top.kind() {
        for i in 1..subs.len().min(MAX_TAILS) {
            seqs.push(prefixes(&Hir::concat(subs[i..].to_vec())));
        }
    }
    seqs.iter()
        .filter_map(|s| Some((score(s)?, s)))
        .max_by_key(|(score, _)| *score)
        .and_then(|(_, s)| s.literals())
        .map(|lits| lits.iter().map(|l| l.as_bytes().to_vec()).collect())
}

/// Literals that every match starts with.
fn prefixes(hir: &Hir) -> Seq {
    let mut seq = Extractor::new().kind(ExtractKind::Prefix).extract(hir);
    seq.optimize_for_prefix_by_preference();
    seq
}

/// Literals that every match ends with.
fn suffixes(hir: &Hir) -> Seq {
    let mut seq = Extractor::new().kind(ExtractKind::Suffix).extract(hir);
    seq.optimize_for_suffix_by_preference();
    seq
}

/// How well a set filters, higher is better: long literals, few of them.
/// `None` for a set that cannot filter (infinite, or with an empty
/// literal) or is too big.
fn score(seq: &Seq) -> Option<i64> {
    let lits = seq.literals()?;
    if lits.is_empty() {
        return Some(i64::MAX); // nothing matches
    }
    let shortest = lits.iter().map(|l| l.as_bytes().len()).min()?;
    if shortest == 0 || lits.len() > MAX_LITERALS {
        return None;
    }
    // a chance of 1/256 per byte, up to 5 bytes; times how many there are
    let bits = lits.len().next_power_of_two().trailing_zeros() as i64;
    Some(8 * shortest.min(5) as i64 - bits)
}

/// Whether a match of `hir` may hold a newline.
pub fn may_match_newline(hir: &Hir) -> bool {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => false,
        HirKind::Literal(l) => l.0.contains(&b'\n'),
        HirKind::Class(Class::Unicode(c)) => c
            .ranges()
            .iter()
            .any(|r| r.start() <= '\n' && '\n' <= r.end()),
        HirKind::Class(Class::Bytes(c)) => c
            .ranges()
            .iter()
            .any(|r| r.start() <= b'\n' && b'\n' <= r.end()),
        HirKind::Repetition(r) => may_match_newline(&r.sub),
        HirKind::Capture(c) => may_match_newline(&c.sub),
        HirKind::Concat(subs) | HirKind::Alternation(subs) => subs.iter().any(may_match_newline),
    }
}
