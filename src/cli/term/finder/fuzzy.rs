//! The finder's filter, as fzf users expect it: the query is words, each
//! found in a field as a subsequence (`wrt hku` finds "Write me a haiku"),
//! every word somewhere; case ignored unless the query has a capital
//! (smart case). Matches rank by quality: rows where every word is found
//! as typed (a substring) first, then by how tight and how word-aligned
//! the letters fall; ties keep the order they came in (newest first).
//!
//! Hand-written rather than nucleo-matcher: the finder matches a few short
//! fields (titles and prompts are cut to 200 characters) of at most some
//! thousands of sessions, and needs one rule nucleo does not offer (a
//! substring outranks any scattered match). The scoring follows fzf's
//! first algorithm: the earliest end of a match, then the tightest start
//! before it, then points per letter with bonuses for word starts and runs.
//!
//! Nothing is allocated per row: the rows' text is folded to lower case
//! once ([`Folded`]), the query once per keystroke ([`Query`]).

/// Points for each letter matched.
const LETTER: i32 = 16;
/// A letter at the start of a word (after a space, `-`, `/`, …).
const WORD_START: i32 = 8;
/// A letter right after the one matched before it.
const RUN: i32 = 6;
/// The first letter skipped between two matched ones, then each further.
const GAP_START: i32 = -3;
const GAP_MORE: i32 = -1;

/// The most words of a query used for matching; the rest is ignored.
pub const MAX_WORDS: usize = 8;
/// The most characters of a query used for matching.
pub const MAX_CHARS: usize = 256;

/// The part of `query` used for matching (at most [`MAX_WORDS`] words and
/// [`MAX_CHARS`] characters, cut before the first word past them), and
/// whether anything was cut. Typing more onto a query only ever extends
/// this part or leaves it as it was, so the rows a longer query matches
/// are among those the shorter one did.
pub fn capped(query: &str) -> (&str, bool) {
    let mut end = query
        .char_indices()
        .nth(MAX_CHARS)
        .map_or(query.len(), |(at, _)| at);
    let mut words = 0;
    let mut in_word = false;
    for (at, c) in query[..end].char_indices() {
        if c.is_whitespace() {
            in_word = false;
        } else if !in_word {
            in_word = true;
            words += 1;
            if words > MAX_WORDS {
                end = at;
                break;
            }
        }
    }
    let cut = end < query.len() && !query[end..].trim().is_empty();
    (&query[..end], cut)
}

/// Folded to lower case letter by letter (never by context, so a
/// substring's folding is a substring of the folding).
pub fn fold(s: &str) -> String {
    s.chars().flat_map(char::to_lowercase).collect()
}

/// One word of the query.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Term {
    /// As compared: folded, unless the query is case sensitive.
    text: String,
    chars: Vec<char>,
}

/// A query, split into its words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    terms: Vec<Term>,
    /// A capital was typed: letters compare as typed.
    exact_case: bool,
}

/// How well a row matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Score {
    /// How many words were found as typed (a substring).
    pub substrings: usize,
    /// The letters' points, summed over the words.
    pub points: i32,
}

impl Query {
    /// The query's words, only those [`capped`] keeps.
    pub fn new(query: &str) -> Query {
        let (query, _) = capped(query);
        let exact_case = query.chars().any(char::is_uppercase);
        let terms = query
            .split_whitespace()
            .map(|w| {
                let text = if exact_case { w.to_owned() } else { fold(w) };
                Term {
                    chars: text.chars().collect(),
                    text,
                }
            })
            .collect();
        Query { terms, exact_case }
    }

    /// Whether every word is in one of `fields` (each given as it is,
    /// folded, and whether a scattered match counts: an id's letters are
    /// found together or not at all), and how well; `None` when one is not.
    /// Stops at the first word that is in no field.
    pub fn score<'a>(
        &self,
        fields: impl Iterator<Item = (&'a str, &'a str, bool)> + Clone,
    ) -> Option<Score> {
        let mut total = Score {
            substrings: 0,
            points: 0,
        };
        for term in &self.terms {
            let mut best: Option<(bool, i32)> = None;
            for (plain, folded, scattered) in fields.clone() {
                let hay = if self.exact_case { plain } else { folded };
                if let Some(found) = term_score(hay, term, scattered) {
                    if best.is_none_or(|b| found > b) {
                        best = Some(found);
                    }
                }
            }
            let (substring, points) = best?;
            total.substrings += usize::from(substring);
            total.points += points;
        }
        Some(total)
    }
}

