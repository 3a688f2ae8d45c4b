//! The literals that every match of a regex holds, for the store's
//! raw-bytes prefilter ([`Pattern::Prefiltered`]), found as ripgrep and the
//! regex crate find them: `regex-syntax`'s literal extractor on the regex's
//! syntax tree. Its prefixes, its suffixes and the prefixes of each tail of
//! a top-level concatenation (an inner literal) are tried; the set whose
//! literals are rarest in transcripts is kept.

use claudio::store::{MatchFn, Pattern};
use regex_syntax::hir::literal::{ExtractKind, Extractor, Seq};
use regex_syntax::hir::{Class, Hir, HirKind};

/// The most literals in a set: beyond this the search for them is slow
/// (past the vectorised searcher's reach).
const MAX_LITERALS: usize = 64;

/// At most this many tails of a concatenation are tried (each one's
/// extraction stops after a few literal bytes).
const MAX_TAILS: usize = 256;

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
    let seqs = candidate_sets(hir);
    // the first of the best: prefixes before suffixes before inner literals
    let mut best: Option<(Chance, &Seq)> = None;
    for seq in &seqs {
        if let Some(chance) = chance(seq) {
            if best.is_none_or(|(b, _)| chance.less(&b)) {
                best = Some((chance, seq));
            }
        }
    }
    best.and_then(|(_, s)| s.literals())
        .map(|lits| lits.iter().map(|l| l.as_bytes().to_vec()).collect())
}

/// The sets of literals tried, in order of preference: the prefixes, the
/// suffixes, the prefixes of each tail of a top-level concatenation.
fn candidate_sets(hir: &Hir) -> Vec<Seq> {
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
    seqs
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

/// How often one of a set's literals occurs, the lower the better a filter:
/// the sum of each literal's chance, 2 to the minus the bits of surprise
/// its bytes carry (at most 48), so that a set found once in a million
/// bytes beats one found in every line (` the `). Counted exactly, in
/// whole numbers (no floating point, whose `exp2` and `log2` are the
/// maths library's: the program needs none): times 2^49, a sum of
/// `whole + root·√2`, the bits being whole or half. `None` for a set that
/// cannot filter (infinite, or with an empty literal) or is too big.
fn chance(seq: &Seq) -> Option<Chance> {
    let lits = seq.literals()?;
    if lits.len() > MAX_LITERALS || lits.iter().any(|l| l.as_bytes().is_empty()) {
        return None;
    }
    // none: nothing matches, a chance of 0
    let mut sum = Chance::default();
    for l in lits {
        let halves = l.as_bytes().iter().map(|b| rarity(*b));
        let halves = halves.fold(0u32, u32::saturating_add).min(2 * MAX_BITS);
        // 2^-(halves/2) × 2^49: 2^(49 - halves/2), or for an odd count
        // 2^(49 - (halves+1)/2) × √2
        if halves % 2 == 0 {
            sum.whole += 1 << (MAX_BITS + 1 - halves / 2);
        } else {
            sum.root += 1 << (MAX_BITS + 1 - halves.div_ceil(2));
        }
    }
    Some(sum)
}

/// The most bits of surprise a literal counts for.
const MAX_BITS: u32 = 48;

/// A set's chance times 2^49: `whole + root·√2` (each at most 64 × 2^49).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Chance {
    whole: u64,
    root: u64,
}

impl Chance {
    /// Whether this is the smaller chance, exactly: `a + b√2 < c + d√2`
    /// is `a - c < (d - b)√2`, decided by the signs and then the squares
    /// (below 2^113: no overflow).
    fn less(&self, other: &Chance) -> bool {
        let p = i128::from(self.whole) - i128::from(other.whole);
        let q = i128::from(other.root) - i128::from(self.root);
        match (p < 0, q < 0) {
            (true, false) => true,
            (false, true) => false,
            (false, false) => p * p < 2 * q * q,
            (true, true) => p * p > 2 * q * q,
        }
    }
}

/// About how rare a byte is in a transcript, in half bits (minus twice the
/// base-2 log of its frequency): English text, code, JSON keys, ids and
/// times.
fn rarity(b: u8) -> u32 {
    match b {
        b' ' | b'e' | b't' | b'a' | b'o' | b'i' | b'n' | b's' | b'r' | b'"' => 8,
        b'h' | b'l' | b'd' | b'c' | b'u' | b'm' | b'p' | b':' | b',' | b'0'..=b'9' => 11,
        b'f' | b'g' | b'y' | b'w' | b'b' | b'v' | b'.' | b'-' | b'_' | b'/' | b'\\' => 14,
        b'{' | b'}' | b'[' | b']' | b'(' | b')' | b'=' | b'\'' => 14,
        b'k' | b'x' | b'A'..=b'Z' => 18,
        b'j' | b'q' | b'z' => 22,
        0x80.. => 20,
        _ => 18,
    }
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

#[cfg(test)]
mod tests;
