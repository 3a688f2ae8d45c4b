//! What an archived transcript may hold, as a filter written when it is
//! archived, so that a search decompresses only the transcripts that may
//! match (as search engines pass over documents by their index).
//!
//! A gram is four characters in a row of a transcript line with its JSON
//! escapes undone ([`unescape_line`](super::unescape::unescape_line): every string's text is in it,
//! whole), each character with its case folded (the smallest of its simple
//! case folding class, the folding a caseless search uses: `k`, `K` and
//! the Kelvin sign `K` are one). Only grams of four letters or digits are
//! kept, and not those of hexadecimal digits alone (ids and hashes): a
//! gram with anything else is never looked for either. The grams are kept
//! in a Bloom filter of about [`BITS_PER_GRAM`] bits each.
//!
//! A search needs of a transcript the grams of what every match holds: the
//! literal's (each of its lines: a tool's strings are searched joined by
//! newlines, so a match's line lies inside one string), or one of a
//! regex's required literals. A transcript whose filter lacks one of them
//! cannot match and is not read; one that holds them all (or a false
//! positive) is searched as before. A pattern of which nothing is known
//! (a custom matcher, a literal without a gram) reads every transcript.

use super::literal::fold_class;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// The version of how grams are made and kept: a filter of another
/// version is not believed (the transcript is read whole).
pub(crate) const GRAMS_VERSION: u32 = 1;

/// Bits of the filter per distinct gram: about 5 % false positives for a
/// single gram, far fewer for a word of several.
const BITS_PER_GRAM: usize = 6;

/// The largest filter, in bits (128 KiB): a transcript with more grams
/// than this holds at six bits each has more false positives.
const MAX_BITS: usize = 1 << 20;

/// `c` with its case folded: the smallest character of its simple case
/// folding class, the same for each character of the class.
pub(crate) fn fold(c: char) -> char {
    if c.is_ascii() {
        // `k` and `s` have the Kelvin sign and the long s in their
        // classes, both above ASCII: the upper case is the smallest
        return c.to_ascii_uppercase();
    }
    thread_local! {
        static FOLDED: RefCell<HashMap<char, char>> = RefCell::new(HashMap::new());
    }
    FOLDED.with(|m| {
        *m.borrow_mut()
            .entry(c)
            .or_insert_with(|| fold_class(c).into_iter().min().unwrap_or(c))
    })
}

/// Whether a gram of these (folded) characters is kept: letters and
/// digits, and not hexadecimal digits alone.
fn kept(g: &[char; 4]) -> bool {
    g.iter().all(|c| c.is_alphanumeric())
        && !g
            .iter()
            .all(|c| c.is_ascii_digit() || ('A'..='F').contains(c))
}

fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

fn gram_hash(g: &[char; 4]) -> u64 {
    let a = u64::from(g[0]) | u64::from(g[1]) << 21 | u64::from(g[2]) << 42;
    mix(a ^ mix(u64::from(g[3]) ^ 0x9e37_79b9_7f4a_7c15))
}

/// The kept grams of `text`, each once or more.
fn each_gram(text: &str, mut f: impl FnMut(u64)) {
    let mut g = ['\0'; 4];
    let mut run = 0usize;
    for c in text.chars() {
        let c = fold(c);
        if !c.is_alphanumeric() {
            run = 0;
            continue;
        }
        g.copy_within(1..4, 0);
        g[3] = c;
        run += 1;
        if run >= 4 && kept(&g) {
            f(gram_hash(&g));
        }
    }
}

/// A hasher for values that are hashes already.
#[derive(Default)]
struct Ident(u64);

impl Hasher for Ident {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// The grams of a transcript, gathered line by line.
#[derive(Default)]
pub(crate) struct GramSet {
    set: HashSet<u64, BuildHasherDefault<Ident>>,
    /// A line that was not read (too long): no filter can be made.
    whole: bool,
}

impl GramSet {
    /// Add the grams of a line with its escapes undone.
    pub(crate) fn add(&mut self, text: &str) {
        each_gram(text, |h| {
            self.set.insert(h);
        });
    }