/// Whether the letter after `prev` starts a word.
fn word_start(prev: Option<char>) -> bool {
    prev.is_none_or(|p| !p.is_alphanumeric())
}

/// `term` in `hay`: as a substring (`true`) or a subsequence, and its
/// points.
fn term_score(hay: &str, term: &Term, scattered: bool) -> Option<(bool, i32)> {
    if term.chars.is_empty() {
        return Some((true, 0));
    }
    // as typed: the first occurrence at a word start, else the first
    let mut exact: Option<i32> = None;
    for (at, _) in hay.match_indices(term.text.as_str()) {
        let starts = word_start(hay[..at].chars().next_back());
        let n = term.chars.len() as i32;
        let points = n * LETTER + (n - 1) * RUN + if starts { 2 * WORD_START } else { 0 };
        exact = Some(exact.map_or(points, |e| e.max(points)));
        if starts {
            break;
        }
    }
    if let Some(points) = exact {
        return Some((true, points));
    }
    if !scattered {
        return None;
    }
    fuzzy(hay, &term.chars).map(|p| (false, p))
}

/// fzf's first algorithm: the earliest end of the letters in order, the
/// latest start that still reaches it, and the points of that stretch.
fn fuzzy(hay: &str, term: &[char]) -> Option<i32> {
    // forward: where the last letter is first reached
    let mut want = term.iter();
    let mut next = want.next();
    let mut end = None;
    for (at, c) in hay.char_indices() {
        if Some(&c) == next {
            next = want.next();
            if next.is_none() {
                end = Some(at + c.len_utf8());
                break;
            }
        }
    }
    let end = end?;
    // backward from there: the tightest start
    let mut want = term.iter().rev();
    let mut next = want.next();
    let mut start = 0;
    for (at, c) in hay[..end].char_indices().rev() {
        if Some(&c) == next {
            next = want.next();
            if next.is_none() {
                start = at;
                break;
            }
        }
    }
    // forward again, within the stretch: the points
    let mut prev = hay[..start].chars().next_back();
    let mut want = term.iter().peekable();
    let mut points = 0;
    let mut gap = 0;
    let mut last_matched = false;
    let mut first = true;
    for c in hay[start..end].chars() {
        if want.peek() == Some(&&c) {
            want.next();
            points += LETTER;
            if word_start(prev) {
                points += if first { 2 * WORD_START } else { WORD_START };
            }
            if last_matched {
                points += RUN;
            }
            last_matched = true;
            first = false;
            gap = 0;
        } else {
            points += if gap == 0 { GAP_START } else { GAP_MORE };
            gap += 1;
            last_matched = false;
        }
        prev = Some(c);
    }
    Some(points)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn score(q: &str, fields: &[&str]) -> Option<Score> {
        let folded: Vec<String> = fields.iter().map(|f| fold(f)).collect();
        let all = fields
            .iter()
            .zip(&folded)
            .map(|(f, l)| (*f, l.as_str(), true));
        Query::new(q).score(all)
    }

    #[test]
    fn words_match_as_subsequences_in_any_field() {
        assert!(score("wrt hku", &["Write me a haiku"]).is_some());
        assert!(score("hku wrt", &["Write me a haiku"]).is_some());
        assert!(score("haiku", &["", "write me a haiku"]).is_some());
        assert!(score("wrt feat", &["write", "feature/x"]).is_some());
        assert!(
            score("ukh", &["Write me a haiku"]).is_none(),
            "order counts"
        );
        assert!(
            score("wrt zzz", &["Write me a haiku"]).is_none(),
            "every word"
        );
        // a word is found within one field, never across two
        assert!(score("wf", &["w", "f"]).is_none());
        assert!(score("", &["x"]).is_some());
        // a field that takes its letters together only
        let q = Query::new("5c0e");
        assert!(q
            .score([("5c0e3e11", "5c0e3e11", false)].into_iter())
            .is_some());
        let q = Query::new("5e1");
        assert!(q
            .score([("5c0e3e11", "5c0e3e11", false)].into_iter())
            .is_none());
    }

    #[test]
    fn a_capital_makes_the_case_count() {
        assert!(score("write", &["Write me"]).is_some());
        assert!(score("Write", &["Write me"]).is_some());
        assert!(score("WRITE", &["Write me"]).is_none());
        assert!(score("wRt", &["write"]).is_none());
        assert!(score("É", &["été"]).is_none());
        assert!(score("é", &["Été"]).is_some());
    }

    #[test]
    fn substrings_rank_first_then_tight_word_aligned_letters() {
        let sub = score("haiku", &["a haiku"]).unwrap();
        let spread = score("haiku", &["have a nice kudu"]).unwrap();
        assert!(sub > spread, "{sub:?} {spread:?}");
        assert_eq!((sub.substrings, spread.substrings), (1, 0));
        // a substring mid-word still beats the tightest scattered match
        let mid = score("aik", &["thaiku"]).unwrap();
        let starts = score("aik", &["a i k"]).unwrap();
        assert!(mid > starts, "{mid:?} {starts:?}");
        // among scattered matches: word starts beat letters mid-word
        let initials = score("wmh", &["write me haiku"]).unwrap();
        let inside = score("wmh", &["awxmxh"]).unwrap();
        assert!(initials > inside, "{initials:?} {inside:?}");
        // runs beat gaps
        let run = score("pars", &["parxs"]).unwrap();
        let gaps = score("pars", &["pxaxrxs"]).unwrap();
        assert!(run > gaps, "{run:?} {gaps:?}");
        // the tightest stretch is scored, not the first letters met
        let tight = score("ab", &["a x x x ab"]).unwrap();
        assert_eq!(tight.substrings, 1);
        let late = score("abc", &["a xxxxxxxx abxc"]).unwrap();
        let early = score("abc", &["axxxxxxxxxbxxxxxxxc"]).unwrap();
        assert!(late > early, "{late:?} {early:?}");
        // a substring at a word start beats one inside a word
        let at_start = score("kit", &["a kitten"]).unwrap();
        let inside = score("kit", &["skittles"]).unwrap();
        assert!(at_start > inside);
    }

    #[test]
    fn letters_that_fold_to_several_still_match() {
        // `İ` folds to two letters; `ẞ` to one
        assert!(score("i̇s", &["İstanbul"]).is_some());
        assert!(score("ist", &["İstanbul"]).is_some());
        assert!(score("ß", &["GROẞ"]).is_some());
    }

    proptest! {
        /// Whatever the old filter found (every word a substring of a
        /// field, case ignored), the fuzzy one finds; a query with a
        /// capital, when every word is in a field as typed.
        #[test]
        fn every_substring_match_is_a_fuzzy_match(
            fields in proptest::collection::vec(".{0,40}", 1..5),
            picks in proptest::collection::vec((0usize..5, 0usize..40, 0usize..12), 1..4),
        ) {
            let mut words = Vec::new();
            for (f, start, len) in picks {
                let chars: Vec<char> = fields[f % fields.len()].chars().collect();
                let start = start.min(chars.len());
                let end = (start + len).min(chars.len());
                let w: String = chars[start..end].iter().collect();
                words.extend(w.split_whitespace().map(str::to_owned));
            }
            let query = words.join(" ");
            let refs: Vec<&str> = fields.iter().map(String::as_str).collect();
            let found = score(&query, &refs);
            prop_assert!(found.is_some(), "{query:?} in {fields:?}");
            // every word came from a field: all count as substrings
            prop_assert_eq!(found.unwrap().substrings, words.len());
            // the same words in lower case, as the old filter took them
            let lower = fold(&query);
            if !lower.chars().any(char::is_uppercase) {
                let old = words.iter().all(|w| {
                    refs.iter().any(|f| f.to_lowercase().contains(&w.to_lowercase()))
                });
                if old {
                    prop_assert!(score(&lower, &refs).is_some(), "{lower:?} in {fields:?}");
                }
            }
        }

        /// A subsequence of a field, as typed, always matches.
        #[test]
        fn every_subsequence_matches(
            field in "[a-zA-Z _/-]{0,60}",
            keep in proptest::collection::vec(any::<bool>(), 60),
        ) {
            let sub: String = field
                .chars()
                .zip(keep.iter())
                .filter(|(c, k)| **k && !c.is_whitespace())
                .map(|(c, _)| c)
                .collect();
            prop_assert!(score(&sub, &[&field]).is_some(), "{sub:?} in {field:?}");
        }
    }
}