    /// Say that the transcript must be read whole (a line was passed
    /// over unread).
    pub(crate) fn read_whole(&mut self) {
        self.whole = true;
    }

    /// The filter (one that knows nothing when the transcript must be
    /// read whole).
    pub(crate) fn finish(self) -> Grams {
        if self.whole {
            return Grams::default();
        }
        let n = self.set.len();
        let bits = (n * BITS_PER_GRAM).clamp(64, MAX_BITS).next_multiple_of(64);
        let k = ((bits as f64 / n.max(1) as f64) * std::f64::consts::LN_2).round() as u32;
        let k = k.clamp(1, 8);
        let mut words = vec![0u64; bits / 64];
        for h in self.set {
            for (w, m) in probes(k, words.len(), h) {
                words[w] |= m;
            }
        }
        Grams { k, bits: words }
    }
}

/// The word and mask of each of the `k` bits of the gram `h` in a filter
/// of `words` words.
fn probes(k: u32, words: usize, h: u64) -> impl Iterator<Item = (usize, u64)> {
    let n = (words * 64) as u64;
    let a = mix(h);
    let b = mix(h ^ 0x5851_f42d_4c95_7f2d) | 1;
    (0..u64::from(k)).filter(move |_| n > 0).map(move |i| {
        let bit = a.wrapping_add(i.wrapping_mul(b)) % n;
        ((bit / 64) as usize, 1u64 << (bit % 64))
    })
}

/// A Bloom filter of a transcript's grams. With no bits (`k` 0): nothing
/// is known, every search reads the transcript.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Grams {
    k: u32,
    bits: Vec<u64>,
}

impl Grams {
    fn has(&self, h: u64) -> bool {
        probes(self.k, self.bits.len(), h).all(|(w, m)| self.bits[w] & m != 0)
    }

    /// Whether the transcript may hold a match of a pattern that needs
    /// `needs`: every gram of one of its alternatives.
    pub(crate) fn may_hold(&self, needs: &Needs) -> bool {
        if self.k == 0 || self.bits.is_empty() {
            return true;
        }
        needs.0.iter().any(|all| all.iter().all(|&h| self.has(h)))
    }

    /// The filter as stored: the version, `k`, the number of words, the
    /// words (little-endian).
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(16 + self.bits.len() * 8);
        out.extend_from_slice(&GRAMS_VERSION.to_le_bytes());
        out.extend_from_slice(&self.k.to_le_bytes());
        out.extend_from_slice(&(self.bits.len() as u64).to_le_bytes());
        for w in &self.bits {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out
    }

    /// [`Grams::to_bytes`] undone; `None` for another version or a
    /// malformed one.
    pub(crate) fn from_bytes(b: &[u8]) -> Option<Grams> {
        let version = u32::from_le_bytes(b.get(0..4)?.try_into().ok()?);
        let k = u32::from_le_bytes(b.get(4..8)?.try_into().ok()?);
        let words = u64::from_le_bytes(b.get(8..16)?.try_into().ok()?);
        let rest = b.get(16..)?;
        if version != GRAMS_VERSION || k > 16 || (rest.len() as u64) != words.checked_mul(8)? {
            return None;
        }
        Some(Grams {
            k,
            bits: rest
                .chunks_exact(8)
                .map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")))
                .collect(),
        })
    }
}

/// What a transcript must hold for a pattern to match in it: every gram
/// of one of the alternatives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Needs(pub(super) Vec<Vec<u64>>);

/// The grams of every line of `text` (a match's lines lie each inside one
/// string of the transcript), sorted, each once.
pub(super) fn needed(text: &str) -> Vec<u64> {
    let mut out = Vec::new();
    for piece in text.split('\n') {
        each_gram(piece, |h| out.push(h));
    }
    out.sort_unstable();
    out.dedup();
    out
}

#[cfg(test)]
#[path = "grams_tests.rs"]
pub(crate) mod tests;
